/* build_context.h - the state and small helpers shared by the files that build a
 * single-kernel Stockham pass (build_stockham.c, build_convolution.c, build_statistics.c,
 * build_real_split.c, ...). */
#ifndef ZIPFFT_BUILD_CONTEXT_H
#define ZIPFFT_BUILD_CONTEXT_H

#include "gen/ast.h"
#include "gen/butterfly.h"
#include "plan/kernel_spec.h"

typedef struct zipfft__stockham_build {
  zipfft__arena *a;
  const zipfft__kernel_spec *s;
  const zipfft__var *in, *out, *tw, *batch, *batch_offset, *aligned, *smem;
  const zipfft__var *aux, *loop_count, *first_index;
  int64_t shared_stride; /* complex elements per transform in shared memory */
  /* Statistics kernels: the loop's signal number (NULL outside the loop) and the registers
   * of every output real a thread folds (slot-major: 2 per slot for C2R_HALF). */
  const zipfft__var *signal;
  struct zipfft__stats_regs *stats;
  /* stage_rows kernels of tiled input (in_tile > 1): the transform's row within its staged
   * tile, set at the top of each iteration of the signal loop. */
  const zipfft__expr *stage_tile_row;
  /* Fused correlation: the next shared-memory loads (the second FFT's first pass) multiply
   * by the kept spectrum. */
  int multiply_on_load;
  /* Fused correlation whose first and last radix agree: the first FFT's last pass leaves its
   * outputs here (keep_outputs set), in exactly the registers the second FFT's first pass
   * would load from shared memory, and that pass takes them (handoff non-NULL). */
  int keep_outputs;
  zipfft__cval *handoff;
  /* shared_twiddles kernels whose first pass loads from global memory: the copy into
   * shared memory is still to be emitted, after that pass's loads (its barrier then
   * publishes the copy). */
  int stage_in_first_pass;
  /* prefetch_after_loads kernels: the block-ahead prefetch is still to be emitted, after
   * the first pass's loads from global memory. */
  int prefetch_in_first_pass;
  /* 1 while a pass must read its twiddles from the table in global memory even where the
   * kernel stages them in shared memory (the first pass of in-place passes, which uses them
   * before the barrier that publishes the copy). */
  int twiddles_from_table;
  /* The block's work item (I64) where the hardware block index would be (NULL: that
   * index); persistent kernels take items from a counter. */
  const zipfft__expr *block;
  /* Fused Bluestein kernels' store phase (bluestein_store): the padded row's position of the
   * transform's first element (zipfft__bluestein_base), for finish_output's chirp. */
  const zipfft__expr *store_position;
} zipfft__stockham_build;

/* Where one thread stands in one phase (recomputed after every barrier). */
typedef struct zipfft__thread_coords {
  const zipfft__expr *t;      /* thread within its transform (I32) */
  const zipfft__expr *f;      /* transform within the block (I32) */
  const zipfft__expr *g;      /* transform within the batch (I64) */
  const zipfft__expr *active; /* g < batch */
} zipfft__thread_coords;

/* One Stockham pass: y[(j/ns)*ns*r + j%ns + k*ns] = DFT_r(x[j + q*m] * twiddles). */
typedef struct pass_shape {
  int radix;
  int64_t ns;      /* product of the radices before this pass */
  int64_t m;       /* n / radix: butterflies of the whole transform */
  int butterflies; /* butterflies per thread: ceil(m / threads_per_fft) */
  int mirrored;    /* the mirrored pass of a mirrored kernel (kernel_spec.h) */
} pass_shape;

static inline const zipfft__expr *i32(zipfft__stockham_build *c, int64_t v) {
  return zipfft__e_i32(c->a, v);
}
static inline const zipfft__expr *i64(zipfft__stockham_build *c, int64_t v) {
  return zipfft__e_int(c->a, ZIPFFT__T_I64, v);
}
static inline const zipfft__expr *var(zipfft__stockham_build *c, const zipfft__var *v) {
  return zipfft__e_var(c->a, v);
}
static inline const zipfft__expr *bin(zipfft__stockham_build *c, zipfft__binop op,
                                      const zipfft__expr *l, const zipfft__expr *r) {
  return zipfft__e_bin(c->a, op, l, r);
}

/* Declares a variable initialised with e, known to lie in [0, bound) (0: unknown), and
 * returns a reference to it; for an integer whose bound the expression alone does not show. */
static inline const zipfft__expr *let_bounded(zipfft__stockham_build *c, zipfft__block *b,
                                              const char *prefix, const zipfft__expr *e,
                                              int64_t bound) {
  const zipfft__var *v = zipfft__var_new_bounded(c->a, prefix, e->type, bound);
  zipfft__s_decl(c->a, b, v, e);
  return var(c, v);
}

/* Declares a variable initialised with e (taking e's bound) and returns a reference to it. */
static inline const zipfft__expr *let(zipfft__stockham_build *c, zipfft__block *b,
                                      const char *prefix, const zipfft__expr *e) {
  return let_bounded(c, b, prefix, e, zipfft__expr_bound(e));
}

/* Opens `if (cond)` inside blk and returns the block to fill (blk itself when cond is NULL). */
static inline zipfft__block *open_if(zipfft__stockham_build *c, zipfft__block *blk,
                                     const zipfft__expr *cond) {
  if (!cond || (cond->kind == ZIPFFT__E_INT && cond->u.int_value != 0)) return blk;
  return &zipfft__s_if(c->a, blk, cond)->u.if_.then_block;
}

/* Global accesses come in two copies chosen by the run-time alignment of the pointers:
 * branch 0 uses vector accesses, branch 1 byte-wise ones. */
static const zipfft__access access_of_branch[2] = {ZIPFFT__ACCESS_VECTOR, ZIPFFT__ACCESS_BYTES};

/* Opens `if (aligned) {...} else {...}` in blk and returns the two branches. */
static inline void open_alignment_branches(zipfft__stockham_build *c, zipfft__block *blk,
                                           zipfft__block *branches[2]) {
  zipfft__stmt *s = zipfft__s_if(c->a, blk, var(c, c->aligned));
  branches[0] = &s->u.if_.then_block;
  branches[1] = &s->u.if_.else_block;
}

/* Where this thread stands in a phase (recomputed after every barrier), with the spec's
 * thread mapping, or with neighbouring threads on neighbouring transforms (major = 1). */
zipfft__thread_coords zipfft__emit_coords(zipfft__stockham_build *c, zipfft__block *b);
zipfft__thread_coords zipfft__emit_coords_mapped(zipfft__stockham_build *c, zipfft__block *b,
                                                 int major);
/* The global index (I64) of transform f of the block, as a let; zipfft__emit_coords_of:
 * the coordinates of a thread given its place t in transform f of the block. */
const zipfft__expr *zipfft__emit_transform_index(zipfft__stockham_build *c, zipfft__block *b,
                                                 const zipfft__expr *f);
zipfft__thread_coords zipfft__emit_coords_of(zipfft__stockham_build *c, zipfft__block *b,
                                             const zipfft__expr *t, const zipfft__expr *f);
/* Declares a complex value initialised to zero, named prefix + r / i (live: kept across
 * barriers, as the C emitter needs for values that outlive a phase). */
zipfft__cval zipfft__zero_value(zipfft__stockham_build *c, zipfft__block *blk, const char *prefix,
                                int live);
/* Declares a complex value and loads it from element `at` of global memory, shared memory
 * or the table (ptr). */
zipfft__cval zipfft__load_value(zipfft__stockham_build *c, zipfft__block *blk,
                                const zipfft__var *ptr, const zipfft__expr *at,
                                zipfft__access access, zipfft_storage storage);
/* Loads entry offset + e of the kernel's table (e any integer expression). */
zipfft__cval zipfft__table_value(zipfft__stockham_build *c, zipfft__block *blk, int64_t offset,
                                 const zipfft__expr *e);
/* The value at x (I64) of a table kept in two levels (plan/twiddle.h): low[x % 2^shift] at
 * low_at times high[x >> shift] at high_at. */
zipfft__cval zipfft__two_level_value(zipfft__stockham_build *c, zipfft__block *blk, int64_t low_at,
                                     int64_t high_at, int shift, const zipfft__expr *x);
/* Offset (I64) of the first element of transform g in the input (out = 0) or output. */
const zipfft__expr *zipfft__batch_offset(zipfft__stockham_build *c, zipfft__block *b,
                                         const zipfft__thread_coords *k, int out);
/* in_tile > 1: transform g's row within its tile of in_tile rows (I64; NULL otherwise). */
const zipfft__expr *zipfft__tile_row(zipfft__stockham_build *c, const zipfft__thread_coords *k);
/* Global element offset (I64) of element e of a transform starting at base. */
const zipfft__expr *zipfft__global_offset(zipfft__stockham_build *c, const zipfft__expr *base,
                                          const zipfft__expr *e, int64_t stride);
/* The complex index of the pair of reals (x[2e], x[2e+1]) of the row at base, a real offset
 * that zipfft__real_pairs_as_vectors makes even. */
const zipfft__expr *zipfft__real_pair_index(zipfft__stockham_build *c, const zipfft__expr *base,
                                            const zipfft__expr *e);
/* Shared-memory index (complex elements, padded) of element e of this thread's transform. */
const zipfft__expr *zipfft__shared_index(zipfft__stockham_build *c, const zipfft__thread_coords *k,
                                         const zipfft__expr *e);
/* Loads element e of a transform starting at base into the variables of x, as the
 * kernel's kind says: complex (C2C), real with zero imaginary part (R2C), or for C2R the
 * Hermitian half (X[e] for e <= n/2, else conj(X[n - e]), n the logical length). */
void zipfft__emit_load_element(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                               const zipfft__expr *base, const zipfft__expr *e,
                               zipfft__access access);
/* x times Bluestein's chirp c_e (from the kernel's table). */
void zipfft__emit_chirp_multiply(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                                 const zipfft__expr *e);
/* Bluestein's load: for e < bluestein_n the element times the chirp c_e; x keeps its zeros
 * beyond (the padding is never read). */
void zipfft__emit_chirp_load(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval *x,
                             const zipfft__expr *base, const zipfft__expr *e,
                             zipfft__access access);
/* Stores y as element e of a transform starting at base, as the kind says: complex
 * (C2C; R2C only for e <= n/2) or the real part (C2R). */
void zipfft__emit_store_element(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval y,
                                const zipfft__expr *base, const zipfft__expr *e,
                                zipfft__access access);
/* Fused Bluestein kernels (kernel_spec bluestein_load, bluestein_store): the padded row's
 * position (I64) of transform k->g's first element, its digits times position_steps. */
const zipfft__expr *zipfft__bluestein_base(zipfft__stockham_build *c, zipfft__block *b,
                                           const zipfft__thread_coords *k);
/* g, or for a CHIRP store a branch of g where element e's position (from c->store_position)
 * lies below the convolution's outputs (zipfft__chirp_outputs): the elements beyond are not
 * stored. */
zipfft__block *zipfft__open_stored_position(zipfft__stockham_build *c, zipfft__block *g,
                                            const zipfft__expr *e);
/* The value stored for output element e: Bluestein's conj(y) times the chirp (when
 * bluestein_n > 0, or a CHIRP store at element e's position), the four-step twiddle (column
 * not NULL), then the scale. */
zipfft__cval zipfft__finish_output(zipfft__stockham_build *c, zipfft__block *blk,
                                   const zipfft__expr *column, const zipfft__expr *e,
                                   zipfft__cval y);
/* The same with the four-step twiddle given (materialized) instead of read from the table. */
zipfft__cval zipfft__finish_output_twiddled(zipfft__stockham_build *c, zipfft__block *blk,
                                            const zipfft__cval *twiddle, const zipfft__expr *e,
                                            zipfft__cval y);
/* Offset (I64) of the first element of transform g for the given per-digit strides. */
const zipfft__expr *zipfft__batch_offset_with(zipfft__stockham_build *c, zipfft__block *b,
                                              const zipfft__thread_coords *k,
                                              const int64_t *strides, const char *name);
/* Emits every pass of one n-point FFT: the first pass loads from global memory unless
 * from_shared, the last stores to global memory when to_global, else to shared memory
 * (natural order) followed by a barrier. */
void zipfft__emit_fft(zipfft__stockham_build *c, zipfft__block *body, int from_shared,
                      int to_global);
/* y * exp(sign 2 pi i column e / L) for the kernel's two-level twiddle table (L its
 * zipfft__large_twiddle_length). */
zipfft__cval zipfft__apply_large_twiddle(zipfft__stockham_build *c, zipfft__block *blk,
                                         const zipfft__expr *column, const zipfft__expr *e,
                                         zipfft__cval y);
/* exp(sign 2 pi i column e / L) itself (materialized). */
zipfft__cval zipfft__large_twiddle(zipfft__stockham_build *c, zipfft__block *blk,
                                   const zipfft__expr *column, const zipfft__expr *e);
/* The column m of the four-step twiddle: the innermost batch digit of transform g (I64);
 * NULL when the kernel has no such twiddle. */
const zipfft__expr *zipfft__large_twiddle_column(zipfft__stockham_build *c, zipfft__block *blk,
                                                 const zipfft__thread_coords *k);
/* gen/build_convolution.c. Rader, before the first FFT: the input row in generator order in
 * shared memory, x[0] in its slot (then a barrier). */
void zipfft__emit_rader_staging(zipfft__stockham_build *c, zipfft__block *body);
/* Rader, by the thread of FFT element 0 (holding a = that element, the input's sum less
 * x[0]) before the second FFT: keeps X[0] = x[0] + a in the slot after x[0]'s. */
void zipfft__emit_rader_first_output(zipfft__stockham_build *c, zipfft__block *g,
                                     const zipfft__thread_coords *k, zipfft__cval a);
/* Bluestein and Rader, between the two FFTs: the first FFT's result in shared memory
 * multiplied by the filter and conjugated (Rader also keeps X[0]). */
void zipfft__emit_convolution_multiply(zipfft__stockham_build *c, zipfft__block *body);
/* The stores of a kernel whose last pass left its result in shared memory: natural order
 * (Rader's through its output permutation), four-step twiddle and scale applied. */
void zipfft__emit_staged_stores(zipfft__stockham_build *c, zipfft__block *body);
/* The output element that a store_major kernel whose passes run in place leaves in
 * shared-memory slot `slot` (before padding): the last pass (decimating in frequency, in
 * Stockham pass 0's slots) writes register r of butterfly j at j * radix 0 + r, and
 * butterfly j holds element reversed(j) + r * m (m = n / radix 0; see
 * zipfft__in_place_entry). */
const zipfft__expr *zipfft__in_place_element(zipfft__stockham_build *c, zipfft__block *g,
                                             const zipfft__expr *slot);
/* The shape of pass p of the spec's FFT. */
pass_shape zipfft__pass_shape_of(const zipfft__kernel_spec *s, int p);
/* Butterfly index j = t + b*threads for each butterfly b of this thread; in a mirrored
 * pass, the second half of them are the mirrors m - j of the first (m/2 for j = 0). */
void zipfft__emit_butterfly_indices(zipfft__stockham_build *c, zipfft__block *blk,
                                    const zipfft__thread_coords *k, const pass_shape *ps,
                                    const zipfft__expr **j);
/* Non-NULL when butterfly b may lie past m (only the last one, when threads do not divide m). */
const zipfft__expr *zipfft__butterfly_guard(zipfft__stockham_build *c, const pass_shape *ps, int b,
                                            const zipfft__expr *j);
/* Number of leading elements of a row (as the last pass addresses them) that are stored. */
int64_t zipfft__store_bound(const zipfft__kernel_spec *s);
/* Opens `if (index < extent)` when the extent is set (> 0); else returns g itself. */
zipfft__block *zipfft__open_within(zipfft__stockham_build *c, zipfft__block *g,
                                   const zipfft__expr *index, int64_t extent);
/* The loop index (I64) of signal `which` (0 or 1) of the current iteration: the loop
 * variable, or with signal_pairs 2 p + which. */
const zipfft__expr *zipfft__loop_signal(zipfft__stockham_build *c, int which);
/* 1 (condition) when the current iteration of a signal_pairs loop has its second signal. */
const zipfft__expr *zipfft__second_signal_present(zipfft__stockham_build *c);
/* gen/build_statistics.c. Declares the maxima and indices (registers live across the loop's
 * barriers), clears the thread's sums in shared memory, and opens the loop over the
 * signals; returns its body. */
zipfft__block *zipfft__open_statistics_loop(zipfft__stockham_build *c, zipfft__block *body);
/* Folds output element e (slot `slot` of the last pass) of the current signal, or of both
 * with signal_pairs, into the statistics. */
void zipfft__emit_stats_update(zipfft__stockham_build *c, zipfft__block *g, int slot,
                               const zipfft__expr *e, zipfft__cval y);
/* After the loop: each register set merged into the statistics arrays (the kernel's out)
 * at its output position, with the signal index made absolute (first_index + loop index),
 * four pixels to a call so that their reads go out together. */
void zipfft__emit_stats_merge(zipfft__stockham_build *c, zipfft__block *body);
/* stage_rows, after the first barrier of an iteration (every thread has read the staged
 * rows): lane 0 starts the copies of the next iteration's rows, if there is one. Nothing
 * for other kernels. */
void zipfft__emit_stage_next(zipfft__stockham_build *c, zipfft__block *body);
/* R2C_HALF by Rader's method, pair kk (b-th of the thread; kk = 0 only when b = 0): Z[kk]
 * and Z[p - kk] read from Rader's slots in shared memory, split and stored. */
void zipfft__emit_rader_split_pair(zipfft__stockham_build *c, zipfft__block *g,
                                   const zipfft__thread_coords *k, int b, const zipfft__expr *kk,
                                   const zipfft__expr *base);
/* Everything of a single kernel between its coordinates and its statistics: the merge of
 * C2R_HALF, the FFT (or Bluestein's two with the multiply between them, or a fused
 * correlation's), and the stores (direct, staged through shared memory, or split). */
void zipfft__emit_transform(zipfft__stockham_build *c, zipfft__block *body);
/* NULL when the builder can turn spec into a kernel, else why not. */
const char *zipfft__check_spec(const zipfft__kernel_spec *s);
/* The body of a cluster kernel (gen/build_cluster.c), and what a cluster spec cannot
 * combine with (NULL: none, or not a cluster kernel). */
void zipfft__emit_cluster_kernel(zipfft__stockham_build *c, zipfft__block *body);
const char *zipfft__check_cluster(const zipfft__kernel_spec *s);
/* Row pairs of a full-length real route's gather or scatter (gen/build_row_pairs.c): the
 * second row's base on the user's side and whether this work item has one; both NULL
 * when the kernel takes its rows one at a time. */
typedef struct zipfft__row_pair {
  const zipfft__expr *base, *present;
} zipfft__row_pair;
/* The row pair of work item k, whose row bases are in (input) and out (output). */
zipfft__row_pair zipfft__row_pair_of(zipfft__stockham_build *c, zipfft__block *blk,
                                     const zipfft__thread_coords *k, const zipfft__expr *in,
                                     const zipfft__expr *out);
/* A paired gather's element e into x (zeros beyond a Bluestein gather's bluestein_n):
 * x_a + i x_b, times the chirp for CHIRP_GATHER. */
void zipfft__emit_pair_gather(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__cval *x,
                              const zipfft__expr *in, const zipfft__row_pair *rp,
                              const zipfft__expr *e, zipfft__access access);
/* A paired scatter's element e: R2C splits Z[e] and Z[n - e] into X_a[e] and X_b[e];
 * C2R stores Re Z[e] to row a and Im Z[e] to row b. */
void zipfft__emit_pair_scatter(zipfft__stockham_build *c, zipfft__block *blk,
                               const zipfft__expr *in, const zipfft__expr *out,
                               const zipfft__row_pair *rp, const zipfft__expr *e,
                               zipfft__access access);

/* The body of a pointwise kernel (gen/build_pointwise.c). */
void zipfft__emit_pointwise(zipfft__stockham_build *c, zipfft__block *body);
/* R2C_HALF, one pair: from Z[kk] (a) and Z[n - kk] (z), stores the scaled spectrum values
 * X[kk] and (unless the same) X[n - kk] to the output row at base (alignment-branched).
 * twiddle: W^kk when the caller has it, else NULL (read from the table). */
void zipfft__emit_split_pair(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                             const zipfft__expr *kk, zipfft__cval a, zipfft__cval z,
                             const zipfft__cval *twiddle);
/* n - k, or 0 for k = 0: the split partner of element k. */
const zipfft__expr *zipfft__split_partner(zipfft__stockham_build *c, const zipfft__expr *k);
/* C2R_HALF, one pair: loads X[kk] into p and X[n - kk] into q from the input row at base
 * (alignment-branched; p and q are declared variables); when may_be_dc, the imaginary
 * parts of the pair kk = 0 (the DC and Nyquist terms) are set to zero. */
void zipfft__load_merge_pair(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                             const zipfft__expr *kk, zipfft__cval p, zipfft__cval q, int may_be_dc);
/* Where a merge writes Z[kk] and Z[n - kk]: shared memory or the workspace (complex, the
 * compute precision, vector accesses). */
typedef struct zipfft__merge_target {
  const zipfft__var *ptr;
  const zipfft__expr *at_k, *at_other;
} zipfft__merge_target;
/* C2R_HALF by Rader's method, pair kk: where the merge writes Z[kk] (FFT element
 * log_g(kk), or x[0]'s slot for kk = 0) and Z[p - kk] (FFT element log_g(p - kk)). */
zipfft__merge_target zipfft__rader_merge_target(zipfft__stockham_build *c, zipfft__block *g,
                                                const zipfft__thread_coords *k,
                                                const zipfft__expr *kk);
/* C2R_HALF, one pair: Z[kk] and (unless kk = 0 or the same) Z[n - kk] from p and q.
 * twiddle: W^kk when the caller has it, else NULL (read from the table). */
void zipfft__emit_merge_pair(zipfft__stockham_build *c, zipfft__block *g,
                             const zipfft__merge_target *to, const zipfft__expr *kk, zipfft__cval p,
                             zipfft__cval q, const zipfft__cval *twiddle);
/* The split/merge twiddle W^k = exp(sign 2 pi i k / 2n) from the table (k <= n/2, n the
 * half-length FFT's points). */
zipfft__cval zipfft__split_twiddle(zipfft__stockham_build *c, zipfft__block *b,
                                   const zipfft__expr *k);
/* w * exp(sign 2 pi i k / n), the root a constant of the source (w itself when k % n = 0). */
zipfft__cval zipfft__times_root(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval w,
                                int64_t k, int64_t n);
/* C2R_HALF: Z[k] = X[k] + conj(X[n-k]) + i w (X[k] - conj(X[n-k])) from p = X[k], q =
 * X[n-k] and w = W^k (any k < n). */
zipfft__cval zipfft__merge_value(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval p,
                                 zipfft__cval q, zipfft__cval w);
/* C2R_HALF cluster kernels and kernels that merge on load (merge_on_load): the first
 * pass's values of butterfly j (x[r], r < radix) as element j + r m of Z (with a cluster,
 * rank + cluster (j + r m)), each merged from two loads of the half spectrum of the row at
 * base. */
void zipfft__emit_merge_loads(zipfft__stockham_build *c, zipfft__block *g, const pass_shape *ps,
                              const zipfft__expr *j, const zipfft__cval *x,
                              const zipfft__expr *base, zipfft__access access);
/* Cluster kernels: element `slot` of this block's part is element slot * C + rank of the
 * whole transform (C the cluster size). */
const zipfft__expr *zipfft__cluster_element(zipfft__stockham_build *c, const zipfft__expr *slot);
/* C2R_HALF cluster kernels that mirror through the cluster (cluster_mirror): the first
 * pass's values x (every butterfly's, declared live) merged from X[e], read here, and X[L -
 * e], read from the partner block's shared memory between two cluster barriers (k and j:
 * the pass's coordinates and butterfly indices, computed before the first). */
void zipfft__emit_cluster_merge_loads(zipfft__stockham_build *c, zipfft__block *blk,
                                      const zipfft__thread_coords *k, const pass_shape *ps,
                                      const zipfft__expr *const *j, const zipfft__cval *x);
/* R2C_HALF: split the n-point result in shared memory into the half spectrum (stored). */
void zipfft__emit_split(zipfft__stockham_build *c, zipfft__block *body);
/* R2C_HALF split_by_element kernels: split the block's n-point results in shared memory
 * into the half spectra (stored), neighbouring threads on neighbouring output elements. */
void zipfft__emit_split_by_element(zipfft__stockham_build *c, zipfft__block *body);
/* R2C_HALF paired_rows kernels: split the block's row pairs in shared memory into the half
 * spectrum (stored). */
void zipfft__emit_split_rows(zipfft__stockham_build *c, zipfft__block *body);
/* C2R_HALF paired_rows kernels: merge the half spectrum (loaded) into the block's row pairs
 * in shared memory. */
void zipfft__emit_merge_rows(zipfft__stockham_build *c, zipfft__block *body);
/* C2R_HALF: merge the half spectrum (loaded) into the n-point input in shared memory. */
void zipfft__emit_merge(zipfft__stockham_build *c, zipfft__block *body);
/* gen/build_mirrored.c. R2C_HALF mirrored kernels, after the last pass's butterflies: the
 * outputs y split into the half spectrum and stored, each pair from one thread's registers. */
void zipfft__emit_mirrored_split(zipfft__stockham_build *c, zipfft__block *body,
                                 const zipfft__thread_coords *k, const pass_shape *ps,
                                 const zipfft__expr **j, const zipfft__cval *y);
/* gen/build_mirrored.c. C2R_HALF mirrored kernels, the first pass's values x: each element
 * e of Z merged from X[e] and X[n - e], both loaded by the thread (as its elements e and
 * n - e) from the half spectrum of the row at base, within the alignment branch g. */
void zipfft__emit_mirrored_merge_loads(zipfft__stockham_build *c, zipfft__block *g,
                                       const zipfft__thread_coords *k, const pass_shape *ps,
                                       const zipfft__expr **j, const zipfft__cval *x,
                                       const zipfft__expr *base, zipfft__access access);
/* gen/build_packed_io.c. in_packed kernels, before the first pass: the block's packed
 * input segments unpacked into its transforms' shared rows (element e of transform f at
 * zipfft__shared_index), then a barrier. out_packed kernels, after the last pass stored its
 * outputs there: a barrier, then element e of the block's transforms packed and stored. */
void zipfft__emit_packed_loads(zipfft__stockham_build *c, zipfft__block *body);
void zipfft__emit_packed_stores(zipfft__stockham_build *c, zipfft__block *body);
/* gen/build_staged_io.c. stage_io kernels: where transform k->f's staged row of side `out`
 * (0 input, 1 output) starts (I32): a complex slot, or with stage_packed_reals on the real
 * side a real index. zipfft__stage_real_at: the real index of element e of a real row whose
 * start that gave. */
const zipfft__expr *zipfft__stage_io_base(zipfft__stockham_build *c, zipfft__block *b,
                                          const zipfft__thread_coords *k, int out);
const zipfft__expr *zipfft__stage_real_at(zipfft__stockham_build *c, const zipfft__expr *base,
                                          const zipfft__expr *e);
/* Rows back to back (stage_io and rader_by_element kernels, copies by element over the
 * block): `bound`, the block's elements that belong to active transforms (I32; `row`
 * elements a transform), and `start`, the global index of the block's first element plus
 * the thread's (I64): element tid + i B of the block (B threads) lies at start + i B, for
 * i below `rounds`. */
typedef struct zipfft__block_rows {
  const zipfft__expr *bound, *start;
  int64_t threads, rounds;
} zipfft__block_rows;
zipfft__block_rows zipfft__emit_block_rows(zipfft__stockham_build *c, zipfft__block *target,
                                           int64_t row);
/* Element e = tid + i B of those rows (*e, I32; *at its global index): opens its branch,
 * e below the bound. */
zipfft__block *zipfft__open_block_element(zipfft__stockham_build *c, zipfft__block *target,
                                          const zipfft__block_rows *rows, int64_t i,
                                          const zipfft__expr **e, const zipfft__expr **at);
/* stage_io kernels: the block's input rows copied into the stage by element, then a barrier
 * (before the first pass or the C2R merge, which read them there). */
void zipfft__emit_stage_in(zipfft__stockham_build *c, zipfft__block *body);
/* stage_io kernels (C2C, R2C, C2R, C2R_HALF): after the last pass wrote its outputs into the stage,
 * a barrier, then the block's output rows copied from there to global memory by element. */
void zipfft__emit_stage_out(zipfft__stockham_build *c, zipfft__block *body);

#endif
