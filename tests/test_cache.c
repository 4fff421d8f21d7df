/* test_cache.c - kernel cache: keys, memory and disk round trips, corrupt files are misses. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cache.h"
#include "test_util.h"

/* Key of the given parts. */
static zipfft__cache_key key_of2(const char *a, const char *b) {
  const char *parts[] = {a, b};
  return zipfft__cache_key_of(parts, 2);
}

/* 1 when a get of (kind, key) hits with exactly the expected bytes. */
static int hits_with(const char *kind, zipfft__cache_key key, const void *bytes, size_t size) {
  void *data = NULL;
  size_t got = 0;
  if (!zipfft__cache_get(kind, key, &data, &got)) return 0;
  int same = got == size && memcmp(data, bytes, size) == 0;
  free(data);
  return same;
}

/* Keys separate their parts and depend on every part. */
static void test_keys(void) {
  zipfft__cache_key ab_c = key_of2("ab", "c"), a_bc = key_of2("a", "bc");
  ZT_CHECK(ab_c.lo != a_bc.lo && ab_c.hi != a_bc.hi, "(ab,c) and (a,bc) share a key half");
  zipfft__cache_key again = key_of2("ab", "c");
  ZT_CHECK(again.lo == ab_c.lo && again.hi == ab_c.hi, "keys are not deterministic");
  zipfft__cache_key other = key_of2("ab", "d");
  ZT_CHECK(other.lo != ab_c.lo || other.hi != ab_c.hi, "last part ignored");
  const char *one[] = {"ab"};
  const char *two[] = {"ab", ""};
  zipfft__cache_key k1 = zipfft__cache_key_of(one, 1), k2 = zipfft__cache_key_of(two, 2);
  ZT_CHECK(k1.lo != k2.lo || k1.hi != k2.hi, "trailing empty part ignored");
}

/* put then get from memory, then from disk after forgetting memory; kinds are separate. */
static void test_round_trip(void) {
  static const char payload[] = "pretend this is a CUBIN \x01\x02\x00\xff";
  zipfft__cache_key key = key_of2("round", "trip");
  void *data = NULL;
  size_t size = 0;
  ZT_CHECK(!zipfft__cache_get("cubin", key, &data, &size), "hit before any put");
  zipfft__cache_put("cubin", key, payload, sizeof payload);
  ZT_CHECK(hits_with("cubin", key, payload, sizeof payload), "memory round trip failed");
  zipfft__cache_clear_memory();
  ZT_CHECK(hits_with("cubin", key, payload, sizeof payload), "disk round trip failed");
  ZT_CHECK(!zipfft__cache_get("cpu", key, &data, &size), "another kind hit");
  zipfft__cache_clear_memory();
  ZT_CHECK(!zipfft__cache_get("cpu", key, &data, &size), "another kind hit on disk");
}

/* Replaces the file at path by its first keep bytes, with byte flip_at xor-ed if >= 0. */
static int damage_file(const char *path, long keep, long flip_at) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  unsigned char buf[4096];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  if (keep > (long)n || flip_at >= (long)n) return 0;
  if (flip_at >= 0) buf[flip_at] ^= 0x40;
  f = fopen(path, "wb");
  if (!f) return 0;
  size_t written = fwrite(buf, 1, (size_t)keep, f);
  return fclose(f) == 0 && written == (size_t)keep;
}

/* Stores an entry, damages its file, and checks that a disk lookup misses. */
static void check_damaged_is_miss(const char *label, long keep_delta, long flip_from_end) {
  static const char payload[] = "0123456789abcdef0123456789abcdef";
  zipfft__cache_key key = key_of2("damaged", label);
  zipfft__cache_put("cubin", key, payload, sizeof payload);
  zipfft__cache_clear_memory();
  char path[4096];
  ZT_CHECK(zipfft__cache_path("cubin", key, ".bin", path, sizeof path), "no path for %s", label);
  long file_size = 24 + (long)sizeof payload;
  long flip_at = flip_from_end > 0 ? file_size - flip_from_end : -1;
  ZT_CHECK(damage_file(path, file_size + keep_delta, flip_at), "could not damage %s", path);
  void *data = NULL;
  size_t size = 0;
  int hit = zipfft__cache_get("cubin", key, &data, &size);
  ZT_CHECK(!hit, "%s file was a hit", label);
  if (hit) free(data);
}

/* A cache path ends with 32 hex digits and the suffix, inside the kind's folder. */
static void test_path(const char *root) {
  char path[4096];
  zipfft__cache_key key = {0x0123456789abcdefull, 0xfedcba9876543210ull};
  ZT_CHECK(zipfft__cache_path("cpu", key, ".so", path, sizeof path), "cache_path failed");
  char expected[4096];
  snprintf(expected, sizeof expected, "%s/cpu/fedcba98765432100123456789abcdef.so", root);
  ZT_CHECK(strcmp(path, expected) == 0, "path %s, expected %s", path, expected);
  struct stat st;
  ZT_CHECK(stat(expected, &st) != 0, "cache_path created the file itself");
  snprintf(expected, sizeof expected, "%s/cpu", root);
  ZT_CHECK(stat(expected, &st) == 0 && S_ISDIR(st.st_mode), "kind folder not created");
  ZT_CHECK(!zipfft__cache_path("cpu", key, ".so", path, 10), "tiny buffer accepted");
}

/* Number of leftover temporary files (".tmp." in the name) in a directory. */
static int count_temp_files(const char *path) {
  int count = 0;
  DIR *dir = opendir(path);
  if (!dir) return 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) count += strstr(entry->d_name, ".tmp.") != NULL;
  closedir(dir);
  return count;
}

/* The memory cache holds at most its limit's bytes, the least recently used dropped first,
 * and no binary larger than the limit (the disk, unusable here, would keep every one). */
static void test_memory_limit(void) {
  static unsigned char bytes[4000];
  memset(bytes, 7, sizeof bytes);
  char *saved = zt_env_save("ZIPFFT_CACHE_DIR");
  setenv("ZIPFFT_CACHE_DIR", "/dev/null/no-cache", 1);
  zipfft__cache_clear_memory();
  size_t previous = zipfft__cache_set_memory_limit(3000);
  zipfft__cache_key a = key_of2("lru", "a"), b = key_of2("lru", "b"), c = key_of2("lru", "c");
  zipfft__cache_key d = key_of2("lru", "d"), big = key_of2("lru", "big");
  zipfft__cache_put("cpu", a, bytes, 1000);
  zipfft__cache_put("cpu", b, bytes, 1000);
  zipfft__cache_put("cpu", c, bytes, 1000);
  ZT_CHECK(hits_with("cpu", a, bytes, 1000), "a: three entries at the limit");
  zipfft__cache_put("cpu", d, bytes, 1000); /* b is now the least recently used */
  ZT_CHECK(!hits_with("cpu", b, bytes, 1000), "b: the least recently used was kept");
  ZT_CHECK(hits_with("cpu", a, bytes, 1000) && hits_with("cpu", c, bytes, 1000) &&
               hits_with("cpu", d, bytes, 1000),
           "a, c, d: a more recent entry was dropped");
  zipfft__cache_put("cpu", big, bytes, 4000);
  ZT_CHECK(!hits_with("cpu", big, bytes, 4000), "a binary above the limit was kept");
  ZT_CHECK(hits_with("cpu", d, bytes, 1000), "d: dropped for a binary that was not kept");
  zipfft__cache_set_memory_limit(1000); /* keeps the most recent, d */
  ZT_CHECK(hits_with("cpu", d, bytes, 1000) && !hits_with("cpu", a, bytes, 1000) &&
               !hits_with("cpu", c, bytes, 1000),
           "a lowered limit kept other than the most recent entry");
  zipfft__cache_set_memory_limit(previous);
  zipfft__cache_clear_memory();
  zt_env_restore("ZIPFFT_CACHE_DIR", saved);
}

int main(void) {
  char root[] = "/tmp/zipfft-test-cache-XXXXXX";
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  char nested[256];
  snprintf(nested, sizeof nested, "%s/a/b", root);
  setenv("ZIPFFT_CACHE_DIR", nested, 1);
  test_keys();
  test_round_trip();
  check_damaged_is_miss("truncated", -1, 0);
  check_damaged_is_miss("flipped", 0, 5);
  check_damaged_is_miss("bad magic", 0, 24 + 33); /* byte 0 of the header */
  test_path(nested);
  test_memory_limit();
  char kind_dir[512];
  snprintf(kind_dir, sizeof kind_dir, "%s/cubin", nested);
  ZT_CHECK(count_temp_files(kind_dir) == 0, "temporary files left in %s", kind_dir);
  zipfft__cache_clear_memory();
  zt_remove_tree(root);
  return zt_finish("test_cache", 7);
}
