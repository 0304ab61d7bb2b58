// The host side of the NVFP4 dual GEMM contract (test/contract/nvfp4_dual_gemm_contract.hpp): operands, the
// host reference and the comparison. Compiled once into bwgemm_test_support.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/reference/nvfp4_gemm.hpp"
#include "gemm_check.hpp"  // Data

namespace bwgemm_test {

// An NVFP4 operand on the host: packed e2m1 codes and 128x4 blocked e4m3 scales, `rows` x `k` per batch.
struct Nvfp4Operand {
  int64_t rows = 0, k = 0, batch = 1;
  std::vector<uint8_t> data, scales;
  bwgemm::ref::Nvfp4Matrix host_view() const { return {data.data(), scales.data(), rows, k}; }
};

// Exact tier: e2m1 codes of any value, scales 2^-1 .. 2^1 (every product and sum exact in fp32);
// realistic tier: the field's test data (bytes & 0b1011_1011, scales e4m3 of uniform [0, 1)).
Nvfp4Operand make_nvfp4_operand(int64_t rows, int64_t k, int64_t batch, Data kind, uint32_t seed);

struct Nvfp4DualProblem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  float alpha1 = 1.0f, alpha2 = 1.0f;
  int64_t ldc_pad = 0;  // ldc = n + ldc_pad
  int64_t ldc() const { return n + ldc_pad; }
};

std::string describe(const Nvfp4DualProblem& pb);

// The byte pair every element of C starts as (a NaN pattern in fp16 and bf16); C's row padding must keep it.
inline constexpr uint8_t kDualFillByte = 0xEE;

// The problem's three operands.
struct Nvfp4DualOperands {
  Nvfp4DualProblem pb;
  Nvfp4Operand a, b1, b2;
  Nvfp4DualOperands(const Nvfp4DualProblem& p, Data kind, uint32_t seed);
};

// Compares C (batch x m x ldc 16-bit words, padding included) with the reference. Exact tier: the kernel ran
// epi::Multiply, so C must equal round((alpha1 · A·B1ᵀ) · (alpha2 · A·B2ᵀ)) bit for bit; realistic tier: the
// SiLU-gated reference within the field's tolerance (|d| <= 1e-3 + 1e-3 |ref|, plus one ulp for bf16). The
// row padding must hold the fill pattern. Returns the number of wrong elements (the first are reported).
template <class Out>
int64_t expect_nvfp4_dual_matches(const Nvfp4DualOperands& o, Data kind, const std::vector<uint16_t>& got);

// gate and up: alpha · A·Bᵀ of one batch in fp32 (m x n), from the reference NVFP4 GEMM.
std::vector<float> nvfp4_product(const Nvfp4Operand& a, const Nvfp4Operand& b, float alpha);

}  // namespace bwgemm_test
