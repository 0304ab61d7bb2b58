// An NVFP4 output of an operation (Out = bwgemm::Nvfp4Output, epilogue/nvfp4_output.cuh): the tensor that
// names its two buffers and the checks every operation with such an output shares (the sm_100a NVFP4 dual
// GEMM's C, arguments/nvfp4_dual_gemm.hpp; the sm_100a NVFP4 GEMM's D, arguments/nvfp4_gemm.hpp). Host code
// only.
#pragma once

#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/operand_span.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/nvfp4_output.cuh"
#include "bwgemm/formats/scale_layout.cuh"

namespace bwgemm {

// An NVFP4 output in device memory: what bwgemm::quantize_nvfp4 writes (packed, scales).
struct Nvfp4OutputTensor {
  void* data = nullptr;    // rows x N/2 bytes per batch (16-byte aligned)
  void* scales = nullptr;  // blocked_scale_bytes(rows, N/16, batch) bytes (16-byte aligned), padding included
};

// An Nvfp4OutputTensor from the toolkit's element types (as nvfp4_tensor for the inputs).
inline Nvfp4OutputTensor nvfp4_output_tensor(__nv_fp4x2_e2m1* data, __nv_fp8_e4m3* scales) {
  return Nvfp4OutputTensor{data, scales};
}
template <class D, class S>
Nvfp4OutputTensor nvfp4_output_tensor(D*, S*) = delete;  // not e2m1 pairs and e4m3 scales

namespace detail {

// The names an operation gives its NVFP4 output in messages: "C data", "C scales", "c_global_scale",
// "c_global_scale_ptr".
struct Nvfp4OutputNames {
  const char* data;
  const char* scales;
  const char* global_scale;
  const char* global_scale_ptr;
};

// A device-pointer scale of the call (docs/api.md, "Device-pointer scales"; null: none) with its name.
struct NamedDeviceScale {
  const float* p;
  const char* name;
};

// The checks of an NVFP4 output of M x N per batch (N a multiple of 16, checked with the shapes before):
// both pointers (non-null, 16-byte aligned), the packed data's span (M x N/2 bytes per batch) and the
// scales' (blocked_scale_bytes(M, N/16) per batch, the padding to 128 rows and 4 scale columns included),
// each batch below 2^40 bytes, inside the address space and aliasing neither each other nor any input, the
// global scale finite and > 0; then the device-pointer scales, the global scale's own (global_scale_ptr) and
// the call's others (`device_scales`, e.g. the alphas'): each null or 4-byte aligned (check_device_scale),
// and inside neither of the output's buffers (check_scale_not_in_output).
// (An array, not an initializer list, for the device scales: nvcc's host pass mistranslates a braced list of
// braced structs as a call argument inside a template.)
template <size_t NumDeviceScales>
Status validate_nvfp4_output(const Nvfp4OutputTensor& out, int64_t m, int64_t n, int64_t batch,
                             float global_scale, const float* global_scale_ptr, const Nvfp4OutputNames& names,
                             std::initializer_list<OperandSpan> inputs,
                             const NamedDeviceScale (&device_scales)[NumDeviceScales]) {
  if (Status s = check_operand_pointer(out.data, names.data); !s.ok()) return s;
  if (Status s = check_operand_pointer(out.scales, names.scales); !s.ok()) return s;
  // Each batch's bytes below TMA's 2^40 (the kernels store it through tensor maps), products checked.
  int64_t data_batch = 0, scale_batch = 0;
  const bool data_overflow = !checked_mul(m, n / 2, &data_batch);
  if (Status s =
          check_batch_bytes_limit(names.data, "one batch (M x N / 2 bytes)", data_batch, data_overflow);
      !s.ok())
    return s;
  const bool scales_overflow = !checked_mul(ceil_div(m, kScaleAtomRows),
                                            ceil_div(n / kNvfp4BlockSize, kScaleAtomCols), &scale_batch) ||
                               !checked_mul(scale_batch, kScaleAtomBytes, &scale_batch);
  if (Status s =
          check_batch_bytes_limit(names.scales, "one batch of blocked scales", scale_batch, scales_overflow);
      !s.ok())
    return s;
  OperandSpan data, scales;
  if (Status s = strided_span(names.data, out.data, 1, data_batch, data_batch, batch, data_batch, 1, &data);
      !s.ok())
    return s;
  if (Status s =
          strided_span(names.scales, out.scales, 1, scale_batch, scale_batch, batch, scale_batch, 1, &scales);
      !s.ok())
    return s;
  if (Status s = check_no_overlap(data, {scales}); !s.ok()) return s;
  if (Status s = check_no_overlap(data, inputs); !s.ok()) return s;
  if (Status s = check_no_overlap(scales, inputs); !s.ok()) return s;
  if (!std::isfinite(global_scale) || !(global_scale > 0.0f))
    return Status::invalid_argument(std::string(names.global_scale) + " must be finite and > 0 (got " +
                                    std::to_string(global_scale) + ")");
  if (Status s = check_device_scale(global_scale_ptr, names.global_scale_ptr); !s.ok()) return s;
  for (const NamedDeviceScale& d : device_scales) {
    if (Status s = check_device_scale(d.p, d.name); !s.ok()) return s;
  }
  for (const OperandSpan* output : {&data, &scales}) {
    if (Status s = check_scale_not_in_output(global_scale_ptr, names.global_scale_ptr, *output); !s.ok())
      return s;
    for (const NamedDeviceScale& d : device_scales) {
      if (Status s = check_scale_not_in_output(d.p, d.name, *output); !s.ok()) return s;
    }
  }
  return Status::success();
}

}  // namespace detail
}  // namespace bwgemm
