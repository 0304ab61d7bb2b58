// The NVFP4 GEMM contract (test/contract/nvfp4_gemm_contract.hpp) on the sm_100a kernels: every shipped
// Config (kernels/sm100/nvfp4_gemm_configs.cuh), the default entry point's choice table, the GPU MODE
// nvfp4_gemm correctness shapes scaled to emulator size through bwgemm::gemm_nvfp4, and other devices'
// refusal.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_configs.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "nvfp4_gemm_contract.hpp"

namespace bwgemm_test {
namespace {

struct Sm100 {
  template <class Cfg>
  using Nvfp4Gemm = bwgemm::sm100::Nvfp4Gemm<Cfg>;
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

using Sm100Nvfp4GemmCases = CasesOf<Sm100, bwgemm::sm100::ShippedNvfp4GemmConfigs>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100, Nvfp4GemmContract, Sm100Nvfp4GemmCases, ConfigNames);

namespace {

// The choice table (sm100/nvfp4_gemm.cuh, docs/api.md): swap AB up to M = 64 (its rows:
// test_nvfp4_gemm_swap_ab.cpp), BlockN 64 up to M = 256, BlockN 128 above.
TEST(Sm100Nvfp4GemmDefault, ChoiceTableByM) {
  using bwgemm::sm100::nvfp4_gemm_choice;
  using bwgemm::sm100::Nvfp4GemmChoice;
  for (int64_t m : {65, 100, 255, 256}) EXPECT_EQ(nvfp4_gemm_choice(m), Nvfp4GemmChoice::kSmallM) << m;
  for (int64_t m : {257, 300, 1536, 7168}) EXPECT_EQ(nvfp4_gemm_choice(m), Nvfp4GemmChoice::kLargeM) << m;
}

// The GPU MODE nvfp4_gemm task's correctness shapes (M, N, K) (its task.yml, L = 1, fp16 D = A·Bᵀ): (128,
// 256, 256), (128, 1536, 7168), (128, 3072, 1536), (256, 7168, 256), (256, 7168, 2048), (2304, 4608, 7168),
// (384, 7168, 2304), scaled to emulator size: M kept where it is at most 384 (2304 -> 288: past one 256-row
// cluster tile, not a multiple of it), N divided by 8 or 16 (multiples of 16 stay), K by 4 to 16 and rounded
// to a multiple of 64 (K = 256 stays; 2304 -> 320). Through the public entry point bwgemm::gemm_nvfp4, both
// rows of the choice table.
TEST(Sm100Nvfp4GemmDefault, GpuModeCorrectnessShapesScaled) {
  BWGEMM_REQUIRE_SM100();
  const Nvfp4GemmProblem shapes[] = {{128, 256, 256}, {128, 192, 448}, {128, 384, 192}, {256, 448, 256},
                                     {256, 448, 512}, {288, 576, 448}, {384, 448, 320}};
  uint32_t seed = 401;
  for (const Nvfp4GemmProblem& pb : shapes) {
    SCOPED_TRACE(describe(pb));
    const Nvfp4GemmOperands<__half> o(pb, Data::kRealistic, seed++);
    const auto got = run_nvfp4_gemm_with(
        o, bwgemm::Nvfp4GemmArguments<__half>{},
        [](const bwgemm::Nvfp4GemmArguments<__half>& a) { return bwgemm::gemm_nvfp4(a); });
    expect_nvfp4_gemm_matches<__half>(o, Data::kRealistic, got);
  }
}

// The default entry point for bf16 and fp32 outputs with alpha and beta (the per-tensor scale and a
// residual).
TEST(Sm100Nvfp4GemmDefault, OtherOutputTypesWithAlphaAndBeta) {
  BWGEMM_REQUIRE_SM100();
  const Nvfp4GemmProblem pb{300, 160, 256, 1, 0.375f, 1.0f};
  {
    const Nvfp4GemmOperands<__nv_bfloat16> o(pb, Data::kRealistic, 501);
    const auto got = run_nvfp4_gemm_with(
        o, bwgemm::Nvfp4GemmArguments<__nv_bfloat16>{},
        [](const bwgemm::Nvfp4GemmArguments<__nv_bfloat16>& a) { return bwgemm::gemm_nvfp4(a); });
    expect_nvfp4_gemm_matches<__nv_bfloat16>(o, Data::kRealistic, got);
  }
  {
    const Nvfp4GemmOperands<float> o(pb, Data::kExact, 502);
    const auto got = run_nvfp4_gemm_with(
        o, bwgemm::Nvfp4GemmArguments<float>{},
        [](const bwgemm::Nvfp4GemmArguments<float>& a) { return bwgemm::sm100::nvfp4_gemm(a); });
    expect_nvfp4_gemm_matches<float>(o, Data::kExact, got);
  }
}

#if !BWGEMM_EMULATION
// Natively, a device that is not compute capability 10.0 (or no device at all) gets a clear status and no
// launch. Hopper (9.0) has no FP4 tensor cores: not_supported, naming NVFP4.
TEST(Sm100Nvfp4GemmDevice, OtherDevicesAreRefusedWithAMessage) {
  std::string why;
  if (can_run_sm100(&why)) GTEST_SKIP() << "this machine has a compute-capability-10.0 GPU";
  alignas(16) static uint8_t buf[128 * 256 / 2 + 128 * 128 * 2];  // inputs (shared), then D
  bwgemm::Nvfp4GemmArguments<__half> args;
  args.m = 128, args.n = 128, args.k = 256;
  args.a = args.b = {buf, buf};
  args.d = reinterpret_cast<__half*>(buf + 128 * 256 / 2);
  const bwgemm::Status s = bwgemm::gemm_nvfp4(args);
  bwgemm::host::ComputeCapability cc;
  if (bwgemm::host::current_compute_capability(&cc).ok() && cc.is(9, 0)) {
    EXPECT_EQ(s.code(), bwgemm::StatusCode::kNotSupported) << s.to_string();
    EXPECT_NE(s.message().find("NVFP4"), std::string::npos) << s.message();
    return;
  }
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kDeviceMismatch) << s.to_string();
  EXPECT_NE(s.message().find("10.0"), std::string::npos) << s.message();
}
#endif

}  // namespace
}  // namespace bwgemm_test
