// The sm_90a small-M kernels (swap AB, split K: sm90/swap_ab.cuh), natively on a GPU of compute capability
// 9.0 (H100/H200); every GPU case skips with a message elsewhere. The GEMM and dual GEMM contracts
// (test/contract: every output type, more tiles than SMs) on the shipped Configs, with the split chosen by
// the entry point and forced to 8; the decode
// sizes M = 1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65 on every shipped Config (exact tier bitwise, realistic tier
// within tolerance, splits 1, 2, 4, 8); split-K outputs bitwise identical across runs; the default entry
// points at decode sizes; the split choice and the entry points' choice table (host logic: run everywhere).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"
#include "bwgemm/sm90/swap_ab.cuh"
#include "dual_gemm_contract.hpp"
#include "gemm_contract.hpp"
#include "split_k_cases.hpp"

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
namespace epi = bwgemm::epi;
using bf16 = __nv_bfloat16;
using f16 = __half;

// The explicit-Config entry points with the split forced (Split > 0) or chosen (Split = 0).
template <int Split>
struct SwapAbBackend {
  template <class Cfg>
  struct Gemm {
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return sm90::SwapAbGemm<Cfg>::can_implement(a, Split == 0 ? 0 : split_for(Split, a.k));
    }
    template <class Args>
    static bwgemm::Status run(const Args& a, cudaStream_t stream = nullptr) {
      return sm90::SwapAbGemm<Cfg>::run(a, stream, Split == 0 ? 0 : split_for(Split, a.k));
    }
  };
  template <class Cfg>
  struct DualGemm {
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return sm90::SwapAbDualGemm<Cfg>::can_implement(a, Split == 0 ? 0 : split_for(Split, a.k));
    }
    template <class Args>
    static bwgemm::Status run(const Args& a, cudaStream_t stream = nullptr) {
      return sm90::SwapAbDualGemm<Cfg>::run(a, stream, Split == 0 ? 0 : split_for(Split, a.k));
    }
  };
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return sm90::gemm(args);
  }
  template <class In, class Out>
  static bwgemm::Status dual_gemm(const bwgemm::DualGemmArguments<In, Out>& args) {
    return sm90::dual_gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm90(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 9.0 (H100/H200) for sm_90a code";
};
using Chosen = SwapAbBackend<0>;
using Split8 = SwapAbBackend<8>;

// The shipped Configs (64 weight rows per tile) and a GEMM with 128-row tiles (two consumer warpgroups: the
// WeightWarpgroups knob; the dual GEMM's 128-row tiles spill 4 bytes at the 168 registers of 384 threads and
// are not shipped).
using Wide16 = sm90::SwapAbConfig<16, 12, 1, epi::LinearCombination, bf16, 2>;
using GemmSwapAbConfigs = Configs<sm90::GemmSwapAb16<bf16>, sm90::GemmSwapAb32<bf16>, sm90::GemmSwapAb64<f16>,
                                  sm90::GemmSwapAb128<float>, Wide16>;
using DualSwapAbConfigs =
    Configs<sm90::DualGemmSwapAb16<bf16>, sm90::DualGemmSwapAb64<bf16>, sm90::DualGemmSwapAb128<f16>>;

// Two backends in one type list: the chosen split on every Config, split 8 on the first.
using GemmCases = Concat<CasesOf<Chosen, GemmSwapAbConfigs>::type,
                         CasesOf<Split8, Configs<sm90::GemmSwapAb16<f16>>>::type>::type;
using DualCases = Concat<CasesOf<Chosen, DualSwapAbConfigs>::type,
                         CasesOf<Split8, Configs<sm90::DualGemmSwapAb16<f16>>>::type>::type;
using OutputCases = CasesOf<Chosen, GemmSwapAbConfigs>::type;
using ManyTilesCases = CasesOf<Chosen, Configs<sm90::GemmSwapAb16<bf16>>>::type;

// Test names carry the split: "SwapAbT16_S12_bf16" (chosen), "SwapAbT16_S12_f16_Split8".
struct SwapAbNames {
  template <class C>
  static std::string GetName(int) {
    return ConfigName<typename C::Cfg>::get() +
           (std::is_same_v<typename C::Backend, Split8> ? std::string("_Split8") : std::string());
  }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, GemmContract, GemmCases, SwapAbNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, DualGemmContract, DualCases, SwapAbNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, GemmOutputContract, OutputCases, SwapAbNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, GemmManyTilesContract, ManyTilesCases, SwapAbNames);

namespace {

constexpr int64_t kDecodeM[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65};
constexpr int kSplits[] = {1, 2, 4, 8};

// Every shipped GEMM Config at every decode M: N = 392 (three weight tiles and a tail), K = 520 (9 K blocks,
// the last one partial, so splits of 8 have uneven ranges); exact tier both B layouts, realistic tier bf16;
// the split cycles through 1, 2, 4, 8.
template <class Cfg>
void check_gemm_decode_sizes() {
  int i = 0;
  for (int64_t m : kDecodeM) {
    const int split = kSplits[i++ % 4];
    SCOPED_TRACE("split_k " + std::to_string(split));
    const auto run = [split](const auto& args) { return sm90::SwapAbGemm<Cfg>::run(args, nullptr, split); };
    for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
      GemmProblem pb{m, 392, 520, 1, layout};
      check_gemm_with<Cfg, f16>(pb, Data::kExact, 100 + static_cast<uint32_t>(m), run);
      pb.alpha = 0.5f, pb.beta = 1.0f;
      check_gemm_with<Cfg, bf16>(pb, Data::kRealistic, 200 + static_cast<uint32_t>(m), run);
    }
  }
}

template <class Cfg>
void check_dual_decode_sizes() {
  int i = 0;
  for (int64_t m : kDecodeM) {
    const int split = kSplits[i++ % 4];
    SCOPED_TRACE("split_k " + std::to_string(split));
    using Exact = typename Cfg::template WithEpilogue<epi::Multiply>;
    const DualProblem pb{m, 392, 520, 1, 0, 0, 0, 0.5f, 2.0f};
    check_dual<bf16, typename Cfg::Out, epi::Multiply>(
        pb, Data::kExact, 300 + static_cast<uint32_t>(m),
        [split](const auto& args) { return sm90::SwapAbDualGemm<Exact>::run(args, nullptr, split); });
    check_dual<bf16, typename Cfg::Out, epi::SiluMul>(
        pb, Data::kRealistic, 400 + static_cast<uint32_t>(m),
        [split](const auto& args) { return sm90::SwapAbDualGemm<Cfg>::run(args, nullptr, split); });
  }
}

TEST(Sm90SwapAbDecode, GemmTokens16) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAb16<bf16>>();
}
TEST(Sm90SwapAbDecode, GemmTokens32) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAb32<bf16>>();
}
TEST(Sm90SwapAbDecode, GemmTokens64) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAb64<f16>>();
}
TEST(Sm90SwapAbDecode, GemmTokens128) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAb128<float>>();
}
TEST(Sm90SwapAbDecode, GemmTokens16Rows128) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<Wide16>();
}
TEST(Sm90SwapAbDecode, DualTokens16) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes<sm90::DualGemmSwapAb16<bf16>>();
}
TEST(Sm90SwapAbDecode, DualTokens64) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes<sm90::DualGemmSwapAb64<bf16>>();
}
TEST(Sm90SwapAbDecode, DualTokens128) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes<sm90::DualGemmSwapAb128<f16>>();
}

// The default entry points at decode sizes on a model's shapes (the choice, the chosen split and the kernel
// together), realistic tier.
TEST(Sm90SwapAbDecode, DefaultEntryPoints) {
  BWGEMM_REQUIRE_SM90();
  for (int64_t m : {1, 16, 33, 100, 128})
    check_gemm_with<sm90::GemmSwapAb16<bf16>, bf16>(
        GemmProblem{m, 4096, 4096, 1, bwgemm::BLayout::kColumnMajorKxN}, Data::kRealistic,
        500 + static_cast<uint32_t>(m), [](const auto& args) { return sm90::gemm(args); });
  check_dual_default_entry<Chosen, bf16, bf16>(
      {DualProblem{1, 2048, 4096}, DualProblem{40, 1536, 2048}, DualProblem{200, 1024, 1024}}, 600);
}

// Split K gives the same bits on every run: realistic data (sums that round), 5 calls per split, each
// compared byte for byte with the first.
TEST(Sm90SwapAbDecode, SplitKIsBitwiseDeterministic) {
  BWGEMM_REQUIRE_SM90();
  expect_bitwise_identical_runs(GemmProblem{5, 1024, 8192, 1, bwgemm::BLayout::kColumnMajorKxN}, 700,
                                {0, 2, 8}, 5, [](const auto& args, int split) {
                                  return sm90::SwapAbGemm<sm90::GemmSwapAb16<bf16>>::run(args, nullptr,
                                                                                         split);
                                });
}

// A forced split the kernel cannot take is refused before anything is launched.
TEST(Sm90SwapAb, RefusesBadSplits) {
  using Op = sm90::SwapAbGemm<sm90::GemmSwapAb16<bf16>>;
  alignas(16) static uint8_t buf[3 * 64 * 256 * 2];
  bwgemm::GemmArguments<bf16> args;
  args.m = 16, args.n = 64, args.k = 256;  // 4 K blocks
  args.a = reinterpret_cast<const bf16*>(buf);
  args.b = reinterpret_cast<const bf16*>(buf + 64 * 256 * 2);
  args.d = reinterpret_cast<bf16*>(buf + 2 * 64 * 256 * 2);
  EXPECT_TRUE(Op::can_implement(args, 4).ok());
  expect_refused(Op::run(args, nullptr, 3), "split_k must be 0 (chosen from the shape), 1, 2, 4 or 8");
  expect_refused(Op::run(args, nullptr, 16), "split_k must be 0");
  expect_refused(Op::run(args, nullptr, 8), "must not exceed the K blocks of 64 (4)");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

// The split choice (host logic), worked out by hand: cost = waves · ceil(K blocks / s) · {100, 115, 150,
// 200}[s].
TEST(Sm90SwapAbChoice, SplitMinimisesWavesTimesBlocks) {
  const int64_t h200[4] = {132, 66, 32, 16};  // resident clusters of 1, 2, 4, 8 CTAs
  // 64 tiles (N = 4096 in 64-row tiles), 64 K blocks: s=1: 6400; s=2: 32·115 = 3680; s=4: 2·16·150 = 4800;
  // s=8: 4·8·200 = 6400 -> 2.
  EXPECT_EQ(sm90::choose_split_k(64, 64, h200), 2);
  // 8 tiles, 64 blocks: s=2: 3680; s=4: 2400; s=8: 8·200 = 1600 -> 8.
  EXPECT_EQ(sm90::choose_split_k(8, 64, h200), 8);
  // 80 tiles (N = 5120), 80 blocks: s=1: 8000; s=2: 2·40·115 = 9200; s=4: 3·20·150 = 9000 -> 1.
  EXPECT_EQ(sm90::choose_split_k(80, 80, h200), 1);
  // 448 tiles (N = 28672), 64 blocks: s=1: 4·64·100 = 25600; s=2: 7·32·115 = 25760 -> 1.
  EXPECT_EQ(sm90::choose_split_k(448, 64, h200), 1);
  // 2 K blocks: no split above 2; s=2: 1·1·115 < s=1: 1·2·100 -> 2.
  EXPECT_EQ(sm90::choose_split_k(8, 2, h200), 2);
  // 1 K block: no split at all.
  EXPECT_EQ(sm90::choose_split_k(8, 1, h200), 1);
  // A cluster size the device cannot place (0 resident) is never chosen.
  const int64_t no_eights[4] = {132, 66, 32, 0};
  EXPECT_EQ(sm90::choose_split_k(8, 64, no_eights), 4);
}

// The entry points' choice by M (host logic): swap AB up to the measured crossover, the tiled kernels above.
TEST(Sm90SwapAbChoice, DefaultEntryPointsByM) {
  using sm90::DualGemmChoice;
  using sm90::GemmChoice;
  EXPECT_EQ(sm90::gemm_choice(1, 4096, 1), GemmChoice::kSwapAb16);
  EXPECT_EQ(sm90::gemm_choice(16, 57344, 1), GemmChoice::kSwapAb16);
  EXPECT_EQ(sm90::gemm_choice(17, 4096, 1), GemmChoice::kSwapAb32);
  EXPECT_EQ(sm90::gemm_choice(32, 57344, 1), GemmChoice::kSwapAb32);
  EXPECT_EQ(sm90::gemm_choice(33, 4096, 1), GemmChoice::kSwapAb64);
  EXPECT_EQ(sm90::gemm_choice(64, 57344, 1), GemmChoice::kSwapAb64);
  // 64 < M <= 128: swap AB only while the tiled kernel's 128 x 128 tiles would fill under half the SMs.
  EXPECT_EQ(sm90::gemm_choice(65, 4096, 1), GemmChoice::kSwapAb128);
  EXPECT_EQ(sm90::gemm_choice(128, 8447, 1), GemmChoice::kSwapAb128);
  // The tiled kernels past it (Sm90GemmChoice has the rule): 33 / 44 / 66 tiles of 256 / 192 / 128 columns,
  // one wave each -> 128 x 128; 112 / 150 / 224 tiles = 1 / 2 / 2 waves -> 128 x 256 (one row tile: no pair).
  EXPECT_EQ(sm90::gemm_choice(128, 8448, 1), GemmChoice::kSmall);
  EXPECT_EQ(sm90::gemm_choice(100, 28672, 1), GemmChoice::kLarge);
  EXPECT_EQ(sm90::gemm_choice(129, 4096, 1), GemmChoice::kSmall);  // 2 row tiles: 32 / 44 / 64, one wave
  EXPECT_EQ(sm90::dual_gemm_choice(1, 14336, 1), DualGemmChoice::kSwapAb16);
  EXPECT_EQ(sm90::dual_gemm_choice(17, 14336, 1), DualGemmChoice::kSwapAb64);
  EXPECT_EQ(sm90::dual_gemm_choice(64, 28672, 1), DualGemmChoice::kSwapAb64);
  EXPECT_EQ(sm90::dual_gemm_choice(65, 14336, 1), DualGemmChoice::kSmallM);  // M·batch <= 256
}

// The K ranges of a split cover the K blocks once, in order, as evenly as whole blocks allow.
TEST(Sm90SwapAbChoice, SplitRangesCoverKOnce) {
  for (int32_t blocks : {1, 2, 7, 8, 9, 64, 65})
    for (int32_t splits : {1, 2, 4, 8}) {
      if (splits > blocks) continue;
      int32_t next = 0;
      for (int32_t r = 0; r < splits; ++r) {
        const sm90::KRange kr = sm90::split_k_range(blocks, splits, r);
        EXPECT_EQ(kr.begin, next);
        EXPECT_GE(kr.end - kr.begin, blocks / splits);
        EXPECT_LE(kr.end - kr.begin, blocks / splits + 1);
        next = kr.end;
      }
      EXPECT_EQ(next, blocks);
    }
}

}  // namespace
}  // namespace bwgemm_test
