/* cache.h - compiled-kernel cache: in memory and on disk, keyed by a content hash. */
#ifndef ZIPFFT_CACHE_H
#define ZIPFFT_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The kinds of binary the backends cache (each a folder of the cache directory; the size
 * limit trims these), an entry's file suffix after its key's 32 hex digits, and what a
 * temporary file adds to its entry's name before "<pid>.<serial>". */
#define ZIPFFT__CACHE_KIND_CUBIN "cubin"
#define ZIPFFT__CACHE_KIND_CPU "cpu"
#define ZIPFFT__CACHE_ENTRY_SUFFIX ".bin"
#define ZIPFFT__CACHE_TEMP_INFIX ".tmp."

/* A 128-bit key computed from every input that determines a compiled binary. */
typedef struct zipfft__cache_key {
  uint64_t lo, hi;
} zipfft__cache_key;

/* Hashes a list of NUL-terminated strings (source, architecture, compiler version, ...)
 * into a key; the strings are separated so ("ab","c") and ("a","bc") differ. */
zipfft__cache_key zipfft__cache_key_of(const char *const *parts, int count);

/* Looks a binary up, first in memory then on disk (ZIPFFT_CACHE_DIR, else
 * $XDG_CACHE_HOME/zipfft, else $HOME/.cache/zipfft). kind names a subfolder (one of the
 * ZIPFFT__CACHE_KIND_ names: the size limit trims only those). On a hit returns 1 and a
 * malloc'ed copy in *data and *size; a disk hit renews the file's modification time (its last use).
 * A corrupt or truncated disk entry is a miss. Never fails loudly: any problem is a miss. */
int zipfft__cache_get(const char *kind, zipfft__cache_key key, void **data, size_t *size);
/* Stores a binary in memory and on disk (atomically: temporary file then rename, with a
 * checksum), then keeps the disk under its size limit (cache_trim.h). Errors writing the
 * disk are ignored (the cache is an optimisation). */
void zipfft__cache_put(const char *kind, zipfft__cache_key key, const void *data, size_t size);
/* Path of the on-disk file for a key, written into buf; returns 0 when no cache directory
 * is usable. Used by the CPU backend, which must dlopen a file. */
int zipfft__cache_path(const char *kind, zipfft__cache_key key, const char *suffix, char *buf,
                       size_t len);

/* Forgets every in-memory entry (tests, and cold-plan timing in the benchmark). The cache
 * directory is read from the environment at every call. */
void zipfft__cache_clear_memory(void);
/* Sets the most bytes the in-memory entries may hold (default 64 MiB; the least recently
 * used go first; the disk keeps them) and returns the previous limit: for the tests. */
size_t zipfft__cache_set_memory_limit(size_t bytes);

#endif
