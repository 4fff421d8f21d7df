/* search.h - the 2DTM search of `zipfft match`: every template of a stack correlated with a
 * micrograph through a zipfft_corr plan, reduced to per-position statistics. */
#ifndef ZIPFFT_MATCH_SEARCH_H
#define ZIPFFT_MATCH_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "zipfft.h"

/* The maps of a search over the valid region (w = image_w - template_w + 1 by h = image_h -
 * template_h + 1, row-major): position (x, y) is the template's top-left corner. max is the
 * highest correlation over the templates, index the template that gave it (lowest on
 * ties), mean and stddev the statistics of the correlations over the templates, zscore
 * (max - mean) / stddev (the library's per-position z-score). backend is the backend that
 * ran. Arrays are malloc'ed; release them with match_maps_free. */
typedef struct match_maps {
  int w, h;
  float *max, *mean, *stddev, *zscore;
  int32_t *index;
  zipfft_backend backend;
} match_maps;

/* How a search runs: the backend (AUTO: the GPU when there is one), and how the plan keeps
 * the image spectrum and the intermediate array: ZIPFFT_STORAGE_DEFAULT (fp32) or
 * ZIPFFT_STORAGE_F16 (both in F16: faster on the GPU, maps within about 2e-4 of fp32). */
typedef struct match_engine {
  zipfft_backend backend;
  zipfft_storage storage;
} match_engine;

/* Called after each batch: done of total templates correlated so far. */
typedef void (*match_progress)(int64_t done, int64_t total, void *user);

/* Normalises a copy of the image (zero mean, unit variance) and of each template
 * (normalize_template with padded_count = image pixels), creates a zipfft_corr plan (F32,
 * rank 2, lengths {image_h, image_w}, signal {template_h, template_w}, CORRELATE,
 * REGION_VALID, the engine's backend on device 0 and storage) taking up to batch templates per
 * call, sets the image as its filter, resets the statistics and accumulates the stack (count
 * templates of template_w * template_h floats, one after the other) in batches, template k
 * numbered k; calls progress (when not NULL) after each batch; finalizes into *maps.
 * On CUDA the image and each batch are copied to device buffers of its own (device 0's
 * primary context is made current for the call). The inputs are not modified. Returns 0,
 * or nonzero with a one-line message in err (library failures name the status and
 * zipfft_last_error) and *maps zeroed. Never prints or exits. */
int match_search(const float *image, int image_w, int image_h, const float *templates,
                 int template_w, int template_h, int count, int batch, match_engine engine,
                 match_progress progress, void *user, match_maps *maps, char *err, size_t err_len);

/* Writes into z (m->w * m->h floats) the maximum map in units of the spread of every
 * correlation of the search: (max - mu) / sigma, where mu and sigma are the mean and standard
 * deviation over all positions and templates, recovered from the mean and stddev maps (all
 * 0 when sigma is 0). Unlike the per-position zscore, which cannot exceed sqrt(templates - 1)
 * and is only meaningful for stacks of thousands of templates, it ranks positions as the
 * maximum does, so its peaks are the maximum's peaks. */
void match_global_zscore(const match_maps *m, float *z);

/* Releases the arrays of maps filled by match_search and zeroes it; NULL and zeroed maps are
 * fine. */
void match_maps_free(match_maps *m);

#endif
