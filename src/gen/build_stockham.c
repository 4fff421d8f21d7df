/* build_stockham.c - the global function of a single-kernel C2C, R2C or C2R pass: thread and batch
 * coordinates, global loads and stores, Stockham passes exchanged through shared memory. */
#include "gen/build_stockham.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen/build_context.h"
#include "gen/butterfly.h"
#include "plan/twiddle.h"

/* x / by or x % by (op) of a non-negative x: a shift or a mask when by is a power of two,
 * which also shows the compiler the result's range. */
static const zipfft__expr *quotient(zipfft__stockham_build *c, zipfft__binop op,
                                    const zipfft__expr *x, int64_t by) {
  if (by <= 0 || (by & (by - 1)) != 0) return bin(c, op, x, i32(c, by));
  if (op == ZIPFFT__OP_MOD) return bin(c, ZIPFFT__OP_BITAND, x, i32(c, by - 1));
  int shift = 0;
  while (((int64_t)1 << shift) < by) shift++;
  return bin(c, ZIPFFT__OP_SHR, x, i32(c, shift));
}

/* paired_rows kernels: transform f of the block whose first transform is `first` (a multiple
 * of F = ffts_per_block; the rows a multiple of F). The block holds F/2 slots s = (first %
 * rows) / 2 + f % (F/2); transform f < F/2 is row s, f >= F/2 row rows - s (rows/2 for
 * s = 0), so each row meets its split partner rows - row in the same block. */
static const zipfft__expr *paired_row(zipfft__stockham_build *c, zipfft__block *b,
                                      const zipfft__expr *first, const zipfft__expr *f) {
  int64_t rows = c->s->paired_rows, half = c->s->ffts_per_block / 2;
  first = let(c, b, "gf", first);
  const zipfft__expr *within = let(c, b, "gw", bin(c, ZIPFFT__OP_MOD, first, i64(c, rows)));
  const zipfft__expr *f64 = zipfft__e_cast(c->a, ZIPFFT__T_I64, f);
  const zipfft__expr *slot = let(c, b, "gs",
                                 bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_DIV, within, i64(c, 2)),
                                     bin(c, ZIPFFT__OP_MOD, f64, i64(c, half))));
  const zipfft__expr *mirror =
      zipfft__e_select(c->a, bin(c, ZIPFFT__OP_EQ, slot, i64(c, 0)), i64(c, rows / 2),
                       bin(c, ZIPFFT__OP_SUB, i64(c, rows), slot));
  const zipfft__expr *row =
      zipfft__e_select(c->a, bin(c, ZIPFFT__OP_LT, f64, i64(c, half)), slot, mirror);
  return bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_SUB, first, within), row);
}

/* The block's index (I64): its work item in persistent kernels, else the hardware's. */
static const zipfft__expr *block_index(zipfft__stockham_build *c) {
  return c->block ? c->block : zipfft__e_block(c->a);
}

zipfft__thread_coords zipfft__emit_coords(zipfft__stockham_build *c, zipfft__block *b) {
  return zipfft__emit_coords_mapped(c, b, c->s->fft_major);
}

zipfft__thread_coords zipfft__emit_coords_mapped(zipfft__stockham_build *c, zipfft__block *b,
                                                 int major) {
  int threads = c->s->threads_per_fft;
  const zipfft__expr *tid = zipfft__e_thread(c->a);
  int per_block = c->s->ffts_per_block;
  /* Transform-major: consecutive threads take consecutive transforms (coalesced columns).
   * t is bounded by the threads of a transform, so that comparisons of the elements it
   * indexes with an extent fold where they always hold (zipfft__expr_bound). */
  zipfft__binop t_op = major ? ZIPFFT__OP_DIV : ZIPFFT__OP_MOD,
                f_op = major ? ZIPFFT__OP_MOD : ZIPFFT__OP_DIV;
  int64_t t_by = major ? per_block : threads, f_by = major ? per_block : threads;
  const zipfft__expr *t =
      let_bounded(c, b, "t", per_block == 1 ? tid : quotient(c, t_op, tid, t_by), threads);
  return zipfft__emit_coords_of(
      c, b, t, per_block == 1 ? i32(c, 0) : let(c, b, "f", quotient(c, f_op, tid, f_by)));
}

const zipfft__expr *zipfft__emit_transform_index(zipfft__stockham_build *c, zipfft__block *b,
                                                 const zipfft__expr *f) {
  const zipfft__expr *block = block_index(c);
  const zipfft__expr *first = bin(c, ZIPFFT__OP_MUL, block, i64(c, c->s->ffts_per_block));
  return let(
      c, b, "g",
      c->s->paired_rows > 0
          ? paired_row(c, b, bin(c, ZIPFFT__OP_ADD, first, var(c, c->batch_offset)), f)
          : bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_ADD, first, f), var(c, c->batch_offset)));
}

zipfft__thread_coords zipfft__emit_coords_of(zipfft__stockham_build *c, zipfft__block *b,
                                             const zipfft__expr *t, const zipfft__expr *f) {
  zipfft__thread_coords k = {.t = t, .f = f};
  k.g = zipfft__emit_transform_index(c, b, f);
  k.active = let(c, b, "active", bin(c, ZIPFFT__OP_LT, k.g, var(c, c->batch)));
  return k;
}

pass_shape zipfft__pass_shape_of(const zipfft__kernel_spec *s, int p) {
  pass_shape ps;
  ps.radix = s->radices[p];
  ps.ns = 1;
  for (int i = 0; i < p; i++) ps.ns *= s->radices[i];
  ps.m = s->n / ps.radix;
  ps.butterflies = (int)((ps.m + s->threads_per_fft - 1) / s->threads_per_fft);
  ps.mirrored = s->mirrored && p == zipfft__mirrored_pass(s);
  return ps;
}

void zipfft__emit_butterfly_indices(zipfft__stockham_build *c, zipfft__block *blk,
                                    const zipfft__thread_coords *k, const pass_shape *ps,
                                    const zipfft__expr **j) {
  int half = ps->butterflies / 2;
  for (int b = 0; b < ps->butterflies; b++) {
    if (ps->mirrored && b >= half) {
      const zipfft__expr *front = j[b - half];
      j[b] = let_bounded(
          c, blk, "j",
          zipfft__e_select(c->a, bin(c, ZIPFFT__OP_EQ, front, i32(c, 0)), i32(c, ps->m / 2),
                           bin(c, ZIPFFT__OP_SUB, i32(c, ps->m), front)),
          ps->m);
      continue;
    }
    j[b] =
        let(c, blk, "j", bin(c, ZIPFFT__OP_ADD, k->t, i32(c, (int64_t)b * c->s->threads_per_fft)));
  }
}

const zipfft__expr *zipfft__butterfly_guard(zipfft__stockham_build *c, const pass_shape *ps, int b,
                                            const zipfft__expr *j) {
  int64_t covered = (int64_t)ps->butterflies * c->s->threads_per_fft;
  if (covered == ps->m || b != ps->butterflies - 1) return NULL;
  return bin(c, ZIPFFT__OP_LT, j, i32(c, ps->m));
}

zipfft__cval zipfft__zero_value(zipfft__stockham_build *c, zipfft__block *blk, const char *prefix,
                                int live) {
  const zipfft__var *parts[2];
  for (int i = 0; i < 2; i++) {
    const char *name = zipfft__arena_printf(c->a, "%s%c", prefix, i ? 'i' : 'r');
    parts[i] = live ? zipfft__var_new_live(c->a, name, ZIPFFT__T_REAL)
                    : zipfft__var_new(c->a, name, ZIPFFT__T_REAL);
    zipfft__s_decl(c->a, blk, parts[i], zipfft__e_real(c->a, 0));
  }
  return (zipfft__cval){var(c, parts[0]), var(c, parts[1])};
}

/* 1 when slot r of a pass that loads from global memory lies in the zero padding for every
 * thread (r*m at or beyond the load extent): it is never read. */
static int padding_slot(const zipfft__stockham_build *c, const pass_shape *ps, int r) {
  return r * ps->m >= zipfft__load_bound(c->s);
}

/* Declares zero-initialised registers for every value this thread holds in a pass. The
 * padding slots of a pass that loads from global memory are the constant zero instead, so
 * that the butterflies' constant folding drops the arithmetic on them (a pruned FFT). */
static void declare_values(zipfft__stockham_build *c, zipfft__block *blk, const pass_shape *ps,
                           int live, int from_global, zipfft__cval *x) {
  for (int b = 0; b < ps->butterflies; b++)
    for (int r = 0; r < ps->radix; r++)
      x[b * ps->radix + r] = from_global && padding_slot(c, ps, r)
                                 ? (zipfft__cval){zipfft__e_real(c->a, 0), zipfft__e_real(c->a, 0)}
                                 : zipfft__zero_value(c, blk, "x", live);
}

const zipfft__expr *zipfft__batch_offset_with(zipfft__stockham_build *c, zipfft__block *b,
                                              const zipfft__thread_coords *k,
                                              const int64_t *strides, const char *name) {
  const zipfft__expr *rest = k->g, *offset = i64(c, 0);
  for (int d = c->s->batch_dims - 1; d >= 0; d--) {
    const zipfft__expr *digit = rest;
    if (d > 0) {
      const zipfft__expr *count = i64(c, c->s->batch_counts[d]);
      digit = bin(c, ZIPFFT__OP_MOD, rest, count);
      rest = let(c, b, "q", bin(c, ZIPFFT__OP_DIV, rest, count));
    }
    offset = bin(c, ZIPFFT__OP_ADD, offset, bin(c, ZIPFFT__OP_MUL, digit, i64(c, strides[d])));
  }
  return let(c, b, name, offset);
}

const zipfft__expr *zipfft__tile_row(zipfft__stockham_build *c, const zipfft__thread_coords *k) {
  if (c->s->in_tile <= 1) return NULL;
  const zipfft__expr *digit = k->g;
  int inner = c->s->batch_dims - 1;
  if (inner > 0) digit = bin(c, ZIPFFT__OP_MOD, digit, i64(c, c->s->batch_counts[inner]));
  return bin(c, ZIPFFT__OP_BITAND, digit, i64(c, c->s->in_tile - 1));
}

/* Offset (I64) of the first element of transform g: the digits of g over the batch
 * dimensions, each times its stride (in or out); inside a statistics loop the input moves
 * by loop_in_stride per signal (two per iteration with signal_pairs). */
const zipfft__expr *zipfft__batch_offset(zipfft__stockham_build *c, zipfft__block *b,
                                         const zipfft__thread_coords *k, int out) {
  const int64_t *strides = out ? c->s->batch_out_strides : c->s->batch_in_strides;
  const zipfft__expr *offset = zipfft__batch_offset_with(c, b, k, strides, out ? "ob" : "ib");
  const zipfft__expr *row = out ? NULL : zipfft__tile_row(c, k);
  if (row) { /* the transform's row within its tile */
    offset = let(
        c, b, "ip",
        bin(c, ZIPFFT__OP_ADD, offset, bin(c, ZIPFFT__OP_MUL, row, i64(c, c->s->in_tile_shift))));
  }
  if (out || !c->signal) return offset;
  const zipfft__expr *shift =
      bin(c, ZIPFFT__OP_MUL, zipfft__e_cast(c->a, ZIPFFT__T_I64, var(c, c->signal)),
          i64(c, c->s->loop_in_stride * (c->s->signal_pairs ? 2 : 1)));
  return let(c, b, "is", bin(c, ZIPFFT__OP_ADD, offset, shift));
}

/* Global element offset (I64) of element `e` of a transform starting at base. */
const zipfft__expr *zipfft__global_offset(zipfft__stockham_build *c, const zipfft__expr *base,
                                          const zipfft__expr *e, int64_t stride) {
  /* the most elements a row's index reaches: the transform's points, or the spectrum of a
   * half-length kind (L + 1 for paired_rows kernels, whose row is a part of it); twice that
   * for the real side of HALF kinds */
  int64_t points = zipfft__transform_points(c->s), half = zipfft__half_points(c->s) + 1;
  if (half > points) points = half;
  int small = (2 * points) * stride < ((int64_t)1 << 31);
  const zipfft__expr *scaled =
      small ? zipfft__e_cast(c->a, ZIPFFT__T_I64, bin(c, ZIPFFT__OP_MUL, e, i32(c, stride)))
            : bin(c, ZIPFFT__OP_MUL, zipfft__e_cast(c->a, ZIPFFT__T_I64, e), i64(c, stride));
  return bin(c, ZIPFFT__OP_ADD, base, scaled);
}

zipfft__block *zipfft__open_within(zipfft__stockham_build *c, zipfft__block *g,
                                   const zipfft__expr *index, int64_t extent) {
  return extent > 0 ? open_if(c, g, bin(c, ZIPFFT__OP_LT, index, i32(c, extent))) : g;
}

/* Loads complex element e of the row at base into x, when it lies within the load extent;
 * returns the branch it loaded in. */
static zipfft__block *load_complex_within(zipfft__stockham_build *c, zipfft__block *g,
                                          const zipfft__cval *x, const zipfft__expr *base,
                                          const zipfft__expr *e, zipfft__access access) {
  g = zipfft__open_within(c, g, e, c->s->load_extent);
  zipfft__s_load_complex(c->a, g, x->re->u.var, x->im->u.var, c->in,
                         zipfft__global_offset(c, base, e, c->s->in_stride), access,
                         c->s->in_storage);
  return g;
}

const zipfft__expr *zipfft__real_pair_index(zipfft__stockham_build *c, const zipfft__expr *base,
                                            const zipfft__expr *e) {
  return bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_SHR, base, i32(c, 1)),
             zipfft__e_cast(c->a, ZIPFFT__T_I64, e));
}

/* Loads real element `at` of the row at base into re, when it lies within the load extent. */
static void load_real_within(zipfft__stockham_build *c, zipfft__block *g, const zipfft__var *re,
                             const zipfft__expr *base, const zipfft__expr *at,
                             zipfft__access access) {
  zipfft__s_load_real(c->a, zipfft__open_within(c, g, at, c->s->load_extent), re, c->in,
                      zipfft__global_offset(c, base, at, c->s->in_stride), access,
                      c->s->in_storage);
}

const zipfft__expr *zipfft__loop_signal(zipfft__stockham_build *c, int which) {
  const zipfft__expr *sig = var(c, c->signal);
  if (!c->s->signal_pairs) return sig;
  return bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, sig, i64(c, 2)), i64(c, which));
}

const zipfft__expr *zipfft__second_signal_present(zipfft__stockham_build *c) {
  return bin(c, ZIPFFT__OP_LT, zipfft__loop_signal(c, 1), var(c, c->loop_count));
}

/* Where element e (in [lo, hi) when known: lo >= 0, hi > 0) of a full-length C2R
 * transform of n points finds its value in the Hermitian half: directly (e <= n/2), or
 * conjugated from n - e (above n/2; for even n, e = n/2 may go either way); and whether it
 * may be the DC or (n even) the Nyquist term. Decided at generation time where the range
 * of e decides it, so that most slots need no run-time selects. */
typedef struct hermitian_slot {
  int always_low, always_high, maybe_dc, maybe_nyquist;
} hermitian_slot;

static hermitian_slot hermitian_slot_of(int64_t n, int64_t lo, int64_t hi) {
  int64_t half = n / 2;
  int even = n % 2 == 0;
  hermitian_slot h = {.always_low = hi > 0 && hi <= half + 1,
                      .always_high = lo > half || (even && lo == half)};
  h.maybe_dc = !h.always_high && lo <= 0;
  h.maybe_nyquist = even && lo <= half && (hi == 0 || hi > half);
  return h;
}

/* signal_pairs: loads element `at` of the Hermitian halves of signals a (into x) and b
 * (into br, bi; only when b exists): from the rows at base and loop_in_stride further, or
 * with stage_rows from the rows staged in shared memory (a's, then b's; in the input's
 * storage, so in its elements, several to a complex slot for 16-bit data; a tiled input's
 * rows interleave as in global memory). */
static void load_pair_values(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                             const zipfft__var *br, const zipfft__var *bi, const zipfft__expr *base,
                             const zipfft__expr *at, zipfft__access access) {
  const zipfft__var *re = x->re->u.var, *im = x->im->u.var;
  const zipfft__var *from = c->s->stage_rows ? c->smem : c->in;
  const zipfft__expr *at_a, *at_b;
  if (c->s->stage_rows) {
    int per_slot = (int)(2 * zipfft__real_size(c->s->precision) / zipfft__element_bytes(c->s, 0));
    at_a = bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, at, i32(c, c->s->in_stride)),
               i32(c, per_slot * zipfft__stage_slot(c->s)));
    if (c->stage_tile_row)
      at_a = bin(c, ZIPFFT__OP_ADD, at_a, zipfft__e_cast(c->a, ZIPFFT__T_I32, c->stage_tile_row));
    at_b = bin(c, ZIPFFT__OP_ADD, at_a, i32(c, per_slot * zipfft__stage_row_slots(c->s)));
    access = ZIPFFT__ACCESS_VECTOR;
  } else {
    const zipfft__expr *base_b = bin(c, ZIPFFT__OP_ADD, base, i64(c, c->s->loop_in_stride));
    at_a = zipfft__global_offset(c, base, at, c->s->in_stride);
    at_b = zipfft__global_offset(c, base_b, at, c->s->in_stride);
  }
  zipfft_storage storage = c->s->in_storage;
  zipfft__s_load_complex(c->a, g, re, im, from, at_a, access, storage);
  zipfft__s_load_complex(c->a, open_if(c, g, zipfft__second_signal_present(c)), br, bi, from, at_b,
                         access, storage);
}

/* signal_pairs: element e of Z = X_a + i X_b, the Hermitian halves of signals a (the row
 * at base) and b (loop_in_stride further; zero when absent) expanded: X[e] for e <= n/2,
 * else conj(X[n - e]), with the imaginary parts of X[0] and X[n/2] taken as zero. */
static void load_signal_pair(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                             const zipfft__expr *base, const zipfft__expr *e,
                             zipfft__access access) {
  const zipfft__var *re = x->re->u.var, *im = x->im->u.var;
  int64_t n = zipfft__logical_length(c->s);
  hermitian_slot h = hermitian_slot_of(n, zipfft__expr_floor(e), zipfft__expr_bound(e));
  const zipfft__expr *mirrored = bin(c, ZIPFFT__OP_SUB, i32(c, n), e), *low = NULL, *at = e;
  if (h.always_high)
    at = let(c, g, "a", mirrored);
  else if (!h.always_low) {
    low = let(c, g, "h", bin(c, ZIPFFT__OP_LE, e, i32(c, n / 2)));
    at = let(c, g, "a", zipfft__e_select(c->a, low, e, mirrored));
  }
  g = zipfft__open_within(c, g, at, c->s->load_extent);
  const zipfft__var *br = zipfft__var_new(c->a, "br", ZIPFFT__T_REAL),
                    *bi = zipfft__var_new(c->a, "bi", ZIPFFT__T_REAL);
  zipfft__s_decl(c->a, g, br, zipfft__e_real(c->a, 0));
  zipfft__s_decl(c->a, g, bi, zipfft__e_real(c->a, 0));
  load_pair_values(c, g, x, br, bi, base, at, access);
  /* the imaginary parts as Z needs them: conjugated above n/2, zero at DC and Nyquist */
  const zipfft__expr *ia = var(c, im), *ib = var(c, bi);
  if (h.always_high || low) {
    const zipfft__expr *na = zipfft__e_neg(c->a, ia), *nb = zipfft__e_neg(c->a, ib);
    ia = low ? zipfft__e_select(c->a, low, ia, na) : na;
    ib = low ? zipfft__e_select(c->a, low, ib, nb) : nb;
  }
  const zipfft__expr *edge = NULL;
  if (h.maybe_dc) edge = bin(c, ZIPFFT__OP_EQ, at, i32(c, 0));
  if (h.maybe_nyquist) {
    const zipfft__expr *nyquist = bin(c, ZIPFFT__OP_EQ, at, i32(c, n / 2));
    edge = edge ? bin(c, ZIPFFT__OP_OR, edge, nyquist) : nyquist;
  }
  if (edge) {
    const zipfft__expr *zero = zipfft__e_real(c->a, 0);
    ia = zipfft__e_select(c->a, edge, zero, ia);
    ib = zipfft__e_select(c->a, edge, zero, ib);
  }
  ia = let(c, g, "ia", ia);
  ib = let(c, g, "ib", ib);
  zipfft__s_assign(c->a, g, re, bin(c, ZIPFFT__OP_SUB, var(c, re), ib));
  zipfft__s_assign(c->a, g, im, bin(c, ZIPFFT__OP_ADD, ia, var(c, br)));
}

/* C2R's element e of the whole spectrum is X[e] for e <= n/2, else conj(X[n - e]): sets *e
 * to the Hermitian half's element to read and returns whether it is the low one (as is). */
static const zipfft__expr *hermitian_element(zipfft__stockham_build *c, zipfft__block *g,
                                             const zipfft__expr **e) {
  int64_t n = zipfft__logical_length(c->s);
  const zipfft__expr *low = let(c, g, "h", bin(c, ZIPFFT__OP_LE, *e, i32(c, n / 2)));
  *e = zipfft__e_select(c->a, low, *e, bin(c, ZIPFFT__OP_SUB, i32(c, n), *e));
  return low;
}

/* The conjugate of the value just read where hermitian_element read it mirrored. */
static void conjugate_unless(zipfft__stockham_build *c, zipfft__block *g, const zipfft__var *im,
                             const zipfft__expr *low) {
  zipfft__s_assign(c->a, g, im,
                   zipfft__e_select(c->a, low, var(c, im), zipfft__e_neg(c->a, var(c, im))));
}

/* Loads element e from the staged row that starts at base (zipfft__stage_io_base): complex
 * slots, R2C's reals (the imaginary part stays zero), C2R's Hermitian half mirrored. */
static void load_staged_element(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                                const zipfft__expr *base, const zipfft__expr *e) {
  const zipfft__var *re = x->re->u.var, *im = x->im->u.var;
  if (c->s->kind == ZIPFFT__KIND_R2C) {
    zipfft__s_load_real(c->a, g, re, c->smem, zipfft__stage_real_at(c, base, e),
                        ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    return;
  }
  const zipfft__expr *low = c->s->kind == ZIPFFT__KIND_C2R ? hermitian_element(c, g, &e) : NULL;
  zipfft__s_load_complex(c->a, g, re, im, c->smem, bin(c, ZIPFFT__OP_ADD, base, e),
                         ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
  if (low) conjugate_unless(c, g, im, low);
}

/* Loads element e of the transform into x: a complex element (C2C), a real one with zero
 * imaginary part (R2C), or for C2R the Hermitian half: X[e] for e <= n/2, else
 * conj(X[n - e]). Elements at or beyond the load extent are not read (x keeps its zeros). */
void zipfft__emit_load_element(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                               const zipfft__expr *base, const zipfft__expr *e,
                               zipfft__access access) {
  const zipfft__var *re = x->re->u.var, *im = x->im->u.var;
  if (c->s->stage_io) { /* base: the staged row's slot; a pair of reals is one slot */
    load_staged_element(c, g, x, base, e);
    return;
  }
  if (c->s->kind == ZIPFFT__KIND_R2C || c->s->kind == ZIPFFT__KIND_R2R) {
    load_real_within(c, g, re, base, e, access);
    return;
  }
  if (c->s->kind == ZIPFFT__KIND_R2C_HALF && !c->s->paired_rows) { /* the pair (x[2e], x[2e+1]) */
    const zipfft__expr *even = bin(c, ZIPFFT__OP_MUL, e, i32(c, 2));
    if (access == ZIPFFT__ACCESS_VECTOR && zipfft__real_pairs_as_vectors(c->s, 0)) {
      zipfft__s_load_complex(c->a, zipfft__open_within(c, g, even, c->s->load_extent), re, im,
                             c->in, zipfft__real_pair_index(c, base, e), access, c->s->in_storage);
      return;
    }
    load_real_within(c, g, re, base, even, access);
    load_real_within(c, g, im, base, bin(c, ZIPFFT__OP_ADD, even, i32(c, 1)), access);
    return;
  }
  if (c->s->signal_pairs) {
    load_signal_pair(c, g, x, base, e, access);
    return;
  }
  const zipfft__expr *low = NULL;
  if (c->s->kind == ZIPFFT__KIND_C2R) {
    low = hermitian_element(c, g, &e);
    if (c->s->load_extent > 0) e = let(c, g, "a", e);
  }
  g = load_complex_within(c, g, x, base, e, access);
  if (low) conjugate_unless(c, g, im, low);
}

/* Stores real element `at` of the row at base, when it lies within the store extent. */
static void store_real_within(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                              const zipfft__expr *at, const zipfft__expr *value,
                              zipfft__access access) {
  zipfft__s_store_real(c->a, zipfft__open_within(c, g, at, c->s->store_extent), c->out,
                       zipfft__global_offset(c, base, at, c->s->out_stride), value, access,
                       c->s->out_storage);
}

/* Stores element e into the staged row that starts at base (zipfft__stage_io_base): complex
 * slots (a pair of reals is one), R2C's Hermitian half only, C2R's real parts. */
static void store_staged_element(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval y,
                                 const zipfft__expr *base, const zipfft__expr *e) {
  if (c->s->kind == ZIPFFT__KIND_C2R) {
    zipfft__s_store_real(c->a, g, c->smem, zipfft__stage_real_at(c, base, e), y.re,
                         ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    return;
  }
  if (c->s->kind == ZIPFFT__KIND_R2C)
    g = open_if(c, g, bin(c, ZIPFFT__OP_LE, e, i32(c, zipfft__logical_length(c->s) / 2)));
  zipfft__s_store_complex(c->a, g, c->smem, bin(c, ZIPFFT__OP_ADD, base, e), y.re, y.im,
                          ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
}

/* Stores element e of the transform: complex (C2C), only e <= n/2 (R2C, the Hermitian
 * half), or the real part (C2R); nothing at or beyond the store extent. */
void zipfft__emit_store_element(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval y,
                                const zipfft__expr *base, const zipfft__expr *e,
                                zipfft__access access) {
  if (c->s->stage_io) {
    store_staged_element(c, g, y, base, e);
    return;
  }
  if (c->s->kind == ZIPFFT__KIND_C2R_HALF && !c->s->paired_rows) { /* the pair (x[2e], x[2e+1]) */
    const zipfft__expr *even = bin(c, ZIPFFT__OP_MUL, e, i32(c, 2));
    if (access == ZIPFFT__ACCESS_VECTOR && zipfft__real_pairs_as_vectors(c->s, 1)) {
      zipfft__s_store_complex(c->a, zipfft__open_within(c, g, even, c->s->store_extent), c->out,
                              zipfft__real_pair_index(c, base, e), y.re, y.im, access,
                              c->s->out_storage);
      return;
    }
    store_real_within(c, g, base, even, y.re, access);
    store_real_within(c, g, base, bin(c, ZIPFFT__OP_ADD, even, i32(c, 1)), y.im, access);
    return;
  }
  if (c->s->kind == ZIPFFT__KIND_C2R || c->s->kind == ZIPFFT__KIND_R2R ||
      c->s->bluestein_store == ZIPFFT__BLUESTEIN_CHIRP_REAL) {
    store_real_within(c, g, base, e, y.re, access);
    return;
  }
  if (c->s->kind == ZIPFFT__KIND_R2C)
    g = open_if(c, g, bin(c, ZIPFFT__OP_LE, e, i32(c, zipfft__logical_length(c->s) / 2)));
  g = zipfft__open_within(c, g, e, c->s->store_extent);
  const zipfft__expr *at = zipfft__global_offset(c, base, e, c->s->out_stride);
  if (c->s->out_tile > 1) /* e's place within its tile of out_tile elements */
    at = bin(c, ZIPFFT__OP_ADD, at,
             zipfft__e_cast(
                 c->a, ZIPFFT__T_I64,
                 bin(c, ZIPFFT__OP_MUL, bin(c, ZIPFFT__OP_BITAND, e, i32(c, c->s->out_tile - 1)),
                     i32(c, c->s->out_tile_shift))));
  zipfft__s_store_complex(c->a, g, c->out, at, y.re, y.im, access, c->s->out_storage);
}

void zipfft__emit_chirp_multiply(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                                 const zipfft__expr *e) {
  zipfft__cval w = zipfft__table_value(c, g, zipfft__table_layout_of(c->s).chirp, e);
  zipfft__cval prod = zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, *x, w));
  zipfft__s_assign(c->a, g, x->re->u.var, prod.re);
  zipfft__s_assign(c->a, g, x->im->u.var, prod.im);
}

/* x times the weight of position p of a C2R half read as it lies (chirp_half HALF_IN, n the
 * user's length): 2, but 1 at p = 0 and p = n/2. */
static void weigh_half_position(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                                const zipfft__expr *p, int64_t n) {
  const zipfft__expr *edge = bin(c, ZIPFFT__OP_EQ, p, zipfft__e_int(c->a, p->type, 0));
  if (n % 2 == 0)
    edge = bin(c, ZIPFFT__OP_OR, edge, bin(c, ZIPFFT__OP_EQ, p, zipfft__e_int(c->a, p->type, n / 2)));
  const zipfft__expr *w =
      let(c, g, "hw", zipfft__e_select(c->a, edge, zipfft__e_real(c->a, 1), zipfft__e_real(c->a, 2)));
  zipfft__s_assign(c->a, g, x->re->u.var, bin(c, ZIPFFT__OP_MUL, var(c, x->re->u.var), w));
  zipfft__s_assign(c->a, g, x->im->u.var, bin(c, ZIPFFT__OP_MUL, var(c, x->im->u.var), w));
}

void zipfft__emit_chirp_load(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                             const zipfft__expr *base, const zipfft__expr *e,
                             zipfft__access access) {
  int64_t n = c->s->bluestein_n, inputs = zipfft__chirp_inputs(n, c->s->chirp_half);
  zipfft__block *inside = open_if(c, g, bin(c, ZIPFFT__OP_LT, e, i32(c, inputs)));
  if (c->s->chirp_half == ZIPFFT__CHIRP_HALF_IN) { /* X[e] of the half as it lies */
    load_complex_within(c, inside, x, base, e, access);
    weigh_half_position(c, inside, x, e, n);
  } else {
    zipfft__emit_load_element(c, inside, x, base, e, access);
  }
  zipfft__emit_chirp_multiply(c, inside, x, e);
}

const zipfft__expr *zipfft__bluestein_base(zipfft__stockham_build *c, zipfft__block *b,
                                           const zipfft__thread_coords *k) {
  return zipfft__batch_offset_with(c, b, k, c->s->position_steps, "pb");
}

/* The padded row's position (I64) of element e of a transform whose first element lies at
 * base (zipfft__bluestein_base). */
static const zipfft__expr *bluestein_position(zipfft__stockham_build *c, const zipfft__expr *base,
                                              const zipfft__expr *e) {
  return bin(c, ZIPFFT__OP_ADD, base,
             bin(c, ZIPFFT__OP_MUL, zipfft__e_cast(c->a, ZIPFFT__T_I64, e),
                 i64(c, c->s->position_step)));
}

zipfft__block *zipfft__open_stored_position(zipfft__stockham_build *c, zipfft__block *g,
                                            const zipfft__expr *e) {
  if (c->s->bluestein_store == ZIPFFT__BLUESTEIN_NONE) return g;
  const zipfft__expr *p = bluestein_position(c, c->store_position, e);
  int64_t outputs = zipfft__chirp_outputs(c->s->chirp_n, c->s->chirp_half);
  return open_if(c, g, bin(c, ZIPFFT__OP_LT, p, i64(c, outputs)));
}

/* v becomes conj(v times the filter's entry at), Bluestein's or Rader's multiply between
 * the FFTs (the second FFT then runs the inverse). */
static void multiply_by_conj_filter(zipfft__stockham_build *c, zipfft__block *g,
                                    const zipfft__cval *v, const zipfft__expr *at) {
  zipfft__cval f = zipfft__table_value(c, g, zipfft__table_layout_of(c->s).filter, at);
  zipfft__cval z = zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, *v, f));
  zipfft__s_assign(c->a, g, v->re->u.var, z.re);
  zipfft__s_assign(c->a, g, v->im->u.var, zipfft__e_neg(c->a, z.im));
}

/* A fused Bluestein kernel's load of element e (position base + e * position_step): x[p]
 * times the chirp for p below the convolution's inputs (CHIRP: complex, CHIRP_REAL: real,
 * CHIRP_HALF: the C2R half as it lies, weighted; zeros beyond, never read), or conj(v[p]
 * times the filter) (FILTER). */
static void emit_bluestein_load(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                                const zipfft__expr *base, const zipfft__expr *position_base,
                                const zipfft__expr *e, zipfft__access access) {
  const zipfft__expr *p = let(c, g, "pq", bluestein_position(c, position_base, e));
  zipfft__bluestein_step step = c->s->bluestein_load;
  if (step != ZIPFFT__BLUESTEIN_FILTER) {
    int64_t inputs = zipfft__chirp_inputs(c->s->chirp_n, c->s->chirp_half);
    zipfft__block *inside = open_if(c, g, bin(c, ZIPFFT__OP_LT, p, i64(c, inputs)));
    if (step == ZIPFFT__BLUESTEIN_CHIRP_REAL)
      zipfft__s_load_real(c->a, inside, x->re->u.var, c->in,
                          zipfft__global_offset(c, base, e, c->s->in_stride), access,
                          c->s->in_storage);
    else
      zipfft__emit_load_element(c, inside, x, base, e, access);
    if (step == ZIPFFT__BLUESTEIN_CHIRP_HALF) weigh_half_position(c, inside, x, p, c->s->chirp_n);
    zipfft__emit_chirp_multiply(c, inside, x, p);
    return;
  }
  zipfft__emit_load_element(c, g, x, base, e, access);
  multiply_by_conj_filter(c, g, x, p);
}

/* Loads the first pass's values from global memory: vector accesses when the pointers are
 * aligned (a kernel argument), byte accesses otherwise; inactive threads keep zeros. */
static void emit_global_loads(zipfft__stockham_build *c, zipfft__block *blk,
                              const zipfft__thread_coords *k, const pass_shape *ps,
                              const zipfft__expr **j, zipfft__cval *x) {
  if (c->s->cluster_mirror) { /* crosses two cluster barriers */
    zipfft__emit_cluster_merge_loads(c, blk, k, ps, j, x);
    return;
  }
  int staged = c->s->stage_io; /* from the stage: one branch */
  const zipfft__expr *base =
      staged ? zipfft__stage_io_base(c, blk, k, 0) : zipfft__batch_offset(c, blk, k, 0);
  const zipfft__expr *position_base =
      c->s->bluestein_load ? zipfft__bluestein_base(c, blk, k) : NULL;
  zipfft__block *targets[2];
  if (staged)
    targets[0] = open_if(c, blk, k->active);
  else
    open_alignment_branches(c, open_if(c, blk, k->active), targets);
  for (int v = 0; v < (staged ? 1 : 2); v++) {
    if (ps->mirrored) { /* C2R_HALF: every butterfly's values merged from their pairs' loads */
      zipfft__emit_mirrored_merge_loads(c, targets[v], k, ps, j, x, base, access_of_branch[v]);
      continue;
    }
    for (int b = 0; b < ps->butterflies; b++) {
      zipfft__block *g = open_if(c, targets[v], zipfft__butterfly_guard(c, ps, b, j[b]));
      if ((c->s->cluster > 1 && c->s->kind == ZIPFFT__KIND_C2R_HALF) || c->s->merge_on_load) {
        zipfft__emit_merge_loads(c, g, ps, j[b], &x[b * ps->radix], base, access_of_branch[v]);
        continue;
      }
      for (int r = 0; r < ps->radix; r++) {
        if (padding_slot(c, ps, r)) continue; /* a constant zero */
        const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps->m));
        if (c->s->cluster > 1) /* block b takes elements b + cluster * e */
          e = zipfft__cluster_element(c, e);
        const zipfft__cval *xv = &x[b * ps->radix + r];
        if (position_base)
          emit_bluestein_load(c, g, xv, base, position_base, e, access_of_branch[v]);
        else if (c->s->bluestein_n == 0)
          zipfft__emit_load_element(c, g, xv, base, e, access_of_branch[v]);
        else
          zipfft__emit_chirp_load(c, g, xv, base, e, access_of_branch[v]);
      }
    }
  }
}

/* Padding elements before element e (e >= 0): a shift when the period is a power of two,
 * because a signed division needs a sign fix-up the compiler cannot drop. */
static const zipfft__expr *padding(zipfft__stockham_build *c, const zipfft__expr *e) {
  int64_t period = zipfft__shared_pad_period(c->s);
  if (period == 0) return i32(c, 0);
  int shift = 0;
  while (((int64_t)1 << shift) < period) shift++;
  if (((int64_t)1 << shift) == period) return bin(c, ZIPFFT__OP_SHR, e, i32(c, shift));
  return bin(c, ZIPFFT__OP_DIV, e, i32(c, period));
}

/* Shared-memory index (complex elements) of element e of this thread's transform: padded
 * rows of shared_stride, or interleaved, e * F + f (kernel_spec shared_interleaved). */
const zipfft__expr *zipfft__shared_index(zipfft__stockham_build *c, const zipfft__thread_coords *k,
                                         const zipfft__expr *e) {
  if (c->s->shared_interleaved)
    return bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, e, i32(c, c->s->ffts_per_block)), k->f);
  const zipfft__expr *padded = bin(c, ZIPFFT__OP_ADD, e, padding(c, e));
  const zipfft__expr *row = bin(c, ZIPFFT__OP_MUL, k->f, i32(c, c->shared_stride));
  int64_t offset = zipfft__shared_row_offset(c->s); /* rows F/2.. of a merge kernel */
  if (offset > 0) {
    const zipfft__expr *half = quotient(c, ZIPFFT__OP_DIV, k->f, c->s->ffts_per_block / 2);
    row = bin(c, ZIPFFT__OP_ADD, row, bin(c, ZIPFFT__OP_MUL, half, i32(c, offset)));
  }
  return bin(c, ZIPFFT__OP_ADD, row, padded);
}

/* Shared-memory indices of elements base + q*step, q < radix, into idx[]. When step is a
 * multiple of the padding period, or base is one (base_aligned) and every offset stays
 * below it, the padding of base + q*step is that of base plus a constant, so the index is
 * computed once and offset: fewer integer instructions. Measured on an H200, this helps fp32
 * (4096: 84% -> 91% of copy bandwidth) but costs fp64 (2048: 96% -> 76%, with fewer
 * registers: the compiler schedules the 16-byte accesses worse), so it is used for fp32
 * only. The aligned case is the first pass's stores (base j * radix): NVRTC addresses shared
 * memory with 64-bit pointers (nvcc with 32-bit ones), so an index per store took a 64-bit
 * address each and spilled the 2DTM fused kernel's 64 registers (40 bytes) and Bluestein
 * 10007's (436 -> 308 bytes). Measured on an H100 against separate indices in one call:
 * 2DTM batch 16 9142 -> 9735 corr/s (f16 spectrum 9410 -> 10113), fp32 10007 16.7% ->
 * 19.3% of copy bandwidth, 1920, 2880 and 6144 unchanged. */
static void shared_indices(zipfft__stockham_build *c, zipfft__block *blk,
                           const zipfft__thread_coords *k, const zipfft__expr *base, int64_t step,
                           int radix, int base_aligned, const zipfft__expr **idx) {
  int interleaved = c->s->shared_interleaved; /* offsets scale by F, no padding */
  int64_t period = interleaved ? 0 : zipfft__shared_pad_period(c->s);
  int64_t scale = interleaved ? c->s->ffts_per_block : 1;
  int within = base_aligned && (radix - 1) * step < period;
  int separable = c->s->precision == ZIPFFT_F32 && (period == 0 || step % period == 0 || within);
  const zipfft__expr *first = separable ? let(c, blk, "s", zipfft__shared_index(c, k, base)) : NULL;
  for (int q = 0; q < radix; q++) {
    int64_t offset = q * step;
    idx[q] = separable ? bin(c, ZIPFFT__OP_ADD, first,
                             i32(c, offset * scale + (period ? offset / period : 0)))
                       : zipfft__shared_index(c, k, bin(c, ZIPFFT__OP_ADD, base, i32(c, offset)));
  }
}

/* Fused correlation, as the second FFT loads a value: x = Z * K or conj(Z) * K, K the kept
 * spectrum's value f. */
static void multiply_by_spectrum(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval f,
                                 const zipfft__cval *x) {
  zipfft__cval z = *x;
  if (c->s->fused == ZIPFFT__FUSED_CONVOLVE) z.im = zipfft__e_neg(c->a, z.im);
  zipfft__cval w = zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, z, f));
  zipfft__s_assign(c->a, g, x->re->u.var, w.re);
  zipfft__s_assign(c->a, g, x->im->u.var, w.im);
}

/* The kept spectrum's values of elements e and e + m (aux_pairs: side by side, at the
 * tile of e = j + r*m, r even: (r/2 * m + j) * 2 * aux_stride), in one access. */
static void spectrum_pair(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *column,
                          const zipfft__expr *j, int r, int64_t m, zipfft__cval *f) {
  const zipfft__var *v[4];
  for (int i = 0; i < 4; i++) {
    v[i] = zipfft__var_new(c->a, i % 2 ? "vi" : "vr", ZIPFFT__T_REAL);
    zipfft__s_decl(c->a, g, v[i], NULL);
  }
  const zipfft__expr *tile = bin(c, ZIPFFT__OP_ADD, j, i32(c, r / 2 * m));
  zipfft__s_load_complex_pair(c->a, g, v[0], v[1], v[2], v[3], c->aux,
                              zipfft__global_offset(c, column, tile, 2 * c->s->aux_stride),
                              c->s->aux_storage);
  f[0] = (zipfft__cval){var(c, v[0]), var(c, v[1])};
  f[1] = (zipfft__cval){var(c, v[2]), var(c, v[3])};
}

/* The first pass of a fused Bluestein kernel's second FFT: every value x[j + r*m] it holds
 * becomes conj(x * F), F the filter's table entry at the slot of row j + r*m (the position
 * map's; the table holds there the entry of the element the value is, in its row's order:
 * zipfft__put_filter_spectrum). */
static void multiply_values_by_filter(zipfft__stockham_build *c, zipfft__block *blk,
                                      const zipfft__thread_coords *k, const pass_shape *ps,
                                      const zipfft__expr **j, zipfft__cval *x) {
  const zipfft__expr *base = zipfft__bluestein_base(c, blk, k);
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__block *g = open_if(c, blk, zipfft__butterfly_guard(c, ps, b, j[b]));
    for (int r = 0; r < ps->radix; r++) {
      const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps->m));
      multiply_by_conj_filter(c, g, &x[b * ps->radix + r],
                              let(c, g, "pq", bluestein_position(c, base, e)));
    }
  }
  c->multiply_on_load = 0;
}

/* The first pass of a fused correlation's second FFT: every value x[j + r*m] it holds,
 * multiplied by the kept spectrum (row j + r*m of the transform's column; in a
 * passes_in_place kernel that row holds the element the value is, see
 * zipfft__in_place_entry), with aux_pairs two rows r, r + 1 at a time. */
static void multiply_values_by_spectrum(zipfft__stockham_build *c, zipfft__block *blk,
                                        const zipfft__thread_coords *k, const pass_shape *ps,
                                        const zipfft__expr **j, zipfft__cval *x) {
  if (c->s->fused == ZIPFFT__FUSED_BLUESTEIN) {
    multiply_values_by_filter(c, blk, k, ps, j, x);
    return;
  }
  const zipfft__expr *column = zipfft__batch_offset_with(c, blk, k, c->s->batch_aux_strides, "kb");
  int step = c->s->aux_pairs ? 2 : 1;
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__block *g = open_if(c, blk, zipfft__butterfly_guard(c, ps, b, j[b]));
    for (int r = 0; r < ps->radix; r += step) {
      zipfft__cval f[2];
      if (step == 2)
        spectrum_pair(c, g, column, j[b], r, ps->m, f);
      else
        f[0] = zipfft__load_value(
            c, g, c->aux,
            zipfft__global_offset(c, column, bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps->m)),
                                  c->s->aux_stride),
            ZIPFFT__ACCESS_VECTOR, c->s->aux_storage);
      for (int i = 0; i < step; i++) multiply_by_spectrum(c, g, f[i], &x[b * ps->radix + r + i]);
    }
  }
  c->multiply_on_load = 0;
}

/* Shared-memory indices of the slots where Stockham pass ps puts butterfly j's outputs:
 * (j / ns) * ns * radix + j % ns + r * ns. */
static void stockham_output_slots(zipfft__stockham_build *c, zipfft__block *g,
                                  const zipfft__thread_coords *k, const pass_shape *ps,
                                  const zipfft__expr *j, const zipfft__expr **idx) {
  const zipfft__expr *high =
      bin(c, ZIPFFT__OP_MUL, bin(c, ZIPFFT__OP_DIV, j, i32(c, ps->ns)), i32(c, ps->ns * ps->radix));
  const zipfft__expr *dst =
      let(c, g, "d", bin(c, ZIPFFT__OP_ADD, high, bin(c, ZIPFFT__OP_MOD, j, i32(c, ps->ns))));
  /* the first pass stores at j * radix, a multiple of the padding period (its radix) */
  shared_indices(c, g, k, dst, ps->ns, ps->radix, ps->ns == 1, idx);
}

/* Loads a middle or last pass's values x[j + r*m] from shared memory, or in_place those of
 * butterfly j from the slots where Stockham pass ps writes its outputs (a pass in place
 * writes them back there). */
static void emit_shared_loads(zipfft__stockham_build *c, zipfft__block *blk,
                              const zipfft__thread_coords *k, const pass_shape *ps,
                              const zipfft__expr **j, zipfft__cval *x, int in_place) {
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__block *g = open_if(c, blk, zipfft__butterfly_guard(c, ps, b, j[b]));
    const zipfft__expr *idx[ZIPFFT__MAX_RADIX];
    if (in_place)
      stockham_output_slots(c, g, k, ps, j[b], idx);
    else
      shared_indices(c, g, k, j[b], ps->m, ps->radix, 0, idx);
    for (int r = 0; r < ps->radix; r++) {
      const zipfft__cval *xv = &x[b * ps->radix + r];
      zipfft__s_load_complex(c->a, g, xv->re->u.var, xv->im->u.var, c->smem, idx[r],
                             ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    }
  }
}

/* The values the previous FFT's last pass kept (c->handoff) as this pass's x: that pass
 * wrote y[j + r*m] for the same j, which is what this pass would load. */
static void take_handoff(zipfft__stockham_build *c, zipfft__block *blk, const pass_shape *ps,
                         zipfft__cval *x) {
  for (int i = 0; i < ps->butterflies * ps->radix; i++) {
    zipfft__s_assign(c->a, blk, x[i].re->u.var, c->handoff[i].re);
    zipfft__s_assign(c->a, blk, x[i].im->u.var, c->handoff[i].im);
  }
  c->handoff = NULL;
}

/* Position in the twiddle table of w_q for butterfly position 0 of pass p (stride ns). */
static int64_t table_twiddle_at(const zipfft__kernel_spec *s, int p, int q, int64_t ns) {
  return zipfft__stockham_twiddle_offset(s, p) + (q - 1) * ns;
}

/* Where pass p reads w_q for butterfly position k = j mod ns: the staged copy in shared
 * memory (shared_twiddles), else the table in global memory; *array gets which. */
static const zipfft__expr *twiddle_index(zipfft__stockham_build *c, const pass_shape *ps, int p,
                                         int q, const zipfft__expr *k, const zipfft__var **array) {
  if (c->s->shared_twiddles && !c->twiddles_from_table) {
    *array = c->smem;
    int64_t at = zipfft__shared_twiddle_base(c->s) + zipfft__shared_twiddle_slot(c->s, p, q);
    return bin(c, ZIPFFT__OP_ADD, k, i32(c, at));
  }
  *array = c->tw;
  int64_t at = table_twiddle_at(c->s, p, q, ps->ns);
  return zipfft__e_cast(c->a, ZIPFFT__T_I64, bin(c, ZIPFFT__OP_ADD, k, i32(c, at)));
}

/* Multiplies x[1..r-1] of butterfly j by w_q = exp(sign 2 pi i (j % ns) q / (ns r)). Only
 * w_q for q a power of two is read from the pass's slice of the Stockham table
 * (consecutive threads read consecutive entries); the others are products w_high *
 * w_(q-high), at most log2(r) - 1 roundings away from the table. Measured on an H200:
 * reading all r-1 twiddles made the L1 the bottleneck (fp32 4096: 90% -> 98% of copy
 * bandwidth with 4 reads instead of 15); the error grows by about 10% (4096: 1.30e-7 ->
 * 1.46e-7 relative L2). */
static void emit_twiddles(zipfft__stockham_build *c, zipfft__block *blk, const pass_shape *ps,
                          int p, const zipfft__expr *j, zipfft__cval *x) {
  const zipfft__expr *k = let(c, blk, "w", bin(c, ZIPFFT__OP_MOD, j, i32(c, ps->ns)));
  zipfft__cval w[ZIPFFT__MAX_RADIX];
  for (int r = 1; r < ps->radix; r++) {
    int high = 1;
    while (high * 2 <= r) high *= 2;
    if (!zipfft__twiddle_read(r)) {
      w[r] = zipfft__cval_materialize(c->a, blk, zipfft__cval_mul(c->a, w[high], w[r - high]));
    } else {
      const zipfft__var *re = zipfft__var_new(c->a, "wr", ZIPFFT__T_REAL);
      const zipfft__var *im = zipfft__var_new(c->a, "wi", ZIPFFT__T_REAL);
      zipfft__s_decl(c->a, blk, re, NULL);
      zipfft__s_decl(c->a, blk, im, NULL);
      const zipfft__var *array;
      const zipfft__expr *at = twiddle_index(c, ps, p, r, k, &array);
      zipfft__s_load_complex(c->a, blk, re, im, array, at, ZIPFFT__ACCESS_VECTOR,
                             ZIPFFT_STORAGE_DEFAULT);
      w[r] = (zipfft__cval){var(c, re), var(c, im)};
    }
    x[r] = zipfft__cval_materialize(c->a, blk, zipfft__cval_mul(c->a, x[r], w[r]));
  }
}

/* Copies `count` consecutive table entries from table position `from` to the staged slots
 * from `slot` on, spread over all the block's threads. */
static void emit_twiddle_copy(zipfft__stockham_build *c, zipfft__block *body, int64_t from,
                              int64_t slot, int64_t count) {
  int64_t threads = zipfft__c2c_block_threads(c->s);
  for (int64_t first = 0; first < count; first += threads) {
    const zipfft__expr *i = bin(c, ZIPFFT__OP_ADD, zipfft__e_thread(c->a), i32(c, first));
    zipfft__block *g =
        first + threads <= count ? body : open_if(c, body, bin(c, ZIPFFT__OP_LT, i, i32(c, count)));
    const zipfft__expr *at =
        bin(c, ZIPFFT__OP_ADD, zipfft__e_cast(c->a, ZIPFFT__T_I64, i), i64(c, from));
    zipfft__cval w =
        zipfft__load_value(c, g, c->tw, at, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    zipfft__s_store_complex(c->a, g, c->smem, bin(c, ZIPFFT__OP_ADD, i, i32(c, slot)), w.re, w.im,
                            ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
  }
}

/* A shared_twiddles kernel's copy: every thread of the block copies its share of the
 * twiddles the passes read (zipfft__twiddle_read) from the table into shared memory, one
 * copy per run of consecutive exponents (they lie next to each other in both). The passes
 * read it after a barrier: the first pass's (stage_in_first_pass), or one of its own. */
static void emit_twiddle_copies(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "twiddles staged in shared memory");
  int64_t base = zipfft__shared_twiddle_base(c->s);
  for (int p = 1; p < c->s->pass_count; p++) {
    int64_t ns = zipfft__pass_shape_of(c->s, p).ns;
    int radix = c->s->radices[p];
    for (int q = 1; q < radix; q++) {
      if (!zipfft__twiddle_read(q)) continue;
      int last = q;
      while (last + 1 < radix && zipfft__twiddle_read(last + 1)) last++;
      emit_twiddle_copy(c, body, table_twiddle_at(c->s, p, q, ns),
                        base + zipfft__shared_twiddle_slot(c->s, p, q), (last - q + 1) * ns);
      q = last;
    }
  }
}

static void emit_prefetch_ahead(zipfft__stockham_build *c, zipfft__block *body);

/* What waits for the first pass's loads from global memory, once: a shared_twiddles
 * kernel's copy (stage_in_first_pass) and a prefetch_after_loads kernel's block-ahead
 * prefetch (prefetch_in_first_pass). */
static void emit_after_first_loads(zipfft__stockham_build *c, zipfft__block *body) {
  if (c->stage_in_first_pass) emit_twiddle_copies(c, body);
  if (c->prefetch_in_first_pass) emit_prefetch_ahead(c, body);
  c->stage_in_first_pass = c->prefetch_in_first_pass = 0;
}

/* Twiddles (after the first pass) and the radix butterflies of every butterfly of the thread. */
static void emit_compute(zipfft__stockham_build *c, zipfft__block *blk, const pass_shape *ps, int p,
                         const zipfft__expr **j, zipfft__cval *x, zipfft__cval *y) {
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__cval *xb = &x[b * ps->radix];
    if (p > 0) emit_twiddles(c, blk, ps, p, j[b], xb);
    zipfft__emit_dft(c->a, blk, c->s->sign, ps->radix, xb, &y[b * ps->radix]);
  }
}

/* Stores a middle pass's outputs to shared memory in Stockham order. */
static void emit_shared_stores(zipfft__stockham_build *c, zipfft__block *blk,
                               const zipfft__thread_coords *k, const pass_shape *ps,
                               const zipfft__expr **j, const zipfft__cval *y) {
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__block *g = open_if(c, blk, zipfft__butterfly_guard(c, ps, b, j[b]));
    const zipfft__expr *idx[ZIPFFT__MAX_RADIX];
    stockham_output_slots(c, g, k, ps, j[b], idx);
    for (int r = 0; r < ps->radix; r++) {
      const zipfft__cval *yv = &y[b * ps->radix + r];
      zipfft__s_store_complex(c->a, g, c->smem, idx[r], yv->re, yv->im, ZIPFFT__ACCESS_VECTOR,
                              ZIPFFT_STORAGE_DEFAULT);
    }
  }
}

zipfft__cval zipfft__load_value(zipfft__stockham_build *c, zipfft__block *blk,
                                const zipfft__var *ptr, const zipfft__expr *at,
                                zipfft__access access, zipfft_storage storage) {
  const zipfft__var *re = zipfft__var_new(c->a, "vr", ZIPFFT__T_REAL);
  const zipfft__var *im = zipfft__var_new(c->a, "vi", ZIPFFT__T_REAL);
  zipfft__s_decl(c->a, blk, re, NULL);
  zipfft__s_decl(c->a, blk, im, NULL);
  zipfft__s_load_complex(c->a, blk, re, im, ptr, at, access, storage);
  return (zipfft__cval){var(c, re), var(c, im)};
}

zipfft__cval zipfft__table_value(zipfft__stockham_build *c, zipfft__block *blk, int64_t offset,
                                 const zipfft__expr *e) {
  const zipfft__expr *at =
      bin(c, ZIPFFT__OP_ADD, zipfft__e_cast(c->a, ZIPFFT__T_I64, e), i64(c, offset));
  return zipfft__load_value(c, blk, c->tw, at, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
}

const zipfft__expr *zipfft__large_twiddle_column(zipfft__stockham_build *c, zipfft__block *blk,
                                                 const zipfft__thread_coords *k) {
  if (c->s->twiddle_length == 0) return NULL;
  int inner = c->s->batch_dims - 1;
  return let(c, blk, "m", bin(c, ZIPFFT__OP_MOD, k->g, i64(c, c->s->batch_counts[inner])));
}

zipfft__cval zipfft__apply_large_twiddle(zipfft__stockham_build *c, zipfft__block *blk,
                                         const zipfft__expr *column, const zipfft__expr *e,
                                         zipfft__cval y) {
  return zipfft__cval_mul(c->a, y, zipfft__large_twiddle(c, blk, column, e));
}

zipfft__cval zipfft__two_level_value(zipfft__stockham_build *c, zipfft__block *blk, int64_t low_at,
                                     int64_t high_at, int shift, const zipfft__expr *x) {
  const zipfft__expr *low = bin(c, ZIPFFT__OP_BITAND, x, i64(c, ((int64_t)1 << shift) - 1));
  const zipfft__expr *high = bin(c, ZIPFFT__OP_SHR, x, i64(c, shift));
  return zipfft__cval_mul(c->a, zipfft__table_value(c, blk, low_at, low),
                          zipfft__table_value(c, blk, high_at, high));
}

/* exp(sign 2 pi i m e / L) from the two-level table: low[x % 2^s] * high[x >> s]. */
zipfft__cval zipfft__large_twiddle(zipfft__stockham_build *c, zipfft__block *blk,
                                   const zipfft__expr *column, const zipfft__expr *e) {
  zipfft__table_layout l = zipfft__table_layout_of(c->s);
  const zipfft__expr *x =
      let(c, blk, "x", bin(c, ZIPFFT__OP_MUL, column, zipfft__e_cast(c->a, ZIPFFT__T_I64, e)));
  return zipfft__cval_materialize(
      c->a, blk, zipfft__two_level_value(c, blk, l.large_low, l.large_high, l.large_shift, x));
}

/* The value stored for output element e: Bluestein's conjugate times the chirp, the
 * four-step twiddle (given: twiddle not NULL; read from the table: column not NULL), the
 * scale. */
static zipfft__cval finish_output(zipfft__stockham_build *c, zipfft__block *blk,
                                  const zipfft__expr *column, const zipfft__cval *twiddle,
                                  const zipfft__expr *e, zipfft__cval y) {
  /* Bluestein's conj(y) times the chirp at element e, or at its position in the padded row */
  const zipfft__expr *chirp_at = c->s->bluestein_store ? bluestein_position(c, c->store_position, e)
                                 : c->s->bluestein_n > 0 ? e
                                                         : NULL;
  if (chirp_at) {
    zipfft__cval w = zipfft__table_value(c, blk, zipfft__table_layout_of(c->s).chirp, chirp_at);
    y = zipfft__cval_mul(c->a, (zipfft__cval){y.re, zipfft__e_neg(c->a, y.im)}, w);
  }
  if (zipfft__fused_with_spectrum(c->s)) y = (zipfft__cval){y.re, zipfft__e_neg(c->a, y.im)};
  if (twiddle)
    y = zipfft__cval_mul(c->a, zipfft__cval_materialize(c->a, blk, y), *twiddle);
  else if (column)
    y = zipfft__apply_large_twiddle(c, blk, column, e, zipfft__cval_materialize(c->a, blk, y));
  if (c->s->scale == 1.0) return y;
  const zipfft__expr *scale = zipfft__e_real(c->a, c->s->scale);
  return (zipfft__cval){bin(c, ZIPFFT__OP_MUL, y.re, scale), bin(c, ZIPFFT__OP_MUL, y.im, scale)};
}

zipfft__cval zipfft__finish_output(zipfft__stockham_build *c, zipfft__block *blk,
                                   const zipfft__expr *column, const zipfft__expr *e,
                                   zipfft__cval y) {
  return finish_output(c, blk, column, NULL, e, y);
}

zipfft__cval zipfft__finish_output_twiddled(zipfft__stockham_build *c, zipfft__block *blk,
                                            const zipfft__cval *twiddle, const zipfft__expr *e,
                                            zipfft__cval y) {
  return finish_output(c, blk, NULL, twiddle, e, y);
}

/* The four-step twiddles W^(column e) of one butterfly's outputs e = j + r m, r < count:
 * at the anchors r = 0, P, 2P, ... (P = twiddle_chain) and count - 1 from the two-level
 * table, between anchors from the nearer one, times step = W^(column m) going up or its
 * conjugate going down, so each is at most P/2 roundings from the table. Reading two table
 * entries per output scatters over the low table's lines (neighbouring threads hold
 * neighbouring columns); the chain trades those reads for one complex product each. */
typedef struct twiddle_chain {
  const zipfft__expr *column, *j;
  int64_t m;
  int count;
  zipfft__cval step, w[ZIPFFT__MAX_RADIX];
  int have_step, have[ZIPFFT__MAX_RADIX];
} twiddle_chain;

static zipfft__cval chained_twiddle(zipfft__stockham_build *c, zipfft__block *g, twiddle_chain *t,
                                    int r) {
  if (t->have[r]) return t->w[r];
  int period = c->s->twiddle_chain, previous = r - r % period;
  int next = previous + period < t->count - 1 ? previous + period : t->count - 1;
  int down = next - r < r - previous;
  if (r == previous || r == t->count - 1) {
    t->w[r] = zipfft__large_twiddle(c, g, t->column,
                                    bin(c, ZIPFFT__OP_ADD, t->j, i32(c, (int64_t)r * t->m)));
  } else {
    zipfft__cval from = chained_twiddle(c, g, t, down ? r + 1 : r - 1);
    if (!t->have_step)
      t->step = zipfft__large_twiddle(c, g, t->column, i32(c, t->m)), t->have_step = 1;
    zipfft__cval step = t->step;
    if (down) step.im = zipfft__e_neg(c->a, step.im);
    t->w[r] = zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, from, step));
  }
  t->have[r] = 1;
  return t->w[r];
}

int64_t zipfft__store_bound(const zipfft__kernel_spec *s) {
  int64_t extent = s->store_extent;
  int64_t outputs = zipfft__chirp_outputs(s->bluestein_n, s->chirp_half);
  if (s->bluestein_n > 0 && (extent == 0 || extent > outputs)) extent = outputs;
  if (extent == 0) return s->n;
  if (s->kind == ZIPFFT__KIND_C2R_HALF) extent = (extent + 1) / 2;
  return extent < s->n ? extent : s->n;
}

/* Stores the last pass's outputs (element j + r*m) to global memory, scaled. */
static void emit_global_stores(zipfft__stockham_build *c, zipfft__block *blk,
                               const zipfft__thread_coords *k, const pass_shape *ps,
                               const zipfft__expr **j, const zipfft__cval *y) {
  int one_branch = c->stats || c->s->stage_io || c->s->out_packed; /* no global accesses */
  const zipfft__expr *base = c->stats || c->s->out_packed ? NULL
                             : c->s->stage_io             ? zipfft__stage_io_base(c, blk, k, 1)
                                                          : zipfft__batch_offset(c, blk, k, 1);
  const zipfft__expr *column = zipfft__large_twiddle_column(c, blk, k);
  if (c->s->bluestein_store) c->store_position = zipfft__bluestein_base(c, blk, k);
  zipfft__block *targets[2];
  if (one_branch)
    targets[0] = open_if(c, blk, k->active);
  else
    open_alignment_branches(c, open_if(c, blk, k->active), targets);
  for (int v = 0; v < (one_branch ? 1 : 2); v++) {
    for (int b = 0; b < ps->butterflies; b++) {
      zipfft__block *gb = open_if(c, targets[v], zipfft__butterfly_guard(c, ps, b, j[b]));
      twiddle_chain chain = {.column = column, .j = j[b], .m = ps->m};
      while (chain.count < ps->radix && chain.count * ps->m < zipfft__store_bound(c->s))
        chain.count++; /* the rest is cropped */
      for (int r = 0; r < chain.count; r++) {
        const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps->m));
        zipfft__block *g = c->s->bluestein_n > 0 /* Bluestein stores its outputs only */
                               ? zipfft__open_within(c, gb, e, zipfft__store_bound(c->s))
                               : zipfft__open_stored_position(c, gb, e);
        zipfft__cval w, *chained = NULL;
        if (column && c->s->twiddle_chain > 1) w = chained_twiddle(c, g, &chain, r), chained = &w;
        zipfft__cval out = finish_output(c, g, column, chained, e, y[b * ps->radix + r]);
        if (c->stats)
          zipfft__emit_stats_update(c, g, b * ps->radix + r, e, out);
        else if (c->s->out_packed) /* packed from shared memory after the pass */
          zipfft__s_store_complex(c->a, g, c->smem, zipfft__shared_index(c, k, e), out.re, out.im,
                                  ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
        else
          zipfft__emit_store_element(c, g, out, base, e, access_of_branch[v]);
      }
    }
  }
}

/* Phase after the loads: butterflies, then the stores of pass p (none when the outputs
 * are kept in registers for the next FFT). */
static void emit_compute_and_store(zipfft__stockham_build *c, zipfft__block *body,
                                   const zipfft__thread_coords *k, const pass_shape *ps, int p,
                                   const zipfft__expr **j, zipfft__cval *x, int to_global) {
  zipfft__cval y[ZIPFFT__MAX_VALUES];
  emit_compute(c, body, ps, p, j, x, y);
  if (c->keep_outputs && p == c->s->pass_count - 1) {
    c->handoff = zipfft__arena_alloc(c->a, sizeof y);
    for (int i = 0; c->handoff && i < ps->butterflies * ps->radix; i++)
      c->handoff[i] = zipfft__cval_materialize(c->a, body, y[i]);
    c->keep_outputs = 0;
  } else if (to_global && ps->mirrored) {
    zipfft__emit_mirrored_split(c, body, k, ps, j, y);
  } else if (to_global) {
    emit_global_stores(c, body, k, ps, j, y);
  } else {
    emit_shared_stores(c, body, k, ps, j, y);
  }
}

/* Emits pass p as top-level phases. The first pass loads from global memory unless
 * from_shared (or takes the registers the previous FFT kept); later passes load from
 * shared memory, and (unless the last pass stores to global memory) wait at a barrier
 * before overwriting it. A pass whose outputs are kept needs no barrier after it. */
static void emit_pass(zipfft__stockham_build *c, zipfft__block *body, int p, int from_shared,
                      int to_global) {
  pass_shape ps = zipfft__pass_shape_of(c->s, p);
  int takes = p == 0 && c->handoff != NULL;
  int loads_global = !from_shared && p == 0 && !takes;
  int keeps = p == c->s->pass_count - 1 && c->keep_outputs;
  from_shared = p > 0 || from_shared;
  to_global = p == c->s->pass_count - 1 && to_global;
  const zipfft__expr *j[ZIPFFT__MAX_VALUES];
  zipfft__cval x[ZIPFFT__MAX_VALUES];
  zipfft__s_comment(
      c->a, body,
      zipfft__arena_printf(c->a, "pass %d: radix %d, stride %lld", p, ps.radix, (long long)ps.ns));
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  zipfft__emit_butterfly_indices(c, body, &k, &ps, j);
  int mirrors = loads_global && c->s->cluster_mirror; /* loads past cluster barriers */
  int across_barrier = from_shared && (!to_global || c->s->out_packed) && !takes;
  declare_values(c, body, &ps, across_barrier || mirrors, !from_shared && !takes, x);
  if (takes) {
    take_handoff(c, body, &ps, x);
    if (c->multiply_on_load) multiply_values_by_spectrum(c, body, &k, &ps, j, x);
  } else if (!from_shared) {
    emit_global_loads(c, body, &k, &ps, j, x);
    if (mirrors) {
      k = zipfft__emit_coords(c, body);
      zipfft__emit_butterfly_indices(c, body, &k, &ps, j);
    }
    emit_after_first_loads(c, body);
  } else {
    emit_shared_loads(c, body, &k, &ps, j, x, 0);
    if (c->multiply_on_load) multiply_values_by_spectrum(c, body, &k, &ps, j, x);
    if (!to_global || c->s->out_packed) { /* packed outputs go through shared memory */
      zipfft__s_barrier(c->a, body);
      k = zipfft__emit_coords(c, body);
      zipfft__emit_butterfly_indices(c, body, &k, &ps, j);
    }
  }
  emit_compute_and_store(c, body, &k, &ps, p, j, x, to_global);
  if (!to_global && !keeps) zipfft__s_barrier(c->a, body);
  if (loads_global && !to_global && !keeps) zipfft__emit_stage_next(c, body);
}

/* Bluestein's or Rader's filter multiply of a passes_in_place kernel, in the second FFT's
 * first pass: each value it takes times the filter (stored in the order the values come,
 * see zipfft__in_place_entry: entry j + r*m), conjugated (the second FFT then runs the
 * inverse); Rader's thread 0 first keeps X[0] from the first FFT's element 0. */
static void multiply_by_filter_in_place(zipfft__stockham_build *c, zipfft__block *blk,
                                        const zipfft__thread_coords *k, const pass_shape *ps,
                                        const zipfft__expr **j, zipfft__cval *x) {
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__block *g = open_if(c, blk, zipfft__butterfly_guard(c, ps, b, j[b]));
    for (int r = 0; r < ps->radix; r++) {
      const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps->m));
      zipfft__cval *v = &x[b * ps->radix + r];
      if (c->s->rader_n > 0 && b == 0 && r == 0) /* element 0, held by thread 0 */
        zipfft__emit_rader_first_output(c, g, k, *v);
      multiply_by_conj_filter(c, g, v, e);
    }
  }
}

/* The butterflies of pass p, then its twiddles on their outputs (decimation in frequency:
 * the first FFT of in-place passes). */
static void emit_compute_dif(zipfft__stockham_build *c, zipfft__block *blk, const pass_shape *ps,
                             int p, const zipfft__expr **j, zipfft__cval *x, zipfft__cval *y) {
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__emit_dft(c->a, blk, c->s->sign, ps->radix, &x[b * ps->radix], &y[b * ps->radix]);
    if (p > 0) emit_twiddles(c, blk, ps, p, j[b], &y[b * ps->radix]);
  }
}

/* One pass of a passes_in_place kernel, in the slots and with the twiddles of Stockham pass
 * p. The first FFT runs p = P-1 down to 0 in frequency (dif: the twiddles after the
 * butterflies), taking its input in order from global memory (Rader's: from its staged or
 * merged input in shared memory) and leaving its outputs digit-reversed, in registers
 * (two FFTs) or in pass 0's slots (store_major kernels); the second runs p = 0 up to P-1
 * in time (the Stockham twiddles before the butterflies), taking those registers times the
 * kept spectrum or Bluestein's or Rader's filter, stored in the same digit-reversed order
 * (zipfft__in_place_entry), and storing its outputs in order (Rader's: into its slots, for
 * its stores or split). Each pass writes the slots it read, so only the barrier after its
 * stores is needed. The first pass reads its twiddles from the table in global memory: the
 * copy it makes into shared memory is published only by its barrier. Measured on an H100
 * (2DTM fused kernel, 4096 = 16x16x16, against the Stockham passes): 967-970 -> 926-928 us,
 * batch 16 4.60x -> 4.72x the cuFFT pipeline; with a barrier publishing the copy before
 * the first butterflies, 922-931 us but 4.70x. */
static void emit_pass_in_place(zipfft__stockham_build *c, zipfft__block *body, int p, int dif) {
  pass_shape ps = zipfft__pass_shape_of(c->s, p);
  int last = c->s->pass_count - 1;
  int rader = c->s->rader_n > 0; /* starts from Rader's staging, ends through its stores */
  int from_global = dif && p == last && !rader, keeps = dif && p == 0 && zipfft__two_ffts(c->s);
  int takes = !dif && p == 0, to_global = !dif && p == last && !rader;
  const zipfft__expr *j[ZIPFFT__MAX_VALUES];
  zipfft__cval x[ZIPFFT__MAX_VALUES], y[ZIPFFT__MAX_VALUES];
  zipfft__s_comment(c->a, body,
                    zipfft__arena_printf(c->a, "in-place pass %d: radix %d, stride %lld", p,
                                         ps.radix, (long long)ps.ns));
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  zipfft__emit_butterfly_indices(c, body, &k, &ps, j);
  declare_values(c, body, &ps, 0, from_global, x);
  if (takes) {
    take_handoff(c, body, &ps, x);
    if (zipfft__convolution_kernel(c->s))
      multiply_by_filter_in_place(c, body, &k, &ps, j, x);
    else
      multiply_values_by_spectrum(c, body, &k, &ps, j, x);
  } else if (from_global) {
    emit_global_loads(c, body, &k, &ps, j, x); /* elements j + r*m: pass P-1's slots */
    emit_after_first_loads(c, body);
  } else {
    emit_shared_loads(c, body, &k, &ps, j, x, 1);
  }
  c->twiddles_from_table = from_global; /* the staged copy is not yet published */
  if (dif)
    emit_compute_dif(c, body, &ps, p, j, x, y);
  else
    emit_compute(c, body, &ps, p, j, x, y);
  c->twiddles_from_table = 0;
  if (keeps) {
    c->handoff = zipfft__arena_alloc(c->a, sizeof y);
    for (int i = 0; c->handoff && i < ps.butterflies * ps.radix; i++)
      c->handoff[i] = zipfft__cval_materialize(c->a, body, y[i]);
  } else if (to_global) {
    emit_global_stores(c, body, &k, &ps, j, y);
  } else {
    emit_shared_stores(c, body, &k, &ps, j, y);
    zipfft__s_barrier(c->a, body);
  }
}

/* The phases before the first pass: the C2R merge of the half spectrum into shared memory
 * (into Rader's order in a Rader kernel), or Rader's staged input. Returns 1 when there is
 * one: the first pass then reads shared memory. */
static int emit_input_phases(zipfft__stockham_build *c, zipfft__block *body) {
  if (zipfft__has_merge_phase(c->s)) {
    if (c->s->paired_rows > 0)
      zipfft__emit_merge_rows(c, body);
    else
      zipfft__emit_merge(c, body);
    zipfft__s_barrier(c->a, body);
    return 1;
  }
  if (c->s->rader_n > 0) zipfft__emit_rader_staging(c, body);
  return c->s->rader_n > 0;
}

/* Both FFTs of a passes_in_place kernel with the spectrum's or filter's multiply between
 * them (Rader's: from its staged or merged input, the last pass writing its slots, which
 * hold the natural order, for Rader's stores or the R2C split); a store_major kernel's one
 * FFT (in frequency: it reads its inputs in order) and its staged stores, which take the
 * outputs from pass 0's slots (zipfft__in_place_element). */
static void emit_transform_in_place(zipfft__stockham_build *c, zipfft__block *body) {
  int last = c->s->pass_count - 1;
  zipfft__kernel_kind kind = c->s->kind;
  emit_input_phases(c, body);
  for (int p = last; p >= 0; p--) emit_pass_in_place(c, body, p, 1);
  if (zipfft__two_ffts(c->s))
    for (int p = 0; p <= last; p++) emit_pass_in_place(c, body, p, 0);
  if (kind == ZIPFFT__KIND_R2C_HALF && c->s->split_by_element)
    zipfft__emit_split_by_element(c, body);
  else if (kind == ZIPFFT__KIND_R2C_HALF)
    zipfft__emit_split(c, body);
  else if (!zipfft__two_ffts(c->s) || c->s->rader_n > 0)
    zipfft__emit_staged_stores(c, body);
}

const zipfft__expr *zipfft__in_place_element(zipfft__stockham_build *c, zipfft__block *g,
                                             const zipfft__expr *slot) {
  const zipfft__kernel_spec *s = c->s;
  int64_t m = s->n / s->radices[0], place = m, below = 1;
  const zipfft__expr *j = let(c, g, "sj", quotient(c, ZIPFFT__OP_DIV, slot, s->radices[0]));
  const zipfft__expr *low = i32(c, 0);
  for (int p = s->pass_count - 1; p >= 1; p--) { /* low's digits, least significant first */
    place /= s->radices[p];
    const zipfft__expr *above = place == 1 ? j : quotient(c, ZIPFFT__OP_DIV, j, place);
    const zipfft__expr *digit = quotient(c, ZIPFFT__OP_MOD, above, s->radices[p]);
    low = bin(c, ZIPFFT__OP_ADD, low, bin(c, ZIPFFT__OP_MUL, digit, i32(c, below)));
    below *= s->radices[p];
  }
  const zipfft__expr *r = quotient(c, ZIPFFT__OP_MOD, slot, s->radices[0]);
  return bin(c, ZIPFFT__OP_ADD, low, bin(c, ZIPFFT__OP_MUL, r, i32(c, m)));
}

/* Emits every pass of one n-point FFT. */
void zipfft__emit_fft(zipfft__stockham_build *c, zipfft__block *body, int from_shared,
                      int to_global) {
  for (int p = 0; p < c->s->pass_count; p++) emit_pass(c, body, p, from_shared, to_global);
}

void zipfft__emit_transform(zipfft__stockham_build *c, zipfft__block *body) {
  const zipfft__kernel_spec *spec = c->s;
  if (spec->passes_in_place) {
    emit_transform_in_place(c, body);
    return;
  }
  if (spec->stage_io) zipfft__emit_stage_in(c, body);
  if (spec->in_packed) zipfft__emit_packed_loads(c, body);
  int from_shared = emit_input_phases(c, body) || spec->in_packed;
  int split_last = spec->kind == ZIPFFT__KIND_R2C_HALF && !spec->mirrored;
  int staged = zipfft__stores_from_shared(spec) || split_last;
  int two = zipfft__two_ffts(spec);
  c->keep_outputs = zipfft__fused_handoff(spec);
  zipfft__emit_fft(c, body, from_shared, !staged && !two);
  if (two) {
    if (zipfft__convolution_kernel(spec)) {
      zipfft__emit_convolution_multiply(c, body);
      zipfft__s_barrier(c->a, body);
    } else {
      c->multiply_on_load = 1; /* the spectrum multiply in the next FFT's first pass */
    }
    zipfft__emit_fft(c, body, 1, !staged);
  }
  if (split_last && spec->paired_rows > 0)
    zipfft__emit_split_rows(c, body);
  else if (split_last && spec->split_by_element)
    zipfft__emit_split_by_element(c, body);
  else if (split_last)
    zipfft__emit_split(c, body);
  else if (staged)
    zipfft__emit_staged_stores(c, body);
  else if (spec->stage_io)
    zipfft__emit_stage_out(c, body);
  else if (spec->out_packed)
    zipfft__emit_packed_stores(c, body);
}

/* RANGE: thread 0 asks for the contiguous range the later block's transforms span (those
 * that exist) in one bulk prefetch; in a cluster kernel (one transform per cluster) each
 * block asks for its rank's share of the later cluster's transform. */
static void prefetch_range(zipfft__stockham_build *c, zipfft__block *b, const zipfft__expr *next) {
  const zipfft__kernel_spec *s = c->s;
  int64_t per_block = s->ffts_per_block, distance = s->batch_in_strides[0];
  int64_t bytes = (int64_t)zipfft__element_bytes(s, 0);
  zipfft__block *g = open_if(c, b, bin(c, ZIPFFT__OP_EQ, zipfft__e_thread(c->a), i32(c, 0)));
  const zipfft__expr *first = bin(c, ZIPFFT__OP_MUL, next, i64(c, distance * bytes)), *size;
  if (s->cluster > 1) {
    int64_t share_bytes = zipfft__input_row_elements(s) / s->cluster * bytes;
    const zipfft__expr *rank = zipfft__e_cast(c->a, ZIPFFT__T_I64, zipfft__e_rank(c->a));
    first = bin(c, ZIPFFT__OP_ADD, first, bin(c, ZIPFFT__OP_MUL, rank, i64(c, share_bytes)));
    size = i64(c, share_bytes);
  } else {
    const zipfft__expr *left = let(c, g, "gl", bin(c, ZIPFFT__OP_SUB, var(c, c->batch), next));
    const zipfft__expr *count = zipfft__e_select(
        c->a, bin(c, ZIPFFT__OP_LT, left, i64(c, per_block)), left, i64(c, per_block));
    const zipfft__expr *span =
        bin(c, ZIPFFT__OP_ADD,
            bin(c, ZIPFFT__OP_MUL, bin(c, ZIPFFT__OP_SUB, count, i64(c, 1)), i64(c, distance)),
            i64(c, zipfft__input_row_elements(s)));
    size = bin(c, ZIPFFT__OP_MUL, span, i64(c, bytes));
  }
  const zipfft__expr *args[] = {var(c, c->in), first, size};
  zipfft__s_call(c->a, g, "zprefetch", 3, args);
}

/* COLUMNS: the block's threads share the later block's input elements e, each asking L2
 * for the line that holds e of the block's first column (the whole run of adjacent columns
 * where it does not cross a line, as in the 2DTM kernel's 32-byte runs), for a chirp load
 * only below Bluestein's length, where the user's row ends; in a cluster kernel (the later
 * cluster's columns) element e * cluster + rank, the ones this block would load. A line
 * prefetch, not a bulk one: measured, a bulk prefetch per element cost the 2DTM search 2-4%. */
static void prefetch_columns(zipfft__stockham_build *c, zipfft__block *b,
                             const zipfft__expr *next) {
  const zipfft__kernel_spec *s = c->s;
  zipfft__thread_coords k = {.g = next};
  const zipfft__expr *first = zipfft__batch_offset_with(c, b, &k, s->batch_in_strides, "gr");
  const zipfft__expr *position_base =
      zipfft__loads_chirp(s) ? zipfft__batch_offset_with(c, b, &k, s->position_steps, "gp") : NULL;
  /* a cluster kernel's block reads its rank's share of each transform's elements */
  int64_t elements = zipfft__input_row_elements(s) / zipfft__cluster_blocks(s);
  int64_t threads = zipfft__c2c_block_threads(s), rounds = (elements + threads - 1) / threads;
  const zipfft__expr *e = zipfft__e_cast(c->a, ZIPFFT__T_I64, zipfft__e_thread(c->a));
  zipfft__block *loop = b;
  if (rounds > 1) { /* thread t takes elements t, t + threads, ... */
    const zipfft__var *round = zipfft__var_new(c->a, "gi", ZIPFFT__T_I64);
    loop = &zipfft__s_for(c->a, b, round, i64(c, rounds))->u.for_.body;
    e = let(c, loop, "ge",
            bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, var(c, round), i64(c, threads)), e));
  }
  const zipfft__expr *inside = bin(c, ZIPFFT__OP_LT, e, i64(c, elements));
  if (position_base) /* a chirp load: the user's row ends at the convolution's inputs */
    inside = bin(c, ZIPFFT__OP_AND, inside,
                 bin(c, ZIPFFT__OP_LT, bluestein_position(c, position_base, e),
                     i64(c, zipfft__chirp_inputs(s->chirp_n, s->chirp_half))));
  zipfft__block *g = open_if(c, loop, inside);
  if (s->cluster > 1) e = zipfft__cluster_element(c, e); /* 64-bit, as e is */
  const zipfft__expr *at =
      bin(c, ZIPFFT__OP_ADD, first, bin(c, ZIPFFT__OP_MUL, e, i64(c, s->in_stride)));
  const zipfft__expr *args[] = {
      var(c, c->in), bin(c, ZIPFFT__OP_MUL, at, i64(c, (int64_t)zipfft__element_bytes(s, 0)))};
  zipfft__s_call(c->a, g, "zprefetch_line", 2, args);
}

/* Where the spec asks for it (prefetch_ahead): the block asks L2 for the input of block
 * (this block + prefetch_ahead), the transforms of it that exist, in the pieces its shape
 * (zipfft__block_input_of) gives. */
static void emit_prefetch_ahead(zipfft__stockham_build *c, zipfft__block *body) {
  const zipfft__kernel_spec *s = c->s;
  const zipfft__expr *first =
      bin(c, ZIPFFT__OP_ADD,
          bin(c, ZIPFFT__OP_MUL, bin(c, ZIPFFT__OP_ADD, block_index(c), i64(c, s->prefetch_ahead)),
              i64(c, s->ffts_per_block)),
          var(c, c->batch_offset));
  const zipfft__expr *next = let(c, body, "ga", first);
  typedef void prefetcher(zipfft__stockham_build *, zipfft__block *, const zipfft__expr *);
  static prefetcher *const by_shape[] = {[ZIPFFT__BLOCK_INPUT_RANGE] = prefetch_range,
                                         [ZIPFFT__BLOCK_INPUT_COLUMNS] = prefetch_columns};
  prefetcher *emit = by_shape[zipfft__block_input_of(s)]; /* NULL: zipfft__check_spec refuses */
  if (emit) emit(c, open_if(c, body, bin(c, ZIPFFT__OP_LT, next, var(c, c->batch))), next);
}

/* The kernel's parameters (in the order of zipfft__kernel_arg) into c and its AST header
 * into k: name, shared memory, block threads, launch bounds, callbacks, real sides. */
static void open_kernel(zipfft__stockham_build *c, const zipfft__kernel_spec *user_spec,
                        zipfft__kernel_ast *k) {
  zipfft__arena *a = c->a;
  const zipfft__kernel_spec *spec = c->s;
  int io_flags = (spec->streaming_io ? ZIPFFT__PARAM_STREAMING : 0) |
                 (spec->distinct_io ? ZIPFFT__PARAM_UNALIASED : 0);
  c->in = zipfft__param_new_flagged(a, "in", ZIPFFT__T_BYTES_IN, io_flags);
  c->out = zipfft__param_new_flagged(a, "out", ZIPFFT__T_BYTES_OUT, io_flags);
  c->tw = zipfft__param_new_flagged(a, "tw", ZIPFFT__T_BYTES_IN,
                                    spec->read_only_tables ? ZIPFFT__PARAM_UNALIASED : 0);
  c->batch = zipfft__param_new(a, "batch", ZIPFFT__T_I64);
  c->batch_offset = zipfft__param_new(a, "batch_offset", ZIPFFT__T_I64);
  c->aligned = zipfft__param_new(a, "aligned", ZIPFFT__T_I32);
  c->aux = zipfft__param_new(a, "aux", ZIPFFT__T_BYTES_IN);
  c->loop_count = zipfft__param_new(a, "loop_count", ZIPFFT__T_I64);
  c->first_index = zipfft__param_new(a, "first_index", ZIPFFT__T_I64);
  const zipfft__var *load_user = zipfft__param_new(a, "load_user", ZIPFFT__T_BYTES_IN),
                    *store_user = zipfft__param_new(a, "store_user", ZIPFFT__T_BYTES_IN);
  c->smem =
      zipfft__c2c_shared_bytes(spec) > 0 ? zipfft__param_new(a, "smem", ZIPFFT__T_SHARED) : NULL;
  const zipfft__var *params[ZIPFFT__ARG_COUNT] = {
      c->in,  c->out,        c->tw,          c->batch,  c->batch_offset, c->aligned,
      c->aux, c->loop_count, c->first_index, load_user, store_user};
  char name[ZIPFFT__KERNEL_NAME_MAX];
  zipfft__c2c_kernel_name(user_spec, name, sizeof name);
  *k = (zipfft__kernel_ast){.name = zipfft__arena_printf(a, "%s", name),
                            .precision = spec->precision,
                            .shared = c->smem,
                            .block_threads = zipfft__c2c_block_threads(spec),
                            .shared_bytes = zipfft__c2c_shared_bytes(spec),
                            .param_count = ZIPFFT__ARG_COUNT};
  for (int i = 0; i < ZIPFFT__ARG_COUNT; i++) k->params[i] = params[i];
  k->min_blocks = user_spec->min_blocks;
  k->load_callback = user_spec->load_callback.function ? &user_spec->load_callback : NULL;
  k->store_callback = user_spec->store_callback.function ? &user_spec->store_callback : NULL;
  k->real_in = zipfft__kind_real_in(spec->kind) && !zipfft__reads_workspace(spec) &&
               spec->pointwise != ZIPFFT__PW_FILTER;
  k->real_out = zipfft__kind_real_out(spec->kind) && !zipfft__writes_workspace(spec) &&
                spec->pointwise != ZIPFFT__PW_FILTER;
}

/* The body of an FFT kernel (not a pointwise one): the block-ahead prefetch, a cluster
 * kernel's phases, or the staged twiddles, the statistics loop, the transform and the
 * statistics merge. NULL, or what the spec asked for that the body could not place. */
static const char *emit_fft_kernel_body(zipfft__stockham_build *c, zipfft__kernel_ast *k) {
  const zipfft__kernel_spec *spec = c->s;
  zipfft__block *body = &k->body;
  if (spec->prefetch_ahead > 0) {
    if (spec->prefetch_after_loads)
      c->prefetch_in_first_pass = 1;
    else
      emit_prefetch_ahead(c, body);
    k->uses_prefetch = 1;
  }
  k->cluster_blocks = zipfft__cluster_blocks(spec);
  if (spec->cluster > 1) {
    zipfft__emit_cluster_kernel(c, body);
    return c->prefetch_in_first_pass
               ? "the prefetch after loads found no first pass loading from global memory"
               : NULL;
  }
  c->stage_in_first_pass = spec->shared_twiddles && zipfft__copies_twiddles_in_first_pass(spec);
  if (spec->shared_twiddles && !c->stage_in_first_pass) {
    emit_twiddle_copies(c, body);
    zipfft__s_barrier(c->a, body);
  }
  if (spec->statistics) body = zipfft__open_statistics_loop(c, body);
  zipfft__emit_transform(c, body);
  if (c->stage_in_first_pass)
    return "the twiddle copy found no first pass loading from global memory";
  if (c->prefetch_in_first_pass)
    return "the prefetch after loads found no first pass loading from global memory";
  if (spec->statistics) {
    zipfft__s_barrier(c->a, body); /* the next signal's loads overwrite shared memory */
    c->signal = NULL;
    zipfft__emit_stats_merge(c, &k->body);
    k->uses_statistics = 1;
    k->uses_stage = spec->stage_rows;
  }
  return NULL;
}

const char *zipfft__build_stockham(const zipfft__kernel_spec *user_spec, zipfft__arena *a,
                                   zipfft__kernel_ast *k) {
  const char *problem = zipfft__check_spec(user_spec);
  if (problem) return problem;
  /* Callbacks: the accesses to the user's arrays go through them (the name keeps the spec's
   * own storage, the AST gets the callback's). */
  zipfft__kernel_spec local = *user_spec;
  if (local.load_callback.function) local.in_storage = ZIPFFT__STORAGE_CALLBACK;
  if (local.store_callback.function) local.out_storage = ZIPFFT__STORAGE_CALLBACK;
  zipfft__stockham_build c = {
      .a = a, .s = &local, .shared_stride = zipfft__c2c_shared_stride(&local)};
  open_kernel(&c, user_spec, k);
  if (local.pointwise != ZIPFFT__PW_NONE) {
    zipfft__emit_pointwise(&c, &k->body);
    k->uses_statistics = local.pointwise == ZIPFFT__PW_SIGNAL_SUM; /* zsum_add */
  } else {
    problem = emit_fft_kernel_body(&c, k);
    if (problem) return problem;
  }
  return zipfft__arena_error(a) ? zipfft__arena_error(a) : zipfft__kernel_validate(k);
}
