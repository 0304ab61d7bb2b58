// The sm_90a fp16/bf16 GEMM (bwgemm/sm90/gemm.cuh) run natively on a GPU of compute capability 9.0
// (H100/H200); every GPU case skips with a message elsewhere. The argument checks run everywhere.
//
// Tiers:
//   exact      small-integer inputs (and alpha, beta powers of two): every product and sum is exact in fp32,
//              so D must equal the host reference (ref::gemm) bit for bit after the same rounding
//   realistic  uniform [-1, 1) inputs against ref::gemm, bound 2 output roundings + 1e-5 · Σ|a·b| (fp32
//              summation order)
// Every output lives in a NaN-poisoned buffer with guard bands: every element of D must be written, and no
// padding column (ldd > N) or guard byte may change. Both B layouts, every output type, beta != 0, batches
// with padded strides, M/N/K tails, the cluster (multicast) and the single-CTA configs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/sm90/gemm.cuh"
#include "sm90_test_support.hpp"

namespace {

using bwgemm::BLayout;
using bwgemm::Status;
using bwgemm::StatusCode;
using bf16 = __nv_bfloat16;
using f16 = __half;
namespace sm90 = bwgemm::sm90;
namespace ref = bwgemm::ref;
namespace sched = bwgemm::sched;
namespace epi = bwgemm::epi;

using bwgemm_sm90_test::bits_of;
using bwgemm_sm90_test::GuardedBytes;
using bwgemm_sm90_test::kPoisonByte;

struct Shape {
  int64_t m, n, k, batch = 1;
  int64_t lda = 0, ldb = 0, ldd = 0;  // 0: packed; ldc = ldd
};

std::string describe(const Shape& s, BLayout layout) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) +
         " batch=" + std::to_string(s.batch) + " lda=" + std::to_string(s.lda) +
         " ldb=" + std::to_string(s.ldb) + " ldd=" + std::to_string(s.ldd) +
         (layout == BLayout::kRowMajorKxN ? " B=KxN" : " B=NxK");
}

template <class Out>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<Out, float>) return 0x1p-24;
  if constexpr (std::is_same_v<Out, f16>) return 0x1p-11;
  return 0x1p-8;
}

enum class Tier { kExact, kRealistic };

// Runs one GEMM through `launch` (sm90::GemmArguments<In, Out> -> Status) and checks it against ref::gemm.
template <class In, class Out, class Launch>
void check_gemm(const Shape& s, BLayout layout, Tier tier, float alpha, float beta, Launch launch,
                uint32_t seed = 1) {
  SCOPED_TRACE(describe(s, layout));
  const bool kxn = layout == BLayout::kRowMajorKxN;
  const int64_t lda = s.lda ? s.lda : s.k;
  const int64_t ldb = s.ldb ? s.ldb : (kxn ? s.n : s.k);
  const int64_t ldd = s.ldd ? s.ldd : s.n;
  const int64_t b_rows = kxn ? s.k : s.n, b_cols = kxn ? s.n : s.k;
  const size_t a_elems = static_cast<size_t>(s.batch * s.m * lda);
  const size_t b_elems = static_cast<size_t>(s.batch * b_rows * ldb);
  const size_t d_elems = static_cast<size_t>(s.batch * s.m * ldd);

  // Exact tier: integers in [-2, 2] (fp16 outputs: [-1, 1], whose range is small); realistic: uniform
  // [-1, 1). Padding columns hold large values that must never be read.
  std::mt19937 rng(seed);
  const int range = std::is_same_v<Out, f16> ? 1 : 2;
  std::uniform_int_distribution<int> small(-range, range);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const auto draw = [&] { return tier == Tier::kExact ? static_cast<float>(small(rng)) : uniform(rng); };
  const auto fill = [&](auto& v, int64_t rows, int64_t cols, int64_t ld, auto convert) {
    v.assign(static_cast<size_t>(s.batch * rows * ld), convert(1000.0f));
    for (int64_t l = 0; l < s.batch; ++l)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) v[static_cast<size_t>((l * rows + r) * ld + c)] = convert(draw());
  };
  std::vector<In> a, b;
  std::vector<Out> c;
  fill(a, s.m, s.k, lda, [](float x) { return ref::from_float<In>(x); });
  fill(b, b_rows, b_cols, ldb, [](float x) { return ref::from_float<In>(x); });
  fill(c, s.m, s.n, ldd, [](float x) { return ref::from_float<Out>(x); });

  GuardedBytes da(a_elems * sizeof(In), 0), db(b_elems * sizeof(In), 0);
  GuardedBytes dc(d_elems * sizeof(Out), 0), dd(d_elems * sizeof(Out), kPoisonByte);
  da.upload(a.data(), a_elems * sizeof(In));
  db.upload(b.data(), b_elems * sizeof(In));
  dc.upload(c.data(), d_elems * sizeof(Out));

  sm90::GemmArguments<In, Out> args;
  args.m = s.m, args.n = s.n, args.k = s.k, args.batch = s.batch;
  args.a = reinterpret_cast<const In*>(da.data());
  args.lda = s.lda;
  args.b = reinterpret_cast<const In*>(db.data());
  args.b_layout = layout;
  args.ldb = s.ldb;
  args.c = beta != 0.0f ? reinterpret_cast<const Out*>(dc.data()) : nullptr;
  args.ldc = s.ldd;
  args.d = reinterpret_cast<Out*>(dd.data());
  args.ldd = s.ldd;
  args.epilogue = {alpha, beta};
  const Status st = launch(args);
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << cudaGetErrorString(cudaGetLastError());

  // Reference in fp32 (unrounded), and Σ|a·b| for the realistic bound.
  std::vector<float> want(static_cast<size_t>(s.batch * s.m * s.n)), abs_sum(want.size());
  ref::GemmArgs<In, In, float> g;
  g.m = s.m, g.n = s.n, g.k = s.k, g.batch = s.batch;
  g.a = a.data(), g.lda = lda, g.batch_stride_a = s.m * lda;
  g.b = b.data(), g.b_layout = layout, g.ldb = ldb, g.batch_stride_b = b_rows * ldb;
  g.d = want.data(), g.ldd = s.n, g.batch_stride_d = s.m * s.n;
  g.alpha = alpha;
  ref::gemm(g);
  if (tier == Tier::kRealistic) {
    std::vector<float> abs_a(a.size()), abs_b(b.size());
    for (size_t i = 0; i < a.size(); ++i) abs_a[i] = std::fabs(ref::to_float(a[i]));
    for (size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(ref::to_float(b[i]));
    ref::GemmArgs<float, float, float> ga;
    ga.m = s.m, ga.n = s.n, ga.k = s.k, ga.batch = s.batch;
    ga.a = abs_a.data(), ga.lda = lda, ga.batch_stride_a = s.m * lda;
    ga.b = abs_b.data(), ga.b_layout = layout, ga.ldb = ldb, ga.batch_stride_b = b_rows * ldb;
    ga.d = abs_sum.data(), ga.ldd = s.n, ga.batch_stride_d = s.m * s.n;
    ga.alpha = std::fabs(alpha);
    ref::gemm(ga);
  }

  std::vector<Out> d;
  ASSERT_NO_FATAL_FAILURE(bwgemm_sm90_test::download_checked(dd, d_elems, "D", &d));

  constexpr uint32_t kPoisonBits = sizeof(Out) == 4 ? 0xFFFFFFFFu : 0xFFFFu;
  int64_t failures = 0;
  for (int64_t l = 0; l < s.batch; ++l) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < ldd; ++j) {
        const Out got = d[static_cast<size_t>((l * s.m + i) * ldd + j)];
        if (j >= s.n) {  // padding column: untouched
          if (bits_of(got) != kPoisonBits && ++failures <= 5)
            ADD_FAILURE() << "padding column written at batch " << l << " row " << i << " col " << j;
          continue;
        }
        const size_t r = static_cast<size_t>((l * s.m + i) * s.n + j);
        const float c_val = ref::to_float(c[static_cast<size_t>((l * s.m + i) * ldd + j)]);
        const float w = beta != 0.0f ? want[r] + beta * c_val : want[r];
        const float got_f = ref::to_float(got);
        bool ok;
        if (tier == Tier::kExact) {
          ok = bits_of(got) == bits_of(ref::from_float<Out>(w));
        } else {
          const double bound = 2 * unit_roundoff<Out>() * std::fabs(w) + 1e-5 * abs_sum[r] + 1e-30;
          ok = std::isfinite(got_f) && std::fabs(got_f - w) <= bound;
        }
        if (!ok && ++failures <= 5)
          ADD_FAILURE() << "D[" << l << "][" << i << "][" << j << "] = " << got_f << " (bits 0x" << std::hex
                        << bits_of(got) << std::dec << "), want " << w;
      }
    }
  }
  EXPECT_EQ(failures, 0) << failures << " wrong elements";
}

template <class Cfg>
struct ExplicitConfig {
  template <class Args>
  Status operator()(const Args& args) const {
    return sm90::Gemm<Cfg>::run(args);
  }
};
struct DefaultEntry {
  template <class Args>
  Status operator()(const Args& args) const {
    return sm90::gemm(args);
  }
};

template <class Out>
using Large = sm90::GemmLargeCluster2<Out>;  // 128 x 256, clusters of 2 (B multicast)
template <class Out>
using LargeOneCta = sm90::GemmLarge<Out>;  // 128 x 256, one CTA per cluster (the default's big tile)
template <class Out>
using Small = sm90::GemmSmall<Out>;  // 128 x 128, no cluster
// D stored from registers instead of through shared memory and TMA stores (the TmaStore knob off).
template <class Out>
using LargeRegisterStore = typename sm90::GemmLarge<Out>::template WithTmaStore<false>;
// Non-persistent variants: one cluster per tile.
using OneTileCluster = sm90::GemmConfig<256, 4, 2, sched::OneTilePerCluster, epi::LinearCombination, bf16>;
using OneTileSingle = sm90::GemmConfig<64, 8, 1, sched::OneTilePerCluster, epi::LinearCombination, f16>;

const BLayout kLayouts[] = {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN};

// ---- exact tier ---------------------------------------------------------------------------------------

const Shape kExactShapes[] = {
    {128, 256, 64},                     // one tile, one stage
    {256, 512, 512},                    // several tiles, the stage ring wraps
    {200, 136, 72},                     // M, N, K tails
    {8, 8, 8},                          // a sliver
    {136, 264, 200, 3, 216, 280, 272},  // batches with padded rows (ldb fits both layouts)
    {4096, 2048, 64},                   // more tiles than resident CTAs: persistent CTAs take several
};

TEST(Sm90GemmExact, Bf16LargeClusterBothLayouts) {
  BWGEMM_REQUIRE_SM90();
  for (BLayout layout : kLayouts)
    for (const Shape& s : kExactShapes)
      check_gemm<bf16, bf16>(s, layout, Tier::kExact, 1.0f, 0.0f, ExplicitConfig<Large<bf16>>{});
}

TEST(Sm90GemmExact, Fp16LargeOneCtaBothLayouts) {
  BWGEMM_REQUIRE_SM90();
  for (BLayout layout : kLayouts)
    for (const Shape& s : kExactShapes) {
      if (s.k > 256) continue;  // keeps |D| within fp16's exact integers
      check_gemm<f16, f16>(s, layout, Tier::kExact, 1.0f, 0.0f, ExplicitConfig<LargeOneCta<f16>>{});
    }
}

TEST(Sm90GemmExact, Fp16SmallBothLayouts) {
  BWGEMM_REQUIRE_SM90();
  for (BLayout layout : kLayouts)
    for (const Shape& s : kExactShapes) {
      if (s.k > 256) continue;  // keeps |D| within fp16's exact integers
      check_gemm<f16, f16>(s, layout, Tier::kExact, 1.0f, 0.0f, ExplicitConfig<Small<f16>>{});
    }
}

TEST(Sm90GemmExact, EveryOutputTypeWithBeta) {
  BWGEMM_REQUIRE_SM90();
  const Shape s{200, 136, 72};
  for (BLayout layout : kLayouts) {
    check_gemm<bf16, float>(s, layout, Tier::kExact, 0.5f, 2.0f, ExplicitConfig<Large<float>>{});
    check_gemm<f16, float>(s, layout, Tier::kExact, 2.0f, -1.0f, ExplicitConfig<Small<float>>{});
    check_gemm<bf16, f16>(s, layout, Tier::kExact, 1.0f, 1.0f, ExplicitConfig<Large<f16>>{});
    check_gemm<f16, bf16>(s, layout, Tier::kExact, 0.25f, 4.0f, ExplicitConfig<Small<bf16>>{});
    check_gemm<bf16, bf16>({136, 264, 200, 3, 216, 280, 272}, layout, Tier::kExact, 1.0f, -2.0f,
                           ExplicitConfig<Large<bf16>>{});
  }
}

TEST(Sm90GemmExact, RegisterStoreBothLayouts) {
  BWGEMM_REQUIRE_SM90();
  for (BLayout layout : kLayouts) {
    for (const Shape& s : kExactShapes)
      check_gemm<bf16, bf16>(s, layout, Tier::kExact, 1.0f, 0.0f, ExplicitConfig<LargeRegisterStore<bf16>>{});
    check_gemm<f16, float>({200, 136, 72}, layout, Tier::kExact, 2.0f, -1.0f,
                           ExplicitConfig<LargeRegisterStore<float>>{});
  }
}

TEST(Sm90GemmExact, OneTilePerCluster) {
  BWGEMM_REQUIRE_SM90();
  for (BLayout layout : kLayouts) {
    check_gemm<bf16, bf16>({392, 776, 136}, layout, Tier::kExact, 1.0f, 0.0f,
                           ExplicitConfig<OneTileCluster>{});
    check_gemm<f16, f16>({392, 776, 136}, layout, Tier::kExact, 1.0f, 0.0f, ExplicitConfig<OneTileSingle>{});
  }
}

// ---- realistic tier (the default entry point) -----------------------------------------------------------

TEST(Sm90GemmRealistic, Bf16LargeShapeBothLayouts) {
  BWGEMM_REQUIRE_SM90();
  for (BLayout layout : kLayouts)
    check_gemm<bf16, bf16>({1024, 2048, 1024}, layout, Tier::kRealistic, 1.0f, 0.0f, DefaultEntry{}, 11);
}

TEST(Sm90GemmRealistic, Fp16TailsAndBeta) {
  BWGEMM_REQUIRE_SM90();
  for (BLayout layout : kLayouts) {
    check_gemm<f16, f16>({1000, 1048, 1000}, layout, Tier::kRealistic, 0.75f, 0.5f, DefaultEntry{}, 12);
    check_gemm<f16, float>({264, 520, 2056}, layout, Tier::kRealistic, 1.0f, 0.0f, DefaultEntry{}, 13);
  }
}

// What the persistent grid is sized from: how many clusters of each big-tile kernel fit on the device at once
// (printed for docs/performance.md; the multicast variant's grid is 2x this).
TEST(Sm90GemmDiagnostics, ResidentClusters) {
  BWGEMM_REQUIRE_SM90();
  int64_t one_cta = 0, pairs = 0;
  using One = sm90::GemmLarge<bf16>;
  using Two = sm90::GemmLargeCluster2<bf16>;
  ASSERT_TRUE(bwgemm::host::resident_clusters(&sm90::gemm_kernel<One, bf16, true>, One::kThreads, 1,
                                              One::kSmemBytes, &one_cta)
                  .ok());
  ASSERT_TRUE(bwgemm::host::resident_clusters(&sm90::gemm_kernel<Two, bf16, true>, Two::kThreads, 2,
                                              Two::kSmemBytes, &pairs)
                  .ok());
  std::printf("resident clusters: GemmLarge %lld (1 CTA each), GemmLargeCluster2 %lld (2 CTAs each)\n",
              static_cast<long long>(one_cta), static_cast<long long>(pairs));
  EXPECT_GT(one_cta, 0);
  EXPECT_GT(pairs, 0);

  // The launches' remembered answer (host::cached_resident_clusters) is the measured one, kept apart per
  // kernel and launch shape: the same kernel asked for clusters of 1 and of 2 CTAs (different answers on
  // an H200: 132 and 66) must get each its own, and the other B layout (same parameter type, another
  // kernel) its own. Asked twice: the second round is answered from the cache.
  void (*const kernel_kn)(const sm90::GemmParams<One>) = &sm90::gemm_kernel<One, bf16, true>;
  void (*const kernel_nk)(const sm90::GemmParams<One>) = &sm90::gemm_kernel<One, bf16, false>;
  int64_t one_kernel_in_pairs = 0;
  ASSERT_TRUE(
      bwgemm::host::resident_clusters(kernel_kn, One::kThreads, 2, One::kSmemBytes, &one_kernel_in_pairs)
          .ok());
  for (int round = 0; round < 2; ++round) {
    int64_t single = 0, paired = 0, other_layout = 0;
    ASSERT_TRUE(
        bwgemm::host::cached_resident_clusters(kernel_kn, One::kThreads, 1, One::kSmemBytes, &single).ok());
    ASSERT_TRUE(
        bwgemm::host::cached_resident_clusters(kernel_kn, One::kThreads, 2, One::kSmemBytes, &paired).ok());
    ASSERT_TRUE(
        bwgemm::host::cached_resident_clusters(kernel_nk, One::kThreads, 1, One::kSmemBytes, &other_layout)
            .ok());
    EXPECT_EQ(single, one_cta) << "round " << round;
    EXPECT_EQ(paired, one_kernel_in_pairs) << "round " << round;
    EXPECT_EQ(other_layout, one_cta) << "round " << round;
  }
  EXPECT_NE(one_cta, one_kernel_in_pairs) << "the test needs two different answers to tell them apart";
}

// ---- bad inputs (host checks: run everywhere) -----------------------------------------------------------

sm90::GemmArguments<bf16, bf16> valid_args() {
  sm90::GemmArguments<bf16, bf16> a;
  a.m = 256, a.n = 256, a.k = 256;
  // Never dereferenced: can_implement only looks at the values.
  a.a = reinterpret_cast<const bf16*>(uintptr_t{0x10000});
  a.b = reinterpret_cast<const bf16*>(uintptr_t{0x20000});
  a.d = reinterpret_cast<bf16*>(uintptr_t{0x40000});
  return a;
}

using LargeBf16 = sm90::Gemm<Large<bf16>>;

void expect_invalid(const sm90::GemmArguments<bf16, bf16>& a, const std::string& needle) {
  bwgemm_sm90_test::expect_invalid_argument(LargeBf16::can_implement(a), needle);
}

// The default entry point's choice (host logic: runs without a GPU). Expected kernels worked out by hand
// from the rules in sm90/gemm.cuh and kernels/sm90/common.cuh (prefer_cluster_pair).
TEST(Sm90GemmChoice, ByTileCounts) {
  using sm90::GemmChoice;
  // 128 x 256 tiles: 8 x 8 = 64 < 132 -> the 128 x 128 kernel.
  EXPECT_EQ(sm90::gemm_choice(1024, 2048, 1), GemmChoice::kSmall);
  // 32 x 20 = 640 tiles, 16 x 20 = 320 pair tiles >= 132 -> pairs (the benchmark's 4096 x 5120).
  EXPECT_EQ(sm90::gemm_choice(4096, 5120, 1), GemmChoice::kLargeCluster2);
  EXPECT_EQ(sm90::gemm_choice(8192, 8192, 1), GemmChoice::kLargeCluster2);
  // 12 x 12 = 144 tiles but 6 x 12 = 72 pair tiles < 132 -> one CTA per cluster.
  EXPECT_EQ(sm90::gemm_choice(1536, 3072, 1), GemmChoice::kLarge);
  // 1 row tile, 160 column tiles: a pair would idle half its CTAs (odd count below 8) -> one CTA.
  EXPECT_EQ(sm90::gemm_choice(128, 40960, 1), GemmChoice::kLarge);
  // 3 row tiles (odd, below 8) x 100 columns = 150 pair tiles: still one CTA.
  EXPECT_EQ(sm90::gemm_choice(384, 25600, 1), GemmChoice::kLarge);
  // 9 row tiles (odd but >= 8): 5 x 30 = 150 pair tiles -> pairs.
  EXPECT_EQ(sm90::gemm_choice(1152, 7680, 1), GemmChoice::kLargeCluster2);
  // Batches multiply the tiles: 4 x 8 x 4 = 128 < 132 -> small; 2 x 8 x 9 = 144 pair tiles -> pairs.
  EXPECT_EQ(sm90::gemm_choice(512, 2048, 4), GemmChoice::kSmall);
  EXPECT_EQ(sm90::gemm_choice(512, 2048, 9), GemmChoice::kLargeCluster2);
}

TEST(Sm90GemmArguments, ValidPassesHostChecks) {
  EXPECT_TRUE(LargeBf16::can_implement(valid_args()).ok());
  auto a = valid_args();
  a.b_layout = BLayout::kColumnMajorKxN;
  EXPECT_TRUE(LargeBf16::can_implement(a).ok());
}

TEST(Sm90GemmArguments, BadShapes) {
  auto a = valid_args();
  a.m = 0;
  expect_invalid(a, "M must be");
  a = valid_args(), a.n = 100;
  expect_invalid(a, "N must be");
  a = valid_args(), a.k = 12;
  expect_invalid(a, "K must be");
  a = valid_args(), a.batch = 0;
  expect_invalid(a, "batch");
  a = valid_args(), a.b_layout = static_cast<BLayout>(7);
  expect_invalid(a, "b_layout");
}

TEST(Sm90GemmArguments, BadStrides) {
  auto a = valid_args();
  a.lda = 128;  // < K
  expect_invalid(a, "lda");
  a = valid_args(), a.lda = 260;  // not 16-byte rows
  expect_invalid(a, "lda");
  a = valid_args(), a.ldb = 100;
  expect_invalid(a, "ldb");
  a = valid_args(), a.ldd = 200;
  expect_invalid(a, "ldd");
  a = valid_args(), a.batch = 2, a.batch_stride_d = 256;  // overlapping batches of D
  expect_invalid(a, "batch_stride_d");
}

TEST(Sm90GemmArguments, BadPointersAndScalars) {
  auto a = valid_args();
  a.a = nullptr;
  expect_invalid(a, "A is null");
  a = valid_args(), a.d = reinterpret_cast<bf16*>(uintptr_t{0x40008});
  expect_invalid(a, "D must be 16-byte aligned");
  a = valid_args(), a.epilogue.beta = 1.0f;  // C needed but null
  expect_invalid(a, "C is null");
  a = valid_args(), a.epilogue.alpha = std::nanf("");
  expect_invalid(a, "alpha and beta");
}

// On anything but compute capability 9.0 the entry point must refuse with a clear device mismatch (and
// launch nothing); on an H100/H200 host memory must be refused as an operand.
TEST(Sm90GemmArguments, DeviceOrHostMemoryRefused) {
  std::vector<bf16> host(256 * 256);
  auto in_host_memory = valid_args();
  in_host_memory.a = in_host_memory.b = host.data();
  in_host_memory.d = host.data();
  bwgemm_sm90_test::expect_device_or_host_memory_refused([](const auto& a) { return sm90::gemm(a); },
                                                         valid_args(), in_host_memory);
}

}  // namespace
