// The NVFP4 dual GEMM contract (test/contract/nvfp4_dual_gemm_contract.hpp) on the sm_100a kernels: every
// shipped Config (kernels/sm100/nvfp4_dual_gemm_configs.cuh), plus a user functor, the GPU MODE correctness
// shape through the default entry point, and other devices' refusal.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_configs.cuh"
#include "bwgemm/reference/activations.hpp"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "nvfp4_dual_gemm_contract.hpp"

namespace bwgemm_test {
namespace {

struct Sm100 {
  template <class Cfg>
  using Nvfp4DualGemm = bwgemm::sm100::Nvfp4DualGemm<Cfg>;
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 10.0 (B200) or the emulation build";
};

using Sm100Nvfp4DualCases = CasesOf<Sm100, bwgemm::sm100::ShippedNvfp4DualGemmConfigs>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm100, Nvfp4DualGemmContract, Sm100Nvfp4DualCases, ConfigNames);

namespace {

TEST(Sm100Nvfp4DualGemmExtending, UserEpilogueFunctor) {
  BWGEMM_REQUIRE_SM100();
  check_nvfp4_user_epilogue<Sm100,
                            bwgemm::sm100::Nvfp4DualGemmConfig<64, 7, 2, bwgemm::sched::StaticPersistent>>();
}

// The GPU MODE correctness shape (M, N, K) = (256, 512, 256) through the public entry point.
TEST(Sm100Nvfp4DualGemmDefault, GpuModeCorrectnessShape) {
  BWGEMM_REQUIRE_SM100();
  const Nvfp4DualOperands o(Nvfp4DualProblem{256, 512, 256}, Data::kRealistic, 61);
  DeviceNvfp4 a(o.a), b1(o.b1), b2(o.b2);
  DeviceBytes c(static_cast<size_t>(256 * 512 * 2));
  c.fill(kDualFillByte);
  bwgemm::Nvfp4DualGemmArguments<__half> args;
  args.m = 256, args.n = 512, args.k = 256;
  args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
  args.c = reinterpret_cast<__half*>(c.data());
  const bwgemm::Status s = bwgemm::dual_gemm_nvfp4(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  expect_nvfp4_dual_matches<__half>(o, Data::kRealistic, download_as<uint16_t>(c));
}

// Every shipped gated activation through the NVFP4 dual kernel (realistic data with gate and up spread past
// gpt-oss's clamp limit by alpha1 = alpha2 = 4), against the double-precision reference of
// reference/activations.hpp applied to the reference products, within the field's tolerance.
template <class Epilogue, class Ref>
void check_activation(const Epilogue& f, const Ref& ref, const char* what) {
  SCOPED_TRACE(what);
  using Cfg =
      bwgemm::sm100::Nvfp4DualGemmConfig<64, 7, 2, bwgemm::sched::StaticPersistent>::WithEpilogue<Epilogue>;
  const Nvfp4DualProblem pb{200, 192, 256, 1, 4.0f, 4.0f};
  const Nvfp4DualOperands o(pb, Data::kRealistic, 81);
  DeviceNvfp4 a(o.a), b1(o.b1), b2(o.b2);
  DeviceBytes c(static_cast<size_t>(pb.m * pb.n * 2));
  c.fill(kDualFillByte);
  bwgemm::Nvfp4DualGemmArguments<typename Cfg::Out, Epilogue> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
  args.c = reinterpret_cast<typename Cfg::Out*>(c.data());
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  args.epilogue = f;
  const bwgemm::Status s = bwgemm::sm100::Nvfp4DualGemm<Cfg>::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  const std::vector<uint16_t> got = download_as<uint16_t>(c);
  const std::vector<float> gate = nvfp4_product(o.a, o.b1, pb.alpha1),
                           up = nvfp4_product(o.a, o.b2, pb.alpha2);
  int64_t bad = 0, beyond_limit = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = ref(gate[i], up[i]);
    typename Cfg::Out out;
    std::memcpy(&out, &got[i], sizeof(out));
    const float g = bwgemm::ref::to_float(out);
    const double w =
        bwgemm::ref::to_float(bwgemm::ref::from_float<typename Cfg::Out>(static_cast<float>(want)));
    beyond_limit += std::fabs(gate[i]) > 7.0f || std::fabs(up[i]) > 7.0f;
    if (std::fabs(g - w) > 1e-3 + 1e-3 * std::fabs(w) && ++bad <= 5)
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w << " (gate " << gate[i] << ", up "
                    << up[i] << ")";
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(beyond_limit, static_cast<int64_t>(got.size()) / 50)
      << "the data should reach past the clamp limit";
}

TEST(Sm100Nvfp4DualGemmActivations, EveryShippedFunctorMatchesItsReference) {
  BWGEMM_REQUIRE_SM100();
  namespace epi = bwgemm::epi;
  namespace ref = bwgemm::ref;
  check_activation(epi::SiluMul{}, ref::silu_mul, "SiluMul");
  check_activation(
      epi::SiluMulClamped{}, [](double g, double u) { return ref::silu_mul_clamped(g, u, 7.0, 1.702); },
      "SiluMulClamped (gpt-oss)");
  check_activation(epi::GeluTanhMul{}, ref::gelu_tanh_mul, "GeluTanhMul");
  check_activation(epi::GeluErfMul{}, ref::gelu_erf_mul, "GeluErfMul");
  check_activation(epi::ReluSquaredMul{}, ref::relu2_mul, "ReluSquaredMul");
  check_activation(epi::Multiply{}, ref::multiply, "Multiply");
}

#if !BWGEMM_EMULATION
// Natively, a device that is not compute capability 10.0 (or no device at all) gets a clear status and no
// launch: the sm_100a code would not run there. Hopper (9.0) has no FP4 tensor cores: not_supported.
TEST(Sm100Nvfp4DualGemmDevice, OtherDevicesAreRefusedWithAMessage) {
  std::string why;
  if (can_run_sm100(&why)) GTEST_SKIP() << "this machine has a compute-capability-10.0 GPU";
  alignas(16) static uint8_t buf[128 * 256 / 2 + 128 * 128 * 2];  // inputs (shared), then C
  bwgemm::Nvfp4DualGemmArguments<__half> args;
  args.m = 128, args.n = 128, args.k = 256;
  args.a = args.b1 = args.b2 = {buf, buf};
  args.c = reinterpret_cast<__half*>(buf + 128 * 256 / 2);
  const bwgemm::Status s = bwgemm::dual_gemm_nvfp4(args);
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
