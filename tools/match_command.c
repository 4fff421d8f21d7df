/* match_command.c - `zipfft match`: 2DTM of a template stack over a micrograph (MRC files, or a
 * synthetic set with known answers), writing the maps, a z-score PNG and the peaks CSV. */
#include "match_command.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrc.h"
#include "outputs.h"
#include "png.h"
#include "prepare.h"
#include "report.h"
#include "search.h"
#include "synth.h"
#include "tool_common.h"
#include "zipfft.h"

enum { default_batch = 16, max_peaks = 10000, synthetic_planted = 6, bar_width = 30 };

/* The data set of a run without input files. Noise 0.3 (signal peak 1) is about the most for
 * which every copy still peaks at its exact position with this seed: the blobs' broad
 * correlation peaks are shifted by a pixel beyond it. */
static const synth_params synthetic = {1024, 1024, 128, 3, 24, synthetic_planted, 0.3f, 5};

static const char usage_text[] =
    "usage: zipfft match [--image F.mrc --templates T.mrc] [--out DIR] [--batch B] "
    "[--threshold Z] [--backend auto|cpu|cuda] [--storage f32|f16]\n";

typedef struct match_options {
  const char *image_path, *templates_path, *out_dir;
  int batch;
  float threshold;
  match_engine engine;
} match_options;

/* What is searched: the image (nz = 1) and the stack; the truth of a synthetic set. */
typedef struct match_data {
  mrc_volume image, templates;
  synth_truth truth[synthetic_planted];
  int planted; /* 0 for files */
} match_data;

/* The progress bar's state: drawn on stderr only when it is a terminal. */
typedef struct progress_bar {
  double start;
  int drawn;
} progress_bar;

/* Parses a whole decimal integer in [lo, hi]. Returns 1 on success. */
static int parse_int(const char *s, long lo, long hi, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return 0;
  *out = (int)v;
  return 1;
}

/* Parses a whole finite number. Returns 1 on success. */
static int parse_float(const char *s, float *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || fabs(v) > 1e30) return 0;
  *out = (float)v;
  return 1;
}

static int parse_storage(const char *s, zipfft_storage *storage) {
  if (strcmp(s, "f32") == 0)
    *storage = ZIPFFT_STORAGE_DEFAULT;
  else if (strcmp(s, "f16") == 0)
    *storage = ZIPFFT_STORAGE_F16;
  else
    return 0;
  return 1;
}

static int parse_backend(const char *s, zipfft_backend *b) {
  if (strcmp(s, "auto") == 0)
    *b = ZIPFFT_BACKEND_AUTO;
  else if (strcmp(s, "cpu") == 0)
    *b = ZIPFFT_BACKEND_CPU;
  else if (strcmp(s, "cuda") == 0)
    *b = ZIPFFT_BACKEND_CUDA;
  else
    return 0;
  return 1;
}

/* Applies one option with its value. Returns 1 when both were understood. */
static int parse_option(const char *name, const char *value, match_options *o) {
  if (strcmp(name, "--image") == 0)
    o->image_path = value;
  else if (strcmp(name, "--templates") == 0)
    o->templates_path = value;
  else if (strcmp(name, "--out") == 0)
    o->out_dir = value;
  else if (strcmp(name, "--batch") == 0)
    return parse_int(value, 1, 1 << 20, &o->batch);
  else if (strcmp(name, "--threshold") == 0)
    return parse_float(value, &o->threshold);
  else if (strcmp(name, "--backend") == 0)
    return parse_backend(value, &o->engine.backend);
  else if (strcmp(name, "--storage") == 0)
    return parse_storage(value, &o->engine.storage);
  else
    return 0;
  return *value != '\0';
}

/* What an option's value may be, for the message of a refused one (the bounds as
 * parse_option checks them). */
static const char *accepted_values(const char *name) {
  static const struct {
    const char *name, *values;
  } accepted[] = {{"--batch", " (a whole number from 1 to 1048576)"},
                  {"--threshold", " (a finite number, at most 1e30 in magnitude)"},
                  {"--backend", " (auto, cpu or cuda)"},
                  {"--storage", " (f32 or f16)"},
                  {"--image", " (a path)"},
                  {"--templates", " (a path)"},
                  {"--out", " (a path)"}};
  for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++)
    if (strcmp(name, accepted[i].name) == 0) return accepted[i].values;
  return " (not an option)";
}

/* Fills *o from the arguments. Returns 0, or 2 after printing the problem and the usage. */
static int parse_options(int argc, char **argv, match_options *o) {
  *o = (match_options){NULL,        NULL,
                       "match-out", default_batch,
                       7.0f,        (match_engine){ZIPFFT_BACKEND_AUTO, ZIPFFT_STORAGE_DEFAULT}};
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc || !parse_option(argv[i], argv[i + 1], o)) {
      fprintf(stderr, "zipfft match: bad option or value: %s%s%s%s\n%s", argv[i],
              i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "", accepted_values(argv[i]),
              usage_text);
      return 2;
    }
  }
  if (!o->image_path != !o->templates_path) {
    fprintf(stderr, "zipfft match: --image and --templates go together\n%s", usage_text);
    return 2;
  }
  return 0;
}

/* 0 when every value of v is finite, else 1 with a message naming the first bad one. */
static int check_finite(const char *path, const mrc_volume *v, char *err, size_t err_len) {
  int64_t n = v->nx * v->ny * v->nz;
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(v->data[i]))
      return match_fail(err, err_len, "%s: value %lld (x %lld, y %lld, z %lld) is not finite", path,
                        (long long)i, (long long)(i % v->nx), (long long)(i / v->nx % v->ny),
                        (long long)(i / (v->nx * v->ny)));
  return 0;
}

/* Checks that the files make a search: one image section, templates no larger, finite data. */
static int check_inputs(const match_options *o, const match_data *d, char *err, size_t err_len) {
  const mrc_volume *im = &d->image, *t = &d->templates;
  if (im->nz != 1)
    return match_fail(err, err_len,
                      "%s: %lld sections; the image must be a single section (NZ = 1)",
                      o->image_path, (long long)im->nz);
  if (t->nx > im->nx || t->ny > im->ny)
    return match_fail(err, err_len,
                      "%s: templates of %lldx%lld are larger than the %lldx%lld image",
                      o->templates_path, (long long)t->nx, (long long)t->ny, (long long)im->nx,
                      (long long)im->ny);
  return check_finite(o->image_path, im, err, err_len) ||
         check_finite(o->templates_path, t, err, err_len);
}

/* Reads and checks both files. Returns 0, or 1 with a message (nothing kept). */
static int load_files(const match_options *o, match_data *d, char *err, size_t err_len) {
  if (mrc_read(o->image_path, &d->image, err, err_len) ||
      mrc_read(o->templates_path, &d->templates, err, err_len))
    return 1;
  return check_inputs(o, d, err, err_len);
}

/* Generates the synthetic set into d. Returns 0, or 1 with a message. */
static int make_synthetic(match_data *d, char *err, size_t err_len) {
  float *image = NULL, *templates = NULL;
  if (synth_make(&synthetic, &image, &templates, d->truth, err, err_len)) return 1;
  d->image = (mrc_volume){synthetic.image_w, synthetic.image_h, 1, 0.0f, image};
  d->templates = (mrc_volume){synthetic.template_size, synthetic.template_size,
                              (int64_t)synthetic.shapes * synthetic.rotations, 0.0f, templates};
  d->planted = synthetic.planted;
  return 0;
}

/* Makes sure dir is a writable directory, creating it (one level) when missing. */
static int prepare_out_dir(const char *dir, char *err, size_t err_len) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    int missing = errno == ENOENT;
    if (missing && lstat(dir, &st) == 0)
      return match_fail(err, err_len, "%s: a symbolic link to a missing directory", dir);
    if (!missing || mkdir(dir, 0777) != 0)
      return match_fail(err, err_len, "%s: cannot create the output directory: %s", dir,
                        strerror(errno));
    return 0;
  }
  if (!S_ISDIR(st.st_mode))
    return match_fail(err, err_len, "%s: exists and is not a directory", dir);
  if (access(dir, W_OK | X_OK) != 0)
    return match_fail(err, err_len, "%s: output directory not writable: %s", dir, strerror(errno));
  return 0;
}

/* Writes nx x ny x nz floats as the output `name`, staged in out. Returns 0, or 1 with a
 * message. */
static int write_volume(match_outputs *out, const char *name, const float *data, int64_t nx,
                        int64_t ny, int64_t nz, float pixel_size, char *err, size_t err_len) {
  char path[match_outputs_path_max];
  return outputs_stage(out, name, path, sizeof path, err, err_len) ||
         mrc_write(path, data, nx, ny, nz, pixel_size, err, err_len);
}

/* The progress callback: percent, correlations done/total and rate, redrawn on one line. */
static void draw_progress(int64_t done, int64_t total, void *user) {
  progress_bar *bar = user;
  double seconds = zipfft_tool_seconds() - bar->start;
  int filled = total > 0 ? (int)(bar_width * done / total) : bar_width;
  fprintf(stderr, "\r%3d%% [%.*s%*s] %lld/%lld correlations, %.1f/s",
          total > 0 ? (int)(100 * done / total) : 100, filled, "##############################",
          bar_width - filled, "", (long long)done, (long long)total,
          seconds > 0 ? (double)done / seconds : 0.0);
  fflush(stderr);
  bar->drawn = 1;
}

static const char *backend_name(zipfft_backend b) {
  return b == ZIPFFT_BACKEND_CUDA ? "CUDA (GPU)" : b == ZIPFFT_BACKEND_CPU ? "CPU" : "auto";
}

/* Runs the search with a progress bar when stderr is a terminal; *seconds gets its time. */
static int run_search(const match_options *o, const match_data *d, match_maps *maps,
                      double *seconds, char *err, size_t err_len) {
  const mrc_volume *im = &d->image, *t = &d->templates;
  progress_bar bar = {zipfft_tool_seconds(), 0};
  int tty = isatty(STDERR_FILENO);
  printf("zipfft match: %lld templates of %lldx%lld over a %lldx%lld image, batch %d\n",
         (long long)t->nz, (long long)t->nx, (long long)t->ny, (long long)im->nx, (long long)im->ny,
         o->batch);
  fflush(stdout);
  int rc =
      match_search(im->data, (int)im->nx, (int)im->ny, t->data, (int)t->nx, (int)t->ny, (int)t->nz,
                   o->batch, o->engine, tty ? draw_progress : NULL, &bar, maps, err, err_len);
  *seconds = zipfft_tool_seconds() - bar.start;
  if (bar.drawn) fputc('\n', stderr);
  if (rc == 0)
    printf("backend: %s%s\n", backend_name(maps->backend),
           o->engine.storage == ZIPFFT_STORAGE_F16 ? ", spectrum and intermediate in F16" : "");
  return rc;
}

/* The smallest and largest finite values of a map (0, 0 when there are none). */
static void finite_range(const float *map, int64_t n, float *lo, float *hi) {
  int any = 0;
  *lo = *hi = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!isfinite(map[i])) continue;
    if (!any || map[i] < *lo) *lo = map[i];
    if (!any || map[i] > *hi) *hi = map[i];
    any = 1;
  }
}

/* Writes index.mrc: the best template's number as floats (-1 where none). */
static int write_index_map(match_outputs *out, const match_maps *m, float pixel_size, char *err,
                           size_t err_len) {
  int64_t n = (int64_t)m->w * m->h;
  float *as_float = malloc((size_t)n * sizeof *as_float);
  if (!as_float) return match_fail(err, err_len, "out of memory for the index map");
  for (int64_t i = 0; i < n; i++) as_float[i] = (float)m->index[i];
  int rc = write_volume(out, "index.mrc", as_float, m->w, m->h, 1, pixel_size, err, err_len);
  free(as_float);
  return rc;
}

/* Writes the maps (MRC) and zscore.png (z scaled from its minimum, black, to its maximum,
 * white). z is the global z-score; m->zscore, the per-position one, goes to
 * pixel_zscore.mrc. */
static int write_maps(match_outputs *out, const match_maps *m, const float *z, float pixel_size,
                      char *err, size_t err_len) {
  char path[match_outputs_path_max];
  float lo, hi;
  finite_range(z, (int64_t)m->w * m->h, &lo, &hi);
  return write_volume(out, "max.mrc", m->max, m->w, m->h, 1, pixel_size, err, err_len) ||
         write_index_map(out, m, pixel_size, err, err_len) ||
         write_volume(out, "mean.mrc", m->mean, m->w, m->h, 1, pixel_size, err, err_len) ||
         write_volume(out, "stddev.mrc", m->stddev, m->w, m->h, 1, pixel_size, err, err_len) ||
         write_volume(out, "zscore.mrc", z, m->w, m->h, 1, pixel_size, err, err_len) ||
         write_volume(out, "pixel_zscore.mrc", m->zscore, m->w, m->h, 1, pixel_size, err,
                      err_len) ||
         outputs_stage(out, "zscore.png", path, sizeof path, err, err_len) ||
         png_write_float(path, z, m->w, m->h, lo, hi, err, err_len);
}

/* Picks the peaks of z (exclusion radius: half the smaller template side) and writes
 * peaks.csv, staged in out. Returns the number of peaks, or -1 with a message. */
static int write_peaks(match_outputs *out, const match_maps *m, const float *z, int template_w,
                       int template_h, float threshold, peak *peaks, char *err, size_t err_len) {
  char path[match_outputs_path_max];
  int radius = (template_w < template_h ? template_w : template_h) / 2;
  int n = find_peaks(z, m->w, m->h, threshold, radius > 1 ? radius : 1, peaks, max_peaks);
  if (n < 0) {
    match_fail(err, err_len, "out of memory while picking peaks");
    return -1;
  }
  if (outputs_stage(out, "peaks.csv", path, sizeof path, err, err_len) ||
      write_peaks_csv(path, peaks, n, m->max, m->index, m->w, err, err_len))
    return -1;
  return n;
}

/* The peak nearest (x, y), or -1 when there are none. */
static int nearest_peak(const peak *peaks, int n, int x, int y) {
  int best = -1;
  int64_t best_d2 = 0;
  for (int i = 0; i < n; i++) {
    int64_t dx = peaks[i].x - x, dy = peaks[i].y - y, d2 = dx * dx + dy * dy;
    if (best < 0 || d2 < best_d2) best = i, best_d2 = d2;
  }
  return best;
}

/* Prints planted copies against the peaks. Returns how many were not found exactly. */
static int print_truth_table(const match_data *d, const match_maps *m, const peak *peaks, int n) {
  int missed = 0;
  printf("copy  planted at    template | nearest peak   z-score  template  result\n");
  for (int i = 0; i < d->planted; i++) {
    const synth_truth *t = &d->truth[i];
    int p = nearest_peak(peaks, n, t->x, t->y);
    int32_t found = p < 0 ? -1 : m->index[(int64_t)peaks[p].y * m->w + peaks[p].x];
    int ok = p >= 0 && peaks[p].x == t->x && peaks[p].y == t->y && found == t->template_index;
    missed += !ok;
    printf("%4d  (%4d, %4d)  %8d | ", i + 1, t->x, t->y, t->template_index);
    if (p < 0)
      printf("%-12s   %7s  %8s  ", "-", "-", "-");
    else
      printf("(%4d, %4d)   %7.2f  %8d  ", peaks[p].x, peaks[p].y, peaks[p].value, (int)found);
    printf("%s\n", ok ? "OK" : "MISSED");
  }
  return missed;
}

/* Counts peaks farther than half a template (Chebyshev) from every planted copy. */
static int count_stray_peaks(const match_data *d, const peak *peaks, int n, int radius) {
  int stray = 0;
  for (int i = 0; i < n; i++) {
    int near = 0;
    for (int k = 0; k < d->planted; k++)
      near |= abs(peaks[i].x - d->truth[k].x) < radius && abs(peaks[i].y - d->truth[k].y) < radius;
    stray += !near;
  }
  return stray;
}

/* Writes the outputs of a finished search, renames every staged output in out into place
 * and, for the synthetic set, checks the truth. Returns 0, or 1 with a message (writing
 * failed, or a planted copy was missed: the outputs are kept then). */
static int report(const match_options *o, const match_data *d, const match_maps *m,
                  match_outputs *out, char *err, size_t err_len) {
  int64_t n = (int64_t)m->w * m->h;
  float *z = malloc((size_t)n * sizeof *z);
  peak *peaks = malloc((size_t)max_peaks * sizeof *peaks);
  int rc = 1, count = -1;
  if (!z || !peaks) match_fail(err, err_len, "out of memory for the z-score map");
  if (z && peaks) {
    match_global_zscore(m, z);
    if (write_maps(out, m, z, d->image.pixel_size, err, err_len) == 0)
      count = write_peaks(out, m, z, (int)d->templates.nx, (int)d->templates.ny, o->threshold,
                          peaks, err, err_len);
    if (count >= 0 && outputs_commit(out, err, err_len)) count = -1;
  }
  if (count >= 0) {
    printf("peaks: %d with z-score >= %g in %s/peaks.csv%s\n", count, o->threshold, o->out_dir,
           count == max_peaks ? " (the first ones only)" : "");
    printf(
        "maps: max, index, mean, stddev, zscore (max in standard deviations of all the "
        "correlations), pixel_zscore (per position, over the templates) .mrc and zscore.png "
        "in %s\n",
        o->out_dir);
    int missed = d->planted ? print_truth_table(d, m, peaks, count) : 0;
    if (d->planted)
      printf("%s: %d of %d planted copies found exactly; %d other peaks\n",
             missed ? "FAILED" : "OK", d->planted - missed, d->planted,
             count_stray_peaks(d, peaks, count, (int)d->templates.nx / 2));
    rc = missed ? 1 : 0;
    if (missed) match_fail(err, err_len, "%d planted copies missed", missed);
  }
  free(z);
  free(peaks);
  return rc;
}

/* Loads or makes the data, prepares the output directory and, for the synthetic set, stages
 * the inputs there in out. Returns 0, or 1 with a message (nothing written on bad input
 * files). */
static int prepare(const match_options *o, match_data *d, match_outputs *out, char *err,
                   size_t err_len) {
  if (o->image_path ? load_files(o, d, err, err_len) : make_synthetic(d, err, err_len)) return 1;
  if (prepare_out_dir(o->out_dir, err, err_len)) return 1;
  if (d->planted == 0) return 0;
  const mrc_volume *im = &d->image, *t = &d->templates;
  printf(
      "synthetic data set: %lldx%lld image, noise sigma %g, %d copies of %lld templates "
      "(%d shapes x %d rotations) planted; inputs in %s/image.mrc, %s/templates.mrc\n",
      (long long)im->nx, (long long)im->ny, synthetic.noise_sigma, d->planted, (long long)t->nz,
      synthetic.shapes, synthetic.rotations, o->out_dir, o->out_dir);
  return write_volume(out, "image.mrc", im->data, im->nx, im->ny, 1, 0, err, err_len) ||
         write_volume(out, "templates.mrc", t->data, t->nx, t->ny, t->nz, 0, err, err_len);
}

int zipfft_tool_match(int argc, char **argv) {
  match_options o;
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(usage_text, stdout);
    return 0;
  }
  int rc = parse_options(argc, argv, &o);
  if (rc) return rc;
  char err[5120] = ""; /* a path of up to 4096 bytes, then the cause */
  match_data d;
  match_maps maps;
  match_outputs out; /* every file is written as NAME.part, renamed when all are written */
  memset(&d, 0, sizeof d);
  memset(&maps, 0, sizeof maps);
  outputs_init(&out, o.out_dir);
  double start = zipfft_tool_seconds(), search_seconds = 0;
  rc = prepare(&o, &d, &out, err, sizeof err) ||
       run_search(&o, &d, &maps, &search_seconds, err, sizeof err) ||
       report(&o, &d, &maps, &out, err, sizeof err);
  outputs_abandon(&out); /* what a failed run staged; empty after a commit */
  if (maps.max) {
    double correlations = (double)d.templates.nz;
    printf("done in %.2f s: search %.2f s, %.0f correlations, %.1f correlations/s on %s\n",
           zipfft_tool_seconds() - start, search_seconds, correlations,
           search_seconds > 0 ? correlations / search_seconds : 0.0, backend_name(maps.backend));
  }
  if (rc && err[0]) fprintf(stderr, "zipfft match: %s\n", err);
  match_maps_free(&maps);
  mrc_free(&d.image);
  mrc_free(&d.templates);
  return rc ? 1 : 0;
}
