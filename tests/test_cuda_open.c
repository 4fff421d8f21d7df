/* test_cuda_open.c - the CUDA backend opens or fails cleanly; with a GPU it runs a kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cache.h"
#include "backend/cuda.h"
#include "backend/cuda_api.h"
#include "test_util.h"

enum { fill_count = 1000, big_shared = 64 * 1024 };

/* Writes value + i into out[i]; uses (and checks) more than 48 KiB of dynamic shared memory
 * when launched with it. */
static const char fill_source[] =
    "extern \"C\" __global__ void zt_fill(float *out, float value, int n) {\n"
    "  extern __shared__ float scratch[];\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  scratch[threadIdx.x] = value + (float)i;\n"
    "  __syncthreads();\n"
    "  if (i < n) out[i] = scratch[threadIdx.x];\n"
    "}\n";

/* Copies device memory back to the host inside the device's primary context. */
static int download(int device, void *dst, const void *src, size_t bytes) {
  const zipfft__cuda_api *cu = zipfft__cuda_api_get();
  CUdevice dev;
  CUcontext ctx, popped;
  if (!cu || cu->cuDeviceGet(&dev, device) != 0) return 0;
  if (cu->cuDevicePrimaryCtxRetain(&ctx, dev) != 0) return 0;
  int ok = cu->cuCtxPushCurrent(ctx) == 0;
  if (ok) {
    ok = cu->cuCtxSynchronize() == 0 &&
         cu->cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes) == 0;
    cu->cuCtxPopCurrent(&popped);
  }
  cu->cuDevicePrimaryCtxRelease(dev);
  return ok;
}

/* Compiles zt_fill, launches it on the default stream and checks the result. */
static void run_fill_kernel(zipfft__backend *b, int device) {
  const zipfft__backend_ops *ops = b->ops;
  zipfft__kernel_source src = {"zt_fill", fill_source, 256, big_shared, 1};
  void *kernel = NULL, *out = NULL;
  ZT_OK(ops->compile(b, &src, &kernel));
  ZT_OK(ops->alloc(b, fill_count * sizeof(float), &out));
  static float host[fill_count];
  memset(host, 0, sizeof host);
  ZT_OK(ops->upload(b, out, host, sizeof host));
  float value = 0.5f;
  int n = fill_count;
  void *args[] = {&out, &value, &n};
  zipfft__launch launch = {(fill_count + 255) / 256, 256, big_shared, NULL, args};
  if (kernel && out) ZT_OK(ops->launch(b, kernel, &launch));
  zipfft__launch bad_launch = {1, 4096, 0, NULL, args}; /* more threads than a block holds */
  if (kernel) ZT_CHECK_STATUS(ops->launch(b, kernel, &bad_launch), ZIPFFT_ERROR_CUDA_FAILED);
  ZT_CHECK(strstr(zipfft_last_error(), "cuLaunchKernel(zt_fill)") != NULL, "detail: %s",
           zipfft_last_error());
  ZT_CHECK(download(device, host, out, sizeof host), "download failed");
  int wrong = 0;
  for (int i = 0; i < fill_count; i++) wrong += host[i] != value + (float)i;
  ZT_CHECK(wrong == 0, "%d of %d values wrong", wrong, fill_count);
  zipfft__kernel_source too_big = {"zt_fill", fill_source, 256, ops->max_shared_bytes(b) + 1, 1};
  void *unused = NULL;
  ZT_CHECK(ops->compile(b, &too_big, &unused) != ZIPFFT_SUCCESS, "oversized shared accepted");
  ops->free(b, out);
  if (kernel) ops->release_kernel(b, kernel);
}

/* Device 0 of an opened backend: name, SM count, arch-dependent limits, a kernel run. */
static void exercise_device(zipfft__backend *b) {
  char name[256] = "";
  int sm_count = 0;
  ZT_CHECK(strcmp(b->ops->name, "cuda") == 0, "backend name %s", b->ops->name);
  ZT_OK(zipfft__cuda_device_info(b, name, sizeof name, &sm_count));
  ZT_CHECK(name[0] != '\0' && sm_count > 0, "device info: '%s', %d SMs", name, sm_count);
  ZT_CHECK(b->ops->max_shared_bytes(b) >= 48 * 1024, "max shared %zu", b->ops->max_shared_bytes(b));
  printf("device 0: %s, %d SMs, %zu bytes of shared memory per block\n", name, sm_count,
         b->ops->max_shared_bytes(b));
  run_fill_kernel(b, 0);
}

/* Opens device 0: success, or a driver/device failure with a detail. */
static void test_open_device0(void) {
  zipfft__backend *b = NULL;
  zipfft_status s = zipfft__cuda_open(0, &b);
  if (s == ZIPFFT_SUCCESS) {
    ZT_CHECK(b != NULL, "success without a backend");
    ZT_CHECK(zipfft__cuda_device_usable(0), "opened device 0 is not usable");
    if (b) {
      exercise_device(b);
      b->ops->close(b);
    }
    return;
  }
  ZT_CHECK(s == ZIPFFT_ERROR_NO_CUDA_DRIVER || s == ZIPFFT_ERROR_NO_CUDA_DEVICE,
           "unexpected status %s (%s)", zipfft_status_name(s), zipfft_last_error());
  ZT_CHECK(zipfft_last_error()[0] != '\0', "no detail for %s", zipfft_status_name(s));
  ZT_CHECK(b == NULL, "backend set on failure");
  ZT_CHECK(!zipfft__cuda_device_usable(0), "device 0 usable but open failed");
  printf("CUDA backend not available: %s (%s)\n", zipfft_status_name(s), zipfft_last_error());
}

/* Ordinals that cannot exist never open. */
static void test_bad_ordinals(void) {
  static const int bad[] = {-1, 100000};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    zipfft__backend *b = NULL;
    zipfft_status s = zipfft__cuda_open(bad[i], &b);
    ZT_CHECK(s != ZIPFFT_SUCCESS, "device %d opened", bad[i]);
    ZT_CHECK(s == ZIPFFT_ERROR_NO_CUDA_DRIVER || s == ZIPFFT_ERROR_NO_CUDA_DEVICE, "device %d: %s",
             bad[i], zipfft_status_name(s));
    ZT_CHECK(zipfft_last_error()[0] != '\0', "no detail for device %d", bad[i]);
    ZT_CHECK(!zipfft__cuda_device_usable(bad[i]), "device %d usable", bad[i]);
    if (s == ZIPFFT_SUCCESS && b) b->ops->close(b);
  }
  ZT_CHECK_STATUS(zipfft__cuda_open(0, NULL), ZIPFFT_ERROR_NULL_POINTER);
}

int main(void) {
  test_open_device0();
  test_bad_ordinals();
  ZT_CHECK(strlen(zipfft__cuda_error_text(2)) > 0, "empty error text");
  zipfft__cache_clear_memory();
  return zt_finish("test_cuda_open", 3);
}
