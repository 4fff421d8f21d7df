/* test_cache.c - kernel cache: keys, round trips, corrupt files as misses, size limits. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/cache.h"
#include "backend/cache_trim.h"
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

/* Bytes of the cache entries ("<key>.bin") in a folder. */
static long long entry_bytes(const char *folder) {
  long long total = 0;
  DIR *dir = opendir(folder);
  if (!dir) return 0;
  for (struct dirent *d; (d = readdir(dir)) != NULL;) {
    size_t length = strlen(d->d_name);
    if (length != 36 || strcmp(d->d_name + 32, ".bin") != 0) continue;
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", folder, d->d_name);
    if (stat(path, &st) == 0) total += st.st_size;
  }
  closedir(dir);
  return total;
}

/* Sets the access and modification times of path to seconds_ago seconds ago. */
static void set_age(const char *path, long seconds_ago) {
  time_t then = time(NULL) - seconds_ago;
  struct timespec times[2] = {{then, 0}, {then, 0}};
  ZT_CHECK(utimensat(AT_FDCWD, path, times, 0) == 0, "cannot age %s", path);
}

/* Writes size bytes to path, last modified seconds_ago seconds ago. */
static void write_aged(const char *path, size_t size, long seconds_ago) {
  static unsigned char zeros[300000];
  FILE *f = fopen(path, "wb");
  ZT_CHECK(f && fwrite(zeros, 1, size, f) == size && fclose(f) == 0, "cannot write %s", path);
  set_age(path, seconds_ago);
}

/* Sets the modification time of the entry of key to seconds_ago seconds ago. */
static void age_entry(zipfft__cache_key key, long seconds_ago) {
  char path[600];
  ZT_CHECK(zipfft__cache_path("cubin", key, ".bin", path, sizeof path), "no entry path");
  set_age(path, seconds_ago);
}

/* 1 when the entry of key is on disk with the expected bytes. */
static int on_disk(zipfft__cache_key key, const void *bytes, size_t size) {
  zipfft__cache_clear_memory();
  return hits_with("cubin", key, bytes, size);
}

/* ZIPFFT_CACHE_MAX_MB: how it is read. */
static void test_disk_limit_variable(void) {
  static const struct {
    const char *text;
    uint64_t bytes;
  } cases[] = {{"2", 2u << 20},  {"0", 0},         {"abc", 1u << 30},
               {"-5", 1u << 30}, {"3x", 1u << 30}, {"", 1u << 30}};
  char *saved = zt_env_save("ZIPFFT_CACHE_MAX_MB");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setenv("ZIPFFT_CACHE_MAX_MB", cases[i].text, 1);
    ZT_CHECK(zipfft__cache_disk_limit() == cases[i].bytes, "ZIPFFT_CACHE_MAX_MB='%s' read as %llu",
             cases[i].text, (unsigned long long)zipfft__cache_disk_limit());
  }
  unsetenv("ZIPFFT_CACHE_MAX_MB");
  ZT_CHECK(zipfft__cache_disk_limit() == 1u << 30, "unset: not the 1 GiB default");
  zt_env_restore("ZIPFFT_CACHE_MAX_MB", saved);
}

/* The disk keeps at most ZIPFFT_CACHE_MAX_MB, the least recently used entries (by
 * modification time, renewed by a disk hit) and stale temporary files removed first; files
 * that are not the cache's (in its kinds' folders or outside them), and fresh temporary
 * files, are left alone. Entries of 220,024 bytes with a 1 MiB limit: five are over it,
 * and a trim to 7/8 of it leaves four. */
static void test_disk_limit(const char *root) {
  enum { entry = 220000, count = 10 };
  static unsigned char bytes[entry];
  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(i * 13);
  char *saved_dir = zt_env_save("ZIPFFT_CACHE_DIR"),
       *saved_max = zt_env_save("ZIPFFT_CACHE_MAX_MB");
  char top[512], folder[600], foreign[700], fresh_temp[700], stale_temp[700], other[700];
  snprintf(top, sizeof top, "%s/limited", root);
  snprintf(folder, sizeof folder, "%s/cubin", top);
  setenv("ZIPFFT_CACHE_DIR", top, 1);
  setenv("ZIPFFT_CACHE_MAX_MB", "1", 1);
  zipfft__cache_key keys[count + 5];
  for (int i = 0; i < count + 5; i++) {
    char name[16];
    snprintf(name, sizeof name, "%d", i);
    keys[i] = key_of2("limit", name);
  }
  char path[600];
  ZT_CHECK(zipfft__cache_path("cubin", keys[0], ".bin", path, sizeof path), "no entry path");
  snprintf(foreign, sizeof foreign, "%s/notes.txt", folder);
  snprintf(fresh_temp, sizeof fresh_temp, "%s.tmp.1.1", path);
  snprintf(stale_temp, sizeof stale_temp, "%s.tmp.1.2", path);
  write_aged(foreign, 300000, 9000);
  snprintf(other, sizeof other, "%s/other", top); /* not a kind: named like an entry, kept */
  ZT_CHECK(mkdir(other, 0700) == 0, "cannot make %s", other);
  snprintf(other, sizeof other, "%s/other/%s", top, strrchr(path, '/') + 1);
  write_aged(other, 300000, 9000);
  write_aged(fresh_temp, 300000, 60);
  write_aged(stale_temp, 100000, 7200);
  for (int i = 0; i < count; i++) {
    zipfft__cache_put("cubin", keys[i], bytes, entry);
    age_entry(keys[i], 5000 - 100 * i); /* put order, without ties between entries */
    ZT_CHECK(entry_bytes(folder) <= 1 << 20, "%lld bytes of entries after %d puts",
             entry_bytes(folder), i + 1);
  }
  struct stat st;
  ZT_CHECK(stat(foreign, &st) == 0 && stat(fresh_temp, &st) == 0 && stat(other, &st) == 0,
           "a file that is not an entry, a fresh temporary file or a file outside the kinds' "
           "folders was removed");
  ZT_CHECK(stat(stale_temp, &st) != 0, "a temporary file two hours old was kept");
  for (int i = 0; i < count; i++)
    ZT_CHECK(on_disk(keys[i], bytes, entry) == (i >= count - 4), "entry %d: %s", i,
             i >= count - 4 ? "one of the four most recent was removed" : "an old one was kept");
  /* Use the oldest survivor: the next trim removes the one after it instead. */
  for (int i = count - 4; i < count; i++) age_entry(keys[i], 4000 - 1000 * (i - (count - 4)));
  ZT_CHECK(on_disk(keys[count - 4], bytes, entry), "the oldest survivor did not hit");
  zipfft__cache_put("cubin", keys[count], bytes, entry);
  ZT_CHECK(on_disk(keys[count - 4], bytes, entry) && !on_disk(keys[count - 3], bytes, entry),
           "a disk hit did not count as a use");
  ZT_CHECK(on_disk(keys[count - 2], bytes, entry) && on_disk(keys[count], bytes, entry),
           "a trim removed more than it had to");
  setenv("ZIPFFT_CACHE_MAX_MB", "0", 1); /* no limit */
  for (int i = count + 1; i < count + 5; i++) zipfft__cache_put("cubin", keys[i], bytes, entry);
  ZT_CHECK(entry_bytes(folder) == 8LL * (entry + 24), "limit 0: %lld bytes of entries",
           entry_bytes(folder));
  zipfft__cache_clear_memory();
  zt_env_restore("ZIPFFT_CACHE_DIR", saved_dir);
  zt_env_restore("ZIPFFT_CACHE_MAX_MB", saved_max);
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
  test_disk_limit_variable();
  test_disk_limit(root);
  char kind_dir[512];
  snprintf(kind_dir, sizeof kind_dir, "%s/cubin", nested);
  ZT_CHECK(count_temp_files(kind_dir) == 0, "temporary files left in %s", kind_dir);
  zipfft__cache_clear_memory();
  zt_remove_tree(root);
  return zt_finish("test_cache", 9);
}
