// The sm_100a small-M (swap-AB) kernels (issue 13): the NVFP4 dual GEMM contract
// (test/contract/nvfp4_dual_gemm_contract.hpp) and its small-M part (nvfp4_dual_small_m_contract.hpp) on
// every shipped swap-AB Config (kernels/sm100/nvfp4_dual_swap_ab_configs.cuh), the default entry point's
// choice table, and the default entry point at decode M.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_configs.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_swap_ab.cuh"
#include "nvfp4_dual_gemm_contract.hpp"
#include "nvfp4_dual_small_m_contract.hpp"

namespace bwgemm_test {
namespace {

struct Sm100SwapAb {
  template <class Cfg>
  using Nvfp4DualGemm = bwgemm::sm100::Nvfp4DualGemmSwapAb<Cfg>;
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

#if BWGEMM_EMULATION
// Two co-resident CTAs: a persistent CTA takes several tiles of the test problems.
const bool kTwoResidentClusters = [] {
  bwgemm::emulated_launch_settings().max_resident_clusters = 2;
  return true;
}();
#endif

using SwapAbDualCases = CasesOf<Sm100SwapAb, bwgemm::sm100::ShippedNvfp4DualSwapAbConfigs>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, Nvfp4DualGemmContract, SwapAbDualCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, Nvfp4DualGemmSmallMContract, SwapAbDualCases, ConfigNames);

namespace {

namespace sm100 = bwgemm::sm100;

// The default's choice table (docs/api.md): swap AB with the smallest token tile holding M up to M = 64,
// then the tiled kernels as before.
TEST(Sm100Nvfp4DualChoice, SwapAbUpToM64ThenTheTiledKernels) {
  using C = sm100::Nvfp4DualChoice;
  const struct {
    int64_t m;
    C want;
  } table[] = {{1, C::kSwapAb16},  {16, C::kSwapAb16}, {17, C::kSwapAb32}, {32, C::kSwapAb32},
               {33, C::kSwapAb64}, {64, C::kSwapAb64}, {65, C::kSmallM},   {256, C::kSmallM},
               {257, C::kLargeM},  {8192, C::kLargeM}};
  for (const auto& row : table) EXPECT_EQ(sm100::nvfp4_dual_choice(row.m), row.want) << "M = " << row.m;
  // The one-sided entry points used by the benchmark.
  EXPECT_EQ(sm100::nvfp4_dual_swap_ab_choice(300), C::kSwapAb64);
  EXPECT_EQ(sm100::nvfp4_dual_tiled_choice(1), C::kSmallM);
  EXPECT_EQ(sm100::kNvfp4DualSwapAbMaxM, 64);
}

// The public entry point at decode M runs the swap-AB kernel it names (diagnostics) and gets the reference.
TEST(Sm100Nvfp4DualDefault, DecodeMRunsTheSwapAbKernel) {
  BWGEMM_REQUIRE_SM100();
  for (int64_t m : {1, 17, 40}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    const Nvfp4DualProblem pb{m, 256, 256};
    const Nvfp4DualOperands o(pb, Data::kRealistic, 401 + static_cast<uint32_t>(m));
    DeviceNvfp4 a(o.a), b1(o.b1), b2(o.b2);
    DeviceBytes c(static_cast<size_t>(pb.m * pb.n * 2));
    c.fill(kDualFillByte);
    bwgemm::Nvfp4DualGemmArguments<__half> args;
    args.m = pb.m, args.n = pb.n, args.k = pb.k;
    args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
    args.c = reinterpret_cast<__half*>(c.data());
    bwgemm::set_diagnostics(true);
    ::testing::internal::CaptureStderr();
    const bwgemm::Status s = bwgemm::dual_gemm_nvfp4(args);
    const std::string said = ::testing::internal::GetCapturedStderr();
    bwgemm::set_diagnostics(false);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    const char* want = m <= 16   ? "Nvfp4DualGemmSwapAb16"
                       : m <= 32 ? "Nvfp4DualGemmSwapAb32"
                                 : "Nvfp4DualGemmSwapAb64";
    EXPECT_NE(said.find(want), std::string::npos) << said;
    expect_nvfp4_dual_matches<__half>(o, Data::kRealistic, download_as<uint16_t>(c));
  }
}

#if BWGEMM_EMULATION
// Under random completion delays of every asynchronous operation (TMA, tcgen05.mma/cp/commit), with several
// seeds, the kernel still waits for everything it reads: the exact tier stays bitwise equal.
TEST(Sm100Nvfp4DualSwapAbEmulator, RandomAsyncDelaysKeepTheExactTier) {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  for (uint64_t seed : {3u, 17u, 29u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    settings.max_async_delay_steps = 40;
    settings.seed = seed;
    check_nvfp4_dual<Sm100SwapAb, sm100::Nvfp4DualSwapAbConfig<16, 5>>(Nvfp4DualProblem{17, 272, 768},
                                                                       Data::kExact, 500 + seed);
  }
  settings = saved;
}
#endif

}  // namespace
}  // namespace bwgemm_test
