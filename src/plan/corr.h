/* corr.h - the kernels of a fused correlation plan (plan/corr.c). */
#ifndef ZIPFFT_PLAN_CORR_H
#define ZIPFFT_PLAN_CORR_H

#include "plan/strategy.h"

/* A correlation problem: batch real signals of signal[] (contiguous, one after the other)
 * correlated with (or convolved by) a filter of lengths[], the output region of out[]
 * (contiguous), the kept spectrum stored as spectrum_storage. */
typedef struct zipfft__corr_problem {
  zipfft_precision precision;
  int rank;
  /* FFT lengths (the filter's, or for VALID a smooth length at least as long where the
   * filter's has a large prime factor: the filter is then zero-padded to them) */
  int64_t lengths[ZIPFFT__MAX_RANK], filter[ZIPFFT__MAX_RANK];
  int64_t signal[ZIPFFT__MAX_RANK], out[ZIPFFT__MAX_RANK];
  int64_t batch;
  zipfft__fused_op op;
  zipfft_storage spectrum_storage;
  /* how the fused kernel's output is stored (DEFAULT, F16, BF16: rank 2 only); when not
   * DEFAULT the fused kernel reads the R2C pass's rows from the workspace and writes the
   * intermediate array, which holds only its outputs */
  zipfft_storage mid_storage;
} zipfft__corr_problem;

/* Lengths of the kept spectrum: lengths[], the last one n/2+1 from rank 2 on (the real
 * passes keep the Hermitian half), all n for rank 1 (one kernel of full complex FFTs). */
void zipfft__corr_spectrum_lengths(const zipfft__corr_problem *p, int64_t *lengths);

/* Reals of one signal (the product of its lengths). */
int64_t zipfft__corr_signal_reals(const zipfft__corr_problem *p);

/* Row pitch (complex elements) of the kept spectrum and of the intermediate array along
 * their last axis: its length rounded up to 16 elements, so that every row starts on a
 * 128-byte boundary (columns read as aligned segments). */
int64_t zipfft__corr_pitch(const zipfft__corr_problem *p);

/* Bytes of the kept spectrum (its rows pitched, in the spectrum storage). */
uint64_t zipfft__corr_spectrum_bytes(const zipfft__corr_problem *p);

/* The share of 1/N (N the product of the lengths) that the kept spectrum holds, so that the
 * result is the naive sum: all of it for an fp32 or fp64 spectrum (then no kernel scales
 * its outputs; the 2DTM fused kernel loses 128 multiplies a thread before its 16-bit
 * stores, which measured no faster on an H200 but leaves simpler kernels), 1/sqrt(N) for
 * an F16 spectrum, which keeps its values near 1 (the last pass applies the rest). */
double zipfft__corr_spectrum_scale(const zipfft__corr_problem *p);
/* Index of the kept spectrum's complex value at (row, column) of its shape (row: the
 * first axis's index as the fused kernel holds it, zipfft__in_place_entry, times the
 * other axes'); fused: the plan's fused kernel (NULL: rank 1, rows of the pitch). */
int64_t zipfft__corr_spectrum_at(const zipfft__corr_problem *p, const zipfft__kernel_spec *fused,
                                 int64_t row, int64_t column);

/* Signals per group in the fused kernel's order (rank 2; plan/corr.c): each group runs tile
 * by tile and reads the kept spectrum once. Above 16 signals the largest divisor of the
 * count from 16 down to 8, else all of them; ZIPFFT_FUSED_SIGNAL_GROUP (tuning) sets it (0
 * or a non-divisor: all). Measured on an H100 (2DTM 4096x4096/512): batch 32 10,369 ->
 * 10,874 corr/s in groups of 16 (10,804 in groups of 8); batch 16 in groups of 8 lost
 * 1.2%, in groups of 4 4.5%. Fewer signals then write at once (fewer distinct pages of the
 * intermediate array: a likely cause, not measured);
 * docs/perf/2026-11-26-h100-2dtm-kernel-times.md. */
int64_t zipfft__corr_signal_group(int64_t signals);

/* Fills the decomposition of a correlation problem (a zipfft__decompose_fn): rank 1, one
 * fused kernel; ranks 2-3, the padded R2C pass, forward C2C passes, the fused kernel along
 * the first axis, inverse C2C passes and the cropped C2R pass through the intermediate
 * array, then the statistics variant of the last kernel. */
zipfft_status zipfft__corr_decompose(const void *problem, const struct zipfft__target *t,
                                     struct zipfft__decomposition *out);

/* Prints a correlation plan's kernels. */
extern const zipfft__strategy zipfft__strategy_corr;

#endif
