/* kernel_spec.h - plain data describing one generated kernel: the single source of every
 * parameter the generator, the backends and the launcher use. */
#ifndef ZIPFFT_KERNEL_SPEC_H
#define ZIPFFT_KERNEL_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "plan/callback.h"
#include "zipfft.h"

enum { ZIPFFT__MAX_PASSES = 16, ZIPFFT__MAX_BATCH_DIMS = 4, ZIPFFT__KERNEL_NAME_MAX = 768 };
enum { ZIPFFT__MAX_VALUES = 64 }; /* complex values one thread holds in one pass */

/* Pointwise kernels (no FFT passes) move the rows of an axis too long for one kernel into
 * and out of the plan's workspace. Each thread block takes one chunk of
 * ZIPFFT__POINTWISE_CHUNK positions of one row, ZIPFFT__POINTWISE_THREADS threads apart. */
enum { ZIPFFT__POINTWISE_THREADS = 256, ZIPFFT__POINTWISE_CHUNK = 1024 };

/* What a pointwise kernel does to position e of each row (a row runs over
 * pointwise_range positions; the chunk index is the innermost batch digit, stride 0):
 * - GATHER: loads element e as the kind says (complex, real with zero imaginary part, or
 *   the Hermitian half expanded), stores it as a complex value;
 * - CHIRP_GATHER: the same times Bluestein's chirp for e < bluestein_n, zero beyond;
 * - FILTER: complex in, conj(value * filter[e]) out (Bluestein, between its FFTs);
 * - SCATTER: complex in, stored as the kind says (complex, or the real part), scaled;
 * - CHIRP_SCATTER: the same after conj(value) * chirp[e];
 * - MERGE (kind C2R_HALF): from the half spectrum X[e], X[n-e] (e <= n/2) of a real
 *   length 2n, the complex values Z[e], Z[n-e] whose n-point FFT gives the real pairs;
 * - SPLIT (kind R2C_HALF): from Z[e], Z[n-e] (the n-point FFT of the real pairs), the
 *   half spectrum X[e], X[n-e], scaled;
 * - SIGNAL_SUM (correlation statistics): real element e of each of the run's loop_count
 *   signals (loop_in_stride reals apart) summed, in the kernel's real type, and added to
 *   double e of the output (the signals' running sum, from which finalisation correlates
 *   the mean). */
typedef enum zipfft__pointwise_op {
  ZIPFFT__PW_NONE,
  ZIPFFT__PW_GATHER,
  ZIPFFT__PW_CHIRP_GATHER,
  ZIPFFT__PW_FILTER,
  ZIPFFT__PW_SCATTER,
  ZIPFFT__PW_CHIRP_SCATTER,
  ZIPFFT__PW_MERGE,
  ZIPFFT__PW_SPLIT,
  ZIPFFT__PW_SIGNAL_SUM
} zipfft__pointwise_op;

/* What the kernel reads and writes: complex to complex, real input to the Hermitian half
 * (elements 0..n/2) of the spectrum, or that half back to a real output. R2C and C2R run a
 * full-length complex transform; the real data and the half spectrum exist only in the
 * loads and stores. The HALF kinds (even real lengths 2n) run a complex transform of n
 * points on the real data taken as n complex pairs, with the split into the spectrum
 * (R2C_HALF: after the passes) or the merge from it (C2R_HALF: before them) done through
 * shared memory in the same kernel, or for mirrored R2C_HALF kernels in the last pass's
 * registers. */
typedef enum zipfft__kernel_kind {
  ZIPFFT__KIND_C2C,
  ZIPFFT__KIND_R2C,
  ZIPFFT__KIND_C2R,
  ZIPFFT__KIND_R2C_HALF,
  ZIPFFT__KIND_C2R_HALF,
  ZIPFFT__KIND_R2R /* real loads and real stores around complex FFTs (fused rank-1 correlation) */
} zipfft__kernel_kind;

/* The multiply between the two FFTs of a fused kernel: Z (the forward FFT of the loaded
 * signal) becomes Z * K (CORRELATE) or conj(Z) * K (CONVOLVE), K the kept spectrum (the
 * filter's conjugate, scaled; the kernel's aux array); a second forward FFT and a conjugate
 * on the store then give the inverse FFT of conj(Z * K) or conj(conj(Z) * K).
 * BLUESTEIN (the middle kernel of Bluestein's method beyond one kernel, rows of its padded
 * length's split in two N0 x N1, n = N1): Z becomes conj(Z * F), F Bluestein's filter
 * (filter_n entries), and the second FFT's outputs are stored without the conjugate, times
 * the fused twiddles: the conjugated inverse that the last column kernel completes
 * (plan/fourstep.c zipfft__fourstep_bluestein_append). The table holds the filter in the
 * rows' order, so that a row reads its entries side by side: the entry of spectrum
 * position k0 + N0 k (element k of row k0) at slot k0 * N1 + k, or with passes_in_place at
 * the slot of k in the row's digit-reversed order (zipfft__put_filter_spectrum); the
 * position map (kernel_spec position_step, position_steps) gives each element's slot. */
typedef enum zipfft__fused_op {
  ZIPFFT__FUSED_NONE,
  ZIPFFT__FUSED_CORRELATE,
  ZIPFFT__FUSED_CONVOLVE,
  ZIPFFT__FUSED_BLUESTEIN
} zipfft__fused_op;

/* What a four-step kernel of Bluestein's padded length does in its loads or stores
 * (kernel_spec bluestein_load, bluestein_store). */
typedef enum zipfft__bluestein_step {
  ZIPFFT__BLUESTEIN_NONE,
  ZIPFFT__BLUESTEIN_CHIRP,
  ZIPFFT__BLUESTEIN_FILTER,
  ZIPFFT__BLUESTEIN_CHIRP_REAL, /* R2C's real loads, C2R's real stores */
  ZIPFFT__BLUESTEIN_CHIRP_HALF  /* C2R's loads of the Hermitian half, weighted */
} zipfft__bluestein_step;

/* Which end of Bluestein's convolution covers only positions 0..N/2 (N the user's
 * length; kernel_spec chirp_half). FULL: every input and output (C2C, and real rows taken
 * in pairs). HALF_OUT (R2C): the outputs, the Hermitian half being all it stores. HALF_IN
 * (C2R): the inputs, y[n] = sum over k <= N/2 of w_k X[k] exp(sign 2 pi i n k / N), w_k = 2
 * but 1 at k = 0 and k = N/2, whose real part is the C2R output, so the half is read as it
 * lies, without its mirror. A convolution of I inputs and O outputs needs a padded length
 * of I + O - 1 points, so the real halves need N + N/2 instead of 2N - 1. */
typedef enum zipfft__chirp_half {
  ZIPFFT__CHIRP_FULL,
  ZIPFFT__CHIRP_HALF_OUT,
  ZIPFFT__CHIRP_HALF_IN
} zipfft__chirp_half;

/* 1 for the kinds whose real side has 2n reals and that exchange through shared memory
 * even with a single pass. */
int zipfft__kind_is_half(zipfft__kernel_kind k);
/* 1 for R2C and C2R at full length (odd lengths, or even ones kept so): n reals on the real
 * side, one n-point complex FFT a row. */
int zipfft__kind_is_full_real(zipfft__kernel_kind k);

/* A batched 1D C2C transform done entirely inside one kernel: Stockham radix passes in
 * registers, exchanged through shared memory, several transforms per block. The batch may
 * have several dimensions (the other axes of a 2D/3D array and the user's batch): the
 * transform index g splits row-major over batch_counts, slowest first, and each digit
 * moves the data by its stride. The slowest count is never needed (it is the run-time
 * batch), so one kernel serves any batch size. */
typedef struct zipfft__kernel_spec {
  zipfft__kernel_kind kind;
  zipfft_precision precision;
  int sign;  /* -1 forward, +1 inverse */
  int64_t n; /* complex transform length (HALF kinds: real length 2n) */
  int pass_count;
  int radices[ZIPFFT__MAX_PASSES]; /* radix of each pass, first to last; product = n */
  int threads_per_fft;             /* threads cooperating on one transform */
  int ffts_per_block;              /* transforms per thread block */
  int64_t in_stride, out_stride;   /* between elements of one transform (complex elements) */
  int batch_dims;                  /* 1..ZIPFFT__MAX_BATCH_DIMS */
  int64_t batch_counts[ZIPFFT__MAX_BATCH_DIMS];
  int64_t batch_in_strides[ZIPFFT__MAX_BATCH_DIMS], batch_out_strides[ZIPFFT__MAX_BATCH_DIMS];
  int fft_major;                          /* 1: consecutive threads take consecutive transforms */
  zipfft_storage in_storage, out_storage; /* how global data is stored */
  double scale;                           /* multiplied into the outputs; 1 = none */
  /* Tiled outputs (C2C kernels; out_tile 0: none, else a power of two): element e of a
   * transform is stored at e * out_stride + (e mod out_tile) * out_tile_shift, so that
   * out_tile neighbouring elements of a column lie side by side: the row pairs of the
   * 16-bit intermediate of plan/corr.c (2, 1 - pitch), the tiles of rows a four-step
   * column kernel stores for its row kernel (plan/fourstep.c). */
  int out_tile;
  int64_t out_tile_shift;
  /* Tiled inputs (in_tile 0: none, else a power of two): transform g's input starts
   * (d mod in_tile) * in_tile_shift elements on, d its innermost batch digit: the rows of
   * the tiles that out_tile stores (the last pass of plan/corr.c). */
  int in_tile;
  int64_t in_tile_shift;
  /* Fused four-step twiddle: when > 0, output element e of transform g is multiplied by
   * exp(sign 2 pi i m e / twiddle_length), m = g's innermost batch digit. */
  int64_t twiddle_length;
  /* With twiddle_length, kernels storing from the last pass's registers: > 1 reads every
   * twiddle_chain-th twiddle of a butterfly's outputs (and its last) from the table and
   * makes the others from the nearest one read (gen/build_stockham.c); 0 or 1 reads each. */
  int twiddle_chain;
  /* 1: the outputs leave through shared memory with neighbouring threads on neighbouring
   * transforms (coalesced when the transforms are adjacent in the output, e.g. the
   * transposed store of a four-step row pass). */
  int store_major;
  /* Packed workspace segments (fp32 C2C kernels of a multiple of 8 transforms a block; the
   * four-step splits of plan/packed_workspace.c): on a packed side,
   * global indices count 6-byte packed elements, and 8 of them make one 48-byte segment
   * holding 8 complex values that share an exponent (gen/packed_prelude.c). out_packed:
   * element e of 8 transforms adjacent in the innermost batch digit, the first of them g,
   * is the segment at g's output offset + e * out_stride. in_packed (zipfft__packed_input):
   * ALONG, elements 8q .. 8q + 7 of a transform are the segment at its input offset + q *
   * in_stride; ACROSS, element e of 8 adjacent transforms as out_packed stores them, at g's
   * input offset + e * in_stride. Both sides go through shared memory: the last pass stores
   * its outputs there and each thread packs whole segments; each thread unpacks whole
   * segments there for the first pass. */
  int out_packed, in_packed;
  /* When > 0 the kernel computes a transform of this length by Bluestein's method: its
   * input is multiplied by a chirp and implicitly zero-padded to n, convolved with the
   * chirp's spectrum by two n-point FFTs through shared memory, and its first bluestein_n
   * outputs are multiplied by the chirp again. */
  int64_t bluestein_n;
  /* Bluestein's method beyond one kernel, fused into the four-step kernels of its padded
   * length M (chirp_n = N > 0, the user's length; filter_n = M): at the position p of each
   * element in its padded row, p = e * position_step + sum_d digit_d * position_steps[d] (e
   * the element, digit_d the batch digits; the user's batch digits step 0), a kernel's
   * loads (bluestein_load) or stores (bluestein_store) do the work of the pointwise passes:
   * - load CHIRP (the first kernel of the first split): x[p] * chirp[p] for p below the
   *   convolution's inputs (zipfft__chirp_inputs), zeros beyond (never read); CHIRP_REAL
   *   the same of a real x[p] (R2C, the strides in reals); CHIRP_HALF the same of X[p] of
   *   the Hermitian half times its weight (C2R, chirp_half HALF_IN);
   * - load FILTER (the first kernel of the second split): conj(v[p] * filter[p]);
   * - store CHIRP (the last kernel of the second split): conj(y) * chirp[p], scaled, stored
   *   only for p below the convolution's outputs (zipfft__chirp_outputs: N, or N/2 + 1 for
   *   the Hermitian half of an R2C pass); CHIRP_REAL stores its real part as a real (C2R,
   *   the strides in reals). */
  zipfft__bluestein_step bluestein_load, bluestein_store;
  int64_t chirp_n, filter_n;
  /* Which end of Bluestein's convolution covers only the Hermitian half (single kernels
   * with bluestein_n, and the kernels of a route through the workspace with chirp_n or a
   * filter): the chirp loads stop at zipfft__chirp_inputs, the stores at
   * zipfft__chirp_outputs, and the filter (plan/twiddle.c) is laid out for both. */
  zipfft__chirp_half chirp_half;
  int64_t position_step, position_steps[ZIPFFT__MAX_BATCH_DIMS];
  /* When > 0, a prime p: the kernel computes a transform of length p by Rader's method, n =
   * p - 1. Element g^r mod p of the input (g a primitive root) becomes FFT element r (the
   * rows pass through shared memory to be permuted), the n-point FFT multiplied by the
   * spectrum of b[m] = exp(sign 2 pi i g^-m / p) (the table's filter) and transformed back
   * gives X[g^-q] - x[0] in slot q of shared memory; x[0] and X[0] = x[0] + the first FFT's
   * element 0 wait in two slots per transform after the transforms' exchange area. */
  int64_t rader_n;
  /* 1 (Rader C2C kernels whose rows lie back to back, zipfft__can_rader_by_element): the
   * rows come into Rader's order in shared memory, and leave it permuted back, by element
   * over the block's rows (neighbouring threads on neighbouring elements of the block)
   * instead of by each transform's T threads, so that a warp's accesses are whole runs. */
  int rader_by_element;
  /* Not NONE: a pointwise kernel (pass_count 0) over pointwise_range positions per row.
   * Its kind applies to the loads of the gathers and to the stores of the scatters (the
   * workspace side is complex); n is the length whose Hermitian half a C2R gather expands
   * or, with bluestein_n, Bluestein's padded length (the filter's length). */
  zipfft__pointwise_op pointwise;
  int64_t pointwise_range;
  /* Zero-padded input and cropped output (0: none). Only the first load_extent elements of
   * each input row are read (reals for a real input, elements of the Hermitian half for a
   * C2R input); the others are zeros never read. Only the first store_extent elements of
   * each output row (reals for a real output) are stored. */
  int64_t load_extent, store_extent;
  /* Fused correlation: the kept spectrum is the kernel's aux array (complex, aux_storage),
   * element e of transform g at sum_d digit_d * batch_aux_strides[d] + e * aux_stride. */
  zipfft__fused_op fused;
  int64_t aux_stride, batch_aux_strides[ZIPFFT__MAX_BATCH_DIMS];
  zipfft_storage aux_storage;
  /* aux_pairs: the spectrum's rows e and e + m (m = n / radices[0], the stride of the pass
   * that multiplies) share a tile, so that a thread takes its two values r, r + 1 of that
   * pass in one access of twice the width: element e lies at
   * zipfft__aux_offset(s, e) + the transform's column offset (the column digits' strides
   * then step by 2). Needs an even radices[0]. */
  int aux_pairs;
  /* 2DTM statistics: when set, the kernel runs its whole transform once per signal
   * (loop_count of them, the input moving by loop_in_stride elements each time) and keeps
   * per output real the maximum and the signal that gave it in registers, the sum of
   * squares in shared memory (or registers: squares_in_registers); after the last signal it folds
   * them into the statistics arrays (its out: maximum, index, sum of squares, each stats_plane
   * values, at the output layout's positions) instead of storing outputs. */
  int statistics;
  int64_t loop_in_stride, stats_plane;
  /* Statistics kernels of kind C2R: each transform takes two signals of the loop, a = 2p
   * and b = 2p + 1, as Z = X_a + i X_b (both Hermitian halves expanded, the imaginary parts
   * of their DC and Nyquist terms dropped), so that its real outputs are a's and its
   * imaginary outputs b's; the loop runs over (loop_count + 1) / 2 pairs, and an odd count
   * leaves the last pair without b. One full-length FFT then does the work of two rows. */
  int signal_pairs;
  /* Statistics kernels on CUDA: ask L2 for the rows the loop's next iteration reads, and
   * in its last iteration for the statistics the merge reads (a hint; no effect on the
   * CPU backend). */
  int stats_prefetch;
  /* Statistics kernels with signal_pairs, one transform per block: the rows of each
   * iteration's two signals come into shared memory by bulk asynchronous copies (TMA on
   * sm_90) that one thread starts an iteration ahead, so that the loads of the first pass
   * read shared memory instead of waiting for global memory (corr.c's stage_rows_wanted
   * says where; zipfft__stage_slot places them). */
  int stage_rows;
  /* Statistics kernels: the sums of squares in registers beside the maxima, not in shared
   * memory (fp32 signal-pair kernels, corr.c; H200 2DTM statistics kernel 419 -> 415 us,
   * 110 -> 120 registers, within the 128 that two blocks allow; fp64 not measured). */
  int squares_in_registers;
  int min_blocks; /* > 0: the CUDA compiler keeps registers low enough for this many blocks */
  /* > 0 (CUDA; kernels whose block reads one contiguous range, see
   * zipfft__can_prefetch_ahead): when a block starts, one thread asks L2 for the input of
   * the block prefetch_ahead indices later (in a cluster kernel, the cluster that many
   * clusters later; a hint; the CPU backend ignores it), so that the blocks that follow on
   * the multiprocessors find their input in L2. */
  int64_t prefetch_ahead;
  /* With prefetch_ahead: 1 asks for that input right after the first pass's loads from
   * global memory instead of when the block starts (the four-step column kernels' default,
   * zipfft__prefetch_distance_of; tuning: ZIPFFT_PREFETCH_AFTER_LOADS). */
  int prefetch_after_loads;
  /* Cluster kernels (> 1; C2C, or half-length real rows): a transform of n * cluster points
   * is spread over the `cluster` blocks of a thread-block cluster. Block (rank) b transforms
   * the n elements b, b + cluster, b + 2 cluster, ... in its shared memory with the passes
   * of `radices` (product n), multiplies output k by exp(sign 2 pi i b k / (n * cluster)),
   * and after a cluster barrier each block takes n / cluster of the k: it reads them from
   * every block's shared memory, runs the cluster-point DFTs and stores outputs k + n * q,
   * q < cluster (a four-step split whose transpose goes through the distributed shared
   * memory instead of global memory). Rows: one transform per cluster. Columns (C2C with
   * fft_major, a four-step column kernel): ffts_per_block adjacent columns per cluster, the
   * four-step twiddle (twiddle_length) applied in the stores. */
  int cluster;
  /* 1: the Stockham twiddles the passes read (those of exponents q that are powers of two,
   * see zipfft__shared_twiddle_slot) are copied into shared memory, after the exchange and
   * statistics areas, when the kernel starts, and the passes read them there instead of
   * from the table in global memory (choose_shared_twiddles in single.c decides). */
  int shared_twiddles;
  /* > 0: the transforms are the R = paired_rows rows r of a half-length transform of L = R n
   * points (Z[r + R k] is element k of row r; the innermost batch digits make r), and a
   * block takes ffts_per_block / 2 row pairs (r, R - r), one pair (0, R / 2), so that
   * Z[e] and Z[L - e] meet in the block:
   * - kind R2C_HALF, a four-step's last kernel over complex rows in the workspace: it splits
   *   them into X[e] and X[L - e] as it stores the half spectrum (the rows' output strides
   *   0: the output position is the spectrum index);
   * - kind C2R_HALF, a four-step's first kernel (its columns are the rows): it loads X[e]
   *   and X[L - e] from the half spectrum (the rows' input strides 0) and merges them into
   *   Z[e] and Z[L - e] in shared memory before its passes; it stores complex values into
   *   the workspace. */
  int64_t paired_rows;
  /* > 0 (pointwise gathers and scatters of full-length real routes, kinds R2C and C2R): each
   * complex workspace row carries two of the user's real rows, Z = x_a + i x_b (R2C) or
   * Z = X_a + i X_b (C2R, both Hermitian halves expanded, the imaginary parts of their DC
   * and Nyquist terms dropped), so one FFT does the work of two. Row a is the kernel's row
   * (batch dim row_pair_dim, the outermost of the user's with c > 1 rows, counts ceil(c / 2)
   * of them); row b lies row_pair_apart rows further along that dimension (row_pair_apart
   * times its user-side stride), and exists for the first row_pairs_present rows a
   * (c - ceil(c / 2)). The R2C scatter splits Z[e] and Z[n - e] into X_a[e] and X_b[e];
   * the C2R scatter stores the real parts to a, the imaginary ones to b. */
  int64_t row_pair_apart, row_pairs_present;
  int row_pair_dim;
  /* 1 (half-length real kernels of one block, zipfft__can_mirror): the threads of one pass
   * take butterflies j and m - j (m/2 for j = 0), so that elements e and n - e meet in one
   * thread's registers. R2C_HALF: the last pass, which splits into the half spectrum as it
   * stores, with no round through shared memory. C2R_HALF: the first pass, which merges
   * from the half spectrum as it loads (each value read once), with no merge phase. */
  int mirrored;
  /* 1 (C2R_HALF kernels of one block, zipfft__can_merge_on_load): the first pass merges as it
   * loads, each value Z[e] from X[e] and X[L - e] read from global memory, so that there is
   * no merge phase before the passes (each X value is read twice). */
  int merge_on_load;
  /* 1 (cluster column kernels whose cluster stores go by column, zipfft__can_interleave_shared;
   * ZIPFFT_CLUSTER_INTERLEAVE=0 turns it off): element e of the block's column f lies at
   * shared slot e * ffts_per_block + f, unpadded, instead of f * stride + e, so that the
   * cluster's reads of one k across the columns (another block's shared memory) are
   * contiguous. */
  int shared_interleaved;
  /* 1 (C2R_HALF cluster kernels): the first pass reads each value of the half spectrum once,
   * X[e] for its own elements e; X[L - e] comes from the shared memory of the partner block
   * that read it (rank C - rank, 0 for rank 0), after a cluster barrier, instead of a
   * second read from global memory (tuning: ZIPFFT_CLUSTER_MIRROR). */
  int cluster_mirror;
  /* 1 (R2C_HALF kernels that split through shared memory, zipfft__can_split_by_element): the
   * split phase hands out the block's outputs in order, neighbouring threads on neighbouring
   * output elements over all the block's transforms, each thread storing one element of a
   * pair instead of both (the pair's arithmetic done twice), so that the stores run whole
   * whatever the threads per transform (tuning: ZIPFFT_SPLIT_BY_ELEMENT). */
  int split_by_element;
  /* 1 (short kernels, zipfft__can_stage_io): the block's input rows come into shared memory
   * element by element before the first pass, neighbouring threads on neighbouring elements
   * over all the block's transforms, and the first pass (or the C2R merge) reads them there;
   * the last pass writes its outputs there (C2C, R2C, C2R, C2R_HALF) and they leave the
   * same way (R2C and C2R: the real rows as reals, two to a complex slot), so
   * that a warp's accesses are whole runs however few threads share a transform. R2C_HALF
   * kernels split by element instead (split_by_element). */
  int stage_io;
  /* 1 (stage_io R2C and C2R kernels, tuning): the block's real rows lie in the stage packed
   * at n reals apart (odd n: a thread a transform reads them without bank conflicts, and the
   * block's reals are as contiguous there as in memory), its Hermitian rows after them,
   * instead of each transform's two sides sharing one row of zipfft__stage_io_pitch slots. */
  int stage_packed_reals;
  /* 1 (fused correlation, Bluestein and store_major kernels, zipfft__can_pass_in_place):
   * every pass reads its values from the shared-memory slots it then writes its outputs to,
   * so that no barrier guards shared memory against being overwritten before other threads
   * have read it. The first FFT runs its passes in reverse order, each in the slots and with
   * the twiddles of that Stockham pass but multiplying after the butterflies (decimation in
   * frequency), and leaves its outputs digit-reversed; the second FFT runs the Stockham
   * passes in order, each reading from the slots it writes (the transpose of the first
   * FFT's steps), and takes the digit-reversed values as they come in pass 0's registers,
   * times the kept spectrum or Bluestein's filter, stored in the same order
   * (zipfft__in_place_entry). A store_major kernel (one FFT) leaves its outputs in pass 0's
   * slots, where its staged stores read them (zipfft__in_place_element). Any radices. */
  int passes_in_place;
  /* 1 (CUDA; api/plan.c read_only_tables_wanted: by default the one kernel of an fp32 real
   * plan on slow memory, ZIPFFT_READONLY_TABLES in tuning): the twiddle table parameter is
   * declared __restrict__, as nothing writes the plan's tables while a kernel runs, so
   * that the compiler may load from it ahead of the kernel's global stores (nvcc 13.0
   * offline, sm_90: C2C 32768's cluster kernel 102 -> 86 registers, 2^24's cluster column
   * kernel 128 -> 101, but Bluestein 4099's 0 -> 136 bytes of spills); the CPU backend
   * ignores it. */
  int read_only_tables;
  /* 1 (CUDA; tuning, ZIPFFT_DISTINCT_IO=1; no change on an H100): the kernel's in and out
   * arrays never overlap (api/plan.c: a plan's kernel between different arrays, not both
   * the user's), so both parameters are declared __restrict__ and the compiler may move
   * loads through other pointers (a cluster kernel's reads of other blocks' shared memory,
   * the tables) ahead of the kernel's stores; the CPU backend ignores it. */
  int distinct_io;
  /* 1 (CUDA): the kernel's in and out arrays are touched once, so their complex vector
   * accesses are evict-first (ld/st.global.cs), leaving L2 to the tables every row reads
   * (Bluestein's three kernels, plan/fourstep.c); the CPU backend ignores it. */
  int streaming_io;
  /* User callbacks replacing the loads from the input and the stores to the output
   * (function NULL: none); their strings belong to the plan. */
  zipfft__callback load_callback, store_callback;
} zipfft__kernel_spec;

/* How the input one block reads lies in memory, for the block-ahead prefetch
 * (prefetch_ahead). */
typedef enum {
  ZIPFFT__BLOCK_INPUT_SCATTERED, /* no prefetch: not a shape below, or not served */
  ZIPFFT__BLOCK_INPUT_RANGE,     /* one contiguous range (unit element stride, one batch
                                  * dimension): one bulk prefetch by one thread */
  ZIPFFT__BLOCK_INPUT_COLUMNS    /* adjacent columns (innermost batch stride 1): one L2 line
                                  * per element of the block's transforms, by every thread */
} zipfft__block_input;

/* The shape of a block's input for the block-ahead prefetch. Served: single-kernel C2C
 * transforms (cluster kernels too: a block then asks for its rank's elements), and R2C and C2R
 * without Rader or Bluestein, without statistics, cluster, paired rows or load callback. RANGE:
 * kernels without fusion or load extent (a cluster kernel's block takes its rank's share of a later
 * cluster). COLUMNS: column kernels (fused correlation ones such as the 2DTM kernel, and plain
 * column passes) whose run of adjacent columns spans at least 32 bytes; plain ones prefetch by
 * default only where zipfft__prefetch_distance_of says (most lost: 2D 4096^2 -15% to -25%, 3D 256^3
 * -3%, docs/perf/2026-11-26-h100-prefetch-shapes.md). Measured and left SCATTERED: row passes of
 * several batch dimensions (no change). */
zipfft__block_input zipfft__block_input_of(const zipfft__kernel_spec *s);
/* 1 when a kernel may ask L2 for the next blocks' input (prefetch_ahead): its block input
 * is not SCATTERED. */
int zipfft__can_prefetch_ahead(const zipfft__kernel_spec *s);
/* How far ahead a kernel's blocks prefetch their input by default: eighths of the grid's
 * resident blocks, or of its resident clusters for a cluster kernel (0: no prefetch), or
 * where by_bytes_on_slow_memory is set and the device has slow memory, a fixed number of
 * bytes instead (api/plan.c). */
typedef struct {
  int eighths;
  int by_bytes_on_slow_memory;
  int after_loads; /* 1: asked for after the first pass's loads (prefetch_after_loads) */
} zipfft__prefetch_distance;
/* The default prefetch distance of a kernel that can prefetch ahead, at this many blocks per
 * multiprocessor on a device of slow memory (zipfft__slow_memory: the H100) or not: by a
 * table of blocks per multiprocessor, except that C2R kernels prefetch only at 2 to 3
 * blocks on slow memory and 2 to 12 on others, crowded R2C kernels of one transform per
 * block take an eighth, cluster kernels an eighth of their resident clusters on fast
 * memory only, and plain column kernels prefetch only where they are four-step ones
 * on fast memory at one block per multiprocessor with whole-line rows: half the resident
 * blocks ahead, after their loads (kernel_spec.c).
 * Measured (% of the copy bandwidth, prefetch against none; C2R fp32, the half-length
 * kernels): 16384 (2 blocks) H200 77.6 -> 82.6, H100 94.0 -> 97.9; 32768 (1 block) H200
 * 56.0 -> 54.1, H100 73.0 -> 65.3 (docs/perf/2026-11-27-c2r-prefetch.md); an eighth ahead
 * at 4 to 10 blocks (session 43, docs/perf/2026-11-27-h200-rule-checks.md): H200 3072
 * 91.0 -> 93.5, 4096 92.0 -> 93.3, 6144 82.0 -> 88.9, 8192 85.7 -> 92.2; H100 3072 97.6 ->
 * 96.9, 4096 97.6 -> 96.7, 6144 95.5 -> 98.5, 8192 97.3 -> 97.1. */
zipfft__prefetch_distance zipfft__prefetch_distance_of(const zipfft__kernel_spec *s,
                                                       int64_t blocks_per_multiprocessor,
                                                       int slow_memory);
/* Input elements of one transform that a kernel reads: the logical length (a Rader prime,
 * a Bluestein length), the 2n reals of a HALF R2C, the Hermitian half of a C2R; at most the
 * load extent. */
int64_t zipfft__input_row_elements(const zipfft__kernel_spec *s);

/* The storage value of the AST's accesses that go through a user callback (internal). */
#define ZIPFFT__STORAGE_CALLBACK ((zipfft_storage)3)

/* Positions of a row one block of a pointwise kernel takes: ZIPFFT__POINTWISE_CHUNK, or
 * one per thread for SIGNAL_SUM (its loop over the signals gives each thread enough loads
 * in flight, and more blocks fill the device). */
int64_t zipfft__pointwise_chunk(const zipfft__kernel_spec *s);
/* Blocks of a pointwise kernel per row: its range in chunks (zipfft__pointwise_chunk). */
int64_t zipfft__pointwise_chunks(const zipfft__kernel_spec *s);
/* Makes s a pointwise kernel of operation op over `range` positions per row: no passes,
 * one chunk of a row per block, the chunks a new last batch digit (strides 0). */
void zipfft__make_pointwise(zipfft__kernel_spec *s, zipfft__pointwise_op op, int64_t range);
/* 1 for the pointwise gathers (the output is the complex workspace), 0 otherwise. */
int zipfft__pointwise_is_gather(const zipfft__kernel_spec *s);
/* 1 for the pointwise scatters (the input is the complex workspace), 0 otherwise. */
int zipfft__pointwise_is_scatter(const zipfft__kernel_spec *s);
/* 1 when the kernel's input (output) is the complex workspace whatever its kind: the
 * scatters and R2C paired_rows kernels (the gathers and C2R paired_rows kernels). */
int zipfft__reads_workspace(const zipfft__kernel_spec *s);
int zipfft__writes_workspace(const zipfft__kernel_spec *s);

/* Number of leading elements of a row the kernel's loads may find non-zero, in the units
 * the first pass addresses (complex elements; pairs of reals for R2C_HALF), n when every
 * element may be: lets the loads of elements beyond it be dropped at generation time. */
int64_t zipfft__load_bound(const zipfft__kernel_spec *s);

/* The transform length the kernel's loads and stores see: bluestein_n or rader_n, else
 * zipfft__transform_points (n, or n * cluster). */
int64_t zipfft__logical_length(const zipfft__kernel_spec *s);
/* Bluestein's chirp length (bluestein_n, else chirp_n) and the length of the filter in the
 * kernel's table (filter_n for a FILTER load, else n). */
int64_t zipfft__chirp_length(const zipfft__kernel_spec *s);
int64_t zipfft__filter_length(const zipfft__kernel_spec *s);
/* The chirp half of a user's kind: HALF_OUT for R2C, HALF_IN for C2R, else FULL. */
zipfft__chirp_half zipfft__chirp_half_of(zipfft__kernel_kind kind);
/* Positions of Bluestein's convolution of length n that hold inputs and that are outputs,
 * and the fewest padded points that convolution needs (inputs + outputs - 1). */
int64_t zipfft__chirp_inputs(int64_t n, zipfft__chirp_half half);
int64_t zipfft__chirp_outputs(int64_t n, zipfft__chirp_half half);
int64_t zipfft__chirp_least_padding(int64_t n, zipfft__chirp_half half);
/* 1 for a fused chirp load of a row's own elements (CHIRP complex, CHIRP_REAL R2C's reals,
 * CHIRP_HALF C2R's half), which reads the user's rows only below the convolution's inputs;
 * 0 for none and for the FILTER load. */
int zipfft__loads_chirp(const zipfft__kernel_spec *s);
/* The points of a half-length real kind's complex FFT: n (n * cluster for cluster kernels,
 * n * paired_rows for paired_rows kernels), or Rader's prime p (its FFTs take p - 1 points). */
int64_t zipfft__half_points(const zipfft__kernel_spec *s);
/* The pass a mirrored kernel mirrors: the first of a C2R_HALF kernel, the last of an
 * R2C_HALF kernel. */
int zipfft__mirrored_pass(const zipfft__kernel_spec *s);
/* 1 when the generator can mirror a half-length real kernel of one block: no cluster, row
 * pairs, Rader, Bluestein, fused FFTs, statistics or transform-major threads (for C2R no
 * zero-padded loads, nor merge_on_load), and the mirrored pass's m = n / radix butterflies
 * fall to its threads in an even number of whole rounds (which needs m even). Where it pays
 * is the planner's choice (single.c, choose_mirrored). */
int zipfft__can_mirror(const zipfft__kernel_spec *s);
/* 1 when the generator can merge a C2R_HALF kernel's half spectrum in its first pass's
 * loads: one block per transform (no cluster, which merges so of its own), no row pairs,
 * Rader, Bluestein, fused FFTs, statistics, pointwise work or zero-padded loads. */
int zipfft__can_merge_on_load(const zipfft__kernel_spec *s);
/* 1 when an R2C_HALF kernel's split phase may hand out the block's outputs by element
 * (split_by_element): one block, not mirrored, no paired rows, no Rader or Bluestein
 * length. */
int zipfft__can_split_by_element(const zipfft__kernel_spec *s);
/* 1 when a kernel may stage its input and outputs element by element (stage_io): a C2C,
 * R2C, C2R, R2C_HALF or C2R_HALF kernel of one block per transform in the default storage,
 * with unit element strides, one batch dimension and nothing else fused, padded, cropped,
 * tiled, mirrored, merged on load, paired, clustered, convolved or called back. */
int zipfft__can_stage_io(const zipfft__kernel_spec *s);
/* 1 when a Rader kernel may load and store by element over the block (rader_by_element): a
 * C2C kernel of one batch dimension whose rows lie back to back (distance rader_n) on both
 * sides, unit element strides, the default storage, and nothing fused, padded, cropped,
 * tiled, clustered, twiddled or called back. */
int zipfft__can_rader_by_element(const zipfft__kernel_spec *s);
/* stage_io kernels: complex slots per transform in the staging area (the longer of the input
 * and output rows, spread over the banks: zipfft__stage_io_pitch), and the rows' lengths in
 * complex slots (zipfft__stage_io_row: a row of reals takes half as many, rounded up; R2C_HALF
 * input and C2R_HALF output are pairs of reals). zipfft__stage_io_real_side: 1 where side
 * `out` is a row of reals (R2C's and R2C_HALF's input, C2R's and C2R_HALF's output). */
int64_t zipfft__stage_io_pitch(const zipfft__kernel_spec *s);
int64_t zipfft__stage_io_row(const zipfft__kernel_spec *s, int out);
int zipfft__stage_io_real_side(const zipfft__kernel_spec *s, int out);
/* stage_io kernels: the slot where the staged complex rows start (after the packed real rows
 * with stage_packed_reals, else zipfft__stage_slot), and the reals between the staged real
 * rows of neighbouring transforms (n packed, else twice zipfft__stage_io_pitch; a real row
 * starts at real index 2 zipfft__stage_slot plus its transform times this). */
int64_t zipfft__stage_complex_slot(const zipfft__kernel_spec *s);
int64_t zipfft__stage_real_pitch(const zipfft__kernel_spec *s);

/* 1 when a kernel may run its passes in place (passes_in_place), of at least two passes in
 * one block without clusters, statistics or row pairs: a C2C fused correlation kernel or
 * Bluestein kernel (two FFTs, outputs stored from registers), a Rader kernel (C2C or half
 * length real, its stores, split or merge reading or writing its slots), or a C2C kernel
 * of one FFT whose outputs leave through shared memory for stores by neighbouring threads
 * on neighbouring transforms (store_major). */
int zipfft__can_pass_in_place(const zipfft__kernel_spec *s);

/* The row of the kept spectrum (along the fused axis), or the entry of a Bluestein
 * kernel's filter, that holds its element e for kernel s. That is e itself, except for
 * passes_in_place kernels: their first FFT leaves element reversed(j) + r*m in register r
 * of butterfly j of pass 0 (m = n / radix 0), so it goes to row j + r*m, and the multiply
 * reads rows in order. reversed(j) has j's digits (of the radices of passes 1 to P-1) in
 * reverse order. s NULL: e. */
int64_t zipfft__in_place_entry(const zipfft__kernel_spec *s, int64_t e);
/* Where a fused kernel finds element e of its spectrum column, past the column's offset:
 * e * aux_stride, or with aux_pairs (tile e / 2m * m + e % m) * 2 * aux_stride + e / m % 2. */
int64_t zipfft__aux_offset(const zipfft__kernel_spec *s, int64_t e);
/* 1 for a C2R_HALF kernel that merges the half spectrum into shared memory before its
 * first pass, in a phase of its own: not a cluster kernel, a mirrored one or one that
 * merges on load, which all merge in their first pass's loads. */
int zipfft__has_merge_phase(const zipfft__kernel_spec *s);
/* 1 when the kernel, staging its twiddles (shared_twiddles), copies them inside its first
 * pass, after that pass's global loads, so that the copy's table reads wait together with
 * the loads and the pass's barrier publishes it: fp32 kernels whose first pass loads from
 * global memory and reads no pass twiddles, with no signal loop (which would copy them per
 * signal). Otherwise the copy comes first, behind a barrier of its own.
 * Measured against the copy first (2DTM 4096x4096/512 batch 16, corr/s): H200 10904 ->
 * 11034, f16 spectrum 11254 -> 11335; H100 10082 -> 10120, f16 10478 -> 10582; H100 fp32
 * 2D 4096x4096 C2C +0.8%, the other fp32 transforms within 0.5%. fp64 kernels lost (H100:
 * 4099 Bluestein -3.6%, R2C 2^20 -0.9%). */
int zipfft__copies_twiddles_in_first_pass(const zipfft__kernel_spec *s);
/* 1 when the kernel's first pass loads its values from global memory (no statistics loop,
 * merge phase, Rader staging, packed input or cluster), where a prefetch_after_loads is
 * emitted. */
int zipfft__first_pass_loads_global(const zipfft__kernel_spec *s);
/* A packed workspace segment (kernel_spec out_packed, in_packed): 8 values in 48 bytes. */
enum { ZIPFFT__PACKED_SEGMENT_VALUES = 8, ZIPFFT__PACKED_ELEMENT_BYTES = 6 };
/* kernel_spec in_packed: which 8 values a segment holds (see there). */
typedef enum {
  ZIPFFT__PACKED_NONE,
  ZIPFFT__PACKED_ALONG,
  ZIPFFT__PACKED_ACROSS
} zipfft__packed_input;
/* 1 when s's packed sides (out_packed, in_packed) are possible: a plain fp32 C2C kernel of
 * a multiple of 8 transforms a block over whole blocks (the innermost batch count a
 * multiple of the block's) with neither callbacks, extents, tiles, clusters, staging nor
 * passes in place; packed outputs stored from the last pass's registers; inputs packed
 * along a transform of a length that is a multiple of 8 whose shared padding keeps a
 * segment's 8 elements side by side, not prefetched. */
int zipfft__can_pack_segments(const zipfft__kernel_spec *s);
/* 1 when s's input is packed along its transforms with each transform's segments side by
 * side (in_stride one segment): a transform's n elements are 6 n contiguous bytes. */
int zipfft__packed_rows_contiguous(const zipfft__kernel_spec *s);
/* 1 when s's input is packed by groups of transforms (the split in two): segment q of its
 * neighbouring transforms side by side (packed, not zipfft__packed_rows_contiguous). */
int zipfft__packed_by_groups(const zipfft__kernel_spec *s);
/* 1 when the kernel's last pass leaves its result in shared memory for a separate store
 * phase (store_major, Bluestein and Rader kernels). */
int zipfft__stores_from_shared(const zipfft__kernel_spec *s);

/* 1 when the kernel runs two FFTs with a multiply between them (Bluestein, Rader, fused
 * correlation). */
int zipfft__two_ffts(const zipfft__kernel_spec *s);
/* 1 for fused correlation kernels, which multiply by the kept spectrum of their aux array
 * (CORRELATE, CONVOLVE; not BLUESTEIN, whose filter is in the table). */
int zipfft__fused_with_spectrum(const zipfft__kernel_spec *s);
/* 1 for Bluestein and Rader kernels: a convolution by two FFTs of the table's filter. */
int zipfft__convolution_kernel(const zipfft__kernel_spec *s);
/* Rader kernels: shared-memory index (complex elements) of transform f's x[0]; X[0] is at
 * the next index. They follow every transform's exchange area. */
int64_t zipfft__rader_slot(const zipfft__kernel_spec *s, int64_t f);
/* Whether a fused correlation kernel passes the first FFT's outputs to the second in
 * registers: its first and last radix agree, so the last pass leaves each thread the
 * values the first pass loads (no exchange through shared memory between the FFTs). */
int zipfft__fused_handoff(const zipfft__kernel_spec *s);

/* 1 when the kernel is asked for a C2C transform, or a half-length real transform of whole
 * rows, and nothing more: no extents, neighbouring-transform store, row pairs, Bluestein,
 * Rader, fused multiply, statistics or pointwise op, and for the real kinds no four-step
 * twiddle or neighbouring-transform mapping (what a cluster kernel can do; the split or
 * merge of a half-length kind goes into its stores or loads, a four-step column kernel's
 * twiddle into its stores). */
int zipfft__cluster_capable(const zipfft__kernel_spec *s);
/* 1 when a kernel's shared memory can be interleaved (shared_interleaved): a cluster kernel
 * of columns (fft_major, more than one a block). */
int zipfft__can_interleave_shared(const zipfft__kernel_spec *s);
/* 1 when a cluster kernel's stores put neighbouring threads on neighbouring columns at the
 * same k (column kernels whose columns lie side by side in the output), 0 when on
 * neighbouring k of one transform: rows, and column kernels whose outputs run along k
 * (out_stride 1: the first kernel of a transposed split, plan/fourstep.c). */
int zipfft__cluster_stores_by_column(const zipfft__kernel_spec *s);
/* Blocks per thread-block cluster (1: the kernel has no clusters). */
int zipfft__cluster_blocks(const zipfft__kernel_spec *s);
/* Points of one whole transform: n, or n * cluster for cluster kernels. */
int64_t zipfft__transform_points(const zipfft__kernel_spec *s);
/* Length L of the two-level twiddle exp(sign 2 pi i x / L) the kernel applies: the four-step
 * twiddle_length, or a cluster kernel's n * cluster; 0 when none. */
int64_t zipfft__large_twiddle_length(const zipfft__kernel_spec *s);

/* Kernel parameter order (both backends): in, out, twiddles, batch, batch_offset, aligned,
 * aux (fused correlation: the kept spectrum), loop_count and first_index (statistics: the
 * signals of this launch and the index of the first), load_user and store_user (the user
 * pointers of the callbacks). */
enum {
  ZIPFFT__ARG_IN,
  ZIPFFT__ARG_OUT,
  ZIPFFT__ARG_TWIDDLES,
  ZIPFFT__ARG_BATCH,
  ZIPFFT__ARG_BATCH_OFFSET,
  ZIPFFT__ARG_ALIGNED,
  ZIPFFT__ARG_AUX,
  ZIPFFT__ARG_LOOP_COUNT,
  ZIPFFT__ARG_FIRST_INDEX,
  ZIPFFT__ARG_LOAD_USER,
  ZIPFFT__ARG_STORE_USER,
  ZIPFFT__ARG_COUNT
};

/* 1 when the kernel loads reals (R2C, R2C_HALF's pairs, R2R), 0 otherwise. */
int zipfft__kind_real_in(zipfft__kernel_kind k);
/* 1 when the kernel stores reals (C2R, C2R_HALF's pairs, R2R), 0 otherwise. */
int zipfft__kind_real_out(zipfft__kernel_kind k);

/* Size of one real of the precision (4 or 8). */
size_t zipfft__real_size(zipfft_precision p);
/* Bytes of one complex element stored as `storage` in a kernel of precision p. */
size_t zipfft__complex_bytes(zipfft_precision p, zipfft_storage storage);
/* Bytes of one element of the kernel's input (out = 0) or output (out = 1) array: a real
 * for the real side of R2C and C2R, else a complex value. */
size_t zipfft__element_bytes(const zipfft__kernel_spec *s, int out);
/* 1 when the real side of a half-length real kernel (R2C_HALF's input, out = 0; C2R_HALF's
 * output, out = 1) moves each pair (x[2e], x[2e+1]) as one complex vector access: reals
 * side by side (stride 1) in rows that start at even offsets, an even extent, and the
 * storage's own accessors (no callback). Such a kernel's vector branch then needs its
 * pointer aligned to the pair (zipfft__vector_bytes). */
int zipfft__real_pairs_as_vectors(const zipfft__kernel_spec *s, int out);
/* The alignment the kernel's vector accesses of its input (out = 0) or output (out = 1)
 * need: the element's bytes, or a pair's where zipfft__real_pairs_as_vectors. */
size_t zipfft__vector_bytes(const zipfft__kernel_spec *s, int out);
/* Shared memory holds interleaved complex values. The first pass stores with a stride of
 * one radix; an odd stride puts every 8- or 16-byte access of a warp's phase in a
 * different bank. So an even first radix gets one padding element after every `period` =
 * radix elements (stride radix + 1), an odd one none (period 0). Measured on an H200:
 * uniform padding every 16 or 32 elements left 2-way conflicts for radix 16 and more for
 * radix 10, and padding a radix-7 layout made its stride even (2401: 79% -> 62%). */
int64_t zipfft__shared_pad_period(const zipfft__kernel_spec *s);
/* Padded shared-memory position (complex elements) of element i of a transform. */
int64_t zipfft__shared_pad(const zipfft__kernel_spec *s, int64_t i);
/* Shared-memory stride of one transform (complex elements, padded), chosen so that the
 * transforms sharing a 128-byte phase of accesses fall in distinct banks where that pays. */
int64_t zipfft__c2c_shared_stride(const zipfft__kernel_spec *s);
/* Slots that rows F/2 to F-1 of a C2R merge kernel sit beyond f * stride (0 elsewhere), so
 * that its merge phase (F/2 transforms at a time) and its passes (F) both spread over the
 * banks: fp32's rule, ZIPFFT_MERGE_STRIDE=2 in either precision. */
int64_t zipfft__shared_row_offset(const zipfft__kernel_spec *s);
/* The first shared slot (complex elements) after every transform's exchange row. */
int64_t zipfft__shared_rows_end(const zipfft__kernel_spec *s);
/* Statistics kernels: output reals per slot of the last pass (2 for C2R_HALF's pairs),
 * and output reals a thread folds (slots of the last pass times that; 0 for other
 * kernels). Shared memory holds a real sum of squares for each, per thread, unless
 * squares_in_registers. */
int zipfft__statistics_reals_per_slot(const zipfft__kernel_spec *s);
int64_t zipfft__statistics_reals_per_thread(const zipfft__kernel_spec *s);
/* Shared-memory index (complex elements) where a shared_twiddles kernel keeps its staged
 * twiddles: after every transform's exchange area, Rader's slots and the statistics sums. */
int64_t zipfft__shared_twiddle_base(const zipfft__kernel_spec *s);
/* Whether the passes read w_q from the table (or its staged copy) rather than deriving it
 * as a product of two read ones: q a power of two. (Measured on an H200: staging and reading
 * every q instead, the 2DTM fused kernel has 13% fewer FP instructions but the call takes
 * 2.33 ms against 1.91: its FP work is not what limits it, and 44 more shared-memory
 * loads per thread cost more than 180 FP instructions save.) */
int zipfft__twiddle_read(int q);
/* Position (complex elements, from zipfft__shared_twiddle_base) of the ns staged entries of
 * pass p (p >= 1) for exponent q, a power of two below the pass's radix; with p =
 * pass_count and q = 1, the number of entries staged. */
int64_t zipfft__shared_twiddle_slot(const zipfft__kernel_spec *s, int p, int q);
/* stage_rows kernels: bytes one staged row copies (the row's elements, or with in_tile the
 * whole tile of rows it lies in, in the input's storage, rounded up to 16 bytes, the bulk
 * copy's unit), its complex slots in shared memory, and the slot where the
 * two staged rows start (16-byte aligned, after the staged twiddles); the copies' barrier
 * (8 bytes) takes the slot after them. */
int64_t zipfft__stage_row_bytes(const zipfft__kernel_spec *s);
int64_t zipfft__stage_row_slots(const zipfft__kernel_spec *s);
int64_t zipfft__stage_slot(const zipfft__kernel_spec *s);
/* Dynamic shared memory per block, bytes (0 when the kernel has a single pass). */
size_t zipfft__c2c_shared_bytes(const zipfft__kernel_spec *s);
unsigned zipfft__c2c_block_threads(const zipfft__kernel_spec *s);
/* Deterministic kernel name encoding every parameter, written into buf. */
void zipfft__c2c_kernel_name(const zipfft__kernel_spec *s, char *buf, size_t len);

#endif
