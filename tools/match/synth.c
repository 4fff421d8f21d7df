/* synth.c - the deterministic synthetic micrograph and template stack of synth.h. */
#include "synth.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  min_blobs = 3,
  max_blobs = 6,
  tries_per_copy = 10000,
  stream_placement = 1,
  stream_noise = 2,
  stream_shapes = 16 /* shape s uses stream_shapes + s */
};

static const double two_pi = 6.283185307179586476925286766559;
static const int64_t max_elements = (int64_t)1 << 30; /* per buffer */

/* A small seeded generator: splitmix64. */
typedef struct synth_rng {
  uint64_t state;
} synth_rng;

/* One Gaussian blob: centre relative to the template centre, width, height. */
typedef struct blob {
  double x, y, sigma, amplitude;
} blob;

/* A base particle. */
typedef struct shape {
  int count;
  blob blobs[max_blobs];
} shape;

static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A generator for one independent stream of the seed. */
static synth_rng rng_stream(uint64_t seed, uint64_t stream) {
  synth_rng rng = {mix64(seed) ^ mix64(~stream)};
  return rng;
}

static uint64_t rng_next(synth_rng *rng) {
  rng->state += 0x9E3779B97F4A7C15ull;
  uint64_t x = rng->state;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Uniform in [0, 1). */
static double rng_uniform(synth_rng *rng) { return (double)(rng_next(rng) >> 11) * 0x1.0p-53; }

/* Uniform integer in [0, n), n >= 1 (n < 2^32). */
static int rng_below(synth_rng *rng, int64_t n) {
  return (int)(((rng_next(rng) >> 32) * (uint64_t)n) >> 32);
}

/* Draws the blobs of one shape (unscaled) for a template of the given size. */
static void draw_shape(synth_rng *rng, int size, shape *s) {
  s->count = min_blobs + rng_below(rng, max_blobs - min_blobs + 1);
  for (int i = 0; i < s->count; i++) {
    blob *b = &s->blobs[i];
    b->sigma = fmax(1.0, size * (0.04 + 0.06 * rng_uniform(rng)));
    b->amplitude = 0.4 + 0.6 * rng_uniform(rng);
    double reach = fmax(0.0, 0.35 * size - b->sigma);
    double radius = reach * sqrt(rng_uniform(rng)), angle = two_pi * rng_uniform(rng);
    b->x = radius * cos(angle);
    b->y = radius * sin(angle);
  }
}

/* cos and sin of rotation r of n; exact at multiples of a quarter turn. */
static void turn(int r, int n, double *c, double *s) {
  static const double quarter_cos[4] = {1, 0, -1, 0}, quarter_sin[4] = {0, 1, 0, -1};
  if ((4 * (int64_t)r) % n == 0) {
    int q = (int)((4 * (int64_t)r / n) % 4);
    *c = quarter_cos[q];
    *s = quarter_sin[q];
  } else {
    double angle = two_pi * r / n;
    *c = cos(angle);
    *s = sin(angle);
  }
}

/* Samples shape s turned by (c, s) = (cos, sin) on a size x size grid about its centre. */
static void render(const shape *sh, double c, double s, int size, float *out) {
  blob turned[max_blobs];
  for (int i = 0; i < sh->count; i++) {
    turned[i] = sh->blobs[i];
    turned[i].x = sh->blobs[i].x * c - sh->blobs[i].y * s;
    turned[i].y = sh->blobs[i].x * s + sh->blobs[i].y * c;
  }
  double centre = (size - 1) / 2.0;
  for (int v = 0; v < size; v++)
    for (int u = 0; u < size; u++) {
      double dx = u - centre, dy = v - centre, sum = 0;
      for (int i = 0; i < sh->count; i++) {
        const blob *b = &turned[i];
        double d2 = (dx - b->x) * (dx - b->x) + (dy - b->y) * (dy - b->y);
        sum += b->amplitude * exp(-d2 / (2 * b->sigma * b->sigma));
      }
      out[(int64_t)v * size + u] = (float)sum;
    }
}

/* Scales the amplitudes so that the unturned shape peaks at 1; scratch holds size^2. */
static void scale_to_unit_peak(shape *sh, int size, float *scratch) {
  render(sh, 1, 0, size, scratch);
  float peak = 0;
  for (int64_t i = 0; i < (int64_t)size * size; i++) peak = fmaxf(peak, scratch[i]);
  if (peak > 0)
    for (int i = 0; i < sh->count; i++) sh->blobs[i].amplitude /= peak;
}

/* Renders every rotation of every shape into the stack. */
static void make_templates(const synth_params *p, float *templates) {
  int64_t pixels = (int64_t)p->template_size * p->template_size;
  for (int k = 0; k < p->shapes; k++) {
    synth_rng rng = rng_stream(p->seed, stream_shapes + (uint64_t)k);
    shape sh;
    draw_shape(&rng, p->template_size, &sh);
    float *first = templates + (int64_t)k * p->rotations * pixels;
    scale_to_unit_peak(&sh, p->template_size, first);
    for (int r = 0; r < p->rotations; r++) {
      double c, s;
      turn(r, p->rotations, &c, &s);
      render(&sh, c, s, p->template_size, first + r * pixels);
    }
  }
}

/* 1 when a size x size copy at (x, y) overlaps none of the first count copies. */
static int fits_beside(const synth_truth *placed, int count, int x, int y, int size) {
  for (int i = 0; i < count; i++)
    if (abs(placed[i].x - x) < size && abs(placed[i].y - y) < size) return 0;
  return 1;
}

/* Draws the positions and templates of the copies; 0, or nonzero when one cannot be placed
 * after tries_per_copy draws. */
static int place_copies(const synth_params *p, synth_truth *truth, char *err, size_t err_len) {
  synth_rng rng = rng_stream(p->seed, stream_placement);
  int size = p->template_size;
  for (int k = 0; k < p->planted; k++) {
    int tries = 0, x, y;
    do {
      if (tries++ == tries_per_copy)
        return match_fail(err, err_len,
                          "could not place copy %d of %d without overlap in %d tries: use fewer "
                          "copies or a larger image",
                          k + 1, p->planted, tries_per_copy);
      x = rng_below(&rng, p->image_w - size + 1);
      y = rng_below(&rng, p->image_h - size + 1);
    } while (!fits_beside(truth, k, x, y, size));
    truth[k].x = x;
    truth[k].y = y;
    truth[k].template_index = rng_below(&rng, (int64_t)p->shapes * p->rotations);
  }
  return 0;
}

/* Adds the planted copies into the image. */
static void add_copies(const synth_params *p, const float *templates, const synth_truth *truth,
                       float *image) {
  int size = p->template_size;
  for (int k = 0; k < p->planted; k++) {
    const float *t = templates + (int64_t)truth[k].template_index * size * size;
    for (int v = 0; v < size; v++) {
      float *row = image + (int64_t)(truth[k].y + v) * p->image_w + truth[k].x;
      for (int u = 0; u < size; u++) row[u] += t[(int64_t)v * size + u];
    }
  }
}

/* Adds Gaussian noise of standard deviation sigma (Box-Muller, both values of each pair). */
static void add_noise(uint64_t seed, float sigma, float *image, int64_t count) {
  if (sigma == 0) return;
  synth_rng rng = rng_stream(seed, stream_noise);
  for (int64_t i = 0; i < count; i += 2) {
    double u1 = 1.0 - rng_uniform(&rng), u2 = rng_uniform(&rng); /* u1 in (0, 1] */
    double radius = sigma * sqrt(-2.0 * log(u1)), angle = two_pi * u2;
    image[i] += (float)(radius * cos(angle));
    if (i + 1 < count) image[i + 1] += (float)(radius * sin(angle));
  }
}

/* 0 when the sizes and counts are usable; nonzero with a message otherwise. */
static int check_sizes(const synth_params *p, char *err, size_t err_len) {
  if (p->image_w < 1 || p->image_h < 1)
    return match_fail(err, err_len, "image size %d x %d: both must be >= 1", p->image_w,
                      p->image_h);
  if (p->template_size < 1)
    return match_fail(err, err_len, "template size %d < 1", p->template_size);
  if (p->shapes < 1 || p->rotations < 1)
    return match_fail(err, err_len, "%d shapes x %d rotations: both must be >= 1", p->shapes,
                      p->rotations);
  if (p->template_size > p->image_w || p->template_size > p->image_h)
    return match_fail(err, err_len, "template size %d is larger than the %d x %d image",
                      p->template_size, p->image_w, p->image_h);
  int64_t pixels = (int64_t)p->template_size * p->template_size;
  if ((int64_t)p->image_w * p->image_h > max_elements ||
      (int64_t)p->shapes * p->rotations > max_elements / pixels)
    return match_fail(err, err_len, "image or template stack larger than 2^30 pixels");
  return 0;
}

/* 0 when the parameters are usable; nonzero with a message otherwise. */
static int check_params(const synth_params *p, const synth_truth *truth, char *err,
                        size_t err_len) {
  if (check_sizes(p, err, err_len)) return 1;
  if (!(p->noise_sigma >= 0) || isinf(p->noise_sigma))
    return match_fail(err, err_len, "noise sigma %g: must be finite and >= 0", p->noise_sigma);
  if (p->planted < 0) return match_fail(err, err_len, "planted copies %d < 0", p->planted);
  if (p->planted > 0 && !truth) return match_fail(err, err_len, "no truth array for the copies");
  int64_t capacity = (int64_t)(p->image_w / p->template_size) * (p->image_h / p->template_size);
  if (p->planted > capacity)
    return match_fail(err, err_len,
                      "%d copies of %d x %d cannot fit in a %d x %d image (at most %lld)",
                      p->planted, p->template_size, p->template_size, p->image_w, p->image_h,
                      (long long)capacity);
  return 0;
}

int synth_make(const synth_params *p, float **image, float **templates, synth_truth *truth,
               char *err, size_t err_len) {
  if (!image || !templates) return match_fail(err, err_len, "no output pointers");
  *image = *templates = NULL;
  if (!p) return match_fail(err, err_len, "no parameters");
  if (check_params(p, truth, err, err_len)) return 1;
  int64_t image_count = (int64_t)p->image_w * p->image_h;
  int64_t stack_count = (int64_t)p->shapes * p->rotations * p->template_size * p->template_size;
  float *img = calloc((size_t)image_count, sizeof *img);
  float *stack = malloc((size_t)stack_count * sizeof *stack);
  /* the copies are placed here first: truth changes only once every copy has a place */
  synth_truth *placed = malloc((size_t)(p->planted > 0 ? p->planted : 1) * sizeof *placed);
  if (!img || !stack || !placed) {
    free(img), free(stack), free(placed);
    return match_fail(err, err_len, "out of memory for the %d x %d image and its templates",
                      p->image_w, p->image_h);
  }
  if (place_copies(p, placed, err, err_len)) {
    free(img), free(stack), free(placed);
    return 1;
  }
  if (p->planted > 0) memcpy(truth, placed, (size_t)p->planted * sizeof *truth);
  free(placed);
  make_templates(p, stack);
  add_copies(p, stack, truth, img);
  add_noise(p->seed, p->noise_sigma, img, image_count);
  *image = img;
  *templates = stack;
  return 0;
}
