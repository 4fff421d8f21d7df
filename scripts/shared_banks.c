/* shared_banks.c - records a generated CPU kernel's shared-memory accesses for one block and
 * counts the wavefronts a GPU's 32 four-byte banks would need for them (scripts/shared-banks).
 *
 * Built by scripts/shared-banks with a kernel source whose shared accesses it rewrote to
 * call zbank_note (ZB_ENTRY names the kernel's entry, ZB_ARGS the file that fills its
 * arguments), or with -DZB_SELF_TEST to check the counting on patterns of known cost.
 *
 * The model: a warp's access to shared memory is served in phases of 128 bytes of threads
 * (32 threads of 4-byte accesses, 16 of 8-byte, 8 of 16-byte), and a phase takes as many
 * wavefronts as the most distinct words any one bank holds among its threads' words (the
 * same word read by many threads is one). Accesses of one warp are those of one source line
 * made by its threads for the same time (the k-th time each thread reached that line). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { banks = 32, phase_bytes = 128, max_threads = 4096, hash_slots = 1 << 20 };

typedef struct {
  int line, occurrence, thread, store;
  int64_t word; /* first 4-byte word of the access */
  int words;    /* 1, 2 or 4 */
} access;

static access *accesses;
static size_t access_count, access_capacity;

/* How many times each (line, thread) has been reached: open addressing on line * 4096 + tid. */
static int64_t *slot_keys;
static int *slot_counts;

static int next_occurrence(int line, int thread) {
  if (!slot_keys) {
    slot_keys = malloc(sizeof *slot_keys * hash_slots);
    slot_counts = calloc(hash_slots, sizeof *slot_counts);
    if (!slot_keys || !slot_counts) exit(3);
    for (size_t i = 0; i < hash_slots; i++) slot_keys[i] = -1;
  }
  int64_t key = (int64_t)line * max_threads + thread;
  size_t i = (size_t)(key * 2654435761u) & (hash_slots - 1);
  while (slot_keys[i] != -1 && slot_keys[i] != key) i = (i + 1) & (hash_slots - 1);
  slot_keys[i] = key;
  return slot_counts[i]++;
}

#ifndef ZB_BLOCK
#define ZB_BLOCK 0 /* the block modelled */
#endif

/* Called before each shared access of a block: bytes at byte offset `offset` of the block's
 * shared memory, by thread `thread`, at source line `line`; blocks but ZB_BLOCK are skipped. */
void zbank_note(int line, int thread, int64_t block, int64_t offset, int bytes, int store) {
  if (block != ZB_BLOCK) return;
  if (thread < 0 || thread >= max_threads || offset % 4 != 0) {
    fprintf(stderr, "shared-banks: thread %d, offset %lld at line %d not modelled\n", thread,
            (long long)offset, line);
    exit(3);
  }
  if (access_count == access_capacity) {
    access_capacity = access_capacity ? 2 * access_capacity : 1 << 16;
    accesses = realloc(accesses, access_capacity * sizeof *accesses);
    if (!accesses) exit(3);
  }
  accesses[access_count++] =
      (access){line, next_occurrence(line, thread), thread, store, offset / 4, bytes / 4};
}

static int by_instruction(const void *pa, const void *pb) {
  const access *a = pa, *b = pb;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  if (a->occurrence != b->occurrence) return a->occurrence < b->occurrence ? -1 : 1;
  if (a->thread / 32 != b->thread / 32) return a->thread / 32 < b->thread / 32 ? -1 : 1;
  return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* Wavefronts of one phase: the most distinct words one bank is asked for. */
static int phase_wavefronts(const access *a, size_t count) {
  int64_t seen[banks][phase_bytes / 4];
  int seen_count[banks] = {0}, most = 0;
  for (size_t i = 0; i < count; i++)
    for (int w = 0; w < a[i].words; w++) {
      int64_t word = a[i].word + w;
      int bank = (int)(word % banks), known = 0;
      for (int k = 0; k < seen_count[bank]; k++) known |= seen[bank][k] == word;
      if (!known && seen_count[bank] < phase_bytes / 4) seen[bank][seen_count[bank]++] = word;
      if (seen_count[bank] > most) most = seen_count[bank];
    }
  return most;
}

typedef struct {
  int line, store, words;
  long instructions, wavefronts, ideal;
} line_total;

/* Wavefronts of one warp instruction (a[0..count), one line, occurrence and warp), split
 * into phases of 128 bytes of threads; *ideal gets the phases that hold any thread. */
static int instruction_wavefronts(const access *a, size_t count, int *ideal) {
  int per_phase = phase_bytes / (4 * a[0].words), total = 0;
  *ideal = 0;
  for (size_t i = 0; i < count;) {
    size_t j = i;
    while (j < count && (a[j].thread % 32) / per_phase == (a[i].thread % 32) / per_phase) j++;
    total += phase_wavefronts(a + i, j - i);
    ++*ideal;
    i = j;
  }
  return total;
}

/* Sums each line's warp instructions, wavefronts and conflict-free wavefronts into totals
 * (one entry a line, in line order); returns how many lines. */
static size_t total_lines(line_total *totals) {
  qsort(accesses, access_count, sizeof *accesses, by_instruction);
  size_t lines = 0;
  for (size_t i = 0; i < access_count;) {
    size_t j = i;
    while (j < access_count && accesses[j].line == accesses[i].line &&
           accesses[j].occurrence == accesses[i].occurrence &&
           accesses[j].thread / 32 == accesses[i].thread / 32)
      j++;
    if (!lines || totals[lines - 1].line != accesses[i].line)
      totals[lines++] =
          (line_total){accesses[i].line, accesses[i].store, accesses[i].words, 0, 0, 0};
    int ideal;
    totals[lines - 1].wavefronts += instruction_wavefronts(accesses + i, j - i, &ideal);
    totals[lines - 1].ideal += ideal;
    totals[lines - 1].instructions++;
    i = j;
  }
  return lines;
}

/* Prints the kernel's totals for loads and stores, then its lines whose wavefronts exceed the
 * conflict-free count (all lines when every_line). */
static void report(const char *kernel, int every_line) {
  line_total *totals = calloc(access_count ? access_count : 1, sizeof *totals);
  if (!totals) exit(3);
  size_t lines = total_lines(totals);
  long sum[2][3] = {{0}};
  for (size_t i = 0; i < lines; i++) {
    sum[totals[i].store][0] += totals[i].instructions;
    sum[totals[i].store][1] += totals[i].wavefronts;
    sum[totals[i].store][2] += totals[i].ideal;
  }
  printf("%s\n", kernel);
  for (int s = 0; s < 2; s++)
    printf("  %-6s %7ld warp instructions %8ld wavefronts (%ld without conflicts, %.2fx)\n",
           s ? "stores" : "loads", sum[s][0], sum[s][1], sum[s][2],
           sum[s][2] ? (double)sum[s][1] / (double)sum[s][2] : 0.0);
  for (size_t i = 0; i < lines; i++)
    if (every_line || totals[i].wavefronts > totals[i].ideal)
      printf("  line %5d %-5s %2d B: %5ld instructions, %6ld wavefronts (%ld, %.2fx)\n",
             totals[i].line, totals[i].store ? "store" : "load", 4 * totals[i].words,
             totals[i].instructions, totals[i].wavefronts, totals[i].ideal,
             (double)totals[i].wavefronts / (double)totals[i].ideal);
  free(totals);
}

#ifdef ZB_SELF_TEST
/* One warp instruction of 32 threads at word(t) with `words` words each: its wavefronts. */
static int pattern(int64_t (*word)(int), int words) {
  access_count = 0;
  for (int t = 0; t < 32; t++) zbank_note(1000 + words, t, 0, 4 * word(t), 4 * words, 0);
  line_total totals[1];
  total_lines(totals);
  return (int)totals[0].wavefronts;
}
static int64_t unit(int t) { return t; }
static int64_t stride2(int t) { return 2 * t; }
static int64_t stride32(int t) { return 32 * t; }
static int64_t same(int t) { return 0 * t; }
static int64_t pitch22(int t) { return 22 * (t / 3) + t % 3; }
static int64_t pairs(int t) { return 2 * t; }
static int64_t pairs_stride16(int t) { return 16 * t; }
static int64_t quads(int t) { return 4 * t; }
static int64_t halves_alike(int t) { return 4 * (t % 16); }

int main(void) {
  static const struct {
    const char *name;
    int64_t (*word)(int);
    int words, want;
  } cases[] = {
      {"4-byte, consecutive", unit, 1, 1},
      {"4-byte, stride 2", stride2, 1, 2},
      {"4-byte, stride 32", stride32, 1, 32},
      {"4-byte, one word", same, 1, 1},
      {"4-byte, rows of 22, 3 a row", pitch22, 1, 2},
      {"8-byte, consecutive", pairs, 2, 2},
      {"8-byte, stride 16 words", pairs_stride16, 2, 16},
      {"8-byte, halves alike, stride 4 words", halves_alike, 2, 4},
      {"16-byte, consecutive", quads, 4, 4},
  };
  int failed = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int got = pattern(cases[i].word, cases[i].words);
    printf("%-32s %2d wavefronts (want %d)\n", cases[i].name, got, cases[i].want);
    failed |= got != cases[i].want;
  }
  printf(failed ? "shared-banks self-test FAILED\n" : "shared-banks self-test passed\n");
  return failed;
}
#else
void ZB_ENTRY(void **args, int64_t block_begin, int64_t block_end, void *scratch);

/* Runs block ZB_BLOCK of the kernel with every pointer argument on a zeroed buffer
 * (addresses of FFT kernels do not depend on data), then reports. */
int main(int argc, char **argv) {
  enum { buffer_bytes = 256 << 20, scratch_bytes = 16 << 20, max_args = 64 };
  void *args[max_args]; /* each points at its argument's value */
  for (int i = 0; i < max_args; i++)
    if (!(args[i] = calloc(1, 64))) return 3;
#define ZB_POINTER(k) (*(void **)args[k] = calloc(1, buffer_bytes))
#define ZB_INT64(k, v) (*(int64_t *)args[k] = (v))
#define ZB_INT32(k, v) (*(int32_t *)args[k] = (v))
#include ZB_ARGS
  void *scratch = calloc(1, scratch_bytes);
  if (!scratch) return 3;
  ZB_ENTRY(args, ZB_BLOCK, ZB_BLOCK + 1, scratch);
  report(argc > 1 ? argv[1] : "kernel", argc > 2 && strcmp(argv[2], "--lines") == 0);
  return 0;
}
#endif
