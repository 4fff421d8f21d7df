// cluster_split.cu - the memory patterns of fp32 2^24's split in two (4096 x 4096, batch 8)
// as cluster kernels of 4 blocks on 16 columns or 16 rows (128-byte segments), without
// their arithmetic, against the current column kernel's (4 columns a block, 32-byte row
// segments) and a plain copy. Build and run on the GPU machine:
//   nvcc -arch=sm_90 -O3 -o cluster_split cluster_split.cu && ./cluster_split
// Cluster pattern: a cluster takes 16 adjacent columns (128-byte row segments); block b of
// it loads rows b + 4e (e < 1024) into its shared memory (128 KiB), and after a cluster
// barrier takes rows k in [256 b, 256 b + 256), reads element k of every block's shared
// memory (distributed shared memory, as the 4-point DFTs of a cluster kernel do), and
// stores rows k + 1024 q (q < 4), again as 128-byte segments (pulled). Pushed instead: after
// a cluster barrier each block writes every value from its registers into the shared memory
// of the block that takes its k, and after a second barrier reads only its own (remote
// stores do not stall the thread the way remote loads do, which held session 33's version
// of this kernel on the H100). The question it answers:
// whether such a column kernel could run in the 790 us that 1.2x cuFFT leaves it beside the
// row kernel's 697 us on an H200 (docs/perf/targets.md, fp32 C2C 2^24), where the current
// column kernel takes 964-977 us held by the L2's request rate.
// Row pattern (the second pass in the same form, decimation in frequency): a cluster takes
// 16 rows; block b loads the quarter [1024 b, 1024 b + 1024) of each (whole lines), reads
// elements n + 1024 b' of every block b' for its 256 n (the 4-point DFTs), writes output q
// of each to block q's shared memory, and stores its 1024 values of each row transposed:
// element 4 j + b of the 16 rows as one 128-byte segment (the current row kernel stores
// 32-byte segments, 697 us).
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include "probe_util.cuh"

namespace cg = cooperative_groups;

enum { n = 4096, cols = 16, cluster = 4, part = n / cluster, threads = 1024 };
enum { per = part * cols / threads };  // values a thread loads: 16
enum { pitch = part + 1 };             // cluster_rows' row stride: no bank conflicts

__global__ void __cluster_dims__(cluster, 1, 1) __launch_bounds__(threads)
    cluster_columns(const float2 *__restrict__ in, float2 *__restrict__ out, int exchange) {
  extern __shared__ float2 sm[];  // [e][f], e < part, f < cols
  cg::cluster_group group = cg::this_cluster();
  int rank = (int)group.block_rank();
  long long set = blockIdx.x / cluster;  // 16-column set of a transform
  long long batch = set / (n / cols), c0 = (set % (n / cols)) * cols;
  const float2 *src = in + batch * n * (long long)n + c0;
  float2 *dst = out + batch * n * (long long)n + c0;
  int t = threadIdx.x, f = t % cols, e0 = t / cols, estep = threads / cols;
  float2 v[per];
#pragma unroll
  for (int i = 0; i < per; i++) v[i] = src[(long long)((e0 + i * estep) * cluster + rank) * n + f];
  if (!exchange) {  // the loads' and stores' pattern alone: rows back where they came from
#pragma unroll
    for (int i = 0; i < per; i++)
      dst[(long long)((e0 + i * estep) * cluster + rank) * n + f] = v[i];
    return;
  }
  const int share = part / cluster, outs = share * cols / threads;  // 4 (k, column) a thread
  if (exchange == 2) {  // push: each value goes to the block that takes its k
    group.sync();       // the FFT's last pass has read every block's shared memory
#pragma unroll
    for (int i = 0; i < per; i++) {  // element e of this block, to block e / share's slot
      int e = e0 + i * estep;
      group.map_shared_rank(sm, e / share)[(rank * share + e % share) * cols + f] = v[i];
    }
    group.sync();  // slot b * share + kk holds element rank * share + kk of block b
#pragma unroll
    for (int i = 0; i < outs; i++) {
      int kk = t / cols + i * estep, k = rank * share + kk;
#pragma unroll
      for (int q = 0; q < cluster; q++)
        dst[(long long)(k + part * q) * n + f] = sm[((q * share) + kk) * cols + f];
    }
    return;  // nothing reads another block's shared memory after the last cluster barrier
  }
#pragma unroll
  for (int i = 0; i < per; i++) sm[(e0 + i * estep) * cols + f] = v[i];
  group.sync();
  // rows k = 256 rank + kk of every block b (element k of b's part is row k * 4 + b; its
  // stand-in DFT output q goes to row k + 1024 q): 256 x 16 values a block, 4 a thread
#pragma unroll
  for (int i = 0; i < outs; i++) {
    int kk = t / cols + i * estep, k = rank * (part / cluster) + kk;
    float2 s[cluster];
#pragma unroll
    for (int b = 0; b < cluster; b++) s[b] = group.map_shared_rank(sm, b)[k * cols + f];
#pragma unroll
    for (int q = 0; q < cluster; q++) {
      float2 z = s[q];  // stand-in for the 4-point DFT: each value once
      dst[(long long)(k + part * q) * n + f] = z;
    }
  }
  group.sync();  // no block leaves while another reads its shared memory
}

__global__ void __cluster_dims__(cluster, 1, 1) __launch_bounds__(threads)
    cluster_rows(const float2 *__restrict__ in, float2 *__restrict__ out) {
  extern __shared__ float2 sm[];  // [row][e], row < cols (16 rows), e < part, padded
  cg::cluster_group group = cg::this_cluster();
  int rank = (int)group.block_rank();
  long long set = blockIdx.x / cluster;  // 16-row set of a transform
  long long batch = set / (n / cols), r0 = (set % (n / cols)) * cols;
  const float2 *src = in + batch * n * (long long)n + r0 * n;
  float2 *dst = out + batch * n * (long long)n + r0;
  int t = threadIdx.x;
#pragma unroll
  for (int row = 0; row < cols; row++)
    sm[row * pitch + t] = src[(long long)row * n + rank * part + t];
  group.sync();
  // the 4-point DFTs: this block's 256 n of 16 rows take element n + 1024 b of every block
  // b, and output q goes back to block q at the same place; each place is read and written
  // by one thread only, so no barrier is needed between the reads and the writes
  const int outs = part / cluster * cols / threads;  // 4 (n, row) pairs a thread
#pragma unroll
  for (int i = 0; i < outs; i++) {
    int pair = t + i * threads, row = pair / (part / cluster);
    int at = row * pitch + rank * (part / cluster) + pair % (part / cluster);
    float2 y[cluster];
#pragma unroll
    for (int b = 0; b < cluster; b++) y[b] = group.map_shared_rank(sm, b)[at];
#pragma unroll
    for (int q = 0; q < cluster; q++) group.map_shared_rank(sm, q)[at] = y[(q + 1) % cluster];
  }
  group.sync();
  // the block's 1024-point FFTs would run here; element j of row `row` is output 4 j + rank,
  // stored at (4 j + rank) * 4096 + row: 16 rows of one output a 128-byte segment
#pragma unroll
  for (int i = 0; i < per; i++) {
    int v = t + i * threads, row = v % cols, j = v / cols;
    dst[(long long)(cluster * j + rank) * n + row] = sm[row * pitch + j];
  }
}

// the current column kernel's loads: 4 columns of 4096 (32-byte row segments), one block
// each, stored back in place (the pattern's floor, as split_copy.cu's A without tiles)
__global__ void __launch_bounds__(1024)
    narrow_columns(const float2 *__restrict__ in, float2 *__restrict__ out) {
  long long set = blockIdx.x, batch = set / (n / 4), c0 = (set % (n / 4)) * 4;
  const float2 *src = in + batch * n * (long long)n + c0;
  float2 *dst = out + batch * n * (long long)n + c0;
  int t = threadIdx.x, f = t % 4, r0 = t / 4;
  float2 v[16];
#pragma unroll
  for (int i = 0; i < 16; i++) v[i] = src[(long long)(r0 + i * 256) * n + f];
#pragma unroll
  for (int i = 0; i < 16; i++) dst[(long long)(r0 + i * 256) * n + f] = v[i];
}

int main() {
  size_t count = 1ull << 27, bytes = count * sizeof(float2);
  float2 *in, *out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMemset(in, 0, bytes));
  double moved = 2.0 * bytes;
  float ms =
      time_ms([&] { copy<<<132 * 8, 512>>>((const float4 *)in, (float4 *)out, bytes / 16); });
  CK(cudaGetLastError());
  printf("%-58s %.3f ms  %.1f GB/s\n", "plain copy", ms, moved / ms / 1e6);
  ms = time_ms([&] { narrow_columns<<<8 * n / 4, 1024>>>(in, out); });
  CK(cudaGetLastError());
  printf("%-58s %.3f ms  %.1f GB/s\n", "4 columns a block (32-byte segments), back in place", ms,
         moved / ms / 1e6);
  size_t smem = (size_t)part * cols * sizeof(float2);
  CK(cudaFuncSetAttribute(cluster_columns, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int blocks = 8 * (n / cols) * cluster;
  static const char *const exchanges[] = {
      "cluster of 4, 16 columns (128-byte segments), back in place",
      "cluster of 4, 16 columns, pulled through distributed smem",
      "cluster of 4, 16 columns, pushed through distributed smem"};
  for (int exchange = 0; exchange < 3; exchange++) {
    ms = time_ms([&] { cluster_columns<<<blocks, threads, smem>>>(in, out, exchange); });
    CK(cudaGetLastError());
    printf("%-58s %.3f ms  %.1f GB/s\n", exchanges[exchange], ms, moved / ms / 1e6);
  }
  size_t row_smem = (size_t)cols * pitch * sizeof(float2);
  CK(cudaFuncSetAttribute(cluster_rows, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int)row_smem));
  ms = time_ms([&] { cluster_rows<<<blocks, threads, row_smem>>>(in, out); });
  CK(cudaGetLastError());
  printf("%-58s %.3f ms  %.1f GB/s\n",
         "cluster of 4, 16 rows, 4-point exchange, 128-byte transposed stores", ms,
         moved / ms / 1e6);
  return 0;
}
