/* test_callback.c - user load and store callbacks (zipfft_desc_set_load_callback /
 * _store_callback) on C2C, R2C and C2R plans of ranks 1-2, strided, single-kernel and
 * through the workspace, against a long-double reference that applies the same functions;
 * compile errors reported with the compiler's log; the argument checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "reference.h"
#include "test_util.h"

/* Loads scale by user[0] and by 1 + (offset % 3) / 4, stores by user[1] and 1 + (offset % 5)
 * / 8: both depend on the offset, so a wrong offset shows. */
static const char complex_load[] =
    "ZIPFFT_CALLBACK zcomplex scaled_load(const void *in, long long offset, void *user) {\n"
    "  const zcomplex *x = (const zcomplex *)in;\n"
    "  const zreal *k = (const zreal *)user;\n"
    "  zcomplex v = x[offset];\n"
    "  zreal f = k[0] * (1 + (offset % 3) * 0.25f);\n"
    "  v.re *= f;\n  v.im *= f;\n  return v;\n}\n";
static const char real_load[] =
    "ZIPFFT_CALLBACK zreal scaled_load(const void *in, long long offset, void *user) {\n"
    "  const zreal *k = (const zreal *)user;\n"
    "  return ((const zreal *)in)[offset] * k[0] * (1 + (offset % 3) * 0.25f);\n}\n";
static const char complex_store[] =
    "ZIPFFT_CALLBACK void scaled_store(void *out, long long offset, zcomplex v, void *user) {\n"
    "  const zreal *k = (const zreal *)user;\n"
    "  zreal f = k[1] * (1 + (offset % 5) * 0.125f);\n"
    "  v.re *= f;\n  v.im *= f;\n  ((zcomplex *)out)[offset] = v;\n}\n";
static const char real_store[] =
    "ZIPFFT_CALLBACK void scaled_store(void *out, long long offset, zreal v, void *user) {\n"
    "  const zreal *k = (const zreal *)user;\n"
    "  ((zreal *)out)[offset] = v * k[1] * (1 + (offset % 5) * 0.125f);\n}\n";

static double load_factor(int64_t off) { return 0.5 * (1 + (off % 3) * 0.25); }
static double store_factor(int64_t off) { return 2.0 * (1 + (off % 5) * 0.125); }

typedef struct cb_case {
  zipfft_type type;
  zipfft_precision prec;
  int rank;
  int64_t lengths[2], batch;
  int padded; /* gaps between elements: strides 2 (and rows one element more) */
} cb_case;

/* The input (out = 0) or output array: the logical shape (n/2+1 on the complex side of a
 * real transform), contiguous or with gaps. */
static zt_layout side_of(const cb_case *c, int out) {
  int half = out ? c->type == ZIPFFT_R2C : c->type == ZIPFFT_C2R, last = c->rank - 1;
  int64_t shape[2] = {c->lengths[0], c->lengths[1]};
  if (half) shape[last] = c->lengths[last] / 2 + 1;
  return zt_layout_make(c->rank, shape, c->batch, c->padded, 0,
                        out ? c->type == ZIPFFT_C2R : c->type == ZIPFFT_R2C);
}

static int64_t count_of(const zt_layout *s, int rank, int64_t batch) {
  return batch * s->shape[0] * (rank > 1 ? s->shape[1] : 1);
}

/* The reference output (logical order, complex pairs; reals as (x, 0)) of the loaded
 * values x (logical order, pairs): C2C and R2C by full DFTs, C2R by the inverse along the
 * first axis then each row's Hermitian expansion. */
static long double *reference(const cb_case *c, long double *x) {
  int64_t n = c->lengths[c->rank - 1], rows = c->batch * (c->rank > 1 ? c->lengths[0] : 1);
  int64_t h = n / 2 + 1;
  if (c->type == ZIPFFT_C2C || c->type == ZIPFFT_R2C) {
    zr_dft_nd(x, c->rank, c->lengths, c->batch, c->type == ZIPFFT_C2C ? -1 : -1);
    if (c->type == ZIPFFT_C2C) return x;
    long double *y = zr_alloc_pairs((size_t)(rows * h));
    for (int64_t r = 0; r < rows; r++)
      memcpy(y + 2 * r * h, x + 2 * r * n, (size_t)(2 * h) * sizeof *y);
    free(x);
    return y;
  }
  long double *y = zr_alloc_pairs((size_t)(rows * n)), *row = zr_alloc_pairs((size_t)n);
  if (c->rank > 1) { /* inverse DFT down each column of the half spectrum */
    int64_t L = c->lengths[0];
    long double *col = zr_alloc_pairs((size_t)L), *res = zr_alloc_pairs((size_t)L);
    for (int64_t b = 0; b < c->batch; b++)
      for (int64_t j = 0; j < h; j++) {
        long double *base = x + 2 * (b * L * h + j);
        for (int64_t e = 0; e < L; e++)
          col[2 * e] = base[2 * e * h], col[2 * e + 1] = base[2 * e * h + 1];
        zr_dft(col, res, L, 1);
        for (int64_t e = 0; e < L; e++)
          base[2 * e * h] = res[2 * e], base[2 * e * h + 1] = res[2 * e + 1];
      }
    free(col), free(res);
  }
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t e = 0; e < n; e++) {
      int64_t from = e <= n / 2 ? e : n - e;
      row[2 * e] = x[2 * (r * h + from)];
      row[2 * e + 1] = (e <= n / 2 ? 1 : -1) * x[2 * (r * h + from) + 1];
    }
    zr_dft(row, y + 2 * r * n, n, 1);
    for (int64_t e = 0; e < n; e++) y[2 * (r * n + e) + 1] = 0;
  }
  free(row), free(x);
  return y;
}

static zipfft_status plan_case(const cb_case *c, const zt_layout *in, const zt_layout *out,
                               void *user, zipfft_plan *p) {
  zipfft_desc d = NULL;
  zipfft_status s = zipfft_desc_create(&d, c->type, c->prec, c->rank, c->lengths);
  int real_in = in->real, real_out = out->real;
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, c->batch);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_layout(d, in->strides, in->dist, out->strides, out->dist);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_load_callback(d, real_in ? real_load : complex_load, "scaled_load", user);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_store_callback(d, real_out ? real_store : complex_store, "scaled_store",
                                       user);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, zt_zipfft_backend(), 0);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(p, d);
  zipfft_desc_destroy(d);
  return s;
}

static int run_case(const cb_case *c, void *user) {
  static const char *const types[] = {"c2c", "r2c", "c2r"};
  char text[128];
  snprintf(text, sizeof text, "%s %s n=%lldx%lld b%lld%s", types[c->type],
           c->prec == ZIPFFT_F32 ? "f32" : "f64", (long long)c->lengths[0],
           (long long)(c->rank > 1 ? c->lengths[1] : 1), (long long)c->batch,
           c->padded ? " padded" : "");
  zt_layout in = side_of(c, 0), out = side_of(c, 1);
  size_t rs = zt_real_size(c->prec);
  int pi = in.real ? 1 : 2, po = out.real ? 1 : 2;
  zipfft_plan plan = NULL;
  zipfft_status s = plan_case(c, &in, &out, user, &plan);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: plan: %s (%s)", text, zipfft_status_name(s),
           zipfft_last_error());
  if (s != ZIPFFT_SUCCESS) return 0;
  zt_check_cuda_source(plan, text);
  zt_buffer ib = zt_buffer_alloc((size_t)in.size * pi * rs, 0),
            ob = zt_buffer_alloc((size_t)out.size * po * rs, 0);
  zt_buffer_poison(&ib, rs);
  zt_buffer_poison(&ob, rs);
  int64_t total = count_of(&in, c->rank, c->batch);
  long double *x = zr_alloc_pairs((size_t)total);
  for (int64_t i = 0; i < total; i++) {
    int64_t at = zt_layout_offset(&in, c->rank, i);
    for (int part = 0; part < pi; part++) {
      zt_set_real(&ib, c->prec, pi * at + part, zt_uniform(0xCB, (uint64_t)(2 * i + part)));
      x[2 * i + part] = (long double)zt_get_real(&ib, c->prec, pi * at + part) * load_factor(at);
    }
  }
  long double *ref = reference(c, x);
  s = zt_execute(plan, &ib, &ob, NULL);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: execute: %s (%s)", text, zipfft_status_name(s),
           zipfft_last_error());
  int64_t outs = count_of(&out, c->rank, c->batch), gaps = 0;
  double *got = calloc((size_t)(2 * outs), sizeof *got);
  char *is_element = calloc((size_t)out.size, 1);
  for (int64_t i = 0; i < outs; i++) {
    int64_t at = zt_layout_offset(&out, c->rank, i);
    is_element[at] = 1;
    for (int part = 0; part < po; part++)
      got[2 * i + part] = zt_get_real(&ob, c->prec, po * at + part) / store_factor(at);
  }
  for (int64_t e = 0; e < out.size; e++)
    for (int part = 0; part < po; part++) /* both parts of a complex gap */
      gaps += !is_element[e] && !isnan(zt_get_real(&ob, c->prec, po * e + part));
  double u = c->prec == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  double err = zr_worst_rel_l2(ref, got, (size_t)(outs / c->batch), (size_t)c->batch);
  double gate = 12 * u * sqrt(log2(64.0 * c->lengths[0]));
  ZT_CHECK(err <= gate, "%s: relative L2 error %.3g above %.3g", text, err, gate);
  ZT_CHECK(gaps == 0, "%s: %lld gaps written", text, (long long)gaps);
  ZT_CHECK(zt_buffer_guards_intact(&ib) && zt_buffer_guards_intact(&ob), "%s: guards", text);
  free(got), free(ref), free(is_element);
  zt_buffer_free(&ib), zt_buffer_free(&ob);
  zipfft_plan_destroy(plan);
  return 1;
}

static const cb_case cases[] = {
    {ZIPFFT_C2C, ZIPFFT_F32, 1, {64, 1}, 3, 0},  {ZIPFFT_C2C, ZIPFFT_F64, 1, {30, 1}, 2, 1},
    {ZIPFFT_C2C, ZIPFFT_F32, 2, {16, 12}, 2, 1}, {ZIPFFT_R2C, ZIPFFT_F32, 1, {32, 1}, 2, 0},
    {ZIPFFT_R2C, ZIPFFT_F32, 2, {8, 12}, 2, 1},  {ZIPFFT_C2R, ZIPFFT_F32, 1, {16, 1}, 2, 1},
    {ZIPFFT_C2R, ZIPFFT_F64, 2, {6, 10}, 1, 0},  {ZIPFFT_C2C, ZIPFFT_F32, 1, {17, 1}, 2, 0},
    {ZIPFFT_C2C, ZIPFFT_F32, 1, {37, 1}, 2, 1}, /* Rader: the loads permuted */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {4096, 1}, 2, 0}, /* capped: stores in the split row kernel */
    {ZIPFFT_C2R, ZIPFFT_F32, 1, {4096, 1}, 2, 1}, /* capped: loads in the merging first kernel */
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {4096, 1}, 1, 1}, /* uncapped: merged as the first pass loads */
};

/* A callback that does not compile, bad names, 16-bit storage. */
static void check_errors(void) {
  int64_t n = 16;
  zipfft_desc d = NULL;
  zipfft_plan p = (zipfft_plan)(uintptr_t)1;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_CHECK_STATUS(zipfft_desc_set_load_callback(d, complex_load, "2bad", NULL),
                  ZIPFFT_ERROR_INVALID_ARGUMENT);
  ZT_CHECK_STATUS(zipfft_desc_set_load_callback(NULL, complex_load, "f", NULL),
                  ZIPFFT_ERROR_NULL_POINTER);
  ZT_OK(zipfft_desc_set_load_callback(
      d,
      "ZIPFFT_CALLBACK zcomplex broken(const void *in, long long o, void *u) {\n"
      "  return no_such_symbol_here;\n}\n",
      "broken", NULL));
  zipfft_status s = zipfft_plan_create(&p, d);
  ZT_CHECK(s == ZIPFFT_ERROR_COMPILE_FAILED || s == ZIPFFT_ERROR_CPU_COMPILER,
           "broken callback: %s", zipfft_status_name(s));
  ZT_CHECK(strstr(zipfft_last_error(), "no_such_symbol_here") != NULL,
           "the compiler's log is missing: %s", zipfft_last_error());
  ZT_CHECK(p == (zipfft_plan)(uintptr_t)1, "a failed plan_create changed *p");
  ZT_OK(zipfft_desc_set_load_callback(d, complex_load, "scaled_load", NULL));
  ZT_OK(zipfft_desc_set_storage(d, ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_DEFAULT));
  ZT_CHECK_STATUS(zipfft_plan_create(&p, d), ZIPFFT_ERROR_INVALID_STORAGE);
  ZT_OK(zipfft_desc_set_load_callback(d, NULL, NULL, NULL)); /* removed: plans again */
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
}

int main(void) {
  if (!zt_device_ready()) return zt_finish("test_callback", 0);
  float user32[2] = {0.5f, 2.0f};
  double user64[2] = {0.5, 2.0};
  void *u32 = zt_mem_alloc(sizeof user32), *u64 = zt_mem_alloc(sizeof user64);
  zt_mem_upload(u32, user32, sizeof user32);
  zt_mem_upload(u64, user64, sizeof user64);
  int ran = 0;
  for (int capped = 0; capped < 2; capped++) {
    /* then through the workspace: the gathers load and the scatters store by callback */
    if (capped) setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "8", 1);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
      ran += run_case(&cases[i], cases[i].prec == ZIPFFT_F32 ? u32 : u64);
  }
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  /* R2C with the split in the last pass's registers and C2R with the merge in the first
   * pass's (mirrored, forced at 2048 points): the pairs' stores and loads by callback */
  static const cb_case mirrored[] = {{ZIPFFT_R2C, ZIPFFT_F32, 1, {2048, 1}, 2, 1},
                                     {ZIPFFT_R2C, ZIPFFT_F64, 2, {3, 2048}, 1, 0},
                                     {ZIPFFT_C2R, ZIPFFT_F32, 1, {2048, 1}, 2, 1},
                                     {ZIPFFT_C2R, ZIPFFT_F64, 2, {3, 2048}, 1, 0}};
  setenv("ZIPFFT_MIRRORED", "2", 1);
  for (size_t i = 0; i < sizeof mirrored / sizeof *mirrored; i++)
    ran += run_case(&mirrored[i], mirrored[i].prec == ZIPFFT_F32 ? u32 : u64);
  unsetenv("ZIPFFT_MIRRORED");
  check_errors();
  zt_mem_free(u32), zt_mem_free(u64);
  printf("test_callback (%s): %d cases run\n", zt_backend_name(), ran);
  return zt_finish("test_callback", ran + 1);
}
