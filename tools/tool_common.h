/* tool_common.h - what the zipfft subcommands share: option parsing, status checks, the
 * clock, medians and deterministic random data. */
#ifndef ZIPFFT_TOOL_TOOL_COMMON_H
#define ZIPFFT_TOOL_TOOL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "zipfft.h"

/* Elements of an array. */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Results of zipfft_tool_parse_options and zipfft_tool_device_open, and the subcommands'
 * exit codes (HELP aside: the usage was printed, the subcommand exits with OK). */
enum {
  ZIPFFT_TOOL_HELP = -1,
  ZIPFFT_TOOL_OK = 0,
  ZIPFFT_TOOL_FAILED = 1,
  ZIPFFT_TOOL_NO_DEVICE = 2
};

/* One command-line option: its name, whether a value follows, and how it is applied to
 * the tool's options (1 when the value is valid). */
typedef struct zipfft_tool_option {
  const char *name;
  int takes_value;
  int (*apply)(void *options, const char *value);
} zipfft_tool_option;

/* Parses argv[1..] into options (cleared first, `size` bytes) by the table of count specs.
 * Returns ZIPFFT_TOOL_OK, ZIPFFT_TOOL_HELP after printing the usage (--help, -h), or
 * ZIPFFT_TOOL_FAILED after printing "tool: problem" (unknown option, missing or bad
 * value). */
int zipfft_tool_parse_options(const char *tool, int argc, char **argv,
                              const zipfft_tool_option *specs, size_t count, void *options,
                              size_t size, void (*usage)(void));
/* Parses a CUDA device ordinal (0..1024) into *device; 1 when valid. */
int zipfft_tool_parse_device(const char *value, int *device);
/* The options every benchmark subcommand takes; a subcommand's options struct begins with
 * it, so that the apply functions below serve its option table. */
typedef struct zipfft_tool_bench_options {
  int device;          /* --device D: the CUDA device ordinal */
  int quick;           /* --quick: the subcommand's short run (its usage says what) */
  const char *md_path; /* --md FILE: also write the results as Markdown; NULL: no file */
} zipfft_tool_bench_options;
/* Option callbacks (see zipfft_tool_option) for --device (1 when value is a valid
 * ordinal), --quick and --md, on options that begin with zipfft_tool_bench_options. */
int zipfft_tool_apply_device(void *options, const char *value);
int zipfft_tool_apply_quick(void *options, const char *value);
int zipfft_tool_apply_md(void *options, const char *value);
/* Returns 1 when status is ZIPFFT_SUCCESS; otherwise prints "tool: what failed: status:
 * detail" and returns 0. */
int zipfft_tool_zipfft_ok(const char *tool, zipfft_status status, const char *what);
/* Seconds on a monotonic clock. */
double zipfft_tool_seconds(void);
/* Median of count (>= 1) samples; sorts them in place. */
double zipfft_tool_median(double *samples, int count);
/* Next value of a 64-bit linear congruential generator (Knuth's MMIX constants). */
uint64_t zipfft_tool_next_random(uint64_t *state);

#endif
