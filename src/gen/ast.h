/* ast.h - the kernel abstract syntax tree: typed expressions and statements in an arena. */
#ifndef ZIPFFT_AST_H
#define ZIPFFT_AST_H

#include <stddef.h>
#include <stdint.h>

#include "zipfft.h"

typedef enum zipfft__type {
  ZIPFFT__T_I32,
  ZIPFFT__T_I64,
  ZIPFFT__T_BOOL,
  ZIPFFT__T_REAL,       /* float or double, fixed per kernel */
  ZIPFFT__T_BYTES_IN,   /* global input: const byte pointer (any alignment) */
  ZIPFFT__T_BYTES_OUT,  /* global output: byte pointer */
  ZIPFFT__T_REAL_TABLE, /* global read-only real table (aligned) */
  ZIPFFT__T_SHARED      /* the block's shared real array */
} zipfft__type;

typedef struct zipfft__var {
  const char *name;
  zipfft__type type;
  int is_param;
  int live_across_barrier; /* thread-private value used on both sides of a barrier */
  int64_t bound;           /* > 0: an integer that lies in [0, bound), never reassigned */
  /* A parameter whose global data the kernel touches once: its aligned complex accesses are
   * evict-first where the dialect has them (CUDA: ld/st.global.cs). */
  int streaming;
  /* A parameter whose global data the kernel reaches through no other name: the plan's
   * tables, which nothing writes while the kernel runs, and the in and out arrays of a
   * kernel whose arrays never overlap (kernel_spec distinct_io). Declared so where the
   * dialect can say it (CUDA: __restrict__, which lets the compiler move loads through
   * other pointers, shared memory's included, past its stores, and read a const one
   * through the read-only path). */
  int unaliased;
} zipfft__var;

typedef enum zipfft__expr_kind {
  ZIPFFT__E_INT,  /* integer constant of type I32 or I64 */
  ZIPFFT__E_REAL, /* real constant */
  ZIPFFT__E_VAR,
  ZIPFFT__E_THREAD, /* thread index in the block (I32) */
  ZIPFFT__E_BLOCK,  /* block index in the grid (I64) */
  ZIPFFT__E_BINARY,
  ZIPFFT__E_NEG,
  ZIPFFT__E_NOT,
  ZIPFFT__E_CAST,       /* to the expression's type */
  ZIPFFT__E_SELECT,     /* cond ? a : b */
  ZIPFFT__E_LOAD,       /* array[index] from a REAL_TABLE or SHARED array */
  ZIPFFT__E_RANK,       /* block's rank in its cluster (I32; 0 without clusters) */
  ZIPFFT__E_RANK_SHARED /* the shared array of the cluster's block `arg` (SHARED) */
} zipfft__expr_kind;

typedef enum zipfft__binop {
  ZIPFFT__OP_ADD,
  ZIPFFT__OP_SUB,
  ZIPFFT__OP_MUL,
  ZIPFFT__OP_DIV,
  ZIPFFT__OP_MOD,
  ZIPFFT__OP_SHR,    /* arithmetic shift right of a non-negative integer */
  ZIPFFT__OP_BITAND, /* bitwise and of integers */
  ZIPFFT__OP_LT,
  ZIPFFT__OP_LE,
  ZIPFFT__OP_EQ,
  ZIPFFT__OP_NE,
  ZIPFFT__OP_AND,
  ZIPFFT__OP_OR,
  ZIPFFT__OP_COUNT
} zipfft__binop;

typedef struct zipfft__expr zipfft__expr;
struct zipfft__expr {
  zipfft__expr_kind kind;
  zipfft__type type;
  union {
    int64_t int_value;
    long double real_value;
    const zipfft__var *var;
    struct {
      zipfft__binop op;
      const zipfft__expr *lhs, *rhs;
    } binary;
    const zipfft__expr *arg; /* NEG, NOT, CAST */
    struct {
      const zipfft__expr *cond, *a, *b;
    } select;
    struct {
      const zipfft__var *array;
      const zipfft__expr *index;
    } load;
  } u;
};

typedef enum zipfft__stmt_kind {
  ZIPFFT__S_DECL, /* declare var (= init if not NULL) */
  ZIPFFT__S_ASSIGN,
  ZIPFFT__S_STORE,         /* shared[index] = value */
  ZIPFFT__S_LOAD_COMPLEX,  /* (re, im) = complex element `index` of global or shared memory */
  ZIPFFT__S_STORE_COMPLEX, /* complex element `index` of global or shared memory = (re, im) */
  ZIPFFT__S_IF,
  ZIPFFT__S_BARRIER, /* block-wide (or cluster-wide) barrier; only at the top level of a kernel
                      (or of a loop there) */
  ZIPFFT__S_COMMENT,
  ZIPFFT__S_FOR, /* for (var = 0; var < count; var++) body: count uniform over the block */
  ZIPFFT__S_CALL /* a function of the emitters' prelude, called for its effect */
} zipfft__stmt_kind;

enum { ZIPFFT__MAX_CALL_ARGS = 26 };

/* How a complex element is moved between registers and global memory. */
typedef enum zipfft__access {
  ZIPFFT__ACCESS_VECTOR, /* one naturally aligned 2-real vector access */
  ZIPFFT__ACCESS_BYTES   /* byte-wise copy: any alignment */
} zipfft__access;

typedef struct zipfft__stmt zipfft__stmt;
typedef struct zipfft__block {
  zipfft__stmt *first, *last;
} zipfft__block;

struct zipfft__stmt {
  zipfft__stmt_kind kind;
  zipfft__stmt *next;
  union {
    struct {
      const zipfft__var *var;
      const zipfft__expr *init;
    } decl;
    struct {
      const zipfft__var *var;
      const zipfft__expr *value;
    } assign;
    struct {
      const zipfft__var *array;
      const zipfft__expr *index, *value;
    } store;
    struct {
      const zipfft__var *re, *im, *ptr;
      const zipfft__expr *index;
      zipfft__access access;
      zipfft_storage storage;
      int real_element; /* one real, not a complex pair: im is NULL */
      /* not NULL: element index + 1 too, into (re2, im2), in one vector access of two
       * elements (index even from an address aligned to two) */
      const zipfft__var *re2, *im2;
    } load_complex;
    struct {
      const zipfft__var *ptr;
      const zipfft__expr *index, *re, *im;
      zipfft__access access;
      zipfft_storage storage;
      int real_element; /* one real (re), not a complex pair: im is ignored */
    } store_complex;
    struct {
      const zipfft__expr *cond;
      zipfft__block then_block, else_block;
    } if_;
    const char *comment;
    int cluster_barrier; /* BARRIER: every block of the cluster waits, and its shared-memory
                            writes become visible to the others */
    struct {
      const zipfft__var *var;
      const zipfft__expr *count;
      zipfft__block body;
    } for_;
    struct {
      const char *function;
      int arg_count;
      const zipfft__expr *args[ZIPFFT__MAX_CALL_ARGS];
    } call;
  } u;
};

enum { ZIPFFT__MAX_PARAMS = 16 };

/* A whole kernel: its signature, launch shape and body. */
typedef struct zipfft__kernel_ast {
  const char *name;
  zipfft_precision precision;
  const zipfft__var *params[ZIPFFT__MAX_PARAMS];
  int param_count;
  const zipfft__var *shared; /* NULL when the kernel uses no shared memory */
  unsigned block_threads;
  size_t shared_bytes;
  int uses_statistics; /* calls zstats_merge4 or zsum_add (the emitters print their prelude) */
  int uses_prefetch;   /* calls zprefetch (the emitters print it) */
  int uses_pair;       /* calls the pair kernel's zpair_* functions (their prelude) */
  int uses_stage;      /* calls zstage_* (statistics kernels with stage_rows; their prelude) */
  int min_blocks;      /* > 0: blocks per multiprocessor the CUDA compiler must allow */
  /* > 1: blocks of a thread-block cluster, which see each other's shared memory (through
   * E_RANK_SHARED); the grid is a whole number of clusters. */
  int cluster_blocks;
  /* User callbacks of the loads and stores (NULL: none), and whether the kernel's input
   * and output elements are reals (the callbacks' value types). */
  const struct zipfft__callback *load_callback, *store_callback;
  int real_in, real_out;
  zipfft__block body;
} zipfft__kernel_ast;

/* The arena every node of one kernel lives in; errors are sticky and checked once. */
typedef struct zipfft__arena zipfft__arena;

zipfft__arena *zipfft__arena_create(void);
void zipfft__arena_destroy(zipfft__arena *a);
void *zipfft__arena_alloc(zipfft__arena *a, size_t bytes);
/* Copies a formatted string into the arena. */
const char *zipfft__arena_printf(zipfft__arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Records the first error of a build (later ones are ignored); NULL when none. */
void zipfft__arena_set_error(zipfft__arena *a, const char *message);
const char *zipfft__arena_error(const zipfft__arena *a);

/* Variables. A fresh variable gets a unique name from the prefix. */
const zipfft__var *zipfft__var_new(zipfft__arena *a, const char *prefix, zipfft__type t);
/* An integer variable known to lie in [0, bound) (bound > 0; 0: unknown); the caller
 * declares it once and never assigns it. Comparisons `v + ... < constant` that the bound
 * decides fold to constants (zipfft__expr_bound). */
const zipfft__var *zipfft__var_new_bounded(zipfft__arena *a, const char *prefix, zipfft__type t,
                                           int64_t bound);
/* An exclusive upper bound (0: none known) of an integer expression built from non-negative
 * constants, bounded variables, +, *, /, %, >> and & (x % k and x & k are bounded whatever
 * x is); zipfft__e_bin folds `e < k` to true when it is at most k. */
int64_t zipfft__expr_bound(const zipfft__expr *e);
/* The least value (>= 0) an integer expression built from non-negative constants, bounded
 * variables (at least 0), + and * can take; -1 when not known. */
int64_t zipfft__expr_floor(const zipfft__expr *e);
/* A thread-private variable whose value is used after a barrier (the C emitter keeps one
 * copy per thread for it). */
const zipfft__var *zipfft__var_new_live(zipfft__arena *a, const char *prefix, zipfft__type t);
const zipfft__var *zipfft__param_new(zipfft__arena *a, const char *name, zipfft__type t);
/* A parameter with the flags of zipfft__var that `flags` names (zipfft__param_flag). */
typedef enum zipfft__param_flag {
  ZIPFFT__PARAM_STREAMING = 1,
  ZIPFFT__PARAM_UNALIASED = 2
} zipfft__param_flag;
const zipfft__var *zipfft__param_new_flagged(zipfft__arena *a, const char *name, zipfft__type t,
                                             int flags);

/* Expressions (constant operands are folded where exact). An I32 constant outside the
 * 32-bit range is made I64, so an index expression it enters is computed in 64 bits (a
 * cast of such a constant to I32 keeps its value, and so stays I64). */
const zipfft__expr *zipfft__e_int(zipfft__arena *a, zipfft__type t, int64_t v);
const zipfft__expr *zipfft__e_i32(zipfft__arena *a, int64_t v);
const zipfft__expr *zipfft__e_real(zipfft__arena *a, long double v);
const zipfft__expr *zipfft__e_var(zipfft__arena *a, const zipfft__var *v);
const zipfft__expr *zipfft__e_thread(zipfft__arena *a);
const zipfft__expr *zipfft__e_block(zipfft__arena *a);
/* The block's rank in its cluster, and the shared array of the cluster's block `rank`. */
const zipfft__expr *zipfft__e_rank(zipfft__arena *a);
const zipfft__expr *zipfft__e_rank_shared(zipfft__arena *a, const zipfft__expr *rank);
const zipfft__expr *zipfft__e_bin(zipfft__arena *a, zipfft__binop op, const zipfft__expr *l,
                                  const zipfft__expr *r);
const zipfft__expr *zipfft__e_neg(zipfft__arena *a, const zipfft__expr *x);
const zipfft__expr *zipfft__e_not(zipfft__arena *a, const zipfft__expr *x);
const zipfft__expr *zipfft__e_cast(zipfft__arena *a, zipfft__type t, const zipfft__expr *x);
const zipfft__expr *zipfft__e_select(zipfft__arena *a, const zipfft__expr *c, const zipfft__expr *x,
                                     const zipfft__expr *y);
const zipfft__expr *zipfft__e_load(zipfft__arena *a, const zipfft__var *array,
                                   const zipfft__expr *index);

/* Statements are appended to a block. */
void zipfft__s_decl(zipfft__arena *a, zipfft__block *b, const zipfft__var *v,
                    const zipfft__expr *init);
void zipfft__s_assign(zipfft__arena *a, zipfft__block *b, const zipfft__var *v,
                      const zipfft__expr *value);
void zipfft__s_store(zipfft__arena *a, zipfft__block *b, const zipfft__var *array,
                     const zipfft__expr *index, const zipfft__expr *value);
/* Loads and stores of complex elements; `storage` says how the element is kept in memory
 * (ZIPFFT_STORAGE_DEFAULT: the kernel's own real type; shared memory always is). */
void zipfft__s_load_complex(zipfft__arena *a, zipfft__block *b, const zipfft__var *re,
                            const zipfft__var *im, const zipfft__var *ptr,
                            const zipfft__expr *index, zipfft__access access,
                            zipfft_storage storage);
void zipfft__s_store_complex(zipfft__arena *a, zipfft__block *b, const zipfft__var *ptr,
                             const zipfft__expr *index, const zipfft__expr *re,
                             const zipfft__expr *im, zipfft__access access, zipfft_storage storage);
/* Loads complex elements index and index + 1 of global memory in one vector access
 * (index even, the array aligned to two elements). */
void zipfft__s_load_complex_pair(zipfft__arena *a, zipfft__block *b, const zipfft__var *re,
                                 const zipfft__var *im, const zipfft__var *re2,
                                 const zipfft__var *im2, const zipfft__var *ptr,
                                 const zipfft__expr *index, zipfft_storage storage);
/* Loads and stores of one real element (real arrays of R2C input and C2R output). */
void zipfft__s_load_real(zipfft__arena *a, zipfft__block *b, const zipfft__var *re,
                         const zipfft__var *ptr, const zipfft__expr *index, zipfft__access access,
                         zipfft_storage storage);
void zipfft__s_store_real(zipfft__arena *a, zipfft__block *b, const zipfft__var *ptr,
                          const zipfft__expr *index, const zipfft__expr *re, zipfft__access access,
                          zipfft_storage storage);
/* Appends an if statement and returns it so the caller fills then/else blocks. */
zipfft__stmt *zipfft__s_if(zipfft__arena *a, zipfft__block *b, const zipfft__expr *cond);
void zipfft__s_barrier(zipfft__arena *a, zipfft__block *b);
/* A barrier of the whole thread-block cluster (shared-memory writes visible to all its
 * blocks); on a kernel without clusters the same as a block barrier. */
void zipfft__s_cluster_barrier(zipfft__arena *a, zipfft__block *b);
/* Appends a loop of var (I64, declared by the loop) from 0 to count - 1 and returns it so
 * the caller fills its body; a loop at the top level may hold barriers (count must then be
 * the same for every thread of the block). */
zipfft__stmt *zipfft__s_for(zipfft__arena *a, zipfft__block *b, const zipfft__var *var,
                            const zipfft__expr *count);
/* Appends a call of a prelude function (see emit.h) with up to ZIPFFT__MAX_CALL_ARGS
 * arguments (a pointer argument is a variable expression). */
void zipfft__s_call(zipfft__arena *a, zipfft__block *b, const char *function, int arg_count,
                    const zipfft__expr *const *args);
void zipfft__s_comment(zipfft__arena *a, zipfft__block *b, const char *text);

/* 1 when a statement of block b, or of a block nested in it (if branches, loop bodies),
 * satisfies match. */
int zipfft__block_any(const zipfft__block *b, int (*match)(const zipfft__stmt *s));

/* Checks the structural rules every emitter relies on: barriers only at the top level
 * (uniform control flow), loads/stores on pointers of the right type. Returns NULL or a
 * message. */
const char *zipfft__kernel_validate(const zipfft__kernel_ast *k);

#endif
