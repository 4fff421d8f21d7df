/* tuning.h - reading the planner's tuning variables (docs/tuning.md) as numbers. */
#ifndef ZIPFFT_PLAN_TUNING_H
#define ZIPFFT_PLAN_TUNING_H

/* The value of the tuning variable `variable` read with atoi (a malformed value counts as
 * 0), or `unset` where the variable is unset or empty. Reads the environment only. */
int zipfft__tuning_int(const char *variable, int unset);

#endif
