/* packed_workspace.c - strategy step: a four-step split's intermediate held as 48-byte
 * segments of 8 values sharing an exponent (kernel_spec out_packed, in_packed). */
#include <string.h>

#include "plan/fourstep.h"
#include "plan/tuning.h"

/* Packed by groups: the intermediate of an fp32 split in two whose blocks hold a multiple of 8
 * columns and of 8 rows (paired or not) held as 48-byte segments of 8 values that share an exponent
 * (gen/packed_prelude.c), 6 bytes an element instead of 8, laid out by groups of 8
 * columns: group b stores its element e as segment e of one contiguous run of 48 N0 bytes,
 * and a row block of 8 rows reads segment q of each row as 8 neighbouring segments (384
 * bytes, three whole lines) of group q. A segment's parts are rounded to multiples of
 * 2^-21 of the largest power of two not above its largest part: on the CPU model
 * (docs/perf/probes/packed_workspace_accuracy.c, 1024 x 1024) the relative L2 error of
 * random data rises from 3.0 to 4.8 u, where the gate is 44.7 u (test_c2c's 2^20: 0.77 ->
 * 1.12 u sqrt(log2 n)). Why: the pair's pattern alone ran 6.3% faster with 6 of 8 bytes
 * laid out so (session 81, H100, docs/perf/2026-12-06-h100-pair-narrow-by-item.md), and
 * separate kernels move an eighth fewer bytes. */
static int packable_split(const zipfft__decomposition *dec, int i) {
  const zipfft__kernel_spec *col = &dec->kernels[i], *row = &dec->kernels[i + 1];
  return col->kind == ZIPFFT__KIND_C2C && row->kind == ZIPFFT__KIND_C2C &&
         col->precision == ZIPFFT_F32 && row->precision == ZIPFFT_F32 && col->fft_major &&
         row->store_major && col->ffts_per_block % ZIPFFT__PACKED_SEGMENT_VALUES == 0 &&
         row->ffts_per_block % ZIPFFT__PACKED_SEGMENT_VALUES == 0 &&
         col->twiddle_length == col->n * row->n && col->out_stride == row->n &&
         row->in_stride == 1 && col->batch_dims == 2 && row->batch_dims == 2 &&
         col->batch_counts[1] == row->n && col->batch_out_strides[1] == 1 &&
         row->batch_counts[1] == col->n && row->batch_in_strides[1] == row->n &&
         col->batch_out_strides[0] == row->batch_in_strides[0] && dec->dst[i] == dec->src[i + 1] &&
         dec->src[i] != dec->dst[i] && dec->src[i + 1] != dec->dst[i + 1];
}

/* Packs the split in two at kernel i by groups; 1 when it did (dec unchanged otherwise). */
static int pack_split_in_two(zipfft__decomposition *dec, int i) {
  if (!packable_split(dec, i)) return 0;
  zipfft__kernel_spec col = dec->kernels[i], row = dec->kernels[i + 1];
  const int64_t values = ZIPFFT__PACKED_SEGMENT_VALUES; /* segment e of a group's columns */
  col.out_packed = 1, col.out_stride = values, col.batch_out_strides[1] = col.n;
  row.in_packed = ZIPFFT__PACKED_ALONG, row.in_stride = values * col.n,
  row.batch_in_strides[1] = values;
  if (!zipfft__can_pack_segments(&col) || !zipfft__can_pack_segments(&row)) return 0;
  dec->kernels[i] = col;
  dec->kernels[i + 1] = row;
  return 1;
}

/* Packed in place of the elements: the intermediates of a split in three, whose middle
 * kernel reads and writes the workspace in place, keep the positions they have unpacked,
 * element u in bytes 6u .. 6u + 5 of segment u / 8. A column kernel's 8 neighbouring
 * columns at one element are one segment (48 F / 8 bytes a block and element, F columns a
 * block, where unpacked they were 8 F); the middle kernel reads and writes the same
 * segments (so in place stays safe); the row kernel reads its rows' 6 n contiguous bytes.
 * Why: of the 32 bytes an element a split in three moves through DRAM when its last two
 * kernels pair (fp32 2^24 on an H200), the workspace's first write and read become 12
 * instead of 16. */

/* 1 when a side's segments of 8 neighbouring transforms at one element are whole: the
 * transforms adjacent (innermost batch stride 1) and every other stride a whole segment. */
static int segments_across(const int64_t *batch_strides, int dims, int64_t stride) {
  int whole =
      dims >= 1 && batch_strides[dims - 1] == 1 && stride % ZIPFFT__PACKED_SEGMENT_VALUES == 0;
  for (int d = 0; d + 1 < dims; d++)
    whole = whole && batch_strides[d] % ZIPFFT__PACKED_SEGMENT_VALUES == 0;
  return whole;
}

static int writes_across(const zipfft__kernel_spec *s) {
  return s->fft_major && !s->store_major &&
         segments_across(s->batch_out_strides, s->batch_dims, s->out_stride);
}

static int reads_across(const zipfft__kernel_spec *s) {
  return s->fft_major && !s->store_major &&
         segments_across(s->batch_in_strides, s->batch_dims, s->in_stride);
}

/* 1 when s reads contiguous rows that start on whole segments. */
static int reads_rows(const zipfft__kernel_spec *s) {
  int whole = s->in_stride == 1 && s->n % ZIPFFT__PACKED_SEGMENT_VALUES == 0;
  for (int d = 0; d < s->batch_dims; d++)
    whole = whole && s->batch_in_strides[d] % ZIPFFT__PACKED_SEGMENT_VALUES == 0;
  return whole;
}

static int same_sides(const zipfft__kernel_spec *s) {
  int same = s->in_stride == s->out_stride;
  for (int d = 0; d < s->batch_dims; d++)
    same = same && s->batch_in_strides[d] == s->batch_out_strides[d];
  return same;
}

static int internal_array(zipfft__array a) {
  return a == ZIPFFT__ARRAY_WORKSPACE || a == ZIPFFT__ARRAY_WORKSPACE2;
}

/* Packs, in place of the elements, kernel i's output and kernel i + 1's input when that
 * reads across its transforms, and while the reader runs in place, the data after it too.
 * Returns the count of kernels after i it packed the input of (0: none, dec unchanged). */
static int pack_in_place_of_elements(zipfft__decomposition *dec, int i) {
  zipfft__kernel_spec k[ZIPFFT__MAX_KERNELS];
  memcpy(k, dec->kernels, sizeof k);
  if (dec->src[i] == dec->dst[i] || !reads_across(&k[i + 1])) return 0;
  int j = i;
  for (;; j++) {
    if (j + 1 >= dec->kernel_count || !internal_array(dec->dst[j]) ||
        dec->dst[j] != dec->src[j + 1] || !writes_across(&k[j]))
      return 0;
    zipfft__kernel_spec *reader = &k[j + 1];
    k[j].out_packed = 1;
    if (reads_across(reader))
      reader->in_packed = ZIPFFT__PACKED_ACROSS;
    else if (reads_rows(reader))
      reader->in_packed = ZIPFFT__PACKED_ALONG, reader->in_stride = ZIPFFT__PACKED_SEGMENT_VALUES;
    else
      return 0;
    if (dec->src[j + 1] != dec->dst[j + 1]) break;
    if (reader->in_packed != ZIPFFT__PACKED_ACROSS || !same_sides(reader)) return 0;
  }
  for (int m = i; m <= j + 1; m++)
    if (!zipfft__can_pack_segments(&k[m])) return 0;
  memcpy(dec->kernels + i, k + i, (size_t)(j + 2 - i) * sizeof *k);
  return j + 1 - i;
}

/* ZIPFFT_PACKED_WORKSPACE, tuning: 1 packs; off: on an H100 (session 83,
 * docs/perf/2026-12-07-h100-packed-workspace.md) it lost at every size, fp32 2^20 1.15x ->
 * 1.01x cuFFT, 2^18 1.09x -> 0.95x, splits in three a third (2^27 1.12x -> 0.70x): the
 * kernels that pack store a thread's three 16-byte parts of its own segment (50% more
 * store sectors for 25% fewer bytes); the one that only unpacks gained 3%. Kept until an
 * H200 has measured it (scripts/rule-checks). */
void zipfft__fourstep_pack_workspace(zipfft__decomposition *dec, int from) {
  if (zipfft__tuning_int("ZIPFFT_PACKED_WORKSPACE", 0) == 0) return;
  for (int i = from < 0 ? 0 : from; i + 1 < dec->kernel_count; i++)
    if (!pack_split_in_two(dec, i)) i += pack_in_place_of_elements(dec, i);
}
