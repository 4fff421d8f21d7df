/* emit_cuda.c - prints a kernel AST as a CUDA C++ translation unit for NVRTC. */
#include <stdio.h>

#include "gen/emit.h"

static const zipfft__dialect cuda_dialect = {
    .type_names = {[ZIPFFT__T_I32] = "int",
                   [ZIPFFT__T_I64] = "long long",
                   [ZIPFFT__T_BOOL] = "bool",
                   [ZIPFFT__T_REAL] = "zreal",
                   [ZIPFFT__T_BYTES_IN] = "const unsigned char *",
                   [ZIPFFT__T_BYTES_OUT] = "unsigned char *",
                   [ZIPFFT__T_REAL_TABLE] = "const zreal *__restrict__",
                   [ZIPFFT__T_SHARED] = "zreal *"},
    .thread_index = "(int)threadIdx.x",
    .block_index = "(long long)blockIdx.x",
    .int64_suffix = "LL",
    .table_load_open = "__ldg(&",
    .table_load_close = ")",
    .global_load = "zload",
    .global_store = "zstore",
    .access_suffix = {"_vec", "_bytes"},
    .streaming_suffix = "_vec_cs",
    .unaliased_qualifier = " __restrict__",
    .shared_load = "zload_shared",
    .shared_store = "zstore_shared",
    .shared_load_cast = "",
    .shared_store_cast = "",
    .rank_shared_base = "smem",
    .cluster_barrier = "zcluster_sync();",
    /* One instruction each way (the integer versions cost the 2DTM's fp16 spectrum more
     * than its halved bytes saved). */
    .f16_conversions =
        "ZDEV float zf16_to_f32(unsigned int h) {\n"
        "  float f; unsigned short b = (unsigned short)h;\n"
        "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(b));\n  return f;\n}\n"
        "ZDEV unsigned int zf32_to_f16(float f) {\n"
        "  unsigned short b;\n"
        "  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(b) : \"f\"(f));\n  return b;\n}\n",
    /* bfloat16 stores: one instruction from sm_80 on (measured on an H100, the 2DTM with a
     * bf16 intermediate: 10,892 -> 11,717 corr/s, as fast as with f16) */
    .bf16_rounding =
        "ZDEV unsigned int zf32_to_bf16(float f) {\n"
        "#if __CUDA_ARCH__ >= 800\n"
        "  unsigned short b;\n"
        "  asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(b) : \"f\"(f));\n  return b;\n"
        "#else\n"
        "  return zf32_to_bf16_integer(f);\n"
        "#endif\n}\n",
};

/* Thread-block clusters (sm_90): the generic address of the same shared array in another
 * block of the cluster (PTX mapa), and the cluster barrier, whose arrive releases and
 * whose wait acquires the blocks' shared-memory writes. */
static const char cuda_cluster_prelude[] =
    "__device__ __forceinline__ zreal *zrank_shared(zreal *s, int rank) {\n"
    "  unsigned long long p;\n"
    "  asm volatile(\"mapa.u64 %0, %1, %2;\" : \"=l\"(p) : \"l\"((unsigned long long)s),"
    " \"r\"(rank));\n"
    "  return (zreal *)p;\n}\n"
    "__device__ __forceinline__ void zcluster_sync() {\n"
    "  asm volatile(\"barrier.cluster.arrive.aligned;\\n\\tbarrier.cluster.wait.aligned;\""
    " ::: \"memory\");\n}\n";

/* A pair kernel's synchronisation (plan/pair.h): the next pair number into a slot of
 * shared memory (exact in a real: pair kernels stay below 2^24 pairs); a group's counter
 * raised after a fence that makes the block's stores visible at device scope; the wait for
 * a group's counter (a volatile read, then a fence, so that the loads after the block's
 * barrier see the group's stores); and the L2 discard of a 128-byte line that is dead (no
 * write-back to DRAM; sm_80 and later). */
static const char cuda_pair_prelude[] =
    "__device__ __forceinline__ void zpair_take(unsigned char *sync, zreal *s, int slot) {\n"
    "  s[slot] = (zreal)atomicAdd((unsigned long long *)sync, 1ULL);\n}\n"
    "__device__ __forceinline__ void zpair_signal(unsigned char *sync, long long counter) {\n"
    "  __threadfence();\n  atomicAdd((unsigned long long *)sync + counter, 1ULL);\n}\n"
    "__device__ __forceinline__ void zpair_wait(unsigned char *sync, long long counter,"
    " long long target) {\n"
    "  volatile unsigned long long *c = (volatile unsigned long long *)sync + counter;\n"
    "  while (*c < (unsigned long long)target) __nanosleep(100);\n  __threadfence();\n}\n"
    "__device__ __forceinline__ void zpair_discard(unsigned char *p, long long byte) {\n"
    "#if __CUDA_ARCH__ >= 800\n"
    "  asm volatile(\"discard.global.L2 [%0], 128;\" :: \"l\"(p + byte) : \"memory\");\n"
    "#endif\n}\n";

/* An L2 prefetch of bytes at p + byte (a hint: TMA's bulk prefetch on sm_90 and later, the
 * range widened to 16-byte bounds; nothing before sm_90), for the statistics prelude and
 * the kernels that prefetch their next blocks' input; and of the one L2 line that holds
 * p + byte (any architecture), for column kernels that prefetch. */
static const char cuda_prefetch_prelude[] =
    "__device__ __forceinline__ void zprefetch(const unsigned char *p, long long byte,"
    " long long bytes) {\n"
    "#if __CUDA_ARCH__ >= 900\n"
    "  unsigned long long a = (unsigned long long)(p + byte), s = a & ~15ULL;\n"
    "  unsigned long long e = (a + (unsigned long long)bytes + 15ULL) & ~15ULL;\n"
    "  asm volatile(\"cp.async.bulk.prefetch.L2.global [%0], %1;\" :: \"l\"(s),"
    " \"r\"((unsigned)(e - s)) : \"memory\");\n"
    "#endif\n}\n"
    "__device__ __forceinline__ void zprefetch_line(const unsigned char *p, long long byte) {\n"
    "  asm volatile(\"prefetch.global.L2 [%0];\" :: \"l\"(p + byte));\n}\n";

/* Statistics kernels with stage_rows (sm_90): the stage barrier, an mbarrier in shared
 * memory at complex slot `bar` with one arrival per phase; lane 0 arrives on it expecting
 * the bytes of an iteration's rows and starts their bulk copies (16-byte aligned, whole
 * 16-byte units), which complete on it; every thread waits for the phase of its iteration. */
static const char cuda_stage_prelude[] =
    "__device__ __forceinline__ unsigned zshared_at(const zreal *s, int slot) {\n"
    "  unsigned a;\n"
    "  asm(\"{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }\" : \"=r\"(a)"
    " : \"l\"(s + 2 * slot));\n"
    "  return a;\n}\n"
    "__device__ __forceinline__ void zstage_begin(zreal *s, int bar) {\n"
    "  asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\"(zshared_at(s, bar))"
    " : \"memory\");\n"
    "  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n}\n"
    "__device__ __forceinline__ void zstage_copy(const unsigned char *p, int bytes,"
    " unsigned to, unsigned bar) {\n"
    "  asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
    " [%0], [%1], %2, [%3];\" :: \"r\"(to), \"l\"(p), \"r\"(bytes), \"r\"(bar) : \"memory\");\n}\n"
    "__device__ __forceinline__ void zstage_rows(const unsigned char *in, long long byte_a,"
    " long long byte_b, int have_b, int bytes, zreal *s, int to, int row, int bar) {\n"
    "  unsigned b = zshared_at(s, bar);\n"
    "  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
    "  asm volatile(\"{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }\""
    " :: \"r\"(b), \"r\"(have_b ? 2 * bytes : bytes) : \"memory\");\n"
    "  zstage_copy(in + byte_a, bytes, zshared_at(s, to), b);\n"
    "  if (have_b) zstage_copy(in + byte_b, bytes, zshared_at(s, to + row), b);\n}\n"
    "__device__ __forceinline__ void zstage_wait(const zreal *s, int bar, long long phase) {\n"
    "  unsigned b = zshared_at(s, bar), done = 0;\n"
    "  while (!done)\n"
    "    asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
    " selp.u32 %0, 1, 0, p; }\" : \"=r\"(done) : \"r\"(b), \"r\"((unsigned)(phase & 1))"
    " : \"memory\");\n}\n";

/* Element access helpers: vector accesses need natural alignment, byte ones do not. */
static const char cuda_prelude[] =
    "#define ZCOMPLEX_BYTES ((long long)sizeof(zreal2))\n"
    "__device__ __forceinline__ void zload_vec(const unsigned char *p, long long i, zreal *re,"
    " zreal *im) {\n"
    "  zreal2 v = *(const zreal2 *)(p + i * ZCOMPLEX_BYTES); *re = v.x; *im = v.y;\n}\n"
    "__device__ __forceinline__ void zstore_vec(unsigned char *p, long long i, zreal re,"
    " zreal im) {\n"
    "  zreal2 v; v.x = re; v.y = im; *(zreal2 *)(p + i * ZCOMPLEX_BYTES) = v;\n}\n"
    "__device__ __forceinline__ void zload_pair_vec(const unsigned char *p, long long i,"
    " zreal *r0, zreal *i0, zreal *r1, zreal *i1) {\n"
    "  zreal4 v = *(const zreal4 *)(p + i * ZCOMPLEX_BYTES);\n"
    "  *r0 = v.x; *i0 = v.y; *r1 = v.z; *i1 = v.w;\n}\n"
    "__device__ __forceinline__ void zload_vec_cs(const unsigned char *p, long long i,"
    " zreal *re, zreal *im) {\n"
    "  zreal2 v = __ldcs((const zreal2 *)(p + i * ZCOMPLEX_BYTES)); *re = v.x; *im = v.y;\n}\n"
    "__device__ __forceinline__ void zstore_vec_cs(unsigned char *p, long long i, zreal re,"
    " zreal im) {\n"
    "  zreal2 v; v.x = re; v.y = im; __stcs((zreal2 *)(p + i * ZCOMPLEX_BYTES), v);\n}\n"
    "__device__ __forceinline__ void zload_bytes(const unsigned char *p, long long i, zreal *re,"
    " zreal *im) {\n"
    "  zreal2 v; unsigned char *d = (unsigned char *)&v; p += i * ZCOMPLEX_BYTES;\n"
    "  for (int k = 0; k < (int)sizeof v; k++) d[k] = p[k];\n"
    "  *re = v.x; *im = v.y;\n}\n"
    "__device__ __forceinline__ void zstore_bytes(unsigned char *p, long long i, zreal re,"
    " zreal im) {\n"
    "  zreal2 v; v.x = re; v.y = im; const unsigned char *s = (const unsigned char *)&v;\n"
    "  p += i * ZCOMPLEX_BYTES;\n"
    "  for (int k = 0; k < (int)sizeof v; k++) p[k] = s[k];\n}\n"
    "__device__ __forceinline__ void zload_real_vec(const unsigned char *p, long long i,"
    " zreal *re) {\n  *re = *(const zreal *)(p + i * (long long)sizeof(zreal));\n}\n"
    "__device__ __forceinline__ void zstore_real_vec(unsigned char *p, long long i, zreal re) {\n"
    "  *(zreal *)(p + i * (long long)sizeof(zreal)) = re;\n}\n"
    "__device__ __forceinline__ void zload_real_bytes(const unsigned char *p, long long i,"
    " zreal *re) {\n  unsigned char *d = (unsigned char *)re; p += i * (long long)sizeof(zreal);\n"
    "  for (int k = 0; k < (int)sizeof(zreal); k++) d[k] = p[k];\n}\n"
    "__device__ __forceinline__ void zstore_real_bytes(unsigned char *p, long long i, zreal re) {\n"
    "  const unsigned char *s = (const unsigned char *)&re; p += i * (long long)sizeof(zreal);\n"
    "  for (int k = 0; k < (int)sizeof(zreal); k++) p[k] = s[k];\n}\n"
    "__device__ __forceinline__ void zload_shared(const zreal *s, int i, zreal *re, zreal *im) {\n"
    "  zreal2 v = ((const zreal2 *)s)[i]; *re = v.x; *im = v.y;\n}\n"
    "__device__ __forceinline__ void zstore_shared(zreal *s, int i, zreal re, zreal im) {\n"
    "  zreal2 v; v.x = re; v.y = im; ((zreal2 *)s)[i] = v;\n}\n"
    "__device__ __forceinline__ void zload_shared_real(const zreal *s, int i, zreal *re) {\n"
    "  *re = s[i];\n}\n"
    "__device__ __forceinline__ void zstore_shared_real(zreal *s, int i, zreal re) {\n"
    "  s[i] = re;\n}\n";

/* What the 16-bit storage helpers need from CUDA. */
static const char cuda_word_prelude[] =
    "#define ZDEV __device__ __forceinline__\n"
    "ZDEV unsigned int zbits_of(float f) { return __float_as_uint(f); }\n"
    "ZDEV float zfloat_of(unsigned int u) { return __uint_as_float(u); }\n"
    "ZDEV unsigned int zword_load_vec(const unsigned char *p) { return *(const unsigned int *)p; "
    "}\n"
    "ZDEV unsigned int zword_load_bytes(const unsigned char *p) {\n"
    "  return p[0] | (p[1] << 8) | (p[2] << 16) | ((unsigned int)p[3] << 24);\n}\n"
    "ZDEV void zwords_load_vec(const unsigned char *p, unsigned int *w0, unsigned int *w1) {\n"
    "  uint2 v = *(const uint2 *)p; *w0 = v.x; *w1 = v.y;\n}\n"
    "ZDEV void zwords_load_bytes(const unsigned char *p, unsigned int *w0, unsigned int *w1) {\n"
    "  *w0 = zword_load_bytes(p); *w1 = zword_load_bytes(p + 4);\n}\n"
    "ZDEV void zword_store_vec(unsigned char *p, unsigned int w) { *(unsigned int *)p = w; }\n"
    "ZDEV void zword_store_bytes(unsigned char *p, unsigned int w) {\n"
    "  p[0] = w & 0xff; p[1] = (w >> 8) & 0xff; p[2] = (w >> 16) & 0xff; p[3] = w >> 24;\n}\n"
    "ZDEV unsigned int zhalf_load_vec(const unsigned char *p) { return *(const unsigned short *)p; "
    "}\n"
    "ZDEV unsigned int zhalf_load_bytes(const unsigned char *p) { return p[0] | (p[1] << 8); }\n"
    "ZDEV void zhalf_store_vec(unsigned char *p, unsigned int h) {\n"
    "  *(unsigned short *)p = (unsigned short)h;\n}\n"
    "ZDEV void zhalf_store_bytes(unsigned char *p, unsigned int h) {\n"
    "  p[0] = h & 0xff; p[1] = (h >> 8) & 0xff;\n}\n";

/* Packed workspace segments (packed_prelude.c): 48 bytes as three 16-byte accesses (the
 * plan keeps segments 16-byte aligned), values from or into complex slots slot + c step of
 * shared memory. */
static const char cuda_packed_helpers[] =
    "ZDEV void zpacked_store(unsigned char *p, long long byte, const zreal *s, int slot,"
    " int step) {\n"
    "  float v[16];\n  unsigned long long w[6];\n"
    "  for (int c = 0; c < 8; c++) {\n"
    "    float2 x = ((const float2 *)s)[slot + c * step];\n"
    "    v[2 * c] = x.x; v[2 * c + 1] = x.y;\n  }\n"
    "  zsegment_pack(v, w);\n"
    "  uint4 *q = (uint4 *)(p + byte);\n"
    "  for (int i = 0; i < 3; i++)\n"
    "    q[i] = make_uint4((unsigned)w[2 * i], (unsigned)(w[2 * i] >> 32),"
    " (unsigned)w[2 * i + 1], (unsigned)(w[2 * i + 1] >> 32));\n}\n"
    "ZDEV void zpacked_load(const unsigned char *p, long long byte, zreal *s, int slot,"
    " int step) {\n"
    "  const uint4 *q = (const uint4 *)(p + byte);\n"
    "  float v[16];\n  unsigned long long w[6];\n"
    "  for (int i = 0; i < 3; i++) {\n"
    "    uint4 x = q[i];\n"
    "    w[2 * i] = x.x | (unsigned long long)x.y << 32;\n"
    "    w[2 * i + 1] = x.z | (unsigned long long)x.w << 32;\n  }\n"
    "  zsegment_unpack(w, v);\n"
    "  for (int c = 0; c < 8; c++)"
    " ((float2 *)s)[slot + c * step] = make_float2(v[2 * c], v[2 * c + 1]);\n}\n";

/* Prints the kernel's signature line up to its parameters: launch bounds, and the
 * cluster's size when it has one (fixed at compile time, so a plain launch forms the
 * clusters). */
static void emit_signature(zipfft__strbuf *sb, const zipfft__kernel_ast *k) {
  zipfft__sb_printf(sb, "extern \"C\" __global__ void ");
  if (k->cluster_blocks > 1)
    zipfft__sb_printf(sb, "__cluster_dims__(%d, 1, 1) ", k->cluster_blocks);
  if (k->min_blocks > 0)
    zipfft__sb_printf(sb, "__launch_bounds__(%u, %d) ", k->block_threads, k->min_blocks);
  else
    zipfft__sb_printf(sb, "__launch_bounds__(%u) ", k->block_threads);
  zipfft__sb_printf(sb, "%s(", k->name);
}

char *zipfft__emit_cuda(const zipfft__kernel_ast *k) {
  zipfft__strbuf sb = {0};
  zipfft__dialect clustered = cuda_dialect;
  int cluster = k->cluster_blocks > 1;
  char block_index[64];
  snprintf(block_index, sizeof block_index, "(long long)(blockIdx.x / %d)", k->cluster_blocks);
  if (cluster) clustered.block_index = block_index;
  const zipfft__dialect *d = &clustered;
  int f32 = k->precision == ZIPFFT_F32;
  zipfft__sb_printf(&sb, "// Generated by zipfft: %s\n", k->name);
  zipfft__sb_printf(&sb, "typedef %s zreal;\ntypedef %s zreal2;\n", f32 ? "float" : "double",
                    f32 ? "float2" : "double2");
  /* two complex values in one access: 16 bytes in fp32; fp64 has no 32-byte access */
  zipfft__sb_printf(
      &sb, "%s\n",
      f32 ? "typedef float4 zreal4;" : "struct __align__(16) zreal4 { double x, y, z, w; };");
  zipfft__sb_printf(&sb, "%s\n", cuda_prelude);
  int packed = zipfft__kernel_uses_packed(k);
  if (zipfft__kernel_uses_16bit(k) || packed) zipfft__sb_printf(&sb, "%s", cuda_word_prelude);
  if (zipfft__kernel_uses_16bit(k)) zipfft__emit_storage_prelude(&sb, d);
  if (packed) zipfft__emit_packed_prelude(&sb, cuda_packed_helpers);
  zipfft__emit_callback_prelude(&sb, "__device__ static inline", k);
  if (k->uses_statistics || k->uses_prefetch) zipfft__sb_printf(&sb, "%s", cuda_prefetch_prelude);
  if (k->uses_statistics)
    zipfft__sb_printf(&sb, "#define ZSTAT __device__ __forceinline__\n%s", zipfft__stats_prelude);
  if (cluster) zipfft__sb_printf(&sb, "%s", cuda_cluster_prelude);
  if (k->uses_pair) zipfft__sb_printf(&sb, "%s", cuda_pair_prelude);
  if (k->uses_stage) zipfft__sb_printf(&sb, "%s", cuda_stage_prelude);
  emit_signature(&sb, k);
  zipfft__emit_params(&sb, d, k);
  zipfft__sb_printf(&sb, ") {\n");
  if (cluster)
    zipfft__sb_printf(&sb, "  const int zrank = (int)(blockIdx.x %% %d);\n", k->cluster_blocks);
  if (k->shared)
    zipfft__sb_printf(&sb, "  extern __shared__ __align__(16) zreal %s[];\n", k->shared->name);
  zipfft__emit_block(&sb, d, k->precision, &k->body, 1);
  zipfft__sb_printf(&sb, "}\n");
  return zipfft__sb_take(&sb);
}
