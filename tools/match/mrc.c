/* mrc.c - MRC2014 reader (modes 2, 1, 6 to float) and writer (mode 2), byte order explicit. */
#include "mrc.h"
#include "report.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define MRC_HEADER_BYTES 1024
#define MRC_LABEL_BYTES 80
#define MRC_VERSION 20140
#define MRC_MAX_SIDE (INT64_C(1) << 20)
#define MRC_MAX_ELEMENTS (INT64_C(1) << 34)
#define MRC_CHUNK_BYTES (1 << 16)

/* Byte offsets of the header words: word w of the standard (counted from 1) is at 4 * (w - 1). */
enum {
  OFF_NX = 0,    /* NX, NY, NZ: columns, rows, sections */
  OFF_MODE = 12, /* data type */
  OFF_MX = 28,   /* MX, MY, MZ: sampling along the cell */
  OFF_CELL = 40, /* cell lengths in angstroms (3 floats) */
  OFF_ANGLES = 52,
  OFF_AXES = 64, /* MAPC, MAPR, MAPS */
  OFF_DMIN = 76,
  OFF_DMAX = 80,
  OFF_DMEAN = 84,
  OFF_ISPG = 88,
  OFF_NSYMBT = 92, /* extended header bytes */
  OFF_NVERSION = 108,
  OFF_MAP = 208,
  OFF_MACHST = 212,
  OFF_RMS = 216,
  OFF_NLABL = 220,
  OFF_LABELS = 224,
};

static const char *const AXIS_NAMES[3] = {"NX", "NY", "NZ"};

/* Little-endian words, read and written byte by byte whatever the host's order. */
static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int32_t get_i32(const uint8_t *p) {
  uint32_t u = get_u32(p);
  return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

static float get_f32(const uint8_t *p) {
  uint32_t u = get_u32(p);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static void put_u32(uint8_t *p, uint32_t u) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(u >> (8 * i));
}

static void put_i32(uint8_t *p, int32_t v) { put_u32(p, (uint32_t)v); }

static void put_f32(uint8_t *p, float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  put_u32(p, u);
}

/* Decoders of the supported data modes: count little-endian values to floats. */
static void decode_f32(const uint8_t *in, float *out, size_t count) {
  for (size_t i = 0; i < count; i++) out[i] = get_f32(in + 4 * i);
}

static void decode_i16(const uint8_t *in, float *out, size_t count) {
  for (size_t i = 0; i < count; i++) {
    int u = in[2 * i] | in[2 * i + 1] << 8;
    out[i] = (float)(u < 0x8000 ? u : u - 0x10000);
  }
}

static void decode_u16(const uint8_t *in, float *out, size_t count) {
  for (size_t i = 0; i < count; i++) out[i] = (float)(in[2 * i] | in[2 * i + 1] << 8);
}

typedef struct mrc_mode {
  int32_t mode;
  size_t bytes; /* per value */
  const char *name;
  void (*decode)(const uint8_t *in, float *out, size_t count);
} mrc_mode;

static const mrc_mode MODES[] = {
    {2, 4, "float32", decode_f32},
    {1, 2, "int16", decode_i16},
    {6, 2, "uint16", decode_u16},
};

static const mrc_mode *find_mode(int32_t mode) {
  for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++)
    if (MODES[i].mode == mode) return &MODES[i];
  return NULL;
}

/* What the reader learns from a header, filled in step by step by the checks below. */
typedef struct mrc_header {
  const uint8_t *raw; /* the 1024 header bytes */
  int64_t file_bytes;
  int64_t n[3];
  const mrc_mode *mode;
  int64_t nsymbt;
  float pixel_size;
} mrc_header;

typedef int (*header_check)(const char *path, mrc_header *h, char *err, size_t err_len);

/* Accepts the little-endian stamps 0x44 0x44 and 0x44 0x41 and the zero word of old files. */
static int check_byte_order(const char *path, mrc_header *h, char *err, size_t err_len) {
  const uint8_t *s = h->raw + OFF_MACHST;
  if (s[0] == 0x44 && (s[1] == 0x44 || s[1] == 0x41)) return 0;
  if (s[0] == 0x11 && s[1] == 0x11)
    return match_fail(err, err_len, "%s: MACHST 0x11 0x11: big-endian file, not supported", path);
  if (get_u32(s) == 0) return 0;
  return match_fail(err, err_len,
                    "%s: MACHST 0x%02x 0x%02x 0x%02x 0x%02x: unknown byte-order stamp", path, s[0],
                    s[1], s[2], s[3]);
}

/* Accepts "MAP ", "MAP\0" and the zero word of old files. */
static int check_map_tag(const char *path, mrc_header *h, char *err, size_t err_len) {
  const uint8_t *m = h->raw + OFF_MAP;
  if (memcmp(m, "MAP", 3) == 0 && (m[3] == ' ' || m[3] == 0)) return 0;
  if (get_u32(m) == 0) return 0;
  return match_fail(err, err_len,
                    "%s: MAP tag bytes 0x%02x 0x%02x 0x%02x 0x%02x, expected \"MAP \"", path, m[0],
                    m[1], m[2], m[3]);
}

/* Byte-swaps a 32-bit word: a mode that is only known swapped hints at a big-endian file. */
static int32_t swapped_i32(const uint8_t *p) {
  uint8_t r[4] = {p[3], p[2], p[1], p[0]};
  return get_i32(r);
}

static int check_mode(const char *path, mrc_header *h, char *err, size_t err_len) {
  int32_t mode = get_i32(h->raw + OFF_MODE);
  h->mode = find_mode(mode);
  if (h->mode) return 0;
  const char *hint = find_mode(swapped_i32(h->raw + OFF_MODE)) ? "; the file looks big-endian" : "";
  return match_fail(err, err_len, "%s: MODE %ld not supported (2 float32, 1 int16, 6 uint16)%s",
                    path, (long)mode, hint);
}

/* Each side in [1, MRC_MAX_SIDE] and the product at most MRC_MAX_ELEMENTS; n[] is unchanged. */
static int check_dims(const char *path, const int64_t n[3], char *err, size_t err_len) {
  for (int i = 0; i < 3; i++)
    if (n[i] < 1 || n[i] > MRC_MAX_SIDE)
      return match_fail(err, err_len, "%s: %s = %lld out of range (1 to %lld)", path, AXIS_NAMES[i],
                        (long long)n[i], (long long)MRC_MAX_SIDE);
  int64_t total = n[0] * n[1] * n[2]; /* at most 2^60: no overflow */
  if (total > MRC_MAX_ELEMENTS)
    return match_fail(err, err_len, "%s: NX*NY*NZ = %lld elements exceeds the limit of %lld", path,
                      (long long)total, (long long)MRC_MAX_ELEMENTS);
  return 0;
}

static int check_header_dims(const char *path, mrc_header *h, char *err, size_t err_len) {
  for (int i = 0; i < 3; i++) h->n[i] = get_i32(h->raw + OFF_NX + 4 * i);
  return check_dims(path, h->n, err, err_len);
}

/* The data must be stored x fastest: MAPC/MAPR/MAPS 1 2 3 (or zero in old files). */
static int check_axis_order(const char *path, mrc_header *h, char *err, size_t err_len) {
  int32_t axis[3];
  int identity = 1, zero = 1;
  for (int i = 0; i < 3; i++) {
    axis[i] = get_i32(h->raw + OFF_AXES + 4 * i);
    identity &= axis[i] == i + 1;
    zero &= axis[i] == 0;
  }
  if (identity || zero) return 0;
  return match_fail(err, err_len, "%s: MAPC/MAPR/MAPS = %ld %ld %ld not supported (need 1 2 3)",
                    path, (long)axis[0], (long)axis[1], (long)axis[2]);
}

static int check_nsymbt(const char *path, mrc_header *h, char *err, size_t err_len) {
  h->nsymbt = get_i32(h->raw + OFF_NSYMBT);
  if (h->nsymbt >= 0) return 0;
  return match_fail(err, err_len, "%s: NSYMBT = %lld is negative", path, (long long)h->nsymbt);
}

static int check_file_size(const char *path, mrc_header *h, char *err, size_t err_len) {
  int64_t data_bytes = h->n[0] * h->n[1] * h->n[2] * (int64_t)h->mode->bytes;
  int64_t expected = MRC_HEADER_BYTES + h->nsymbt + data_bytes;
  if (h->file_bytes == expected) return 0;
  return match_fail(err, err_len,
                    "%s: %s: expected %lld bytes (1024 header + NSYMBT %lld + %lld data), "
                    "file has %lld",
                    path, h->file_bytes < expected ? "truncated" : "longer than its header says",
                    (long long)expected, (long long)h->nsymbt, (long long)data_bytes,
                    (long long)h->file_bytes);
}

/* Cell length along x over its sampling MX; 0 when either is missing or unusable. */
static float header_pixel_size(const uint8_t *raw) {
  int32_t mx = get_i32(raw + OFF_MX);
  float cell = get_f32(raw + OFF_CELL);
  if (mx <= 0 || !isfinite(cell) || cell <= 0) return 0.0f;
  return cell / (float)mx;
}

/* In order: each check may rely on the fields the ones before it filled in. */
static const header_check HEADER_CHECKS[] = {
    check_byte_order, check_map_tag, check_mode,      check_header_dims,
    check_axis_order, check_nsymbt,  check_file_size,
};

/* Reads the 1024-byte header of the open file into raw and validates it into *h. */
static int read_header(FILE *f, const char *path, uint8_t *raw, mrc_header *h, char *err,
                       size_t err_len) {
  struct stat st;
  if (fstat(fileno(f), &st) != 0)
    return match_fail(err, err_len, "%s: cannot stat: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return match_fail(err, err_len, "%s: not a regular file", path);
  if (st.st_size < MRC_HEADER_BYTES)
    return match_fail(err, err_len, "%s: file is %lld bytes, shorter than the 1024-byte MRC header",
                      path, (long long)st.st_size);
  if (fread(raw, 1, MRC_HEADER_BYTES, f) != MRC_HEADER_BYTES)
    return match_fail(err, err_len, "%s: cannot read the 1024-byte header", path);
  *h = (mrc_header){.raw = raw, .file_bytes = (int64_t)st.st_size};
  for (size_t i = 0; i < sizeof HEADER_CHECKS / sizeof HEADER_CHECKS[0]; i++)
    if (HEADER_CHECKS[i](path, h, err, err_len)) return 1;
  h->pixel_size = header_pixel_size(raw);
  return 0;
}

/* Reads and converts the data that follows the extended header into out. */
static int read_data(FILE *f, const char *path, const mrc_header *h, float *out, char *err,
                     size_t err_len) {
  if (fseeko(f, (off_t)(MRC_HEADER_BYTES + h->nsymbt), SEEK_SET) != 0)
    return match_fail(err, err_len, "%s: cannot seek past NSYMBT %lld: %s", path,
                      (long long)h->nsymbt, strerror(errno));
  uint8_t *chunk = malloc(MRC_CHUNK_BYTES);
  if (!chunk) return match_fail(err, err_len, "%s: out of memory", path);
  int64_t total = h->n[0] * h->n[1] * h->n[2];
  int64_t per_chunk = MRC_CHUNK_BYTES / (int64_t)h->mode->bytes;
  int rc = 0;
  for (int64_t done = 0; done < total && rc == 0; done += per_chunk) {
    size_t count = (size_t)(total - done < per_chunk ? total - done : per_chunk);
    if (fread(chunk, h->mode->bytes, count, f) != count)
      rc = match_fail(err, err_len, "%s: read failed after %lld of %lld values", path,
                      (long long)done, (long long)total);
    else
      h->mode->decode(chunk, out + done, count);
  }
  free(chunk);
  return rc;
}

/* Validates the header of the open file and reads its data; *data is malloc'ed on success only. */
static int read_file(FILE *f, const char *path, mrc_header *h, float **data, char *err,
                     size_t err_len) {
  uint8_t raw[MRC_HEADER_BYTES];
  if (read_header(f, path, raw, h, err, err_len)) return 1;
  h->raw = NULL; /* raw goes out of scope */
  size_t bytes = (size_t)(h->n[0] * h->n[1] * h->n[2]) * sizeof(float);
  float *out = malloc(bytes);
  if (!out) return match_fail(err, err_len, "%s: out of memory for %zu bytes", path, bytes);
  if (read_data(f, path, h, out, err, err_len)) {
    free(out);
    return 1;
  }
  *data = out;
  return 0;
}

int mrc_read(const char *path, mrc_volume *v, char *err, size_t err_len) {
  if (!path || !v) return match_fail(err, err_len, "mrc_read: %s is NULL", path ? "v" : "path");
  FILE *f = fopen(path, "rb");
  if (!f) return match_fail(err, err_len, "%s: cannot open: %s", path, strerror(errno));
  mrc_header h;
  float *data = NULL;
  int rc = read_file(f, path, &h, &data, err, err_len);
  fclose(f);
  if (rc) return rc;
  *v = (mrc_volume){h.n[0], h.n[1], h.n[2], h.pixel_size, data};
  return 0;
}

typedef struct mrc_stats {
  float min, max, mean, rms; /* rms: deviation from the mean */
} mrc_stats;

static mrc_stats compute_stats(const float *data, int64_t count) {
  double min = data[0], max = data[0], sum = 0.0, squares = 0.0;
  for (int64_t i = 0; i < count; i++) {
    if (data[i] < min) min = data[i];
    if (data[i] > max) max = data[i];
    sum += data[i];
  }
  double mean = sum / (double)count;
  for (int64_t i = 0; i < count; i++) squares += (data[i] - mean) * (data[i] - mean);
  return (mrc_stats){(float)min, (float)max, (float)mean, (float)sqrt(squares / (double)count)};
}

/* A complete mode-2 header for the volume n[0] x n[1] x n[2]. */
static void build_header(uint8_t *h, const int64_t n[3], float pixel_size, const mrc_stats *s) {
  static const char label[] = "zipfft match";
  memset(h, 0, MRC_HEADER_BYTES);
  for (int i = 0; i < 3; i++) /* a cell beyond fp32 (an absurd input pixel size): unknown */
    if ((double)n[i] * pixel_size > FLT_MAX) pixel_size = 0.0f;
  for (int i = 0; i < 3; i++) {
    put_i32(h + OFF_NX + 4 * i, (int32_t)n[i]);
    put_i32(h + OFF_MX + 4 * i, (int32_t)n[i]);
    put_f32(h + OFF_CELL + 4 * i, (float)((double)n[i] * pixel_size));
    put_f32(h + OFF_ANGLES + 4 * i, 90.0f);
    put_i32(h + OFF_AXES + 4 * i, i + 1);
  }
  put_i32(h + OFF_MODE, 2);
  put_f32(h + OFF_DMIN, s->min);
  put_f32(h + OFF_DMAX, s->max);
  put_f32(h + OFF_DMEAN, s->mean);
  put_i32(h + OFF_ISPG, n[2] > 1 ? 1 : 0); /* 1: a volume; 0: an image */
  put_i32(h + OFF_NVERSION, MRC_VERSION);
  memcpy(h + OFF_MAP, "MAP ", 4);
  memcpy(h + OFF_MACHST, (const uint8_t[]){0x44, 0x44, 0, 0}, 4);
  put_f32(h + OFF_RMS, s->rms);
  put_i32(h + OFF_NLABL, 1);
  memset(h + OFF_LABELS, ' ', MRC_LABEL_BYTES);
  memcpy(h + OFF_LABELS, label, sizeof label - 1);
}

/* Writes the header and the data as little-endian floats to a new file at path. */
static int write_file(const char *path, const uint8_t *header, const float *data, int64_t count,
                      char *err, size_t err_len) {
  FILE *f = fopen(path, "wb");
  if (!f) return match_fail(err, err_len, "%s: cannot create: %s", path, strerror(errno));
  uint8_t *chunk = malloc(MRC_CHUNK_BYTES);
  int ok = chunk && fwrite(header, 1, MRC_HEADER_BYTES, f) == MRC_HEADER_BYTES;
  for (int64_t done = 0; ok && done < count; done += MRC_CHUNK_BYTES / 4) {
    int64_t n = count - done < MRC_CHUNK_BYTES / 4 ? count - done : MRC_CHUNK_BYTES / 4;
    for (int64_t i = 0; i < n; i++) put_f32(chunk + 4 * i, data[done + i]);
    ok = fwrite(chunk, 4, (size_t)n, f) == (size_t)n;
  }
  int saved_errno = errno;
  free(chunk);
  if (fclose(f) != 0 && ok) {
    ok = 0;
    saved_errno = errno;
  }
  if (!ok) return match_fail(err, err_len, "%s: write failed: %s", path, strerror(saved_errno));
  return 0;
}

int mrc_write(const char *path, const float *data, int64_t nx, int64_t ny, int64_t nz,
              float pixel_size, char *err, size_t err_len) {
  if (!path || !data)
    return match_fail(err, err_len, "mrc_write: %s is NULL", path ? "data" : "path");
  const int64_t n[3] = {nx, ny, nz};
  if (check_dims(path, n, err, err_len)) return 1;
  if (!isfinite(pixel_size) || pixel_size < 0)
    return match_fail(err, err_len, "%s: pixel size %g must be finite and >= 0", path,
                      (double)pixel_size);
  uint8_t header[MRC_HEADER_BYTES];
  mrc_stats stats = compute_stats(data, nx * ny * nz);
  build_header(header, n, pixel_size, &stats);
  size_t tmp_len = strlen(path) + sizeof ".tmp";
  char *tmp = malloc(tmp_len);
  if (!tmp) return match_fail(err, err_len, "%s: out of memory", path);
  snprintf(tmp, tmp_len, "%s.tmp", path);
  int rc = write_file(tmp, header, data, nx * ny * nz, err, err_len);
  if (rc == 0 && rename(tmp, path) != 0)
    rc = match_fail(err, err_len, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
  if (rc) unlink(tmp); /* a file only: never a directory of that name */
  free(tmp);
  return rc;
}

void mrc_free(mrc_volume *v) {
  if (!v) return;
  free(v->data);
  *v = (mrc_volume){0};
}
