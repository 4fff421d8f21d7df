/* kernel_spec.c - derived quantities and names of kernel specifications. */
#include "plan/kernel_spec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/tuning.h"

size_t zipfft__real_size(zipfft_precision p) { return p == ZIPFFT_F32 ? 4 : 8; }

size_t zipfft__complex_bytes(zipfft_precision p, zipfft_storage storage) {
  return storage == ZIPFFT_STORAGE_DEFAULT ? 2 * zipfft__real_size(p) : 4;
}

int zipfft__kind_is_half(zipfft__kernel_kind k) {
  return k == ZIPFFT__KIND_R2C_HALF || k == ZIPFFT__KIND_C2R_HALF;
}

int zipfft__kind_is_full_real(zipfft__kernel_kind k) {
  return k == ZIPFFT__KIND_R2C || k == ZIPFFT__KIND_C2R;
}

int zipfft__kind_real_in(zipfft__kernel_kind k) {
  return k == ZIPFFT__KIND_R2C || k == ZIPFFT__KIND_R2C_HALF || k == ZIPFFT__KIND_R2R;
}

int zipfft__kind_real_out(zipfft__kernel_kind k) {
  return k == ZIPFFT__KIND_C2R || k == ZIPFFT__KIND_C2R_HALF || k == ZIPFFT__KIND_R2R;
}

int64_t zipfft__pointwise_chunk(const zipfft__kernel_spec *s) {
  return s->pointwise == ZIPFFT__PW_SIGNAL_SUM ? ZIPFFT__POINTWISE_THREADS
                                               : ZIPFFT__POINTWISE_CHUNK;
}

int64_t zipfft__pointwise_chunks(const zipfft__kernel_spec *s) {
  return (s->pointwise_range + zipfft__pointwise_chunk(s) - 1) / zipfft__pointwise_chunk(s);
}

void zipfft__make_pointwise(zipfft__kernel_spec *s, zipfft__pointwise_op op, int64_t range) {
  s->pointwise = op;
  s->pointwise_range = range;
  s->pass_count = 0;
  s->threads_per_fft = ZIPFFT__POINTWISE_THREADS;
  s->ffts_per_block = 1;
  s->fft_major = s->store_major = 0;
  s->twiddle_length = 0;
  s->twiddle_chain = 0;
  s->batch_counts[s->batch_dims] = zipfft__pointwise_chunks(s);
  s->batch_in_strides[s->batch_dims] = s->batch_out_strides[s->batch_dims] = 0;
  s->batch_dims++;
}

int zipfft__pointwise_is_gather(const zipfft__kernel_spec *s) {
  return s->pointwise == ZIPFFT__PW_GATHER || s->pointwise == ZIPFFT__PW_CHIRP_GATHER ||
         s->pointwise == ZIPFFT__PW_MERGE;
}

int zipfft__pointwise_is_scatter(const zipfft__kernel_spec *s) {
  return s->pointwise == ZIPFFT__PW_SCATTER || s->pointwise == ZIPFFT__PW_CHIRP_SCATTER ||
         s->pointwise == ZIPFFT__PW_SPLIT;
}

int zipfft__reads_workspace(const zipfft__kernel_spec *s) {
  return zipfft__pointwise_is_scatter(s) ||
         (s->paired_rows > 0 && s->kind == ZIPFFT__KIND_R2C_HALF);
}

int zipfft__writes_workspace(const zipfft__kernel_spec *s) {
  return zipfft__pointwise_is_gather(s) || (s->paired_rows > 0 && s->kind == ZIPFFT__KIND_C2R_HALF);
}

size_t zipfft__element_bytes(const zipfft__kernel_spec *s, int out) {
  int r2c = zipfft__kind_real_in(s->kind), c2r = zipfft__kind_real_out(s->kind);
  int workspace_side = out ? zipfft__writes_workspace(s) : zipfft__reads_workspace(s);
  int real = !workspace_side && s->pointwise != ZIPFFT__PW_FILTER && (out ? c2r : r2c);
  real |= (out ? s->bluestein_store : s->bluestein_load) == ZIPFFT__BLUESTEIN_CHIRP_REAL;
  size_t complex_bytes = zipfft__complex_bytes(s->precision, out ? s->out_storage : s->in_storage);
  return real ? complex_bytes / 2 : complex_bytes;
}

int zipfft__real_pairs_as_vectors(const zipfft__kernel_spec *s, int out) {
  zipfft__kernel_kind half = out ? ZIPFFT__KIND_C2R_HALF : ZIPFFT__KIND_R2C_HALF;
  zipfft_storage storage = out ? s->out_storage : s->in_storage;
  const zipfft__callback *callback = out ? &s->store_callback : &s->load_callback;
  int64_t stride = out ? s->out_stride : s->in_stride;
  int64_t extent = out ? s->store_extent : s->load_extent;
  if (s->kind != half || s->pointwise != ZIPFFT__PW_NONE || s->paired_rows > 0 || stride != 1 ||
      extent % 2 != 0 || callback->function || storage == ZIPFFT__STORAGE_CALLBACK)
    return 0;
  const int64_t *row_strides = out ? s->batch_out_strides : s->batch_in_strides;
  for (int d = 0; d < s->batch_dims; d++) /* an inner digit of count 1 is always 0 */
    if ((d == 0 || s->batch_counts[d] != 1) && row_strides[d] % 2 != 0) return 0;
  if (!out && s->in_tile > 1 && s->in_tile_shift % 2 != 0) return 0;
  return out || s->loop_in_stride % 2 == 0;
}

size_t zipfft__vector_bytes(const zipfft__kernel_spec *s, int out) {
  if (!zipfft__real_pairs_as_vectors(s, out)) return zipfft__element_bytes(s, out);
  return zipfft__complex_bytes(s->precision, out ? s->out_storage : s->in_storage);
}

int64_t zipfft__logical_length(const zipfft__kernel_spec *s) {
  return s->bluestein_n > 0 ? s->bluestein_n
         : s->rader_n > 0   ? s->rader_n
                            : zipfft__transform_points(s);
}

int64_t zipfft__chirp_length(const zipfft__kernel_spec *s) {
  return s->bluestein_n > 0 ? s->bluestein_n : s->chirp_n;
}

zipfft__chirp_half zipfft__chirp_half_of(zipfft__kernel_kind kind) {
  return kind == ZIPFFT__KIND_R2C   ? ZIPFFT__CHIRP_HALF_OUT
         : kind == ZIPFFT__KIND_C2R ? ZIPFFT__CHIRP_HALF_IN
                                    : ZIPFFT__CHIRP_FULL;
}

int64_t zipfft__chirp_inputs(int64_t n, zipfft__chirp_half half) {
  return half == ZIPFFT__CHIRP_HALF_IN ? n / 2 + 1 : n;
}

int64_t zipfft__chirp_outputs(int64_t n, zipfft__chirp_half half) {
  return half == ZIPFFT__CHIRP_HALF_OUT ? n / 2 + 1 : n;
}

int64_t zipfft__chirp_least_padding(int64_t n, zipfft__chirp_half half) {
  return zipfft__chirp_inputs(n, half) + zipfft__chirp_outputs(n, half) - 1;
}

int64_t zipfft__filter_length(const zipfft__kernel_spec *s) {
  return s->bluestein_load == ZIPFFT__BLUESTEIN_FILTER || s->fused == ZIPFFT__FUSED_BLUESTEIN
             ? s->filter_n
             : s->n;
}

int zipfft__fused_with_spectrum(const zipfft__kernel_spec *s) {
  return s->fused == ZIPFFT__FUSED_CORRELATE || s->fused == ZIPFFT__FUSED_CONVOLVE;
}

int64_t zipfft__half_points(const zipfft__kernel_spec *s) {
  return s->rader_n > 0       ? s->rader_n
         : s->paired_rows > 0 ? s->n * s->paired_rows
                              : zipfft__transform_points(s);
}

int64_t zipfft__load_bound(const zipfft__kernel_spec *s) {
  int64_t bound = zipfft__logical_length(s), extent = s->load_extent;
  if (s->bluestein_n > 0 && (s->kind != ZIPFFT__KIND_C2R || s->chirp_half == ZIPFFT__CHIRP_HALF_IN)) {
    /* Bluestein's kernel: the elements beyond its inputs are the padding (the C2R half
     * read as it lies) */
    bound = zipfft__chirp_inputs(s->bluestein_n, s->chirp_half);
    return extent > 0 && extent < bound ? extent : bound;
  }
  if (s->kind == ZIPFFT__KIND_C2R || s->kind == ZIPFFT__KIND_C2R_HALF || extent == 0 ||
      s->rader_n > 0)
    return s->n; /* the Hermitian half is read mirrored, Rader's input permuted: any
                    element may be non-zero */
  if (s->kind == ZIPFFT__KIND_R2C_HALF) extent = (extent + 1) / 2;
  if (s->fused != ZIPFFT__FUSED_NONE) bound = s->n;
  return extent < bound ? extent : bound;
}

int zipfft__cluster_capable(const zipfft__kernel_spec *s) {
  int rows = zipfft__kind_is_half(s->kind) && !s->fft_major && !s->twiddle_length;
  return (s->kind == ZIPFFT__KIND_C2C || rows) && !s->store_major && !s->load_extent &&
         !s->store_extent && !s->paired_rows && s->fused == ZIPFFT__FUSED_NONE && !s->statistics &&
         s->pointwise == ZIPFFT__PW_NONE && !zipfft__convolution_kernel(s);
}

int zipfft__has_merge_phase(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_C2R_HALF && s->cluster <= 1 && !s->merge_on_load && !s->mirrored;
}

int zipfft__first_pass_loads_global(const zipfft__kernel_spec *s) {
  return !s->statistics && !zipfft__has_merge_phase(s) && s->rader_n == 0 && !s->in_packed &&
         (s->cluster <= 1 || s->kind == ZIPFFT__KIND_C2C);
}

int zipfft__copies_twiddles_in_first_pass(const zipfft__kernel_spec *s) {
  return s->precision == ZIPFFT_F32 && s->pass_count >= 2 && zipfft__first_pass_loads_global(s);
}

int zipfft__cluster_stores_by_column(const zipfft__kernel_spec *s) {
  return s->fft_major && s->out_stride != 1;
}

int zipfft__cluster_blocks(const zipfft__kernel_spec *s) { return s->cluster > 1 ? s->cluster : 1; }

int zipfft__can_interleave_shared(const zipfft__kernel_spec *s) {
  return s->cluster > 1 && s->fft_major && s->ffts_per_block > 1;
}

int64_t zipfft__transform_points(const zipfft__kernel_spec *s) {
  return s->n * zipfft__cluster_blocks(s);
}

int64_t zipfft__large_twiddle_length(const zipfft__kernel_spec *s) {
  return s->twiddle_length > 0 ? s->twiddle_length
         : s->cluster > 1      ? zipfft__transform_points(s)
                               : 0;
}

int zipfft__mirrored_pass(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_C2R_HALF ? 0 : s->pass_count - 1;
}

int zipfft__can_mirror(const zipfft__kernel_spec *s) {
  int half = s->kind == ZIPFFT__KIND_R2C_HALF || s->kind == ZIPFFT__KIND_C2R_HALF;
  if (!half || s->cluster > 1 || s->paired_rows > 0 || s->rader_n > 0 || s->bluestein_n > 0 ||
      zipfft__two_ffts(s) || s->statistics || s->fft_major || s->store_major ||
      s->pointwise != ZIPFFT__PW_NONE || s->pass_count < 1 ||
      (s->kind == ZIPFFT__KIND_C2R_HALF && (s->load_extent > 0 || s->merge_on_load)))
    return 0;
  int64_t m = s->n / s->radices[zipfft__mirrored_pass(s)], t = s->threads_per_fft;
  return m % t == 0 && (m / t) % 2 == 0;
}

int zipfft__can_merge_on_load(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_C2R_HALF && s->cluster <= 1 && s->paired_rows == 0 &&
         s->rader_n == 0 && s->bluestein_n == 0 && !zipfft__two_ffts(s) && !s->statistics &&
         s->pointwise == ZIPFFT__PW_NONE && s->load_extent == 0 && s->pass_count >= 1;
}

int zipfft__can_split_by_element(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_R2C_HALF && s->cluster <= 1 && s->paired_rows == 0 &&
         s->rader_n == 0 && s->bluestein_n == 0 && !s->mirrored && !zipfft__two_ffts(s) &&
         !s->statistics && s->pass_count >= 1;
}

/* Whether s's rows are plain for copies by element over the block (stage_io,
 * rader_by_element): one block a transform, one batch dimension of unit-stride rows in the
 * default storage, and nothing fused, padded, cropped, tiled, twiddled, looped over signals,
 * pointwise or called back. */
static int plain_unit_rows(const zipfft__kernel_spec *s) {
  return s->cluster <= 1 && s->batch_dims == 1 && s->in_stride == 1 && s->out_stride == 1 &&
         !s->fft_major && !s->store_major && s->in_storage == ZIPFFT_STORAGE_DEFAULT &&
         s->out_storage == ZIPFFT_STORAGE_DEFAULT && s->fused == ZIPFFT__FUSED_NONE &&
         !s->statistics && s->pointwise == ZIPFFT__PW_NONE && s->load_extent == 0 &&
         s->store_extent == 0 && s->out_tile == 0 && s->in_tile == 0 && s->twiddle_length == 0 &&
         !s->load_callback.function && !s->store_callback.function;
}

int zipfft__can_stage_io(const zipfft__kernel_spec *s) {
  int kind =
      s->kind == ZIPFFT__KIND_C2C || zipfft__kind_is_full_real(s->kind) ||
      (zipfft__kind_is_half(s->kind) && !s->mirrored && !s->merge_on_load && s->paired_rows == 0);
  return kind && plain_unit_rows(s) && !zipfft__two_ffts(s) && s->rader_n == 0 &&
         s->bluestein_n == 0 && !s->passes_in_place;
}

int zipfft__packed_rows_contiguous(const zipfft__kernel_spec *s) {
  return s->in_packed == ZIPFFT__PACKED_ALONG && s->in_stride == ZIPFFT__PACKED_SEGMENT_VALUES;
}

int zipfft__packed_by_groups(const zipfft__kernel_spec *s) {
  return s->in_packed != ZIPFFT__PACKED_NONE && !zipfft__packed_rows_contiguous(s);
}

int zipfft__can_pack_segments(const zipfft__kernel_spec *s) {
  int64_t period = zipfft__shared_pad_period(s);
  int plain = s->kind == ZIPFFT__KIND_C2C && s->precision == ZIPFFT_F32 &&
              s->ffts_per_block % ZIPFFT__PACKED_SEGMENT_VALUES == 0 && s->batch_dims >= 2 &&
              s->batch_counts[s->batch_dims - 1] % s->ffts_per_block == 0 && s->cluster <= 1 &&
              !s->stage_io && !s->passes_in_place && !zipfft__two_ffts(s) && !s->statistics &&
              s->load_extent == 0 && s->store_extent == 0 && s->out_tile == 0 && s->in_tile == 0 &&
              !s->load_callback.function && !s->store_callback.function &&
              s->in_storage == ZIPFFT_STORAGE_DEFAULT && s->out_storage == ZIPFFT_STORAGE_DEFAULT &&
              !s->shared_interleaved && s->paired_rows == 0 && s->pointwise == ZIPFFT__PW_NONE;
  int out = !s->out_packed || !zipfft__stores_from_shared(s);
  int along = s->n % ZIPFFT__PACKED_SEGMENT_VALUES == 0 &&
              (period == 0 || period % ZIPFFT__PACKED_SEGMENT_VALUES == 0);
  int in = s->in_packed == ZIPFFT__PACKED_NONE ||
           ((s->in_packed == ZIPFFT__PACKED_ACROSS || along) && s->prefetch_ahead == 0);
  return plain && out && in;
}

int zipfft__can_rader_by_element(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_C2C && s->rader_n > 0 && s->bluestein_n == 0 &&
         s->paired_rows == 0 && plain_unit_rows(s) && s->batch_in_strides[0] == s->rader_n &&
         s->batch_out_strides[0] == s->rader_n;
}

int zipfft__stage_io_real_side(const zipfft__kernel_spec *s, int out) {
  return out ? zipfft__kind_real_out(s->kind) : zipfft__kind_real_in(s->kind);
}

int64_t zipfft__stage_io_row(const zipfft__kernel_spec *s, int out) {
  int real = zipfft__stage_io_real_side(s, out);
  if (s->kind == ZIPFFT__KIND_C2C || zipfft__kind_is_half(s->kind)) /* half: n pairs, n + 1 */
    return s->n + (s->kind != ZIPFFT__KIND_C2C && !real ? 1 : 0);
  return real ? (s->n + 1) / 2 : s->n / 2 + 1; /* R2C, C2R: n reals, n / 2 + 1 complex */
}

/* The complex slots of one 128-byte phase of shared-memory accesses (16 in fp32, 8 in fp64). */
static int64_t phase_slots(const zipfft__kernel_spec *s) {
  return 128 / (int64_t)(2 * zipfft__real_size(s->precision));
}

/* The smallest stride of at least `row` slots that is T (threads a transform) times an odd
 * number, where T is a power of two below a phase's `slots` and that adds at most T slots;
 * 0 elsewhere. The T threads of each of a phase's slots/T transforms, reading element t + c
 * of their rows, then fall in distinct banks (at T = 1: the row made odd). */
static int64_t bank_spread(int64_t row, int64_t threads, int64_t slots) {
  if (threads >= slots || (threads & (threads - 1)) != 0) return 0;
  int64_t spread = row;
  while (spread % threads != 0 || (spread / threads) % 2 == 0) spread++;
  return spread - row <= threads ? spread : 0;
}

int64_t zipfft__stage_io_pitch(const zipfft__kernel_spec *s) {
  int64_t in = zipfft__stage_io_row(s, 0), out = zipfft__stage_io_row(s, 1);
  int64_t row = s->kind == ZIPFFT__KIND_R2C_HALF || in > out ? in : out; /* R2C: by element */
  int64_t slots = phase_slots(s);
  /* An odd pitch suits one thread a transform; with T > 1 it left fp32 C2C 16 (T = 4,
   * pitch 17) up to 4 lanes a bank on its reads of the stage. As for the exchange rows
   * (zipfft__c2c_shared_stride), the spread is taken where it adds at most T slots. */
  int64_t spread = bank_spread(row, s->threads_per_fft, slots);
  return spread ? spread : row | 1;
}

int64_t zipfft__stage_real_pitch(const zipfft__kernel_spec *s) {
  return s->stage_packed_reals ? s->n : 2 * zipfft__stage_io_pitch(s);
}

/* slots rounded up to whole 16 bytes of s's complex slots. */
static int64_t whole_16_bytes(const zipfft__kernel_spec *s, int64_t slots) {
  int64_t per_16_bytes = 16 / (2 * (int64_t)zipfft__real_size(s->precision));
  return (slots + per_16_bytes - 1) / per_16_bytes * per_16_bytes;
}

int64_t zipfft__stage_complex_slot(const zipfft__kernel_spec *s) {
  if (!s->stage_packed_reals) return zipfft__stage_slot(s);
  return zipfft__stage_slot(s) + whole_16_bytes(s, (s->ffts_per_block * s->n + 1) / 2);
}

int zipfft__can_pass_in_place(const zipfft__kernel_spec *s) {
  int two = zipfft__two_ffts(s);
  int fused = two && s->fused != ZIPFFT__FUSED_NONE && !zipfft__convolution_kernel(s);
  int convolution = two && zipfft__convolution_kernel(s) && s->fused == ZIPFFT__FUSED_NONE;
  int staged = !two && s->store_major && s->pointwise == ZIPFFT__PW_NONE; /* one FFT */
  return (fused || convolution ? !s->store_major : staged) && s->pass_count >= 2 &&
         s->cluster <= 1 && !s->statistics && !s->mirrored && !s->merge_on_load &&
         s->paired_rows == 0 && !s->in_packed && !s->out_packed &&
         (s->kind == ZIPFFT__KIND_C2C || (s->rader_n > 0 && zipfft__kind_is_half(s->kind)));
}

int64_t zipfft__aux_offset(const zipfft__kernel_spec *s, int64_t e) {
  if (!s->aux_pairs) return e * s->aux_stride;
  int64_t m = s->n / s->radices[0];
  return (e / (2 * m) * m + e % m) * 2 * s->aux_stride + e / m % 2;
}

int64_t zipfft__in_place_entry(const zipfft__kernel_spec *s, int64_t e) {
  if (!s || !s->passes_in_place) return e;
  /* e = a + m r (m = n / radix 0): a's digits, least significant first, have the radices
   * of passes P-1 down to 1; butterfly j has them with the radices of passes 1 up to P-1 */
  int64_t m = s->n / s->radices[0], a = e % m, j = 0, place = m;
  for (int p = s->pass_count - 1; p >= 1; p--) {
    place /= s->radices[p];
    j += (a % s->radices[p]) * place;
    a /= s->radices[p];
  }
  return e - e % m + j;
}

int zipfft__stores_from_shared(const zipfft__kernel_spec *s) {
  return s->pointwise == ZIPFFT__PW_NONE && (s->store_major || zipfft__convolution_kernel(s));
}

int zipfft__convolution_kernel(const zipfft__kernel_spec *s) {
  return s->bluestein_n > 0 || s->rader_n > 0;
}

int zipfft__two_ffts(const zipfft__kernel_spec *s) {
  return s->pointwise == ZIPFFT__PW_NONE &&
         (zipfft__convolution_kernel(s) || s->fused != ZIPFFT__FUSED_NONE);
}

int zipfft__fused_handoff(const zipfft__kernel_spec *s) {
  return zipfft__two_ffts(s) && !zipfft__convolution_kernel(s) &&
         s->radices[0] == s->radices[s->pass_count - 1];
}

int64_t zipfft__shared_pad_period(const zipfft__kernel_spec *s) {
  return s->radices[0] % 2 == 0 ? s->radices[0] : 0;
}

int64_t zipfft__shared_pad(const zipfft__kernel_spec *s, int64_t i) {
  int64_t period = zipfft__shared_pad_period(s);
  return period ? i + i / period : i;
}

/* How a C2R merge kernel spreads its shared rows: 0 for its merge phase, 1 for its passes,
 * 2 for the merge with the second half of its rows moved by slots/F, which spreads the
 * passes too (conflict-free in every merge kernel of C2R 2^19 to 2^23 by scripts/shared-banks,
 * where 0 needs 1.7-1.8x the conflict-free wavefronts and 1 needs 1.15-1.25x). 2 in fp32, 0
 * in fp64. H100, % of copy, 0 -> 1 -> 2 (one run, session 79,
 * docs/perf/2026-12-06-h100-merge-kernel-banks.md): fp32 C2R 2^19 40.5 -> 41.0 -> 41.9
 * (1.32x -> 1.37x cuFFT), 2^20 39.6 -> 41.5 -> 41.5, 2^21 31.9 -> 32.9 -> 32.9, 2^22 31.6 ->
 * 32.5 -> 32.5; fp64 C2R 2^20 40.8 -> 40.5 -> 40.3, 2^21 39.3 -> 38.4 -> 38.3, 2^19 and 2^22
 * within 0.2. ZIPFFT_MERGE_STRIDE (tuning) sets it for both. */
static int merge_spread(const zipfft__kernel_spec *s) {
  return zipfft__tuning_int("ZIPFFT_MERGE_STRIDE", s->precision == ZIPFFT_F32 ? 2 : 0);
}

/* A C2R merge kernel (paired rows, neighbouring threads on neighbouring transforms). */
static int merge_kernel(const zipfft__kernel_spec *s) {
  return s->paired_rows > 0 && s->fft_major && s->ffts_per_block > 1;
}

int64_t zipfft__shared_row_offset(const zipfft__kernel_spec *s) {
  int64_t slots = phase_slots(s);
  int64_t f = s->ffts_per_block;
  if (!merge_kernel(s) || merge_spread(s) != 2 || f > slots || (f & (f - 1)) != 0) return 0;
  return slots / f;
}

int64_t zipfft__shared_rows_end(const zipfft__kernel_spec *s) {
  return s->ffts_per_block * zipfft__c2c_shared_stride(s) + zipfft__shared_row_offset(s);
}

int64_t zipfft__c2c_shared_stride(const zipfft__kernel_spec *s) {
  int64_t stride = zipfft__shared_pad(s, s->n - 1) + 1;
  if (s->ffts_per_block == 1) return stride;
  int64_t slots = phase_slots(s);
  int64_t threads = s->threads_per_fft;
  if (s->fft_major || s->store_major) {
    /* Transform-major threads: a phase holds F transforms times slots/F neighbouring
     * elements. A stride of slots/F (mod slots) puts them in distinct banks; with
     * F >= slots any odd stride does. (Measured on an H200: an odd stride with F = 4 left
     * 8-way conflicts and the 4096-point column pass at 31% of DRAM bandwidth.)
     * paired_rows kernels access F/2 transforms at a time in their split or merge phase
     * (one of each row pair); the R2C split kernels (store-major) are spread for that phase,
     * the C2R merge kernels (transform-major) as merge_spread says. */
    int64_t across = s->paired_rows > 0 && !(merge_kernel(s) && merge_spread(s) == 1)
                         ? s->ffts_per_block / 2
                         : s->ffts_per_block;
    int64_t want = across < slots ? slots / across : 1;
    while (stride % slots != want % slots) stride++;
  } else if (!s->mirrored &&
             !(s->kind == ZIPFFT__KIND_R2C_HALF && !s->split_by_element && !s->stage_io)) {
    /* Element-major threads, T (a power of two) to a transform: a phase holds slots/T
     * transforms, whose threads t = 0..T-1 access element t + c of their rows. A stride of
     * T times an odd number puts them in distinct banks; the unpadded stride of a short row
     * (e.g. 8 complex doubles at T = 1) put them all in one (H200: fp64 C2R 16 50.0% ->
     * 82.8% of copy). Taken where it adds at most T slots a row: fp64 C2C 24 (29 -> 36)
     * fell from 27 to 22 blocks a multiprocessor and 97.4% to 81.4%. Mirrored kernels,
     * whose threads pair butterflies j and R - j, keep the padded stride (fp32 C2R 64 at
     * 44: 88.6% -> 75.7%), and so do R2C kernels that load their own rows and split in
     * registers: fp64 R2C 64 (35 -> 36) lost 3-4 points of copy, fp32 R2C 96 about 2,
     * with fewer conflicts but more resident blocks on a larger shared-memory carveout (L1
     * hit rate 33% -> 22%, docs/perf/2026-12-04-h200-short-kernel-banks.md). */
    int64_t spread = bank_spread(stride, threads, slots);
    if (spread) stride = spread;
  }
  return stride;
}

int zipfft__statistics_reals_per_slot(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_C2R_HALF ? 2 : 1;
}

int64_t zipfft__statistics_reals_per_thread(const zipfft__kernel_spec *s) {
  if (!s->statistics || s->pass_count < 1) return 0;
  int64_t radix = s->radices[s->pass_count - 1], m = s->n / radix;
  int64_t butterflies = (m + s->threads_per_fft - 1) / s->threads_per_fft;
  return butterflies * radix * zipfft__statistics_reals_per_slot(s);
}

int64_t zipfft__rader_slot(const zipfft__kernel_spec *s, int64_t f) {
  return zipfft__shared_rows_end(s) + 2 * f;
}

int64_t zipfft__shared_twiddle_base(const zipfft__kernel_spec *s) {
  int64_t squares = s->squares_in_registers
                        ? 0
                        : zipfft__statistics_reals_per_thread(s) * zipfft__c2c_block_threads(s);
  return zipfft__rader_slot(s, s->rader_n > 0 ? s->ffts_per_block : 0) + (squares + 1) / 2;
}

int zipfft__twiddle_read(int q) { return (q & (q - 1)) == 0; }

int64_t zipfft__shared_twiddle_slot(const zipfft__kernel_spec *s, int p, int q) {
  int64_t at = 0, ns = s->radices[0];
  for (int pass = 1; pass < p; pass++) {
    for (int e = 1; e < s->radices[pass]; e++) at += zipfft__twiddle_read(e) ? ns : 0;
    ns *= s->radices[pass];
  }
  for (int e = 1; e < q; e++) at += zipfft__twiddle_read(e) ? ns : 0;
  return at;
}

int64_t zipfft__stage_row_bytes(const zipfft__kernel_spec *s) {
  int64_t rows = s->in_tile > 1 ? s->in_tile : 1; /* a tile's rows interleave: copy it whole */
  int64_t bytes = rows * zipfft__input_row_elements(s) * (int64_t)zipfft__element_bytes(s, 0);
  return (bytes + 15) / 16 * 16;
}

int64_t zipfft__stage_row_slots(const zipfft__kernel_spec *s) {
  return zipfft__stage_row_bytes(s) / (2 * (int64_t)zipfft__real_size(s->precision));
}

/* The complex slots a kernel's shared memory takes before any staged rows: exchange areas,
 * Rader's slots, the sums of squares and the staged twiddles. */
static int64_t slots_before_stage(const zipfft__kernel_spec *s) {
  /* a staged kernel of one pass over the whole length (C2C, R2C, C2R) exchanges nothing:
   * its stage starts at slot 0 */
  if (s->stage_io && !zipfft__kind_is_half(s->kind) && s->pass_count == 1) return 0;
  int64_t twiddles = s->shared_twiddles ? zipfft__shared_twiddle_slot(s, s->pass_count, 1) : 0;
  return zipfft__shared_twiddle_base(s) + twiddles;
}

int64_t zipfft__stage_slot(const zipfft__kernel_spec *s) {
  return whole_16_bytes(s, slots_before_stage(s));
}

size_t zipfft__c2c_shared_bytes(const zipfft__kernel_spec *s) {
  if (s->pointwise != ZIPFFT__PW_NONE) return 0;
  if (s->pass_count <= 1 && !zipfft__kind_is_half(s->kind) && !zipfft__stores_from_shared(s) &&
      !zipfft__two_ffts(s) && !s->statistics && s->cluster <= 1 && !s->stage_io)
    return 0;
  int64_t end = s->stage_rows /* two rows, then the barrier */
                    ? zipfft__stage_slot(s) + 2 * zipfft__stage_row_slots(s) + 1
                    : s->stage_io ? zipfft__stage_complex_slot(s) +
                                        s->ffts_per_block * zipfft__stage_io_pitch(s)
                                  : slots_before_stage(s);
  return (size_t)(2 * end) * zipfft__real_size(s->precision);
}

unsigned zipfft__c2c_block_threads(const zipfft__kernel_spec *s) {
  return (unsigned)(s->threads_per_fft * s->ffts_per_block);
}

/* Appends printf-formatted text to the NUL-terminated text in buf (of len bytes),
 * truncating. */
static void append(char *buf, size_t len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *format, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= len) return;
  va_list ap;
  va_start(ap, format);
  vsnprintf(buf + used, len - used, format, ap);
  va_end(ap);
}

/* Name parts of the fused operations: twiddles, clusters, Bluestein and Rader, pointwise
 * kernels, extents, the fused multiply and its auxiliary strides. */
static void append_fused_parts(const zipfft__kernel_spec *s, char *buf, size_t len) {
  if (s->twiddle_length) append(buf, len, "_L%lld", (long long)s->twiddle_length);
  if (s->twiddle_length && s->twiddle_chain > 1) append(buf, len, "_tc%d", s->twiddle_chain);
  if (s->cluster > 1) append(buf, len, "_grp%d", s->cluster);
  if (s->store_major) append(buf, len, "_sm");
  if (s->bluestein_n) append(buf, len, "_bl%lld", (long long)s->bluestein_n);
  if (s->chirp_half) append(buf, len, "_ch%d", (int)s->chirp_half);
  if (s->bluestein_load || s->bluestein_store || s->fused == ZIPFFT__FUSED_BLUESTEIN) {
    append(buf, len, "_bq%d%d_%lld_%lld_%lld", (int)s->bluestein_load, (int)s->bluestein_store,
           (long long)s->chirp_n, (long long)s->filter_n, (long long)s->position_step);
    for (int i = 0; i < s->batch_dims; i++)
      append(buf, len, "p%lld", (long long)s->position_steps[i]);
  }
  if (s->rader_n) append(buf, len, "_rds%lld", (long long)s->rader_n);
  if (s->pointwise)
    append(buf, len, "_pw%d_%lld", (int)s->pointwise, (long long)s->pointwise_range);
  if (s->load_extent || s->store_extent)
    append(buf, len, "_x%lld_%lld", (long long)s->load_extent, (long long)s->store_extent);
  if (s->fused)
    append(buf, len, "_fu%d_%lld_%d", (int)s->fused, (long long)s->aux_stride, (int)s->aux_storage);
  for (int i = 0; s->fused && i < s->batch_dims; i++)
    append(buf, len, "a%lld", (long long)s->batch_aux_strides[i]);
  if (s->aux_pairs) append(buf, len, "_ap");
}

/* Name parts of the memory and scheduling options: tiles (m: minus, as a C name allows),
 * staged twiddles, row pairs, mirrored threads, merged loads, passes in place, prefetch,
 * occupancy, statistics, callbacks. */
static void append_option_parts(const zipfft__kernel_spec *s, char *buf, size_t len) {
  if (s->out_tile > 1)
    append(buf, len, "_ot%d_%s%lld", s->out_tile, s->out_tile_shift < 0 ? "m" : "",
           llabs(s->out_tile_shift));
  if (s->in_tile > 1)
    append(buf, len, "_it%d_%s%lld", s->in_tile, s->in_tile_shift < 0 ? "m" : "",
           llabs(s->in_tile_shift));
  if (s->shared_twiddles) append(buf, len, "_tws");
  if (s->paired_rows) append(buf, len, "_rp%lld", (long long)s->paired_rows);
  if (s->row_pair_apart)
    append(buf, len, "_rw%lld_%lld_%d", (long long)s->row_pair_apart,
           (long long)s->row_pairs_present, s->row_pair_dim);
  if (s->mirrored) append(buf, len, "_mir");
  if (s->merge_on_load) append(buf, len, "_mol");
  if (s->cluster_mirror) append(buf, len, "_cmr");
  if (s->shared_interleaved) append(buf, len, "_sil");
  if (s->split_by_element) append(buf, len, "_sbe");
  if (s->stage_io) append(buf, len, "_sio");
  if (s->out_packed || s->in_packed)
    append(buf, len, "_pk%s%s",
           s->in_packed == ZIPFFT__PACKED_ACROSS ? "x"
           : s->in_packed                        ? "i"
                                                 : "",
           s->out_packed ? "o" : "");
  if (s->stage_packed_reals) append(buf, len, "_srp");
  if (s->rader_by_element) append(buf, len, "_rbe");
  if (s->passes_in_place) append(buf, len, "_ip");
  if (s->prefetch_ahead > 0) append(buf, len, "_pa%lld", (long long)s->prefetch_ahead);
  if (s->streaming_io) append(buf, len, "_cs");
  if (s->read_only_tables) append(buf, len, "_rt");
  if (s->distinct_io) append(buf, len, "_dio");
  if (s->prefetch_ahead > 0 && s->prefetch_after_loads) append(buf, len, "_pl");
  if (s->min_blocks > 0 && !s->statistics) append(buf, len, "_mb%d", s->min_blocks);
  if (s->statistics)
    append(buf, len, "_stat%lld_%lld_%d%s%s%s%s", (long long)s->loop_in_stride,
           (long long)s->stats_plane, s->min_blocks, s->signal_pairs ? "_pr" : "",
           s->stats_prefetch ? "_pf" : "", s->stage_rows ? "_sr" : "",
           s->squares_in_registers ? "_sqr" : "");
  if (s->load_callback.function)
    append(buf, len, "_cl%016llx", (unsigned long long)s->load_callback.hash);
  if (s->store_callback.function)
    append(buf, len, "_cs%016llx", (unsigned long long)s->store_callback.hash);
}

void zipfft__c2c_kernel_name(const zipfft__kernel_spec *s, char *buf, size_t len) {
  char radices[128] = "", batch[256] = "", storage[16] = "", fused[384] = "";
  for (int i = 0; i < s->pass_count; i++)
    append(radices, sizeof radices, "%s%d", i ? "x" : "", s->radices[i]);
  for (int i = 0; i < s->batch_dims; i++)
    append(batch, sizeof batch, "_b%lldi%lldo%lld", (long long)(i ? s->batch_counts[i] : 0),
           (long long)s->batch_in_strides[i], (long long)s->batch_out_strides[i]);
  uint64_t scale_bits;
  memcpy(&scale_bits, &s->scale, sizeof scale_bits);
  append_fused_parts(s, fused, sizeof fused);
  append_option_parts(s, fused, sizeof fused);
  if (s->in_storage != ZIPFFT_STORAGE_DEFAULT || s->out_storage != ZIPFFT_STORAGE_DEFAULT)
    snprintf(storage, sizeof storage, "_st%d%d", (int)s->in_storage, (int)s->out_storage);
  static const char *const kinds[] = {"c2c", "r2c", "c2r", "r2ch", "c2rh", "r2r"};
  snprintf(buf, len, "zipfft_%s_%s_%s_n%lld_r%s_t%d_f%d%s%s%s_is%lld_os%lld%s_s%016llx",
           kinds[s->kind], s->precision == ZIPFFT_F32 ? "f32" : "f64", s->sign < 0 ? "fwd" : "inv",
           (long long)s->n, s->pass_count ? radices : "1", s->threads_per_fft, s->ffts_per_block,
           s->fft_major ? "_tm" : "", storage, fused, (long long)s->in_stride,
           (long long)s->out_stride, batch, (unsigned long long)scale_bits);
}

int64_t zipfft__input_row_elements(const zipfft__kernel_spec *s) {
  int64_t points = zipfft__logical_length(s);
  int64_t row = s->kind == ZIPFFT__KIND_R2C_HALF   ? 2 * points
                : s->kind == ZIPFFT__KIND_C2R      ? points / 2 + 1
                : s->kind == ZIPFFT__KIND_C2R_HALF ? points + 1
                                                   : points;
  return s->load_extent > 0 && s->load_extent < row ? s->load_extent : row;
}

/* Bytes of a row of the block's adjacent transforms in the input (one element each). */
static int64_t block_run_bytes(const zipfft__kernel_spec *s) {
  return (int64_t)s->ffts_per_block * (int64_t)zipfft__element_bytes(s, 0);
}

int zipfft__loads_chirp(const zipfft__kernel_spec *s) {
  return s->bluestein_load == ZIPFFT__BLUESTEIN_CHIRP ||
         s->bluestein_load == ZIPFFT__BLUESTEIN_CHIRP_REAL ||
         s->bluestein_load == ZIPFFT__BLUESTEIN_CHIRP_HALF;
}

zipfft__block_input zipfft__block_input_of(const zipfft__kernel_spec *s) {
  int plain = s->kind == ZIPFFT__KIND_C2C,
      real = s->kind != ZIPFFT__KIND_C2C && s->kind != ZIPFFT__KIND_R2R; /* R2C, C2R */
  /* a chirp load's prefetch stops at the convolution's inputs too (build_stockham.c
   * prefetch_columns) */
  int served = (plain || (real && s->rader_n == 0 && s->bluestein_n == 0)) && s->pass_count > 0 &&
               (s->bluestein_load == ZIPFFT__BLUESTEIN_NONE ||
                s->bluestein_load == ZIPFFT__BLUESTEIN_FILTER || zipfft__loads_chirp(s)) &&
               s->pointwise == ZIPFFT__PW_NONE && !s->statistics && (s->cluster <= 1 || plain) &&
               s->paired_rows == 0 && !s->load_callback.function;
  if (!served) return ZIPFFT__BLOCK_INPUT_SCATTERED;
  int fused = s->fused != ZIPFFT__FUSED_NONE;
  int64_t innermost = s->batch_in_strides[s->batch_dims - 1];
  if (!fused && !zipfft__loads_chirp(s) && s->in_stride == 1 && s->batch_dims == 1 &&
      s->load_extent == 0 && innermost >= zipfft__input_row_elements(s))
    return ZIPFFT__BLOCK_INPUT_RANGE;
  if (s->in_stride > 1 && innermost == 1 && block_run_bytes(s) >= 32)
    return ZIPFFT__BLOCK_INPUT_COLUMNS;
  return ZIPFFT__BLOCK_INPUT_SCATTERED;
}

int zipfft__can_prefetch_ahead(const zipfft__kernel_spec *s) {
  return zipfft__block_input_of(s) != ZIPFFT__BLOCK_INPUT_SCATTERED;
}

/* 1 for a column kernel that is not fused (the four-step and multi-dimensional column
 * passes), whose default prefetch is plain_columns_distance's, not the table's. */
static int plain_columns(const zipfft__kernel_spec *s) {
  return s->fused == ZIPFFT__FUSED_NONE && zipfft__block_input_of(s) == ZIPFFT__BLOCK_INPUT_COLUMNS;
}

/* Plain column kernels prefetch only at one block per multiprocessor, where each row of the block's
 * columns is whole 128-byte lines, and only four-step ones (fused twiddles): half the resident
 * blocks ahead, asked for right after the block's own loads; on a device of fast memory, and on
 * slow memory for Bluestein's chirp-loading kernel only. Without its twiddles (a temporary switch)
 * the 2^20 column kernel lost with an eighth at the start (540-553 -> 580-598 us), so the column
 * passes of 2D and 3D plans keep none until measured. Measured on an H200 (session 49,
 * docs/perf/2026-12-02-h200-column-prefetch.md), fp32 2^20 (1024 x 1024, 16 columns a block), % of
 * copy: none 45.3-45.4; when the block starts, an eighth (16 blocks) 46.1-46.3, 8 blocks 46.6, a
 * quarter 45.6, half 42.6; after the loads, 16 blocks 44.9, 32 45.5, 48 46.6, 64 47.6-47.7 (1.20x
 * cuFFT), 96 46.0, 128 42.8 (2^21 and 2^22 alike). Bluestein's first column kernel (chirp loads,
 * bounded to the user's rows) gains too (session 61, docs/perf/2026-12-04-h200-chirp-prefetch.md):
 * fp32 C2C 131101 10.1 -> 10.7% of copy, 1048573 12.5 -> 13.2%, 65537 and 4194319 within 0.1; at 33
 * blocks 1048573 lost (12.2); R2C's, whose reals give 64-byte runs, fp32 R2C 1048573 6.8 -> 7.3%
 * (1.23x -> 1.31x cuFFT), 65537 and fp64 1048573 within 0.1. On an H100 (session 87,
 * docs/perf/2026-12-07-h100-rule-checks.md), with every Bluestein kernel that can prefetch asking
 * 66 blocks ahead after its loads, each row gained: fp32 C2C 131101 13.0 -> 14.9% of copy (2.08x ->
 * 2.39x), 1048573 14.6 -> 15.4, R2C 1048573 10.4 -> 11.3; the slow-memory rule is the chirp-loading
 * kernel's alone. Every kernel of shorter runs lost with a prefetch at the start: 2D 4096^2 (4
 * columns of 4096 points) 34.4 -> 29.7-30.7 on the H200 and 40.5 -> 34.6 on the H100 (session 43);
 * 3D 256^3 and the split 65536 stayed within 0.4 points. */
static zipfft__prefetch_distance plain_columns_distance(const zipfft__kernel_spec *s,
                                                        int64_t blocks_per_multiprocessor,
                                                        int slow_memory) {
  zipfft__prefetch_distance none = {0, 0, 0}, half_after_loads = {4, 0, 1};
  enum { line_bytes = 128 };
  /* R2C's chirp load reads reals: 64-byte runs at the block's 16 fp32 (8 fp64) columns */
  int64_t run = s->bluestein_load == ZIPFFT__BLUESTEIN_CHIRP_REAL ? line_bytes / 2 : line_bytes;
  int memory_pays = !slow_memory || zipfft__loads_chirp(s);
  int pays = memory_pays && blocks_per_multiprocessor == 1 && block_run_bytes(s) % run == 0 &&
             s->twiddle_length > 0;
  return pays ? half_after_loads : none;
}

/* 1 when a kernel that can prefetch ahead gains from it at this many blocks per
 * multiprocessor (see zipfft__prefetch_distance_of): always, except C2R kernels, at 2 to 3
 * blocks on a device of slow memory and 2 to 12 on others. */
static int prefetch_pays(const zipfft__kernel_spec *s, int64_t blocks_per_multiprocessor,
                         int slow_memory) {
  int c2r = s->kind == ZIPFFT__KIND_C2R || s->kind == ZIPFFT__KIND_C2R_HALF;
  int64_t most = slow_memory ? 3 : 12; /* C2R blocks per multiprocessor that still gain */
  return zipfft__can_prefetch_ahead(s) &&
         (!c2r || (blocks_per_multiprocessor >= 2 && blocks_per_multiprocessor <= most));
}

/* How far ahead a block prefetches, in eighths of the grid's resident blocks, by the blocks
 * one multiprocessor holds (the first row that admits them). Block i + k starts about
 * k / resident of a block's lifetime after block i, so a quarter gives the prefetch a
 * quarter of that time. Measured on an H200 (change in time; a quarter, an eighth): 1 block
 * (fp32 16384, fp64 8192) +13%, +11% and +15%, +13%; 3 blocks (fp64 2187) +3.3%, +2.0%; 4
 * to 10 blocks (fp32 4096, fp64 1024) +1.5%, +2.2% and +2.8%, +3.1%; 16 to 25 blocks (fp32
 * 64 to 1024) -6% to -1.4% and -1.6% to +0.8%. A whole wave ahead (k = resident), the
 * prefetched lines were evicted before use and DRAM read the input twice (fp32 16384
 * -12%). On an H100, with a quarter for 1 block and an eighth for 2 to 12, gains reach 11%
 * (fp64 7680) and losses 2.6% (fp64 7681, Rader). A device of slow memory (the H100, whose
 * 25 GB/s per multiprocessor need fewer bytes in flight than the H200's 37) prefetches by
 * bytes instead for 1 to 3 blocks, except in fused correlation kernels (the 2DTM fused
 * kernel, 1 block, lost 1% with an eighth), which keep the table's distance
 * (docs/perf/2026-11-26-h100-prefetch-eighth.md). */
static const struct {
  int64_t blocks_per_multiprocessor;
  zipfft__prefetch_distance distance;
} prefetch_distances[] = {{3, {2, 1, 0}}, {12, {1, 0, 0}}, {INT64_MAX, {0, 0, 0}}};

/* Crowded R2C kernels (more than 12 blocks per multiprocessor) of one transform per block
 * prefetch an eighth ahead, where the table gives none: % of the copy bandwidth, none ->
 * an eighth, session 43 (docs/perf/2026-11-27-h200-rule-checks.md) and 44
 * (docs/perf/2026-11-27-small-real-kernels.md): fp32 R2C 1024 (31 blocks) H200 82.1 ->
 * 86.2, H100 flat (95.8-96.0 -> 95.8-96.4); 1536 (13 blocks) H100 97.8 -> 99.2; 2048 (16
 * blocks) H200 87.9 -> 93.5, H100 96.2 -> 98.1; fp64 R2C 1024 (16 blocks) H100 97.6 -> 98.6. Four
 * transforms to a block lost (fp32 R2C 512, 18 blocks, H100 95.5 -> 93.9), as did the C2C kernels
 * of the table's last row. */
static int crowded_r2c_prefetches(const zipfft__kernel_spec *s, int64_t blocks_per_multiprocessor) {
  return s->kind == ZIPFFT__KIND_R2C_HALF && s->ffts_per_block == 1 &&
         blocks_per_multiprocessor > 12;
}

/* Cluster row kernels (C2C, one transform per cluster) prefetch an eighth of the resident
 * clusters ahead when the block starts, on a device of fast memory; not measured on slow
 * memory, nor for cluster column kernels, which prefetch only when told
 * (ZIPFFT_PREFETCH_BLOCKS, ZIPFFT_PREFETCH_AHEAD). Measured on an H200 (session 50,
 * docs/perf/2026-12-02-h200-cluster-prefetch.md), % of copy, clusters ahead: fp32 32768 (4 x 8192,
 * 2 blocks per multiprocessor, 66 resident clusters) none 58.3-58.4, 8 at the start 59.0-59.3 (the
 * rule's eighth), 16 at the start 59.2, 8 after the loads 58.6, 16 after 60.0; fp64 16384 (4 x
 * 4096, 2 blocks) none 60.1-60.8, 8 at the start 62.9-63.3, 16 after 60.7; fp32 65536 (4 x 16384,
 * one block, not planned) none 44.0, 4 at the start 47.1, 8 43.4, 16 39.3; after the loads 4 47.3,
 * 8 49.2, 16 49.3-49.5. */
zipfft__prefetch_distance zipfft__prefetch_distance_of(const zipfft__kernel_spec *s,
                                                       int64_t blocks_per_multiprocessor,
                                                       int slow_memory) {
  zipfft__prefetch_distance none = {0, 0, 0}, eighth = {1, 0, 0};
  if (!prefetch_pays(s, blocks_per_multiprocessor, slow_memory)) return none;
  if (s->cluster > 1) return slow_memory || s->fft_major ? none : eighth;
  if (plain_columns(s)) return plain_columns_distance(s, blocks_per_multiprocessor, slow_memory);
  if (crowded_r2c_prefetches(s, blocks_per_multiprocessor)) return eighth;
  size_t i = 0;
  while (blocks_per_multiprocessor > prefetch_distances[i].blocks_per_multiprocessor) i++;
  return prefetch_distances[i].distance;
}
