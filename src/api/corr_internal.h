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
};

#endif
