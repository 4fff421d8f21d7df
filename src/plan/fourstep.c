/* fourstep.c - strategy: a rank-1 C2C length too long for one kernel, split as
 * N = N0 * N1 * ... * N(P-1) with one kernel per factor (Bailey's four-step, generalised).
 *
 * Kernel i < P-1 transforms columns of length Ni at stride Mi = N(i+1)*...*N(P-1) inside
 * each block of Ni*Mi elements, neighbouring threads on neighbouring columns (coalesced),
 * and multiplies output k of column m by exp(sign 2 pi i m k / (Ni*Mi)) while storing. The
 * last kernel transforms the contiguous rows of length N(P-1) and stores them transposed
 * (output k0 + N0*k1 + N0*N1*k2 ...) through shared memory, neighbouring threads on
 * neighbouring rows. The first kernel reads the input, the last writes the output, and the
 * data in between live in the plan's workspace: every kernel reads and writes each element
 * once, P reads and P writes in all. */
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "plan/fourstep.h"
#include "plan/pair.h"
#include "plan/single.h"
#include "plan/tuning.h"

enum { max_factors = 4 };

typedef struct split {
  int count;
  int64_t factors[max_factors];
} split;

/* 1 when a transform of length n fits one kernel (as a column pass) on the target. */
static int fits_one_kernel(zipfft_precision precision, int64_t n, const zipfft__target *t) {
  int64_t cap = zipfft__single_kernel_cap();
  if (n < 2 || (cap > 0 && n > cap)) return 0;
  zipfft__kernel_spec s = {.kind = ZIPFFT__KIND_C2C,
                           .precision = precision,
                           .sign = -1,
                           .n = n,
                           .in_stride = 1024,
                           .out_stride = 1024,
                           .batch_dims = 2,
                           .batch_counts = {1, 1024},
                           .batch_in_strides = {1024 * n, 1},
                           .batch_out_strides = {1024 * n, 1},
                           .fft_major = 1,
                           .scale = 1.0};
  return zipfft__size_single_kernel(&s, 1024, t);
}

/* Largest factors, in bytes of one transform, that run near the memory bandwidth in
 * their role (measured on an H200, fp32): a column kernel needs at least 8 neighbouring
 * columns per block within a third of the shared memory (1024 points: 76% of the copy
 * bandwidth per pass; 4096 points, 4 columns per block: 33% of the DRAM bandwidth); the
 * row kernel needs 4 rows per block for its transposed stores. 2^24 as 256 x 256 x 256
 * ran at 1.02x cuFFT's speed, as 4096 x 4096 at 0.93x. */
enum { good_column_bytes = 8 * 1024, good_row_bytes = 32 * 1024 };

/* Rank-1 C2C plans whose length has no split in two within the good sizes try a square
 * split in two with columns as large as the rows before a split in three, on devices of
 * slow memory (zipfft__slow_memory), where it was measured; on an H200 (session 4, before
 * the chained twiddles) fp32 2^24 ran at 0.93x cuFFT as 4096 x 4096 and at 1.02x as
 * 256 x 256 x 256. Measured on an H100 with the chained twiddles (session 32), against
 * the split chosen without it: fp32 2^24 4096 x 4096 1.03x cuFFT (256 x 256 x 256, the
 * last two paired: 0.98x), fp64 2^22 2048 x 2048 0.99x (0.92x). Preferring squares where
 * a good split in two exists lost
 * (fp32 2^22 as 2048 x 2048: 0.96x, as 1024 x 4096: 1.09x); long-axis routes keep their
 * splits (a C2R 2^24 route's half, 2^23, ran at 0.91x as 2048 x 4096 and 1.19x as
 * 128 x 256 x 256). Tuning: ZIPFFT_SQUARE_SPLIT=0 turns it off. */
static int square_split_allowed(void) {
  const char *env = getenv("ZIPFFT_SQUARE_SPLIT");
  return !(env && *env == '0');
}

/* The largest root with root^count <= n (n >= 1). */
static int64_t largest_root(int64_t n, int count) {
  int64_t root = 1;
  while (1) {
    int64_t next = root + 1, power = 1;
    for (int i = 0; i < count && power <= n; i++) power *= next;
    if (power > n) return root;
    root = next;
  }
}

/* The square split in two of n, its columns within good_row_bytes; 0 when n is no square
 * of a length that fits one kernel. */
static int square_split(zipfft_precision precision, int64_t n, const zipfft__target *t,
                        split *out) {
  int64_t bytes = (int64_t)zipfft__complex_bytes(precision, ZIPFFT_STORAGE_DEFAULT),
          f = largest_root(n, 2);
  if (f * f != n || f * bytes > good_row_bytes || !fits_one_kernel(precision, f, t)) return 0;
  *out = (split){.count = 2, .factors = {f, f}};
  return 1;
}

/* Bytes of one transform a split's factors may have in their role (0: any that fits one
 * kernel): the good sizes, or with loose_two columns as large as the rows. */
typedef struct split_limits {
  int64_t column_bytes, row_bytes;
} split_limits;

static const split_limits good_limits = {good_column_bytes, good_row_bytes},
                          wide_column_limits = {good_row_bytes, good_row_bytes},
                          any_limits = {0, 0};

/* Splits n into `count` factors that each fit one kernel and stay within the limits of
 * their role, the first ones as large as the balance allows (each the largest divisor not
 * above the count-th root of what is left); 0 when impossible. */
static int split_into(zipfft_precision precision, int64_t n, int count, split_limits limits,
                      const zipfft__target *t, split *out) {
  int64_t bytes = (int64_t)zipfft__complex_bytes(precision, ZIPFFT_STORAGE_DEFAULT);
  if (count == 1) {
    if (!fits_one_kernel(precision, n, t) || (limits.row_bytes && n * bytes > limits.row_bytes))
      return 0;
    out->factors[out->count++] = n;
    return 1;
  }
  for (int64_t f = largest_root(n, count); f >= 2; f--) {
    if (n % f != 0 || (limits.column_bytes && f * bytes > limits.column_bytes) ||
        !fits_one_kernel(precision, f, t))
      continue;
    int saved = out->count;
    out->factors[out->count++] = f;
    if (split_into(precision, n / f, count - 1, limits, t, out)) return 1;
    out->count = saved;
  }
  return 0;
}

/* C2R routes (zipfft__fourstep_job short_first; every device since session 87, H100 numbers
 * in plan/long_axis.c takes_short_merge) split their half
 * length with short merge columns: their first kernel merges the half spectrum's row pairs
 * (paired_rows), and a 1024-point merge column holds a multiprocessor alone where a
 * 256-point one runs many blocks a multiprocessor. H200, C2R % of the copy bandwidth,
 * balanced split -> short (session 57, docs/perf/2026-12-03-h200-short-merge-columns.md):
 * fp32 2^19 33.4 -> 37.0 (256 x 1024), 2^21 25.7 -> 32.1 (256 x 4096), 2^22 24.0 -> 27.7
 * (512 x 4096); fp64 2^19 33.7 -> 36.1. Shorter than 256 gained nothing or lost; R2C keeps
 * the balanced split (fp32 2^21 as 256 x 4096: 1.25x -> 1.02x cuFFT). */
enum { short_first_points = 256 };

/* Rows a short-first split may take where no good split in two exists, before a split in
 * three; longer than good_row_bytes in fp64 only (64 KiB). fp64 C2R 2^22 as 512 x 4096:
 * 26.7 -> 29.0-29.2% of copy against 128 x 128 x 128; fp32 rows of 8192 points lost (2^22:
 * 19.1%). */
enum { long_row_points = 4096 };

/* The limits of a short-first split with rows of long_row_points. */
static split_limits long_row_limits(zipfft_precision precision) {
  int64_t bytes = (int64_t)zipfft__complex_bytes(precision, ZIPFFT_STORAGE_DEFAULT);
  int64_t rows = long_row_points * bytes;
  return (split_limits){good_column_bytes, rows > good_row_bytes ? rows : good_row_bytes};
}

/* The split in two of n whose first factor is the shortest of at least short_first_points
 * (and at most the second) with both factors within the limits of their role and fitting
 * one kernel; 0 when there is none. */
static int split_short_first(zipfft_precision precision, int64_t n, split_limits limits,
                             const zipfft__target *t, split *out) {
  int64_t bytes = (int64_t)zipfft__complex_bytes(precision, ZIPFFT_STORAGE_DEFAULT);
  for (int64_t f = short_first_points; f <= n / f; f++) {
    if (limits.column_bytes && f * bytes > limits.column_bytes) break; /* f only grows */
    int64_t rest = n / f;
    if (n % f != 0 || (limits.row_bytes && rest * bytes > limits.row_bytes) ||
        !fits_one_kernel(precision, f, t) || !fits_one_kernel(precision, rest, t))
      continue;
    *out = (split){.count = 2, .factors = {f, rest}};
    return 1;
  }
  return 0;
}

/* The split ZIPFFT_FOURSTEP_SPLIT names (tuning: factors first to last, such as 4096x2048)
 * when their product is n and each fits one kernel; count 0 otherwise. */
static split named_split(zipfft_precision precision, int64_t n, const zipfft__target *t) {
  split s = {0};
  const char *env = getenv("ZIPFFT_FOURSTEP_SPLIT");
  int64_t product = 1;
  for (const char *at = env; at && *at && s.count < max_factors;) {
    char *end = NULL;
    long long f = strtoll(at, &end, 10);
    if (end == at || f < 2 || !fits_one_kernel(precision, f, t)) return (split){0};
    s.factors[s.count++] = f;
    product *= f;
    at = *end == 'x' ? end + 1 : end + strlen(end);
  }
  return s.count >= 2 && product == n ? s : (split){0};
}

/* The split with the fewest kernels (2 to max_factors) whose factors are all good for
 * their role (with short_first, split_short_first's split in two before the others; with
 * square, a square split in two after the good splits in two; with loose_two, a split in
 * two whose columns are as large as the rows may be, after them), else the fewest kernels
 * of any size; count 0 when none exists. short_first changes the factors, and where no
 * good split in two exists may take one with rows of long_row_points instead of a split in
 * three. */
static split choose_split(zipfft_precision precision, int64_t n, int square, int loose_two,
                          int short_first, const zipfft__target *t) {
  split s = named_split(precision, n, t);
  if (s.count > 0) return s;
  int fewest =
      zipfft__tuning_int("ZIPFFT_FOURSTEP_FACTORS", 2); /* tuning: the fewest factors tried */
  const char *loose = getenv("ZIPFFT_FOURSTEP_STRICT"); /* tuning: 0 ignores the good sizes */
  split_limits long_rows = long_row_limits(precision);
  int try_long_rows = short_first && long_rows.row_bytes > good_row_bytes;
  for (int strict = loose && *loose == '0' ? 0 : 1; strict >= 0; strict--)
    for (int count = fewest < 2 ? 2 : fewest; count <= max_factors; count++) {
      s.count = 0;
      if (strict && count == 2 && short_first &&
          split_short_first(precision, n, good_limits, t, &s))
        return s;
      s.count = 0;
      if (split_into(precision, n, count, strict ? good_limits : any_limits, t, &s)) return s;
      s.count = 0;
      if (strict && count == 2 && try_long_rows &&
          split_short_first(precision, n, long_rows, t, &s))
        return s;
      if (strict && count == 2 && square && zipfft__slow_memory(t) && square_split_allowed() &&
          square_split(precision, n, t, &s))
        return s;
      s.count = 0;
      if (strict && count == 2 && loose_two &&
          split_into(precision, n, 2, wide_column_limits, t, &s))
        return s;
    }
  s.count = 0;
  return s;
}

int zipfft__fourstep_kernels(zipfft_precision precision, int64_t n, int loose_two, int short_first,
                             const zipfft__target *t) {
  return choose_split(precision, n, 0, loose_two, short_first, t).count;
}

static int fourstep_applicable(const struct zipfft_desc_s *d, const zipfft__target *t) {
  if (d->rank != 1 || d->type != ZIPFFT_C2C || zipfft__desc_has_extents(d) ||
      d->load_callback.function || d->store_callback.function || zipfft__axis_supported(d, 0, t))
    return 0; /* extents, callbacks: the axes strategy's gather and scatter take them */
  return zipfft__fourstep_kernels(d->precision, d->lengths[0], 0, 0, t) > 0;
}

/* Product of factors [from, to). */
static int64_t product(const split *sp, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; i++) p *= sp->factors[i];
  return p;
}

/* Period of the chained four-step twiddles (kernel_spec twiddle_chain; tuning:
 * ZIPFFT_TWIDDLE_CHAIN, 1 reads every twiddle). Measured on an H100 (fp32, against a table
 * read per output): fp32 2^20 47.5 -> 52.2% of the copy bandwidth with 8 (52.3% with 16),
 * 2^27 24.5 -> 28.5%; relative L2 error at 2^20 2.0e-7 -> 2.1e-7 (2.5e-7 with 16). */
enum { default_twiddle_chain = 8 };
static int twiddle_chain_period(void) {
  return zipfft__tuning_int("ZIPFFT_TWIDDLE_CHAIN", default_twiddle_chain);
}

/* Kernel i < P-1: columns of length Ni at stride Mi, batch = (the job's batch, the blocks
 * of Ni*Mi elements before, the columns), twiddles fused into the stores. */
static void column_spec(const zipfft__fourstep_job *job, const split *sp, int i,
                        zipfft__kernel_spec *s) {
  int64_t n = job->n, stride = i == 0 ? job->in_stride : 1, dist = i == 0 ? job->in_dist : n,
          m = product(sp, i + 1, sp->count), blocks = product(sp, 0, i);
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = job->precision,
                             .sign = job->sign,
                             .n = sp->factors[i],
                             .in_stride = m * stride,
                             .out_stride = m,
                             .fft_major = 1,
                             .in_storage = i == 0 ? job->in_storage : ZIPFFT_STORAGE_DEFAULT,
                             .out_storage = ZIPFFT_STORAGE_DEFAULT,
                             .scale = 1.0,
                             .twiddle_length = sp->factors[i] * m,
                             .twiddle_chain = twiddle_chain_period()};
  int b = 0;
  s->batch_counts[b] = job->batch, s->batch_in_strides[b] = dist, s->batch_out_strides[b++] = n;
  if (blocks > 1) {
    s->batch_counts[b] = blocks;
    s->batch_in_strides[b] = sp->factors[i] * m * stride;
    s->batch_out_strides[b++] = sp->factors[i] * m;
  }
  s->batch_counts[b] = m, s->batch_in_strides[b] = stride, s->batch_out_strides[b++] = 1;
  s->batch_dims = b;
}

/* The last kernel: contiguous rows of length N(P-1); batch = (the job's batch, k(P-2),
 * ..., k0) so that neighbouring transforms are neighbours in the output (k0 has stride 1). */
static void row_spec(const zipfft__fourstep_job *job, const split *sp, zipfft__kernel_spec *s) {
  int last = sp->count - 1;
  int64_t n = job->n, out_stride = job->out_stride;
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = job->precision,
                             .sign = job->sign,
                             .n = sp->factors[last],
                             .in_stride = 1,
                             .out_stride = product(sp, 0, last) * out_stride,
                             .store_major = 1,
                             .in_storage = ZIPFFT_STORAGE_DEFAULT,
                             .out_storage = job->out_storage,
                             .scale = job->scale};
  int b = 0;
  s->batch_counts[b] = job->batch, s->batch_in_strides[b] = n,
  s->batch_out_strides[b++] = job->out_dist;
  for (int j = last - 1; j >= 0; j--, b++) {
    s->batch_counts[b] = sp->factors[j];
    s->batch_in_strides[b] = product(sp, j + 1, sp->count);
    s->batch_out_strides[b] = product(sp, 0, j) * out_stride;
  }
  s->batch_dims = b;
}

/* A split in two transposed (ZIPFFT_TRANSPOSED_SPLIT=1, tuning; not planned by default, not
 * yet measured): the first kernel stores each column's outputs as a row of the intermediate
 * (Y[k0 + N0 c], c the column), so that the last kernel is a column kernel too (its columns
 * k0 side by side, elements N0 apart), storing X[k0 + N0 k1] as columns instead of rows
 * stored transposed. Planned only where both kernels run as cluster column kernels
 * (ZIPFFT_CLUSTER_COLUMNS): each then reads whole 128-byte lines of its columns, the first
 * stores runs along k and the last whole lines, where the plain split's row kernel stores
 * segments as wide as its block's rows (fp32 4096 x 4096: 32 bytes). ZIPFFT_TRANSPOSED_SPLIT=2
 * plans it whatever the kernels size as (plain column kernels too: the tests' small splits). */
static int transposed_split_mode(void) { return zipfft__tuning_int("ZIPFFT_TRANSPOSED_SPLIT", 0); }

/* 1 when a four-step's kernels in dec end in a column kernel: a transposed split (every
 * other split ends in its row kernel, which stores by neighbouring transforms: store_major,
 * and is fft_major too where it reads its rows from tiles). */
static int ends_in_columns(const zipfft__decomposition *dec) {
  const zipfft__kernel_spec *last = &dec->kernels[dec->kernel_count - 1];
  return last->fft_major && !last->store_major;
}

/* The first kernel of a transposed split: the column kernel, its outputs along k. */
static void transposed_first_spec(const zipfft__fourstep_job *job, const split *sp,
                                  zipfft__kernel_spec *s) {
  column_spec(job, sp, 0, s);
  s->out_stride = 1;
  s->batch_out_strides[s->batch_dims - 1] = sp->factors[0];
}

/* The last kernel of a transposed split: columns k0 (N0 of them, side by side) of N1
 * elements N0 apart, stored as X[k0 + N0 k1] in the user's layout. */
static void transposed_last_spec(const zipfft__fourstep_job *job, const split *sp,
                                 zipfft__kernel_spec *s) {
  int64_t n0 = sp->factors[0];
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = job->precision,
                             .sign = job->sign,
                             .n = sp->factors[1],
                             .in_stride = n0,
                             .out_stride = n0 * job->out_stride,
                             .fft_major = 1,
                             .in_storage = ZIPFFT_STORAGE_DEFAULT,
                             .out_storage = job->out_storage,
                             .scale = job->scale,
                             .batch_dims = 2,
                             .batch_counts = {job->batch, n0},
                             .batch_in_strides = {job->n, 1},
                             .batch_out_strides = {job->out_dist, job->out_stride}};
}

/* Appends the transposed split of sp (a split in two; the caller has checked that its kernels
 * fit dec) when it is wanted and both its kernels size as cluster column kernels (or, mode 2,
 * as any kernels); 0 (out untouched) otherwise. */
static int append_transposed_split(const zipfft__fourstep_job *job, const split *sp,
                                   const zipfft__target *t, zipfft__array src, zipfft__array via,
                                   zipfft__array dst, zipfft__decomposition *out) {
  int mode = transposed_split_mode();
  if (sp->count != 2 || !job->cluster_columns || mode <= 0) return 0;
  zipfft__kernel_spec k[2];
  int64_t transforms[2] = {job->batch * sp->factors[1], job->batch * sp->factors[0]};
  transposed_first_spec(job, sp, &k[0]);
  transposed_last_spec(job, sp, &k[1]);
  for (int i = 0; i < 2; i++)
    if (!zipfft__size_single_kernel(&k[i], transforms[i], t) ||
        (!zipfft__size_cluster_columns(&k[i], transforms[i], t) && mode == 1))
      return 0;
  for (int i = 0; i < 2; i++) {
    int at = out->kernel_count++;
    out->kernels[at] = k[i];
    out->transforms[at] = transforms[i];
    out->src[at] = i == 0 ? src : via;
    out->dst[at] = i == 0 ? via : dst;
  }
  return 1;
}

zipfft_status zipfft__fourstep_append(const zipfft__fourstep_job *job, const zipfft__target *t,
                                      zipfft__array src, zipfft__array via, zipfft__array dst,
                                      zipfft__decomposition *out) {
  split sp =
      choose_split(job->precision, job->n, job->square_split, job->loose_two, job->short_first, t);
  if (sp.count == 0)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "no four-step split of %lld", (long long)job->n);
  if (out->kernel_count + sp.count > ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                        "a plan of more than %d kernels (four-step split of %lld)",
                        ZIPFFT__MAX_KERNELS, (long long)job->n);
  if (append_transposed_split(job, &sp, t, src, via, dst, out)) return ZIPFFT_SUCCESS;
  for (int i = 0; i < sp.count; i++) {
    int at = out->kernel_count++, last = i == sp.count - 1;
    zipfft__kernel_spec *s = &out->kernels[at];
    if (last)
      row_spec(job, &sp, s);
    else
      column_spec(job, &sp, i, s);
    out->transforms[at] = job->batch * (job->n / sp.factors[i]);
    if (!zipfft__size_single_kernel(s, out->transforms[at], t))
      return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "four-step factor %lld of %lld does not fit",
                          (long long)sp.factors[i], (long long)job->n);
    if (!last && job->cluster_columns) zipfft__size_cluster_columns(s, out->transforms[at], t);
    out->src[at] = i == 0 ? src : via;
    out->dst[at] = last ? dst : via;
  }
  return ZIPFFT_SUCCESS;
}

/* A Bluestein convolution's middle kernel (split in two N0 x N1 of its padded length N):
 * the contiguous rows k0 of N1 points the first column kernel left (batch: the job's batch,
 * k0), each transformed, multiplied by the filter at spectrum position k0 + N0 k (element k
 * of row k0; the forward split's output index), transformed again and stored in place
 * unconjugated, times exp(sign 2 pi i k0 n / N): a four-step of the conjugated product with
 * its rows first (kernel_spec ZIPFFT__FUSED_BLUESTEIN). The filter's table is in the rows'
 * order (row k0's entries at slots k0 * N1 + k). */
static void filter_row_spec(const zipfft__fourstep_job *job, const split *sp, int64_t chirp_n,
                            zipfft__chirp_half half, zipfft__kernel_spec *s) {
  int64_t n = job->n, n0 = sp->factors[0], n1 = sp->factors[1];
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = job->precision,
                             .sign = job->sign,
                             .n = n1,
                             .in_stride = 1,
                             .out_stride = 1,
                             .in_storage = ZIPFFT_STORAGE_DEFAULT,
                             .out_storage = ZIPFFT_STORAGE_DEFAULT,
                             .scale = 1.0,
                             .twiddle_length = n,
                             .twiddle_chain = twiddle_chain_period(),
                             .fused = ZIPFFT__FUSED_BLUESTEIN,
                             .chirp_n = chirp_n,
                             .chirp_half = half,
                             .filter_n = n,
                             .position_step = 1,
                             .position_steps = {0, n1},
                             .batch_dims = 2,
                             .batch_counts = {job->batch, n0},
                             .batch_in_strides = {n, n1},
                             .batch_out_strides = {n, n1}};
}

/* A Bluestein convolution's last kernel: the N0-point columns (stride N1) of the middle
 * kernel's rows, element k of column m stored at k N1 + m (natural order) in the job's
 * output, with no twiddles. */
static void last_column_spec(const zipfft__fourstep_job *job, const split *sp,
                             zipfft__kernel_spec *s) {
  int64_t n = job->n, n1 = sp->factors[1];
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = job->precision,
                             .sign = job->sign,
                             .n = sp->factors[0],
                             .in_stride = n1,
                             .out_stride = n1 * job->out_stride,
                             .fft_major = 1,
                             .in_storage = ZIPFFT_STORAGE_DEFAULT,
                             .out_storage = job->out_storage,
                             .scale = job->scale,
                             .batch_dims = 2,
                             .batch_counts = {job->batch, n1},
                             .batch_in_strides = {n, 1},
                             .batch_out_strides = {job->out_dist, job->out_stride}};
}

/* Whether Bluestein's kernel i of three reads and writes its data evict-first (kernel_spec
 * streaming_io), so that the tables every row reads stay in L2: the middle kernel's filter
 * (M values) always, the last kernel's chirp (N values) where that table is at least
 * stream_chirp_bytes, the first kernel's never. ZIPFFT_BLUESTEIN_STREAM (tuning) sets the
 * kernels as a mask (1 first, 2 middle, 4 last). Measured on an H200 (cuFFT ratio, masks 0,
 * 2, 6, 7 in one run; Nsight Compute for fp32 1048573 in another): fp32 C2C 1048573 batch
 * 128 (an 8 MiB chirp) 1.80x, 1.86x, 1.95x, 1.90x (kernels 1.45, 1.53, 1.40 ms with none,
 * 1.55, 1.38, 1.20 ms with all three), R2C 1.18x, 1.23x, 1.23x, 1.24x; fp32 C2C 65537 (a
 * 512 KiB chirp, which stays in L2 anyway) 2.26x, 2.27x, 2.23x, 2.26x, fp64 R2C 65537 1.29x,
 * 1.34x, 1.21x, 1.22x. */
enum { stream_chirp_bytes = 4 << 20 };

static int bluestein_streams(int i, const zipfft__fourstep_job *job, int64_t chirp_n) {
  uint64_t chirp =
      (uint64_t)chirp_n * zipfft__complex_bytes(job->precision, ZIPFFT_STORAGE_DEFAULT);
  int mask =
      zipfft__tuning_int("ZIPFFT_BLUESTEIN_STREAM", 2 | (chirp >= stream_chirp_bytes ? 4 : 0));
  return (mask >> i) & 1;
}

/* Rows of Bluestein's middle kernel beyond the good sizes: one row a block, in place, a
 * multiprocessor's shared memory to itself (zipfft__fourstep_long_row_points). */
enum { long_row_bytes = 128 * 1024 };

/* The split in two of Bluestein's three kernels: the job's own where it splits in two,
 * else rows of zipfft__fourstep_long_row_points with columns as large as good rows (fp32
 * C2C 4194319 padded to 525 x 16384: 1.77x cuFFT on an H200, against 1.63x as 2880 x
 * 2916; plan/long_axis.c long_row_length), else columns as large as the rows may be (count
 * 0: none). Measured on an H200
 * against the two four-steps of a split in three (cuFFT ratio): fp64 C2C 1048573 as 1024 x
 * 2048 1.37x instead of 1.08x, R2C 0.90x instead of 0.64x, fp32 C2C 4194319 as 2880 x 2916
 * 1.67x instead of 1.23x; splits with wider columns lost (fp32 16777259 as 5760 x 5832
 * 1.13x instead of 1.15x, fp64 4194319 as 2880 x 2916 0.91x instead of 1.21x). */
static split bluestein_split(const zipfft__fourstep_job *job, const zipfft__target *t) {
  split s =
      choose_split(job->precision, job->n, job->square_split, job->loose_two, job->short_first, t);
  if (s.count == 2) return s;
  int64_t row = zipfft__fourstep_long_row_points(job->precision, t), n = job->n;
  int64_t bytes = (int64_t)zipfft__complex_bytes(job->precision, ZIPFFT_STORAGE_DEFAULT);
  if (row > 0 && n % row == 0 && (n / row) * bytes <= good_row_bytes &&
      fits_one_kernel(job->precision, n / row, t))
    return (split){.count = 2, .factors = {n / row, row}};
  s.count = 0;
  if (split_into(job->precision, job->n, 2, wide_column_limits, t, &s)) return s;
  s.count = 0;
  return s;
}

int zipfft__fourstep_bluestein_fits(const zipfft__fourstep_job *job, const zipfft__target *t) {
  return bluestein_split(job, t).count == 2;
}

int64_t zipfft__fourstep_long_row_points(zipfft_precision precision, const zipfft__target *t) {
  int64_t bytes = (int64_t)zipfft__complex_bytes(precision, ZIPFFT_STORAGE_DEFAULT);
  int64_t row = long_row_bytes / bytes;
  return fits_one_kernel(precision, row, t) ? row : 0;
}

zipfft_status zipfft__fourstep_bluestein_append(const zipfft__fourstep_job *job, int64_t chirp_n,
                                                zipfft__chirp_half half, const zipfft__target *t,
                                                zipfft__array src,
                                                zipfft__array via, zipfft__array dst,
                                                zipfft__decomposition *out) {
  split sp = bluestein_split(job, t);
  if (sp.count != 2)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "no split in two of %lld", (long long)job->n);
  if (out->kernel_count + 3 > ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                        "a plan of more than %d kernels (Bluestein's convolution of %lld)",
                        ZIPFFT__MAX_KERNELS, (long long)job->n);
  for (int i = 0; i < 3; i++) {
    int at = out->kernel_count++;
    zipfft__kernel_spec *s = &out->kernels[at];
    if (i == 0) column_spec(job, &sp, 0, s);
    if (i == 1) filter_row_spec(job, &sp, chirp_n, half, s);
    if (i == 2) last_column_spec(job, &sp, s);
    out->transforms[at] = job->batch * (job->n / s->n);
    if (!zipfft__size_single_kernel(s, out->transforms[at], t))
      return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "Bluestein's kernel %d of %lld does not fit", i,
                          (long long)job->n);
    if (i == 1) zipfft__choose_convolution_in_place(s);
    s->streaming_io = bluestein_streams(i, job, chirp_n);
    out->src[at] = i == 0 ? src : via;
    out->dst[at] = i == 2 ? dst : via;
  }
  return ZIPFFT_SUCCESS;
}

/* Tiles of rows between the kernels of a split in two (ZIPFFT_TILE_ROWS, tuning: 0 never).
 * As planned, the column kernel stores each output k0 of its C neighbouring columns as one
 * segment of C elements (32 bytes for 4 fp32 columns of 4096 points, all its shared memory
 * holds), one L2 request per sector. Stored in tiles of w rows instead, element (k0, n1) at
 * (k0 / w) * w * N1 + w * n1 + k0 mod w, the w outputs k0 of a thread's neighbours in a
 * warp fill a w * C element segment (a whole 128-byte line for w = 4 there), and the row
 * kernel, whose blocks take w neighbouring rows k0, reads each block's rows as one
 * contiguous range, neighbouring threads on neighbouring rows (in_tile: row k0 starts
 * (k0 mod w) * (1 - N1) elements on, at an element stride of w). Measured on an H100 (session
 * 34, fp32 2^24 as 4096 x 4096, Nsight Compute, plain -> tiles): column kernel 1.06 ->
 * 1.02 ms, its L2 write requests 33.6 -> 8.4 M, tag lookups 86 -> 57% of peak, fabric 86 ->
 * 75%; row kernel 796 -> 809 us; bench 38.5 -> 38.7% of the copy bandwidth (1.03x ->
 * 1.04x), R2C 2^25 25.2 -> 25.4%, fp64 2^22 42.3% both. The column kernel waits on its
 * loads (one block per multiprocessor), not on its stores. Devices of slow memory only, as
 * measured. Not in pair kernels: there they lost (H100, fp32, % of copy, plain -> tiles:
 * 2^20 52.1 -> 45.3, 2^18 50.7 -> 47.1, 2D 16 x 2^20 34.0 -> 31.0; 65536 unchanged), as
 * 128-byte rows do (zipfft__fourstep_pair_last_two). */
enum { tile_line_bytes = 128, tile_warp_threads = 32 };

static int tiles_allowed(const zipfft__target *t) {
  return zipfft__tuning_int("ZIPFFT_TILE_ROWS", zipfft__slow_memory(t)) != 0;
}

/* 1 when kernels i and i + 1 of dec are the column and row kernels of a split in two as
 * column_spec and row_spec made them, not paired, the column kernel not in place. */
static int split_in_two_at(const zipfft__decomposition *dec, int i) {
  const zipfft__kernel_spec *col = &dec->kernels[i], *row = &dec->kernels[i + 1];
  return col->kind == ZIPFFT__KIND_C2C && row->kind == ZIPFFT__KIND_C2C &&
         col->pointwise == ZIPFFT__PW_NONE && row->pointwise == ZIPFFT__PW_NONE && col->fft_major &&
         row->store_major && !row->paired_rows && !col->out_tile && !row->in_tile &&
         col->cluster <= 1 && col->twiddle_length == col->n * row->n && col->out_stride == row->n &&
         row->in_stride == 1 && col->batch_dims == 2 && row->batch_dims == 2 &&
         col->batch_counts[1] == row->n && col->batch_out_strides[1] == 1 &&
         row->batch_counts[1] == col->n && row->batch_in_strides[1] == row->n &&
         dec->dst[i] == dec->src[i + 1] && dec->src[i] != dec->dst[i] &&
         !(dec->paired && dec->pair_first == i);
}

/* Rows of a tile: the fewest (a power of two) that fill a line with the column kernel's
 * columns, within one warp's neighbouring outputs and the row kernel's rows per block;
 * 1 when the columns already fill one. */
static int64_t tile_rows(const zipfft__kernel_spec *col, const zipfft__kernel_spec *row) {
  int64_t bytes = (int64_t)zipfft__complex_bytes(col->precision, ZIPFFT_STORAGE_DEFAULT);
  int64_t c = col->ffts_per_block, w = 1;
  while (w * c * bytes < tile_line_bytes && 2 * w * c <= tile_warp_threads &&
         2 * w <= row->ffts_per_block && col->n % (2 * w) == 0)
    w *= 2;
  return w;
}

void zipfft__fourstep_tile_rows(zipfft__decomposition *dec, int from, const zipfft__target *t) {
  if (!tiles_allowed(t)) return;
  for (int i = from < 0 ? 0 : from; i + 1 < dec->kernel_count; i++) {
    if (!split_in_two_at(dec, i)) continue;
    zipfft__kernel_spec *col = &dec->kernels[i], *row = &dec->kernels[i + 1];
    int64_t w = tile_rows(col, row);
    if (w < 2) continue;
    col->out_tile = row->in_tile = (int)w;
    col->out_tile_shift = row->in_tile_shift = 1 - row->n;
    col->batch_out_strides[1] = row->in_stride = w;
    row->fft_major = 1;
  }
}

/* Row kernels in place (ZIPFFT_ROWS_IN_PLACE, tuning: 0 never). A row kernel stores its
 * outputs through shared memory, neighbouring threads on neighbouring rows. With its passes
 * in place (kernel_spec passes_in_place) no barrier guards shared memory against being
 * overwritten (2 of its 5 barriers for 3 passes), and the stores read the outputs where the
 * last pass leaves them, digit-reversed. Measured on an H100 (session 37): fp32 2^24 row
 * kernel 848-857 -> 792-793 us (1.01x -> 1.05x cuFFT), R2C 2^25 0.94x -> 0.96x, fp32 2^22
 * +1%, 1024-point rows (2 passes) unchanged. Pair members keep the Stockham passes: in place
 * they measured mixed (fp32 2^18 +2%, fp32 65536 -1.2%). */
void zipfft__fourstep_rows_in_place(zipfft__decomposition *dec, int from) {
  const char *env = getenv("ZIPFFT_ROWS_IN_PLACE");
  if (env && strcmp(env, "0") == 0) return;
  for (int i = from < 0 ? 0 : from; i < dec->kernel_count; i++) {
    zipfft__kernel_spec *s = &dec->kernels[i];
    int in_pair = dec->paired && (i == dec->pair_first || i == dec->pair_first + 1);
    if (s->store_major && !in_pair) s->passes_in_place = zipfft__can_pass_in_place(s);
  }
}

/* Bytes of a pair kernel's dependency group (one transform of a split in two, kl slabs of
 * a split in three) that pair by default. Measured on an H100, % of copy bandwidth,
 * separate kernels -> pair kernel -> pair kernel with its input and output read and
 * written evict-first:
 *   fp32 65536 (512 KiB) 49.0 -> 60.1 -> 60.9;   fp64 65536 (1 MiB) 49.5 -> 57.1 -> 43.9;
 *   fp32 2^18 (2 MiB) 48.6 -> 44.5 -> 43.6;      fp64 2^18 (4 MiB) 47.8 -> 48.6 -> 50.8;
 *   fp32 2^20 (8 MiB) 44.2 -> 41.6 -> 47.3.
 * Up to 1 MiB (2 MiB since session 32) the data between the kernels stay in L2 as they are; from 4
 * MiB only when the user's data pass evict-first (Nsight Compute, fp32 2^20: 3.57 GB of DRAM
 * traffic per call without, 2.32 GB with, 2.14 GB for one read and one write). Splits in three,
 * separate -> pair evict-first: fp32 2^24 (8 MiB) 30.9 -> 33.4; fp32 2^27 (16 MiB) 24.3 -> 22.5;
 * fp64 2^24 (16 MiB) 31.2 -> 29.2. With the chained twiddles (session 32, H100, separate -> pair ->
 * pair evict-first): fp32 2^18 48.6 -> 50.3 -> 50.0, so groups of 2 MiB pair as they are too. */
enum {
  pair_plain_max_bytes = 2 << 20,
  pair_streaming_min_bytes = 4 << 20,
  pair_max_bytes = 8 << 20,
  pair_fast_memory_max_bytes = 512 << 10,
  pair_cluster_max_bytes = 1 << 20
};

/* The pair of the last two kernels of a split, its groups in transforms of each kernel
 * (0 when they cannot pair). In two, a group is one transform (N1 columns, N0 rows). In
 * three, the row kernel's blocks take kl neighbouring k0 (its transposed stores need
 * them), so a group is kl slabs of k0: kl*N2 columns of the middle kernel and N1*kl rows,
 * the row kernel's k0 digit split into (k0 / kl, k1, k0 % kl) to keep each group's rows
 * together. */
static int pair_of_split(const zipfft__decomposition *out, int split_first, int64_t batch,
                         zipfft__pair_spec *p) {
  int first = out->kernel_count - 2, count = out->kernel_count - split_first;
  if (split_first < 0 || count < 2 || count > 3) return 0;
  *p = (zipfft__pair_spec){.first = out->kernels[first],
                           .second = out->kernels[first + 1],
                           .first_group = out->transforms[first] / batch,
                           .second_group = out->transforms[first + 1] / batch};
  if (count == 3) {
    zipfft__kernel_spec *row = &p->second;
    int64_t kl = row->ffts_per_block, k0 = row->batch_counts[2], k1 = row->batch_counts[1];
    if (row->batch_dims != 3 || k0 % kl != 0 || p->first.batch_dims != 3) return 0;
    int64_t in[4] = {row->batch_in_strides[0], row->batch_in_strides[2] * kl,
                     row->batch_in_strides[1], row->batch_in_strides[2]};
    int64_t outs[4] = {row->batch_out_strides[0], row->batch_out_strides[2] * kl,
                       row->batch_out_strides[1], row->batch_out_strides[2]};
    int64_t counts[4] = {row->batch_counts[0], k0 / kl, k1, kl};
    for (int d = 0; d < 4; d++)
      row->batch_counts[d] = counts[d], row->batch_in_strides[d] = in[d],
      row->batch_out_strides[d] = outs[d];
    row->batch_dims = 4;
    p->first_group = kl * p->first.batch_counts[2];
    p->second_group = k1 * kl;
  }
  p->first.shared_twiddles = p->second.shared_twiddles = 0;
  return zipfft__pair_check(p) == NULL;
}

/* Pair kernels are bound by their members' work on the multiprocessors, separate kernels by
 * DRAM, so pairs pay on devices of little memory bandwidth per multiprocessor. Measured, %
 * of copy bandwidth, separate -> pair (group sizes as above):
 * - H100 SXM (peak 3.35 TB/s, 25 GB/s per multiprocessor): fp32 65536 49.0 -> 60.1, fp32
 *   2^20 44.2 -> 47.3, fp32 2^24 30.9 -> 34.9, fp64 65536 49.5 -> 57.1;
 * - H200 (4.9 TB/s, 37 GB/s per multiprocessor): fp32 65536 47.9 -> 48.8, fp32 2^20 39.2
 *   -> 35.9, fp32 2^24 28.8 -> 29.5, fp64 65536 48.8 -> 45.8, fp64 2^18 44.3 -> 39.3.
 * So devices of slow memory (zipfft__slow_memory: below 30 GB/s per multiprocessor, or of
 * unknown bandwidth) pair as above. With the chained twiddles (session 34, H200, fp32, cuFFT
 * ratio, separate -> pair, ZIPFFT_PAIR=1): 65536 1.10x -> 1.17x, 2^24 (the last two of 256 x
 * 256 x 256, 8 MiB groups) 1.06x -> 1.12x, C2R 2^24 1.18x -> 1.22x, but 2^20 1.09x -> 1.05x,
 * 2^27 1.02x -> 0.90x, 2^18 (2 MiB) 1.04x -> 0.91x, fp64 65536 (1 MiB) 1.03x -> 0.95x,
 * fp64 32768 (512 KiB) 1.01x -> 0.98x; so other devices pair fp32 groups of at most
 * pair_fast_memory_max_bytes, and splits in three of the streaming sizes.
 * The pair's cluster form (one cluster a group, two items a block, plan/pair.h) keeps each
 * group's data between the kernels in the L2 partition near the cluster that wrote it
 * (session 55, H200, % of copy, fp32 65536 persistent 51.2 -> clusters of 8 52.7 -> with
 * the user's data evict-first 58.9, cuFFT ratio 1.17x -> 1.35x; separate -> clusters
 * evict-first: fp64 65536 (1 MiB, 16 items) 49.0 -> 53.4, fp64 32768 (512 KiB, 8 items,
 * clusters of 4) 48.4 -> 52.7; four items a block lose (fp32 65536 in clusters of 4: 51.2),
 * so do 2 MiB groups (fp32 2^18: 46.5 -> 31.2) and one item a block (fp64 32768 in
 * clusters of 8: 47.9)). H100 (session 87, one run, % of copy, persistent or not paired ->
 * clusters evict-first): fp32 65536 61.3 -> 70.3 (1.32x -> 1.52x), fp64 65536 54.2-57.2 ->
 * 66.6 (1.10-1.16x -> 1.35x), fp64 32768 (clusters of 4) 57.9 -> 68.0 (1.17x -> 1.38x). So
 * every device with clusters pairs groups of at most pair_cluster_max_bytes whose items split
 * two a block, in that form, evict-first.
 *
 * Pairs the last two kernels of a split (plan/pair.h) on a device of little memory bandwidth
 * per multiprocessor when a group's bytes are as above (ZIPFFT_PAIR, tuning: 0 never, 1
 * whatever the device and size; ZIPFFT_PAIR_STREAM: 0 or 1 for the evict-first user data
 * whatever the size; ZIPFFT_PAIR_CLUSTER, plan/pair.h); twiddles are not staged. The counters
 * follow the workspace. fp32 pair numbers travel through a float: below 2^23 work items only. In
 * place, the rows of a split in two overwrite only their own transform's input (the columns of
 * later transforms are still being read) when both layouts are the same; a split in three has read
 * the input before the pair starts. */
static int pair_last_two(const zipfft__fourstep_job *job, int split_first, int inplace,
                         const zipfft__target *t, zipfft__decomposition *out) {
  const char *env = getenv("ZIPFFT_PAIR"), *stream = getenv("ZIPFFT_PAIR_STREAM");
  zipfft__pair_spec p;
  if (!pair_of_split(out, split_first, job->batch, &p)) return 0;
  int first = out->kernel_count - 2;
  int64_t bytes = p.first_group * p.first.n *
                  (int64_t)zipfft__complex_bytes(job->precision, ZIPFFT_STORAGE_DEFAULT);
  int slow_memory = zipfft__slow_memory(t);
  int cluster =
      bytes > pair_cluster_max_bytes ? 0 : zipfft__pair_cluster_planned(&p, t->max_cluster_blocks);
  int streaming =
      stream && *stream ? atoi(stream) != 0 : bytes >= pair_streaming_min_bytes || cluster > 0;
  int in_three = out->kernel_count - split_first == 3;
  int streaming_size = bytes >= pair_streaming_min_bytes && bytes <= pair_max_bytes;
  int slow_memory_pairs = bytes <= pair_plain_max_bytes || streaming_size;
  int fast_memory_pairs = (job->precision == ZIPFFT_F32 && bytes <= pair_fast_memory_max_bytes) ||
                          (in_three && streaming_size);
  int wanted = env && *env ? atoi(env) != 0
                           : cluster > 0 || (slow_memory ? slow_memory_pairs : fast_memory_pairs);
  if (!wanted) return 0;
  if (first == split_first && inplace &&
      (job->in_stride != job->out_stride || job->in_dist != job->out_dist))
    return 0;
  int64_t items = out->transforms[first] / p.first.ffts_per_block;
  if (items >= (1 << 23)) return 0;
  out->kernels[first] = p.first;
  out->kernels[first + 1] = p.second;
  out->paired = 1;
  out->pair_first = first;
  out->pair_streaming = streaming;
  out->pair_cluster = cluster;
  out->pair_groups[0] = p.first_group;
  out->pair_groups[1] = p.second_group;
  out->pair_sync_offset = zipfft__bytes_aligned(out->workspace_bytes);
  out->workspace_bytes = zipfft__bytes_sum(
      out->pair_sync_offset, zipfft__pair_sync_bytes(out->transforms[first] / p.first_group));
  return 1;
}

/* fp32 pair members keep rows of 64 bytes (zipfft__limit_major_rows; ZIPFFT_PAIR_ROW_BYTES,
 * tuning): measured on an H100, 128-byte rows lost in every fp32 pair (session 33, % of the
 * copy bandwidth, 64 -> 128: 2^20 52.1 -> 46.6, 2^18 50.7 -> 49.0, 2D 16 x 2^20 34.0 ->
 * 31.5) and gained in the fp64 ones (262144 53.2 -> 54.4). */
enum { f32_pair_row_bytes = 64 };

void zipfft__fourstep_pair_last_two(const zipfft__fourstep_job *job, int split_first, int inplace,
                                    const zipfft__target *t, zipfft__decomposition *out) {
  int first = out->kernel_count - 2;
  if (first < 0 || ends_in_columns(out)) return; /* a transposed split stays unpaired */
  zipfft__kernel_spec members[2] = {out->kernels[first], out->kernels[first + 1]};
  int row_bytes = zipfft__tuning_int("ZIPFFT_PAIR_ROW_BYTES", f32_pair_row_bytes);
  if (job->precision == ZIPFFT_F32)
    for (int i = 0; i < 2; i++)
      zipfft__limit_major_rows(&out->kernels[first + i], out->transforms[first + i], t, row_bytes);
  if (pair_last_two(job, split_first, inplace, t, out)) return;
  out->kernels[first] = members[0];
  out->kernels[first + 1] = members[1];
}

/* Rank-1 C2C lengths with no good split in two (nor a square one) may take a split in two
 * with columns as large as the rows (zipfft__fourstep_job loose_two) before a split in three
 * (ZIPFFT_LOOSE_SPLIT, tuning: 0 never, 1 the rule, 2 always). The rule, on devices of slow
 * memory only (the H200 not measured): the split's kernels as sized must meet loose_limits.
 * H100, cuFFT ratio three kernels -> two (docs/perf/2026-12-07-h100-loose-splits.md):
 * - fp32 gains wherever the columns are even and the rows hold 4 or more transforms a block:
 *   2^23 as 2048 x 4096 0.94x -> 1.07x, 3 x 2^21 1.06x -> 1.40x, 5334336 as 2268 x 2352 1.02x
 *   -> 1.38x, 10536960 1.85x -> 2.19x, 5000000 1.03x -> 1.13x (sixteen lengths). It loses with
 *   rows of 2 transforms a block (16-byte stores): 4201750 as 1750 x 2401 1.37x -> 0.94x,
 *   15240960 1.37x -> 0.89x, 16200000 1.31x -> 0.92x; and 10^7 as 3125 x 3200, odd columns,
 *   1.04x -> 0.75x (9187500's 3125-point rows, 1000 threads like 10^7's columns, gain).
 * - fp64 gains where every kernel leaves 96 registers a thread (at most 682 threads a block):
 *   2^21 as 1024 x 2048 0.84x -> 1.06x, 2621440 1.02x -> 1.36x, 3670016 1.06x -> 1.35x; it
 *   loses where a kernel of 768-800 threads spills 520-1360 bytes (nvcc offline): 1572864 1.18x
 *   -> 1.08x, 2000000 1.05x -> 0.53x, 3000000 1.34x -> 0.96x. */
typedef struct loose_limits {
  int even_columns;       /* 1: the first factor must be even */
  int min_row_transforms; /* transforms a block the row kernel must hold */
  unsigned max_threads;   /* threads a block any kernel may have */
} loose_limits;

static const loose_limits loose_rule[] = {[ZIPFFT_F32] = {1, 4, 1024}, [ZIPFFT_F64] = {0, 4, 682}};

enum loose_mode { LOOSE_NEVER, LOOSE_RULE, LOOSE_ALWAYS };

static enum loose_mode loose_split_mode(const zipfft__target *t) {
  int mode = zipfft__tuning_int("ZIPFFT_LOOSE_SPLIT", LOOSE_RULE);
  if (mode == LOOSE_ALWAYS) return LOOSE_ALWAYS;
  return mode == LOOSE_RULE && zipfft__slow_memory(t) ? LOOSE_RULE : LOOSE_NEVER;
}

int zipfft__loose_kernels_fit(const zipfft__kernel_spec *columns, const zipfft__kernel_spec *rows) {
  const loose_limits *limits = &loose_rule[columns->precision];
  if (limits->even_columns && zipfft__logical_length(columns) % 2 != 0) return 0;
  if (rows->ffts_per_block < limits->min_row_transforms) return 0;
  return zipfft__c2c_block_threads(columns) <= limits->max_threads &&
         zipfft__c2c_block_threads(rows) <= limits->max_threads;
}

/* The job's kernels appended to an empty decomposition: with the rule, a split in two that
 * misses loose_limits gives way to the split without loose_two (a good split in two that
 * misses them comes back unchanged). */
static zipfft_status append_fourstep(zipfft__fourstep_job *job, const zipfft__target *t,
                                     zipfft__decomposition *out) {
  enum loose_mode mode = loose_split_mode(t);
  job->loose_two = mode != LOOSE_NEVER;
  out->kernel_count = 0;
  zipfft_status s = zipfft__fourstep_append(job, t, ZIPFFT__ARRAY_INPUT, ZIPFFT__ARRAY_WORKSPACE,
                                            ZIPFFT__ARRAY_OUTPUT, out);
  if (s != ZIPFFT_SUCCESS || mode != LOOSE_RULE || out->kernel_count != 2 ||
      zipfft__loose_kernels_fit(&out->kernels[0], &out->kernels[1]))
    return s;
  job->loose_two = 0;
  out->kernel_count = 0;
  return zipfft__fourstep_append(job, t, ZIPFFT__ARRAY_INPUT, ZIPFFT__ARRAY_WORKSPACE,
                                 ZIPFFT__ARRAY_OUTPUT, out);
}

static zipfft_status fourstep_make(const struct zipfft_desc_s *d, const zipfft__layout *l,
                                   const zipfft__target *t, zipfft__decomposition *out) {
  zipfft__fourstep_job job = {.precision = d->precision,
                              .sign = zipfft__desc_sign(d),
                              .n = d->lengths[0],
                              .batch = d->batch,
                              .in_stride = l->in_strides[0],
                              .in_dist = l->in_dist,
                              .out_stride = l->out_strides[0],
                              .out_dist = l->out_dist,
                              .in_storage = d->in_storage,
                              .out_storage = d->out_storage,
                              .scale = d->scale,
                              .square_split = 1,
                              .cluster_columns = 1};
  zipfft_status s = append_fourstep(&job, t, out);
  out->workspace_bytes =
      zipfft__bytes_product(zipfft__bytes_product((uint64_t)job.n, (uint64_t)d->batch),
                            zipfft__complex_bytes(d->precision, ZIPFFT_STORAGE_DEFAULT));
  if (s == ZIPFFT_SUCCESS) {
    zipfft__fourstep_pair_last_two(&job, 0, d->placement == ZIPFFT_INPLACE, t, out);
    zipfft__fourstep_pack_workspace(out, 0);
    zipfft__fourstep_tile_rows(out, 0, t);
    zipfft__fourstep_rows_in_place(out, 0);
  }
  return s;
}

static void fourstep_print(const zipfft__decomposition *dec, zipfft__strbuf *sb) {
  zipfft__sb_printf(sb, "n = ");
  for (int i = 0; i < dec->kernel_count; i++)
    zipfft__sb_printf(sb, "%s%lld", i ? " x " : "",
                      (long long)zipfft__logical_length(&dec->kernels[i]));
  zipfft__sb_printf(
      sb, ", %d kernels (%s)%s%s\n", dec->kernel_count,
      ends_in_columns(dec) ? "columns with fused twiddles stored as rows, then columns"
                           : "columns with fused twiddles, then rows stored transposed",
      dec->paired && dec->kernel_count > 2 ? ", the last two" : "",
      !dec->paired          ? ""
      : dec->pair_streaming ? ", run as one pair kernel (the data between them in "
                              "L2, the user's data evict-first)"
                            : ", run as one pair kernel (the data between them in L2)");
  for (int i = 0; i < dec->kernel_count; i++) {
    zipfft__sb_printf(sb, "    kernel %d: ", i);
    zipfft__print_kernel(dec, i, sb);
  }
}

const zipfft__strategy zipfft__strategy_fourstep = {
    .name = "fourstep",
    .applicable = fourstep_applicable,
    .make = fourstep_make,
    .print = fourstep_print,
};
