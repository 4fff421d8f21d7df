/* test_generator.c - the generator's contracts: deterministic sources, names that encode
 * parameters, ZIPFFT_DUMP_DIR, the barrier rule, operator precedence, bounds, and compiler
 * failures reported as statuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/plan_internal.h"
#include "gen/ast.h"
#include "gen/build_context.h"
#include "gen/butterfly.h"
#include "gen/emit.h"
#include "plan/kernel_spec.h"
#include "plan/twiddle.h"
#include "test_util.h"

/* Plans a CPU C2C problem with the given length, stride and direction; NULL on failure. */
static zipfft_plan plan_of(int64_t n, int64_t stride, zipfft_direction dir) {
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_layout(d, &stride, 0, &stride, 0));
  ZT_OK(zipfft_desc_set_direction(d, dir));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_desc_destroy(d);
  return p;
}

/* Returns the generated source of a plan (CUDA or C), malloc'ed. */
static char *source_of(zipfft_plan p, int cuda) {
  char *text = NULL;
  ZT_OK(zipfft__plan_sources(p, cuda, &text));
  return text ? text : calloc(1, 1);
}

/* The same problem gives byte-identical sources; other parameters give other names. */
static void test_determinism_and_names(void) {
  zipfft_plan a = plan_of(60, 1, ZIPFFT_FORWARD), b = plan_of(60, 1, ZIPFFT_FORWARD);
  zipfft_plan c = plan_of(60, 3, ZIPFFT_FORWARD), e = plan_of(60, 1, ZIPFFT_INVERSE);
  char *sa = source_of(a, 1), *sb = source_of(b, 1), *sc = source_of(c, 1), *se = source_of(e, 1);
  ZT_CHECK(strcmp(sa, sb) == 0, "two plans of one problem generated different CUDA sources");
  ZT_CHECK(strstr(sa, "_n60_") && strstr(sa, "_fwd_"), "kernel name lacks n or direction");
  ZT_CHECK(strstr(sc, "_is3_") && strstr(sc, "_os3_"), "kernel name lacks the strides");
  ZT_CHECK(strstr(se, "_inv_") != NULL, "inverse kernel name lacks 'inv'");
  ZT_CHECK(strcmp(sa, sc) != 0 && strcmp(sa, se) != 0, "different problems, same source");
  char *ca = source_of(a, 0);
  ZT_CHECK(strstr(ca, "for (int32_t tid = 0;") != NULL, "C source has no thread loop");
  free(sa), free(sb), free(sc), free(se), free(ca);
  zipfft_plan_destroy(a), zipfft_plan_destroy(b), zipfft_plan_destroy(c), zipfft_plan_destroy(e);
}

/* The twiddle table parameter is declared __restrict__ in the CUDA source only with
 * ZIPFFT_READONLY_TABLES=1 (the kernel's name says _rt), and never in the C source. */
static void test_read_only_tables(void) {
  for (int wanted = 0; wanted < 2; wanted++) {
    if (wanted) setenv("ZIPFFT_READONLY_TABLES", "1", 1);
    zipfft_plan p = plan_of(60, 1, ZIPFFT_FORWARD);
    char *cuda = source_of(p, 1), *c = source_of(p, 0);
    int restricted = strstr(cuda, "const unsigned char * __restrict__ tw,") != NULL;
    ZT_CHECK(restricted == wanted && (strstr(cuda, "_rt_") != NULL) == wanted,
             "ZIPFFT_READONLY_TABLES %d: CUDA table parameter restricted %d", wanted, restricted);
    ZT_CHECK(strstr(c, "restrict") == NULL, "the C source declares a restricted parameter");
    free(cuda), free(c);
    zipfft_plan_destroy(p);
  }
  unsetenv("ZIPFFT_READONLY_TABLES");
}

/* Plans a CPU problem of one type, precision and length (batch 1, contiguous, out of
 * place); NULL on failure. */
static zipfft_plan plan_typed(zipfft_type type, zipfft_precision precision, int64_t n) {
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, type, precision, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_desc_destroy(d);
  return p;
}

/* By default (the CPU plans as a device of slow memory) the one kernel of an fp32 R2C or
 * C2R plan whose half length needs no Bluestein declares its tables read-only, Rader's
 * halves too; not fp64, not C2C, not a Bluestein real length, not a plan through the
 * workspace, not with ZIPFFT_READONLY_TABLES=0 or on fast memory. */
static void test_read_only_tables_rule(void) {
  static const struct {
    zipfft_type type;
    zipfft_precision precision;
    int64_t n;
    int restricted;
  } cases[] = {
      {ZIPFFT_R2C, ZIPFFT_F32, 32768, 1}, {ZIPFFT_C2R, ZIPFFT_F32, 65536, 1},
      {ZIPFFT_R2C, ZIPFFT_F32, 15362, 1}, {ZIPFFT_C2R, ZIPFFT_F32, 2048, 1},
      {ZIPFFT_R2C, ZIPFFT_F64, 32768, 0}, {ZIPFFT_C2C, ZIPFFT_F32, 32768, 0},
      {ZIPFFT_R2C, ZIPFFT_F32, 8198, 0},  {ZIPFFT_R2C, ZIPFFT_F32, 131072, 0},
  };
  for (int setting = 0; setting < 3; setting++) {
    if (setting == 1) setenv("ZIPFFT_READONLY_TABLES", "0", 1);
    if (setting == 2) unsetenv("ZIPFFT_READONLY_TABLES"), setenv("ZIPFFT_SLOW_MEMORY", "0", 1);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      zipfft_plan p = plan_typed(cases[i].type, cases[i].precision, cases[i].n);
      char *cuda = source_of(p, 1);
      int restricted = strstr(cuda, "* __restrict__ tw,") != NULL;
      ZT_CHECK(restricted == (setting == 0 && cases[i].restricted),
               "setting %d, type %d precision %d n %lld: tables restricted %d", setting,
               (int)cases[i].type, (int)cases[i].precision, (long long)cases[i].n, restricted);
      free(cuda);
      zipfft_plan_destroy(p);
    }
  }
  unsetenv("ZIPFFT_SLOW_MEMORY");
}

/* Lines of text that contain both a and b. */
static int lines_with_both(const char *text, const char *a, const char *b) {
  int count = 0;
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *at_a = strstr(line, a), *at_b = strstr(line, b);
    count += at_a && at_b && at_a < line + len && at_b < line + len;
    line = end ? end + 1 : NULL;
  }
  return count;
}

/* With ZIPFFT_DISTINCT_IO=1 the in and out parameters are declared __restrict__ in the CUDA
 * source of kernels whose arrays never overlap (a split's kernels into and out of the
 * workspace: _dio in both names), not in a one-kernel plan's (the user's input and output
 * may be one array), and never in the C source. */
static void test_distinct_io(void) {
  static const char restricted_in[] =
      "const unsigned char * __restrict__ in, unsigned char "
      "* __restrict__ out,";
  setenv("ZIPFFT_PAIR", "0", 1);
  setenv("ZIPFFT_FOURSTEP_SPLIT", "256x256", 1);
  for (int wanted = 0; wanted < 2; wanted++) {
    if (wanted) setenv("ZIPFFT_DISTINCT_IO", "1", 1);
    zipfft_plan one = plan_of(60, 1, ZIPFFT_FORWARD), split = plan_of(65536, 1, ZIPFFT_FORWARD);
    ZT_CHECK(zipfft__plan_kernel_count(split) == 2, "65536 as 256x256 has %d kernels",
             zipfft__plan_kernel_count(split));
    char *cuda_one = source_of(one, 1), *cuda = source_of(split, 1), *c = source_of(split, 0);
    /* each kernel's signature line: its name, then its parameters */
    int restricted = lines_with_both(cuda, "__global__", restricted_in);
    int named = lines_with_both(cuda, "_dio_", restricted_in);
    ZT_CHECK(restricted == 2 * wanted && named == 2 * wanted,
             "ZIPFFT_DISTINCT_IO %d: %d of the split's 2 kernels restricted, %d of them named _dio",
             wanted, restricted, named);
    ZT_CHECK(strstr(cuda_one, "__restrict__") == NULL && strstr(cuda_one, "_dio") == NULL,
             "ZIPFFT_DISTINCT_IO %d: a one-kernel plan's in and out declared restricted", wanted);
    ZT_CHECK(strstr(c, "restrict") == NULL, "the C source declares a restricted parameter");
    free(cuda_one), free(cuda), free(c);
    zipfft_plan_destroy(one), zipfft_plan_destroy(split);
  }
  unsetenv("ZIPFFT_DISTINCT_IO");
  unsetenv("ZIPFFT_FOURSTEP_SPLIT");
  unsetenv("ZIPFFT_PAIR");
}

/* The CUDA source of a 1D real plan of n points (batch 4, CPU backend) whose real rows lie
 * real_dist reals apart (0: dense), malloc'ed. */
static char *real_source(zipfft_type type, zipfft_precision prec, int64_t n, int64_t real_dist,
                         zipfft_storage storage) {
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  int64_t unit = 1, half_dist = n / 2 + 1;
  ZT_OK(zipfft_desc_create(&d, type, prec, 1, &n));
  ZT_OK(zipfft_desc_set_batch(d, 4));
  if (real_dist)
    ZT_OK(type == ZIPFFT_R2C ? zipfft_desc_set_layout(d, &unit, real_dist, &unit, half_dist)
                             : zipfft_desc_set_layout(d, &unit, half_dist, &unit, real_dist));
  if (storage != ZIPFFT_STORAGE_DEFAULT) ZT_OK(zipfft_desc_set_storage(d, storage, storage));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  ZT_OK(zipfft_plan_create(&p, d));
  zipfft_desc_destroy(d);
  char *text = p ? source_of(p, 1) : calloc(1, 1);
  zipfft_plan_destroy(p);
  return text;
}

/* An even-length real kernel moves each pair of reals of its real side as one complex
 * vector access where the rows start at even offsets (R2C's loads, C2R's stores, in the
 * precision's or a 16-bit storage's type, staged or not), and as two real accesses where a
 * row starts at an odd offset. */
static void test_real_pair_accesses(void) {
  static const struct {
    zipfft_type type;
    zipfft_precision prec;
    int64_t n, real_dist;
    zipfft_storage storage;
    const char *present, *absent;
    int staged; /* the kernel stages its rows (_sio_ in its name) */
  } cases[] = {
      {ZIPFFT_R2C, ZIPFFT_F32, 1024, 0, ZIPFFT_STORAGE_DEFAULT, "zload_vec(in, (ib",
       "zload_real_vec(in", 0},
      {ZIPFFT_C2R, ZIPFFT_F32, 1024, 0, ZIPFFT_STORAGE_DEFAULT, "zstore_vec(out, (ob",
       "zstore_real_vec(out", 0},
      {ZIPFFT_R2C, ZIPFFT_F64, 512, 1026, ZIPFFT_STORAGE_DEFAULT, "zload_vec(in, (ib",
       "zload_real_vec(in", 0},
      {ZIPFFT_R2C, ZIPFFT_F32, 256, 0, ZIPFFT_STORAGE_F16, "zload_f16_vec(in, (ib",
       "zload_real_f16_vec(in", 0},
      {ZIPFFT_C2R, ZIPFFT_F32, 256, 0, ZIPFFT_STORAGE_BF16, "zstore_bf16_vec(out, (ob",
       "zstore_real_bf16_vec(out", 0},
      {ZIPFFT_R2C, ZIPFFT_F32, 1024, 1025, ZIPFFT_STORAGE_DEFAULT, "zload_real_vec(in",
       "zload_vec(in, (ib", 0},
      {ZIPFFT_C2R, ZIPFFT_F64, 512, 513, ZIPFFT_STORAGE_DEFAULT, "zstore_real_vec(out",
       "zstore_vec(out, (ob", 0},
      /* short kernels staged through shared memory copy the pairs too: rows back to back
       * from the block's first element (gb), rows apart from each row's offset */
      {ZIPFFT_R2C, ZIPFFT_F32, 24, 0, ZIPFFT_STORAGE_DEFAULT, "zload_vec(in, gb",
       "zload_real_vec(in", 1},
      {ZIPFFT_C2R, ZIPFFT_F64, 16, 0, ZIPFFT_STORAGE_DEFAULT, "zstore_vec(out, gb",
       "zstore_real_vec(out", 1},
      {ZIPFFT_R2C, ZIPFFT_F32, 24, 26, ZIPFFT_STORAGE_DEFAULT, "zload_vec(in, (ib",
       "zload_vec(in, gb", 1},
      {ZIPFFT_R2C, ZIPFFT_F32, 24, 25, ZIPFFT_STORAGE_DEFAULT, "zload_real_vec(in",
       "zload_vec(in, (ib", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *cuda =
        real_source(cases[i].type, cases[i].prec, cases[i].n, cases[i].real_dist, cases[i].storage);
    ZT_CHECK(strstr(cuda, cases[i].present) != NULL, "real pairs %zu: no '%s'", i,
             cases[i].present);
    ZT_CHECK(strstr(cuda, cases[i].absent) == NULL, "real pairs %zu: '%s'", i, cases[i].absent);
    int staged = strstr(cuda, "_sio_") != NULL;
    ZT_CHECK(staged == cases[i].staged, "real pairs %zu: staged %d", i, staged);
    free(cuda);
  }
}

/* ZIPFFT_DUMP_DIR receives NAME.cu and NAME.c for every kernel a plan compiles. */
static void test_dump_dir(void) {
  char dir[] = "/tmp/zipfft-dump-XXXXXX";
  ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
  setenv("ZIPFFT_DUMP_DIR", dir, 1);
  zipfft_plan p = plan_of(48, 1, ZIPFFT_FORWARD);
  unsetenv("ZIPFFT_DUMP_DIR");
  char *text = source_of(p, 1), name[512], path[1024];
  const char *start = strstr(text, "zipfft_c2c_");
  size_t len = start ? strcspn(start, "\n (") : 0;
  snprintf(name, sizeof name, "%.*s", (int)len, start ? start : "");
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, i ? "c" : "cu");
    ZT_CHECK(len > 0 && access(path, R_OK) == 0, "dump %s missing", path);
  }
  free(text);
  zipfft_plan_destroy(p);
  zt_remove_tree(dir);
}

/* A barrier under an if is rejected; the printer keeps only needed parentheses; constants
 * past 32 bits are 64-bit. */
static void test_ast_rules(void) {
  zipfft__arena *a = zipfft__arena_create();
  zipfft__kernel_ast k = {.name = "k", .precision = ZIPFFT_F32, .block_threads = 32};
  zipfft__stmt *s = zipfft__s_if(
      a, &k.body, zipfft__e_bin(a, ZIPFFT__OP_LT, zipfft__e_thread(a), zipfft__e_i32(a, 3)));
  zipfft__s_barrier(a, &s->u.if_.then_block);
  ZT_CHECK(zipfft__kernel_validate(&k) != NULL, "barrier under a thread-dependent if accepted");
  const zipfft__var *x = zipfft__var_new(a, "x", ZIPFFT__T_I32);
  const zipfft__expr *sum =
      zipfft__e_bin(a, ZIPFFT__OP_ADD, zipfft__e_var(a, x), zipfft__e_i32(a, 1));
  const zipfft__expr *e = zipfft__e_bin(a, ZIPFFT__OP_MUL, sum,
                                        zipfft__e_bin(a, ZIPFFT__OP_SUB, zipfft__e_var(a, x), sum));
  char *cuda = zipfft__emit_cuda(&k);
  ZT_CHECK(cuda != NULL, "emitting failed");
  zipfft__strbuf sb = {0};
  zipfft__dialect d = {.thread_index = "tid"};
  zipfft__emit_expr(&sb, &d, ZIPFFT_F32, e);
  char *text = zipfft__sb_take(&sb);
  ZT_CHECK(text && strcmp(text, "(x0 + 1) * (x0 - (x0 + 1))") == 0, "printed '%s'",
           text ? text : "");
  ZT_CHECK(zipfft__e_bin(a, ZIPFFT__OP_MUL, zipfft__e_var(a, x), zipfft__e_i32(a, 1))->kind ==
               ZIPFFT__E_VAR,
           "x * 1 was not folded");
  free(text);
  /* A constant past 32 bits (the half of an R2C axis of 2^32) makes its index 64-bit. */
  const zipfft__expr *wide =
      zipfft__e_bin(a, ZIPFFT__OP_SUB, zipfft__e_i32(a, (int64_t)1 << 31), zipfft__e_var(a, x));
  ZT_CHECK(wide->type == ZIPFFT__T_I64, "2^31 - x typed %d", (int)wide->type);
  d.int64_suffix = "LL";
  zipfft__emit_expr(&sb, &d, ZIPFFT_F32, wide);
  text = zipfft__sb_take(&sb);
  ZT_CHECK(text && strcmp(text, "2147483648LL - x0") == 0, "printed '%s'", text ? text : "");
  ZT_CHECK(zipfft__e_i32(a, -((int64_t)1 << 31))->type == ZIPFFT__T_I32, "-2^31 widened");
  free(text);
  free(cuda);
  zipfft__arena_destroy(a);
}

/* A paired load (two neighbouring complex elements in one access) prints as the dialect's
 * pair accessor with four outputs, in 16-bit storage too; from shared memory or through a
 * callback it is refused. */
static void test_paired_loads(void) {
  zipfft__arena *a = zipfft__arena_create();
  const zipfft__var *aux = zipfft__param_new(a, "aux", ZIPFFT__T_BYTES_IN);
  const zipfft__var *smem = zipfft__var_new(a, "smem", ZIPFFT__T_SHARED);
  static const struct {
    int shared;
    zipfft_storage storage;
    const char *cuda, *c; /* NULL: refused */
  } cases[] = {
      {0, ZIPFFT_STORAGE_DEFAULT, "zload_pair_vec(aux, 6, &", "zload_pair_vec(aux, 6, &"},
      {0, ZIPFFT_STORAGE_F16, "zload_pair_f16_vec(aux, 6, &", "zload_pair_f16_vec(aux, 6, &"},
      {1, ZIPFFT_STORAGE_DEFAULT, NULL, NULL},
      {0, ZIPFFT__STORAGE_CALLBACK, NULL, NULL}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    zipfft__kernel_ast k = {.name = "k", .precision = ZIPFFT_F32, .block_threads = 32};
    const zipfft__var *v[4];
    for (int q = 0; q < 4; q++) {
      v[q] = zipfft__var_new(a, "v", ZIPFFT__T_REAL);
      zipfft__s_decl(a, &k.body, v[q], NULL);
    }
    zipfft__s_load_complex_pair(a, &k.body, v[0], v[1], v[2], v[3], cases[i].shared ? smem : aux,
                                zipfft__e_i32(a, 6), cases[i].storage);
    const char *refused = zipfft__kernel_validate(&k);
    ZT_CHECK((refused == NULL) == (cases[i].cuda != NULL), "paired load %zu: %s", i,
             refused ? refused : "accepted");
    if (!cases[i].cuda) continue;
    char *cuda = zipfft__emit_cuda(&k), *c = zipfft__emit_c(&k);
    ZT_CHECK(cuda && strstr(cuda, cases[i].cuda), "paired load %zu: no '%s' in CUDA", i,
             cases[i].cuda);
    ZT_CHECK(c && strstr(c, cases[i].c), "paired load %zu: no '%s' in C", i, cases[i].c);
    free(cuda), free(c);
  }
  zipfft__arena_destroy(a);
}

/* Real arithmetic of an expression as the CUDA compiler issues it: each addition or
 * subtraction is one instruction that takes in one multiply operand (a fused multiply-add);
 * other multiplies are instructions of their own, counted in *lone_muls. */
static int count_real_ops(const zipfft__expr *e, int *lone_muls, int absorbed) {
  if (e->kind == ZIPFFT__E_NEG) return count_real_ops(e->u.arg, lone_muls, absorbed);
  if (e->kind != ZIPFFT__E_BINARY) return 0;
  const zipfft__expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
  if (e->u.binary.op == ZIPFFT__OP_MUL) {
    if (!absorbed) ++*lone_muls;
    return (absorbed ? 0 : 1) + count_real_ops(l, lone_muls, 0) + count_real_ops(r, lone_muls, 0);
  }
  int l_is_mul = l->kind == ZIPFFT__E_BINARY && l->u.binary.op == ZIPFFT__OP_MUL;
  return 1 + count_real_ops(l, lone_muls, l_is_mul) + count_real_ops(r, lone_muls, !l_is_mul);
}

/* Butterflies are written for fused multiply-adds: a power-of-two radix issues no multiply of
 * its own (constant twiddles in tangent form, their scales taken into the next additions),
 * and at most as many instructions as that form needs (radix 8: 52, as many as its additions;
 * radix 64: 928, 160 fewer than with a complex multiply per twiddle). */
static void test_butterfly_arithmetic(void) {
  static const struct {
    int radix, most_ops;
  } cases[] = {{2, 4}, {4, 16}, {8, 52}, {16, 144}, {32, 376}, {64, 928}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    zipfft__arena *a = zipfft__arena_create();
    zipfft__block b = {0};
    zipfft__cval x[ZIPFFT__MAX_RADIX], y[ZIPFFT__MAX_RADIX];
    for (int n = 0; n < cases[c].radix; n++)
      x[n] = (zipfft__cval){zipfft__e_var(a, zipfft__var_new(a, "a", ZIPFFT__T_REAL)),
                            zipfft__e_var(a, zipfft__var_new(a, "b", ZIPFFT__T_REAL))};
    zipfft__emit_dft(a, &b, -1, cases[c].radix, x, y);
    int ops = 0, lone_muls = 0;
    for (const zipfft__stmt *s = b.first; s; s = s->next)
      if (s->kind == ZIPFFT__S_DECL && s->u.decl.init)
        ops += count_real_ops(s->u.decl.init, &lone_muls, 0);
    ZT_CHECK(lone_muls == 0, "radix %d: %d multiplies not fused", cases[c].radix, lone_muls);
    ZT_CHECK(ops <= cases[c].most_ops, "radix %d: %d instructions, at most %d expected",
             cases[c].radix, ops, cases[c].most_ops);
    printf("radix %d butterfly: %d instructions\n", cases[c].radix, ops);
    zipfft__arena_destroy(a);
  }
}

/* Bounds and floors of integer expressions: a comparison folds to true exactly when the bound
 * decides it, and never for unbounded or possibly negative operands. */
static void test_bounds(void) {
  zipfft__arena *a = zipfft__arena_create();
  const zipfft__var *t = zipfft__var_new_bounded(a, "t", ZIPFFT__T_I32, 256);
  const zipfft__var *x = zipfft__var_new(a, "x", ZIPFFT__T_I32);
  const zipfft__expr *j = zipfft__e_bin(a, ZIPFFT__OP_ADD, zipfft__e_var(a, t),
                                        zipfft__e_i32(a, 3328)); /* at most 3583 */
  const zipfft__expr *holds = zipfft__e_bin(a, ZIPFFT__OP_LT, j, zipfft__e_i32(a, 3584));
  const zipfft__expr *open = zipfft__e_bin(a, ZIPFFT__OP_LT, j, zipfft__e_i32(a, 3583));
  ZT_CHECK(holds->kind == ZIPFFT__E_INT && holds->u.int_value == 1, "t + 3328 < 3584 not folded");
  ZT_CHECK(open->kind == ZIPFFT__E_BINARY, "t + 3328 < 3583 folded");
  /* bound (exclusive, 0: none) and floor (-1: none) of each expression */
  const zipfft__expr *scaled = zipfft__e_bin(
      a, ZIPFFT__OP_MUL, zipfft__e_bin(a, ZIPFFT__OP_ADD, zipfft__e_var(a, t), zipfft__e_i32(a, 2)),
      zipfft__e_i32(a, 3));
  const struct {
    const char *text;
    const zipfft__expr *e;
    int64_t bound, floor;
  } known[] = {
      {"t + 3328", j, 3584, 3328},
      {"x & 7", zipfft__e_bin(a, ZIPFFT__OP_BITAND, zipfft__e_var(a, x), zipfft__e_i32(a, 7)), 8,
       -1},
      {"(t * 4) >> 3",
       zipfft__e_bin(a, ZIPFFT__OP_SHR,
                     zipfft__e_bin(a, ZIPFFT__OP_MUL, zipfft__e_var(a, t), zipfft__e_i32(a, 4)),
                     zipfft__e_i32(a, 3)),
       128, -1},
      {"(t + 2) * 3", scaled, 772, 6},
      /* unbounded, subtracted or negative terms: neither */
      {"x", zipfft__e_var(a, x), 0, -1},
      {"t - 1", zipfft__e_bin(a, ZIPFFT__OP_SUB, zipfft__e_var(a, t), zipfft__e_i32(a, 1)), 0, -1},
      {"t + -300", zipfft__e_bin(a, ZIPFFT__OP_ADD, zipfft__e_var(a, t), zipfft__e_i32(a, -300)), 0,
       -1},
      {"thread", zipfft__e_thread(a), 0, -1}};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
    ZT_CHECK(zipfft__expr_bound(known[i].e) == known[i].bound, "bound of %s is %lld", known[i].text,
             (long long)zipfft__expr_bound(known[i].e));
    ZT_CHECK(zipfft__expr_floor(known[i].e) == known[i].floor, "floor of %s is %lld", known[i].text,
             (long long)zipfft__expr_floor(known[i].e));
    if (known[i].bound == 0)
      ZT_CHECK(zipfft__e_bin(a, ZIPFFT__OP_LT, known[i].e, zipfft__e_i32(a, 1000000))->kind ==
                   ZIPFFT__E_BINARY,
               "%s < 1000000 folded", known[i].text);
  }
  zipfft__arena_destroy(a);
}

/* A failing host compiler gives ZIPFFT_ERROR_CPU_COMPILER with a detail, and no plan. */
static void test_compiler_failure(void) {
  char dir[] = "/tmp/zipfft-cache-XXXXXX";
  ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
  char *saved = zt_env_save("ZIPFFT_CACHE_DIR");
  setenv("ZIPFFT_CACHE_DIR", dir, 1);
  setenv("ZIPFFT_CC", "false", 1);
  int64_t n = 30;
  zipfft_desc d = NULL;
  zipfft_plan p = (zipfft_plan)&n; /* sentinel: must stay */
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  ZT_CHECK_STATUS(zipfft_plan_create(&p, d), ZIPFFT_ERROR_CPU_COMPILER);
  ZT_CHECK(strstr(zipfft_last_error(), "false") != NULL, "detail lacks the compiler: %s",
           zipfft_last_error());
  ZT_CHECK(p == (zipfft_plan)&n, "plan pointer modified on failure");
  zipfft_desc_destroy(d);
  unsetenv("ZIPFFT_CC");
  zt_env_restore("ZIPFFT_CACHE_DIR", saved);
  zt_remove_tree(dir);
}

/* ZIPFFT_CFLAGS reach the host compiler and are part of the cache key: a kernel compiled
 * and cached without them is compiled again with a flag the compiler rejects, which fails
 * with a status; -O1 (as the sanitizer tests use) compiles. */
static void test_compiler_flags(void) {
  char dir[] = "/tmp/zipfft-cache-XXXXXX";
  ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
  char *saved = zt_env_save("ZIPFFT_CACHE_DIR"), *saved_flags = zt_env_save("ZIPFFT_CFLAGS");
  setenv("ZIPFFT_CACHE_DIR", dir, 1);
  unsetenv("ZIPFFT_CFLAGS");
  static const char *const flags[] = {NULL, "-fno-such-flag-zipfft", "-O1"};
  static const zipfft_status expected[] = {ZIPFFT_SUCCESS, ZIPFFT_ERROR_CPU_COMPILER,
                                           ZIPFFT_SUCCESS};
  int64_t n = 12;
  for (int i = 0; i < 3; i++) {
    if (flags[i]) setenv("ZIPFFT_CFLAGS", flags[i], 1);
    zipfft_desc d = NULL;
    zipfft_plan p = NULL;
    ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &n));
    ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
    ZT_CHECK_STATUS(zipfft_plan_create(&p, d), expected[i]);
    if (p) zipfft_plan_destroy(p);
    zipfft_desc_destroy(d);
  }
  zt_env_restore("ZIPFFT_CFLAGS", saved_flags);
  zt_env_restore("ZIPFFT_CACHE_DIR", saved);
  zt_remove_tree(dir);
}

/* A TMPDIR holding a quote and shell syntax is only a path: the CPU backend's compile
 * (fresh cache, so it runs) succeeds and runs nothing but the compiler. The plan is made
 * from inside base, so a `touch marker` the shell ran would leave base/marker behind. */
static void test_awkward_tmpdir(void) {
  char cache[] = "/tmp/zipfft-cache-XXXXXX", base[] = "/tmp/zipfft-tmp-XXXXXX";
  ZT_CHECK(mkdtemp(cache) != NULL && mkdtemp(base) != NULL, "mkdtemp failed");
  char tmp[256], marker[300];
  snprintf(tmp, sizeof tmp, "%s/it's $(touch marker) `x`", base);
  snprintf(marker, sizeof marker, "%s/marker", base);
  ZT_CHECK(mkdir(tmp, 0700) == 0, "mkdir %s failed", tmp);
  char *saved_cache = zt_env_save("ZIPFFT_CACHE_DIR"), *saved_tmp = zt_env_save("TMPDIR");
  setenv("ZIPFFT_CACHE_DIR", cache, 1);
  setenv("TMPDIR", tmp, 1);
  int64_t n = 12;
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  ZT_OK(zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F32, 1, &n));
  ZT_OK(zipfft_desc_set_backend(d, ZIPFFT_BACKEND_CPU, 0));
  char old_dir[4096];
  ZT_CHECK(getcwd(old_dir, sizeof old_dir) != NULL && chdir(base) == 0, "chdir %s failed", base);
  ZT_CHECK_STATUS(zipfft_plan_create(&p, d), ZIPFFT_SUCCESS);
  ZT_CHECK(chdir(old_dir) == 0, "chdir back to %s failed", old_dir);
  ZT_CHECK(access(marker, F_OK) != 0, "the compile command ran shell syntax from TMPDIR");
  zipfft_plan_destroy(p);
  zipfft_desc_destroy(d);
  zt_env_restore("ZIPFFT_CACHE_DIR", saved_cache);
  zt_env_restore("TMPDIR", saved_tmp);
  zt_remove_tree(cache);
  zt_remove_tree(base);
}

/* Plain column kernels (fp32 2^20's first kernel: 1024-point columns at stride 1024, fused
 * twiddles) prefetch half the resident blocks ahead after their loads only on fast memory at
 * one block per multiprocessor with whole-line rows (16 columns, 128 bytes); 4 columns (32
 * bytes, as 2D 4096^2) and columns without twiddles (2D passes) never. A prefetch after the
 * loads without a distance is refused. */
static void test_column_prefetch_rule(void) {
  zipfft__kernel_spec s = {.kind = ZIPFFT__KIND_C2C,
                           .precision = ZIPFFT_F32,
                           .n = 1024,
                           .pass_count = 2,
                           .ffts_per_block = 16,
                           .fft_major = 1,
                           .in_stride = 1024,
                           .out_stride = 1024,
                           .batch_dims = 2,
                           .batch_counts = {128, 1024},
                           .batch_in_strides = {1048576, 1},
                           .batch_out_strides = {1048576, 1},
                           .twiddle_length = 1048576,
                           .twiddle_chain = 8};
  ZT_CHECK(zipfft__block_input_of(&s) == ZIPFFT__BLOCK_INPUT_COLUMNS, "columns not COLUMNS");
  static const int fast_whole[] = {0, 4, 0, 0, 0}; /* by blocks per multiprocessor */
  for (int blocks = 1; blocks <= 4; blocks++) {
    s.ffts_per_block = 16;
    zipfft__prefetch_distance fast = zipfft__prefetch_distance_of(&s, blocks, 0);
    int slow = zipfft__prefetch_distance_of(&s, blocks, 1).eighths;
    s.ffts_per_block = 4;
    int narrow = zipfft__prefetch_distance_of(&s, blocks, 0).eighths;
    ZT_CHECK(fast.eighths == fast_whole[blocks] && fast.after_loads == (blocks == 1) && slow == 0 &&
                 narrow == 0,
             "columns at %d blocks: %d eighths (after loads %d) on fast memory, %d on slow, %d "
             "at 32-byte rows",
             blocks, fast.eighths, fast.after_loads, slow, narrow);
  }
  s.ffts_per_block = 16, s.twiddle_length = 0;
  ZT_CHECK(zipfft__prefetch_distance_of(&s, 1, 0).eighths == 0, "2D column pass prefetches");
  s.twiddle_length = 1048576, s.radices[0] = s.radices[1] = 32, s.threads_per_fft = 32;
  s.prefetch_after_loads = 1;
  const char *refused = zipfft__check_spec(&s);
  ZT_CHECK(refused && strstr(refused, "prefetch_ahead"), "after loads without a distance: %s",
           refused ? refused : "accepted");
  s.prefetch_ahead = 16;
  refused = zipfft__check_spec(&s);
  ZT_CHECK(refused == NULL, "a prefetch after the loads refused: %s", refused);
}

/* fp32 32768 as a cluster kernel of 4 blocks of 8192 points (32x32x8, 256 threads), batch
 * 2 of rows back to back: C2C, or the half-length real kinds of 65536 reals (the Hermitian
 * half of 32769 values on their side). */
static zipfft__kernel_spec cluster_rows_spec(zipfft__kernel_kind kind) {
  int r2c = kind == ZIPFFT__KIND_R2C_HALF, c2r = kind == ZIPFFT__KIND_C2R_HALF;
  return (zipfft__kernel_spec){.kind = kind,
                               .precision = ZIPFFT_F32,
                               .sign = c2r ? 1 : -1,
                               .n = 8192,
                               .cluster = 4,
                               .radices = {32, 32, 8},
                               .pass_count = 3,
                               .threads_per_fft = 256,
                               .ffts_per_block = 1,
                               .batch_dims = 1,
                               .batch_counts = {2},
                               .in_stride = 1,
                               .out_stride = 1,
                               .batch_in_strides = {c2r   ? 32769
                                                    : r2c ? 65536
                                                          : 32768},
                               .batch_out_strides = {r2c   ? 32769
                                                     : c2r ? 65536
                                                           : 32768},
                               .scale = 1.0};
}

/* The mirror through the cluster (spec field cluster_mirror) is for C2R_HALF cluster kernels
 * only: a C2C cluster kernel or a C2R_HALF kernel of one block asking for it is refused. */
static void test_cluster_mirror_spec(void) {
  zipfft__kernel_spec s = cluster_rows_spec(ZIPFFT__KIND_C2R_HALF);
  s.cluster_mirror = 1;
  const char *refused = zipfft__check_spec(&s);
  ZT_CHECK(refused == NULL, "a C2R_HALF cluster kernel's mirror refused: %s", refused);
  static const struct {
    zipfft__kernel_kind kind;
    int cluster;
  } wrong[] = {{ZIPFFT__KIND_C2C, 4}, {ZIPFFT__KIND_R2C_HALF, 4}, {ZIPFFT__KIND_C2R_HALF, 1}};
  for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
    zipfft__kernel_spec w = s;
    w.kind = wrong[i].kind, w.cluster = wrong[i].cluster;
    refused = zipfft__check_spec(&w);
    ZT_CHECK(refused && strstr(refused, "mirrors through the cluster"),
             "a mirror through the cluster, wrong case %zu: %s", i, refused ? refused : "accepted");
  }
}

/* Cluster column kernels (C2C, fft_major, the four-step twiddle in the stores; planned with
 * ZIPFFT_CLUSTER_COLUMNS) are accepted, can prefetch their columns but do not by default;
 * several
 * transforms a block without the transform-major mapping, and half-length real kinds with
 * it or with a four-step twiddle, are refused. */
static void test_cluster_column_spec(void) {
  zipfft__kernel_spec s = {.kind = ZIPFFT__KIND_C2C,
                           .precision = ZIPFFT_F32,
                           .sign = -1,
                           .n = 1024,
                           .cluster = 4,
                           .radices = {32, 32},
                           .pass_count = 2,
                           .threads_per_fft = 32,
                           .ffts_per_block = 16,
                           .fft_major = 1,
                           .batch_dims = 2,
                           .batch_counts = {2, 4096},
                           .in_stride = 4096,
                           .out_stride = 4096,
                           .batch_in_strides = {16777216, 1},
                           .batch_out_strides = {16777216, 1},
                           .scale = 1.0,
                           .twiddle_length = 16777216,
                           .twiddle_chain = 8};
  const char *refused = zipfft__check_spec(&s);
  ZT_CHECK(refused == NULL, "a cluster column kernel refused: %s", refused);
  ZT_CHECK(zipfft__block_input_of(&s) == ZIPFFT__BLOCK_INPUT_COLUMNS,
           "a cluster column kernel's input is not COLUMNS");
  for (int slow = 0; slow < 2; slow++)
    ZT_CHECK(zipfft__prefetch_distance_of(&s, 1, slow).eighths == 0,
             "a cluster column kernel prefetches by default (slow memory %d)", slow);
  zipfft__kernel_spec short_table = s;
  short_table.twiddle_length = 2048; /* below n * cluster: no whole exponent scale */
  refused = zipfft__check_spec(&short_table);
  ZT_CHECK(refused && strstr(refused, "multiple of its transform's"),
           "a cluster column kernel's short twiddle table: %s", refused ? refused : "accepted");
  zipfft__kernel_spec rows = s;
  rows.fft_major = 0;
  refused = zipfft__check_spec(&rows);
  ZT_CHECK(refused && strstr(refused, "cluster kernels are"),
           "16 row transforms a cluster block: %s", refused ? refused : "accepted");
  static const struct {
    int fft_major;
    int64_t twiddle_length;
  } real[] = {{1, 0}, {0, 16777216}};
  for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
    zipfft__kernel_spec w = s;
    w.kind = ZIPFFT__KIND_R2C_HALF, w.ffts_per_block = 1, w.fft_major = real[i].fft_major;
    w.twiddle_length = real[i].twiddle_length;
    refused = zipfft__check_spec(&w);
    ZT_CHECK(refused && strstr(refused, "cluster kernels are"),
             "a real cluster kernel with columns or twiddles, case %zu: %s", i,
             refused ? refused : "accepted");
  }
}

/* Interleaved shared memory (shared_interleaved) is refused for a cluster kernel of rows;
 * zipfft__can_interleave_shared allows a cluster kernel of several columns a block (test_c2c
 * runs such kernels) and refuses the same columns without clusters. */
static void test_interleaved_shared_spec(void) {
  zipfft__kernel_spec rows = cluster_rows_spec(ZIPFFT__KIND_C2C);
  rows.shared_interleaved = 1;
  const char *refused = zipfft__check_spec(&rows);
  ZT_CHECK(refused && strstr(refused, "interleaved shared memory"),
           "an interleaved cluster kernel of rows: %s", refused ? refused : "accepted");
  zipfft__kernel_spec columns = cluster_rows_spec(ZIPFFT__KIND_C2C);
  columns.fft_major = 1, columns.ffts_per_block = 16;
  ZT_CHECK(zipfft__can_interleave_shared(&columns),
           "zipfft__can_interleave_shared refuses a cluster kernel of 16 columns");
  columns.cluster = 0;
  ZT_CHECK(!zipfft__can_interleave_shared(&columns),
           "zipfft__can_interleave_shared allows columns without clusters");
}

/* Cluster kernels: C2C ones prefetch an eighth (of their resident clusters) on fast memory,
 * none on slow; real cluster kernels (R2C_HALF with the split in the stores) never. */
static void test_cluster_prefetch_rule(void) {
  zipfft__kernel_spec s = cluster_rows_spec(ZIPFFT__KIND_C2C);
  ZT_CHECK(zipfft__block_input_of(&s) == ZIPFFT__BLOCK_INPUT_RANGE, "C2C cluster not RANGE");
  for (int blocks = 1; blocks <= 3; blocks++) {
    zipfft__prefetch_distance fast = zipfft__prefetch_distance_of(&s, blocks, 0);
    int slow = zipfft__prefetch_distance_of(&s, blocks, 1).eighths;
    ZT_CHECK(fast.eighths == 1 && !fast.after_loads && !fast.by_bytes_on_slow_memory && slow == 0,
             "C2C cluster at %d blocks: %d eighths (after loads %d) on fast memory, %d on slow",
             blocks, fast.eighths, fast.after_loads, slow);
  }
  s.kind = ZIPFFT__KIND_R2C_HALF;
  ZT_CHECK(!zipfft__can_prefetch_ahead(&s), "a real cluster kernel prefetches");
}

/* The default block-ahead prefetch distance (eighths of the resident blocks): R2C kernels
 * by the table (a quarter to 3 blocks, by bytes on slow memory; an eighth to 12; none
 * beyond), except one transform to a block beyond 12, an eighth; C2R kernels at 2 or 3
 * blocks per multiprocessor on slow memory, at 2 to 12 on fast memory (measured: C2R lost
 * at 1 block on both GPUs, and at 4 to 10 blocks it gained only on the H200); strided rows
 * never. */
static void test_prefetch_rule(void) {
  zipfft__kernel_spec s = {.kind = ZIPFFT__KIND_C2R_HALF,
                           .precision = ZIPFFT_F32,
                           .n = 8192,
                           .pass_count = 3,
                           .ffts_per_block = 1,
                           .batch_dims = 1,
                           .in_stride = 1,
                           .batch_in_strides = {8193}};
  static const int c2r_slow[] = {0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  static const int c2r_fast[] = {0, 0, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  static const int r2c_one[] = {0, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  static const int r2c_four[] = {0, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  for (int blocks = 1; blocks <= 16; blocks++) {
    zipfft__prefetch_distance slow = zipfft__prefetch_distance_of(&s, blocks, 1);
    zipfft__prefetch_distance fast = zipfft__prefetch_distance_of(&s, blocks, 0);
    ZT_CHECK(slow.eighths == c2r_slow[blocks] && fast.eighths == c2r_fast[blocks],
             "C2R at %d blocks per multiprocessor: %d eighths on slow memory, %d on fast", blocks,
             slow.eighths, fast.eighths);
    ZT_CHECK(slow.by_bytes_on_slow_memory == (blocks <= 3 && slow.eighths > 0),
             "C2R at %d blocks: by bytes %d", blocks, slow.by_bytes_on_slow_memory);
  }
  s.kind = ZIPFFT__KIND_R2C_HALF, s.batch_in_strides[0] = 16384;
  for (int blocks = 1; blocks <= 16; blocks++) {
    s.ffts_per_block = 1;
    int one = zipfft__prefetch_distance_of(&s, blocks, blocks % 2).eighths;
    s.ffts_per_block = 4, s.batch_in_strides[0] = 4 * 16384;
    int four = zipfft__prefetch_distance_of(&s, blocks, blocks % 2).eighths;
    s.batch_in_strides[0] = 16384;
    ZT_CHECK(one == r2c_one[blocks] && four == r2c_four[blocks],
             "R2C at %d blocks: %d eighths at one transform per block, %d at four", blocks, one,
             four);
  }
  s.ffts_per_block = 1, s.in_stride = 2; /* strided rows: not one contiguous range */
  ZT_CHECK(zipfft__prefetch_distance_of(&s, 2, 0).eighths == 0, "strided R2C rows prefetch");
  test_column_prefetch_rule();
  test_cluster_prefetch_rule();
  test_cluster_mirror_spec();
  test_cluster_column_spec();
  test_interleaved_shared_spec();
}

/* Most lanes of one 128-byte shared-memory phase that land in one bank when lane l (T to
 * a transform, element-major: transform l / T, thread l % T) accesses its row's element
 * thread * step at the kernel's transform stride: 1 is conflict-free. */
static int phase_conflicts(const zipfft__kernel_spec *s, int64_t stride, int64_t step) {
  int64_t width = 2 * (int64_t)zipfft__real_size(s->precision), slots = 128 / width;
  int64_t worst = 0;
  for (int64_t bank = 0; bank < slots; bank++) {
    int64_t lanes = 0;
    for (int64_t l = 0; l < slots; l++) {
      int64_t at = (l / s->threads_per_fft) * stride +
                   zipfft__shared_pad(s, (l % s->threads_per_fft) * step);
      lanes += at % slots == bank;
    }
    worst = lanes > worst ? lanes : worst;
  }
  return (int)worst;
}

/* The most lanes of one 128-byte phase of the by-element stage copies (lane l copying
 * element l + e0 of the block's rows of `row` elements, e0 a multiple of the phase) that
 * meet in one bank, over every phase of the block. */
static int copy_conflicts(const zipfft__kernel_spec *s, int64_t pitch, int64_t row) {
  int64_t slots = 128 / (2 * (int64_t)zipfft__real_size(s->precision)), worst = 1;
  for (int64_t e0 = 0; e0 < s->ffts_per_block * row; e0 += slots)
    for (int64_t bank = 0; bank < slots; bank++) {
      int64_t lanes = 0;
      for (int64_t e = e0; e < e0 + slots; e++)
        lanes += (e / row * pitch + e % row) % slots == bank;
      worst = lanes > worst ? lanes : worst;
    }
  return (int)worst;
}

/* A short element-major kernel for the bank checks: its kind, precision, length, threads a
 * transform, transforms a block and up to two pass radices. */
typedef struct short_kernel {
  zipfft__kernel_kind kind;
  zipfft_precision precision;
  int64_t n;
  int threads, ffts, radices[2];
} short_kernel;

static zipfft__kernel_spec short_kernel_spec(const short_kernel *k) {
  return (zipfft__kernel_spec){.kind = k->kind,
                               .precision = k->precision,
                               .n = k->n,
                               .pass_count = k->radices[1] ? 2 : 1,
                               .radices = {k->radices[0], k->radices[1]},
                               .threads_per_fft = k->threads,
                               .ffts_per_block = k->ffts,
                               .batch_dims = 1,
                               .in_stride = 1,
                               .out_stride = 1,
                               .split_by_element = k->kind == ZIPFFT__KIND_R2C_HALF};
}

/* Staged kernels of T > 1 threads a transform read their staged rows as their exchange
 * rows (element t + c): the stage pitch puts a phase's lanes in distinct banks, and the
 * by-element copies of whole-phase rows stay conflict-free. Before, fp32 C2C 16's pitch 17
 * put up to 4 lanes of its stage reads in one bank. */
static void test_staged_row_banks(void) {
  static const short_kernel cases[] = {
      {ZIPFFT__KIND_C2C, ZIPFFT_F32, 16, 4, 64, {4, 4}},
      {ZIPFFT__KIND_C2C, ZIPFFT_F64, 16, 4, 32, {4, 4}},
      {ZIPFFT__KIND_R2C_HALF, ZIPFFT_F32, 16, 4, 64, {4, 4}},
      {ZIPFFT__KIND_C2R_HALF, ZIPFFT_F64, 16, 4, 32, {4, 4}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    zipfft__kernel_spec s = short_kernel_spec(&cases[i]);
    s.stage_io = 1;
    int64_t pitch = zipfft__stage_io_pitch(&s);
    int reads = phase_conflicts(&s, pitch, 1);
    int copies_in = copy_conflicts(&s, pitch, zipfft__stage_io_row(&s, 0));
    int copies_out = copy_conflicts(&s, pitch, zipfft__stage_io_row(&s, 1));
    /* a Hermitian row (n + 1 slots) ends mid-phase, so a phase across its gap may meet
     * itself once; rows of whole phases copy conflict-free */
    int copies_bound = s.kind == ZIPFFT__KIND_C2C ? 1 : 2;
    ZT_CHECK(reads == 1 && copies_in <= copies_bound && copies_out <= copies_bound,
             "staged n=%lld, %d threads a transform: pitch %lld puts %d lanes of a phase's reads, "
             "%d of its input copies and %d of its output copies in one bank",
             (long long)s.n, s.threads_per_fft, (long long)pitch, reads, copies_in, copies_out);
  }
}

/* Short kernels with few threads a transform (the staged 16-point transforms) spread a
 * phase's transforms over the banks, both where a pass loads (element t) and where the
 * first pass stores (element t times its radix). Before, fp64 C2R 16's rows of 8 complex
 * doubles put a phase's 8 lanes in one bank. */
static void test_short_kernel_banks(void) {
  static const short_kernel cases[] = {
      {ZIPFFT__KIND_C2R_HALF, ZIPFFT_F64, 8, 1, 64, {8, 0}},
      {ZIPFFT__KIND_R2C_HALF, ZIPFFT_F32, 8, 1, 128, {8, 0}},
      {ZIPFFT__KIND_C2C, ZIPFFT_F32, 16, 4, 64, {4, 4}},
      {ZIPFFT__KIND_C2C, ZIPFFT_F64, 16, 4, 32, {4, 4}},
      {ZIPFFT__KIND_C2C, ZIPFFT_F32, 64, 8, 8, {8, 8}},
      {ZIPFFT__KIND_C2C, ZIPFFT_F64, 32, 4, 16, {8, 4}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    zipfft__kernel_spec s = short_kernel_spec(&cases[i]);
    int64_t stride = zipfft__c2c_shared_stride(&s);
    int loads = phase_conflicts(&s, stride, 1), stores = phase_conflicts(&s, stride, s.radices[0]);
    ZT_CHECK(loads == 1 && stores == 1,
             "n=%lld, %d threads a transform: stride %lld puts %d lanes of a phase's loads and "
             "%d of its first stores in one bank",
             (long long)s.n, s.threads_per_fft, (long long)stride, loads, stores);
  }
  test_staged_row_banks();
  /* Where spreading would add more than T slots a row (fp64 C2C 24: 29 -> 36, fewer
   * blocks a multiprocessor), in mirrored kernels and in R2C kernels that split in
   * registers, the padded stride stays. */
  zipfft__kernel_spec wide = {.kind = ZIPFFT__KIND_C2C,
                              .precision = ZIPFFT_F64,
                              .n = 24,
                              .pass_count = 2,
                              .radices = {4, 6},
                              .threads_per_fft = 4,
                              .ffts_per_block = 16,
                              .batch_dims = 1,
                              .in_stride = 1,
                              .out_stride = 1};
  ZT_CHECK(zipfft__c2c_shared_stride(&wide) == 29, "fp64 C2C 24: stride %lld, not 29",
           (long long)zipfft__c2c_shared_stride(&wide));
  wide.n = 32, wide.radices[0] = 8, wide.radices[1] = 4; /* padded 35, spread 36 */
  ZT_CHECK(zipfft__c2c_shared_stride(&wide) == 36, "n=32: stride %lld, not 36",
           (long long)zipfft__c2c_shared_stride(&wide));
  wide.mirrored = 1;
  ZT_CHECK(zipfft__c2c_shared_stride(&wide) == 35, "mirrored n=32: stride %lld, not 35",
           (long long)zipfft__c2c_shared_stride(&wide));
  wide.mirrored = 0, wide.kind = ZIPFFT__KIND_R2C_HALF;
  ZT_CHECK(zipfft__c2c_shared_stride(&wide) == 35, "R2C split in registers: stride %lld, not 35",
           (long long)zipfft__c2c_shared_stride(&wide));
  wide.split_by_element = 1;
  ZT_CHECK(zipfft__c2c_shared_stride(&wide) == 36, "R2C split by element: stride %lld, not 36",
           (long long)zipfft__c2c_shared_stride(&wide));
}

/* fp32 1048573's first kernel of Bluestein's three (1024 points of the padded 2097152, 2048
 * transforms) with the chirp fused into its loads. */
static zipfft__kernel_spec fused_chirp_spec(void) {
  zipfft__kernel_spec s = {.kind = ZIPFFT__KIND_C2C,
                           .precision = ZIPFFT_F32,
                           .sign = -1,
                           .n = 1024,
                           .pass_count = 2,
                           .radices = {32, 32},
                           .threads_per_fft = 32,
                           .ffts_per_block = 16,
                           .fft_major = 1,
                           .in_stride = 2048,
                           .out_stride = 2048,
                           .batch_dims = 2,
                           .batch_counts = {0, 2048},
                           .batch_in_strides = {1048573, 1},
                           .batch_out_strides = {2097152, 1},
                           .scale = 1.0,
                           .twiddle_length = 2097152,
                           .twiddle_chain = 8,
                           .bluestein_load = ZIPFFT__BLUESTEIN_CHIRP,
                           .chirp_n = 1048573,
                           .filter_n = 2097152,
                           .position_step = 2048,
                           .position_steps = {0, 1}};
  return s;
}

/* Fused Bluestein specs the generator refuses, each a change of the filter load spec s. */
static void check_refused_fused_bluestein(const zipfft__kernel_spec *s) {
  static const struct {
    zipfft__bluestein_step store;
    int64_t filter_n;
    zipfft__kernel_kind kind;
    zipfft__bluestein_step load;
    zipfft__chirp_half half;
  } bad[] = {
      {ZIPFFT__BLUESTEIN_CHIRP, 2097152, ZIPFFT__KIND_C2C, ZIPFFT__BLUESTEIN_FILTER,
       ZIPFFT__CHIRP_FULL},
      {ZIPFFT__BLUESTEIN_NONE, 2097144, ZIPFFT__KIND_C2C, ZIPFFT__BLUESTEIN_FILTER,
       ZIPFFT__CHIRP_FULL},
      {ZIPFFT__BLUESTEIN_NONE, 2097152, ZIPFFT__KIND_R2C, ZIPFFT__BLUESTEIN_CHIRP,
       ZIPFFT__CHIRP_FULL},
      /* the C2R half's load where the inputs are not the half, and the other way round */
      {ZIPFFT__BLUESTEIN_NONE, 2097152, ZIPFFT__KIND_C2C, ZIPFFT__BLUESTEIN_CHIRP_HALF,
       ZIPFFT__CHIRP_FULL},
      {ZIPFFT__BLUESTEIN_NONE, 2097152, ZIPFFT__KIND_C2C, ZIPFFT__BLUESTEIN_CHIRP,
       ZIPFFT__CHIRP_HALF_IN},
      {ZIPFFT__BLUESTEIN_CHIRP_HALF, 2097152, ZIPFFT__KIND_C2C, ZIPFFT__BLUESTEIN_NONE,
       ZIPFFT__CHIRP_HALF_IN}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    zipfft__kernel_spec b = *s;
    b.bluestein_store = bad[i].store, b.filter_n = bad[i].filter_n, b.kind = bad[i].kind;
    b.bluestein_load = bad[i].load, b.chirp_half = bad[i].half;
    const char *refused = zipfft__check_spec(&b);
    ZT_CHECK(refused && strstr(refused, "fused Bluestein"), "bad fused spec %zu: %s", i,
             refused ? refused : "accepted");
  }
}

/* Bluestein's chirp-loading column kernel prefetches half the resident blocks ahead after its
 * loads at one block per multiprocessor on either memory (slow memory: the H100 rule of
 * session 88), the complex load and R2C's real one (64-byte runs) alike; at two blocks none. */
static void test_chirp_prefetch_rule(void) {
  zipfft__kernel_spec s = fused_chirp_spec();
  for (int real = 0; real < 2; real++) {
    if (real)
      s.bluestein_load = ZIPFFT__BLUESTEIN_CHIRP_REAL, s.chirp_half = ZIPFFT__CHIRP_HALF_OUT;
    for (int slow = 0; slow < 2; slow++) {
      zipfft__prefetch_distance one = zipfft__prefetch_distance_of(&s, 1, slow);
      int two = zipfft__prefetch_distance_of(&s, 2, slow).eighths;
      ZT_CHECK(one.eighths == 4 && one.after_loads && two == 0,
               "chirp load (real %d, slow memory %d): %d eighths after loads %d, %d at two blocks",
               real, slow, one.eighths, one.after_loads, two);
    }
  }
}

/* A fused Bluestein kernel (plan/long_axis.c append_bluestein): fp32 1048573's first column kernel,
 * loading the chirp, passes zipfft__check_spec, has its chirp (N entries) in its table, and may
 * prefetch (only below the user's rows: its columns would run past them); loading the filter
 * instead, its table holds the padded length's filter and it may prefetch. Refused: a load and a
 * store step on one kernel, a filter shorter than 2N - 1, a real kind, a Hermitian load without its
 * unit. */
static void test_fused_bluestein_specs(void) {
  zipfft__kernel_spec s = fused_chirp_spec();
  const char *refused = zipfft__check_spec(&s);
  ZT_CHECK(refused == NULL, "fused chirp load refused: %s", refused);
  zipfft__table_layout l = zipfft__table_layout_of(&s);
  ZT_CHECK(l.filter - l.chirp == 1048573 && l.count == l.filter, "chirp load's table: %lld, %lld",
           (long long)(l.filter - l.chirp), (long long)(l.count - l.filter));
  /* its prefetch stops at the convolution's inputs (test_c2c run_quick_chirp_prefetch,
   * test_real check_chirp_prefetch), for the C2R half read as it lies too */
  ZT_CHECK(zipfft__can_prefetch_ahead(&s), "a complex chirp load does not prefetch");
  s.bluestein_load = ZIPFFT__BLUESTEIN_CHIRP_REAL;
  s.chirp_half = ZIPFFT__CHIRP_HALF_OUT;
  ZT_CHECK(zipfft__can_prefetch_ahead(&s) && zipfft__check_spec(&s) == NULL,
           "a real chirp load does not prefetch");
  s.filter_n = 1048573 + 524287 - 1; /* R2C's outputs are the half: N + N/2 points suffice */
  ZT_CHECK(zipfft__check_spec(&s) == NULL, "R2C's padding to N + N/2 refused");
  s.filter_n -= 1;
  ZT_CHECK(zipfft__check_spec(&s) != NULL, "R2C's padding below N + N/2 accepted");
  s.bluestein_load = ZIPFFT__BLUESTEIN_CHIRP_HALF, s.chirp_half = ZIPFFT__CHIRP_HALF_IN;
  s.filter_n += 1;
  ZT_CHECK(zipfft__can_prefetch_ahead(&s) && zipfft__check_spec(&s) == NULL,
           "a chirp load of the C2R half does not prefetch or is refused");
  s.chirp_half = ZIPFFT__CHIRP_FULL, s.filter_n = 2097152;
  s.bluestein_load = ZIPFFT__BLUESTEIN_FILTER;
  l = zipfft__table_layout_of(&s);
  ZT_CHECK(zipfft__check_spec(&s) == NULL && l.count - l.filter == 2097152 && l.filter == l.chirp &&
               zipfft__filter_from_plan(&s) && zipfft__can_prefetch_ahead(&s),
           "filter load: %lld filter entries", (long long)(l.count - l.filter));
  check_refused_fused_bluestein(&s);
}

/* The middle kernel of Bluestein's three (fp32 1048573 padded to 2097152 = 1024 x 2048):
 * rows of 2048 with the filter between their FFTs, its entries from the plan, no chirp, no
 * kept spectrum; refused as a column kernel, with a short filter or a missing length. */
static void test_bluestein_middle_spec(void) {
  zipfft__kernel_spec s = {.kind = ZIPFFT__KIND_C2C,
                           .precision = ZIPFFT_F32,
                           .sign = -1,
                           .n = 2048,
                           .pass_count = 3,
                           .radices = {16, 16, 8},
                           .threads_per_fft = 128,
                           .ffts_per_block = 1,
                           .in_stride = 1,
                           .out_stride = 1,
                           .batch_dims = 2,
                           .batch_counts = {0, 1024},
                           .batch_in_strides = {2097152, 2048},
                           .batch_out_strides = {2097152, 2048},
                           .scale = 1.0,
                           .twiddle_length = 2097152,
                           .twiddle_chain = 8,
                           .fused = ZIPFFT__FUSED_BLUESTEIN,
                           .chirp_n = 1048573,
                           .filter_n = 2097152,
                           .position_step = 1,
                           .position_steps = {0, 2048},
                           .passes_in_place = 1};
  const char *refused = zipfft__check_spec(&s);
  ZT_CHECK(refused == NULL, "Bluestein's middle kernel refused: %s", refused);
  zipfft__table_layout l = zipfft__table_layout_of(&s);
  ZT_CHECK(l.filter == l.chirp && l.count - l.filter == 2097152 && zipfft__filter_from_plan(&s) &&
               !zipfft__fused_with_spectrum(&s),
           "middle kernel's table: %lld chirp, %lld filter entries",
           (long long)(l.filter - l.chirp), (long long)(l.count - l.filter));
  zipfft__kernel_spec half = s;
  half.chirp_half = ZIPFFT__CHIRP_HALF_IN, half.filter_n = 1572864; /* C2R's 3 x 2^19 */
  half.n = 1536, half.radices[0] = 12, half.threads_per_fft = 128;
  half.batch_in_strides[1] = half.batch_out_strides[1] = half.position_steps[1] = 1536;
  refused = zipfft__check_spec(&half);
  ZT_CHECK(refused == NULL, "C2R's middle kernel of 1024 x 1536 refused: %s", refused);
  for (int i = 0; i < 4; i++) {
    zipfft__kernel_spec b = s;
    if (i == 0) b.fft_major = 1, b.ffts_per_block = 2;
    if (i == 1) b.filter_n = 2 * b.chirp_n - 2;
    if (i == 2) b.chirp_n = 0;
    if (i == 3) b = half, b.filter_n = b.chirp_n + b.chirp_n / 2 - 1;
    refused = zipfft__check_spec(&b);
    ZT_CHECK(refused && strstr(refused, "fused Bluestein kernel"), "bad middle spec %d: %s", i,
             refused ? refused : "accepted");
  }
}

/* Malformed shapes are refused by the shape's own reason before any rule reads the passes
 * or batch dimensions they would index (no division by a zero thread count or radix, no
 * batch stride read at index -1), whatever else the spec asks for. */
static void test_malformed_specs(void) {
  zipfft__kernel_spec good = {.kind = ZIPFFT__KIND_C2C,
                              .precision = ZIPFFT_F32,
                              .sign = -1,
                              .n = 256,
                              .radices = {16, 16},
                              .pass_count = 2,
                              .threads_per_fft = 16,
                              .ffts_per_block = 4,
                              .batch_dims = 1,
                              .batch_counts = {8},
                              .in_stride = 1,
                              .out_stride = 1,
                              .batch_in_strides = {256},
                              .batch_out_strides = {256},
                              .scale = 1.0,
                              .prefetch_ahead = 4};
  const char *refused = zipfft__check_spec(&good);
  ZT_CHECK(refused == NULL, "the well-formed spec refused: %s", refused);
  static const struct {
    int pass_count, radix, threads, batch_dims;
    int64_t inner_count;
    const char *reason;
  } bad[] = {{0, 16, 16, 1, 1, "bad pass count"},
             {2, 0, 16, 1, 1, "bad radix"},
             {2, 16, 0, 1, 1, "bad thread shape"},
             {2, 16, 16, 0, 1, "bad batch dimensions"},
             {2, 16, 16, ZIPFFT__MAX_BATCH_DIMS + 1, 1, "bad batch dimensions"},
             {2, 16, 16, 2, 0, "bad batch count"},
             {2, 16, 1, 1, 1, "too many values per thread"},
             {2, 8, 16, 1, 1, "radices do not multiply to n"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    zipfft__kernel_spec s = good;
    s.pass_count = bad[i].pass_count, s.radices[1] = bad[i].radix;
    s.threads_per_fft = bad[i].threads, s.batch_dims = bad[i].batch_dims;
    s.batch_counts[1] = bad[i].inner_count, s.batch_in_strides[1] = 1;
    refused = zipfft__check_spec(&s);
    ZT_CHECK(refused && strcmp(refused, bad[i].reason) == 0, "malformed case %zu: %s, want %s", i,
             refused ? refused : "accepted", bad[i].reason);
  }
}

int main(void) {
  test_fused_bluestein_specs();
  test_chirp_prefetch_rule();
  test_bluestein_middle_spec();
  test_determinism_and_names();
  test_dump_dir();
  test_ast_rules();
  test_paired_loads();
  test_bounds();
  test_compiler_failure();
  test_compiler_flags();
  test_awkward_tmpdir();
  test_prefetch_rule();
  test_butterfly_arithmetic();
  test_real_pair_accesses();
  test_short_kernel_banks();
  test_malformed_specs();
  test_read_only_tables();
  test_read_only_tables_rule();
  test_distinct_io();
  return zt_finish("test_generator", 18);
}
