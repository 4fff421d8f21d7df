/* test_extent.c - zero-padded inputs and cropped outputs (zipfft_desc_set_input_extent /
 * _output_extent) of C2C, R2C and C2R transforms of ranks 1-3, against the long-double
 * reference of the explicitly padded array, with NaN-poisoned gaps that must never be read
 * or written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "reference.h"
#include "test_util.h"

typedef struct ext_case {
  zipfft_type type;
  zipfft_precision prec;
  int rank;
  int64_t lengths[3];
  int64_t in_extent[3], out_extent[3]; /* of the arrays' logical shapes */
  int64_t batch;
  int padded; /* 1: gaps between elements and rows (NaN, never to be read or written) */
} ext_case;

/* An extent-sized array as stored. */
typedef zt_layout stored;

static int is_real_side(const ext_case *c, int out) {
  return out ? c->type == ZIPFFT_C2R : c->type == ZIPFFT_R2C;
}

/* Logical length of axis k of the input (out = 0) or output array. */
static int64_t logical_length(const ext_case *c, int out, int k) {
  int half = out ? c->type == ZIPFFT_R2C : c->type == ZIPFFT_C2R;
  return half && k == c->rank - 1 ? c->lengths[k] / 2 + 1 : c->lengths[k];
}

static stored stored_of(const ext_case *c, int out) {
  return zt_layout_make(c->rank, out ? c->out_extent : c->in_extent, c->batch, c->padded, 3,
                        is_real_side(c, out));
}

static int64_t count_of(const int64_t *shape, int rank) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  return n;
}

/* Index in the logical full array (batch and logical lengths) of stored index i. */
static int64_t full_index(const ext_case *c, const stored *s, int out, int64_t i) {
  int64_t coord[3], full = 0;
  for (int k = c->rank - 1; k >= 0; k--) coord[k] = i % s->shape[k], i /= s->shape[k];
  full = i;
  for (int k = 0; k < c->rank; k++) full = full * logical_length(c, out, k) + coord[k];
  return full;
}

static void describe(const ext_case *c, char *buf, size_t len) {
  static const char *const types[] = {"c2c", "r2c", "c2r"};
  snprintf(buf, len,
           "%s %s n=%lldx%lldx%lld (rank %d) in %lldx%lldx%lld out %lldx%lldx%lld b%lld%s",
           types[c->type], c->prec == ZIPFFT_F32 ? "f32" : "f64", (long long)c->lengths[0],
           (long long)c->lengths[1], (long long)c->lengths[2], c->rank, (long long)c->in_extent[0],
           (long long)c->in_extent[1], (long long)c->in_extent[2], (long long)c->out_extent[0],
           (long long)c->out_extent[1], (long long)c->out_extent[2], (long long)c->batch,
           c->padded ? " padded" : "");
}

static zipfft_status plan_case(const ext_case *c, const stored *in, const stored *out,
                               zipfft_plan *p) {
  zipfft_desc d = NULL;
  zipfft_status s = zipfft_desc_create(&d, c->type, c->prec, c->rank, c->lengths);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, c->batch);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_input_extent(d, c->in_extent);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_output_extent(d, c->out_extent);
  if (s == ZIPFFT_SUCCESS && c->padded)
    s = zipfft_desc_set_layout(d, in->strides, in->dist, out->strides, out->dist);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, zt_zipfft_backend(), 0);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(p, d);
  zipfft_desc_destroy(d);
  return s;
}

/* Fills the stored input and returns the logical full input (complex pairs, zeros
 * outside the extents). */
static long double *fill_input(const ext_case *c, const stored *in, zt_buffer *buf) {
  int64_t full_count = c->batch;
  for (int k = 0; k < c->rank; k++) full_count *= logical_length(c, 0, k);
  long double *x = zr_alloc_pairs((size_t)full_count);
  int parts = in->real ? 1 : 2;
  for (int64_t i = 0; i < count_of(in->shape, c->rank) * c->batch; i++) {
    int64_t at = zt_layout_offset(in, c->rank, i), to = full_index(c, in, 0, i);
    for (int part = 0; part < parts; part++) {
      zt_set_real(buf, c->prec, parts * at + part, zt_uniform(0xE47, (uint64_t)(2 * i + part)));
      x[2 * to + part] = (long double)zt_get_real(buf, c->prec, parts * at + part);
    }
  }
  return x;
}

/* DFT along axis k of `count` arrays of the given lengths (complex pairs, in place). */
static void dft_axis(long double *x, int rank, const int64_t *lengths, int64_t count, int k,
                     int sign) {
  int64_t inner = 1, n = lengths[k];
  for (int a = k + 1; a < rank; a++) inner *= lengths[a];
  int64_t outer = count * count_of(lengths, rank) / (inner * n);
  long double *line = zr_alloc_pairs((size_t)n), *res = zr_alloc_pairs((size_t)n);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      long double *base = x + 2 * (o * n * inner + i);
      for (int64_t e = 0; e < n; e++)
        line[2 * e] = base[2 * e * inner], line[2 * e + 1] = base[2 * e * inner + 1];
      zr_dft(line, res, n, sign);
      for (int64_t e = 0; e < n; e++)
        base[2 * e * inner] = res[2 * e], base[2 * e * inner + 1] = res[2 * e + 1];
    }
  free(line);
  free(res);
}

/* The reference output over the logical output array (complex pairs; reals as (x, 0)). */
static long double *reference(const ext_case *c, long double *x) {
  int last = c->rank - 1;
  int sign = c->type == ZIPFFT_C2R ? 1 : -1;
  if (c->type == ZIPFFT_C2C) {
    zr_dft_nd(x, c->rank, c->lengths, c->batch, sign);
    return x;
  }
  int64_t half[3] = {c->lengths[0], c->lengths[1], c->lengths[2]};
  half[last] = c->lengths[last] / 2 + 1;
  int64_t rows = c->batch * count_of(c->lengths, c->rank) / c->lengths[last];
  int64_t n = c->lengths[last], h = half[last];
  long double *y = zr_alloc_pairs((size_t)(rows * (c->type == ZIPFFT_R2C ? h : n)));
  if (c->type == ZIPFFT_R2C) { /* full complex DFT, keep the half */
    zr_dft_nd(x, c->rank, c->lengths, c->batch, -1);
    for (int64_t r = 0; r < rows; r++)
      memcpy(y + 2 * r * h, x + 2 * r * n, (size_t)(2 * h) * sizeof *y);
  } else { /* inverse along the other axes, then each row's Hermitian expansion */
    for (int k = 0; k < last; k++) dft_axis(x, c->rank, half, c->batch, k, 1);
    long double *row = zr_alloc_pairs((size_t)n);
    for (int64_t r = 0; r < rows; r++) {
      for (int64_t e = 0; e < n; e++) {
        int64_t from = e <= n / 2 ? e : n - e;
        row[2 * e] = x[2 * (r * h + from)];
        row[2 * e + 1] = e <= n / 2 ? x[2 * (r * h + from) + 1] : -x[2 * (r * h + from) + 1];
      }
      zr_dft(row, y + 2 * r * n, n, 1);
      for (int64_t e = 0; e < n; e++) y[2 * (r * n + e) + 1] = 0;
    }
    free(row);
  }
  free(x);
  return y;
}

/* Compares the stored output with the reference inside the extents; gaps stay NaN. */
static void check_output(const ext_case *c, const stored *out, const zt_buffer *buf,
                         const long double *ref, const char *text) {
  int64_t total = count_of(out->shape, c->rank) * c->batch;
  int parts = out->real ? 1 : 2;
  double *got = calloc((size_t)total * 2, sizeof *got);
  long double *want = zr_alloc_pairs((size_t)total);
  char *is_element = calloc((size_t)out->size, 1);
  for (int64_t i = 0; i < total; i++) {
    int64_t at = zt_layout_offset(out, c->rank, i), from = full_index(c, out, 1, i);
    is_element[at] = 1;
    for (int part = 0; part < parts; part++) {
      got[2 * i + part] = zt_get_real(buf, c->prec, parts * at + part);
      want[2 * i + part] = ref[2 * from + part];
    }
  }
  int64_t n = count_of(c->lengths, c->rank);
  int smooth = 1;
  for (int k = 0; k < c->rank; k++) smooth = smooth && zt_is_31_smooth(c->lengths[k]);
  double u = c->prec == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  double gate = (smooth ? 10 : 30) * u * sqrt(n > 2 ? log2((double)n) : 1.0);
  double err = zr_worst_rel_l2(want, got, (size_t)(total / c->batch), (size_t)c->batch);
  ZT_CHECK(err <= gate, "%s: relative L2 error %.3g above %.3g", text, err, gate);
  int64_t written = 0;
  for (int64_t e = 0; e < out->size; e++)
    for (int part = 0; part < parts; part++)
      if (!is_element[e] && !isnan(zt_get_real(buf, c->prec, parts * e + part))) written++;
  ZT_CHECK(written == 0, "%s: %lld gap values written", text, (long long)written);
  free(got);
  free(want);
  free(is_element);
}

static int run_case(const ext_case *c) {
  char text[256];
  describe(c, text, sizeof text);
  stored in = stored_of(c, 0), out = stored_of(c, 1);
  size_t rs = zt_real_size(c->prec);
  size_t in_bytes = (size_t)in.size * (in.real ? 1 : 2) * rs,
         out_bytes = (size_t)out.size * (out.real ? 1 : 2) * rs;
  zipfft_plan plan = NULL;
  zipfft_status s = plan_case(c, &in, &out, &plan);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: plan: %s (%s)", text, zipfft_status_name(s),
           zipfft_last_error());
  if (s != ZIPFFT_SUCCESS) return 0;
  zt_check_cuda_source(plan, text);
  zt_buffer ib = zt_buffer_alloc(in_bytes, 0), ob = zt_buffer_alloc(out_bytes, 4);
  zt_buffer_poison(&ib, rs);
  zt_buffer_poison(&ob, rs);
  long double *ref = reference(c, fill_input(c, &in, &ib));
  unsigned char *snapshot = malloc(in_bytes);
  memcpy(snapshot, ib.data, in_bytes);
  s = zt_execute(plan, &ib, &ob, NULL);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: execute: %s (%s)", text, zipfft_status_name(s),
           zipfft_last_error());
  check_output(c, &out, &ob, ref, text);
  if (c->type != ZIPFFT_C2R || c->rank == 1)
    ZT_CHECK(memcmp(snapshot, ib.data, in_bytes) == 0, "%s: input modified", text);
  ZT_CHECK(zt_buffer_guards_intact(&ib) && zt_buffer_guards_intact(&ob), "%s: guard band written",
           text);
  free(snapshot);
  free(ref);
  zt_buffer_free(&ib);
  zt_buffer_free(&ob);
  zipfft_plan_destroy(plan);
  return 1;
}

#define F32 ZIPFFT_F32
#define F64 ZIPFFT_F64
static const ext_case cases[] = {
    {ZIPFFT_C2C, F32, 1, {64, 1, 1}, {20, 1, 1}, {33, 1, 1}, 2, 0},
    {ZIPFFT_C2C, F32, 1, {37, 1, 1}, {5, 1, 1}, {37, 1, 1}, 1, 1},  /* Rader */
    {ZIPFFT_C2C, F64, 1, {97, 1, 1}, {97, 1, 1}, {30, 1, 1}, 2, 0}, /* Rader, cropped */
    {ZIPFFT_C2C, F32, 1, {83, 1, 1}, {9, 1, 1}, {83, 1, 1}, 1, 1},  /* Bluestein */
    {ZIPFFT_C2C, F64, 1, {19, 1, 1}, {7, 1, 1}, {11, 1, 1}, 2, 0}, /* a prime radix */
    {ZIPFFT_C2C, F64, 1, {128, 1, 1}, {128, 1, 1}, {7, 1, 1}, 3, 0},
    {ZIPFFT_C2C, F32, 2, {16, 12, 1}, {5, 7, 1}, {9, 12, 1}, 2, 0},
    {ZIPFFT_C2C, F32, 2, {16, 16, 1}, {12, 3, 1}, {4, 16, 1}, 1, 1},
    {ZIPFFT_C2C, F32, 3, {8, 6, 10}, {3, 4, 5}, {8, 2, 7}, 2, 1},
    {ZIPFFT_C2C, F64, 3, {4, 8, 6}, {4, 2, 6}, {1, 8, 3}, 1, 0},
    {ZIPFFT_R2C, F32, 1, {32, 1, 1}, {10, 1, 1}, {9, 1, 1}, 2, 0},
    {ZIPFFT_R2C, F32, 1, {74, 1, 1}, {30, 1, 1}, {20, 1, 1}, 2, 1},   /* Rader, half length */
    {ZIPFFT_R2C, F64, 2, {6, 194, 1}, {4, 150, 1}, {6, 60, 1}, 1, 0}, /* Rader, half length */
    {ZIPFFT_R2C, F32, 1, {15, 1, 1}, {7, 1, 1}, {8, 1, 1}, 1, 1},
    {ZIPFFT_R2C, F32, 2, {16, 20, 1}, {6, 8, 1}, {16, 11, 1}, 2, 0},
    {ZIPFFT_R2C, F64, 2, {12, 16, 1}, {12, 16, 1}, {5, 4, 1}, 1, 1},
    {ZIPFFT_R2C, F32, 3, {6, 8, 10}, {2, 3, 4}, {6, 8, 6}, 1, 1},
    /* Bluestein, its convolution's outputs the half (padded to 125 and 250) */
    {ZIPFFT_R2C, F32, 1, {83, 1, 1}, {50, 1, 1}, {30, 1, 1}, 2, 0},
    {ZIPFFT_R2C, F64, 1, {166, 1, 1}, {166, 1, 1}, {61, 1, 1}, 1, 1},
    /* through the workspace: the split in the four-step's last kernel, cropped there */
    {ZIPFFT_R2C, F32, 1, {4096, 1, 1}, {3000, 1, 1}, {1500, 1, 1}, 2, 1},
    /* and the merge in its first kernel, padded there */
    {ZIPFFT_C2R, F32, 1, {4096, 1, 1}, {1500, 1, 1}, {3000, 1, 1}, 2, 1},
    {ZIPFFT_C2R, F32, 1, {32, 1, 1}, {5, 1, 1}, {20, 1, 1}, 2, 0},
    {ZIPFFT_C2R, F32, 1, {74, 1, 1}, {12, 1, 1}, {51, 1, 1}, 2, 1},   /* Rader, half length */
    {ZIPFFT_C2R, F64, 2, {6, 194, 1}, {5, 40, 1}, {6, 193, 1}, 1, 0}, /* Rader, half length */
    {ZIPFFT_C2R, F64, 1, {9, 1, 1}, {3, 1, 1}, {9, 1, 1}, 1, 1},
    {ZIPFFT_C2R, F32, 2, {16, 16, 1}, {7, 5, 1}, {16, 16, 1}, 2, 0},
    {ZIPFFT_C2R, F32, 2, {8, 10, 1}, {8, 6, 1}, {3, 4, 1}, 1, 1},
    {ZIPFFT_C2R, F32, 2, {8, 10, 1}, {3, 6, 1}, {8, 10, 1}, 1, 0},
    {ZIPFFT_C2R, F32, 3, {4, 6, 8}, {2, 3, 5}, {4, 5, 7}, 2, 1},
    /* Bluestein, its convolution's inputs the half read as it lies, weighted (padded to 125;
     * 166: even, the weight at N/2) */
    {ZIPFFT_C2R, F32, 1, {83, 1, 1}, {20, 1, 1}, {70, 1, 1}, 2, 1},
    {ZIPFFT_C2R, F64, 1, {166, 1, 1}, {84, 1, 1}, {150, 1, 1}, 1, 0},
    {ZIPFFT_C2R, F32, 1, {166, 1, 1}, {60, 1, 1}, {166, 1, 1}, 2, 1},
};

/* R2C with the split in the last pass's registers (mirrored kernels, forced below their
 * planned lengths): padded loads, the pairs' cropped stores. */
static const ext_case mirrored_cases[] = {
    {ZIPFFT_R2C, F32, 1, {2048, 1, 1}, {1500, 1, 1}, {700, 1, 1}, 2, 1},
    {ZIPFFT_R2C, F64, 2, {3, 4096, 1}, {2, 3000, 1}, {3, 2000, 1}, 1, 0},
};

int main(void) {
  if (!zt_device_ready()) return zt_finish("test_extent", 0);
  int ran = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) ran += run_case(&cases[i]);
  /* The same through the workspace (four-step splits, Bluestein), by lowering the
   * single-kernel limit to 8 points: padding in the gathers, cropping in the scatters. */
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "8", 1);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) ran += run_case(&cases[i]);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  setenv("ZIPFFT_MIRRORED", "2", 1);
  for (size_t i = 0; i < sizeof mirrored_cases / sizeof *mirrored_cases; i++)
    ran += run_case(&mirrored_cases[i]);
  unsetenv("ZIPFFT_MIRRORED");
  printf("test_extent (%s): %d cases run\n", zt_backend_name(), ran);
  return zt_finish("test_extent", ran);
}
