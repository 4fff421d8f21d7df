/* cuda.h - CUDA backend helpers beyond backend.h: device probing and device description. */
#ifndef ZIPFFT_CUDA_H
#define ZIPFFT_CUDA_H

#include <stddef.h>

#include "backend/backend.h"

/* 1 when the CUDA driver loads and device is an existing ordinal, else 0 (used to resolve
 * ZIPFFT_BACKEND_AUTO). Never records an error. */
int zipfft__cuda_device_usable(int device);

/* Describes the device of a backend opened by zipfft__cuda_open: its name (NUL-terminated,
 * truncated to len bytes; may be NULL when len is 0) and its multiprocessor count (sm_count
 * may be NULL). INVALID_BACKEND when b is not a CUDA backend. */
zipfft_status zipfft__cuda_device_info(zipfft__backend *b, char *name, size_t len, int *sm_count);

#endif
