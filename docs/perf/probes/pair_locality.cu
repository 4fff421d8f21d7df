// pair_locality.cu - whether a pair kernel's workspace crosses the fabric between the L2's two
// partitions less when the blocks that read a group's workspace are in the cluster (so the
// GPC, so the L2 partition) of the blocks that wrote it. Clusters of 8 blocks; cluster c
// copies its 512 KiB chunk of the input to the workspace (evict-first loads), counts it done,
// then waits for chunk c - distance to be done and copies that chunk of the workspace to the
// output (evict-first stores), each block taking another block's slice, then discards those
// workspace lines. distance 0: the cluster's own chunk (written by its GPC); 1 and 16: a chunk
// written by other clusters, mostly on other GPCs. Same bytes, same synchronisation.
// Build and run: nvcc -arch=sm_90 -O3 -o pair_locality pair_locality.cu && ./pair_locality
#include <cuda_runtime.h>
#include "probe_util.cuh"

enum { CLUSTER = 8, THREADS = 256, CHUNK = 32768, SLICE = CHUNK / CLUSTER, PER = SLICE / THREADS };

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS)
    locality(const float4 *__restrict__ in, float4 *ws, float4 *__restrict__ out, int chunks,
             int distance, unsigned *done) {
  long long c = blockIdx.x / CLUSTER;
  unsigned r = cluster_rank();
  int t = threadIdx.x;
  const float4 *src = in + c * CHUNK + r * SLICE;
  float4 *dst = ws + c * CHUNK + r * SLICE;
  float4 v[PER];
#pragma unroll
  for (int k = 0; k < PER; k++) v[k] = __ldcs(src + t + k * THREADS);
#pragma unroll
  for (int k = 0; k < PER; k++) dst[t + k * THREADS] = v[k];
  __threadfence();
  __syncthreads();
  if (t == 0) atomicAdd(done + c, 1u);
  long long g = c - distance;
  if (g < 0) return;
  if (t == 0)
    while (atomicAdd(done + g, 0u) < (unsigned)CLUSTER) __nanosleep(100);
  __syncthreads();
  unsigned from = (r + 1) % CLUSTER;  // another block's slice
  const float4 *w = ws + g * CHUNK + from * SLICE;
  float4 *o = out + g * CHUNK + from * SLICE;
#pragma unroll
  for (int k = 0; k < PER; k++) v[k] = __ldcg(w + t + k * THREADS);
#pragma unroll
  for (int k = 0; k < PER; k++) __stcs(o + t + k * THREADS, v[k]);
  __syncthreads();
  for (int l = t; l < SLICE * 16 / 128; l += THREADS)
    asm volatile("discard.global.L2 [%0], 128;" ::"l"((const char *)w + l * 128) : "memory");
}

int main() {
  const int chunks = 2048;  // 1 GiB: the fp32 65536 bench's 2^27 elements
  size_t n = (size_t)chunks * CHUNK, bytes = n * sizeof(float4);
  float4 *in, *out, *ws;
  unsigned *done;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&ws, bytes));
  CK(cudaMalloc(&done, chunks * sizeof(unsigned)));
  CK(cudaMemset(in, 0, bytes));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  double moved = 2.0 * bytes;
  float ms = time_ms([&] { copy<<<sms * 8, 512>>>(in, out, (long long)n); });
  double copy_gbps = moved / ms / 1e6;
  printf("plain copy %.3f ms %.1f GB/s\n", ms, copy_gbps);
  int distances[] = {0, 1, 16, 0};
  for (int i = 0; i < 4; i++) {
    int d = distances[i];
    ms = time_ms([&] {
      cudaMemsetAsync(done, 0, chunks * sizeof(unsigned));
      locality<<<chunks * CLUSTER, THREADS>>>(in, ws, out, chunks, d, done);
    });
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("distance %2d: %.3f ms %.1f GB/s %.1f%% of copy\n", d, ms, moved / ms / 1e6,
           100 * moved / ms / 1e6 / copy_gbps);
  }
  return 0;
}
