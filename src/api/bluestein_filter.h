/* bluestein_filter.h - Bluestein's filter for a pass through the workspace, computed on
 * the plan's backend (api/bluestein_filter.c). */
#ifndef ZIPFFT_BLUESTEIN_FILTER_H
#define ZIPFFT_BLUESTEIN_FILTER_H

#include "backend/backend.h"
#include "plan/kernel_spec.h"

/* Writes the filter of a pointwise FILTER kernel s (length s->n, for Bluestein length
 * s->bluestein_n) into its host table at the table layout's filter offset, rounded to the
 * kernel's precision. The filter is the n-point FFT (sign s->sign) of the conjugate chirp,
 * divided by n: a long-double host FFT would take minutes at the lengths that need it, so
 * an fp64 zipfft plan does it on the same backend (kind, device; buffers from b). */
zipfft_status zipfft__bluestein_filter(const zipfft__kernel_spec *s, zipfft_backend kind,
                                       int device, zipfft__backend *b, void *table);

/* The backend memory zipfft__bluestein_filter holds while it runs (its buffer and the fp64
 * plan's workspace; the plan's tables are small beside them), bytes. */
uint64_t zipfft__bluestein_filter_bytes(const zipfft__kernel_spec *s);

#endif
