// Device-pointer per-tensor scales (docs/api.md, "Device-pointer scales"): what every kernel that
// takes one must do, written once for the GEMM (alpha_ptr, beta_ptr of epi::LinearCombination), the 16-bit
// dual GEMM and the NVFP4 GEMM and dual GEMM (alpha1_ptr, alpha2_ptr), instantiated per backend
// (test/kernels: sm_100a, in the emulator and natively; test/sm90: sm_90a natively).
//
// Each check makes the same four launches on one exact-tier problem (every product and sum exact in fp32, so
// the output is bitwise the host reference's), with the same two scale buffers in device memory:
//   0. host parts 1, device values (0.5, -1): the device values alone (a caller passing only the pointers)
//   1. the very same arguments, other values written to the buffers between the launches (2, 0.25): the
//      output follows the buffers (what a replayed CUDA graph needs)
//   2. host parts (2, -0.5) with those device values: the effective scales are host · device (4, -0.125)
//   3. null pointers with host scales (4, -0.125): bitwise what launch 2 wrote
// (The first scale stays positive: without C the NVFP4 GEMM's host reference, ref::nvfp4_gemm_linear, adds
// +0.0 for the absent beta · C, so a negative alpha times a zero sum is +0 there and -0 in the kernels; a
// difference of the reference's, not of the device scales.)
// and then refusals: a misaligned pointer (and natively a host-memory one) is refused by name, and the output
// keeps its fill pattern.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "contract_common.hpp"
#include "device.hpp"
#include "dual_gemm_check.hpp"
#include "gemm_check.hpp"

namespace bwgemm_test {

// One float in device memory between guard bands: the device part of a scale.
class DeviceScale {
 public:
  explicit DeviceScale(float v) : bytes_(2 * sizeof(float)) { set(v); }
  // Writes the value (a synchronous copy on the default stream: after the launches before it).
  void set(float v) { bytes_.upload(&v, sizeof(v)); }
  const float* ptr() { return reinterpret_cast<const float*>(bytes_.data()); }
  const float* misaligned() { return reinterpret_cast<const float*>(bytes_.data() + 2); }  // 2 bytes in

 private:
  DeviceBytes bytes_;
};

// One launch of the sequence above: the host parts, the device values, whether the pointers are given.
struct ScaleRun {
  float host[2];
  float device[2];
  bool pointers;
};
inline constexpr ScaleRun kScaleRuns[] = {
    {{1.0f, 1.0f}, {0.5f, -1.0f}, true},
    {{1.0f, 1.0f}, {2.0f, 0.25f}, true},  // the first launch's arguments, kept; only the buffers change
    {{2.0f, -0.5f}, {2.0f, 0.25f}, true},
    {{4.0f, -0.125f}, {0.0f, 0.0f}, false},
};

// The sequence on `args`: set(args, host0, host1, ptr0, ptr1) writes a run's host parts and pointers into the
// arguments; launch_check(args, effective0, effective1) launches (on an output refilled with its fill
// pattern) and compares with the reference for those effective scales; launch_refused(args, fragment)
// launches, expects a refusal whose message holds `fragment` and an untouched output. `second` names the
// second scale's pointer ("beta_ptr", "alpha2_ptr"), or null where the check uses the first only.
template <class Args, class Set, class LaunchCheck, class LaunchRefused>
void check_scale_runs(Args args, const char* first, const char* second, const Set& set,
                      const LaunchCheck& launch_check, const LaunchRefused& launch_refused) {
  DeviceScale s0(0.0f), s1(0.0f);
  const bool two = second != nullptr;
  for (int i = 0; i < 4; ++i) {
    const ScaleRun& r = kScaleRuns[i];
    SCOPED_TRACE("launch " + std::to_string(i) + " of the device-scale sequence");
    if (r.pointers) {
      s0.set(r.device[0]);
      s1.set(r.device[1]);
    }
    if (i != 1)
      set(args, r.host[0], r.host[1], r.pointers ? s0.ptr() : nullptr,
          r.pointers && two ? s1.ptr() : nullptr);
    const float e0 = r.pointers ? r.host[0] * r.device[0] : r.host[0];
    const float e1 = r.pointers && two ? r.host[1] * r.device[1] : r.host[1];
    launch_check(args, e0, e1);
  }
  const std::string misaligned = " must be 4-byte aligned";
  set(args, 1.0f, 1.0f, s0.misaligned(), nullptr);
  launch_refused(args, (std::string(first) + misaligned).c_str());
  if (two) {
    set(args, 1.0f, 1.0f, nullptr, s1.misaligned());
    launch_refused(args, (std::string(second) + misaligned).c_str());
  }
#if !BWGEMM_EMULATION
  // Host memory: refused by the operands' device check (the emulator's global memory is host memory).
  float host_value = 1.0f;
  set(args, 1.0f, 1.0f, &host_value, nullptr);
  launch_refused(args, "not device-accessible memory");
#endif
}

// A refused launch: kInvalidArgument naming the problem, and `output` (filled with `fill`) unchanged.
inline void expect_refused_untouched(const bwgemm::Status& s, const char* fragment, const DeviceBytes& output,
                                     uint8_t fill) {
  expect_refused(s, fragment);
  synchronize();
  const std::vector<uint8_t> bytes = output.download_checked();
  size_t changed = 0;
  for (uint8_t b : bytes) changed += b != fill;
  EXPECT_EQ(changed, 0u) << "a refused call wrote its output";
}

// The GEMM (Cfg's output type, epi::LinearCombination) through `launch(args)` on problem `pb` (its alpha and
// beta are ignored): alpha_ptr alone, or with `with_beta` alpha_ptr and beta_ptr with C read.
template <class Cfg, class In, class Launch>
void check_gemm_device_scales(GemmProblem pb, bool with_beta, const Launch& launch) {
  using Out = typename Cfg::Out;
  using Args = bwgemm::GemmArguments<In, Out, bwgemm::epi::LinearCombination>;
  SCOPED_TRACE(describe(pb) + (with_beta ? " alpha_ptr and beta_ptr" : " alpha_ptr") +
               " in=" + type_name<In>() + " out=" + type_name<Out>());
  constexpr uint32_t kSeed = 1701;
  pb.alpha = 1.0f, pb.beta = with_beta ? 1.0f : 0.0f;
  const GemmOperands<In, Out> o(pb, Data::kExact, kSeed);  // the operands (the same for any alpha, beta)
  DeviceBytes a(o.a.size() * sizeof(In)), b(o.b.size() * sizeof(In)), c(o.c.size() * sizeof(Out)),
      d(static_cast<size_t>(o.d_elements()) * sizeof(Out));
  a.upload(o.a.data(), a.size());
  b.upload(o.b.data(), b.size());
  c.upload(o.c.data(), c.size());
  Args args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = reinterpret_cast<const In*>(a.data()), args.lda = o.lda, args.batch_stride_a = o.sa;
  args.b = reinterpret_cast<const In*>(b.data()), args.b_layout = pb.b_layout, args.ldb = o.ldb;
  args.batch_stride_b = o.sb;
  args.c = with_beta ? reinterpret_cast<const Out*>(c.data()) : nullptr;
  args.ldc = o.ldc, args.batch_stride_c = o.sc;
  args.d = reinterpret_cast<Out*>(d.data()), args.ldd = o.ldd, args.batch_stride_d = o.sd;
  const auto set = [with_beta](Args& x, float h0, float h1, const float* p0, const float* p1) {
    x.epilogue = {h0, with_beta ? h1 : 0.0f, p0, with_beta ? p1 : nullptr};
  };
  const auto launch_check = [&](const Args& x, float alpha, float beta) {
    GemmProblem want = pb;
    want.alpha = alpha, want.beta = with_beta ? beta : 0.0f;
    d.fill(kGemmFillByte);
    const bwgemm::Status s = launch(x);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    EXPECT_EQ(expect_gemm_matches(GemmOperands<In, Out>(want, Data::kExact, kSeed), Data::kExact,
                                  download_as<Out>(d)),
              0)
        << "alpha " << alpha << ", beta " << beta;
  };
  const auto launch_refused = [&](const Args& x, const char* fragment) {
    d.fill(kGemmFillByte);
    expect_refused_untouched(launch(x), fragment, d, kGemmFillByte);
  };
  check_scale_runs(args, "alpha_ptr", with_beta ? "beta_ptr" : nullptr, set, launch_check, launch_refused);
}

// The 16-bit dual GEMM through `launch(args)`, which runs an epi::Multiply Config (the exact tier's: C =
// round((alpha1 · A·B1ᵀ) · (alpha2 · A·B2ᵀ)) bit for bit), on problem `pb` (its alphas ignored).
template <class In, class Out, class Launch>
void check_dual_device_scales(DualProblem pb, const Launch& launch) {
  using Args = bwgemm::DualGemmArguments<In, Out, bwgemm::epi::Multiply>;
  SCOPED_TRACE(describe(pb) + " alpha1_ptr and alpha2_ptr in=" + type_name<In>() +
               " out=" + type_name<Out>());
  constexpr uint32_t kSeed = 1702;
  const DualOperands<In, Out> o(pb, Data::kExact, kSeed);
  DeviceBytes a(o.a.size() * sizeof(In)), b1(o.b1.size() * sizeof(In)), b2(o.b2.size() * sizeof(In)),
      c(static_cast<size_t>(o.c_elements()) * sizeof(Out));
  a.upload(o.a.data(), a.size());
  b1.upload(o.b1.data(), b1.size());
  b2.upload(o.b2.data(), b2.size());
  Args args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = reinterpret_cast<const In*>(a.data());
  args.b1 = reinterpret_cast<const In*>(b1.data());
  args.b2 = reinterpret_cast<const In*>(b2.data());
  args.c = reinterpret_cast<Out*>(c.data());
  args.lda = pb.lda, args.ldb = pb.ldb, args.ldc = pb.ldc;
  const auto set = [](Args& x, float h0, float h1, const float* p0, const float* p1) {
    x.alpha1 = h0, x.alpha2 = h1, x.alpha1_ptr = p0, x.alpha2_ptr = p1;
  };
  const auto launch_check = [&](const Args& x, float alpha1, float alpha2) {
    DualProblem want = pb;
    want.alpha1 = alpha1, want.alpha2 = alpha2;
    c.fill(kDualPoisonByte);
    const bwgemm::Status s = launch(x);
    ASSERT_TRUE(s.ok()) << s.to_string();
    synchronize();
    EXPECT_EQ(expect_dual_matches(DualOperands<In, Out>(want, Data::kExact, kSeed), Data::kExact,
                                  download_as<Out>(c)),
              0)
        << "alpha1 " << alpha1 << ", alpha2 " << alpha2;
  };
  const auto launch_refused = [&](const Args& x, const char* fragment) {
    c.fill(kDualPoisonByte);
    expect_refused_untouched(launch(x), fragment, c, kDualPoisonByte);
  };
  check_scale_runs(args, "alpha1_ptr", "alpha2_ptr", set, launch_check, launch_refused);
}

}  // namespace bwgemm_test
