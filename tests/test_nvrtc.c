/* test_nvrtc.c - NVRTC compiles a tiny kernel to CUBIN, checks sources to PTX only, reports
 * syntax errors with the log, and counts register spills. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/cache.h"
#include "test_util.h"

static const char good_source[] =
    "extern \"C\" __global__ void zt_scale(float *x, float s, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] *= s;\n"
    "}\n";

static const char bad_source[] =
    "extern \"C\" __global__ void zt_broken(float *x) {\n"
    "  x[0] = 1.0f +;\n"
    "}\n";

/* Inline PTX that NVRTC passes through unread: only ptxas rejects it. */
static const char bad_asm_source[] =
    "extern \"C\" __global__ void zt_bad_asm(float *x) {\n"
    "  asm volatile(\"not.an.instruction;\");\n"
    "}\n";

/* The cache's cubin folder, scanned: how many files are named by a key (the last one's key
 * in *last), and the inode of the one whose key is not `known` (0: none), which tells a file
 * read from one written again (the cache writes each entry to a new file renamed over the
 * old). */
static int scan_cached(zipfft__cache_key known, zipfft__cache_key *last, ino_t *other_inode) {
  char dir[4200], path[8500];
  snprintf(dir, sizeof dir, "%s/cubin", getenv("ZIPFFT_CACHE_DIR"));
  DIR *d = opendir(dir);
  struct dirent *e;
  int files = 0;
  zipfft__cache_key key;
  *other_inode = 0;
  while (d && (e = readdir(d)) != NULL) {
    struct stat st;
    if (strlen(e->d_name) != 36 || strcmp(e->d_name + 32, ".bin") != 0 ||
        sscanf(e->d_name, "%16llx%16llx", (unsigned long long *)&key.hi,
               (unsigned long long *)&key.lo) != 2)
      continue;
    files++, *last = key;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if ((key.hi != known.hi || key.lo != known.lo) && stat(path, &st) == 0)
      *other_inode = st.st_ino;
  }
  if (d) closedir(d);
  return files;
}

/* Files in the cache's cubin folder named by a key; the last one's key in *key. */
static int cached_files(zipfft__cache_key *key) {
  ino_t unused;
  return scan_cached((zipfft__cache_key){0, 0}, key, &unused);
}

/* A valid kernel compiles to a CUBIN (an ELF image) kept in the disk cache under one key;
 * the second time comes from the cache and is identical; with other bytes put under that
 * key and the memory cache cleared, the third compile returns those bytes (so it read the
 * disk cache rather than compiling). */
static void test_compile_ok(void) {
  void *image = NULL, *again = NULL;
  size_t size = 0, again_size = 0;
  ZT_OK(zipfft__nvrtc_compile(good_source, "zt_scale", "sm_90", &image, &size));
  zipfft__cache_key key = {0, 0};
  int files = cached_files(&key);
  ZT_CHECK(files == 1, "%d CUBINs cached, expected 1", files);
  ZT_CHECK(image != NULL && size > 4, "empty image (%zu bytes)", size);
  if (image && size > 4)
    ZT_CHECK(memcmp(image,
                    "\x7f"
                    "ELF",
                    4) == 0,
             "CUBIN is not ELF");
  zipfft__cache_clear_memory();
  ZT_OK(zipfft__nvrtc_compile(good_source, "zt_scale", "sm_90", &again, &again_size));
  ZT_CHECK(again && again_size == size && memcmp(again, image, size) == 0,
           "cached CUBIN differs from the compiled one");
  /* the next compile must come from the file of that key: give it other bytes */
  zipfft__cache_put("cubin", key, "marker", 6);
  zipfft__cache_clear_memory();
  void *third = NULL;
  size_t third_size = 0;
  ZT_OK(zipfft__nvrtc_compile(good_source, "zt_scale", "sm_90", &third, &third_size));
  ZT_CHECK(third && third_size == 6 && memcmp(third, "marker", 6) == 0,
           "the second compile did not come from the disk cache");
  free(third);
  free(image);
  free(again);
}

/* A syntax error is COMPILE_FAILED, names the kernel and carries the NVRTC log. */
static void test_compile_error(void) {
  void *image = NULL;
  size_t size = 0;
  ZT_CHECK_STATUS(zipfft__nvrtc_compile(bad_source, "zt_broken", "sm_90", &image, &size),
                  ZIPFFT_ERROR_COMPILE_FAILED);
  const char *detail = zipfft_last_error();
  ZT_CHECK(strstr(detail, "error") != NULL, "no log in the detail: %s", detail);
  ZT_CHECK(strstr(detail, "zt_broken") != NULL, "kernel name missing: %s", detail);
  ZT_CHECK(image == NULL, "image set on failure");
  ZT_CHECK_STATUS(zipfft__nvrtc_compile(good_source, "zt_scale", "sm_bogus", &image, &size),
                  ZIPFFT_ERROR_COMPILE_FAILED);
  ZT_CHECK_STATUS(zipfft__nvrtc_compile(NULL, "x", "sm_90", &image, &size),
                  ZIPFFT_ERROR_NULL_POINTER);
}

/* The source check (run after test_compile_ok's one cached CUBIN): a valid kernel passes and
 * its PTX is cached under a key of its own, which a second check (the memory cache
 * cleared) reads instead of compiling and writing it again; a syntax error is
 * COMPILE_FAILED with the kernel's name and the log; inline PTX that only ptxas reads
 * passes the check and fails the CUBIN compile; NULL arguments are statuses. */
static void test_check_source(void) {
  zipfft__cache_key cubin_key = {0, 0}, key = {0, 0};
  ZT_CHECK(cached_files(&cubin_key) == 1, "expected test_compile_ok's one CUBIN cached");
  ZT_OK(zipfft__nvrtc_check_source(good_source, "zt_scale", "sm_90"));
  ino_t written = 0, again = 0;
  int files = scan_cached(cubin_key, &key, &written);
  ZT_CHECK(files == 2 && written != 0, "%d files cached after a checked source, expected 2", files);
  zipfft__cache_clear_memory();
  ZT_OK(zipfft__nvrtc_check_source(good_source, "zt_scale", "sm_90"));
  ZT_CHECK(scan_cached(cubin_key, &key, &again) == 2 && again == written,
           "the second check compiled the source again instead of reading the cache");
  ZT_CHECK_STATUS(zipfft__nvrtc_check_source(bad_source, "zt_broken", "sm_90"),
                  ZIPFFT_ERROR_COMPILE_FAILED);
  const char *detail = zipfft_last_error();
  ZT_CHECK(strstr(detail, "error") != NULL, "no log in the detail: %s", detail);
  ZT_CHECK(strstr(detail, "zt_broken") != NULL, "kernel name missing: %s", detail);
  ZT_OK(zipfft__nvrtc_check_source(bad_asm_source, "zt_bad_asm", "sm_90"));
  void *image = NULL;
  size_t size = 0;
  ZT_CHECK_STATUS(zipfft__nvrtc_compile(bad_asm_source, "zt_bad_asm", "sm_90", &image, &size),
                  ZIPFFT_ERROR_COMPILE_FAILED);
  ZT_CHECK(image == NULL, "image set on failure");
  ZT_CHECK_STATUS(zipfft__nvrtc_check_source(good_source, "zt_scale", "sm_bogus"),
                  ZIPFFT_ERROR_COMPILE_FAILED);
  ZT_CHECK_STATUS(zipfft__nvrtc_check_source(NULL, "x", "sm_90"), ZIPFFT_ERROR_NULL_POINTER);
  ZT_CHECK_STATUS(zipfft__nvrtc_check_source(good_source, "x", NULL), ZIPFFT_ERROR_NULL_POINTER);
}

/* The spill count: none for a tiny kernel; a compile error and NULL arguments are statuses.
 * (test_corr checks a kernel that spilled: 40 bytes before its fix.) */
static void test_spill_bytes(void) {
  long bytes = -1;
  ZT_OK(zipfft__nvrtc_spill_bytes(good_source, "zt_scale", "sm_90", &bytes));
  ZT_CHECK(bytes == 0, "a tiny kernel spills %ld bytes", bytes);
  ZT_CHECK_STATUS(zipfft__nvrtc_spill_bytes(bad_source, "zt_broken", "sm_90", &bytes),
                  ZIPFFT_ERROR_COMPILE_FAILED);
  ZT_CHECK_STATUS(zipfft__nvrtc_spill_bytes(good_source, "zt_scale", "sm_90", NULL),
                  ZIPFFT_ERROR_NULL_POINTER);
}

int main(void) {
  if (!zipfft__nvrtc_available()) {
    void *image = NULL;
    size_t size = 0;
    ZT_CHECK_STATUS(zipfft__nvrtc_compile(good_source, "zt_scale", "sm_90", &image, &size),
                    ZIPFFT_ERROR_NO_NVRTC);
    ZT_CHECK_STATUS(zipfft__nvrtc_check_source(good_source, "zt_scale", "sm_90"),
                    ZIPFFT_ERROR_NO_NVRTC);
    printf("NVRTC not available: skipped\n");
    return zt_finish("test_nvrtc", 1);
  }
  char root[] = "/tmp/zipfft-test-nvrtc-XXXXXX";
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("ZIPFFT_CACHE_DIR", root, 1);
  test_compile_ok();
  test_compile_error();
  test_check_source();
  test_spill_bytes();
  zipfft__cache_clear_memory();
  zt_remove_tree(root);
  return zt_finish("test_nvrtc", 4);
}
