/* emit_c.c - prints a kernel AST as plain C: each barrier-separated phase becomes a loop
 * over the threads of a block (the SIMT-to-loops transformation), run block by block. */
#include "gen/emit.h"

static const zipfft__dialect c_dialect = {
    .type_names = {[ZIPFFT__T_I32] = "int32_t",
                   [ZIPFFT__T_I64] = "int64_t",
                   [ZIPFFT__T_BOOL] = "int",
                   [ZIPFFT__T_REAL] = "zreal",
                   [ZIPFFT__T_BYTES_IN] = "const unsigned char *",
                   [ZIPFFT__T_BYTES_OUT] = "unsigned char *",
                   [ZIPFFT__T_REAL_TABLE] = "const zreal *",
                   [ZIPFFT__T_SHARED] = "zreal *"},
    .thread_index = "tid",
    .block_index = "bid",
    .int64_suffix = "LL",
    .table_load_open = "",
    .table_load_close = "",
    .per_thread_live_vars = 1,
    .global_load = "zload",
    .global_store = "zstore",
    .access_suffix = {"_vec", ""},
    .shared_load = "zload",
    .shared_store = "zstore",
    .shared_load_cast = "(const unsigned char *)",
    .shared_store_cast = "(unsigned char *)",
    .live_index = "tid",
    .rank_shared_base = "zsmem_all",
};

/* Clusters: one block function runs every block of a cluster, its threads numbered
 * cluster-wide (tid); each thread sees its own block's part of the cluster's shared
 * memory as the kernel's shared array, and its thread index within its block (zlt). */
static zipfft__dialect dialect_of(const zipfft__kernel_ast *k) {
  zipfft__dialect d = c_dialect;
  if (k->cluster_blocks > 1) d.thread_index = "zlt";
  return d;
}

/* Threads one block function runs: the block's, or the whole cluster's. */
static unsigned function_threads(const zipfft__kernel_ast *k) {
  return k->block_threads * (unsigned)(k->cluster_blocks > 1 ? k->cluster_blocks : 1);
}

/* Reals of shared memory per block. */
static size_t shared_reals(const zipfft__kernel_ast *k) {
  return k->shared_bytes / (k->precision == ZIPFFT_F32 ? 4 : 8);
}

/* Opens the loop over the threads of one phase (and, for clusters, names the thread's
 * block, its index there and its block's shared array). */
static void open_thread_loop(zipfft__strbuf *sb, const zipfft__kernel_ast *k, int indent) {
  zipfft__sb_indent(sb, indent);
  zipfft__sb_printf(sb, "for (int32_t tid = 0; tid < %u; tid++) {\n", function_threads(k));
  if (k->cluster_blocks <= 1) return;
  zipfft__sb_indent(sb, indent + 1);
  zipfft__sb_printf(sb,
                    "const int32_t zlt = tid %% %u, zrank = tid / %u; zreal *%s = zsmem_all + "
                    "(int64_t)zrank * %zu;\n",
                    k->block_threads, k->block_threads, k->shared->name, shared_reals(k));
  zipfft__sb_indent(sb, indent + 1);
  zipfft__sb_printf(sb, "(void)zlt; (void)zrank; (void)%s;\n", k->shared->name);
}

/* Complex element access through memcpy: any alignment, no aliasing assumptions. The
 * vector accessors (the aligned branch's, "_vec") are the same, but compiled with
 * -DZIPFFT_CHECK_ALIGNMENT (the tests' ZIPFFT_CFLAGS) they trap where the address lacks the
 * alignment the CUDA kernel's vector access needs: the launch's alignment flag and the
 * generator's choice of accesses are then checked on the CPU too. */
static const char c_prelude[] =
    "#include <stdint.h>\n#include <string.h>\n"
    "#ifdef ZIPFFT_CHECK_ALIGNMENT\n"
    "#define ZALIGNED(q, n) do { if ((uintptr_t)(q) % (uintptr_t)(n) != 0) __builtin_trap(); }"
    " while (0)\n"
    "#else\n#define ZALIGNED(q, n) ((void)0)\n#endif\n"
    "static inline void zload(const unsigned char *p, int64_t i, zreal *re, zreal *im) {\n"
    "  memcpy(re, p + i * 2 * (int64_t)sizeof(zreal), sizeof(zreal));\n"
    "  memcpy(im, p + (i * 2 + 1) * (int64_t)sizeof(zreal), sizeof(zreal));\n}\n"
    "static inline void zload_pair(const unsigned char *p, int64_t i, zreal *r0, zreal *i0,"
    " zreal *r1, zreal *i1) {\n"
    "  zload(p, i, r0, i0);\n  zload(p, i + 1, r1, i1);\n}\n"
    "static inline void zload_real(const unsigned char *p, int64_t i, zreal *re) {\n"
    "  memcpy(re, p + i * (int64_t)sizeof(zreal), sizeof(zreal));\n}\n"
    "static inline void zstore_real(unsigned char *p, int64_t i, zreal re) {\n"
    "  memcpy(p + i * (int64_t)sizeof(zreal), &re, sizeof(zreal));\n}\n"
    "static inline void zstore(unsigned char *p, int64_t i, zreal re, zreal im) {\n"
    "  memcpy(p + i * 2 * (int64_t)sizeof(zreal), &re, sizeof(zreal));\n"
    "  memcpy(p + (i * 2 + 1) * (int64_t)sizeof(zreal), &im, sizeof(zreal));\n}\n"
    "static inline void zload_vec(const unsigned char *p, int64_t i, zreal *re, zreal *im) {\n"
    "  ZALIGNED(p + i * 2 * (int64_t)sizeof(zreal), 2 * sizeof(zreal));\n"
    "  zload(p, i, re, im);\n}\n"
    "static inline void zstore_vec(unsigned char *p, int64_t i, zreal re, zreal im) {\n"
    "  ZALIGNED(p + i * 2 * (int64_t)sizeof(zreal), 2 * sizeof(zreal));\n"
    "  zstore(p, i, re, im);\n}\n"
    "static inline void zload_pair_vec(const unsigned char *p, int64_t i, zreal *r0, zreal *i0,"
    " zreal *r1, zreal *i1) {\n" /* CUDA's zreal4 is 16-byte aligned */
    "  ZALIGNED(p + i * 2 * (int64_t)sizeof(zreal), 16);\n"
    "  zload_pair(p, i, r0, i0, r1, i1);\n}\n"
    "static inline void zload_real_vec(const unsigned char *p, int64_t i, zreal *re) {\n"
    "  ZALIGNED(p + i * (int64_t)sizeof(zreal), sizeof(zreal));\n  zload_real(p, i, re);\n}\n"
    "static inline void zstore_real_vec(unsigned char *p, int64_t i, zreal re) {\n"
    "  ZALIGNED(p + i * (int64_t)sizeof(zreal), sizeof(zreal));\n  zstore_real(p, i, re);\n}\n";

/* Declares one array per live-across-barrier variable declared anywhere in a block. */
static void declare_live_vars(zipfft__strbuf *sb, const zipfft__block *b, unsigned threads) {
  for (const zipfft__stmt *s = b->first; s; s = s->next) {
    if (s->kind == ZIPFFT__S_DECL && s->u.decl.var->live_across_barrier)
      zipfft__sb_printf(sb, "  %s %s[%u];\n", c_dialect.type_names[s->u.decl.var->type],
                        s->u.decl.var->name, threads);
    if (s->kind == ZIPFFT__S_IF) {
      declare_live_vars(sb, &s->u.if_.then_block, threads);
      declare_live_vars(sb, &s->u.if_.else_block, threads);
    }
    if (s->kind == ZIPFFT__S_FOR) declare_live_vars(sb, &s->u.for_.body, threads);
  }
}

/* Prints a block's statements as phases: one loop over the threads per barrier-separated
 * run of statements; a loop statement (uniform, it may hold barriers) stays a loop around
 * the phases of its body. */
static void emit_phases(zipfft__strbuf *sb, const zipfft__kernel_ast *k, const zipfft__block *b,
                        int indent) {
  zipfft__dialect dialect = dialect_of(k);
  const zipfft__dialect *d = &dialect;
  const zipfft__stmt *s = b->first;
  while (s) {
    if (s->kind == ZIPFFT__S_BARRIER) { /* the end of a thread loop is the barrier */
      s = s->next;
      continue;
    }
    if (s->kind == ZIPFFT__S_FOR) {
      zipfft__sb_indent(sb, indent);
      zipfft__emit_for_open(sb, d, k->precision, s);
      emit_phases(sb, k, &s->u.for_.body, indent + 1);
      zipfft__sb_indent(sb, indent);
      zipfft__sb_printf(sb, "}\n");
      s = s->next;
      continue;
    }
    open_thread_loop(sb, k, indent);
    for (; s && s->kind != ZIPFFT__S_BARRIER && s->kind != ZIPFFT__S_FOR; s = s->next)
      zipfft__emit_stmt(sb, d, k->precision, s, indent + 1);
    zipfft__sb_indent(sb, indent);
    zipfft__sb_printf(sb, "}\n");
  }
}

/* Prints the block function: the kernel's phases for one block. */
static void emit_block_function(zipfft__strbuf *sb, const zipfft__kernel_ast *k) {
  const zipfft__dialect *d = &c_dialect;
  zipfft__sb_printf(sb, "static void %s_block(", k->name);
  zipfft__emit_params(sb, d, k);
  const char *shared = k->cluster_blocks > 1 ? "zsmem_all"
                       : k->shared           ? k->shared->name
                                             : "zshared_unused";
  zipfft__sb_printf(sb, "%sint64_t bid, zreal *%s) {\n", k->param_count ? ", " : "", shared);
  if (!k->shared) zipfft__sb_printf(sb, "  (void)zshared_unused;\n");
  declare_live_vars(sb, &k->body, function_threads(k));
  emit_phases(sb, k, &k->body, 1);
  zipfft__sb_printf(sb, "}\n");
}

/* Prints the exported entry: unpacks the argument array and runs a range of blocks. */
static void emit_entry(zipfft__strbuf *sb, const zipfft__kernel_ast *k) {
  const zipfft__dialect *d = &c_dialect;
  zipfft__sb_printf(sb,
                    "void %s(void **args, int64_t block_begin, int64_t block_end,"
                    " void *scratch) {\n",
                    k->name);
  for (int i = 0; i < k->param_count; i++) {
    const char *t = d->type_names[k->params[i]->type];
    zipfft__sb_printf(sb, "  %s %s = *(%s const *)args[%d];\n", t, k->params[i]->name, t, i);
  }
  zipfft__sb_printf(sb, "  for (int64_t bid = block_begin; bid < block_end; bid++)\n");
  zipfft__sb_printf(sb, "    %s_block(", k->name);
  for (int i = 0; i < k->param_count; i++) zipfft__sb_printf(sb, "%s, ", k->params[i]->name);
  zipfft__sb_printf(sb, "bid, (zreal *)scratch);\n}\n");
}

/* A pair kernel's synchronisation (plan/pair.h) with the compiler's atomics: blocks run
 * on several host threads, each block to its end, so a wait is always for a block that
 * runs. The discard has nothing to do on the host. */
static const char c_pair_prelude[] =
    "static inline void zpair_take(unsigned char *sync, zreal *s, int32_t slot) {\n"
    "  s[slot] = (zreal)__atomic_fetch_add((uint64_t *)(void *)sync, 1, __ATOMIC_ACQ_REL);\n}\n"
    "static inline void zpair_signal(unsigned char *sync, int64_t counter) {\n"
    "  __atomic_fetch_add((uint64_t *)(void *)sync + counter, 1, __ATOMIC_RELEASE);\n}\n"
    "static inline void zpair_wait(unsigned char *sync, int64_t counter, int64_t target) {\n"
    "  while (__atomic_load_n((uint64_t *)(void *)sync + counter, __ATOMIC_ACQUIRE) <\n"
    "         (uint64_t)target) {\n  }\n}\n"
    "static inline void zpair_discard(unsigned char *p, int64_t byte) { (void)p; (void)byte; }\n";

/* Statistics kernels with stage_rows: the rows are copied at once (a block's threads run
 * phase by phase, so the copy is done before the next phase reads it); nothing to wait for. */
static const char c_stage_prelude[] =
    "static inline void zstage_begin(zreal *s, int32_t bar) { (void)s; (void)bar; }\n"
    "static inline void zstage_rows(const unsigned char *in, int64_t byte_a, int64_t byte_b,"
    " int32_t have_b, int32_t bytes, zreal *s, int32_t to, int32_t row, int32_t bar) {\n"
    "  (void)bar;\n"
    "  memcpy(s + 2 * (int64_t)to, in + byte_a, (size_t)bytes);\n"
    "  if (have_b) memcpy(s + 2 * ((int64_t)to + row), in + byte_b, (size_t)bytes);\n}\n"
    "static inline void zstage_wait(const zreal *s, int32_t bar, int64_t phase) {\n"
    "  (void)s; (void)bar; (void)phase;\n}\n";

/* What the 16-bit storage helpers need from C. */
static const char c_word_prelude[] =
    "#define ZDEV static inline\n"
    "ZDEV unsigned int zbits_of(float f) { unsigned int u; memcpy(&u, &f, 4); return u; }\n"
    "ZDEV float zfloat_of(unsigned int u) { float f; memcpy(&f, &u, 4); return f; }\n"
    "ZDEV unsigned int zword_load(const unsigned char *p) {\n"
    "  return p[0] | (p[1] << 8) | (p[2] << 16) | ((unsigned int)p[3] << 24);\n}\n"
    "ZDEV void zwords_load(const unsigned char *p, unsigned int *w0, unsigned int *w1) {\n"
    "  *w0 = zword_load(p); *w1 = zword_load(p + 4);\n}\n"
    "ZDEV void zword_store(unsigned char *p, unsigned int w) {\n"
    "  p[0] = w & 0xff; p[1] = (w >> 8) & 0xff; p[2] = (w >> 16) & 0xff; p[3] = w >> 24;\n}\n"
    "ZDEV unsigned int zhalf_load(const unsigned char *p) { return p[0] | (p[1] << 8); }\n"
    "ZDEV void zhalf_store(unsigned char *p, unsigned int h) {\n"
    "  p[0] = h & 0xff; p[1] = (h >> 8) & 0xff;\n}\n"
    "ZDEV unsigned int zword_load_vec(const unsigned char *p) {\n"
    "  ZALIGNED(p, 4);\n  return zword_load(p);\n}\n"
    "ZDEV void zwords_load_vec(const unsigned char *p, unsigned int *w0, unsigned int *w1) {\n"
    "  ZALIGNED(p, 8);\n  zwords_load(p, w0, w1);\n}\n"
    "ZDEV void zword_store_vec(unsigned char *p, unsigned int w) {\n"
    "  ZALIGNED(p, 4);\n  zword_store(p, w);\n}\n"
    "ZDEV unsigned int zhalf_load_vec(const unsigned char *p) {\n"
    "  ZALIGNED(p, 2);\n  return zhalf_load(p);\n}\n"
    "ZDEV void zhalf_store_vec(unsigned char *p, unsigned int h) {\n"
    "  ZALIGNED(p, 2);\n  zhalf_store(p, h);\n}\n";

/* Packed workspace segments (packed_prelude.c): 48 bytes as 4-byte words, little endian
 * as on the GPU, values from or into complex slots slot + c step of shared memory. */
static const char c_packed_helpers[] =
    "ZDEV void zpacked_store(unsigned char *p, int64_t byte, const zreal *s, int32_t slot,"
    " int32_t step) {\n"
    "  float v[16];\n  unsigned long long w[6];\n"
    "  for (int c = 0; c < 8; c++) {\n"
    "    v[2 * c] = s[2 * (slot + c * step)]; v[2 * c + 1] = s[2 * (slot + c * step) + 1];\n  }\n"
    "  zsegment_pack(v, w);\n"
    "  for (int i = 0; i < 6; i++) {\n"
    "    zword_store(p + byte + 8 * i, (unsigned int)w[i]);\n"
    "    zword_store(p + byte + 8 * i + 4, (unsigned int)(w[i] >> 32));\n  }\n}\n"
    "ZDEV void zpacked_load(const unsigned char *p, int64_t byte, zreal *s, int32_t slot,"
    " int32_t step) {\n"
    "  float v[16];\n  unsigned long long w[6];\n"
    "  for (int i = 0; i < 6; i++)\n"
    "    w[i] = zword_load(p + byte + 8 * i) |"
    " (unsigned long long)zword_load(p + byte + 8 * i + 4) << 32;\n"
    "  zsegment_unpack(w, v);\n"
    "  for (int c = 0; c < 8; c++) {\n"
    "    s[2 * (slot + c * step)] = v[2 * c]; s[2 * (slot + c * step) + 1] = v[2 * c + 1];\n  "
    "}\n}\n";

char *zipfft__emit_c(const zipfft__kernel_ast *k) {
  zipfft__strbuf sb = {0};
  zipfft__sb_printf(&sb, "/* Generated by zipfft: %s */\n", k->name);
  zipfft__sb_printf(&sb, "typedef %s zreal;\n", k->precision == ZIPFFT_F32 ? "float" : "double");
  zipfft__sb_printf(&sb, "%s\n", c_prelude);
  int packed = zipfft__kernel_uses_packed(k);
  if (zipfft__kernel_uses_16bit(k) || packed) zipfft__sb_printf(&sb, "%s", c_word_prelude);
  if (zipfft__kernel_uses_16bit(k)) zipfft__emit_storage_prelude(&sb, &c_dialect);
  if (packed) zipfft__emit_packed_prelude(&sb, c_packed_helpers);
  zipfft__emit_callback_prelude(&sb, "static inline", k);
  if (k->uses_statistics || k->uses_prefetch)
    zipfft__sb_printf(
        &sb,
        "static inline void zprefetch(const unsigned char *p, long long byte,"
        " long long bytes) {\n  (void)*(const volatile unsigned char *)(p + byte);\n"
        "  if (bytes > 0) (void)*(const volatile unsigned char *)(p + byte + bytes - 1);\n}\n"
        "static inline void zprefetch_line(const unsigned char *p, long long byte)"
        " {\n  (void)*(const volatile unsigned char *)(p + byte);\n}\n");
  if (k->uses_statistics)
    zipfft__sb_printf(&sb, "#define ZSTAT static inline\n%s", zipfft__stats_prelude);
  if (k->uses_pair) zipfft__sb_printf(&sb, "%s", c_pair_prelude);
  if (k->uses_stage) zipfft__sb_printf(&sb, "%s", c_stage_prelude);
  if (k->cluster_blocks > 1)
    zipfft__sb_printf(&sb,
                      "static inline zreal *zrank_shared(zreal *all, int32_t rank) {\n"
                      "  return all + (int64_t)rank * %zu;\n}\n",
                      shared_reals(k));
  emit_block_function(&sb, k);
  zipfft__sb_printf(&sb,
                    "void %s(void **args, int64_t block_begin, int64_t block_end,"
                    " void *scratch);\n",
                    k->name);
  emit_entry(&sb, k);
  return zipfft__sb_take(&sb);
}
