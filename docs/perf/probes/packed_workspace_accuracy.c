/* packed_workspace_accuracy.c - what a block-floating-point workspace would cost fp32 2^20's
 * accuracy: a 1024 x 1024 four-step (radix-2 FFTs in float, twiddles rounded to float) whose
 * intermediate is rounded to a sign and BITS-bit magnitudes sharing one exponent per row
 * segment of G columns, against the same four-step in double; prints the relative L2 error
 * in units of 2^-24 for four inputs. Not zipfft's kernels: a model of the rounding alone.
 * Build and run (CPU): cc -O2 -o pwa packed_workspace_accuracy.c -lm && ./pwa */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <complex.h>
#include <string.h>
#define N 1024
typedef double complex dc;
typedef float complex fc;

/* Puts the n elements of size bytes at t in bit-reversed order (n a power of two, size at
 * most 16). */
static void bit_reverse(void *t, int n, size_t size) {
  unsigned char *bytes = t, swap[16];
  for (int i = 1, j = 0; i < n; i++) {
    int b = n >> 1;
    for (; j & b; b >>= 1) j ^= b;
    j ^= b;
    if (i < j) {
      memcpy(swap, bytes + i * size, size);
      memcpy(bytes + i * size, bytes + j * size, size);
      memcpy(bytes + j * size, swap, size);
    }
  }
}

/* Radix-2 FFT in double of the n elements of x at stride s, in place through a copy. */
static void dft_d(dc *x, int n, int s) {
  dc *t = malloc(n * sizeof(dc));
  for (int k = 0; k < n; k++) t[k] = x[k * s];
  bit_reverse(t, n, sizeof *t);
  for (int len = 2; len <= n; len <<= 1) {
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; k++) {
        dc w = cexp(-2 * M_PI * I * k / len);
        dc a = t[i + k], b = t[i + k + len / 2] * w;
        t[i + k] = a + b;
        t[i + k + len / 2] = a - b;
      }
  }
  for (int k = 0; k < n; k++) x[k * s] = t[k];
  free(t);
}

/* The same in float, twiddles rounded to float. */
static void dft_f(fc *x, int n, int s) {
  fc *t = malloc(n * sizeof(fc));
  for (int k = 0; k < n; k++) t[k] = x[k * s];
  bit_reverse(t, n, sizeof *t);
  for (int len = 2; len <= n; len <<= 1) {
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; k++) {
        double a0 = -2 * M_PI * k / len;
        fc w = (float)cos(a0) + I * (float)sin(a0);
        fc a = t[i + k], b = t[i + k + len / 2] * w;
        t[i + k] = a + b;
        t[i + k + len / 2] = a - b;
      }
  }
  for (int k = 0; k < n; k++) x[k * s] = t[k];
  free(t);
}
static float q(float v, int e, int bits) { /* quantize to sign + bits magnitude relative to 2^e */
  double step = ldexp(1.0, e - bits);
  return (float)(nearbyint(v / step) * step);
}
/* four-step: columns (stride N), twiddle, [quantize groups of G columns per row], rows */
static double run(const fc *in, const dc *ref, int bits, int G) {
  fc *x = malloc(sizeof(fc) * N * N);
  memcpy(x, in, sizeof(fc) * N * N);
  for (int c = 0; c < N; c++) dft_f(x + c, N, N);
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      double a = -2 * M_PI * (double)r * c / ((double)N * N);
      x[r * N + c] *= (float)cos(a) + I * (float)sin(a);
    }
  if (bits)
    for (int r = 0; r < N; r++)
      for (int c0 = 0; c0 < N; c0 += G) {
        float m = 0;
        for (int c = c0; c < c0 + G; c++) {
          m = fmaxf(m, fabsf(crealf(x[r * N + c])));
          m = fmaxf(m, fabsf(cimagf(x[r * N + c])));
        }
        int e;
        frexpf(m, &e); /* m < 2^e */
        for (int c = c0; c < c0 + G; c++)
          x[r * N + c] = q(crealf(x[r * N + c]), e, bits) + I * q(cimagf(x[r * N + c]), e, bits);
      }
  /* element (r = k1 column-output, c = n2) -> row FFT over c, output index k1 + N k2 */
  for (int r = 0; r < N; r++) dft_f(x + r * N, N, 1);
  double num = 0, den = 0;
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      dc d = (dc)x[r * N + c] - ref[r + (size_t)N * c];
      num += creal(d * conj(d));
      den += creal(ref[r + (size_t)N * c] * conj(ref[r + (size_t)N * c]));
    }
  free(x);
  return sqrt(num / den);
}
int main(void) {
  fc *in = malloc(sizeof(fc) * N * N);
  dc *ref = malloc(sizeof(dc) * N * N);
  dc *tmp = malloc(sizeof(dc) * N * N);
  const char *names[] = {"random", "tone+noise", "delta", "decaying"};
  for (int kind = 0; kind < 4; kind++) {
    srand(1);
    for (size_t i = 0; i < (size_t)N * N; i++) {
      double re = 0, im = 0, u = rand() / (double)RAND_MAX - 0.5,
             v = rand() / (double)RAND_MAX - 0.5;
      if (kind == 0) {
        re = u;
        im = v;
      }
      if (kind == 1) {
        double a = 2 * M_PI * 12345.0 * i / ((double)N * N);
        re = cos(a) + 1e-4 * u;
        im = sin(a) + 1e-4 * v;
      }
      if (kind == 2) {
        re = i == 777 ? 1 : 0;
      }
      if (kind == 3) {
        re = u * exp(-(double)i / 2000.0);
        im = v * exp(-(double)i / 2000.0);
      }
      in[i] = (float)re + I * (float)im;
      tmp[i] = in[i];
    }
    /* double reference: full four-step in double (exact enough) */
    for (int c = 0; c < N; c++) dft_d(tmp + c, N, N);
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++)
        tmp[r * N + c] *= cexp(-2 * M_PI * I * (double)r * c / ((double)N * N));
    for (int r = 0; r < N; r++) dft_d(tmp + r * N, N, 1);
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) ref[r + (size_t)N * c] = tmp[r * N + c];
    double u = ldexp(1.0, -24), gate = 10 * u * sqrt(20);
    printf(
        "%-10s fp32 %.2fu  bfp22/16col %.2fu  bfp22/8col %.2fu  bfp15/16col %.2fu (gate %.1fu)\n",
        names[kind], run(in, ref, 0, 16) / u, run(in, ref, 22, 16) / u, run(in, ref, 22, 8) / u,
        run(in, ref, 15, 16) / u, gate / u);
  }
  return 0;
}
