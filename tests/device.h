/* device.h - runs the same test on the CPU backend (host memory) or the CUDA backend
 * (device mirrors of host buffers), chosen by ZIPFFT_TEST_BACKEND=cpu|cuda. */
#ifndef ZIPFFT_TEST_DEVICE_H
#define ZIPFFT_TEST_DEVICE_H

#include "test_util.h"
#include "zipfft.h"

typedef enum zt_backend_kind { ZT_BACKEND_CPU = 0, ZT_BACKEND_CUDA = 1 } zt_backend_kind;

/* The backend under test from ZIPFFT_TEST_BACKEND (unset or "cpu": CPU, "cuda": CUDA).
 * Any other value prints a message and exits with status 2. */
zt_backend_kind zt_backend(void);
/* "cpu" or "cuda". */
const char *zt_backend_name(void);
/* The zipfft backend to put in descriptions: ZIPFFT_BACKEND_CPU or ZIPFFT_BACKEND_CUDA. */
zipfft_backend zt_zipfft_backend(void);

/* Makes the test backend usable: for CUDA, loads the driver, retains device 0's primary
 * context and pushes it current (once per process). Returns 1 when ready; otherwise prints
 * why, counts a failure (zt_failures) and returns 0. Always 1 for the CPU. */
int zt_device_ready(void);

/* Executes plan p on zt_buffers. in/out may be NULL (passed as NULL pointers) and may be
 * the same buffer (passed as equal pointers). When p runs on CUDA, each distinct buffer's
 * whole region, guard bands included, is copied to a device mirror with the same alignment
 * modulo 64, the plan runs, the context is synchronised and the regions are copied back,
 * so poison and guard checks work as on the host. Otherwise (CPU plan, NULL or invalid
 * plan) the host pointers are passed as they are. Returns zipfft_execute's status, or
 * ZIPFFT_ERROR_CUDA_FAILED after printing and counting a failure of the test's own
 * copies. */
zipfft_status zt_execute(zipfft_plan p, zt_buffer *in, zt_buffer *out, void *stream);

/* When plan p runs on the CPU and NVRTC is available, compiles the CUDA source of its
 * kernels for sm_90 (so CPU-only machines prove the GPU code compiles): in the quick tier
 * the plans with inline PTX and every 8th other plan a process checks to CUBIN, the others
 * to PTX only (ptxas not run); in the full tier every plan to CUBIN. Returns the compile's status
 * (SUCCESS where nothing is checked), the log in zipfft_last_error(). */
zipfft_status zt_plan_check_cuda(zipfft_plan p);
/* zt_plan_check_cuda, with a failure counted and printed with `text` and the log. */
void zt_check_cuda_source(zipfft_plan p, const char *text);

/* Memory of the backend under test (device memory on CUDA, host memory on the CPU), for
 * APIs that take backend pointers (zipfft_corr). Allocation returns NULL after printing
 * and counting a failure; the copies return 1 on success (the download first waits for
 * the device). */
void *zt_mem_alloc(size_t bytes);
int zt_mem_upload(void *dst, const void *src, size_t bytes);
int zt_mem_download(void *dst, const void *src, size_t bytes);
void zt_mem_free(void *p);
/* Bytes of memory of the backend under test: device 0's total on CUDA (0 after a counted
 * failure), zt_host_memory() on the CPU. */
size_t zt_backend_memory(void);

#endif
