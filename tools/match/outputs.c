/* outputs.c - the files of one `zipfft match` run, staged as dir/name.part and renamed into
 * place together. */
#include "outputs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

static const char part_suffix[] = ".part";

/* Characters of dir/name (with the .part suffix when staged), without the NUL. */
static size_t path_length(const match_outputs *set, const char *name, int staged) {
  return strlen(set->dir) + 1 + strlen(name) + (staged ? strlen(part_suffix) : 0);
}

/* Writes dir/name (with the .part suffix when staged) into path when it fits (returns 1);
 * otherwise leaves path alone and returns 0. */
static int format_path(const match_outputs *set, const char *name, int staged, char *path,
                       size_t path_len) {
  if (path_length(set, name, staged) >= path_len) return 0;
  size_t dir_len = strlen(set->dir), name_len = strlen(name);
  memcpy(path, set->dir, dir_len);
  path[dir_len] = '/';
  memcpy(path + dir_len + 1, name, name_len);
  strcpy(path + dir_len + 1 + name_len, staged ? part_suffix : "");
  return 1;
}

void outputs_init(match_outputs *set, const char *dir) {
  set->dir = dir;
  set->count = 0;
}

int outputs_stage(match_outputs *set, const char *name, char *path, size_t path_len, char *err,
                  size_t err_len) {
  if (set->count >= match_outputs_max)
    return match_fail(err, err_len, "%s: more than %d output files", name, match_outputs_max);
  if (strlen(name) >= sizeof set->names[0] || strchr(name, '/'))
    return match_fail(err, err_len, "%s: not a plain output file name", name);
  if (!format_path(set, name, 1, path, path_len))
    return match_fail(err, err_len, "%s/%s: path too long (%zu bytes with %s, at most %zu)",
                      set->dir, name, path_length(set, name, 1), part_suffix, path_len - 1);
  strcpy(set->names[set->count++], name);
  return 0;
}

/* The first staged name whose final path is a directory (a rename would fail), or NULL. */
static const char *blocked_name(const match_outputs *set) {
  char final[match_outputs_path_max];
  struct stat st;
  for (int i = 0; i < set->count; i++) {
    format_path(set, set->names[i], 0, final, sizeof final); /* shorter than its .part */
    if (stat(final, &st) == 0 && S_ISDIR(st.st_mode)) return set->names[i];
  }
  return NULL;
}

int outputs_commit(match_outputs *set, char *err, size_t err_len) {
  char part[match_outputs_path_max], final[match_outputs_path_max];
  const char *blocked = blocked_name(set);
  int failed =
      blocked ? match_fail(err, err_len, "%s/%s is a directory: nothing written", set->dir, blocked)
              : 0;
  for (int i = 0; i < set->count; i++) {
    format_path(set, set->names[i], 1, part, sizeof part); /* fitted when staged */
    format_path(set, set->names[i], 0, final, sizeof final);
    if (!failed && rename(part, final) != 0)
      failed = match_fail(err, err_len, "cannot rename %s into place: %s", part, strerror(errno));
    if (failed) unlink(part);
  }
  set->count = 0;
  return failed;
}

void outputs_abandon(match_outputs *set) {
  char part[match_outputs_path_max];
  for (int i = 0; i < set->count; i++)
    if (format_path(set, set->names[i], 1, part, sizeof part)) unlink(part);
  set->count = 0;
}
