/* twiddle.h - twiddle tables computed in long double on the host. */
#ifndef ZIPFFT_TWIDDLE_H
#define ZIPFFT_TWIDDLE_H

#include <stddef.h>
#include <stdint.h>

#include "zipfft.h"

struct zipfft__kernel_spec;

/* Where the parts of a kernel's table start (complex elements; unused parts are empty).
 * After the Stockham twiddles come, when the kernel needs them:
 * - split: the HALF kinds' exp(sign 2 pi i k / 2n), k = 0..n/2; for paired_rows kernels (L =
 *   paired_rows * n) instead exp(sign 2 pi i r / 2L), r = 0..paired_rows/2, then
 *   exp(sign 2 pi i k / 2n), k = 0..n-1 (their product is W^(r + paired_rows k)); for the
 *   pointwise SPLIT and MERGE kernels of whole long axes (split_shift > 0) in two levels,
 *   so the table grows with sqrt(n): low[k % 2^split_shift] * high[k >> split_shift];
 * - large_low/large_high: the fused four-step twiddle in two levels, so the table grows
 *   with sqrt(L): exp(sign 2 pi i e / L) = low[e % 2^shift] * high[e >> shift];
 * - chirp: Bluestein's c_e = exp(sign pi i e^2 / N), e < N (N = zipfft__chirp_length);
 * - rader_index: Rader kernels' n entries, for e = 1..p-1: log_g(e) and -log_g(e) mod n, exact;
 * - filter: the n-point FFT (sign of the kernel) of conj(c) wrapped around (Bluestein) or
 *   of exp(sign 2 pi i g^-m / p) (Rader), divided by n (n = zipfft__filter_length: Bluestein's
 *   padded length for the FILTER loads of a fused four-step). */
typedef struct zipfft__table_layout {
  int64_t split, large_low, large_high, chirp, rader_index, filter, count;
  int large_shift, split_shift;
} zipfft__table_layout;
zipfft__table_layout zipfft__table_layout_of(const struct zipfft__kernel_spec *s);

/* cos and sin of 2 pi k / n in long double, k >= 0, exact at the multiples of pi/4 (the
 * octants are rebuilt by symmetry from an angle of at most pi/4). */
void zipfft__unit_root(int64_t k, int64_t n, long double *c, long double *s);

/* 1 when the kernel's table holds Bluestein's chirp (Bluestein kernels, chirp gathers and
 * scatters), respectively a filter (Bluestein and Rader kernels, pointwise FILTER kernels). */
int zipfft__needs_chirp(const struct zipfft__kernel_spec *s);
int zipfft__needs_filter(const struct zipfft__kernel_spec *s);
/* 1 when the plan computes the kernel's filter (api/bluestein_filter.c) after the table is
 * made: pointwise FILTER kernels, and fused Bluestein four-steps' FILTER loads. */
int zipfft__filter_from_plan(const struct zipfft__kernel_spec *s);

/* Bluestein's conj(c_m) for chirp length big and sign, m = first .. first + count - 1, each
 * rounded once from long double, written to b[0 .. 2 count) as interleaved complex
 * doubles: the entries of the sequence whose FFT is the filter (api/bluestein_filter.c
 * places them at m and at n - m). */
void zipfft__bluestein_conj_chirps(int64_t big, int sign, int64_t first, int64_t count, double *b);

/* Writes entries first .. first + count - 1 of the filter part of a kernel's table from
 * spectrum (count interleaved complex values of the n-point FFT of the filter's source
 * sequence, from entry first), divided by n in double precision, rounded to the kernel's
 * precision. */
void zipfft__put_filter_spectrum(const struct zipfft__kernel_spec *s, int64_t first, int64_t count,
                                 const double *spectrum, void *table);

/* The smallest primitive root modulo a prime p (< 2^31): the g of Rader's method. */
int64_t zipfft__primitive_root(int64_t p);

/* Offset (in complex elements) of pass p's twiddles in the Stockham table of a spec. */
int64_t zipfft__stockham_twiddle_offset(const struct zipfft__kernel_spec *s, int pass);
/* Complex entries of the kernel's table (0: the kernel needs none). */
int64_t zipfft__twiddle_count(const struct zipfft__kernel_spec *s);
/* Returns a malloc'ed table holding, for every pass p > 0 of radix r after a stride ns,
 * exp(sign 2 pi i k q / (ns r)) at offset(p) + (q-1)*ns + k, k < ns, q = 1..r-1: the
 * threads of a warp (consecutive k) read consecutive entries, followed by the parts of
 * zipfft__table_layout. *bytes gets its size; NULL when memory runs out or the table is
 * empty. */
void *zipfft__stockham_twiddles(const struct zipfft__kernel_spec *s, size_t *bytes);

#endif
