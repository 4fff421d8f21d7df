// column_pipeline.cu - the memory pattern of fp32 2^20's column kernel (1024 x 1024, batch
// 128; 16 columns of 1024 points per block, 128-byte row segments at an 8 KB stride)
// without its arithmetic, as planned (one block of 512 threads per multiprocessor, loads
// into registers, a shared-memory exchange, stores) against a persistent form whose next
// tile streams into shared memory by bulk copies while the current one is exchanged and
// stored. Build and run: nvcc -arch=sm_90 -O3 -o column_pipeline column_pipeline.cu && ./column_pipeline
#include <cuda_runtime.h>
#include "probe_util.cuh"

enum { N = 1024, COLS = 16, THREADS = 512, PER = N * COLS / THREADS, BATCH = 128 };
enum { TILES = BATCH * (N / COLS), STEP = THREADS / COLS }; /* rows apart a thread's values */
enum { TILE_BYTES = N * COLS * 8 };

__device__ __forceinline__ long long tile_base(long long tile) { /* element of row 0 */
  return (tile / (N / COLS)) * (long long)N * N + (tile % (N / COLS)) * COLS;
}

/* A thread's PER values through shared memory and back: written by row, read by a
 * different thread (the transpose a Stockham exchange makes), split in halves of
 * `halves` parts so the exchange area holds 1 / halves of a tile. */
template <int HALVES>
__device__ __forceinline__ void exchange(float2 (&v)[PER], float *x) {
  int t = threadIdx.x;
  for (int h = 0; h < HALVES; h++) {
    for (int j = 0; j < PER; j++) {
      float2 w = v[j];
      if (HALVES == 1) {
        ((float2 *)x)[j * THREADS + t] = w;
      } else {
        x[j * THREADS + t] = h ? w.y : w.x;
      }
    }
    __syncthreads();
    int u = (t * 33) % THREADS; /* another thread's values */
    for (int j = 0; j < PER; j++) {
      if (HALVES == 1) {
        v[j] = ((float2 *)x)[j * THREADS + u];
      } else {
        float r = x[j * THREADS + u];
        if (h) v[j].y = r; else v[j].x = r;
      }
    }
    __syncthreads();
  }
}

/* As planned: one tile per block, loads into registers. */
template <int EXCHANGE>
__global__ void __launch_bounds__(THREADS) plain(const float2 *__restrict__ in,
                                                 float2 *__restrict__ out) {
  extern __shared__ float x[];
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS;
  long long base = tile_base(blockIdx.x) + f;
  float2 v[PER];
  for (int j = 0; j < PER; j++) v[j] = in[base + (long long)(r0 + STEP * j) * N];
  if (EXCHANGE) exchange<1>(v, x);
  for (int j = 0; j < PER; j++) out[base + (long long)(r0 + STEP * j) * N] = v[j];
}

/* Warp 0 starts the bulk copies of a tile's 1024 row segments into stage, completing on
 * bar; lane 0 first arms bar with the tile's bytes. */
__device__ __forceinline__ void stage_tile(const float2 *in, long long tile, float2 *stage,
                                           unsigned long long *bar) {
  int lane = threadIdx.x;
  unsigned b = smem_addr(bar);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (lane == 0)
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(b),
                 "r"(TILE_BYTES)
                 : "memory");
  __syncwarp();
  const float2 *src = in + tile_base(tile);
  for (int r = lane; r < N; r += 32)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            smem_addr(stage + r * COLS)),
        "l"(src + (long long)r * N), "r"(COLS * 8), "r"(b)
        : "memory");
}

/* Persistent: the next tile streams into stage while this one is exchanged (real parts,
 * then imaginary parts, through half a tile of shared memory) and stored. */
template <int EXCHANGE>
__global__ void __launch_bounds__(THREADS) pipelined(const float2 *__restrict__ in,
                                                     float2 *__restrict__ out) {
  extern __shared__ __align__(128) float2 stage[];
  float *x = (float *)(stage + N * COLS);
  unsigned long long *bar = (unsigned long long *)(x + N * COLS);
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS;
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  long long tile = blockIdx.x;
  if (t < 32 && tile < TILES) stage_tile(in, tile, stage, bar);
  for (unsigned phase = 0; tile < TILES; tile += gridDim.x, phase++) {
    wait_phase(bar, phase);
    float2 v[PER];
    for (int j = 0; j < PER; j++) v[j] = stage[(r0 + STEP * j) * COLS + f];
    __syncthreads();
    if (t < 32 && tile + gridDim.x < TILES) stage_tile(in, tile + gridDim.x, stage, bar);
    if (EXCHANGE) exchange<2>(v, x);
    long long base = tile_base(tile) + f;
    for (int j = 0; j < PER; j++) out[base + (long long)(r0 + STEP * j) * N] = v[j];
  }
}

int main() {
  long long elements = (long long)BATCH * N * N;
  float2 *in, *out;
  CK(cudaMalloc(&in, elements * 8));
  CK(cudaMalloc(&out, elements * 8));
  CK(cudaMemset(in, 1, elements * 8));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int plain_smem = 136 * 1024, pipe_smem = TILE_BYTES + TILE_BYTES / 2 + 16;
  CK(cudaFuncSetAttribute(plain<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, plain_smem));
  CK(cudaFuncSetAttribute(plain<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, plain_smem));
  CK(cudaFuncSetAttribute(pipelined<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, pipe_smem));
  CK(cudaFuncSetAttribute(pipelined<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, pipe_smem));
  double gb = 2.0 * elements * 8 / 1e9;
  float c = time_ms([&] { copy<<<sms * 8, 1024>>>((const float4 *)in, (float4 *)out, elements / 2); });
  printf("copy                 %7.3f ms  %6.0f GB/s\n", c, gb / c * 1e3);
  struct {
    const char *name;
    float ms;
  } rows[] = {
      {"plain, exchange", time_ms([&] { plain<1><<<TILES, THREADS, plain_smem>>>(in, out); })},
      {"plain, no exchange", time_ms([&] { plain<0><<<TILES, THREADS, plain_smem>>>(in, out); })},
      {"pipelined, exchange", time_ms([&] { pipelined<1><<<sms, THREADS, pipe_smem>>>(in, out); })},
      {"pipelined, none", time_ms([&] { pipelined<0><<<sms, THREADS, pipe_smem>>>(in, out); })},
  };
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (auto &r : rows)
    printf("%-20s %7.3f ms  %6.0f GB/s  %5.1f%% of copy\n", r.name, r.ms, gb / r.ms * 1e3,
           100.0 * c / r.ms);
  /* check: without the exchange every form copies in to out */
  iota<<<sms * 8, 1024>>>((float *)in, elements * 2);
  for (int form = 0; form < 2; form++) {
    CK(cudaMemset(out, 0, elements * 8));
    if (form == 0) plain<0><<<TILES, THREADS, plain_smem>>>(in, out);
    else pipelined<0><<<sms, THREADS, pipe_smem>>>(in, out);
    CK(cudaDeviceSynchronize());
    long long bad = 0;
    static float2 a[1 << 20], b[1 << 20];
    for (long long at = 0; at + (1 << 20) <= elements; at += elements / 7) {
      CK(cudaMemcpy(a, in + at, sizeof a, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b, out + at, sizeof b, cudaMemcpyDeviceToHost));
      for (int i = 0; i < (1 << 20); i++) bad += a[i].x != b[i].x || a[i].y != b[i].y;
    }
    printf("check %s: %lld wrong\n", form ? "pipelined" : "plain", bad);
  }
  return 0;
}
