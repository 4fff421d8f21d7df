/* build_cluster.c - the body of a cluster kernel: one transform over the blocks of a
 * thread-block cluster, its transpose through their distributed shared memory (with the
 * split or merge of a half-length real transform). */
#include "gen/build_context.h"
#include "gen/butterfly.h"

/* The shared arrays of every block of the cluster, in rank order. */
static void declare_blocks(zipfft__stockham_build *c, zipfft__block *body,
                           const zipfft__var **blocks) {
  for (int b = 0; b < c->s->cluster; b++) {
    blocks[b] = zipfft__var_new(c->a, "rs", ZIPFFT__T_SHARED);
    zipfft__s_decl(c->a, body, blocks[b], zipfft__e_rank_shared(c->a, i32(c, b)));
  }
}

/* What the phase after the blocks' FFTs starts from: the thread's coordinates (neighbouring
 * threads on neighbouring columns or on neighbouring k, as the outputs lie:
 * zipfft__cluster_stores_by_column), its output row, every block's shared array, and the
 * first k of this block (rank * share). */
typedef struct cluster_phase {
  zipfft__thread_coords k;
  const zipfft__expr *base, *first;
  const zipfft__var *blocks[ZIPFFT__MAX_RADIX];
} cluster_phase;

static cluster_phase open_cluster_phase(zipfft__stockham_build *c, zipfft__block *body,
                                        const char *comment, int64_t share) {
  cluster_phase p = {0};
  zipfft__s_comment(c->a, body, comment);
  p.k = zipfft__emit_coords_mapped(c, body, zipfft__cluster_stores_by_column(c->s));
  p.base = zipfft__batch_offset(c, body, &p.k, 1);
  declare_blocks(c, body, p.blocks);
  p.first = let(c, body, "kf", bin(c, ZIPFFT__OP_MUL, zipfft__e_rank(c->a), i32(c, share)));
  return p;
}

/* tw[b] = exp(sign 2 pi i b k / (n cluster)), b = 1..cluster-1: block b's twiddle at k, from
 * the two-level table of length L (n cluster, or a column kernel's four-step twiddle length,
 * a multiple of it: the exponent is then scaled by L / (n cluster)). */
static void cluster_twiddles(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *kk,
                             zipfft__cval *tw) {
  int64_t scale = zipfft__large_twiddle_length(c->s) / zipfft__transform_points(c->s);
  for (int b = 1; b < c->s->cluster; b++)
    tw[b] = zipfft__large_twiddle(c, g, i64(c, b * scale), kk);
}

/* z[q] = sum_b exp(sign 2 pi i b q / cluster) tw[b] y_b[k], y_b[k] block b's FFT output k
 * (element kk of its shared memory, read through p's arrays) and tw[b] its twiddle at k
 * (cluster_twiddles): outputs k + n q of the whole transform. */
static void cluster_dft(zipfft__stockham_build *c, zipfft__block *g, const cluster_phase *p,
                        const zipfft__expr *kk, const zipfft__cval *tw, zipfft__cval *z) {
  const zipfft__expr *at = let(c, g, "s", zipfft__shared_index(c, &p->k, kk));
  zipfft__cval y[ZIPFFT__MAX_RADIX];
  for (int b = 0; b < c->s->cluster; b++) {
    y[b] =
        zipfft__load_value(c, g, p->blocks[b], at, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
    if (b > 0) y[b] = zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, y[b], tw[b]));
  }
  zipfft__emit_dft(c->a, g, c->s->sign, c->s->cluster, y, z);
}

/* A column kernel's four-step twiddle in its cluster stores: exp(sign 2 pi i m e / L) for
 * column m (NULL: none) and output e = k + n q, read from the table for every
 * twiddle_chain-th q (from q = 0) and, with a twiddle chain (twiddle_chain > 1), made for
 * the others from the one before times `step` = exp(sign 2 pi i m n / L), read once. */
typedef struct store_twiddle {
  const zipfft__expr *column;
  int chained;
  zipfft__cval step;
} store_twiddle;

static store_twiddle open_store_twiddle(zipfft__stockham_build *c, zipfft__block *blk,
                                        const zipfft__thread_coords *k) {
  store_twiddle w = {.column = zipfft__large_twiddle_column(c, blk, k)};
  w.chained = w.column && c->s->twiddle_chain > 1;
  if (w.chained) w.step = zipfft__large_twiddle(c, blk, w.column, i64(c, c->s->n));
  return w;
}

/* Stores z[q] as outputs k + n q, q < cluster, each finished (zipfft__finish_output) with
 * its four-step twiddle when the kernel has one. */
static void store_cluster_outputs(zipfft__stockham_build *c, zipfft__block *g,
                                  const cluster_phase *p, const store_twiddle *tw,
                                  const zipfft__expr *kk, const zipfft__cval *z,
                                  zipfft__access access) {
  zipfft__cval w = {0};
  for (int q = 0; q < c->s->cluster; q++) {
    const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, kk, i32(c, q * c->s->n));
    zipfft__cval y;
    if (tw->chained) {
      w = q % c->s->twiddle_chain == 0
              ? zipfft__large_twiddle(c, g, tw->column, e)
              : zipfft__cval_materialize(c->a, g, zipfft__cval_mul(c->a, w, tw->step));
      y = zipfft__finish_output_twiddled(c, g, &w, e, z[q]);
    } else {
      y = zipfft__finish_output(c, g, tw->column, e, z[q]);
    }
    zipfft__emit_store_element(c, g, y, p->base, e, access);
  }
}

/* Cluster kernels, after every block's FFT left its n outputs in natural order in its
 * shared memory: block rank takes n / cluster of the k, reads element k of every block b
 * of the cluster, multiplies it by exp(sign 2 pi i b k / (n * cluster)),
 * runs the cluster-point DFT over b and stores outputs k + n * q. Neighbouring threads
 * take neighbouring k (rows, and columns stored along k) or neighbouring columns at the
 * same k (other column kernels), so every store is coalesced. */
static void emit_cluster_stores(zipfft__stockham_build *c, zipfft__block *body) {
  int64_t share = c->s->n / c->s->cluster, threads = c->s->threads_per_fft;
  cluster_phase p = open_cluster_phase(
      c, body, "cluster: cluster-point DFTs across the blocks' shared memory", share);
  zipfft__block *active = open_if(c, body, p.k.active), *targets[2];
  store_twiddle tw = open_store_twiddle(c, active, &p.k);
  open_alignment_branches(c, active, targets);
  for (int v = 0; v < 2; v++)
    for (int64_t i = 0; i * threads < share; i++) {
      const zipfft__expr *offset = bin(c, ZIPFFT__OP_ADD, p.k.t, i32(c, i * threads));
      zipfft__block *g = (i + 1) * threads <= share
                             ? targets[v]
                             : open_if(c, targets[v], bin(c, ZIPFFT__OP_LT, offset, i32(c, share)));
      const zipfft__expr *kk = let(c, g, "k", bin(c, ZIPFFT__OP_ADD, p.first, offset));
      zipfft__cval z[ZIPFFT__MAX_RADIX], btw[ZIPFFT__MAX_RADIX];
      cluster_twiddles(c, g, kk, btw);
      cluster_dft(c, g, &p, kk, btw, z);
      store_cluster_outputs(c, g, &p, &tw, kk, z, access_of_branch[v]);
    }
}

/* Whether the pair (k + n q, its partner) is computed at this k: every pair once. For k = 0
 * the pairs (n q, n (C - q)) repeat for q > C/2, for k = n/2 the pairs (n/2 + n q,
 * n/2 + n (C - 1 - q)) for q > (C - 1)/2. */
static const zipfft__expr *pair_wanted(zipfft__stockham_build *c, int q, const zipfft__expr *dc,
                                       const zipfft__expr *middle) {
  int cluster = c->s->cluster;
  if (2 * q <= cluster - 1) return NULL;
  const zipfft__expr *not_middle = bin(c, ZIPFFT__OP_EQ, middle, i32(c, 0));
  if (2 * q == cluster) return not_middle;
  return bin(c, ZIPFFT__OP_AND, not_middle, bin(c, ZIPFFT__OP_EQ, dc, i32(c, 0)));
}

/* R2C_HALF cluster kernels: Z = the transform of L = n * cluster points, X[e] and X[L - e]
 * from Z[e] and Z[L - e]. Block rank takes k in [rank s, (rank + 1) s), s = n / (2 cluster)
 * (the last block k = n/2 too), and computes the cluster DFTs at k and at n - k: Z[k + n q]
 * and Z[n - k + n q] for every q. The partner of k + n q is n - k + n (C - 1 - q), or for k =
 * 0 n (C - q), so every pair is split in the thread that holds both, with the twiddle
 * W^(k + n q) = W^k exp(sign 2 pi i q / 2C). Stores at k + n q and L - k - n q run over
 * neighbouring positions in neighbouring threads. */
static void emit_cluster_split(zipfft__stockham_build *c, zipfft__block *body) {
  int cluster = c->s->cluster;
  int64_t n = c->s->n, span = n / (2 * cluster), threads = c->s->threads_per_fft;
  cluster_phase p = open_cluster_phase(
      c, body, "cluster: DFTs at k and n - k, split into the half spectrum", span);
  zipfft__block *active = open_if(c, body, p.k.active);
  for (int64_t i = 0; i * threads <= span; i++) {
    const zipfft__expr *offset = bin(c, ZIPFFT__OP_ADD, p.k.t, i32(c, i * threads));
    const zipfft__expr *kk = let(c, active, "k", bin(c, ZIPFFT__OP_ADD, p.first, offset));
    const zipfft__expr *middle = let(c, active, "h", bin(c, ZIPFFT__OP_EQ, kk, i32(c, n / 2)));
    zipfft__block *g =
        (i + 1) * threads <= span
            ? active
            : open_if(c, active,
                      bin(c, ZIPFFT__OP_OR, bin(c, ZIPFFT__OP_LT, offset, i32(c, span)), middle));
    const zipfft__expr *dc = let(c, g, "d", bin(c, ZIPFFT__OP_EQ, kk, i32(c, 0)));
    /* the mirror n - k (0 for k = 0, where it is not used) and its twiddles
     * exp(sign 2 pi i b (n - k) / (n C)) = exp(sign 2 pi i b / C) conj(tw[b]) */
    const zipfft__expr *mirror =
        let(c, g, "m", zipfft__e_select(c->a, dc, i32(c, 0), bin(c, ZIPFFT__OP_SUB, i32(c, n), kk)));
    zipfft__cval z[ZIPFFT__MAX_RADIX], zm[ZIPFFT__MAX_RADIX], tw[ZIPFFT__MAX_RADIX],
        twm[ZIPFFT__MAX_RADIX];
    cluster_twiddles(c, g, kk, tw);
    for (int b = 1; b < cluster; b++)
      twm[b] = zipfft__times_root(c, g, (zipfft__cval){tw[b].re, zipfft__e_neg(c->a, tw[b].im)},
                                  b, cluster);
    cluster_dft(c, g, &p, kk, tw, z);
    cluster_dft(c, g, &p, mirror, twm, zm);
    zipfft__cval w0 = zipfft__cval_materialize(c->a, g, zipfft__split_twiddle(c, g, kk));
    for (int q = 0; q < cluster; q++) {
      zipfft__block *pair = open_if(c, g, pair_wanted(c, q, dc, middle));
      const zipfft__cval *after = &zm[cluster - 1 - q], *at_dc = &z[(cluster - q) % cluster];
      zipfft__cval partner = {zipfft__e_select(c->a, dc, at_dc->re, after->re),
                              zipfft__e_select(c->a, dc, at_dc->im, after->im)};
      zipfft__cval w = zipfft__times_root(c, pair, w0, q, 2 * cluster);
      const zipfft__expr *e = let(c, pair, "e", bin(c, ZIPFFT__OP_ADD, kk, i32(c, q * n)));
      zipfft__emit_split_pair(c, pair, p.base, e, z[q], partner, &w);
    }
  }
}

/* Element slot * C + rank of the whole transform (build_context.h). */
const zipfft__expr *zipfft__cluster_element(zipfft__stockham_build *c, const zipfft__expr *slot) {
  return bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, slot, i32(c, c->s->cluster)),
             zipfft__e_rank(c->a));
}

/* Phase 1 of the mirror through the cluster: X[e] of every value of the first pass into x,
 * and into this block's shared memory at its slot j + r m for the partner block. */
static void load_own_values(zipfft__stockham_build *c, zipfft__block *blk,
                            const zipfft__thread_coords *k, const pass_shape *ps,
                            const zipfft__expr *const *j, const zipfft__cval *x) {
  const zipfft__expr *base = zipfft__batch_offset(c, blk, k, 0);
  zipfft__block *targets[2];
  open_alignment_branches(c, open_if(c, blk, k->active), targets);
  for (int v = 0; v < 2; v++)
    for (int b = 0; b < ps->butterflies; b++) {
      zipfft__block *g = open_if(c, targets[v], zipfft__butterfly_guard(c, ps, b, j[b]));
      for (int r = 0; r < ps->radix; r++) {
        const zipfft__cval *xv = &x[b * ps->radix + r];
        const zipfft__expr *slot = let(c, g, "sl", bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps->m)));
        zipfft__s_load_complex(
            c->a, g, xv->re->u.var, xv->im->u.var, c->in,
            zipfft__global_offset(c, base, zipfft__cluster_element(c, slot), c->s->in_stride),
            access_of_branch[v], c->s->in_storage);
        zipfft__s_store_complex(c->a, g, c->smem, zipfft__shared_index(c, k, slot), xv->re, xv->im,
                                ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
      }
    }
}

/* Phase 2: each value x[r] = X[e] becomes Z[e], merged with X[L - e]. That is element
 * L/C - slot - (rank > 0) of the partner block (rank C - rank, 0 for rank 0), except X[L]
 * (rank 0, slot 0: the Nyquist term, read from global memory by the one thread that needs
 * it, where X[0] and X[L] lose their imaginary parts). W^e = W^first exp(sign 2 pi i r /
 * 2 radix), as in zipfft__emit_merge_loads. */
static void merge_with_partner(zipfft__stockham_build *c, zipfft__block *blk,
                               const zipfft__thread_coords *k, const pass_shape *ps,
                               const zipfft__expr *const *j, const zipfft__cval *x) {
  int cluster = c->s->cluster;
  const zipfft__expr *rank = zipfft__e_rank(c->a);
  const zipfft__expr *first_rank = let(c, blk, "r0", bin(c, ZIPFFT__OP_EQ, rank, i32(c, 0)));
  const zipfft__var *partner = zipfft__var_new(c->a, "rp", ZIPFFT__T_SHARED);
  zipfft__s_decl(
      c->a, blk, partner,
      zipfft__e_rank_shared(c->a, zipfft__e_select(c->a, first_rank, i32(c, 0),
                                                   bin(c, ZIPFFT__OP_SUB, i32(c, cluster), rank))));
  const zipfft__expr *base = zipfft__batch_offset(c, blk, k, 0);
  const zipfft__expr *last =
      let(c, blk, "ml", zipfft__e_select(c->a, first_rank, i32(c, c->s->n), i32(c, c->s->n - 1)));
  zipfft__block *active = open_if(c, blk, k->active);
  for (int b = 0; b < ps->butterflies; b++) {
    zipfft__block *g = open_if(c, active, zipfft__butterfly_guard(c, ps, b, j[b]));
    zipfft__cval w0 = zipfft__cval_materialize(
        c->a, g, zipfft__split_twiddle(c, g, let(c, g, "j", zipfft__cluster_element(c, j[b]))));
    for (int r = 0; r < ps->radix; r++) {
      const zipfft__cval *xv = &x[b * ps->radix + r];
      const zipfft__expr *slot = bin(c, ZIPFFT__OP_ADD, j[b], i32(c, r * ps->m));
      const zipfft__expr *nyquist = /* j[b] = t + b T is 0 only for b = 0 */
          r == 0 && b == 0
              ? let(c, g, "nq",
                    bin(c, ZIPFFT__OP_AND, first_rank, bin(c, ZIPFFT__OP_EQ, j[b], i32(c, 0))))
              : NULL;
      const zipfft__expr *mirror = bin(c, ZIPFFT__OP_SUB, last, slot);
      if (nyquist) mirror = zipfft__e_select(c->a, nyquist, i32(c, 0), mirror);
      zipfft__cval q = zipfft__zero_value(c, g, "q", 0);
      zipfft__s_load_complex(c->a, g, q.re->u.var, q.im->u.var, partner,
                             zipfft__shared_index(c, k, mirror), ZIPFFT__ACCESS_VECTOR,
                             ZIPFFT_STORAGE_DEFAULT);
      if (nyquist) {
        zipfft__block *nq = open_if(c, g, nyquist);
        zipfft__s_load_complex(
            c->a, nq, q.re->u.var, q.im->u.var, c->in,
            zipfft__global_offset(c, base, i32(c, zipfft__half_points(c->s)), c->s->in_stride),
            ZIPFFT__ACCESS_BYTES, c->s->in_storage);
        zipfft__s_assign(c->a, nq, q.im->u.var, zipfft__e_real(c->a, 0));
        zipfft__s_assign(c->a, nq, xv->im->u.var, zipfft__e_real(c->a, 0));
      }
      zipfft__cval w = zipfft__times_root(c, g, w0, r, 2 * ps->radix);
      zipfft__cval z = zipfft__cval_materialize(c->a, g, zipfft__merge_value(c, g, *xv, q, w));
      zipfft__s_assign(c->a, g, xv->re->u.var, z.re);
      zipfft__s_assign(c->a, g, xv->im->u.var, z.im);
    }
  }
}

void zipfft__emit_cluster_merge_loads(zipfft__stockham_build *c, zipfft__block *blk,
                                      const zipfft__thread_coords *k, const pass_shape *ps,
                                      const zipfft__expr *const *j, const zipfft__cval *x) {
  load_own_values(c, blk, k, ps, j, x);
  zipfft__s_cluster_barrier(c->a, blk);
  zipfft__thread_coords at = zipfft__emit_coords(c, blk);
  const zipfft__expr *indices[ZIPFFT__MAX_VALUES];
  zipfft__emit_butterfly_indices(c, blk, &at, ps, indices);
  merge_with_partner(c, blk, &at, ps, indices, x);
  zipfft__s_cluster_barrier(c->a, blk); /* the partner has read this block's values */
}

/* The body of a cluster kernel: each block's FFT into its shared memory, a cluster barrier,
 * the DFTs across the blocks with the stores, and a last cluster barrier so that no block
 * leaves (freeing its shared memory) while another still reads it. */
void zipfft__emit_cluster_kernel(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__emit_fft(c, body, 0, 0);
  if (body->last && body->last->kind == ZIPFFT__S_BARRIER) /* publishes the FFT's outputs */
    body->last->u.cluster_barrier = 1;
  else
    zipfft__s_cluster_barrier(c->a, body);
  if (c->s->kind == ZIPFFT__KIND_R2C_HALF)
    emit_cluster_split(c, body);
  else
    emit_cluster_stores(c, body);
  zipfft__s_cluster_barrier(c->a, body);
}

/* What a cluster kernel cannot combine with (NULL: the spec is a plain C2C row or column
 * kernel, or a half-length real row kernel). Its cluster twiddles come from the table of
 * length L with their exponents scaled by L / (n cluster), which must be whole. */
const char *zipfft__check_cluster(const zipfft__kernel_spec *s) {
  if (s->cluster <= 1) return NULL;
  if (s->cluster > ZIPFFT__MAX_RADIX || s->n % s->cluster != 0) return "bad cluster size";
  if (zipfft__large_twiddle_length(s) % zipfft__transform_points(s) != 0)
    return "a cluster kernel's four-step twiddle length is a multiple of its transform's";
  if (!zipfft__cluster_capable(s) || (s->ffts_per_block != 1 && !s->fft_major))
    return "cluster kernels are C2C rows or columns, or half-length real rows";
  if (s->shared_twiddles) return "cluster kernels read their pass twiddles from the table";
  if (zipfft__kind_is_half(s->kind) && (s->n / 2) % s->cluster != 0)
    return "a half-length real cluster kernel splits n / 2 evenly over its blocks";
  return NULL;
}
