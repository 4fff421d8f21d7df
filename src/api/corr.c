/* corr.c - zipfft_corr: creating and destroying fused convolution and cross-correlation
 * plans (their checks, the kept spectrum's allocation) and their queries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/desc.h"
#include "api/error.h"
#include "api/plan_internal.h"
#include "backend/backend.h"
#include "api/corr_internal.h"
#include "plan/single.h"

static const zipfft_corr_config default_config = {
    ZIPFFT_CORRELATE,      ZIPFFT_REGION_FULL, ZIPFFT_STORAGE_DEFAULT, ZIPFFT_BACKEND_AUTO, 0,
    ZIPFFT_STORAGE_DEFAULT};

/* Checks the config's values (NAMES the first bad one). */
static zipfft_status check_config(zipfft_precision prec, int rank, const zipfft_corr_config *c) {
  if (c->mode != ZIPFFT_CORRELATE && c->mode != ZIPFFT_CONVOLVE)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT, "config->mode = %d is not a mode",
                        (int)c->mode);
  if (c->region < ZIPFFT_REGION_FULL || c->region > ZIPFFT_REGION_VALID)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT, "config->region = %d is not a region",
                        (int)c->region);
  zipfft_storage kept = c->spectrum_storage, mid = c->intermediate_storage;
  if (kept != ZIPFFT_STORAGE_DEFAULT && kept != ZIPFFT_STORAGE_F16)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_STORAGE,
                        "config->spectrum_storage = %d is neither DEFAULT nor F16", (int)kept);
  if (mid != ZIPFFT_STORAGE_DEFAULT && mid != ZIPFFT_STORAGE_F16 && mid != ZIPFFT_STORAGE_BF16)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_STORAGE,
                        "config->intermediate_storage = %d is not DEFAULT, F16 or BF16", (int)mid);
  if ((kept != ZIPFFT_STORAGE_DEFAULT || mid != ZIPFFT_STORAGE_DEFAULT) && prec != ZIPFFT_F32)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_STORAGE,
                        "precision = %d with spectrum_storage = %d and intermediate_storage = %d: "
                        "16-bit storage needs ZIPFFT_F32",
                        (int)prec, (int)kept, (int)mid);
  if (mid != ZIPFFT_STORAGE_DEFAULT && rank != 2)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_STORAGE,
                        "config->intermediate_storage = %d with rank %d (rank 2 only)", (int)mid,
                        rank);
  return ZIPFFT_SUCCESS;
}

/* Checks the shape arguments of zipfft_corr_create. */
static zipfft_status check_shape(zipfft_precision prec, int rank, const int64_t *lengths,
                                 const int64_t *signal, int64_t batch) {
  if (prec != ZIPFFT_F32 && prec != ZIPFFT_F64)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_PRECISION, "precision = %d", (int)prec);
  if (rank < 1 || rank > ZIPFFT__MAX_RANK)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_RANK, "rank = %d is outside 1..3", rank);
  if (!lengths || !signal)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_create: %s is NULL",
                        lengths ? "signal_lengths" : "lengths");
  for (int k = 0; k < rank; k++) {
    if (lengths[k] < 1 || lengths[k] > ((int64_t)1 << 31))
      return zipfft__fail(ZIPFFT_ERROR_INVALID_LENGTH, "lengths[%d] = %lld is outside 1..2^31", k,
                          (long long)lengths[k]);
    if (signal[k] < 1 || signal[k] > lengths[k])
      return zipfft__fail(ZIPFFT_ERROR_INVALID_LENGTH,
                          "signal_lengths[%d] = %lld is outside 1..lengths[%d] = %lld", k,
                          (long long)signal[k], k, (long long)lengths[k]);
  }
  if (batch < 1)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_BATCH, "batch = %lld is less than 1",
                        (long long)batch);
  int64_t elements = 1;
  for (int k = 0; k < rank; k++) {
    elements = zipfft__saturating_product(elements, lengths[k]);
    if (elements > ZIPFFT__MAX_ELEMENTS)
      return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                          "lengths[0..%d]: the product up to lengths[%d] = %lld exceeds 2^58",
                          rank - 1, k, (long long)lengths[k]);
  }
  if (zipfft__saturating_product(elements, batch) > ZIPFFT__MAX_ELEMENTS)
    return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                        "batch = %lld times the %lld elements of the lengths exceeds 2^58",
                        (long long)batch, (long long)elements);
  return ZIPFFT_SUCCESS;
}

/* 1 when every prime factor of n is at most 13 (one kernel's radices). */
static int smooth13(int64_t n) {
  for (int p = 2; p <= 13; p++)
    while (n % p == 0) n /= p;
  return n == 1;
}

/* The FFT length of a VALID axis of length n: n when 13-smooth, else the smallest
 * 7-smooth length above it (no output of the region wraps, so padding changes none). */
static int64_t fft_length(int64_t n) { return smooth13(n) ? n : zipfft__smooth_length(n); }

/* The problem, output lengths and shift of a region (see zipfft.h). */
static void fill_problem(zipfft_corr c, zipfft_precision prec, int rank, const int64_t *lengths,
                         const int64_t *signal, int64_t batch, const zipfft_corr_config *cfg) {
  zipfft__corr_problem *p = &c->problem;
  *p = (zipfft__corr_problem){.precision = prec, .rank = rank, .batch = batch};
  p->op = cfg->mode == ZIPFFT_CONVOLVE ? ZIPFFT__FUSED_CONVOLVE : ZIPFFT__FUSED_CORRELATE;
  p->spectrum_storage = cfg->spectrum_storage;
  p->mid_storage = cfg->intermediate_storage;
  int conv = cfg->mode == ZIPFFT_CONVOLVE;
  for (int k = 0; k < rank; k++) {
    p->filter[k] = lengths[k], p->signal[k] = signal[k];
    p->lengths[k] = cfg->region == ZIPFFT_REGION_VALID ? fft_length(lengths[k]) : lengths[k];
    int valid = cfg->region == ZIPFFT_REGION_VALID, same = cfg->region == ZIPFFT_REGION_SAME;
    p->out[k] = valid ? lengths[k] - signal[k] + 1 : lengths[k];
    int64_t centre = signal[k] / 2;
    c->shift[k] = same ? (conv ? centre : -centre) : valid && conv ? signal[k] - 1 : 0;
  }
}

/* Frees a correlation plan and what it holds, keeping the thread's error detail (a failed
 * create reports its cause after this cleanup). */
static void release(zipfft_corr c) {
  if (c->spectrum) c->backend->ops->free(c->backend, c->spectrum);
  if (c->stats) c->backend->ops->free(c->backend, c->stats);
  free(c->folded_sums);
  zipfft__plan_release(c->plan);
  free(c);
}

/* Creates the plan of kernels and the spectrum's memory. */
static zipfft_status build(zipfft_corr c) {
  struct zipfft_desc_s d = {.type = ZIPFFT_R2C,
                            .precision = c->problem.precision,
                            .rank = c->problem.rank,
                            .batch = c->problem.batch,
                            .scale = 1.0,
                            .backend = c->backend_kind,
                            .device = c->device};
  for (int k = 0; k < d.rank; k++) d.lengths[k] = c->problem.lengths[k];
  zipfft_status s = zipfft__plan_create_with(&c->plan, &d, &zipfft__strategy_corr,
                                             zipfft__corr_decompose, &c->problem);
  if (s != ZIPFFT_SUCCESS) return s;
  c->backend = zipfft__plan_backend_ops(c->plan);
  zipfft_plan_backend(c->plan, &c->backend_kind);
  return c->backend->ops->alloc(c->backend, (size_t)zipfft__corr_spectrum_bytes(&c->problem),
                                &c->spectrum);
}

zipfft_status zipfft_corr_create(zipfft_corr *out, zipfft_precision prec, int rank,
                                 const int64_t *lengths, const int64_t *signal_lengths,
                                 int64_t batch, const zipfft_corr_config *config) {
  if (!out) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_create: c is NULL");
  const zipfft_corr_config *cfg = config ? config : &default_config;
  zipfft_status s = check_shape(prec, rank, lengths, signal_lengths, batch);
  if (s == ZIPFFT_SUCCESS) s = check_config(prec, rank, cfg);
  if (s != ZIPFFT_SUCCESS) return s;
  if (cfg->device < 0 || cfg->backend < ZIPFFT_BACKEND_AUTO || cfg->backend > ZIPFFT_BACKEND_CUDA)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_BACKEND, "config backend = %d, device = %d",
                        (int)cfg->backend, cfg->device);
  zipfft_corr c = calloc(1, sizeof *c);
  if (!c) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "allocating a correlation plan");
  fill_problem(c, prec, rank, lengths, signal_lengths, batch, cfg);
  c->backend_kind = cfg->backend, c->device = cfg->device;
  s = build(c);
  if (s != ZIPFFT_SUCCESS) { /* the detail (a compiler's log, maybe) outlives the cleanup */
    release(c);
    return s;
  }
  *out = c;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_corr_destroy(zipfft_corr c) {
  if (c) release(c);
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* The length accessors: copies the problem's output lengths, or its FFT lengths (fft). */
static zipfft_status copy_lengths(const char *function, zipfft_corr c, int64_t *lengths, int fft) {
  if (!c || !lengths)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "%s: %s is NULL", function, c ? "lengths" : "c");
  const int64_t *from = fft ? c->problem.lengths : c->problem.out;
  for (int k = 0; k < c->problem.rank; k++) lengths[k] = from[k];
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_corr_output_lengths(zipfft_corr c, int64_t *lengths) {
  return copy_lengths("zipfft_corr_output_lengths", c, lengths, 0);
}

zipfft_status zipfft_corr_fft_lengths(zipfft_corr c, int64_t *lengths) {
  return copy_lengths("zipfft_corr_fft_lengths", c, lengths, 1);
}

zipfft_status zipfft_corr_backend(zipfft_corr c, zipfft_backend *b) {
  if (!c || !b)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_backend: %s is NULL",
                        c ? "b" : "c");
  *b = c->backend_kind;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}
