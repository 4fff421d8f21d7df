/* tool_common.c - what the zipfft subcommands share: option parsing, status checks, the
 * clock, medians and deterministic random data. */
#include "tool_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The option named name in the table, or NULL. */
static const zipfft_tool_option *find_option(const zipfft_tool_option *specs, size_t count,
                                             const char *name) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(specs[i].name, name) == 0) return &specs[i];
  return NULL;
}

int zipfft_tool_parse_options(const char *tool, int argc, char **argv,
                              const zipfft_tool_option *specs, size_t count, void *options,
                              size_t size, void (*usage)(void)) {
  memset(options, 0, size);
  for (int i = 1; i < argc; i++) {
    const zipfft_tool_option *spec = find_option(specs, count, argv[i]);
    const char *value = NULL;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage();
      return ZIPFFT_TOOL_HELP;
    }
    if (!spec) {
      printf("%s: unknown option %s\n", tool, argv[i]);
      usage();
      return ZIPFFT_TOOL_FAILED;
    }
    if (spec->takes_value && i + 1 >= argc) {
      printf("%s: %s needs a value\n", tool, spec->name);
      return ZIPFFT_TOOL_FAILED;
    }
    if (spec->takes_value) value = argv[++i];
    if (!spec->apply(options, value)) {
      printf("%s: bad value for %s: '%s'\n", tool, spec->name, value);
      usage();
      return ZIPFFT_TOOL_FAILED;
    }
  }
  return ZIPFFT_TOOL_OK;
}

int zipfft_tool_parse_device(const char *value, int *device) {
  char *end = NULL;
  long ordinal = strtol(value, &end, 10);
  if (*value == '\0' || *end != '\0' || ordinal < 0 || ordinal > 1024) return 0;
  *device = (int)ordinal;
  return 1;
}

int zipfft_tool_apply_device(void *options, const char *value) {
  zipfft_tool_bench_options *opt = options;
  return zipfft_tool_parse_device(value, &opt->device);
}

int zipfft_tool_apply_quick(void *options, const char *value) {
  zipfft_tool_bench_options *opt = options;
  (void)value;
  opt->quick = 1;
  return 1;
}

int zipfft_tool_apply_md(void *options, const char *value) {
  zipfft_tool_bench_options *opt = options;
  opt->md_path = value;
  return 1;
}

int zipfft_tool_zipfft_ok(const char *tool, zipfft_status status, const char *what) {
  if (status == ZIPFFT_SUCCESS) return 1;
  printf("%s: %s failed: %s: %s\n", tool, what, zipfft_status_name(status), zipfft_last_error());
  return 0;
}

double zipfft_tool_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Comparison function for qsort over doubles, ascending. */
static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double zipfft_tool_median(double *samples, int count) {
  qsort(samples, (size_t)count, sizeof *samples, compare_doubles);
  if (count % 2) return samples[count / 2];
  return 0.5 * (samples[count / 2 - 1] + samples[count / 2]);
}

uint64_t zipfft_tool_next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state;
}
