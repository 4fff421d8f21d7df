/* reference.c - naive long-double DFT and relative L2 norms, independent of the library. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long double two_pi = 6.283185307179586476925286766559005768L;

long double *zr_alloc_pairs(size_t count) {
  long double *p = calloc(count ? 2 * count : 2, sizeof *p);
  if (!p) {
    fprintf(stderr, "reference: out of memory for %zu complex values\n", count);
    exit(2);
  }
  return p;
}

/* Fills w[2k], w[2k+1] with cos and sin of 2*pi*k/n for k in [0, n). */
static void twiddle_table(long double *w, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    long double angle = two_pi * (long double)k / (long double)n;
    w[2 * k] = cosl(angle);
    w[2 * k + 1] = sinl(angle);
  }
}

/* Accumulates, for output k, the four real sums shared by outputs k and n-k:
 * s[0] = sum re*cos, s[1] = sum im*sin, s[2] = sum im*cos, s[3] = sum re*sin, where the
 * angle of term j is 2*pi*(j*k mod n)/n. The index is advanced exactly by k mod n. */
static void accumulate(const long double *in, const long double *w, int64_t n, int64_t k,
                       long double s[4]) {
  long double rc = 0, is = 0, ic = 0, rs = 0;
  int64_t m = 0;
  for (int64_t j = 0; j < n; j++) {
    long double re = in[2 * j], im = in[2 * j + 1], c = w[2 * m], sn = w[2 * m + 1];
    rc += re * c;
    is += im * sn;
    ic += im * c;
    rs += re * sn;
    m += k;
    if (m >= n) m -= n;
  }
  s[0] = rc;
  s[1] = is;
  s[2] = ic;
  s[3] = rs;
}

void zr_dft(const long double *in, long double *out, int64_t n, int sign) {
  long double *w = zr_alloc_pairs((size_t)n);
  long double sg = sign < 0 ? -1.0L : 1.0L;
  twiddle_table(w, n);
  for (int64_t k = 0; 2 * k <= n; k++) {
    long double s[4];
    accumulate(in, w, n, k, s);
    /* (re + i im)(cos + i sg sin); output n-k sees the same cos and the negated sin. */
    out[2 * k] = s[0] - sg * s[1];
    out[2 * k + 1] = s[2] + sg * s[3];
    if (k != 0 && 2 * k != n) {
      out[2 * (n - k)] = s[0] + sg * s[1];
      out[2 * (n - k) + 1] = s[2] - sg * s[3];
    }
  }
  free(w);
}

/* Shared tail of the two norms: returns the ratio or the conventions for zero norms. */
static double ratio_of(long double diff2, long double ref2) {
  if (ref2 == 0) return diff2 == 0 ? 0.0 : INFINITY;
  return (double)sqrtl(diff2 / ref2);
}

double zr_rel_l2(const long double *ref_pairs, const double *got_pairs, size_t count) {
  long double diff2 = 0, ref2 = 0;
  for (size_t i = 0; i < 2 * count; i++) {
    if (!isfinite(got_pairs[i])) return INFINITY;
    long double d = (long double)got_pairs[i] - ref_pairs[i];
    diff2 += d * d;
    ref2 += ref_pairs[i] * ref_pairs[i];
  }
  return ratio_of(diff2, ref2);
}

double zr_worst_rel_l2(const long double *ref_pairs, const double *got_pairs, size_t per,
                       size_t batch) {
  double worst = 0;
  for (size_t t = 0; t < batch; t++) {
    double d = zr_rel_l2(ref_pairs + 2 * t * per, got_pairs + 2 * t * per, per);
    if (isnan(d)) return d; /* a reference that is not finite: no distance */
    if (d > worst) worst = d;
  }
  return worst;
}

double zr_rel_l2_ld(const long double *ref_pairs, const long double *got_pairs, size_t count) {
  long double diff2 = 0, ref2 = 0;
  for (size_t i = 0; i < 2 * count; i++) {
    if (!isfinite(got_pairs[i])) return INFINITY;
    long double d = got_pairs[i] - ref_pairs[i];
    diff2 += d * d;
    ref2 += ref_pairs[i] * ref_pairs[i];
  }
  return ratio_of(diff2, ref2);
}

void zr_dft_nd(long double *x, int rank, const int64_t *lengths, int64_t batch, int sign) {
  zr_dft_nd_by(x, rank, lengths, batch, sign, zr_dft);
}

void zr_dft_nd_by(long double *x, int rank, const int64_t *lengths, int64_t batch, int sign,
                  zr_line_dft line_dft) {
  int64_t total = batch;
  for (int k = 0; k < rank; k++) total *= lengths[k];
  for (int k = 0; k < rank; k++) {
    int64_t n = lengths[k], inner = 1;
    for (int a = k + 1; a < rank; a++) inner *= lengths[a];
    long double *line = zr_alloc_pairs((size_t)n), *out = zr_alloc_pairs((size_t)n);
    for (int64_t start = 0; start < total; start++) {
      if ((start / inner) % n != 0) continue; /* first element of a line along axis k */
      for (int64_t e = 0; e < n; e++)
        memcpy(&line[2 * e], &x[2 * (start + e * inner)], 2 * sizeof *x);
      line_dft(line, out, n, sign);
      for (int64_t e = 0; e < n; e++)
        memcpy(&x[2 * (start + e * inner)], &out[2 * e], 2 * sizeof *x);
    }
    free(line);
    free(out);
  }
}
