/* host_parallel.h - a loop over a range of table entries split across host threads, for the
 * plan's long-double tables of the largest lengths. */
#ifndef ZIPFFT_PLAN_HOST_PARALLEL_H
#define ZIPFFT_PLAN_HOST_PARALLEL_H

#include <stdint.h>

/* Computes the entries [first, end) of a table; context is the caller's. */
typedef void (*zipfft__range_body)(void *context, int64_t first, int64_t end);

/* Runs body over [0, count) in contiguous parts, one per online processor (at most 64),
 * each part at least min_part entries; parts whose thread cannot start run on the calling
 * thread. Each entry is computed exactly once, so the result does not depend on the
 * number of threads. Returns when all parts are done. */
void zipfft__host_parallel_for(int64_t count, int64_t min_part, zipfft__range_body body,
                               void *context);

#endif
