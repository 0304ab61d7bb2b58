// The sm_100a small-M (swap-AB) NVFP4 GEMM: the NVFP4 GEMM contract
// (test/contract/nvfp4_gemm_contract.hpp) and its small-M part (nvfp4_gemm_small_m_contract.hpp) on every
// shipped Config (kernels/sm100/nvfp4_gemm_swap_ab_configs.cuh), with K split inside a cluster too; split K's
// exact tier and determinism; the default entry point's choice at decode M.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_swap_ab_configs.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm_swap_ab.cuh"
#include "nvfp4_gemm_contract.hpp"
#include "nvfp4_gemm_small_m_contract.hpp"

namespace bwgemm_test {
namespace {

namespace sm100 = bwgemm::sm100;

#if BWGEMM_EMULATION
// Two co-resident CTAs: a persistent CTA takes several tiles of the test problems.
const bool kTwoResidentClusters = [] {
  bwgemm::emulated_launch_settings().max_resident_clusters = 2;
  return true;
}();
#endif

// A swap-AB Config as the NVFP4 GEMM contract sizes its problems: kClusterBlockM and kBlockN are the tile's
// rows and columns of D (tokens, weights); the kernel's own Config keeps roles.cuh's names (weight rows x
// token columns of tensor memory).
template <class Cfg>
struct SwapAbView : Cfg {
  using Kernel = Cfg;
  static constexpr int kClusterBlockM = Cfg::kBlockTokens;
  static constexpr int kBlockN = Cfg::kBlockWeights;
};
template <class List>
struct SwapAbViews;
template <class... Cs>
struct SwapAbViews<sm100::ConfigList<Cs...>> {
  using type = Configs<SwapAbView<Cs>...>;
};

// The entry point under test with a fixed split_k (0: the entry point chooses).
template <int SplitK>
struct Sm100Nvfp4GemmSwapAb {
  template <class View>
  struct Nvfp4Gemm {
    using Op = sm100::Nvfp4GemmSwapAb<typename View::Kernel>;
    using Arguments = typename Op::Arguments;
    static bwgemm::Status can_implement(const Arguments& a) { return Op::can_implement(a); }
    static bwgemm::Status run(const Arguments& a) { return Op::run(a, nullptr, SplitK); }
  };
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

using Views = SwapAbViews<sm100::ShippedNvfp4GemmSwapAbConfigs>::type;
using SwapAbCases = CasesOf<Sm100Nvfp4GemmSwapAb<0>, Views>::type;
// Split K on every call: 4 CTAs (the small-M contract's K = 512 is 2 K blocks: 2 splits; K = 256: 1), 3 CTAs
// for the full contract (K up to 512).
using SwapAbSplit4Cases = CasesOf<Sm100Nvfp4GemmSwapAb<4>, Views>::type;
using SwapAbSplit3Cases = CasesOf<Sm100Nvfp4GemmSwapAb<3>, Views>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100Nvfp4GemmSwapAb, Nvfp4GemmContract, SwapAbCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100Nvfp4GemmSwapAb, Nvfp4GemmSmallMContract, SwapAbCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100Nvfp4GemmSwapAbSplitK3, Nvfp4GemmContract, SwapAbSplit3Cases,
                               ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100Nvfp4GemmSwapAbSplitK4, Nvfp4GemmSmallMContract, SwapAbSplit4Cases,
                               ConfigNames);

namespace {

// The default's choice table (sm100/nvfp4_gemm.cuh, docs/api.md): swap AB with the smallest token tile
// holding M up to M = 64, then BlockN 64 up to M = 256, BlockN 128 above.
TEST(Sm100Nvfp4GemmSwapAbChoice, SwapAbUpToM64ThenTheTiledKernels) {
  using C = sm100::Nvfp4GemmChoice;
  const struct {
    int64_t m;
    C want;
  } table[] = {{1, C::kSwapAbTokens16},  {16, C::kSwapAbTokens16}, {17, C::kSwapAbTokens32},
               {32, C::kSwapAbTokens32}, {33, C::kSwapAbTokens64}, {64, C::kSwapAbTokens64},
               {65, C::kSmallM},         {256, C::kSmallM},        {257, C::kLargeM},
               {7168, C::kLargeM}};
  for (const auto& row : table) EXPECT_EQ(sm100::nvfp4_gemm_choice(row.m), row.want) << "M = " << row.m;
  EXPECT_EQ(sm100::kNvfp4GemmSwapAbMaxM, 64);
  // The one-sided choices of nvfp4_gemm_tiled / nvfp4_gemm_swap_ab (the benchmark's crossover sides).
  EXPECT_EQ(sm100::nvfp4_gemm_swap_ab_choice(1), C::kSwapAbTokens16);
  EXPECT_EQ(sm100::nvfp4_gemm_swap_ab_choice(32), C::kSwapAbTokens32);
  EXPECT_EQ(sm100::nvfp4_gemm_swap_ab_choice(1000), C::kSwapAbTokens64);
  EXPECT_EQ(sm100::nvfp4_gemm_tiled_choice(1), C::kSmallM);
  EXPECT_EQ(sm100::nvfp4_gemm_tiled_choice(257), C::kLargeM);
}

// The public entry point at decode M runs the swap-AB kernel it names (diagnostics) and gets the reference.
TEST(Sm100Nvfp4GemmSwapAbDefault, DecodeMRunsTheSwapAbKernel) {
  BWGEMM_REQUIRE_SM100();
  for (int64_t m : {1, 17, 40}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    const Nvfp4GemmOperands<__half> o(Nvfp4GemmProblem{m, 256, 256, 1, 0.5f, 1.0f}, Data::kRealistic,
                                      401 + static_cast<uint32_t>(m));
    bwgemm::set_diagnostics(true);
    ::testing::internal::CaptureStderr();
    const auto got = run_nvfp4_gemm_with(
        o, bwgemm::Nvfp4GemmArguments<__half>{},
        [](const bwgemm::Nvfp4GemmArguments<__half>& a) { return bwgemm::gemm_nvfp4(a); });
    const std::string said = ::testing::internal::GetCapturedStderr();
    bwgemm::set_diagnostics(false);
    const char* want = m <= 16   ? "Nvfp4GemmSwapAbTokens16"
                       : m <= 32 ? "Nvfp4GemmSwapAbTokens32"
                                 : "Nvfp4GemmSwapAbTokens64";
    EXPECT_NE(said.find(want), std::string::npos) << said;
    expect_nvfp4_gemm_matches<__half>(o, Data::kRealistic, got);
  }
}

// ---- split K (kernels/sm100/swap_ab_split_k.cuh) ---------------------------------------------------------

template <class Cfg>
std::vector<OutBits<typename Cfg::Out>> run_split(const Nvfp4GemmOperands<typename Cfg::Out>& o,
                                                  int split_k) {
  using Op = sm100::Nvfp4GemmSwapAb<Cfg>;
  return run_nvfp4_gemm_with(o, typename Op::Arguments{}, [split_k](const typename Op::Arguments& a) {
    return Op::run(a, nullptr, split_k);
  });
}

// Exact data: every split (2, 3, 4, 8 CTAs; K = 2048 is 8 K blocks) gives D bitwise equal to the reference,
// with beta (C read by the reduction), at decode M inside one token tile and across two, with a partial
// weight tile.
template <class Cfg>
void check_split_exact() {
  for (int split : {2, 3, 4, 8})
    for (int64_t m : {1, 17, 65}) {
      SCOPED_TRACE("split_k " + std::to_string(split) + ", M = " + std::to_string(m));
      const Nvfp4GemmOperands<typename Cfg::Out> o(Nvfp4GemmProblem{m, 272, 2048, 1, 0.5f, 2.0f},
                                                   Data::kExact, 600 + static_cast<uint32_t>(m + split));
      expect_nvfp4_gemm_matches<typename Cfg::Out>(o, Data::kExact, run_split<Cfg>(o, split));
    }
}
TEST(Sm100Nvfp4GemmSwapAbSplitK, ExactTierBitwiseForEverySplitT16) {
  BWGEMM_REQUIRE_SM100();
  check_split_exact<sm100::Nvfp4GemmSwapAbConfig<16, 10>>();
}
TEST(Sm100Nvfp4GemmSwapAbSplitK, ExactTierBitwiseForEverySplitT64Float) {
  BWGEMM_REQUIRE_SM100();
  check_split_exact<sm100::Nvfp4GemmSwapAbConfig<64, 8, bwgemm::sched::StaticPersistent,
                                                 bwgemm::epi::LinearCombination, float>>();
}

// Realistic data, bf16, a batch of two with alpha, beta and padded rows of C and D; D = A·Bᵀ (the identity).
TEST(Sm100Nvfp4GemmSwapAbSplitK, RealisticTierWithBatchAndPaddedRows) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::Nvfp4GemmSwapAbConfig<32, 9, bwgemm::sched::StaticPersistent,
                                           bwgemm::epi::LinearCombination, __nv_bfloat16>;
  for (int64_t m : {7, 31}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    const Nvfp4GemmOperands<__nv_bfloat16> o(Nvfp4GemmProblem{m, 144, 1024, 2, 0.75f, 1.25f, 8, 16},
                                             Data::kRealistic, 700 + static_cast<uint32_t>(m));
    expect_nvfp4_gemm_matches<__nv_bfloat16>(o, Data::kRealistic, run_split<Cfg>(o, 4));
    const Nvfp4GemmOperands<__nv_bfloat16> plain(Nvfp4GemmProblem{m, 144, 1024, 2}, Data::kRealistic,
                                                 750 + static_cast<uint32_t>(m));
    expect_nvfp4_gemm_matches<__nv_bfloat16>(plain, Data::kRealistic, run_split<Cfg>(plain, 4));
  }
}

// The entry point's split arguments: 0 (chosen) and 1 .. 8; anything else is refused before any launch.
TEST(Sm100Nvfp4GemmSwapAbSplitK, RefusesASplitOutsideZeroToEight) {
  using Op = sm100::Nvfp4GemmSwapAb<sm100::Nvfp4GemmSwapAbConfig<16, 10>>;
  alignas(16) static uint8_t buf[128 * 256 / 2 + 128 * 128 * 2];
  Op::Arguments a;
  a.m = 16, a.n = 128, a.k = 256;
  a.a = a.b = {buf, buf};
  a.d = reinterpret_cast<__half*>(buf + 128 * 256 / 2);
  ASSERT_TRUE(Op::can_implement(a).ok()) << Op::can_implement(a).to_string();
  expect_refused(Op::run(a, nullptr, 9), "split_k must be 0 (chosen) or 1 .. 8");
  expect_refused(Op::run(a, nullptr, -1), "split_k must be 0 (chosen) or 1 .. 8");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

// The default entry point splits K by itself where the weight tiles do not fill the SMs: N = 144 is 2 weight
// tiles on an emulated GPU of 8 co-resident CTAs, K = 2048 8 K blocks, so 2 CTAs per tile (at least 4 K
// blocks each); the diagnostic switch names the split, D matches the reference.
TEST(Sm100Nvfp4GemmSwapAbDefault, SplitsKWhereTheTilesDoNotFillTheSms) {
  BWGEMM_REQUIRE_SM100();
#if BWGEMM_EMULATION
  const uint32_t saved = bwgemm::emulated_launch_settings().max_resident_clusters;
  bwgemm::emulated_launch_settings().max_resident_clusters = 8;
#endif
  const Nvfp4GemmOperands<__half> o(Nvfp4GemmProblem{1, 144, 2048, 1, 1.0f, 1.0f}, Data::kRealistic, 851);
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const auto got =
      run_nvfp4_gemm_with(o, bwgemm::Nvfp4GemmArguments<__half>{},
                          [](const bwgemm::Nvfp4GemmArguments<__half>& a) { return bwgemm::gemm_nvfp4(a); });
  const std::string said = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
#if BWGEMM_EMULATION
  bwgemm::emulated_launch_settings().max_resident_clusters = saved;
  EXPECT_NE(said.find("split_k = 2 over 2 tiles"), std::string::npos) << said;
#endif
  expect_nvfp4_gemm_matches<__half>(o, Data::kRealistic, got);
}

#if BWGEMM_EMULATION
// Split K is deterministic: the same call gives the same bits on every run, whatever order the emulator
// completes the asynchronous operations of the CTAs in (random delays, several seeds); realistic data, with
// beta, split 8.
TEST(Sm100Nvfp4GemmSwapAbSplitK, SameBitsOnEveryRunUnderRandomDelays) {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  using Cfg = sm100::Nvfp4GemmSwapAbConfig<16, 10>;
  const Nvfp4GemmOperands<__half> o(Nvfp4GemmProblem{17, 144, 2048, 1, 0.75f, 0.5f}, Data::kRealistic, 801);
  settings.max_async_delay_steps = 0;
  const std::vector<uint16_t> first = run_split<Cfg>(o, 8);
  expect_nvfp4_gemm_matches<__half>(o, Data::kRealistic, first);
  for (uint64_t seed : {5u, 11u, 23u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    settings.max_async_delay_steps = 60;
    settings.seed = seed;
    EXPECT_EQ(run_split<Cfg>(o, 8), first);
  }
  settings = saved;
}

// Under random completion delays of every asynchronous operation (TMA, tcgen05.mma/cp/commit), with several
// seeds, the persistent kernel still waits for everything it reads: the exact tier stays bitwise equal.
TEST(Sm100Nvfp4GemmSwapAbEmulator, RandomAsyncDelaysKeepTheExactTier) {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  for (uint64_t seed : {3u, 17u, 29u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    settings.max_async_delay_steps = 40;
    settings.seed = seed;
    check_nvfp4_gemm<Sm100Nvfp4GemmSwapAb<1>, SwapAbView<sm100::Nvfp4GemmSwapAbConfig<16, 10>>>(
        Nvfp4GemmProblem{17, 272, 768, 1, 0.5f, 2.0f}, Data::kExact, 500 + static_cast<uint32_t>(seed));
  }
  settings = saved;
}
#endif

}  // namespace
}  // namespace bwgemm_test
