/* corr_internal.h - the state of a zipfft_corr plan, shared by the files of the API. */
#ifndef ZIPFFT_CORR_INTERNAL_H
#define ZIPFFT_CORR_INTERNAL_H

#include "api/plan_internal.h"
#include "backend/backend.h"
#include "plan/corr.h"

struct zipfft_corr_s {
  zipfft__corr_problem problem;
  zipfft_backend backend_kind;
  int device;
  int64_t shift[ZIPFFT__MAX_RANK]; /* out[x] = full[x + shift] */
  zipfft_plan plan;
  zipfft__backend *backend; /* the plan's */
  void *spectrum, *stats;
  int has_filter;
  int64_t accumulated; /* signals folded into the statistics since the reset */
  /* The outputs' sums: the correlation of the signals' running sum (on the device, in the
   * statistics memory) over the `pending` signals since the last fold, plus folded_sums
   * (host, one double per output position; NULL before the first fold), the sums of the
   * signals correlated with filters since replaced. */
  int64_t pending;
  double *folded_sums;
};

/* Checks what every run needs: the plan, the filter, the signals, count (1..batch), the
 * stream (NULL on the CPU); `who` names the caller in the message. */
zipfft_status zipfft__corr_check_run(zipfft_corr c, const void *signals, int64_t count,
                                     void *stream, const char *who);

/* Before the kept spectrum is replaced: adds the sums of the pending signals' outputs,
 * correlated with the current filter, to folded_sums, and clears the running sum (waits
 * for all the device's work). Nothing to do without pending signals. */
zipfft_status zipfft__corr_fold_sums(zipfft_corr c);

#endif
