/* test_mrc_png.c - MRC2014 round trips, int16/uint16 reads and rejected headers; PNG files read
 * back by an independent decoder (bitwise CRC, stored blocks, Adler-32, filters, pixels). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrc.h"
#include "png.h"
#include "test_util.h"

static char tmp_dir[] = "/tmp/zipfft_test_mrc_png_XXXXXX";
static int cases;

/* Prints one line per check and counts it. */
static void report(const char *name, int failures_before) {
  cases++;
  printf("%s %s\n", zt_failures == failures_before ? "ok  " : "FAIL", name);
}

static void tmp_path(char *out, size_t len, const char *name) {
  snprintf(out, len, "%s/%s", tmp_dir, name);
}

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* The whole file, malloc'ed; NULL when it cannot be read. */
static uint8_t *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *bytes = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    bytes = size >= 0 ? malloc((size_t)size + 1) : NULL;
    *len = (size_t)size;
    if (bytes && (fseek(f, 0, SEEK_SET) != 0 || fread(bytes, 1, *len, f) != *len)) {
      free(bytes);
      bytes = NULL;
    }
  }
  fclose(f);
  return bytes;
}

static int write_all(const char *path, const uint8_t *bytes, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(bytes, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

/* Byte-order explicit words of the test's own. */
static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float le_f32(const uint8_t *p) {
  uint32_t u = le32(p);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void set_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void set_le_f32(uint8_t *p, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  set_le32(p, u);
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* ---- MRC ---- */

/* Checks the raw header of a file mrc_write made against what was written. */
static void check_written_header(const uint8_t *h, const int64_t n[3], float pixel, float dmin,
                                 float dmax) {
  ZT_CHECK(memcmp(h + 208, "MAP ", 4) == 0, "MAP tag %.4s", (const char *)(h + 208));
  ZT_CHECK(h[212] == 0x44 && h[213] == 0x44, "MACHST %02x %02x", h[212], h[213]);
  ZT_CHECK(le32(h + 12) == 2, "mode %u", le32(h + 12));
  ZT_CHECK(le32(h + 92) == 0, "NSYMBT %u", le32(h + 92));
  ZT_CHECK(le32(h + 108) == 20140, "NVERSION %u", le32(h + 108));
  ZT_CHECK(le_f32(h + 76) == dmin, "dmin %g, expected %g", le_f32(h + 76), dmin);
  ZT_CHECK(le_f32(h + 80) == dmax, "dmax %g, expected %g", le_f32(h + 80), dmax);
  for (int i = 0; i < 3; i++) {
    ZT_CHECK(le32(h + 4 * i) == (uint32_t)n[i], "dim %d: %u", i, le32(h + 4 * i));
    ZT_CHECK(le32(h + 28 + 4 * i) == (uint32_t)n[i], "sampling %d: %u", i, le32(h + 28 + 4 * i));
    ZT_CHECK(le_f32(h + 40 + 4 * i) == (float)n[i] * pixel, "cell %d: %g", i,
             le_f32(h + 40 + 4 * i));
    ZT_CHECK(le32(h + 64 + 4 * i) == (uint32_t)i + 1, "axis %d: %u", i, le32(h + 64 + 4 * i));
  }
}

/* An input pixel size whose output cell would not fit a float is written as unknown (cell
 * 0), not as an infinite cell, and reads back as 0. */
static void check_absurd_pixel_size(void) {
  int before = zt_failures;
  char path[512], err[256] = "";
  float data[4] = {1, 2, 3, 4};
  tmp_path(path, sizeof path, "absurd-pixel.mrc");
  ZT_CHECK(mrc_write(path, data, 2, 2, 1, 3e38f, err, sizeof err) == 0, "write: %s", err);
  size_t len = 0;
  uint8_t *bytes = read_all(path, &len);
  ZT_CHECK(bytes && len == 1024 + sizeof data, "file size %zu", len);
  for (int i = 0; bytes && len >= 1024 && i < 3; i++)
    ZT_CHECK(le_f32(bytes + 40 + 4 * i) == 0.0f, "cell %d: %g", i, le_f32(bytes + 40 + 4 * i));
  free(bytes);
  mrc_volume v = {0};
  ZT_CHECK(mrc_read(path, &v, err, sizeof err) == 0, "read: %s", err);
  ZT_CHECK(v.pixel_size == 0.0f, "pixel size %g, expected 0 (unknown)", v.pixel_size);
  mrc_free(&v);
  report("an absurd pixel size is written as unknown", before);
}

static void check_round_trip(const char *name, const char *file, int64_t nx, int64_t ny, int64_t nz,
                             float pixel) {
  int before = zt_failures;
  char path[512], err[256] = "";
  tmp_path(path, sizeof path, file);
  int64_t n[3] = {nx, ny, nz}, count = nx * ny * nz;
  float *data = malloc((size_t)count * sizeof *data), dmin = INFINITY, dmax = -INFINITY;
  for (int64_t i = 0; i < count; i++) {
    data[i] = (float)(1000.0 * zt_uniform(7, (uint64_t)i));
    dmin = fminf(dmin, data[i]);
    dmax = fmaxf(dmax, data[i]);
  }
  ZT_CHECK(mrc_write(path, data, nx, ny, nz, pixel, err, sizeof err) == 0, "write: %s", err);
  mrc_volume v = {0};
  int rc = mrc_read(path, &v, err, sizeof err);
  ZT_CHECK(rc == 0, "read: %s", err);
  if (rc == 0) {
    ZT_CHECK(v.nx == nx && v.ny == ny && v.nz == nz, "dims %lld %lld %lld", (long long)v.nx,
             (long long)v.ny, (long long)v.nz);
    ZT_CHECK(v.pixel_size == pixel, "pixel size %g, expected %g", v.pixel_size, pixel);
    ZT_CHECK(memcmp(v.data, data, (size_t)count * sizeof *data) == 0, "data differ");
  }
  mrc_free(&v);
  ZT_CHECK(v.data == NULL, "mrc_free left the data pointer");
  size_t len = 0;
  uint8_t *bytes = read_all(path, &len);
  ZT_CHECK(bytes && len == 1024 + 4 * (size_t)count, "file size %zu", len);
  if (bytes && len >= 1024) check_written_header(bytes, n, pixel, dmin, dmax);
  free(bytes);
  free(data);
  report(name, before);
}

/* A valid little-endian header of the given dimensions and mode (pixel size 1.25). */
static void make_header(uint8_t h[1024], int32_t nx, int32_t ny, int32_t nz, int32_t mode) {
  const int32_t n[3] = {nx, ny, nz};
  memset(h, 0, 1024);
  for (int i = 0; i < 3; i++) {
    set_le32(h + 4 * i, (uint32_t)n[i]);
    set_le32(h + 28 + 4 * i, (uint32_t)n[i]);
    set_le_f32(h + 40 + 4 * i, 1.25f * (float)n[i]);
    set_le32(h + 64 + 4 * i, (uint32_t)i + 1);
  }
  set_le32(h + 12, (uint32_t)mode);
  memcpy(h + 208, "MAP ", 4);
  h[212] = 0x44;
  h[213] = 0x41;
}

/* Writes a 16-bit file by hand (with an extended header of ext bytes) and reads it back. */
static void check_16bit(const char *name, int32_t mode, const int32_t *values, int count,
                        int32_t ext) {
  int before = zt_failures;
  char path[512], err[256] = "";
  tmp_path(path, sizeof path, name);
  size_t len = 1024 + (size_t)ext + 2 * (size_t)count;
  uint8_t *bytes = malloc(len);
  make_header(bytes, count / 6, 3, 2, mode);
  set_le32(bytes + 92, (uint32_t)ext);
  memset(bytes + 1024, 0xEE, (size_t)ext);
  for (int i = 0; i < count; i++) {
    uint16_t u = (uint16_t)(values[i] & 0xffff);
    bytes[1024 + ext + 2 * i] = (uint8_t)u;
    bytes[1024 + ext + 2 * i + 1] = (uint8_t)(u >> 8);
  }
  ZT_CHECK(write_all(path, bytes, len), "cannot write %s", path);
  mrc_volume v = {0};
  int rc = mrc_read(path, &v, err, sizeof err);
  ZT_CHECK(rc == 0, "read: %s", err);
  if (rc == 0) {
    ZT_CHECK(v.nx == count / 6 && v.ny == 3 && v.nz == 2, "dims %lld %lld %lld", (long long)v.nx,
             (long long)v.ny, (long long)v.nz);
    ZT_CHECK(v.pixel_size == 1.25f, "pixel size %g", v.pixel_size);
    for (int i = 0; i < count; i++)
      ZT_CHECK(v.data[i] == (float)values[i], "value %d: %g, expected %d", i, v.data[i], values[i]);
  }
  mrc_free(&v);
  free(bytes);
  report(name, before);
}

static void check_int16_uint16(void) {
  enum { count = 24 };
  int32_t s16[count], u16[count];
  for (int i = 0; i < count; i++) {
    s16[i] = i * 2731 - 32768;
    u16[i] = i * 2849;
  }
  s16[1] = -1;
  s16[2] = 0;
  s16[count - 1] = 32767;
  u16[count - 1] = 65535;
  check_16bit("int16 (mode 1) read exactly", 1, s16, count, 0);
  check_16bit("uint16 (mode 6) read exactly, NSYMBT 96 skipped", 6, u16, count, 96);
}

/* One header word changed, the file possibly cut short, and the text the message must hold. */
typedef struct bad_file {
  const char *name;
  int words; /* how many of set[] apply */
  struct {
    int offset; /* header byte offset */
    uint32_t value;
  } set[3];
  long keep_bytes; /* file cut to this length; -1: whole */
  const char *expect;
} bad_file;

#define BASE_NX 8
#define BASE_NY 4
#define BASE_NZ 2
#define BASE_BYTES (1024 + 4 * BASE_NX * BASE_NY * BASE_NZ)
#define BIG (1u << 20)

static const bad_file BAD_FILES[] = {
    {"truncated data", 0, {{0, 0}}, BASE_BYTES - 1, "truncated"},
    {"NX shrunk below the data (a corrupt header)",
     1,
     {{0, BASE_NX / 2}},
     -1,
     "longer than its header says"},
    {"file shorter than the header", 0, {{0, 0}}, 500, "shorter than the 1024-byte"},
    {"unknown mode 99", 1, {{12, 99}}, -1, "MODE 99"},
    {"negative nx", 1, {{0, (uint32_t)-5}}, -1, "NX = -5"},
    {"zero ny", 1, {{4, 0}}, -1, "NY = 0"},
    {"huge nz", 1, {{8, 0x7fffffff}}, -1, "NZ = 2147483647"},
    {"dims whose size overflows", 3, {{0, BIG}, {4, BIG}, {8, BIG}}, -1, "NX*NY*NZ"},
    {"big-endian stamp", 1, {{212, 0x1111}}, -1, "big-endian"},
    {"big-endian mode word", 2, {{212, 0}, {12, 0x02000000}}, -1, "looks big-endian"},
    {"unknown byte-order stamp", 1, {{212, 0x12345678}}, -1, "MACHST"},
    {"NSYMBT past the end", 1, {{92, 4096}}, -1, "NSYMBT 4096"},
    {"negative NSYMBT", 1, {{92, (uint32_t)-1}}, -1, "NSYMBT = -1"},
    {"bad MAP tag", 1, {{208, 0x57595a58}}, -1, "MAP tag"},
    {"axis order 3 2 1", 2, {{64, 3}, {72, 1}}, -1, "MAPC/MAPR/MAPS = 3 2 1"},
};

/* A read that must fail: nonzero, *v untouched, a message naming the file and the problem. */
static void check_rejected(const char *name, const char *path, const char *expect) {
  int before = zt_failures;
  float marker = 0.0f;
  const mrc_volume sentinel = {11, 22, 33, 4.5f, &marker};
  mrc_volume v = sentinel;
  char err[512] = "";
  ZT_CHECK(mrc_read(path, &v, err, sizeof err) != 0, "accepted");
  ZT_CHECK(v.nx == sentinel.nx && v.ny == sentinel.ny && v.nz == sentinel.nz &&
               v.pixel_size == sentinel.pixel_size && v.data == sentinel.data,
           "volume changed");
  ZT_CHECK(strstr(err, expect) != NULL, "message \"%s\" lacks \"%s\"", err, expect);
  ZT_CHECK(strstr(err, path) != NULL, "message \"%s\" lacks the file name", err);
  printf("     (%s)\n", err);
  char label[256];
  snprintf(label, sizeof label, "rejects %s", name);
  report(label, before);
}

static void check_rejections(void) {
  int before = zt_failures;
  uint8_t base[BASE_BYTES], bytes[BASE_BYTES];
  make_header(base, BASE_NX, BASE_NY, BASE_NZ, 2);
  for (int i = 1024; i < BASE_BYTES; i += 4) set_le_f32(base + i, (float)i);
  char path[512], err[256] = "";
  tmp_path(path, sizeof path, "base.mrc");
  mrc_volume v = {0};
  ZT_CHECK(write_all(path, base, sizeof base), "cannot write %s", path);
  ZT_CHECK(mrc_read(path, &v, err, sizeof err) == 0, "the unchanged file: %s", err);
  mrc_free(&v);
  report("unchanged base file read (control)", before);
  for (size_t c = 0; c < sizeof BAD_FILES / sizeof BAD_FILES[0]; c++) {
    const bad_file *b = &BAD_FILES[c];
    memcpy(bytes, base, sizeof bytes);
    for (int w = 0; w < b->words; w++) set_le32(bytes + b->set[w].offset, b->set[w].value);
    snprintf(path, sizeof path, "%s/bad%zu.mrc", tmp_dir, c);
    ZT_CHECK(write_all(path, bytes, b->keep_bytes < 0 ? sizeof bytes : (size_t)b->keep_bytes),
             "cannot write %s", path);
    check_rejected(b->name, path, b->expect);
  }
  tmp_path(path, sizeof path, "does-not-exist.mrc");
  check_rejected("a nonexistent file", path, "No such file");
  check_rejected("a directory", tmp_dir, "not a regular file");
}

static void check_write_failures(void) {
  int before = zt_failures;
  float data[4] = {1, 2, 3, 4};
  char path[512], err[256] = "";
  tmp_path(path, sizeof path, "no-such-dir/out.mrc");
  ZT_CHECK(mrc_write(path, data, 2, 2, 1, 1.0f, err, sizeof err) != 0, "wrote into a missing dir");
  ZT_CHECK(err[0] != '\0', "no message");
  tmp_path(path, sizeof path, "no-such-dir");
  ZT_CHECK(!file_exists(path), "%s appeared", path);
  report("mrc_write into a missing directory fails, leaves nothing", before);

  before = zt_failures;
  err[0] = '\0';
  tmp_path(path, sizeof path, "a-directory");
  ZT_CHECK(mkdir(path, 0700) == 0, "mkdir %s: %s", path, strerror(errno));
  ZT_CHECK(mrc_write(path, data, 2, 2, 1, 1.0f, err, sizeof err) != 0, "renamed over a directory");
  ZT_CHECK(err[0] != '\0', "no message");
  tmp_path(path, sizeof path, "a-directory.tmp");
  ZT_CHECK(!file_exists(path), "%s left behind", path);
  report("mrc_write over a directory fails at rename, removes path.tmp", before);

  before = zt_failures;
  err[0] = '\0';
  tmp_path(path, sizeof path, "bad-args.mrc");
  ZT_CHECK(mrc_write(path, data, 2, 0, 1, 1.0f, err, sizeof err) != 0, "ny 0 accepted");
  ZT_CHECK(strstr(err, "NY = 0") != NULL, "message \"%s\"", err);
  ZT_CHECK(mrc_write(path, data, 2, 2, 1, NAN, err, sizeof err) != 0, "NaN pixel accepted");
  ZT_CHECK(strstr(err, "pixel size") != NULL, "message \"%s\"", err);
  ZT_CHECK(!file_exists(path), "%s created", path);
  report("mrc_write rejects ny 0 and a NaN pixel size, creates nothing", before);
}

/* ---- PNG: an independent reader ---- */

/* CRC-32 bit by bit (no table). */
static uint32_t bitwise_crc(const uint8_t *p, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/* Adler-32 the plain way, a modulo per byte. */
static uint32_t plain_adler32(const uint8_t *p, size_t n) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return b << 16 | a;
}

typedef struct png_parts {
  uint8_t ihdr[13];
  uint8_t *idat; /* all IDAT data concatenated */
  size_t idat_len;
  int idat_chunks;
} png_parts;

/* Walks the chunks after the signature, verifying each CRC; IHDR first, IEND last. */
static void read_chunks(const uint8_t *f, size_t len, png_parts *out) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  ZT_CHECK(len >= 8 && memcmp(f, signature, 8) == 0, "bad signature");
  int index = 0, ended = 0;
  out->idat = malloc(len);
  for (size_t at = 8; at < len && !ended; index++) {
    ZT_CHECK(len - at >= 12, "chunk %d header past the end", index);
    if (len - at < 12) return;
    size_t n = be32(f + at);
    const uint8_t *type = f + at + 4, *data = f + at + 8;
    ZT_CHECK(n <= len - at - 12, "chunk %d length %zu past the end", index, n);
    if (n > len - at - 12) return;
    ZT_CHECK(be32(data + n) == bitwise_crc(type, n + 4), "chunk %d %.4s: CRC %08x, expected %08x",
             index, (const char *)type, be32(data + n), bitwise_crc(type, n + 4));
    if (index == 0) {
      ZT_CHECK(memcmp(type, "IHDR", 4) == 0 && n == 13, "first chunk %.4s of %zu bytes",
               (const char *)type, n);
      if (n == 13) memcpy(out->ihdr, data, 13);
    } else if (memcmp(type, "IDAT", 4) == 0) {
      memcpy(out->idat + out->idat_len, data, n);
      out->idat_len += n;
      out->idat_chunks++;
    } else {
      ZT_CHECK(memcmp(type, "IEND", 4) == 0 && n == 0, "unexpected chunk %.4s", (const char *)type);
      ended = 1;
      ZT_CHECK(at + 12 == len, "%zu bytes after IEND", len - at - 12);
    }
    at += 12 + n;
  }
  ZT_CHECK(ended, "no IEND");
}

/* Inflates a zlib stream made only of stored blocks; returns the bytes (malloc'ed). */
static uint8_t *inflate_stored(const uint8_t *z, size_t len, size_t *raw_len, int *blocks) {
  uint8_t *raw = malloc(len + 1);
  *raw_len = 0;
  *blocks = 0;
  ZT_CHECK(len >= 6 && (z[0] & 0x0f) == 8 && (z[0] << 8 | z[1]) % 31 == 0 && !(z[1] & 0x20),
           "zlib header %02x %02x", len ? z[0] : 0, len > 1 ? z[1] : 0);
  size_t at = 2;
  int final = 0;
  while (!final && at + 5 <= len) {
    final = z[at] & 1;
    ZT_CHECK((z[at] >> 1) == 0, "block %d: header byte %02x is not a stored block", *blocks, z[at]);
    unsigned block_len = z[at + 1] | z[at + 2] << 8, nlen = z[at + 3] | z[at + 4] << 8;
    ZT_CHECK((block_len ^ nlen) == 0xffff, "block %d: LEN %04x NLEN %04x", *blocks, block_len,
             nlen);
    at += 5;
    ZT_CHECK(block_len <= len - at, "block %d past the end", *blocks);
    if (block_len > len - at) break;
    memcpy(raw + *raw_len, z + at, block_len);
    *raw_len += block_len;
    at += block_len;
    (*blocks)++;
  }
  ZT_CHECK(final, "no BFINAL block");
  ZT_CHECK(at + 4 == len, "%zu bytes after the blocks, expected 4", len - at);
  if (at + 4 <= len)
    ZT_CHECK(be32(z + at) == plain_adler32(raw, *raw_len), "Adler-32 %08x, expected %08x",
             be32(z + at), plain_adler32(raw, *raw_len));
  return raw;
}

/* Reads a PNG file this test expects to be width x height gray8 and compares its pixels. */
static void check_png_file(const char *path, const uint8_t *expected, int width, int height,
                           int min_blocks) {
  size_t len = 0, raw_len = 0;
  uint8_t *file = read_all(path, &len);
  ZT_CHECK(file != NULL, "cannot read %s", path);
  if (!file) return;
  png_parts parts = {{0}, NULL, 0, 0};
  read_chunks(file, len, &parts);
  const uint8_t *h = parts.ihdr;
  ZT_CHECK(be32(h) == (uint32_t)width && be32(h + 4) == (uint32_t)height, "IHDR size %u x %u",
           be32(h), be32(h + 4));
  ZT_CHECK(h[8] == 8 && h[9] == 0 && h[10] == 0 && h[11] == 0 && h[12] == 0,
           "IHDR depth %d colour %d compression %d filter %d interlace %d", h[8], h[9], h[10],
           h[11], h[12]);
  int blocks = 0;
  uint8_t *raw = inflate_stored(parts.idat, parts.idat_len, &raw_len, &blocks);
  ZT_CHECK(blocks >= min_blocks, "%d stored blocks, expected at least %d", blocks, min_blocks);
  size_t stride = (size_t)width + 1;
  ZT_CHECK(raw_len == stride * (size_t)height, "%zu raw bytes", raw_len);
  int bad = 0;
  for (int y = 0; raw_len == stride * (size_t)height && y < height; y++) {
    ZT_CHECK(raw[y * stride] == 0, "row %d filter %d", y, raw[y * stride]);
    bad += memcmp(raw + y * stride + 1, expected + (size_t)y * (size_t)width, (size_t)width) != 0;
  }
  ZT_CHECK(bad == 0, "%d rows differ", bad);
  printf("     (%d x %d: %zu bytes, %d IDAT chunks, %d stored blocks)\n", width, height, len,
         parts.idat_chunks, blocks);
  free(raw);
  free(parts.idat);
  free(file);
}

static void check_reference_checksums(void) {
  int before = zt_failures;
  const uint8_t *digits = (const uint8_t *)"123456789", *wiki = (const uint8_t *)"Wikipedia";
  ZT_CHECK(bitwise_crc(digits, 9) == 0xCBF43926u, "CRC-32 check value %08x",
           bitwise_crc(digits, 9));
  ZT_CHECK(plain_adler32(wiki, 9) == 0x11E60398u, "Adler-32 of Wikipedia %08x",
           plain_adler32(wiki, 9));
  report("the test's own CRC-32 and Adler-32 give the known check values", before);
}

static void check_png_gradient(const char *name, const char *file, int width, int height,
                               int min_blocks) {
  int before = zt_failures;
  char path[512], err[256] = "";
  tmp_path(path, sizeof path, file);
  uint8_t *pixels = malloc((size_t)width * (size_t)height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      pixels[(size_t)y * (size_t)width + (size_t)x] = (uint8_t)(x * 7 + y * 50 + (x * y) % 11);
  ZT_CHECK(png_write_gray8(path, pixels, width, height, err, sizeof err) == 0, "write: %s", err);
  check_png_file(path, pixels, width, height, min_blocks);
  free(pixels);
  report(name, before);
}

static void check_png_float(void) {
  int before = zt_failures;
  char path[512], err[256] = "";
  tmp_path(path, sizeof path, "float.png");
  const float map[9] = {-1.0f, 0.0f, 0.25f, 0.5f, 1.0f, 2.0f, NAN, INFINITY, -INFINITY};
  const uint8_t expected[9] = {0, 0, 64, 128, 255, 255, 0, 255, 0}, zeros[9] = {0};
  ZT_CHECK(png_write_float(path, map, 3, 3, 0.0f, 1.0f, err, sizeof err) == 0, "write: %s", err);
  check_png_file(path, expected, 3, 3, 1);
  ZT_CHECK(png_write_float(path, map, 3, 3, 0.5f, 0.5f, err, sizeof err) == 0, "write: %s", err);
  check_png_file(path, zeros, 3, 3, 1);
  report("png_write_float: clamping, rounding, NaN -> 0, lo == hi -> all 0", before);
}

static void check_png_failures(void) {
  int before = zt_failures;
  uint8_t pixels[4] = {0};
  char path[512], err[256] = "";
  tmp_path(path, sizeof path, "no-such-dir/out.png");
  ZT_CHECK(png_write_gray8(path, pixels, 2, 2, err, sizeof err) != 0, "wrote into a missing dir");
  ZT_CHECK(err[0] != '\0', "no message");
  err[0] = '\0';
  tmp_path(path, sizeof path, "zero-width.png");
  ZT_CHECK(png_write_gray8(path, pixels, 0, 2, err, sizeof err) != 0, "width 0 accepted");
  ZT_CHECK(strstr(err, "0 x 2") != NULL, "message \"%s\"", err);
  ZT_CHECK(png_write_float(path, (const float[4]){0}, 2, 2, NAN, 1.0f, err, sizeof err) != 0,
           "NaN lo accepted");
  ZT_CHECK(!file_exists(path), "%s created", path);
  report("png writes into a missing directory, of width 0, NaN range fail", before);
}

/* No writer may leave a path.tmp behind. */
static void check_no_tmp_files(void) {
  int before = zt_failures;
  DIR *dir = opendir(tmp_dir);
  struct dirent *entry;
  while (dir && (entry = readdir(dir)) != NULL) {
    size_t n = strlen(entry->d_name);
    ZT_CHECK(n < 4 || strcmp(entry->d_name + n - 4, ".tmp") != 0, "left %s", entry->d_name);
  }
  if (dir) closedir(dir);
  report("no .tmp file left in the directory", before);
}

int main(void) {
  if (!mkdtemp(tmp_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", tmp_dir, strerror(errno));
    return 1;
  }
  check_round_trip("MRC round trip 2D 37x23x1", "2d.mrc", 37, 23, 1, 1.5f);
  check_round_trip("MRC round trip 3D 65x49x11 (several I/O chunks)", "3d.mrc", 65, 49, 11, 2.25f);
  check_int16_uint16();
  check_rejections();
  check_absurd_pixel_size();
  check_write_failures();
  check_reference_checksums();
  check_png_gradient("PNG 37x5 (odd rows)", "37x5.png", 37, 5, 1);
  check_png_gradient("PNG 1x1", "1x1.png", 1, 1, 1);
  check_png_gradient("PNG 300x300 (two stored blocks)", "300x300.png", 300, 300, 2);
  check_png_gradient("PNG 700x400 (five stored blocks)", "700x400.png", 700, 400, 5);
  check_png_float();
  check_png_failures();
  check_no_tmp_files();
  zt_remove_tree(tmp_dir);
  return zt_finish("test_mrc_png", cases);
}
