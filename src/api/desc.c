/* desc.c - creating, setting and validating problem descriptions. */
#include "api/desc.h"

#include <math.h>
#include <stdlib.h>

#include "api/error.h"

static const int64_t max_length = (int64_t)1 << 40;

#define REQUIRE_DESC(d)                                                                     \
  do {                                                                                      \
    if (!(d)) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "%s: desc is NULL", __func__); \
  } while (0)

/* Checks type, precision, rank and every length; names the first bad one. */
static zipfft_status check_shape(zipfft_type type, zipfft_precision prec, int rank,
                                 const int64_t *lengths) {
  if (type != ZIPFFT_C2C && type != ZIPFFT_R2C && type != ZIPFFT_C2R)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_TYPE, "type = %d is not a zipfft_type", (int)type);
  if (prec != ZIPFFT_F32 && prec != ZIPFFT_F64)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_PRECISION, "precision = %d is not a zipfft_precision",
                        (int)prec);
  if (rank < 1 || rank > ZIPFFT__MAX_RANK)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_RANK, "rank = %d is outside 1..3", rank);
  if (!lengths) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "lengths is NULL");
  for (int i = 0; i < rank; i++)
    if (lengths[i] < 1 || lengths[i] > max_length)
      return zipfft__fail(ZIPFFT_ERROR_INVALID_LENGTH, "lengths[%d] = %lld is outside 1..2^40", i,
                          (long long)lengths[i]);
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_create(zipfft_desc *d, zipfft_type type, zipfft_precision prec, int rank,
                                 const int64_t *lengths) {
  if (!d) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_desc_create: d is NULL");
  zipfft_status s = check_shape(type, prec, rank, lengths);
  if (s != ZIPFFT_SUCCESS) return s;
  struct zipfft_desc_s *n = calloc(1, sizeof *n);
  if (!n) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "allocating a description");
  n->type = type;
  n->precision = prec;
  n->rank = rank;
  for (int i = 0; i < rank; i++) n->lengths[i] = lengths[i];
  n->direction = ZIPFFT_FORWARD;
  n->batch = 1;
  n->placement = ZIPFFT_OUTOFPLACE;
  n->scale = 1.0;
  n->backend = ZIPFFT_BACKEND_AUTO;
  *d = n;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_destroy(zipfft_desc d) {
  free(d);
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_direction(zipfft_desc d, zipfft_direction dir) {
  REQUIRE_DESC(d);
  if (dir != ZIPFFT_FORWARD && dir != ZIPFFT_INVERSE)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_DIRECTION, "direction = %d is neither -1 nor +1",
                        (int)dir);
  d->direction = dir;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_batch(zipfft_desc d, int64_t batch) {
  REQUIRE_DESC(d);
  if (batch < 1)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_BATCH, "batch = %lld is less than 1",
                        (long long)batch);
  d->batch = batch;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* Checks one stride array (may be NULL) and one distance. */
static zipfft_status check_strides(const char *which, int rank, const int64_t *strides,
                                   int64_t dist) {
  for (int i = 0; strides && i < rank; i++)
    if (strides[i] < 1)
      return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT, "%s_strides[%d] = %lld is less than 1",
                          which, i, (long long)strides[i]);
  if (dist < 0)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT, "%s_dist = %lld is negative", which,
                        (long long)dist);
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_layout(zipfft_desc d, const int64_t *in_strides, int64_t in_dist,
                                     const int64_t *out_strides, int64_t out_dist) {
  REQUIRE_DESC(d);
  zipfft_status s = check_strides("in", d->rank, in_strides, in_dist);
  if (s == ZIPFFT_SUCCESS) s = check_strides("out", d->rank, out_strides, out_dist);
  if (s != ZIPFFT_SUCCESS) return s;
  d->has_in_strides = in_strides != NULL;
  d->has_out_strides = out_strides != NULL;
  for (int i = 0; i < d->rank; i++) {
    d->in_strides[i] = in_strides ? in_strides[i] : 0;
    d->out_strides[i] = out_strides ? out_strides[i] : 0;
  }
  d->in_dist = in_dist;
  d->out_dist = out_dist;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_placement(zipfft_desc d, zipfft_placement p) {
  REQUIRE_DESC(d);
  if (p != ZIPFFT_INPLACE && p != ZIPFFT_OUTOFPLACE)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_PLACEMENT, "placement = %d is not a zipfft_placement",
                        (int)p);
  d->placement = p;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_scale(zipfft_desc d, double scale) {
  REQUIRE_DESC(d);
  if (!isfinite(scale))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_SCALE, "scale = %g is not finite", scale);
  d->scale = scale;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_backend(zipfft_desc d, zipfft_backend b, int device) {
  REQUIRE_DESC(d);
  if (b != ZIPFFT_BACKEND_AUTO && b != ZIPFFT_BACKEND_CPU && b != ZIPFFT_BACKEND_CUDA)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_BACKEND, "backend = %d is not a zipfft_backend",
                        (int)b);
  if (device < 0)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_BACKEND, "device = %d is negative", device);
  d->backend = b;
  d->device = device;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* 1 when a*b+c overflows the element index range we allow (2^58). */
static int too_big(int64_t a, int64_t b, int64_t c) {
  const int64_t limit = (int64_t)1 << 58;
  return a > 0 && b > (limit - c) / a;
}

/* Outputs never overlap when transforms are block-separated or fully interleaved. */
static int output_disjoint(int64_t n, int64_t batch, int64_t stride, int64_t dist) {
  if (batch == 1) return 1;
  return dist >= n * stride || stride >= batch * dist;
}

zipfft_status zipfft__desc_layout_1d(const struct zipfft_desc_s *d, zipfft__layout_1d *out) {
  int64_t n = d->lengths[0];
  zipfft__layout_1d l;
  l.in_stride = d->has_in_strides ? d->in_strides[0] : 1;
  l.out_stride = d->has_out_strides ? d->out_strides[0] : 1;
  l.in_dist = d->in_dist ? d->in_dist : n * l.in_stride;
  l.out_dist = d->out_dist ? d->out_dist : n * l.out_stride;
  if (too_big(d->batch - 1, l.in_dist, (n - 1) * l.in_stride) ||
      too_big(d->batch - 1, l.out_dist, (n - 1) * l.out_stride))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "layout spans more than 2^58 elements "
                        "(batch = %lld)",
                        (long long)d->batch);
  if (!output_disjoint(n, d->batch, l.out_stride, l.out_dist))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "outputs overlap or interleave irregularly: out_stride = %lld, out_dist = "
                        "%lld, n = %lld, batch = %lld (need dist >= n*stride or stride >= "
                        "batch*dist)",
                        (long long)l.out_stride, (long long)l.out_dist, (long long)n,
                        (long long)d->batch);
  if (d->placement == ZIPFFT_INPLACE && (l.in_stride != l.out_stride || l.in_dist != l.out_dist))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "in-place transform with in_stride = %lld, in_dist = %lld different "
                        "from out_stride = %lld, out_dist = %lld",
                        (long long)l.in_stride, (long long)l.in_dist, (long long)l.out_stride,
                        (long long)l.out_dist);
  *out = l;
  return ZIPFFT_SUCCESS;
}
