/* staging.c - which sized short kernels stage their rows through shared memory by element
 * (stage_io), and which R2C kernels split their half spectrum by output element
 * (split_by_element): the rules and their measurements. */
#include <stdlib.h>

#include "gen/butterfly.h"
#include "plan/staging.h"
#include "plan/tuning.h"

enum {
  stage_io_run_bytes = 32,     /* neighbouring elements a transform's threads access at a time */
  stage_io_short = 16,         /* lengths staged whatever their runs */
  stage_io_threads = 4,        /* threads a transform staged whatever their runs */
  stage_io_real_radix = 16,    /* the largest radix of a real kernel staged for its threads */
  stage_io_least_odd = 7,      /* the shortest full-length (odd) real kernel staged */
  staged_c2c_longest = 256,    /* the longest C2C kernel staged for its length */
  staged_c2c_run_bytes = 128,  /* the longest runs of such a kernel staged */
  staged_c2c_radix = 17,       /* larger radices (19 to 31) staged as measured: */
  staged_c2c_wide_threads = 8, /* at most this many threads a transform, */
  staged_c2c_19_threads = 16,  /* radix 19: at most this many, */
  staged_c2c_23_threads = 10,  /* radix 23: at most this many, */
  staged_c2c_wide_radix = 23,  /* and above this radix at runs under the longest */
  staged_split_butterfly_bytes = 184, /* the most bytes of one butterfly's values (fp32
                                          radix 23) of an R2C kernel staged where it would
                                          split by element unstaged */
  staged_radix_cap = 4,               /* the largest radix of 16-point staged kernels */
  staged_block_bytes = 8192           /* the least data of a block of staged kernels */
};

/* Bytes of neighbouring elements a transform's threads access at a time (one complex
 * element each). */
static int64_t run_bytes(const zipfft__kernel_spec *s) {
  return s->threads_per_fft * (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT);
}

int zipfft__short_runs(const zipfft__kernel_spec *s) { return run_bytes(s) < stage_io_run_bytes; }

/* ZIPFFT_STAGE_IO (tuning): 0 never, 1 the rule (zipfft__stage_io_wanted), 2 wherever the
 * generator can. */
static int stage_io_mode(void) { return zipfft__tuning_int("ZIPFFT_STAGE_IO", 1); }

/* Whether the generator could stage s's inputs and outputs (its mirroring and merge on
 * load, which staging replaces, left aside). */
static int stage_io_possible(const zipfft__kernel_spec *s) {
  zipfft__kernel_spec trial = *s;
  trial.mirrored = trial.merge_on_load = 0;
  return stage_io_mode() != 0 && zipfft__can_stage_io(&trial);
}

/* The largest radix of s's passes. */
static int largest_radix(const zipfft__kernel_spec *s) {
  int largest = 0;
  for (int p = 0; p < s->pass_count; p++)
    largest = s->radices[p] > largest ? s->radices[p] : largest;
  return largest;
}

/* Whether an R2C_HALF kernel's butterflies hold more than staged_split_butterfly_bytes of
 * values (fp32 radices 29 and 31, fp64 radices 17 to 31) in a half row of at most
 * large_butterfly_row_bytes (fp32 half lengths up to 128, fp64 up to 64). Such kernels
 * split by element unstaged: the staged copies' registers and shared memory cost more warps
 * than their coalesced loads gain. H100, session 77, % of copy, the plan before (staged, or
 * for fp32 from 232 and fp64 116 and 124 unstaged through a shared-memory split) -> unstaged
 * split by element, one run of two (docs/perf/2026-12-06-h100-prime-half-splits.md): fp32
 * R2C 58 72.7 -> 95.5, 62 71.2 -> 94.9, 116 81.5 -> 89.4, 124 62.6 -> 85.4, 174 66.5-68.7 -> 73.3,
 * 186 57.1 -> 70.3, 232 69.3 -> 91.3, 248 67.9 -> 88.9; fp64 R2C 38 81.2 -> 97.5, 46 74.7 ->
 * 97.4, 58 64.2 -> 93.4, 62 65.8 -> 94.5, 116 73.7 -> 90.8, 124 73.1 -> 89.9, 34 97.9 ->
 * 97.4. fp32 R2C 34 to 46 (radices 17 to 23) run better staged (96.0 against 91.3, 97.2
 * against 90.5, 92.4 against 76.9), and fp64 of longer half rows lose (R2C 174 89.0 -> 77.5,
 * 186 84.9 -> 76.9, 232 94.3 -> 89.3). Planned on every device (registers and warps are
 * alike on the H200), not yet measured on an H200. */
static int large_butterfly_split(const zipfft__kernel_spec *s) {
  enum { large_butterfly_row_bytes = 1024 };
  int64_t complex_bytes = zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT);
  return s->kind == ZIPFFT__KIND_R2C_HALF &&
         largest_radix(s) * complex_bytes > staged_split_butterfly_bytes &&
         s->n * complex_bytes <= large_butterfly_row_bytes;
}

/* Whether an R2C_HALF kernel that is not staged splits its results by output element: an fp32
 * kernel of half length at most split_by_element_longest, a large_butterfly_split kernel,
 * or with ZIPFFT_SPLIT_BY_ELEMENT=1 (tuning) wherever the generator can (0: only where
 * staged; measured at zipfft__choose_split_by_element). */
static int splits_by_element_unstaged(const zipfft__kernel_spec *s) {
  enum { split_by_element_longest = 32 };
  int mode = zipfft__tuning_int("ZIPFFT_SPLIT_BY_ELEMENT", -1);
  int short_fp32 = s->precision == ZIPFFT_F32 && s->n <= split_by_element_longest;
  return (mode == 1 || (mode != 0 && (short_fp32 || large_butterfly_split(s)))) &&
         zipfft__can_split_by_element(s);
}

/* Whether a C2C kernel is staged for being short: at most staged_c2c_longest points, its
 * transform's threads accessing at most staged_c2c_run_bytes of neighbouring elements at a
 * time (fp32 up to 16 threads a transform, fp64 up to 8); with a radix above
 * staged_c2c_radix, at most staged_c2c_wide_threads threads a transform (radix 19 and 23:
 * more, below), and with one above staged_c2c_wide_radix runs shorter than the longest
 * (fp64 up to 7 threads). Unstaged, a warp's accesses spread over a few rows of 40 to 128
 * bytes each. H100, session 80, % of copy, the run rule (five threads a transform or more
 * unstaged) -> staged (ZIPFFT_STAGE_IO=2;
 * docs/perf/2026-12-06-h100-short-c2c-staged.md): fp32 C2C 40 80.9 -> 100.5, 55 68.8 ->
 * 100.1, 65 69.4 -> 100.3, 75 68.3 -> 100.4 (0.68x -> 1.01x cuFFT), 102 69.0 -> 100.5, 119
 * 66.4 -> 100.2, 160 85.4 -> 100.4, 256 98.5 -> 99.7; every fp32 length measured from 20 to
 * 256 points gained or held (staged 99.2-100.7); fp64 C2C 35 85.8 -> 99.9, 45 84.2 -> 100.0,
 * 55 75.7 -> 99.4, 105 86.8 -> 99.7, 128 98.0 -> 100.2, 30, 36 and 42 -0.1 to -0.7. fp64
 * kernels of nine threads or more moved -0.6 to +1.3 points (117 +2.8) but 126 (14x9, 140
 * registers staged) lost 18.3, so they keep the run rule. Radices 19 to 31 (session 81, H100,
 * run rule -> staged, docs/perf/2026-12-06-h100-pair-narrow-by-item.md): fp32 of five to
 * eight threads 57.9-76.7 -> 91.8-100.3 (95 19x5 0.60x -> 1.00x, 138 23x6 0.63x -> 1.01x,
 * 248 31x8 0.74x -> 1.00x), fp64 of five to seven threads 83.4-92.4 -> 94.8-100.1, fp64 of
 * eight 152 (19x8) 89.6 -> 100.2 and 184 (23x8) 93.9 -> 99.9 but 232 (29x8) 91.6 -> 90.7
 * and 248 (31x8) 94.4 -> 89.4. fp32 of nine threads or more (session 83, H100, one run,
 * docs/perf/2026-12-07-h100-packed-workspace.md): 171 (19x9) 79.1 -> 98.9 (0.86x -> 1.08x),
 * 190 (19x10) 81.5 -> 100.1, 207 (23x9) 75.8 -> 92.1, 209 (19x11) 82.8 -> 95.4, 228 (19x12)
 * 85.6 -> 100.6, 230 (23x10) 75.0 -> 90.0, 247 (19x13) 83.5 -> 95.2 (1.15x -> 1.32x), but
 * 253 (23x11) 79.7 -> 71.7 (1.18x -> 1.06x). ZIPFFT_STAGE_SHORT_C2C=0 (tuning) leaves these
 * kernels to the run rule. */
static int short_c2c(const zipfft__kernel_spec *s) {
  int64_t run = run_bytes(s);
  int radix = largest_radix(s);
  int most_threads = radix <= 19   ? staged_c2c_19_threads
                     : radix <= 23 ? staged_c2c_23_threads
                                   : staged_c2c_wide_threads;
  int wide_radix_staged = s->threads_per_fft <= most_threads &&
                          (radix <= staged_c2c_wide_radix || run < staged_c2c_run_bytes);
  return zipfft__tuning_int("ZIPFFT_STAGE_SHORT_C2C", 1) != 0 && s->kind == ZIPFFT__KIND_C2C &&
         s->n <= staged_c2c_longest && run <= staged_c2c_run_bytes &&
         (radix <= staged_c2c_radix || wide_radix_staged);
}

/* Whether a sized kernel stages its inputs and outputs: where the generator can, for lengths
 * of at most stage_io_short or where a transform's threads would access fewer than
 * stage_io_run_bytes of neighbouring elements at a time (a warp's accesses then spread over
 * up to 32 rows), except fp32 real kernels of half length 2, whose 16-byte rows a warp
 * already reads whole. Measured on an H200 (session 45,
 * docs/perf/2026-12-01-h200-short-transforms.md; % of copy bandwidth, cuFFT ratio, unstaged
 * -> staged): fp32 C2C 4 63.0 -> 89.3 (0.79x -> 1.13x), 8 33.7 -> 83.2 (0.38x -> 0.94x), 16
 * 23.1 -> 58.2; R2C 8 0.62x -> 0.85x, 16 0.47x -> 0.76x, 32 0.42x -> 0.60x; C2R 8 0.57x ->
 * 1.04x, 16 0.28x -> 0.84x, 32 0.21x -> 0.57x; fp64 C2C 4 0.66x -> 0.97x, 8 0.55x -> 1.06x,
 * C2R 4 0.72x -> 0.99x; but fp32 R2C 4 1.42x -> 1.29x and C2R 4 1.96x -> 1.56x, and kernels
 * of longer runs lose (C2C 32, 4 threads of 8 bytes: 1.20x -> 0.86x; R2C 128 0.99x ->
 * 0.59x).
 * Since the staged copies of back-to-back rows cost a comparison and a constant offset an
 * element (session 65), kernels of at most stage_io_threads threads a transform are staged
 * too, but real kernels with a radix above 16. H200, % of copy, run rule -> staged
 * (docs/perf/2026-12-04-h200-staged-copies.md): fp32 C2C 32 90.8 -> 99.6 (1.32x), 124 56.6
 * -> 95.9, 52 89.6 -> 99.0, fp64 C2C 22 70.8 -> 98.7, 62 64.6 -> 87.4, 18 82.8 -> 96.1,
 * fp32 R2C 88 61.2 -> 91.5, 136 62.7 -> 83.6, C2R 104 61.3 -> 89.9, 56 73.3 -> 93.2, fp64
 * R2C 64 80.5 -> 94.1, C2R 102 73.8 -> 81.8; but R2C with radices of 17 or 31 lost (fp64
 * 102 71.0 -> 60.7, 124 63.8 -> 52.7, 248 80.8 -> 54.1, fp32 248 61.5 -> 56.2), and fp64
 * C2R 248 73.8 -> 62.5, so real kernels of such radices keep the run rule.
 * Odd real lengths (the full-length R2C and C2R kernels) are staged by the same rule since
 * session 66, from 7 points: H200, % of copy, unstaged -> staged
 * (docs/perf/2026-12-04-h200-staged-odd-real.md): fp32 C2R 19 15.6 -> 83.0 (0.16x ->
 * 0.85x), R2C 19 30.1 -> 86.4, C2R 13 18.9 -> 99.2, R2C 7 46.0 -> 98.9, fp64 C2R 17 23.0 ->
 * 98.3, R2C 11 52.0 -> 97.8, C2R 27 55.4 -> 76.5; but fp32 R2C 21 78.8 -> 75.1 and 27
 * 65.8 -> 63.4 (before whole warps at three threads, zipfft__staged_whole_warps). 3 and 5 points
 * were not measured staged (fp32 5 runs at 98-100% of copy unstaged), so they are not.
 * Since session 80 short C2C kernels of longer runs are staged too (short_c2c). */
int zipfft__stage_io_wanted(const zipfft__kernel_spec *s) {
  if (!stage_io_possible(s)) return 0;
  if (stage_io_mode() != 1) return 1;
  if (large_butterfly_split(s) && splits_by_element_unstaged(s)) return 0;
  int largest = largest_radix(s);
  int whole_rows = zipfft__kind_is_half(s->kind) && s->precision == ZIPFFT_F32 && s->n <= 2;
  int full_real = zipfft__kind_is_full_real(s->kind);
  if (full_real && s->n < stage_io_least_odd) return 0;
  int few_threads = s->threads_per_fft <= stage_io_threads &&
                    (s->kind == ZIPFFT__KIND_C2C || largest <= stage_io_real_radix);
  return (zipfft__short_runs(s) || few_threads || s->n <= stage_io_short || short_c2c(s)) &&
         !whole_rows;
}

/* The radix cap of a 16-point kernel that stages its inputs and outputs: 4 (4x4, four threads
 * a transform) instead of one thread of radix 16. Measured on an H200 (session 45, cuFFT
 * ratio, radix 16 -> 4x4, both staged, the second call with fp32 staged real kernels in
 * blocks of 256 threads too): fp32 C2C 16 0.74x -> 0.75x, fp64 0.76x -> 0.85x; fp32 R2C 32
 * 0.59x -> 1.21x, C2R 32 0.57x -> 1.10x; fp64 R2C 32 0.66x -> 1.10x, C2R 32 0.64x -> 0.92x.
 * At 8 points 4x2 lost (fp32 C2C 8 0.94x -> 0.85x, fp64 1.06x -> 0.98x). */
int zipfft__staged_short_radix_cap(const zipfft__kernel_spec *s) {
  return s->n == 16 && stage_io_possible(s) ? staged_radix_cap : ZIPFFT__MAX_RADIX;
}

/* The fewest threads of a block of s: `fewest`, but a kernel that stages its inputs
 * and outputs takes enough transforms for staged_block_bytes of data (its transforms' complex
 * values), except a C2C kernel of one thread per transform. Measured on an H200 (session 46,
 * % of copy bandwidth, the session-45 rule -> blocks of 8 KB;
 * docs/perf/2026-12-01-h200-2dtm-statistics-rows.md): fp32 C2C 16 (4 KB -> 256 threads)
 * 69.1 -> 81.9 (0.75x -> 0.89x cuFFT); fp64 C2C 16 80.2 -> 87.4 (128 threads), R2C 32 68.9
 * -> 80.3, C2R 32 58.6 -> 70.8, C2R 8 69.1 -> 77.7, R2C 8 78.8 -> 81.7; fp32 R2C 16 62.7 ->
 * 66.4 and C2R 16 68.9 -> 71.6 (128 threads instead of 256); fp32 real 8 and 32 kept their
 * 256 threads (8 KB), which session 45 measured against 64 (R2C 8 0.85x -> 0.95x, C2R 16
 * 0.84x -> 1.00x). One thread's C2C lost: fp32 C2C 8 87.6 at 64 threads, 79.5 at 128.
 * Half lengths below 4 (fp64 R2C and C2R 4) keep 64 threads: not measured. */
int64_t zipfft__staged_block_threads(const zipfft__kernel_spec *s, int64_t fewest) {
  int one_thread_c2c = s->kind == ZIPFFT__KIND_C2C && s->threads_per_fft == 1;
  if (!zipfft__stage_io_wanted(s) || one_thread_c2c || s->n < 4) return fewest;
  int64_t transform_bytes =
      s->n * (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT);
  int64_t transforms = (staged_block_bytes + transform_bytes - 1) / transform_bytes;
  int64_t threads = transforms * s->threads_per_fft;
  return threads > fewest ? threads : fewest;
}

/* Whether staged kernels whose threads a transform are not a power of two (3 by the rule;
 * 5, 6, ... with ZIPFFT_STAGE_IO=2) take whole warps, as many as they come to, instead of a
 * power of two of warps whose last is partly idle: its copies by element then start each
 * warp on a line. ZIPFFT_STAGE_WHOLE_WARPS=0 (tuning) turns it off. H200, session 66, % of
 * copy, T = 3, power of two of warps -> whole warps
 * (docs/perf/2026-12-04-h200-staged-odd-real.md): fp32 C2C 18 90.5 -> 98.4, 39 88.4 -> 97.5,
 * 57 89.4 -> 97.2, 69 84.4 -> 94.5, R2C 51 73.3 -> 84.6, 27 63.2 -> 77.1, C2R 51 61.9 ->
 * 76.5, 69 58.4 -> 72.6, fp64 R2C 42 84.1 -> 89.2, C2R 39 75.1 -> 82.1; fp32 C2C 40 (T = 5,
 * staged by ZIPFFT_STAGE_IO=2) 88.4 -> 95.0. It lost 1 to 5 points at radices 11, 13, 23
 * and 31: fp32 C2C 33 82.7 -> 79.9, 93 83.2 -> 80.1, R2C 33 66.0 -> 60.6, 39 71.0 -> 67.6,
 * fp64 C2C 33 89.3 -> 86.2, 39 91.6 -> 87.8, 69 77.6 -> 76.3. */
int zipfft__staged_whole_warps(void) {
  const char *env = getenv("ZIPFFT_STAGE_WHOLE_WARPS");
  return !(env && *env && atoi(env) == 0);
}

/* Splits an R2C_HALF kernel's results by output element (spec field split_by_element) where
 * it stages its inputs (stage_io), or unstaged where splits_by_element_unstaged says so.
 * Measured on an H200 (fp32 R2C, % of copy bandwidth, shared-memory split -> by element): 64
 * 62.7 -> 71.8 (session 45), 62.6 -> 71.6 (0.87x -> 1.00x cuFFT, session 52); but 128 83.5
 * -> 73.3, 1024 86.0 -> 74.9 (85.9 -> 74.7 in session 52), 4096 93.6 -> 80.6; the kernels of
 * large butterflies at large_butterfly_split. */
void zipfft__choose_split_by_element(zipfft__kernel_spec *s) {
  s->split_by_element =
      (s->stage_io && zipfft__can_split_by_element(s)) || splits_by_element_unstaged(s);
}

/* Whether a staged full-length R2C or C2R kernel (odd length) keeps its real rows packed n
 * reals apart (spec field stage_packed_reals: the real copies then have no index arithmetic,
 * and a thread a transform reads its row at an odd stride, where the shared rows' even
 * stride of reals leaves 2-way bank conflicts), by ZIPFFT_STAGE_PACKED_REALS (tuning: 0
 * never, 1 the rule, 2 every such kernel): by rule at one thread a transform. H200, session
 * 67, % of copy, shared rows -> packed (docs/perf/2026-12-04-h200-packed-reals-rader.md):
 * one thread a transform, fp32 C2R 19 83.3 -> 95.7, 23 78.7 -> 94.5, 31 72.1 -> 90.6, R2C 23
 * 78.3 -> 87.7, 31 71.6 -> 80.6; fp64 R2C 19 90.4 -> 98.3, C2R 31 77.0 -> 92.5; but fp64
 * C2R 9, 11 and 13 lost 3-4 points (98 -> 94-96). At three threads a transform it was mixed:
 * fp32 R2C 33 60.6 -> 71.4, 39 67.6 -> 82.2, but 69 78.7 -> 70.9, 93 71.7 -> 63.3, fp64 R2C
 * 27 89.1 -> 81.0, 33 73.9 -> 68.9. */
static int stage_packed_reals_wanted(const zipfft__kernel_spec *s) {
  int mode = zipfft__tuning_int("ZIPFFT_STAGE_PACKED_REALS", 1);
  int full_real = zipfft__kind_is_full_real(s->kind);
  return full_real && mode != 0 && (mode != 1 || s->threads_per_fft == 1);
}

/* Stages a short kernel's inputs and outputs through shared memory by element (spec field
 * stage_io; an R2C kernel then splits by element, a C2R kernel merges in a phase). */
void zipfft__choose_stage_io(zipfft__kernel_spec *s) {
  s->stage_io = zipfft__stage_io_wanted(s);
  if (s->stage_io) s->mirrored = s->merge_on_load = 0;
  s->stage_packed_reals = s->stage_io && stage_packed_reals_wanted(s);
}
