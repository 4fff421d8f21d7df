/* device.c - host or CUDA-device execution of plans on guarded test buffers. */
#include "device.h"

#include <stdlib.h>
#include <string.h>

#include "api/plan_internal.h"
#include "backend/backend.h"
#include "backend/cuda_api.h"

static int cuda_state;               /* 0 not tried, 1 ready, -1 failed */
static const zipfft__cuda_api *cuda; /* driver entry points once ready */

/* A device copy of a zt_buffer's region: data mirrors the host data pointer. */
typedef struct zt_mirror {
  CUdeviceptr alloc;
  CUdeviceptr data;
} zt_mirror;

zt_backend_kind zt_backend(void) {
  const char *s = getenv("ZIPFFT_TEST_BACKEND");
  if (!s || !*s || strcmp(s, "cpu") == 0) return ZT_BACKEND_CPU;
  if (strcmp(s, "cuda") == 0) return ZT_BACKEND_CUDA;
  fprintf(stderr, "ZIPFFT_TEST_BACKEND=%s: expected cpu or cuda\n", s);
  exit(2);
}

const char *zt_backend_name(void) { return zt_backend() == ZT_BACKEND_CUDA ? "cuda" : "cpu"; }

zipfft_backend zt_zipfft_backend(void) {
  return zt_backend() == ZT_BACKEND_CUDA ? ZIPFFT_BACKEND_CUDA : ZIPFFT_BACKEND_CPU;
}

/* Returns 1 when a driver call succeeded; else prints what failed and counts a failure. */
static int cuda_ok(CUresult r, const char *what) {
  if (r == 0) return 1;
  fprintf(stderr, "test device: %s failed: %s\n", what, zipfft__cuda_error_text(r));
  zt_failures++;
  return 0;
}

/* Loads the driver and makes device 0's primary context current on this thread. */
static int cuda_open(void) {
  CUdevice dev = 0;
  CUcontext ctx = NULL;
  cuda = zipfft__cuda_api_get();
  if (!cuda) {
    fprintf(stderr, "test device: ZIPFFT_TEST_BACKEND=cuda but the CUDA driver did not load\n");
    zt_failures++;
    return 0;
  }
  return cuda_ok(cuda->cuDeviceGet(&dev, 0), "cuDeviceGet(0)") &&
         cuda_ok(cuda->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") &&
         cuda_ok(cuda->cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
}

int zt_device_ready(void) {
  if (zt_backend() == ZT_BACKEND_CPU) return 1;
  if (cuda_state == 0) cuda_state = cuda_open() ? 1 : -1;
  return cuda_state == 1;
}

/* Allocates a mirror of b (same data alignment modulo 64) and copies the whole region,
 * guards included, to it. Returns 1 on success. */
static int mirror_upload(const zt_buffer *b, zt_mirror *m) {
  size_t span = b->bytes + 2 * b->guard;
  if (!cuda_ok(cuda->cuMemAlloc(&m->alloc, span + 128), "cuMemAlloc")) return 0;
  m->data = ((m->alloc + b->guard + 63) & ~(CUdeviceptr)63) + ((uintptr_t)b->data & 63);
  return cuda_ok(cuda->cuMemcpyHtoD(m->data - b->guard, b->data - b->guard, span), "cuMemcpyHtoD");
}

/* Copies a mirror's whole region back over the host buffer. Returns 1 on success. */
static int mirror_download(zt_buffer *b, const zt_mirror *m) {
  size_t span = b->bytes + 2 * b->guard;
  return cuda_ok(cuda->cuMemcpyDtoH(b->data - b->guard, m->data - b->guard, span), "cuMemcpyDtoH");
}

/* Frees a mirror (nothing when it was never allocated). */
static void mirror_free(zt_mirror *m) {
  if (m->alloc) cuda->cuMemFree(m->alloc);
  m->alloc = m->data = 0;
}

/* zt_execute for a CUDA plan: mirror, run, synchronise, copy back. */
static zipfft_status execute_on_device(zipfft_plan p, zt_buffer *in, zt_buffer *out, void *stream) {
  zt_mirror mi = {0, 0}, mo = {0, 0};
  int separate = out && out != in;
  zipfft_status s = ZIPFFT_ERROR_CUDA_FAILED;
  if (!zt_device_ready()) return s;
  int ok = (!in || mirror_upload(in, &mi)) && (!separate || mirror_upload(out, &mo));
  if (ok) {
    void *pin = in ? (void *)(uintptr_t)mi.data : NULL;
    void *pout = !out ? NULL : separate ? (void *)(uintptr_t)mo.data : pin;
    s = zipfft_execute(p, pin, pout, stream);
    ok = cuda_ok(cuda->cuCtxSynchronize(), "cuCtxSynchronize after zipfft_execute") &&
         (!in || mirror_download(in, &mi)) && (!separate || mirror_download(out, &mo));
  }
  mirror_free(&mi);
  mirror_free(&mo);
  return ok ? s : ZIPFFT_ERROR_CUDA_FAILED;
}

zipfft_status zt_execute(zipfft_plan p, zt_buffer *in, zt_buffer *out, void *stream) {
  zipfft_backend b = ZIPFFT_BACKEND_CPU;
  if (p && zipfft_plan_backend(p, &b) == ZIPFFT_SUCCESS && b == ZIPFFT_BACKEND_CUDA)
    return execute_on_device(p, in, out, stream);
  return zipfft_execute(p, in ? in->data : NULL, out ? out->data : NULL, stream);
}

void *zt_mem_alloc(size_t bytes) {
  if (zt_backend() == ZT_BACKEND_CPU) return malloc(bytes ? bytes : 1);
  CUdeviceptr p = 0;
  if (!zt_device_ready() || !cuda_ok(cuda->cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc"))
    return NULL;
  return (void *)(uintptr_t)p;
}

int zt_mem_upload(void *dst, const void *src, size_t bytes) {
  if (zt_backend() == ZT_BACKEND_CPU) return memcpy(dst, src, bytes) != NULL;
  return cuda_ok(cuda->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes), "cuMemcpyHtoD");
}

int zt_mem_download(void *dst, const void *src, size_t bytes) {
  if (zt_backend() == ZT_BACKEND_CPU) return memcpy(dst, src, bytes) != NULL;
  return cuda_ok(cuda->cuCtxSynchronize(), "cuCtxSynchronize") &&
         cuda_ok(cuda->cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes), "cuMemcpyDtoH");
}

void zt_mem_free(void *p) {
  if (!p) return;
  if (zt_backend() == ZT_BACKEND_CPU)
    free(p);
  else
    cuda->cuMemFree((CUdeviceptr)(uintptr_t)p);
}

size_t zt_backend_memory(void) {
  if (zt_backend() == ZT_BACKEND_CPU) return zt_host_memory();
  CUdevice dev = 0;
  size_t bytes = 0;
  if (!zt_device_ready() || !cuda_ok(cuda->cuDeviceGet(&dev, 0), "cuDeviceGet(0)") ||
      !cuda_ok(cuda->cuDeviceTotalMem(&bytes, dev), "cuDeviceTotalMem"))
    return 0;
  return bytes;
}

/* The quick tier compiles to CUBIN (NVRTC, then ptxas) every plan whose CUDA source holds
 * inline PTX, which only ptxas reads (about one kernel in nine of test_c2c's), and every
 * full_cuda_check_every-th of the others; the rest to PTX only, in about a quarter of the
 * time (most of a cold CPU run is compiling). The full tier compiles every plan to CUBIN. */
enum { full_cuda_check_every = 8 };

/* Whether a kernel of plan p carries inline PTX in its CUDA source. */
static int has_inline_ptx(zipfft_plan p) {
  char *text = NULL;
  int found = zipfft__plan_sources(p, 1, &text) == ZIPFFT_SUCCESS && text &&
              (strstr(text, "asm(") || strstr(text, "asm volatile("));
  free(text);
  return found;
}

zipfft_status zt_plan_check_cuda(zipfft_plan p) {
  static int checked;
  zipfft_backend backend = ZIPFFT_BACKEND_AUTO;
  zipfft_plan_backend(p, &backend);
  if (backend != ZIPFFT_BACKEND_CPU || !zipfft__nvrtc_available()) return ZIPFFT_SUCCESS;
  int full = zt_full_tier() || has_inline_ptx(p) || checked++ % full_cuda_check_every == 0;
  return full ? zipfft__plan_check_cuda(p, "sm_90") : zipfft__plan_check_cuda_source(p, "sm_90");
}

void zt_check_cuda_source(zipfft_plan p, const char *text) {
  zipfft_status s = zt_plan_check_cuda(p);
  ZT_CHECK(s == ZIPFFT_SUCCESS, "%s: NVRTC: %s", text, zipfft_last_error());
}
