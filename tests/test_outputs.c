/* test_outputs.c - the staged output files of `zipfft match`: nothing in place until the
 * commit, nothing left by an abandoned run or a failed commit. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrc.h"
#include "outputs.h"
#include "test_util.h"

static char tmp_dir[] = "/tmp/zipfft_test_outputs_XXXXXX";
static int cases;

static void report(const char *name, int failures_before) {
  cases++;
  printf("%s %s\n", zt_failures == failures_before ? "ok  " : "FAIL", name);
}

static int exists_in_dir(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  return access(path, F_OK) == 0;
}

/* The number of directory entries other than . and .. */
static int entries_in_dir(void) {
  int count = 0;
  DIR *dir = opendir(tmp_dir);
  struct dirent *entry;
  while (dir && (entry = readdir(dir)) != NULL)
    count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
  if (dir) closedir(dir);
  return count;
}

/* Stages each name and writes a 2x2 MRC file there. Returns 1 when all were written. */
static int stage_and_write(match_outputs *set, const char *const *names, int count) {
  static const float data[4] = {1, 2, 3, 4};
  char path[match_outputs_path_max], err[256] = "";
  for (int i = 0; i < count; i++) {
    if (outputs_stage(set, names[i], path, sizeof path, err, sizeof err) ||
        mrc_write(path, data, 2, 2, 1, 1.0f, err, sizeof err)) {
      ZT_CHECK(0, "%s: %s", names[i], err);
      return 0;
    }
  }
  return 1;
}

static void check_abandon(void) {
  static const char *const names[] = {"max.mrc", "index.mrc", "zscore.mrc"};
  int before = zt_failures;
  match_outputs set;
  outputs_init(&set, tmp_dir);
  stage_and_write(&set, names, 3);
  ZT_CHECK(entries_in_dir() == 3, "%d files staged, expected 3", entries_in_dir());
  outputs_abandon(&set);
  ZT_CHECK(entries_in_dir() == 0 && set.count == 0, "%d files left after abandoning",
           entries_in_dir());
  report("abandoned outputs leave no file", before);
}

static void check_commit(void) {
  static const char *const names[] = {"max.mrc", "peaks.mrc"};
  int before = zt_failures;
  char err[256] = "";
  match_outputs set;
  outputs_init(&set, tmp_dir);
  stage_and_write(&set, names, 2);
  ZT_CHECK(
      !exists_in_dir("max.mrc") && !exists_in_dir("peaks.mrc") && exists_in_dir("max.mrc.part"),
      "in place before the commit");
  ZT_CHECK(outputs_commit(&set, err, sizeof err) == 0, "commit: %s", err);
  ZT_CHECK(exists_in_dir("max.mrc") && exists_in_dir("peaks.mrc") && entries_in_dir() == 2,
           "after the commit: %d entries", entries_in_dir());
  mrc_volume v = {0};
  char path[512];
  snprintf(path, sizeof path, "%s/peaks.mrc", tmp_dir);
  ZT_CHECK(mrc_read(path, &v, err, sizeof err) == 0 && v.nx == 2 && v.data[3] == 4.0f,
           "committed file unreadable: %s", err);
  mrc_free(&v);
  outputs_abandon(&set); /* after a commit: touches nothing */
  ZT_CHECK(entries_in_dir() == 2, "abandon after commit removed files");
  remove(path);
  snprintf(path, sizeof path, "%s/max.mrc", tmp_dir);
  remove(path);
  report("committed outputs are in place, readable, no .part left", before);
}

/* A final name that is a directory: named in the message, nothing renamed, no .part left. */
static void check_commit_failure(void) {
  static const char *const names[] = {"first.mrc", "blocked.mrc", "last.mrc"};
  int before = zt_failures;
  char err[256] = "", path[512];
  snprintf(path, sizeof path, "%s/blocked.mrc", tmp_dir);
  ZT_CHECK(mkdir(path, 0700) == 0, "mkdir %s: %s", path, strerror(errno));
  static const float old[4] = {9, 9, 9, 9}; /* a previous run's first.mrc must survive */
  char first[512];
  snprintf(first, sizeof first, "%s/first.mrc", tmp_dir);
  ZT_CHECK(mrc_write(first, old, 2, 2, 1, 1.0f, err, sizeof err) == 0, "%s", err);
  match_outputs set;
  outputs_init(&set, tmp_dir);
  stage_and_write(&set, names, 3);
  ZT_CHECK(
      outputs_commit(&set, err, sizeof err) != 0 && strstr(err, "blocked.mrc") && set.count == 0,
      "commit over a directory: '%s'", err);
  ZT_CHECK(exists_in_dir("blocked.mrc") && entries_in_dir() == 2,
           "after a failed commit: %d entries", entries_in_dir());
  mrc_volume v = {0};
  ZT_CHECK(mrc_read(first, &v, err, sizeof err) == 0 && v.data[0] == 9.0f,
           "a failed commit changed the existing first.mrc: %s", err);
  mrc_free(&v);
  remove(first);
  rmdir(path);
  report("a final name that is a directory: named, nothing written", before);
}

static void check_bad_names(void) {
  int before = zt_failures;
  char err[256] = "", path[match_outputs_path_max];
  match_outputs set;
  outputs_init(&set, tmp_dir);
  ZT_CHECK(outputs_stage(&set, "sub/x.mrc", path, sizeof path, err, sizeof err) != 0 &&
               strstr(err, "sub/x.mrc"),
           "a name with '/' accepted: '%s'", err);
  snprintf(path, sizeof path, "untouched");
  ZT_CHECK(outputs_stage(&set, "x.mrc", path, 8, err, sizeof err) != 0 && strstr(err, "too long"),
           "a path longer than its buffer accepted: '%s'", err);
  ZT_CHECK(strcmp(path, "untouched") == 0, "a refused stage wrote its path: '%s'", path);
  for (int i = 0; i < match_outputs_max; i++)
    ZT_CHECK(outputs_stage(&set, "x.mrc", path, sizeof path, err, sizeof err) == 0, "%s", err);
  ZT_CHECK(outputs_stage(&set, "y.mrc", path, sizeof path, err, sizeof err) != 0 &&
               set.count == match_outputs_max,
           "a full set grew");
  outputs_abandon(&set);
  ZT_CHECK(entries_in_dir() == 0, "files appeared");
  report("bad names, short buffers and a full set are refused", before);
}

int main(void) {
  if (!mkdtemp(tmp_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", tmp_dir, strerror(errno));
    return 1;
  }
  check_abandon();
  check_commit();
  check_commit_failure();
  check_bad_names();
  zt_remove_tree(tmp_dir);
  return zt_finish("test_outputs", cases);
}
