/* axes.c - strategy: a rank-1..3 transform as one batched pass per axis, fastest axis
 * first; the other axes and the user's batch are the pass's batch. R2C starts with the
 * real pass over the last axis, C2R ends with it. A pass is one single kernel, or for an
 * axis too long for one a pass through the workspace (plan/long_axis.c). */
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "plan/long_axis.h"
#include "plan/single.h"

/* An array a pass reads or writes: the user's input or output (extent-sized, as stored),
 * or the plan's intermediate array (contiguous complex values in the compute precision,
 * used when padded or cropped intermediate results do not fit the user's array). */
typedef struct array_view {
  int64_t strides[ZIPFFT__MAX_RANK];
  int64_t dist;
  zipfft_storage storage;
} array_view;

/* What the passes of a description see: the three arrays, the extents of the data before
 * and after each axis is transformed, and the intermediate array's shape. */
typedef struct pass_context {
  array_view views[ZIPFFT__ARRAY_COUNT];
  int64_t in_extent[ZIPFFT__MAX_RANK], out_extent[ZIPFFT__MAX_RANK];
  int64_t logical_in[ZIPFFT__MAX_RANK], logical_out[ZIPFFT__MAX_RANK];
  int64_t intermediate_elements; /* 0: no intermediate array */
} pass_context;

/* One planned pass: which axis, which kind, from which array to which; done[a] says
 * whether axis a was transformed by an earlier pass. */
typedef struct pass_plan {
  int axis;
  zipfft__kernel_kind kind;
  zipfft__array src, dst;
  int done[ZIPFFT__MAX_RANK];
  int first; /* the first pass (the one that reads the user's input) */
} pass_plan;

/* Elements of axis a a pass sees: the output extent once transformed, else the input's. */
static int64_t count_of(const pass_context *c, const pass_plan *pp, int a) {
  return pp->done[a] ? c->out_extent[a] : c->in_extent[a];
}

/* The batch of the pass over axis k: the user's batch (slowest) then the other axes in
 * array order. */
static void batch_of(const struct zipfft_desc_s *d, const pass_context *c, const pass_plan *pp,
                     zipfft__kernel_spec *s) {
  const array_view *src = &c->views[pp->src], *dst = &c->views[pp->dst];
  s->batch_counts[0] = d->batch;
  s->batch_in_strides[0] = src->dist;
  s->batch_out_strides[0] = dst->dist;
  s->batch_dims = 1;
  for (int a = 0; a < d->rank; a++) {
    if (a == pp->axis || count_of(c, pp, a) == 1) continue;
    s->batch_counts[s->batch_dims] = count_of(c, pp, a);
    s->batch_in_strides[s->batch_dims] = src->strides[a];
    s->batch_out_strides[s->batch_dims] = dst->strides[a];
    s->batch_dims++;
  }
}

/* Transforms of the pass over axis k: the batch times every other axis's count. */
static int64_t transforms_of(const struct zipfft_desc_s *d, const pass_context *c,
                             const pass_plan *pp) {
  int64_t count = d->batch;
  for (int a = 0; a < d->rank; a++)
    if (a != pp->axis) count *= count_of(c, pp, a);
  return count;
}

/* Even real passes take the half-length method: n/2 complex points on the real data seen
 * as pairs, with the split (R2C) or merge (C2R) in the same kernel. Measured on an H200
 * (4096x4096 batch 4, fp32): R2C 0.95 -> 0.98x cuFFT's speed; C2R 0.94 -> 0.98x once the
 * merge issues all its loads first (0.89x before). ZIPFFT_C2R_HALF=0 keeps C2R at full
 * length (tuning, and the tests of that path). Statistics kernels with signal_pairs stay at
 * full length: their complex transform already carries two real rows. */
static void half_length_if_even(zipfft__kernel_spec *s) {
  const char *c2r_half = getenv("ZIPFFT_C2R_HALF");
  int allow_c2r = !(c2r_half && strcmp(c2r_half, "0") == 0);
  if (s->n % 2 != 0 || s->signal_pairs ||
      (s->kind != ZIPFFT__KIND_R2C && (s->kind != ZIPFFT__KIND_C2R || !allow_c2r)))
    return;
  s->kind = s->kind == ZIPFFT__KIND_R2C ? ZIPFFT__KIND_R2C_HALF : ZIPFFT__KIND_C2R_HALF;
  s->n /= 2;
}

/* The spec of one pass before sizing: full length, the arrays' strides, the batch, the
 * padded loads and cropped stores along the axis. */
static void pass_template(const struct zipfft_desc_s *d, const pass_context *c, const pass_plan *pp,
                          int last, zipfft__kernel_spec *s) {
  int k = pp->axis;
  const array_view *src = &c->views[pp->src], *dst = &c->views[pp->dst];
  *s = (zipfft__kernel_spec){.kind = pp->kind,
                             .precision = d->precision,
                             .sign = zipfft__desc_sign(d),
                             .n = d->lengths[k],
                             .in_stride = src->strides[k],
                             .out_stride = dst->strides[k],
                             .scale = last ? d->scale : 1.0,
                             .in_storage = src->storage,
                             .out_storage = dst->storage};
  int64_t loads = pp->kind == ZIPFFT__KIND_C2R ? c->logical_in[k] : d->lengths[k];
  int64_t stores = pp->kind == ZIPFFT__KIND_R2C ? c->logical_out[k] : d->lengths[k];
  s->load_extent = c->in_extent[k] < loads ? c->in_extent[k] : 0;
  s->store_extent = c->out_extent[k] < stores ? c->out_extent[k] : 0;
  /* The user's callbacks: on the first pass's reads of the input, the last pass's writes
   * of the output (not on intermediate results kept in those arrays). */
  if (pp->first && pp->src == ZIPFFT__ARRAY_INPUT) s->load_callback = d->load_callback;
  if (last && pp->dst == ZIPFFT__ARRAY_OUTPUT) s->store_callback = d->store_callback;
  batch_of(d, c, pp, s);
}

int zipfft__size_axis_pass(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t) {
  half_length_if_even(s);
  /* Columns: when the innermost batch dimension is closer in memory than the transform's
   * own elements, neighbouring threads take neighbouring transforms (coalesced). */
  int inner = s->batch_dims - 1;
  s->fft_major =
      transforms > 1 && s->batch_in_strides[inner] < s->in_stride && s->batch_in_strides[inner] > 0;
  if (zipfft__size_cluster_kernel(s, transforms, t) || zipfft__size_single_kernel(s, transforms, t))
    return 1;
  if (!zipfft__kind_is_half(s->kind)) return 0;
  /* Half of the even length does not fit (e.g. it has a large prime factor): full length. */
  s->kind = s->kind == ZIPFFT__KIND_R2C_HALF ? ZIPFFT__KIND_R2C : ZIPFFT__KIND_C2R;
  s->n *= 2;
  return zipfft__size_single_kernel(s, transforms, t);
}

/* Fills the spec of one pass; 0 when the axis does not fit one kernel. */
static int pass_spec(const struct zipfft_desc_s *d, const pass_context *c, const pass_plan *pp,
                     int last, const zipfft__target *t, zipfft__kernel_spec *s) {
  int64_t cap = zipfft__single_kernel_cap();
  pass_template(d, c, pp, last, s);
  if (cap > 0 && d->lengths[pp->axis] > cap) return 0;
  return zipfft__size_axis_pass(s, transforms_of(d, c, pp), t);
}

/* Whether a C2R's intermediate results would be rounded to a 16-bit input type that the
 * output does not share: then they go through the intermediate array (compute precision),
 * so that they are kept in at least the output's type. */
static int input_type_too_narrow(const struct zipfft_desc_s *d) {
  int other_axes = 0;
  for (int a = 0; a + 1 < d->rank; a++) other_axes |= d->lengths[a] > 1;
  return d->type == ZIPFFT_C2R && other_axes && d->in_storage != ZIPFFT_STORAGE_DEFAULT &&
         d->in_storage != d->out_storage;
}

/* Whether the intermediate results fit the user's array they would live in (the output
 * for C2C and R2C, the input for C2R): every axis not yet transformed holds no more than
 * that array's extent, and the array's type is not narrower than the output's. Padded and
 * cropped transforms, and C2R with a 16-bit input, may need the intermediate array. */
static int intermediate_fits(const struct zipfft_desc_s *d, const pass_context *c) {
  for (int a = 0; a + 1 < d->rank; a++) {
    int64_t before = c->in_extent[a], after = c->out_extent[a];
    if (d->type == ZIPFFT_C2R ? after > before : before > after) return 0;
  }
  return !input_type_too_narrow(d);
}

/* Marks the pass's axis done for the passes after it. */
static void add_pass(pass_plan *passes, int *count, int axis, zipfft__kernel_kind kind,
                     zipfft__array src, zipfft__array dst) {
  pass_plan pp = {axis, kind, src, dst, {0}, *count == 0};
  if (*count > 0)
    for (int a = 0; a < ZIPFFT__MAX_RANK; a++) pp.done[a] = passes[*count - 1].done[a];
  if (*count > 0) pp.done[passes[*count - 1].axis] = 1;
  passes[(*count)++] = pp;
}

/* The passes of a description, in execution order. C2C: every axis longer than 1, fastest
 * first (the first reads the input, the others work in the output). R2C: the real pass
 * over the last axis, then the other axes in the output. C2R: the other axes in place in
 * the input (which it therefore overwrites), then the real pass into the output. Where
 * intermediate results do not fit that array, they go through the intermediate array. */
static int passes_of(const struct zipfft_desc_s *d, int use_intermediate, pass_plan *out) {
  int count = 0, last = d->rank - 1, real = d->type != ZIPFFT_C2C;
  zipfft__array in = ZIPFFT__ARRAY_INPUT, res = ZIPFFT__ARRAY_OUTPUT;
  zipfft__array mid = use_intermediate        ? ZIPFFT__ARRAY_INTERMEDIATE
                      : d->type == ZIPFFT_C2R ? ZIPFFT__ARRAY_INPUT
                                              : ZIPFFT__ARRAY_OUTPUT;
  int axes[ZIPFFT__MAX_RANK + 1], n_axes = 0;
  for (int k = last; k >= 0; k--)
    if (!(real && k == last) && d->lengths[k] > 1) axes[n_axes++] = k;
  int total = n_axes + real;
  if (d->type == ZIPFFT_R2C)
    add_pass(out, &count, last, ZIPFFT__KIND_R2C, in, total == 1 ? res : mid);
  for (int i = 0; i < n_axes; i++) {
    int first = count == 0, final = count == total - 1;
    add_pass(out, &count, axes[i], ZIPFFT__KIND_C2C, first ? in : mid, final ? res : mid);
  }
  if (d->type == ZIPFFT_C2R) add_pass(out, &count, last, ZIPFFT__KIND_C2R, count ? mid : in, res);
  if (count == 0) add_pass(out, &count, last, ZIPFFT__KIND_C2C, in, res); /* all lengths 1 */
  return count;
}

int zipfft__axis_supported(const struct zipfft_desc_s *d, int k, const zipfft__target *t) {
  pass_context c = {0};
  for (int i = 0; i < ZIPFFT__ARRAY_COUNT; i++)
    c.views[i] = (array_view){{1, 1, 1}, 1, ZIPFFT_STORAGE_DEFAULT};
  for (int a = 0; a < ZIPFFT__MAX_RANK; a++)
    c.in_extent[a] = c.out_extent[a] = c.logical_in[a] = c.logical_out[a] = 1;
  c.in_extent[k] = c.out_extent[k] = c.logical_in[k] = c.logical_out[k] = d->lengths[k];
  pass_plan pp = {k, ZIPFFT__KIND_C2C, ZIPFFT__ARRAY_INPUT, ZIPFFT__ARRAY_OUTPUT, {0}, 1};
  zipfft__kernel_spec s = {0};
  return pass_spec(d, &c, &pp, 1, t, &s);
}

int zipfft__axis_possible(const struct zipfft_desc_s *d, int k, const zipfft__target *t) {
  int real = d->type != ZIPFFT_C2C && k == d->rank - 1;
  return zipfft__axis_supported(d, k, t) ||
         zipfft__long_axis_possible(d->precision, d->lengths[k], real, t);
}

static int axes_applicable(const struct zipfft_desc_s *d, const zipfft__target *t) {
  for (int k = 0; k < d->rank; k++)
    if (!zipfft__axis_possible(d, k, t)) return 0;
  return 1;
}

/* Appends pass pp: one kernel when the axis fits one, else a pass through the workspace. */
static zipfft_status append_pass(const struct zipfft_desc_s *d, const pass_context *c,
                                 const pass_plan *pp, int last, const zipfft__target *t,
                                 zipfft__decomposition *out) {
  int64_t transforms = transforms_of(d, c, pp);
  zipfft__kernel_spec s;
  if (!pass_spec(d, c, pp, last, t, &s)) {
    pass_template(d, c, pp, last, &s);
    return zipfft__long_axis_append(&s, transforms, t, pp->src, pp->dst, out);
  }
  if (out->kernel_count == ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH, "a plan of more than %d kernels",
                        ZIPFFT__MAX_KERNELS);
  int i = out->kernel_count++;
  out->kernels[i] = s;
  out->src[i] = pp->src, out->dst[i] = pp->dst;
  out->transforms[i] = transforms;
  return ZIPFFT_SUCCESS;
}

/* The arrays and extents the passes see; the intermediate array (contiguous, each axis as
 * long as the larger of its extents) only when intermediate results do not fit. Fails with
 * TOO_LARGE when that array would pass 2^58 elements (a padded input along one axis and a
 * cropped output along another can make it far larger than either). */
static zipfft_status context_of(const struct zipfft_desc_s *d, const zipfft__layout *l,
                                pass_context *c) {
  *c = (pass_context){0};
  zipfft__array_extents(d, 0, c->in_extent);
  zipfft__array_extents(d, 1, c->out_extent);
  zipfft__array_lengths(d, 0, c->logical_in);
  zipfft__array_lengths(d, 1, c->logical_out);
  for (int k = 0; k < d->rank; k++) {
    c->views[ZIPFFT__ARRAY_INPUT].strides[k] = l->in_strides[k];
    c->views[ZIPFFT__ARRAY_OUTPUT].strides[k] = l->out_strides[k];
  }
  c->views[ZIPFFT__ARRAY_INPUT].dist = l->in_dist;
  c->views[ZIPFFT__ARRAY_OUTPUT].dist = l->out_dist;
  c->views[ZIPFFT__ARRAY_INPUT].storage = d->in_storage;
  c->views[ZIPFFT__ARRAY_OUTPUT].storage = d->out_storage;
  if (intermediate_fits(d, c)) return ZIPFFT_SUCCESS;
  array_view *mid = &c->views[ZIPFFT__ARRAY_INTERMEDIATE];
  int64_t size = 1, last = d->rank - 1, elements = 0, limit = ZIPFFT__MAX_ELEMENTS;
  int overflow = 0;
  for (int k = last; k >= 0; k--) {
    int64_t big = c->in_extent[k] > c->out_extent[k] ? c->in_extent[k] : c->out_extent[k];
    if (k == last) big = d->type == ZIPFFT_C2R ? c->in_extent[k] : c->out_extent[k];
    mid->strides[k] = size;
    overflow |= __builtin_mul_overflow(size, big, &size) || size > limit;
  }
  overflow |= __builtin_mul_overflow(size, d->batch, &elements) || elements > limit;
  if (overflow)
    return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                        "batch = %lld: the intermediate array the extents need (each axis as "
                        "long as the larger of its input and output extents) passes 2^58 "
                        "elements",
                        (long long)d->batch);
  mid->dist = size;
  c->intermediate_elements = elements;
  return ZIPFFT_SUCCESS;
}

static zipfft_status axes_make(const struct zipfft_desc_s *d, const zipfft__layout *l,
                               const zipfft__target *t, zipfft__decomposition *out) {
  pass_plan passes[ZIPFFT__MAX_RANK + 1];
  pass_context c;
  zipfft_status st = context_of(d, l, &c);
  if (st != ZIPFFT_SUCCESS) return st;
  int count = passes_of(d, c.intermediate_elements > 0, passes);
  out->kernel_count = 0;
  for (int p = 0; p < count; p++) {
    int first = out->kernel_count;
    zipfft_status s = append_pass(d, &c, &passes[p], p == count - 1, t, out);
    if (s != ZIPFFT_SUCCESS) return s;
    for (int i = first; i < out->kernel_count; i++) out->axis[i] = passes[p].axis;
  }
  zipfft__reserve_intermediate(out,
                               (uint64_t)c.intermediate_elements *
                                   zipfft__complex_bytes(d->precision, ZIPFFT_STORAGE_DEFAULT));
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
