/* long_axis.c - a pass over an axis too long for one kernel, through the plan's workspace.
 *
 * A pointwise kernel gathers the pass's rows from the source array into workspace part A
 * as contiguous complex rows (real loads, the Hermitian half expanded, storage converted);
 * a four-step split transforms them there (A -> B -> A), or one cluster kernel where a
 * thread-block cluster holds a row (A -> B in one pass); a pointwise kernel scatters them
 * to the destination (the Hermitian half kept, or the real part, storage converted,
 * scaled). A length with no split (a large prime factor) runs Bluestein's method: the
 * chirp multiply and zero padding fused into the first kernel's loads, the filter multiply
 * into a middle kernel, the last chirp into the last kernel's stores, three kernels where
 * the padded length splits in two (with ZIPFFT_FUSED_BLUESTEIN=0 or
 * ZIPFFT_BLUESTEIN_MIDDLE=0, tuning, a chirp gather, two four-step FFTs with a pointwise
 * filter multiply between them and a chirp scatter). Even real lengths run at half length:
 * the gather takes the real data as complex pairs and a split scatter (R2C), or a merge
 * gather and a scatter of pairs (C2R), do the half-length method's pre- and post-processing; where
 * the four-step's kernels can take their rows in pairs, its last kernel does the split (R2C) or its
 * first the merge (C2R) instead (paired_rows). Plain copies skip the gather or the scatter (the
 * four-step reads or writes the user's array); otherwise a pass reads and writes every element once
 * more than a fused four-step would. */
#include "plan/long_axis.h"

#include <stdlib.h>
#include <string.h>

#include "api/desc.h"
#include "api/error.h"
#include "plan/fourstep.h"
#include "plan/single.h"
#include "plan/tuning.h"

static int bluestein_middle(void);

/* Whether Bluestein's padded length m splits in two (three kernels, plan/fourstep.c). */
static int bluestein_splits(zipfft_precision precision, int64_t m, const zipfft__target *t) {
  zipfft__fourstep_job job = {.precision = precision, .n = m};
  return zipfft__fourstep_bluestein_fits(&job, t);
}

/* Bluestein's padded length where the smallest 7-smooth one has no good split in two (its
 * convolution would run as two four-steps of three kernels each, or three kernels of wide
 * columns): N0 x R, R the longest power-of-two row of the middle kernel
 * (zipfft__fourstep_long_row_points) and N0 the smallest 7-smooth length that makes it
 * long enough, if that is at most 1/8 longer; plan/fourstep.c splits it N0 x R. Measured
 * on an H200 (session 62, cuFFT ratio, against ZIPFFT_BLUESTEIN_LONG_ROWS=0):
 * - where there was no split in two: fp32 C2C 16777259 as 2058 x 16384 1.15x -> 1.78x, R2C
 *   as 1568 x 16384 0.97x -> 1.65x, C2R 0.97x -> 1.55x; fp64 C2C 4194319 as 1029 x 8192
 *   1.20x -> 1.46x, R2C as 784 x 8192 0.94x -> 1.17x; fp32 C2C 8388617 as 1029 x 16384
 *   1.17x -> 2.00x;
 * - where there was a wide split: fp32 C2C 4194319 as 525 x 16384 1.63x -> 1.77x (2880 x
 *   2916 before), R2C as 392 x 16384 1.29x -> 1.64x, C2R 1.13x -> 1.69x; fp32 R2C 8388617
 *   1.13x -> 1.62x; fp64 C2C 524309 as 135 x 8192 1.91x -> 2.00x;
 * - the same lengths' mixed-radix rows lost: fp32 R2C 16777259 as 1620 x 15552 1.30x, 1029 x
 *   24576 1.03x; C2C as 2160 x 15552 1.44x.
 * ZIPFFT_BLUESTEIN_LONG_ROWS=0 (tuning) keeps the smooth length. */
static int64_t long_row_length(zipfft_precision precision, int64_t n, zipfft__chirp_half half,
                               int64_t smooth, const zipfft__target *t) {
  const char *env = getenv("ZIPFFT_BLUESTEIN_LONG_ROWS");
  int64_t row = zipfft__fourstep_long_row_points(precision, t),
          least = zipfft__chirp_least_padding(n, half);
  if ((env && *env == '0') || !bluestein_middle() || row == 0 ||
      zipfft__fourstep_kernels(precision, smooth, 0, 0, t) == 2)
    return smooth;
  int64_t m = zipfft__smooth_length((least + row - 1) / row) * row;
  return m <= smooth + smooth / 8 && bluestein_splits(precision, m, t) ? m : smooth;
}

/* Length of the rows in the workspace: n when it splits, else Bluestein's padded length
 * (its convolution covering `half`; long_row_length) when that splits, else 0; *split
 * gets the number of kernels of that split. */
static int64_t workspace_length(zipfft_precision precision, int64_t n, zipfft__chirp_half half,
                                const zipfft__target *t, int *split) {
  *split = zipfft__fourstep_kernels(precision, n, 0, 0, t);
  if (*split > 0) return n;
  int64_t m = long_row_length(precision, n, half, zipfft__bluestein_length(n, half), t);
  const char *env = getenv("ZIPFFT_BLUESTEIN_LENGTH"); /* tuning: a longer padded length */
  if (env && *env && atoll(env) > m) m = atoll(env);
  *split = zipfft__fourstep_kernels(precision, m, 0, 0, t);
  return *split > 0 ? m : 0;
}

int zipfft__long_axis_possible(zipfft_precision precision, int64_t n, int real,
                               const zipfft__target *t) {
  int split;
  if (real && n % 2 == 0 && zipfft__fourstep_kernels(precision, n / 2, 0, 0, t) > 0) return 1;
  /* R2C and C2R pad alike (n + n/2); rows in pairs that cannot pad fully are not paired */
  return workspace_length(precision, n, real ? ZIPFFT__CHIRP_HALF_OUT : ZIPFFT__CHIRP_FULL, t,
                          &split) > 0;
}

/* How a pass moves through the workspace: the rows' length there, and the kind, operation
 * and positions per row of the gather (into the workspace) and of the scatter. */
typedef struct route {
  int64_t length;
  zipfft__kernel_kind gather_kind, scatter_kind;
  zipfft__pointwise_op gather, scatter;
  int64_t gather_range, scatter_range;
  int split;       /* kernels of the four-step split of length */
  int loose_two;   /* the split's zipfft__fourstep_job loose_two */
  int short_first; /* the split's zipfft__fourstep_job short_first */
  int64_t pair_apart, pairs_present; /* the gather's and scatter's row pairs (pair_rows) */
  int pair_dim;
  zipfft__chirp_half half; /* Bluestein's: the kernels' chirp_half */
} route;

/* Whether a rule measured on devices of fast memory only applies: on such devices unless
 * its tuning variable (0 or 1) says otherwise. */
static int fast_memory_rule(const char *variable, const zipfft__target *t) {
  return zipfft__tuning_int(variable, !zipfft__slow_memory(t)) != 0;
}

/* 1 when a C2R route splits its half length with short merge columns
 * (zipfft__fourstep_job short_first, measured in plan/fourstep.c on an H200), on every device
 * unless ZIPFFT_SHORT_MERGE=0 (tuning). H100 (session 87, two runs, % of copy, cuFFT ratio):
 * fp32 C2R 2^19 41.3-41.9 -> 43.0 (1.37x -> 1.40x), 2^21 32.8-32.9 -> 40.9 (1.07x -> 1.34x),
 * 2^22 32.4 -> 37.1-37.4 (1.07x -> 1.22-1.23x); fp64 2^19 41.4 -> 42.0, 2^21 39.2 both,
 * 2^22 32.5 -> 37.2-37.3 (1.12x -> 1.28-1.29x). */
static int takes_short_merge(const zipfft__kernel_spec *pass) {
  return pass->kind == ZIPFFT__KIND_C2R && zipfft__tuning_int("ZIPFFT_SHORT_MERGE", 1) != 0;
}

/* The route of a pass; length 0 when there is none. Even real lengths whose half splits
 * run a half-length complex FFT (the real data taken as pairs, with a merge gather for C2R
 * and a split scatter for R2C): half the bytes of the full-length route (measured on an
 * H200, R2C 2^24 fp32: 0.45x cuFFT at full length). */
static route route_of(const zipfft__kernel_spec *pass, const zipfft__target *t) {
  int64_t n = pass->n, half = n / 2;
  int real = pass->kind != ZIPFFT__KIND_C2C;
  int short_first = takes_short_merge(pass);
  int split =
      real && n % 2 == 0 ? zipfft__fourstep_kernels(pass->precision, half, 0, short_first, t) : 0;
  if (split > 0 && pass->kind == ZIPFFT__KIND_R2C)
    return (route){.length = half,
                   .gather_kind = ZIPFFT__KIND_R2C_HALF,
                   .scatter_kind = ZIPFFT__KIND_R2C_HALF,
                   .gather = ZIPFFT__PW_GATHER,
                   .scatter = ZIPFFT__PW_SPLIT,
                   .gather_range = half,
                   .scatter_range = half / 2 + 1,
                   .split = split};
  if (split > 0)
    return (route){.length = half,
                   .gather_kind = ZIPFFT__KIND_C2R_HALF,
                   .scatter_kind = ZIPFFT__KIND_C2R_HALF,
                   .gather = ZIPFFT__PW_MERGE,
                   .scatter = ZIPFFT__PW_SCATTER,
                   .gather_range = half / 2 + 1,
                   .scatter_range = half,
                   .split = split,
                   .short_first = short_first};
  zipfft__chirp_half chirp_half = zipfft__chirp_half_of(pass->kind);
  int64_t length = workspace_length(pass->precision, n, chirp_half, t, &split);
  int bluestein = length != n;
  return (route){.length = length,
                 .half = bluestein ? chirp_half : ZIPFFT__CHIRP_FULL,
                 .gather_kind = pass->kind,
                 .scatter_kind = pass->kind,
                 .gather = bluestein ? ZIPFFT__PW_CHIRP_GATHER : ZIPFFT__PW_GATHER,
                 .scatter = bluestein ? ZIPFFT__PW_CHIRP_SCATTER : ZIPFFT__PW_SCATTER,
                 .gather_range = length,
                 .scatter_range = pass->kind == ZIPFFT__KIND_R2C ? n / 2 + 1 : n,
                 .split = split};
}

/* Full-length real routes (odd lengths, and even ones whose half does not split) can take
 * the user's rows two to a complex row of the workspace (zipfft__kernel_spec
 * row_pair_apart): rows a and a + ceil(c / 2) along the outermost batch digit of c > 1
 * rows, so that the FFTs between the gather and the scatter run on half the rows (H200,
 * fp32 R2C 65537: 0.67x -> 1.26x cuFFT). Opt-in, ZIPFFT_REAL_ROW_PAIRS=1: the two rows
 * then share their rounding (row a's error scales with row b's size) and a NaN or Inf in
 * one reaches the other, where users expect the rows of a batch to be independent. Fills
 * r's pair fields (pair_apart 0: none) and returns the rows the route's FFTs run on. */
static int64_t pair_rows(const zipfft__kernel_spec *pass, int64_t rows, const zipfft__target *t,
                         route *r) {
  const char *env = getenv("ZIPFFT_REAL_ROW_PAIRS");
  int full_real = zipfft__kind_is_full_real(r->gather_kind);
  int dim = 0, split = 0;
  while (dim < pass->batch_dims && pass->batch_counts[dim] < 2) dim++;
  r->pair_apart = r->pairs_present = 0, r->pair_dim = dim;
  if (!env || strcmp(env, "1") != 0 || !full_real || dim == pass->batch_dims ||
      rows % pass->batch_counts[dim] != 0)
    return rows;
  if (r->half != ZIPFFT__CHIRP_FULL) { /* a pair's rows need every input and output */
    int64_t full = workspace_length(pass->precision, pass->n, ZIPFFT__CHIRP_FULL, t, &split);
    if (full == 0) return rows;
    r->length = r->gather_range = full, r->split = split, r->half = ZIPFFT__CHIRP_FULL;
  }
  int64_t count = pass->batch_counts[dim];
  r->pair_apart = (count + 1) / 2;
  r->pairs_present = count - r->pair_apart;
  return rows / count * r->pair_apart;
}

/* The gather (to_workspace) or scatter of a pass: its batch digits keep their strides on
 * the user's side and become row strides of the route's length on the workspace side
 * (with row pairs, the outermost digit counts the pairs). */
static void transfer_spec(const zipfft__kernel_spec *pass, const route *r, int to_workspace,
                          zipfft__kernel_spec *s) {
  *s = *pass;
  s->kind = to_workspace ? r->gather_kind : r->scatter_kind;
  s->n = r->length;
  if (r->pair_apart) {
    s->batch_counts[r->pair_dim] = r->pair_apart;
    s->row_pair_apart = r->pair_apart, s->row_pairs_present = r->pairs_present;
    s->row_pair_dim = r->pair_dim;
  }
  int64_t row = r->length;
  for (int d = s->batch_dims - 1; d >= 0; d--) {
    if (to_workspace)
      s->batch_out_strides[d] = row;
    else
      s->batch_in_strides[d] = row;
    row *= s->batch_counts[d];
  }
  if (to_workspace) { /* the workspace side is never a user's array: no callback there */
    s->store_callback = (zipfft__callback){0};
    s->out_stride = 1, s->out_storage = ZIPFFT_STORAGE_DEFAULT, s->scale = 1.0;
    zipfft__make_pointwise(s, r->gather, r->gather_range);
  } else {
    s->load_callback = (zipfft__callback){0};
    s->in_stride = 1, s->in_storage = ZIPFFT_STORAGE_DEFAULT;
    zipfft__make_pointwise(s, r->scatter, r->scatter_range);
  }
  int chirp = s->pointwise == ZIPFFT__PW_CHIRP_GATHER || s->pointwise == ZIPFFT__PW_CHIRP_SCATTER;
  s->bluestein_n = chirp ? pass->n : 0;
  s->chirp_half = chirp ? r->half : ZIPFFT__CHIRP_FULL;
}

/* Bluestein's filter multiply, in place over `rows` contiguous rows of the route's length. */
static void filter_spec(const zipfft__kernel_spec *pass, const route *r, int64_t rows,
                        zipfft__kernel_spec *s) {
  int64_t m = r->length;
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = pass->precision,
                             .sign = pass->sign,
                             .n = m,
                             .bluestein_n = pass->n,
                             .chirp_half = r->half,
                             .in_stride = 1,
                             .out_stride = 1,
                             .batch_dims = 1,
                             .batch_counts = {rows},
                             .batch_in_strides = {m},
                             .batch_out_strides = {m},
                             .scale = 1.0};
  zipfft__make_pointwise(s, ZIPFFT__PW_FILTER, m);
}

/* Appends a kernel of the given transforms (work items). */
static zipfft_status append_kernel(const zipfft__kernel_spec *s, int64_t transforms,
                                   zipfft__array src, zipfft__array dst,
                                   zipfft__decomposition *dec) {
  int at = dec->kernel_count++;
  dec->kernels[at] = *s;
  dec->transforms[at] = transforms;
  dec->src[at] = src, dec->dst[at] = dst;
  return ZIPFFT_SUCCESS;
}

/* Appends a pointwise kernel (rows chunks of transforms). */
static zipfft_status append_pointwise(const zipfft__kernel_spec *s, int64_t rows, zipfft__array src,
                                      zipfft__array dst, zipfft__decomposition *dec) {
  return append_kernel(s, rows * zipfft__pointwise_chunks(s), src, dst, dec);
}

/* Appends the route's pointwise gather (to_workspace: src -> workspace A) or scatter
 * (workspace A -> dst). */
static zipfft_status append_transfer(const zipfft__kernel_spec *pass, const route *r,
                                     int to_workspace, int64_t rows, zipfft__array src,
                                     zipfft__array dst, zipfft__decomposition *dec) {
  zipfft__kernel_spec s;
  transfer_spec(pass, r, to_workspace, &s);
  return to_workspace ? append_pointwise(&s, rows, src, ZIPFFT__ARRAY_WORKSPACE, dec)
                      : append_pointwise(&s, rows, ZIPFFT__ARRAY_WORKSPACE, dst, dec);
}

/* Grows the workspace to `parts` (1 or 2) parts of `part` bytes at least. */
static void reserve_workspace(zipfft__decomposition *dec, uint64_t part, int parts) {
  if (parts == 2 && dec->second_workspace_offset < part) dec->second_workspace_offset = part;
  uint64_t need = parts == 1 ? part : zipfft__bytes_product(2, dec->second_workspace_offset);
  if (dec->workspace_bytes < need) dec->workspace_bytes = need;
}

/* The workspace parts (1 or 2) kernels first.. of dec use: where they use only part B (a
 * four-step between the user's arrays, its gather or scatter taken over by a paired_rows
 * kernel), B becomes A, so one part is reserved. */
static int workspace_parts(zipfft__decomposition *dec, int first) {
  int uses[2] = {0, 0};
  for (int i = first; i < dec->kernel_count; i++)
    for (int side = 0; side < 2; side++) {
      zipfft__array x = side ? dec->dst[i] : dec->src[i];
      uses[0] |= x == ZIPFFT__ARRAY_WORKSPACE;
      uses[1] |= x == ZIPFFT__ARRAY_WORKSPACE2;
    }
  if (uses[0] && uses[1]) return 2;
  for (int i = first; i < dec->kernel_count; i++) {
    if (dec->src[i] == ZIPFFT__ARRAY_WORKSPACE2) dec->src[i] = ZIPFFT__ARRAY_WORKSPACE;
    if (dec->dst[i] == ZIPFFT__ARRAY_WORKSPACE2) dec->dst[i] = ZIPFFT__ARRAY_WORKSPACE;
  }
  return 1;
}

/* Whether the four-step kernels read the source and write the destination directly,
 * skipping the gather or scatter: only plain copies (C2C, or real data as complex pairs)
 * of a batch whose digits nest into one dimension (each stride the next inner one times
 * its count), and for pairs a real stride of 1 and an even distance. */
typedef struct ends {
  int direct_in, direct_out;
  int64_t in_stride, in_dist, out_stride, out_dist; /* complex elements, when direct */
} ends;

static int nested_batch(const zipfft__kernel_spec *pass, int out, int64_t *dist) {
  const int64_t *strides = out ? pass->batch_out_strides : pass->batch_in_strides;
  for (int d = pass->batch_dims - 1; d > 0; d--)
    if (strides[d - 1] != strides[d] * pass->batch_counts[d]) return 0;
  *dist = strides[pass->batch_dims - 1];
  return 1;
}

/* 1 when one side (stride, batch distance) can be read or written by the four-step
 * kernels; pairs (real data as complex values) become complex units. */
static int direct_side(const zipfft__kernel_spec *pass, int out, int pairs, int64_t *stride,
                       int64_t *dist) {
  *stride = out ? pass->out_stride : pass->in_stride;
  if (!nested_batch(pass, out, dist)) return 0;
  if (!pairs) return 1;
  if (*stride != 1 || *dist % 2 != 0) return 0;
  *dist /= 2;
  return 1;
}

/* Whether Bluestein's chirps and filter multiply fuse into the four-steps' loads and stores
 * (kernel_spec bluestein_load, bluestein_store) instead of pointwise passes of their own:
 * ZIPFFT_FUSED_BLUESTEIN=0 (tuning) keeps the passes. */
static int fused_bluestein(void) {
  const char *env = getenv("ZIPFFT_FUSED_BLUESTEIN");
  return !(env && strcmp(env, "0") == 0);
}

/* Whether the four-step kernels can do the gather's work (plain copies of complex values or
 * of real pairs; Bluestein's chirp on complex values, kernel_spec bluestein_load) and the
 * scatter's (the same, and Bluestein's chirp on R2C's half spectrum of rows not paired). */
static int gather_fuses(const route *r, int pairs_in) {
  return (r->gather == ZIPFFT__PW_GATHER && (r->gather_kind == ZIPFFT__KIND_C2C || pairs_in)) ||
         (r->gather == ZIPFFT__PW_CHIRP_GATHER && fused_bluestein() && !r->pair_apart);
}

static int scatter_fuses(const route *r, int pairs_out) {
  return (r->scatter == ZIPFFT__PW_SCATTER && (r->scatter_kind == ZIPFFT__KIND_C2C || pairs_out)) ||
         (r->scatter == ZIPFFT__PW_CHIRP_SCATTER && fused_bluestein() && !r->pair_apart);
}

/* The fused chirp step of a Bluestein route's first loads or last stores: the kind of the
 * user's data on that side (C2C complex, R2C real in and half spectrum out, C2R half
 * spectrum in and real out). */
static zipfft__bluestein_step chirp_step(zipfft__kernel_kind kind, int out) {
  if (kind == ZIPFFT__KIND_R2C && !out) return ZIPFFT__BLUESTEIN_CHIRP_REAL;
  if (kind == ZIPFFT__KIND_C2R)
    return out ? ZIPFFT__BLUESTEIN_CHIRP_REAL : ZIPFFT__BLUESTEIN_CHIRP_HALF;
  return ZIPFFT__BLUESTEIN_CHIRP;
}

static ends ends_of(const zipfft__kernel_spec *pass, const route *r) {
  ends e = {0};
  int pairs_in = r->gather_kind == ZIPFFT__KIND_R2C_HALF,
      pairs_out = r->scatter_kind == ZIPFFT__KIND_C2R_HALF;
  /* Padded loads, cropped stores and callbacks happen in the gather and the scatter (and in
   * the paired_rows kernels that replace a merge gather or a split scatter). */
  if (gather_fuses(r, pairs_in) && pass->load_extent == 0 && !pass->load_callback.function)
    e.direct_in = direct_side(pass, 0, pairs_in, &e.in_stride, &e.in_dist);
  if (scatter_fuses(r, pairs_out) && pass->store_extent == 0 && !pass->store_callback.function)
    e.direct_out = direct_side(pass, 1, pairs_out, &e.out_stride, &e.out_dist);
  return e;
}

/* The four-step job of a pass: between the workspace rows, or the user's arrays where the
 * ends are direct. */
static zipfft__fourstep_job job_of(const zipfft__kernel_spec *pass, const route *r, int64_t rows,
                                   const ends *e) {
  int64_t length = r->length;
  return (zipfft__fourstep_job){
      .loose_two = r->loose_two,
      .short_first = r->short_first,
      .precision = pass->precision,
      .sign = pass->sign,
      .n = length,
      .batch = rows,
      .in_stride = e->direct_in ? e->in_stride : 1,
      .in_dist = e->direct_in ? e->in_dist : length,
      .in_storage = e->direct_in ? pass->in_storage : ZIPFFT_STORAGE_DEFAULT,
      .out_stride = e->direct_out ? e->out_stride : 1,
      .out_dist = e->direct_out ? e->out_dist : length,
      .out_storage = e->direct_out ? pass->out_storage : ZIPFFT_STORAGE_DEFAULT,
      .scale = e->direct_out ? pass->scale : 1.0};
}

/* The route's complex FFT as one thread-block cluster kernel, where a cluster holds the
 * length (e.g. R2C 65536's half length 32768 in fp32): one pass over the data instead of
 * the four-step's two or three. Sized into *s; 0 when no cluster holds it. */
static int cluster_spec(const zipfft__fourstep_job *job, const zipfft__target *t,
                        zipfft__kernel_spec *s) {
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = job->precision,
                             .sign = job->sign,
                             .n = job->n,
                             .in_stride = job->in_stride,
                             .out_stride = job->out_stride,
                             .in_storage = job->in_storage,
                             .out_storage = job->out_storage,
                             .scale = job->scale,
                             .batch_dims = 1,
                             .batch_counts = {job->batch},
                             .batch_in_strides = {job->in_dist},
                             .batch_out_strides = {job->out_dist}};
  return zipfft__size_cluster_kernel(s, job->batch, t);
}

/* The arrays the route's (first) complex FFT reads and writes: the user's where an end is
 * direct, else workspace part A. */
static void fft_arrays(const ends *e, zipfft__array src, zipfft__array dst, zipfft__array *from,
                       zipfft__array *to) {
  *from = e->direct_in ? src : ZIPFFT__ARRAY_WORKSPACE;
  *to = e->direct_out ? dst : ZIPFFT__ARRAY_WORKSPACE;
}

/* Whether the route's complex FFT runs as one cluster kernel (sized into *s): between two
 * different arrays (the four-step's via part is then not needed), where a cluster holds
 * the length. */
static int takes_cluster(const zipfft__fourstep_job *job, const ends *e, zipfft__array src,
                         zipfft__array dst, const zipfft__target *t, zipfft__kernel_spec *s) {
  zipfft__array from, to;
  fft_arrays(e, src, dst, &from, &to);
  return from != to && cluster_spec(job, t, s);
}

/* The fewest row pairs per block (fp32, fp64) for which the split in the last kernel (R2C)
 * or the merge in the first (C2R) pays; they access runs of that many neighbouring
 * spectrum values (and their mirrors). Measured on an H100, % of copy bandwidth, separate
 * pass -> in the kernel:
 * - split: fp32 8 pairs (64-byte runs) 131072 31.9 -> 34.8, 2^24 22.3 -> 24.6; fp32 4
 *   pairs 2^18 32.0 -> 29.2, 2^20 31.2 -> 32.4; fp64 2 pairs (32 bytes) 2^18 31.9 -> 34.0,
 *   2^20 30.5 -> 36.4; fp64 8 pairs 65536 and 131072 32.2 -> 43.2;
 * - merge: fp32 8 pairs 2^18 32.2 -> 41.0, 2^24 22.3 -> 28.2; fp32 4 pairs 2^20 31.3 ->
 *   37.8; fp64 2 pairs 2^20 30.5 -> 35.8; fp64 8 pairs 65536 32.4 -> 41.2.
 * A split's row kernel with fewer than split_wide_row_pairs is widened towards them where
 * it can be (widen_to_row_pairs): fp32 2^18's 4 pairs became 8 (1024 threads, 74 KB): split
 * pass 32.0 -> 35.4. Where it cannot, 4 pairs still pay in fp32 (2^20, 1024-point rows of
 * 131 KB at 8 pairs: 31.1 -> 32.2, session 31). */
static const int split_min_row_pairs[2] = {4, 2}, split_wide_row_pairs[2] = {8, 2},
                 merge_min_row_pairs[2] = {4, 2};

/* The fewest row pairs per block of a paired_rows kernel: the table, or ZIPFFT_MIN_ROW_PAIRS
 * (tuning). */
static int min_row_pairs(const int *table, zipfft_precision precision) {
  return zipfft__tuning_int("ZIPFFT_MIN_ROW_PAIRS", table[precision == ZIPFFT_F64]);
}

/* Whether a four-step kernel's blocks can take the rows in pairs: an even number of
 * transforms per block, at least min_pairs pairs, dividing the rows. */
static int holds_row_pairs(const zipfft__kernel_spec *s, int64_t rows, int min_pairs) {
  return s->ffts_per_block % 2 == 0 && s->ffts_per_block / 2 >= min_pairs &&
         rows % s->ffts_per_block == 0;
}

/* Whether real four-step kernels take the row widths of devices of fast memory
 * (widen_to_row_pairs, merge_in_first_kernel): a fast-memory rule, ZIPFFT_FAST_REAL_ROWS. */
static int fast_real_rows(const zipfft__target *t) {
  return fast_memory_rule("ZIPFFT_FAST_REAL_ROWS", t);
}

/* Doubles the transforms per block of a row kernel with too few row pairs while its block
 * stays within 1024 threads and `shared` bytes, so that the split's stores write longer
 * runs. */
static void widen_within(zipfft__kernel_spec *s, int64_t rows, int min_pairs, size_t shared) {
  while (s->ffts_per_block % 2 == 0 && s->ffts_per_block / 2 < min_pairs &&
         rows % (2 * s->ffts_per_block) == 0) {
    zipfft__kernel_spec wider = *s;
    wider.ffts_per_block *= 2;
    if (zipfft__c2c_block_threads(&wider) > 1024 || zipfft__c2c_shared_bytes(&wider) > shared)
      return;
    *s = wider;
  }
}

/* Widens a row kernel towards min_pairs row pairs within half the target's shared memory
 * (two blocks per multiprocessor); on devices of fast memory (fast_real_rows) also to a
 * block that has a multiprocessor to itself, where that reaches min_pairs. Measured on an
 * H200 (session 56, R2C, % of copy, two runs each): fp32 2^20's 1024-point rows at 8 pairs
 * instead of 4 30.5-30.9 -> 34.9 (1.09x -> 1.25x cuFFT), 2^21 30.5-30.7 -> 34.4-34.5 (1.11x
 * -> 1.25x); fp64 2^21's 2048-point rows at 2 pairs, which lets them split the spectrum
 * (split_in_last_kernel) instead of a pointwise pass, 29.6 -> 32.9 (1.23x -> 1.37x). fp32
 * 2^19 (already at 8 pairs), 2^22 and 2^23 (16 rows of 2048 points do not fit) unchanged. */
static void widen_to_row_pairs(zipfft__kernel_spec *s, int64_t rows, int min_pairs,
                               const zipfft__target *t) {
  widen_within(s, rows, min_pairs, t->max_shared_bytes / 2);
  if (!fast_real_rows(t)) return;
  zipfft__kernel_spec alone = *s;
  widen_within(&alone, rows, min_pairs, t->max_shared_bytes);
  if (alone.ffts_per_block / 2 >= min_pairs) *s = alone;
}

/* Whether a four-step kernel's transforms are its rows (n points each): not where it runs
 * Rader's or Bluestein's method, whose inner FFT has another length. */
static int rows_are_transforms(const zipfft__kernel_spec *s) {
  return s->rader_n == 0 && s->bluestein_n == 0;
}

/* The pass's batch digits as the first digits of s: their counts, the user's strides on
 * one side (user_out: the output) and contiguous rows of `length` on the workspace side. */
static void pass_digits(zipfft__kernel_spec *s, const zipfft__kernel_spec *pass, int64_t length,
                        int user_out) {
  int64_t row = length;
  for (int d = pass->batch_dims - 1; d >= 0; d--) {
    s->batch_counts[d] = pass->batch_counts[d];
    s->batch_in_strides[d] = user_out ? row : pass->batch_in_strides[d];
    s->batch_out_strides[d] = user_out ? pass->batch_out_strides[d] : row;
    row *= pass->batch_counts[d];
  }
}

/* R2C routes: the four-step's last kernel (appended last to dec, writing workspace A) becomes
 * a paired_rows kernel that splits its row pairs into the half spectrum and stores it in the
 * pass's destination, in place of the pointwise split scatter: one pass over the data
 * fewer. Its transforms per block are first widened towards split_wide_row_pairs
 * (widen_to_row_pairs). 0 (nothing changed) where they stay odd, too few or do not divide
 * the rows, the pass's batch digits and the row digits exceed the batch dimensions, the
 * kernel runs Rader's or Bluestein's method (rows_are_transforms), or the output is stored
 * in 16 bits (not measured; the scatter keeps it). */
static int split_in_last_kernel(const zipfft__kernel_spec *pass, const route *r,
                                const zipfft__target *t, zipfft__decomposition *dec) {
  zipfft__kernel_spec *s = &dec->kernels[dec->kernel_count - 1];
  int64_t rows = r->length / s->n;
  int digits = s->batch_dims - 1; /* the rows' digits after the route's batch */
  int min_pairs = min_row_pairs(split_min_row_pairs, pass->precision);
  zipfft__kernel_spec fused = *s;
  widen_to_row_pairs(&fused, rows, min_row_pairs(split_wide_row_pairs, pass->precision), t);
  if (r->scatter != ZIPFFT__PW_SPLIT || !rows_are_transforms(s) ||
      !holds_row_pairs(&fused, rows, min_pairs) ||
      pass->out_storage != ZIPFFT_STORAGE_DEFAULT ||
      pass->batch_dims + digits > ZIPFFT__MAX_BATCH_DIMS)
    return 0;
  fused.kind = ZIPFFT__KIND_R2C_HALF;
  fused.paired_rows = rows;
  fused.out_stride = pass->out_stride, fused.out_storage = pass->out_storage;
  fused.scale = pass->scale, fused.store_extent = pass->store_extent;
  fused.store_callback = pass->store_callback;
  fused.batch_dims = pass->batch_dims + digits;
  for (int d = 0; d < digits; d++) { /* the rows: the output position is the spectrum index */
    fused.batch_counts[pass->batch_dims + d] = s->batch_counts[1 + d];
    fused.batch_in_strides[pass->batch_dims + d] = s->batch_in_strides[1 + d];
    fused.batch_out_strides[pass->batch_dims + d] = 0;
  }
  pass_digits(&fused, pass, r->length, 1);
  *s = fused;
  return 1;
}

/* A merge kernel whose block has merge_split_threads threads (the most a block takes) is
 * narrowed on devices of fast memory (fast_real_rows) to rows of merge_row_bytes: fp32
 * 512-point merge columns 16 -> 8 transforms a block (512 threads), the twiddles then read
 * from the table. Measured on an H200 (session 56, fp32 C2R, % of copy, two runs each):
 * 2^20 31.9-32.1 -> 33.5 (1.17x -> 1.23x cuFFT), 2^19 33.1 -> 33.4-33.6. Narrowing the
 * blocks of 512 threads lost or was mixed: fp32 1024-point columns 2^21 25.7 -> 26.1-26.4,
 * 2^22 23.9-24.0 -> 24.2-24.3, 2^23 23.0 -> 22.4-22.5; fp64 512-point columns 8 -> 4
 * transforms 2^20 33.0 -> 31.7, 2^21 31.5 -> 30.1. */
enum { merge_split_threads = 1024, merge_row_bytes = 64 };

/* C2R routes: the four-step's first kernel (at `at` in dec, its columns the rows of the
 * half length, reading workspace A after the merge gather) becomes a paired_rows kernel that
 * loads the half spectrum from the pass's source and merges it in shared memory, so the
 * merge gather (at - 1) is dropped. Conditions as for the split (its own least number of
 * row pairs per block), and a source stored in the compute precision. */
static int merge_in_first_kernel(const zipfft__kernel_spec *pass, const route *r, int at,
                                 const zipfft__target *t, zipfft__decomposition *dec) {
  zipfft__kernel_spec *s = &dec->kernels[at];
  int64_t rows = r->length / s->n;
  int min_pairs = min_row_pairs(merge_min_row_pairs, pass->precision);
  if (r->gather != ZIPFFT__PW_MERGE || s->batch_dims != 2 || !rows_are_transforms(s) ||
      !holds_row_pairs(s, rows, min_pairs) || pass->in_storage != ZIPFFT_STORAGE_DEFAULT ||
      pass->batch_dims + 1 > ZIPFFT__MAX_BATCH_DIMS)
    return 0;
  zipfft__kernel_spec fused = *s;
  if (fast_real_rows(t) && zipfft__c2c_block_threads(s) >= merge_split_threads) {
    zipfft__kernel_spec narrower = *s;
    zipfft__limit_major_rows(&narrower, dec->transforms[at], t, merge_row_bytes);
    if (holds_row_pairs(&narrower, rows, min_pairs)) fused = narrower;
  }
  fused.kind = ZIPFFT__KIND_C2R_HALF;
  fused.paired_rows = rows;
  fused.in_stride = pass->in_stride, fused.in_storage = pass->in_storage;
  fused.load_extent = pass->load_extent, fused.load_callback = pass->load_callback;
  fused.batch_dims = pass->batch_dims + 1;
  int last = pass->batch_dims; /* the rows: the input position is the spectrum index */
  fused.batch_counts[last] = rows;
  fused.batch_in_strides[last] = 0;
  fused.batch_out_strides[last] = s->batch_out_strides[1];
  pass_digits(&fused, pass, r->length, 0);
  *s = fused;
  for (int i = at - 1; i + 1 < dec->kernel_count; i++) { /* drop the gather */
    dec->kernels[i] = dec->kernels[i + 1];
    dec->transforms[i] = dec->transforms[i + 1];
    dec->src[i] = dec->src[i + 1], dec->dst[i] = dec->dst[i + 1];
  }
  dec->kernel_count--;
  return 1;
}

/* Sets a four-step kernel's fused Bluestein step on its loads (out 0) or stores (out 1):
 * lengths, the convolution's half, and the padded row's position map, its element's and
 * row digits' strides in units of the job's element stride (digit 0, the job's batch,
 * steps 0). */
static void fuse_bluestein_step(zipfft__kernel_spec *s, const zipfft__kernel_spec *pass,
                                const route *r, zipfft__bluestein_step step, int out,
                                int64_t unit) {
  const int64_t *strides = out ? s->batch_out_strides : s->batch_in_strides;
  s->chirp_n = pass->n, s->filter_n = r->length, s->chirp_half = r->half;
  if (out)
    s->bluestein_store = step;
  else
    s->bluestein_load = step;
  s->position_step = (out ? s->out_stride : s->in_stride) / unit;
  s->position_steps[0] = 0;
  for (int d = 1; d < s->batch_dims; d++) s->position_steps[d] = strides[d] / unit;
}

/* Whether Bluestein's route takes three kernels where its padded length splits in two (the
 * first split's rows, the filter multiply and the second split's rows in one kernel,
 * plan/fourstep.c zipfft__fourstep_bluestein_append) instead of two four-steps:
 * ZIPFFT_BLUESTEIN_MIDDLE=0 (tuning) keeps the four-steps. */
static int bluestein_middle(void) {
  const char *env = getenv("ZIPFFT_BLUESTEIN_MIDDLE");
  return !(env && strcmp(env, "0") == 0);
}

/* Bluestein's convolution of the padded length, from src (or workspace A, after a gather)
 * to dst (or A, before a scatter): three kernels where bluestein_middle allows and the
 * length splits in two (plan/fourstep.c zipfft__fourstep_bluestein_append: the middle
 * kernel in place in workspace B), else two four-steps, the second's first kernel
 * multiplying by the filter as it loads. */
static zipfft_status append_convolution(const zipfft__kernel_spec *pass, int64_t rows,
                                        const zipfft__target *t, const route *r, const ends *e,
                                        zipfft__array src, zipfft__array dst,
                                        zipfft__decomposition *dec) {
  const zipfft__array a = ZIPFFT__ARRAY_WORKSPACE, b = ZIPFFT__ARRAY_WORKSPACE2;
  zipfft__array from = e->direct_in ? src : a, to = e->direct_out ? dst : a;
  zipfft__fourstep_job job = job_of(pass, r, rows, e);
  if (bluestein_middle() && zipfft__fourstep_bluestein_fits(&job, t))
    return zipfft__fourstep_bluestein_append(&job, pass->n, r->half, t, from, b, to, dec);
  ends in_end = {.direct_in = e->direct_in, .in_stride = e->in_stride, .in_dist = e->in_dist};
  ends out_end = {
      .direct_out = e->direct_out, .out_stride = e->out_stride, .out_dist = e->out_dist};
  zipfft__fourstep_job first = job_of(pass, r, rows, &in_end),
                       second = job_of(pass, r, rows, &out_end);
  zipfft_status status = zipfft__fourstep_append(&first, t, from, b, a, dec);
  int at = dec->kernel_count;
  if (status == ZIPFFT_SUCCESS) status = zipfft__fourstep_append(&second, t, a, b, to, dec);
  if (status == ZIPFFT_SUCCESS)
    fuse_bluestein_step(&dec->kernels[at], pass, r, ZIPFFT__BLUESTEIN_FILTER, 0, 1);
  return status;
}

/* Bluestein's route with its pointwise work fused (fused_bluestein): the gather only where
 * the convolution's first kernel cannot read the source itself, the convolution (its first
 * kernel loading x times the chirp, its last storing conj(y) times the chirp, only the
 * user's positions), the scatter only where its last kernel cannot write the destination
 * itself. Measured on an H200: see docs/perf/2026-12-03-h200-fused-bluestein.md and
 * docs/perf/2026-12-03-h200-bluestein-three-kernels.md. */
static zipfft_status append_bluestein(const zipfft__kernel_spec *pass, int64_t rows,
                                      const zipfft__target *t, const route *r, const ends *e,
                                      zipfft__array src, zipfft__array dst,
                                      zipfft__decomposition *dec) {
  zipfft_status status = ZIPFFT_SUCCESS;
  if (!e->direct_in) status = append_transfer(pass, r, 1, rows, src, dst, dec);
  int first = dec->kernel_count;
  if (status == ZIPFFT_SUCCESS) status = append_convolution(pass, rows, t, r, e, src, dst, dec);
  if (status == ZIPFFT_SUCCESS && e->direct_in)
    fuse_bluestein_step(&dec->kernels[first], pass, r, chirp_step(pass->kind, 0), 0,
                        e->in_stride);
  if (status == ZIPFFT_SUCCESS && e->direct_out)
    fuse_bluestein_step(&dec->kernels[dec->kernel_count - 1], pass, r, chirp_step(pass->kind, 1),
                        1, e->out_stride);
  if (status == ZIPFFT_SUCCESS && !e->direct_out)
    status = append_transfer(pass, r, 0, rows, src, dst, dec);
  return status;
}

/* Appends the kernels of a route: gather, the job's four-step or the cluster kernel (when
 * cluster is not NULL; for Bluestein the filter and a second four-step), scatter; a direct
 * end leaves out its gather or scatter, and so does a merge or split that a four-step
 * kernel takes over (merge_in_first_kernel, split_in_last_kernel). */
static zipfft_status append_route(const zipfft__kernel_spec *pass, int64_t rows,
                                  const zipfft__target *t, const route *r, const ends *e,
                                  const zipfft__fourstep_job *job,
                                  const zipfft__kernel_spec *cluster, zipfft__array src,
                                  zipfft__array dst, zipfft__decomposition *dec) {
  const zipfft__array a = ZIPFFT__ARRAY_WORKSPACE, b = ZIPFFT__ARRAY_WORKSPACE2;
  if (r->gather == ZIPFFT__PW_CHIRP_GATHER && fused_bluestein())
    return append_bluestein(pass, rows, t, r, e, src, dst, dec);
  int one_part = e->direct_in && e->direct_out;
  zipfft__kernel_spec s;
  zipfft_status status = ZIPFFT_SUCCESS;
  if (!e->direct_in) status = append_transfer(pass, r, 1, rows, src, dst, dec);
  zipfft__array from, to;
  fft_arrays(e, src, dst, &from, &to);
  int first = dec->kernel_count;
  if (status == ZIPFFT_SUCCESS && cluster)
    status = append_kernel(cluster, rows, from, to, dec);
  else if (status == ZIPFFT_SUCCESS)
    status = zipfft__fourstep_append(job, t, from, one_part ? a : b, to, dec);
  if (status == ZIPFFT_SUCCESS && !cluster && !e->direct_in && first > 0 &&
      merge_in_first_kernel(pass, r, first, t, dec))
    dec->src[first - 1] = src;
  if (status == ZIPFFT_SUCCESS && r->gather == ZIPFFT__PW_CHIRP_GATHER) {
    filter_spec(pass, r, rows, &s);
    status = append_pointwise(&s, rows, a, a, dec);
    if (status == ZIPFFT_SUCCESS) status = zipfft__fourstep_append(job, t, a, b, a, dec);
  }
  if (status == ZIPFFT_SUCCESS && !cluster && split_in_last_kernel(pass, r, t, dec)) {
    dec->dst[dec->kernel_count - 1] = dst;
    return status;
  }
  if (status == ZIPFFT_SUCCESS && !e->direct_out)
    status = append_transfer(pass, r, 0, rows, src, dst, dec);
  return status;
}

/* 1 when the route appended from kernel `first` on ends with its four-step, whose kernels
 * are dec's from split_first on: no scatter or split after them (a C2R route whose merge
 * the first four-step kernel took over, or one that reads and writes the user's arrays
 * directly), not Bluestein's two four-steps, the last two plain C2C kernels. */
static int ends_in_fourstep(const zipfft__decomposition *dec, int first, int split_first) {
  int last = dec->kernel_count - 1;
  return split_first >= first && last - 1 >= split_first &&
         dec->kernels[last].kind == ZIPFFT__KIND_C2C &&
         dec->kernels[last - 1].kind == ZIPFFT__KIND_C2C &&
         dec->kernels[last].pointwise == ZIPFFT__PW_NONE &&
         dec->kernels[last - 1].pointwise == ZIPFFT__PW_NONE &&
         dec->kernels[last].bluestein_n == 0 &&
         dec->kernels[last].bluestein_store == ZIPFFT__BLUESTEIN_NONE &&
         dec->kernels[last - 1].bluestein_load == ZIPFFT__BLUESTEIN_NONE;
}

/* Appends the kernels of a pass by route r (see zipfft__long_axis_append). */
static zipfft_status append_pass(const zipfft__kernel_spec *pass, int64_t rows,
                                 const zipfft__target *t, route r, zipfft__array src,
                                 zipfft__array dst, zipfft__decomposition *dec) {
  rows = pair_rows(pass, rows, t, &r);
  ends e = ends_of(pass, &r);
  int bluestein = r.gather == ZIPFFT__PW_CHIRP_GATHER, fused = bluestein && fused_bluestein();
  int kernels = !e.direct_in + !e.direct_out + r.split + (bluestein ? !fused + r.split : 0);
  if (dec->kernel_count + kernels > ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                        "length %lld: this pass of %d kernels would take the plan past %d kernels "
                        "(at most two axes can be longer than one kernel)",
                        (long long)pass->n, kernels, ZIPFFT__MAX_KERNELS);
  if (zipfft__saturating_product(rows, r.length) > ZIPFFT__MAX_ELEMENTS)
    return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                        "length %lld: its workspace of %lld rows of %lld points passes 2^58 "
                        "elements",
                        (long long)pass->n, (long long)rows, (long long)r.length);
  zipfft__fourstep_job job = job_of(pass, &r, rows, &e);
  zipfft__kernel_spec cluster;
  int one_kernel = !fused && takes_cluster(&job, &e, src, dst, t, &cluster),
      first = dec->kernel_count;
  zipfft_status status =
      append_route(pass, rows, t, &r, &e, &job, one_kernel ? &cluster : NULL, src, dst, dec);
  for (int i = first; r.pair_apart && i < dec->kernel_count; i++)
    dec->whole_batch[i] = 1; /* row pairs: their work is not a multiple of the batch */
  if (status == ZIPFFT_SUCCESS)
    reserve_workspace(
        dec,
        zipfft__bytes_product(zipfft__bytes_product((uint64_t)rows, (uint64_t)r.length),
                              zipfft__complex_bytes(pass->precision, ZIPFFT_STORAGE_DEFAULT)),
        workspace_parts(dec, first));
  /* taken as in place: the user's arrays may be one, which this level does not know */
  int split_first = dec->kernel_count - r.split;
  if (status == ZIPFFT_SUCCESS && !one_kernel && ends_in_fourstep(dec, first, split_first))
    zipfft__fourstep_pair_last_two(&job, split_first, 1, t, dec);
  if (status == ZIPFFT_SUCCESS && !one_kernel) zipfft__fourstep_tile_rows(dec, first, t);
  if (status == ZIPFFT_SUCCESS && !one_kernel) zipfft__fourstep_rows_in_place(dec, first);
  return status;
}

/* fp32 real routes whose half length splits in three (or more) kernels are planned a second
 * time with a split in two of columns as large as the rows (zipfft__fourstep_job loose_two)
 * and take it, on devices of slow memory, where it was measured, when the split in two's
 * first FFT kernel (its columns) has an even length and meets the kind's conditions below
 * (tuning: ZIPFFT_LOOSE_R2C and ZIPFFT_LOOSE_C2R, 0 never, 1 the rule, 2 whenever the half
 * length has such a split).
 *
 * R2C: the split in two's row kernel cannot hold the row pairs of the split, which a
 * pointwise scatter then does, where the split in three's last kernel splits its row pairs.
 * Taken when the columns are even with radices of at most loose_max_radix. H100, cuFFT
 * ratio, three kernels -> two and the scatter: 2^24 (session 33) 0.89x -> 0.96x, 2^25 0.91x
 * -> 0.95x; session 85 (docs/perf/2026-12-07-h100-c2r-loose-splits.md), as 1944 to 3072
 * columns of radices up to 18: 8398080 1.35x -> 1.50x, 3 x 2^22 1.10x -> 1.25x, 20971520
 * 1.04x -> 1.18x, 25165824 1.15x -> 1.22x; 3125-point columns lose (20000000 1.11x -> 0.79x,
 * 22500000 1.21x -> 0.95x, 25000000 1.19x -> 0.83x), and so do 2058 = 21x14x7 (9483264 1.30x
 * -> 1.12x), 2625 = 25x21x5 (session 86: 14112000 1.41x -> 1.06x, 14700000 1.45x -> 1.23x)
 * and 2450 = 25x14x7 (12544000 1.25x -> 1.23x); 2500 = 25x25x4 runs the same (14000000
 * 1.25x, 1.24x).
 *
 * C2R: the split in two's first kernel merges the half spectrum (merge_in_first_kernel).
 * Taken when the split in three does not pair its last two kernels, the two kernels are all
 * (no scatter) and meet C2C's limits for a loose split (zipfft__loose_kernels_fit, fp32:
 * even merge columns, rows of 4 or more transforms a block, at most 1024 threads a block),
 * and either the split in three needed a merge gather of its own (a pass saved) or the merge
 * kernel's radices are at most loose_max_radix. H100, session 85, cuFFT ratio:
 * - with a merge gather before (four kernels): 8398080 (1944 x 2160 of the half) 1.22x ->
 *   1.54x, 12600000 (2500 x 2520) 1.46x -> 1.69x, 14400000 1.44x -> 1.68x, 15000000 1.20x ->
 *   1.46x; with 3125-point columns they lose (22500000 1.22x -> 0.96x, 25000000 1.09x ->
 *   0.85x);
 * - the merge in the first kernel of three: merge kernels of radices up to 20 gain (2048 =
 *   16x16x8: 3 x 2^22 1.26x -> 1.33x, 14680064 1.26x -> 1.32x, 8847360 1.44x -> 1.55x,
 *   11010048 1.51x -> 1.59x; 2000 = 20x20x5: 9600000 1.68x -> 1.79x; 2268 = 18x18x7:
 *   10450944 1.47x -> 1.56x, 10886400 1.40x -> 1.63x), those of radix 21 or 25 lose (2058
 *   = 21x14x7: 9483264 1.46x -> 1.21x, 8890560 1.47x -> 1.38x; 2450 = 25x14x7: 12544000
 *   1.45x -> 1.24x; 2500 = 25x25x4: 14000000 1.51x -> 1.42x, 13720000 1.27x -> 1.21x),
 *   likeliest by spilling (nvcc offline, session 86: a block of 25 warps gets at most 72
 *   registers a thread, one of 32 warps 64; the merge kernels that gained spill 0 or 8
 *   bytes, those that lost 12 (2058), 32 (2500), 44 (2450) and 72 (2625); not confirmed on
 *   a GPU); so do 3125-point columns (20000000 1.17x -> 0.79x) and 2625-point ones
 *   (session 86: 14700000 1.75x -> 1.30x, 14112000 1.49x -> 1.12x, and after a merge gather
 *   15750000 1.37x -> 1.31x);
 * - paired splits in three, which keep the data between their last two kernels in L2, lose:
 *   2^24 1.20x -> 1.11x, 9437184 1.41x -> 1.32x, 10485760 1.39x -> 1.31x; rows of 2
 *   transforms a block lose most (20971520 as 2048 x 5120 1.39x -> 0.79x). */
enum { loose_max_radix = 20 };

enum loose_real_mode { LOOSE_REAL_NEVER, LOOSE_REAL_RULE, LOOSE_REAL_ALWAYS };

/* The mode of the loose split for a pass by route r: never unless it is a real route of the
 * half length split in three or more kernels; the rule only for fp32 on slow memory. */
static enum loose_real_mode loose_real_mode(const zipfft__kernel_spec *pass, const route *r,
                                            const zipfft__target *t) {
  int r2c = r->gather_kind == ZIPFFT__KIND_R2C_HALF, c2r = r->gather == ZIPFFT__PW_MERGE;
  if ((!r2c && !c2r) || r->split < 3) return LOOSE_REAL_NEVER;
  int mode = zipfft__tuning_int(r2c ? "ZIPFFT_LOOSE_R2C" : "ZIPFFT_LOOSE_C2R", LOOSE_REAL_RULE);
  if (mode <= LOOSE_REAL_NEVER) return LOOSE_REAL_NEVER;
  if (mode >= LOOSE_REAL_ALWAYS) return LOOSE_REAL_ALWAYS;
  return pass->precision == ZIPFFT_F32 && zipfft__slow_memory(t) ? LOOSE_REAL_RULE
                                                                 : LOOSE_REAL_NEVER;
}

/* 1 when dec pairs two kernels from `first` on. */
static int paired_from(const zipfft__decomposition *dec, int first) {
  return dec->paired && dec->pair_first >= first;
}

/* The largest radix of a kernel's passes. */
static int largest_radix(const zipfft__kernel_spec *s) {
  int largest = 0;
  for (int i = 0; i < s->pass_count; i++)
    if (s->radices[i] > largest) largest = s->radices[i];
  return largest;
}

/* Whether the kernels a loose split of an R2C or C2R (c2r) pass appended from `first` on meet
 * the rule (see loose_real_mode), where the split in three took `three_kernels` kernels. */
static int loose_split_fits(const zipfft__decomposition *dec, int first, int three_kernels,
                            int c2r) {
  int at = first;
  while (at < dec->kernel_count && dec->kernels[at].pass_count == 0) at++; /* a gather */
  if (at + 1 >= dec->kernel_count || paired_from(dec, first)) return 0;
  const zipfft__kernel_spec *columns = &dec->kernels[at], *rows = &dec->kernels[at + 1];
  int narrow = largest_radix(columns) <= loose_max_radix;
  if (!c2r) return zipfft__logical_length(columns) % 2 == 0 && narrow;
  return dec->kernel_count - first == 2 && zipfft__loose_kernels_fit(columns, rows) &&
         (three_kernels > 3 || narrow);
}

/* Replaces dec (the pass appended by route r to `before`, the plan before it) by the pass
 * with its half length split loose in two, appended in trial (scratch), where the mode takes
 * it (the rule: dec's split does not pair and the split in two fits loose_split_fits). */
static void take_loose_split(const zipfft__kernel_spec *pass, int64_t rows, const zipfft__target *t,
                             route r, zipfft__array src, zipfft__array dst,
                             enum loose_real_mode mode, const zipfft__decomposition *before,
                             zipfft__decomposition *trial, zipfft__decomposition *dec) {
  *trial = *before;
  int first = trial->kernel_count, three_kernels = dec->kernel_count - first;
  if (mode == LOOSE_REAL_RULE && paired_from(dec, first)) return;
  r.loose_two = 1;
  r.split = zipfft__fourstep_kernels(pass->precision, r.length, 1, r.short_first, t);
  if (r.split != 2 || append_pass(pass, rows, t, r, src, dst, trial) != ZIPFFT_SUCCESS) return;
  if (mode == LOOSE_REAL_ALWAYS ||
      loose_split_fits(trial, first, three_kernels, r.gather == ZIPFFT__PW_MERGE))
    *dec = *trial;
}

/* Where route r splits with short merge columns but its merge could not join the first
 * kernel (a merge pass of its own: the rows do not split evenly into the blocks' row pairs),
 * replaces dec (the pass appended by r to `before`, the plan before it) by the pass with the
 * balanced split, appended in trial (scratch), when that takes fewer kernels, and r by its
 * route. H100 fp32 C2R 2000000 as 320 x 3125 with a merge pass: 1.35x -> 1.02x cuFFT
 * (session 87). */
static void keep_merge_in_first_kernel(const zipfft__kernel_spec *pass, int64_t rows,
                                       const zipfft__target *t, route *r, zipfft__array src,
                                       zipfft__array dst, const zipfft__decomposition *before,
                                       zipfft__decomposition *trial, zipfft__decomposition *dec) {
  *trial = *before;
  route balanced = *r;
  balanced.short_first = 0;
  balanced.split = zipfft__fourstep_kernels(pass->precision, r->length, 0, 0, t);
  if (balanced.split <= 0 ||
      append_pass(pass, rows, t, balanced, src, dst, trial) != ZIPFFT_SUCCESS)
    return;
  if (trial->kernel_count < dec->kernel_count) *dec = *trial, *r = balanced;
}

zipfft_status zipfft__long_axis_append(const zipfft__kernel_spec *pass, int64_t rows,
                                       const zipfft__target *t, zipfft__array src,
                                       zipfft__array dst, zipfft__decomposition *dec) {
  route r = route_of(pass, t);
  if (r.length == 0)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "no workspace pass for length %lld",
                        (long long)pass->n);
  /* scratch[0]: the plan before the pass, to try other splits from; scratch[1]: the trial
   * (their rules are skipped where these copies cannot be had) */
  int tries = r.short_first || loose_real_mode(pass, &r, t) != LOOSE_REAL_NEVER;
  zipfft__decomposition *scratch = tries ? malloc(2 * sizeof *scratch) : NULL;
  if (scratch) scratch[0] = *dec;
  zipfft_status status = append_pass(pass, rows, t, r, src, dst, dec);
  if (status == ZIPFFT_SUCCESS && scratch && r.short_first)
    keep_merge_in_first_kernel(pass, rows, t, &r, src, dst, &scratch[0], &scratch[1], dec);
  enum loose_real_mode mode = loose_real_mode(pass, &r, t);
  if (status == ZIPFFT_SUCCESS && scratch && mode != LOOSE_REAL_NEVER)
    take_loose_split(pass, rows, t, r, src, dst, mode, &scratch[0], &scratch[1], dec);
  free(scratch);
  return status;
}
