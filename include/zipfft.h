/* zipfft.h - public API of zipfft, a run-time generated FFT library for NVIDIA GPUs and CPUs. */
#ifndef ZIPFFT_H
#define ZIPFFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Conventions
 * - Lengths are row-major: lengths[rank-1] is the fastest-varying (contiguous) axis, as in
 *   FFTW and cuFFT.
 * - Forward transforms use the sign -1 in the exponent, inverse ones +1. Transforms are
 *   unnormalised; zipfft_desc_set_scale multiplies every output by a factor (for example
 *   1.0/n for a normalised inverse).
 * - Complex data are interleaved (re, im) pairs of the precision's real type.
 * - Strides and distances count elements of the array's own type (reals for the real array
 *   of R2C/C2R, complex elements for complex arrays), are 64-bit, and may describe any layout
 *   whose output axes nest (see zipfft_desc_set_layout), so that no two outputs overlap.
 *   Pointers may have any alignment; naturally aligned data is fastest (the real array of
 *   an even-length R2C or C2R whose rows start at even element offsets: aligned to two
 *   reals, as cudaMalloc and malloc give).
 * - Every function returns a zipfft_status. On failure, zipfft_last_error() describes the
 *   offending value, nothing the caller owns is modified, and nothing is printed.
 */

/* Status codes: one list gives the enum, zipfft_status_name and zipfft_status_string.
 * Ranges: 0 success, 1xx bad argument, 2xx unsupported, 3xx backend/device, 4xx internal. */
#define ZIPFFT_STATUS_LIST(X)                                                               \
  X(ZIPFFT_SUCCESS, 0, "success")                                                           \
  X(ZIPFFT_ERROR_NULL_POINTER, 100, "a required pointer argument is NULL")                  \
  X(ZIPFFT_ERROR_INVALID_TYPE, 101, "unknown transform type")                               \
  X(ZIPFFT_ERROR_INVALID_PRECISION, 102, "unknown precision")                               \
  X(ZIPFFT_ERROR_INVALID_RANK, 103, "rank outside 1..3")                                    \
  X(ZIPFFT_ERROR_INVALID_LENGTH, 104, "a length is zero, negative or too large")            \
  X(ZIPFFT_ERROR_INVALID_BATCH, 105, "batch count is less than 1")                          \
  X(ZIPFFT_ERROR_INVALID_LAYOUT, 106, "strides or distances are invalid or overlap")        \
  X(ZIPFFT_ERROR_INVALID_DIRECTION, 107, "direction is neither forward nor inverse")        \
  X(ZIPFFT_ERROR_INVALID_PLACEMENT, 108, "placement is invalid or does not match the call") \
  X(ZIPFFT_ERROR_INVALID_SCALE, 109, "scale factor is not finite")                          \
  X(ZIPFFT_ERROR_INVALID_BACKEND, 110, "unknown backend or device index")                   \
  X(ZIPFFT_ERROR_INVALID_ARGUMENT, 111, "an argument is invalid")                           \
  X(ZIPFFT_ERROR_INVALID_STORAGE, 112, "storage type unknown or not allowed here")          \
  X(ZIPFFT_ERROR_UNSUPPORTED_LENGTH, 200, "length not supported by this version")           \
  X(ZIPFFT_ERROR_UNSUPPORTED_TYPE, 201, "transform type not supported by this version")     \
  X(ZIPFFT_ERROR_UNSUPPORTED_RANK, 202, "rank not supported by this version")               \
  X(ZIPFFT_ERROR_TOO_LARGE, 203, "workspace and tables would not fit the memory")           \
  X(ZIPFFT_ERROR_NO_CUDA_DRIVER, 300, "the CUDA driver library could not be loaded")        \
  X(ZIPFFT_ERROR_NO_CUDA_DEVICE, 301, "no usable CUDA device")                              \
  X(ZIPFFT_ERROR_NO_NVRTC, 302, "the NVRTC library could not be loaded")                    \
  X(ZIPFFT_ERROR_COMPILE_FAILED, 303, "kernel compilation failed")                          \
  X(ZIPFFT_ERROR_CUDA_FAILED, 304, "a CUDA driver call failed")                             \
  X(ZIPFFT_ERROR_CPU_COMPILER, 305, "the host C compiler or loader failed")                 \
  X(ZIPFFT_ERROR_OUT_OF_MEMORY, 306, "memory allocation failed")                            \
  X(ZIPFFT_ERROR_INTERNAL, 400, "internal error")

typedef enum zipfft_status {
#define ZIPFFT_STATUS_ENUM_(name, value, text) name = value,
  ZIPFFT_STATUS_LIST(ZIPFFT_STATUS_ENUM_)
#undef ZIPFFT_STATUS_ENUM_
} zipfft_status;

/* Transform types. R2C takes real input of the given lengths and writes the Hermitian half
 * of the spectrum: the last axis holds n/2+1 complex values (FFTW and cuFFT layout). C2R
 * takes that half and writes real output; the imaginary parts of the elements that must be
 * real (the DC and, for even n, Nyquist terms) are ignored. C2C and R2C never modify their
 * input out of place; rank-1 C2R neither, but C2R of rank 2 and 3 uses its input array as
 * scratch (as cuFFT and FFTW do), except where the input is stored in 16 bits and the
 * output in another type (see zipfft_storage). In place, the real array's rows are padded to
 * 2*(n/2+1) reals so that it occupies the complex array's memory. */
typedef enum zipfft_type { ZIPFFT_C2C = 0, ZIPFFT_R2C = 1, ZIPFFT_C2R = 2 } zipfft_type;
typedef enum zipfft_precision { ZIPFFT_F32 = 0, ZIPFFT_F64 = 1 } zipfft_precision;
typedef enum zipfft_direction { ZIPFFT_FORWARD = -1, ZIPFFT_INVERSE = 1 } zipfft_direction;
typedef enum zipfft_placement { ZIPFFT_OUTOFPLACE = 0, ZIPFFT_INPLACE = 1 } zipfft_placement;
/* How complex values are stored in memory. DEFAULT stores the compute precision's type; F16
 * (IEEE binary16) and BF16 (bfloat16) store each real in 16 bits and compute in fp32, so
 * they need ZIPFFT_F32. Values are converted while loaded and stored (round to nearest
 * even); a multi-axis transform stores its intermediate results in the output's type (C2R
 * of rank 2 and 3 keeps them in its input array where input and output share a type, and
 * otherwise, with a 16-bit input, in the workspace at fp32). */
typedef enum zipfft_storage {
  ZIPFFT_STORAGE_DEFAULT = 0,
  ZIPFFT_STORAGE_F16 = 1,
  ZIPFFT_STORAGE_BF16 = 2
} zipfft_storage;

typedef enum zipfft_backend {
  ZIPFFT_BACKEND_AUTO = 0, /* CUDA when a device is usable, else CPU */
  ZIPFFT_BACKEND_CPU = 1,  /* generated kernels compiled with the host C compiler */
  ZIPFFT_BACKEND_CUDA = 2  /* generated kernels compiled with NVRTC */
} zipfft_backend;

/* A problem description (what to transform). Created, set, then used to create plans. */
typedef struct zipfft_desc_s *zipfft_desc;
/* A plan: compiled kernels and tables for one description. Immutable once created; one
 * plan may be executed from several threads on different data, except a plan with a
 * workspace (zipfft_plan_workspace_size > 0: its executions share it, so they must not
 * overlap; use one plan per thread or stream), as with cuFFT's work areas. */
typedef struct zipfft_plan_s *zipfft_plan;

/* Name of a status ("ZIPFFT_ERROR_INVALID_LENGTH"); "ZIPFFT_UNKNOWN_STATUS" otherwise. */
const char *zipfft_status_name(zipfft_status s);
/* One-line description of a status. Never NULL. */
const char *zipfft_status_string(zipfft_status s);
/* Detail of the last failure on the calling thread (which field, which value, compiler
 * log). Empty string when the last call succeeded. Valid until the next zipfft call on this
 * thread. */
const char *zipfft_last_error(void);

/* Creates a description of a rank-dimensional transform of the given lengths (row-major,
 * lengths[rank-1] fastest). Every length is supported, memory permitting:
 * - one kernel per axis where it fits: lengths whose prime factors are at most 31 (the
 *   primes 17 to 31 as passes of their own radix; in fp64 C2C also the primes 37, 41 and
 *   43, as one pass) while one block's shared memory holds
 *   the transform (on a Hopper GPU powers of two to 16384 in fp32 and 8192 in fp64, other
 *   lengths to about 29000 and 14400) or, for C2C and half-length real rows, a
 *   thread-block cluster does (to 32768 in fp32, 16384 in fp64); primes p with such a
 *   p - 1 by Rader's method (a convolution of length p - 1; for R2C and C2R also twice
 *   such a prime, through its half length) within the same limits; and other lengths with
 *   a larger prime factor by Bluestein's method when its padded length (the smallest
 *   7-smooth length >= 2n-1, or n + n/2 for R2C and C2R, whose convolutions need only half
 *   their outputs or inputs; for the largest a slightly longer 2^a, 3*2^a or 5*2^a) fits,
 *   up to about 13100 in fp32 and 7000 in fp64 (R2C and C2R about 17400 and 8700);
 * - rank-1 C2C lengths beyond that which factor into such lengths: 2 to 4 kernels with a
 *   workspace (2^27 and beyond);
 * - any other axis (real axes, axes of 2D/3D transforms, lengths with a large prime
 *   factor) beyond one kernel: a pass through a workspace of up to two copies of the
 *   axis's rows as complex values (gather, 2-4 four-step kernels, or Bluestein's method in
 *   three kernels of the padded length, else with two four-step FFTs of it, then scatter;
 *   the FFT kernels read and write the user's arrays themselves, chirps included, where the
 *   layout is one nested batch without extents or callbacks).
 * A plan holds at most 24 kernels (at most two or three axes beyond one kernel); beyond
 * that, plan creation gives ZIPFFT_ERROR_UNSUPPORTED_LENGTH. Defaults: forward, batch 1,
 * contiguous layout, out-of-place, scale 1, backend AUTO on device 0. On success *d owns a
 * new description, to be freed with zipfft_desc_destroy. On failure *d is left unchanged.
 * Lengths are copied. */
zipfft_status zipfft_desc_create(zipfft_desc *d, zipfft_type type, zipfft_precision prec, int rank,
                                 const int64_t *lengths);
/* Frees a description. NULL is accepted and ignored. */
zipfft_status zipfft_desc_destroy(zipfft_desc d);
/* Sets the direction of a C2C transform: ZIPFFT_FORWARD (-1) or ZIPFFT_INVERSE (+1). R2C
 * is always forward and C2R always inverse, whatever is set here. */
zipfft_status zipfft_desc_set_direction(zipfft_desc d, zipfft_direction dir);
/* Sets the number of transforms (>= 1, 64-bit). */
zipfft_status zipfft_desc_set_batch(zipfft_desc d, int64_t batch);
/* Sets the data layout. in_strides and out_strides hold rank strides each (element units,
 * >= 1), NULL meaning contiguous row-major; in_dist/out_dist is the distance between
 * consecutive transforms of the batch (>= 0; 0 selects the default, lengths[0]*strides[0]).
 * Input elements may overlap (they are only read), except for C2R of rank 2 and 3, whose
 * input is scratch, and in-place C2R, whose output overwrites it: those obey the output
 * rule. Output elements may not overlap: sorted by
 * stride, every output axis (the batch included) must step over the whole extent of the
 * axes inside it (padded row-major, column-major and interleaved batches all qualify).
 * Each side may span at most 2^58 elements, and each stride times its axis's length (even
 * of one element, or cropped by an extent), and each distance times the batch, at most
 * 2^59: zipfft_plan_create refuses others with ZIPFFT_ERROR_INVALID_LAYOUT naming the value.
 * Arrays are copied. */
zipfft_status zipfft_desc_set_layout(zipfft_desc d, const int64_t *in_strides, int64_t in_dist,
                                     const int64_t *out_strides, int64_t out_dist);
/* Sets in-place (the output overwrites the input; the layouts must match: equal for C2C,
 * and for R2C and C2R the real array's strides and distance twice the complex array's with
 * both last strides 1; zipfft_execute must get in == out or out == NULL) or out-of-place (in !=
 * out; the input is never modified, except by C2R of rank 2 and 3, see zipfft_type). */
zipfft_status zipfft_desc_set_placement(zipfft_desc d, zipfft_placement p);
/* Sets a factor multiplied into every output (finite, and within fp32's range for an F32
 * description; default 1). */
zipfft_status zipfft_desc_set_scale(zipfft_desc d, double scale);
/* Sets the storage type of the input and of the output (default: the precision's own). F16
 * and BF16 need ZIPFFT_F32 compute (checked at plan creation). Strides still count complex
 * elements, now of 4 bytes. */
zipfft_status zipfft_desc_set_storage(zipfft_desc d, zipfft_storage in, zipfft_storage out);
/* Zero-padded input: the input array holds only extent[k] <= its length along axis k
 * (elements of the array's own logical shape: the last axis of a C2R input has n/2+1); the
 * transform treats the rest as zeros that are never read, and skips whole rows and columns
 * of zeros where its passes allow. The layout (zipfft_desc_set_layout, or the contiguous
 * default) then describes the extent-sized array as stored. NULL restores the whole array.
 * INVALID_LAYOUT names an extent outside 1..length. Extents need an out-of-place plan. */
zipfft_status zipfft_desc_set_input_extent(zipfft_desc d, const int64_t *extent);
/* Cropped output: only the first extent[k] outputs along each axis are stored (the last
 * axis of an R2C output counts n/2+1 complex values), into an extent-sized array that the
 * layout describes; outputs that are not stored are not computed where the passes allow.
 * NULL restores the whole array. Same checks as zipfft_desc_set_input_extent. */
zipfft_status zipfft_desc_set_output_extent(zipfft_desc d, const int64_t *extent);
/* User callbacks (as cuFFT's): C source compiled into the kernels, both as CUDA C++ (NVRTC)
 * and as C (host compiler), so it must be valid in both. `function` names a function the
 * source defines with ZIPFFT_CALLBACK in front (device and inline qualifiers), using the
 * types zreal (the precision's real type) and zcomplex (struct { zreal re, im; }):
 *   load, complex input:  ZIPFFT_CALLBACK zcomplex f(const void *in, long long i, void *user)
 *   load, real input:     ZIPFFT_CALLBACK zreal f(const void *in, long long i, void *user)
 *   store, complex:       ZIPFFT_CALLBACK void f(void *out, long long i, zcomplex v, void *user)
 *   store, real output:   ZIPFFT_CALLBACK void f(void *out, long long i, zreal v, void *user)
 * i counts elements of the array's type from the array passed to zipfft_execute (the
 * layout's strides and distances applied); user is user_data, passed to every call. The
 * load callback replaces the transform's reads of its input, the store callback its final
 * writes of the output (intermediate results of multi-axis transforms are stored
 * normally). They are called for every element read (once per use: C2R may read elements
 * of the Hermitian half twice) or written, never for the zero padding beyond an input
 * extent. Both need the default storage of their side. A callback that does not compile
 * makes zipfft_plan_create fail with COMPILE_FAILED (CUDA) or CPU_COMPILER (CPU) and the
 * compiler's log in zipfft_last_error(). source and function are copied; a NULL source
 * removes the callback. */
zipfft_status zipfft_desc_set_load_callback(zipfft_desc d, const char *source, const char *function,
                                            void *user_data);
zipfft_status zipfft_desc_set_store_callback(zipfft_desc d, const char *source,
                                             const char *function, void *user_data);
/* Chooses the backend and, for CUDA, the device ordinal (>= 0). AUTO picks CUDA when the
 * driver loads and the device exists, else the CPU. */
zipfft_status zipfft_desc_set_backend(zipfft_desc d, zipfft_backend b, int device);

/* Creates a plan for a description (the description may be destroyed afterwards). Generates,
 * compiles (or loads from the cache) and prepares every kernel and table; may take a few
 * hundred milliseconds on a cold cache. On failure *p is left unchanged. */
zipfft_status zipfft_plan_create(zipfft_plan *p, zipfft_desc d);
/* Convenience: a batched, contiguous, out-of-place 1D C2C plan on the AUTO backend. On
 * failure *p is left unchanged and the detail starts with the call's n and batch. */
zipfft_status zipfft_plan_1d(zipfft_plan *p, zipfft_precision prec, int64_t n, int64_t batch,
                             zipfft_direction dir);
/* Runs the plan. On CUDA, in and out are device pointers and stream is a CUstream or
 * cudaStream_t (NULL: the legacy default stream); the call only enqueues kernels: it never
 * allocates and never synchronises. On the CPU, in and out are host pointers, stream must
 * be NULL, and the call returns when the result is ready. For an in-place plan, out must
 * be NULL or equal to in. Bad arguments are refused before any kernel runs; a backend
 * failure while a plan of several kernels runs (a CUDA launch error; on the CPU, no host
 * memory or thread for a later kernel) can leave out, and in where the plan overwrites it,
 * partly written. */
zipfft_status zipfft_execute(zipfft_plan p, const void *in, void *out, void *stream);
/* Writes a human-readable description of the plan's passes and kernels (on CUDA also each
 * kernel's registers, spills and blocks per multiprocessor) into buf (always
 * NUL-terminated when len > 0, truncated if needed). *needed, if not NULL, receives the
 * length the full text needs, without the NUL. */
zipfft_status zipfft_plan_print(zipfft_plan p, char *buf, size_t len, size_t *needed);
/* Bytes of workspace the plan holds for its executions: 0 for transforms done in one kernel
 * per axis; a copy of the data in the compute precision (batch * n complex values) for 1D
 * C2C lengths split over several kernels; one or two copies of the longest such axis's rows
 * as complex values (of Bluestein's padded length where it applies) for the other axes
 * beyond one kernel (one where no gather or scatter is needed and the rows need only one
 * copy between their kernels, as Bluestein's three kernels); plus, for padded or cropped multi-axis transforms whose intermediate results
 * do not fit the array they would live in, and for C2R of rank 2 and 3 with a 16-bit input
 * and an output of another type, an intermediate array (each axis the larger of its two
 * extents, complex values of the compute precision). The plan allocates it at creation (on
 * the plan's backend) and frees it in zipfft_plan_destroy; plan creation fails with
 * ZIPFFT_ERROR_TOO_LARGE, before allocating anything, when the tables and the larger of the
 * workspace and the computation of a Bluestein filter through the workspace (an fp64
 * buffer and workspace of the padded length, 32 bytes per point, held only during plan
 * creation) would exceed the device's memory (the host's for the CPU backend). */
zipfft_status zipfft_plan_workspace_size(zipfft_plan p, size_t *bytes);
/* The backend a plan runs on (resolves AUTO). */
zipfft_status zipfft_plan_backend(zipfft_plan p, zipfft_backend *b);
/* Frees a plan and its device resources. NULL is accepted and ignored. */
zipfft_status zipfft_plan_destroy(zipfft_plan p);

/*
 * Fused convolution and cross-correlation (zipfft_corr)
 *
 * A plan keeps the spectrum of one real filter of the given lengths (rank 1-3; the FFT
 * size is the filter's size) and, per call, takes a batch of small real signals of
 * signal_lengths <= lengths, implicitly zero-padded. With indices taken modulo the lengths
 * (circular), the full result is
 *   correlation: full[x] = sum_y filter[x + y] * signal[y]
 *   convolution: full[x] = sum_y filter[x - y] * signal[y]
 * (the naive sums, no normalisation factor). The region says which part is stored:
 *   FULL  - every x, lengths in each axis;
 *   SAME  - lengths in each axis, centred on the signal: out[x] = full[x - c] (correlation)
 *           or full[x + c] (convolution), c = signal_length / 2 (rounded down);
 *   VALID - the lengths - signal_lengths + 1 positions where no index wraps: out[x] =
 *           full[x] (correlation) or full[x + signal_length - 1] (convolution).
 * Signals are contiguous row-major arrays of signal_lengths reals, one after the other;
 * outputs contiguous arrays of zipfft_corr_output_lengths reals. On CUDA every pointer is
 * device memory; on the CPU host memory.
 * The passes: a padded R2C along the last axis over only the signal's rows, forward C2C
 * along the middle axis (rank 3), then one kernel per column of the first axis that does
 * the forward FFT, the multiply by the kept spectrum and the inverse FFT, storing only the
 * rows the region needs; the inverse passes back, the last one storing only the region.
 */
typedef struct zipfft_corr_s *zipfft_corr;
typedef enum zipfft_corr_mode { ZIPFFT_CORRELATE = 0, ZIPFFT_CONVOLVE = 1 } zipfft_corr_mode;
typedef enum zipfft_corr_region {
  ZIPFFT_REGION_FULL = 0,
  ZIPFFT_REGION_SAME = 1,
  ZIPFFT_REGION_VALID = 2
} zipfft_corr_region;

/* Options of a correlation plan; a NULL config means all zeros: correlation, FULL region,
 * the spectrum kept in the precision's type, backend AUTO on device 0. */
typedef struct zipfft_corr_config {
  zipfft_corr_mode mode;
  zipfft_corr_region region;
  /* How the kept spectrum is stored: DEFAULT (the precision's type) or F16 (half the
   * bytes read per pass; ZIPFFT_F32 only; see docs for its accuracy cost). */
  zipfft_storage spectrum_storage;
  zipfft_backend backend;
  int device;
  /* How the array between the fused kernel and the last pass is stored (rank 2,
   * ZIPFFT_F32): DEFAULT (fp32), or F16 / BF16, which halve the bytes those two kernels
   * write and read. It holds each output row's spectrum divided by the row's length:
   * values at most the largest |output|, typically |output| / sqrt(lengths[1]). F16 keeps
   * 11 significant bits from about 6e-5 up to 65504 (beyond: infinite), BF16 fp32's range
   * with 8 bits. Measured (2DTM 4096x4096/512): relative L2 differences to fp32 of 1.1e-4
   * (F16) and 9e-4 (BF16); README gives the speed. */
  zipfft_storage intermediate_storage;
} zipfft_corr_config;

/* Creates a correlation plan: filter (FFT) lengths, signal lengths (each 1..lengths[k]),
 * and the largest number of signals one call takes (batch >= 1, at most 2^58 elements of
 * the lengths in all). Compiles its kernels and
 * allocates its spectrum and workspace; fails with ZIPFFT_ERROR_TOO_LARGE, before
 * allocating, when those and the tables would exceed the backend's memory (the statistics
 * arrays, about 16 bytes per output position, come at zipfft_corr_stats_reset). On failure *c is
 * left unchanged. */
zipfft_status zipfft_corr_create(zipfft_corr *c, zipfft_precision prec, int rank,
                                 const int64_t *lengths, const int64_t *signal_lengths,
                                 int64_t batch, const zipfft_corr_config *config);
/* The lengths of one output (rank values): lengths, or lengths - signal_lengths + 1 for
 * VALID. */
zipfft_status zipfft_corr_output_lengths(zipfft_corr c, int64_t *lengths);
/* Transforms the real filter (contiguous, lengths) once and keeps its spectrum (in fp64,
 * then rounded to the spectrum storage). Must be called before the first execution;
 * calling it again replaces the filter. Waits for all the device's work first. */
zipfft_status zipfft_corr_set_filter(zipfft_corr c, const void *filter);
/* The FFT lengths of the plan (rank values): the filter's lengths, or for VALID along a
 * length with a prime factor above 13 the next 7-smooth length (the filter zero-padded).
 * FULL and SAME keep the lengths; the first axis must then have no prime factor above 31
 * (in fp64 it may also be the prime 37, 41 or 43). */
zipfft_status zipfft_corr_fft_lengths(zipfft_corr c, int64_t *lengths);
/* Keeps a filter spectrum given directly instead of a filter (e.g. an image spectrum
 * whitened or band-passed by the caller): the forward R2C spectrum of the filter zero-padded
 * to zipfft_corr_fft_lengths, in the R2C output layout (contiguous, the last axis holding
 * n/2+1 complex values of the precision; rank 1 too). The plan conjugates, shifts and
 * scales it as it does a transformed filter. Waits for all the device's work first. */
zipfft_status zipfft_corr_set_filter_spectrum(zipfft_corr c, const void *spectrum);
/* Correlates (or convolves) count signals (1..batch) with the filter and stores count
 * outputs. Enqueues kernels only on CUDA (stream: a CUstream or NULL); never allocates. */
zipfft_status zipfft_corr_execute(zipfft_corr c, const void *signals, int64_t count, void *out,
                                  void *stream);
/* 2DTM statistics. The plan holds per output position the maximum over every signal
 * accumulated, the index of the signal that gave it (the lowest index on ties; at ranks 2
 * and 3, in plans of batch > 1, the last kernel transforms two signals as one complex
 * transform, so identical signals agree to rounding and need not tie), and the sum of squares (in
 * fp32 within one call, over at most batch values, and in double across calls). The sum of the
 * outputs is not kept per position: the correlation is linear, so it is the output of the signals'
 * running sum (kept in double on the device, in fp32 within one call), which finalisation
 * transforms once as their mean signal times their number, with the filter they were
 * accumulated under (set_filter folds the sums of the signals so far first). The mean thus
 * has the plan's own accuracy: relative error 8e-8 after 10^7 signals (fp32); with a 16-bit
 * intermediate it differs from the mean of the outputs by up to about 1.5 units of the
 * intermediate's rounding of the largest output. The variance is taken as E[x^2] - mean^2,
 * so maps whose mean is far above their deviation lose accuracy. A NaN or infinity in a
 * signal reaches every output of its transform, and at ranks 2 and 3 (batch > 1) those of the
 * signal paired with it (signals 2k and 2k + 1 of a call): the maxima skip NaN outputs, and the
 * sums, so the mean, standard deviation and z-score, are not finite at any position until
 * the next reset.
 * zipfft_corr_stats_reset clears them (allocating them on the first call; it waits for
 * all the device's work first); zipfft_corr_accumulate correlates count signals,
 * numbered first_index, first_index + 1, ..., and folds their outputs into the
 * statistics in the last kernel without writing any output (it only enqueues on CUDA).
 * A plan whose last axis has no statistics kernel (a Rader or Bluestein length) gives
 * UNSUPPORTED_LENGTH at zipfft_corr_stats_reset and zipfft_corr_accumulate (so it never
 * allocates the statistics); its correlations run as usual. A correlation plan's runs share its
 * workspace and statistics: they must not overlap (one plan per thread or stream). A call with
 * count < batch costs the fused kernel a whole batch. */
zipfft_status zipfft_corr_stats_reset(zipfft_corr c, void *stream);
zipfft_status zipfft_corr_accumulate(zipfft_corr c, const void *signals, int64_t count,
                                     int32_t first_index, void *stream);
/* Waits for all the device's work and writes host arrays of the output size (any may be
 * NULL): the maximum, its signal index (-1 where nothing was accumulated), the mean and
 * standard deviation over every signal accumulated since the reset, and the z-score
 * (max - mean) / stddev (0 where stddev is 0, NaN where the sums are). Runs the plan once
 * (one signal, the mean of those accumulated since the last filter change) for the sums,
 * then computes the maps in double on the host. Leaves the statistics as they were: more
 * signals may be accumulated and finalised again. */
zipfft_status zipfft_corr_finalize(zipfft_corr c, float *max, int32_t *index, float *mean,
                                   float *stddev, float *zscore);
/* The backend the plan runs on. */
zipfft_status zipfft_corr_backend(zipfft_corr c, zipfft_backend *b);
/* Frees a correlation plan. NULL is accepted and ignored. */
zipfft_status zipfft_corr_destroy(zipfft_corr c);

#ifdef __cplusplus
}
#endif
#endif /* ZIPFFT_H */
