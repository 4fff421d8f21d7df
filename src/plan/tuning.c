/* tuning.c - reading the planner's tuning variables (docs/tuning.md) as numbers. */
#include "plan/tuning.h"

#include <stdlib.h>

int zipfft__tuning_int(const char *variable, int unset) {
  const char *value = getenv(variable);
  return value && *value ? atoi(value) : unset;
}
