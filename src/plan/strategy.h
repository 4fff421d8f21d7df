/* strategy.h - the shape every planning strategy has (FFTW's solver pattern) and the
 * registry that lists them. */
#ifndef ZIPFFT_STRATEGY_H
#define ZIPFFT_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "api/desc.h"
#include "gen/strbuf.h"
#include "plan/kernel_spec.h"

/* A pass through the workspace takes 2 + P kernels, or 3 + 2P with Bluestein, for a split
 * into P <= 4 kernels (P = 2 up to about 2^28 points): three Bluestein axes of P = 2 fit. */
enum { ZIPFFT__MAX_KERNELS = 24 };

/* The arrays a kernel reads and writes: the user's, one of the two parts of the plan's
 * workspace for long axes (the second starts at second_workspace_offset), or the
 * intermediate array of padded and cropped multi-axis transforms (after both parts, at
 * intermediate_offset). */
typedef enum zipfft__array {
  ZIPFFT__ARRAY_INPUT,
  ZIPFFT__ARRAY_OUTPUT,
  ZIPFFT__ARRAY_WORKSPACE,
  ZIPFFT__ARRAY_WORKSPACE2,
  ZIPFFT__ARRAY_INTERMEDIATE,
  ZIPFFT__ARRAY_STATS,      /* correlation plans: the statistics arrays */
  ZIPFFT__ARRAY_SIGNAL_SUM, /* correlation plans: the running sum of the signals (double) */
  ZIPFFT__ARRAY_COUNT
} zipfft__array;

/* Which runs launch a kernel: every run, or (correlation plans) only runs that store
 * outputs, or only runs that fold into the statistics. */
typedef enum zipfft__run_on {
  ZIPFFT__RUN_ALWAYS = 0,
  ZIPFFT__RUN_OUTPUTS,
  ZIPFFT__RUN_STATISTICS
} zipfft__run_on;

/* What a strategy decides: the kernels to run, in order, each reading array src[i] and
 * writing dst[i]; `transforms` is the number of transforms (pointwise kernels: row chunks)
 * kernel i launches, and workspace_bytes the size of the plan's workspace (0: none). */
typedef struct zipfft__decomposition {
  int kernel_count;
  zipfft__kernel_spec kernels[ZIPFFT__MAX_KERNELS];
  zipfft__array src[ZIPFFT__MAX_KERNELS], dst[ZIPFFT__MAX_KERNELS];
  uint64_t workspace_bytes, second_workspace_offset, intermediate_offset;
  /* Memory the plan's owner allocates with it (a correlation plan's kept spectrum): counted
   * in the plan's memory check, allocated by the owner. */
  uint64_t kept_bytes;
  int64_t transforms[ZIPFFT__MAX_KERNELS];
  int axis[ZIPFFT__MAX_KERNELS]; /* array axis each kernel transforms */
  /* Correlation plans with statistics: the last kernel is the statistics variant of the
   * one before it (the kernel that stores outputs), and the first sums the signals;
   * runs_on says which runs launch each. */
  int has_statistics;
  zipfft__run_on runs_on[ZIPFFT__MAX_KERNELS];
  /* 1 for kernels that run the plan's whole batch whatever a run's count (their batch is
   * not the slowest digit). */
  int whole_batch[ZIPFFT__MAX_KERNELS];
  /* When paired: kernels pair_first and pair_first + 1 run as one pair kernel
   * (plan/pair.h) of these dependency groups, its counters at pair_sync_offset in the
   * workspace; the two kernels stay the plan's for printing. pair_cluster: blocks per
   * cluster of the pair's cluster form (0: the persistent form). */
  int paired, pair_first, pair_streaming, pair_cluster;
  int64_t pair_groups[2];
  uint64_t pair_sync_offset;
} zipfft__decomposition;

/* Places an intermediate array of `bytes` after the workspace parts (none when 0). */
void zipfft__reserve_intermediate(zipfft__decomposition *dec, uint64_t bytes);
/* Byte counts of the workspace, saturating at UINT64_MAX (which plan creation refuses):
 * a * b, a + b, and a rounded up to a multiple of 256. */
uint64_t zipfft__bytes_product(uint64_t a, uint64_t b);
uint64_t zipfft__bytes_sum(uint64_t a, uint64_t b);
uint64_t zipfft__bytes_aligned(uint64_t a);

/* Limits of the target that shape the decomposition. */
typedef struct zipfft__target {
  size_t max_shared_bytes; /* per block */
  int max_cluster_blocks;  /* largest thread-block cluster (1 or less: none) */
  /* Peak memory bandwidth per multiprocessor, bytes per second (0: unknown, planned as an
   * H100's); pair kernels pay where it is low (plan/fourstep.c). */
  uint64_t bandwidth_per_multiprocessor;
  int bulk_copies; /* kernels may copy rows into shared memory asynchronously (sm_90, CPU) */
} zipfft__target;

/* 1 when the target has little memory bandwidth per multiprocessor (below 30 GB/s, or
 * unknown): an H100 SXM (25 GB/s), not an H200 (37 GB/s). Pair kernels pay there
 * (plan/fourstep.c), and blocks prefetch less far ahead (api/plan.c). */
int zipfft__slow_memory(const zipfft__target *t);

typedef struct zipfft__strategy {
  const char *name;
  /* 1 when the strategy can plan the description on the target. */
  int (*applicable)(const struct zipfft_desc_s *d, const zipfft__target *t);
  /* Fills the decomposition; returns a status (with detail) on failure. */
  zipfft_status (*make)(const struct zipfft_desc_s *d, const zipfft__layout *layout,
                        const zipfft__target *t, zipfft__decomposition *out);
  /* Appends a one-line description of the decomposition. */
  void (*print)(const zipfft__decomposition *dec, zipfft__strbuf *sb);
} zipfft__strategy;

/* One pass per axis, ranks 1-3: a single-kernel Stockham pass, or for an axis too long
 * for one kernel a pass through the workspace (plan/axes.c, plan/long_axis.c). */
extern const zipfft__strategy zipfft__strategy_axes;
/* Rank-1 C2C lengths beyond one kernel: N = N1 * ... * Np, one kernel per factor with
 * the twiddles fused into its stores (plan/fourstep.c). */
extern const zipfft__strategy zipfft__strategy_fourstep;

/* Appends what kernel i of a decomposition does (kind, arrays, length, radices, threads,
 * fused operations), one or two lines (plan/describe.c). */
void zipfft__print_kernel(const zipfft__decomposition *dec, int i, zipfft__strbuf *sb);

/* Sizes the single kernel of an axis pass whose kind, length, strides, batch, extents and
 * scale are set: R2C and C2R of even lengths at half length where that fits, neighbouring
 * threads on neighbouring transforms for columns. Returns 0 when no single kernel fits. */
int zipfft__size_axis_pass(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t);

/* 1 when axis k of the description can be transformed by one kernel. */
int zipfft__axis_supported(const struct zipfft_desc_s *d, int k, const zipfft__target *t);
/* 1 when axis k can be transformed by one kernel or through the workspace (used to name
 * the offending length when nothing applies). */
int zipfft__axis_possible(const struct zipfft_desc_s *d, int k, const zipfft__target *t);

/* Finds the first applicable strategy in the registry; NULL when none applies (the detail
 * says why: unsupported type, rank or length). */
const zipfft__strategy *zipfft__choose_strategy(const struct zipfft_desc_s *d,
                                                const zipfft__target *t, zipfft_status *why);

#endif
