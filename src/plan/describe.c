/* describe.c - the human-readable line of one planned kernel (zipfft_plan_print). */
#include <stdio.h>

#include "plan/strategy.h"
#include "plan/twiddle.h"

static const char *const kinds[] = {"c2c",
                                    "r2c",
                                    "c2r",
                                    "r2c (half length)",
                                    "c2r (half length)",
                                    "r2r (real to real around complex FFTs)"};
static const char *const arrays[ZIPFFT__ARRAY_COUNT] = {
    "input", "output", "workspace", "workspace B", "intermediate", "statistics", "signal sum"};

/* The line of pointwise kernel i: its operation, arrays and range. */
static void print_pointwise(const zipfft__decomposition *dec, int i, zipfft__strbuf *sb) {
  const zipfft__kernel_spec *s = &dec->kernels[i];
  static const char *const ops[] = {"",
                                    "gather",
                                    "gather times chirp, zero-padded",
                                    "Bluestein filter multiply",
                                    "scatter",
                                    "scatter times chirp",
                                    "merge of the half spectrum",
                                    "split into the half spectrum",
                                    "sum of the signals"};
  int64_t chunks = s->batch_counts[s->batch_dims - 1];
  zipfft__sb_printf(sb, "%s, %s (%s -> %s): %lld positions of %lld rows%s\n", ops[s->pointwise],
                    kinds[s->kind], arrays[dec->src[i]], arrays[dec->dst[i]],
                    (long long)s->pointwise_range, (long long)(dec->transforms[i] / chunks),
                    s->row_pair_apart ? " (two real rows a complex row)" : "");
}

/* The first line of FFT kernel i: arrays, length, transforms, passes and threads. */
static void print_fft_line(const zipfft__decomposition *dec, int i, zipfft__strbuf *sb) {
  const zipfft__kernel_spec *s = &dec->kernels[i];
  zipfft__sb_printf(sb, "%s (%s -> %s): n=%lld, %lld transforms, %d Stockham pass%s of radix ",
                    kinds[s->kind], arrays[dec->src[i]], arrays[dec->dst[i]],
                    (long long)zipfft__logical_length(s), (long long)dec->transforms[i],
                    s->pass_count, s->pass_count == 1 ? "" : "es");
  for (int r = 0; r < s->pass_count; r++)
    zipfft__sb_printf(sb, "%s%d", r ? "x" : "", s->radices[r]);
  zipfft__sb_printf(
      sb, ", %d threads per transform, %d transform%s per block%s%s\n", s->threads_per_fft,
      s->ffts_per_block, s->ffts_per_block == 1 ? "" : "s",
      s->fft_major ? " (neighbouring threads on neighbouring transforms)" : "",
      s->store_major ? " (stored by neighbouring threads on neighbouring transforms)" : "");
}

/* Detail lines of an FFT kernel's structure: clusters, row pairs, mirrored threads, merged
 * loads, passes in place. */
static void print_structure(const zipfft__kernel_spec *s, zipfft__strbuf *sb) {
  static const char *const cluster_real[] = {[ZIPFFT__KIND_R2C_HALF] =
                                                 " (at k and n - k, split "
                                                 "into the half spectrum)",
                                             [ZIPFFT__KIND_C2R_HALF] =
                                                 ", the loads merged from "
                                                 "the half spectrum"};
  char per[64] = "per transform";
  int columns = s->ffts_per_block > 1;
  if (columns) snprintf(per, sizeof per, "per %d columns", s->ffts_per_block);
  if (s->cluster > 1)
    zipfft__sb_printf(sb,
                      "      cluster of %d blocks %s: each block a %lld-point FFT of "
                      "every %d-th element%s, twiddles, %d-point DFTs across the blocks' shared "
                      "memory%s%s%s\n",
                      s->cluster, per, (long long)s->n, s->cluster,
                      columns ? " of each column" : "", s->cluster,
                      zipfft__kind_is_half(s->kind) ? cluster_real[s->kind] : "",
                      s->cluster_mirror ? " (X[L - e] from the partner block's shared memory)" : "",
                      columns && !zipfft__cluster_stores_by_column(s)
                          ? ", stored by neighbouring threads on neighbouring k of a column"
                          : "");
  if (s->shared_interleaved)
    zipfft__sb_printf(sb, "      shared memory interleaved: element e of column f at e * %d + f\n",
                      s->ffts_per_block);
  if (s->paired_rows)
    zipfft__sb_printf(
        sb, "      rows r and %lld - r in one block, %s the half spectrum of %lld points\n",
        (long long)s->paired_rows, s->kind == ZIPFFT__KIND_R2C_HALF ? "split into" : "merged from",
        (long long)(s->paired_rows * s->n));
  if (s->mirrored) {
    int r2c = s->kind == ZIPFFT__KIND_R2C_HALF;
    zipfft__sb_printf(sb,
                      "      %s pass's threads on butterflies j and %lld - j: the %s in "
                      "registers\n",
                      r2c ? "last" : "first",
                      (long long)(s->n / s->radices[zipfft__mirrored_pass(s)]),
                      r2c ? "split into the half spectrum" : "merge from the half spectrum");
  }
  if (s->merge_on_load)
    zipfft__sb_printf(sb,
                      "      first pass merges the half spectrum as it loads (X[e] and "
                      "X[%lld - e])\n",
                      (long long)zipfft__half_points(s));
  if (s->passes_in_place && zipfft__two_ffts(s))
    zipfft__sb_printf(sb,
                      "      passes in place (each writes the slots it read): the first FFT in "
                      "frequency, its outputs digit-reversed, the second in time\n");
  else if (s->passes_in_place)
    zipfft__sb_printf(sb,
                      "      passes in place (each writes the slots it read), in frequency: "
                      "the stores read the outputs digit-reversed\n");
}

/* Detail lines of an FFT kernel's data layout: twiddles, tiles, staged rows, evict-first. */
static void print_data(const zipfft__kernel_spec *s, zipfft__strbuf *sb) {
  if (s->shared_twiddles)
    zipfft__sb_printf(sb, "      pass twiddles staged in shared memory %s\n",
                      zipfft__copies_twiddles_in_first_pass(s) ? "during the first pass's loads"
                                                               : "when the block starts");
  if (s->twiddle_length)
    zipfft__sb_printf(sb, "      fused twiddles exp(%ci 2 pi m k / %lld) while storing\n",
                      s->sign < 0 ? '-' : '+', (long long)s->twiddle_length);
  if (s->twiddle_length && s->twiddle_chain > 1 && s->cluster > 1)
    zipfft__sb_printf(sb,
                      "      the fused twiddles of outputs k + %lld q read where q is a multiple "
                      "of %d, the others chained from the one before\n",
                      (long long)s->n, s->twiddle_chain);
  else if (s->twiddle_length && s->twiddle_chain > 1)
    zipfft__sb_printf(sb,
                      "      every %dth of a thread's fused twiddles read, the others chained "
                      "from the nearest one read\n",
                      s->twiddle_chain);
  if (s->out_tile > 1)
    zipfft__sb_printf(sb,
                      "      outputs stored in tiles of %d rows (element e at e * %lld + "
                      "(e mod %d) * %lld)\n",
                      s->out_tile, (long long)s->out_stride, s->out_tile,
                      (long long)s->out_tile_shift);
  if (s->in_tile > 1)
    zipfft__sb_printf(sb, "      input rows read from tiles of %d rows (element stride %lld)\n",
                      s->in_tile, (long long)s->in_stride);
  if (s->aux_pairs)
    zipfft__sb_printf(sb,
                      "      kept spectrum in the order the threads read it: rows e and e + %lld "
                      "side by side, two values an access\n",
                      (long long)(s->n / s->radices[0]));
  if (s->stage_rows)
    zipfft__sb_printf(sb,
                      "      each iteration's rows copied into shared memory during the "
                      "previous one (bulk asynchronous copies)\n");
  if (s->split_by_element && !s->stage_io)
    zipfft__sb_printf(sb, "      split by output element: neighbouring threads store "
                          "neighbouring elements over the block's transforms\n");
  if (s->stage_io)
    zipfft__sb_printf(sb, "      %s through shared memory by element over the block\n",
                      s->kind == ZIPFFT__KIND_R2C_HALF
                          ? "input rows copied, and the split's outputs stored,"
                          : "input and output rows copied");
  if (s->out_packed)
    zipfft__sb_printf(sb,
                      "      outputs packed, 6 bytes an element: 48-byte segments of 8 "
                      "values sharing an exponent, an element of 8 neighbouring transforms "
                      "a segment\n");
  if (s->in_packed)
    zipfft__sb_printf(sb,
                      "      inputs unpacked from 48-byte segments of 8 values sharing an "
                      "exponent (%s), a segment a thread\n",
                      s->in_packed == ZIPFFT__PACKED_ACROSS
                          ? "an element of 8 neighbouring transforms"
                          : "8 elements of a transform");
  if (s->streaming_io)
    zipfft__sb_printf(sb, "      inputs and outputs evict-first (the tables stay in L2)\n");
}

/* Detail lines of a convolution kernel: Bluestein's chirps and filter, Rader's permutations. */
static void print_convolution(const zipfft__kernel_spec *s, zipfft__strbuf *sb) {
  if (s->bluestein_n)
    zipfft__sb_printf(sb,
                      "      Bluestein: chirp, %lld-point FFT, filter, %lld-point FFT, chirp "
                      "(%lld inputs, %lld outputs)\n",
                      (long long)s->n, (long long)s->n,
                      (long long)zipfft__chirp_inputs(s->bluestein_n, s->chirp_half),
                      (long long)zipfft__chirp_outputs(s->bluestein_n, s->chirp_half));
  static const char *const chirp_loads[] = {
      [ZIPFFT__BLUESTEIN_CHIRP] = "",
      [ZIPFFT__BLUESTEIN_CHIRP_REAL] = " real inputs",
      [ZIPFFT__BLUESTEIN_CHIRP_HALF] = " from the Hermitian half, weighted 2 but 1 at 0 and n/2"};
  if (zipfft__loads_chirp(s))
    zipfft__sb_printf(sb,
                      "      Bluestein's chirp times the first %lld positions of each padded row "
                      "as it loads%s (the rest zeros, never read)\n",
                      (long long)zipfft__chirp_inputs(s->chirp_n, s->chirp_half),
                      chirp_loads[s->bluestein_load]);
  if (s->bluestein_load == ZIPFFT__BLUESTEIN_FILTER)
    zipfft__sb_printf(sb, "      Bluestein's filter multiply (%lld points) as it loads\n",
                      (long long)s->filter_n);
  if (s->fused == ZIPFFT__FUSED_BLUESTEIN)
    zipfft__sb_printf(sb,
                      "      Bluestein's filter multiply (%lld points, read in the rows' order) "
                      "between two %lld-point FFTs\n",
                      (long long)s->filter_n, (long long)s->n);
  if (s->bluestein_store)
    zipfft__sb_printf(sb,
                      "      Bluestein's chirp times the outputs as it stores%s, only the first "
                      "%lld positions of each padded row\n",
                      s->bluestein_store == ZIPFFT__BLUESTEIN_CHIRP_REAL ? " as reals" : "",
                      (long long)zipfft__chirp_outputs(s->chirp_n, s->chirp_half));
  if (s->rader_n)
    zipfft__sb_printf(sb,
                      "      Rader: input permuted by the powers of %lld, %lld-point FFT, "
                      "filter, %lld-point FFT, output permuted\n",
                      (long long)zipfft__primitive_root(s->rader_n), (long long)s->n,
                      (long long)s->n);
  if (s->rader_by_element)
    zipfft__sb_printf(sb, "      Rader's rows loaded and stored by element over the block\n");
}

void zipfft__print_kernel(const zipfft__decomposition *dec, int i, zipfft__strbuf *sb) {
  if (dec->kernels[i].pointwise != ZIPFFT__PW_NONE) {
    print_pointwise(dec, i, sb);
    return;
  }
  print_fft_line(dec, i, sb);
  print_structure(&dec->kernels[i], sb);
  print_data(&dec->kernels[i], sb);
  print_convolution(&dec->kernels[i], sb);
}
