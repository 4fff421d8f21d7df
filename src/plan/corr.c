/* corr.c - the kernels of a fused correlation plan: padded forward passes, one kernel per
 * column of the first axis that transforms, multiplies by the kept spectrum and transforms
 * back, cropped inverse passes, and the statistics variant of the last one. */
#include "plan/corr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "plan/single.h"
#include "plan/tuning.h"

void zipfft__corr_spectrum_lengths(const zipfft__corr_problem *p, int64_t *lengths) {
  for (int k = 0; k < p->rank; k++) lengths[k] = p->lengths[k];
  if (p->rank > 1) lengths[p->rank - 1] = p->lengths[p->rank - 1] / 2 + 1;
}

int64_t zipfft__corr_signal_reals(const zipfft__corr_problem *p) {
  int64_t n = 1;
  for (int k = 0; k < p->rank; k++) n *= p->signal[k];
  return n;
}

int64_t zipfft__corr_pitch(const zipfft__corr_problem *p) {
  int64_t lengths[ZIPFFT__MAX_RANK];
  zipfft__corr_spectrum_lengths(p, lengths);
  int64_t last = lengths[p->rank - 1];
  return p->rank == 1 ? last : (last + 15) / 16 * 16;
}

uint64_t zipfft__corr_spectrum_bytes(const zipfft__corr_problem *p) {
  uint64_t n = (uint64_t)zipfft__corr_pitch(p);
  for (int k = 0; k + 1 < p->rank; k++) n *= (uint64_t)p->lengths[k];
  return n * zipfft__complex_bytes(p->precision, p->spectrum_storage);
}

/* Row-major strides of a contiguous array of the given shape; returns its size. */
static int64_t contiguous(const int64_t *shape, int rank, int64_t *strides) {
  int64_t size = 1;
  for (int k = rank - 1; k >= 0; k--) strides[k] = size, size *= shape[k];
  return size;
}

/* The arrays the passes see: signals, intermediate (the spectrum's shape), outputs; with
 * an intermediate in tiles of rows (row_tile > 1) or in 16-bit storage, the R2C pass's
 * fp32 rows in the workspace (the signal's rows of the intermediate's shape, rows_dist
 * apart), else in the intermediate array. In tiles of w rows, element (r, c) of a signal lies at
 * (r / w) * w * pitch + w * c + r % w, so that the fused kernel's stores of its 4
 * neighbouring columns fill whole sectors: a 16-bit intermediate takes row pairs (a row
 * of 4 columns would be half a sector: measured, the search ran 26% slower so); the last
 * kernel reads a row at a stride of w. */
typedef struct corr_arrays {
  int64_t mid_shape[ZIPFFT__MAX_RANK];
  int64_t sig[ZIPFFT__MAX_RANK], mid[ZIPFFT__MAX_RANK], out[ZIPFFT__MAX_RANK];
  int64_t sig_dist, mid_dist, out_dist, rows_dist;
  int64_t pitch;      /* of the intermediate rows (complex elements) */
  int64_t row_tile;   /* rows per tile of the intermediate (1: plain rows) */
  zipfft__array rows; /* where the R2C pass stores */
} corr_arrays;

/* Rows per tile of the intermediate of a rank-2 plan: 2 for a 16-bit intermediate, 1 in
 * fp32 (ZIPFFT_CORR_ROW_TILE, tuning: a power of two up to 8, rank 2). */
static int64_t row_tile_of(const zipfft__corr_problem *p) {
  const char *env = getenv("ZIPFFT_CORR_ROW_TILE");
  int64_t w = p->mid_storage != ZIPFFT_STORAGE_DEFAULT ? 2 : 1;
  if (env && *env) w = atoll(env);
  return p->rank == 2 && w >= 2 && w <= 8 && (w & (w - 1)) == 0 ? w : 1;
}

static corr_arrays arrays_of(const zipfft__corr_problem *p) {
  corr_arrays a;
  zipfft__corr_spectrum_lengths(p, a.mid_shape);
  int64_t pitched[ZIPFFT__MAX_RANK];
  for (int k = 0; k < p->rank; k++) pitched[k] = a.mid_shape[k];
  pitched[p->rank - 1] = a.pitch = zipfft__corr_pitch(p);
  a.sig_dist = contiguous(p->signal, p->rank, a.sig);
  a.mid_dist = contiguous(pitched, p->rank, a.mid);
  a.out_dist = contiguous(p->out, p->rank, a.out);
  a.row_tile = row_tile_of(p);
  /* the fused kernel reads the R2C rows and writes the tiles or 16-bit rows elsewhere */
  int split = a.row_tile > 1 || p->mid_storage != ZIPFFT_STORAGE_DEFAULT;
  a.rows = split ? ZIPFFT__ARRAY_WORKSPACE : ZIPFFT__ARRAY_INTERMEDIATE;
  a.rows_dist = split ? p->signal[0] * a.mid[0] : a.mid_dist;
  if (split) /* the last tile's missing rows */
    a.mid_dist += (a.row_tile - a.mid_shape[0] % a.row_tile) % a.row_tile * a.mid[0];
  return a;
}

/* A pass's spec before its batch and sizing: kind, axis length, sign, precision. */
static zipfft__kernel_spec base_spec(const zipfft__corr_problem *p, zipfft__kernel_kind kind,
                                     int axis, int sign) {
  return (zipfft__kernel_spec){
      .kind = kind, .precision = p->precision, .sign = sign, .n = p->lengths[axis], .scale = 1.0};
}

/* Extent of `count` elements along an axis of n: 0 (whole) when it covers the axis. */
static int64_t extent(int64_t count, int64_t n) { return count < n ? count : 0; }

/* Appends a batch digit (a count of 1 only as the first, the run-time batch). */
static void add_digit(zipfft__kernel_spec *s, int64_t count, int64_t in, int64_t out, int64_t aux) {
  if (count == 1 && s->batch_dims > 0) return;
  int d = s->batch_dims++;
  s->batch_counts[d] = count;
  s->batch_in_strides[d] = in;
  s->batch_out_strides[d] = out;
  s->batch_aux_strides[d] = aux;
}

/* Sizes one kernel and appends it. */
static zipfft_status append(const zipfft__kernel_spec *pass, zipfft__array src, zipfft__array dst,
                            const zipfft__target *t, zipfft__decomposition *out) {
  zipfft__kernel_spec s = *pass;
  int64_t transforms = 1;
  for (int d = 0; d < s.batch_dims; d++) transforms *= s.batch_counts[d];
  int fits = zipfft__size_axis_pass(&s, transforms, t);
  if (!fits || (s.fused && zipfft__convolution_kernel(&s)))
    return zipfft__fail(ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
                        "correlation FFT length %lld (a filter length, or for VALID the 7-smooth "
                        "length it is padded to; zipfft_corr_fft_lengths): each axis must fit "
                        "one kernel, and the first axis (the fused one) must have no prime "
                        "factor above 31 (fp64: or be the prime 37, 41 or 43)",
                        (long long)pass->n);
  if (s.statistics && zipfft__stores_from_shared(&s))
    return zipfft__fail(
        ZIPFFT_ERROR_UNSUPPORTED_LENGTH,
        "statistics of length %lld along the last axis (a Bluestein or Rader length)",
        (long long)pass->n);
  if (out->kernel_count == ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "correlation plan of too many kernels");
  int i = out->kernel_count++;
  out->kernels[i] = s;
  out->src[i] = src, out->dst[i] = dst;
  out->transforms[i] = transforms;
  return ZIPFFT_SUCCESS;
}

/* Blocks per multiprocessor the signal-pair statistics kernel is compiled for: as many as
 * fit at pair_registers per thread in a multiprocessor's register_file, at least 1.
 * Measured: radix-16 4096-point rows (256 threads) take 128 registers without spills with
 * 2 blocks asked for, 112 unbounded (2 blocks either way; H200 2DTM 9940 against 9888
 * corr/s, 9520 asking for 3). A fixed 2 held the 576-thread 5760-point rows of a K3 image
 * (5760x4092/384) to 56 registers: H100 4258 corr/s, against 5040 unbounded and 5072 with
 * 1 block. With 720 threads (choose_threads_per_transform) they took 78 registers with or
 * without a bound of 1, which still gained 0.9% (it tells the compiler the block size); at
 * the pair radix cap of 20 (20x18x16, 360 threads) a bound of 1 measured 5803 corr/s
 * against 5684 with 2. */
enum { pair_registers = 128, register_file = 65536 };

static int pair_min_blocks(const zipfft__kernel_spec *s) {
  int blocks = (int)(register_file / ((unsigned)pair_registers * zipfft__c2c_block_threads(s)));
  return blocks > 1 ? blocks : 1;
}

/* Whether a statistics kernel's input rows can be copied as they lie: contiguous rows, or
 * tiles of rows whose elements interleave (in_tile rows, element e of the tile's row r at
 * in_tile * e + r from the tile's first element, as plan/corr.c stores them). */
static int stageable_layout(const zipfft__kernel_spec *s) {
  if (s->in_tile <= 1) return s->in_stride == 1;
  return s->batch_dims > 0 && s->in_stride == s->in_tile &&
         s->in_tile_shift == 1 - s->batch_in_strides[s->batch_dims - 1];
}

/* Whether the signal-pair statistics kernel s stages its rows in shared memory
 * (stage_rows), unless ZIPFFT_STATS_STAGE=0 (tuning): where the target has bulk copies,
 * the rows are rows of the plan's intermediate, fp32 or 16-bit, plain or in tiles of rows
 * (a staged copy then takes the whole tile; 16-byte aligned, with room for the copy's
 * rounding to 16 bytes within the rows' pitch), one transform per block whose first pass
 * loads them, and the staged rows leave the blocks s is compiled for room on a
 * multiprocessor. (fp64 rows of one transform per block would not leave that room at the
 * lengths planned so; the generator handles them, untested.) */
static int stage_rows_wanted(const zipfft__kernel_spec *s, const zipfft__target *t) {
  const char *env = getenv("ZIPFFT_STATS_STAGE");
  if ((env && strcmp(env, "0") == 0) || !t->bulk_copies || !s->signal_pairs) return 0;
  if (s->kind != ZIPFFT__KIND_C2R || s->precision != ZIPFFT_F32 || s->ffts_per_block != 1 ||
      s->pass_count < 2 || !stageable_layout(s) || s->rader_n > 0 || s->bluestein_n > 0 ||
      s->cluster > 1 || s->load_callback.function)
    return 0;
  zipfft__kernel_spec staged = *s;
  staged.stage_rows = 1;
  int64_t bytes = (int64_t)zipfft__element_bytes(s, 0), rows = s->in_tile > 1 ? s->in_tile : 1;
  if (s->loop_in_stride * bytes % 16 != 0) return 0;
  for (int d = 0; d < s->batch_dims; d++)
    if (s->batch_in_strides[d] * bytes % 16 != 0 ||
        rows * s->batch_in_strides[d] * bytes < zipfft__stage_row_bytes(&staged))
      return 0;
  enum { reserved_per_block = 1024 }; /* shared memory the driver keeps per block */
  int blocks = s->min_blocks > 0 ? s->min_blocks : 1;
  size_t per_block = zipfft__c2c_shared_bytes(&staged) + reserved_per_block;
  return (size_t)blocks * per_block <= t->max_shared_bytes + reserved_per_block;
}

/* Appends the statistics variant of the last kernel; where the length has none (a
 * Bluestein kernel stores from shared memory) the plan goes without statistics. */
static zipfft_status append_statistics(const zipfft__kernel_spec *pass, zipfft__array src,
                                       const zipfft__target *t, zipfft__decomposition *out) {
  zipfft_status st = append(pass, src, ZIPFFT__ARRAY_STATS, t, out);
  if (st == ZIPFFT_SUCCESS) {
    out->runs_on[out->kernel_count - 2] = ZIPFFT__RUN_OUTPUTS;
    out->runs_on[out->kernel_count - 1] = ZIPFFT__RUN_STATISTICS;
    zipfft__kernel_spec *s = &out->kernels[out->kernel_count - 1];
    s->min_blocks = zipfft__tuning_int("ZIPFFT_STATS_MIN_BLOCKS",
                                       s->signal_pairs ? pair_min_blocks(s) : 0); /* tuning */
    const char *prefetch = getenv("ZIPFFT_STATS_PREFETCH"); /* tuning */
    s->stats_prefetch = !(prefetch && strcmp(prefetch, "0") == 0);
    s->stage_rows = stage_rows_wanted(s, t);
    const char *squares = getenv("ZIPFFT_STATS_SQUARES"); /* tuning */
    s->squares_in_registers = s->signal_pairs && s->precision == ZIPFFT_F32 &&
                              !(squares && strcmp(squares, "shared") == 0);
  }
  if (st != ZIPFFT_ERROR_UNSUPPORTED_LENGTH) return st;
  out->has_statistics = 0;
  return ZIPFFT_SUCCESS;
}

/* N, the product of the FFT lengths. */
static double points(const zipfft__corr_problem *p) {
  double n = 1;
  for (int k = 0; k < p->rank; k++) n *= (double)p->lengths[k];
  return n;
}

double zipfft__corr_spectrum_scale(const zipfft__corr_problem *p) {
  double n = points(p);
  return p->spectrum_storage == ZIPFFT_STORAGE_F16 ? 1.0 / sqrt(n) : 1.0 / n;
}

/* The last pass's share of the 1/N that makes the result the naive sum: what the kept
 * spectrum does not hold (zipfft__corr_spectrum_scale), exactly 1 unless the spectrum is
 * 16-bit. */
static double output_scale(const zipfft__corr_problem *p) {
  return p->spectrum_storage == ZIPFFT_STORAGE_F16 ? 1.0 / sqrt(points(p)) : 1.0;
}

/* Rank 1: one kernel of full complex FFTs: real loads, multiply, real stores. */
static zipfft_status decompose_line(const zipfft__corr_problem *p, const zipfft__target *t,
                                    zipfft__decomposition *out) {
  zipfft__kernel_spec s = base_spec(p, ZIPFFT__KIND_R2R, 0, -1);
  s.in_stride = s.out_stride = s.aux_stride = 1;
  s.load_extent = extent(p->signal[0], p->lengths[0]);
  s.store_extent = extent(p->out[0], p->lengths[0]);
  s.fused = p->op, s.aux_storage = p->spectrum_storage, s.scale = output_scale(p);
  zipfft__kernel_spec stats = s;
  add_digit(&s, p->batch, p->signal[0], p->out[0], 0);
  zipfft_status st = append(&s, ZIPFFT__ARRAY_INPUT, ZIPFFT__ARRAY_OUTPUT, t, out);
  stats.statistics = 1, stats.loop_in_stride = p->signal[0], stats.stats_plane = p->out[0];
  add_digit(&stats, 1, 0, 0, 0);
  return st == ZIPFFT_SUCCESS ? append_statistics(&stats, ZIPFFT__ARRAY_INPUT, t, out) : st;
}

/* The padded R2C pass over the signal's rows, into the intermediate array. */
static zipfft_status forward_rows(const zipfft__corr_problem *p, const corr_arrays *a,
                                  const zipfft__target *t, zipfft__decomposition *out) {
  int last = p->rank - 1;
  zipfft__kernel_spec s = base_spec(p, ZIPFFT__KIND_R2C, last, -1);
  s.in_stride = s.out_stride = 1;
  s.load_extent = extent(p->signal[last], p->lengths[last]);
  add_digit(&s, p->batch, a->sig_dist, a->rows_dist, 0);
  for (int k = 0; k < last; k++) add_digit(&s, p->signal[k], a->sig[k], a->mid[k], 0);
  return append(&s, ZIPFFT__ARRAY_INPUT, a->rows, t, out);
}

/* A C2C pass over axis k of the intermediate array; counts[] gives every axis's rows. */
static zipfft__kernel_spec middle_pass(const zipfft__corr_problem *p, const corr_arrays *a, int k,
                                       int sign, const int64_t *counts) {
  zipfft__kernel_spec s = base_spec(p, ZIPFFT__KIND_C2C, k, sign);
  s.in_stride = s.out_stride = a->mid[k];
  add_digit(&s, p->batch, a->mid_dist, a->mid_dist, 0);
  for (int x = 0; x < p->rank; x++)
    if (x != k) add_digit(&s, counts[x], a->mid[x], a->mid[x], a->mid[x]);
  return s;
}

/* Rows of each axis a pass over axis k sees: the output's for the axes before k already
 * transformed back, the signal's for those not yet transformed, whole otherwise. */
static void counts_of(const zipfft__corr_problem *p, const corr_arrays *a, int k, int inverse,
                      int64_t *counts) {
  for (int x = 0; x < p->rank; x++)
    counts[x] = x < k ? (inverse ? p->out[x] : p->signal[x]) : a->mid_shape[x];
}

int64_t zipfft__corr_signal_group(int64_t signals) {
  const char *env = getenv("ZIPFFT_FUSED_SIGNAL_GROUP");
  if (env && *env) {
    int64_t g = atoll(env);
    return g > 0 && g < signals && signals % g == 0 ? g : signals;
  }
  for (int64_t g = 16; g >= 8 && signals > 16; g--)
    if (signals % g == 0) return g;
  return signals;
}

/* Orders the fused kernel's transforms so that the signals of one tile of F adjacent
 * columns (F its transforms per block) run one after another: the kept spectrum's tile is
 * then read from memory once and from the L2 cache by the other signals, instead of the
 * whole spectrum (larger than the L2 cache at 4096x4096) once per signal. The batch digits
 * [signal, outer axes..., column] become [outer axes..., tile, signal, column in tile],
 * or with signals in groups [group, tile, signal in group, column in tile] (rank 2);
 * the last tile's columns beyond the row run on the row's padding, never read back. The
 * kernel then always runs the plan's whole batch of signals. */
static void signals_inside_tiles(const corr_arrays *a, zipfft__decomposition *out, int i) {
  zipfft__kernel_spec *s = &out->kernels[i];
  int inner = s->batch_dims - 1, f = s->ffts_per_block;
  int64_t columns = s->batch_counts[inner], tiles = (columns + f - 1) / f;
  if (s->batch_dims + 1 > ZIPFFT__MAX_BATCH_DIMS || tiles * f > a->pitch ||
      s->batch_in_strides[inner] != 1)
    return;
  int64_t signals = s->batch_counts[0], transforms = tiles * signals * f;
  zipfft__kernel_spec t = *s;
  int d = 0;
  for (int x = 1; x < inner; x++, d++) {
    t.batch_counts[d] = s->batch_counts[x], transforms *= s->batch_counts[x];
    t.batch_in_strides[d] = t.batch_out_strides[d] = s->batch_in_strides[x];
    t.batch_aux_strides[d] = s->batch_aux_strides[x];
  }
  int digit_free = s->batch_dims + 2 <= ZIPFFT__MAX_BATCH_DIMS;
  int64_t group = digit_free ? zipfft__corr_signal_group(signals) : signals;
  const int64_t in0 = s->batch_in_strides[0], out0 = s->batch_out_strides[0];
  const int64_t digits[4][4] = {{signals / group, in0 * group, out0 * group, 0},
                                {tiles, f, f, f},
                                {group, in0, out0, 0},
                                {f, 1, 1, 1}};
  for (int x = group == signals; x < 4; x++, d++) {
    t.batch_counts[d] = digits[x][0];
    t.batch_in_strides[d] = digits[x][1];
    t.batch_out_strides[d] = digits[x][2];
    t.batch_aux_strides[d] = digits[x][3];
  }
  t.batch_dims = d;
  *s = t;
  out->transforms[i] = transforms;
  out->whole_batch[i] = 1;
}

/* The distance between two tiles of F columns of a spectrum in its fused kernel's read
 * order (below): F columns of n values. */
static int64_t read_order_tile_stride(const zipfft__kernel_spec *fused) {
  return fused->ffts_per_block * fused->n;
}

/* The kept spectrum of a rank-2 fp32 plan in the order its fused kernel reads it: per tile
 * of F columns (F transforms per block) an array [rows][F] whose rows e and e + m pair
 * up (aux_pairs, m the stride of the pass that multiplies), so that each thread takes
 * two values in one access (16 bytes, 8 in F16) and a warp's accesses cover whole
 * 128-byte lines. In rows of the pitch a warp's 8-byte loads touched 8 lines each: on
 * the H200 those loads were 11.5% of the 2DTM fused kernel's stall samples (waiting for
 * the load queue). ZIPFFT_SPECTRUM_ORDER=0 (tuning) keeps rows of the pitch. */
static void spectrum_in_read_order(const zipfft__corr_problem *p, zipfft__decomposition *out,
                                   int i) {
  zipfft__kernel_spec *s = &out->kernels[i];
  const char *env = getenv("ZIPFFT_SPECTRUM_ORDER");
  int inner = s->batch_dims - 1, tiles = -1;
  for (int d = 0; d < inner; d++)
    if (s->batch_aux_strides[d] == s->ffts_per_block) tiles = d;
  if (p->rank != 2 || p->precision != ZIPFFT_F32 || s->radices[0] % 2 != 0 || tiles < 0 ||
      s->batch_counts[inner] != s->ffts_per_block || s->batch_aux_strides[inner] != 1 ||
      (env && strcmp(env, "0") == 0))
    return;
  s->aux_pairs = 1;
  s->aux_stride = s->ffts_per_block;
  s->batch_aux_strides[inner] = 2;
  s->batch_aux_strides[tiles] = read_order_tile_stride(s);
}

/* With aux_pairs, the tiles as spectrum_in_read_order lays them out, the tile's columns at
 * the inner digit's stride. */
int64_t zipfft__corr_spectrum_at(const zipfft__corr_problem *p, const zipfft__kernel_spec *fused,
                                 int64_t row, int64_t column) {
  if (!fused || !fused->aux_pairs) return row * zipfft__corr_pitch(p) + column;
  int64_t f = fused->ffts_per_block, inner = fused->batch_aux_strides[fused->batch_dims - 1];
  return column / f * read_order_tile_stride(fused) + column % f * inner +
         zipfft__aux_offset(fused, row);
}

/* The fused kernel i stores in tiles of rows (see corr_arrays): its column digits' output
 * strides (those below the pitch) grow by the tile's rows, and row r moves back to the
 * tile's first row, r % w elements on. */
static void store_row_tiles(const corr_arrays *a, zipfft__decomposition *out, int i) {
  zipfft__kernel_spec *s = &out->kernels[i];
  for (int d = 0; d < s->batch_dims; d++)
    if (s->batch_out_strides[d] < a->pitch) s->batch_out_strides[d] *= a->row_tile;
  s->out_tile = (int)a->row_tile;
  s->out_tile_shift = 1 - a->pitch;
}

/* Runs the fused kernel's passes in place where it can (kernel_spec passes_in_place): no
 * barriers guarding shared memory against overwriting, 4 barriers instead of 7 in the 2DTM
 * kernel (16x16x16). ZIPFFT_FUSED_IN_PLACE=0 (tuning) keeps the Stockham passes. */
static void choose_passes_in_place(zipfft__kernel_spec *s) {
  const char *env = getenv("ZIPFFT_FUSED_IN_PLACE");
  s->passes_in_place = zipfft__can_pass_in_place(s) && !(env && strcmp(env, "0") == 0);
}

/* The passes over the first rank - 1 axes: forward C2C (middle axes), the fused kernel of
 * the first axis, inverse C2C (middle axes). */
static zipfft_status column_passes(const zipfft__corr_problem *p, const corr_arrays *a,
                                   const zipfft__target *t, zipfft__decomposition *out) {
  const zipfft__array mid = ZIPFFT__ARRAY_INTERMEDIATE;
  int last = p->rank - 1;
  int64_t counts[ZIPFFT__MAX_RANK];
  zipfft_status st = ZIPFFT_SUCCESS;
  for (int k = last - 1; k >= 1 && st == ZIPFFT_SUCCESS; k--) {
    counts_of(p, a, k, 0, counts);
    zipfft__kernel_spec s = middle_pass(p, a, k, -1, counts);
    s.load_extent = extent(p->signal[k], p->lengths[k]);
    st = append(&s, mid, mid, t, out);
  }
  counts_of(p, a, 0, 0, counts);
  zipfft__kernel_spec fused = middle_pass(p, a, 0, -1, counts);
  fused.batch_aux_strides[0] = 0; /* every signal multiplies the same spectrum */
  fused.batch_in_strides[0] = a->rows_dist, fused.out_storage = p->mid_storage;
  if (p->mid_storage != ZIPFFT_STORAGE_DEFAULT) /* the last pass's scale (inverse_rows) */
    fused.scale = output_scale(p);
  fused.load_extent = extent(p->signal[0], p->lengths[0]);
  fused.store_extent = extent(p->out[0], p->lengths[0]);
  fused.fused = p->op, fused.aux_stride = a->mid[0], fused.aux_storage = p->spectrum_storage;
  /* rank 2: the R2C pass's rows (in the workspace with a 16-bit intermediate) */
  if (st == ZIPFFT_SUCCESS) st = append(&fused, last == 1 ? a->rows : mid, mid, t, out);
  const char *env = getenv("ZIPFFT_FUSED_MIN_BLOCKS"); /* tuning */
  if (st == ZIPFFT_SUCCESS && env && *env)
    out->kernels[out->kernel_count - 1].min_blocks = atoi(env);
  if (st == ZIPFFT_SUCCESS) choose_passes_in_place(&out->kernels[out->kernel_count - 1]);
  if (st == ZIPFFT_SUCCESS) signals_inside_tiles(a, out, out->kernel_count - 1);
  if (st == ZIPFFT_SUCCESS) spectrum_in_read_order(p, out, out->kernel_count - 1);
  if (st == ZIPFFT_SUCCESS && a->row_tile > 1) store_row_tiles(a, out, out->kernel_count - 1);
  for (int k = 1; k < last && st == ZIPFFT_SUCCESS; k++) {
    counts_of(p, a, k, 1, counts);
    zipfft__kernel_spec s = middle_pass(p, a, k, 1, counts);
    s.store_extent = extent(p->out[k], p->lengths[k]);
    st = append(&s, mid, mid, t, out);
  }
  return st;
}

/* Whether the statistics kernel takes the signals two to a transform (signal_pairs): for
 * plans of more than one signal, unless ZIPFFT_STATS_PAIRS=0 (tuning). Measured on an H200
 * (2DTM 4096x4096/512): batch 16 8477 -> 10056 corr/s, batch 32 +19%, but batch 1 -2.8%
 * (a whole transform for one signal); see docs/perf/2026-11-23-h200-signal-pairs.md. */
static int signal_pairs_wanted(const zipfft__corr_problem *p) {
  const char *env = getenv("ZIPFFT_STATS_PAIRS");
  return p->batch > 1 && !(env && strcmp(env, "0") == 0);
}

/* The cropped C2R pass into the outputs, then its statistics variant (one launch over the
 * output rows, looping over the signals). */
static zipfft_status inverse_rows(const zipfft__corr_problem *p, const corr_arrays *a,
                                  const zipfft__target *t, zipfft__decomposition *out) {
  int last = p->rank - 1;
  zipfft__kernel_spec s = base_spec(p, ZIPFFT__KIND_C2R, last, 1);
  s.in_stride = s.out_stride = 1;
  s.store_extent = extent(p->out[last], p->lengths[last]);
  s.scale = output_scale(p);
  if (a->row_tile > 1) /* tiles of rows (see corr_arrays) */
    s.in_stride = s.in_tile = (int)a->row_tile, s.in_tile_shift = 1 - a->pitch;
  /* A 16-bit intermediate: the fused kernel applies the last pass's share of 1/N (or the
   * kept spectrum holds it), so that the array holds each output row's spectrum divided by
   * its length, values at most the largest |output| (with 1/sqrt(N) here they reach
   * sqrt(N) times it, beyond F16's 65504 for outputs of 16 at 4096x4096). */
  if (p->mid_storage != ZIPFFT_STORAGE_DEFAULT) s.in_storage = p->mid_storage, s.scale = 1.0;
  zipfft__kernel_spec stats = s;
  add_digit(&s, p->batch, a->mid_dist, a->out_dist, 0);
  for (int k = 0; k < last; k++) add_digit(&s, p->out[k], a->mid[k], a->out[k], 0);
  zipfft_status st = append(&s, ZIPFFT__ARRAY_INTERMEDIATE, ZIPFFT__ARRAY_OUTPUT, t, out);
  stats.statistics = 1, stats.loop_in_stride = a->mid_dist, stats.stats_plane = a->out_dist;
  stats.signal_pairs = signal_pairs_wanted(p);
  for (int k = 0; k < last; k++) add_digit(&stats, p->out[k], a->mid[k], a->out[k], 0);
  if (st == ZIPFFT_SUCCESS) st = append_statistics(&stats, ZIPFFT__ARRAY_INTERMEDIATE, t, out);
  return st;
}

/* Puts the signal-sum kernel of a plan with statistics first (a pointwise kernel over the
 * signal's reals; runs that fold into the statistics launch it): finalisation correlates
 * the sum it keeps to give the outputs' sums, which the statistics kernel then need not
 * read and write per call. First, so that the R2C pass finds the signals in L2. */
static zipfft_status prepend_signal_sum(const zipfft__corr_problem *p, zipfft__decomposition *out) {
  if (!out->has_statistics) return ZIPFFT_SUCCESS;
  if (out->kernel_count == ZIPFFT__MAX_KERNELS)
    return zipfft__fail(ZIPFFT_ERROR_INTERNAL, "correlation plan of too many kernels");
  int64_t reals = zipfft__corr_signal_reals(p);
  zipfft__kernel_spec s = {.kind = ZIPFFT__KIND_R2R,
                           .precision = p->precision,
                           .n = reals,
                           .loop_in_stride = reals,
                           .in_stride = 1,
                           .out_stride = 1,
                           .batch_dims = 1,
                           .batch_counts = {1},
                           .scale = 1.0};
  zipfft__make_pointwise(&s, ZIPFFT__PW_SIGNAL_SUM, reals);
  int64_t chunks = zipfft__pointwise_chunks(&s);
  for (int i = out->kernel_count; i > 0; i--) {
    out->kernels[i] = out->kernels[i - 1], out->transforms[i] = out->transforms[i - 1];
    out->src[i] = out->src[i - 1], out->dst[i] = out->dst[i - 1];
    out->whole_batch[i] = out->whole_batch[i - 1], out->runs_on[i] = out->runs_on[i - 1];
  }
  out->kernel_count++;
  out->kernels[0] = s, out->transforms[0] = chunks, out->whole_batch[0] = 1;
  out->src[0] = ZIPFFT__ARRAY_INPUT, out->dst[0] = ZIPFFT__ARRAY_SIGNAL_SUM;
  out->runs_on[0] = ZIPFFT__RUN_STATISTICS;
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft__corr_decompose(const void *problem, const zipfft__target *t,
                                     zipfft__decomposition *out) {
  const zipfft__corr_problem *p = problem;
  *out = (zipfft__decomposition){.has_statistics = 1, .kept_bytes = zipfft__corr_spectrum_bytes(p)};
  if (p->rank == 1) {
    zipfft_status st = decompose_line(p, t, out);
    return st == ZIPFFT_SUCCESS ? prepend_signal_sum(p, out) : st;
  }
  corr_arrays a = arrays_of(p);
  int64_t elements;
  if (__builtin_mul_overflow(a.mid_dist, p->batch, &elements) || elements > ZIPFFT__MAX_ELEMENTS)
    return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                        "batch = %lld: the intermediate array of %lld x %lld complex values is "
                        "too large",
                        (long long)p->batch, (long long)p->batch, (long long)a.mid_dist);
  zipfft_status st = forward_rows(p, &a, t, out);
  if (st == ZIPFFT_SUCCESS) st = column_passes(p, &a, t, out);
  if (st == ZIPFFT_SUCCESS) st = inverse_rows(p, &a, t, out);
  uint64_t complex_bytes = zipfft__complex_bytes(p->precision, ZIPFFT_STORAGE_DEFAULT);
  if (a.rows == ZIPFFT__ARRAY_WORKSPACE)
    out->workspace_bytes = (uint64_t)(a.rows_dist * p->batch) * complex_bytes;
  zipfft__reserve_intermediate(
      out, (uint64_t)(a.mid_dist * p->batch) * zipfft__complex_bytes(p->precision, p->mid_storage));
  if (st == ZIPFFT_SUCCESS) st = prepend_signal_sum(p, out);
  for (int i = 0; i < out->kernel_count; i++) out->axis[i] = -1;
  return st;
}

static void corr_print(const zipfft__decomposition *dec, zipfft__strbuf *sb) {
  zipfft__sb_printf(sb, "%d kernels (%s)\n", dec->kernel_count,
                    dec->has_statistics ? "with statistics, the first sums the signals and the "
                                          "last is the statistics variant of the one before"
                                        : "without statistics");
  for (int i = 0; i < dec->kernel_count; i++) {
    zipfft__sb_printf(sb, "    ");
    zipfft__print_kernel(dec, i, sb);
  }
}

const zipfft__strategy zipfft__strategy_corr = {
    .name = "fused correlation",
    .applicable = NULL,
    .make = NULL,
    .print = corr_print,
};
