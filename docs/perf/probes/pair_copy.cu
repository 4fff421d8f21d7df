// pair_copy.cu - the memory pattern of fp32 2^20's pair kernel (1024 x 1024, batch 128)
// without its arithmetic: one persistent kernel whose blocks take items in order; a first
// item copies 8 columns of a transform (64-byte row segments) from the input to the
// workspace, a second item copies 8 workspace rows to the output transposed (64-byte
// segments) once its transform's first items are done, `lag` transforms behind; the input
// and output evict-first, workspace lines discarded from L2 once read.
// Build and run: nvcc -arch=sm_90 -O3 -o pair_copy pair_copy.cu && ./pair_copy
#include <cuda_runtime.h>
#include "probe_util.cuh"

enum { N = 1024, COLS = 8, THREADS = 1024, PER = N * COLS / THREADS, ITEMS = N / COLS };

__device__ void discard_line(const void *p) {
  asm volatile("discard.global.L2 [%0], 128;" ::"l"(p) : "memory");
}

__global__ void __launch_bounds__(THREADS)
    paircopy(const float2 *__restrict__ in, float2 *ws, float2 *__restrict__ out, int groups,
             int lag, unsigned *next, unsigned *done, int discard) {
  __shared__ unsigned item_s;
  extern __shared__ float2 sm[];
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS, rstep = THREADS / COLS;
  for (;;) {
    if (t == 0) item_s = atomicAdd(next, 1u);
    __syncthreads();
    unsigned item = item_s;
    __syncthreads();
    // step s: the first items of group s, then the second items of group s - lag
    unsigned step = item / (2 * ITEMS), within = item % (2 * ITEMS);
    int second = within >= ITEMS;
    long long g = second ? (long long)step - lag : (long long)step;
    int b = within % ITEMS;
    if (step >= (unsigned)(groups + lag)) return;
    if (g < 0 || g >= groups) continue;
    if (!second) {
      float2 v[PER];
      const float2 *src = in + g * N * N + b * COLS;
      float2 *dst = ws + g * N * N + b * COLS;
#pragma unroll
      for (int k = 0; k < PER; k++) v[k] = __ldcs(src + (long long)(r0 + k * rstep) * N + f);
#pragma unroll
      for (int k = 0; k < PER; k++) dst[(long long)(r0 + k * rstep) * N + f] = v[k];
      __threadfence();
      __syncthreads();
      if (t == 0) atomicAdd(done + g, 1u);
    } else {
      if (t == 0)
        while (atomicAdd(done + g, 0u) < (unsigned)ITEMS) __nanosleep(100);
      __syncthreads();
      const float2 *src = ws + g * N * N + (long long)b * COLS * N;  // rows b*8 .. b*8+7
      float2 *dst = out + g * N * N + b * COLS;
#pragma unroll
      for (int k = 0; k < PER; k++) {  // rows read whole, transposed through shared memory
        int i = t + k * THREADS;
        sm[(i / N) * (N + 1) + i % N] = __ldcg(src + i);
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < PER; k++) {  // neighbouring threads on neighbouring rows
        int i = t + k * THREADS, row = i % COLS, col = i / COLS;
        __stcs(dst + (long long)col * N + row, sm[row * (N + 1) + col]);
      }
      if (discard) {  // every value read (the stores used them): the lines are dead
        __syncthreads();
        for (int l = t; l < COLS * N * 8 / 128; l += THREADS)
          discard_line((const char *)src + l * 128);
      }
    }
  }
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
  CK(cudaMemset(in, 0, bytes));
  int sms = 0, per_sm = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t smem = (size_t)COLS * (N + 1) * sizeof(float2);
  CK(cudaFuncSetAttribute(paircopy, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, paircopy, THREADS, smem));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float ms;
  double moved = 2.0 * bytes;
  for (int i = 0; i < 3; i++) copy<<<sms * 8, 512>>>((const float4 *)in, (float4 *)out, bytes / 16);
  cudaEventRecord(a);
  for (int i = 0; i < 10; i++)
    copy<<<sms * 8, 512>>>((const float4 *)in, (float4 *)out, bytes / 16);
  cudaEventRecord(b);
  CK(cudaEventSynchronize(b));
  cudaEventElapsedTime(&ms, a, b);
  ms /= 10;
  double copy_gbps = moved / ms / 1e6;
  printf("plain copy %.3f ms %.1f GB/s; pair probe: %d blocks per SM\n", ms, copy_gbps, per_sm);
  int lags[] = {1, 2, 4};
  for (int d = 1; d >= 0; d--)
    for (int li = 0; li < 3; li++) {
      int lag = lags[li];
      float total = 0;
      for (int i = 0; i < 13; i++) {
        CK(cudaMemset(ctr, 0, (groups + 1) * sizeof(unsigned)));
        cudaEventRecord(a);
        paircopy<<<sms * per_sm, THREADS, smem>>>(in, ws, out, groups, lag, ctr + groups, ctr, d);
        cudaEventRecord(b);
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        cudaEventElapsedTime(&ms, a, b);
        if (i >= 3) total += ms;
      }
      ms = total / 10;
      printf("pair probe lag %d discard %d: %.3f ms %.1f GB/s %.1f%% of copy\n", lag, d, ms,
             moved / ms / 1e6, 100 * moved / ms / 1e6 / copy_gbps);
    }
  return 0;
}
