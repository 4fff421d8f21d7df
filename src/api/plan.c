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
#include "gen/build_stockham.h"
#include "gen/emit.h"
#include "plan/strategy.h"
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

/* Generates one kernel's source in the requested language (CUDA or C): malloc'ed text in
 * *text, and (when launch is not NULL) the kernel's name and launch facts in *launch. */
static zipfft_status generate_source(const zipfft__kernel_spec *spec, int cuda, char **text,
                                     zipfft__kernel_source *launch) {
  zipfft__arena *a = zipfft__arena_create();
  if (!a) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "allocating the generator arena");
  zipfft__kernel_ast k;
  zipfft_status s = ZIPFFT_SUCCESS;
  const char *problem = zipfft__build_stockham(spec, a, &k);
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

/* Generates and compiles one kernel on the plan's backend and uploads its twiddle table. */
static zipfft_status prepare_kernel(zipfft_plan p, plan_kernel *pk) {
  char name[ZIPFFT__KERNEL_NAME_MAX], *text = NULL;
  zipfft__kernel_source src;
  zipfft__c2c_kernel_name(&pk->spec, name, sizeof name);
  zipfft_status s = generate_source(&pk->spec, p->backend_kind == ZIPFFT_BACKEND_CUDA, &text, &src);
  if (s == ZIPFFT_SUCCESS) {
    dump_kernel(&pk->spec);
    src.name = name;
    s = p->backend->ops->compile(p->backend, &src, &pk->handle);
  }
  free(text);
  if (s != ZIPFFT_SUCCESS || zipfft__twiddle_count(&pk->spec) == 0) return s;
  size_t bytes;
  void *table = zipfft__stockham_twiddles(&pk->spec, &bytes);
  if (!table) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "twiddle table of %zu bytes", bytes);
  if (pk->spec.pointwise == ZIPFFT__PW_FILTER)
    s = zipfft__bluestein_filter(&pk->spec, p->backend_kind, p->desc.device, p->backend, table);
  if (s == ZIPFFT_SUCCESS) s = p->backend->ops->alloc(p->backend, bytes, &pk->twiddles);
  if (s == ZIPFFT_SUCCESS) s = p->backend->ops->upload(p->backend, pk->twiddles, table, bytes);
  free(table);
  return s;
}

/* Releases everything a (possibly half-built) plan holds. */
static void release_plan(zipfft_plan p) {
  for (int i = 0; i < p->decomposition.kernel_count; i++) {
    if (p->kernels[i].handle) p->backend->ops->release_kernel(p->backend, p->kernels[i].handle);
    if (p->kernels[i].twiddles) p->backend->ops->free(p->backend, p->kernels[i].twiddles);
  }
  if (p->workspace) p->backend->ops->free(p->backend, p->workspace);
  if (p->backend) p->backend->ops->close(p->backend);
  zipfft__desc_free_callbacks(&p->desc);
  free(p);
}

/* The limits of the backend's device that shape decompositions. ZIPFFT_CLUSTER (tuning)
 * caps the blocks of a thread-block cluster; 0 or 1 plans without clusters. */
static zipfft__target target_of(zipfft__backend *b) {
  zipfft__target t = {b->ops->max_shared_bytes(b), b->ops->max_cluster_blocks(b)};
  const char *env = getenv("ZIPFFT_CLUSTER");
  if (env && *env && atoi(env) < t.max_cluster_blocks) t.max_cluster_blocks = atoi(env);
  return t;
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

/* Fails with TOO_LARGE, before anything is allocated, when the workspace and the tables
 * exceed the memory of the plan's backend. */
static zipfft_status check_memory_fits(zipfft_plan p) {
  const zipfft__decomposition *dec = &p->decomposition;
  uint64_t tables = 0, have = p->backend->ops->memory_bytes(p->backend);
  for (int i = 0; i < dec->kernel_count; i++)
    tables += (uint64_t)zipfft__twiddle_count(&dec->kernels[i]) *
              zipfft__complex_bytes(dec->kernels[i].precision, ZIPFFT_STORAGE_DEFAULT);
  uint64_t need = dec->workspace_bytes + tables;
  if (have == 0 || need <= have) return ZIPFFT_SUCCESS;
  return zipfft__fail(ZIPFFT_ERROR_TOO_LARGE,
                      "the plan needs %llu bytes of workspace and %llu of tables; the %s backend's "
                      "memory is %llu bytes",
                      (unsigned long long)dec->workspace_bytes, (unsigned long long)tables,
                      p->backend->ops->name, (unsigned long long)have);
}

/* Compiles the kernels of a decomposed plan, uploads their tables and allocates the
 * workspace (zeroed); releases the plan on failure. */
static zipfft_status prepare_plan(zipfft_plan p) {
  zipfft_status s = check_memory_fits(p);
  for (int i = 0; s == ZIPFFT_SUCCESS && i < p->decomposition.kernel_count; i++) {
    p->kernels[i].spec = p->decomposition.kernels[i];
    s = prepare_kernel(p, &p->kernels[i]);
  }
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

zipfft_status zipfft_plan_1d(zipfft_plan *p, zipfft_precision prec, int64_t n, int64_t batch,
                             zipfft_direction dir) {
  zipfft_desc d;
  zipfft_status s = zipfft_desc_create(&d, ZIPFFT_C2C, prec, 1, &n);
  if (s != ZIPFFT_SUCCESS) return s;
  s = zipfft_desc_set_batch(d, batch);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_direction(d, dir);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(p, d);
  free(d);
  return s;
}

zipfft_status zipfft_plan_destroy(zipfft_plan p) {
  if (p) release_plan(p);
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

/* Launches kernel i over all its transforms (those of `count` of the plan's batch), in
 * grid-sized chunks. */
static zipfft_status launch_kernel(zipfft_plan p, int i, void *const *arrays,
                                   const zipfft__run *run) {
  const plan_kernel *pk = &p->kernels[i];
  const zipfft__kernel_spec *s = &pk->spec;
  const zipfft__decomposition *dec = &p->decomposition;
  const void *in = arrays[dec->src[i]], *tw = pk->twiddles;
  void *out = arrays[dec->dst[i]];
  const void *aux = s->fused != ZIPFFT__FUSED_NONE ? run->spectrum : NULL;
  int64_t loop_count = run->count, first_index = run->first_index;
  const void *load_user = s->load_callback.user, *store_user = s->store_callback.user;
  size_t in_bytes = zipfft__element_bytes(s, 0), out_bytes = zipfft__element_bytes(s, 1);
  int32_t aligned = (uintptr_t)in % in_bytes == 0 && (uintptr_t)out % out_bytes == 0;
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

zipfft_status zipfft__plan_run(zipfft_plan p, const zipfft__run *run) {
  const zipfft__decomposition *dec = &p->decomposition;
  void *second = p->workspace ? (char *)p->workspace + dec->second_workspace_offset : NULL;
  void *mid = p->workspace ? (char *)p->workspace + dec->intermediate_offset : NULL;
  void *arrays[ZIPFFT__ARRAY_COUNT] = {(void *)run->in, run->out, p->workspace,
                                       second,          mid,      run->stats};
  for (int i = 0; i < dec->kernel_count; i++) {
    /* Of the last two kernels of a plan with statistics, the one the run asks for. */
    if (dec->has_statistics && i >= dec->kernel_count - 2 &&
        (i == dec->kernel_count - 1) != run->statistics)
      continue;
    zipfft_status s = launch_kernel(p, i, arrays, run);
    if (s != ZIPFFT_SUCCESS) return s;
  }
  return ZIPFFT_SUCCESS;
}

zipfft_status zipfft_execute(zipfft_plan p, const void *in, void *out, void *stream) {
  zipfft_status s = check_execute_args(p, in, out, stream);
  if (s != ZIPFFT_SUCCESS) return s;
  zipfft__run run = {in, out ? out : (void *)in, NULL, NULL, p->desc.batch, 0, 0, stream};
  s = zipfft__plan_run(p, &run);
  if (s == ZIPFFT_SUCCESS) zipfft__clear_error();
  return s;
}

static const char *const type_names[] = {"c2c", "r2c", "c2r"};

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
                      "twiddle table %s\n",
                      i, name, zipfft__c2c_block_threads(s), zipfft__c2c_shared_bytes(s),
                      p->kernels[i].twiddles ? "yes" : "none");
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

zipfft_status zipfft__plan_check_cuda(zipfft_plan p, const char *arch) {
  if (!p || !arch) return zipfft__fail(ZIPFFT_ERROR_NULL_POINTER, "plan or arch is NULL");
  zipfft_status s = ZIPFFT_SUCCESS;
  for (int i = 0; s == ZIPFFT_SUCCESS && i < p->decomposition.kernel_count; i++) {
    char name[ZIPFFT__KERNEL_NAME_MAX], *text = NULL;
    void *image = NULL;
    size_t size = 0;
    zipfft__c2c_kernel_name(&p->kernels[i].spec, name, sizeof name);
    s = generate_source(&p->kernels[i].spec, 1, &text, NULL);
    if (s == ZIPFFT_SUCCESS) s = zipfft__nvrtc_compile(text, name, arch, &image, &size);
    free(image);
    free(text);
  }
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
  *text = zipfft__sb_take(&sb);
  if (s == ZIPFFT_SUCCESS && !*text) s = zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "sources");
  return s;
}
