/* bench.c - `zipfft bench`: zipfft vs cuFFT 1D C2C throughput, copy bandwidth, plan time. */
#include "bench.h"

#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/cache.h"
#include "backend/cuda_api.h"
#include "tool_common.h"
#include "tool_device.h"
#include "tool_table.h"
#include "cufft_loader.h"
#include "zipfft.h"

static const char tool_name[] = "bench"; /* prefix of every message */
enum { MAX_TIMED_RUNS = 25 };
enum { MAX_SIZES = 16 }; /* lengths one --sizes list may name */
static const int64_t largest_named_length = (int64_t)1 << 27;

/* ------------------------------------------------------------------------------------------
 * Problems, options and the session state.
 * ------------------------------------------------------------------------------------------ */

typedef struct precision_info {
  zipfft_precision precision;
  const char *name;     /* "f32": the --only value and the table label */
  int log2_elements;    /* complex elements per problem: 2^log2_elements (batch rounded down) */
  size_t complex_bytes; /* bytes of one complex element */
  double tolerance;     /* largest acceptable relative L2 difference to cuFFT */
  int cufft_type;       /* CUFFT_C2C or CUFFT_Z2Z */
} precision_info;

static const precision_info precisions[] = {
    {ZIPFFT_F32, "f32", 27, 8, 1e-4, CUFFT_TYPE_C2C},
    {ZIPFFT_F64, "f64", 26, 16, 1e-10, CUFFT_TYPE_Z2Z},
};

typedef struct size_info {
  int rank;
  int64_t lengths[3]; /* row-major */
  int64_t batch;      /* 0: as many as the precision's element budget allows */
  int quick;          /* part of --quick */
  int f32_only;
  zipfft_type type; /* C2C unless set */
} size_info;

static const size_info sizes[] = {
    {1, {64}, 0, 0, 0, ZIPFFT_C2C},
    {1, {128}, 0, 0, 0, ZIPFFT_C2C},
    {1, {256}, 0, 1, 0, ZIPFFT_C2C},
    {1, {512}, 0, 0, 0, ZIPFFT_C2C},
    {1, {1024}, 0, 0, 0, ZIPFFT_C2C},
    {1, {2048}, 0, 0, 0, ZIPFFT_C2C},
    {1, {4096}, 0, 1, 0, ZIPFFT_C2C},
    {1, {8192}, 0, 0, 0, ZIPFFT_C2C},
    {1, {1000}, 0, 1, 0, ZIPFFT_C2C},
    {1, {2187}, 0, 0, 0, ZIPFFT_C2C},
    {1, {2401}, 0, 0, 0, ZIPFFT_C2C},
    {1, {3125}, 0, 0, 0, ZIPFFT_C2C},
    /* mixed radices whose passes take different thread counts (20x18x16, 18x16x16, ...) */
    {1, {768}, 0, 0, 0, ZIPFFT_C2C},
    {1, {1920}, 0, 0, 0, ZIPFFT_C2C},
    {1, {2880}, 0, 0, 0, ZIPFFT_C2C},
    {1, {4608}, 0, 0, 0, ZIPFFT_C2C},
    {1, {5120}, 0, 0, 0, ZIPFFT_C2C},
    {1, {5760}, 0, 0, 0, ZIPFFT_C2C},
    {1, {6144}, 0, 0, 0, ZIPFFT_C2C},
    {1, {7680}, 0, 0, 0, ZIPFFT_C2C},
    {1, {16384}, 0, 1, 0, ZIPFFT_C2C},
    {1, {32768}, 0, 0, 0, ZIPFFT_C2C},
    {1, {65536}, 0, 1, 0, ZIPFFT_C2C},
    {1, {1 << 18}, 0, 0, 0, ZIPFFT_C2C}, /* 512 x 512: a pair kernel (plan/pair.h) */
    {1, {1 << 20}, 0, 1, 0, ZIPFFT_C2C},
    {1, {1 << 22}, 0, 0, 0, ZIPFFT_C2C}, /* fp32 1024 x 4096; fp64 2048 x 2048 (a square split) */
    {1, {1 << 24}, 0, 1, 0, ZIPFFT_C2C},
    {1, {1 << 27}, 0, 0, 1, ZIPFFT_C2C},
    /* prime factors 17 to 31: passes of their own radix (17x16x16, 31x16x4, 29x23, 32x32x17) */
    {1, {4352}, 0, 0, 0, ZIPFFT_C2C},
    {1, {1984}, 0, 0, 0, ZIPFFT_C2C},
    {1, {667}, 0, 0, 0, ZIPFFT_C2C},
    {1, {17408}, 0, 0, 1, ZIPFFT_C2C},
    {1, {4099}, 0, 1, 0, ZIPFFT_C2C},
    {1, {10007}, 0, 1, 1, ZIPFFT_C2C},
    /* primes p with p - 1 31-smooth: Rader's method (257: 256 = 8x8x4, 7681: 7680, 12289:
     * 12288) */
    {1, {257}, 0, 0, 0, ZIPFFT_C2C},
    {1, {7681}, 0, 0, 0, ZIPFFT_C2C},
    {1, {12289}, 0, 0, 1, ZIPFFT_C2C},
    /* R2C and C2R of 2p: Rader's method for the half length (514 = 2 x 257, 15362 =
     * 2 x 7681) */
    {1, {514}, 0, 0, 0, ZIPFFT_R2C},
    {1, {15362}, 0, 0, 0, ZIPFFT_R2C},
    {1, {514}, 0, 0, 0, ZIPFFT_C2R},
    {1, {15362}, 0, 0, 0, ZIPFFT_C2R},
    {2, {4096, 4096}, 4, 0, 1, ZIPFFT_C2C},
    {3, {256, 256, 256}, 8, 0, 1, ZIPFFT_C2C},
    {2, {4096, 4096}, 4, 0, 1, ZIPFFT_R2C},
    {2, {4096, 4096}, 4, 0, 1, ZIPFFT_C2R},
    /* a K3 camera's image size turned upright: 5760-point columns (360 threads, 2 to a
     * block) */
    {2, {5760, 4092}, 4, 0, 1, ZIPFFT_C2C},
    /* batched 1D real transforms: one kernel (4096, 16384, 32768: half lengths 2048, 8192,
     * 16384, the last two mirrored), a cluster or four-step half length (65536, 2^20) */
    {1, {4096}, 0, 0, 0, ZIPFFT_R2C},
    {1, {4096}, 0, 0, 0, ZIPFFT_C2R},
    {1, {16384}, 0, 0, 0, ZIPFFT_R2C},
    {1, {16384}, 0, 0, 0, ZIPFFT_C2R},
    {1, {32768}, 0, 0, 0, ZIPFFT_R2C},
    {1, {32768}, 0, 0, 0, ZIPFFT_C2R},
    {1, {65536}, 0, 0, 0, ZIPFFT_R2C},
    {1, {65536}, 0, 0, 0, ZIPFFT_C2R},
    {1, {1 << 20}, 0, 0, 0, ZIPFFT_R2C},
    {1, {1 << 20}, 0, 0, 0, ZIPFFT_C2R},
    /* axes too long for one kernel, through the workspace (no targets: for the record) */
    {1, {1000003}, 0, 0, 1, ZIPFFT_C2C},
    {1, {1 << 24}, 0, 0, 1, ZIPFFT_R2C},
    {1, {1 << 24}, 0, 0, 1, ZIPFFT_C2R},
    /* fp32 R2C 2^25: on devices of slow memory its half length as 4096 x 4096 and a split
     * pass (plan/long_axis.c, loose_r2c_split) */
    {1, {1 << 25}, 0, 0, 1, ZIPFFT_R2C},
    {2, {16, 1 << 20}, 0, 0, 1, ZIPFFT_C2C},
};

typedef struct run_counts {
  int warmup, timed;
} run_counts;

static const run_counts full_runs = {3, MAX_TIMED_RUNS};
static const run_counts quick_runs = {2, 7};

/* The plan whose creation time is measured (the fp32 N=1024 problem of the table), and the
 * small plan created first so that loading NVRTC and the backend is not counted as cold. */
static const int64_t plan_timing_n = 1024;
static const int64_t plan_timing_batch = ((int64_t)1 << 27) / 1024;
static const int64_t plan_priming_n = 64;

enum { PLAN_COLD, PLAN_DISK, PLAN_MEMORY, PLAN_STAGES };
static const char *const plan_stage_names[PLAN_STAGES] = {"cold (empty cache)", "warm (disk cache)",
                                                          "warm (memory cache)"};
static const int plan_stage_clears_memory[PLAN_STAGES] = {1, 1, 0};

typedef struct bench_problem {
  const precision_info *prec;
  zipfft_type type;
  int rank;
  int64_t lengths[3];
  int64_t n, batch;           /* n: elements of one transform (product of the lengths) */
  double zipfft_ms, cufft_ms; /* median per execution; 0 when not measured */
  double relative_l2;         /* zipfft vs cuFFT, valid when compared */
  int compared;               /* both outputs were read back */
  int failed;                 /* a zipfft, cuFFT or driver call failed */
} bench_problem;

typedef struct bench_options {
  zipfft_tool_bench_options common; /* first: --quick runs fewer sizes (f32 only unless --only
                                       says otherwise) and fewer runs */
  const char *only;                 /* NULL, "f32" or "f64" */
  int64_t sizes[MAX_SIZES];         /* the --sizes list: total lengths to run */
  int size_count;                   /* how many it names (0: no list, every size runs) */
  int real; /* --real: each --sizes length also runs as 1D R2C and C2R where the table has none */
  int64_t batch; /* --batch: the batch of every problem (0: each problem's own) */
} bench_options;

typedef struct bench_context {
  zipfft_tool_device dev;
  cufft_api cufft;
  int have_cufft, cufft_version;
  char cufft_why[256];
  CUdeviceptr d_in, d_out;
  size_t buffer_bytes;
  void *host_in, *host_zipfft, *host_cufft;
  int host_in_precision; /* precision host_in holds, -1 when not filled */
  int host_in_hermitian; /* host_in holds the current C2R problem's input */
  CUevent events[2 * MAX_TIMED_RUNS];
  int event_count;
  run_counts runs;
  double copy_gbps;
  double plan_ms[PLAN_STAGES];
  int plan_ok;
} bench_context;

/* ------------------------------------------------------------------------------------------
 * Small helpers.
 * ------------------------------------------------------------------------------------------ */

/* Returns 1 when result is CUDA_SUCCESS; otherwise prints what failed, marks the device as
 * failed and returns 0. */
static int cu_ok(bench_context *ctx, CUresult result, const char *what) {
  return zipfft_tool_cu_ok(&ctx->dev, result, what);
}

/* Throughput in GB/s (1e9 bytes) of moving bytes in ms milliseconds; 0 when ms is not > 0. */
static double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

/* Bytes of one problem's input (equal to its output). */
/* Bytes of p's input (out = 0) or output (out = 1) array: n reals on the real side of
 * R2C/C2R, n/last*(last/2+1) complex values on their complex side, n complex for C2C. */
static size_t array_bytes(const bench_problem *p, int out) {
  int64_t last = p->lengths[p->rank - 1], half = p->n / last * (last / 2 + 1);
  int real = out ? p->type == ZIPFFT_C2R : p->type == ZIPFFT_R2C;
  int complex_half = out ? p->type == ZIPFFT_R2C : p->type == ZIPFFT_C2R;
  size_t complex_bytes = p->prec->complex_bytes;
  if (real) return (size_t)(p->n * p->batch) * complex_bytes / 2;
  return (size_t)((complex_half ? half : p->n) * p->batch) * complex_bytes;
}

/* Bytes of the larger of p's two arrays (what the buffers must hold). */
static size_t problem_bytes(const bench_problem *p) {
  size_t in = array_bytes(p, 0), out = array_bytes(p, 1);
  return in > out ? in : out;
}

/* Fills bytes of buf with deterministic pseudo-random reals of prec's type in [-0.5, 0.5). */
static void fill_random(void *buf, size_t bytes, const precision_info *prec) {
  uint64_t state = 0x5eed2718281828ULL;
  if (prec->precision == ZIPFFT_F64) {
    double *x = buf;
    for (size_t i = 0; i < bytes / sizeof *x; i++)
      x[i] = (double)(zipfft_tool_next_random(&state) >> 11) * 0x1p-53 - 0.5;
  } else {
    float *x = buf;
    for (size_t i = 0; i < bytes / sizeof *x; i++)
      x[i] = (float)((double)(zipfft_tool_next_random(&state) >> 40) * 0x1p-24 - 0.5);
  }
}

/* Relative L2 difference ||a - b|| / ||b|| over reals values of prec's type. */
static double relative_l2_difference(const void *a, const void *b, size_t reals,
                                     const precision_info *prec) {
  double diff2 = 0, ref2 = 0;
  if (prec->precision == ZIPFFT_F64) {
    const double *x = a, *y = b;
    for (size_t i = 0; i < reals; i++) {
      diff2 += (x[i] - y[i]) * (x[i] - y[i]);
      ref2 += y[i] * y[i];
    }
  } else {
    const float *x = a, *y = b;
    for (size_t i = 0; i < reals; i++) {
      double d = (double)x[i] - (double)y[i];
      diff2 += d * d;
      ref2 += (double)y[i] * (double)y[i];
    }
  }
  return ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}

/* ------------------------------------------------------------------------------------------
 * Options and the problem list.
 * ------------------------------------------------------------------------------------------ */

/* Prints the subcommand's usage. */
static void print_usage(void) {
  printf(
      "usage: zipfft bench [--device D] [--quick] [--only f32|f64] [--sizes N,N.. [--real]]\n"
      "                    [--batch B] [--md FILE]\n"
      "  batched out-of-place FFTs (1D C2C forward, R2C and C2R; 2D and 3D), zipfft against\n"
      "  cuFFT, about 2^27 (f32) or 2^26 (f64) elements per problem; also copy bandwidth and\n"
      "  plan time. --sizes takes the total lengths (product of the lengths) to run, up to\n"
      "  16, each at most 2^27; a length no listed problem has runs as a batched 1D C2C\n"
      "  (with --real each also as a batched 1D R2C and C2R where the table has none).\n"
      "  --batch sets every problem's batch (1 to 2^31), in place of the element budget.\n");
}

/* --only f32|f64: one precision. Returns 1 when value names one. */
static int apply_only(void *options, const char *value) {
  bench_options *opt = options;
  if (strcmp(value, "f32") != 0 && strcmp(value, "f64") != 0) return 0;
  opt->only = value;
  return 1;
}

/* --sizes N,N,...: up to MAX_SIZES total lengths, each 1 to largest_named_length. Returns 1
 * when the list is well formed. */
static int apply_sizes(void *options, const char *value) {
  bench_options *opt = options;
  opt->size_count = 0;
  for (const char *p = value;; p++) {
    char *end = NULL;
    if (*p < '0' || *p > '9' || opt->size_count == MAX_SIZES) return 0;
    long long n = strtoll(p, &end, 10);
    if (n < 1 || n > largest_named_length) return 0;
    opt->sizes[opt->size_count++] = n;
    p = end;
    if (*p == '\0') return 1;
    if (*p != ',') return 0;
  }
}

/* --batch B: every problem's batch, 1 to 2^31. Returns 1 when value is such a number. */
static int apply_batch(void *options, const char *value) {
  char *end = NULL;
  if (*value < '0' || *value > '9') return 0;
  long long batch = strtoll(value, &end, 10);
  if (*end != '\0' || batch < 1 || batch > ((long long)1 << 31)) return 0;
  ((bench_options *)options)->batch = batch;
  return 1;
}

/* --real: each --sizes length also runs as a 1D R2C and C2R where the table has none. */
static int apply_real(void *options, const char *value) {
  (void)value;
  ((bench_options *)options)->real = 1;
  return 1;
}

/* 1 when n is among the first `count` lengths of the --sizes list. */
static int size_named(const bench_options *opt, int count, int64_t n) {
  for (int i = 0; i < count; i++)
    if (opt->sizes[i] == n) return 1;
  return 0;
}

/* 1 when the --sizes list is absent or names n. */
static int size_selected(const bench_options *opt, int64_t n) {
  return opt->size_count == 0 || size_named(opt, opt->size_count, n);
}

static const zipfft_tool_option option_specs[] = {
    {"--device", 1, zipfft_tool_apply_device},
    {"--quick", 0, zipfft_tool_apply_quick},
    {"--md", 1, zipfft_tool_apply_md},
    {"--only", 1, apply_only},
    {"--sizes", 1, apply_sizes},
    {"--real", 0, apply_real},
    {"--batch", 1, apply_batch},
};

/* 1 when problems of prec are to be run: the --only choice, else every precision (only f32
 * under --quick). */
static int precision_selected(const bench_options *opt, const precision_info *prec) {
  if (opt->only) return strcmp(opt->only, prec->name) == 0;
  return !opt->common.quick || prec->precision == ZIPFFT_F32;
}

/* Sets problem to a transform of prec: type, rank and lengths as given, batch as given or,
 * when 0, as many as the precision's element budget allows (at least 1). */
static void set_problem(bench_problem *problem, const precision_info *prec, zipfft_type type,
                        int rank, const int64_t *lengths, int64_t batch) {
  memset(problem, 0, sizeof *problem);
  problem->prec = prec;
  problem->type = type;
  problem->rank = rank;
  problem->n = 1;
  for (int k = 0; k < rank; k++) {
    problem->lengths[k] = lengths[k];
    problem->n *= lengths[k];
  }
  problem->batch = batch ? batch : ((int64_t)1 << prec->log2_elements) / problem->n;
  if (problem->batch < 1) problem->batch = 1;
}

/* The total length (product of the lengths) of a table entry. */
static int64_t size_total(const size_info *size) {
  int64_t total = 1;
  for (int k = 0; k < size->rank; k++) total *= size->lengths[k];
  return total;
}

/* Appends the listed problems of prec that the options select; returns the new count. */
static int add_listed_problems(const bench_options *opt, const precision_info *prec,
                               bench_problem *problems, int count) {
  for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
    if (opt->common.quick && !sizes[s].quick) continue;
    if (sizes[s].f32_only && prec->precision != ZIPFFT_F32) continue;
    if (!size_selected(opt, size_total(&sizes[s]))) continue;
    set_problem(&problems[count++], prec, sizes[s].type, sizes[s].rank, sizes[s].lengths,
                sizes[s].batch);
  }
  return count;
}

/* 1 when the table already times total length n as type (whatever its precision or tier):
 * for C2C, any problem of that total length; for R2C and C2R, a 1D one of that type. */
static int length_listed(int64_t n, zipfft_type type) {
  for (size_t s = 0; s < ARRAY_LEN(sizes); s++)
    if (size_total(&sizes[s]) == n &&
        (type == ZIPFFT_C2C || (sizes[s].type == type && sizes[s].rank == 1)))
      return 1;
  return 0;
}

/* Appends, for each --sizes length that no problem of the table has, a batched 1D C2C
 * problem of prec (so that any length can be timed), and with --real an R2C and a C2R one
 * where the table has no 1D one of that type; returns the new count. A length the table
 * has runs as the table says (its --quick and fp32-only marks included). */
static int add_named_lengths(const bench_options *opt, const precision_info *prec,
                             bench_problem *problems, int count) {
  static const zipfft_type kinds[] = {ZIPFFT_C2C, ZIPFFT_R2C, ZIPFFT_C2R};
  int kind_count = opt->real ? (int)ARRAY_LEN(kinds) : 1;
  for (int i = 0; i < opt->size_count; i++)
    for (int k = 0; k < kind_count; k++)
      if (!length_listed(opt->sizes[i], kinds[k]) && !size_named(opt, i, opt->sizes[i]))
        set_problem(&problems[count++], prec, kinds[k], 1, &opt->sizes[i], 0);
  return count;
}

/* Fills problems (room for every precision x (size + 3 x MAX_SIZES)) with the selected ones;
 * returns how many. */
static int build_problems(const bench_options *opt, bench_problem *problems) {
  int count = 0;
  for (size_t p = 0; p < ARRAY_LEN(precisions); p++) {
    if (!precision_selected(opt, &precisions[p])) continue;
    count = add_listed_problems(opt, &precisions[p], problems, count);
    count = add_named_lengths(opt, &precisions[p], problems, count);
  }
  for (int i = 0; opt->batch && i < count; i++) problems[i].batch = opt->batch;
  return count;
}

/* Bytes of the largest problem's input. */
static size_t largest_problem_bytes(const bench_problem *problems, int count) {
  size_t largest = 0;
  for (int i = 0; i < count; i++)
    if (problem_bytes(&problems[i]) > largest) largest = problem_bytes(&problems[i]);
  return largest;
}

/* ------------------------------------------------------------------------------------------
 * Device, buffers and cuFFT set-up.
 * ------------------------------------------------------------------------------------------ */

/* Loads cuFFT and reads its version; on failure notes why (the run goes on without it). */
static void bench_load_cufft(bench_context *ctx) {
  ctx->have_cufft = zipfft_tool_cufft_load(&ctx->cufft, ctx->cufft_why, sizeof ctx->cufft_why);
  if (ctx->have_cufft &&
      !zipfft_tool_cufft_ok(tool_name, ctx->cufft.get_version(&ctx->cufft_version),
                            "cufftGetVersion"))
    ctx->cufft_version = 0;
}

/* Allocates one host buffer of bytes; prints and returns NULL when memory is short. */
static void *host_alloc(size_t bytes) {
  void *buf = malloc(bytes);
  if (!buf) printf("bench: out of host memory (%zu bytes)\n", bytes);
  return buf;
}

/* Allocates the device buffer pair, the host copies and the timing events for problems of
 * up to bytes each. Returns 1 on success; bench_free releases whatever was allocated. */
static int bench_alloc(bench_context *ctx, size_t bytes) {
  const zipfft__cuda_api *cu = ctx->dev.cu;
  ctx->buffer_bytes = bytes;
  if (!cu_ok(ctx, cu->cuMemAlloc(&ctx->d_in, bytes), "cuMemAlloc (input)") ||
      !cu_ok(ctx, cu->cuMemAlloc(&ctx->d_out, bytes), "cuMemAlloc (output)"))
    return 0;
  ctx->host_in = host_alloc(bytes);
  ctx->host_zipfft = ctx->host_in ? host_alloc(bytes) : NULL;
  ctx->host_cufft = ctx->host_zipfft ? host_alloc(bytes) : NULL;
  if (!ctx->host_cufft) return 0;
  for (int i = 0; i < 2 * ctx->runs.timed; i++) {
    if (!cu_ok(ctx, cu->cuEventCreate(&ctx->events[i], 0), "cuEventCreate")) return 0;
    ctx->event_count = i + 1;
  }
  return 1;
}

/* Frees every buffer and event of bench_alloc (partial allocations included). */
static void bench_free(bench_context *ctx) {
  const zipfft__cuda_api *cu = ctx->dev.cu;
  for (int i = 0; i < ctx->event_count; i++)
    cu_ok(ctx, cu->cuEventDestroy(ctx->events[i]), "cuEventDestroy");
  ctx->event_count = 0;
  if (ctx->d_in) cu_ok(ctx, cu->cuMemFree(ctx->d_in), "cuMemFree (input)");
  if (ctx->d_out) cu_ok(ctx, cu->cuMemFree(ctx->d_out), "cuMemFree (output)");
  ctx->d_in = ctx->d_out = 0;
  free(ctx->host_in);
  free(ctx->host_zipfft);
  free(ctx->host_cufft);
  ctx->host_in = ctx->host_zipfft = ctx->host_cufft = NULL;
}

/* ------------------------------------------------------------------------------------------
 * Timing.
 * ------------------------------------------------------------------------------------------ */

/* One execution to time: enqueues work on the legacy default stream; returns 1 on success. */
typedef int (*bench_runner)(bench_context *ctx, const void *job);

/* Runs job runs.warmup times, then runs.timed times each between its own pair of events,
 * enqueued back to back; stores the median milliseconds. Returns 1 on success. */
static int bench_time(bench_context *ctx, bench_runner run, const void *job, double *median_ms) {
  const zipfft__cuda_api *cu = ctx->dev.cu;
  double samples[MAX_TIMED_RUNS];
  int timed = ctx->runs.timed;
  for (int i = 0; i < ctx->runs.warmup; i++)
    if (!run(ctx, job)) return 0;
  for (int i = 0; i < timed; i++) {
    if (!cu_ok(ctx, cu->cuEventRecord(ctx->events[2 * i], NULL), "cuEventRecord") ||
        !run(ctx, job) ||
        !cu_ok(ctx, cu->cuEventRecord(ctx->events[2 * i + 1], NULL), "cuEventRecord"))
      return 0;
  }
  if (!cu_ok(ctx, cu->cuEventSynchronize(ctx->events[2 * timed - 1]), "cuEventSynchronize"))
    return 0;
  for (int i = 0; i < timed; i++) {
    float ms = 0;
    if (!cu_ok(ctx, cu->cuEventElapsedTime(&ms, ctx->events[2 * i], ctx->events[2 * i + 1]),
               "cuEventElapsedTime"))
      return 0;
    samples[i] = ms;
  }
  *median_ms = zipfft_tool_median(samples, timed);
  return 1;
}

/* Runner: copies the whole input buffer to the output buffer (job unused). */
static int copy_runner(bench_context *ctx, const void *job) {
  (void)job;
  return cu_ok(ctx, ctx->dev.cu->cuMemcpyDtoDAsync(ctx->d_out, ctx->d_in, ctx->buffer_bytes, NULL),
               "cuMemcpyDtoDAsync");
}

/* Runner: executes the zipfft plan that job points to, from d_in to d_out. */
static int zipfft_runner(bench_context *ctx, const void *job) {
  zipfft_plan plan = *(const zipfft_plan *)job;
  return zipfft_tool_zipfft_ok(
      tool_name,
      zipfft_execute(plan, (const void *)(uintptr_t)ctx->d_in, (void *)(uintptr_t)ctx->d_out, NULL),
      "zipfft_execute");
}

typedef struct cufft_job {
  cufft_handle handle;
  cufft_exec_fn exec;           /* cufftExecC2C or cufftExecZ2Z */
  cufft_exec_real_fn exec_real; /* cufftExecR2C/C2R/D2Z/Z2D; NULL for C2C */
} cufft_job;

/* Runner: executes the cuFFT plan of job (a cufft_job), forward, from d_in to d_out. */
static int cufft_runner(bench_context *ctx, const void *job) {
  const cufft_job *plan = job;
  void *in = (void *)(uintptr_t)ctx->d_in, *out = (void *)(uintptr_t)ctx->d_out;
  if (plan->exec_real)
    return zipfft_tool_cufft_ok(tool_name, plan->exec_real(plan->handle, in, out), "cufftExec");
  return zipfft_tool_cufft_ok(tool_name, plan->exec(plan->handle, in, out, CUFFT_DIRECTION_FORWARD),
                              "cufftExec");
}

/* Measures device-to-device copy bandwidth over the whole buffer (bytes read + written) and
 * prints it. Returns 1 on success. */
static int bench_copy_bandwidth(bench_context *ctx) {
  double ms = 0;
  if (!bench_time(ctx, copy_runner, NULL, &ms)) return 0;
  ctx->copy_gbps = gbps(2.0 * (double)ctx->buffer_bytes, ms);
  printf("device-to-device copy: %zu bytes in %.3f ms = %.1f GB/s (read + write)\n\n",
         ctx->buffer_bytes, ms, ctx->copy_gbps);
  return 1;
}

/* ------------------------------------------------------------------------------------------
 * One problem.
 * ------------------------------------------------------------------------------------------ */

/* Creates a zipfft plan for a batched forward out-of-place contiguous C2C transform of the
 * given rank and lengths on the bench device. Returns 1 on success (the failure is printed
 * otherwise). */
static int zipfft_plan_for(const bench_context *ctx, zipfft_type type, zipfft_precision prec,
                           int rank, const int64_t *lengths, int64_t batch, zipfft_plan *plan) {
  zipfft_desc desc = NULL;
  int ok = zipfft_tool_zipfft_ok(tool_name, zipfft_desc_create(&desc, type, prec, rank, lengths),
                                 "zipfft_desc_create") &&
           zipfft_tool_zipfft_ok(tool_name, zipfft_desc_set_batch(desc, batch),
                                 "zipfft_desc_set_batch") &&
           zipfft_tool_zipfft_ok(
               tool_name, zipfft_desc_set_backend(desc, ZIPFFT_BACKEND_CUDA, ctx->dev.ordinal),
               "zipfft_desc_set_backend") &&
           zipfft_tool_zipfft_ok(tool_name, zipfft_plan_create(plan, desc), "zipfft_plan_create");
  zipfft_desc_destroy(desc);
  return ok;
}

/* Fills host_in for prec (once per precision) and uploads its first bytes to d_in. */
static int upload_input(bench_context *ctx, const precision_info *prec, size_t bytes) {
  if (ctx->host_in_precision != (int)prec->precision && !ctx->host_in_hermitian) {
    fill_random(ctx->host_in, ctx->buffer_bytes, prec);
    ctx->host_in_precision = (int)prec->precision;
  }
  return cu_ok(ctx, ctx->dev.cu->cuMemcpyHtoD(ctx->d_in, ctx->host_in, bytes), "cuMemcpyHtoD");
}

/* Sets d_out to all-ones bytes (NaN in both precisions), so that unwritten output shows. */
static int poison_output(bench_context *ctx, size_t bytes) {
  return cu_ok(ctx, ctx->dev.cu->cuMemsetD8(ctx->d_out, 0xFF, bytes), "cuMemsetD8");
}

/* After timing: one more execution on a fresh copy of the input (C2R of rank > 1 uses its
 * input as scratch), whose output is copied to host for the comparison. */
static int final_output(bench_context *ctx, const bench_problem *p,
                        int (*runner)(bench_context *, const void *), const void *job, void *host) {
  return upload_input(ctx, p->prec, array_bytes(p, 0)) && runner(ctx, job) &&
         cu_ok(ctx, ctx->dev.cu->cuCtxSynchronize(), "cuCtxSynchronize") &&
         cu_ok(ctx, ctx->dev.cu->cuMemcpyDtoH(host, ctx->d_out, array_bytes(p, 1)), "cuMemcpyDtoH");
}

/* Plans and times zipfft on p, then keeps its output in host_zipfft. Returns 1 on success. */
static int bench_zipfft(bench_context *ctx, bench_problem *p) {
  zipfft_plan plan = NULL;
  int ok =
      zipfft_plan_for(ctx, p->type, p->prec->precision, p->rank, p->lengths, p->batch, &plan) &&
      bench_time(ctx, zipfft_runner, &plan, &p->zipfft_ms) &&
      poison_output(ctx, array_bytes(p, 1)) &&
      final_output(ctx, p, zipfft_runner, &plan, ctx->host_zipfft);
  if (!ok) p->zipfft_ms = 0;
  zipfft_plan_destroy(plan);
  return ok;
}

/* The cuFFT type of a problem (R2C/C2R in single precision, D2Z/Z2D in double). */
static int cufft_type_of(const bench_problem *p) {
  int f64 = p->prec->precision == ZIPFFT_F64;
  if (p->type == ZIPFFT_R2C) return f64 ? CUFFT_TYPE_D2Z : CUFFT_TYPE_R2C;
  if (p->type == ZIPFFT_C2R) return f64 ? CUFFT_TYPE_Z2D : CUFFT_TYPE_C2R;
  return p->prec->cufft_type;
}

/* The cuFFT entry point of a real problem (NULL for C2C). */
static cufft_exec_real_fn cufft_exec_real_of(const cufft_api *api, const bench_problem *p) {
  int f64 = p->prec->precision == ZIPFFT_F64;
  if (p->type == ZIPFFT_R2C) return f64 ? api->exec_d2z : api->exec_r2c;
  if (p->type == ZIPFFT_C2R) return f64 ? api->exec_z2d : api->exec_c2r;
  return NULL;
}

/* Plans and times cuFFT on p, then keeps its output in host_cufft. Returns 1 on success. */
static int bench_cufft(bench_context *ctx, bench_problem *p) {
  const cufft_api *api = &ctx->cufft;
  cufft_job job = {0, p->prec->precision == ZIPFFT_F64 ? api->exec_z2z : api->exec_c2c,
                   cufft_exec_real_of(api, p)};
  long long lengths[3] = {p->lengths[0], p->lengths[1], p->lengths[2]}, n = p->n;
  size_t work_bytes = 0;
  if (!zipfft_tool_cufft_ok(tool_name, api->create(&job.handle), "cufftCreate")) return 0;
  int ok =
      zipfft_tool_cufft_ok(tool_name,
                           api->make_plan_many64(job.handle, p->rank, lengths, NULL, 1, n, NULL, 1,
                                                 n, cufft_type_of(p), p->batch, &work_bytes),
                           "cufftMakePlanMany64") &&
      zipfft_tool_cufft_ok(tool_name, api->set_stream(job.handle, NULL), "cufftSetStream") &&
      upload_input(ctx, p->prec, array_bytes(p, 0)) &&
      bench_time(ctx, cufft_runner, &job, &p->cufft_ms) && poison_output(ctx, array_bytes(p, 1)) &&
      final_output(ctx, p, cufft_runner, &job, ctx->host_cufft);
  if (!ok) p->cufft_ms = 0;
  zipfft_tool_cufft_ok(tool_name, api->destroy(job.handle), "cufftDestroy");
  return ok;
}

/* Makes host_in a valid C2R input: the half spectrum of random real data (computed with a
 * zipfft R2C plan), so that both libraries see a Hermitian input and must agree. host_in is
 * refilled with random data by the next problem. Returns 1 on success. */
static int hermitian_input(bench_context *ctx, const bench_problem *p) {
  bench_problem forward = *p;
  zipfft_plan plan = NULL;
  forward.type = ZIPFFT_R2C;
  int ok =
      upload_input(ctx, p->prec, array_bytes(&forward, 0)) &&
      zipfft_plan_for(ctx, ZIPFFT_R2C, p->prec->precision, p->rank, p->lengths, p->batch, &plan) &&
      zipfft_runner(ctx, &plan) &&
      cu_ok(ctx, ctx->dev.cu->cuMemcpyDtoH(ctx->host_in, ctx->d_out, array_bytes(p, 0)),
            "cuMemcpyDtoH (C2R input)");
  zipfft_plan_destroy(plan);
  ctx->host_in_precision = -1; /* custom content: refill for the next problem */
  ctx->host_in_hermitian = ok;
  return ok;
}

/* Measures p with zipfft and (when loaded) cuFFT on the same buffers and compares outputs. */
static void bench_run_problem(bench_context *ctx, bench_problem *p) {
  int zipfft_done, cufft_done = 0;
  if ((p->type == ZIPFFT_C2R && !hermitian_input(ctx, p)) ||
      !upload_input(ctx, p->prec, array_bytes(p, 0))) {
    p->failed = 1;
    return;
  }
  zipfft_done = bench_zipfft(ctx, p);
  if (ctx->have_cufft && !ctx->dev.failed) cufft_done = bench_cufft(ctx, p);
  p->failed = !zipfft_done || (ctx->have_cufft && !cufft_done);
  p->compared = zipfft_done && cufft_done;
  ctx->host_in_hermitian = 0;
  if (p->compared)
    p->relative_l2 =
        relative_l2_difference(ctx->host_zipfft, ctx->host_cufft,
                               array_bytes(p, 1) / (p->prec->complex_bytes / 2), p->prec);
}

/* ------------------------------------------------------------------------------------------
 * Plan-creation time.
 * ------------------------------------------------------------------------------------------ */

/* Removes path and, for a directory, everything below it (best effort). */
static void remove_tree(const char *path) {
  struct stat st;
  DIR *dir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
  if (dir) {
    struct dirent *entry;
    char child[1024];
    while ((entry = readdir(dir)) != NULL) {
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
      snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
      remove_tree(child);
    }
    closedir(dir);
    rmdir(path);
  } else {
    unlink(path);
  }
}

/* Creates (and destroys) the plan-timing plan, first forgetting the in-memory cache when
 * clear_memory is set; stores the creation time in *ms. Returns 1 on success. */
static int time_plan_creation(const bench_context *ctx, int clear_memory, double *ms) {
  zipfft_plan plan = NULL;
  double start;
  int ok;
  if (clear_memory) zipfft__cache_clear_memory();
  start = 1e3 * zipfft_tool_seconds();
  ok = zipfft_plan_for(ctx, ZIPFFT_C2C, ZIPFFT_F32, 1, &plan_timing_n, plan_timing_batch, &plan);
  *ms = 1e3 * zipfft_tool_seconds() - start;
  zipfft_plan_destroy(plan);
  return ok;
}

/* Creates and destroys a small unrelated plan, so that the cold time counts compiling only,
 * not loading NVRTC or initialising the backend. Returns 1 on success. */
static int prime_backend(const bench_context *ctx) {
  zipfft_plan plan = NULL;
  int ok = zipfft_plan_for(ctx, ZIPFFT_C2C, ZIPFFT_F32, 1, &plan_priming_n, 1, &plan);
  zipfft_plan_destroy(plan);
  return ok;
}

/* Times plan creation cold, from the disk cache and from the memory cache, in a fresh cache
 * directory (ZIPFFT_CACHE_DIR is restored and the directory removed afterwards). Prints the
 * times; returns 1 on success. */
static int bench_plan_creation(bench_context *ctx) {
  const char *tmp = getenv("TMPDIR");
  const char *old = getenv("ZIPFFT_CACHE_DIR");
  char *saved = old ? strdup(old) : NULL;
  char dir[512];
  snprintf(dir, sizeof dir, "%s/zipfft-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if ((old && !saved) || !mkdtemp(dir)) {
    printf("bench: cannot create a temporary cache directory in %s\n", tmp ? tmp : "/tmp");
    free(saved);
    return 0;
  }
  setenv("ZIPFFT_CACHE_DIR", dir, 1);
  ctx->plan_ok = prime_backend(ctx);
  for (int stage = 0; stage < PLAN_STAGES && ctx->plan_ok; stage++)
    ctx->plan_ok = time_plan_creation(ctx, plan_stage_clears_memory[stage], &ctx->plan_ms[stage]);
  if (saved)
    setenv("ZIPFFT_CACHE_DIR", saved, 1);
  else
    unsetenv("ZIPFFT_CACHE_DIR");
  free(saved);
  remove_tree(dir);
  printf("plan creation, c2c f32 N=%lld batch=%lld:\n", (long long)plan_timing_n,
         (long long)plan_timing_batch);
  for (int stage = 0; stage < PLAN_STAGES && ctx->plan_ok; stage++)
    printf("  %-20s %9.2f ms\n", plan_stage_names[stage], ctx->plan_ms[stage]);
  printf("\n");
  return ctx->plan_ok;
}

/* ------------------------------------------------------------------------------------------
 * Reporting.
 * ------------------------------------------------------------------------------------------ */

enum {
  COL_PROBLEM,
  COL_N,
  COL_BATCH,
  COL_ZIPFFT_GBPS,
  COL_ZIPFFT_PCT,
  COL_CUFFT_GBPS,
  COL_CUFFT_PCT,
  COL_RATIO,
  COL_L2,
  COL_CHECK,
  COLUMN_COUNT
};

static const zipfft_tool_column columns[COLUMN_COUNT] = {
    {"problem", 7},       {"N", 5},           {"batch", 8},        {"zipfft GB/s", 11},
    {"zipfft %copy", 12}, {"cuFFT GB/s", 10}, {"cuFFT %copy", 11}, {"cuFFT/zipfft time", 17},
    {"rel L2 diff", 11},  {"check", 8},
};

typedef zipfft_tool_cell row_cells[COLUMN_COUNT];

/* 1 when p's outputs were compared and differ beyond the tolerance (NaN included). */
static int problem_mismatched(const bench_problem *p) {
  return p->compared && !(p->relative_l2 <= p->prec->tolerance);
}

/* Verdict on a problem: FAILED (a call failed), MISMATCH (beyond tolerance), ok, or "-"
 * (not compared: cuFFT missing). */
static const char *problem_verdict(const bench_problem *p) {
  if (p->failed) return "FAILED";
  if (!p->compared) return "-";
  return problem_mismatched(p) ? "MISMATCH" : "ok";
}

/* Writes the lengths of p as "N" or "N0xN1[xN2]". */
static void format_lengths(const bench_problem *p, char *buf, size_t len) {
  size_t used = 0;
  for (int k = 0; k < p->rank && used < len; k++)
    used +=
        (size_t)snprintf(buf + used, len - used, "%s%lld", k ? "x" : "", (long long)p->lengths[k]);
}

/* Formats the cells of p's table row; "-" where a value was not measured. */
static void format_row(const bench_problem *p, double copy_gbps, row_cells cells) {
  static const char *const type_names[] = {"c2c", "r2c", "c2r"};
  double bytes = (double)(array_bytes(p, 0) + array_bytes(p, 1));
  double zipfft = gbps(bytes, p->zipfft_ms), cufft = gbps(bytes, p->cufft_ms);
  snprintf(cells[COL_PROBLEM], ZIPFFT_TOOL_CELL_LEN, "%s %s", type_names[p->type], p->prec->name);
  format_lengths(p, cells[COL_N], ZIPFFT_TOOL_CELL_LEN);
  snprintf(cells[COL_BATCH], ZIPFFT_TOOL_CELL_LEN, "%lld", (long long)p->batch);
  zipfft_tool_format_number(cells[COL_ZIPFFT_GBPS], zipfft, 1, zipfft > 0);
  zipfft_tool_format_number(cells[COL_ZIPFFT_PCT], 100.0 * zipfft / copy_gbps, 1,
                            zipfft > 0 && copy_gbps > 0);
  zipfft_tool_format_number(cells[COL_CUFFT_GBPS], cufft, 1, cufft > 0);
  zipfft_tool_format_number(cells[COL_CUFFT_PCT], 100.0 * cufft / copy_gbps, 1,
                            cufft > 0 && copy_gbps > 0);
  zipfft_tool_format_number(cells[COL_RATIO], p->cufft_ms / p->zipfft_ms, 2,
                            zipfft > 0 && cufft > 0);
  if (p->compared)
    snprintf(cells[COL_L2], ZIPFFT_TOOL_CELL_LEN, "%.2e", p->relative_l2);
  else
    snprintf(cells[COL_L2], ZIPFFT_TOOL_CELL_LEN, "-");
  snprintf(cells[COL_CHECK], ZIPFFT_TOOL_CELL_LEN, "%s", problem_verdict(p));
}

/* Prints one progress line for a finished problem (raw times and the check). */
static void print_progress(const bench_problem *p) {
  char lengths[64];
  format_lengths(p, lengths, sizeof lengths);
  static const char *const type_names[] = {"c2c", "r2c", "c2r"};
  printf("%s %s N=%5s batch=%8lld  zipfft %9.4f ms  cuFFT %9.4f ms  rel L2 ", type_names[p->type],
         p->prec->name, lengths, (long long)p->batch, p->zipfft_ms, p->cufft_ms);
  if (p->compared)
    printf("%.2e", p->relative_l2);
  else
    printf("-");
  printf("  %s\n", problem_verdict(p));
  fflush(stdout);
}

/* Prints the environment: GPU, driver, cuFFT and the run counts. */
static void print_environment(const bench_context *ctx) {
  printf("zipfft bench on device %d: %s, CUDA driver %d.%d\n", ctx->dev.ordinal, ctx->dev.name,
         ctx->dev.driver_version / 1000, ctx->dev.driver_version % 1000 / 10);
  if (ctx->have_cufft)
    printf("cuFFT %d.%d.%d (%s)\n", ctx->cufft_version / 1000, ctx->cufft_version % 1000 / 100,
           ctx->cufft_version % 100, ctx->cufft.library_name);
  else
    printf("cuFFT: - (%s); running zipfft only\n", ctx->cufft_why);
  printf(
      "timing: median of %d runs after %d warm-up runs, CUDA events per execution;\n"
      "GB/s = (input + output bytes) / time\n\n",
      ctx->runs.timed, ctx->runs.warmup);
}

/* Prints the compact final table. */
static void print_final_table(const bench_context *ctx, const bench_problem *problems, int count) {
  row_cells cells;
  printf("\nsummary (copy bandwidth %.1f GB/s; cuFFT/zipfft time > 1 means zipfft is faster)\n",
         ctx->copy_gbps);
  zipfft_tool_format_header(columns, COLUMN_COUNT, cells);
  zipfft_tool_print_cells(columns, COLUMN_COUNT, cells);
  for (int i = 0; i < count; i++) {
    format_row(&problems[i], ctx->copy_gbps, cells);
    zipfft_tool_print_cells(columns, COLUMN_COUNT, cells);
  }
}

/* Writes the Markdown preamble (GPU, driver, cuFFT, date, copy bandwidth, plan times). */
static void write_markdown_preamble(FILE *f, const bench_context *ctx) {
  char date[64] = "unknown date";
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc)) strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &utc);
  fprintf(f, "# zipfft benchmark\n\n- GPU: %s (device %d)\n- CUDA driver: %d.%d\n", ctx->dev.name,
          ctx->dev.ordinal, ctx->dev.driver_version / 1000, ctx->dev.driver_version % 1000 / 10);
  if (ctx->have_cufft)
    fprintf(f, "- cuFFT: %d.%d.%d\n", ctx->cufft_version / 1000, ctx->cufft_version % 1000 / 100,
            ctx->cufft_version % 100);
  else
    fprintf(f, "- cuFFT: not available (%s)\n", ctx->cufft_why);
  fprintf(f, "- Date: %s\n- Device-to-device copy bandwidth: %.1f GB/s (read + write)\n", date,
          ctx->copy_gbps);
  fprintf(f,
          "- Timing: median of %d runs after %d warm-up runs; GB/s = (input + output "
          "bytes) / time\n",
          ctx->runs.timed, ctx->runs.warmup);
  for (int stage = 0; stage < PLAN_STAGES && ctx->plan_ok; stage++)
    fprintf(f, "- Plan creation, c2c f32 N=%lld, %s: %.2f ms\n", (long long)plan_timing_n,
            plan_stage_names[stage], ctx->plan_ms[stage]);
  fprintf(f, "\n");
}

/* Writes the results as Markdown to path. Returns 1 on success (prints the failure). */
static int write_markdown(const bench_context *ctx, const bench_problem *problems, int count,
                          const char *path) {
  row_cells cells;
  FILE *f = fopen(path, "w");
  if (!f) {
    printf("bench: cannot write %s\n", path);
    return 0;
  }
  write_markdown_preamble(f, ctx);
  zipfft_tool_write_markdown_header(f, columns, COLUMN_COUNT, COL_PROBLEM + 1);
  for (int i = 0; i < count; i++) {
    format_row(&problems[i], ctx->copy_gbps, cells);
    zipfft_tool_write_markdown_cells(f, COLUMN_COUNT, cells);
  }
  if (fclose(f) != 0) {
    printf("bench: error writing %s\n", path);
    return 0;
  }
  printf("\nwrote %s\n", path);
  return 1;
}

/* ------------------------------------------------------------------------------------------
 * The subcommand.
 * ------------------------------------------------------------------------------------------ */

/* Runs every problem, printing progress; skips the rest once a driver call failed. Returns
 * the number of problems that failed or mismatched. */
static int run_problems(bench_context *ctx, bench_problem *problems, int count) {
  int bad = 0;
  for (int i = 0; i < count; i++) {
    if (ctx->dev.failed) {
      problems[i].failed = 1;
    } else {
      bench_run_problem(ctx, &problems[i]);
      print_progress(&problems[i]);
    }
    bad += problems[i].failed || problem_mismatched(&problems[i]);
  }
  if (ctx->dev.failed) printf("bench: a driver call failed; remaining problems skipped\n");
  return bad;
}

/* Runs every measurement on the open device (plan creation first, before any compile of the
 * timed size), writes the Markdown file, frees the buffers and prints the final table last.
 * Returns ZIPFFT_TOOL_OK when everything succeeded and matched, else ZIPFFT_TOOL_FAILED. */
static int bench_session(bench_context *ctx, const bench_options *opt, bench_problem *problems,
                         int count) {
  int ok, bad = 0;
  bench_load_cufft(ctx);
  print_environment(ctx);
  ok = bench_alloc(ctx, largest_problem_bytes(problems, count)) && bench_copy_bandwidth(ctx);
  if (ok) {
    ok = bench_plan_creation(ctx);
    bad = run_problems(ctx, problems, count);
    if (opt->common.md_path && !write_markdown(ctx, problems, count, opt->common.md_path)) ok = 0;
  }
  bench_free(ctx);
  zipfft_tool_cufft_unload(&ctx->cufft);
  ctx->have_cufft = 0;
  if (!ok && !ctx->copy_gbps) return ZIPFFT_TOOL_FAILED;
  if (bad) printf("\nbench: %d problem(s) failed or mismatched\n", bad);
  print_final_table(ctx, problems, count);
  return ok && !bad && !ctx->dev.failed ? ZIPFFT_TOOL_OK : ZIPFFT_TOOL_FAILED;
}

/* The `zipfft bench` subcommand (contract in bench.h). */
int zipfft_tool_bench(int argc, char **argv) {
  bench_options opt;
  bench_context ctx;
  bench_problem problems[ARRAY_LEN(precisions) * (ARRAY_LEN(sizes) + 3 * MAX_SIZES)];
  int count, rc = zipfft_tool_parse_options(tool_name, argc, argv, option_specs,
                                            ARRAY_LEN(option_specs), &opt, sizeof opt, print_usage);
  if (rc == ZIPFFT_TOOL_HELP) return ZIPFFT_TOOL_OK;
  if (rc != ZIPFFT_TOOL_OK) return rc;
  count = build_problems(&opt, problems);
  memset(&ctx, 0, sizeof ctx);
  ctx.host_in_precision = -1;
  ctx.runs = opt.common.quick ? quick_runs : full_runs;
  rc = zipfft_tool_device_open(&ctx.dev, tool_name, opt.common.device);
  if (rc == ZIPFFT_TOOL_OK) rc = bench_session(&ctx, &opt, problems, count);
  zipfft_tool_device_close(&ctx.dev);
  return rc;
}
