/* pair.h - two kernels of a four-step split run as one persistent kernel, so that the
 * data between them stay in the L2 cache instead of going to DRAM and back. */
#ifndef ZIPFFT_PAIR_H
#define ZIPFFT_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "plan/kernel_spec.h"

/* The two kernels (first: the columns, second: the rows) and how the second depends on
 * the first: its transforms [g * second_group, (g + 1) * second_group) read only what the
 * first's transforms [g * first_group, (g + 1) * first_group) wrote (g: a dependency
 * group, one whole transform of the split).
 *
 * The persistent kernel's blocks loop over rounds; in each a block takes the next pair
 * number p from a counter, runs work item p of the first kernel (ffts_per_block of its
 * transforms; none once p is past its items), counts it done in its group's counter, waits
 * until the group of the second kernel's item p - lag is complete, and runs that item
 * (none while p < lag), then discards the L2 lines of what that item read (they are dead:
 * without the discard they would be written back to DRAM). Items are taken in order and
 * the first kernel's item never waits, so every wait is for items of blocks that are
 * running: no deadlock, whatever the grid and however many blocks are resident. */
typedef struct zipfft__pair_spec {
  zipfft__kernel_spec first, second;
  int64_t first_group, second_group;
  /* 1: the first member's input and the second's output are read and written evict-first,
   * so that they push the data between the members out of L2 less. */
  int streaming;
  /* > 0: the CUDA compiler keeps registers low enough for this many blocks per
   * multiprocessor (__launch_bounds__). */
  int min_blocks;
  /* > 1: the cluster form (zipfft__pair_cluster): one thread-block cluster of this many
   * blocks runs each dependency group, its blocks the group's first items, a cluster
   * barrier, then its second items; no counters, no lag, one cluster per group in the grid.
   * The group's data are written and read by one GPC, so through one L2 partition. */
  int cluster;
} zipfft__pair_spec;

/* Kernel parameter order of a pair kernel (both backends). mid is the workspace between
 * the two kernels; sync the counters (8 bytes each: the pair counter, then one per group,
 * zeroed before every launch); rounds the pairs each block takes; lag as above. */
enum {
  ZIPFFT__PAIR_ARG_IN,
  ZIPFFT__PAIR_ARG_MID,
  ZIPFFT__PAIR_ARG_OUT,
  ZIPFFT__PAIR_ARG_FIRST_TWIDDLES,
  ZIPFFT__PAIR_ARG_SECOND_TWIDDLES,
  ZIPFFT__PAIR_ARG_FIRST_BATCH,
  ZIPFFT__PAIR_ARG_SECOND_BATCH,
  ZIPFFT__PAIR_ARG_BATCH_OFFSET,
  ZIPFFT__PAIR_ARG_FIRST_ALIGNED,
  ZIPFFT__PAIR_ARG_SECOND_ALIGNED,
  ZIPFFT__PAIR_ARG_SYNC,
  ZIPFFT__PAIR_ARG_ROUNDS,
  ZIPFFT__PAIR_ARG_LAG,
  ZIPFFT__PAIR_ARG_COUNT
};

/* NULL when the two kernels can run as a pair kernel, else why not: both plain C2C
 * kernels of one precision without statistics, fused operations, clusters or callbacks,
 * with the same number of work items per dependency group (in the cluster form, a multiple
 * of the blocks per cluster). */
const char *zipfft__pair_check(const zipfft__pair_spec *p);
/* The cluster form's blocks per cluster the planner picks: half the items per group (two
 * items a block), when that is 2 to max_cluster_blocks; else 0 (the persistent form). */
int zipfft__pair_cluster_planned(const zipfft__pair_spec *p, int max_cluster_blocks);
/* The blocks per cluster a pair kernel runs with: ZIPFFT_PAIR_CLUSTER's (tuning: 0 the
 * persistent form, C clusters of C blocks) when set, else `planned`; 0 (the persistent
 * form) unless that fits: a divisor of the items per group, 2 to max_cluster_blocks. */
int zipfft__pair_cluster(const zipfft__pair_spec *p, int planned, int max_cluster_blocks);
/* Work items (blocks of the separate kernels) of each kernel per dependency group. */
int64_t zipfft__pair_items_per_group(const zipfft__pair_spec *p);
/* Threads of the pair kernel's blocks, and its dynamic shared memory: the larger of the
 * two kernels' (their twiddles never staged) and the slot that shares the pair number. */
unsigned zipfft__pair_block_threads(const zipfft__pair_spec *p);
size_t zipfft__pair_shared_bytes(const zipfft__pair_spec *p);
/* Real index of that slot in shared memory. */
int64_t zipfft__pair_slot(const zipfft__pair_spec *p);
/* 1 when each transform of the second kernel reads contiguous whole 128-byte lines (the
 * lines it discards), and how many: a row's, or with packed input (kernel_spec in_packed)
 * a run's, segment q of each of an item's transforms. */
int zipfft__pair_discards(const zipfft__pair_spec *p);
int64_t zipfft__pair_row_lines(const zipfft__pair_spec *p);
/* Bytes of the counters for `groups` dependency groups. */
uint64_t zipfft__pair_sync_bytes(int64_t groups);
/* The lag: the least that makes every wait one for items already taken (items per group
 * - 1), so that the data between the members are as recent in the L2 cache as they can be
 * (measured on an H100, fp32 65536: 60% of the copy bandwidth, against 51% with half the
 * grid more); ZIPFFT_PAIR_LAG (tuning) adds that many items. */
int64_t zipfft__pair_lag(const zipfft__pair_spec *p);
/* Deterministic name of the pair kernel, written into buf. */
void zipfft__pair_kernel_name(const zipfft__pair_spec *p, char *buf, size_t len);

#endif
