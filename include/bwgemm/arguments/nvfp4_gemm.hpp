// The arguments of an NVFP4 GEMM call and their validation, shared by every backend that runs it (sm_100a:
// sm100/nvfp4_gemm.cuh; the dispatching bwgemm::gemm_nvfp4: gemm.cuh). Host code only.
//
//   D[m, n, l] = epilogue(sum_k A[m,k,l] B[n,k,l] [, C[m,n,l]])      (default: alpha · A·Bᵀ + beta · C)
//
// A (M x K) and B (N x K) are NVFP4, exactly the NVFP4 dual GEMM's operands (arguments/nvfp4_operands.hpp,
// bwgemm::Nvfp4Tensor, bwgemm::nvfp4_tensor): packed e2m1 K-major data plus e4m3 scales, one per 16 K
// elements, in the 128x4 blocked layout (docs/formats.md). alpha is the per-tensor scale (the product of
// A's and B's NVFP4 global scales). C and D are fp16, bf16 or fp32, row-major with row strides ldc / ldd and
// batch strides m · ldc / m · ldd; C is read only when the epilogue reads it (beta != 0, or a device beta_ptr
// given) and may be D itself (an in-place update). M >= 1, N a multiple of 16, K a multiple of 64, as for the
// dual GEMM. alpha and beta may have device-pointer parts, read at run time (epi::LinearCombination's
// alpha_ptr and beta_ptr; docs/api.md, "Device-pointer scales").
// Or, with Out = Nvfp4Output (epilogue/nvfp4_output.cuh), D is NVFP4 itself: Nvfp4GemmArguments<Nvfp4Output>
// below, the epilogue's fp32 values quantized as bwgemm::quantize_nvfp4 quantizes them (no C: beta = 0), with
// D's global scale d_global_scale and its device part d_global_scale_ptr.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

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

template <class Out = __half, class Epilogue = epi::LinearCombination>
struct Nvfp4GemmArguments {
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float>,
                "C and D are __half, __nv_bfloat16 or float");
  int64_t m = 0, n = 0, k = 0, batch = 1;
  Nvfp4Tensor a;           // M x K: the activations
  Nvfp4Tensor b;           // N x K: the weights
  const Out* c = nullptr;  // M x N row-major; read only when the epilogue reads it (beta != 0 or beta_ptr)
  int64_t ldc = 0;         // elements between rows of C; 0 means n
  Out* d = nullptr;        // M x N row-major
  int64_t ldd = 0;         // elements between rows of D; 0 means n
  Epilogue epilogue{};  // D = epilogue(A·Bᵀ) or epilogue(A·Bᵀ, C); default {alpha = 1, beta = 0}, and
                        // LinearCombination's alpha_ptr, beta_ptr: device scales (null by default)
  LaunchOptions launch{};  // per-call launch options: programmatic dependent launch (off by default)
};

// NVFP4 D (Out = Nvfp4Output): the epilogue's values out = epilogue(A·Bᵀ) in fp32 (default alpha · A·Bᵀ),
// quantized per 16 columns of a row exactly as bwgemm::quantize_nvfp4(out, M, N, batch, N, d_global_scale,
// d.data, d.scales) would (formats/nvfp4.cuh), padding scales zero. d_global_scale is D's per-tensor global
// scale, given (e.g. calibrated for the next layer's activations): an element decodes as
// e2m1 · e4m3 · d_global_scale (the NVFP4 dual GEMM's Nvfp4Output convention). There is no C: the epilogue
// must not read one (LinearCombination: beta = 0 and no beta_ptr; a functor of (acc, c) does not compile).
// Device-pointer scales (docs/api.md, "Device-pointer scales"): LinearCombination's alpha_ptr, and
// d_global_scale_ptr, D's global scale's device part: where not null the kernel reads one float from each at
// run time, once per CTA, and the scales are alpha · *alpha_ptr and d_global_scale · *d_global_scale_ptr.
template <class Epilogue>
struct Nvfp4GemmArguments<Nvfp4Output, Epilogue> {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  Nvfp4Tensor a;                // M x K: the activations
  Nvfp4Tensor b;                // N x K: the weights
  Nvfp4OutputTensor d;          // M x N: packed data M x N/2 bytes per batch, blocked scales
  float d_global_scale = 1.0f;  // finite and > 0
  // D's global scale's device part: where not null, the scale is d_global_scale · *d_global_scale_ptr, read
  // at run time (the value there must be finite and > 0 too: the host cannot check it). 4-byte aligned.
  const float* d_global_scale_ptr = nullptr;
  Epilogue epilogue{};     // out = epilogue(A·Bᵀ); default {alpha = 1, beta = 0}; beta must stay 0 (no
                           // beta_ptr); LinearCombination's alpha_ptr: alpha's device part (null by default)
  LaunchOptions launch{};  // per-call launch options: programmatic dependent launch (off by default)
};

namespace detail {

// The checks of the inputs every NVFP4 GEMM shares (the shapes, A's and B's pointers and spans), with the
// spans for the output's aliasing check.
struct Nvfp4GemmInputSpans {
  OperandSpan a_data, a_scales, b_data, b_scales;
};

template <class Args>
Status validate_nvfp4_gemm_inputs(const Args& a, Nvfp4GemmInputSpans* spans) {
  if (Status s = validate_nvfp4_gemm_shape(a.m, a.n, a.k, a.batch); !s.ok()) return s;
  const struct {
    const void* p;
    const char* name;
  } ptrs[] = {{a.a.data, "A data"}, {a.a.scales, "A scales"}, {a.b.data, "B data"}, {a.b.scales, "B scales"}};
  for (const auto& q : ptrs) {
    if (Status s = check_operand_pointer(q.p, q.name); !s.ok()) return s;
  }
  if (Status s =
          nvfp4_operand_spans(a.a, a.m, a.k, a.batch, "A data", "A scales", &spans->a_data, &spans->a_scales);
      !s.ok())
    return s;
  return nvfp4_operand_spans(a.b, a.n, a.k, a.batch, "B data", "B scales", &spans->b_data, &spans->b_scales);
}

}  // namespace detail

// The NVFP4 GEMM's argument checks, the same on every backend (no device access): shapes, strides, pointers,
// alignment, the scales, the functor. A Config's own limits (its tile count) come after, in its
// can_implement.
template <class Out, class Epilogue>
Status validate(const Nvfp4GemmArguments<Out, Epilogue>& a) {
  using detail::str;
  detail::Nvfp4GemmInputSpans in;
  if (Status s = detail::validate_nvfp4_gemm_inputs(a, &in); !s.ok()) return s;
  // Rows of D and C start 16-byte aligned (the epilogue's vector stores and loads): multiples of 8 elements,
  // the dual GEMM's rule (for fp32, 8 is twice what alignment needs; kept so one rule holds for every type).
  const bool read_c = epi::reads_source(a.epilogue);
  const int64_t ldd = a.ldd == 0 ? a.n : a.ldd;
  const int64_t ldc = a.ldc == 0 ? a.n : a.ldc;
  if (ldd < a.n || ldd % 8 != 0)
    return Status::invalid_argument("ldd must be >= N and a multiple of 8 (16-byte rows) (got " + str(ldd) +
                                    ")");
  if (read_c && (ldc < a.n || ldc % 8 != 0))
    return Status::invalid_argument("ldc must be >= N and a multiple of 8 (16-byte rows) (got " + str(ldc) +
                                    ")");
  if (Status s = detail::check_operand_pointer(a.d, "D"); !s.ok()) return s;
  if (read_c)
    if (Status s = detail::check_operand_pointer(a.c, "C",
                                                 " but the epilogue reads it (beta != 0 or beta_ptr given)");
        !s.ok())
      return s;
  constexpr int64_t kOutBytes = sizeof(Out);
  if (Status s = detail::check_stride_limit("ldd", ldd, kOutBytes); !s.ok()) return s;
  if (read_c)
    if (Status s = detail::check_stride_limit("ldc", ldc, kOutBytes); !s.ok()) return s;
  detail::OperandSpan span_d, span_c;
  int64_t stride_d = 0, stride_c = 0;
  if (Status s =
          detail::packed_batch_stride("the batch stride of D (M · ldd)", a.m, ldd, kOutBytes, &stride_d);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("D", a.d, a.m, a.n, ldd, a.batch, stride_d, kOutBytes, &span_d);
      !s.ok())
    return s;
  if (Status s = detail::check_no_overlap(span_d, {in.a_data, in.a_scales, in.b_data, in.b_scales}); !s.ok())
    return s;
  if (read_c) {
    if (Status s =
            detail::packed_batch_stride("the batch stride of C (M · ldc)", a.m, ldc, kOutBytes, &stride_c);
        !s.ok())
      return s;
    if (Status s = detail::strided_span("C", a.c, a.m, a.n, ldc, a.batch, stride_c, kOutBytes, &span_c);
        !s.ok())
      return s;
    // D == C with the same strides (an in-place update) is the one overlap allowed, as for the GEMM.
    const bool in_place = static_cast<const void*>(a.c) == static_cast<const void*>(a.d) && ldc == ldd;
    if (!in_place)
      if (Status s = detail::check_no_overlap(span_d, {span_c}); !s.ok()) return s;
  }
  if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>) {
    if (!std::isfinite(a.epilogue.alpha) || !std::isfinite(a.epilogue.beta))
      return Status::invalid_argument("alpha and beta must be finite");
    if (Status st = detail::check_linear_combination_scales(a.epilogue, span_d); !st.ok()) return st;
  }
  return Status::success();
}

// NVFP4 D: the shapes, A's and B's pointers and spans (the checks above), the epilogue (no C; alpha
// finite), then D's (detail::validate_nvfp4_output, arguments/nvfp4_output.hpp): both pointers (non-null,
// 16-byte aligned), the packed data's span (M x N/2 bytes per batch) and the scales' (blocked_scale_bytes(M,
// N/16) per batch, the padding to 128 rows and 4 scale columns included) inside the address space and
// aliasing neither each other nor A or B, d_global_scale finite and > 0, and the device scales
// d_global_scale_ptr and alpha_ptr null or 4-byte aligned and inside neither buffer of D.
template <class Epilogue>
Status validate(const Nvfp4GemmArguments<Nvfp4Output, Epilogue>& a) {
  detail::Nvfp4GemmInputSpans in;
  if (Status s = detail::validate_nvfp4_gemm_inputs(a, &in); !s.ok()) return s;
  if (epi::reads_source(a.epilogue))
    return Status::invalid_argument(
        "beta must be 0 with an NVFP4 D (Out = Nvfp4Output), and beta_ptr null: the epilogue would read C, "
        "and the NVFP4-output GEMM takes no C");
  detail::NamedDeviceScale alpha[] = {{nullptr, "alpha_ptr"}};  // LinearCombination's (a user functor: none)
  if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>) {
    if (!std::isfinite(a.epilogue.alpha)) return Status::invalid_argument("alpha must be finite");
    alpha[0].p = a.epilogue.alpha_ptr;
  }
  return detail::validate_nvfp4_output(a.d, a.m, a.n, a.batch, a.d_global_scale, a.d_global_scale_ptr,
                                       {"D data", "D scales", "d_global_scale", "d_global_scale_ptr"},
                                       {in.a_data, in.a_scales, in.b_data, in.b_scales}, alpha);
}

template <class Epilogue>
host::OperandPointers device_operands(const Nvfp4GemmArguments<Nvfp4Output, Epilogue>& a) {
  host::OperandPointers ops{{{a.a.data, "A data"},
                             {a.a.scales, "A scales"},
                             {a.b.data, "B data"},
                             {a.b.scales, "B scales"},
                             {a.d.data, "D data"},
                             {a.d.scales, "D scales"}},
                            6};
  if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>)
    ops.add_if_given(a.epilogue.alpha_ptr, "alpha_ptr");
  ops.add_if_given(a.d_global_scale_ptr, "d_global_scale_ptr");
  return ops;
}

// The device memory an NVFP4 GEMM call reads or writes: A, B, D, and C when the epilogue reads it.
template <class Out, class Epilogue>
host::OperandPointers device_operands(const Nvfp4GemmArguments<Out, Epilogue>& a) {
  host::OperandPointers ops{{{a.a.data, "A data"},
                             {a.a.scales, "A scales"},
                             {a.b.data, "B data"},
                             {a.b.scales, "B scales"},
                             {a.d, "D"},
                             {a.c, "C"}},
                            5};
  if (epi::reads_source(a.epilogue)) ops.count = 6;
  if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>) {
    ops.add_if_given(a.epilogue.alpha_ptr, "alpha_ptr");
    ops.add_if_given(a.epilogue.beta_ptr, "beta_ptr");
  }
  return ops;
}

}  // namespace bwgemm
