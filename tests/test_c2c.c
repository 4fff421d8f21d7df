/* test_c2c.c - batched 1D complex-to-complex transforms through the public API, checked
 * against the long-double reference with poisoned inputs, NaN-filled outputs and guards. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api/plan_internal.h"
#include "backend/backend.h"
#include "device.h"
#include "reference.h"
#include "test_util.h"

/* How the plan is placed and how zipfft_execute is called. */
typedef enum placement_mode {
  PL_OUT,       /* out-of-place, separate output buffer */
  PL_IN,        /* in-place, out == in */
  PL_IN_NULLOUT /* in-place, out == NULL */
} placement_mode;

/* One problem: everything needed to rerun it. Strides and distances in complex elements;
 * misalign is the byte offset of every data pointer from 64-byte alignment. */
typedef struct c2c_case {
  zipfft_precision prec;
  int64_t n, batch;
  zipfft_direction dir;
  int64_t istride, idist, ostride, odist;
  placement_mode place;
  int inv_n_scale; /* 0: scale 1, 1: scale 1/n */
  size_t misalign;
} c2c_case;

/* Layout and call variations applied to a few lengths of the quick tier. */
typedef struct variant {
  int64_t batch;
  int64_t istride, ostride; /* 0: interleaved batches (stride = batch, dist = 1) */
  int64_t ipad, opad;       /* dist = stride * n + pad */
  placement_mode place;
  int inv_n_scale;
  int misalign; /* 0 none, 1 part of an element (4 / 8 bytes), 2 odd (1 / 3 bytes) */
  zipfft_direction dir;
} variant;

/* The buffers of one run: in (and out when out-of-place), the logical input values, a
 * snapshot of the input region (guards included) and the gathered output. */
typedef struct run_data {
  zt_buffer in, out;
  unsigned char *in_snapshot;
  double *input, *got;
} run_data;

enum { max_text = 256 };
static const uint64_t seed_base = 0x5eed;

static double worst_ratio[2];        /* per precision: err / (u * sqrt(log2 n)) */
static char worst_text[2][max_text]; /* problem string of the worst case */
static int cases_run;

/* The full tier sweeps every 31-smooth length up to this in both directions; beyond it (to
 * 16384, fp32), once each. */
static int64_t sweep_max(zipfft_precision p) { return p == ZIPFFT_F32 ? 4096 : 2048; }

/* The scale factor given to the plan. */
static double case_scale(const c2c_case *c) { return c->inv_n_scale ? 1.0 / (double)c->n : 1.0; }

/* Number of complex elements spanned by a batched strided layout. */
static int64_t extent(const c2c_case *c, int64_t stride, int64_t dist) {
  return (c->batch - 1) * dist + (c->n - 1) * stride + 1;
}

/* Writes the one-line problem string of a case. */
static void case_text(const c2c_case *c, char *buf, size_t len) {
  static const char *const places[] = {"outofplace", "inplace", "inplace-nullout"};
  snprintf(buf, len,
           "c2c %s %s n=%lld batch=%lld istride=%lld idist=%lld ostride=%lld odist=%lld %s "
           "scale=%s misalign=%zu",
           c->prec == ZIPFFT_F32 ? "f32" : "f64", c->dir == ZIPFFT_FORWARD ? "fwd" : "inv",
           (long long)c->n, (long long)c->batch, (long long)c->istride, (long long)c->idist,
           (long long)c->ostride, (long long)c->odist, places[c->place],
           c->inv_n_scale ? "1/n" : "1", c->misalign);
}

/* Prints "FAIL <problem>: <reason>" and counts a failure. */
static void case_fail(const c2c_case *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void case_fail(const c2c_case *c, const char *fmt, ...) {
  char text[max_text];
  va_list args;
  case_text(c, text, sizeof text);
  fprintf(stderr, "FAIL %s: ", text);
  va_start(args, fmt);
  vfprintf(stderr, fmt, args);
  va_end(args);
  fprintf(stderr, "\n");
  zt_failures++;
}

/* Reads real number i of a buffer (any alignment). */
static double load_real(const unsigned char *data, int64_t i, size_t rs) {
  if (rs == 4) {
    float f;
    memcpy(&f, data + i * 4, 4);
    return f;
  }
  double d;
  memcpy(&d, data + i * 8, 8);
  return d;
}

/* Writes real number i of a buffer (any alignment), rounded to the precision. */
static void store_real(unsigned char *data, int64_t i, size_t rs, double v) {
  if (rs == 4) {
    float f = (float)v;
    memcpy(data + i * 4, &f, 4);
  } else {
    memcpy(data + i * 8, &v, 8);
  }
}

/* Writes the case's logical input (batch b, element j) at its strided place. */
static void fill_input(const c2c_case *c, zt_buffer *b) {
  size_t rs = zt_real_size(c->prec);
  for (int64_t t = 0; t < c->batch; t++)
    for (int64_t j = 0; j < c->n; j++) {
      int64_t e = t * c->idist + j * c->istride;
      uint64_t logical = 2 * (uint64_t)(t * c->n + j);
      store_real(b->data, 2 * e, rs, zt_uniform(seed_base + (uint64_t)c->n, logical));
      store_real(b->data, 2 * e + 1, rs, zt_uniform(seed_base + (uint64_t)c->n, logical + 1));
    }
}

/* Reads the batch of a layout into dst as logical (re, im) pairs. */
static void gather(const c2c_case *c, const zt_buffer *b, int64_t stride, int64_t dist,
                   double *dst) {
  size_t rs = zt_real_size(c->prec);
  for (int64_t t = 0; t < c->batch; t++)
    for (int64_t j = 0; j < c->n; j++) {
      int64_t e = t * dist + j * stride;
      dst[2 * (t * c->n + j)] = load_real(b->data, 2 * e, rs);
      dst[2 * (t * c->n + j) + 1] = load_real(b->data, 2 * e + 1, rs);
    }
}

/* Applies every setter of the case to a description. */
static zipfft_status configure(zipfft_desc d, const c2c_case *c) {
  int contiguous = c->istride == 1 && c->ostride == 1 && c->idist == c->n && c->odist == c->n;
  zipfft_placement p = c->place == PL_OUT ? ZIPFFT_OUTOFPLACE : ZIPFFT_INPLACE;
  zipfft_status s = zipfft_desc_set_direction(d, c->dir);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, c->batch);
  if (s == ZIPFFT_SUCCESS && !contiguous)
    s = zipfft_desc_set_layout(d, &c->istride, c->idist, &c->ostride, c->odist);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_placement(d, p);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_scale(d, case_scale(c));
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, zt_zipfft_backend(), 0);
  return s;
}

/* Creates the case's plan; on failure copies zipfft_last_error() into err. */
static zipfft_status make_plan(const c2c_case *c, zipfft_plan *plan, char *err, size_t len) {
  zipfft_desc d = NULL;
  zipfft_status s = zipfft_desc_create(&d, ZIPFFT_C2C, c->prec, 1, &c->n);
  if (s == ZIPFFT_SUCCESS) s = configure(d, c);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(plan, d);
  snprintf(err, len, "%s", s == ZIPFFT_SUCCESS ? "" : zipfft_last_error());
  zipfft_desc_destroy(d);
  return s;
}

/* On a CPU plan, proves that the CUDA source of its kernels compiles for sm_90
 * (zt_plan_check_cuda). */
static void check_cuda_source(const c2c_case *c, zipfft_plan plan) {
  zipfft_backend b = ZIPFFT_BACKEND_AUTO;
  if (zipfft_plan_backend(plan, &b) != ZIPFFT_SUCCESS || b != zt_zipfft_backend()) {
    case_fail(c, "zipfft_plan_backend gave %d, expected %d", (int)b, (int)zt_zipfft_backend());
    return;
  }
  zipfft_status s = zt_plan_check_cuda(plan);
  if (s != ZIPFFT_SUCCESS)
    case_fail(c, "CUDA source for sm_90: %s: %s", zipfft_status_name(s), zipfft_last_error());
}

/* Allocates and fills the buffers of a run (input poisoned outside its elements). */
static void run_setup(const c2c_case *c, run_data *r) {
  size_t rs = zt_real_size(c->prec), count = (size_t)(c->n * c->batch);
  r->in = zt_buffer_alloc((size_t)extent(c, c->istride, c->idist) * 2 * rs, c->misalign);
  zt_buffer_poison(&r->in, rs);
  fill_input(c, &r->in);
  r->input = malloc(2 * count * sizeof(double));
  r->got = malloc(2 * count * sizeof(double));
  r->in_snapshot = NULL;
  r->out.base = r->out.data = NULL;
  if (!r->input || !r->got) exit(2);
  gather(c, &r->in, c->istride, c->idist, r->input);
  if (c->place != PL_OUT) return;
  r->out = zt_buffer_alloc((size_t)extent(c, c->ostride, c->odist) * 2 * rs, c->misalign);
  zt_buffer_poison(&r->out, rs);
  r->in_snapshot = malloc(zt_buffer_span(&r->in));
  if (!r->in_snapshot) exit(2);
  zt_buffer_copy_span(&r->in, r->in_snapshot);
}

/* Frees the buffers of a run. */
static void run_free(run_data *r) {
  zt_buffer_free(&r->in);
  if (r->out.base) zt_buffer_free(&r->out);
  free(r->in_snapshot);
  free(r->input);
  free(r->got);
}

/* Guards intact, out-of-place input bit-identical, gaps between outputs still NaN. */
static void check_memory(const c2c_case *c, run_data *r, zt_buffer *out) {
  size_t rs = zt_real_size(c->prec);
  int64_t span = extent(c, c->ostride, c->odist), written = 0, first = -1;
  if (!zt_buffer_guards_intact(&r->in)) case_fail(c, "guard band of the input was written");
  if (out != &r->in && !zt_buffer_guards_intact(out))
    case_fail(c, "guard band of the output was written");
  if (r->in_snapshot && !zt_buffer_span_equals(&r->in, r->in_snapshot))
    case_fail(c, "out-of-place input was modified");
  unsigned char *mask = calloc((size_t)span, 1);
  if (!mask) exit(2);
  for (int64_t t = 0; t < c->batch; t++)
    for (int64_t j = 0; j < c->n; j++) mask[t * c->odist + j * c->ostride] = 1;
  for (int64_t e = 0; e < span; e++) {
    if (mask[e]) continue;
    if (isnan(load_real(out->data, 2 * e, rs)) && isnan(load_real(out->data, 2 * e + 1, rs)))
      continue;
    written++;
    if (first < 0) first = e;
  }
  if (written)
    case_fail(c, "%lld gap elements between outputs were written (first at element %lld)",
              (long long)written, (long long)first);
  free(mask);
}

/* Returns the number of non-finite values among count pairs; *first gets the first. */
static int64_t count_non_finite(const double *v, int64_t count, int64_t *first) {
  int64_t bad = 0;
  *first = -1;
  for (int64_t i = 0; i < 2 * count; i++)
    if (!isfinite(v[i])) {
      if (bad++ == 0) *first = i / 2;
    }
  return bad;
}

/* Unit of the accuracy gate of a case: u * sqrt(log2 n), with log2 n := 1 for n <= 2. */
static double gate_unit(const c2c_case *c) {
  double u = c->prec == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53;
  return u * sqrt(c->n <= 2 ? 1.0 : log2((double)c->n));
}

/* Compares every transform with the scaled reference; records the worst ratio. */
static void check_accuracy(const c2c_case *c, const double *input, const double *got) {
  long double *x = zr_alloc_pairs((size_t)c->n), *ref = zr_alloc_pairs((size_t)c->n);
  double unit = gate_unit(c), worst = 0;
  long double scale = (long double)case_scale(c);
  int64_t worst_batch = 0;
  for (int64_t t = 0; t < c->batch; t++) {
    for (int64_t i = 0; i < 2 * c->n; i++) x[i] = input[2 * t * c->n + i];
    zr_dft_auto(x, ref, c->n, c->dir == ZIPFFT_FORWARD ? -1 : 1);
    for (int64_t i = 0; i < 2 * c->n; i++) ref[i] *= scale;
    double ratio = zr_rel_l2(ref, got + 2 * t * c->n, (size_t)c->n) / unit;
    if (!(ratio <= worst)) { /* also catches NaN */
      worst = ratio;
      worst_batch = t;
    }
  }
  double gate = zt_is_31_smooth(c->n) ? 10 : 30; /* 30: Rader and Bluestein */
  if (!(worst <= gate))
    case_fail(c, "relative L2 error %.3g = %.2f u*sqrt(log2 n) in transform %lld (gate %g)",
              worst * unit, worst, (long long)worst_batch, gate);
  int p = c->prec == ZIPFFT_F32 ? 0 : 1;
  if (worst > worst_ratio[p] && isfinite(worst)) {
    worst_ratio[p] = worst;
    case_text(c, worst_text[p], sizeof worst_text[p]);
  }
  free(x);
  free(ref);
}

/* Executes the plan on fresh buffers and checks memory, finiteness and accuracy. */
static void execute_and_check(const c2c_case *c, zipfft_plan plan) {
  run_data r;
  int64_t first = 0, bad = 0;
  run_setup(c, &r);
  zt_buffer *out = c->place == PL_OUT ? &r.out : &r.in;
  zipfft_status s = zt_execute(plan, &r.in, c->place == PL_IN_NULLOUT ? NULL : out, NULL);
  if (s != ZIPFFT_SUCCESS) {
    case_fail(c, "zipfft_execute: %s: %s", zipfft_status_name(s), zipfft_last_error());
  } else {
    check_memory(c, &r, out);
    gather(c, out, c->ostride, c->odist, r.got);
    bad = count_non_finite(r.got, c->n * c->batch, &first);
    if (bad)
      case_fail(c, "%lld output values not finite (first: transform %lld element %lld)",
                (long long)bad, (long long)(first / c->n), (long long)(first % c->n));
    else
      check_accuracy(c, r.input, r.got);
  }
  run_free(&r);
}

/* A run in parts (ZIPFFT_TEST_PART=K/N, zt_part_read) takes every K-th case of its tier;
 * every plan-text check and the whole-plan checks run in part 0 only, and a part of the
 * full tier runs no quick tier. */

/* Runs one case of this run's part: plan (or skip an unsupported large length), CUDA
 * source check, execute. */
static void run_case(const c2c_case *c) {
  if (!zt_case_in_part()) return;
  zipfft_plan plan = NULL;
  char err[max_text];
  zipfft_status s = make_plan(c, &plan, err, sizeof err);
  cases_run++;
  if (s != ZIPFFT_SUCCESS) {
    case_fail(c, "plan creation: %s: %s", zipfft_status_name(s), err);
    return;
  }
  check_cuda_source(c, plan);
  execute_and_check(c, plan);
  zipfft_plan_destroy(plan);
}

/* A contiguous out-of-place case with scale 1. */
static c2c_case basic_case(zipfft_precision p, int64_t n, int64_t batch, zipfft_direction dir) {
  c2c_case c = {p, n, batch, dir, 1, n, 1, n, PL_OUT, 0, 0};
  return c;
}

/* Builds the case of a variant for one length and precision. */
static c2c_case variant_case(const variant *v, zipfft_precision p, int64_t n) {
  static const size_t misalign_bytes[2][3] = {{0, 4, 1}, {0, 8, 3}};
  c2c_case c = basic_case(p, n, v->batch, v->dir);
  c.istride = v->istride ? v->istride : v->batch;
  c.idist = v->istride ? v->istride * n + v->ipad : 1;
  c.ostride = v->ostride ? v->ostride : v->batch;
  c.odist = v->ostride ? v->ostride * n + v->opad : 1;
  c.place = v->place;
  c.inv_n_scale = v->inv_n_scale;
  c.misalign = misalign_bytes[p == ZIPFFT_F32 ? 0 : 1][v->misalign];
  return c;
}

/* Checks (on the CPU backend, whose planner sees the same limits as an H100's or H200's;
 * in part 0 of a run in parts) that the plan of c says `want` (says = 1) or does not (0),
 * so that a case keeps covering the kernel it was written for. */
static void check_plan_text(const c2c_case *c, const char *want, int says) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CPU || !zt_in_first_part()) return;
  zipfft_plan plan = NULL;
  char err[max_text], text[4096];
  if (make_plan(c, &plan, err, sizeof err) != ZIPFFT_SUCCESS) {
    case_fail(c, "plan creation: %s", err);
    return;
  }
  if (zipfft_plan_print(plan, text, sizeof text, NULL) != ZIPFFT_SUCCESS ||
      !strstr(text, want) != !says)
    case_fail(c, "the plan %s \"%s\":\n%s", says ? "does not say" : "says", want, text);
  zipfft_plan_destroy(plan);
}

static void check_plan_says(const c2c_case *c, const char *want) { check_plan_text(c, want, 1); }
static void check_plan_lacks(const c2c_case *c, const char *want) { check_plan_text(c, want, 0); }

/* A plan text a forward single transform of n points must say (says = 1) or not (0). */
typedef struct plan_text_row {
  zipfft_precision precision;
  int64_t n;
  const char *text;
  int says;
} plan_text_row;

/* check_plan_text for each of count rows. */
static void check_plan_text_rows(const plan_text_row *rows, size_t count) {
  for (size_t i = 0; i < count; i++) {
    c2c_case c = basic_case(rows[i].precision, rows[i].n, 1, ZIPFFT_FORWARD);
    check_plan_text(&c, rows[i].text, rows[i].says);
  }
}

/* What the plan print must say for some lengths (forward, contiguous). */
static const struct {
  zipfft_precision precision;
  int64_t n, batch;
  const char *text;
} plan_texts[] = {
    /* Bluestein's padded lengths: 10007 fp32 has a multiprocessor to itself and pads to the
     * radix-16 length 2^12 * 5; 4099 does not and pads to the 7-smooth 8232. */
    {ZIPFFT_F32, 10007, 1, "20480-point FFT"},
    {ZIPFFT_F32, 10007, 1, "radix 16x16x16x5"},
    {ZIPFFT_F32, 4099, 1, "8232-point FFT"},
    /* Prime factors up to 31 are radices of their own; the prime 257 goes through Rader's
     * method (256 = 8x8x4), 83 (82 = 2 x 41) through Bluestein's. */
    {ZIPFFT_F32, 1984, 1, "radix 31x16x4"},
    {ZIPFFT_F32, 257, 1, "Rader: input permuted by the powers of 3, 256-point FFT"},
    {ZIPFFT_F64, 83, 1, "Bluestein"},
    /* 5760 = 20x18x16 takes one butterfly of radix 16 per thread, so that no pass runs a
     * second round for a few threads. */
    {ZIPFFT_F64, 5760, 1, "radix 20x18x16, 360 threads per transform"},
    /* Transforms per block: the fewest that give a block 64 threads (1000: one of 100
     * threads; 128: eight of 8), or more where that makes the block's warps a power of two
     * (fp64 667: four of 29 threads in 4 warps, not three in 3). */
    {ZIPFFT_F32, 1000, 64, "100 threads per transform, 1 transform per block"},
    {ZIPFFT_F32, 128, 64, "8 threads per transform, 8 transforms per block"},
    {ZIPFFT_F64, 667, 64, "29 threads per transform, 4 transforms per block"},
    /* A Bluestein block that has a multiprocessor to itself and reads each twiddle several
     * times takes them from shared memory (fp64 4099 runs in both directions in the quick
     * lengths, so the staged copy is checked there). */
    {ZIPFFT_F64, 4099, 1, "twiddles staged in shared memory"},
    /* C2C Bluestein kernels run their passes in place (the filter multiply in registers,
     * the filter stored digit-reversed; choose_bluestein_in_place in plan/single.c). */
    {ZIPFFT_F32, 10007, 1, "passes in place"},
    {ZIPFFT_F64, 4099, 1, "passes in place"},
    /* So do Rader kernels (their filter likewise digit-reversed, X[0] kept by thread 0 as
     * pass 0 takes the first FFT's outputs; choose_convolution_in_place). */
    {ZIPFFT_F32, 7681, 1, "passes in place"},
    {ZIPFFT_F64, 257, 1, "passes in place"},
    /* Rows of neighbouring transforms in four-step passes (major_row_bytes in plan/single.c,
     * 128 bytes on a device of slow or unknown memory bandwidth, such as the CPU): fp32
     * 2^22's 1024-point columns take 16 to a block, fp64 2^22's 2048-point passes 4 (8 would
     * not fit), and fp32 2^20's pair members keep 64-byte rows, 8 to a block. */
    {ZIPFFT_F32, 4194304, 1, "32 threads per transform, 16 transforms per block"},
    {ZIPFFT_F64, 4194304, 1, "128 threads per transform, 4 transforms per block"},
    {ZIPFFT_F32, 1048576, 1, "32 threads per transform, 8 transforms per block (stored"},
    /* The intermediate of a split in two whose column kernel's rows are narrower than a
     * line, in tiles of rows on such a device (zipfft__fourstep_tile_rows): fp64 2^22's 4
     * columns per block store tiles of 2 rows; fp32 2^22's 16 columns fill a line and take
     * none (checked in run_quick_tiles). fp32 2^24's 4096-point columns run as a cluster
     * kernel instead (zipfft__size_cluster_columns: 16 columns of 512 points a block, whole
     * lines). */
    {ZIPFFT_F64, 4194304, 1, "outputs stored in tiles of 2 rows"},
    {ZIPFFT_F32, 16777216, 1, "cluster of 8 blocks per 16 columns"},
    /* Row kernels of a four-step split that are not paired run their passes in place, their
     * stores reading the outputs digit-reversed (zipfft__fourstep_rows_in_place). */
    {ZIPFFT_F32, 16777216, 1, "in frequency: the stores read the outputs digit-reversed"},
    {ZIPFFT_F64, 4194304, 1, "in frequency: the stores read the outputs digit-reversed"},
};

static void check_plan_texts(void) {
  for (size_t i = 0; i < sizeof plan_texts / sizeof plan_texts[0]; i++) {
    c2c_case c =
        basic_case(plan_texts[i].precision, plan_texts[i].n, plan_texts[i].batch, ZIPFFT_FORWARD);
    check_plan_says(&c, plan_texts[i].text);
  }
  /* the tuning switches keep the Stockham passes */
  c2c_case rader = basic_case(ZIPFFT_F32, 7681, 1, ZIPFFT_FORWARD);
  setenv("ZIPFFT_RADER_IN_PLACE", "0", 1);
  check_plan_lacks(&rader, "passes in place");
  unsetenv("ZIPFFT_RADER_IN_PLACE");
}

/* Plans c, prints the plan into text and reads its first kernel's registers, spills and
 * blocks per multiprocessor (-1 each where the print does not count them); 0 when the plan
 * fails (reported). The caller destroys *plan. */
static int printed_occupancy(c2c_case *c, zipfft_plan *plan, char *text, size_t len,
                             long counts[3]) {
  char err[max_text];
  counts[0] = counts[1] = counts[2] = -1;
  if (make_plan(c, plan, err, sizeof err) != ZIPFFT_SUCCESS) {
    case_fail(c, "plan creation: %s", err);
    return 0;
  }
  const char *at = zipfft_plan_print(*plan, text, len, NULL) == ZIPFFT_SUCCESS
                       ? strstr(text, "twiddle table yes, ")
                       : NULL;
  long r, s, b;
  if (at && sscanf(at, "twiddle table yes, %ld registers, %ld bytes spilled, %ld blocks", &r, &s,
                   &b) == 3)
    counts[0] = r, counts[1] = s, counts[2] = b;
  return 1;
}

/* The plan print gives each kernel's registers, spills and blocks per multiprocessor where
 * the backend counts them (CUDA: at least 1 register and 1 block), and no such line on the
 * CPU. Part 0 only. */
static void check_plan_occupancy_text(void) {
  if (!zt_in_first_part()) return;
  c2c_case c = basic_case(ZIPFFT_F32, 1000, 2, ZIPFFT_FORWARD);
  zipfft_plan plan = NULL;
  char text[4096];
  long counts[3];
  if (!printed_occupancy(&c, &plan, text, sizeof text, counts)) return;
  if (zt_zipfft_backend() == ZIPFFT_BACKEND_CUDA &&
      !(counts[0] > 0 && counts[1] >= 0 && counts[2] > 0))
    case_fail(&c, "the CUDA plan print gives no registers and blocks:\n%s", text);
  if (zt_zipfft_backend() == ZIPFFT_BACKEND_CPU && strstr(text, "registers"))
    case_fail(&c, "the CPU plan print counts registers:\n%s", text);
  zipfft_plan_destroy(plan);
}

/* On CUDA, the rotated kernel of fp64 5120 (16x20x16, one block per multiprocessor free)
 * spills at most what ask_radix_rotation allows: compiled under the two blocks its search's
 * order 20x16x16 keeps (16 bytes, NVCC 13.0) it spilled 216 bytes and ran at 60% of copy
 * where the free compile ran 89% (H200, session 70). The bound is the two-block allowance
 * (24) plus the rotation's (64). Part 0 only. */
static void check_rotation_spills(void) {
  if (zt_zipfft_backend() != ZIPFFT_BACKEND_CUDA || !zt_in_first_part()) return;
  c2c_case c = basic_case(ZIPFFT_F64, 5120, 1, ZIPFFT_FORWARD);
  zipfft_plan plan = NULL;
  char text[4096];
  long counts[3];
  if (!printed_occupancy(&c, &plan, text, sizeof text, counts)) return;
  if (counts[1] < 0 || counts[1] > 24 + 64)
    case_fail(&c, "the rotated kernel spills more than its allowance:\n%s", text);
  zipfft_plan_destroy(plan);
}

/* The rules of devices of fast memory per multiprocessor (an H200's; ZIPFFT_SLOW_MEMORY=0
 * gives them to the CPU's planner): besides the cluster form
 * (check_cluster_pairs_on_either_memory), no pair for fp32 2^18, persistent pairs for the last two
 * kernels of a split in three (fp32 2^24), none for fp32 2^20; 128-byte rows in column kernels
 * (fp32 2^20: 16 columns) but not in row kernels (8 rows, the shared-memory rule); no tiles of
 * rows; plain mixed-radix rows with their smallest radix first (fp64 5760), but not Bluestein's. */
static const plan_text_row fast_memory_texts[] = {
    {ZIPFFT_F32, 262144, "pair kernel", 0},
    {ZIPFFT_F32, 16777216, "the last two, run as one pair kernel", 1},
    {ZIPFFT_F32, 16777216, "in clusters of", 0},
    {ZIPFFT_F32, 1048576, "pair kernel", 0},
    {ZIPFFT_F32, 1048576, "16 transforms per block (neighbouring threads", 1},
    {ZIPFFT_F32, 1048576, "8 transforms per block (stored", 1},
    {ZIPFFT_F64, 4194304, "tiles of", 0},
    {ZIPFFT_F64, 5760, "radix 16x20x18,", 1},
    {ZIPFFT_F32, 4099, "radix 7x7x7x6x4,", 1},
};

static void check_fast_memory_plans(void) {
  setenv("ZIPFFT_SLOW_MEMORY", "0", 1);
  check_plan_text_rows(fast_memory_texts, sizeof fast_memory_texts / sizeof *fast_memory_texts);
  /* the planned cluster form computes (clusters of 4 blocks, two items a block) */
  c2c_case clustered = basic_case(ZIPFFT_F64, 32768, 2, ZIPFFT_INVERSE);
  run_case(&clustered);
  /* without clusters: fp32 65536 in the persistent form, fp64 65536 not paired */
  setenv("ZIPFFT_CLUSTER", "1", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 65536, 1, ZIPFFT_FORWARD);
  c2c_case f64 = basic_case(ZIPFFT_F64, 65536, 1, ZIPFFT_FORWARD);
  check_plan_text(&f32, "run as one pair kernel (the data between them in L2)\n", 1);
  check_plan_text(&f64, "pair kernel", 0);
  unsetenv("ZIPFFT_CLUSTER");
  unsetenv("ZIPFFT_SLOW_MEMORY");
}

/* The pair's cluster form is planned on either kind of memory (session 87: on an H100 fp32
 * 65536 1.39x -> 1.53x): fp32 and fp64 65536 in clusters of 8, fp64 32768 in clusters of 4,
 * with the user's data evict-first; fp32 2^18's 2 MiB groups not. */
static void check_cluster_pairs_on_either_memory(void) {
  static const char *const memory[] = {"0", "1"};
  static const plan_text_row rows[] = {
      {ZIPFFT_F32, 65536, "in clusters of 8 blocks, one a dependency group", 1},
      {ZIPFFT_F32, 65536, "pair kernel (the data between them in L2, the user's data evict-first)",
       1},
      {ZIPFFT_F64, 65536, "in clusters of 8 blocks, one a dependency group", 1},
      {ZIPFFT_F64, 32768, "in clusters of 4 blocks, one a dependency group", 1},
      {ZIPFFT_F32, 262144, "in clusters of", 0},
  };
  for (size_t m = 0; m < sizeof memory / sizeof *memory; m++) {
    setenv("ZIPFFT_SLOW_MEMORY", memory[m], 1);
    check_plan_text_rows(rows, sizeof rows / sizeof *rows);
  }
  unsetenv("ZIPFFT_SLOW_MEMORY");
}

/* The quick tier's contiguous lengths, each with the precisions it runs in. */
enum { F32 = 1, F64 = 2, BOTH = 3 };
static const struct {
  int64_t n;
  int precs;
} quick_lengths[] = {{1, BOTH},
                     {2, BOTH},
                     {4, BOTH},
                     {8, BOTH},
                     {16, BOTH},
                     {32, BOTH},
                     {64, BOTH},
                     {128, BOTH},
                     {256, BOTH},
                     {512, BOTH},
                     {1024, BOTH},
                     {2048, BOTH},
                     {4096, F32},
                     {8192, F32},
                     {16384, F32},
                     {3, BOTH},
                     {5, BOTH},
                     {7, BOTH},
                     {11, BOTH},
                     {13, BOTH},
                     {6, BOTH},
                     {10, BOTH},
                     {12, BOTH},
                     {14, BOTH},
                     {15, BOTH},
                     {21, BOTH},
                     {22, BOTH},
                     {26, BOTH},
                     {35, BOTH},
                     {60, BOTH},
                     {77, BOTH},
                     {91, BOTH},
                     {100, BOTH},
                     {143, BOTH},
                     {210, BOTH},
                     {1000, BOTH},
                     {1001, BOTH},
                     {2187, BOTH},
                     {2401, BOTH},
                     {3125, BOTH},
                     {4095, F32},
                     {14641, F32},
                     {7203, F64} /* threads take several butterflies, the last guarded */,
                     /* one butterfly of a smaller radix per thread: the larger radices' passes
                      * leave threads idle (choose_threads_per_transform) */
                     {1920, BOTH},
                     {5760, F64},
                     /* the prime radices 17 to 31 (direct butterflies) */
                     {17, BOTH},
                     {19, BOTH},
                     {23, BOTH},
                     {29, BOTH},
                     {31, BOTH},
                     {34, BOTH},
                     {323, BOTH},
                     {841, BOTH},
                     {1984, BOTH},
                     {17408, F32},
                     /* primes p above 31 with p - 1 31-smooth: Rader inside one kernel (20011:
                      * 20010 = 29x23x30 has two prime radices) */
                     {37, BOTH},
                     {97, BOTH},
                     {257, BOTH},
                     {1009, BOTH},
                     {7681, F32},
                     {8209, F64},
                     {20011, F32},
                     /* other prime factors above 31: Bluestein inside one kernel */
                     {74, BOTH},
                     {83, BOTH},
                     {107, BOTH},
                     {1019, BOTH},
                     {4099, BOTH},
                     {10007, F32},
                     /* longer than one kernel: four-step over 2 kernels */
                     {32768, F32},
                     {65536, F32},
                     {16384, F64},
                     {17 * 4096, F32},
                     /* four-step whose first (column) kernel is a Rader length: 73 x 137 */
                     {10001, BOTH},
                     /* Bluestein's padded length beyond one kernel; 524309 pads to 1049760,
                      * so its filter goes through the host in two chunks; above 2^20 points
                      * (1048583) the filter's source does too, each chunk uploaded again
                      * reversed as its mirror */
                     {20023, F32},
                     {8219, F64},
                     {524309, F32},
                     {1048583, F64}};

/* Quick tier, part 1: every listed length in both directions, contiguous. */
static void run_quick_lengths(void) {
  for (size_t i = 0; i < sizeof quick_lengths / sizeof quick_lengths[0]; i++)
    for (int p = 0; p < 2; p++) {
      if (!(quick_lengths[i].precs & (1 << p))) continue;
      int64_t n = quick_lengths[i].n, batch = n > 16384 ? 2 : n > 4096 ? 1 : 3;
      zipfft_precision prec = p == 0 ? ZIPFFT_F32 : ZIPFFT_F64;
      c2c_case fwd = basic_case(prec, n, batch, ZIPFFT_FORWARD);
      c2c_case inv = basic_case(prec, n, batch, ZIPFFT_INVERSE);
      run_case(&fwd);
      run_case(&inv);
    }
}

/* Layout and call variations of the quick tier. */
static const variant quick_variants[] = {
    {3, 1, 1, 0, 0, PL_IN, 0, 0, ZIPFFT_FORWARD},
    {3, 1, 1, 0, 0, PL_IN_NULLOUT, 0, 0, ZIPFFT_INVERSE},
    {3, 2, 1, 5, 0, PL_OUT, 0, 0, ZIPFFT_FORWARD},  /* strided, padded input */
    {3, 1, 3, 0, 7, PL_OUT, 0, 0, ZIPFFT_INVERSE},  /* strided, padded output */
    {2, 3, 2, 1, 3, PL_OUT, 0, 0, ZIPFFT_FORWARD},  /* both strided */
    {3, 1, 1, 13, 9, PL_OUT, 0, 0, ZIPFFT_INVERSE}, /* distances larger than n */
    {5, 0, 0, 0, 0, PL_OUT, 0, 0, ZIPFFT_FORWARD},  /* interleaved batches */
    {4, 0, 1, 0, 0, PL_OUT, 0, 0, ZIPFFT_INVERSE},  /* interleaved in, contiguous out */
    {3, 1, 0, 0, 0, PL_OUT, 0, 0, ZIPFFT_FORWARD},  /* contiguous in, interleaved out */
    {3, 0, 0, 0, 0, PL_IN, 0, 0, ZIPFFT_INVERSE},   /* interleaved in-place */
    {3, 2, 2, 4, 4, PL_IN, 0, 0, ZIPFFT_FORWARD},   /* strided in-place */
    {3, 1, 1, 0, 0, PL_OUT, 0, 1, ZIPFFT_INVERSE},  /* misaligned by part of an element */
    {2, 2, 1, 1, 0, PL_OUT, 0, 2, ZIPFFT_FORWARD},  /* odd misalignment, strided */
    {3, 1, 1, 0, 0, PL_OUT, 1, 0, ZIPFFT_INVERSE},  /* normalised inverse */
    {1, 1, 1, 0, 0, PL_IN, 1, 1, ZIPFFT_FORWARD},   /* scaled, misaligned, in-place */
    {17, 1, 1, 0, 0, PL_OUT, 0, 0, ZIPFFT_FORWARD}};

/* Every quick layout variant on one fp32 and one fp64 length, the two interleaved. */
static void run_variants(int64_t f32_length, int64_t f64_length) {
  for (size_t v = 0; v < sizeof quick_variants / sizeof quick_variants[0]; v++) {
    c2c_case a = variant_case(&quick_variants[v], ZIPFFT_F32, f32_length);
    c2c_case b = variant_case(&quick_variants[v], ZIPFFT_F64, f64_length);
    run_case(&a);
    run_case(&b);
  }
}

/* Quick tier, part 2: layouts, placements, misalignment, scale and batch 17 on a few
 * lengths of each precision. */
static void run_quick_variants(void) {
  static const int64_t lengths[2][8] = {{1, 5, 12, 64, 1000, 4096, 4099, 257},
                                        {1, 5, 12, 64, 1000, 2048, 97, 107}};
  for (int p = 0; p < 2; p++)
    for (size_t v = 0; v < sizeof quick_variants / sizeof quick_variants[0]; v++)
      for (int i = 0; i < 8; i++) {
        c2c_case c =
            variant_case(&quick_variants[v], p == 0 ? ZIPFFT_F32 : ZIPFFT_F64, lengths[p][i]);
        run_case(&c);
      }
}

/* Short kernels that stage their inputs and outputs through shared memory by element
 * (plan/staging.c, zipfft__stage_io_wanted): lengths 2 to 16 (16 as 4x4, four threads a transform,
 * in blocks of 8 KB: 64 transforms in fp32, 32 in fp64, zipfft__staged_block_threads), 21 (three
 * threads a transform, whole warps: 6 or 3 of them, zipfft__staged_whole_warps), 22 (two threads
 * a transform, whole warps), 32 and 124 (four threads a transform; 124 of radix 31), 55 and 64
 * (short C2C of five and eight threads, short_c2c), batches of several blocks with the last
 * partly idle (rows back to back), in place, a distance beyond the length (rows apart),
 * misaligned (the stage's byte-wise copies); fp32 126 and 256, fp32 95 (19x5), fp32 248
 * (31x8), 247 (19x13), 230 (23x10) and fp64 217 (31x7) staged too. Unstaged: fp64 126 and 256
 * (runs of 144 and 256 bytes), fp64 248 (radix 31 at runs of 128 bytes), fp32 253 (23x11),
 * fp32 300 (beyond 256 points), and fp32 55 with ZIPFFT_STAGE_SHORT_C2C=0. */
static void run_quick_staged(void) {
  static const int64_t lengths[] = {2, 4, 8, 12, 16, 21, 22, 32, 55, 64, 124};
  static const variant staged[] = {{300, 1, 1, 0, 0, PL_OUT, 0, 0, ZIPFFT_FORWARD},
                                   {131, 1, 1, 0, 0, PL_IN, 1, 0, ZIPFFT_INVERSE},
                                   {77, 1, 1, 3, 1, PL_OUT, 0, 2, ZIPFFT_FORWARD}};
  for (int p = 0; p < 2; p++)
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
      for (size_t v = 0; v < sizeof staged / sizeof *staged; v++) {
        c2c_case c = variant_case(&staged[v], p == 0 ? ZIPFFT_F32 : ZIPFFT_F64, lengths[i]);
        const char *sixteen = p == 0 ? "r4x4_t4_f64_sio_" : "r4x4_t4_f32_sio_";
        const char *whole = p == 0 ? "_t3_f64_sio_" : "_t3_f32_sio_"; /* 6 or 3 warps */
        if (v == 0)
          check_plan_says(&c, lengths[i] == 16 ? sixteen : lengths[i] == 21 ? whole : "_sio_");
        run_case(&c);
      }
  static const struct {
    zipfft_precision p;
    int64_t n;
    int staged;
  } rule[] = {{ZIPFFT_F32, 126, 1}, {ZIPFFT_F32, 256, 1}, {ZIPFFT_F32, 95, 1},
              {ZIPFFT_F32, 248, 1}, {ZIPFFT_F32, 247, 1}, {ZIPFFT_F32, 230, 1},
              {ZIPFFT_F32, 253, 0}, {ZIPFFT_F64, 217, 1}, {ZIPFFT_F64, 126, 0},
              {ZIPFFT_F64, 256, 0}, {ZIPFFT_F64, 248, 0}, {ZIPFFT_F32, 300, 0}};
  for (size_t i = 0; i < sizeof rule / sizeof *rule; i++) {
    c2c_case c = basic_case(rule[i].p, rule[i].n, 70, ZIPFFT_FORWARD);
    check_plan_text(&c, "_sio_", rule[i].staged);
    run_case(&c);
  }
  setenv("ZIPFFT_STAGE_SHORT_C2C", "0", 1);
  c2c_case off = basic_case(ZIPFFT_F32, 55, 70, ZIPFFT_FORWARD);
  check_plan_lacks(&off, "_sio_");
  run_case(&off);
  unsetenv("ZIPFFT_STAGE_SHORT_C2C");
}

/* Rader kernels over rows back to back load and store by element over the block
 * (rader_by_element): by rule fp32 47 and 59 (two threads a transform), forced
 * (ZIPFFT_RADER_BY_ELEMENT=2) fp32 37 (T = 6, 17 transforms a block) and 41 (T = 5), fp64 53
 * (T = 4) and 61 (T = 6), and 257 in both precisions; in batches of several blocks with the last
 * partly idle, in place normalised, misaligned by odd bytes (the byte-wise branch). Rows apart (a
 * distance beyond the length) and ZIPFFT_RADER_BY_ELEMENT=0 keep the loads and stores by transform,
 * as the rule does for fp32 37 (T = 6). */
static void run_quick_rader_by_element(void) {
  static const struct {
    zipfft_precision p;
    int64_t n;
    int forced;
  } lengths[] = {{ZIPFFT_F32, 47, 0},  {ZIPFFT_F32, 59, 0}, {ZIPFFT_F32, 37, 1},
                 {ZIPFFT_F64, 53, 1},  {ZIPFFT_F32, 41, 1}, {ZIPFFT_F64, 61, 1},
                 {ZIPFFT_F32, 257, 1}, {ZIPFFT_F64, 257, 1}};
  static const variant by_element[] = {{300, 1, 1, 0, 0, PL_OUT, 0, 0, ZIPFFT_FORWARD},
                                       {131, 1, 1, 0, 0, PL_IN, 1, 0, ZIPFFT_INVERSE},
                                       {77, 1, 1, 0, 0, PL_OUT, 0, 2, ZIPFFT_FORWARD}};
  for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
    if (lengths[i].forced) setenv("ZIPFFT_RADER_BY_ELEMENT", "2", 1);
    for (size_t v = 0; v < sizeof by_element / sizeof *by_element; v++) {
      c2c_case c = variant_case(&by_element[v], lengths[i].p, lengths[i].n);
      if (v == 0) check_plan_says(&c, "_rbe_");
      run_case(&c);
    }
    unsetenv("ZIPFFT_RADER_BY_ELEMENT");
  }
  static const variant apart = {40, 1, 1, 2, 0, PL_OUT, 0, 0, ZIPFFT_INVERSE};
  c2c_case rows_apart = variant_case(&apart, ZIPFFT_F32, 47);
  check_plan_lacks(&rows_apart, "_rbe_");
  run_case(&rows_apart);
  c2c_case by_rule = basic_case(ZIPFFT_F32, 37, 100, ZIPFFT_FORWARD);
  check_plan_lacks(&by_rule, "_rbe_");
  c2c_case by_transform = basic_case(ZIPFFT_F32, 47, 100, ZIPFFT_FORWARD);
  setenv("ZIPFFT_RADER_BY_ELEMENT", "0", 1);
  check_plan_lacks(&by_transform, "_rbe_");
  run_case(&by_transform);
  unsetenv("ZIPFFT_RADER_BY_ELEMENT");
}

/* Primes above 31 as one butterfly: fp64 C2C 37, 41 and 43 by rule (size_direct_prime;
 * ZIPFFT_DIRECT_PRIME_F64=31 leaves them to Rader's method, and 47 stays with it), and
 * ZIPFFT_RADICES (tuning) naming any butterfly the generator has: fp32 61 and 37x2 as
 * named; a radix above 64 is not taken. */
static void run_prime_radices_above_31(void) {
  static const struct {
    zipfft_precision p;
    int64_t n;
    const char *radices, *says;
  } named[] = {{ZIPFFT_F64, 37, NULL, "radix 37,"},    {ZIPFFT_F64, 41, NULL, "radix 41,"},
               {ZIPFFT_F64, 43, NULL, "radix 43,"},    {ZIPFFT_F64, 47, NULL, "Rader"},
               {ZIPFFT_F32, 37, NULL, "Rader"},        {ZIPFFT_F32, 61, "61", "radix 61,"},
               {ZIPFFT_F32, 74, "37x2", "radix 37x2,"}};
  for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
    if (named[i].radices) setenv("ZIPFFT_RADICES", named[i].radices, 1);
    c2c_case c = basic_case(named[i].p, named[i].n, 70, i % 2 ? ZIPFFT_INVERSE : ZIPFFT_FORWARD);
    check_plan_says(&c, named[i].says);
    run_case(&c);
    unsetenv("ZIPFFT_RADICES");
  }
  setenv("ZIPFFT_DIRECT_PRIME_F64", "31", 1);
  c2c_case rader = basic_case(ZIPFFT_F64, 41, 5, ZIPFFT_FORWARD);
  check_plan_says(&rader, "Rader");
  unsetenv("ZIPFFT_DIRECT_PRIME_F64");
  setenv("ZIPFFT_RADICES", "67", 1);
  c2c_case above = basic_case(ZIPFFT_F32, 67, 3, ZIPFFT_FORWARD);
  check_plan_lacks(&above, "radix 67,");
  unsetenv("ZIPFFT_RADICES");
}

/* Short C2C rows at five and six threads a transform, staged (plan/staging.c short_c2c):
 * fp32 25, 35, 45, 50 and 60 in the search's shapes (session 81 on an H100: 99.6-100.3% of
 * copy, where session 79's table of one-butterfly shapes ran 50 at 89.0), forward and
 * inverse, each also in a layout variant (strided in place, padded, misaligned, normalised);
 * fp64 35 too. */
static void run_short_c2c_shapes(void) {
  static const struct {
    zipfft_precision p;
    int64_t n;
    const char *says;
    size_t layout; /* a quick_variants row */
  } shapes[] = {{ZIPFFT_F32, 25, "_r5x5_t5_", 10},  {ZIPFFT_F32, 35, "_r7x5_t5_", 2},
                {ZIPFFT_F32, 45, "_r9x5_t5_", 4},   {ZIPFFT_F32, 50, "_r10x5_t5_", 11},
                {ZIPFFT_F32, 60, "_r10x6_t6_", 13}, {ZIPFFT_F64, 35, "_r7x5_t5_", 10}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    c2c_case c = basic_case(shapes[i].p, shapes[i].n, 130, i % 2 ? ZIPFFT_INVERSE : ZIPFFT_FORWARD);
    check_plan_says(&c, shapes[i].says);
    check_plan_says(&c, "_sio_");
    run_case(&c);
    c2c_case laid_out = variant_case(&quick_variants[shapes[i].layout], shapes[i].p, shapes[i].n);
    run_case(&laid_out);
  }
}

/* Quick tier, part 3: cluster kernels (lengths no block holds, over 4 blocks) with the
 * layout variants they take: batch distances, in-place, misalignment, scale; each as
 * planned and asking L2 for a later cluster's input after the loads (on the CPU a read of the bytes
 * named, but the kernel is generated); and lengths a cluster cannot take. */
static void run_quick_clusters(void) {
  static const size_t variants[] = {0, 1, 5, 11, 13, 14, 15};
  static const struct {
    zipfft_precision p;
    int64_t n;
  } lengths[] = {{ZIPFFT_F32, 32768}, {ZIPFFT_F64, 16384}};
  for (int prefetch = 0; prefetch < 2; prefetch++) {
    if (prefetch) {
      setenv("ZIPFFT_PREFETCH_BLOCKS", "1", 1);
      setenv("ZIPFFT_PREFETCH_AFTER_LOADS", "1", 1);
    }
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
      c2c_case plain = basic_case(lengths[i].p, lengths[i].n, 1, ZIPFFT_FORWARD);
      check_plan_says(&plain, prefetch ? "_grp4_pa1_pl_" : "cluster of 4 blocks");
      for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        variant shorter = quick_variants[variants[v]];
        if (shorter.batch > 3) shorter.batch = 3;
        c2c_case c = variant_case(&shorter, lengths[i].p, lengths[i].n);
        run_case(&c);
      }
    }
  }
  unsetenv("ZIPFFT_PREFETCH_BLOCKS");
  unsetenv("ZIPFFT_PREFETCH_AFTER_LOADS");
  /* a cluster of 8 blocks (tuning variables; not planned by default), in place */
  setenv("ZIPFFT_CLUSTER_BLOCKS", "8", 1);
  setenv("ZIPFFT_CLUSTER_BYTES", "70000", 1);
  c2c_case eight = basic_case(ZIPFFT_F32, 65536, 2, ZIPFFT_INVERSE);
  check_plan_says(&eight, "cluster of 8 blocks");
  eight.place = PL_IN;
  run_case(&eight);
  unsetenv("ZIPFFT_CLUSTER_BLOCKS");
  unsetenv("ZIPFFT_CLUSTER_BYTES");
  /* Lengths the planner once sized for a kernel the generator refuses (INTERNAL): fp32
   * 29160 = 4 x 7290 and fp64 14580 = 4 x 3645, whose part per block a cluster of 4 cannot
   * split evenly over its blocks ("bad cluster size"; fp64 7247's Bluestein filter plan is
   * 14580), and fp32 27404 = 31x26x17x2, whose 527 threads left 4 radix-17 butterflies, 68
   * values, to a thread ("too many values per thread"; now 884 threads). */
  static const struct {
    zipfft_precision p;
    int64_t n;
  } uneven[] = {{ZIPFFT_F32, 29160}, {ZIPFFT_F64, 14580}, {ZIPFFT_F64, 7247}, {ZIPFFT_F32, 27404}};
  for (size_t i = 0; i < sizeof uneven / sizeof uneven[0]; i++) {
    c2c_case c = basic_case(uneven[i].p, uneven[i].n, 1, ZIPFFT_FORWARD);
    run_case(&c);
  }
}

/* Lengths with no good split in two (plan/fourstep.c loose_limits): on devices of slow memory
 * fp32 2^23 as 2048 x 4096 (run), 5000000 as 2000 x 2500 (run: columns and rows not powers of
 * two), fp64 2^21 as 1024 x 2048; in three fp32 10^7 (odd columns, 3125 x 3200), 15240960
 * (3920-point rows two a block), fp64 2^23 (no split in two) and 2000000 (1600-point rows
 * of 800 threads); with ZIPFFT_LOOSE_SPLIT=0 or fast memory fp32 2^23 in three, with
 * ZIPFFT_LOOSE_SPLIT=2 fp64 2000000 in two. */
static void run_quick_loose_split(void) {
  setenv("ZIPFFT_SLOW_MEMORY", "1", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 8388608, 1, ZIPFFT_INVERSE);
  c2c_case even = basic_case(ZIPFFT_F32, 5000000, 1, ZIPFFT_FORWARD);
  c2c_case f64 = basic_case(ZIPFFT_F64, 2097152, 1, ZIPFFT_FORWARD);
  static const struct {
    zipfft_precision precision;
    int64_t n;
    const char *split;
  } in_three[] = {{ZIPFFT_F32, 10000000, "n = 200 x 200 x 250,"},
                  {ZIPFFT_F32, 15240960, "n = 245 x 243 x 256,"},
                  {ZIPFFT_F64, 8388608, "n = 128 x 256 x 256,"},
                  {ZIPFFT_F64, 2000000, "n = 125 x 125 x 128,"}};
  check_plan_says(&f32, "n = 2048 x 4096,");
  check_plan_says(&even, "n = 2000 x 2500,");
  check_plan_says(&f64, "n = 1024 x 2048,");
  for (size_t i = 0; i < sizeof in_three / sizeof in_three[0]; i++) {
    c2c_case c = basic_case(in_three[i].precision, in_three[i].n, 1, ZIPFFT_FORWARD);
    check_plan_says(&c, in_three[i].split);
  }
  run_case(&even);
  run_case(&f32);
  setenv("ZIPFFT_LOOSE_SPLIT", "0", 1);
  check_plan_says(&f32, "n = 128 x 256 x 256,");
  setenv("ZIPFFT_LOOSE_SPLIT", "2", 1);
  c2c_case f64_spilling = basic_case(ZIPFFT_F64, 2000000, 1, ZIPFFT_FORWARD);
  check_plan_says(&f64_spilling, "n = 1250 x 1600,");
  unsetenv("ZIPFFT_LOOSE_SPLIT");
  setenv("ZIPFFT_SLOW_MEMORY", "0", 1);
  check_plan_says(&f32, "n = 128 x 256 x 256,");
  unsetenv("ZIPFFT_SLOW_MEMORY");
}

/* Quick tier, part 4: the four-step kernels on short lengths, by lowering the longest
 * single-kernel length (ZIPFFT_FOURSTEP_MAX_SINGLE): 2, 3 and 4 kernels, a Bluestein
 * factor, a Rader column kernel with the fused twiddles (2701 = 37 x 73), a row kernel in
 * place, and every layout variant. */
static void run_quick_fourstep(void) {
  static const struct {
    const char *cap;
    zipfft_precision p;
    int64_t n;
  } lengths[] = {{"16", ZIPFFT_F32, 256},  {"16", ZIPFFT_F64, 4096}, {"16", ZIPFFT_F32, 65536},
                 {"32", ZIPFFT_F32, 1088}, {"32", ZIPFFT_F64, 1000}, {"8", ZIPFFT_F32, 360},
                 {"64", ZIPFFT_F32, 4096}, {"200", ZIPFFT_F64, 37 * 73}};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", lengths[i].cap, 1);
    c2c_case fwd = basic_case(lengths[i].p, lengths[i].n, 2, ZIPFFT_FORWARD);
    c2c_case inv = basic_case(lengths[i].p, lengths[i].n, 2, ZIPFFT_INVERSE);
    run_case(&fwd);
    run_case(&inv);
  }
  /* the fused twiddles read for every output (1) and chained with an odd period (3; the
   * default is 8), on radix-16 and radix-10 last passes */
  static const char *const chains[] = {"1", "3"};
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "16", 1);
  for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
    setenv("ZIPFFT_TWIDDLE_CHAIN", chains[i], 1);
    c2c_case f32 = basic_case(ZIPFFT_F32, 65536, 2, ZIPFFT_FORWARD);
    c2c_case f64 = basic_case(ZIPFFT_F64, 1000, 2, ZIPFFT_INVERSE);
    run_case(&f32);
    run_case(&f64);
  }
  unsetenv("ZIPFFT_TWIDDLE_CHAIN");
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "32", 1);
  /* 360 = 18 x 20: its row kernel (radix 5x4) runs its passes in place, and with
   * ZIPFFT_ROWS_IN_PLACE=0 as Stockham passes */
  c2c_case rows = basic_case(ZIPFFT_F32, 360, 2, ZIPFFT_FORWARD);
  check_plan_says(&rows, "passes in place (each writes the slots it read), in frequency");
  setenv("ZIPFFT_ROWS_IN_PLACE", "0", 1);
  check_plan_lacks(&rows, "passes in place");
  unsetenv("ZIPFFT_ROWS_IN_PLACE");
  for (size_t v = 0; v < sizeof quick_variants / sizeof quick_variants[0]; v++) {
    c2c_case f32 = variant_case(&quick_variants[v], ZIPFFT_F32, 4096);
    c2c_case f64 = variant_case(&quick_variants[v], ZIPFFT_F64, 1024);
    c2c_case in_place_rows = variant_case(&quick_variants[v], ZIPFFT_F32, 360);
    /* primes past the lowered limit: Bluestein through the workspace */
    c2c_case bl32 = variant_case(&quick_variants[v], ZIPFFT_F32, 67);
    c2c_case bl64 = variant_case(&quick_variants[v], ZIPFFT_F64, 37);
    run_case(&f32);
    run_case(&f64);
    run_case(&in_place_rows);
    run_case(&bl32);
    run_case(&bl64);
  }
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Runs the listed quick variants (indices into quick_variants) of a length, with batches
 * of at most 5. */
static void run_short_variants(zipfft_precision p, int64_t n, const size_t *variants,
                               size_t count) {
  for (size_t v = 0; v < count; v++) {
    variant shorter = quick_variants[variants[v]];
    if (shorter.batch > 5) shorter.batch = 5;
    c2c_case c = variant_case(&shorter, p, n);
    run_case(&c);
  }
}

/* run_quick_cluster_columns' options, under its four-step limit: the fused twiddle chain
 * re-read every third output (clusters of 8 on 2048 x 16), the radices of a block's part
 * named (clusters of 8 on 4096 x 16), then on 4096 x 16 in clusters of 4 the block-ahead
 * prefetch (the first four of the variants given), its kernels sanitized.
 * Leaves ZIPFFT_FOURSTEP_SPLIT and ZIPFFT_CLUSTER_COLUMNS set. */
static void run_cluster_column_options(const size_t *variants) {
  /* the chain re-read from the table every third output of the 8 a thread stores */
  setenv("ZIPFFT_FOURSTEP_SPLIT", "2048x16", 1);
  setenv("ZIPFFT_CLUSTER_COLUMNS", "8", 1);
  setenv("ZIPFFT_TWIDDLE_CHAIN", "3", 1);
  for (int d = 0; d < 2; d++) {
    c2c_case c = basic_case(ZIPFFT_F32, 32768, 3, d ? ZIPFFT_INVERSE : ZIPFFT_FORWARD);
    check_plan_says(&c, "read where q is a multiple of 3");
    run_case(&c);
  }
  unsetenv("ZIPFFT_TWIDDLE_CHAIN");
  /* a block's part of 512 points on the radices ZIPFFT_RADICES names (4096 x 16, clusters
   * of 8) */
  setenv("ZIPFFT_FOURSTEP_SPLIT", "4096x16", 1);
  setenv("ZIPFFT_CLUSTER_COLUMNS", "8", 1);
  setenv("ZIPFFT_RADICES", "16x16x2", 1);
  c2c_case named = basic_case(ZIPFFT_F32, 65536, 3, ZIPFFT_FORWARD);
  check_plan_says(&named, "radix 16x16x2, 32 threads per transform");
  run_case(&named);
  unsetenv("ZIPFFT_RADICES");
  /* 4096 x 16 in clusters of 4 from here on */
  setenv("ZIPFFT_CLUSTER_COLUMNS", "4", 1);
  /* asking L2 for a later cluster's columns, each block its rank's elements, the kernels
   * sanitized (every prefetched byte within the input) */
  setenv("ZIPFFT_PREFETCH_BLOCKS", "1", 1);
  c2c_case ahead = basic_case(ZIPFFT_F32, 65536, 3, ZIPFFT_INVERSE);
  check_plan_says(&ahead, "_grp4_sil_pa1_");
  zt_sanitized_kernels_begin();
  for (int after = 0; after < 2; after++) {
    setenv("ZIPFFT_PREFETCH_AFTER_LOADS", after ? "1" : "0", 1);
    run_short_variants(ZIPFFT_F32, 65536, variants, 4);
  }
  zt_sanitized_kernels_end();
  unsetenv("ZIPFFT_PREFETCH_AFTER_LOADS");
  unsetenv("ZIPFFT_PREFETCH_BLOCKS");
}

/* Quick tier: four-step column kernels as clusters (ZIPFFT_CLUSTER_COLUMNS, tuning), on
 * splits named so that the columns are long and few: 16 columns of 4096 points per
 * transform over clusters of 4 (one set of columns a cluster), 8 of them over clusters of 2
 * (8 columns of 2048 points a block, as many as 1024 threads take) and of 4 (a cluster's
 * 16 columns span two transforms, and an odd batch leaves the last cluster half its
 * columns), fp32 2048-point columns over 8 blocks (the twiddle chain re-read from the table
 * after every twiddle_chain outputs: ZIPFFT_TWIDDLE_CHAIN=3), fp64 over 4, the middle
 * kernel of a split in three; the fused twiddles chained from output k (the default) and
 * read for each output (ZIPFFT_TWIDDLE_CHAIN=1); shared memory interleaved (the default)
 * and in padded rows (ZIPFFT_CLUSTER_INTERLEAVE=0); layouts, placements, misalignment, scale
 * and the block-ahead prefetch; and where the planner takes cluster columns by default. */
static void run_quick_cluster_columns(void) {
  static const struct {
    const char *split, *cluster;
    zipfft_precision p;
    int64_t n;
    const char *says;
  } lengths[] = {{"4096x16", "4", ZIPFFT_F32, 65536, "cluster of 4 blocks per 16 columns"},
                 {"4096x8", "2", ZIPFFT_F32, 32768, "cluster of 2 blocks per 8 columns"},
                 {"4096x8", "4", ZIPFFT_F32, 32768, "cluster of 4 blocks per 16 columns"},
                 {"2048x16", "8", ZIPFFT_F32, 32768, "cluster of 8 blocks per 16 columns"},
                 {"2048x8", "4", ZIPFFT_F64, 16384, "cluster of 4 blocks per 8 columns"},
                 {"16x4096x4", "4", ZIPFFT_F32, 262144, "cluster of 4 blocks per 16 columns"}};
  static const size_t variants[] = {0, 1, 2, 3, 5, 10, 11, 13, 14};
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "4096", 1);
  setenv("ZIPFFT_PAIR", "0", 1);
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    setenv("ZIPFFT_FOURSTEP_SPLIT", lengths[i].split, 1);
    setenv("ZIPFFT_CLUSTER_COLUMNS", lengths[i].cluster, 1);
    c2c_case plain = basic_case(lengths[i].p, lengths[i].n, 2, ZIPFFT_FORWARD);
    check_plan_says(&plain, lengths[i].says);
    check_plan_says(&plain, "the fused twiddles of outputs k + ");
    check_plan_says(&plain, "shared memory interleaved");
    run_short_variants(lengths[i].p, lengths[i].n, variants, sizeof variants / sizeof variants[0]);
    setenv("ZIPFFT_TWIDDLE_CHAIN", "1", 1);
    check_plan_lacks(&plain, "chained");
    run_case(&plain);
    unsetenv("ZIPFFT_TWIDDLE_CHAIN");
    setenv("ZIPFFT_CLUSTER_INTERLEAVE", "0", 1); /* padded rows of shared memory */
    check_plan_lacks(&plain, "interleaved");
    run_case(&plain);
    unsetenv("ZIPFFT_CLUSTER_INTERLEAVE");
    setenv("ZIPFFT_CLUSTER_MIN_BLOCKS", "3", 1); /* launch bounds: a kernel of its own */
    check_plan_says(&plain, "_mb3_");
    unsetenv("ZIPFFT_CLUSTER_MIN_BLOCKS");
    check_plan_lacks(&plain, "_mb3_");
  }
  run_cluster_column_options(variants);
  unsetenv("ZIPFFT_CLUSTER_COLUMNS");
  /* planned by default for fp32 4096-point columns on devices of slow memory (the CPU's
   * class): clusters of 8 on radices 32x16; not on fast memory, not for fp64, not with
   * ZIPFFT_CLUSTER_COLUMNS=0 */
  c2c_case planned = basic_case(ZIPFFT_F32, 65536, 1, ZIPFFT_FORWARD);
  check_plan_says(&planned, "radix 32x16, 16 threads per transform");
  check_plan_says(&planned, "cluster of 8 blocks per 16 columns");
  run_case(&planned);
  c2c_case f64 = basic_case(ZIPFFT_F64, 65536, 1, ZIPFFT_FORWARD);
  check_plan_lacks(&f64, "cluster of");
  setenv("ZIPFFT_SLOW_MEMORY", "0", 1);
  check_plan_lacks(&planned, "cluster of");
  unsetenv("ZIPFFT_SLOW_MEMORY");
  setenv("ZIPFFT_CLUSTER_COLUMNS", "0", 1);
  check_plan_lacks(&planned, "cluster of");
  unsetenv("ZIPFFT_CLUSTER_COLUMNS");
  unsetenv("ZIPFFT_FOURSTEP_SPLIT");
  unsetenv("ZIPFFT_PAIR");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Quick tier: the split in two transposed (ZIPFFT_TRANSPOSED_SPLIT, tuning): the first
 * kernel stores each column as a row, the last is a column kernel. Mode 2 (any kernels) on
 * small splits whose factors differ (a swapped factor in a stride fails them), fp32 and
 * fp64, in every quick layout; mode 1 only where both kernels become cluster column kernels
 * (ZIPFFT_CLUSTER_COLUMNS), the first storing along k: fp32 2048 x 2048, forward in place
 * and inverse normalised, and a split they cannot take planned as before; none by default. */
static void run_quick_transposed_split(void) {
  static const char *const splits[] = {"64x32", "32x64"};
  const char *transposed = "columns with fused twiddles stored as rows, then columns";
  static const size_t all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  setenv("ZIPFFT_TRANSPOSED_SPLIT", "2", 1);
  for (int i = 0; i < 2; i++) {
    setenv("ZIPFFT_FOURSTEP_SPLIT", splits[i], 1);
    c2c_case c = basic_case(i ? ZIPFFT_F64 : ZIPFFT_F32, 2048, 2, ZIPFFT_FORWARD);
    check_plan_says(&c, transposed);
    check_plan_lacks(&c, "pair kernel");
    run_short_variants(ZIPFFT_F32, 2048, all, sizeof all / sizeof all[0]);
    run_short_variants(ZIPFFT_F64, 2048, all, sizeof all / sizeof all[0]);
  }
  setenv("ZIPFFT_TRANSPOSED_SPLIT", "1", 1); /* plain column kernels: the split as before */
  c2c_case plain = basic_case(ZIPFFT_F32, 2048, 1, ZIPFFT_FORWARD);
  check_plan_says(&plain, "then rows stored transposed");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  setenv("ZIPFFT_FOURSTEP_SPLIT", "2048x2048", 1);
  setenv("ZIPFFT_CLUSTER_COLUMNS", "4", 1);
  c2c_case in_place = variant_case(&quick_variants[0], ZIPFFT_F32, 4194304);
  in_place.batch = 1;
  check_plan_says(&in_place, transposed);
  check_plan_says(&in_place, "on neighbouring k of a column");
  c2c_case normalised = variant_case(&quick_variants[13], ZIPFFT_F32, 4194304);
  normalised.batch = 1;
  run_case(&in_place);
  run_case(&normalised);
  unsetenv("ZIPFFT_TRANSPOSED_SPLIT");
  check_plan_lacks(&in_place, "stored as rows");
  unsetenv("ZIPFFT_CLUSTER_COLUMNS");
  unsetenv("ZIPFFT_FOURSTEP_SPLIT");
}

/* Full tier: the transposed split's cluster column kernels on factors that differ (fp32 4096
 * x 2048 and 2048 x 4096, 8M points: each about 6 s and 1.6 GB on the CPU), where a swapped
 * factor in a cluster kernel's strides or twiddle would show. */
static void run_full_transposed_split(void) {
  static const char *const splits[] = {"4096x2048", "2048x4096"};
  setenv("ZIPFFT_TRANSPOSED_SPLIT", "1", 1);
  setenv("ZIPFFT_CLUSTER_COLUMNS", "4", 1);
  for (int i = 0; i < 2; i++) {
    setenv("ZIPFFT_FOURSTEP_SPLIT", splits[i], 1);
    c2c_case c = basic_case(ZIPFFT_F32, 8388608, 1, i ? ZIPFFT_INVERSE : ZIPFFT_FORWARD);
    check_plan_says(&c, "columns with fused twiddles stored as rows, then columns");
    run_case(&c);
  }
  unsetenv("ZIPFFT_FOURSTEP_SPLIT");
  unsetenv("ZIPFFT_CLUSTER_COLUMNS");
  unsetenv("ZIPFFT_TRANSPOSED_SPLIT");
}

/* With ZIPFFT_PREFETCH_AHEAD set: a split in two whose plain column kernel asks L2 for a
 * later block's columns (on CUDA by default only on fast memory at one block per
 * multiprocessor, as fp32 2^20 runs on an H200, after the first pass's loads): 4096 = 64 x
 * 64 without the pair kernel, fp32 asking after its loads and fp64 as it starts, in the
 * layouts whose columns stay adjacent (unit input stride: in place, distances larger than n,
 * misaligned, normalised); a Rader kernel asked to prefetch after its loads asks as it
 * starts. */
static void run_quick_column_prefetch(void) {
  static const size_t variants[] = {0, 5, 11, 13};
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  setenv("ZIPFFT_PAIR", "0", 1);
  for (int p = 0; p < 2; p++) { /* fp32 asks after its first pass's loads, fp64 as it starts */
    zipfft_precision precision = p ? ZIPFFT_F64 : ZIPFFT_F32;
    setenv("ZIPFFT_PREFETCH_AFTER_LOADS", p ? "0" : "1", 1);
    c2c_case plain = basic_case(precision, 4096, 3, ZIPFFT_FORWARD);
    check_plan_says(&plain, "_tc8_pa");
    check_plan_text(&plain, "_pl_", !p);
    run_case(&plain);
    run_short_variants(precision, 4096, variants, sizeof variants / sizeof variants[0]);
  }
  unsetenv("ZIPFFT_PAIR");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  /* A Rader kernel's first pass reads its staging, not global memory: it asks as it starts. */
  setenv("ZIPFFT_PREFETCH_AFTER_LOADS", "1", 1);
  c2c_case rader = basic_case(ZIPFFT_F32, 257, 3, ZIPFFT_FORWARD);
  check_plan_says(&rader, "_pa");
  check_plan_lacks(&rader, "_pl_");
  run_case(&rader);
  unsetenv("ZIPFFT_PREFETCH_AFTER_LOADS");
}

/* With ZIPFFT_PREFETCH_AHEAD set: Bluestein's first column kernel (the chirp on its loads)
 * asks L2 for a later block's columns only at positions below Bluestein's length, where each
 * user row ends: fp32 131 and fp64 61 through the three kernels, in the layouts that move
 * the rows' ends (in place, strided, padded distances, interleaved batches, misaligned). The
 * CPU's prefetch reads the byte it asks for (at a distance that follows the host's threads,
 * left out of the plan check), and in sanitizer builds run_quick_prefetch
 * has these kernels instrumented, so a prefetch past the last row's end is a reported
 * overflow. */
static void run_quick_chirp_prefetch(void) {
  static const size_t variants[] = {0, 2, 5, 6, 11, 15};
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "32", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 131, 3, ZIPFFT_FORWARD);
  c2c_case f64 = basic_case(ZIPFFT_F64, 61, 3, ZIPFFT_INVERSE);
  check_plan_says(&f32, "_bq10_131_270_18p0p1_pa"); /* the first kernel prefetches */
  check_plan_says(&f64, "_bq10_61_125_25p0p1_pa");
  for (int p = 0; p < 2; p++)
    run_short_variants(p ? ZIPFFT_F64 : ZIPFFT_F32, p ? 61 : 131, variants,
                       sizeof variants / sizeof variants[0]);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Quick tier: kernels that ask L2 for a later block's input as they start
 * (ZIPFFT_PREFETCH_AHEAD applies it on the CPU too, where the prefetch only reads the bytes it
 * names): the plan takes the prefetching kernel, its CUDA source compiles, and the results stay
 * right, for one and several transforms per block (a partial last block), a Rader prime and a
 * Bluestein length, in place, with distances larger than n, misaligned, scaled; a four-step
 * column kernel (run_quick_column_prefetch) and Bluestein's chirp-loading column kernel
 * (run_quick_chirp_prefetch). In sanitizer builds their CPU kernels are instrumented
 * (zt_sanitized_kernels_begin), so a prefetch past the caller's arrays is reported. */
static void run_quick_prefetch(void) {
  static const struct {
    zipfft_precision p;
    int64_t n;
  } lengths[] = {{ZIPFFT_F32, 16384},
                 {ZIPFFT_F64, 2187},
                 {ZIPFFT_F64, 64},
                 {ZIPFFT_F32, 257},
                 {ZIPFFT_F32, 4099}};
  static const size_t variants[] = {0, 5, 11, 14, 15};
  setenv("ZIPFFT_PREFETCH_AHEAD", "2", 1);
  zt_sanitized_kernels_begin(); /* every prefetch stays within the caller's arrays */
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    c2c_case plain = basic_case(lengths[i].p, lengths[i].n, 3, ZIPFFT_FORWARD);
    check_plan_says(&plain, "_pa");
    run_case(&plain);
    run_short_variants(lengths[i].p, lengths[i].n, variants, sizeof variants / sizeof variants[0]);
  }
  run_quick_column_prefetch();
  run_quick_chirp_prefetch();
  zt_sanitized_kernels_end();
  unsetenv("ZIPFFT_PREFETCH_AHEAD");
}

/* Quick tier: plain row kernels whose last, smallest radix runs first (api/plan.c
 * ask_radix_rotation; by default on devices of fast memory). ZIPFFT_ROTATE_RADICES=1 rotates
 * on every target, so that the rotated kernels run against the reference here: a 4-pass
 * mixed-radix kernel and two 3-pass ones, forward, inverse and several layouts. Without the
 * variable the CPU plan (slow-memory rules) keeps the search's order; with it a Bluestein
 * length (its padded kernel), a uniform-radix length, a power of two and a length whose
 * first radix is a prime above 13 stay as they are. */
static void run_quick_rotation(void) {
  static const struct {
    zipfft_precision p;
    int64_t n;
    const char *planned, *rotated;
  } lengths[] = {{ZIPFFT_F64, 2187, "radix 9x9x9x3,", "radix 3x9x9x9,"},
                 {ZIPFFT_F32, 7680, "radix 24x20x16,", "radix 16x24x20,"},
                 {ZIPFFT_F32, 3072, "radix 16x16x12,", "radix 12x16x16,"}};
  static const size_t variants[] = {1, 4, 10, 12, 13};
  unsetenv("ZIPFFT_ROTATE_RADICES"); /* the test sets it as each check needs */
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    c2c_case plain = basic_case(lengths[i].p, lengths[i].n, 3, ZIPFFT_FORWARD);
    check_plan_says(&plain, lengths[i].planned);
    setenv("ZIPFFT_ROTATE_RADICES", "1", 1);
    check_plan_says(&plain, lengths[i].rotated);
    run_case(&plain);
    run_short_variants(lengths[i].p, lengths[i].n, variants, sizeof variants / sizeof variants[0]);
    unsetenv("ZIPFFT_ROTATE_RADICES");
  }
  setenv("ZIPFFT_ROTATE_RADICES", "1", 1);
  c2c_case bluestein = basic_case(ZIPFFT_F32, 4099, 2, ZIPFFT_FORWARD);
  c2c_case uniform = basic_case(ZIPFFT_F32, 4096, 2, ZIPFFT_FORWARD);
  c2c_case power_of_two = basic_case(ZIPFFT_F32, 16384, 2, ZIPFFT_FORWARD);
  c2c_case prime_first = basic_case(ZIPFFT_F64, 4352, 2, ZIPFFT_FORWARD);
  check_plan_says(&bluestein, "radix 7x7x7x6x4,");
  check_plan_says(&uniform, "radix 16x16x16,");
  check_plan_says(&power_of_two, "radix 32x32x16,");
  check_plan_says(&prime_first, "radix 17x16x16,");
  unsetenv("ZIPFFT_ROTATE_RADICES");
}

/* Pair kernels in the cluster form (ZIPFFT_PAIR_CLUSTER, plan/pair.h), with ZIPFFT_PAIR and
 * ZIPFFT_FOURSTEP_MAX_SINGLE set by the caller: fp32 4096 = 64 x 64 (2 items a group: a
 * cluster of 2 blocks, one item each) over 9 transforms, in place and strided; the split in
 * three's groups of 64 items in clusters of 2 and 8 (32 and 8 items a block) forward, and
 * in fp64 inverse over 2 transforms; a cluster that does not divide the group keeps the
 * persistent form. */
static void run_quick_cluster_pairs(void) {
  setenv("ZIPFFT_PAIR_CLUSTER", "2", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 4096, 9, ZIPFFT_FORWARD);
  c2c_case in_place = variant_case(&quick_variants[1], ZIPFFT_F32, 4096);
  c2c_case strided = variant_case(&quick_variants[10], ZIPFFT_F32, 4096);
  check_plan_says(&f32, "in clusters of 2 blocks, one a dependency group");
  run_case(&f32);
  run_case(&in_place);
  run_case(&strided);
  static const char *const clusters[] = {"2", "8"};
  c2c_case three = basic_case(ZIPFFT_F32, 262144, 1, ZIPFFT_FORWARD);
  c2c_case three64 = basic_case(ZIPFFT_F64, 262144, 2, ZIPFFT_INVERSE);
  for (size_t i = 0; i < sizeof clusters / sizeof clusters[0]; i++) {
    setenv("ZIPFFT_PAIR_CLUSTER", clusters[i], 1);
    run_case(&three);
    run_case(&three64);
  }
  setenv("ZIPFFT_PAIR_CLUSTER", "4", 1);
  check_plan_lacks(&f32, "in clusters of");
  unsetenv("ZIPFFT_PAIR_CLUSTER");
}

/* A NaN in the input of a packed four-step (fp32 4096 = 64 x 64) reaches every output as a
 * NaN, as it does unpacked: its segments unpack as NaNs, not as finite values. */
static void check_packed_nan(void) {
  const int64_t n = 4096;
  const size_t bytes = (size_t)n * 8;
  c2c_case c = basic_case(ZIPFFT_F32, n, 1, ZIPFFT_FORWARD);
  zipfft_plan p = NULL;
  char err[max_text];
  if (make_plan(&c, &p, err, sizeof err) != ZIPFFT_SUCCESS) {
    case_fail(&c, "plan creation: %s", err);
    return;
  }
  float *host = malloc(bytes);
  void *in = zt_mem_alloc(bytes), *out = zt_mem_alloc(bytes);
  if (!host || !in || !out) exit(2);
  for (int64_t i = 0; i < 2 * n; i++) host[i] = (float)sin(0.37 * (double)i);
  host[2 * 100] = NAN;
  ZT_CHECK(zt_mem_upload(in, host, bytes), "uploading the input");
  ZT_OK(zipfft_execute(p, in, out, NULL));
  ZT_CHECK(zt_mem_download(host, out, bytes), "downloading the output");
  int64_t finite = 0;
  for (int64_t i = 0; i < 2 * n; i++) finite += !isnan(host[i]);
  ZT_CHECK(finite == 0, "packed fp32 4096 with a NaN input: %lld output parts not NaN",
           (long long)finite);
  zipfft_plan_destroy(p);
  zt_mem_free(in);
  zt_mem_free(out);
  free(host);
}

/* fp32 length n of a packed workspace in every layout variant, its last two kernels as a pair
 * and apart (the first variant's plan names out_part and in_part), then as a pair with a
 * lag of `lag` items (past every item) over `late_batch` inverse transforms. */
static void run_packed_layouts(int64_t n, const char *out_part, const char *in_part,
                               const char *lag, int64_t late_batch) {
  static const char *const pairing[] = {"1", "0"};
  for (size_t i = 0; i < sizeof pairing / sizeof pairing[0]; i++) {
    setenv("ZIPFFT_PAIR", pairing[i], 1);
    for (size_t v = 0; v < sizeof quick_variants / sizeof quick_variants[0]; v++) {
      c2c_case c = variant_case(&quick_variants[v], ZIPFFT_F32, n);
      if (v == 0) check_plan_says(&c, out_part);
      if (v == 0) check_plan_says(&c, in_part);
      run_case(&c);
    }
  }
  setenv("ZIPFFT_PAIR_LAG", lag, 1);
  setenv("ZIPFFT_PAIR", "1", 1);
  c2c_case late = basic_case(ZIPFFT_F32, n, late_batch, ZIPFFT_INVERSE);
  check_plan_says(&late, "pair kernel");
  run_case(&late);
  unsetenv("ZIPFFT_PAIR_LAG");
  unsetenv("ZIPFFT_PAIR");
}

/* The packed workspace of a split in three (plan/packed_workspace.c: the middle kernel
 * reads and writes its segments in place): fp32 2^18 = 64 x 64 x 64 in every layout
 * variant, its last two kernels as a pair and apart, and a pair's lag past every item. */
static void run_packed_in_place_of_elements(void) {
  setenv("ZIPFFT_FOURSTEP_SPLIT", "64x64x64", 1);
  run_packed_layouts(262144, "_pkxo_", "_pki_is8_", "4096", 2);
  unsetenv("ZIPFFT_FOURSTEP_SPLIT");
}

/* The packed workspace (ZIPFFT_PACKED_WORKSPACE=1, plan/packed_workspace.c): fp32 4096 =
 * 64 x 64 (the longest single kernel lowered to 64) as a pair and as two kernels in every
 * layout variant, a lag past every item, splits in three, and 2^18 and 2^20 as planned for
 * an H100 (a pair) and an H200 (two kernels, 16 columns a block), and a NaN input; off by
 * default, and fp64 never packs. */
static void run_quick_packed(void) {
  setenv("ZIPFFT_PACKED_WORKSPACE", "1", 1);
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  run_packed_layouts(4096, "_pko_", "_pki_", "64", 3);
  c2c_case f64 = basic_case(ZIPFFT_F64, 4096, 2, ZIPFFT_FORWARD);
  check_plan_lacks(&f64, "_pk");
  if (zt_in_first_part()) check_packed_nan();
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  run_packed_in_place_of_elements();
  static const char *const memory[] = {"1", "0"};
  for (size_t i = 0; i < sizeof memory / sizeof memory[0]; i++) {
    setenv("ZIPFFT_SLOW_MEMORY", memory[i], 1);
    c2c_case mid = basic_case(ZIPFFT_F32, 262144, 2, ZIPFFT_FORWARD);
    c2c_case large = basic_case(ZIPFFT_F32, 1048576, 1, ZIPFFT_INVERSE);
    check_plan_says(&large, "outputs packed");
    run_case(&mid);
    run_case(&large);
  }
  unsetenv("ZIPFFT_SLOW_MEMORY");
  unsetenv("ZIPFFT_PACKED_WORKSPACE");
  c2c_case plain = basic_case(ZIPFFT_F32, 1048576, 1, ZIPFFT_FORWARD);
  check_plan_lacks(&plain, "_pk");
}

/* Quick tier, part 5: pair kernels (the two kernels of a four-step split run as one
 * persistent kernel, plan/pair.h) on short lengths by lowering the longest single-kernel
 * length to 64 (fp32 4096 = 64 x 64, fp64 2048 = 32 x 64): every layout variant (in-place
 * ones with different layouts take the two kernels instead), the least lag (each second
 * item waits for a group just completed), a lag past every item (every first item runs
 * before any second one), and the user's data read and written evict-first. */
static void run_quick_pairs(void) {
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 4096, 3, ZIPFFT_FORWARD);
  c2c_case f64 = basic_case(ZIPFFT_F64, 2048, 2, ZIPFFT_INVERSE);
  check_plan_says(&f32, "run as one pair kernel");
  check_plan_says(&f64, "run as one pair kernel");
  /* Pairs whatever the device's bandwidth (the plan checks above hold for the CPU's). */
  setenv("ZIPFFT_PAIR", "1", 1);
  for (size_t v = 0; v < sizeof quick_variants / sizeof quick_variants[0]; v++) {
    c2c_case a = variant_case(&quick_variants[v], ZIPFFT_F32, 4096);
    c2c_case b = variant_case(&quick_variants[v], ZIPFFT_F64, 2048);
    run_case(&a);
    run_case(&b);
  }
  static const char *const lags[] = {"1", "64"};
  for (size_t i = 0; i < sizeof lags / sizeof lags[0]; i++) {
    setenv("ZIPFFT_PAIR_LAG", lags[i], 1);
    run_case(&f32);
    run_case(&f64);
  }
  unsetenv("ZIPFFT_PAIR_LAG");
  /* the user's data evict-first (the default from 4 MiB transforms; CUDA only, the C
   * kernels are the same) */
  setenv("ZIPFFT_PAIR_STREAM", "1", 1);
  check_plan_says(&f32, "the user's data evict-first");
  run_case(&f32);
  run_case(&f64);
  unsetenv("ZIPFFT_PAIR_STREAM");
  /* the last two kernels of a split in three (64 x 64 x 64: groups of the row kernel's 32
   * slabs of k0), with layouts that move the input, the output or both, and in fp64 */
  c2c_case three = basic_case(ZIPFFT_F32, 262144, 1, ZIPFFT_FORWARD);
  unsetenv("ZIPFFT_PAIR");
  check_plan_says(&three, "the last two, run as one pair kernel");
  setenv("ZIPFFT_PAIR", "1", 1);
  run_case(&three);
  static const size_t three_variants[] = {1, 3, 10, 12};
  for (size_t i = 0; i < sizeof three_variants / sizeof three_variants[0]; i++) {
    c2c_case c = variant_case(&quick_variants[three_variants[i]], ZIPFFT_F32, 262144);
    run_case(&c);
  }
  c2c_case three64 = basic_case(ZIPFFT_F64, 262144, 2, ZIPFFT_INVERSE);
  check_plan_says(&three64, "the last two, run as one pair kernel");
  run_case(&three64);
  run_quick_cluster_pairs();
  unsetenv("ZIPFFT_PAIR");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Quick tier: Bluestein beyond one kernel with its chirps and filter in the four-steps'
 * loads and stores (plan/long_axis.c append_bluestein), under a lowered single-kernel
 * length: fp32 131 (padded to 270, four kernels a four-step) and fp64 37 in place, whose
 * plans have no pointwise pass, the first four-step loading the chirp, the second loading
 * the filter and storing the chirp for the user's positions only; with
 * ZIPFFT_FUSED_BLUESTEIN=0 the pointwise passes of before. Every case against the
 * reference, outputs poisoned and guard bands checked (run_case). */
static void run_quick_fused_bluestein(void) {
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "8", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 131, 3, ZIPFFT_FORWARD);
  c2c_case f64 = basic_case(ZIPFFT_F64, 37, 2, ZIPFFT_INVERSE);
  f64.place = PL_IN;
  static const char *const fused[] = {
      "Bluestein's chirp times the first 131 positions of each padded row as it loads",
      "Bluestein's filter multiply (270 points) as it loads",
      "Bluestein's chirp times the outputs as it stores, only the first 131 positions"};
  for (size_t i = 0; i < sizeof fused / sizeof fused[0]; i++) check_plan_says(&f32, fused[i]);
  check_plan_lacks(&f32, "times chirp");
  check_plan_lacks(&f32, "Bluestein filter multiply, c2c");
  check_plan_says(&f64, "Bluestein's chirp times the outputs as it stores, only the first 37");
  run_case(&f32);
  run_case(&f64);
  setenv("ZIPFFT_FUSED_BLUESTEIN", "0", 1);
  check_plan_says(&f32, "gather times chirp");
  check_plan_says(&f32, "Bluestein filter multiply, c2c");
  check_plan_lacks(&f32, "as it loads");
  run_case(&f32);
  run_case(&f64);
  unsetenv("ZIPFFT_FUSED_BLUESTEIN");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Quick tier: Bluestein's route of three kernels where its padded length splits in two
 * (plan/fourstep.c zipfft__fourstep_bluestein_append): under a single-kernel limit of 32,
 * 131 pads to 270 (columns of 15, rows of 18 as 6x3) and 61 to 125 (5, 25 as 5x5: the
 * first FFT hands its outputs to the second in registers); the plan texts, every layout variant
 * (the strided and interleaved ones through the gather and scatter) in both precisions,
 * and with ZIPFFT_BLUESTEIN_MIDDLE=0 the two four-steps. */
static void run_quick_bluestein_middle(void) {
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "32", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 131, 3, ZIPFFT_FORWARD);
  check_plan_says(&f32, "3 kernels");
  check_plan_says(&f32, "between two 18-point FFTs");
  check_plan_says(&f32, "evict-first"); /* the middle kernel's, so that the filter stays in L2 */
  check_plan_says(&f32, "Bluestein's chirp times the outputs as it stores, only the first 131");
  run_variants(131, 61);
  setenv("ZIPFFT_BLUESTEIN_MIDDLE", "0", 1);
  check_plan_lacks(&f32, "between two");
  check_plan_says(&f32, "Bluestein's filter multiply (270 points) as it loads");
  run_case(&f32);
  unsetenv("ZIPFFT_BLUESTEIN_MIDDLE");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Quick tier: the intermediate of a split in two in tiles of rows (plan/fourstep.c
 * zipfft__fourstep_tile_rows) on short lengths: 4096 = 64 x 64 with 4 columns per block
 * (ZIPFFT_MAJOR_FFTS) and no pair kernel, fp32 in tiles of 4 rows and fp64 of 2, every
 * layout variant; none where the columns fill a line (fp32 2^22) or with
 * ZIPFFT_TILE_ROWS=0. */
static void run_quick_tiles(void) {
  c2c_case wide = basic_case(ZIPFFT_F32, 4194304, 1, ZIPFFT_FORWARD);
  check_plan_lacks(&wide, "tiles of");
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "64", 1);
  setenv("ZIPFFT_MAJOR_FFTS", "4", 1);
  setenv("ZIPFFT_PAIR", "0", 1);
  c2c_case f32 = basic_case(ZIPFFT_F32, 4096, 3, ZIPFFT_FORWARD);
  c2c_case f64 = basic_case(ZIPFFT_F64, 4096, 2, ZIPFFT_INVERSE);
  check_plan_says(&f32, "outputs stored in tiles of 4 rows");
  check_plan_says(&f64, "outputs stored in tiles of 2 rows");
  /* its row kernel reads tiles by neighbouring transforms, but stores as a row kernel */
  check_plan_says(&f32, "then rows stored transposed");
  run_variants(4096, 4096);
  setenv("ZIPFFT_TILE_ROWS", "0", 1);
  check_plan_lacks(&f32, "tiles of");
  unsetenv("ZIPFFT_TILE_ROWS");
  unsetenv("ZIPFFT_PAIR");
  unsetenv("ZIPFFT_MAJOR_FFTS");
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Full tier: every 31-smooth length up to 4096 (f32) / 2048 (f64) in both directions with
 * batch 2, and every 31-smooth f32 length in (4096, 16384] once (directions alternate). */
static void run_full_sweep(void) {
  int64_t above = 0;
  for (int64_t n = 1; n <= 16384; n++) {
    if (!zt_is_31_smooth(n)) continue;
    for (int p = 0; p < 2; p++) {
      zipfft_precision prec = p == 0 ? ZIPFFT_F32 : ZIPFFT_F64;
      if (n > sweep_max(prec) && prec == ZIPFFT_F64) continue;
      if (n > sweep_max(prec)) {
        c2c_case c = basic_case(prec, n, 1, above++ % 2 ? ZIPFFT_INVERSE : ZIPFFT_FORWARD);
        run_case(&c);
        continue;
      }
      c2c_case fwd = basic_case(prec, n, 2, ZIPFFT_FORWARD);
      c2c_case inv = basic_case(prec, n, 2, ZIPFFT_INVERSE);
      run_case(&fwd);
      run_case(&inv);
    }
  }
}

/* Full tier, Rader, Bluestein and four-step: every prime up to 1024 (fp32 forward, fp64
 * inverse; Rader's method where p - 1 is 31-smooth, Bluestein's elsewhere),
 * and long lengths split over 2 to 4 kernels with lowered single-kernel limits. */
static void run_full_bluestein_fourstep(void) {
  for (int64_t n = 17; n <= 1024; n++) {
    int prime = 1;
    for (int64_t d = 2; d * d <= n && prime; d++) prime = n % d != 0;
    if (!prime) continue;
    c2c_case fwd = basic_case(ZIPFFT_F32, n, 2, ZIPFFT_FORWARD);
    c2c_case inv = basic_case(ZIPFFT_F64, n, 2, ZIPFFT_INVERSE);
    run_case(&fwd);
    run_case(&inv);
  }
  static const struct {
    const char *cap; /* every factor at most this, at most 4 factors */
    int64_t n;
  } splits[] = {{"8", 96},    {"8", 700},    {"8", 1024},     {"16", 2310},    {"17", 4913},
                {"64", 6561}, {"64", 20000}, {"16", 1 << 16}, {"64", 1 << 17}, {"512", 1 << 17}};
  for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
    setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", splits[i].cap, 1);
    c2c_case f32 = basic_case(ZIPFFT_F32, splits[i].n, 1, ZIPFFT_FORWARD);
    c2c_case f64 = basic_case(ZIPFFT_F64, splits[i].n, 1, ZIPFFT_INVERSE);
    run_case(&f32);
    run_case(&f64);
  }
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  /* square splits in two with columns wider than the column limit (plan/fourstep.c
   * square_split): fp64 2048 x 2048 out of place, fp32 4096 x 4096 in place, misaligned */
  c2c_case f64 = basic_case(ZIPFFT_F64, 1 << 22, 1, ZIPFFT_FORWARD);
  c2c_case f32 = basic_case(ZIPFFT_F32, 1 << 24, 1, ZIPFFT_INVERSE);
  f32.place = PL_IN, f32.inv_n_scale = 1, f32.misalign = 8;
  run_case(&f64);
  run_case(&f32);
}

/* Runs forward (scale 1) then inverse (scale 1/n) on the run's buffers and checks that
 * the result equals the input within the gate and that no guard band was written. */
static void round_trip_check(const c2c_case *fc, zipfft_plan fwd, zipfft_plan inv) {
  run_data r;
  run_setup(fc, &r);
  zt_buffer back = zt_buffer_alloc(r.out.bytes, fc->misalign);
  zt_buffer_poison(&back, zt_real_size(fc->prec));
  zipfft_status s = zt_execute(fwd, &r.in, &r.out, NULL);
  if (s == ZIPFFT_SUCCESS) s = zt_execute(inv, &r.out, &back, NULL);
  if (s != ZIPFFT_SUCCESS) {
    case_fail(fc, "round trip: zipfft_execute: %s: %s", zipfft_status_name(s), zipfft_last_error());
  } else {
    long double *x = zr_alloc_pairs((size_t)fc->n);
    gather(fc, &back, 1, fc->n, r.got);
    for (int64_t t = 0; t < fc->batch; t++) {
      for (int64_t i = 0; i < 2 * fc->n; i++) x[i] = r.input[2 * t * fc->n + i];
      double ratio = zr_rel_l2(x, r.got + 2 * t * fc->n, (size_t)fc->n) / gate_unit(fc);
      if (!(ratio <= 10))
        case_fail(fc,
                  "round trip forward, inverse with scale 1/n: error %.2f u*sqrt(log2 n) "
                  "in transform %lld (gate 10)",
                  ratio, (long long)t);
    }
    free(x);
  }
  if (!zt_buffer_guards_intact(&r.out) || !zt_buffer_guards_intact(&back))
    case_fail(fc, "round trip: a guard band around the spectrum or the result was written");
  zt_buffer_free(&back);
  run_free(&r);
}

/* Round trip of a contiguous out-of-place batch (skipped when the length is unsupported
 * above the version's bound), when it belongs to this run's part. */
static void run_round_trip(zipfft_precision p, int64_t n, int64_t batch) {
  if (!zt_case_in_part()) return;
  c2c_case fc = basic_case(p, n, batch, ZIPFFT_FORWARD);
  c2c_case ic = basic_case(p, n, batch, ZIPFFT_INVERSE);
  zipfft_plan fwd = NULL, inv = NULL;
  char err[max_text];
  ic.inv_n_scale = 1;
  zipfft_status s = make_plan(&fc, &fwd, err, sizeof err);
  if (s == ZIPFFT_SUCCESS) s = make_plan(&ic, &inv, err, sizeof err);
  if (s != ZIPFFT_SUCCESS) {
    cases_run++;
    case_fail(&fc, "round trip: plan creation: %s: %s", zipfft_status_name(s), err);
  } else {
    cases_run++;
    round_trip_check(&fc, fwd, inv);
  }
  zipfft_plan_destroy(fwd);
  zipfft_plan_destroy(inv);
}

/* A batch count above 2^31 must be accepted at planning (nothing is executed). */
static void check_large_batch_plan(void) {
  for (int p = 0; p < 2; p++) {
    c2c_case c = basic_case(p == 0 ? ZIPFFT_F32 : ZIPFFT_F64, 2, (1LL << 31) + 5, ZIPFFT_FORWARD);
    zipfft_plan plan = NULL;
    char err[max_text];
    zipfft_status s = make_plan(&c, &plan, err, sizeof err);
    cases_run++;
    if (s != ZIPFFT_SUCCESS)
      case_fail(&c, "plan creation (plan only): %s: %s", zipfft_status_name(s), err);
    zipfft_plan_destroy(plan);
  }
}

/* Parses a problem string as printed by case_text. Returns 1 on success. */
static int parse_case(const char *text, c2c_case *c) {
  static const char *const places[] = {"outofplace", "inplace", "inplace-nullout"};
  char prec[8], dir[8], place[24], scale[8];
  long long n, batch, is, id, os, od;
  size_t misalign;
  if (sscanf(text,
             "c2c %7s %7s n=%lld batch=%lld istride=%lld idist=%lld ostride=%lld "
             "odist=%lld %23s scale=%7s misalign=%zu",
             prec, dir, &n, &batch, &is, &id, &os, &od, place, scale, &misalign) != 11)
    return 0;
  *c = basic_case(strcmp(prec, "f64") == 0 ? ZIPFFT_F64 : ZIPFFT_F32, n, batch,
                  strcmp(dir, "inv") == 0 ? ZIPFFT_INVERSE : ZIPFFT_FORWARD);
  c->istride = is;
  c->idist = id;
  c->ostride = os;
  c->odist = od;
  c->inv_n_scale = strcmp(scale, "1/n") == 0;
  c->misalign = misalign;
  int known_place = 0;
  for (int i = 0; i < 3; i++)
    if (strcmp(place, places[i]) == 0) c->place = (placement_mode)i, known_place = 1;
  return known_place && n >= 1 && batch >= 1 && is >= 1 && os >= 1 && id >= 1 && od >= 1 &&
         misalign < 64 && (strcmp(prec, "f32") == 0 || strcmp(prec, "f64") == 0) &&
         (strcmp(dir, "fwd") == 0 || strcmp(dir, "inv") == 0) &&
         (strcmp(scale, "1") == 0 || c->inv_n_scale);
}

/* Runs the problems given as arguments (problem strings, as printed on failure). */
static void run_arguments(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    c2c_case c;
    if (parse_case(argv[i], &c)) {
      run_case(&c);
    } else {
      fprintf(stderr, "not a problem string: \"%s\"\n", argv[i]);
      zt_failures++;
    }
  }
}

/* The quick tier and, when ZIPFFT_TEST_TIER=full, the full sweep; with ZIPFFT_TEST_PART
 * one part of the quick tier, or of the full sweep alone. */
static void run_tiers(void) {
  static const struct {
    zipfft_precision p;
    int64_t n, batch;
  } trips[] = {{ZIPFFT_F32, 1, 2},     {ZIPFFT_F32, 1000, 3},  {ZIPFFT_F32, 4096, 2},
               {ZIPFFT_F32, 16384, 1}, {ZIPFFT_F64, 7, 4},     {ZIPFFT_F64, 2048, 2},
               {ZIPFFT_F64, 2187, 1},  {ZIPFFT_F32, 65536, 1}, {ZIPFFT_F32, 4099, 2}};
  int one_part = zt_part_read();
  if (one_part < 0) return;
  if (!one_part || !zt_full_tier()) { /* a part of the full tier runs its sweep cases alone */
    run_quick_lengths();
    run_quick_variants();
    run_quick_clusters();
    run_quick_fourstep();
    run_quick_loose_split();
    run_quick_fused_bluestein();
    run_quick_bluestein_middle();
    run_quick_pairs();
    run_quick_packed();
    run_quick_tiles();
    run_quick_cluster_columns();
    run_quick_transposed_split();
    run_quick_prefetch();
    run_quick_rotation();
    run_quick_staged();
    run_quick_rader_by_element();
    run_prime_radices_above_31();
    run_short_c2c_shapes();
    for (size_t i = 0; i < sizeof trips / sizeof trips[0]; i++)
      run_round_trip(trips[i].p, trips[i].n, trips[i].batch);
    if (zt_in_first_part()) {
      check_plan_texts();
      check_plan_occupancy_text();
      check_rotation_spills();
      check_fast_memory_plans();
      check_cluster_pairs_on_either_memory();
      check_large_batch_plan();
    }
  }
  if (zt_full_tier()) {
    run_full_sweep();
    run_full_bluestein_fourstep();
    run_full_transposed_split();
  }
}

/* Usage: test_c2c [problem string...]. Without arguments runs the tiers. */
int main(int argc, char **argv) {
  if (!zt_device_ready()) return zt_finish("test_c2c", 0);
  if (argc > 1)
    run_arguments(argc, argv);
  else
    run_tiers();
  for (int p = 0; p < 2; p++)
    printf("worst %s error: %.3f u*sqrt(log2 n) (%s)\n", p == 0 ? "f32" : "f64", worst_ratio[p],
           worst_text[p][0] ? worst_text[p] : "no case");
  printf("test_c2c (%s, %s tier): %d cases run\n", zt_backend_name(),
         zt_full_tier() ? "full" : "quick", cases_run);
  return zt_finish_cases("test_c2c", cases_run);
}
