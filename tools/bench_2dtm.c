/* bench_2dtm.c - `zipfft bench-2dtm`: 2D template matching, zipfft_corr vs a cuFFT pipeline. */
#include "bench_2dtm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "plan/corr.h"
#include "tool_common.h"
#include "tool_device.h"
#include "tool_table.h"
#include "cufft_loader.h"
#include "zipfft.h"

static const char tool_name[] = "bench-2dtm"; /* prefix of every message */
enum { WARMUP_CALLS = 3, WINDOWS = 11, CALLS_PER_WINDOW = 3 };
enum { BLOCK_THREADS = 256, MAX_GRID = 65536 };

static const size_t copy_buffer_bytes = (size_t)1 << 30;
static const double check_max_l2 = 1e-4;         /* max maps: relative L2 difference below */
static const double check_min_agreement = 0.999; /* argmax maps: fraction of equal pixels */

/* ------------------------------------------------------------------------------------------
 * Problems, rows, options and the session state.
 * ------------------------------------------------------------------------------------------ */

typedef struct tdm_case {
  int64_t height, width; /* image rows and columns */
  int64_t template_size; /* square templates */
  int64_t batch;         /* templates per call */
  int with_16bit;        /* also time the plans of 16-bit storage (variants after the first) */
  int quick;             /* the one case of --quick (and its check) */
  int checked;           /* the correctness check runs on this case (full run) */
} tdm_case;

static const tdm_case cases[] = {
    {4096, 4096, 512, 1, 0, 0, 0},
    {4096, 4096, 512, 8, 0, 0, 1},
    {4096, 4096, 512, 16, 1, 1, 0},
    {4096, 4096, 512, 32, 0, 0, 0},
    {4092, 5760, 384, 16, 1, 0, 0},
    {5760, 4092, 384, 16, 0, 0, 0}, /* the K3 image rotated: 5760-point columns */
};

/* How a plan stores the kept image spectrum (spectrum_storage) and the array between the
 * fused kernel and the statistics kernel (intermediate_storage): fp32, F16 or BF16. */
typedef struct tdm_variant {
  const char *name;
  zipfft_storage spectrum, intermediate;
} tdm_variant;

static const tdm_variant variants[] = {
    {"f32", ZIPFFT_STORAGE_DEFAULT, ZIPFFT_STORAGE_DEFAULT},
    {"f16 spec", ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_DEFAULT},
    {"f16 mid", ZIPFFT_STORAGE_DEFAULT, ZIPFFT_STORAGE_F16},
    {"bf16 mid", ZIPFFT_STORAGE_DEFAULT, ZIPFFT_STORAGE_BF16},
    {"f16 both", ZIPFFT_STORAGE_F16, ZIPFFT_STORAGE_F16},
};
enum { VARIANT_COUNT = ARRAY_LEN(variants) };

/* One table row: a case in one storage variant. The check's figures (compared: they were
 * measured) against the cuFFT pipeline; the fp32 variant's decide the check's verdict. */
typedef struct tdm_row {
  const tdm_case *spec;
  int variant;                /* index into variants[] */
  double zipfft_ms, cufft_ms; /* median per call of batch correlations; 0: not measured */
  double cufft_plain_ms;      /* the cuFFT pipeline without its statistics kernel */
  double cufft_ffts_ms;       /* its R2C, multiply and C2R alone (no pad, crop, statistics) */
  double cufft_lean_ms;       /* the lean pipeline (templates placed in kept zeros, no crop) */
  int failed;
  int compared, lean_compared; /* against the pipeline, and against the lean pipeline */
  double check_l2, check_agreement, lean_l2, lean_agreement;
} tdm_row;

/* --quick: only the 4096x4096 image with 512x512 templates at batch 16; --shape WxH/t:
 * only the cases of that image and template size (every batch; the check on batch 16). */
typedef struct tdm_options {
  zipfft_tool_bench_options common;
  int64_t width, height, template_size; /* --shape; 0: every shape */
} tdm_options;

enum { K_PAD, K_PLACE, K_CONJ_MUL, K_CROP, K_STATS, KERNEL_COUNT };
static const char *const kernel_names[KERNEL_COUNT] = {"tdm_pad", "tdm_place", "tdm_conj_mul",
                                                       "tdm_crop", "tdm_stats"};

enum { CHECK_NOT_RUN, CHECK_OK, CHECK_FAIL, CHECK_SKIPPED };
static const char *const check_verdicts[] = {"not run", "OK", "FAIL", "skipped"};

typedef struct tdm_context {
  zipfft_tool_device dev;
  cufft_api cufft;
  int have_cufft, cufft_version; /* have_cufft: library and helper kernels loaded */
  char cufft_why[512];
  CUmodule module;
  CUfunction kernels[KERNEL_COUNT];
  CUevent events[2 * WINDOWS];
  int event_count;
  double copy_gbps;
  int check_state; /* the verdict; its figures are in the checked case's fp32 row */
  char check_problem[64];
} tdm_context;

/* One case's shape and its device inputs (the image and batch templates). */
typedef struct tdm_data {
  int64_t H, W, h, w, B; /* image rows and columns, template rows and columns, batch */
  int64_t P, Ho, Wo;     /* W/2+1; valid rows and columns */
  CUdeviceptr image, templates;
} tdm_data;

/* The cuFFT pipeline's plans and buffers for one case. */
typedef struct cufft_pipeline {
  cufft_handle forward, inverse;
  int have_forward, have_inverse;
  CUdeviceptr padded;         /* B x H x W reals: padded templates, then correlations */
  CUdeviceptr placed;         /* B x H x W reals: zeros kept, the templates' corners per call */
  CUdeviceptr spectra;        /* B x H x P complex */
  CUdeviceptr image_spectrum; /* H x P complex */
  CUdeviceptr cropped;        /* B x Ho x Wo reals */
  CUdeviceptr stats;          /* Ho*Wo each: float max, int32 argmax, double sum, sum of squares */
  int32_t first_index;
} cufft_pipeline;

/* ------------------------------------------------------------------------------------------
 * The cuFFT pipeline's helper kernels (compiled with NVRTC).
 * ------------------------------------------------------------------------------------------ */

static const char kernel_source[] =
    "/* 2DTM cuFFT pipeline helpers: block-stride loops over rows, grid-stride over pixels. */\n"
    "extern \"C\" __global__ void tdm_pad(float *out, const float *tmpl, long long rows, int H,\n"
    "                                     int W, int h, int w) {\n"
    "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n"
    "    long long b = row / H;\n"
    "    int y = (int)(row - b * H);\n"
    "    float *o = out + row * W;\n"
    "    for (int x = threadIdx.x; x < W; x += blockDim.x)\n"
    "      o[x] = (y < h && x < w) ? tmpl[(b * h + y) * w + x] : 0.0f;\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void tdm_place(float *out, const float *tmpl, long long rows,\n"
    "                                       int H, int W, int h, int w) {\n"
    "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n"
    "    long long b = row / h;\n"
    "    float *o = out + (b * H + (row - b * h)) * W;\n"
    "    for (int x = threadIdx.x; x < w; x += blockDim.x) o[x] = tmpl[row * w + x];\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void tdm_conj_mul(float2 *spec, const float2 *image, long long rows,\n"
    "                                          int H, int P, float scale) {\n"
    "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n"
    "    float2 *s = spec + row * P;\n"
    "    const float2 *g = image + (row % H) * P;\n"
    "    for (int x = threadIdx.x; x < P; x += blockDim.x) {\n"
    "      float2 a = s[x], c = g[x], r;\n"
    "      r.x = (a.x * c.x + a.y * c.y) * scale;\n"
    "      r.y = (a.x * c.y - a.y * c.x) * scale;\n"
    "      s[x] = r;\n"
    "    }\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void tdm_crop(float *out, const float *in, long long rows, int Ho,\n"
    "                                      int H, int W, int Wo) {\n"
    "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n"
    "    long long b = row / Ho;\n"
    "    long long y = row - b * Ho;\n"
    "    const float *i = in + (b * H + y) * W;\n"
    "    float *o = out + row * Wo;\n"
    "    for (int x = threadIdx.x; x < Wo; x += blockDim.x) o[x] = i[x];\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void tdm_stats(const float *maps, long long plane, int Wo,\n"
    "                                       long long pitch, long long map_stride, int count,\n"
    "                                       int first, float *mx, int *ix, double *sum,\n"
    "                                       double *sq) {\n"
    "  long long step = (long long)gridDim.x * blockDim.x;\n"
    "  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < plane;\n"
    "       p += step) {\n"
    "    const float *m = maps + (p / Wo) * pitch + p % Wo;\n"
    "    float best = m[0];\n"
    "    int arg = 0;\n"
    "    double s = 0.0, s2 = 0.0;\n"
    "    for (int b = 0; b < count; b++) {\n"
    "      float v = m[b * map_stride];\n"
    "      if (v > best) { best = v; arg = b; }\n"
    "      s += (double)v;\n"
    "      s2 += (double)v * (double)v;\n"
    "    }\n"
    "    int index = first + arg;\n"
    "    if (ix[p] < 0 || best > mx[p] || (best == mx[p] && index < ix[p])) {\n"
    "      mx[p] = best;\n"
    "      ix[p] = index;\n"
    "    }\n"
    "    sum[p] += s;\n"
    "    sq[p] += s2;\n"
    "  }\n"
    "}\n";

/* ------------------------------------------------------------------------------------------
 * Small helpers.
 * ------------------------------------------------------------------------------------------ */

/* Returns 1 when result is CUDA_SUCCESS; otherwise prints what failed, marks the device as
 * failed and returns 0. */
static int cu_ok(tdm_context *ctx, CUresult result, const char *what) {
  return zipfft_tool_cu_ok(&ctx->dev, result, what);
}

/* A device address as the pointer zipfft and cuFFT take. */
static void *dptr(CUdeviceptr p) { return (void *)(uintptr_t)p; }

/* Fills count floats with deterministic pseudo-random values in [-0.5, 0.5). */
static void fill_random(float *x, size_t count, uint64_t seed) {
  uint64_t state = seed;
  for (size_t i = 0; i < count; i++)
    x[i] = (float)((double)(zipfft_tool_next_random(&state) >> 40) * 0x1p-24 - 0.5);
}

/* Shifts and scales count floats to mean 0 and standard deviation 1. */
static void normalise(float *x, size_t count) {
  double sum = 0, squares = 0;
  for (size_t i = 0; i < count; i++) sum += x[i], squares += (double)x[i] * x[i];
  double mean = sum / (double)count, var = squares / (double)count - mean * mean;
  double scale = var > 0 ? 1.0 / sqrt(var) : 1.0;
  for (size_t i = 0; i < count; i++) x[i] = (float)((x[i] - mean) * scale);
}

/* Blocks for n rows or n/BLOCK_THREADS pixels, clamped to 1..MAX_GRID (loops cover more). */
static unsigned grid_for(int64_t blocks) {
  return (unsigned)(blocks < 1 ? 1 : blocks > MAX_GRID ? MAX_GRID : blocks);
}

/* The first signal index of the call after one that started at first with batch signals
 * (wraps long before int32 overflow; the indices only label the maxima). */
static int32_t next_index(int32_t first, int64_t batch) {
  int64_t next = (int64_t)first + batch;
  return next > ((int64_t)1 << 30) ? 0 : (int32_t)next;
}

/* ------------------------------------------------------------------------------------------
 * Options and rows.
 * ------------------------------------------------------------------------------------------ */

/* Prints the subcommand's usage. */
static void print_usage(void) {
  printf(
      "usage: zipfft bench-2dtm [--device D] [--quick] [--shape WxH/t] [--md FILE]\n"
      "  2D template matching: correlations/s of zipfft_corr (VALID region, statistics\n"
      "  accumulated) against a cuFFT pipeline (pad, R2C, conjugate multiply, C2R, crop,\n"
      "  statistics), bytes per correlation against copy bandwidth, and a correctness check.\n"
      "  --shape WxH/t runs only the cases of that image and template size (e.g. 5760x4092/384)\n"
      "  and checks its batch-16 case.\n");
}

/* 1 when case c has the image (width x height) and template size. */
static int case_has_shape(const tdm_case *c, int64_t width, int64_t height, int64_t template_size) {
  return c->width == width && c->height == height && c->template_size == template_size;
}

/* --shape WxH/t: 1 when value names an image and a template size of the case table. */
static int apply_shape(void *options, const char *value) {
  tdm_options *opt = options;
  long long w, h, t;
  char tail;
  if (sscanf(value, "%lldx%lld/%lld%c", &w, &h, &t, &tail) != 3) return 0;
  for (size_t i = 0; i < ARRAY_LEN(cases); i++)
    if (case_has_shape(&cases[i], w, h, t)) {
      opt->width = w, opt->height = h, opt->template_size = t;
      return 1;
    }
  return 0;
}

static const zipfft_tool_option option_specs[] = {
    {"--device", 1, zipfft_tool_apply_device},
    {"--quick", 0, zipfft_tool_apply_quick},
    {"--md", 1, zipfft_tool_apply_md},
    {"--shape", 1, apply_shape},
};

/* 1 when the case runs under these options. */
static int case_selected(const tdm_options *opt, const tdm_case *c) {
  if (opt->width) return case_has_shape(c, opt->width, opt->height, opt->template_size);
  return !opt->common.quick || c->quick;
}

/* 1 when the correctness check runs on this case. */
static int case_checked(const tdm_options *opt, const tdm_case *c) {
  if (opt->width) return c->batch == 16; /* --shape: its batch-16 case */
  return opt->common.quick ? c->quick : c->checked;
}

/* Fills rows (room for VARIANT_COUNT per case) with the selected cases, the fp32 rows
 * first, then each 16-bit variant's; returns how many. */
static int build_rows(const tdm_options *opt, tdm_row *rows) {
  int count = 0;
  for (int v = 0; v < VARIANT_COUNT; v++)
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
      if (!case_selected(opt, &cases[i]) || (v > 0 && !cases[i].with_16bit)) continue;
      memset(&rows[count], 0, sizeof rows[count]);
      rows[count].spec = &cases[i];
      rows[count++].variant = v;
    }
  return count;
}

/* The row of case c in variant v, or NULL. */
static tdm_row *find_row(tdm_row *rows, int count, const tdm_case *c, int v) {
  for (int i = 0; i < count; i++)
    if (rows[i].spec == c && rows[i].variant == v) return &rows[i];
  return NULL;
}

/* ------------------------------------------------------------------------------------------
 * Device, helper kernels, events.
 * ------------------------------------------------------------------------------------------ */

/* Compiles the helper kernels for the device and loads them. Returns 1 on success; else 0
 * with the reason in ctx->cufft_why (the cuFFT pipeline is then skipped). */
static int load_kernels(tdm_context *ctx) {
  void *image = NULL;
  size_t size = 0;
  zipfft_status s =
      zipfft__nvrtc_compile(kernel_source, "bench_2dtm.cu", ctx->dev.arch, &image, &size);
  if (s != ZIPFFT_SUCCESS) {
    snprintf(ctx->cufft_why, sizeof ctx->cufft_why, "helper kernels did not compile: %s: %.300s",
             zipfft_status_name(s), zipfft_last_error());
    return 0;
  }
  CUresult r = ctx->dev.cu->cuModuleLoadData(&ctx->module, image);
  free(image);
  if (r != 0) { /* not counted as a device failure: zipfft may still run */
    ctx->module = NULL;
    snprintf(ctx->cufft_why, sizeof ctx->cufft_why, "helper kernels did not load: %s",
             zipfft__cuda_error_text(r));
    return 0;
  }
  for (int k = 0; k < KERNEL_COUNT; k++)
    if (!cu_ok(ctx,
               ctx->dev.cu->cuModuleGetFunction(&ctx->kernels[k], ctx->module, kernel_names[k]),
               kernel_names[k])) {
      snprintf(ctx->cufft_why, sizeof ctx->cufft_why, "helper kernel %s missing", kernel_names[k]);
      return 0;
    }
  return 1;
}

/* Loads cuFFT and the helper kernels; on failure notes why (the run goes on without them). */
static void load_cufft_pipeline(tdm_context *ctx) {
  if (!zipfft_tool_cufft_load(&ctx->cufft, ctx->cufft_why, sizeof ctx->cufft_why)) return;
  if (!zipfft_tool_cufft_ok(tool_name, ctx->cufft.get_version(&ctx->cufft_version),
                            "cufftGetVersion")) {
    snprintf(ctx->cufft_why, sizeof ctx->cufft_why, "cufftGetVersion failed");
    return;
  }
  ctx->have_cufft = load_kernels(ctx);
}

/* Unloads the helper kernels and cuFFT (after every plan is destroyed). */
static void unload_cufft_pipeline(tdm_context *ctx) {
  if (ctx->module) cu_ok(ctx, ctx->dev.cu->cuModuleUnload(ctx->module), "cuModuleUnload");
  ctx->module = NULL;
  zipfft_tool_cufft_unload(&ctx->cufft);
  ctx->have_cufft = 0;
}

/* Creates the timing events. Returns 1 on success. */
static int create_events(tdm_context *ctx) {
  for (int i = 0; i < 2 * WINDOWS; i++) {
    if (!cu_ok(ctx, ctx->dev.cu->cuEventCreate(&ctx->events[i], 0), "cuEventCreate")) return 0;
    ctx->event_count = i + 1;
  }
  return 1;
}

/* Destroys the events that create_events made. */
static void destroy_events(tdm_context *ctx) {
  for (int i = 0; i < ctx->event_count; i++)
    cu_ok(ctx, ctx->dev.cu->cuEventDestroy(ctx->events[i]), "cuEventDestroy");
  ctx->event_count = 0;
}

/* Allocates bytes of device memory into *ptr (named what in a failure). Returns 1 on success. */
static int device_alloc(tdm_context *ctx, CUdeviceptr *ptr, size_t bytes, const char *what) {
  CUresult r = ctx->dev.cu->cuMemAlloc(ptr, bytes);
  if (r == 0) return 1;
  *ptr = 0;
  printf("bench-2dtm: cuMemAlloc of %zu bytes (%s) failed: %s\n", bytes, what,
         zipfft__cuda_error_text(r));
  ctx->dev.failed = 1;
  return 0;
}

/* Frees *ptr when set and clears it. */
static void device_free(tdm_context *ctx, CUdeviceptr *ptr) {
  if (*ptr) cu_ok(ctx, ctx->dev.cu->cuMemFree(*ptr), "cuMemFree");
  *ptr = 0;
}

/* ------------------------------------------------------------------------------------------
 * Timing.
 * ------------------------------------------------------------------------------------------ */

/* One call to time: enqueues work on the legacy default stream; returns 1 on success. */
typedef int (*tdm_runner)(tdm_context *ctx, void *job);

/* Runs job WARMUP_CALLS times, then WINDOWS windows of CALLS_PER_WINDOW calls, each window
 * between its own pair of events; stores the median window time per call in *ms. Returns 1
 * on success. */
static int time_calls(tdm_context *ctx, tdm_runner run, void *job, double *ms) {
  const zipfft__cuda_api *cu = ctx->dev.cu;
  double samples[WINDOWS];
  for (int i = 0; i < WARMUP_CALLS; i++)
    if (!run(ctx, job)) return 0;
  for (int i = 0; i < WINDOWS; i++) {
    if (!cu_ok(ctx, cu->cuEventRecord(ctx->events[2 * i], NULL), "cuEventRecord")) return 0;
    for (int k = 0; k < CALLS_PER_WINDOW; k++)
      if (!run(ctx, job)) return 0;
    if (!cu_ok(ctx, cu->cuEventRecord(ctx->events[2 * i + 1], NULL), "cuEventRecord")) return 0;
  }
  if (!cu_ok(ctx, cu->cuEventSynchronize(ctx->events[2 * WINDOWS - 1]), "cuEventSynchronize"))
    return 0;
  for (int i = 0; i < WINDOWS; i++) {
    float window_ms = 0;
    if (!cu_ok(ctx, cu->cuEventElapsedTime(&window_ms, ctx->events[2 * i], ctx->events[2 * i + 1]),
               "cuEventElapsedTime"))
      return 0;
    samples[i] = (double)window_ms / CALLS_PER_WINDOW;
  }
  *ms = zipfft_tool_median(samples, WINDOWS);
  return 1;
}

typedef struct copy_job {
  CUdeviceptr src, dst;
  size_t bytes;
} copy_job;

/* Runner: one device-to-device copy of a copy_job. */
static int copy_runner(tdm_context *ctx, void *job) {
  const copy_job *c = job;
  return cu_ok(ctx, ctx->dev.cu->cuMemcpyDtoDAsync(c->dst, c->src, c->bytes, NULL),
               "cuMemcpyDtoDAsync");
}

/* Measures device-to-device copy bandwidth over two large buffers (bytes read + written) and
 * prints it. Returns 1 on success. */
static int measure_copy_bandwidth(tdm_context *ctx) {
  copy_job job = {0, 0, copy_buffer_bytes};
  double ms = 0;
  int ok = device_alloc(ctx, &job.src, job.bytes, "copy source") &&
           device_alloc(ctx, &job.dst, job.bytes, "copy destination") &&
           cu_ok(ctx, ctx->dev.cu->cuMemsetD8(job.src, 0x3c, job.bytes), "cuMemsetD8") &&
           time_calls(ctx, copy_runner, &job, &ms);
  device_free(ctx, &job.src);
  device_free(ctx, &job.dst);
  if (!ok) return 0;
  ctx->copy_gbps = ms > 0 ? 2.0 * (double)job.bytes / (ms * 1e6) : 0;
  printf("device-to-device copy: %zu bytes in %.3f ms = %.1f GB/s (read + write)\n\n", job.bytes,
         ms, ctx->copy_gbps);
  return ctx->copy_gbps > 0;
}

/* ------------------------------------------------------------------------------------------
 * One case's data and the zipfft side.
 * ------------------------------------------------------------------------------------------ */

/* Fills d's shape from the case. */
static void data_shape(const tdm_case *c, tdm_data *d) {
  memset(d, 0, sizeof *d);
  d->H = c->height, d->W = c->width, d->h = d->w = c->template_size, d->B = c->batch;
  d->P = d->W / 2 + 1, d->Ho = d->H - d->h + 1, d->Wo = d->W - d->w + 1;
}

/* Generates a normalised random image and B random templates on the host and uploads them.
 * Returns 1 on success; data_free releases what was allocated. */
static int data_upload(tdm_context *ctx, tdm_data *d) {
  size_t image_count = (size_t)(d->H * d->W), templates_count = (size_t)(d->B * d->h * d->w);
  float *host = malloc((image_count > templates_count ? image_count : templates_count) * 4);
  int ok = host != NULL;
  if (!host) printf("bench-2dtm: out of host memory\n");
  if (ok) {
    fill_random(host, image_count, 0x5eed2718281828ULL);
    normalise(host, image_count);
    ok = device_alloc(ctx, &d->image, image_count * 4, "image") &&
         cu_ok(ctx, ctx->dev.cu->cuMemcpyHtoD(d->image, host, image_count * 4),
               "cuMemcpyHtoD (image)");
  }
  if (ok) {
    fill_random(host, templates_count, 0x7e3a9b1cULL);
    ok = device_alloc(ctx, &d->templates, templates_count * 4, "templates") &&
         cu_ok(ctx, ctx->dev.cu->cuMemcpyHtoD(d->templates, host, templates_count * 4),
               "cuMemcpyHtoD (templates)");
  }
  free(host);
  return ok;
}

/* Frees the device inputs of d. */
static void data_free(tdm_context *ctx, tdm_data *d) {
  device_free(ctx, &d->image);
  device_free(ctx, &d->templates);
}

typedef struct zipfft_job {
  zipfft_corr corr;
  CUdeviceptr templates;
  int64_t batch;
  int32_t first_index;
} zipfft_job;

/* Runner: one zipfft_corr_accumulate of the batch; the signal indices advance per call. */
static int zipfft_runner(tdm_context *ctx, void *job) {
  zipfft_job *z = job;
  (void)ctx;
  int ok = zipfft_tool_zipfft_ok(
      tool_name,
      zipfft_corr_accumulate(z->corr, dptr(z->templates), z->batch, z->first_index, NULL),
      "zipfft_corr_accumulate");
  z->first_index = next_index(z->first_index, z->batch);
  return ok;
}

/* Creates a VALID correlation plan for d in the storage variant v, sets the image and
 * resets the statistics. *corr receives the plan (NULL when creation failed); the caller
 * destroys it. Returns 1 on success. */
static int zipfft_open(const tdm_context *ctx, const tdm_data *d, int v, zipfft_corr *corr) {
  zipfft_corr_config config = {.mode = ZIPFFT_CORRELATE,
                               .region = ZIPFFT_REGION_VALID,
                               .spectrum_storage = variants[v].spectrum,
                               .backend = ZIPFFT_BACKEND_CUDA,
                               .device = ctx->dev.ordinal,
                               .intermediate_storage = variants[v].intermediate};
  int64_t lengths[2] = {d->H, d->W}, signal[2] = {d->h, d->w}, out[2] = {0, 0};
  *corr = NULL;
  int ok = zipfft_tool_zipfft_ok(
               tool_name, zipfft_corr_create(corr, ZIPFFT_F32, 2, lengths, signal, d->B, &config),
               "zipfft_corr_create") &&
           zipfft_tool_zipfft_ok(tool_name, zipfft_corr_output_lengths(*corr, out),
                                 "zipfft_corr_output_lengths") &&
           zipfft_tool_zipfft_ok(tool_name, zipfft_corr_set_filter(*corr, dptr(d->image)),
                                 "zipfft_corr_set_filter") &&
           zipfft_tool_zipfft_ok(tool_name, zipfft_corr_stats_reset(*corr, NULL),
                                 "zipfft_corr_stats_reset");
  if (ok && (out[0] != d->Ho || out[1] != d->Wo)) {
    printf("bench-2dtm: zipfft output is %lldx%lld, expected %lldx%lld\n", (long long)out[0],
           (long long)out[1], (long long)d->Ho, (long long)d->Wo);
    ok = 0;
  }
  return ok;
}

/* Plans zipfft for d in variant v and times accumulate calls; keeps the plan in *corr (NULL
 * on a creation failure; the caller destroys it). Returns 1 on success. */
static int time_zipfft(tdm_context *ctx, const tdm_data *d, int v, zipfft_corr *corr, double *ms) {
  zipfft_job job = {NULL, d->templates, d->B, 0};
  *ms = 0;
  if (!zipfft_open(ctx, d, v, corr)) return 0;
  job.corr = *corr;
  if (time_calls(ctx, zipfft_runner, &job, ms)) return 1;
  *ms = 0;
  return 0;
}

/* ------------------------------------------------------------------------------------------
 * The cuFFT pipeline.
 * ------------------------------------------------------------------------------------------ */

/* Creates a cuFFT 2D R2C or C2R plan (type) over H x W, batch transforms of contiguous
 * arrays, on the legacy default stream. *created is set once the handle exists. */
static int cufft_plan_2d(const tdm_context *ctx, const tdm_data *d, int type, int64_t batch,
                         cufft_handle *handle, int *created) {
  const cufft_api *api = &ctx->cufft;
  long long n[2] = {d->H, d->W}, real = d->H * d->W, half = d->H * d->P;
  int r2c = type == CUFFT_TYPE_R2C;
  size_t work = 0;
  if (!zipfft_tool_cufft_ok(tool_name, api->create(handle), "cufftCreate")) return 0;
  *created = 1;
  return zipfft_tool_cufft_ok(tool_name,
                              api->make_plan_many64(*handle, 2, n, NULL, 1, r2c ? real : half, NULL,
                                                    1, r2c ? half : real, type, batch, &work),
                              "cufftMakePlanMany64") &&
         zipfft_tool_cufft_ok(tool_name, api->set_stream(*handle, NULL), "cufftSetStream");
}

/* Computes the image's half spectrum into p->image_spectrum with a batch-1 R2C plan. */
static int image_spectrum(tdm_context *ctx, const tdm_data *d, cufft_pipeline *p) {
  cufft_handle plan = 0;
  int created = 0;
  int ok = cufft_plan_2d(ctx, d, CUFFT_TYPE_R2C, 1, &plan, &created) &&
           zipfft_tool_cufft_ok(tool_name,
                                ctx->cufft.exec_r2c(plan, dptr(d->image), dptr(p->image_spectrum)),
                                "cufftExecR2C (image)") &&
           cu_ok(ctx, ctx->dev.cu->cuCtxSynchronize(), "cuCtxSynchronize");
  if (created) zipfft_tool_cufft_ok(tool_name, ctx->cufft.destroy(plan), "cufftDestroy");
  return ok;
}

/* Clears the pipeline's statistics: maxima 0, argmax -1, sums 0 (as zipfft_corr_stats_reset). */
static int pipeline_reset(tdm_context *ctx, const tdm_data *d, cufft_pipeline *p) {
  size_t plane = (size_t)(d->Ho * d->Wo);
  p->first_index = 0;
  return cu_ok(ctx, ctx->dev.cu->cuMemsetD8(p->stats, 0, 24 * plane), "cuMemsetD8 (statistics)") &&
         cu_ok(ctx, ctx->dev.cu->cuMemsetD8(p->stats + 4 * plane, 0xff, 4 * plane),
               "cuMemsetD8 (argmax)");
}

/* Allocates the pipeline's buffers, creates its plans, computes the image spectrum and
 * resets the statistics. Returns 1 on success; pipeline_close releases what was made. */
static int pipeline_open(tdm_context *ctx, const tdm_data *d, cufft_pipeline *p) {
  size_t B = (size_t)d->B, real = (size_t)(d->H * d->W), half = (size_t)(d->H * d->P);
  size_t plane = (size_t)(d->Ho * d->Wo);
  memset(p, 0, sizeof *p);
  return device_alloc(ctx, &p->padded, B * real * 4, "padded templates") &&
         device_alloc(ctx, &p->placed, B * real * 4, "placed templates") &&
         cu_ok(ctx, ctx->dev.cu->cuMemsetD8(p->placed, 0, B * real * 4), "cuMemsetD8 (placed)") &&
         device_alloc(ctx, &p->spectra, B * half * 8, "template spectra") &&
         device_alloc(ctx, &p->image_spectrum, half * 8, "image spectrum") &&
         device_alloc(ctx, &p->cropped, B * plane * 4, "cropped maps") &&
         device_alloc(ctx, &p->stats, 24 * plane, "statistics") &&
         cufft_plan_2d(ctx, d, CUFFT_TYPE_R2C, d->B, &p->forward, &p->have_forward) &&
         cufft_plan_2d(ctx, d, CUFFT_TYPE_C2R, d->B, &p->inverse, &p->have_inverse) &&
         image_spectrum(ctx, d, p) && pipeline_reset(ctx, d, p);
}

/* Destroys the pipeline's plans and frees its buffers (after the device is idle). */
static void pipeline_close(tdm_context *ctx, cufft_pipeline *p) {
  cu_ok(ctx, ctx->dev.cu->cuCtxSynchronize(), "cuCtxSynchronize");
  if (p->have_forward)
    zipfft_tool_cufft_ok(tool_name, ctx->cufft.destroy(p->forward), "cufftDestroy");
  if (p->have_inverse)
    zipfft_tool_cufft_ok(tool_name, ctx->cufft.destroy(p->inverse), "cufftDestroy");
  p->have_forward = p->have_inverse = 0;
  CUdeviceptr *buffers[] = {&p->padded,         &p->placed,  &p->spectra,
                            &p->image_spectrum, &p->cropped, &p->stats};
  for (size_t i = 0; i < ARRAY_LEN(buffers); i++) device_free(ctx, buffers[i]);
}

/* Launches helper kernel k over grid blocks of BLOCK_THREADS threads with args. */
static int launch(tdm_context *ctx, int k, unsigned grid, void **args) {
  return cu_ok(ctx,
               ctx->dev.cu->cuLaunchKernel(ctx->kernels[k], grid, 1, 1, BLOCK_THREADS, 1, 1, 0,
                                           NULL, args, NULL),
               kernel_names[k]);
}

/* (1) Writes the B padded H x W arrays: the templates, zeros elsewhere. */
static int launch_pad(tdm_context *ctx, const tdm_data *d, const cufft_pipeline *p) {
  CUdeviceptr out = p->padded, in = d->templates;
  long long rows = d->B * d->H;
  int H = (int)d->H, W = (int)d->W, h = (int)d->h, w = (int)d->w;
  void *args[] = {&out, &in, &rows, &H, &W, &h, &w};
  return launch(ctx, K_PAD, grid_for(rows), args);
}

/* (1, lean) Writes the B templates into the corners of the placed arrays, whose zeros
 * pipeline_open wrote once. */
static int launch_place(tdm_context *ctx, const tdm_data *d, const cufft_pipeline *p) {
  CUdeviceptr out = p->placed, in = d->templates;
  long long rows = d->B * d->h;
  int H = (int)d->H, W = (int)d->W, h = (int)d->h, w = (int)d->w;
  void *args[] = {&out, &in, &rows, &H, &W, &h, &w};
  return launch(ctx, K_PLACE, grid_for(rows), args);
}

/* (3) spectra[b][i] = conj(spectra[b][i]) * image_spectrum[i] / (H*W). */
static int launch_conj_mul(tdm_context *ctx, const tdm_data *d, const cufft_pipeline *p) {
  CUdeviceptr spec = p->spectra, image = p->image_spectrum;
  long long rows = d->B * d->H;
  int H = (int)d->H, P = (int)d->P;
  float scale = (float)(1.0 / ((double)d->H * (double)d->W));
  void *args[] = {&spec, &image, &rows, &H, &P, &scale};
  return launch(ctx, K_CONJ_MUL, grid_for(rows), args);
}

/* (5) Copies the valid Ho x Wo region of each correlation into the cropped maps. */
static int launch_crop(tdm_context *ctx, const tdm_data *d, const cufft_pipeline *p) {
  CUdeviceptr out = p->cropped, in = p->padded;
  long long rows = d->B * d->Ho;
  int Ho = (int)d->Ho, H = (int)d->H, W = (int)d->W, Wo = (int)d->Wo;
  void *args[] = {&out, &in, &rows, &Ho, &H, &W, &Wo};
  return launch(ctx, K_CROP, grid_for(rows), args);
}

/* (6) Folds the valid Ho x Wo region of B maps (rows pitch apart, maps map_stride apart)
 * into the statistics (indices first, first + 1, ...). */
static int launch_stats(tdm_context *ctx, const tdm_data *d, const cufft_pipeline *p,
                        CUdeviceptr maps, long long pitch, long long map_stride) {
  long long plane = d->Ho * d->Wo;
  CUdeviceptr mx = p->stats, ix = p->stats + 4 * (CUdeviceptr)plane;
  CUdeviceptr sum = p->stats + 8 * (CUdeviceptr)plane, sq = p->stats + 16 * (CUdeviceptr)plane;
  int count = (int)d->B, first = p->first_index, Wo = (int)d->Wo;
  void *args[] = {&maps, &plane, &Wo, &pitch, &map_stride, &count, &first, &mx, &ix, &sum, &sq};
  return launch(ctx, K_STATS, grid_for((plane + BLOCK_THREADS - 1) / BLOCK_THREADS), args);
}

typedef struct pipeline_job {
  const tdm_data *d;
  cufft_pipeline *p;
} pipeline_job;

/* Which passes a form of the cuFFT pipeline runs around its R2C, multiply and C2R. */
typedef enum {
  PASS_PAD = 1,   /* the pad pass writes the whole padded arrays */
  PASS_PLACE = 2, /* the templates are written into the corners of the placed arrays */
  PASS_CROP = 4,  /* the crop pass copies the valid region out */
  PASS_STATS = 8  /* the statistics kernel: on the cropped maps, else in place */
} pipeline_passes;

/* The cuFFT pipeline for one batch with the given passes; the signal indices advance per
 * call. R2C transforms the placed arrays with PASS_PLACE, else the padded ones (without
 * PASS_PAD: what the previous call's C2R left, as only its time counts); C2R writes the
 * padded arrays. */
static int run_pipeline(tdm_context *ctx, void *job, int passes) {
  const tdm_data *d = ((pipeline_job *)job)->d;
  cufft_pipeline *p = ((pipeline_job *)job)->p;
  int crop = (passes & PASS_CROP) != 0;
  CUdeviceptr r2c_in = passes & PASS_PLACE ? p->placed : p->padded;
  int ok = (!(passes & PASS_PAD) || launch_pad(ctx, d, p)) &&
           (!(passes & PASS_PLACE) || launch_place(ctx, d, p)) &&
           zipfft_tool_cufft_ok(tool_name,
                                ctx->cufft.exec_r2c(p->forward, dptr(r2c_in), dptr(p->spectra)),
                                "cufftExecR2C") &&
           launch_conj_mul(ctx, d, p) &&
           zipfft_tool_cufft_ok(tool_name,
                                ctx->cufft.exec_c2r(p->inverse, dptr(p->spectra), dptr(p->padded)),
                                "cufftExecC2R") &&
           (!crop || launch_crop(ctx, d, p)) &&
           (!(passes & PASS_STATS) ||
            launch_stats(ctx, d, p, crop ? p->cropped : p->padded, crop ? d->Wo : d->W,
                         crop ? d->Ho * d->Wo : d->H * d->W));
  p->first_index = next_index(p->first_index, d->B);
  return ok;
}

/* Runner: the whole cuFFT pipeline. */
static int pipeline_runner(tdm_context *ctx, void *job) {
  return run_pipeline(ctx, job, PASS_PAD | PASS_CROP | PASS_STATS);
}

/* Runner: the pipeline up to the cropped maps (the 3,900 corr/s on an H200 was
 * measured so), for the record: the ratio is to the whole pipeline. */
static int plain_pipeline_runner(tdm_context *ctx, void *job) {
  return run_pipeline(ctx, job, PASS_PAD | PASS_CROP);
}

/* Runner: the pipeline's R2C, multiply and C2R alone (an estimate put the 3,900
 * corr/s there: docs/perf/targets.md), for the record. */
static int ffts_runner(tdm_context *ctx, void *job) { return run_pipeline(ctx, job, 0); }

/* Runner: the lean pipeline, the same work as a careful cuFFT user would do it: the
 * templates written into the corners of arrays whose zeros stay (no pad pass), R2C,
 * conjugate multiply, C2R into a second array, and the statistics kernel reading the valid
 * region of those maps in place (no crop pass). */
static int lean_pipeline_runner(tdm_context *ctx, void *job) {
  return run_pipeline(ctx, job, PASS_PLACE | PASS_STATS);
}

/* ------------------------------------------------------------------------------------------
 * The correctness check.
 * ------------------------------------------------------------------------------------------ */

/* Relative L2 difference of the max maps and the fraction of equal argmax pixels. */
static void compare_maps(const float *max_a, const int32_t *index_a, const float *max_b,
                         const int32_t *index_b, size_t plane, double *l2, double *agreement) {
  double diff2 = 0, ref2 = 0;
  size_t equal = 0;
  for (size_t i = 0; i < plane; i++) {
    double d = (double)max_a[i] - (double)max_b[i];
    diff2 += d * d;
    ref2 += (double)max_b[i] * (double)max_b[i];
    equal += index_a[i] == index_b[i];
  }
  *l2 = ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
  *agreement = (double)equal / (double)plane;
}

/* Resets both statistics, accumulates the batch once with each (the pipeline as runner
 * runs it; indices from 0) and reads back the max and argmax maps (zipfft's into
 * max_z/index_z). Returns 1 on success. */
static int accumulate_both(tdm_context *ctx, const tdm_data *d, zipfft_corr corr, cufft_pipeline *p,
                           tdm_runner runner, float *max_z, int32_t *index_z, float *max_c,
                           int32_t *index_c) {
  size_t plane = (size_t)(d->Ho * d->Wo);
  pipeline_job job = {d, p};
  return zipfft_tool_zipfft_ok(tool_name, zipfft_corr_stats_reset(corr, NULL),
                               "zipfft_corr_stats_reset") &&
         pipeline_reset(ctx, d, p) &&
         zipfft_tool_zipfft_ok(tool_name,
                               zipfft_corr_accumulate(corr, dptr(d->templates), d->B, 0, NULL),
                               "zipfft_corr_accumulate") &&
         runner(ctx, &job) && cu_ok(ctx, ctx->dev.cu->cuCtxSynchronize(), "cuCtxSynchronize") &&
         cu_ok(ctx, ctx->dev.cu->cuMemcpyDtoH(max_c, p->stats, plane * 4), "cuMemcpyDtoH (max)") &&
         cu_ok(ctx, ctx->dev.cu->cuMemcpyDtoH(index_c, p->stats + 4 * plane, plane * 4),
               "cuMemcpyDtoH (argmax)") &&
         zipfft_tool_zipfft_ok(tool_name,
                               zipfft_corr_finalize(corr, max_z, index_z, NULL, NULL, NULL),
                               "zipfft_corr_finalize");
}

/* Compares plan corr's maps on d with those of pipeline p as runner runs it into *l2 and
 * *agreement. Returns 1 when they were compared. */
static int compare_with_pipeline(tdm_context *ctx, const tdm_data *d, zipfft_corr corr,
                                 cufft_pipeline *p, tdm_runner runner, double *l2,
                                 double *agreement) {
  size_t plane = (size_t)(d->Ho * d->Wo);
  float *max_z = malloc(plane * 4), *max_c = malloc(plane * 4);
  int32_t *index_z = malloc(plane * 4), *index_c = malloc(plane * 4);
  int ok = max_z && max_c && index_z && index_c;
  if (!ok) printf("bench-2dtm: out of host memory for the check\n");
  ok = ok && accumulate_both(ctx, d, corr, p, runner, max_z, index_z, max_c, index_c);
  if (ok) compare_maps(max_z, index_z, max_c, index_c, plane, l2, agreement);
  free(max_z), free(max_c), free(index_z), free(index_c);
  return ok;
}

/* Whether figures of a comparison pass the check's bounds. */
static int within_check(double l2, double agreement) {
  return l2 < check_max_l2 && agreement >= check_min_agreement;
}

/* Compares plan corr with both pipelines into row. */
static void compare_with_both(tdm_context *ctx, const tdm_data *d, zipfft_corr corr,
                              cufft_pipeline *p, tdm_row *row) {
  row->compared = compare_with_pipeline(ctx, d, corr, p, pipeline_runner, &row->check_l2,
                                        &row->check_agreement);
  row->lean_compared = compare_with_pipeline(ctx, d, corr, p, lean_pipeline_runner, &row->lean_l2,
                                             &row->lean_agreement);
}

/* Runs the check on d (the fp32 plan corr, pipeline p: zipfft against the pipeline, and
 * against the lean pipeline, which thereby checks that one too) and records its verdict in
 * ctx. */
static void run_check(tdm_context *ctx, const tdm_data *d, zipfft_corr corr, cufft_pipeline *p,
                      tdm_row *row) {
  compare_with_both(ctx, d, corr, p, row);
  int ok = row->compared && within_check(row->check_l2, row->check_agreement) &&
           row->lean_compared && within_check(row->lean_l2, row->lean_agreement);
  ctx->check_state = ok ? CHECK_OK : CHECK_FAIL;
}

/* Prints the check's verdict line with the figures of the checked plan's row. */
static void print_check(const tdm_context *ctx, const tdm_row *row) {
  printf("check (%s): ", ctx->check_problem);
  if (row->compared)
    printf("max rel L2 diff %.2e (< %.0e), argmax agreement %.4f%% (>= %.1f%%); ", row->check_l2,
           check_max_l2, 100.0 * row->check_agreement, 100.0 * check_min_agreement);
  if (row->lean_compared)
    printf("against the lean pipeline %.2e, %.4f%%: ", row->lean_l2, 100.0 * row->lean_agreement);
  printf("%s\n\n", check_verdicts[ctx->check_state]);
  fflush(stdout);
}

/* ------------------------------------------------------------------------------------------
 * One case.
 * ------------------------------------------------------------------------------------------ */

/* Bytes zipfft moves per correlation (model): the signal-sum kernel (the templates read,
 * their double running sum read and written once per call), the R2C pass over the template
 * rows, the fused column pass (the kept spectrum read once per group of signals), the C2R
 * pass with the statistics (float maximum, int32 index, double sum of squares) read and
 * written once per call. */
static double zipfft_bytes_per_corr(const tdm_case *c, int v) {
  double H = (double)c->height, W = (double)c->width, h = (double)c->template_size;
  double w = h, B = (double)c->batch, P = (double)(c->width / 2 + 1);
  double Ho = H - h + 1, Wo = W - w + 1;
  double spectrum = variants[v].spectrum == ZIPFFT_STORAGE_DEFAULT ? 8 : 4;
  double mid = variants[v].intermediate == ZIPFFT_STORAGE_DEFAULT ? 8 : 4;
  double signal_sum = h * w * 4 + 2.0 * 8.0 * h * w / B;
  double r2c = h * w * 4 + h * P * 8;
  double columns =
      h * P * 8 + H * P * spectrum / (double)zipfft__corr_signal_group(c->batch) + Ho * P * mid;
  double c2r = Ho * P * mid + 2.0 * 16.0 * Ho * Wo / B;
  return signal_sum + r2c + columns + c2r;
}

/* Writes the case's label, "WxH/t" (image width x height, template size). */
static void case_label(const tdm_case *c, char *buf, size_t len) {
  snprintf(buf, len, "%lldx%lld/%lld", (long long)c->width, (long long)c->height,
           (long long)c->template_size);
}

/* Correlations per second of a row's calls of ms milliseconds (0: not measured). */
static double corr_rate(const tdm_row *r, double ms) {
  return ms > 0 ? (double)r->spec->batch * 1e3 / ms : 0;
}

/* Prints one progress line for a measured row. */
static void print_progress(const tdm_row *r) {
  char label[48];
  case_label(r->spec, label, sizeof label);
  printf("%-15s %s batch %2lld: zipfft %9.3f ms/call (%8.1f corr/s)", label,
         variants[r->variant].name, (long long)r->spec->batch, r->zipfft_ms,
         corr_rate(r, r->zipfft_ms));
  if (r->cufft_ms > 0)
    printf("  cuFFT pipeline %9.3f ms/call (%8.1f corr/s)", r->cufft_ms, corr_rate(r, r->cufft_ms));
  if (r->cufft_plain_ms > 0)
    printf("  without statistics %9.3f ms/call (%8.1f corr/s)", r->cufft_plain_ms,
           corr_rate(r, r->cufft_plain_ms));
  if (r->cufft_ffts_ms > 0)
    printf("  R2C, multiply and C2R alone %9.3f ms/call (%8.1f corr/s)", r->cufft_ffts_ms,
           corr_rate(r, r->cufft_ffts_ms));
  if (r->cufft_lean_ms > 0)
    printf("  lean pipeline %9.3f ms/call (%8.1f corr/s)", r->cufft_lean_ms,
           corr_rate(r, r->cufft_lean_ms));
  if (r->compared)
    printf("  vs cuFFT: max rel L2 %.2e, argmax agreement %.4f%%", r->check_l2,
           100.0 * r->check_agreement);
  if (r->lean_compared) printf("  vs lean: %.2e, %.4f%%", r->lean_l2, 100.0 * r->lean_agreement);
  printf("%s\n", r->failed ? "  FAILED" : "");
  fflush(stdout);
}

/* Times the cuFFT pipeline on d without its statistics kernel into the first row's
 * cufft_plain_ms, its R2C, multiply and C2R alone into cufft_ffts_ms, then (statistics
 * reset) the lean pipeline into cufft_lean_ms and the whole pipeline into cufft_ms, and,
 * when check is set, runs the check against the fp32 plan corr[0] and compares the other
 * variants' plans (those kept) with both pipelines too. Returns 1 on success. */
static int run_cufft_side(tdm_context *ctx, const tdm_data *d, zipfft_corr *corr, int check,
                          tdm_row **row) {
  cufft_pipeline p;
  pipeline_job job = {d, &p};
  int ok = pipeline_open(ctx, d, &p) &&
           time_calls(ctx, plain_pipeline_runner, &job, &row[0]->cufft_plain_ms) &&
           time_calls(ctx, ffts_runner, &job, &row[0]->cufft_ffts_ms) &&
           pipeline_reset(ctx, d, &p) &&
           time_calls(ctx, lean_pipeline_runner, &job, &row[0]->cufft_lean_ms) &&
           pipeline_reset(ctx, d, &p) && time_calls(ctx, pipeline_runner, &job, &row[0]->cufft_ms);
  if (!ok)
    row[0]->cufft_ms = row[0]->cufft_plain_ms = row[0]->cufft_ffts_ms = row[0]->cufft_lean_ms = 0;
  if (ok && check && corr[0]) run_check(ctx, d, corr[0], &p, row[0]);
  for (int v = 1; ok && check && v < VARIANT_COUNT; v++)
    if (corr[v]) compare_with_both(ctx, d, corr[v], &p, row[v]);
  pipeline_close(ctx, &p);
  return ok;
}

/* Measures one case: zipfft in each variant that has a row, then the cuFFT pipeline, then
 * the check when asked. Fills the case's rows and prints them. */
static void run_case(tdm_context *ctx, const tdm_case *c, tdm_row *rows, int count, int check) {
  tdm_row *row[VARIANT_COUNT];
  zipfft_corr corr[VARIANT_COUNT] = {NULL};
  tdm_data d;
  for (int v = 0; v < VARIANT_COUNT; v++) row[v] = find_row(rows, count, c, v);
  data_shape(c, &d);
  if (check) {
    snprintf(ctx->check_problem, sizeof ctx->check_problem,
             "%lldx%lld image, %lld templates of %lldx%lld", (long long)d.W, (long long)d.H,
             (long long)d.B, (long long)d.h, (long long)d.w);
    ctx->check_state = ctx->have_cufft ? CHECK_FAIL : CHECK_SKIPPED;
  }
  row[0]->failed = !data_upload(ctx, &d) || !time_zipfft(ctx, &d, 0, &corr[0], &row[0]->zipfft_ms);
  for (int v = 1; v < VARIANT_COUNT; v++)
    if (row[v])
      row[v]->failed = ctx->dev.failed || !time_zipfft(ctx, &d, v, &corr[v], &row[v]->zipfft_ms);
  for (int v = 0; v < VARIANT_COUNT; v++)
    if (corr[v] && (!check || row[v]->failed)) { /* only the check needs the plans further */
      zipfft_corr_destroy(corr[v]);
      corr[v] = NULL;
    }
  if (ctx->have_cufft && !ctx->dev.failed && d.templates)
    row[0]->failed |= !run_cufft_side(ctx, &d, corr, check, row);
  for (int v = 0; v < VARIANT_COUNT; v++) {
    zipfft_corr_destroy(corr[v]);
    if (row[v])
      row[v]->cufft_ms = row[0]->cufft_ms, row[v]->cufft_plain_ms = row[0]->cufft_plain_ms,
      row[v]->cufft_ffts_ms = row[0]->cufft_ffts_ms, row[v]->cufft_lean_ms = row[0]->cufft_lean_ms;
  }
  data_free(ctx, &d);
  for (int v = 0; v < VARIANT_COUNT; v++)
    if (row[v]) print_progress(row[v]);
  if (check) print_check(ctx, row[0]);
}

/* ------------------------------------------------------------------------------------------
 * Reporting.
 * ------------------------------------------------------------------------------------------ */

enum {
  COL_PROBLEM,
  COL_SPECTRUM,
  COL_BATCH,
  COL_ZIPFFT,
  COL_CUFFT,
  COL_CUFFT_PLAIN,
  COL_RATIO,
  COL_CUFFT_LEAN,
  COL_RATIO_LEAN,
  COL_MB,
  COL_PCT,
  COL_L2,
  COLUMN_COUNT
};

static const zipfft_tool_column columns[COLUMN_COUNT] = {
    {"problem (WxH/t)", 15}, {"storage", 8},         {"batch", 5},         {"zipfft corr/s", 13},
    {"cuFFT corr/s", 12},    {"cuFFT no stats", 14}, {"zipfft/cuFFT", 12}, {"cuFFT lean", 10},
    {"zipfft/lean", 11},     {"MB/corr", 8},         {"% copy BW", 9},     {"max L2 vs cuFFT", 15},
};

typedef zipfft_tool_cell row_cells[COLUMN_COUNT];

/* Formats the cells of a row; "-" where a value was not measured. */
static void format_row(const tdm_row *r, double copy_gbps, row_cells cells) {
  double bytes = zipfft_bytes_per_corr(r->spec, r->variant);
  double zipfft = corr_rate(r, r->zipfft_ms), cufft = corr_rate(r, r->cufft_ms);
  double plain = corr_rate(r, r->cufft_plain_ms), lean = corr_rate(r, r->cufft_lean_ms);
  case_label(r->spec, cells[COL_PROBLEM], ZIPFFT_TOOL_CELL_LEN);
  snprintf(cells[COL_SPECTRUM], ZIPFFT_TOOL_CELL_LEN, "%s", variants[r->variant].name);
  snprintf(cells[COL_BATCH], ZIPFFT_TOOL_CELL_LEN, "%lld", (long long)r->spec->batch);
  zipfft_tool_format_number(cells[COL_ZIPFFT], zipfft, 1, zipfft > 0);
  zipfft_tool_format_number(cells[COL_CUFFT], cufft, 1, cufft > 0);
  zipfft_tool_format_number(cells[COL_CUFFT_PLAIN], plain, 1, plain > 0);
  zipfft_tool_format_number(cells[COL_RATIO], zipfft / cufft, 2, zipfft > 0 && cufft > 0);
  zipfft_tool_format_number(cells[COL_CUFFT_LEAN], lean, 1, lean > 0);
  zipfft_tool_format_number(cells[COL_RATIO_LEAN], zipfft / lean, 2, zipfft > 0 && lean > 0);
  zipfft_tool_format_number(cells[COL_MB], bytes / 1e6, 2, 1);
  zipfft_tool_format_number(cells[COL_PCT], 100.0 * bytes * zipfft / (copy_gbps * 1e9), 1,
                            zipfft > 0 && copy_gbps > 0);
  if (r->compared)
    snprintf(cells[COL_L2], ZIPFFT_TOOL_CELL_LEN, "%.2e", r->check_l2);
  else
    snprintf(cells[COL_L2], ZIPFFT_TOOL_CELL_LEN, "-");
  if (r->failed) snprintf(cells[COL_ZIPFFT], ZIPFFT_TOOL_CELL_LEN, "FAILED");
}

/* Prints the environment: GPU, driver, cuFFT and the timing method. */
static void print_environment(const tdm_context *ctx) {
  printf("zipfft bench-2dtm on device %d: %s (%s), CUDA driver %d.%d\n", ctx->dev.ordinal,
         ctx->dev.name, ctx->dev.arch, ctx->dev.driver_version / 1000,
         ctx->dev.driver_version % 1000 / 10);
  if (ctx->have_cufft)
    printf("cuFFT %d.%d.%d (%s)\n", ctx->cufft_version / 1000, ctx->cufft_version % 1000 / 100,
           ctx->cufft_version % 100, ctx->cufft.library_name);
  else
    printf("cuFFT pipeline: - (%s); running zipfft only\n", ctx->cufft_why);
  printf(
      "timing: median of %d windows of %d calls after %d warm-up calls, CUDA events;\n"
      "corr/s = batch / time per call\n\n",
      WINDOWS, CALLS_PER_WINDOW, WARMUP_CALLS);
}

/* Prints the final table. */
static void print_final_table(const tdm_context *ctx, const tdm_row *rows, int count) {
  row_cells cells;
  printf(
      "\nsummary (copy bandwidth %.1f GB/s; zipfft/cuFFT > 1 means zipfft is faster; MB/corr\n"
      "is zipfft's modelled traffic per correlation, %% copy BW = MB/corr x corr/s / copy)\n",
      ctx->copy_gbps);
  zipfft_tool_format_header(columns, COLUMN_COUNT, cells);
  zipfft_tool_print_cells(columns, COLUMN_COUNT, cells);
  for (int i = 0; i < count; i++) {
    format_row(&rows[i], ctx->copy_gbps, cells);
    zipfft_tool_print_cells(columns, COLUMN_COUNT, cells);
  }
  printf("check (%s): %s\n", ctx->check_problem, check_verdicts[ctx->check_state]);
}

/* Writes the Markdown preamble (GPU, driver, cuFFT, date, copy bandwidth, method). */
static void write_markdown_preamble(FILE *f, const tdm_context *ctx) {
  char date[64] = "unknown date";
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc)) strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &utc);
  fprintf(f, "# zipfft 2DTM benchmark\n\n- GPU: %s (device %d, %s)\n- CUDA driver: %d.%d\n",
          ctx->dev.name, ctx->dev.ordinal, ctx->dev.arch, ctx->dev.driver_version / 1000,
          ctx->dev.driver_version % 1000 / 10);
  if (ctx->have_cufft)
    fprintf(f, "- cuFFT: %d.%d.%d\n", ctx->cufft_version / 1000, ctx->cufft_version % 1000 / 100,
            ctx->cufft_version % 100);
  else
    fprintf(f, "- cuFFT pipeline: not available (%s)\n", ctx->cufft_why);
  fprintf(f, "- Date: %s\n- Device-to-device copy bandwidth: %.1f GB/s (read + write)\n", date,
          ctx->copy_gbps);
  fprintf(f,
          "- Timing: median of %d windows of %d calls after %d warm-up calls (CUDA events); "
          "corr/s = batch / time per call\n"
          "- zipfft: zipfft_corr (CORRELATE, VALID, F32), zipfft_corr_accumulate per call; "
          "storage: f32 everywhere, or the kept image spectrum in F16 (spectrum_storage), the "
          "array between the fused and the statistics kernel in F16 or BF16 "
          "(intermediate_storage), or both in F16\n"
          "- max L2 vs cuFFT: relative L2 difference of the max maps after one batch (checked "
          "cases)\n"
          "- cuFFT pipeline: pad, R2C, conjugate multiply, C2R, crop, statistics kernel; "
          "cuFFT no stats: the same without the statistics kernel (zipfft/cuFFT is to the "
          "whole pipeline); the progress lines also time its R2C, multiply and C2R alone\n"
          "- cuFFT lean: the same work as a careful cuFFT user would arrange it: the templates "
          "written into the corners of arrays whose zeros are kept (no pad pass), R2C, "
          "conjugate multiply, C2R into a second array, and the statistics kernel reading the "
          "valid region in place (no crop pass); zipfft/lean is to it\n"
          "- MB/corr: zipfft's modelled traffic per correlation (the signals' running sum, R2C "
          "pass, fused column pass with the spectrum read once per group of up to 16 signals, "
          "C2R pass with the statistics once per call)\n"
          "- Check (%s): %s\n\n",
          WINDOWS, CALLS_PER_WINDOW, WARMUP_CALLS, ctx->check_problem,
          check_verdicts[ctx->check_state]);
}

/* Writes the results as Markdown to path. Returns 1 on success (prints the failure). */
static int write_markdown(const tdm_context *ctx, const tdm_row *rows, int count,
                          const char *path) {
  row_cells cells;
  FILE *f = fopen(path, "w");
  if (!f) {
    printf("bench-2dtm: cannot write %s\n", path);
    return 0;
  }
  write_markdown_preamble(f, ctx);
  zipfft_tool_write_markdown_header(f, columns, COLUMN_COUNT, COL_SPECTRUM + 1);
  for (int i = 0; i < count; i++) {
    format_row(&rows[i], ctx->copy_gbps, cells);
    zipfft_tool_write_markdown_cells(f, COLUMN_COUNT, cells);
  }
  if (fclose(f) != 0) {
    printf("bench-2dtm: error writing %s\n", path);
    return 0;
  }
  printf("\nwrote %s\n", path);
  return 1;
}

/* ------------------------------------------------------------------------------------------
 * The subcommand.
 * ------------------------------------------------------------------------------------------ */

/* Runs every selected case; skips the rest once a driver call failed. Returns the number of
 * rows that failed. */
static int run_cases(tdm_context *ctx, const tdm_options *opt, tdm_row *rows, int count) {
  int bad = 0;
  for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
    if (!case_selected(opt, &cases[i])) continue;
    if (ctx->dev.failed) {
      for (int r = 0; r < count; r++) rows[r].failed |= rows[r].spec == &cases[i];
      continue;
    }
    run_case(ctx, &cases[i], rows, count, case_checked(opt, &cases[i]));
  }
  if (ctx->dev.failed) printf("bench-2dtm: a driver call failed; remaining cases skipped\n");
  for (int r = 0; r < count; r++) bad += rows[r].failed;
  return bad;
}

/* Runs every measurement on the open device, writes the Markdown file and prints the final
 * table. Returns ZIPFFT_TOOL_OK when everything succeeded and the check passed, else
 * ZIPFFT_TOOL_FAILED. */
static int run_session(tdm_context *ctx, const tdm_options *opt, tdm_row *rows, int count) {
  int ok, bad = 0;
  load_cufft_pipeline(ctx);
  print_environment(ctx);
  ok = create_events(ctx) && measure_copy_bandwidth(ctx);
  if (ok) {
    bad = run_cases(ctx, opt, rows, count);
    if (opt->common.md_path && !write_markdown(ctx, rows, count, opt->common.md_path)) ok = 0;
  }
  destroy_events(ctx);
  unload_cufft_pipeline(ctx);
  if (!ok && !ctx->copy_gbps) return ZIPFFT_TOOL_FAILED;
  if (bad) printf("\nbench-2dtm: %d row(s) failed\n", bad);
  print_final_table(ctx, rows, count);
  return ok && !bad && !ctx->dev.failed && ctx->check_state != CHECK_FAIL ? ZIPFFT_TOOL_OK
                                                                          : ZIPFFT_TOOL_FAILED;
}

/* The `zipfft bench-2dtm` subcommand (contract in bench_2dtm.h). */
int zipfft_tool_bench_2dtm(int argc, char **argv) {
  tdm_options opt;
  tdm_context ctx;
  tdm_row rows[VARIANT_COUNT * ARRAY_LEN(cases)];
  int count, rc = zipfft_tool_parse_options(tool_name, argc, argv, option_specs,
                                            ARRAY_LEN(option_specs), &opt, sizeof opt, print_usage);
  if (rc == ZIPFFT_TOOL_HELP) return ZIPFFT_TOOL_OK;
  if (rc != ZIPFFT_TOOL_OK) return rc;
  count = build_rows(&opt, rows);
  memset(&ctx, 0, sizeof ctx);
  snprintf(ctx.check_problem, sizeof ctx.check_problem, "not reached");
  rc = zipfft_tool_device_open(&ctx.dev, tool_name, opt.common.device);
  if (rc == ZIPFFT_TOOL_OK) rc = run_session(&ctx, &opt, rows, count);
  zipfft_tool_device_close(&ctx.dev);
  return rc;
}
