/* test_sparse_strides.c - strides, distances and pointer offsets past 2^32 elements, run on
 * the CPU backend: sparse mappings (only the pages touched are backed) hold transforms whose
 * elements lie gigabytes apart. Each output against the long-double reference; the
 * elements beside each output still poisoned. (CUDA runs arrays past 2^32 elements in
 * test_long_arrays; device memory is not sparse, so this test runs on the CPU only.) A
 * case needs up to 100 GiB of address space: where the system refuses it (ENOMEM: a
 * ulimit -v, strict overcommit) the case is skipped with a message. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "device.h"
#include "reference.h"
#include "test_util.h"

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0 /* not every system has it; the mapping is sparse all the same */
#endif
_Static_assert(SIZE_MAX >= UINT64_MAX, "the mappings' sizes need a 64-bit size_t");

/* One problem: rank 1 or 2 (lengths, the last fastest), batch, strides and distances in
 * elements of the side's type (complex, or real for R2C's input and C2R's output), and a
 * byte offset of each side's first element from the start of its mapping. */
typedef struct sparse_case {
  zipfft_type type;
  zipfft_precision prec;
  int rank;
  int64_t lengths[2], batch;
  int64_t in_strides[2], in_dist, out_strides[2], out_dist;
  uint64_t in_offset, out_offset;
} sparse_case;

#define G ((int64_t)1 << 30)
static const sparse_case cases[] = {
    /* transforms 2^32 + 7 elements apart, read from 2^33 bytes into the mapping */
    {ZIPFFT_C2C, ZIPFFT_F32, 1, {16, 1}, 3, {1, 1}, 4 * G + 7, {1, 1}, 16, 8ull * G, 0},
    /* outputs 2^29 + 3 apart (11 of them span 5.9e9 elements), batches interleaved */
    {ZIPFFT_C2C, ZIPFFT_F64, 1, {12, 1}, 2, {1, 1}, 12, {G / 2 + 3, 1}, 1, 0, 3ull * G},
    /* rows 2^32 + 1 apart, the batch's two transforms side by side within each row */
    {ZIPFFT_C2C, ZIPFFT_F32, 2, {3, 8}, 2, {4 * G + 1, 1}, 8, {8, 1}, 24, 0, 0},
    /* real rows 2^32 + 3 apart (R2C), complex rows 2^32 + 1 apart (C2R) */
    {ZIPFFT_R2C, ZIPFFT_F32, 1, {16, 1}, 2, {1, 1}, 4 * G + 3, {1, 1}, 9, 0, 0},
    {ZIPFFT_C2R, ZIPFFT_F64, 1, {10, 1}, 2, {1, 1}, 4 * G + 1, {1, 1}, 4 * G + 5, 0, 5ull * G},
};

/* A side of a problem: its mapping, element size (bytes of a real or complex value) and the
 * shape it holds (the Hermitian half on the complex side of a real transform). */
typedef struct side {
  unsigned char *base;
  size_t bytes, element;
  int complex_values;
  int64_t shape[2], strides[2], dist;
  uint64_t offset;
  int refused; /* mmap's errno, 0 when mapped */
} side;

/* Elements of a shape over the batch. */
static int64_t shape_count(const sparse_case *c, const int64_t *shape) {
  return c->batch * shape[0] * (c->rank > 1 ? shape[1] : 1);
}

/* Byte position of logical element i (row-major over batch and shape). */
static uint64_t position(const sparse_case *c, const side *s, int64_t i) {
  int64_t last = c->rank - 1, at = (i % s->shape[last]) * s->strides[last];
  i /= s->shape[last];
  if (c->rank > 1) at += (i % s->shape[0]) * s->strides[0], i /= s->shape[0];
  return s->offset + (uint64_t)(at + i * s->dist) * s->element;
}

/* The input or output side of a problem, its mapping made just long enough (base NULL
 * where mmap refuses). */
static side make_side(const sparse_case *c, int input) {
  int real = (c->type == ZIPFFT_R2C && input) || (c->type == ZIPFFT_C2R && !input);
  int half = c->type != ZIPFFT_C2C && !real;
  size_t real_bytes = c->prec == ZIPFFT_F32 ? 4 : 8;
  side s = {NULL, 0, real ? real_bytes : 2 * real_bytes, !real, {0, 0}, {0, 0}, 0, 0, 0};
  for (int k = 0; k < c->rank; k++) {
    s.shape[k] = c->lengths[k];
    s.strides[k] = input ? c->in_strides[k] : c->out_strides[k];
  }
  if (half) s.shape[c->rank - 1] = c->lengths[c->rank - 1] / 2 + 1;
  s.dist = input ? c->in_dist : c->out_dist;
  s.offset = input ? c->in_offset : c->out_offset;
  s.bytes = (size_t)position(c, &s, shape_count(c, s.shape) - 1) + 2 * s.element;
  void *m = mmap(NULL, s.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  s.base = m == MAP_FAILED ? NULL : m;
  s.refused = m == MAP_FAILED ? errno : 0;
  return s;
}

/* Real or imaginary part (part 0 or 1) of the value at byte position at. */
static double get(const sparse_case *c, const side *s, uint64_t at, int part) {
  if (c->prec == ZIPFFT_F32) {
    float v;
    memcpy(&v, s->base + at + 4 * part, 4);
    return v;
  }
  double v;
  memcpy(&v, s->base + at + 8 * part, 8);
  return v;
}

/* Stores a part of the value at byte position at, rounded to the precision. */
static void put(const sparse_case *c, const side *s, uint64_t at, int part, double value) {
  if (c->prec == ZIPFFT_F32) {
    float v = (float)value;
    memcpy(s->base + at + 4 * part, &v, 4);
  } else {
    memcpy(s->base + at + 8 * part, &value, 8);
  }
}

/* Writes random inputs (C2R: a half spectrum whose DC and Nyquist values are real, as a
 * real signal's are) and returns the expected outputs in the output side's logical order:
 * the long-double DFT of the values as stored (C2R: of the Hermitian spectrum they stand
 * for). Real transforms are of rank 1. */
static long double *fill_input(const sparse_case *c, const side *in, const side *out) {
  int64_t n = c->lengths[c->rank - 1], rows = shape_count(c, c->lengths) / n;
  int64_t in_row = in->shape[c->rank - 1], out_row = out->shape[c->rank - 1];
  long double *x = zr_alloc_pairs((size_t)(rows * n));
  for (int64_t i = 0; i < shape_count(c, in->shape); i++) {
    int64_t row = i / in_row, k = i % in_row;
    for (int part = 0; part < (in->complex_values ? 2 : 1); part++) {
      double v = zt_uniform(0x5a, (uint64_t)(2 * i + part));
      if (c->type == ZIPFFT_C2R && part == 1 && (k == 0 || 2 * k == n)) v = 0;
      put(c, in, position(c, in, i), part, v);
      x[2 * (row * n + k) + part] = get(c, in, position(c, in, i), part);
    }
  }
  for (int64_t row = 0; c->type == ZIPFFT_C2R && row < rows; row++)
    for (int64_t k = 1; k < n - k; k++) { /* the conjugate half */
      x[2 * (row * n + n - k)] = x[2 * (row * n + k)];
      x[2 * (row * n + n - k) + 1] = -x[2 * (row * n + k) + 1];
    }
  zr_dft_nd(x, c->rank, c->lengths, c->batch, c->type == ZIPFFT_C2R ? 1 : -1);
  long double *expected = zr_alloc_pairs((size_t)shape_count(c, out->shape));
  for (int64_t i = 0; i < shape_count(c, out->shape); i++) { /* R2C keeps the first half */
    int64_t row = i / out_row, k = i % out_row;
    expected[2 * i] = x[2 * (row * n + k)];
    expected[2 * i + 1] = out->complex_values ? x[2 * (row * n + k) + 1] : 0;
  }
  free(x);
  return expected;
}

/* Whether byte position at holds an output element. */
static int is_output(const sparse_case *c, const side *out, uint64_t at) {
  for (int64_t i = 0; i < shape_count(c, out->shape); i++)
    if (position(c, out, i) == at) return 1;
  return 0;
}

/* Runs case index; returns 0 where its mappings were refused for want of address space. */
static int run_case(const sparse_case *c, int index) {
  side in = make_side(c, 1), out = make_side(c, 0);
  int ran = 0;
  if (in.refused == ENOMEM || out.refused == ENOMEM) {
    printf("skipped: case %d needs %zu GiB of address space (refused)\n", index,
           (in.bytes + out.bytes) >> 30);
    goto done;
  }
  ZT_CHECK(in.base && out.base, "case %d: no sparse mapping of %zu and %zu bytes", index,
           in.bytes, out.bytes);
  if (!in.base || !out.base) goto done;
  ran = 1;
  long double *expected = fill_input(c, &in, &out);
  int64_t outs = shape_count(c, out.shape), per = outs / c->batch;
  for (int64_t i = 0; i < outs; i++) /* each output and the elements either side: NaN */
    for (int e = -1; e <= 1; e++)
      for (int part = 0; part < (out.complex_values ? 2 : 1); part++)
        if (position(c, &out, i) >= out.element || e >= 0)
          put(c, &out, position(c, &out, i) + (uint64_t)e * out.element, part, NAN);
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, c->type, c->prec, c->rank, c->lengths));
  ZT_OK(zipfft_desc_set_batch(d, c->batch));
  ZT_OK(zipfft_desc_set_layout(d, c->in_strides, c->in_dist, c->out_strides, c->out_dist));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_desc_destroy(d);
  if (p) ZT_OK(zipfft_execute(p, in.base + in.offset, out.base + out.offset, NULL));
  zipfft_plan_destroy(p);
  double *got = calloc((size_t)outs * 2, sizeof *got);
  int64_t written_beside = 0;
  for (int64_t i = 0; i < outs; i++) {
    uint64_t at = position(c, &out, i), next = at + out.element, before = at - out.element;
    for (int part = 0; part < (out.complex_values ? 2 : 1); part++) {
      got[2 * i + part] = get(c, &out, at, part);
      written_beside += !is_output(c, &out, next) && !isnan(get(c, &out, next, part));
      if (at >= out.element)
        written_beside += !is_output(c, &out, before) && !isnan(get(c, &out, before, part));
    }
  }
  double u = c->prec == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  double n = (double)(c->lengths[0] * (c->rank > 1 ? c->lengths[1] : 1));
  double err = zr_worst_rel_l2(expected, got, (size_t)per, (size_t)c->batch);
  ZT_CHECK(err <= 10 * u * sqrt(log2(n)), "case %d: relative L2 error %.3g", index, err);
  ZT_CHECK(written_beside == 0, "case %d: %lld elements beside the outputs written", index,
           (long long)written_beside);
  free(got), free(expected);
done:
  if (in.base) munmap(in.base, in.bytes);
  if (out.base) munmap(out.base, out.bytes);
  return ran;
}

int main(void) {
  if (zt_backend() != ZT_BACKEND_CPU) {
    printf("skipped: sparse mappings are host memory (the CUDA backend runs test_long_arrays)\n");
    return zt_finish("test_sparse_strides", 0);
  }
  int ran = 0;
  for (int i = 0; i < (int)(sizeof cases / sizeof *cases); i++) ran += run_case(&cases[i], i);
  return zt_finish("test_sparse_strides", ran);
}
