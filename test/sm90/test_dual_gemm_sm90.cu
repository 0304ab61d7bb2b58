// The sm_90a fp16/bf16 dual GEMM (bwgemm/sm90/dual_gemm.cuh) run natively on a GPU of compute capability
// 9.0 (H100/H200); every GPU case skips with a message elsewhere. The argument checks run everywhere.
//
// Tiers:
//   exact      small-integer inputs and the epi::Multiply epilogue: every product and sum is exact in fp32,
//              so C must equal the host reference (ref::gemm) bit for bit after the same rounding
//   realistic  uniform [-1, 1) inputs and the SiLU epilogue against ref::gemm + ref::silu, with a bound of
//              two output roundings plus a small slack for fp32 summation order and ex2/rcp.approx
// Every output lives in a NaN-poisoned buffer with guard bands: every element of C must be written, and no
// padding column (ldc > N) or guard byte may change.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"  // ref::silu
#include "bwgemm/sm90/dual_gemm.cuh"
#include "sm90_test_support.hpp"

namespace {

using bwgemm::Status;
using bwgemm::StatusCode;
using bf16 = __nv_bfloat16;
using f16 = __half;
namespace sm90 = bwgemm::sm90;
namespace ref = bwgemm::ref;

using bwgemm_sm90_test::bits_of;
using bwgemm_sm90_test::GuardedBytes;
using bwgemm_sm90_test::kPoisonByte;

struct Shape {
  int64_t m, n, k, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0: packed (K, K, N)
};

std::string describe(const Shape& s) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) +
         " batch=" + std::to_string(s.batch) + " lda=" + std::to_string(s.lda) +
         " ldb=" + std::to_string(s.ldb) + " ldc=" + std::to_string(s.ldc);
}

enum class Tier { kExact, kRealistic };

// Runs one dual GEMM through `launch` and checks it against the host reference.
template <class In, class Out, class Epilogue, class Launch>
void check_dual_gemm(const Shape& s, Tier tier, float alpha1, float alpha2, Launch launch,
                     uint32_t seed = 1) {
  SCOPED_TRACE(describe(s));
  const int64_t lda = s.lda ? s.lda : s.k, ldb = s.ldb ? s.ldb : s.k, ldc = s.ldc ? s.ldc : s.n;
  const size_t a_elems = static_cast<size_t>(s.batch * s.m * lda);
  const size_t b_elems = static_cast<size_t>(s.batch * s.n * ldb);
  const size_t c_elems = static_cast<size_t>(s.batch * s.m * ldc);

  // Inputs: exact tier small integers ({-1, 0, 1} for fp16 outputs, whose range is small; {-2..2} for bf16),
  // realistic tier uniform [-1, 1). Padding columns hold large values that must never be read.
  std::mt19937 rng(seed);
  const int range = std::is_same_v<Out, f16> ? 1 : 2;
  std::uniform_int_distribution<int> small(-range, range);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto fill = [&](std::vector<In>& v, int64_t rows, int64_t ld) {
    v.assign(static_cast<size_t>(s.batch * rows * ld), ref::from_float<In>(1000.0f));
    for (int64_t l = 0; l < s.batch; ++l)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < s.k; ++c)
          v[static_cast<size_t>((l * rows + r) * ld + c)] =
              ref::from_float<In>(tier == Tier::kExact ? static_cast<float>(small(rng)) : uniform(rng));
  };
  std::vector<In> a, b1, b2;
  fill(a, s.m, lda);
  fill(b1, s.n, ldb);
  fill(b2, s.n, ldb);

  GuardedBytes da(a_elems * sizeof(In), 0), db1(b_elems * sizeof(In), 0), db2(b_elems * sizeof(In), 0);
  GuardedBytes dc(c_elems * sizeof(Out), kPoisonByte);
  da.upload(a.data(), a_elems * sizeof(In));
  db1.upload(b1.data(), b_elems * sizeof(In));
  db2.upload(b2.data(), b_elems * sizeof(In));

  sm90::DualGemmArguments<In, Out, Epilogue> args;
  args.m = s.m, args.n = s.n, args.k = s.k, args.batch = s.batch;
  args.a = reinterpret_cast<const In*>(da.data());
  args.b1 = reinterpret_cast<const In*>(db1.data());
  args.b2 = reinterpret_cast<const In*>(db2.data());
  args.c = reinterpret_cast<Out*>(dc.data());
  args.lda = s.lda, args.ldb = s.ldb, args.ldc = s.ldc;
  args.alpha1 = alpha1, args.alpha2 = alpha2;
  const Status st = launch(args);
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << cudaGetErrorString(cudaGetLastError());

  // Reference: gate and up in fp32 (ref::gemm, B given as N x K), then the epilogue in fp32.
  std::vector<float> gate(static_cast<size_t>(s.batch * s.m * s.n)), up(gate.size());
  auto product = [&](const std::vector<In>& b, float alpha, std::vector<float>& out) {
    ref::GemmArgs<In, In, float> g;
    g.m = s.m, g.n = s.n, g.k = s.k, g.batch = s.batch;
    g.a = a.data(), g.lda = lda, g.batch_stride_a = s.m * lda;
    g.b = b.data(), g.b_layout = ref::BLayout::kColumnMajorKxN, g.ldb = ldb, g.batch_stride_b = s.n * ldb;
    g.d = out.data(), g.ldd = s.n, g.batch_stride_d = s.m * s.n;
    g.alpha = alpha;
    ref::gemm(g);
  };
  product(b1, alpha1, gate);
  product(b2, alpha2, up);

  std::vector<Out> c;
  ASSERT_NO_FATAL_FAILURE(bwgemm_sm90_test::download_checked(dc, c_elems, "C", &c));

  constexpr double kUnitRoundoff = std::is_same_v<Out, f16> ? 0x1p-11 : 0x1p-8;
  double sum_sq = 0;
  for (int64_t l = 0; l < s.batch; ++l) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        const size_t r = static_cast<size_t>((l * s.m + i) * s.n + j);
        const float want = tier == Tier::kExact ? gate[r] * up[r] : ref::silu(gate[r]) * up[r];
        sum_sq += static_cast<double>(want) * want;
      }
    }
  }
  const double rms = std::sqrt(sum_sq / static_cast<double>(s.batch * s.m * s.n));
  int64_t failures = 0;
  for (int64_t l = 0; l < s.batch; ++l) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const Out got = c[static_cast<size_t>((l * s.m + i) * ldc + j)];
        if (j >= s.n) {  // padding column: untouched
          if (bits_of(got) != 0xFFFF && ++failures <= 5)
            ADD_FAILURE() << "padding column written at batch " << l << " row " << i << " col " << j;
          continue;
        }
        const size_t r = static_cast<size_t>((l * s.m + i) * s.n + j);
        const float want = tier == Tier::kExact ? gate[r] * up[r] : ref::silu(gate[r]) * up[r];
        const float got_f = ref::to_float(got);
        bool ok;
        if (tier == Tier::kExact) {
          ok = bits_of(got) == bits_of(ref::from_float<Out>(want));
        } else {
          const double bound = 2 * kUnitRoundoff * std::fabs(want) + 1e-3 * rms;
          ok = std::isfinite(got_f) && std::fabs(got_f - want) <= bound;
        }
        if (!ok && ++failures <= 5)
          ADD_FAILURE() << "C[" << l << "][" << i << "][" << j << "] = " << got_f << " (bits 0x" << std::hex
                        << bits_of(got) << std::dec << "), want " << want << " (gate " << gate[r] << ", up "
                        << up[r] << ")";
      }
    }
  }
  EXPECT_EQ(failures, 0) << failures << " wrong elements";
}

template <class Cfg>
auto explicit_config() {
  return [](const typename sm90::DualGemm<Cfg>::Arguments& args) { return sm90::DualGemm<Cfg>::run(args); };
}

// The two shipped configs with the exact-tier epilogue.
template <class In, class Out>
using LargeExact = typename sm90::DualGemmLargeM<In, Out>::template WithEpilogue<bwgemm::epi::Multiply>;
template <class In, class Out>
using SmallExact = typename sm90::DualGemmSmallM<In, Out>::template WithEpilogue<bwgemm::epi::Multiply>;
// A non-persistent variant (one CTA per tile).
using OneTileExact =
    sm90::DualGemmConfig<128, 4, bwgemm::sched::OneTilePerCluster, bf16, bf16, bwgemm::epi::Multiply>;

// ---- exact tier ---------------------------------------------------------------------------------------

const Shape kExactShapes[] = {
    {128, 128, 64},                     // one tile, one stage
    {256, 256, 512},                    // several tiles, the stage ring wraps
    {200, 136, 72},                     // M, N, K tails
    {1, 8, 8},                          // a sliver
    {77, 77, 13, 1, 16, 16, 80},        // odd N (scalar last column), K < 16, padded leading dims
    {130, 200, 200, 3, 208, 200, 208},  // batches with padded rows
    {2048, 2048, 128},                  // 256 tiles: persistent CTAs take several each
};

TEST(Sm90DualGemmExact, Bf16LargeConfig) {
  BWGEMM_REQUIRE_SM90();
  for (const Shape& s : kExactShapes)
    check_dual_gemm<bf16, bf16, bwgemm::epi::Multiply>(s, Tier::kExact, 1.0f, 1.0f,
                                                       explicit_config<LargeExact<bf16, bf16>>());
}

TEST(Sm90DualGemmExact, Bf16SmallConfig) {
  BWGEMM_REQUIRE_SM90();
  for (const Shape& s : kExactShapes)
    check_dual_gemm<bf16, bf16, bwgemm::epi::Multiply>(s, Tier::kExact, 0.5f, 2.0f,
                                                       explicit_config<SmallExact<bf16, bf16>>());
}

TEST(Sm90DualGemmExact, Fp16LargeConfig) {
  BWGEMM_REQUIRE_SM90();
  for (const Shape& s : kExactShapes) {
    if (s.k > 256) continue;  // keeps |gate · up| within fp16's range
    check_dual_gemm<f16, f16, bwgemm::epi::Multiply>(s, Tier::kExact, 1.0f, 1.0f,
                                                     explicit_config<LargeExact<f16, f16>>());
  }
}

// Clusters of two CTAs along M sharing B1/B2 through TMA multicast (both tile shapes).
template <class In, class Out>
using LargeClusterExact =
    typename sm90::DualGemmLargeMCluster2<In, Out>::template WithEpilogue<bwgemm::epi::Multiply>;
template <class In, class Out>
using SmallClusterExact =
    typename sm90::DualGemmSmallMCluster2<In, Out>::template WithEpilogue<bwgemm::epi::Multiply>;

TEST(Sm90DualGemmExact, Bf16Cluster2Configs) {
  BWGEMM_REQUIRE_SM90();
  for (const Shape& s : kExactShapes) {
    check_dual_gemm<bf16, bf16, bwgemm::epi::Multiply>(s, Tier::kExact, 1.0f, 1.0f,
                                                       explicit_config<LargeClusterExact<bf16, bf16>>());
    check_dual_gemm<bf16, bf16, bwgemm::epi::Multiply>(s, Tier::kExact, 0.5f, 2.0f,
                                                       explicit_config<SmallClusterExact<bf16, bf16>>());
  }
}

TEST(Sm90DualGemmRealistic, Bf16Cluster2) {
  BWGEMM_REQUIRE_SM90();
  check_dual_gemm<bf16, bf16, bwgemm::epi::SiluMul>(
      {1000, 1048, 1000}, Tier::kRealistic, 0.75f, 1.25f,
      [](const sm90::DualGemmArguments<bf16, bf16>& args) { return sm90::dual_gemm_cluster2(args); }, 10);
  check_dual_gemm<bf16, bf16, bwgemm::epi::SiluMul>(
      {256, 1024, 2048}, Tier::kRealistic, 1.0f, 1.0f,
      [](const sm90::DualGemmArguments<bf16, bf16>& args) { return sm90::dual_gemm_cluster2(args); }, 14);
}

// C from registers in every case (TmaStore = false); the configs above store C with TMA wherever N % 8 == 0
// and fall back to registers for the odd N of kExactShapes.
TEST(Sm90DualGemmExact, RegisterStoreConfigs) {
  BWGEMM_REQUIRE_SM90();
  for (const Shape& s : kExactShapes) {
    check_dual_gemm<bf16, bf16, bwgemm::epi::Multiply>(
        s, Tier::kExact, 1.0f, 1.0f,
        explicit_config<typename LargeExact<bf16, bf16>::template WithTmaStore<false>>());
    check_dual_gemm<bf16, bf16, bwgemm::epi::Multiply>(
        s, Tier::kExact, 0.5f, 2.0f,
        explicit_config<typename SmallExact<bf16, bf16>::template WithTmaStore<false>>());
  }
}

TEST(Sm90DualGemmExact, Bf16InFp16Out) {
  BWGEMM_REQUIRE_SM90();
  check_dual_gemm<bf16, f16, bwgemm::epi::Multiply>({200, 136, 72}, Tier::kExact, 1.0f, 1.0f,
                                                    explicit_config<LargeExact<bf16, f16>>());
}

TEST(Sm90DualGemmExact, OneTilePerCta) {
  BWGEMM_REQUIRE_SM90();
  check_dual_gemm<bf16, bf16, bwgemm::epi::Multiply>({300, 520, 136}, Tier::kExact, 1.0f, 1.0f,
                                                     explicit_config<OneTileExact>());
}

// ---- realistic tier (SiLU, the default entry point) -----------------------------------------------------

auto default_entry_bf16 = [](const sm90::DualGemmArguments<bf16, bf16>& args) {
  return sm90::dual_gemm(args);
};
auto default_entry_f16 = [](const sm90::DualGemmArguments<f16, f16>& args) { return sm90::dual_gemm(args); };

TEST(Sm90DualGemmRealistic, Bf16SmallM) {
  BWGEMM_REQUIRE_SM90();
  check_dual_gemm<bf16, bf16, bwgemm::epi::SiluMul>({256, 1024, 2048}, Tier::kRealistic, 1.0f, 1.0f,
                                                    default_entry_bf16, 7);
}

TEST(Sm90DualGemmRealistic, Bf16LargeMWithTails) {
  BWGEMM_REQUIRE_SM90();
  check_dual_gemm<bf16, bf16, bwgemm::epi::SiluMul>({1000, 1048, 1000}, Tier::kRealistic, 0.75f, 1.25f,
                                                    default_entry_bf16, 8);
}

TEST(Sm90DualGemmRealistic, Fp16) {
  BWGEMM_REQUIRE_SM90();
  check_dual_gemm<f16, f16, bwgemm::epi::SiluMul>({512, 768, 1536}, Tier::kRealistic, 1.0f, 1.0f,
                                                  default_entry_f16, 9);
}

// ---- bad inputs (host checks: run everywhere) -----------------------------------------------------------

sm90::DualGemmArguments<bf16, bf16> valid_args() {
  sm90::DualGemmArguments<bf16, bf16> a;
  a.m = 256, a.n = 256, a.k = 256;
  // Never dereferenced: can_implement only looks at the values.
  a.a = reinterpret_cast<const bf16*>(uintptr_t{0x10000});
  a.b1 = reinterpret_cast<const bf16*>(uintptr_t{0x20000});
  a.b2 = reinterpret_cast<const bf16*>(uintptr_t{0x30000});
  a.c = reinterpret_cast<bf16*>(uintptr_t{0x40000});
  return a;
}

using Large = sm90::DualGemm<sm90::DualGemmLargeM<bf16, bf16>>;

void expect_invalid(const sm90::DualGemmArguments<bf16, bf16>& a, const std::string& needle) {
  bwgemm_sm90_test::expect_invalid_argument(Large::can_implement(a), needle);
}

// The default entry point's choice (host logic: runs without a GPU), worked out by hand from the rules in
// sm90/dual_gemm.cuh and kernels/sm90/common.cuh (prefer_cluster_pair).
TEST(Sm90DualGemmChoice, ByShape) {
  using sm90::DualGemmChoice;
  EXPECT_EQ(sm90::dual_gemm_choice(256, 4096, 1), DualGemmChoice::kSmallM);  // M·batch <= 256
  EXPECT_EQ(sm90::dual_gemm_choice(128, 4096, 2), DualGemmChoice::kSmallM);
  // 4 row tiles, 32 column tiles of 128: 2 x 32 = 64 pair tiles < 132 -> one CTA.
  EXPECT_EQ(sm90::dual_gemm_choice(512, 4096, 1), DualGemmChoice::kLargeM);
  // 32 x 112 -> 16 x 112 = 1792 pair tiles -> pairs (the benchmark's 4096 x 14336).
  EXPECT_EQ(sm90::dual_gemm_choice(4096, 14336, 1), DualGemmChoice::kLargeMCluster2);
  EXPECT_EQ(sm90::dual_gemm_choice(8192, 14336, 1), DualGemmChoice::kLargeMCluster2);
  // 3 row tiles (odd, below 8): one CTA however many columns.
  EXPECT_EQ(sm90::dual_gemm_choice(384, 65536, 1), DualGemmChoice::kLargeM);
  // 9 row tiles: 5 x 32 = 160 pair tiles -> pairs.
  EXPECT_EQ(sm90::dual_gemm_choice(1152, 4096, 1), DualGemmChoice::kLargeMCluster2);
}

TEST(Sm90DualGemmArguments, ValidPassesHostChecks) {
  EXPECT_TRUE(Large::can_implement(valid_args()).ok());
}

TEST(Sm90DualGemmArguments, BadShapes) {
  auto a = valid_args();
  a.m = 0;
  expect_invalid(a, "M must be");
  a = valid_args(), a.n = -1;
  expect_invalid(a, "N must be");
  a = valid_args(), a.k = 0;
  expect_invalid(a, "K must be");
  a = valid_args(), a.batch = 0;
  expect_invalid(a, "batch");
}

TEST(Sm90DualGemmArguments, BadStrides) {
  auto a = valid_args();
  a.lda = 128;  // < K
  expect_invalid(a, "lda");
  a = valid_args(), a.lda = 260;  // not 16-byte rows
  expect_invalid(a, "lda");
  a = valid_args(), a.ldb = 100;
  expect_invalid(a, "ldb");
  a = valid_args(), a.ldc = 200;
  expect_invalid(a, "ldc");
  a = valid_args(), a.ldc = 258;
  expect_invalid(a, "ldc");
}

TEST(Sm90DualGemmArguments, BadPointers) {
  auto a = valid_args();
  a.a = nullptr;
  expect_invalid(a, "A is null");
  a = valid_args(), a.b2 = nullptr;
  expect_invalid(a, "B2 is null");
  a = valid_args(), a.c = reinterpret_cast<bf16*>(uintptr_t{0x40008});
  expect_invalid(a, "C must be 16-byte aligned");
}

TEST(Sm90DualGemmArguments, NonFiniteAlpha) {
  auto a = valid_args();
  a.alpha1 = std::nanf("");
  expect_invalid(a, "alpha");
  a = valid_args(), a.alpha2 = INFINITY;
  expect_invalid(a, "alpha");
}

// On anything but compute capability 9.0 the entry point must refuse with a clear device mismatch (and
// launch nothing); on an H100/H200 host memory must be refused as an operand.
TEST(Sm90DualGemmArguments, DeviceOrHostMemoryRefused) {
  std::vector<bf16> host(256 * 256);
  auto in_host_memory = valid_args();
  in_host_memory.a = in_host_memory.b1 = in_host_memory.b2 = host.data();
  in_host_memory.c = host.data();
  bwgemm_sm90_test::expect_device_or_host_memory_refused([](const auto& a) { return sm90::dual_gemm(a); },
                                                         valid_args(), in_host_memory);
}

}  // namespace
