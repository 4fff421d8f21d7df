/* backend.h - the interface every execution backend (CUDA, CPU) implements. */
#ifndef ZIPFFT_BACKEND_H
#define ZIPFFT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "zipfft.h"

/* A kernel ready to compile: produced by an emitter, consumed by a backend. */
typedef struct zipfft__kernel_source {
  const char *name; /* entry point name (extern "C" / C symbol) */
  const char *text; /* whole translation unit */
  unsigned block_threads;
  size_t shared_bytes; /* dynamic shared memory per block */
  /* > 1: blocks per thread-block cluster (fixed in the kernel's source); launches give a
   * grid of whole clusters. */
  unsigned cluster_blocks;
} zipfft__kernel_source;

/* Kernel arguments are passed as an array of pointers to the values, in the order of the
 * kernel's parameters (the cuLaunchKernel convention, used by both backends). */
typedef struct zipfft__launch {
  uint32_t grid;  /* blocks (x only; a multiple of the kernel's cluster size) */
  uint32_t block; /* threads per block */
  size_t shared_bytes;
  void *stream; /* CUstream on CUDA, NULL on the CPU */
  void **args;
} zipfft__launch;

typedef struct zipfft__backend zipfft__backend;

/* Operations of one backend instance. A kernel handle is opaque to callers. Every function
 * returns a status and records details through zipfft__fail. */
typedef struct zipfft__backend_ops {
  const char *name; /* "cuda" or "cpu" */
  zipfft_status (*compile)(zipfft__backend *b, const zipfft__kernel_source *src, void **kernel);
  zipfft_status (*launch)(zipfft__backend *b, void *kernel, const zipfft__launch *l);
  void (*release_kernel)(zipfft__backend *b, void *kernel);
  /* Memory for tables and workspaces owned by a plan: device memory on CUDA, host memory
   * on the CPU. */
  zipfft_status (*alloc)(zipfft__backend *b, size_t bytes, void **ptr);
  /* Sets bytes of that memory to zero, done before any later kernel starts. */
  zipfft_status (*zero)(zipfft__backend *b, void *ptr, size_t bytes);
  /* Sets bytes of that memory to zero in the order of the work queued on stream (the
   * CPU: now). */
  zipfft_status (*zero_on_stream)(zipfft__backend *b, void *ptr, size_t bytes, void *stream);
  /* Blocks of a compiled kernel that can be resident on the device at once with the given
   * threads and dynamic shared memory (the CPU: its host threads); at least 1. */
  int64_t (*resident_blocks)(zipfft__backend *b, void *kernel, unsigned threads, size_t shared);
  /* Local memory a thread of a compiled kernel takes (the compiler's spills), bytes (the
   * CPU: 0). */
  int64_t (*local_bytes)(zipfft__backend *b, void *kernel);
  /* Registers a thread of a compiled kernel takes (the CPU: 0). */
  int64_t (*registers)(zipfft__backend *b, void *kernel);
  /* Multiprocessors resident_blocks counts over (the CPU: its host threads); at least 1. */
  int64_t (*multiprocessors)(zipfft__backend *b);
  /* Peak memory bandwidth of the device, bytes per second (0: unknown). */
  uint64_t (*peak_bandwidth)(zipfft__backend *b);
  zipfft_status (*upload)(zipfft__backend *b, void *dst, const void *src, size_t bytes);
  /* Copies host memory to the backend's (upload) and back (download), both after all the
   * work queued on the device (every stream). */
  zipfft_status (*download)(zipfft__backend *b, void *dst, const void *src, size_t bytes);
  void (*free)(zipfft__backend *b, void *ptr);
  /* Memory the backend's allocations come from (device memory, or the host's RAM), bytes. */
  uint64_t (*memory_bytes)(zipfft__backend *b);
  /* Largest dynamic shared memory a block may use (bytes). */
  size_t (*max_shared_bytes)(zipfft__backend *b);
  /* Largest thread-block cluster whose blocks share their shared memory (1: none). */
  int (*max_cluster_blocks)(zipfft__backend *b);
  /* 1 when a kernel may copy global memory into its shared memory by bulk asynchronous
   * copies (CUDA: sm_90's TMA; the CPU backend copies at once). */
  int (*bulk_copies)(zipfft__backend *b);
  void (*close)(zipfft__backend *b);
} zipfft__backend_ops;

struct zipfft__backend {
  const zipfft__backend_ops *ops;
};

/* Opens the CUDA backend on a device: loads libcuda with dlopen, retains the device's
 * primary context. Fails with NO_CUDA_DRIVER / NO_CUDA_DEVICE / CUDA_FAILED. */
zipfft_status zipfft__cuda_open(int device, zipfft__backend **out);
/* Opens the CPU backend (host C compiler + dlopen). */
zipfft_status zipfft__cpu_open(zipfft__backend **out);

/* Compiles CUDA source with NVRTC for an architecture such as "sm_90" without loading it
 * (used by the tests on machines without a GPU, and by the CUDA backend). On success
 * *image and *size receive a malloc'ed CUBIN the caller frees. On a compile failure returns
 * COMPILE_FAILED with the NVRTC log in the error detail; NO_NVRTC when the library is
 * missing. Results are cached (see cache.h). */
zipfft_status zipfft__nvrtc_compile(const char *source, const char *name, const char *arch,
                                    void **image, size_t *size);
/* Checks that CUDA source compiles, faster than zipfft__nvrtc_compile: NVRTC translates it
 * to PTX for the virtual architecture of arch ("sm_90": compute_90) with the PTX's
 * optimisation traded for compile time where NVRTC allows, and no CUBIN is made, so ptxas
 * (and what only it rejects: inline PTX, resource limits) is not run. Statuses as
 * zipfft__nvrtc_compile's; the outcome of a success is cached (see cache.h). */
zipfft_status zipfft__nvrtc_check_source(const char *source, const char *name, const char *arch);
/* 1 when NVRTC can be loaded on this machine, else 0. */
int zipfft__nvrtc_available(void);
/* Compiles source as zipfft__nvrtc_compile does (not cached) and sets *bytes to the
 * register spill stores ptxas reports for it, per thread (0: none): lets the tests keep
 * kernels whose speed depends on it spill-free. */
zipfft_status zipfft__nvrtc_spill_bytes(const char *source, const char *name, const char *arch,
                                        long *bytes);

#endif
