// The sm_100a small-M (swap-AB) 16-bit dual GEMM: the small-M part of the 16-bit dual contract
// (test/contract/dual_small_m_contract.hpp) on every shipped Config (kernels/sm100/dual_swap_ab_configs.cuh),
// whole K per CTA and K split between 4 CTAs; split K bitwise for every split and byte-identical across runs
// under random delays; every gated functor; the default entry points (sm100::dual_gemm and the dispatching
// bwgemm::dual_gemm) at decode M and their choice table.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/kernels/sm100/dual_swap_ab_configs.cuh"
#include "bwgemm/reference/activations.hpp"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/sm100/dual_gemm.cuh"
#include "bwgemm/sm100/dual_gemm_swap_ab.cuh"
#include "dual_gemm_contract.hpp"
#include "dual_small_m_contract.hpp"

namespace bwgemm_test {
namespace {

namespace sm100 = bwgemm::sm100;
using bf16 = __nv_bfloat16;
using f16 = __half;

struct Sm100DualSwapAb {
  template <class Cfg>
  using DualGemm = sm100::DualGemmSwapAb<Cfg>;
  template <class In, class Out>
  static bwgemm::Status dual_gemm(const bwgemm::DualGemmArguments<In, Out>& args) {
    return sm100::dual_gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

// The same with K split between SplitK CTAs of a cluster (swap_ab_split_k.cuh) on every call.
template <int SplitK>
struct Sm100DualSwapAbSplit : Sm100DualSwapAb {
  template <class Cfg>
  struct DualGemm {
    using Op = sm100::DualGemmSwapAb<Cfg>;
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return Op::can_implement(a);
    }
    template <class Args>
    static bwgemm::Status run(const Args& a) {
      return Op::run(a, nullptr, SplitK);
    }
  };
};

#if BWGEMM_EMULATION
// Two co-resident CTAs: a persistent CTA takes several tiles of the test problems.
const bool kTwoResidentClusters = [] {
  bwgemm::emulated_launch_settings().max_resident_clusters = 2;
  return true;
}();
#endif

using DualSwapAbCases = CasesOf<Sm100DualSwapAb, sm100::ShippedDualSwapAbConfigs>::type;
using DualSwapAbSplit4Cases = CasesOf<Sm100DualSwapAbSplit<4>, sm100::ShippedDualSwapAbConfigs>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100DualSwapAb, DualGemmSmallMContract, DualSwapAbCases, ConfigNames);
// Split K: K = 200 is 4 K blocks, one per CTA (the batch: K = 72, 2 blocks, so 2 CTAs; fp16: 3 of 3).
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100DualSwapAbSplitK4, DualGemmSmallMContract, DualSwapAbSplit4Cases,
                               ConfigNames);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DualGemmContract);  // test_dual_gemm_16bit.cpp's

namespace {

// The default's choice table (docs/api.md): swap AB with the smallest token tile holding M up to M = 64,
// then the tiled kernels as before.
TEST(Sm100DualGemmChoice, SwapAbUpToM64ThenTheTiledKernels) {
  using C = sm100::DualGemmChoice;
  const struct {
    int64_t m;
    C want;
  } table[] = {{1, C::kSwapAbTokens16},  {16, C::kSwapAbTokens16}, {17, C::kSwapAbTokens32},
               {32, C::kSwapAbTokens32}, {33, C::kSwapAbTokens64}, {64, C::kSwapAbTokens64},
               {65, C::kSmallM},         {256, C::kSmallM},        {257, C::kLargeM},
               {8192, C::kLargeM}};
  for (const auto& row : table) EXPECT_EQ(sm100::dual_gemm_choice(row.m), row.want) << "M = " << row.m;
  // The one-sided entry points used by the benchmark.
  EXPECT_EQ(sm100::dual_gemm_swap_ab_choice(300), C::kSwapAbTokens64);
  EXPECT_EQ(sm100::dual_gemm_tiled_choice(1), C::kSmallM);
  EXPECT_EQ(sm100::kDualGemmSwapAbMaxM, 64);
  // The shipped Configs: as many stages as fit in 227 KB (two 16 KiB weight tiles and the token tile each).
  EXPECT_EQ(sm100::DualGemmSwapAbTokens16<bf16>::kStages, 6);
  EXPECT_EQ(sm100::DualGemmSwapAbTokens32<bf16>::kStages, 6);
  EXPECT_EQ(sm100::DualGemmSwapAbTokens64<bf16>::kStages, 5);
  EXPECT_EQ(sm100::DualGemmSwapAbTokens64<bf16>::kAccColumnsPerStage, 128);  // gate + up, 64 tokens each
}

// bwgemm::dual_gemm (dispatching on the device) at decode M runs the swap-AB kernel it names (diagnostics)
// and gets the reference; the sm_100a default the same with fp16.
struct Dispatch {
  template <class In, class Out>
  static bwgemm::Status dual_gemm(const bwgemm::DualGemmArguments<In, Out>& args) {
    return bwgemm::dual_gemm(args);
  }
};
TEST(Sm100DualGemmDefault, DecodeMRunsTheSwapAbKernels) {
  BWGEMM_REQUIRE_SM100();
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  check_dual_default_entry<Dispatch, bf16, bf16>(
      {DualProblem{1, 264, 200}, DualProblem{20, 261, 136, 1, 0, 0, 264, 0.75f, 1.25f},
       DualProblem{64, 136, 72, 2}},
      41);
  check_dual_default_entry<Sm100DualSwapAb, f16, f16>({DualProblem{3, 136, 64}}, 45);
  const std::string said = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  EXPECT_NE(said.find("M=1 N=264 K=200 batch=1 -> sm100::DualGemmSwapAbTokens16"), std::string::npos) << said;
  EXPECT_NE(said.find("M=20 N=261 K=136 batch=1 -> sm100::DualGemmSwapAbTokens32"), std::string::npos)
      << said;
  EXPECT_NE(said.find("M=64 N=136 K=72 batch=2 -> sm100::DualGemmSwapAbTokens64"), std::string::npos) << said;
  EXPECT_NE(said.find("M=3 N=136 K=64 batch=1 -> sm100::DualGemmSwapAbTokens16"), std::string::npos) << said;
}

// Every shipped gated activation through the swap-AB kernel (uniform data scaled by alpha1 = alpha2 = 8, so
// that gate and up reach past gpt-oss's clamp limit of 7), against the double-precision reference of
// reference/activations.hpp on double-precision products: |d| <= 2 bf16 roundings of the result + 1e-3 ·
// the rms of the output (test_dual_gemm_16bit.cpp's bound for the tiled kernels). Split 1 and 3.
template <class Epilogue, class Ref>
void check_swap_ab_activation(const Epilogue& f, const Ref& ref, const char* what) {
  SCOPED_TRACE(what);
  using Cfg = sm100::DualGemmSwapAbTokens32<bf16>::WithEpilogue<Epilogue>;
  const DualProblem pb{20, 136, 256, 1, 0, 0, 0, 8.0f, 8.0f};
  const DualOperands<bf16, bf16> o(pb, Data::kRealistic, 93);
  std::vector<double> want(static_cast<size_t>(pb.m * pb.n));
  double sq = 0.0;
  int64_t beyond_limit = 0;
  for (int64_t i = 0; i < pb.m; ++i)
    for (int64_t j = 0; j < pb.n; ++j) {
      double g = 0.0, u = 0.0;
      for (int64_t kk = 0; kk < pb.k; ++kk) {
        const double x = bwgemm::ref::to_float(o.a[i * o.lda + kk]);
        g += x * bwgemm::ref::to_float(o.b1[j * o.ldb + kk]);
        u += x * bwgemm::ref::to_float(o.b2[j * o.ldb + kk]);
      }
      beyond_limit += std::fabs(pb.alpha1 * g) > 7.0 || std::fabs(pb.alpha2 * u) > 7.0;
      want[i * pb.n + j] = ref(pb.alpha1 * g, pb.alpha2 * u);
      sq += want[i * pb.n + j] * want[i * pb.n + j];
    }
  EXPECT_GT(beyond_limit, pb.m * pb.n / 50) << "the data should reach past the clamp limit";
  const double rms = std::sqrt(sq / static_cast<double>(want.size()));
  DeviceBytes a(o.a.size() * 2), b1(o.b1.size() * 2), b2(o.b2.size() * 2);
  a.upload(o.a.data(), a.size());
  b1.upload(o.b1.data(), b1.size());
  b2.upload(o.b2.data(), b2.size());
  for (int split : {1, 3}) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    DeviceBytes c(o.c_elements() * 2);
    c.fill(kDualPoisonByte);
    bwgemm::DualGemmArguments<bf16, bf16, Epilogue> args;
    args.m = pb.m, args.n = pb.n, args.k = pb.k;
    args.a = reinterpret_cast<const bf16*>(a.data());
    args.b1 = reinterpret_cast<const bf16*>(b1.data());
    args.b2 = reinterpret_cast<const bf16*>(b2.data());
    args.c = reinterpret_cast<bf16*>(c.data());
    args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
    args.epilogue = f;
    const bwgemm::Status s = sm100::DualGemmSwapAb<Cfg>::run(args, nullptr, split);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    const std::vector<bf16> got = download_as<bf16>(c);
    int64_t bad = 0;
    for (int64_t i = 0; i < pb.m; ++i)
      for (int64_t j = 0; j < pb.n; ++j) {
        const double w = want[i * pb.n + j], g = bwgemm::ref::to_float(got[i * o.ldc + j]);
        if (!(std::fabs(g - w) <= 2.0 * 0.00390625 * std::fabs(w) + 1e-3 * rms) && ++bad <= 5)
          ADD_FAILURE() << "row " << i << " col " << j << ": got " << g << ", want " << w;
      }
    EXPECT_EQ(bad, 0);
  }
}

TEST(Sm100DualSwapAbActivations, EveryShippedFunctorMatchesItsReference) {
  BWGEMM_REQUIRE_SM100();
  namespace epi = bwgemm::epi;
  namespace ref = bwgemm::ref;
  check_swap_ab_activation(epi::SiluMul{}, ref::silu_mul, "SiluMul");
  check_swap_ab_activation(
      epi::SiluMulClamped{}, [](double g, double u) { return ref::silu_mul_clamped(g, u, 7.0, 1.702); },
      "SiluMulClamped (gpt-oss)");
  check_swap_ab_activation(epi::GeluTanhMul{}, ref::gelu_tanh_mul, "GeluTanhMul");
  check_swap_ab_activation(epi::GeluErfMul{}, ref::gelu_erf_mul, "GeluErfMul");
  check_swap_ab_activation(epi::ReluSquaredMul{}, ref::relu2_mul, "ReluSquaredMul");
  check_swap_ab_activation(epi::Multiply{}, ref::multiply, "Multiply");
}

// ---- split K (kernels/sm100/swap_ab_split_k.cuh) ---------------------------------------------------------

// One call of Cfg with an explicit split of K on operands already on the device; C downloaded.
template <class Cfg, class In>
std::vector<typename Cfg::Out> run_dual_split(const DualOperands<In, typename Cfg::Out>& o,
                                              const DeviceBytes& a, const DeviceBytes& b1,
                                              const DeviceBytes& b2, int split_k) {
  using Out = typename Cfg::Out;
  const DualProblem& pb = o.pb;
  DeviceBytes c(static_cast<size_t>(o.c_elements()) * sizeof(Out));
  c.fill(kDualPoisonByte);
  typename sm100::DualGemmSwapAb<Cfg>::template Arguments<In> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = reinterpret_cast<const In*>(a.data());
  args.b1 = reinterpret_cast<const In*>(b1.data());
  args.b2 = reinterpret_cast<const In*>(b2.data());
  args.c = reinterpret_cast<Out*>(c.data());
  args.lda = pb.lda, args.ldb = pb.ldb, args.ldc = pb.ldc;
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  const bwgemm::Status s = sm100::DualGemmSwapAb<Cfg>::run(args, nullptr, split_k);
  EXPECT_TRUE(s.ok()) << s.to_string();
  synchronize();
  return download_as<Out>(c);
}

template <class In>
struct DeviceDualOperands {
  DeviceBytes a, b1, b2;
  template <class O>
  explicit DeviceDualOperands(const O& o)
      : a(o.a.size() * sizeof(In)), b1(o.b1.size() * sizeof(In)), b2(o.b2.size() * sizeof(In)) {
    a.upload(o.a.data(), a.size());
    b1.upload(o.b1.data(), b1.size());
    b2.upload(o.b2.data(), b2.size());
  }
};

// Exact data: every split (2, 3, 4, 8 CTAs; K = 512 is 8 K blocks) gives C bitwise equal to the reference,
// at decode M inside one token tile and across two, with a partial weight tile whose last quad crosses N.
template <class Cfg>
void check_dual_split_exact() {
  using Exact = typename Cfg::template WithEpilogue<bwgemm::epi::Multiply>;
  using Out = typename Cfg::Out;
  for (int64_t m : {1, 17, 65}) {
    const DualOperands<bf16, Out> o(DualProblem{m, 261, 512, 1, 0, 0, 264, 0.5f, 2.0f}, Data::kExact,
                                    600 + static_cast<uint32_t>(m));
    const DeviceDualOperands<bf16> d(o);
    for (int split : {2, 3, 4, 8}) {
      SCOPED_TRACE("split_k " + std::to_string(split) + ", M = " + std::to_string(m));
      expect_dual_matches(o, Data::kExact, run_dual_split<Exact>(o, d.a, d.b1, d.b2, split));
    }
  }
}
TEST(Sm100DualSwapAbSplitK, ExactTierBitwiseForEverySplitT16) {
  BWGEMM_REQUIRE_SM100();
  check_dual_split_exact<sm100::DualSwapAbConfig<16, 6>>();
}
TEST(Sm100DualSwapAbSplitK, ExactTierBitwiseForEverySplitT64) {
  BWGEMM_REQUIRE_SM100();
  check_dual_split_exact<sm100::DualSwapAbConfig<64, 5>>();
}

// The entry point's split arguments: 0 (chosen) and 1 .. 8; anything else is refused before any launch.
TEST(Sm100DualSwapAbSplitK, RefusesASplitOutsideZeroToEight) {
  using Op = sm100::DualGemmSwapAb<sm100::DualSwapAbConfig<16, 6>>;
  alignas(16) static uint8_t buf[64 * 64 * 2 * 2];
  Op::Arguments<bf16> a;
  a.m = 16, a.n = 64, a.k = 64;
  a.a = a.b1 = a.b2 = reinterpret_cast<const bf16*>(buf);
  a.c = reinterpret_cast<__half*>(buf + 64 * 64 * 2);
  expect_refused(Op::run(a, nullptr, 9), "split_k must be 0 (chosen) or 1 .. 8");
  expect_refused(Op::run(a, nullptr, -1), "split_k must be 0 (chosen) or 1 .. 8");
  a.b2 = nullptr;
  expect_refused(Op::run(a, nullptr, 0), "B2 is null");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

// The default entry point splits K by itself where the weight tiles do not fill the SMs: N = 144 is 2 weight
// tiles on an emulated GPU of 8 co-resident CTAs, K = 512 8 K blocks, so 2 CTAs per tile (at least 4 K blocks
// each); the diagnostic switch names the split, C matches the reference.
TEST(Sm100DualGemmDefault, SplitsKWhereTheTilesDoNotFillTheSms) {
  BWGEMM_REQUIRE_SM100();
#if BWGEMM_EMULATION
  const uint32_t saved = bwgemm::emulated_launch_settings().max_resident_clusters;
  bwgemm::emulated_launch_settings().max_resident_clusters = 8;
#endif
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  check_dual_default_entry<Sm100DualSwapAb, bf16, bf16>({DualProblem{1, 144, 512}}, 851);
  const std::string said = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
#if BWGEMM_EMULATION
  bwgemm::emulated_launch_settings().max_resident_clusters = saved;
  EXPECT_NE(said.find("split_k = 2 over 2 tiles"), std::string::npos) << said;
#endif
}

#if BWGEMM_EMULATION
// Under random completion delays of every asynchronous operation (TMA, tcgen05.mma/commit), with several
// seeds, the kernel still waits for everything it reads: the exact tier stays bitwise equal (two tiles per
// persistent CTA, a partial last weight tile and tokens past M).
TEST(Sm100DualSwapAbEmulator, RandomAsyncDelaysKeepTheExactTier) {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  for (uint64_t seed : {3u, 17u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    settings.max_async_delay_steps = 40;
    settings.seed = seed;
    check_dual_config<Sm100DualSwapAb, sm100::DualSwapAbConfig<16, 6>, bf16>(
        DualProblem{17, 261, 384, 1, 0, 0, 264, 0.5f, 2.0f}, Data::kExact, 500 + static_cast<uint32_t>(seed));
  }
  settings = saved;
}

// Split K is deterministic: the same call gives the same bytes on every run, whatever order the emulator
// completes the asynchronous operations of the CTAs in (random delays, several seeds).
TEST(Sm100DualSwapAbSplitK, SameBytesOnEveryRunUnderRandomDelays) {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  using Cfg = sm100::DualSwapAbConfig<16, 6, bwgemm::sched::StaticPersistent, bwgemm::epi::SiluMul, bf16>;
  const DualOperands<bf16, bf16> o(DualProblem{9, 140, 1024, 1, 0, 0, 144, 0.75f, 1.25f}, Data::kRealistic,
                                   801);
  const DeviceDualOperands<bf16> d(o);
  settings.max_async_delay_steps = 0;
  const std::vector<bf16> first = run_dual_split<Cfg>(o, d.a, d.b1, d.b2, 8);
  expect_dual_matches(o, Data::kRealistic, first);
  for (uint64_t seed : {5u, 11u, 23u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    settings.max_async_delay_steps = 60;
    settings.seed = seed;
    const std::vector<bf16> again = run_dual_split<Cfg>(o, d.a, d.b1, d.b2, 8);
    ASSERT_EQ(again.size(), first.size());
    EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(bf16)), 0);
  }
  settings = saved;
}
#endif

}  // namespace
}  // namespace bwgemm_test
