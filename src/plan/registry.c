/* registry.c - the table of planning strategies, tried in order. */
#include "plan/strategy.h"

#include <stdlib.h>

#include "api/error.h"

static const zipfft__strategy *const strategies[] = {
    &zipfft__strategy_fourstep, /* only where one kernel cannot do the length */
    &zipfft__strategy_axes,
};

/* Explains why no strategy applies, most general reason first. */
static zipfft_status explain_unsupported(const struct zipfft_desc_s *d, const zipfft__target *t) {
  int axis = 0;
  while (axis + 1 < d->rank && zipfft__axis_possible(d, axis, t)) axis++;
  return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                      "lengths[%d] = %lld: neither it nor Bluestein's padded length for it "
                      "splits into at most 4 factors that one kernel each can do (see zipfft.h)",
                      axis, (long long)d->lengths[axis]);
}

uint64_t zipfft__bytes_product(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t zipfft__bytes_sum(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t zipfft__bytes_aligned(uint64_t a) {
  enum { align = 256 };
  return a > UINT64_MAX - (align - 1) ? UINT64_MAX : (a + align - 1) / align * align;
}

int zipfft__slow_memory(const zipfft__target *t) {
  enum { slow_below = 30000000000u };
  const char *env = getenv("ZIPFFT_SLOW_MEMORY"); /* tuning: 0 or 1 whatever the device */
  if (env && *env) return atoi(env) != 0;
  return t->bandwidth_per_multiprocessor == 0 || t->bandwidth_per_multiprocessor < slow_below;
}

void zipfft__reserve_intermediate(zipfft__decomposition *dec, uint64_t bytes) {
  if (bytes == 0) return;
  dec->intermediate_offset = zipfft__bytes_aligned(dec->workspace_bytes);
  dec->workspace_bytes = zipfft__bytes_sum(dec->intermediate_offset, bytes);
}

const zipfft__strategy *zipfft__choose_strategy(const struct zipfft_desc_s *d,
                                                const zipfft__target *t, zipfft_status *why) {
  for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
    if (strategies[i]->applicable(d, t)) return strategies[i];
  *why = explain_unsupported(d, t);
  return NULL;
}
