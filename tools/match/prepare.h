/* prepare.h - data helpers of `zipfft match`: template and image normalisation, peak
 * picking with non-maximum suppression, and the CSV of detected particles. */
#ifndef ZIPFFT_MATCH_PREPARE_H
#define ZIPFFT_MATCH_PREPARE_H

#include <stddef.h>
#include <stdint.h>

/* Subtracts the mean of the count template pixels, then scales them so that the template
 * zero-padded to padded_count pixels has unit variance: sum(t^2) = padded_count. A constant
 * template (zero variance) is left all zero. Accumulates in double. */
void normalize_template(float *t, int64_t count, int64_t padded_count);

/* Zero mean, unit variance over all count pixels: sum(image^2) = count (a constant image
 * becomes all zero). Accumulates in double. */
void normalize_image(float *image, int64_t count);

/* One detected peak of a map. */
typedef struct peak {
  int x, y;
  float value;
} peak;

/* Local maxima of map (w x h, row-major) with value >= threshold: pixels not below any of
 * their (up to 8) neighbours, NaN pixels ignored. Greedy non-maximum suppression: take the
 * highest, discard the others within Chebyshev distance < radius of it, repeat. Writes at
 * most max_peaks into out, sorted by value descending (ties: lower y, then lower x first);
 * returns how many, or -1 when out of memory. */
int find_peaks(const float *map, int w, int h, float threshold, int radius, peak *out,
               int max_peaks);

/* Writes a CSV: header "x,y,zscore,max,template_index", then one line per peak: its x, y
 * and value (the z-score), and max_map and index_map (w wide) read at the peak, which must
 * lie in the maps. Writes path.tmp, then renames it to path. Returns 0, or nonzero with a
 * message in err (and no file left behind). */
int write_peaks_csv(const char *path, const peak *peaks, int count, const float *max_map,
                    const int32_t *index_map, int w, char *err, size_t err_len);

#endif
