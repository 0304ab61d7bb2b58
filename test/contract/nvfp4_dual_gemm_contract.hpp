// The NVFP4 dual GEMM contract: what every backend's NVFP4 dual GEMM kernels must do, written once and
// instantiated per backend (test/kernels/test_dual_gemm.cpp: sm_100a, in the emulator and natively).
//
// Per Config: an exact tier (small e2m1 values, power-of-two scales, epi::Multiply: bitwise equal to the
// reference), a realistic tier (the field's data and tolerance, the Config's own SiLU), tail rows
// (M = 1, 7, 100, 255, 300), tail columns and short K, a batch of three with alphas and padded C rows, and a
// refused call that writes nothing. C sits between guard bands that must come back untouched.
//
// A backend is a struct with
//   template <class Cfg> using Nvfp4DualGemm = ...;   the explicit-Config entry point (can_implement, run)
//   static bool available(std::string* why);  static constexpr const char* kNeeds;   (as in
//   gemm_contract.hpp)
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "contract_common.hpp"
#include "device.hpp"
#include "nvfp4_dual_check.hpp"

namespace bwgemm_test {

// One operand's device copy.
struct DeviceNvfp4 {
  DeviceBytes data, scales;
  explicit DeviceNvfp4(const Nvfp4Operand& o) : data(o.data.size()), scales(o.scales.size()) {
    data.upload(o.data.data(), o.data.size());
    scales.upload(o.scales.data(), o.scales.size());
  }
  bwgemm::Nvfp4Tensor tensor() { return {data.data(), scales.data()}; }
};

// Runs Cfg (whose functor the caller chose) on the operands and returns C as 16-bit words, padding included.
template <class Backend, class Cfg>
std::vector<uint16_t> run_nvfp4_dual(const Nvfp4DualOperands& o) {
  const Nvfp4DualProblem& pb = o.pb;
  DeviceNvfp4 a(o.a), b1(o.b1), b2(o.b2);
  DeviceBytes c(static_cast<size_t>(pb.batch * pb.m * pb.ldc() * 2));
  c.fill(kDualFillByte);
  typename Backend::template Nvfp4DualGemm<Cfg>::Arguments args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
  args.c = reinterpret_cast<typename Cfg::Out*>(c.data());
  args.ldc = pb.ldc();
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  const bwgemm::Status s = Backend::template Nvfp4DualGemm<Cfg>::run(args);
  EXPECT_TRUE(s.ok()) << s.to_string();
  synchronize();
  return download_as<uint16_t>(c);
}

// The exact tier runs Cfg with epi::Multiply; the realistic tier Cfg itself (its SiLU).
template <class Backend, class Cfg>
void check_nvfp4_dual(const Nvfp4DualProblem& pb, Data kind, uint32_t seed) {
  SCOPED_TRACE(describe(pb));
  const Nvfp4DualOperands o(pb, kind, seed);
  const std::vector<uint16_t> got =
      kind == Data::kExact
          ? run_nvfp4_dual<Backend, typename Cfg::template WithEpilogue<bwgemm::epi::Multiply>>(o)
          : run_nvfp4_dual<Backend, Cfg>(o);
  expect_nvfp4_dual_matches<typename Cfg::Out>(o, kind, got);
}

template <class C>
class Nvfp4DualGemmContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(Nvfp4DualGemmContract);

// Two N tiles, two K stages, the rows of two clusters.
TYPED_TEST_P(Nvfp4DualGemmContract, ExactTierIsBitwiseEqual) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  check_nvfp4_dual<typename TypeParam::Backend, Cfg>(
      Nvfp4DualProblem{2 * Cfg::kClusterBlockM, 2 * Cfg::kBlockN, 512, 1, 0.5f, 2.0f}, Data::kExact, 11);
}

TYPED_TEST_P(Nvfp4DualGemmContract, RealisticTierWithinTheFieldsTolerance) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(Nvfp4DualProblem{256, 256, 512},
                                                                         Data::kRealistic, 21);
}

TYPED_TEST_P(Nvfp4DualGemmContract, TailRows) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : {1, 7, 100, 255, 300}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(
        Nvfp4DualProblem{m, 128, 256}, Data::kRealistic, 31 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(Nvfp4DualGemmContract, TailColumnsAndShortK) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  // N = 13 x 16, K = 3 x 64, padded rows of C.
  check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4DualProblem{130, 208, 192, 1, 1.0f, 1.0f, 24}, Data::kRealistic, 41);
}

TYPED_TEST_P(Nvfp4DualGemmContract, BatchOfThreeWithAlphas) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  check_nvfp4_dual<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4DualProblem{96, 128, 256, 3, 0.75f, 1.5f, 8}, Data::kRealistic, 51);
}

// The Config's entry point applies bwgemm::validate before anything else and writes nothing when it
// refuses (the rules themselves: test/arguments).
TYPED_TEST_P(Nvfp4DualGemmContract, RefusesBadArgumentsAndLaunchesNothing) {
  using Cfg = typename TypeParam::Cfg;
  using Op = typename TypeParam::Backend::template Nvfp4DualGemm<Cfg>;
  using Args = typename Op::Arguments;
  // The inputs may share memory (here all six), C (128 x 128) may not: it sits after them.
  alignas(16) static uint8_t buf[128 * 256 / 2 + 128 * 128 * 2];
  Args good;
  good.m = 128, good.n = 128, good.k = 256;
  good.a = good.b1 = good.b2 = {buf, buf};
  good.c = reinterpret_cast<typename Cfg::Out*>(buf + 128 * 256 / 2);
  ASSERT_TRUE(Op::can_implement(good).ok()) << Op::can_implement(good).to_string();
  Args a = good;
  a.m = 0;
  expect_refused(Op::run(a), "M must be");
  a = good, a.k = 96;
  expect_refused(Op::run(a), "K must be");
  a = good, a.b1.scales = nullptr;
  expect_refused(Op::run(a), "B1 scales is null");
  a = good, a.a.data = buf + 8;
  expect_refused(Op::run(a), "A data must be 16-byte aligned");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

REGISTER_TYPED_TEST_SUITE_P(Nvfp4DualGemmContract, ExactTierIsBitwiseEqual,
                            RealisticTierWithinTheFieldsTolerance, TailRows, TailColumnsAndShortK,
                            BatchOfThreeWithAlphas, RefusesBadArgumentsAndLaunchesNothing);

// A user-supplied epilogue functor (the docs/extending.md example): squared-ReLU gating, exact data.
struct ReluSquaredGate {
  BWGEMM_HD float operator()(float gate, float up) const {
    const float r = gate > 0.0f ? gate : 0.0f;
    return r * r * up;
  }
};

template <class Backend, class Cfg>
void check_nvfp4_user_epilogue() {
  using UserCfg = typename Cfg::template WithEpilogue<ReluSquaredGate>;
  const Nvfp4DualOperands o(Nvfp4DualProblem{128, 128, 256}, Data::kExact, 71);
  const std::vector<uint16_t> got = run_nvfp4_dual<Backend, UserCfg>(o);
  const std::vector<float> gate = nvfp4_product(o.a, o.b1, 1.0f), up = nvfp4_product(o.a, o.b2, 1.0f);
  int64_t positive = 0;
  for (size_t i = 0; i < gate.size(); ++i) {
    positive += gate[i] > 0;
    const float want = ReluSquaredGate{}(gate[i], up[i]);
    ASSERT_EQ(bwgemm::ref::to_float(bwgemm::ref::from_float<typename Cfg::Out>(want)),
              bwgemm::ref::to_float(*reinterpret_cast<const typename Cfg::Out*>(&got[i])))
        << "element " << i;
  }
  EXPECT_GT(positive, static_cast<int64_t>(gate.size()) / 4) << "the data should exercise both branches";
}

}  // namespace bwgemm_test
