// The sm_100a small-M (swap-AB) kernels: the NVFP4 dual GEMM contract
// (test/contract/nvfp4_dual_gemm_contract.hpp) and its small-M part (nvfp4_dual_small_m_contract.hpp) on
// every shipped NVFP4 swap-AB Config (kernels/sm100/nvfp4_dual_swap_ab_configs.cuh); the GEMM contract
// (gemm_contract.hpp: GemmContract, GemmOutputContract) and its small-M part (gemm_small_m_contract.hpp) on
// every shipped 16-bit swap-AB Config (gemm_swap_ab_configs.cuh); the default entry points' choice tables,
// and the default entry points at decode M.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <cstring>
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

// The same with K split between SplitK CTAs of a cluster (swap_ab_split_k.cuh) on every call.
template <int SplitK>
struct Sm100GemmSwapAbSplit : Sm100GemmSwapAb {
  template <class View>
  struct Gemm {
    using Op = bwgemm::sm100::GemmSwapAb<typename View::Kernel>;
    template <class In>
    static bwgemm::Status can_implement(const typename Op::template Arguments<In>& a) {
      return Op::can_implement(a);
    }
    template <class In>
    static bwgemm::Status run(const typename Op::template Arguments<In>& a) {
      return Op::run(a, nullptr, SplitK);
    }
  };
};

using SwapAbGemmCases =
    CasesOf<Sm100GemmSwapAb, GemmSwapAbViews<bwgemm::sm100::ShippedGemmSwapAbConfigs>::type>::type;
using SwapAbGemmSplit4Cases =
    CasesOf<Sm100GemmSwapAbSplit<4>, GemmSwapAbViews<bwgemm::sm100::ShippedGemmSwapAbConfigs>::type>::type;
using SwapAbGemmOutputSplit3Cases =
    CasesOf<Sm100GemmSwapAbSplit<3>,
            GemmSwapAbViews<bwgemm::sm100::ShippedGemmSwapAbOutputVariants>::type>::type;
using SwapAbGemmOutputCases =
    CasesOf<Sm100GemmSwapAb, GemmSwapAbViews<bwgemm::sm100::ShippedGemmSwapAbOutputVariants>::type>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, Nvfp4DualGemmContract, SwapAbDualCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, Nvfp4DualGemmSmallMContract, SwapAbDualCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, GemmContract, SwapAbGemmCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, GemmOutputContract, SwapAbGemmOutputCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAb, GemmSmallMContract, SwapAbGemmCases, ConfigNames);
// Split K: the small-M contract (K = 200: 4 K blocks, one per CTA) and the output types with beta (3 CTAs).
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAbSplitK4, GemmSmallMContract, SwapAbGemmSplit4Cases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100SwapAbSplitK3, GemmOutputContract, SwapAbGemmOutputSplit3Cases,
                               ConfigNames);
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
  } table[] = {{1, C::kSwapAbTokens16},  {16, C::kSwapAbTokens16}, {17, C::kSwapAbTokens32},
               {32, C::kSwapAbTokens32}, {33, C::kSwapAbTokens64}, {64, C::kSwapAbTokens64},
               {65, C::kSmallM},         {256, C::kSmallM},        {257, C::kLargeM},
               {8192, C::kLargeM}};
  for (const auto& row : table) EXPECT_EQ(sm100::nvfp4_dual_choice(row.m), row.want) << "M = " << row.m;
  // The one-sided entry points used by the benchmark.
  EXPECT_EQ(sm100::nvfp4_dual_swap_ab_choice(300), C::kSwapAbTokens64);
  EXPECT_EQ(sm100::nvfp4_dual_tiled_choice(1), C::kSmallM);
  EXPECT_EQ(sm100::kNvfp4DualSwapAbMaxM, 64);
}

// The GEMM default's choice table (docs/api.md): swap AB up to M = 64, then the tiled kernels as before.
TEST(Sm100GemmChoice, SwapAbUpToM64ThenTheTiledKernels) {
  using C = sm100::GemmChoice;
  const struct {
    int64_t m;
    C want;
  } table[] = {{1, C::kSwapAbTokens16},  {16, C::kSwapAbTokens16}, {17, C::kSwapAbTokens32},
               {32, C::kSwapAbTokens32}, {33, C::kSwapAbTokens64}, {64, C::kSwapAbTokens64},
               {65, C::kSmallM},         {128, C::kSmallM},        {129, C::kMediumM},
               {512, C::kMediumM},       {513, C::kLargeM}};
  for (const auto& row : table) EXPECT_EQ(sm100::gemm_choice(row.m), row.want) << "M = " << row.m;
  EXPECT_EQ(sm100::gemm_swap_ab_choice(1000), C::kSwapAbTokens64);
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
  EXPECT_NE(said.find("M=1 N=264 K=64 batch=1 -> sm100::GemmSwapAbTokens16"), std::string::npos) << said;
  EXPECT_NE(said.find("M=20 N=264 K=64 batch=1 -> sm100::GemmSwapAbTokens32"), std::string::npos) << said;
  EXPECT_NE(said.find("M=64 N=264 K=64 batch=1 -> sm100::GemmSwapAbTokens64"), std::string::npos) << said;
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
    const char* want = m <= 16   ? "Nvfp4DualGemmSwapAbTokens16"
                       : m <= 32 ? "Nvfp4DualGemmSwapAbTokens32"
                                 : "Nvfp4DualGemmSwapAbTokens64";
    EXPECT_NE(said.find(want), std::string::npos) << said;
    expect_nvfp4_dual_matches<__half>(o, Data::kRealistic, download_as<uint16_t>(c));
  }
}

// ---- split K (kernels/sm100/swap_ab_split_k.cuh) ---------------------------------------------------------

// run_nvfp4_dual (nvfp4_dual_gemm_contract.hpp) with an explicit split of K.
template <class Cfg>
std::vector<uint16_t> run_nvfp4_dual_split(const Nvfp4DualOperands& o, int split_k) {
  const Nvfp4DualProblem& pb = o.pb;
  DeviceNvfp4 a(o.a), b1(o.b1), b2(o.b2);
  DeviceBytes c(static_cast<size_t>(pb.batch * pb.m * pb.ldc() * 2));
  c.fill(kDualFillByte);
  typename sm100::Nvfp4DualGemmSwapAb<Cfg>::Arguments args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
  args.c = reinterpret_cast<typename Cfg::Out*>(c.data());
  args.ldc = pb.ldc();
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  const bwgemm::Status s = sm100::Nvfp4DualGemmSwapAb<Cfg>::run(args, nullptr, split_k);
  EXPECT_TRUE(s.ok()) << s.to_string();
  synchronize();
  return download_as<uint16_t>(c);
}

// Exact data: every split (2, 3, 4, 8 CTAs; K = 2048 is 8 K blocks) gives C bitwise equal to the reference,
// at decode M inside one token tile and across two, with a partial weight tile.
template <class Cfg>
void check_dual_split_exact() {
  using Exact = typename Cfg::template WithEpilogue<bwgemm::epi::Multiply>;
  for (int split : {2, 3, 4, 8})
    for (int64_t m : {1, 17, 65}) {
      SCOPED_TRACE("split_k " + std::to_string(split) + ", M = " + std::to_string(m));
      const Nvfp4DualOperands o(Nvfp4DualProblem{m, 272, 2048, 1, 0.5f, 2.0f}, Data::kExact,
                                600 + static_cast<uint32_t>(m + split));
      expect_nvfp4_dual_matches<typename Cfg::Out>(o, Data::kExact, run_nvfp4_dual_split<Exact>(o, split));
    }
}
TEST(Sm100Nvfp4DualSwapAbSplitK, ExactTierBitwiseForEverySplitT16) {
  BWGEMM_REQUIRE_SM100();
  check_dual_split_exact<sm100::Nvfp4DualSwapAbConfig<16, 5>>();
}
TEST(Sm100Nvfp4DualSwapAbSplitK, ExactTierBitwiseForEverySplitT64) {
  BWGEMM_REQUIRE_SM100();
  check_dual_split_exact<sm100::Nvfp4DualSwapAbConfig<64, 4>>();
}

// Realistic data (SiLU, the field's tolerance), a batch of two with padded rows of C.
TEST(Sm100Nvfp4DualSwapAbSplitK, RealisticTierWithBatchAndPaddedRows) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::Nvfp4DualSwapAbConfig<32, 5, bwgemm::sched::StaticPersistent, bwgemm::epi::SiluMul,
                                           __nv_bfloat16>;
  for (int64_t m : {7, 31}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    const Nvfp4DualOperands o(Nvfp4DualProblem{m, 144, 1024, 2, 0.75f, 1.25f, 8}, Data::kRealistic,
                              700 + static_cast<uint32_t>(m));
    expect_nvfp4_dual_matches<__nv_bfloat16>(o, Data::kRealistic, run_nvfp4_dual_split<Cfg>(o, 4));
  }
}

// The entry point's split arguments: 0 (chosen) and 1 .. 8; anything else is refused before any launch.
TEST(Sm100Nvfp4DualSwapAbSplitK, RefusesASplitOutsideZeroToEight) {
  using Op = sm100::Nvfp4DualGemmSwapAb<sm100::Nvfp4DualSwapAbConfig<16, 5>>;
  alignas(16) static uint8_t buf[128 * 256 / 2 + 128 * 128 * 2];
  Op::Arguments a;
  a.m = 16, a.n = 128, a.k = 256;
  a.a = a.b1 = a.b2 = {buf, buf};
  a.c = reinterpret_cast<__half*>(buf + 128 * 256 / 2);
  expect_refused(Op::run(a, nullptr, 9), "split_k must be 0 (chosen) or 1 .. 8");
  expect_refused(Op::run(a, nullptr, -1), "split_k must be 0 (chosen) or 1 .. 8");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

// The default entry point splits K by itself where the weight tiles do not fill the SMs: N = 144 is 2 weight
// tiles on an emulated GPU of 8 co-resident CTAs, K = 2048 8 K blocks, so 2 CTAs per tile (at least 4 K
// blocks each); the diagnostic switch names the split, C matches the reference.
TEST(Sm100Nvfp4DualDefault, SplitsKWhereTheTilesDoNotFillTheSms) {
  BWGEMM_REQUIRE_SM100();
#if BWGEMM_EMULATION
  const uint32_t saved = bwgemm::emulated_launch_settings().max_resident_clusters;
  bwgemm::emulated_launch_settings().max_resident_clusters = 8;
#endif
  const Nvfp4DualProblem pb{1, 144, 2048};
  const Nvfp4DualOperands o(pb, Data::kRealistic, 851);
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
#if BWGEMM_EMULATION
  bwgemm::emulated_launch_settings().max_resident_clusters = saved;
  EXPECT_NE(said.find("split_k = 2 over 2 tiles"), std::string::npos) << said;
#endif
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  expect_nvfp4_dual_matches<__half>(o, Data::kRealistic, download_as<uint16_t>(c));
}

// How K is split and which split the entry points choose (host arithmetic; the rule is a guess, not
// measured: kernels/sm100/swap_ab_split_k.cuh).
TEST(Sm100SwapAbSplitK, SplitsAreNonEmptyAndTheChoiceFillsTheSms) {
  EXPECT_EQ(sm100::swap_ab_split_plan(8, 4).splits, 4);
  EXPECT_EQ(sm100::swap_ab_split_plan(8, 4).k_blocks_per_split, 2);
  EXPECT_EQ(sm100::swap_ab_split_plan(5, 4).splits, 3);  // 2 + 2 + 1: no empty fourth split
  EXPECT_EQ(sm100::swap_ab_split_plan(5, 4).k_blocks_per_split, 2);
  EXPECT_EQ(sm100::swap_ab_split_plan(1, 8).splits, 1);
  // N = 4096 (32 weight tiles) on 148 SMs with K = 4096 (16 NVFP4 K blocks): 4 CTAs per tile (128 CTAs).
  EXPECT_EQ(sm100::choose_swap_ab_split_k(32, 148, 16), 4);
  EXPECT_EQ(sm100::choose_swap_ab_split_k(32, 148, 8), 2);    // at least 4 K blocks per split
  EXPECT_EQ(sm100::choose_swap_ab_split_k(112, 148, 64), 1);  // N = 14336: the tiles fill the SMs
  EXPECT_EQ(sm100::choose_swap_ab_split_k(8, 148, 1024), 8);  // at most 8 CTAs per cluster
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

// Split K is deterministic: the same call gives the same bits on every run, whatever order the emulator
// completes the asynchronous operations of the CTAs in (random delays, several seeds).
TEST(Sm100Nvfp4DualSwapAbSplitK, SameBitsOnEveryRunUnderRandomDelays) {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  using Cfg = sm100::Nvfp4DualSwapAbConfig<16, 5>;
  const Nvfp4DualOperands o(Nvfp4DualProblem{17, 144, 2048}, Data::kRealistic, 801);
  const std::vector<uint16_t> first = run_nvfp4_dual_split<Cfg>(o, 8);
  expect_nvfp4_dual_matches<__half>(o, Data::kRealistic, first);
  for (uint64_t seed : {5u, 11u, 23u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    settings.max_async_delay_steps = 60;
    settings.seed = seed;
    EXPECT_EQ(run_nvfp4_dual_split<Cfg>(o, 8), first);
  }
  settings = saved;
}

// The GEMM's split is deterministic too: realistic data, split 8, the same bits with and without random
// delays (several seeds), both B layouts.
TEST(Sm100GemmSwapAbSplitK, SameBitsOnEveryRunUnderRandomDelays) {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  using Cfg = sm100::GemmSwapAbConfig<16, 10>;
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
    const GemmProblem pb{9, 136, 1024, 1, layout};
    const GemmOperands<__half, __half> o(pb, Data::kRealistic, 811);
    DeviceBytes a(o.a.size() * 2), b(o.b.size() * 2);
    a.upload(o.a.data(), a.size());
    b.upload(o.b.data(), b.size());
    const auto run = [&] {
      DeviceBytes d(static_cast<size_t>(o.d_elements()) * 2);
      d.fill(kGemmFillByte);
      bwgemm::GemmArguments<__half, __half> args;
      args.m = pb.m, args.n = pb.n, args.k = pb.k, args.b_layout = layout;
      args.a = reinterpret_cast<const __half*>(a.data()), args.lda = o.lda;
      args.b = reinterpret_cast<const __half*>(b.data()), args.ldb = o.ldb;
      args.d = reinterpret_cast<__half*>(d.data()), args.ldd = o.ldd;
      const bwgemm::Status s = sm100::GemmSwapAb<Cfg>::run(args, nullptr, 8);
      EXPECT_TRUE(s.ok()) << s.to_string();
      synchronize();
      return download_as<__half>(d);
    };
    settings.max_async_delay_steps = 0;
    const std::vector<__half> first = run();
    expect_gemm_matches(o, Data::kRealistic, first);
    for (uint64_t seed : {7u, 13u}) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      settings.max_async_delay_steps = 60;
      settings.seed = seed;
      const std::vector<__half> again = run();
      ASSERT_EQ(again.size(), first.size());
      EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(__half)), 0);
    }
  }
  settings = saved;
}
#endif

}  // namespace
}  // namespace bwgemm_test
