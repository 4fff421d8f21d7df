/* emit_common.c - the expression and statement printer shared by the CUDA and C emitters. */
#include "gen/emit.h"

#include "plan/kernel_spec.h"

#include <stdio.h>
#include <string.h>

typedef struct binop_info {
  const char *text;
  int precedence;
} binop_info;

static const binop_info binops[ZIPFFT__OP_COUNT] = {
    [ZIPFFT__OP_ADD] = {"+", 12},   [ZIPFFT__OP_SUB] = {"-", 12}, [ZIPFFT__OP_MUL] = {"*", 13},
    [ZIPFFT__OP_DIV] = {"/", 13},   [ZIPFFT__OP_MOD] = {"%", 13}, [ZIPFFT__OP_SHR] = {">>", 11},
    [ZIPFFT__OP_BITAND] = {"&", 8}, [ZIPFFT__OP_LT] = {"<", 10},  [ZIPFFT__OP_LE] = {"<=", 10},
    [ZIPFFT__OP_EQ] = {"==", 9},    [ZIPFFT__OP_NE] = {"!=", 9},  [ZIPFFT__OP_AND] = {"&&", 5},
    [ZIPFFT__OP_OR] = {"||", 4},
};

enum { prec_select = 3, prec_unary = 15, prec_primary = 16 };

/* Prints a real constant rounded once to the kernel's precision, always as a real literal. */
static void print_real(zipfft__strbuf *sb, zipfft_precision prec, long double v) {
  char text[64];
  if (prec == ZIPFFT_F32)
    snprintf(text, sizeof text, "%.9g", (double)(float)v);
  else
    snprintf(text, sizeof text, "%.17g", (double)v);
  int has_point = strpbrk(text, ".e") != NULL;
  zipfft__sb_printf(sb, "%s%s%s", text, has_point ? "" : ".0", prec == ZIPFFT_F32 ? "f" : "");
}

void zipfft__emit_var(zipfft__strbuf *sb, const zipfft__dialect *d, const zipfft__var *v) {
  if (d->per_thread_live_vars && v->live_across_barrier)
    zipfft__sb_printf(sb, "%s[%s]", v->name, d->live_index);
  else
    zipfft__sb_printf(sb, "%s", v->name);
}

static int expr_precedence(const zipfft__expr *e) {
  switch (e->kind) {
    case ZIPFFT__E_BINARY:
      return binops[e->u.binary.op].precedence;
    case ZIPFFT__E_SELECT:
      return prec_select;
    case ZIPFFT__E_NEG:
    case ZIPFFT__E_NOT:
    case ZIPFFT__E_CAST:
      return prec_unary;
    case ZIPFFT__E_INT:
      return e->u.int_value < 0 ? prec_unary : prec_primary;
    case ZIPFFT__E_REAL:
      return e->u.real_value < 0 ? prec_unary : prec_primary;
    default:
      return prec_primary;
  }
}

static void print_expr(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                       const zipfft__expr *e, int context);

/* Prints the operands and operator of a binary expression. */
static void print_binary(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                         const zipfft__expr *e) {
  int p = binops[e->u.binary.op].precedence;
  print_expr(sb, d, prec, e->u.binary.lhs, p);
  zipfft__sb_printf(sb, " %s ", binops[e->u.binary.op].text);
  print_expr(sb, d, prec, e->u.binary.rhs, p + 1);
}

/* Prints e; parenthesised when its precedence is below the context's. */
static void print_expr(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                       const zipfft__expr *e, int context) {
  int paren = expr_precedence(e) < context;
  if (paren) zipfft__sb_printf(sb, "(");
  switch (e->kind) {
    case ZIPFFT__E_INT:
      zipfft__sb_printf(sb, "%lld%s", (long long)e->u.int_value,
                        e->type == ZIPFFT__T_I64 ? d->int64_suffix : "");
      break;
    case ZIPFFT__E_REAL:
      print_real(sb, prec, e->u.real_value);
      break;
    case ZIPFFT__E_VAR:
      zipfft__emit_var(sb, d, e->u.var);
      break;
    case ZIPFFT__E_THREAD:
      zipfft__sb_printf(sb, "%s", d->thread_index);
      break;
    case ZIPFFT__E_BLOCK:
      zipfft__sb_printf(sb, "%s", d->block_index);
      break;
    case ZIPFFT__E_RANK:
      zipfft__sb_printf(sb, "zrank");
      break;
    case ZIPFFT__E_RANK_SHARED:
      zipfft__sb_printf(sb, "zrank_shared(%s, ", d->rank_shared_base);
      print_expr(sb, d, prec, e->u.arg, 0);
      zipfft__sb_printf(sb, ")");
      break;
    case ZIPFFT__E_BINARY:
      print_binary(sb, d, prec, e);
      break;
    case ZIPFFT__E_NEG:
      zipfft__sb_printf(sb, "-");
      print_expr(sb, d, prec, e->u.arg, prec_unary);
      break;
    case ZIPFFT__E_NOT:
      zipfft__sb_printf(sb, "!");
      print_expr(sb, d, prec, e->u.arg, prec_unary);
      break;
    case ZIPFFT__E_CAST:
      zipfft__sb_printf(sb, "(%s)", d->type_names[e->type]);
      print_expr(sb, d, prec, e->u.arg, prec_unary);
      break;
    case ZIPFFT__E_SELECT:
      print_expr(sb, d, prec, e->u.select.cond, prec_select + 1);
      zipfft__sb_printf(sb, " ? ");
      print_expr(sb, d, prec, e->u.select.a, prec_select + 1);
      zipfft__sb_printf(sb, " : ");
      print_expr(sb, d, prec, e->u.select.b, prec_select);
      break;
    case ZIPFFT__E_LOAD: {
      int table = e->u.load.array->type == ZIPFFT__T_REAL_TABLE;
      zipfft__sb_printf(sb, "%s%s[", table ? d->table_load_open : "", e->u.load.array->name);
      print_expr(sb, d, prec, e->u.load.index, 0);
      zipfft__sb_printf(sb, "]%s", table ? d->table_load_close : "");
      break;
    }
  }
  if (paren) zipfft__sb_printf(sb, ")");
}

void zipfft__emit_expr(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                       const zipfft__expr *e) {
  print_expr(sb, d, prec, e, 0);
}

static const char *const storage_suffix[] = {"", "_f16", "_bf16"};

/* Prints the accessor call's name and pointer: "zload_f16_vec(in" or "zload_shared(smem";
 * 16-bit data in shared memory (staged input rows) through the global accessors on its bytes. */
static void print_accessor(zipfft__strbuf *sb, const zipfft__dialect *d, int store,
                           const zipfft__var *ptr, zipfft__access access, zipfft_storage storage,
                           int real) {
  if (ptr->type == ZIPFFT__T_SHARED && zipfft__storage_is_16bit(storage))
    zipfft__sb_printf(sb, "%s%s%s%s((%s)%s, ", store ? d->global_store : d->global_load,
                      real ? "_real" : "", storage_suffix[storage],
                      d->access_suffix[ZIPFFT__ACCESS_VECTOR],
                      store ? "unsigned char *" : "const unsigned char *", ptr->name);
  else if (ptr->type == ZIPFFT__T_SHARED)
    zipfft__sb_printf(sb, "%s%s(%s%s, ", store ? d->shared_store : d->shared_load,
                      real ? "_real" : "", store ? d->shared_store_cast : d->shared_load_cast,
                      ptr->name);
  else if (storage == ZIPFFT__STORAGE_CALLBACK) /* the user's function, with its pointer */
    zipfft__sb_printf(sb, "z%s%s_cb(%s, %s, ", store ? "store" : "load", real ? "_real" : "",
                      store ? "store_user" : "load_user", ptr->name);
  else if (ptr->streaming && d->streaming_suffix && access == ZIPFFT__ACCESS_VECTOR && !real &&
           storage == ZIPFFT_STORAGE_DEFAULT)
    zipfft__sb_printf(sb, "%s%s(%s, ", store ? d->global_store : d->global_load,
                      d->streaming_suffix, ptr->name);
  else
    zipfft__sb_printf(sb, "%s%s%s%s(%s, ", store ? d->global_store : d->global_load,
                      real ? "_real" : "", storage_suffix[storage], d->access_suffix[access],
                      ptr->name);
}

/* Prints "load(ptr, index, &re, &im);", or for a pair
 * "load_pair(ptr, index, &re, &im, &re2, &im2);". */
static void print_load_complex(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                               const zipfft__stmt *s) {
  const zipfft__var *out[4] = {s->u.load_complex.re, s->u.load_complex.im, s->u.load_complex.re2,
                               s->u.load_complex.im2};
  if (out[2])
    zipfft__sb_printf(sb, "%s_pair%s%s(%s, ", d->global_load,
                      storage_suffix[s->u.load_complex.storage],
                      d->access_suffix[ZIPFFT__ACCESS_VECTOR], s->u.load_complex.ptr->name);
  else
    print_accessor(sb, d, 0, s->u.load_complex.ptr, s->u.load_complex.access,
                   s->u.load_complex.storage, s->u.load_complex.real_element);
  zipfft__emit_expr(sb, d, prec, s->u.load_complex.index);
  int count = out[2] ? 4 : s->u.load_complex.real_element ? 1 : 2;
  for (int i = 0; i < count; i++) {
    zipfft__sb_printf(sb, ", &");
    zipfft__emit_var(sb, d, out[i]);
  }
  zipfft__sb_printf(sb, ");\n");
}

/* Prints "store(ptr, index, re, im);". */
static void print_store_complex(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                                const zipfft__stmt *s) {
  print_accessor(sb, d, 1, s->u.store_complex.ptr, s->u.store_complex.access,
                 s->u.store_complex.storage, s->u.store_complex.real_element);
  zipfft__emit_expr(sb, d, prec, s->u.store_complex.index);
  zipfft__sb_printf(sb, ", ");
  zipfft__emit_expr(sb, d, prec, s->u.store_complex.re);
  if (!s->u.store_complex.real_element) {
    zipfft__sb_printf(sb, ", ");
    zipfft__emit_expr(sb, d, prec, s->u.store_complex.im);
  }
  zipfft__sb_printf(sb, ");\n");
}

/* Prints a declaration; per-thread copies are declared by the emitter, so only assigned. */
static void print_decl(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                       const zipfft__stmt *s) {
  const zipfft__var *v = s->u.decl.var;
  int hoisted = d->per_thread_live_vars && v->live_across_barrier;
  if (hoisted && !s->u.decl.init) {
    zipfft__sb_printf(sb, ";\n");
    return;
  }
  if (!hoisted) zipfft__sb_printf(sb, "%s ", d->type_names[v->type]);
  zipfft__emit_var(sb, d, v);
  if (s->u.decl.init) {
    zipfft__sb_printf(sb, " = ");
    zipfft__emit_expr(sb, d, prec, s->u.decl.init);
  }
  zipfft__sb_printf(sb, ";\n");
}

/* Prints an if statement with its branches. */
static void print_if(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                     const zipfft__stmt *s, int indent) {
  zipfft__sb_printf(sb, "if (");
  zipfft__emit_expr(sb, d, prec, s->u.if_.cond);
  zipfft__sb_printf(sb, ") {\n");
  zipfft__emit_block(sb, d, prec, &s->u.if_.then_block, indent + 1);
  if (s->u.if_.else_block.first) {
    zipfft__sb_indent(sb, indent);
    zipfft__sb_printf(sb, "} else {\n");
    zipfft__emit_block(sb, d, prec, &s->u.if_.else_block, indent + 1);
  }
  zipfft__sb_indent(sb, indent);
  zipfft__sb_printf(sb, "}\n");
}

void zipfft__emit_stmt(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                       const zipfft__stmt *s, int indent) {
  zipfft__sb_indent(sb, indent);
  switch (s->kind) {
    case ZIPFFT__S_DECL:
      print_decl(sb, d, prec, s);
      break;
    case ZIPFFT__S_ASSIGN:
      zipfft__emit_var(sb, d, s->u.assign.var);
      zipfft__sb_printf(sb, " = ");
      zipfft__emit_expr(sb, d, prec, s->u.assign.value);
      zipfft__sb_printf(sb, ";\n");
      break;
    case ZIPFFT__S_STORE:
      zipfft__sb_printf(sb, "%s[", s->u.store.array->name);
      zipfft__emit_expr(sb, d, prec, s->u.store.index);
      zipfft__sb_printf(sb, "] = ");
      zipfft__emit_expr(sb, d, prec, s->u.store.value);
      zipfft__sb_printf(sb, ";\n");
      break;
    case ZIPFFT__S_LOAD_COMPLEX:
      print_load_complex(sb, d, prec, s);
      break;
    case ZIPFFT__S_STORE_COMPLEX:
      print_store_complex(sb, d, prec, s);
      break;
    case ZIPFFT__S_IF:
      print_if(sb, d, prec, s, indent);
      break;
    case ZIPFFT__S_BARRIER:
      zipfft__sb_printf(sb, "%s\n", s->u.cluster_barrier ? d->cluster_barrier : "__syncthreads();");
      break;
    case ZIPFFT__S_COMMENT:
      zipfft__sb_printf(sb, "// %s\n", s->u.comment);
      break;
    case ZIPFFT__S_FOR:
      zipfft__emit_for_open(sb, d, prec, s);
      zipfft__emit_block(sb, d, prec, &s->u.for_.body, indent + 1);
      zipfft__sb_indent(sb, indent);
      zipfft__sb_printf(sb, "}\n");
      break;
    case ZIPFFT__S_CALL:
      zipfft__sb_printf(sb, "%s(", s->u.call.function);
      for (int i = 0; i < s->u.call.arg_count; i++) {
        if (i) zipfft__sb_printf(sb, ", ");
        zipfft__emit_expr(sb, d, prec, s->u.call.args[i]);
      }
      zipfft__sb_printf(sb, ");\n");
      break;
  }
}

void zipfft__emit_for_open(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                           const zipfft__stmt *s) {
  const char *v = s->u.for_.var->name;
  zipfft__sb_printf(sb, "for (%s %s = 0; %s < ", d->type_names[ZIPFFT__T_I64], v, v);
  zipfft__emit_expr(sb, d, prec, s->u.for_.count);
  zipfft__sb_printf(sb, "; %s++) {\n", v);
}

/* The statistics merge: folds four output reals' maxima (each with its signal index, -1
 * for none) and sums of squares into the arrays at stats (float maximum, int32 index,
 * double sum of squares, `plane` values each), keeping the lowest index on a tie; a pixel
 * whose ok is 0 is skipped. All twelve values are read before anything is written: the
 * compiler cannot tell the arrays apart, so a read after a write waits for a round trip to
 * memory (measured on an H200: reads between writes made the merge a quarter of the
 * statistics kernel). zstats_prefetch asks L2 for a row's statistics (the dialect's
 * zprefetch). zsum_add adds a value to double e of the signals' sum (the signal-sum
 * kernel). Printed in both dialects after the dialect's ZSTAT qualifier and zprefetch. */
const char zipfft__stats_prelude[] =
    "#define ZSTAT_READ(k) float om##k = 0; int oi##k = -1; double oq##k = 0; \\\n"
    "  if (ok##k) { om##k = mx[at##k]; oi##k = ix[at##k]; oq##k = sq[at##k]; }\n"
    "#define ZSTAT_WRITE(k) if (ok##k) { float mf = (float)m##k; \\\n"
    "  if (i##k >= 0 && (oi##k < 0 || mf > om##k || (mf == om##k && i##k < oi##k))) { \\\n"
    "    mx[at##k] = mf; ix[at##k] = (int)i##k; } \\\n"
    "  sq[at##k] = oq##k + (double)q##k; }\n"
    "ZSTAT void zstats_merge4(unsigned char *stats, long long plane,\n"
    "    long long at0, int ok0, zreal m0, long long i0, zreal q0,\n"
    "    long long at1, int ok1, zreal m1, long long i1, zreal q1,\n"
    "    long long at2, int ok2, zreal m2, long long i2, zreal q2,\n"
    "    long long at3, int ok3, zreal m3, long long i3, zreal q3) {\n"
    "  float *mx = (float *)stats;\n"
    "  int *ix = (int *)(stats + 4 * plane);\n"
    "  double *sq = (double *)(stats + 8 * plane);\n"
    "  ZSTAT_READ(0) ZSTAT_READ(1) ZSTAT_READ(2) ZSTAT_READ(3)\n"
    "  ZSTAT_WRITE(0) ZSTAT_WRITE(1) ZSTAT_WRITE(2) ZSTAT_WRITE(3)\n"
    "}\n"
    "ZSTAT void zstats_prefetch(const unsigned char *stats, long long plane, long long first,\n"
    "    long long count) {\n"
    "  zprefetch(stats, 4 * first, 4 * count);\n"
    "  zprefetch(stats, 4 * plane + 4 * first, 4 * count);\n"
    "  zprefetch(stats, 8 * plane + 8 * first, 8 * count);\n"
    "}\n"
    "ZSTAT void zsum_add(unsigned char *sums, long long e, zreal v) {\n"
    "  double *d = (double *)sums;\n"
    "  d[e] += (double)v;\n"
    "}\n";

void zipfft__emit_block(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                        const zipfft__block *b, int indent) {
  for (const zipfft__stmt *s = b->first; s; s = s->next) zipfft__emit_stmt(sb, d, prec, s, indent);
}

void zipfft__emit_params(zipfft__strbuf *sb, const zipfft__dialect *d,
                         const zipfft__kernel_ast *k) {
  for (int i = 0; i < k->param_count; i++) {
    const zipfft__var *v = k->params[i];
    const char *qualifier = v->unaliased && d->unaliased_qualifier ? d->unaliased_qualifier : "";
    zipfft__sb_printf(sb, "%s%s%s %s", i ? ", " : "", d->type_names[v->type], qualifier, v->name);
  }
}

/* The wrappers between the generated accesses and the user's callbacks (by value type). */
static const char *const load_wrapper[2] = {
    "%s void zload_cb(const unsigned char *user, const unsigned char *p, long long i,\n"
    "                 zreal *re, zreal *im) {\n"
    "  zcomplex v = %s((const void *)p, i, (void *)user);\n  *re = v.re;\n  *im = v.im;\n}\n",
    "%s void zload_real_cb(const unsigned char *user, const unsigned char *p, long long i,\n"
    "                      zreal *re) {\n  *re = %s((const void *)p, i, (void *)user);\n}\n"};
static const char *const store_wrapper[2] = {
    "%s void zstore_cb(const unsigned char *user, unsigned char *p, long long i, zreal re,\n"
    "                  zreal im) {\n"
    "  zcomplex v;\n  v.re = re;\n  v.im = im;\n  %s((void *)p, i, v, (void *)user);\n}\n",
    "%s void zstore_real_cb(const unsigned char *user, unsigned char *p, long long i,\n"
    "                       zreal re) {\n  %s((void *)p, i, re, (void *)user);\n}\n"};

void zipfft__emit_callback_prelude(zipfft__strbuf *sb, const char *qualifier,
                                   const zipfft__kernel_ast *k) {
  if (!k->load_callback && !k->store_callback) return;
  zipfft__sb_printf(sb, "typedef struct zcomplex { zreal re, im; } zcomplex;\n");
  zipfft__sb_printf(sb, "#define ZIPFFT_CALLBACK %s\n", qualifier);
  const char *printed = NULL;
  if (k->load_callback) {
    zipfft__sb_printf(sb, "%s\n", k->load_callback->source);
    printed = k->load_callback->source;
  }
  if (k->store_callback && (!printed || strcmp(printed, k->store_callback->source) != 0))
    zipfft__sb_printf(sb, "%s\n", k->store_callback->source);
  if (k->load_callback)
    zipfft__sb_printf(sb, load_wrapper[k->real_in], qualifier, k->load_callback->function);
  if (k->store_callback)
    zipfft__sb_printf(sb, store_wrapper[k->real_out], qualifier, k->store_callback->function);
}
