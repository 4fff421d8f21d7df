/* cache_trim.h - the on-disk kernel cache's size limit: least recently used entries go first. */
#ifndef ZIPFFT_CACHE_TRIM_H
#define ZIPFFT_CACHE_TRIM_H

#include <stdint.h>

/* Bytes the disk cache may hold in all: ZIPFFT_CACHE_MAX_MB mebibytes (default 1024; 0 means
 * no limit; a value that is not a non-negative integer gives the default). */
uint64_t zipfft__cache_disk_limit(void);

/* Removes cache files under root (the cache directory), least recently used first (by
 * modification time, which a disk hit renews), until they hold at most 7/8 of limit bytes,
 * when they hold more than limit. Counts and removes only entries ("<32 hex digits>.bin")
 * and temporary files older than an hour in the folders of the backends' kinds
 * (ZIPFFT__CACHE_KIND_ in cache.h); anything else is left alone.
 * limit 0 does nothing. Errors are ignored: another process may be trimming too. */
void zipfft__cache_trim(const char *root, uint64_t limit);

/* Records that this process wrote bytes to the cache under root; trims the cache to the
 * limit at the first write of the process and then whenever the bytes written since the
 * last trim reach a sixteenth of the limit (so a scan of the folders is rare). */
void zipfft__cache_wrote(const char *root, uint64_t bytes);

#endif
