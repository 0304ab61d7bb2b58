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

#include "bwgemm/arguments/common.hpp"        // check_device_scale
#include "bwgemm/arguments/grouped_gemm.hpp"  // the grouped operations' shared checks
#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/ptx/global.cuh"
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

// ---- the grouped quantizer
// -----------------------------------------------------------------------------------
//
// bwgemm::quantize_nvfp4_grouped: the tokens of a mixture-of-experts layer (GroupedTokens: contiguous rows
// with device offsets, or masked slabs with device counts) quantized to NVFP4 with each expert's scales where
// the grouped operations read them (docs/moe.md, "NVFP4 scales"): contiguous, expert e's scale rows start at
// grouped::ExpertRows::scale_row (the sum of round_up(rows, 128) before it) in a buffer of
// grouped_scale_rows(total_tokens, E) rows; masked, the dense layout with batch E. For each expert with rows:
// its packed rows and its scale atoms whole (the padding rows and columns of its atoms zero); rows no expert
// owns are not written. The offsets and counts are read on the device with the grouped operations' clamping
// rules, and their bad values set bits of the optional status word (grouped::kStatus*, ORed in). Expert e's
// global scale is global_scale · global_scale_ptr[e] (E floats in device memory, read when the kernel runs;
// null: global_scale alone). x: contiguous [total_tokens, K] with row stride ld; masked [E, max_tokens, K],
// row stride ld, expert stride max_tokens · ld. packed: the same rows, K/2 bytes each, rows packed.

namespace detail {

template <class T>
struct GroupedQuantizeParams {
  const T* x;
  GroupedTokens tokens;
  int64_t experts, k, ld;
  int64_t
      scale_rows;  // the scale buffer's rows: grouped_scale_rows(total, E), or E · round_up(max_tokens, 128)
  float global_scale;
  const float* global_scale_ptr;  // E floats in device memory, or null
  uint8_t* packed;
  uint8_t* scales;
  uint32_t* status;  // or null
};

// Each thread takes the scale buffer's entries idx = thread, thread + threads, ... (row-major over scale rows
// and padded scale columns) and walks the experts forward as its scale row grows (each expert's device value
// read once per thread): the entry belongs to the expert whose scale rows [scale_row, scale_row +
// round_up(rows, 128)) hold it, else to none (not written).
template <class T>
__global__ void __launch_bounds__(kQuantizeThreadsPerBlock)
    quantize_nvfp4_grouped_kernel(const GroupedQuantizeParams<T> p) {
  const int64_t sf_cols = p.k / kNvfp4BlockSize;
  const int64_t padded_cols = round_up(sf_cols, kScaleAtomCols);
  const int64_t total = p.scale_rows * padded_cols;
  const int64_t threads = static_cast<int64_t>(ptx::grid_dim().x) * ptx::block_dim().x;
  const int64_t first = static_cast<int64_t>(ptx::block_idx().x) * ptx::block_dim().x + ptx::thread_idx().x;
  const bool masked = p.tokens.layout == GroupedLayout::kMasked;
  grouped::ContiguousExpertScan scan(p.tokens.total_tokens);
  grouped::ExpertRows rows;
  int64_t expert = -1, slot_begin = 0, slot_end = 0;  // the expert's scale rows [slot_begin, slot_end)
  float global_scale = p.global_scale;
  for (int64_t idx = first; idx < total; idx += threads) {
    const int64_t sr = idx / padded_cols, j = idx % padded_cols;
    while (sr >= slot_end && expert + 1 < p.experts) {
      ++expert;
      rows = masked ? grouped::masked_expert_rows(expert, p.tokens.counts[expert], p.tokens.max_tokens)
                    : scan.next(p.tokens.offsets[expert]);
      slot_begin = rows.scale_row;
      slot_end = slot_begin + round_up(rows.rows(), grouped::kScaleRowAlign);
      global_scale =
          epi::device_scale(p.global_scale, p.global_scale_ptr ? p.global_scale_ptr + expert : nullptr);
    }
    if (sr >= slot_end) break;      // past every expert's scale rows: so are the thread's later entries
    if (sr < slot_begin) continue;  // between two masked experts' slots: no expert's
    const int64_t r = sr - slot_begin;
    uint8_t* const scale = p.scales + grouped::scale_byte_offset(slot_begin, sf_cols) +
                           blocked_scale_offset(r, j, 0, rows.rows(), sf_cols);
    if (r >= rows.rows() || j >= sf_cols) {
      *scale = 0;
      continue;
    }
    const int64_t row = masked ? expert * p.tokens.max_tokens + r : rows.begin + r;
    uint8_t codes[kNvfp4BlockSize];
    quantize_nvfp4_block(p.x + row * p.ld + j * kNvfp4BlockSize, global_scale, scale, codes);
    uint8_t* out = p.packed + row * (p.k / 2) + j * (kNvfp4BlockSize / 2);
    for (int i = 0; i < kNvfp4BlockSize; i += 2)
      out[i / 2] = static_cast<uint8_t>(codes[i] | (codes[i + 1] << 4));
  }
  if (p.status != nullptr && first == 0) {  // one thread reports every expert's bad value
    grouped::ContiguousExpertScan all(p.tokens.total_tokens);
    uint32_t bits = 0;
    for (int64_t e = 0; e < p.experts; ++e)
      bits |= (masked ? grouped::masked_expert_rows(e, p.tokens.counts[e], p.tokens.max_tokens)
                      : all.next(p.tokens.offsets[e]))
                  .status;
    if (bits != 0) ptx::red_global_or(p.status, bits);
  }
}

constexpr const char* kQuantizeGroupedEntryPoint = "bwgemm::quantize_nvfp4_grouped";

// The tokens and E, as validate_grouped_tokens takes them.
struct GroupedQuantizeTokens {
  GroupedTokens tokens;
  int64_t experts;
  int64_t expected_tokens_per_expert = 0;
};

}  // namespace detail

// The checks of quantize_nvfp4_grouped (its comment above): K a positive multiple of 16 and ld >= K; the
// global scale positive and finite; E, the tokens and their device array as every grouped operation takes
// them; x, packed and scales given, inside the address space, strides below 2^40 bytes; the outputs (packed,
// scales, status) apart from each other and from every input.
template <class T>
Status validate_nvfp4_quantize_grouped(const T* x, const GroupedTokens& tokens, int64_t experts, int64_t k,
                                       int64_t ld, float global_scale, const float* global_scale_ptr,
                                       const uint8_t* packed, const uint8_t* scales, const uint32_t* status) {
  if (Status s = validate_nvfp4_shape(1, k, 1, ld); !s.ok()) return s;
  if (Status s = detail::check_quantize_operands(x, ld, global_scale, packed, scales); !s.ok()) return s;
  detail::OperandSpan metadata, scales_ptr, status_span, span_x, span_packed, span_scales;
  if (Status s = detail::validate_grouped_tokens(detail::GroupedQuantizeTokens{tokens, experts}, &metadata);
      !s.ok())
    return s;
  if (Status s = detail::grouped_array(global_scale_ptr, "global_scale_ptr", experts, false, &scales_ptr);
      !s.ok())
    return s;
  if (Status s = detail::grouped_status_word(status, &status_span); !s.ok()) return s;
  const int64_t elem_bytes = static_cast<int64_t>(sizeof(T));
  const bool masked = tokens.layout == GroupedLayout::kMasked;
  // Rows of x and packed per expert slab (masked) or in all (contiguous); the slabs' count.
  const int64_t rows = masked ? tokens.max_tokens : tokens.total_tokens, slabs = masked ? experts : 1;
  const int64_t sf_cols = k / kNvfp4BlockSize;
  const int64_t scale_rows = masked ? round_up(tokens.max_tokens, kScaleAtomRows)
                                    : grouped::grouped_scale_rows(tokens.total_tokens, experts);
  int64_t slab = 0, packed_slab = 0, scale_bytes = 0;
  if (!checked_mul(rows, ld, &slab) || !checked_mul(rows, k / 2, &packed_slab) ||
      !checked_mul(ceil_div(scale_rows, kScaleAtomRows), ceil_div(sf_cols, kScaleAtomCols), &scale_bytes) ||
      !checked_mul(scale_bytes, kScaleAtomBytes * slabs, &scale_bytes))
    return Status::invalid_argument("x, packed or scales overflows int64: the tokens and K are too large");
  if (Status s = detail::check_stride_limit("an expert's slab of x (max_tokens · ld)", slab, elem_bytes);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("x", x, rows, k, ld, slabs, slab, elem_bytes, &span_x); !s.ok())
    return s;
  if (Status s = detail::strided_span("packed", packed, rows * slabs, k / 2, k / 2, 1, 0, 1, &span_packed);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("scales", scales, 1, scale_bytes, scale_bytes, 1, 0, 1, &span_scales);
      !s.ok())
    return s;
  if (Status s =
          detail::check_grouped_apart(span_packed, {span_x, span_scales, metadata, scales_ptr, status_span});
      !s.ok())
    return s;
  if (Status s = detail::check_grouped_apart(span_scales, {span_x, metadata, scales_ptr, status_span});
      !s.ok())
    return s;
  return detail::check_grouped_apart(status_span, {span_x, metadata, scales_ptr});
}

template <class T>
Status quantize_nvfp4_grouped(const T* x, const GroupedTokens& tokens, int64_t experts, int64_t k, int64_t ld,
                              float global_scale, const float* global_scale_ptr, uint8_t* packed,
                              uint8_t* scales, uint32_t* status, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                "quantize_nvfp4_grouped takes float, __half or __nv_bfloat16 input");
  const auto named = [](Status s) {
    return s.ok() ? s
                  : Status(s.code(), std::string(detail::kQuantizeGroupedEntryPoint) + ": " + s.message());
  };
  if (Status s = validate_nvfp4_quantize_grouped(x, tokens, experts, k, ld, global_scale, global_scale_ptr,
                                                 packed, scales, status);
      !s.ok())
    return named(s);
  if (Status s = detail::require_compute_capability_80(); !s.ok()) return s;
  const bool masked = tokens.layout == GroupedLayout::kMasked;
  host::OperandPointers operands{{{x, "x"}, {packed, "packed"}, {scales, "scales"}}, 3};
  operands.add_if_given(masked ? static_cast<const void*>(tokens.counts) : tokens.offsets,
                        masked ? "counts" : "offsets");
  operands.add_if_given(global_scale_ptr, "global_scale_ptr");
  operands.add_if_given(status, "status");
  if (Status s = host::require_device_pointers(operands, detail::kQuantizeGroupedEntryPoint); !s.ok())
    return s;

  const int64_t scale_rows = masked ? experts * round_up(tokens.max_tokens, kScaleAtomRows)
                                    : grouped::grouped_scale_rows(tokens.total_tokens, experts);
  const int64_t total = scale_rows * round_up(k / kNvfp4BlockSize, kScaleAtomCols);
  constexpr int64_t kMaxBlocks = 1 << 20;  // the kernel strides over the rest
  const int64_t blocks = std::min(ceil_div(total, detail::kQuantizeThreadsPerBlock), kMaxBlocks);
  const detail::GroupedQuantizeParams<T> params{
      x, tokens, experts, k, ld, scale_rows, global_scale, global_scale_ptr, packed, scales, status};
  return named(host::launch_cluster_kernel(&detail::quantize_nvfp4_grouped_kernel<T>,
                                           static_cast<uint32_t>(blocks), detail::kQuantizeThreadsPerBlock, 1,
                                           0, stream, params));
}

}  // namespace bwgemm
