/* test_fuzz_api.c - the public API driven by arbitrary bytes: descriptions, plans, executions and
 * correlation plans on the CPU backend must return known statuses, never crash, and write
 * only the output elements the resolved layout names. A libFuzzer target when built with
 * ZIPFFT_LIBFUZZER (fuzz_api, `make fuzz`); otherwise a CTest program replaying tests/fuzz_corpus
 * and a fixed set of pseudo-random inputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/desc.h"
#include "plan/kernel_spec.h"
#include "test_util.h"

/* A violated invariant: reported and fatal, so that the fuzzer keeps the input. */
#define FUZZ_REQUIRE(cond, ...)                                                \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_api:%d: invariant failed: %s: ", __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* What the inputs reached, so that the replay can show it is not vacuous. */
static struct {
  int plans, executions, corr_plans, corr_executions;
  int corr_statistics, corr_statistics_refused; /* accumulated, or refused: no kernel */
} reached;

/* Largest data a run executes (bytes of input and output together). */
static const size_t max_execute_bytes = (size_t)8 << 20;

/* The input, consumed from the front; reads past its end give zeros. */
typedef struct byte_reader {
  const uint8_t *data;
  size_t size, at;
} byte_reader;

static unsigned next_byte(byte_reader *r) { return r->at < r->size ? r->data[r->at++] : 0; }

/* Extreme values every integer field is tried with now and then. */
static const int64_t extremes[] = {0,         -1,        -7,        INT64_MAX, INT64_MIN,
                                   1LL << 31, 1LL << 58, 1LL << 60, 65537,     (1LL << 40) + 1,
                                   1LL << 33, 3LL << 57};

/* A value: mostly from the palette, sometimes a small number of the input's own, sometimes
 * an extreme. */
static int64_t next_value(byte_reader *r, const int64_t *palette, size_t count) {
  unsigned b = next_byte(r);
  if (b < 200) return palette[b % count];
  if (b < 232) { /* two bytes, low first (read one at a time: C leaves `a | b` unordered) */
    unsigned low = next_byte(r);
    return (int64_t)(low | next_byte(r) << 8);
  }
  return extremes[b % (sizeof extremes / sizeof *extremes)];
}

static const int64_t lengths_palette[] = {1,   2,   3,   4,   5,   6,    7,    8,    9,     12,
                                          16,  17,  21,  31,  32,  37,   47,   61,   64,    97,
                                          100, 128, 255, 256, 257, 1000, 1024, 4099, 16384, 65537};
static const int64_t small_palette[] = {1, 2, 3, 4, 5, 7, 8, 16, 64, 100};
static const int64_t dist_palette[] = {0, 0, 1, 2, 17, 64, 300, 1000, 4096};
static const int64_t corr_palette[] = {1, 2, 4, 5, 8, 12, 16, 17, 31, 32, 37, 64, 100, 128, 256};
static const double scales[] = {1, 0.5, -2, 0, 1e-300, 1e300, NAN, INFINITY};

/* Enumerations: mostly valid values, one bad one (the last). */
static const int type_choices[] = {ZIPFFT_C2C, ZIPFFT_C2C, ZIPFFT_R2C, ZIPFFT_R2C,
                                   ZIPFFT_C2R, ZIPFFT_C2R, 3};
static const int rank_choices[] = {1, 1, 1, 2, 2, 3, 0, 4};
static const int precision_choices[] = {ZIPFFT_F32, ZIPFFT_F32, ZIPFFT_F64, ZIPFFT_F64, 2};
static const int direction_choices[] = {ZIPFFT_FORWARD, ZIPFFT_INVERSE, ZIPFFT_FORWARD,
                                        ZIPFFT_INVERSE, 0};
static const int placement_choices[] = {ZIPFFT_OUTOFPLACE, ZIPFFT_INPLACE, ZIPFFT_INPLACE, 2};
static const int storage_choices[] = {ZIPFFT_STORAGE_DEFAULT, ZIPFFT_STORAGE_F16,
                                      ZIPFFT_STORAGE_BF16, ZIPFFT_STORAGE_DEFAULT, 3};
static const int mode_choices[] = {ZIPFFT_CORRELATE, ZIPFFT_CONVOLVE, ZIPFFT_CORRELATE, 2};
static const int region_choices[] = {ZIPFFT_REGION_FULL, ZIPFFT_REGION_SAME, ZIPFFT_REGION_VALID,
                                     ZIPFFT_REGION_FULL, 3};
#define COUNT(table) (sizeof(table) / sizeof *(table))
#define PICK(r, table) ((table)[next_byte(r) % COUNT(table)])
#define NEXT_VALUE(r, palette) next_value((r), (palette), COUNT(palette))

/* Callback sources: valid for complex or real loads and stores, and broken ones. */
static const char *const callback_sources[] = {
    NULL,
    "ZIPFFT_CALLBACK zcomplex cb(const void *in, long long i, void *u) {"
    " (void)u; return ((const zcomplex *)in)[i]; }",
    "ZIPFFT_CALLBACK zreal cb(const void *in, long long i, void *u) {"
    " (void)u; return ((const zreal *)in)[i]; }",
    "ZIPFFT_CALLBACK void cb(void *out, long long i, zcomplex v, void *u) {"
    " (void)u; ((zcomplex *)out)[i] = v; }",
    "ZIPFFT_CALLBACK void cb(void *out, long long i, zreal v, void *u) {"
    " (void)u; ((zreal *)out)[i] = v; }",
    "this is not C",
    ""};
static const char *const callback_names[] = {"cb", "other", "", NULL};

/* What every call must do: a known status, and a detail exactly when it failed. */
static zipfft_status checked(zipfft_status s, const char *call) {
  const char *detail = zipfft_last_error();
  FUZZ_REQUIRE(strcmp(zipfft_status_name(s), "ZIPFFT_UNKNOWN_STATUS") != 0, "%s returned %d", call,
               (int)s);
  FUZZ_REQUIRE(s != ZIPFFT_ERROR_INTERNAL, "%s: %s", call, detail ? detail : "(null)");
  FUZZ_REQUIRE(detail != NULL && (s == ZIPFFT_SUCCESS) == (detail[0] == '\0'),
               "%s returned %s with detail \"%s\"", call, zipfft_status_name(s),
               detail ? detail : "(null)");
  return s;
}
#define CALL(x) checked((x), #x)

/* The description setters, each taking its values from the input: a and b are four values
 * (strides or extents, and small ones), choice a byte. */
typedef struct setter_input {
  int64_t a[4], b[4];
  unsigned choice;
} setter_input;
typedef void (*setter)(byte_reader *r, zipfft_desc d, const setter_input *v);

static void set_batch(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)v;
  CALL(zipfft_desc_set_batch(d, NEXT_VALUE(r, small_palette)));
}
static void set_direction(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)v;
  CALL(zipfft_desc_set_direction(d, (zipfft_direction)PICK(r, direction_choices)));
}
static void set_layout(byte_reader *r, zipfft_desc d, const setter_input *v) {
  int64_t in_dist = NEXT_VALUE(r, dist_palette), out_dist = NEXT_VALUE(r, dist_palette);
  CALL(zipfft_desc_set_layout(d, v->choice & 1 ? v->b : NULL, in_dist,
                              v->choice & 2 ? v->b + 1 : NULL, out_dist));
}
static void set_placement(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)v;
  CALL(zipfft_desc_set_placement(d, (zipfft_placement)PICK(r, placement_choices)));
}
static void set_scale(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)r;
  CALL(zipfft_desc_set_scale(d, scales[v->choice % COUNT(scales)]));
}
static void set_storage(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)v;
  zipfft_storage in = (zipfft_storage)PICK(r, storage_choices);
  CALL(zipfft_desc_set_storage(d, in, (zipfft_storage)PICK(r, storage_choices)));
}
static void set_input_extent(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)r;
  CALL(zipfft_desc_set_input_extent(d, v->choice & 1 ? v->a : NULL));
}
static void set_output_extent(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)r;
  CALL(zipfft_desc_set_output_extent(d, v->choice & 1 ? v->a : NULL));
}
static void set_load_callback(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)r;
  CALL(zipfft_desc_set_load_callback(d, callback_sources[v->choice % COUNT(callback_sources)],
                                     callback_names[v->choice / 8 % COUNT(callback_names)], NULL));
}
static void set_store_callback(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)r;
  CALL(zipfft_desc_set_store_callback(d, callback_sources[v->choice % COUNT(callback_sources)],
                                      callback_names[v->choice / 8 % COUNT(callback_names)], NULL));
}
static void set_backend(byte_reader *r, zipfft_desc d, const setter_input *v) {
  (void)r;
  CALL(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, v->choice % 16 ? 0 : (int)v->choice - 8));
}

static const setter setters[] = {set_batch,          set_direction,     set_layout,
                                 set_placement,      set_scale,         set_storage,
                                 set_input_extent,   set_output_extent, set_load_callback,
                                 set_store_callback, set_backend};

/* One description setter chosen by the input. */
static void apply_setter(byte_reader *r, zipfft_desc d) {
  setter chosen = PICK(r, setters);
  setter_input v;
  for (int k = 0; k < 4; k++) {
    v.a[k] = NEXT_VALUE(r, lengths_palette);
    v.b[k] = NEXT_VALUE(r, small_palette);
  }
  v.choice = next_byte(r);
  chosen(r, d, &v);
}

/* Bytes of one element of a side (0 input, 1 output) of a planned description. */
static size_t element_bytes(const struct zipfft_desc_s *d, int out) {
  zipfft_storage storage = out ? d->out_storage : d->in_storage;
  size_t complex_bytes = zipfft__complex_bytes(d->precision, storage);
  int real = out ? d->type == ZIPFFT_C2R : d->type == ZIPFFT_R2C;
  return real ? complex_bytes / 2 : complex_bytes;
}

/* Element offsets of a side: calls visit(offset) for every element of every transform. */
typedef struct side_shape {
  int rank;
  int64_t batch, dist, strides[ZIPFFT__MAX_RANK], extents[ZIPFFT__MAX_RANK];
} side_shape;

static side_shape side_of(const struct zipfft_desc_s *d, const zipfft__layout *l, int out) {
  side_shape s = {.rank = d->rank, .batch = d->batch, .dist = out ? l->out_dist : l->in_dist};
  zipfft__array_extents(d, out, s.extents);
  for (int k = 0; k < d->rank; k++) s.strides[k] = out ? l->out_strides[k] : l->in_strides[k];
  return s;
}

/* One past the largest element offset of a side, or -1 when it exceeds limit elements. */
static int64_t side_span(const side_shape *s, int64_t limit) {
  int64_t last = 0;
  for (int k = 0; k < s->rank; k++) {
    if (s->extents[k] > limit || s->strides[k] > limit) return -1;
    last += (s->extents[k] - 1) * s->strides[k];
  }
  if (s->batch > limit || s->dist > limit) return -1;
  last += (s->batch - 1) * s->dist;
  return last + 1 > limit ? -1 : last + 1;
}

/* Marks every element of a side in mask (one byte per element offset). */
static void mark_side(const side_shape *s, unsigned char *mask) {
  int64_t index[ZIPFFT__MAX_RANK] = {0};
  for (int64_t t = 0; t < s->batch; t++) {
    for (;;) {
      int64_t at = t * s->dist;
      for (int k = 0; k < s->rank; k++) at += index[k] * s->strides[k];
      mask[at] = 1;
      int k = s->rank - 1;
      while (k >= 0 && ++index[k] == s->extents[k]) index[k--] = 0;
      if (k < 0) break;
    }
  }
}

/* Writes small values into every element a side names (the rest keeps its poison). */
static void fill_side(unsigned char *data, const unsigned char *mask, int64_t span, size_t element,
                      const struct zipfft_desc_s *d, zipfft_storage storage) {
  int parts = element == zipfft__complex_bytes(d->precision, storage) ? 2 : 1;
  size_t part = element / (size_t)parts;
  for (int64_t at = 0; at < span; at++) {
    if (!mask[at]) continue;
    for (int c = 0; c < parts; c++) {
      double v = (double)((at * 7919 + c * 31) % 13 - 6) / 8.0;
      unsigned char *to = data + (size_t)at * element + (size_t)c * part;
      if (part == 2) {
        zt_put16(to, 0, storage, v);
      } else if (part == 4) {
        float f = (float)v;
        memcpy(to, &f, 4);
      } else {
        memcpy(to, &v, 8);
      }
    }
  }
}

/* Offset of the first byte in data[0, bytes) outside the elements mask names that no longer
 * holds the poison byte, or -1. */
static int64_t stray_write(const unsigned char *data, size_t bytes, const unsigned char *mask,
                           size_t element, unsigned char poison) {
  for (size_t i = 0; i < bytes; i++)
    if (!mask[i / element] && data[i] != poison) return (int64_t)i;
  return -1;
}

/* Whether an out-of-place plan may overwrite its input's elements (zipfft.h, zipfft_type):
 * C2R of rank 2 and 3, unless its input is 16-bit and its output of another type. */
static int input_is_scratch(const struct zipfft_desc_s *d) {
  int narrow_input = d->in_storage != ZIPFFT_STORAGE_DEFAULT && d->out_storage != d->in_storage;
  return d->type == ZIPFFT_C2R && d->rank > 1 && !narrow_input;
}

/* Poison of the buffers' bytes that no element covers. */
enum { poison_byte = 0xA5 };

typedef struct run_buffers {
  zt_buffer in, out;
  unsigned char *in_mask, *out_mask, *snapshot;
} run_buffers;

static void free_buffers(run_buffers *b) {
  zt_buffer_free(&b->in);
  if (b->out.data) zt_buffer_free(&b->out);
  free(b->in_mask);
  free(b->out_mask);
  free(b->snapshot);
}

/* Runs a plan once on poisoned buffers sized by its resolved layout, where they are small
 * enough: the call must succeed, the guard bands hold, bytes that no output element covers
 * keep their poison (in place: no element of either side), and an out-of-place input stays
 * as it was (C2R of rank 2 and 3, whose input is scratch, may change its elements only). */
static void execute_plan(zipfft_plan p, const struct zipfft_desc_s *d) {
  zipfft__layout layout;
  FUZZ_REQUIRE(zipfft__desc_layout(d, &layout) == ZIPFFT_SUCCESS, "a planned layout: %s",
               zipfft_last_error());
  side_shape in = side_of(d, &layout, 0), out = side_of(d, &layout, 1);
  size_t in_element = element_bytes(d, 0), out_element = element_bytes(d, 1);
  int64_t limit = (int64_t)(max_execute_bytes / 4);
  int64_t in_span = side_span(&in, limit), out_span = side_span(&out, limit);
  if (in_span < 0 || out_span < 0) return;
  size_t in_bytes = (size_t)in_span * in_element, out_bytes = (size_t)out_span * out_element;
  if (in_bytes + out_bytes > max_execute_bytes) return;
  int in_place = d->placement == ZIPFFT_INPLACE;
  size_t shared = in_bytes > out_bytes ? in_bytes : out_bytes;
  run_buffers b = {.in = zt_buffer_alloc(in_place ? shared : in_bytes, 0)};
  if (!in_place) b.out = zt_buffer_alloc(out_bytes, 0);
  b.in_mask = calloc((size_t)in_span, 1);
  b.out_mask = calloc((size_t)(in_place ? shared / out_element + 1 : (size_t)out_span), 1);
  b.snapshot = malloc(zt_buffer_span(&b.in));
  FUZZ_REQUIRE(b.in.data && (in_place || b.out.data) && b.in_mask && b.out_mask && b.snapshot,
               "no memory for %zu + %zu bytes", in_bytes, out_bytes);
  zt_buffer_poison(&b.in, 8);
  memset(b.in.data, poison_byte, b.in.bytes);
  mark_side(&in, b.in_mask);
  fill_side(b.in.data, b.in_mask, in_span, in_element, d, d->in_storage);
  if (!in_place) {
    zt_buffer_poison(&b.out, 8);
    memset(b.out.data, poison_byte, b.out.bytes);
  }
  zt_buffer_copy_span(&b.in, b.snapshot);
  mark_side(&out, b.out_mask);
  zipfft_status s = CALL(zipfft_execute(p, b.in.data, in_place ? NULL : b.out.data, NULL));
  FUZZ_REQUIRE(s == ZIPFFT_SUCCESS, "execute: %s", zipfft_last_error());
  reached.executions++;
  if (in_place) {
    /* Bytes of neither side: an input element's bytes may change, so mark them as output. */
    for (int64_t at = 0; at < in_span; at++)
      if (b.in_mask[at])
        for (size_t i = (size_t)at * in_element; i < (size_t)(at + 1) * in_element; i++)
          b.out_mask[i / out_element] = 1;
    int64_t stray = stray_write(b.in.data, b.in.bytes, b.out_mask, out_element, poison_byte);
    FUZZ_REQUIRE(stray < 0, "in place: byte %lld of no element changed", (long long)stray);
    FUZZ_REQUIRE(zt_buffer_guards_intact(&b.in), "in place: a guard band changed");
  } else {
    int64_t stray = stray_write(b.out.data, b.out.bytes, b.out_mask, out_element, poison_byte);
    FUZZ_REQUIRE(stray < 0, "output byte %lld of no element changed", (long long)stray);
    FUZZ_REQUIRE(zt_buffer_guards_intact(&b.out), "an output guard band changed");
    if (input_is_scratch(d)) {
      stray = stray_write(b.in.data, b.in.bytes, b.in_mask, in_element, poison_byte);
      FUZZ_REQUIRE(stray < 0, "scratch input byte %lld of no element changed", (long long)stray);
    } else {
      FUZZ_REQUIRE(zt_buffer_span_equals(&b.in, b.snapshot), "the input changed");
    }
    FUZZ_REQUIRE(zt_buffer_guards_intact(&b.in), "an input guard band changed");
  }
  free_buffers(&b);
}

/* A description built from the input, planned, printed and, when small, executed. */
static void fuzz_plan(byte_reader *r) {
  int64_t lengths[4];
  for (int k = 0; k < 4; k++) lengths[k] = NEXT_VALUE(r, lengths_palette);
  int rank = PICK(r, rank_choices);
  zipfft_type type = (zipfft_type)PICK(r, type_choices);
  zipfft_desc d = (zipfft_desc)&d, before = d;
  zipfft_status s = CALL(
      zipfft_desc_create(&d, type, (zipfft_precision)PICK(r, precision_choices), rank, lengths));
  if (s != ZIPFFT_SUCCESS) {
    FUZZ_REQUIRE(d == before, "a failed zipfft_desc_create changed the handle");
    return;
  }
  CALL(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  for (unsigned ops = next_byte(r) % 8; ops > 0; ops--) apply_setter(r, d);
  zipfft_plan p = (zipfft_plan)&p, unset = p;
  s = CALL(zipfft_plan_create(&p, d));
  if (s != ZIPFFT_SUCCESS) {
    FUZZ_REQUIRE(p == unset, "a failed zipfft_plan_create changed the handle");
    /* Only a user's callback may fail to compile: generated code always must. */
    int callbacks = d->load_callback.source != NULL || d->store_callback.source != NULL;
    FUZZ_REQUIRE(callbacks || (s != ZIPFFT_ERROR_CPU_COMPILER && s != ZIPFFT_ERROR_COMPILE_FAILED),
                 "generated kernels did not compile: %s", zipfft_last_error());
  } else {
    reached.plans++;
    static char text[1 << 16];
    size_t needed = 0, lengths_of_print[] = {0, 1, 40, sizeof text};
    size_t len = lengths_of_print[next_byte(r) % 4];
    CALL(zipfft_plan_print(p, len ? text : NULL, len, &needed));
    FUZZ_REQUIRE(needed > 0 && (len == 0 || strlen(text) < len), "print: needed %zu", needed);
    size_t workspace = 0;
    zipfft_backend backend = ZIPFFT_BACKEND_AUTO;
    CALL(zipfft_plan_workspace_size(p, &workspace));
    CALL(zipfft_plan_backend(p, &backend));
    FUZZ_REQUIRE(backend == ZIPFFT_BACKEND_CPU, "backend %d", (int)backend);
    if (next_byte(r) % 4 != 0) execute_plan(p, d);
    CALL(zipfft_plan_destroy(p));
  }
  CALL(zipfft_desc_destroy(d));
}

/* Product of the first rank values, or -1 beyond limit. */
static int64_t product(const int64_t *v, int rank, int64_t limit) {
  int64_t total = 1;
  for (int k = 0; k < rank; k++) {
    if (v[k] < 1 || v[k] > limit || total > limit / v[k]) return -1;
    total *= v[k];
  }
  return total;
}

/* Runs a correlation plan on small random data: filter, execution, statistics. */
static void execute_corr(byte_reader *r, zipfft_corr c, zipfft_precision prec, int rank,
                         const int64_t *lengths, const int64_t *signal_lengths, int64_t batch) {
  int64_t out_lengths[3] = {0}, fft_lengths[3] = {0};
  CALL(zipfft_corr_output_lengths(c, out_lengths));
  CALL(zipfft_corr_fft_lengths(c, fft_lengths));
  int64_t limit = 1 << 16, filter_n = product(lengths, rank, limit);
  int64_t signal_n = product(signal_lengths, rank, limit),
          out_n = product(out_lengths, rank, limit);
  if (filter_n < 0 || signal_n < 0 || out_n < 0) return;
  size_t real = prec == ZIPFFT_F64 ? 8 : 4, count = (size_t)(batch < 16 ? batch : 16);
  unsigned char *filter = calloc((size_t)filter_n, real);
  unsigned char *signals = calloc((size_t)signal_n * count, real);
  float *maps = calloc((size_t)out_n, sizeof(float));
  int32_t *best = calloc((size_t)out_n, sizeof(int32_t));
  zt_buffer out = zt_buffer_alloc((size_t)out_n * count * real, 0);
  FUZZ_REQUIRE(filter && signals && maps && best && out.data, "no memory");
  for (int64_t i = 0; i < filter_n; i++)
    filter[i * (int64_t)real + real - 1] = (unsigned char)(i % 3);
  for (size_t i = 0; i < (size_t)signal_n * count; i++) signals[i * real + real - 1] = 0x3f;
  zt_buffer_poison(&out, real);
  zipfft_status s = CALL(zipfft_corr_execute(c, signals, (int64_t)count, out.data, NULL));
  FUZZ_REQUIRE(s == ZIPFFT_ERROR_INVALID_ARGUMENT, "execute before a filter: %s",
               zipfft_status_name(s));
  s = CALL(zipfft_corr_set_filter(c, filter));
  FUZZ_REQUIRE(s == ZIPFFT_SUCCESS, "set_filter: %s", zipfft_last_error());
  unsigned choice = next_byte(r);
  int64_t asked = choice % 8 == 0 ? 0 : choice % 8 == 1 ? batch + 1 : 1 + (int64_t)(choice % count);
  s = CALL(zipfft_corr_execute(c, signals, asked, out.data, NULL));
  FUZZ_REQUIRE((s == ZIPFFT_SUCCESS) == (asked >= 1 && asked <= batch), "execute %lld of %lld: %s",
               (long long)asked, (long long)batch, zipfft_status_name(s));
  reached.corr_executions += s == ZIPFFT_SUCCESS;
  FUZZ_REQUIRE(zt_buffer_guards_intact(&out), "a correlation output guard band changed");
  if (next_byte(r) % 2) {
    /* A last axis of Rader's or Bluestein's method has no statistics kernel (zipfft.h): reset
     * and accumulate refuse it, and finalize, never reset, too. */
    s = CALL(zipfft_corr_stats_reset(c, NULL));
    FUZZ_REQUIRE(s == ZIPFFT_SUCCESS || s == ZIPFFT_ERROR_UNSUPPORTED_LENGTH, "reset: %s",
                 zipfft_last_error());
    int refused = s != ZIPFFT_SUCCESS;
    s = CALL(zipfft_corr_accumulate(c, signals, (int64_t)count, 0, NULL));
    FUZZ_REQUIRE(s == (refused ? ZIPFFT_ERROR_UNSUPPORTED_LENGTH : ZIPFFT_SUCCESS),
                 "accumulate after a reset that gave %s: %s", refused ? "UNSUPPORTED" : "SUCCESS",
                 zipfft_last_error());
    reached.corr_statistics += !refused;
    reached.corr_statistics_refused += refused;
    s = CALL(zipfft_corr_finalize(c, maps, best, NULL, NULL, NULL));
    FUZZ_REQUIRE(s == (refused ? ZIPFFT_ERROR_INVALID_ARGUMENT : ZIPFFT_SUCCESS), "finalize: %s",
                 zipfft_last_error());
  }
  zt_buffer_free(&out);
  free(filter);
  free(signals);
  free(maps);
  free(best);
}

/* A correlation plan built from the input. */
static void fuzz_corr(byte_reader *r) {
  int64_t lengths[4], signal_lengths[4];
  for (int k = 0; k < 4; k++) {
    lengths[k] = NEXT_VALUE(r, corr_palette);
    signal_lengths[k] = next_byte(r) % 4 ? 1 + lengths[k] / 2 : NEXT_VALUE(r, small_palette);
  }
  /* One field at a time: C leaves an initializer list's evaluations unordered. */
  zipfft_corr_config config = {.backend = ZIPFFT_BACKEND_CPU};
  config.mode = (zipfft_corr_mode)PICK(r, mode_choices);
  config.region = (zipfft_corr_region)PICK(r, region_choices);
  config.spectrum_storage = (zipfft_storage)PICK(r, storage_choices);
  config.intermediate_storage = (zipfft_storage)PICK(r, storage_choices);
  int rank = PICK(r, rank_choices);
  zipfft_precision prec = (zipfft_precision)PICK(r, precision_choices);
  int64_t batch = NEXT_VALUE(r, small_palette);
  zipfft_corr c = (zipfft_corr)&c, unset = c;
  zipfft_status s = CALL(zipfft_corr_create(&c, prec, rank, lengths, signal_lengths, batch,
                                            next_byte(r) % 8 ? &config : NULL));
  if (s != ZIPFFT_SUCCESS) {
    FUZZ_REQUIRE(c == unset, "a failed zipfft_corr_create changed the handle");
    return;
  }
  reached.corr_plans++;
  zipfft_backend backend = ZIPFFT_BACKEND_AUTO;
  CALL(zipfft_corr_backend(c, &backend));
  /* A NULL configuration means AUTO, CUDA on a GPU machine: the host buffers are for CPU. */
  if (backend == ZIPFFT_BACKEND_CPU) execute_corr(r, c, prec, rank, lengths, signal_lengths, batch);
  CALL(zipfft_corr_destroy(c));
}

/* One input: its first byte picks a plan (3 in 5) or a correlation plan. */
static void fuzz_one(const uint8_t *data, size_t size) {
  byte_reader r = {data, size, 0};
  if (next_byte(&r) % 5 >= 3)
    fuzz_corr(&r);
  else
    fuzz_plan(&r);
}

/* Settings for every run: kernels compiled fast, plans held to a small memory. */
static void fuzz_setup(void) {
  setenv("ZIPFFT_MEMORY_LIMIT", "268435456", 0);
  setenv("ZIPFFT_CFLAGS", "-O0 -DZIPFFT_CHECK_ALIGNMENT", 0);
}

#ifdef ZIPFFT_LIBFUZZER
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_setup();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_one(data, size);
  return 0;
}
#else
#include <dirent.h>
#include <sys/stat.h>

/* Reads a whole file; NULL when it cannot. */
static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *data = malloc(1 << 16);
  *size = data ? fread(data, 1, 1 << 16, f) : 0;
  fclose(f);
  return data;
}

/* Replays one file; returns 1 when it ran. */
static int replay(const char *path) {
  size_t size = 0;
  uint8_t *data = read_file(path, &size);
  if (!data) return 0;
  fuzz_one(data, size);
  free(data);
  return 1;
}

/* Replays every regular file of a directory; returns how many ran, -1 when it cannot be
 * read. */
static int replay_directory(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int ran = 0;
  struct dirent *entry;
  while ((entry = readdir(d)) != NULL) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
    if (entry->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) ran += replay(path);
  }
  closedir(d);
  return ran;
}

/* Inputs of pseudo-random bytes (xorshift64 from a fixed seed). */
static int replay_random(int count) {
  uint64_t state = 0x2545f4914f6cdd1dull;
  uint8_t data[96];
  for (int i = 0; i < count; i++) {
    for (size_t k = 0; k < sizeof data; k++) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      data[k] = (uint8_t)(state >> 56);
    }
    fuzz_one(data, sizeof data);
  }
  return count;
}

/* With arguments: replays those files. Without: the corpus, then the random inputs. Any
 * broken invariant aborts. */
int main(int argc, char **argv) {
  fuzz_setup();
  int ran = 0;
  for (int i = 1; i < argc; i++) ran += replay(argv[i]);
  if (argc == 1) {
    int kept = replay_directory(ZIPFFT_FUZZ_CORPUS);
    if (kept < 1) {
      printf("fuzz_api: no inputs in %s\n", ZIPFFT_FUZZ_CORPUS);
      return 1;
    }
    ran += kept + replay_random(400);
  }
  printf(
      "fuzz_api: %d inputs, every invariant held: %d plans (%d executed), %d correlation "
      "plans (%d executed, %d accumulated, %d without a statistics kernel)\n",
      ran, reached.plans, reached.executions, reached.corr_plans, reached.corr_executions,
      reached.corr_statistics, reached.corr_statistics_refused);
  if (argc > 1) return ran > 0 ? 0 : 1;
  /* Not vacuous: the fixed inputs must reach every part. */
  int reach = reached.executions >= 20 && reached.corr_executions >= 5;
  if (!reach) printf("fuzz_api: fewer than 20 executions or 5 correlation runs\n");
  return reach ? 0 : 1;
}
#endif
