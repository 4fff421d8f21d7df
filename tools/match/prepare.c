/* prepare.c - normalisation, peak picking and the peaks CSV of prepare.h. */
#include "prepare.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A local maximum waiting for non-maximum suppression. */
typedef struct candidate {
  int64_t index; /* y * w + x */
  float value;
} candidate;

/* 1 when all count values are the same (bit for bit equal as floats). */
static int all_equal(const float *x, int64_t count) {
  for (int64_t i = 1; i < count; i++)
    if (x[i] != x[0]) return 0;
  return 1;
}

/* Subtracts the mean, then scales so that sum(x^2) = target_sum_sq; constant data becomes
 * zero. */
static void standardize(float *x, int64_t count, double target_sum_sq) {
  if (count <= 0) return;
  if (all_equal(x, count)) {
    for (int64_t i = 0; i < count; i++) x[i] = 0;
    return;
  }
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < count; i++) sum += x[i];
  double mean = sum / (double)count;
  for (int64_t i = 0; i < count; i++) sum_sq += (x[i] - mean) * (x[i] - mean);
  double scale = sum_sq > 0 ? sqrt(target_sum_sq / sum_sq) : 0;
  for (int64_t i = 0; i < count; i++) x[i] = (float)((x[i] - mean) * scale);
}

void normalize_template(float *t, int64_t count, int64_t padded_count) {
  standardize(t, count, (double)padded_count);
}

void normalize_image(float *image, int64_t count) { standardize(image, count, (double)count); }

/* 1 when pixel (x, y) is a number >= threshold and no neighbour is greater. */
static int is_local_max(const float *map, int w, int h, int x, int y, float threshold) {
  float value = map[(int64_t)y * w + x];
  if (!(value >= threshold)) return 0; /* also rejects NaN */
  for (int ny = y > 0 ? y - 1 : 0; ny <= y + 1 && ny < h; ny++)
    for (int nx = x > 0 ? x - 1 : 0; nx <= x + 1 && nx < w; nx++)
      if (map[(int64_t)ny * w + nx] > value) return 0; /* NaN neighbours compare false */
  return 1;
}

/* Collects the local maxima into a malloc'ed array (NULL when out of memory). */
static candidate *collect_candidates(const float *map, int w, int h, float threshold,
                                     int64_t *count) {
  int64_t n = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) n += is_local_max(map, w, h, x, y, threshold);
  candidate *list = malloc((size_t)(n > 0 ? n : 1) * sizeof *list);
  if (!list) return NULL;
  n = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (is_local_max(map, w, h, x, y, threshold)) {
        list[n].index = (int64_t)y * w + x;
        list[n++].value = map[(int64_t)y * w + x];
      }
  *count = n;
  return list;
}

/* Order: value descending, then index (y, then x) ascending. */
static int by_value_then_position(const void *a, const void *b) {
  const candidate *ca = a, *cb = b;
  if (ca->value != cb->value) return ca->value > cb->value ? -1 : 1;
  return (ca->index > cb->index) - (ca->index < cb->index);
}

/* Marks the pixels within Chebyshev distance < radius of (x, y) as suppressed. */
static void suppress_around(unsigned char *suppressed, int w, int h, int x, int y, int radius) {
  int reach = radius - 1;
  int y0 = y - reach > 0 ? y - reach : 0, y1 = y + reach < h - 1 ? y + reach : h - 1;
  int x0 = x - reach > 0 ? x - reach : 0, x1 = x + reach < w - 1 ? x + reach : w - 1;
  for (int sy = y0; sy <= y1; sy++)
    memset(suppressed + (int64_t)sy * w + x0, 1, (size_t)(x1 - x0 + 1));
}

int find_peaks(const float *map, int w, int h, float threshold, int radius, peak *out,
               int max_peaks) {
  if (w <= 0 || h <= 0 || max_peaks <= 0) return 0;
  int64_t count = 0;
  candidate *list = collect_candidates(map, w, h, threshold, &count);
  unsigned char *suppressed = calloc((size_t)w * (size_t)h, 1);
  if (!list || !suppressed) {
    free(list);
    free(suppressed);
    return -1;
  }
  qsort(list, (size_t)count, sizeof *list, by_value_then_position);
  int found = 0;
  for (int64_t i = 0; i < count && found < max_peaks; i++) {
    if (suppressed[list[i].index]) continue;
    int x = (int)(list[i].index % w), y = (int)(list[i].index / w);
    out[found++] = (peak){x, y, list[i].value};
    if (radius > 1) suppress_around(suppressed, w, h, x, y, radius);
  }
  free(list);
  free(suppressed);
  return found;
}

/* Writes the header and one line per peak to f; 0, or nonzero with a message. */
static int write_lines(FILE *f, const peak *peaks, int count, const float *max_map,
                       const int32_t *index_map, int w, char *err, size_t err_len) {
  fprintf(f, "x,y,zscore,max,template_index\n");
  for (int i = 0; i < count; i++) {
    const peak *p = &peaks[i];
    if (p->x < 0 || p->x >= w || p->y < 0)
      return match_fail(err, err_len, "peak %d at (%d, %d) lies outside the %d wide maps", i, p->x,
                        p->y, w);
    int64_t at = (int64_t)p->y * w + p->x;
    fprintf(f, "%d,%d,%.9g,%.9g,%d\n", p->x, p->y, (double)p->value, (double)max_map[at],
            (int)index_map[at]);
  }
  return 0;
}

/* Writes the CSV into tmp_path; 0, or nonzero with a message (the file may remain). */
static int write_file(const char *tmp_path, const peak *peaks, int count, const float *max_map,
                      const int32_t *index_map, int w, char *err, size_t err_len) {
  FILE *f = fopen(tmp_path, "w");
  if (!f) return match_fail(err, err_len, "cannot create %s: %s", tmp_path, strerror(errno));
  int bad = write_lines(f, peaks, count, max_map, index_map, w, err, err_len);
  int write_error = ferror(f);
  if (fclose(f) != 0 || write_error)
    return bad ? bad : match_fail(err, err_len, "cannot write %s: %s", tmp_path, strerror(errno));
  return bad;
}

int write_peaks_csv(const char *path, const peak *peaks, int count, const float *max_map,
                    const int32_t *index_map, int w, char *err, size_t err_len) {
  if (!path || (count > 0 && (!peaks || !max_map || !index_map)))
    return match_fail(err, err_len, "write_peaks_csv: %s is NULL",
                      !path      ? "path"
                      : !peaks   ? "peaks"
                      : !max_map ? "max_map"
                                 : "index_map");
  if (count < 0 || w <= 0)
    return match_fail(err, err_len, "write_peaks_csv: count = %d, w = %d (count >= 0, w >= 1)",
                      count, w);
  char *tmp_path = malloc(strlen(path) + sizeof ".tmp");
  if (!tmp_path) return match_fail(err, err_len, "out of memory");
  sprintf(tmp_path, "%s.tmp", path);
  int bad = write_file(tmp_path, peaks, count, max_map, index_map, w, err, err_len);
  if (!bad && rename(tmp_path, path) != 0)
    bad = match_fail(err, err_len, "cannot rename %s to %s: %s", tmp_path, path, strerror(errno));
  if (bad) unlink(tmp_path); /* a file only: never a directory of that name */
  free(tmp_path);
  return bad;
}
