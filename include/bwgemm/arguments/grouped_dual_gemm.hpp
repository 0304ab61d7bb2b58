// The arguments of the grouped dual GEMM (a mixture-of-experts layer's gated FC1) and their validation, in
// its 16-bit and NVFP4 forms, NVFP4 output included. Host code only: no kernel runs these operations yet;
// the structs, bwgemm::validate and the host references (reference/grouped.hpp) are the contract the kernels
// implement. docs/moe.md describes the conventions.
//
//   C_e = epilogue(alpha1_e · A_e B1_eᵀ, alpha2_e · A_e B2_eᵀ)  for every expert e    (default: silu(gate) ·
//   up)
//
// The tokens, the layouts, the untrusted device offsets and counts, the status word, the per-expert alphas
// and the NVFP4 scale placement are the grouped GEMM's (arguments/grouped_gemm.hpp, base/grouped.hpp). The
// gate and up weights B1 and B2 are each stacked [E, N, K] and share one row stride and one expert stride:
// two tensors, or two views of one stacked [E, 2N, K] tensor W (B1 = W, B2 = W + N rows, the expert stride
// that of W: 2N · ldb elements; for NVFP4, B2's data at + N · K/2 bytes and, N a multiple of 128, its
// scales at + blocked_scale_bytes(N, K/16) bytes). Epilogue is any gated functor (epilogue/functors.cuh:
// SiluMul, SiluMulClamped, GeluTanhMul, GeluErfMul, ReluSquaredMul, Multiply, or a user's).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"    // the shared grouped checks
#include "bwgemm/arguments/nvfp4_operands.hpp"  // Nvfp4Tensor
#include "bwgemm/arguments/nvfp4_output.hpp"    // Nvfp4OutputTensor
#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/epilogue/nvfp4_output.cuh"  // Nvfp4Output
#include "bwgemm/host/launch.hpp"            // host::OperandPointers, LaunchOptions

namespace bwgemm {

// 16-bit operands: A, B1, B2 in __half or __nv_bfloat16, C in __half or __nv_bfloat16; fp32 accumulation.
template <class In, class Out = In, class Epilogue = epi::SiluMul>
struct GroupedDualGemmArguments {
  static_assert(std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>,
                "A, B1 and B2 are __half or __nv_bfloat16");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>,
                "C is __half or __nv_bfloat16");
  GroupedTokens tokens;  // contiguous_tokens(total_tokens, offsets) or masked_tokens(max_tokens, counts)
  int64_t experts = 0;   // E
  int64_t n = 0, k = 0;
  const In* a = nullptr;        // contiguous: [total_tokens, K]; masked: [E, max_tokens, K]; row stride lda
  int64_t lda = 0;              // 0 means K
  int64_t a_expert_stride = 0;  // masked: 0 means max_tokens · lda
  const In* b1 = nullptr;       // [E, N, K]: the gate projections
  const In* b2 = nullptr;       // [E, N, K]: the up projections
  int64_t ldb = 0;              // B1's and B2's row stride; 0 means K
  int64_t b_expert_stride = 0;  // B1's and B2's expert stride; 0 means N · ldb
  Out* c = nullptr;             // contiguous: [total_tokens, N]; masked: [E, max_tokens, N]; row stride ldc
  int64_t ldc = 0;              // 0 means N
  int64_t c_expert_stride = 0;  // masked: 0 means max_tokens · ldc
  // alpha1_e = alpha1 · alpha1_ptr[e], alpha2_e = alpha2 · alpha2_ptr[e]: the arrays E floats in device
  // memory (4-byte aligned), or null for the host scale alone.
  float alpha1 = 1.0f, alpha2 = 1.0f;
  const float* alpha1_ptr = nullptr;
  const float* alpha2_ptr = nullptr;
  Epilogue epilogue{};                     // C = epilogue(alpha1_e · A·B1ᵀ, alpha2_e · A·B2ᵀ)
  int64_t expected_tokens_per_expert = 0;  // a hint for the choice of kernel (0: none)
  uint32_t* status = nullptr;              // optional device status word (base/grouped.hpp)
  LaunchOptions launch{};
};

// NVFP4 operands (A: the tokens, in the layout's placement, as for Nvfp4GroupedGemmArguments; B1, B2: stacked
// weights with the two byte strides), C in __half or __nv_bfloat16.
template <class Out = __half, class Epilogue = epi::SiluMul>
struct Nvfp4GroupedDualGemmArguments {
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>,
                "C is __half or __nv_bfloat16 (or Nvfp4Output)");
  GroupedTokens tokens;
  int64_t experts = 0;
  int64_t n = 0, k = 0;
  Nvfp4Tensor a;                       // the tokens
  Nvfp4Tensor b1;                      // the gate projections, stacked [E, N, K]
  Nvfp4Tensor b2;                      // the up projections, stacked [E, N, K]
  int64_t b_data_expert_stride = 0;    // B1's and B2's, bytes; 0 means N · K / 2
  int64_t b_scales_expert_stride = 0;  // B1's and B2's, bytes; 0 means blocked_scale_bytes(N, K / 16)
  Out* c = nullptr;                    // as GroupedDualGemmArguments::c
  int64_t ldc = 0;
  int64_t c_expert_stride = 0;
  float alpha1 = 1.0f, alpha2 = 1.0f;  // NVFP4: A's global scale times the expert's B1 (B2) global scale
  const float* alpha1_ptr = nullptr;
  const float* alpha2_ptr = nullptr;
  Epilogue epilogue{};
  int64_t expected_tokens_per_expert = 0;
  uint32_t* status = nullptr;
  LaunchOptions launch{};
};

// NVFP4 C (Out = Nvfp4Output): the epilogue's fp32 values of each expert's rows quantized as
// bwgemm::quantize_nvfp4 quantizes them, with expert e's global scale c_global_scale · c_global_scale_ptr[e]
// (an element decodes as e2m1 · e4m3 · that scale), and placed as an NVFP4 A of the same layout with K = N:
// contiguous, data [total_tokens, N/2] bytes and scales a blocked buffer of grouped_scale_rows(total_tokens,
// E) rows and N/16 columns, expert e's at its ExpertRows::scale_row (so FC2 reads C as its A as it is);
// masked, data [E, max_tokens, N/2] bytes and scales blocked_scale_bytes(max_tokens, N/16, E). The kernels
// write each expert's scale atoms whole: the padding rows of an expert's last atom get zero scales; the
// scale rows no expert owns are not written.
template <class Epilogue>
struct Nvfp4GroupedDualGemmArguments<Nvfp4Output, Epilogue> {
  GroupedTokens tokens;
  int64_t experts = 0;
  int64_t n = 0, k = 0;
  Nvfp4Tensor a;
  Nvfp4Tensor b1;
  Nvfp4Tensor b2;
  int64_t b_data_expert_stride = 0;
  int64_t b_scales_expert_stride = 0;
  Nvfp4OutputTensor c;          // see above
  float c_global_scale = 1.0f;  // finite and > 0
  // E floats in device memory (4-byte aligned; each finite and > 0: the host cannot check them), or null for
  // c_global_scale alone (vLLM's per-expert a2_gscale).
  const float* c_global_scale_ptr = nullptr;
  float alpha1 = 1.0f, alpha2 = 1.0f;
  const float* alpha1_ptr = nullptr;
  const float* alpha2_ptr = nullptr;
  Epilogue epilogue{};
  int64_t expected_tokens_per_expert = 0;
  uint32_t* status = nullptr;
  LaunchOptions launch{};
};

namespace detail {

// The spans every grouped dual GEMM's output is checked against.
struct GroupedDualInputSpans {
  OperandSpan meta, alpha1, alpha2, status;
};

// The scales and the status word of a grouped dual GEMM.
template <class Args>
Status grouped_dual_scalars(const Args& a, GroupedDualInputSpans* in) {
  if (Status s = grouped_alpha(a.alpha1, "alpha1", a.alpha1_ptr, "alpha1_ptr", a.experts, &in->alpha1);
      !s.ok())
    return s;
  if (Status s = grouped_alpha(a.alpha2, "alpha2", a.alpha2_ptr, "alpha2_ptr", a.experts, &in->alpha2);
      !s.ok())
    return s;
  return grouped_status_word(a.status, &in->status);
}

// The NVFP4 inputs of a grouped dual GEMM: the shape rule (N a multiple of 16, K of 64), A in the layout's
// sizes, B1 and B2 with the shared strides.
struct GroupedNvfp4DualSpans {
  OperandSpan a_data, a_scales, b_data[2], b_scales[2];
};
template <class Args>
Status grouped_nvfp4_dual_inputs(const Args& a, GroupedDualInputSpans* in, GroupedNvfp4DualSpans* sp) {
  if (Status s = validate_grouped_tokens(a, &in->meta); !s.ok()) return s;
  if (Status s = validate_nvfp4_gemm_shape(1, a.n, a.k, 1); !s.ok()) return s;
  if (Status s = grouped_nvfp4_tokens(a.a.data, a.a.scales, a.tokens, a.experts, a.k, "A data", "A scales",
                                      &sp->a_data, &sp->a_scales);
      !s.ok())
    return s;
  const Nvfp4Tensor* const b[2] = {&a.b1, &a.b2};
  const char* const data_names[2] = {"B1 data", "B2 data"};
  const char* const scale_names[2] = {"B1 scales", "B2 scales"};
  if (Status s =
          grouped_weights_nvfp4(b, data_names, scale_names, a.experts, a.n, a.k, a.b_data_expert_stride,
                                a.b_scales_expert_stride, sp->b_data, sp->b_scales);
      !s.ok())
    return s;
  return grouped_dual_scalars(a, in);
}

}  // namespace detail

// The 16-bit grouped dual GEMM's checks: the grouped GEMM's (E and the tokens, N and K multiples of 8, the
// leading dimensions and expert strides, pointers, spans), for B1 and B2 with their shared ldb and expert
// stride, C apart from every input, the metadata, the alpha arrays and the status word.
template <class In, class Out, class Epilogue>
Status validate(const GroupedDualGemmArguments<In, Out, Epilogue>& a) {
  using namespace detail;
  GroupedDualInputSpans in;
  OperandSpan span_a, span_b[2], span_c;
  if (Status s = validate_grouped_tokens(a, &in.meta); !s.ok()) return s;
  if (Status s = grouped_16bit_shape(a.n, a.k); !s.ok()) return s;
  if (Status s = grouped_token_matrix(a.a, a.tokens, a.experts, a.k, a.lda, a.a_expert_stride, sizeof(In),
                                      {"A", "lda", "a_expert_stride"},
                                      ">= K and a multiple of 8 (16-byte rows)", &span_a);
      !s.ok())
    return s;
  const In* const b[2] = {a.b1, a.b2};
  const char* const b_names[2] = {"B1", "B2"};
  if (Status s = grouped_weights_16bit(b, b_names, a.experts, a.n, a.k, a.ldb, a.b_expert_stride,
                                       "b_expert_stride", span_b);
      !s.ok())
    return s;
  if (Status s = grouped_output_16bit(a.c, a.tokens, a.experts, a.n, a.ldc, a.c_expert_stride,
                                      {"C", "ldc", "c_expert_stride"}, &span_c);
      !s.ok())
    return s;
  if (Status s = grouped_dual_scalars(a, &in); !s.ok()) return s;
  if (Status s = check_grouped_apart(
          span_c, {span_a, span_b[0], span_b[1], in.meta, in.alpha1, in.alpha2, in.status});
      !s.ok())
    return s;
  return check_grouped_apart(in.status, {span_a, span_b[0], span_b[1], in.meta, in.alpha1, in.alpha2});
}

// The NVFP4 grouped dual GEMM with a 16-bit C: the NVFP4 inputs' checks, then C's as the 16-bit form's.
template <class Out, class Epilogue>
Status validate(const Nvfp4GroupedDualGemmArguments<Out, Epilogue>& a) {
  using namespace detail;
  GroupedDualInputSpans in;
  GroupedNvfp4DualSpans sp;
  OperandSpan span_c;
  if (Status s = grouped_nvfp4_dual_inputs(a, &in, &sp); !s.ok()) return s;
  if (Status s = grouped_output_16bit(a.c, a.tokens, a.experts, a.n, a.ldc, a.c_expert_stride,
                                      {"C", "ldc", "c_expert_stride"}, &span_c);
      !s.ok())
    return s;
  const std::initializer_list<OperandSpan> others = {sp.a_data,      sp.a_scales,  sp.b_data[0],
                                                     sp.b_scales[0], sp.b_data[1], sp.b_scales[1],
                                                     in.meta,        in.alpha1,    in.alpha2};
  if (Status s = check_grouped_apart(span_c, others); !s.ok()) return s;
  if (Status s = check_grouped_apart(span_c, {in.status}); !s.ok()) return s;
  return check_grouped_apart(in.status, others);
}

// NVFP4 C: the NVFP4 inputs' checks, then C's data and scales in the layout's sizes (contiguous: the scales
// of grouped_scale_rows(total_tokens, E) rows and N/16 columns), apart from each other and from every
// input, c_global_scale finite and > 0, c_global_scale_ptr null or E aligned floats, the status word apart
// from everything.
template <class Epilogue>
Status validate(const Nvfp4GroupedDualGemmArguments<Nvfp4Output, Epilogue>& a) {
  using namespace detail;
  GroupedDualInputSpans in;
  GroupedNvfp4DualSpans sp;
  OperandSpan c_data, c_scales, span_gscale;
  if (Status s = grouped_nvfp4_dual_inputs(a, &in, &sp); !s.ok()) return s;
  if (Status s = grouped_nvfp4_tokens(a.c.data, a.c.scales, a.tokens, a.experts, a.n, "C data", "C scales",
                                      &c_data, &c_scales);
      !s.ok())
    return s;
  if (!std::isfinite(a.c_global_scale) || !(a.c_global_scale > 0.0f))
    return Status::invalid_argument("c_global_scale must be finite and > 0 (got " +
                                    std::to_string(a.c_global_scale) + ")");
  if (Status s = grouped_array(a.c_global_scale_ptr, "c_global_scale_ptr", a.experts, false, &span_gscale);
      !s.ok())
    return s;
  const std::initializer_list<OperandSpan> others = {
      sp.a_data,      sp.a_scales, sp.b_data[0], sp.b_scales[0], sp.b_data[1],
      sp.b_scales[1], in.meta,     in.alpha1,    in.alpha2,      span_gscale};
  for (const OperandSpan* out : {&c_data, &c_scales}) {
    if (Status s = check_grouped_apart(*out, others); !s.ok()) return s;
    if (Status s = check_grouped_apart(*out, {in.status}); !s.ok()) return s;
  }
  if (Status s = check_grouped_apart(c_data, {c_scales}); !s.ok()) return s;
  return check_grouped_apart(in.status, others);
}

// The device memory a grouped dual GEMM call reads or writes (for host::require_device_pointers).
template <class In, class Out, class Epilogue>
host::OperandPointers device_operands(const GroupedDualGemmArguments<In, Out, Epilogue>& a) {
  host::OperandPointers ops{{{a.a, "A"}, {a.b1, "B1"}, {a.b2, "B2"}, {a.c, "C"}}, 4};
  detail::add_grouped_metadata(&ops, a.tokens);
  ops.add_if_given(a.alpha1_ptr, "alpha1_ptr");
  ops.add_if_given(a.alpha2_ptr, "alpha2_ptr");
  ops.add_if_given(a.status, "status");
  return ops;
}

template <class Out, class Epilogue>
host::OperandPointers device_operands(const Nvfp4GroupedDualGemmArguments<Out, Epilogue>& a) {
  host::OperandPointers ops{{{a.a.data, "A data"},
                             {a.a.scales, "A scales"},
                             {a.b1.data, "B1 data"},
                             {a.b1.scales, "B1 scales"},
                             {a.b2.data, "B2 data"},
                             {a.b2.scales, "B2 scales"},
                             {a.c, "C"}},
                            7};
  detail::add_grouped_metadata(&ops, a.tokens);
  ops.add_if_given(a.alpha1_ptr, "alpha1_ptr");
  ops.add_if_given(a.alpha2_ptr, "alpha2_ptr");
  ops.add_if_given(a.status, "status");
  return ops;
}

// 13 pointers at most: host::OperandPointers::kMax must hold them (8 operands, the metadata, 3 scale arrays,
// the status word).
template <class Epilogue>
host::OperandPointers device_operands(const Nvfp4GroupedDualGemmArguments<Nvfp4Output, Epilogue>& a) {
  static_assert(host::OperandPointers::kMax >= 13,
                "the NVFP4-output grouped dual GEMM names 13 device pointers");
  host::OperandPointers ops{{{a.a.data, "A data"},
                             {a.a.scales, "A scales"},
                             {a.b1.data, "B1 data"},
                             {a.b1.scales, "B1 scales"},
                             {a.b2.data, "B2 data"},
                             {a.b2.scales, "B2 scales"},
                             {a.c.data, "C data"},
                             {a.c.scales, "C scales"}},
                            8};
  detail::add_grouped_metadata(&ops, a.tokens);
  ops.add_if_given(a.alpha1_ptr, "alpha1_ptr");
  ops.add_if_given(a.alpha2_ptr, "alpha2_ptr");
  ops.add_if_given(a.c_global_scale_ptr, "c_global_scale_ptr");
  ops.add_if_given(a.status, "status");
  return ops;
}

}  // namespace bwgemm
