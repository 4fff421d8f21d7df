/* report.c - the error messages of the match tools' file and data functions. */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>

int match_fail(char *err, size_t err_len, const char *fmt, ...) {
  if (err && err_len > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_len, fmt, args);
    va_end(args);
  }
  return 1;
}
