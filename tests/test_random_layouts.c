/* test_random_layouts.c - seeded random problems (C2C, R2C, C2R; ranks 1-3; batches; axes
 * in any order, with gaps, interleaved batches; in place and out of place; zero-padded
 * inputs and cropped outputs; fp32 and fp64, fp16 and bfloat16 storage; scales) against a separable
 * long-double reference, with NaN-poisoned outputs, untouched gaps, unmodified inputs and guard
 * bands. Quick tier: 120 problems; full tier: 1500. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "reference.h"
#include "test_util.h"

enum { quick_problems = 120, full_problems = 1500, max_elements = 20000 };

/* One array as stored: element strides (elements are reals or complex pairs), the batch
 * distance, and the elements spanned by the whole batch. */
typedef struct side {
  int64_t strides[3], dist, size;
  int real;
} side;

/* One random problem, everything drawn from its seed. */
typedef struct problem {
  uint64_t seed;
  zipfft_type type;
  zipfft_precision prec;
  int rank;
  int64_t lengths[3], batch;
  zipfft_direction dir;
  int inplace;
  double scale;
  int64_t extents[2][3];     /* input, output: elements stored per axis (0: the whole axis) */
  zipfft_storage storage[2]; /* input, output */
  side in, out;
} problem;

/* splitmix64: the next value of a seeded sequence. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A uniform integer in [0, count). */
static int64_t pick(uint64_t *state, int64_t count) {
  return (int64_t)(next_random(state) % (uint64_t)count);
}

/* Bytes of one real as the input (out = 0) or the output (out = 1) stores it. */
static size_t real_bytes(const problem *p, int out) {
  return p->storage[out] == ZIPFFT_STORAGE_DEFAULT ? zt_real_size(p->prec) : 2;
}

/* Real number `index` of buffer b as the input (out = 0) or output (out = 1) stores it. */
static double get_value(const problem *p, int out, const zt_buffer *b, int64_t index) {
  if (p->storage[out] == ZIPFFT_STORAGE_DEFAULT) return zt_get_real(b, p->prec, index);
  return zt_get16(b->data, index, p->storage[out]);
}

/* Writes v as real number `index` of buffer b as the input or output stores it (16 bits:
 * rounded to nearest). */
static void set_value(const problem *p, int out, zt_buffer *b, int64_t index, double v) {
  if (p->storage[out] == ZIPFFT_STORAGE_DEFAULT)
    zt_set_real(b, p->prec, index, v);
  else
    zt_put16(b->data, index, p->storage[out], v);
}

/* Fills buffer b with NaN as the input or output stores it (guards as zt_buffer_poison;
 * 0xffff is a NaN in both 16-bit formats). */
static void poison(const problem *p, int out, zt_buffer *b) {
  zt_buffer_poison(b, zt_real_size(p->prec));
  if (p->storage[out] != ZIPFFT_STORAGE_DEFAULT) memset(b->data, 0xff, b->bytes);
}

/* Logical shape of the input (out = 0) or the output (out = 1): C2R's input and R2C's
 * output hold n/2 + 1 complex values along the last axis. */
static void full_shape_of(const problem *p, int out, int64_t *shape) {
  for (int k = 0; k < p->rank; k++) shape[k] = p->lengths[k];
  if ((p->type == ZIPFFT_R2C && out) || (p->type == ZIPFFT_C2R && !out))
    shape[p->rank - 1] = shape[p->rank - 1] / 2 + 1;
}

/* Shape of the input or output as stored: the logical one within its extents. */
static void shape_of(const problem *p, int out, int64_t *shape) {
  full_shape_of(p, out, shape);
  for (int k = 0; k < p->rank; k++)
    if (p->extents[out][k] > 0) shape[k] = p->extents[out][k];
}

/* Index over (batch, full) of the element at index i over (batch, part), part a corner of
 * full. */
static int64_t index_in_full(int rank, const int64_t *part, const int64_t *full, int64_t i) {
  int64_t index = 0, scale = 1;
  for (int k = rank - 1; k >= 0; k--) {
    index += (i % part[k]) * scale;
    i /= part[k], scale *= full[k];
  }
  return index + i * scale;
}

/* 1 when the input (out = 0) or output (out = 1) holds reals: R2C's input, C2R's output. */
static int side_is_real(const problem *p, int out) {
  return (p->type == ZIPFFT_R2C && !out) || (p->type == ZIPFFT_C2R && out);
}

/* Elements of one array of the shape. */
static int64_t elements_of(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  return n;
}

/* Elements the batch spans: one past the largest offset. */
static int64_t span_of(const side *s, int rank, const int64_t *shape, int64_t batch) {
  int64_t last = (batch - 1) * s->dist;
  for (int k = 0; k < rank; k++) last += (shape[k] - 1) * s->strides[k];
  return last + 1;
}

/* A layout built from the innermost axis outwards in the given order (order[0] innermost):
 * a gap of `gap` elements after each innermost element, pads[j] more after each step of
 * order[j]; the batch outermost after a pad of dist_pad, or with interleaved every stride
 * times the batch and distance 1. */
static side build_side(int rank, const int64_t *shape, int64_t batch, const int *order, int gap,
                       const int64_t *pads, int64_t dist_pad, int interleaved) {
  side s = {{1, 1, 1}, 0, 0, 0};
  int64_t unit = interleaved ? batch : 1, stride = 1 + gap;
  for (int j = 0; j < rank; j++) {
    s.strides[order[j]] = stride * unit;
    stride = stride * shape[order[j]] + pads[j];
  }
  s.dist = interleaved ? 1 : stride + dist_pad;
  s.size = span_of(&s, rank, shape, batch);
  return s;
}

/* A random layout: axes row-major, reversed or shuffled, gaps and pads of a few elements,
 * sometimes interleaved batches. */
static side random_side(uint64_t *st, int rank, const int64_t *shape, int64_t batch) {
  int order[3];
  for (int j = 0; j < rank; j++) order[j] = rank - 1 - j; /* row-major */
  int64_t arrangement = pick(st, 4);
  if (arrangement == 1)
    for (int j = 0; j < rank; j++) order[j] = j;           /* reversed: column-major */
  for (int j = rank - 1; arrangement == 2 && j > 0; j--) { /* shuffled */
    int other = (int)pick(st, j + 1), kept = order[j];
    order[j] = order[other], order[other] = kept;
  }
  int64_t pads[3];
  for (int j = 0; j < rank; j++) pads[j] = pick(st, 3) == 0 ? pick(st, 3) : 0;
  int gap = pick(st, 5) == 0;
  int interleaved = batch > 1 && pick(st, 4) == 0;
  return build_side(rank, shape, batch, order, gap, pads, pick(st, 6), interleaved);
}

/* The sides of an in-place real transform: the complex array row-major with a unit last
 * stride and random pads, the real array at twice its strides (the last 1) and distance. */
static void in_place_real_sides(uint64_t *st, problem *p) {
  int64_t shape[3], pads[3] = {0, 0, 0};
  int order[3];
  int complex_out = p->type == ZIPFFT_R2C;
  shape_of(p, complex_out, shape);
  for (int j = 0; j < p->rank; j++) order[j] = p->rank - 1 - j;
  for (int j = 1; j < p->rank; j++) pads[j] = pick(st, 3) == 0 ? pick(st, 3) : 0;
  side c = build_side(p->rank, shape, p->batch, order, 0, pads, pick(st, 4), 0), r = c;
  for (int k = 0; k + 1 < p->rank; k++) r.strides[k] = 2 * c.strides[k];
  r.dist = 2 * c.dist;
  r.real = 1;
  int64_t real_shape[3];
  shape_of(p, !complex_out, real_shape);
  r.size = span_of(&r, p->rank, real_shape, p->batch);
  p->in = complex_out ? r : c;
  p->out = complex_out ? c : r;
}

/* Lengths of a rank: smooth, prime (Rader, Bluestein) and ones, within max_elements. */
static void random_lengths(uint64_t *st, problem *p) {
  static const int64_t choices[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  12,  15,  16,  17,
                                    20, 24, 30, 32, 37, 48, 53, 64, 97, 100, 128, 210, 256, 1000};
  int64_t count = sizeof choices / sizeof choices[0], total;
  do {
    total = p->batch;
    for (int k = 0; k < p->rank; k++) {
      int64_t limit = p->rank == 1 ? count : p->rank == 2 ? count - 5 : count - 10;
      p->lengths[k] = choices[pick(st, limit)];
      total *= p->lengths[k];
    }
  } while (total > max_elements);
}

/* Extents of an out-of-place problem: each axis of the input (not C2R's, whose half
 * spectrum must stay Hermitian) and of the output whole or cut to a random length. */
static void random_extents(uint64_t *st, problem *p) {
  for (int out = p->type == ZIPFFT_C2R; out < 2; out++) {
    int64_t full[3];
    full_shape_of(p, out, full);
    for (int k = 0; k < p->rank; k++)
      p->extents[out][k] = pick(st, 2) ? 1 + pick(st, full[k]) : full[k];
  }
}

/* The problem of a seed: every choice drawn from the seeded sequence. */
static problem random_problem(uint64_t seed) {
  uint64_t st = seed;
  problem p = {.seed = seed};
  static const zipfft_type types[] = {ZIPFFT_C2C, ZIPFFT_C2C, ZIPFFT_R2C, ZIPFFT_C2R};
  p.type = types[pick(&st, 4)];
  p.prec = pick(&st, 2) ? ZIPFFT_F64 : ZIPFFT_F32;
  p.rank = 1 + (int)pick(&st, 3);
  p.batch = 1 + pick(&st, 4);
  random_lengths(&st, &p);
  p.dir = p.type == ZIPFFT_C2R || (p.type == ZIPFFT_C2C && pick(&st, 2)) ? ZIPFFT_INVERSE
                                                                         : ZIPFFT_FORWARD;
  p.inplace = pick(&st, 10) < 3;
  if (!p.inplace && pick(&st, 3) == 0) random_extents(&st, &p);
  for (int out = 0; out < 2 && p.prec == ZIPFFT_F32; out++) /* 16 bits: fp32 compute only */
    p.storage[out] = pick(&st, 4) ? ZIPFFT_STORAGE_DEFAULT : (zipfft_storage)(1 + pick(&st, 2));
  if (p.inplace) p.storage[1] = p.storage[0];
  int64_t n = elements_of(p.rank, p.lengths);
  static const double scales[] = {1, 1, 1, 0, -1.5, 0.375};
  p.scale = scales[pick(&st, 6)];
  if (p.scale == 0) p.scale = 1.0 / (double)n;
  int64_t in_shape[3], out_shape[3];
  shape_of(&p, 0, in_shape);
  shape_of(&p, 1, out_shape);
  if (p.inplace && p.type != ZIPFFT_C2C) {
    in_place_real_sides(&st, &p);
  } else {
    p.in = random_side(&st, p.rank, in_shape, p.batch);
    p.out = p.inplace ? p.in : random_side(&st, p.rank, out_shape, p.batch);
    p.in.real = side_is_real(&p, 0);
    p.out.real = side_is_real(&p, 1);
  }
  return p;
}

/* Prints a problem as a line a failure names. */
static void describe(const problem *p, char *buf, size_t len) {
  static const char *const types[] = {"c2c", "r2c", "c2r"};
  const side *s[2] = {&p->in, &p->out};
  int at = snprintf(buf, len, "seed %llu: %s %s %s n=%lld", (unsigned long long)p->seed,
                    types[p->type], p->prec == ZIPFFT_F32 ? "f32" : "f64",
                    p->dir == ZIPFFT_FORWARD ? "fwd" : "inv", (long long)p->lengths[0]);
  for (int k = 1; k < p->rank; k++)
    at += snprintf(buf + at, len - (size_t)at, "x%lld", (long long)p->lengths[k]);
  static const char *const storages[] = {"default", "f16", "bf16"};
  at += snprintf(buf + at, len - (size_t)at, " batch=%lld %s scale=%g storage=%s,%s",
                 (long long)p->batch, p->inplace ? "inplace" : "outofplace", p->scale,
                 storages[p->storage[0]], storages[p->storage[1]]);
  for (int i = 0; i < 2; i++) {
    at += snprintf(buf + at, len - (size_t)at, " %s=[", i ? "out" : "in");
    for (int k = 0; k < p->rank; k++)
      at +=
          snprintf(buf + at, len - (size_t)at, "%s%lld", k ? "," : "", (long long)s[i]->strides[k]);
    at += snprintf(buf + at, len - (size_t)at, "] dist=%lld", (long long)s[i]->dist);
    for (int k = 0; k < p->rank && p->extents[i][0]; k++)
      at += snprintf(buf + at, len - (size_t)at, "%s%lld",
                     k ? "x" : " extent=", (long long)p->extents[i][k]);
  }
}

/* Creates the plan of a problem on the backend under test. */
static zipfft_status plan_problem(const problem *p, zipfft_plan *plan) {
  zipfft_desc d = NULL;
  zipfft_status s = zipfft_desc_create(&d, p->type, p->prec, p->rank, p->lengths);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, p->batch);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_direction(d, p->dir);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_layout(d, p->in.strides, p->in.dist, p->out.strides, p->out.dist);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_placement(d, p->inplace ? ZIPFFT_INPLACE : ZIPFFT_OUTOFPLACE);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_scale(d, p->scale);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_storage(d, p->storage[0], p->storage[1]);
  if (s == ZIPFFT_SUCCESS && p->extents[0][0]) s = zipfft_desc_set_input_extent(d, p->extents[0]);
  if (s == ZIPFFT_SUCCESS && p->extents[1][0]) s = zipfft_desc_set_output_extent(d, p->extents[1]);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, zt_zipfft_backend(), 0);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(plan, d);
  zipfft_desc_destroy(d);
  return s;
}

/* Real index in a buffer of part `part` (0 or 1; a real element has only 0) of the element
 * at logical row-major index i over the batch and the side's shape. */
static int64_t real_index(const side *s, int rank, const int64_t *shape, int64_t i, int part) {
  int64_t offset = 0;
  for (int k = rank - 1; k >= 0; k--) offset += (i % shape[k]) * s->strides[k], i /= shape[k];
  offset += i * s->dist;
  return s->real ? offset : 2 * offset + part;
}

/* The full spectrum of x (batch arrays of the problem's lengths, complex pairs) along every
 * axis with the sign, kept in place. */
static void spectrum(const problem *p, long double *x, int sign) {
  zr_dft_nd(x, p->rank, p->lengths, p->batch, sign);
}

/* Copies the first n/2 + 1 values of every last-axis line of full (the problem's lengths)
 * into half (the half shape), both complex pairs. */
static void keep_half(const problem *p, const long double *full, long double *half) {
  int64_t n = p->lengths[p->rank - 1], h = n / 2 + 1;
  int64_t lines = p->batch * elements_of(p->rank, p->lengths) / n;
  for (int64_t l = 0; l < lines; l++)
    for (int64_t j = 0; j < h; j++)
      for (int part = 0; part < 2; part++)
        half[2 * (l * h + j) + part] = full[2 * (l * n + j) + part];
}

/* Writes the problem's input into `in` (its gaps keep their poison) and returns the whole
 * output it should give, unscaled, over the output's logical shape (complex pairs; a real
 * output's imaginary parts 0); the input beyond its extents is zeros. A C2R input is the
 * half spectrum of a random real array, as users give it: Hermitian, so the output is that
 * array times the length. */
static long double *fill_input(const problem *p, zt_buffer *in) {
  int64_t shape[3], full_in[3], full_out[3], n = elements_of(p->rank, p->lengths);
  shape_of(p, 0, shape);
  full_shape_of(p, 0, full_in);
  full_shape_of(p, 1, full_out);
  int64_t count = p->batch * elements_of(p->rank, shape);
  long double *x = zr_alloc_pairs((size_t)(p->batch * n)),
              *full = zr_alloc_pairs((size_t)(p->batch * elements_of(p->rank, full_out)));
  if (p->type == ZIPFFT_C2R) { /* no input extent: shape is the whole half spectrum */
    for (int64_t i = 0; i < p->batch * n; i++) {
      x[2 * i] = zt_uniform(p->seed, (uint64_t)i);
      full[2 * i] = x[2 * i] * (long double)n;
    }
    spectrum(p, x, -1);
    long double *half = zr_alloc_pairs((size_t)count);
    keep_half(p, x, half);
    for (int64_t i = 0; i < count; i++)
      for (int part = 0; part < 2; part++)
        set_value(p, 0, in, real_index(&p->in, p->rank, shape, i, part),
                  (double)half[2 * i + part]);
    free(half);
  } else {
    for (int64_t i = 0; i < count; i++) {
      int64_t j = index_in_full(p->rank, shape, full_in, i);
      for (int part = 0; part < (p->in.real ? 1 : 2); part++) {
        int64_t at = real_index(&p->in, p->rank, shape, i, part);
        set_value(p, 0, in, at, zt_uniform(p->seed, (uint64_t)(2 * i + part)));
        x[2 * j + part] = (long double)get_value(p, 0, in, at);
      }
    }
    spectrum(p, x, p->dir == ZIPFFT_INVERSE && p->type == ZIPFFT_C2C ? 1 : -1);
    if (p->type == ZIPFFT_R2C)
      keep_half(p, x, full);
    else
      memcpy(full, x, (size_t)(p->batch * n) * 2 * sizeof *x);
  }
  free(x);
  return full;
}

/* The output the problem should store: the whole output within its extents, scaled. */
static long double *expected_output(const problem *p, const long double *full) {
  int64_t shape[3], full_shape[3];
  shape_of(p, 1, shape);
  full_shape_of(p, 1, full_shape);
  int64_t count = p->batch * elements_of(p->rank, shape);
  long double *expected = zr_alloc_pairs((size_t)count);
  for (int64_t i = 0; i < count; i++) {
    int64_t j = index_in_full(p->rank, shape, full_shape, i);
    for (int part = 0; part < 2; part++)
      expected[2 * i + part] = full[2 * j + part] * (long double)p->scale;
  }
  return expected;
}

/* Error of one transform's stored outputs against the expected ones, relative to the whole
 * output (`full`, unscaled, full_count values): root-mean-square error over root-mean-square
 * value, the relative L2 error when nothing is cropped (a cropped output's few values can be
 * far smaller than the transform's typical one, whose size sets the rounding). */
static double relative_rms_error(const problem *p, const long double *expected, const double *got,
                                 int64_t stored, const long double *full, int64_t full_count) {
  long double error = 0, value = 0;
  for (int64_t i = 0; i < 2 * stored; i++) error += (got[i] - expected[i]) * (got[i] - expected[i]);
  for (int64_t i = 0; i < 2 * full_count; i++) value += full[i] * full[i];
  value *= (long double)p->scale * (long double)p->scale;
  return (double)sqrtl((error / (long double)stored) / (value / (long double)full_count));
}

/* Unit roundoff of a 16-bit storage (0: the compute precision's own). */
static double storage_unit(zipfft_storage storage) {
  return storage == ZIPFFT_STORAGE_F16 ? 0x1p-11 : storage == ZIPFFT_STORAGE_BF16 ? 0x1p-8 : 0;
}

/* Relative error a 16-bit storage adds: the output's rounding after each axis's pass (the
 * intermediate results are stored in the output's type), and a C2R input's rounding (its
 * expected output is that of the exact half spectrum; the others' is that of the stored
 * input). */
static double storage_error(const problem *p) {
  double error = 2 * storage_unit(p->storage[1]) * p->rank;
  if (p->type == ZIPFFT_C2R) error += storage_unit(p->storage[0]);
  return error;
}

/* Each transform of the output against the expected values: relative error within 10
 * u sqrt(log2 N), 30 where an axis has a prime factor above 31 (Rader, Bluestein), plus
 * what a 16-bit storage adds. */
static void check_accuracy(const problem *p, const zt_buffer *out, const long double *expected,
                           const long double *full, const char *text) {
  int64_t shape[3], full_shape[3], n = elements_of(p->rank, p->lengths);
  shape_of(p, 1, shape);
  full_shape_of(p, 1, full_shape);
  int64_t per = elements_of(p->rank, shape), full_per = elements_of(p->rank, full_shape);
  double *got = malloc((size_t)(p->batch * per) * 2 * sizeof *got);
  for (int64_t i = 0; i < p->batch * per; i++) {
    got[2 * i] = get_value(p, 1, out, real_index(&p->out, p->rank, shape, i, 0));
    got[2 * i + 1] =
        p->out.real ? 0 : get_value(p, 1, out, real_index(&p->out, p->rank, shape, i, 1));
  }
  double u = p->prec == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  double unit = u * sqrt(n > 2 ? log2((double)n) : 1.0), gate = 10, worst = 0;
  for (int k = 0; k < p->rank; k++)
    if (!zt_is_31_smooth(p->lengths[k])) gate = 30;
  for (int64_t b = 0; b < p->batch; b++)
    worst = zt_worse(worst, relative_rms_error(p, expected + 2 * b * per, got + 2 * b * per, per,
                                               full + 2 * b * full_per, full_per));
  double limit = gate * unit + storage_error(p);
  ZT_CHECK(worst <= limit, "%s: relative error %.3g = %.2f u*sqrt(log2 N), above %.3g", text, worst,
           worst / unit, limit);
  free(got);
}

/* Reals of buffer b that are elements of none of the listed sides (0 input, 1 output)
 * must still hold their NaN poison. */
static void check_gaps(const problem *p, const zt_buffer *b, int first, int last,
                       const char *text) {
  size_t reals = b->bytes / real_bytes(p, last);
  char *element = calloc(reals, 1);
  for (int which = first; which <= last; which++) {
    const side *s = which ? &p->out : &p->in;
    int64_t shape[3];
    shape_of(p, which, shape);
    for (int64_t i = 0; i < p->batch * elements_of(p->rank, shape); i++)
      for (int part = 0; part < (s->real ? 1 : 2); part++)
        element[real_index(s, p->rank, shape, i, part)] = 1;
  }
  int64_t written = 0;
  for (size_t r = 0; r < reals; r++)
    written += !element[r] && !isnan(get_value(p, last, b, (int64_t)r));
  ZT_CHECK(written == 0, "%s: %lld reals between the elements were written", text,
           (long long)written);
  free(element);
}

/* Bytes of the input's (out = 0) or the output's (out = 1) buffer. */
static size_t side_bytes(const problem *p, int out) {
  const side *s = out ? &p->out : &p->in;
  return (size_t)s->size * (s->real ? 1 : 2) * real_bytes(p, out);
}

/* Plans, runs and checks one problem; returns 1 when it ran. */
static int run_problem(const problem *p) {
  char text[512];
  describe(p, text, sizeof text);
  zipfft_plan plan = NULL;
  zipfft_status s = plan_problem(p, &plan);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: plan: %s (%s)", text, zipfft_status_name(s),
           zipfft_last_error());
  if (s != ZIPFFT_SUCCESS) return 0;
  size_t in_bytes = side_bytes(p, 0), out_bytes = side_bytes(p, 1);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  zt_buffer in = zt_buffer_alloc(in_bytes, 0),
            out = p->inplace ? in : zt_buffer_alloc(out_bytes, 0);
  poison(p, 0, &in);
  if (!p->inplace) poison(p, 1, &out);
  long double *full = fill_input(p, &in), *expected = expected_output(p, full);
  unsigned char *snapshot = malloc(in_bytes);
  memcpy(snapshot, in.data, in_bytes);
  s = zt_execute(plan, &in, p->inplace ? NULL : &out, NULL);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: execute: %s (%s)", text, zipfft_status_name(s),
           zipfft_last_error());
  zt_buffer *result = p->inplace ? &in : &out;
  if (s == ZIPFFT_SUCCESS) {
    check_accuracy(p, result, expected, full, text);
    check_gaps(p, result, p->inplace ? 0 : 1, 1, text);
  }
  if (!p->inplace && !zt_input_may_be_scratch(p->type, p->rank, p->storage[0], p->storage[1]))
    ZT_CHECK(memcmp(snapshot, in.data, in_bytes) == 0, "%s: input modified", text);
  ZT_CHECK(zt_buffer_guards_intact(&in) && zt_buffer_guards_intact(&out), "%s: guard band written",
           text);
  free(snapshot);
  free(expected);
  free(full);
  zt_buffer_free(&in);
  if (!p->inplace) zt_buffer_free(&out);
  zipfft_plan_destroy(plan);
  return 1;
}

int main(void) {
  if (!zt_device_ready() || zt_part_read() < 0) return zt_finish("test_random_layouts", 0);
  int count = zt_full_tier() ? full_problems : quick_problems, ran = 0;
  for (int i = 0; i < count; i++) {
    if (!zt_case_in_part()) continue;
    problem p = random_problem(0x5EED0000ull + (uint64_t)i);
    ran += run_problem(&p);
  }
  printf("test_random_layouts (%s, %s tier): %d problems\n", zt_backend_name(),
         zt_full_tier() ? "full" : "quick", ran);
  return zt_finish_cases("test_random_layouts", ran);
}
