/* png.c - 8-bit grayscale PNG writer: stored deflate blocks, own CRC-32 and Adler-32, no zlib. */
#include "png.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PNG_MAX_SIDE 65536
#define STORED_BLOCK_MAX 65535 /* deflate's LEN is 16 bits */
#define IDAT_BYTES (1 << 16)   /* the zlib stream is cut into IDAT chunks of this size */
#define ADLER_MOD 65521u
#define ADLER_RUN 5552 /* most bytes before the 32-bit sums may overflow */

static const uint8_t PNG_SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static void put_be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* CRC-32 of PNG chunks (reflected polynomial 0xEDB88320), one table entry per byte value. */
static void crc_table_init(uint32_t table[256]) {
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
}

/* Continues a CRC (start at 0xFFFFFFFF, complement at the end) over n bytes. */
static uint32_t crc_update(const uint32_t table[256], uint32_t crc, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

/* Adler-32 of zlib streams, over the uncompressed bytes. */
static uint32_t adler32(const uint8_t *p, size_t n) {
  uint32_t a = 1, b = 0;
  while (n > 0) {
    size_t run = n < ADLER_RUN ? n : ADLER_RUN;
    for (size_t i = 0; i < run; i++) {
      a += p[i];
      b += a;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
    p += run;
    n -= run;
  }
  return b << 16 | a;
}

/* An open PNG file: chunks go straight out, the zlib stream through the IDAT buffer. */
typedef struct png_out {
  FILE *f;
  int ok; /* 0 after the first failed write */
  uint32_t crc_table[256];
  uint8_t idat[IDAT_BYTES];
  size_t idat_len;
} png_out;

static void write_bytes(png_out *o, const void *p, size_t n) {
  if (o->ok && n > 0) o->ok = fwrite(p, 1, n, o->f) == n;
}

/* Length, type, data and CRC (over type and data) of one chunk. */
static void write_chunk(png_out *o, const char type[4], const uint8_t *data, size_t len) {
  uint8_t head[8], crc_bytes[4];
  put_be32(head, (uint32_t)len);
  memcpy(head + 4, type, 4);
  uint32_t crc = crc_update(o->crc_table, 0xFFFFFFFFu, head + 4, 4);
  put_be32(crc_bytes, ~crc_update(o->crc_table, crc, data, len));
  write_bytes(o, head, sizeof head);
  write_bytes(o, data, len);
  write_bytes(o, crc_bytes, sizeof crc_bytes);
}

static void idat_flush(png_out *o) {
  if (o->idat_len > 0) write_chunk(o, "IDAT", o->idat, o->idat_len);
  o->idat_len = 0;
}

/* Appends bytes to the zlib stream, emitting an IDAT chunk each time the buffer fills. */
static void idat_put(png_out *o, const uint8_t *p, size_t n) {
  while (n > 0) {
    size_t take = IDAT_BYTES - o->idat_len < n ? IDAT_BYTES - o->idat_len : n;
    memcpy(o->idat + o->idat_len, p, take);
    o->idat_len += take;
    p += take;
    n -= take;
    if (o->idat_len == IDAT_BYTES) idat_flush(o);
  }
}

/* The zlib stream of raw: header 0x78 0x01, stored blocks (BFINAL on the last), Adler-32. */
static void write_zlib_stored(png_out *o, const uint8_t *raw, size_t raw_len) {
  static const uint8_t zlib_header[2] = {0x78, 0x01}; /* deflate, 32K window, check bits */
  idat_put(o, zlib_header, sizeof zlib_header);
  size_t done = 0;
  do {
    size_t len = raw_len - done < STORED_BLOCK_MAX ? raw_len - done : STORED_BLOCK_MAX;
    int final = done + len == raw_len;
    uint8_t block[5] = {(uint8_t)(final ? 1 : 0), (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)~len,
                        (uint8_t)(~len >> 8)};
    idat_put(o, block, sizeof block);
    idat_put(o, raw + done, len);
    done += len;
  } while (done < raw_len);
  uint8_t check[4];
  put_be32(check, adler32(raw, raw_len));
  idat_put(o, check, sizeof check);
  idat_flush(o);
}

/* Each row preceded by its filter type byte, 0 (none). */
static uint8_t *scanlines(const uint8_t *pixels, size_t width, size_t height) {
  uint8_t *raw = malloc((width + 1) * height);
  if (!raw) return NULL;
  for (size_t y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0;
    memcpy(raw + y * (width + 1) + 1, pixels + y * width, width);
  }
  return raw;
}

static void write_png(png_out *o, const uint8_t *raw, uint32_t width, uint32_t height) {
  uint8_t ihdr[13] = {0};
  put_be32(ihdr, width);
  put_be32(ihdr + 4, height);
  ihdr[8] = 8; /* bit depth; colour type 0 (gray), compression, filter, interlace 0 */
  write_bytes(o, PNG_SIGNATURE, sizeof PNG_SIGNATURE);
  write_chunk(o, "IHDR", ihdr, sizeof ihdr);
  write_zlib_stored(o, raw, ((size_t)width + 1) * height);
  write_chunk(o, "IEND", NULL, 0);
}

/* Writes a new file at path from the scanlines raw. */
static int write_file(const char *path, const uint8_t *raw, int width, int height, char *err,
                      size_t err_len) {
  png_out *o = malloc(sizeof *o);
  if (!o) return match_fail(err, err_len, "%s: out of memory", path);
  o->f = fopen(path, "wb");
  if (!o->f) {
    int saved_errno = errno;
    free(o);
    return match_fail(err, err_len, "%s: cannot create: %s", path, strerror(saved_errno));
  }
  o->ok = 1;
  o->idat_len = 0;
  crc_table_init(o->crc_table);
  write_png(o, raw, (uint32_t)width, (uint32_t)height);
  int saved_errno = errno;
  if (fclose(o->f) != 0 && o->ok) {
    o->ok = 0;
    saved_errno = errno;
  }
  int ok = o->ok;
  free(o);
  if (!ok) return match_fail(err, err_len, "%s: write failed: %s", path, strerror(saved_errno));
  return 0;
}

static int check_size(const char *path, int width, int height, char *err, size_t err_len) {
  if (width < 1 || width > PNG_MAX_SIDE || height < 1 || height > PNG_MAX_SIDE)
    return match_fail(err, err_len, "%s: image size %d x %d out of range (1 to %d)", path, width,
                      height, PNG_MAX_SIDE);
  return 0;
}

int png_write_gray8(const char *path, const uint8_t *pixels, int width, int height, char *err,
                    size_t err_len) {
  if (!path || !pixels)
    return match_fail(err, err_len, "png_write_gray8: %s is NULL", path ? "pixels" : "path");
  if (check_size(path, width, height, err, err_len)) return 1;
  size_t tmp_len = strlen(path) + sizeof ".tmp";
  char *tmp = malloc(tmp_len);
  uint8_t *raw = scanlines(pixels, (size_t)width, (size_t)height);
  int rc = 0;
  if (!tmp || !raw) {
    rc = match_fail(err, err_len, "%s: out of memory", path);
  } else {
    snprintf(tmp, tmp_len, "%s.tmp", path);
    rc = write_file(tmp, raw, width, height, err, err_len);
    if (rc == 0 && rename(tmp, path) != 0)
      rc = match_fail(err, err_len, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
    if (rc) unlink(tmp); /* a file only: never a directory of that name */
  }
  free(raw);
  free(tmp);
  return rc;
}

/* lo -> 0, lo + 255 / scale -> 255, rounded to nearest; NaN -> 0. */
static uint8_t to_byte(float x, double lo, double scale) {
  double t = ((double)x - lo) * scale;
  if (!(t > 0.0)) return 0; /* NaN too */
  if (t >= 255.0) return 255;
  return (uint8_t)(t + 0.5);
}

int png_write_float(const char *path, const float *map, int width, int height, float lo, float hi,
                    char *err, size_t err_len) {
  if (!path || !map)
    return match_fail(err, err_len, "png_write_float: %s is NULL", path ? "map" : "path");
  if (check_size(path, width, height, err, err_len)) return 1;
  if (!isfinite(lo) || !isfinite(hi))
    return match_fail(err, err_len, "%s: range %g to %g must be finite", path, (double)lo,
                      (double)hi);
  size_t count = (size_t)width * (size_t)height;
  uint8_t *pixels = malloc(count);
  if (!pixels) return match_fail(err, err_len, "%s: out of memory for %zu pixels", path, count);
  double scale = lo == hi ? 0.0 : 255.0 / ((double)hi - (double)lo);
  for (size_t i = 0; i < count; i++) pixels[i] = to_byte(map[i], lo, scale);
  int rc = png_write_gray8(path, pixels, width, height, err, err_len);
  free(pixels);
  return rc;
}
