// column_stream.cu - fp32 2^20's column kernel pattern (1024 x 1024, batch 128; 16 columns
// of 1024 points per block, 128-byte row segments at an 8 KB stride) with a stand-in for its
// arithmetic, as planned (one block of 512 threads per multiprocessor, loads into registers,
// an L2 prefetch of a later block after them, a shared-memory exchange, stores) against
// persistent blocks whose next tile streams into shared memory while the current one is
// computed, exchanged and stored: by 16-byte asynchronous copies from every thread, or by
// four tensor-map bulk copies (256 rows each) from one thread.
// Build and run: nvcc -arch=sm_90 -O3 -o column_stream column_stream.cu -lcuda && ./column_stream
#include <cuda.h>
#include <cuda_runtime.h>
#include "probe_util.cuh"

enum { N = 1024, COLS = 16, THREADS = 512, PER = N * COLS / THREADS, BATCH = 128 };
enum { TILES = BATCH * (N / COLS), STEP = THREADS / COLS }; /* rows apart a thread's values */
enum { TILE_BYTES = N * COLS * 8, CHUNKS = TILE_BYTES / 16, AHEAD = 66, BOX_ROWS = 256 };

__device__ __forceinline__ long long tile_base(long long tile) { /* element of row 0 */
  return (tile / (N / COLS)) * (long long)N * N + (tile % (N / COLS)) * COLS;
}

/* The arithmetic's stand-in: `work` complex multiplies per value (independent chains). */
__device__ __forceinline__ void compute(float2 (&v)[PER], int work, float2 rot) {
  for (int k = 0; k < work; k++)
#pragma unroll
    for (int j = 0; j < PER; j++)
      v[j] = make_float2(v[j].x * rot.x - v[j].y * rot.y, v[j].x * rot.y + v[j].y * rot.x);
}

/* A thread's values through shared memory (halves parts at a time) and back: written by row,
 * read by another thread, as a Stockham exchange transposes. */
template <int HALVES>
__device__ __forceinline__ void exchange(float2 (&v)[PER], float *x) {
  int t = threadIdx.x, u = (t * 33) % THREADS;
  for (int h = 0; h < HALVES; h++) {
#pragma unroll
    for (int j = 0; j < PER; j++) {
      if (HALVES == 1) ((float2 *)x)[j * THREADS + t] = v[j];
      else x[j * THREADS + t] = h ? v[j].y : v[j].x;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < PER; j++) {
      if (HALVES == 1) {
        v[j] = ((float2 *)x)[j * THREADS + u];
      } else {
        float r = x[j * THREADS + u];
        if (h) v[j].y = r;
        else v[j].x = r;
      }
    }
    __syncthreads();
  }
}

/* As planned: one tile per block, loads into registers, then the rows of the block AHEAD
 * later asked of L2. */
__global__ void __launch_bounds__(THREADS)
    plain(const float2 *__restrict__ in, float2 *__restrict__ out, int work, float2 rot) {
  extern __shared__ float x[];
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS;
  long long base = tile_base(blockIdx.x) + f;
  float2 v[PER];
#pragma unroll
  for (int j = 0; j < PER; j++) v[j] = in[base + (long long)(r0 + STEP * j) * N];
  if (blockIdx.x + AHEAD < TILES)
    for (int r = t; r < N; r += THREADS)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(in + tile_base(blockIdx.x + AHEAD) +
                                                     (long long)r * N));
  compute(v, work, rot);
  exchange<1>(v, x);
  compute(v, work, rot);
#pragma unroll
  for (int j = 0; j < PER; j++) out[base + (long long)(r0 + STEP * j) * N] = v[j];
}

/* Every thread starts its 16-byte asynchronous copies of a tile into stage (row-major, 128
 * bytes a row), as one commit group. */
__device__ __forceinline__ void stage_chunks(const float2 *in, long long tile, float2 *stage) {
  const float2 *src = in + tile_base(tile);
  for (int c = threadIdx.x; c < CHUNKS; c += THREADS) {
    int row = c / (COLS / 2), piece = c % (COLS / 2);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                     smem_addr(stage + row * COLS + piece * 2)),
                 "l"(src + (long long)row * N + piece * 2)
                 : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Tensor map copies: thread 0 arms bar with the tile's bytes and starts four boxes of
 * BOX_ROWS rows x 32 floats. */
__device__ __forceinline__ void stage_boxes(const CUtensorMap *map, long long tile,
                                            float2 *stage, unsigned long long *bar) {
  if (threadIdx.x != 0) return;
  unsigned b = smem_addr(bar);
  asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(b),
               "r"(TILE_BYTES)
               : "memory");
  int col = (int)(tile % (N / COLS)) * COLS * 2; /* in floats */
  int row = (int)(tile / (N / COLS)) * N;
  for (int k = 0; k < N / BOX_ROWS; k++)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(stage + k * BOX_ROWS * COLS)),
        "l"(map), "r"(col), "r"(row + k * BOX_ROWS), "r"(b)
        : "memory");
}

/* Persistent: each block takes tiles blockIdx.x, + gridDim.x, ...; the next tile streams
 * into stage (MODE 0: 16-byte copies, MODE 1: tensor map) from when this one is in
 * registers; the exchange goes through half a tile (real parts, then imaginary parts). */
template <int MODE>
__global__ void __launch_bounds__(THREADS)
    streamed(const float2 *__restrict__ in, float2 *__restrict__ out, int work, float2 rot,
             const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(128) float2 stage[];
  float *x = (float *)(stage + N * COLS);
  unsigned long long *bar = (unsigned long long *)(x + N * COLS);
  int t = threadIdx.x, f = t % COLS, r0 = t / COLS;
  if (MODE == 1 && t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  long long tile = blockIdx.x;
  if (tile < TILES) {
    if (MODE == 0) stage_chunks(in, tile, stage);
    else stage_boxes(&map, tile, stage, bar);
  }
  for (unsigned phase = 0; tile < TILES; tile += gridDim.x, phase++) {
    if (MODE == 0) asm volatile("cp.async.wait_group 0;" ::: "memory");
    else wait_phase(bar, phase);
    __syncthreads();
    float2 v[PER];
#pragma unroll
    for (int j = 0; j < PER; j++) v[j] = stage[(r0 + STEP * j) * COLS + f];
    __syncthreads();
    if (tile + gridDim.x < TILES) {
      if (MODE == 0) stage_chunks(in, tile + gridDim.x, stage);
      else {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        stage_boxes(&map, tile + gridDim.x, stage, bar);
      }
    }
    compute(v, work, rot);
    exchange<2>(v, x);
    compute(v, work, rot);
    long long base = tile_base(tile) + f;
#pragma unroll
    for (int j = 0; j < PER; j++) out[base + (long long)(r0 + STEP * j) * N] = v[j];
  }
}

/* A 2D tensor map over the input as BATCH * N rows of 2 * N floats, boxes of BOX_ROWS rows x
 * 32 floats (one 128-byte row segment). */
static int make_map(CUtensorMap *map, const float2 *in) {
  cuuint64_t dims[2] = {2 * N, (cuuint64_t)BATCH * N};
  cuuint64_t strides[1] = {2 * N * sizeof(float)};
  cuuint32_t box[2] = {2 * COLS, BOX_ROWS}, elem[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(
      map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)in, dims, strides, box, elem,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) printf("cuTensorMapEncodeTiled: %d\n", (int)r);
  return r == CUDA_SUCCESS;
}

/* Checks that form (0 plain, 1 and 2 streamed) copies in to out with no work and an identity
 * rotation (the exchange moves values between threads, so out is in permuted within each
 * tile: compares sums per tile instead). */
static long long check(int form, const float2 *in, float2 *out, int sms, int plain_smem,
                       int stream_smem, const CUtensorMap &map) {
  float2 one = make_float2(1.0f, 0.0f);
  cudaMemset(out, 0, (size_t)TILES * TILE_BYTES);
  if (form == 0) plain<<<TILES, THREADS, plain_smem>>>(in, out, 0, one);
  else if (form == 1) streamed<0><<<sms, THREADS, stream_smem>>>(in, out, 0, one, map);
  else streamed<1><<<sms, THREADS, stream_smem>>>(in, out, 0, one, map);
  cudaDeviceSynchronize();
  static float2 a[N * N], b[N * N];
  long long bad = 0;
  for (int batch = 0; batch < BATCH; batch += 37) {
    cudaMemcpy(a, in + (long long)batch * N * N, sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(b, out + (long long)batch * N * N, sizeof b, cudaMemcpyDeviceToHost);
    for (int col0 = 0; col0 < N; col0 += COLS) {
      double sa = 0, sb = 0;
      for (int r = 0; r < N; r++)
        for (int c = 0; c < COLS; c++) {
          sa += a[r * N + col0 + c].x + 3.0 * a[r * N + col0 + c].y;
          sb += b[r * N + col0 + c].x + 3.0 * b[r * N + col0 + c].y;
        }
      bad += sa != sb;
    }
  }
  return bad;
}

int main() {
  long long elements = (long long)BATCH * N * N;
  float2 *in, *out;
  CK(cudaMalloc(&in, elements * 8));
  CK(cudaMalloc(&out, elements * 8));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  iota<<<sms * 8, 1024>>>((float *)in, elements * 2);
  CUtensorMap map;
  if (!make_map(&map, in)) return 1;
  int plain_smem = 136 * 1024, stream_smem = TILE_BYTES + TILE_BYTES / 2 + 16;
  CK(cudaFuncSetAttribute(plain, cudaFuncAttributeMaxDynamicSharedMemorySize, plain_smem));
  CK(cudaFuncSetAttribute(streamed<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, stream_smem));
  CK(cudaFuncSetAttribute(streamed<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, stream_smem));
  for (int form = 0; form < 3; form++)
    printf("check %s: %lld tiles wrong\n", form == 0 ? "plain" : form == 1 ? "chunks" : "boxes",
           check(form, in, out, sms, plain_smem, stream_smem, map));
  double gb = 2.0 * elements * 8 / 1e9;
  float c = time_ms([&] { copy<<<sms * 8, 1024>>>((const float4 *)in, (float4 *)out, elements / 2); });
  printf("copy %7.3f ms %6.0f GB/s\n", c, gb / c * 1e3);
  printf("work  plain_ms  chunks_ms  boxes_ms   (%% of copy)\n");
  float2 rot = make_float2(0.6f, 0.8f);
  for (int work : {0, 2, 4, 8, 12, 16}) {
    float p = time_ms([&] { plain<<<TILES, THREADS, plain_smem>>>(in, out, work, rot); });
    float s0 = time_ms([&] { streamed<0><<<sms, THREADS, stream_smem>>>(in, out, work, rot, map); });
    float s1 = time_ms([&] { streamed<1><<<sms, THREADS, stream_smem>>>(in, out, work, rot, map); });
    printf("%4d  %7.3f  %7.3f  %7.3f   (%5.1f %5.1f %5.1f)\n", work, p, s0, s1, 100 * c / p,
           100 * c / s0, 100 * c / s1);
  }
  CK(cudaGetLastError());
  return 0;
}
