// bwgemm::quantize_nvfp4: NVFP4 quantization on the GPU (any compute capability >= 8.0).
//
// Row-major fp32 / fp16 / bf16 input -> packed e2m1 codes (K-major, element 2i in the low nibble) and
// e4m3 block scales in the 128x4 blocked layout (padding written as zero), with an optional
// per-tensor global scale. Bit-identical to bwgemm::quantize_nvfp4_host: both call
// quantize_nvfp4_block (formats/nvfp4.cuh), whose divisions are IEEE round-to-nearest even under
// --use_fast_math. The call is asynchronous on `stream`; it allocates nothing and does not synchronize.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"  // check_device_scale
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/ptx/misc.cuh"

namespace bwgemm {

namespace detail {

inline constexpr int kQuantizeThreadsPerBlock = 256;
inline constexpr int kQuantizeMinComputeCapability = 80;

template <class T>
struct QuantizeParams {
  const T* x;
  int64_t rows, k, batch, ld;
  float global_scale;
  const float* global_scale_ptr;  // device part (null: none), read once per thread before its loop
  uint8_t* packed;
  uint8_t* scales;
};

// One thread per entry of the padded (batch, rows, K/16) scale grid; padding entries write a zero scale.
template <class T>
__global__ void __launch_bounds__(kQuantizeThreadsPerBlock) quantize_nvfp4_kernel(const QuantizeParams<T> p) {
  const int64_t sf_cols = p.k / kNvfp4BlockSize;
  const int64_t padded_cols = round_up(sf_cols, kScaleAtomCols);
  const int64_t padded_rows = round_up(p.rows, kScaleAtomRows);
  const int64_t total = p.batch * padded_rows * padded_cols;
  const int64_t stride = static_cast<int64_t>(ptx::grid_dim().x) * ptx::block_dim().x;
  const float global_scale = epi::device_scale(p.global_scale, p.global_scale_ptr);
  for (int64_t idx = static_cast<int64_t>(ptx::block_idx().x) * ptx::block_dim().x + ptx::thread_idx().x;
       idx < total; idx += stride) {
    const int64_t j = idx % padded_cols;
    const int64_t r = (idx / padded_cols) % padded_rows;
    const int64_t b = idx / (padded_cols * padded_rows);
    const int64_t scale_offset = blocked_scale_offset(r, j, b, p.rows, sf_cols);
    if (r >= p.rows || j >= sf_cols) {
      p.scales[scale_offset] = 0;
      continue;
    }
    uint8_t codes[kNvfp4BlockSize];
    uint8_t scale;
    quantize_nvfp4_block(p.x + (b * p.rows + r) * p.ld + j * kNvfp4BlockSize, global_scale, &scale, codes);
    p.scales[scale_offset] = scale;
    uint8_t* out = p.packed + (b * p.rows + r) * (p.k / 2) + j * (kNvfp4BlockSize / 2);
    for (int i = 0; i < kNvfp4BlockSize; i += 2)
      out[i / 2] = static_cast<uint8_t>(codes[i] | (codes[i + 1] << 4));
  }
}

inline constexpr const char* kQuantizeEntryPoint = "bwgemm::quantize_nvfp4";

inline Status require_compute_capability_80() {
  host::ComputeCapability cc;
  if (Status s = host::current_compute_capability(&cc); !s.ok())
    return Status::device_mismatch(std::string(kQuantizeEntryPoint) +
                                   " needs a GPU of compute capability 8.0 or newer; " + s.message());
  if (cc.major * 10 + cc.minor < kQuantizeMinComputeCapability)
    return Status::device_mismatch(
        std::string(kQuantizeEntryPoint) + " needs a GPU of compute capability 8.0 or newer (device " +
        std::to_string(cc.device) + " is " + std::to_string(cc.major) + "." + std::to_string(cc.minor) + ")");
  return Status::success();
}

}  // namespace detail

// x: `batch` row-major rows x k matrices (row stride ld elements, batch stride rows * ld) in device
// memory; packed: batch * rows * k / 2 bytes; scales: blocked_scale_bytes(rows, k / 16, batch) bytes.
// An element decodes as e2m1(code) * e4m3(scale) * global_scale.
//
// global_scale_ptr: the global scale's device part (docs/api.md, "Device-pointer scales"). Where not null
// the kernel reads one float from it at run time (a captured CUDA graph sees the value on replay) and the
// global scale is global_scale · *global_scale_ptr; the value there must be positive and finite (the host
// cannot check it). 4-byte aligned device memory, outside packed and scales; null: global_scale alone, bit
// for bit the overload below.
template <class T>
Status quantize_nvfp4(const T* x, int64_t rows, int64_t k, int64_t batch, int64_t ld, float global_scale,
                      const float* global_scale_ptr, uint8_t* packed, uint8_t* scales,
                      cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                "quantize_nvfp4 takes float, __half or __nv_bfloat16 input");
  if (Status s = validate_nvfp4_quantize(x, rows, k, batch, ld, global_scale, packed, scales); !s.ok())
    return s;
  if (Status s = detail::check_device_scale(global_scale_ptr, "global_scale_ptr"); !s.ok()) return s;
  if (global_scale_ptr != nullptr) {
    // The spans validate_nvfp4_quantize proved free of overflow.
    const int64_t packed_bytes = batch * rows * (k / 2);
    const int64_t scale_bytes = blocked_scale_bytes(rows, k / kNvfp4BlockSize, batch);
    const detail::OperandSpan outputs[] = {{packed, packed_bytes, "packed"}, {scales, scale_bytes, "scales"}};
    for (const detail::OperandSpan& out : outputs)
      if (Status s = detail::check_scale_not_in_output(global_scale_ptr, "global_scale_ptr", out); !s.ok())
        return s;
  }
  // The device first: without one, every pointer would look like host memory.
  if (Status s = detail::require_compute_capability_80(); !s.ok()) return s;
  host::OperandPointers operands{{{x, "x"}, {packed, "packed"}, {scales, "scales"}}, 3};
  operands.add_if_given(global_scale_ptr, "global_scale_ptr");
  if (Status s = host::require_device_pointers(operands, detail::kQuantizeEntryPoint); !s.ok()) return s;

  const int64_t total =
      batch * round_up(rows, kScaleAtomRows) * round_up(k / kNvfp4BlockSize, kScaleAtomCols);
  constexpr int64_t kMaxBlocks = 1 << 20;  // the kernel strides over the rest
  const int64_t blocks = std::min(ceil_div(total, detail::kQuantizeThreadsPerBlock), kMaxBlocks);
  const detail::QuantizeParams<T> params{x,      rows,  k, batch, ld, global_scale, global_scale_ptr,
                                         packed, scales};
  Status s = host::launch_cluster_kernel(&detail::quantize_nvfp4_kernel<T>, static_cast<uint32_t>(blocks),
                                         detail::kQuantizeThreadsPerBlock, 1, 0, stream, params);
  if (!s.ok()) return Status(s.code(), std::string(detail::kQuantizeEntryPoint) + ": " + s.message());
  return s;
}

// The global scale given on the host only.
template <class T>
Status quantize_nvfp4(const T* x, int64_t rows, int64_t k, int64_t batch, int64_t ld, float global_scale,
                      uint8_t* packed, uint8_t* scales, cudaStream_t stream = nullptr) {
  return quantize_nvfp4(x, rows, k, batch, ld, global_scale, static_cast<const float*>(nullptr), packed,
                        scales, stream);
}

}  // namespace bwgemm
