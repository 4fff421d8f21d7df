/* cuda_api.h - our own declarations of the few CUDA driver functions zipfft uses, loaded
 * with dlopen so that nothing links against CUDA. */
#ifndef ZIPFFT_CUDA_API_H
#define ZIPFFT_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult; /* 0 = CUDA_SUCCESS */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
  ZIPFFT_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
  ZIPFFT_CU_ATTR_MEMORY_CLOCK_RATE = 36,       /* kHz */
  ZIPFFT_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37, /* bits */
  ZIPFFT_CU_ATTR_CC_MAJOR = 75,
  ZIPFFT_CU_ATTR_CC_MINOR = 76,
  ZIPFFT_CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97,
  ZIPFFT_CU_FUNC_ATTR_LOCAL_SIZE_BYTES = 3,
  ZIPFFT_CU_FUNC_ATTR_NUM_REGS = 4,
  ZIPFFT_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED = 8
};

/* The driver entry points, resolved once. Names follow the driver API (with the _v2 ABI
 * where the driver exports one). */
typedef struct zipfft__cuda_api {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice dev);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);
  CUresult (*cuCtxPushCurrent)(CUcontext ctx);
  CUresult (*cuCtxPopCurrent)(CUcontext *ctx);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadData)(CUmodule *mod, const void *image);
  CUresult (*cuModuleUnload)(CUmodule mod);
  CUresult (*cuModuleGetFunction)(CUfunction *f, CUmodule mod, const char *name);
  CUresult (*cuFuncSetAttribute)(CUfunction f, int attribute, int value);
  CUresult (*cuFuncGetAttribute)(int *value, int attribute, CUfunction f);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t bytes);
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream s);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction f, int threads,
                                                          size_t shared);
  CUresult (*cuStreamSynchronize)(CUstream s);
  CUresult (*cuEventCreate)(CUevent *e, unsigned flags);
  CUresult (*cuEventRecord)(CUevent e, CUstream s);
  CUresult (*cuEventSynchronize)(CUevent e);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent e);
  CUresult (*cuGetErrorString)(CUresult r, const char **text);
} zipfft__cuda_api;

/* Loads libcuda.so.1 and resolves every entry point once (thread-safe), then calls cuInit.
 * Returns NULL when the library, a symbol or cuInit is missing; never prints. */
const zipfft__cuda_api *zipfft__cuda_api_get(void);

/* Text of a driver error code ("CUDA_ERROR_OUT_OF_MEMORY: out of memory" or the number). */
const char *zipfft__cuda_error_text(CUresult r);

#endif
