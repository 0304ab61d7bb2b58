// The small-M part of the NVFP4 dual GEMM contract: what a decode kernel must do at the token
// counts of decode steps, M = 1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65 (inside one token tile, at its edges,
// across two), in both tiers: exact data bitwise equal to the reference (epi::Multiply), realistic data
// within the field's tolerance (the Config's own SiLU). N = 272 = 2 x 128 + 16 (a partial weight tile), K =
// 512 (two stages); C sits between guard bands and starts as a NaN pattern (nvfp4_dual_gemm_contract.hpp).
// Plus a batch of three with alphas and padded C rows at M = 5.
//
// Instantiated per backend like Nvfp4DualGemmContract (the Backend's Nvfp4DualGemm<Cfg> is the entry point
// under test).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "nvfp4_dual_gemm_contract.hpp"

namespace bwgemm_test {

inline constexpr int64_t kDecodeTokenCounts[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65};

template <class C>
class Nvfp4DualGemmSmallMContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(Nvfp4DualGemmSmallMContract);

TYPED_TEST_P(Nvfp4DualGemmSmallMContract, ExactTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kDecodeTokenCounts) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(
        Nvfp4DualProblem{m, 272, 512, 1, 0.5f, 2.0f}, Data::kExact, 101 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(Nvfp4DualGemmSmallMContract, RealisticTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kDecodeTokenCounts) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(
        Nvfp4DualProblem{m, 272, 512}, Data::kRealistic, 201 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(Nvfp4DualGemmSmallMContract, BatchOfThreeWithAlphasAndPaddedRows) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4DualProblem{5, 144, 256, 3, 0.75f, 1.5f, 8}, Data::kRealistic, 301);
  check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4DualProblem{5, 144, 256, 3, 0.75f, 1.5f, 8}, Data::kExact, 302);
}

REGISTER_TYPED_TEST_SUITE_P(Nvfp4DualGemmSmallMContract, ExactTierAtDecodeTokenCounts,
                            RealisticTierAtDecodeTokenCounts, BatchOfThreeWithAlphasAndPaddedRows);

}  // namespace bwgemm_test
