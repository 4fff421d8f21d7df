/* corr_stats.c - the 2DTM statistics of a correlation plan: reset, accumulate, the outputs'
 * sums from the signals' running sum, and finalisation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/corr_internal.h"
#include "api/error.h"

/* Where the parts of the statistics memory start (bytes; each after the one before): the
 * float maxima at 0, the int32 indices at 4 * plane, the double sums of squares at
 * 8 * plane, then the mean map (plane reals of the precision, written by finalisation),
 * the signals' running sum (double) and the mean signal (reals of the precision). */
typedef struct stats_layout {
  size_t mean_map, signal_sum, mean_signal, bytes;
} stats_layout;

/* Output positions: the statistics arrays hold this many values each. */
static int64_t plane_of(const zipfft__corr_problem *p) {
  int64_t n = 1;
  for (int k = 0; k < p->rank; k++) n *= p->out[k];
  return n;
}

static stats_layout layout_of(const zipfft__corr_problem *p) {
  size_t plane = (size_t)plane_of(p), signal = (size_t)zipfft__corr_signal_reals(p);
  stats_layout l;
  l.mean_map = zipfft__bytes_aligned(16 * plane);
  l.signal_sum = zipfft__bytes_aligned(l.mean_map + zipfft__real_size(p->precision) * plane);
  l.mean_signal = zipfft__bytes_aligned(l.signal_sum + 8 * signal);
  l.bytes = l.mean_signal + zipfft__real_size(p->precision) * signal;
  return l;
}

/* UNSUPPORTED_LENGTH, naming the function, where the plan's last axis has no statistics
 * kernel (Rader's or Bluestein's method); else SUCCESS. */
static zipfft_status check_statistics_kernel(zipfft_corr c, const char *function) {
  if (zipfft__plan_has_statistics(c->plan)) return ZIPFFT_SUCCESS;
  return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                      "%s: no statistics kernel for a last axis of %lld (a Rader or Bluestein "
                      "length)",
                      function, (long long)c->problem.lengths[c->problem.rank - 1]);
}

zipfft_status zipfft_corr_stats_reset(zipfft_corr c, void *stream) {
  if (!c) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_stats_reset: c is NULL");
  if (stream && c->backend_kind == ZIPFFT_BACKEND_CPU)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                        "zipfft_corr_stats_reset: stream %p given to a CPU plan", stream);
  zipfft_status checked = check_statistics_kernel(c, "zipfft_corr_stats_reset");
  if (checked != ZIPFFT_SUCCESS) return checked;
  /* stream only orders nothing here: the upload waits for all the device's work */
  int64_t plane = plane_of(&c->problem);
  size_t bytes = layout_of(&c->problem).bytes;
  unsigned char *init = calloc(1, bytes); /* maxima 0, sums 0 */
  if (!init) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "statistics of %zu bytes", bytes);
  memset(init + 4 * plane, 0xff, (size_t)plane * 4); /* indices -1: nothing yet */
  zipfft_status s = ZIPFFT_SUCCESS;
  if (!c->stats) s = c->backend->ops->alloc(c->backend, bytes, &c->stats);
  if (s == ZIPFFT_SUCCESS) s = c->backend->ops->upload(c->backend, c->stats, init, bytes);
  free(init);
  if (s != ZIPFFT_SUCCESS && c->stats) { /* partly cleared: accumulating must ask for a reset */
    c->backend->ops->free(c->backend, c->stats);
    c->stats = NULL;
  }
  if (s != ZIPFFT_SUCCESS) return s;
  free(c->folded_sums);
  c->folded_sums = NULL;
  c->accumulated = c->pending = 0;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* The index of the last of count >= 1 signals numbered from first, saturated at INT64_MAX
 * (count is at most a batch, at most 2^58, so saturation is only a guard). */
static int64_t last_index(int32_t first, int64_t count) {
  return first > 0 && count - 1 > INT64_MAX - first ? INT64_MAX : first + (count - 1);
}

zipfft_status zipfft_corr_accumulate(zipfft_corr c, const void *signals, int64_t count,
                                     int32_t first_index, void *stream) {
  zipfft_status s = zipfft__corr_check_run(c, signals, count, stream, "zipfft_corr_accumulate");
  if (s == ZIPFFT_SUCCESS) s = check_statistics_kernel(c, "zipfft_corr_accumulate");
  if (s == ZIPFFT_SUCCESS && !c->stats)
    s = zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                     "zipfft_corr_accumulate: statistics not reset (zipfft_corr_stats_reset)");
  if (s == ZIPFFT_SUCCESS && (first_index < 0 || last_index(first_index, count) > INT32_MAX))
    s = zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                     "zipfft_corr_accumulate: first_index = %d with count = %lld gives indices "
                     "up to %lld (they must be 0..2^31-1)",
                     (int)first_index, (long long)count, (long long)last_index(first_index, count));
  if (s != ZIPFFT_SUCCESS) return s;
  zipfft__run run = {.in = signals,
                     .spectrum = c->spectrum,
                     .stats = c->stats,
                     .signal_sum = (char *)c->stats + layout_of(&c->problem).signal_sum,
                     .count = count,
                     .first_index = first_index,
                     .statistics = 1,
                     .stream = stream};
  s = zipfft__plan_run(c->plan, &run);
  if (s != ZIPFFT_SUCCESS) return s;
  c->accumulated += count, c->pending += count;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* Writes the mean of the pending signals (their running sum / pending) into the statistics
 * memory as reals of the plan's precision. */
static zipfft_status upload_mean_signal(zipfft_corr c, const stats_layout *l) {
  const zipfft__corr_problem *p = &c->problem;
  int64_t n = zipfft__corr_signal_reals(p);
  double *sum = malloc((size_t)n * sizeof *sum);
  unsigned char *mean = malloc((size_t)n * zipfft__real_size(p->precision));
  zipfft_status s =
      sum && mean
          ? c->backend->ops->download(c->backend, sum, (char *)c->stats + l->signal_sum,
                                      (size_t)n * sizeof *sum)
          : zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "a signal sum of %lld reals", (long long)n);
  for (int64_t i = 0; s == ZIPFFT_SUCCESS && i < n; i++) {
    double m = sum[i] / (double)c->pending;
    if (p->precision == ZIPFFT_F32)
      ((float *)mean)[i] = (float)m;
    else
      ((double *)mean)[i] = m;
  }
  if (s == ZIPFFT_SUCCESS)
    s = c->backend->ops->upload(c->backend, (char *)c->stats + l->mean_signal, mean,
                                (size_t)n * zipfft__real_size(p->precision));
  free(sum);
  free(mean);
  return s;
}

/* Adds the sums of the pending signals' outputs to sums (host, plane values): by
 * linearity pending times the output of their mean signal, which the plan computes once.
 * Waits for all the device's work. */
static zipfft_status add_pending_sums(zipfft_corr c, double *sums) {
  if (c->pending == 0) return ZIPFFT_SUCCESS;
  const zipfft__corr_problem *p = &c->problem;
  stats_layout l = layout_of(p);
  int64_t plane = plane_of(p);
  zipfft_status s = upload_mean_signal(c, &l);
  zipfft__run run = {.in = (char *)c->stats + l.mean_signal,
                     .out = (char *)c->stats + l.mean_map,
                     .spectrum = c->spectrum,
                     .count = 1};
  if (s == ZIPFFT_SUCCESS) s = zipfft__plan_run(c->plan, &run);
  unsigned char *map =
      s == ZIPFFT_SUCCESS ? malloc((size_t)plane * zipfft__real_size(p->precision)) : NULL;
  if (s == ZIPFFT_SUCCESS && !map)
    s = zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "a mean map of %lld reals", (long long)plane);
  if (s == ZIPFFT_SUCCESS)
    s = c->backend->ops->download(c->backend, map, (char *)c->stats + l.mean_map,
                                  (size_t)plane * zipfft__real_size(p->precision));
  double weight = (double)c->pending;
  for (int64_t i = 0; s == ZIPFFT_SUCCESS && i < plane; i++)
    sums[i] +=
        weight * (p->precision == ZIPFFT_F32 ? ((const float *)map)[i] : ((const double *)map)[i]);
  free(map);
  return s;
}

zipfft_status zipfft__corr_fold_sums(zipfft_corr c) {
  if (!c->stats || c->pending == 0) return ZIPFFT_SUCCESS;
  int64_t plane = plane_of(&c->problem);
  if (!c->folded_sums) c->folded_sums = calloc((size_t)plane, sizeof *c->folded_sums);
  if (!c->folded_sums)
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "folded sums of %lld positions",
                        (long long)plane);
  double *sums = malloc((size_t)plane * sizeof *sums);
  if (!sums)
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "sums of %lld positions", (long long)plane);
  memcpy(sums, c->folded_sums, (size_t)plane * sizeof *sums);
  zipfft_status s = add_pending_sums(c, sums);
  stats_layout l = layout_of(&c->problem);
  if (s == ZIPFFT_SUCCESS)
    s = c->backend->ops->zero(c->backend, (char *)c->stats + l.signal_sum,
                              (size_t)zipfft__corr_signal_reals(&c->problem) * 8);
  if (s == ZIPFFT_SUCCESS) { /* only now: a failure leaves the statistics as they were */
    memcpy(c->folded_sums, sums, (size_t)plane * sizeof *sums);
    c->pending = 0;
  }
  free(sums);
  return s;
}

/* Writes the finalised maps at position i from the statistics (host copy) and the sums. */
static void finalize_at(const unsigned char *stats, const double *sums, int64_t plane, int64_t i,
                        double count, float *max, int32_t *index, float *mean, float *stddev,
                        float *zscore) {
  float m;
  int32_t ix;
  double squares;
  memcpy(&m, stats + 4 * i, 4);
  memcpy(&ix, stats + 4 * plane + 4 * i, 4);
  memcpy(&squares, stats + 8 * plane + 8 * i, 8);
  double mu = count > 0 ? sums[i] / count : 0;
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
  unsigned char *host = malloc((size_t)plane * 16);
  double *sums =
      c->folded_sums ? malloc((size_t)plane * sizeof *sums) : calloc((size_t)plane, sizeof *sums);
  zipfft_status s = host && sums
                        ? c->backend->ops->download(c->backend, host, c->stats, (size_t)plane * 16)
                        : zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "statistics of %lld positions",
                                       (long long)plane);
  if (s == ZIPFFT_SUCCESS && c->folded_sums)
    memcpy(sums, c->folded_sums, (size_t)plane * sizeof *sums);
  if (s == ZIPFFT_SUCCESS) s = add_pending_sums(c, sums);
  for (int64_t i = 0; s == ZIPFFT_SUCCESS && i < plane; i++)
    finalize_at(host, sums, plane, i, (double)c->accumulated, max, index, mean, stddev, zscore);
  free(host);
  free(sums);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}
