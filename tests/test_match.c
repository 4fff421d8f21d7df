/* test_match.c - the 2DTM search of `zipfft match` (match_search on the backend under test):
 * planted copies found at their exact positions with their templates, and every map against
 * a naive double-precision valid cross-correlation of the normalised data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "prepare.h"
#include "search.h"
#include "synth.h"
#include "test_util.h"

enum { planted = 3, batch = 5 };

/* The data set: 12 templates in batches of 5 (the last one partial). */
static const synth_params params = {256, 192, 32, 2, 6, planted, 0.2f, 2};

/* A generated data set and its normalised copies. */
typedef struct dataset {
  float *image, *templates;
  double *image_n, *templates_n; /* normalised as match_search does */
  synth_truth truth[planted];
  int count, size, valid_w, valid_h;
} dataset;

/* The naive maps, in double; second is the runner-up value (for near-ties of the index). */
typedef struct reference {
  double *max, *second, *mean, *stddev;
  int32_t *index;
  double mu, sigma; /* over every correlation value */
} reference;

/* The progress calls seen. */
typedef struct progress_log {
  int calls, in_order;
  int64_t last_done, last_total;
} progress_log;

static void record_progress(int64_t done, int64_t total, void *user) {
  progress_log *log = user;
  log->in_order &= done > log->last_done && done <= total;
  log->calls++;
  log->last_done = done;
  log->last_total = total;
}

/* n floats normalised as match_search does (a template: padded to `padded` pixels), as
 * doubles. */
static double *normalised_copy(const float *x, int64_t n, int64_t padded, int is_template) {
  float *tmp = malloc((size_t)n * sizeof *tmp);
  double *out = malloc((size_t)n * sizeof *out);
  memcpy(tmp, x, (size_t)n * sizeof *tmp);
  if (is_template)
    normalize_template(tmp, n, padded);
  else
    normalize_image(tmp, n);
  for (int64_t i = 0; i < n; i++) out[i] = tmp[i];
  free(tmp);
  return out;
}

static int make_dataset(dataset *d) {
  char err[256] = "";
  memset(d, 0, sizeof *d);
  int rc = synth_make(&params, &d->image, &d->templates, d->truth, err, sizeof err);
  ZT_CHECK(rc == 0, "synth_make: %s", err);
  if (rc) return 0;
  d->count = params.shapes * params.rotations;
  d->size = params.template_size;
  d->valid_w = params.image_w - d->size + 1;
  d->valid_h = params.image_h - d->size + 1;
  int64_t pixels = (int64_t)params.image_w * params.image_h, tpix = (int64_t)d->size * d->size;
  d->image_n = normalised_copy(d->image, pixels, 0, 0);
  d->templates_n = malloc((size_t)(tpix * d->count) * sizeof(double));
  for (int k = 0; k < d->count; k++) {
    double *t = normalised_copy(d->templates + k * tpix, tpix, pixels, 1);
    memcpy(d->templates_n + k * tpix, t, (size_t)tpix * sizeof(double));
    free(t);
  }
  return 1;
}

static void free_dataset(dataset *d) {
  free(d->image);
  free(d->templates);
  free(d->image_n);
  free(d->templates_n);
}

/* sum_y image[p + y] * template_k[y] over the template's pixels. */
static double correlate_at(const dataset *d, int k, int x, int y) {
  const double *t = d->templates_n + (int64_t)k * d->size * d->size;
  double sum = 0;
  for (int ty = 0; ty < d->size; ty++) {
    const double *row = d->image_n + (int64_t)(y + ty) * params.image_w + x;
    for (int tx = 0; tx < d->size; tx++) sum += row[tx] * t[ty * d->size + tx];
  }
  return sum;
}

/* Statistics over the templates at one position, into r at i; adds to the global sums. */
static void reference_at(const dataset *d, int x, int y, int64_t i, reference *r, double *sum,
                         double *sum_sq) {
  double s = 0, s2 = 0;
  r->max[i] = r->second[i] = -INFINITY;
  for (int k = 0; k < d->count; k++) {
    double v = correlate_at(d, k, x, y);
    if (v > r->max[i]) {
      r->second[i] = r->max[i];
      r->max[i] = v;
      r->index[i] = k;
    } else if (v > r->second[i]) {
      r->second[i] = v;
    }
    s += v;
    s2 += v * v;
  }
  r->mean[i] = s / d->count;
  r->stddev[i] = sqrt(fmax(s2 / d->count - r->mean[i] * r->mean[i], 0));
  *sum += s;
  *sum_sq += s2;
}

static void make_reference(const dataset *d, reference *r) {
  size_t n = (size_t)d->valid_w * d->valid_h;
  r->max = malloc(n * sizeof(double));
  r->second = malloc(n * sizeof(double));
  r->mean = malloc(n * sizeof(double));
  r->stddev = malloc(n * sizeof(double));
  r->index = malloc(n * sizeof(int32_t));
  double sum = 0, sum_sq = 0, values = (double)n * d->count;
  for (int y = 0; y < d->valid_h; y++)
    for (int x = 0; x < d->valid_w; x++)
      reference_at(d, x, y, (int64_t)y * d->valid_w + x, r, &sum, &sum_sq);
  r->mu = sum / values;
  r->sigma = sqrt(sum_sq / values - r->mu * r->mu);
}

static void free_reference(reference *r) {
  free(r->max);
  free(r->second);
  free(r->mean);
  free(r->stddev);
  free(r->index);
}

static double abs_max(const double *x, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

/* got against want within 1e-4 of want's largest magnitude; returns the failures. */
static int compare_map(const char *name, const float *got, const double *want, int64_t n) {
  double scale = abs_max(want, n), worst = 0;
  int64_t worst_at = 0, bad = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = fabs((double)got[i] - want[i]);
    if (!(e <= 1e-4 * scale)) bad++;
    if (!(e <= worst)) worst = e, worst_at = i;
  }
  ZT_CHECK(bad == 0, "%s: %lld of %lld values off by more than 1e-4 x %g; worst %g at %lld", name,
           (long long)bad, (long long)n, scale, worst, (long long)worst_at);
  return bad != 0;
}

/* Every map against the naive reference (the index where the best is not a near-tie). */
static void check_against_reference(const match_maps *m, const reference *r) {
  int64_t n = (int64_t)m->w * m->h, wrong_index = 0;
  double scale = abs_max(r->max, n);
  compare_map("max", m->max, r->max, n);
  compare_map("mean", m->mean, r->mean, n);
  compare_map("stddev", m->stddev, r->stddev, n);
  for (int64_t i = 0; i < n; i++)
    if (r->max[i] - r->second[i] > 1e-4 * scale && m->index[i] != r->index[i]) wrong_index++;
  ZT_CHECK(wrong_index == 0, "index: %lld positions differ from the reference",
           (long long)wrong_index);
  double *z = malloc((size_t)n * sizeof *z), *pixel_z = malloc((size_t)n * sizeof *pixel_z);
  float *global_z = malloc((size_t)n * sizeof *global_z);
  for (int64_t i = 0; i < n; i++) {
    z[i] = (r->max[i] - r->mu) / r->sigma;
    pixel_z[i] = r->stddev[i] > 0 ? (r->max[i] - r->mean[i]) / r->stddev[i] : 0;
  }
  match_global_zscore(m, global_z);
  compare_map("global z-score", global_z, z, n);
  compare_map("per-position z-score", m->zscore, pixel_z, n);
  free(z);
  free(pixel_z);
  free(global_z);
}

/* Largest |got - want| over n values, NaN where any value is NaN. */
static double worst_difference(const float *got, const double *want, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) worst = zt_worse(worst, fabs((double)got[i] - want[i]));
  return worst;
}

/* With F16 storage: the maximum, mean and deviation maps within f16_gate of the maximum
 * map's scale everywhere, the index where the reference's best leads its second by more
 * than that, and the per-position z-score finite and (max - mean) / deviation of the maps
 * returned; and the maximum map further from the reference than fp32 rounding (above 1e-6)
 * somewhere: the storage took effect. */
static void check_f16_maps(const match_maps *m, const reference *r) {
  const double f16_gate = 1e-2;
  int64_t n = (int64_t)m->w * m->h, wrong_index = 0, bad_z = 0;
  double scale = abs_max(r->max, n);
  double worst = worst_difference(m->max, r->max, n) / scale;
  double moments =
      zt_worse(worst_difference(m->mean, r->mean, n), worst_difference(m->stddev, r->stddev, n)) /
      scale;
  for (int64_t i = 0; i < n; i++) {
    if (r->max[i] - r->second[i] > f16_gate * scale && m->index[i] != r->index[i]) wrong_index++;
    double z = m->stddev[i] > 0 ? ((double)m->max[i] - m->mean[i]) / m->stddev[i] : 0;
    if (!(fabs(m->zscore[i] - z) <= 1e-4 * fmax(1, fabs(z)))) bad_z++;
  }
  printf("  F16 storage: maxima within %.3g, mean and deviation within %.3g of the scale\n", worst,
         moments);
  ZT_CHECK(worst <= f16_gate && worst > 1e-6,
           "F16 storage: maximum map off by %g of its scale %g (want 1e-6 to %g)", worst, scale,
           f16_gate);
  ZT_CHECK(moments <= f16_gate, "F16 storage: mean or deviation off by %g of the scale", moments);
  ZT_CHECK(wrong_index == 0, "F16 storage: %lld indices differ where the best leads",
           (long long)wrong_index);
  ZT_CHECK(bad_z == 0, "F16 storage: %lld per-position z-scores not (max - mean) / deviation",
           (long long)bad_z);
}

/* Each planted copy: the strict global z-score maximum within half a template of its
 * position, with its template, above the command's default threshold of 7. */
static void check_planted(const dataset *d, const match_maps *m) {
  int64_t n = (int64_t)m->w * m->h;
  float *z = malloc((size_t)n * sizeof *z);
  match_global_zscore(m, z);
  for (int i = 0; i < planted; i++) {
    const synth_truth *t = &d->truth[i];
    int64_t at = (int64_t)t->y * m->w + t->x, beaten = 0, r = d->size / 2;
    for (int64_t y = t->y - r; y <= t->y + r; y++)
      for (int64_t x = t->x - r; x <= t->x + r; x++)
        if (x >= 0 && y >= 0 && x < m->w && y < m->h && (x != t->x || y != t->y))
          beaten += z[y * m->w + x] >= z[at];
    ZT_CHECK(beaten == 0 && m->index[at] == t->template_index && z[at] >= 7,
             "copy %d at (%d, %d), template %d: z %.2f, %lld neighbours as high, index %d", i, t->x,
             t->y, t->template_index, z[at], (long long)beaten, (int)m->index[at]);
  }
  free(z);
}

/* The search on the backend under test, its progress calls and its maps: against the
 * double reference in fp32; with the spectrum and intermediate in F16, the planted copies
 * must still be found and every map stay within 16-bit rounding of it (check_f16_maps). */
static void test_search(zipfft_storage storage) {
  dataset d;
  reference r;
  match_maps m;
  progress_log log = {0, 1, 0, 0};
  char err[512] = "";
  if (!zt_device_ready() || !make_dataset(&d)) return;
  int rc = match_search(d.image, params.image_w, params.image_h, d.templates, d.size, d.size,
                        d.count, batch, (match_engine){zt_zipfft_backend(), storage},
                        record_progress, &log, &m, err, sizeof err);
  ZT_CHECK(rc == 0, "match_search: %s", err);
  if (rc == 0) {
    ZT_CHECK(m.w == d.valid_w && m.h == d.valid_h, "maps %dx%d", m.w, m.h);
    ZT_CHECK(m.backend == zt_zipfft_backend(), "ran on backend %d", (int)m.backend);
    ZT_CHECK(log.calls == (d.count + batch - 1) / batch && log.in_order &&
                 log.last_done == d.count && log.last_total == d.count,
             "progress: %d calls, last %lld of %lld", log.calls, (long long)log.last_done,
             (long long)log.last_total);
    check_planted(&d, &m);
    make_reference(&d, &r);
    if (storage == ZIPFFT_STORAGE_DEFAULT)
      check_against_reference(&m, &r);
    else
      check_f16_maps(&m, &r);
    free_reference(&r);
  }
  match_maps_free(&m);
  free_dataset(&d);
}

static const match_engine cpu_engine = {ZIPFFT_BACKEND_CPU, ZIPFFT_STORAGE_DEFAULT};

/* Runs a match_search call that must fail, on maps poisoned first: it returns nonzero and
 * leaves the maps zeroed. */
#define ZT_REJECTED(call, ...)                                                    \
  do {                                                                            \
    memset(&m, 0xff, sizeof m);                                                   \
    int rc_ = (call);                                                             \
    ZT_CHECK(rc_ != 0 && !m.max && !m.index && !m.mean && m.w == 0, __VA_ARGS__); \
  } while (0)

/* Bad arguments: a message, nonzero, zeroed maps after every call, no crash. */
static void test_bad_arguments(void) {
  float image[64] = {0}, templates[2 * 16] = {0};
  match_maps m;
  char err[256] = "";
  ZT_REJECTED(
      match_search(image, 8, 8, templates, 9, 4, 2, 1, cpu_engine, NULL, NULL, &m, err, sizeof err),
      "a template wider than the image: %s", err);
  ZT_CHECK(strstr(err, "template 9x4") != NULL, "message: %s", err);
  ZT_REJECTED(
      match_search(image, 8, 8, templates, 4, 4, 0, 1, cpu_engine, NULL, NULL, &m, err, sizeof err),
      "no templates accepted or maps not zeroed");
  ZT_REJECTED(
      match_search(image, 8, 8, templates, 4, 4, 2, 0, cpu_engine, NULL, NULL, &m, err, sizeof err),
      "batch 0 accepted or maps not zeroed");
  ZT_REJECTED(match_search(NULL, 8, 8, templates, 4, 4, 2, 1, cpu_engine, NULL, NULL, &m, NULL, 0),
              "NULL image accepted or maps not zeroed");
  match_maps_free(NULL);
}

int main(void) {
  test_bad_arguments();
  test_search(ZIPFFT_STORAGE_DEFAULT);
  test_search(ZIPFFT_STORAGE_F16);
  return zt_finish("test_match", 3);
}
