/* plan_internal.h - hooks into plans for the tests and tools (not part of the public API). */
#ifndef ZIPFFT_PLAN_INTERNAL_H
#define ZIPFFT_PLAN_INTERNAL_H

#include "zipfft.h"

/* Compiles the CUDA source of every kernel of the plan (its pair kernel too) with NVRTC for arch
 * (e.g. "sm_90"), whatever backend the plan runs on: lets CPU-only machines prove the GPU code
 * compiles. Returns NO_NVRTC when NVRTC is missing, COMPILE_FAILED with the log on an error. */
zipfft_status zipfft__plan_check_cuda(zipfft_plan p, const char *arch);
/* The same check, quicker and less thorough: each source translated to PTX only
 * (zipfft__nvrtc_check_source), so ptxas does not see it. */
zipfft_status zipfft__plan_check_cuda_source(zipfft_plan p, const char *arch);
/* Compiles the same sources with NVRTC for the register spills ptxas reports: *bytes gets
 * the most spill-store bytes per thread of any kernel (0: none spills), and kernel (when not
 * NULL, kernel_len bytes) that kernel's name. NO_NVRTC when NVRTC is missing. */
zipfft_status zipfft__plan_cuda_spills(zipfft_plan p, const char *arch, long *bytes, char *kernel,
                                       size_t kernel_len);

/* Frees a plan (NULL ignored) as zipfft_plan_destroy does, but keeps the thread's last
 * error: for the library's own plans, freed after a failure it reports. */
void zipfft__plan_release(zipfft_plan p);
/* Number of kernel launches one execution makes (for tests of the plan's structure). */
int zipfft__plan_kernel_count(zipfft_plan p);

/* Generated source of every kernel of the plan (and of its pair kernel, plan/pair.h), CUDA
 * (cuda = 1) or C, concatenated; malloc'ed into *text. */
zipfft_status zipfft__plan_sources(zipfft_plan p, int cuda, char **text);

/* One execution of a plan's kernels: the arrays, and for correlation plans the kept
 * spectrum, the statistics arrays and the signals' running sum, the signals of this call
 * (count <= the plan's batch), the index of the first (statistics) and whether the run
 * folds into the statistics (the kernels of RUN_STATISTICS) or stores outputs (those of
 * RUN_OUTPUTS). */
typedef struct zipfft__run {
  const void *in;
  void *out;
  const void *spectrum;
  void *stats, *signal_sum;
  int64_t count, first_index;
  int statistics;
  void *stream;
} zipfft__run;

struct zipfft_desc_s;
struct zipfft__strategy;
struct zipfft__target;
struct zipfft__decomposition;
struct zipfft__backend;
/* Fills a decomposition for a problem of its own kind (correlation plans). */
typedef zipfft_status (*zipfft__decompose_fn)(const void *problem, const struct zipfft__target *t,
                                              struct zipfft__decomposition *out);
/* Creates a plan whose kernels `make` chooses for `problem`, on the backend, precision and
 * batch of d (the strategy prints it). On failure *out is left unchanged. */
zipfft_status zipfft__plan_create_with(zipfft_plan *out, const struct zipfft_desc_s *d,
                                       const struct zipfft__strategy *strategy,
                                       zipfft__decompose_fn make, const void *problem);
/* The backend a plan runs on (its memory operations serve companions of the plan). */
struct zipfft__backend *zipfft__plan_backend_ops(zipfft_plan p);

/* 1 when the plan has a statistics kernel (correlation plans). */
int zipfft__plan_has_statistics(zipfft_plan p);
/* The plan's fused correlation kernel (the one that multiplies by the kept spectrum), or
 * NULL when it has none. */
const struct zipfft__kernel_spec *zipfft__plan_fused_kernel(zipfft_plan p);

/* Enqueues the plan's kernels for one run (no argument checks). */
zipfft_status zipfft__plan_run(zipfft_plan p, const zipfft__run *run);

#endif
