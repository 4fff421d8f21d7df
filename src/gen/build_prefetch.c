/* build_prefetch.c - statistics kernels: the next signal's input row is copied into shared
 * memory (asynchronously on CUDA) while the current signal is transformed, so that the
 * loop over the signals does not wait for global memory at the start of every signal. */
#include "gen/build_context.h"

const zipfft__expr *zipfft__prefetch_row(zipfft__stockham_build *c, zipfft__block *blk,
                                         const zipfft__thread_coords *k) {
  int64_t first = zipfft__prefetch_shared_index(c->s);
  return let(
      c, blk, "pf",
      bin(c, ZIPFFT__OP_ADD, i32(c, first), bin(c, ZIPFFT__OP_MUL, k->f, i32(c, c->s->n + 1))));
}

/* Copies the half-spectrum row at base (its n + 1 complex values) into the prefetch area:
 * thread t of the transform copies elements t, t + T, ... into its transform's row; asynchronous
 * copies when the pointers are aligned, a byte-wise load and a shared-memory store otherwise.
 * Inactive rows copy nothing. */
static void copy_row(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__thread_coords *k,
                     const zipfft__expr *base) {
  enum { max_elements = 64 };
  int64_t count = c->s->n + 1, threads = c->s->threads_per_fft;
  const zipfft__expr *first = zipfft__prefetch_row(c, blk, k);
  int per = (int)((count + threads - 1) / threads);
  if (per > max_elements) {
    zipfft__arena_set_error(c->a, "too many prefetched elements per thread");
    return;
  }
  const zipfft__expr *e[max_elements];
  for (int i = 0; i < per; i++)
    e[i] = let(c, blk, "e", bin(c, ZIPFFT__OP_ADD, k->t, i32(c, i * threads)));
  zipfft__block *targets[2];
  open_alignment_branches(c, open_if(c, blk, k->active), targets);
  for (int v = 0; v < 2; v++)
    for (int i = 0; i < per; i++) {
      zipfft__block *g = (i + 1) * threads > count
                             ? open_if(c, targets[v], bin(c, ZIPFFT__OP_LT, e[i], i32(c, count)))
                             : targets[v];
      const zipfft__expr *at = bin(c, ZIPFFT__OP_ADD, e[i], first);
      const zipfft__expr *from = zipfft__global_offset(c, base, e[i], c->s->in_stride);
      if (v == 0) {
        const zipfft__expr *args[4] = {var(c, c->smem), at, var(c, c->in), from};
        zipfft__s_call(c->a, g, "zcopy_async", 4, args);
      } else {
        zipfft__cval x =
            zipfft__load_value(c, g, c->in, from, ZIPFFT__ACCESS_BYTES, ZIPFFT_STORAGE_DEFAULT);
        zipfft__s_store_complex(c->a, g, c->smem, at, x.re, x.im, ZIPFFT__ACCESS_VECTOR,
                                ZIPFFT_STORAGE_DEFAULT);
      }
    }
}

void zipfft__emit_prefetch_first(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "prefetch: the first signal's row");
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  copy_row(c, body, &k, zipfft__batch_offset(c, body, &k, 0));
  zipfft__emit_prefetch_wait(c, body);
}

void zipfft__emit_prefetch_next(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "prefetch: the next signal's row, while this one is transformed");
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  const zipfft__expr *next = bin(c, ZIPFFT__OP_ADD, zipfft__batch_offset(c, body, &k, 0),
                                 zipfft__e_int(c->a, ZIPFFT__T_I64, c->s->loop_in_stride));
  const zipfft__expr *more =
      bin(c, ZIPFFT__OP_LT,
          bin(c, ZIPFFT__OP_ADD, var(c, c->signal), zipfft__e_int(c->a, ZIPFFT__T_I64, 1)),
          var(c, c->loop_count));
  zipfft__block *g = open_if(c, body, more);
  copy_row(c, g, &k, let(c, g, "nb", next));
}

void zipfft__emit_prefetch_wait(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_call(c->a, body, "zasync_wait", 0, NULL);
}
