/* test_storage.c - fp16 and bfloat16 storage: conversions checked bit by bit against an
 * independent decoder (round to nearest even, subnormals, overflow, NaN), C2C, R2C and C2R
 * transforms of ranks 1 and 2 at the storage precision (swept over lengths and shapes in
 * the full tier), and the bad combinations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "reference.h"
#include "test_util.h"

typedef double (*decoder)(unsigned);

/* Runs a length-1 transform (a copy through the kernel's loads and stores) of count
 * complex values from `in` (storage s_in) to `out` (storage s_out); 1 on success. */
static int copy_through(zipfft_storage s_in, zipfft_storage s_out, int64_t count, zt_buffer *in,
                        zt_buffer *out) {
  int64_t one = 1;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &one));
  ZT_OK(zipfft_desc_set_batch(d, count));
  ZT_OK(zipfft_desc_set_storage(d, s_in, s_out));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  zipfft_status s = zipfft_plan_create(&p, d);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "plan: %s", zipfft_last_error());
  if (s == ZIPFFT_SUCCESS) zt_check_cuda_source(p, "16-bit copy");
  if (s == ZIPFFT_SUCCESS) ZT_OK(zt_execute(p, in, out, NULL));
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  return s == ZIPFFT_SUCCESS;
}

/* Every 16-bit pattern loads as exactly its decoded value (NaN as NaN). */
static void test_decode_all(zipfft_storage storage, decoder decode, const char *name) {
  enum { patterns = 65536 };
  zt_buffer in = zt_buffer_alloc(patterns * 2, 0), out = zt_buffer_alloc(patterns * 4, 0);
  zt_buffer_poison(&out, 4);
  /* then 0.1, which no 16-bit pattern decodes to: an output left unwritten fails at the NaN
   * patterns too (NaN poison would pass there) */
  for (unsigned h = 0; h < patterns; h++) memcpy(out.data + 4 * h, &(float){0.1f}, 4);
  for (unsigned h = 0; h < patterns; h++) memcpy(in.data + 2 * h, &(uint16_t){(uint16_t)h}, 2);
  int bad = 0;
  if (copy_through(storage, ZIPFFT_STORAGE_DEFAULT, patterns / 2, &in, &out))
    for (unsigned h = 0; h < patterns; h++) {
      float got;
      memcpy(&got, out.data + 4 * h, 4);
      double want = decode(h);
      bad += isnan(want) ? !isnan(got) : (double)got != want;
    }
  ZT_CHECK(bad == 0, "%s: %d of 65536 patterns decoded wrongly", name, bad);
  ZT_CHECK(zt_buffer_guards_intact(&out), "%s decode: guard written", name);
  zt_buffer_free(&in);
  zt_buffer_free(&out);
}

/* Largest finite value plus half an ulp: at and above it, round to nearest even gives inf. */
static double overflow_threshold(decoder decode, unsigned max_finite, unsigned inf) {
  (void)inf;
  double top = decode(max_finite), below = decode(max_finite - 1);
  return top + (top - below) / 2;
}

/* 1 when pattern h is the round-to-nearest-even encoding of x. */
static int is_nearest(double x, unsigned h, decoder decode, unsigned inf) {
  unsigned sign = x < 0 || (x == 0 && signbit(x)) ? 0x8000u : 0;
  double ax = fabs(x);
  if ((h & 0x8000u) != sign) return 0;
  unsigned m = h & 0x7fffu;
  int overflows = ax >= overflow_threshold(decode, inf - 1, inf); /* infinity too */
  if (overflows || m == inf) return overflows && m == inf;
  if (m > inf) return 0;
  double d = fabs(decode(m) - ax);
  if (m > 0 && fabs(decode(m - 1) - ax) < d) return 0;
  if (m + 1 < inf && fabs(decode(m + 1) - ax) < d) return 0;
  int tie =
      (m > 0 && fabs(decode(m - 1) - ax) == d) || (m + 1 < inf && fabs(decode(m + 1) - ax) == d);
  return !tie || (m & 1u) == 0;
}

/* Values that exercise every rounding path, then pseudo-random ones over the range. */
static float encode_input(int i, double range_log2) {
  static const float special[] = {0.0f,
                                  -0.0f,
                                  1.0f,
                                  -1.0f,
                                  1.00048828125f /* 1 + 2^-11 */,
                                  1.00146484375f,
                                  2.98023223876953125e-8f /* 2^-25 */,
                                  2.9802326e-8f,
                                  5.96046448e-8f,
                                  6.1e-5f,
                                  65504.0f,
                                  65519.0f,
                                  65520.0f,
                                  65536.0f,
                                  3.3e38f,
                                  1e-40f,
                                  0.3333333f};
  const int n_special = (int)(sizeof special / sizeof *special);
  if (i < n_special) return special[i];
  double u = zt_uniform(0x57, (uint64_t)i) + 0.5, v = zt_uniform(0x58, (uint64_t)i);
  return (float)(ldexp(1.0 + u, (int)floor(v * 2 * range_log2)) * (i & 1 ? -1 : 1));
}

/* f32 values stored as 16 bits: every result is the nearest-even encoding; NaN stays NaN. */
static void test_encode(zipfft_storage storage, decoder decode, unsigned inf, double range_log2,
                        const char *name) {
  enum { values = 20000 };
  zt_buffer in = zt_buffer_alloc(values * 4, 0), out = zt_buffer_alloc(values * 2, 0);
  zt_buffer_poison(&out, 4);
  memset(out.data, 0xAA, values * 2);
  for (int i = 0; i < values; i++) {
    float x = i == values - 1 ? NAN : i == values - 2 ? INFINITY : encode_input(i, range_log2);
    memcpy(in.data + 4 * i, &x, 4);
  }
  int bad = 0, first = -1;
  if (copy_through(ZIPFFT_STORAGE_DEFAULT, storage, values / 2, &in, &out))
    for (int i = 0; i < values; i++) {
      float x;
      uint16_t h;
      memcpy(&x, in.data + 4 * i, 4);
      memcpy(&h, out.data + 2 * i, 2);
      int ok = isnan(x) ? isnan(decode(h)) : is_nearest(x, h, decode, inf);
      if (!ok && first < 0) first = i;
      bad += !ok;
    }
  ZT_CHECK(bad == 0, "%s: %d of %d values not rounded to nearest even (first: index %d)", name, bad,
           values, first);
  ZT_CHECK(zt_buffer_guards_intact(&out), "%s encode: guard written", name);
  zt_buffer_free(&in);
  zt_buffer_free(&out);
}

typedef struct storage_case {
  int rank;
  int64_t lengths[2];
  zipfft_storage in, out;
  int inplace;
} storage_case;

/* Value i of an array stored in s (16 bits, or fp32 for the default). */
static double get_stored(const unsigned char *data, int64_t i, zipfft_storage s) {
  float f;
  if (s != ZIPFFT_STORAGE_DEFAULT) return zt_get16(data, i, s);
  memcpy(&f, data + 4 * i, 4);
  return f;
}

/* The error bound of a transform whose output is stored in s: twice its roundoff per axis,
 * plus the fp32 compute's. */
static double storage_gate(zipfft_storage s, int rank, int64_t n) {
  double u = s == ZIPFFT_STORAGE_F16 ? 0x1p-11 : s == ZIPFFT_STORAGE_BF16 ? 0x1p-8 : 0x1p-24;
  return 2 * u * rank + 10 * 0x1p-24 * sqrt(log2((double)n));
}

/* A transform with 16-bit storage: inputs exactly representable, result within a few units
 * of the storage format's roundoff of the long-double reference. */
static void test_transform(const storage_case *c) {
  int64_t n = c->lengths[0] * (c->rank == 2 ? c->lengths[1] : 1), batch = 3;
  size_t in_bytes = (size_t)(n * batch) * 4, out_bytes = in_bytes;
  zt_buffer in = zt_buffer_alloc(in_bytes, 0),
            out = c->inplace ? in : zt_buffer_alloc(out_bytes, 0);
  zt_buffer_poison(&in, 4);
  zt_buffer_poison(&out, 4);
  memset(out.data, 0xFF, out_bytes); /* 0xFFFF is NaN in both 16-bit formats */
  long double *ref = zr_alloc_pairs((size_t)(n * batch));
  for (int64_t i = 0; i < 2 * n * batch; i++)
    ref[i] = zt_put16(in.data, i, c->in, zt_uniform(0x16, (uint64_t)i));
  zr_dft_nd(ref, c->rank, c->lengths, batch, -1);
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, c->rank, c->lengths));
  ZT_OK(zipfft_desc_set_batch(d, batch));
  ZT_OK(zipfft_desc_set_storage(d, c->in, c->out));
  ZT_OK(zipfft_desc_set_placement(d, c->inplace ? ZIPFFT_INPLACE : ZIPFFT_OUTOFPLACE));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_OK(zipfft_plan_create(&p, d));
  if (p) zt_check_cuda_source(p, "16-bit storage transform");
  unsigned char *snap = malloc(in_bytes);
  memcpy(snap, in.data, in_bytes);
  if (p) ZT_OK(zt_execute(p, &in, c->inplace ? &in : &out, NULL));
  ZT_CHECK(c->inplace || memcmp(snap, in.data, in_bytes) == 0, "rank %d n=%lld: input modified",
           c->rank, (long long)n);
  free(snap);
  double *got = malloc((size_t)(n * batch) * 2 * sizeof *got);
  for (int64_t i = 0; i < 2 * n * batch; i++)
    got[i] = zt_get16((c->inplace ? in : out).data, i, c->out);
  double err = zr_worst_rel_l2(ref, got, (size_t)n, (size_t)batch);
  double gate = storage_gate(c->out, c->rank, n);
  ZT_CHECK(err <= gate, "rank %d n=%lld storage %d->%d%s: error %.3g above %.3g", c->rank,
           (long long)n, (int)c->in, (int)c->out, c->inplace ? " in-place" : "", err, gate);
  ZT_CHECK(zt_buffer_guards_intact(&in) && zt_buffer_guards_intact(&out), "guard written");
  free(got);
  free(ref);
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  zt_buffer_free(&in);
  if (!c->inplace) zt_buffer_free(&out);
}

/* R2C or C2R with a 16-bit input (the output 16-bit or fp32), batch 2, out of place: rank
 * 1 or 2, n = lengths' product, the last axis's half h = lengths[last] / 2 + 1. */
typedef struct real_storage_case {
  zipfft_type type;
  int rank;
  int64_t lengths[2];
  zipfft_storage in, out;
} real_storage_case;

enum { real_batch = 2 };

/* Complex values per transform on the half-spectrum side. */
static int64_t half_count(const real_storage_case *c) {
  return (c->rank == 2 ? c->lengths[0] : 1) * (c->lengths[c->rank - 1] / 2 + 1);
}

/* The full spectrum (pairs, every transform) of the half spectrum h of real data:
 * F[k0][k1] = h[k0][k1] for k1 <= n1/2, else conj(h[-k0][n1 - k1]). */
static long double *expand_half(const real_storage_case *c, const long double *h) {
  int64_t rows = c->rank == 2 ? c->lengths[0] : 1, n1 = c->lengths[c->rank - 1], half = n1 / 2 + 1;
  long double *full = zr_alloc_pairs((size_t)(rows * n1 * real_batch));
  for (int64_t b = 0; b < real_batch; b++)
    for (int64_t r = 0; r < rows; r++)
      for (int64_t k = 0; k < n1; k++) {
        int mirror = k >= half;
        int64_t row = mirror ? (rows - r) % rows : r, col = mirror ? n1 - k : k;
        const long double *v = h + 2 * ((b * rows + row) * half + col);
        long double *f = full + 2 * ((b * rows + r) * n1 + k);
        f[0] = v[0], f[1] = mirror ? -v[1] : v[1];
      }
  return full;
}

/* The half spectrum (pairs) of the full one. */
static long double *take_half(const real_storage_case *c, const long double *full) {
  int64_t rows = c->rank == 2 ? c->lengths[0] : 1, n1 = c->lengths[c->rank - 1], half = n1 / 2 + 1;
  long double *h = zr_alloc_pairs((size_t)(rows * half * real_batch));
  for (int64_t t = 0; t < rows * real_batch; t++)
    for (int64_t k = 0; k < half; k++)
      for (int i = 0; i < 2; i++) h[2 * (t * half + k) + i] = full[2 * (t * n1 + k) + i];
  return h;
}

/* Fills the input: R2C real values, C2R the half spectrum of real values (Hermitian, so
 * that the rounded input stays Hermitian); returns the long-double reference output as
 * pairs (reals with zero imaginary parts for C2R), computed from the stored values. */
static long double *fill_real_case(const real_storage_case *c, zt_buffer *in) {
  int64_t n = c->lengths[0] * (c->rank == 2 ? c->lengths[1] : 1), h = half_count(c);
  long double *x = zr_alloc_pairs((size_t)(n * real_batch));
  for (int64_t i = 0; i < n * real_batch; i++)
    x[2 * i] = c->type == ZIPFFT_R2C ? zt_put16(in->data, i, c->in, zt_uniform(0x17, (uint64_t)i))
                                     : zt_uniform(0x17, (uint64_t)i);
  zr_dft_nd_by(x, c->rank, c->lengths, real_batch, -1, zr_dft_auto);
  if (c->type == ZIPFFT_R2C) {
    long double *ref = take_half(c, x);
    free(x);
    return ref;
  }
  long double *spectrum = take_half(c, x);
  free(x);
  for (int64_t i = 0; i < 2 * h * real_batch; i++)
    spectrum[i] = zt_put16(in->data, i, c->in, (double)spectrum[i]);
  long double *full = expand_half(c, spectrum);
  free(spectrum);
  zr_dft_nd_by(full, c->rank, c->lengths, real_batch, 1, zr_dft_auto);
  for (int64_t i = 0; i < n * real_batch; i++) full[2 * i + 1] = 0;
  return full;
}

static void test_real_transform(const real_storage_case *c) {
  int64_t n = c->lengths[0] * (c->rank == 2 ? c->lengths[1] : 1), h = half_count(c);
  int r2c = c->type == ZIPFFT_R2C;
  int64_t in_values = (r2c ? n : 2 * h) * real_batch, out_values = (r2c ? 2 * h : n) * real_batch;
  size_t out_bytes = (size_t)out_values * (c->out == ZIPFFT_STORAGE_DEFAULT ? 4 : 2);
  zt_buffer in = zt_buffer_alloc((size_t)in_values * 2, 0), out = zt_buffer_alloc(out_bytes, 0);
  zt_buffer_poison(&in, 4);
  zt_buffer_poison(&out, 4);
  memset(out.data, 0xFF, out_bytes); /* NaN in every storage format */
  long double *ref = fill_real_case(c, &in);
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, c->type, ZIPFFT_F32, c->rank, c->lengths));
  ZT_OK(zipfft_desc_set_batch(d, real_batch));
  ZT_OK(zipfft_desc_set_storage(d, c->in, c->out));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_OK(zipfft_plan_create(&p, d));
  unsigned char *snap = malloc(in.bytes);
  memcpy(snap, in.data, in.bytes);
  if (p) ZT_OK(zt_execute(p, &in, &out, NULL));
  ZT_CHECK(zt_input_may_be_scratch(c->type, c->rank, c->in, c->out) ||
               memcmp(snap, in.data, in.bytes) == 0,
           "%s rank %d n=%lld: input modified", r2c ? "r2c" : "c2r", c->rank, (long long)n);
  free(snap);
  int64_t pairs = r2c ? h * real_batch : n * real_batch;
  double *got = calloc((size_t)pairs * 2, sizeof *got);
  for (int64_t i = 0; i < out_values; i++) got[r2c ? i : 2 * i] = get_stored(out.data, i, c->out);
  double err = zr_worst_rel_l2(ref, got, (size_t)(pairs / real_batch), real_batch);
  double gate = storage_gate(c->out, c->rank, n);
  ZT_CHECK(err <= gate, "%s rank %d n=%lld storage %d->%d: error %.3g above %.3g",
           r2c ? "r2c" : "c2r", c->rank, (long long)n, (int)c->in, (int)c->out, err, gate);
  ZT_CHECK(zt_buffer_guards_intact(&in) && zt_buffer_guards_intact(&out), "guard written");
  free(got), free(ref);
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  zt_buffer_free(&in), zt_buffer_free(&out);
}

/* Bad storage requests fail at the right call, naming the value. */
static void test_errors(void) {
  int64_t n = 8;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &n));
  ZT_CHECK_STATUS(zipfft_desc_set_storage(d, (zipfft_storage)7, ZIPFFT_STORAGE_DEFAULT),
                  ZIPFFT_ERROR_INVALID_STORAGE);
  ZT_CHECK(strstr(zipfft_last_error(), "7") != NULL, "detail lacks the value: %s",
           zipfft_last_error());
  ZT_CHECK_STATUS(zipfft_desc_set_storage(NULL, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16),
                  ZIPFFT_ERROR_NULL_POINTER);
  ZT_OK(zipfft_desc_set_storage(d, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  ZT_CHECK_STATUS(zipfft_plan_create(&p, d), ZIPFFT_ERROR_INVALID_STORAGE); /* fp64 compute */
  zipfft_desc_destroy(d);
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_storage(d, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_BF16));
  ZT_OK(zipfft_desc_set_placement(d, ZIPFFT_INPLACE));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  ZT_CHECK_STATUS(zipfft_plan_create(&p, d), ZIPFFT_ERROR_INVALID_STORAGE);
  ZT_CHECK(p == NULL, "plan set on failure");
  zipfft_desc_destroy(d);
}

static const storage_case transforms[] = {
    {1, {256, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16, 0},
    {1, {1000, 1}, ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_BF16, 1},
    {1, {60, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_BF16, 0},
    {2, {16, 24}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16, 1},
    {2, {32, 8}, ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_F16, 0},
    {1, {257, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16, 1}, /* Rader */
    {1, {83, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16, 0},  /* Bluestein in one kernel */
};

/* Half-length (even) and full-length (odd) real kinds, 2D; 16384 is a mirrored R2C. */
static const real_storage_case real_transforms[] = {
    {ZIPFFT_R2C, 1, {4096, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16},
    {ZIPFFT_R2C, 1, {16384, 1}, ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_F16},
    {ZIPFFT_R2C, 1, {15, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_BF16},
    {ZIPFFT_R2C, 2, {12, 16}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16},
    {ZIPFFT_C2R, 1, {4096, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16},
    {ZIPFFT_C2R, 1, {1000, 1}, ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_BF16},
    {ZIPFFT_C2R, 1, {16384, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_BF16}, /* mirrored merge */
    {ZIPFFT_C2R, 1, {21, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16},
    {ZIPFFT_C2R, 2, {8, 10}, ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_F16},
    /* a 16-bit input and an fp32 output: fp32 accuracy, so C2R's intermediate results of
     * rank 2 must not be rounded to the input's 16 bits */
    {ZIPFFT_C2R, 2, {8, 10}, ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_DEFAULT},
    {ZIPFFT_C2R, 2, {12, 16}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_DEFAULT},
    {ZIPFFT_R2C, 2, {12, 16}, ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_DEFAULT},
};

/* Every C2C and real storage case; with the single-kernel limit at 8 points (capped), the
 * real ones of at most 4096 points (8^4 is the longest half length four 8-point kernels
 * make). Returns the number of cases run. */
static int run_transforms(int capped) {
  int ran = 0;
  for (size_t i = 0; i < sizeof transforms / sizeof *transforms; i++, ran++)
    test_transform(&transforms[i]);
  for (size_t i = 0; i < sizeof real_transforms / sizeof *real_transforms; i++) {
    const real_storage_case *c = &real_transforms[i];
    if (capped && c->lengths[0] * c->lengths[1] > 4096) continue;
    test_real_transform(c);
    ran++;
  }
  return ran;
}

/* C2R 65536 as one cluster kernel (4 blocks of 8192 points) with a 16-bit input, its merge
 * reading X[L - e] from global memory as planned and from the partner block's shared memory
 * (ZIPFFT_CLUSTER_MIRROR=1), where it holds the converted value. Returns the cases run. */
static int run_cluster_merges(void) {
  static const real_storage_case c = {
      ZIPFFT_C2R, 1, {65536, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_BF16};
  test_real_transform(&c);
  setenv("ZIPFFT_CLUSTER_MIRROR", "1", 1);
  test_real_transform(&c);
  unsetenv("ZIPFFT_CLUSTER_MIRROR");
  return 2;
}

/* Full tier: the storage pair of the sweep's next case (fp16, bfloat16, and the two mixed
 * pairs in turn; with real_output, an fp32 output every fifth case). */
static void next_storage(zipfft_storage *in, zipfft_storage *out, int real_output) {
  static const zipfft_storage pairs[4][2] = {{ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16},
                                             {ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_BF16},
                                             {ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_BF16},
                                             {ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_F16}};
  static int turn;
  *in = pairs[turn % 4][0], *out = pairs[turn % 4][1];
  if (real_output && turn % 5 == 4) *out = ZIPFFT_STORAGE_DEFAULT;
  turn++;
}

/* Full tier: 16-bit storage at every length to 512 and the 31-smooth lengths to 4096, each
 * as C2C (in place where the formats match, every other time), R2C or C2R in turn, and 2D
 * shapes from pairs of lengths; each case in this run's part. Returns the number of cases
 * run. */
static int run_full_sweep(void) {
  int ran = 0, turn = 0;
  for (int64_t n = 1; n <= 4096; n++) {
    if (n > 512 && !zt_is_31_smooth(n)) continue;
    int kind = turn++ % 3;
    if (kind == 0) {
      storage_case c = {1, {n, 1}, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16, 0};
      next_storage(&c.in, &c.out, 0);
      c.inplace = c.in == c.out && turn % 2 == 0;
      if (zt_case_in_part()) test_transform(&c), ran++;
    } else {
      real_storage_case r = {kind == 1 ? ZIPFFT_R2C : ZIPFFT_C2R, 1, {n, 1}, 0, 0};
      next_storage(&r.in, &r.out, 1);
      if (zt_case_in_part()) test_real_transform(&r), ran++;
    }
  }
  static const int64_t lengths[] = {1, 2, 3, 8, 15, 16, 17, 64, 100, 128};
  const size_t count = sizeof lengths / sizeof *lengths;
  for (size_t i = 0; i < count; i++)
    for (size_t j = 0; j < count; j++) {
      storage_case c = {2, {lengths[i], lengths[j]}, 0, 0, (int)(i + j) % 2};
      next_storage(&c.in, &c.out, 0);
      c.inplace = c.inplace && c.in == c.out;
      if (zt_case_in_part()) test_transform(&c), ran++;
      real_storage_case r = {
          (i + j) % 2 ? ZIPFFT_C2R : ZIPFFT_R2C, 2, {lengths[i], lengths[j]}, 0, 0};
      next_storage(&r.in, &r.out, 1);
      if (zt_case_in_part()) test_real_transform(&r), ran++;
    }
  return ran;
}

int main(void) {
  if (!zt_device_ready()) return zt_finish("test_storage", 0);
  int swept = 0;
  if (zt_sweep_first(run_full_sweep, &swept)) return zt_finish_cases("test_storage", swept);
  test_decode_all(ZIPFFT_STORAGE_F16, zt_decode_f16, "f16");
  test_decode_all(ZIPFFT_STORAGE_BF16, zt_decode_bf16, "bf16");
  test_encode(ZIPFFT_STORAGE_F16, zt_decode_f16, 0x7c00u, 26, "f16");
  test_encode(ZIPFFT_STORAGE_BF16, zt_decode_bf16, 0x7f80u, 127, "bf16");
  int ran = run_transforms(0);
  /* Again with every axis longer than 8 points going through the workspace. */
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "8", 1);
  ran += run_transforms(1);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  ran += run_cluster_merges();
  test_errors();
  return zt_finish("test_storage", 5 + ran + swept);
}
