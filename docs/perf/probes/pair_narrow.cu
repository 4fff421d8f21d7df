// pair_narrow.cu - what a narrower workspace would buy fp32 2^20's pair kernel (1024 x 1024,
// batch 128): pair_copy.cu's memory pattern (no arithmetic), items of COLS columns, with the
// workspace holding WORDS 8-byte words for each COLS elements of a row (WORDS = COLS: fp32
// complex as now; 3/4 of COLS: a 24-bit packed form; 1/2: a 16-bit one). The first items
// write row segments of 8 * WORDS bytes (row pitch N * WORDS / COLS words), the second items
// read COLS such rows whole and store COLS full output columns; input and output
// evict-first, workspace lines discarded once read. Only bytes are modelled (values are not
// converted), so the time is the floor of the pattern at that width. 8 columns in 48 bytes
// straddle 32-byte sectors; 16 columns in 96 bytes are whole sectors. BLOCKED lays the
// workspace out by item instead (ws[item][row][WORDS]): a first item writes one contiguous
// run, a second item reads COLS rows of every item, COLS * WORDS words each (8 columns of 6
// bytes: 384 bytes, three whole lines), so 8 columns of 6 bytes need not straddle sectors.
// PACK (8 columns, 6 bytes, by item) converts the values too, as a packed workspace would:
// a row segment's 8 complex values share the 8-bit exponent of its largest part, each part
// a 23-bit field (an integer multiple of 2^-21 of it, offset by 2^22), 46 bits an element; the
// exponent's 8 bits ride in the spare 2 bits of the segment's first four elements. A
// thread packs its own element (the segment's maximum by three shuffles) and stores 6 bytes
// (a 4- and a 2-byte store); a reading thread loads 6 bytes, gathers the exponent by three
// shuffles and unpacks (PACK=1). PACK=2 packs and unpacks whole segments, a thread each,
// through shared memory, as the generated kernels do; PACK=3 stages the packed segments in
// shared memory and copies each item's run whole, neighbouring threads on neighbouring
// 16-byte parts. Lag `groups` runs every first item before any second one: the
// pattern of two kernels. The packed run is checked against the input (out = in
// transposed, relative error printed).
// Build and run: nvcc -arch=sm_90 -O3 -o pair_narrow pair_narrow.cu && ./pair_narrow
#include <cuda_runtime.h>
#include "probe_util.cuh"

enum { N = 1024, THREADS = 1024 };

__device__ void discard_line(const void *p) {
  asm volatile("discard.global.L2 [%0], 128;" ::"l"(p) : "memory");
}

/* One persistent kernel: item i of step s is a first item of transform s (columns
 * COLS b .. COLS b + COLS - 1 to the workspace) or a second item of transform s - lag
 * (workspace rows COLS b .. to the output, transposed), as in pair_copy.cu. */
/* The 2^(e) scale for biased exponent field `field` (clamped to normal numbers). */
__device__ float pow2_field(int field) { return __int_as_float(min(max(field, 1), 254) << 23); }

/* The 23-bit field q + 2^22 of x rounded to the integer q (|x| < 2^22), through the float's
 * bits: x + 1.5 * 2^23 holds 0x4b400000 + q (no float-integer conversion). */
__device__ unsigned field_of(float x) {
  return min(__float_as_uint(x + 12582912.0f) - 0x4b000000u, 0x7fffffu);
}

/* The part a field holds, in units: the float with bits 0x4b000000 + f is 2^23 + f. */
__device__ float part_of(unsigned f) {
  return __uint_as_float(0x4b000000u | (f & 0x7fffffu)) - 12582912.0f;
}

/* Stores x (column f of its row segment, the segment's lanes 8 apart in a warp) packed at p:
 * 6 bytes, the segment's exponent bits 2f and 2f + 1 in bits 46-47 for f < 4. */
__device__ void pack_store(unsigned char *p, float2 x, int f) {
  unsigned m = max(__float_as_uint(fabsf(x.x)), __float_as_uint(fabsf(x.y)));
  m = max(m, __shfl_xor_sync(~0u, m, 1));
  m = max(m, __shfl_xor_sync(~0u, m, 2));
  m = max(m, __shfl_xor_sync(~0u, m, 4));
  int e = (int)(m >> 23); /* largest part < 2^(e - 126): fractions of 2^(e - 148) */
  float scale = pow2_field(275 - e);
  unsigned long long w = ((unsigned long long)field_of(x.x * scale) << 23) | field_of(x.y * scale);
  if (f < 4) w |= (unsigned long long)((e >> (2 * f)) & 3) << 46;
  if (f % 2 == 0) {
    *(unsigned *)p = (unsigned)w;
    *(unsigned short *)(p + 4) = (unsigned short)(w >> 32);
  } else {
    *(unsigned short *)p = (unsigned short)w;
    *(unsigned *)(p + 2) = (unsigned)(w >> 16);
  }
}

/* The element at p that pack_store wrote (column f of its segment; same lanes). */
__device__ float2 load_unpack(const unsigned char *p, int f) {
  unsigned long long w;
  if (f % 2 == 0)
    w = __ldcg((const unsigned *)p) |
        (unsigned long long)__ldcg((const unsigned short *)(p + 4)) << 32;
  else
    w = __ldcg((const unsigned short *)p) |
        (unsigned long long)__ldcg((const unsigned *)(p + 2)) << 16;
  int e = f < 4 ? (int)((w >> 46) & 3) << (2 * f) : 0;
  e |= __shfl_xor_sync(~0u, e, 1);
  e |= __shfl_xor_sync(~0u, e, 2);
  e |= __shfl_xor_sync(~0u, e, 4);
  float unit = pow2_field(e - 21);
  return make_float2(part_of((unsigned)(w >> 23)) * unit, part_of((unsigned)w) * unit);
}

/* A row segment's 8 complex values as 48 bytes: the 8-bit exponent field of its largest
 * part, then the 16 parts as 23-bit fields (field_of, in units of 2^(e - 148)), a bit
 * stream of 376 bits in six 64-bit words (low bits first), as gen/packed_prelude.c. */
__device__ void pack_segment(const float2 *x, int pitch, uint4 *out) {
  unsigned m = 0;
#pragma unroll
  for (int c = 0; c < 8; c++)
    m = max(m, max(__float_as_uint(fabsf(x[c * pitch].x)), __float_as_uint(fabsf(x[c * pitch].y))));
  int e = (int)(m >> 23);
  float scale = pow2_field(275 - e);
  unsigned long long words[6], acc = (unsigned)e;
  int bits = 8, w = 0;
#pragma unroll
  for (int i = 0; i < 16; i++) {
    float v = i % 2 ? x[i / 2 * pitch].y : x[i / 2 * pitch].x;
    unsigned long long q = field_of(v * scale);
    acc |= q << bits;
    bits += 23;
    if (bits >= 64) {
      words[w++] = acc;
      bits -= 64;
      acc = bits ? q >> (23 - bits) : 0;
    }
  }
  words[5] = acc;
#pragma unroll
  for (int i = 0; i < 3; i++)
    out[i] = make_uint4((unsigned)words[2 * i], (unsigned)(words[2 * i] >> 32),
                        (unsigned)words[2 * i + 1], (unsigned)(words[2 * i + 1] >> 32));
}

/* The 8 values of the segment pack_segment made (its three 16-byte parts q), into x[c]. */
__device__ void unpack_parts(const uint4 *q, float2 *x) {
  unsigned long long words[6];
#pragma unroll
  for (int i = 0; i < 3; i++) {
    words[2 * i] = q[i].x | (unsigned long long)q[i].y << 32;
    words[2 * i + 1] = q[i].z | (unsigned long long)q[i].w << 32;
  }
  int e = (int)(words[0] & 0xff);
  float unit = pow2_field(e - 21);
  float parts[16];
#pragma unroll
  for (int i = 0; i < 16; i++) {
    int at = 8 + 23 * i, w = at / 64, b = at % 64;
    unsigned long long f = words[w] >> b;
    if (b + 23 > 64) f |= words[w + 1] << (64 - b);
    parts[i] = part_of((unsigned)f) * unit;
  }
#pragma unroll
  for (int c = 0; c < 8; c++) x[c] = make_float2(parts[2 * c], parts[2 * c + 1]);
}

/* The 8 values pack_segment stored at in (global memory), into x[c] (c = 0 .. 7). */
__device__ void unpack_segment(const uint4 *in, float2 *x) {
  uint4 q[3];
#pragma unroll
  for (int i = 0; i < 3; i++) q[i] = __ldcg(in + i);
  unpack_parts(q, x);
}

/* PACK: 0 none, 1 packed by each thread's element (shuffles), 2 by whole segments (a thread
 * packs or unpacks 8 elements through shared memory, as a generated kernel would), 3 by
 * whole segments staged: the packed segments gathered in shared memory and copied to and
 * from the workspace by neighbouring threads on neighbouring 16-byte parts. */
template <int COLS, int WORDS, bool BLOCKED, int PACK = 0>
__global__ void __launch_bounds__(THREADS)
    pairnarrow(const float2 *__restrict__ in, float2 *ws, float2 *__restrict__ out, int groups,
               int lag, unsigned *next, unsigned *done) {
  enum { PER = N * COLS / THREADS, ITEMS = N / COLS, PITCH = N * WORDS / COLS };
  __shared__ unsigned item_s;
  extern __shared__ float2 sm[];
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS, rstep = THREADS / COLS;
  const long long ws_transform = (long long)PITCH * N;
  for (;;) {
    if (t == 0) item_s = atomicAdd(next, 1u);
    __syncthreads();
    unsigned item = item_s;
    __syncthreads();
    unsigned step = item / (2 * ITEMS), within = item % (2 * ITEMS);
    int second = within >= ITEMS;
    long long g = second ? (long long)step - lag : (long long)step;
    int b = within % ITEMS;
    if (step >= (unsigned)(groups + lag)) return;
    if (g < 0 || g >= groups) continue;
    if (!second) {
      float2 v[PER];
      const float2 *src = in + g * N * N + b * COLS;
      float2 *dst = ws + g * ws_transform + (BLOCKED ? (long long)b * N * WORDS : b * WORDS);
      const int row_words = BLOCKED ? WORDS : PITCH;
#pragma unroll
      for (int k = 0; k < PER; k++) v[k] = __ldcs(src + (long long)(r0 + k * rstep) * N + f);
      if (PACK == 3) {  // a thread a row's segment (N == THREADS), staged, copied out whole
#pragma unroll
        for (int k = 0; k < PER; k++) sm[f * (N + 4) + r0 + k * rstep] = v[k];
        __syncthreads();
        uint4 seg[3];
        pack_segment(sm + t, N + 4, seg);
        __syncthreads();
        uint4 *stage = (uint4 *)sm;
#pragma unroll
        for (int i = 0; i < 3; i++) stage[3 * t + i] = seg[i];
        __syncthreads();
        for (int i = t; i < 3 * N; i += THREADS) ((uint4 *)dst)[i] = stage[i];
      } else if (PACK == 2) {  // through shared memory: sm[column][row] (pitch N + 4: no conflicts)
#pragma unroll
        for (int k = 0; k < PER; k++) sm[f * (N + 4) + r0 + k * rstep] = v[k];
        __syncthreads();
        for (int row = t; row < N; row += THREADS)  // a thread a row's segment
          pack_segment(sm + row, N + 4, (uint4 *)((unsigned char *)dst + row * 48));
      } else if (PACK) {
        unsigned char *bytes = (unsigned char *)dst;
#pragma unroll
        for (int k = 0; k < PER; k++) pack_store(bytes + (r0 + k * rstep) * 48 + f * 6, v[k], f);
      } else if (f < WORDS) {
#pragma unroll
        for (int k = 0; k < PER; k++) dst[(long long)(r0 + k * rstep) * row_words + f] = v[k];
      }
      __threadfence();
      __syncthreads();
      if (t == 0) atomicAdd(done + g, 1u);
    } else {
      if (t == 0)
        while (atomicAdd(done + g, 0u) < (unsigned)ITEMS) __nanosleep(100);
      __syncthreads();
      const float2 *src = ws + g * ws_transform + (long long)b * COLS * (BLOCKED ? WORDS : PITCH);
      float2 *dst = out + g * N * N + b * COLS;
      if (PACK == 3) {  // 384-byte runs copied in whole, then a thread a segment
        uint4 *stage = (uint4 *)sm;
        for (int i = t; i < 3 * COLS * N / 8; i += THREADS)
          stage[i] = __ldcg((const uint4 *)((const unsigned char *)src + (long long)(i / 24) * N * 48) + i % 24);
        __syncthreads();
        float2 x[8];
        unpack_parts(stage + 3 * t, x);  // segment t: run t / 8, row t % 8 (COLS * N / 8 == THREADS)
        __syncthreads();
#pragma unroll
        for (int c = 0; c < 8; c++) sm[(t % 8) * (N + 1) + t / 8 * 8 + c] = x[c];
      } else if (PACK == 2) {  // a thread a segment: run `item`, row w of it
        for (int i = t; i < COLS * N / 8; i += THREADS) {
          int item = i / 8, w = i % 8;
          float2 x[8];
          unpack_segment((const uint4 *)((const unsigned char *)src + (long long)item * N * 48 + w * 48), x);
#pragma unroll
          for (int c = 0; c < 8; c++) sm[w * (N + 1) + item * 8 + c] = x[c];
        }
      } else if (PACK) {  // 8 rows of each item: 384-byte runs, element i of a run at 6 i
        for (int i = t; i < COLS * N; i += THREADS) {
          int item = i / 64, w = i % 64;
          sm[(w / 8) * (N + 1) + item * 8 + w % 8] =
              load_unpack((const unsigned char *)src + (long long)item * N * 48 + w * 6, w % 8);
        }
      } else if (BLOCKED) {  // COLS rows of each item: runs of COLS * WORDS words, N * WORDS apart
        for (int i = t; i < COLS * PITCH; i += THREADS) {
          int item = i / (COLS * WORDS), w = i % (COLS * WORDS);
          sm[(w / WORDS) * (N + 1) + item * COLS + w % WORDS] =
              __ldcg(src + (long long)item * N * WORDS + w);
        }
      } else {
#pragma unroll
        for (int i = t; i < COLS * PITCH; i += THREADS)  // rows read whole
          sm[(i / PITCH) * (N + 1) + i % PITCH] = __ldcg(src + i);
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < PER; k++) {  // neighbouring threads on neighbouring rows
        int i = t + k * THREADS, row = i % COLS, col = i / COLS;
        __stcs(dst + (long long)col * N + row, sm[row * (N + 1) + col]);
      }
      __syncthreads();
      enum { RUN_LINES = BLOCKED ? COLS * WORDS * 8 / 128 : COLS * PITCH * 8 / 128 };
      for (int l = t; l < COLS * PITCH * 8 / 128; l += THREADS)
        discard_line((const char *)src +
                     (BLOCKED ? (long long)(l / RUN_LINES) * N * WORDS * 8 : 0) +
                     (l % RUN_LINES) * 128);
    }
  }
}

/* Times the pattern of COLS columns an item and WORDS workspace words each, lags 1 and 2. */
template <int COLS, int WORDS, bool BLOCKED = false, int PACK = 0>
static int run(const float2 *in, float2 *ws, float2 *out, unsigned *ctr, int groups, int sms,
               double moved, double copy_gbps) {
  size_t smem = (size_t)COLS * (N + (PACK >= 2 ? 4 : 1)) * sizeof(float2);
  int per_sm = 0;
  CK(cudaFuncSetAttribute(pairnarrow<COLS, WORDS, BLOCKED, PACK>,
                          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pairnarrow<COLS, WORDS, BLOCKED, PACK>,
                                                   THREADS, smem));
  for (int lag : {1, 2, groups}) {
    float ms = time_ms([&] {
      cudaMemsetAsync(ctr, 0, (groups + 1) * sizeof(unsigned));
      pairnarrow<COLS, WORDS, BLOCKED, PACK>
          <<<sms * per_sm, THREADS, smem>>>(in, ws, out, groups, lag, ctr + groups, ctr);
    });
    CK(cudaGetLastError());
    printf(
        "%2d columns, workspace %d/8 bytes (%3d-byte segments%s), lag %3d: %.3f ms %.1f%% of copy\n",
        COLS, 8 * WORDS / COLS, 8 * WORDS,
        PACK == 3   ? ", by item, packed by segment, staged"
        : PACK == 2 ? ", by item, packed by segment"
        : PACK      ? ", by item, packed"
        : BLOCKED   ? ", by item"
                    : "",
        lag, ms,
        100 * moved / ms / 1e6 / copy_gbps);
  }
  return 0;
}

/* The packed run's largest error over transform g: out = in transposed, relative to the
 * largest input magnitude of the transform. */
static int check_packed(const float2 *in, const float2 *out, int g) {
  size_t n = (size_t)N * N;
  float2 *a = new float2[n], *b = new float2[n];
  CK(cudaMemcpy(a, in + g * n, n * sizeof(float2), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b, out + g * n, n * sizeof(float2), cudaMemcpyDeviceToHost));
  double err = 0, big = 0;
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      float2 x = a[(size_t)r * N + c], y = b[(size_t)c * N + r];
      err = fmax(err, fmax(fabs((double)x.x - y.x), fabs((double)x.y - y.y)));
      big = fmax(big, fmax(fabs((double)x.x), fabs((double)x.y)));
    }
  printf("packed transform %d: largest error %.3g of its largest value (2^-22 = %.3g)\n", g,
         err / big, 1.0 / (1 << 22));
  delete[] a;
  delete[] b;
  return 0;
}

int main() {
  const int groups = 128;
  size_t n = (size_t)groups * N * N, bytes = n * sizeof(float2);
  float2 *in, *out, *ws;
  unsigned *ctr;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&ws, bytes));
  CK(cudaMalloc(&ctr, (groups + 1) * sizeof(unsigned)));
  iota<<<1024, 256>>>((float *)in, (long long)(2 * n));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  double moved = 2.0 * bytes;
  float copy_ms = time_ms([&] {
    copy<<<sms * 8, 512>>>((const float4 *)in, (float4 *)out, (long long)(bytes / 16));
  });
  double copy_gbps = moved / copy_ms / 1e6;
  printf("plain copy %.3f ms %.1f GB/s\n", copy_ms, copy_gbps);
  for (int round = 0; round < 2; round++) {
    if (run<8, 8>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<8, 6>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<8, 4>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<8, 8, true>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<8, 6, true>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<8, 4, true>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<8, 6, true, 1>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        check_packed(in, out, 0) || check_packed(in, out, groups - 1) ||
        run<8, 6, true, 2>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        check_packed(in, out, 0) || check_packed(in, out, groups - 1) ||
        run<8, 6, true, 3>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        check_packed(in, out, 0) || check_packed(in, out, groups - 1) ||
        run<16, 16>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<16, 12>(in, ws, out, ctr, groups, sms, moved, copy_gbps) ||
        run<16, 8>(in, ws, out, ctr, groups, sms, moved, copy_gbps))
      return 1;
  }
  return 0;
}
