/* build_convolution.c - Bluestein's and Rader's two-FFT kernels (Rader's input staged in
 * generator order, by transform or by element over the block, the filter multiply between
 * the FFTs) and the stores from shared memory in natural order (with Rader's output
 * permutation, also read by the R2C split; the C2R merge writes Rader's input permutation). */
#include "gen/build_context.h"
#include "gen/butterfly.h"
#include "plan/twiddle.h"

/* Loads the complex value at shared-memory index `at`. */
static zipfft__cval shared_value(zipfft__stockham_build *c, zipfft__block *blk,
                                 const zipfft__expr *at) {
  return zipfft__load_value(c, blk, c->smem, at, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
}

/* Elements e = t + i*T (T threads per transform) of this thread's transform, one at a time:
 * opens the block for element i (guarded by e < limit and the transform being active). */
static zipfft__block *open_element(zipfft__stockham_build *c, zipfft__block *body,
                                   const zipfft__thread_coords *k, int i, int64_t limit,
                                   const zipfft__expr **e) {
  *e = let(c, body, "e", bin(c, ZIPFFT__OP_ADD, k->t, i32(c, (int64_t)i * c->s->threads_per_fft)));
  return open_if(c, body,
                 bin(c, ZIPFFT__OP_AND, k->active, bin(c, ZIPFFT__OP_LT, *e, i32(c, limit))));
}

static int elements_per_thread(const zipfft__kernel_spec *s, int64_t limit) {
  return (int)((limit + s->threads_per_fft - 1) / s->threads_per_fft);
}

/* Shared-memory index of transform f's x[0] slot (X[0] is the next one). */
static const zipfft__expr *rader_slot(zipfft__stockham_build *c, zipfft__block *g,
                                      const zipfft__thread_coords *k) {
  return let(c, g, "rs",
             bin(c, ZIPFFT__OP_ADD, i32(c, zipfft__rader_slot(c->s, 0)),
                 bin(c, ZIPFFT__OP_MUL, k->f, i32(c, 2))));
}

void zipfft__emit_rader_first_output(zipfft__stockham_build *c, zipfft__block *g,
                                     const zipfft__thread_coords *k, zipfft__cval a) {
  zipfft__block *first = open_if(c, g, bin(c, ZIPFFT__OP_EQ, k->t, i32(c, 0)));
  const zipfft__expr *slot = rader_slot(c, first, k);
  zipfft__cval x0 = zipfft__cval_materialize(c->a, first, shared_value(c, first, slot));
  zipfft__s_store_complex(c->a, first, c->smem, bin(c, ZIPFFT__OP_ADD, slot, i32(c, 1)),
                          bin(c, ZIPFFT__OP_ADD, x0.re, a.re), bin(c, ZIPFFT__OP_ADD, x0.im, a.im),
                          ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
}

/* Rader's index table at element e > 0: the FFT element log_g(e) that input element e
 * becomes (part 0), or the slot -log_g(e) mod n that holds output element e after the
 * second FFT (part 1). */
static const zipfft__expr *rader_index(zipfft__stockham_build *c, zipfft__block *g,
                                       const zipfft__expr *e, int part) {
  zipfft__cval entry = zipfft__table_value(c, g, zipfft__table_layout_of(c->s).rader_index,
                                           bin(c, ZIPFFT__OP_SUB, e, i32(c, 1)));
  return let_bounded(c, g, "ri", zipfft__e_cast(c->a, ZIPFFT__T_I32, part ? entry.im : entry.re),
                     c->s->n);
}

/* Opens, for a thread's element i of a transform (element e), the branch of e = 0 in
 * *zero (only i = 0 can hold it; NULL otherwise) and returns the branch of e > 0. */
static zipfft__block *branch_on_element_zero(zipfft__stockham_build *c, zipfft__block *g, int i,
                                             const zipfft__expr *e, zipfft__block **zero) {
  *zero = NULL;
  if (i > 0) return g;
  zipfft__stmt *first = zipfft__s_if(c->a, g, bin(c, ZIPFFT__OP_EQ, e, i32(c, 0)));
  *zero = &first->u.if_.then_block;
  return &first->u.if_.else_block;
}

/* rader_by_element: element e = tid + i B of the block's rows (B threads, rows back to back,
 * `rows` from zipfft__emit_block_rows) is element e mod p of transform e / p. Opens its
 * branch (zipfft__open_block_element) and gives that transform (*kf: f alone, what the
 * shared-memory indices read), the element (*kk), whether it is 0 (*zero) and its global
 * index (*at). */
static zipfft__block *open_rader_element(zipfft__stockham_build *c, zipfft__block *target,
                                         const zipfft__block_rows *rows, int64_t i,
                                         zipfft__thread_coords *kf, const zipfft__expr **kk,
                                         const zipfft__expr **zero, const zipfft__expr **at) {
  int64_t p = c->s->rader_n;
  const zipfft__expr *e;
  zipfft__block *in = zipfft__open_block_element(c, target, rows, i, &e, at);
  const zipfft__expr *f = let(c, in, "f", bin(c, ZIPFFT__OP_DIV, e, i32(c, p)));
  *kf = (zipfft__thread_coords){.f = f};
  *kk = let(c, in, "k", bin(c, ZIPFFT__OP_SUB, e, bin(c, ZIPFFT__OP_MUL, f, i32(c, p))));
  *zero = let(c, in, "kz", bin(c, ZIPFFT__OP_EQ, *kk, i32(c, 0)));
  return in;
}

/* Rader's element kk of a row: 1 stands in for 0 (its slot is apart), so that the index
 * table is read without a branch. */
static const zipfft__expr *nonzero_element(zipfft__stockham_build *c, const zipfft__expr *kk,
                                           const zipfft__expr *zero) {
  return zipfft__e_select(c->a, zero, i32(c, 1), kk);
}

/* What rader_by_element does with one element of the block's rows: *kf its transform (f
 * alone), kk its element in the row, zero whether that is 0, at its global index. */
typedef void (*rader_element_step)(zipfft__stockham_build *c, zipfft__block *in,
                                   const zipfft__thread_coords *kf, const zipfft__expr *kk,
                                   const zipfft__expr *zero, const zipfft__expr *at,
                                   zipfft__access access);

/* Runs `step` on every element of the block's rows (back to back in memory), element tid +
 * i B at global index start + i B, in each alignment branch. */
static void for_each_block_element(zipfft__stockham_build *c, zipfft__block *body,
                                   rader_element_step step) {
  zipfft__block *targets[2];
  open_alignment_branches(c, body, targets);
  for (int v = 0; v < 2; v++) {
    zipfft__block_rows rows = zipfft__emit_block_rows(c, targets[v], c->s->rader_n);
    for (int64_t i = 0; i < rows.rounds; i++) {
      zipfft__thread_coords kf;
      const zipfft__expr *kk, *zero, *at;
      zipfft__block *in = open_rader_element(c, targets[v], &rows, i, &kf, &kk, &zero, &at);
      step(c, in, &kf, kk, zero, at, access_of_branch[v]);
    }
  }
}

/* rader_by_element, before the first FFT: an element loaded and stored in its transform's
 * generator order (x[0] in its slot). */
static void load_rader_element(zipfft__stockham_build *c, zipfft__block *in,
                               const zipfft__thread_coords *kf, const zipfft__expr *kk,
                               const zipfft__expr *zero, const zipfft__expr *at,
                               zipfft__access access) {
  zipfft__cval x = zipfft__zero_value(c, in, "x", 0);
  zipfft__s_load_complex(c->a, in, x.re->u.var, x.im->u.var, c->in, at, access, c->s->in_storage);
  const zipfft__expr *slot = zipfft__e_select(
      c->a, zero, rader_slot(c, in, kf),
      zipfft__shared_index(c, kf, rader_index(c, in, nonzero_element(c, kk, zero), 0)));
  zipfft__s_store_complex(c->a, in, c->smem, slot, x.re, x.im, ZIPFFT__ACCESS_VECTOR,
                          ZIPFFT_STORAGE_DEFAULT);
}

/* Rader, before the first FFT (which starts from shared memory): each transform's row
 * loaded in natural order (coalesced) and stored in shared memory in generator order
 * (input element e at FFT element log_g(e)), x[0] in its slot. Measured on an H100
 * against gathering g^r mod p from global memory in the first pass: fp64 7681 26.0 ->
 * 35.1% of the copy bandwidth, fp64 257 71.8 -> 73.4, fp32 257, 7681 and 12289 within
 * 0.4. */
void zipfft__emit_rader_staging(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "Rader: the input in generator order in shared memory");
  if (c->s->rader_by_element) {
    for_each_block_element(c, body, load_rader_element);
    zipfft__s_barrier(c->a, body);
    return;
  }
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *base = zipfft__batch_offset(c, body, &k, 0);
  zipfft__block *targets[2];
  open_alignment_branches(c, body, targets);
  for (int v = 0; v < 2; v++)
    for (int i = 0; i < elements_per_thread(c->s, c->s->rader_n); i++) {
      const zipfft__expr *e;
      zipfft__block *g = open_element(c, targets[v], &k, i, c->s->rader_n, &e);
      zipfft__cval x = zipfft__zero_value(c, g, "x", 0);
      zipfft__emit_load_element(c, g, &x, base, e, access_of_branch[v]);
      zipfft__block *zero, *rest = branch_on_element_zero(c, g, i, e, &zero);
      if (zero)
        zipfft__s_store_complex(c->a, zero, c->smem, rader_slot(c, zero, &k), x.re, x.im,
                                ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
      zipfft__s_store_complex(c->a, rest, c->smem,
                              zipfft__shared_index(c, &k, rader_index(c, rest, e, 0)), x.re, x.im,
                              ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    }
  zipfft__s_barrier(c->a, body);
}

/* Bluestein and Rader, between the two FFTs: z = conj(Z * filter) in shared memory, so
 * that the second forward FFT computes the conjugate of the inverse one. */
void zipfft__emit_convolution_multiply(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "convolution: multiply by the filter, conjugate");
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  int64_t filter = zipfft__table_layout_of(c->s).filter;
  for (int i = 0; i < elements_per_thread(c->s, c->s->n); i++) {
    const zipfft__expr *e;
    zipfft__block *g = open_element(c, body, &k, i, c->s->n, &e);
    const zipfft__expr *at = let(c, g, "s", zipfft__shared_index(c, &k, e));
    zipfft__cval a = zipfft__cval_materialize(c->a, g, shared_value(c, g, at));
    if (i == 0 && c->s->rader_n > 0) zipfft__emit_rader_first_output(c, g, &k, a);
    zipfft__cval z = zipfft__cval_materialize(
        c->a, g, zipfft__cval_mul(c->a, a, zipfft__table_value(c, g, filter, e)));
    zipfft__s_store_complex(c->a, g, c->smem, at, z.re, zipfft__e_neg(c->a, z.im),
                            ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
  }
}

/* Rader's output element e > 0 of this thread's transform, x[0] given: x[0] + conj(y[q])
 * for the slot q of e. */
static zipfft__cval rader_output(zipfft__stockham_build *c, zipfft__block *g,
                                 const zipfft__thread_coords *k, const zipfft__expr *e,
                                 zipfft__cval x0) {
  const zipfft__expr *q = rader_index(c, g, e, 1);
  zipfft__cval y = shared_value(c, g, zipfft__shared_index(c, k, q));
  return (zipfft__cval){bin(c, ZIPFFT__OP_ADD, x0.re, y.re), bin(c, ZIPFFT__OP_SUB, x0.im, y.im)};
}

void zipfft__emit_rader_split_pair(zipfft__stockham_build *c, zipfft__block *g,
                                   const zipfft__thread_coords *k, int b, const zipfft__expr *kk,
                                   const zipfft__expr *base) {
  const zipfft__expr *slot = rader_slot(c, g, k);
  zipfft__cval x0 = zipfft__cval_materialize(c->a, g, shared_value(c, g, slot));
  zipfft__block *zero, *rest = branch_on_element_zero(c, g, b, kk, &zero);
  if (zero) {
    zipfft__cval y0 = zipfft__cval_materialize(
        c->a, zero, shared_value(c, zero, bin(c, ZIPFFT__OP_ADD, slot, i32(c, 1))));
    zipfft__emit_split_pair(c, zero, base, kk, y0, y0, NULL);
  }
  const zipfft__expr *other = bin(c, ZIPFFT__OP_SUB, i32(c, c->s->rader_n), kk);
  zipfft__cval a = zipfft__cval_materialize(c->a, rest, rader_output(c, rest, k, kk, x0));
  zipfft__cval z = zipfft__cval_materialize(c->a, rest, rader_output(c, rest, k, other, x0));
  zipfft__emit_split_pair(c, rest, base, kk, a, z, NULL);
}

zipfft__merge_target zipfft__rader_merge_target(zipfft__stockham_build *c, zipfft__block *g,
                                                const zipfft__thread_coords *k,
                                                const zipfft__expr *kk) {
  /* Both indices are read for kk = 0 as well (a select, no branch): element 1 stands in. */
  const zipfft__expr *first = let(c, g, "kz", bin(c, ZIPFFT__OP_EQ, kk, i32(c, 0)));
  const zipfft__expr *at_k = zipfft__shared_index(
      c, k, rader_index(c, g, zipfft__e_select(c->a, first, i32(c, 1), kk), 0));
  const zipfft__expr *other = bin(c, ZIPFFT__OP_SUB, i32(c, c->s->rader_n), kk);
  const zipfft__expr *at_other = zipfft__shared_index(
      c, k, rader_index(c, g, zipfft__e_select(c->a, first, i32(c, 1), other), 0));
  return (zipfft__merge_target){c->smem, zipfft__e_select(c->a, first, rader_slot(c, g, k), at_k),
                                at_other};
}

/* Rader's stores of element e (e = 0 possible only when i == 0): X[0] from its slot, else
 * rader_output; column: the fused four-step twiddles' column (NULL without them). */
static void emit_rader_store(zipfft__stockham_build *c, zipfft__block *g,
                             const zipfft__thread_coords *k, int i, const zipfft__expr *e,
                             const zipfft__expr *base, const zipfft__expr *column,
                             zipfft__access access) {
  const zipfft__expr *slot = rader_slot(c, g, k);
  zipfft__cval x0 = shared_value(c, g, slot);
  zipfft__block *zero, *rest = branch_on_element_zero(c, g, i, e, &zero);
  if (zero) {
    zipfft__cval y0 = shared_value(c, zero, bin(c, ZIPFFT__OP_ADD, slot, i32(c, 1)));
    zipfft__emit_store_element(c, zero, zipfft__finish_output(c, zero, column, e, y0), base, e,
                               access);
  }
  zipfft__emit_store_element(
      c, rest, zipfft__finish_output(c, rest, column, e, rader_output(c, rest, k, e, x0)), base,
      e, access);
}

/* rader_by_element, after the second FFT: an element read from its transform's slots (X[0]
 * from its own, else x[0] + conj(y[q])) and stored. */
static void store_rader_element(zipfft__stockham_build *c, zipfft__block *in,
                                const zipfft__thread_coords *kf, const zipfft__expr *kk,
                                const zipfft__expr *zero, const zipfft__expr *at,
                                zipfft__access access) {
  const zipfft__expr *slot = rader_slot(c, in, kf);
  zipfft__cval x0 = zipfft__cval_materialize(c->a, in, shared_value(c, in, slot));
  const zipfft__expr *q = rader_index(c, in, nonzero_element(c, kk, zero), 1);
  const zipfft__expr *from = zipfft__e_select(c->a, zero, bin(c, ZIPFFT__OP_ADD, slot, i32(c, 1)),
                                              zipfft__shared_index(c, kf, q));
  zipfft__cval y = zipfft__cval_materialize(c->a, in, shared_value(c, in, from));
  zipfft__cval out = {zipfft__e_select(c->a, zero, y.re, bin(c, ZIPFFT__OP_ADD, x0.re, y.re)),
                      zipfft__e_select(c->a, zero, y.im, bin(c, ZIPFFT__OP_SUB, x0.im, y.im))};
  out = zipfft__finish_output(c, in, NULL, kk, out);
  zipfft__s_store_complex(c->a, in, c->out, at, out.re, out.im, access, c->s->out_storage);
}

/* The store phase of kernels whose last pass left the result in shared memory (natural
 * order, or digit-reversed after passes in place): element e of each transform is read
 * back and stored, with neighbouring threads on neighbouring transforms when store_major. */
void zipfft__emit_staged_stores(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "stores from shared memory");
  if (c->s->rader_by_element) {
    for_each_block_element(c, body, store_rader_element);
    return;
  }
  zipfft__thread_coords k =
      zipfft__emit_coords_mapped(c, body, c->s->store_major || c->s->fft_major);
  const zipfft__expr *base = zipfft__batch_offset(c, body, &k, 1);
  const zipfft__expr *column = zipfft__large_twiddle_column(c, body, &k);
  if (c->s->bluestein_store) c->store_position = zipfft__bluestein_base(c, body, &k);
  int64_t limit = zipfft__logical_length(c->s), extent = c->s->store_extent;
  if (c->s->kind == ZIPFFT__KIND_R2C) limit = limit / 2 + 1;
  if (c->s->kind == ZIPFFT__KIND_C2R_HALF) extent = (extent + 1) / 2; /* reals, in pairs */
  if (extent > 0 && extent < limit) limit = extent;
  /* one FFT in place: every slot in order (no bank conflicts), each holding element e */
  int reversed = c->s->passes_in_place && !zipfft__two_ffts(c->s);
  int64_t slots = reversed ? c->s->n : limit;
  zipfft__block *targets[2];
  open_alignment_branches(c, body, targets);
  for (int v = 0; v < 2; v++)
    for (int i = 0; i < elements_per_thread(c->s, slots); i++) {
      const zipfft__expr *slot, *e;
      zipfft__block *g = open_element(c, targets[v], &k, i, slots, &slot);
      e = slot;
      if (reversed) {
        e = let(c, g, "e", zipfft__in_place_element(c, g, slot));
        if (limit < slots) g = zipfft__open_within(c, g, e, limit);
      }
      if (c->s->rader_n > 0) {
        emit_rader_store(c, g, &k, i, e, base, column, access_of_branch[v]);
        continue;
      }
      g = zipfft__open_stored_position(c, g, e);
      zipfft__cval y = shared_value(c, g, zipfft__shared_index(c, &k, slot));
      zipfft__emit_store_element(c, g, zipfft__finish_output(c, g, column, e, y), base, e,
                                 access_of_branch[v]);
    }
}
