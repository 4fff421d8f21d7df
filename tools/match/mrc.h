/* mrc.h - reads and writes MRC2014 image and volume files (little-endian, float/int16/uint16). */
#ifndef ZIPFFT_MATCH_MRC_H
#define ZIPFFT_MATCH_MRC_H

#include <stddef.h>
#include <stdint.h>

/* A volume in memory: nx*ny*nz floats, x fastest then y then z (an image has nz = 1).
 * pixel_size is the cell length along x divided by its sampling (angstroms per voxel), 0 when
 * the file gives none. data is malloc'ed; release it with mrc_free. */
typedef struct mrc_volume {
  int64_t nx, ny, nz;
  float pixel_size;
  float *data;
} mrc_volume;

/* Reads an MRC2014 file of mode 2 (float32), 1 (int16) or 6 (uint16), little-endian (MACHST
 * 0x44 0x44 or 0x44 0x41, or zero in old files), converting the values to float. The header
 * is validated before anything is allocated: dimensions, mode, axis order 1 2 3, the "MAP "
 * tag, NSYMBT and the file size. Returns 0 and fills *v on success; otherwise returns nonzero,
 * leaves *v untouched and writes a one-line message naming the file, field and value to err
 * (err may be NULL when err_len is 0). Never prints or exits. */
int mrc_read(const char *path, mrc_volume *v, char *err, size_t err_len);

/* Writes nx*ny*nz floats (x fastest) as an MRC2014 mode-2 file with a complete header: "MAP ",
 * little-endian MACHST, dmin/dmax/dmean/rms, cell = n * pixel_size (pixel_size finite, >= 0),
 * axis order 1 2 3, NVERSION 20140. Writes path.tmp and renames it over path, so a failure
 * leaves no file behind. Returns 0, or nonzero with a message in err. */
int mrc_write(const char *path, const float *data, int64_t nx, int64_t ny, int64_t nz,
              float pixel_size, char *err, size_t err_len);

/* Releases the data of a volume read by mrc_read and zeroes it; NULL and zeroed volumes are
 * fine. */
void mrc_free(mrc_volume *v);

#endif
