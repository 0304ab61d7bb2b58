// bwgemm's Hopper (sm_90a) kernels as benchmark candidates. Compiled by nvcc for the same architectures as
// candidates.cu (CMAKE_CUDA_ARCHITECTURES plus 90a; bench/CMakeLists.txt says why). Registered with
// DeviceRequirement::kSm90a, so they run only on a GPU of compute capability 9.0 (H100/H200).
//
// Registered:
//   dual_bf16  bwgemm_sm90          bwgemm::sm90::dual_gemm (the default Config choice), with a 32 MiB
//                                   workspace; bwgemm_sm90_nows the same without (so never stream-K)
//              bwgemm_sm90_swapsk   the swap-AB stream-K pairs whatever the shape at M <= 64 (tuning)
//              bwgemm_sm90_swapab   the swap-AB (small-M, split-K) kernels whatever M (dual_gemm_swap_ab;
//                                   with the workspace, so stream-K where swap_ab_stream_k_pays);
//                                   bwgemm_sm90_swapab_nows the same without (the cluster split)
//              bwgemm_sm90_t160_splitS the 160-token pairs (DualGemmSwapAbTokens160) whatever M, K split over
//                                   S = 1, 2, 4 CTAs; bwgemm_sm90_t160_sk the same under stream-K (fitting
//                                   the split costs of swap_ab_split_cost_percent)
//              bwgemm_sm90_tiled    the tiled kernels whatever M (dual_gemm_tiled): with swapab, the two
//                                   sides of the default choice's crossover
//              bwgemm_sm90_1cta     its tile shapes with one CTA per cluster (DualGemmTile128x64 / LargeM)
//              bwgemm_sm90_cluster2 the same tiles in clusters of two CTAs along M, B1/B2 multicast
//              bwgemm_sm90_regstore the one-CTA kernels with C stored from registers (TmaStore off)
//   gemm_fp16, bwgemm_sm90          bwgemm::sm90::gemm (the default Config choice), both B layouts, with a
//   gemm_bf16                       32 MiB workspace (gemm_workspace: as much as cuBLASLt gets)
//              bwgemm_sm90_nows     the same without a workspace (so never the stream-K kernel)
//              bwgemm_sm90_sk       sm90::GemmStreamK128x256 (stream-K over 128 x 256 tiles) whatever the
//              shape;
//                                   bwgemm_sm90_sk128 (bf16) GemmStreamK128x128, over 128 x 128 tiles
//              bwgemm_sm90_swapab   the swap-AB (small-M, split-K) kernels whatever M (gemm_swap_ab; with
//                                   the workspace, so stream-K where swap_ab_stream_k_pays)
//              bwgemm_sm90_swapsk_r128 swap-AB stream-K whatever the shape at M <= 64, the shipped 128-row
//                                   Configs (GemmSwapAbStreamKTokens16/32/64); _r64 the 64-row ones (tuning)
//              bwgemm_sm90_tiled    the tiled kernels whatever M (gemm_tiled)
//              bwgemm_sm90_swapab_splitS  gemm_swap_ab with the split of K forced to S = 1, 2, 4, 8 (tuning
//                                   the split choice)
//              bwgemm_sm90_tsplitS  the default's tiled kernel (gemm_tiled_plan's tile) with K split over
//                                   clusters of S = 2, 4, 8 CTAs (gemm_tiled_split); refused (skipped) where
//                                   that tile is the CTA-pair kernel or the shape has fewer K blocks than S
//              bwgemm_sm90_nW_sS    a fixed 128 x W tile (W = 128, 192, 256: GemmTile128x128,
//              GemmTile128x192,
//                                   GemmTile128x256) with a fixed split S = 2, 4: fitting the split model
//                                   (kSplitReductionKBlocks, sm90/gemm.cuh)
//              bwgemm_sm90_n160     sm90::GemmTile128x160 whatever the shape: the 128 x 160 tile, 4 stages;
//                                   bwgemm_sm90_n160_s5 (bf16) the same with 5 stages
//   gemm_bf16  bwgemm_sm90_1cta     sm90::GemmTile128x256: the 128 x 256 tile, one CTA per cluster
//              bwgemm_sm90_cluster2 sm90::GemmTile128x256Cluster2: the 128 x 256 tile in clusters of two CTAs
//                                   along M, B multicast
//              bwgemm_sm90_regstore sm90::GemmTile128x256 with D stored from registers (TmaStore off), the
//                                   epilogue before the shared-memory + TMA-store one
//   gemm_fp16, bwgemm_sm90_tall_c2n sm90::GemmTile256x128Cluster2N: 256 x 128 tiles (two m64n128k16 wgmmas
//   per gemm_bf16                       consumer per 16 K) in pairs along N sharing A (cuBLASLt's
//                                   nvjet_sm90_tst_256x128_64x4_1x2 shape; measured, not in the choice)
//              bwgemm_sm90_pp       sm90::GemmPingPong128x128: ping-pong consumers (alternate tiles), 128 x
//              128 tiles
//                                   per consumer, 6 stages; _pp_c2 the same in pairs along M sharing B
//                                   (GemmPingPong128x128Cluster2); _pp_wide 64 x 256 tiles
//                                   (GemmPingPong64x256)
//              bwgemm_sm90_t160     sm90::GemmTile256x160: 256 x 160 tiles, 3 stages; bwgemm_sm90_pp160
//                                   GemmPingPong128x160: 128 x 160 ping-pong tiles per consumer, 4 stages
//              bwgemm_sm90_n128[_c2] GemmTile128x128's 128 x 128 tile whatever the shape, one CTA per cluster
//              or
//                                   (_c2) two; bwgemm_sm90_n192 the 128 x 192 tile, 5 stages (its 3 B chunks
//                                   do not split over a pair): tuning the tile choice per shape class
//              bwgemm_sm90_swapab32 a 32-token swap-AB tile whatever the shape (tuning); _swapab_t160,
//                                   _swapab_t192 the 160- and 192-token tiles of 128 weight rows (for
//                                   128 < M <= 192); _swapab_t160_sk the 160-token tile under stream-K;
//                                   _swapab_t192_def the 192-token tile as the default runs a swap-AB tile
//                                   (stream-K with the workspace where swap_ab_stream_k_pays);
//                                   _swapab_t192_splitS / _swapab_t192_sk the same tile with the split forced
//                                   (S = 1, 2, 4, 8) or under stream-K whatever the shape
//              bwgemm_sm90_chain16[_pdl] 16 back-to-back sm90::gemm calls per timed call, without and with
//                                   programmatic dependent launch (time per chain of 16)
//   dual_bf16  bwgemm_sm90_n64[_c2] the 128 x 64 (x 2 weights) dual kernel whatever the shape (tuning)
//              bwgemm_sm90_pp       sm90::DualGemmPingPong64x128 whatever the shape: ping-pong consumers, 64
//              x 128
//                                   tile pairs per consumer, 5 stages (the default's kernel for many tiles)
//              bwgemm_sm90_pp96     sm90::DualGemmPingPong64x96: 64 x 96 tile pairs per consumer, ping-pong;
//                                   bwgemm_sm90_n96 DualGemmTile128x96, 128 x 96 pairs (whatever the shape)
#include <algorithm>
#include <type_traits>

#include "bwgemm/sm90/candidate_configs.cuh"
#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"
#include "bwgemm/sm90/swap_ab.cuh"
#include "entry_point_candidates.hpp"
#include "registry.hpp"

namespace bwgemm::bench {

namespace {

// The sm_90a candidates of the 16-bit groups (bench/entry_point_candidates.hpp).
template <class T, class Run>
Implementation<GemmProblem<T>> sm90_gemm_candidate(const char* name, Run run, bool with_workspace = true) {
  return gemm_entry_candidate<T>(name, DeviceRequirement::kSm90a, run, with_workspace);
}

// A candidate that runs one Config whatever the shape (sm90::Gemm<Cfg>::run, split 1).
template <class Cfg, class T>
Implementation<GemmProblem<T>> forced_config(const char* name) {
  return sm90_gemm_candidate<T>(
      name, [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::Gemm<Cfg>::run(a, s); });
}

// The tiled kernels with K split over a cluster (tuning the split model, docs/hopper.md): the default's
// tile with the split forced, and each one-CTA tile with a fixed split.
template <class T>
void add_tiled_split_candidates(std::vector<Implementation<GemmProblem<T>>>& group) {
  using Args = bwgemm::GemmArguments<T>;
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_tsplit2", [](const Args& a, cudaStream_t s) { return sm90::gemm_tiled_split(a, s, 2); }));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_tsplit4", [](const Args& a, cudaStream_t s) { return sm90::gemm_tiled_split(a, s, 4); }));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_tsplit8", [](const Args& a, cudaStream_t s) { return sm90::gemm_tiled_split(a, s, 8); }));
  group.push_back(sm90_gemm_candidate<T>("bwgemm_sm90_n128_s2", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<sm90::GemmTile128x128<T>>::run(a, s, 2);
  }));
  group.push_back(sm90_gemm_candidate<T>("bwgemm_sm90_n128_s4", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<sm90::GemmTile128x128<T>>::run(a, s, 4);
  }));
  group.push_back(sm90_gemm_candidate<T>("bwgemm_sm90_n192_s2", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<sm90::GemmTile128x192<T>>::run(a, s, 2);
  }));
  group.push_back(sm90_gemm_candidate<T>("bwgemm_sm90_n192_s4", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<sm90::GemmTile128x192<T>>::run(a, s, 4);
  }));
  group.push_back(sm90_gemm_candidate<T>("bwgemm_sm90_n256_s2", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<sm90::GemmTile128x256<T>>::run(a, s, 2);
  }));
  group.push_back(sm90_gemm_candidate<T>("bwgemm_sm90_n256_s4", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<sm90::GemmTile128x256<T>>::run(a, s, 4);
  }));
}

template <class T>
void add_gemm(std::vector<Implementation<GemmProblem<T>>>& group) {
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90", [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm(a, s); }));
  // The default entry point without a workspace (so without the stream-K kernel), and the stream-K kernel
  // whatever the shape.
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_nows", [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm(a, s); },
      /*with_workspace=*/false));
  group.push_back(forced_config<sm90::GemmStreamK128x256<T>, T>("bwgemm_sm90_sk"));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_swapab",
      [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm_swap_ab(a, s); }));
  // The swap-AB kernels with the split of K forced (tuning the split choice, docs/hopper.md).
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_swapab_split1",
      [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm_swap_ab(a, s, 1); }));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_swapab_split2",
      [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm_swap_ab(a, s, 2); }));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_swapab_split4",
      [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm_swap_ab(a, s, 4); }));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_swapab_split8",
      [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm_swap_ab(a, s, 8); }));
  // Swap-AB stream-K with 128-row weight tiles: 16 tokens x 12 stages of 18 KiB, 32 x 10 of 20 KiB, 64 x 8
  // of 24 KiB (about 192-216 KiB in flight, as the shipped 64-row Configs).
  // Swap-AB stream-K whatever the shape at M <= 64: the shipped 128-row stream-K Configs
  // (GemmSwapAbStreamKTokens16/32/64), and the 64-row Configs of the cluster split under stream-K (tuning
  // swap_ab_stream_k_pays).
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_swapsk_r128", [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) -> bwgemm::Status {
        if (a.m <= 16) return sm90::SwapAbGemm<sm90::GemmSwapAbStreamKTokens16<T>>::run_stream_k(a, s);
        if (a.m <= 32) return sm90::SwapAbGemm<sm90::GemmSwapAbStreamKTokens32<T>>::run_stream_k(a, s);
        if (a.m <= 64) return sm90::SwapAbGemm<sm90::GemmSwapAbStreamKTokens64<T>>::run_stream_k(a, s);
        return bwgemm::Status::invalid_argument("bwgemm_sm90_swapsk_r128: M <= 64 only");
      }));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_swapsk_r64", [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) -> bwgemm::Status {
        if (a.m <= 16) return sm90::SwapAbGemm<sm90::GemmSwapAbTokens16<T>>::run_stream_k(a, s);
        if (a.m <= 32) return sm90::SwapAbGemm<sm90::GemmSwapAbTokens32<T>>::run_stream_k(a, s);
        if (a.m <= 64) return sm90::SwapAbGemm<sm90::GemmSwapAbTokens64<T>>::run_stream_k(a, s);
        return bwgemm::Status::invalid_argument("bwgemm_sm90_swapsk_r64: M <= 64 only");
      }));
  group.push_back(sm90_gemm_candidate<T>(
      "bwgemm_sm90_tiled",
      [](const bwgemm::GemmArguments<T>& a, cudaStream_t s) { return sm90::gemm_tiled(a, s); }));
  add_tiled_split_candidates<T>(group);
  group.push_back(forced_config<sm90::GemmTile128x256<T>, T>("bwgemm_sm90_1cta"));
  group.push_back(forced_config<sm90::GemmTile128x160<T>, T>("bwgemm_sm90_n160"));
  group.push_back(forced_config<sm90::GemmTile128x256Cluster2<T>, T>("bwgemm_sm90_cluster2"));
  group.push_back(forced_config<typename sm90::GemmTile128x256<T>::template WithTmaStore<false>, T>(
      "bwgemm_sm90_regstore"));
  // cuBLASLt's tile shape (256 x 128, pairs along N sharing A) and its pieces, outside the default choice.
  group.push_back(forced_config<sm90::GemmTile256x128Cluster2N<T>, T>("bwgemm_sm90_tall_c2n"));
  // Ping-pong consumers (alternate tiles), outside the default choice.
  group.push_back(forced_config<sm90::GemmPingPong128x128<T>, T>("bwgemm_sm90_pp"));
  group.push_back(forced_config<sm90::GemmPingPong128x128Cluster2<T>, T>("bwgemm_sm90_pp_c2"));
  group.push_back(forced_config<sm90::GemmPingPong64x256<T>, T>("bwgemm_sm90_pp_wide"));
  // The 160-column tile with two row blocks per consumer: 256 x 160 cooperative, 128 x 160 ping-pong.
  group.push_back(forced_config<sm90::GemmTile256x160<T>, T>("bwgemm_sm90_t160"));
  group.push_back(forced_config<sm90::GemmPingPong128x160<T>, T>("bwgemm_sm90_pp160"));
}

// The tile-shape tuning candidates (bf16 only, to keep the bench's build small): the other BlockN choices,
// whatever the shape.
template <int BlockN, int Stages, int ClusterCtas>
using TunedGemm = sm90::GemmConfig<BlockN, Stages, ClusterCtas, sched::StaticPersistent,
                                   epi::LinearCombination, __nv_bfloat16>;

void add_gemm_tile_candidates(std::vector<Implementation<GemmProblem<__nv_bfloat16>>>& group) {
  using Args = bwgemm::GemmArguments<__nv_bfloat16>;
  // Swap-AB tiles of 160 and 192 tokens (128 weight rows; 6 and 5 stages, about 216 and 200 KiB in flight),
  // split from choose_split_k, whatever M: 160 is the default's for 128 < M <= 160
  // (sm90::GemmSwapAbTokens160); 192 ran 0.95-0.96x of the tiled kernels at M = 192 (a 256-token tile spilled
  // 140 bytes and ran 0.53-0.67x of cuBLASLt; H200, 2026-12-02,
  // docs/data/h200_2026-12-02_paired_tokens_candidates_half_tile.json).
  group.push_back(
      sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_swapab_t160", [](const Args& a, cudaStream_t s) {
        return sm90::SwapAbGemm<sm90::GemmSwapAbTokens160<__nv_bfloat16>>::run(a, s);
      }));
  group.push_back(
      sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_swapab_t160_sk", [](const Args& a, cudaStream_t s) {
        return sm90::SwapAbGemm<sm90::GemmSwapAbTokens160<__nv_bfloat16>>::run_stream_k(a, s);
      }));
  group.push_back(
      sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_swapab_t192_def", [](const Args& a, cudaStream_t s) {
        return sm90::run_gemm_swap_ab(sm90::GemmChoice::kSwapAbTokens192, a, s);
      }));
  // The 192-token tile with the split of K forced, and under stream-K whatever the shape (fitting its rule);
  // stream-K on 2 or 4 CTAs per tile (at most 128): with 4 per tile at N = 3584 the same K ranges as the
  // 4-CTA cluster split, the sums handed off through global memory instead of distributed shared memory.
  using Tokens192 = sm90::SwapAbGemm<sm90::GemmSwapAbTokens192<__nv_bfloat16>>;
  static constexpr const char* kTokens192Splits[] = {
      "bwgemm_sm90_swapab_t192_split1", "bwgemm_sm90_swapab_t192_split2", "bwgemm_sm90_swapab_t192_split4",
      "bwgemm_sm90_swapab_t192_split8"};
  for (int i = 0; i < 4; ++i)
    group.push_back(sm90_gemm_candidate<__nv_bfloat16>(
        kTokens192Splits[i],
        [split = 1 << i](const Args& a, cudaStream_t s) { return Tokens192::run(a, s, split); }));
  group.push_back(sm90_gemm_candidate<__nv_bfloat16>(
      "bwgemm_sm90_swapab_t192_sk",
      [](const Args& a, cudaStream_t s) { return Tokens192::run_stream_k(a, s); }));
  // At most 128 CTAs: below the 132 SMs, so every CTA of the launch is resident (a head waits for its
  // tile's).
  static constexpr int64_t kPerTileStreamKMaxCtas = 128;
  static constexpr const char* kTokens192PerTile[] = {"bwgemm_sm90_swapab_t192_sk_per2",
                                                      "bwgemm_sm90_swapab_t192_sk_per4"};
  for (int i = 0; i < 2; ++i)
    group.push_back(sm90_gemm_candidate<__nv_bfloat16>(
        kTokens192PerTile[i], [per_tile = int64_t{2} << i](const Args& a, cudaStream_t s) {
          using Cfg = Tokens192::Config;
          const int64_t ctas = per_tile * bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch).total();
          return Tokens192::run_stream_k(a, s, std::min<int64_t>(ctas, kPerTileStreamKMaxCtas));
        }));
  group.push_back(
      sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_swapab_t192", [](const Args& a, cudaStream_t s) {
        return sm90::SwapAbGemm<
            sm90::SwapAbConfig<192, 5, 1, bwgemm::epi::LinearCombination, __nv_bfloat16>>::run(a, s);
      }));

  group.push_back(sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_sk128", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<sm90::GemmStreamK128x128<__nv_bfloat16>>::run(a, s);
  }));
  group.push_back(sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_n128", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<TunedGemm<128, 6, 1>>::run(a, s);
  }));
  group.push_back(sm90_gemm_candidate<__nv_bfloat16>(
      "bwgemm_sm90_n128_c2",
      [](const Args& a, cudaStream_t s) { return sm90::Gemm<TunedGemm<128, 6, 2>>::run(a, s); }));
  // A 32-token swap-AB tile (16 stages of 12 KiB), split from choose_split_k: for 16 < M <= 32.
  group.push_back(
      sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_swapab32", [](const Args& a, cudaStream_t s) {
        return sm90::SwapAbGemm<sm90::GemmSwapAbTokens32<__nv_bfloat16>>::run(a, s);
      }));
  group.push_back(sm90_gemm_candidate<__nv_bfloat16>("bwgemm_sm90_n192", [](const Args& a, cudaStream_t s) {
    return sm90::Gemm<TunedGemm<192, 5, 1>>::run(a, s);
  }));
  // The 128 x 160 tile with 5 stages (GemmTile128x160 has 4): its D then leaves in five rounds of one box.
  group.push_back(sm90_gemm_candidate<__nv_bfloat16>(
      "bwgemm_sm90_n160_s5",
      [](const Args& a, cudaStream_t s) { return sm90::Gemm<TunedGemm<160, 5, 1>>::run(a, s); }));
  // Programmatic dependent launch: one "call" is a chain of kPdlChainCalls back-to-back
  // bwgemm::sm90::gemm calls on the stream (each D = A·B, the same buffers: every call waits for the one
  // before it), without PDL and with LaunchOptions::programmatic_dependent_launch. The time per call of the
  // two is the chain's; their ratio is what PDL saves (the prologue and launch latency of each kernel
  // overlapping the previous one's tail). Same binary, interleaved: --benchmark_enable_random_interleaving.
  constexpr int kPdlChainCalls = 16;
  for (const bool pdl : {false, true}) {
    group.push_back(sm90_gemm_candidate<__nv_bfloat16>(
        pdl ? "bwgemm_sm90_chain16_pdl" : "bwgemm_sm90_chain16", [pdl](const Args& a, cudaStream_t s) {
          Args chained = a;
          chained.launch.programmatic_dependent_launch = pdl;
          for (int i = 0; i < kPdlChainCalls; ++i)
            if (const bwgemm::Status st = sm90::gemm(chained, s); !st.ok()) return st;
          return bwgemm::Status::success();
        }));
  }
}

template <class Run>
Implementation<DualBf16Problem> sm90_dual_candidate(const char* name, Run run, bool with_workspace = true) {
  return dual_bf16_entry_candidate(name, DeviceRequirement::kSm90a, run, with_workspace);
}

}  // namespace

void add_bwgemm_sm90_candidates(ImplementationTable& table) {
  using DualArgs = bwgemm::DualGemmArguments<__nv_bfloat16>;
  table.dual_bf16.push_back(sm90_dual_candidate(
      "bwgemm_sm90", [](const DualArgs& a, cudaStream_t s) { return sm90::dual_gemm(a, s); }));
  // The default without a workspace (so without the swap-AB stream-K), and stream-K whatever the shape at
  // M <= 64 (the 64-row pairs the default runs stream-K with a workspace; tuning).
  table.dual_bf16.push_back(sm90_dual_candidate(
      "bwgemm_sm90_nows", [](const DualArgs& a, cudaStream_t s) { return sm90::dual_gemm(a, s); },
      /*with_workspace=*/false));
  table.dual_bf16.push_back(
      sm90_dual_candidate("bwgemm_sm90_swapsk", [](const DualArgs& a, cudaStream_t s) -> bwgemm::Status {
        if (a.m <= 16)
          return sm90::SwapAbDualGemm<sm90::DualGemmSwapAbTokens16<__nv_bfloat16>>::run_stream_k(a, s);
        if (a.m <= 64)
          return sm90::SwapAbDualGemm<sm90::DualGemmSwapAbTokens64<__nv_bfloat16>>::run_stream_k(a, s);
        return bwgemm::Status::invalid_argument("bwgemm_sm90_swapsk: M <= 64 only");
      }));
  table.dual_bf16.push_back(sm90_dual_candidate(
      "bwgemm_sm90_swapab", [](const DualArgs& a, cudaStream_t s) { return sm90::dual_gemm_swap_ab(a, s); }));
  table.dual_bf16.push_back(sm90_dual_candidate(
      "bwgemm_sm90_swapab_nows",
      [](const DualArgs& a, cudaStream_t s) { return sm90::dual_gemm_swap_ab(a, s); },
      /*with_workspace=*/false));
  {
    using Pairs160 = sm90::SwapAbDualGemm<sm90::DualGemmSwapAbTokens160<__nv_bfloat16>>;
    table.dual_bf16.push_back(sm90_dual_candidate(
        "bwgemm_sm90_t160_split1", [](const DualArgs& a, cudaStream_t s) { return Pairs160::run(a, s, 1); }));
    table.dual_bf16.push_back(sm90_dual_candidate(
        "bwgemm_sm90_t160_split2", [](const DualArgs& a, cudaStream_t s) { return Pairs160::run(a, s, 2); }));
    table.dual_bf16.push_back(sm90_dual_candidate(
        "bwgemm_sm90_t160_split4", [](const DualArgs& a, cudaStream_t s) { return Pairs160::run(a, s, 4); }));
    table.dual_bf16.push_back(
        sm90_dual_candidate("bwgemm_sm90_t160_sk",
                            [](const DualArgs& a, cudaStream_t s) { return Pairs160::run_stream_k(a, s); }));
  }
  table.dual_bf16.push_back(sm90_dual_candidate(
      "bwgemm_sm90_tiled", [](const DualArgs& a, cudaStream_t s) { return sm90::dual_gemm_tiled(a, s); }));
  table.dual_bf16.push_back(sm90_dual_candidate("bwgemm_sm90_1cta", [](const DualArgs& a, cudaStream_t s) {
    using Small = sm90::DualGemmTile128x64<__nv_bfloat16>;
    using Large = sm90::DualGemmTile128x128<__nv_bfloat16>;
    return a.m * a.batch <= 256 ? sm90::DualGemm<Small>::run(a, s) : sm90::DualGemm<Large>::run(a, s);
  }));
  table.dual_bf16.push_back(
      sm90_dual_candidate("bwgemm_sm90_cluster2",
                          [](const DualArgs& a, cudaStream_t s) { return sm90::dual_gemm_cluster2(a, s); }));
  table.dual_bf16.push_back(
      sm90_dual_candidate("bwgemm_sm90_regstore", [](const DualArgs& a, cudaStream_t s) {
        using Small = sm90::DualGemmTile128x64<__nv_bfloat16>::WithTmaStore<false>;
        using Large = sm90::DualGemmTile128x128<__nv_bfloat16>::WithTmaStore<false>;
        return a.m * a.batch <= 256 ? sm90::DualGemm<Small>::run(a, s) : sm90::DualGemm<Large>::run(a, s);
      }));
  table.dual_bf16.push_back(sm90_dual_candidate("bwgemm_sm90_n64", [](const DualArgs& a, cudaStream_t s) {
    return sm90::DualGemm<sm90::DualGemmTile128x64<__nv_bfloat16>>::run(a, s);
  }));
  table.dual_bf16.push_back(sm90_dual_candidate("bwgemm_sm90_n64_c2", [](const DualArgs& a, cudaStream_t s) {
    return sm90::DualGemm<sm90::DualGemmTile128x64Cluster2<__nv_bfloat16>>::run(a, s);
  }));
  // Ping-pong consumers (64 x 128 tile pairs per consumer, 5 stages), whatever the shape; the default takes
  // them from more than kDualPingPongMinWaves waves of tiles.
  table.dual_bf16.push_back(sm90_dual_candidate("bwgemm_sm90_pp", [](const DualArgs& a, cudaStream_t s) {
    return sm90::DualGemm<sm90::DualGemmPingPong64x128<__nv_bfloat16>>::run(a, s);
  }));
  // 96-column tile pairs (m64n192k16), ping-pong and cooperative, whatever the shape.
  table.dual_bf16.push_back(sm90_dual_candidate("bwgemm_sm90_pp96", [](const DualArgs& a, cudaStream_t s) {
    return sm90::DualGemm<sm90::DualGemmPingPong64x96<__nv_bfloat16>>::run(a, s);
  }));
  table.dual_bf16.push_back(sm90_dual_candidate("bwgemm_sm90_n96", [](const DualArgs& a, cudaStream_t s) {
    return sm90::DualGemm<sm90::DualGemmTile128x96<__nv_bfloat16>>::run(a, s);
  }));
  add_gemm<__half>(table.gemm_fp16);
  add_gemm<__nv_bfloat16>(table.gemm_bf16);
  add_gemm_tile_candidates(table.gemm_bf16);
}

}  // namespace bwgemm::bench
