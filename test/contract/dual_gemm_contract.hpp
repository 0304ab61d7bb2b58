// The 16-bit dual GEMM contract: what every backend's fp16/bf16 dual GEMM kernels must do, written once and
// instantiated per backend (test/sm90/test_dual_gemm_sm90.cu: sm_90a natively).
//
// Per Config: an exact tier (small-integer inputs and epi::Multiply: every product and sum exact in fp32, so
// C equals the reference bit for bit) with bf16 and fp16 inputs on shapes that cover one tile, a wrapping
// stage ring, M/N/K tails, a sliver, odd N with K < 16 and padded leading dimensions, padded batches, and
// more tiles than resident CTAs; a realistic tier (uniform data, the Config's own SiLU); a refused call that
// writes nothing. C starts NaN-poisoned between guard bands: every element must be written, no padding
// column or guard byte may change.
//
// A backend is a struct with
//   template <class Cfg> using DualGemm = ...;   the explicit-Config entry point (can_implement, run)
//   template <class In, class Out> static Status dual_gemm(const DualGemmArguments<In, Out>&);  the default
//   static bool available(std::string* why);  static constexpr const char* kNeeds;   (as in
//   gemm_contract.hpp)
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "contract_common.hpp"
#include "device.hpp"
#include "dual_gemm_check.hpp"

namespace bwgemm_test {

// Runs `launch(args)` on one problem and checks C against the reference.
template <class In, class Out, class Epilogue, class Launch>
void check_dual(const DualProblem& pb, Data kind, uint32_t seed, const Launch& launch) {
  SCOPED_TRACE(describe(pb) + " in=" + type_name<In>() + " out=" + type_name<Out>());
  const DualOperands<In, Out> o(pb, kind, seed);
  DeviceBytes a(o.a.size() * sizeof(In)), b1(o.b1.size() * sizeof(In)), b2(o.b2.size() * sizeof(In)),
      c(static_cast<size_t>(o.c_elements()) * sizeof(Out));
  a.upload(o.a.data(), a.size());
  b1.upload(o.b1.data(), b1.size());
  b2.upload(o.b2.data(), b2.size());
  c.fill(kDualPoisonByte);
  bwgemm::DualGemmArguments<In, Out, Epilogue> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = reinterpret_cast<const In*>(a.data());
  args.b1 = reinterpret_cast<const In*>(b1.data());
  args.b2 = reinterpret_cast<const In*>(b2.data());
  args.c = reinterpret_cast<Out*>(c.data());
  args.lda = pb.lda, args.ldb = pb.ldb, args.ldc = pb.ldc;
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  const bwgemm::Status s = launch(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  expect_dual_matches(o, kind, download_as<Out>(c));
}

// The exact tier runs Cfg with epi::Multiply; the realistic tier Cfg itself.
template <class Backend, class Cfg, class In>
void check_dual_config(const DualProblem& pb, Data kind, uint32_t seed) {
  using Out = typename Cfg::Out;
  if (kind == Data::kExact) {
    using Exact = typename Cfg::template WithEpilogue<bwgemm::epi::Multiply>;
    check_dual<In, Out, bwgemm::epi::Multiply>(
        pb, kind, seed, [](const auto& args) { return Backend::template DualGemm<Exact>::run(args); });
  } else {
    check_dual<In, Out, typename Cfg::Epilogue>(
        pb, kind, seed, [](const auto& args) { return Backend::template DualGemm<Cfg>::run(args); });
  }
}

inline const DualProblem kDualExactShapes[] = {
    {128, 128, 64},                     // one tile, one stage
    {256, 256, 512},                    // several tiles, the stage ring wraps
    {200, 136, 72},                     // M, N, K tails
    {1, 8, 8},                          // a sliver
    {77, 77, 13, 1, 16, 16, 80},        // odd N (scalar last column), K < 16, padded leading dims
    {130, 200, 200, 3, 208, 200, 208},  // batches with padded rows
#if BWGEMM_EMULATION
    {512, 512, 128},  // 8-32 tiles on the emulator's 4 co-resident clusters: persistent CTAs take several each
#else
    {2048, 2048, 128},  // 256 tiles: persistent CTAs take several each
#endif
};

template <class C>
class DualGemmContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(DualGemmContract);

TYPED_TEST_P(DualGemmContract, ExactTierBf16Inputs) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (DualProblem s : kDualExactShapes) {
    s.alpha1 = 0.5f, s.alpha2 = 2.0f;
    check_dual_config<typename TypeParam::Backend, typename TypeParam::Cfg, __nv_bfloat16>(s, Data::kExact,
                                                                                           1);
  }
}

TYPED_TEST_P(DualGemmContract, ExactTierFp16Inputs) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (const DualProblem& s : kDualExactShapes) {
    if (s.k > 256) continue;  // keeps |gate · up| within fp16's range
    check_dual_config<typename TypeParam::Backend, typename TypeParam::Cfg, __half>(s, Data::kExact, 2);
  }
}

TYPED_TEST_P(DualGemmContract, RealisticTier) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Backend = typename TypeParam::Backend;
  using Cfg = typename TypeParam::Cfg;
#if BWGEMM_EMULATION
  // The CPU emulator: the same kinds of problem at a seventh of the work (the native sizes took about 31 s
  // per Config on the 2-core CI machine): M and N off the tile grid (300 rows: a partial row tile of any
  // Config; 264 columns: a partial column tile), K = 1000 off the K block, and a long K of 2048.
  check_dual_config<Backend, Cfg, __nv_bfloat16>(DualProblem{300, 264, 1000, 1, 0, 0, 0, 0.75f, 1.25f},
                                                 Data::kRealistic, 10);
  check_dual_config<Backend, Cfg, __half>(DualProblem{256, 256, 2048}, Data::kRealistic, 14);
#else
  check_dual_config<Backend, Cfg, __nv_bfloat16>(DualProblem{1000, 1048, 1000, 1, 0, 0, 0, 0.75f, 1.25f},
                                                 Data::kRealistic, 10);
  check_dual_config<Backend, Cfg, __half>(DualProblem{256, 1024, 2048}, Data::kRealistic, 14);
#endif
}

// The Config's entry point applies bwgemm::validate before anything else and writes nothing when it
// refuses (the rules themselves: test/arguments).
TYPED_TEST_P(DualGemmContract, RefusesBadArgumentsAndLaunchesNothing) {
  using Cfg = typename TypeParam::Cfg;
  using Op = typename TypeParam::Backend::template DualGemm<Cfg>;
  using Out = typename Cfg::Out;
  using Args = bwgemm::DualGemmArguments<__nv_bfloat16, Out>;
  // The inputs may share memory (here all three), C (64 x 64) may not: it sits after them.
  alignas(16) static uint8_t buf[64 * 64 * 2 * 2];
  Args good;
  good.m = 64, good.n = 64, good.k = 64;
  good.a = good.b1 = good.b2 = reinterpret_cast<const __nv_bfloat16*>(buf);
  good.c = reinterpret_cast<Out*>(buf + 64 * 64 * 2);
  ASSERT_TRUE(Op::can_implement(good).ok()) << Op::can_implement(good).to_string();
  Args a = good;
  a.m = 0;
  expect_refused(Op::run(a), "M must be");
  a = good, a.lda = 68;
  expect_refused(Op::run(a), "lda");
  a = good, a.b2 = nullptr;
  expect_refused(Op::run(a), "B2 is null");
  a = good, a.c = reinterpret_cast<Out*>(buf + 64 * 64 * 2 + 8);
  expect_refused(Op::run(a), "C must be 16-byte aligned");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

REGISTER_TYPED_TEST_SUITE_P(DualGemmContract, ExactTierBf16Inputs, ExactTierFp16Inputs, RealisticTier,
                            RefusesBadArgumentsAndLaunchesNothing);

// The backend's default entry point on realistic problems (each selects one of its kernels).
template <class Backend, class In, class Out>
void check_dual_default_entry(std::initializer_list<DualProblem> problems, uint32_t seed) {
  for (const DualProblem& pb : problems)
    check_dual<In, Out, bwgemm::epi::SiluMul>(pb, Data::kRealistic, seed++,
                                              [](const auto& args) { return Backend::dual_gemm(args); });
}

}  // namespace bwgemm_test
