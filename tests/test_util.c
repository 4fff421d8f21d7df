/* test_util.c - implementation of the test helpers in test_util.h. */
#include "test_util.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int zt_failures = 0;

static const unsigned char guard_byte = 0xA5;

/* Under AddressSanitizer a buffer's guard bands are poisoned whenever no helper here reads
 * or writes them, so that an instrumented kernel or the library touching one (a load,
 * store or prefetch past the caller's array) is reported where it happens, not only a
 * write, found afterwards by zt_buffer_guards_intact. */
#ifdef ZT_ADDRESS_SANITIZER
#include <sanitizer/asan_interface.h>
static void guards_poisoned(const zt_buffer *b, int poisoned) {
  if (poisoned) {
    ASAN_POISON_MEMORY_REGION(b->data - b->guard, b->guard);
    ASAN_POISON_MEMORY_REGION(b->data + b->bytes, b->guard);
  } else {
    ASAN_UNPOISON_MEMORY_REGION(b->data - b->guard, b->guard);
    ASAN_UNPOISON_MEMORY_REGION(b->data + b->bytes, b->guard);
  }
}
/* Guards of 4 KiB, so that an access even 4 KiB past the array lands in one. */
enum { guard_bytes = 4096 };
#else
static void guards_poisoned(const zt_buffer *b, int poisoned) { (void)b, (void)poisoned; }
enum { guard_bytes = 256 };
#endif

int zt_finish(const char *test_name, int cases) {
  int failed = zt_failures > 0 ? 1 : 0;
  printf("%s: %d cases, %d failed checks\n", test_name, cases, zt_failures);
  printf("%d passed, %d failed\n", failed ? 0 : 1, failed);
  return failed;
}

double zt_worse(double worst, double e) {
  if (isnan(worst) || isnan(e)) return NAN;
  return e > worst ? e : worst;
}

int zt_finish_cases(const char *test_name, int cases) {
  if (cases == 0) {
    printf("%s: no case ran\n", test_name);
    zt_failures++;
  }
  return zt_finish(test_name, cases);
}

int zt_full_tier(void) {
  const char *tier = getenv("ZIPFFT_TEST_TIER");
  return tier && strcmp(tier, "full") == 0;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double zt_uniform(uint64_t seed, uint64_t index) {
  uint64_t bits = splitmix64(splitmix64(seed) ^ index);
  return (double)(bits >> 11) * 0x1.0p-53 - 0.5;
}

zt_buffer zt_buffer_alloc(size_t bytes, size_t misalign) {
  zt_buffer b;
  b.guard = guard_bytes;
  b.bytes = bytes;
  b.base = malloc(bytes + 2 * b.guard + 128);
  if (!b.base) {
    fprintf(stderr, "out of memory allocating %zu bytes\n", bytes);
    exit(2);
  }
  uintptr_t start = ((uintptr_t)b.base + b.guard + 63) & ~(uintptr_t)63;
  b.data = (unsigned char *)start + misalign;
  guards_poisoned(&b, 1);
  return b;
}

void zt_buffer_poison(zt_buffer *b, size_t real_size) {
  guards_poisoned(b, 0);
  memset(b->data - b->guard, guard_byte, b->guard);
  memset(b->data + b->bytes, guard_byte, b->guard);
  guards_poisoned(b, 1);
  /* NaNs into a first block, then that block copied on (gigabytes at memcpy's speed) */
  size_t end = b->bytes - b->bytes % real_size, block = end < 65536 ? end : 65536;
  if (real_size == 4) {
    float nan_f = NAN;
    for (size_t i = 0; i < block; i += 4) memcpy(b->data + i, &nan_f, 4);
  } else {
    double nan_d = NAN;
    for (size_t i = 0; i < block; i += 8) memcpy(b->data + i, &nan_d, 8);
  }
  for (size_t at = block; at < end; at += block)
    memcpy(b->data + at, b->data, end - at < block ? end - at : block);
}

int zt_buffer_guards_intact(const zt_buffer *b) {
  int intact = 1;
  guards_poisoned(b, 0);
  for (size_t i = 0; i < b->guard && intact; i++)
    intact = b->data[-(ptrdiff_t)b->guard + (ptrdiff_t)i] == guard_byte &&
             b->data[b->bytes + i] == guard_byte;
  guards_poisoned(b, 1);
  return intact;
}

size_t zt_buffer_span(const zt_buffer *b) { return b->bytes + 2 * b->guard; }

void zt_buffer_copy_span(const zt_buffer *b, unsigned char *to) {
  guards_poisoned(b, 0);
  memcpy(to, b->data - b->guard, zt_buffer_span(b));
  guards_poisoned(b, 1);
}

int zt_buffer_span_equals(const zt_buffer *b, const unsigned char *snapshot) {
  guards_poisoned(b, 0);
  int equal = memcmp(b->data - b->guard, snapshot, zt_buffer_span(b)) == 0;
  guards_poisoned(b, 1);
  return equal;
}

void zt_buffer_free(zt_buffer *b) {
  free(b->base);
  b->base = b->data = NULL;
}

int zt_test_part(long *index, long *count) {
  const char *env = getenv("ZIPFFT_TEST_PART");
  if (!env || !*env) return 0;
  long k = -1, n = 0;
  char end = 0;
  if (sscanf(env, "%ld/%ld%c", &k, &n, &end) != 2 || n < 1 || k < 0 || k >= n) {
    printf("ZIPFFT_TEST_PART=%s is not K/N with 0 <= K < N\n", env);
    zt_failures++;
    return -1;
  }
  *index = k, *count = n;
  return 1;
}

static long part_index = 0, part_count = 1, part_next = 0;

int zt_part_read(void) {
  long k = 0, n = 1;
  int set = zt_test_part(&k, &n);
  if (set == 1) part_index = k, part_count = n, part_next = 0;
  return set;
}

int zt_case_in_part(void) { return part_next++ % part_count == part_index; }

int zt_in_first_part(void) { return part_index == 0; }

int zt_sweep_first(int (*sweep)(void), int *swept) {
  *swept = 0;
  int one_part = zt_part_read();
  if (one_part < 0) return 1;
  if (!zt_full_tier()) return 0;
  *swept = sweep();
  return one_part;
}

char *zt_env_save(const char *name) {
  const char *value = getenv(name);
  return value ? strdup(value) : NULL;
}

void zt_env_restore(const char *name, char *saved) {
  if (saved)
    setenv(name, saved, 1);
  else
    unsetenv(name);
  free(saved);
}

void zt_sanitized_kernels_begin(void) {
  const char *sanitizer = getenv("ZIPFFT_TEST_SANITIZER_CC");
  if (sanitizer && *sanitizer) setenv("ZIPFFT_CC", sanitizer, 1);
}

void zt_sanitized_kernels_end(void) {
  const char *sanitizer = getenv("ZIPFFT_TEST_SANITIZER_CC");
  if (sanitizer && *sanitizer) unsetenv("ZIPFFT_CC");
}

size_t zt_host_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

void zt_remove_tree(const char *path) {
  DIR *dir = opendir(path);
  if (dir) {
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
      char child[4096];
      snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
      struct stat st;
      if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
        zt_remove_tree(child);
      else
        unlink(child);
    }
    closedir(dir);
  }
  rmdir(path);
}

size_t zt_real_size(zipfft_precision p) { return p == ZIPFFT_F32 ? 4 : 8; }

double zt_decode_f16(unsigned h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double sign = h & 0x8000 ? -1.0 : 1.0;
  if (e == 31) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * ldexp(m, -24);
  return sign * ldexp(1024 + m, e - 25);
}

double zt_decode_bf16(unsigned h) {
  int e = (h >> 7) & 0xff, m = h & 0x7f;
  double sign = h & 0x8000 ? -1.0 : 1.0;
  if (e == 255) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * ldexp(m, -133);
  return sign * ldexp(128 + m, e - 134);
}

/* Rounds v to the 16-bit format s through the independent decoders: the decoded value of
 * the nearest pattern (searched by bisection on magnitude). */
static double round_to_16(zipfft_storage s, double v) {
  double (*decode)(unsigned) = s == ZIPFFT_STORAGE_F16 ? zt_decode_f16 : zt_decode_bf16;
  unsigned inf = s == ZIPFFT_STORAGE_F16 ? 0x7c00u : 0x7f80u, lo = 0, hi = inf - 1;
  double a = fabs(v);
  while (lo < hi) { /* last pattern not above a */
    unsigned mid = (lo + hi + 1) / 2;
    if (decode(mid) <= a)
      lo = mid;
    else
      hi = mid - 1;
  }
  unsigned best = lo + 1 < inf && fabs(decode(lo + 1) - a) < fabs(decode(lo) - a) ? lo + 1 : lo;
  return copysign(decode(best), v);
}

/* Pattern of a value exactly representable in binary16. */
static uint16_t exact_f16(double v) {
  unsigned sign = signbit(v) ? 0x8000u : 0;
  double a = fabs(v);
  if (a < 0x1p-14) return (uint16_t)(sign | (unsigned)(a * 0x1p24));
  int e;
  frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  unsigned m = (unsigned)((ldexp(a, 1 - e) - 1.0) * 1024.0);
  return (uint16_t)(sign | ((unsigned)(e - 1 + 15) << 10) | m);
}

double zt_put16(unsigned char *data, int64_t i, zipfft_storage s, double v) {
  double r = round_to_16(s, v);
  float f = (float)r;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  uint16_t h = s == ZIPFFT_STORAGE_BF16 ? (uint16_t)(bits >> 16) : exact_f16(r);
  memcpy(data + 2 * i, &h, 2);
  return r;
}

double zt_get16(const unsigned char *data, int64_t i, zipfft_storage s) {
  uint16_t h;
  memcpy(&h, data + 2 * i, 2);
  return s == ZIPFFT_STORAGE_F16 ? zt_decode_f16(h) : zt_decode_bf16(h);
}

double zt_get_real(const zt_buffer *b, zipfft_precision p, int64_t index) {
  if (p == ZIPFFT_F32) {
    float f;
    memcpy(&f, b->data + 4 * index, 4);
    return f;
  }
  double v;
  memcpy(&v, b->data + 8 * index, 8);
  return v;
}

void zt_set_real(zt_buffer *b, zipfft_precision p, int64_t index, double v) {
  if (p == ZIPFFT_F32) {
    float f = (float)v;
    memcpy(b->data + 4 * index, &f, 4);
  } else {
    memcpy(b->data + 8 * index, &v, 8);
  }
}

int zt_is_31_smooth(int64_t n) {
  static const int64_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31};
  for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
    while (n % primes[i] == 0) n /= primes[i];
  return n == 1;
}

int zt_input_may_be_scratch(zipfft_type type, int rank, zipfft_storage in, zipfft_storage out) {
  return type == ZIPFFT_C2R && rank > 1 && !(in != ZIPFFT_STORAGE_DEFAULT && out != in);
}

zt_layout zt_layout_make(int rank, const int64_t *shape, int64_t batch, int padded,
                         int64_t pad_dist, int real) {
  zt_layout l = {{1, 1, 1}, {0, 0, 0}, 0, 0, real};
  int64_t step = padded ? 2 : 1;
  for (int k = rank - 1; k >= 0; k--) {
    l.shape[k] = shape[k];
    l.strides[k] = step;
    step = step * shape[k] + (padded ? 1 : 0);
  }
  l.dist = step + (padded ? pad_dist : 0);
  l.size = l.dist * batch;
  return l;
}

int64_t zt_layout_offset(const zt_layout *l, int rank, int64_t i) {
  int64_t off = 0;
  for (int k = rank - 1; k >= 0; k--) off += (i % l->shape[k]) * l->strides[k], i /= l->shape[k];
  return off + i * l->dist;
}
