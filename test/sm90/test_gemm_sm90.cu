// The GEMM contract (test/contract/gemm_contract.hpp) on the sm_90a kernels, natively on a GPU of compute
// capability 9.0 (H100/H200); every GPU case skips with a message elsewhere. Configs: the default entry
// point's three kernels, the register-store path, one-tile-per-cluster variants, every output type; plus
// more tiles than resident clusters, a user functor, the default entry point on realistic shapes, its choice
// table (host logic: runs everywhere), the resident-cluster cache, and the device/host-memory refusal.
// Split K over a cluster (Gemm<Cfg>::run's split_k): the contract on the one-CTA Configs at splits 2, 4
// and 8, decode token counts, every output type, bitwise-identical runs, the refusals, and the split model
// of the default choice (host logic: runs everywhere).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bwgemm/sm90/candidate_configs.cuh"
#include "bwgemm/sm90/gemm.cuh"
#include "gemm_contract.hpp"
#include "gemm_small_m_contract.hpp"
#include "split_k_cases.hpp"

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
using LargeRegisterStore = typename sm90::GemmTile128x256<Out>::template WithTmaStore<false>;
// Non-persistent variants: one cluster per tile.
using OneTileCluster = sm90::GemmConfig<256, 4, 2, sched::OneTilePerCluster, epi::LinearCombination, bf16>;
using OneTileSingle = sm90::GemmConfig<64, 8, 1, sched::OneTilePerCluster, epi::LinearCombination, f16>;

// cuBLASLt's tile shape and its pieces (not in the default choice): 256 x 128 tiles (RowBlocks 2) in pairs
// along N sharing A (R2 and AlongN together), the 128 x 256 tile in pairs along N (AlongN alone: the
// ManyTiles and the odd-N-tile case below), the 256-row tile alone with D from registers. The contract's
// problems are in cluster tiles (kClusterBlockM x kBlockN), so with a pair along N they cover an odd number
// of N tiles (N = BlockN - 24, BlockN: the pair's second CTA computes a tile past N, its loads zero-filled
// and stores masked) as well as even ones, and M tails that are not multiples of 256.
// Ping-pong consumers (PingPong: alternate tiles per consumer, one's epilogue under the other's wgmmas):
// 128 x 128 tiles (RowBlocks 2) alone and in pairs along M, 64 x 256 tiles, D from registers; the contract's
// problems give each consumer a different number of tiles (odd tile counts per CTA) and the ManyTiles case
// walks several tiles per consumer.
template <class Out>
using TallRegisterStore = typename sm90::GemmTile256x128<Out>::template WithTmaStore<false>;
template <class Out>
using PingPongRegisterStore = typename sm90::GemmPingPong128x128<Out>::template WithTmaStore<false>;
// The 128 x 160 tile: B K x N as three 64-column chunks (the third's last 32 columns loaded, never read), D
// in 64-byte boxes (16-bit outputs) or 128-byte ones (fp32), and from registers.
template <class Out>
using Medium160RegisterStore = typename sm90::GemmTile128x160<Out>::template WithTmaStore<false>;
// The 160-column tile with two row blocks per consumer (160 accumulators per thread): 256 x 160 cooperative
// tiles and 128 x 160 ping-pong tiles, each with D through 64-byte boxes (16-bit), 128-byte ones (fp32) and
// from registers.
template <class Out>
using Tall160RegisterStore = typename sm90::GemmTile256x160<Out>::template WithTmaStore<false>;
using Sm90GemmConfigs =
    Configs<sm90::GemmTile128x256Cluster2<bf16>, sm90::GemmTile128x256<f16>, sm90::GemmTile128x192<bf16>,
            sm90::GemmTile128x160<bf16>, sm90::GemmTile128x128<f16>, LargeRegisterStore<bf16>, OneTileCluster,
            OneTileSingle, sm90::GemmTile256x128Cluster2N<f16>, TallRegisterStore<f16>,
            sm90::GemmPingPong128x128<bf16>, sm90::GemmPingPong128x128Cluster2<f16>,
            sm90::GemmPingPong64x256<bf16>, PingPongRegisterStore<f16>, sm90::GemmTile256x160<bf16>,
            sm90::GemmPingPong128x160<f16>>;
// Every output type for the new tile shapes (f16 above): bf16 and fp32, and fp32 with D from registers.
using Sm90GemmOutputVariants =
    Configs<sm90::GemmTile128x256Cluster2<float>, sm90::GemmTile128x192<float>, sm90::GemmTile128x160<float>,
            sm90::GemmTile128x160<f16>, Medium160RegisterStore<f16>, sm90::GemmTile128x128<float>,
            sm90::GemmTile128x256<bf16>, sm90::GemmTile128x128<bf16>, LargeRegisterStore<float>,
            sm90::GemmTile256x128Cluster2N<float>, sm90::GemmPingPong128x128Cluster2<bf16>,
            sm90::GemmPingPong128x128<float>, PingPongRegisterStore<float>, sm90::GemmTile256x160<float>,
            Tall160RegisterStore<f16>, sm90::GemmPingPong128x160<bf16>>;
using Sm90GemmDefaults = Configs<sm90::GemmTile128x256Cluster2<bf16>, sm90::GemmTile128x256<bf16>,
                                 sm90::GemmTile128x192<bf16>, sm90::GemmTile128x128<bf16>>;
// More tiles than resident clusters: the default kernels and the tile shapes above.
using Sm90GemmManyTiles =
    Configs<sm90::GemmTile128x256Cluster2<bf16>, sm90::GemmTile128x256<bf16>, sm90::GemmTile128x192<bf16>,
            sm90::GemmTile128x160<bf16>, sm90::GemmTile128x128<bf16>, sm90::GemmTile256x128Cluster2N<bf16>,
            sm90::GemmTile128x256Cluster2N<bf16>, sm90::GemmPingPong128x128<bf16>,
            sm90::GemmPingPong128x128Cluster2<bf16>, sm90::GemmPingPong64x256<bf16>,
            sm90::GemmTile256x160<bf16>, sm90::GemmPingPong128x160<bf16>>;

// The explicit-Config entry point with K split over clusters of Split CTAs (split_for: as many as the
// problem's K blocks allow, so the contract's short-K problems run at a smaller split).
template <int Split>
struct Sm90Split {
  template <class Cfg>
  struct Gemm {
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return sm90::Gemm<Cfg>::can_implement(a, split_for(Split, a.k));
    }
    template <class Args>
    static bwgemm::Status run(const Args& a, cudaStream_t stream = nullptr) {
      return sm90::Gemm<Cfg>::run(a, stream, split_for(Split, a.k));
    }
  };
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return sm90::gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm90(why); }
  static constexpr const char* kNeeds = Sm90::kNeeds;
  static constexpr int kSplit = Split;
};
using Split2 = Sm90Split<2>;
using Split4 = Sm90Split<4>;
using Split8 = Sm90Split<8>;
using SplitConfigs = Configs<sm90::GemmTile128x128<bf16>, sm90::GemmTile128x192<f16>,
                             sm90::GemmTile128x160<bf16>, sm90::GemmTile128x256<bf16>>;
using Sm90SplitCases = Concat<CasesOf<Split2, SplitConfigs>::type, CasesOf<Split4, SplitConfigs>::type,
                              CasesOf<Split8, Configs<sm90::GemmTile128x256<f16>>>::type>::type;
// Every output type at split 4.
using Sm90SplitOutputCases = CasesOf<Split4, Configs<sm90::GemmTile128x128<f16>, sm90::GemmTile128x192<bf16>,
                                                     sm90::GemmTile128x256<float>>>::type;
// Decode token counts (one partial 128-row tile) at split 4.
using Sm90SplitSmallMCases = CasesOf<Split4, Configs<sm90::GemmTile128x256<bf16>>>::type;

// Test names carry the split: "N256_S4_G1_StaticPersistent_bf16_Split4".
struct SplitNames {
  template <class C>
  static std::string GetName(int) {
    return ConfigName<typename C::Cfg>::get() + "_Split" + std::to_string(C::Backend::kSplit);
  }
};

// A stream-K Config's explicit entry point on `ctas` CTAs (0: one per resident CTA) with the workspace it
// asks for (Gemm::workspace_bytes, from reused_workspace; none where it asks for 0 bytes).
template <class Cfg, class Args>
bwgemm::Status run_stream_k(const Args& a, int64_t ctas, cudaStream_t stream = nullptr) {
  int64_t bytes = 0;
  if (bwgemm::Status s = sm90::Gemm<Cfg>::workspace_bytes(a, &bytes, nullptr, ctas); !s.ok()) return s;
  Args with = a;
  if (bytes > 0) with.workspace = reused_workspace(bytes), with.workspace_bytes = bytes;
  return sm90::Gemm<Cfg>::run(with, stream, 1, ctas);
}

// The contract's backend for the stream-K Configs: run_stream_k on Ctas CTAs (the contract's problems are
// short in K, so they run whole waves only: a split needs 2 x kStreamKMinKBlocksPerCta K blocks; the
// Sm90GemmStreamK tests below split); the default entry point with the workspace it asks for
// (gemm_workspace_bytes).
template <int Ctas>
struct Sm90StreamK {
  template <class Cfg>
  struct Gemm {
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return sm90::Gemm<Cfg>::can_implement(a);
    }
    template <class Args>
    static bwgemm::Status run(const Args& a, cudaStream_t stream = nullptr) {
      return run_stream_k<Cfg>(a, Ctas, stream);
    }
  };
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return sm90_gemm_with_workspace(args);
  }
  static bool available(std::string* why) { return can_run_sm90(why); }
  static constexpr const char* kNeeds = Sm90::kNeeds;
  static constexpr int kCtas = Ctas;
};
using StreamKConfigs = Configs<sm90::GemmStreamK128x256<bf16>, sm90::GemmStreamK128x128<f16>>;
using Sm90StreamKCases = Concat<CasesOf<Sm90StreamK<5>, StreamKConfigs>::type,
                                CasesOf<Sm90StreamK<0>, Configs<sm90::GemmStreamK128x256<f16>>>::type>::type;
using Sm90StreamKOutputCases =
    CasesOf<Sm90StreamK<3>, Configs<sm90::GemmStreamK128x256<float>, sm90::GemmStreamK128x128<bf16>>>::type;
using Sm90StreamKManyTilesCases = CasesOf<Sm90StreamK<0>, Configs<sm90::GemmStreamK128x256<bf16>>>::type;
// Test names carry the CTA count: "N256_S4_G1_StreamK_bf16_Ctas5".
struct StreamKNames {
  template <class C>
  static std::string GetName(int) {
    return ConfigName<typename C::Cfg>::get() + "_Ctas" + std::to_string(C::Backend::kCtas);
  }
};

using Sm90GemmCases = CasesOf<Sm90, Sm90GemmConfigs>::type;
using Sm90GemmOutputCases = CasesOf<Sm90, Sm90GemmOutputVariants>::type;
using Sm90GemmManyTilesCases = CasesOf<Sm90, Sm90GemmManyTiles>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm90, GemmContract, Sm90GemmCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90, GemmOutputContract, Sm90GemmOutputCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90, GemmManyTilesContract, Sm90GemmManyTilesCases, ConfigNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SplitK, GemmContract, Sm90SplitCases, SplitNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SplitK, GemmOutputContract, Sm90SplitOutputCases, SplitNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SplitK, GemmSmallMContract, Sm90SplitSmallMCases, SplitNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90StreamK, GemmContract, Sm90StreamKCases, StreamKNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90StreamK, GemmOutputContract, Sm90StreamKOutputCases, StreamKNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90StreamK, GemmManyTilesContract, Sm90StreamKManyTilesCases, StreamKNames);

namespace {

TEST(Sm90GemmExtending, UserEpilogueFunctor) {
  BWGEMM_REQUIRE_SM90();
  check_user_epilogue<Sm90, sm90::GemmTile128x128<f16>>();
}

// The default entry point on problems that select each of its tiled kernels (Sm90GemmChoice in
// test_choice_sm90.cpp works them out): GemmTile128x128 (1024 x 2048), GemmPingPong128x160 (4096 x 5120 with
// B N x K), GemmPingPong128x128 (the same with B K x N, and 2560 x 3072), GemmTile128x160 (1536 x 3072: 12 x
// 20 = 240 tiles of 128 x 160, 2 waves), GemmTile128x192 (1024 x 6144) and GemmTile128x256 (1024 x 4096).
TEST(Sm90GemmDefault, EachKernelOfTheChoice) {
  BWGEMM_REQUIRE_SM90();
  using bwgemm::BLayout;
  constexpr sm90::DeviceFacts kH200 = sm90::h200_device_facts();
  EXPECT_EQ(sm90::gemm_choice(1536, 3072, 1, BLayout::kColumnMajorKxN, kH200),
            sm90::GemmChoice::kTile128x160);
  EXPECT_EQ(sm90::gemm_choice(4096, 5120, 1, BLayout::kColumnMajorKxN, kH200),
            sm90::GemmChoice::kPingPong128x160);
  EXPECT_EQ(sm90::gemm_choice(4096, 5120, 1, BLayout::kRowMajorKxN, kH200),
            sm90::GemmChoice::kPingPong128x128);
  EXPECT_EQ(sm90::gemm_choice(2560, 3072, 1, BLayout::kColumnMajorKxN, kH200),
            sm90::GemmChoice::kPingPong128x128);
  check_default_entry<Sm90, bf16, bf16>(
      {GemmProblem{1024, 2048, 64}, GemmProblem{4096, 5120, 64, 1, BLayout::kColumnMajorKxN},
       GemmProblem{4096, 5120, 64, 1, BLayout::kRowMajorKxN}, GemmProblem{2560, 3072, 64},
       GemmProblem{1536, 3072, 64, 1, BLayout::kColumnMajorKxN},
       GemmProblem{1536, 3072, 64, 1, BLayout::kRowMajorKxN}, GemmProblem{1024, 6144, 64},
       GemmProblem{1024, 4096, 64}});
}

TEST(Sm90GemmDefault, RealisticShapes) {
  BWGEMM_REQUIRE_SM90();
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
    check_gemm<Sm90, sm90::GemmTile128x256Cluster2<bf16>, bf16>(GemmProblem{1024, 2048, 1024, 1, layout},
                                                                Data::kRealistic, 11);
    check_gemm<Sm90, sm90::GemmTile128x128<f16>, f16>(GemmProblem{1000, 1048, 1000, 1, layout, 0.75f, 0.5f},
                                                      Data::kRealistic, 12);
    check_gemm<Sm90, sm90::GemmTile128x128<float>, f16>(GemmProblem{264, 520, 2056, 1, layout},
                                                        Data::kRealistic, 13);
  }
}

// The contract's problems are short in K (at most 4 K blocks, so a split of 8 never runs there): these take
// 22 K blocks (K = 1352: a K tail, uneven ranges at splits 4 and 8) with tails in M and N, a batch with
// strides, padding and beta, both tiers and both B layouts, on each one-CTA Config of the default choice at
// splits 2, 4 and 8.
template <class Cfg>
void check_long_k_splits() {
  using bwgemm::BLayout;
  for (int split : {2, 4, 8}) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    const auto run = [split](const auto& args) { return sm90::Gemm<Cfg>::run(args, nullptr, split); };
    const uint32_t seed = 800 + 10 * static_cast<uint32_t>(split);
    check_gemm_with<Cfg, f16>(GemmProblem{200, 2 * Cfg::kBlockN + 24, 1352, 1, BLayout::kRowMajorKxN, 0.5f},
                              Data::kExact, seed, run);
    check_gemm_with<Cfg, bf16>(GemmProblem{136, Cfg::kBlockN + 8, 1352, 2, BLayout::kColumnMajorKxN, 1.5f,
                                           -0.5f, /*pad=*/8, /*batch_gap=*/16},
                               Data::kRealistic, seed + 1, run);
    check_gemm_with<Cfg, f16>(GemmProblem{72, 136, 1352, 3, BLayout::kColumnMajorKxN, 1.0f, 0.75f, 8, 16},
                              Data::kExact, seed + 2, run);
    check_gemm_with<Cfg, bf16>(GemmProblem{300, 264, 1352, 1, BLayout::kRowMajorKxN}, Data::kRealistic,
                               seed + 3, run);
  }
}

TEST(Sm90GemmSplitK, LongKTailsBatchAndBeta) {
  BWGEMM_REQUIRE_SM90();
  check_long_k_splits<sm90::GemmTile128x128<bf16>>();
  check_long_k_splits<sm90::GemmTile128x192<f16>>();
  check_long_k_splits<sm90::GemmTile128x160<bf16>>();
  check_long_k_splits<sm90::GemmTile128x256<float>>();
}

// Split K gives the same bits on every run: realistic data (sums that round), 3 calls per split, each
// compared byte for byte with the first (and the first checked against the reference). 2 x 8 tiles of
// 128 x 256, 64 K blocks: every rank of a split of 8 takes 8.
TEST(Sm90GemmSplitK, BitwiseDeterministic) {
  BWGEMM_REQUIRE_SM90();
  expect_bitwise_identical_runs(GemmProblem{256, 2048, 4096, 1, bwgemm::BLayout::kColumnMajorKxN}, 710,
                                {4, 8}, 3, [](const auto& args, int split) {
                                  return sm90::Gemm<sm90::GemmTile128x256<bf16>>::run(args, nullptr, split);
                                });
}

// The default entry point on the shape the split is for (M = 256, N = 4096: 32 tiles of 128 x 256 for 132
// SMs), whatever split the device's resident clusters make it choose.
TEST(Sm90GemmSplitK, DefaultEntryPointOnFewTiles) {
  BWGEMM_REQUIRE_SM90();
  check_default_entry<Sm90, bf16, bf16>({GemmProblem{256, 4096, 4096}});
}

// A split the call cannot take is refused before anything is launched (host logic: the checks come before
// any device access, so this runs without a GPU; the operands are host memory that must stay untouched).
TEST(Sm90GemmSplitK, RefusesBadSplits) {
  alignas(16) static uint8_t buf[2 * 128 * 256 * 2 + 128 * 128 * 2];
  bwgemm::GemmArguments<bf16> args;
  args.m = 128, args.n = 128, args.k = 256;  // 4 K blocks
  args.a = reinterpret_cast<const bf16*>(buf);
  args.b = reinterpret_cast<const bf16*>(buf + 128 * 256 * 2);
  args.d = reinterpret_cast<bf16*>(buf + 2 * 128 * 256 * 2);
  using Op = sm90::Gemm<sm90::GemmTile128x256<bf16>>;
  EXPECT_TRUE(Op::can_implement(args, 4).ok());
  EXPECT_TRUE(Op::can_implement(args, 0).ok());
  expect_refused(Op::run(args, nullptr, 3), "split_k must be 0 (chosen from the shape), 1, 2, 4 or 8");
  expect_refused(Op::run(args, nullptr, 16), "split_k must be 0");
  expect_refused(Op::run(args, nullptr, -1), "split_k must be 0");
  expect_refused(Op::run(args, nullptr, 8), "must not exceed the K blocks of 64 (4)");
  expect_refused(sm90::Gemm<sm90::GemmTile128x128<bf16>>::run(args, nullptr, 8),
                 "must not exceed the K blocks");
  // The CTA-pair Config shares B over its cluster: no split.
  expect_refused(sm90::Gemm<sm90::GemmTile128x256Cluster2<bf16>>::run(args, nullptr, 2),
                 "needs a Config with ClusterCtas = 1");
  expect_refused(sm90::Gemm<sm90::GemmTile128x256Cluster2<bf16>>::run(args, nullptr, 8),
                 "needs a Config with ClusterCtas = 1");
  // ... for which a chosen split (0) is 1.
  EXPECT_TRUE(sm90::Gemm<sm90::GemmTile128x256Cluster2<bf16>>::can_implement(args, 0).ok());
  // A one-CTA Config whose 128 x 256 fp32 partials (128 KiB) do not fit over its 2 stages (96 KiB) still
  // builds and runs unsplit, but refuses a split (and chooses none).
  using TwoStages =
      sm90::GemmConfig<256, 2, 1, bwgemm::sched::StaticPersistent, bwgemm::epi::LinearCombination, bf16>;
  static_assert(!TwoStages::kSplitK && sm90::GemmTile128x256<bf16>::kSplitK, "");
  expect_refused(sm90::Gemm<TwoStages>::run(args, nullptr, 2), "partials fit over its stages");
  EXPECT_TRUE(sm90::Gemm<TwoStages>::can_implement(args, 0).ok());
  expect_refused(sm90::gemm_tiled_split(args, nullptr, 0), "split_k must be 1, 2, 4 or 8");
  // The 256-row tiles (RowBlocks 2) take no split (kSplitK false), and choose none.
  static_assert(!sm90::GemmTile256x128<bf16>::kSplitK, "");
  expect_refused(sm90::Gemm<sm90::GemmTile256x128<bf16>>::run(args, nullptr, 2),
                 "needs a Config with RowBlocks = 1");
  EXPECT_TRUE(sm90::Gemm<sm90::GemmTile256x128<bf16>>::can_implement(args, 0).ok());
  expect_refused(sm90::Gemm<sm90::GemmTile128x256Cluster2N<bf16>>::run(args, nullptr, 2),
                 "needs a Config with ClusterCtas = 1");
  // Ping-pong consumers take separate tiles: no split (the 64 x 256 one has RowBlocks 1 and one CTA).
  static_assert(!sm90::GemmPingPong64x256<bf16>::kSplitK, "");
  expect_refused(sm90::Gemm<sm90::GemmPingPong64x256<bf16>>::run(args, nullptr, 4), "without PingPong");
  EXPECT_TRUE(sm90::Gemm<sm90::GemmPingPong64x256<bf16>>::can_implement(args, 0).ok());
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

// Pairs along N over an odd number of N tiles, several cluster tiles per CTA: N = 3 tiles of 128 - 40
// (2 pairs, the second pair's second CTA entirely past N: its B loads zero-filled, its stores masked, its A
// share still multicast to its peer), M = 600 (3 row tiles of 256, the last partial), K = 200 (a 8-element
// last K block), a batch of 2 with padding, gaps and beta; both B layouts, both store paths, exact tier; and
// the 128 x 256 pair (N = 5 tiles of 256 - 8: 3 pairs, the last one half past N).
TEST(Sm90GemmTileShape, PairAlongNOverOddNTiles) {
  BWGEMM_REQUIRE_SM90();
  for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
    const GemmProblem pb{600, 3 * 128 - 40, 200, 2, layout, 1.0f, -0.5f, /*pad=*/8, /*batch_gap=*/16};
    check_gemm<Sm90, sm90::GemmTile256x128Cluster2N<bf16>, bf16>(pb, Data::kExact, 81);
    check_gemm<Sm90, sm90::GemmTile256x128Cluster2N<f16>::WithTmaStore<false>, f16>(pb, Data::kExact, 82);
    check_gemm<Sm90, sm90::GemmTile128x256Cluster2N<bf16>, f16>(
        GemmProblem{300, 5 * 256 - 8, 136, 1, layout, 1.0f, 1.0f}, Data::kExact, 83);
  }
}

// The ping-pong tile shapes (host logic): one consumer's rows per tile, every consumer's rows start at the
// tile's first, one arrival (per CTA of the cluster) frees a stage, the stages and buffers fit.
TEST(Sm90GemmTileShape, PingPong) {
  using PP = sm90::GemmPingPong128x128<bf16>;
  using PP2 = sm90::GemmPingPong128x128Cluster2<bf16>;
  using PPWide = sm90::GemmPingPong64x256<f16>;
  static_assert(PP::kPingPong && PP::kBlockM == 128 && PP::kWarpgroupM == 128 && PP::kAccRegsTotal == 128,
                "");
  static_assert(PP::consumer_row0(0) == 0 && PP::consumer_row0(1) == 0, "each consumer owns the whole tile");
  static_assert(sm90::GemmTile128x256<bf16>::consumer_row0(1) == 64,
                "the cooperative consumers split the rows");
  static_assert(PP::kEmptyArrivals == 1 && PP2::kEmptyArrivals == 2 && PP2::kClusterBlockM == 256, "");
  static_assert(PP::kStageBytes == (128 + 128) * 128 && PP::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes,
                "");
  static_assert(PP::EpiBuffers::kRounds == 1, "one round of TMA stores per 64-row slice");
  static_assert(PPWide::kBlockM == 64 && PPWide::kARowsPerCta == 64 && PPWide::kAccRegsTotal == 128, "");
  static_assert(PPWide::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes && !PPWide::kSplitK, "");
  static_assert(std::is_same_v<PP::WithOut<float>::WithOut<bf16>, PP> &&
                    std::is_same_v<PP::WithTmaStore<false>::WithTmaStore<true>, PP>,
                "the aliases carry PingPong");
  EXPECT_EQ(bwgemm::detail::config_tile_grid<PP>(1000, 1000, 1).tiles_m, 8);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<PPWide>(1000, 1000, 1).tiles_m, 16);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<PP2>(1000, 1000, 1).tiles_m, 4);
}

// Ping-pong over a long K and several tiles per CTA: each consumer skips the other's tiles, more K blocks
// (kStages + 4) than the ring has stages, so a consumer's first wait on its next tile lies passes ahead of
// the stage's barrier unless the mainloops take turns (the first ping-pong kernel without them passed the
// contract's short-K problems and failed on the benchmark's). 3 x 91 cluster tiles (on 132 SMs every CTA
// walks 2 or 3 tiles, on 66 pairs 4 or 5: odd and even walks), M, N and K tails.
template <class Cfg, class In>
void check_ping_pong_long_k(bwgemm::BLayout layout, uint32_t seed) {
  const GemmProblem pb{3 * Cfg::kClusterBlockM - 40, 91 * Cfg::kBlockN - 24, (Cfg::kStages + 3) * 64 + 24, 1,
                       layout};
  check_gemm<Sm90, Cfg, In>(pb, Data::kExact, seed);
}
TEST(Sm90GemmTileShape, PingPongLongKOverSeveralTiles) {
  BWGEMM_REQUIRE_SM90();
  check_ping_pong_long_k<sm90::GemmPingPong128x128<bf16>, bf16>(bwgemm::BLayout::kRowMajorKxN, 91);
  check_ping_pong_long_k<sm90::GemmPingPong128x128Cluster2<bf16>, f16>(bwgemm::BLayout::kColumnMajorKxN, 92);
  check_ping_pong_long_k<sm90::GemmPingPong64x256<bf16>, bf16>(bwgemm::BLayout::kColumnMajorKxN, 93);
  check_ping_pong_long_k<sm90::GemmPingPong128x160<bf16>, bf16>(bwgemm::BLayout::kRowMajorKxN, 94);
  check_ping_pong_long_k<sm90::GemmPingPong128x160<f16>, f16>(bwgemm::BLayout::kColumnMajorKxN, 95);
}

// The 128 x 160 tile (host logic): B's stage bytes per layout (K-major 160 rows; MN-major three 64-column
// chunks, the stage holding the larger), what each layout's producer waits for, the D boxes (64-byte rows,
// 64-byte swizzle for 16-bit outputs; 128-byte for fp32), and that the other tiles keep theirs.
TEST(Sm90GemmTileShape, Medium160) {
  using C = sm90::GemmTile128x160<bf16>;
  static_assert(C::kBlockM == 128 && C::kBlockN == 160 && C::kAccRegs == 80 && C::kSplitK, "");
  static_assert(C::kBMnChunks == 3 && C::kBKMajorBytes == 160 * 128 && C::kBMnMajorBytes == 3 * 8192, "");
  static_assert(C::kStageBytes == 128 * 128 + 3 * 8192 && C::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes,
                "");
  static_assert(C::tx_bytes<false>() == 128 * 128 + 160 * 128 && C::tx_bytes<true>() == 128 * 128 + 3 * 8192,
                "");
  static_assert(C::EpiBuffers::kSwizzleBytes == 64 && C::EpiBuffers::kBoxColumns == 32 &&
                    C::EpiBuffers::kBoxes == 5 && C::EpiBuffers::kBoxBytes == 4096 &&
                    C::EpiBuffers::kRounds == 1,
                "4 stages leave room for the whole 64 x 160 slice: one round");
  using F = sm90::GemmTile128x160<float>;
  static_assert(F::EpiBuffers::kSwizzleBytes == 128 && F::EpiBuffers::kBoxColumns == 32 &&
                    F::EpiBuffers::kBoxes == 5 && F::EpiBuffers::kBoxBytes == 8192,
                "");
  using M = sm90::GemmTile128x192<bf16>;
  static_assert(M::EpiBuffers::kSwizzleBytes == 128 && M::EpiBuffers::kBoxColumns == 64 &&
                    M::EpiBuffers::kBoxes == 3 && M::kBBytes == 192 * 128 &&
                    M::tx_bytes<true>() == M::kStageBytes && M::tx_bytes<false>() == M::kStageBytes,
                "");
}

// The 160-column tiles with two row blocks per consumer (host logic): 160 accumulators per thread (the
// register budget's most), the stage bytes (A 256 or 128 rows, B as in the 128 x 160 tile), D in one round
// per 64-row slice for 16-bit outputs, and no split of K.
TEST(Sm90GemmTileShape, TwoRowBlocksOf160) {
  using T = sm90::GemmTile256x160<bf16>;
  static_assert(T::kBlockM == 256 && T::kWarpgroupM == 128 && T::kAccRegsTotal == 160 &&
                    T::kAccRegsTotal == T::kMaxAccRegs && !T::kSplitK && !T::kPingPong,
                "");
  static_assert(T::kStageBytes == 256 * 128 + 3 * 8192 && T::kStages == 3 &&
                    T::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes,
                "");
  static_assert(T::tx_bytes<false>() == 256 * 128 + 160 * 128 && T::tx_bytes<true>() == T::kStageBytes, "");
  static_assert(T::EpiBuffers::kBoxColumns == 32 && T::EpiBuffers::kRounds == 1, "");
  static_assert(sm90::GemmTile256x160<float>::EpiBuffers::kBoxBytes == 8192 &&
                    sm90::GemmTile256x160<float>::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes,
                "");
  using P = sm90::GemmPingPong128x160<bf16>;
  static_assert(
      P::kBlockM == 128 && P::kPingPong && P::kAccRegsTotal == 160 && P::kEmptyArrivals == 1 && !P::kSplitK,
      "");
  static_assert(P::kStageBytes == 128 * 128 + 3 * 8192 && P::EpiBuffers::kRounds == 1 &&
                    P::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes,
                "");
  EXPECT_EQ(bwgemm::detail::config_tile_grid<T>(1024, 5120, 1).total(), 4 * 32);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<T>(1000, 5000, 1).total(), 4 * 32);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<P>(1000, 5000, 1).total(), 8 * 32);
}

// The tile shapes of RowBlocks and ClusterAlongN (host logic): tile sizes, per-CTA operand shares, stage
// bytes, the cluster-tile grid (odd N tile counts round up to whole pairs), and that the aliases keep them.
TEST(Sm90GemmTileShape, RowBlocksAndClusterAlongN) {
  using Tall = sm90::GemmTile256x128<bf16>;
  using TallN = sm90::GemmTile256x128Cluster2N<bf16>;
  using WideN = sm90::GemmTile128x256Cluster2N<bf16>;
  static_assert(Tall::kBlockM == 256 && Tall::kWarpgroupM == 128 && Tall::kAccRegsTotal == 128, "");
  static_assert(Tall::kClusterBlockM == 256 && Tall::kClusterBlockN == 128 && Tall::kARowsPerCta == 256, "");
  static_assert(
      Tall::kStageBytes == (256 + 128) * 128 && Tall::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes, "");
  static_assert(TallN::kClusterAlongN && TallN::kClusterBlockM == 256 && TallN::kClusterBlockN == 256, "");
  static_assert(TallN::kARowsPerCta == 128 && TallN::kASliceBytes == 128 * 128, "each CTA loads half of A");
  static_assert(TallN::kBKMajorRowsPerCta == 128 && TallN::kBMnChunksPerCta == 2, "B is per CTA");
  static_assert(TallN::kEmptyArrivals == 4 && TallN::tx_bytes<false>() == TallN::kStageBytes &&
                    TallN::tx_bytes<true>() == TallN::kStageBytes,
                "");
  static_assert(WideN::kBlockM == 128 && WideN::kClusterBlockN == 512 && WideN::kARowsPerCta == 64, "");
  static_assert(!sm90::GemmTile128x256Cluster2<bf16>::kClusterAlongN &&
                    sm90::GemmTile128x256Cluster2<bf16>::kClusterBlockM == 256 &&
                    sm90::GemmTile128x256Cluster2<bf16>::kARowsPerCta == 128 &&
                    sm90::GemmTile128x256Cluster2<bf16>::kBKMajorRowsPerCta == 128,
                "the default pair is unchanged: along M, sharing B");
  static_assert(std::is_same_v<TallN::WithOut<float>::WithOut<bf16>, TallN> &&
                    std::is_same_v<TallN::WithTmaStore<false>::WithTmaStore<true>, TallN> &&
                    std::is_same_v<TallN::WithEpilogue<epi::LinearCombination>, TallN>,
                "the aliases carry RowBlocks and ClusterAlongN");
  // 1000 x 1000: 4 row tiles of 256, 8 column tiles of 128 (the last partial) = 4 pairs; 1000 x 800: 7
  // column tiles = 4 pairs, the last pair's second CTA past N.
  const sched::TileGrid g = bwgemm::detail::config_tile_grid<TallN>(1000, 1000, 3);
  EXPECT_EQ(g.tiles_m, 4);
  EXPECT_EQ(g.tiles_n, 4);
  EXPECT_EQ(g.batch, 3);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<TallN>(1000, 800, 1).tiles_n, 4);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<Tall>(1000, 800, 1).tiles_n, 7);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<Tall>(257, 800, 1).tiles_m, 2);
  EXPECT_EQ(bwgemm::detail::config_tile_grid<WideN>(128, 768, 1).tiles_n, 2);  // 3 tiles of 256
  EXPECT_EQ(bwgemm::detail::config_tile_grid<sm90::GemmTile128x256Cluster2<bf16>>(1000, 1000, 1).tiles_m, 4);
}

// The split-K partial layout (host logic: runs without a GPU): thread t's register i sits at word
// ((i / 2)·256 + t)·2 + i % 2 (write_partials, Group 2), and quad q of the reduction (words 4q..4q+3) must be
// the row and 4 adjacent columns partial_quad_coord says, by the wgmma fragment of ptx/wgmma.cuh (consumer
// t / 128, warp w, lane l: acc[4j + 2h + e] is row 64·consumer + 16w + l/4 + 8h, column 8j + 2(l%4) + e);
// the quads of any split cover the tile once.
template <class Cfg>
void check_partial_layout() {
  constexpr int kThreads = Cfg::kConsumerThreads, kRegs = Cfg::kAccRegs;
  std::vector<std::pair<int, int>> at_word(static_cast<size_t>(kRegs) * kThreads);
  for (int t = 0; t < kThreads; ++t) {
    const int consumer = t / 128, w = (t % 128) / 32, l = t % 32;
    for (int i = 0; i < kRegs; ++i) {
      const int j = i / 4, h = (i / 2) % 2, e = i % 2;
      at_word[static_cast<size_t>(((i / 2) * kThreads + t) * 2 + i % 2)] = {
          64 * consumer + 16 * w + l / 4 + 8 * h, 8 * j + 2 * (l % 4) + e};
    }
  }
  for (int q = 0; q < Cfg::kPartialQuads; ++q) {
    const typename Cfg::QuadCoord c = Cfg::partial_quad_coord(q);
    for (int k = 0; k < 4; ++k) {
      ASSERT_EQ(at_word[static_cast<size_t>(4 * q + k)].first, c.row) << "quad " << q << " word " << k;
      ASSERT_EQ(at_word[static_cast<size_t>(4 * q + k)].second, c.col + k) << "quad " << q << " word " << k;
    }
  }
  for (int split : {1, 2, 4, 8}) {
    std::vector<int> hits(static_cast<size_t>(Cfg::kBlockM) * Cfg::kBlockN, 0);
    const int per_rank = Cfg::kPartialQuads / split;
    for (int rank = 0; rank < split; ++rank)
      for (int q = rank * per_rank; q < (rank + 1) * per_rank; ++q)
        for (int k = 0; k < 4; ++k) {
          const typename Cfg::QuadCoord c = Cfg::partial_quad_coord(q);
          ++hits[static_cast<size_t>(c.row * Cfg::kBlockN + c.col + k)];
        }
    for (int h : hits) ASSERT_EQ(h, 1) << "split " << split;
  }
}

TEST(Sm90GemmSplitK, PartialLayoutCoversTheTile) {
  check_partial_layout<sm90::GemmTile128x128<bf16>>();
  check_partial_layout<sm90::GemmTile128x192<bf16>>();
  check_partial_layout<sm90::GemmTile128x160<bf16>>();
  check_partial_layout<sm90::GemmTile128x256<bf16>>();
}

// What the persistent grid is sized from: how many clusters of each big-tile kernel fit on the device at once
// (printed for docs/performance.md; the multicast variant's grid is 2x this).
TEST(Sm90GemmDiagnostics, ResidentClusters) {
  BWGEMM_REQUIRE_SM90();
  int64_t one_cta = 0, pairs = 0;
  using One = sm90::GemmTile128x256<bf16>;
  using Two = sm90::GemmTile128x256Cluster2<bf16>;
  ASSERT_TRUE(bwgemm::host::resident_clusters(&sm90::gemm_kernel<One, bf16, true>, One::kThreads, 1,
                                              One::kSmemBytes, &one_cta)
                  .ok());
  ASSERT_TRUE(bwgemm::host::resident_clusters(&sm90::gemm_kernel<Two, bf16, true>, Two::kThreads, 2,
                                              Two::kSmemBytes, &pairs)
                  .ok());
  std::printf(
      "resident clusters: GemmTile128x256 %lld (1 CTA each), GemmTile128x256Cluster2 %lld (2 CTAs each)\n",
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

// ---- stream-K (sched::StreamK: GemmStreamK128x256, GemmStreamK128x128)
// ------------------------------------------

// The decomposition (host logic), walked exactly as the kernel walks it (sched::StreamK::plan, grid,
// sk_range, first_unit, next_unit, unit_segment, head_tail_owners) over many tile counts, K blocks per tile
// and CTA counts: every tile's K blocks are covered once and in order; the whole waves give tile t to CTA
// t % ctas in one segment; with a split part the whole waves are whole (every CTA as many tiles), each split
// tile's K ranges are equal to within one block, at least the floor's 8 long, on consecutive CTAs of one
// range each, and head_tail_owners names exactly the CTAs of the head's tile's other ranges, in K order.
TEST(Sm90GemmStreamK, SegmentsCoverEachTileOnce) {
  using SK = sched::StreamK;
  for (int32_t k_blocks : {1, 2, 3, 7, 16, 22, 80})
    for (int32_t tiles : {1, 2, 5, 18, 131, 133, 160, 300})
      for (int32_t ctas : {1, 2, 3, 7, 13, 64, 131, 132}) {
        const SK::Work w = SK::plan(tiles, k_blocks, ctas, 8);
        SCOPED_TRACE(std::to_string(tiles) + " tiles x " + std::to_string(k_blocks) + " K blocks on " +
                     std::to_string(ctas) + " CTAs");
        if (w.sk_ctas > 0) {
          ASSERT_EQ(w.dp_tiles % ctas, 0);
          ASSERT_EQ(w.sk_tiles, tiles - w.dp_tiles);
          ASSERT_GE(w.sk_splits, 2);
          ASSERT_EQ(w.sk_ctas, w.sk_tiles * w.sk_splits);
          ASSERT_LE(w.sk_ctas, ctas);
          ASSERT_GE(k_blocks / w.sk_splits, 8);
          // As many ways as the idle CTAs allow (or the floor): one more would not fit.
          EXPECT_TRUE((w.sk_splits + 1) * w.sk_tiles > ctas || k_blocks / (w.sk_splits + 1) < 8);
        } else {
          ASSERT_EQ(w.dp_tiles, tiles);
        }
        const int32_t grid = SK::grid(w);
        ASSERT_LE(grid, ctas);
        std::vector<int32_t> next_k(static_cast<size_t>(tiles), 0);  // per tile: the next K block expected
        std::vector<int32_t> holder(static_cast<size_t>(tiles) * k_blocks, -1);
        std::vector<SK::Segment> split_segment(static_cast<size_t>(grid), SK::Segment{-1, 0, 0});
        for (int32_t cta = 0; cta < grid; ++cta) {
          const SK::Range sk = SK::sk_range(w, cta);
          int32_t whole = 0, split = 0;
          for (int32_t unit = SK::first_unit(w, cta, sk); unit != sched::kNoTile;
               unit = SK::next_unit(w, sk, unit)) {
            const SK::Segment seg = SK::unit_segment(w, sk, unit);
            ASSERT_EQ(seg.tile * k_blocks + seg.k_begin, unit);
            ASSERT_LT(seg.k_begin, seg.k_end);
            ASSERT_LE(seg.k_end, k_blocks);
            ASSERT_LT(seg.tile, tiles);
            ASSERT_EQ(next_k[static_cast<size_t>(seg.tile)], seg.k_begin) << "K blocks out of order";
            next_k[static_cast<size_t>(seg.tile)] = seg.k_end;
            if (seg.tile < w.dp_tiles) {
              EXPECT_EQ(seg.tile % ctas, cta);
              EXPECT_EQ(seg.k_end - seg.k_begin, k_blocks);
              EXPECT_EQ(split, 0) << "whole waves come first";
              ++whole;
            } else {
              EXPECT_EQ(split, 0) << "a split CTA has one range";
              const int32_t len = seg.k_end - seg.k_begin;
              EXPECT_GE(len, k_blocks / w.sk_splits);
              EXPECT_LE(len, k_blocks / w.sk_splits + 1);
              split_segment[static_cast<size_t>(cta)] = seg;
              ++split;
            }
            for (int32_t k = seg.k_begin; k < seg.k_end; ++k)
              holder[static_cast<size_t>(seg.tile) * k_blocks + k] = cta;
          }
          if (w.sk_ctas > 0) EXPECT_EQ(whole, w.dp_tiles / ctas);
          EXPECT_EQ(split, cta < w.sk_ctas ? 1 : 0);
        }
        for (int32_t t = 0; t < tiles; ++t)
          ASSERT_EQ(next_k[static_cast<size_t>(t)], k_blocks) << "tile " << t;
        for (int32_t t = w.dp_tiles; t < tiles; ++t) {
          const int32_t head = holder[static_cast<size_t>(t) * k_blocks];
          const SK::Segment head_seg = split_segment[static_cast<size_t>(head)];
          ASSERT_EQ(head_seg.k_begin, 0);
          ASSERT_LT(head_seg.k_end, k_blocks);
          const SK::Owners o = SK::head_tail_owners(w, head_seg);
          EXPECT_EQ(o.first, head + 1);
          EXPECT_EQ(o.last, holder[static_cast<size_t>(t) * k_blocks + k_blocks - 1]);
          int32_t k = head_seg.k_end;
          for (int32_t c = o.first; c <= o.last; ++c) {
            const SK::Segment seg = split_segment[static_cast<size_t>(c)];
            EXPECT_EQ(seg.tile, t);
            EXPECT_EQ(seg.k_begin, k) << "CTA " << c << " out of K order";
            k = seg.k_end;
          }
          EXPECT_EQ(k, k_blocks);
        }
      }
}

// The contract's problems are short in K: these take 22 K blocks (K = 1352, a K tail) with tails in M and
// N, a batch with strides, padding and beta, both tiers and both B layouts, every output type. With 128 x
// 256 tiles: 18 tiles run as whole waves only at 1, 2, 3 and 7 CTAs (a last wave of 4 tiles on 7 CTAs
// cannot split 2 ways), 13 whole and 5 split 2 ways at 13 CTAs (22 K blocks take at most 2 ranges of 8),
// all 18 split 2 ways over 36 CTAs at 64, 131 and the device's own; 4 tiles split 2 ways at 3 (one tile)
// and 13 and more CTAs; 4 tiles of 128 K blocks (K = 8192) split 3 ways at 3 and 13 CTAs and 16 ways from
// 64 on (ranges of 8, the middle ones neither a tile's head nor its last).
template <class Cfg, class In>
void check_stream_k_ctas(std::initializer_list<int64_t> cta_counts, uint32_t seed) {
  using bwgemm::BLayout;
  for (int64_t ctas : cta_counts) {
    SCOPED_TRACE("stream_k_ctas " + std::to_string(ctas));
    const auto run = [ctas](const auto& args) { return run_stream_k<Cfg>(args, ctas); };
    check_gemm_with<Cfg, In>(
        GemmProblem{300, 2 * Cfg::kBlockN + 24, 1352, 2, BLayout::kRowMajorKxN, 1.5f, -0.5f,
                    /*pad=*/8, /*batch_gap=*/16},
        Data::kRealistic, seed, run);
    check_gemm_with<Cfg, In>(GemmProblem{136, Cfg::kBlockN + 8, 1352, 1, BLayout::kColumnMajorKxN},
                             Data::kExact, seed + 1, run);
    check_gemm_with<Cfg, In>(GemmProblem{136, Cfg::kBlockN + 8, 8192, 1, BLayout::kRowMajorKxN}, Data::kExact,
                             seed + 2, run);
  }
}
TEST(Sm90GemmStreamK, LongKOverManyCtaCounts) {
  BWGEMM_REQUIRE_SM90();
  check_stream_k_ctas<sm90::GemmStreamK128x256<bf16>, bf16>({1, 2, 3, 7, 13, 64, 131, 0}, 900);
  check_stream_k_ctas<sm90::GemmStreamK128x128<f16>, f16>({2, 7, 64, 0}, 920);
  check_stream_k_ctas<sm90::GemmStreamK128x256<float>, f16>({5, 0}, 940);
  check_stream_k_ctas<sm90::GemmStreamK128x256<f16>::WithTmaStore<false>, bf16>({3, 0}, 960);
}

// Stream-K gives the same bits on every run for a given CTA count: realistic data, 3 calls per count, each
// compared byte for byte with the first (checked against the reference). 4 x 8 tiles of 128 x 256, 40 K
// blocks: fewer tiles than CTAs, so 1280 K blocks of stream-K alone, each tile's over 2-3 CTAs at 50 CTAs,
// 3-4 at 97 and 4-5 at 132.
TEST(Sm90GemmStreamK, BitwiseDeterministic) {
  BWGEMM_REQUIRE_SM90();
  expect_bitwise_identical_runs(
      GemmProblem{512, 2048, 2560, 1, bwgemm::BLayout::kColumnMajorKxN}, 980, {0, 50, 97}, 3,
      [](const auto& args, int ctas) { return run_stream_k<sm90::GemmStreamK128x256<bf16>>(args, ctas); });
}

// The workspace: the flags are zero again after a call (a fresh workspace, checked word for word), the
// partial slots need no clearing (filled with 0xFF, NaN as floats, before the call: D is still right),
// nothing is written outside the workspace (its guard bands), and its size is what workspace_bytes says:
// 384 x 768 x 1024 on 37 CTAs is 9 tiles of 16 K blocks, no whole wave, each split 2 ways (37 / 9 = 4 ways
// by CTAs, 16 / 8 = 2 by the floor) over 18 CTAs, so 256 bytes of flags and 18 partial slots of 128 x 256
// floats.
TEST(Sm90GemmStreamK, WorkspaceFlagsLeftZero) {
  BWGEMM_REQUIRE_SM90();
  using Cfg = sm90::GemmStreamK128x256<bf16>;
  const int64_t ctas = 37;
  const int64_t bytes = sm90::stream_k_workspace_bytes<Cfg>(18);
  EXPECT_EQ(bytes, 256 + 18 * 128 * 256 * 4);
  DeviceBytes workspace(static_cast<size_t>(bytes));
  workspace.fill(0xFF);
  ASSERT_EQ(cudaMemset(workspace.data(), 0, 256), cudaSuccess);  // the flags
  const auto run = [&](const auto& args) {
    int64_t asked = 0;
    if (bwgemm::Status s = sm90::Gemm<Cfg>::workspace_bytes(args, &asked, nullptr, ctas); !s.ok()) return s;
    EXPECT_EQ(asked, bytes);
    auto with = args;
    with.workspace = workspace.data(), with.workspace_bytes = bytes;
    return sm90::Gemm<Cfg>::run(with, nullptr, 1, ctas);
  };
  check_gemm_with<Cfg, bf16>(GemmProblem{384, 768, 1024, 1, bwgemm::BLayout::kRowMajorKxN}, Data::kExact, 990,
                             run);
  const std::vector<uint8_t> after = workspace.download_checked();
  for (int64_t i = 0; i < 256; ++i)
    ASSERT_EQ(after[static_cast<size_t>(i)], 0) << "flag byte " << i << " left set";
}

// A stream-K call without the workspace it takes, or with a CTA count the device cannot hold at once, is
// refused before anything is launched; the knobs a Config does not take are refused by name.
TEST(Sm90GemmStreamK, Refusals) {
  BWGEMM_REQUIRE_SM90();
  using Op = sm90::Gemm<sm90::GemmStreamK128x256<bf16>>;
  DeviceBytes a(512 * 1024 * 2), b(1024 * 512 * 2), d(512 * 512 * 2), small(4096);
  d.fill(0x5A);
  bwgemm::GemmArguments<bf16> args;
  args.m = 512, args.n = 512, args.k = 1024;
  args.a = reinterpret_cast<const bf16*>(a.data());
  args.b = reinterpret_cast<const bf16*>(b.data());
  args.d = reinterpret_cast<bf16*>(d.data());
  expect_refused(Op::run(args), "workspace: this stream-K launch");
  auto too_small = args;
  too_small.workspace = small.data(), too_small.workspace_bytes = 4096;
  expect_refused(Op::run(too_small), "workspace: this stream-K launch");
  expect_refused(Op::run(too_small, nullptr, 1, -1), "stream_k_ctas must be >= 0");
  expect_refused(Op::run(too_small, nullptr, 1, 100000), "must not exceed the CTAs this device holds");
  expect_refused(Op::run(too_small, nullptr, 2), "needs a Config without sched::StreamK");
  expect_refused(sm90::Gemm<sm90::GemmTile128x256<bf16>>::run(args, nullptr, 1, 4),
                 "needs a Config with sched::StreamK");
  synchronize();
  for (uint8_t byte : d.download_checked()) ASSERT_EQ(byte, 0x5A) << "a refused call wrote D";
  // Without a workspace the default entry point asks for none and runs another kernel.
  int64_t bytes = -1;
  ASSERT_TRUE(sm90::Gemm<sm90::GemmTile128x256<bf16>>::workspace_bytes(args, &bytes).ok());
  EXPECT_EQ(bytes, 0);
}

// The default entry point with the workspace it asks for, on shapes whose plan is stream-K (worked out in
// Sm90GemmChoice.StreamK) and one whose plan is not (gemm_workspace_bytes 0 there).
TEST(Sm90GemmDefault, StreamKWithWorkspace) {
  BWGEMM_REQUIRE_SM90();
  bwgemm::GemmArguments<bf16> probe;
  probe.m = 896, probe.n = 5952, probe.k = 4096;
  probe.a = reinterpret_cast<const bf16*>(uintptr_t{0x100000});
  probe.b = reinterpret_cast<const bf16*>(uintptr_t{0x1000000});
  probe.d = reinterpret_cast<bf16*>(uintptr_t{0x8000000});
  int64_t bytes = 0;
  ASSERT_TRUE(sm90::gemm_workspace_bytes(probe, &bytes).ok());
  EXPECT_GT(bytes, 0) << "896 x 5952 x 4096 should take the stream-K kernel";
  // 36 tiles split 3 ways
  EXPECT_EQ(bytes, sm90::stream_k_workspace_bytes<sm90::GemmStreamK128x256<bf16>>(108));
  probe.m = 4096, probe.n = 4096, probe.k = 64;
  ASSERT_TRUE(sm90::gemm_workspace_bytes(probe, &bytes).ok());
  EXPECT_EQ(bytes, 0);
  check_default_entry<Sm90StreamK<0>, bf16, bf16>(
      {GemmProblem{896, 5952, 4096}, GemmProblem{896, 5952, 4096, 1, bwgemm::BLayout::kColumnMajorKxN},
       GemmProblem{4096, 4096, 64}});
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
