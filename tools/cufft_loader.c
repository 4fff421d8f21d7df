/* cufft_loader.c - cuFFT loaded at run time with dlopen (see cufft_loader.h). */
#include "cufft_loader.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(sizeof(void *) == sizeof(cufft_exec_fn), "dlsym results must fit function pointers");

typedef struct symbol_slot {
  const char *name;
  size_t offset; /* of the function pointer in cufft_api */
} symbol_slot;

static const symbol_slot cufft_symbols[] = {
    {"cufftCreate", offsetof(cufft_api, create)},
    {"cufftMakePlanMany64", offsetof(cufft_api, make_plan_many64)},
    {"cufftSetStream", offsetof(cufft_api, set_stream)},
    {"cufftExecC2C", offsetof(cufft_api, exec_c2c)},
    {"cufftExecZ2Z", offsetof(cufft_api, exec_z2z)},
    {"cufftExecR2C", offsetof(cufft_api, exec_r2c)},
    {"cufftExecC2R", offsetof(cufft_api, exec_c2r)},
    {"cufftExecD2Z", offsetof(cufft_api, exec_d2z)},
    {"cufftExecZ2D", offsetof(cufft_api, exec_z2d)},
    {"cufftDestroy", offsetof(cufft_api, destroy)},
    {"cufftGetVersion", offsetof(cufft_api, get_version)},
};

static const char *const cufft_library_names[] = {
    "libcufft.so.12", "/usr/local/cuda/lib64/libcufft.so.12", "libcufft.so.11", "libcufft.so"};

typedef struct named_code {
  int code;
  const char *name;
} named_code;

static const named_code cufft_result_names[] = {
    {0x0, "CUFFT_SUCCESS"},
    {0x1, "CUFFT_INVALID_PLAN"},
    {0x2, "CUFFT_ALLOC_FAILED"},
    {0x3, "CUFFT_INVALID_TYPE"},
    {0x4, "CUFFT_INVALID_VALUE"},
    {0x5, "CUFFT_INTERNAL_ERROR"},
    {0x6, "CUFFT_EXEC_FAILED"},
    {0x7, "CUFFT_SETUP_FAILED"},
    {0x8, "CUFFT_INVALID_SIZE"},
    {0x9, "CUFFT_UNALIGNED_DATA"},
    {0xB, "CUFFT_INVALID_DEVICE"},
    {0xD, "CUFFT_NO_WORKSPACE"},
    {0xE, "CUFFT_NOT_IMPLEMENTED"},
    {0x10, "CUFFT_NOT_SUPPORTED"},
    {0x11, "CUFFT_MISSING_DEPENDENCY"},
    {0x12, "CUFFT_NVRTC_FAILURE"},
};

const char *zipfft_tool_cufft_result_name(cufft_result result) {
  for (size_t i = 0; i < ARRAY_LEN(cufft_result_names); i++)
    if (cufft_result_names[i].code == result) return cufft_result_names[i].name;
  return "unknown cuFFT error";
}

int zipfft_tool_cufft_load(cufft_api *api, char *why, size_t why_len) {
  memset(api, 0, sizeof *api);
  for (size_t i = 0; i < ARRAY_LEN(cufft_library_names) && !api->library; i++) {
    api->library = dlopen(cufft_library_names[i], RTLD_NOW | RTLD_LOCAL);
    api->library_name = cufft_library_names[i];
  }
  if (!api->library) {
    const char *error = dlerror();
    snprintf(why, why_len, "cuFFT not found (%s)", error ? error : "dlopen failed");
    memset(api, 0, sizeof *api);
    return 0;
  }
  for (size_t i = 0; i < ARRAY_LEN(cufft_symbols); i++) {
    void *address = dlsym(api->library, cufft_symbols[i].name);
    if (!address) {
      snprintf(why, why_len, "%s lacks %s", api->library_name, cufft_symbols[i].name);
      dlclose(api->library);
      memset(api, 0, sizeof *api);
      return 0;
    }
    memcpy((char *)api + cufft_symbols[i].offset, &address, sizeof address);
  }
  return 1;
}

void zipfft_tool_cufft_unload(cufft_api *api) {
  if (api->library) dlclose(api->library);
  memset(api, 0, sizeof *api);
}

int zipfft_tool_cufft_ok(const char *tool, cufft_result result, const char *what) {
  if (result == 0) return 1;
  printf("%s: %s failed: %s (%d)\n", tool, what, zipfft_tool_cufft_result_name(result), result);
  return 0;
}
