/* cuda.c - the CUDA backend: NVRTC-compiled modules run on a device's primary context. */
#include "backend/cuda.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "backend/cuda_api.h"

/* Dynamic shared memory a kernel may use without opting in. */
enum { default_shared_limit = 48 * 1024, cuda_error_out_of_memory = 2 };

typedef struct cuda_backend {
  zipfft__backend base; /* first, so a zipfft__backend * converts back */
  const zipfft__cuda_api *cu;
  int ordinal;
  CUdevice device;
  CUcontext context; /* the device's primary context, retained while open */
  int cc_major, cc_minor, max_shared_optin, sm_count;
  int memory_clock_khz, memory_bus_bits; /* 0 where the driver does not tell */
  char arch[16];                         /* "sm_90" */
} cuda_backend;

typedef struct cuda_kernel {
  CUmodule module;
  CUfunction function;
  char name[128]; /* entry point, for error messages (truncated if longer) */
} cuda_kernel;

/* Device attributes read at open, and the field each one fills. An optional one (a
 * planning hint) is 0 where the driver does not tell; any other failure fails the open. */
typedef struct device_attribute {
  int attribute;
  const char *what;
  size_t offset;
  int optional;
} device_attribute;

static const device_attribute device_attributes[] = {
    {ZIPFFT_CU_ATTR_CC_MAJOR, "compute capability (major)", offsetof(cuda_backend, cc_major), 0},
    {ZIPFFT_CU_ATTR_CC_MINOR, "compute capability (minor)", offsetof(cuda_backend, cc_minor), 0},
    {ZIPFFT_CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN, "opt-in shared memory per block",
     offsetof(cuda_backend, max_shared_optin), 0},
    {ZIPFFT_CU_ATTR_MULTIPROCESSOR_COUNT, "multiprocessor count", offsetof(cuda_backend, sm_count),
     0},
    {ZIPFFT_CU_ATTR_MEMORY_CLOCK_RATE, "memory clock", offsetof(cuda_backend, memory_clock_khz), 1},
    {ZIPFFT_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH, "memory bus width",
     offsetof(cuda_backend, memory_bus_bits), 1},
};

static const zipfft__backend_ops cuda_ops;

/* The CUDA backend behind a generic handle (callers only pass handles from cuda_open). */
static cuda_backend *as_cuda(zipfft__backend *b) { return (cuda_backend *)b; }

/* SUCCESS when r is CUDA_SUCCESS, else records "call(subject): driver error" as status. */
static zipfft_status check_as(zipfft_status status, CUresult r, const char *call,
                              const char *subject) {
  if (r == 0) return ZIPFFT_SUCCESS;
  return zipfft__fail(status, "%s(%s) failed: %s", call, subject, zipfft__cuda_error_text(r));
}

/* check_as with the usual CUDA_FAILED status. */
static zipfft_status check(CUresult r, const char *call, const char *subject) {
  return check_as(ZIPFFT_ERROR_CUDA_FAILED, r, call, subject);
}

/* Makes the backend's primary context current on the calling thread. */
static CUresult push_context(cuda_backend *cb) { return cb->cu->cuCtxPushCurrent(cb->context); }

/* Undoes push_context. */
static void pop_context(cuda_backend *cb) {
  CUcontext popped;
  cb->cu->cuCtxPopCurrent(&popped);
}

/* With the context pushed: loads the module, finds the entry point and raises the dynamic
 * shared memory limit when needed. On failure nothing stays loaded. */
static zipfft_status load_kernel(cuda_backend *cb, const void *image,
                                 const zipfft__kernel_source *src, cuda_kernel *k) {
  const zipfft__cuda_api *cu = cb->cu;
  zipfft_status status =
      check(cu->cuModuleLoadData(&k->module, image), "cuModuleLoadData", k->name);
  if (status != ZIPFFT_SUCCESS) return status;
  status = check(cu->cuModuleGetFunction(&k->function, k->module, src->name), "cuModuleGetFunction",
                 k->name);
  if (status == ZIPFFT_SUCCESS && src->shared_bytes > default_shared_limit)
    status = check(cu->cuFuncSetAttribute(k->function, ZIPFFT_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED,
                                          (int)src->shared_bytes),
                   "cuFuncSetAttribute", k->name);
  if (status != ZIPFFT_SUCCESS) {
    cu->cuModuleUnload(k->module);
    k->module = NULL;
  }
  return status;
}

/* Compiles a kernel with NVRTC (through the cache) and loads it on the device. */
static zipfft_status cuda_compile(zipfft__backend *b, const zipfft__kernel_source *src,
                                  void **kernel) {
  cuda_backend *cb = as_cuda(b);
  if (!src || !src->text || !src->name || !kernel)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "cuda compile: NULL kernel source");
  if (src->shared_bytes > (size_t)cb->max_shared_optin)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL,
                        "kernel %s needs %zu bytes of shared memory; %s "
                        "allows %d",
                        src->name, src->shared_bytes, cb->arch, cb->max_shared_optin);
  void *image = NULL;
  size_t size = 0;
  zipfft_status status = zipfft__nvrtc_compile(src->text, src->name, cb->arch, &image, &size);
  if (status != ZIPFFT_SUCCESS) return status;
  cuda_kernel *k = calloc(1, sizeof *k);
  if (!k) {
    free(image);
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "could not allocate a kernel handle");
  }
  snprintf(k->name, sizeof k->name, "%s", src->name);
  status = check(push_context(cb), "cuCtxPushCurrent", k->name);
  if (status == ZIPFFT_SUCCESS) {
    status = load_kernel(cb, image, src, k);
    pop_context(cb);
  }
  free(image);
  if (status != ZIPFFT_SUCCESS) {
    free(k);
    return status;
  }
  *kernel = k;
  return ZIPFFT_SUCCESS;
}

/* Enqueues one launch on l->stream (1D grid and block) inside the primary context. */
static zipfft_status cuda_launch(zipfft__backend *b, void *kernel, const zipfft__launch *l) {
  cuda_backend *cb = as_cuda(b);
  cuda_kernel *k = kernel;
  if (!k || !l) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "cuda launch: NULL argument");
  if (l->shared_bytes > UINT_MAX)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "kernel %s: %zu bytes of shared memory", k->name,
                        l->shared_bytes);
  zipfft_status status = check(push_context(cb), "cuCtxPushCurrent", k->name);
  if (status != ZIPFFT_SUCCESS) return status;
  CUresult r =
      cb->cu->cuLaunchKernel(k->function, l->grid, 1, 1, l->block, 1, 1, (unsigned)l->shared_bytes,
                             (CUstream)l->stream, l->args, NULL);
  pop_context(cb);
  return check(r, "cuLaunchKernel", k->name);
}

/* Unloads a kernel's module and frees its handle; never records an error. */
static void cuda_release_kernel(zipfft__backend *b, void *kernel) {
  cuda_backend *cb = as_cuda(b);
  cuda_kernel *k = kernel;
  if (!k) return;
  int pushed = push_context(cb) == 0;
  cb->cu->cuModuleUnload(k->module);
  if (pushed) pop_context(cb);
  free(k);
}

/* Allocates device memory; *ptr is the CUdeviceptr as a pointer (NULL for 0 bytes). */
static zipfft_status cuda_alloc(zipfft__backend *b, size_t bytes, void **ptr) {
  cuda_backend *cb = as_cuda(b);
  if (!ptr) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "cuda alloc: NULL result pointer");
  *ptr = NULL;
  if (bytes == 0) return ZIPFFT_SUCCESS;
  char subject[48];
  snprintf(subject, sizeof subject, "%zu bytes", bytes);
  zipfft_status status = check(push_context(cb), "cuCtxPushCurrent", subject);
  if (status != ZIPFFT_SUCCESS) return status;
  CUdeviceptr address = 0;
  CUresult r = cb->cu->cuMemAlloc(&address, bytes);
  pop_context(cb);
  status = check_as(
      r == cuda_error_out_of_memory ? ZIPFFT_ERROR_OUT_OF_MEMORY : ZIPFFT_ERROR_CUDA_FAILED, r,
      "cuMemAlloc", subject);
  if (status == ZIPFFT_SUCCESS) *ptr = (void *)(uintptr_t)address;
  return status;
}

/* Copies bytes between host and device memory, in the direction to_device says, after all
 * the work queued on the device (every stream: the correlation plans' filter, statistics
 * reset and finalisation must follow the caller's kernels, whatever their streams). */
static zipfft_status cuda_copy(zipfft__backend *b, int to_device, void *dst, const void *src,
                               size_t bytes) {
  cuda_backend *cb = as_cuda(b);
  const char *what = to_device ? "cuMemcpyHtoD" : "cuMemcpyDtoH";
  if (bytes == 0) return ZIPFFT_SUCCESS;
  if (!dst || !src) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "%s: NULL pointer", what);
  char subject[48];
  snprintf(subject, sizeof subject, "%zu bytes", bytes);
  zipfft_status status = check(push_context(cb), "cuCtxPushCurrent", subject);
  if (status != ZIPFFT_SUCCESS) return status;
  CUresult r = cb->cu->cuCtxSynchronize();
  if (r == 0)
    r = to_device ? cb->cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes)
                  : cb->cu->cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes);
  pop_context(cb);
  return check(r, what, subject);
}

/* Sets bytes of device memory to zero in the order of stream; with wait, finished before
 * the call returns (and so before kernels on any stream start). */
static zipfft_status zero_memory(zipfft__backend *b, void *ptr, size_t bytes, CUstream stream,
                                 int wait) {
  cuda_backend *cb = as_cuda(b);
  if (bytes == 0) return ZIPFFT_SUCCESS;
  char subject[48];
  snprintf(subject, sizeof subject, "%zu bytes", bytes);
  zipfft_status status = check(push_context(cb), "cuCtxPushCurrent", subject);
  if (status != ZIPFFT_SUCCESS) return status;
  CUresult r = cb->cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)ptr, 0, bytes, stream);
  if (r == 0 && wait) r = cb->cu->cuCtxSynchronize();
  pop_context(cb);
  return check(r, "cuMemsetD8Async", subject);
}

static zipfft_status cuda_zero(zipfft__backend *b, void *ptr, size_t bytes) {
  return zero_memory(b, ptr, bytes, NULL, 1);
}

static zipfft_status cuda_zero_on_stream(zipfft__backend *b, void *ptr, size_t bytes,
                                         void *stream) {
  return zero_memory(b, ptr, bytes, (CUstream)stream, 0);
}

/* Resident blocks of a kernel on the whole device (the occupancy calculator's per
 * multiprocessor times the multiprocessors); 1 when the driver cannot say. */
static int64_t cuda_resident_blocks(zipfft__backend *b, void *kernel, unsigned threads,
                                    size_t shared) {
  cuda_backend *cb = as_cuda(b);
  cuda_kernel *k = kernel;
  int per_sm = 0;
  if (!k || push_context(cb) != 0) return 1;
  CUresult r = cb->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->function,
                                                                   (int)threads, shared);
  pop_context(cb);
  return r == 0 && per_sm > 0 ? (int64_t)per_sm * cb->sm_count : 1;
}

/* A function attribute of a kernel (cuFuncGetAttribute); 0 when the driver cannot say. */
static int64_t kernel_attribute(zipfft__backend *b, void *kernel, int attribute) {
  cuda_backend *cb = as_cuda(b);
  cuda_kernel *k = kernel;
  int value = 0;
  if (!k || push_context(cb) != 0) return 0;
  CUresult r = cb->cu->cuFuncGetAttribute(&value, attribute, k->function);
  pop_context(cb);
  return r == 0 ? value : 0;
}

/* Local memory per thread of a kernel (its spills), bytes. */
static int64_t cuda_local_bytes(zipfft__backend *b, void *kernel) {
  return kernel_attribute(b, kernel, ZIPFFT_CU_FUNC_ATTR_LOCAL_SIZE_BYTES);
}

/* Registers per thread of a kernel. */
static int64_t cuda_registers(zipfft__backend *b, void *kernel) {
  return kernel_attribute(b, kernel, ZIPFFT_CU_FUNC_ATTR_NUM_REGS);
}

/* Peak DRAM bandwidth from the memory clock and bus width (two transfers per clock). */
static uint64_t cuda_peak_bandwidth(zipfft__backend *b) {
  cuda_backend *cb = as_cuda(b);
  if (cb->memory_clock_khz <= 0 || cb->memory_bus_bits <= 0) return 0;
  return (uint64_t)cb->memory_clock_khz * 1000u * 2u * (uint64_t)cb->memory_bus_bits / 8u;
}

static int64_t cuda_multiprocessors(zipfft__backend *b) {
  int count = as_cuda(b)->sm_count;
  return count > 0 ? count : 1;
}

static zipfft_status cuda_upload(zipfft__backend *b, void *dst, const void *src, size_t bytes) {
  return cuda_copy(b, 1, dst, src, bytes);
}

static zipfft_status cuda_download(zipfft__backend *b, void *dst, const void *src, size_t bytes) {
  return cuda_copy(b, 0, dst, src, bytes);
}

/* Frees device memory from cuda_alloc; NULL is ignored; never records an error. */
static void cuda_free(zipfft__backend *b, void *ptr) {
  cuda_backend *cb = as_cuda(b);
  if (!ptr || push_context(cb) != 0) return;
  cb->cu->cuMemFree((CUdeviceptr)(uintptr_t)ptr);
  pop_context(cb);
}

/* The device's total memory (0 when the driver cannot say). */
static uint64_t cuda_memory_bytes(zipfft__backend *b) {
  cuda_backend *cb = as_cuda(b);
  size_t bytes = 0;
  if (cb->cu->cuDeviceTotalMem(&bytes, cb->device) != 0) return 0;
  return bytes;
}

/* Largest dynamic shared memory per block, with the opt-in. */
static size_t cuda_max_shared_bytes(zipfft__backend *b) {
  return (size_t)as_cuda(b)->max_shared_optin;
}

/* Thread-block clusters need compute capability 9.0; 8 blocks is the portable size. */
static int cuda_max_cluster_blocks(zipfft__backend *b) { return as_cuda(b)->cc_major >= 9 ? 8 : 1; }
static int cuda_bulk_copies(zipfft__backend *b) { return as_cuda(b)->cc_major >= 9; }

/* Releases the primary context and frees the backend; NULL is ignored. */
static void cuda_close(zipfft__backend *b) {
  cuda_backend *cb = as_cuda(b);
  if (!cb) return;
  cb->cu->cuDevicePrimaryCtxRelease(cb->device);
  free(cb);
}

static const zipfft__backend_ops cuda_ops = {
    .name = "cuda",
    .compile = cuda_compile,
    .launch = cuda_launch,
    .release_kernel = cuda_release_kernel,
    .alloc = cuda_alloc,
    .zero = cuda_zero,
    .zero_on_stream = cuda_zero_on_stream,
    .resident_blocks = cuda_resident_blocks,
    .local_bytes = cuda_local_bytes,
    .registers = cuda_registers,
    .multiprocessors = cuda_multiprocessors,
    .peak_bandwidth = cuda_peak_bandwidth,
    .upload = cuda_upload,
    .download = cuda_download,
    .free = cuda_free,
    .memory_bytes = cuda_memory_bytes,
    .max_shared_bytes = cuda_max_shared_bytes,
    .max_cluster_blocks = cuda_max_cluster_blocks,
    .bulk_copies = cuda_bulk_copies,
    .close = cuda_close,
};

/* Number of devices the driver reports (0 when it cannot tell). */
static int device_count(const zipfft__cuda_api *cu) {
  int count = 0;
  if (cu->cuDeviceGetCount(&count) != 0) return 0;
  return count;
}

/* Reads the attributes of device_attributes and derives the architecture name. */
static zipfft_status read_device_properties(cuda_backend *cb, const char *subject) {
  size_t count = sizeof device_attributes / sizeof device_attributes[0];
  for (size_t i = 0; i < count; i++) {
    int *field = (int *)((char *)cb + device_attributes[i].offset);
    CUresult r = cb->cu->cuDeviceGetAttribute(field, device_attributes[i].attribute, cb->device);
    if (r != 0 && device_attributes[i].optional)
      *field = 0;
    else if (r != 0)
      return zipfft__fail(ZIPFFT_ERROR_CUDA_FAILED, "cuDeviceGetAttribute(%s, %s) failed: %s",
                          subject, device_attributes[i].what, zipfft__cuda_error_text(r));
  }
  if (cb->max_shared_optin < default_shared_limit) cb->max_shared_optin = default_shared_limit;
  snprintf(cb->arch, sizeof cb->arch, "sm_%d%d", cb->cc_major, cb->cc_minor);
  return ZIPFFT_SUCCESS;
}

/* Gets the device, retains its primary context and reads its properties. */
static zipfft_status attach_device(cuda_backend *cb) {
  char subject[32];
  snprintf(subject, sizeof subject, "device %d", cb->ordinal);
  zipfft_status status =
      check(cb->cu->cuDeviceGet(&cb->device, cb->ordinal), "cuDeviceGet", subject);
  if (status != ZIPFFT_SUCCESS) return status;
  status = check(cb->cu->cuDevicePrimaryCtxRetain(&cb->context, cb->device),
                 "cuDevicePrimaryCtxRetain", subject);
  if (status != ZIPFFT_SUCCESS) return status;
  status = read_device_properties(cb, subject);
  if (status != ZIPFFT_SUCCESS) {
    cb->cu->cuDevicePrimaryCtxRelease(cb->device);
    cb->context = NULL;
  }
  return status;
}

/* Opens the CUDA backend on a device ordinal (see backend.h). */
zipfft_status zipfft__cuda_open(int device, zipfft__backend **out) {
  if (!out) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft__cuda_open: NULL out");
  const zipfft__cuda_api *cu = zipfft__cuda_api_get();
  if (!cu)
    return zipfft__fail(ZIPFFT_ERROR_NO_CUDA_DRIVER,
                        "could not load libcuda.so.1 (or it lacks an entry point, or cuInit "
                        "failed)");
  int count = device_count(cu);
  if (device < 0 || device >= count)
    return zipfft__fail(ZIPFFT_ERROR_NO_CUDA_DEVICE,
                        "CUDA device %d does not exist: the driver reports %d device(s)", device,
                        count);
  cuda_backend *cb = calloc(1, sizeof *cb);
  if (!cb) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "could not allocate the backend");
  cb->base.ops = &cuda_ops;
  cb->cu = cu;
  cb->ordinal = device;
  zipfft_status status = attach_device(cb);
  if (status != ZIPFFT_SUCCESS) {
    free(cb);
    return status;
  }
  *out = &cb->base;
  return ZIPFFT_SUCCESS;
}

/* 1 when the driver loads and device names an existing ordinal. */
int zipfft__cuda_device_usable(int device) {
  const zipfft__cuda_api *cu = zipfft__cuda_api_get();
  return cu && device >= 0 && device < device_count(cu);
}

/* Name and multiprocessor count of an open CUDA backend's device. */
zipfft_status zipfft__cuda_device_info(zipfft__backend *b, char *name, size_t len, int *sm_count) {
  if (!b || b->ops != &cuda_ops)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_BACKEND,
                        "zipfft__cuda_device_info: not a CUDA "
                        "backend");
  cuda_backend *cb = as_cuda(b);
  if (name && len > 0) {
    int capacity = len > INT_MAX ? INT_MAX : (int)len;
    zipfft_status status =
        check(cb->cu->cuDeviceGetName(name, capacity, cb->device), "cuDeviceGetName", cb->arch);
    if (status != ZIPFFT_SUCCESS) return status;
    name[len - 1] = '\0';
  }
  if (sm_count) *sm_count = cb->sm_count;
  return ZIPFFT_SUCCESS;
}
