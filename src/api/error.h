/* error.h - thread-local error detail shared by every layer. */
#ifndef ZIPFFT_ERROR_H
#define ZIPFFT_ERROR_H

#include "zipfft.h"

/* Records a printf-style detail for zipfft_last_error() and returns status. */
zipfft_status zipfft__fail(zipfft_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Puts a printf-style prefix before the current detail (an inner call's, which it keeps,
 * truncated to the detail's capacity) and returns status. */
zipfft_status zipfft__prefix_error(zipfft_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends text (for example a compiler log) to the current detail. */
void zipfft__append_error(const char *text);
/* Clears the detail at the start of a successful public call. */
void zipfft__clear_error(void);

#endif
