/* twiddle.h - twiddle tables computed in long double on the host. */
#ifndef ZIPFFT_TWIDDLE_H
#define ZIPFFT_TWIDDLE_H

#include <stddef.h>
#include <stdint.h>

#include "zipfft.h"

struct zipfft__kernel_spec;

/* Offset (in complex elements) of pass p's twiddles in the Stockham table of a spec. */
int64_t zipfft__stockham_twiddle_offset(const struct zipfft__kernel_spec *s, int pass);
/* Complex entries of the kernel's twiddle table (0: the kernel needs none). The HALF kinds'
 * split/merge twiddles follow the Stockham ones, at offset(pass_count). */
int64_t zipfft__twiddle_count(const struct zipfft__kernel_spec *s);
/* Returns a malloc'ed table holding, for every pass p > 0 of radix r after a stride ns,
 * exp(sign 2 pi i k q / (ns r)) at offset(p) + (q-1)*ns + k, k < ns, q = 1..r-1: the
 * threads of a warp (consecutive k) read consecutive entries. *bytes gets its size;
 * NULL when memory runs out or the spec has one pass. */
void *zipfft__stockham_twiddles(const struct zipfft__kernel_spec *s, size_t *bytes);

#endif
