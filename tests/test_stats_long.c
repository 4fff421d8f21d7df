/* test_stats_long.c - the 2DTM statistics of a correlation plan after 10^7 signals against
 * sums in double (relative error at most 1e-6), and the best index of a planted maximum.
 * A program of its own: too slow under compute-sanitizer, which runs the other tests. */
#include <math.h>
#include <stdlib.h>

#include "device.h"
#include "test_util.h"

/* The statistics over 10^7 signals (the accuracy requirement): a rank-1 filter f
 * (positive) correlated with one-point signals a_j, so output x of signal j is f[x] a_j;
 * the mean over every signal must match sum_j f[x] a_j / N, computed in double, to 1e-6
 * relative, the deviation to 1e-5, the maximum f[x] max_j a_j to 1e-6 and the z-score
 * (maximum - mean) / deviation to 2e-5 (the deviation's gate, twice), and the best index must be
 * the largest a_j's. */
static void check_long_accumulation(void) {
  enum { length = 8, batch = 1024 };
  const int64_t calls = 9766; /* 10,000,384 signals */
  int64_t L = length, one = 1;
  zipfft_corr_config cfg = {
      .mode = ZIPFFT_CORRELATE, .region = ZIPFFT_REGION_FULL, .backend = zt_zipfft_backend()};
  zipfft_corr c = NULL;
  ZT_OK(zipfft_corr_create(&c, ZIPFFT_F32, 1, &L, &one, batch, &cfg));
  if (!c) return;
  float f[length], a[batch];
  for (int x = 0; x < length; x++) f[x] = 1.0f + (float)x / 8;
  void *df = zt_mem_alloc(sizeof f), *da = zt_mem_alloc(sizeof a);
  zt_mem_upload(df, f, sizeof f);
  ZT_OK(zipfft_corr_set_filter(c, df));
  ZT_OK(zipfft_corr_stats_reset(c, NULL));
  double sum = 0, squares = 0, best = -1;
  int64_t best_index = -1;
  for (int64_t call = 0; call < calls; call++) {
    for (int j = 0; j < batch; j++) {
      a[j] = (float)(1.0 + zt_uniform(0xACC + (uint64_t)call, (uint64_t)j));
      if (call == 5000 && j == 77) a[j] = 2.5f; /* one clear maximum (near-ties aside) */
      sum += a[j], squares += (double)a[j] * a[j];
      if (a[j] > best) best = a[j], best_index = call * batch + j;
    }
    zt_mem_upload(da, a, sizeof a);
    ZT_OK(zipfft_corr_accumulate(c, da, batch, (int32_t)(call * batch), NULL));
  }
  float mean[length], sd[length], max[length], z[length];
  int32_t index[length];
  ZT_OK(zipfft_corr_finalize(c, max, index, mean, sd, z));
  double n = (double)(calls * batch), worst_mean = 0, worst_sd = 0, worst_max = 0, worst_z = 0;
  for (int x = 0; x < length; x++) {
    double mu = f[x] * sum / n, var = (double)f[x] * f[x] * squares / n - mu * mu;
    double top = f[x] * best, zscore = (top - mu) / sqrt(var);
    worst_mean = zt_worse(worst_mean, fabs(mean[x] - mu) / mu);
    worst_sd = zt_worse(worst_sd, fabs(sd[x] - sqrt(var)) / sqrt(var));
    worst_max = zt_worse(worst_max, fabs(max[x] - top) / top);
    worst_z = zt_worse(worst_z, fabs(z[x] - zscore) / zscore);
    ZT_CHECK(index[x] == best_index, "position %d: best index %d, expected %lld", x, index[x],
             (long long)best_index);
  }
  printf(
      "  10^7 accumulations: mean relative error %.3g, deviation %.3g, maximum %.3g, "
      "z-score %.3g\n",
      worst_mean, worst_sd, worst_max, worst_z);
  ZT_CHECK(worst_max <= 1e-6, "maximum after 10^7 signals: relative error %.3g", worst_max);
  ZT_CHECK(worst_z <= 2e-5, "z-score after 10^7 signals: relative error %.3g", worst_z);
  ZT_CHECK(worst_mean <= 1e-6, "mean after 10^7 signals: relative error %.3g", worst_mean);
  ZT_CHECK(worst_sd <= 1e-5, "deviation after 10^7 signals: relative error %.3g", worst_sd);
  zt_mem_free(df), zt_mem_free(da);
  zipfft_corr_destroy(c);
}

int main(void) {
  if (!zt_device_ready()) return zt_finish("test_stats_long", 0);
  check_long_accumulation();
  return zt_finish("test_stats_long", 1);
}
