// The benchmark's device code (kernels.cuh) as host code, for the emulator build of the tuner
// (bwgemm-tune-emu, bench/CMakeLists.txt): the generators write the same values as the GPU kernels
// (generators.hpp) through the emulated runtime's cudaMemcpy; silu-mul computes on the host. The bandwidth
// references need a GPU and throw.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bwgemm/formats/e4m3.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "common.hpp"
#include "generators.hpp"
#include "kernels.cuh"

namespace bwgemm::bench {
namespace {

template <class T>
void copy_to_device(T* dst, const std::vector<T>& src, cudaStream_t stream) {
  BWGEMM_BENCH_CUDA(cudaMemcpyAsync(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
}

template <class T>
std::vector<T> copy_to_host(const T* src, int64_t count, cudaStream_t stream) {
  std::vector<T> out(static_cast<size_t>(count));
  BWGEMM_BENCH_CUDA(cudaMemcpyAsync(out.data(), src, out.size() * sizeof(T), cudaMemcpyDeviceToHost, stream));
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  return out;
}

float to_float(__half v) {
  return __half2float(v);
}
float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <class T>
T from_float(float v);
template <>
__half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

}  // namespace

template <class T>
void fill_uniform_pm1(T* x, int64_t count, uint64_t seed, cudaStream_t stream) {
  std::vector<T> host(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    host[static_cast<size_t>(i)] = from_float<T>(generators::uniform_pm1(seed, static_cast<uint64_t>(i)));
  copy_to_device(x, host, stream);
}
template void fill_uniform_pm1<__half>(__half*, int64_t, uint64_t, cudaStream_t);
template void fill_uniform_pm1<__nv_bfloat16>(__nv_bfloat16*, int64_t, uint64_t, cudaStream_t);

void fill_masked_bytes(uint8_t* bytes, int64_t count, uint64_t seed, uint8_t mask, cudaStream_t stream) {
  std::vector<uint8_t> host(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    host[static_cast<size_t>(i)] =
        static_cast<uint8_t>(generators::random_bits(seed, static_cast<uint64_t>(i))) & mask;
  copy_to_device(bytes, host, stream);
}

void fill_blocked_e4m3_scales(uint8_t* scales, int64_t rows, int64_t sf_cols, uint64_t seed,
                              cudaStream_t stream) {
  std::vector<uint8_t> host(static_cast<size_t>(blocked_scale_bytes(rows, sf_cols)), 0);  // padding zero
  for (int64_t i = 0; i < rows * sf_cols; ++i) {
    const int64_t row = i / sf_cols, col = i % sf_cols;
    const uint64_t bits = generators::random_bits(seed, static_cast<uint64_t>(i));
    host[static_cast<size_t>(blocked_scale_offset(row, col, 0, rows, sf_cols))] =
        e4m3_encode(generators::uniform01(bits));
  }
  copy_to_device(scales, host, stream);
}

template <class T>
void launch_silu_mul(const T* x, const T* y, int64_t ld_in, T* out, int64_t ld_out, int64_t rows,
                     int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const int64_t in_count = (rows - 1) * ld_in + cols, out_count = (rows - 1) * ld_out + cols;
  const std::vector<T> hx = copy_to_host(x, in_count, stream), hy = copy_to_host(y, in_count, stream);
  std::vector<T> ho = copy_to_host(static_cast<const T*>(out), out_count, stream);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const float xv = to_float(hx[static_cast<size_t>(r * ld_in + c)]);
      const float yv = to_float(hy[static_cast<size_t>(r * ld_in + c)]);
      ho[static_cast<size_t>(r * ld_out + c)] = from_float<T>(xv / (1.0f + std::exp(-xv)) * yv);
    }
  copy_to_device(out, ho, stream);
}
template void launch_silu_mul<__half>(const __half*, const __half*, int64_t, __half*, int64_t, int64_t,
                                      int64_t, cudaStream_t);
template void launch_silu_mul<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, int64_t,
                                             __nv_bfloat16*, int64_t, int64_t, int64_t, cudaStream_t);

template <class T>
void launch_masked_silu_mul(const T* x, const T* y, int64_t ld_in, int64_t slab_in, T* out, int64_t ld_out,
                            int64_t slab_out, const int32_t* counts, int64_t experts, int64_t max_rows,
                            int64_t cols, cudaStream_t stream) {
  const std::vector<int32_t> rows = copy_to_host(counts, experts, stream);
  for (int64_t e = 0; e < experts; ++e) {
    const int64_t r = std::min<int64_t>(std::max<int32_t>(rows[static_cast<size_t>(e)], 0), max_rows);
    if (r > 0)
      launch_silu_mul(x + e * slab_in, y + e * slab_in, ld_in, out + e * slab_out, ld_out, r, cols, stream);
  }
}
template void launch_masked_silu_mul<__half>(const __half*, const __half*, int64_t, int64_t, __half*, int64_t,
                                             int64_t, const int32_t*, int64_t, int64_t, int64_t,
                                             cudaStream_t);
template void launch_masked_silu_mul<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, int64_t,
                                                    int64_t, __nv_bfloat16*, int64_t, int64_t, const int32_t*,
                                                    int64_t, int64_t, int64_t, cudaStream_t);

int bandwidth_grid_blocks(int sm_count) {
  return sm_count > 0 ? sm_count : 1;
}

void launch_read_reduce(const void*, int64_t, uint32_t*, int, cudaStream_t) {
  throw BenchError("launch_read_reduce: the bandwidth references need a GPU (not in the emulator build)");
}

void launch_copy(const void*, void*, int64_t, int, cudaStream_t) {
  throw BenchError("launch_copy: the bandwidth references need a GPU (not in the emulator build)");
}

bool bench_kernels_loadable(std::string*) {
  return true;
}

}  // namespace bwgemm::bench
