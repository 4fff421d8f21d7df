/* long_axis.h - a pass over an axis too long for one kernel, through the plan's workspace
 * (plan/long_axis.c). */
#ifndef ZIPFFT_LONG_AXIS_H
#define ZIPFFT_LONG_AXIS_H

#include "plan/strategy.h"

/* 1 when a pass of logical length n can run through the workspace: n splits into kernels,
 * or Bluestein's padded length for n does, or (real: the last axis of an R2C or C2R) n is
 * even and its half length splits. */
int zipfft__long_axis_possible(zipfft_precision precision, int64_t n, int real,
                               const zipfft__target *t);

/* Appends the kernels of one pass to dec. `pass` describes it as a single kernel would
 * (kind C2C, R2C or C2R at full length, n, strides, batch dimensions with their strides in
 * src and dst, storage, sign, scale; `rows` transforms in all). The pass gathers its rows
 * from src into the workspace, transforms them there and scatters them to dst, and grows
 * dec's workspace to two parts of rows * length complex values. */
zipfft_status zipfft__long_axis_append(const zipfft__kernel_spec *pass, int64_t rows,
                                       const zipfft__target *t, zipfft__array src,
                                       zipfft__array dst, zipfft__decomposition *dec);

#endif
