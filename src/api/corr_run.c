/* corr_run.c - running a correlation plan: outputs, or the 2DTM statistics (reset,
 * accumulate, finalise). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/corr_internal.h"
#include "api/error.h"

/* Output positions: the statistics arrays hold this many values each. */
static int64_t plane_of(const zipfft__corr_problem *p) {
  int64_t n = 1;
  for (int k = 0; k < p->rank; k++) n *= p->out[k];
  return n;
}

/* Checks what every run needs: the plan, the filter, the signals, count, the stream. */
static zipfft_status check_run(zipfft_corr c, const void *signals, int64_t count, void *stream,
                               const char *who) {
  if (!c || !signals)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "%s: %s is NULL", who, c ? "signals" : "c");
  if (!c->has_filter)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT, "%s: no filter set (zipfft_corr_set_filter)",
                        who);
  if (count < 1 || count > c->problem.batch)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_BATCH, "%s: count = %lld is outside 1..batch = %lld",
                        who, (long long)count, (long long)c->problem.batch);
  if (stream && c->backend_kind == ZIPFFT_BACKEND_CPU)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT, "%s: stream %p given to a CPU plan", who,
                        stream);
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_corr_execute(zipfft_corr c, const void *signals, int64_t count, void *out,
                                  void *stream) {
  zipfft_status s = check_run(c, signals, count, stream, "zipfft_corr_execute");
  if (s == ZIPFFT_SUCCESS && !out)
    s = zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_execute: out is NULL");
  if (s != ZIPFFT_SUCCESS) return s;
  zipfft__run run = {signals, out, c->spectrum, NULL, count, 0, 0, stream};
  s = zipfft__plan_run(c->plan, &run);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}

zipfft_status zipfft_corr_stats_reset(zipfft_corr c, void *stream) {
  if (!c) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_stats_reset: c is NULL");
  if (stream && c->backend_kind == ZIPFFT_BACKEND_CPU)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                        "zipfft_corr_stats_reset: stream %p given to a CPU plan", stream);
  /* stream only orders nothing here: the upload waits for all the device's work */
  int64_t plane = plane_of(&c->problem);
  size_t bytes = (size_t)plane * 24;
  unsigned char *init = calloc(1, bytes); /* maxima 0, sums 0 */
  if (!init) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "statistics of %zu bytes", bytes);
  memset(init + 4 * plane, 0xff, (size_t)plane * 4); /* indices -1: nothing yet */
  zipfft_status s = ZIPFFT_SUCCESS;
  if (!c->stats) s = c->backend->ops->alloc(c->backend, bytes, &c->stats);
  if (s == ZIPFFT_SUCCESS) s = c->backend->ops->upload(c->backend, c->stats, init, bytes);
  free(init);
  if (s != ZIPFFT_SUCCESS) return s;
  c->accumulated = 0;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_corr_accumulate(zipfft_corr c, const void *signals, int64_t count,
                                     int32_t first_index, void *stream) {
  zipfft_status s = check_run(c, signals, count, stream, "zipfft_corr_accumulate");
  if (s == ZIPFFT_SUCCESS && !zipfft__plan_has_statistics(c->plan))
    s = zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                     "zipfft_corr_accumulate: no statistics kernel for a last axis of %lld "
                     "(a Bluestein length)",
                     (long long)c->problem.lengths[c->problem.rank - 1]);
  if (s == ZIPFFT_SUCCESS && !c->stats)
    s = zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                     "zipfft_corr_accumulate: statistics not reset (zipfft_corr_stats_reset)");
  if (s == ZIPFFT_SUCCESS && (first_index < 0 || (int64_t)first_index + count - 1 > INT32_MAX))
    s = zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                     "zipfft_corr_accumulate: first_index = %d (indices must be 0..2^31-1)",
                     (int)first_index);
  if (s != ZIPFFT_SUCCESS) return s;
  zipfft__run run = {signals, NULL, c->spectrum, c->stats, count, first_index, 1, stream};
  s = zipfft__plan_run(c->plan, &run);
  if (s != ZIPFFT_SUCCESS) return s;
  c->accumulated += count;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* Writes the finalised maps at position i from the statistics (host copy). */
static void finalize_at(const unsigned char *stats, int64_t plane, int64_t i, double count,
                        float *max, int32_t *index, float *mean, float *stddev, float *zscore) {
  float m;
  int32_t ix;
  double sum, squares;
  memcpy(&m, stats + 4 * i, 4);
  memcpy(&ix, stats + 4 * plane + 4 * i, 4);
  memcpy(&sum, stats + 8 * plane + 8 * i, 8);
  memcpy(&squares, stats + 16 * plane + 8 * i, 8);
  double mu = count > 0 ? sum / count : 0;
  double var = count > 0 ? squares / count - mu * mu : 0;
  double sd = isnan(var) ? var : var > 0 ? sqrt(var) : 0; /* NaN sums stay visible */
  if (max) max[i] = m;
  if (index) index[i] = ix;
  if (mean) mean[i] = (float)mu;
  if (stddev) stddev[i] = (float)sd;
  if (zscore) zscore[i] = isnan(sd) || sd > 0 ? (float)((m - mu) / sd) : 0.0f;
}

zipfft_status zipfft_corr_finalize(zipfft_corr c, float *max, int32_t *index, float *mean,
                                   float *stddev, float *zscore) {
  if (!c) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_finalize: c is NULL");
  if (!c->stats)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                        "zipfft_corr_finalize: statistics not reset (zipfft_corr_stats_reset)");
  int64_t plane = plane_of(&c->problem);
  unsigned char *host = malloc((size_t)plane * 24);
  if (!host)
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "statistics of %lld positions",
                        (long long)plane);
  zipfft_status s = c->backend->ops->download(c->backend, host, c->stats, (size_t)plane * 24);
  for (int64_t i = 0; s == ZIPFFT_SUCCESS && i < plane; i++)
    finalize_at(host, plane, i, (double)c->accumulated, max, index, mean, stddev, zscore);
  free(host);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}
