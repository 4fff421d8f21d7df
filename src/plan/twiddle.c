/* twiddle.c - twiddle tables in long double, using symmetry so every angle is small. */
#include "plan/twiddle.h"

#include <math.h>
#include <stdlib.h>

#include "plan/host_parallel.h"
#include "plan/kernel_spec.h"

/* cos and sin of 2 pi k / n, reduced to the first octant for accuracy. */
void zipfft__unit_root(int64_t k, int64_t n, long double *c, long double *s) {
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

int zipfft__needs_chirp(const zipfft__kernel_spec *s) {
  return (s->bluestein_n > 0 && s->pointwise != ZIPFFT__PW_FILTER) || zipfft__loads_chirp(s) ||
         s->bluestein_store != ZIPFFT__BLUESTEIN_NONE;
}

int zipfft__needs_filter(const zipfft__kernel_spec *s) {
  return s->rader_n > 0 || s->bluestein_load == ZIPFFT__BLUESTEIN_FILTER ||
         s->fused == ZIPFFT__FUSED_BLUESTEIN ||
         (s->bluestein_n > 0 &&
          (s->pointwise == ZIPFFT__PW_NONE || s->pointwise == ZIPFFT__PW_FILTER));
}

/* 1 when the plan fills the kernel's filter (api/bluestein_filter.c): the pointwise FILTER
 * kernels, the FILTER loads of fused Bluestein four-steps and the fused BLUESTEIN middle
 * kernels, whose lengths are beyond what a host FFT in long double does quickly. */
int zipfft__filter_from_plan(const zipfft__kernel_spec *s) {
  return s->pointwise == ZIPFFT__PW_FILTER || s->bluestein_load == ZIPFFT__BLUESTEIN_FILTER ||
         s->fused == ZIPFFT__FUSED_BLUESTEIN;
}

/* Beyond this many split twiddles (n/2 + 1), a pointwise SPLIT or MERGE kernel keeps them
 * in two levels: fp32 R2C 2^24's one level took 32 MB, 2^32's 8 GiB (75 s of planning).
 * ZIPFFT_SPLIT_ONE_LEVEL_MAX (tuning) sets another bound. */
static int64_t split_one_level_max(void) {
  const char *env = getenv("ZIPFFT_SPLIT_ONE_LEVEL_MAX");
  char *end = NULL;
  long long bound = env && *env ? strtoll(env, &end, 10) : 0;
  return end && *end == '\0' && bound >= 0 ? bound : 4096;
}

/* The low level's bits of a two-level table of count entries: 2^(2 shift) >= count. */
static int two_level_shift(int64_t count) {
  int shift = 0;
  while (((int64_t)1 << (2 * shift)) < count) shift++;
  return shift;
}

/* The split twiddles' low-level bits: 0 for one level (see zipfft__table_layout). */
static int split_shift_of(const zipfft__kernel_spec *s) {
  int64_t entries = zipfft__half_points(s) / 2 + 1;
  if (s->pointwise != ZIPFFT__PW_SPLIT && s->pointwise != ZIPFFT__PW_MERGE) return 0;
  return entries <= split_one_level_max() ? 0 : two_level_shift(entries);
}

zipfft__table_layout zipfft__table_layout_of(const zipfft__kernel_spec *s) {
  zipfft__table_layout l = {0};
  int64_t at = zipfft__stockham_twiddle_offset(s, s->pass_count);
  l.split = at;
  l.split_shift = zipfft__kind_is_half(s->kind) ? split_shift_of(s) : 0;
  int64_t entries = zipfft__half_points(s) / 2 + 1, split_low = (int64_t)1 << l.split_shift;
  if (s->paired_rows > 0)
    at += s->paired_rows / 2 + 1 + s->n;
  else if (l.split_shift > 0)
    at += split_low + (entries + split_low - 1) / split_low;
  else if (zipfft__kind_is_half(s->kind))
    at += entries;
  int64_t large = zipfft__large_twiddle_length(s);
  if (large > 0) {
    l.large_shift = two_level_shift(large);
    int64_t low = (int64_t)1 << l.large_shift;
    l.large_low = at;
    l.large_high = at + low;
    at += low + (large + low - 1) / low;
  }
  l.chirp = at;
  if (zipfft__needs_chirp(s)) at += zipfft__chirp_length(s);
  l.rader_index = at;
  if (s->rader_n > 0) at += s->n;
  l.filter = at;
  if (zipfft__needs_filter(s)) at += zipfft__filter_length(s);
  l.count = at;
  return l;
}

int64_t zipfft__twiddle_count(const zipfft__kernel_spec *s) {
  return zipfft__table_layout_of(s).count;
}

/* exp(sign 2 pi i e / modulus), e < count, in two levels: low[e % 2^shift] at low_at, then
 * high[e >> shift] at high_at. */
static void put_two_levels(const zipfft__kernel_spec *s, void *table, int64_t low_at,
                           int64_t high_at, int shift, int64_t count, int64_t modulus) {
  int64_t low = (int64_t)1 << shift;
  long double c, sn;
  for (int64_t e = 0; e < low; e++) {
    zipfft__unit_root(e % modulus, modulus, &c, &sn);
    put(table, low_at + e, s->precision, c, s->sign * sn);
  }
  for (int64_t h = 0; h * low < count; h++) {
    zipfft__unit_root(h * low, modulus, &c, &sn);
    put(table, high_at + h, s->precision, c, s->sign * sn);
  }
}

/* The split/merge twiddles of HALF kinds: exp(sign 2 pi i k / 2n), k = 0..n/2 (n the
 * half-length FFT's points). */
static void put_half_twiddles(const zipfft__kernel_spec *s, void *table) {
  int64_t base = zipfft__table_layout_of(s).split, n = zipfft__half_points(s);
  long double c, sn;
  if (s->paired_rows > 0) { /* W^r (r <= rows/2), then exp(sign 2 pi i k / 2 n_row) */
    int64_t rows = s->paired_rows;
    for (int64_t r = 0; r <= rows / 2; r++) {
      zipfft__unit_root(r, 2 * n, &c, &sn);
      put(table, base + r, s->precision, c, s->sign * sn);
    }
    for (int64_t k = 0; k < s->n; k++) {
      zipfft__unit_root(k, 2 * s->n, &c, &sn);
      put(table, base + rows / 2 + 1 + k, s->precision, c, s->sign * sn);
    }
    return;
  }
  int shift = zipfft__table_layout_of(s).split_shift;
  if (shift > 0) {
    put_two_levels(s, table, base, base + ((int64_t)1 << shift), shift, n / 2 + 1, 2 * n);
    return;
  }
  for (int64_t k = 0; k <= n / 2; k++) {
    zipfft__unit_root(k, 2 * n, &c, &sn);
    put(table, base + k, s->precision, c, s->sign * sn);
  }
}

/* The two levels of the four-step twiddle exp(sign 2 pi i e / L). */
static void put_large_twiddles(const zipfft__kernel_spec *s, void *table) {
  zipfft__table_layout l = zipfft__table_layout_of(s);
  int64_t big = zipfft__large_twiddle_length(s);
  put_two_levels(s, table, l.large_low, l.large_high, l.large_shift, big, big);
}

/* In-place long-double FFT of n complex pairs (any n), sign of the exponent given, by
 * recursive decimation in time over the smallest prime factor; roots[k] = exp(sign 2 pi i
 * k / total) with total = n * step. */
static void host_fft(long double *x, int64_t n, int64_t step, const long double *roots,
                     long double *scratch) {
  if (n == 1) return;
  int64_t r = 2;
  while (n % r != 0) r++;
  int64_t m = n / r;
  for (int64_t q = 0; q < r; q++) /* gather the r decimated sequences */
    for (int64_t j = 0; j < m; j++) {
      scratch[2 * (q * m + j)] = x[2 * (j * r + q)];
      scratch[2 * (q * m + j) + 1] = x[2 * (j * r + q) + 1];
    }
  for (int64_t i = 0; i < 2 * n; i++) x[i] = scratch[i];
  for (int64_t q = 0; q < r; q++) host_fft(x + 2 * q * m, m, step * r, roots, scratch);
  for (int64_t k = 0; k < n; k++) {
    long double re = 0, im = 0;
    for (int64_t q = 0; q < r; q++) {
      int64_t idx = (q * k % n) * step;
      long double wr = roots[2 * idx], wi = roots[2 * idx + 1];
      long double ar = x[2 * (q * m + k % m)], ai = x[2 * (q * m + k % m) + 1];
      re += ar * wr - ai * wi;
      im += ar * wi + ai * wr;
    }
    scratch[2 * k] = re;
    scratch[2 * k + 1] = im;
  }
  for (int64_t i = 0; i < 2 * n; i++) x[i] = scratch[i];
}

/* Bluestein's chirp c_e = exp(sign pi i e^2 / N) for length N = big, with the exponent
 * reduced mod 2N exactly (e < 2^31, so e * e fits). */
static void chirp(int64_t big, int64_t e, int sign, long double *re, long double *im) {
  zipfft__unit_root(e * e % (2 * big), 2 * big, re, im);
  *im *= sign;
}

/* Entries per host thread, at least, of the long-double tables that are filled in
 * parallel: the chirps of the longest Bluestein lengths took most of a plan's creation
 * (fp32 near 2^27 on an H200 host: 60 s on one thread, 8 s on 16). */
enum { min_entries_per_thread = 1 << 16 };

/* The chirp part of a kernel's table, entries [first, end) of its first half and their
 * mirrors (zipfft__range_body). Since (N - e)^2 = e^2 + N^2 - 2Ne, c_(N-e) = (-1)^N c_e:
 * each sine and cosine serves two entries. */
typedef struct chirp_fill {
  const zipfft__kernel_spec *s;
  void *table;
} chirp_fill;

static void put_chirp_range(void *context, int64_t first, int64_t end) {
  const chirp_fill *f = context;
  int64_t base = zipfft__table_layout_of(f->s).chirp, big = zipfft__chirp_length(f->s);
  long double mirror_sign = big % 2 ? -1 : 1;
  for (int64_t e = first; e < end; e++) {
    long double c, sn;
    chirp(big, e, f->s->sign, &c, &sn);
    put(f->table, base + e, f->s->precision, c, sn);
    if (e > 0 && big - e != e)
      put(f->table, base + big - e, f->s->precision, mirror_sign * c, mirror_sign * sn);
  }
}

static void put_chirp(const zipfft__kernel_spec *s, void *table) {
  chirp_fill fill = {s, table};
  zipfft__host_parallel_for(zipfft__chirp_length(s) / 2 + 1, min_entries_per_thread,
                            put_chirp_range, &fill);
}

typedef void (*complex_writer)(void *b, int64_t i, long double re, long double im);
static void write_long_double(void *b, int64_t i, long double re, long double im) {
  ((long double *)b)[2 * i] = re, ((long double *)b)[2 * i + 1] = im;
}
static void write_double(void *b, int64_t i, long double re, long double im) {
  ((double *)b)[2 * i] = (double)re, ((double *)b)[2 * i + 1] = (double)im;
}

/* Writes Bluestein's conj(c_e) for e = first .. first + count - 1 (chirp length big) to
 * b[0 .. count). */
static void conj_chirps(int64_t big, int sign, int64_t first, int64_t count, complex_writer write,
                        void *b) {
  for (int64_t e = first; e < first + count; e++) {
    long double c, sn;
    chirp(big, e, sign, &c, &sn);
    write(b, e - first, c, -sn);
  }
}

/* Writes the n-entry sequence whose n-point FFT, divided by n, is Bluestein's filter for
 * length big and the given half to b[0 .. n): conj(c_m) at m for m < the convolution's
 * outputs and at n - m for 0 < m < its inputs (the differences output - input it spans),
 * zeros between. */
static void filter_source(int64_t big, zipfft__chirp_half half, int64_t n, int sign,
                          complex_writer write, void *b) {
  int64_t outputs = zipfft__chirp_outputs(big, half), inputs = zipfft__chirp_inputs(big, half);
  for (int64_t i = 0; i < n; i++) {
    int64_t e = i < outputs ? i : i > n - inputs ? n - i : -1;
    long double c = 0, sn = 0;
    if (e >= 0) chirp(big, e, sign, &c, &sn);
    write(b, i, c, -sn);
  }
}

/* A chunk of conj(c_e), entries [first, end) of the chunk. */
typedef struct chirps_fill {
  int64_t big, first;
  int sign;
  double *b;
} chirps_fill;

static void put_chirps_range(void *context, int64_t first, int64_t end) {
  const chirps_fill *f = context;
  conj_chirps(f->big, f->sign, f->first + first, end - first, write_double, f->b + 2 * first);
}

void zipfft__bluestein_conj_chirps(int64_t big, int sign, int64_t first, int64_t count, double *b) {
  chirps_fill fill = {big, first, sign, b};
  zipfft__host_parallel_for(count, min_entries_per_thread, put_chirps_range, &fill);
}

/* The table slot of the filter's entry at spectrum position p: p, or in a fused Bluestein
 * kernel (rows of n points, p = k0 + (filter_n / n) k for element k of row k0) the rows'
 * order, k0 * n + k, with k in its row's digit-reversed order where the passes run in
 * place (there the second FFT's first pass takes it). */
static int64_t filter_slot(const zipfft__kernel_spec *s, int64_t p) {
  if (s->fused != ZIPFFT__FUSED_BLUESTEIN) return p;
  int64_t rows = s->filter_n / s->n;
  return p % rows * s->n + zipfft__in_place_entry(s, p / rows);
}

void zipfft__put_filter_spectrum(const zipfft__kernel_spec *s, int64_t first, int64_t count,
                                 const double *spectrum, void *table) {
  int64_t base = zipfft__table_layout_of(s).filter, n = zipfft__filter_length(s);
  for (int64_t k = 0; k < count; k++)
    put(table, base + filter_slot(s, first + k), s->precision, spectrum[2 * k] / (double)n,
        spectrum[2 * k + 1] / (double)n);
}

/* x^e mod p (p < 2^31). */
static int64_t power_mod(int64_t x, int64_t e, int64_t p) {
  int64_t result = 1;
  for (x %= p; e > 0; e >>= 1, x = x * x % p)
    if (e & 1) result = result * x % p;
  return result;
}

int64_t zipfft__primitive_root(int64_t p) {
  for (int64_t g = 2; g < p; g++) {
    int generates = 1;
    for (int64_t rest = p - 1, q = 2; generates && rest > 1; q++) {
      if (rest % q != 0) continue;
      generates = power_mod(g, (p - 1) / q, p) != 1;
      while (rest % q == 0) rest /= q;
    }
    if (generates) return g;
  }
  return 1; /* p = 2 */
}

/* Rader's index table: entry r, for element e = r + 1, holds log_g(e) (the FFT element
 * that input element e becomes) and, as its imaginary part, -log_g(e) mod (p - 1) (the
 * shared-memory slot that holds output element e after the second FFT); both exact in the
 * table's precision (p < 2^24). Returns 0 when memory runs out. */
static int put_rader_index(const zipfft__kernel_spec *s, void *table) {
  int64_t p = s->rader_n, n = p - 1, g = zipfft__primitive_root(p), base;
  int64_t *log = malloc((size_t)p * sizeof *log);
  if (!log) return 0;
  base = zipfft__table_layout_of(s).rader_index;
  for (int64_t r = 0, v = 1; r < n; r++, v = v * g % p) log[v] = r;
  for (int64_t e = 1; e < p; e++)
    put(table, base + e - 1, s->precision, (long double)log[e], (long double)((n - log[e]) % n));
  free(log);
  return 1;
}

/* Rader's sequence b[m] = exp(sign 2 pi i g^-m / p), m < n = p - 1. */
static void rader_source(int64_t p, int sign, long double *b) {
  int64_t g_inverse = power_mod(zipfft__primitive_root(p), p - 2, p);
  for (int64_t m = 0, v = 1; m < p - 1; m++, v = v * g_inverse % p) {
    long double c, sn;
    zipfft__unit_root(v, p, &c, &sn);
    write_long_double(b, m, c, sign * sn);
  }
}

/* The filter of a Bluestein or Rader kernel: the kernel's n-point FFT of b, divided by n,
 * computed in long double. Bluestein's b as filter_source says;
 * Rader's as rader_source says. Entry k goes where the kernel reads it: in the
 * digit-reversed order of a kernel whose passes run in place (zipfft__in_place_entry).
 * Returns 0 when memory runs out. */
static int put_filter(const zipfft__kernel_spec *s, void *table) {
  zipfft__table_layout l = zipfft__table_layout_of(s);
  int64_t n = s->n;
  long double *b = calloc((size_t)(2 * n), sizeof *b),
              *roots = malloc((size_t)(2 * n) * sizeof *roots),
              *scratch = malloc((size_t)(2 * n) * sizeof *scratch);
  int ok = b && roots && scratch;
  if (ok && s->rader_n > 0) rader_source(s->rader_n, s->sign, b);
  if (ok && s->bluestein_n > 0)
    filter_source(s->bluestein_n, s->chirp_half, n, s->sign, write_long_double, b);
  for (int64_t k = 0; ok && k < n; k++) {
    long double c, sn;
    zipfft__unit_root(k, n, &c, &sn);
    roots[2 * k] = c, roots[2 * k + 1] = s->sign * sn;
  }
  if (ok) host_fft(b, n, 1, roots, scratch);
  for (int64_t k = 0; ok && k < n; k++)
    put(table, l.filter + zipfft__in_place_entry(s, k), s->precision, b[2 * k] / n,
        b[2 * k + 1] / n);
  free(b), free(roots), free(scratch);
  return ok;
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
        zipfft__unit_root(k * q, ns * r, &c, &sn);
        put(table, base + (q - 1) * ns + k, s->precision, c, s->sign * sn);
      }
    ns *= r;
  }
  if (zipfft__kind_is_half(s->kind)) put_half_twiddles(s, table);
  if (zipfft__large_twiddle_length(s) > 0) put_large_twiddles(s, table);
  if (zipfft__needs_chirp(s)) put_chirp(s, table);
  if ((s->rader_n > 0 && !put_rader_index(s, table)) ||
      (zipfft__needs_filter(s) && !zipfft__filter_from_plan(s) && !put_filter(s, table))) {
    free(table);
    return NULL;
  }
  return table;
}
