// The GEMM contract: what every backend's GEMM kernels must do, written once and instantiated per backend
// with that backend's list of Configs (test/kernels/test_gemm.cpp: sm_100a, in the emulator and natively;
// test/sm90/test_gemm_sm90.cu: sm_90a natively).
//
// Per Config: an exact tier (small integers: every sum exact in fp32, so bitwise equal to the host
// reference), a realistic tier (uniform [-1, 1) data, fp32-accumulation tolerance), both B layouts, fp16 and
// bf16 inputs, tails in M, N and K, beta != 0 with C, batches with strides and padded leading dimensions, and
// a refused call that writes nothing. D sits between guard bands that must come back untouched, and its row
// padding must keep its fill pattern. The full battery of argument rules runs once, on bwgemm::validate
// (test/arguments).
//
// A backend is a struct with
//   template <class Cfg> using Gemm = ...;        the explicit-Config entry point (can_implement, run)
//   template <class In, class Out> static Status gemm(const GemmArguments<In, Out>&);   the default entry
//   static bool available(std::string* why);      whether this machine runs it (why not, if not)
//   static constexpr const char* kNeeds;          what a skipped test says it needs
//   static constexpr bool kNative;                a GPU backend (false: the CPU emulator)
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/reference/gemm.hpp"
#include "contract_common.hpp"
#include "device.hpp"
#include "gemm_check.hpp"

namespace bwgemm_test {

// Runs `launch(args)` (Cfg's output and epilogue types) on one problem and checks D against the reference.
template <class Cfg, class In, class Launch>
void check_gemm_with(const GemmProblem& pb, Data kind, uint32_t seed, const Launch& launch) {
  using Out = typename Cfg::Out;
  using Args = bwgemm::GemmArguments<In, Out, typename Cfg::Epilogue>;
  SCOPED_TRACE(describe(pb) + " in=" + type_name<In>() + " out=" + type_name<Out>());
  const GemmOperands<In, Out> o(pb, kind, seed);
  DeviceBytes a(o.a.size() * sizeof(In)), b(o.b.size() * sizeof(In)), c(o.c.size() * sizeof(Out)),
      d(static_cast<size_t>(o.d_elements()) * sizeof(Out));
  a.upload(o.a.data(), a.size());
  b.upload(o.b.data(), b.size());
  c.upload(o.c.data(), c.size());
  d.fill(kGemmFillByte);
  Args args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = reinterpret_cast<const In*>(a.data()), args.lda = o.lda, args.batch_stride_a = o.sa;
  args.b = reinterpret_cast<const In*>(b.data()), args.b_layout = pb.b_layout, args.ldb = o.ldb;
  args.batch_stride_b = o.sb;
  args.c = pb.beta != 0.0f ? reinterpret_cast<const Out*>(c.data()) : nullptr;
  args.ldc = o.ldc, args.batch_stride_c = o.sc;
  args.d = reinterpret_cast<Out*>(d.data()), args.ldd = o.ldd, args.batch_stride_d = o.sd;
  args.epilogue = {pb.alpha, pb.beta};
  const bwgemm::Status s = launch(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  expect_gemm_matches(o, kind, download_as<Out>(d));
}

// Runs Cfg through the backend's explicit entry point on one problem and checks D against the reference.
template <class Backend, class Cfg, class In>
void check_gemm(const GemmProblem& pb, Data kind, uint32_t seed) {
  check_gemm_with<Cfg, In>(pb, kind, seed,
                           [](const auto& args) { return Backend::template Gemm<Cfg>::run(args); });
}

// Two tiles in M and N (the rows of two clusters, so persistent and CLC clusters of the emulator's small GPU
// take several tiles), two K stages.
template <class Cfg>
GemmProblem two_by_two(bwgemm::BLayout layout) {
  GemmProblem pb;
  pb.m = 2 * Cfg::kClusterBlockM, pb.n = 2 * Cfg::kBlockN, pb.k = 128, pb.b_layout = layout;
  return pb;
}

template <class C>
class GemmContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(GemmContract);

TYPED_TEST_P(GemmContract, ExactTierKxNIsBitwiseEqual) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  check_gemm<typename TypeParam::Backend, Cfg, __half>(two_by_two<Cfg>(bwgemm::BLayout::kRowMajorKxN),
                                                       Data::kExact, 11);
}

TYPED_TEST_P(GemmContract, ExactTierNxKIsBitwiseEqual) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  check_gemm<typename TypeParam::Backend, Cfg, __half>(two_by_two<Cfg>(bwgemm::BLayout::kColumnMajorKxN),
                                                       Data::kExact, 12);
}

TYPED_TEST_P(GemmContract, ExactTierBf16WithAlphaAndBeta) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN})
    check_gemm<typename TypeParam::Backend, Cfg, __nv_bfloat16>(
        GemmProblem{Cfg::kClusterBlockM, Cfg::kBlockN, 64, 1, layout, 0.5f, -2.0f}, Data::kExact, 13);
}

TYPED_TEST_P(GemmContract, RealisticTier) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  using Backend = typename TypeParam::Backend;
  const int64_t m = Cfg::kClusterBlockM, n = Cfg::kBlockN;
  check_gemm<Backend, Cfg, __half>(GemmProblem{m, n, 256, 1, bwgemm::BLayout::kRowMajorKxN}, Data::kRealistic,
                                   21);
  check_gemm<Backend, Cfg, __nv_bfloat16>(GemmProblem{m, n, 256, 1, bwgemm::BLayout::kColumnMajorKxN},
                                          Data::kRealistic, 22);
}

TYPED_TEST_P(GemmContract, TailsInMNAndK) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  using Backend = typename TypeParam::Backend;
  const int64_t m = Cfg::kClusterBlockM, n = Cfg::kBlockN;
  // M, N, K multiples of 8 but not of the tile; K = 72 leaves 8 elements in the second stage.
  check_gemm<Backend, Cfg, __half>(GemmProblem{m + 40, n - 24, 72, 1, bwgemm::BLayout::kRowMajorKxN},
                                   Data::kExact, 31);
  // (Tiles of fewer than 48 rows: M = m/2 + 1, a short odd tail.)
  const int64_t m_short = m > 40 ? m - 40 : m / 2 + 1;
  check_gemm<Backend, Cfg, __half>(GemmProblem{m_short, n + 24, 136, 1, bwgemm::BLayout::kColumnMajorKxN},
                                   Data::kExact, 32);
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN})
    check_gemm<Backend, Cfg, __half>(GemmProblem{8, 8, 8, 1, layout}, Data::kExact, 33);
  check_gemm<Backend, Cfg, __nv_bfloat16>(GemmProblem{136, 200, 200, 1, bwgemm::BLayout::kRowMajorKxN},
                                          Data::kRealistic, 34);
}

// Any M >= 1 (decode-size M included): rows past M are read as zeros and not stored.
TYPED_TEST_P(GemmContract, AnyM) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  for (int64_t m : {1, 3, 7, 17})
    for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN})
      check_gemm<typename TypeParam::Backend, Cfg, __half>(
          GemmProblem{m, Cfg::kBlockN, 64, 1, layout, 1.0f, 0.0f}, Data::kExact,
          35 + static_cast<uint32_t>(m));
  // Odd M with beta, a batch and padded rows.
  check_gemm<typename TypeParam::Backend, Cfg, __nv_bfloat16>(
      GemmProblem{5, 64, 72, 2, bwgemm::BLayout::kColumnMajorKxN, 1.0f, -1.0f, 8, 8}, Data::kExact, 39);
}

TYPED_TEST_P(GemmContract, BatchWithStridesPaddingAndBeta) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  using Backend = typename TypeParam::Backend;
  check_gemm<Backend, Cfg, __half>(
      GemmProblem{96, 136, 80, 3, bwgemm::BLayout::kRowMajorKxN, 1.5f, 0.75f, /*pad=*/8, /*batch_gap=*/16},
      Data::kRealistic, 41);
  check_gemm<Backend, Cfg, __half>(
      GemmProblem{72, 64, 80, 2, bwgemm::BLayout::kColumnMajorKxN, 1.0f, -1.0f, 16, 8}, Data::kExact, 42);
  // D = A·B (the functor not called) with batches 16 bytes off a 32-byte boundary: the 128-bit stores of
  // an interior chunk; the cases above with 32-byte-aligned rows take the 256-bit ones (sm_100a).
  check_gemm<Backend, Cfg, __half>(GemmProblem{Cfg::kClusterBlockM, 2 * Cfg::kBlockN, 64, 2,
                                               bwgemm::BLayout::kColumnMajorKxN, 1.0f, 0.0f, 0, 8},
                                   Data::kExact, 43);
}

// The Config's entry point applies bwgemm::validate before anything else and writes nothing when it
// refuses (the rules themselves: test/arguments).
TYPED_TEST_P(GemmContract, RefusesBadArgumentsAndLaunchesNothing) {
  using Cfg = typename TypeParam::Cfg;
  using Op = typename TypeParam::Backend::template Gemm<Cfg>;
  using Out = typename Cfg::Out;
  using Args = bwgemm::GemmArguments<__half, Out>;
  // A (128 x 64), B (64 x 128) and D (128 x 128) side by side, none overlapping another.
  alignas(16) static uint8_t buf[2 * 128 * 64 * 2 + 128 * 128 * 4];
  Args good;
  good.m = 128, good.n = 128, good.k = 64;
  good.a = reinterpret_cast<const __half*>(buf);
  good.b = reinterpret_cast<const __half*>(buf + 128 * 64 * 2);
  good.d = reinterpret_cast<Out*>(buf + 2 * 128 * 64 * 2);
  ASSERT_TRUE(Op::can_implement(good).ok()) << Op::can_implement(good).to_string();
  Args a = good;
  a.m = 0;
  expect_refused(Op::run(a), "M must be");
  a = good, a.lda = 32;
  expect_refused(Op::run(a), "lda");
  a = good, a.a = nullptr;
  expect_refused(Op::run(a), "A is null");
  a = good, a.b = reinterpret_cast<const __half*>(buf + 128 * 64 * 2 + 8);
  expect_refused(Op::run(a), "B must be 16-byte aligned");
  a = good, a.epilogue.beta = 1.0f;
  expect_refused(Op::run(a), "C is null but the epilogue reads it");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

REGISTER_TYPED_TEST_SUITE_P(GemmContract, ExactTierKxNIsBitwiseEqual, ExactTierNxKIsBitwiseEqual,
                            ExactTierBf16WithAlphaAndBeta, RealisticTier, TailsInMNAndK, AnyM,
                            BatchWithStridesPaddingAndBeta, RefusesBadArgumentsAndLaunchesNothing);

// Every output type (D and C in bf16 and fp32 as well as fp16) on a backend's default kernels.
template <class C>
class GemmOutputContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(GemmOutputContract);

TYPED_TEST_P(GemmOutputContract, ExactTierBothLayouts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
    GemmProblem pb = two_by_two<Cfg>(layout);
    pb.beta = 1.0f;
    check_gemm<typename TypeParam::Backend, Cfg, __half>(pb, Data::kExact, 51);
  }
}

TYPED_TEST_P(GemmOutputContract, RealisticTierWithTailsAndBeta) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN})
    check_gemm<typename TypeParam::Backend, Cfg, __nv_bfloat16>(
        GemmProblem{200, 136, 136, 2, layout, 1.0f, 0.5f, 8, 0}, Data::kRealistic, 52);
}

REGISTER_TYPED_TEST_SUITE_P(GemmOutputContract, ExactTierBothLayouts, RealisticTierWithTailsAndBeta);

// More cluster tiles than a GPU holds clusters at once (about three waves on 148 SMs): persistent clusters
// take several tiles each, and the CLC scheduler cancels many clusters. Native backends only: the emulator's
// small GPU (two resident clusters in these suites) gets there with the two-by-two problems above.
template <class C>
class GemmManyTilesContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(GemmManyTilesContract);

TYPED_TEST_P(GemmManyTilesContract, ExactTierBothLayouts) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  constexpr int64_t kColumnTiles = 8, kClusterTiles = 3 * 148;
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN})
    check_gemm<typename TypeParam::Backend, Cfg, __nv_bfloat16>(
        GemmProblem{kClusterTiles / kColumnTiles * Cfg::kClusterBlockM, kColumnTiles * Cfg::kBlockN, 64, 1,
                    layout},
        Data::kExact, 61);
}

// The same walk with a ragged last row of tiles: 8 rows in the last cluster tile, so a CTA pair's second
// tile, a cooperative tile's second consumer and a ping-pong tile's second 64-row block hold only rows past
// M (on sm_90a loaded through the tail box, or not at all: kernels/sm90/common.cuh, row_box), while the
// CTAs go on to tiles of whole rows.
TYPED_TEST_P(GemmManyTilesContract, RaggedLastRowTile) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  constexpr int64_t kColumnTiles = 40, kRowTiles = 6;  // 240 cluster tiles: several per cluster
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN})
    check_gemm<typename TypeParam::Backend, Cfg, __nv_bfloat16>(
        GemmProblem{(kRowTiles - 1) * Cfg::kClusterBlockM + 8, kColumnTiles * Cfg::kBlockN, 192, 1, layout},
        Data::kExact, 62);
}

REGISTER_TYPED_TEST_SUITE_P(GemmManyTilesContract, ExactTierBothLayouts, RaggedLastRowTile);

// A user-supplied epilogue functor (docs/extending.md): ReLU of alpha A B, no C.
struct ScaledRelu {
  float alpha = 1.0f;
  BWGEMM_HD float operator()(float acc) const { return alpha * acc > 0.0f ? alpha * acc : 0.0f; }
};

// Cfg with ScaledRelu instead of its functor must compute max(alpha A B, 0) bit for bit on exact data.
template <class Backend, class Cfg>
void check_user_epilogue() {
  using UserCfg = typename Cfg::template WithEpilogue<ScaledRelu>;
  using Out = typename Cfg::Out;
  const GemmProblem pb{128, 128, 64, 1, bwgemm::BLayout::kRowMajorKxN, 0.5f, 0.0f};
  const GemmOperands<__half, Out> o(pb, Data::kExact, 61);
  DeviceBytes a(o.a.size() * 2), b(o.b.size() * 2), d(static_cast<size_t>(o.d_elements()) * sizeof(Out));
  a.upload(o.a.data(), a.size());
  b.upload(o.b.data(), b.size());
  bwgemm::GemmArguments<__half, Out, ScaledRelu> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = reinterpret_cast<const __half*>(a.data());
  args.b = reinterpret_cast<const __half*>(b.data());
  args.d = reinterpret_cast<Out*>(d.data());
  args.epilogue.alpha = pb.alpha;
  const bwgemm::Status s = Backend::template Gemm<UserCfg>::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  const std::vector<Out> got = download_as<Out>(d);
  const std::vector<Out> plain = o.reference();  // alpha A B
  int64_t positive = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    const float w = std::max(bwgemm::ref::to_float(plain[i]), 0.0f);
    positive += w > 0.0f;
    ASSERT_EQ(bwgemm::ref::to_float(got[i]), w) << "element " << i;
  }
  EXPECT_GT(positive, pb.m * pb.n / 4) << "the data should exercise both branches of the functor";
}

// The backend's default entry point on shapes that select each of its kernels (`rows` lists an M for each),
// exact data, D bitwise equal to the reference.
template <class Backend, class In, class Out>
void check_default_entry(std::initializer_list<GemmProblem> problems) {
  for (const GemmProblem& pb : problems) {
    SCOPED_TRACE(describe(pb));
    const GemmOperands<In, Out> o(pb, Data::kExact, 71);
    DeviceBytes a(o.a.size() * sizeof(In)), b(o.b.size() * sizeof(In)),
        d(static_cast<size_t>(o.d_elements()) * sizeof(Out));
    a.upload(o.a.data(), a.size());
    b.upload(o.b.data(), b.size());
    d.fill(kGemmFillByte);
    bwgemm::GemmArguments<In, Out> args;
    args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
    args.a = reinterpret_cast<const In*>(a.data()), args.lda = o.lda, args.batch_stride_a = o.sa;
    args.b = reinterpret_cast<const In*>(b.data()), args.b_layout = pb.b_layout, args.ldb = o.ldb;
    args.batch_stride_b = o.sb;
    args.d = reinterpret_cast<Out*>(d.data()), args.ldd = o.ldd, args.batch_stride_d = o.sd;
    args.epilogue = {pb.alpha, 0.0f};
    const bwgemm::Status s = Backend::gemm(args);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    expect_gemm_matches(o, Data::kExact, download_as<Out>(d));
  }
}

}  // namespace bwgemm_test
