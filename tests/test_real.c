/* test_real.c - R2C and C2R of ranks 1-3 (even and odd lengths, batches, strided and
 * in-place padded layouts) against the long-double reference, with poisoned outputs,
 * untouched gaps and guard bands. C2R inputs are half spectra as users give them, also with
 * imaginary parts at the bins 0 and n/2 (which every C2R path ignores); round trips; and
 * arrays at pointer offsets users pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "reference.h"
#include "test_util.h"

/* SHIFTED: dense elements, but each row of the last axis one element longer than it needs
 * (an odd row distance for an even length), so that pairs of reals start at odd offsets. */
typedef enum layout_kind { DENSE, GAPS, INPLACE, SHIFTED } layout_kind;

typedef struct real_case {
  zipfft_type type;
  zipfft_precision prec;
  int rank;
  int64_t lengths[3];
  int64_t batch;
  layout_kind layout;
} real_case;

/* One array of a case: lengths, strides, distance, element count spanned, real or not. */
typedef struct array {
  int64_t lengths[3], strides[3], dist, size;
  int real;
} array;

/* Lengths of the real (full) or complex (half last axis) array. */
static void lengths_of(const real_case *c, int complex_side, int64_t *lengths) {
  for (int k = 0; k < c->rank; k++) lengths[k] = c->lengths[k];
  if (complex_side) lengths[c->rank - 1] = c->lengths[c->rank - 1] / 2 + 1;
}

/* Row-major strides over `lengths`, with the last axis padded to `row` elements (SHIFTED:
 * one more) and an element stride `step` (GAPS: 2). */
static void make_array(const real_case *c, int real, int64_t row, int64_t step, array *a) {
  lengths_of(c, !real, a->lengths);
  a->real = real;
  int64_t s = step;
  for (int k = c->rank - 1; k >= 0; k--) {
    a->strides[k] = s;
    s *= k == c->rank - 1 ? row + (c->layout == SHIFTED) : a->lengths[k];
    if (c->layout == GAPS) s += 1;
  }
  a->dist = s + (c->layout == GAPS ? 3 : 0);
  a->size = a->dist * c->batch;
}

/* The real and complex arrays of a case (in place, the real rows are padded to 2*(n/2+1)). */
static void arrays_of(const real_case *c, array *real, array *cplx) {
  int64_t half = c->lengths[c->rank - 1] / 2 + 1, step = c->layout == GAPS ? 2 : 1;
  make_array(c, 0, half, step, cplx);
  make_array(c, 1, c->layout == INPLACE ? 2 * half : c->lengths[c->rank - 1], step, real);
}

static int64_t count_of(const array *a, int64_t batch, int rank) {
  int64_t n = batch;
  for (int k = 0; k < rank; k++) n *= a->lengths[k];
  return n;
}

/* Element offset of logical index i (row-major over batch and lengths). */
static int64_t offset_of(const array *a, int rank, int64_t i) {
  int64_t off = 0;
  for (int k = rank - 1; k >= 0; k--)
    off += (i % a->lengths[k]) * a->strides[k], i /= a->lengths[k];
  return off + i * a->dist;
}

/* Full-array index of the element of `a` with logical index i (same batch and k's). */
static int64_t full_index(const real_case *c, const array *a, int64_t i) {
  int64_t full = 0, scale = 1, rest = i;
  int64_t digits[3] = {0, 0, 0};
  for (int k = c->rank - 1; k >= 0; k--) digits[k] = rest % a->lengths[k], rest /= a->lengths[k];
  for (int k = c->rank - 1; k >= 0; k--) full += digits[k] * scale, scale *= c->lengths[k];
  return full + rest * scale;
}

/* Full Hermitian spectrum (logical, batch) from a half spectrum: F[k] = H[k] for
 * k_last <= n/2, else conj(H[-k]) (every index negated modulo its length). */
static long double *full_from_half(const real_case *c, const array *half, const long double *h) {
  int64_t per = 1, n = c->lengths[c->rank - 1];
  for (int k = 0; k < c->rank; k++) per *= c->lengths[k];
  long double *f = zr_alloc_pairs((size_t)(per * c->batch));
  for (int64_t i = 0; i < per * c->batch; i++) {
    int64_t digits[3] = {0, 0, 0}, rest = i, hi = 0, conj = 0;
    for (int k = c->rank - 1; k >= 0; k--) digits[k] = rest % c->lengths[k], rest /= c->lengths[k];
    if (digits[c->rank - 1] > n / 2) {
      conj = 1;
      for (int k = 0; k < c->rank; k++) digits[k] = (c->lengths[k] - digits[k]) % c->lengths[k];
    }
    for (int k = 0; k < c->rank; k++) hi = hi * half->lengths[k] + digits[k];
    hi += rest * count_of(half, 1, c->rank);
    f[2 * i] = h[2 * hi];
    f[2 * i + 1] = conj ? -h[2 * hi + 1] : h[2 * hi + 1];
  }
  return f;
}

/* Reference output of a case as logical values of the output array (pairs for complex,
 * reals in the even slots for real output). in_values holds the input's logical values. */
static long double *reference(const real_case *c, const array *in, const array *out,
                              const long double *in_values) {
  int64_t per = 1;
  for (int k = 0; k < c->rank; k++) per *= c->lengths[k];
  long double *full = c->type == ZIPFFT_R2C ? zr_alloc_pairs((size_t)(per * c->batch))
                                            : full_from_half(c, in, in_values);
  if (c->type == ZIPFFT_R2C)
    for (int64_t i = 0; i < per * c->batch; i++) full[2 * i] = in_values[i];
  zr_dft_nd_by(full, c->rank, c->lengths, c->batch, c->type == ZIPFFT_R2C ? -1 : 1, zr_dft_auto);
  int64_t count = count_of(out, c->batch, c->rank);
  long double *ref = zr_alloc_pairs((size_t)count);
  for (int64_t i = 0; i < count; i++) {
    int64_t f = full_index(c, out, i);
    ref[2 * i] = full[2 * f];
    ref[2 * i + 1] = out->real ? 0 : full[2 * f + 1];
  }
  free(full);
  return ref;
}

/* 1: C2R inputs carry imaginary parts at their self-conjugate bins along the last axis (0
 * and n/2), of a typical bin's size, as half spectra built by pointwise products do. Every
 * C2R path must ignore them as FFTW and cuFFT do: the reference, the real part of the
 * inverse of the spectrum extended from the half, does (rank 1: those imaginary parts only
 * add imaginary outputs; ranks 2 and 3: each row's C2R after the other axes' inverses). */
static int self_conjugate_imaginary;

/* Gives the self-conjugate bins of a half spectrum (logical pairs) imaginary parts. */
static void add_self_conjugate_imaginary(const real_case *c, const array *half, long double *h) {
  int64_t n = c->lengths[c->rank - 1], row = half->lengths[c->rank - 1];
  int64_t count = count_of(half, c->batch, c->rank);
  for (int64_t i = 0; i < count; i++) {
    int64_t k = i % row;
    if (k == 0 || (n % 2 == 0 && k == n / 2))
      h[2 * i + 1] = (0.5L + zt_uniform(0x1AC0, (uint64_t)i)) * sqrtl((long double)n);
  }
}

/* Fills the input's logical elements (gaps keep their poison); returns their values as
 * stored: reals for R2C, pairs of a real signal's half spectrum for C2R. */
static long double *fill_input(const real_case *c, const array *in, zt_buffer *buf) {
  int64_t count = count_of(in, c->batch, c->rank);
  long double *values = zr_alloc_pairs((size_t)count);
  long double *half = NULL;
  if (!in->real) { /* the half spectrum of a real signal, as users get it */
    real_case fwd = *c;
    fwd.type = ZIPFFT_R2C;
    array re, cx;
    arrays_of(&fwd, &re, &cx);
    int64_t n_real = count_of(&re, c->batch, c->rank);
    long double *x = zr_alloc_pairs((size_t)n_real);
    for (int64_t i = 0; i < n_real; i++) x[i] = zt_uniform(0x2EA1, (uint64_t)i);
    half = reference(&fwd, &re, &cx, x);
    free(x);
    if (self_conjugate_imaginary) add_self_conjugate_imaginary(c, in, half);
  }
  for (int64_t i = 0; i < count; i++) {
    int64_t at = offset_of(in, c->rank, i);
    if (in->real) {
      zt_set_real(buf, c->prec, at, zt_uniform(0x2EA1, (uint64_t)i));
      values[i] = zt_get_real(buf, c->prec, at);
    } else {
      for (int part = 0; part < 2; part++) {
        zt_set_real(buf, c->prec, 2 * at + part, (double)half[2 * i + part]);
        values[2 * i + part] = zt_get_real(buf, c->prec, 2 * at + part);
      }
    }
  }
  free(half);
  return values;
}

/* Compares the output with the reference; out-of-place, gaps must still hold NaN. */
static void check_output(const real_case *c, const array *out, const zt_buffer *buf,
                         const long double *ref, int check_gaps, const char *text) {
  int64_t count = count_of(out, c->batch, c->rank), per = 1;
  for (int k = 0; k < c->rank; k++) per *= c->lengths[k];
  double *got = calloc((size_t)count * 2, sizeof *got);
  char *is_element = calloc((size_t)out->size, 1);
  for (int64_t i = 0; i < count; i++) {
    int64_t at = offset_of(out, c->rank, i);
    is_element[at] = 1;
    got[2 * i] = zt_get_real(buf, c->prec, out->real ? at : 2 * at);
    if (!out->real) got[2 * i + 1] = zt_get_real(buf, c->prec, 2 * at + 1);
  }
  double u = c->prec == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  int bluestein = 0; /* a prime factor above 31 (Rader, Bluestein): gate 30 instead of 10 */
  for (int k = 0; k < c->rank; k++) bluestein |= !zt_is_31_smooth(c->lengths[k]);
  double gate = (bluestein ? 30 : 10) * u * sqrt(per > 2 ? log2((double)per) : 1.0);
  double err = zr_worst_rel_l2(ref, got, (size_t)(count / c->batch), (size_t)c->batch);
  ZT_CHECK(err <= gate, "%s: relative L2 error %.3g above %.3g", text, err, gate);
  int64_t written = 0;
  for (int64_t e = 0; check_gaps && e < out->size; e++)
    for (int part = 0; part < (out->real ? 1 : 2); part++)
      if (!is_element[e] && !isnan(zt_get_real(buf, c->prec, out->real ? e : 2 * e + part)))
        written++;
  ZT_CHECK(written == 0, "%s: %lld elements between outputs were written", text,
           (long long)written);
  free(got);
  free(is_element);
}

static void describe(const real_case *c, char *buf, size_t len) {
  static const char *const layouts[] = {"dense", "gaps", "inplace", "shifted"};
  snprintf(buf, len, "%s %s n=%lldx%lldx%lld (rank %d) batch=%lld %s",
           c->type == ZIPFFT_R2C ? "r2c" : "c2r", c->prec == ZIPFFT_F32 ? "f32" : "f64",
           (long long)c->lengths[0], (long long)c->lengths[1], (long long)c->lengths[2], c->rank,
           (long long)c->batch, layouts[c->layout]);
}

/* The detail of the last failed plan_case (zipfft_desc_destroy clears the library's). */
static char plan_error[512];

static zipfft_status plan_case_scaled(const real_case *c, const array *in, const array *out,
                                      double scale, zipfft_plan *p) {
  zipfft_desc d = NULL;
  zipfft_status s = zipfft_desc_create(&d, c->type, c->prec, c->rank, c->lengths);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, c->batch);
  if (s == ZIPFFT_SUCCESS && scale != 1.0) s = zipfft_desc_set_scale(d, scale);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_layout(d, in->strides, in->dist, out->strides, out->dist);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_placement(d, c->layout == INPLACE ? ZIPFFT_INPLACE : ZIPFFT_OUTOFPLACE);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, zt_zipfft_backend(), 0);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(p, d);
  snprintf(plan_error, sizeof plan_error, "%s", s == ZIPFFT_SUCCESS ? "" : zipfft_last_error());
  zipfft_desc_destroy(d);
  return s;
}

static zipfft_status plan_case(const real_case *c, const array *in, const array *out,
                               zipfft_plan *p) {
  return plan_case_scaled(c, in, out, 1.0, p);
}

static int cases_run; /* cases this run (or part) planned and checked */

/* Bytes every array of run_case starts past a 64-byte aligned address: 0, or the pointer
 * offsets users pass (check_pointer_offsets); with offset_real_side_only, only the real
 * array of an out-of-place case is offset, its complex array aligned. */
static size_t offset_bytes;
static int offset_real_side_only;

/* Plans, runs and checks one case, when it belongs to this run's part (zt_case_in_part). */
static void run_case(const real_case *c) {
  if (!zt_case_in_part()) return;
  cases_run++;
  char text[256];
  describe(c, text, sizeof text);
  if (offset_bytes)
    snprintf(text + strlen(text), sizeof text - strlen(text), " offset %zu bytes%s", offset_bytes,
             offset_real_side_only ? " (the real array)" : "");
  array real, cplx;
  arrays_of(c, &real, &cplx);
  const array *in = c->type == ZIPFFT_R2C ? &real : &cplx,
              *out = c->type == ZIPFFT_R2C ? &cplx : &real;
  zipfft_plan plan = NULL;
  zipfft_status s = plan_case(c, in, out, &plan);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: plan: %s (%s)", text, zipfft_status_name(s), plan_error);
  if (s != ZIPFFT_SUCCESS) return;
  zt_check_cuda_source(plan, text);
  size_t rs = zt_real_size(c->prec), in_bytes = (size_t)in->size * rs * (in->real ? 1 : 2);
  size_t out_bytes = (size_t)out->size * rs * (out->real ? 1 : 2);
  int inplace = c->layout == INPLACE;
  size_t in_offset = offset_bytes, out_offset = offset_bytes;
  if (offset_real_side_only && !inplace) *(in->real ? &out_offset : &in_offset) = 0;
  zt_buffer ib = zt_buffer_alloc(inplace && out_bytes > in_bytes ? out_bytes : in_bytes, in_offset);
  zt_buffer ob = inplace ? ib : zt_buffer_alloc(out_bytes, out_offset);
  zt_buffer_poison(&ib, rs);
  if (!inplace) zt_buffer_poison(&ob, rs);
  long double *values = fill_input(c, in, &ib);
  long double *ref = reference(c, in, out, values);
  unsigned char *snapshot = malloc(ib.bytes);
  memcpy(snapshot, ib.data, ib.bytes);
  ZT_OK(zt_execute(plan, &ib, inplace ? &ib : &ob, NULL));
  check_output(c, out, inplace ? &ib : &ob, ref, !inplace, text);
  int keeps_input = !inplace && (c->type == ZIPFFT_R2C || c->rank == 1);
  if (keeps_input) ZT_CHECK(memcmp(snapshot, ib.data, ib.bytes) == 0, "%s: input modified", text);
  ZT_CHECK(zt_buffer_guards_intact(&ib) && zt_buffer_guards_intact(&ob), "%s: guard written", text);
  free(snapshot), free(values), free(ref);
  zt_buffer_free(&ib);
  if (!inplace) zt_buffer_free(&ob);
  zipfft_plan_destroy(plan);
}

static const real_case cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {16}, 3, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {15}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {1000}, 2, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {1}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {2}, 3, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {12, 10}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {9, 7}, 1, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {16, 33}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 3, {4, 6, 8}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 3, {5, 3, 7}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {16}, 3, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {15}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {1000}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {1}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {2}, 3, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {12, 10}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {9, 7}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {16, 33}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 3, {4, 6, 8}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 3, {5, 3, 7}, 1, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {64, 256}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {64, 256}, 2, DENSE},
    /* prime factors 17 to 31 (radices of their own): odd, and even with a prime half */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {17}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {6, 62}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {46}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {19, 12}, 1, GAPS},
    /* primes above 31 with p - 1 31-smooth (Rader), odd lengths, and even lengths 2p
     * (the half-length split reads Rader's slots, the merge writes them) */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {37}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {41, 12}, 1, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {257}, 2, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {74}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {514}, 3, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {5, 194}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {74}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {514}, 3, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 194}, 2, DENSE},
    /* other prime factors above 31 (Bluestein): odd, and even whose half has one */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {83}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {6, 166}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {82}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {107, 12}, 1, GAPS},
    /* even lengths whose pairs of reals start at odd offsets (each pair two reals, not one
     * vector access): one kernel, ranks 1 and 2 */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {1024}, 3, SHIFTED},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {1024}, 3, SHIFTED},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {3, 256}, 2, SHIFTED},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {5, 512}, 1, SHIFTED},
};

/* Round trips: R2C, then C2R scaled by 1/N on its output, gives the input back, within the
 * C2R gate (the forward's rounding included), in the layouts of the cases (in place: both
 * in one buffer; out of place: the C2R writes a second poisoned buffer, whose gaps stay
 * NaN). Odd, even, Rader (257), Bluestein half (82), cluster (65536), four-step (2^18)
 * lengths and ranks 2 and 3. */
static const real_case round_trip_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {1000}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {15}, 3, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {257}, 2, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {82}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {65536}, 1, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {262144}, 1, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {12, 10}, 2, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F64, 3, {5, 3, 7}, 1, GAPS},
};

static void run_round_trip(const real_case *c) {
  if (!zt_case_in_part()) return;
  cases_run++;
  char text[256];
  describe(c, text, sizeof text);
  real_case inverse = *c;
  inverse.type = ZIPFFT_C2R;
  array real, cplx;
  arrays_of(c, &real, &cplx);
  int64_t per = 1;
  for (int k = 0; k < c->rank; k++) per *= c->lengths[k];
  zipfft_plan fwd = NULL, inv = NULL;
  zipfft_status s = plan_case(c, &real, &cplx, &fwd);
  if (s == ZIPFFT_SUCCESS) s = plan_case_scaled(&inverse, &cplx, &real, 1.0 / (double)per, &inv);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s round trip: plan: %s (%s)", text, zipfft_status_name(s),
           plan_error);
  int inplace = c->layout == INPLACE;
  size_t rs = zt_real_size(c->prec);
  size_t real_bytes = (size_t)real.size * rs, cplx_bytes = (size_t)cplx.size * rs * 2;
  zt_buffer a = zt_buffer_alloc(real_bytes > cplx_bytes ? real_bytes : cplx_bytes, 0);
  zt_buffer b = inplace ? a : zt_buffer_alloc(cplx_bytes, 0), back = zt_buffer_alloc(real_bytes, 0);
  zt_buffer_poison(&a, rs), zt_buffer_poison(&back, rs);
  if (!inplace) zt_buffer_poison(&b, rs);
  long double *values = fill_input(c, &real, &a), *ref = zr_alloc_pairs((size_t)(per * c->batch));
  for (int64_t i = 0; i < per * c->batch; i++) ref[2 * i] = values[i];
  if (s == ZIPFFT_SUCCESS) {
    /* in place, the same buffer object twice: the CUDA mirror of zt_execute copies a
     * buffer passed twice once, and an in-place plan must get one pointer */
    zt_buffer *spectrum = inplace ? &a : &b;
    ZT_OK(zt_execute(fwd, &a, spectrum, NULL));
    ZT_OK(zt_execute(inv, spectrum, inplace ? &a : &back, NULL));
    check_output(&inverse, &real, inplace ? &a : &back, ref, !inplace, text);
  }
  ZT_CHECK(zt_buffer_guards_intact(&a) && zt_buffer_guards_intact(&back), "%s: guard written",
           text);
  free(values), free(ref);
  zt_buffer_free(&a), zt_buffer_free(&back);
  if (!inplace) zt_buffer_free(&b);
  zipfft_plan_destroy(fwd), zipfft_plan_destroy(inv);
}

/* Runs the C2R cases of a list. */
static void run_c2r_cases(const real_case *list, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (list[i].type == ZIPFFT_C2R) run_case(&list[i]);
}

/* Power-of-two half lengths of 8192 and 16384 in one kernel (mirrored: R2C 16384 at radix
 * 16, 512 threads, also as a 2D plan's rows; the others at radix up to 32, 256 and 512
 * threads), each pair's split twiddle derived from the thread's first. Too long for the
 * four-step run with an 8-point kernel limit, so they run once. */
static const real_case half_kernel_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {16384}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 16384}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {16384}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {32768}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {32768}, 1, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {16384}, 1, INPLACE},
};

/* Real lengths beyond one kernel at their true size: powers of two, and primes whose
 * Bluestein length is beyond one kernel; a Rader prime of 16417 points, and twice it. */
static const real_case long_cases[] = {
    /* contiguous half lengths a thread-block cluster holds (fp32 32768, fp64 16384): one
     * cluster kernel with the split in its stores or the merge in its loads */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {65536}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {65536}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {32768}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {32768}, 1, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 65536}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 65536}, 1, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {65536}, 2, SHIFTED}, /* pairs of reals at odd offsets */
    /* through the workspace, the split row kernel widened to 16 rows per block */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {262144}, 1, DENSE},
    /* the same lengths strided: through the workspace */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {65536}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {65536}, 1, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {3, 10007}, 1, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {20023}, 1, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {16417}, 1, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {32834}, 1, DENSE}, /* 2 x 16417: Rader's half length */
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {32834}, 1, INPLACE},
};

/* R2C through the workspace whose four-step's last kernel splits its row pairs into the
 * half spectrum, C2R whose first kernel merges them from it (paired_rows): run with the
 * single-kernel limit at 8 points (splits in four, three row digits) and at 64 (splits in
 * two). */
static const real_case paired_row_cases[] = {
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {4096}, 3, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {4096}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {4096}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 4096}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {5, 4096}, 1, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {4096}, 3, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {4096}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {4096}, 2, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 4096}, 1, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {5, 4096}, 1, GAPS},
};

/* C2R through the workspace in three kernels (single-kernel limit 64: 131072 = 2 x 32 x 32
 * x 64): the first merges the half spectrum, the last two run as one pair kernel (the data
 * between them in L2), out of place, in place, and as the last of a 2D plan's kernels. */
static const real_case pair_route_cases[] = {
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {131072}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {131072}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 131072}, 1, DENSE}, /* after the other axis's kernel */
};

/* R2C whose split runs in the last pass's registers and C2R whose merge runs in the first
 * pass's (mirrored kernels, thread 0 with butterflies 0 and m/2): planned by default from
 * 16384 points (the half_kernel_cases, and 38016 = 2 x 12x12x12x11 here, an odd last
 * radix), here forced (ZIPFFT_MIRRORED=2) at lengths with one or two groups of butterfly
 * pairs per thread, several transforms per block, strided, in place, 2D, and 8 threads per
 * transform (four transforms per warp; C2R 256 is 8x16, an even first radix's self pair
 * n/2 in thread 0). */
static const real_case mirrored_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {2048}, 3, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {2048}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {4096}, 2, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 4096}, 1, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {16384}, 1, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {38016}, 1, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 256}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {2048}, 3, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {2048}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {4096}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 4096}, 1, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {16384}, 1, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 256}, 2, GAPS},
};

/* Four-step half lengths whose kernels run Rader's method, with one kernel capped at 200
 * points (R2C 4064 = 2 x 16 x 127, C2R 32258 = 2 x 127 x 127): they keep the split scatter
 * and the merge gather, since a Rader kernel's rows are not its transforms (planning them
 * as paired rows failed with INTERNAL). */
static const real_case rader_row_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {4064}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {2 * 127 * 127}, 1, DENSE},
};

/* Full-length real routes through the workspace, one row a complex row by default and two
 * with ZIPFFT_REAL_ROW_PAIRS=1 (zipfft__kernel_spec row_pair_apart), with one kernel capped
 * at 64 points: odd lengths that split (2187 = 3^7), Bluestein primes (1009), an even
 * length whose half does not split (2018 = 2 x 1009: its Nyquist term), even and odd row
 * counts (the last row without a partner), strided, in place, ranks 2 and 3 (the pairs
 * along the outermost digit). */
static const real_case row_pair_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {2187}, 4, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {2187}, 4, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {2187}, 3, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {2187}, 3, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {1009}, 5, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {1009}, 5, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {2018}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {2018}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 1009}, 2, GAPS},
    {ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 1009}, 1, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 3, {2, 3, 2187}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F64, 3, {2, 3, 2018}, 1, DENSE},
};

/* R2C and C2R kernels that ask L2 for a later block's input (ZIPFFT_PREFETCH_AHEAD, applied
 * on the CPU too, where the prefetch only reads the bytes it names; by default C2R only at 2 or 3
 * blocks per multiprocessor, test_generator): half-length and odd lengths, mirrored, in place; and
 * kernels that must not prefetch: strided rows (GAPS: not one contiguous range per block). */
static const real_case prefetch_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {4096}, 3, DENSE}, {ZIPFFT_R2C, ZIPFFT_F64, 1, {1001}, 3, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {1001}, 2, GAPS},  {ZIPFFT_R2C, ZIPFFT_F32, 1, {16384}, 2, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {2048}, 2, DENSE}, {ZIPFFT_C2R, ZIPFFT_F32, 1, {4096}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {1001}, 3, GAPS},  {ZIPFFT_C2R, ZIPFFT_F32, 1, {16384}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {1001}, 2, DENSE},
};

/* Bluestein's three kernels of R2C and C2R, fp32 131 (196 = 14 x 14) and fp64 61 (96 = 8 x
 * 12) under a single-kernel limit of 32, whose first column kernel loads the rows' reals
 * (R2C) or the Hermitian half's first 66 and 31 values (C2R) times the chirp. */
static const real_case chirp_prefetch_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {131}, 3, DENSE},  {ZIPFFT_R2C, ZIPFFT_F32, 1, {131}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {61}, 3, INPLACE}, {ZIPFFT_C2R, ZIPFFT_F32, 1, {131}, 3, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {131}, 2, GAPS},   {ZIPFFT_C2R, ZIPFFT_F64, 1, {61}, 3, INPLACE},
};

/* 1 when the printed plan of c (on the CPU backend, which plans as an H100) contains
 * needle; the plan goes to printed. */
static int plan_mentions(const real_case *c, const char *needle, char *printed, size_t len) {
  array real, cplx;
  arrays_of(c, &real, &cplx);
  zipfft_plan plan = NULL;
  int r2c = c->type == ZIPFFT_R2C;
  printed[0] = 0;
  ZT_OK(plan_case(c, r2c ? &real : &cplx, r2c ? &cplx : &real, &plan));
  if (plan) ZT_OK(zipfft_plan_print(plan, printed, len, NULL));
  zipfft_plan_destroy(plan);
  return strstr(printed, needle) != NULL;
}

/* With ZIPFFT_PREFETCH_AHEAD set: the first Bluestein column kernel of R2C (the rows' reals
 * times the chirp) and of C2R (the half's values) asks L2 for a later block's columns only
 * below the convolution's inputs, where each user row ends (chirp_prefetch_cases). The CPU's
 * prefetch reads the byte it names (its distance, eighths of the resident blocks, follows
 * the host's threads, so the plan check leaves it out), and in sanitizer builds the caller has
 * these kernels instrumented (zt_sanitized_kernels_begin), so a prefetch past the last row's end is
 * a reported overflow. */
static void check_chirp_prefetch(void) {
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "32", 1);
  char printed[8192];
  if (zt_zipfft_backend() == ZIPFFT_BACKEND_CPU) {
    ZT_CHECK(plan_mentions(&chirp_prefetch_cases[0], "_ch1_bq30_131_196_14p0p1_pa", printed,
                           sizeof printed),
             "R2C 131: the chirp-loading column kernel does not prefetch:\n%s", printed);
    ZT_CHECK(plan_mentions(&chirp_prefetch_cases[3], "_ch2_bq40_131_196_14p0p1_pa", printed,
                           sizeof printed),
             "C2R 131: the chirp-loading column kernel does not prefetch:\n%s", printed);
  }
  for (size_t i = 0; i < sizeof chirp_prefetch_cases / sizeof *chirp_prefetch_cases; i++)
    run_case(&chirp_prefetch_cases[i]);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* By default the rows of a batch stay independent through a full-length route (fp64 R2C
 * 2187 under a limit of 64 points, batch 2): a NaN in row 1 leaves row 0's spectrum
 * finite and within the gate. With ZIPFFT_REAL_ROW_PAIRS=1 it would reach row 0. */
static void check_rows_independent(void) {
  int64_t n = 2187, half = n / 2 + 1;
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_R2C, ZIPFFT_F64, 1, &n));
  ZT_OK(zipfft_desc_set_batch(d, 2));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zt_buffer in = zt_buffer_alloc((size_t)(2 * n) * 8, 0),
            out = zt_buffer_alloc((size_t)(4 * half) * 8, 0);
  zt_buffer_poison(&in, 8), zt_buffer_poison(&out, 8);
  long double *x = zr_alloc_pairs((size_t)n), *ref = zr_alloc_pairs((size_t)n);
  double *values = (double *)in.data, *got = malloc((size_t)(2 * half) * sizeof *got);
  for (int64_t i = 0; i < 2 * n; i++) values[i] = i == n + 5 ? NAN : zt_uniform(0x58, (uint64_t)i);
  for (int64_t i = 0; i < n; i++) x[2 * i] = values[i];
  zr_dft_auto(x, ref, n, -1);
  if (p) ZT_OK(zt_execute(p, &in, &out, NULL));
  memcpy(got, out.data, (size_t)(2 * half) * sizeof *got);
  double err = zr_rel_l2(ref, got, (size_t)half), gate = 10 * 0x1p-53 * sqrt(log2((double)n));
  ZT_CHECK(err <= gate, "fp64 R2C 2187 batch 2, NaN in row 1: row 0 error %.3g above %.3g", err,
           gate);
  free(x), free(ref), free(got);
  zt_buffer_free(&in), zt_buffer_free(&out);
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* On the CPU backend: a row-pair case's plan takes row pairs with ZIPFFT_REAL_ROW_PAIRS=1
 * and not by default (the rows of a batch stay independent; run at the lowered limit). */
static void check_row_pair_plans(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  char printed[8192], text[256];
  for (size_t i = 0; i < sizeof row_pair_cases / sizeof *row_pair_cases; i++) {
    const real_case *c = &row_pair_cases[i];
    describe(c, text, sizeof text);
    int paired = plan_mentions(c, "two real rows a complex row", printed, sizeof printed);
    ZT_CHECK(!paired, "%s: in row pairs by default:\n%s", text, printed);
    setenv("ZIPFFT_REAL_ROW_PAIRS", "1", 1);
    paired = plan_mentions(c, "two real rows a complex row", printed, sizeof printed);
    unsetenv("ZIPFFT_REAL_ROW_PAIRS");
    ZT_CHECK(paired, "%s: not in row pairs with ZIPFFT_REAL_ROW_PAIRS=1:\n%s", text, printed);
  }
}

/* On the CPU backend: a Bluestein length through the workspace (fp32 1009 under a limit of
 * 64 points), run in each form against the reference, has its chirps and filter in its
 * kernels' loads and stores, no pointwise pass:
 * R2C loads real inputs and stores the half spectrum's 505 positions only, C2R loads the
 * Hermitian half's 505 values as they lie and stores real parts. Either convolution has a
 * half end, so it pads to 1536 = 32 x 48 (at least 1009 + 504), not to C2C's 2025 = 45 x 45
 * (at least 2017). By default it runs as three kernels (the filter between the middle
 * kernel's FFTs), with ZIPFFT_BLUESTEIN_MIDDLE=0 as two four-steps (the filter on the
 * second's loads). */
static void check_fused_bluestein_plans(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  static const struct {
    real_case c;
    const char *load, *store;
  } fused[] = {{{ZIPFFT_R2C, ZIPFFT_F32, 1, {1009}, 2, DENSE},
                "as it loads real inputs",
                "as it stores, only the first 505 positions"},
               {{ZIPFFT_C2R, ZIPFFT_F32, 1, {1009}, 2, DENSE},
                "the first 505 positions of each padded row as it loads from the Hermitian half, "
                "weighted",
                "as it stores as reals, only the first 1009 positions"}};
  /* by default the three kernels of 1536 = 32 x 48, else the two four-steps */
  static const char *const filters[] = {
      "(1536 points, read in the rows' order) between two 48-point FFTs",
      "filter multiply (1536 points) as it loads"};
  char printed[8192];
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  for (int middle = 1; middle >= 0; middle--) {
    if (!middle) setenv("ZIPFFT_BLUESTEIN_MIDDLE", "0", 1);
    for (size_t i = 0; i < sizeof fused / sizeof *fused; i++) {
      ZT_CHECK(plan_mentions(&fused[i].c, fused[i].load, printed, sizeof printed) &&
                   strstr(printed, fused[i].store) && !strstr(printed, "times chirp") &&
                   strstr(printed, filters[!middle]) &&
                   strstr(printed, middle ? "3 kernels" : "4 kernels"),
               "%s 1009 without its chirps and filter fused (ZIPFFT_BLUESTEIN_MIDDLE=%d):\n%s",
               fused[i].c.type == ZIPFFT_R2C ? "R2C" : "C2R", middle, printed);
      run_case(&fused[i].c);
    }
  }
  unsetenv("ZIPFFT_BLUESTEIN_MIDDLE");
  /* the pointwise passes of before (the C2R gather loads the half as it lies, weighted) */
  setenv("ZIPFFT_FUSED_BLUESTEIN", "0", 1);
  for (size_t i = 0; i < sizeof fused / sizeof *fused; i++) {
    ZT_CHECK(plan_mentions(&fused[i].c, "gather times chirp", printed, sizeof printed) &&
                 strstr(printed, "1536 positions"),
             "%s 1009 with ZIPFFT_FUSED_BLUESTEIN=0 not in pointwise passes:\n%s",
             fused[i].c.type == ZIPFFT_R2C ? "R2C" : "C2R", printed);
    run_case(&fused[i].c);
  }
  unsetenv("ZIPFFT_FUSED_BLUESTEIN");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* On the CPU backend: R2C and C2R Bluestein kernels pad to their convolution's inputs plus
 * outputs less one, the half being one end: fp32 1019 in one kernel to 1536 (C2C: 2048),
 * and fp64 2038 (even: its half has no kernel) to 3072 = 1020 + 2038 + 14 (C2C: 4096);
 * real rows in pairs (ZIPFFT_REAL_ROW_PAIRS=1, fp32 1009 under a limit of 64) need every
 * output and input, so they pad as C2C does (2025). */
static void check_real_bluestein_padding(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  static const struct {
    real_case c;
    const char *needle;
  } padded[] = {
      {{ZIPFFT_R2C, ZIPFFT_F32, 1, {1019}, 2, DENSE},
       "1536-point FFT, chirp (1019 inputs, 510 outputs)"},
      {{ZIPFFT_C2R, ZIPFFT_F32, 1, {1019}, 2, GAPS},
       "1536-point FFT, chirp (510 inputs, 1019 outputs)"},
      {{ZIPFFT_C2R, ZIPFFT_F64, 1, {2038}, 1, INPLACE},
       "3072-point FFT, chirp (1020 inputs, 2038 outputs)"},
  };
  char printed[8192];
  for (size_t i = 0; i < sizeof padded / sizeof *padded; i++) {
    ZT_CHECK(plan_mentions(&padded[i].c, padded[i].needle, printed, sizeof printed),
             "real Bluestein kernel %zu not padded to its half:\n%s", i, printed);
    run_case(&padded[i].c);
  }
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  setenv("ZIPFFT_REAL_ROW_PAIRS", "1", 1);
  ZT_CHECK(
      plan_mentions(&row_pair_cases[4], "2025 positions of 3 rows (two real rows a complex row)",
                    printed, sizeof printed),
      "R2C 1009 in row pairs not padded as C2C:\n%s", printed);
  unsetenv("ZIPFFT_REAL_ROW_PAIRS");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Loose splits of real half lengths (plan/long_axis.c, loose_real_mode), on a device of slow
 * (or, as the CPU's, unknown) memory bandwidth:
 * - fp32 R2C 2^24: its half length 2^23 has no split in two within the good sizes, so the
 *   route takes 2048 x 4096 and a pointwise split scatter, and with ZIPFFT_LOOSE_R2C=0 the
 *   split in three whose last kernel splits its row pairs. R2C 9483264, whose split in two
 *   would have 2058-point columns of radix 21, keeps its split in three unless
 *   ZIPFFT_LOOSE_R2C=2. The full tier's workspace sweep runs the 2^24 transform.
 * - fp32 C2R 3 x 2^22: its half length splits in three kernels that do not pair, so the
 *   route takes 2048 x 3072 with the merge in its first kernel, and with ZIPFFT_LOOSE_C2R=0
 *   the split in three; C2R 2^24, whose split in three pairs its last two, keeps it. The full
 *   tier runs the 3 x 2^22 transform as planned against the reference (18 s on the CPU
 *   machine without sanitizers; the GPU script's bench checks it against cuFFT).
 * The plans are checked on the CPU backend. */
static const real_case loose_r2c_cases[] = {{ZIPFFT_R2C, ZIPFFT_F32, 1, {16777216}, 1, DENSE},
                                            {ZIPFFT_R2C, ZIPFFT_F32, 1, {9483264}, 1, DENSE}};
static const real_case loose_c2r_cases[] = {{ZIPFFT_C2R, ZIPFFT_F32, 1, {12582912}, 1, DENSE},
                                            {ZIPFFT_C2R, ZIPFFT_F32, 1, {16777216}, 1, DENSE}};

/* A loose-split plan check: case c planned with its kind's tuning variable
 * (ZIPFFT_LOOSE_R2C or ZIPFFT_LOOSE_C2R) set to value (NULL: unset) prints every one of
 * needles; what says what failed. */
typedef struct loose_plan {
  const real_case *c;
  const char *value, *what;
  const char *needles[3];
} loose_plan;

static const loose_plan loose_real_plans[] = {
    {&loose_r2c_cases[0],
     NULL,
     "R2C 2^24 not as 2048 x 4096 with a split scatter",
     {"n=2048, ", "split into the half spectrum"}},
    {&loose_r2c_cases[1], NULL, "R2C 9483264 not split in three", {"n=168, "}},
    {&loose_r2c_cases[0], "0", "R2C 2^24 with ZIPFFT_LOOSE_R2C=0 not split in three", {"n=128, "}},
    {&loose_r2c_cases[1],
     "2",
     "R2C 9483264 with ZIPFFT_LOOSE_R2C=2 not as 2058 x 2304",
     {"n=2058, "}},
    {&loose_c2r_cases[0],
     NULL,
     "C2R 3 x 2^22 not as 2048 x 3072 merged in its first kernel",
     {"n=2048, 3072 transforms", "2 kernels", "merged from the half spectrum"}},
    {&loose_c2r_cases[1],
     NULL,
     "C2R 2^24 not its split in three, paired",
     {"pair kernel", "3 kernels"}},
    {&loose_c2r_cases[0],
     "0",
     "C2R 3 x 2^22 with ZIPFFT_LOOSE_C2R=0 not split in three",
     {"3 kernels"}},
    {&loose_c2r_cases[1], "2", "C2R 2^24 with ZIPFFT_LOOSE_C2R=2 not split in two", {"2 kernels"}},
};

static void check_loose_real_splits(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU || !zt_in_first_part()) return;
  char printed[8192];
  for (size_t i = 0; i < sizeof loose_real_plans / sizeof *loose_real_plans; i++) {
    const loose_plan *e = &loose_real_plans[i];
    const char *variable = e->c->type == ZIPFFT_R2C ? "ZIPFFT_LOOSE_R2C" : "ZIPFFT_LOOSE_C2R";
    if (e->value) setenv(variable, e->value, 1);
    int found = plan_mentions(e->c, e->needles[0], printed, sizeof printed);
    for (int k = 1; k < 3 && e->needles[k]; k++)
      found = found && strstr(printed, e->needles[k]) != NULL;
    unsetenv(variable);
    ZT_CHECK(found, "%s:\n%s", e->what, printed);
  }
  if (zt_full_tier()) run_case(&loose_c2r_cases[0]);
}

/* A pointwise split's twiddles grow with sqrt(n), not n (plan/twiddle.c split_shift_of):
 * fp32 R2C 2^33, planned on the CPU under ZIPFFT_MEMORY_LIMIT=1 (so it fails before
 * allocating anything), names its tables' bytes. In one level they took 2^31 values, 17 GB. */
static void check_split_table_size(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  int64_t n = (int64_t)1 << 33;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  setenv("ZIPFFT_MEMORY_LIMIT", "1", 1);
  zipfft_status s = zipfft_desc_create(&d, ZIPFFT_R2C, ZIPFFT_F32, 1, &n);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(&p, d);
  char message[512];
  snprintf(message, sizeof message, "%s", zipfft_last_error());
  unsetenv("ZIPFFT_MEMORY_LIMIT");
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  unsigned long long workspace = 0, tables = ~0ull;
  const char *at = strstr(message, "needs ");
  if (at) sscanf(at, "needs %llu bytes of workspace, %llu of tables", &workspace, &tables);
  ZT_CHECK(s == ZIPFFT_ERROR_TOO_LARGE && tables < (1ull << 24),
           "fp32 R2C 2^33: %s (tables must stay under 16 MB)", message);
}

/* On the CPU backend: the plan of c prefetches (its kernel's name says _pa) exactly when c is
 * an R2C case of contiguous rows. */
static void check_prefetch_plan(const real_case *c) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  char text[256], printed[8192];
  describe(c, text, sizeof text);
  int wanted = c->layout != GAPS;
  ZT_CHECK(plan_mentions(c, "_pa", printed, sizeof printed) == wanted,
           "%s: %s a prefetching kernel:\n%s", text, wanted ? "lacks" : "has", printed);
}

/* On the CPU backend (whose unknown memory bandwidth counts as slow, where pairs pay): the
 * plan of c runs a pair kernel. */
static void check_pair_plan(const real_case *c) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  char text[256], printed[8192];
  describe(c, text, sizeof text);
  ZT_CHECK(plan_mentions(c, "pair kernel", printed, sizeof printed), "%s: no pair kernel:\n%s",
           text, printed);
}

/* ZIPFFT_RADICES (tuning) names the pass radices of one-kernel transforms of their
 * length: the half-length kernels of fp32 16384 as 8x16x16x4 (512 threads, the C2R merge
 * mirrored in a first pass of radix 8) and 4x16x16x8 run so, and right; a list that does
 * not multiply to the length, or has anything beside radices and x's between them, is not
 * taken. */
static void check_named_radices(void) {
  static const real_case named[] = {{ZIPFFT_C2R, ZIPFFT_F32, 1, {16384}, 2, DENSE},
                                    {ZIPFFT_R2C, ZIPFFT_F32, 1, {16384}, 1, GAPS}};
  static const char *const lists[] = {"8x16x16x4", "4x16x16x8"};
  char text[256], printed[8192], want[64];
  for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
    setenv("ZIPFFT_RADICES", lists[l], 1);
    snprintf(want, sizeof want, "radix %s,", lists[l]);
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
      describe(&named[i], text, sizeof text);
      if (zt_zipfft_backend() == ZIPFFT_BACKEND_CPU)
        ZT_CHECK(plan_mentions(&named[i], want, printed, sizeof printed),
                 "%s: ZIPFFT_RADICES=%s not planned:\n%s", text, lists[l], printed);
      run_case(&named[i]);
    }
  }
  static const char *const refused[] = {"8x16x16x3", /* product 6144 */
                                        "8x16x16x4junk", "8x16x16x4x", "x8x16x16x4",
                                        "8xx16x16x4",    " 8x16x16x4", "8x16x16x4 2"};
  describe(&named[0], text, sizeof text);
  for (size_t l = 0; l < sizeof refused / sizeof *refused; l++) {
    setenv("ZIPFFT_RADICES", refused[l], 1);
    if (zt_zipfft_backend() == ZIPFFT_BACKEND_CPU)
      ZT_CHECK(!plan_mentions(&named[0], "radix 8x16x16x", printed, sizeof printed),
               "%s: ZIPFFT_RADICES=\"%s\" taken:\n%s", text, refused[l], printed);
  }
  unsetenv("ZIPFFT_RADICES");
}

/* Rader's half-length kernels (R2C and C2R of 2p = 15362) run their passes in place (the
 * split reads, and the merge writes, Rader's slots around them), and keep the Stockham
 * passes with ZIPFFT_RADER_IN_PLACE=0. Checked on the CPU backend; the cases above run both
 * kinds of 2p in place (514, 194, 32834). */
static void check_rader_half_in_place(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU) return;
  static const real_case halves[] = {{ZIPFFT_R2C, ZIPFFT_F32, 1, {15362}, 1, DENSE},
                                     {ZIPFFT_C2R, ZIPFFT_F32, 1, {15362}, 1, DENSE}};
  char text[256], printed[8192];
  for (size_t i = 0; i < sizeof halves / sizeof *halves; i++) {
    describe(&halves[i], text, sizeof text);
    ZT_CHECK(plan_mentions(&halves[i], "passes in place", printed, sizeof printed),
             "%s: Rader's passes not in place:\n%s", text, printed);
    setenv("ZIPFFT_RADER_IN_PLACE", "0", 1);
    ZT_CHECK(!plan_mentions(&halves[i], "passes in place", printed, sizeof printed),
             "%s: passes in place with ZIPFFT_RADER_IN_PLACE=0:\n%s", text, printed);
    unsetenv("ZIPFFT_RADER_IN_PLACE");
  }
}

/* fp64 C2R kernels that do not mirror merge the half spectrum in their first pass's loads
 * from a half length of 1024 (plan/single.c, choose_merge_on_load): C2R 8192 (half 4096,
 * which cannot mirror) does, C2R 512 does not (it lost 11 points of copy bandwidth so on an
 * H100). The plans are checked on every backend, and all three run (8192 is the one
 * ordinary-input run of a kernel merging on load since 4096 mirrors). */
static const real_case merge_on_load_cases[] = {{ZIPFFT_C2R, ZIPFFT_F64, 1, {512}, 3, GAPS},
                                                {ZIPFFT_C2R, ZIPFFT_F64, 2, {3, 256}, 2, INPLACE},
                                                {ZIPFFT_C2R, ZIPFFT_F64, 1, {8192}, 2, GAPS}};

/* Arrays at pointer offsets users pass: one real element past 64-byte alignment (4 bytes
 * in fp32, 8 in fp64), so that complex elements lose their natural alignment, and 2 bytes,
 * less than a real element. Single kernels (odd, even, 2D, in place, strided), the
 * mirrored and cluster kernels, short kernels staged through shared memory (whose vector
 * branch copies pairs of reals), and the four-step with the paired rows (limit 64). */
static const real_case offset_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {1000}, 2, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {15}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 2, {12, 10}, 2, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {9, 7}, 1, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {16384}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {65536}, 1, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {65536}, 1, DENSE},
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {16}, 300, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {24}, 70, INPLACE},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {12}, 130, DENSE},
};

static void check_pointer_offsets(void) {
  for (int odd = 0; odd < 2; odd++)
    for (size_t i = 0; i < sizeof offset_cases / sizeof *offset_cases; i++) {
      offset_bytes = odd ? 2 : zt_real_size(offset_cases[i].prec);
      run_case(&offset_cases[i]);
    }
  /* the real array alone one real off: its pairs must not take the vector branch that the
   * aligned complex array allows (the CPU kernels' alignment checks trap if they do) */
  offset_real_side_only = 1;
  for (size_t i = 0; i < sizeof offset_cases / sizeof *offset_cases; i++) {
    offset_bytes = zt_real_size(offset_cases[i].prec);
    if (offset_cases[i].layout != INPLACE) run_case(&offset_cases[i]);
  }
  offset_real_side_only = 0;
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  offset_bytes = 4;
  for (size_t i = 0; i < sizeof paired_row_cases / sizeof *paired_row_cases; i++)
    if (paired_row_cases[i].prec == ZIPFFT_F32) run_case(&paired_row_cases[i]);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  offset_bytes = 0;
}

/* C2R cluster kernels that take X[L - e] from the partner block's shared memory
 * (ZIPFFT_CLUSTER_MIRROR=1, not planned by default), in clusters of 4 (fp32 65536: odd rows
 * 8 bytes off a 16-byte boundary; fp64 32768 in place; a 2D plan's rows), 2 and 8 blocks
 * (the partner of rank b is C - b, and 0's and C/2's are themselves); fp32 61440 (7680
 * points a block as 24x20x16 at 384 threads: 320 first-pass butterflies, the rest of the
 * threads idle) and 65536 as 8x32x32 (four first-pass butterflies a thread). */
static const struct {
  real_case c;
  /* ZIPFFT_CLUSTER_BLOCKS, ZIPFFT_CLUSTER_BYTES and ZIPFFT_RADICES; NULL: the defaults */
  const char *blocks, *bytes, *radices;
  const char *kernel; /* in the kernel's name */
} cluster_mirror_cases[] = {
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {65536}, 3, DENSE}, NULL, NULL, NULL, "_t256_f1_grp4_cmr_"},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {32768}, 1, INPLACE}, NULL, NULL, NULL, "_grp4_cmr_"},
    {{ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 65536}, 1, DENSE}, NULL, NULL, NULL, "_grp4_cmr_"},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {65536}, 2, INPLACE}, "2", "140000", NULL, "_grp2_cmr_"},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {65536}, 2, DENSE}, "8", "40000", NULL, "_grp8_cmr_"},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {61440}, 2, DENSE},
     NULL,
     NULL,
     NULL,
     "_r24x20x16_t384_f1_grp4_cmr_"},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {65536}, 1, INPLACE},
     NULL,
     NULL,
     "8x32x32",
     "_r8x32x32_t256_f1_grp4_cmr_"}};
enum { cluster_mirror_count = sizeof cluster_mirror_cases / sizeof *cluster_mirror_cases };

/* Sets the cluster size of cluster_mirror_cases[i] (on) or clears it with the mirror. */
static void cluster_mirror_env(size_t i, int on) {
  if (!on) {
    unsetenv("ZIPFFT_CLUSTER_MIRROR");
    unsetenv("ZIPFFT_CLUSTER_BLOCKS");
    unsetenv("ZIPFFT_CLUSTER_BYTES");
    unsetenv("ZIPFFT_RADICES");
    return;
  }
  if (cluster_mirror_cases[i].blocks) {
    setenv("ZIPFFT_CLUSTER_BLOCKS", cluster_mirror_cases[i].blocks, 1);
    setenv("ZIPFFT_CLUSTER_BYTES", cluster_mirror_cases[i].bytes, 1);
  }
  if (cluster_mirror_cases[i].radices) setenv("ZIPFFT_RADICES", cluster_mirror_cases[i].radices, 1);
}

/* Runs cluster_mirror_cases[i] with the mirror through the cluster. */
static void run_cluster_mirror_case(size_t i) {
  cluster_mirror_env(i, 1);
  setenv("ZIPFFT_CLUSTER_MIRROR", "1", 1);
  run_case(&cluster_mirror_cases[i].c);
  cluster_mirror_env(i, 0);
}

/* The cluster_mirror_cases plan the mirror only with the variable, in the kernels they
 * name (part 0), and run, their kernels sanitized (every read of a partner's shared memory
 * within it: an idle thread's would not change a result). */
static void check_cluster_mirror(void) {
  const char *needle = "from the partner block's shared memory";
  char printed[8192], text[256];
  for (size_t i = 0; i < cluster_mirror_count; i++) {
    const real_case *c = &cluster_mirror_cases[i].c;
    describe(c, text, sizeof text);
    cluster_mirror_env(i, 1);
    if (zt_in_first_part()) {
      ZT_CHECK(!plan_mentions(c, needle, printed, sizeof printed), "%s mirrors by default:\n%s",
               text, printed);
      setenv("ZIPFFT_CLUSTER_MIRROR", "1", 1);
      ZT_CHECK(plan_mentions(c, needle, printed, sizeof printed) &&
                   plan_mentions(c, cluster_mirror_cases[i].kernel, printed, sizeof printed),
               "%s: no mirror through the cluster in a kernel %s with ZIPFFT_CLUSTER_MIRROR=1:\n%s",
               text, cluster_mirror_cases[i].kernel, printed);
    }
    cluster_mirror_env(i, 0);
    zt_sanitized_kernels_begin();
    run_cluster_mirror_case(i);
    zt_sanitized_kernels_end();
  }
}

/* Real routes through the workspace keep plain four-step column kernels with
 * ZIPFFT_CLUSTER_COLUMNS set (the variable is for the rank-1 C2C strategy: the routes turn
 * column kernels into merging and Bluestein kernels, which cluster kernels cannot be), and
 * run: R2C and C2R of 2^17 reals, the half-length 65536-point complex FFT split 4096 x 16,
 * fp32 and fp64, in several layouts. */
static void check_cluster_columns(void) {
  static const real_case column_cases[] = {{ZIPFFT_R2C, ZIPFFT_F32, 1, {131072}, 2, DENSE},
                                           {ZIPFFT_C2R, ZIPFFT_F32, 1, {131072}, 2, INPLACE},
                                           {ZIPFFT_R2C, ZIPFFT_F64, 1, {131072}, 1, GAPS},
                                           {ZIPFFT_C2R, ZIPFFT_F64, 1, {131072}, 1, SHIFTED}};
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "4096", 1);
  setenv("ZIPFFT_FOURSTEP_SPLIT", "4096x16", 1);
  setenv("ZIPFFT_PAIR", "0", 1);
  setenv("ZIPFFT_CLUSTER_COLUMNS", "4", 1);
  char printed[8192];
  for (size_t i = 0; i < sizeof column_cases / sizeof *column_cases; i++) {
    if (zt_in_first_part())
      ZT_CHECK(!plan_mentions(&column_cases[i], "cluster of", printed, sizeof printed),
               "real case %zu has a cluster kernel:\n%s", i, printed);
    run_case(&column_cases[i]);
  }
  unsetenv("ZIPFFT_CLUSTER_COLUMNS");
  unsetenv("ZIPFFT_PAIR");
  unsetenv("ZIPFFT_FOURSTEP_SPLIT");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* C2R inputs with imaginary parts at the last axis's bins 0 and n/2 (see
 * self_conjugate_imaginary), through every C2R method: one kernel (odd, even, Rader,
 * Bluestein, ranks 2 and 3), mirrored, merged on load, one cluster kernel (also mirroring
 * through the cluster), the four-step's
 * merging first kernel in splits of two to four (and three with the last two paired), and
 * the merge gather of Rader rows. */
static void check_self_conjugate_imaginary(void) {
#define RUN_C2R(list) run_c2r_cases(list, sizeof list / sizeof *list)
  self_conjugate_imaginary = 1;
  RUN_C2R(cases);
  RUN_C2R(half_kernel_cases);
  RUN_C2R(long_cases);
  RUN_C2R(merge_on_load_cases);
  for (size_t i = 0; i < cluster_mirror_count; i++) run_cluster_mirror_case(i);
  setenv("ZIPFFT_MIRRORED", "2", 1);
  RUN_C2R(mirrored_cases);
  unsetenv("ZIPFFT_MIRRORED");
  static const char *const caps[] = {"8", "64"};
  for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
    setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", caps[c], 1);
    RUN_C2R(paired_row_cases);
  }
  RUN_C2R(pair_route_cases); /* at 64 */
  setenv("ZIPFFT_REAL_ROW_PAIRS", "1", 1);
  RUN_C2R(row_pair_cases);
  unsetenv("ZIPFFT_REAL_ROW_PAIRS");
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "200", 1);
  RUN_C2R(rader_row_cases);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  self_conjugate_imaginary = 0;
#undef RUN_C2R
}

/* fp64 C2R kernels that do not mirror merge on load from a half length of 1024, here planned
 * for a device of slow memory (kernels of whole warps mirror on either kind:
 * check_real_rules_by_device); planned and run so. */
static void check_merge_on_load(void) {
  char printed[8192];
  setenv("ZIPFFT_SLOW_MEMORY", "1", 1);
  for (size_t i = 0; i < sizeof merge_on_load_cases / sizeof *merge_on_load_cases; i++) {
    const real_case *c = &merge_on_load_cases[i];
    int merges = c->lengths[c->rank - 1] >= 2048;
    ZT_CHECK(plan_mentions(c, "_mol_", printed, sizeof printed) == merges,
             "fp64 C2R %lld %s on load:\n%s", (long long)c->lengths[c->rank - 1],
             merges ? "does not merge" : "merges", printed);
  }
  for (size_t i = 0; i < sizeof merge_on_load_cases / sizeof *merge_on_load_cases; i++)
    run_case(&merge_on_load_cases[i]);
  unsetenv("ZIPFFT_SLOW_MEMORY");
}

/* C2R through the workspace merges row pairs of the half spectrum in its first kernel
 * (transform-major, F rows a block); its shared rows are spread over the banks for the merge
 * (ZIPFFT_MERGE_STRIDE=0, fp64's rule), for its passes (1) or for both, the second half of
 * the rows moved by slots/F (2, fp32's rule). Each setting runs merges of F = 16 (fp32
 * 131072: 256-point rows, moved by 1 slot), F = 8 in fp32 (moved by 2) and F = 8 in fp64
 * (fp64 2^19 as planned for slow memory without short merge columns, ZIPFFT_SHORT_MERGE=0:
 * 512-point rows, moved by 1). */
static void check_merge_strides(void) {
  static const struct {
    real_case c;
    const char *major_ffts, *slow_memory, *merge_kernel;
  } merge_cases[] = {
      {{ZIPFFT_C2R, ZIPFFT_F32, 1, {131072}, 2, DENSE}, NULL, NULL, "_n256_r16x16_t16_f16_tm_"},
      {{ZIPFFT_C2R, ZIPFFT_F32, 1, {131072}, 1, INPLACE}, "8", NULL, "_n256_r16x16_t16_f8_tm_"},
      {{ZIPFFT_C2R, ZIPFFT_F64, 1, {524288}, 1, GAPS}, NULL, "1", "_n512_r8x8x8_t64_f8_tm_"}};
  static const char *const settings[] = {"0", "1", "2"};
  char printed[8192];
  for (size_t v = 0; v < sizeof settings / sizeof *settings; v++) {
    setenv("ZIPFFT_MERGE_STRIDE", settings[v], 1);
    for (size_t i = 0; i < sizeof merge_cases / sizeof *merge_cases; i++) {
      if (merge_cases[i].major_ffts) setenv("ZIPFFT_MAJOR_FFTS", merge_cases[i].major_ffts, 1);
      if (merge_cases[i].slow_memory) {
        setenv("ZIPFFT_SLOW_MEMORY", merge_cases[i].slow_memory, 1);
        setenv("ZIPFFT_SHORT_MERGE", "0", 1);
      }
      if (zt_in_first_part())
        ZT_CHECK(
            plan_mentions(&merge_cases[i].c, merge_cases[i].merge_kernel, printed, sizeof printed),
            "merge case %zu has no %s kernel:\n%s", i, merge_cases[i].merge_kernel, printed);
      run_case(&merge_cases[i].c);
      unsetenv("ZIPFFT_MAJOR_FFTS");
      unsetenv("ZIPFFT_SLOW_MEMORY");
      unsetenv("ZIPFFT_SHORT_MERGE");
    }
  }
  unsetenv("ZIPFFT_MERGE_STRIDE");
}

/* Short fp32 R2C kernels of a power-of-two half length, 64 to 256, take radices of at most
 * 8 and at most n / 16 (plan/single.c, short_r2c_radix_cap): R2C 128 as 4x4x4, 256 as
 * 8x8x2, 512 as 8x8x4; fp64 keeps 8x8 at 128, and Rader's inner 256-point FFTs (R2C 514,
 * half length 257) 16x16. Plans checked on every backend; each runs. */
static const struct {
  real_case c;
  const char *radices;
} short_r2c_cases[] = {{{ZIPFFT_R2C, ZIPFFT_F32, 1, {128}, 9, GAPS}, "_r4x4x4_"},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {256}, 5, DENSE}, "_r8x8x2_"},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {512}, 3, INPLACE}, "_r8x8x4_"},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 256}, 2, GAPS}, "_r8x8x2_"},
                       {{ZIPFFT_R2C, ZIPFFT_F64, 1, {128}, 9, GAPS}, "_r8x8_"},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {514}, 3, GAPS}, "_r16x16_"}};

static void check_short_r2c_radices(void) {
  char printed[8192];
  for (size_t i = 0; i < sizeof short_r2c_cases / sizeof *short_r2c_cases; i++) {
    const real_case *c = &short_r2c_cases[i].c;
    ZT_CHECK(plan_mentions(c, short_r2c_cases[i].radices, printed, sizeof printed),
             "R2C %lld (%s) not as %s:\n%s", (long long)c->lengths[c->rank - 1],
             c->prec == ZIPFFT_F32 ? "fp32" : "fp64", short_r2c_cases[i].radices, printed);
    run_case(c);
  }
}

/* ZIPFFT_SPLIT_BY_ELEMENT=1 (tuning; by default only staged kernels and fp32 half lengths of
 * at most 32): R2C_HALF kernels hand out the
 * split's outputs by element over the block (plan/staging.c, zipfft__choose_split_by_element); odd
 * batches leave the last block partly idle, and the lengths cover several transforms per
 * block, one, a mixed radix and ranks 2 and 3. */
static const real_case split_by_element_cases[] = {
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {64}, 9, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {256}, 5, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F64, 1, {1024}, 3, INPLACE},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {1000}, 3, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {5, 128}, 2, GAPS},
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {4096}, 2, DENSE},
    {ZIPFFT_R2C, ZIPFFT_F64, 3, {3, 6, 62}, 2, INPLACE}};

/* Short kernels that stage their inputs and outputs through shared memory by element
 * (plan/staging.c, zipfft__stage_io_wanted): R2C and C2R of 8 to 32 points (in blocks of 8 KB of
 * data, zipfft__staged_block_threads; half length 16 as 4x4), fp64, in place, batches of several
 * blocks with the last partly idle; fp32 half length 2 and 1 stays unstaged (its rows are
 * read whole). Odd lengths (the full-length kinds: a row of reals two to a slot, the
 * Hermitian half mirrored from the stage) as well: one pass (19, 9) and two (21, 51, 15),
 * rows back to back, in place (rows apart) and at shifted pointers, those of one thread a
 * transform (19, 9, 15) with their real rows packed n apart; with gaps between the
 * elements they cannot stage, and below 7 points they are not staged (not measured). */
static const struct {
  real_case c;
  int staged; /* 1: staged, 2: its real rows packed too */
} staged_io_cases[] = {{{ZIPFFT_R2C, ZIPFFT_F32, 1, {8}, 300, DENSE}, 1},
                       {{ZIPFFT_C2R, ZIPFFT_F32, 1, {16}, 513, DENSE}, 1},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {32}, 257, INPLACE}, 1},
                       {{ZIPFFT_C2R, ZIPFFT_F32, 1, {32}, 70, INPLACE}, 1},
                       {{ZIPFFT_R2C, ZIPFFT_F64, 1, {16}, 130, DENSE}, 1},
                       {{ZIPFFT_C2R, ZIPFFT_F64, 1, {32}, 65, DENSE}, 1},
                       {{ZIPFFT_R2C, ZIPFFT_F64, 1, {4}, 100, INPLACE}, 1},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {4}, 100, DENSE}, 0},
                       {{ZIPFFT_C2R, ZIPFFT_F32, 1, {2}, 33, DENSE}, 0},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {19}, 300, DENSE}, 2},
                       {{ZIPFFT_C2R, ZIPFFT_F32, 1, {19}, 130, DENSE}, 2},
                       {{ZIPFFT_R2C, ZIPFFT_F64, 1, {21}, 100, INPLACE}, 1},
                       {{ZIPFFT_C2R, ZIPFFT_F32, 1, {51}, 70, INPLACE}, 1},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {9}, 257, SHIFTED}, 2},
                       {{ZIPFFT_C2R, ZIPFFT_F32, 1, {15}, 200, SHIFTED}, 2},
                       {{ZIPFFT_C2R, ZIPFFT_F32, 1, {15}, 40, GAPS}, 0},
                       {{ZIPFFT_R2C, ZIPFFT_F32, 1, {5}, 300, DENSE}, 0},
                       {{ZIPFFT_C2R, ZIPFFT_F64, 1, {3}, 300, DENSE}, 0}};

/* The odd staged rows above again, each transform's two sides sharing one row of the stage
 * (ZIPFFT_STAGE_PACKED_REALS=0) and all of them packed (=2; by default only those of one
 * thread a transform, staged 2 above, `_srp`);
 * odd real kernels the rule does not stage, staged by ZIPFFT_STAGE_IO=2 (3 and 5 points,
 * 25 as 5x5 and 45 at five threads a transform in whole warps), and 21 at three threads in
 * a power of two of warps (ZIPFFT_STAGE_WHOLE_WARPS=0: 75 transforms, 225 threads in 8 warps;
 * 64 in 6 by default). */
static const real_case forced_staged_cases[] = {{ZIPFFT_R2C, ZIPFFT_F32, 1, {3}, 300, DENSE},
                                                {ZIPFFT_C2R, ZIPFFT_F64, 1, {5}, 131, INPLACE},
                                                {ZIPFFT_C2R, ZIPFFT_F32, 1, {25}, 70, DENSE},
                                                {ZIPFFT_R2C, ZIPFFT_F64, 1, {45}, 40, SHIFTED}};
static const real_case power_of_two_warps_case = {ZIPFFT_R2C, ZIPFFT_F32, 1, {21}, 100, INPLACE};

static void check_staged_io(void) {
  char printed[8192];
  for (size_t i = 0; i < sizeof staged_io_cases / sizeof *staged_io_cases; i++) {
    const real_case *c = &staged_io_cases[i].c;
    int says = plan_mentions(c, "_sio_", printed, sizeof printed);
    says += says && plan_mentions(c, "_sio_srp_", printed, sizeof printed);
    ZT_CHECK(says == staged_io_cases[i].staged, "%s %lld (%s): staged %d, want %d:\n%s",
             c->type == ZIPFFT_R2C ? "R2C" : "C2R", (long long)c->lengths[0],
             c->prec == ZIPFFT_F32 ? "fp32" : "fp64", says, staged_io_cases[i].staged, printed);
    run_case(c);
  }
  setenv("ZIPFFT_STAGE_IO", "2", 1);
  for (size_t i = 0; i < sizeof forced_staged_cases / sizeof *forced_staged_cases; i++) {
    const real_case *c = &forced_staged_cases[i];
    ZT_CHECK(plan_mentions(c, "_sio_", printed, sizeof printed),
             "odd length %lld with ZIPFFT_STAGE_IO=2 is not staged:\n%s", (long long)c->lengths[0],
             printed);
    run_case(c);
  }
  unsetenv("ZIPFFT_STAGE_IO");
  for (int packed = 0; packed < 2; packed++) { /* 0: shared rows, 1 (=2): every one packed */
    setenv("ZIPFFT_STAGE_PACKED_REALS", packed ? "2" : "0", 1);
    for (size_t i = 0; i < sizeof staged_io_cases / sizeof *staged_io_cases; i++) {
      const real_case *c = &staged_io_cases[i].c;
      if (!staged_io_cases[i].staged || c->lengths[0] % 2 == 0) continue;
      int staged = plan_mentions(c, "_sio_", printed, sizeof printed);
      int got = plan_mentions(c, "_srp", printed, sizeof printed);
      ZT_CHECK(staged && got == packed,
               "odd length %lld with ZIPFFT_STAGE_PACKED_REALS=%d: staged %d, packed %d:\n%s",
               (long long)c->lengths[0], packed ? 2 : 0, staged, got, printed);
      run_case(c);
    }
  }
  unsetenv("ZIPFFT_STAGE_PACKED_REALS");
  setenv("ZIPFFT_STAGE_WHOLE_WARPS", "0", 1);
  ZT_CHECK(plan_mentions(&power_of_two_warps_case, "_t3_f75_sio_", printed, sizeof printed),
           "R2C 21 with ZIPFFT_STAGE_WHOLE_WARPS=0 does not take 75 transforms:\n%s", printed);
  run_case(&power_of_two_warps_case);
  unsetenv("ZIPFFT_STAGE_WHOLE_WARPS");
}

static void check_split_by_element(void) {
  char printed[8192];
  setenv("ZIPFFT_SPLIT_BY_ELEMENT", "1", 1);
  ZT_CHECK(plan_mentions(&split_by_element_cases[0], "_sbe_", printed, sizeof printed),
           "R2C 64 with ZIPFFT_SPLIT_BY_ELEMENT=1 does not split by element:\n%s", printed);
  for (size_t i = 0; i < sizeof split_by_element_cases / sizeof *split_by_element_cases; i++)
    run_case(&split_by_element_cases[i]);
  unsetenv("ZIPFFT_SPLIT_BY_ELEMENT");
}

/* Real kernels' rules by device. Short ones (plan/single.c and plan/staging.c): fp32 R2C 64 splits
 * by element on every device and fp32 C2R 64 mirrors its first pass where its rows cannot be staged
 * (rank 2 with gaps; zipfft__choose_split_by_element, short_c2r_mirrored), staged at four threads a
 * transform otherwise (zipfft__stage_io_wanted); on devices of fast memory (ZIPFFT_SLOW_MEMORY=0 or
 * 1 gives any planner those rules) fp32 R2C and C2R 1024 and fp64 R2C 2048 take radix 32 unmirrored
 * (large_radix_unmirrored), fp64 C2R 2048 does not, and with slow memory none does; fp64 C2R
 * kernels of whole warps mirror where they can on either kind of memory (4096 checked on both, 2048
 * and the rows of rank 2 on fast; 256, of 8 threads, does not; choose_mirrored). Long ones
 * (plan/long_axis.c, fast_real_rows and takes_short_merge): on fast memory fp32 R2C 2^20's split
 * rows take 16 transforms a block (as on slow memory, whose rows are wider anyway); on either
 * memory C2R 2^20 splits its half length as 256 x 2048 (short merge columns), and C2R 2^22's
 * merge kernel of 512-point columns (512 x 4096) takes 8 columns a block; fp64 C2R 2^22 splits
 * in two as 512 x 4096; fp32 C2R 2000000 keeps 1000 x 1000, where 320 x 3125 would need a
 * merge pass (keep_merge_in_first_kernel). Staged kernels of one
 * thread a transform take whole warps (choose_ffts_per_block): fp32 R2C 24 128 transforms a block
 * (97 before), C2R 12 256 (225), fp64 R2C 12 128 (97), fp64 C2R 24 its 64. R2C kernels of large
 * butterflies split by element unstaged on every device (large_butterfly_split): fp32 62 and 248,
 * fp64 46 and 124; fp32 46 stays staged, fp64 174 (a half row over 1 KiB) does not split. C2R
 * kernels of 21, 27, 33 and 39 points, and fp32 R2C ones of 33 and 39, run as one butterfly at one
 * thread on every device (odd_real_one_butterfly): fp32 C2R 21 and rank 2 of 27, fp64 C2R 39, fp32
 * R2C 33; fp32 R2C 27 and fp64 R2C 33 keep their two passes at three threads.
 * Plans checked on every backend; each case runs under the rules it was checked with (odd batches,
 * strided rows, in place, rank 2). */
static const struct {
  real_case c;
  int fast_memory; /* planned with ZIPFFT_SLOW_MEMORY=0 */
  const char *name_part;
  int says;
} real_rule_cases[] = {
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {64}, 9, GAPS}, 0, "_sbe_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 64}, 2, INPLACE}, 0, "_sbe_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {128}, 3, DENSE}, 0, "_sbe_", 0},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {64}, 9, INPLACE}, 0, "_t4_f9_sio_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 64}, 2, GAPS}, 0, "_mir_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {1024}, 5, DENSE}, 1, "_r32x16_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 1024}, 1, INPLACE}, 1, "_r32x16_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {1024}, 5, GAPS}, 1, "_r16x32_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {1024}, 3, INPLACE}, 1, "_r16x32_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {2048}, 3, GAPS}, 1, "_r32x32_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {2048}, 2, INPLACE}, 1, "_r32x32_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {2048}, 2, DENSE}, 1, "_r32x32_", 0},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {2048}, 3, GAPS}, 1, "_mir_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {4096}, 2, DENSE}, 1, "_mir_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {4096}, 2, SHIFTED}, 0, "_mir_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 2, {3, 4096}, 1, INPLACE}, 1, "_mir_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {256}, 3, DENSE}, 1, "_mir_", 0},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {1024}, 3, DENSE}, 0, "_r8x8x8_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {1 << 20}, 1, DENSE}, 1, "_r2ch_f32_fwd_n1024_r32x32_t32_f16_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {1 << 20}, 1, INPLACE},
     1,
     "_c2rh_f32_inv_n256_r16x16_t16_f16_",
     1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {1 << 22}, 1, DENSE}, 1, "_c2rh_f32_inv_n512_r8x8x8_t64_f8_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {1 << 22}, 1, GAPS}, 1, "_c2rh_f64_inv_n512_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {1 << 22}, 1, GAPS}, 0, "_c2rh_f64_inv_n512_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {1 << 20}, 1, DENSE}, 0, "_c2rh_f32_inv_n256_r16x16_t16_f16_", 1},
    /* short merge columns (320 x 3125) would leave the merge a pass of its own: balanced */
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {2000000}, 1, DENSE}, 0, "_c2rh_f32_inv_n1000_r10x10x10_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {2000000}, 1, GAPS}, 1, "_c2rh_f32_inv_n1000_r10x10x10_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {24}, 300, SHIFTED}, 0, "_t1_f128_sbe_sio_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {12}, 300, DENSE}, 1, "_t1_f256_sio_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {12}, 130, INPLACE}, 0, "_t1_f128_sbe_sio_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {24}, 70, DENSE}, 1, "_t1_f64_sio_", 1},
    /* staged at four threads a transform (rows apart in place, and back to back with the
     * last block partly idle), but not with a radix above 16 */
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {64}, 70, INPLACE}, 1, "_t4_f16_sbe_sio_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {104}, 130, DENSE}, 1, "_t4_f32_sio_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {248}, 9, DENSE}, 1, "_sio_", 0},
    /* R2C of large butterflies split by element unstaged (fp32 radices 29 and 31, fp64 17
     * to 31, half rows of at most 1 KiB), fp32 radices 17 to 23 staged; unstaged is checked
     * as no "_sio" after "_sbe", since on a GPU a prefetch part ("_pa165") may follow it */
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {62}, 300, DENSE}, 0, "_r31_t1_f64_sbe_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {62}, 300, DENSE}, 0, "_sbe_sio_", 0},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {46}, 200, SHIFTED}, 1, "_r23_t1_f64_sbe_sio_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {46}, 130, INPLACE}, 1, "_r23_t1_f64_sbe_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {46}, 130, INPLACE}, 1, "_sbe_sio_", 0},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {248}, 9, DENSE}, 1, "_r31x4_t4_f9_tws_sbe_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {248}, 9, DENSE}, 1, "_sbe_sio_", 0},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {124}, 33, DENSE}, 0, "_r31x2_t2_f32_sbe_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {124}, 33, DENSE}, 0, "_sbe_sio_", 0},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {174}, 9, DENSE}, 0, "_sbe_", 0},
    /* odd real kernels as one butterfly (C2R of 21, 27, 33 and 39 points, fp32 C2R of 25
     * and 35, fp32 R2C of 33, 35 and 39) */
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {21}, 300, DENSE}, 0, "_r21_t1_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 2, {3, 27}, 2, GAPS}, 1, "_r27_t1_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {39}, 70, INPLACE}, 1, "_r39_t1_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {33}, 130, SHIFTED}, 0, "_r33_t1_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {27}, 130, DENSE}, 1, "_r9x3_t3_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F64, 1, {33}, 70, DENSE}, 0, "_r11x3_t3_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F32, 1, {25}, 130, SHIFTED}, 1, "_r25_t1_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 2, {3, 35}, 2, GAPS}, 0, "_r35_t1_", 1},
    {{ZIPFFT_C2R, ZIPFFT_F64, 1, {35}, 70, INPLACE}, 0, "_r7x5_t5_", 1},
    {{ZIPFFT_R2C, ZIPFFT_F32, 1, {25}, 130, DENSE}, 1, "_r5x5_t5_", 1},
};

static void check_real_rules_by_device(void) {
  char printed[8192], text[256];
  for (size_t i = 0; i < sizeof real_rule_cases / sizeof *real_rule_cases; i++) {
    const real_case *c = &real_rule_cases[i].c;
    int fast = real_rule_cases[i].fast_memory;
    setenv("ZIPFFT_SLOW_MEMORY", fast ? "0" : "1", 1);
    describe(c, text, sizeof text);
    int says = plan_mentions(c, real_rule_cases[i].name_part, printed, sizeof printed);
    ZT_CHECK(says == real_rule_cases[i].says, "%s (%s memory): %s %s:\n%s", text,
             fast ? "fast" : "slow", real_rule_cases[i].says ? "lacks" : "has",
             real_rule_cases[i].name_part, printed);
    run_case(c);
    unsetenv("ZIPFFT_SLOW_MEMORY");
  }
}

/* Full tier: the layout of the sweep's next case (dense, strided, in place in turn). */
static layout_kind next_layout(void) {
  static int turn;
  return (layout_kind)(turn++ % 3);
}

/* Full tier, single kernels: every length to 1024 as R2C and C2R in fp32 (batch 2; fp64
 * for every third length), then every 31-smooth length to 16384, R2C and C2R in turn (fp64
 * for every fourth); so every real method of one kernel (half length, odd full length,
 * mirrored, Rader and Bluestein lengths) at every length it takes. */
static void run_full_length_sweep(void) {
  for (int64_t n = 1; n <= 1024; n++)
    for (int t = 0; t < 2; t++) {
      zipfft_type type = t == 0 ? ZIPFFT_R2C : ZIPFFT_C2R;
      real_case f32 = {type, ZIPFFT_F32, 1, {n}, 2, next_layout()};
      run_case(&f32);
      real_case f64 = {type, ZIPFFT_F64, 1, {n}, 1, next_layout()};
      if (n % 3 == 0) run_case(&f64);
    }
  int turn = 0;
  for (int64_t n = 1025; n <= 16384; n++) {
    if (!zt_is_31_smooth(n)) continue;
    real_case c = {turn % 2 ? ZIPFFT_C2R : ZIPFFT_R2C,
                   turn % 4 == 3 ? ZIPFFT_F64 : ZIPFFT_F32,
                   1,
                   {n},
                   1,
                   next_layout()};
    run_case(&c);
    turn++;
  }
}

/* Full tier, ranks 2 and 3: every pair of these lengths (R2C and C2R, fp32 and fp64 in
 * turn) and every triple of the first four, so each axis meets each real method along the
 * last axis. */
static void run_full_shape_sweep(void) {
  static const int64_t lengths[] = {1, 2, 3, 8, 15, 16, 17, 64, 97, 128, 243, 256, 1000};
  const size_t count = sizeof lengths / sizeof *lengths;
  int turn = 0;
  for (size_t i = 0; i < count; i++)
    for (size_t j = 0; j < count; j++, turn++) {
      zipfft_precision prec = turn % 2 ? ZIPFFT_F64 : ZIPFFT_F32;
      real_case r2c = {ZIPFFT_R2C, prec, 2, {lengths[i], lengths[j]}, 2, next_layout()};
      real_case c2r = {ZIPFFT_C2R, prec, 2, {lengths[j], lengths[i]}, 2, next_layout()};
      run_case(&r2c), run_case(&c2r);
    }
  for (size_t i = 1; i < 5; i++)
    for (size_t j = 1; j < 5; j++)
      for (size_t k = 1; k < 5; k++, turn++) {
        real_case c = {turn % 2 ? ZIPFFT_C2R : ZIPFFT_R2C,   ZIPFFT_F32, 3,
                       {lengths[i], lengths[j], lengths[k]}, 1,          next_layout()};
        run_case(&c);
      }
}

/* Full tier, through the workspace: lengths split over two to four kernels under lowered
 * single-kernel limits (each factor at most the limit), R2C and C2R in both precisions,
 * planned for devices of slow and of fast memory (whose splits and row widths differ). */
static void run_full_workspace_sweep(void) {
  static const struct {
    const char *cap;
    int64_t n;
  } splits[] = {{"8", 128},     {"8", 1000},    {"8", 1024},    {"8", 343},    {"8", 8192},
                {"16", 4620},   {"17", 9826},   {"64", 13122},  {"64", 19683}, {"64", 40000},
                {"16", 131072}, {"64", 262144}, {"512", 262144}};
  for (int fast = 0; fast < 2; fast++) {
    setenv("ZIPFFT_SLOW_MEMORY", fast ? "0" : "1", 1);
    for (size_t i = 0; i < sizeof splits / sizeof *splits; i++) {
      setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", splits[i].cap, 1);
      for (int t = 0; t < 4; t++) {
        real_case c = {t % 2 ? ZIPFFT_C2R : ZIPFFT_R2C,
                       t < 2 ? ZIPFFT_F32 : ZIPFFT_F64,
                       1,
                       {splits[i].n},
                       1,
                       next_layout()};
        run_case(&c);
      }
    }
    unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
    /* the lengths whose plans differ between the memory kinds, at their true size */
    for (int64_t n = (int64_t)1 << 19; n <= (int64_t)1 << 23; n *= 2)
      for (int t = 0; t < 4; t++) {
        real_case c = {t % 2 ? ZIPFFT_C2R : ZIPFFT_R2C,
                       t < 2 ? ZIPFFT_F32 : ZIPFFT_F64,
                       1,
                       {n},
                       1,
                       next_layout()};
        run_case(&c);
      }
  }
  unsetenv("ZIPFFT_SLOW_MEMORY");
  run_case(&loose_r2c_cases[0]);
}

/* Full tier: the three sweeps; returns the cases run so far. */
static int run_full_sweeps(void) {
  run_full_length_sweep();
  run_full_shape_sweep();
  run_full_workspace_sweep();
  return cases_run;
}

/* Axes longer than one kernel go through the workspace (full-length complex rows, a
 * four-step split or Bluestein's method): exercised by lowering the single-kernel limit
 * (ZIPFFT_FOURSTEP_MAX_SINGLE), with rows alone and in pairs. */
static void run_workspace_routes(void) {
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "8", 1);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i]);
  static const char *const paired_caps[] = {"8", "64"};
  for (size_t c = 0; c < sizeof paired_caps / sizeof *paired_caps; c++) {
    setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", paired_caps[c], 1);
    for (size_t i = 0; i < sizeof paired_row_cases / sizeof *paired_row_cases; i++)
      run_case(&paired_row_cases[i]);
  }
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "200", 1);
  for (size_t i = 0; i < sizeof rader_row_cases / sizeof *rader_row_cases; i++)
    run_case(&rader_row_cases[i]);
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  for (size_t i = 0; i < sizeof pair_route_cases / sizeof *pair_route_cases; i++)
    check_pair_plan(&pair_route_cases[i]), run_case(&pair_route_cases[i]);
  if (zt_in_first_part())
    check_row_pair_plans(), check_rows_independent(), check_fused_bluestein_plans();
  for (int pairs = 0; pairs < 2; pairs++) { /* the rows alone (default), then in pairs */
    if (pairs) setenv("ZIPFFT_REAL_ROW_PAIRS", "1", 1);
    for (size_t i = 0; i < sizeof row_pair_cases / sizeof *row_pair_cases; i++)
      run_case(&row_pair_cases[i]);
  }
  unsetenv("ZIPFFT_REAL_ROW_PAIRS");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  if (zt_in_first_part()) check_real_bluestein_padding();
}

/* Kernels that tuning variables select: mirrored real passes, and prefetching ahead
 * (every prefetch within the caller's arrays). */
static void run_tuned_kernels(void) {
  setenv("ZIPFFT_MIRRORED", "2", 1);
  for (size_t i = 0; i < sizeof mirrored_cases / sizeof *mirrored_cases; i++)
    run_case(&mirrored_cases[i]);
  unsetenv("ZIPFFT_MIRRORED");
  setenv("ZIPFFT_PREFETCH_AHEAD", "2", 1);
  zt_sanitized_kernels_begin(); /* every prefetch stays within the caller's arrays */
  for (size_t i = 0; i < sizeof prefetch_cases / sizeof *prefetch_cases; i++)
    check_prefetch_plan(&prefetch_cases[i]), run_case(&prefetch_cases[i]);
  check_chirp_prefetch();
  zt_sanitized_kernels_end();
  unsetenv("ZIPFFT_PREFETCH_AHEAD");
}

int main(void) {
  if (!zt_device_ready()) return zt_finish("test_real", 0);
  int swept = 0;
  if (zt_sweep_first(run_full_sweeps, &swept)) {
    printf("test_real (%s, full tier sweep): %d cases run\n", zt_backend_name(), swept);
    return zt_finish_cases("test_real", swept);
  }
  check_rader_half_in_place();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i]);
  /* C2R's full-length method for even lengths is a tuning option; it must stay correct. */
  setenv("ZIPFFT_C2R_HALF", "0", 1);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    if (cases[i].type == ZIPFFT_C2R) run_case(&cases[i]);
  unsetenv("ZIPFFT_C2R_HALF");
  run_workspace_routes();
  for (size_t i = 0; i < sizeof long_cases / sizeof *long_cases; i++) run_case(&long_cases[i]);
  for (size_t i = 0; i < sizeof half_kernel_cases / sizeof *half_kernel_cases; i++)
    run_case(&half_kernel_cases[i]);
  run_tuned_kernels();
  check_self_conjugate_imaginary();
  check_pointer_offsets();
  for (size_t i = 0; i < sizeof round_trip_cases / sizeof *round_trip_cases; i++)
    run_round_trip(&round_trip_cases[i]);
  check_loose_real_splits();
  check_merge_on_load();
  check_merge_strides();
  check_cluster_mirror();
  check_cluster_columns();
  check_short_r2c_radices();
  check_split_by_element();
  check_real_rules_by_device();
  check_staged_io();
  check_split_table_size();
  check_named_radices();
  printf("test_real (%s): %d cases run\n", zt_backend_name(), cases_run);
  return zt_finish_cases("test_real", cases_run);
}
