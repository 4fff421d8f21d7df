/* plan.c - plan creation (strategy, generation, compilation, tables), execution, printing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bluestein_filter.h"
#include "api/desc.h"
#include "api/error.h"
#include "api/plan_internal.h"
#include "backend/backend.h"
#include "backend/cuda.h"
#include "gen/build_pair.h"
#include "gen/build_stockham.h"
#include "gen/emit.h"
#include "plan/single.h"
#include "plan/strategy.h"
#include "plan/tuning.h"
#include "plan/twiddle.h"

/* The largest grid a launch uses; bigger batches are split into several launches. */
static const int64_t max_grid_blocks = 0x7fffffff;

typedef struct plan_kernel {
  zipfft__kernel_spec spec;
  void *handle;   /* backend kernel */
  void *twiddles; /* backend memory, NULL when the kernel has one pass */
} plan_kernel;

struct zipfft_plan_s {
  struct zipfft_desc_s desc;
  zipfft_backend backend_kind;
  zipfft__backend *backend;
  const zipfft__strategy *strategy;
  zipfft__decomposition decomposition;
  plan_kernel kernels[ZIPFFT__MAX_KERNELS];
  void *workspace; /* backend memory, NULL when the decomposition needs none */
  /* The pair kernel of a paired decomposition (NULL: none), its grid (the blocks that
   * can be resident) and lag (plan/pair.h), and its description as compiled. */
  void *pair_handle;
  zipfft__pair_spec pair;
  uint32_t pair_grid;
  size_t pair_shared;
  int64_t pair_lag;
};

/* Opens the backend the description asks for (AUTO: CUDA when usable, else CPU). */
static zipfft_status open_backend(const struct zipfft_desc_s *d, zipfft_backend *kind,
                                  zipfft__backend **b) {
  zipfft_backend want = d->backend;
  if (want == ZIPFFT_BACKEND_AUTO)
    want = zipfft__cuda_device_usable(d->device) ? ZIPFFT_BACKEND_CUDA : ZIPFFT_BACKEND_CPU;
  *kind = want;
  return want == ZIPFFT_BACKEND_CUDA ? zipfft__cuda_open(d->device, b) : zipfft__cpu_open(b);
}

/* A generator: fills *k with the kernel `what` describes (NULL) or says why it cannot. */
typedef const char *(*build_fn)(const void *what, zipfft__arena *a, zipfft__kernel_ast *k);

static const char *build_single(const void *spec, zipfft__arena *a, zipfft__kernel_ast *k) {
  return zipfft__build_stockham(spec, a, k);
}

static const char *build_pair(const void *pair, zipfft__arena *a, zipfft__kernel_ast *k) {
  return zipfft__build_pair(pair, a, k);
}

/* Generates the source of the kernel `what` (a spec for build_single, a pair spec for
 * build_pair) in the requested language (CUDA or C): malloc'ed text in *text, and (when
 * launch is not NULL) the kernel's name and launch facts in *launch. */
static zipfft_status generate_with(build_fn build, const void *what, int cuda, char **text,
                                   zipfft__kernel_source *launch) {
  zipfft__arena *a = zipfft__arena_create();
  if (!a) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "allocating the generator arena");
  zipfft__kernel_ast k;
  zipfft_status s = ZIPFFT_SUCCESS;
  const char *problem = build(what, a, &k);
  *text = problem ? NULL : cuda ? zipfft__emit_cuda(&k) : zipfft__emit_c(&k);
  if (problem)
    s = zipfft__fail(ZIPFFT_ERROR_INTERNAL, "generator: %s", problem);
  else if (!*text)
    s = zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "emitting kernel %s", k.name);
  if (s == ZIPFFT_SUCCESS && launch)
    *launch = (zipfft__kernel_source){NULL, *text, k.block_threads, k.shared_bytes,
                                      (unsigned)k.cluster_blocks};
  zipfft__arena_destroy(a);
  return s;
}

/* generate_with for one single kernel's spec. */
static zipfft_status generate_source(const zipfft__kernel_spec *spec, int cuda, char **text,
                                     zipfft__kernel_source *launch) {
  return generate_with(build_single, spec, cuda, text, launch);
}

/* The pair kernel's description for a paired decomposition. */
static zipfft__pair_spec pair_of(const zipfft__decomposition *dec) {
  int i = dec->pair_first;
  return (zipfft__pair_spec){.first = dec->kernels[i],
                             .second = dec->kernels[i + 1],
                             .first_group = dec->pair_groups[0],
                             .second_group = dec->pair_groups[1],
                             .streaming = dec->pair_streaming};
}

/* Writes text to $ZIPFFT_DUMP_DIR/name.ext when that variable is set (errors ignored). */
static void dump_source(const char *name, const char *ext, const char *text) {
  const char *dir = getenv("ZIPFFT_DUMP_DIR");
  if (!dir || !*dir) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* Dumps both languages of a kernel when ZIPFFT_DUMP_DIR is set. */
static void dump_kernel(const zipfft__kernel_spec *spec) {
  if (!getenv("ZIPFFT_DUMP_DIR")) return;
  char name[ZIPFFT__KERNEL_NAME_MAX];
  zipfft__c2c_kernel_name(spec, name, sizeof name);
  for (int cuda = 0; cuda < 2; cuda++) {
    char *text = NULL;
    if (generate_source(spec, cuda, &text, NULL) == ZIPFFT_SUCCESS)
      dump_source(name, cuda ? "cu" : "c", text);
    free(text);
  }
}

/* The limits of the backend's device that shape decompositions. ZIPFFT_CLUSTER (tuning)
 * caps the blocks of a thread-block cluster; 0 or 1 plans without clusters. */
static zipfft__target target_of(zipfft__backend *b) {
  zipfft__target t = {b->ops->max_shared_bytes(b), b->ops->max_cluster_blocks(b),
                      b->ops->peak_bandwidth(b) / (uint64_t)b->ops->multiprocessors(b),
                      b->ops->bulk_copies(b)};
  const char *env = getenv("ZIPFFT_CLUSTER");
  if (env && *env && atoi(env) < t.max_cluster_blocks) t.max_cluster_blocks = atoi(env);
  return t;
}

/* Generates and compiles the kernel of a spec on the plan's backend into *handle. */
static zipfft_status compile_kernel(zipfft_plan p, const zipfft__kernel_spec *spec, void **handle) {
  char name[ZIPFFT__KERNEL_NAME_MAX], *text = NULL;
  zipfft__kernel_source src;
  zipfft__c2c_kernel_name(spec, name, sizeof name);
  zipfft_status s = generate_source(spec, p->backend_kind == ZIPFFT_BACKEND_CUDA, &text, &src);
  if (s == ZIPFFT_SUCCESS) {
    dump_kernel(spec);
    src.name = name;
    s = p->backend->ops->compile(p->backend, &src, handle);
  }
  free(text);
  return s;
}

/* Makes the compiled kernel `handle` of `spec` the plan kernel's, releasing the one it had. */
static void replace_kernel(zipfft_plan p, plan_kernel *pk, void *handle,
                           const zipfft__kernel_spec *spec) {
  p->backend->ops->release_kernel(p->backend, pk->handle);
  pk->handle = handle;
  pk->spec = *spec;
}

/* Local memory per thread (spills) that a kernel asked for two blocks per multiprocessor
 * may add to its free compile's and be kept (see ask_two_blocks). */
enum { two_block_spill_allowance = 24 };

/* Local memory per thread that a rotated kernel compiled under the bound its search's order
 * was granted may add to that order's and keep the bound (see ask_radix_rotation). */
enum { rotation_spill_allowance = 64 };

/* Compiles the plan kernel again with min_blocks and keeps that compile where it reaches
 * at least least_blocks resident blocks and its local memory (spills) grows by at most
 * spill_allowance bytes per thread; otherwise keeps the one it had. */
static zipfft_status compile_bounded(zipfft_plan p, plan_kernel *pk, int min_blocks,
                                     int64_t least_blocks, int64_t spill_allowance) {
  const zipfft__backend_ops *ops = p->backend->ops;
  zipfft__kernel_spec bounded = pk->spec;
  bounded.min_blocks = min_blocks;
  void *handle = NULL;
  zipfft_status s = compile_kernel(p, &bounded, &handle);
  if (s != ZIPFFT_SUCCESS) return s;
  int64_t resident = ops->resident_blocks(p->backend, handle, zipfft__c2c_block_threads(&bounded),
                                          zipfft__c2c_shared_bytes(&bounded));
  if (resident < least_blocks || ops->local_bytes(p->backend, handle) >
                                     ops->local_bytes(p->backend, pk->handle) + spill_allowance) {
    ops->release_kernel(p->backend, handle);
    return ZIPFFT_SUCCESS;
  }
  replace_kernel(p, pk, handle, &bounded);
  return ZIPFFT_SUCCESS;
}

/* Compiles a plain mixed-radix C2C row kernel again with its last, smallest radix first
 * (zipfft__rotated_radices, where the target wants it) and keeps that, the blocks it asked
 * for and its prefetch distance decided on the search's order, as measured.
 * Measured on an H200 (session 42, % of copy bandwidth, two rounds, search order ->
 * rotated): fp64 5120 (20x16x16) 84.4 -> 89.1 (1.35x -> 1.43x cuFFT), 5760 (20x18x16) 74.5
 * -> 81.2 (1.17x -> 1.27x), 6144 (24x16x16) 84.5 -> 87.7, 2187 (9x9x9x3) 93.5 -> 95.6 (0.96x
 * -> 0.98x; 64 registers and 4 blocks per multiprocessor either way, NVRTC), fp32 7680
 * (24x20x16, whose 24 bytes of spills go) 93.4 -> 98.7 (1.04x -> 1.09x), fp32 1920, 2880,
 * 5760 and 6144 +0.7 to +0.9 points, losses at most 0.7 (fp64 2880 99.4 -> 98.7, fp32 3125
 * 93.6 -> 93.3). Rotated before compiling instead, so that those choices followed the
 * rotated kernel, fp64 4608 lost 7 points, 4352 13.5 and 1984 7. On an H100, whose kernels
 * run these lengths at 98-100% of the copy bandwidth, the rotated kernels of fp32 7680,
 * 2560, 3072 and 4352 lost 0.2-1.2 points: devices of slow memory keep the order.
 * Where ask_two_blocks granted the search's order a bound (free_bound is the one it had
 * before) and the rotated kernel spills more than rotation_spill_allowance bytes beyond the
 * search's order under it, the rotated kernel is compiled with free_bound instead. NVCC
 * 13.0 offline: fp64 5120 spills 16 bytes as 20x16x16 at two blocks, 216 as 16x20x16 (the
 * H200 ran it at 60.3% of copy in session 69, where the free rotated kernel had run 88.7 in
 * session 43); fp64 4608 spills 8 and 56 and runs well so (93.7%; free, it lost 7 points in
 * session 42). */
static zipfft_status ask_radix_rotation(zipfft_plan p, plan_kernel *pk, int free_bound) {
  const zipfft__backend_ops *ops = p->backend->ops;
  zipfft__target target = target_of(p->backend);
  zipfft__kernel_spec rotated;
  if (!zipfft__rotated_radices(&pk->spec, &target, &rotated)) return ZIPFFT_SUCCESS;
  void *handle = NULL;
  zipfft_status s = compile_kernel(p, &rotated, &handle);
  if (s == ZIPFFT_SUCCESS && rotated.min_blocks != free_bound &&
      ops->local_bytes(p->backend, handle) >
          ops->local_bytes(p->backend, pk->handle) + rotation_spill_allowance) {
    ops->release_kernel(p->backend, handle);
    handle = NULL;
    rotated.min_blocks = free_bound;
    s = compile_kernel(p, &rotated, &handle);
  }
  if (s == ZIPFFT_SUCCESS) replace_kernel(p, pk, handle, &rotated);
  return s;
}

/* On CUDA, where a compiled kernel gets one block per multiprocessor while its shared
 * memory allows two, compiles it again asking for two (min_blocks) and keeps that where it
 * does get more blocks (registers, not threads, held it to one) and spills at most
 * two_block_spill_allowance bytes per thread more.
 * Measured on an H100 (% of copy bandwidth, free -> two blocks, NVRTC's local memory):
 * fp32 7680 (24x20x16, 103 -> 80 registers) 86.1 -> 96.3 (24 bytes), fp64 4608 93.0 ->
 * 97.9 (8), 4352 93.0 -> 95.9 (24); but fp64 5120 96.5 -> 93.5 (32), 5760 91.6 -> 60.9
 * (232), 6144 96.2 -> 46.6 (432). Asked by a rule on the radix instead, before compiling,
 * it lost where the compiler had left two blocks anyway (fp32 1000 98.2 -> 89.8, 768 100.3
 * -> 87.7). Those figures predate the block-ahead prefetch: with it, one block and 2 MB
 * ahead beat two blocks on an H100 (fp32 7680 96.5 -> 99.4, fp64 4608 97.2 -> 99.8, 4352
 * 97.7 -> 99.9; docs/perf/2026-11-26-h100-prefetch-bytes.md), so on devices of slow memory
 * (zipfft__slow_memory) kernels that prefetch at one block (zipfft__prefetch_distance_of) do not
 * ask; the others still do (fp32 1000003, Bluestein through the workspace, lost 4% without).
 * ZIPFFT_TWO_BLOCKS (tuning): 0 never asks, 1 asks for every kernel. */
static zipfft_status ask_two_blocks(zipfft_plan p, plan_kernel *pk) {
  const zipfft__backend_ops *ops = p->backend->ops;
  const char *env = getenv("ZIPFFT_TWO_BLOCKS");
  zipfft__target target = target_of(p->backend);
  int wanted = env && *env ? strcmp(env, "0") != 0
                           : !zipfft__slow_memory(&target) ||
                                 zipfft__prefetch_distance_of(&pk->spec, 1, 1).eighths == 0;
  if (p->backend_kind != ZIPFFT_BACKEND_CUDA || pk->spec.min_blocks > 0 || !wanted)
    return ZIPFFT_SUCCESS;
  unsigned threads = zipfft__c2c_block_threads(&pk->spec);
  size_t shared = zipfft__c2c_shared_bytes(&pk->spec);
  int64_t free_blocks = ops->resident_blocks(p->backend, pk->handle, threads, shared);
  if (zipfft__blocks_by_shared(shared, &target) < 2 ||
      free_blocks != ops->multiprocessors(p->backend))
    return ZIPFFT_SUCCESS;
  return compile_bounded(p, pk, 2, free_blocks + 1, two_block_spill_allowance);
}

/* Whether a kernel is compiled again telling the compiler the blocks per multiprocessor
 * its free compile gets (ask_occupancy_hint): the C2R cluster kernels, whose loads merge
 * the half spectrum; ZIPFFT_OCCUPANCY_HINT (tuning) 0 for none, 1 for every kernel.
 * Measured on an H100 over the full bench, every kernel hinted against none (% of copy
 * bandwidth): fp32 C2R 65536 (a cluster of 4, 104 -> 128 registers at 2 blocks) 54.1 ->
 * 57.2 (0.92x -> 0.97x cuFFT); no other fp32 or fp64 row moved by more than 0.9 points
 * (R2C 65536, the split cluster kernel, 65.6 -> 64.7);
 * docs/perf/2026-11-26-h100-occupancy-hint.md. */
static int wants_occupancy_hint(const zipfft__kernel_spec *s) {
  const char *env = getenv("ZIPFFT_OCCUPANCY_HINT");
  if (env && *env) return strcmp(env, "1") == 0;
  return s->cluster > 1 && s->kind == ZIPFFT__KIND_C2R_HALF;
}

/* On CUDA, where a kernel that wants_occupancy_hint compiled without a bound gets B >= 2
 * blocks per multiprocessor, compiles it again telling the compiler B (min_blocks), which
 * lets it use the registers B blocks leave, and keeps that where the blocks stay and the
 * spills do not grow. */
static zipfft_status ask_occupancy_hint(zipfft_plan p, plan_kernel *pk) {
  const zipfft__backend_ops *ops = p->backend->ops;
  if (p->backend_kind != ZIPFFT_BACKEND_CUDA || pk->spec.min_blocks > 0 ||
      !wants_occupancy_hint(&pk->spec))
    return ZIPFFT_SUCCESS;
  unsigned threads = zipfft__c2c_block_threads(&pk->spec);
  size_t shared = zipfft__c2c_shared_bytes(&pk->spec);
  int64_t free_blocks = ops->resident_blocks(p->backend, pk->handle, threads, shared);
  int64_t per_multiprocessor = free_blocks / ops->multiprocessors(p->backend);
  if (per_multiprocessor < 2 || per_multiprocessor > 8) return ZIPFFT_SUCCESS;
  return compile_bounded(p, pk, (int)per_multiprocessor, free_blocks, 0);
}

/* Input bytes a block of a device of slow memory prefetches ahead over the grid. The best
 * distances measured on an H100 were 1 to 2 MB whatever a kernel's blocks (session 29: an
 * eighth for fp32 16384 at 1 block, 16 blocks of 128 KB; a quarter for fp32 7680 at 1
 * block, 33 of 61 KB), against the eighths rule (% of copy bandwidth; with one block for
 * the kernels two blocks no longer ask for): fp32 7680 96.5 -> 99.4, fp64 4608 97.2 ->
 * 99.8, 4352 97.7 -> 99.9, fp64 5760 97.1 -> 97.9, the 33 other rows of 1 to 12 blocks within
 * 0.5 points (1 MB: fp64 5760 -1.9; docs/perf/2026-11-26-h100-prefetch-bytes.md). Kernels
 * of 4 to 12 blocks keep the eighth measured on the H200 and H100. */
enum { prefetch_bytes_slow_memory = 2 << 20 };

/* Blocks ahead a kernel that can prefetch asks for (0: none): ZIPFFT_PREFETCH_AHEAD
 * (tuning; eighths of the resident blocks, 0: off) when set, which also applies it on the
 * CPU, where the prefetch only reads the bytes it names (for the tests); else on CUDA the distance
 * zipfft__prefetch_distance_of gives for its blocks per multiprocessor: on a device of slow
 * memory, where that says so and the kernel is not fused, prefetch_bytes_slow_memory of
 * input (ZIPFFT_PREFETCH_BYTES, tuning, overrides it) at most half the resident blocks
 * ahead, else its eighths (of the resident clusters for a cluster kernel, whose distance
 * counts clusters); none on the CPU. At least 1 where any. ZIPFFT_PREFETCH_BLOCKS
 * (tuning) gives the blocks ahead for every kernel that can prefetch. *after_loads: whether
 * that distance is asked for after the first pass's loads. */
static int64_t prefetch_ahead_blocks(zipfft_plan p, const zipfft__kernel_spec *s, int64_t resident,
                                     int *after_loads) {
  const char *ahead = getenv("ZIPFFT_PREFETCH_AHEAD"), *bytes = getenv("ZIPFFT_PREFETCH_BYTES");
  const char *fixed = getenv("ZIPFFT_PREFETCH_BLOCKS"); /* tuning: blocks ahead, any kernel */
  int64_t eighths = 0, blocks = 0, units = resident / zipfft__cluster_blocks(s);
  if (fixed && *fixed) return atoll(fixed) > 0 ? atoll(fixed) : 0;
  if (ahead && *ahead) {
    eighths = atoi(ahead);
  } else if (p->backend_kind == ZIPFFT_BACKEND_CUDA) {
    int64_t per_multiprocessor = resident / p->backend->ops->multiprocessors(p->backend);
    zipfft__target target = target_of(p->backend);
    int slow = zipfft__slow_memory(&target);
    zipfft__prefetch_distance d = zipfft__prefetch_distance_of(s, per_multiprocessor, slow);
    eighths = d.eighths;
    *after_loads = d.after_loads;
    if (eighths > 0 && d.by_bytes_on_slow_memory && slow && s->fused == ZIPFFT__FUSED_NONE) {
      int64_t block_bytes = (int64_t)s->ffts_per_block * zipfft__input_row_elements(s) *
                            (int64_t)zipfft__element_bytes(s, 0);
      int64_t want = bytes && *bytes ? atoll(bytes) : prefetch_bytes_slow_memory;
      blocks = (want + block_bytes / 2) / block_bytes;
      if (blocks > resident / 2) blocks = resident / 2;
      if (blocks < 1) blocks = 1;
    }
  }
  if (eighths <= 0) return 0;
  if (blocks == 0) blocks = eighths * units / 8;
  return blocks > 0 ? blocks : 1;
}

/* Compiles a kernel that zipfft__can_prefetch_ahead allows again so that each block, as it
 * starts or after its first pass's loads, asks L2 for the input of a later block
 * (prefetch_ahead_blocks; ZIPFFT_PREFETCH_AFTER_LOADS, tuning, 0 or 1, sets where). */
static zipfft_status ask_prefetch_ahead(zipfft_plan p, plan_kernel *pk) {
  const zipfft__backend_ops *ops = p->backend->ops;
  if (!zipfft__can_prefetch_ahead(&pk->spec)) return ZIPFFT_SUCCESS;
  int64_t resident =
      ops->resident_blocks(p->backend, pk->handle, zipfft__c2c_block_threads(&pk->spec),
                           zipfft__c2c_shared_bytes(&pk->spec));
  int after_loads = 0;
  int64_t blocks = prefetch_ahead_blocks(p, &pk->spec, resident, &after_loads);
  if (blocks <= 0) return ZIPFFT_SUCCESS;
  const char *after = getenv("ZIPFFT_PREFETCH_AFTER_LOADS"); /* tuning: 0 or 1 */
  zipfft__kernel_spec ahead = pk->spec;
  ahead.prefetch_ahead = blocks;
  ahead.prefetch_after_loads =
      (after && *after ? atoi(after) != 0 : after_loads) && zipfft__first_pass_loads_global(&ahead);
  void *handle = NULL;
  zipfft_status s = compile_kernel(p, &ahead, &handle);
  if (s != ZIPFFT_SUCCESS) return s;
  replace_kernel(p, pk, handle, &ahead);
  return ZIPFFT_SUCCESS;
}

/* Generates and compiles one kernel on the plan's backend and uploads its twiddle table. A
 * pair member keeps its pass order: the pair kernel is generated from the decomposition. */
static zipfft_status prepare_kernel(zipfft_plan p, plan_kernel *pk, int pair_member) {
  zipfft_status s = compile_kernel(p, &pk->spec, &pk->handle);
  int free_bound = pk->spec.min_blocks;
  if (s == ZIPFFT_SUCCESS) s = ask_two_blocks(p, pk);
  if (s == ZIPFFT_SUCCESS) s = ask_occupancy_hint(p, pk);
  if (s == ZIPFFT_SUCCESS) s = ask_prefetch_ahead(p, pk);
  if (s == ZIPFFT_SUCCESS && !pair_member) s = ask_radix_rotation(p, pk, free_bound);
  if (s != ZIPFFT_SUCCESS || zipfft__twiddle_count(&pk->spec) == 0) return s;
  size_t bytes;
  void *table = zipfft__stockham_twiddles(&pk->spec, &bytes);
  if (!table) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "twiddle table of %zu bytes", bytes);
  if (zipfft__filter_from_plan(&pk->spec))
    s = zipfft__bluestein_filter(&pk->spec, p->backend_kind, p->desc.device, p->backend, table);
  if (s == ZIPFFT_SUCCESS) s = p->backend->ops->alloc(p->backend, bytes, &pk->twiddles);
  if (s == ZIPFFT_SUCCESS) s = p->backend->ops->upload(p->backend, pk->twiddles, table, bytes);
  free(table);
  return s;
}

/* Blocks per multiprocessor that both kernels of the pair reach on their own. */
static int64_t members_blocks_per_multiprocessor(zipfft_plan p) {
  int64_t least = INT64_MAX;
  for (int i = p->decomposition.pair_first; i <= p->decomposition.pair_first + 1; i++) {
    const zipfft__kernel_spec *s = &p->kernels[i].spec;
    int64_t blocks =
        p->backend->ops->resident_blocks(p->backend, p->kernels[i].handle,
                                         zipfft__c2c_block_threads(s), zipfft__c2c_shared_bytes(s));
    if (blocks < least) least = blocks;
  }
  return least / p->backend->ops->multiprocessors(p->backend);
}

/* Generates and compiles a pair kernel into p->pair_handle; *shared: its shared memory. */
static zipfft_status compile_pair(zipfft_plan p, const zipfft__pair_spec *pair, size_t *shared) {
  char name[2 * ZIPFFT__KERNEL_NAME_MAX], *text = NULL;
  zipfft__kernel_source src = {0};
  zipfft__pair_kernel_name(pair, name, sizeof name);
  zipfft_status s =
      generate_with(build_pair, pair, p->backend_kind == ZIPFFT_BACKEND_CUDA, &text, &src);
  if (s == ZIPFFT_SUCCESS) {
    dump_source(name, p->backend_kind == ZIPFFT_BACKEND_CUDA ? "cu" : "c", text);
    src.name = name;
    s = p->backend->ops->compile(p->backend, &src, &p->pair_handle);
  }
  free(text);
  *shared = src.shared_bytes;
  return s;
}

/* Compiles the pair kernel of a paired plan and sizes its grid: the blocks that can be
 * resident, at most one per pair. Where the compiler left the pair kernel fewer blocks
 * per multiprocessor than its members reach on their own, it is compiled again asking for
 * theirs (__launch_bounds__): left free, the compiler may keep values of both members at
 * once (H100, fp32 2^24: 128 registers and 2 blocks against 54-60 registers and 4 blocks
 * for the members; asked for 4 blocks, 64 registers and 1.40 -> 1.30 ms).
 * ZIPFFT_PAIR_MIN_BLOCKS (tuning) asks for that many instead. */
static zipfft_status prepare_pair(zipfft_plan p) {
  const zipfft__decomposition *dec = &p->decomposition;
  zipfft__pair_spec pair = pair_of(dec);
  pair.min_blocks = zipfft__tuning_int("ZIPFFT_PAIR_MIN_BLOCKS", 0);
  pair.cluster = zipfft__pair_cluster(&pair, dec->pair_cluster,
                                      p->backend->ops->max_cluster_blocks(p->backend));
  size_t shared = 0;
  unsigned threads = zipfft__pair_block_threads(&pair);
  zipfft_status s = compile_pair(p, &pair, &shared);
  if (s != ZIPFFT_SUCCESS) return s;
  int64_t grid = p->backend->ops->resident_blocks(p->backend, p->pair_handle, threads, shared);
  int64_t goal = members_blocks_per_multiprocessor(p);
  if (pair.min_blocks == 0 && grid < goal * p->backend->ops->multiprocessors(p->backend) &&
      goal <= 32) {
    p->backend->ops->release_kernel(p->backend, p->pair_handle);
    p->pair_handle = NULL;
    pair.min_blocks = (int)goal;
    s = compile_pair(p, &pair, &shared);
    if (s != ZIPFFT_SUCCESS) return s;
    grid = p->backend->ops->resident_blocks(p->backend, p->pair_handle, threads, shared);
  }
  int64_t items = dec->transforms[dec->pair_first] / pair.first.ffts_per_block;
  if (pair.cluster > 1) /* one cluster per group */
    grid = items / zipfft__pair_items_per_group(&pair) * pair.cluster;
  else if (grid > items)
    grid = items;
  if (grid < 1) grid = 1;
  p->pair_grid = (uint32_t)grid;
  p->pair_shared = shared;
  p->pair_lag = pair.cluster > 1 ? 0 : zipfft__pair_lag(&pair); /* clusters do not lag */
  p->pair = pair;
  return ZIPFFT_SUCCESS;
}

/* Releases everything a (possibly half-built) plan holds. */
static void release_plan(zipfft_plan p) {
  for (int i = 0; i < p->decomposition.kernel_count; i++) {
    if (p->kernels[i].handle) p->backend->ops->release_kernel(p->backend, p->kernels[i].handle);
    if (p->kernels[i].twiddles) p->backend->ops->free(p->backend, p->kernels[i].twiddles);
  }
  if (p->pair_handle) p->backend->ops->release_kernel(p->backend, p->pair_handle);
  if (p->workspace) p->backend->ops->free(p->backend, p->workspace);
  if (p->backend) p->backend->ops->close(p->backend);
  zipfft__desc_free_callbacks(&p->desc);
  free(p);
}

/* Chooses the strategy and decomposition (no backend resources yet). */
static zipfft_status decompose(zipfft_plan p) {
  zipfft__layout layout;
  zipfft__target target = target_of(p->backend);
  zipfft_status s = ZIPFFT_SUCCESS;
  p->strategy = zipfft__choose_strategy(&p->desc, &target, &s);
  if (!p->strategy) return s;
  s = zipfft__desc_layout(&p->desc, &layout);
  if (s != ZIPFFT_SUCCESS) return s;
  return p->strategy->make(&p->desc, &layout, &target, &p->decomposition);
}

/* The most backend memory a Bluestein filter of the plan holds while it is computed (before
 * the workspace is allocated), bytes. */
static uint64_t filter_peak_bytes(const zipfft__decomposition *dec) {
  uint64_t peak = 0;
  for (int i = 0; i < dec->kernel_count; i++)
    if (zipfft__filter_from_plan(&dec->kernels[i])) {
      uint64_t bytes = zipfft__bluestein_filter_bytes(&dec->kernels[i]);
      if (bytes > peak) peak = bytes;
    }
  return peak;
}

/* The backend's memory in bytes (0: unknown), or less where ZIPFFT_MEMORY_LIMIT (tests)
 * says so. */
static uint64_t backend_memory_bytes(zipfft_plan p) {
  uint64_t have = p->backend->ops->memory_bytes(p->backend);
  const char *env = getenv("ZIPFFT_MEMORY_LIMIT");
  char *end = NULL;
  unsigned long long limit = env ? strtoull(env, &end, 10) : 0;
  if (env && end != env && *end == '\0' && limit > 0 && (have == 0 || limit < have)) have = limit;
  return have;
}

/* Fails with TOO_LARGE, before anything is allocated, when the tables, the memory the
 * plan's owner keeps (a correlation plan's spectrum) and the larger of the workspace and a
 * Bluestein filter's computation exceed the memory of the plan's backend. */
static zipfft_status check_memory_fits(zipfft_plan p) {
  const zipfft__decomposition *dec = &p->decomposition;
  uint64_t tables = 0, have = backend_memory_bytes(p);
  for (int i = 0; i < dec->kernel_count; i++)
    tables += (uint64_t)zipfft__twiddle_count(&dec->kernels[i]) *
              zipfft__complex_bytes(dec->kernels[i].precision, ZIPFFT_STORAGE_DEFAULT);
  uint64_t filter = filter_peak_bytes(dec);
  uint64_t need = zipfft__bytes_sum(
      zipfft__bytes_sum(filter > dec->workspace_bytes ? filter : dec->workspace_bytes, tables),
      dec->kept_bytes);
  if (dec->workspace_bytes == UINT64_MAX) /* saturated: the count does not fit 64 bits */
    return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                        "the plan needs at least 2^64 bytes of workspace; the %s backend's memory "
                        "is %llu bytes",
                        p->backend->ops->name, (unsigned long long)have);
  if (have == 0 || need <= have) return ZIPFFT_SUCCESS;
  char kept[64] = "";
  if (dec->kept_bytes > 0)
    snprintf(kept, sizeof kept, ", %llu of kept spectrum", (unsigned long long)dec->kept_bytes);
  if (filter > dec->workspace_bytes)
    return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                        "the plan needs %llu bytes to compute its Bluestein filter, %llu of "
                        "tables%s; the %s backend's memory is %llu bytes",
                        (unsigned long long)filter, (unsigned long long)tables, kept,
                        p->backend->ops->name, (unsigned long long)have);
  return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                      "the plan needs %llu bytes of workspace, %llu of tables%s; the %s "
                      "backend's memory is %llu bytes",
                      (unsigned long long)dec->workspace_bytes, (unsigned long long)tables, kept,
                      p->backend->ops->name, (unsigned long long)have);
}

/* Whether kernel i declares its twiddle table read-only (kernel_spec read_only_tables). By
 * ZIPFFT_READONLY_TABLES (tuning): 1 every kernel but a pair kernel's members (the pair
 * generator declares its own tables), 0 none. By default, on devices of slow memory, the
 * one kernel of an fp32 R2C or C2R plan whose half length needs no Bluestein (H100,
 * session 75, two runs each: R2C and C2R 32768 1.29x and 1.22x -> 1.32x and 1.28x, C2R
 * 65536 0.97x -> 0.99x, Rader's 15362 4.16x and 3.41x -> 4.30x and 3.65x, 2048 to 8192
 * and 4374 unchanged); no other kernel: C2C 32768's cluster kernel lost (1.26x -> 1.17x),
 * as did real plans through the workspace (R2C 131072 1.11x -> 1.07x) and, by half,
 * Bluestein halves (R2C 8198 1.78x -> 0.93x). Not measured on devices of fast memory. */
static int read_only_tables_wanted(zipfft_plan p, int i) {
  const char *env = getenv("ZIPFFT_READONLY_TABLES");
  if (env && *env) return strcmp(env, "1") == 0;
  const zipfft__kernel_spec *s = &p->decomposition.kernels[i];
  int real_half = s->kind == ZIPFFT__KIND_R2C_HALF || s->kind == ZIPFFT__KIND_C2R_HALF;
  zipfft__target target = target_of(p->backend);
  return zipfft__slow_memory(&target) && p->decomposition.kernel_count == 1 && real_half &&
         s->precision == ZIPFFT_F32 && s->bluestein_n == 0;
}

/* Whether kernel i's in and out arrays can never overlap (kernel_spec distinct_io): they
 * differ and are not both the user's (whose input and output may be one array), by
 * ZIPFFT_DISTINCT_IO (tuning): 1 every such kernel but a pair kernel's members; by
 * default none (H100, session 74: fp32 2^24's cluster column kernels unchanged; their
 * PTX keeps its order, the remote reads being generic loads). */
static int distinct_io_wanted(const zipfft__decomposition *dec, int i) {
  const char *env = getenv("ZIPFFT_DISTINCT_IO");
  int user_in = dec->src[i] == ZIPFFT__ARRAY_INPUT || dec->src[i] == ZIPFFT__ARRAY_OUTPUT;
  int user_out = dec->dst[i] == ZIPFFT__ARRAY_INPUT || dec->dst[i] == ZIPFFT__ARRAY_OUTPUT;
  return env && strcmp(env, "1") == 0 && dec->src[i] != dec->dst[i] && !(user_in && user_out);
}

/* Compiles the kernels of a decomposed plan, uploads their tables and allocates the
 * workspace (zeroed); releases the plan on failure. */
static zipfft_status prepare_plan(zipfft_plan p) {
  zipfft_status s = check_memory_fits(p);
  for (int i = 0; s == ZIPFFT_SUCCESS && i < p->decomposition.kernel_count; i++) {
    const zipfft__decomposition *dec = &p->decomposition;
    int pair_member = dec->paired && (i == dec->pair_first || i == dec->pair_first + 1);
    p->decomposition.kernels[i].read_only_tables = read_only_tables_wanted(p, i) && !pair_member;
    p->decomposition.kernels[i].distinct_io = distinct_io_wanted(dec, i) && !pair_member;
    p->kernels[i].spec = p->decomposition.kernels[i];
    s = prepare_kernel(p, &p->kernels[i], pair_member);
    /* The description shows the pass order the compiled kernel runs (ask_radix_rotation,
     * which leaves pair members alone: the pair kernel is built from the decomposition). */
    memcpy(p->decomposition.kernels[i].radices, p->kernels[i].spec.radices,
           sizeof p->kernels[i].spec.radices);
    p->decomposition.kernels[i].shared_twiddles = p->kernels[i].spec.shared_twiddles;
  }
  if (s == ZIPFFT_SUCCESS && p->decomposition.paired) s = prepare_pair(p);
  size_t workspace = (size_t)p->decomposition.workspace_bytes;
  if (s == ZIPFFT_SUCCESS && workspace > 0)
    s = p->backend->ops->alloc(p->backend, workspace, &p->workspace);
  /* Zeroed: a correlation plan's fused kernel computes on row padding and unused signal
   * slots no kernel writes (and discards the results). */
  if (s == ZIPFFT_SUCCESS && workspace > 0)
    s = p->backend->ops->zero(p->backend, p->workspace, workspace);
  if (s != ZIPFFT_SUCCESS) release_plan(p);
  return s;
}

zipfft_status zipfft_plan_create(zipfft_plan *out, zipfft_desc d) {
  if (!out) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_plan_create: p is NULL");
  if (!d) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_plan_create: desc is NULL");
  zipfft_plan p = calloc(1, sizeof *p);
  if (!p) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "allocating a plan");
  p->desc = *d;
  zipfft_status s = zipfft__desc_own_callbacks(&p->desc);
  if (s == ZIPFFT_SUCCESS) s = zipfft__desc_check_storage(d);
  if (s == ZIPFFT_SUCCESS) s = open_backend(d, &p->backend_kind, &p->backend);
  if (s == ZIPFFT_SUCCESS) s = decompose(p);
  if (s != ZIPFFT_SUCCESS) {
    release_plan(p);
    return s;
  }
  s = prepare_plan(p);
  if (s != ZIPFFT_SUCCESS) return s;
  *out = p;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft__plan_create_with(zipfft_plan *out, const struct zipfft_desc_s *d,
                                       const zipfft__strategy *strategy, zipfft__decompose_fn make,
                                       const void *problem) {
  zipfft_plan p = calloc(1, sizeof *p);
  if (!p) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "allocating a plan");
  p->desc = *d;
  p->strategy = strategy;
  zipfft_status s = open_backend(d, &p->backend_kind, &p->backend);
  if (s == ZIPFFT_SUCCESS) {
    zipfft__target target = target_of(p->backend);
    s = make(problem, &target, &p->decomposition);
  }
  if (s != ZIPFFT_SUCCESS) {
    release_plan(p);
    return s;
  }
  s = prepare_plan(p);
  if (s == ZIPFFT_SUCCESS) *out = p;
  return s;
}

zipfft__backend *zipfft__plan_backend_ops(zipfft_plan p) { return p->backend; }

int zipfft__plan_has_statistics(zipfft_plan p) { return p->decomposition.has_statistics; }

const zipfft__kernel_spec *zipfft__plan_fused_kernel(zipfft_plan p) {
  for (int i = 0; i < p->decomposition.kernel_count; i++)
    if (zipfft__fused_with_spectrum(&p->decomposition.kernels[i]))
      return &p->decomposition.kernels[i];
  return NULL;
}

zipfft_status zipfft_plan_1d(zipfft_plan *p, zipfft_precision prec, int64_t n, int64_t batch,
                             zipfft_direction dir) {
  if (!p) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_plan_1d: p is NULL");
  zipfft_desc d = NULL;
  zipfft_status s = zipfft_desc_create(&d, ZIPFFT_C2C, prec, 1, &n);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, batch);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_direction(d, dir);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(p, d);
  zipfft__desc_release(d);
  if (s != ZIPFFT_SUCCESS) /* the inner detail names lengths[0]: say which call it was */
    s = zipfft__prefix_error(s, "zipfft_plan_1d(n = %lld, batch = %lld): ", (long long)n,
                             (long long)batch);
  return s;
}

void zipfft__plan_release(zipfft_plan p) {
  if (p) release_plan(p);
}

zipfft_status zipfft_plan_destroy(zipfft_plan p) {
  zipfft__plan_release(p);
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* Checks the pointers and stream against the plan's placement and backend. */
static zipfft_status check_execute_args(zipfft_plan p, const void *in, void *out, void *stream) {
  if (!p) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_execute: plan is NULL");
  if (!in) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_execute: in is NULL");
  int inplace = p->desc.placement == ZIPFFT_INPLACE;
  if (inplace && out && out != in)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_PLACEMENT,
                        "in-place plan executed with out (%p) != in (%p)", out, (void *)in);
  if (!inplace && !out)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER,
                        "zipfft_execute: out is NULL (out-of-place plan)");
  if (!inplace && out == in)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_PLACEMENT,
                        "out-of-place plan executed with out == in (%p)", out);
  if (stream && p->backend_kind == ZIPFFT_BACKEND_CPU)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT,
                        "stream %p given to a CPU plan (must be NULL)", stream);
  return ZIPFFT_SUCCESS;
}

/* 1 when both addresses are aligned as the kernel's vector accesses need (its elements,
 * or pairs of reals: zipfft__vector_bytes); byte accesses otherwise. */
static int32_t aligned_for(const zipfft__kernel_spec *s, const void *in, const void *out) {
  return (uintptr_t)in % zipfft__vector_bytes(s, 0) == 0 &&
         (uintptr_t)out % zipfft__vector_bytes(s, 1) == 0;
}

/* Launches kernel i over all its transforms (those of `count` of the plan's batch), in
 * grid-sized chunks. */
static zipfft_status launch_kernel(zipfft_plan p, int i, void *const *arrays,
                                   const zipfft__run *run) {
  const plan_kernel *pk = &p->kernels[i];
  const zipfft__kernel_spec *s = &pk->spec;
  const zipfft__decomposition *dec = &p->decomposition;
  const void *in = arrays[dec->src[i]], *tw = pk->twiddles;
  void *out = arrays[dec->dst[i]];
  const void *aux = zipfft__fused_with_spectrum(s) ? run->spectrum : NULL;
  int64_t loop_count = run->count, first_index = run->first_index;
  const void *load_user = s->load_callback.user, *store_user = s->store_callback.user;
  int32_t aligned = aligned_for(s, in, out);
  int64_t cluster = zipfft__cluster_blocks(s);
  int64_t batch = dec->transforms[i], per_launch = max_grid_blocks / cluster * s->ffts_per_block;
  if (!s->statistics && !dec->whole_batch[i]) /* the batch is the slowest digit */
    batch = batch / p->desc.batch * run->count;
  for (int64_t offset = 0; offset < batch; offset += per_launch) {
    int64_t count = batch - offset < per_launch ? batch - offset : per_launch;
    void *args[ZIPFFT__ARG_COUNT] = {(void *)&in,  (void *)&out, (void *)&tw,  &batch,
                                     &offset,      &aligned,     (void *)&aux, &loop_count,
                                     &first_index, &load_user,   &store_user};
    zipfft__launch l = {(uint32_t)((count + s->ffts_per_block - 1) / s->ffts_per_block * cluster),
                        zipfft__c2c_block_threads(s), zipfft__c2c_shared_bytes(s), run->stream,
                        args};
    zipfft_status st = p->backend->ops->launch(p->backend, pk->handle, &l);
    if (st != ZIPFFT_SUCCESS) return st;
  }
  return ZIPFFT_SUCCESS;
}

/* Launches the pair kernel in place of kernels pair_first and pair_first + 1 (the whole
 * batch), after zeroing its counters on the run's stream (the persistent form's). */
static zipfft_status launch_pair(zipfft_plan p, void *const *arrays, const zipfft__run *run) {
  const zipfft__decomposition *dec = &p->decomposition;
  int i = dec->pair_first;
  const zipfft__kernel_spec *first = &p->kernels[i].spec, *second = &p->kernels[i + 1].spec;
  const void *in = arrays[dec->src[i]], *tw_first = p->kernels[i].twiddles,
             *tw_second = p->kernels[i + 1].twiddles;
  void *mid = arrays[dec->dst[i]], *out = arrays[dec->dst[i + 1]];
  void *sync = (char *)p->workspace + dec->pair_sync_offset;
  int64_t batch_first = dec->transforms[i], batch_second = dec->transforms[i + 1], offset = 0;
  int64_t items = batch_first / first->ffts_per_block, lag = p->pair_lag;
  int64_t rounds = (items + lag + p->pair_grid - 1) / p->pair_grid;
  int32_t aligned_first = aligned_for(first, in, mid),
          aligned_second = aligned_for(second, mid, out);
  if (p->pair.cluster <= 1) { /* the counters; the cluster form keeps none */
    zipfft_status s = p->backend->ops->zero_on_stream(
        p->backend, sync, zipfft__pair_sync_bytes(batch_first / dec->pair_groups[0]), run->stream);
    if (s != ZIPFFT_SUCCESS) return s;
  }
  void *args[ZIPFFT__PAIR_ARG_COUNT] = {
      (void *)&in,  &mid,          &out,    (void *)&tw_first, (void *)&tw_second,
      &batch_first, &batch_second, &offset, &aligned_first,    &aligned_second,
      &sync,        &rounds,       &lag};
  zipfft__launch l = {p->pair_grid, zipfft__c2c_block_threads(first), p->pair_shared, run->stream,
                      args};
  return p->backend->ops->launch(p->backend, p->pair_handle, &l);
}

zipfft_status zipfft__plan_run(zipfft_plan p, const zipfft__run *run) {
  const zipfft__decomposition *dec = &p->decomposition;
  void *second = p->workspace ? (char *)p->workspace + dec->second_workspace_offset : NULL;
  void *mid = p->workspace ? (char *)p->workspace + dec->intermediate_offset : NULL;
  void *arrays[ZIPFFT__ARRAY_COUNT] = {(void *)run->in, run->out,       p->workspace, second, mid,
                                       run->stats,      run->signal_sum};
  const zipfft__run_on skipped = run->statistics ? ZIPFFT__RUN_OUTPUTS : ZIPFFT__RUN_STATISTICS;
  for (int i = 0; i < dec->kernel_count; i++) {
    if (dec->runs_on[i] == skipped) continue;
    if (p->pair_handle && i == dec->pair_first && run->count == p->desc.batch) {
      zipfft_status s = launch_pair(p, arrays, run);
      if (s != ZIPFFT_SUCCESS) return s;
      i++; /* the pair kernel ran the next kernel's work too */
      continue;
    }
    zipfft_status s = launch_kernel(p, i, arrays, run);
    if (s != ZIPFFT_SUCCESS) return s;
  }
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_execute(zipfft_plan p, const void *in, void *out, void *stream) {
  zipfft_status s = check_execute_args(p, in, out, stream);
  if (s != ZIPFFT_SUCCESS) return s;
  zipfft__run run = {
      .in = in, .out = out ? out : (void *)in, .count = p->desc.batch, .stream = stream};
  s = zipfft__plan_run(p, &run);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}

static const char *const type_names[] = {"c2c", "r2c", "c2r"};

/* Ends a kernel's block line: on a backend that counts registers (CUDA), also its
 * registers and spills per thread and blocks per multiprocessor. */
static void describe_occupancy(zipfft_plan p, const plan_kernel *pk, zipfft__strbuf *sb) {
  const zipfft__backend_ops *ops = p->backend->ops;
  int64_t registers = ops->registers(p->backend, pk->handle);
  if (registers > 0) {
    int64_t blocks =
        ops->resident_blocks(p->backend, pk->handle, zipfft__c2c_block_threads(&pk->spec),
                             zipfft__c2c_shared_bytes(&pk->spec)) /
        ops->multiprocessors(p->backend);
    zipfft__sb_printf(sb, ", %lld registers, %lld bytes spilled, %lld blocks per multiprocessor",
                      (long long)registers, (long long)ops->local_bytes(p->backend, pk->handle),
                      (long long)blocks);
  }
  zipfft__sb_printf(sb, "\n");
}

/* Appends the whole human-readable description of a plan. */
static void describe(zipfft_plan p, zipfft__strbuf *sb) {
  const struct zipfft_desc_s *d = &p->desc;
  zipfft__sb_printf(sb, "zipfft plan: %s %s %s n=", type_names[d->type],
                    d->precision == ZIPFFT_F32 ? "f32" : "f64",
                    zipfft__desc_sign(d) < 0 ? "forward" : "inverse");
  for (int k = 0; k < d->rank; k++)
    zipfft__sb_printf(sb, "%s%lld", k ? "x" : "", (long long)d->lengths[k]);
  zipfft__sb_printf(sb, " batch=%lld %s scale=%g backend=%s\n", (long long)d->batch,
                    d->placement == ZIPFFT_INPLACE ? "in-place" : "out-of-place", d->scale,
                    p->backend->ops->name);
  zipfft__sb_printf(sb, "  strategy %s: ", p->strategy->name);
  p->strategy->print(&p->decomposition, sb);
  for (int i = 0; i < p->decomposition.kernel_count; i++) {
    const zipfft__kernel_spec *s = &p->kernels[i].spec;
    char name[ZIPFFT__KERNEL_NAME_MAX];
    zipfft__c2c_kernel_name(s, name, sizeof name);
    zipfft__sb_printf(sb,
                      "  kernel %d: %s\n    block %u threads, %zu bytes shared memory, "
                      "twiddle table %s",
                      i, name, zipfft__c2c_block_threads(s), zipfft__c2c_shared_bytes(s),
                      p->kernels[i].twiddles ? "yes" : "none");
    describe_occupancy(p, &p->kernels[i], sb);
  }
  if (p->pair_handle) {
    const zipfft__pair_spec pair = p->pair;
    char name[2 * ZIPFFT__KERNEL_NAME_MAX];
    zipfft__pair_kernel_name(&pair, name, sizeof name);
    zipfft__sb_printf(sb,
                      "  pair kernel (runs kernels %d and %d): %s\n    %u blocks of %u threads, "
                      "%zu bytes shared memory, lag %lld work items\n",
                      p->decomposition.pair_first, p->decomposition.pair_first + 1, name,
                      p->pair_grid, zipfft__pair_block_threads(&pair), p->pair_shared,
                      (long long)p->pair_lag);
    if (pair.cluster > 1)
      zipfft__sb_printf(sb, "    in clusters of %d blocks, one a dependency group\n", pair.cluster);
  }
  zipfft__sb_printf(sb, "  workspace: %llu bytes\n",
                    (unsigned long long)p->decomposition.workspace_bytes);
}

zipfft_status zipfft_plan_print(zipfft_plan p, char *buf, size_t len, size_t *needed) {
  if (!p) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_plan_print: plan is NULL");
  if (!buf && len > 0)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_plan_print: buf is NULL, len = %zu",
                        len);
  zipfft__strbuf sb = {0};
  describe(p, &sb);
  char *text = zipfft__sb_take(&sb);
  if (!text) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "printing a plan");
  size_t full = strlen(text);
  if (needed) *needed = full;
  if (len > 0) {
    size_t copy = full < len - 1 ? full : len - 1;
    memcpy(buf, text, copy);
    buf[copy] = '\0';
  }
  free(text);
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_plan_workspace_size(zipfft_plan p, size_t *bytes) {
  if (!p || !bytes)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_plan_workspace_size: %s is NULL",
                        p ? "bytes" : "plan");
  *bytes = (size_t)p->decomposition.workspace_bytes;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_plan_backend(zipfft_plan p, zipfft_backend *b) {
  if (!p || !b)
    return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "zipfft_plan_backend: %s is NULL",
                        p ? "b" : "plan");
  *b = p->backend_kind;
  zipfft__clear_error();
  return ZIPFFT_SUCCESS;
}

/* What to do with one kernel's CUDA source (the visitor of each_cuda_kernel). */
typedef zipfft_status (*cuda_source_fn)(const char *text, const char *name, const char *arch,
                                        void *context);

/* Generates the CUDA source of every kernel of the plan (its pair kernel too) and hands
 * each to fn, until one fails. */
static zipfft_status each_cuda_kernel(zipfft_plan p, const char *arch, cuda_source_fn fn,
                                      void *context) {
  if (!p || !arch) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "plan or arch is NULL");
  zipfft_status s = ZIPFFT_SUCCESS;
  int count = p->decomposition.kernel_count + (p->decomposition.paired ? 1 : 0);
  for (int i = 0; s == ZIPFFT_SUCCESS && i < count; i++) {
    int pair = i == p->decomposition.kernel_count;
    char name[2 * ZIPFFT__KERNEL_NAME_MAX], *text = NULL;
    if (pair)
      zipfft__pair_kernel_name(&p->pair, name, sizeof name);
    else
      zipfft__c2c_kernel_name(&p->kernels[i].spec, name, sizeof name);
    s = pair ? generate_with(build_pair, &p->pair, 1, &text, NULL)
             : generate_with(build_single, &p->kernels[i].spec, 1, &text, NULL);
    if (s == ZIPFFT_SUCCESS) s = fn(text, name, arch, context);
    free(text);
  }
  return s;
}

/* Compiles one kernel's source with NVRTC (the CUBIN is discarded). */
static zipfft_status compile_source(const char *text, const char *name, const char *arch,
                                    void *context) {
  void *image = NULL;
  size_t size = 0;
  (void)context;
  zipfft_status s = zipfft__nvrtc_compile(text, name, arch, &image, &size);
  free(image);
  return s;
}

zipfft_status zipfft__plan_check_cuda(zipfft_plan p, const char *arch) {
  return each_cuda_kernel(p, arch, compile_source, NULL);
}

/* Checks that one kernel's source compiles, to PTX only (zipfft__nvrtc_check_source). */
static zipfft_status check_source(const char *text, const char *name, const char *arch,
                                  void *context) {
  (void)context;
  return zipfft__nvrtc_check_source(text, name, arch);
}

zipfft_status zipfft__plan_check_cuda_source(zipfft_plan p, const char *arch) {
  return each_cuda_kernel(p, arch, check_source, NULL);
}

/* The most spill bytes of a plan's kernels so far, and the kernel that has them. */
typedef struct spill_record {
  long bytes;
  char *kernel;
  size_t kernel_len;
} spill_record;

/* Keeps one kernel's spill bytes in the record when they are the most so far. */
static zipfft_status record_spills(const char *text, const char *name, const char *arch,
                                   void *context) {
  spill_record *r = context;
  long bytes = 0;
  zipfft_status s = zipfft__nvrtc_spill_bytes(text, name, arch, &bytes);
  if (s == ZIPFFT_SUCCESS && bytes > r->bytes) {
    r->bytes = bytes;
    if (r->kernel_len > 0) snprintf(r->kernel, r->kernel_len, "%s", name);
  }
  return s;
}

zipfft_status zipfft__plan_cuda_spills(zipfft_plan p, const char *arch, long *bytes, char *kernel,
                                       size_t kernel_len) {
  if (!bytes) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "bytes is NULL");
  spill_record r = {0, kernel, kernel ? kernel_len : 0};
  if (r.kernel_len > 0) r.kernel[0] = '\0';
  zipfft_status s = each_cuda_kernel(p, arch, record_spills, &r);
  *bytes = r.bytes;
  return s;
}

int zipfft__plan_kernel_count(zipfft_plan p) { return p ? p->decomposition.kernel_count : 0; }

/* Generates the source of the plan's kernels in one language (used by `zipfft gen`). */
zipfft_status zipfft__plan_sources(zipfft_plan p, int cuda, char **text) {
  zipfft__strbuf sb = {0};
  zipfft_status s = ZIPFFT_SUCCESS;
  for (int i = 0; s == ZIPFFT_SUCCESS && i < p->decomposition.kernel_count; i++) {
    char *one = NULL;
    s = generate_source(&p->kernels[i].spec, cuda, &one, NULL);
    if (one) zipfft__sb_printf(&sb, "%s", one);
    free(one);
  }
  if (s == ZIPFFT_SUCCESS && p->decomposition.paired) { /* what the plan launches instead */
    char *one = NULL;
    s = generate_with(build_pair, &p->pair, cuda, &one, NULL);
    if (one) zipfft__sb_printf(&sb, "%s", one);
    free(one);
  }
  *text = zipfft__sb_take(&sb);
  if (s == ZIPFFT_SUCCESS && !*text) s = zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "sources");
  return s;
}
