// Seeded input generators, the silu-mul kernel and the bandwidth references' streaming kernels
// (declarations and contracts in kernels.cuh).
#include "kernels.cuh"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "bwgemm/formats/e4m3.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "common.hpp"
#include "generators.hpp"

namespace bwgemm::bench {
namespace {

constexpr int kThreadsPerBlock = 256;    // elementwise kernels: any multiple of 32 works
constexpr int64_t kMaxBlocks = 1 << 16;  // grid-stride loops cover the rest

int blocks_for(int64_t work_items) {
  return static_cast<int>(
      std::clamp<int64_t>((work_items + kThreadsPerBlock - 1) / kThreadsPerBlock, 1, kMaxBlocks));
}

template <class T>
__device__ __forceinline__ T from_f32(float v);
template <>
__device__ __forceinline__ __half from_f32<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <class T>
__device__ __forceinline__ float to_f32(T v);
template <>
__device__ __forceinline__ float to_f32<__half>(__half v) {
  return __half2float(v);
}
template <>
__device__ __forceinline__ float to_f32<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T>
__global__ void fill_uniform_pm1_kernel(T* x, int64_t count, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    x[i] = from_f32<T>(generators::uniform_pm1(seed, static_cast<uint64_t>(i)));
}

__global__ void fill_masked_bytes_kernel(uint8_t* bytes, int64_t count, uint64_t seed, uint8_t mask) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    bytes[i] = static_cast<uint8_t>(generators::random_bits(seed, static_cast<uint64_t>(i))) & mask;
}

__global__ void fill_blocked_e4m3_scales_kernel(uint8_t* scales, int64_t rows, int64_t sf_cols,
                                                uint64_t seed) {
  const int64_t count = rows * sf_cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t row = i / sf_cols, col = i % sf_cols;
    const uint64_t bits = generators::random_bits(seed, static_cast<uint64_t>(i));
    scales[blocked_scale_offset(row, col, 0, rows, sf_cols)] = e4m3_encode(generators::uniform01(bits));
  }
}

__device__ __forceinline__ float silu_times(float x, float y) {
  return x / (1.0f + __expf(-x)) * y;
}

// Eight elements (16 bytes) per thread per step; needs cols, ld_in, ld_out multiples of 8 and
// 16-byte aligned rows (checked by the launcher).
constexpr int kVectorElems = 8;

template <class T>
__global__ void silu_mul_vec8_kernel(const T* __restrict__ x, const T* __restrict__ y, int64_t ld_in,
                                     T* __restrict__ out, int64_t ld_out, int64_t rows, int64_t cols) {
  const int64_t vecs_per_row = cols / kVectorElems;
  const int64_t total = rows * vecs_per_row;
  for (int64_t v = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; v < total;
       v += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = v / vecs_per_row, c = (v % vecs_per_row) * kVectorElems;
    const uint4 xv = *reinterpret_cast<const uint4*>(x + r * ld_in + c);
    const uint4 yv = *reinterpret_cast<const uint4*>(y + r * ld_in + c);
    uint4 ov;
    const T* xe = reinterpret_cast<const T*>(&xv);
    const T* ye = reinterpret_cast<const T*>(&yv);
    T* oe = reinterpret_cast<T*>(&ov);
#pragma unroll
    for (int i = 0; i < kVectorElems; ++i) oe[i] = from_f32<T>(silu_times(to_f32(xe[i]), to_f32(ye[i])));
    *reinterpret_cast<uint4*>(out + r * ld_out + c) = ov;
  }
}

template <class T>
__global__ void silu_mul_scalar_kernel(const T* x, const T* y, int64_t ld_in, T* out, int64_t ld_out,
                                       int64_t rows, int64_t cols) {
  const int64_t total = rows * cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / cols, c = i % cols;
    out[r * ld_out + c] = from_f32<T>(silu_times(to_f32(x[r * ld_in + c]), to_f32(y[r * ld_in + c])));
  }
}

// One block row (blockIdx.y) per expert: its rows [0, clamp(counts[e], 0, max_rows)) of the slab, a
// grid-stride loop over them in blockIdx.x; vectorized by eight where the launcher found every row 16-byte
// aligned.
template <class T, bool kVector>
__global__ void masked_silu_mul_kernel(const T* __restrict__ x, const T* __restrict__ y, int64_t ld_in,
                                       int64_t slab_in, T* __restrict__ out, int64_t ld_out, int64_t slab_out,
                                       const int32_t* __restrict__ counts, int64_t max_rows, int64_t cols) {
  const int64_t e = blockIdx.y;
  const int64_t count = counts[e];
  const int64_t rows = count < 0 ? 0 : (count > max_rows ? max_rows : count);
  const int64_t step = kVector ? kVectorElems : 1;
  const int64_t per_row = cols / step, total = rows * per_row;
  const T* xe = x + e * slab_in;
  const T* ye = y + e * slab_in;
  T* oe = out + e * slab_out;
  for (int64_t v = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; v < total;
       v += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = v / per_row, c = (v % per_row) * step;
    if constexpr (kVector) {
      const uint4 xv = *reinterpret_cast<const uint4*>(xe + r * ld_in + c);
      const uint4 yv = *reinterpret_cast<const uint4*>(ye + r * ld_in + c);
      uint4 ov;
      const T* xs = reinterpret_cast<const T*>(&xv);
      const T* ys = reinterpret_cast<const T*>(&yv);
      T* os = reinterpret_cast<T*>(&ov);
#pragma unroll
      for (int i = 0; i < kVectorElems; ++i) os[i] = from_f32<T>(silu_times(to_f32(xs[i]), to_f32(ys[i])));
      *reinterpret_cast<uint4*>(oe + r * ld_out + c) = ov;
    } else {
      oe[r * ld_out + c] = from_f32<T>(silu_times(to_f32(xe[r * ld_in + c]), to_f32(ye[r * ld_in + c])));
    }
  }
}

// Blocks per expert of masked_silu_mul_kernel: enough for a full slab at a few steps per thread, at most this
// many (most experts of a decode step have a row or two, and every block of an empty expert still launches).
constexpr int64_t kMaxMaskedBlocksPerExpert = 16;

bool aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// Streaming kernels: each thread keeps kStreamUnroll independent 16-byte loads in flight per step of its
// grid-stride loop (consecutive threads read consecutive vectors, so every warp access is 512 contiguous
// bytes), then finishes the remainder one vector at a time.
constexpr int kStreamUnroll = 4;
constexpr int kWarpSize = 32;

__device__ __forceinline__ uint32_t xor_words(const uint4& v) {
  return v.x ^ v.y ^ v.z ^ v.w;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    read_reduce_kernel(const uint4* __restrict__ data, int64_t vectors, uint32_t* __restrict__ sink) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  uint32_t acc = 0;
  for (; i + (kStreamUnroll - 1) * stride < vectors; i += kStreamUnroll * stride) {
    uint4 v[kStreamUnroll];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) acc ^= xor_words(v[u]);
  }
  for (; i < vectors; i += stride) acc ^= xor_words(data[i]);

  // Block reduction: warps by shuffles, then the first warp over the warps' results.
  __shared__ uint32_t warp_acc[kThreadsPerBlock / kWarpSize];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize,
            warp = static_cast<int>(threadIdx.x) / kWarpSize;
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) acc ^= __shfl_xor_sync(0xFFFFFFFFu, acc, offset);
  if (lane == 0) warp_acc[warp] = acc;
  __syncthreads();
  if (warp != 0) return;
  acc = lane < static_cast<int>(blockDim.x) / kWarpSize ? warp_acc[lane] : 0;
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) acc ^= __shfl_xor_sync(0xFFFFFFFFu, acc, offset);
  if (lane == 0) atomicXor(sink, acc);
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, int64_t vectors) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  for (; i + (kStreamUnroll - 1) * stride < vectors; i += kStreamUnroll * stride) {
    uint4 v[kStreamUnroll];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < vectors; i += stride) dst[i] = src[i];
}

int64_t stream_vectors(int64_t bytes, std::initializer_list<const void*> pointers, const char* what) {
  bool aligned = true;
  for (const void* p : pointers) aligned = aligned && aligned16(p);
  if (bytes <= 0 || bytes % sizeof(uint4) != 0 || !aligned) {
    throw BenchError(std::string(what) + ": needs a positive multiple of 16 bytes (got " +
                     std::to_string(bytes) + ") and 16-byte aligned pointers");
  }
  return bytes / static_cast<int64_t>(sizeof(uint4));
}

}  // namespace

template <class T>
void fill_uniform_pm1(T* x, int64_t count, uint64_t seed, cudaStream_t stream) {
  fill_uniform_pm1_kernel<<<blocks_for(count), kThreadsPerBlock, 0, stream>>>(x, count, seed);
  BWGEMM_BENCH_CUDA(cudaGetLastError());
}
template void fill_uniform_pm1<__half>(__half*, int64_t, uint64_t, cudaStream_t);
template void fill_uniform_pm1<__nv_bfloat16>(__nv_bfloat16*, int64_t, uint64_t, cudaStream_t);

void fill_masked_bytes(uint8_t* bytes, int64_t count, uint64_t seed, uint8_t mask, cudaStream_t stream) {
  fill_masked_bytes_kernel<<<blocks_for(count), kThreadsPerBlock, 0, stream>>>(bytes, count, seed, mask);
  BWGEMM_BENCH_CUDA(cudaGetLastError());
}

void fill_blocked_e4m3_scales(uint8_t* scales, int64_t rows, int64_t sf_cols, uint64_t seed,
                              cudaStream_t stream) {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(scales, 0, static_cast<size_t>(blocked_scale_bytes(rows, sf_cols)),
                                    stream));  // padding
  fill_blocked_e4m3_scales_kernel<<<blocks_for(rows * sf_cols), kThreadsPerBlock, 0, stream>>>(scales, rows,
                                                                                               sf_cols, seed);
  BWGEMM_BENCH_CUDA(cudaGetLastError());
}

template <class T>
void launch_silu_mul(const T* x, const T* y, int64_t ld_in, T* out, int64_t ld_out, int64_t rows,
                     int64_t cols, cudaStream_t stream) {
  const bool vectorizable = cols % kVectorElems == 0 && ld_in % kVectorElems == 0 &&
                            ld_out % kVectorElems == 0 && aligned16(x) && aligned16(y) && aligned16(out);
  if (vectorizable) {
    silu_mul_vec8_kernel<T><<<blocks_for(rows * cols / kVectorElems), kThreadsPerBlock, 0, stream>>>(
        x, y, ld_in, out, ld_out, rows, cols);
  } else {
    silu_mul_scalar_kernel<T>
        <<<blocks_for(rows * cols), kThreadsPerBlock, 0, stream>>>(x, y, ld_in, out, ld_out, rows, cols);
  }
  BWGEMM_BENCH_CUDA(cudaGetLastError());
}
template void launch_silu_mul<__half>(const __half*, const __half*, int64_t, __half*, int64_t, int64_t,
                                      int64_t, cudaStream_t);
template void launch_silu_mul<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, int64_t,
                                             __nv_bfloat16*, int64_t, int64_t, int64_t, cudaStream_t);

template <class T>
void launch_masked_silu_mul(const T* x, const T* y, int64_t ld_in, int64_t slab_in, T* out, int64_t ld_out,
                            int64_t slab_out, const int32_t* counts, int64_t experts, int64_t max_rows,
                            int64_t cols, cudaStream_t stream) {
  if (experts < 1 || experts > 65535)
    throw BenchError("launch_masked_silu_mul: experts must be in [1, 65535] (got " + std::to_string(experts) +
                     ")");
  const bool vectorizable = cols % kVectorElems == 0 && ld_in % kVectorElems == 0 &&
                            ld_out % kVectorElems == 0 && slab_in % kVectorElems == 0 &&
                            slab_out % kVectorElems == 0 && aligned16(x) && aligned16(y) && aligned16(out);
  const int64_t per_slab = max_rows * cols / (vectorizable ? kVectorElems : 1);
  const dim3 grid(
      static_cast<unsigned>(std::clamp<int64_t>(
          (per_slab + 4 * kThreadsPerBlock - 1) / (4 * kThreadsPerBlock), 1, kMaxMaskedBlocksPerExpert)),
      static_cast<unsigned>(experts));
  if (vectorizable) {
    masked_silu_mul_kernel<T, true><<<grid, kThreadsPerBlock, 0, stream>>>(x, y, ld_in, slab_in, out, ld_out,
                                                                           slab_out, counts, max_rows, cols);
  } else {
    masked_silu_mul_kernel<T, false><<<grid, kThreadsPerBlock, 0, stream>>>(x, y, ld_in, slab_in, out, ld_out,
                                                                            slab_out, counts, max_rows, cols);
  }
  BWGEMM_BENCH_CUDA(cudaGetLastError());
}
template void launch_masked_silu_mul<__half>(const __half*, const __half*, int64_t, int64_t, __half*, int64_t,
                                             int64_t, const int32_t*, int64_t, int64_t, int64_t,
                                             cudaStream_t);
template void launch_masked_silu_mul<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, int64_t,
                                                    int64_t, __nv_bfloat16*, int64_t, int64_t, const int32_t*,
                                                    int64_t, int64_t, int64_t, cudaStream_t);

int bandwidth_grid_blocks(int sm_count) {
  int per_sm_read = 0, per_sm_copy = 0;
  BWGEMM_BENCH_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_read, read_reduce_kernel, kThreadsPerBlock, 0));
  BWGEMM_BENCH_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_copy, copy_kernel, kThreadsPerBlock, 0));
  return std::max(1, sm_count) * std::max(1, std::min(per_sm_read, per_sm_copy));
}

void launch_read_reduce(const void* data, int64_t bytes, uint32_t* sink, int blocks, cudaStream_t stream) {
  const int64_t vectors = stream_vectors(bytes, {data}, "launch_read_reduce");
  read_reduce_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(static_cast<const uint4*>(data), vectors, sink);
  BWGEMM_BENCH_CUDA(cudaGetLastError());
}

void launch_copy(const void* src, void* dst, int64_t bytes, int blocks, cudaStream_t stream) {
  const int64_t vectors = stream_vectors(bytes, {src, dst}, "launch_copy");
  copy_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(static_cast<const uint4*>(src),
                                                       static_cast<uint4*>(dst), vectors);
  BWGEMM_BENCH_CUDA(cudaGetLastError());
}

bool bench_kernels_loadable(std::string* why) {
  cudaFuncAttributes attributes;
  const cudaError_t status = cudaFuncGetAttributes(&attributes, silu_mul_vec8_kernel<__half>);
  if (status == cudaSuccess) return true;
  (void)cudaGetLastError();
  *why = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  return false;
}

}  // namespace bwgemm::bench
