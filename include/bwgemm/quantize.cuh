// bwgemm::quantize_nvfp4: NVFP4 quantization on the GPU (any compute capability >= 8.0).
//
// Row-major fp32 / fp16 / bf16 input -> packed e2m1 codes (K-major, element 2i in the low nibble) and
// e4m3 block scales in the 128x4 blocked layout (padding written as zero), with an optional
// per-tensor global scale. Bit-identical to bwgemm::quantize_nvfp4_host: both call
// quantize_nvfp4_block (formats/nvfp4.cuh), whose divisions are IEEE round-to-nearest even under
// --use_fast_math. The call is asynchronous on `stream`; it allocates nothing and does not synchronize.
#pragma once

#if !defined(__CUDACC__)
#error "bwgemm/quantize.cuh launches a CUDA kernel: compile the including file with nvcc (a .cu file)"
#endif

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/host/status.hpp"
#include "bwgemm/ptx/misc.cuh"

namespace bwgemm {

namespace detail {

inline constexpr int kQuantizeThreadsPerBlock = 256;
inline constexpr int kQuantizeMinComputeCapability = 80;

// One thread per entry of the padded (batch, rows, K/16) scale grid; padding entries write a zero scale.
template <class T>
__global__ void __launch_bounds__(kQuantizeThreadsPerBlock)
    quantize_nvfp4_kernel(const T* __restrict__ x, int64_t rows, int64_t k, int64_t batch, int64_t ld,
                          float global_scale, uint8_t* __restrict__ packed, uint8_t* __restrict__ scales) {
  const int64_t sf_cols = k / kNvfp4BlockSize;
  const int64_t padded_cols = round_up(sf_cols, kScaleAtomCols);
  const int64_t padded_rows = round_up(rows, kScaleAtomRows);
  const int64_t total = batch * padded_rows * padded_cols;
  const int64_t stride = static_cast<int64_t>(ptx::grid_dim().x) * ptx::block_dim().x;
  for (int64_t idx = static_cast<int64_t>(ptx::block_idx().x) * ptx::block_dim().x + ptx::thread_idx().x;
       idx < total; idx += stride) {
    const int64_t j = idx % padded_cols;
    const int64_t r = (idx / padded_cols) % padded_rows;
    const int64_t b = idx / (padded_cols * padded_rows);
    const int64_t scale_offset = blocked_scale_offset(r, j, b, rows, sf_cols);
    if (r >= rows || j >= sf_cols) {
      scales[scale_offset] = 0;
      continue;
    }
    uint8_t codes[kNvfp4BlockSize];
    uint8_t scale;
    quantize_nvfp4_block(x + (b * rows + r) * ld + j * kNvfp4BlockSize, global_scale, &scale, codes);
    scales[scale_offset] = scale;
    uint8_t* out = packed + (b * rows + r) * (k / 2) + j * (kNvfp4BlockSize / 2);
    for (int i = 0; i < kNvfp4BlockSize; i += 2)
      out[i / 2] = static_cast<uint8_t>(codes[i] | (codes[i + 1] << 4));
  }
}

// Device-accessible memory (device, managed, or mapped host memory)?
inline bool is_device_accessible(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the error this query may leave behind
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
         (attr.type == cudaMemoryTypeHost && attr.devicePointer != nullptr);
}

}  // namespace detail

// x: `batch` row-major rows x k matrices (row stride ld elements, batch stride rows * ld) in device
// memory; packed: batch * rows * k / 2 bytes; scales: blocked_scale_bytes(rows, k / 16, batch) bytes.
// An element decodes as e2m1(code) * e4m3(scale) * global_scale.
template <class T>
Status quantize_nvfp4(const T* x, int64_t rows, int64_t k, int64_t batch, int64_t ld, float global_scale,
                      uint8_t* packed, uint8_t* scales, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                "quantize_nvfp4 takes float, __half or __nv_bfloat16 input");
  if (Status s = validate_nvfp4_shape(rows, k, batch, ld); !s.ok()) return s;
  if (!(global_scale > 0.0f) || global_scale > 3.4e38f)
    return Status::invalid_argument("global_scale must be a positive finite number");
  if (x == nullptr || packed == nullptr || scales == nullptr)
    return Status::invalid_argument("x, packed and scales must not be null");
  if (reinterpret_cast<uintptr_t>(x) % alignof(T) != 0)
    return Status::invalid_argument("x must be aligned to its element size");
  for (const void* p :
       {static_cast<const void*>(x), static_cast<const void*>(packed), static_cast<const void*>(scales)})
    if (!detail::is_device_accessible(p))
      return Status::invalid_argument(
          "x, packed and scales must be device-accessible memory (not plain host memory)");

  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return Status::driver_error(std::string("cannot query the current device: ") +
                                cudaGetErrorString(cudaGetLastError()));
  }
  if (major * 10 + minor < detail::kQuantizeMinComputeCapability)
    return Status::device_mismatch("quantize_nvfp4 needs compute capability 8.0 or newer (device " +
                                   std::to_string(device) + " is " + std::to_string(major) + "." +
                                   std::to_string(minor) + ")");

  const int64_t total =
      batch * round_up(rows, kScaleAtomRows) * round_up(k / kNvfp4BlockSize, kScaleAtomCols);
  constexpr int64_t kMaxBlocks = 1 << 20;  // the kernel strides over the rest
  const int64_t blocks = std::min(ceil_div(total, detail::kQuantizeThreadsPerBlock), kMaxBlocks);
  detail::quantize_nvfp4_kernel<T>
      <<<static_cast<unsigned>(blocks), detail::kQuantizeThreadsPerBlock, 0, stream>>>(
          x, rows, k, batch, ld, global_scale, packed, scales);
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess)
    return Status::driver_error(std::string("quantize_nvfp4 launch failed: ") + cudaGetErrorString(err) +
                                (err == cudaErrorNoKernelImageForDevice
                                     ? " (rebuild with this GPU's architecture in CMAKE_CUDA_ARCHITECTURES)"
                                     : ""));
  return Status::success();
}

}  // namespace bwgemm
