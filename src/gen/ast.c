/* ast.c - arena allocation, node constructors with constant folding, and the validator. */
#include "gen/ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t used, size;
  max_align_t data[];
} arena_chunk;

struct zipfft__arena {
  arena_chunk *chunks;
  unsigned next_var_id;
  const char *error;
  int out_of_memory;
};

zipfft__arena *zipfft__arena_create(void) { return calloc(1, sizeof(zipfft__arena)); }

void zipfft__arena_destroy(zipfft__arena *a) {
  if (!a) return;
  for (arena_chunk *c = a->chunks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

/* Returns zeroed memory that lives as long as the arena, or NULL (with the sticky error
 * set) when memory runs out. */
void *zipfft__arena_alloc(zipfft__arena *a, size_t bytes) {
  size_t need = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  arena_chunk *c = a->chunks;
  if (!c || c->used + need > c->size) {
    size_t size = need > 65536 ? need : 65536;
    c = malloc(sizeof(arena_chunk) + size);
    if (!c) {
      a->out_of_memory = 1;
      zipfft__arena_set_error(a, "out of memory while building a kernel");
      return NULL;
    }
    c->size = size;
    c->used = 0;
    c->next = a->chunks;
    a->chunks = c;
  }
  void *p = (char *)c->data + c->used;
  c->used += need;
  memset(p, 0, bytes);
  return p;
}

const char *zipfft__arena_printf(zipfft__arena *a, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int len = vsnprintf(NULL, 0, fmt, args);
  va_end(args);
  char *s = zipfft__arena_alloc(a, (size_t)len + 1);
  if (!s) return "";
  va_start(args, fmt);
  vsnprintf(s, (size_t)len + 1, fmt, args);
  va_end(args);
  return s;
}

void zipfft__arena_set_error(zipfft__arena *a, const char *message) {
  if (!a->error) a->error = message;
}

const char *zipfft__arena_error(const zipfft__arena *a) { return a->error; }

/* Allocates a node; on allocation failure returns a shared dummy so builders can go on
 * (the sticky error makes the whole build fail). */
static void *node(zipfft__arena *a, size_t bytes) {
  static _Thread_local max_align_t dummy[8];
  void *p = zipfft__arena_alloc(a, bytes);
  if (p) return p;
  memset(dummy, 0, sizeof dummy);
  return dummy;
}

const zipfft__var *zipfft__var_new(zipfft__arena *a, const char *prefix, zipfft__type t) {
  zipfft__var *v = node(a, sizeof *v);
  v->name = zipfft__arena_printf(a, "%s%u", prefix, a->next_var_id++);
  v->type = t;
  return v;
}

const zipfft__var *zipfft__var_new_bounded(zipfft__arena *a, const char *prefix, zipfft__type t,
                                           int64_t bound) {
  zipfft__var *v = (zipfft__var *)zipfft__var_new(a, prefix, t);
  v->bound = bound > 0 ? bound : 0;
  return v;
}

const zipfft__var *zipfft__var_new_live(zipfft__arena *a, const char *prefix, zipfft__type t) {
  zipfft__var *v = (zipfft__var *)zipfft__var_new(a, prefix, t);
  v->live_across_barrier = 1;
  return v;
}

const zipfft__var *zipfft__param_new(zipfft__arena *a, const char *name, zipfft__type t) {
  zipfft__var *v = node(a, sizeof *v);
  v->name = name;
  v->type = t;
  v->is_param = 1;
  return v;
}

const zipfft__var *zipfft__param_new_flagged(zipfft__arena *a, const char *name, zipfft__type t,
                                             int flags) {
  zipfft__var *v = (zipfft__var *)zipfft__param_new(a, name, t);
  if (v) {
    v->streaming = (flags & ZIPFFT__PARAM_STREAMING) != 0;
    v->unaliased = (flags & ZIPFFT__PARAM_UNALIASED) != 0;
  }
  return v;
}

static zipfft__expr *expr(zipfft__arena *a, zipfft__expr_kind k, zipfft__type t) {
  zipfft__expr *e = node(a, sizeof *e);
  e->kind = k;
  e->type = t;
  return e;
}

const zipfft__expr *zipfft__e_int(zipfft__arena *a, zipfft__type t, int64_t v) {
  if (t == ZIPFFT__T_I32 && (v > INT32_MAX || v < INT32_MIN)) t = ZIPFFT__T_I64;
  zipfft__expr *e = expr(a, ZIPFFT__E_INT, t);
  e->u.int_value = v;
  return e;
}

const zipfft__expr *zipfft__e_i32(zipfft__arena *a, int64_t v) {
  return zipfft__e_int(a, ZIPFFT__T_I32, v);
}

const zipfft__expr *zipfft__e_real(zipfft__arena *a, long double v) {
  zipfft__expr *e = expr(a, ZIPFFT__E_REAL, ZIPFFT__T_REAL);
  e->u.real_value = v;
  return e;
}

const zipfft__expr *zipfft__e_var(zipfft__arena *a, const zipfft__var *v) {
  zipfft__expr *e = expr(a, ZIPFFT__E_VAR, v->type);
  e->u.var = v;
  return e;
}

const zipfft__expr *zipfft__e_thread(zipfft__arena *a) {
  return expr(a, ZIPFFT__E_THREAD, ZIPFFT__T_I32);
}

const zipfft__expr *zipfft__e_block(zipfft__arena *a) {
  return expr(a, ZIPFFT__E_BLOCK, ZIPFFT__T_I64);
}

const zipfft__expr *zipfft__e_rank(zipfft__arena *a) {
  return expr(a, ZIPFFT__E_RANK, ZIPFFT__T_I32);
}

const zipfft__expr *zipfft__e_rank_shared(zipfft__arena *a, const zipfft__expr *rank) {
  zipfft__expr *e = expr(a, ZIPFFT__E_RANK_SHARED, ZIPFFT__T_SHARED);
  e->u.arg = rank;
  return e;
}

static int is_int_const(const zipfft__expr *e, int64_t v) {
  return e->kind == ZIPFFT__E_INT && e->u.int_value == v;
}

static int is_real_const(const zipfft__expr *e, long double v) {
  return e->kind == ZIPFFT__E_REAL && e->u.real_value == v;
}

static int is_one(const zipfft__expr *e) { return is_int_const(e, 1) || is_real_const(e, 1); }
static int is_zero(const zipfft__expr *e) { return is_int_const(e, 0) || is_real_const(e, 0); }

static int is_comparison(zipfft__binop op) { return op >= ZIPFFT__OP_LT; }

static zipfft__type result_type(zipfft__binop op, zipfft__type l, zipfft__type r) {
  if (is_comparison(op)) return ZIPFFT__T_BOOL;
  if (l == ZIPFFT__T_REAL || r == ZIPFFT__T_REAL) return ZIPFFT__T_REAL;
  if (l == ZIPFFT__T_I64 || r == ZIPFFT__T_I64) return ZIPFFT__T_I64;
  return ZIPFFT__T_I32;
}

/* Folds two integer constants; returns 0 when the operation is not folded. */
static int fold_ints(zipfft__binop op, int64_t l, int64_t r, int64_t *out) {
  switch (op) {
    case ZIPFFT__OP_ADD:
      *out = l + r;
      return 1;
    case ZIPFFT__OP_SUB:
      *out = l - r;
      return 1;
    case ZIPFFT__OP_MUL:
      *out = l * r;
      return 1;
    case ZIPFFT__OP_DIV:
      if (r == 0) return 0;
      *out = l / r;
      return 1;
    case ZIPFFT__OP_MOD:
      if (r == 0) return 0;
      *out = l % r;
      return 1;
    case ZIPFFT__OP_SHR:
      *out = l >> r;
      return 1;
    case ZIPFFT__OP_BITAND:
      *out = l & r;
      return 1;
    default:
      return 0;
  }
}

/* Folds two real constants in long double; returns 0 when not folded. */
static int fold_reals(zipfft__binop op, long double l, long double r, long double *out) {
  switch (op) {
    case ZIPFFT__OP_ADD:
      *out = l + r;
      return 1;
    case ZIPFFT__OP_SUB:
      *out = l - r;
      return 1;
    case ZIPFFT__OP_MUL:
      *out = l * r;
      return 1;
    default:
      return 0;
  }
}

/* Exclusive bound of a binary operation on operands bounded by l and r (0: unknown). The
 * bounds stay far below 2^62 (indices of one kernel), so the products do not overflow. */
static int64_t binary_bound(zipfft__binop op, int64_t l, int64_t r, const zipfft__expr *rhs) {
  int64_t k = rhs->kind == ZIPFFT__E_INT ? rhs->u.int_value : -1;
  if (op == ZIPFFT__OP_MOD && k > 0) return l > 0 && l < k ? l : k;
  if (op == ZIPFFT__OP_BITAND && k >= 0) return l > 0 && l <= k ? l : k + 1;
  if (l <= 0 || r <= 0) return 0;
  switch (op) {
    case ZIPFFT__OP_ADD:
      return l + r - 1;
    case ZIPFFT__OP_MUL:
      return (l - 1) * (r - 1) + 1;
    case ZIPFFT__OP_DIV:
      return k > 0 ? (l - 1) / k + 1 : 0;
    case ZIPFFT__OP_SHR:
      return k >= 0 && k < 62 ? ((l - 1) >> k) + 1 : 0;
    default:
      return 0;
  }
}

int64_t zipfft__expr_bound(const zipfft__expr *e) {
  if (e->type != ZIPFFT__T_I32 && e->type != ZIPFFT__T_I64) return 0;
  switch (e->kind) {
    case ZIPFFT__E_INT:
      return e->u.int_value >= 0 ? e->u.int_value + 1 : 0;
    case ZIPFFT__E_VAR:
      return e->u.var->bound;
    case ZIPFFT__E_CAST:
      return zipfft__expr_bound(e->u.arg);
    case ZIPFFT__E_BINARY:
      return binary_bound(e->u.binary.op, zipfft__expr_bound(e->u.binary.lhs),
                          zipfft__expr_bound(e->u.binary.rhs), e->u.binary.rhs);
    default:
      return 0;
  }
}

int64_t zipfft__expr_floor(const zipfft__expr *e) {
  if (e->type != ZIPFFT__T_I32 && e->type != ZIPFFT__T_I64) return -1;
  if (e->kind == ZIPFFT__E_INT) return e->u.int_value >= 0 ? e->u.int_value : -1;
  if (e->kind == ZIPFFT__E_VAR) return e->u.var->bound > 0 ? 0 : -1;
  if (e->kind == ZIPFFT__E_CAST) return zipfft__expr_floor(e->u.arg);
  if (e->kind != ZIPFFT__E_BINARY) return -1;
  int64_t l = zipfft__expr_floor(e->u.binary.lhs), r = zipfft__expr_floor(e->u.binary.rhs);
  if (l < 0 || r < 0) return -1;
  if (e->u.binary.op == ZIPFFT__OP_ADD) return l + r;
  if (e->u.binary.op == ZIPFFT__OP_MUL) return l * r;
  return -1;
}

/* Identity simplifications (x+0, x*1, x/1, x-0, 0-x, int x*0, x%1) keeping the result type. */
static const zipfft__expr *fold_identity(zipfft__arena *a, zipfft__binop op, const zipfft__expr *l,
                                         const zipfft__expr *r, zipfft__type t) {
  int keep_l = l->type == t, keep_r = r->type == t;
  if (op == ZIPFFT__OP_ADD && is_zero(r) && keep_l) return l;
  if (op == ZIPFFT__OP_ADD && is_zero(l) && keep_r) return r;
  if (op == ZIPFFT__OP_SUB && is_zero(r) && keep_l) return l;
  if (op == ZIPFFT__OP_SUB && is_zero(l) && keep_r) return zipfft__e_neg(a, r);
  if (op == ZIPFFT__OP_MUL && is_one(r) && keep_l) return l;
  if (op == ZIPFFT__OP_MUL && is_one(l) && keep_r) return r;
  if (op == ZIPFFT__OP_DIV && is_one(r) && keep_l) return l;
  if (t != ZIPFFT__T_REAL && op == ZIPFFT__OP_MUL && (is_zero(l) || is_zero(r)))
    return zipfft__e_int(a, t, 0);
  if (t != ZIPFFT__T_REAL && op == ZIPFFT__OP_MOD && is_one(r)) return zipfft__e_int(a, t, 0);
  if (op == ZIPFFT__OP_AND && is_int_const(l, 1) && l->type == t && keep_r) return r;
  if (op == ZIPFFT__OP_AND && is_int_const(r, 1) && r->type == t && keep_l) return l;
  return NULL;
}

const zipfft__expr *zipfft__e_bin(zipfft__arena *a, zipfft__binop op, const zipfft__expr *l,
                                  const zipfft__expr *r) {
  zipfft__type t = result_type(op, l->type, r->type);
  if (l->kind == ZIPFFT__E_INT && r->kind == ZIPFFT__E_INT) {
    int64_t v;
    if (fold_ints(op, l->u.int_value, r->u.int_value, &v)) return zipfft__e_int(a, t, v);
  }
  if (l->kind == ZIPFFT__E_REAL && r->kind == ZIPFFT__E_REAL) {
    long double v;
    if (fold_reals(op, l->u.real_value, r->u.real_value, &v)) return zipfft__e_real(a, v);
  }
  const zipfft__expr *simple = fold_identity(a, op, l, r, t);
  if (simple) return simple;
  if (op == ZIPFFT__OP_LT && r->kind == ZIPFFT__E_INT) {
    int64_t bound = zipfft__expr_bound(l);
    if (bound > 0 && bound <= r->u.int_value) return zipfft__e_int(a, ZIPFFT__T_BOOL, 1);
  }
  zipfft__expr *e = expr(a, ZIPFFT__E_BINARY, t);
  e->u.binary.op = op;
  e->u.binary.lhs = l;
  e->u.binary.rhs = r;
  return e;
}

const zipfft__expr *zipfft__e_neg(zipfft__arena *a, const zipfft__expr *x) {
  if (x->kind == ZIPFFT__E_REAL) return zipfft__e_real(a, -x->u.real_value);
  if (x->kind == ZIPFFT__E_INT) return zipfft__e_int(a, x->type, -x->u.int_value);
  if (x->kind == ZIPFFT__E_NEG) return x->u.arg;
  zipfft__expr *e = expr(a, ZIPFFT__E_NEG, x->type);
  e->u.arg = x;
  return e;
}

const zipfft__expr *zipfft__e_not(zipfft__arena *a, const zipfft__expr *x) {
  zipfft__expr *e = expr(a, ZIPFFT__E_NOT, ZIPFFT__T_BOOL);
  e->u.arg = x;
  return e;
}

const zipfft__expr *zipfft__e_cast(zipfft__arena *a, zipfft__type t, const zipfft__expr *x) {
  if (x->type == t) return x;
  if (x->kind == ZIPFFT__E_INT && t != ZIPFFT__T_REAL) return zipfft__e_int(a, t, x->u.int_value);
  zipfft__expr *e = expr(a, ZIPFFT__E_CAST, t);
  e->u.arg = x;
  return e;
}

const zipfft__expr *zipfft__e_select(zipfft__arena *a, const zipfft__expr *c, const zipfft__expr *x,
                                     const zipfft__expr *y) {
  zipfft__expr *e = expr(a, ZIPFFT__E_SELECT, x->type);
  e->u.select.cond = c;
  e->u.select.a = x;
  e->u.select.b = y;
  return e;
}

const zipfft__expr *zipfft__e_load(zipfft__arena *a, const zipfft__var *array,
                                   const zipfft__expr *index) {
  zipfft__expr *e = expr(a, ZIPFFT__E_LOAD, ZIPFFT__T_REAL);
  e->u.load.array = array;
  e->u.load.index = index;
  return e;
}

static zipfft__stmt *stmt(zipfft__arena *a, zipfft__block *b, zipfft__stmt_kind k) {
  zipfft__stmt *s = node(a, sizeof *s);
  s->kind = k;
  s->next = NULL;
  if (b->last)
    b->last->next = s;
  else
    b->first = s;
  b->last = s;
  return s;
}

void zipfft__s_decl(zipfft__arena *a, zipfft__block *b, const zipfft__var *v,
                    const zipfft__expr *init) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_DECL);
  s->u.decl.var = v;
  s->u.decl.init = init;
}

void zipfft__s_assign(zipfft__arena *a, zipfft__block *b, const zipfft__var *v,
                      const zipfft__expr *value) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_ASSIGN);
  s->u.assign.var = v;
  s->u.assign.value = value;
}

void zipfft__s_store(zipfft__arena *a, zipfft__block *b, const zipfft__var *array,
                     const zipfft__expr *index, const zipfft__expr *value) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_STORE);
  s->u.store.array = array;
  s->u.store.index = index;
  s->u.store.value = value;
}

void zipfft__s_load_complex(zipfft__arena *a, zipfft__block *b, const zipfft__var *re,
                            const zipfft__var *im, const zipfft__var *ptr,
                            const zipfft__expr *index, zipfft__access access,
                            zipfft_storage storage) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_LOAD_COMPLEX);
  s->u.load_complex.re = re;
  s->u.load_complex.im = im;
  s->u.load_complex.ptr = ptr;
  s->u.load_complex.index = index;
  s->u.load_complex.access = access;
  s->u.load_complex.storage = storage;
}

void zipfft__s_load_complex_pair(zipfft__arena *a, zipfft__block *b, const zipfft__var *re,
                                 const zipfft__var *im, const zipfft__var *re2,
                                 const zipfft__var *im2, const zipfft__var *ptr,
                                 const zipfft__expr *index, zipfft_storage storage) {
  zipfft__s_load_complex(a, b, re, im, ptr, index, ZIPFFT__ACCESS_VECTOR, storage);
  b->last->u.load_complex.re2 = re2;
  b->last->u.load_complex.im2 = im2;
}

void zipfft__s_store_complex(zipfft__arena *a, zipfft__block *b, const zipfft__var *ptr,
                             const zipfft__expr *index, const zipfft__expr *re,
                             const zipfft__expr *im, zipfft__access access,
                             zipfft_storage storage) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_STORE_COMPLEX);
  s->u.store_complex.ptr = ptr;
  s->u.store_complex.index = index;
  s->u.store_complex.re = re;
  s->u.store_complex.im = im;
  s->u.store_complex.access = access;
  s->u.store_complex.storage = storage;
}

void zipfft__s_load_real(zipfft__arena *a, zipfft__block *b, const zipfft__var *re,
                         const zipfft__var *ptr, const zipfft__expr *index, zipfft__access access,
                         zipfft_storage storage) {
  zipfft__s_load_complex(a, b, re, NULL, ptr, index, access, storage);
  b->last->u.load_complex.real_element = 1;
}

void zipfft__s_store_real(zipfft__arena *a, zipfft__block *b, const zipfft__var *ptr,
                          const zipfft__expr *index, const zipfft__expr *re, zipfft__access access,
                          zipfft_storage storage) {
  zipfft__s_store_complex(a, b, ptr, index, re, re, access, storage);
  b->last->u.store_complex.real_element = 1;
}

zipfft__stmt *zipfft__s_if(zipfft__arena *a, zipfft__block *b, const zipfft__expr *cond) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_IF);
  s->u.if_.cond = cond;
  return s;
}

void zipfft__s_barrier(zipfft__arena *a, zipfft__block *b) { stmt(a, b, ZIPFFT__S_BARRIER); }

void zipfft__s_cluster_barrier(zipfft__arena *a, zipfft__block *b) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_BARRIER);
  s->u.cluster_barrier = 1;
}

zipfft__stmt *zipfft__s_for(zipfft__arena *a, zipfft__block *b, const zipfft__var *var,
                            const zipfft__expr *count) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_FOR);
  s->u.for_.var = var;
  s->u.for_.count = count;
  return s;
}

void zipfft__s_call(zipfft__arena *a, zipfft__block *b, const char *function, int arg_count,
                    const zipfft__expr *const *args) {
  if (arg_count > ZIPFFT__MAX_CALL_ARGS) {
    zipfft__arena_set_error(a, "too many call arguments");
    return;
  }
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_CALL);
  s->u.call.function = function;
  s->u.call.arg_count = arg_count;
  for (int i = 0; i < arg_count; i++) s->u.call.args[i] = args[i];
}

void zipfft__s_comment(zipfft__arena *a, zipfft__block *b, const char *text) {
  zipfft__stmt *s = stmt(a, b, ZIPFFT__S_COMMENT);
  s->u.comment = text;
}

/* Walks a nested block: any barrier or misuse of a pointer there is an error. */
static const char *validate_block(const zipfft__block *b, int top_level) {
  for (const zipfft__stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
      case ZIPFFT__S_BARRIER:
        if (!top_level) return "barrier under control flow (must be uniform, top level)";
        break;
      case ZIPFFT__S_FOR: {
        const char *m = validate_block(&s->u.for_.body, top_level);
        if (m) return m;
        break;
      }
      case ZIPFFT__S_IF: {
        const char *m = validate_block(&s->u.if_.then_block, 0);
        if (!m) m = validate_block(&s->u.if_.else_block, 0);
        if (m) return m;
        break;
      }
      case ZIPFFT__S_LOAD_COMPLEX:
        if (s->u.load_complex.ptr->type != ZIPFFT__T_BYTES_IN &&
            s->u.load_complex.ptr->type != ZIPFFT__T_BYTES_OUT &&
            s->u.load_complex.ptr->type != ZIPFFT__T_SHARED)
          return "complex load from a non-global pointer";
        if (s->u.load_complex.re2 && (s->u.load_complex.ptr->type == ZIPFFT__T_SHARED ||
                                      (int)s->u.load_complex.storage > ZIPFFT_STORAGE_BF16))
          return "paired complex load from shared memory or through a callback";
        break;
      case ZIPFFT__S_STORE_COMPLEX:
        if (s->u.store_complex.ptr->type != ZIPFFT__T_BYTES_OUT &&
            s->u.store_complex.ptr->type != ZIPFFT__T_SHARED)
          return "complex store to a non-output pointer";
        break;
      case ZIPFFT__S_STORE:
        if (s->u.store.array->type != ZIPFFT__T_SHARED) return "store to a non-shared array";
        break;
      default:
        break;
    }
  }
  return NULL;
}

int zipfft__block_any(const zipfft__block *b, int (*match)(const zipfft__stmt *s)) {
  for (const zipfft__stmt *s = b->first; s; s = s->next) {
    if (match(s)) return 1;
    if (s->kind == ZIPFFT__S_IF && (zipfft__block_any(&s->u.if_.then_block, match) ||
                                    zipfft__block_any(&s->u.if_.else_block, match)))
      return 1;
    if (s->kind == ZIPFFT__S_FOR && zipfft__block_any(&s->u.for_.body, match)) return 1;
  }
  return 0;
}

const char *zipfft__kernel_validate(const zipfft__kernel_ast *k) {
  if (k->param_count > ZIPFFT__MAX_PARAMS) return "too many kernel parameters";
  return validate_block(&k->body, 1);
}
