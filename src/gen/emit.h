/* emit.h - printers that turn a kernel AST into CUDA C or plain C source text. */
#ifndef ZIPFFT_EMIT_H
#define ZIPFFT_EMIT_H

#include "gen/ast.h"
#include "gen/strbuf.h"

/* What differs between the two target languages; everything else is shared. */
typedef struct zipfft__dialect {
  const char *type_names[8];   /* indexed by zipfft__type */
  const char *thread_index;    /* expression for the thread index in the block */
  const char *block_index;     /* expression for the block index (64-bit) */
  const char *int64_suffix;    /* literal suffix of 64-bit integer constants */
  const char *table_load_open; /* text before "array[index]" of read-only table loads */
  const char *table_load_close;
  int per_thread_live_vars; /* live-across-barrier variables are arrays indexed by live_index */
  const char *live_index;   /* the thread's index among all threads that run one block
                               function (a cluster's, when it has several blocks) */
  /* Clusters: the first argument of zrank_shared(base, rank), which gives the shared array
   * of the cluster's block `rank`, and the statement of a cluster barrier. */
  const char *rank_shared_base, *cluster_barrier;
  /* Helpers called for complex loads and stores: global ones are named base + storage
   * suffix ("_f16", "_bf16") + access suffix; shared ones take a cast before the pointer. */
  const char *global_load, *global_store; /* base name; the storage suffix follows */
  const char *access_suffix[2];           /* by zipfft__access: vector, bytes */
  const char *streaming_suffix; /* vector accesses of streaming parameters (NULL: as others) */
  const char *unaliased_qualifier; /* after an unaliased parameter's type (NULL: none) */
  const char *shared_load, *shared_store;
  const char *shared_load_cast, *shared_store_cast;
  /* binary16 conversions zf16_to_f32 and zf32_to_f16 (ZDEV functions, round to nearest
   * even), and the bfloat16 rounding zf32_to_bf16 (which may call the integer version
   * zf32_to_bf16_integer); NULL: the portable integer versions of storage_prelude.c. */
  const char *f16_conversions, *bf16_rounding;
} zipfft__dialect;

/* Prints a variable reference (name, or name[tid] for per-thread copies). */
void zipfft__emit_var(zipfft__strbuf *sb, const zipfft__dialect *d, const zipfft__var *v);
/* Prints an expression with only the parentheses C precedence needs. */
void zipfft__emit_expr(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                       const zipfft__expr *e);
/* Prints one statement (barriers print as __syncthreads();) at an indentation level. */
void zipfft__emit_stmt(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                       const zipfft__stmt *s, int indent);
/* Prints every statement of a block. */
void zipfft__emit_block(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                        const zipfft__block *b, int indent);
/* Prints "for (long long v = 0; v < count; v++) {" of a loop statement (no indentation). */
void zipfft__emit_for_open(zipfft__strbuf *sb, const zipfft__dialect *d, zipfft_precision prec,
                           const zipfft__stmt *s);
/* The statistics merge function zstats_merge, for kernels with uses_statistics; the
 * dialect defines ZSTAT (its function qualifiers) before it. */
extern const char zipfft__stats_prelude[];
/* Prints the user callbacks of a kernel (none: nothing): the types they use (zcomplex),
 * ZIPFFT_CALLBACK defined as the dialect's qualifier, their source, and the wrappers the
 * generated accesses call (zload_cb, zstore_real_cb, ...). */
void zipfft__emit_callback_prelude(zipfft__strbuf *sb, const char *qualifier,
                                   const zipfft__kernel_ast *k);
/* Prints the comma-separated parameter list of a kernel. */
void zipfft__emit_params(zipfft__strbuf *sb, const zipfft__dialect *d, const zipfft__kernel_ast *k);

/* Prints the 16-bit storage conversions and accessors for a dialect (its prelude must
 * define ZDEV, zbits_of, zfloat_of and the zword_load / zword_store helpers). */
void zipfft__emit_storage_prelude(zipfft__strbuf *sb, const zipfft__dialect *d);
/* 1 for the 16-bit storages (F16, BF16). */
int zipfft__storage_is_16bit(zipfft_storage s);
/* 1 when the kernel loads or stores 16-bit storage. */
int zipfft__kernel_uses_16bit(const zipfft__kernel_ast *k);

/* Prints the packed workspace segment math (zsegment_pack, zsegment_unpack; the dialect's
 * word prelude must come first) and then the dialect's zpacked_store / zpacked_load,
 * given as memory_helpers. */
void zipfft__emit_packed_prelude(zipfft__strbuf *sb, const char *memory_helpers);
/* 1 when the kernel calls zpacked_store or zpacked_load. */
int zipfft__kernel_uses_packed(const zipfft__kernel_ast *k);

/* Whole translation units. Return malloc'ed text, or NULL when memory ran out. */
char *zipfft__emit_cuda(const zipfft__kernel_ast *k);
char *zipfft__emit_c(const zipfft__kernel_ast *k);

#endif
