/* staging.h - short kernels' staged rows and R2C's split by element (plan/staging.c). */
#ifndef ZIPFFT_STAGING_H
#define ZIPFFT_STAGING_H

#include "plan/kernel_spec.h"

/* Whether a transform's threads access fewer than 32 bytes of neighbouring elements at a time
 * (threads per transform times the complex element's bytes): a warp's accesses then spread
 * over up to 32 rows. */
int zipfft__short_runs(const zipfft__kernel_spec *s);

/* Whether a kernel sized so far (kind, precision, n, radices, threads per transform, layout)
 * stages its block's rows through shared memory by element: where the generator can
 * (mirroring and merge on load aside, which staging replaces), short kernels and kernels
 * whose transform's threads access fewer than 32 bytes of neighbours at a time, with the
 * exceptions and measurements at its definition; every possible kernel with
 * ZIPFFT_STAGE_IO=2, none with 0 (tuning). */
int zipfft__stage_io_wanted(const zipfft__kernel_spec *s);

/* The largest radix a kernel of s's length may take for staging: 4 for 16-point kernels the
 * generator can stage (4x4, four threads a transform), else ZIPFFT__MAX_RADIX. */
int zipfft__staged_short_radix_cap(const zipfft__kernel_spec *s);

/* The fewest threads of a block of s: `fewest` (the planner's least), or more where s stages
 * its rows (zipfft__stage_io_wanted): enough transforms for 8 KB of complex values, except a
 * C2C kernel of one thread a transform and half lengths below 4. */
int64_t zipfft__staged_block_threads(const zipfft__kernel_spec *s, int64_t fewest);

/* Whether staged kernels of a number of threads a transform other than a power of two take
 * whole warps, however many (1, the default), rather than a power of two of warps
 * (ZIPFFT_STAGE_WHOLE_WARPS=0, tuning). */
int zipfft__staged_whole_warps(void);

/* Sets s->stage_io (clearing mirrored and merge_on_load where it stages) and
 * s->stage_packed_reals for a sized kernel whose mirroring and merge on load are chosen. */
void zipfft__choose_stage_io(zipfft__kernel_spec *s);

/* Sets s->split_by_element for a sized R2C_HALF kernel (0 for other kinds) after
 * zipfft__choose_stage_io: staged kernels, fp32 half lengths up to 32 and kernels of large
 * butterflies split by element (ZIPFFT_SPLIT_BY_ELEMENT, tuning: 1 wherever the generator
 * can, 0 only where staged). */
void zipfft__choose_split_by_element(zipfft__kernel_spec *s);

#endif
