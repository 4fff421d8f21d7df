/* nvrtc.c - compiles generated CUDA source to CUBIN (or, to check it, PTX) with NVRTC (loaded
 * with dlopen), cached. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "backend/backend.h"
#include "backend/cache.h"

/* Our own declarations of the NVRTC entry points (nothing links against CUDA). */
typedef int nvrtcResult; /* 0 = NVRTC_SUCCESS */
typedef struct _nvrtcProgram *nvrtcProgram;

typedef struct nvrtc_api {
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *prog, const char *source, const char *name,
                                    int header_count, const char *const *headers,
                                    const char *const *include_names);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram prog, int option_count,
                                     const char *const *options);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram prog, size_t *size);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram prog, char *log);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram prog, size_t *size);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram prog, char *cubin);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram prog, size_t *size);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram prog, char *ptx);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *prog);
  nvrtcResult (*nvrtcVersion)(int *major, int *minor);
  const char *(*nvrtcGetErrorString)(nvrtcResult result);
} nvrtc_api;

/* One NVRTC symbol and where its address goes in nvrtc_api. */
typedef struct nvrtc_symbol {
  const char *symbol;
  size_t offset;
} nvrtc_symbol;

#define NVRTC_ENTRY(name) \
  { #name, offsetof(nvrtc_api, name) }

static const nvrtc_symbol nvrtc_symbols[] = {
    NVRTC_ENTRY(nvrtcCreateProgram),     NVRTC_ENTRY(nvrtcCompileProgram),
    NVRTC_ENTRY(nvrtcGetProgramLogSize), NVRTC_ENTRY(nvrtcGetProgramLog),
    NVRTC_ENTRY(nvrtcGetCUBINSize),      NVRTC_ENTRY(nvrtcGetCUBIN),
    NVRTC_ENTRY(nvrtcGetPTXSize),        NVRTC_ENTRY(nvrtcGetPTX),
    NVRTC_ENTRY(nvrtcDestroyProgram),    NVRTC_ENTRY(nvrtcVersion),
    NVRTC_ENTRY(nvrtcGetErrorString),
};

#undef NVRTC_ENTRY

static const char *const nvrtc_library_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                                  "/usr/local/cuda/lib64/libnvrtc.so"};

/* Part of every cache key: bump when the generated code's meaning changes. */
static const char generator_version[] = "zipfft-gen-1";

static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;
static nvrtc_api nvrtc;
static char nvrtc_version[32]; /* "major.minor"; empty until NVRTC loaded */

/* Resolves every NVRTC symbol from handle; returns 0 if one is missing. */
static int resolve_nvrtc_symbols(void *handle) {
  size_t count = sizeof nvrtc_symbols / sizeof nvrtc_symbols[0];
  for (size_t i = 0; i < count; i++) {
    void *address = dlsym(handle, nvrtc_symbols[i].symbol);
    if (!address) return 0;
    /* POSIX guarantees that object and function pointers share a representation. */
    memcpy((char *)&nvrtc + nvrtc_symbols[i].offset, &address, sizeof address);
  }
  return 1;
}

/* pthread_once body: loads the first usable NVRTC and records its version. */
static void load_nvrtc(void) {
  size_t count = sizeof nvrtc_library_names / sizeof nvrtc_library_names[0];
  for (size_t i = 0; i < count; i++) {
    void *handle = dlopen(nvrtc_library_names[i], RTLD_NOW | RTLD_LOCAL);
    if (!handle) continue;
    int major = 0, minor = 0;
    if (resolve_nvrtc_symbols(handle) && nvrtc.nvrtcVersion(&major, &minor) == 0) {
      snprintf(nvrtc_version, sizeof nvrtc_version, "%d.%d", major, minor);
      return; /* the handle stays open for the life of the process */
    }
    memset(&nvrtc, 0, sizeof nvrtc);
    dlclose(handle);
  }
}

/* The loaded NVRTC table, or NULL when no library could be loaded. */
static const nvrtc_api *get_nvrtc(void) {
  pthread_once(&nvrtc_once, load_nvrtc);
  return nvrtc_version[0] ? &nvrtc : NULL;
}

/* 1 when NVRTC can be loaded on this machine, else 0. */
int zipfft__nvrtc_available(void) { return get_nvrtc() != NULL; }

/* The program's NVRTC log as a malloc'ed string; NULL when empty or unavailable. */
static char *program_log(const nvrtc_api *api, nvrtcProgram program) {
  size_t log_size = 0;
  if (api->nvrtcGetProgramLogSize(program, &log_size) != 0 || log_size == 0) return NULL;
  char *log = malloc(log_size + 1);
  if (log && api->nvrtcGetProgramLog(program, log) == 0) {
    log[log_size] = '\0';
    return log;
  }
  free(log);
  return NULL;
}

/* Records COMPILE_FAILED naming the kernel and appends the whole NVRTC log. */
static zipfft_status report_compile_failure(const nvrtc_api *api, nvrtcProgram program,
                                            const char *name, const char *arch,
                                            nvrtcResult result) {
  zipfft_status status = zipfft__fail(ZIPFFT_ERROR_COMPILE_FAILED,
                                      "NVRTC could not compile kernel %s for %s (%s); log:\n", name,
                                      arch, api->nvrtcGetErrorString(result));
  char *log = program_log(api, program);
  if (log) zipfft__append_error(log);
  free(log);
  return status;
}

/* What a program's compile hands back: the CUBIN of a real architecture (sm_90), or the PTX
 * of a virtual one (compute_90). */
typedef enum nvrtc_output { OUTPUT_CUBIN, OUTPUT_PTX } nvrtc_output;

/* Copies the compiled CUBIN or PTX out of a program into a malloc'ed buffer. */
static zipfft_status fetch_output(const nvrtc_api *api, nvrtcProgram program, const char *name,
                                  nvrtc_output output, void **image, size_t *size) {
  const char *what = output == OUTPUT_PTX ? "PTX" : "CUBIN";
  size_t output_size = 0;
  nvrtcResult result = output == OUTPUT_PTX ? api->nvrtcGetPTXSize(program, &output_size)
                                            : api->nvrtcGetCUBINSize(program, &output_size);
  if (result != 0 || output_size == 0)
    return zipfft__fail(ZIPFFT_ERROR_COMPILE_FAILED, "NVRTC produced no %s for kernel %s (%s)",
                        what, name, api->nvrtcGetErrorString(result));
  char *bytes = malloc(output_size);
  if (!bytes)
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "could not allocate %zu bytes of %s",
                        output_size, what);
  result =
      output == OUTPUT_PTX ? api->nvrtcGetPTX(program, bytes) : api->nvrtcGetCUBIN(program, bytes);
  if (result != 0) {
    free(bytes);
    return zipfft__fail(ZIPFFT_ERROR_COMPILE_FAILED, "NVRTC could not return the %s of %s (%s)",
                        what, name, api->nvrtcGetErrorString(result));
  }
  *image = bytes;
  *size = output_size;
  return ZIPFFT_SUCCESS;
}

/* Runs NVRTC on source with the given options; then, when image is not NULL, fetches the
 * output, and when log is not NULL, the log (*log NULL if empty). One cleanup path destroys
 * the program. */
static zipfft_status compile_program(const nvrtc_api *api, const char *source, const char *name,
                                     const char *arch, const char *const *options, int option_count,
                                     nvrtc_output output, void **image, size_t *size, char **log) {
  zipfft_status status = ZIPFFT_SUCCESS;
  nvrtcProgram program = NULL;
  nvrtcResult result = api->nvrtcCreateProgram(&program, source, name, 0, NULL, NULL);
  if (result != 0) {
    status = zipfft__fail(ZIPFFT_ERROR_COMPILE_FAILED, "NVRTC could not create program %s (%s)",
                          name, api->nvrtcGetErrorString(result));
    goto cleanup;
  }
  result = api->nvrtcCompileProgram(program, option_count, options);
  if (result != 0) {
    status = report_compile_failure(api, program, name, arch, result);
    goto cleanup;
  }
  if (image) status = fetch_output(api, program, name, output, image, size);
  if (status == ZIPFFT_SUCCESS && log) *log = program_log(api, program);
cleanup:
  if (program) api->nvrtcDestroyProgram(&program);
  return status;
}

/* Writes the options separated by spaces into buf; 0 when they do not fit. */
static int join_options(const char *const *options, int count, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < count; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", options[i]);
    if (n < 0 || (size_t)n >= len - used) return 0;
    used += (size_t)n;
  }
  return 1;
}

enum { standard_option_count = 3, arch_option_len = 64 };

/* The loaded NVRTC (NULL with NO_NVRTC recorded) and the options every kernel is compiled
 * with: arch_option (arch_option_len bytes) receives --gpu-architecture=arch. */
static const nvrtc_api *nvrtc_for(const char *arch, char *arch_option,
                                  const char *options[standard_option_count],
                                  zipfft_status *status) {
  const nvrtc_api *api = get_nvrtc();
  *status = ZIPFFT_SUCCESS;
  if (!api) {
    *status = zipfft__fail(ZIPFFT_ERROR_NO_NVRTC,
                           "could not load NVRTC (tried libnvrtc.so.13, libnvrtc.so.12, "
                           "libnvrtc.so, /usr/local/cuda/lib64/libnvrtc.so)");
    return NULL;
  }
  if (snprintf(arch_option, arch_option_len, "--gpu-architecture=%s", arch) >= arch_option_len) {
    *status = zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT, "architecture name too long: %.32s...",
                           arch);
    return NULL;
  }
  options[0] = arch_option, options[1] = "-default-device", options[2] = "--std=c++17";
  return api;
}

/* Compiles source with the given options to output through the kernel cache (kind cubin):
 * the key holds the source, arch, NVRTC's version, the options and the generator's version,
 * and for PTX the word "ptx" too, so that an entry never answers for the other output. On
 * success *image (malloc'ed) and *size hold the output, read or compiled. */
static zipfft_status compile_cached(const nvrtc_api *api, const char *source, const char *name,
                                    const char *arch, const char *const *options, int option_count,
                                    nvrtc_output output, void **image, size_t *size) {
  char joined[192];
  if (!join_options(options, option_count, joined, sizeof joined))
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "NVRTC options too long");
  const char *const key_parts[] = {source, arch, nvrtc_version, joined, generator_version, "ptx"};
  const int part_count = (int)(sizeof key_parts / sizeof key_parts[0]) - (output == OUTPUT_CUBIN);
  zipfft__cache_key key = zipfft__cache_key_of(key_parts, part_count);
  if (zipfft__cache_get(ZIPFFT__CACHE_KIND_CUBIN, key, image, size)) return ZIPFFT_SUCCESS;
  zipfft_status status =
      compile_program(api, source, name, arch, options, option_count, output, image, size, NULL);
  if (status == ZIPFFT_SUCCESS) zipfft__cache_put(ZIPFFT__CACHE_KIND_CUBIN, key, *image, *size);
  return status;
}

/* Compiles source for arch (e.g. "sm_90") to a malloc'ed CUBIN, through the kernel cache. */
zipfft_status zipfft__nvrtc_compile(const char *source, const char *name, const char *arch,
                                    void **image, size_t *size) {
  if (!source || !name || !arch || !image || !size)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft__nvrtc_compile: NULL argument");
  char arch_option[arch_option_len];
  const char *options[standard_option_count];
  zipfft_status status;
  const nvrtc_api *api = nvrtc_for(arch, arch_option, options, &status);
  if (!api) return status;
  return compile_cached(api, source, name, arch, options, standard_option_count, OUTPUT_CUBIN,
                        image, size);
}

/* The option that trades the optimisation of a checked kernel's PTX for compile time (NVRTC
 * 13.0 takes it: about 4x faster on the generated kernels), and whether the loaded NVRTC
 * takes it, found once by compiling an empty kernel with it (older ones refuse it). */
static const char fast_compile_option[] = "--Ofast-compile=max";
static pthread_once_t fast_compile_once = PTHREAD_ONCE_INIT;
static int fast_compile_taken;

/* pthread_once body: compiles an empty kernel with fast_compile_option. */
static void probe_fast_compile(void) {
  const nvrtc_api *api = get_nvrtc();
  nvrtcProgram program = NULL;
  if (!api ||
      api->nvrtcCreateProgram(&program, "__global__ void k() {}", "probe", 0, NULL, NULL) != 0)
    return;
  const char *options[] = {"--gpu-architecture=compute_90", fast_compile_option};
  fast_compile_taken = api->nvrtcCompileProgram(program, 2, options) == 0;
  api->nvrtcDestroyProgram(&program);
}

/* The virtual architecture of arch ("sm_90" -> "compute_90"; any other name as given). */
static int virtual_arch(const char *arch, char *buf, size_t len) {
  int n = strncmp(arch, "sm_", 3) == 0 ? snprintf(buf, len, "compute_%s", arch + 3)
                                       : snprintf(buf, len, "%s", arch);
  return n >= 0 && (size_t)n < len;
}

zipfft_status zipfft__nvrtc_check_source(const char *source, const char *name, const char *arch) {
  if (!source || !name || !arch)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft__nvrtc_check_source: NULL argument");
  char arch_option[arch_option_len], virtual_name[arch_option_len];
  if (!virtual_arch(arch, virtual_name, sizeof virtual_name))
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT, "architecture name too long: %.32s...",
                        arch);
  const char *options[standard_option_count + 1];
  zipfft_status status;
  const nvrtc_api *api = nvrtc_for(virtual_name, arch_option, options, &status);
  if (!api) return status;
  pthread_once(&fast_compile_once, probe_fast_compile);
  int option_count = standard_option_count;
  if (fast_compile_taken) options[option_count++] = fast_compile_option;
  void *ptx = NULL;
  size_t size = 0;
  status = compile_cached(api, source, name, virtual_name, options, option_count, OUTPUT_PTX, &ptx,
                          &size);
  free(ptx);
  return status;
}

/* Sums the "N bytes spill stores" that ptxas reports in a log. */
static long spill_bytes_in(const char *log) {
  long total = 0;
  for (const char *at = log; at && (at = strstr(at, " bytes spill stores")) != NULL; at++) {
    const char *digits = at;
    while (digits > log && digits[-1] >= '0' && digits[-1] <= '9') digits--;
    total += strtol(digits, NULL, 10);
  }
  return total;
}

zipfft_status zipfft__nvrtc_spill_bytes(const char *source, const char *name, const char *arch,
                                        long *bytes) {
  if (!source || !name || !arch || !bytes)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft__nvrtc_spill_bytes: NULL argument");
  char arch_option[arch_option_len];
  const char *options[standard_option_count + 1];
  zipfft_status status;
  const nvrtc_api *api = nvrtc_for(arch, arch_option, options, &status);
  if (!api) return status;
  options[standard_option_count] = "--ptxas-options=-v";
  char *log = NULL;
  status = compile_program(api, source, name, arch, options, standard_option_count + 1,
                           OUTPUT_CUBIN, NULL, NULL, &log);
  *bytes = status == ZIPFFT_SUCCESS ? spill_bytes_in(log) : 0;
  free(log);
  return status;
}
