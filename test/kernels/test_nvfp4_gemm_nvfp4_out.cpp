// The sm_100a NVFP4 GEMM with an NVFP4 D: Out = bwgemm::Nvfp4Output, the epilogue's fp32 values
// alpha · A·Bᵀ quantized in the kernel (the NVFP4 dual GEMM's NVFP4 output, test_nvfp4_dual_nvfp4_out.cpp).
// What must hold: the packed data and the blocked scales, padding bytes included, are byte for byte what
// bwgemm::quantize_nvfp4_host writes for the host reference's fp32 values (ref::nvfp4_gemm, not the kernel)
// with the same global scale; nothing outside the two buffers is written (guard bands); bad arguments, beta
// != 0 (no C with an NVFP4 D) among them, are refused by name and launch nothing.
//
// The fp32 values: the exact tier (every product and sum exact in fp32, so alpha · A·Bᵀ from the host
// reference is the kernel's value bit for bit, alpha's one rounding included). The realistic tier's sums are
// not exact (the summation orders differ): its dequantized D is checked against the reference within NVFP4's
// rounding bound.
//
// Compiled twice: host C++ against bwgemm::emu (label emu) and nvcc for sm_100a (label gpu; skips
// elsewhere).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_configs.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "contract_common.hpp"
#include "device.hpp"
#include "nvfp4_gemm_contract.hpp"  // Nvfp4GemmProblem, Nvfp4DeviceOperand
#include "nvfp4_output_check.hpp"

namespace bwgemm_test {

// The contract suite whose header this one borrows its problem and device operand from runs in
// test_nvfp4_gemm.cpp.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Nvfp4GemmContract);

namespace {

using SmallMOut = bwgemm::sm100::Nvfp4GemmSmallM<bwgemm::Nvfp4Output>;  // BlockN 64, pair, persistent
using LargeMOut = bwgemm::sm100::Nvfp4GemmLargeM<bwgemm::Nvfp4Output>;  // BlockN 128, pair, CLC
using Args = bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output>;

// A and B of the problem (pb.beta must be 0: there is no C).
struct Operands {
  Nvfp4GemmProblem pb;
  Nvfp4Operand a, b;
  Operands(const Nvfp4GemmProblem& p, Data kind, uint32_t seed)
      : pb(p),
        a(make_nvfp4_operand(p.m, p.k, p.batch, kind, seed)),
        b(make_nvfp4_operand(p.n, p.k, p.batch, kind, seed + 1)) {}
  Nvfp4OutShape shape() const { return {pb.m, pb.n, pb.batch}; }
  // The fp32 epilogue values alpha · A·Bᵀ, batch x m x n, from the host reference GEMM.
  std::vector<float> values() const { return nvfp4_product(a, b, pb.alpha); }
};

enum class Entry { kConfig, kSm100Default, kPublic };

// Runs Cfg (or a default entry point) on the operands and returns D's two buffers after checking their
// guard bands.
template <class Cfg>
Nvfp4OutResult run_nvfp4_out(const Operands& o, float global_scale, Entry entry = Entry::kConfig) {
  const Nvfp4GemmProblem& pb = o.pb;
  Nvfp4DeviceOperand a(o.a), b(o.b);
  DeviceBytes d_data(o.shape().data_bytes()), d_scales(o.shape().scale_bytes());
  d_data.fill(kNvfp4OutFillByte);
  d_scales.fill(kNvfp4OutFillByte);
  Args args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = a.tensor(), args.b = b.tensor();
  args.d = {d_data.data(), d_scales.data()};
  args.d_global_scale = global_scale;
  args.epilogue = {pb.alpha, 0.0f};
  const bwgemm::Status s = entry == Entry::kPublic         ? bwgemm::gemm_nvfp4(args)
                           : entry == Entry::kSm100Default ? bwgemm::sm100::nvfp4_gemm(args)
                                                           : bwgemm::sm100::Nvfp4Gemm<Cfg>::run(args);
  EXPECT_TRUE(s.ok()) << s.to_string();
  synchronize();
  return {d_data.download_checked(), d_scales.download_checked()};
}

// The exact tier: the kernel's D against the quantizer on the reference's values.
template <class Cfg>
void check_exact(const Nvfp4GemmProblem& pb, uint32_t seed, Entry entry = Entry::kConfig) {
  SCOPED_TRACE(describe(pb));
  const Operands o(pb, Data::kExact, seed);
  const std::vector<float> values = o.values();
  const float global_scale = calibrated_global_scale(values);
  expect_quantizer_bytes(o.shape(), values, global_scale, run_nvfp4_out<Cfg>(o, global_scale, entry),
                         describe(pb));
}

// Two N tiles, two K stages, the rows of two clusters; alpha 1 (the identity functor, not called) and an
// alpha whose product rounds (0.375 = 3/8: one fp32 rounding, the reference's and the kernel's alike).
TEST(Sm100Nvfp4GemmNvfp4Out, ExactTierMatchesTheQuantizerBitForBit) {
  BWGEMM_REQUIRE_SM100();
  check_exact<SmallMOut>(Nvfp4GemmProblem{512, 128, 512}, 11);
  check_exact<LargeMOut>(Nvfp4GemmProblem{512, 256, 512, 1, 0.375f}, 12);
}

// Rows past M inside the last 128-row scale atom get zero scales; N = 80 (5 scale columns, padded to 8):
// the second 64-column chunk holds one block and three padding scale columns. The CLC kernel too, with
// N = 13 x 16 (padded to 16) and short K, and with one row.
TEST(Sm100Nvfp4GemmNvfp4Out, TailRowsAndScalePadding) {
  BWGEMM_REQUIRE_SM100();
  for (int64_t m : {1, 7, 100, 255, 300}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_exact<SmallMOut>(Nvfp4GemmProblem{m, 80, 128, 1, 0.5f}, 31 + static_cast<uint32_t>(m));
  }
  check_exact<LargeMOut>(Nvfp4GemmProblem{300, 208, 192}, 37);
  check_exact<LargeMOut>(Nvfp4GemmProblem{1, 208, 64, 1, 2.0f}, 38);
}

TEST(Sm100Nvfp4GemmNvfp4Out, BatchOfThreeWithAlpha) {
  BWGEMM_REQUIRE_SM100();
  check_exact<SmallMOut>(Nvfp4GemmProblem{100, 144, 256, 3, 0.5f}, 51);
  check_exact<LargeMOut>(Nvfp4GemmProblem{130, 272, 128, 2, 4.0f}, 52);
}

// A global scale that is not the calibrated one: a small one saturates blocks' scales at 448 (and codes at
// +-6), a large one sends small blocks' scales to e4m3 subnormals and zero. Still the quantizer's bytes.
TEST(Sm100Nvfp4GemmNvfp4Out, UncalibratedGlobalScalesMatchTheQuantizer) {
  BWGEMM_REQUIRE_SM100();
  const Nvfp4GemmProblem pb{128, 128, 256};
  const Operands o(pb, Data::kExact, 61);
  const std::vector<float> values = o.values();
  const float calibrated = calibrated_global_scale(values);
  for (float global_scale : {calibrated / 64.0f, calibrated * 1024.0f}) {
    SCOPED_TRACE("global scale " + std::to_string(global_scale));
    expect_quantizer_bytes(o.shape(), values, global_scale, run_nvfp4_out<SmallMOut>(o, global_scale),
                           describe(pb));
  }
}

// The public entry point bwgemm::gemm_nvfp4 and sm100::nvfp4_gemm take the tiled kernels for an NVFP4 D
// whatever M (M = 7 and 64 are swap AB's for a 16-bit D): the kernel they name (diagnostics) and bit for bit
// the quantizer.
TEST(Sm100Nvfp4GemmNvfp4Out, DefaultEntryPointsTakeTheTiledKernelsWhateverM) {
  BWGEMM_REQUIRE_SM100();
  const struct {
    Nvfp4GemmProblem pb;
    Entry entry;
    const char* kernel;
  } cases[] = {{{7, 208, 256, 1, 0.5f}, Entry::kPublic, "Nvfp4GemmSmallM<Nvfp4Output>"},
               {{64, 80, 128, 2}, Entry::kSm100Default, "Nvfp4GemmSmallM<Nvfp4Output>"},
               {{300, 208, 128}, Entry::kPublic, "Nvfp4GemmLargeM<Nvfp4Output>"}};
  uint32_t seed = 71;
  for (const auto& c : cases) {
    bwgemm::set_diagnostics(true);
    ::testing::internal::CaptureStderr();
    check_exact<SmallMOut>(c.pb, seed++, c.entry);  // SmallMOut: unused with a default entry point
    const std::string said = ::testing::internal::GetCapturedStderr();
    bwgemm::set_diagnostics(false);
    EXPECT_NE(said.find(c.kernel), std::string::npos) << describe(c.pb) << ": " << said;
    EXPECT_EQ(said.find("SwapAb"), std::string::npos) << said;
  }
}

// The realistic tier (the field's data; the kernel's and the reference's summation orders differ): the
// dequantized D within NVFP4's rounding of the reference (expect_within_nvfp4_rounding: half an e2m1 step of
// the block's decoded scale, the fp32 sums' difference far below it).
TEST(Sm100Nvfp4GemmNvfp4Out, RealisticTierWithinNvfp4Rounding) {
  BWGEMM_REQUIRE_SM100();
  const Nvfp4GemmProblem pb{300, 208, 512, 1, 0.25f};
  SCOPED_TRACE(describe(pb));
  const Operands o(pb, Data::kRealistic, 81);
  const std::vector<float> want = o.values();
  const float global_scale = calibrated_global_scale(want);
  expect_within_nvfp4_rounding(o.shape(), run_nvfp4_out<LargeMOut>(o, global_scale, Entry::kPublic), want,
                               global_scale);
}

// Bad arguments are refused by name before anything runs; a refused call writes nothing.
TEST(Sm100Nvfp4GemmNvfp4Out, RefusesBadArgumentsAndLaunchesNothing) {
  using Op = bwgemm::sm100::Nvfp4Gemm<SmallMOut>;
  // M = 100, N = 64, K = 256: inputs (A and B share memory), then D's data (100 x 32 bytes), then its
  // scales (one 512-byte atom).
  constexpr size_t kInput = 128 * 256 / 2, kData = 100 * 64 / 2, kScales = 512;
  alignas(16) static uint8_t buf[kInput + kData + kScales];
  Args good;
  good.m = 100, good.n = 64, good.k = 256;
  good.a = good.b = {buf, buf};
  good.d = {buf + kInput, buf + kInput + kData};
  good.d_global_scale = 0.5f;
  ASSERT_TRUE(Op::can_implement(good).ok()) << Op::can_implement(good).to_string();
  Args a = good;
  a.n = 40;
  expect_refused(Op::run(a), "N must be a positive multiple of 16");
  a = good, a.m = 0;
  expect_refused(Op::run(a), "M must be >= 1");
  a = good, a.k = 100;
  expect_refused(Op::run(a), "K must be a positive multiple of 64");
  a = good, a.d.data = nullptr;
  expect_refused(Op::run(a), "D data is null");
  a = good, a.d.scales = nullptr;
  expect_refused(Op::run(a), "D scales is null");
  a = good, a.d.scales = buf + kInput + kData + 4;
  expect_refused(Op::run(a), "D scales must be 16-byte aligned");
  a = good, a.d.data = buf + 8;
  expect_refused(Op::run(a), "D data must be 16-byte aligned");
  a = good, a.d.data = buf;  // on the inputs
  expect_refused(Op::run(a), "D data overlaps");
  a = good, a.d.scales = buf + 64;  // on the inputs
  expect_refused(Op::run(a), "D scales overlaps A data");
  a = good, a.d.scales = buf + kInput;  // on D's data
  expect_refused(Op::run(a), "D data overlaps D scales");
  for (float bad : {0.0f, -1.0f, std::nanf(""), INFINITY}) {
    a = good, a.d_global_scale = bad;
    expect_refused(Op::run(a), "d_global_scale must be finite and > 0");
  }
  a = good, a.epilogue.beta = 1.0f;  // no C with an NVFP4 D
  expect_refused(Op::run(a), "beta must be 0 with an NVFP4 D");
  a = good, a.epilogue.alpha = INFINITY;
  expect_refused(Op::run(a), "alpha must be finite");
  a = good, a.b.scales = nullptr;
  expect_refused(Op::run(a), "B scales is null");
  // D's data of 2^30 x 2^30 / 2 bytes per batch: past TMA's 2^40-byte stride limit (A and B, K = 64, fit).
  a = good, a.m = a.n = int64_t{1} << 30, a.k = 64;
  expect_refused(Op::run(a), "D data: one batch (M x N / 2 bytes) must be below 2^40 bytes");
  // The default entry points check the same, before choosing a kernel.
  a = good, a.epilogue.beta = -0.5f;
  expect_refused(bwgemm::sm100::nvfp4_gemm(a), "beta must be 0 with an NVFP4 D");
  expect_refused(bwgemm::gemm_nvfp4(a), "beta must be 0 with an NVFP4 D");
  a = good, a.d.scales = nullptr;
  expect_refused(bwgemm::gemm_nvfp4(a), "D scales is null");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

}  // namespace
}  // namespace bwgemm_test
