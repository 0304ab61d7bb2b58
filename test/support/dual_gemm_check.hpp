// The host side of the 16-bit dual GEMM contract (test/contract/dual_gemm_contract.hpp): operands, the host
// reference and the comparison. Compiled once into bwgemm_test_support.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gemm_check.hpp"  // Data

namespace bwgemm_test {

struct DualProblem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0: packed (K, K, N)
  float alpha1 = 1.0f, alpha2 = 1.0f;
};

std::string describe(const DualProblem& pb);

// C's initial bytes (a NaN in fp16 and bf16): every element must be written, the padding columns kept.
inline constexpr uint8_t kDualPoisonByte = 0xFF;

// A, B1 and B2 on the host (exact tier: small integers, {-1, 0, 1} for fp16 outputs and {-2 .. 2} for bf16,
// so gate · up stays exact; realistic: uniform [-1, 1)). Padding columns hold 1000, which must never be read.
template <class In, class Out>
struct DualOperands {
  DualProblem pb;
  int64_t lda, ldb, ldc;
  std::vector<In> a, b1, b2;
  DualOperands(const DualProblem& p, Data kind, uint32_t seed);
  int64_t c_elements() const { return pb.batch * pb.m * ldc; }
};

// Compares C (padding included) with the reference: gate = alpha1 · A·B1ᵀ and up = alpha2 · A·B2ᵀ in fp32;
// exact tier (the kernel ran epi::Multiply): C == round(gate · up) bit for bit; realistic tier
// (epi::SiluMul): |C - silu(gate) · up| <= 2 output roundings + 1e-3 · rms. Padding columns must keep the
// poison. Returns the number of wrong elements (the first are reported).
template <class In, class Out>
int64_t expect_dual_matches(const DualOperands<In, Out>& o, Data kind, const std::vector<Out>& got);

}  // namespace bwgemm_test
