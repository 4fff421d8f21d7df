/* search.c - the 2DTM search of search.h: normalised data through a zipfft_corr plan, with
 * device buffers of its own when the plan runs on CUDA. */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_api.h"
#include "prepare.h"
#include "report.h"

/* The inputs as the plan reads them: normalised host copies, mirrored in device buffers
 * when the plan runs on CUDA (cu not NULL; device 0's primary context current). */
typedef struct search_memory {
  float *image, *batch; /* host: the image, one batch of templates */
  const zipfft__cuda_api *cu;
  CUdevice device;
  CUcontext context;
  int retained, pushed;
  CUdeviceptr d_image, d_batch;
} search_memory;

/* The sizes of one search. */
typedef struct search_shape {
  int image_w, image_h, template_w, template_h, count, batch;
  int64_t image_pixels, template_pixels;
} search_shape;

static int fail_status(char *err, size_t err_len, const char *call, zipfft_status s) {
  return match_fail(err, err_len, "%s failed: %s: %s", call, zipfft_status_name(s),
                    zipfft_last_error());
}

static int fail_cuda(char *err, size_t err_len, const char *call, CUresult r) {
  return match_fail(err, err_len, "%s failed: %s", call, zipfft__cuda_error_text(r));
}

/* Validates the arguments of match_search and fills *shape. Returns 0 or 1 with a message. */
static int check_arguments(const float *image, int image_w, int image_h, const float *templates,
                           int template_w, int template_h, int count, int batch,
                           const match_maps *maps, search_shape *shape, char *err, size_t err_len) {
  if (!image || !templates || !maps)
    return match_fail(err, err_len, "match_search: image, templates and maps must not be NULL");
  if (image_w < 1 || image_h < 1)
    return match_fail(err, err_len, "image %dx%d: dimensions must be >= 1", image_w, image_h);
  if (template_w < 1 || template_h < 1 || template_w > image_w || template_h > image_h)
    return match_fail(err, err_len, "template %dx%d: must be 1x1 up to the image's %dx%d",
                      template_w, template_h, image_w, image_h);
  if (count < 1) return match_fail(err, err_len, "template count %d: must be >= 1", count);
  if (batch < 1) return match_fail(err, err_len, "batch %d: must be >= 1", batch);
  *shape = (search_shape){image_w,
                          image_h,
                          template_w,
                          template_h,
                          count,
                          batch < count ? batch : count,
                          (int64_t)image_w * image_h,
                          (int64_t)template_w * template_h};
  return 0;
}

/* Allocates the host copies and normalises the image. Returns 0 or 1 with a message. */
static int host_open(search_memory *mem, const float *image, const search_shape *s, char *err,
                     size_t err_len) {
  mem->image = malloc((size_t)s->image_pixels * sizeof(float));
  mem->batch = malloc((size_t)(s->template_pixels * s->batch) * sizeof(float));
  if (!mem->image || !mem->batch)
    return match_fail(err, err_len, "out of memory for a %dx%d image and %d templates of %dx%d",
                      s->image_w, s->image_h, s->batch, s->template_w, s->template_h);
  memcpy(mem->image, image, (size_t)s->image_pixels * sizeof(float));
  normalize_image(mem->image, s->image_pixels);
  return 0;
}

/* Makes device 0's primary context current (the plan's: config device 0) and allocates the
 * device buffers. Returns 0 or 1 with a message. */
static int device_open(search_memory *mem, const search_shape *s, char *err, size_t err_len) {
  const zipfft__cuda_api *cu = zipfft__cuda_api_get();
  CUresult r;
  if (!cu) return match_fail(err, err_len, "the plan runs on CUDA but the driver did not load");
  mem->cu = cu;
  if ((r = cu->cuDeviceGet(&mem->device, 0)) != 0) return fail_cuda(err, err_len, "cuDeviceGet", r);
  if ((r = cu->cuDevicePrimaryCtxRetain(&mem->context, mem->device)) != 0)
    return fail_cuda(err, err_len, "cuDevicePrimaryCtxRetain", r);
  mem->retained = 1;
  if ((r = cu->cuCtxPushCurrent(mem->context)) != 0)
    return fail_cuda(err, err_len, "cuCtxPushCurrent", r);
  mem->pushed = 1;
  if ((r = cu->cuMemAlloc(&mem->d_image, (size_t)s->image_pixels * sizeof(float))) != 0 ||
      (r = cu->cuMemAlloc(&mem->d_batch,
                          (size_t)(s->template_pixels * s->batch) * sizeof(float))) != 0)
    return fail_cuda(err, err_len, "cuMemAlloc", r);
  return 0;
}

/* Frees whatever host_open and device_open made and restores the current context. */
static void memory_close(search_memory *mem) {
  if (mem->cu) {
    if (mem->d_image) mem->cu->cuMemFree(mem->d_image);
    if (mem->d_batch) mem->cu->cuMemFree(mem->d_batch);
    CUcontext popped = NULL;
    if (mem->pushed) mem->cu->cuCtxPopCurrent(&popped);
    if (mem->retained) mem->cu->cuDevicePrimaryCtxRelease(mem->device);
  }
  free(mem->image);
  free(mem->batch);
  memset(mem, 0, sizeof *mem);
}

/* Copies floats host -> device when the plan runs on CUDA (first waiting for the work that
 * may still read the destination); nothing on the CPU. Returns 0 or 1 with a message. */
static int upload(const search_memory *mem, CUdeviceptr dst, const float *src, int64_t floats,
                  char *err, size_t err_len) {
  CUresult r;
  if (!mem->cu) return 0;
  if ((r = mem->cu->cuCtxSynchronize()) != 0) return fail_cuda(err, err_len, "cuCtxSynchronize", r);
  if ((r = mem->cu->cuMemcpyHtoD(dst, src, (size_t)floats * sizeof(float))) != 0)
    return fail_cuda(err, err_len, "cuMemcpyHtoD", r);
  return 0;
}

/* The pointer the plan reads for a host buffer: itself, or its device mirror. */
static const void *plan_pointer(const search_memory *mem, const float *host, CUdeviceptr dev) {
  return mem->cu ? (const void *)(uintptr_t)dev : (const void *)host;
}

/* Creates the plan, learns its backend, opens device memory when it is CUDA and sets the
 * normalised image as the filter. Returns 0 or 1 with a message. */
static int plan_open(zipfft_corr *c, search_memory *mem, const search_shape *s, match_engine engine,
                     zipfft_backend *ran, char *err, size_t err_len) {
  const int64_t lengths[2] = {s->image_h, s->image_w};
  const int64_t signal[2] = {s->template_h, s->template_w};
  zipfft_corr_config config = {.mode = ZIPFFT_CORRELATE,
                               .region = ZIPFFT_REGION_VALID,
                               .spectrum_storage = engine.storage,
                               .backend = engine.backend,
                               .intermediate_storage = engine.storage};
  zipfft_status st = zipfft_corr_create(c, ZIPFFT_F32, 2, lengths, signal, s->batch, &config);
  if (st != ZIPFFT_SUCCESS) return fail_status(err, err_len, "zipfft_corr_create", st);
  if ((st = zipfft_corr_backend(*c, ran)) != ZIPFFT_SUCCESS)
    return fail_status(err, err_len, "zipfft_corr_backend", st);
  if (*ran == ZIPFFT_BACKEND_CUDA && device_open(mem, s, err, err_len)) return 1;
  if (upload(mem, mem->d_image, mem->image, s->image_pixels, err, err_len)) return 1;
  st = zipfft_corr_set_filter(*c, plan_pointer(mem, mem->image, mem->d_image));
  return st != ZIPFFT_SUCCESS ? fail_status(err, err_len, "zipfft_corr_set_filter", st) : 0;
}

/* Copies templates first..first+n-1 into the host batch and normalises each one. */
static void prepare_batch(const search_memory *mem, const float *templates, const search_shape *s,
                          int first, int n) {
  memcpy(mem->batch, templates + (int64_t)first * s->template_pixels,
         (size_t)(s->template_pixels * n) * sizeof(float));
  for (int k = 0; k < n; k++)
    normalize_template(mem->batch + (int64_t)k * s->template_pixels, s->template_pixels,
                       s->image_pixels);
}

/* Resets the statistics and accumulates the whole stack, batch by batch. Returns 0 or 1. */
static int accumulate_stack(zipfft_corr c, const search_memory *mem, const float *templates,
                            const search_shape *s, match_progress progress, void *user, char *err,
                            size_t err_len) {
  zipfft_status st = zipfft_corr_stats_reset(c, NULL);
  if (st != ZIPFFT_SUCCESS) return fail_status(err, err_len, "zipfft_corr_stats_reset", st);
  for (int first = 0; first < s->count; first += s->batch) {
    int n = s->count - first < s->batch ? s->count - first : s->batch;
    prepare_batch(mem, templates, s, first, n);
    if (upload(mem, mem->d_batch, mem->batch, s->template_pixels * n, err, err_len)) return 1;
    st = zipfft_corr_accumulate(c, plan_pointer(mem, mem->batch, mem->d_batch), n, first, NULL);
    if (st != ZIPFFT_SUCCESS) return fail_status(err, err_len, "zipfft_corr_accumulate", st);
    if (progress) progress(first + n, s->count, user);
  }
  return 0;
}

/* Allocates the maps of the plan's output size and finalizes the statistics into them.
 * Returns 0 or 1 with a message. */
static int finalize_maps(zipfft_corr c, match_maps *m, char *err, size_t err_len) {
  int64_t out[2] = {0, 0};
  zipfft_status st = zipfft_corr_output_lengths(c, out);
  if (st != ZIPFFT_SUCCESS) return fail_status(err, err_len, "zipfft_corr_output_lengths", st);
  m->h = (int)out[0];
  m->w = (int)out[1];
  size_t n = (size_t)(out[0] * out[1]);
  m->max = malloc(n * sizeof(float));
  m->mean = malloc(n * sizeof(float));
  m->stddev = malloc(n * sizeof(float));
  m->zscore = malloc(n * sizeof(float));
  m->index = malloc(n * sizeof(int32_t));
  if (!m->max || !m->mean || !m->stddev || !m->zscore || !m->index)
    return match_fail(err, err_len, "out of memory for %dx%d result maps", m->w, m->h);
  st = zipfft_corr_finalize(c, m->max, m->index, m->mean, m->stddev, m->zscore);
  return st != ZIPFFT_SUCCESS ? fail_status(err, err_len, "zipfft_corr_finalize", st) : 0;
}

int match_search(const float *image, int image_w, int image_h, const float *templates,
                 int template_w, int template_h, int count, int batch, match_engine engine,
                 match_progress progress, void *user, match_maps *maps, char *err, size_t err_len) {
  search_shape s = {0};
  search_memory mem;
  zipfft_corr c = NULL;
  memset(&mem, 0, sizeof mem);
  if (maps) memset(maps, 0, sizeof *maps);
  if (check_arguments(image, image_w, image_h, templates, template_w, template_h, count, batch,
                      maps, &s, err, err_len))
    return 1;
  int rc = host_open(&mem, image, &s, err, err_len) ||
           plan_open(&c, &mem, &s, engine, &maps->backend, err, err_len) ||
           accumulate_stack(c, &mem, templates, &s, progress, user, err, err_len) ||
           finalize_maps(c, maps, err, err_len);
  zipfft_corr_destroy(c);
  memory_close(&mem);
  if (rc) match_maps_free(maps);
  return rc;
}

void match_global_zscore(const match_maps *m, float *z) {
  int64_t n = (int64_t)m->w * m->h;
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < n; i++) {
    double mean = m->mean[i], sd = m->stddev[i];
    sum += mean;
    sum_sq += sd * sd + mean * mean;
  }
  double mu = n > 0 ? sum / (double)n : 0;
  double var = n > 0 ? sum_sq / (double)n - mu * mu : 0;
  double sigma = var > 0 ? sqrt(var) : 0;
  for (int64_t i = 0; i < n; i++)
    z[i] = sigma > 0 && isfinite(sigma) ? (float)((m->max[i] - mu) / sigma) : 0.0f;
}

void match_maps_free(match_maps *m) {
  if (!m) return;
  free(m->max);
  free(m->mean);
  free(m->stddev);
  free(m->zscore);
  free(m->index);
  memset(m, 0, sizeof *m);
}
