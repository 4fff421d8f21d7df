/* twiddle.h - twiddle tables computed in long double on the host. */
#ifndef ZIPFFT_TWIDDLE_H
#define ZIPFFT_TWIDDLE_H

#include <stddef.h>
#include <stdint.h>

#include "zipfft.h"

/* Returns a malloc'ed table of n interleaved complex values exp(sign 2 pi i k / n),
 * k = 0..n-1, each rounded once from long double to the precision's real type; *bytes gets
 * its size. NULL when memory runs out. */
void *zipfft__twiddle_table(int64_t n, int sign, zipfft_precision prec, size_t *bytes);

#endif
