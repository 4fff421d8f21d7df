/* cache_trim.c - keeps the on-disk kernel cache under its size limit, least recently used first. */
#include "backend/cache_trim.h"

#include "backend/cache.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
  default_limit_mib = 1024,
  key_hex_digits = 32,
  stale_temp_seconds = 3600, /* a temporary file this old belongs to a writer that died */
  path_capacity = 4096,
};

/* One removable file of the cache: its path, bytes and last use (modification time). */
typedef struct cache_file {
  char *path;
  uint64_t bytes;
  struct timespec used;
} cache_file;

/* The files a scan found, and their bytes in all. */
typedef struct file_list {
  cache_file *files;
  size_t count, capacity;
  uint64_t bytes;
} file_list;

uint64_t zipfft__cache_disk_limit(void) {
  const char *text = getenv("ZIPFFT_CACHE_MAX_MB");
  if (!text || !*text) return (uint64_t)default_limit_mib << 20;
  char *end = NULL;
  errno = 0;
  long long mib = strtoll(text, &end, 10);
  if (errno || *end || mib < 0 || mib > (long long)(UINT64_MAX >> 20))
    return (uint64_t)default_limit_mib << 20;
  return (uint64_t)mib << 20;
}

/* 1 when name is "<32 hex digits>.bin", the name of a cache entry. */
static int is_entry_name(const char *name) {
  for (int i = 0; i < key_hex_digits; i++)
    if (!name[i] || !strchr("0123456789abcdef", name[i])) return 0;
  return strcmp(name + key_hex_digits, ZIPFFT__CACHE_ENTRY_SUFFIX) == 0;
}

/* 1 when name is an entry's temporary file ("<entry>.tmp.<pid>.<serial>"). */
static int is_temp_name(const char *name) {
  static const char infix[] = ZIPFFT__CACHE_TEMP_INFIX;
  char entry[key_hex_digits + sizeof ZIPFFT__CACHE_ENTRY_SUFFIX];
  size_t length = sizeof entry - 1;
  if (strlen(name) <= length || strncmp(name + length, infix, sizeof infix - 1) != 0) return 0;
  memcpy(entry, name, length);
  entry[length] = '\0';
  return is_entry_name(entry);
}

/* 1 when a is earlier than b. */
static int earlier(struct timespec a, struct timespec b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

/* Appends a file; 0 when out of memory. */
static int add_file(file_list *list, const char *path, const struct stat *st) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 256;
    cache_file *grown = realloc(list->files, capacity * sizeof *grown);
    if (!grown) return 0;
    list->files = grown, list->capacity = capacity;
  }
  char *copy = strdup(path);
  if (!copy) return 0;
  list->files[list->count++] = (cache_file){copy, (uint64_t)st->st_size, st->st_mtim};
  list->bytes += (uint64_t)st->st_size;
  return 1;
}

/* Adds the entries of one kind's folder, and the temporary files older than an hour;
 * other files are not the cache's and are left alone. 0 when out of memory. */
static int scan_kind(file_list *list, const char *folder, time_t now) {
  DIR *dir = opendir(folder);
  if (!dir) return 1;
  int ok = 1;
  for (struct dirent *d; ok && (d = readdir(dir));) {
    int entry = is_entry_name(d->d_name), temp = !entry && is_temp_name(d->d_name);
    if (!entry && !temp) continue;
    char path[path_capacity];
    struct stat st;
    int n = snprintf(path, sizeof path, "%s/%s", folder, d->d_name);
    if (n < 0 || (size_t)n >= sizeof path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (temp && now - st.st_mtim.tv_sec < stale_temp_seconds) continue;
    ok = add_file(list, path, &st);
  }
  closedir(dir);
  return ok;
}

/* The kinds of binary the backends cache (cache.h), each a folder of root: only these are
 * scanned, so that a cache directory shared with other files loses none of them. */
static const char *const cached_kinds[] = {ZIPFFT__CACHE_KIND_CUBIN, ZIPFFT__CACHE_KIND_CPU};

/* Adds the files of every kind's folder under root. 0 when out of memory. */
static int scan_root(file_list *list, const char *root) {
  time_t now = time(NULL);
  for (size_t i = 0; i < sizeof cached_kinds / sizeof cached_kinds[0]; i++) {
    char folder[path_capacity];
    struct stat st;
    int n = snprintf(folder, sizeof folder, "%s/%s", root, cached_kinds[i]);
    if (n < 0 || (size_t)n >= sizeof folder || stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
      continue; /* stat: a kind's folder may be a link, as writes follow it */
    if (!scan_kind(list, folder, now)) return 0;
  }
  return 1;
}

/* qsort order of cache files: least recently used first. */
static int least_recent_first(const void *a, const void *b) {
  const cache_file *x = a, *y = b;
  return earlier(x->used, y->used) ? -1 : earlier(y->used, x->used) ? 1 : 0;
}

/* Frees the paths and the array of a file list. */
static void free_list(file_list *list) {
  for (size_t i = 0; i < list->count; i++) free(list->files[i].path);
  free(list->files);
}

void zipfft__cache_trim(const char *root, uint64_t limit) {
  file_list list = {0};
  if (limit && scan_root(&list, root) && list.bytes > limit) {
    uint64_t target = limit - limit / 8; /* room for a few more writes before the next trim */
    qsort(list.files, list.count, sizeof *list.files, least_recent_first);
    for (size_t i = 0; i < list.count && list.bytes > target; i++)
      if (unlink(list.files[i].path) == 0 || errno == ENOENT) list.bytes -= list.files[i].bytes;
  }
  free_list(&list);
}

/* Bytes this process wrote to the disk cache since it last trimmed it, and whether it has
 * trimmed it at all. */
static pthread_mutex_t written_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t written_since_trim;
static int trimmed_once;

void zipfft__cache_wrote(const char *root, uint64_t bytes) {
  uint64_t limit = zipfft__cache_disk_limit();
  if (!limit) return;
  pthread_mutex_lock(&written_lock);
  written_since_trim += bytes;
  int due = !trimmed_once || written_since_trim >= limit / 16;
  if (due) written_since_trim = 0, trimmed_once = 1;
  pthread_mutex_unlock(&written_lock);
  if (due) zipfft__cache_trim(root, limit);
}
