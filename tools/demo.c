/* demo.c - `zipfft demo`: plan, run, verify against a long-double DFT, report throughput. */
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_api.h"
#include "reference.h"
#include "tool_common.h"
#include "zipfft.h"

typedef struct demo_case {
  zipfft_precision precision;
  int64_t n;
} demo_case;

static const demo_case cases[] = {
    {ZIPFFT_F32, 64},   {ZIPFFT_F32, 256},  {ZIPFFT_F32, 1000},
    {ZIPFFT_F32, 1024}, {ZIPFFT_F32, 2187}, {ZIPFFT_F32, 3125},
    {ZIPFFT_F32, 4096}, {ZIPFFT_F64, 1024}, {ZIPFFT_F64, 2048},
};

/* Where the data lives: host buffers, mirrored on the device for a CUDA plan. */
typedef struct demo_buffers {
  const zipfft__cuda_api *cu;
  CUdeviceptr d_in, d_out;
  void *in, *out;
  size_t bytes;
} demo_buffers;

/* Fills the input with deterministic values in [-0.5, 0.5). */
static void fill_input(demo_buffers *b, zipfft_precision prec) {
  size_t reals = b->bytes / (prec == ZIPFFT_F32 ? 4 : 8);
  uint64_t state = 0x2545F4914F6CDD1Dull;
  for (size_t i = 0; i < reals; i++) {
    double v = (double)(zipfft_tool_next_random(&state) >> 11) * 0x1.0p-53 - 0.5;
    if (prec == ZIPFFT_F32)
      ((float *)b->in)[i] = (float)v;
    else
      ((double *)b->in)[i] = v;
  }
}

/* Relative L2 error of transform `index` of the batch against the reference DFT. */
static double check_one(const demo_buffers *b, zipfft_precision prec, int64_t n, int64_t index) {
  long double *x = zr_alloc_pairs((size_t)n), *y = zr_alloc_pairs((size_t)n);
  double *got = malloc((size_t)n * 2 * sizeof *got);
  for (int64_t i = 0; i < 2 * n; i++) {
    size_t at = (size_t)(index * n * 2 + i);
    x[i] = prec == ZIPFFT_F32 ? ((float *)b->in)[at] : ((double *)b->in)[at];
    got[i] = prec == ZIPFFT_F32 ? ((float *)b->out)[at] : ((double *)b->out)[at];
  }
  zr_dft(x, y, n, -1);
  double err = zr_rel_l2(y, got, (size_t)n);
  free(x);
  free(y);
  free(got);
  return err;
}

/* Executes `runs` times and returns the seconds per run (device work included). */
static double time_runs(zipfft_plan p, const demo_buffers *b, int runs) {
  const void *in = b->cu ? (const void *)(uintptr_t)b->d_in : b->in;
  void *out = b->cu ? (void *)(uintptr_t)b->d_out : b->out;
  double start = zipfft_tool_seconds();
  for (int r = 0; r < runs; r++)
    if (zipfft_execute(p, in, out, NULL) != ZIPFFT_SUCCESS) return -1;
  if (b->cu && b->cu->cuCtxSynchronize() != 0) return -1;
  return (zipfft_tool_seconds() - start) / runs;
}

/* Allocates host (and device) buffers for one case; 0 on failure. */
static int alloc_buffers(demo_buffers *b, size_t bytes) {
  b->bytes = bytes;
  b->in = malloc(bytes);
  b->out = malloc(bytes);
  if (!b->in || !b->out) return 0;
  if (!b->cu) return 1;
  return b->cu->cuMemAlloc(&b->d_in, bytes) == 0 && b->cu->cuMemAlloc(&b->d_out, bytes) == 0;
}

static void free_buffers(demo_buffers *b) {
  free(b->in);
  free(b->out);
  if (b->cu && b->d_in) b->cu->cuMemFree(b->d_in);
  if (b->cu && b->d_out) b->cu->cuMemFree(b->d_out);
  b->in = b->out = NULL;
  b->d_in = b->d_out = 0;
}

/* Plans, runs, checks and times one case; prints a row; returns 1 when it passed. */
static int run_case(const demo_case *c, const zipfft__cuda_api *cu, int64_t elements) {
  int64_t batch = elements / c->n;
  size_t bytes = (size_t)(batch * c->n) * 2 * (c->precision == ZIPFFT_F32 ? 4 : 8);
  zipfft_plan p = NULL;
  demo_buffers b = {.cu = cu};
  double t0 = zipfft_tool_seconds();
  zipfft_status s = zipfft_plan_1d(&p, c->precision, c->n, batch, ZIPFFT_FORWARD);
  double plan_ms = 1e3 * (zipfft_tool_seconds() - t0);
  int ok = s == ZIPFFT_SUCCESS && alloc_buffers(&b, bytes);
  if (ok) fill_input(&b, c->precision);
  if (ok && cu) ok = cu->cuMemcpyHtoD(b.d_in, b.in, bytes) == 0;
  double seconds = ok ? time_runs(p, &b, 1) : -1;
  if (ok && cu) ok = cu->cuMemcpyDtoH(b.out, b.d_out, bytes) == 0;
  double worst = 0;
  for (int64_t i = 0; ok && seconds >= 0 && i < batch; i += batch / 3 + 1) {
    double e = check_one(&b, c->precision, c->n, i);
    worst = e > worst || isnan(e) ? e : worst;
  }
  if (seconds >= 0) seconds = time_runs(p, &b, cu ? 20 : 3);
  double gate = 10 * (c->precision == ZIPFFT_F32 ? 0x1p-24 : 0x1p-53) * sqrt(log2((double)c->n));
  int pass = ok && seconds > 0 && worst <= gate;
  printf("%-4s %6lld %9lld %9.1f %11.3e %10.2f  %s\n", c->precision == ZIPFFT_F32 ? "f32" : "f64",
         (long long)c->n, (long long)batch, plan_ms, worst,
         pass ? 2.0 * bytes / seconds / 1e9 : 0.0,
         pass                  ? "ok"
         : s != ZIPFFT_SUCCESS ? zipfft_last_error()
                               : "FAILED");
  free_buffers(&b);
  zipfft_plan_destroy(p);
  return pass;
}

int zipfft_tool_demo(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  zipfft_plan probe = NULL;
  zipfft_backend backend = ZIPFFT_BACKEND_CPU;
  if (zipfft_plan_1d(&probe, ZIPFFT_F32, 2, 1, ZIPFFT_FORWARD) == ZIPFFT_SUCCESS)
    zipfft_plan_backend(probe, &backend);
  zipfft_plan_destroy(probe);
  const zipfft__cuda_api *cu = backend == ZIPFFT_BACKEND_CUDA ? zipfft__cuda_api_get() : NULL;
  CUdevice device = 0;
  CUcontext context = NULL;
  if (cu &&
      (cu->cuDeviceGet(&device, 0) != 0 || cu->cuDevicePrimaryCtxRetain(&context, device) != 0 ||
       cu->cuCtxPushCurrent(context) != 0)) {
    fprintf(stderr, "zipfft demo: cannot make device 0's primary context current\n");
    return 1;
  }
  int64_t elements = cu ? (int64_t)1 << 26 : quick ? (int64_t)1 << 16 : (int64_t)1 << 20;
  printf(
      "zipfft demo: batched 1D C2C forward transforms on the %s backend, %lld complex "
      "elements each\n",
      cu ? "CUDA" : "CPU", (long long)elements);
  printf("prec      n     batch  plan(ms)   rel.error       GB/s  check\n");
  int failures = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    failures += !run_case(&cases[i], cu, elements);
  printf("%s: %d of %zu cases passed (error gate 10*u*sqrt(log2 n) against a long-double DFT)\n",
         failures ? "FAILED" : "OK", (int)(sizeof cases / sizeof *cases) - failures,
         sizeof cases / sizeof *cases);
  if (cu) {
    cu->cuCtxPopCurrent(&context);
    cu->cuDevicePrimaryCtxRelease(device);
  }
  return failures ? 1 : 0;
}
