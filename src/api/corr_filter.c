/* corr_filter.c - the kept spectrum of a correlation plan: the filter's fp64 spectrum,
 * conjugated, shifted for the region, scaled, rounded to the spectrum's storage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/corr_internal.h"
#include "api/error.h"

/* IEEE binary16 bits of v, rounded to nearest even (overflow to infinity). */
static uint16_t half_bits(float v) {
  uint32_t x;
  memcpy(&x, &v, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000u, abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds past 65504 */
  if (abs < 0x38800000u) {                 /* subnormal or zero: scale into the 10-bit fraction */
    float scaled = fabsf(v) * 16777216.0f; /* 2^24: one unit = the smallest subnormal */
    return (uint16_t)(sign | (uint32_t)nearbyintf(scaled));
  }
  uint32_t rounded = abs + 0x0fffu + ((abs >> 13) & 1u);
  return (uint16_t)(sign | ((rounded - 0x38000000u) >> 13));
}

/* Real i of a host copy of the user's data, stored in the plan's precision. */
static double real_at(const zipfft__corr_problem *p, const unsigned char *raw, int64_t i) {
  if (p->precision == ZIPFFT_F64) {
    double d;
    memcpy(&d, raw + 8 * i, 8);
    return d;
  }
  float f;
  memcpy(&f, raw + 4 * i, 4);
  return f;
}

/* Writes complex value i of the kept spectrum in its storage. */
static void put_value(const zipfft__corr_problem *p, unsigned char *to, int64_t i, double re,
                      double im) {
  if (p->spectrum_storage == ZIPFFT_STORAGE_F16) {
    uint16_t h[2] = {half_bits((float)re), half_bits((float)im)};
    memcpy(to + 4 * i, h, sizeof h);
  } else if (p->precision == ZIPFFT_F32) {
    float f[2] = {(float)re, (float)im};
    memcpy(to + 8 * i, f, sizeof f);
  } else {
    double d[2] = {re, im};
    memcpy(to + 16 * i, d, sizeof d);
  }
}

/* Element (re, im) of the filter's full spectrum at flat index `at` of the spectrum shape,
 * from its Hermitian half (rank 1 expands it: F[k] = conj(F[n - k]) beyond n/2). */
static void spectrum_value(const zipfft__corr_problem *p, const double *half, int64_t at,
                           double *re, double *im) {
  if (p->rank > 1) {
    *re = half[2 * at], *im = half[2 * at + 1];
    return;
  }
  int64_t n = p->lengths[0], k = at <= n / 2 ? at : n - at;
  *re = half[2 * k], *im = at <= n / 2 ? half[2 * k + 1] : -half[2 * k + 1];
}

/* K = conj(F) exp(-2 pi i sum_a k_a shift_a / L_a) times the spectrum's share of 1/N
 * (zipfft__corr_spectrum_scale: 1/N, or 1/sqrt(N) in F16), written in the storage at
 * its place (zipfft__corr_spectrum_at; the padding stays zero), along the first axis in the
 * order the plan's fused kernel reads it (zipfft__in_place_entry). */
static void fill_spectrum(const zipfft_corr c, const double *half, unsigned char *to) {
  const zipfft__corr_problem *p = &c->problem;
  const zipfft__kernel_spec *fused = p->rank > 1 ? zipfft__plan_fused_kernel(c->plan) : NULL;
  int64_t shape[ZIPFFT__MAX_RANK], count = 1;
  double scale = zipfft__corr_spectrum_scale(p);
  zipfft__corr_spectrum_lengths(p, shape);
  int64_t last = shape[p->rank - 1];
  for (int k = 0; k < p->rank; k++) count *= shape[k];
  /* rows of one first-axis index (rank 1: the one row) */
  int64_t rows_per_first = p->rank > 1 ? count / last / shape[0] : 1;
  for (int64_t i = 0; i < count; i++) {
    double turns = 0, re, im; /* the phase in turns, each axis's share reduced exactly */
    for (int64_t a = p->rank - 1, rest = i; a >= 0; rest /= shape[a], a--) {
      int64_t k = rest % shape[a], L = p->lengths[a];
      int64_t shift = ((c->shift[a] % L) + L) % L;
      turns += (double)((k * shift) % L) / (double)L;
    }
    spectrum_value(p, half, i, &re, &im);
    double cs = cos(2 * M_PI * turns), sn = -sin(2 * M_PI * turns);
    int64_t row = i / last, first = row / rows_per_first;
    row += (zipfft__in_place_entry(fused, first) - first) * rows_per_first;
    put_value(p, to, zipfft__corr_spectrum_at(p, fused, row, i % last), (re * cs + im * sn) * scale,
              (re * sn - im * cs) * scale);
  }
}

/* The filter's Hermitian-half spectrum in fp64, by an fp64 R2C plan of the library on the
 * plan's backend: host *half (malloc'ed) of the R2C output's elements. */
static zipfft_status filter_spectrum(zipfft_corr c, const void *filter, double **half) {
  const zipfft__corr_problem *p = &c->problem;
  zipfft__backend *b = c->backend;
  int64_t n = 1, given = 1, halves = p->lengths[p->rank - 1] / 2 + 1;
  for (int k = 0; k < p->rank; k++) n *= p->lengths[k], given *= p->filter[k];
  halves *= n / p->lengths[p->rank - 1];
  size_t real = p->precision == ZIPFFT_F32 ? 4 : 8;
  unsigned char *raw = malloc((size_t)given * real);
  double *x = calloc((size_t)n, sizeof *x); /* zero-padded to the FFT lengths */
  *half = malloc((size_t)halves * 2 * sizeof **half);
  void *in = NULL, *out = NULL;
  zipfft_plan plan = NULL;
  zipfft_desc d = NULL;
  zipfft_status s = raw && x && *half
                        ? ZIPFFT_SUCCESS
                        : zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY,
                                       "host copies of a filter of %lld reals", (long long)n);
  if (s == ZIPFFT_SUCCESS) s = b->ops->download(b, raw, filter, (size_t)given * real);
  for (int64_t i = 0; s == ZIPFFT_SUCCESS && i < given; i++) {
    int64_t at = 0, rest = i, coord[ZIPFFT__MAX_RANK];
    for (int k = p->rank - 1; k >= 0; k--) coord[k] = rest % p->filter[k], rest /= p->filter[k];
    for (int k = 0; k < p->rank; k++) at = at * p->lengths[k] + coord[k];
    x[at] = real_at(p, raw, i);
  }
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_create(&d, ZIPFFT_R2C, ZIPFFT_F64, p->rank, p->lengths);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, c->backend_kind, c->device);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(&plan, d);
  if (s == ZIPFFT_SUCCESS) s = b->ops->alloc(b, (size_t)n * sizeof *x, &in);
  if (s == ZIPFFT_SUCCESS) s = b->ops->alloc(b, (size_t)halves * 16, &out);
  if (s == ZIPFFT_SUCCESS) s = b->ops->upload(b, in, x, (size_t)n * sizeof *x);
  if (s == ZIPFFT_SUCCESS) s = zipfft_execute(plan, in, out, NULL);
  if (s == ZIPFFT_SUCCESS) s = b->ops->download(b, *half, out, (size_t)halves * 16);
  if (in) b->ops->free(b, in);
  if (out) b->ops->free(b, out);
  zipfft__plan_release(plan); /* the public destroys would clear a failure's detail */
  zipfft__desc_release(d);
  free(raw);
  free(x);
  if (s != ZIPFFT_SUCCESS) free(*half), *half = NULL;
  return s;
}

/* The spectrum K made from the filter's Hermitian half spectrum (host, fp64), in a host
 * buffer *kept of *bytes (malloc'ed) for replace_spectrum. */
static zipfft_status make_spectrum(zipfft_corr c, const double *half, unsigned char **kept,
                                   size_t *bytes) {
  int64_t count = zipfft__corr_pitch(&c->problem);
  for (int k = 0; k + 1 < c->problem.rank; k++) count *= c->problem.lengths[k];
  *bytes = (size_t)count * zipfft__complex_bytes(c->problem.precision, c->problem.spectrum_storage);
  *kept = calloc(1, *bytes);
  if (!*kept) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "a spectrum of %zu bytes", *bytes);
  fill_spectrum(c, half, *kept);
  return ZIPFFT_SUCCESS;
}

/* Replaces the kept spectrum: folds the sums accumulated with the one being replaced, then
 * uploads the new one. The new spectrum is made first; the fold leaves the sums as they
 * were when it fails. */
static zipfft_status replace_spectrum(zipfft_corr c, const double *half) {
  unsigned char *kept = NULL;
  size_t bytes = 0;
  zipfft_status s = make_spectrum(c, half, &kept, &bytes);
  if (s == ZIPFFT_SUCCESS) s = zipfft__corr_fold_sums(c);
  if (s == ZIPFFT_SUCCESS) s = c->backend->ops->upload(c->backend, c->spectrum, kept, bytes);
  free(kept);
  if (s == ZIPFFT_SUCCESS) c->has_filter = 1;
  return s;
}

zipfft_status zipfft_corr_set_filter(zipfft_corr c, const void *filter) {
  if (!c || !filter)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_set_filter: %s is NULL",
                        c ? "filter" : "c");
  double *half = NULL;
  zipfft_status s = filter_spectrum(c, filter, &half);
  if (s == ZIPFFT_SUCCESS) s = replace_spectrum(c, half);
  free(half);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}

zipfft_status zipfft_corr_set_filter_spectrum(zipfft_corr c, const void *spectrum) {
  if (!c || !spectrum)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_set_filter_spectrum: %s is NULL",
                        c ? "spectrum" : "c");
  const zipfft__corr_problem *p = &c->problem;
  int64_t halves = p->lengths[p->rank - 1] / 2 + 1;
  for (int k = 0; k + 1 < p->rank; k++) halves *= p->lengths[k];
  size_t real = p->precision == ZIPFFT_F32 ? 4 : 8;
  unsigned char *raw = malloc((size_t)halves * 2 * real);
  double *half = malloc((size_t)halves * 2 * sizeof *half);
  zipfft_status s =
      raw && half ? c->backend->ops->download(c->backend, raw, spectrum, (size_t)halves * 2 * real)
                  : zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY,
                                 "host copies of a spectrum of %lld values", (long long)halves);
  for (int64_t i = 0; s == ZIPFFT_SUCCESS && i < 2 * halves; i++) half[i] = real_at(p, raw, i);
  if (s == ZIPFFT_SUCCESS) s = replace_spectrum(c, half);
  free(raw);
  free(half);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}
