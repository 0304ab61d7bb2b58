// bwgemm's Hopper (sm_90a) grouped GEMMs for mixture-of-experts layers, 16-bit operands, fp32 accumulation:
//
//   grouped_gemm       D_e = alpha_e · A_e B_eᵀ                                    (FC2)
//   grouped_dual_gemm  C_e = epilogue(alpha1_e · A_e B1_eᵀ, alpha2_e · A_e B2_eᵀ)    (FC1, a gated functor)
//
// The arguments are bwgemm::GroupedGemmArguments and bwgemm::GroupedDualGemmArguments
// (arguments/grouped_gemm.hpp, grouped_dual_gemm.hpp; docs/moe.md: the contiguous and masked token layouts,
// the stacked weights, the per-expert scales, the status word), the same for every backend.
//
//   bwgemm::GroupedGemmArguments<__nv_bfloat16> args;
//   args.tokens = bwgemm::contiguous_tokens(total_tokens, offs);  // offs: E int32 on the device
//   args.experts = E; args.n = n; args.k = k;
//   args.a = a; args.b = w; args.d = d;
//   bwgemm::Status s = bwgemm::sm90::grouped_gemm(args, stream);
//   // or an explicit kernel:
//   s = bwgemm::sm90::GroupedGemm<bwgemm::sm90::GroupedGemmTile128x128<__nv_bfloat16>>::run(args, stream);
//   s = bwgemm::sm90::GroupedGemmSwapAb<bwgemm::sm90::GroupedGemmSwapAbTokens32<__nv_bfloat16>>::run(args);
//
// The kernels (kernels/sm90/grouped_kernels.cuh) are the tiled GEMM's and dual GEMM's over the experts' row
// tiles (GroupedGemm, GroupedDualGemm), or the swap-AB ones' over the experts' token tiles
// (GroupedGemmSwapAb, GroupedDualGemmSwapAb: the expert's weights on the wgmma's 64-row side, up to
// BlockTokens of its tokens as the wgmma's N, whole K per CTA): a static persistent grid of min(tile bound,
// resident CTAs) CTAs, the bound from host arguments only (contiguous (ceil(total_tokens / BlockM) + E) ·
// ceil(N / BlockN) tiles, masked E · ceil(max_tokens / BlockM) · ceil(N / BlockN); swap AB: BlockTokens for
// BlockM, the weight tile's rows for BlockN), so a CUDA graph captures the launch once and replays it with
// new device offsets or counts. Each CTA's roles walk the tile ids cluster, cluster + clusters, ... through
// the experts' device values (grouped::GroupedTileWalk) and stop at the first id past the experts' tiles.
//
// The call validates everything first (bwgemm::validate, then the Config's tile bound, which must fit in
// 32 bits), then needs a GPU of compute capability 9.0 and device-accessible operands; it launches nothing on
// error, is asynchronous on `stream`, allocates nothing and does not synchronize.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/grouped_dual_gemm.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/kernels/sm90/grouped_kernels.cuh"
#include "bwgemm/sm90/catalogue.cuh"
#include "bwgemm/sm90/operand_map.cuh"

namespace bwgemm::sm90 {

// ---- the Configs the default entry points run
// --------------------------------------------------------------- The catalogue's tiled Configs with D (C)
// stored from registers: an expert's last row tile stores only its rows, which a TMA store of whole boxes
// cannot do. One Config per operation, whatever the counts (they are on the device) and whatever
// expected_tokens_per_expert says; chosen by analogy with the dense choice, not measured on grouped calls:
//   GroupedGemmTile128x128      : GemmTile128x128 (128 x 128 tiles, 6 stages), the dense GEMM's narrowest
//                                 128-row tile, so that an expert's few row tiles still give the grid
//                                 N / 128 column tiles each
//   GroupedDualGemmTile128x64   : DualGemmTile128x64 (128 x 64 pairs, 6 stages), the dense dual GEMM's
//                                 choice at M · batch <= 256 (sm90/choice.hpp), the few rows per expert of
//                                 a decode or prefill MoE layer
template <class Out>
using GroupedGemmTile128x128 = typename GemmTile128x128<Out>::template WithTmaStore<false>;
template <class Out, class Epilogue = epi::SiluMul>
using GroupedDualGemmTile128x64 =
    typename DualGemmTile128x64<Out>::template WithTmaStore<false>::template WithEpilogue<Epilogue>;
// The swap-AB Configs, taken where an expert is expected to get at most kGroupedSwapAbMaxTokens tokens
// (decode; detail::grouped_expected_tokens, arguments/grouped_gemm.hpp), one tile of 32 tokens covering
// such an expert's tokens, its weights streamed once per tile (not measured on grouped calls):
//   GroupedGemmSwapAbTokens32     : GemmSwapAbTokens32 (32 tokens x 64 weight rows, 16 stages), the dense
//                                   GEMM's swap-AB Config for 17 .. 32 tokens (sm90/choice.hpp): 32 rather
//                                   than 16 tokens so that an expert's 17 .. 32 tokens take one tile, and the
//                                   bound matches the sm_100a grouped choice's
//   GroupedDualGemmSwapAbTokens32 : 32 tokens x 64 rows of each weight matrix, 10 stages of 20 KiB (about
//                                   the 192 KiB in flight of the dense dual GEMM's 16- and 64-token Configs,
//                                   which have no 32-token one)
inline constexpr int64_t kGroupedSwapAbMaxTokens = 32;
template <class Out>
using GroupedGemmSwapAbTokens32 = GemmSwapAbTokens32<Out>;
template <class Out, class Epilogue = epi::SiluMul>
using GroupedDualGemmSwapAbTokens32 = SwapAbConfig<32, 10, 2, Epilogue, Out, 1>;
static_assert(GroupedGemmSwapAbTokens32<__nv_bfloat16>::kBlockTokens == kGroupedSwapAbMaxTokens &&
                  GroupedDualGemmSwapAbTokens32<__nv_bfloat16>::kBlockTokens == kGroupedSwapAbMaxTokens,
              "the bound is the swap-AB Configs' tile of tokens");

namespace detail {

// The tile bound of a grouped call (kernels/sm90/grouped_tiles.cuh, grouped_tile_bound) as the TileGrid the
// kernels' scheduler strides over: tiles_m row tiles x tiles_n column tiles, total() the bound; refused where
// it does not fit in 32 bits (the kernels' tile ids).
inline Status grouped_tile_grid(const GroupedTokens& t, int64_t experts, int64_t n, int64_t block_m,
                                int64_t block_n, sched::TileGrid* grid) {
  const int64_t n_tiles = ceil_div(n, block_n);
  const int64_t row_tiles = grouped_tile_bound(t, experts, block_m, 1);
  int64_t total = 0;
  if (!checked_mul(row_tiles, n_tiles, &total) || total > (int64_t{1} << 31) - 1) {
    const std::string rows = t.layout == GroupedLayout::kMasked
                                 ? "experts · ceil(max_tokens / " + std::to_string(block_m) + ")"
                                 : "ceil(total_tokens / " + std::to_string(block_m) + ") + experts";
    return Status::invalid_argument("too many tiles for one launch: the grouped kernels walk up to (" + rows +
                                    ") · ceil(n / " + std::to_string(block_n) +
                                    ") = " + std::to_string(row_tiles) + " · " + std::to_string(n_tiles) +
                                    " tiles, which must be below 2^31");
  }
  grid->tiles_m = static_cast<int32_t>(row_tiles);
  grid->tiles_n = static_cast<int32_t>(n_tiles);
  grid->batch = 1;
  grid->group_m = 1;
  return Status::success();
}

// The rows of A's tensor map (the layout's buffer) and its batch (E slabs, masked; one, contiguous) with the
// batch stride (masked: a_expert_stride, 0 meaning max_tokens · lda; contiguous: never stepped, lda).
struct TokenMap {
  int64_t rows, batch, batch_stride;
};
inline TokenMap token_map(const GroupedTokens& t, int64_t experts, int64_t ld, int64_t expert_stride) {
  if (t.layout == GroupedLayout::kMasked)
    return {t.max_tokens, experts, expert_stride == 0 ? t.max_tokens * ld : expert_stride};
  return {t.total_tokens, 1, ld};
}

// A's tensor maps: masked, (K, max_tokens, E) and its tail map (box rows max_tokens mod box_rows: a tile
// starts at a multiple of box_rows of its slab); contiguous, (K, total_tokens, 1) alone (GroupedTiles loads
// whole boxes there: a tile starts at its expert's first row, anywhere).
template <class In>
Status token_operand_maps(const In* a, const GroupedTokens& t, int64_t k, const TokenMap& am, int64_t ld,
                          uint32_t box_rows, CUtensorMap* map, CUtensorMap* tail) {
  if (t.layout == GroupedLayout::kMasked)
    return operand_maps_with_tail(a, k, am.rows, am.batch, ld, am.batch_stride, ptx::kSw128Elements16,
                                  box_rows, map, tail);
  return operand_map(a, k, am.rows, am.batch, ld, am.batch_stride, ptx::kSw128Elements16, box_rows, map);
}

// The grouped fields of the kernels' parameters: the metadata, the column tiles, the output's expert stride
// (masked: 0 meaning max_tokens · ld), the scale arrays and the status word.
inline GroupedTileParams grouped_tile_params(const GroupedTokens& t, int64_t experts, int32_t n_tiles,
                                             int64_t out_ld, int64_t out_expert_stride, const float* scale0,
                                             const float* scale1, uint32_t* status) {
  GroupedTileParams g;
  g.tokens = t;
  g.experts = static_cast<int32_t>(experts);
  g.n_tiles = n_tiles;
  g.out_expert_stride = t.layout == GroupedLayout::kMasked
                            ? (out_expert_stride == 0 ? t.max_tokens * out_ld : out_expert_stride)
                            : 0;
  g.scale_ptr[0] = scale0;
  g.scale_ptr[1] = scale1;
  g.status = status;
  return g;
}

// The checks every grouped entry point makes before it touches the device: the operation's rules, then the
// Config's tile bound.
template <class Cfg, class Args>
Status can_implement_grouped(const Args& a, sched::TileGrid* grid) {
  if (Status s = validate(a); !s.ok()) return s;
  return grouped_tile_grid(a.tokens, a.experts, a.n, GroupedTileShape<Cfg>::kRows,
                           GroupedTileShape<Cfg>::kColumns, grid);
}

// Every check an entry point's run makes before it builds a launch: can_implement_grouped's, a device of
// compute capability 9.0, device pointers (`entry` names the caller in the messages).
template <class Cfg, class Args>
Status check_grouped_run(const Args& a, const char* entry, sched::TileGrid* grid) {
  if (Status s = can_implement_grouped<Cfg>(a, grid); !s.ok()) return s;
  if (Status s = host::require_compute_capability_90(entry); !s.ok()) return s;
  return host::require_device_pointers(device_operands(a), entry);
}

// The tokens' and the weights' strides of a 16-bit grouped call (0 meaning packed), and the tokens' map.
struct GroupedStrides {
  int64_t lda = 0, ldb = 0, b_expert_stride = 0;
  TokenMap tokens;
};
template <class Args>
GroupedStrides grouped_strides(const Args& a) {
  GroupedStrides st;
  st.lda = a.lda == 0 ? a.k : a.lda;
  st.ldb = a.ldb == 0 ? a.k : a.ldb;
  st.b_expert_stride = a.b_expert_stride == 0 ? a.n * st.ldb : a.b_expert_stride;
  st.tokens = token_map(a.tokens, a.experts, st.lda, a.a_expert_stride);
  return st;
}

// Launches a grouped swap-AB kernel: a static persistent grid of min(tile bound, resident CTAs) CTAs (at
// least one: with no tiles its walk stops at once and reports), one CTA per cluster, splits 1, no stream-K.
template <class Cfg, class Params>
Status launch_grouped_swap_ab(void (*kernel)(const Params), Params& p, cudaStream_t stream,
                              const LaunchOptions& options) {
  int64_t resident = 0;
  if (Status s = host::cached_resident_clusters(kernel, Cfg::kThreads, 1, Cfg::kSmemBytes, &resident);
      !s.ok())
    return s;
  const int64_t tiles = p.tiles.total();
  const int64_t ctas = tiles < resident ? (tiles > 0 ? tiles : 1) : resident;
  p.splits = 1;
  p.grid_ctas = static_cast<int32_t>(ctas);
  p.sk_ctas = 0;
  return host::launch_cluster_kernel(kernel, static_cast<uint32_t>(ctas), Cfg::kThreads, 1u, Cfg::kSmemBytes,
                                     stream, p, options);
}

// The default entry points' diagnostic line: the expected tokens per expert as M, E as the batch.
template <class Args>
void report_grouped_choice(const char* entry, const Args& a, int64_t expected, const char* choice) {
  ::bwgemm::detail::report_choice(entry, expected, a.n, a.k, a.experts, std::string("sm90::") + choice);
}

}  // namespace detail

// The grouped GEMM on Config Cfg (GroupedTiles::config_supported: one CTA per cluster, no ping-pong, D from
// registers, sched::StaticPersistent; functor epi::LinearCombination).
template <class Cfg>
struct GroupedGemm {
  using Out = typename Cfg::Out;
  using Params = GroupedGemmParams<Cfg>;
  static_assert(GroupedTiles<Cfg>::config_supported(),
                "grouped kernels: one CTA per cluster, no ping-pong, no TMA store, sched::StaticPersistent");
  static_assert(std::is_same_v<typename Cfg::Epilogue, epi::LinearCombination>,
                "the grouped GEMM's functor is LinearCombination (alpha_e · acc)");

  // Host-side checks only (no device access): the operation's rules, then this Config's tile bound.
  template <class In>
  static Status can_implement(const GroupedGemmArguments<In, Out>& a) {
    sched::TileGrid grid;
    return detail::can_implement_grouped<Cfg>(a, &grid);
  }

  template <class In>
  static Status run(const GroupedGemmArguments<In, Out>& a, cudaStream_t stream = nullptr) {
    sched::TileGrid grid;
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm90::GroupedGemm", &grid); !s.ok()) return s;
    const detail::GroupedStrides st = detail::grouped_strides(a);
    const int64_t lda = st.lda, ldb = st.ldb, b_stride = st.b_expert_stride, ldd = a.ldd == 0 ? a.n : a.ldd;
    const detail::TokenMap& am = st.tokens;

    Params p;
    if (Status s = detail::token_operand_maps(a.a, a.tokens, a.k, am, lda, Cfg::kARowsPerCta, &p.tmap_a,
                                              &p.tmap_a_tail);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b, a.k, a.n, a.experts, ldb, b_stride, Cfg::kBlockK,
                                       Cfg::kBKMajorRowsPerCta, &p.tmap_b);
        !s.ok())
      return s;
    p.d = a.d;
    p.ldd = ldd;
    p.m = static_cast<int32_t>(am.rows);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = grid;
    p.splits = 1;
    p.read_c = false;
    p.epilogue = epi::LinearCombination{a.alpha, 0.0f, nullptr, nullptr};
    p.grouped = detail::grouped_tile_params(a.tokens, a.experts, grid.tiles_n, ldd, a.d_expert_stride,
                                            a.alpha_ptr, nullptr, a.status);
    return host::launch_tile_kernel<Cfg>(&grouped_gemm_kernel<Cfg, In>, p, stream, a.launch);
  }
};

// The grouped dual GEMM on Config Cfg (a DualGemmConfig with GroupedTiles::config_supported; its Epilogue
// the arguments').
template <class Cfg>
struct GroupedDualGemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Params = GroupedDualGemmParams<Cfg>;
  static_assert(GroupedTiles<Cfg>::config_supported(),
                "grouped kernels: one CTA per cluster, no ping-pong, no TMA store, sched::StaticPersistent");

  template <class In>
  static Status can_implement(const GroupedDualGemmArguments<In, Out, Epilogue>& a) {
    sched::TileGrid grid;
    return detail::can_implement_grouped<Cfg>(a, &grid);
  }

  template <class In>
  static Status run(const GroupedDualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    sched::TileGrid grid;
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm90::GroupedDualGemm", &grid); !s.ok())
      return s;
    const detail::GroupedStrides st = detail::grouped_strides(a);
    const int64_t lda = st.lda, ldb = st.ldb, b_stride = st.b_expert_stride, ldc = a.ldc == 0 ? a.n : a.ldc;
    const detail::TokenMap& am = st.tokens;

    Params p;
    if (Status s =
            detail::token_operand_maps(a.a, a.tokens, a.k, am, lda, Cfg::kBlockM, &p.tmap_a, &p.tmap_a_tail);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b1, a.k, a.n, a.experts, ldb, b_stride, ptx::kSw128Elements16,
                                       Cfg::kBRowsPerCta, &p.tmap_b1);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b2, a.k, a.n, a.experts, ldb, b_stride, ptx::kSw128Elements16,
                                       Cfg::kBRowsPerCta, &p.tmap_b2);
        !s.ok())
      return s;
    p.c = a.c;
    p.ldc = ldc;
    p.tma_store = false;
    p.m = static_cast<int32_t>(am.rows);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = grid;
    p.alpha1 = a.alpha1;
    p.alpha2 = a.alpha2;
    p.epilogue = a.epilogue;
    p.grouped = detail::grouped_tile_params(a.tokens, a.experts, grid.tiles_n, ldc, a.c_expert_stride,
                                            a.alpha1_ptr, a.alpha2_ptr, a.status);
    return host::launch_tile_kernel<Cfg>(&grouped_dual_gemm_kernel<Cfg, In>, p, stream, a.launch);
  }
};

// The grouped GEMM on swap-AB Config Cfg (a SwapAbConfig with Weights = 1 and epi::LinearCombination): an
// expert's tokens in tiles of BlockTokens from its first token, its weights in tiles of kBlockWeights rows,
// whole K per CTA.
template <class Cfg>
struct GroupedGemmSwapAb {
  using Out = typename Cfg::Out;
  using Params = GroupedSwapAbParams<Cfg>;
  static_assert(Cfg::kWeights == 1, "GroupedGemmSwapAb takes a SwapAbConfig with Weights = 1");
  static_assert(std::is_same_v<typename Cfg::Epilogue, epi::LinearCombination>,
                "the grouped GEMM's functor is LinearCombination (alpha_e · acc)");

  // Host-side checks only (no device access): the operation's rules, then this Config's tile bound.
  template <class In>
  static Status can_implement(const GroupedGemmArguments<In, Out>& a) {
    sched::TileGrid grid;
    return detail::can_implement_grouped<Cfg>(a, &grid);
  }

  template <class In>
  static Status run(const GroupedGemmArguments<In, Out>& a, cudaStream_t stream = nullptr) {
    sched::TileGrid grid;
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm90::GroupedGemmSwapAb", &grid); !s.ok())
      return s;
    const detail::GroupedStrides st = detail::grouped_strides(a);
    const int64_t lda = st.lda, ldb = st.ldb, b_stride = st.b_expert_stride, ldd = a.ldd == 0 ? a.n : a.ldd;
    const detail::TokenMap& am = st.tokens;

    Params p;
    if (Status s = detail::token_operand_maps(a.a, a.tokens, a.k, am, lda, Cfg::kBlockTokens, &p.tmap_tokens,
                                              &p.tmap_tokens_tail);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b, a.k, a.n, a.experts, ldb, b_stride, Cfg::kBlockK,
                                       Cfg::kBlockWeights, &p.tmap_w[0]);
        !s.ok())
      return s;
    p.d = a.d;
    p.ldd = ldd;
    p.m = static_cast<int32_t>(am.rows);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = grid;
    p.read_c = false;
    p.epilogue = epi::LinearCombination{a.alpha, 0.0f, nullptr, nullptr};
    p.grouped = detail::grouped_tile_params(a.tokens, a.experts, grid.tiles_n, ldd, a.d_expert_stride,
                                            a.alpha_ptr, nullptr, a.status);
    return detail::launch_grouped_swap_ab<Cfg>(&grouped_swap_ab_kernel<Cfg, In>, p, stream, a.launch);
  }
};

// The grouped dual GEMM on swap-AB Config Cfg (a SwapAbConfig with Weights = 2; its Epilogue the
// arguments').
template <class Cfg>
struct GroupedDualGemmSwapAb {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Params = GroupedSwapAbParams<Cfg>;
  static_assert(Cfg::kWeights == 2, "GroupedDualGemmSwapAb takes a SwapAbConfig with Weights = 2");

  template <class In>
  static Status can_implement(const GroupedDualGemmArguments<In, Out, Epilogue>& a) {
    sched::TileGrid grid;
    return detail::can_implement_grouped<Cfg>(a, &grid);
  }

  template <class In>
  static Status run(const GroupedDualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    sched::TileGrid grid;
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm90::GroupedDualGemmSwapAb", &grid); !s.ok())
      return s;
    const detail::GroupedStrides st = detail::grouped_strides(a);
    const int64_t lda = st.lda, ldb = st.ldb, b_stride = st.b_expert_stride, ldc = a.ldc == 0 ? a.n : a.ldc;
    const detail::TokenMap& am = st.tokens;

    Params p;
    if (Status s = detail::token_operand_maps(a.a, a.tokens, a.k, am, lda, Cfg::kBlockTokens, &p.tmap_tokens,
                                              &p.tmap_tokens_tail);
        !s.ok())
      return s;
    const In* weights[2] = {a.b1, a.b2};
    for (int w = 0; w < 2; ++w) {
      if (Status s = detail::operand_map(weights[w], a.k, a.n, a.experts, ldb, b_stride, Cfg::kBlockK,
                                         Cfg::kBlockWeights, &p.tmap_w[w]);
          !s.ok())
        return s;
    }
    p.d = a.c;
    p.ldd = ldc;
    p.m = static_cast<int32_t>(am.rows);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = grid;
    p.alpha1 = a.alpha1;
    p.alpha2 = a.alpha2;
    p.epilogue = a.epilogue;
    p.grouped = detail::grouped_tile_params(a.tokens, a.experts, grid.tiles_n, ldc, a.c_expert_stride,
                                            a.alpha1_ptr, a.alpha2_ptr, a.status);
    return detail::launch_grouped_swap_ab<Cfg>(&grouped_swap_ab_kernel<Cfg, In>, p, stream, a.launch);
  }
};

// ---- the default entry points ---------------------------------------------------------------------------
// Swap AB (GroupedGemmSwapAbTokens32, GroupedDualGemmSwapAbTokens32) where an expert is expected to get at
// most kGroupedSwapAbMaxTokens tokens (expected_tokens_per_expert, else the buffers' rows over E, masked the
// slab's rows: detail::grouped_expected_tokens), else GroupedGemmTile128x128 and GroupedDualGemmTile128x64.
// With the diagnostic switch on (base/diagnostics.hpp) each call names its Config (the expected tokens as M,
// E as the batch).
template <class In, class Out>
Status grouped_gemm(const GroupedGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  const int64_t expected = ::bwgemm::detail::grouped_expected_tokens(args);
  if (expected <= kGroupedSwapAbMaxTokens) {
    detail::report_grouped_choice("bwgemm::sm90::grouped_gemm", args, expected, "GroupedGemmSwapAbTokens32");
    return GroupedGemmSwapAb<GroupedGemmSwapAbTokens32<Out>>::run(args, stream);
  }
  detail::report_grouped_choice("bwgemm::sm90::grouped_gemm", args, expected, "GroupedGemmTile128x128");
  return GroupedGemm<GroupedGemmTile128x128<Out>>::run(args, stream);
}

template <class In, class Out, class Epilogue>
Status grouped_dual_gemm(const GroupedDualGemmArguments<In, Out, Epilogue>& args,
                         cudaStream_t stream = nullptr) {
  const int64_t expected = ::bwgemm::detail::grouped_expected_tokens(args);
  if (expected <= kGroupedSwapAbMaxTokens) {
    detail::report_grouped_choice("bwgemm::sm90::grouped_dual_gemm", args, expected,
                                  "GroupedDualGemmSwapAbTokens32");
    return GroupedDualGemmSwapAb<GroupedDualGemmSwapAbTokens32<Out, Epilogue>>::run(args, stream);
  }
  detail::report_grouped_choice("bwgemm::sm90::grouped_dual_gemm", args, expected,
                                "GroupedDualGemmTile128x64");
  return GroupedDualGemm<GroupedDualGemmTile128x64<Out, Epilogue>>::run(args, stream);
}

}  // namespace bwgemm::sm90
