/* report.h - the error messages of the match tools' file and data functions. */
#ifndef ZIPFFT_MATCH_REPORT_H
#define ZIPFFT_MATCH_REPORT_H

#include <stddef.h>

/* Formats a message into err (when err is not NULL and err_len > 0) and returns 1, the
 * failure code of the match tools' functions. */
int match_fail(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
