// The GEMM contract (test/contract/gemm_contract.hpp) on the sm_100a kernels: every shipped Config
// (kernels/sm100/gemm_configs.cuh) and every output variant of the default entry point's kernels, plus a
// user functor and the default entry point's choice.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <string>

#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/gemm_configs.cuh"
#include "bwgemm/sm100/gemm.cuh"
#include "gemm_contract.hpp"

namespace bwgemm_test {
namespace {

struct Sm100 {
  template <class Cfg>
  using Gemm = bwgemm::sm100::Gemm<Cfg>;
  // The public dispatch: on a compute-capability-10.0 device (the emulator is one) it runs sm100::gemm.
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return bwgemm::gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

#if BWGEMM_EMULATION
// Two co-resident clusters: persistent and CLC clusters take several tiles of the small test problems.
const bool kTwoResidentClusters = [] {
  bwgemm::emulated_launch_settings().max_resident_clusters = 2;
  return true;
}();
#endif

using Sm100GemmCases = CasesOf<Sm100, bwgemm::sm100::ShippedGemmConfigs>::type;
using Sm100GemmOutputCases = CasesOf<Sm100, bwgemm::sm100::ShippedGemmOutputVariants>::type;
using Sm100GemmDefaultCases =
    CasesOf<Sm100,
            Configs<bwgemm::sm100::GemmLargeM<__nv_bfloat16>, bwgemm::sm100::GemmMediumM<__nv_bfloat16>,
                    bwgemm::sm100::GemmSmallM<__nv_bfloat16>>>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100, GemmContract, Sm100GemmCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100, GemmOutputContract, Sm100GemmOutputCases, ConfigNames);
#if !BWGEMM_EMULATION
INSTANTIATE_TYPED_TEST_SUITE_P(Sm100, GemmManyTilesContract, Sm100GemmDefaultCases, ConfigNames);
#else
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmManyTilesContract);  // native backends only
#endif

namespace {

TEST(Sm100GemmExtending, UserEpilogueFunctor) {
  BWGEMM_REQUIRE_SM100();
  check_user_epilogue<Sm100, bwgemm::sm100::GemmConfig<64, 0, 1, bwgemm::sched::StaticPersistent>>();
}

// M = 100, 384, 640 select the three tiled kernels of sm100::gemm (GemmSmallM, GemmMediumM, GemmLargeM); M <=
// 64 the swap-AB ones (test_swap_ab.cpp).
TEST(Sm100GemmDefault, EachKernelOfTheChoice) {
  BWGEMM_REQUIRE_SM100();
  check_default_entry<Sm100, __half, __half>(
      {GemmProblem{100, 264, 64}, GemmProblem{384, 264, 64}, GemmProblem{640, 264, 64}});
}

// The diagnostic switch (base/diagnostics.hpp): on, the default entry point names the Config it chose for
// each call on stderr; off, it prints nothing. (The kernels' results are checked as above.)
TEST(Sm100GemmDefault, DiagnosticsNameTheChosenKernel) {
  BWGEMM_REQUIRE_SM100();
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  check_default_entry<Sm100, __half, __half>({GemmProblem{100, 264, 64}, GemmProblem{640, 264, 64}});
  const std::string on = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  ::testing::internal::CaptureStderr();
  check_default_entry<Sm100, __half, __half>({GemmProblem{64, 264, 64}});
  const std::string off = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(on.find("bwgemm: bwgemm::sm100::gemm M=100 N=264 K=64 batch=1 -> sm100::GemmSmallM"),
            std::string::npos)
      << on;
  EXPECT_NE(on.find("M=640 N=264 K=64 batch=1 -> sm100::GemmLargeM"), std::string::npos) << on;
  EXPECT_EQ(off.find("bwgemm:"), std::string::npos) << off;
}

}  // namespace
}  // namespace bwgemm_test
