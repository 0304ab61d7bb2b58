// The small-M part of the NVFP4 GEMM contract: what a decode kernel must do at the token
// counts of decode steps, M = 1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65 (inside one token tile, at its edges,
// across two), in both tiers: exact data bitwise equal to the reference (alpha 0.5, beta 2: every product and
// sum exact in fp32), realistic data within the field's tolerance (D = A·Bᵀ, the identity path, and alpha
// 0.75, beta 0.5). N = 272 = 2 x 128 + 16 (a partial weight tile), K = 512 (two stages); D sits between guard
// bands and starts as a NaN pattern (nvfp4_gemm_contract.hpp). Plus a batch of three with alpha, beta and
// padded rows of C and D at M = 5.
//
// Instantiated per backend like Nvfp4GemmContract (the Backend's Nvfp4Gemm<Cfg> is the entry point under
// test).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "nvfp4_gemm_contract.hpp"

namespace bwgemm_test {

// The decode token counts (the NVFP4 dual GEMM's small-M contract uses the same list).
inline constexpr int64_t kNvfp4GemmDecodeTokenCounts[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65};

template <class C>
class Nvfp4GemmSmallMContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(Nvfp4GemmSmallMContract);

TYPED_TEST_P(Nvfp4GemmSmallMContract, ExactTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kNvfp4GemmDecodeTokenCounts) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
        Nvfp4GemmProblem{m, 272, 512, 1, 0.5f, 2.0f}, Data::kExact, 101 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(Nvfp4GemmSmallMContract, RealisticTierAtDecodeTokenCounts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : kNvfp4GemmDecodeTokenCounts) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
        Nvfp4GemmProblem{m, 272, 512}, Data::kRealistic, 201 + static_cast<uint32_t>(m));
    check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
        Nvfp4GemmProblem{m, 272, 512, 1, 0.75f, 0.5f}, Data::kRealistic, 251 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(Nvfp4GemmSmallMContract, BatchOfThreeWithAlphaBetaAndPaddedRows) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4GemmProblem{5, 144, 256, 3, 0.75f, 1.5f, 8, 16}, Data::kRealistic, 301);
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4GemmProblem{5, 144, 256, 3, 0.5f, -1.0f, 8, 16}, Data::kExact, 302);
}

REGISTER_TYPED_TEST_SUITE_P(Nvfp4GemmSmallMContract, ExactTierAtDecodeTokenCounts,
                            RealisticTierAtDecodeTokenCounts, BatchOfThreeWithAlphaBetaAndPaddedRows);

}  // namespace bwgemm_test
