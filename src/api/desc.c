/* desc.c - creating, setting and validating problem descriptions. */
#include "api/desc.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void zipfft__desc_release(struct zipfft_desc_s *d) {
  if (d) zipfft__desc_free_callbacks(d);
  free(d);
}

zipfft_status zipfft_desc_destroy(zipfft_desc d) {
  zipfft__desc_release(d);
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
  if (d->precision == ZIPFFT_F32 && fabs(scale) > FLT_MAX)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_SCALE,
                        "scale = %g does not fit the plan's fp32 (largest %g)", scale,
                        (double)FLT_MAX);
  d->scale = scale;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* Sets the input (out = 0) or output extents after checking them against the array's
 * logical lengths; NULL resets to the whole array. */
static zipfft_status set_extent(zipfft_desc d, int out, const int64_t *extent) {
  int64_t lengths[ZIPFFT__MAX_RANK];
  zipfft__array_lengths(d, out, lengths);
  for (int k = 0; extent && k < d->rank; k++)
    if (extent[k] < 1 || extent[k] > lengths[k])
      return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                          "%s_extent[%d] = %lld is outside 1..%lld (the %s array's length)",
                          out ? "output" : "input", k, (long long)extent[k], (long long)lengths[k],
                          out ? "output" : "input");
  int64_t *to = out ? d->out_extent : d->in_extent;
  for (int k = 0; k < d->rank; k++) to[k] = extent && extent[k] < lengths[k] ? extent[k] : 0;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_input_extent(zipfft_desc d, const int64_t *extent) {
  REQUIRE_DESC(d);
  return set_extent(d, 0, extent);
}

zipfft_status zipfft_desc_set_output_extent(zipfft_desc d, const int64_t *extent) {
  REQUIRE_DESC(d);
  return set_extent(d, 1, extent);
}

void zipfft__array_extents(const struct zipfft_desc_s *d, int out, int64_t *extents) {
  const int64_t *set = out ? d->out_extent : d->in_extent;
  zipfft__array_lengths(d, out, extents);
  for (int k = 0; k < d->rank; k++)
    if (set[k] > 0) extents[k] = set[k];
}

int zipfft__desc_has_extents(const struct zipfft_desc_s *d) {
  for (int k = 0; k < d->rank; k++)
    if (d->in_extent[k] > 0 || d->out_extent[k] > 0) return 1;
  return 0;
}

uint64_t zipfft__callback_hash(const char *source, const char *function) {
  uint64_t h = 1469598103934665603ull;
  for (const char *text[2] = {source, function}, **t = text; t < text + 2; t++)
    for (const char *c = *t; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  return h;
}

/* 1 when name is a C identifier. */
static int is_identifier(const char *name) {
  if (!*name || (*name >= '0' && *name <= '9')) return 0;
  for (const char *c = name; *c; c++)
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
          (*c >= '0' && *c <= '9')))
      return 0;
  return 1;
}

/* Replaces one callback of d (source NULL: removes it). */
static zipfft_status set_callback(zipfft_desc d, zipfft__callback *cb, const char *which,
                                  const char *source, const char *function, void *user) {
  if (source && (!function || !is_identifier(function)))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                        "%s callback function = \"%s\" is not a C identifier", which,
                        function ? function : "(null)");
  zipfft__callback next = {NULL, NULL, user, 0};
  if (source) {
    next.source = strdup(source), next.function = strdup(function);
    next.hash = zipfft__callback_hash(source, function);
    if (!next.source || !next.function) {
      free(next.source), free(next.function);
      return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "copying a %s callback", which);
    }
  }
  free(cb->source), free(cb->function);
  *cb = next;
  (void)d;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_desc_set_load_callback(zipfft_desc d, const char *source, const char *function,
                                            void *user_data) {
  REQUIRE_DESC(d);
  return set_callback(d, &d->load_callback, "load", source, function, user_data);
}

zipfft_status zipfft_desc_set_store_callback(zipfft_desc d, const char *source,
                                             const char *function, void *user_data) {
  REQUIRE_DESC(d);
  return set_callback(d, &d->store_callback, "store", source, function, user_data);
}

zipfft_status zipfft__desc_own_callbacks(struct zipfft_desc_s *d) {
  zipfft__callback *cbs[2] = {&d->load_callback, &d->store_callback};
  zipfft_status s = ZIPFFT_SUCCESS;
  for (int i = 0; i < 2; i++) {
    if (!cbs[i]->source) continue;
    char *source = strdup(cbs[i]->source), *function = strdup(cbs[i]->function);
    if (!source || !function) s = ZIPFFT_ERROR_OUT_OF_MEMORY;
    cbs[i]->source = source, cbs[i]->function = function;
  }
  if (s != ZIPFFT_SUCCESS) {
    zipfft__desc_free_callbacks(d);
    return zipfft__fail(s, "copying the callbacks of a description");
  }
  return s;
}

void zipfft__desc_free_callbacks(struct zipfft_desc_s *d) {
  zipfft__callback *cbs[2] = {&d->load_callback, &d->store_callback};
  for (int i = 0; i < 2; i++) {
    free(cbs[i]->source), free(cbs[i]->function);
    cbs[i]->source = cbs[i]->function = NULL;
  }
}

/* 1 when s is a zipfft_storage value. */
static int storage_known(zipfft_storage s) {
  return s == ZIPFFT_STORAGE_DEFAULT || s == ZIPFFT_STORAGE_F16 || s == ZIPFFT_STORAGE_BF16;
}

zipfft_status zipfft_desc_set_storage(zipfft_desc d, zipfft_storage in, zipfft_storage out) {
  REQUIRE_DESC(d);
  if (!storage_known(in) || !storage_known(out))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_STORAGE, "%s storage = %d is not a zipfft_storage",
                        storage_known(in) ? "out" : "in", storage_known(in) ? (int)out : (int)in);
  d->in_storage = in;
  d->out_storage = out;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft__desc_check_storage(const struct zipfft_desc_s *d) {
  if ((d->load_callback.source && d->in_storage != ZIPFFT_STORAGE_DEFAULT) ||
      (d->store_callback.source && d->out_storage != ZIPFFT_STORAGE_DEFAULT))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_STORAGE,
                        "a %s callback with 16-bit storage (in = %d, out = %d): callbacks read "
                        "and write the precision's own type",
                        d->load_callback.source && d->in_storage ? "load" : "store",
                        (int)d->in_storage, (int)d->out_storage);
  int half = d->in_storage != ZIPFFT_STORAGE_DEFAULT || d->out_storage != ZIPFFT_STORAGE_DEFAULT;
  if (half && d->precision != ZIPFFT_F32)
    return zipfft__fail(
        ZIPFFT_ERROR_INVALID_STORAGE,
        "16-bit storage (in = %d, out = %d) needs ZIPFFT_F32 compute, precision = %d",
        (int)d->in_storage, (int)d->out_storage, (int)d->precision);
  if (d->placement == ZIPFFT_INPLACE && d->in_storage != d->out_storage)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_STORAGE,
                        "in-place transform with in storage %d different from out storage %d",
                        (int)d->in_storage, (int)d->out_storage);
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

/* One axis of an array: count elements `stride` apart. */
typedef struct axis {
  int64_t count, stride;
} axis;

/* Largest element offset reached plus one; -1 when it exceeds 2^58 (index range we allow). */
static int64_t span(const axis *axes, int count) {
  const int64_t limit = ZIPFFT__MAX_ELEMENTS - 1; /* the last element's index */
  int64_t last = 0;
  for (int i = 0; i < count; i++) {
    if (axes[i].count > 1 && axes[i].stride > (limit - last) / (axes[i].count - 1)) return -1;
    last += (axes[i].count - 1) * axes[i].stride;
  }
  return last + 1;
}

/* Outputs are disjoint when, sorted by stride, every axis steps over the whole extent of
 * the axes inside it (row-major with padding, interleaved batches, ...): a sufficient
 * condition that needs no search. */
static int nested(axis *axes, int count) {
  for (int i = 1; i < count; i++)
    for (int j = i; j > 0 && axes[j].stride < axes[j - 1].stride; j--) {
      axis t = axes[j];
      axes[j] = axes[j - 1];
      axes[j - 1] = t;
    }
  int64_t extent = 1;
  for (int i = 0; i < count; i++) {
    if (axes[i].count == 1) continue;
    if (axes[i].stride < extent) return 0;
    extent = axes[i].stride * axes[i].count;
  }
  return 1;
}

int zipfft__desc_sign(const struct zipfft_desc_s *d) {
  if (d->type == ZIPFFT_R2C) return -1;
  if (d->type == ZIPFFT_C2R) return 1;
  return (int)d->direction;
}

void zipfft__array_lengths(const struct zipfft_desc_s *d, int out, int64_t *lengths) {
  int last = d->rank - 1;
  for (int k = 0; k < d->rank; k++) lengths[k] = d->lengths[k];
  int half = out ? d->type == ZIPFFT_R2C : d->type == ZIPFFT_C2R;
  if (half) lengths[last] = d->lengths[last] / 2 + 1;
}

/* 1 when the side is the real array of an in-place real transform (padded rows). */
static int padded_real_side(const struct zipfft_desc_s *d, int out) {
  if (d->placement != ZIPFFT_INPLACE) return 0;
  return out ? d->type == ZIPFFT_C2R : d->type == ZIPFFT_R2C;
}

int64_t zipfft__saturating_product(int64_t a, int64_t b) {
  int64_t p;
  return __builtin_mul_overflow(a, b, &p) ? INT64_MAX : p;
}

/* Resolves one side's strides and distance. Defaults: row-major over the side's own
 * lengths, dist = whole array; the real array of an in-place R2C/C2R has rows padded to
 * 2*(n/2+1) reals, as in FFTW and cuFFT. */
static void resolve(const struct zipfft_desc_s *d, int out, int64_t *strides, int64_t *dist) {
  int given = out ? d->has_out_strides : d->has_in_strides;
  const int64_t *user = out ? d->out_strides : d->in_strides;
  int64_t lengths[ZIPFFT__MAX_RANK], s = 1;
  zipfft__array_extents(d, out, lengths);
  if (padded_real_side(d, out)) lengths[d->rank - 1] = 2 * (d->lengths[d->rank - 1] / 2 + 1);
  for (int k = d->rank - 1; k >= 0; k--) {
    strides[k] = given ? user[k] : s;
    s = zipfft__saturating_product(s, lengths[k]);
  }
  int64_t d_user = out ? d->out_dist : d->in_dist;
  *dist = d_user ? d_user : zipfft__saturating_product(strides[0], lengths[0]);
}

/* Axes of one side: the side's own lengths and the batch. */
static int axes_of(const struct zipfft_desc_s *d, int out, const int64_t *strides, int64_t dist,
                   axis *a) {
  int64_t lengths[ZIPFFT__MAX_RANK];
  zipfft__array_extents(d, out, lengths);
  for (int k = 0; k < d->rank; k++) a[k] = (axis){lengths[k], strides[k]};
  a[d->rank] = (axis){d->batch, dist};
  return d->rank + 1;
}

/* Fails unless every stride of one side times its axis's whole length (extents aside), and
 * the distance times the batch, is at most 2^59. span() passes any stride on an axis of
 * one element, but the generated index arithmetic bounds indices by the whole lengths, so
 * a huge stride there overflowed it (an audit's finding: INT64_MAX on a length-1 axis, or
 * 2^60 on a cropped one). */
static zipfft_status check_stride_sizes(const struct zipfft_desc_s *d, int out,
                                        const int64_t *strides, int64_t dist) {
  const int64_t limit = 2 * ZIPFFT__MAX_ELEMENTS;
  const char *side = out ? "out" : "in";
  int64_t lengths[ZIPFFT__MAX_RANK];
  zipfft__array_lengths(d, out, lengths);
  if (padded_real_side(d, out)) lengths[d->rank - 1] = 2 * (d->lengths[d->rank - 1] / 2 + 1);
  for (int k = 0; k < d->rank; k++)
    if (strides[k] > limit / lengths[k])
      return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                          "%s_strides[%d] = %lld: times the axis's length %lld beyond 2^59", side,
                          k, (long long)strides[k], (long long)lengths[k]);
  if (dist > limit / (d->batch > 1 ? d->batch : 1))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "%s_dist = %lld: times the batch %lld beyond 2^59", side, (long long)dist,
                        (long long)d->batch);
  return ZIPFFT_SUCCESS;
}

/* An in-place transform reads and writes the same elements: equal layouts for C2C; for R2C
 * and C2R the real array's strides (in reals) are twice the complex array's, except the
 * contiguous last axis. */
static int inplace_consistent(const struct zipfft_desc_s *d, const zipfft__layout *l) {
  if (d->type == ZIPFFT_C2C) {
    int same = l->in_dist == l->out_dist;
    for (int k = 0; k < d->rank; k++) same = same && l->in_strides[k] == l->out_strides[k];
    return same;
  }
  const int64_t *real = d->type == ZIPFFT_R2C ? l->in_strides : l->out_strides;
  const int64_t *cplx = d->type == ZIPFFT_R2C ? l->out_strides : l->in_strides;
  int64_t real_dist = d->type == ZIPFFT_R2C ? l->in_dist : l->out_dist;
  int64_t cplx_dist = d->type == ZIPFFT_R2C ? l->out_dist : l->in_dist;
  int ok = real[d->rank - 1] == 1 && cplx[d->rank - 1] == 1 && real_dist == 2 * cplx_dist;
  for (int k = 0; k + 1 < d->rank; k++) ok = ok && real[k] == 2 * cplx[k];
  return ok;
}

/* Formats "name = [s0, s1], dist = D" into buf for error messages. */
static const char *describe(const char *name, int rank, const int64_t *s, int64_t dist, char *buf,
                            size_t len) {
  int used = snprintf(buf, len, "%s_strides = [", name);
  for (int k = 0; k < rank && used > 0 && (size_t)used < len; k++)
    used += snprintf(buf + used, len - (size_t)used, "%s%lld", k ? ", " : "", (long long)s[k]);
  if (used > 0 && (size_t)used < len)
    snprintf(buf + used, len - (size_t)used, "], %s_dist = %lld", name, (long long)dist);
  return buf;
}

/* Fails unless one transform has at most 2^58 elements (the product of the lengths). */
static zipfft_status check_elements(const struct zipfft_desc_s *d) {
  int64_t n = 1;
  for (int k = 0; k < d->rank; k++) n = zipfft__saturating_product(n, d->lengths[k]);
  if (n <= ZIPFFT__MAX_ELEMENTS) return ZIPFFT_SUCCESS;
  char text[128];
  int used = 0;
  for (int k = 0; k < d->rank && used >= 0 && (size_t)used < sizeof text; k++)
    used += snprintf(text + used, sizeof text - (size_t)used, "%s%lld", k ? " x " : "",
                     (long long)d->lengths[k]);
  return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                      "lengths %s: more than 2^58 elements in one transform", text);
}

/* The failure of an in-place description with extents, naming the first one set. */
static zipfft_status in_place_extent_error(const struct zipfft_desc_s *d) {
  int k = 0;
  while (k + 1 < d->rank && d->in_extent[k] <= 0 && d->out_extent[k] <= 0) k++;
  int out = d->in_extent[k] <= 0;
  return zipfft__fail(ZIPFFT_ERROR_INVALID_PLACEMENT,
                      "%s_extent[%d] = %lld: an in-place transform cannot have input or output "
                      "extents (set ZIPFFT_OUTOFPLACE, or extents equal to the lengths)",
                      out ? "output" : "input", k,
                      (long long)(out ? d->out_extent[k] : d->in_extent[k]));
}

zipfft_status zipfft__desc_layout(const struct zipfft_desc_s *d, zipfft__layout *out) {
  zipfft__layout l = {{0}, {0}, 0, 0};
  axis in_axes[ZIPFFT__MAX_RANK + 1], out_axes[ZIPFFT__MAX_RANK + 1];
  char text[256], other[256];
  zipfft_status st = check_elements(d);
  if (st != ZIPFFT_SUCCESS) return st;
  if (d->placement == ZIPFFT_INPLACE && zipfft__desc_has_extents(d))
    return in_place_extent_error(d);
  resolve(d, 0, l.in_strides, &l.in_dist);
  resolve(d, 1, l.out_strides, &l.out_dist);
  st = check_stride_sizes(d, 0, l.in_strides, l.in_dist);
  if (st == ZIPFFT_SUCCESS) st = check_stride_sizes(d, 1, l.out_strides, l.out_dist);
  if (st != ZIPFFT_SUCCESS) return st;
  int n_in = axes_of(d, 0, l.in_strides, l.in_dist, in_axes);
  int n_out = axes_of(d, 1, l.out_strides, l.out_dist, out_axes);
  if (span(in_axes, n_in) < 0 || span(out_axes, n_out) < 0)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "layout spans more than 2^58 elements: %s, %s, batch = %lld",
                        describe("in", d->rank, l.in_strides, l.in_dist, text, sizeof text),
                        describe("out", d->rank, l.out_strides, l.out_dist, other, sizeof other),
                        (long long)d->batch);
  if (!nested(out_axes, n_out))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "outputs may overlap: %s, batch = %lld (each axis, by increasing stride, "
                        "must step over the axes inside it)",
                        describe("out", d->rank, l.out_strides, l.out_dist, text, sizeof text),
                        (long long)d->batch);
  if (d->type == ZIPFFT_C2R && d->rank > 1 && !nested(in_axes, n_in))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "C2R of rank %d uses its input as scratch, so its input elements may not "
                        "overlap: %s, batch = %lld (each axis, by increasing stride, must step "
                        "over the axes inside it)",
                        d->rank,
                        describe("in", d->rank, l.in_strides, l.in_dist, text, sizeof text),
                        (long long)d->batch);
  if (d->type == ZIPFFT_C2R && d->placement == ZIPFFT_INPLACE && !nested(in_axes, n_in))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "in-place C2R writes over its input, so its input elements may not "
                        "overlap: %s, batch = %lld (rows of n/2+1 complex values each)",
                        describe("in", d->rank, l.in_strides, l.in_dist, text, sizeof text),
                        (long long)d->batch);
  if (d->placement == ZIPFFT_INPLACE && !inplace_consistent(d, &l))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LAYOUT,
                        "in-place transform with %s not matching %s (%s)",
                        describe("in", d->rank, l.in_strides, l.in_dist, text, sizeof text),
                        describe("out", d->rank, l.out_strides, l.out_dist, other, sizeof other),
                        d->type == ZIPFFT_C2C ? "in place both layouts must be the same"
                                              : "R2C/C2R: real strides twice the complex ones, "
                                                "rows padded to 2*(n/2+1)");
  *out = l;
  return ZIPFFT_SUCCESS;
}
