// The tile source of the sm_90a grouped (mixture-of-experts) kernels: how the tiled GEMM and dual GEMM
// kernels (kernels/sm90/gemm_kernel.cuh, dual_gemm_kernel.cuh) see their tiles when the tiles are the
// experts' row tiles of a grouped_tile_walk instead of a dense TileGrid.
//
// A kernel body takes a tile source: per role (the producer and each consumer thread) it makes a walk
// (source.walk()), and for each linear tile id of its scheduler's stride (cluster, cluster + clusters, ...)
// asks walk.seek(id, &tile); false ends the role's loop. The walk answers what the roles need of a tile:
//   row0(tile, cta_rank), col0(tile, cta_rank)  the tile's first row (A's and the output's row coordinate)
//                                                and first column
//   a_batch(tile), b_batch(tile)                 the third TMA coordinate of A and of B (and of a D map)
//   a_rows()                                     the rows past which a box of A goes through the tail map
//                                                (RowBox; dense: M)
//   row_end(tile)                                the rows below it are stored (and C read)
//   out_offset(tile, ...), c_offset(tile)        elements from the output's (C's) pointer to the tile's batch
//   epilogue(f, tile) / scales(s, tile)          the GEMM's functor / the dual GEMM's two scales for the tile
//   report(cluster)                              after the producer's loop: the status word
// The dense sources (GemmTiles, DualGemmTiles, next to their kernels) answer with the TileGrid's expressions
// and constant true from seek, so the dense kernels compile to the code they had before the tile source
// existed.
//
// GroupedTiles: the tiles of grouped::BasicGroupedTileWalk (base/grouped.hpp) over the device's offsets or
// counts, each expert's rows in tiles of Cfg::kBlockM, each with n_tiles column tiles of Cfg::kBlockN. The
// swap-AB kernel body (kernels/sm90/swap_ab_kernel.cuh) takes it alike with a SwapAbConfig: the expert's
// tokens in tiles of Cfg::kBlockTokens (the output's rows, the wgmma's N), each with n_tiles tiles of
// Cfg::kBlockWeights weight rows (the output's columns), whole K per CTA (kSplitK false).
//   contiguous: A and the output are [total_tokens, ...] (batch 0); a tile's A box starts at its first row,
//               so the rows of a box past the expert's end are the next expert's (or, past total_tokens,
//               zero-filled by TMA): loaded, multiplied into accumulator rows that are never stored (each
//               output row depends on its own row of A alone).
//   masked:     A is [E, max_tokens, K] (batch e), the output e's slab at e · out_expert_stride; the rows of
//               a box past the expert's count are inside its slab, loaded and never stored alike.
//   B:          [E, N, K] (batch e) for every layout.
// Stores only rows below row_end (the register store path: a TMA store would write whole boxes). The
// per-expert scales (alpha_ptr; alpha1_ptr, alpha2_ptr) are read by the consumers when their walk reaches a
// new expert, one float per expert per thread, not per element. The status word: every CTA's producer ORs
// the bits its walk met (ptx::red_global_or, only if nonzero), and CTA 0's first reads the experts past its
// last tile, so that the word has every expert's bits whatever tiles the CTAs took.
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/macros.hpp"
#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/ptx/global.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm90 {

// The grouped fields of a grouped kernel's parameters (GroupedGemmParams, GroupedDualGemmParams).
struct GroupedTileParams {
  GroupedTokens tokens;       // the layout, the buffers' rows and the device's offsets or counts
  int32_t experts = 0;        // E
  int32_t n_tiles = 0;        // column tiles of kBlockN per row tile
  int64_t out_expert_stride;  // masked: elements between the experts' slabs of the output; contiguous: 0
  // The per-expert scale arrays (E floats in device memory, or null): [0] alpha_ptr (GEMM) or alpha1_ptr,
  // [1] alpha2_ptr (dual GEMM); the host scales stay in the dense parameters.
  const float* scale_ptr[2] = {nullptr, nullptr};
  uint32_t* status = nullptr;  // the status word, or null
};

// The tile shape a Config gives the walk: the tiled Configs' kBlockM rows x kBlockN columns; the swap-AB
// Configs' (those with kBlockTokens) kBlockTokens tokens x kBlockWeights weight rows.
template <class Cfg, class = void>
struct GroupedTileShape {
  static constexpr int kRows = Cfg::kBlockM, kColumns = Cfg::kBlockN;
};
template <class Cfg>
struct GroupedTileShape<Cfg, std::void_t<decltype(Cfg::kBlockTokens)>> {
  static constexpr int kRows = Cfg::kBlockTokens, kColumns = Cfg::kBlockWeights;
};

// The upper bound of a grouped call's tiles, from host arguments only (base/grouped.hpp): the linear ids the
// kernels walk.
using grouped::grouped_tile_bound;

template <class Cfg>
class GroupedTiles {
  using Shape = GroupedTileShape<Cfg>;

 public:
  // One CTA tile: expert e's rows [row0, row_end) of A and the output, columns [n0, n0 + kBlockN).
  struct Tile {
    int32_t expert, row0, row_end, n0;
  };
  // The swap-AB body: no split of K and no stream-K (the launch's splits are 1).
  static constexpr bool kSplitK = false;

  class Walk {
   public:
    BWGEMM_DEVICE BWGEMM_FORCEINLINE explicit Walk(const GroupedTileParams& g)
        : g_(g), walk_(g.tokens, g.experts, Shape::kRows, g.n_tiles) {}

    BWGEMM_DEVICE BWGEMM_FORCEINLINE bool seek(int32_t id, Tile* t) {
      grouped::GroupedTile gt;
      if (!walk_.seek(id, &gt)) return false;
      t->expert = static_cast<int32_t>(gt.expert);
      t->row0 = static_cast<int32_t>(gt.row_begin);
      t->row_end = static_cast<int32_t>(gt.row_end);
      t->n0 = static_cast<int32_t>(gt.n_tile) * Shape::kColumns;
      return true;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row0(const Tile& t, uint32_t /*cta_rank*/) const {
      return t.row0;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t col0(const Tile& t, uint32_t /*cta_rank*/) const { return t.n0; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_batch(const Tile& t) const { return masked() ? t.expert : 0; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t b_batch(const Tile& t) const { return t.expert; }
    // Masked: max_tokens, the slab's rows (a tile starts at a multiple of kBlockM (kBlockTokens) of its slab,
    // so a box that crosses max_tokens holds max_tokens mod kBlockM rows: the tail map's box). Contiguous: no
    // limit, every box whole (an expert's tiles start at its first row, anywhere, so the rows left before
    // total_tokens need not be total_tokens mod kBlockM; TMA zero-fills the rows past total_tokens).
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_rows() const {
      return masked() ? static_cast<int32_t>(g_.tokens.max_tokens) : INT32_MAX;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row_end(const Tile& t) const { return t.row_end; }
    // The output's expert offset (the dense stride argument is not used: the expert stride is the walk's).
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int64_t out_offset(const Tile& t, int64_t /*dense_stride*/ = 0) const {
      return masked() ? static_cast<int64_t>(t.expert) * g_.out_expert_stride : 0;
    }
    // The grouped operations read no C.
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int64_t c_offset(const Tile& /*t*/) const { return 0; }

    // The GEMM's functor for the tile: D = alpha_e · acc, alpha_e = f.alpha · alpha_ptr[e] (f: the host
    // alpha's LinearCombination).
    BWGEMM_DEVICE BWGEMM_FORCEINLINE epi::LinearCombination epilogue(const epi::LinearCombination& f,
                                                                     const Tile& t) {
      return epi::LinearCombination{f.alpha * expert_scale(0, t), 0.0f, nullptr, nullptr};
    }
    // The dual GEMM's scales for the tile: alpha1 · alpha1_ptr[e], alpha2 · alpha2_ptr[e].
    BWGEMM_DEVICE BWGEMM_FORCEINLINE epi::DualScales scales(const epi::DualScales& s, const Tile& t) {
      if (g_.scale_ptr[0] == nullptr && g_.scale_ptr[1] == nullptr) return s;
      load_scales(t);
      return epi::DualScales{g_.scale_ptr[0] != nullptr ? s.alpha1 * scale_[0] : s.alpha1,
                             g_.scale_ptr[1] != nullptr ? s.alpha2 * scale_[1] : s.alpha2};
    }

    // After the producer's loop (one thread per CTA): OR the walk's status bits into the status word. CTA
    // 0's walk first reads every expert past its last tile.
    BWGEMM_DEVICE BWGEMM_FORCEINLINE void report(int32_t cluster) {
      if (g_.status == nullptr) return;
      if (cluster == 0) walk_.finish();  // reads the experts past its last tile
      const uint32_t bits = walk_.status();
      if (bits != 0) ptx::red_global_or(g_.status, bits);
    }

   private:
    BWGEMM_DEVICE BWGEMM_FORCEINLINE bool masked() const {
      return g_.tokens.layout == GroupedLayout::kMasked;
    }
    // Expert t.expert's scale array values, read once per expert of the walk.
    BWGEMM_DEVICE BWGEMM_FORCEINLINE void load_scales(const Tile& t) {
      if (t.expert == scaled_expert_) return;
      scaled_expert_ = t.expert;
#pragma unroll
      for (int i = 0; i < 2; ++i)
        if (g_.scale_ptr[i] != nullptr) scale_[i] = g_.scale_ptr[i][t.expert];
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE float expert_scale(int i, const Tile& t) {
      if (g_.scale_ptr[i] == nullptr) return 1.0f;
      load_scales(t);
      return scale_[i];
    }

    const GroupedTileParams& g_;
    grouped::BasicGroupedTileWalk<int32_t> walk_;  // 32-bit tile arithmetic (the launch bounds the ids)
    int32_t scaled_expert_ = -1;                   // the expert whose scales scale_ holds
    float scale_[2] = {1.0f, 1.0f};
  };

  BWGEMM_DEVICE BWGEMM_FORCEINLINE explicit GroupedTiles(const GroupedTileParams& g) : g_(g) {}
  BWGEMM_DEVICE BWGEMM_FORCEINLINE Walk walk() const {
    return Walk(g_);
  }

  // The grouped kernels take one CTA per cluster tile (a CTA pair's tiles would be two experts' rows), both
  // consumers on each tile, and no split of K: the host's Configs are checked against these.
  BWGEMM_HD static constexpr bool config_supported() {
    return Cfg::kClusterCtas == 1 && !Cfg::kPingPong && !Cfg::kTmaStore &&
           std::is_same_v<typename Cfg::Scheduler, sched::StaticPersistent>;
  }

 private:
  const GroupedTileParams& g_;
};

}  // namespace bwgemm::sm90
