/* cpu.c - the CPU backend: generated C compiled by the host compiler into a shared object
 * (cached like CUBINs), loaded with dlopen, blocks run in parallel on host threads. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/error.h"
#include "backend/backend.h"
#include "backend/cache.h"

extern char **environ;

/* Shared memory a CPU "block" may use: the sm_90 opt-in limit, so that the CPU runs exactly
 * the kernels a Hopper GPU runs. */
enum { cpu_max_shared = 232448, max_host_threads = 64 };
static const size_t worker_stack_bytes = (size_t)32 << 20;
static const char compile_flags[] = "-O2 -fPIC -shared -fno-math-errno -w";

typedef void (*cpu_entry)(void **args, int64_t block_begin, int64_t block_end, void *scratch);

typedef struct cpu_kernel {
  void *library;
  cpu_entry entry;
  size_t shared_bytes; /* scratch of one block function: a whole cluster's */
  unsigned cluster_blocks;
} cpu_kernel;

static const char *compiler(void) {
  const char *cc = getenv("ZIPFFT_CC");
  return cc && *cc ? cc : "cc";
}

/* Flags after the backend's own (ZIPFFT_CFLAGS, split into words by sh), so that they
 * override them: the sanitizer tests compile their instrumented kernels at -O1, in half
 * the time of -O2. */
static const char *extra_flags(void) {
  const char *flags = getenv("ZIPFFT_CFLAGS");
  return flags ? flags : "";
}

/* Waits for a child, through signals that interrupt the wait (a caller's timer or profiler:
 * handlers installed without SA_RESTART); its wait status, or -1 when it cannot. */
static int wait_for_child(pid_t pid) {
  int status = 0;
  pid_t got;
  do {
    got = waitpid(pid, &status, 0);
  } while (got < 0 && errno == EINTR);
  return got == pid ? status : -1;
}

/* Runs `cc flags -o so src` with output to log; returns the exit status (-1: not run, or
 * ended by a signal). The shell splits ZIPFFT_CC into words (it may hold flags, as CC does
 * for make); the paths reach the compiler as positional parameters, never parsed, so a
 * TMPDIR holding quotes or shell syntax is only a path. */
static int run_compiler(const char *src, const char *so, const char *log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  char command[4096];
  snprintf(command, sizeof command, "exec %s %s %s -o \"$1\" \"$2\" -lm", compiler(),
           compile_flags, extra_flags());
  char *argv[] = {"sh", "-c", command, "sh", (char *)so, (char *)src, NULL};
  pid_t pid;
  int status = -1;
  if (posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ) == 0) status = wait_for_child(pid);
  status = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  posix_spawn_file_actions_destroy(&fa);
  return status;
}

/* Reads a whole file into a malloc'ed buffer; NULL on error. */
static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  void *data = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    rewind(f);
    data = n > 0 ? malloc((size_t)n) : NULL;
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
    *size = n > 0 ? (size_t)n : 0;
  }
  fclose(f);
  return data;
}

static int write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* A private temporary directory for one compile or load. */
static int make_temp_dir(char *dir, size_t len) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, len, "%s/zipfft-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  return mkdtemp(dir) != NULL;
}

/* Removes the files a compile or load left in dir, then dir. */
static void remove_temp(const char *dir) {
  static const char *const names[] = {"kernel.c", "kernel.so", "compile.log"};
  char path[4200];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

/* Compiles C source into shared-object bytes (malloc'ed). */
static zipfft_status compile_object(const zipfft__kernel_source *src, void **so, size_t *size) {
  char dir[4096], c_path[4200], so_path[4200], log_path[4200];
  if (!make_temp_dir(dir, sizeof dir))
    return zipfft__fail(ZIPFFT_ERROR_CPU_COMPILER, "cannot create a temporary directory for %s",
                        src->name);
  snprintf(c_path, sizeof c_path, "%s/kernel.c", dir);
  snprintf(so_path, sizeof so_path, "%s/kernel.so", dir);
  snprintf(log_path, sizeof log_path, "%s/compile.log", dir);
  zipfft_status s = ZIPFFT_SUCCESS;
  int status = write_file(c_path, src->text, strlen(src->text))
                   ? run_compiler(c_path, so_path, log_path)
                   : -1;
  *so = status == 0 ? read_file(so_path, size) : NULL;
  if (!*so) {
    size_t log_size = 0;
    char *log = read_file(log_path, &log_size);
    s = zipfft__fail(ZIPFFT_ERROR_CPU_COMPILER, "host compiler '%s' failed (status %d%s) on %s:\n",
                     compiler(), status, status == -1 ? ": not run, or ended by a signal" : "",
                     src->name);
    if (log) {
      log[log_size ? log_size - 1 : 0] = '\0';
      zipfft__append_error(log);
    }
    free(log);
  }
  remove_temp(dir);
  return s;
}

/* Writes shared-object bytes to a private file, loads it and finds the entry point. */
static zipfft_status load_object(const void *so, size_t size, const char *name, cpu_kernel *k) {
  char dir[4096], so_path[4200];
  if (!make_temp_dir(dir, sizeof dir))
    return zipfft__fail(ZIPFFT_ERROR_CPU_COMPILER, "cannot create a temporary directory for %s",
                        name);
  snprintf(so_path, sizeof so_path, "%s/kernel.so", dir);
  zipfft_status s = ZIPFFT_SUCCESS;
  k->library = write_file(so_path, so, size) ? dlopen(so_path, RTLD_NOW | RTLD_LOCAL) : NULL;
  if (!k->library) {
    const char *why = dlerror();
    s = zipfft__fail(ZIPFFT_ERROR_CPU_COMPILER, "cannot load %s: %s", name,
                     why ? why : "write failed");
  } else if (!(*(void **)&k->entry = dlsym(k->library, name))) {
    s = zipfft__fail(ZIPFFT_ERROR_CPU_COMPILER, "entry point %s missing", name);
    dlclose(k->library);
  }
  remove_temp(dir);
  return s;
}

static zipfft_status cpu_compile(zipfft__backend *b, const zipfft__kernel_source *src,
                                 void **kernel) {
  (void)b;
  const char *parts[] = {src->text, compiler(), compile_flags, extra_flags(), "zipfft-cpu-1"};
  zipfft__cache_key key = zipfft__cache_key_of(parts, 5);
  void *so = NULL;
  size_t size = 0;
  zipfft_status s = ZIPFFT_SUCCESS;
  if (!zipfft__cache_get(ZIPFFT__CACHE_KIND_CPU, key, &so, &size)) {
    s = compile_object(src, &so, &size);
    if (s == ZIPFFT_SUCCESS) zipfft__cache_put(ZIPFFT__CACHE_KIND_CPU, key, so, size);
  }
  cpu_kernel *k = s == ZIPFFT_SUCCESS ? calloc(1, sizeof *k) : NULL;
  if (s == ZIPFFT_SUCCESS && !k) s = zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "CPU kernel handle");
  if (k) {
    k->cluster_blocks = src->cluster_blocks > 1 ? src->cluster_blocks : 1;
    k->shared_bytes = src->shared_bytes * k->cluster_blocks; /* one block function per cluster */
    s = load_object(so, size, src->name, k);
    if (s == ZIPFFT_SUCCESS)
      *kernel = k;
    else
      free(k);
  }
  free(so);
  return s;
}

typedef struct block_range {
  const cpu_kernel *k;
  void **args;
  int64_t begin, end;
  void *scratch; /* the range's shared memory, allocated before any range runs */
} block_range;

/* Runs a range of blocks in its own shared-memory scratch. */
static void *run_blocks(void *arg) {
  block_range *r = arg;
  r->k->entry(r->args, r->begin, r->end, r->scratch);
  return NULL;
}

/* Host threads to use: ZIPFFT_CPU_THREADS, else the online processors (capped). */
static int host_threads(int64_t blocks) {
  const char *env = getenv("ZIPFFT_CPU_THREADS");
  long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > max_host_threads) n = max_host_threads;
  return (int)(n < blocks ? n : blocks);
}

/* Runs every range on a worker thread of worker_stack_bytes (a block keeps its threads'
 * values on the stack: several hundred KiB for fp64 16384, more than the caller's thread
 * may have); ranges whose thread could not start run afterwards, one worker at a time.
 * Returns the number of ranges that never ran (no thread at all: *start_error is then
 * pthread_create's last error). */
static int run_ranges(block_range *ranges, int count, int *start_error) {
  pthread_t threads[max_host_threads];
  int started[max_host_threads] = {0}, failed = 0;
  pthread_attr_t attr;
  *start_error = pthread_attr_init(&attr);
  if (*start_error != 0) return count;
  pthread_attr_setstacksize(&attr, worker_stack_bytes);
  for (int i = 0; i < count; i++)
    started[i] = pthread_create(&threads[i], &attr, run_blocks, &ranges[i]) == 0;
  for (int i = 0; i < count; i++)
    if (started[i]) pthread_join(threads[i], NULL);
  for (int i = 0; i < count; i++) {
    int error = started[i] ? 0 : pthread_create(&threads[i], &attr, run_blocks, &ranges[i]);
    if (!started[i] && error == 0) pthread_join(threads[i], NULL);
    if (error != 0) *start_error = error;
    failed += error != 0;
  }
  pthread_attr_destroy(&attr);
  return failed;
}

static zipfft_status cpu_launch(zipfft__backend *b, void *kernel, const zipfft__launch *l) {
  (void)b;
  const cpu_kernel *k = kernel;
  int64_t blocks = l->grid / k->cluster_blocks; /* a block function runs a whole cluster */
  int count = host_threads(blocks), allocated = 0;
  block_range ranges[max_host_threads];
  for (; allocated < count; allocated++) { /* every scratch first: without one, no range runs */
    void *scratch = malloc(k->shared_bytes ? k->shared_bytes : 16);
    if (!scratch) break;
    int i = allocated;
    ranges[i] = (block_range){k, l->args, blocks * i / count, blocks * (i + 1) / count, scratch};
  }
  int start_error = 0, failed = allocated < count ? -1 : run_ranges(ranges, count, &start_error);
  for (int i = 0; i < allocated; i++) free(ranges[i].scratch);
  if (failed < 0)
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY,
                        "CPU launch: no memory for %zu bytes of scratch", k->shared_bytes);
  if (failed)
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY,
                        "CPU launch: no host thread of a %zu-byte stack could start (%s)",
                        worker_stack_bytes, strerror(start_error));
  return ZIPFFT_SUCCESS;
}

static void cpu_release_kernel(zipfft__backend *b, void *kernel) {
  (void)b;
  cpu_kernel *k = kernel;
  if (!k) return;
  dlclose(k->library);
  free(k);
}

static zipfft_status cpu_alloc(zipfft__backend *b, size_t bytes, void **ptr) {
  (void)b;
  *ptr = malloc(bytes ? bytes : 1);
  return *ptr ? ZIPFFT_SUCCESS
              : zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "host table of %zu bytes", bytes);
}

static zipfft_status cpu_zero(zipfft__backend *b, void *ptr, size_t bytes) {
  (void)b;
  memset(ptr, 0, bytes);
  return ZIPFFT_SUCCESS;
}

static zipfft_status cpu_zero_on_stream(zipfft__backend *b, void *ptr, size_t bytes, void *stream) {
  (void)stream;
  return cpu_zero(b, ptr, bytes);
}

/* One block per host thread: a launch runs them all at once. */
static int64_t cpu_resident_blocks(zipfft__backend *b, void *kernel, unsigned threads,
                                   size_t shared) {
  (void)b, (void)kernel, (void)threads, (void)shared;
  return host_threads(INT64_MAX);
}

/* A kernel's local memory and registers: no such counts on the CPU (0). */
static int64_t cpu_no_count(zipfft__backend *b, void *kernel) {
  (void)b, (void)kernel;
  return 0;
}

static int64_t cpu_multiprocessors(zipfft__backend *b) {
  (void)b;
  return host_threads(INT64_MAX);
}

/* Unknown: the CPU plans as for an H100 (plan/strategy.h). */
static uint64_t cpu_peak_bandwidth(zipfft__backend *b) {
  (void)b;
  return 0;
}

static zipfft_status cpu_upload(zipfft__backend *b, void *dst, const void *src, size_t bytes) {
  (void)b;
  memcpy(dst, src, bytes);
  return ZIPFFT_SUCCESS;
}

static zipfft_status cpu_download(zipfft__backend *b, void *dst, const void *src, size_t bytes) {
  (void)b;
  memcpy(dst, src, bytes);
  return ZIPFFT_SUCCESS;
}

static void cpu_free(zipfft__backend *b, void *ptr) {
  (void)b;
  free(ptr);
}

/* The host's physical memory (0 when the system cannot say). */
static uint64_t cpu_memory_bytes(zipfft__backend *b) {
  (void)b;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

static size_t cpu_max_shared_bytes(zipfft__backend *b) {
  (void)b;
  return cpu_max_shared;
}

/* Clusters run as one block function (their blocks' threads in one loop), so any size up to
 * the portable limit of CUDA's clusters works. */
static int cpu_max_cluster_blocks(zipfft__backend *b) {
  (void)b;
  return 8;
}

/* Bulk copies are plain copies on the host. */
static int cpu_bulk_copies(zipfft__backend *b) {
  (void)b;
  return 1;
}

static void cpu_close(zipfft__backend *b) { free(b); }

static const zipfft__backend_ops cpu_ops = {
    .name = "cpu",
    .compile = cpu_compile,
    .launch = cpu_launch,
    .release_kernel = cpu_release_kernel,
    .alloc = cpu_alloc,
    .zero = cpu_zero,
    .zero_on_stream = cpu_zero_on_stream,
    .resident_blocks = cpu_resident_blocks,
    .local_bytes = cpu_no_count,
    .registers = cpu_no_count,
    .multiprocessors = cpu_multiprocessors,
    .peak_bandwidth = cpu_peak_bandwidth,
    .upload = cpu_upload,
    .download = cpu_download,
    .free = cpu_free,
    .memory_bytes = cpu_memory_bytes,
    .max_shared_bytes = cpu_max_shared_bytes,
    .max_cluster_blocks = cpu_max_cluster_blocks,
    .bulk_copies = cpu_bulk_copies,
    .close = cpu_close,
};

zipfft_status zipfft__cpu_open(zipfft__backend **out) {
  zipfft__backend *b = malloc(sizeof *b);
  if (!b) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "CPU backend");
  b->ops = &cpu_ops;
  *out = b;
  return ZIPFFT_SUCCESS;
}
