// The arguments of an NVFP4 dual GEMM call and their validation, shared by every backend that runs it
// (sm_100a: sm100/nvfp4_dual_gemm.cuh; the dispatching bwgemm::dual_gemm_nvfp4: dual_gemm.cuh). Host code
// only.
//
//   C[m, n, l] = epilogue(alpha1 · sum_k A[m,k,l] B1[n,k,l], alpha2 · sum_k A[m,k,l] B2[n,k,l])
//                                                                            (default: silu(gate) · up)
//
// Operands are NVFP4 (bwgemm::Nvfp4Tensor, arguments/nvfp4_operands.hpp): packed e2m1 K-major data (two per
// byte, element 2i in the low nibble; row r of an M x K matrix is K/2 contiguous bytes; batch outermost) plus
// e4m3 scales, one per 16 K elements, in the 128x4 blocked layout (docs/formats.md; bwgemm::quantize_nvfp4
// produces both). C is fp16 or bf16, row-major with row stride ldc, batch stride m * ldc. M >= 1, N a
// multiple of 16, K a multiple of 64.
// Or, with Out = Nvfp4Output (epilogue/nvfp4_output.cuh), C is NVFP4 itself: Nvfp4DualGemmArguments
// <Nvfp4Output> below, the epilogue's fp32 values quantized as bwgemm::quantize_nvfp4 quantizes them.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/nvfp4_operands.hpp"  // Nvfp4Tensor, nvfp4_tensor, the spans and the shape rule
#include "bwgemm/arguments/nvfp4_output.hpp"    // Nvfp4OutputTensor, validate_nvfp4_output
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/epilogue/nvfp4_output.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/host/launch.hpp"  // host::OperandPointers

namespace bwgemm {

template <class Out = __half, class Epilogue = epi::SiluMul>
struct Nvfp4DualGemmArguments {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  Nvfp4Tensor a;   // M x K
  Nvfp4Tensor b1;  // N x K: the gate projection
  Nvfp4Tensor b2;  // N x K: the up projection
  Out* c = nullptr;
  int64_t ldc = 0;                     // elements between rows of C; 0 means n
  float alpha1 = 1.0f, alpha2 = 1.0f;  // per-tensor scales (NVFP4 global scales of A times B1, A times B2)
  // Device-pointer parts of the scales (docs/api.md, "Device-pointer scales"): where not null the kernel
  // reads one float from it at run time (a captured CUDA graph sees the value on replay) and the scale is
  // alpha1 · *alpha1_ptr (alpha2 · *alpha2_ptr). 4-byte aligned device memory; null: alpha1 (alpha2) alone.
  const float* alpha1_ptr = nullptr;
  const float* alpha2_ptr = nullptr;
  Epilogue epilogue{};     // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
  LaunchOptions launch{};  // per-call launch options: programmatic dependent launch (off by default)
};

// NVFP4 C (Out = Nvfp4Output): the epilogue's values out = epilogue(alpha1 · gate, alpha2 · up) in fp32,
// quantized per 16 columns of a row exactly as bwgemm::quantize_nvfp4(out, M, N, batch, N, c_global_scale,
// c.data, c.scales) would (formats/nvfp4.cuh), padding scales zero. c_global_scale is C's per-tensor global
// scale, given (e.g. calibrated for the activations): an element decodes as e2m1 · e4m3 · c_global_scale.
template <class Epilogue>
struct Nvfp4DualGemmArguments<Nvfp4Output, Epilogue> {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  Nvfp4Tensor a;                // M x K
  Nvfp4Tensor b1;               // N x K: the gate projection
  Nvfp4Tensor b2;               // N x K: the up projection
  Nvfp4OutputTensor c;          // M x N: packed data M x N/2 bytes per batch, blocked scales
  float c_global_scale = 1.0f;  // finite and > 0
  // C's global scale's device part: where not null, the scale is c_global_scale · *c_global_scale_ptr, read
  // at run time (the value there must be finite and > 0 too: the host cannot check it). 4-byte aligned.
  const float* c_global_scale_ptr = nullptr;
  float alpha1 = 1.0f, alpha2 = 1.0f;  // per-tensor scales (NVFP4 global scales of A times B1, A times B2)
  const float* alpha1_ptr = nullptr;   // device parts of alpha1, alpha2, as for the fp16 / bf16 output
  const float* alpha2_ptr = nullptr;
  Epilogue epilogue{};     // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
  LaunchOptions launch{};  // per-call launch options: programmatic dependent launch (off by default)
};

namespace detail {

// The checks of the inputs every NVFP4 dual GEMM shares (shapes, the six input pointers, their spans), with
// the spans for the output's aliasing check.
struct Nvfp4DualInputSpans {
  OperandSpan a_data, a_scales, b1_data, b1_scales, b2_data, b2_scales;
};

template <class Args>
Status validate_nvfp4_dual_inputs(const Args& a, Nvfp4DualInputSpans* spans) {
  if (Status s = validate_nvfp4_gemm_shape(a.m, a.n, a.k, a.batch); !s.ok()) return s;
  const struct {
    const void* p;
    const char* name;
  } ptrs[] = {{a.a.data, "A data"},       {a.a.scales, "A scales"}, {a.b1.data, "B1 data"},
              {a.b1.scales, "B1 scales"}, {a.b2.data, "B2 data"},   {a.b2.scales, "B2 scales"}};
  for (const auto& q : ptrs) {
    if (Status s = detail::check_operand_pointer(q.p, q.name); !s.ok()) return s;
  }
  Nvfp4DualInputSpans& o = *spans;
  if (Status s =
          detail::nvfp4_operand_spans(a.a, a.m, a.k, a.batch, "A data", "A scales", &o.a_data, &o.a_scales);
      !s.ok())
    return s;
  if (Status s = detail::nvfp4_operand_spans(a.b1, a.n, a.k, a.batch, "B1 data", "B1 scales", &o.b1_data,
                                             &o.b1_scales);
      !s.ok())
    return s;
  if (Status s = detail::nvfp4_operand_spans(a.b2, a.n, a.k, a.batch, "B2 data", "B2 scales", &o.b2_data,
                                             &o.b2_scales);
      !s.ok())
    return s;
  if (!std::isfinite(a.alpha1) || !std::isfinite(a.alpha2))
    return Status::invalid_argument("alpha1 and alpha2 must be finite");
  return Status::success();
}

}  // namespace detail

// NVFP4 C: the inputs' checks, then C's (detail::validate_nvfp4_output, arguments/nvfp4_output.hpp): both
// pointers (non-null, 16-byte aligned), the packed data's span (M x N/2 bytes per batch) and the scales'
// (blocked_scale_bytes(M, N/16) per batch, the padding to 128 rows and 4 scale columns included) inside the
// address space and aliasing neither each other nor any input, c_global_scale finite and > 0, and the device
// scales c_global_scale_ptr, alpha1_ptr, alpha2_ptr null or 4-byte aligned and inside neither buffer of C.
template <class Epilogue>
Status validate(const Nvfp4DualGemmArguments<Nvfp4Output, Epilogue>& a) {
  detail::Nvfp4DualInputSpans in;
  if (Status s = detail::validate_nvfp4_dual_inputs(a, &in); !s.ok()) return s;
  const detail::NamedDeviceScale alphas[] = {{a.alpha1_ptr, "alpha1_ptr"}, {a.alpha2_ptr, "alpha2_ptr"}};
  return detail::validate_nvfp4_output(
      a.c, a.m, a.n, a.batch, a.c_global_scale, a.c_global_scale_ptr,
      {"C data", "C scales", "c_global_scale", "c_global_scale_ptr"},
      {in.a_data, in.a_scales, in.b1_data, in.b1_scales, in.b2_data, in.b2_scales}, alphas);
}

template <class Epilogue>
host::OperandPointers device_operands(const Nvfp4DualGemmArguments<Nvfp4Output, Epilogue>& a) {
  host::OperandPointers ops{{{a.a.data, "A data"},
                             {a.a.scales, "A scales"},
                             {a.b1.data, "B1 data"},
                             {a.b1.scales, "B1 scales"},
                             {a.b2.data, "B2 data"},
                             {a.b2.scales, "B2 scales"},
                             {a.c.data, "C data"},
                             {a.c.scales, "C scales"}},
                            8};
  ops.add_if_given(a.alpha1_ptr, "alpha1_ptr");
  ops.add_if_given(a.alpha2_ptr, "alpha2_ptr");
  ops.add_if_given(a.c_global_scale_ptr, "c_global_scale_ptr");
  return ops;
}

// The NVFP4 dual GEMM's argument checks, the same on every backend (no device access): shapes, strides,
// pointers, alignment, the scales. A Config's own limits (its tile count) come after, in its can_implement.
template <class Out, class Epilogue>
Status validate(const Nvfp4DualGemmArguments<Out, Epilogue>& a) {
  using detail::str;
  detail::Nvfp4DualInputSpans in;
  if (Status s = detail::validate_nvfp4_dual_inputs(a, &in); !s.ok()) return s;
  const int64_t ldc = a.ldc == 0 ? a.n : a.ldc;
  if (ldc < a.n || ldc % 8 != 0)
    return Status::invalid_argument("ldc must be >= N and a multiple of 8 (16-byte rows) (got " + str(ldc) +
                                    ")");
  if (Status s = detail::check_operand_pointer(a.c, "C"); !s.ok()) return s;
  if (Status s = detail::check_stride_limit("ldc", ldc, static_cast<int64_t>(sizeof(Out))); !s.ok()) return s;
  // C's span inside the address space, aliasing no input.
  detail::OperandSpan span_c;
  int64_t stride_c = 0;
  if (Status s = detail::packed_batch_stride("the batch stride of C (M · ldc)", a.m, ldc,
                                             static_cast<int64_t>(sizeof(Out)), &stride_c);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("C", a.c, a.m, a.n, ldc, a.batch, stride_c,
                                      static_cast<int64_t>(sizeof(Out)), &span_c);
      !s.ok())
    return s;
  if (Status s = detail::check_no_overlap(
          span_c, {in.a_data, in.a_scales, in.b1_data, in.b1_scales, in.b2_data, in.b2_scales});
      !s.ok())
    return s;
  return detail::check_dual_device_scales(a, span_c);
}

// The device memory an NVFP4 dual GEMM call reads or writes.
template <class Out, class Epilogue>
host::OperandPointers device_operands(const Nvfp4DualGemmArguments<Out, Epilogue>& a) {
  host::OperandPointers ops{{{a.a.data, "A data"},
                             {a.a.scales, "A scales"},
                             {a.b1.data, "B1 data"},
                             {a.b1.scales, "B1 scales"},
                             {a.b2.data, "B2 data"},
                             {a.b2.scales, "B2 scales"},
                             {a.c, "C"}},
                            7};
  ops.add_if_given(a.alpha1_ptr, "alpha1_ptr");
  ops.add_if_given(a.alpha2_ptr, "alpha2_ptr");
  return ops;
}

}  // namespace bwgemm
