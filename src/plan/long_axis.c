/* long_axis.c - a pass over an axis too long for one kernel, through the plan's workspace.
 *
 * A pointwise kernel gathers the pass's rows from the source array into workspace part A
 * as contiguous complex rows (real loads, the Hermitian half expanded, storage converted);
 * a four-step split transforms them there (A -> B -> A); a pointwise kernel scatters them
 * to the destination (the Hermitian half kept, or the real part, storage converted,
 * scaled). A length with no split (a large prime factor) runs Bluestein's method: the
 * gather multiplies by the chirp and pads with zeros, two four-step FFTs of the padded
 * length have a pointwise filter multiply between them, and the scatter multiplies by the
 * chirp again. Real transforms run at full complex length here (no half-length method).
 * Each pass reads and writes every element once more than a fused four-step would. */
#include "plan/long_axis.h"

#include "api/error.h"
#include "plan/fourstep.h"
#include "plan/single.h"

/* Length of the rows in the workspace: n when it splits, else Bluestein's padded length
 * when that splits, else 0. */
static int64_t workspace_length(zipfft_precision precision, int64_t n, const zipfft__target *t) {
  if (zipfft__fourstep_kernels(precision, n, t) > 0) return n;
  int64_t m = zipfft__bluestein_length(n);
  return zipfft__fourstep_kernels(precision, m, t) > 0 ? m : 0;
}

int zipfft__long_axis_possible(zipfft_precision precision, int64_t n, const zipfft__target *t) {
  return workspace_length(precision, n, t) > 0;
}

static int64_t chunks_of(int64_t range) {
  return (range + ZIPFFT__POINTWISE_CHUNK - 1) / ZIPFFT__POINTWISE_CHUNK;
}

/* Common part of every pointwise spec: no passes, one chunk of a row per block. */
static void make_pointwise(zipfft__kernel_spec *s, zipfft__pointwise_op op, int64_t range) {
  s->pointwise = op;
  s->pointwise_range = range;
  s->pass_count = 0;
  s->threads_per_fft = ZIPFFT__POINTWISE_THREADS;
  s->ffts_per_block = 1;
  s->fft_major = s->store_major = 0;
  s->twiddle_length = 0;
  s->batch_counts[s->batch_dims] = chunks_of(range);
  s->batch_in_strides[s->batch_dims] = s->batch_out_strides[s->batch_dims] = 0;
  s->batch_dims++;
}

/* The gather (to_workspace) or scatter of a pass: its batch digits keep their strides on
 * the user's side and become row strides of `length` on the workspace side. */
static void transfer_spec(const zipfft__kernel_spec *pass, int64_t length, int to_workspace,
                          zipfft__kernel_spec *s) {
  int bluestein = length != pass->n;
  *s = *pass;
  s->n = length;
  s->bluestein_n = bluestein ? pass->n : 0;
  int64_t row = length;
  for (int d = s->batch_dims - 1; d >= 0; d--) {
    if (to_workspace)
      s->batch_out_strides[d] = row;
    else
      s->batch_in_strides[d] = row;
    row *= s->batch_counts[d];
  }
  if (to_workspace) {
    s->out_stride = 1, s->out_storage = ZIPFFT_STORAGE_DEFAULT, s->scale = 1.0;
    make_pointwise(s, bluestein ? ZIPFFT__PW_CHIRP_GATHER : ZIPFFT__PW_GATHER, length);
  } else {
    s->in_stride = 1, s->in_storage = ZIPFFT_STORAGE_DEFAULT;
    int64_t range = pass->kind == ZIPFFT__KIND_R2C ? pass->n / 2 + 1 : pass->n;
    make_pointwise(s, bluestein ? ZIPFFT__PW_CHIRP_SCATTER : ZIPFFT__PW_SCATTER, range);
  }
}

/* Bluestein's filter multiply, in place over `rows` contiguous rows of length m. */
static void filter_spec(const zipfft__kernel_spec *pass, int64_t m, int64_t rows,
                        zipfft__kernel_spec *s) {
  *s = (zipfft__kernel_spec){.kind = ZIPFFT__KIND_C2C,
                             .precision = pass->precision,
                             .sign = pass->sign,
                             .n = m,
                             .bluestein_n = pass->n,
                             .in_stride = 1,
                             .out_stride = 1,
                             .batch_dims = 1,
                             .batch_counts = {rows},
                             .batch_in_strides = {m},
                             .batch_out_strides = {m},
                             .scale = 1.0};
  make_pointwise(s, ZIPFFT__PW_FILTER, m);
}

/* Appends a pointwise kernel (rows chunks of transforms). */
static zipfft_status append_pointwise(const zipfft__kernel_spec *s, int64_t rows, zipfft__array src,
                                      zipfft__array dst, zipfft__decomposition *dec) {
  int at = dec->kernel_count++;
  dec->kernels[at] = *s;
  dec->transforms[at] = rows * chunks_of(s->pointwise_range);
  dec->src[at] = src, dec->dst[at] = dst;
  return ZIPFFT_SUCCESS;
}

/* Grows the workspace to two parts of `part` bytes at least. */
static void reserve_workspace(zipfft__decomposition *dec, uint64_t part) {
  if (dec->second_workspace_offset < part) dec->second_workspace_offset = part;
  if (dec->workspace_bytes < 2 * dec->second_workspace_offset)
    dec->workspace_bytes = 2 * dec->second_workspace_offset;
}

zipfft_status zipfft__long_axis_append(const zipfft__kernel_spec *pass, int64_t rows,
                                       const zipfft__target *t, zipfft__array src,
                                       zipfft__array dst, zipfft__decomposition *dec) {
  int64_t length = workspace_length(pass->precision, pass->n, t);
  if (length == 0)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "no workspace pass for length %lld",
                        (long long)pass->n);
  int split = zipfft__fourstep_kernels(pass->precision, length, t),
      kernels = length == pass->n ? 2 + split : 3 + 2 * split;
  if (dec->kernel_count + kernels > ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                        "length %lld: this pass of %d kernels would take the plan past %d kernels "
                        "(at most two axes can be longer than one kernel)",
                        (long long)pass->n, kernels, ZIPFFT__MAX_KERNELS);
  reserve_workspace(dec, (uint64_t)rows * (uint64_t)length *
                             zipfft__complex_bytes(pass->precision, ZIPFFT_STORAGE_DEFAULT));
  zipfft__fourstep_job job = {.precision = pass->precision,
                              .sign = pass->sign,
                              .n = length,
                              .batch = rows,
                              .in_stride = 1,
                              .in_dist = length,
                              .out_stride = 1,
                              .out_dist = length,
                              .scale = 1.0};
  const zipfft__array a = ZIPFFT__ARRAY_WORKSPACE, b = ZIPFFT__ARRAY_WORKSPACE2;
  zipfft__kernel_spec s;
  transfer_spec(pass, length, 1, &s);
  zipfft_status status = append_pointwise(&s, rows, src, a, dec);
  if (status == ZIPFFT_SUCCESS) status = zipfft__fourstep_append(&job, t, a, b, a, dec);
  if (status == ZIPFFT_SUCCESS && length != pass->n) {
    filter_spec(pass, length, rows, &s);
    status = append_pointwise(&s, rows, a, a, dec);
    if (status == ZIPFFT_SUCCESS) status = zipfft__fourstep_append(&job, t, a, b, a, dec);
  }
  transfer_spec(pass, length, 0, &s);
  if (status == ZIPFFT_SUCCESS) status = append_pointwise(&s, rows, a, dst, dec);
  return status;
}
