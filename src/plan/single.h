/* single.h - sizing of one single-kernel batched 1D transform (plan/single.c). */
#ifndef ZIPFFT_SINGLE_H
#define ZIPFFT_SINGLE_H

#include "plan/kernel_spec.h"
#include "plan/strategy.h"

/* Completes a spec whose precision, sign, n, strides, batch dimensions, fft_major wish and
 * scale are set: chooses the radices, threads per transform and transforms per block (at
 * most `transforms`). Returns 0 when n cannot be done in one kernel on the target (a prime
 * factor above 13, too many threads, or too much shared memory). */
int zipfft__size_single_kernel(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t);

#endif
