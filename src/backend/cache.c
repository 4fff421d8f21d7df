/* cache.c - compiled-kernel cache: a locked list in memory and checksummed files on disk. */
#include "backend/cache.h"
#include "backend/cache_trim.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- hashing ---------------------------------------------------------------------------- */

static const uint64_t fnv_basis = 0xcbf29ce484222325ull;
static const uint64_t fnv_prime = 0x100000001b3ull;
static const uint64_t mix_seed = 0x9e3779b97f4a7c15ull;
static const uint64_t mix_multiplier = 0xd6e8feb86659fd93ull;

/* Two independent running hashes: FNV-1a and a multiply / xor-shift mix. */
typedef struct hash_pair {
  uint64_t fnv, mix;
} hash_pair;

/* Feeds bytes into both hashes. */
static void hash_bytes(hash_pair *h, const void *data, size_t size) {
  const unsigned char *bytes = data;
  for (size_t i = 0; i < size; i++) {
    h->fnv = (h->fnv ^ bytes[i]) * fnv_prime;
    h->mix = (h->mix + bytes[i] + 1) * mix_multiplier;
    h->mix ^= h->mix >> 29;
  }
}

/* Feeds a 64-bit value, little-endian, into both hashes. */
static void hash_u64(hash_pair *h, uint64_t value) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)(value >> (8 * i));
  hash_bytes(h, bytes, sizeof bytes);
}

/* Final avalanche so that every input bit affects every output bit. */
static uint64_t finish_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* 128-bit key of the length-prefixed parts (the count too, so trailing "" parts matter). */
zipfft__cache_key zipfft__cache_key_of(const char *const *parts, int count) {
  hash_pair h = {fnv_basis, mix_seed};
  hash_u64(&h, (uint64_t)(count > 0 ? count : 0));
  for (int i = 0; i < count; i++) {
    const char *part = parts[i] ? parts[i] : "";
    size_t length = strlen(part);
    hash_u64(&h, (uint64_t)length);
    hash_bytes(&h, part, length);
  }
  zipfft__cache_key key = {h.fnv, finish_mix(h.mix)};
  return key;
}

/* Checksum of a file payload: FNV-1a 64 xor the mixed hash, never a plain byte sum. */
static uint64_t payload_checksum(const void *data, size_t size) {
  hash_pair h = {fnv_basis, mix_seed};
  hash_bytes(&h, data, size);
  return h.fnv ^ finish_mix(h.mix);
}

/* ---- memory cache ----------------------------------------------------------------------- */

typedef struct memory_entry {
  struct memory_entry *next;
  char *kind;
  zipfft__cache_key key;
  void *data;
  size_t size;
} memory_entry;

/* The in-memory entries, most recently used first, and their bytes, kept at most
 * memory_limit (least recently used dropped first) so that a process that plans many
 * distinct problems does not grow without bound: the disk keeps them (cache_trim.c). */
static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;
static memory_entry *memory_head;
static size_t memory_bytes, memory_limit = (size_t)64 << 20;

/* malloc'ed copy of size bytes (at least one byte allocated so 0 is not NULL). */
static void *copy_bytes(const void *data, size_t size) {
  void *copy = malloc(size ? size : 1);
  if (copy && size) memcpy(copy, data, size);
  return copy;
}

/* The link that points at the entry for (kind, key), or NULL; call with memory_lock held. */
static memory_entry **find_link(const char *kind, zipfft__cache_key key) {
  for (memory_entry **link = &memory_head; *link; link = &(*link)->next) {
    const memory_entry *e = *link;
    if (e->key.lo == key.lo && e->key.hi == key.hi && strcmp(e->kind, kind) == 0) return link;
  }
  return NULL;
}

/* Moves the entry a link points at to the front (most recently used); returns it. */
static memory_entry *move_to_front(memory_entry **link) {
  memory_entry *e = *link;
  *link = e->next;
  e->next = memory_head;
  memory_head = e;
  return e;
}

static void free_entry(memory_entry *e) {
  free(e->kind);
  free(e->data);
  free(e);
}

/* Drops the least recently used entries until the bytes fit the limit; call with
 * memory_lock held. */
static void evict_beyond_limit(void) {
  while (memory_bytes > memory_limit && memory_head) {
    memory_entry **link = &memory_head;
    while ((*link)->next) link = &(*link)->next;
    memory_entry *last = *link;
    *link = NULL;
    memory_bytes -= last->size;
    free_entry(last);
  }
}

/* Copies an in-memory hit into *data and *size; returns 1 on a hit. */
static int memory_get(const char *kind, zipfft__cache_key key, void **data, size_t *size) {
  int hit = 0;
  pthread_mutex_lock(&memory_lock);
  memory_entry **link = find_link(kind, key);
  if (link) {
    memory_entry *e = move_to_front(link);
    void *copy = copy_bytes(e->data, e->size);
    if (copy) {
      *data = copy;
      *size = e->size;
      hit = 1;
    }
  }
  pthread_mutex_unlock(&memory_lock);
  return hit;
}

/* A new entry for (kind, key) owning data, at the front of the list; call with memory_lock
 * held. NULL when out of memory. */
static memory_entry *new_entry(const char *kind, zipfft__cache_key key, void *data, size_t size) {
  memory_entry *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->kind = strdup(kind);
  if (!e->kind) {
    free(e);
    return NULL;
  }
  e->key = key, e->data = data, e->size = size;
  e->next = memory_head;
  memory_head = e;
  return e;
}

/* Inserts (or replaces) a copy of the bytes as the most recent entry, then drops the least
 * recent beyond the limit; a binary larger than the limit is not kept. Silently gives up
 * when out of memory. */
static void memory_put(const char *kind, zipfft__cache_key key, const void *data, size_t size) {
  void *copy = copy_bytes(data, size);
  if (!copy) return;
  pthread_mutex_lock(&memory_lock);
  memory_entry **link = find_link(kind, key);
  if (link) { /* replaced: the old bytes go */
    memory_entry *e = *link;
    *link = e->next;
    memory_bytes -= e->size;
    free_entry(e);
  }
  if (size <= memory_limit && new_entry(kind, key, copy, size)) {
    memory_bytes += size;
    copy = NULL;
    evict_beyond_limit();
  }
  pthread_mutex_unlock(&memory_lock);
  free(copy);
}

size_t zipfft__cache_set_memory_limit(size_t bytes) {
  pthread_mutex_lock(&memory_lock);
  size_t previous = memory_limit;
  memory_limit = bytes;
  evict_beyond_limit();
  pthread_mutex_unlock(&memory_lock);
  return previous;
}

/* Frees every in-memory entry. */
void zipfft__cache_clear_memory(void) {
  pthread_mutex_lock(&memory_lock);
  memory_entry *e = memory_head;
  memory_head = NULL;
  memory_bytes = 0;
  pthread_mutex_unlock(&memory_lock);
  while (e) {
    memory_entry *next = e->next;
    free_entry(e);
    e = next;
  }
}

/* ---- disk cache ------------------------------------------------------------------------- */

enum { path_capacity = 4096, header_bytes = 24 };
static const char file_magic[8] = {'Z', 'I', 'P', 'F', 'F', 'T', 'C', '1'};
static atomic_ulong temp_counter;

/* Where the cache lives: the first environment variable set (and usable) wins. */
typedef struct directory_source {
  const char *variable;
  const char *subpath;
  int must_be_absolute;
} directory_source;

static const directory_source directory_sources[] = {
    {"ZIPFFT_CACHE_DIR", "", 0},
    {"XDG_CACHE_HOME", "/zipfft", 1},
    {"HOME", "/.cache/zipfft", 0},
};

/* 1 when snprintf's result n fitted a buffer of len bytes. */
static int fits(int n, size_t len) { return n >= 0 && (size_t)n < len; }

/* A kind is a single plain path component (ZIPFFT__CACHE_KIND_CUBIN, ..._CPU). */
static int valid_kind(const char *kind) {
  return kind && kind[0] && kind[0] != '.' && !strchr(kind, '/');
}

/* Writes the cache root into buf, read from the environment now; 0 if unavailable. */
static int root_directory(char *buf, size_t len) {
  size_t count = sizeof directory_sources / sizeof directory_sources[0];
  for (size_t i = 0; i < count; i++) {
    const char *root = getenv(directory_sources[i].variable);
    if (!root || !root[0] || (directory_sources[i].must_be_absolute && root[0] != '/')) continue;
    return fits(snprintf(buf, len, "%s%s", root, directory_sources[i].subpath), len);
  }
  return 0;
}

/* Writes "<cache root>/<kind>" into buf; 0 if unavailable. */
static int kind_directory(const char *kind, char *buf, size_t len) {
  if (!root_directory(buf, len)) return 0;
  size_t used = strlen(buf);
  return fits(snprintf(buf + used, len - used, "/%s", kind), len - used);
}

/* mkdir -p with mode 0700; returns 1 when path is (now) a directory. */
static int make_directories(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    int made = mkdir(path, 0700) == 0 || errno == EEXIST;
    *p = '/';
    if (!made) return 0;
  }
  struct stat st;
  if (mkdir(path, 0700) != 0 && errno != EEXIST) return 0;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Writes the file path of a key into buf, creating its directory when create is set. */
static int entry_path(const char *kind, zipfft__cache_key key, const char *suffix, int create,
                      char *buf, size_t len) {
  if (!valid_kind(kind) || !kind_directory(kind, buf, len)) return 0;
  if (create && !make_directories(buf)) return 0;
  size_t used = strlen(buf);
  return fits(snprintf(buf + used, len - used, "/%016llx%016llx%s", (unsigned long long)key.hi,
                       (unsigned long long)key.lo, suffix ? suffix : ""),
              len - used);
}

/* Stores value little-endian into 8 bytes. */
static void store_u64(unsigned char *out, uint64_t value) {
  for (int i = 0; i < 8; i++) out[i] = (unsigned char)(value >> (8 * i));
}

/* Loads a little-endian 64-bit value. */
static uint64_t load_u64(const unsigned char *in) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; i--) value = (value << 8) | in[i];
  return value;
}

/* Reads exactly size bytes (retrying on EINTR and short reads); 1 on success. */
static int read_all(int fd, void *buf, size_t size) {
  unsigned char *p = buf;
  while (size > 0) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

/* Writes exactly size bytes (retrying on EINTR and short writes); 1 on success. */
static int write_all(int fd, const void *buf, size_t size) {
  const unsigned char *p = buf;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

/* Reads and verifies a cache file; the payload goes to *data and *size. Returns 1 on a valid
 * entry; a file that exists but is damaged is unlinked. */
static int disk_get(const char *path, void **data, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char header[header_bytes];
  void *payload = NULL;
  int hit = 0, damaged = 1;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < header_bytes || !read_all(fd, header, header_bytes))
    goto done;
  uint64_t payload_size = load_u64(header + 8);
  if (memcmp(header, file_magic, sizeof file_magic) != 0 ||
      (uint64_t)st.st_size - header_bytes != payload_size || payload_size > SIZE_MAX)
    goto done;
  payload = malloc(payload_size ? (size_t)payload_size : 1);
  if (!payload) {
    damaged = 0;
    goto done;
  }
  if (!read_all(fd, payload, (size_t)payload_size) ||
      payload_checksum(payload, (size_t)payload_size) != load_u64(header + 16))
    goto done;
  *data = payload;
  *size = (size_t)payload_size;
  payload = NULL;
  hit = 1;
  damaged = 0;
  futimens(fd, NULL); /* a use: the size limit removes the least recently used first */
done:
  close(fd);
  free(payload);
  if (damaged) unlink(path);
  return hit;
}

/* Writes a cache file atomically: unique temporary file in the same directory, then
 * rename(). Returns 1 when written; a failure removes the temporary file. */
static int disk_put(const char *path, const void *data, size_t size) {
  char temp[path_capacity];
  unsigned long serial = atomic_fetch_add(&temp_counter, 1);
  if (!fits(snprintf(temp, sizeof temp, "%s" ZIPFFT__CACHE_TEMP_INFIX "%ld.%lu", path,
                     (long)getpid(), serial),
            sizeof temp))
    return 0;
  int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return 0;
  unsigned char header[header_bytes];
  memcpy(header, file_magic, sizeof file_magic);
  store_u64(header + 8, (uint64_t)size);
  store_u64(header + 16, payload_checksum(data, size));
  int ok = write_all(fd, header, sizeof header) && write_all(fd, data, size);
  if (close(fd) != 0) ok = 0;
  if (ok && rename(temp, path) != 0) ok = 0;
  if (!ok) unlink(temp);
  return ok;
}

/* ---- public entry points ---------------------------------------------------------------- */

/* Memory first, then disk (a disk hit is remembered in memory). */
int zipfft__cache_get(const char *kind, zipfft__cache_key key, void **data, size_t *size) {
  if (!valid_kind(kind) || !data || !size) return 0;
  if (memory_get(kind, key, data, size)) return 1;
  char path[path_capacity];
  if (!entry_path(kind, key, ZIPFFT__CACHE_ENTRY_SUFFIX, 0, path, sizeof path)) return 0;
  if (!disk_get(path, data, size)) return 0;
  memory_put(kind, key, *data, *size);
  return 1;
}

/* Stores in memory, then on disk (trimming the disk to its limit now and then); failures
 * only cost a future miss. */
void zipfft__cache_put(const char *kind, zipfft__cache_key key, const void *data, size_t size) {
  if (!valid_kind(kind) || (!data && size)) return;
  memory_put(kind, key, data, size);
  char path[path_capacity], root[path_capacity];
  if (entry_path(kind, key, ZIPFFT__CACHE_ENTRY_SUFFIX, 1, path, sizeof path) &&
      disk_put(path, data, size) && root_directory(root, sizeof root))
    zipfft__cache_wrote(root, header_bytes + (uint64_t)size);
}

/* Path of the file for a key with the given suffix; creates the directories. */
int zipfft__cache_path(const char *kind, zipfft__cache_key key, const char *suffix, char *buf,
                       size_t len) {
  if (!buf || len == 0) return 0;
  return entry_path(kind, key, suffix, 1, buf, len);
}
