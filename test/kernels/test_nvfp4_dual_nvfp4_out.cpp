// The sm_100a NVFP4 dual GEMM with an NVFP4 C: Out = bwgemm::Nvfp4Output, the epilogue's fp32
// values quantized in the kernel. What must hold: the packed data and the blocked scales, padding bytes
// included, are byte for byte what bwgemm::quantize_nvfp4_host writes for the same fp32 values with the same
// global scale; nothing outside the two buffers is written (guard bands); bad arguments are refused by name
// and launch nothing.
//
// The fp32 values: the exact tier (test/support/nvfp4_dual_check.hpp: every product and sum exact in fp32)
// with epi::Multiply, so out = (alpha1 · gate) · (alpha2 · up) from the host reference NVFP4 GEMM is the
// kernel's value bit for bit. With the shipped SiLU (ptx::ex2_approx / rcp_approx) the emulation build also
// checks bit identity against epi::SiluMul evaluated on the host (the emulator's instructions), and every
// build checks the dequantized C against ref::silu within NVFP4's rounding bound.
//
// Compiled twice: host C++ against bwgemm::emu (label emu) and nvcc for sm_100a (label gpu; skips
// elsewhere).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_configs.cuh"
#include "bwgemm/reference/nvfp4_gemm.hpp"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "contract_common.hpp"
#include "device.hpp"
#include "nvfp4_dual_check.hpp"
#include "nvfp4_output_check.hpp"

namespace bwgemm_test {
namespace {

using SmallMOut = bwgemm::sm100::Nvfp4DualGemmSmallM<bwgemm::Nvfp4Output>;  // BlockN 64, pair, persistent
using LargeMOut = bwgemm::sm100::Nvfp4DualGemmLargeM<bwgemm::Nvfp4Output>;  // BlockN 128, pair, CLC

struct DeviceOperand {
  DeviceBytes data, scales;
  explicit DeviceOperand(const Nvfp4Operand& o) : data(o.data.size()), scales(o.scales.size()) {
    data.upload(o.data.data(), o.data.size());
    scales.upload(o.scales.data(), o.scales.size());
  }
  bwgemm::Nvfp4Tensor tensor() { return {data.data(), scales.data()}; }
};

Nvfp4OutShape out_shape(const Nvfp4DualProblem& pb) {
  return {pb.m, pb.n, pb.batch};
}

// Runs Cfg on the operands (through `run`, Cfg's entry point by default) and returns C's two buffers after
// checking their guard bands.
template <class Cfg>
Nvfp4OutResult run_nvfp4_out(const Nvfp4DualOperands& o, float global_scale, bool default_entry = false) {
  const Nvfp4DualProblem& pb = o.pb;
  DeviceOperand a(o.a), b1(o.b1), b2(o.b2);
  DeviceBytes c_data(out_shape(pb).data_bytes()), c_scales(out_shape(pb).scale_bytes());
  c_data.fill(kNvfp4OutFillByte);
  c_scales.fill(kNvfp4OutFillByte);
  typename bwgemm::sm100::Nvfp4DualGemm<Cfg>::Arguments args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
  args.c = {c_data.data(), c_scales.data()};
  args.c_global_scale = global_scale;
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  bwgemm::Status s;
  if constexpr (std::is_same_v<typename Cfg::Epilogue, bwgemm::epi::SiluMul>) {
    // The default entry: the public dispatch (bwgemm::dual_gemm_nvfp4), which runs sm100::dual_gemm_nvfp4.
    s = default_entry ? bwgemm::dual_gemm_nvfp4(args) : bwgemm::sm100::Nvfp4DualGemm<Cfg>::run(args);
  } else {
    s = bwgemm::sm100::Nvfp4DualGemm<Cfg>::run(args);
  }
  EXPECT_TRUE(s.ok()) << s.to_string();
  synchronize();
  return {c_data.download_checked(), c_scales.download_checked()};
}

// The fp32 epilogue values out = f(alpha1 · gate, alpha2 · up), batch x m x n, from the host reference GEMM.
template <class F>
std::vector<float> epilogue_values(const Nvfp4DualOperands& o, F f) {
  const Nvfp4DualProblem& pb = o.pb;
  const std::vector<float> gate = nvfp4_product(o.a, o.b1, 1.0f), up = nvfp4_product(o.a, o.b2, 1.0f);
  std::vector<float> out(gate.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = f(pb.alpha1 * gate[i], pb.alpha2 * up[i]);
  return out;
}

// quantize_nvfp4_host on `values` and a byte-for-byte comparison with the kernel's buffers
// (nvfp4_output_check.hpp).
int64_t expect_quantizer_bytes(const Nvfp4DualProblem& pb, const std::vector<float>& values,
                               float global_scale, const Nvfp4OutResult& got) {
  return expect_quantizer_bytes(out_shape(pb), values, global_scale, got, describe(pb));
}

// The exact tier with epi::Multiply: the kernel's C against the quantizer on the reference's values.
template <class Cfg>
void check_exact(const Nvfp4DualProblem& pb, uint32_t seed) {
  SCOPED_TRACE(describe(pb));
  const Nvfp4DualOperands o(pb, Data::kExact, seed);
  const std::vector<float> values = epilogue_values(o, [](float g, float u) { return g * u; });
  const float global_scale = calibrated_global_scale(values);
  const Nvfp4OutResult got =
      run_nvfp4_out<typename Cfg::template WithEpilogue<bwgemm::epi::Multiply>>(o, global_scale);
  expect_quantizer_bytes(pb, values, global_scale, got);
}

TEST(Sm100Nvfp4DualNvfp4Out, ExactTierMatchesTheQuantizerBitForBit) {
  BWGEMM_REQUIRE_SM100();
  // Two N tiles, two K stages, the rows of two clusters; alphas that keep every value exact.
  check_exact<SmallMOut>(Nvfp4DualProblem{512, 128, 512, 1, 0.5f, 2.0f}, 11);
  check_exact<LargeMOut>(Nvfp4DualProblem{512, 256, 512, 1, 2.0f, 0.25f}, 12);
}

// Rows past M inside the last 128-row scale atom get zero scales; N = 80 (5 scale columns, padded to 8):
// the second 64-column chunk holds one block and three padding scale columns.
TEST(Sm100Nvfp4DualNvfp4Out, TailRowsAndScalePadding) {
  BWGEMM_REQUIRE_SM100();
  for (int64_t m : {1, 7, 100, 255, 300}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_exact<SmallMOut>(Nvfp4DualProblem{m, 80, 128}, 31 + static_cast<uint32_t>(m));
  }
  check_exact<LargeMOut>(Nvfp4DualProblem{300, 208, 192}, 37);  // N = 13 x 16 (padded to 16), short K
}

TEST(Sm100Nvfp4DualNvfp4Out, BatchOfThreeWithAlphas) {
  BWGEMM_REQUIRE_SM100();
  check_exact<SmallMOut>(Nvfp4DualProblem{100, 144, 256, 3, 0.5f, 4.0f}, 51);
  check_exact<LargeMOut>(Nvfp4DualProblem{130, 272, 128, 2, 1.0f, 0.5f}, 52);
}

// A global scale that is not the calibrated one: a small one saturates blocks' scales at 448 (and codes at
// +-6), a large one sends small blocks' scales to e4m3 subnormals and zero. Still the quantizer's bytes.
TEST(Sm100Nvfp4DualNvfp4Out, UncalibratedGlobalScalesMatchTheQuantizer) {
  BWGEMM_REQUIRE_SM100();
  const Nvfp4DualProblem pb{128, 128, 256};
  const Nvfp4DualOperands o(pb, Data::kExact, 61);
  const std::vector<float> values = epilogue_values(o, [](float g, float u) { return g * u; });
  const float calibrated = calibrated_global_scale(values);
  using Cfg = SmallMOut::WithEpilogue<bwgemm::epi::Multiply>;
  for (float global_scale : {calibrated / 64.0f, calibrated * 1024.0f}) {
    SCOPED_TRACE("global scale " + std::to_string(global_scale));
    expect_quantizer_bytes(pb, values, global_scale, run_nvfp4_out<Cfg>(o, global_scale));
  }
}

// The shipped SiLU (through the NVFP4-output default entry point, which takes the tiled kernel even for
// M = 7): every build, the dequantized C within NVFP4's rounding of ref::silu (expect_within_nvfp4_rounding:
// half an e2m1 step of the block's decoded scale); the emulation build, also bit for bit the quantizer on
// epi::SiluMul's values (the emulator runs the same instructions on the host).
TEST(Sm100Nvfp4DualNvfp4Out, SiluThroughTheDefaultEntryPoint) {
  BWGEMM_REQUIRE_SM100();
  for (int64_t m : {7, 300}) {
    const Nvfp4DualProblem pb{m, 208, 256, 1, 0.5f, 1.0f};
    SCOPED_TRACE(describe(pb));
    const Nvfp4DualOperands o(pb, Data::kExact, 71 + static_cast<uint32_t>(m));
    const std::vector<float> want =
        epilogue_values(o, [](float g, float u) { return bwgemm::ref::silu(g) * u; });
    const float global_scale = calibrated_global_scale(want);
    const Nvfp4OutResult got = run_nvfp4_out<SmallMOut>(o, global_scale, /*default_entry=*/true);
    expect_within_nvfp4_rounding(out_shape(pb), got, want, global_scale);
#if BWGEMM_EMULATION
    const bwgemm::epi::SiluMul silu_mul{};
    expect_quantizer_bytes(pb, epilogue_values(o, [&](float g, float u) { return silu_mul(g, u); }),
                           global_scale, got);
#endif
  }
}

// Bad arguments are refused by name before anything runs; a refused call writes nothing.
TEST(Sm100Nvfp4DualNvfp4Out, RefusesBadArgumentsAndLaunchesNothing) {
  using Op = bwgemm::sm100::Nvfp4DualGemm<SmallMOut>;
  // M = 100, N = 64, K = 256: inputs (all six share memory), then C's data (100 x 32 bytes), then its
  // scales (one 512-byte atom).
  constexpr size_t kInput = 128 * 256 / 2, kData = 100 * 64 / 2, kScales = 512;
  alignas(16) static uint8_t buf[kInput + kData + kScales];
  Op::Arguments good;
  good.m = 100, good.n = 64, good.k = 256;
  good.a = good.b1 = good.b2 = {buf, buf};
  good.c = {buf + kInput, buf + kInput + kData};
  good.c_global_scale = 0.5f;
  ASSERT_TRUE(Op::can_implement(good).ok()) << Op::can_implement(good).to_string();
  Op::Arguments a = good;
  a.n = 40;
  expect_refused(Op::run(a), "N must be a positive multiple of 16");
  a = good, a.c.data = nullptr;
  expect_refused(Op::run(a), "C data is null");
  a = good, a.c.scales = nullptr;
  expect_refused(Op::run(a), "C scales is null");
  a = good, a.c.scales = buf + kInput + kData + 4;
  expect_refused(Op::run(a), "C scales must be 16-byte aligned");
  a = good, a.c.data = buf + 8;
  expect_refused(Op::run(a), "C data must be 16-byte aligned");
  a = good, a.c.data = buf;  // on the inputs
  expect_refused(Op::run(a), "C data overlaps");
  a = good, a.c.scales = buf + kInput;  // on C's data
  expect_refused(Op::run(a), "C data overlaps C scales");
  for (float bad : {0.0f, -1.0f, std::nanf(""), INFINITY}) {
    a = good, a.c_global_scale = bad;
    expect_refused(Op::run(a), "c_global_scale must be finite and > 0");
  }
  a = good, a.alpha2 = INFINITY;
  expect_refused(Op::run(a), "alpha1 and alpha2 must be finite");
  a = good, a.b2.scales = nullptr;
  expect_refused(Op::run(a), "B2 scales is null");
  expect_refused(bwgemm::sm100::dual_gemm_nvfp4(a), "B2 scales is null");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

}  // namespace
}  // namespace bwgemm_test
