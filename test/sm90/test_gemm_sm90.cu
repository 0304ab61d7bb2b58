// The GEMM contract (test/contract/gemm_contract.hpp) on the sm_90a kernels, natively on a GPU of compute
// capability 9.0 (H100/H200); every GPU case skips with a message elsewhere. Configs: the default entry
// point's three kernels, the register-store path, one-tile-per-cluster variants, every output type; plus
// more tiles than resident clusters, a user functor, the default entry point on realistic shapes, its choice
// table (host logic: runs everywhere), the resident-cluster cache, and the device/host-memory refusal.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bwgemm/sm90/gemm.cuh"
#include "gemm_contract.hpp"

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
namespace sched = bwgemm::sched;
namespace epi = bwgemm::epi;
using bf16 = __nv_bfloat16;
using f16 = __half;

struct Sm90 {
  template <class Cfg>
  using Gemm = sm90::Gemm<Cfg>;
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return sm90::gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm90(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 9.0 (H100/H200) for sm_90a code";
};

// D stored from registers instead of through shared memory and TMA stores (the TmaStore knob off).
template <class Out>
using LargeRegisterStore = typename sm90::GemmLarge<Out>::template WithTmaStore<false>;
// Non-persistent variants: one cluster per tile.
using OneTileCluster = sm90::GemmConfig<256, 4, 2, sched::OneTilePerCluster, epi::LinearCombination, bf16>;
using OneTileSingle = sm90::GemmConfig<64, 8, 1, sched::OneTilePerCluster, epi::LinearCombination, f16>;

using Sm90GemmConfigs =
    Configs<sm90::GemmLargeCluster2<bf16>, sm90::GemmLarge<f16>, sm90::GemmMedium<bf16>, sm90::GemmSmall<f16>,
            LargeRegisterStore<bf16>, OneTileCluster, OneTileSingle>;
using Sm90GemmOutputVariants =
    Configs<sm90::GemmLargeCluster2<float>, sm90::GemmMedium<float>, sm90::GemmSmall<float>,
            sm90::GemmLarge<bf16>, sm90::GemmSmall<bf16>, LargeRegisterStore<float>>;
using Sm90GemmDefaults = Configs<sm90::GemmLargeCluster2<bf16>, sm90::GemmLarge<bf16>, sm90::GemmMedium<bf16>,
                                 sm90::GemmSmall<bf16>>;

using Sm90GemmCases = CasesOf<Sm90, Sm90GemmConfigs>::type;
using Sm90GemmOutputCases = CasesOf<Sm90, Sm90GemmOutputVariants>::type;
using Sm90GemmDefaultCases = CasesOf<Sm90, Sm90GemmDefaults>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm90, GemmContract, Sm90GemmCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90, GemmOutputContract, Sm90GemmOutputCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90, GemmManyTilesContract, Sm90GemmDefaultCases, ConfigNames);

namespace {

TEST(Sm90GemmExtending, UserEpilogueFunctor) {
  BWGEMM_REQUIRE_SM90();
  check_user_epilogue<Sm90, sm90::GemmSmall<f16>>();
}

// The default entry point on problems that select each of its tiled kernels (Sm90GemmChoice below works
// them out): GemmSmall, GemmLargeCluster2, GemmMedium (1536 x 3072: 144 / 192 / 288 tiles = 2 / 2 / 3
// waves) and GemmLarge.
TEST(Sm90GemmDefault, EachKernelOfTheChoice) {
  BWGEMM_REQUIRE_SM90();
  check_default_entry<Sm90, bf16, bf16>({GemmProblem{1024, 2048, 64}, GemmProblem{4096, 5120, 64},
                                         GemmProblem{1536, 3072, 64, 1, bwgemm::BLayout::kColumnMajorKxN},
                                         GemmProblem{1024, 4096, 64}});
}

TEST(Sm90GemmDefault, RealisticShapes) {
  BWGEMM_REQUIRE_SM90();
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
    check_gemm<Sm90, sm90::GemmLargeCluster2<bf16>, bf16>(GemmProblem{1024, 2048, 1024, 1, layout},
                                                          Data::kRealistic, 11);
    check_gemm<Sm90, sm90::GemmSmall<f16>, f16>(GemmProblem{1000, 1048, 1000, 1, layout, 0.75f, 0.5f},
                                                Data::kRealistic, 12);
    check_gemm<Sm90, sm90::GemmSmall<float>, f16>(GemmProblem{264, 520, 2056, 1, layout}, Data::kRealistic,
                                                  13);
  }
}

// The default entry point's choice (host logic: runs without a GPU). Expected kernels worked out by hand
// from the rules in sm90/gemm.cuh (gemm_tiled_cost: ceil(tiles / 132) x width x 100, 100 or 105 for the
// 256-, 192- and 128-column tiles) and kernels/sm90/common.cuh (prefer_cluster_pair). Costs below as
// 256 / 192 / 128.
TEST(Sm90GemmChoice, ByWavesOfTiles) {
  using sm90::GemmChoice;
  // 64 / 88 / 128 tiles, one wave each: 25600 / 19200 / 13440 -> 128 x 128.
  EXPECT_EQ(sm90::gemm_choice(1024, 2048, 1), GemmChoice::kSmall);
  // 640 / 864 / 1280 tiles = 5 / 7 / 10 waves: 128000 / 134400 / 134400 -> 128 x 256; 16 x 20 = 320 pair
  // tiles >= 132 -> pairs (the benchmark's 4096 x 5120).
  EXPECT_EQ(sm90::gemm_choice(4096, 5120, 1), GemmChoice::kLargeCluster2);
  // 2048 / 2752 / 4096 tiles = 16 / 21 / 32 waves: 409600 / 403200 / 430080 -> 128 x 192.
  EXPECT_EQ(sm90::gemm_choice(8192, 8192, 1), GemmChoice::kMedium);
  // 128 / 176 / 256 tiles = 1 / 2 / 2 waves: 25600 / 38400 / 26880 -> 128 x 256, but 4 x 16 = 64 pair tiles
  // < 132 -> one CTA per cluster.
  EXPECT_EQ(sm90::gemm_choice(1024, 4096, 1), GemmChoice::kLarge);
  // 384 / 516 / 768 tiles = 3 / 4 / 6 waves: 76800 / 76800 / 80640, the tie to the wider tile; 6 x 32 = 192
  // pair tiles, 12 row tiles -> pairs.
  EXPECT_EQ(sm90::gemm_choice(1536, 8192, 1), GemmChoice::kLargeCluster2);
  // 320 / 430 / 640 tiles = 3 / 4 / 5 waves: 76800 / 76800 / 67200 -> 128 x 128.
  EXPECT_EQ(sm90::gemm_choice(1280, 8192, 1), GemmChoice::kSmall);
  // 3 row tiles: 201 / 270 / 402 tiles = 2 / 3 / 4 waves: 51200 / 57600 / 53760 -> 128 x 256; 2 x 67 = 134
  // pair tiles, but an odd row-tile count below 8 would idle a CTA of the last pair -> one CTA.
  EXPECT_EQ(sm90::gemm_choice(384, 17152, 1), GemmChoice::kLarge);
  // 9 row tiles (odd but >= 8): 603 / 810 / 1206 tiles = 5 / 7 / 10 waves: 128000 / 134400 / 134400; 5 x 67
  // = 335 pair tiles -> pairs.
  EXPECT_EQ(sm90::gemm_choice(1152, 17152, 1), GemmChoice::kLargeCluster2);
  // Batches multiply the tiles: x 4: 128 / 176 / 256 tiles (as 1024 x 4096 above; 64 pair tiles) -> one CTA;
  // x 9: 288 / 396 / 576 tiles = 3 / 3 / 5 waves: 76800 / 57600 / 67200 -> 128 x 192.
  EXPECT_EQ(sm90::gemm_choice(512, 2048, 4), GemmChoice::kLarge);
  EXPECT_EQ(sm90::gemm_choice(512, 2048, 9), GemmChoice::kMedium);
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

// On anything but compute capability 9.0 the entry point must refuse with a clear device mismatch (and
// launch nothing); on an H100/H200 host memory must be refused as an operand.
TEST(Sm90GemmArguments, DeviceOrHostMemoryRefused) {
  bwgemm::GemmArguments<bf16, bf16> args;
  args.m = 256, args.n = 256, args.k = 256;
  args.a = reinterpret_cast<const bf16*>(uintptr_t{0x100000});  // never dereferenced
  args.b = reinterpret_cast<const bf16*>(uintptr_t{0x200000});
  args.d = reinterpret_cast<bf16*>(uintptr_t{0x400000});
  std::vector<bf16> host_in(256 * 256), host_out(256 * 256);
  auto in_host_memory = args;
  in_host_memory.a = in_host_memory.b = host_in.data();
  in_host_memory.d = host_out.data();
  expect_device_or_host_memory_refused([](const auto& a) { return sm90::gemm(a); }, args, in_host_memory, 9,
                                       0, "compute capability 9.0");
}

}  // namespace
}  // namespace bwgemm_test
