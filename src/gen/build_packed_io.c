/* build_packed_io.c - packed workspace segments (kernel_spec out_packed, in_packed): the
 * block's input unpacked into shared memory before the first pass, a whole segment a
 * thread, and its output packed out of shared memory after the last pass. */
#include "gen/build_context.h"

/* The byte (I64) of packed element `at` (an index in 6-byte units). */
static const zipfft__expr *packed_byte(zipfft__stockham_build *c, const zipfft__expr *at) {
  return bin(c, ZIPFFT__OP_MUL, at, i64(c, ZIPFFT__PACKED_ELEMENT_BYTES));
}

/* Element e = tid + i B (B threads) of `total` for round i, and the block it is valid in. */
static zipfft__block *open_round(zipfft__stockham_build *c, zipfft__block *body, int64_t i,
                                 int64_t total, const zipfft__expr **e) {
  int64_t threads = zipfft__c2c_block_threads(c->s);
  *e = let(c, body, "e", bin(c, ZIPFFT__OP_ADD, zipfft__e_thread(c->a), i32(c, i * threads)));
  if ((i + 1) * threads <= total) return body;
  return open_if(c, body, bin(c, ZIPFFT__OP_LT, *e, i32(c, total)));
}

/* Element e of the block's transforms f .. f + 7 (8 h .. 8 h + 7) is one segment (side 0
 * input, 1 output): calls `helper` (zpacked_load or zpacked_store) on it for every segment
 * of the block, one a thread, neighbouring threads on neighbouring elements (one run per 8
 * transforms). */
static void emit_segments_across(zipfft__stockham_build *c, zipfft__block *body, int side,
                                 const char *helper) {
  int64_t n = c->s->n, total = n * (c->s->ffts_per_block / ZIPFFT__PACKED_SEGMENT_VALUES);
  int64_t threads = zipfft__c2c_block_threads(c->s),
          stride = side ? c->s->out_stride : c->s->in_stride;
  for (int64_t i = 0; i * threads < total; i++) {
    const zipfft__expr *e;
    zipfft__block *in = open_round(c, body, i, total, &e);
    const zipfft__expr *element = let(c, in, "k", bin(c, ZIPFFT__OP_MOD, e, i32(c, n))),
                       *h = bin(c, ZIPFFT__OP_DIV, e, i32(c, n));
    zipfft__thread_coords k = zipfft__emit_coords_of(
        c, in, i32(c, 0), bin(c, ZIPFFT__OP_MUL, h, i32(c, ZIPFFT__PACKED_SEGMENT_VALUES)));
    zipfft__block *g = open_if(c, in, k.active); /* whole blocks (check_spec): all or none */
    const zipfft__expr *at =
        bin(c, ZIPFFT__OP_ADD, zipfft__batch_offset(c, g, &k, side),
            bin(c, ZIPFFT__OP_MUL, zipfft__e_cast(c->a, ZIPFFT__T_I64, element), i64(c, stride)));
    const zipfft__expr *args[5] = {var(c, side ? c->out : c->in), packed_byte(c, at),
                                   var(c, c->smem), zipfft__shared_index(c, &k, element),
                                   i32(c, c->shared_stride)};
    zipfft__s_call(c->a, g, helper, 5, args);
  }
}

/* Segment q of each of the block's transforms (elements 8q .. 8q + 7), one a thread:
 * neighbouring threads on neighbouring transforms, whose segments q lie side by side in the
 * split in two (plan/fourstep.c). */
static void emit_loads_along(zipfft__stockham_build *c, zipfft__block *body) {
  int64_t per_block = c->s->ffts_per_block,
          total = per_block * (c->s->n / ZIPFFT__PACKED_SEGMENT_VALUES);
  int64_t threads = zipfft__c2c_block_threads(c->s);
  for (int64_t i = 0; i * threads < total; i++) {
    const zipfft__expr *e;
    zipfft__block *in = open_round(c, body, i, total, &e);
    const zipfft__expr *f = let(c, in, "f", bin(c, ZIPFFT__OP_MOD, e, i32(c, per_block))),
                       *q = let(c, in, "q", bin(c, ZIPFFT__OP_DIV, e, i32(c, per_block)));
    zipfft__thread_coords k = zipfft__emit_coords_of(c, in, i32(c, 0), f);
    zipfft__block *g = open_if(c, in, k.active);
    const zipfft__expr *at = bin(
        c, ZIPFFT__OP_ADD, zipfft__batch_offset(c, g, &k, 0),
        bin(c, ZIPFFT__OP_MUL, zipfft__e_cast(c->a, ZIPFFT__T_I64, q), i64(c, c->s->in_stride)));
    const zipfft__expr *first = bin(c, ZIPFFT__OP_MUL, q, i32(c, ZIPFFT__PACKED_SEGMENT_VALUES));
    const zipfft__expr *args[5] = {var(c, c->in), packed_byte(c, at), var(c, c->smem),
                                   zipfft__shared_index(c, &k, first), i32(c, 1)};
    zipfft__s_call(c->a, g, "zpacked_load", 5, args);
  }
}

void zipfft__emit_packed_loads(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "the block's packed segments into shared memory, one a thread");
  if (c->s->in_packed == ZIPFFT__PACKED_ACROSS)
    emit_segments_across(c, body, 0, "zpacked_load");
  else
    emit_loads_along(c, body);
  zipfft__s_barrier(c->a, body);
}

void zipfft__emit_packed_stores(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_barrier(c->a, body);
  zipfft__s_comment(c->a, body,
                    "the block's outputs packed from shared memory, a segment a thread");
  emit_segments_across(c, body, 1, "zpacked_store");
}
