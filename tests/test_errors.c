/* test_errors.c - bad arguments give the documented status and a detail naming the value,
 * and never crash, print or modify the caller's memory. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "api/desc.h"
#include "api/error.h"
#include "backend/cuda_api.h"
#include "device.h"
#include "reference.h"
#include "test_util.h"

/* Captures what the library writes to stdout/stderr while a call runs. */
typedef struct quiet {
  FILE *sink;
  int saved_out, saved_err;
} quiet;

/* Which description setter a table row calls, with which arguments. */
typedef enum setter_kind {
  SET_DIRECTION,
  SET_BATCH,
  SET_LAYOUT,
  SET_PLACEMENT,
  SET_SCALE,
  SET_BACKEND
} setter_kind;

typedef struct setter_case {
  setter_kind kind;
  int64_t a, b, c, e; /* value (and device); layout: in stride, in dist, out stride, out dist */
  double scale;
  zipfft_status expect;
  const char *value; /* text the detail must contain, or NULL */
} setter_case;

static int cases;
static char where[64]; /* table row being checked, printed with failures ("" outside) */
static char sentinel_storage[2];

/* Redirects stdout and stderr into a temporary file. */
static void quiet_begin(quiet *q) {
  fflush(stdout);
  fflush(stderr);
  q->sink = tmpfile();
  q->saved_out = dup(1);
  q->saved_err = dup(2);
  if (!q->sink || q->saved_out < 0 || q->saved_err < 0) exit(2);
  dup2(fileno(q->sink), 1);
  dup2(fileno(q->sink), 2);
}

/* Restores stdout and stderr; returns the number of bytes written meanwhile and shows
 * them. */
static long quiet_end(quiet *q) {
  char text[256];
  fflush(stdout);
  fflush(stderr);
  dup2(q->saved_out, 1);
  dup2(q->saved_err, 2);
  close(q->saved_out);
  close(q->saved_err);
  long size = lseek(fileno(q->sink), 0, SEEK_END);
  if (size > 0) {
    lseek(fileno(q->sink), 0, SEEK_SET);
    size_t got = fread(text, 1, sizeof text - 1, q->sink);
    text[got] = '\0';
    fprintf(stderr, "the library printed: %s\n", text);
  }
  fclose(q->sink);
  return size;
}

/* Case-insensitive strstr. */
static int contains(const char *hay, const char *needle) {
  for (; *hay; hay++) {
    size_t i = 0;
    while (needle[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
    if (!needle[i]) return 1;
  }
  return !*needle;
}

/* Checks one call's outcome: expected status, nothing printed, and a detail that is empty
 * on success and otherwise non-empty and containing value (when given). */
static void expect_done(quiet *q, zipfft_status got, const char *what, int line,
                        zipfft_status expected, const char *value) {
  char detail[512];
  snprintf(detail, sizeof detail, "%s", zipfft_last_error());
  long printed = quiet_end(q);
  cases++;
  ZT_CHECK(got == expected, "line %d %s: %s returned %s, expected %s (%s)", line, where, what,
           zipfft_status_name(got), zipfft_status_name(expected), detail);
  ZT_CHECK(printed == 0, "line %d %s: %s printed %ld bytes", line, where, what, printed);
  if (expected == ZIPFFT_SUCCESS) {
    ZT_CHECK(detail[0] == '\0', "line %d %s: %s succeeded but left the detail \"%s\"", line, where,
             what, detail);
    return;
  }
  ZT_CHECK(detail[0] != '\0', "line %d %s: %s failed without a detail", line, where, what);
  if (value)
    ZT_CHECK(contains(detail, value), "line %d %s: %s: detail \"%s\" does not contain \"%s\"", line,
             where, what, detail, value);
}

/* Runs a call with output captured and checks it with expect_done. */
#define EXPECT(call, expected, value)                           \
  do {                                                          \
    quiet q_;                                                   \
    quiet_begin(&q_);                                           \
    zipfft_status s_ = (call);                                  \
    expect_done(&q_, s_, #call, __LINE__, (expected), (value)); \
  } while (0)

/* A sentinel handle that a failed create must leave in place. */
static void *sentinel(void) { return sentinel_storage; }

/* zipfft_desc_create: every bad argument, and *d untouched on failure. */
static void check_desc_create(void) {
  static const struct {
    int null_d, null_lengths, rank;
    int type, prec;
    int64_t lengths[4];
    zipfft_status expect;
    const char *value;
  } rows[] = {{1, 0, 1, ZIPFFT_C2C, ZIPFFT_F32, {8}, ZIPFFT_ERROR_NULL_POINTER, "d is NULL"},
              {0, 0, 1, 7, ZIPFFT_F32, {8}, ZIPFFT_ERROR_INVALID_TYPE, "7"},
              {0, 0, 1, ZIPFFT_C2C, 9, {8}, ZIPFFT_ERROR_INVALID_PRECISION, "9"},
              {0, 0, 0, ZIPFFT_C2C, ZIPFFT_F32, {8}, ZIPFFT_ERROR_INVALID_RANK, "0"},
              {0, 0, 4, ZIPFFT_C2C, ZIPFFT_F32, {8, 8, 8, 8}, ZIPFFT_ERROR_INVALID_RANK, "4"},
              {0, 1, 1, ZIPFFT_C2C, ZIPFFT_F32, {8}, ZIPFFT_ERROR_NULL_POINTER, "lengths is NULL"},
              {0, 0, 1, ZIPFFT_C2C, ZIPFFT_F32, {0}, ZIPFFT_ERROR_INVALID_LENGTH, "lengths[0] = 0"},
              {0, 0, 1, ZIPFFT_C2C, ZIPFFT_F64, {-5}, ZIPFFT_ERROR_INVALID_LENGTH, "-5"},
              {0, 0, 3, ZIPFFT_C2C, ZIPFFT_F32, {4, -5, 4}, ZIPFFT_ERROR_INVALID_LENGTH, "-5"}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    zipfft_desc d = sentinel();
    snprintf(where, sizeof where, "(desc_create row %zu)", i);
    EXPECT(zipfft_desc_create(rows[i].null_d ? NULL : &d, (zipfft_type)rows[i].type,
                              (zipfft_precision)rows[i].prec, rows[i].rank,
                              rows[i].null_lengths ? NULL : rows[i].lengths),
           rows[i].expect, rows[i].value);
    ZT_CHECK(d == sentinel(), "desc_create row %zu changed *d on failure", i);
  }
  where[0] = '\0';
}

/* Calls the setter of a table row on d. */
static zipfft_status apply_setter(zipfft_desc d, const setter_case *c) {
  switch (c->kind) {
    case SET_DIRECTION:
      return zipfft_desc_set_direction(d, (zipfft_direction)c->a);
    case SET_BATCH:
      return zipfft_desc_set_batch(d, c->a);
    case SET_LAYOUT:
      return zipfft_desc_set_layout(d, &c->a, c->b, &c->c, c->e);
    case SET_PLACEMENT:
      return zipfft_desc_set_placement(d, (zipfft_placement)c->a);
    case SET_SCALE:
      return zipfft_desc_set_scale(d, c->scale);
    case SET_BACKEND:
      return zipfft_desc_set_backend(d, (zipfft_backend)c->a, (int)c->b);
  }
  return ZIPFFT_ERROR_INTERNAL;
}

/* Setters: each bad value fails with its status; the description stays usable; every
 * setter rejects a NULL description. */
static void check_setters(void) {
  static const setter_case bad[] = {
      {SET_DIRECTION, 0, 0, 0, 0, 0, ZIPFFT_ERROR_INVALID_DIRECTION, "0"},
      {SET_BATCH, 0, 0, 0, 0, 0, ZIPFFT_ERROR_INVALID_BATCH, "0"},
      {SET_BATCH, -3, 0, 0, 0, 0, ZIPFFT_ERROR_INVALID_BATCH, "-3"},
      {SET_LAYOUT, 0, 0, 1, 0, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "in_strides[0] = 0"},
      {SET_LAYOUT, -2, 0, 1, 0, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "-2"},
      {SET_LAYOUT, 1, 0, 0, 0, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "out_strides[0] = 0"},
      {SET_LAYOUT, 1, 0, -2, 0, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "-2"},
      {SET_LAYOUT, 1, -1, 1, 0, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "in_dist = -1"},
      {SET_LAYOUT, 1, 0, 1, -1, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "out_dist = -1"},
      {SET_PLACEMENT, 5, 0, 0, 0, 0, ZIPFFT_ERROR_INVALID_PLACEMENT, "5"},
      {SET_SCALE, 0, 0, 0, 0, NAN, ZIPFFT_ERROR_INVALID_SCALE, "nan"},
      {SET_SCALE, 0, 0, 0, 0, INFINITY, ZIPFFT_ERROR_INVALID_SCALE, "inf"},
      /* finite, but not an fp32 (the F32 kernel's literal would be infinite) */
      {SET_SCALE, 0, 0, 0, 0, -1e39, ZIPFFT_ERROR_INVALID_SCALE, "-1e+39"},
      {SET_BACKEND, 9, 0, 0, 0, 0, ZIPFFT_ERROR_INVALID_BACKEND, "9"},
      {SET_BACKEND, ZIPFFT_BACKEND_CPU, -1, 0, 0, 0, ZIPFFT_ERROR_INVALID_BACKEND, "-1"}};
  static const setter_case good[] = {
      /* indexed by setter_kind */
      {SET_DIRECTION, ZIPFFT_INVERSE, 0, 0, 0, 0, ZIPFFT_SUCCESS, NULL},
      {SET_BATCH, 2, 0, 0, 0, 0, ZIPFFT_SUCCESS, NULL},
      {SET_LAYOUT, 1, 8, 1, 8, 0, ZIPFFT_SUCCESS, NULL},
      {SET_PLACEMENT, ZIPFFT_OUTOFPLACE, 0, 0, 0, 0, ZIPFFT_SUCCESS, NULL},
      {SET_SCALE, 0, 0, 0, 0, 0.5, ZIPFFT_SUCCESS, NULL},
      {SET_BACKEND, ZIPFFT_BACKEND_CPU, 0, 0, 0, 0, ZIPFFT_SUCCESS, NULL}};
  int64_t n = 8;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(where, sizeof where, "(bad setter row %zu)", i);
    struct zipfft_desc_s before;
    memcpy(&before, d, sizeof before);
    EXPECT(apply_setter(d, &bad[i]), bad[i].expect, bad[i].value);
    ZT_CHECK(memcmp(&before, d, sizeof before) == 0, "bad setter row %zu changed the description",
             i);
    EXPECT(apply_setter(d, &good[bad[i].kind]), ZIPFFT_SUCCESS, NULL); /* clears the detail */
  }
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    snprintf(where, sizeof where, "(NULL description, setter row %zu)", i);
    EXPECT(apply_setter(NULL, &good[i]), ZIPFFT_ERROR_NULL_POINTER, "desc is NULL");
  }
  where[0] = '\0';
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_SUCCESS, NULL); /* still valid after failures */
  zipfft_plan_destroy(p);
  /* The largest scales each precision takes compile into their kernels. */
  EXPECT(zipfft_desc_set_scale(d, FLT_MAX), ZIPFFT_SUCCESS, NULL);
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_SUCCESS, NULL);
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  EXPECT(zipfft_desc_set_scale(d, 1e300), ZIPFFT_SUCCESS, NULL);
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_SUCCESS, NULL);
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
}

/* The layouts plan-creation rows ask for, each set by its function in layout_setters. */
typedef enum plan_layout {
  LAYOUT_DEFAULT,
  LAYOUT_OVERLAPPING_OUTPUT,     /* out stride 1, distance 3: the batch's outputs overlap */
  LAYOUT_IN_PLACE_DIFFERENT,     /* in place with the input layout unlike the output one */
  LAYOUT_R2C_UNPADDED,           /* in-place R2C whose real rows are not padded */
  LAYOUT_HUGE_OUT_STRIDE,        /* out stride INT64_MAX */
  LAYOUT_C2R_ROWS_OVERLAP,       /* C2R of rank 2 whose input rows are 2 apart */
  LAYOUT_C2R_COMPLEX_ROWS_SHORT, /* in-place C2R whose complex rows are n/2 apart */
  LAYOUT_R2C_2D_UNPADDED,        /* in-place R2C of rank 2 whose real rows are n apart */
  LAYOUT_C2R_UNPADDED            /* in-place C2R whose real rows are n apart */
} plan_layout;

/* Plan-creation rows: a description and the status its plan must get. */
typedef struct plan_case {
  int type, rank;
  int64_t n, batch;
  plan_layout layout;
  int cuda; /* 1: ask for the CUDA backend (checked only where the driver is missing) */
  zipfft_status expect;
  const char *value;
} plan_case;

/* Sets d in place after a layout was set (s its status). */
static zipfft_status in_place(zipfft_desc d, zipfft_status s) {
  return s == ZIPFFT_SUCCESS ? zipfft_desc_set_placement(d, ZIPFFT_INPLACE) : s;
}

static zipfft_status layout_overlapping_output(zipfft_desc d, int64_t n) {
  (void)n;
  return zipfft_desc_set_layout(d, NULL, 0, &(int64_t){1}, 3);
}

static zipfft_status layout_in_place_different(zipfft_desc d, int64_t n) {
  return in_place(d, zipfft_desc_set_layout(d, &(int64_t){1}, n, &(int64_t){2}, 2 * n));
}

static zipfft_status layout_r2c_unpadded(zipfft_desc d, int64_t n) {
  return in_place(d, zipfft_desc_set_layout(d, &(int64_t){1}, n, &(int64_t){1}, n / 2 + 1));
}

static zipfft_status layout_huge_out_stride(zipfft_desc d, int64_t n) {
  (void)n;
  return zipfft_desc_set_layout(d, NULL, 0, &(int64_t){INT64_MAX}, 0);
}

static zipfft_status layout_c2r_rows_overlap(zipfft_desc d, int64_t n) {
  (void)n;
  return zipfft_desc_set_layout(d, (int64_t[]){2, 1}, 0, NULL, 0);
}

/* Row r's last (Nyquist) input value is row r+1's first. */
static zipfft_status layout_c2r_complex_rows_short(zipfft_desc d, int64_t n) {
  return in_place(d, zipfft_desc_set_layout(d, &(int64_t){1}, n / 2, &(int64_t){1}, n));
}

static zipfft_status layout_r2c_2d_unpadded(zipfft_desc d, int64_t n) {
  int64_t in_strides[2] = {n, 1}, out_strides[2] = {n / 2 + 1, 1};
  return in_place(d, zipfft_desc_set_layout(d, in_strides, n * n, out_strides, n * (n / 2 + 1)));
}

static zipfft_status layout_c2r_unpadded(zipfft_desc d, int64_t n) {
  return in_place(d, zipfft_desc_set_layout(d, &(int64_t){1}, n / 2 + 1, &(int64_t){1}, n));
}

/* The setter of each plan_layout (NULL: the description's defaults). */
static zipfft_status (*const layout_setters[])(zipfft_desc, int64_t) = {
    [LAYOUT_DEFAULT] = NULL,
    [LAYOUT_OVERLAPPING_OUTPUT] = layout_overlapping_output,
    [LAYOUT_IN_PLACE_DIFFERENT] = layout_in_place_different,
    [LAYOUT_R2C_UNPADDED] = layout_r2c_unpadded,
    [LAYOUT_HUGE_OUT_STRIDE] = layout_huge_out_stride,
    [LAYOUT_C2R_ROWS_OVERLAP] = layout_c2r_rows_overlap,
    [LAYOUT_C2R_COMPLEX_ROWS_SHORT] = layout_c2r_complex_rows_short,
    [LAYOUT_R2C_2D_UNPADDED] = layout_r2c_2d_unpadded,
    [LAYOUT_C2R_UNPADDED] = layout_c2r_unpadded};

/* Builds the description of a plan_case row. */
static zipfft_status plan_case_desc(const plan_case *c, zipfft_desc *d) {
  int64_t lengths[3] = {c->n, c->n, c->n};
  zipfft_status s = zipfft_desc_create(d, (zipfft_type)c->type, ZIPFFT_F32, c->rank, lengths);
  if (s == ZIPFFT_SUCCESS) s = zipfft_desc_set_batch(*d, c->batch);
  if (s == ZIPFFT_SUCCESS && layout_setters[c->layout]) s = layout_setters[c->layout](*d, c->n);
  if (s == ZIPFFT_SUCCESS)
    s = zipfft_desc_set_backend(*d, c->cuda ? ZIPFFT_BACKEND_CUDA : zt_zipfft_backend(), 0);
  return s;
}

/* A Bluestein filter computed through the workspace holds twice its length in fp64 (1.29 MB
 * for fp32 20023, padded to 40320) before the plan's workspace (0.65 MB) exists: with the
 * backend's memory capped (ZIPFFT_MEMORY_LIMIT) between the two needs, the plan is refused
 * before anything is allocated, naming the filter; with room, it is made. */
static void check_filter_memory(void) {
  int64_t n = 20023;
  zipfft_desc d = NULL;
  zipfft_plan p = sentinel();
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  setenv("ZIPFFT_MEMORY_LIMIT", "1600000", 1);
  snprintf(where, sizeof where, "(plan_create, filter beyond 1.6 MB)");
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_ERROR_TOO_LARGE,
         "1290240 bytes to compute its Bluestein filter");
  ZT_CHECK(p == sentinel(), "plan_create refused for its filter changed *p");
  setenv("ZIPFFT_MEMORY_LIMIT", "4000000", 1);
  ZT_CHECK(zipfft_plan_create(&p, d) == ZIPFFT_SUCCESS, "with 4 MB: %s", zipfft_last_error());
  if (p != sentinel()) zipfft_plan_destroy(p);
  unsetenv("ZIPFFT_MEMORY_LIMIT");
  zipfft_desc_destroy(d);
  where[0] = '\0';
}

/* A four-step plan's memory check at its boundary: with the backend's memory capped
 * (ZIPFFT_MEMORY_LIMIT) one byte below workspace + tables, creation fails with TOO_LARGE
 * naming both sizes and leaves *p alone; at exactly that sum it succeeds, with the
 * workspace the message named (zipfft_plan_workspace_size). The sizes come from the
 * message at a limit of 1 byte. */
static void check_workspace_memory(void) {
  int64_t n = (int64_t)1 << 20; /* 1024 x 1024 through an 8 MiB workspace */
  zipfft_desc d = NULL;
  zipfft_plan p = sentinel();
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  snprintf(where, sizeof where, "(plan_create, memory capped near the workspace)");
  setenv("ZIPFFT_MEMORY_LIMIT", "1", 1);
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_ERROR_TOO_LARGE, "backend's memory is 1 bytes");
  unsigned long long workspace = 0, tables = 0;
  const char *at = strstr(zipfft_last_error(), "needs ");
  int fields =
      at ? sscanf(at, "needs %llu bytes of workspace, %llu of tables", &workspace, &tables) : 0;
  ZT_CHECK(fields == 2 && workspace >= (unsigned long long)n * 8 && tables > 0, "message: %s",
           zipfft_last_error());
  if (p != sentinel()) zipfft_plan_destroy(p), p = sentinel(); /* made against the cap */
  if (fields != 2) {
    unsetenv("ZIPFFT_MEMORY_LIMIT");
    zipfft_desc_destroy(d);
    return;
  }
  char limit[32], named[64];
  snprintf(limit, sizeof limit, "%llu", workspace + tables - 1);
  snprintf(named, sizeof named, "%llu bytes of workspace", workspace);
  setenv("ZIPFFT_MEMORY_LIMIT", limit, 1);
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_ERROR_TOO_LARGE, named);
  ZT_CHECK(p == sentinel(), "plan_create refused for its workspace changed *p");
  if (p != sentinel()) zipfft_plan_destroy(p), p = sentinel();
  snprintf(limit, sizeof limit, "%llu", workspace + tables);
  setenv("ZIPFFT_MEMORY_LIMIT", limit, 1);
  size_t bytes = 0;
  ZT_CHECK(zipfft_plan_create(&p, d) == ZIPFFT_SUCCESS, "with %s bytes: %s", limit,
           zipfft_last_error());
  if (p != sentinel()) {
    ZT_OK(zipfft_plan_workspace_size(p, &bytes));
    ZT_CHECK(bytes == workspace, "workspace %zu, the refusal named %llu", bytes, workspace);
    zipfft_plan_destroy(p);
  }
  unsetenv("ZIPFFT_MEMORY_LIMIT");
  zipfft_desc_destroy(d);
  where[0] = '\0';
}

/* A stride or distance on an axis of one element (which spans no memory), or on one
 * cropped to one element, is bounded all the same: the generated index arithmetic bounds
 * indices by the whole lengths, and these overflowed 64 bits there (UBSan aborted in the
 * generator; found by a fuzzing audit). A large one within the bound is planned. */
static void check_single_element_strides(void) {
  static const struct {
    zipfft_type type;
    int rank, in_place;
    int64_t lengths[2], in_strides[2], in_dist, out_strides[2], out_dist, crop;
    zipfft_status expect;
    const char *value;
  } rows[] = {
      /* clang-format off */
      {ZIPFFT_C2C, 2, 0, {1, 8}, {INT64_MAX, 1}, 0, {0}, 0, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "in_strides[0] = 9223372036854775807"},
      {ZIPFFT_C2C, 1, 0, {8}, {1}, INT64_MAX, {1}, INT64_MAX, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "in_dist = 9223372036854775807"},
      {ZIPFFT_C2C, 2, 0, {8, 8}, {8, 1}, 0, {(int64_t)1 << 60, 1}, 0, 1,
       ZIPFFT_ERROR_INVALID_LAYOUT, "out_strides[0] = 1152921504606846976"},
      {ZIPFFT_R2C, 1, 1, {8}, {1}, 10, {1}, INT64_MAX, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "out_dist = 9223372036854775807"},
      {ZIPFFT_C2C, 2, 0, {1, 8}, {(int64_t)1 << 40, 1}, 0, {0}, 0, 0, ZIPFFT_SUCCESS, NULL}};
  /* clang-format on */
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    zipfft_desc d = NULL;
    zipfft_plan p = sentinel();
    ZT_OK(zipfft_desc_create(&d, rows[i].type, ZIPFFT_F32, rows[i].rank, rows[i].lengths));
    if (!d) continue;
    int64_t crop[2] = {1, 8};
    ZT_OK(zipfft_desc_set_layout(d, rows[i].in_strides, rows[i].in_dist,
                                 rows[i].out_strides[0] ? rows[i].out_strides : NULL,
                                 rows[i].out_dist));
    if (rows[i].in_place) ZT_OK(zipfft_desc_set_placement(d, ZIPFFT_INPLACE));
    if (rows[i].crop) ZT_OK(zipfft_desc_set_output_extent(d, crop));
    ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
    snprintf(where, sizeof where, "(plan_create, single-element stride row %zu)", i);
    EXPECT(zipfft_plan_create(&p, d), rows[i].expect, rows[i].value);
    if (rows[i].expect != ZIPFFT_SUCCESS)
      ZT_CHECK(p == sentinel(), "single-element stride row %zu changed *p on failure", i);
    else if (p != sentinel())
      zipfft_plan_destroy(p);
    zipfft_desc_destroy(d);
  }
  where[0] = '\0';
}

/* With one-kernel lengths capped at 2 (a test hook), 5 has no decomposition: neither 5
 * nor its Bluestein length 9 splits into factors of at most 2; refused, *p kept. */
static void check_no_decomposition(void) {
  zipfft_plan p = sentinel();
  zipfft_desc d = NULL;
  static const plan_case capped = {
      ZIPFFT_C2C, 1, 5, 1, LAYOUT_DEFAULT, 0, ZIPFFT_ERROR_UNSUPPORTED_LENGTH, "lengths[0] = 5"};
  setenv("ZIPFFT_FOURSTEP_MAX_SINGLE", "2", 1);
  ZT_OK(plan_case_desc(&capped, &d));
  snprintf(where, sizeof where, "(plan_create, capped single-kernel length)");
  EXPECT(zipfft_plan_create(&p, d), capped.expect, capped.value);
  ZT_CHECK(p == sentinel(), "plan_create with no decomposition changed *p");
  zipfft_desc_destroy(d);
  unsetenv("ZIPFFT_FOURSTEP_MAX_SINGLE");
}

/* Workspaces too large to count in 64 bits: refused naming their elements, not wrapped to
 * a small number, *p kept. */
static void check_workspace_beyond_64_bits(void) {
  zipfft_plan p = sentinel();
  zipfft_desc d = NULL;
  /* fp64 Bluestein 524287, 2^39 transforms: two workspace parts of 2^63 bytes each. */
  int64_t prime = 524287;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &prime));
  ZT_OK(zipfft_desc_set_batch(d, (int64_t)1 << 39));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  snprintf(where, sizeof where, "(plan_create, a workspace beyond 2^64 bytes)");
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_ERROR_TOO_LARGE, "2^58 elements");
  ZT_CHECK(p == sentinel(), "plan_create with a workspace beyond 2^64 bytes changed *p");
  zipfft_desc_destroy(d);
  /* The same through extents: 2^40 transforms of 2^24 points with one value in and out
   * (the four-step's rows times their length, 2^64 points, overflowed 64-bit counts). */
  int64_t long_axis = (int64_t)1 << 24, one_value = 1;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &long_axis));
  ZT_OK(zipfft_desc_set_batch(d, (int64_t)1 << 40));
  ZT_OK(zipfft_desc_set_input_extent(d, &one_value));
  ZT_OK(zipfft_desc_set_output_extent(d, &one_value));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_ERROR_TOO_LARGE, "2^58 elements");
  ZT_CHECK(p == sentinel(), "plan_create with extents and a workspace beyond 2^64 changed *p");
  zipfft_desc_destroy(d);
}

/* zipfft_plan_create: NULL arguments, unsupported and invalid descriptions; *p untouched
 * on failure. */
static void check_plan_create(void) {
  static const plan_case rows[] = {
      {ZIPFFT_R2C, 1, 8, 2, LAYOUT_R2C_UNPADDED, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "in_dist = 8"},
      {ZIPFFT_R2C, 2, 8, 2, LAYOUT_R2C_2D_UNPADDED, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "in_strides = [8, 1], in_dist = 64"},
      /* three Bluestein axes through the workspace: 4.4e12 points, refused by size */
      {ZIPFFT_C2C, 3, 16411, 1, LAYOUT_DEFAULT, 0, ZIPFFT_ERROR_TOO_LARGE, "workspace"},
      {ZIPFFT_R2C, 3, 20023, 1, LAYOUT_DEFAULT, 0, ZIPFFT_ERROR_TOO_LARGE, "workspace"},
      /* a workspace of 8 TiB: refused before anything is allocated */
      {ZIPFFT_C2C, 1, (int64_t)1 << 40, 1, LAYOUT_DEFAULT, 0, ZIPFFT_ERROR_TOO_LARGE,
       "8796093022208"},
      {ZIPFFT_C2C, 1, 8, 4, LAYOUT_OVERLAPPING_OUTPUT, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "3"},
      /* products of lengths and strides that overflow 64 bits: refused, not wrapped */
      {ZIPFFT_C2C, 2, (int64_t)1 << 40, 1, LAYOUT_DEFAULT, 0, ZIPFFT_ERROR_TOO_LARGE,
       "1099511627776 x 1099511627776"},
      {ZIPFFT_C2C, 1, 8, 1, LAYOUT_HUGE_OUT_STRIDE, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "9223372036854775807"},
      /* C2R of rank 2 writes into its input: overlapping input rows would be corrupted */
      {ZIPFFT_C2R, 2, 4, 1, LAYOUT_C2R_ROWS_OVERLAP, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "in_strides = [2, 1]"},
      /* in-place C2R of rank 1 writes over its input: row r+1's output would overwrite
       * row r's last (Nyquist) input value */
      {ZIPFFT_C2R, 1, 8, 2, LAYOUT_C2R_COMPLEX_ROWS_SHORT, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "in_dist = 4"},
      /* in-place C2R whose real rows are n apart, not padded to 2 (n/2 + 1) */
      {ZIPFFT_C2R, 1, 8, 2, LAYOUT_C2R_UNPADDED, 0, ZIPFFT_ERROR_INVALID_LAYOUT, "out_dist = 8"},
      /* the message names both layouts: the caller set the output one */
      {ZIPFFT_C2C, 1, 8, 2, LAYOUT_IN_PLACE_DIFFERENT, 0, ZIPFFT_ERROR_INVALID_LAYOUT,
       "out_strides = [2], out_dist = 16"},
      {ZIPFFT_C2C, 1, 8, 1, LAYOUT_DEFAULT, 1, ZIPFFT_ERROR_NO_CUDA_DRIVER, NULL}};
  int driver = zt_backend() == ZT_BACKEND_CUDA || zipfft__cuda_api_get() != NULL;
  zipfft_plan p = sentinel();
  zipfft_desc d = NULL;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    if (rows[i].cuda && driver) {
      printf("skipped: CUDA backend without a driver (a driver is present)\n");
      continue;
    }
    ZT_OK(plan_case_desc(&rows[i], &d));
    snprintf(where, sizeof where, "(plan_create row %zu)", i);
    EXPECT(zipfft_plan_create(&p, d), rows[i].expect, rows[i].value);
    ZT_CHECK(p == sentinel(), "plan_create row %zu changed *p on failure", i);
    zipfft_desc_destroy(d);
    d = NULL;
  }
  check_no_decomposition();
  check_filter_memory();
  check_workspace_memory();
  check_workspace_beyond_64_bits();
  where[0] = '\0';
  ZT_OK(plan_case_desc(&rows[2], &d));
  EXPECT(zipfft_plan_create(NULL, d), ZIPFFT_ERROR_NULL_POINTER, "p is NULL");
  EXPECT(zipfft_plan_create(&p, NULL), ZIPFFT_ERROR_NULL_POINTER, "desc is NULL");
  ZT_CHECK(p == sentinel(), "plan_create with a NULL description changed *p");
  zipfft_desc_destroy(d);
}

/* Extents: each outside 1..length names its axis and value (lengths of the array's own
 * logical shape: n/2+1 on an R2C output), a NULL description is refused, an in-place plan
 * with extents is refused at creation; a refused extent leaves the description as it was. */
static void check_extents(void) {
  int64_t lengths[2] = {16, 16}, zero[2] = {0, 4}, wide[2] = {16, 10}, ok[2] = {16, 9};
  zipfft_desc d = NULL;
  zipfft_plan p = sentinel();
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_R2C, ZIPFFT_F32, 2, lengths));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  struct zipfft_desc_s before;
  memcpy(&before, d, sizeof before);
  EXPECT(zipfft_desc_set_input_extent(d, zero), ZIPFFT_ERROR_INVALID_LAYOUT, "input_extent[0] = 0");
  EXPECT(zipfft_desc_set_output_extent(d, wide), ZIPFFT_ERROR_INVALID_LAYOUT,
         "output_extent[1] = 10");
  ZT_CHECK(memcmp(&before, d, sizeof before) == 0, "a refused extent changed the description");
  EXPECT(zipfft_desc_set_output_extent(NULL, ok), ZIPFFT_ERROR_NULL_POINTER, NULL);
  EXPECT(zipfft_desc_set_input_extent(NULL, ok), ZIPFFT_ERROR_NULL_POINTER, NULL);
  EXPECT(zipfft_desc_set_output_extent(d, ok), ZIPFFT_SUCCESS, NULL); /* 9 = 16/2+1: whole */
  int64_t rows[2] = {5, 16};
  EXPECT(zipfft_desc_set_input_extent(d, rows), ZIPFFT_SUCCESS, NULL);
  ZT_OK(zipfft_desc_set_placement(d, ZIPFFT_INPLACE));
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_ERROR_INVALID_PLACEMENT, "input_extent[0] = 5");
  ZT_CHECK(p == sentinel(), "plan_create with extents in place changed *p");
  ZT_OK(zipfft_desc_set_placement(d, ZIPFFT_OUTOFPLACE));
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_SUCCESS, NULL);
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  /* Arrays of 2^29 elements each, but an intermediate array of 2^58 x batch: refused by
   * name before anything is allocated. */
  int64_t big[2] = {(int64_t)1 << 29, (int64_t)1 << 29}, tall[2] = {(int64_t)1 << 29, 1},
          flat[2] = {1, (int64_t)1 << 29};
  p = sentinel();
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 2, big));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_OK(zipfft_desc_set_batch(d, 1024));
  ZT_OK(zipfft_desc_set_input_extent(d, tall));
  ZT_OK(zipfft_desc_set_output_extent(d, flat));
  EXPECT(zipfft_plan_create(&p, d), ZIPFFT_ERROR_TOO_LARGE, "batch = 1024");
  ZT_CHECK(p == sentinel(), "a refused plan changed *p");
  zipfft_desc_destroy(d);
}

/* A contiguous 1D f32 plan of 8 points, batch 2, on a backend, placed as asked. */
static zipfft_plan small_plan(zipfft_backend b, zipfft_placement place) {
  int64_t n = 8;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_batch(d, 2));
  ZT_OK(zipfft_desc_set_placement(d, place));
  ZT_OK(zipfft_desc_set_backend(d, b, 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_desc_destroy(d);
  return p;
}

/* A guarded buffer of 16 complex f32 values of test data. */
static zt_buffer data_buffer(uint64_t seed) {
  zt_buffer b = zt_buffer_alloc(16 * 2 * sizeof(float), 0);
  zt_buffer_poison(&b, sizeof(float));
  for (size_t i = 0; i < 32; i++) {
    float v = (float)zt_uniform(seed, i);
    memcpy(b.data + 4 * i, &v, 4);
  }
  return b;
}

/* 1 when the buffer's region, guards included, equals the snapshot. */
static int unchanged(const zt_buffer *b, const unsigned char *snapshot) {
  return zt_buffer_span_equals(b, snapshot);
}

/* zipfft_plan_1d: each bad argument refused with its status, naming the value, *p left
 * alone; a good call's plan (on the AUTO backend) transforms 8 points twice as the
 * long-double reference does (run where AUTO picks the backend under test). */
static void check_plan_1d(void) {
  static const struct {
    zipfft_precision prec;
    int64_t n, batch;
    zipfft_direction dir;
    zipfft_status expect;
    const char *value;
  } rows[] = {
      {ZIPFFT_F32, 0, 1, ZIPFFT_FORWARD, ZIPFFT_ERROR_INVALID_LENGTH, "(n = 0, batch = 1)"},
      {ZIPFFT_F32, -8, 1, ZIPFFT_FORWARD, ZIPFFT_ERROR_INVALID_LENGTH, "lengths[0] = -8"},
      {ZIPFFT_F32, 8, 0, ZIPFFT_FORWARD, ZIPFFT_ERROR_INVALID_BATCH, "batch = 0"},
      {ZIPFFT_F32, 8, 1, (zipfft_direction)7, ZIPFFT_ERROR_INVALID_DIRECTION, "direction = 7"},
      {(zipfft_precision)9, 8, 1, ZIPFFT_FORWARD, ZIPFFT_ERROR_INVALID_PRECISION, "precision = 9"},
  };
  zipfft_plan p = sentinel();
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    snprintf(where, sizeof where, "(plan_1d row %zu)", i);
    EXPECT(zipfft_plan_1d(&p, rows[i].prec, rows[i].n, rows[i].batch, rows[i].dir), rows[i].expect,
           rows[i].value);
    ZT_CHECK(p == sentinel(), "a refused zipfft_plan_1d changed *p (row %zu)", i);
    if (p != sentinel()) zipfft_plan_destroy(p), p = sentinel();
  }
  where[0] = '\0';
  zipfft_backend b = ZIPFFT_BACKEND_AUTO;
  ZT_OK(zipfft_plan_1d(&p, ZIPFFT_F32, 8, 2, ZIPFFT_INVERSE));
  if (p == sentinel()) return;
  ZT_OK(zipfft_plan_backend(p, &b));
  if (b == zt_zipfft_backend()) {
    zt_buffer in = data_buffer(0x1d), out = zt_buffer_alloc(16 * 2 * sizeof(float), 0);
    zt_buffer_poison(&out, sizeof(float));
    long double *x = zr_alloc_pairs(16), *ref = zr_alloc_pairs(16);
    double got[32];
    for (int i = 0; i < 32; i++) x[i] = zt_get_real(&in, ZIPFFT_F32, i);
    zr_dft(x, ref, 8, 1), zr_dft(x + 16, ref + 16, 8, 1);
    ZT_OK(zt_execute(p, &in, &out, NULL));
    for (int i = 0; i < 32; i++) got[i] = zt_get_real(&out, ZIPFFT_F32, i);
    double err = zr_worst_rel_l2(ref, got, 8, 2);
    ZT_CHECK(err <= 10 * 0x1p-24 * sqrt(3.0), "zipfft_plan_1d's inverse 8 x 2: error %.3g", err);
    ZT_CHECK(zt_buffer_guards_intact(&out), "zipfft_plan_1d's plan wrote past its output");
    free(x), free(ref);
    zt_buffer_free(&in), zt_buffer_free(&out);
  } else {
    printf("skipped: zipfft_plan_1d's run (AUTO chose backend %d, the test runs %d)\n", (int)b,
           (int)zt_zipfft_backend());
  }
  zipfft_plan_destroy(p);
}

/* zipfft_execute: every misuse fails with its status and leaves both buffers untouched;
 * then a valid call succeeds with an empty detail. */
static void check_execute(void) {
  enum { NONE, OOP, INPLACE, CPU, A = 1, B = 2 };
  static const struct {
    int plan, in, out, stream;
    zipfft_status expect;
    const char *value;
  } rows[] = {{NONE, A, B, 0, ZIPFFT_ERROR_NULL_POINTER, "plan is NULL"},
              {OOP, 0, B, 0, ZIPFFT_ERROR_NULL_POINTER, "in is NULL"},
              {OOP, A, 0, 0, ZIPFFT_ERROR_NULL_POINTER, "out is NULL"},
              {OOP, A, A, 0, ZIPFFT_ERROR_INVALID_PLACEMENT, "out == in"},
              {INPLACE, A, B, 0, ZIPFFT_ERROR_INVALID_PLACEMENT, "!= in"},
              {INPLACE, 0, 0, 0, ZIPFFT_ERROR_NULL_POINTER, "in is NULL"},
              {CPU, A, B, 1, ZIPFFT_ERROR_INVALID_ARGUMENT, "stream"}};
  zipfft_plan plans[4] = {NULL, small_plan(zt_zipfft_backend(), ZIPFFT_OUTOFPLACE),
                          small_plan(zt_zipfft_backend(), ZIPFFT_INPLACE),
                          small_plan(ZIPFFT_BACKEND_CPU, ZIPFFT_OUTOFPLACE)};
  zt_buffer bufs[3] = {{0}, data_buffer(1), data_buffer(2)};
  unsigned char *snap_a = malloc(zt_buffer_span(&bufs[A])),
                *snap_b = malloc(zt_buffer_span(&bufs[B]));
  if (!snap_a || !snap_b) exit(2);
  zt_buffer_copy_span(&bufs[A], snap_a);
  zt_buffer_copy_span(&bufs[B], snap_b);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    zt_buffer *in = rows[i].in ? &bufs[rows[i].in] : NULL;
    zt_buffer *out = rows[i].out ? &bufs[rows[i].out] : NULL;
    snprintf(where, sizeof where, "(execute row %zu)", i);
    EXPECT(zt_execute(plans[rows[i].plan], in, out, rows[i].stream ? sentinel() : NULL),
           rows[i].expect, rows[i].value);
    ZT_CHECK(unchanged(&bufs[A], snap_a) && unchanged(&bufs[B], snap_b),
             "execute row %zu modified a buffer", i);
  }
  where[0] = '\0';
  EXPECT(zt_execute(plans[OOP], &bufs[A], &bufs[B], NULL), ZIPFFT_SUCCESS, NULL);
  ZT_CHECK(unchanged(&bufs[A], snap_a) && !unchanged(&bufs[B], snap_b),
           "a valid execution did not write its output (or wrote its input)");
  for (int i = 1; i < 4; i++) zipfft_plan_destroy(plans[i]);
  zt_buffer_free(&bufs[A]);
  zt_buffer_free(&bufs[B]);
  free(snap_a), free(snap_b);
}

typedef struct stack_job {
  zipfft_plan plan;
  void *in, *out; /* backend memory */
  zipfft_status status;
  char detail[256]; /* the thread's zipfft_last_error() (kept per thread) */
} stack_job;

static void *execute_job(void *arg) {
  stack_job *j = arg;
  j->status = zipfft_execute(j->plan, j->in, j->out, NULL);
  snprintf(j->detail, sizeof j->detail, "%s", zipfft_last_error());
  return NULL;
}

/* The caller's stack does not bound the kernels: fp64 16384 (whose CPU blocks keep several
 * hundred KiB of values on their stack) executed from a thread of a 256 KiB stack gives the
 * output the main thread's execution gives, bit for bit (on CUDA: from a thread the test
 * never made a context current on). */
static void check_small_stack_caller(void) {
  enum { small_stack = 256 << 10 };
  const int64_t n = 16384;
  const size_t bytes = (size_t)n * 16;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_desc_destroy(d);
  double *host = malloc(bytes), *first = malloc(bytes), *second = malloc(bytes);
  void *in = zt_mem_alloc(bytes), *out_main = zt_mem_alloc(bytes),
       *out_thread = zt_mem_alloc(bytes);
  if (!host || !first || !second || !in || !out_main || !out_thread) exit(2);
  for (int64_t i = 0; i < 2 * n; i++) host[i] = NAN;
  ZT_CHECK(zt_mem_upload(out_thread, host, bytes), "poisoning the output");
  for (int64_t i = 0; i < 2 * n; i++) host[i] = sin(0.37 * (double)i);
  ZT_CHECK(zt_mem_upload(in, host, bytes), "uploading the input");
  ZT_OK(zipfft_execute(p, in, out_main, NULL));
  stack_job job = {p, in, out_thread, ZIPFFT_ERROR_INTERNAL, "not run"};
  pthread_attr_t attr;
  pthread_t thread;
  int have_attr = pthread_attr_init(&attr) == 0;
  int started = have_attr && pthread_attr_setstacksize(&attr, small_stack) == 0 &&
                pthread_create(&thread, &attr, execute_job, &job) == 0;
  ZT_CHECK(started, "no thread of a %d-byte stack", (int)small_stack);
  if (started) pthread_join(thread, NULL);
  if (have_attr) pthread_attr_destroy(&attr);
  ZT_CHECK(job.status == ZIPFFT_SUCCESS, "execute from a small stack: %s", job.detail);
  ZT_CHECK(zt_mem_download(first, out_main, bytes) && zt_mem_download(second, out_thread, bytes),
           "downloading the outputs");
  ZT_CHECK(memcmp(first, second, bytes) == 0, "execute from a small stack gave another output");
  zipfft_plan_destroy(p);
  zt_mem_free(in);
  zt_mem_free(out_main);
  zt_mem_free(out_thread);
  free(host);
  free(first);
  free(second);
}

/* zipfft_plan_print: NULL buffer, full text, truncation with NUL and the needed length. */
static void check_plan_print(void) {
  zipfft_plan p = small_plan(zt_zipfft_backend(), ZIPFFT_OUTOFPLACE);
  char full[8192], tiny[8];
  size_t needed = 777, needed_tiny = 0, needed_null = 0;
  memset(full, 'Y', sizeof full);
  EXPECT(zipfft_plan_print(p, NULL, 16, &needed), ZIPFFT_ERROR_NULL_POINTER, "buf is NULL");
  EXPECT(zipfft_plan_print(NULL, full, sizeof full, &needed), ZIPFFT_ERROR_NULL_POINTER,
         "plan is NULL");
  ZT_CHECK(needed == 777 && full[0] == 'Y' && full[sizeof full - 1] == 'Y',
           "a failed plan_print wrote its outputs (needed %zu)", needed);
  EXPECT(zipfft_plan_print(p, full, sizeof full, &needed), ZIPFFT_SUCCESS, NULL);
  ZT_CHECK(needed > 0 && needed < sizeof full && strlen(full) == needed,
           "plan_print: needed %zu, strlen %zu", needed, strlen(full));
  memset(tiny, 'X', sizeof tiny);
  EXPECT(zipfft_plan_print(p, tiny, 4, &needed_tiny), ZIPFFT_SUCCESS, NULL);
  ZT_CHECK(needed_tiny == needed, "truncated plan_print reports %zu, full text needs %zu",
           needed_tiny, needed);
  ZT_CHECK(tiny[3] == '\0' && strncmp(tiny, full, 3) == 0 && tiny[4] == 'X' && tiny[7] == 'X',
           "plan_print into 4 bytes is not the NUL-terminated prefix, or wrote past it");
  EXPECT(zipfft_plan_print(p, NULL, 0, &needed_null), ZIPFFT_SUCCESS, NULL);
  ZT_CHECK(needed_null == needed, "plan_print(NULL, 0) reports %zu", needed_null);
  zipfft_plan_destroy(p);
  /* A cropped 2D plan's kernels name the intermediate array (once read past a table). */
  int64_t lengths[2] = {8, 8}, crop[2] = {2, 2};
  zipfft_desc d = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 2, lengths));
  ZT_OK(zipfft_desc_set_output_extent(d, crop));
  ZT_OK(zipfft_desc_set_backend(d, zt_zipfft_backend(), 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_desc_destroy(d);
  EXPECT(zipfft_plan_print(p, full, sizeof full, &needed), ZIPFFT_SUCCESS, NULL);
  ZT_CHECK(strstr(full, "intermediate") != NULL, "cropped plan's print names no intermediate:\n%s",
           full);
  zipfft_plan_destroy(p);
}

/* zipfft_corr_create with lengths whose product overflows 64 bits: refused, *c untouched. */
static void check_corr_create(void) {
  int64_t lengths[3] = {(int64_t)1 << 31, (int64_t)1 << 31, (int64_t)1 << 31},
          signal[3] = {1, 1, 1};
  zipfft_corr_config config = {0};
  config.backend = zt_zipfft_backend();
  zipfft_corr c = sentinel();
  EXPECT(zipfft_corr_create(&c, ZIPFFT_F32, 3, lengths, signal, 1, &config), ZIPFFT_ERROR_TOO_LARGE,
         "2147483648");
  ZT_CHECK(c == (zipfft_corr)sentinel(), "corr_create with a too large shape changed *c");
}

/* Plan queries and destruction with NULL arguments. */
static void check_null_handles(void) {
  zipfft_plan p = small_plan(zt_zipfft_backend(), ZIPFFT_OUTOFPLACE);
  size_t bytes = 12345; /* sentinels: a failed query leaves its output alone */
  zipfft_backend b = (zipfft_backend)77;
  EXPECT(zipfft_plan_workspace_size(NULL, &bytes), ZIPFFT_ERROR_NULL_POINTER, "plan is NULL");
  EXPECT(zipfft_plan_workspace_size(p, NULL), ZIPFFT_ERROR_NULL_POINTER, "bytes is NULL");
  EXPECT(zipfft_plan_backend(NULL, &b), ZIPFFT_ERROR_NULL_POINTER, "plan is NULL");
  EXPECT(zipfft_plan_backend(p, NULL), ZIPFFT_ERROR_NULL_POINTER, "b is NULL");
  ZT_CHECK(bytes == 12345 && b == (zipfft_backend)77,
           "a failed query wrote its output: bytes %zu, backend %d", bytes, (int)b);
  EXPECT(zipfft_plan_1d(NULL, ZIPFFT_F32, 8, 1, ZIPFFT_FORWARD), ZIPFFT_ERROR_NULL_POINTER,
         "zipfft_plan_1d");
  EXPECT(zipfft_desc_destroy(NULL), ZIPFFT_SUCCESS, NULL);
  EXPECT(zipfft_plan_destroy(NULL), ZIPFFT_SUCCESS, NULL);
  EXPECT(zipfft_plan_workspace_size(p, &bytes), ZIPFFT_SUCCESS, NULL);
  ZT_CHECK(bytes == 0, "workspace of a 1D C2C plan is %zu bytes, documented 0", bytes);
  zipfft_plan_destroy(p);
}

/* Every status has a distinct, non-empty name (its enumerator) and description; unknown
 * values give ZIPFFT_UNKNOWN_STATUS. */
static void check_status_names(void) {
  static const struct {
    zipfft_status s;
    const char *name;
  } all[] = {
#define ZT_STATUS_ROW_(name, value, text) {name, #name},
      ZIPFFT_STATUS_LIST(ZT_STATUS_ROW_)
#undef ZT_STATUS_ROW_
  };
  size_t count = sizeof all / sizeof all[0];
  for (size_t i = 0; i < count; i++) {
    const char *name = zipfft_status_name(all[i].s), *text = zipfft_status_string(all[i].s);
    cases++;
    ZT_CHECK(name && strcmp(name, all[i].name) == 0, "status %d named %s", (int)all[i].s,
             name ? name : "(null)");
    ZT_CHECK(text && text[0], "status %s has no description", all[i].name);
    for (size_t j = 0; j < i && text; j++) {
      ZT_CHECK(strcmp(zipfft_status_name(all[j].s), name) != 0, "duplicate name %s", name);
      ZT_CHECK(strcmp(zipfft_status_string(all[j].s), text) != 0, "%s and %s share \"%s\"",
               all[j].name, all[i].name, text);
    }
  }
  ZT_CHECK(strcmp(zipfft_status_name((zipfft_status)12345), "ZIPFFT_UNKNOWN_STATUS") == 0,
           "unknown status 12345 named %s", zipfft_status_name((zipfft_status)12345));
  ZT_CHECK(strcmp(zipfft_status_name((zipfft_status)-1), "ZIPFFT_UNKNOWN_STATUS") == 0,
           "unknown status -1 named %s", zipfft_status_name((zipfft_status)-1));
  ZT_CHECK(zipfft_status_string((zipfft_status)12345) != NULL &&
               zipfft_status_string((zipfft_status)12345)[0],
           "unknown status has no description");
}

/* A call of the random descriptions: whatever its status, nothing printed, a known status
 * name, and a detail exactly when it failed. */
static void expect_either(quiet *q, zipfft_status got, const char *what) {
  char detail[512];
  snprintf(detail, sizeof detail, "%s", zipfft_last_error());
  long printed = quiet_end(q);
  cases++;
  ZT_CHECK(printed == 0, "%s: %s printed %ld bytes", where, what, printed);
  ZT_CHECK(strcmp(zipfft_status_name(got), "ZIPFFT_UNKNOWN_STATUS") != 0, "%s: %s returned %d",
           where, what, (int)got);
  ZT_CHECK((got == ZIPFFT_SUCCESS) == (detail[0] == '\0'), "%s: %s returned %s with detail \"%s\"",
           where, what, zipfft_status_name(got), detail);
}

/* Runs a call with output captured and checks it with expect_either. */
#define EXPECT_EITHER(call)        \
  do {                             \
    quiet q_;                      \
    quiet_begin(&q_);              \
    zipfft_status s_ = (call);     \
    expect_either(&q_, s_, #call); \
    last_status = s_;              \
  } while (0)

static uint64_t random_state = 0x9e3779b97f4a7c15ull;
/* xorshift64: the random descriptions' deterministic choices. */
static uint64_t next_random(void) {
  random_state ^= random_state << 13;
  random_state ^= random_state >> 7;
  random_state ^= random_state << 17;
  return random_state;
}

/* A value for a description: mostly a small plausible one (from `good`), else an extreme. */
static int64_t random_value(const int64_t *good, size_t good_count) {
  static const int64_t extreme[] = {0,         -1,        -7,        INT64_MAX, INT64_MIN,
                                    1LL << 33, 1LL << 58, 1LL << 60, 65537,     (1LL << 40) + 1};
  if (next_random() % 4) return good[next_random() % good_count];
  return extreme[next_random() % (sizeof extreme / sizeof *extreme)];
}

/* Random descriptions mixing valid and bad values (types, ranks, lengths, batches, layouts,
 * placements, scales, storage, extents, devices) on the CPU backend: every setter and
 * zipfft_plan_create return a known status without printing, with a detail exactly on
 * failure; a failed create leaves the caller's handle as it was; plans that are made
 * print and are destroyed. Both outcomes must occur often (the test is not vacuous). */
static void check_random_descriptions(void) {
  static const int64_t lengths[] = {1, 4, 5, 7, 8, 12, 16, 64}, strides[] = {1, 2, 3};
  static const double scales[] = {NAN, INFINITY, 1e300, 0.5, -2, 0};
  int made = 0, refused = 0;
  for (int i = 0; i < 160; i++) {
    snprintf(where, sizeof where, "(random description %d)", i);
    zipfft_status last_status;
    int64_t n[4], in_strides[4], out_strides[4], extent[4];
    for (int a = 0; a < 4; a++) {
      n[a] = random_value(lengths, 8);
      in_strides[a] = random_value(strides, 3);
      out_strides[a] = random_value(strides, 3);
      extent[a] = random_value(lengths, 8);
    }
    int type = (int)(next_random() % 4), rank = (int)(next_random() % 5);
    zipfft_desc d = sentinel();
    EXPECT_EITHER(
        zipfft_desc_create(&d, (zipfft_type)type, (zipfft_precision)(next_random() % 3), rank, n));
    if (last_status != ZIPFFT_SUCCESS) {
      ZT_CHECK(d == sentinel(), "%s: a failed zipfft_desc_create changed the handle", where);
      refused++;
      continue;
    }
    if (next_random() % 2) EXPECT_EITHER(zipfft_desc_set_batch(d, random_value(lengths, 8)));
    if (next_random() % 3 == 0)
      EXPECT_EITHER(zipfft_desc_set_direction(d, (zipfft_direction)((int)(next_random() % 5) - 2)));
    if (next_random() % 3 == 0)
      EXPECT_EITHER(zipfft_desc_set_layout(d, in_strides, random_value(lengths, 8) % 3 * 100,
                                           out_strides, random_value(lengths, 8) % 3 * 100));
    if (next_random() % 3 == 0)
      EXPECT_EITHER(zipfft_desc_set_placement(d, (zipfft_placement)(next_random() % 3)));
    if (next_random() % 4 == 0) EXPECT_EITHER(zipfft_desc_set_scale(d, scales[next_random() % 6]));
    if (next_random() % 4 == 0)
      EXPECT_EITHER(zipfft_desc_set_storage(d, (zipfft_storage)(next_random() % 4),
                                            (zipfft_storage)(next_random() % 4)));
    if (next_random() % 5 == 0) EXPECT_EITHER(zipfft_desc_set_input_extent(d, extent));
    if (next_random() % 5 == 0) EXPECT_EITHER(zipfft_desc_set_output_extent(d, extent));
    EXPECT_EITHER(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, next_random() % 8 ? 0 : 3));
    zipfft_plan p = sentinel();
    EXPECT_EITHER(zipfft_plan_create(&p, d));
    if (last_status == ZIPFFT_SUCCESS) {
      char text[64];
      size_t needed = 0;
      EXPECT_EITHER(zipfft_plan_print(p, text, sizeof text, &needed));
      ZT_CHECK(needed > 0, "%s: the plan's text has no length", where);
      EXPECT_EITHER(zipfft_plan_destroy(p));
      made++;
    } else {
      ZT_CHECK(p == sentinel(), "%s: a failed zipfft_plan_create changed the handle", where);
      refused++;
    }
    EXPECT_EITHER(zipfft_desc_destroy(d));
  }
  where[0] = '\0';
  ZT_CHECK(made >= 16 && refused >= 16, "random descriptions: %d plans made, %d refused", made,
           refused);
}

static void on_alarm(int signal_number) { (void)signal_number; }

/* A CPU plan compiles while a timer interrupts the process every millisecond through a
 * handler without SA_RESTART (a caller's profiler or timer): the compiler's wait retries,
 * where it once took the interruption for a failed compile. */
static void check_compile_under_signals(void) {
  char cache[] = "/tmp/zipfft-test-signals-XXXXXX";
  char *saved = zt_env_save("ZIPFFT_CACHE_DIR");
  struct sigaction action = {.sa_handler = on_alarm}, previous;
  struct itimerval every_ms = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
  const int64_t n = 96;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_CHECK(mkdtemp(cache) != NULL, "mkdtemp");
  setenv("ZIPFFT_CACHE_DIR", cache, 1); /* empty: the plan must compile */
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_batch(d, 3));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, &previous);
  setitimer(ITIMER_REAL, &every_ms, NULL);
  zipfft_status s = zipfft_plan_create(&p, d);
  setitimer(ITIMER_REAL, &off, NULL);
  sigaction(SIGALRM, &previous, NULL);
  cases++;
  ZT_CHECK(s == ZIPFFT_SUCCESS, "plan creation under SIGALRM: %s (%s)", zipfft_status_name(s),
           zipfft_last_error());
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  zt_env_restore("ZIPFFT_CACHE_DIR", saved);
  zt_remove_tree(cache);
}

/* Writes a compiler wrapper that refuses fp64 kernels and runs cc on the others, so that
 * only a plan's inner fp64 plan fails; returns 0 when it cannot. */
static int write_refusing_compiler(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  fputs(
      "#!/bin/sh\n"
      "for a; do case $a in *.c) grep -qE 'zipfft_[a-z0-9]+_f64_' \"$a\" && exit 3;; esac; "
      "done\n"
      "exec cc \"$@\"\n",
      f);
  return fclose(f) == 0;
}

/* The detail of a failure inside the library's own inner plans survives their cleanup:
 * the fp64 plan of a Bluestein filter (fp32 C2C 65146 = 2 x 32573, filter length 131072),
 * of a correlation filter's spectrum (zipfft_corr_set_filter) and of an fp64 correlation
 * plan (zipfft_corr_create); the first two lost it once, the public destroys clearing it
 * ("Bluestein filter of length 131072: " and nothing more). */
static void check_inner_plan_details(void) {
  char dir[] = "/tmp/zipfft-test-inner-XXXXXX", script[128], cc[160];
  char *saved_cc = zt_env_save("ZIPFFT_CC"), *saved_cache = zt_env_save("ZIPFFT_CACHE_DIR");
  ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(script, sizeof script, "%s/cc-without-f64", dir);
  ZT_CHECK(write_refusing_compiler(script), "cannot write %s", script);
  snprintf(cc, sizeof cc, "sh %s", script);
  setenv("ZIPFFT_CC", cc, 1);
  setenv("ZIPFFT_CACHE_DIR", dir, 1);

  const int64_t n = 65146, lengths[1] = {46}, signal[1] = {7};
  zipfft_desc d = NULL;
  zipfft_plan p = sentinel();
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  zipfft_status s = zipfft_plan_create(&p, d);
  cases++;
  ZT_CHECK(s == ZIPFFT_ERROR_CPU_COMPILER &&
               strstr(zipfft_last_error(), "Bluestein filter of length 131072: host compiler"),
           "Bluestein filter's inner plan: %s \"%s\"", zipfft_status_name(s), zipfft_last_error());
  ZT_CHECK(p == sentinel(), "a failed zipfft_plan_create changed the handle");
  zipfft_desc_destroy(d);

  zipfft_corr_config config = {.backend = ZIPFFT_BACKEND_CPU};
  zipfft_corr c = NULL;
  float filter[46] = {1.0f};
  ZT_OK(zipfft_corr_create(&c, ZIPFFT_F32, 1, lengths, signal, 1, &config));
  s = c ? zipfft_corr_set_filter(c, filter) : ZIPFFT_ERROR_NULL_POINTER;
  cases++;
  ZT_CHECK(s == ZIPFFT_ERROR_CPU_COMPILER && strstr(zipfft_last_error(), "host compiler"),
           "correlation filter's inner plan: %s \"%s\"", zipfft_status_name(s),
           zipfft_last_error());
  zipfft_corr_destroy(c);

  zipfft_corr c64 = (zipfft_corr)sentinel();
  s = zipfft_corr_create(&c64, ZIPFFT_F64, 1, lengths, signal, 1, &config);
  cases++;
  ZT_CHECK(s == ZIPFFT_ERROR_CPU_COMPILER && strstr(zipfft_last_error(), "host compiler"),
           "fp64 correlation plan: %s \"%s\"", zipfft_status_name(s), zipfft_last_error());
  ZT_CHECK(c64 == (zipfft_corr)sentinel(), "a failed zipfft_corr_create changed the handle");
  if (s == ZIPFFT_SUCCESS) zipfft_corr_destroy(c64);

  zt_env_restore("ZIPFFT_CC", saved_cc);
  zt_env_restore("ZIPFFT_CACHE_DIR", saved_cache);
  zt_remove_tree(dir);
}

/* zipfft__prefix_error: the prefix, then the inner detail, cut at the detail's capacity
 * (16 KiB with its terminator) when both do not fit. */
static void check_prefixed_detail(void) {
  static char inner[20000];
  memset(inner, 'x', sizeof inner - 1);
  inner[0] = 'A';
  cases++;
  zipfft__fail(ZIPFFT_ERROR_CPU_COMPILER, "short");
  ZT_CHECK(
      zipfft__prefix_error(ZIPFFT_ERROR_TOO_LARGE, "outer %d: ", 7) == ZIPFFT_ERROR_TOO_LARGE &&
          strcmp(zipfft_last_error(), "outer 7: short") == 0,
      "prefixed detail \"%s\"", zipfft_last_error());
  zipfft__fail(ZIPFFT_ERROR_CPU_COMPILER, "%s", inner);
  zipfft__prefix_error(ZIPFFT_ERROR_CPU_COMPILER, "outer: ");
  const char *detail = zipfft_last_error();
  ZT_CHECK(strlen(detail) == 16383 && strncmp(detail, "outer: Axx", 10) == 0,
           "a full detail prefixed: %zu bytes from \"%.12s\"", strlen(detail), detail);
  zipfft__clear_error();
}

int main(void) {
  if (!zt_device_ready()) return zt_finish("test_errors", 0);
  check_desc_create();
  check_setters();
  check_plan_create();
  check_single_element_strides();
  check_extents();
  check_execute();
  check_small_stack_caller();
  check_plan_print();
  check_corr_create();
  check_null_handles();
  check_plan_1d();
  check_status_names();
  check_random_descriptions();
  check_compile_under_signals();
  check_inner_plan_details();
  check_prefixed_detail();
  return zt_finish("test_errors", cases);
}
