/* test_plan_sweep.c - every 1D length of a range plans, for C2C, R2C and C2R in fp32 and
 * fp64, into kernels the generator accepts (zipfft__check_spec), on the targets of an H100
 * and an H200: the planner never picks a kernel that plan creation would refuse as
 * INTERNAL; and each prime takes the method the docs state (Rader or Bluestein).
 * Decomposition only: nothing is generated or compiled, so the sweep is cheap.
 * Quick tier: lengths 1..30000; full tier: 1..70000, and the same lengths as the column
 * axis of 2D shapes n x 3 and n x 1000. */
#include <stdio.h>
#include <stdlib.h>

#include "api/desc.h"
#include "gen/build_context.h"
#include "plan/strategy.h"
#include "test_util.h"

/* Hopper limits (227 KiB of shared memory per block, clusters of 8) with the H100's and the
 * H200's memory bandwidth per multiprocessor (slow and fast memory rules). */
static const zipfft__target targets[] = {{232448, 8, 25000000000ull, 1},
                                         {232448, 8, 37000000000ull, 1}};
static const struct {
  zipfft_type type;
  zipfft_precision precision;
  const char *name;
} kinds[] = {{ZIPFFT_C2C, ZIPFFT_F32, "c2c f32"}, {ZIPFFT_C2C, ZIPFFT_F64, "c2c f64"},
             {ZIPFFT_R2C, ZIPFFT_F32, "r2c f32"}, {ZIPFFT_R2C, ZIPFFT_F64, "r2c f64"},
             {ZIPFFT_C2R, ZIPFFT_F32, "c2r f32"}, {ZIPFFT_C2R, ZIPFFT_F64, "c2r f64"}};

/* The decomposition of length n of kind k on target t, as a 1D transform (rows 0) or as
 * the first axis of an n x rows 2D one; *strategy NULL when none applies. */
static zipfft_status decompose(int k, int64_t n, int64_t rows, const zipfft__target *t,
                               const zipfft__strategy **strategy, zipfft__decomposition *dec) {
  zipfft_desc d = NULL;
  zipfft__layout layout;
  int64_t shape[2] = {n, rows};
  *strategy = NULL;
  zipfft_status s = zipfft_desc_create(&d, kinds[k].type, kinds[k].precision, rows ? 2 : 1, shape);
  if (s == ZIPFFT_SUCCESS) s = zipfft__desc_layout(d, &layout);
  if (s == ZIPFFT_SUCCESS) *strategy = zipfft__choose_strategy(d, t, &s);
  if (*strategy) s = (*strategy)->make(d, &layout, t, dec);
  zipfft_desc_destroy(d);
  return s;
}

/* Plans length n of kind k on target t, as a 1D transform (rows 0) or as the first axis of
 * an n x rows 2D one; reports and returns 0 when planning fails or a kernel is one the
 * generator refuses. */
static int plans_valid(int k, int64_t n, int64_t rows, const zipfft__target *t) {
  zipfft__decomposition dec;
  const zipfft__strategy *strategy;
  zipfft_status s = decompose(k, n, rows, t, &strategy, &dec);
  const char *refused = NULL;
  for (int i = 0; strategy && s == ZIPFFT_SUCCESS && !refused && i < dec.kernel_count; i++)
    refused = zipfft__check_spec(&dec.kernels[i]);
  ZT_CHECK(strategy && s == ZIPFFT_SUCCESS && !refused, "%s n=%lld x %lld (%s memory): %s",
           kinds[k].name, (long long)n, (long long)rows, t == &targets[0] ? "slow" : "fast",
           refused               ? refused
           : s != ZIPFFT_SUCCESS ? zipfft_status_name(s)
                                 : "no strategy");
  return strategy && s == ZIPFFT_SUCCESS && !refused;
}

/* Bluestein's padded lengths through the workspace on the H200's target (the kinds' index,
 * the kernels, the first two kernels' lengths): R2C and C2R pad to N + N/2 (fp32 1048573:
 * 1024 x 1536 against C2C's 1024 x 2048); where the smallest 7-smooth length has no good
 * split in two, to N0 times the longest power-of-two row, in three kernels (fp32 16777259:
 * C2C 2058 x 16384, R2C 1568 x 16384; fp64 4194319: C2C 1029 x 8192, C2R 784 x 8192; fp32
 * 4194319 C2C 525 x 16384 and R2C 392 x 16384, fp64 524309 135 x 8192, which had wide
 * splits), and with ZIPFFT_BLUESTEIN_LONG_ROWS=0 as two four-steps of the smooth length
 * (6 kernels). */
static void check_bluestein_lengths(void) {
  static const struct {
    int kind, kernels;
    int64_t n, first, middle;
  } expected[] = {
      {0, 3, 1048573, 1024, 2048},   {2, 3, 1048573, 1024, 1536},   {4, 3, 1048573, 1024, 1536},
      {0, 3, 16777259, 2058, 16384}, {2, 3, 16777259, 1568, 16384}, {1, 3, 4194319, 1029, 8192},
      {5, 3, 4194319, 784, 8192},    {0, 6, 16777259, 320, 324},    {0, 3, 4194319, 525, 16384},
      {2, 3, 4194319, 392, 16384},   {1, 3, 524309, 135, 8192}};
  for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
    int smooth = expected[i].kernels == 6;
    if (smooth) setenv("ZIPFFT_BLUESTEIN_LONG_ROWS", "0", 1);
    zipfft__decomposition dec;
    const zipfft__strategy *strategy;
    zipfft_status s = decompose(expected[i].kind, expected[i].n, 0, &targets[1], &strategy, &dec);
    unsetenv("ZIPFFT_BLUESTEIN_LONG_ROWS");
    int64_t count = 0, first = 0, middle = 0;
    if (strategy && s == ZIPFFT_SUCCESS && dec.kernel_count > 1)
      count = dec.kernel_count, first = dec.kernels[0].n, middle = dec.kernels[1].n;
    ZT_CHECK(
        count == expected[i].kernels && first == expected[i].first && middle == expected[i].middle,
        "Bluestein length %lld (kind %d): %lld kernels, %lld x %lld", (long long)expected[i].n,
        expected[i].kind, (long long)count, (long long)first, (long long)middle);
  }
}

/* 1 when n is prime (trial division: n below 2^31). */
static int is_prime(int64_t n) {
  if (n < 2) return 0;
  for (int64_t d = 2; d * d <= n; d++)
    if (n % d == 0) return 0;
  return 1;
}

/* Lengths beyond one kernel with a large prime factor (the primes after 2^j (1 + q/4), and
 * twice and three times them: even real lengths whose half is Bluestein's), 2^19 to 2^27,
 * plan on both targets for every kind: Bluestein's padded lengths, their splits (long rows
 * included) and the route around them. */
static void check_long_bluestein_plans(void) {
  int64_t failed = 0, lengths = 0;
  for (int j = 19; j <= 26; j++)
    for (int q = 0; q < 4; q++) {
      int64_t p = ((int64_t)1 << j) + ((int64_t)q << (j - 2)) + 1;
      while (!is_prime(p)) p++;
      for (int64_t times = 1; times <= 3; times++, lengths++)
        for (size_t t = 0; t < sizeof targets / sizeof *targets; t++)
          for (size_t k = 0; k < sizeof kinds / sizeof *kinds && failed < 20; k++)
            failed += !plans_valid((int)k, p * times, 0, &targets[t]);
    }
  printf("test_plan_sweep: %lld long Bluestein lengths, 6 kinds, 2 targets\n", (long long)lengths);
}

/* The method each prime p from 37 to 4099 takes, as C2C of p and as R2C and C2R of 2p (whose
 * half length is p), in fp32 and fp64 on both targets, as docs/architecture.md states it:
 * Rader's where p - 1 is 31-smooth (the real kinds on their half length), Bluestein's
 * otherwise (the real kinds on their whole length), except fp64 C2C 37, 41 and 43,
 * one butterfly of that radix. A prime that quietly fell from Rader to Bluestein would still
 * pass the accuracy gates. */
static int prime_method_ok(int k, int64_t p, const zipfft__target *t, int rader, int butterfly) {
  zipfft__decomposition dec;
  const zipfft__strategy *strategy;
  int64_t n = kinds[k].type == ZIPFFT_C2C ? p : 2 * p; /* Rader on the half, Bluestein on n */
  zipfft_status s = decompose(k, n, 0, t, &strategy, &dec);
  int has_rader = 0, has_bluestein = 0;
  for (int i = 0; strategy && s == ZIPFFT_SUCCESS && i < dec.kernel_count; i++)
    has_rader |= dec.kernels[i].rader_n == p, has_bluestein |= dec.kernels[i].bluestein_n == n;
  return strategy && s == ZIPFFT_SUCCESS && has_rader == rader &&
         has_bluestein == (!rader && !butterfly);
}

static void check_prime_methods(void) {
  int64_t checked = 0, failed = 0;
  for (int64_t p = 37; p <= 4099 && failed < 10; p++) {
    if (!is_prime(p)) continue;
    for (int k = 0; k < (int)(sizeof kinds / sizeof *kinds); k++)
      for (size_t t = 0; t < sizeof targets / sizeof *targets; t++, checked++) {
        int butterfly = k == 1 && p <= 43, rader = !butterfly && zt_is_31_smooth(p - 1);
        int ok = prime_method_ok(k, p, &targets[t], rader, butterfly);
        failed += !ok;
        ZT_CHECK(ok, "%s of prime %lld (%s memory): expected %s", kinds[k].name, (long long)p,
                 t ? "fast" : "slow",
                 butterfly ? "one butterfly"
                 : rader   ? "Rader"
                           : "Bluestein");
      }
  }
  printf("test_plan_sweep: %lld prime plans' methods\n", (long long)checked);
}

/* Long lengths of other shapes, to 2^27, plan on both targets for every kind: the largest
 * power of two, odd prime powers, two large primes (both Bluestein), a large prime beside
 * small ones, many small primes, and their doubles (real halves of the same shapes). */
static void check_long_composite_plans(void) {
  static const int64_t lengths[] = {(int64_t)1 << 27,
                                    ((int64_t)1 << 27) - 1 /* 7 x 73 x 262657 */,
                                    129140163 /* 3^17 */,
                                    48828125 /* 5^11 */,
                                    40353607 /* 7^9 */,
                                    134203877 /* 10007 x 13411 */,
                                    100000000,
                                    9699690 /* 2 x 3 x ... x 19 */,
                                    67092481 /* 8191^2 */};
  int64_t failed = 0, count = 0;
  for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
    for (int64_t times = 1; times <= 2 && lengths[i] * times <= ((int64_t)1 << 27);
         times++, count++)
      for (size_t t = 0; t < sizeof targets / sizeof *targets; t++)
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds && failed < 20; k++)
          failed += !plans_valid((int)k, lengths[i] * times, 0, &targets[t]);
  printf("test_plan_sweep: %lld long composite lengths, 6 kinds, 2 targets\n", (long long)count);
}

int main(void) {
  check_bluestein_lengths();
  check_long_bluestein_plans();
  check_long_composite_plans();
  check_prime_methods();
  int full = zt_full_tier();
  int64_t last = full ? 70000 : 30000, failed = 0;
  static const int64_t rows[] = {0, 3, 1000}; /* 1D; columns of n x 3 and n x 1000 */
  for (size_t r = 0; r < (full ? 3u : 1u); r++)
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++)
      for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (int64_t n = 1; n <= last && failed < 20; n++)
          failed += !plans_valid((int)k, n, rows[r], &targets[t]);
  printf("test_plan_sweep: lengths 1..%lld, 6 kinds, 2 targets%s\n", (long long)last,
         full ? ", 1D and the columns of n x 3 and n x 1000" : ", 1D");
  return zt_finish("test_plan_sweep", 1);
}
