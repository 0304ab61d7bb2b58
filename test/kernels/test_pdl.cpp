// Programmatic dependent launch on the sm_100a kernels (docs/api.md, "Programmatic dependent
// launch"): LaunchOptions::programmatic_dependent_launch is accepted by every entry point and changes no
// result bit. The chain of test/contract/pdl_contract.hpp (GEMM -> GEMM -> dual GEMM per repetition, read
// after write and write after read between neighbours) through the default entry points, tiled and swap-AB
// GEMMs; the NVFP4 GEMM and dual GEMM (tiled, swap-AB whole and split K) once each with the option on and
// off. In the emulator the option has no effect (grids run one after another), so there this checks the
// plumbing; natively on a B200 (the _gpu twin) the chain really overlaps.
//
// Compiled twice: host C++ against bwgemm::emu (label emu) and nvcc for sm_100a (label gpu; skips
// elsewhere).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_swap_ab_configs.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_swap_ab.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm_swap_ab.cuh"
#include "nvfp4_dual_check.hpp"
#include "nvfp4_gemm_contract.hpp"
#include "pdl_contract.hpp"

// nvfp4_gemm_contract.hpp's typed suite runs in test_nvfp4_gemm.cpp; here only its operands and runner.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Nvfp4GemmContract);

namespace bwgemm_test {
namespace {

namespace sm100 = bwgemm::sm100;

#if BWGEMM_EMULATION
constexpr int kReps = 3;  // the emulator's time; natively 40 repetitions
#else
constexpr int kReps = 40;
#endif

const auto kGemm = [](const auto& args, cudaStream_t stream) { return bwgemm::gemm(args, stream); };
const auto kDual = [](const auto& args, cudaStream_t stream) { return bwgemm::dual_gemm(args, stream); };

TEST(Sm100Pdl, ChainMatchesThePdlOffChainBitwiseTiled) {
  BWGEMM_REQUIRE_SM100();
  check_pdl_chain(128, 128, 128, kReps, kGemm, kDual);  // M = 128: GemmSmallM, DualGemmSmallM
}

TEST(Sm100Pdl, ChainMatchesThePdlOffChainBitwiseSwapAb) {
  BWGEMM_REQUIRE_SM100();
  check_pdl_chain(16, 256, 128, kReps, kGemm, kDual);  // M = 16: the swap-AB GEMM (split K where chosen)
}

// run_nvfp4_gemm_with with the option on and off: the same D bit for bit.
template <class Op>
void expect_nvfp4_gemm_pdl_invariant(const Nvfp4GemmProblem& pb, const Op& op) {
  SCOPED_TRACE(describe(pb));
  const Nvfp4GemmOperands<__half> o(pb, Data::kRealistic, 77);
  bwgemm::Nvfp4GemmArguments<__half> args;
  const auto off = run_nvfp4_gemm_with(o, args, op);
  args.launch.programmatic_dependent_launch = true;
  const auto on = run_nvfp4_gemm_with(o, args, op);
  EXPECT_TRUE(off == on) << "the NVFP4 GEMM's D differs with PDL";
}

TEST(Sm100Pdl, Nvfp4GemmTiledAndSwapAb) {
  BWGEMM_REQUIRE_SM100();
  using Tiled = sm100::Nvfp4GemmConfig<64, 9, 2, bwgemm::sched::StaticPersistent>;
  using Swap = sm100::Nvfp4GemmSwapAbConfig<16, 10>;
  expect_nvfp4_gemm_pdl_invariant(Nvfp4GemmProblem{256, 128, 256, 1, 0.5f, 0.25f},
                                  [](const auto& a) { return sm100::Nvfp4Gemm<Tiled>::run(a); });
  for (int split : {1, 2})
    expect_nvfp4_gemm_pdl_invariant(Nvfp4GemmProblem{5, 256, 512, 1, 0.5f, 0.25f}, [split](const auto& a) {
      return sm100::Nvfp4GemmSwapAb<Swap>::run(a, nullptr, split);
    });
}

// The NVFP4 dual GEMM through `run(args)` with the option on and off: the same C bit for bit.
template <class Run>
void expect_nvfp4_dual_pdl_invariant(const Nvfp4DualProblem& pb, const Run& run) {
  SCOPED_TRACE(describe(pb));
  const Nvfp4DualOperands o(pb, Data::kRealistic, 78);
  Nvfp4DeviceOperand a(o.a), b1(o.b1), b2(o.b2);
  std::vector<uint16_t> got[2];
  for (int pdl = 0; pdl < 2; ++pdl) {
    DeviceBytes c(static_cast<size_t>(pb.m * pb.ldc() * 2));
    c.fill(kDualFillByte);
    bwgemm::Nvfp4DualGemmArguments<__half> args;
    args.m = pb.m, args.n = pb.n, args.k = pb.k;
    args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
    args.c = reinterpret_cast<__half*>(c.data()), args.ldc = pb.ldc();
    args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
    args.launch.programmatic_dependent_launch = pdl == 1;
    const bwgemm::Status s = run(args);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    got[pdl] = download_as<uint16_t>(c);
  }
  EXPECT_TRUE(got[0] == got[1]) << "the NVFP4 dual GEMM's C differs with PDL";
}

TEST(Sm100Pdl, Nvfp4DualTiledAndSwapAb) {
  BWGEMM_REQUIRE_SM100();
  using Tiled = sm100::Nvfp4DualGemmConfig<64, 7, 2, bwgemm::sched::StaticPersistent>;
  using Swap = sm100::Nvfp4DualSwapAbConfig<16, 5>;
  expect_nvfp4_dual_pdl_invariant(Nvfp4DualProblem{256, 128, 256, 1, 0.5f, 2.0f},
                                  [](const auto& a) { return sm100::Nvfp4DualGemm<Tiled>::run(a); });
  for (int split : {1, 2})
    expect_nvfp4_dual_pdl_invariant(Nvfp4DualProblem{5, 256, 512, 1, 0.5f, 2.0f}, [split](const auto& a) {
      return sm100::Nvfp4DualGemmSwapAb<Swap>::run(a, nullptr, split);
    });
}

}  // namespace
}  // namespace bwgemm_test
