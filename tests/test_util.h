/* test_util.h - assertions, deterministic data, poisoned and guarded buffers for the tests. */
#ifndef ZIPFFT_TEST_UTIL_H
#define ZIPFFT_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zipfft.h"

extern int zt_failures; /* failed checks so far in this test program */

/* 1 where AddressSanitizer instruments this build (GCC's macro; clang's feature test). */
#if defined(__SANITIZE_ADDRESS__)
#define ZT_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZT_ADDRESS_SANITIZER 1
#endif
#endif

/* Checks a condition; on failure prints file:line and the message and counts a failure. */
#define ZT_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      zt_failures++;                                                           \
    }                                                                          \
  } while (0)

/* Checks that a zipfft call returned the expected status; prints both names and the
 * detail otherwise. */
#define ZT_CHECK_STATUS(call, expected)                                                       \
  do {                                                                                        \
    zipfft_status zt_s_ = (call);                                                             \
    if (zt_s_ != (expected)) {                                                                \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, #call, \
              zipfft_status_name(zt_s_), zipfft_status_name(expected), zipfft_last_error());  \
      zt_failures++;                                                                          \
    }                                                                                         \
  } while (0)

#define ZT_OK(call) ZT_CHECK_STATUS(call, ZIPFFT_SUCCESS)

/* The larger of a running worst error and a new error e, NaN once either is NaN (fmax
 * drops a NaN argument, so a NaN output would pass every gate). */
double zt_worse(double worst, double e);

/* Prints "N passed, M failed" style summary and returns the exit code for main. */
int zt_finish(const char *test_name, int cases);
/* zt_finish for a run that must have run cases: none (a part, or a tier, that selects no
 * case tests nothing) is a failed check. */
int zt_finish_cases(const char *test_name, int cases);

/* 1 when every prime factor of n (>= 1) is at most 31: lengths the Stockham radices do
 * directly; the others go through Bluestein's method (accuracy gate 30 instead of 10). */
int zt_is_31_smooth(int64_t n);

/* 1 when an out-of-place transform may use its input as scratch (include/zipfft.h
 * zipfft_type): C2R of rank 2 and 3, unless its input is stored in 16 bits and its output in
 * another type. Every other transform must leave its input as it was. */
int zt_input_may_be_scratch(zipfft_type type, int rank, zipfft_storage in, zipfft_storage out);

/* 1 when ZIPFFT_TEST_TIER=full. */
int zt_full_tier(void);

/* Deterministic uniform value in [-0.5, 0.5) for (seed, logical index): the same problem gets
 * the same data whatever its memory layout. */
double zt_uniform(uint64_t seed, uint64_t index);

/* A buffer with guard bands of poisoned bytes before and after the user region. */
typedef struct zt_buffer {
  unsigned char *base; /* allocation */
  unsigned char *data; /* user region, offset by `misalign` bytes from an aligned address */
  size_t bytes;        /* user region size */
  size_t guard;        /* guard band size on each side */
} zt_buffer;

/* Allocates `bytes` with guard bands; the data pointer is 64-byte aligned plus misalign. */
zt_buffer zt_buffer_alloc(size_t bytes, size_t misalign);
/* Fills the user region with NaN of the given real size (4 or 8) and the guards with a
 * byte pattern. */
void zt_buffer_poison(zt_buffer *b, size_t real_size);
/* 1 when both guard bands still hold the pattern. */
int zt_buffer_guards_intact(const zt_buffer *b);
/* Bytes of the buffer's region with its guards (bytes + 2 * guard). Under AddressSanitizer
 * the guards are poisoned: read the span only through the two helpers below. */
size_t zt_buffer_span(const zt_buffer *b);
/* Copies the span (guards included) to `to`. */
void zt_buffer_copy_span(const zt_buffer *b, unsigned char *to);
/* 1 when the span (guards included) equals a copy taken by zt_buffer_copy_span. */
int zt_buffer_span_equals(const zt_buffer *b, const unsigned char *snapshot);
void zt_buffer_free(zt_buffer *b);

/* Bytes of one real of the precision (4 or 8). */
size_t zt_real_size(zipfft_precision p);
/* Real number `index` (in reals, any alignment) of a buffer's data, read as the precision. */
double zt_get_real(const zt_buffer *b, zipfft_precision p, int64_t index);
/* Writes v rounded to the precision as real number `index` of a buffer's data. */
void zt_set_real(zt_buffer *b, zipfft_precision p, int64_t index, double v);

/* Independent decoders of the two 16-bit storage formats (IEEE binary16, bfloat16): the
 * value a pattern holds (NaN patterns as NaN). */
double zt_decode_f16(unsigned h);
double zt_decode_bf16(unsigned h);
/* Writes v rounded to nearest in the 16-bit format s (F16 or BF16) as value i of data
 * (2 bytes each); returns the rounded value. */
double zt_put16(unsigned char *data, int64_t i, zipfft_storage s, double v);
/* Value i of data in the 16-bit format s. */
double zt_get16(const unsigned char *data, int64_t i, zipfft_storage s);

/* A batch of row-major arrays as stored: rank axes of shape[] elements, strides[] apart,
 * dist between arrays, size elements spanned in all; real says whether the elements are
 * reals or complex pairs. */
typedef struct zt_layout {
  int64_t shape[3], strides[3], dist, size;
  int real;
} zt_layout;

/* The layout of batch arrays of the given shape: contiguous, or when padded with a gap after
 * every element (stride 2), one more element after every row and pad_dist more between
 * arrays (gaps a transform must neither read nor write). */
zt_layout zt_layout_make(int rank, const int64_t *shape, int64_t batch, int padded,
                         int64_t pad_dist, int real);
/* Element offset of row-major index i (over the batch and the shape) in the layout. */
int64_t zt_layout_offset(const zt_layout *l, int rank, int64_t i);

/* This run's part of a test's cases from ZIPFFT_TEST_PART=K/N (cases K, K + N, ...): 1 and
 * *index = K, *count = N when set; 0 when unset; -1 after a counted failure when it is not
 * K/N with 0 <= K < N. */
int zt_test_part(long *index, long *count);

/* A test run in parts takes the cases K, K + N, K + 2N, ... (ZIPFFT_TEST_PART=K/N) of those
 * it passes through zt_case_in_part, which every part must meet in the same order; its
 * checks that are not such cases run in part 0 only (zt_in_first_part). zt_part_read reads
 * the variable as zt_test_part does (1 set, 0 unset: every case, part 0; -1 after a counted
 * failure); zt_case_in_part counts the next case and says whether it is this run's. */
int zt_part_read(void);
int zt_case_in_part(void);
int zt_in_first_part(void);
/* A program's full-tier sweep, run before its quick cases: reads ZIPFFT_TEST_PART
 * (zt_part_read) and in the full tier calls sweep, whose count of cases run goes to
 * *swept (0 otherwise). Returns 1 when the program should finish at once: a bad
 * ZIPFFT_TEST_PART (a counted failure), or a part of the full tier, which runs its sweep
 * cases alone. */
int zt_sweep_first(int (*sweep)(void), int *swept);

/* Bytes of the host's physical memory (0 when unknown). */
size_t zt_host_memory(void);

/* Removes a directory tree this test created (files and subdirectories). */
void zt_remove_tree(const char *path);

/* A copy of environment variable name's value (NULL when unset), for zt_env_restore. */
char *zt_env_save(const char *name);
/* Sets name back to what zt_env_save returned (unset when NULL), and frees that. */
void zt_env_restore(const char *name, char *saved);

/* In sanitizer builds (CMake sets ZIPFFT_TEST_SANITIZER_CC), the CPU kernels compiled from
 * here to zt_sanitized_kernels_end are instrumented (ZIPFFT_CC), so that an access past a
 * caller's array is reported; elsewhere both do nothing. */
void zt_sanitized_kernels_begin(void);
void zt_sanitized_kernels_end(void);

#endif
