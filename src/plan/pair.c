/* pair.c - the facts of a pair kernel (two four-step kernels run as one persistent
 * kernel): when two kernels qualify, its shape, its counters and its lag. */
#include "plan/pair.h"
#include "plan/tuning.h"

#include <stdio.h>
#include <stdlib.h>

/* Line size of the L2 cache's discard (bytes). */
enum { discard_line = 128 };

/* Why one kernel of a pair cannot be in one (NULL: it can). */
static const char *check_member(const zipfft__kernel_spec *s) {
  if (s->kind != ZIPFFT__KIND_C2C || s->pointwise != ZIPFFT__PW_NONE)
    return "a pair holds C2C transform kernels only";
  if (s->statistics || s->fused != ZIPFFT__FUSED_NONE || zipfft__convolution_kernel(s) ||
      s->cluster > 1)
    return "a pair kernel has no statistics, fused multiply, Bluestein, Rader or clusters";
  if (s->load_callback.function || s->store_callback.function)
    return "a pair kernel has no callbacks";
  if (s->pass_count < 2) return "a pair kernel's members exchange through shared memory";
  return NULL;
}

const char *zipfft__pair_check(const zipfft__pair_spec *p) {
  const char *why = check_member(&p->first);
  if (!why) why = check_member(&p->second);
  if (why) return why;
  if (p->first.precision != p->second.precision) return "a pair has one precision";
  if (zipfft__c2c_block_threads(&p->first) != zipfft__c2c_block_threads(&p->second))
    return "a pair's kernels have blocks of the same threads";
  if (p->first_group < 1 || p->second_group < 1 || p->first_group % p->first.ffts_per_block != 0 ||
      p->second_group % p->second.ffts_per_block != 0)
    return "a pair's groups are whole work items";
  if (p->first_group / p->first.ffts_per_block != p->second_group / p->second.ffts_per_block)
    return "a pair's kernels have the same work items per group";
  if (p->cluster > 1 && zipfft__pair_items_per_group(p) % p->cluster != 0)
    return "a pair kernel's clusters split each group's items evenly";
  return NULL;
}

/* 1 when clusters of `blocks` blocks can run p's groups. */
static int cluster_fits(const zipfft__pair_spec *p, int64_t blocks, int max_cluster_blocks) {
  return blocks >= 2 && blocks <= max_cluster_blocks &&
         zipfft__pair_items_per_group(p) % blocks == 0;
}

int zipfft__pair_cluster_planned(const zipfft__pair_spec *p, int max_cluster_blocks) {
  int64_t items = zipfft__pair_items_per_group(p);
  return items % 2 == 0 && cluster_fits(p, items / 2, max_cluster_blocks) ? (int)(items / 2) : 0;
}

int zipfft__pair_cluster(const zipfft__pair_spec *p, int planned, int max_cluster_blocks) {
  int blocks = zipfft__tuning_int("ZIPFFT_PAIR_CLUSTER", planned);
  return cluster_fits(p, blocks, max_cluster_blocks) ? blocks : 0;
}

int64_t zipfft__pair_items_per_group(const zipfft__pair_spec *p) {
  return p->first_group / p->first.ffts_per_block;
}

unsigned zipfft__pair_block_threads(const zipfft__pair_spec *p) {
  return zipfft__c2c_block_threads(&p->first);
}

int64_t zipfft__pair_slot(const zipfft__pair_spec *p) {
  size_t a = zipfft__c2c_shared_bytes(&p->first), b = zipfft__c2c_shared_bytes(&p->second);
  return (int64_t)((a > b ? a : b) / zipfft__real_size(p->first.precision));
}

size_t zipfft__pair_shared_bytes(const zipfft__pair_spec *p) {
  /* The slot, rounded up to keep 16-byte alignment. */
  return (size_t)zipfft__pair_slot(p) * zipfft__real_size(p->first.precision) + 16;
}

/* Packed input (kernel_spec in_packed) by groups of transforms (the split in two): whether
 * every run an item reads, segment q of its neighbouring transforms side by side, is whole
 * 128-byte lines (each digit's step, the innermost one's over a block's transforms, and the
 * segment step a multiple of a line). */
static int packed_runs_whole_lines(const zipfft__kernel_spec *s) {
  int64_t bytes = ZIPFFT__PACKED_ELEMENT_BYTES, inner = s->batch_dims - 1;
  int whole = (s->ffts_per_block * ZIPFFT__PACKED_SEGMENT_VALUES * bytes) % discard_line == 0 &&
              (s->in_stride * bytes) % discard_line == 0;
  for (int64_t d = 0; d <= inner; d++) {
    int64_t step = s->batch_in_strides[d] * (d == inner ? s->ffts_per_block : 1);
    whole = whole && (step * bytes) % discard_line == 0;
  }
  return whole;
}

int zipfft__pair_discards(const zipfft__pair_spec *p) {
  const char *env = getenv("ZIPFFT_PAIR_DISCARD"); /* tuning: 0 never discards */
  if (env && *env == '0') return 0;
  const zipfft__kernel_spec *s = &p->second;
  if (zipfft__packed_by_groups(s)) return packed_runs_whole_lines(s);
  int rows = zipfft__packed_rows_contiguous(s); /* packed rows: 6-byte elements side by side */
  int64_t bytes = rows ? ZIPFFT__PACKED_ELEMENT_BYTES
                       : (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT);
  if (s->in_stride != (rows ? ZIPFFT__PACKED_SEGMENT_VALUES : 1) ||
      (s->n * bytes) % discard_line != 0)
    return 0;
  for (int d = 0; d < s->batch_dims; d++)
    if ((s->batch_in_strides[d] * bytes) % discard_line != 0) return 0;
  return 1;
}

int64_t zipfft__pair_row_lines(const zipfft__pair_spec *p) {
  const zipfft__kernel_spec *s = &p->second;
  if (zipfft__packed_rows_contiguous(s)) return s->n * ZIPFFT__PACKED_ELEMENT_BYTES / discard_line;
  if (zipfft__packed_by_groups(s))
    return s->ffts_per_block * ZIPFFT__PACKED_SEGMENT_VALUES * ZIPFFT__PACKED_ELEMENT_BYTES /
           discard_line;
  return s->n * (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT) / discard_line;
}

uint64_t zipfft__pair_sync_bytes(int64_t groups) { return 8 * (uint64_t)(groups + 1); }

int64_t zipfft__pair_lag(const zipfft__pair_spec *p) {
  const char *env = getenv("ZIPFFT_PAIR_LAG");
  int64_t extra = env && *env ? atoll(env) : 0;
  if (extra < 0) extra = 0;
  return zipfft__pair_items_per_group(p) - 1 + extra;
}

void zipfft__pair_kernel_name(const zipfft__pair_spec *p, char *buf, size_t len) {
  char a[ZIPFFT__KERNEL_NAME_MAX], b[ZIPFFT__KERNEL_NAME_MAX];
  zipfft__c2c_kernel_name(&p->first, a, sizeof a);
  zipfft__c2c_kernel_name(&p->second, b, sizeof b);
  char cluster[16] = "";
  if (p->cluster > 1) snprintf(cluster, sizeof cluster, "_c%d", p->cluster);
  snprintf(buf, len, "zipfft_pair_g%lld_%lld%s%s_mb%d__%s__%s", (long long)p->first_group,
           (long long)p->second_group, p->streaming ? "_cs" : "", cluster, p->min_blocks, a + 7,
           b + 7); /* without each "zipfft_" */
}
