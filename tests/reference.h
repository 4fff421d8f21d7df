/* reference.h - an independent long-double reference DFT and error norms for the tests. */
#ifndef ZIPFFT_TEST_REFERENCE_H
#define ZIPFFT_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* Naive O(n^2) DFT of n complex values stored as (re, im) pairs of long double:
 * out[k] = sum_j in[j] * exp(sign * 2*pi*i * j*k / n), unnormalised, sign -1 or +1.
 * Twiddles come from one table of n entries computed with cosl/sinl; the table index
 * j*k mod n is computed exactly. in and out must not overlap. n >= 1. */
void zr_dft(const long double *in, long double *out, int64_t n, int sign);

/* The same transform by FFTW in long double (O(n log n)), for lengths where the naive DFT
 * is too slow; test_reference checks the two against each other. */
void zr_dft_fftwl(const long double *in, long double *out, int64_t n, int sign);

/* zr_dft for n <= 4096, else zr_dft_fftwl. */
void zr_dft_auto(const long double *in, long double *out, int64_t n, int sign);

/* Relative L2 distance ||got - ref|| / ||ref|| over count complex pairs. Returns INFINITY
 * when a value of got is not finite, 0 when both are zero, INFINITY when only ref is. */
double zr_rel_l2(const long double *ref_pairs, const double *got_pairs, size_t count);

/* The largest zr_rel_l2 of batch transforms of per pairs each, laid out one after another:
 * each transform of a batch is held to the gate on its own, so that one bad transform
 * cannot hide in the others' norm. */
double zr_worst_rel_l2(const long double *ref_pairs, const double *got_pairs, size_t per,
                       size_t batch);

/* Same distance with a long-double candidate (for checks of the reference itself). */
double zr_rel_l2_ld(const long double *ref_pairs, const long double *got_pairs, size_t count);

/* calloc'ed array of count complex pairs (2*count long doubles); exits on exhaustion.
 * Free with free(). */
long double *zr_alloc_pairs(size_t count);

/* In-place separable DFT of `batch` row-major arrays of the given rank and lengths (complex
 * pairs, unnormalised): a zr_dft along every axis. */
void zr_dft_nd(long double *x, int rank, const int64_t *lengths, int64_t batch, int sign);

/* zr_dft_nd with another DFT of each line (zr_dft_auto for long lines, in the tests that
 * link FFTW). */
typedef void (*zr_line_dft)(const long double *in, long double *out, int64_t n, int sign);
void zr_dft_nd_by(long double *x, int rank, const int64_t *lengths, int64_t batch, int sign,
                  zr_line_dft line_dft);

#endif
