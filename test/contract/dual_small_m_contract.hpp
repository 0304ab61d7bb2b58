// The small-M part of the 16-bit dual GEMM contract: what a decode kernel must do at the token
// counts of decode steps, M = 1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65 (inside one token tile, at its edges,
// across two), in both tiers: exact data bitwise equal to the reference (epi::Multiply, alpha1 = 0.5,
// alpha2 = 2), realistic data within the fp32-accumulation tolerance (the Config's own SiLU). N = 261 = 2 x
// 128 + 5 (a partial weight tile whose last quad of columns crosses N) with ldc = 272 (padding columns that
// must keep their poison), K = 200 (a K tail in the last stage); C sits between guard bands and starts as a
// NaN pattern (dual_gemm_contract.hpp). Plus a batch of three with alphas and padded rows of A, B1, B2 and C,
// and fp16 inputs.
//
// Instantiated per backend like DualGemmContract (the Backend's DualGemm<Cfg> is the entry point under test).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "dual_gemm_contract.hpp"

namespace bwgemm_test {

inline constexpr int64_t kDualDecodeTokenCounts[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65};

template <class C>
class DualGemmSmallMContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(DualGemmSmallMContract);

TYPED_TEST_P(DualGemmSmallMContract, ExactTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kDualDecodeTokenCounts) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_dual_config<typename TypeParam::Backend, typename TypeParam::Cfg, __nv_bfloat16>(
        DualProblem{m, 261, 200, 1, 0, 0, 272, 0.5f, 2.0f}, Data::kExact, 101 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(DualGemmSmallMContract, RealisticTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kDualDecodeTokenCounts) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_dual_config<typename TypeParam::Backend, typename TypeParam::Cfg, __nv_bfloat16>(
        DualProblem{m, 261, 200, 1, 0, 0, 272}, Data::kRealistic, 201 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(DualGemmSmallMContract, BatchOfThreeWithAlphasAndPaddedRows) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Backend = typename TypeParam::Backend;
  using Cfg = typename TypeParam::Cfg;
  const DualProblem pb{5, 136, 72, 3, 80, 88, 144, 0.75f, 1.5f};
  check_dual_config<Backend, Cfg, __nv_bfloat16>(pb, Data::kExact, 301);
  check_dual_config<Backend, Cfg, __nv_bfloat16>(pb, Data::kRealistic, 302);
}

TYPED_TEST_P(DualGemmSmallMContract, Fp16Inputs) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Backend = typename TypeParam::Backend;
  using Cfg = typename TypeParam::Cfg;
  for (int64_t m : {1, 17, 40}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_dual_config<Backend, Cfg, __half>(DualProblem{m, 136, 136}, Data::kExact,
                                            401 + static_cast<uint32_t>(m));
    check_dual_config<Backend, Cfg, __half>(DualProblem{m, 136, 136, 1, 0, 0, 0, 0.75f, 1.25f},
                                            Data::kRealistic, 501 + static_cast<uint32_t>(m));
  }
}

REGISTER_TYPED_TEST_SUITE_P(DualGemmSmallMContract, ExactTierAtDecodeTokenCounts,
                            RealisticTierAtDecodeTokenCounts, BatchOfThreeWithAlphasAndPaddedRows,
                            Fp16Inputs);

}  // namespace bwgemm_test
