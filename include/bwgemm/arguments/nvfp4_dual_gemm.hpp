// The arguments of an NVFP4 dual GEMM call and their validation, shared by every backend that runs it
// (sm_100a: sm100/nvfp4_dual_gemm.cuh; the dispatching bwgemm::dual_gemm_nvfp4: dual_gemm.cuh). Host code
// only.
//
//   C[m, n, l] = epilogue(alpha1 · sum_k A[m,k,l] B1[n,k,l], alpha2 · sum_k A[m,k,l] B2[n,k,l])
//                                                                            (default: silu(gate) · up)
//
// Operands are NVFP4: packed e2m1 K-major data (two per byte, element 2i in the low nibble; row r of an
// M x K matrix is K/2 contiguous bytes; batch outermost) plus e4m3 scales, one per 16 K elements, in the
// 128x4 blocked layout (docs/formats.md; bwgemm::quantize_nvfp4 produces both). C is fp16 or bf16,
// row-major with row stride ldc, batch stride m * ldc. M >= 1, N a multiple of 16, K a multiple of 64.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"  // host::OperandPointers

namespace bwgemm {

// One NVFP4 operand in device memory.
struct Nvfp4Tensor {
  const void* data = nullptr;    // rows x K/2 bytes per batch (16-byte aligned)
  const void* scales = nullptr;  // blocked_scale_bytes(rows, K/16, batch) bytes (16-byte aligned)
};

template <class Out = __half, class Epilogue = epi::SiluMul>
struct Nvfp4DualGemmArguments {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  Nvfp4Tensor a;   // M x K
  Nvfp4Tensor b1;  // N x K: the gate projection
  Nvfp4Tensor b2;  // N x K: the up projection
  Out* c = nullptr;
  int64_t ldc = 0;                     // elements between rows of C; 0 means n
  float alpha1 = 1.0f, alpha2 = 1.0f;  // per-tensor scales (NVFP4 global scales of A times B1, A times B2)
  Epilogue epilogue{};                 // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};

// The NVFP4 dual GEMM's argument checks, the same on every backend (no device access): shapes, strides,
// pointers, alignment, the scales. A Config's own limits (its tile count) come after, in its can_implement.
template <class Out, class Epilogue>
Status validate(const Nvfp4DualGemmArguments<Out, Epilogue>& a) {
  using detail::str;
  if (a.m < 1) return Status::invalid_argument("M must be >= 1 (got " + str(a.m) + ")");
  if (a.n < 16 || a.n % 16 != 0)
    return Status::invalid_argument("N must be a positive multiple of 16 (got " + str(a.n) + ")");
  if (a.k < 64 || a.k % 64 != 0)
    return Status::invalid_argument("K must be a positive multiple of 64 (got " + str(a.k) + ")");
  if (Status s = detail::check_extents(a.m, a.n, a.k, a.batch); !s.ok()) return s;
  const int64_t ldc = a.ldc == 0 ? a.n : a.ldc;
  if (ldc < a.n || ldc % 8 != 0)
    return Status::invalid_argument("ldc must be >= N and a multiple of 8 (16-byte rows) (got " + str(ldc) +
                                    ")");
  const struct {
    const void* p;
    const char* name;
  } ptrs[] = {{a.a.data, "A data"},
              {a.a.scales, "A scales"},
              {a.b1.data, "B1 data"},
              {a.b1.scales, "B1 scales"},
              {a.b2.data, "B2 data"},
              {a.b2.scales, "B2 scales"},
              {a.c, "C"}};
  for (const auto& q : ptrs) {
    if (Status s = detail::check_operand_pointer(q.p, q.name); !s.ok()) return s;
  }
  if (!std::isfinite(a.alpha1) || !std::isfinite(a.alpha2))
    return Status::invalid_argument("alpha1 and alpha2 must be finite");
  return Status::success();
}

// The device memory an NVFP4 dual GEMM call reads or writes.
template <class Out, class Epilogue>
host::OperandPointers device_operands(const Nvfp4DualGemmArguments<Out, Epilogue>& a) {
  return {{{a.a.data, "A data"},
           {a.a.scales, "A scales"},
           {a.b1.data, "B1 data"},
           {a.b1.scales, "B1 scales"},
           {a.b2.data, "B2 data"},
           {a.b2.scales, "B2 scales"},
           {a.c, "C"}},
          7};
}

}  // namespace bwgemm
