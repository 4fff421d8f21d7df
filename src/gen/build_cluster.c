/* build_cluster.c - the body of a cluster kernel: one transform over the blocks of a
 * thread-block cluster, its transpose through their distributed shared memory. */
#include "gen/build_context.h"
#include "gen/butterfly.h"

/* Cluster kernels, after every block's FFT left its n outputs in natural order in its
 * shared memory: block rank takes n / cluster of the k, reads element k of every block b
 * of the cluster, multiplies it by exp(sign 2 pi i b k / (n * cluster)),
 * runs the cluster-point DFT over b and stores outputs k + n * q. Neighbouring threads
 * take neighbouring k, so every store is coalesced. */
static void emit_cluster_stores(zipfft__stockham_build *c, zipfft__block *body) {
  int cluster = c->s->cluster;
  int64_t share = c->s->n / cluster, threads = c->s->threads_per_fft;
  zipfft__s_comment(c->a, body, "cluster: cluster-point DFTs across the blocks' shared memory");
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *base = zipfft__batch_offset(c, body, &k, 1);
  const zipfft__var *blocks[ZIPFFT__MAX_RADIX];
  for (int b = 0; b < cluster; b++) {
    blocks[b] = zipfft__var_new(c->a, "rs", ZIPFFT__T_SHARED);
    zipfft__s_decl(c->a, body, blocks[b], zipfft__e_rank_shared(c->a, i32(c, b)));
  }
  const zipfft__expr *first =
      let(c, body, "kf", bin(c, ZIPFFT__OP_MUL, zipfft__e_rank(c->a), i32(c, share)));
  zipfft__block *targets[2];
  open_alignment_branches(c, open_if(c, body, k.active), targets);
  for (int v = 0; v < 2; v++)
    for (int64_t i = 0; i * threads < share; i++) {
      const zipfft__expr *offset = bin(c, ZIPFFT__OP_ADD, k.t, i32(c, i * threads));
      zipfft__block *g = (i + 1) * threads <= share
                             ? targets[v]
                             : open_if(c, targets[v], bin(c, ZIPFFT__OP_LT, offset, i32(c, share)));
      const zipfft__expr *kk = let(c, g, "k", bin(c, ZIPFFT__OP_ADD, first, offset));
      const zipfft__expr *at = let(c, g, "s", zipfft__shared_index(c, &k, kk));
      zipfft__cval y[ZIPFFT__MAX_RADIX], z[ZIPFFT__MAX_RADIX];
      for (int b = 0; b < cluster; b++) {
        y[b] =
            zipfft__load_value(c, g, blocks[b], at, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
        if (b > 0)
          y[b] = zipfft__cval_materialize(
              c->a, g,
              zipfft__apply_large_twiddle(c, g, zipfft__e_int(c->a, ZIPFFT__T_I64, b), kk, y[b]));
      }
      zipfft__emit_dft(c->a, g, c->s->sign, cluster, y, z);
      for (int q = 0; q < cluster; q++) {
        const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, kk, i32(c, q * c->s->n));
        zipfft__emit_store_element(c, g, zipfft__finish_output(c, g, NULL, e, z[q]), base, e,
                                   access_of_branch[v]);
      }
    }
}

/* The body of a cluster kernel: each block's FFT into its shared memory, a cluster barrier,
 * the DFTs across the blocks with the stores, and a last cluster barrier so that no block
 * leaves (freeing its shared memory) while another still reads it. */
void zipfft__emit_cluster_kernel(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__emit_fft(c, body, 0, 0);
  if (body->last && body->last->kind == ZIPFFT__S_BARRIER) body->last->u.cluster_barrier = 1;
  emit_cluster_stores(c, body);
  zipfft__s_cluster_barrier(c->a, body);
}

/* What a cluster kernel cannot combine with (NULL: the spec is a plain C2C row kernel). */
const char *zipfft__check_cluster(const zipfft__kernel_spec *s) {
  if (s->cluster <= 1) return NULL;
  if (s->cluster > ZIPFFT__MAX_RADIX || s->n % s->cluster != 0) return "bad cluster size";
  if (!zipfft__plain_c2c(s) || s->ffts_per_block != 1) return "cluster kernels are plain C2C rows";
  return NULL;
}
