/* test_synth.c - the `zipfft match` data helpers: the synthetic data set (determinism,
 * placement, template stack, noise), normalisation, peak picking, a naive cross-correlation
 * that finds the planted copies, and the peaks CSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prepare.h"
#include "synth.h"
#include "test_util.h"

enum { max_truth = 64 };

/* One generated data set. */
typedef struct dataset {
  synth_params p;
  float *image, *templates;
  synth_truth truth[max_truth];
} dataset;

static synth_params params_of(int w, int h, int size, int shapes, int rotations, int planted,
                              float sigma, uint64_t seed) {
  synth_params p = {w, h, size, shapes, rotations, planted, sigma, seed};
  return p;
}

/* Generates p into d; 1 on success (a failure is counted). */
static int make(dataset *d, synth_params p) {
  char err[256] = "";
  memset(d, 0, sizeof *d);
  d->p = p;
  int rc = synth_make(&p, &d->image, &d->templates, d->truth, err, sizeof err);
  ZT_CHECK(rc == 0 && d->image && d->templates, "synth_make: %s", err);
  return rc == 0;
}

static void release(dataset *d) {
  free(d->image);
  free(d->templates);
  d->image = d->templates = NULL;
}

static int64_t image_count(const dataset *d) { return (int64_t)d->p.image_w * d->p.image_h; }

static int64_t stack_count(const dataset *d) {
  return (int64_t)d->p.shapes * d->p.rotations * d->p.template_size * d->p.template_size;
}

static const float *template_of(const dataset *d, int shape, int rotation) {
  int64_t pixels = (int64_t)d->p.template_size * d->p.template_size;
  return d->templates + ((int64_t)shape * d->p.rotations + rotation) * pixels;
}

/* The same seed gives the same bytes; another seed other data. */
static void test_determinism(void) {
  synth_params p = params_of(200, 160, 32, 2, 6, 4, 1.0f, 42);
  dataset a, b, c;
  int ok = make(&a, p) & make(&b, p);
  p.seed = 43;
  ok &= make(&c, p);
  if (ok) {
    ZT_CHECK(memcmp(a.image, b.image, (size_t)image_count(&a) * 4) == 0, "images differ");
    ZT_CHECK(memcmp(a.templates, b.templates, (size_t)stack_count(&a) * 4) == 0, "stacks");
    ZT_CHECK(memcmp(a.truth, b.truth, sizeof a.truth) == 0, "truths differ");
    ZT_CHECK(memcmp(a.image, c.image, (size_t)image_count(&a) * 4) != 0, "seed ignored");
    ZT_CHECK(memcmp(a.templates, c.templates, (size_t)stack_count(&a) * 4) != 0, "seed");
  }
  release(&a);
  release(&b);
  release(&c);
}

/* Every copy lies inside the image, overlaps no other and names a template of the stack. */
static void check_placement(const dataset *d) {
  const synth_params *p = &d->p;
  for (int i = 0; i < p->planted; i++) {
    const synth_truth *t = &d->truth[i];
    ZT_CHECK(t->x >= 0 && t->y >= 0 && t->x + p->template_size <= p->image_w &&
                 t->y + p->template_size <= p->image_h,
             "seed %llu: copy %d at (%d, %d) outside", (unsigned long long)p->seed, i, t->x, t->y);
    ZT_CHECK(t->template_index >= 0 && t->template_index < p->shapes * p->rotations,
             "copy %d: template %d", i, t->template_index);
    for (int j = 0; j < i; j++)
      ZT_CHECK(abs(d->truth[j].x - t->x) >= p->template_size ||
                   abs(d->truth[j].y - t->y) >= p->template_size,
               "seed %llu: copies %d and %d overlap", (unsigned long long)p->seed, j, i);
  }
}

static void test_placement(void) {
  dataset d;
  if (make(&d, params_of(1024, 1024, 128, 3, 24, 6, 1.0f, 7))) check_placement(&d);
  release(&d);
  for (uint64_t seed = 1; seed <= 20; seed++) { /* dense: 24 copies where 64 fit */
    if (make(&d, params_of(256, 256, 32, 2, 3, 24, 0.5f, seed))) check_placement(&d);
    release(&d);
  }
}

/* Bilinear sample of a size x size image at (x, y); 0 (and *inside = 0) outside it. */
static double bilinear(const float *img, int size, double x, double y, int *inside) {
  *inside = x >= 0 && y >= 0 && x <= size - 1 && y <= size - 1;
  if (!*inside) return 0;
  int x0 = (int)fmin(floor(x), size - 2), y0 = (int)fmin(floor(y), size - 2);
  double fx = x - x0, fy = y - y0;
  const float *r0 = img + (int64_t)y0 * size + x0, *r1 = r0 + size;
  return (1 - fy) * ((1 - fx) * r0[0] + fx * r0[1]) + fy * ((1 - fx) * r1[0] + fx * r1[1]);
}

/* Largest |turn(src by angle) - expected| over the pixels whose source lies inside. */
static double turn_error(const float *src, const float *expected, int size, double angle) {
  double c = cos(angle), s = sin(angle), centre = (size - 1) / 2.0, worst = 0;
  for (int v = 0; v < size; v++)
    for (int u = 0; u < size; u++) {
      double dx = u - centre, dy = v - centre;
      int inside;
      double got = bilinear(src, size, centre + dx * c + dy * s, centre - dx * s + dy * c, &inside);
      if (inside) worst = zt_worse(worst, fabs(got - expected[(int64_t)v * size + u]));
    }
  return worst;
}

static double max_abs_difference(const float *a, const float *b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) worst = zt_worse(worst, fabs((double)a[i] - b[i]));
  return worst;
}

/* Rotation 0 peaks at 1 and keeps to the disc; step r turned by one more step gives r + 1. */
static void check_turns(const dataset *d, int shape) {
  int size = d->p.template_size, n = d->p.rotations;
  int64_t pixels = (int64_t)size * size;
  const float *base = template_of(d, shape, 0);
  float highest = 0, corner = 0;
  for (int64_t i = 0; i < pixels; i++) {
    highest = fmaxf(highest, base[i]);
    double dx = i % size - (size - 1) / 2.0, dy = i / size - (size - 1) / 2.0;
    if (sqrt(dx * dx + dy * dy) > 0.48 * size) corner = fmaxf(corner, fabsf(base[i]));
  }
  ZT_CHECK(fabsf(highest - 1) < 1e-6f, "shape %d peaks at %g", shape, highest);
  ZT_CHECK(corner < 0.1f, "shape %d reaches %g outside the disc", shape, corner);
  for (int r = 0; r < n; r++) {
    const float *from = template_of(d, shape, r), *to = template_of(d, shape, (r + 1) % n);
    double err = turn_error(from, to, size, 2 * M_PI / n);
    double apart = max_abs_difference(from, to, pixels);
    ZT_CHECK(err < 0.01, "shape %d rotation %d turned: error %g", shape, r, err);
    ZT_CHECK(apart > 0.2, "shape %d rotations %d, %d alike (%g)", shape, r, r + 1, apart);
  }
}

/* Quarter turns are exact pixel permutations: t[r+1][v][u] = t[r][size-1-u][v]. */
static void check_quarter_turns(const dataset *d, int shape) {
  int size = d->p.template_size, bad = 0;
  for (int r = 0; r < 4; r++) {
    const float *from = template_of(d, shape, r), *to = template_of(d, shape, (r + 1) % 4);
    for (int v = 0; v < size; v++)
      for (int u = 0; u < size; u++)
        bad += to[(int64_t)v * size + u] != from[(int64_t)(size - 1 - u) * size + v];
  }
  ZT_CHECK(bad == 0, "shape %d: %d pixels break the quarter turns", shape, bad);
}

/* The stack: the base (rotation 0) whatever the rotation count, consistent turns. */
static void test_stack(void) {
  dataset many, one, four;
  int ok = make(&many, params_of(256, 256, 128, 3, 24, 1, 1.0f, 11));
  ok &= make(&one, params_of(300, 200, 128, 3, 1, 0, 0.0f, 11));
  ok &= make(&four, params_of(128, 128, 128, 3, 4, 1, 1.0f, 11));
  for (int s = 0; ok && s < 3; s++) {
    size_t bytes = (size_t)128 * 128 * 4;
    ZT_CHECK(memcmp(template_of(&many, s, 0), template_of(&one, s, 0), bytes) == 0, "base 24");
    ZT_CHECK(memcmp(template_of(&four, s, 0), template_of(&one, s, 0), bytes) == 0, "base 4");
    ZT_CHECK(memcmp(template_of(&four, s, 1), template_of(&many, s, 6), bytes) == 0, "90 deg");
    check_turns(&many, s);
    check_quarter_turns(&four, s);
  }
  if (ok)
    ZT_CHECK(max_abs_difference(template_of(&one, 0, 0), template_of(&one, 1, 0), 128 * 128) > 0.2,
             "shapes 0 and 1 alike");
  release(&many);
  release(&one);
  release(&four);
}

/* The noise-free image is exactly the sum of the copies (zero elsewhere). */
static void check_clean_image(const dataset *d) {
  const synth_params *p = &d->p;
  float *expected = calloc((size_t)image_count(d), sizeof *expected);
  int size = p->template_size;
  for (int k = 0; k < p->planted; k++) {
    const float *t = d->templates + (int64_t)d->truth[k].template_index * size * size;
    for (int v = 0; v < size; v++)
      for (int u = 0; u < size; u++)
        expected[(int64_t)(d->truth[k].y + v) * p->image_w + d->truth[k].x + u] += t[v * size + u];
  }
  ZT_CHECK(memcmp(expected, d->image, (size_t)image_count(d) * 4) == 0, "clean image");
  free(expected);
}

/* noisy - clean: mean 0, standard deviation sigma, Gaussian fraction within 1 sigma,
 * neighbours uncorrelated. */
static void check_noise(const dataset *noisy, const dataset *clean, double sigma) {
  int64_t n = image_count(noisy);
  double sum = 0, sum_sq = 0, lag_sum = 0, within = 0, previous = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = (double)noisy->image[i] - clean->image[i];
    sum += e;
    sum_sq += e * e;
    within += fabs(e) < sigma;
    if (i > 0) lag_sum += e * previous;
    previous = e;
  }
  double mean = sum / n, sd = sqrt(sum_sq / n - mean * mean);
  ZT_CHECK(fabs(mean) < 5 * sigma / sqrt(n), "noise mean %g", mean);
  ZT_CHECK(fabs(sd / sigma - 1) < 5 / sqrt(2.0 * n), "noise sd %g, expected %g", sd, sigma);
  ZT_CHECK(fabs(within / n - 0.682689) < 5 * 0.466 / sqrt(n), "%g within 1 sd", within / n);
  ZT_CHECK(fabs(lag_sum / n) / (sd * sd) < 5 / sqrt(n), "neighbour correlation");
}

static void test_noise(void) {
  dataset clean, noisy;
  int ok = make(&clean, params_of(512, 384, 48, 3, 8, 10, 0.0f, 5));
  ok &= make(&noisy, params_of(512, 384, 48, 3, 8, 10, 0.7f, 5));
  if (ok) {
    ZT_CHECK(memcmp(clean.truth, noisy.truth, sizeof clean.truth) == 0, "sigma moved copies");
    ZT_CHECK(memcmp(clean.templates, noisy.templates, (size_t)stack_count(&clean) * 4) == 0,
             "sigma changed the templates");
    check_clean_image(&clean);
    check_noise(&noisy, &clean, 0.7);
  }
  release(&clean);
  release(&noisy);
}

/* One normalisation of count values (offset + uniform noise) against double arithmetic. */
static void check_normalized(int64_t count, int64_t padded, double offset, int as_image) {
  float *x = malloc((size_t)count * sizeof *x);
  double sum = 0, sum_sq = 0, worst = 0, got_sum = 0, got_sq = 0;
  for (int64_t i = 0; i < count; i++) sum += x[i] = (float)(offset + zt_uniform(3, i));
  for (int64_t i = 0; i < count; i++) sum_sq += (x[i] - sum / count) * (x[i] - sum / count);
  double scale = sqrt(padded / sum_sq);
  float *expected_input = malloc((size_t)count * sizeof *x);
  memcpy(expected_input, x, (size_t)count * sizeof *x);
  if (as_image)
    normalize_image(x, count);
  else
    normalize_template(x, count, padded);
  for (int64_t i = 0; i < count; i++) {
    worst = zt_worse(worst, fabs(x[i] - (expected_input[i] - sum / count) * scale));
    got_sum += x[i];
    got_sq += (double)x[i] * x[i];
  }
  ZT_CHECK(worst < 1e-6, "count %lld: error %g", (long long)count, worst);
  ZT_CHECK(fabs(got_sum / count) < 1e-5, "count %lld: mean %g", (long long)count, got_sum / count);
  ZT_CHECK(fabs(got_sq / padded - 1) < 1e-5, "count %lld: sum sq %g", (long long)count, got_sq);
  free(x);
  free(expected_input);
}

/* A constant input becomes all zero. */
static void check_constant(int64_t count, int as_image) {
  float *x = malloc((size_t)count * sizeof *x);
  for (int64_t i = 0; i < count; i++) x[i] = 3.25f;
  if (as_image)
    normalize_image(x, count);
  else
    normalize_template(x, count, 4 * count);
  int nonzero = 0;
  for (int64_t i = 0; i < count; i++) nonzero += x[i] != 0;
  ZT_CHECK(nonzero == 0, "constant count %lld: %d nonzero", (long long)count, nonzero);
  free(x);
}

static void test_normalize(void) {
  check_normalized(256, 64 * 64, 0, 0);
  check_normalized(128 * 128, 512 * 512, 2.5, 0);
  check_normalized(1000, 1000, 0, 1);
  check_normalized(1 << 20, 1 << 20, 1000, 1); /* large offset: needs double sums */
  check_constant(1, 0);
  check_constant(1000, 0);
  check_constant(777, 1);
}

/* Runs find_peaks and compares with the expected list (x, y, value triples). */
static void expect_peaks(const char *what, const float *map, int w, int h, float threshold,
                         int radius, int max_peaks, const peak *expected, int expected_count) {
  peak out[32];
  for (int i = 0; i < 32; i++) out[i] = (peak){-7, -7, -7};
  int got = find_peaks(map, w, h, threshold, radius, out, max_peaks);
  ZT_CHECK(got == expected_count, "%s: %d peaks, expected %d", what, got, expected_count);
  for (int i = 0; i < got && i < expected_count; i++)
    ZT_CHECK(
        out[i].x == expected[i].x && out[i].y == expected[i].y && out[i].value == expected[i].value,
        "%s: peak %d is (%d, %d) %g, expected (%d, %d) %g", what, i, out[i].x, out[i].y,
        out[i].value, expected[i].x, expected[i].y, expected[i].value);
  for (int i = got > 0 ? got : 0; i < 32; i++)
    ZT_CHECK(out[i].x == -7 && out[i].y == -7, "%s: wrote past its peaks", what);
}

enum { map_w = 12, map_h = 9 };

static void fill(float *map, float value) {
  for (int i = 0; i < map_w * map_h; i++) map[i] = value;
}

static void set(float *map, int x, int y, float value) { map[y * map_w + x] = value; }

/* Order, ties, threshold, borders and truncation. */
static void test_peaks_order(void) {
  float map[map_w * map_h];
  fill(map, -1);
  set(map, 0, 0, 3);
  set(map, 11, 8, 4);
  set(map, 5, 0, 4);
  set(map, 2, 4, 4);
  set(map, 8, 4, 6);
  set(map, 5, 6, 0.5f);
  peak all[] = {{8, 4, 6}, {5, 0, 4}, {2, 4, 4}, {11, 8, 4}, {0, 0, 3}, {5, 6, 0.5f}};
  expect_peaks("all", map, map_w, map_h, 0, 2, 32, all, 6);
  expect_peaks("threshold 3 inclusive", map, map_w, map_h, 3, 2, 32, all, 5);
  expect_peaks("threshold 3.5", map, map_w, map_h, 3.5f, 2, 32, all, 4);
  expect_peaks("truncated", map, map_w, map_h, 0, 2, 2, all, 2);
  expect_peaks("max_peaks 0", map, map_w, map_h, 0, 2, 0, all, 0);
  expect_peaks("empty map", map, 0, map_h, 0, 2, 32, all, 0);
  expect_peaks("above all", map, map_w, map_h, 7, 2, 32, all, 0);
}

/* Greedy suppression: a discarded peak suppresses nothing; distance radius is kept. */
static void test_peaks_suppression(void) {
  float map[map_w * map_h];
  fill(map, 0);
  set(map, 1, 4, 5);
  set(map, 4, 4, 4);
  set(map, 7, 5, 3);
  set(map, 10, 1, 2);
  peak keep_all[] = {{1, 4, 5}, {4, 4, 4}, {7, 5, 3}, {10, 1, 2}};
  expect_peaks("radius 3 keeps distance 3", map, map_w, map_h, 1, 3, 32, keep_all, 4);
  expect_peaks("radius 1", map, map_w, map_h, 1, 1, 32, keep_all, 4);
  expect_peaks("radius 0", map, map_w, map_h, 1, 0, 32, keep_all, 4);
  peak greedy[] = {{1, 4, 5}, {7, 5, 3}, {10, 1, 2}};
  expect_peaks("radius 4", map, map_w, map_h, 1, 4, 32, greedy, 3);
  peak wide[] = {{1, 4, 5}, {10, 1, 2}};
  expect_peaks("radius 7", map, map_w, map_h, 1, 7, 32, wide, 2);
  peak one[] = {{1, 4, 5}};
  expect_peaks("radius 100", map, map_w, map_h, 1, 100, 32, one, 1);
}

/* Plateaus, ramps (one local maximum) and NaN pixels. */
static void test_peaks_shapes(void) {
  float map[map_w * map_h];
  fill(map, 0);
  set(map, 3, 3, 7);
  set(map, 4, 3, 7);
  set(map, 3, 4, 7);
  set(map, 4, 4, 7);
  peak plateau[] = {{3, 3, 7}, {4, 3, 7}, {3, 4, 7}, {4, 4, 7}};
  expect_peaks("plateau radius 1", map, map_w, map_h, 1, 1, 32, plateau, 4);
  expect_peaks("plateau radius 2", map, map_w, map_h, 1, 2, 32, plateau, 1);
  for (int i = 0; i < map_w * map_h; i++) map[i] = (float)(i % map_w + 2 * (i / map_w));
  peak ramp[] = {{map_w - 1, map_h - 1, map_w - 1 + 2 * (map_h - 1)}};
  expect_peaks("ramp", map, map_w, map_h, -1, 1, 32, ramp, 1);
  fill(map, 0);
  set(map, 6, 2, NAN);
  set(map, 5, 2, 2);
  set(map, 0, 8, NAN);
  set(map, 9, 6, 1);
  peak beside_nan[] = {{5, 2, 2}, {9, 6, 1}};
  expect_peaks("NaN", map, map_w, map_h, 0.5f, 2, 32, beside_nan, 2);
  fill(map, NAN);
  expect_peaks("all NaN", map, map_w, map_h, -INFINITY, 1, 32, beside_nan, 0);
}

/* Naive double-precision valid cross-correlation of image (w x h) with a size^2 template. */
static void correlate(const float *image, int w, int h, const float *t, int size, double *out) {
  int ow = w - size + 1, oh = h - size + 1;
  for (int y = 0; y < oh; y++)
    for (int x = 0; x < ow; x++) {
      double sum = 0;
      for (int v = 0; v < size; v++)
        for (int u = 0; u < size; u++)
          sum += (double)t[v * size + u] * image[(int64_t)(y + v) * w + x + u];
      out[(int64_t)y * ow + x] = sum;
    }
}

/* Maximum over the normalised stack and its argmax, per valid position. */
static void search(const dataset *d, float *max_map, int32_t *index_map) {
  const synth_params *p = &d->p;
  int size = p->template_size, count = p->shapes * p->rotations;
  int64_t pixels = (int64_t)size * size,
          outputs = (int64_t)(p->image_w - size + 1) * (p->image_h - size + 1);
  float *image = malloc((size_t)image_count(d) * sizeof *image), *t = malloc((size_t)pixels * 4);
  double *c = malloc((size_t)outputs * sizeof *c);
  memcpy(image, d->image, (size_t)image_count(d) * sizeof *image);
  normalize_image(image, image_count(d));
  for (int64_t i = 0; i < outputs; i++) max_map[i] = -INFINITY, index_map[i] = -1;
  for (int k = 0; k < count; k++) {
    memcpy(t, d->templates + k * pixels, (size_t)pixels * 4);
    normalize_template(t, pixels, pixels);
    correlate(image, p->image_w, p->image_h, t, size, c);
    for (int64_t i = 0; i < outputs; i++)
      if (c[i] > max_map[i]) max_map[i] = (float)c[i], index_map[i] = k;
  }
  free(image);
  free(t);
  free(c);
}

/* 1 when a copy not yet used lies within Chebyshev distance slack of (x, y); marks it. */
static int match_truth(const dataset *d, int x, int y, int slack, int *used) {
  for (int i = 0; i < d->p.planted; i++)
    if (!used[i] && abs(d->truth[i].x - x) <= slack && abs(d->truth[i].y - y) <= slack)
      return used[i] = 1;
  return 0;
}

/* Writes peaks to a CSV, reads it back and compares. */
static void check_csv(const char *dir, const peak *peaks, int count, const float *max_map,
                      const int32_t *index_map, int w) {
  char path[512], line[256] = "", err[256] = "";
  snprintf(path, sizeof path, "%s/peaks.csv", dir);
  int rc = write_peaks_csv(path, peaks, count, max_map, index_map, w, err, sizeof err);
  ZT_CHECK(rc == 0, "write_peaks_csv: %s", err);
  FILE *f = fopen(path, "r");
  ZT_CHECK(f != NULL, "no %s", path);
  if (!f) return;
  ZT_CHECK(fgets(line, sizeof line, f) && strcmp(line, "x,y,zscore,max,template_index\n") == 0,
           "header %s", line);
  int lines = 0, x, y, index;
  float z, m;
  while (fscanf(f, "%d,%d,%f,%f,%d\n", &x, &y, &z, &m, &index) == 5) {
    if (lines < count)
      ZT_CHECK(x == peaks[lines].x && y == peaks[lines].y && z == peaks[lines].value &&
                   m == max_map[y * w + x] && index == index_map[y * w + x],
               "csv line %d", lines + 1);
    lines++;
  }
  ZT_CHECK(feof(f) && lines == count, "csv: %d lines of %d", lines, count);
  fclose(f);
  snprintf(path, sizeof path, "%s/peaks.csv.tmp", dir);
  ZT_CHECK(access(path, F_OK) != 0, "temporary file left");
}

/* Bad CSV writes fail with a message and leave no file. */
static void check_csv_errors(const char *dir, const float *max_map, const int32_t *index_map) {
  char path[512], err[256] = "";
  snprintf(path, sizeof path, "%s/missing/peaks.csv", dir);
  peak p = {0, 0, 1};
  ZT_CHECK(write_peaks_csv(path, &p, 1, max_map, index_map, 4, err, sizeof err) != 0 && err[0],
           "unwritable path accepted");
  snprintf(path, sizeof path, "%s/outside.csv", dir);
  err[0] = 0;
  peak outside = {4, 0, 1};
  ZT_CHECK(
      write_peaks_csv(path, &outside, 1, max_map, index_map, 4, err, sizeof err) != 0 && err[0],
      "peak outside the map accepted");
  ZT_CHECK(access(path, F_OK) != 0, "failed write left %s", path);
  snprintf(path, sizeof path, "%s/outside.csv.tmp", dir);
  ZT_CHECK(access(path, F_OK) != 0, "failed write left %s", path);
}

/* Searches d: the best template at every copy is its own, and the planted highest peaks of
 * the maximum map lie within slack pixels of distinct copies. Fills the maps and peaks;
 * returns how many peaks. */
static int check_search(const dataset *d, int slack, float *max_map, int32_t *index_map,
                        peak *peaks) {
  int ow = d->p.image_w - d->p.template_size + 1, oh = d->p.image_h - d->p.template_size + 1;
  int used[max_truth] = {0};
  search(d, max_map, index_map);
  for (int i = 0; i < d->p.planted; i++) {
    int at = d->truth[i].y * ow + d->truth[i].x;
    ZT_CHECK(index_map[at] == d->truth[i].template_index, "copy %d: template %d, found %d", i,
             d->truth[i].template_index, index_map[at]);
  }
  int found = find_peaks(max_map, ow, oh, -INFINITY, d->p.template_size / 2, peaks, d->p.planted);
  ZT_CHECK(found == d->p.planted, "%d peaks", found);
  for (int i = 0; i < found; i++)
    ZT_CHECK(match_truth(d, peaks[i].x, peaks[i].y, slack, used),
             "sigma %g: peak %d at (%d, %d) is no copy", d->p.noise_sigma, i, peaks[i].x,
             peaks[i].y);
  return found;
}

/* The search finds every planted copy with its template (exactly without noise, within a
 * pixel with it), and the peaks make a CSV. */
static void test_search(void) {
  enum { ow = 96 - 16 + 1, oh = 80 - 16 + 1 };
  dataset clean, noisy;
  int ok = make(&clean, params_of(96, 80, 16, 2, 4, 4, 0.0f, 2024));
  ok &= make(&noisy, params_of(96, 80, 16, 2, 4, 4, 0.3f, 2024));
  float *max_map = malloc((size_t)ow * oh * sizeof *max_map);
  int32_t *index_map = malloc((size_t)ow * oh * sizeof *index_map);
  peak peaks[max_truth];
  char dir[] = "/tmp/zipfft_test_synth_XXXXXX";
  if (ok) {
    check_search(&clean, 0, max_map, index_map, peaks);
    int found = check_search(&noisy, 1, max_map, index_map, peaks);
    ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
    check_csv(dir, peaks, found, max_map, index_map, ow);
    check_csv_errors(dir, max_map, index_map);
    zt_remove_tree(dir);
  }
  free(max_map);
  free(index_map);
  release(&clean);
  release(&noisy);
}

/* synth_make with p fails with a message containing want, clears the outputs and leaves
 * the truth array as it was. */
static void expect_bad(synth_params p, const char *want) {
  float *image = (float *)&p, *templates = (float *)&p;
  synth_truth truth[max_truth], before[max_truth];
  memset(truth, 0x55, sizeof truth);
  memcpy(before, truth, sizeof truth);
  char err[256] = "";
  int rc = synth_make(&p, &image, &templates, p.planted > 0 ? truth : NULL, err, sizeof err);
  ZT_CHECK(rc != 0 && image == NULL && templates == NULL, "accepted (%s)", want);
  ZT_CHECK(memcmp(truth, before, sizeof truth) == 0, "a refusal (%s) wrote the truth array", want);
  ZT_CHECK(strstr(err, want) != NULL, "message \"%s\" lacks \"%s\"", err, want);
  ZT_CHECK(synth_make(&p, &image, &templates, truth, NULL, 0) != 0, "no err buffer");
}

static void test_bad_params(void) {
  expect_bad(params_of(100, 100, 101, 1, 1, 0, 1, 1), "larger than");
  expect_bad(params_of(100, 60, 64, 1, 1, 0, 1, 1), "larger than");
  expect_bad(params_of(100, 100, 32, 1, 1, 10, 1, 1), "cannot fit");
  expect_bad(params_of(32, 32, 16, 1, 1, 4, 1, 1), "could not place");
  expect_bad(params_of(0, 100, 8, 1, 1, 0, 1, 1), ">= 1");
  expect_bad(params_of(100, 100, 0, 1, 1, 0, 1, 1), "< 1");
  expect_bad(params_of(100, 100, 8, 0, 1, 0, 1, 1), ">= 1");
  expect_bad(params_of(100, 100, 8, 1, 0, 0, 1, 1), ">= 1");
  expect_bad(params_of(100, 100, 8, 1, 1, -1, 1, 1), "< 0");
  expect_bad(params_of(100, 100, 8, 1, 1, 0, -1, 1), "noise");
  expect_bad(params_of(100, 100, 8, 1, 1, 0, NAN, 1), "noise");
  expect_bad(params_of(100, 100, 8, 1, 1, 0, INFINITY, 1), "noise");
  expect_bad(params_of(65536, 65536, 8, 1, 1, 0, 1, 1), "2^30");
  float *image, *templates;
  synth_params ok = params_of(100, 100, 8, 1, 1, 2, 1, 1);
  char err[128] = "";
  ZT_CHECK(synth_make(&ok, &image, &templates, NULL, err, sizeof err) != 0 && err[0],
           "no truth accepted");
}

int main(void) {
  test_determinism();
  test_placement();
  test_stack();
  test_noise();
  test_normalize();
  test_peaks_order();
  test_peaks_suppression();
  test_peaks_shapes();
  test_search();
  test_bad_params();
  return zt_finish("test_synth", 10);
}
