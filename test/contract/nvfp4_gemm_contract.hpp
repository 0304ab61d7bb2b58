// The NVFP4 GEMM contract: what every backend's NVFP4 GEMM kernels must do, written once and instantiated per
// backend (test/kernels/test_nvfp4_gemm.cpp: sm_100a, in the emulator and natively). Modelled on the NVFP4
// dual GEMM's (nvfp4_dual_gemm_contract.hpp), whose operand generator it shares.
//
// Per Config: an exact tier (small e2m1 values, power-of-two scales, alpha and beta, C of small multiples of
// 1/4: every product and sum exact in fp32, so D must equal the reference bit for bit), a realistic tier (the
// field's data and tolerance), tail rows (M = 1, 7, 100, 255, 300), tail columns and short K, a batch of
// three with alpha, beta and padded rows of C and D, an in-place update (C == D) and a refused call that
// writes nothing. D starts as a NaN pattern and sits between guard bands that must come back untouched; the
// row padding of D must keep the pattern.
//
// A backend is a struct with
//   template <class Cfg> using Nvfp4Gemm = ...;   the explicit-Config entry point (can_implement, run)
//   static bool available(std::string* why);  static constexpr const char* kNeeds;
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"
#include "contract_common.hpp"
#include "device.hpp"
#include "nvfp4_dual_check.hpp"

namespace bwgemm_test {

struct Nvfp4GemmProblem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  int64_t ldd_pad = 0, ldc_pad = 0;  // ldd = n + ldd_pad, ldc = n + ldc_pad
  bool in_place = false;             // C is D (ldc = ldd)
  int64_t ldd() const { return n + ldd_pad; }
  int64_t ldc() const { return in_place ? ldd() : n + ldc_pad; }
};

inline std::string describe(const Nvfp4GemmProblem& pb) {
  return "M=" + std::to_string(pb.m) + " N=" + std::to_string(pb.n) + " K=" + std::to_string(pb.k) +
         " batch=" + std::to_string(pb.batch) + " alpha=" + std::to_string(pb.alpha) +
         " beta=" + std::to_string(pb.beta) + " ldd=" + std::to_string(pb.ldd()) +
         " ldc=" + std::to_string(pb.ldc()) + (pb.in_place ? " in place" : "");
}

// The bytes every element of D starts as: 0xFF..., a NaN in fp16, bf16 and fp32. The row padding keeps it.
inline constexpr uint8_t kNvfp4GemmFillByte = 0xFF;

// One NVFP4 operand's device copy.
struct Nvfp4DeviceOperand {
  DeviceBytes data, scales;
  explicit Nvfp4DeviceOperand(const Nvfp4Operand& o) : data(o.data.size()), scales(o.scales.size()) {
    data.upload(o.data.data(), o.data.size());
    scales.upload(o.scales.data(), o.scales.size());
  }
  bwgemm::Nvfp4Tensor tensor() { return {data.data(), scales.data()}; }
};

// The storage word of an output type (compared bit for bit).
template <class Out>
using OutBits = std::conditional_t<sizeof(Out) == 4, uint32_t, uint16_t>;

template <class Out>
float bits_to_value(OutBits<Out> bits) {
  Out v;
  std::memcpy(static_cast<void*>(&v), &bits, sizeof(v));
  return bwgemm::ref::to_float(v);
}

// The problem's operands: A, B and C (batch x m x ldc, values of Out; exact tier: multiples of 1/4 in
// [-4, 4], realistic: uniform [-1, 1] rounded to Out).
template <class Out>
struct Nvfp4GemmOperands {
  Nvfp4GemmProblem pb;
  Nvfp4Operand a, b;
  std::vector<Out> c;
  Nvfp4GemmOperands(const Nvfp4GemmProblem& p, Data kind, uint32_t seed)
      : pb(p),
        a(make_nvfp4_operand(p.m, p.k, p.batch, kind, seed)),
        b(make_nvfp4_operand(p.n, p.k, p.batch, kind, seed + 1)) {
    std::mt19937 rng(seed + 2);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    c.resize(static_cast<size_t>(p.batch * p.m * p.ldc()));
    for (auto& v : c)
      v = bwgemm::ref::from_float<Out>(
          kind == Data::kExact ? static_cast<float>(static_cast<int>(rng() % 33) - 16) / 4 : uniform(rng));
  }
};

// The reference D (batch x m x ldd words, the padding as the fill pattern) and the comparison: exact tier bit
// for bit, realistic tier within the field's tolerance (|d| <= 1e-3 + 1e-3 |ref|, plus one output ulp for
// bf16's coarser grid); the row padding must hold the fill pattern. Returns the number of wrong elements.
template <class Out>
int64_t expect_nvfp4_gemm_matches(const Nvfp4GemmOperands<Out>& o, Data kind,
                                  const std::vector<OutBits<Out>>& got) {
  using Bits = OutBits<Out>;
  const Nvfp4GemmProblem& pb = o.pb;
  const int64_t ldd = pb.ldd(), rows = pb.batch * pb.m;
  EXPECT_EQ(got.size(), static_cast<size_t>(rows * ldd));
  if (got.size() != static_cast<size_t>(rows * ldd)) return rows * ldd;
  Bits fill;
  std::memset(&fill, kNvfp4GemmFillByte, sizeof(fill));
  std::vector<Out> want(static_cast<size_t>(rows * ldd));
  bwgemm::ref::nvfp4_gemm_linear<Out>(o.a.host_view(), o.b.host_view(), pb.batch, pb.alpha, pb.beta,
                                      o.c.data(), pb.ldc(), want.data(), ldd);
  int64_t bad = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < ldd; ++j) {
      const size_t idx = static_cast<size_t>(r * ldd + j);
      Bits w;
      std::memcpy(&w, &want[idx], sizeof(w));
      bool ok;
      if (j >= pb.n) {
        ok = got[idx] == fill;  // the row padding of D is not the kernel's to write
        w = fill;
      } else if (kind == Data::kExact) {
        ok = got[idx] == w;
      } else {
        const float g = bits_to_value<Out>(got[idx]), v = bits_to_value<Out>(w);
        const float ulp = std::is_same_v<Out, __nv_bfloat16> ? std::fabs(v) * 0.0078125f : 0.0f;
        ok = std::fabs(g - v) <= 1e-3f + 1e-3f * std::fabs(v) + ulp;
      }
      if (!ok && ++bad <= 5)
        ADD_FAILURE() << (j >= pb.n ? "row padding " : "") << "batch " << r / pb.m << " row " << r % pb.m
                      << " col " << j << ": got " << bits_to_value<Out>(got[idx]) << " (0x" << std::hex
                      << +got[idx] << "), want " << bits_to_value<Out>(w) << " (0x" << +w << std::dec << ")";
    }
  EXPECT_EQ(bad, 0) << bad << " elements wrong";
  return bad;
}

// Runs `Op` (an explicit-Config or default entry point: Status(const Args&)) on the operands and returns D as
// storage words, padding included, after checking D's (and C's) guard bands.
template <class Out, class Args, class Op>
std::vector<OutBits<Out>> run_nvfp4_gemm_with(const Nvfp4GemmOperands<Out>& o, Args args, const Op& op) {
  const Nvfp4GemmProblem& pb = o.pb;
  Nvfp4DeviceOperand a(o.a), b(o.b);
  DeviceBytes d(static_cast<size_t>(pb.batch * pb.m * pb.ldd()) * sizeof(Out));
  d.fill(kNvfp4GemmFillByte);
  DeviceBytes c(pb.in_place ? 16 : o.c.size() * sizeof(Out));
  if (pb.in_place) {
    // C's values where D's are, D's padding keeps the fill pattern (ldc = ldd).
    std::vector<uint8_t> init(d.size(), kNvfp4GemmFillByte);
    for (int64_t r = 0; r < pb.batch * pb.m; ++r)
      std::memcpy(init.data() + r * pb.ldd() * sizeof(Out), o.c.data() + r * pb.ldc(),
                  static_cast<size_t>(pb.n) * sizeof(Out));
    d.upload(init.data(), init.size());
  } else {
    c.upload(o.c.data(), o.c.size() * sizeof(Out));
  }
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = a.tensor(), args.b = b.tensor();
  args.d = reinterpret_cast<Out*>(d.data());
  args.ldd = pb.ldd();
  args.c = pb.in_place ? args.d : reinterpret_cast<const Out*>(c.data());
  args.ldc = pb.ldc();
  args.epilogue.alpha = pb.alpha, args.epilogue.beta = pb.beta;
  const bwgemm::Status s = op(args);
  EXPECT_TRUE(s.ok()) << s.to_string();
  synchronize();
  if (!pb.in_place) (void)c.download_checked();
  return download_as<OutBits<Out>>(d);
}

template <class Backend, class Cfg>
void check_nvfp4_gemm(const Nvfp4GemmProblem& pb, Data kind, uint32_t seed) {
  using Out = typename Cfg::Out;
  using Op = typename Backend::template Nvfp4Gemm<Cfg>;
  SCOPED_TRACE(describe(pb));
  const Nvfp4GemmOperands<Out> o(pb, kind, seed);
  const auto got = run_nvfp4_gemm_with(o, typename Op::Arguments{},
                                       [](const typename Op::Arguments& a) { return Op::run(a); });
  expect_nvfp4_gemm_matches<Out>(o, kind, got);
}

template <class C>
class Nvfp4GemmContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(Nvfp4GemmContract);

// Two N tiles, two K stages, the rows of two clusters: D = A·Bᵀ (the identity fast path), then D = 0.5 A·Bᵀ
// + 2 C.
TYPED_TEST_P(Nvfp4GemmContract, ExactTierIsBitwiseEqual) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  using Cfg = typename TypeParam::Cfg;
  const int64_t m = 2 * Cfg::kClusterBlockM, n = 2 * Cfg::kBlockN;
  check_nvfp4_gemm<typename TypeParam::Backend, Cfg>(Nvfp4GemmProblem{m, n, 512}, Data::kExact, 11);
  check_nvfp4_gemm<typename TypeParam::Backend, Cfg>(Nvfp4GemmProblem{m, n, 512, 1, 0.5f, 2.0f}, Data::kExact,
                                                     12);
}

TYPED_TEST_P(Nvfp4GemmContract, RealisticTierWithinTheFieldsTolerance) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(Nvfp4GemmProblem{256, 256, 512},
                                                                         Data::kRealistic, 21);
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4GemmProblem{256, 256, 512, 1, 0.75f, 0.5f}, Data::kRealistic, 22);
}

TYPED_TEST_P(Nvfp4GemmContract, TailRows) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  for (int64_t m : {1, 7, 100, 255, 300}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
        Nvfp4GemmProblem{m, 128, 256, 1, 1.0f, 0.5f}, Data::kRealistic, 31 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST_P(Nvfp4GemmContract, TailColumnsAndShortK) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  // N = 13 x 16, K = 3 x 64, padded rows of D and C.
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4GemmProblem{130, 208, 192, 1, 1.0f, 1.0f, 24, 8}, Data::kRealistic, 41);
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4GemmProblem{130, 208, 192, 1, 2.0f, 0.25f, 24, 8}, Data::kExact, 42);
}

TYPED_TEST_P(Nvfp4GemmContract, BatchOfThreeWithAlphaBetaAndPaddedRows) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4GemmProblem{96, 128, 256, 3, 0.75f, 1.5f, 8, 16}, Data::kRealistic, 51);
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(
      Nvfp4GemmProblem{96, 128, 256, 3, 0.5f, -1.0f, 8, 16}, Data::kExact, 52);
}

// D = alpha A·Bᵀ + beta D, C and D one buffer.
TYPED_TEST_P(Nvfp4GemmContract, InPlaceUpdate) {
  BWGEMM_CONTRACT_REQUIRE(TypeParam);
  Nvfp4GemmProblem pb{100, 144, 256, 2, 0.5f, 1.0f, 16};
  pb.in_place = true;
  check_nvfp4_gemm<typename TypeParam::Backend, typename TypeParam::Cfg>(pb, Data::kExact, 61);
}

// The Config's entry point applies bwgemm::validate before anything else and writes nothing when it
// refuses (the rules themselves: test/arguments).
TYPED_TEST_P(Nvfp4GemmContract, RefusesBadArgumentsAndLaunchesNothing) {
  using Cfg = typename TypeParam::Cfg;
  using Op = typename TypeParam::Backend::template Nvfp4Gemm<Cfg>;
  using Args = typename Op::Arguments;
  using Out = typename Cfg::Out;
  // The inputs may share memory (here A and B, data and scales), D (128 x 128) may not: it sits after them.
  constexpr size_t kInputBytes = 128 * 256 / 2;
  alignas(16) static uint8_t buf[kInputBytes + 128 * 128 * sizeof(Out)];
  Args good;
  good.m = 128, good.n = 128, good.k = 256;
  good.a = good.b = {buf, buf};
  good.d = reinterpret_cast<Out*>(buf + kInputBytes);
  ASSERT_TRUE(Op::can_implement(good).ok()) << Op::can_implement(good).to_string();
  Args a = good;
  a.m = 0;
  expect_refused(Op::run(a), "M must be");
  a = good, a.n = 120;
  expect_refused(Op::run(a), "N must be");
  a = good, a.k = 96;
  expect_refused(Op::run(a), "K must be");
  a = good, a.b.scales = nullptr;
  expect_refused(Op::run(a), "B scales is null");
  a = good, a.a.data = buf + 8;
  expect_refused(Op::run(a), "A data must be 16-byte aligned");
  a = good, a.epilogue.beta = 1.0f;  // C needed, not given
  expect_refused(Op::run(a), "C is null");
  a = good, a.epilogue.alpha = std::nanf("");
  expect_refused(Op::run(a), "alpha");
  a = good, a.d = reinterpret_cast<Out*>(buf);  // D over A
  expect_refused(Op::run(a), "D overlaps A data");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

REGISTER_TYPED_TEST_SUITE_P(Nvfp4GemmContract, ExactTierIsBitwiseEqual, RealisticTierWithinTheFieldsTolerance,
                            TailRows, TailColumnsAndShortK, BatchOfThreeWithAlphaBetaAndPaddedRows,
                            InPlaceUpdate, RefusesBadArgumentsAndLaunchesNothing);

}  // namespace bwgemm_test
