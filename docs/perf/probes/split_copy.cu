// split_copy.cu - the memory patterns of fp32 2^24's two four-step kernels (4096 x 4096,
// batch 8) without their arithmetic, against a plain copy, on one GPU. Build and run:
//   nvcc -arch=sm_90 -O3 -o split_copy split_copy.cu && ./split_copy
// Column pattern: 4 columns of 4096 points per block (32-byte row segments at a 32 KB
// stride), stored in tiles of 4 rows. Row pattern: a tile of 4 rows read as one range,
// stored transposed (32-byte segments at a 32 KB stride).
#include <cuda_runtime.h>
#include "probe_util.cuh"

template <int COLS, int ROWS>
__global__ void __launch_bounds__(ROWS *COLS / 16)
    colcopy(const float2 *__restrict__ in, float2 *__restrict__ out, int touch) {
  extern __shared__ float2 sm[];
  const int n = 4096, TPB = ROWS * COLS / 16, per = 16;  // values per thread
  long long blk = blockIdx.x % (8 * 4096 / COLS), part = blockIdx.x / (8 * 4096 / COLS);
  long long batch = blk / (4096 / COLS), c0 = (blk % (4096 / COLS)) * COLS;
  const float2 *src = in + batch * 16777216LL + c0;
  float2 *dst = out + batch * 16777216LL;
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS + (int)part * ROWS, rstep = TPB / COLS;
  float2 v[per];
#pragma unroll
  for (int k = 0; k < per; k++) v[k] = src[(long long)(r0 + k * rstep) * n + f];
  if (touch) {  // one round through shared memory and a barrier, like an exchange
#pragma unroll
    for (int k = 0; k < per; k++) sm[(r0 + k * rstep) * COLS + f] = v[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < per; k++) v[k] = sm[((r0 + k * rstep) ^ 1) * COLS + f];
  }
  // tiles of 4 rows: element (e, c) at ((e / 4) * 4096 + c) * 4 + e % 4
#pragma unroll
  for (int k = 0; k < per; k++) {
    long long e = r0 + k * rstep, c = c0 + f;
    dst[((e >> 2) * 4096 + c) * 4 + (e & 3)] = v[k];
  }
}

// the row kernel's pattern: block b reads tile b (4 rows of 4096, interleaved: element (row
// k0, n1) at (k0 / 4) * 16384 + 4 * n1 + k0 % 4, one contiguous 128 KB range) and writes
// element n1 of row k0 to n1 * 4096 + k0 (32-byte segments at a 32 KB stride)
__global__ void __launch_bounds__(1024)
    rowcopy(const float2 *__restrict__ in, float2 *__restrict__ out) {
  long long batch = blockIdx.x / 1024, tile = blockIdx.x % 1024;
  const float2 *src = in + batch * 16777216LL + tile * 16384;
  float2 *dst = out + batch * 16777216LL + tile * 4;
  int t = threadIdx.x;
  float2 v[16];
#pragma unroll
  for (int k = 0; k < 16; k++) v[k] = src[t + k * 1024];
#pragma unroll
  for (int k = 0; k < 16; k++) {
    int i = t + k * 1024;
    dst[(long long)(i >> 2) * 4096 + (i & 3)] = v[k];
  }
}

template <int COLS, int ROWS>
static int run(const char *name, const float2 *in, float2 *out, size_t smem, int touch,
               double bytes) {
  const int TPB = ROWS * COLS / 16;
  CK(cudaFuncSetAttribute(colcopy<COLS, ROWS>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int)smem));
  int blocks = 8 * 4096 / COLS * (4096 / ROWS), per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, colcopy<COLS, ROWS>, TPB, smem));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; i++) colcopy<COLS, ROWS><<<blocks, TPB, smem>>>(in, out, touch);
  cudaEventRecord(a);
  for (int i = 0; i < 10; i++) colcopy<COLS, ROWS><<<blocks, TPB, smem>>>(in, out, touch);
  cudaEventRecord(b);
  CK(cudaEventSynchronize(b));
  CK(cudaGetLastError());
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  ms /= 10;
  printf("%-44s blocks/SM %d  %.3f ms  %.1f GB/s\n", name, per_sm, ms, bytes / ms / 1e6);
  return 0;
}

int main() {
  size_t n = 1ull << 27, bytes = n * sizeof(float2);
  float2 *in, *out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMemset(in, 0, bytes));
  CK(cudaMemset(out, 0, bytes));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; i++) copy<<<132 * 8, 512>>>((const float4 *)in, (float4 *)out, bytes / 16);
  cudaEventRecord(a);
  for (int i = 0; i < 10; i++)
    copy<<<132 * 8, 512>>>((const float4 *)in, (float4 *)out, bytes / 16);
  cudaEventRecord(b);
  CK(cudaEventSynchronize(b));
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  ms /= 10;
  double moved = 2.0 * bytes;
  printf("%-44s %.3f ms  %.1f GB/s\n", "plain copy", ms, moved / ms / 1e6);
  CK(cudaFuncSetAttribute(rowcopy, cudaFuncAttributeMaxDynamicSharedMemorySize, 148096));
  for (int i = 0; i < 3; i++) rowcopy<<<8192, 1024, 148096>>>(in, out);
  cudaEventRecord(a);
  for (int i = 0; i < 10; i++) rowcopy<<<8192, 1024, 148096>>>(in, out);
  cudaEventRecord(b);
  CK(cudaEventSynchronize(b));
  CK(cudaGetLastError());
  cudaEventElapsedTime(&ms, a, b);
  ms /= 10;
  printf("%-44s %.3f ms  %.1f GB/s\n", "R rows of tiles -> 32-byte segments", ms, moved / ms / 1e6);
  run<4, 4096>("A 4 cols x 4096 rows, 148 KB smem", in, out, 148096, 0, moved);
  run<4, 4096>("A' same + smem round and barrier", in, out, 148096, 1, moved);
  run<4, 2048>("4 cols x 2048 rows, 74 KB smem", in, out, 75776, 0, moved);
  run<4, 1024>("B 4 cols x 1024 rows, no smem", in, out, 0, 0, moved);
  run<8, 2048>("C 8 cols x 2048 rows, 148 KB smem", in, out, 148096, 0, moved);
  run<8, 512>("D 8 cols x 512 rows, no smem", in, out, 0, 0, moved);
  run<16, 1024>("E 16 cols x 1024 rows, 148 KB smem", in, out, 148096, 0, moved);
  run<16, 256>("F 16 cols x 256 rows, no smem", in, out, 0, 0, moved);
  run<4, 4096>("A again", in, out, 148096, 0, moved);
  return 0;
}
