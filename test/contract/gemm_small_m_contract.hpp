// The small-M part of the GEMM contract: what a decode kernel must do at the token counts of
// decode steps, M = 1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65 (inside one token tile, at its edges, across two),
// in both tiers (exact data bitwise equal to the host reference, realistic data within the fp32-accumulation
// tolerance) and both B layouts. N = 264 = 2 x 128 + 8 (a partial weight tile), K = 200 (a K tail in the
// last stage); D sits between guard bands and its row padding keeps its fill pattern (gemm_contract.hpp).
//
// Instantiated per backend like GemmContract (the Backend's Gemm<Cfg> is the entry point under test).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "gemm_contract.hpp"

namespace bwgemm_test {

inline constexpr int64_t kGemmDecodeTokenCounts[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65};

template <class C>
class GemmSmallMContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(GemmSmallMContract);

TYPED_TEST_P(GemmSmallMContract, ExactTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kGemmDecodeTokenCounts)
    for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
      SCOPED_TRACE("M = " + std::to_string(m));
      check_gemm<typename TypeParam::Backend, typename TypeParam::Cfg, __half>(
          GemmProblem{m, 264, 200, 1, layout, 0.5f, 0.0f}, Data::kExact, 101 + static_cast<uint32_t>(m));
    }
}

TYPED_TEST_P(GemmSmallMContract, RealisticTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kGemmDecodeTokenCounts)
    for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
      SCOPED_TRACE("M = " + std::to_string(m));
      check_gemm<typename TypeParam::Backend, typename TypeParam::Cfg, __nv_bfloat16>(
          GemmProblem{m, 264, 200, 1, layout}, Data::kRealistic, 201 + static_cast<uint32_t>(m));
    }
}

// Beta != 0 (C read at decode M), a batch of three with strides and padded rows.
TYPED_TEST_P(GemmSmallMContract, BatchWithBetaAndPaddedRows) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN})
    check_gemm<typename TypeParam::Backend, typename TypeParam::Cfg, __half>(
        GemmProblem{5, 136, 72, 3, layout, 1.5f, -0.5f, /*pad=*/8, /*batch_gap=*/16}, Data::kExact, 301);
}

REGISTER_TYPED_TEST_SUITE_P(GemmSmallMContract, ExactTierAtDecodeTokenCounts,
                            RealisticTierAtDecodeTokenCounts, BatchWithBetaAndPaddedRows);

}  // namespace bwgemm_test
