/* plan_internal.h - hooks into plans for the tests and tools (not part of the public API). */
#ifndef ZIPFFT_PLAN_INTERNAL_H
#define ZIPFFT_PLAN_INTERNAL_H

#include "zipfft.h"

/* Compiles the CUDA source of every kernel of the plan with NVRTC for arch (e.g. "sm_90"),
 * whatever backend the plan runs on: lets CPU-only machines prove the GPU code compiles.
 * Returns NO_NVRTC when NVRTC is missing, COMPILE_FAILED with the log on an error. */
zipfft_status zipfft__plan_check_cuda(zipfft_plan p, const char *arch);

/* Number of kernel launches one execution makes (for tests of the plan's structure). */
int zipfft__plan_kernel_count(zipfft_plan p);

/* Generated source of every kernel of the plan, CUDA (cuda = 1) or C, concatenated;
 * malloc'ed into *text. */
zipfft_status zipfft__plan_sources(zipfft_plan p, int cuda, char **text);

#endif
