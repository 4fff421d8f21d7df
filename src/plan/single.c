/* single.c - sizes a single-kernel batched 1D transform: radices, threads per transform,
 * transforms per block (the Stockham passes run in registers, exchanged through shared
 * memory). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "gen/butterfly.h"
#include "plan/single.h"
#include "plan/staging.h"
#include "plan/tuning.h"

/* Radices a pass may use, largest first. 27 is left out: its butterflies need many
 * registers and measured slower than 9x3 passes (2187 fp32: 57% vs 73% of copy). The
 * primes 17 to 31 are radices of their own (direct butterflies, butterfly.c), so that a
 * length with such a factor runs its passes instead of Bluestein's method. 64 is taken only
 * where radices are named (the search's caps stop at planned_radix_cap). */
static const int radices[] = {64, 32, 31, 30, 29, 28, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                              16, 15, 14, 13, 12, 11, 10, 9,  8,  7,  6,  5,  4,  3,  2};

/* Statistics kernels keep four registers per output real a thread holds: radix 8 keeps a
 * 4096-point C2R row at 16 reals per thread (64 registers). */
enum {
  /* the planner's largest radix (the generator's, ZIPFFT__MAX_RADIX, is larger: named
   * radices may take it) */
  planned_radix_cap = 32,
  largest_prime_radix = 31, /* the largest prime with a butterfly of its own */
  small_radix_cap = 16,
  large_radix_min_length = 2048,
  bluestein_radix_cap = 12,
  bluestein_pow2_radix_cap = 16,
  /* Over this much shared memory a Bluestein block has an H100's or H200's
   * multiprocessor (227 KiB) to itself. */
  bluestein_alone_bytes = 112 * 1024,
  statistics_radix_cap = 8,
  /* Statistics kernels with signal_pairs (full-length transforms of two signals): a
   * 4096-point row at radix 16 with 2 blocks per multiprocessor (128 registers) measured
   * 9930 corr/s on the 2DTM bench against 9320 at radix 8 (H200); 20 lets the K3 image's
   * 5760-point rows run as 20x18x16 (360 threads) instead of 10x9x8x8 (720): 5628 ->
   * 5803 corr/s (H100), while 4096 stays 16x16x16 */
  pair_statistics_radix_cap = 20
};

/* Largest radix for a kernel. A thread holds about that many complex values; radices
 * above 16 cost registers (occupancy) and pay only when they save a whole pass of a long
 * transform (measured on an H200: 8192 fp32 0.90 -> 0.97x cuFFT's speed, fp64 0.84 ->
 * 1.0x, 3125 fp32 0.80 -> 1.29x; 512 fp32 slower, 0.99 -> 0.96x). The search prefers fewer
 * passes, so a large radix is chosen only where it removes one. Two exceptions, measured:
 * - kernels whose threads go across transforms (columns, transposed stores) from 1024 up:
 *   the four-step 2^20 = 1024 x 1024 went 0.95 -> 1.00x cuFFT with radix 32;
 * - Bluestein kernels take at most 12 (10007 padded to 20160: radix 32 1.08x, 12 1.51x
 *   cuFFT; 4099 padded to 8232: 2.06 -> 2.14x), except at padded lengths 2^a, 3 * 2^a and
 *   5 * 2^a, where 16 makes the passes few and even (see bluestein_kernel_length).
 *   Rader kernels, whose length p - 1 is not chosen, keep the ordinary rule: H100, % of
 *   copy bandwidth with Bluestein's cap -> the ordinary one, fp32 257 = 16x16 56.6 ->
 *   84.8, 7681 = 24x20x16 33.2 -> 35.2, 12289 = 32x32x12 30.2 -> 40.5 (43.3 as 16x16x16x3
 *   with a cap of 16), fp64 257 73.3 -> 85.5, 7681 35.5 -> 36.6.
 * - the half-length FFT of R2C and C2R when it is a power of two takes at most 16 (half_cap;
 *   an R2C kernel mirrored with the ordinary cap keeps it: size_unstaged_large_radix): its
 *   split or merge phase adds a round through shared memory, which radix 32's 25%
 *   occupancy does not hide (H100, % of copy bandwidth, cap 32 -> 16: fp32 R2C 16384 75.4
 *   -> 84.7, C2R 16384 58.6 -> 79.5, R2C 32768 52.2 -> 74.1, C2R 32768 50.9 -> 53.5, fp64
 *   R2C 16384 52.0 -> 69.5-77.2). At mixed lengths 16 lost (fp32 R2C 24000 70.2 -> 58.1,
 *   C2R 40000 48.3 -> 42.9), so they keep the ordinary rule.
 * ZIPFFT_MAX_RADIX overrides the cap, for tuning. */
/* The statistics kernels' cap, or ZIPFFT_STATS_RADIX (tuning). */
static int statistics_radix(const zipfft__kernel_spec *s) {
  const char *env = getenv("ZIPFFT_STATS_RADIX");
  return env && *env       ? atoi(env)
         : s->signal_pairs ? pair_statistics_radix_cap
                           : statistics_radix_cap;
}

/* 1 when n is 2^a, 3 * 2^a or 5 * 2^a with 2^a >= 16: it factors into radix-16 passes
 * and one of 3 or 5. */
static int radix16_length(int64_t n) {
  int64_t odd = n;
  while (odd % 2 == 0) odd /= 2;
  return (odd == 1 || odd == 3 || odd == 5) && n / odd >= 16;
}

/* 1 when a Bluestein kernel of padded length m has a multiprocessor to itself. */
static int bluestein_alone(zipfft_precision precision, int64_t m) {
  return (uint64_t)m * zipfft__complex_bytes(precision, ZIPFFT_STORAGE_DEFAULT) >
         bluestein_alone_bytes;
}

/* Radix cap of a Bluestein kernel (see max_radix). */
static int bluestein_radix(const zipfft__kernel_spec *s) {
  return radix16_length(s->n) && bluestein_alone(s->precision, s->n) ? bluestein_pow2_radix_cap
                                                                     : bluestein_radix_cap;
}

/* 1 for the half-length FFT of an R2C or C2R kernel of one block whose length is a power
 * of two (a cluster's blocks factor as a C2C cluster's do). */
static int half_length_power_of_two(const zipfft__kernel_spec *s) {
  int half = s->kind == ZIPFFT__KIND_R2C_HALF || s->kind == ZIPFFT__KIND_C2R_HALF;
  return half && s->cluster <= 1 && (s->n & (s->n - 1)) == 0;
}

/* Short fp32 R2C half-length kernels of a power-of-two length (64 to 256) take radices of
 * at most 8, and at most n / 16, so that at least 16 threads share a transform. Measured
 * on an H100 (session 44, % of copy bandwidth, docs/perf/2026-11-27-small-real-kernels.md):
 * R2C 128 (n = 64) 8x8 85.6 -> 4x4x4 97.5 (0.88x -> 1.00x cuFFT), 256 16x8 87.2 -> 8x8x2
 * 96.9, 512 16x16 95.5-96.1 -> 8x8x4 97.3. Not so in fp64 (R2C 256 97.7 -> 97.0, 512
 * 99.1 -> 97.6) nor for C2R (fp32 128 to 512 within 0.4 points at cap 8, 5 to 7 lower at
 * cap 4). Not for Rader's inner FFTs either (R2C 514, half length 257 through 256-point
 * FFTs, was planned 16x16 at 16 threads and 4 transforms a block: H200 71.4% of copy in
 * session 37, 51.8% as 8x8x4 in session 69, docs/perf/2026-12-05-h200-regression-scan.md). */
static int short_r2c_radix_cap(const zipfft__kernel_spec *s) {
  enum { shortest = 64, longest = 256, least_threads = 16, most = 8 };
  if (s->kind != ZIPFFT__KIND_R2C_HALF || s->precision != ZIPFFT_F32 || s->rader_n > 0 ||
      !half_length_power_of_two(s) || s->n < shortest || s->n > longest)
    return planned_radix_cap;
  int64_t cap = s->n / least_threads;
  return cap < most ? (int)cap : most;
}

/* Column and transposing kernels of 1024 points or more take the large cap, and so does a
 * cluster column kernel's part whatever its length: clusters of 8 on 512-point parts, as
 * 32x16 (256 threads, 103 registers, two blocks a multiprocessor), ran fp32 2^24 at 1.10x
 * cuFFT where 16x16x2 (512 threads) ran it at 1.09x (H100, session 74,
 * docs/perf/2026-12-06-h100-cluster-column-shapes.md). */
static int max_radix(const zipfft__kernel_spec *s, int half_cap) {
  const char *env = getenv("ZIPFFT_MAX_RADIX");
  int across = (s->fft_major || s->store_major) && (s->n >= 1024 || s->cluster > 1);
  int large =
      (s->n >= large_radix_min_length || across) && !(half_cap && half_length_power_of_two(s));
  int short_cap = short_r2c_radix_cap(s), staged_cap = zipfft__staged_short_radix_cap(s);
  if (staged_cap < short_cap) short_cap = staged_cap;
  int cap = s->statistics                 ? statistics_radix(s)
            : env && *env                 ? atoi(env)
            : s->bluestein_n > 0          ? bluestein_radix(s)
            : large                       ? planned_radix_cap
            : small_radix_cap < short_cap ? small_radix_cap
                                          : short_cap;
  return cap < 2 ? 2 : cap > ZIPFFT__MAX_RADIX ? ZIPFFT__MAX_RADIX : cap;
}

enum {
  max_threads_per_fft = 1024,
  max_block_threads = 1024,
  min_block_threads = 64,
  target_block_threads = 256,
  preferred_shared_bytes = 48 * 1024,
  major_shared_bytes = 72 * 1024
};

/* Whether f transforms of t threads fill a power-of-two number of warps; whole warps
 * only, when `whole`. */
static int power_of_two_warps(int64_t f, int64_t t, int whole) {
  int64_t warps = (f * t + 31) / 32;
  return (warps & (warps - 1)) == 0 && (!whole || f * t % 32 == 0);
}

/* Transforms per block: the fewest that give the block at least ZIPFFT_BLOCK_MIN_THREADS
 * threads (tuning; default min_block_threads), or up to twice that many where that makes
 * the block's warps a power of two (whole warps for a staged kernel of one thread a
 * transform); at most the batch, within the preferred shared memory (one transform
 * always). A block's barriers wait for all its transforms, so fewer per block keep them out
 * of each other's way, and 32 resident blocks of 64 threads still fill a multiprocessor's
 * 2048. Power-of-two warps divide the warps that registers leave: fp64 667 (29 threads,
 * 254 registers, 8 warps per multiprocessor) runs 8 transforms at 4 per block but 6 at 3
 * (H200 88.8 -> 77.3% of copy bandwidth). Against the former rule (about 256 threads, whole
 * warps preferred), % of copy bandwidth: H200 fp32 1000 (100 threads) 81.9 -> 94.9, 1984
 * 92.1 -> 96.0, 512 97.8 -> 99.3, C2R 4096 87.8 -> 92.1, R2C 4096 86.1 -> 88.8, but 128
 * 96.5 -> 95.2; H100 R2C 514 78.0 -> 84.9, fp64 257 85.7 -> 88.2, fp32 667 93.4 -> 95.8,
 * 1000 98.2 -> 99.2, the others within 0.4 (docs/perf).
 * A staged kernel copies its rows by element over the block's threads, so a last warp left
 * nearly empty also shifts every warp's copies off the lines; at one thread a transform
 * (the staged real kernels of 10 to 30 points) it takes whole warps. H200, session 64, %
 * of copy (docs/perf/2026-12-04-h200-short-kernel-banks.md): fp32 R2C 24 (97 -> 128
 * threads) 59.3 -> 73.6, C2R 24 64.6 -> 67.5, R2C 12 (225 -> 256) 73.4 -> 82.5, C2R 12
 * 76.2 -> 82.6, fp64 R2C 12 (97 -> 128) 84.8 -> 86.6, C2R 12 85.9 -> 86.4. So do staged
 * kernels of any power of two of threads a transform (whole warps power-of-two blocks then
 * reach); it changes fp32 C2C 22 and 26 and real 44 and 52 (98 -> 128 threads), measured
 * only together with session 65's stage pitch and copies: fp32 C2C 22 68.8 -> 99.1, 26
 * 64.9 -> 98.7 (docs/perf/2026-12-04-h200-staged-copies.md). Staged kernels of other
 * numbers of threads a transform take whole warps however many (zipfft__staged_whole_warps). */
static int choose_ffts_per_block(zipfft__kernel_spec *s, int64_t batch) {
  int64_t t = s->threads_per_fft,
          least = zipfft__tuning_int("ZIPFFT_BLOCK_MIN_THREADS",
                                     (int)zipfft__staged_block_threads(s, min_block_threads));
  int64_t fewest = (least + t - 1) / t, f = fewest;
  int staged = zipfft__stage_io_wanted(s), power_of_two = (t & (t - 1)) == 0;
  int whole = staged && power_of_two;
  if (staged && !power_of_two && zipfft__staged_whole_warps()) {
    while (f * t % 32 != 0) f++;
  } else {
    while (f < 2 * fewest && !power_of_two_warps(f, t, whole)) f++;
    if (!power_of_two_warps(f, t, whole)) f = fewest;
  }
  if (f > batch) f = batch;
  if (f > max_block_threads / t) f = max_block_threads / t;
  for (; f > 1; f--) {
    s->ffts_per_block = (int)f;
    if (zipfft__c2c_shared_bytes(s) <= preferred_shared_bytes) break;
  }
  return f < 1 ? 1 : (int)f;
}

typedef struct factorization {
  int cap; /* largest radix allowed */
  int count;
  int radices[ZIPFFT__MAX_PASSES];
} factorization;

/* Fewer passes first (each pass is a shared-memory round trip), then the smaller largest
 * radix (fewer registers per thread). */
static int better(const factorization *a, const factorization *b) {
  if (b->count == 0) return 1;
  if (a->count != b->count) return a->count < b->count;
  return a->radices[0] < b->radices[0];
}

/* Depth-first search over non-increasing radix sequences whose product is n. */
static void search(int64_t n, const int *list, int list_len, factorization *cur,
                   factorization *best) {
  if (n == 1) {
    if (better(cur, best)) *best = *cur;
    return;
  }
  if (cur->count == ZIPFFT__MAX_PASSES || (best->count && cur->count + 1 > best->count)) return;
  int limit = cur->count ? cur->radices[cur->count - 1] : cur->cap;
  for (int i = 0; i < list_len; i++) {
    if (list[i] > limit || n % list[i] != 0) continue;
    cur->radices[cur->count++] = list[i];
    search(n / list[i], list, list_len, cur, best);
    cur->count--;
  }
}

/* The largest prime factor of n >= 1 (1 for n = 1). */
static int64_t largest_prime_factor(int64_t n) {
  int64_t largest = 1;
  for (int64_t f = 2; f * f <= n; f++)
    while (n % f == 0) n /= f, largest = f;
  return n > 1 ? n : largest;
}

/* The largest prime radix: 31, or ZIPFFT_MAX_PRIME_RADIX (tuning; 13 sends the primes 17
 * to 31 to Bluestein's method, as before they were radices). */
static int max_prime_radix(void) {
  return zipfft__tuning_int("ZIPFFT_MAX_PRIME_RADIX", largest_prime_radix);
}

/* Factorises n into pass radices of at most cap, as factorize_capped does. */
static factorization factorize_to(const zipfft__kernel_spec *s, int cap) {
  int64_t n = s->n, prime = largest_prime_factor(n);
  factorization cur = {.cap = cap}, best = {0};
  if (n == 1) return (factorization){.count = 1, .radices = {1}};
  if (prime > max_prime_radix()) return best;
  if (prime > cur.cap && prime <= largest_prime_radix) cur.cap = (int)prime;
  search(n, radices, (int)(sizeof radices / sizeof *radices), &cur, &best);
  return best;
}

/* Factorises n into pass radices of at most max_radix(s, half_cap); count 0 when
 * impossible (a prime factor above 31). A prime factor above the kernel's cap is a radix
 * of its own all the same. */
static factorization factorize_capped(const zipfft__kernel_spec *s, int half_cap) {
  return factorize_to(s, max_radix(s, half_cap));
}

static factorization factorize(const zipfft__kernel_spec *s) { return factorize_capped(s, 1); }

/* 1 for an fp32 fused correlation kernel of 4096-point columns: it runs as 64x64 (two
 * passes each way, 2 barriers instead of 4; 64 threads of 199-254 registers per column, 4
 * columns to a block). Measured on an H200 (2DTM 4096x4096/512, batch 16, corr/s,
 * 16x16x16 -> 64x64): first (session 45) f16 intermediate 12,906-12,924 -> 13,634-13,644,
 * but f16 spectrum 12,196-12,206 -> 11,361-11,363 and fp32 11,819-11,825 -> 11,684-11,719,
 * and 2 columns to a block half the rate (docs/perf/2026-12-01-h200-fused-radix-64.md);
 * since the spectrum is read in pairs of rows (spectrum_in_read_order in plan/corr.c),
 * every storage gains or holds: f16 both 14,600-14,611 -> 15,500-15,522, f16 spectrum
 * 13,067-13,070 -> 13,206-13,211, fp32 12,977-13,003 -> 12,998-13,007 (and no spill, where
 * 16x16x16 spilled 4 bytes; docs/perf/2026-12-02-h200-spectrum-read-order.md). */
static int fused_radix_64(const zipfft__kernel_spec *s) {
  return s->fused != ZIPFFT__FUSED_NONE && s->n == 4096 && s->fft_major &&
         s->precision == ZIPFFT_F32;
}

/* The pass radices a kernel is to take, as text: ZIPFFT_FUSED_RADICES (tuning) for fused
 * correlation kernels, else for those fused_radix_64 picks 64x64; ZIPFFT_RADICES (tuning)
 * for the others; NULL for none. */
static const char *radices_text(const zipfft__kernel_spec *s) {
  if (s->fused == ZIPFFT__FUSED_NONE) {
    const char *env = getenv("ZIPFFT_RADICES");
    return env && *env ? env : NULL;
  }
  const char *env = getenv("ZIPFFT_FUSED_RADICES");
  return env && *env ? env : fused_radix_64(s) ? "64x64" : NULL;
}

/* The pass radices radices_text names (first to last, such as 8x16x16x4, each a butterfly
 * the generator has, 2 to ZIPFFT__MAX_RADIX: the primes 37 to 61 too, which the planner
 * does not choose; nothing else in the text) for a kernel whose length they multiply to;
 * count 0 otherwise. */
static factorization named_radices(const zipfft__kernel_spec *s) {
  const char *at = radices_text(s);
  factorization f = {.cap = ZIPFFT__MAX_RADIX}, none = {0};
  int64_t product = 1;
  while (at && *at) {
    char *end = NULL;
    long r = *at >= '0' && *at <= '9' ? strtol(at, &end, 10) : 0;
    if (r < 2 || r > ZIPFFT__MAX_RADIX || f.count == ZIPFFT__MAX_PASSES || product > s->n / r ||
        (*end != 'x' && *end != '\0') || (*end == 'x' && end[1] == '\0'))
      return none;
    f.radices[f.count++] = (int)r;
    product *= r;
    at = *end == 'x' ? end + 1 : end;
  }
  return f.count > 0 && product == s->n ? f : none;
}

/* Odd full-length R2C and C2R kernels of 21 to 39 points run as one butterfly at one thread
 * a transform instead of two passes (radix n/3 x 3 at three threads a transform under the
 * short cap; 5 x 5 and 7 x 5 at five): every C2R one of 21, 27, 33 and 39 points, fp32 C2R
 * of 25 and 35, and fp32 R2C of 33, 35 and 39. The two passes' exchange through shared
 * memory made them wait on their barriers and loads (Nsight Compute, fp32 C2R 21: 659 shared
 * wavefronts a block against 197 as one butterfly, 207 M instructions against 90 M). H100,
 * % of copy, two passes -> one butterfly (docs/perf/2026-12-06-odd-real-shared-traffic.md,
 * session 78): fp32 C2R 21 83.7 -> 99.3 (0.84x -> 1.00x cuFFT), 27 77.4 -> 99.0, 33 77.6 ->
 * 95.3, 39 73.3 -> 95.3, R2C 33 74.5 -> 91.7, 39 83.1 -> 94.1; fp64 C2R 21 84.6 -> 99.4, 27
 * 93.7 -> 98.0, 33 84.4 -> 97.1, 39 76.3 -> 85.8; session 79 (one run,
 * docs/perf/2026-12-06-h100-merge-kernel-banks.md): fp32 C2R 25 93.5 -> 99.3 (0.95x ->
 * 1.00x), 35 73.6 -> 95.1 (1.10x -> 1.43x), R2C 35 83.1 -> 90.1. fp32 R2C 21, 25 and 27
 * (100.0 -> 98.1, 99.2 -> 95.6, 99.0 -> 94.1), fp64 R2C (98.2-99.6 -> 93.7-96.0) and fp64
 * C2R 25 and 35 (98.9 -> 98.6, 85.4 -> 84.0) run as well or better in two passes.
 * ZIPFFT_ODD_REAL_BUTTERFLY (tuning): 0 never, 1 the rule, 2 every odd full-length real
 * kernel of 21 to 39 points. */
static int odd_real_one_butterfly(const zipfft__kernel_spec *s) {
  enum { shortest = 21, longest = 39, shortest_fp32_r2c = 33 };
  int mode = zipfft__tuning_int("ZIPFFT_ODD_REAL_BUTTERFLY", 1);
  if (mode == 0 || !zipfft__kind_is_full_real(s->kind) || s->n < shortest || s->n > longest)
    return 0;
  if (mode == 2) return 1;
  int fp32 = s->precision == ZIPFFT_F32, thirds = s->n % 3 == 0, fifths = s->n % 5 == 0;
  if (s->kind == ZIPFFT__KIND_C2R) return thirds || (fp32 && fifths);
  return fp32 && s->n >= shortest_fp32_r2c && (thirds || fifths);
}

/* The radices a kernel takes before the search's: those ZIPFFT_RADICES names, else one
 * butterfly of n points where odd_real_one_butterfly says so; count 0 for neither. */
static factorization chosen_radices(const zipfft__kernel_spec *s) {
  factorization named = named_radices(s);
  if (named.count > 0 || !odd_real_one_butterfly(s)) return named;
  return (factorization){.cap = (int)s->n, .count = 1, .radices = {(int)s->n}};
}

/* Bytes of a row of neighbouring transforms that a transform-major kernel fills even when
 * its block then has a multiprocessor to itself (ZIPFFT_MAJOR_ROW_BYTES, tuning): 128 on
 * devices of slow memory; on other devices 128 for kernels whose threads take neighbouring
 * transforms throughout (column kernels) and 32 for those that only store so (four-step row
 * kernels); 32 for fused correlation and statistics kernels (not measured).
 * Measured on an H200 (session 34, fp32, against 32 everywhere, cuFFT ratio): 128 for
 * column kernels alone 2^20 1.08x -> 1.11x, 2^22 1.20x -> 1.25x, 2^27 1.02x -> 1.07x, C2R
 * 2^20 1.21x -> 1.17x, R2C 2^20 1.11x; 128 for row kernels too 2^20 1.03x, C2R 2^20 1.09x,
 * R2C 2^20 1.24x (session 4: 1024-point columns ran 0.89x 16 to a block and 0.95x 8 to a
 * block, before the chained twiddles).
 * Measured on an H100, % of the copy bandwidth:
 * - 32 -> 64 (session 33): fp64 2^22 (2048 x 2048, 2 -> 4 transforms per block) 38.9 ->
 *   42.3 (0.99x -> 1.07x cuFFT), fp64 2^20 45.9 -> 46.7; fp32 2^22 as 2048 x 2048 (4 -> 8,
 *   not the plan's split): column kernel 1.03 -> 0.87 ms (Nsight Compute: L2 tag lookups
 *   89 -> 57% of peak), row kernel 780 -> 744 us; the 2DTM search unchanged;
 * - 64 -> 128 (session 33, fp32 8 -> 16, fp64 4 -> 8): fp32 2^22 44.3 -> 45.8, 2^27 28.4 ->
 *   29.9, R2C 2^20 32.6 -> 36.3, C2R 2^20 38.0 -> 39.4, fp64 262144 53.2 -> 54.4, but fp32
 *   pair kernels lost (2^20 52.1 -> 46.6, 2^18 50.7 -> 49.0, 2D 16 x 2^20 34.0 -> 31.5), so
 *   they keep 64 (zipfft__limit_major_rows, plan/fourstep.c). */
static int64_t major_row_bytes(const zipfft__kernel_spec *s, const zipfft__target *t) {
  const char *env = getenv("ZIPFFT_MAJOR_ROW_BYTES");
  if (env && *env) return atoll(env);
  if (s->fused != ZIPFFT__FUSED_NONE || s->statistics) return 32;
  return zipfft__slow_memory(t) || s->fft_major ? 128 : 32;
}

/* Transform-major thread mapping: adjacent transforms per block (a power of two), up to 16
 * (a 128-byte row of fp32 complex values per warp access) and about target_block_threads
 * threads, within shared memory. Beyond the count that fills major_row_bytes, a count is
 * taken only while the block keeps within major_shared_bytes, so that three blocks share a
 * multiprocessor and one's loads overlap another's arithmetic (measured on an H200: 256-point
 * columns at 16 are faster than at 8, and 2 is 4x slower). */
static int choose_major_ffts_per_block(zipfft__kernel_spec *s, int64_t transforms,
                                       const zipfft__target *target, int64_t row_bytes) {
  int64_t best = 1, t = s->threads_per_fft;
  size_t max_shared = target->max_shared_bytes;
  const char *env = getenv("ZIPFFT_MAJOR_FFTS"); /* tuning: the largest count tried */
  int64_t cap = env && *env ? atoll(env) : (int64_t)1 << 30;
  for (int64_t f = 2; f <= transforms && f <= cap && f * t <= max_block_threads &&
                      (f <= 16 || f * t <= target_block_threads);
       f *= 2) {
    s->ffts_per_block = (int)f;
    size_t bytes = zipfft__c2c_shared_bytes(s);
    int whole_row =
        f * (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT) <= row_bytes;
    if (bytes > max_shared || (!whole_row && bytes > major_shared_bytes)) break;
    best = f;
  }
  return (int)best;
}

static void choose_shared_twiddles(zipfft__kernel_spec *s, const zipfft__target *t);

void zipfft__limit_major_rows(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t,
                              int64_t row_bytes) {
  if (!(s->fft_major || s->store_major) || s->ffts_per_block < 2) return;
  zipfft__kernel_spec narrower = *s;
  int f = choose_major_ffts_per_block(&narrower, transforms, t, row_bytes);
  if (f < 2 || f >= s->ffts_per_block) return;
  s->ffts_per_block = f;
  if (s->shared_twiddles) choose_shared_twiddles(s, t); /* as sizing decides it for f */
}

/* Threads per transform: one butterfly of the largest radix each, or when that would pass
 * the block limit, about 2, 3, ... butterflies each (the last ones guarded). */
static int64_t threads_per_transform(int64_t n, int largest_radix) {
  int64_t butterflies = n / largest_radix, per_thread = 1;
  while ((butterflies + per_thread - 1) / per_thread > max_threads_per_fft) per_thread++;
  return (butterflies + per_thread - 1) / per_thread;
}

/* Modelled cost of one radix-r butterfly (r log2 r operations), for weighing passes. */
static double butterfly_cost(int r) { return r > 1 ? r * log2((double)r) : 0; }

/* Fraction of the thread slots of a transform's passes that do work with t threads: pass
 * p runs its n / r_p butterflies in ceil(butterflies / t) rounds of t threads, each round
 * weighted by its butterfly's cost. */
static double thread_utilisation(int64_t n, const factorization *f, int64_t t) {
  double work = 0, slots = 0;
  for (int p = 0; p < f->count; p++) {
    int64_t butterflies = n / f->radices[p], rounds = (butterflies + t - 1) / t;
    work += (double)butterflies * butterfly_cost(f->radices[p]);
    slots += (double)(rounds * t) * butterfly_cost(f->radices[p]);
  }
  return slots > 0 ? work / slots : 1;
}

/* 1 when t threads hold every pass's values: ceil((n / r) / t) butterflies of r values each,
 * at most ZIPFFT__MAX_VALUES (the generator's limit). */
static int holds_values(int64_t n, const int *radix_of_pass, int count, int64_t t) {
  for (int p = 0; p < count; p++)
    if ((n / radix_of_pass[p] + t - 1) / t * radix_of_pass[p] > ZIPFFT__MAX_VALUES) return 0;
  return 1;
}

/* Threads per transform: one butterfly of some pass's radix each (threads_per_transform),
 * the radix whose thread count keeps the most slots busy over all passes, the largest radix
 * (fewest threads) on ties. With the largest radix alone, passes of a slightly smaller one
 * ran a second round for a few threads: 5760 = 10x9x8x8 took 576 threads and two rounds in
 * three passes; 720 threads take one round each. Measured on an H100 against the largest
 * radix: the 2DTM K3 statistics kernel 1.59 -> 1.29 ms, its 2880-point R2C 81 -> 67 us;
 * batched C2C fp64 5760 79 -> 92% of copy bandwidth, 7680 70 -> 88%, 4608 86 -> 93%,
 * fp32 1920 89 -> 97%, 7680 79 -> 84%, but fp32 4608 and 5120 100 -> 99%. Where one radix
 * is much smaller (2187 = 9x9x9x3), its pass's rounds cost less than the idle threads of
 * the others and the largest radix stays. ZIPFFT_THREAD_RULE=largest (tuning) keeps it. */
static int64_t choose_threads_per_transform(int64_t n, const factorization *f) {
  int64_t best = threads_per_transform(n, f->radices[0]);
  const char *env = getenv("ZIPFFT_THREAD_RULE");
  if (env && strcmp(env, "largest") == 0) return best;
  double best_use =
      holds_values(n, f->radices, f->count, best) ? thread_utilisation(n, f, best) : -1;
  for (int p = 1; p < f->count; p++) {
    int64_t t = threads_per_transform(n, f->radices[p]);
    double use = thread_utilisation(n, f, t);
    if (holds_values(n, f->radices, f->count, t) && use > best_use + 1e-9) best = t, best_use = use;
  }
  return best;
}

size_t zipfft__blocks_by_shared(size_t bytes, const zipfft__target *t) {
  return (t->max_shared_bytes + 1024) / (bytes + 1024);
}

/* Table reads of a block's passes that a staged copy of the twiddles replaces: per pass
 * after the first, one per exponent read (zipfft__twiddle_read) and butterfly, for every thread
 * and each of the kernel's FFTs. */
static int64_t twiddle_reads_per_block(const zipfft__kernel_spec *s) {
  int64_t reads = 0;
  for (int p = 1; p < s->pass_count; p++) {
    int64_t m = s->n / s->radices[p];
    int64_t butterflies = (m + s->threads_per_fft - 1) / s->threads_per_fft;
    for (int q = 1; q < s->radices[p]; q++) reads += zipfft__twiddle_read(q) ? butterflies : 0;
  }
  return reads * zipfft__c2c_block_threads(s) * (zipfft__two_ffts(s) ? 2 : 1);
}

/* Stages the passes' twiddles in shared memory (spec field shared_twiddles) where the block
 * has a multiprocessor nearly to itself (at most `few_blocks` by shared memory), the staged
 * copy leaves that count unchanged, and its passes read each staged entry at least
 * `min_reuse` times: such blocks run their passes with little else on the multiprocessor
 * to hide the table reads' latency. Measured on an H200 (ms per batch, table -> staged):
 * a 2DTM call of 16 correlations (its fused kernel reads each entry 15 times) 2.035 -> 1.92,
 * fp64 4099 Bluestein (6 times) 4.08 -> 3.64 ms, fp32 2^20 1.29 -> 1.27 ms, 2D 4096x4096
 * C2C 0.744 -> 0.737 ms; but fp32 16384 (once) 0.646 -> 0.665 ms and fp64 8192 (1.3 times)
 * 0.679 -> 0.705 ms, where the copy is a long wait at each block's start. Statistics
 * kernels run their passes once per signal (or pair), so their reuse is taken as enough:
 * the half-length kernel measured within the spread, the signal-pair kernel of a 2DTM call
 * 9940 -> 10020 corr/s.
 * Half-length R2C kernels that copy the twiddles inside their first pass (kernel_spec.h)
 * also stage where more than few_blocks share a multiprocessor: fp32 R2C 4096, % of
 * the copy bandwidth, H200 89.1 -> 95.2 (0.93x -> 1.00x cuFFT), H100 96.4 -> 97.4. The same
 * rule for every kind gained at fp32 C2C 4096 and 2048 (+1 point) but lost at 128-1024 and
 * at mixed radices (H200: 2187 -11, 3125 -14.5, 1984 -12.6 points).
 * ZIPFFT_SHARED_TWIDDLES (tuning): 0 never, 2 wherever the copy fits. Cluster kernels read
 * their twiddles from the table. */
static void choose_shared_twiddles(zipfft__kernel_spec *s, const zipfft__target *t) {
  enum { few_blocks = 4, min_reuse = 4 };
  int mode = zipfft__tuning_int("ZIPFFT_SHARED_TWIDDLES", 1);
  s->shared_twiddles = 0;
  if (mode == 0 || s->pass_count < 2 || s->cluster > 1) return;
  size_t plain = zipfft__c2c_shared_bytes(s);
  s->shared_twiddles = 1;
  size_t staged = zipfft__c2c_shared_bytes(s);
  size_t blocks = zipfft__blocks_by_shared(plain, t);
  int64_t entries = zipfft__shared_twiddle_slot(s, s->pass_count, 1);
  int reused = s->statistics || entries * min_reuse <= twiddle_reads_per_block(s);
  int keeps = blocks <= few_blocks && zipfft__blocks_by_shared(staged, t) == blocks && reused;
  int hidden = s->kind == ZIPFFT__KIND_R2C_HALF && zipfft__copies_twiddles_in_first_pass(s) &&
               zipfft__blocks_by_shared(staged, t) > few_blocks;
  s->shared_twiddles = staged <= t->max_shared_bytes && (mode == 2 || keeps || hidden);
}

/* Blocks per multiprocessor the compiler is asked to allow (min_blocks): none when
 * planning, unless ZIPFFT_MIN_BLOCKS (tuning). The register count that decides whether two
 * pay is known only after compiling: the CUDA plan asks for them then (api/plan.c,
 * ask_two_blocks). */
static void choose_min_blocks(zipfft__kernel_spec *s) {
  s->min_blocks = zipfft__tuning_int("ZIPFFT_MIN_BLOCKS", 0);
}

/* fp32 C2R kernels of half length 32 (C2R 64) mirror their first pass whatever its groups:
 * measured on an H200 (session 52, % of copy bandwidth, merge phase -> mirrored) 64.2 ->
 * 68.9, 0.94x -> 1.00x cuFFT. */
static int short_c2r_mirrored(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_C2R_HALF && s->precision == ZIPFFT_F32 && s->n == 32;
}

/* Mirrors an R2C_HALF kernel (spec field mirrored) where the generator can, its transforms
 * take whole warps, and thread 0's extra group of split pairs (its butterflies 0 and m/2,
 * a branch the other threads of its warp wait for) is at most 1/16 of the split's groups
 * of the block's warps: warps per transform times groups (pairs of butterflies) per
 * thread at least 16. Measured on an H100 (% of copy bandwidth, shared-memory split ->
 * mirrored): fp32 R2C 16384 (512 threads, 4 groups) 79.0 -> 91.2, fp64 78.7 -> 81.2, fp32
 * 32768 (1024 threads, 2 groups) 75.8 -> 76.2; but fp32 2048 (64 threads, 2 groups) 96.3
 * -> 94.3, 4096 (128 threads, 1 group) 96.5 -> 94.1, and 256 (8 threads, four transforms
 * per warp) 84.5 -> 43.9. The same rule mirrors the first pass of a C2R kernel (its radices
 * ascending, size_unstaged_large_radix), which merges from the half spectrum in registers
 * (H100, merge phase -> mirrored, session 31): fp32 C2R 16384 (8x32x32, 256 threads, 2
 * groups) 89.6 -> 94.1, fp64 64.3 -> 83.7, fp32 32768 (16x32x32, 512 threads, 1 group)
 * 67.1 -> 73.5; forced at fp32 4096 (8x16x16, 128 threads, 1 group) 97.5 -> 97.6.
 * R2C kernels of a zero-padded input (load_extent) mirror too: they load little, so the
 * split's exchange through shared memory weighs more. Measured on an H200 (session 35):
 * the 2DTM R2C pass (2048 points from 512 of 4096 reals, 128 threads, 1 group) 52.8 ->
 * 47.2 us, the search +0.4%.
 * fp64 C2R kernels of whole warps mirror wherever the generator can, where they merged on
 * load: measured on an H200 (session 63, % of copy bandwidth, plan -> mirrored) fp64 C2R
 * 4096 (half 2048, 128 threads, 1 group; merging on load it ran at 4 blocks per
 * multiprocessor, latency-bound) 71.1 -> 97.6, 0.87x -> 1.19x cuFFT; C2R 2048 (half 1024,
 * 64 threads) 97.5 -> 97.3 (the other lengths of 1024 to 8192 it cannot mirror); on an H100
 * (session 76, two runs) C2R 4096 80.7-81.0 -> 99.2-99.5, 0.82x -> 1.01x (merging on load
 * it prefetched 64 blocks ahead, 436.8 us, 24% occupancy), 2048 98.9-99.0 -> 98.6 (1.00x
 * both). Kernels of part of a warp (C2R 64, 256) keep their plans: not measured.
 * ZIPFFT_MIRRORED (tuning): 0 never, 2 wherever the generator can. */
static void choose_mirrored(zipfft__kernel_spec *s) {
  enum { min_warp_groups = 16, warp = 32 };
  int mode = zipfft__tuning_int("ZIPFFT_MIRRORED", 1);
  s->mirrored = 0;
  if (mode == 0 || !zipfft__can_mirror(s)) return;
  int64_t m = s->n / s->radices[zipfft__mirrored_pass(s)], groups = m / s->threads_per_fft / 2;
  int whole_warps = s->threads_per_fft % warp == 0;
  int padded = s->kind == ZIPFFT__KIND_R2C_HALF && s->load_extent > 0;
  int fp64_c2r = s->kind == ZIPFFT__KIND_C2R_HALF && s->precision == ZIPFFT_F64 && whole_warps;
  s->mirrored = mode == 2 || padded || short_c2r_mirrored(s) || fp64_c2r ||
                (whole_warps && s->threads_per_fft / warp * groups >= min_warp_groups);
}

/* Merges the half spectrum of a C2R_HALF kernel that is not mirrored in its first pass's
 * loads, each value read twice (spec field merge_on_load), for fp64 from a half length of
 * merge_on_load_min_half (since session 76 fp64 kernels of whole warps mirror where they
 * can, so this takes those that cannot, such as C2R 8192's half 4096). Measured on an H100 (% of
 * copy bandwidth, merge phase -> merge on load, one call): fp64 C2R 4096 97.8 -> 98.8 (98.0 -> 99.0
 * in another call), 16384 64.1 -> 66.9 (mirrored since: 83.7), 2^20 35.8 -> 35.9; but fp32 C2R
 * 16384 90.0 -> 83.1 (69.2 with radix 32), 4096 97.5 -> 93.0, 2D 4096x4096 35.0 -> 34.0: the second
 * read costs fp32 more (twice the load instructions per byte). Session 44 (H100, two rounds,
 * docs/perf/2026-11-27-small-real-kernels.md): short fp64 kernels lose by it, C2R 512
 * (half 256, 8 blocks per multiprocessor either way) 98.5-98.6 -> 87.2 and 1024 (half
 * 512, 14 blocks) 98.0-98.1 -> 94.3-94.7, where 2048 (half 1024) gains 97.9 -> 99.0.
 * ZIPFFT_MERGE_ON_LOAD (tuning): 0 never, 1 the planner's rule, 2 wherever the generator
 * can. */
static void choose_merge_on_load(zipfft__kernel_spec *s) {
  enum { merge_on_load_min_half = 1024 };
  int mode = zipfft__tuning_int("ZIPFFT_MERGE_ON_LOAD", 1);
  s->merge_on_load = 0;
  if (mode == 0 || s->mirrored || !zipfft__can_merge_on_load(s)) return;
  s->merge_on_load = mode == 2 || (s->precision == ZIPFFT_F64 && s->n >= merge_on_load_min_half);
}

/* Fused correlation kernels whose rows the block's thread limit keeps below a 32-byte
 * sector (fp32 5760-point columns: 360 threads each, 2 per block, 16-byte rows): the threads
 * per transform halve (each takes more butterflies) while that lets more transforms into
 * the block, up to a whole sector. Measured on an H100: the 2DTM search of a 4092x5760
 * image (5760-point fused columns, 384x384 templates, batch 16) 3290 -> 3860 corr/s, though
 * the kernel spills 740 bytes per thread at 180 threads; but the plain column pass of a 2D
 * C2C 5760x4092 batch 4 went 1.66 -> 1.90 ms, so plain columns keep partial sectors. */
static void widen_major_rows(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t) {
  int64_t sector_ffts = 32 / (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT);
  while (s->ffts_per_block < sector_ffts && s->threads_per_fft >= 64) {
    zipfft__kernel_spec wider = *s;
    wider.threads_per_fft = (s->threads_per_fft + 1) / 2;
    if (!holds_values(s->n, s->radices, s->pass_count, wider.threads_per_fft)) return;
    wider.ffts_per_block =
        choose_major_ffts_per_block(&wider, transforms, t, major_row_bytes(s, t));
    if (wider.ffts_per_block <= s->ffts_per_block) return;
    *s = wider;
  }
}

/* Sizes a spec whose n factorises: radices, threads, transforms per block. */
static int size_smooth(zipfft__kernel_spec *s, factorization f, int64_t transforms,
                       const zipfft__target *t) {
  s->pass_count = f.count;
  for (int i = 0; i < f.count; i++) s->radices[i] = f.radices[i];
  s->threads_per_fft = (int)choose_threads_per_transform(s->n, &f);
  if (!holds_values(s->n, f.radices, f.count, s->threads_per_fft))
    return 0; /* no thread count holds them */
  s->ffts_per_block = 1;
  s->shared_twiddles = 0;
  if (s->fft_major || s->store_major)
    s->ffts_per_block = choose_major_ffts_per_block(s, transforms, t, major_row_bytes(s, t));
  const char *widen = getenv("ZIPFFT_WIDEN_MAJOR"); /* tuning: 0 keeps partial sectors */
  if (s->fft_major && s->fused != ZIPFFT__FUSED_NONE && !(widen && strcmp(widen, "0") == 0))
    widen_major_rows(s, transforms, t);
  if (!(s->fft_major || s->store_major) || s->ffts_per_block == 1)
    s->ffts_per_block = choose_ffts_per_block(s, transforms);
  if (s->ffts_per_block == 1) s->fft_major = s->store_major = 0;
  s->merge_on_load = 0; /* decided after mirroring, which a kernel merging on load cannot */
  choose_mirrored(s);
  choose_merge_on_load(s);
  zipfft__choose_stage_io(s);
  zipfft__choose_split_by_element(s);
  choose_shared_twiddles(s, t);
  choose_min_blocks(s);
  return zipfft__c2c_shared_bytes(s) <= t->max_shared_bytes;
}

int64_t zipfft__smooth_length(int64_t at_least) {
  for (int64_t m = at_least;; m++) {
    int64_t r = m;
    for (int p = 2; p <= 7; p++)
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

int64_t zipfft__bluestein_length(int64_t n, zipfft__chirp_half half) {
  return zipfft__smooth_length(zipfft__chirp_least_padding(n, half));
}

/* The padded length of a Bluestein kernel for n: the smallest 7-smooth length of at least
 * its convolution's least (2n - 1 for C2C, n + n/2 for R2C and C2R);
 * but where that kernel would have a multiprocessor to itself (so that every pass's barrier
 * stalls it), the smallest radix16_length up to 1/8 longer, if any: it runs in fewer
 * passes whose butterflies the threads share evenly.
 * Measured on an H200, fp32 10007 (20013 at least): 20160 = 9x8x8x7x5 1.52x cuFFT, 20736
 * = 12^4 2.11x, 20480 = 16x16x16x5 2.32x; fp32 4099 (66 KiB, several blocks per
 * multiprocessor): 8232 = 7x7x7x6x4 2.15x, 8640, 9216, 8748 2.09x, 2.04x, 1.76x. */
static int64_t bluestein_kernel_length(zipfft_precision precision, int64_t n,
                                       zipfft__chirp_half half) {
  int64_t least = zipfft__chirp_least_padding(n, half), smooth = zipfft__bluestein_length(n, half);
  if (!bluestein_alone(precision, smooth)) return smooth;
  for (int64_t m = least; m <= least + least / 8; m++)
    if (radix16_length(m)) return m;
  return smooth;
}

int64_t zipfft__single_kernel_cap(void) {
  const char *env = getenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
  return env && *env ? atoll(env) : 0;
}

/* Cluster kernels take lengths no single block holds, split over at most 4 blocks of at
 * most a third of an H100's or H200's shared memory each. Measured on an H200 (fraction of
 * the copy bandwidth, cluster kernel against the two-kernel four-step):
 * - 4 blocks win: fp32 32768 57% vs 48% (1.13x cuFFT), fp64 16384 60% vs 48% (1.33x);
 * - 8 blocks lose: fp32 65536 44% vs 48%, fp64 32768 44% vs 49%;
 * - where one block holds the length, it wins: fp32 16384 as one block 78% of the copy
 *   bandwidth, as clusters of 2, 4 or 8 blocks 67%, 66%, 53%. */
enum { cluster_block_bytes = 76 * 1024, cluster_max_blocks = 4 };

/* The most blocks a cluster kernel takes: cluster_max_blocks, or ZIPFFT_CLUSTER_BLOCKS
 * (tuning, up to what the device allows). */
static int cluster_blocks_limit(void) {
  return zipfft__tuning_int("ZIPFFT_CLUSTER_BLOCKS", cluster_max_blocks);
}

/* The most shared memory a cluster kernel's block takes: cluster_block_bytes, or
 * ZIPFFT_CLUSTER_BYTES (tuning). */
static size_t cluster_bytes(void) {
  const char *env = getenv("ZIPFFT_CLUSTER_BYTES");
  return env && *env ? (size_t)atoll(env) : cluster_block_bytes;
}

/* Whether a C2R_HALF cluster kernel takes the mirrored half of its merge, X[L - e], from its
 * partner block's shared memory instead of a second read from global memory (spec field
 * cluster_mirror), by ZIPFFT_CLUSTER_MIRROR (tuning): 1 where the generator can; by default
 * not: it lost on the H100 (fp32 C2R 65536 0.98x -> 0.87x cuFFT, session 75; not yet run on
 * an H200). The lead was: reading each value twice cost fp32 C2R 16384 7 points in one
 * block (H100, choose_merge_on_load), and the H200 runs fp32 C2R 65536 at 45.4% of copy
 * where the C2C cluster kernel of its half length, 32768, runs at 59%
 * (docs/perf/2026-12-05-h200-regressions-mended.md). */
static int wants_cluster_mirror(const zipfft__kernel_spec *s) {
  const char *env = getenv("ZIPFFT_CLUSTER_MIRROR");
  return s->kind == ZIPFFT__KIND_C2R_HALF && s->cluster > 1 && env && strcmp(env, "1") == 0;
}

/* 1 when a spec is a plain row pass of contiguous elements, C2C or half-length real (R2C
 * with the split into the half spectrum in the cluster's stores, C2R with the merge in its
 * loads): what cluster kernels do. */
static int cluster_candidate(const zipfft__kernel_spec *s, const zipfft__target *t) {
  return t->max_cluster_blocks >= 2 && zipfft__cluster_capable(s) && !s->fft_major &&
         !s->twiddle_length && s->in_stride == 1 && s->out_stride == 1;
}

/* Sizes a cluster kernel's part (a block's n points, cluster set) on the radices
 * ZIPFFT_RADICES names (tuning), else on the search's; 0 (part unchanged) when neither
 * fits. */
static int size_cluster_part(zipfft__kernel_spec *part, int64_t transforms,
                             const zipfft__target *t) {
  factorization named = named_radices(part);
  zipfft__kernel_spec sized = *part;
  if (named.count == 0 || !size_smooth(&sized, named, transforms, t)) {
    factorization f = factorize(part);
    sized = *part;
    if (f.count == 0 || !size_smooth(&sized, f, transforms, t)) return 0;
  }
  *part = sized;
  return 1;
}

int zipfft__size_cluster_kernel(zipfft__kernel_spec *s, int64_t transforms,
                                const zipfft__target *t) {
  if (!cluster_candidate(s, t)) return 0;
  zipfft__kernel_spec whole = *s;
  if (zipfft__size_single_kernel(&whole, transforms, t)) return 0; /* one block holds it */
  for (int cluster = 2; cluster <= t->max_cluster_blocks && cluster <= cluster_blocks_limit();
       cluster *= 2) {
    zipfft__kernel_spec part = *s;
    /* each block's part (n / cluster points) splits evenly over the cluster's blocks */
    if (s->n % ((int64_t)cluster * cluster) != 0 || s->n / cluster < (int64_t)cluster * cluster)
      continue;
    if (zipfft__kind_is_half(s->kind) && (s->n / cluster) % (2 * cluster) != 0) continue;
    part.n = s->n / cluster;
    part.cluster = cluster;
    part.cluster_mirror = wants_cluster_mirror(&part);
    if (!size_cluster_part(&part, 1, t) || zipfft__c2c_shared_bytes(&part) > cluster_bytes())
      continue;
    *s = part;
    return 1;
  }
  return 0;
}

/* Blocks of a cluster column kernel for the column kernel s: ZIPFFT_CLUSTER_COLUMNS
 * (tuning), else by default clusters_for_slow_columns for fp32 4096-point columns on devices
 * of slow memory (the H100), 0 (none) elsewhere. Measured for fp32 2^24 as 4096 x 4096 on an
 * H100 (session 74, docs/perf/2026-12-06-h100-cluster-column-shapes.md): clusters of 8 on
 * 512-point parts, two blocks a multiprocessor, 1.05x -> 1.10x cuFFT (columns 1.01 ms ->
 * 944-955 us); clusters of 4 (one block a multiprocessor) 1.04x. On an H200 only clusters of
 * 4 have run (session 74: 1.10x where its plan, 256 x 256 x 256 with a pair, runs 1.11x). */
enum { clusters_for_slow_columns = 8, slow_cluster_column_length = 4096 };

static int cluster_columns_wanted(const zipfft__kernel_spec *s, const zipfft__target *t) {
  const char *env = getenv("ZIPFFT_CLUSTER_COLUMNS");
  if (env && *env) return atoi(env);
  int slow_columns =
      zipfft__slow_memory(t) && s->precision == ZIPFFT_F32 && s->n == slow_cluster_column_length;
  return slow_columns ? clusters_for_slow_columns : 0;
}

enum { cluster_column_line_bytes = 128 };

/* Whether a cluster column kernel interleaves its shared memory (kernel_spec
 * shared_interleaved): wherever its cluster stores go by column, unless
 * ZIPFFT_CLUSTER_INTERLEAVE=0 (tuning) keeps the padded rows. Measured on an H100
 * (session 73, docs/perf/2026-12-05-h100-cluster-columns.md), fp32 4096-point columns in
 * clusters of 4: padded rows, whose cluster reads of one k across 16 columns lie 8.3 KiB
 * apart in another block's shared memory, took 1.47 ms where the same kernel reading 32
 * neighbouring k of one column took 1.03 ms. */
static int wants_interleaved_shared(const zipfft__kernel_spec *s) {
  const char *env = getenv("ZIPFFT_CLUSTER_INTERLEAVE");
  return !(env && strcmp(env, "0") == 0) && zipfft__can_interleave_shared(s) &&
         zipfft__cluster_stores_by_column(s);
}

int zipfft__size_cluster_columns(zipfft__kernel_spec *s, int64_t transforms,
                                 const zipfft__target *t) {
  int cluster = cluster_columns_wanted(s, t);
  int64_t bytes = (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT);
  if (cluster < 2 || cluster > t->max_cluster_blocks || s->kind != ZIPFFT__KIND_C2C ||
      !s->fft_major || s->cluster > 1 || !zipfft__cluster_capable(s) ||
      s->ffts_per_block * bytes >= cluster_column_line_bytes ||
      s->n % ((int64_t)cluster * cluster) != 0)
    return 0;
  zipfft__kernel_spec part = *s;
  part.n = s->n / cluster;
  part.cluster = cluster;
  if (!size_cluster_part(&part, transforms, t) || !part.fft_major ||
      part.ffts_per_block <= s->ffts_per_block)
    return 0;
  part.shared_interleaved = wants_interleaved_shared(&part);
  part.min_blocks = zipfft__tuning_int("ZIPFFT_CLUSTER_MIN_BLOCKS", 0); /* tuning: 0 none */
  *s = part;
  return 1;
}

void zipfft__choose_convolution_in_place(zipfft__kernel_spec *s) {
  const char *env = getenv(s->rader_n > 0 ? "ZIPFFT_RADER_IN_PLACE" : "ZIPFFT_BLUESTEIN_IN_PLACE");
  s->passes_in_place = zipfft__can_pass_in_place(s) && !(env && strcmp(env, "0") == 0);
}

/* Whether a Rader kernel loads and stores by element over the block's rows (spec field
 * rader_by_element), by ZIPFFT_RADER_BY_ELEMENT (tuning: 0 never, 1 the rule, 2 wherever
 * the generator can): by rule where a transform's threads access fewer than 32 bytes of
 * neighbouring elements at a time (zipfft__short_runs: fp32 of two threads a transform),
 * as for staged short kernels. H200, session 67, % of copy, by transform -> by element
 * (docs/perf/2026-12-04-h200-packed-reals-rader.md): fp32 47 (T = 2) 35.8 -> 46.8, 59 (T = 2)
 * 36.2 -> 45.5, 53 (T = 4) 62.0 -> 63.9; but fp64 47 59.7 -> 56.1, 59 54.7 -> 46.9, fp64 37
 * (T = 6) 59.0 -> 54.2, fp32 61 44.8 -> 39.1, and the longer kernels lose most (fp64 127
 * 49.2 -> 27.7: 140 -> 186 registers; fp32 1009 50.0 -> 39.9). */
static int rader_by_element_wanted(const zipfft__kernel_spec *s) {
  int mode = zipfft__tuning_int("ZIPFFT_RADER_BY_ELEMENT", 1);
  if (mode == 0 || !zipfft__can_rader_by_element(s)) return 0;
  return mode != 1 || zipfft__short_runs(s);
}

/* fp64 C2C of a prime length above largest_prime_radix and up to this runs as one
 * butterfly of that radix, a thread a transform (ZIPFFT_DIRECT_PRIME_F64, tuning: the
 * largest such prime; 31 leaves them all to Rader's method). H200, session 67, % of copy,
 * Rader -> one butterfly (docs/perf/2026-12-04-h200-packed-reals-rader.md): fp64 37 59.0 ->
 * 93.6 (0.61x -> 0.97x cuFFT; 255 registers, 56 bytes spilled, nvcc offline), 41 55.5 ->
 * 75.7 (0.82x), 43 59.4 -> 64.4 (0.91x); but 47 59.7 -> 54.5. fp32 not measured. */
enum { direct_prime_f64 = 43 };

static int size_direct_prime(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t) {
  const char *env = getenv("ZIPFFT_DIRECT_PRIME_F64");
  int64_t largest = env && *env ? atoll(env) : direct_prime_f64;
  int64_t n = s->n;
  if (s->kind != ZIPFFT__KIND_C2C || s->precision != ZIPFFT_F64 || n <= largest_prime_radix ||
      n > largest || n > ZIPFFT__MAX_RADIX || largest_prime_factor(n) != n)
    return 0;
  factorization f = {.cap = (int)n, .count = 1, .radices = {(int)n}};
  zipfft__kernel_spec direct = *s; /* sized apart: a failed sizing leaves s as it was */
  if (!size_smooth(&direct, f, transforms, t)) return 0;
  *s = direct;
  return 1;
}

/* Rader's method for a prime n whose n - 1 factorises (31-smooth): a convolution of
 * length n - 1 instead of Bluestein's of at least 2n - 1. ZIPFFT_RADER=0 (tuning) leaves
 * such primes to Bluestein. Returns 0 (spec unchanged) when that does not apply. */
static int size_rader(zipfft__kernel_spec *s, int64_t transforms, const zipfft__target *t) {
  const char *env = getenv("ZIPFFT_RADER");
  int64_t p = s->n;
  if ((env && *env && atoi(env) == 0) || p < 3 || largest_prime_factor(p) != p) return 0;
  s->rader_n = p;
  s->n = p - 1;
  factorization f = factorize(s);
  if (f.count > 0 && size_smooth(s, f, transforms, t)) {
    zipfft__choose_convolution_in_place(s);
    s->rader_by_element = rader_by_element_wanted(s);
    return 1;
  }
  s->rader_n = 0;
  s->n = p;
  return 0;
}

/* Sizes an R2C kernel of a power-of-two half length with the radix cap of 16 and keeps it
 * (returns 1) where it is mirrored so and its shared memory leaves room for 2 blocks per
 * multiprocessor, so that twice the threads of the large-radix kernel are resident;
 * returns 0 with s unchanged otherwise.
 * Measured (session 41, % of copy bandwidth, large radix -> cap 16): fp32 R2C 16384 (32x32x8,
 * 256 threads -> 16x16x16x2, 512 threads, 69.6 KB) H200 83.4 -> 86.7 (1.12x -> 1.16x
 * cuFFT), H100 96.2 -> 97.7 (1.11x -> 1.14x); where the cap-16 kernel has a multiprocessor
 * to itself it loses (H200 fp32 32768 71.2 -> 67.3, fp64 16384 69.5 -> 62.4). C2R kernels
 * are not kept so (fp32 C2R 16384 at 2x16x16x16: H200 82.4 -> 51.8, H100 97.8 -> 72.5). */
static int size_mirrored_radix_16(zipfft__kernel_spec *s, int64_t transforms,
                                  const zipfft__target *t) {
  if (s->kind != ZIPFFT__KIND_R2C_HALF || !half_length_power_of_two(s)) return 0;
  zipfft__kernel_spec trial = *s;
  factorization f = factorize(&trial);
  if (f.count == 0 || !size_smooth(&trial, f, transforms, t) || !trial.mirrored ||
      zipfft__blocks_by_shared(zipfft__c2c_shared_bytes(&trial), t) < 2)
    return 0;
  *s = trial;
  return 1;
}

/* Short real kernels that take the ordinary radix cap (one pass fewer) though not mirrored,
 * on devices of fast memory, where each was measured (H200, session 52, % of copy
 * bandwidth, cap 16 -> the ordinary cap): fp32 R2C 1024 (half 512, 8x8x8 -> 32x16) 85.9 ->
 * 89.7 (0.88x -> 0.92x cuFFT), C2R 1024 (8x8x8 -> 16x32) 86.3 -> 94.5 (0.89x -> 0.98x),
 * fp64 R2C 2048 (half 1024, 16x16x4 -> 32x32) 87.2 -> 94.8 (0.99x -> 1.07x). The others
 * measured stay: fp32 R2C 2048 93.1 -> 94.0 and C2R 94.9 -> 94.2, fp64 R2C 1024 96.0 ->
 * 94.4, C2R 1024 96.5 -> 97.0, C2R 2048 96.0 -> 68.9. Not measured on an H100. */
static const struct {
  zipfft_precision precision;
  zipfft__kernel_kind kind;
  int64_t half_length;
} unmirrored_large_radix[] = {
    {ZIPFFT_F32, ZIPFFT__KIND_R2C_HALF, 512},
    {ZIPFFT_F32, ZIPFFT__KIND_C2R_HALF, 512},
    {ZIPFFT_F64, ZIPFFT__KIND_R2C_HALF, 1024},
};

/* Whether s is one of unmirrored_large_radix on a device of fast memory. */
static int large_radix_unmirrored(const zipfft__kernel_spec *s, const zipfft__target *t) {
  if (zipfft__slow_memory(t)) return 0;
  for (size_t i = 0; i < sizeof unmirrored_large_radix / sizeof unmirrored_large_radix[0]; i++)
    if (unmirrored_large_radix[i].precision == s->precision &&
        unmirrored_large_radix[i].kind == s->kind && unmirrored_large_radix[i].half_length == s->n)
      return 1;
  return 0;
}

/* A real kernel of a power-of-two half length sized with the ordinary radix cap instead of
 * 16, kept when it is mirrored, so that its split or merge needs no round through shared
 * memory, for which 16 was chosen (max_radix); the kernels of large_radix_unmirrored take
 * radix 32 (planned_radix_cap) and keep it mirrored or not. A C2R kernel takes its radices
 * ascending, so that the first pass, which it mirrors, gives each thread several
 * butterflies. Measured
 * on an H100 (% of copy bandwidth, cap 16 -> the ordinary cap, both mirrored): fp32 R2C
 * 16384 (16x16x16x2 -> 32x32x8) 91.1 -> 91.8, fp32 32768 (16x16x16x4 -> 32x32x16) 76.4 ->
 * 81.9, fp64 16384 81.3 -> 86.5; on an H200 73.5 -> 75.8, 60.4 -> 66.9 and 65.1 -> 69.1
 * (session 31; fp32 R2C 16384 measured the other way since: size_mirrored_radix_16, tried
 * first). Returns 0 (spec unchanged) otherwise. */
static int size_unstaged_large_radix(zipfft__kernel_spec *s, int64_t transforms,
                                     const zipfft__target *t) {
  if (!zipfft__kind_is_half(s->kind) || !half_length_power_of_two(s)) return 0;
  int unmirrored_ok = large_radix_unmirrored(s, t);
  zipfft__kernel_spec trial = *s;
  factorization f =
      unmirrored_ok ? factorize_to(&trial, planned_radix_cap) : factorize_capped(&trial, 0);
  if (trial.kind == ZIPFFT__KIND_C2R_HALF) /* the smallest radix first: several butterflies
                                              per thread in the pass that merges */
    for (int i = 0; i < f.count / 2; i++) {
      int r = f.radices[i];
      f.radices[i] = f.radices[f.count - 1 - i];
      f.radices[f.count - 1 - i] = r;
    }
  if (f.count == 0 || !size_smooth(&trial, f, transforms, t)) return 0;
  if (!trial.mirrored && !unmirrored_ok) return 0;
  *s = trial;
  return 1;
}

/* 1 for a plain batched C2C row kernel: nothing fused, padded, tiled, twiddled, paired,
 * clustered or convolved, so that its passes may run in any order. */
static int plain_c2c_rows(const zipfft__kernel_spec *s) {
  return s->kind == ZIPFFT__KIND_C2C && s->fused == ZIPFFT__FUSED_NONE && !s->statistics &&
         !s->fft_major && !s->store_major && s->twiddle_length == 0 && s->out_tile == 0 &&
         s->in_tile == 0 && s->bluestein_n == 0 && s->rader_n == 0 &&
         s->pointwise == ZIPFFT__PW_NONE && s->load_extent == 0 && s->store_extent == 0 &&
         s->cluster <= 1 && s->paired_rows == 0 && !s->passes_in_place;
}

/* Whether plain C2C row kernels run their last radix first (zipfft__rotated_radices):
 * ZIPFFT_ROTATE_RADICES (tuning) 0 never, 1 on every target; by default on devices of fast
 * memory (measurements at api/plan.c, ask_radix_rotation). */
static int rotation_wanted(const zipfft__target *t) {
  const char *env = getenv("ZIPFFT_ROTATE_RADICES");
  if (env && *env) return strcmp(env, "1") == 0;
  return !zipfft__slow_memory(t);
}

/* 1 for the primes 17 to 31, radices of their own (direct butterflies). A kernel that
 * starts with one keeps it first: rotated, fp64 4352 (17x16x16) lost 5.8 points of copy
 * bandwidth on an H200, 1984 (31x16x4) 7.0, fp32 1984 5.3, 667 (29x23) 3.8, the 4092-point
 * rows of 5760 x 4092 (31x22x6) 0.5, while fp32 17408 (32x32x17 -> 17x32x32) gained 2.5. */
static int prime_radix_above_13(int r) { return r > 13 && largest_prime_factor(r) == r; }

int zipfft__rotated_radices(const zipfft__kernel_spec *s, const zipfft__target *t,
                            zipfft__kernel_spec *out) {
  int last = s->pass_count - 1;
  if (!plain_c2c_rows(s) || last < 1 || s->radices[last] >= s->radices[0] ||
      (s->n & (s->n - 1)) == 0 || prime_radix_above_13(s->radices[0]) ||
      named_radices(s).count > 0 || !rotation_wanted(t))
    return 0;
  zipfft__kernel_spec rotated = *s;
  rotated.radices[0] = s->radices[last];
  for (int p = 1; p <= last; p++) rotated.radices[p] = s->radices[p - 1];
  if (!holds_values(rotated.n, rotated.radices, rotated.pass_count, rotated.threads_per_fft))
    return 0;
  choose_shared_twiddles(&rotated, t);
  if (zipfft__c2c_shared_bytes(&rotated) > t->max_shared_bytes) return 0;
  *out = rotated;
  return 1;
}

int zipfft__size_single_kernel(zipfft__kernel_spec *s, int64_t transforms,
                               const zipfft__target *t) {
  s->bluestein_n = 0;
  s->rader_n = 0;
  s->rader_by_element = 0;
  if (s->n > 32 * max_threads_per_fft) return 0;
  factorization f = chosen_radices(s);
  zipfft__kernel_spec named = *s; /* sized apart: a failed sizing leaves s as it was */
  if (f.count > 0 && size_smooth(&named, f, transforms, t)) {
    *s = named;
    return 1;
  }
  f = factorize(s);
  if (f.count > 0 &&
      (size_mirrored_radix_16(s, transforms, t) || size_unstaged_large_radix(s, transforms, t)))
    return 1;
  if (f.count > 0) return size_smooth(s, f, transforms, t);
  if (size_direct_prime(s, transforms, t)) return 1;
  /* Half-length real passes too: the R2C split reads Rader's permuted slots, the C2R
   * merge writes them. */
  if (size_rader(s, transforms, t)) return 1;
  if (zipfft__kind_is_half(s->kind)) return 0;
  /* A prime factor above 31: Bluestein's method inside the kernel. */
  int64_t n = s->n; /* the preferred padded length, then the 7-smooth one */
  zipfft__chirp_half half = zipfft__chirp_half_of(s->kind);
  if (zipfft__chirp_least_padding(n, half) > 32 * max_threads_per_fft) return 0;
  const int64_t padded[2] = {bluestein_kernel_length(s->precision, n, half),
                             zipfft__bluestein_length(n, half)};
  zipfft__chirp_half given = s->chirp_half;
  s->bluestein_n = n;
  s->chirp_half = half;
  for (int i = 0; i < 2 && (i == 0 || padded[1] != padded[0]); i++) {
    s->n = padded[i];
    f = factorize(s);
    if (f.count > 0 && size_smooth(s, f, transforms, t)) {
      zipfft__choose_convolution_in_place(s);
      return 1;
    }
  }
  s->n = n;
  s->bluestein_n = 0;
  s->chirp_half = given;
  return 0;
}
