/* reference_fftw.c - the long-double reference through FFTW for long transforms (tests only;
 * the zipfft command uses the naive reference alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "reference.h"

void zr_dft_fftwl(const long double *in, long double *out, int64_t n, int sign) {
  fftwl_complex *a = fftwl_malloc(sizeof(fftwl_complex) * (size_t)n);
  fftwl_complex *b = fftwl_malloc(sizeof(fftwl_complex) * (size_t)n);
  if (!a || !b) {
    fprintf(stderr, "reference: out of memory for an FFTW transform of %lld\n", (long long)n);
    exit(2);
  }
  fftwl_plan plan = fftwl_plan_dft_1d((int)n, a, b, sign, FFTW_ESTIMATE);
  memcpy(a, in, sizeof(fftwl_complex) * (size_t)n);
  fftwl_execute(plan);
  memcpy(out, b, sizeof(fftwl_complex) * (size_t)n);
  fftwl_destroy_plan(plan);
  fftwl_free(a);
  fftwl_free(b);
}

void zr_dft_auto(const long double *in, long double *out, int64_t n, int sign) {
  if (n <= 4096)
    zr_dft(in, out, n, sign);
  else
    zr_dft_fftwl(in, out, n, sign);
}
