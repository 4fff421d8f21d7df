/* twiddle.c - twiddle tables in long double, using symmetry so every angle is small. */
#include "plan/twiddle.h"

#include <math.h>
#include <stdlib.h>

/* cos and sin of 2 pi k / n, reduced to the first octant for accuracy. */
static void unit_root(int64_t k, int64_t n, long double *c, long double *s) {
  const long double pi = acosl(-1.0L);
  /* Use k/n in [0, 1/8] and rebuild the other octants by exact symmetries. */
  int64_t k8 = 8 * k;
  long double ct, st;
  int octant = (int)(k8 / n);
  int64_t rem = k8 - (int64_t)octant * n; /* 8k - octant*n in [0, n) */
  long double frac = (long double)rem / (long double)(8 * n); /* angle/(2pi) within octant */
  int odd = octant & 1;
  long double angle = 2 * pi * (odd ? (1.0L / 8 - frac) : frac);
  ct = cosl(angle);
  st = sinl(angle);
  /* angle_total = octant*pi/4 + (odd ? pi/4 - angle : angle) */
  long double x = odd ? st : ct, y = odd ? ct : st; /* cos/sin of the angle within a quadrant */
  switch (octant >> 1) {
    case 0: *c = x; *s = y; break;
    case 1: *c = -y; *s = x; break;
    case 2: *c = -x; *s = -y; break;
    default: *c = y; *s = -x; break;
  }
}

void *zipfft__twiddle_table(int64_t n, int sign, zipfft_precision prec, size_t *bytes) {
  size_t real_size = prec == ZIPFFT_F32 ? sizeof(float) : sizeof(double);
  *bytes = (size_t)n * 2 * real_size;
  void *table = malloc(*bytes);
  if (!table) return NULL;
  for (int64_t k = 0; k < n; k++) {
    long double c, s;
    unit_root(k, n, &c, &s);
    s *= sign;
    if (prec == ZIPFFT_F32) {
      ((float *)table)[2 * k] = (float)c;
      ((float *)table)[2 * k + 1] = (float)s;
    } else {
      ((double *)table)[2 * k] = (double)c;
      ((double *)table)[2 * k + 1] = (double)s;
    }
  }
  return table;
}
