/* build_statistics.c - the 2DTM statistics epilogue of a C2R kernel: every signal's outputs
 * folded into per-thread maxima, signal indices and sums of squares inside the loop over the
 * signals, then merged into the statistics arrays (the signals' sum, from which finalisation
 * correlates the mean, is build_pointwise.c's). */
#include "gen/build_context.h"

/* The statistics of a thread: for each slot (butterfly b, radix index r of the last pass)
 * and each real it holds (2 for C2R_HALF), the maximum and the loop index of the signal
 * that gave it in registers, the sum of squares in shared memory after the transforms'
 * exchange area (real 2 * shared_base + i * threads + thread: neighbouring threads on
 * neighbouring reals), where keeping the sums out of the registers lets more blocks share a
 * multiprocessor, or with squares_in_registers in registers too (signal-pair kernels, whose
 * blocks are two per multiprocessor either way). The outputs' plain sums are not kept: by
 * linearity they are the correlation of the signals' sum (build_pointwise.c's signal-sum
 * kernel), which finalisation computes once. */
struct zipfft__stats_regs {
  int count;
  const zipfft__var **max, **index, **squares;
  int64_t shared_base;
};

/* Real p (0 or 1) of output element e: its position in the row and its value. */
static const zipfft__expr *stats_pixel(zipfft__stockham_build *c, const zipfft__expr *e, int p) {
  if (zipfft__statistics_reals_per_slot(c->s) == 1) return e;
  return bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, e, i32(c, 2)), i32(c, p));
}

/* Shared-memory real of the sum of squares of the thread's real i. */
static const zipfft__expr *stats_squares_at(zipfft__stockham_build *c, int i) {
  int64_t first = 2 * c->stats->shared_base + (int64_t)i * zipfft__c2c_block_threads(c->s);
  return bin(c, ZIPFFT__OP_ADD, zipfft__e_thread(c->a), i32(c, first));
}

/* Loads the sum of squares of the thread's real i. */
static const zipfft__expr *load_squares(zipfft__stockham_build *c, zipfft__block *blk, int i) {
  if (c->s->squares_in_registers) return var(c, c->stats->squares[i]);
  const zipfft__var *v = zipfft__var_new(c->a, "sq", ZIPFFT__T_REAL);
  zipfft__s_decl(c->a, blk, v, NULL);
  zipfft__s_load_real(c->a, blk, v, c->smem, stats_squares_at(c, i), ZIPFFT__ACCESS_VECTOR,
                      ZIPFFT_STORAGE_DEFAULT);
  return var(c, v);
}

/* The loop index of signal `which` as the statistics keep it (I32). */
static const zipfft__expr *signal_index(zipfft__stockham_build *c, int which) {
  return zipfft__e_cast(c->a, ZIPFFT__T_I32, zipfft__loop_signal(c, which));
}

/* Raises statistic i's maximum to v, with signal index `index`, where v is higher and
 * `also` (NULL: nothing more) holds. */
static void raise_maximum(zipfft__stockham_build *c, zipfft__block *blk, int i,
                          const zipfft__expr *also, const zipfft__expr *v,
                          const zipfft__expr *index) {
  const struct zipfft__stats_regs *st = c->stats;
  const zipfft__expr *higher = bin(c, ZIPFFT__OP_LT, var(c, st->max[i]), v);
  zipfft__block *g = open_if(c, blk, also ? bin(c, ZIPFFT__OP_AND, also, higher) : higher);
  zipfft__s_assign(c->a, g, st->max[i], v);
  zipfft__s_assign(c->a, g, st->index[i], index);
}

/* Adds squares to statistic i's running sum of squares (shared memory or a register). */
static void add_to_squares(zipfft__stockham_build *c, zipfft__block *blk, int i,
                           const zipfft__expr *squares) {
  const zipfft__expr *sum = bin(c, ZIPFFT__OP_ADD, load_squares(c, blk, i), squares);
  if (c->s->squares_in_registers) {
    zipfft__s_assign(c->a, blk, c->stats->squares[i], sum);
    return;
  }
  zipfft__s_store_real(c->a, blk, c->smem, stats_squares_at(c, i), sum, ZIPFFT__ACCESS_VECTOR,
                       ZIPFFT_STORAGE_DEFAULT);
}

/* signal_pairs: folds output element e (slot i) of both signals, a's value (the real part)
 * first so that a tie keeps the lower index; b's only when the iteration has it. */
static void emit_pair_stats_update(zipfft__stockham_build *c, zipfft__block *g, int i,
                                   const zipfft__expr *e, zipfft__cval y) {
  zipfft__block *in = zipfft__open_within(c, g, e, c->s->store_extent);
  const zipfft__expr *present = let(c, in, "pb", zipfft__second_signal_present(c));
  const zipfft__expr *va = let(c, in, "v", y.re);
  const zipfft__expr *vb =
      let(c, in, "v", zipfft__e_select(c->a, present, y.im, zipfft__e_real(c->a, 0)));
  raise_maximum(c, in, i, NULL, va, signal_index(c, 0));
  raise_maximum(c, in, i, present, vb, signal_index(c, 1));
  add_to_squares(
      c, in, i,
      bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, va, va), bin(c, ZIPFFT__OP_MUL, vb, vb)));
}

void zipfft__emit_stats_update(zipfft__stockham_build *c, zipfft__block *g, int slot,
                               const zipfft__expr *e, zipfft__cval y) {
  if (c->s->signal_pairs) {
    emit_pair_stats_update(c, g, slot, e, y);
    return;
  }
  for (int p = 0; p < zipfft__statistics_reals_per_slot(c->s); p++) {
    int i = slot * zipfft__statistics_reals_per_slot(c->s) + p;
    zipfft__block *in = zipfft__open_within(c, g, stats_pixel(c, e, p), c->s->store_extent);
    const zipfft__expr *v = let(c, in, "v", p ? y.im : y.re);
    raise_maximum(c, in, i, NULL, v, signal_index(c, 0));
    add_to_squares(c, in, i, bin(c, ZIPFFT__OP_MUL, v, v));
  }
}

/* Elements a row spans that a statistics kernel of kind C2R reads (the Hermitian half, at
 * most the load extent, at a stride of 1 to 4), 0 for other kinds or wider strides. */
static int64_t prefetched_row_elements(const zipfft__kernel_spec *s) {
  int c2r = s->kind == ZIPFFT__KIND_C2R || s->kind == ZIPFFT__KIND_C2R_HALF;
  return c2r && s->in_stride <= 4 ? (zipfft__input_row_elements(s) - 1) * s->in_stride + 1 : 0;
}

/* The output reals of a statistics kernel's row: its length, or the store extent. */
static int64_t statistics_row_reals(const zipfft__kernel_spec *s) {
  int64_t reals = s->kind == ZIPFFT__KIND_C2R_HALF ? 2 * s->n : s->n;
  return s->store_extent > 0 && s->store_extent < reals ? s->store_extent : reals;
}

/* 1 (I32/bool) for thread `lane` of each transform (lane taken modulo the threads of one
 * transform) of an active transform. */
static const zipfft__expr *prefetching_thread(zipfft__stockham_build *c,
                                              const zipfft__thread_coords *k, int lane) {
  const zipfft__expr *is = bin(c, ZIPFFT__OP_EQ, k->t, i32(c, lane % c->s->threads_per_fft));
  return bin(c, ZIPFFT__OP_AND, k->active, is);
}

/* Asks L2 for the rows of the next iteration's signals (those that exist), one bulk
 * prefetch per row from lanes 0 and 32 (a warp each), at row (the iteration's first
 * input element) plus one iteration. */
static void emit_row_prefetches(zipfft__stockham_build *c, zipfft__block *loop,
                                const zipfft__thread_coords *k, const zipfft__expr *row,
                                const zipfft__expr *next) {
  const zipfft__kernel_spec *s = c->s;
  int64_t bytes = (int64_t)zipfft__element_bytes(s, 0);
  int per_iteration = s->signal_pairs ? 2 : 1;
  for (int w = 0; w < per_iteration; w++) {
    const zipfft__expr *signal = bin(c, ZIPFFT__OP_ADD, next, i64(c, w));
    const zipfft__expr *wanted = bin(c, ZIPFFT__OP_LT, signal, var(c, c->loop_count));
    int64_t shift = (per_iteration + w) * s->loop_in_stride;
    const zipfft__expr *at =
        bin(c, ZIPFFT__OP_MUL, bin(c, ZIPFFT__OP_ADD, row, i64(c, shift)), i64(c, bytes));
    const zipfft__expr *args[] = {var(c, c->in), at, i64(c, prefetched_row_elements(s) * bytes)};
    zipfft__block *g =
        open_if(c, loop, bin(c, ZIPFFT__OP_AND, prefetching_thread(c, k, 32 * w), wanted));
    zipfft__s_call(c->a, g, "zprefetch", 3, args);
  }
}

/* In the last iteration (next: the first signal after it), unless it is also the first,
 * asks L2 for the statistics of the transform's output row (lane 64). */
static void emit_statistics_prefetch(zipfft__stockham_build *c, zipfft__block *loop,
                                     const zipfft__thread_coords *k, const zipfft__expr *next) {
  const zipfft__kernel_spec *s = c->s;
  const zipfft__expr *later = bin(c, ZIPFFT__OP_LT, i64(c, 0), var(c, c->signal));
  const zipfft__expr *last =
      bin(c, ZIPFFT__OP_AND, later, bin(c, ZIPFFT__OP_LE, var(c, c->loop_count), next));
  const zipfft__expr *args[] = {var(c, c->out), i64(c, s->stats_plane),
                                zipfft__batch_offset(c, loop, k, 1),
                                i64(c, statistics_row_reals(s))};
  zipfft__block *g = open_if(c, loop, bin(c, ZIPFFT__OP_AND, prefetching_thread(c, k, 64), last));
  zipfft__s_call(c->a, g, "zstats_prefetch", 4, args);
}

/* stage_rows: the complex slot of the barrier the staged rows' copies complete on. */
static int64_t stage_barrier_slot(const zipfft__kernel_spec *s) {
  return zipfft__stage_slot(s) + 2 * zipfft__stage_row_slots(s);
}

/* stage_rows, in a block that only lane 0 of an active block enters: starts the copies of
 * an iteration's rows into the staged rows, signal a's at row (elements; with in_tile, the
 * whole tile of rows from its first, row less the transform's row k within it) and b's a
 * loop_in_stride further when b (first + 1) exists (zstage_rows: bulk copies that complete
 * on the stage barrier on CUDA; a plain copy on the CPU). */
static void emit_stage_copy(zipfft__stockham_build *c, zipfft__block *lane0,
                            const zipfft__thread_coords *k, const zipfft__expr *row,
                            const zipfft__expr *first) {
  const zipfft__kernel_spec *s = c->s;
  const zipfft__expr *tile_row = zipfft__tile_row(c, k);
  if (tile_row) row = bin(c, ZIPFFT__OP_SUB, row, tile_row);
  const zipfft__expr *bytes = i64(c, (int64_t)zipfft__element_bytes(s, 0));
  const zipfft__expr *row_b = bin(c, ZIPFFT__OP_ADD, row, i64(c, s->loop_in_stride));
  const zipfft__expr *second = bin(c, ZIPFFT__OP_ADD, first, i64(c, 1));
  const zipfft__expr *args[] = {
      var(c, c->in),
      bin(c, ZIPFFT__OP_MUL, row, bytes),
      bin(c, ZIPFFT__OP_MUL, row_b, bytes),
      zipfft__e_cast(c->a, ZIPFFT__T_I32, bin(c, ZIPFFT__OP_LT, second, var(c, c->loop_count))),
      i32(c, zipfft__stage_row_bytes(s)),
      var(c, c->smem),
      i32(c, zipfft__stage_slot(s)),
      i32(c, zipfft__stage_row_slots(s)),
      i32(c, stage_barrier_slot(s))};
  zipfft__s_call(c->a, lane0, "zstage_rows", 9, args);
}

/* stage_rows, before the signal loop: lane 0 of an active block sets up the stage barrier
 * and starts the copies of the first iteration's rows; a block barrier then shows the
 * barrier to every thread. */
static void emit_stage_start(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *row = zipfft__batch_offset(c, body, &k, 0); /* no loop yet: signal 0 */
  zipfft__block *lane0 = open_if(c, body, prefetching_thread(c, &k, 0));
  const zipfft__expr *begin[] = {var(c, c->smem), i32(c, stage_barrier_slot(c->s))};
  zipfft__s_call(c->a, lane0, "zstage_begin", 2, begin);
  emit_stage_copy(c, lane0, &k, row, i64(c, 0));
  zipfft__s_barrier(c->a, body);
}

/* stage_rows, at the top of each iteration: the threads of an active block wait until the
 * iteration's rows have arrived (the barrier's phase alternates with the iterations); with
 * in_tile, names the transform's row within the staged tile for the loads. */
static void emit_stage_wait(zipfft__stockham_build *c, zipfft__block *loop) {
  zipfft__thread_coords k = zipfft__emit_coords(c, loop);
  const zipfft__expr *tile_row = zipfft__tile_row(c, &k);
  c->stage_tile_row = tile_row ? let(c, loop, "tr", tile_row) : NULL;
  const zipfft__expr *args[] = {var(c, c->smem), i32(c, stage_barrier_slot(c->s)),
                                bin(c, ZIPFFT__OP_BITAND, var(c, c->signal), i64(c, 1))};
  zipfft__s_call(c->a, open_if(c, loop, k.active), "zstage_wait", 3, args);
}

void zipfft__emit_stage_next(zipfft__stockham_build *c, zipfft__block *body) {
  if (!c->s->stage_rows || !c->signal) return;
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *first = bin(c, ZIPFFT__OP_ADD, zipfft__loop_signal(c, 0), i64(c, 2));
  const zipfft__expr *row = bin(c, ZIPFFT__OP_ADD, zipfft__batch_offset(c, body, &k, 0),
                                i64(c, 2 * c->s->loop_in_stride));
  zipfft__block *lane0 = open_if(c, body,
                                 bin(c, ZIPFFT__OP_AND, prefetching_thread(c, &k, 0),
                                     bin(c, ZIPFFT__OP_LT, first, var(c, c->loop_count))));
  emit_stage_copy(c, lane0, &k, row, first);
}

/* At the top of the signal loop: asks L2 (a hint; CUDA on sm_90, nothing on the CPU) for
 * the rows the next iteration reads and, in the last iteration, for the statistics the
 * merge reads, so that their DRAM latency overlaps this iteration's transform. Not in a
 * first iteration, where the statistics would compete with the rows' own loads.
 * Measured on an H200 (2DTM corr/s, none -> rows -> rows and statistics): 4096x4096/512
 * batch 16 10582 -> 10758 -> 10915, batch 8 9260 -> 9470 -> 9834, 5760x4092/384 batch 16
 * 6362 -> 6543 -> 6733; batch 1 (one iteration) 3576 -> 3585 -> 3602, but 3439 with the
 * statistics prefetched in its first iteration. */
static void emit_prefetches(zipfft__stockham_build *c, zipfft__block *loop) {
  if (prefetched_row_elements(c->s) == 0) return;
  zipfft__thread_coords k = zipfft__emit_coords(c, loop);
  const zipfft__expr *row = zipfft__batch_offset(c, loop, &k, 0);
  const zipfft__expr *next =
      bin(c, ZIPFFT__OP_ADD, zipfft__loop_signal(c, 0), i64(c, c->s->signal_pairs ? 2 : 1));
  if (!c->s->stage_rows) emit_row_prefetches(c, loop, &k, row, next);
  if (c->s->out_stride == 1) emit_statistics_prefetch(c, loop, &k, next);
}

zipfft__block *zipfft__open_statistics_loop(zipfft__stockham_build *c, zipfft__block *body) {
  struct zipfft__stats_regs *st = zipfft__arena_alloc(c->a, sizeof *st);
  int count = (int)zipfft__statistics_reals_per_thread(c->s);
  long double lowest = c->s->precision == ZIPFFT_F32 ? -3.0e38L : -1.0e308L;
  if (st) {
    st->max = zipfft__arena_alloc(c->a, (size_t)count * sizeof(void *));
    st->index = zipfft__arena_alloc(c->a, (size_t)count * sizeof(void *));
    st->squares = zipfft__arena_alloc(c->a, (size_t)count * sizeof(void *));
  }
  if (zipfft__arena_error(c->a)) return body;
  st->count = count;
  st->shared_base = zipfft__shared_rows_end(c->s);
  c->stats = st;
  zipfft__s_comment(c->a, body, "statistics: every signal's outputs folded in");
  for (int i = 0; i < count; i++) {
    st->max[i] = zipfft__var_new_live(c->a, "smax", ZIPFFT__T_REAL);
    st->index[i] = zipfft__var_new_live(c->a, "sidx", ZIPFFT__T_I32);
    zipfft__s_decl(c->a, body, st->max[i], zipfft__e_real(c->a, lowest));
    zipfft__s_decl(c->a, body, st->index[i], i32(c, -1));
    if (c->s->squares_in_registers) {
      st->squares[i] = zipfft__var_new_live(c->a, "ssq", ZIPFFT__T_REAL);
      zipfft__s_decl(c->a, body, st->squares[i], zipfft__e_real(c->a, 0));
      continue;
    }
    zipfft__s_store_real(c->a, body, c->smem, stats_squares_at(c, i), zipfft__e_real(c->a, 0),
                         ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
  }
  if (c->s->stage_rows) emit_stage_start(c, body);
  c->signal = zipfft__var_new(c->a, "sig", ZIPFFT__T_I64);
  const zipfft__expr *iterations = var(c, c->loop_count);
  if (c->s->signal_pairs) /* (loop_count + 1) / 2 pairs */
    iterations = bin(c, ZIPFFT__OP_SHR, bin(c, ZIPFFT__OP_ADD, iterations, i64(c, 1)), i64(c, 1));
  zipfft__block *loop = &zipfft__s_for(c->a, body, c->signal, iterations)->u.for_.body;
  if (c->s->stats_prefetch) emit_prefetches(c, loop);
  if (c->s->stage_rows) emit_stage_wait(c, loop);
  return loop;
}

/* One output real's share of a statistics merge: its element in the arrays, whether it is
 * stored at all (I32), and its maximum, absolute signal index and sum of squares. */
typedef struct stats_pixel_args {
  const zipfft__expr *at, *ok, *max, *index, *sumsq;
} stats_pixel_args;

/* The merge arguments of real i (slot slot, real p of it) of butterfly j. */
static stats_pixel_args stats_args_of(zipfft__stockham_build *c, zipfft__block *blk,
                                      const zipfft__expr *base, const zipfft__expr *guard,
                                      const zipfft__expr *e, int i, int p) {
  const struct zipfft__stats_regs *st = c->stats;
  const zipfft__expr *pixel = stats_pixel(c, e, p);
  const zipfft__expr *ok = guard;
  if (c->s->store_extent > 0) {
    const zipfft__expr *within = bin(c, ZIPFFT__OP_LT, pixel, i32(c, c->s->store_extent));
    ok = ok ? bin(c, ZIPFFT__OP_AND, ok, within) : within;
  }
  const zipfft__expr *index = zipfft__e_cast(c->a, ZIPFFT__T_I64, var(c, st->index[i]));
  return (stats_pixel_args){
      zipfft__global_offset(c, base, pixel, c->s->out_stride),
      ok ? zipfft__e_cast(c->a, ZIPFFT__T_I32, ok) : i32(c, 1), var(c, st->max[i]),
      zipfft__e_select(c->a, bin(c, ZIPFFT__OP_LT, index, i64(c, 0)), i64(c, -1),
                       bin(c, ZIPFFT__OP_ADD, var(c, c->first_index), index)),
      load_squares(c, blk, i)};
}

/* Calls zstats_merge4 for up to four pixels (the missing ones skipped). */
static void emit_merge_call(zipfft__stockham_build *c, zipfft__block *blk,
                            const stats_pixel_args *px, int count) {
  enum { per_pixel = 5 };
  const zipfft__expr *args[2 + 4 * per_pixel];
  args[0] = var(c, c->out);
  args[1] = i64(c, c->s->stats_plane);
  const stats_pixel_args none = {i64(c, 0), i32(c, 0), zipfft__e_real(c->a, 0), i64(c, -1),
                                 zipfft__e_real(c->a, 0)};
  for (int k = 0; k < 4; k++) {
    const stats_pixel_args *a = k < count ? &px[k] : &none;
    const zipfft__expr *values[per_pixel] = {a->at, a->ok, a->max, a->index, a->sumsq};
    for (int v = 0; v < per_pixel; v++) args[2 + k * per_pixel + v] = values[v];
  }
  zipfft__s_call(c->a, blk, "zstats_merge4", 2 + 4 * per_pixel, args);
}

void zipfft__emit_stats_merge(zipfft__stockham_build *c, zipfft__block *body) {
  pass_shape ps = zipfft__pass_shape_of(c->s, c->s->pass_count - 1);
  int reals = zipfft__statistics_reals_per_slot(c->s);
  zipfft__s_comment(c->a, body, "statistics: merge into the arrays");
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *j[ZIPFFT__MAX_VALUES];
  zipfft__emit_butterfly_indices(c, body, &k, &ps, j);
  const zipfft__expr *base = zipfft__batch_offset(c, body, &k, 1);
  zipfft__block *active = open_if(c, body, k.active);
  stats_pixel_args group[4];
  int filled = 0;
  for (int b = 0; b < ps.butterflies; b++) {
    const zipfft__expr *guard = zipfft__butterfly_guard(c, &ps, b, j[b]);
    for (int r = 0; r < ps.radix; r++) {
      if (r * ps.m >= zipfft__store_bound(c->s)) continue;
      const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps.m));
      for (int p = 0; p < reals; p++) {
        group[filled++] =
            stats_args_of(c, active, base, guard, e, (b * ps.radix + r) * reals + p, p);
        if (filled == 4) emit_merge_call(c, active, group, filled), filled = 0;
      }
    }
  }
  if (filled > 0) emit_merge_call(c, active, group, filled);
}
