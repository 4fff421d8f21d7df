/* png.h - writes 8-bit grayscale PNG files with no dependency (stored deflate blocks). */
#ifndef ZIPFFT_MATCH_PNG_H
#define ZIPFFT_MATCH_PNG_H

#include <stddef.h>
#include <stdint.h>

/* Writes width x height 8-bit gray pixels (row-major, width*height bytes) as a PNG file:
 * IHDR, the zlib stream of stored (uncompressed) deflate blocks in IDAT chunks, IEND.
 * width and height in [1, 65536]. Writes path.tmp and renames it over path, so a failure leaves
 * no file behind. Returns 0, or nonzero with a one-line message in err (err may be NULL when
 * err_len is 0). */
int png_write_gray8(const char *path, const uint8_t *pixels, int width, int height, char *err,
                    size_t err_len);

/* Maps a float image (row-major) to 8 bits linearly, rounding to nearest: lo -> 0, hi -> 255,
 * values beyond clamped, NaN -> 0, every pixel 0 when lo == hi; lo and hi must be finite. Then
 * writes it as png_write_gray8 does. Returns 0, or nonzero with a message in err. */
int png_write_float(const char *path, const float *map, int width, int height, float lo, float hi,
                    char *err, size_t err_len);

#endif
