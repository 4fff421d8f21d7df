/* corr_run.c - running a correlation plan for its outputs, and the checks every run makes. */
#include "api/corr_internal.h"
#include "api/error.h"

zipfft_status zipfft__corr_check_run(zipfft_corr c, const void *signals, int64_t count,
                                     void *stream, const char *who) {
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
  zipfft_status s = zipfft__corr_check_run(c, signals, count, stream, "zipfft_corr_execute");
  if (s == ZIPFFT_SUCCESS && !out)
    s = zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_corr_execute: out is NULL");
  if (s != ZIPFFT_SUCCESS) return s;
  zipfft__run run = {
      .in = signals, .out = out, .spectrum = c->spectrum, .count = count, .stream = stream};
  s = zipfft__plan_run(c->plan, &run);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}
