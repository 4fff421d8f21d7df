/* axes.c - strategy: a rank-1..3 C2C transform as one single-kernel batched pass per axis,
 * fastest axis first; the other axes and the user's batch are the pass's batch. */
#include "api/error.h"
#include "plan/single.h"
#include "plan/strategy.h"

/* The batch of the pass over axis k: the user's batch (slowest) then the other axes in
 * array order. Strides are the input's for the first pass, the output's afterwards. */
static void batch_of(const struct zipfft_desc_s *d, const zipfft__layout *l, int k, int first,
                     zipfft__c2c_spec *s) {
  const int64_t *in = first ? l->in_strides : l->out_strides;
  s->batch_dims = 0;
  s->batch_counts[0] = d->batch;
  s->batch_in_strides[0] = first ? l->in_dist : l->out_dist;
  s->batch_out_strides[0] = l->out_dist;
  s->batch_dims = 1;
  for (int a = 0; a < d->rank; a++) {
    if (a == k || d->lengths[a] == 1) continue;
    s->batch_counts[s->batch_dims] = d->lengths[a];
    s->batch_in_strides[s->batch_dims] = in[a];
    s->batch_out_strides[s->batch_dims] = l->out_strides[a];
    s->batch_dims++;
  }
}

/* Transforms of the pass over axis k: the batch times every other length. */
static int64_t transforms_of(const struct zipfft_desc_s *d, int k) {
  int64_t count = d->batch;
  for (int a = 0; a < d->rank; a++)
    if (a != k) count *= d->lengths[a];
  return count;
}

/* Fills the spec of the pass over axis k; 0 when the axis does not fit one kernel. */
static int axis_spec(const struct zipfft_desc_s *d, const zipfft__layout *l, int k, int first,
                     int last, const zipfft__target *t, zipfft__c2c_spec *s) {
  *s = (zipfft__c2c_spec){.precision = d->precision,
                          .sign = (int)d->direction,
                          .n = d->lengths[k],
                          .in_stride = first ? l->in_strides[k] : l->out_strides[k],
                          .out_stride = l->out_strides[k],
                          .scale = last ? d->scale : 1.0,
                          .in_storage = first ? d->in_storage : d->out_storage,
                          .out_storage = d->out_storage};
  batch_of(d, l, k, first, s);
  /* Columns: when the innermost batch dimension is closer in memory than the transform's
   * own elements, neighbouring threads take neighbouring transforms (coalesced). */
  int inner = s->batch_dims - 1;
  s->fft_major = s->batch_dims > 1 || d->batch > 1
                     ? s->batch_in_strides[inner] < s->in_stride && s->batch_in_strides[inner] > 0
                     : 0;
  return zipfft__size_single_kernel(s, transforms_of(d, k), t);
}

int zipfft__axis_supported(const struct zipfft_desc_s *d, int k, const zipfft__target *t) {
  zipfft__layout unit = {{1, 1, 1}, {1, 1, 1}, 1, 1};
  zipfft__c2c_spec s;
  return axis_spec(d, &unit, k, 1, 1, t, &s);
}

static int axes_applicable(const struct zipfft_desc_s *d, const zipfft__target *t) {
  if (d->type != ZIPFFT_C2C) return 0;
  for (int k = 0; k < d->rank; k++)
    if (!zipfft__axis_supported(d, k, t)) return 0;
  return 1;
}

/* The axes that need a pass, fastest first: every axis longer than 1 (a length-1 axis is
 * the identity), or the fastest axis alone when all are 1 (it still copies and scales). */
static int axes_to_run(const struct zipfft_desc_s *d, int *axes) {
  int count = 0;
  for (int k = d->rank - 1; k >= 0; k--)
    if (d->lengths[k] > 1) axes[count++] = k;
  if (count == 0) axes[count++] = d->rank - 1;
  return count;
}

static zipfft_status axes_make(const struct zipfft_desc_s *d, const zipfft__layout *l,
                               const zipfft__target *t, zipfft__decomposition *out) {
  int axes[ZIPFFT__MAX_RANK];
  out->kernel_count = axes_to_run(d, axes);
  for (int i = 0; i < out->kernel_count; i++) {
    int k = axes[i];
    if (!axis_spec(d, l, k, i == 0, i == out->kernel_count - 1, t, &out->kernels[i]))
      return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "planning failed for lengths[%d] = %lld", k,
                          (long long)d->lengths[k]);
    out->reads_output[i] = i > 0;
    out->transforms[i] = transforms_of(d, k);
    out->axis[i] = k;
  }
  return ZIPFFT_SUCCESS;
}

static void axes_print(const zipfft__decomposition *dec, zipfft__strbuf *sb) {
  zipfft__sb_printf(sb, "%d pass%s, one per axis\n", dec->kernel_count,
                    dec->kernel_count == 1 ? "" : "es");
  for (int i = 0; i < dec->kernel_count; i++) {
    const zipfft__c2c_spec *s = &dec->kernels[i];
    zipfft__sb_printf(sb, "    axis %d: n=%lld, %lld transforms, %d Stockham pass%s of radix ",
                      dec->axis[i], (long long)s->n, (long long)dec->transforms[i], s->pass_count,
                      s->pass_count == 1 ? "" : "es");
    for (int r = 0; r < s->pass_count; r++)
      zipfft__sb_printf(sb, "%s%d", r ? "x" : "", s->radices[r]);
    zipfft__sb_printf(sb, ", %d threads per transform, %d transform%s per block%s\n",
                      s->threads_per_fft, s->ffts_per_block, s->ffts_per_block == 1 ? "" : "s",
                      s->fft_major ? " (neighbouring threads on neighbouring transforms)" : "");
  }
}

const zipfft__strategy zipfft__strategy_axes = {
    .name = "axes",
    .applicable = axes_applicable,
    .make = axes_make,
    .print = axes_print,
};
