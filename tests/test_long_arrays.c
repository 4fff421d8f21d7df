/* test_long_arrays.c - C2C, R2C and C2R arrays up to the largest the backend's memory
 * holds, where element counts and offsets pass 2^31 and 2^32: 1D lengths to fp32 2^32 and
 * fp64 2^31 points (in place on an 80 GB GPU), batches and 2D/3D shapes of as many
 * elements. Every output of a chirp against its exact DFT in long double, and every
 * element of a random round trip. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "test_util.h"

/* One array: C2C (forward, then the inverse) or R2C (then C2R), precision, rank, lengths
 * (the last the fastest), batch, in place (else out of place; in place, real rows are
 * padded to 2 (n/2 + 1) reals, as in FFTW). */
typedef struct long_case {
  zipfft_type type;
  zipfft_precision precision;
  int rank;
  int64_t lengths[3];
  int64_t batch;
  int in_place;
} long_case;

#define L1(n) \
  1, { (int64_t)(n), 1, 1 }

/* CPU (CI): 1D lengths past test_c2c's 2^24, odd lengths of both signs of the Gauss sum,
 * an odd batch and 2D/3D shapes, complex and real (under a minute on two cores). */
static const long_case cpu_cases[] = {
    {ZIPFFT_C2C, ZIPFFT_F32, L1(1 << 25), 1, 0},
    {ZIPFFT_C2C, ZIPFFT_F64, L1(3 << 23), 1, 1},
    {ZIPFFT_C2C, ZIPFFT_F64, L1(9765625), 1, 0},  /* 5^10, odd (= 1 mod 8) */
    {ZIPFFT_C2C, ZIPFFT_F32, L1(14348907), 1, 1}, /* 3^15, odd (= 3 mod 8) */
    {ZIPFFT_C2C, ZIPFFT_F32, L1(1000), 3001, 0},
    {ZIPFFT_C2C, ZIPFFT_F32, 2, {1200, 360, 1}, 3, 0},
    {ZIPFFT_C2C, ZIPFFT_F64, 3, {24, 35, 50}, 5, 1},
    {ZIPFFT_C2C, ZIPFFT_F32, 2, {768, 768, 1}, 1, 1}, /* square: the axes' shifts differ */
    {ZIPFFT_R2C, ZIPFFT_F32, L1(1 << 25), 1, 0},
    {ZIPFFT_R2C, ZIPFFT_F64, L1(9765625), 1, 1},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {1200, 360, 1}, 3, 1},
    {ZIPFFT_R2C, ZIPFFT_F32, 3, {24, 35, 49}, 2, 0},
    /* a Bluestein prime whose padded length takes the middle kernel's longest
     * power-of-two rows: C2C fp64 1029 x 8192, R2C and C2R fp32 392 x 16384 (N + N/2) */
    {ZIPFFT_C2C, ZIPFFT_F64, L1(4194319), 1, 0},
    {ZIPFFT_R2C, ZIPFFT_F32, L1(4194319), 1, 1},
};

/* CUDA: past 2^31 elements, to the largest the device holds (each skipped, with a message,
 * where it does not fit), complex and real. 2130706432 = 1024 x 1024 x 2032 puts a Bluestein kernel
 * (2032 = 16 x 127) in a four-step split; 268435399 (prime) takes Bluestein's method whole. */
static const long_case cuda_cases[] = {
    {ZIPFFT_C2C, ZIPFFT_F32, L1((int64_t)1 << 31), 1, 0},
    {ZIPFFT_C2C, ZIPFFT_F32, L1(2130706432), 1, 0},
    {ZIPFFT_C2C, ZIPFFT_F32, L1((int64_t)3 << 29), 1, 0},
    {ZIPFFT_C2C, ZIPFFT_F32, L1(1220703125), 1, 0}, /* 5^13 */
    {ZIPFFT_C2C, ZIPFFT_F32, L1(268435399), 1, 0},
    {ZIPFFT_C2C, ZIPFFT_F32, L1((int64_t)1 << 32), 1, 1},
    {ZIPFFT_C2C, ZIPFFT_F64, L1(1162261467), 1, 0}, /* 3^19 */
    {ZIPFFT_C2C, ZIPFFT_F64, L1((int64_t)1 << 31), 1, 1},
    {ZIPFFT_C2C, ZIPFFT_F32, L1(4096), (int64_t)1 << 20, 1},
    {ZIPFFT_C2C, ZIPFFT_F32, 3, {2048, 1024, 1024}, 1, 0},
    {ZIPFFT_C2C, ZIPFFT_F64, 2, {32768, 32768, 1}, 1, 1},
    {ZIPFFT_R2C, ZIPFFT_F32, L1((int64_t)1 << 32), 1, 1},
    {ZIPFFT_R2C, ZIPFFT_F64, L1((int64_t)1 << 31), 1, 0},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {32768, 65536, 1}, 1, 0},
};

/* ------------------------------------------------------------------------------------------
 * Exact phases: exp(-2 pi i r / M) for an integer r in [0, M), the product of two entries
 * of tables computed in long double (r = hi * step + lo), so no error accumulates.
 * ------------------------------------------------------------------------------------------ */

typedef struct phase_table {
  uint64_t modulus, step;
  long double *hi, *lo; /* interleaved re, im */
} phase_table;

static void fill_phases(long double *t, uint64_t count, uint64_t stride, uint64_t modulus) {
  const long double two_pi = 2.0L * acosl(-1.0L);
  for (uint64_t i = 0; i < count; i++) {
    long double a = -two_pi * (long double)(i * stride) / (long double)modulus;
    t[2 * i] = cosl(a), t[2 * i + 1] = sinl(a);
  }
}

static phase_table phase_table_make(uint64_t modulus) {
  phase_table t = {modulus, (uint64_t)ceil(sqrt((double)modulus)), NULL, NULL};
  uint64_t hi_count = (modulus + t.step - 1) / t.step;
  t.hi = malloc(2 * sizeof *t.hi * hi_count);
  t.lo = malloc(2 * sizeof *t.lo * t.step);
  if (!t.hi || !t.lo) {
    fprintf(stderr, "out of memory for the phase tables of %llu\n", (unsigned long long)modulus);
    exit(2);
  }
  fill_phases(t.hi, hi_count, t.step, modulus);
  fill_phases(t.lo, t.step, 1, modulus);
  return t;
}

static void phase_table_free(phase_table *t) { free(t->hi), free(t->lo); }

/* exp(-2 pi i r / M), r in [0, M). */
static void phase(const phase_table *t, uint64_t r, long double *re, long double *im) {
  const long double *h = t->hi + 2 * (r / t->step);
  const long double *l = t->lo + 2 * (r % t->step);
  *re = h[0] * l[0] - h[1] * l[1];
  *im = h[0] * l[1] + h[1] * l[0];
}

/* ------------------------------------------------------------------------------------------
 * The test signals and their expected values, element by element.
 * ------------------------------------------------------------------------------------------ */

/* The signals: a chirp, whose DFT is a chirp too (every input of magnitude 1, every output
 * of magnitude sqrt(n): a misplaced element anywhere shows), and random data. */
typedef enum signal_kind {
  CHIRP,          /* x[j] = exp(+2 pi i q(j) / M) exp(+2 pi i s j / n) */
  CHIRP_SPECTRUM, /* X[k] = G exp(-2 pi i q(k - s) / M) */
  RANDOM,         /* uniform re and im in [-0.5, 0.5) */
  REAL_CHIRP,     /* Re x[j] (x: the chirps' product, with the batch factor) */
  HALF_SPECTRUM,  /* its DFT, (X[k] + conj X[-k]) / 2, for k_last <= n_last / 2 */
  RANDOM_REAL     /* uniform in [-0.5, 0.5) */
} signal_kind;

/* The chirp of length n. Even n: q(j) = j^2 mod 2n, M = 2n (x[j] = exp(i pi j^2 / n), an
 * n-periodic sequence) and G = sqrt(n) exp(i pi / 4). Odd n: q(j) = h j^2 mod n with h = (n +
 * 1) / 2 (the inverse of 2), M = n, and G the Gauss sum of h: (2/n) sqrt(n), times i when n
 * = 3 mod 4 ((2/n) = 1 when n = +-1 mod 8, else -1). Completing the square, sum_j x[j]
 * exp(-2 pi i j k / n) = exp(-2 pi i q(k) / M) sum_j x[j - k] = G exp(-2 pi i q(k) / M).
 * A tone of frequency s (the shift) moves the spectrum to k - s: the axes of a square array
 * get different shifts, so that a transposed result shows. */
typedef struct chirp {
  uint64_t n, modulus, h, shift;
  long double g_re, g_im;
  phase_table phases;
} chirp;

static chirp chirp_make(int64_t length, int64_t shift) {
  uint64_t n = (uint64_t)length;
  long double root = sqrtl((long double)n);
  chirp c = {n, n % 2 ? n : 2 * n, n % 2 ? (n + 1) / 2 : 1, (uint64_t)shift % n, 0,
             0, {0, 0, NULL, NULL}};
  if (n % 2 == 0) {
    c.g_re = c.g_im = root * sqrtl(0.5L);
  } else {
    long double sign = n % 8 == 1 || n % 8 == 7 ? 1 : -1;
    if (n % 4 == 1)
      c.g_re = sign * root;
    else
      c.g_im = sign * root;
  }
  c.phases = phase_table_make(c.modulus);
  return c;
}

/* q(j) = h j^2 mod M, exactly (j^2 < 2^64 for j < 2^32, h (j^2 mod n) < 2^63). */
static uint64_t chirp_index(const chirp *c, uint64_t j) {
  return c->h * (j * j % c->modulus) % c->modulus;
}

/* The phase index of input j, q(j) + s j M / n, and of output k, q(k - s) (mod M). */
static uint64_t chirp_input_index(const chirp *c, uint64_t j) {
  uint64_t tone = c->shift * j % c->n * (c->modulus / c->n);
  return (chirp_index(c, j) + tone) % c->modulus;
}

static uint64_t chirp_output_index(const chirp *c, uint64_t k) {
  return chirp_index(c, (k + c->n - c->shift) % c->n);
}

/* Every signal of one array: a chirp per axis, and per transform b of the batch the factor
 * exp(2 pi i (b g mod B) / B), g odd near 0.618 B and prime to B, so that neighbouring
 * transforms differ. A chirp input's DFT is then the product of the axes' chirp spectra
 * times the same factor. */
typedef struct pattern {
  int rank;
  uint64_t lengths[3], batch, batch_step;
  chirp axes[3];
  phase_table batch_phases;
} pattern;

static int64_t gcd(int64_t a, int64_t b) { return b ? gcd(b, a % b) : a; }

static pattern pattern_make(const long_case *c) {
  pattern p = {c->rank, {1, 1, 1}, (uint64_t)c->batch, 1, {{0}}, {0}};
  for (int a = 0; a < c->rank; a++) {
    p.lengths[a] = (uint64_t)c->lengths[a];
    p.axes[a] = chirp_make(c->lengths[a], c->lengths[a] * a / 3);
  }
  int64_t g = (int64_t)((double)c->batch * 0.618) | 1;
  while (c->batch > 1 && gcd(g, c->batch) != 1) g += 2;
  p.batch_step = (uint64_t)g % p.batch;
  p.batch_phases = phase_table_make(p.batch);
  return p;
}

static void pattern_free(pattern *p) {
  for (int a = 0; a < p->rank; a++) phase_table_free(&p->axes[a].phases);
  phase_table_free(&p->batch_phases);
}

/* A signal and how its elements are stored: reals or complex values, count logical
 * elements, `row` of them to a row, rows `row_stride` values apart (in-place real rows are
 * padded). */
typedef struct signal {
  signal_kind kind;
  const pattern *pattern;
  uint64_t count, row, row_stride;
} signal;

static int real_kind(signal_kind k) { return k == REAL_CHIRP || k == RANDOM_REAL; }

/* The signal's RMS value (of a half spectrum: about that of the whole). */
static double signal_rms(const signal *s) {
  double points = 1;
  for (int a = 0; a < s->pattern->rank; a++) points *= (double)s->pattern->lengths[a];
  switch (s->kind) {
    case CHIRP:
      return 1;
    case REAL_CHIRP:
      return sqrt(0.5);
    case CHIRP_SPECTRUM:
      return sqrt(points);
    case HALF_SPECTRUM:
      return sqrt(points / 2);
    case RANDOM:
      return sqrt(1.0 / 6);
    default:
      return sqrt(1.0 / 12);
  }
}

static const uint64_t random_seed = 0x10a6;

/* (re, im) *= (fr, fi). */
static void multiply(long double *re, long double *im, long double fr, long double fi) {
  long double r = *re * fr - *im * fi;
  *im = *re * fi + *im * fr, *re = r;
}

/* The pattern at multi-index k of transform b: the input (spectrum = 0) or its DFT. */
static void pattern_value(const pattern *p, const uint64_t *k, uint64_t b, int spectrum,
                          long double *re, long double *im) {
  *re = 1, *im = 0;
  for (int a = 0; a < p->rank; a++) {
    const chirp *c = &p->axes[a];
    long double pr, pi;
    if (!spectrum) {
      phase(&c->phases, chirp_input_index(c, k[a]), &pr, &pi);
      multiply(re, im, pr, -pi);
    } else {
      phase(&c->phases, chirp_output_index(c, k[a]), &pr, &pi);
      multiply(re, im, c->g_re * pr - c->g_im * pi, c->g_re * pi + c->g_im * pr);
    }
  }
  long double br, bi;
  phase(&p->batch_phases, b * p->batch_step % p->batch, &br, &bi);
  multiply(re, im, br, -bi);
}

/* Element e of the signal (row-major over the batch and the lengths, the last of a half
 * spectrum n/2 + 1), in long double. */
static void signal_value(const signal *s, uint64_t e, long double *re, long double *im) {
  const pattern *p = s->pattern;
  if (s->kind == RANDOM || s->kind == RANDOM_REAL) {
    *re = zt_uniform(random_seed, 2 * e);
    *im = s->kind == RANDOM ? zt_uniform(random_seed, 2 * e + 1) : 0;
    return;
  }
  uint64_t k[3], mirror[3];
  for (int a = p->rank - 1; a >= 0; a--) {
    uint64_t n = p->lengths[a];
    if (a == p->rank - 1 && s->kind == HALF_SPECTRUM) n = n / 2 + 1;
    k[a] = e % n, e /= n;
    mirror[a] = (p->lengths[a] - k[a]) % p->lengths[a];
  }
  int spectrum = s->kind == CHIRP_SPECTRUM || s->kind == HALF_SPECTRUM;
  pattern_value(p, k, e, spectrum, re, im); /* e is now the transform's index in the batch */
  if (s->kind == REAL_CHIRP) *im = 0;
  if (s->kind == HALF_SPECTRUM) {
    long double mr, mi;
    pattern_value(p, mirror, e, 1, &mr, &mi);
    *re = (*re + mr) / 2, *im = (*im - mi) / 2;
  }
}

/* ------------------------------------------------------------------------------------------
 * Element loops over all host threads: fill a buffer with a signal, or compare it.
 * ------------------------------------------------------------------------------------------ */

/* Differences between a buffer and a signal: sums of squares, the largest, its index. */
typedef struct differences {
  long double err2, ref2;
  double max_err;
  int64_t worst;
} differences;

/* What a loop over elements does with a buffer. */
typedef enum element_access {
  STORE,         /* store the signal, rounded to the precision */
  COMPARE,       /* compare with the signal (errors relative to max(RMS, |value|)) */
  COMPARE_STORED /* compare with the signal as STORE rounds it (errors: any difference) */
} element_access;

typedef struct range_job {
  const signal *s;
  unsigned char *data;
  zipfft_precision precision;
  element_access access;
  int64_t lo, hi;    /* this thread's range */
  differences found; /* this thread's comparison */
} range_job;

/* Rounds v to the precision. */
static long double rounded(long double v, int f32) { return f32 ? (float)v : (double)v; }

/* Reads and writes value j (a real or a complex value) of a buffer of the precision. */
static void load_value(const range_job *r, uint64_t j, int real, long double *re, long double *im) {
  const float *sf = (const float *)r->data;
  const double *sd = (const double *)r->data;
  uint64_t i = real ? j : 2 * j;
  *re = r->precision == ZIPFFT_F32 ? sf[i] : sd[i];
  *im = real ? 0 : r->precision == ZIPFFT_F32 ? sf[i + 1] : sd[i + 1];
}

static void store_value(const range_job *r, uint64_t j, int real, long double re, long double im) {
  float *sf = (float *)r->data;
  double *sd = (double *)r->data;
  uint64_t i = real ? j : 2 * j;
  if (r->precision == ZIPFFT_F32) {
    sf[i] = (float)re;
    if (!real) sf[i + 1] = (float)im;
  } else {
    sd[i] = (double)re;
    if (!real) sd[i + 1] = (double)im;
  }
}

static void *run_range(void *arg) {
  range_job *r = arg;
  int f32 = r->precision == ZIPFFT_F32, real = real_kind(r->s->kind);
  long double rms = signal_rms(r->s);
  for (int64_t e = r->lo; e < r->hi; e++) {
    uint64_t j = (uint64_t)e / r->s->row * r->s->row_stride + (uint64_t)e % r->s->row;
    long double re, im, got_re, got_im;
    signal_value(r->s, (uint64_t)e, &re, &im);
    if (r->access == STORE) {
      store_value(r, j, real, re, im);
      continue;
    }
    if (r->access == COMPARE_STORED) re = rounded(re, f32), im = rounded(im, f32);
    load_value(r, j, real, &got_re, &got_im);
    long double dre = got_re - re, dim = got_im - im;
    long double e2 = dre * dre + dim * dim, v2 = re * re + im * im;
    r->found.err2 += e2, r->found.ref2 += v2;
    long double relative = sqrtl(e2 / (v2 > rms * rms ? v2 : rms * rms));
    if (!(relative <= r->found.max_err)) { /* NaN counts too */
      r->found.max_err = isnan((double)relative) ? INFINITY : (double)relative;
      r->found.worst = e;
    }
  }
  return NULL;
}

enum { max_threads = 32 };

/* Stores or compares the elements of data and signal s over the host's threads. */
static differences over_elements(const signal *s, unsigned char *data, zipfft_precision p,
                                 element_access access) {
  int64_t n = (int64_t)s->count;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cpus < 1 ? 1 : cpus > max_threads ? max_threads : (int)cpus;
  range_job jobs[max_threads];
  pthread_t ids[max_threads];
  int started[max_threads] = {0};
  for (int t = 0; t < threads; t++) {
    jobs[t] =
        (range_job){s, data, p, access, n * t / threads, n * (t + 1) / threads, {0, 0, 0, -1}};
    started[t] = pthread_create(&ids[t], NULL, run_range, &jobs[t]) == 0;
    if (!started[t]) run_range(&jobs[t]);
  }
  differences all = {0, 0, 0, -1};
  for (int t = 0; t < threads; t++) {
    if (started[t]) pthread_join(ids[t], NULL);
    all.err2 += jobs[t].found.err2, all.ref2 += jobs[t].found.ref2;
    if (jobs[t].found.max_err > all.max_err)
      all.max_err = jobs[t].found.max_err, all.worst = jobs[t].found.worst;
  }
  return all;
}

/* ------------------------------------------------------------------------------------------
 * One array: the chirp forward, then a random round trip.
 * ------------------------------------------------------------------------------------------ */

static int cases_run;

/* Points of one transform, and elements of the whole array. */
static int64_t points(const long_case *c) {
  int64_t n = 1;
  for (int a = 0; a < c->rank; a++) n *= c->lengths[a];
  return n;
}

static int64_t elements(const long_case *c) { return points(c) * c->batch; }

static const char *case_name(const long_case *c, char *buf, size_t len) {
  int k = snprintf(buf, len, "%s %s n=", c->type == ZIPFFT_C2C ? "c2c" : "r2c/c2r",
                   c->precision == ZIPFFT_F32 ? "f32" : "f64");
  for (int a = 0; a < c->rank && k > 0 && (size_t)k < len; a++)
    k += snprintf(buf + k, len - (size_t)k, "%s%lld", a ? "x" : "", (long long)c->lengths[a]);
  if (k > 0 && (size_t)k < len)
    snprintf(buf + k, len - (size_t)k, " batch=%lld %s", (long long)c->batch,
             c->in_place ? "in place" : "out of place");
  return buf;
}

/* Complex values of the last axis on the complex side: n, or n/2 + 1 for real transforms. */
static int64_t complex_row(const long_case *c) {
  int64_t n = c->lengths[c->rank - 1];
  return c->type == ZIPFFT_C2C ? n : n / 2 + 1;
}

/* Reals a real row takes in memory: n, or 2 (n/2 + 1) in place. */
static int64_t real_row(const long_case *c) {
  return c->in_place ? 2 * complex_row(c) : c->lengths[c->rank - 1];
}

/* Rows of the array (every axis but the last, and the batch). */
static int64_t rows(const long_case *c) { return elements(c) / c->lengths[c->rank - 1]; }

/* Bytes of the input buffer (the buffer, in place) and of the output buffer. */
static size_t input_bytes(const long_case *c) {
  size_t real = zt_real_size(c->precision);
  if (c->type == ZIPFFT_C2C) return (size_t)elements(c) * 2 * real;
  return (size_t)(rows(c) * real_row(c)) * real;
}

static size_t output_bytes(const long_case *c) {
  return (size_t)(rows(c) * complex_row(c)) * 2 * zt_real_size(c->precision);
}

/* An input signal (the chirp, or random data) and the chirp's spectrum, with their
 * storage. */
static signal input_signal(const long_case *c, const pattern *p, int random) {
  if (c->type == ZIPFFT_C2C)
    return (signal){random ? RANDOM : CHIRP, p, (uint64_t)elements(c), 1, 1};
  return (signal){random ? RANDOM_REAL : REAL_CHIRP, p, (uint64_t)elements(c),
                  (uint64_t)c->lengths[c->rank - 1], (uint64_t)real_row(c)};
}

static signal spectrum_signal(const long_case *c, const pattern *p) {
  return (signal){c->type == ZIPFFT_C2C ? CHIRP_SPECTRUM : HALF_SPECTRUM, p,
                  (uint64_t)(rows(c) * complex_row(c)), 1, 1};
}

/* Sets the layouts of a real transform (R2C, or else C2R): row-major, real rows of
 * real_row reals. */
static zipfft_status set_real_layout(zipfft_desc d, const long_case *c, int r2c) {
  int64_t real[3], cplx[3], rs = 1, cs = 1;
  for (int a = c->rank - 1; a >= 0; a--) {
    real[a] = rs, cplx[a] = cs;
    rs *= a == c->rank - 1 ? real_row(c) : c->lengths[a];
    cs *= a == c->rank - 1 ? complex_row(c) : c->lengths[a];
  }
  return r2c ? zipfft_desc_set_layout(d, real, rs, cplx, cs)
             : zipfft_desc_set_layout(d, cplx, cs, real, rs);
}

enum { max_text = 512 };

/* Creates a plan for the case and direction (C2C, or R2C forward and C2R inverse; the
 * inverse scaled by 1/points); NULL after a
 * counted failure, or (too_large not NULL) after ZIPFFT_ERROR_TOO_LARGE, which counts
 * nothing and copies the library's message to too_large. */
static zipfft_plan make_plan(const long_case *c, zipfft_direction dir, char *too_large) {
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  int real = c->type != ZIPFFT_C2C, forward = dir == ZIPFFT_FORWARD;
  zipfft_type type = !real ? ZIPFFT_C2C : forward ? ZIPFFT_R2C : ZIPFFT_C2R;
  zipfft_status s = zipfft_desc_create(&d, type, c->precision, c->rank, c->lengths);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, c->batch);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_direction(d, dir);
  if (s == ZIPFFT_SUCCESS && real) s = set_real_layout(d, c, forward);
  if (s == ZIPFFT_SUCCESS && c->in_place) s = zipfft_desc_set_placement(d, ZIPFFT_INPLACE);
  if (s == ZIPFFT_SUCCESS && dir == ZIPFFT_INVERSE)
    s = zipfft_desc_set_scale(d, 1.0 / (double)points(c));
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, zt_zipfft_backend(), 0);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(&p, d);
  char message[max_text], name[96];
  snprintf(message, sizeof message, "%s", zipfft_last_error());
  zipfft_desc_destroy(d);
  if (too_large && s == ZIPFFT_ERROR_TOO_LARGE) {
    snprintf(too_large, max_text, "%s", message);
    return NULL;
  }
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s %s: plan creation: %s: %s", case_name(c, name, sizeof name),
           dir == ZIPFFT_FORWARD ? "forward" : "inverse", zipfft_status_name(s), message);
  return s == ZIPFFT_SUCCESS ? p : NULL;
}

/* The accuracy gate's unit, u sqrt(log2 n) for n points a transform, and the gate (10, or
 * 30 with a length of a prime factor above 31), as in test_c2c. */
static double gate_unit(const long_case *c) {
  double u = c->precision == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  return u * sqrt(log2((double)points(c)));
}

static double gate(const long_case *c) {
  int smooth = 1;
  for (int a = 0; a < c->rank; a++) smooth &= zt_is_31_smooth(c->lengths[a]);
  return smooth ? 10 : 30;
}

/* Checks a buffer against a signal: relative L2 error within the gate, and every element
 * within 10 gates of the larger of its value and the signal's RMS (one misplaced element
 * is about 10^6 gates off). */
static void check_against(const long_case *c, const char *what, const signal *s,
                          unsigned char *data) {
  differences d = over_elements(s, data, c->precision, COMPARE);
  double unit = gate_unit(c);
  double l2 = (double)sqrtl(d.err2 / d.ref2) / unit, worst = d.max_err / unit;
  char name[96];
  printf("  %s, %s: relative L2 error %.2f, largest %.2f u sqrt(log2 n) (element %lld)\n",
         case_name(c, name, sizeof name), what, l2, worst, (long long)d.worst);
  ZT_CHECK(l2 <= gate(c), "%s, %s: relative L2 error %.3g u sqrt(log2 n) (gate %g)", name, what, l2,
           gate(c));
  ZT_CHECK(worst <= 10 * gate(c), "%s, %s: element %lld off by %.3g u sqrt(log2 n)", name, what,
           (long long)d.worst, worst);
}

/* Checks that a buffer still holds the signal exactly as it was stored. */
static void check_unchanged(const long_case *c, const char *what, const signal *s,
                            unsigned char *data) {
  differences d = over_elements(s, data, c->precision, COMPARE_STORED);
  char name[96];
  ZT_CHECK(d.err2 == 0, "%s: %s: element %lld changed", case_name(c, name, sizeof name), what,
           (long long)d.worst);
}

/* Runs plan p on the case's buffers (in, and out unless in place) and checks the status
 * and both buffers' guards. */
static int execute(const long_case *c, zipfft_plan p, zt_buffer *in, zt_buffer *out) {
  char name[96];
  zipfft_status s = zt_execute(p, in, c->in_place ? in : out, NULL);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: zipfft_execute: %s: %s", case_name(c, name, sizeof name),
           zipfft_status_name(s), zipfft_last_error());
  ZT_CHECK(zt_buffer_guards_intact(in) && (c->in_place || zt_buffer_guards_intact(out)),
           "%s: a guard band was written", case_name(c, name, sizeof name));
  return s == ZIPFFT_SUCCESS;
}

/* The chirp forward: every output against its exact DFT; out of place, the input must be
 * left as it was. */
static void check_chirp(const long_case *c, zipfft_plan fwd, zt_buffer *in, zt_buffer *out,
                        const pattern *pt) {
  signal x = input_signal(c, pt, 0), spectrum = spectrum_signal(c, pt);
  if (!c->in_place) zt_buffer_poison(out, zt_real_size(c->precision));
  over_elements(&x, in->data, c->precision, STORE);
  if (!execute(c, fwd, in, out)) return;
  check_against(c, "chirp", &spectrum, c->in_place ? in->data : out->data);
  if (!c->in_place) check_unchanged(c, "the input", &x, in->data);
}

/* Random data forward, then the inverse (scaled by 1/points; out of place back into the input
 * buffer), every element against the data. The forward plan is destroyed before the
 * inverse is made, so that one workspace is held at a time. */
static void check_round_trip(const long_case *c, zipfft_plan fwd, zt_buffer *in, zt_buffer *out,
                             const pattern *pt) {
  signal noise = input_signal(c, pt, 1);
  zt_buffer *spectrum = c->in_place ? in : out;
  if (!c->in_place) zt_buffer_poison(out, zt_real_size(c->precision));
  over_elements(&noise, in->data, c->precision, STORE);
  int ok = execute(c, fwd, in, out);
  zipfft_plan_destroy(fwd);
  zipfft_plan inv = ok ? make_plan(c, ZIPFFT_INVERSE, NULL) : NULL;
  if (!c->in_place)
    zt_buffer_poison(in, zt_real_size(c->precision)); /* the inverse must write it */
  if (inv && execute(c, inv, spectrum, in)) check_against(c, "round trip", &noise, in->data);
  zipfft_plan_destroy(inv);
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs a case when its arrays and workspace fit the backend's memory (and its arrays, which
 * the test keeps on the host, the host's); otherwise says why it was skipped. */
static void run_case(const long_case *c) {
  char name[96];
  double start = seconds();
  printf("  %s: planning\n", case_name(c, name, sizeof name));
  size_t in_bytes = input_bytes(c), out_bytes = output_bytes(c), workspace = 0;
  size_t arrays = c->in_place ? in_bytes : in_bytes + out_bytes;
  char too_large[max_text] = "";
  zipfft_plan fwd = make_plan(c, ZIPFFT_FORWARD, too_large);
  if (*too_large) printf("  %s: skipped: %s\n", case_name(c, name, sizeof name), too_large);
  if (!fwd) return;
  zipfft_plan_workspace_size(fwd, &workspace);
  /* room for the context, the kernels and the tables */
  size_t device = zt_backend_memory() / 100 * 95, host = zt_host_memory() / 100 * 80;
  int fits = zt_backend() == ZT_BACKEND_CPU ? arrays + workspace <= host
                                            : arrays + workspace <= device && arrays <= host;
  if (!fits) {
    printf(
        "  %s: skipped: %zu bytes of arrays and %zu of workspace; %s memory %zu, host %zu "
        "usable\n",
        case_name(c, name, sizeof name), arrays, workspace, zt_backend_name(), device, host);
    zipfft_plan_destroy(fwd);
    return;
  }
  printf("  %s: planned in %.1f s, %zu bytes of workspace\n", name, seconds() - start, workspace);
  zt_buffer in = zt_buffer_alloc(in_bytes, 0);
  zt_buffer out = c->in_place ? in : zt_buffer_alloc(out_bytes, 0);
  zt_buffer_poison(&in, zt_real_size(c->precision)); /* and its guards */
  pattern pt = pattern_make(c);
  check_chirp(c, fwd, &in, &out, &pt);
  check_round_trip(c, fwd, &in, &out, &pt);
  printf("  %s: done in %.1f s\n", name, seconds() - start);
  cases_run++;
  pattern_free(&pt);
  zt_buffer_free(&in);
  if (!c->in_place) zt_buffer_free(&out);
}

/* Under AddressSanitizer (the sanitizer build) the CPU runs only the cases of at most 2^24
 * elements: the sanitizers check the host code, which the longer C2C cases (2^25 and 3 x
 * 2^23 points, four-steps of 3 kernels) run as 14348907's does and the even R2C 2^25 as
 * test_real's lengths through the workspace do, while their instrumented element loops
 * took about half of the test's 287 s under the sanitizers (42 of 89 s plain). */
static int skipped_under_sanitizer(const long_case *c) {
#ifdef ZT_ADDRESS_SANITIZER
  return elements(c) > (int64_t)1 << 24;
#else
  (void)c;
  return 0;
#endif
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows as it happens */
  if (!zt_device_ready()) return zt_finish("test_long_arrays", 0);
  int cuda = zt_backend() == ZT_BACKEND_CUDA;
  const long_case *cases = cuda ? cuda_cases : cpu_cases;
  size_t count =
      cuda ? sizeof cuda_cases / sizeof *cuda_cases : sizeof cpu_cases / sizeof *cpu_cases;
  long part = 0, parts = 1; /* ZIPFFT_TEST_PART=K/N runs cases K, K + N, ... */
  if (zt_test_part(&part, &parts) < 0) return zt_finish("test_long_arrays", 0);
  int assigned = 0;
  for (size_t i = (size_t)part; i < count; i += (size_t)parts) {
    if (!cuda && skipped_under_sanitizer(&cases[i])) {
      printf("  case %zu (%lld elements): skipped under the sanitizers\n", i,
             (long long)elements(&cases[i]));
      continue;
    }
    assigned++;
    run_case(&cases[i]);
  }
  ZT_CHECK(cuda || cases_run == assigned, "%d of the %d CPU cases ran: each must fit", cases_run,
           assigned);
  return zt_finish_cases("test_long_arrays", cases_run); /* every case skipped: a failure */
}
