/* build_real_split.c - the split (R2C) and merge (C2R) phases of the half-length real
 * kinds: z = x[2m] + i x[2m+1] and Z = FFT_n(z), paired as elements k and n-k through
 * shared memory in the same kernel as the Stockham passes (mirrored R2C kernels split in
 * registers instead: build_mirrored.c). */
#include "gen/build_context.h"
#include "gen/butterfly.h"
#include "plan/twiddle.h"

static zipfft__cval cadd(zipfft__stockham_build *c, zipfft__cval x, zipfft__cval y) {
  return (zipfft__cval){bin(c, ZIPFFT__OP_ADD, x.re, y.re), bin(c, ZIPFFT__OP_ADD, x.im, y.im)};
}
static zipfft__cval csub(zipfft__stockham_build *c, zipfft__cval x, zipfft__cval y) {
  return (zipfft__cval){bin(c, ZIPFFT__OP_SUB, x.re, y.re), bin(c, ZIPFFT__OP_SUB, x.im, y.im)};
}
static zipfft__cval cconj(zipfft__stockham_build *c, zipfft__cval x) {
  return (zipfft__cval){x.re, zipfft__e_neg(c->a, x.im)};
}
/* x * i */
static zipfft__cval ctimes_i(zipfft__stockham_build *c, zipfft__cval x) {
  return (zipfft__cval){zipfft__e_neg(c->a, x.im), x.re};
}
static zipfft__cval cscale(zipfft__stockham_build *c, zipfft__cval x, long double v) {
  return (zipfft__cval){bin(c, ZIPFFT__OP_MUL, x.re, zipfft__e_real(c->a, v)),
                        bin(c, ZIPFFT__OP_MUL, x.im, zipfft__e_real(c->a, v))};
}

zipfft__cval zipfft__split_twiddle(zipfft__stockham_build *c, zipfft__block *b,
                                  const zipfft__expr *k) {
  zipfft__table_layout l = zipfft__table_layout_of(c->s);
  if (l.split_shift > 0)
    return zipfft__two_level_value(c, b, l.split, l.split + ((int64_t)1 << l.split_shift),
                                   l.split_shift, zipfft__e_cast(c->a, ZIPFFT__T_I64, k));
  const zipfft__expr *at =
      zipfft__e_cast(c->a, ZIPFFT__T_I64, bin(c, ZIPFFT__OP_ADD, k, i32(c, l.split)));
  return zipfft__load_value(c, b, c->tw, at, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
}

/* The split twiddle of a thread's pair b, kk = t + b T: w0 = W^t (loaded once per thread)
 * times the constant W^(b T). One table load per thread instead of one per pair: the
 * merge's loads made its warps wait on the load/store unit (H100, fp32 C2R 32768: LG
 * throttle 17% of the warps' cycles against the R2C's 11%). */
static zipfft__cval pair_twiddle(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval w0,
                                 int b) {
  return zipfft__times_root(c, g, w0, (int64_t)b * c->s->threads_per_fft,
                            2 * zipfft__half_points(c->s));
}

zipfft__cval zipfft__times_root(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval w,
                                int64_t k, int64_t n) {
  if (k % n == 0) return w;
  long double cr, si;
  zipfft__unit_root(k, n, &cr, &si);
  zipfft__cval step = {zipfft__e_real(c->a, cr),
                       zipfft__e_real(c->a, (long double)c->s->sign * si)};
  return zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, w, step));
}

/* W^t of the thread's first pair, t < T <= n/2 (inside the table for every thread). */
static zipfft__cval thread_twiddle(zipfft__stockham_build *c, zipfft__block *body,
                                   const zipfft__thread_coords *k) {
  return zipfft__cval_materialize(c->a, body, zipfft__split_twiddle(c, body, k->t));
}

/* n - k, or 0 for k = 0 (the partner of element k modulo n). */
static const zipfft__expr *partner(zipfft__stockham_build *c, const zipfft__expr *k) {
  return zipfft__e_select(c->a, bin(c, ZIPFFT__OP_EQ, k, i32(c, 0)), i32(c, 0),
                          bin(c, ZIPFFT__OP_SUB, i32(c, zipfft__half_points(c->s)), k));
}

/* Pair index kk = t + b*T of this thread, and the block to fill when it is <= n/2 and the
 * transform is active. */
static zipfft__block *open_pair(zipfft__stockham_build *c, zipfft__block *body,
                                const zipfft__thread_coords *k, int b, const zipfft__expr **kk) {
  *kk = let(c, body, "k", bin(c, ZIPFFT__OP_ADD, k->t, i32(c, (int64_t)b * c->s->threads_per_fft)));
  const zipfft__expr *ok = bin(c, ZIPFFT__OP_AND, k->active,
                               bin(c, ZIPFFT__OP_LE, *kk, i32(c, zipfft__half_points(c->s) / 2)));
  return open_if(c, body, ok);
}

/* Stores output element k (of n + 1) of the transform at base, where the store extent
 * allows. */
static void store_element(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                          const zipfft__expr *k, zipfft__cval x) {
  int64_t extent = c->s->store_extent;
  zipfft__block *within = extent > 0 ? open_if(c, g, bin(c, ZIPFFT__OP_LT, k, i32(c, extent))) : g;
  zipfft__block *targets[2];
  open_alignment_branches(c, within, targets);
  for (int v = 0; v < 2; v++)
    zipfft__s_store_complex(c->a, targets[v], c->out,
                            zipfft__global_offset(c, base, k, c->s->out_stride), x.re, x.im,
                            access_of_branch[v], c->s->out_storage);
}

/* Stores the split results X[kk] and (unless it is the same element) X[n - kk]. */
static void store_split(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                        const zipfft__expr *kk, zipfft__cval x1, zipfft__cval x2) {
  const zipfft__expr *other = bin(c, ZIPFFT__OP_SUB, i32(c, zipfft__half_points(c->s)), kk);
  store_element(c, g, base, kk, x1);
  store_element(c, open_if(c, g, bin(c, ZIPFFT__OP_NE, other, kk)), base, other, x2);
}

/* The split of pair kk from a = Z[kk], z = Z[n - kk] and w = W^kk, each scaled: *x1 =
 * X[kk] = Xe + w Xo and *x2 = X[n - kk] = conj(Xe - w Xo). */
static void split_values(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval a,
                         zipfft__cval z, zipfft__cval w, zipfft__cval *x1, zipfft__cval *x2) {
  const zipfft__expr *scale = zipfft__e_real(c->a, c->s->scale);
  zipfft__cval even = zipfft__cval_materialize(c->a, g, cscale(c, cadd(c, a, cconj(c, z)), 0.5L));
  zipfft__cval d = csub(c, a, cconj(c, z)); /* Xo = d / (2i) = (d.im, -d.re) / 2 */
  zipfft__cval odd = zipfft__cval_materialize(
      c->a, g, cscale(c, (zipfft__cval){d.im, zipfft__e_neg(c->a, d.re)}, 0.5L));
  zipfft__cval t = zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, odd, w));
  zipfft__cval sum = zipfft__cval_materialize(c->a, g, cadd(c, even, t));
  zipfft__cval diff = zipfft__cval_materialize(c->a, g, cconj(c, csub(c, even, t)));
  *x1 =
      (zipfft__cval){bin(c, ZIPFFT__OP_MUL, sum.re, scale), bin(c, ZIPFFT__OP_MUL, sum.im, scale)};
  *x2 = (zipfft__cval){bin(c, ZIPFFT__OP_MUL, diff.re, scale),
                       bin(c, ZIPFFT__OP_MUL, diff.im, scale)};
}

void zipfft__emit_split_pair(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                             const zipfft__expr *kk, zipfft__cval a, zipfft__cval z,
                             const zipfft__cval *twiddle) {
  zipfft__cval w = twiddle ? *twiddle : zipfft__split_twiddle(c, g, kk);
  zipfft__cval x1, x2;
  split_values(c, g, a, z, w, &x1, &x2);
  store_split(c, g, base, kk, x1, x2);
}

const zipfft__expr *zipfft__split_partner(zipfft__stockham_build *c, const zipfft__expr *k) {
  return partner(c, k);
}

/* R2C_HALF: X[k] = Xe + W^k Xo and X[n-k] = conj(Xe - W^k Xo), where Xe = (Z[k] +
 * conj(Z[n-k]))/2 and Xo = (Z[k] - conj(Z[n-k]))/(2i), for k = 0..n/2. */
void zipfft__emit_split(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *base = zipfft__batch_offset(c, body, &k, 1);
  int pairs = (int)(zipfft__half_points(c->s) / 2 + 1),
      per = (pairs + c->s->threads_per_fft - 1) / c->s->threads_per_fft;
  zipfft__cval w0 = c->s->rader_n > 0 ? (zipfft__cval){0} : thread_twiddle(c, body, &k);
  for (int b = 0; b < per; b++) {
    const zipfft__expr *kk;
    zipfft__block *g = open_pair(c, body, &k, b, &kk);
    if (c->s->rader_n > 0) { /* Z in Rader's slots */
      zipfft__emit_rader_split_pair(c, g, &k, b, kk, base);
      continue;
    }
    zipfft__cval a = zipfft__load_value(c, g, c->smem, zipfft__shared_index(c, &k, kk),
                                        ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    zipfft__cval z = zipfft__load_value(c, g, c->smem, zipfft__shared_index(c, &k, partner(c, kk)),
                                        ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    zipfft__cval w = pair_twiddle(c, g, w0, b);
    zipfft__emit_split_pair(c, g, base, kk, a, z, &w);
  }
}

/* R2C_HALF split_by_element: element e = tid + i B of the block's F (n + 1) outputs (B
 * threads) is element k = e mod (n + 1) of transform f = e / (n + 1); its thread splits
 * pair kk = min(k, n - k) and stores the half that is k. */
void zipfft__emit_split_by_element(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "split into the half spectrum, by output element");
  int64_t n = zipfft__half_points(c->s), row = n + 1;
  int64_t total = (int64_t)c->s->ffts_per_block * row, threads = zipfft__c2c_block_threads(c->s);
  for (int64_t i = 0; i * threads < total; i++) {
    const zipfft__expr *e =
        let(c, body, "e", bin(c, ZIPFFT__OP_ADD, zipfft__e_thread(c->a), i32(c, i * threads)));
    zipfft__block *in = open_if(c, body, bin(c, ZIPFFT__OP_LT, e, i32(c, total)));
    const zipfft__expr *f = let(c, in, "f", bin(c, ZIPFFT__OP_DIV, e, i32(c, row)));
    const zipfft__expr *k =
        let(c, in, "k", bin(c, ZIPFFT__OP_SUB, e, bin(c, ZIPFFT__OP_MUL, f, i32(c, row))));
    zipfft__thread_coords at = zipfft__emit_coords_of(c, in, i32(c, 0), f);
    zipfft__block *g = open_if(c, in, at.active);
    const zipfft__expr *base = zipfft__batch_offset(c, g, &at, 1);
    const zipfft__expr *low = let(c, g, "lo", bin(c, ZIPFFT__OP_LE, k, i32(c, n / 2)));
    const zipfft__expr *kk =
        let(c, g, "kk", zipfft__e_select(c->a, low, k, bin(c, ZIPFFT__OP_SUB, i32(c, n), k)));
    zipfft__cval a = zipfft__load_value(c, g, c->smem, zipfft__shared_index(c, &at, kk),
                                        ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    zipfft__cval z = zipfft__load_value(c, g, c->smem, zipfft__shared_index(c, &at, partner(c, kk)),
                                        ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    zipfft__cval x1, x2;
    split_values(c, g, a, z, zipfft__split_twiddle(c, g, kk), &x1, &x2);
    zipfft__cval x = {zipfft__e_select(c->a, low, x1.re, x2.re),
                      zipfft__e_select(c->a, low, x1.im, x2.im)};
    store_element(c, g, base, k, x);
  }
}

/* Loads X[at[0]] and X[at[1]] of the half spectrum of the row at base (global memory) into
 * dst, in both alignment branches; values beyond the load extent keep their zeros. */
static void load_pair_global(zipfft__stockham_build *c, zipfft__block *g, const zipfft__cval **dst,
                             const zipfft__expr *base, const zipfft__expr **at) {
  zipfft__block *targets[2];
  open_alignment_branches(c, g, targets);
  int64_t extent = c->s->load_extent;
  for (int v = 0; v < 2; v++)
    for (int i = 0; i < 2; i++)
      zipfft__s_load_complex(
          c->a,
          extent > 0 ? open_if(c, targets[v], bin(c, ZIPFFT__OP_LT, at[i], i32(c, extent)))
                     : targets[v],
          dst[i]->re->u.var, dst[i]->im->u.var, c->in,
          zipfft__global_offset(c, base, at[i], c->s->in_stride), access_of_branch[v],
          c->s->in_storage);
}

void zipfft__load_merge_pair(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                             const zipfft__expr *kk, zipfft__cval p, zipfft__cval q,
                             int may_be_dc) {
  const zipfft__cval *dst[2] = {&p, &q};
  const zipfft__expr *at[2] = {kk, bin(c, ZIPFFT__OP_SUB, i32(c, zipfft__half_points(c->s)), kk)};
  if (c->s->stage_io) { /* base: the staged row's slot */
    for (int i = 0; i < 2; i++)
      zipfft__s_load_complex(c->a, g, dst[i]->re->u.var, dst[i]->im->u.var, c->smem,
                             bin(c, ZIPFFT__OP_ADD, base, at[i]), ZIPFFT__ACCESS_VECTOR,
                             ZIPFFT_STORAGE_DEFAULT);
  } else {
    load_pair_global(c, g, dst, base, at);
  }
  /* The DC and Nyquist terms (the pair of kk = 0) must be real: their imaginary parts are
   * ignored, as the full-length C2R does by keeping the real part of its result. */
  if (!may_be_dc) return;
  zipfft__block *dc = open_if(c, g, bin(c, ZIPFFT__OP_EQ, kk, i32(c, 0)));
  for (int i = 0; i < 2; i++)
    zipfft__s_assign(c->a, dc, dst[i]->im->u.var, zipfft__e_real(c->a, 0));
}

zipfft__cval zipfft__merge_value(zipfft__stockham_build *c, zipfft__block *g, zipfft__cval p,
                                 zipfft__cval q, zipfft__cval w) {
  zipfft__cval b1 =
      zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, csub(c, p, cconj(c, q)), w));
  return cadd(c, cadd(c, p, cconj(c, q)), ctimes_i(c, b1));
}

void zipfft__emit_merge_pair(zipfft__stockham_build *c, zipfft__block *g,
                             const zipfft__merge_target *to, const zipfft__expr *kk, zipfft__cval p,
                             zipfft__cval q, const zipfft__cval *twiddle) {
  zipfft__cval w = twiddle ? *twiddle : zipfft__split_twiddle(c, g, kk);
  zipfft__cval z1 = zipfft__merge_value(c, g, p, q, w);
  zipfft__s_store_complex(c->a, g, to->ptr, to->at_k, z1.re, z1.im, ZIPFFT__ACCESS_VECTOR,
                          ZIPFFT_STORAGE_DEFAULT);
  const zipfft__expr *other = bin(c, ZIPFFT__OP_SUB, i32(c, zipfft__half_points(c->s)), kk);
  zipfft__block *second = open_if(c, g,
                                  bin(c, ZIPFFT__OP_AND, bin(c, ZIPFFT__OP_NE, kk, i32(c, 0)),
                                      bin(c, ZIPFFT__OP_NE, other, kk)));
  zipfft__cval w2 = {zipfft__e_neg(c->a, w.re), w.im}; /* W^(n-k) = -conj(W^k) */
  zipfft__cval b2 =
      zipfft__cval_materialize(c->a, second, zipfft__cval_mul(c->a, csub(c, q, cconj(c, p)), w2));
  zipfft__cval z2 = cadd(c, cadd(c, q, cconj(c, p)), ctimes_i(c, b2));
  zipfft__s_store_complex(c->a, second, to->ptr, to->at_other, z2.re, z2.im, ZIPFFT__ACCESS_VECTOR,
                          ZIPFFT_STORAGE_DEFAULT);
}

/* C2R_HALF: Z[k] = X[k] + conj(X[n-k]) + i W^k (X[k] - conj(X[n-k])) for k = 0..n-1, from
 * the pairs (k, n-k), k = 0..n/2, written to shared memory (for Rader's kernels straight
 * into its permuted slots). Every pair's loads are issued
 * before any arithmetic (memory-level parallelism, as in a pass's loads). */
void zipfft__emit_merge(zipfft__stockham_build *c, zipfft__block *body) {
  enum { max_pairs = 64 };
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *base =
      c->s->stage_io ? zipfft__stage_io_base(c, body, &k, 0) : zipfft__batch_offset(c, body, &k, 0);
  int pairs = (int)(zipfft__half_points(c->s) / 2 + 1),
      per = (pairs + c->s->threads_per_fft - 1) / c->s->threads_per_fft;
  const zipfft__expr *kk[max_pairs];
  zipfft__cval p[max_pairs], q[max_pairs];
  if (per > max_pairs) {
    zipfft__arena_set_error(c->a, "too many merge pairs per thread");
    return;
  }
  for (int b = 0; b < per; b++) {
    p[b] = zipfft__zero_value(c, body, "m", 0);
    q[b] = zipfft__zero_value(c, body, "m", 0);
    zipfft__block *g = open_pair(c, body, &k, b, &kk[b]);
    zipfft__load_merge_pair(c, g, base, kk[b], p[b], q[b], b == 0); /* kk = t + b T */
  }
  zipfft__cval w0 = thread_twiddle(c, body, &k);
  for (int b = 0; b < per; b++) {
    const zipfft__expr *ok =
        bin(c, ZIPFFT__OP_AND, k.active,
            bin(c, ZIPFFT__OP_LE, kk[b], i32(c, zipfft__half_points(c->s) / 2)));
    zipfft__block *g = open_if(c, body, ok);
    zipfft__merge_target to =
        c->s->rader_n > 0
            ? zipfft__rader_merge_target(c, g, &k, kk[b])
            : (zipfft__merge_target){
                  c->smem, zipfft__shared_index(c, &k, kk[b]),
                  zipfft__shared_index(
                      c, &k, bin(c, ZIPFFT__OP_SUB, i32(c, zipfft__half_points(c->s)), kk[b]))};
    zipfft__cval w = pair_twiddle(c, g, w0, b);
    zipfft__emit_merge_pair(c, g, &to, kk[b], p[b], q[b], &w);
  }
}

/* Element e of Z = FFT input of a C2R_HALF kernel that merges as it loads: Z[e] from the
 * loads of X[e] and X[L - e] (L the half length), for element first + stride r m of each
 * slot r of the pass (stride the cluster size, first j cluster + rank; 1 and j without a
 * cluster). Every X value is read twice, once for each of its pair's elements, which the
 * L2 serves; in exchange there is no merge phase, and so no round through shared memory.
 * W^(first + stride r m) = W^first exp(sign 2 pi i r / 2 radix), since stride m = L / radix. */
void zipfft__emit_merge_loads(zipfft__stockham_build *c, zipfft__block *g, const pass_shape *ps,
                              const zipfft__expr *j, const zipfft__cval *x,
                              const zipfft__expr *base, zipfft__access access) {
  int stride = c->s->cluster > 1 ? c->s->cluster : 1;
  int64_t points = zipfft__transform_points(c->s);
  const zipfft__expr *first = stride > 1 ? let(c, g, "j", zipfft__cluster_element(c, j)) : j;
  zipfft__cval w0 = zipfft__cval_materialize(c->a, g, zipfft__split_twiddle(c, g, first));
  for (int r = 0; r < ps->radix; r++) {
    const zipfft__expr *e =
        let(c, g, "e", bin(c, ZIPFFT__OP_ADD, first, i32(c, (int64_t)r * stride * ps->m)));
    const zipfft__expr *at[2] = {e, bin(c, ZIPFFT__OP_SUB, i32(c, points), e)};
    zipfft__cval p[2];
    for (int h = 0; h < 2; h++) {
      p[h] = zipfft__zero_value(c, g, "m", 0);
      zipfft__s_load_complex(c->a, g, p[h].re->u.var, p[h].im->u.var, c->in,
                             zipfft__global_offset(c, base, at[h], c->s->in_stride), access,
                             c->s->in_storage);
    }
    if (r == 0) { /* DC and Nyquist (e = 0) are real: their imaginary parts are ignored */
      zipfft__block *dc = open_if(c, g, bin(c, ZIPFFT__OP_EQ, e, i32(c, 0)));
      for (int h = 0; h < 2; h++)
        zipfft__s_assign(c->a, dc, p[h].im->u.var, zipfft__e_real(c->a, 0));
    }
    zipfft__cval w = zipfft__times_root(c, g, w0, r, 2 * ps->radix);
    zipfft__cval z = zipfft__cval_materialize(c->a, g, zipfft__merge_value(c, g, p[0], p[1], w));
    zipfft__s_assign(c->a, g, x[r].re->u.var, z.re);
    zipfft__s_assign(c->a, g, x[r].im->u.var, z.im);
  }
}

/* Table entry `at` of the paired_rows twiddles (twiddle.h: W^r at r, then exp(sign 2 pi i k /
 * 2 n_row) after rows/2 + 1 entries). */
static zipfft__cval row_split_twiddle(zipfft__stockham_build *c, zipfft__block *g,
                                      const zipfft__expr *row, const zipfft__expr *k) {
  int64_t at = zipfft__table_layout_of(c->s).split, rows = c->s->paired_rows;
  zipfft__cval wr = zipfft__table_value(c, g, at, row);
  zipfft__cval wk = zipfft__table_value(c, g, at + rows / 2 + 1, k);
  return zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, wr, wk));
}

/* Value of element e of the block's transform f in shared memory. */
static zipfft__cval row_element(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *f,
                                const zipfft__expr *e) {
  zipfft__thread_coords at = {.f = f};
  return zipfft__load_value(c, g, c->smem, zipfft__shared_index(c, &at, e), ZIPFFT__ACCESS_VECTOR,
                            ZIPFFT_STORAGE_DEFAULT);
}

/* Where a thread of a paired_rows kernel's split or merge phase stands: slot sigma (rows s
 * and R - s, transforms sigma and sigma + F/2), its first pair p0, the user's row at base
 * (input for the merge, output for the split), row s and whether it is 0. */
typedef struct row_slot {
  const zipfft__expr *sigma, *p0, *base, *row, *dc;
  zipfft__block *active;
} row_slot;

static row_slot open_row_slot(zipfft__stockham_build *c, zipfft__block *body, int out) {
  int half = c->s->ffts_per_block / 2;
  row_slot r;
  const zipfft__expr *tid = zipfft__e_thread(c->a);
  r.sigma = let_bounded(c, body, "sg", bin(c, ZIPFFT__OP_MOD, tid, i32(c, half)), half);
  r.p0 = let(c, body, "p", bin(c, ZIPFFT__OP_DIV, tid, i32(c, half)));
  zipfft__thread_coords k = zipfft__emit_coords_of(c, body, i32(c, 0), r.sigma);
  r.base = zipfft__batch_offset(c, body, &k, out);
  r.row = let(
      c, body, "r",
      zipfft__e_cast(c->a, ZIPFFT__T_I32, bin(c, ZIPFFT__OP_MOD, k.g, i64(c, c->s->paired_rows))));
  r.dc = let(c, body, "d", bin(c, ZIPFFT__OP_EQ, r.row, i32(c, 0)));
  r.active = open_if(c, body, k.active);
  return r;
}

/* Pair p of a slot: Z[e] = element ka of transform fa (row ra, e = ra + R ka) and its
 * partner Z[L - e] = element kz of transform fz. */
typedef struct row_pair {
  const zipfft__expr *fa, *ka, *fz, *kz, *ra, *e;
} row_pair;

/* Opens the block of pair p = p0 + i * 2T of the slot (guarded: n pairs, n + 1 in slot 0)
 * and fills *q. Slot 0 holds rows 0 and R/2, each its own partner: p <= n/2 pairs row 0's
 * k = p with n - p, p > n/2 row R/2's k = p - n/2 - 1 with n - 1 - k. */
static zipfft__block *open_row_pair(zipfft__stockham_build *c, const row_slot *r, int64_t i,
                                    row_pair *q) {
  int64_t n = c->s->n, rows = c->s->paired_rows;
  int half = c->s->ffts_per_block / 2;
  const zipfft__expr *p = let(c, r->active, "p",
                              bin(c, ZIPFFT__OP_ADD, r->p0, i32(c, i * 2 * c->s->threads_per_fft)));
  zipfft__block *g = open_if(
      c, r->active,
      bin(c, ZIPFFT__OP_OR, bin(c, ZIPFFT__OP_LT, p, i32(c, n)),
          bin(c, ZIPFFT__OP_AND, r->dc, bin(c, ZIPFFT__OP_EQ, p, i32(c, n)))));
  const zipfft__expr *upper =
      let(c, g, "u", bin(c, ZIPFFT__OP_AND, r->dc, bin(c, ZIPFFT__OP_LT, i32(c, n / 2), p)));
  const zipfft__expr *lower = bin(c, ZIPFFT__OP_AND, r->dc, bin(c, ZIPFFT__OP_LE, p, i32(c, n / 2)));
  q->ka = let(c, g, "ka",
              zipfft__e_select(c->a, upper, bin(c, ZIPFFT__OP_SUB, p, i32(c, n / 2 + 1)), p));
  q->fa = let(c, g, "fa", zipfft__e_select(c->a, upper, i32(c, half), r->sigma));
  const zipfft__expr *low_partner =
      zipfft__e_select(c->a, bin(c, ZIPFFT__OP_EQ, q->ka, i32(c, 0)), i32(c, 0),
                       bin(c, ZIPFFT__OP_SUB, i32(c, n), q->ka));
  q->kz = let(c, g, "kz",
              zipfft__e_select(c->a, lower, low_partner, bin(c, ZIPFFT__OP_SUB, i32(c, n - 1), q->ka)));
  q->fz = zipfft__e_select(c->a, r->dc, q->fa, bin(c, ZIPFFT__OP_ADD, r->sigma, i32(c, half)));
  q->ra = let(c, g, "ra", zipfft__e_select(c->a, upper, i32(c, rows / 2), r->row));
  q->e = let(c, g, "e", bin(c, ZIPFFT__OP_ADD, q->ra, bin(c, ZIPFFT__OP_MUL, q->ka, i32(c, rows))));
  return g;
}

/* R2C_HALF paired_rows: after the row FFTs (in shared memory), thread (sigma, p) splits
 * pair p of slot sigma and stores X[e] and X[L - e], e = s + R p: neighbouring threads on
 * neighbouring rows, so the stores are runs of F/2 values (and their mirrors). */
void zipfft__emit_split_rows(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "split of the row pairs into the half spectrum");
  row_slot r = open_row_slot(c, body, 1);
  for (int64_t i = 0; i * 2 * c->s->threads_per_fft <= c->s->n; i++) {
    row_pair q;
    zipfft__block *g = open_row_pair(c, &r, i, &q);
    zipfft__cval a = row_element(c, g, q.fa, q.ka), z = row_element(c, g, q.fz, q.kz);
    zipfft__cval w = row_split_twiddle(c, g, q.ra, q.ka);
    zipfft__emit_split_pair(c, g, r.base, q.e, a, z, &w);
  }
}

/* C2R_HALF paired_rows (a four-step's first kernel, its columns the rows): thread (sigma,
 * p) loads X[e] and X[L - e] of pair p of slot sigma and writes Z[e] and Z[L - e] into the
 * rows' shared memory, from which the passes start. */
void zipfft__emit_merge_rows(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "merge of the half spectrum into the row pairs");
  row_slot r = open_row_slot(c, body, 0);
  int64_t points = zipfft__half_points(c->s);
  for (int64_t i = 0; i * 2 * c->s->threads_per_fft <= c->s->n; i++) {
    row_pair q;
    zipfft__block *g = open_row_pair(c, &r, i, &q);
    zipfft__cval x = zipfft__zero_value(c, g, "m", 0), y = zipfft__zero_value(c, g, "m", 0);
    zipfft__load_merge_pair(c, g, r.base, q.e, x, y, 1);
    zipfft__cval w = row_split_twiddle(c, g, q.ra, q.ka);
    zipfft__thread_coords at = {.f = q.fa};
    zipfft__cval z1 = zipfft__merge_value(c, g, x, y, w);
    zipfft__s_store_complex(c->a, g, c->smem, zipfft__shared_index(c, &at, q.ka), z1.re, z1.im,
                            ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    const zipfft__expr *other = bin(c, ZIPFFT__OP_SUB, i32(c, points), q.e);
    zipfft__block *second = open_if(c, g,
                                    bin(c, ZIPFFT__OP_AND, bin(c, ZIPFFT__OP_NE, q.e, i32(c, 0)),
                                        bin(c, ZIPFFT__OP_NE, other, q.e)));
    zipfft__cval w2 = {zipfft__e_neg(c->a, w.re), w.im}; /* W^(L-e) = -conj(W^e) */
    zipfft__cval z2 = zipfft__merge_value(c, second, y, x, w2);
    zipfft__thread_coords partner = {.f = q.fz};
    zipfft__s_store_complex(c->a, second, c->smem, zipfft__shared_index(c, &partner, q.kz), z2.re,
                            z2.im, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
  }
}
