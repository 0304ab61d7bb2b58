// bwgemm's Hopper (sm_90a) FP16/BF16 GEMM, fp32 accumulation:
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[k,n,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// The arguments are bwgemm::GemmArguments (arguments/gemm.hpp), the same for every backend: A fp16 or bf16,
// M x K row-major (row stride lda); B of A's type, K x N row-major (BLayout::kRowMajorKxN, ldb >= N) or
// N x K row-major, i.e. K-major (BLayout::kColumnMajorKxN, ldb >= K); C and D M x N row-major in fp16, bf16
// or fp32 (the Config's Out); beta == 0 reads no C (which may then be null); batches at element strides (0:
// packed).
//
//   bwgemm::GemmArguments<__nv_bfloat16> args;               // In = Out = bf16
//   args.m = 4096; args.n = 5120; args.k = 4096;
//   args.a = a; args.b = b; args.b_layout = bwgemm::BLayout::kRowMajorKxN; args.d = d;
//   args.epilogue = {alpha, beta}; args.c = c;               // optional: D = alpha A B + beta C
//   bwgemm::Status s = bwgemm::sm90::gemm(args, stream);     // picks a kernel from the shape
//   // or an explicit kernel:
//   using Cfg = bwgemm::sm90::GemmConfig<256, 4, 2, bwgemm::sched::StaticPersistent,
//                                        bwgemm::epi::LinearCombination, __nv_bfloat16>;
//   s = bwgemm::sm90::Gemm<Cfg>::run(args, stream);
//   // a one-CTA Config with K split over a cluster of 4 CTAs per tile (0: the split chosen from the shape):
//   s = bwgemm::sm90::Gemm<bwgemm::sm90::GemmTile128x256<__nv_bfloat16>>::run(args, stream, /*split_k=*/4);
//
// Shapes: any M >= 1; N and K positive multiples of 8 (rows stay 16-byte aligned); tiles past M, N and K are
// masked (loads zero-filled by TMA, stores skipped). Split K (split_k 2, 4, 8: Configs with ClusterCtas = 1)
// reduces the CTAs' partials inside the cluster in rank order, with no workspace: the same bits on every
// run for a given split (kernels/sm90/split_k.cuh). Leading dimensions and batch strides keep every row
// 16-byte aligned. The call validates everything first (bwgemm::validate, then the Config's tile count) and
// launches nothing on error; it is asynchronous on `stream`, allocates nothing and does not synchronize. The
// kernels need a GPU of compute capability 9.0; bwgemm::gemm (gemm.cuh) dispatches between backends.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm90/gemm_config.cuh"
#include "bwgemm/kernels/sm90/gemm_kernel.cuh"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/split_k.cuh"
#include "bwgemm/sm90/swap_ab.cuh"

namespace bwgemm::sm90 {

// ---- split K for the tiled kernels: the wave-cost model ------------------------------------------------
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
inline constexpr int64_t kTiledBlockK = 64;  // the tiled Configs' K block (GemmConfig::kBlockK)

// The time of one wave of tiles relative to a wave of 128 x 256 tiles at the same K, in percent of the
// columns it covers: 128 x 192 as fast per column, 128 x 128 5% slower (fitted on the H200 over the model
// sweep at M = 512..16384, both B layouts, 2026-12-01; checked in
// docs/data/h200_2026-12-01_tiles_after.json).
inline constexpr int64_t kTile128x256ColumnCostPercent = 100;
inline constexpr int64_t kTile128x192ColumnCostPercent = 100;
inline constexpr int64_t kTile128x128ColumnCostPercent = 105;
// 128 x 160 tiles (GemmTile128x160: N = 5120 and 10240 in whole tiles of 32 and 64 per row of tiles, where
// 128 x 192 and 128 x 256 tiles leave a third of the last wave idle): as fast per column as 128 x 192
// (estimated, then checked on the H200, 2026-12-02, docs/data/h200_2026-12-02_paired_medium160_default.json:
// paired over the model sweep at M =
// 128..4096, it won where it quantized better, e.g. 1024 x 5120 x 5120 0.82x -> 0.96x of cuBLASLt, and the
// other widths or the ping-pong kernel won wherever the model gave them the lower cost).
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
// 512..16384, both types and B layouts) over the 228
// points where the default took the ping-pong kernel: per column 94.7% of the 128 x 256 tile's in geomean
// (89-99 per point); of 90..100, 94 gave the highest geomean there (in-sample). Checked with the choice
// built in (docs/data/h200_2026-12-02_paired_pp160_sweep_run3.json, _validation_run3.json): on the 128 points
// it changed, 1.006x of the default without it with B N x K and 0.996x with B K x N (the unchanged points
// 1.0004x between the two measurements); on bench/validation_shapes.txt (other models, against
// GemmPingPong128x128 forced in the same binary), 1.016x with B N x K and 0.997x with B K x N once the
// same-kernel ratio of that measurement (0.993x, 0.984x: the later candidate's hotter GPU) is divided out.
// With B K x N the tile's third B chunk is half unused (kBMnChunks), as for GemmTile128x160, so there it is
// not weighed.
inline constexpr int64_t kPingPong128x160ColumnCostPercent = 94;
// The time per column of a tile width, in percent of the 128 x 256 tile's (BlockN 64, in no default
// choice, not fitted: counted as 128).
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
// resident CTAs = resident_clusters (of `split` CTAs) · split. With split 1 and 132 resident CTAs this is
// tiled_wave_cost (common.cuh) times the K blocks: the choice among tile widths without a split is the same.
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

// The split of K for 128 x block_n tiles: the one of kSplitKChoices with the lowest tiled_split_cost
// (resident[i]: resident clusters of kSplitKChoices[i] CTAs, 0 where the device cannot place one); never
// more CTAs per tile than K blocks; ties go to the smaller split.
constexpr int choose_tiled_split_k(int64_t m, int64_t n, int64_t k, int64_t batch, int64_t block_n,
                                   const int64_t (&resident)[kSplitKChoiceCount]) {
  return lowest_cost_split_k(ceil_div(k, kTiledBlockK), resident, [&](int i, int s) {
    return tiled_split_cost(m, n, k, batch, block_n, s, resident[i]);
  });
}

// ---- stream-K (sched::StreamK Configs: GemmStreamK128x256)
// ------------------------------------------------------ The workspace of a stream-K launch whose last wave's
// tiles are split over sk_ctas CTAs (GemmArguments::workspace): a 32-bit flag per such CTA, rounded up to
// kStreamKFlagBytesAlign bytes so that the partial slots start aligned (sm90/split_k.cuh), then each one's
// slot of Cfg::kPartialBytes (128 x BlockN fp32 sums); none without a split part. Only the flags must be zero
// before a call, and a call leaves them zero.
template <class Cfg>
constexpr int64_t stream_k_workspace_bytes(int64_t sk_ctas) {
  return round_up(sk_ctas * 4, kStreamKFlagBytesAlign) + sk_ctas * int64_t{Cfg::kPartialBytes};
}
// The last wave's tiles are split no finer than kStreamKMinKBlocksPerCta K blocks per range
// (sched::StreamK::plan), so that a range at least fills the pipeline (a floor, not measured).
inline constexpr int32_t kStreamKMinKBlocksPerCta = 8;

// The stream-K work of `tiles` tiles of K / BlockK K blocks on `ctas` CTAs (sched::StreamK::plan); false
// where (tiles + ctas) · K blocks does not fit in 32 bits (the kernel's iteration numbers).
template <class Cfg>
constexpr bool stream_k_work(int64_t tiles, int64_t k, int64_t ctas, sched::StreamK::Work* w) {
  const int64_t k_blocks = ceil_div(k, int64_t{Cfg::kBlockK});
  if (ctas < 1 || (tiles + ctas) * k_blocks > INT32_MAX) return false;
  *w = sched::StreamK::plan(static_cast<int32_t>(tiles), static_cast<int32_t>(k_blocks),
                            static_cast<int32_t>(ctas), kStreamKMinKBlocksPerCta);
  return true;
}

namespace detail {
// A stream-K launch's work for validated arguments: `requested` CTAs (0: one per resident CTA; at most the
// resident CTAs, so that every CTA of the grid runs at once: a tile's head waits for the others).
template <class Cfg, class Params>
Status stream_k_launch_work(void (*kernel)(const Params), const Params& p, int64_t requested,
                            sched::StreamK::Work* w) {
  int64_t ctas = 0, resident = 0;
  if (Status s = stream_k_grid_ctas<Cfg>(kernel, requested, &ctas, &resident); !s.ok()) return s;
  if (!stream_k_work<Cfg>(p.tiles.total(), p.k, ctas, w))
    return Status::invalid_argument("stream-K: (tiles + CTAs) x K blocks must fit in 32 bits");
  return Status::success();
}

template <class Cfg, class Params>
Status launch_stream_k(void (*kernel)(const Params), Params& p, int64_t requested_ctas, void* workspace,
                       int64_t workspace_bytes, cudaStream_t stream, const LaunchOptions& options) {
  sched::StreamK::Work w;
  if (Status s = stream_k_launch_work<Cfg>(kernel, p, requested_ctas, &w); !s.ok()) return s;
  const int64_t need = stream_k_workspace_bytes<Cfg>(w.sk_ctas);
  if (need > 0 && (workspace == nullptr || workspace_bytes < need))
    return Status::invalid_argument(
        "workspace: this stream-K launch (its last " + std::to_string(w.sk_tiles) + " tiles split " +
        std::to_string(w.sk_splits) + " ways over " + std::to_string(w.sk_ctas) + " CTAs) takes " +
        std::to_string(need) + " bytes (got " + std::to_string(workspace_bytes) +
        "; sm90::gemm_workspace_bytes says how many)");
  p.sk = w;
  p.num_clusters = w.ctas;
  p.sk_flags = static_cast<uint32_t*>(workspace);
  p.sk_partials = need > 0 ? reinterpret_cast<float*>(static_cast<char*>(workspace) +
                                                      round_up(w.sk_ctas * 4, kStreamKFlagBytesAlign))
                           : nullptr;
  const int32_t grid = sched::StreamK::grid(w);
  ::bwgemm::detail::report_choice("bwgemm::sm90 stream-K launch", p.m, p.n, p.k, p.tiles.batch,
                                  std::to_string(w.dp_tiles) + " tiles whole on " + std::to_string(w.ctas) +
                                      " CTAs, then " + std::to_string(w.sk_tiles) + " split " +
                                      std::to_string(w.sk_splits) + " ways");
  return host::launch_cluster_kernel(kernel, static_cast<uint32_t>(grid), Cfg::kThreads, 1, Cfg::kSmemBytes,
                                     stream, p, options);
}

// Fills p.splits (given, or chosen from the shape and the device) and launches: split 1 the persistent
// grid of host::launch_tile_kernel, a split tiles · split CTAs in clusters of `split` (one tile each).
template <class Cfg, class Params>
Status launch_tiled(void (*kernel)(const Params), Params& p, int split_k, cudaStream_t stream,
                    const LaunchOptions& options) {
  if (split_k == 0) {
    int64_t resident[kSplitKChoiceCount];
    if (Status s = split_k_resident_clusters(kernel, Cfg::kThreads, Cfg::kSmemBytes, true, resident); !s.ok())
      return s;
    split_k = choose_tiled_split_k(p.m, p.n, p.k, p.tiles.batch, Cfg::kBlockN, resident);
  }
  p.splits = split_k;
  if (split_k == 1) return host::launch_tile_kernel<Cfg>(kernel, p, stream, options);
  const int64_t tiles = p.tiles.total();
  ::bwgemm::detail::report_choice(
      "bwgemm::sm90 tiled launch", p.m, p.n, p.k, p.tiles.batch,
      "split_k = " + std::to_string(split_k) + " over " + std::to_string(tiles) + " tiles");
  int64_t ctas = 0;
  if (Status s = split_k_ctas(tiles, split_k, &ctas); !s.ok()) return s;
  return launch_split_k<Cfg>(kernel, p, ctas, split_k, stream, options);
}
}  // namespace detail

template <class Cfg>
struct Gemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = GemmArguments<In, Out, Epilogue>;
  using Params = GemmParams<Cfg>;

  // Host-side checks only (no device access): the GEMM's rules, this Config's tile count, then the split
  // (check_split_k's rules; a split needs a Config with Cfg::kSplitK, without which 0 chooses 1).
  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a, int split_k = 1) {
    if (Status s = ::bwgemm::detail::can_implement_config<Cfg>(a); !s.ok()) return s;
    if (Cfg::kClusterCtas != 1 && split_k != 0 && split_k != 1)
      return Status::invalid_argument(
          "split_k (" + std::to_string(split_k) + ") needs a Config with ClusterCtas = 1 (this one has " +
          std::to_string(Cfg::kClusterCtas) + ": its CTAs share B over the cluster)");
    if (Cfg::kRowBlocks != 1 && split_k != 0 && split_k != 1)
      return Status::invalid_argument("split_k (" + std::to_string(split_k) +
                                      ") needs a Config with RowBlocks = 1 (this one has " +
                                      std::to_string(Cfg::kRowBlocks) + ")");
    if (Cfg::kStreamK && split_k != 0 && split_k != 1)
      return Status::invalid_argument("split_k (" + std::to_string(split_k) +
                                      ") needs a Config without sched::StreamK (stream-K splits K itself)");
    if (Cfg::kPingPong && split_k != 0 && split_k != 1)
      return Status::invalid_argument(
          "split_k (" + std::to_string(split_k) +
          ") needs a Config without PingPong (its consumers take separate tiles)");
    if (!Cfg::kSplitK && split_k != 0 && split_k != 1)
      return Status::invalid_argument(
          "split_k (" + std::to_string(split_k) +
          ") needs a Config whose 128 x BlockN fp32 partials fit over its stages (" +
          std::to_string(Cfg::kPartialBytes) + " bytes > " + std::to_string(Cfg::kStages * Cfg::kStageBytes) +
          ")");
    return detail::check_split_k(split_k, ceil_div(a.k, int64_t{Cfg::kBlockK}));
  }

  // split_k: 1 (default) the persistent kernel; 2, 4 or 8 K split over a cluster of that many CTAs per
  // tile; 0 chosen from the shape and the device (choose_tiled_split_k; 1 for Configs without kSplitK).
  // stream_k_ctas (sched::StreamK Configs, which take a.workspace: workspace_bytes): 0 one CTA per resident
  // CTA, else that many (tuning and tests: at most the resident CTAs).
  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr, int split_k = 1,
                    int64_t stream_k_ctas = 0) {
    if (!Cfg::kSplitK && split_k == 0) split_k = 1;
    if (Status s = can_implement(a, split_k); !s.ok()) return s;
    if (!Cfg::kStreamK && stream_k_ctas != 0)
      return Status::invalid_argument("stream_k_ctas (" + std::to_string(stream_k_ctas) +
                                      ") needs a Config with sched::StreamK");
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::Gemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::Gemm"); !s.ok()) return s;

    const ::bwgemm::detail::GemmStrides st = ::bwgemm::detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    Params p;
    // A: this CTA's rows of the A tile (all kBlockM, or half with a pair along N sharing A).
    if (Status s = detail::operand_maps_with_tail(a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a,
                                                  Cfg::kBlockK, Cfg::kARowsPerCta, &p.tmap_a, &p.tmap_a_tail);
        !s.ok())
      return s;
    if (kxn) {  // (N, K, batch): one box per 64-column chunk
      if (Status s = detail::operand_map(a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                         Cfg::kBMnChunkColumns, Cfg::kBlockK, &p.tmap_b);
          !s.ok())
        return s;
    } else {  // (K, N, batch): this CTA's rows of the B tile
      if (Status s = detail::operand_map(a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                         Cfg::kBKMajorRowsPerCta, &p.tmap_b);
          !s.ok())
        return s;
    }
    if constexpr (Cfg::kTmaStore) {
      if (Status s = ::bwgemm::detail::gemm_output_map(
              a.d, a.n, a.m, a.batch, st.ldd, st.batch_stride_d, Cfg::EpiBuffers::kBoxColumns,
              Cfg::EpiBuffers::kBoxRows, &p.tmap_d, Cfg::EpiBuffers::kSwizzleBytes);
          !s.ok())
        return s;
    }
    ::bwgemm::detail::fill_common_gemm_params<Cfg>(a, st, &p);

    auto* kernel = kernel_for<In>(a.b_layout);
    if constexpr (Cfg::kStreamK) {
      return detail::launch_stream_k<Cfg>(kernel, p, stream_k_ctas, a.workspace, a.workspace_bytes, stream,
                                          a.launch);
    } else {
      return detail::launch_tiled<Cfg>(kernel, p, split_k, stream, a.launch);
    }
  }

  // This Config's kernel for input type In and B's layout (one instance per layout: BMnMajor).
  template <class In>
  static auto kernel_for(BLayout b_layout) {
    return b_layout == BLayout::kRowMajorKxN ? &gemm_kernel<Cfg, In, true> : &gemm_kernel<Cfg, In, false>;
  }

  // The workspace bytes run takes for `a` on the current device (validated first): a stream-K Config's
  // (stream_k_workspace_bytes of its last wave's CTAs; its CTA count in *ctas_out if given), 0 for every
  // other Config.
  template <class In>
  static Status workspace_bytes(const GemmArguments<In, Out, Epilogue>& a, int64_t* bytes,
                                int64_t* ctas_out = nullptr, int64_t stream_k_ctas = 0) {
    *bytes = 0;
    if (ctas_out != nullptr) *ctas_out = 0;
    if (Status s = can_implement(a); !s.ok()) return s;
    if constexpr (Cfg::kStreamK) {
      if (Status s = host::require_compute_capability_90("bwgemm::sm90::Gemm"); !s.ok()) return s;
      Params p;
      p.k = static_cast<int32_t>(a.k);
      p.tiles = ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch);
      sched::StreamK::Work w;
      if (Status s = detail::stream_k_launch_work<Cfg>(kernel_for<In>(a.b_layout), p, stream_k_ctas, &w);
          !s.ok())
        return s;
      *bytes = stream_k_workspace_bytes<Cfg>(w.sk_ctas);
      if (ctas_out != nullptr) *ctas_out = w.ctas;
    }
    return Status::success();
  }
};

// The kernels the default entry point chooses from (docs/hopper.md); a tiled Config's name gives its CTA
// tile, rows x columns (GemmPingPong*: each consumer warpgroup's tile):
//   GemmTile128x256          : 128 x 256 tiles (one m64n256k16 wgmma per consumer per 16 K), 4 stages, one
//   CTA
//                              per cluster: the widest tile the registers allow
//   GemmTile128x256Cluster2  : the 128 x 256 tile in clusters of two CTAs along M sharing B through TMA
//                              multicast (not chosen: where every pair gets enough tiles,
//                              prefer_cluster_pair, the ping-pong kernel costs less; bench
//                              bwgemm_sm90_cluster2, tests)
//   GemmTile128x192          : 128 x 192 tiles, 5 stages, one CTA per cluster (its three 64-column B chunks
//                              do not split over a pair)
//   GemmTile128x160          : 128 x 160 tiles (one m64n160k16 wgmma per consumer per 16 K), 4 stages (D in
//                              one round of TMA stores), one CTA per cluster: whole tiles of N = 5120 and
//                              10240 (32 and 64 per row of tiles); with B K x N its B tile is loaded as three
//                              64-column chunks (the last 32 columns unused) and it needs
//                              kTile128x160MnMajorMinRowTiles rows of tiles; D stored in 64-byte boxes
//                              (16-bit outputs)
//   GemmTile128x128          : 128 x 128 tiles, 6 stages: twice the tiles of GemmTile128x256
//   GemmPingPong128x128      : 128 x 128 tiles per consumer warpgroup, the two consumers taking turns
//   (below),
//                              for shapes with more than kPingPongMinWaves waves of its tiles
//   GemmPingPong128x160      : 128 x 160 tiles per consumer warpgroup, ping-pong (below): with B N x K, where
//                              its waves cost less than GemmPingPong128x128's (cheapest_ping_pong)
// Which one: the fewest waves of tiles times the tile's width (gemm_tiled_choice); and whether to split K
// over a cluster of 2, 4 or 8 of the one-CTA kernels' CTAs per tile where the tiles leave SMs idle: the
// (tile, split) of lowest tiled_split_cost (gemm_tiled_plan).
template <class Out>
using GemmTile128x256 = GemmConfig<256, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile128x192 = GemmConfig<192, 5, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile128x160 = GemmConfig<160, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile128x128 = GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile128x256Cluster2 = GemmConfig<256, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out>;

// Tile shapes outside the default choice. cuBLASLt's 256 x 128 shape and its pieces (bench candidate
// bwgemm_sm90_tall_c2n; native tests test_gemm_sm90's '*R2*', '*AlongN*', Sm90GemmTileShape.*): measured
// on the H200 (2026-12-01, docs/data/h200_2026-12-01_paired_tall_candidates.json, paired over the model
// sweep at M = 512..8192): equal to the default within 1% at M >= 4096 and up to 2x slower at M = 512
// (half-empty 256-row tiles), so not in the choice:
//   GemmTile256x128          : 256 x 128 tiles (RowBlocks 2: each consumer owns 128 rows, two m64n128k16
//                              wgmmas per 16 K), 4 stages, one CTA per cluster
//   GemmTile256x128Cluster2N : the 256 x 128 tile in clusters of two CTAs side by side along N sharing A
//                              through TMA multicast (cuBLASLt's 256 x 128, cluster 1 x 2 shape)
//   GemmTile128x256Cluster2N : the 128 x 256 tile in pairs along N sharing A
// Ping-pong consumers (PingPong: the two consumers take alternate tiles, one's epilogue under the other's
// wgmmas; bench candidates bwgemm_sm90_pp, _pp_c2, _pp_wide; measured on the H200, 2026-12-01,
// docs/data/h200_2026-12-01_paired_pingpong_candidates.json):
//   GemmPingPong128x128         : 128 x 128 tiles per consumer (RowBlocks 2), 6 stages, one CTA per cluster:
//                                 in the default choice (gemm_tiled_choice)
//   GemmPingPong128x128Cluster2 : the same in clusters of two CTAs along M sharing B (0.3-0.7% behind
//                                 GemmPingPong128x128 in geomean at M >= 2048: not in the choice)
//   GemmPingPong64x256          : 64 x 256 tiles per consumer (one m64n256k16 wgmma per 16 K), 4 stages (2-3%
//                                 behind: not in the choice)
template <class Out>
using GemmTile256x128 =
    GemmConfig<128, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out, true, /*RowBlocks=*/2>;
template <class Out>
using GemmTile256x128Cluster2N =
    GemmConfig<128, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out, true,
               /*RowBlocks=*/2, /*ClusterAlongN=*/true>;
template <class Out>
using GemmTile128x256Cluster2N =
    GemmConfig<256, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out, true,
               /*RowBlocks=*/1, /*ClusterAlongN=*/true>;
template <class Out>
using GemmPingPong128x128 = GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out, true,
                                       /*RowBlocks=*/2, /*ClusterAlongN=*/false, /*PingPong=*/true>;
template <class Out>
using GemmPingPong128x128Cluster2 =
    GemmConfig<128, 6, 2, sched::StaticPersistent, epi::LinearCombination, Out, true,
               /*RowBlocks=*/2, /*ClusterAlongN=*/false, /*PingPong=*/true>;
template <class Out>
using GemmPingPong64x256 = GemmConfig<256, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out, true,
                                      /*RowBlocks=*/1, /*ClusterAlongN=*/false, /*PingPong=*/true>;
// The 160-column tile with two row blocks per consumer (160 accumulators per thread: kMaxAccRegs; bench
// candidates bwgemm_sm90_t160, _pp160; measured on the H200, 2026-12-02,
// docs/data/h200_2026-12-02_paired_tiles160_candidates.json):
//   GemmTile256x160     : 256 x 160 tiles (two m64n160k16 wgmmas per consumer per 16 K), 3 stages of 56 KiB
//                         (a fourth leaves no room for D's buffers): e.g. 1024 x 5120 in one wave of 128
//                         tiles, the tile area of cuBLASLt's choice there. Not in the choice: ahead of the
//                         default only on a few one-wave shapes with B K x N or K = 27648 (512 x 10240 x
//                         8192 B K x N 0.967x of cuBLASLt against 0.917x), behind it elsewhere (0.68-0.96x
//                         per M in geomean)
//   GemmPingPong128x160 : 128 x 160 tiles per consumer, ping-pong, 4 stages (D in one round per row block):
//                         in the default choice with B N x K (cheapest_ping_pong)
template <class Out>
using GemmTile256x160 =
    GemmConfig<160, 3, 1, sched::StaticPersistent, epi::LinearCombination, Out, true, /*RowBlocks=*/2>;
template <class Out>
using GemmPingPong128x160 = GemmConfig<160, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out, true,
                                       /*RowBlocks=*/2, /*ClusterAlongN=*/false, /*PingPong=*/true>;
// Stream-K (sched::StreamK; the call passes a workspace, GemmArguments::workspace): whole waves of tiles,
// then the last, partial wave's K blocks split evenly over one CTA per SM, so that wave costs a fraction of
// a tile:
//   GemmStreamK128x256 : GemmTile128x256's 128 x 256 tile, 4 stages: in the default choice where a workspace
//                        is given and its modelled time is below the other kernels' (gemm_tiled_plan)
//   GemmStreamK128x128 : GemmTile128x128's 128 x 128 tile, 6 stages (a candidate, bench bwgemm_sm90_sk128)
template <class Out>
using GemmStreamK128x256 = GemmConfig<256, 4, 1, sched::StreamK, epi::LinearCombination, Out>;
template <class Out>
using GemmStreamK128x128 = GemmConfig<128, 6, 1, sched::StreamK, epi::LinearCombination, Out>;

// The swap-AB kernels (sm90/swap_ab.cuh) for M <= kGemmSwapAbMaxM (tokens), and up to kGemmSwapAbMaxMNarrow
// when N is below kGemmSwapAbMaxNarrowN: the crossover measured on an H200 over the model sweep
// (2026-12-01, docs/data/h200_2026-12-01_decode.json; docs/api.md's choice table). At M = 128 the tiled
// kernels won where their 128 x 128 tiles filled the SMs (N >= 10240) and lost where they did not (N <= 5120;
// K >= 14336).
inline constexpr int64_t kGemmSwapAbMaxM = 64;
inline constexpr int64_t kGemmSwapAbMaxMNarrow = 128;
inline constexpr int64_t kGemmSwapAbMaxNarrowN = 66 * 128;  // 128 x 128 tiles for half the 132 SMs
// 128 < M <= kGemmSwapAbTokens160MaxM, whatever N: one swap-AB tile of 160 tokens (GemmSwapAbTokens160) holds
// every row, where the tiled kernels compute a second 128-row tile of 1-32 rows whole. Measured on an H200
// (2026-12-02, docs/data/h200_2026-12-02_paired_tokens_candidates_half_tile.json and _small_n.json, paired
// against cuBLASLt at M = 136 and 160 on the sweep's and
// three other models' projections, both B layouts): 1.092x the tiled default's speed in geomean, ahead on 75
// of 96 points (0.86-0.98x at N = 4096, 7168 and 8192 x 3584); at M = 192 the 192-token tile ran 0.96x of the
// tiled default and 256 tokens spill, so M > 160 stays tiled (but see kGemmSwapAbTokens192MaxTiles).
inline constexpr int64_t kGemmSwapAbTokens160MaxM = 160;
// 160 < M <= kGemmSwapAbTokens192MaxM where the 192-token tiles (GemmSwapAbTokens192, 128 weight rows each)
// number kGemmSwapAbTokens192MinTiles..kGemmSwapAbTokens192MaxTiles (ceil(N / 128) x batch): there
// choose_split_k runs the tiles on clusters of 4 or 8 CTAs in one wave over more than half the SMs, where the
// tiled kernels' two 128-row tiles per column fill fewer. Measured on an H200 (2026-12-04, paired, both B
// layouts): docs/data/h200_2026-12-04_paired_tokens192_splits.json (bf16, M = 168, 176, 192 on six models'
// projections): at N = 3584 (28 tiles) 1.05-1.25x the tiled kernels' speed, at N = 4096 (32 tiles: 32
// clusters of 4 do not fit at once, so the split is 2) 0.69-0.77x, at N = 4608..8192 with K <= 8192
// 0.76-1.01x; docs/data/h200_2026-12-04_paired_tokens192_narrow.json (bf16 and fp16, M = 161, 170, 184, 192
// on the narrow projections of seven other models): at 12-28 tiles 1.07x in geomean (0.96-1.28x), at 4
// tiles (512 x 3584: a split of 8 is 32 CTAs, where the tiled kernels split twice as many tiles) 0.80x, at 8
// tiles (1024 x 4096) 0.97-1.01x: hence at least 9 tiles, whose split of 8 fills over half the 132 SMs. 28:
// the most tiles of the fit set in one wave of clusters of 4
// (docs/data/h200_2026-12-04_paired_tokens192_bounds.json: 29 and 30 tiles also gained forced to the split of
// 4, 1.02-1.15x, so 30 clusters fit; 32 did not); not read from the device's clusters.
inline constexpr int64_t kGemmSwapAbTokens192MaxM = 192;
inline constexpr int64_t kGemmSwapAbTokens192MinTiles = 9;
inline constexpr int64_t kGemmSwapAbTokens192MaxTiles = 28;
// Whether N x batch makes kGemmSwapAbTokens192MinTiles..MaxTiles tiles of GemmSwapAbTokens192's weight rows.
constexpr bool tokens192_tiles_in_range(int64_t n, int64_t batch) {
  const int64_t tiles = ceil_div(n, int64_t{GemmSwapAbTokens192<float>::kBlockWeights}) * batch;
  return tiles >= kGemmSwapAbTokens192MinTiles && tiles <= kGemmSwapAbTokens192MaxTiles;
}

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

// Whether `choice` is one of the swap-AB kernels (gemm_swap_ab_choice) rather than a tiled one.
constexpr bool is_swap_ab_choice(GemmChoice choice) {
  return choice == GemmChoice::kSwapAbTokens16 || choice == GemmChoice::kSwapAbTokens32 ||
         choice == GemmChoice::kSwapAbTokens64 || choice == GemmChoice::kSwapAbTokens128 ||
         choice == GemmChoice::kSwapAbTokens160 || choice == GemmChoice::kSwapAbTokens192;
}

// The swap-AB kernel for M tokens (whatever M: more than 192 take several 128-token tiles): the token tile
// that holds M, from 16, 32, 64, 128, 160, 192 (160: kGemmSwapAbTokens160MaxM, 192: kGemmSwapAbTokens192MaxM;
// 32 tokens measured at M = 32: 0.943x of cuBLASLt where 64 tokens gave 0.779x, H200, 2026-12-01,
// docs/data/h200_2026-12-01_dual_tiles_swapab32.json;
// 17 <= M <= 31 take it as the smallest tile that holds them, not measured separately).
constexpr GemmChoice gemm_swap_ab_choice(int64_t m) {
  return m <= 16                         ? GemmChoice::kSwapAbTokens16
         : m <= 32                       ? GemmChoice::kSwapAbTokens32
         : m <= 64                       ? GemmChoice::kSwapAbTokens64
         : m <= kGemmSwapAbMaxMNarrow    ? GemmChoice::kSwapAbTokens128
         : m <= kGemmSwapAbTokens160MaxM ? GemmChoice::kSwapAbTokens160
         : m <= kGemmSwapAbTokens192MaxM ? GemmChoice::kSwapAbTokens192
                                         : GemmChoice::kSwapAbTokens128;
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

// The ping-pong kernel of lowest tiled_wave_cost (kPingPongWidths, those ping_pong_width_allowed takes) and
// that cost.
struct PingPongPlan {
  GemmChoice choice;
  int64_t cost;
};
constexpr PingPongPlan cheapest_ping_pong(int64_t m, int64_t n, int64_t batch, BLayout b_layout) {
  PingPongPlan best{GemmChoice::kPingPong128x128, INT64_MAX};
  for (const TiledWidth& w : kPingPongWidths) {
    if (!ping_pong_width_allowed(w.block_n, b_layout)) continue;
    const int64_t cost = tiled_wave_cost(m, n, batch, w.block_n, ping_pong_column_cost_percent(w.block_n));
    if (cost < best.cost) best = {w.choice, cost};
  }
  return best;
}

// The tiled kernel for a shape: of kTiledWidths (those tiled_width_allowed takes), the one with the lowest
// tiled_wave_cost (ties to the wider tile); the cheaper ping-pong kernel (cheapest_ping_pong) instead where
// the shape has more than kPingPongMinWaves waves of 128 x 128 tiles, at least kPingPongMinRowTiles rows of
// them, and that kernel costs strictly less. (The CTA pairs of GemmTile128x256Cluster2 are not in the
// choice: where prefer_cluster_pair would take them, >= 132 pair tiles, i.e. > 3 x 132 tiles of 128 x 128,
// the ping-pong cost is the lower; a brute-force check over M <= 51200, N <= 33280, batch 1-8 found no shape
// where it is not.)
constexpr GemmChoice gemm_tiled_choice(int64_t m, int64_t n, int64_t batch,
                                       BLayout b_layout = BLayout::kColumnMajorKxN) {
  int64_t best = INT64_MAX;
  GemmChoice choice = GemmChoice::kTile128x256;
  for (const TiledWidth& w : kTiledWidths) {
    if (!tiled_width_allowed(w.block_n, m, b_layout)) continue;
    const int64_t cost = tiled_wave_cost(m, n, batch, w.block_n, tiled_column_cost_percent(w.block_n));
    if (cost < best) best = cost, choice = w.choice;
  }
  const PingPongPlan ping_pong = cheapest_ping_pong(m, n, batch, b_layout);
  const int64_t row_tiles = ceil_div(m, int64_t{128});
  const int64_t small_tiles = row_tiles * ceil_div(n, int64_t{128}) * batch;
  if (small_tiles > kPingPongMinWaves * kResidentTiles && row_tiles >= kPingPongMinRowTiles &&
      ping_pong.cost < best)
    return ping_pong.choice;
  return choice;
}

// The default entry point's tiled kernel and split of K for a shape.
struct GemmTiledPlan {
  GemmChoice choice;  // a kTile*, kPingPong* or (split 1) kStreamK128x256 choice
  int split_k;        // 1, or 2, 4, 8 (then a one-CTA kernel)
};

// Stream-K's cost beyond each split range's K blocks, in K blocks of a 128 x 256 tile (about 0.7 us each
// on the H200): every split CTA writes its 128 KiB of partial sums at once (e.g. 112 x 128 KiB = 14 MiB,
// about 3 us at L2 rates: kStreamKHandOffKBlocks) and each head reads its tile's other splits - 1 partials
// (kStreamKPartialKBlocks each). Estimated, then checked on the H200 (2026-12-02,
// docs/data/h200_2026-12-02_paired_streamk_candidates.json and _default.json, paired against the default
// without a workspace at M = 512..2048 over the model sweep, both types and B layouts, in
// sample): 0.964x of cuBLASLt in geomean against 0.960x without stream-K and 0.968x for the better of the
// two per shape; other values from 0-24 and 0-6 gave 0.955-0.964x.
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
  if (!stream_k_work<GemmStreamK128x256<__nv_bfloat16>>(tiles, k, ctas, &w)) return INT64_MAX;
  if (w.sk_ctas == 0 || w.dp_tiles == 0) return INT64_MAX;
  const int64_t blocks = int64_t{w.dp_tiles} / w.ctas * w.k_blocks +
                         ceil_div(int64_t{w.k_blocks}, int64_t{w.sk_splits}) + kStreamKHandOffKBlocks +
                         (w.sk_splits - 1) * kStreamKPartialKBlocks;
  return blocks * 100 * 256 * kTile128x256ColumnCostPercent;
}

// The (tile width, split) of lowest tiled_split_cost over {128 x 256, 128 x 192, 128 x 160, 128 x 128} x
// kSplitKChoices, resident[i] the resident clusters of kSplitKChoices[i] CTAs (0: that size cannot be
// placed, never chosen); never more CTAs per tile than K blocks; ties go to the smaller split, then to the
// wider tile. Without a split it is gemm_tiled_choice's kernel (with 132 resident CTAs the two models agree
// on the tile width).
//
// stream_k_ctas > 0 (the call has a workspace large enough for GemmStreamK128x256's launch on that many
// CTAs): GemmStreamK128x256 instead where stream_k_cost is strictly below that plan's modelled time (the
// ping-pong kernel's its tiled_wave_cost at kPingPong128x128ColumnCostPercent times the K blocks).
constexpr GemmTiledPlan gemm_tiled_plan(int64_t m, int64_t n, int64_t k, int64_t batch,
                                        const int64_t (&resident)[kSplitKChoiceCount],
                                        int64_t stream_k_ctas = 0,
                                        BLayout b_layout = BLayout::kColumnMajorKxN) {
  const int64_t k_blocks = ceil_div(k, kTiledBlockK);
  int best_split = 1;
  GemmChoice best_kernel = GemmChoice::kTile128x256;
  int64_t best_cost = -1;
  for (int i = 0; i < kSplitKChoiceCount; ++i) {
    if (!split_k_allowed(i, k_blocks, resident)) continue;
    const int s = kSplitKChoices[i];
    for (const TiledWidth& w : kTiledWidths) {
      if (!tiled_width_allowed(w.block_n, m, b_layout)) continue;
      const int64_t cost = tiled_split_cost(m, n, k, batch, w.block_n, s, resident[i]);
      if (best_cost < 0 || cost < best_cost) best_split = s, best_kernel = w.choice, best_cost = cost;
    }
  }
  const GemmTiledPlan plan = best_split == 1 ? GemmTiledPlan{gemm_tiled_choice(m, n, batch, b_layout), 1}
                                             : GemmTiledPlan{best_kernel, best_split};
  if (stream_k_ctas > 0) {
    const bool ping_pong =
        plan.choice == GemmChoice::kPingPong128x128 || plan.choice == GemmChoice::kPingPong128x160;
    const int64_t plan_cost =
        ping_pong ? cheapest_ping_pong(m, n, batch, b_layout).cost * 100 * k_blocks : best_cost;
    if (stream_k_cost(m, n, k, batch, stream_k_ctas) < plan_cost) return {GemmChoice::kStreamK128x256, 1};
  }
  return plan;
}

// The default entry point's kernel for a shape (with a tiled kernel, gemm_tiled_plan adds the split).
constexpr GemmChoice gemm_choice(int64_t m, int64_t n, int64_t batch,
                                 BLayout b_layout = BLayout::kColumnMajorKxN) {
  // Swap AB up to 64 tokens; to 128 where N is narrow; from 129 to 160 whatever N; from 161 to 192 over few
  // tiles.
  if (m <= kGemmSwapAbMaxM ||
      (m <= kGemmSwapAbMaxMNarrow ? n < kGemmSwapAbMaxNarrowN : m <= kGemmSwapAbTokens160MaxM) ||
      (m <= kGemmSwapAbTokens192MaxM && tokens192_tiles_in_range(n, batch)))
    return gemm_swap_ab_choice(m);
  return gemm_tiled_choice(m, n, batch, b_layout);
}

namespace detail {
// The kernels of a swap-AB choice (is_swap_ab_choice), as types: f(SplitOp{}, StreamKOp{}, name), SplitOp
// the cluster split's SwapAbGemm, StreamKOp the stream-K one the default takes with a workspace where
// swap_ab_stream_k_pays (NoStreamK: never, kSwapAbTokens128), name what the diagnostic switch prints. The one
// place a swap-AB choice names its Configs.
template <class Out, class F>
auto visit_swap_ab_choice(GemmChoice choice, F&& f) {
  switch (choice) {
    case GemmChoice::kSwapAbTokens16:
      return f(
          SwapAbGemm<GemmSwapAbTokens16<Out>>{}, SwapAbGemm<GemmSwapAbStreamKTokens16<Out>>{},
          "sm90::GemmSwapAbTokens16 (swap AB, 16 tokens x 64 rows; stream-K: GemmSwapAbStreamKTokens16)");
    case GemmChoice::kSwapAbTokens32:
      return f(
          SwapAbGemm<GemmSwapAbTokens32<Out>>{}, SwapAbGemm<GemmSwapAbStreamKTokens32<Out>>{},
          "sm90::GemmSwapAbTokens32 (swap AB, 32 tokens x 64 rows; stream-K: GemmSwapAbStreamKTokens32)");
    case GemmChoice::kSwapAbTokens64:
      return f(
          SwapAbGemm<GemmSwapAbTokens64<Out>>{}, SwapAbGemm<GemmSwapAbStreamKTokens64<Out>>{},
          "sm90::GemmSwapAbTokens64 (swap AB, 64 tokens x 64 rows; stream-K: GemmSwapAbStreamKTokens64)");
    case GemmChoice::kSwapAbTokens160:
      return f(SwapAbGemm<GemmSwapAbTokens160<Out>>{}, SwapAbGemm<GemmSwapAbTokens160<Out>>{},
               "sm90::GemmSwapAbTokens160 (swap AB, 160 tokens x 128 rows; stream-K with a workspace)");
    case GemmChoice::kSwapAbTokens192:
      return f(SwapAbGemm<GemmSwapAbTokens192<Out>>{}, SwapAbGemm<GemmSwapAbTokens192<Out>>{},
               "sm90::GemmSwapAbTokens192 (swap AB, 192 tokens x 128 rows; stream-K with a workspace)");
    default:
      return f(SwapAbGemm<GemmSwapAbTokens128<Out>>{}, NoStreamK{},
               "sm90::GemmSwapAbTokens128 (swap AB, 128 tokens x 64 rows)");
  }
}

// The workspace bytes of a swap-AB choice for the call (default_stream_k_bytes; none for a tiled choice).
template <class In, class Out>
int64_t swap_ab_workspace_bytes(GemmChoice choice, const GemmArguments<In, Out>& args) {
  if (!is_swap_ab_choice(choice)) return 0;
  return visit_swap_ab_choice<Out>(choice, [&](auto split, auto stream_k, const char*) -> int64_t {
    return default_stream_k_bytes<decltype(split), decltype(stream_k)>(args);
  });
}

// Runs `choice`'s kernel on the call with `split_k` (as SwapAbGemm::run or Gemm::run takes it), and names
// both with the diagnostic switch on.
template <class In, class Out>
Status run_gemm_choice(GemmChoice choice, const GemmArguments<In, Out>& args, cudaStream_t stream,
                       int split_k) {
  const auto report = [&](const char* name) {
    ::bwgemm::detail::report_choice("bwgemm::sm90::gemm", args.m, args.n, args.k, args.batch,
                                    std::string(name) + ", split_k = " + std::to_string(split_k));
  };
  if (is_swap_ab_choice(choice))
    return visit_swap_ab_choice<Out>(choice, [&](auto split, auto stream_k, const char* name) -> Status {
      report(name);
      return run_default_swap_ab<decltype(split), decltype(stream_k)>(args, stream, split_k);
    });
  switch (choice) {
    case GemmChoice::kTile128x128:
      return report("sm90::GemmTile128x128"), Gemm<GemmTile128x128<Out>>::run(args, stream, split_k);
    case GemmChoice::kTile128x192:
      return report("sm90::GemmTile128x192"), Gemm<GemmTile128x192<Out>>::run(args, stream, split_k);
    case GemmChoice::kTile128x160:
      return report("sm90::GemmTile128x160"), Gemm<GemmTile128x160<Out>>::run(args, stream, split_k);
    case GemmChoice::kPingPong128x128:
      return report("sm90::GemmPingPong128x128 (per consumer, ping-pong)"),
             Gemm<GemmPingPong128x128<Out>>::run(args, stream, split_k);
    case GemmChoice::kPingPong128x160:
      return report("sm90::GemmPingPong128x160 (per consumer, ping-pong)"),
             Gemm<GemmPingPong128x160<Out>>::run(args, stream, split_k);
    case GemmChoice::kStreamK128x256:
      return report("sm90::GemmStreamK128x256"), Gemm<GemmStreamK128x256<Out>>::run(args, stream, split_k);
    default:
      return report("sm90::GemmTile128x256"), Gemm<GemmTile128x256<Out>>::run(args, stream, split_k);
  }
}

// The resident clusters of each split size for the default choice: GemmTile128x256's kernel's for the call's
// types and B layout (every tiled Config of the choice takes one CTA per SM, so their counts agree). Where
// the device cannot say (no device, another architecture) kResidentTiles CTAs and no split: the launch then
// names the real error.
template <class In, class Out>
void tiled_resident_clusters(const GemmArguments<In, Out>& args, int64_t (&resident)[kSplitKChoiceCount]) {
  using Cfg = GemmTile128x256<Out>;
  auto* kernel = Gemm<Cfg>::template kernel_for<In>(args.b_layout);
  if (!split_k_resident_clusters(kernel, Cfg::kThreads, Cfg::kSmemBytes, true, resident).ok()) {
    resident[0] = kResidentTiles;
    for (int i = 1; i < kSplitKChoiceCount; ++i) resident[i] = 0;
  }
}

// The CTAs of GemmStreamK128x256's launch for the call (Gemm::workspace_bytes), for gemm_tiled_plan's
// stream_k_ctas: 0 where the call's workspace is null or smaller than that launch takes (unless
// assume_workspace: what the choice would be given one), or the arguments do not fit a stream-K launch.
template <class In, class Out>
int64_t stream_k_ctas_for(const GemmArguments<In, Out>& args, bool assume_workspace) {
  if (!assume_workspace && args.workspace == nullptr) return 0;
  int64_t bytes = 0, ctas = 0;
  if (!Gemm<GemmStreamK128x256<Out>>::workspace_bytes(args, &bytes, &ctas).ok()) return 0;
  if (!assume_workspace && args.workspace_bytes < bytes) return 0;
  return ctas;
}

// The default choice's tiled kernel and split (gemm_tiled_plan), or its kernel with `forced_split`.
template <class In, class Out>
GemmTiledPlan tiled_plan_for(const GemmArguments<In, Out>& args, bool assume_workspace) {
  int64_t resident[kSplitKChoiceCount];
  tiled_resident_clusters(args, resident);
  return gemm_tiled_plan(args.m, args.n, args.k, args.batch, resident,
                         stream_k_ctas_for(args, assume_workspace), args.b_layout);
}
template <class In, class Out>
Status run_gemm_tiled_plan(const GemmArguments<In, Out>& args, cudaStream_t stream, int forced_split = 0) {
  GemmTiledPlan plan = tiled_plan_for(args, /*assume_workspace=*/false);
  if (forced_split != 0 && plan.choice == GemmChoice::kStreamK128x256) {
    // A forced split (gemm_tiled_split, for tuning) is the plan without stream-K's.
    GemmArguments<In, Out> without = args;
    without.workspace = nullptr, without.workspace_bytes = 0;
    plan = tiled_plan_for(without, false);
  }
  return run_gemm_choice(plan.choice, args, stream, forced_split == 0 ? plan.split_k : forced_split);
}
}  // namespace detail

// The sm_90a default entry point: a kernel from the shape (gemm_choice; a tiled kernel with the split of
// gemm_tiled_plan, or a swap-AB kernel with the split of choose_split_k).
template <class In, class Out>
Status gemm(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  const GemmChoice choice = gemm_choice(args.m, args.n, args.batch, args.b_layout);
  if (!is_swap_ab_choice(choice)) return detail::run_gemm_tiled_plan(args, stream);
  return detail::run_gemm_choice(choice, args, stream, 0);
}

// The workspace bytes sm90::gemm takes for `args` on the current device (GemmArguments::workspace): with a
// swap-AB choice its stream-K launch's (SwapAbGemm::workspace_bytes); with a tiled one the stream-K kernel's
// where the default choice would take it given that much (gemm_tiled_plan); else 0. A call with less (or
// none) runs the choice without stream-K.
template <class In, class Out>
Status gemm_workspace_bytes(const GemmArguments<In, Out>& args, int64_t* bytes) {
  *bytes = 0;
  if (Status s = validate(args); !s.ok()) return s;
  const GemmChoice choice = gemm_choice(args.m, args.n, args.batch, args.b_layout);
  if (is_swap_ab_choice(choice)) {
    *bytes = detail::swap_ab_workspace_bytes(choice, args);
    return Status::success();
  }
  if (detail::tiled_plan_for(args, /*assume_workspace=*/true).choice != GemmChoice::kStreamK128x256)
    return Status::success();
  return Gemm<GemmStreamK128x256<Out>>::workspace_bytes(args, bytes);
}

// One side of the crossover whatever the shape, for the benchmark: the tiled kernels only (gemm_tiled_plan),
// and the swap-AB kernels only (split_k as SwapAbGemm::run takes it, 0: chosen from the shape).
template <class In, class Out>
Status gemm_tiled(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_gemm_tiled_plan(args, stream);
}
// The tiled kernel gemm_tiled_plan picks with the split forced to split_k (1, 2, 4, 8; refused where that
// kernel or the shape cannot take it, e.g. the CTA-pair kernel or more splits than K blocks): for tuning the
// split model.
template <class In, class Out>
Status gemm_tiled_split(const GemmArguments<In, Out>& args, cudaStream_t stream, int split_k) {
  if (split_k < 1)
    return Status::invalid_argument("split_k must be 1, 2, 4 or 8 (got " + std::to_string(split_k) + ")");
  return detail::run_gemm_tiled_plan(args, stream, split_k);
}
template <class In, class Out>
Status gemm_swap_ab(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr, int split_k = 0) {
  return detail::run_gemm_choice(gemm_swap_ab_choice(args.m), args, stream, split_k);
}

}  // namespace bwgemm::sm90
