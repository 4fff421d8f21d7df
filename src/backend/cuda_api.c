/* cuda_api.c - loads the CUDA driver with dlopen and resolves the entry points zipfft uses. */
#include "backend/cuda_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The public table plus the entries only this file needs. */
typedef struct loaded_driver {
  zipfft__cuda_api api;
  CUresult (*cuGetErrorName)(CUresult r, const char **text);
} loaded_driver;

/* One driver symbol and where its address goes in loaded_driver. */
typedef struct driver_symbol {
  const char *symbol;
  size_t offset;
} driver_symbol;

#define DRIVER_ENTRY(field, symbol) \
  { symbol, offsetof(loaded_driver, field) }

static const driver_symbol driver_symbols[] = {
    DRIVER_ENTRY(api.cuInit, "cuInit"),
    DRIVER_ENTRY(api.cuDriverGetVersion, "cuDriverGetVersion"),
    DRIVER_ENTRY(api.cuDeviceGetCount, "cuDeviceGetCount"),
    DRIVER_ENTRY(api.cuDeviceGet, "cuDeviceGet"),
    DRIVER_ENTRY(api.cuDeviceGetName, "cuDeviceGetName"),
    DRIVER_ENTRY(api.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
    DRIVER_ENTRY(api.cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
    DRIVER_ENTRY(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    DRIVER_ENTRY(api.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
    DRIVER_ENTRY(api.cuCtxPushCurrent, "cuCtxPushCurrent_v2"),
    DRIVER_ENTRY(api.cuCtxPopCurrent, "cuCtxPopCurrent_v2"),
    DRIVER_ENTRY(api.cuCtxSynchronize, "cuCtxSynchronize"),
    DRIVER_ENTRY(api.cuModuleLoadData, "cuModuleLoadData"),
    DRIVER_ENTRY(api.cuModuleUnload, "cuModuleUnload"),
    DRIVER_ENTRY(api.cuModuleGetFunction, "cuModuleGetFunction"),
    DRIVER_ENTRY(api.cuFuncSetAttribute, "cuFuncSetAttribute"),
    DRIVER_ENTRY(api.cuFuncGetAttribute, "cuFuncGetAttribute"),
    DRIVER_ENTRY(api.cuLaunchKernel, "cuLaunchKernel"),
    DRIVER_ENTRY(api.cuMemAlloc, "cuMemAlloc_v2"),
    DRIVER_ENTRY(api.cuMemFree, "cuMemFree_v2"),
    DRIVER_ENTRY(api.cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
    DRIVER_ENTRY(api.cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
    DRIVER_ENTRY(api.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
    DRIVER_ENTRY(api.cuMemsetD8, "cuMemsetD8_v2"),
    DRIVER_ENTRY(api.cuMemsetD8Async, "cuMemsetD8Async"),
    DRIVER_ENTRY(api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
    DRIVER_ENTRY(api.cuStreamSynchronize, "cuStreamSynchronize"),
    DRIVER_ENTRY(api.cuEventCreate, "cuEventCreate"),
    DRIVER_ENTRY(api.cuEventRecord, "cuEventRecord"),
    DRIVER_ENTRY(api.cuEventSynchronize, "cuEventSynchronize"),
    DRIVER_ENTRY(api.cuEventElapsedTime, "cuEventElapsedTime"),
    DRIVER_ENTRY(api.cuEventDestroy, "cuEventDestroy_v2"),
    DRIVER_ENTRY(api.cuGetErrorString, "cuGetErrorString"),
    DRIVER_ENTRY(cuGetErrorName, "cuGetErrorName"),
};

#undef DRIVER_ENTRY

static const char *const driver_library_names[] = {"libcuda.so.1", "libcuda.so"};

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static loaded_driver driver;
static int driver_ready; /* written once inside pthread_once, read-only afterwards */

/* Opens the first driver library that loads; NULL when none does. */
static void *open_driver_library(void) {
  size_t count = sizeof driver_library_names / sizeof driver_library_names[0];
  for (size_t i = 0; i < count; i++) {
    void *handle = dlopen(driver_library_names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle) return handle;
  }
  return NULL;
}

/* Resolves every symbol of driver_symbols into driver; returns 0 if one is missing. */
static int resolve_driver_symbols(void *handle) {
  size_t count = sizeof driver_symbols / sizeof driver_symbols[0];
  for (size_t i = 0; i < count; i++) {
    void *address = dlsym(handle, driver_symbols[i].symbol);
    if (!address) return 0;
    /* POSIX guarantees that object and function pointers share a representation. */
    memcpy((char *)&driver + driver_symbols[i].offset, &address, sizeof address);
  }
  return 1;
}

/* pthread_once body: loads, resolves and initialises the driver; sets driver_ready. */
static void load_driver(void) {
  void *handle = open_driver_library();
  if (!handle) return;
  if (!resolve_driver_symbols(handle) || driver.api.cuInit(0) != 0) {
    dlclose(handle);
    memset(&driver, 0, sizeof driver);
    return;
  }
  driver_ready = 1; /* the handle stays open for the life of the process */
}

/* The resolved driver table, loaded on first use; NULL when the driver is unusable. */
const zipfft__cuda_api *zipfft__cuda_api_get(void) {
  pthread_once(&driver_once, load_driver);
  return driver_ready ? &driver.api : NULL;
}

/* "NAME: description" of a driver error, in a thread-local buffer valid until the next call. */
const char *zipfft__cuda_error_text(CUresult r) {
  static _Thread_local char text[256];
  const char *name = NULL, *description = NULL;
  if (zipfft__cuda_api_get()) {
    if (driver.cuGetErrorName(r, &name) != 0) name = NULL;
    if (driver.api.cuGetErrorString(r, &description) != 0) description = NULL;
  }
  if (name && description)
    snprintf(text, sizeof text, "%s: %s", name, description);
  else
    snprintf(text, sizeof text, "CUDA error %d", r);
  return text;
}
