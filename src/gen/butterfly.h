/* butterfly.h - small DFTs in registers ("device FFT" building block) as AST statements. */
#ifndef ZIPFFT_BUTTERFLY_H
#define ZIPFFT_BUTTERFLY_H

#include "gen/ast.h"

/* A complex value as two real expressions. */
typedef struct zipfft__cval {
  const zipfft__expr *re, *im;
} zipfft__cval;

/* Largest radix a single butterfly may have. */
enum { ZIPFFT__MAX_RADIX = 64 };

/* Appends to `b` the statements computing y = DFT_radix(x) with exponent sign `sign`
 * (-1 forward, +1 inverse): y[k] = sum_n x[n] exp(sign 2 pi i n k / radix). Composite radices
 * are split Cooley-Tukey style with constant twiddles folded (multiples of a quarter turn
 * cost no multiply, other twiddles are applied in tangent form with their real scale taken
 * into the next additions as fused multiply-adds); odd primes use the symmetric
 * real-coefficient form. radix in 1..64. */
void zipfft__emit_dft(zipfft__arena *a, zipfft__block *b, int sign, int radix,
                      const zipfft__cval *x, zipfft__cval *y);

/* Returns x * exp(sign 2 pi i num / den), folding quarter turns. */
zipfft__cval zipfft__cval_rotate(zipfft__arena *a, zipfft__cval x, int sign, int64_t num,
                                 int64_t den);
/* Returns x * w for run-time w. */
zipfft__cval zipfft__cval_mul(zipfft__arena *a, zipfft__cval x, zipfft__cval w);
/* Declares fresh real variables holding v (unless v is already variables or constants). */
zipfft__cval zipfft__cval_materialize(zipfft__arena *a, zipfft__block *b, zipfft__cval v);

#endif
