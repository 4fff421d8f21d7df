// probe_util.cuh - what the probes in this directory share: a CUDA status check that returns
// 1 from main, a grid-stride float4 copy kernel (the bandwidth reference), a fill kernel,
// best-of-10 event timing, and the shared-memory address and mbarrier wait of bulk copies.
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      return 1;                                      \
    }                                                \
  } while (0)

/* out[i] = in[i] for n float4 values, grid-stride. */
__global__ void copy(const float4 *__restrict__ in, float4 *__restrict__ out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

/* p[i] = i mod 16777213 (exact in fp32) for n floats. */
__global__ void iota(float *p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    p[i] = (float)(i % 16777213);
}

/* The best of 10 timed runs of launch() (milliseconds), after one untimed run. */
template <typename F>
static float time_ms(F launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();
  float best = 1e30f;
  for (int r = 0; r < 10; r++) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (ms < best) best = ms;
  }
  return best;
}

/* The shared-memory address of a generic pointer into shared memory. */
__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

/* Waits until the mbarrier at bar completes the phase of parity phase & 1. */
__device__ __forceinline__ void wait_phase(unsigned long long *bar, unsigned phase) {
  unsigned b = smem_addr(bar), done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(b), "r"(phase & 1)
                 : "memory");
}
