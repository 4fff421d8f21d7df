/* test_reference.c - proves the long-double reference DFT against FFTW (long double) and
 * against exactly known spectra, before the other tests trust it. */
#include <fftw3.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "test_util.h"

static const long double two_pi = 6.283185307179586476925286766559005768L;
static double worst_fftw; /* largest relative L2 difference to FFTW seen */

/* Fills n complex values with the deterministic test data of seed. */
static void fill_random(long double *x, int64_t n, uint64_t seed) {
  for (int64_t i = 0; i < 2 * n; i++) x[i] = (long double)zt_uniform(seed, (uint64_t)i);
}

/* Transforms x with FFTW long double (estimate plan) into y. */
static void fftw_reference(const long double *x, long double *y, int64_t n, int sign) {
  fftwl_complex *in = fftwl_malloc(sizeof(fftwl_complex) * (size_t)n);
  fftwl_complex *out = fftwl_malloc(sizeof(fftwl_complex) * (size_t)n);
  fftwl_plan plan = fftwl_plan_dft_1d((int)n, in, out, sign, FFTW_ESTIMATE);
  memcpy(in, x, sizeof(fftwl_complex) * (size_t)n);
  fftwl_execute(plan);
  memcpy(y, out, sizeof(fftwl_complex) * (size_t)n);
  fftwl_destroy_plan(plan);
  fftwl_free(in);
  fftwl_free(out);
}

/* zr_dft and FFTW agree on random data in both directions. */
static void check_against_fftw(int64_t n) {
  long double *x = zr_alloc_pairs((size_t)n), *a = zr_alloc_pairs((size_t)n);
  long double *b = zr_alloc_pairs((size_t)n);
  for (int sign = -1; sign <= 1; sign += 2) {
    fill_random(x, n, 1000 + (uint64_t)n);
    zr_dft(x, a, n, sign);
    fftw_reference(x, b, n, sign);
    double d = zr_rel_l2_ld(b, a, (size_t)n);
    if (d > worst_fftw) worst_fftw = d;
    ZT_CHECK(d < 1e-17, "reference vs fftwl n=%lld sign=%d: rel L2 %.3g", (long long)n, sign, d);
  }
  free(x);
  free(a);
  free(b);
}

/* An impulse at 0 gives exactly 1 everywhere; an impulse at 1 gives the roots of unity
 * (to the accuracy of cosl/sinl of a rounded angle: a few long-double ulps). */
static void check_impulses(int64_t n, int sign) {
  long double *x = zr_alloc_pairs((size_t)n), *y = zr_alloc_pairs((size_t)n);
  int64_t inexact = 0;
  long double worst = 0;
  x[0] = 1;
  zr_dft(x, y, n, sign);
  for (int64_t k = 0; k < n; k++) inexact += y[2 * k] != 1 || y[2 * k + 1] != 0;
  ZT_CHECK(inexact == 0, "impulse at 0, n=%lld sign=%d: %lld outputs differ from 1", (long long)n,
           sign, (long long)inexact);
  x[0] = 0;
  x[2 % (2 * n)] = 1; /* impulse at 1 (at 0 again when n == 1) */
  zr_dft(x, y, n, sign);
  for (int64_t k = 0; k < n; k++) {
    long double angle = two_pi * (long double)k / (long double)n;
    worst = fmaxl(worst, fabsl(y[2 * k] - cosl(angle)));
    worst = fmaxl(worst, fabsl(y[2 * k + 1] - sign * sinl(angle)));
  }
  ZT_CHECK(worst <= 8 * LDBL_EPSILON, "impulse at 1, n=%lld sign=%d: off by %Lg", (long long)n,
           sign, worst);
  free(x);
  free(y);
}

/* A constant 1 gives exactly n at 0 and (to rounding) zero elsewhere. */
static void check_constant(int64_t n, int sign) {
  long double *x = zr_alloc_pairs((size_t)n), *y = zr_alloc_pairs((size_t)n);
  for (int64_t j = 0; j < n; j++) x[2 * j] = 1;
  zr_dft(x, y, n, sign);
  ZT_CHECK(y[0] == (long double)n && y[1] == 0, "constant n=%lld: X[0] = %Lg%+Lgi", (long long)n,
           y[0], y[1]);
  long double worst = 0;
  for (int64_t k = 1; k < n; k++) worst = fmaxl(worst, fabsl(y[2 * k]) + fabsl(y[2 * k + 1]));
  ZT_CHECK(worst <= 8 * n * LDBL_EPSILON, "constant n=%lld sign=%d: |X[k>0]| up to %Lg",
           (long long)n, sign, worst);
  free(x);
  free(y);
}

/* DFT(a x + b y) = a DFT(x) + b DFT(y), and the inverse of the forward is n times x. */
static void check_linearity_and_inverse(int64_t n) {
  const long double a = 0.75L, b = -1.25L;
  long double *x = zr_alloc_pairs((size_t)n), *y = zr_alloc_pairs((size_t)n);
  long double *z = zr_alloc_pairs((size_t)n), *fx = zr_alloc_pairs((size_t)n);
  long double *fy = zr_alloc_pairs((size_t)n), *fz = zr_alloc_pairs((size_t)n);
  fill_random(x, n, 7);
  fill_random(y, n, 8);
  for (int64_t i = 0; i < 2 * n; i++) z[i] = a * x[i] + b * y[i];
  zr_dft(x, fx, n, -1);
  zr_dft(y, fy, n, -1);
  zr_dft(z, fz, n, -1);
  for (int64_t i = 0; i < 2 * n; i++) fx[i] = a * fx[i] + b * fy[i];
  double d = zr_rel_l2_ld(fx, fz, (size_t)n);
  ZT_CHECK(d < 1e-16, "linearity n=%lld: rel L2 %.3g", (long long)n, d);
  zr_dft(fz, fy, n, +1);
  for (int64_t i = 0; i < 2 * n; i++) z[i] *= (long double)n;
  d = zr_rel_l2_ld(z, fy, (size_t)n);
  ZT_CHECK(d < 1e-16, "inverse(forward(x)) = n x, n=%lld: rel L2 %.3g", (long long)n, d);
  free(x);
  free(y);
  free(z);
  free(fx);
  free(fy);
  free(fz);
}

/* The helpers the other tests use: zr_rel_l2 reads every real, zr_dft_nd_by transforms every
 * axis (against FFTW's own multidimensional plan), zr_dft_fftwl agrees with zr_dft. */
static void check_helpers(void) {
  long double r[4] = {3, 0, 0, 4};
  double g[4] = {3, 0, 0, 4};
  for (int i = 0; i < 4; i++) {
    g[i] += 5; /* one changed real: distance 5 / 5 */
    ZT_CHECK(zr_rel_l2(r, g, 2) == 1.0, "zr_rel_l2 misses real %d", i);
    g[i] = NAN;
    ZT_CHECK(isinf(zr_rel_l2(r, g, 2)), "zr_rel_l2 misses a NaN at %d", i);
    g[i] = (double)r[i];
  }
  /* zr_worst_rel_l2 holds each transform to the gate: one transform off by a third beside
   * three exact ones is a third, though the batch's norm would be a sixth */
  long double r4[8] = {3, 4, 3, 4, 3, 4, 3, 4};
  double g4[8] = {3, 4, 3, 4, 3, 4, 3, 4};
  g4[5] += 5.0 / 3;
  double worst = zr_worst_rel_l2(r4, g4, 1, 4);
  ZT_CHECK(fabs(worst - 1.0 / 3) < 1e-15, "zr_worst_rel_l2 of one bad transform in 4: %.17g",
           worst);
  ZT_CHECK(zr_rel_l2(r4, g4, 4) < 0.17, "the batch's norm dilutes it (what the helper avoids)");
  r4[0] = NAN; /* a NaN distance in a first transform is not hidden by a later exact one */
  g4[5] = 4;
  ZT_CHECK(isnan(zr_worst_rel_l2(r4, g4, 1, 4)), "zr_worst_rel_l2 drops a NaN distance");
  int64_t len[3] = {3, 4, 5};
  int n[3] = {3, 4, 5};
  long double *x = zr_alloc_pairs(120), *y = zr_alloc_pairs(120);
  fftwl_complex *a = fftwl_malloc(sizeof(fftwl_complex) * 120);
  fftwl_plan p = fftwl_plan_many_dft(3, n, 2, a, NULL, 1, 60, a, NULL, 1, 60, -1, FFTW_ESTIMATE);
  fill_random(x, 120, 99);
  memcpy(a, x, sizeof(fftwl_complex) * 120);
  fftwl_execute(p);
  memcpy(y, a, sizeof(fftwl_complex) * 120);
  zr_dft_nd_by(x, 3, len, 2, -1, zr_dft_auto);
  double d = zr_rel_l2_ld(y, x, 120);
  ZT_CHECK(d < 1e-17, "zr_dft_nd_by vs fftwl 3x4x5 batch 2: rel L2 %.3g", d);
  fftwl_destroy_plan(p), fftwl_free(a), free(x), free(y);
  x = zr_alloc_pairs(5000), y = zr_alloc_pairs(5000);
  long double *z = zr_alloc_pairs(5000);
  fill_random(x, 5000, 5);
  zr_dft(x, y, 5000, 1);
  zr_dft_auto(x, z, 5000, 1);
  d = zr_rel_l2_ld(y, z, 5000);
  ZT_CHECK(d < 1e-17, "zr_dft_auto (fftwl) vs zr_dft n=5000: rel L2 %.3g", d);
  free(x), free(y), free(z);
}

int main(void) {
  static const int64_t extra[] = {97, 128, 210, 1000, 1024, 2187};
  int64_t lengths[64 + sizeof extra / sizeof extra[0]];
  int count = 0;
  for (int64_t n = 1; n <= 64; n++) lengths[count++] = n;
  for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) lengths[count++] = extra[i];
  for (int i = 0; i < count; i++) {
    check_against_fftw(lengths[i]);
    check_impulses(lengths[i], -1);
    check_impulses(lengths[i], +1);
    check_constant(lengths[i], -1);
    check_constant(lengths[i], +1);
    check_linearity_and_inverse(lengths[i]);
  }
  check_helpers();
  printf("test_reference: worst relative L2 difference to fftwl %.3g\n", worst_fftw);
  return zt_finish("test_reference", count);
}
