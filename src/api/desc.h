/* desc.h - the problem description behind zipfft_desc, shared by the API and the planner. */
#ifndef ZIPFFT_DESC_H
#define ZIPFFT_DESC_H

#include "zipfft.h"
#include "plan/callback.h"

enum { ZIPFFT__MAX_RANK = 3 };

/* The most elements an array, a transform or a workspace may span: 2^58, so that an element
 * offset in bytes (at most 16 per element) stays below 2^62 and sums of offsets cannot
 * overflow int64_t. */
#define ZIPFFT__MAX_ELEMENTS ((int64_t)1 << 58)

struct zipfft_desc_s {
  zipfft_type type;
  zipfft_precision precision;
  int rank;
  int64_t lengths[ZIPFFT__MAX_RANK];
  zipfft_direction direction;
  int64_t batch;
  int has_in_strides, has_out_strides;
  int64_t in_strides[ZIPFFT__MAX_RANK], out_strides[ZIPFFT__MAX_RANK];
  int64_t in_dist, out_dist; /* 0 = default */
  zipfft_placement placement;
  double scale;
  zipfft_backend backend;
  int device;
  zipfft_storage in_storage, out_storage;
  /* Zero-padded input and cropped output: elements held along each axis of the input and
   * output arrays (0: the whole axis). */
  int64_t in_extent[ZIPFFT__MAX_RANK], out_extent[ZIPFFT__MAX_RANK];
  /* User callbacks (owned: malloc'ed strings, freed with the description or the plan). */
  zipfft__callback load_callback, store_callback;
};

/* Copies a description's callback strings (after a struct copy of it), so that the copy
 * owns its own; returns OUT_OF_MEMORY on failure (the copy then owns none). */
zipfft_status zipfft__desc_own_callbacks(struct zipfft_desc_s *d);
/* Frees a description's callback strings. */
void zipfft__desc_free_callbacks(struct zipfft_desc_s *d);
/* Frees a description (NULL ignored) as zipfft_desc_destroy does, but keeps the thread's
 * last error: for the library's own descriptions, freed after a failure it reports. */
void zipfft__desc_release(struct zipfft_desc_s *d);

/* The layout of a batched transform after defaults are applied (element units). */
typedef struct zipfft__layout {
  int64_t in_strides[ZIPFFT__MAX_RANK], out_strides[ZIPFFT__MAX_RANK];
  int64_t in_dist, out_dist;
} zipfft__layout;

/* Resolves defaults (row-major strides, dist = whole array) and checks that outputs do not
 * overlap and that an in-place layout reads and writes the same elements. Returns
 * INVALID_LAYOUT with a detail otherwise. */
zipfft_status zipfft__desc_layout(const struct zipfft_desc_s *d, zipfft__layout *out);
/* a * b for a, b >= 0, or INT64_MAX when it overflows (a size check then rejects it). */
int64_t zipfft__saturating_product(int64_t a, int64_t b);

/* Exponent sign of the transform: -1 for R2C, +1 for C2R, the set direction for C2C. */
int zipfft__desc_sign(const struct zipfft_desc_s *d);

/* Logical lengths of the input (out = 0) or output (out = 1) array: the transform's
 * lengths, with the last one n/2+1 on the complex side of R2C (output) and C2R (input). */
void zipfft__array_lengths(const struct zipfft_desc_s *d, int out, int64_t *lengths);
/* Lengths of the input or output array as stored: the extents where set, else the logical
 * lengths. */
void zipfft__array_extents(const struct zipfft_desc_s *d, int out, int64_t *extents);
/* 1 when an input or output extent is set smaller than its axis. */
int zipfft__desc_has_extents(const struct zipfft_desc_s *d);

/* Checks the storage types against the precision and placement (INVALID_STORAGE). */
zipfft_status zipfft__desc_check_storage(const struct zipfft_desc_s *d);

#endif
