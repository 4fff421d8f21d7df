/* check_spec.c - which kernel specs the generator can build: a table of rules, each a
 * predicate that finds a spec outside what the builders support and the reason it gives. */
#include <stdint.h>
#include <stdlib.h>

#include "gen/build_context.h"

typedef const zipfft__kernel_spec spec; /* every rule reads the spec only */

/* The shape: passes, radices, threads, batch dimensions. */
static int bad_pass_count(spec *s) {
  return s->pass_count < 1 || s->pass_count > ZIPFFT__MAX_PASSES;
}

static int bad_radix(spec *s) {
  for (int p = 0; p < s->pass_count; p++)
    if (s->radices[p] < 1 || s->radices[p] > ZIPFFT__MAX_RADIX) return 1;
  return 0;
}

static int too_many_values(spec *s) {
  for (int p = 0; p < s->pass_count; p++) {
    pass_shape ps = zipfft__pass_shape_of(s, p);
    if ((int64_t)ps.butterflies * ps.radix > ZIPFFT__MAX_VALUES) return 1;
  }
  return 0;
}

static int radices_not_n(spec *s) {
  int64_t product = 1;
  for (int p = 0; p < s->pass_count; p++) product *= s->radices[p];
  return product != s->n;
}

static int bad_thread_shape(spec *s) { return s->threads_per_fft < 1 || s->ffts_per_block < 1; }

static int bad_batch_dims(spec *s) {
  return s->batch_dims < 1 || s->batch_dims > ZIPFFT__MAX_BATCH_DIMS;
}

static int bad_batch_count(spec *s) {
  for (int d = 1; d < s->batch_dims; d++)
    if (s->batch_counts[d] < 1) return 1;
  return 0;
}

/* Tiles and the block-ahead prefetch. */
static int bad_out_tile(spec *s) {
  return s->out_tile < 0 || (s->out_tile & (s->out_tile - 1)) != 0 ||
         (s->out_tile > 1 && (s->kind != ZIPFFT__KIND_C2C || s->cluster > 1 ||
                              llabs(s->out_tile_shift) * s->out_tile > INT32_MAX));
}

static int bad_in_tile(spec *s) {
  return s->in_tile < 0 || (s->in_tile & (s->in_tile - 1)) != 0 ||
         (s->in_tile > 1 && (s->cluster > 1 || s->paired_rows));
}

static int bad_prefetch_after_loads(spec *s) {
  return s->prefetch_after_loads && (s->prefetch_ahead <= 0 || !zipfft__first_pass_loads_global(s));
}

static int bad_prefetch_ahead(spec *s) {
  return s->prefetch_ahead > 0 && !zipfft__can_prefetch_ahead(s);
}

/* Fused multiplies, statistics, Rader. */
static int bad_aux_pairs(spec *s) {
  return s->aux_pairs && (s->fused == ZIPFFT__FUSED_NONE || s->radices[0] % 2 != 0 ||
                          zipfft__convolution_kernel(s) || !zipfft__two_ffts(s));
}

static int bad_statistics(spec *s) {
  return s->statistics && (zipfft__stores_from_shared(s) || !zipfft__kind_real_out(s->kind));
}

static int bad_rader(spec *s) {
  return s->rader_n > 0 && (s->n != s->rader_n - 1 || s->bluestein_n > 0 || s->statistics ||
                            s->fused != ZIPFFT__FUSED_NONE || s->cluster > 1);
}

static int bad_signal_pairs(spec *s) {
  return s->signal_pairs && (!s->statistics || s->kind != ZIPFFT__KIND_C2R);
}

/* Half-length real kernels and the ways their threads and stages meet. */
static int bad_paired_rows(spec *s) {
  int extent = (s->kind == ZIPFFT__KIND_R2C_HALF ? s->load_extent : s->store_extent) > 0;
  return s->paired_rows > 0 &&
         (!zipfft__kind_is_half(s->kind) || s->ffts_per_block % 2 != 0 || s->paired_rows % 2 != 0 ||
          s->paired_rows % s->ffts_per_block != 0 || s->cluster > 1 || zipfft__two_ffts(s) ||
          s->statistics || extent || (s->kind == ZIPFFT__KIND_C2R_HALF && s->store_major));
}

static int bad_mirrored(spec *s) { return s->mirrored && !zipfft__can_mirror(s); }

static int bad_merge_on_load(spec *s) { return s->merge_on_load && !zipfft__can_merge_on_load(s); }

static int bad_cluster_mirror(spec *s) {
  return s->cluster_mirror && (s->cluster <= 1 || s->kind != ZIPFFT__KIND_C2R_HALF);
}

static int bad_shared_interleaved(spec *s) {
  return s->shared_interleaved && !zipfft__can_interleave_shared(s);
}

static int bad_split_by_element(spec *s) {
  return s->split_by_element && !zipfft__can_split_by_element(s);
}

static int bad_packed(spec *s) {
  return (s->out_packed || s->in_packed) && !zipfft__can_pack_segments(s);
}

static int bad_stage_io(spec *s) {
  return s->stage_io && (!zipfft__can_stage_io(s) || zipfft__stores_from_shared(s));
}

static int bad_packed_reals(spec *s) {
  return s->stage_packed_reals && (!s->stage_io || !zipfft__kind_is_full_real(s->kind));
}

static int bad_rader_by_element(spec *s) {
  return s->rader_by_element && !zipfft__can_rader_by_element(s);
}

static int bad_passes_in_place(spec *s) {
  return s->passes_in_place && !zipfft__can_pass_in_place(s);
}

/* Bluestein: in one kernel, and fused into the four-step kernels of its padded length. */
static int bad_bluestein_padding(spec *s) {
  zipfft__kernel_kind half_kind =
      s->chirp_half == ZIPFFT__CHIRP_HALF_OUT ? ZIPFFT__KIND_R2C : ZIPFFT__KIND_C2R;
  return s->bluestein_n > 0 && (s->n < zipfft__chirp_least_padding(s->bluestein_n, s->chirp_half) ||
                                (s->chirp_half != ZIPFFT__CHIRP_FULL &&
                                 s->pointwise != ZIPFFT__PW_FILTER && s->kind != half_kind));
}

/* 1 when a fused chirp load reads what its convolution's inputs are: the C2R half
 * (CHIRP_HALF) exactly where they are the half (chirp_half HALF_IN). */
static int chirp_load_fits_half(spec *s) {
  int half_load = s->bluestein_load == ZIPFFT__BLUESTEIN_CHIRP_HALF;
  return !zipfft__loads_chirp(s) || half_load == (s->chirp_half == ZIPFFT__CHIRP_HALF_IN);
}

/* 1 when the four-step kernel's positions map into a filter long enough for its chirp. */
static int bad_chirp_positions(spec *s) {
  return s->chirp_n < 1 || s->filter_n < zipfft__chirp_least_padding(s->chirp_n, s->chirp_half) ||
         s->position_step < 1;
}

static int bad_bluestein_steps(spec *s) {
  if (!s->bluestein_load && !s->bluestein_store) return 0;
  int other = s->kind != ZIPFFT__KIND_C2C || s->bluestein_n > 0 || s->rader_n > 0 ||
              s->cluster > 1 || s->fused != ZIPFFT__FUSED_NONE || s->statistics || s->stage_io ||
              s->mirrored || s->load_extent > 0 || s->store_extent > 0;
  int steps = (s->bluestein_load && s->bluestein_store) ||
              s->bluestein_store == ZIPFFT__BLUESTEIN_FILTER ||
              s->bluestein_store == ZIPFFT__BLUESTEIN_CHIRP_HALF || !chirp_load_fits_half(s);
  int extras = (s->bluestein_load && s->load_callback.function) ||
               (s->bluestein_store && (s->store_callback.function || s->out_tile > 1));
  return other || steps || extras || bad_chirp_positions(s);
}

static int bad_fused_bluestein(spec *s) {
  return s->fused == ZIPFFT__FUSED_BLUESTEIN &&
         (s->kind != ZIPFFT__KIND_C2C || s->fft_major || s->store_major || s->statistics ||
          s->aux_pairs || s->cluster > 1 || s->load_extent > 0 || s->store_extent > 0 ||
          s->load_callback.function || s->store_callback.function || bad_chirp_positions(s));
}

/* The rules in the order they are checked: the shape first, so that later rules may index
 * the passes and batch dimensions. */
static const struct {
  int (*violated)(spec *s);
  const char *reason;
} rules[] = {
    {bad_pass_count, "bad pass count"},
    {bad_radix, "bad radix"},
    {bad_thread_shape, "bad thread shape"},
    {too_many_values, "too many values per thread"},
    {radices_not_n, "radices do not multiply to n"},
    {bad_batch_dims, "bad batch dimensions"},
    {bad_batch_count, "bad batch count"},
    {bad_out_tile, "tiled outputs need a C2C kernel, a power-of-two tile and a 32-bit shift"},
    {bad_in_tile,
     "tiled inputs need a power-of-two tile and a kernel without cluster or paired rows"},
    {bad_prefetch_after_loads,
     "a prefetch after the loads needs prefetch_ahead and a first "
     "pass loading from global memory"},
    {bad_prefetch_ahead,
     "a kernel that prefetches its next blocks' input needs one "
     "contiguous input range per block"},
    {bad_aux_pairs, "a spectrum in pairs of rows needs a fused kernel whose first radix is even"},
    {bad_statistics, "statistics need real outputs stored from registers"},
    {bad_rader, "a Rader kernel is a plain transform (or half-length real pass) of n + 1 points"},
    {bad_paired_rows,
     "paired rows need a half-length real kernel of an even number of row pairs per block"},
    {bad_mirrored,
     "a mirrored kernel needs what zipfft__can_mirror allows: a plain "
     "half-length real kernel of one block whose mirrored pass gives each "
     "thread an even number of butterflies"},
    {bad_merge_on_load,
     "a kernel that merges on load needs what zipfft__can_merge_on_load "
     "allows: a plain C2R_HALF kernel of one block"},
    {bad_cluster_mirror, "mirrors through the cluster need a C2R_HALF cluster kernel"},
    {bad_shared_interleaved,
     "interleaved shared memory needs what zipfft__can_interleave_shared allows: a "
     "cluster kernel of more than one column a block"},
    {bad_split_by_element,
     "a split by element needs what zipfft__can_split_by_element "
     "allows: a plain R2C_HALF kernel of one block that splits through "
     "shared memory"},
    {bad_packed,
     "packed segments need a plain fp32 C2C kernel of a multiple of 8 transforms a block over "
     "whole "
     "blocks (outputs stored from registers; inputs of a length that is a multiple of 8, "
     "not prefetched)"},
    {bad_stage_io,
     "staged inputs and outputs need what zipfft__can_stage_io allows: a plain "
     "C2C, R2C, C2R, R2C_HALF or C2R_HALF kernel of one block over unit-stride "
     "rows"},
    {bad_packed_reals,
     "packed real rows in the stage need a staged R2C or C2R kernel of the full length"},
    {bad_rader_by_element,
     "Rader by element needs what zipfft__can_rader_by_element allows: "
     "a plain C2C Rader kernel over rows back to back"},
    {bad_passes_in_place,
     "passes in place need what zipfft__can_pass_in_place allows: a "
     "fused, Bluestein, Rader or store_major kernel of one block"},
    {bad_bluestein_padding,
     "a Bluestein kernel pads to its convolution's inputs plus outputs "
     "less one, and only R2C stores (C2R loads) a half"},
    {bad_bluestein_steps,
     "fused Bluestein steps need a plain C2C kernel of the padded "
     "length's four-step: a chirp or filter load, or a chirp store, with "
     "no callback, extent or tile there"},
    {bad_fused_bluestein,
     "a fused Bluestein kernel is a plain C2C row kernel of the padded "
     "length's split in two, its filter's positions mapped"},
    {bad_signal_pairs, "signal pairs need a C2R statistics kernel"},
};

/* A pointwise kernel (no passes): one row chunk per block over its range. */
static int pointwise_ok(spec *s) {
  return s->pass_count == 0 && s->threads_per_fft == ZIPFFT__POINTWISE_THREADS &&
         s->ffts_per_block == 1 && s->batch_dims >= 2 && s->batch_dims <= ZIPFFT__MAX_BATCH_DIMS &&
         s->pointwise_range > 0 && s->pointwise_range <= s->n &&
         (s->pointwise != ZIPFFT__PW_SIGNAL_SUM ||
          (s->loop_in_stride == s->pointwise_range && s->kind == ZIPFFT__KIND_R2R));
}

const char *zipfft__check_spec(const zipfft__kernel_spec *s) {
  if (s->pointwise != ZIPFFT__PW_NONE) return pointwise_ok(s) ? NULL : "bad pointwise kernel";
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (rules[i].violated(s)) return rules[i].reason;
  return zipfft__check_cluster(s);
}
