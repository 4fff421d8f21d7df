/* test_corr.c - fused correlation and convolution plans (zipfft_corr) against the naive
 * double-precision sums, every rank, region and mode; the 2DTM statistics against a
 * double-precision reduction of the same plan's outputs; the argument checks. (The
 * statistics over 10^7 signals: test_stats_long.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/corr_internal.h"
#include "api/plan_internal.h"
#include "backend/backend.h"
#include "gen/build_context.h"
#include "device.h"
#include "test_util.h"

typedef struct corr_case {
  zipfft_precision prec;
  int rank;
  int64_t lengths[3], signal[3];
  zipfft_corr_mode mode;
  zipfft_corr_region region;
  zipfft_storage spectrum;
  int64_t batch, count; /* plan batch, signals per call (<= batch) */
} corr_case;

static int64_t product(const int64_t *v, int rank) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= v[k];
  return n;
}

static void describe(const corr_case *c, char *buf, size_t len) {
  static const char *const regions[] = {"full", "same", "valid"};
  snprintf(buf, len, "%s %s rank %d L=%lldx%lldx%lld s=%lldx%lldx%lld %s%s b%lld/%lld",
           c->prec == ZIPFFT_F32 ? "f32" : "f64", c->mode == ZIPFFT_CORRELATE ? "corr" : "conv",
           c->rank, (long long)c->lengths[0], (long long)c->lengths[1], (long long)c->lengths[2],
           (long long)c->signal[0], (long long)c->signal[1], (long long)c->signal[2],
           regions[c->region], c->spectrum == ZIPFFT_STORAGE_F16 ? " f16-spectrum" : "",
           (long long)c->count, (long long)c->batch);
}

/* Naive sum at output index `at` (row-major over out[]) of signal s, per zipfft.h. */
static double naive(const corr_case *c, const double *filter, const double *s, const int64_t *out,
                    int64_t at) {
  int64_t x[3], L[3] = {1, 1, 1}, shift[3] = {0, 0, 0};
  for (int k = c->rank - 1; k >= 0; k--) x[k] = at % out[k], at /= out[k];
  int conv = c->mode == ZIPFFT_CONVOLVE;
  for (int k = 0; k < c->rank; k++) {
    L[k] = c->lengths[k];
    if (c->region == ZIPFFT_REGION_SAME) shift[k] = conv ? c->signal[k] / 2 : -(c->signal[k] / 2);
    if (c->region == ZIPFFT_REGION_VALID && conv) shift[k] = c->signal[k] - 1;
  }
  double sum = 0;
  for (int64_t j = 0; j < product(c->signal, c->rank); j++) {
    int64_t y[3], rest = j, f = 0;
    for (int k = c->rank - 1; k >= 0; k--) y[k] = rest % c->signal[k], rest /= c->signal[k];
    for (int k = 0; k < c->rank; k++) {
      int64_t i = x[k] + shift[k] + (conv ? -y[k] : y[k]);
      f = f * L[k] + ((i % L[k]) + L[k]) % L[k];
    }
    sum += filter[f] * s[j];
  }
  return sum;
}

/* The inputs' magnitude: uniform in [-value_scale, value_scale] (main sets it). */
static double value_scale = 1.0;

/* Backend copy of `count` reals of the precision (rounded), their values in *values. */
static void *upload_reals(const corr_case *c, int64_t count, uint64_t seed, double **values) {
  size_t rs = zt_real_size(c->prec);
  unsigned char *host = malloc((size_t)count * rs);
  *values = malloc((size_t)count * sizeof **values);
  for (int64_t i = 0; i < count; i++) {
    double v = value_scale * zt_uniform(seed, (uint64_t)i);
    float f = (float)v;
    if (rs == 4)
      memcpy(host + 4 * i, &f, 4), (*values)[i] = f;
    else
      memcpy(host + 8 * i, &v, 8), (*values)[i] = v;
  }
  void *dev = zt_mem_alloc((size_t)count * rs);
  if (dev) zt_mem_upload(dev, host, (size_t)count * rs);
  free(host);
  return dev;
}

/* How the plans of the cases run now store their intermediate array (main sets it). */
static zipfft_storage intermediate_storage = ZIPFFT_STORAGE_DEFAULT;

static zipfft_status plan_case(const corr_case *c, zipfft_corr *p) {
  zipfft_corr_config cfg = {.mode = c->mode,
                            .region = c->region,
                            .spectrum_storage = c->spectrum,
                            .backend = zt_zipfft_backend(),
                            .intermediate_storage = intermediate_storage};
  return zipfft_corr_create(p, c->prec, c->rank, c->lengths, c->signal, c->batch, &cfg);
}

/* Outputs of one execution (count signals) downloaded as doubles. */
static double *run_outputs(const corr_case *c, zipfft_corr p, const void *signals, int64_t plane) {
  enum { guard = 256 }; /* bytes of NaN before and after the outputs, which must stay */
  size_t rs = zt_real_size(c->prec), bytes = (size_t)(plane * c->count) * rs;
  unsigned char *host = malloc(bytes + 2 * guard);
  memset(host, 0xff, bytes + 2 * guard); /* NaN: every output must be written */
  unsigned char *out = zt_mem_alloc(bytes + 2 * guard);
  double *got = malloc((size_t)(plane * c->count) * sizeof *got);
  zt_mem_upload(out, host, bytes + 2 * guard);
  ZT_OK(zipfft_corr_execute(p, signals, c->count, out + guard, NULL));
  zt_mem_download(host, out, bytes + 2 * guard);
  size_t touched = 0;
  for (size_t i = 0; i < guard; i++)
    touched += (host[i] != 0xff) + (host[guard + bytes + i] != 0xff);
  ZT_CHECK(touched == 0, "%zu guard bytes around the %lld outputs were written", touched,
           (long long)(plane * c->count));
  for (int64_t i = 0; i < plane * c->count; i++) {
    float f;
    if (rs == 4)
      memcpy(&f, host + guard + 4 * i, 4), got[i] = f;
    else
      memcpy(&got[i], host + guard + 8 * i, 8);
  }
  zt_mem_free(out);
  free(host);
  return got;
}

/* Relative L2 error of the outputs against the naive sums. */
static double output_error(const corr_case *c, const double *filter, const double *signals,
                           const double *got, const int64_t *out) {
  int64_t plane = product(out, c->rank), sig = product(c->signal, c->rank);
  double err = 0, ref = 0;
  for (int64_t b = 0; b < c->count; b++)
    for (int64_t i = 0; i < plane; i++) {
      double want = naive(c, filter, signals + b * sig, out, i), d = got[b * plane + i] - want;
      err += isfinite(d) ? d * d : INFINITY;
      ref += want * want;
    }
  return sqrt(err / ref);
}

/* Gate of the mean, deviation and z-score against the reduction of the plan's outputs, as
 * a share of the outputs' scale: the mean is the output of the signals' mean (linearity),
 * which agrees with the mean of the outputs to fp32 rounding, or with a 16-bit
 * intermediate to its own rounding (measured: at most 1.4 units of it); four units. */
static double moments_gate(void) {
  return intermediate_storage == ZIPFFT_STORAGE_BF16  ? 4 * 0x1p-8
         : intermediate_storage == ZIPFFT_STORAGE_F16 ? 4 * 0x1p-11
                                                      : 1e-5;
}

/* Accumulates call `call` (count new signals, numbered 100 + call * count on) and returns
 * the plan's outputs for them. */
static double *accumulate_call(const corr_case *c, zipfft_corr p, int64_t plane, int call) {
  double *values;
  void *signals =
      upload_reals(c, product(c->signal, c->rank) * c->count, 0x57A7 + (uint64_t)call, &values);
  double *got = run_outputs(c, p, signals, plane);
  ZT_OK(zipfft_corr_accumulate(p, signals, c->count, (int32_t)(100 + call * c->count), NULL));
  zt_mem_free(signals);
  free(values);
  return got;
}

/* Finalises the statistics and checks them against the double reduction of the plan's
 * outputs got[0..calls-1] of the calls accumulated since the reset. */
static void compare_statistics(const corr_case *c, zipfft_corr p, int64_t plane, double *const *got,
                               int calls, const char *text) {
  float *max = malloc((size_t)plane * 4), *mean = malloc((size_t)plane * 4),
        *sd = malloc((size_t)plane * 4), *z = malloc((size_t)plane * 4);
  int32_t *index = malloc((size_t)plane * 4);
  ZT_OK(zipfft_corr_finalize(p, max, index, mean, sd, z));
  double scale = 0, worst = 0, moments = 0;
  int64_t wrong_index = 0, n = calls * c->count;
  for (int call = 0; call < calls; call++)
    for (int64_t i = 0; i < plane * c->count; i++) scale = fmax(scale, fabs(got[call][i]));
  for (int64_t i = 0; i < plane; i++) {
    double best = -INFINITY, second = -INFINITY, sum = 0, sq = 0;
    int64_t arg = -1;
    for (int64_t j = 0; j < n; j++) {
      double v = got[j / c->count][(j % c->count) * plane + i];
      if (v > best)
        second = best, best = v, arg = j;
      else if (v > second)
        second = v;
      sum += v, sq += v * v;
    }
    double mu = sum / (double)n, var = sq / (double)n - mu * mu;
    if (best - second > 1e-4 * scale && index[i] != 100 + arg) wrong_index++;
    worst = zt_worse(worst, fabs(max[i] - best) / scale);
    moments = zt_worse(moments, fabs(mean[i] - mu) / scale);
    moments = zt_worse(moments, fabs(sd[i] - sqrt(fmax(var, 0))) / scale);
    if (sd[i] > 0)
      moments = zt_worse(moments, fabs(z[i] - (max[i] - mean[i]) / sd[i]) * sd[i] / scale);
    else if (!(sd[i] == 0))
      moments = NAN; /* a NaN deviation skips the z check above */
  }
  if (intermediate_storage != ZIPFFT_STORAGE_DEFAULT)
    printf("  %s: mean, deviation, z-score within %.3g of the outputs' scale\n", text, moments);
  ZT_CHECK(wrong_index == 0, "%s: %lld statistics indices differ", text, (long long)wrong_index);
  ZT_CHECK(worst < 1e-5, "%s: maxima differ by %.3g of the outputs' scale", text, worst);
  ZT_CHECK(moments < moments_gate(),
           "%s: mean, deviation or z-score differ by %.3g of the "
           "outputs' scale",
           text, moments);
  free(max), free(mean), free(sd), free(z), free(index);
}

/* The statistics of three accumulations of different signals against the double
 * reduction of the same plan's outputs for them. */
static void check_statistics(const corr_case *c, zipfft_corr p, int64_t plane, const char *text) {
  enum { calls = 3 };
  double *got[calls];
  ZT_OK(zipfft_corr_stats_reset(p, NULL));
  for (int call = 0; call < calls; call++) got[call] = accumulate_call(c, p, plane, call);
  compare_statistics(c, p, plane, got, calls, text);
  for (int call = 0; call < calls; call++) free(got[call]);
}

/* The sums are the correlation of the signals' running sum, computed when finalising: the
 * statistics must stay right when the filter is replaced between calls (the running sum
 * folded with the filter it was accumulated under), and when finalising mid-way, which
 * must not disturb what follows. */
static void check_filter_replaced(void) {
  corr_case c = {ZIPFFT_F32,
                 2,
                 {24, 20, 1},
                 {5, 4, 1},
                 ZIPFFT_CORRELATE,
                 ZIPFFT_REGION_VALID,
                 ZIPFFT_STORAGE_DEFAULT,
                 4,
                 3};
  zipfft_corr p = NULL;
  ZT_OK(plan_case(&c, &p));
  if (!p) return;
  int64_t out[3];
  ZT_OK(zipfft_corr_output_lengths(p, out));
  int64_t plane = out[0] * out[1];
  double *filter[2];
  void *dfilter[2] = {upload_reals(&c, 24 * 20, 0xF1, &filter[0]),
                      upload_reals(&c, 24 * 20, 0xF2, &filter[1])};
  double *got[4];
  ZT_OK(zipfft_corr_set_filter(p, dfilter[0]));
  ZT_OK(zipfft_corr_stats_reset(p, NULL));
  got[0] = accumulate_call(&c, p, plane, 0);
  compare_statistics(&c, p, plane, got, 1, "filter replaced: before");
  got[1] = accumulate_call(&c, p, plane, 1);
  ZT_OK(zipfft_corr_set_filter(p, dfilter[1]));
  got[2] = accumulate_call(&c, p, plane, 2);
  ZT_OK(zipfft_corr_set_filter(p, dfilter[0])); /* and back */
  got[3] = accumulate_call(&c, p, plane, 3);
  for (int call = 2; call < 4; call++) { /* the outputs follow the filter set */
    double *values;
    void *d = upload_reals(&c, 20 * c.count, 0x57A7 + (uint64_t)call, &values);
    double e = output_error(&c, filter[3 - call], values, got[call], out);
    ZT_CHECK(e <= 1e-5, "filter replaced: call %d off the naive sums by %.3g", call, e);
    zt_mem_free(d), free(values);
  }
  compare_statistics(&c, p, plane, got, 4, "filter replaced twice");
  for (int k = 0; k < 4; k++) free(got[k]);
  for (int k = 0; k < 2; k++) free(filter[k]), zt_mem_free(dfilter[k]);
  zipfft_corr_destroy(p);
}

/* Plans, runs and checks one case when it belongs to this run's part (zt_case_in_part);
 * returns 1 when it ran. */
static int run_case(const corr_case *c) {
  if (!zt_case_in_part()) return 0;
  char text[256];
  describe(c, text, sizeof text);
  zipfft_corr p = NULL;
  zipfft_status s = plan_case(c, &p);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: create: %s (%s)", text, zipfft_status_name(s),
           zipfft_last_error());
  if (s != ZIPFFT_SUCCESS) return 0;
  int64_t out[3];
  ZT_OK(zipfft_corr_output_lengths(p, out));
  int64_t plane = product(out, c->rank), sig = product(c->signal, c->rank);
  double *filter, *signals;
  void *dfilter = upload_reals(c, product(c->lengths, c->rank), 0xF17, &filter);
  void *dsignals = upload_reals(c, sig * c->count, 0x51C, &signals);
  ZT_OK(zipfft_corr_set_filter(p, dfilter));
  double *got = run_outputs(c, p, dsignals, plane);
  double u = c->prec == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  /* 16-bit storage: a few of its units of rounding (2^-11 for F16, 2^-8 for BF16) */
  int bf16 = intermediate_storage == ZIPFFT_STORAGE_BF16;
  int f16 = c->spectrum == ZIPFFT_STORAGE_F16 || intermediate_storage == ZIPFFT_STORAGE_F16;
  double gate = bf16  ? 5e-3
                : f16 ? 1e-3
                      : 50 * u * sqrt(log2((double)product(c->lengths, c->rank)) + 1);
  double err = output_error(c, filter, signals, got, out);
  ZT_CHECK(err <= gate, "%s: relative L2 error %.3g above %.3g", text, err, gate);
  if (f16 || bf16)
    printf("  %s: error %.3g (%s spectrum, %s intermediate)\n", text, err,
           c->spectrum == ZIPFFT_STORAGE_F16 ? "f16" : "f32",
           bf16                                         ? "bf16"
           : intermediate_storage == ZIPFFT_STORAGE_F16 ? "f16"
                                                        : "f32");
  check_statistics(c, p, plane, text);
  free(got), free(filter), free(signals);
  zt_mem_free(dfilter);
  zt_mem_free(dsignals);
  zipfft_corr_destroy(p);
  return 1;
}

#define CORR ZIPFFT_CORRELATE
#define CONV ZIPFFT_CONVOLVE
#define DEF ZIPFFT_STORAGE_DEFAULT
static const corr_case cases[] = {
    {ZIPFFT_F32, 1, {64, 1, 1}, {10, 1, 1}, CORR, ZIPFFT_REGION_FULL, DEF, 3, 3},
    {ZIPFFT_F32, 1, {60, 1, 1}, {7, 1, 1}, CONV, ZIPFFT_REGION_VALID, DEF, 4, 2},
    {ZIPFFT_F64, 1, {45, 1, 1}, {9, 1, 1}, CORR, ZIPFFT_REGION_SAME, DEF, 2, 2},
    {ZIPFFT_F32, 2, {24, 32, 1}, {5, 7, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    /* a 4096-point last axis (the 2DTM shape of the pair kernel: radix 16, one transform
     * per block); an odd batch leaves the last pair without its second signal */
    {ZIPFFT_F32, 2, {8, 4096, 1}, {3, 100, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    /* batch 1: the half-length statistics kernel (no signal pairs) */
    {ZIPFFT_F32, 2, {24, 32, 1}, {5, 7, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 1, 1},
    {ZIPFFT_F32, 2, {20, 18, 1}, {6, 4, 1}, CONV, ZIPFFT_REGION_SAME, DEF, 2, 1},
    {ZIPFFT_F32, 2, {16, 15, 1}, {3, 5, 1}, CORR, ZIPFFT_REGION_FULL, DEF, 2, 2},
    {ZIPFFT_F32, 2, {32, 48, 1}, {9, 8, 1}, CORR, ZIPFFT_REGION_VALID, ZIPFFT_STORAGE_F16, 2, 2},
    {ZIPFFT_F64, 2, {12, 10, 1}, {4, 10, 1}, CONV, ZIPFFT_REGION_VALID, DEF, 2, 2},
    {ZIPFFT_F32, 3, {8, 6, 10}, {3, 2, 4}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2},
    {ZIPFFT_F32, 3, {6, 8, 8}, {2, 5, 3}, CONV, ZIPFFT_REGION_FULL, DEF, 3, 2},
    /* lengths with a prime factor above 13, VALID: FFTs of a padded smooth length */
    {ZIPFFT_F32, 2, {34, 20, 1}, {5, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2},
    /* a circular region keeps its lengths: prime radices 17 (the fused axis) and 19 (the
     * statistics kernel's rows) */
    {ZIPFFT_F32, 2, {34, 19, 1}, {5, 4, 1}, CORR, ZIPFFT_REGION_FULL, DEF, 2, 2},
    {ZIPFFT_F32, 1, {37, 1, 1}, {6, 1, 1}, CONV, ZIPFFT_REGION_VALID, DEF, 2, 2},
    /* fp64 keeps the prime 37 as the fused axis: one butterfly of radix 37
     * (size_direct_prime in plan/single.c) */
    {ZIPFFT_F64, 2, {37, 12, 1}, {6, 4, 1}, CORR, ZIPFFT_REGION_FULL, DEF, 2, 2},
    /* a long first axis: the fused kernel's block (4 columns of 2048 points) takes a third
     * of a multiprocessor and reads its pass twiddles from shared memory */
    {ZIPFFT_F32, 2, {2048, 24, 1}, {40, 5, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2},
    /* the 2DTM fused kernel's shape: 4096-point columns as 64x64, the forward FFT's
     * last pass handing its registers to the inverse FFT's first; 6 columns of the
     * Hermitian half leave the second block of 4 half empty; then convolution, FULL
     * region and the f16 spectrum in the same shape */
    {ZIPFFT_F32, 2, {4096, 10, 1}, {300, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    {ZIPFFT_F32, 2, {4096, 6, 1}, {512, 6, 1}, CONV, ZIPFFT_REGION_FULL, ZIPFFT_STORAGE_F16, 2, 2},
    /* a signal over most of the first axis: the fused kernel's first pass reads 5 of its
     * 8 slots (little padding to prune) */
    {ZIPFFT_F32, 2, {32, 12, 1}, {20, 5, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    /* a last axis of mixed radices: the kernels take one butterfly of a smaller radix per
     * thread (1920 = 16x15x8: radix 15, 128 threads; the half length 960 = 12x10x8: radix
     * 10, 96 threads), so the larger radix's pass leaves threads idle
     * (choose_threads_per_transform) */
    {ZIPFFT_F32, 2, {6, 1920, 1}, {3, 50, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    /* the K3 image's 5760-point rows: the pair kernel at radix 20x18x16, 360 threads */
    {ZIPFFT_F32, 2, {4, 5760, 1}, {2, 90, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    /* 5760-point columns (the K3 image upright): the fused kernel takes 4 columns of 180
     * threads (two butterflies each) instead of 2 of 360 */
    {ZIPFFT_F32, 2, {5760, 10, 1}, {300, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    /* more than 16 signals: the fused kernel runs them in groups
     * (zipfft__corr_signal_group), 12 of 24 and 16 of 32, here with fewer signals per call than the
     * batch, convolution and the f16 spectrum */
    {ZIPFFT_F32, 2, {256, 20, 1}, {30, 5, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 24, 24},
    {ZIPFFT_F32, 2, {256, 18, 1}, {40, 4, 1}, CONV, ZIPFFT_REGION_SAME, ZIPFFT_STORAGE_F16, 32, 21},
};

/* Fused kernels whose passes run in place (kernel_spec passes_in_place; the 2DTM shape and
 * the 5760-point columns are in the cases above): the first FFT's outputs come
 * digit-reversed, 2 digits of a radix that is no power of two (1000 = 10x10x10), 3 digits
 * (625 = 5^4), fp64 (512 = 8x8x8), rank 3 (64 = 8x8), mixed radices (480 = 10x8x6; fp64
 * 96 = 12x8), convolution and correlation, SAME, FULL and VALID regions. */
static const corr_case in_place_cases[] = {
    {ZIPFFT_F32, 2, {480, 8, 1}, {50, 3, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2},
    {ZIPFFT_F64, 2, {96, 6, 1}, {11, 2, 1}, CONV, ZIPFFT_REGION_FULL, DEF, 2, 2},
    {ZIPFFT_F32, 2, {1000, 8, 1}, {37, 3, 1}, CONV, ZIPFFT_REGION_SAME, DEF, 2, 2},
    {ZIPFFT_F32, 2, {625, 6, 1}, {100, 4, 1}, CORR, ZIPFFT_REGION_FULL, DEF, 3, 2},
    {ZIPFFT_F64, 2, {512, 6, 1}, {40, 3, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2},
    {ZIPFFT_F32, 3, {64, 6, 8}, {5, 2, 3}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2},
};

/* Plans whose intermediate array (between the fused kernel and the last pass) is stored
 * in 16 bits: VALID, SAME and FULL regions, correlation and convolution, odd lengths, prime
 * radices, the 2DTM fused kernel's shape, the f16 spectrum beside it, batch 1. Each runs
 * with an F16 and a BF16 intermediate. */
static const corr_case intermediate_cases[] = {
    {ZIPFFT_F32, 2, {24, 32, 1}, {5, 7, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    {ZIPFFT_F32, 2, {20, 18, 1}, {6, 4, 1}, CONV, ZIPFFT_REGION_SAME, DEF, 2, 1},
    {ZIPFFT_F32, 2, {34, 19, 1}, {5, 4, 1}, CORR, ZIPFFT_REGION_FULL, DEF, 2, 2},
    {ZIPFFT_F32, 2, {4096, 10, 1}, {300, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    {ZIPFFT_F32, 2, {32, 48, 1}, {9, 8, 1}, CORR, ZIPFFT_REGION_VALID, ZIPFFT_STORAGE_F16, 2, 2},
    {ZIPFFT_F32, 2, {24, 32, 1}, {5, 7, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 1, 1},
    /* 32 signals: the fused kernel's groups of 16 (zipfft__corr_signal_group) */
    {ZIPFFT_F32, 2, {1024, 10, 1}, {60, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 32, 32},
};

/* Plans whose kernels ask L2 for a later block's input (ZIPFFT_PREFETCH_AHEAD applies it on
 * the CPU too, where the prefetch only reads the bytes it names): the fused kernel of ranks 2 and 3
 * (columns; 6 columns of the Hermitian half leave the second block of 4 half empty), f16 spectrum.
 */
static const corr_case prefetch_cases[] = {
    {ZIPFFT_F32, 2, {4096, 10, 1}, {300, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3},
    {ZIPFFT_F32, 2, {4096, 6, 1}, {512, 6, 1}, CONV, ZIPFFT_REGION_FULL, ZIPFFT_STORAGE_F16, 2, 2},
    {ZIPFFT_F32, 3, {8, 6, 10}, {3, 2, 4}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2},
};

/* Copies into line the first "  kernel " line of a printed plan that contains needle (the
 * empty string when none does). */
static void kernel_line(const char *printed, const char *needle, char *line, size_t len) {
  line[0] = '\0';
  for (const char *k = strstr(printed, "  kernel "); k; k = strstr(k + 1, "  kernel ")) {
    snprintf(line, len, "%.*s", (int)strcspn(k, "\n"), k);
    if (strstr(line, needle)) return;
  }
  line[0] = '\0';
}

/* On the CPU backend: the fused kernel of c's plan prefetches (its name says _pa). */
static void check_fused_prefetches(const corr_case *c) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  char text[256], printed[8192], line[512];
  describe(c, text, sizeof text);
  zipfft_corr p = NULL;
  ZT_OK(plan_case(c, &p));
  if (!p) return;
  ZT_OK(zipfft_plan_print(p->plan, printed, sizeof printed, NULL));
  kernel_line(printed, "_fu", line, sizeof line);
  ZT_CHECK(strstr(line, "_fu") && strstr(line, "_pa"), "%s: no prefetching fused kernel:\n%s", text,
           printed);
  zipfft_corr_destroy(p);
}

/* On the CPU backend: the fused kernel of c's plan runs its passes in place (its name says
 * _ip), or with ZIPFFT_FUSED_IN_PLACE=0 (tuning) the Stockham passes. */
static void check_fused_in_place(const corr_case *c) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  for (int off = 0; off < 2; off++) {
    char text[256], printed[8192], line[512];
    describe(c, text, sizeof text);
    if (off) setenv("ZIPFFT_FUSED_IN_PLACE", "0", 1);
    zipfft_corr p = NULL;
    ZT_OK(plan_case(c, &p));
    unsetenv("ZIPFFT_FUSED_IN_PLACE");
    if (!p) return;
    ZT_OK(zipfft_plan_print(p->plan, printed, sizeof printed, NULL));
    kernel_line(printed, "_fu", line, sizeof line);
    ZT_CHECK(strstr(line, "_fu") && (strstr(line, "_ip") == NULL) == off,
             "%s: fused kernel %s in place with ZIPFFT_FUSED_IN_PLACE %s:\n%s", text,
             off ? "still" : "not", off ? "0" : "unset", printed);
    zipfft_corr_destroy(p);
  }
}

/* Barriers (__syncthreads) in the CUDA source of the fused kernel of c's plan, with
 * ZIPFFT_FUSED_IN_PLACE set to `in_place` ("1" or "0"); -1 when it cannot be had. */
static int fused_barriers(const corr_case *c, const char *in_place) {
  setenv("ZIPFFT_FUSED_IN_PLACE", in_place, 1);
  zipfft_corr p = NULL;
  ZT_OK(plan_case(c, &p));
  unsetenv("ZIPFFT_FUSED_IN_PLACE");
  char *text = NULL;
  if (!p || zipfft__plan_sources(p->plan, 1, &text) != ZIPFFT_SUCCESS) {
    zipfft_corr_destroy(p);
    return -1;
  }
  const char *marker = "// Generated by zipfft: ", *at = text, *fused = NULL;
  for (; (at = strstr(at, marker)) != NULL; at++) {
    const char *eol = strchr(at, '\n');
    const char *fu = strstr(at, "_fu");
    if (fu && eol && fu < eol) fused = at;
  }
  int count = -1;
  if (fused) {
    const char *end = strstr(fused + 1, marker);
    count = 0;
    for (const char *b = strstr(fused, "__syncthreads"); b && (!end || b < end);
         b = strstr(b + 1, "__syncthreads"))
      count++;
  }
  free(text);
  zipfft_corr_destroy(p);
  return count;
}

/* On the CPU backend: the 2DTM fused kernel has one barrier in place after each pass's
 * stores but the first FFT's last, where the Stockham passes have one more per pass after
 * the first of each FFT (guarding shared memory against overwriting): 64x64 2 and 3, as
 * 16x16x16 4 and 7. */
static void check_fused_barriers(const corr_case *c) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  static const struct {
    const char *radices; /* NULL: the plan's (64x64) */
    int in_place, stockham;
  } shapes[] = {{NULL, 2, 3}, {"16x16x16", 4, 7}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    if (shapes[i].radices) setenv("ZIPFFT_FUSED_RADICES", shapes[i].radices, 1);
    int in_place = fused_barriers(c, "1"), stockham = fused_barriers(c, "0");
    unsetenv("ZIPFFT_FUSED_RADICES");
    ZT_CHECK(in_place == shapes[i].in_place && stockham == shapes[i].stockham,
             "2DTM fused kernel (%s): %d barriers in place (want %d), %d as Stockham passes "
             "(want %d)",
             shapes[i].radices ? shapes[i].radices : "64x64", in_place, shapes[i].in_place,
             stockham, shapes[i].stockham);
  }
}

/* On the CPU backend: the 2DTM fused kernel's radices (plan/single.c, fused_radix_64): 64x64
 * with every storage of fp32 compute. The 64x64 kernels run in the 4096-point cases. */
static void check_fused_radices(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  static const struct {
    zipfft_storage spectrum, intermediate;
    const char *radices;
  } plans[] = {{DEF, DEF, "radix 64x64"},
               {ZIPFFT_STORAGE_F16, DEF, "radix 64x64"},
               {DEF, ZIPFFT_STORAGE_F16, "radix 64x64"},
               {DEF, ZIPFFT_STORAGE_BF16, "radix 64x64"},
               {ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16, "radix 64x64"}};
  for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
    const corr_case c = {ZIPFFT_F32,        2,    {4096, 10, 1},
                         {300, 4, 1},       CORR, ZIPFFT_REGION_VALID,
                         plans[i].spectrum, 3,    3};
    char printed[8192], line[512];
    zipfft_corr p = NULL;
    intermediate_storage = plans[i].intermediate;
    ZT_OK(plan_case(&c, &p));
    intermediate_storage = DEF;
    if (!p) continue;
    ZT_OK(zipfft_plan_print(p->plan, printed, sizeof printed, NULL));
    kernel_line(printed, "_fu", line, sizeof line);
    const char *axis = strstr(printed, "n=4096");
    ZT_CHECK(line[0] && axis && strstr(axis, plans[i].radices) != NULL,
             "2DTM fused kernel (spectrum %d, intermediate %d) not of %s:\n%s",
             (int)plans[i].spectrum, (int)plans[i].intermediate, plans[i].radices, printed);
    /* its spectrum in the order its threads read it; the generator refuses that layout
     * for a kernel without the spectrum multiply */
    ZT_CHECK(strstr(printed, "kept spectrum in the order the threads read it") != NULL,
             "2DTM fused kernel (spectrum %d) reads its spectrum in rows:\n%s",
             (int)plans[i].spectrum, printed);
    zipfft__kernel_spec plain = *zipfft__plan_fused_kernel(p->plan);
    plain.fused = ZIPFFT__FUSED_NONE;
    const char *refused = zipfft__check_spec(&plain);
    ZT_CHECK(refused && strstr(refused, "pairs of rows"), "aux_pairs without a multiply: %s",
             refused ? refused : "accepted");
    zipfft_corr_destroy(p);
  }
}

/* On the CPU backend: the 5760-point fused columns take 4 transforms per block of 180
 * threads (whole 32-byte sectors, widen_major_rows in plan/single.c), not 2 of 360. */
static void check_fused_whole_sectors(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  const corr_case c = {ZIPFFT_F32, 2, {5760, 10, 1}, {300, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF,
                       3,          3};
  char printed[8192];
  zipfft_corr p = NULL;
  ZT_OK(plan_case(&c, &p));
  if (!p) return;
  ZT_OK(zipfft_plan_print(p->plan, printed, sizeof printed, NULL));
  ZT_CHECK(strstr(printed, "180 threads per transform, 4 transforms per block") != NULL,
           "5760-point fused columns not 4 to a block:\n%s", printed);
  zipfft_corr_destroy(p);
}

/* The statistics kernel of the 2DTM shape (4096-point rows, signal pairs) copies its rows
 * into shared memory an iteration ahead (stage_rows, _sr) unless ZIPFFT_STATS_STAGE=0, and
 * keeps its sums of squares in registers (_sqr); the R2C pass of the zero-padded signals
 * splits in registers (mirrored, _mir). So does a 16-bit intermediate's, whose rows lie in
 * tiles of 2 (_it2; 7 rows: the last tile has one), copying whole tiles. The plans without
 * staged rows run too, and the 16-bit one with them. Plan checks on the CPU backend (its
 * plans stage as sm_90's do). */
static int check_stats_staging(void) {
  static const struct {
    int64_t rows;
    zipfft_storage intermediate;
    const char *name;
  } plans[] = {{8, DEF, "_pr_pf_sr_sqr_"}, {9, ZIPFFT_STORAGE_F16, "_it2_m2063_stat"}};
  int ran = 0;
  for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
    const corr_case c = {
        ZIPFFT_F32, 2, {plans[i].rows, 4096, 1}, {3, 100, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3};
    intermediate_storage = plans[i].intermediate;
    for (int staged = 1; staged >= 0; staged--) {
      if (!staged) setenv("ZIPFFT_STATS_STAGE", "0", 1);
      char printed[8192];
      zipfft_corr p = NULL;
      ZT_OK(plan_case(&c, &p));
      if (p && zt_zipfft_backend() == ZIPFFT_BACKEND_CPU) {
        ZT_OK(zipfft_plan_print(p->plan, printed, sizeof printed, NULL));
        int found = strstr(printed, "_pr_pf_sr_sqr_") != NULL &&
                    strstr(printed, plans[i].name) != NULL &&
                    strstr(printed, "rows copied into shared memory") != NULL;
        ZT_CHECK(found == staged, "statistics kernel %s staged rows:\n%s",
                 staged ? "without" : "with", printed);
        char line[512];
        kernel_line(printed, "zipfft_r2ch_", line, sizeof line);
        ZT_CHECK(strstr(printed, "_sqr_") && strstr(line, "_mir_"),
                 "statistics squares not in registers or R2C pass not mirrored:\n%s", printed);
      }
      zipfft_corr_destroy(p);
      if (!staged || plans[i].intermediate != DEF) ran += run_case(&c);
      unsetenv("ZIPFFT_STATS_STAGE");
    }
    intermediate_storage = DEF;
  }
  return ran;
}

/* On the CPU backend: a plan of 32 signals orders its fused kernel's transforms in 2
 * groups of 16 (its batch digits: groups, 4 tiles, 16 signals, 4 columns; kernel names
 * give each digit after the first as _b<count>i<stride>), one of 16 in a single group. */
static void check_signal_groups(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  static const struct {
    int64_t batch;
    const char *digits;
  } plans[] = {{32, "_b4i4o4_b16i"}, {16, "_b0i4o4_b16i"}};
  for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
    const corr_case c = {ZIPFFT_F32,          2,   {2048, 24, 1},  {40, 5, 1}, CORR,
                         ZIPFFT_REGION_VALID, DEF, plans[i].batch, 1};
    char printed[8192];
    zipfft_corr p = NULL;
    ZT_OK(plan_case(&c, &p));
    if (!p) continue;
    ZT_OK(zipfft_plan_print(p->plan, printed, sizeof printed, NULL));
    ZT_CHECK(strstr(printed, plans[i].digits) != NULL, "batch %lld: fused kernel not %s:\n%s",
             (long long)plans[i].batch, plans[i].digits, printed);
    zipfft_corr_destroy(p);
  }
}

/* Bad creation arguments: each named in the detail, *c left as it was. */
static void check_create_errors(void) {
  int64_t L[2] = {16, 16}, s[2] = {4, 4}, big[2] = {4, 17};
  zipfft_corr c = (zipfft_corr)(uintptr_t)1;
  zipfft_corr_config cfg = {
      .mode = CORR, .region = ZIPFFT_REGION_FULL, .backend = zt_zipfft_backend()};
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, big, 2, &cfg),
                  ZIPFFT_ERROR_INVALID_LENGTH);
  ZT_CHECK(strstr(zipfft_last_error(), "signal_lengths[1] = 17") != NULL, "detail: %s",
           zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 4, L, s, 2, &cfg), ZIPFFT_ERROR_INVALID_RANK);
  ZT_CHECK(strstr(zipfft_last_error(), "rank = 4") != NULL, "detail: %s", zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, 0, &cfg), ZIPFFT_ERROR_INVALID_BATCH);
  ZT_CHECK(strstr(zipfft_last_error(), "batch = 0") != NULL, "detail: %s", zipfft_last_error());
  cfg.spectrum_storage = ZIPFFT_STORAGE_F16;
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F64, 2, L, s, 2, &cfg),
                  ZIPFFT_ERROR_INVALID_STORAGE);
  ZT_CHECK(strstr(zipfft_last_error(), "precision = 1") != NULL, "detail: %s", zipfft_last_error());
  ZT_OK(zipfft_corr_destroy(NULL)); /* a success clears the detail */
  ZT_CHECK(zipfft_last_error()[0] == '\0', "destroy(NULL) left: %s", zipfft_last_error());
  cfg.spectrum_storage = DEF, cfg.intermediate_storage = ZIPFFT_STORAGE_F16;
  int64_t L3[3] = {8, 8, 8}, s3[3] = {2, 2, 2};
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 3, L3, s3, 2, &cfg),
                  ZIPFFT_ERROR_INVALID_STORAGE);
  ZT_CHECK(strstr(zipfft_last_error(), "intermediate_storage = 1 with rank 3") != NULL,
           "detail: %s", zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F64, 2, L, s, 2, &cfg),
                  ZIPFFT_ERROR_INVALID_STORAGE);
  ZT_CHECK(strstr(zipfft_last_error(), "precision = 1") != NULL, "detail: %s", zipfft_last_error());
  cfg.intermediate_storage = (zipfft_storage)9;
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, 2, &cfg),
                  ZIPFFT_ERROR_INVALID_STORAGE);
  ZT_CHECK(strstr(zipfft_last_error(), "intermediate_storage = 9") != NULL, "detail: %s",
           zipfft_last_error());
  cfg.intermediate_storage = DEF, cfg.region = (zipfft_corr_region)7;
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, 2, &cfg),
                  ZIPFFT_ERROR_INVALID_ARGUMENT);
  ZT_CHECK(strstr(zipfft_last_error(), "region = 7") != NULL, "detail: %s", zipfft_last_error());
  int64_t prime[2] = {74, 16}; /* circular regions keep the length: 37 is Bluestein's */
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, prime, s, 2, NULL),
                  ZIPFFT_ERROR_UNSUPPORTED_LENGTH);
  ZT_CHECK(strstr(zipfft_last_error(), "FFT length 74") != NULL,
           "the refusal does not name the FFT length: %s", zipfft_last_error());
  ZT_CHECK(c == (zipfft_corr)(uintptr_t)1, "a failed create changed *c");
}

/* Calls out of order or with bad arguments on a made plan: each named in the detail. */
static void check_call_errors(void) {
  int64_t L[2] = {16, 16}, s[2] = {4, 4};
  zipfft_corr c = NULL;
  zipfft_corr_config cfg = {
      .mode = CORR, .region = ZIPFFT_REGION_FULL, .backend = zt_zipfft_backend()};
  ZT_OK(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, 2, &cfg));
  void *buf = zt_mem_alloc(16 * 40 * 4); /* more than a filter of this plan holds */
  ZT_CHECK_STATUS(zipfft_corr_execute(c, buf, 1, buf, NULL), ZIPFFT_ERROR_INVALID_ARGUMENT);
  ZT_CHECK(strstr(zipfft_last_error(), "no filter") != NULL, "detail: %s", zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_finalize(c, NULL, NULL, NULL, NULL, NULL),
                  ZIPFFT_ERROR_INVALID_ARGUMENT);
  ZT_CHECK_STATUS(zipfft_corr_set_filter(c, NULL), ZIPFFT_ERROR_NULL_POINTER);
  ZT_CHECK(strstr(zipfft_last_error(), "filter is NULL") != NULL, "detail: %s",
           zipfft_last_error());
  float zeros[16 * 40] = {0};
  zt_mem_upload(buf, zeros, sizeof zeros);
  ZT_OK(zipfft_corr_set_filter(c, buf));
  ZT_CHECK_STATUS(zipfft_corr_execute(c, buf, 3, buf, NULL), ZIPFFT_ERROR_INVALID_BATCH);
  ZT_CHECK(strstr(zipfft_last_error(), "count = 3") != NULL, "detail: %s", zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_accumulate(c, buf, 1, 0, NULL), ZIPFFT_ERROR_INVALID_ARGUMENT);
  ZT_OK(zipfft_corr_stats_reset(c, NULL));
  ZT_CHECK_STATUS(zipfft_corr_accumulate(c, buf, 1, -4, NULL), ZIPFFT_ERROR_INVALID_ARGUMENT);
  /* A first index in range whose batch runs past 2^31 - 1: the message names the count. */
  ZT_CHECK_STATUS(zipfft_corr_accumulate(c, buf, 2, INT32_MAX, NULL),
                  ZIPFFT_ERROR_INVALID_ARGUMENT);
  ZT_CHECK(strstr(zipfft_last_error(), "count = 2") && strstr(zipfft_last_error(), "2147483648"),
           "detail: %s", zipfft_last_error());
  int32_t index[256];
  ZT_OK(zipfft_corr_finalize(c, NULL, index, NULL, NULL, NULL));
  ZT_CHECK(index[0] == -1 && index[255] == -1, "index before any accumulation: %d", index[0]);
  zipfft_corr_destroy(c);
  zt_mem_free(buf);
}

/* A Rader last axis (37): correlations run (against the naive sums), the statistics are
 * refused. */
static void check_rader_statistics_refused(void) {
  zipfft_corr c = NULL;
  const corr_case rader = {ZIPFFT_F32,         2,   {8, 37, 1}, {2, 3, 1}, CORR,
                           ZIPFFT_REGION_FULL, DEF, 1,          1};
  double *rf, *rs;
  void *drf = upload_reals(&rader, 8 * 37, 0xF17, &rf), *drs = upload_reals(&rader, 6, 0x51C, &rs);
  ZT_OK(plan_case(&rader, &c));
  ZT_OK(zipfft_corr_set_filter(c, drf));
  ZT_CHECK_STATUS(zipfft_corr_stats_reset(c, NULL), ZIPFFT_ERROR_UNSUPPORTED_LENGTH);
  ZT_CHECK(strstr(zipfft_last_error(), "zipfft_corr_stats_reset") &&
               strstr(zipfft_last_error(), "last axis of 37 (a Rader or Bluestein length)"),
           "detail: %s", zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_accumulate(c, drs, 1, 0, NULL), ZIPFFT_ERROR_UNSUPPORTED_LENGTH);
  ZT_CHECK(strstr(zipfft_last_error(), "zipfft_corr_accumulate") != NULL, "detail: %s",
           zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_finalize(c, NULL, NULL, NULL, NULL, NULL),
                  ZIPFFT_ERROR_INVALID_ARGUMENT);
  double *got = run_outputs(&rader, c, drs, 8 * 37);
  double e = output_error(&rader, rf, rs, got, rader.lengths);
  ZT_CHECK(e <= 1e-5, "Rader last axis: relative L2 error %.3g", e);
  free(got), free(rf), free(rs), zt_mem_free(drf), zt_mem_free(drs);
  zipfft_corr_destroy(c);
}

/* Batches and accumulation counts at the limits of what a plan can count. */
static void check_batch_limits(void) {
  int64_t L[2] = {16, 16}, s[2] = {4, 4};
  zipfft_corr c = NULL;
  zipfft_corr_config cfg = {
      .mode = CORR, .region = ZIPFFT_REGION_FULL, .backend = zt_zipfft_backend()};
  float zeros[16 * 40] = {0}; /* more than a filter of this plan holds */
  void *buf = zt_mem_alloc(sizeof zeros);
  zt_mem_upload(buf, zeros, sizeof zeros);
  int64_t huge = (int64_t)1 << 50;
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, huge, &cfg), ZIPFFT_ERROR_TOO_LARGE);
  /* A rank-1 plan takes any batch up to 2^58 elements in all (2^54 of 16 points); one more
   * signal is refused, naming the batch. A count of 2^54 from index 1 is refused without
   * overflowing the check, the message giving the last index. */
  int64_t line = 16, point = 4, most = (int64_t)1 << 54;
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 1, &line, &point, most + 1, &cfg),
                  ZIPFFT_ERROR_TOO_LARGE);
  ZT_CHECK(strstr(zipfft_last_error(), "batch = 18014398509481985") != NULL, "detail: %s",
           zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 1, &line, &point, INT64_MAX, &cfg),
                  ZIPFFT_ERROR_TOO_LARGE);
  ZT_OK(zipfft_corr_create(&c, ZIPFFT_F32, 1, &line, &point, most, &cfg));
  ZT_OK(zipfft_corr_set_filter(c, buf));
  ZT_OK(zipfft_corr_stats_reset(c, NULL));
  ZT_CHECK_STATUS(zipfft_corr_accumulate(c, buf, most, 1, NULL), ZIPFFT_ERROR_INVALID_ARGUMENT);
  ZT_CHECK(strstr(zipfft_last_error(), "up to 18014398509481984") != NULL, "detail: %s",
           zipfft_last_error());
  zipfft_corr_destroy(c);
  zt_mem_free(buf);
  ZT_OK(zipfft_corr_destroy(NULL));
}

/* Bad arguments: each named in the detail, nothing created. */
static void check_errors(void) {
  check_create_errors();
  check_call_errors();
  check_rader_statistics_refused();
  check_batch_limits();
}

/* The plan's memory check counts the kept spectrum: with the backend's memory capped
 * (ZIPFFT_MEMORY_LIMIT) one byte below workspace + tables + spectrum, creation fails with
 * TOO_LARGE naming the spectrum and leaves *c alone; at exactly that sum it succeeds. The
 * sum comes from the message at a limit of 1 byte. */
static void check_spectrum_memory(void) {
  int64_t L[2] = {64, 48}, s[2] = {8, 8};
  zipfft_corr_config cfg = {.mode = CORR, .backend = zt_zipfft_backend()};
  zipfft_corr c = (zipfft_corr)(uintptr_t)1;
  setenv("ZIPFFT_MEMORY_LIMIT", "1", 1);
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, 3, &cfg), ZIPFFT_ERROR_TOO_LARGE);
  unsigned long long workspace = 0, tables = 0, kept = 0;
  const char *at = strstr(zipfft_last_error(), "needs ");
  int fields = at ? sscanf(at, "needs %llu bytes of workspace, %llu of tables, %llu of kept",
                           &workspace, &tables, &kept)
                  : 0;
  /* 64 rows of 48 / 2 + 1 = 25 complex values pitched to 32, 8 bytes each */
  ZT_CHECK(fields == 3 && kept == 64 * 32 * 8, "message: %s", zipfft_last_error());
  char limit[32];
  snprintf(limit, sizeof limit, "%llu", workspace + tables + kept - 1);
  setenv("ZIPFFT_MEMORY_LIMIT", limit, 1);
  ZT_CHECK_STATUS(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, 3, &cfg), ZIPFFT_ERROR_TOO_LARGE);
  ZT_CHECK(strstr(zipfft_last_error(), "of kept spectrum") != NULL, "message: %s",
           zipfft_last_error());
  ZT_CHECK(c == (zipfft_corr)(uintptr_t)1, "a refused zipfft_corr_create changed *c");
  snprintf(limit, sizeof limit, "%llu", workspace + tables + kept);
  setenv("ZIPFFT_MEMORY_LIMIT", limit, 1);
  ZT_CHECK(zipfft_corr_create(&c, ZIPFFT_F32, 2, L, s, 3, &cfg) == ZIPFFT_SUCCESS,
           "with %s bytes: %s", limit, zipfft_last_error());
  unsetenv("ZIPFFT_MEMORY_LIMIT");
  if (c != (zipfft_corr)(uintptr_t)1) zipfft_corr_destroy(c);
}

/* Ties resolve to the lowest index. The statistics kernel transforms two signals as one
 * complex transform, so two identical signals agree only to rounding; exact ties come from
 * two zero signals (every output 0), and from the same two signals accumulated again under
 * lower and then higher indices: each pixel keeps the lowest index that reached its
 * maximum. */
static void check_ties(zipfft_corr p, const void *dpair, int64_t plane) {
  int32_t *index = malloc((size_t)plane * sizeof *index),
          *first = malloc((size_t)plane * sizeof *first);
  void *dzeros = zt_mem_alloc(70 * 8);
  double zeros[70] = {0};
  if (dzeros) zt_mem_upload(dzeros, zeros, sizeof zeros);
  ZT_OK(zipfft_corr_stats_reset(p, NULL));
  ZT_OK(zipfft_corr_accumulate(p, dzeros, 2, 7, NULL));
  ZT_OK(zipfft_corr_finalize(p, NULL, index, NULL, NULL, NULL));
  int64_t wrong = 0;
  for (int64_t i = 0; i < plane; i++) wrong += index[i] != 7;
  ZT_CHECK(wrong == 0, "ties of zero signals: %lld indices are not 7", (long long)wrong);
  const int32_t firsts[3] = {5, 1, 9}, shift[3] = {0, 4, 4};
  ZT_OK(zipfft_corr_stats_reset(p, NULL));
  for (int call = 0; call < 3; call++) {
    ZT_OK(zipfft_corr_accumulate(p, dpair, 2, firsts[call], NULL));
    ZT_OK(zipfft_corr_finalize(p, NULL, index, NULL, NULL, NULL));
    wrong = 0;
    for (int64_t i = 0; i < plane; i++) {
      if (call == 0) first[i] = index[i];
      wrong += call == 0 ? index[i] != 5 && index[i] != 6 : index[i] != first[i] - shift[call];
    }
    ZT_CHECK(wrong == 0, "ties, call %d (first index %d): %lld indices wrong", call, firsts[call],
             (long long)wrong);
  }
  zt_mem_free(dzeros);
  free(index), free(first);
}

/* A NaN in one signal of a call: its outputs (and at ranks 2 and 3 its pair's) never
 * become a maximum, and the mean, standard deviation and z-score are NaN at every position
 * (not 0, which would hide the bad input). */
static void check_non_finite(zipfft_corr p, const double *signals, int64_t plane) {
  double bad[70];
  for (int i = 0; i < 70; i++) bad[i] = signals[i % 35];
  bad[3] = NAN;
  void *dbad = zt_mem_alloc(sizeof bad);
  float *max = malloc((size_t)plane * sizeof *max), *mean = malloc((size_t)plane * sizeof *mean);
  float *sd = malloc((size_t)plane * sizeof *sd), *z = malloc((size_t)plane * sizeof *z);
  int32_t *index = malloc((size_t)plane * sizeof *index);
  if (dbad && max && mean && sd && z && index) {
    for (int64_t i = 0; i < plane; i++) /* the opposite of what each map must hold */
      max[i] = NAN, mean[i] = sd[i] = z[i] = -7, index[i] = 40;
    zt_mem_upload(dbad, bad, sizeof bad);
    ZT_OK(zipfft_corr_stats_reset(p, NULL));
    ZT_OK(zipfft_corr_accumulate(p, dbad, 2, 40, NULL));
    ZT_OK(zipfft_corr_finalize(p, max, index, mean, sd, z));
    int64_t wrong = 0;
    for (int64_t i = 0; i < plane; i++)
      wrong += index[i] == 40 || isnan(max[i]) || !isnan(mean[i]) || !isnan(sd[i]) || !isnan(z[i]);
    ZT_CHECK(wrong == 0, "a NaN signal: %lld positions took it as the maximum or kept finite sums",
             (long long)wrong);
  }
  zt_mem_free(dbad);
  free(max), free(mean), free(sd), free(z), free(index);
}

/* A spectrum given directly (zipfft_corr_set_filter_spectrum): the filter's R2C spectrum
 * by a zipfft plan, then the same outputs as the naive sums; then the ties (check_ties)
 * with two identical signals. */
static void check_spectrum_and_ties(void) {
  const corr_case c = {ZIPFFT_F64, 2, {24, 32, 1}, {5, 7, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 2, 2};
  zipfft_corr p = NULL;
  ZT_OK(plan_case(&c, &p));
  if (!p) return;
  int64_t out[3], fft[3], half = c.lengths[1] / 2 + 1;
  ZT_OK(zipfft_corr_output_lengths(p, out));
  ZT_OK(zipfft_corr_fft_lengths(p, fft));
  ZT_CHECK(fft[0] == 24 && fft[1] == 32, "fft lengths %lldx%lld", (long long)fft[0],
           (long long)fft[1]);
  double *filter, *signals;
  void *dfilter = upload_reals(&c, 24 * 32, 0xF17, &filter);
  void *dsignals = upload_reals(&c, 35, 0x51C, &signals);
  void *dspectrum = zt_mem_alloc((size_t)(24 * half) * 16);
  zipfft_desc d = NULL;
  zipfft_plan r2c = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_R2C, ZIPFFT_F64, 2, c.lengths));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_OK(zipfft_plan_create(&r2c, d));
  ZT_OK(zipfft_execute(r2c, dfilter, dspectrum, NULL));
  ZT_OK(zipfft_corr_set_filter_spectrum(p, dspectrum));
  /* two identical signals: */
  double *sig2 = malloc(70 * sizeof *sig2);
  for (int i = 0; i < 70; i++) sig2[i] = signals[i % 35];
  void *dpair = zt_mem_alloc(70 * 8);
  zt_mem_upload(dpair, sig2, 70 * 8);
  corr_case one = c;
  one.count = 1;
  double *got = run_outputs(&one, p, dsignals, out[0] * out[1]);
  double err = output_error(&one, filter, signals, got, out);
  ZT_CHECK(err < 1e-12, "spectrum given directly: relative L2 error %.3g", err);
  check_ties(p, dpair, 20 * 26);
  check_non_finite(p, signals, 20 * 26);
  /* An arbitrary complex spectrum (no real filter has it): the intermediate rows' DC and
   * Nyquist terms then have imaginary parts, which the C2R stage ignores; the statistics
   * (signals in pairs) must agree with the outputs (the half-length kernel). */
  double *noise;
  void *dnoise = upload_reals(&c, 24 * half * 2, 0xA5B, &noise);
  ZT_OK(zipfft_corr_set_filter_spectrum(p, dnoise));
  check_statistics(&c, p, out[0] * out[1], "arbitrary spectrum");
  free(noise);
  zt_mem_free(dnoise);
  free(got), free(sig2), free(filter), free(signals);
  zt_mem_free(dfilter), zt_mem_free(dsignals), zt_mem_free(dspectrum), zt_mem_free(dpair);
  zipfft_plan_destroy(r2c);
  zipfft_desc_destroy(d);
  zipfft_corr_destroy(p);
}

/* Ties in the statistics kernel of one signal per call (batch 1: the half-length kernel,
 * not the signal-pair one): zero signals give every output 0, so each pixel keeps the
 * lowest index accumulated so far (7, then 3 below it, then 3 again against 9). */
static void check_ties_one_signal(void) {
  const corr_case c = {ZIPFFT_F32, 2, {24, 32, 1}, {5, 7, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 1, 1};
  enum { plane = 20 * 26 };
  zipfft_corr p = NULL;
  ZT_OK(plan_case(&c, &p));
  double *filter;
  const float zeros[35] = {0};
  void *dfilter = upload_reals(&c, 24 * 32, 0xF17, &filter), *dzeros = zt_mem_alloc(sizeof zeros);
  int32_t *index = malloc(plane * sizeof *index);
  if (p && dzeros && index) {
    zt_mem_upload(dzeros, zeros, sizeof zeros);
    ZT_OK(zipfft_corr_set_filter(p, dfilter));
    ZT_OK(zipfft_corr_stats_reset(p, NULL));
    static const int32_t firsts[3] = {7, 3, 9}, kept[3] = {7, 3, 3};
    for (int call = 0; call < 3; call++) {
      ZT_OK(zipfft_corr_accumulate(p, dzeros, 1, firsts[call], NULL));
      for (int i = 0; i < plane; i++) index[i] = -7; /* poison */
      ZT_OK(zipfft_corr_finalize(p, NULL, index, NULL, NULL, NULL));
      int wrong = 0;
      for (int i = 0; i < plane; i++) wrong += index[i] != kept[call];
      ZT_CHECK(wrong == 0, "one-signal ties, call %d (index %d): %d pixels not %d", call,
               firsts[call], wrong, kept[call]);
    }
  }
  free(index), free(filter);
  zt_mem_free(dfilter), zt_mem_free(dzeros);
  zipfft_corr_destroy(p);
}

/* The 2DTM plan's kernels (4096x4096 image, 512x512 templates; batch 2 keeps the arrays
 * small, the kernels are the batch-16 plan's shapes) compile for sm_90 without more register
 * spills than noted below, with each storage. NVRTC addresses shared
 * memory with 64-bit pointers, and shared-memory indices computed per element once made the fused
 * kernel spill 40 bytes per thread at its 64 registers, which cost the search 6-7% on an H100
 * (docs/perf/2026-11-25-h100-2dtm-spills.md). Needs NVRTC; the CPU run checks it. */
static void check_2dtm_spills(void) {
  if (zt_backend() != ZT_BACKEND_CPU || !zipfft__nvrtc_available()) return;
  int64_t image[2] = {4096, 4096}, templ[2] = {512, 512};
  /* The 16-bit stores of a 16-bit intermediate leave the fused kernel (64 registers) a
   * few bytes short (4 with the row-pair addresses or without them); measured with 8
   * bytes spilled, that plan ran 9% faster than the fp32 one
   * (docs/perf/2026-11-26-h100-16bit-intermediate.md). Since the fused kernels run as
   * 64x64 (64 threads a column) none spills. */
  static const struct {
    const char *name;
    zipfft_storage spectrum, intermediate;
    long spill_limit;
  } variants[] = {{"f32", DEF, DEF, 0},
                  {"f16 spectrum", ZIPFFT_STORAGE_F16, DEF, 0},
                  {"f16 intermediate", DEF, ZIPFFT_STORAGE_F16, 8}};
  for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
    zipfft_corr c = NULL;
    zipfft_corr_config cfg = {.mode = CORR,
                              .region = ZIPFFT_REGION_VALID,
                              .spectrum_storage = variants[v].spectrum,
                              .backend = zt_zipfft_backend(),
                              .intermediate_storage = variants[v].intermediate};
    ZT_OK(zipfft_corr_create(&c, ZIPFFT_F32, 2, image, templ, 2, &cfg));
    if (!c) continue;
    long bytes = -1;
    char kernel[2 * ZIPFFT__KERNEL_NAME_MAX];
    ZT_OK(zipfft__plan_cuda_spills(c->plan, "sm_90", &bytes, kernel, sizeof kernel));
    ZT_CHECK(bytes <= variants[v].spill_limit, "2DTM plan, %s: %ld bytes of register spills in %s",
             variants[v].name, bytes, kernel);
    /* fp32 compute reads the kept spectrum in pairs (spectrum_in_read_order in plan/corr.c) */
    const zipfft__kernel_spec *fused = zipfft__plan_fused_kernel(c->plan);
    ZT_CHECK(fused && fused->aux_pairs,
             "2DTM plan, %s: the fused kernel reads its spectrum in pairs of rows",
             variants[v].name);
    zipfft_corr_destroy(c);
  }
}

int main(void) {
  if (!zt_device_ready()) return zt_finish("test_corr", 0);
  if (zt_part_read() < 0) return zt_finish("test_corr", 0);
  /* The checks that are not cases are dealt round the parts as the cases are
   * (zt_case_in_part), so that each runs in one part and the parts take similar times. */
  if (zt_case_in_part()) check_2dtm_spills();
  int ran = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) ran += run_case(&cases[i]);
  for (size_t i = 0; i < sizeof in_place_cases / sizeof *in_place_cases; i++) {
    if (zt_case_in_part()) check_fused_in_place(&in_place_cases[i]);
    ran += run_case(&in_place_cases[i]);
  }
  /* the 2DTM fused kernel's shape */
  const corr_case fused_2dtm = {
      ZIPFFT_F32, 2, {4096, 10, 1}, {300, 4, 1}, CORR, ZIPFFT_REGION_VALID, DEF, 3, 3};
  if (zt_case_in_part()) check_fused_in_place(&fused_2dtm);
  if (zt_case_in_part()) check_fused_barriers(&fused_2dtm);
  /* the same as 16x16x16 (three passes each way, the 2DTM kernel's radices until session
   * 48; other lengths' fused kernels still take three or more passes) */
  setenv("ZIPFFT_FUSED_RADICES", "16x16x16", 1);
  ran += run_case(&fused_2dtm);
  unsetenv("ZIPFFT_FUSED_RADICES");
  setenv("ZIPFFT_PREFETCH_AHEAD", "2", 1); /* the fused kernel as CUDA runs it */
  if (zt_case_in_part()) check_2dtm_spills();
  for (size_t i = 0; i < sizeof prefetch_cases / sizeof *prefetch_cases; i++) {
    if (zt_case_in_part()) check_fused_prefetches(&prefetch_cases[i]);
    ran += run_case(&prefetch_cases[i]);
  }
  unsetenv("ZIPFFT_PREFETCH_AHEAD");
  static const zipfft_storage sixteen_bits[] = {ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_BF16};
  for (size_t b = 0; b < sizeof sixteen_bits / sizeof *sixteen_bits; b++) {
    intermediate_storage = sixteen_bits[b];
    for (size_t i = 0; i < sizeof intermediate_cases / sizeof *intermediate_cases; i++)
      ran += run_case(&intermediate_cases[i]);
  }
  /* Outputs near 5000: an F16 intermediate holding sqrt(N) times them would overflow; it
   * holds at most their magnitude (the fused kernel applies the last pass's scale). */
  intermediate_storage = ZIPFFT_STORAGE_F16, value_scale = 12;
  ran += run_case(&intermediate_cases[3]);
  intermediate_storage = ZIPFFT_STORAGE_DEFAULT, value_scale = 1;
  /* An fp32 intermediate in tiles of 4 rows (ZIPFFT_CORR_ROW_TILE, tuning): the fused
   * kernel's tiled stores and the last pass's tiled loads, last tiles partial (34 and 3797
   * rows). */
  setenv("ZIPFFT_CORR_ROW_TILE", "4", 1);
  for (size_t i = 0; i < sizeof intermediate_cases / sizeof *intermediate_cases; i++)
    ran += run_case(&intermediate_cases[i]);
  /* A 16-bit intermediate as plain rows (tile 1): the R2C pass's fp32 rows go to the
   * workspace, not into the 16-bit intermediate, which they would overrun (without the fix,
   * these three runs corrupt the heap and the test aborts). */
  setenv("ZIPFFT_CORR_ROW_TILE", "1", 1);
  intermediate_storage = ZIPFFT_STORAGE_F16;
  for (size_t i = 0; i < 3; i++) ran += run_case(&intermediate_cases[i]);
  intermediate_storage = ZIPFFT_STORAGE_DEFAULT;
  unsetenv("ZIPFFT_CORR_ROW_TILE");
  ran += check_stats_staging(); /* a case: every part meets it */
  void (*const checks[])(void) = {check_fused_whole_sectors, check_fused_radices,
                                  check_signal_groups, check_filter_replaced, check_errors};
  for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
    if (zt_case_in_part()) checks[i]();
  /* these three count as cases */
  void (*const counted[])(void) = {check_spectrum_memory, check_spectrum_and_ties,
                                   check_ties_one_signal};
  for (size_t i = 0; i < sizeof counted / sizeof *counted; i++)
    if (zt_case_in_part()) counted[i](), ran++;
  printf("test_corr (%s): %d cases run\n", zt_backend_name(), ran);
  return zt_finish_cases("test_corr", ran);
}
