// The 16-bit dual GEMM contract (test/contract/dual_gemm_contract.hpp, the one the sm_90a kernels pass in
// test/sm90/test_dual_gemm_sm90.cu) on the sm_100a kernels: every shipped Config
// (kernels/sm100/dual_gemm_configs.cuh), plus tail rows M = 1, 7, 100, 255, 300 and a batch, every shipped
// gated functor against its double-precision reference, the default entry points (sm100::dual_gemm and the
// dispatching bwgemm::dual_gemm) and the choice table.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_configs.cuh"
#include "bwgemm/reference/activations.hpp"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/sm100/dual_gemm.cuh"
#include "dual_gemm_contract.hpp"

namespace bwgemm_test {
namespace {

namespace sm100 = bwgemm::sm100;
using bf16 = __nv_bfloat16;
using f16 = __half;

struct Sm100 {
  template <class Cfg>
  using DualGemm = sm100::DualGemm<Cfg>;
  template <class In, class Out>
  static bwgemm::Status dual_gemm(const bwgemm::DualGemmArguments<In, Out>& args) {
    return sm100::dual_gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

using Sm100DualGemmCases = CasesOf<Sm100, sm100::ShippedDualGemmConfigs>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100, DualGemmContract, Sm100DualGemmCases, ConfigNames);

namespace {

// Rows past one and two cluster tiles (M = 1, 7, 100, 255, 300: one row, a partial warp, a partial CTA, one
// short of a CTA pair, a second pair tile) with N and K tails, in the exact tier (bitwise); then a batch of
// two with a tail in every dimension.
template <class C>
class Sm100DualGemmTails : public ::testing::Test {};
TYPED_TEST_SUITE(Sm100DualGemmTails, Sm100DualGemmCases, ConfigNames);

TYPED_TEST(Sm100DualGemmTails, TailRowsAndBatchAreBitwiseExact) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  for (int64_t m : {1, 7, 100, 255, 300}) {
    const DualProblem pb{m, 136, 200, 1, 0, 0, 0, 0.5f, 2.0f};
    check_dual_config<Sm100, Cfg, bf16>(pb, Data::kExact, 20 + static_cast<uint32_t>(m));
  }
  check_dual_config<Sm100, Cfg, f16>(DualProblem{100, 72, 88, 2}, Data::kExact, 31);
}

// Every shipped gated activation through the sm_100a dual kernel (uniform data scaled by alpha1 = alpha2 = 8,
// so that gate and up reach past gpt-oss's clamp limit of 7), against the double-precision reference of
// reference/activations.hpp applied to double-precision products: |d| <= 2 bf16 roundings of the result
// + 1e-3 · the rms of the output (the sm_90a suite's bound, Sm90DualGemmActivations).
template <class Epilogue, class Ref>
void check_sm100_activation(const Epilogue& f, const Ref& ref, const char* what) {
  SCOPED_TRACE(what);
  using Cfg = sm100::DualGemmSmallM<bf16>::WithEpilogue<Epilogue>;
  const DualProblem pb{128, 256, 256, 1, 0, 0, 0, 8.0f, 8.0f};
  const DualOperands<bf16, bf16> o(pb, Data::kRealistic, 91);
  DeviceBytes a(o.a.size() * 2), b1(o.b1.size() * 2), b2(o.b2.size() * 2), c(o.c_elements() * 2);
  a.upload(o.a.data(), a.size());
  b1.upload(o.b1.data(), b1.size());
  b2.upload(o.b2.data(), b2.size());
  c.fill(kDualPoisonByte);
  bwgemm::DualGemmArguments<bf16, bf16, Epilogue> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = reinterpret_cast<const bf16*>(a.data());
  args.b1 = reinterpret_cast<const bf16*>(b1.data());
  args.b2 = reinterpret_cast<const bf16*>(b2.data());
  args.c = reinterpret_cast<bf16*>(c.data());
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  args.epilogue = f;
  const bwgemm::Status s = sm100::DualGemm<Cfg>::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  const std::vector<bf16> got = download_as<bf16>(c);
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
  const double rms = std::sqrt(sq / static_cast<double>(want.size()));
  int64_t bad = 0;
  for (int64_t i = 0; i < pb.m; ++i)
    for (int64_t j = 0; j < pb.n; ++j) {
      const double w = want[i * pb.n + j], g = bwgemm::ref::to_float(got[i * o.ldc + j]);
      if (std::fabs(g - w) > 2.0 * 0.00390625 * std::fabs(w) + 1e-3 * rms && ++bad <= 5)
        ADD_FAILURE() << "row " << i << " col " << j << ": got " << g << ", want " << w;
    }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(beyond_limit, pb.m * pb.n / 50) << "the data should reach past the clamp limit";
}

TEST(Sm100DualGemmActivations, EveryShippedFunctorMatchesItsReference) {
  BWGEMM_REQUIRE_SM100();
  namespace epi = bwgemm::epi;
  namespace ref = bwgemm::ref;
  check_sm100_activation(epi::SiluMul{}, ref::silu_mul, "SiluMul");
  check_sm100_activation(
      epi::SiluMulClamped{}, [](double g, double u) { return ref::silu_mul_clamped(g, u, 7.0, 1.702); },
      "SiluMulClamped (gpt-oss)");
  check_sm100_activation(epi::GeluTanhMul{}, ref::gelu_tanh_mul, "GeluTanhMul");
  check_sm100_activation(epi::GeluErfMul{}, ref::gelu_erf_mul, "GeluErfMul");
  check_sm100_activation(epi::ReluSquaredMul{}, ref::relu2_mul, "ReluSquaredMul");
  check_sm100_activation(epi::Multiply{}, ref::multiply, "Multiply");
}

// The sm_100a default entry point on realistic problems, one each side of its M bound, both input types.
TEST(Sm100DualGemmDefault, RealisticShapes) {
  BWGEMM_REQUIRE_SM100();
  check_dual_default_entry<Sm100, bf16, bf16>(
      {DualProblem{200, 384, 512}, DualProblem{300, 264, 320, 1, 0, 0, 0, 0.75f, 1.25f}}, 7);
  check_dual_default_entry<Sm100, f16, f16>({DualProblem{64, 128, 192}}, 9);
}

// The dispatching bwgemm::dual_gemm on a compute-capability-10.0 device (a B200, or the emulator) runs the
// sm_100a kernels.
struct Dispatch {
  template <class In, class Out>
  static bwgemm::Status dual_gemm(const bwgemm::DualGemmArguments<In, Out>& args) {
    return bwgemm::dual_gemm(args);
  }
};
TEST(Sm100DualGemmDefault, PublicEntryPointRunsOnComputeCapability100) {
  BWGEMM_REQUIRE_SM100();
  check_dual_default_entry<Dispatch, bf16, f16>({DualProblem{130, 200, 136, 2}}, 12);
}

// The default entry point's choice (host logic: runs without a GPU), from the rule in sm100/dual_gemm.cuh.
TEST(Sm100DualGemmChoice, ByRows) {
  using sm100::DualGemmChoice;
  EXPECT_EQ(sm100::dual_gemm_choice(1), DualGemmChoice::kSwapAbTokens16);  // M <= 64: test_dual_swap_ab.cpp
  EXPECT_EQ(sm100::dual_gemm_choice(65), DualGemmChoice::kSmallM);
  EXPECT_EQ(sm100::dual_gemm_choice(256), DualGemmChoice::kSmallM);
  EXPECT_EQ(sm100::dual_gemm_choice(257), DualGemmChoice::kLargeM);
  EXPECT_EQ(sm100::dual_gemm_choice(8192), DualGemmChoice::kLargeM);
  // The shipped Configs' shapes: BlockN 64 and 128 over CTA pairs (M = 256), as many stages as fit.
  EXPECT_EQ(sm100::DualGemmSmallM<bf16>::kClusterBlockM, 256);
  EXPECT_EQ(sm100::DualGemmSmallM<bf16>::kStages, 9);     // 24 KB stages (16 KB A + 2 x 4 KB B)
  EXPECT_EQ(sm100::DualGemmLargeM<bf16>::kStages, 7);     // 32 KB stages (16 KB A + 2 x 8 KB B)
  EXPECT_EQ(sm100::DualGemmLargeM<bf16>::kAccStages, 2);  // 2 x 256 accumulator columns
}

}  // namespace
}  // namespace bwgemm_test
