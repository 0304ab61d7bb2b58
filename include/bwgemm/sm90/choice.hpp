// The sm_90a default entry points' kernel choice as data and rules, apart from the kernels: host-only C++17
// (g++ compiles it; no CUDA header, no device code). sm90::gemm and sm90::dual_gemm (sm90/gemm.cuh,
// sm90/dual_gemm.cuh) fill DeviceFacts from the device, ask gemm_plan / dual_gemm_plan for a plan and launch
// it through the catalogue (sm90/catalogue.cuh: the Config of each choice). Tests and tools call the same
// functions with an H200's facts (h200_device_facts) to see what the entry points would run.
//
//   const bwgemm::sm90::DeviceFacts h200 = bwgemm::sm90::h200_device_facts();
//   bwgemm::sm90::GemmPlan p = bwgemm::sm90::gemm_plan(16, 4096, 4096, 1, bwgemm::BLayout::kColumnMajorKxN,
//                                                      /*has_workspace=*/false, h200);
//   // p.choice == GemmChoice::kSwapAbTokens16, gemm_choice_name(p.choice) == "GemmSwapAbTokens16", p.split_k
//
// Every constant below was fitted or checked on one H200 (132 SMs): each names its data file under
// docs/data/ (docs/data/README.md lists them with their commands; docs/hopper.md has the table). What
// depends on the device's size is an expression of DeviceFacts::sm_count that gives the H200's value there.
#pragma once

#include <cstdint>
#include <string_view>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/scheduler/schedulers.cuh"  // sched::StreamK::plan (host and device constexpr)

namespace bwgemm::sm90 {

// ---- the splits of K -------------------------------------------------------------------------------------
// The splits a launch may use: 1 (no cluster) and the cluster sizes 2, 4, 8 (a tile's partials split evenly
// among them; 8 is the portable cluster limit, kernels/sm90/split_k.cuh's kMaxSplitK).
inline constexpr int kSplitKChoices[] = {1, 2, 4, 8};
inline constexpr int kSplitKChoiceCount = 4;

// Whether split kSplitKChoices[i] may be taken: whole K (1) always; a cluster size only with at least one
// K block per CTA and where the device can place the cluster (resident[i] >= 1: its resident clusters).
constexpr bool split_k_allowed(int i, int64_t k_blocks, const int64_t (&resident)[kSplitKChoiceCount]) {
  return kSplitKChoices[i] == 1 || (kSplitKChoices[i] <= k_blocks && resident[i] >= 1);
}

// The allowed split (split_k_allowed) of lowest cost(i, split); ties go to the smaller split.
template <class Cost>
constexpr int lowest_cost_split_k(int64_t k_blocks, const int64_t (&resident)[kSplitKChoiceCount],
                                  const Cost& cost) {
  int best = 1;
  int64_t best_cost = -1;
  for (int i = 0; i < kSplitKChoiceCount; ++i) {
    if (!split_k_allowed(i, k_blocks, resident)) continue;
    const int64_t c = cost(i, kSplitKChoices[i]);
    if (best_cost < 0 || c < best_cost) best = kSplitKChoices[i], best_cost = c;
  }
  return best;
}

// ---- the device ------------------------------------------------------------------------------------------
// What the rules need from the device: its SM count (one CTA of every Config of the choice per SM: waves of
// tiles are counted in SMs) and, for the splits, how many clusters of 1, 2, 4 and 8 CTAs of a Config of the
// choice fit at once (0: that size cannot be placed, never chosen). The entry points fill it from the device
// (cudaDevAttrMultiProcessorCount and the cluster-occupancy queries of their launches, cached per device).
struct DeviceFacts {
  int64_t sm_count = 132;
  int64_t resident_clusters[kSplitKChoiceCount] = {132, 66, 30, 14};
};

// An H200's facts: 132 SMs; resident clusters of 1, 2, 4, 8 CTAs {132, 66, 30, 14}. The data files do not
// record the device's answer; the measurements bound it: 30 tiles of GemmSwapAbTokens192 ran in one wave of
// clusters of 4 and 32 did not (docs/data/h200_2026-12-04_paired_tokens192_bounds.json, _splits.json: 30 or
// 31), and the default's split of 8 over 16 tiles timed as the split of 4 in
// docs/data/h200_2026-12-04_paired_tokens192_narrow.json (fewer than 16 clusters of 8). {30, 14} is what GPCs
// of 18, 18, 18, 18, 16, 16, 14 and 14 SMs would place (an assumption that keeps the measured 66 pairs).
constexpr DeviceFacts h200_device_facts() {
  return DeviceFacts{};
}

// Waves of tiles count one CTA per SM (every tiled Config of the choice takes most of the 227 KB of shared
// memory). The rules were fitted on 132 SMs (H200); a part with other counts gets the same rules scaled by
// its SMs: correct kernels, less tuned ones.
constexpr int64_t resident_tiles(const DeviceFacts& d) {
  return d.sm_count < 1 ? int64_t{1} : d.sm_count;
}

// The modelled time of a tiled kernel with 128 x block_n tiles (of each weight, for the dual GEMM): waves of
// resident_tiles tiles x the width x a cost per column in percent (the constants below). A partial last wave
// costs as much as a full one, which is what the H200 showed at M <= 2048 (docs/data/h200_2026-12-01_*).
constexpr int64_t wave_cost(int64_t m, int64_t n, int64_t batch, int64_t block_n, int64_t percent,
                            const DeviceFacts& d) {
  const int64_t tiles = ceil_div(m, int64_t{128}) * ceil_div(n, block_n) * batch;
  return ceil_div(tiles, resident_tiles(d)) * block_n * percent;
}

// Clusters of two CTAs stacked along M share B through TMA multicast. On an H200 (2026-11-30,
// docs/data/h200_2026-11-30.json: one-CTA and pair kernels on the same shapes) the pair kernels matched or
// beat the one-CTA kernels once every resident pair had at least two cluster tiles (2 x 66 = 132 there:
// cluster_pair_min_tiles), and lost 1-2% below that. A pair also computes the M tile past the last one when
// the 128-row tiles of a batch are odd in number, so it is taken only when that waste is at most 1/9 (an
// even count or at least 8 tiles).
constexpr int64_t cluster_pair_min_tiles(const DeviceFacts& d) {
  return 2 * (resident_tiles(d) / 2);
}
constexpr bool prefer_cluster_pair(int64_t row_tiles, int64_t col_tiles, int64_t batch,
                                   const DeviceFacts& d) {
  const int64_t pair_tiles = (row_tiles + 1) / 2 * col_tiles * batch;
  return pair_tiles >= cluster_pair_min_tiles(d) && (row_tiles % 2 == 0 || row_tiles >= 8);
}

// ---- the choices and their stable names ------------------------------------------------------------------
// The kernels the default GEMM entry point chooses from (sm90/catalogue.cuh has their Configs; the names are
// the Config aliases', the names tuning files use).
enum class GemmChoice {
  kTile128x128,
  kTile128x160,
  kTile128x192,
  kTile128x256,
  kPingPong128x128,
  kPingPong128x160,
  kStreamK128x256,
  kSwapAbTokens16,
  kSwapAbTokens32,
  kSwapAbTokens64,
  kSwapAbTokens128,
  kSwapAbTokens160,
  kSwapAbTokens192
};
inline constexpr int kGemmChoiceCount = 13;
inline constexpr const char* kGemmChoiceNames[kGemmChoiceCount] = {
    "GemmTile128x128",     "GemmTile128x160",     "GemmTile128x192",     "GemmTile128x256",
    "GemmPingPong128x128", "GemmPingPong128x160", "GemmStreamK128x256",  "GemmSwapAbTokens16",
    "GemmSwapAbTokens32",  "GemmSwapAbTokens64",  "GemmSwapAbTokens128", "GemmSwapAbTokens160",
    "GemmSwapAbTokens192"};

// The dual GEMM's (kSwapAbTokens128 only through dual_gemm_swap_ab: the default takes the tiled kernels for
// 64 < M <= 128).
enum class DualGemmChoice {
  kTile128x64,
  kTile128x128,
  kTile128x128Cluster2,
  kPingPong64x128,
  kPingPong64x96,
  kSwapAbTokens16,
  kSwapAbTokens64,
  kSwapAbTokens128,
  kSwapAbTokens160
};
inline constexpr int kDualGemmChoiceCount = 9;
inline constexpr const char* kDualGemmChoiceNames[kDualGemmChoiceCount] = {
    "DualGemmTile128x64",     "DualGemmTile128x128",     "DualGemmTile128x128Cluster2",
    "DualGemmPingPong64x128", "DualGemmPingPong64x96",   "DualGemmSwapAbTokens16",
    "DualGemmSwapAbTokens64", "DualGemmSwapAbTokens128", "DualGemmSwapAbTokens160"};

constexpr const char* gemm_choice_name(GemmChoice c) {
  return kGemmChoiceNames[static_cast<int>(c)];
}
constexpr const char* dual_gemm_choice_name(DualGemmChoice c) {
  return kDualGemmChoiceNames[static_cast<int>(c)];
}
// The choice a name spells; false (and *out untouched) for any other string.
inline bool parse_gemm_choice(std::string_view name, GemmChoice* out) {
  for (int i = 0; i < kGemmChoiceCount; ++i)
    if (name == kGemmChoiceNames[i]) return *out = static_cast<GemmChoice>(i), true;
  return false;
}
inline bool parse_dual_gemm_choice(std::string_view name, DualGemmChoice* out) {
  for (int i = 0; i < kDualGemmChoiceCount; ++i)
    if (name == kDualGemmChoiceNames[i]) return *out = static_cast<DualGemmChoice>(i), true;
  return false;
}

// A plan: the choice, its split of K (1, 2, 4, 8: the CTAs splitting K; for the swap-AB kernels the
// cluster split) and whether it runs its stream-K launch over the call's workspace (then split_k is 1).
struct GemmPlan {
  GemmChoice choice = GemmChoice::kTile128x256;
  int split_k = 1;
  bool stream_k = false;
};
struct DualGemmPlan {
  DualGemmChoice choice = DualGemmChoice::kTile128x128;
  int split_k = 1;
  bool stream_k = false;
};
constexpr bool operator==(const GemmPlan& a, const GemmPlan& b) {
  return a.choice == b.choice && a.split_k == b.split_k && a.stream_k == b.stream_k;
}
constexpr bool operator==(const DualGemmPlan& a, const DualGemmPlan& b) {
  return a.choice == b.choice && a.split_k == b.split_k && a.stream_k == b.stream_k;
}

// ---- what the rules know of each choice's Config (sm90/catalogue.cuh checks these against the Configs) ---
inline constexpr int64_t kBlockK = 64;  // every Config of the choice: one 128-byte row of 16-bit elements

// A swap-AB choice's tiles: tokens x weight rows of its cluster-split Config; the weight rows of its
// stream-K Config (0: the default never runs it stream-K); whether its splits weigh at the heavy costs
// (swap_ab_split_cost_percent).
struct SwapAbShape {
  int64_t block_tokens, block_weights, stream_k_block_weights;
  bool heavy_split;
};

// ---- split K for the tiled kernels: the wave-cost model --------------------------------------------------
// What a split of K costs, fitted on the H200 (2026-12-01, docs/data/h200_2026-12-01_split_candidates.json
// and h200_2026-12-01_paired_split.json: the bench's paired bwgemm_sm90_n{128,192,256}_s{2,4} candidates
// against cuBLASLt over the model sweep's projections at M = 128..1024, B N x K; least regret of the choice
// against the best measured (tile, split)): each CTA's K blocks cost kSplitKBlockCostPercent of an unsplit
// kernel's, plus kSplitReductionKBlocks K blocks for writing the partials over the stages, two cluster
// barriers, the rank-order DSMEM reduction, the register-store epilogue and the non-persistent CTA's pipeline
// fill. (Without the 5% the choice took splits at K = 27648 that lost 12% to the unsplit 128 x 192 tiles;
// with 4 reduction blocks it took splits that lost up to 40%.)
inline constexpr int64_t kSplitKBlockCostPercent = 105;
inline constexpr int64_t kSplitReductionKBlocks = 24;
inline constexpr int64_t kTiledBlockK = kBlockK;  // the tiled Configs' K block (GemmConfig::kBlockK)

// The time of one wave of tiles relative to a wave of 128 x 256 tiles at the same K, in percent of the
// columns it covers: 128 x 192 as fast per column, 128 x 128 5% slower (fitted on the H200 over the model
// sweep at M = 512..16384, both B layouts, 2026-12-01; the fit's data was not kept: every width forced at
// M = 512..4096 in docs/data/h200_2026-12-02_paired_medium160_candidates.json).
inline constexpr int64_t kTile128x256ColumnCostPercent = 100;
inline constexpr int64_t kTile128x192ColumnCostPercent = 100;
inline constexpr int64_t kTile128x128ColumnCostPercent = 105;
// 128 x 160 tiles (GemmTile128x160: N = 5120 and 10240 in whole tiles of 32 and 64 per row of tiles, where
// 128 x 192 and 128 x 256 tiles leave a third of the last wave idle): as fast per column as 128 x 192
// (estimated, then checked on the H200, 2026-12-02, docs/data/h200_2026-12-02_paired_medium160_default.json:
// paired over the model sweep at M = 128..4096, it won where it quantized better, e.g. 1024 x 5120 x 5120
// 0.82x -> 0.96x of cuBLASLt, and the other widths or the ping-pong kernel won wherever the model gave them
// the lower cost).
inline constexpr int64_t kTile128x160ColumnCostPercent = 100;
// With B K x N the 128 x 160 tile's B rows are loaded as three 64-column chunks starting at 160-column
// offsets, so every other tile's chunk rows straddle two 128-byte lines: where the weights' stream sets the
// time it lost (same data: at 1-2 rows of tiles, M <= 256, all 14 points where the model took it below the
// figures of the kernels chosen without it, down to 0.63x of cuBLASLt against 0.91x at 256 x 5120 x 27648,
// where with B N x K 13 of 14 rose), with 4-8 rows it won (e.g. 1024 x 5120 x 5120 0.93x against 0.82x). So
// with B K x N it needs kTile128x160MnMajorMinRowTiles rows of tiles (3 rows not measured). Five 32-column
// chunks with 64-byte swizzle instead (aligned rows, nothing past the tile loaded) were tried and ran 1.5%
// slower at M >= 512, no better at M <= 256 (H200, 2026-12-02, not kept).
inline constexpr int64_t kTile128x160MnMajorMinRowTiles = 4;
// Ping-pong consumers (GemmPingPong128x128: 128 x 128 tiles, one per consumer in turn, each epilogue under
// the other consumer's wgmmas): 5% faster per column than the 128 x 256 cooperative tile where every CTA
// walks several tiles (paired, H200, 2026-12-01,
// docs/data/h200_2026-12-01_paired_pingpong_candidates.json: 1.007-1.027x of cuBLASLt in geomean at M =
// 4096..16384 against the cooperative kernels' 0.965-0.974x), and only there: with one or two tiles per CTA
// one consumer works alone or the turns do not overlap (M = 512: 0.86x against 0.95x). So the choice takes it
// only for more than kPingPongMinWaves waves of its tiles (fitted on the same data: 3 of 1, 2, 3, 4;
// in-sample), and not for a single row of tiles (M <= 128: the validation sweep,
// docs/data/h200_2026-12-01_paired_pingpong_default.json, had it 5-14% behind the cooperative kernels at 128
// x 55296 and 128 x 57344, and within +-1.5% at M = 256).
inline constexpr int64_t kPingPong128x128ColumnCostPercent = 95;
inline constexpr int64_t kPingPongMinWaves = 3;
inline constexpr int64_t kPingPongMinRowTiles = 2;
// Ping-pong tiles of 128 x 160 per consumer (GemmPingPong128x160): per column as fast as the 128 x 128 ones,
// so of the two the choice takes the fewer waves times the width, with B N x K only. Fitted on the H200
// (2026-12-02, docs/data/h200_2026-12-02_paired_tiles160_candidates.json: forced on the sweep at M =
// 512..16384, both types and B layouts) over the 228 points where the default took the ping-pong kernel: per
// column 94.7% of the 128 x 256 tile's in geomean (89-99 per point); of 90..100, 94 gave the highest geomean
// there (in-sample). Checked with the choice built in
// (docs/data/h200_2026-12-02_paired_pp160_sweep_run3.json, _validation_run3.json): on the 128 points it
// changed, 1.006x of the default without it with B N x K and 0.996x with B K x N (the unchanged
// points 1.0004x between the two measurements); on bench/validation_shapes.txt (other models, against
// GemmPingPong128x128 forced in the same binary), 1.016x with B N x K and 0.997x with B K x N once the
// same-kernel ratio of that measurement (0.993x, 0.984x: the later candidate's hotter GPU) is divided out.
// With B K x N the tile's third B chunk is half unused (kBMnChunks), as for GemmTile128x160, so there it is
// not weighed.
inline constexpr int64_t kPingPong128x160ColumnCostPercent = 94;

// The time per column of a tile width, in percent of the 128 x 256 tile's.
constexpr int64_t tiled_column_cost_percent(int64_t block_n) {
  return block_n == 256   ? kTile128x256ColumnCostPercent
         : block_n == 192 ? kTile128x192ColumnCostPercent
         : block_n == 160 ? kTile128x160ColumnCostPercent
                          : kTile128x128ColumnCostPercent;
}

// The modelled time of 128 x block_n tiles with K split over clusters of `split` CTAs:
//   ceil(tiles · split / resident CTAs) · block_n · tiled_column_cost_percent(block_n)
//   · (split > 1 ? ceil(K blocks / split) · kSplitKBlockCostPercent + 100 · kSplitReductionKBlocks
//                : 100 · K blocks),
// resident CTAs = resident_clusters (of `split` CTAs) · split. With split 1 and resident_tiles CTAs this is
// wave_cost times the K blocks: the choice among tile widths without a split is the same.
constexpr int64_t tiled_split_cost(int64_t m, int64_t n, int64_t k, int64_t batch, int64_t block_n,
                                   int64_t split, int64_t resident_clusters) {
  const int64_t tiles = ceil_div(m, int64_t{128}) * ceil_div(n, block_n) * batch;
  const int64_t resident_ctas = (resident_clusters < 1 ? int64_t{1} : resident_clusters) * split;
  const int64_t k_blocks = ceil_div(k, kTiledBlockK);
  const int64_t per_cta =
      split > 1 ? ceil_div(k_blocks, split) * kSplitKBlockCostPercent + 100 * kSplitReductionKBlocks
                : 100 * k_blocks;
  return ceil_div(tiles * split, resident_ctas) * per_cta * block_n * tiled_column_cost_percent(block_n);
}

// The split of K for 128 x block_n tiles (what Gemm<Cfg>::run takes for split_k 0): the one of
// kSplitKChoices with the lowest tiled_split_cost; never more CTAs per tile than K blocks; ties go to the
// smaller split.
constexpr int choose_tiled_split_k(int64_t m, int64_t n, int64_t k, int64_t batch, int64_t block_n,
                                   const int64_t (&resident)[kSplitKChoiceCount]) {
  return lowest_cost_split_k(ceil_div(k, kTiledBlockK), resident, [&](int i, int s) {
    return tiled_split_cost(m, n, k, batch, block_n, s, resident[i]);
  });
}

// ---- stream-K over 128 x 256 tiles (GemmStreamK128x256) --------------------------------------------------
// The last wave's tiles are split no finer than kStreamKMinKBlocksPerCta K blocks per range
// (sched::StreamK::plan), so that a range at least fills the pipeline (a floor, not measured).
inline constexpr int32_t kStreamKMinKBlocksPerCta = 8;

// The stream-K work of `tiles` tiles of k_blocks K blocks on `ctas` CTAs (sched::StreamK::plan); false
// where (tiles + ctas) · K blocks does not fit in 32 bits (the kernel's iteration numbers).
constexpr bool stream_k_work_blocks(int64_t tiles, int64_t k_blocks, int64_t ctas, sched::StreamK::Work* w) {
  if (ctas < 1 || (tiles + ctas) * k_blocks > INT32_MAX) return false;
  *w = sched::StreamK::plan(static_cast<int32_t>(tiles), static_cast<int32_t>(k_blocks),
                            static_cast<int32_t>(ctas), kStreamKMinKBlocksPerCta);
  return true;
}

// Stream-K's cost beyond each split range's K blocks, in K blocks of a 128 x 256 tile (about 0.7 us each
// on the H200): every split CTA writes its 128 KiB of partial sums at once (e.g. 112 x 128 KiB = 14 MiB,
// about 3 us at L2 rates: kStreamKHandOffKBlocks) and each head reads its tile's other splits - 1 partials
// (kStreamKPartialKBlocks each). Estimated, then checked on the H200 (2026-12-02,
// docs/data/h200_2026-12-02_paired_streamk_candidates.json and _default.json, paired against the default
// without a workspace at M = 512..2048 over the model sweep, both types and B layouts, in sample): 0.964x of
// cuBLASLt in geomean against 0.960x without stream-K and 0.968x for the better of the two per shape; other
// values from 0-24 and 0-6 gave 0.955-0.964x.
inline constexpr int64_t kStreamKHandOffKBlocks = 4;
inline constexpr int64_t kStreamKPartialKBlocks = 2;
// The modelled time of GemmStreamK128x256 on `ctas` CTAs, in tiled_split_cost's units: its whole waves of
// 128 x 256 tiles, then one split range plus the hand-off, at the 128 x 256 tile's cost per column.
// INT64_MAX (never chosen) where the work does not fit the kernel's 32-bit iterations, where nothing is
// split (the kernel is then GemmTile128x256's), and where there is no whole wave before the split: then the
// split alone competes with the cluster split of K and lost to it (same data, M = 256: the model took
// stream-K on 20 shapes and it ran 0.58-1.00x of cuBLASLt against 0.70-1.02x; it won only at K = 27648).
constexpr int64_t stream_k_cost(int64_t m, int64_t n, int64_t k, int64_t batch, int64_t ctas) {
  const int64_t tiles = ceil_div(m, int64_t{128}) * ceil_div(n, int64_t{256}) * batch;
  sched::StreamK::Work w;
  if (!stream_k_work_blocks(tiles, ceil_div(k, kBlockK), ctas, &w)) return INT64_MAX;
  if (w.sk_ctas == 0 || w.dp_tiles == 0) return INT64_MAX;
  const int64_t blocks = int64_t{w.dp_tiles} / w.ctas * w.k_blocks +
                         ceil_div(int64_t{w.k_blocks}, int64_t{w.sk_splits}) + kStreamKHandOffKBlocks +
                         (w.sk_splits - 1) * kStreamKPartialKBlocks;
  return blocks * 100 * 256 * kTile128x256ColumnCostPercent;
}

// ---- the swap-AB kernels' split of K
// ----------------------------------------------------------------------- A split's cost over its K blocks,
// in percent: every CTA of a split writes, synchronises and reduces its partials, and streams a shorter run
// of each weight row. Measured on an H200 (2026-12-01, the swap-AB split forced to 1, 2, 4, 8: 2 CTAs per
// tile cost 0-15% more than the K blocks alone predict, 4 and 8 CTAs 15-50% more; the fit's data was not
// kept; checked in docs/data/h200_2026-12-01_paired_decode_candidates.json: within 0.13% of the best forced
// split).
inline constexpr int64_t kSplitCostPercent[4] = {100, 115, 150, 200};
// Configs whose consumer threads each hold more than kSplitLightPartialWords accumulator words (Weights x
// kAccRegs: the 160-token dual pairs' 2 x 80; every other shipped Config 128 or fewer) split at
// kHeavySplitCostPercent: fitted on an H200 (2026-12-03,
// docs/data/h200_2026-12-03_paired_dual_tokens160_splits.json: DualGemmSwapAbTokens160 forced to 1, 2 and 4
// CTAs per tile at M = 136 and 160 on 12 models' gate/up projections, the time ratio to one CTA over the
// ratio of waves x K blocks): 2 CTAs 145 (123-184 per shape), 4 CTAs 195 (148-270); 8 not measured (260: the
// light table's ratio of 8 to 4 carried over). With the light table the default split these pairs in two at N
// = 8960-12288 and ran 1.2-1.6x slower than one CTA per tile or stream-K.
inline constexpr int kSplitLightPartialWords = 128;
inline constexpr int64_t kHeavySplitCostPercent[4] = {100, 145, 195, 260};

// The split the default choice takes: the one that minimises waves · ceil(K blocks / s) · cost[s], where a
// wave is as many tiles as clusters of that size fit on the device at once (resident[i] for
// kSplitKChoices[i]); never more CTAs per tile than K blocks; ties go to the smaller split.
constexpr int64_t swap_ab_split_cost(int64_t tiles, int64_t k_blocks, const int64_t (&resident)[4], int i,
                                     const int64_t (&cost)[4] = kSplitCostPercent) {
  const int64_t waves = ceil_div(tiles, resident[i] < 1 ? int64_t{1} : resident[i]);
  return waves * ceil_div(k_blocks, int64_t{kSplitKChoices[i]}) * cost[i];
}
constexpr int choose_split_k(int64_t tiles, int64_t k_blocks, const int64_t (&resident)[4],
                             const int64_t (&cost)[4] = kSplitCostPercent) {
  return lowest_cost_split_k(
      k_blocks, resident, [&](int i, int) { return swap_ab_split_cost(tiles, k_blocks, resident, i, cost); });
}

// Stream-K against the cluster split, for the default choice (a call with a workspace): stream-K costs
// (ceil(tiles · K blocks / resident CTAs) + kSwapAbStreamKFixedKBlocks) · 100, the tiles those of the 64-row
// Configs (the stream-K Configs' 128-row tiles move the same bytes per K block in two), and is taken only
// above one wave of tiles where that is below choose_split_k's cost. Measured on an H200 (2026-12-02,
// docs/data/h200_2026-12-02_paired_swapab_streamk_candidates.json and _sweep.json; bf16 and fp16, M = 1..64,
// both B layouts, the model sweep and six other models' projections): stream-K won by 2-36% where the tiles'
// last wave was short (N = 10240, 18944, 28672, 37888, 55296 in 64-row tiles), lost 3-8% at N = 14336 with K
// = 3584 (224 tiles: two waves, the second 70% full) and 1.5-20% at one wave or less (N <= 8192): its CTAs at
// staggered K offsets stream the weights about 8% slower than whole tiles do (3.3-3.5 against 3.6-3.9 TB/s)
// and the last hand-off's round trip through L2 ends the call. The fixed 20 K blocks lie between the 16 at
// which N = 14336 ties and the 28 at which N = 37888 (stream-K 1-7% ahead) would flip: a boundary fitted on
// those two files, not checked on other data.
inline constexpr int64_t kSwapAbStreamKFixedKBlocks = 20;
constexpr bool swap_ab_stream_k_pays(int64_t tiles, int64_t k_blocks, const int64_t (&resident)[4],
                                     const int64_t (&cost)[4] = kSplitCostPercent) {
  if (resident[0] < 1 || tiles <= resident[0]) return false;
  const int split = choose_split_k(tiles, k_blocks, resident, cost);
  int i = 0;
  while (kSplitKChoices[i] != split) ++i;
  return (ceil_div(tiles * k_blocks, resident[0]) + kSwapAbStreamKFixedKBlocks) * 100 <
         swap_ab_split_cost(tiles, k_blocks, resident, i, cost);
}

// ---- the GEMM's M bands: swap AB or tiled
// ------------------------------------------------------------------ The swap-AB kernels for M <=
// kGemmSwapAbMaxM (tokens), and up to kGemmSwapAbMaxMNarrow when N is below gemm_swap_ab_max_narrow_n: the
// crossover measured on an H200 over the model sweep (2026-12-01, docs/data/h200_2026-12-01_decode.json;
// docs/api.md's choice table). At M = 128 the tiled kernels won where their 128 x 128 tiles filled the SMs (N
// >= 10240) and lost where they did not (N <= 5120; K >= 14336).
inline constexpr int64_t kGemmSwapAbMaxM = 64;
inline constexpr int64_t kGemmSwapAbMaxMNarrow = 128;
// 128 x 128 tiles for half the SMs: 66 x 128 on an H200 (same data).
constexpr int64_t gemm_swap_ab_max_narrow_n(const DeviceFacts& d) {
  return resident_tiles(d) / 2 * 128;
}
// 128 < M <= kGemmSwapAbTokens160MaxM, whatever N: one swap-AB tile of 160 tokens (GemmSwapAbTokens160) holds
// every row, where the tiled kernels compute a second 128-row tile of 1-32 rows whole. Measured on an H200
// (2026-12-02, docs/data/h200_2026-12-02_paired_tokens_candidates_half_tile.json and _small_n.json, paired
// against cuBLASLt at M = 136 and 160 on the sweep's and three other models' projections, both B layouts):
// 1.092x the tiled default's speed in geomean, ahead on 75 of 96 points (0.86-0.98x at N = 4096, 7168 and
// 8192 x 3584); at M = 192 the 192-token tile ran 0.96x of the tiled default and 256 tokens spill, so M > 160
// stays tiled (but see gemm_swap_ab_tokens192_max_tiles).
inline constexpr int64_t kGemmSwapAbTokens160MaxM = 160;
// 160 < M <= kGemmSwapAbTokens192MaxM where the 192-token tiles (GemmSwapAbTokens192, 128 weight rows each)
// number gemm_swap_ab_tokens192_min_tiles..max_tiles (ceil(N / 128) x batch): there choose_split_k runs the
// tiles on clusters of 4 or 8 CTAs in one wave over more than half the SMs, where the tiled kernels' two
// 128-row tiles per column fill fewer. Measured on an H200 (2026-12-04, paired, both B layouts):
// docs/data/h200_2026-12-04_paired_tokens192_splits.json (bf16, M = 168, 176, 192 on six models'
// projections): at N = 3584 (28 tiles) 1.05-1.25x the tiled kernels' speed, at N = 4096 (32 tiles: 32
// clusters of 4 do not fit at once, so the split is 2) 0.69-0.77x, at N = 4608..8192 with K <= 8192
// 0.76-1.01x; docs/data/h200_2026-12-04_paired_tokens192_narrow.json (bf16 and fp16, M = 161, 170, 184, 192
// on the narrow projections of seven other models): at 12-28 tiles 1.07x in geomean (0.96-1.28x), at 4
// tiles (512 x 3584: a split of 8 is 32 CTAs, where the tiled kernels split twice as many tiles) 0.80x, at 8
// tiles (1024 x 4096) 0.97-1.01x: hence more tiles than the clusters of 8 in half the SMs (9 on 132 SMs).
// The upper bound, 28 on 132 SMs: the most tiles of the fit set in one wave of clusters of 4
// (docs/data/h200_2026-12-04_paired_tokens192_bounds.json: 29 and 30 tiles also gained forced to the split of
// 4, 1.02-1.15x; 32 did not), scaled with the SM count; not read from the device's clusters.
inline constexpr int64_t kGemmSwapAbTokens192MaxM = 192;
inline constexpr int64_t kGemmSwapAbTokens192MaxTilesPer132Sms = 28;
constexpr int64_t gemm_swap_ab_tokens192_min_tiles(const DeviceFacts& d) {
  return resident_tiles(d) / 2 / 8 + 1;
}
constexpr int64_t gemm_swap_ab_tokens192_max_tiles(const DeviceFacts& d) {
  return resident_tiles(d) * kGemmSwapAbTokens192MaxTilesPer132Sms / 132;
}
// GemmSwapAbTokens192's weight rows per tile (catalogue.cuh checks it).
inline constexpr int64_t kTokens192BlockWeights = 128;
// Whether N x batch makes gemm_swap_ab_tokens192_min_tiles..max_tiles tiles of GemmSwapAbTokens192.
constexpr bool tokens192_tiles_in_range(int64_t n, int64_t batch, const DeviceFacts& d) {
  const int64_t tiles = ceil_div(n, kTokens192BlockWeights) * batch;
  return tiles >= gemm_swap_ab_tokens192_min_tiles(d) && tiles <= gemm_swap_ab_tokens192_max_tiles(d);
}

// ---- the GEMM's choice
// --------------------------------------------------------------------------------------- Whether `choice` is
// one of the swap-AB kernels (gemm_swap_ab_choice) rather than a tiled one.
constexpr bool is_swap_ab_choice(GemmChoice choice) {
  return choice == GemmChoice::kSwapAbTokens16 || choice == GemmChoice::kSwapAbTokens32 ||
         choice == GemmChoice::kSwapAbTokens64 || choice == GemmChoice::kSwapAbTokens128 ||
         choice == GemmChoice::kSwapAbTokens160 || choice == GemmChoice::kSwapAbTokens192;
}

// The tiles of a swap-AB choice's Configs (sm90/catalogue.cuh: GemmSwapAbTokens*, GemmSwapAbStreamKTokens*).
// Tiles of 64 weight rows with 16, 32, 64 or 128 tokens and, for stream-K, of 128 rows (H200, 2026-12-02,
// docs/data/h200_2026-12-02_paired_swapab_streamk_candidates.json: with B K x N the 64-row tiles under
// stream-K lost up to 30%); 160 and 192 tokens in tiles of 128 rows.
constexpr SwapAbShape gemm_swap_ab_shape(GemmChoice choice) {
  switch (choice) {
    case GemmChoice::kSwapAbTokens16:
      return {16, 64, 128, false};
    case GemmChoice::kSwapAbTokens32:
      return {32, 64, 128, false};
    case GemmChoice::kSwapAbTokens64:
      return {64, 64, 128, false};
    case GemmChoice::kSwapAbTokens160:
      return {160, 128, 128, false};
    case GemmChoice::kSwapAbTokens192:
      return {192, 128, 128, false};
    default:
      return {128, 64, 0, false};  // kSwapAbTokens128: at most one wave of tiles, never stream-K
  }
}

// The swap-AB kernel for M tokens (whatever M: more than 192 take several 128-token tiles): the token tile
// that holds M, from 16, 32, 64, 128, 160, 192 (32 tokens measured at M = 32: 0.943x of cuBLASLt where 64
// tokens gave 0.779x, H200, 2026-12-01, docs/data/h200_2026-12-01_dual_tiles_swapab32.json; 17 <= M <= 31
// take it as the smallest tile that holds them, not measured separately).
constexpr GemmChoice gemm_swap_ab_choice(int64_t m) {
  return m <= 16                         ? GemmChoice::kSwapAbTokens16
         : m <= 32                       ? GemmChoice::kSwapAbTokens32
         : m <= 64                       ? GemmChoice::kSwapAbTokens64
         : m <= kGemmSwapAbMaxMNarrow    ? GemmChoice::kSwapAbTokens128
         : m <= kGemmSwapAbTokens160MaxM ? GemmChoice::kSwapAbTokens160
         : m <= kGemmSwapAbTokens192MaxM ? GemmChoice::kSwapAbTokens192
                                         : GemmChoice::kSwapAbTokens128;
}

// The widths of the default choice's one-CTA tiled kernels (128 x block_n tiles), widest first: both
// gemm_tiled_choice and gemm_tiled_plan walk them in this order, so ties go to the wider tile.
struct TiledWidth {
  int64_t block_n;
  GemmChoice choice;
};
inline constexpr TiledWidth kTiledWidths[] = {{256, GemmChoice::kTile128x256},
                                              {192, GemmChoice::kTile128x192},
                                              {160, GemmChoice::kTile128x160},
                                              {128, GemmChoice::kTile128x128}};
// Whether a width is in the choice for M rows and B's layout: every width, but 160 with B K x N only from
// kTile128x160MnMajorMinRowTiles rows of tiles.
constexpr bool tiled_width_allowed(int64_t block_n, int64_t m, BLayout b_layout) {
  return block_n != 160 || b_layout != BLayout::kRowMajorKxN ||
         ceil_div(m, int64_t{128}) >= kTile128x160MnMajorMinRowTiles;
}

// The ping-pong kernels' widths (GemmPingPong128x128: 128 x 128 tiles per consumer, GemmPingPong128x160: 128
// x 160), in the order the choice walks them (ties to the first).
inline constexpr TiledWidth kPingPongWidths[] = {{128, GemmChoice::kPingPong128x128},
                                                 {160, GemmChoice::kPingPong128x160}};
constexpr int64_t ping_pong_column_cost_percent(int64_t block_n) {
  return block_n == 160 ? kPingPong128x160ColumnCostPercent : kPingPong128x128ColumnCostPercent;
}
// Whether a ping-pong width is weighed for B's layout: 160 with B N x K only
// (kPingPong128x160ColumnCostPercent).
constexpr bool ping_pong_width_allowed(int64_t block_n, BLayout b_layout) {
  return block_n != 160 || b_layout != BLayout::kRowMajorKxN;
}

// The ping-pong kernel of lowest wave_cost (kPingPongWidths, those ping_pong_width_allowed takes) and that
// cost.
struct PingPongPlan {
  GemmChoice choice;
  int64_t cost;
};
constexpr PingPongPlan cheapest_ping_pong(int64_t m, int64_t n, int64_t batch, BLayout b_layout,
                                          const DeviceFacts& d) {
  PingPongPlan best{GemmChoice::kPingPong128x128, INT64_MAX};
  for (const TiledWidth& w : kPingPongWidths) {
    if (!ping_pong_width_allowed(w.block_n, b_layout)) continue;
    const int64_t cost = wave_cost(m, n, batch, w.block_n, ping_pong_column_cost_percent(w.block_n), d);
    if (cost < best.cost) best = {w.choice, cost};
  }
  return best;
}

// The tiled kernel for a shape: of kTiledWidths (those tiled_width_allowed takes), the one with the lowest
// wave_cost (ties to the wider tile); the cheaper ping-pong kernel (cheapest_ping_pong) instead where the
// shape has more than kPingPongMinWaves waves of 128 x 128 tiles, at least kPingPongMinRowTiles rows of them,
// and that kernel costs strictly less. (The CTA pairs of GemmTile128x256Cluster2 are not in the choice: where
// prefer_cluster_pair would take them, >= 132 pair tiles on an H200, i.e. > 3 x 132 tiles of 128 x 128, the
// ping-pong cost is the lower; a brute-force check over M <= 51200, N <= 33280, batch 1-8 found no shape
// where it is not.)
constexpr GemmChoice gemm_tiled_choice(int64_t m, int64_t n, int64_t batch, BLayout b_layout,
                                       const DeviceFacts& d) {
  int64_t best = INT64_MAX;
  GemmChoice choice = GemmChoice::kTile128x256;
  for (const TiledWidth& w : kTiledWidths) {
    if (!tiled_width_allowed(w.block_n, m, b_layout)) continue;
    const int64_t cost = wave_cost(m, n, batch, w.block_n, tiled_column_cost_percent(w.block_n), d);
    if (cost < best) best = cost, choice = w.choice;
  }
  const PingPongPlan ping_pong = cheapest_ping_pong(m, n, batch, b_layout, d);
  const int64_t row_tiles = ceil_div(m, int64_t{128});
  const int64_t small_tiles = row_tiles * ceil_div(n, int64_t{128}) * batch;
  if (small_tiles > kPingPongMinWaves * resident_tiles(d) && row_tiles >= kPingPongMinRowTiles &&
      ping_pong.cost < best)
    return ping_pong.choice;
  return choice;
}

// The default entry point's tiled kernel and split of K for a shape.
struct GemmTiledPlan {
  GemmChoice choice;  // a kTile*, kPingPong* or (split 1) kStreamK128x256 choice
  int split_k;        // 1, or 2, 4, 8 (then a one-CTA kernel)
};

// The (tile width, split) of lowest tiled_split_cost over {128 x 256, 128 x 192, 128 x 160, 128 x 128} x
// kSplitKChoices, resident the resident clusters of each split size (0: that size cannot be placed, never
// chosen); never more CTAs per tile than K blocks; ties go to the smaller split, then to the wider tile.
// Without a split it is gemm_tiled_choice's kernel (with resident_tiles CTAs the two models agree on the
// tile width).
//
// stream_k_ctas > 0 (the call has a workspace large enough for GemmStreamK128x256's launch on that many
// CTAs): GemmStreamK128x256 instead where stream_k_cost is strictly below that plan's modelled time (the
// ping-pong kernel's its wave_cost at its cost per column times the K blocks).
constexpr GemmTiledPlan gemm_tiled_plan(int64_t m, int64_t n, int64_t k, int64_t batch, BLayout b_layout,
                                        int64_t stream_k_ctas, const DeviceFacts& d) {
  const int64_t k_blocks = ceil_div(k, kTiledBlockK);
  int best_split = 1;
  GemmChoice best_kernel = GemmChoice::kTile128x256;
  int64_t best_cost = -1;
  for (int i = 0; i < kSplitKChoiceCount; ++i) {
    if (!split_k_allowed(i, k_blocks, d.resident_clusters)) continue;
    const int s = kSplitKChoices[i];
    for (const TiledWidth& w : kTiledWidths) {
      if (!tiled_width_allowed(w.block_n, m, b_layout)) continue;
      const int64_t cost = tiled_split_cost(m, n, k, batch, w.block_n, s, d.resident_clusters[i]);
      if (best_cost < 0 || cost < best_cost) best_split = s, best_kernel = w.choice, best_cost = cost;
    }
  }
  const GemmTiledPlan plan = best_split == 1 ? GemmTiledPlan{gemm_tiled_choice(m, n, batch, b_layout, d), 1}
                                             : GemmTiledPlan{best_kernel, best_split};
  if (stream_k_ctas > 0) {
    const bool ping_pong =
        plan.choice == GemmChoice::kPingPong128x128 || plan.choice == GemmChoice::kPingPong128x160;
    const int64_t plan_cost =
        ping_pong ? cheapest_ping_pong(m, n, batch, b_layout, d).cost * 100 * k_blocks : best_cost;
    if (stream_k_cost(m, n, k, batch, stream_k_ctas) < plan_cost) return {GemmChoice::kStreamK128x256, 1};
  }
  return plan;
}

// The default entry point's kernel for a shape (a tiled kernel: gemm_tiled_plan adds the split).
constexpr GemmChoice gemm_choice(int64_t m, int64_t n, int64_t batch, BLayout b_layout,
                                 const DeviceFacts& d) {
  // Swap AB up to 64 tokens; to 128 where N is narrow; from 129 to 160 whatever N; from 161 to 192 over few
  // tiles.
  if (m <= kGemmSwapAbMaxM ||
      (m <= kGemmSwapAbMaxMNarrow ? n < gemm_swap_ab_max_narrow_n(d) : m <= kGemmSwapAbTokens160MaxM) ||
      (m <= kGemmSwapAbTokens192MaxM && tokens192_tiles_in_range(n, batch, d)))
    return gemm_swap_ab_choice(m);
  return gemm_tiled_choice(m, n, batch, b_layout, d);
}

// A swap-AB choice's plan: its stream-K launch where the call has a workspace (large enough: the entry point
// checks), the choice has a stream-K Config, swap_ab_stream_k_pays on the cluster-split Config's tiles and
// the stream-K launch's units fit 31 bits; else the cluster split of choose_split_k.
struct SwapAbPlan {
  int split_k;
  bool stream_k;
};
constexpr SwapAbPlan swap_ab_plan(const SwapAbShape& s, int64_t m, int64_t n, int64_t k, int64_t batch,
                                  bool has_workspace, const DeviceFacts& d) {
  const int64_t tiles = ceil_div(m, s.block_tokens) * ceil_div(n, s.block_weights) * batch;
  const int64_t k_blocks = ceil_div(k, kBlockK);
  const int64_t(&cost)[4] = s.heavy_split ? kHeavySplitCostPercent : kSplitCostPercent;
  if (has_workspace && s.stream_k_block_weights > 0 &&
      swap_ab_stream_k_pays(tiles, k_blocks, d.resident_clusters, cost) &&
      ceil_div(m, s.block_tokens) * ceil_div(n, s.stream_k_block_weights) * batch * k_blocks <= INT32_MAX)
    return {1, true};
  return {choose_split_k(tiles, k_blocks, d.resident_clusters, cost), false};
}

// The plan sm90::gemm runs for a shape on a device with facts `d`: gemm_choice's kernel, with a tiled kernel
// gemm_tiled_plan's split (and stream-K, given a workspace), with a swap-AB kernel swap_ab_plan's.
// has_workspace: the call's workspace holds the chosen stream-K launch's bytes (sm90::gemm_workspace_bytes
// asks the plan with true).
constexpr GemmPlan gemm_plan(int64_t m, int64_t n, int64_t k, int64_t batch, BLayout b_layout,
                             bool has_workspace, const DeviceFacts& d) {
  const GemmChoice choice = gemm_choice(m, n, batch, b_layout, d);
  if (is_swap_ab_choice(choice)) {
    const SwapAbPlan p = swap_ab_plan(gemm_swap_ab_shape(choice), m, n, k, batch, has_workspace, d);
    return {choice, p.split_k, p.stream_k};
  }
  int64_t stream_k_ctas = 0;
  if (has_workspace) {
    sched::StreamK::Work w;
    const int64_t tiles = ceil_div(m, int64_t{128}) * ceil_div(n, int64_t{256}) * batch;
    if (stream_k_work_blocks(tiles, ceil_div(k, kBlockK), d.resident_clusters[0], &w))
      stream_k_ctas = d.resident_clusters[0];
  }
  const GemmTiledPlan p = gemm_tiled_plan(m, n, k, batch, b_layout, stream_k_ctas, d);
  return {p.choice, p.split_k, p.choice == GemmChoice::kStreamK128x256};
}

// ---- the dual GEMM's choice
// -------------------------------------------------------------------------------- Rows (tokens) up to which
// the swap-AB kernels are chosen: the crossover measured on an H200 over the model sweep (2026-12-01,
// docs/data/h200_2026-12-01_decode.json: at M = 128 the tiled kernels were 0.97-1.0x of the faster unfused
// variant, the swap-AB ones 0.87-0.90x; docs/api.md's choice table).
inline constexpr int64_t kDualGemmSwapAbMaxM = 64;
// kDualGemmSwapAbTokens160MinM <= M <= kDualGemmSwapAbTokens160MaxM (one row past a 128-row tile up to 160):
// one swap-AB tile of 160 tokens (DualGemmSwapAbTokens160) holds every row, where the tiled kernels compute a
// second row tile of 1-32 rows whole (the GEMM's kGemmSwapAbTokens160MaxM carried over; measured on the
// H200, 2026-12-03, docs/data/h200_2026-12-03_paired_dual_tokens160.json).
inline constexpr int64_t kDualGemmSwapAbTokens160MinM = 129;
inline constexpr int64_t kDualGemmSwapAbTokens160MaxM = 160;

// The swap-AB kernel for M tokens (whatever M: more than 160 take several 128-token tiles).
constexpr DualGemmChoice dual_gemm_swap_ab_choice(int64_t m) {
  return m <= 16                             ? DualGemmChoice::kSwapAbTokens16
         : m <= 64                           ? DualGemmChoice::kSwapAbTokens64
         : m < kDualGemmSwapAbTokens160MinM  ? DualGemmChoice::kSwapAbTokens128
         : m <= kDualGemmSwapAbTokens160MaxM ? DualGemmChoice::kSwapAbTokens160
                                             : DualGemmChoice::kSwapAbTokens128;
}
// Whether `choice` is one of the swap-AB pairs.
constexpr bool is_dual_swap_ab_choice(DualGemmChoice choice) {
  return choice == DualGemmChoice::kSwapAbTokens16 || choice == DualGemmChoice::kSwapAbTokens64 ||
         choice == DualGemmChoice::kSwapAbTokens128 || choice == DualGemmChoice::kSwapAbTokens160;
}
// The tiles of a dual swap-AB choice's Config (DualGemmSwapAbTokens*: 64 weight rows of each matrix; the
// 64-row pairs run stream-K themselves, the dual GEMM's weights being N x K, where 64- and 128-row tiles
// streamed alike; DualGemmSwapAbTokens128 never: its shapes have at most one wave of tiles). The 160-token
// pairs hold 2 x 80 accumulator words per thread: the heavy split costs.
constexpr SwapAbShape dual_gemm_swap_ab_shape(DualGemmChoice choice) {
  switch (choice) {
    case DualGemmChoice::kSwapAbTokens16:
      return {16, 64, 64, false};
    case DualGemmChoice::kSwapAbTokens64:
      return {64, 64, 64, false};
    case DualGemmChoice::kSwapAbTokens160:
      return {160, 64, 64, true};
    default:
      return {128, 64, 0, false};
  }
}

// The cost per column of a wave of 128 x 64 dual tiles relative to 128 x 128 ones, in percent: 106, the
// geomean over the model sweep's gate/up projections at M = 512..4096 on the H200 (2026-12-01,
// docs/data/h200_2026-12-01_dual_tiles_swapab32.json: 1.00-1.10 per shape, 1.22 once). The 128 x 128 tiles
// are the reference (100).
inline constexpr int64_t kDualTile128x128ColumnCostPercent = 100;
inline constexpr int64_t kDualTile128x64ColumnCostPercent = 106;
// The ping-pong kernel (DualGemmPingPong64x128) where it has more than kDualPingPongMinWaves waves of its 64
// x 128 tile pairs: fitted on the H200, paired over the model sweep's gate/up projections at M = 256..16384
// (2026-12-02, docs/data/h200_2026-12-02_paired_dual_pingpong.json, in-sample): above 4 waves it was at or
// above the cooperative kernels on 17 of 18 shapes (-1.5% at 16384 x 28672 x 8192; M >= 512 geomean 1.056x of
// the faster unfused variant against 1.030x), at 3.4 waves (256 x 14336) 1.5% behind.
inline constexpr int64_t kDualPingPongMinWaves = 4;
// 64 x 96 ping-pong tile pairs (DualGemmPingPong64x96): per column 101% of the 64 x 128 pairs' time, fitted
// on the H200 (2026-12-02, docs/data/h200_2026-12-02_paired_dual96_candidates.json: both forced on the
// sweep's gate/up projections at M = 256..16384, the time ratio over the ratio of waves x widths: 99.5-102.3
// per shape, 100.8 in geomean). Where both ping-pong kernels have more than kDualPingPongMinWaves waves of
// their tiles the choice takes the fewer waves times the width (e.g. N = 27648 = 288 x 96: at M = 512, 1728
// tiles of 128 in 14 waves, 2304 of 96 in 18, 1792 against 1745; paired 1.012x of the faster unfused variant
// against 0.980x), where only the 96-column one has, that one (M = 128..256 with N >= about 25000, and 256 x
// 14336: 1.013-1.090x against 0.929-1.013x).
inline constexpr int64_t kDualPingPong64x128ColumnCostPercent = 100;
inline constexpr int64_t kDualPingPong64x96ColumnCostPercent = 101;

// The waves of 64 x block_n ping-pong tile pairs times the width in percent of a column (wave_cost's units
// for 64-row tiles), or INT64_MAX where they are not more than kDualPingPongMinWaves waves.
constexpr int64_t dual_ping_pong_cost(int64_t m, int64_t n, int64_t batch, int64_t block_n, int64_t percent,
                                      const DeviceFacts& d) {
  const int64_t tiles = ceil_div(m, int64_t{64}) * ceil_div(n, block_n) * batch;
  if (tiles <= kDualPingPongMinWaves * resident_tiles(d)) return INT64_MAX;
  return ceil_div(tiles, resident_tiles(d)) * block_n * percent;
}

// The tiled kernel for a shape: a ping-pong kernel where one has more than kDualPingPongMinWaves waves of its
// tiles (64 x 128 or 64 x 96 pairs; of two, the lower dual_ping_pong_cost, ties to 128); else BlockN 64 for
// M·batch <= 256 and wherever its waves cost less than BlockN 128's (wave_cost: e.g. M = 1152, N = 4096 on
// 132 SMs: 288 tiles of 128 = 3 waves, 576 of 64 = 5 waves, 38400 against 33920), else BlockN 128, in CTA
// pairs where every pair gets enough tiles (prefer_cluster_pair).
constexpr DualGemmChoice dual_gemm_tiled_choice(int64_t m, int64_t n, int64_t batch, const DeviceFacts& d) {
  const int64_t ping_pong = dual_ping_pong_cost(m, n, batch, 128, kDualPingPong64x128ColumnCostPercent, d);
  const int64_t ping_pong96 = dual_ping_pong_cost(m, n, batch, 96, kDualPingPong64x96ColumnCostPercent, d);
  if (ping_pong96 < ping_pong) return DualGemmChoice::kPingPong64x96;
  if (ping_pong != INT64_MAX) return DualGemmChoice::kPingPong64x128;
  if (m * batch <= 256) return DualGemmChoice::kTile128x64;
  if (wave_cost(m, n, batch, 64, kDualTile128x64ColumnCostPercent, d) <
      wave_cost(m, n, batch, 128, kDualTile128x128ColumnCostPercent, d))
    return DualGemmChoice::kTile128x64;
  return prefer_cluster_pair(ceil_div(m, int64_t{128}), ceil_div(n, int64_t{128}), batch, d)
             ? DualGemmChoice::kTile128x128Cluster2
             : DualGemmChoice::kTile128x128;
}

// The default entry point's kernel for a shape.
constexpr DualGemmChoice dual_gemm_choice(int64_t m, int64_t n, int64_t batch, const DeviceFacts& d) {
  const bool swap_ab =
      m <= kDualGemmSwapAbMaxM || (m >= kDualGemmSwapAbTokens160MinM && m <= kDualGemmSwapAbTokens160MaxM);
  return swap_ab ? dual_gemm_swap_ab_choice(m) : dual_gemm_tiled_choice(m, n, batch, d);
}

// The plan sm90::dual_gemm runs: dual_gemm_choice's kernel, a swap-AB one with swap_ab_plan's split or
// stream-K (has_workspace: the call's workspace holds that launch's bytes), a tiled one whole.
constexpr DualGemmPlan dual_gemm_plan(int64_t m, int64_t n, int64_t k, int64_t batch, bool has_workspace,
                                      const DeviceFacts& d) {
  const DualGemmChoice choice = dual_gemm_choice(m, n, batch, d);
  if (!is_dual_swap_ab_choice(choice)) return {choice, 1, false};
  const SwapAbPlan p = swap_ab_plan(dual_gemm_swap_ab_shape(choice), m, n, k, batch, has_workspace, d);
  return {choice, p.split_k, p.stream_k};
}

// ---- the candidates: every plan the default entry points can run for a shape
// ------------------------------- What a tuner measures for a key (docs/tuning.md): every choice of the
// catalogue with each split of kSplitKChoices its Config takes (the one-CTA tiled Configs and the swap-AB
// Configs; not more CTAs than K blocks, only cluster sizes the device places), and the stream-K launches
// where the call has a workspace (the choices with one: GemmStreamK128x256, the swap-AB choices but the
// 128-token ones). Whether a plan is fast is the tuner's to measure; these are the plans run_gemm_plan /
// run_dual_gemm_plan run without a refusal (given valid arguments and, for stream-K, a workspace of the
// launch's bytes).

// Whether a tiled GEMM choice's Config splits K over a cluster (one CTA per cluster, not ping-pong, not
// stream-K, its partials fit over its stages: sm90/catalogue.cuh checks it against the Configs).
constexpr bool gemm_choice_splits_k(GemmChoice c) {
  return c == GemmChoice::kTile128x128 || c == GemmChoice::kTile128x160 || c == GemmChoice::kTile128x192 ||
         c == GemmChoice::kTile128x256 || is_swap_ab_choice(c);
}
constexpr bool dual_gemm_choice_splits_k(DualGemmChoice c) {
  return is_dual_swap_ab_choice(c);
}
// Whether a choice has a stream-K launch.
constexpr bool gemm_choice_has_stream_k(GemmChoice c) {
  return c == GemmChoice::kStreamK128x256 ||
         (is_swap_ab_choice(c) && gemm_swap_ab_shape(c).stream_k_block_weights > 0);
}
constexpr bool dual_gemm_choice_has_stream_k(DualGemmChoice c) {
  return is_dual_swap_ab_choice(c) && dual_gemm_swap_ab_shape(c).stream_k_block_weights > 0;
}

namespace detail {
constexpr bool split_runs(int split_k, int64_t k, const DeviceFacts& d) {
  for (int i = 0; i < kSplitKChoiceCount; ++i)
    if (kSplitKChoices[i] == split_k) return split_k_allowed(i, ceil_div(k, kBlockK), d.resident_clusters);
  return false;
}
// Whether a swap-AB stream-K launch of `s` fits: its units (tiles x K blocks) below 2^31.
constexpr bool swap_ab_stream_k_fits(const SwapAbShape& s, int64_t m, int64_t n, int64_t k, int64_t batch) {
  return s.stream_k_block_weights > 0 &&
         ceil_div(m, s.block_tokens) * ceil_div(n, s.stream_k_block_weights) * batch * ceil_div(k, kBlockK) <=
             INT32_MAX;
}
}  // namespace detail

// Whether the default GEMM entry point's machinery runs `p` for the shape: a split its Config takes (1 for
// every choice; 2, 4, 8 for gemm_choice_splits_k ones, at most the K blocks, cluster sizes the device
// places), stream-K only with a workspace, on a choice that has it, with split_k 1 and work that fits.
constexpr bool gemm_plan_runs(const GemmPlan& p, int64_t m, int64_t n, int64_t k, int64_t batch,
                              bool has_workspace, const DeviceFacts& d) {
  if (static_cast<int>(p.choice) < 0 || static_cast<int>(p.choice) >= kGemmChoiceCount) return false;
  if (p.stream_k) {
    if (!has_workspace || p.split_k != 1 || !gemm_choice_has_stream_k(p.choice)) return false;
    if (p.choice == GemmChoice::kStreamK128x256) {
      sched::StreamK::Work w;
      return stream_k_work_blocks(ceil_div(m, int64_t{128}) * ceil_div(n, int64_t{256}) * batch,
                                  ceil_div(k, kBlockK), d.resident_clusters[0], &w);
    }
    return detail::swap_ab_stream_k_fits(gemm_swap_ab_shape(p.choice), m, n, k, batch);
  }
  if (p.choice == GemmChoice::kStreamK128x256) return false;  // its Config runs stream-K only
  if (p.split_k == 1) return true;
  return gemm_choice_splits_k(p.choice) && detail::split_runs(p.split_k, k, d);
}
constexpr bool dual_gemm_plan_runs(const DualGemmPlan& p, int64_t m, int64_t n, int64_t k, int64_t batch,
                                   bool has_workspace, const DeviceFacts& d) {
  if (static_cast<int>(p.choice) < 0 || static_cast<int>(p.choice) >= kDualGemmChoiceCount) return false;
  if (p.stream_k)
    return has_workspace && p.split_k == 1 && dual_gemm_choice_has_stream_k(p.choice) &&
           detail::swap_ab_stream_k_fits(dual_gemm_swap_ab_shape(p.choice), m, n, k, batch);
  if (p.choice == DualGemmChoice::kTile128x128Cluster2 && d.resident_clusters[1] < 1) return false;
  if (p.split_k == 1) return true;
  return dual_gemm_choice_splits_k(p.choice) && detail::split_runs(p.split_k, k, d);
}

// The most candidates a shape has: 13 choices x 4 splits + 6 stream-K launches (an upper bound), and the
// dual GEMM's 9 x 4 + 4.
inline constexpr int kMaxGemmCandidatePlans = kGemmChoiceCount * kSplitKChoiceCount + 6;
inline constexpr int kMaxDualGemmCandidatePlans = kDualGemmChoiceCount * kSplitKChoiceCount + 4;

// The candidate plans for a shape, in catalogue order (each choice: splits 1, 2, 4, 8, then its stream-K
// launch), written to out[0 .. count) (out holds kMaxGemmCandidatePlans); returns the count. Allocates
// nothing. The rules' own plan (gemm_plan with the same arguments) is always among them.
constexpr int gemm_candidate_plans(int64_t m, int64_t n, int64_t k, int64_t batch, bool has_workspace,
                                   const DeviceFacts& d, GemmPlan* out) {
  int count = 0;
  for (int c = 0; c < kGemmChoiceCount; ++c) {
    for (int i = 0; i < kSplitKChoiceCount; ++i) {
      const GemmPlan p{static_cast<GemmChoice>(c), kSplitKChoices[i], false};
      if (gemm_plan_runs(p, m, n, k, batch, has_workspace, d)) out[count++] = p;
    }
    const GemmPlan sk{static_cast<GemmChoice>(c), 1, true};
    if (gemm_plan_runs(sk, m, n, k, batch, has_workspace, d)) out[count++] = sk;
  }
  return count;
}
constexpr int dual_gemm_candidate_plans(int64_t m, int64_t n, int64_t k, int64_t batch, bool has_workspace,
                                        const DeviceFacts& d, DualGemmPlan* out) {
  int count = 0;
  for (int c = 0; c < kDualGemmChoiceCount; ++c) {
    for (int i = 0; i < kSplitKChoiceCount; ++i) {
      const DualGemmPlan p{static_cast<DualGemmChoice>(c), kSplitKChoices[i], false};
      if (dual_gemm_plan_runs(p, m, n, k, batch, has_workspace, d)) out[count++] = p;
    }
    const DualGemmPlan sk{static_cast<DualGemmChoice>(c), 1, true};
    if (dual_gemm_plan_runs(sk, m, n, k, batch, has_workspace, d)) out[count++] = sk;
  }
  return count;
}

}  // namespace bwgemm::sm90
