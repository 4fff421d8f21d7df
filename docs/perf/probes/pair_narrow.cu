// pair_narrow.cu - what a narrower workspace would buy fp32 2^20's pair kernel (1024 x 1024,
// batch 128): pair_copy.cu's memory pattern (no arithmetic), with the workspace holding
// `kept` of every 8 bytes per element (8: fp32 complex as now; 6: a 24-bit packed form; 4: a
// 16-bit one). The first items write 8 columns' row segments of 8 * kept bytes (row pitch
// N * kept bytes), the second items read 8 such rows whole and store 8 full output columns;
// input and output evict-first, workspace lines discarded once read. Only bytes are modelled
// (values are not converted), so the time is the floor of the pattern at that width.
// Build and run: nvcc -arch=sm_90 -O3 -o pair_narrow pair_narrow.cu && ./pair_narrow
#include <cuda_runtime.h>
#include "probe_util.cuh"

enum { N = 1024, COLS = 8, THREADS = 1024, PER = N * COLS / THREADS, ITEMS = N / COLS };

__device__ void discard_line(const void *p) {
  asm volatile("discard.global.L2 [%0], 128;" ::"l"(p) : "memory");
}

/* One persistent kernel: item i of step s is a first item of transform s (columns 8b..8b+7
 * to the workspace) or a second item of transform s - lag (workspace rows 8b..8b+7 to the
 * output, transposed), as in pair_copy.cu. kept: 8-byte words of the workspace per 8 columns
 * (the workspace is float2 words, row pitch N * kept / 8 words). */
__global__ void __launch_bounds__(THREADS)
    pairnarrow(const float2 *__restrict__ in, float2 *ws, float2 *__restrict__ out, int groups,
               int lag, int kept, unsigned *next, unsigned *done) {
  __shared__ unsigned item_s;
  extern __shared__ float2 sm[];
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS, rstep = THREADS / COLS;
  long long pitch = (long long)N * kept / COLS, ws_transform = pitch * N;
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
      float2 *dst = ws + g * ws_transform + b * kept;
#pragma unroll
      for (int k = 0; k < PER; k++) v[k] = __ldcs(src + (long long)(r0 + k * rstep) * N + f);
      if (f < kept) {
#pragma unroll
        for (int k = 0; k < PER; k++) dst[(long long)(r0 + k * rstep) * pitch + f] = v[k];
      }
      __threadfence();
      __syncthreads();
      if (t == 0) atomicAdd(done + g, 1u);
    } else {
      if (t == 0)
        while (atomicAdd(done + g, 0u) < (unsigned)ITEMS) __nanosleep(100);
      __syncthreads();
      const float2 *src = ws + g * ws_transform + (long long)b * COLS * pitch;
      float2 *dst = out + g * N * N + b * COLS;
      int words = (int)(COLS * pitch);
      for (int i = t; i < words; i += THREADS)  // rows read whole
        sm[(i / pitch) * (N + 1) + i % pitch] = __ldcg(src + i);
      __syncthreads();
#pragma unroll
      for (int k = 0; k < PER; k++) {  // neighbouring threads on neighbouring rows
        int i = t + k * THREADS, row = i % COLS, col = i / COLS;
        __stcs(dst + (long long)col * N + row, sm[row * (N + 1) + col]);
      }
      __syncthreads();
      for (int l = t; l < words * 8 / 128; l += THREADS) discard_line((const char *)src + l * 128);
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
  CK(cudaFuncSetAttribute(pairnarrow, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pairnarrow, THREADS, smem));
  double moved = 2.0 * bytes;
  float copy_ms = time_ms([&] {
    copy<<<sms * 8, 512>>>((const float4 *)in, (float4 *)out, (long long)(bytes / 16));
  });
  double copy_gbps = moved / copy_ms / 1e6;
  printf("plain copy %.3f ms %.1f GB/s; %d blocks per SM\n", copy_ms, copy_gbps, per_sm);
  int kepts[] = {8, 6, 4}, lags[] = {1, 2};
  for (int round = 0; round < 2; round++)
    for (int ki = 0; ki < 3; ki++)
      for (int li = 0; li < 2; li++) {
        float ms = time_ms([&] {
          cudaMemsetAsync(ctr, 0, (groups + 1) * sizeof(unsigned));
          pairnarrow<<<sms * per_sm, THREADS, smem>>>(in, ws, out, groups, lags[li], kepts[ki],
                                                      ctr + groups, ctr);
        });
        CK(cudaGetLastError());
        printf("round %d workspace %d/8 bytes lag %d: %.3f ms %.1f%% of copy\n", round,
               kepts[ki], lags[li], ms, 100 * moved / ms / 1e6 / copy_gbps);
      }
  return 0;
}
