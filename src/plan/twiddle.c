/* twiddle.c - twiddle tables in long double, using symmetry so every angle is small. */
#include "plan/twiddle.h"

#include <math.h>
#include <stdlib.h>

#include "plan/kernel_spec.h"

/* cos and sin of 2 pi k / n, reduced to the first octant for accuracy. */
static void unit_root(int64_t k, int64_t n, long double *c, long double *s) {
  const long double pi = acosl(-1.0L);
  /* Use k/n in [0, 1/8] and rebuild the other octants by exact symmetries. */
  int64_t k8 = 8 * k;
  long double ct, st;
  int octant = (int)(k8 / n);
  int64_t rem = k8 - (int64_t)octant * n;                     /* 8k - octant*n in [0, n) */
  long double frac = (long double)rem / (long double)(8 * n); /* angle/(2pi) within octant */
  int odd = octant & 1;
  long double angle = 2 * pi * (odd ? (1.0L / 8 - frac) : frac);
  ct = cosl(angle);
  st = sinl(angle);
  /* angle_total = octant*pi/4 + (odd ? pi/4 - angle : angle) */
  long double x = odd ? st : ct, y = odd ? ct : st; /* cos/sin of the angle within a quadrant */
  switch (octant >> 1) {
    case 0:
      *c = x;
      *s = y;
      break;
    case 1:
      *c = -y;
      *s = x;
      break;
    case 2:
      *c = -x;
      *s = -y;
      break;
    default:
      *c = y;
      *s = -x;
      break;
  }
}

/* Stores one complex value rounded once to the precision. */
static void put(void *table, int64_t i, zipfft_precision prec, long double re, long double im) {
  if (prec == ZIPFFT_F32) {
    ((float *)table)[2 * i] = (float)re;
    ((float *)table)[2 * i + 1] = (float)im;
  } else {
    ((double *)table)[2 * i] = (double)re;
    ((double *)table)[2 * i + 1] = (double)im;
  }
}

int64_t zipfft__stockham_twiddle_offset(const zipfft__kernel_spec *s, int pass) {
  int64_t offset = 0, ns = 1;
  for (int p = 0; p < pass; p++) {
    if (p > 0) offset += ns * (s->radices[p] - 1);
    ns *= s->radices[p];
  }
  return offset;
}

int64_t zipfft__twiddle_count(const zipfft__kernel_spec *s) {
  int64_t count = zipfft__stockham_twiddle_offset(s, s->pass_count);
  return count + (zipfft__kind_is_half(s->kind) ? s->n / 2 + 1 : 0);
}

/* The split/merge twiddles of HALF kinds: exp(sign 2 pi i k / 2n), k = 0..n/2. */
static void put_half_twiddles(const zipfft__kernel_spec *s, void *table) {
  int64_t base = zipfft__stockham_twiddle_offset(s, s->pass_count);
  for (int64_t k = 0; k <= s->n / 2; k++) {
    long double c, sn;
    unit_root(k, 2 * s->n, &c, &sn);
    put(table, base + k, s->precision, c, s->sign * sn);
  }
}

void *zipfft__stockham_twiddles(const zipfft__kernel_spec *s, size_t *bytes) {
  int64_t count = zipfft__twiddle_count(s);
  *bytes = (size_t)count * 2 * (s->precision == ZIPFFT_F32 ? sizeof(float) : sizeof(double));
  void *table = count > 0 ? malloc(*bytes) : NULL;
  if (!table) return NULL;
  int64_t ns = s->radices[0];
  for (int p = 1; p < s->pass_count; p++) {
    int64_t base = zipfft__stockham_twiddle_offset(s, p), r = s->radices[p];
    for (int64_t q = 1; q < r; q++)
      for (int64_t k = 0; k < ns; k++) {
        long double c, sn;
        unit_root(k * q, ns * r, &c, &sn);
        put(table, base + (q - 1) * ns + k, s->precision, c, s->sign * sn);
      }
    ns *= r;
  }
  if (zipfft__kind_is_half(s->kind)) put_half_twiddles(s, table);
  return table;
}
