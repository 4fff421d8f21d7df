/* butterfly.c - generates radix-r DFT butterflies (prime and composite) as AST statements. */
#include "gen/butterfly.h"

#include <math.h>

static zipfft__cval cadd(zipfft__arena *a, zipfft__cval x, zipfft__cval y) {
  return (zipfft__cval){zipfft__e_bin(a, ZIPFFT__OP_ADD, x.re, y.re),
                        zipfft__e_bin(a, ZIPFFT__OP_ADD, x.im, y.im)};
}

static zipfft__cval csub(zipfft__arena *a, zipfft__cval x, zipfft__cval y) {
  return (zipfft__cval){zipfft__e_bin(a, ZIPFFT__OP_SUB, x.re, y.re),
                        zipfft__e_bin(a, ZIPFFT__OP_SUB, x.im, y.im)};
}

static zipfft__cval cscale(zipfft__arena *a, zipfft__cval x, long double c) {
  const zipfft__expr *k = zipfft__e_real(a, c);
  return (zipfft__cval){zipfft__e_bin(a, ZIPFFT__OP_MUL, x.re, k),
                        zipfft__e_bin(a, ZIPFFT__OP_MUL, x.im, k)};
}

static int is_leaf(const zipfft__expr *e) {
  return e->kind == ZIPFFT__E_VAR || e->kind == ZIPFFT__E_REAL;
}

zipfft__cval zipfft__cval_materialize(zipfft__arena *a, zipfft__block *b, zipfft__cval v) {
  if (is_leaf(v.re) && is_leaf(v.im)) return v;
  const zipfft__var *re = zipfft__var_new(a, "r", ZIPFFT__T_REAL);
  const zipfft__var *im = zipfft__var_new(a, "i", ZIPFFT__T_REAL);
  zipfft__s_decl(a, b, re, v.re);
  zipfft__s_decl(a, b, im, v.im);
  return (zipfft__cval){zipfft__e_var(a, re), zipfft__e_var(a, im)};
}

zipfft__cval zipfft__cval_mul(zipfft__arena *a, zipfft__cval x, zipfft__cval w) {
  const zipfft__expr *re =
      zipfft__e_bin(a, ZIPFFT__OP_SUB, zipfft__e_bin(a, ZIPFFT__OP_MUL, x.re, w.re),
                    zipfft__e_bin(a, ZIPFFT__OP_MUL, x.im, w.im));
  const zipfft__expr *im =
      zipfft__e_bin(a, ZIPFFT__OP_ADD, zipfft__e_bin(a, ZIPFFT__OP_MUL, x.re, w.im),
                    zipfft__e_bin(a, ZIPFFT__OP_MUL, x.im, w.re));
  return (zipfft__cval){re, im};
}

zipfft__cval zipfft__cval_rotate(zipfft__arena *a, zipfft__cval x, int sign, int64_t num,
                                 int64_t den) {
  num %= den;
  if (num < 0) num += den;
  if (num == 0) return x;
  if (2 * num == den) return (zipfft__cval){zipfft__e_neg(a, x.re), zipfft__e_neg(a, x.im)};
  if (4 * num == den || 4 * num == 3 * den) {
    int s = 4 * num == den ? sign : -sign; /* multiply by s*i */
    if (s > 0) return (zipfft__cval){zipfft__e_neg(a, x.im), x.re};
    return (zipfft__cval){x.im, zipfft__e_neg(a, x.re)};
  }
  const long double two_pi = 2.0L * acosl(-1.0L);
  long double angle = two_pi * (long double)num / (long double)den;
  zipfft__cval w = {zipfft__e_real(a, cosl(angle)),
                    zipfft__e_real(a, (long double)sign * sinl(angle))};
  return zipfft__cval_mul(a, x, w);
}

/* Odd prime p: pairs (j, p-j) give real-coefficient sums A_k and B_k. */
static void emit_prime(zipfft__arena *a, zipfft__block *b, int sign, int p, const zipfft__cval *x,
                       zipfft__cval *y) {
  const long double two_pi = 2.0L * acosl(-1.0L);
  int h = (p - 1) / 2;
  zipfft__cval s[ZIPFFT__MAX_RADIX], d[ZIPFFT__MAX_RADIX];
  zipfft__cval x0 = zipfft__cval_materialize(a, b, x[0]);
  zipfft__cval sum = x0;
  for (int j = 1; j <= h; j++) {
    s[j] = zipfft__cval_materialize(a, b, cadd(a, x[j], x[p - j]));
    d[j] = zipfft__cval_materialize(a, b, csub(a, x[j], x[p - j]));
    sum = cadd(a, sum, s[j]);
  }
  y[0] = zipfft__cval_materialize(a, b, sum);
  for (int k = 1; k <= h; k++) {
    zipfft__cval acc = x0, bcc = {zipfft__e_real(a, 0), zipfft__e_real(a, 0)};
    for (int j = 1; j <= h; j++) {
      long double angle = two_pi * (long double)((j * k) % p) / (long double)p;
      acc = cadd(a, acc, cscale(a, s[j], cosl(angle)));
      bcc = j == 1 ? cscale(a, d[j], sinl(angle)) : cadd(a, bcc, cscale(a, d[j], sinl(angle)));
    }
    zipfft__cval A = zipfft__cval_materialize(a, b, acc);
    zipfft__cval B = zipfft__cval_materialize(a, b, bcc);
    /* sign*i*B = (-sign*B.im, sign*B.re) */
    zipfft__cval iB = sign > 0 ? (zipfft__cval){zipfft__e_neg(a, B.im), B.re}
                               : (zipfft__cval){B.im, zipfft__e_neg(a, B.re)};
    y[k] = zipfft__cval_materialize(a, b, cadd(a, A, iB));
    y[p - k] = zipfft__cval_materialize(a, b, csub(a, A, iB));
  }
}

/* Smallest prime factor of r (r itself when prime). */
static int smallest_factor(int r) {
  for (int f = 2; f * f <= r; f++)
    if (r % f == 0) return f;
  return r;
}

/* Split r = r1 * r2 with r1 the largest divisor not above sqrt(r). */
static int split_factor(int r) {
  int best = 1;
  for (int f = 2; f * f <= r; f++)
    if (r % f == 0) best = f;
  return best;
}

/* Composite r = r1*r2: r2 DFTs of size r1, constant twiddles, r1 DFTs of size r2. */
static void emit_composite(zipfft__arena *a, zipfft__block *b, int sign, int r,
                           const zipfft__cval *x, zipfft__cval *y) {
  int r1 = split_factor(r), r2 = r / r1;
  zipfft__cval mid[ZIPFFT__MAX_RADIX], in[ZIPFFT__MAX_RADIX], out[ZIPFFT__MAX_RADIX];
  for (int n2 = 0; n2 < r2; n2++) {
    for (int n1 = 0; n1 < r1; n1++) in[n1] = x[r2 * n1 + n2];
    zipfft__emit_dft(a, b, sign, r1, in, out);
    for (int k1 = 0; k1 < r1; k1++)
      mid[n2 * r1 + k1] = zipfft__cval_materialize(
          a, b, zipfft__cval_rotate(a, out[k1], sign, (int64_t)n2 * k1, r));
  }
  for (int k1 = 0; k1 < r1; k1++) {
    for (int n2 = 0; n2 < r2; n2++) in[n2] = mid[n2 * r1 + k1];
    zipfft__emit_dft(a, b, sign, r2, in, out);
    for (int k2 = 0; k2 < r2; k2++) y[k1 + r1 * k2] = out[k2];
  }
}

void zipfft__emit_dft(zipfft__arena *a, zipfft__block *b, int sign, int radix,
                      const zipfft__cval *x, zipfft__cval *y) {
  if (radix < 1 || radix > ZIPFFT__MAX_RADIX) {
    zipfft__arena_set_error(a, "butterfly radix out of range");
    return;
  }
  if (radix == 1) {
    y[0] = x[0];
  } else if (radix == 2) {
    zipfft__cval x0 = zipfft__cval_materialize(a, b, x[0]);
    zipfft__cval x1 = zipfft__cval_materialize(a, b, x[1]);
    y[0] = zipfft__cval_materialize(a, b, cadd(a, x0, x1));
    y[1] = zipfft__cval_materialize(a, b, csub(a, x0, x1));
  } else if (smallest_factor(radix) == radix) {
    emit_prime(a, b, sign, radix, x, y);
  } else {
    emit_composite(a, b, sign, radix, x, y);
  }
}
