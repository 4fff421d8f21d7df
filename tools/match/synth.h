/* synth.h - a deterministic synthetic data set for `zipfft match`: a noisy micrograph with
 * copies of known templates planted at known places, and the template stack. */
#ifndef ZIPFFT_MATCH_SYNTH_H
#define ZIPFFT_MATCH_SYNTH_H

#include <stddef.h>
#include <stdint.h>

/* What to generate. */
typedef struct synth_params {
  int image_w, image_h; /* micrograph, e.g. 1024 x 1024 */
  int template_size;    /* templates are square, e.g. 128 */
  int shapes;           /* distinct base particles, e.g. 3 */
  int rotations;        /* rotations per shape in the stack, evenly spaced over 360 degrees */
  int planted;          /* copies placed in the image, e.g. 6 */
  float noise_sigma;    /* Gaussian noise standard deviation (signal peak ~1), e.g. 1.0 */
  uint64_t seed;
} synth_params;

/* One planted copy: x, y is its top-left corner in the image; template_index is
 * shape * rotations + rotation. */
typedef struct synth_truth {
  int x, y;
  int template_index;
} synth_truth;

/* Fills *image (image_w * image_h floats, row-major, x fastest), *templates (shapes *
 * rotations templates of template_size^2 floats each, template k = shape * rotations +
 * rotation) and truth[0..planted-1] (caller-sized; may be NULL when planted is 0).
 *
 * Each shape is a sum of 3 to 6 Gaussian blobs inside a disc of radius 0.35 * template_size
 * about the template centre ((size - 1) / 2, (size - 1) / 2), scaled so that its rotation 0
 * peaks at 1. Rotation r turns the blobs by r * 360 / rotations degrees (counter-clockwise
 * in x right, y down coordinates) and samples them analytically, so every template is exact.
 * The copies are exact stack templates added into a zero image (so a "valid"
 * cross-correlation peaks exactly at (x, y)), fully inside it and not overlapping each
 * other; then noise of standard deviation noise_sigma is added to every pixel.
 *
 * Shapes, placements and noise come from separate streams of the seed: the shapes do not
 * depend on rotations, planted or the image size, and noise_sigma changes only the noise
 * (a run with noise_sigma = 0 gives the noise-free image of the same data set).
 *
 * All buffers are malloc'ed (the caller frees them). Returns 0, or nonzero with a message
 * in err (and *image = *templates = NULL) for bad parameters, copies that cannot be placed,
 * or lack of memory. */
int synth_make(const synth_params *p, float **image, float **templates, synth_truth *truth,
               char *err, size_t err_len);

#endif
