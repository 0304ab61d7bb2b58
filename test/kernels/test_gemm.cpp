// The FP16/BF16 GEMM (bwgemm/gemm.cuh), for every shipped Config: an exact tier (small integers: every sum
// exact in fp32, so bitwise equal to the host reference), a realistic tier (uniform [-1, 1] data, fp32
// accumulation tolerance), both B layouts, fp16 and bf16 inputs, every output type, tails in M, N and K,
// beta != 0 with C, batches with strides and padded leading dimensions, bad arguments. D sits between guard
// bands that must come back untouched, and its row padding must stay unwritten.
//
// Compiled twice: as host C++ against bwgemm::emu (label emu: the kernels run in the CPU emulator) and with
// nvcc for sm_100a (label gpu: natively on a B200, skipping with a message elsewhere).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bwgemm/gemm.cuh"
#include "bwgemm/kernels/sm100/gemm_configs.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "device_memory.hpp"

namespace {

using bwgemm::BLayout;
using bwgemm_test::DeviceBytes;

enum class Data {
  kExact,      // integers in [-4, 4]: every product and partial sum is an integer below 2^24
  kRealistic,  // uniform [-1, 1), rounded to the element type
};

template <class T>
std::vector<T> make_matrix(int64_t count, Data kind, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<T> v(static_cast<size_t>(count));
  for (auto& x : v) {
    const float f = kind == Data::kExact ? static_cast<float>(static_cast<int>(rng() % 9) - 4) : uniform(rng);
    x = bwgemm::ref::from_float<T>(f);
  }
  return v;
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, __half>) return "f16";
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
  return "f32";
}

struct Problem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  BLayout b_layout = BLayout::kRowMajorKxN;
  float alpha = 1.0f, beta = 0.0f;
  int64_t pad = 0;        // added to every leading dimension
  int64_t batch_gap = 0;  // added to every batch stride (elements)
};

std::string describe(const Problem& pb) {
  return "M=" + std::to_string(pb.m) + " N=" + std::to_string(pb.n) + " K=" + std::to_string(pb.k) +
         " batch=" + std::to_string(pb.batch) + (pb.b_layout == BLayout::kRowMajorKxN ? " B=KxN" : " B=NxK") +
         " alpha=" + std::to_string(pb.alpha) + " beta=" + std::to_string(pb.beta) +
         " pad=" + std::to_string(pb.pad);
}

// The operands of one problem on the host, with the layout the kernel reads.
template <class In, class Out>
struct Operands {
  Problem pb;
  int64_t lda, ldb, ldc, ldd, sa, sb, sc, sd;  // leading dimensions and batch strides (elements)
  std::vector<In> a, b;
  std::vector<Out> c;

  Operands(const Problem& p, Data kind, uint32_t seed) : pb(p) {
    const bool kxn = p.b_layout == BLayout::kRowMajorKxN;
    lda = p.k + p.pad;
    ldb = (kxn ? p.n : p.k) + p.pad;
    ldc = p.n + p.pad;
    ldd = p.n + 2 * p.pad;
    sa = p.m * lda + p.batch_gap;
    sb = (kxn ? p.k : p.n) * ldb + p.batch_gap;
    sc = p.m * ldc + p.batch_gap;
    sd = p.m * ldd + p.batch_gap;
    a = make_matrix<In>(p.batch * sa, kind, seed);
    b = make_matrix<In>(p.batch * sb, kind, seed + 1);
    c = make_matrix<Out>(p.batch * sc, kind, seed + 2);
  }

  // D as the host reference computes it (the padding of D holds `fill`).
  std::vector<Out> reference(Out fill) const {
    std::vector<Out> d(static_cast<size_t>(pb.batch * sd), fill);
    bwgemm::ref::GemmArgs<In, In, Out> r;
    r.m = pb.m, r.n = pb.n, r.k = pb.k, r.batch = pb.batch;
    r.a = a.data(), r.lda = lda, r.batch_stride_a = sa;
    r.b = b.data(), r.b_layout = pb.b_layout, r.ldb = ldb, r.batch_stride_b = sb;
    r.c = pb.beta != 0.0f ? c.data() : nullptr, r.ldc = ldc, r.batch_stride_c = sc;
    r.d = d.data(), r.ldd = ldd, r.batch_stride_d = sd;
    r.alpha = pb.alpha, r.beta = pb.beta;
    bwgemm::ref::gemm(r);
    return d;
  }
};

constexpr uint8_t kFillByte = 0xEE;  // D's initial bytes: a NaN pattern in fp16, bf16 and fp32

// Runs Cfg and returns D (batch strides and padding included), checking the guard bands.
template <class Cfg, class In>
std::vector<typename Cfg::Out> run_kernel(const Operands<In, typename Cfg::Out>& o) {
  using Out = typename Cfg::Out;
  const Problem& pb = o.pb;
  DeviceBytes a(o.a.size() * sizeof(In)), b(o.b.size() * sizeof(In)), c(o.c.size() * sizeof(Out)),
      d(static_cast<size_t>(pb.batch * o.sd) * sizeof(Out));
  a.upload(o.a.data(), a.size());
  b.upload(o.b.data(), b.size());
  c.upload(o.c.data(), c.size());
  d.fill(kFillByte);
  bwgemm::GemmArguments<In, Out> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k, args.batch = pb.batch;
  args.a = reinterpret_cast<const In*>(a.data()), args.lda = o.lda, args.batch_stride_a = o.sa;
  args.b = reinterpret_cast<const In*>(b.data()), args.b_layout = pb.b_layout, args.ldb = o.ldb;
  args.batch_stride_b = o.sb;
  args.c = pb.beta != 0.0f ? reinterpret_cast<const Out*>(c.data()) : nullptr;
  args.ldc = o.ldc, args.batch_stride_c = o.sc;
  args.d = reinterpret_cast<Out*>(d.data()), args.ldd = o.ldd, args.batch_stride_d = o.sd;
  args.epilogue = {pb.alpha, pb.beta};
  const bwgemm::Status s = bwgemm::Gemm<Cfg>::run(args);
  EXPECT_TRUE(s.ok()) << s.to_string();
  bwgemm_test::synchronize();
  const std::vector<uint8_t> bytes = d.download_checked();
  std::vector<Out> out(bytes.size() / sizeof(Out));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

template <class T>
uint32_t bits_of(T x) {
  uint32_t u = 0;
  std::memcpy(&u, &x, sizeof(T));
  return u;
}

// Unit roundoff of the output type (fp32: accumulation-order differences only).
template <class Out>
float unit_roundoff() {
  if constexpr (std::is_same_v<Out, __half>) return 0x1p-11f;
  if constexpr (std::is_same_v<Out, __nv_bfloat16>) return 0x1p-8f;
  return 0x1p-24f;
}

// Compares D with the reference: bitwise (exact tier) or within fp32-accumulation + output-rounding
// tolerance; the padding of D (row ends, batch gaps) must still hold the fill pattern.
template <class Cfg, class In>
void check(const Problem& pb, Data kind, uint32_t seed) {
  using Out = typename Cfg::Out;
  SCOPED_TRACE(describe(pb) + " in=" + type_name<In>() + " out=" + type_name<Out>());
  const Operands<In, Out> o(pb, kind, seed);
  const std::vector<Out> got = run_kernel<Cfg>(o);
  uint8_t fill_bytes[sizeof(Out)];
  std::memset(fill_bytes, kFillByte, sizeof(Out));
  Out fill;
  std::memcpy(&fill, fill_bytes, sizeof(Out));
  const std::vector<Out> want = o.reference(fill);
  ASSERT_EQ(got.size(), want.size());
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const int64_t l = static_cast<int64_t>(i) / o.sd, in_batch = static_cast<int64_t>(i) % o.sd;
    const int64_t row = in_batch / o.ldd, col = in_batch % o.ldd;
    const bool inside = row < pb.m && col < pb.n;
    bool ok;
    if (!inside || kind == Data::kExact) {
      ok = bits_of(got[i]) == bits_of(want[i]);
    } else {
      const float g = bwgemm::ref::to_float(got[i]), w = bwgemm::ref::to_float(want[i]);
      // One output rounding apart (fp32 sums in another order can round to the neighbour), plus the
      // accumulation-order difference of K fp32 additions of terms |a b| <= 1.
      const float tol = 2.0f * unit_roundoff<Out>() * std::fabs(w) + 1e-6f * static_cast<float>(pb.k) + 1e-6f;
      ok = std::fabs(g - w) <= tol;
    }
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << (inside ? "" : "padding ") << "batch " << l << " row " << row << " col " << col
                    << ": got " << bwgemm::ref::to_float(got[i]) << " (0x" << std::hex << bits_of(got[i])
                    << "), want " << bwgemm::ref::to_float(want[i]) << " (0x" << bits_of(want[i]) << std::dec
                    << ")";
  }
  EXPECT_EQ(bad, 0) << bad << " elements wrong";
}

#if BWGEMM_EMULATION
// Two co-resident clusters: persistent and CLC clusters take several tiles of the small test problems.
const bool kTwoResidentClusters = [] {
  bwgemm::emulated_launch_settings().max_resident_clusters = 2;
  return true;
}();
#endif

template <class List>
struct ToTypes;
template <class... Cs>
struct ToTypes<bwgemm::sm100::ConfigList<Cs...>> {
  using type = ::testing::Types<Cs...>;
};

struct ConfigNames {
  template <class Cfg>
  static std::string GetName(int) {
    return "N" + std::to_string(Cfg::kBlockN) + "_S" + std::to_string(Cfg::kStages) + "_G" +
           std::to_string(Cfg::kCtaGroup) + "_" + Cfg::Scheduler::kName + "_" +
           type_name<typename Cfg::Out>();
  }
};

template <class Cfg>
class GemmTest : public ::testing::Test {};
TYPED_TEST_SUITE(GemmTest, ToTypes<bwgemm::sm100::ShippedGemmConfigs>::type, ConfigNames);

// Two tiles in M and N (the rows of two clusters, so persistent and CLC clusters take several tiles), two
// K stages.
template <class Cfg>
Problem two_by_two(BLayout layout) {
  Problem pb;
  pb.m = 2 * Cfg::kClusterM, pb.n = 2 * Cfg::kBlockN, pb.k = 128, pb.b_layout = layout;
  return pb;
}

TYPED_TEST(GemmTest, ExactTierKxNIsBitwiseEqual) {
  BWGEMM_REQUIRE_SM100();
  check<TypeParam, __half>(two_by_two<TypeParam>(BLayout::kRowMajorKxN), Data::kExact, 11);
}

TYPED_TEST(GemmTest, ExactTierNxKIsBitwiseEqual) {
  BWGEMM_REQUIRE_SM100();
  check<TypeParam, __half>(two_by_two<TypeParam>(BLayout::kColumnMajorKxN), Data::kExact, 12);
}

TYPED_TEST(GemmTest, ExactTierBf16WithAlphaAndBeta) {
  BWGEMM_REQUIRE_SM100();
  for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN})
    check<TypeParam, __nv_bfloat16>(
        Problem{TypeParam::kClusterM, TypeParam::kBlockN, 64, 1, layout, 0.5f, -2.0f}, Data::kExact, 13);
}

TYPED_TEST(GemmTest, RealisticTier) {
  BWGEMM_REQUIRE_SM100();
  const int64_t m = TypeParam::kClusterM, n = TypeParam::kBlockN;
  check<TypeParam, __half>(Problem{m, n, 256, 1, BLayout::kRowMajorKxN}, Data::kRealistic, 21);
  check<TypeParam, __nv_bfloat16>(Problem{m, n, 256, 1, BLayout::kColumnMajorKxN}, Data::kRealistic, 22);
}

TYPED_TEST(GemmTest, TailsInMNAndK) {
  BWGEMM_REQUIRE_SM100();
  const int64_t m = TypeParam::kClusterM, n = TypeParam::kBlockN;
  // M, N, K multiples of 8 but not of the tile; K = 72 leaves 8 elements in the second stage.
  check<TypeParam, __half>(Problem{m + 40, n - 24, 72, 1, BLayout::kRowMajorKxN}, Data::kExact, 31);
  check<TypeParam, __half>(Problem{m - 40, n + 24, 136, 1, BLayout::kColumnMajorKxN}, Data::kExact, 32);
  for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN})
    check<TypeParam, __half>(Problem{8, 8, 8, 1, layout}, Data::kExact, 33);
  check<TypeParam, __nv_bfloat16>(Problem{136, 200, 200, 1, BLayout::kRowMajorKxN}, Data::kRealistic, 34);
}

TYPED_TEST(GemmTest, BatchWithStridesPaddingAndBeta) {
  BWGEMM_REQUIRE_SM100();
  check<TypeParam, __half>(
      Problem{96, 136, 80, 3, BLayout::kRowMajorKxN, 1.5f, 0.75f, /*pad=*/8, /*batch_gap=*/16},
      Data::kRealistic, 41);
  check<TypeParam, __half>(Problem{72, 64, 80, 2, BLayout::kColumnMajorKxN, 1.0f, -1.0f, 16, 8}, Data::kExact,
                           42);
}

TYPED_TEST(GemmTest, RejectsBadArgumentsAndLaunchesNothing) {
  using Cfg = TypeParam;
  using Out = typename Cfg::Out;
  using Args = bwgemm::GemmArguments<__half, Out>;
  alignas(16) static uint8_t buf[64];
  Args good;
  good.m = 128, good.n = 128, good.k = 64;
  good.a = good.b = reinterpret_cast<const __half*>(buf);
  good.d = reinterpret_cast<Out*>(buf);
  ASSERT_TRUE(bwgemm::Gemm<Cfg>::can_implement(good).ok());
  auto expect_invalid = [](Args a, const char* what, const char* fragment) {
    const bwgemm::Status s = bwgemm::Gemm<Cfg>::run(a);
    EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << what << ": " << s.to_string();
    EXPECT_NE(s.message().find(fragment), std::string::npos) << what << ": " << s.message();
  };
  Args a = good;
  a.m = 0;
  expect_invalid(a, "M = 0", "M must be");
  a = good, a.m = 100;
  expect_invalid(a, "M = 100", "M must be a positive multiple of 8");
  a = good, a.n = 20;
  expect_invalid(a, "N = 20", "N must be");
  a = good, a.k = 60;
  expect_invalid(a, "K = 60", "K must be");
  a = good, a.batch = 0;
  expect_invalid(a, "batch = 0", "batch");
  a = good, a.lda = 32;
  expect_invalid(a, "lda < K", "lda");
  a = good, a.lda = 68;
  expect_invalid(a, "lda not a multiple of 8", "lda");
  a = good, a.b_layout = BLayout::kColumnMajorKxN, a.ldb = 32;
  expect_invalid(a, "ldb < K for N x K", "ldb");
  a = good, a.ldb = 64;
  expect_invalid(a, "ldb < N for K x N", "ldb");
  a = good, a.ldd = 100;
  expect_invalid(a, "ldd < N", "ldd");
  a = good, a.ldd = 130;
  expect_invalid(a, "ldd with misaligned rows", "ldd");
  a = good, a.batch = 2, a.batch_stride_d = 64;
  expect_invalid(a, "overlapping D batches", "batch_stride_d");
  a = good, a.batch = 2, a.batch_stride_a = 12;
  expect_invalid(a, "misaligned A batches", "batch_stride_a");
  a = good, a.a = nullptr;
  expect_invalid(a, "null A", "A is null");
  a = good, a.b = reinterpret_cast<const __half*>(buf + 8);
  expect_invalid(a, "misaligned B", "B must be 16-byte aligned");
  a = good, a.epilogue.beta = 1.0f;
  expect_invalid(a, "beta without C", "C is null but the epilogue reads it");
  a = good, a.epilogue.alpha = std::nanf("");
  expect_invalid(a, "NaN alpha", "alpha");
  a = good, a.b_layout = static_cast<BLayout>(7);
  expect_invalid(a, "bad layout", "b_layout");
  EXPECT_EQ(buf[0], 0) << "a rejected call wrote memory";
  // beta == 0 reads no C: a null C is fine.
  a = good, a.epilogue.alpha = 2.0f;
  EXPECT_TRUE(bwgemm::Gemm<Cfg>::can_implement(a).ok());
}

// Every output type (bf16 and fp32 D and C) on the default entry point's kernels.
template <class Cfg>
class GemmOutputTest : public ::testing::Test {};
TYPED_TEST_SUITE(GemmOutputTest, ToTypes<bwgemm::sm100::ShippedGemmOutputVariants>::type, ConfigNames);

TYPED_TEST(GemmOutputTest, ExactTierBothLayouts) {
  BWGEMM_REQUIRE_SM100();
  for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN}) {
    Problem pb = two_by_two<TypeParam>(layout);
    pb.beta = 1.0f;
    check<TypeParam, __half>(pb, Data::kExact, 51);
  }
}

TYPED_TEST(GemmOutputTest, RealisticTierWithTailsAndBeta) {
  BWGEMM_REQUIRE_SM100();
  for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN})
    check<TypeParam, __nv_bfloat16>(Problem{200, 136, 136, 2, layout, 1.0f, 0.5f, 8, 0}, Data::kRealistic,
                                    52);
}

// A user-supplied epilogue functor: ReLU of alpha A B, no C.
struct ScaledRelu {
  float alpha = 1.0f;
  BWGEMM_HD float operator()(float acc) const { return alpha * acc > 0.0f ? alpha * acc : 0.0f; }
};

TEST(GemmExtending, UserEpilogueFunctor) {
  BWGEMM_REQUIRE_SM100();
  using Cfg = bwgemm::sm100::GemmConfig<64, 0, 1, bwgemm::sched::StaticPersistent, ScaledRelu>;
  const Problem pb{128, 128, 64};
  const Operands<__half, __half> o(pb, Data::kExact, 61);
  DeviceBytes a(o.a.size() * 2), b(o.b.size() * 2), d(static_cast<size_t>(pb.m * pb.n * 2));
  a.upload(o.a.data(), a.size());
  b.upload(o.b.data(), b.size());
  bwgemm::GemmArguments<__half, __half, ScaledRelu> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = reinterpret_cast<const __half*>(a.data());
  args.b = reinterpret_cast<const __half*>(b.data());
  args.d = reinterpret_cast<__half*>(d.data());
  args.epilogue.alpha = 0.5f;
  ASSERT_TRUE(bwgemm::Gemm<Cfg>::run(args).ok());
  bwgemm_test::synchronize();
  const std::vector<uint8_t> bytes = d.download_checked();
  Problem plain = pb;
  plain.alpha = 0.5f;
  Operands<__half, __half> ref_ops = o;
  ref_ops.pb = plain;
  const std::vector<__half> want = ref_ops.reference(__half{});
  int64_t positive = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const float w = std::max(bwgemm::ref::to_float(want[i]), 0.0f);
    positive += w > 0.0f;
    __half g;
    std::memcpy(&g, &bytes[2 * i], 2);
    ASSERT_EQ(bwgemm::ref::to_float(g), w) << "element " << i;
  }
  EXPECT_GT(positive, pb.m * pb.n / 4) << "the data should exercise both branches of the functor";
}

// The default entry point on the shapes that select each of its three kernels.
TEST(GemmDefault, EachKernelOfTheChoice) {
  BWGEMM_REQUIRE_SM100();
  for (int64_t m : {64, 384, 640}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    const Problem pb{m, 264, 64, 1, BLayout::kRowMajorKxN, 1.0f, 0.0f};
    const Operands<__half, __half> o(pb, Data::kExact, 71);
    DeviceBytes a(o.a.size() * 2), b(o.b.size() * 2), d(static_cast<size_t>(pb.m * pb.n * 2));
    a.upload(o.a.data(), a.size());
    b.upload(o.b.data(), b.size());
    bwgemm::GemmArguments<__half> args;
    args.m = pb.m, args.n = pb.n, args.k = pb.k;
    args.a = reinterpret_cast<const __half*>(a.data());
    args.b = reinterpret_cast<const __half*>(b.data());
    args.d = reinterpret_cast<__half*>(d.data());
    const bwgemm::Status s = bwgemm::gemm(args);
    ASSERT_TRUE(s.ok()) << s.to_string();
    bwgemm_test::synchronize();
    const std::vector<uint8_t> bytes = d.download_checked();
    const std::vector<__half> want = o.reference(__half{});
    ASSERT_EQ(std::memcmp(bytes.data(), want.data(), bytes.size()), 0) << "D differs from the reference";
  }
}

}  // namespace
