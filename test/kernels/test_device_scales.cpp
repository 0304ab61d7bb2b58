// Device-pointer per-tensor scales on the sm_100a kernels (docs/api.md, "Device-pointer scales"):
// the four-launch sequence of test/contract/device_scale_contract.hpp (device values alone, the same
// arguments with other values written between two launches, host part x device value, null pointers bit for
// bit the host scales) and the refusals, on every kernel family that takes a per-tensor scale: the 16-bit
// GEMM (tiled and swap-AB, whole K and split K), the 16-bit dual GEMM (tiled, swap-AB whole and split), the
// NVFP4 GEMM (tiled, swap-AB whole and split), the NVFP4 dual GEMM (tiled, swap-AB whole and split), the
// NVFP4 outputs' global scales (the NVFP4 dual GEMM's C, the NVFP4 GEMM's D with its alpha), and the GPU
// quantizer's global scale. One small problem each (a few tiles), so the emulator suite stays short.
//
// Compiled twice: host C++ against bwgemm::emu (label emu) and nvcc for sm_100a (label gpu; skips
// elsewhere).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/dual_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/gemm_configs.cuh"
#include "bwgemm/kernels/sm100/gemm_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_swap_ab_configs.cuh"
#include "bwgemm/quantize.cuh"
#include "bwgemm/sm100/dual_gemm.cuh"
#include "bwgemm/sm100/dual_gemm_swap_ab.cuh"
#include "bwgemm/sm100/gemm.cuh"
#include "bwgemm/sm100/gemm_swap_ab.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_swap_ab.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm_swap_ab.cuh"
#include "device_scale_contract.hpp"
#include "nvfp4_dual_check.hpp"
#include "nvfp4_gemm_contract.hpp"
#include "nvfp4_output_check.hpp"

// nvfp4_gemm_contract.hpp's typed suite runs in test_nvfp4_gemm.cpp; here only its operands and checks.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Nvfp4GemmContract);

namespace bwgemm_test {
namespace {

namespace sm100 = bwgemm::sm100;
using bwgemm::epi::Multiply;

#if BWGEMM_EMULATION
// Two co-resident clusters: a persistent CTA takes several tiles (each reads the scales once).
const bool kTwoResidentClusters = [] {
  bwgemm::emulated_launch_settings().max_resident_clusters = 2;
  return true;
}();
#endif

// ---- 16-bit GEMM ---------------------------------------------------------------------------------------

TEST(Sm100DeviceScales, GemmTiled) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::GemmConfig<64, 0, 1, bwgemm::sched::StaticPersistent>;
  const auto run = [](const auto& args) { return sm100::Gemm<Cfg>::run(args); };
  // Three tile columns: persistent CTAs with several tiles; alpha alone (the identity's fast path must not
  // be taken: host alpha 1, beta 0), then alpha and beta with C.
  const GemmProblem pb{128, 192, 128, 1, bwgemm::BLayout::kColumnMajorKxN};
  check_gemm_device_scales<Cfg, __half>(pb, false, run);
  check_gemm_device_scales<Cfg, __nv_bfloat16>(pb, true, run);
}

TEST(Sm100DeviceScales, GemmTiledCtaPair) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::GemmConfig<128, 0, 2, bwgemm::sched::ClcWorkStealing>;
  check_gemm_device_scales<Cfg, __half>(GemmProblem{256, 256, 64}, true,
                                        [](const auto& args) { return sm100::Gemm<Cfg>::run(args); });
}

TEST(Sm100DeviceScales, GemmSwapAbWholeAndSplitK) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::GemmSwapAbConfig<16, 10>;
  for (int split : {1, 2}) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    const auto run = [split](const auto& args) { return sm100::GemmSwapAb<Cfg>::run(args, nullptr, split); };
    check_gemm_device_scales<Cfg, __half>(GemmProblem{20, 256, 128}, split == 1, run);
    check_gemm_device_scales<Cfg, __half>(GemmProblem{20, 256, 128}, split != 1, run);
  }
}

TEST(Sm100DeviceScales, GemmDefaultEntryPoint) {
  BWGEMM_REQUIRE_SM100();
  // bwgemm::gemm: M = 100 runs GemmSmallM (tiled), M = 8 a swap-AB kernel.
  const auto run = [](const auto& args) { return bwgemm::gemm(args); };
  check_gemm_device_scales<sm100::GemmSmallM<__half>, __half>(GemmProblem{100, 128, 64}, true, run);
  check_gemm_device_scales<sm100::GemmSmallM<__half>, __half>(GemmProblem{8, 128, 64}, true, run);
}

// ---- 16-bit dual GEMM ----------------------------------------------------------------------------------

TEST(Sm100DeviceScales, DualGemm16Bit) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::DualGemmConfig<64, 0, 2, bwgemm::sched::StaticPersistent>::WithEpilogue<Multiply>;
  check_dual_device_scales<__half, __half>(DualProblem{256, 192, 64},
                                           [](const auto& args) { return sm100::DualGemm<Cfg>::run(args); });
}

TEST(Sm100DeviceScales, DualGemm16BitSwapAbWholeAndSplitK) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::DualSwapAbConfig<16, 6>::WithEpilogue<Multiply>;
  // Two token tiles x two weight tiles (persistent CTAs with several tiles); N = 198 inside ldc = 200: the
  // last weight tile is partial and the split-K reduction's last quad has two columns (its per-column store).
  const DualProblem pb{20, 198, 128, 1, 0, 0, 200};
  for (int split : {1, 2}) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    check_dual_device_scales<__half, __half>(
        pb, [split](const auto& args) { return sm100::DualGemmSwapAb<Cfg>::run(args, nullptr, split); });
  }
}

// ---- NVFP4 GEMM ----------------------------------------------------------------------------------------

// The NVFP4 GEMM (Out, epi::LinearCombination) through `launch(args)` on problem `pb` (alpha, beta ignored).
template <class Out, class Launch>
void check_nvfp4_gemm_device_scales(Nvfp4GemmProblem pb, bool with_beta, const Launch& launch) {
  using Args = bwgemm::Nvfp4GemmArguments<Out>;
  SCOPED_TRACE(describe(pb) + (with_beta ? " alpha_ptr and beta_ptr" : " alpha_ptr"));
  constexpr uint32_t kSeed = 1703;
  pb.alpha = 1.0f, pb.beta = with_beta ? 1.0f : 0.0f;
  const Nvfp4GemmOperands<Out> o(pb, Data::kExact, kSeed);
  Nvfp4DeviceOperand a(o.a), b(o.b);
  DeviceBytes d(static_cast<size_t>(pb.batch * pb.m * pb.ldd()) * sizeof(Out)), c(o.c.size() * sizeof(Out));
  c.upload(o.c.data(), c.size());
  Args args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = a.tensor(), args.b = b.tensor();
  args.d = reinterpret_cast<Out*>(d.data()), args.ldd = pb.ldd();
  args.c = with_beta ? reinterpret_cast<const Out*>(c.data()) : nullptr, args.ldc = pb.ldc();
  const auto set = [with_beta](Args& x, float h0, float h1, const float* p0, const float* p1) {
    x.epilogue = {h0, with_beta ? h1 : 0.0f, p0, with_beta ? p1 : nullptr};
  };
  const auto launch_check = [&](const Args& x, float alpha, float beta) {
    Nvfp4GemmProblem want = pb;
    want.alpha = alpha, want.beta = with_beta ? beta : 0.0f;
    d.fill(kNvfp4GemmFillByte);
    const bwgemm::Status s = launch(x);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    EXPECT_EQ(expect_nvfp4_gemm_matches<Out>(Nvfp4GemmOperands<Out>(want, Data::kExact, kSeed), Data::kExact,
                                             download_as<OutBits<Out>>(d)),
              0)
        << "alpha " << alpha << ", beta " << beta;
  };
  const auto launch_refused = [&](const Args& x, const char* fragment) {
    d.fill(kNvfp4GemmFillByte);
    expect_refused_untouched(launch(x), fragment, d, kNvfp4GemmFillByte);
  };
  check_scale_runs(args, "alpha_ptr", with_beta ? "beta_ptr" : nullptr, set, launch_check, launch_refused);
}

TEST(Sm100DeviceScales, Nvfp4GemmTiled) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::Nvfp4GemmConfig<64, 9, 2, bwgemm::sched::StaticPersistent>;
  const auto run = [](const auto& args) { return sm100::Nvfp4Gemm<Cfg>::run(args); };
  check_nvfp4_gemm_device_scales<__half>(Nvfp4GemmProblem{256, 128, 256}, false, run);
  check_nvfp4_gemm_device_scales<__half>(Nvfp4GemmProblem{256, 128, 256}, true, run);
}

TEST(Sm100DeviceScales, Nvfp4GemmSwapAbWholeAndSplitK) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::Nvfp4GemmSwapAbConfig<16, 10>;
  for (int split : {1, 2}) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    check_nvfp4_gemm_device_scales<__half>(Nvfp4GemmProblem{5, 256, 512}, true, [split](const auto& args) {
      return sm100::Nvfp4GemmSwapAb<Cfg>::run(args, nullptr, split);
    });
  }
}

// ---- NVFP4 dual GEMM -----------------------------------------------------------------------------------

// The NVFP4 dual GEMM through `launch(args)`, which runs an epi::Multiply Config with fp16 C (the exact
// tier's: C = round((alpha1 · gate) · (alpha2 · up)) bit for bit), on problem `pb` (its alphas ignored).
template <class Launch>
void check_nvfp4_dual_device_scales(Nvfp4DualProblem pb, const Launch& launch) {
  using Args = bwgemm::Nvfp4DualGemmArguments<__half, Multiply>;
  SCOPED_TRACE(describe(pb) + " alpha1_ptr and alpha2_ptr");
  constexpr uint32_t kSeed = 1704;
  const Nvfp4DualOperands o(pb, Data::kExact, kSeed);
  Nvfp4DeviceOperand a(o.a), b1(o.b1), b2(o.b2);
  DeviceBytes c(static_cast<size_t>(pb.batch * pb.m * pb.ldc() * 2));
  Args args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
  args.c = reinterpret_cast<__half*>(c.data()), args.ldc = pb.ldc();
  const auto set = [](Args& x, float h0, float h1, const float* p0, const float* p1) {
    x.alpha1 = h0, x.alpha2 = h1, x.alpha1_ptr = p0, x.alpha2_ptr = p1;
  };
  const auto launch_check = [&](const Args& x, float alpha1, float alpha2) {
    Nvfp4DualProblem want = pb;
    want.alpha1 = alpha1, want.alpha2 = alpha2;
    c.fill(kDualFillByte);
    const bwgemm::Status s = launch(x);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    EXPECT_EQ(expect_nvfp4_dual_matches<__half>(Nvfp4DualOperands(want, Data::kExact, kSeed), Data::kExact,
                                                download_as<uint16_t>(c)),
              0)
        << "alpha1 " << alpha1 << ", alpha2 " << alpha2;
  };
  const auto launch_refused = [&](const Args& x, const char* fragment) {
    c.fill(kDualFillByte);
    expect_refused_untouched(launch(x), fragment, c, kDualFillByte);
  };
  check_scale_runs(args, "alpha1_ptr", "alpha2_ptr", set, launch_check, launch_refused);
}

TEST(Sm100DeviceScales, Nvfp4DualTiled) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::Nvfp4DualGemmConfig<64, 7, 2, bwgemm::sched::StaticPersistent>::WithEpilogue<Multiply>;
  check_nvfp4_dual_device_scales(Nvfp4DualProblem{256, 128, 256},
                                 [](const auto& args) { return sm100::Nvfp4DualGemm<Cfg>::run(args); });
}

TEST(Sm100DeviceScales, Nvfp4DualSwapAbWholeAndSplitK) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::Nvfp4DualSwapAbConfig<16, 5>::WithEpilogue<Multiply>;
  for (int split : {1, 2}) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    check_nvfp4_dual_device_scales(Nvfp4DualProblem{5, 256, 512}, [split](const auto& args) {
      return sm100::Nvfp4DualGemmSwapAb<Cfg>::run(args, nullptr, split);
    });
  }
}

// ---- the NVFP4 output's global scale ------------------------------------------------------------------

// An NVFP4 output of M x N (one batch) in device memory: its packed data and blocked scales.
struct Nvfp4OutBuffers {
  Nvfp4OutShape shape;
  DeviceBytes data, scales;
  explicit Nvfp4OutBuffers(const Nvfp4OutShape& s)
      : shape(s), data(s.data_bytes()), scales(s.scale_bytes()) {}
  bwgemm::Nvfp4OutputTensor tensor() { return {data.data(), scales.data()}; }
  void fill() {
    data.fill(kNvfp4OutFillByte);
    scales.fill(kNvfp4OutFillByte);
  }
  Nvfp4OutResult download() const { return {data.download_checked(), scales.download_checked()}; }
};

// A launch on the freshly filled output: it succeeds and writes byte for byte what quantize_nvfp4_host
// writes for `values` (the reference's fp32 epilogue values) with `global_scale`; returns the bytes.
template <class Launch>
Nvfp4OutResult expect_nvfp4_out_quantized(Nvfp4OutBuffers& out, const Launch& launch,
                                          const std::vector<float>& values, float global_scale,
                                          const std::string& what) {
  out.fill();
  const bwgemm::Status s = launch();
  EXPECT_TRUE(s.ok()) << s.to_string();
  synchronize();
  Nvfp4OutResult got = out.download();
  EXPECT_EQ(expect_quantizer_bytes(out.shape, values, global_scale, got, what), 0);
  return got;
}

// A refused launch on the freshly filled output: refused by name, neither buffer written.
template <class Launch>
void expect_nvfp4_out_refused(Nvfp4OutBuffers& out, const Launch& launch, const char* fragment) {
  out.fill();
  expect_refused_untouched(launch(), fragment, out.data, kNvfp4OutFillByte);
  EXPECT_EQ(out.scales.download_checked(), std::vector<uint8_t>(out.scales.size(), kNvfp4OutFillByte))
      << "a refused call wrote the output's scales";
}

// The NVFP4 dual GEMM with an NVFP4 C (epi::Multiply): alpha1_ptr, alpha2_ptr and c_global_scale_ptr; two
// launches of the same arguments with other device values between them, each byte for byte what
// quantize_nvfp4_host writes for the reference's fp32 values and the effective global scale; the null
// pointers with the last launch's effective scales as host values: bitwise its bytes; a misaligned
// c_global_scale_ptr refused, nothing written.
TEST(Sm100DeviceScales, Nvfp4DualNvfp4OutputGlobalScale) {
  BWGEMM_REQUIRE_SM100();
  using Cfg =
      sm100::Nvfp4DualGemmConfig<64, 7, 2, bwgemm::sched::StaticPersistent, Multiply, bwgemm::Nvfp4Output>;
  const Nvfp4DualProblem pb{200, 128, 256};
  const Nvfp4DualOperands o(pb, Data::kExact, 1705);
  const std::vector<float> gate = nvfp4_product(o.a, o.b1, 1.0f), up = nvfp4_product(o.a, o.b2, 1.0f);
  Nvfp4DeviceOperand a(o.a), b1(o.b1), b2(o.b2);
  Nvfp4OutBuffers c({pb.m, pb.n, 1});
  DeviceScale alpha1(1.0f), alpha2(1.0f), global(1.0f);
  typename sm100::Nvfp4DualGemm<Cfg>::Arguments args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = a.tensor(), args.b1 = b1.tensor(), args.b2 = b2.tensor();
  args.c = c.tensor();
  constexpr float kHostGlobal = 0.125f;  // host part; the device parts below make 1/64 and 1/32
  args.c_global_scale = kHostGlobal;
  args.alpha1_ptr = alpha1.ptr(), args.alpha2_ptr = alpha2.ptr(), args.c_global_scale_ptr = global.ptr();
  const auto run = [](const auto& x) { return [&x] { return sm100::Nvfp4DualGemm<Cfg>::run(x); }; };
  const struct { float alpha1, alpha2, global; } values[] = {{2.0f, 0.5f, 0.125f}, {0.5f, -1.0f, 0.25f}};
  Nvfp4OutResult last;
  for (const auto& v : values) {
    const std::string what = "device alphas " + std::to_string(v.alpha1) + ", " + std::to_string(v.alpha2) +
                             ", global scale part " + std::to_string(v.global);
    SCOPED_TRACE(what);
    alpha1.set(v.alpha1), alpha2.set(v.alpha2), global.set(v.global);
    std::vector<float> out(gate.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = (v.alpha1 * gate[i]) * (v.alpha2 * up[i]);
    last = expect_nvfp4_out_quantized(c, run(args), out, kHostGlobal * v.global, what);
  }
  auto plain = args;  // no device scales: the last launch's effective scales as host values
  plain.alpha1 = values[1].alpha1, plain.alpha2 = values[1].alpha2;
  plain.c_global_scale = kHostGlobal * values[1].global;
  plain.alpha1_ptr = plain.alpha2_ptr = plain.c_global_scale_ptr = nullptr;
  c.fill();
  ASSERT_TRUE(sm100::Nvfp4DualGemm<Cfg>::run(plain).ok());
  synchronize();
  const Nvfp4OutResult plain_bytes = c.download();
  EXPECT_EQ(plain_bytes.data, last.data) << "null pointers: not bitwise the host scales";
  EXPECT_EQ(plain_bytes.scales, last.scales) << "null pointers: not bitwise the host scales";
  auto bad = args;
  bad.c_global_scale_ptr = global.misaligned();
  expect_nvfp4_out_refused(c, run(bad), "c_global_scale_ptr must be 4-byte aligned");
}

// The NVFP4 GEMM with an NVFP4 D (epi::LinearCombination): alpha_ptr and d_global_scale_ptr, as the dual's
// above. The pointers set once, then device values written between two launches of the very same
// arguments: each byte for byte quantize_nvfp4_host of alpha · A·Bᵀ (the reference's values, exact tier;
// alpha = 1 · the device alpha) with d_global_scale · the device part; the null pointers with the last
// launch's effective scales as host values: bitwise its bytes; then refusals with nothing written (each
// pointer misaligned, the global scale's pointer inside D's scales, a beta_ptr; natively host memory).
TEST(Sm100DeviceScales, Nvfp4GemmNvfp4OutputAlphaAndGlobalScale) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = sm100::Nvfp4GemmConfig<64, 9, 2, bwgemm::sched::StaticPersistent,
                                     bwgemm::epi::LinearCombination, bwgemm::Nvfp4Output>;
  // M = 200: 56 rows of scale padding; N = 256: four tile columns for two resident clusters (a persistent
  // CTA reads the scales once for two tiles).
  const Nvfp4GemmProblem pb{200, 256, 256};
  const Nvfp4Operand ao = make_nvfp4_operand(pb.m, pb.k, 1, Data::kExact, 1706);
  const Nvfp4Operand bo = make_nvfp4_operand(pb.n, pb.k, 1, Data::kExact, 1707);
  const std::vector<float> product = nvfp4_product(ao, bo, 1.0f);
  Nvfp4DeviceOperand a(ao), b(bo);
  Nvfp4OutBuffers d({pb.m, pb.n, 1});
  DeviceScale alpha(1.0f), global(1.0f);
  bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = a.tensor(), args.b = b.tensor();
  args.d = d.tensor();
  constexpr float kHostGlobal = 0.125f;  // host part (host alpha: the default 1)
  args.d_global_scale = kHostGlobal;
  args.epilogue.alpha_ptr = alpha.ptr(), args.d_global_scale_ptr = global.ptr();
  const auto run = [](const auto& x) { return [&x] { return sm100::Nvfp4Gemm<Cfg>::run(x); }; };
  const struct { float alpha, global; } values[] = {{2.0f, 0.125f}, {-0.5f, 0.25f}};
  Nvfp4OutResult last;
  for (const auto& v : values) {
    const std::string what =
        "device alpha " + std::to_string(v.alpha) + ", global scale part " + std::to_string(v.global);
    SCOPED_TRACE(what);
    alpha.set(v.alpha), global.set(v.global);
    std::vector<float> out(product.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = v.alpha * product[i];
    last = expect_nvfp4_out_quantized(d, run(args), out, kHostGlobal * v.global, what);
  }
  auto plain = args;  // no device scales: the last launch's effective scales as host values
  plain.epilogue = {values[1].alpha, 0.0f};
  plain.d_global_scale = kHostGlobal * values[1].global;
  plain.d_global_scale_ptr = nullptr;
  d.fill();
  ASSERT_TRUE(sm100::Nvfp4Gemm<Cfg>::run(plain).ok());
  synchronize();
  const Nvfp4OutResult plain_bytes = d.download();
  EXPECT_EQ(plain_bytes.data, last.data) << "null pointers: not bitwise the host scales";
  EXPECT_EQ(plain_bytes.scales, last.scales) << "null pointers: not bitwise the host scales";
  auto bad = args;
  bad.epilogue.alpha_ptr = alpha.misaligned();
  expect_nvfp4_out_refused(d, run(bad), "alpha_ptr must be 4-byte aligned");
  bad = args, bad.d_global_scale_ptr = global.misaligned();
  expect_nvfp4_out_refused(d, run(bad), "d_global_scale_ptr must be 4-byte aligned");
  bad = args, bad.d_global_scale_ptr = reinterpret_cast<const float*>(d.scales.data());
  expect_nvfp4_out_refused(d, run(bad), "D scales overlaps d_global_scale_ptr");
  bad = args, bad.epilogue.beta = 1.0f, bad.epilogue.beta_ptr = global.ptr();
  expect_nvfp4_out_refused(d, run(bad), "beta must be 0 with an NVFP4 D");
#if !BWGEMM_EMULATION
  // Host memory: refused by the operands' device check (the emulator's global memory is host memory).
  float host_value = 1.0f;
  bad = args, bad.d_global_scale_ptr = &host_value;
  expect_nvfp4_out_refused(d, run(bad), "not device-accessible memory");
#endif
}

// ---- the GPU quantizer's global scale ------------------------------------------------------------------

// quantize_nvfp4 with global_scale_ptr: byte for byte the host quantizer with global_scale · *ptr, the
// value followed between two calls with the same arguments; a misaligned pointer refused.
TEST(DeviceScales, QuantizerGlobalScale) {
  std::string why;
  if (!can_run_sm100(&why) && !can_run_sm90(&why))
    GTEST_SKIP() << "needs a CUDA GPU or the emulator: " << why;
  constexpr int64_t kRows = 40, kK = 64;
  std::vector<float> x(static_cast<size_t>(kRows * kK));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50) / 8.0f;
  const size_t packed_bytes = kRows * kK / 2;
  const size_t scale_bytes = static_cast<size_t>(bwgemm::blocked_scale_bytes(kRows, kK / 16));
  DeviceBytes dx(x.size() * sizeof(float)), packed(packed_bytes), scales(scale_bytes);
  dx.upload(x.data(), dx.size());
  DeviceScale device(0.5f);
  const float host = 0.25f;
  for (float value : {0.5f, 8.0f}) {
    SCOPED_TRACE("device value " + std::to_string(value));
    device.set(value);
    packed.fill(0xEE), scales.fill(0xEE);
    const bwgemm::Status s = bwgemm::quantize_nvfp4(reinterpret_cast<const float*>(dx.data()), kRows, kK, 1,
                                                    kK, host, device.ptr(), packed.data(), scales.data());
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    std::vector<uint8_t> want_packed(packed_bytes), want_scales(scale_bytes);
    ASSERT_TRUE(bwgemm::quantize_nvfp4_host(x.data(), kRows, kK, 1, kK, host * value, want_packed.data(),
                                            want_scales.data())
                    .ok());
    EXPECT_EQ(packed.download_checked(), want_packed);
    EXPECT_EQ(scales.download_checked(), want_scales);
  }
  packed.fill(0xEE);
  expect_refused_untouched(bwgemm::quantize_nvfp4(reinterpret_cast<const float*>(dx.data()), kRows, kK, 1, kK,
                                                  host, device.misaligned(), packed.data(), scales.data()),
                           "global_scale_ptr must be 4-byte aligned", packed, 0xEE);
}

}  // namespace
}  // namespace bwgemm_test
