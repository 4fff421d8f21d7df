/* strategy.h - the shape every planning strategy has (FFTW's solver pattern) and the
 * registry that lists them. */
#ifndef ZIPFFT_STRATEGY_H
#define ZIPFFT_STRATEGY_H

#include <stddef.h>

#include "api/desc.h"
#include "gen/strbuf.h"
#include "plan/kernel_spec.h"

enum { ZIPFFT__MAX_KERNELS = 4 };

/* What a strategy decides: the kernels to run, in order. */
typedef struct zipfft__decomposition {
  int kernel_count;
  zipfft__c2c_spec kernels[ZIPFFT__MAX_KERNELS];
} zipfft__decomposition;

/* Limits of the target that shape the decomposition. */
typedef struct zipfft__target {
  size_t max_shared_bytes; /* per block */
} zipfft__target;

typedef struct zipfft__strategy {
  const char *name;
  /* 1 when the strategy can plan the description on the target. */
  int (*applicable)(const struct zipfft_desc_s *d, const zipfft__target *t);
  /* Fills the decomposition; returns a status (with detail) on failure. */
  zipfft_status (*make)(const struct zipfft_desc_s *d, const zipfft__layout_1d *layout,
                        const zipfft__target *t, zipfft__decomposition *out);
  /* Appends a one-line description of the decomposition. */
  void (*print)(const zipfft__decomposition *dec, zipfft__strbuf *sb);
} zipfft__strategy;

/* Strategy of single-kernel Stockham transforms (plan/single.c). */
extern const zipfft__strategy zipfft__strategy_single;

/* Finds the first applicable strategy in the registry; NULL when none applies (the detail
 * says why: unsupported type, rank or length). */
const zipfft__strategy *zipfft__choose_strategy(const struct zipfft_desc_s *d,
                                                const zipfft__target *t, zipfft_status *why);

#endif
