/* build_link.c - the statements of linked kernels (kernel_spec link_role): a producer that
 * lets its consumer launch early and counts its blocks per dependency group, and a consumer
 * whose blocks wait until their group is complete. */
#include <stdlib.h>
#include <string.h>

#include "gen/build_context.h"

/* The block's dependency group (I64): its first transform over the transforms of a group
 * (link_items work items of ffts_per_block transforms). */
static const zipfft__expr *link_group(zipfft__stockham_build *c) {
  const zipfft__kernel_spec *s = c->s;
  const zipfft__expr *first =
      bin(c, ZIPFFT__OP_ADD,
          bin(c, ZIPFFT__OP_MUL, zipfft__e_block(c->a), zipfft__e_int(c->a, ZIPFFT__T_I64,
                                                                      s->ffts_per_block)),
          var(c, c->batch_offset));
  return bin(c, ZIPFFT__OP_DIV, first,
             zipfft__e_int(c->a, ZIPFFT__T_I64, s->link_items * s->ffts_per_block));
}

/* if (thread 0) function(args) */
static void call_by_thread_zero(zipfft__stockham_build *c, zipfft__block *b, const char *function,
                                int count, const zipfft__expr *const *args) {
  zipfft__block *first = open_if(c, b, bin(c, ZIPFFT__OP_EQ, zipfft__e_thread(c->a), i32(c, 0)));
  zipfft__s_call(c->a, first, function, count, args);
}

/* A producer lets the consumer launch (every thread; the launch waits until each block of
 * the producer has said so). A consumer's thread 0 waits for its group (and counts the
 * block, the group's last setting the counters back to zero); the barrier then holds every
 * thread until the group's stores are visible. */
void zipfft__emit_link_start(zipfft__stockham_build *c, zipfft__block *body) {
  const zipfft__kernel_spec *s = c->s;
  const char *at = getenv("ZIPFFT_LINK_RELEASE"); /* EXPERIMENT: start (default), end, none */
  if (s->link_role == ZIPFFT__LINK_PRODUCER) {
    if (!at || !strcmp(at, "start")) zipfft__s_call(c->a, body, "zlink_release", 0, NULL);
  } else if (s->link_role == ZIPFFT__LINK_CONSUMER && getenv("ZIPFFT_LINK_GRID_WAIT")) {
    zipfft__s_call(c->a, body, "zlink_grid_wait", 0, NULL); /* EXPERIMENT */
  } else if (s->link_role == ZIPFFT__LINK_CONSUMER) {
    const zipfft__expr *args[4] = {var(c, c->sync), let(c, body, "lg", link_group(c)),
                                   zipfft__e_int(c->a, ZIPFFT__T_I64, s->link_wait_for),
                                   zipfft__e_int(c->a, ZIPFFT__T_I64, s->link_items)};
    call_by_thread_zero(c, body, "zlink_wait", 4, args);
    zipfft__s_barrier(c->a, body);
  }
}

/* A producer's block counts itself in its group once every thread's stores are done. */
void zipfft__emit_link_end(zipfft__stockham_build *c, zipfft__block *body) {
  if (c->s->link_role != ZIPFFT__LINK_PRODUCER || getenv("ZIPFFT_LINK_GRID_WAIT")) return;
  zipfft__s_barrier(c->a, body);
  const zipfft__expr *args[2] = {var(c, c->sync), let(c, body, "lg", link_group(c))};
  call_by_thread_zero(c, body, "zlink_signal", 2, args);
  const char *at = getenv("ZIPFFT_LINK_RELEASE");
  if (at && !strcmp(at, "end")) zipfft__s_call(c->a, body, "zlink_release", 0, NULL);
}
