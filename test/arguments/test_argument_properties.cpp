// A generated battery of bad inputs for every public entry point, run in the emulator (label emu): sizes at
// and past each limit, 2^k boundaries, overflowing products, negative values, strides below their minimum,
// misaligned and past TMA's 2^40 bytes, null and misaligned pointers, outputs aliasing inputs. Each case
// changes one argument of a valid call whose buffers are small and guarded; the call must return
// kInvalidArgument naming that argument, write nothing (every output keeps its fill, every guard band
// intact) and return (a crash or a hang fails the ctest). The case count is printed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/quantize.cuh"
#include "device.hpp"

namespace {

using bwgemm::Status;
using bwgemm::StatusCode;
using bwgemm_test::DeviceBytes;
using f16 = __half;
using bf16 = __nv_bfloat16;

constexpr uint8_t kFill = 0x5A;

// Values that break a rule whatever the rest of the call: non-positive, past the limits, 2^k around them,
// and the extremes of int64.
std::vector<int64_t> bad_extents() {
  return {0,
          -1,
          -8,
          (int64_t{1} << 31) - 1016,
          int64_t{1} << 31,
          (int64_t{1} << 31) + 8,
          int64_t{1} << 32,
          int64_t{1} << 40,
          int64_t{1} << 62,
          INT64_MAX - 7,
          INT64_MIN};
}
// Leading dimensions and strides that break a rule: below the minimum `min` (when the minimum is above one
// alignment step), misaligned, negative, at or past 2^40 bytes of 16-bit elements, or near 2^63. Every value
// here is invalid whatever the rest of the call, so no case can launch.
std::vector<int64_t> bad_strides(int64_t min, int64_t align) {
  std::vector<int64_t> v = {
      min + 1,          -align,        int64_t{1} << 39, int64_t{1} << 40, (int64_t{1} << 40) + 8,
      int64_t{1} << 60, INT64_MAX - 7, INT64_MIN};
  if (min > align) v.push_back(min - align);
  if (align > 1) v.push_back(min + align / 2);
  return v;
}

// One case per bad M, N and K of bad_extents(), for any arguments struct with m, n and k; `add(what,
// fragment, change)` registers a case.
template <class Args, class Add>
void add_bad_extents(const Add& add) {
  for (int64_t v : bad_extents()) {
    add("M = " + std::to_string(v), "M must be", [v](Args& a) { a.m = v; });
    add("N = " + std::to_string(v), "N must be", [v](Args& a) { a.n = v; });
    add("K = " + std::to_string(v), "K must be", [v](Args& a) { a.k = v; });
  }
}

struct Case {
  std::string what;      // "lda = 68"
  std::string fragment;  // what the message must contain
  std::function<Status()> call;
};

// Runs every case: each must be refused with its fragment, and the outputs must be untouched.
void run_cases(const char* entry_point, const std::vector<Case>& cases,
               const std::vector<DeviceBytes*>& outputs) {
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(entry_point) + ": " + c.what);
    const Status s = c.call();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
    EXPECT_NE(s.message().find(c.fragment), std::string::npos)
        << "the message does not name '" << c.fragment << "': " << s.message();
  }
  for (DeviceBytes* out : outputs) {
    const std::vector<uint8_t> bytes = out->download_checked();  // guard bands checked here
    for (size_t i = 0; i < bytes.size(); ++i)
      ASSERT_EQ(bytes[i], kFill) << entry_point << " wrote output byte " << i;
  }
  std::printf("%s: %zu bad calls refused\n", entry_point, cases.size());
}

// ---- GEMM: bwgemm::gemm and an explicit sm_100a Config --------------------------------------------------

struct GemmBuffers {
  static constexpr int64_t kM = 128, kN = 128, kK = 64;
  DeviceBytes a{kM * kK * 2}, b{kK * kN * 2}, c{kM * kN * 2}, d{kM * kN * 2};
  GemmBuffers() { a.fill(0), b.fill(0), c.fill(kFill), d.fill(kFill); }
  bwgemm::GemmArguments<f16, f16> valid() {
    bwgemm::GemmArguments<f16, f16> g;
    g.m = kM, g.n = kN, g.k = kK;
    g.a = reinterpret_cast<const f16*>(a.data());
    g.b = reinterpret_cast<const f16*>(b.data());
    g.c = reinterpret_cast<const f16*>(c.data());
    g.d = reinterpret_cast<f16*>(d.data());
    return g;
  }
};

std::vector<Case> gemm_cases(GemmBuffers& buf,
                             const std::function<Status(const bwgemm::GemmArguments<f16, f16>&)>& run) {
  using Args = bwgemm::GemmArguments<f16, f16>;
  std::vector<Case> cases;
  const auto add = [&](std::string what, std::string fragment, const std::function<void(Args&)>& change) {
    Args a = buf.valid();
    change(a);
    cases.push_back({std::move(what), std::move(fragment), [a, run] { return run(a); }});
  };
  add_bad_extents<Args>(add);
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{65536}, int64_t{1} << 31, INT64_MAX})
    add("batch = " + std::to_string(v), "batch", [v](Args& a) { a.batch = v; });
  for (int64_t v : bad_strides(GemmBuffers::kK, 8))
    add("lda = " + std::to_string(v), "lda", [v](Args& a) { a.lda = v; });
  for (int64_t v : bad_strides(GemmBuffers::kN, 8))
    add("ldb = " + std::to_string(v), "ldb", [v](Args& a) { a.ldb = v; });
  for (int64_t v : bad_strides(GemmBuffers::kN, 8))
    add("ldd = " + std::to_string(v), "ldd", [v](Args& a) { a.ldd = v; });
  for (int64_t v : bad_strides(GemmBuffers::kN, 8))
    add("ldc = " + std::to_string(v) + " (beta 1)", "ldc",
        [v](Args& a) { a.ldc = v, a.epilogue.beta = 1.0f; });
  const int64_t d_batch = GemmBuffers::kM * GemmBuffers::kN;
  for (int64_t v : bad_strides(1, 8))  // batches of an input may overlap: only alignment and size rules
    add("batch_stride_a = " + std::to_string(v), "batch_stride_a",
        [v](Args& a) { a.batch = 2, a.batch_stride_a = v; });
  for (int64_t v : bad_strides(d_batch, 8))
    add("batch_stride_d = " + std::to_string(v), "batch_stride_d",
        [v](Args& a) { a.batch = 2, a.batch_stride_d = v; });
  add("A null", "A is null", [](Args& a) { a.a = nullptr; });
  add("B null", "B is null", [](Args& a) { a.b = nullptr; });
  add("D null", "D is null", [](Args& a) { a.d = nullptr; });
  add("C null with beta", "C is null", [](Args& a) { a.c = nullptr, a.epilogue.beta = 0.5f; });
  add("A misaligned", "A must be 16-byte aligned", [](Args& a) { a.a += 1; });
  add("D misaligned", "D must be 16-byte aligned", [](Args& a) { a.d += 4; });
  add("D == A", "D overlaps A", [&buf](Args& a) { a.d = reinterpret_cast<f16*>(buf.a.data()); });
  add("D inside B", "D overlaps B", [&buf](Args& a) { a.d = reinterpret_cast<f16*>(buf.b.data()) + 64; });
  add("C overlaps D, other stride", "D overlaps C",
      [](Args& a) { a.c = a.d, a.ldc = 136, a.ldd = 128, a.epilogue.beta = 1.0f; });
  add("B layout 7", "b_layout", [](Args& a) { a.b_layout = static_cast<bwgemm::BLayout>(7); });
  add("alpha NaN", "alpha", [](Args& a) { a.epilogue.alpha = std::nanf(""); });
  return cases;
}

TEST(ArgumentProperties, Gemm) {
  GemmBuffers buf;
  run_cases("bwgemm::gemm", gemm_cases(buf, [](const auto& a) { return bwgemm::gemm(a); }), {&buf.c, &buf.d});
  run_cases(
      "bwgemm::sm100::Gemm<GemmSmallM>",
      gemm_cases(buf,
                 [](const auto& a) { return bwgemm::sm100::Gemm<bwgemm::sm100::GemmSmallM<f16>>::run(a); }),
      {&buf.c, &buf.d});
}

// The tile count of an explicit Config: more than 2^31 tiles are refused (the product is checked).
TEST(ArgumentProperties, GemmTileCountOfAnExplicitConfig) {
  bwgemm::GemmArguments<f16, f16> a;
  a.m = a.n = int64_t{1} << 19, a.k = 8, a.batch = 128;  // 2^12 x 2^13 tiles of 128 x 64 per batch
  // Far apart, never dereferenced: can_implement only computes.
  a.a = reinterpret_cast<const f16*>(uintptr_t{1} << 32);
  a.b = reinterpret_cast<const f16*>(uintptr_t{1} << 36);
  a.d = reinterpret_cast<f16*>(uintptr_t{1} << 40);
  const Status s = bwgemm::sm100::Gemm<bwgemm::sm100::GemmSmallM<f16>>::can_implement(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("too many output tiles"), std::string::npos) << s.message();
}

// ---- NVFP4 dual GEMM ------------------------------------------------------------------------------------

struct Nvfp4Buffers {
  static constexpr int64_t kM = 128, kN = 128, kK = 256;
  DeviceBytes a{kM * kK / 2}, sa{2048}, b1{kN * kK / 2}, sb1{2048}, b2{kN * kK / 2}, sb2{2048},
      c{kM * kN * 2};
  Nvfp4Buffers() {
    for (DeviceBytes* x : {&a, &sa, &b1, &sb1, &b2, &sb2}) x->fill(0);
    c.fill(kFill);
  }
  bwgemm::Nvfp4DualGemmArguments<f16> valid() {
    bwgemm::Nvfp4DualGemmArguments<f16> g;
    g.m = kM, g.n = kN, g.k = kK;
    g.a = {a.data(), sa.data()}, g.b1 = {b1.data(), sb1.data()}, g.b2 = {b2.data(), sb2.data()};
    g.c = reinterpret_cast<f16*>(c.data());
    return g;
  }
};

std::vector<Case> nvfp4_cases(Nvfp4Buffers& buf,
                              const std::function<Status(const bwgemm::Nvfp4DualGemmArguments<f16>&)>& run) {
  using Args = bwgemm::Nvfp4DualGemmArguments<f16>;
  std::vector<Case> cases;
  const auto add = [&](std::string what, std::string fragment, const std::function<void(Args&)>& change) {
    Args a = buf.valid();
    change(a);
    cases.push_back({std::move(what), std::move(fragment), [a, run] { return run(a); }});
  };
  add_bad_extents<Args>(add);
  add("N = 120", "N must be", [](Args& a) { a.n = 120; });
  add("K = 96", "K must be", [](Args& a) { a.k = 96; });
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{65536}, INT64_MAX})
    add("batch = " + std::to_string(v), "batch", [v](Args& a) { a.batch = v; });
  for (int64_t v : bad_strides(Nvfp4Buffers::kN, 8))
    add("ldc = " + std::to_string(v), "ldc", [v](Args& a) { a.ldc = v; });
  add("A data null", "A data is null", [](Args& a) { a.a.data = nullptr; });
  add("B2 scales null", "B2 scales is null", [](Args& a) { a.b2.scales = nullptr; });
  add("C null", "C is null", [](Args& a) { a.c = nullptr; });
  add("B1 data misaligned", "B1 data must be 16-byte aligned",
      [](Args& a) { a.b1.data = static_cast<const uint8_t*>(a.b1.data) + 4; });
  add("C == A data", "C overlaps A data", [&buf](Args& a) { a.c = reinterpret_cast<f16*>(buf.a.data()); });
  add("C inside B2 scales", "C overlaps B2 scales",
      [&buf](Args& a) { a.c = reinterpret_cast<f16*>(buf.sb2.data() + 1024); });
  add("alpha1 infinite", "alpha", [](Args& a) { a.alpha1 = INFINITY; });
  return cases;
}

TEST(ArgumentProperties, Nvfp4DualGemm) {
  Nvfp4Buffers buf;
  run_cases("bwgemm::dual_gemm_nvfp4",
            nvfp4_cases(buf, [](const auto& a) { return bwgemm::dual_gemm_nvfp4(a); }), {&buf.c});
  run_cases(
      "bwgemm::sm100::Nvfp4DualGemm<Nvfp4DualGemmLargeM>",
      nvfp4_cases(buf,
                  [](const auto& a) {
                    return bwgemm::sm100::Nvfp4DualGemm<bwgemm::sm100::Nvfp4DualGemmLargeM<f16>>::run(a);
                  }),
      {&buf.c});
}

// ---- NVFP4 GEMM ----------------------------------------------------------------------------------------

struct Nvfp4GemmBuffers {
  static constexpr int64_t kM = 128, kN = 128, kK = 256;
  DeviceBytes a{kM * kK / 2}, sa{2048}, b{kN * kK / 2}, sb{2048}, c{kM * kN * 2}, d{kM * kN * 2};
  Nvfp4GemmBuffers() {
    for (DeviceBytes* x : {&a, &sa, &b, &sb, &c}) x->fill(0);
    d.fill(kFill);
  }
  bwgemm::Nvfp4GemmArguments<f16> valid() {
    bwgemm::Nvfp4GemmArguments<f16> g;
    g.m = kM, g.n = kN, g.k = kK;
    g.a = {a.data(), sa.data()}, g.b = {b.data(), sb.data()};
    g.d = reinterpret_cast<f16*>(d.data());
    return g;
  }
};

std::vector<Case> nvfp4_gemm_cases(Nvfp4GemmBuffers& buf,
                                   const std::function<Status(const bwgemm::Nvfp4GemmArguments<f16>&)>& run) {
  using Args = bwgemm::Nvfp4GemmArguments<f16>;
  std::vector<Case> cases;
  const auto add = [&](std::string what, std::string fragment, const std::function<void(Args&)>& change) {
    Args a = buf.valid();
    change(a);
    cases.push_back({std::move(what), std::move(fragment), [a, run] { return run(a); }});
  };
  add_bad_extents<Args>(add);
  add("N = 120", "N must be", [](Args& a) { a.n = 120; });
  add("K = 96", "K must be", [](Args& a) { a.k = 96; });
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{65536}, INT64_MAX})
    add("batch = " + std::to_string(v), "batch", [v](Args& a) { a.batch = v; });
  for (int64_t v : bad_strides(Nvfp4GemmBuffers::kN, 8))
    add("ldd = " + std::to_string(v), "ldd", [v](Args& a) { a.ldd = v; });
  for (int64_t v : bad_strides(Nvfp4GemmBuffers::kN, 8))
    add("ldc = " + std::to_string(v) + " with beta 1", "ldc", [&buf, v](Args& a) {
      a.epilogue.beta = 1.0f, a.c = reinterpret_cast<const f16*>(buf.c.data()), a.ldc = v;
    });
  add("A data null", "A data is null", [](Args& a) { a.a.data = nullptr; });
  add("B scales null", "B scales is null", [](Args& a) { a.b.scales = nullptr; });
  add("D null", "D is null", [](Args& a) { a.d = nullptr; });
  add("C null with beta 1", "C is null", [](Args& a) { a.epilogue.beta = 1.0f; });
  add("B data misaligned", "B data must be 16-byte aligned",
      [](Args& a) { a.b.data = static_cast<const uint8_t*>(a.b.data) + 4; });
  add("D == A data", "D overlaps A data", [&buf](Args& a) { a.d = reinterpret_cast<f16*>(buf.a.data()); });
  add("D inside B scales", "D overlaps B scales",
      [&buf](Args& a) { a.d = reinterpret_cast<f16*>(buf.sb.data() + 1024); });
  add("alpha infinite", "alpha", [](Args& a) { a.epilogue.alpha = INFINITY; });
  add("beta NaN", "beta",
      [&buf](Args& a) { a.epilogue.beta = NAN, a.c = reinterpret_cast<const f16*>(buf.c.data()); });
  return cases;
}

TEST(ArgumentProperties, Nvfp4Gemm) {
  Nvfp4GemmBuffers buf;
  run_cases("bwgemm::gemm_nvfp4", nvfp4_gemm_cases(buf, [](const auto& a) { return bwgemm::gemm_nvfp4(a); }),
            {&buf.d});
  run_cases("bwgemm::sm100::Nvfp4Gemm<Nvfp4GemmLargeM>",
            nvfp4_gemm_cases(buf,
                             [](const auto& a) {
                               return bwgemm::sm100::Nvfp4Gemm<bwgemm::sm100::Nvfp4GemmLargeM<f16>>::run(a);
                             }),
            {&buf.d});
}

// ---- NVFP4 GEMM with an NVFP4 D (Out = Nvfp4Output) ----------------------------------------------------

struct Nvfp4GemmNvfp4OutBuffers {
  static constexpr int64_t kM = 128, kN = 128, kK = 256;
  DeviceBytes a{kM * kK / 2}, sa{2048}, b{kN * kK / 2}, sb{2048}, d{kM * kN / 2}, sd{1024};
  Nvfp4GemmNvfp4OutBuffers() {
    for (DeviceBytes* x : {&a, &sa, &b, &sb}) x->fill(0);
    d.fill(kFill), sd.fill(kFill);
  }
  bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output> valid() {
    bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output> g;
    g.m = kM, g.n = kN, g.k = kK;
    g.a = {a.data(), sa.data()}, g.b = {b.data(), sb.data()};
    g.d = {d.data(), sd.data()};
    return g;
  }
};

std::vector<Case> nvfp4_gemm_nvfp4_out_cases(
    Nvfp4GemmNvfp4OutBuffers& buf,
    const std::function<Status(const bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output>&)>& run) {
  using Args = bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output>;
  std::vector<Case> cases;
  const auto add = [&](std::string what, std::string fragment, const std::function<void(Args&)>& change) {
    Args a = buf.valid();
    change(a);
    cases.push_back({std::move(what), std::move(fragment), [a, run] { return run(a); }});
  };
  add_bad_extents<Args>(add);
  add("N = 120", "N must be", [](Args& a) { a.n = 120; });
  add("K = 96", "K must be", [](Args& a) { a.k = 96; });
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{65536}, INT64_MAX})
    add("batch = " + std::to_string(v), "batch", [v](Args& a) { a.batch = v; });
  add("A data null", "A data is null", [](Args& a) { a.a.data = nullptr; });
  add("B scales null", "B scales is null", [](Args& a) { a.b.scales = nullptr; });
  add("D data null", "D data is null", [](Args& a) { a.d.data = nullptr; });
  add("D scales null", "D scales is null", [](Args& a) { a.d.scales = nullptr; });
  add("D data misaligned", "D data must be 16-byte aligned",
      [](Args& a) { a.d.data = static_cast<uint8_t*>(a.d.data) + 8; });
  add("D scales misaligned", "D scales must be 16-byte aligned",
      [](Args& a) { a.d.scales = static_cast<uint8_t*>(a.d.scales) + 4; });
  add("D data == A data", "D data overlaps A data", [&buf](Args& a) { a.d.data = buf.a.data(); });
  add("D scales inside B scales", "D scales overlaps B scales",
      [&buf](Args& a) { a.d.scales = buf.sb.data() + 1024; });
  add("D scales == D data", "D data overlaps D scales", [](Args& a) { a.d.scales = a.d.data; });
  add("M x N / 2 bytes per batch past 2^40", "D data: one batch (M x N / 2 bytes) must be below 2^40 bytes",
      [](Args& a) { a.m = a.n = int64_t{1} << 30, a.k = 64; });
  for (float v : {0.0f, -1.0f, NAN, INFINITY})
    add("d_global_scale = " + std::to_string(v), "d_global_scale", [v](Args& a) { a.d_global_scale = v; });
  for (float v : {1.0f, -0.5f, NAN})
    add("beta = " + std::to_string(v), "beta must be 0", [v](Args& a) { a.epilogue.beta = v; });
  add("alpha infinite", "alpha", [](Args& a) { a.epilogue.alpha = INFINITY; });
  return cases;
}

TEST(ArgumentProperties, Nvfp4GemmNvfp4Out) {
  using bwgemm::Nvfp4Output;
  Nvfp4GemmNvfp4OutBuffers buf;
  run_cases("bwgemm::gemm_nvfp4 (NVFP4 D)",
            nvfp4_gemm_nvfp4_out_cases(buf, [](const auto& a) { return bwgemm::gemm_nvfp4(a); }),
            {&buf.d, &buf.sd});
  run_cases("bwgemm::sm100::Nvfp4Gemm<Nvfp4GemmSmallM<Nvfp4Output>>",
            nvfp4_gemm_nvfp4_out_cases(
                buf,
                [](const auto& a) {
                  return bwgemm::sm100::Nvfp4Gemm<bwgemm::sm100::Nvfp4GemmSmallM<Nvfp4Output>>::run(a);
                }),
            {&buf.d, &buf.sd});
}

// ---- 16-bit dual GEMM: its validation, and the sm_100a entry points that run it here (the sm_90a
// ones run on an H100/H200) -----------------------------------------------------------------------

TEST(ArgumentProperties, DualGemm16Bit) {
  using Args = bwgemm::DualGemmArguments<bf16, bf16>;
  constexpr int64_t kM = 64, kN = 64, kK = 64;
  DeviceBytes a(kM * kK * 2), b1(kN * kK * 2), b2(kN * kK * 2), c(kM * kN * 2);
  c.fill(kFill);
  const auto valid = [&] {
    Args g;
    g.m = kM, g.n = kN, g.k = kK;
    g.a = reinterpret_cast<const bf16*>(a.data());
    g.b1 = reinterpret_cast<const bf16*>(b1.data());
    g.b2 = reinterpret_cast<const bf16*>(b2.data());
    g.c = reinterpret_cast<bf16*>(c.data());
    return g;
  };
  ASSERT_TRUE(bwgemm::validate(valid()).ok());
  const auto cases_for = [&](const std::function<Status(const Args&)>& run) {
    std::vector<Case> cases;
    const auto add = [&](std::string what, std::string fragment, const std::function<void(Args&)>& change) {
      Args g = valid();
      change(g);
      cases.push_back({std::move(what), std::move(fragment), [g, run] { return run(g); }});
    };
    add_bad_extents<Args>(add);
    for (int64_t v : bad_strides(kK, 8))
      add("lda = " + std::to_string(v), "lda", [v](Args& g) { g.lda = v; });
    for (int64_t v : bad_strides(kK, 8))
      add("ldb = " + std::to_string(v), "ldb", [v](Args& g) { g.ldb = v; });
    for (int64_t v : bad_strides(kN, 8))
      add("ldc = " + std::to_string(v), "ldc", [v](Args& g) { g.ldc = v; });
    add("C == B1", "C overlaps B1", [&](Args& g) { g.c = reinterpret_cast<bf16*>(b1.data()); });
    add("B2 null", "B2 is null", [](Args& g) { g.b2 = nullptr; });
    return cases;
  };
  run_cases("bwgemm::validate(DualGemmArguments)",
            cases_for([](const Args& g) { return bwgemm::validate(g); }), {&c});
  run_cases("bwgemm::dual_gemm", cases_for([](const Args& g) { return bwgemm::dual_gemm(g); }), {&c});
  run_cases("bwgemm::sm100::DualGemm<DualGemmLargeM>", cases_for([](const Args& g) {
              return bwgemm::sm100::DualGemm<bwgemm::sm100::DualGemmLargeM<bf16>>::run(g);
            }),
            {&c});
}

// ---- quantize_nvfp4 (GPU entry, in the emulator) and quantize_nvfp4_host ---------------------------------

TEST(ArgumentProperties, Quantizers) {
  constexpr int64_t kRows = 4, kK = 64;
  DeviceBytes x(kRows * kK * 4), packed(kRows * kK / 2), scales(512);
  packed.fill(kFill), scales.fill(kFill);
  const float* xp = reinterpret_cast<const float*>(x.data());
  std::vector<Case> gpu, host;
  const auto add = [&](std::string what, std::string fragment, int64_t rows, int64_t k, int64_t batch,
                       int64_t ld, float g, const float* xq, uint8_t* pq, uint8_t* sq) {
    gpu.push_back(
        {what, fragment, [=] { return bwgemm::quantize_nvfp4(xq, rows, k, batch, ld, g, pq, sq); }});
    host.push_back(
        {what, fragment, [=] { return bwgemm::quantize_nvfp4_host(xq, rows, k, batch, ld, g, pq, sq); }});
  };
  uint8_t* pp = packed.data();
  uint8_t* sp = scales.data();
  for (int64_t v : bad_extents()) {
    if (v < 1) add("rows = " + std::to_string(v), "rows", v, kK, 1, kK, 1.0f, xp, pp, sp);
    if (v < 1) add("batch = " + std::to_string(v), "batch", kRows, kK, v, kK, 1.0f, xp, pp, sp);
    if (v < 16 || v % 16) add("K = " + std::to_string(v), "K must be", kRows, v, 1, v, 1.0f, xp, pp, sp);
  }
  for (int64_t v : {int64_t{1} << 38, int64_t{1} << 55, int64_t{1} << 62, INT64_MAX - 7})
    add("ld = " + std::to_string(v), "ld must be below 2^40 bytes", kRows, kK, 1, v, 1.0f, xp, pp, sp);
  add("rows x ld past 2^40 bytes", "the batch stride of x (rows · ld) must be below 2^40 bytes", 1 << 20, kK,
      1, 1 << 18, 1.0f, xp, pp, sp);
  add("x past 2^56 bytes", "x spans more than 2^56", 1, 16, int64_t{1} << 20, int64_t{1} << 37, 1.0f, xp, pp,
      sp);
  add("ld < K", "ld must be", kRows, kK, 1, kK - 16, 1.0f, xp, pp, sp);
  add("rows x K overflow", "overflows", int64_t{1} << 40, int64_t{1} << 30, 1 << 16, int64_t{1} << 30, 1.0f,
      xp, pp, sp);
  add("global_scale 0", "global_scale", kRows, kK, 1, kK, 0.0f, xp, pp, sp);
  add("global_scale NaN", "global_scale", kRows, kK, 1, kK, std::nanf(""), xp, pp, sp);
  add("global_scale inf", "global_scale must be finite and > 0", kRows, kK, 1, kK, INFINITY, xp, pp, sp);
  add("x null", "x is null", kRows, kK, 1, kK, 1.0f, nullptr, pp, sp);
  add("packed null", "packed is null", kRows, kK, 1, kK, 1.0f, xp, nullptr, sp);
  add("scales null", "scales is null", kRows, kK, 1, kK, 1.0f, xp, pp, nullptr);
  add("packed overlaps scales", "packed overlaps scales", kRows, kK, 1, kK, 1.0f, xp, pp, pp + 16);
  run_cases("bwgemm::quantize_nvfp4", gpu, {&packed, &scales});
  run_cases("bwgemm::quantize_nvfp4_host", host, {&packed, &scales});
}

}  // namespace
