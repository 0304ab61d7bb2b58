// The arguments of a 16-bit dual GEMM call (fp16/bf16 operands) and their validation, shared by every
// backend that runs it (sm_90a: sm90/dual_gemm.cuh; the dispatching bwgemm::dual_gemm: dual_gemm.cuh). Host
// code only.
//
//   C[m, n, l] = epilogue(alpha1 · sum_k A[m,k,l] B1[n,k,l], alpha2 · sum_k A[m,k,l] B2[n,k,l])
//                                                                            (default: silu(gate) · up)
//
// A: M x K row-major (row stride lda), B1, B2: N x K row-major (nn.Linear weights, row stride ldb), C: M x N
// row-major (row stride ldc); batches packed (M·lda, N·ldb, M·ldc). In is __half or __nv_bfloat16 (A, B1
// and B2 alike), Out __half or __nv_bfloat16; fp32 accumulation. Any M, N, K >= 1; lda, ldb, ldc multiples
// of 8 (16-byte rows); every pointer 16-byte aligned.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"  // host::OperandPointers

namespace bwgemm {

template <class In, class Out = In, class Epilogue = epi::SiluMul>
struct DualGemmArguments {
  static_assert(std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>,
                "A, B1 and B2 are __half or __nv_bfloat16");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>,
                "C is __half or __nv_bfloat16");
  int64_t m = 0, n = 0, k = 0, batch = 1;
  const In* a = nullptr;               // M x K, row stride lda
  const In* b1 = nullptr;              // N x K, row stride ldb: the gate projection
  const In* b2 = nullptr;              // N x K, row stride ldb: the up projection
  Out* c = nullptr;                    // M x N, row stride ldc
  int64_t lda = 0, ldb = 0, ldc = 0;   // 0 means K, K and N
  float alpha1 = 1.0f, alpha2 = 1.0f;  // scales of A·B1ᵀ and A·B2ᵀ, applied before the epilogue
  // Device-pointer parts of the scales (docs/api.md, "Device-pointer scales"): where not null the kernel
  // reads one float from it at run time (a captured CUDA graph sees the value on replay) and the scale is
  // alpha1 · *alpha1_ptr (alpha2 · *alpha2_ptr). 4-byte aligned device memory; null: alpha1 (alpha2) alone.
  const float* alpha1_ptr = nullptr;
  const float* alpha2_ptr = nullptr;
  Epilogue epilogue{};     // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
  LaunchOptions launch{};  // per-call launch options: programmatic dependent launch (off by default)
  // Scratch memory for the kernels that take it: the sm_90a swap-AB stream-K kernels at decode sizes
  // (sm90::dual_gemm_workspace_bytes says how many bytes a call's choice takes; 0 for every other kernel).
  // The rules of GemmArguments::workspace: device memory, 16-byte aligned, overlapping no operand or device
  // scale, zero-filled before its first use and left so by every call; one call at a time per workspace.
  // Null or workspace_bytes 0 (the default): none, and no kernel that needs one is chosen.
  void* workspace = nullptr;
  int64_t workspace_bytes = 0;  // its size (what sm90::dual_gemm_workspace_bytes asks for, or more)
};

namespace detail {
// The leading dimensions with their defaults (0: K, K, N), as validate and every backend read them.
struct DualGemmStrides {
  int64_t lda, ldb, ldc;
};
template <class Args>
DualGemmStrides dual_gemm_strides(const Args& a) {
  return {a.lda == 0 ? a.k : a.lda, a.ldb == 0 ? a.k : a.ldb, a.ldc == 0 ? a.n : a.ldc};
}
}  // namespace detail

// The 16-bit dual GEMM's argument checks, the same on every backend (no device access): shapes, strides,
// pointers, alignment, the scales. A Config's own limits (its tile count) come after, in its can_implement.
template <class In, class Out, class Epilogue>
Status validate(const DualGemmArguments<In, Out, Epilogue>& a) {
  using detail::str;
  if (a.m < 1) return Status::invalid_argument("M must be >= 1 (got " + str(a.m) + ")");
  if (a.n < 1) return Status::invalid_argument("N must be >= 1 (got " + str(a.n) + ")");
  if (a.k < 1) return Status::invalid_argument("K must be >= 1 (got " + str(a.k) + ")");
  if (Status s = detail::check_extents(a.m, a.n, a.k, a.batch); !s.ok()) return s;
  const auto [lda, ldb, ldc] = detail::dual_gemm_strides(a);
  if (lda < a.k || lda % 8 != 0)
    return Status::invalid_argument("lda must be >= K and a multiple of 8 (16-byte rows for TMA) (got " +
                                    str(lda) + ", K = " + str(a.k) + ")");
  if (ldb < a.k || ldb % 8 != 0)
    return Status::invalid_argument("ldb must be >= K and a multiple of 8 (16-byte rows for TMA) (got " +
                                    str(ldb) + ", K = " + str(a.k) + ")");
  if (ldc < a.n || ldc % 8 != 0)
    return Status::invalid_argument("ldc must be >= N and a multiple of 8 (16-byte rows) (got " + str(ldc) +
                                    ", N = " + str(a.n) + ")");
  constexpr int64_t kInBytes = sizeof(In), kOutBytes = sizeof(Out);
  const struct {
    int64_t ld, elem_bytes;
    const char* name;
  } ld_limits[] = {{lda, kInBytes, "lda"}, {ldb, kInBytes, "ldb"}, {ldc, kOutBytes, "ldc"}};
  for (const auto& l : ld_limits)
    if (Status s = detail::check_stride_limit(l.name, l.ld, l.elem_bytes); !s.ok()) return s;
  const struct {
    const void* p;
    const char* name;
  } ptrs[] = {{a.a, "A"}, {a.b1, "B1"}, {a.b2, "B2"}, {a.c, "C"}};
  for (const auto& q : ptrs) {
    if (Status s = detail::check_operand_pointer(q.p, q.name); !s.ok()) return s;
  }
  if (Status s = detail::check_workspace_pointer(a.workspace, a.workspace_bytes); !s.ok()) return s;
  // Batches are packed (batch strides M·lda, N·ldb, M·ldc): the kernels' tensor maps carry them as TMA
  // strides, and every offset the kernels form stays inside each operand's span; C aliases no input.
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  if (Status s = detail::effective_batch_stride("the batch stride of A", 0, a.m, lda, &stride_a); !s.ok())
    return s;
  if (Status s = detail::effective_batch_stride("the batch stride of B1, B2", 0, a.n, ldb, &stride_b);
      !s.ok())
    return s;
  if (Status s = detail::effective_batch_stride("the batch stride of C", 0, a.m, ldc, &stride_c); !s.ok())
    return s;
  const struct {
    int64_t stride, elem_bytes;
    const char* name;
  } strides[] = {{stride_a, kInBytes, "the batch stride of A (M · lda)"},
                 {stride_b, kInBytes, "the batch stride of B1, B2 (N · ldb)"},
                 {stride_c, kOutBytes, "the batch stride of C (M · ldc)"}};
  for (const auto& b : strides)
    if (Status s = detail::check_stride_limit(b.name, b.stride, b.elem_bytes); !s.ok()) return s;
  detail::OperandSpan span_a, span_b1, span_b2, span_c;
  if (Status s = detail::strided_span("A", a.a, a.m, a.k, lda, a.batch, stride_a, kInBytes, &span_a); !s.ok())
    return s;
  if (Status s = detail::strided_span("B1", a.b1, a.n, a.k, ldb, a.batch, stride_b, kInBytes, &span_b1);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("B2", a.b2, a.n, a.k, ldb, a.batch, stride_b, kInBytes, &span_b2);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("C", a.c, a.m, a.n, ldc, a.batch, stride_c, kOutBytes, &span_c);
      !s.ok())
    return s;
  if (Status s = detail::check_no_overlap(span_c, {span_a, span_b1, span_b2}); !s.ok()) return s;
  if (!std::isfinite(a.alpha1) || !std::isfinite(a.alpha2))
    return Status::invalid_argument("alpha1 and alpha2 must be finite");
  if (Status s = detail::check_dual_device_scales(a, span_c); !s.ok()) return s;
  const detail::OperandSpan operands[] = {span_a, span_b1, span_b2, span_c};
  const detail::NamedScale scales[] = {{a.alpha1_ptr, "alpha1_ptr"}, {a.alpha2_ptr, "alpha2_ptr"}};
  return detail::check_workspace_apart(a.workspace, a.workspace_bytes, operands, scales);
}

// The device memory a 16-bit dual GEMM call reads or writes.
template <class In, class Out, class Epilogue>
host::OperandPointers device_operands(const DualGemmArguments<In, Out, Epilogue>& a) {
  host::OperandPointers ops{{{a.a, "A"}, {a.b1, "B1"}, {a.b2, "B2"}, {a.c, "C"}}, 4};
  ops.add_if_given(a.alpha1_ptr, "alpha1_ptr");
  ops.add_if_given(a.alpha2_ptr, "alpha2_ptr");
  if (a.workspace_bytes > 0) ops.add_if_given(a.workspace, "workspace");
  return ops;
}

}  // namespace bwgemm
