/* single.h - sizing of one single-kernel batched 1D transform (plan/single.c). */
#ifndef ZIPFFT_SINGLE_H
#define ZIPFFT_SINGLE_H

#include "plan/kernel_spec.h"
#include "plan/strategy.h"

/* Completes a spec whose precision, sign, n, strides, batch dimensions, fft_major and
 * store_major wishes and scale are set: chooses the radices, threads per transform and
 * transforms per block (at most `transforms`). A length with a prime factor above 31 is
 * done by Rader's method when it is a prime p with p - 1 31-smooth (rader_n = p, n = p - 1),
 * else by Bluestein's (bluestein_n = the length, n = the padded FFT length).
 * Returns 0 when the length cannot be done in one kernel on the target (too many threads
 * or too much shared memory), leaving n as it was. */
/* Blocks of `bytes` of shared memory a multiprocessor holds, counting the 1 KiB the CUDA
 * driver reserves per block (a multiprocessor has the per-block maximum plus that). */
size_t zipfft__blocks_by_shared(size_t bytes, const zipfft__target *t);

int zipfft__size_single_kernel(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t);

/* Runs a sized Bluestein or Rader kernel's passes in place where it can (kernel_spec
 * passes_in_place), and so the middle kernel of Bluestein's three (kernel_spec
 * ZIPFFT__FUSED_BLUESTEIN): the filter multiply in registers between the FFTs, Bluestein's
 * outputs stored from the last pass's registers (Rader's through its output permutation in
 * shared memory), and no barriers guarding shared memory against overwriting.
 * ZIPFFT_BLUESTEIN_IN_PLACE=0 and ZIPFFT_RADER_IN_PLACE=0 (tuning) keep the Stockham
 * passes. */
void zipfft__choose_convolution_in_place(zipfft__kernel_spec *s);

/* Sizes a plain C2C row pass (contiguous elements, no extents, fused operations or
 * four-step twiddle) as a cluster kernel when the target has thread-block clusters and no
 * single block can hold the transform: n becomes n / cluster for the smallest cluster (2
 * or 4 blocks) whose blocks each stay within a third of a multiprocessor's shared memory.
 * Returns 0 (spec unchanged) when that does not apply. */
int zipfft__size_cluster_kernel(zipfft__kernel_spec *s, int64_t transforms,
                                const zipfft__target *t);
/* Re-sizes a sized four-step column kernel (C2C, fft_major, its four-step twiddle if any
 * fused into its stores; plan/fourstep.c asks for the rank-1 C2C strategy's only) as a cluster
 * kernel (by default of 8 blocks for fp32 4096-point columns on devices of slow memory, none
 * elsewhere; ZIPFFT_CLUSTER_COLUMNS, tuning, names the blocks) when its block's columns span
 * less than a 128-byte line and the cluster's blocks, each holding n / cluster points of each
 * column, take more columns; returns 1 when it did, 0 (spec unchanged) otherwise. */
int zipfft__size_cluster_columns(zipfft__kernel_spec *s, int64_t transforms,
                                 const zipfft__target *t);
/* Lowers the transforms per block of a sized transform-major kernel (fft_major or
 * store_major; not mirrored) to the count sizing takes for `transforms` on the target when
 * it fills rows of row_bytes (instead of the target's default, major_row_bytes), if that
 * count is smaller and at least 2; a kernel that staged its twiddles then decides that again
 * for the narrower block, as sizing would. */
void zipfft__limit_major_rows(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t,
                              int64_t row_bytes);
/* The smallest 7-smooth length (prime factors 2, 3, 5, 7: the cheapest radices) at least
 * at_least. */
int64_t zipfft__smooth_length(int64_t at_least);
/* The FFT length of Bluestein's method for a length n whose convolution covers `half`
 * (kernel_spec.h zipfft__chirp_half): the smallest 7-smooth length of at least
 * zipfft__chirp_least_padding (2n - 1, or n + n/2 for a real half; radices 2..7 are the
 * cheapest butterflies). */
int64_t zipfft__bluestein_length(int64_t n, zipfft__chirp_half half);

/* The compiled plain C2C row kernel s with its last, smallest radix moved first (9x9x9x3
 * -> 3x9x9x9) in *out, its other choices kept (threads, transforms per block, blocks asked
 * for, prefetch) and staged twiddles chosen again. Returns 0 (out untouched) unless s is a
 * plain batched C2C row kernel (no fusion, extents, tiles, four-step twiddle, Rader,
 * Bluestein, cluster or pairing) of 2 or more passes whose length is not a power of two
 * (such as fp32 16384 = 32x32x16: not measured rotated), whose last radix is smaller than
 * its first, whose first radix is not a prime of 17 to 31, and which ZIPFFT_RADICES does
 * not name, the rotation is wanted on the target (ZIPFFT_ROTATE_RADICES, tuning: 0 never,
 * 1 on every target; by default on devices of fast memory), and the threads and shared
 * memory hold the new order. */
int zipfft__rotated_radices(const zipfft__kernel_spec *s, const zipfft__target *t,
                            zipfft__kernel_spec *out);

/* ZIPFFT_FOURSTEP_MAX_SINGLE (tests; 0 when unset): lengths above it are treated as too
 * long for one kernel, so that small lengths exercise every multi-kernel path. */
int64_t zipfft__single_kernel_cap(void);

#endif
