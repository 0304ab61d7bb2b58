// The sm_100a small-M (swap-AB) kernels (issue 13): the NVFP4 dual GEMM contract
// (test/contract/nvfp4_dual_gemm_contract.hpp) and its small-M part (nvfp4_dual_small_m_contract.hpp) on
// every shipped NVFP4 swap-AB Config (kernels/sm100/nvfp4_dual_swap_ab_configs.cuh); the GEMM contract
// (gemm_contract.hpp: GemmContract, GemmOutputContract) and its small-M part (gemm_small_m_contract.hpp) on
// every shipped 16-bit swap-AB Config (gemm_swap_ab_configs.cuh); the default entry points' choice tables,
// and the default entry points at decode M.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/gemm_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_configs.cuh"
#include "bwgemm/sm100/gemm.cuh"
#include "bwgemm/sm100/gemm_swap_ab.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_swap_ab.cuh"
#include "gemm_contract.hpp"
#include "gemm_small_m_contract.hpp"
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

// A GEMM swap-AB Config as the GEMM contract sizes its problems: kClusterBlockM and kBlockN are the tile's
// rows and columns of D (tokens, weights), as for sm_90a's swap-AB Configs; the kernel's own Config keeps
// roles.cuh's names (weight rows x token columns of tensor memory).
template <class Cfg>
struct GemmSwapAbView : Cfg {
  using Kernel = Cfg;
  static constexpr int kClusterBlockM = Cfg::kBlockTokens;
  static constexpr int kBlockN = Cfg::kBlockWeights;
};
template <class List>
struct GemmSwapAbViews;
template <class... Cs>
struct GemmSwapAbViews<bwgemm::sm100::ConfigList<Cs...>> {
  using type = Configs<GemmSwapAbView<Cs>...>;
};

struct Sm100GemmSwapAb {
  template <class View>
  using Gemm = bwgemm::sm100::GemmSwapAb<typename View::Kernel>;
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return bwgemm::gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

using SwapAbGemmCases =
    CasesOf<Sm100GemmSwapAb, GemmSwapAbViews<bwgemm::sm100::ShippedGemmSwapAbConfigs>::type>::type;
using SwapAbGemmOutputCases =
    CasesOf<Sm100GemmSwapAb, GemmSwapAbViews<bwgemm::sm100::ShippedGemmSwapAbOutputVariants>::type>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, Nvfp4DualGemmContract, SwapAbDualCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, Nvfp4DualGemmSmallMContract, SwapAbDualCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, GemmContract, SwapAbGemmCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, GemmOutputContract, SwapAbGemmOutputCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, GemmSmallMContract, SwapAbGemmCases, ConfigNames);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmManyTilesContract);  // test_gemm.cpp's (native only)

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

// The GEMM default's choice table (docs/api.md): swap AB up to M = 64, then the tiled kernels as before.
TEST(Sm100GemmChoice, SwapAbUpToM64ThenTheTiledKernels) {
  using C = sm100::GemmChoice;
  const struct {
    int64_t m;
    C want;
  } table[] = {{1, C::kSwapAb16},  {16, C::kSwapAb16}, {17, C::kSwapAb32}, {32, C::kSwapAb32},
               {33, C::kSwapAb64}, {64, C::kSwapAb64}, {65, C::kSmallM},   {128, C::kSmallM},
               {129, C::kMediumM}, {512, C::kMediumM}, {513, C::kLargeM}};
  for (const auto& row : table) EXPECT_EQ(sm100::gemm_choice(row.m), row.want) << "M = " << row.m;
  EXPECT_EQ(sm100::gemm_swap_ab_choice(1000), C::kSwapAb64);
  EXPECT_EQ(sm100::gemm_tiled_choice(1), C::kSmallM);
  EXPECT_EQ(sm100::kGemmSwapAbMaxM, 64);
}

// bwgemm::gemm at decode M: the swap-AB kernels (named by the diagnostic switch), D bitwise equal.
TEST(Sm100GemmDefault, DecodeMRunsTheSwapAbKernels) {
  BWGEMM_REQUIRE_SM100();
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  check_default_entry<Sm100GemmSwapAb, __half, __half>(
      {GemmProblem{1, 264, 64}, GemmProblem{20, 264, 64, 1, bwgemm::BLayout::kColumnMajorKxN},
       GemmProblem{64, 264, 64}});
  const std::string said = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  EXPECT_NE(said.find("M=1 N=264 K=64 batch=1 -> sm100::GemmSwapAb16"), std::string::npos) << said;
  EXPECT_NE(said.find("M=20 N=264 K=64 batch=1 -> sm100::GemmSwapAb32"), std::string::npos) << said;
  EXPECT_NE(said.find("M=64 N=264 K=64 batch=1 -> sm100::GemmSwapAb64"), std::string::npos) << said;
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
