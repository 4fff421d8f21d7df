/* fourstep.h - the kernels of a batched 1D C2C transform too long for one kernel
 * (plan/fourstep.c), for the rank-1 strategy and for long axes of the others. */
#ifndef ZIPFFT_FOURSTEP_H
#define ZIPFFT_FOURSTEP_H

#include "plan/strategy.h"

/* A batched 1D C2C transform: `batch` transforms of n points, element strides and batch
 * distances in elements of the arrays as stored. */
typedef struct zipfft__fourstep_job {
  zipfft_precision precision;
  int sign;
  int64_t n, batch;
  int64_t in_stride, in_dist, out_stride, out_dist;
  zipfft_storage in_storage, out_storage;
  double scale;
  int square_split; /* 1: a square split in two may have wide columns (plan/fourstep.c) */
  int loose_two;    /* 1: a split in two beyond the good sizes comes before a split in three */
  int short_first;  /* 1: a split in two takes the shortest good first factor of at least
                     * 256 points, not the most balanced, and where none exists one with
                     * longer rows before a split in three (C2R merges, plan/fourstep.c) */
} zipfft__fourstep_job;

/* The number of kernels (2 to 4) of the split of n, each factor fitting one kernel on the
 * target, with the job's loose_two and short_first; 0 when n has no such split. */
int zipfft__fourstep_kernels(zipfft_precision precision, int64_t n, int loose_two, int short_first,
                             const zipfft__target *t);

/* Appends the kernels of the job to dec: the first reads array src, the intermediate
 * results live in array via (batch * n complex values of the compute precision; the job
 * may read src == via), the last writes dst (!= via). Fails with UNSUPPORTED_LENGTH when
 * dec would pass ZIPFFT__MAX_KERNELS. */
zipfft_status zipfft__fourstep_append(const zipfft__fourstep_job *job, const zipfft__target *t,
                                      zipfft__array src, zipfft__array via, zipfft__array dst,
                                      zipfft__decomposition *dec);

/* Runs the last two kernels of dec, the last of a four-step of the job whose first kernel is
 * dec's kernel split_first (a split in two or three), as one pair kernel (plan/pair.h)
 * where that pays on the target (the rule of zipfft__fourstep_pair_last_two in fourstep.c);
 * inplace: the job's src is its dst. Call it once dec's workspace is reserved: the pair's
 * counters go after it. Leaves dec unchanged otherwise. */
void zipfft__fourstep_pair_last_two(const zipfft__fourstep_job *job, int split_first, int inplace,
                                    const zipfft__target *t, zipfft__decomposition *dec);

/* Stores the intermediate of every split in two among dec's kernels from `from` on that is
 * not paired in tiles of rows (the rule of zipfft__fourstep_tile_rows in fourstep.c): the
 * column kernel's outputs in whole lines, the row kernel's blocks reading one contiguous
 * range each. Call it once every other decision about those kernels is made. */
void zipfft__fourstep_tile_rows(zipfft__decomposition *dec, int from, const zipfft__target *t);

/* Runs the passes of every row kernel among dec's kernels from `from` on that is not paired
 * in place where it can (the rule of zipfft__fourstep_rows_in_place in fourstep.c). Call it
 * once every other decision about those kernels is made. */
void zipfft__fourstep_rows_in_place(zipfft__decomposition *dec, int from);

#endif
