/* problem.c - turns problem words into a zipfft description. */
#include "problem.h"

#include <stdlib.h>
#include <string.h>

#include "api/error.h"

typedef struct problem {
  zipfft_type type;
  zipfft_precision precision;
  zipfft_direction direction;
  zipfft_placement placement;
  zipfft_backend backend;
  zipfft_storage in_storage, out_storage;
  int rank;
  int64_t lengths[3];
  int64_t batch, istride, idist, ostride, odist;
  double scale;
} problem;

/* Words without a value and the field each one sets. */
typedef struct flag_word {
  const char *word;
  void (*apply)(problem *p);
} flag_word;

static void set_c2c(problem *p) { p->type = ZIPFFT_C2C; }
static void set_r2c(problem *p) { p->type = ZIPFFT_R2C; }
static void set_c2r(problem *p) { p->type = ZIPFFT_C2R; }
static void set_f32(problem *p) { p->precision = ZIPFFT_F32; }
static void set_f64(problem *p) { p->precision = ZIPFFT_F64; }
static void set_fwd(problem *p) { p->direction = ZIPFFT_FORWARD; }
static void set_inv(problem *p) { p->direction = ZIPFFT_INVERSE; }
static void set_inplace(problem *p) { p->placement = ZIPFFT_INPLACE; }
static void set_outofplace(problem *p) { p->placement = ZIPFFT_OUTOFPLACE; }

static const flag_word flags[] = {
    {"c2c", set_c2c}, {"r2c", set_r2c},         {"c2r", set_c2r},
    {"f32", set_f32}, {"f64", set_f64},         {"fwd", set_fwd},
    {"inv", set_inv}, {"inplace", set_inplace}, {"outofplace", set_outofplace},
};

/* Integer-valued words ("n=1024") and where they go. */
typedef struct int_word {
  const char *key;
  size_t offset;
} int_word;

static const int_word ints[] = {

    {"batch", offsetof(problem, batch)}, {"istride", offsetof(problem, istride)},
    {"idist", offsetof(problem, idist)}, {"ostride", offsetof(problem, ostride)},
    {"odist", offsetof(problem, odist)},
};

/* Parses "N" or "N0xN1[xN2]" (row-major, last fastest) into the problem's lengths. */
static int parse_lengths(problem *p, const char *text) {
  p->rank = 0;
  while (p->rank < 3) {
    char *end;
    p->lengths[p->rank++] = strtoll(text, &end, 10);
    if (end == text) return 0;
    if (*end == '\0') return 1;
    if (*end != 'x') return 0;
    text = end + 1;
  }
  return 0;
}

/* Applies one "key=value" word; 0 when the key or value is not understood. */
static int apply_value(problem *p, const char *word) {
  const char *eq = strchr(word, '=');
  size_t key_len = (size_t)(eq - word);
  char *end;
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    if (strlen(ints[i].key) != key_len || strncmp(word, ints[i].key, key_len) != 0) continue;
    long long v = strtoll(eq + 1, &end, 10);
    *(int64_t *)((char *)p + ints[i].offset) = v;
    return *end == '\0' && end != eq + 1;
  }
  if (strncmp(word, "n=", 2) == 0) return parse_lengths(p, eq + 1);
  if (strncmp(word, "scale=", 6) == 0) {
    p->scale = strtod(eq + 1, &end);
    return *end == '\0' && end != eq + 1;
  }
  static const char *const storages[] = {"default", "f16", "bf16"};
  for (int k = 0; k < 3 && strncmp(word, "istorage=", 9) == 0; k++)
    if (strcmp(eq + 1, storages[k]) == 0) return p->in_storage = (zipfft_storage)k, 1;
  for (int k = 0; k < 3 && strncmp(word, "ostorage=", 9) == 0; k++)
    if (strcmp(eq + 1, storages[k]) == 0) return p->out_storage = (zipfft_storage)k, 1;
  static const char *const backends[] = {"auto", "cpu", "cuda"};
  for (int b = 0; strncmp(word, "backend=", 8) == 0 && b < 3; b++)
    if (strcmp(eq + 1, backends[b]) == 0) return p->backend = (zipfft_backend)b, 1;
  return 0;
}

/* Applies one word of either kind; 0 when it is not understood. */
static int apply_word(problem *p, const char *word) {
  if (strchr(word, '=')) return apply_value(p, word);
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
    if (strcmp(word, flags[i].word) == 0) return flags[i].apply(p), 1;
  return 0;
}

/* Creates the description and applies the layout and options. */
static zipfft_status make_desc(const problem *p, zipfft_desc *out) {
  zipfft_desc d;
  zipfft_status s = zipfft_desc_create(&d, p->type, p->precision, p->rank, p->lengths);
  if (s != ZIPFFT_SUCCESS) return s;
  int64_t is = p->istride, os = p->ostride;
  int strided = p->rank == 1; /* istride/ostride describe 1D problems only */
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_direction(d, p->direction);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(d, p->batch);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_layout(d, strided ? &is : NULL, p->idist, strided ? &os : NULL, p->odist);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_placement(d, p->placement);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_scale(d, p->scale);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_storage(d, p->in_storage, p->out_storage);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_backend(d, p->backend, 0);
  if (s != ZIPFFT_SUCCESS)
    zipfft_desc_destroy(d);
  else
    *out = d;
  return s;
}

zipfft_status zipfft_tool_parse_problem(int argc, char **argv, zipfft_desc *out) {
  problem p = {.type = ZIPFFT_C2C,
               .precision = ZIPFFT_F32,
               .direction = ZIPFFT_FORWARD,
               .placement = ZIPFFT_OUTOFPLACE,
               .backend = ZIPFFT_BACKEND_AUTO,
               .batch = 1,
               .istride = 1,
               .ostride = 1,
               .scale = 1.0};
  for (int i = 0; i < argc; i++) {
    /* Several words may come in one argument ("c2c f32 n=64"). */
    char *copy = strdup(argv[i]), *save = NULL;
    for (char *w = copy ? strtok_r(copy, " \t", &save) : NULL; w;
         w = strtok_r(NULL, " \t", &save)) {
      if (!apply_word(&p, w)) {
        zipfft_status s =
            zipfft__fail(ZIPFFT_ERROR_INVALID_ARGUMENT, "problem word '%s' not understood", w);
        free(copy);
        return s;
      }
    }
    free(copy);
  }
  if (p.rank < 1)
    return zipfft__fail(ZIPFFT_ERROR_INVALID_LENGTH, "problem needs n=N or n=N0xN1[xN2]");
  return make_desc(&p, out);
}
