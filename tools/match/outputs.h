/* outputs.h - the files of one `zipfft match` run, written under temporary names and renamed
 * into place together at the end, so that a run that fails leaves none of them behind. */
#ifndef ZIPFFT_MATCH_OUTPUTS_H
#define ZIPFFT_MATCH_OUTPUTS_H

#include <stddef.h>

enum { match_outputs_max = 16, match_outputs_path_max = 4096 };

/* The staged files of one run, in the order they were staged. */
typedef struct match_outputs {
  const char *dir; /* borrowed: must outlive the set */
  int count;
  char names[match_outputs_max][64];
} match_outputs;

/* An empty set of files in dir. */
void outputs_init(match_outputs *set, const char *dir);

/* Records `name` (a plain file name, shorter than 64 bytes) and writes into path (path_len
 * bytes) where to write it until the commit: dir/name.part. Returns 0, or 1 with a message
 * (a full set, a name too long or with a '/', a path too long), leaving the set unchanged. */
int outputs_stage(match_outputs *set, const char *name, char *path, size_t path_len, char *err,
                  size_t err_len);

/* Renames every staged dir/name.part to dir/name, in staging order; the set is empty after.
 * Returns 0, or 1 with a message. Where a final name is a directory, it fails before any
 * rename and removes every .part file: nothing is written. Where a rename fails otherwise,
 * the files renamed before it stay in place, and its .part file and the later ones are
 * removed. */
int outputs_commit(match_outputs *set, char *err, size_t err_len);

/* Removes every staged dir/name.part that exists (a run that failed); the set is empty after. */
void outputs_abandon(match_outputs *set);

#endif
