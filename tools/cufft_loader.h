/* cufft_loader.h - cuFFT loaded at run time with dlopen, for the benchmarks (nothing links
 * against cuFFT). Declarations follow cufft.h of CUDA 13.0 (cuFFT 12.0). */
#ifndef ZIPFFT_TOOL_CUFFT_LOADER_H
#define ZIPFFT_TOOL_CUFFT_LOADER_H

#include <stddef.h>

typedef int cufft_handle; /* cufftHandle */
typedef int cufft_result; /* cufftResult: 0 = CUFFT_SUCCESS */
enum {
  CUFFT_TYPE_C2C = 0x29,
  CUFFT_TYPE_Z2Z = 0x69,
  CUFFT_TYPE_R2C = 0x2a,
  CUFFT_TYPE_C2R = 0x2c,
  CUFFT_TYPE_D2Z = 0x6a,
  CUFFT_TYPE_Z2D = 0x6c,
  CUFFT_DIRECTION_FORWARD = -1
};

typedef cufft_result (*cufft_exec_fn)(cufft_handle plan, void *in, void *out, int direction);
/* cufftExecR2C / cufftExecC2R / cufftExecD2Z / cufftExecZ2D: no direction argument. */
typedef cufft_result (*cufft_exec_real_fn)(cufft_handle plan, void *in, void *out);

typedef struct cufft_api {
  void *library;
  const char *library_name;
  cufft_result (*create)(cufft_handle *plan);
  cufft_result (*make_plan_many64)(cufft_handle plan, int rank, long long *n, long long *inembed,
                                   long long istride, long long idist, long long *onembed,
                                   long long ostride, long long odist, int type, long long batch,
                                   size_t *work_size);
  cufft_result (*set_stream)(cufft_handle plan, void *stream);
  cufft_exec_fn exec_c2c;
  cufft_exec_fn exec_z2z;
  cufft_exec_real_fn exec_r2c, exec_c2r, exec_d2z, exec_z2d;
  cufft_result (*destroy)(cufft_handle plan);
  cufft_result (*get_version)(int *version);
} cufft_api;

/* Opens the first cuFFT library found (libcufft.so.12, then older names) and resolves every
 * entry point of cufft_api. Returns 1 on success; otherwise 0 with *api zeroed and the
 * reason written into why (NUL-terminated, truncated to why_len). Never prints. */
int zipfft_tool_cufft_load(cufft_api *api, char *why, size_t why_len);

/* Closes the library opened by zipfft_tool_cufft_load (every plan must be destroyed first)
 * and zeroes *api. Accepts an api that was never loaded. */
void zipfft_tool_cufft_unload(cufft_api *api);

/* Name of a cuFFT result code ("CUFFT_INVALID_SIZE"); "unknown cuFFT error" otherwise. */
const char *zipfft_tool_cufft_result_name(cufft_result result);
/* Returns 1 when result is CUFFT_SUCCESS; otherwise prints "tool: what failed: name (code)"
 * and returns 0. */
int zipfft_tool_cufft_ok(const char *tool, cufft_result result, const char *what);

#endif
