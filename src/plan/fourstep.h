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
  int cluster_columns; /* 1: column kernels may run as thread-block clusters where
                        * zipfft__size_cluster_columns says (the rank-1 C2C strategy only;
                        * the long axes' routes turn column kernels into merging or Bluestein
                        * kernels that a cluster kernel cannot be) */
} zipfft__fourstep_job;

/* Whether the column and row kernels of a split in two with loose_two, as sized, meet the
 * limits measured for their precision (plan/fourstep.c loose_rule: fp32 even columns, rows of
 * 4 or more transforms a block, at most 1024 threads a block; fp64 rows of 4 or more, at most
 * 682 threads). */
int zipfft__loose_kernels_fit(const zipfft__kernel_spec *columns, const zipfft__kernel_spec *rows);

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

/* 1 when the job's length (Bluestein's padded length) splits in two on the target, as
 * zipfft__fourstep_bluestein_append needs. */
int zipfft__fourstep_bluestein_fits(const zipfft__fourstep_job *job, const zipfft__target *t);

/* The longest power-of-two row of Bluestein's middle kernel (128 KiB: fp32 16384, fp64
 * 8192 points) where it fits one kernel on the target, else 0: a padded length that is a
 * multiple of it splits in two with those rows (plan/long_axis.c pads to one where no
 * other split in two exists). */
int64_t zipfft__fourstep_long_row_points(zipfft_precision precision, const zipfft__target *t);

/* Appends Bluestein's convolution of the job's length (the padded length; chirp_n the
 * user's length, half which end covers only its Hermitian half) as three kernels of its split in two N0 x N1: the N0-point columns of src
 * into via (four-step twiddles on the stores), the N1-point rows of via in place (forward
 * FFT, conj(Z * filter), forward FFT, twiddles: kernel_spec ZIPFFT__FUSED_BLUESTEIN, the
 * filter filled by the plan), and the N0-point columns of via into dst in natural order.
 * The result is the forward split's transform of conj(V * filter), V src's: the conjugate
 * of src's cyclic convolution with the filter's source, as Bluestein's second split in two
 * would leave it (the table holds the filter's transform divided by N); the caller fuses the
 * chirps into the first loads and last stores
 * (kernel_spec bluestein_load, bluestein_store). Fails with INTERNAL when the length does
 * not split in two (zipfft__fourstep_bluestein_fits), UNSUPPORTED_LENGTH past
 * ZIPFFT__MAX_KERNELS. */
zipfft_status zipfft__fourstep_bluestein_append(const zipfft__fourstep_job *job, int64_t chirp_n,
                                                zipfft__chirp_half half, const zipfft__target *t,
                                                zipfft__array src, zipfft__array via,
                                                zipfft__array dst, zipfft__decomposition *dec);

/* Runs the last two kernels of dec, the last of a four-step of the job whose first kernel is
 * dec's kernel split_first (a split in two or three), as one pair kernel (plan/pair.h)
 * where that pays on the target (the rule of zipfft__fourstep_pair_last_two in fourstep.c);
 * inplace: the job's src is its dst. Call it once dec's workspace is reserved: the pair's
 * counters go after it. Leaves dec unchanged otherwise. */
void zipfft__fourstep_pair_last_two(const zipfft__fourstep_job *job, int split_first, int inplace,
                                    const zipfft__target *t, zipfft__decomposition *dec);

/* Holds the intermediates of fp32 splits among dec's kernels from `from` on in packed
 * segments where ZIPFFT_PACKED_WORKSPACE asks: a split in two by groups of columns, a split
 * in three in place of its elements (the rules in packed_workspace.c). Call it after the
 * pairing, before the tiles and the rows in place. */
void zipfft__fourstep_pack_workspace(zipfft__decomposition *dec, int from);

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
