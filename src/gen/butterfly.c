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

/* ---- butterflies with pending real scales ------------------------------------------------
 * A composite butterfly's constant twiddles are applied in tangent form: x * (c + i s) =
 * c * (x + i (s/c) x), two fused multiply-adds, with the real factor c left pending. The next
 * addition takes it in: a + c b is one fused multiply-add, as a + b is one addition. Each
 * radix-2 step keeps its first operand's pending scale, so a butterfly's outputs carry the
 * scale of its input 0, which is 1 where the caller gives plain values: a twiddle costs 2
 * instructions instead of 4, and no multiply is left to apply. */

/* A complex value v whose true value is scale * v. */
typedef struct scaled_cval {
  zipfft__cval v;
  long double scale;
} scaled_cval;

/* Whether e is the real constant 0. */
static int is_zero_real(const zipfft__expr *e) {
  return e->kind == ZIPFFT__E_REAL && e->u.real_value == 0.0L;
}

/* Whether a pending scale or ratio is 1 up to long double rounding. */
static int is_unit(long double s) { return fabsl(s - 1.0L) < 1e-15L; }

/* Returns x + t * y for reals, with t = +-1 as plain additions. */
static const zipfft__expr *axpy(zipfft__arena *a, const zipfft__expr *x, long double t,
                                const zipfft__expr *y) {
  if (is_unit(t)) return zipfft__e_bin(a, ZIPFFT__OP_ADD, x, y);
  if (is_unit(-t)) return zipfft__e_bin(a, ZIPFFT__OP_SUB, x, y);
  const zipfft__expr *ty = zipfft__e_bin(a, ZIPFFT__OP_MUL, y, zipfft__e_real(a, t));
  return zipfft__e_bin(a, ZIPFFT__OP_ADD, x, ty);
}

/* x + t * y for complex values and a real t. */
static zipfft__cval caxpy(zipfft__arena *a, zipfft__cval x, long double t, zipfft__cval y) {
  return (zipfft__cval){axpy(a, x.re, t, y.re), axpy(a, x.im, t, y.im)};
}

/* The true value of x as expressions (a multiply per part when its scale is not 1). */
static zipfft__cval apply_scale(zipfft__arena *a, scaled_cval x) {
  return is_unit(x.scale) ? x.v : cscale(a, x.v, x.scale);
}

/* x times exp(sign 2 pi i num / den), quarter turns by moving parts, any other angle in
 * tangent form with the larger of |cos| and |sin| left pending. */
static scaled_cval rotate_scaled(zipfft__arena *a, zipfft__block *b, scaled_cval x, int sign,
                                 int64_t num, int64_t den) {
  num %= den;
  if (num < 0) num += den;
  if (4 * num % den == 0) {
    x.v = zipfft__cval_rotate(a, x.v, sign, num, den);
    return x;
  }
  const long double angle = 2.0L * acosl(-1.0L) * (long double)num / (long double)den;
  long double c = cosl(angle), s = (long double)sign * sinl(angle);
  zipfft__cval u;
  if (fabsl(c) >= fabsl(s)) { /* c * ((re - t im) + i (im + t re)), t = s / c */
    u = (zipfft__cval){axpy(a, x.v.re, -s / c, x.v.im), axpy(a, x.v.im, s / c, x.v.re)};
    x.scale *= c;
  } else { /* s * ((t re - im) + i (t im + re)), t = c / s */
    u = (zipfft__cval){axpy(a, zipfft__e_neg(a, x.v.im), c / s, x.v.re),
                       axpy(a, x.v.re, c / s, x.v.im)};
    x.scale *= s;
  }
  x.v = zipfft__cval_materialize(a, b, u);
  return x;
}

static void dft_scaled(zipfft__arena *a, zipfft__block *b, int sign, int radix,
                       const scaled_cval *x, scaled_cval *y);

/* Radix 2: x0 + x1 and x0 - x1 with x1's scale taken in relative to x0's. */
static void dft2_scaled(zipfft__arena *a, zipfft__block *b, const scaled_cval *x,
                        scaled_cval *y) {
  zipfft__cval x0 = zipfft__cval_materialize(a, b, x[0].v);
  zipfft__cval x1 = zipfft__cval_materialize(a, b, x[1].v);
  if (is_zero_real(x0.re) && is_zero_real(x0.im)) { /* a padded zero: x1 keeps its scale */
    y[0] = (scaled_cval){x1, x[1].scale};
    y[1] = (scaled_cval){{zipfft__e_neg(a, x1.re), zipfft__e_neg(a, x1.im)}, x[1].scale};
    return;
  }
  long double ratio = x[1].scale / x[0].scale;
  y[0] = (scaled_cval){zipfft__cval_materialize(a, b, caxpy(a, x0, ratio, x1)), x[0].scale};
  y[1] = (scaled_cval){zipfft__cval_materialize(a, b, caxpy(a, x0, -ratio, x1)), x[0].scale};
}

/* Composite r = r1*r2: r2 DFTs of size r1, constant twiddles, r1 DFTs of size r2. */
static void composite_scaled(zipfft__arena *a, zipfft__block *b, int sign, int r,
                             const scaled_cval *x, scaled_cval *y) {
  int r1 = split_factor(r), r2 = r / r1;
  scaled_cval mid[ZIPFFT__MAX_RADIX] = {0}, in[ZIPFFT__MAX_RADIX] = {0};
  scaled_cval out[ZIPFFT__MAX_RADIX] = {0};
  for (int n2 = 0; n2 < r2; n2++) {
    for (int n1 = 0; n1 < r1; n1++) in[n1] = x[r2 * n1 + n2];
    dft_scaled(a, b, sign, r1, in, out);
    for (int k1 = 0; k1 < r1; k1++)
      mid[n2 * r1 + k1] = rotate_scaled(a, b, out[k1], sign, (int64_t)n2 * k1, r);
  }
  for (int k1 = 0; k1 < r1; k1++) {
    for (int n2 = 0; n2 < r2; n2++) in[n2] = mid[n2 * r1 + k1];
    dft_scaled(a, b, sign, r2, in, out);
    for (int k2 = 0; k2 < r2; k2++) y[k1 + r1 * k2] = out[k2];
  }
}

/* y = DFT(x) with pending scales in and out; primes take their inputs' scales in first. */
static void dft_scaled(zipfft__arena *a, zipfft__block *b, int sign, int radix,
                       const scaled_cval *x, scaled_cval *y) {
  if (radix == 1) {
    y[0] = x[0];
  } else if (radix == 2) {
    dft2_scaled(a, b, x, y);
  } else if (smallest_factor(radix) == radix) {
    zipfft__cval in[ZIPFFT__MAX_RADIX], out[ZIPFFT__MAX_RADIX];
    for (int n = 0; n < radix; n++) in[n] = apply_scale(a, x[n]);
    emit_prime(a, b, sign, radix, in, out);
    for (int k = 0; k < radix; k++) y[k] = (scaled_cval){out[k], 1.0L};
  } else {
    composite_scaled(a, b, sign, radix, x, y);
  }
}

void zipfft__emit_dft(zipfft__arena *a, zipfft__block *b, int sign, int radix,
                      const zipfft__cval *x, zipfft__cval *y) {
  if (radix < 1 || radix > ZIPFFT__MAX_RADIX) {
    zipfft__arena_set_error(a, "butterfly radix out of range");
    return;
  }
  scaled_cval in[ZIPFFT__MAX_RADIX], out[ZIPFFT__MAX_RADIX];
  for (int n = 0; n < radix; n++) in[n] = (scaled_cval){x[n], 1.0L};
  dft_scaled(a, b, sign, radix, in, out);
  for (int k = 0; k < radix; k++)
    y[k] = zipfft__cval_materialize(a, b, apply_scale(a, out[k]));
}
