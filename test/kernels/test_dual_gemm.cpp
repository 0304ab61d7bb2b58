// The NVFP4 dual GEMM (bwgemm/dual_gemm.cuh), for every shipped Config: an exact tier (small e2m1 values,
// power-of-two scales: bitwise equal to the reference), a realistic tier (the field's data and tolerance),
// tail shapes, batch, alphas, bad arguments; C sits between guard bands that must come back untouched.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_configs.cuh"
#include "bwgemm/reference/nvfp4_gemm.hpp"
#include "device_memory.hpp"

namespace {

using bwgemm_test::DeviceBytes;

// An NVFP4 operand on the host, with its device copy.
struct Operand {
  int64_t rows = 0, k = 0, batch = 1;
  std::vector<uint8_t> data, scales;  // packed codes; blocked scales

  bwgemm::ref::Nvfp4Matrix host_view() const { return {data.data(), scales.data(), rows, k}; }
  float value(int64_t l, int64_t r, int64_t kk) const {
    return bwgemm::nvfp4_element(data.data(), scales.data(), r, kk, l, rows, k);
  }
};

enum class Data {
  kExact,      // e2m1 codes of any value, scales 2^-1 .. 2^1: every sum exact in fp32
  kRealistic,  // the field's test data: bytes & 0b1011_1011, scales e4m3(uniform [0, 1))
};

Operand make_operand(int64_t rows, int64_t k, int64_t batch, Data kind, uint32_t seed) {
  std::mt19937 rng(seed);
  Operand o;
  o.rows = rows, o.k = k, o.batch = batch;
  o.data.resize(static_cast<size_t>(batch * rows * k / 2));
  for (auto& b : o.data) b = static_cast<uint8_t>(rng()) & (kind == Data::kRealistic ? 0xBB : 0xFF);
  std::vector<uint8_t> plain(static_cast<size_t>(batch * rows * k / 16));
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (auto& s : plain)
    s = kind == Data::kExact ? static_cast<uint8_t>((6 + rng() % 3) << 3)  // e4m3 2^-1, 2^0, 2^1
                             : bwgemm::e4m3_encode(uniform(rng));
  o.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16, batch)));
  bwgemm::swizzle_scales_to_blocked(plain.data(), rows, k / 16, batch, o.scales.data());
  return o;
}

struct DeviceOperand {
  DeviceBytes data, scales;
  explicit DeviceOperand(const Operand& o) : data(o.data.size()), scales(o.scales.size()) {
    data.upload(o.data.data(), o.data.size());
    scales.upload(o.scales.data(), o.scales.size());
  }
  bwgemm::Nvfp4Tensor tensor() { return {data.data(), scales.data()}; }
};

template <class Out>
float out_to_float(uint16_t bits) {
  return std::is_same_v<Out, __half> ? bwgemm::f16_bits_to_f32(bits) : bwgemm::bf16_bits_to_f32(bits);
}
template <class Out>
uint16_t float_to_out(float v) {
  return std::is_same_v<Out, __half> ? bwgemm::f32_to_f16_bits(v) : bwgemm::f32_to_bf16_bits(v);
}

struct Problem {
  int64_t m, n, k, batch = 1;
  float alpha1 = 1.0f, alpha2 = 1.0f;
  int64_t ldc_pad = 0;  // ldc = n + ldc_pad
};

// Runs Cfg on a problem and returns C (batch x m x ldc, as 16-bit words), checking the guard bands.
template <class Cfg>
std::vector<uint16_t> run_kernel(const Problem& pb, const Operand& a, const Operand& b1, const Operand& b2,
                                 bwgemm::Status* status = nullptr) {
  DeviceOperand da(a), db1(b1), db2(b2);
  const int64_t ldc = pb.n + pb.ldc_pad;
  DeviceBytes c(static_cast<size_t>(pb.batch * pb.m * ldc * 2));
  c.fill(0xEE);  // a value no correct output has in every position (NaN pattern in fp16 and bf16)
  typename bwgemm::DualGemm<Cfg>::Arguments args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = da.tensor(), args.b1 = db1.tensor(), args.b2 = db2.tensor();
  args.c = reinterpret_cast<typename Cfg::Out*>(c.data());
  args.ldc = ldc;
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  const bwgemm::Status s = bwgemm::DualGemm<Cfg>::run(args);
  if (status != nullptr) *status = s;
  EXPECT_TRUE(s.ok()) << s.to_string();
  bwgemm_test::synchronize();
  const std::vector<uint8_t> bytes = c.download_checked();
  std::vector<uint16_t> out(bytes.size() / 2);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

template <class Cfg>
class DualGemmTest : public ::testing::Test {};

template <class List>
struct ToTypes;
template <class... Cs>
struct ToTypes<bwgemm::sm100::ConfigList<Cs...>> {
  using type = ::testing::Types<Cs...>;
};
using Configs = ToTypes<bwgemm::sm100::ShippedDualGemmConfigs>::type;

struct ConfigNames {
  template <class Cfg>
  static std::string GetName(int) {
    return "N" + std::to_string(Cfg::kBlockN) + "_S" + std::to_string(Cfg::kStages) + "_G" +
           std::to_string(Cfg::kCtaGroup) + "_" + Cfg::Scheduler::kName +
           (std::is_same_v<typename Cfg::Out, __half> ? "_f16" : "_bf16");
  }
};
TYPED_TEST_SUITE(DualGemmTest, Configs, ConfigNames);

// Exact tier: with epi::Multiply every value is exact in fp32 until the final rounding to Out, so the
// kernel must equal the reference bit for bit. Two N tiles, two K stages, the rows of two clusters.
TYPED_TEST(DualGemmTest, ExactTierIsBitwiseEqual) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = typename TypeParam::template WithEpilogue<bwgemm::epi::Multiply>;
  using Out = typename Cfg::Out;
  const Problem pb{2 * Cfg::kClusterM, 2 * Cfg::kBlockN, 512, 1, 0.5f, 2.0f};
  const Operand a = make_operand(pb.m, pb.k, 1, Data::kExact, 11),
                b1 = make_operand(pb.n, pb.k, 1, Data::kExact, 12),
                b2 = make_operand(pb.n, pb.k, 1, Data::kExact, 13);
  const std::vector<uint16_t> c = run_kernel<Cfg>(pb, a, b1, b2);
  for (int64_t i = 0; i < pb.m; ++i)
    for (int64_t j = 0; j < pb.n; ++j) {
      double x = 0, y = 0;  // exact: every term and partial sum is a multiple of 2^-4 below 2^17
      for (int64_t kk = 0; kk < pb.k; ++kk) {
        x += static_cast<double>(a.value(0, i, kk)) * b1.value(0, j, kk);
        y += static_cast<double>(a.value(0, i, kk)) * b2.value(0, j, kk);
      }
      const float want = (pb.alpha1 * static_cast<float>(x)) * (pb.alpha2 * static_cast<float>(y));
      ASSERT_EQ(c[static_cast<size_t>(i * pb.n + j)], float_to_out<Out>(want))
          << "row " << i << " col " << j << ": got "
          << out_to_float<Out>(c[static_cast<size_t>(i * pb.n + j)]) << ", want " << want;
    }
}

template <class Cfg>
void check_realistic(const Problem& pb, uint32_t seed) {
  using Out = typename Cfg::Out;
  const Operand a = make_operand(pb.m, pb.k, pb.batch, Data::kRealistic, seed),
                b1 = make_operand(pb.n, pb.k, pb.batch, Data::kRealistic, seed + 1),
                b2 = make_operand(pb.n, pb.k, pb.batch, Data::kRealistic, seed + 2);
  const std::vector<uint16_t> c = run_kernel<Cfg>(pb, a, b1, b2);
  const int64_t ldc = pb.n + pb.ldc_pad;
  std::vector<Out> want(static_cast<size_t>(pb.batch * pb.m * ldc));
  bwgemm::ref::nvfp4_dual_gemm_silu(a.host_view(), b1.host_view(), b2.host_view(), pb.batch, pb.alpha1,
                                    pb.alpha2, want.data(), ldc);
  int64_t bad = 0;
  for (int64_t l = 0; l < pb.batch; ++l)
    for (int64_t i = 0; i < pb.m; ++i) {
      for (int64_t j = 0; j < pb.n; ++j) {
        const size_t idx = static_cast<size_t>((l * pb.m + i) * ldc + j);
        const float got = out_to_float<Out>(c[idx]);
        const float ref = bwgemm::ref::to_float(want[idx]);
        // The field's tolerance (GPU MODE nvfp4_dual_gemm), plus one output ulp for bf16's coarser grid.
        const float ulp = std::is_same_v<Out, __half> ? 0.0f : std::fabs(ref) * 0.0078125f;
        if (!(std::fabs(got - ref) <= 1e-3f + 1e-3f * std::fabs(ref) + ulp)) {
          if (++bad <= 5)
            ADD_FAILURE() << "batch " << l << " row " << i << " col " << j << ": got " << got << ", want "
                          << ref;
        }
      }
      for (int64_t j = pb.n; j < ldc; ++j)  // the padding of each row of C is not ours to write
        ASSERT_EQ(c[static_cast<size_t>((l * pb.m + i) * ldc + j)], 0xEEEE) << "wrote C's row padding";
    }
  EXPECT_EQ(bad, 0) << bad << " elements outside the tolerance";
}

TYPED_TEST(DualGemmTest, RealisticTierWithinTheFieldsTolerance) {
  BWGEMM_REQUIRE_SM100();
  check_realistic<TypeParam>(Problem{256, 256, 512}, 21);
}

TYPED_TEST(DualGemmTest, TailRows) {
  BWGEMM_REQUIRE_SM100();
  for (int64_t m : {1, 7, 100, 255, 300}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    check_realistic<TypeParam>(Problem{m, 128, 256}, 31 + static_cast<uint32_t>(m));
  }
}

TYPED_TEST(DualGemmTest, TailColumnsAndShortK) {
  BWGEMM_REQUIRE_SM100();
  check_realistic<TypeParam>(Problem{130, 208, 192, 1, 1.0f, 1.0f, 24}, 41);  // N = 13 x 16, K = 3 x 64
}

TYPED_TEST(DualGemmTest, BatchOfThreeWithAlphas) {
  BWGEMM_REQUIRE_SM100();
  check_realistic<TypeParam>(Problem{96, 128, 256, 3, 0.75f, 1.5f, 8}, 51);
}

TYPED_TEST(DualGemmTest, RejectsBadArgumentsAndLaunchesNothing) {
  using Cfg = TypeParam;
  using Args = typename bwgemm::DualGemm<Cfg>::Arguments;
  alignas(16) static uint8_t buf[64];
  Args good;
  good.m = 128, good.n = 128, good.k = 256;
  good.a = good.b1 = good.b2 = {buf, buf};
  good.c = reinterpret_cast<typename Cfg::Out*>(buf);
  ASSERT_TRUE(bwgemm::DualGemm<Cfg>::can_implement(good).ok());
  auto expect_invalid = [](Args a, const char* what, const char* fragment) {
    const bwgemm::Status s = bwgemm::DualGemm<Cfg>::run(a);
    EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << what << ": " << s.to_string();
    EXPECT_NE(s.message().find(fragment), std::string::npos) << what << ": " << s.message();
  };
  Args a = good;
  a.m = 0;
  expect_invalid(a, "M = 0", "M must be");
  a = good, a.n = 120;
  expect_invalid(a, "N = 120", "N must be");
  a = good, a.k = 96;
  expect_invalid(a, "K = 96", "K must be");
  a = good, a.batch = 0;
  expect_invalid(a, "batch = 0", "batch");
  a = good, a.ldc = 100;
  expect_invalid(a, "ldc < N", "ldc");
  a = good, a.ldc = 132;
  expect_invalid(a, "ldc not a multiple of 8", "ldc");
  a = good, a.b1.scales = nullptr;
  expect_invalid(a, "null scales", "B1 scales is null");
  a = good, a.a.data = buf + 8;
  expect_invalid(a, "misaligned A", "A data must be 16-byte aligned");
  a = good, a.alpha2 = std::nanf("");
  expect_invalid(a, "NaN alpha", "alpha");
  EXPECT_EQ(buf[0], 0) << "a rejected call wrote memory";
}

#if !BWGEMM_EMULATION
// Natively, a device that is not compute capability 10.0 (or no device at all) gets a clear status and no
// launch: the sm_100a code would not run there. Hopper (9.0) has no FP4 tensor cores: not_supported.
TEST(DualGemmDevice, OtherDevicesAreRefusedWithAMessage) {
  std::string why;
  if (bwgemm_test::can_run_sm100(&why)) GTEST_SKIP() << "this machine has a compute-capability-10.0 GPU";
  alignas(16) static uint8_t buf[64];
  bwgemm::DualGemmArguments<__half> args;
  args.m = 128, args.n = 128, args.k = 256;
  args.a = args.b1 = args.b2 = {buf, buf};
  args.c = reinterpret_cast<__half*>(buf);
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

// A user-supplied epilogue functor (the docs/extending.md example): squared-ReLU gating.
struct ReluSquaredGate {
  BWGEMM_HD float operator()(float gate, float up) const {
    const float r = gate > 0.0f ? gate : 0.0f;
    return r * r * up;
  }
};

TEST(DualGemmExtending, UserEpilogueFunctor) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = bwgemm::sm100::DualGemmConfig<64, 7, 2, bwgemm::sched::StaticPersistent, ReluSquaredGate>;
  const Problem pb{128, 128, 256};
  const Operand a = make_operand(pb.m, pb.k, 1, Data::kExact, 71),
                b1 = make_operand(pb.n, pb.k, 1, Data::kExact, 72),
                b2 = make_operand(pb.n, pb.k, 1, Data::kExact, 73);
  const std::vector<uint16_t> c = run_kernel<Cfg>(pb, a, b1, b2);
  int64_t positive = 0;
  for (int64_t i = 0; i < pb.m; ++i)
    for (int64_t j = 0; j < pb.n; ++j) {
      double x = 0, y = 0;
      for (int64_t kk = 0; kk < pb.k; ++kk) {
        x += static_cast<double>(a.value(0, i, kk)) * b1.value(0, j, kk);
        y += static_cast<double>(a.value(0, i, kk)) * b2.value(0, j, kk);
      }
      positive += x > 0;
      const float want = ReluSquaredGate{}(static_cast<float>(x), static_cast<float>(y));
      ASSERT_EQ(c[static_cast<size_t>(i * pb.n + j)], float_to_out<__half>(want))
          << "row " << i << " col " << j;
    }
  EXPECT_GT(positive, pb.m * pb.n / 4) << "the data should exercise both branches of the functor";
}

// The GPU MODE correctness shape (M, N, K) = (256, 512, 256) through the default entry point.
TEST(DualGemmDefault, GpuModeCorrectnessShape) {
  BWGEMM_REQUIRE_SM100();
  const Problem pb{256, 512, 256};
  const Operand a = make_operand(pb.m, pb.k, 1, Data::kRealistic, 61),
                b1 = make_operand(pb.n, pb.k, 1, Data::kRealistic, 62),
                b2 = make_operand(pb.n, pb.k, 1, Data::kRealistic, 63);
  DeviceOperand da(a), db1(b1), db2(b2);
  DeviceBytes c(static_cast<size_t>(pb.m * pb.n * 2));
  bwgemm::DualGemmArguments<__half> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = da.tensor(), args.b1 = db1.tensor(), args.b2 = db2.tensor();
  args.c = reinterpret_cast<__half*>(c.data());
  const bwgemm::Status s = bwgemm::dual_gemm_nvfp4(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  bwgemm_test::synchronize();
  const std::vector<uint8_t> bytes = c.download_checked();
  std::vector<__half> want(static_cast<size_t>(pb.m * pb.n));
  bwgemm::ref::nvfp4_dual_gemm_silu(a.host_view(), b1.host_view(), b2.host_view(), 1, 1.0f, 1.0f, want.data(),
                                    pb.n);
  for (size_t i = 0; i < want.size(); ++i) {
    const float got = bwgemm::f16_bits_to_f32(static_cast<uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
    const float ref = bwgemm::ref::to_float(want[i]);
    ASSERT_LE(std::fabs(got - ref), 1e-3f + 1e-3f * std::fabs(ref)) << "element " << i;
  }
}

}  // namespace
