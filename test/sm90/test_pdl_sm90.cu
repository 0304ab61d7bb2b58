// Programmatic dependent launch on the sm_90a kernels (docs/api.md, "Programmatic dependent
// launch"), natively on a compute-capability-9.0 GPU (H100/H200); every case skips with a message elsewhere.
// The chain of test/contract/pdl_contract.hpp on one stream, every call launched with
// LaunchOptions::programmatic_dependent_launch: per repetition a GEMM whose output is the next GEMM's A (read
// after write), that GEMM overwriting the first one's A (write after read), and a dual GEMM reading it; 50
// repetitions with the data changing every time, compared bit for bit with the same chain without PDL.
// Through the default entry points (tiled kernels at M = 128, swap-AB with a split of K at M = 16) and
// through explicit cluster-of-two Configs.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/sm90/candidate_configs.cuh"
#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"
#include "bwgemm/sm90/swap_ab.cuh"
#include "pdl_contract.hpp"

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
using bf16 = __nv_bfloat16;
constexpr int kReps = 50;

const auto kGemm = [](const auto& args, cudaStream_t stream) { return bwgemm::gemm(args, stream); };
const auto kDual = [](const auto& args, cudaStream_t stream) { return bwgemm::dual_gemm(args, stream); };

TEST(Sm90Pdl, ChainMatchesThePdlOffChainBitwiseTiled) {
  BWGEMM_REQUIRE_SM90();
  check_pdl_chain(128, 1024, 512, kReps, kGemm, kDual);
}

TEST(Sm90Pdl, ChainMatchesThePdlOffChainBitwiseSwapAb) {
  BWGEMM_REQUIRE_SM90();
  check_pdl_chain(16, 2048, 1024, kReps, kGemm, kDual);  // decode: swap-AB kernels, K split between CTAs
}

TEST(Sm90Pdl, ChainMatchesThePdlOffChainBitwiseClusters) {
  BWGEMM_REQUIRE_SM90();
  check_pdl_chain(
      256, 512, 512, kReps,
      [](const auto& args, cudaStream_t s) {
        return sm90::Gemm<sm90::GemmTile128x256Cluster2<bf16>>::run(args, s);
      },
      [](const auto& args, cudaStream_t s) {
        return sm90::DualGemm<sm90::DualGemmTile128x64Cluster2<bf16>>::run(args, s);
      });
}

TEST(Sm90Pdl, ChainMatchesThePdlOffChainBitwiseForcedSplitK) {
  BWGEMM_REQUIRE_SM90();
  check_pdl_chain(
      16, 1024, 512, kReps,
      [](const auto& args, cudaStream_t s) {
        return sm90::SwapAbGemm<sm90::GemmSwapAbTokens16<bf16>>::run(args, s, 4);
      },
      [](const auto& args, cudaStream_t s) {
        return sm90::SwapAbDualGemm<sm90::DualGemmSwapAbTokens16<bf16>>::run(args, s, 4);
      });
}

}  // namespace
}  // namespace bwgemm_test
