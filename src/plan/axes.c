/* axes.c - strategy: a rank-1..3 transform as one batched pass per axis, fastest axis
 * first; the other axes and the user's batch are the pass's batch. R2C starts with the
 * real pass over the last axis, C2R ends with it. A pass is one single kernel, or for an
 * axis too long for one a pass through the workspace (plan/long_axis.c). */
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "plan/long_axis.h"
#include "plan/single.h"

/* One of the user's arrays as a pass sees it. */
typedef struct array_view {
  int64_t lengths[ZIPFFT__MAX_RANK];
  const int64_t *strides;
  int64_t dist;
  zipfft_storage storage;
} array_view;

/* The input (out = 0) or output (out = 1) array of the description. */
static array_view view_of(const struct zipfft_desc_s *d, const zipfft__layout *l, int out) {
  array_view v = {{0},
                  out ? l->out_strides : l->in_strides,
                  out ? l->out_dist : l->in_dist,
                  out ? d->out_storage : d->in_storage};
  zipfft__array_lengths(d, out, v.lengths);
  return v;
}

/* One planned pass: which axis, which kind, from which array to which. */
typedef struct pass_plan {
  int axis;
  zipfft__kernel_kind kind;
  int src_is_output, dst_is_output;
} pass_plan;

/* The batch of the pass over axis k: the user's batch (slowest) then the other axes in
 * array order. */
static void batch_of(const struct zipfft_desc_s *d, const array_view *src, const array_view *dst,
                     int k, zipfft__kernel_spec *s) {
  s->batch_counts[0] = d->batch;
  s->batch_in_strides[0] = src->dist;
  s->batch_out_strides[0] = dst->dist;
  s->batch_dims = 1;
  for (int a = 0; a < d->rank; a++) {
    if (a == k || src->lengths[a] == 1) continue;
    s->batch_counts[s->batch_dims] = src->lengths[a];
    s->batch_in_strides[s->batch_dims] = src->strides[a];
    s->batch_out_strides[s->batch_dims] = dst->strides[a];
    s->batch_dims++;
  }
}

/* Transforms of the pass over axis k: the batch times every other length of the array. */
static int64_t transforms_of(const struct zipfft_desc_s *d, const array_view *src, int k) {
  int64_t count = d->batch;
  for (int a = 0; a < d->rank; a++)
    if (a != k) count *= src->lengths[a];
  return count;
}

/* Even real passes take the half-length method: n/2 complex points on the real data seen
 * as pairs, with the split (R2C) or merge (C2R) in the same kernel. Measured on an H200
 * (4096x4096 batch 4, fp32): R2C 0.95 -> 0.98x cuFFT's speed; C2R 0.94 -> 0.98x once the
 * merge issues all its loads first (0.89x before). ZIPFFT_C2R_HALF=0 keeps C2R at full
 * length (tuning, and the tests of that path). */
static void half_length_if_even(zipfft__kernel_spec *s) {
  const char *c2r_half = getenv("ZIPFFT_C2R_HALF");
  int allow_c2r = !(c2r_half && strcmp(c2r_half, "0") == 0);
  if (s->n % 2 != 0 || (s->kind != ZIPFFT__KIND_R2C && (s->kind != ZIPFFT__KIND_C2R || !allow_c2r)))
    return;
  s->kind = s->kind == ZIPFFT__KIND_R2C ? ZIPFFT__KIND_R2C_HALF : ZIPFFT__KIND_C2R_HALF;
  s->n /= 2;
}

/* The spec of one pass before sizing: full length, the arrays' strides, the batch. */
static void pass_template(const struct zipfft_desc_s *d, const array_view *src,
                          const array_view *dst, const pass_plan *pp, int last,
                          zipfft__kernel_spec *s) {
  int k = pp->axis;
  *s = (zipfft__kernel_spec){.kind = pp->kind,
                             .precision = d->precision,
                             .sign = zipfft__desc_sign(d),
                             .n = d->lengths[k],
                             .in_stride = src->strides[k],
                             .out_stride = dst->strides[k],
                             .scale = last ? d->scale : 1.0,
                             .in_storage = src->storage,
                             .out_storage = dst->storage};
  batch_of(d, src, dst, k, s);
}

/* Fills the spec of one pass; 0 when the axis does not fit one kernel. */
static int pass_spec(const struct zipfft_desc_s *d, const array_view *src, const array_view *dst,
                     const pass_plan *pp, int last, const zipfft__target *t,
                     zipfft__kernel_spec *s) {
  int k = pp->axis;
  int64_t cap = zipfft__single_kernel_cap();
  pass_template(d, src, dst, pp, last, s);
  if (cap > 0 && d->lengths[k] > cap) return 0;
  half_length_if_even(s);
  /* Columns: when the innermost batch dimension is closer in memory than the transform's
   * own elements, neighbouring threads take neighbouring transforms (coalesced). */
  int inner = s->batch_dims - 1;
  s->fft_major = s->batch_dims > 1 || d->batch > 1
                     ? s->batch_in_strides[inner] < s->in_stride && s->batch_in_strides[inner] > 0
                     : 0;
  if (zipfft__size_single_kernel(s, transforms_of(d, src, k), t)) return 1;
  if (!zipfft__kind_is_half(s->kind)) return 0;
  /* Half of the even length does not fit (e.g. it has a large prime factor): full length. */
  s->kind = s->kind == ZIPFFT__KIND_R2C_HALF ? ZIPFFT__KIND_R2C : ZIPFFT__KIND_C2R;
  s->n *= 2;
  return zipfft__size_single_kernel(s, transforms_of(d, src, k), t);
}

/* The passes of a description, in execution order. C2C: every axis longer than 1, fastest
 * first (the first reads the input, the others work in the output). R2C: the real pass
 * over the last axis, then the other axes in the output. C2R: the other axes in place in
 * the input (which it therefore overwrites), then the real pass into the output. */
static int passes_of(const struct zipfft_desc_s *d, pass_plan *out) {
  int count = 0, last = d->rank - 1, real = d->type != ZIPFFT_C2C;
  if (d->type == ZIPFFT_R2C) out[count++] = (pass_plan){last, ZIPFFT__KIND_R2C, 0, 1};
  for (int k = last; k >= 0; k--) {
    if ((real && k == last) || d->lengths[k] == 1) continue;
    int src_out = d->type == ZIPFFT_R2C || (d->type == ZIPFFT_C2C && count > 0);
    out[count++] = (pass_plan){k, ZIPFFT__KIND_C2C, src_out, d->type != ZIPFFT_C2R};
  }
  if (d->type == ZIPFFT_C2R) out[count++] = (pass_plan){last, ZIPFFT__KIND_C2R, 0, 1};
  if (count == 0) out[count++] = (pass_plan){last, ZIPFFT__KIND_C2C, 0, 1}; /* all lengths 1 */
  return count;
}

int zipfft__axis_supported(const struct zipfft_desc_s *d, int k, const zipfft__target *t) {
  int64_t ones[ZIPFFT__MAX_RANK] = {1, 1, 1};
  array_view unit = {{1, 1, 1}, ones, 1, ZIPFFT_STORAGE_DEFAULT};
  pass_plan pp = {k, ZIPFFT__KIND_C2C, 0, 1};
  zipfft__kernel_spec s = {0};
  return pass_spec(d, &unit, &unit, &pp, 1, t, &s);
}

int zipfft__axis_possible(const struct zipfft_desc_s *d, int k, const zipfft__target *t) {
  return zipfft__axis_supported(d, k, t) ||
         zipfft__long_axis_possible(d->precision, d->lengths[k], t);
}

static int axes_applicable(const struct zipfft_desc_s *d, const zipfft__target *t) {
  for (int k = 0; k < d->rank; k++)
    if (!zipfft__axis_possible(d, k, t)) return 0;
  return 1;
}

/* Appends pass pp: one kernel when the axis fits one, else a pass through the workspace. */
static zipfft_status append_pass(const struct zipfft_desc_s *d, const array_view views[2],
                                 const pass_plan *pp, int last, const zipfft__target *t,
                                 zipfft__decomposition *out) {
  const array_view *src = &views[pp->src_is_output], *dst = &views[pp->dst_is_output];
  zipfft__array from = pp->src_is_output ? ZIPFFT__ARRAY_OUTPUT : ZIPFFT__ARRAY_INPUT,
                to = pp->dst_is_output ? ZIPFFT__ARRAY_OUTPUT : ZIPFFT__ARRAY_INPUT;
  int64_t transforms = transforms_of(d, src, pp->axis);
  zipfft__kernel_spec s;
  if (!pass_spec(d, src, dst, pp, last, t, &s)) {
    pass_template(d, src, dst, pp, last, &s);
    return zipfft__long_axis_append(&s, transforms, t, from, to, out);
  }
  if (out->kernel_count == ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH, "a plan of more than %d kernels",
                        ZIPFFT__MAX_KERNELS);
  int i = out->kernel_count++;
  out->kernels[i] = s;
  out->src[i] = from, out->dst[i] = to;
  out->transforms[i] = transforms;
  return ZIPFFT_SUCCESS;
}

static zipfft_status axes_make(const struct zipfft_desc_s *d, const zipfft__layout *l,
                               const zipfft__target *t, zipfft__decomposition *out) {
  pass_plan passes[ZIPFFT__MAX_RANK + 1];
  array_view views[2] = {view_of(d, l, 0), view_of(d, l, 1)};
  int count = passes_of(d, passes);
  out->kernel_count = 0;
  for (int p = 0; p < count; p++) {
    int first = out->kernel_count;
    zipfft_status s = append_pass(d, views, &passes[p], p == count - 1, t, out);
    if (s != ZIPFFT_SUCCESS) return s;
    for (int i = first; i < out->kernel_count; i++) out->axis[i] = passes[p].axis;
  }
  return ZIPFFT_SUCCESS;
}

static void axes_print(const zipfft__decomposition *dec, zipfft__strbuf *sb) {
  zipfft__sb_printf(sb, "%d kernel%s, one pass per axis\n", dec->kernel_count,
                    dec->kernel_count == 1 ? "" : "s");
  for (int i = 0; i < dec->kernel_count; i++) {
    zipfft__sb_printf(sb, "    axis %d: ", dec->axis[i]);
    zipfft__print_kernel(dec, i, sb);
  }
}

const zipfft__strategy zipfft__strategy_axes = {
    .name = "axes",
    .applicable = axes_applicable,
    .make = axes_make,
    .print = axes_print,
};
