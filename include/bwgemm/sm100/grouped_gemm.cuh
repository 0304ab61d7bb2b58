// bwgemm's Blackwell (sm_100a) grouped (mixture-of-experts) GEMMs, every expert in one launch:
//
//   grouped GEMM (FC2):       D_e = alpha_e · A_e B_eᵀ                                   16-bit or NVFP4 A, B
//   grouped dual GEMM (FC1):  C_e = epilogue(alpha1_e · A_e B1_eᵀ, alpha2_e · A_e B2_eᵀ)   16-bit or NVFP4 A,
//   B
//
// The arguments are bwgemm::GroupedGemmArguments, Nvfp4GroupedGemmArguments, GroupedDualGemmArguments and
// Nvfp4GroupedDualGemmArguments (arguments/grouped_gemm.hpp, grouped_dual_gemm.hpp; docs/moe.md has the
// layouts). The kernels (kernels/sm100/grouped_kernels.cuh) are the dense tiled and swap-AB kernels walking
// the experts' tiles from the device offsets or counts, static persistent:
//
//   bwgemm::sm100::grouped_gemm(args, stream);                         // picks a Config (below)
//   bwgemm::sm100::GroupedGemm<GroupedGemmTokens256<__half>>::run(args, stream);   // or an explicit one
//
// Each call validates everything first (bwgemm::validate, then the Config's tile bound) and launches nothing
// on error; it is asynchronous on `stream`, allocates nothing, does not synchronize and never reads the
// device counts on the host: its grid depends on the host arguments only, so a CUDA graph captures it once
// and replays it with new counts. Compute capability 10.0 only; bwgemm::grouped_gemm (grouped_gemm.cuh)
// dispatches between backends.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/grouped_dual_gemm.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/kernels/sm100/dual_gemm_config.cuh"
#include "bwgemm/kernels/sm100/dual_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/gemm_config.cuh"
#include "bwgemm/kernels/sm100/gemm_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/grouped_kernels.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_swap_ab_config.cuh"
#include "bwgemm/scheduler/schedulers.cuh"
#include "bwgemm/sm100/tuning.hpp"
#include "bwgemm/tuning/key.hpp"

namespace bwgemm::sm100 {

namespace detail {

// The tiles of one grouped launch stay below this: the static schedule's ids (tile + clusters) stay in 32
// bits.
inline constexpr int64_t kMaxGroupedTiles = (int64_t{1} << 31) - (int64_t{1} << 16);

// How Config Cfg tiles a grouped call: the tiled Configs in token rows of ClusterBlockM by columns of BlockN;
// the swap-AB ones (those with kBlockTokens) in tokens of BlockTokens by weight rows of 128.
template <class Cfg, class = void>
struct GroupedTiling {
  static constexpr bool kSwapAb = false;
  static constexpr int64_t kTokens = Cfg::kClusterBlockM, kColumns = Cfg::kBlockN;
};
template <class Cfg>
struct GroupedTiling<Cfg, std::void_t<decltype(Cfg::kBlockTokens)>> {
  static constexpr bool kSwapAb = true;
  static constexpr int64_t kTokens = Cfg::kBlockTokens, kColumns = Cfg::kBlockWeights;
};

// Config Cfg's grid over a grouped call: grouped::grouped_tile_bound token tiles (the most any device counts
// can make) by ceil(N / columns) column tiles; the swap-AB kernels' grid the other way round (tiles_m: the
// weight tiles).
template <class Cfg, class Args>
Status grouped_tile_grid(const Args& a, sched::TileGrid* grid) {
  using Tiling = GroupedTiling<Cfg>;
  const int64_t n_tiles = ceil_div(a.n, Tiling::kColumns);
  const int64_t row_tiles = grouped::grouped_tile_bound(a.tokens, a.experts, Tiling::kTokens, 1);
  int64_t tiles = 0;
  if (!checked_mul(row_tiles, n_tiles, &tiles) || tiles > kMaxGroupedTiles)
    return Status::invalid_argument("too many tiles for one grouped launch: the tokens' row tiles (" +
                                    ::bwgemm::detail::str(row_tiles) +
                                    ", with one partial tile per expert) x N's column tiles (" +
                                    ::bwgemm::detail::str(n_tiles) + ") must be below 2^31 - 2^16");
  *grid = Tiling::kSwapAb
              ? sched::TileGrid{static_cast<int32_t>(n_tiles), static_cast<int32_t>(row_tiles), 1, 1}
              : sched::TileGrid{static_cast<int32_t>(row_tiles), static_cast<int32_t>(n_tiles), 1, 1};
  return Status::success();
}

// The checks of an explicit Config: the operation's rules, then the Config's tile bound.
template <class Cfg, class Args>
Status can_implement_grouped(const Args& a) {
  static_assert(std::is_same_v<typename Cfg::Scheduler, sched::StaticPersistent>,
                "the grouped kernels walk the experts' tiles in increasing order per cluster: "
                "sched::StaticPersistent only");
  if (Status s = validate(a); !s.ok()) return s;
  sched::TileGrid grid;
  return grouped_tile_grid<Cfg>(a, &grid);
}

// What every grouped launch shares: the tokens, E, the status word, the tile grid.
template <class Cfg, class Args, class Params>
void fill_grouped_params(const Args& a, Params* p) {
  p->tokens = a.tokens;
  p->experts = static_cast<int32_t>(a.experts);
  p->status = a.status;
  // Checked by can_implement_grouped (check_grouped_run) before any parameter is filled.
  const Status grid = grouped_tile_grid<Cfg>(a, &p->tiles);
  (void)grid;
  p->m = 0;  // a tile's tokens are its expert's (sched::row_limit, column_limit)
  p->n = static_cast<int32_t>(a.n);
  p->k = static_cast<int32_t>(a.k);
}

// A 16-bit matrix of the tokens [total_tokens, cols] or [E, max_tokens, cols] (row stride ld, masked expert
// stride `expert_stride`, 0 meaning max_tokens · ld) as the rank-3 map (cols, rows, batch) the kernels load
// (contiguous: one batch) with box (box_inner, box_rows).
inline Status grouped_token_map(TensorMapDataType type, const void* p, const GroupedTokens& t,
                                int64_t experts, int64_t cols, int64_t ld, int64_t expert_stride,
                                uint32_t box_inner, uint32_t box_rows, CUtensorMap* out) {
  if (t.layout == GroupedLayout::kContiguous)
    return ::bwgemm::detail::gemm_operand_map(type, p, cols, t.total_tokens, 1, ld, ld, box_inner, box_rows,
                                              TensorMapSwizzle::k128B, out);
  return ::bwgemm::detail::gemm_operand_map(type, p, cols, t.max_tokens, experts, ld,
                                            expert_stride != 0 ? expert_stride : t.max_tokens * ld, box_inner,
                                            box_rows, TensorMapSwizzle::k128B, out);
}

// An NVFP4 tensor of the tokens (data and blocked scales, docs/moe.md's placement) as the kernels load it:
// contiguous, the data (K, total_tokens, 1) and the scales of grouped_scale_rows(total_tokens, E) rows in one
// batch (each expert's from its ExpertRows::scale_row); masked, the dense operand with batch E.
inline Status grouped_nvfp4_token_maps(const Nvfp4Tensor& a, const GroupedTokens& t, int64_t experts,
                                       int64_t k, uint32_t box_rows, CUtensorMap* data, CUtensorMap* scales) {
  namespace d = ::bwgemm::detail;
  if (t.layout == GroupedLayout::kMasked) {
    if (Status s = d::nvfp4_data_map(a.data, t.max_tokens, k, experts, box_rows, data); !s.ok()) return s;
    return d::nvfp4_scale_map(a.scales, t.max_tokens, k, experts, scales);
  }
  // One batch: its stride (one row, one row block) only has to be a valid one.
  if (Status s = d::nvfp4_data_map(a.data, t.total_tokens, k, 1, box_rows, data, k / 2); !s.ok()) return s;
  const int64_t block_bytes = ceil_div(k / kNvfp4BlockSize, kScaleAtomCols) * kScaleAtomBytes;
  return d::nvfp4_scale_map(a.scales, grouped::grouped_scale_rows(t.total_tokens, experts), k, 1, scales,
                            block_bytes);
}

// NVFP4 stacked weights [E, N, K] (expert strides in bytes, 0 meaning packed) as the rank-3 data map and the
// rank-4 scale map with batch E.
inline Status grouped_nvfp4_weight_maps(const Nvfp4Tensor& b, int64_t experts, int64_t n, int64_t k,
                                        int64_t data_stride, int64_t scales_stride, uint32_t box_rows,
                                        CUtensorMap* data, CUtensorMap* scales) {
  namespace d = ::bwgemm::detail;
  if (Status s = d::nvfp4_data_map(b.data, n, k, experts, box_rows, data, data_stride); !s.ok()) return s;
  return d::nvfp4_scale_map(b.scales, n, k, experts, scales, scales_stride);
}

// A 16-bit output of the tokens: its row stride (0: N) and batch stride (masked: the expert stride, 0 meaning
// max_tokens · ld; contiguous: 0), and whether every row starts 32-byte aligned.
struct GroupedOutput {
  int64_t ld = 0, batch_stride = 0;
  bool aligned32 = false;
};
template <class Out>
GroupedOutput grouped_output(const Out* p, const GroupedTokens& t, int64_t n, int64_t ld,
                             int64_t expert_stride) {
  GroupedOutput o;
  o.ld = ld != 0 ? ld : n;
  o.batch_stride =
      t.layout == GroupedLayout::kMasked ? (expert_stride != 0 ? expert_stride : t.max_tokens * o.ld) : 0;
  constexpr int64_t kBytes = sizeof(Out);
  o.aligned32 = reinterpret_cast<uintptr_t>(p) % 32 == 0 && o.ld * kBytes % 32 == 0 &&
                o.batch_stride * kBytes % 32 == 0;
  return o;
}

// The tokens an expert is expected to get (arguments/grouped_gemm.hpp: both backends choose by it).
using ::bwgemm::detail::grouped_expected_tokens;

// The NVFP4 kernels' L2 hints: keep the weights (re-read by each of an expert's row tiles) where the expert's
// rows outnumber N (re-reading the tokens' rows per column tile), else the tokens (the dense rule).
template <class Args, class Params>
void grouped_cache_hints(const Args& a, Params* p) {
  const bool keep_b = grouped_expected_tokens(a) > a.n;
  p->cache_hint_a = keep_b ? ptx::kL2EvictFirst : ptx::kL2EvictLast;
  p->cache_hint_b = keep_b ? ptx::kL2EvictLast : ptx::kL2EvictFirst;
}

// The host scales as the dense kernels take them (their device parts per expert: scale_ptr).
template <class Args>
bool grouped_unit_alphas(const Args& a) {
  return a.alpha1 == 1.0f && a.alpha2 == 1.0f && a.alpha1_ptr == nullptr && a.alpha2_ptr == nullptr;
}

// The GEMM's output D_e = alpha_e · acc (every grouped GEMM kernel's parameters: d, ldd, batch_stride_d, the
// functor, identity) and the per-expert alphas; returns the output's strides and alignment.
template <class Args, class Params>
GroupedOutput fill_grouped_gemm_output(const Args& a, Params* p) {
  const GroupedOutput d = grouped_output(a.d, a.tokens, a.n, a.ldd, a.d_expert_stride);
  p->d = a.d;
  p->ldd = d.ld, p->batch_stride_d = d.batch_stride;
  p->epilogue = epi::LinearCombination{a.alpha, 0.0f, nullptr, nullptr};
  p->scale_ptr[0] = a.alpha_ptr;
  p->identity = a.alpha == 1.0f && a.alpha_ptr == nullptr;
  return d;
}
// The dual GEMM's scales and functor: C_e = epilogue(alpha1_e · gate, alpha2_e · up).
template <class Args, class Params>
void fill_grouped_dual_scales(const Args& a, Params* p) {
  p->alpha1 = a.alpha1, p->alpha2 = a.alpha2;
  p->scale_ptr[0] = a.alpha1_ptr, p->scale_ptr[1] = a.alpha2_ptr;
  p->unit_alphas = grouped_unit_alphas(a);
  p->epilogue = a.epilogue;
}
// The dual GEMM's 16-bit output (c, ldc, batch_stride_c) and its scales; returns the output's strides and
// alignment.
template <class Args, class Params>
GroupedOutput fill_grouped_dual_output(const Args& a, Params* p) {
  const GroupedOutput c = grouped_output(a.c, a.tokens, a.n, a.ldc, a.c_expert_stride);
  p->c = a.c;
  p->ldc = c.ld, p->batch_stride_c = c.batch_stride;
  fill_grouped_dual_scales(a, p);
  return c;
}

// The checks every grouped entry point runs before it builds a launch: the Config's, the device's, the
// pointers'.
template <class Cfg, class Args>
Status check_grouped_run(const Args& a, const char* entry) {
  if (Status s = can_implement_grouped<Cfg>(a); !s.ok()) return s;
  if (Status s = host::require_compute_capability_100(entry); !s.ok()) return s;
  return host::require_device_pointers(device_operands(a), entry);
}

}  // namespace detail

// ---- the grouped GEMM
// --------------------------------------------------------------------------------------

// Config Cfg (a GemmConfig with sched::StaticPersistent and epi::LinearCombination) on the 16-bit grouped
// GEMM.
template <class Cfg>
struct GroupedGemm {
  using Out = typename Cfg::Out;
  static_assert(std::is_same_v<typename Cfg::Epilogue, epi::LinearCombination>,
                "the grouped GEMM's epilogue is alpha_e · A·Bᵀ (epi::LinearCombination)");

  template <class In>
  static Status can_implement(const GroupedGemmArguments<In, Out>& a) {
    return detail::can_implement_grouped<Cfg>(a);
  }

  template <class In>
  static Status run(const GroupedGemmArguments<In, Out>& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedGemm"); !s.ok()) return s;
    constexpr TensorMapDataType type = ::bwgemm::detail::gemm_tensor_map_type<In>();
    GroupedGemmParams<Cfg> p;
    const int64_t lda = a.lda != 0 ? a.lda : a.k, ldb = a.ldb != 0 ? a.ldb : a.k;
    if (Status s = detail::grouped_token_map(type, a.a, a.tokens, a.experts, a.k, lda, a.a_expert_stride,
                                             Cfg::kBlockK, Cfg::kBlockM, &p.tmap_a);
        !s.ok())
      return s;
    if (Status s = ::bwgemm::detail::gemm_operand_map(
            type, a.b, a.k, a.n, a.experts, ldb, a.b_expert_stride != 0 ? a.b_expert_stride : a.n * ldb,
            Cfg::kBlockK, Cfg::kBColumnsPerCta, TensorMapSwizzle::k128B, &p.tmap_b);
        !s.ok())
      return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    p.d_aligned32 = detail::fill_grouped_gemm_output(a, &p).aligned32;
    p.idesc = Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16,
                              BLayout::kColumnMajorKxN);
    p.b = Cfg::b_operand(BLayout::kColumnMajorKxN);
    return host::launch_tile_kernel<Cfg>(&grouped_gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// Config Cfg (an Nvfp4GemmConfig with sched::StaticPersistent, a 16-bit or fp32 D) on the NVFP4 grouped GEMM.
template <class Cfg>
struct GroupedNvfp4Gemm {
  using Out = typename Cfg::Out;
  using Arguments = Nvfp4GroupedGemmArguments<Out>;

  static Status can_implement(const Arguments& a) { return detail::can_implement_grouped<Cfg>(a); }

  static Status run(const Arguments& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedNvfp4Gemm"); !s.ok()) return s;
    GroupedNvfp4GemmParams<Cfg> p;
    if (Status s = detail::grouped_nvfp4_token_maps(a.a, a.tokens, a.experts, a.k, Cfg::kBlockM, &p.tmap_a,
                                                    &p.tmap_sfa);
        !s.ok())
      return s;
    if (Status s = detail::grouped_nvfp4_weight_maps(a.b, a.experts, a.n, a.k, a.b_data_expert_stride,
                                                     a.b_scales_expert_stride, Cfg::kBRowsPerCta, &p.tmap_b,
                                                     &p.tmap_sfb);
        !s.ok())
      return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    p.d_aligned32 = detail::fill_grouped_gemm_output(a, &p).aligned32;
    detail::grouped_cache_hints(a, &p);
    return host::launch_tile_kernel<Cfg>(&grouped_nvfp4_gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// ---- the grouped dual GEMM --------------------------------------------------------------------------------

// Config Cfg (a DualGemmConfig with sched::StaticPersistent) on the 16-bit grouped dual GEMM.
template <class Cfg>
struct GroupedDualGemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;

  template <class In>
  static Status can_implement(const GroupedDualGemmArguments<In, Out, Epilogue>& a) {
    return detail::can_implement_grouped<Cfg>(a);
  }

  template <class In>
  static Status run(const GroupedDualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedDualGemm"); !s.ok()) return s;
    constexpr TensorMapDataType type = ::bwgemm::detail::gemm_tensor_map_type<In>();
    GroupedDualGemmParams<Cfg> p;
    const int64_t lda = a.lda != 0 ? a.lda : a.k, ldb = a.ldb != 0 ? a.ldb : a.k;
    const int64_t b_stride = a.b_expert_stride != 0 ? a.b_expert_stride : a.n * ldb;
    if (Status s = detail::grouped_token_map(type, a.a, a.tokens, a.experts, a.k, lda, a.a_expert_stride,
                                             Cfg::kBlockK, Cfg::kBlockM, &p.tmap_a);
        !s.ok())
      return s;
    CUtensorMap* const b_maps[2] = {&p.tmap_b1, &p.tmap_b2};
    const In* const b_ptrs[2] = {a.b1, a.b2};
    for (int i = 0; i < 2; ++i)
      if (Status s = ::bwgemm::detail::gemm_operand_map(type, b_ptrs[i], a.k, a.n, a.experts, ldb, b_stride,
                                                        Cfg::kBlockK, Cfg::kBRowsPerCta,
                                                        TensorMapSwizzle::k128B, b_maps[i]);
          !s.ok())
        return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    p.c_aligned32 = detail::fill_grouped_dual_output(a, &p).aligned32;
    p.idesc =
        Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16);
    return host::launch_tile_kernel<Cfg>(&grouped_dual_gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// Config Cfg (an Nvfp4DualGemmConfig with sched::StaticPersistent; C 16-bit or Nvfp4Output) on the NVFP4
// grouped dual GEMM.
template <class Cfg>
struct GroupedNvfp4DualGemm {
  using Out = typename Cfg::Out;
  using Arguments = Nvfp4GroupedDualGemmArguments<typename Cfg::Out, typename Cfg::Epilogue>;

  static Status can_implement(const Arguments& a) { return detail::can_implement_grouped<Cfg>(a); }

  static Status run(const Arguments& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedNvfp4DualGemm"); !s.ok())
      return s;
    GroupedNvfp4DualGemmParams<Cfg> p;
    if (Status s = detail::grouped_nvfp4_token_maps(a.a, a.tokens, a.experts, a.k, Cfg::kBlockM, &p.tmap_a,
                                                    &p.tmap_sfa);
        !s.ok())
      return s;
    if (Status s = detail::grouped_nvfp4_weight_maps(a.b1, a.experts, a.n, a.k, a.b_data_expert_stride,
                                                     a.b_scales_expert_stride, Cfg::kBRowsPerCta, &p.tmap_b1,
                                                     &p.tmap_sfb1);
        !s.ok())
      return s;
    if (Status s = detail::grouped_nvfp4_weight_maps(a.b2, a.experts, a.n, a.k, a.b_data_expert_stride,
                                                     a.b_scales_expert_stride, Cfg::kBRowsPerCta, &p.tmap_b2,
                                                     &p.tmap_sfb2);
        !s.ok())
      return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    if constexpr (Cfg::kNvfp4Out) {
      // NVFP4 C: packed rows of N / 2 bytes placed as the tokens' (masked: E slabs of max_tokens rows, the
      // kernel's m), the scales at each expert's place, expert e's global scale c_global_scale ·
      // c_global_scale_ptr[e].
      p.c = static_cast<uint8_t*>(a.c.data);
      p.ldc = a.n / 2;
      p.m = a.tokens.layout == GroupedLayout::kMasked ? static_cast<int32_t>(a.tokens.max_tokens) : 0;
      p.out_scales = static_cast<uint8_t*>(a.c.scales);
      p.out_global_scale = a.c_global_scale;
      p.scale_ptr[2] = a.c_global_scale_ptr;
      detail::fill_grouped_dual_scales(a, &p);
    } else {
      p.c_aligned32 = detail::fill_grouped_dual_output(a, &p).aligned32;
    }
    detail::grouped_cache_hints(a, &p);
    return host::launch_tile_kernel<Cfg>(&grouped_nvfp4_dual_gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// ---- the grouped swap-AB kernels
// ---------------------------------------------------------------------------

namespace detail {
// The 16-bit swap-AB launches' operands: the token map (box BlockTokens rows), the weights' (box 128 rows of
// the expert's [N, K] slab), the instruction descriptor.
template <class Cfg, class In, class Args>
Status grouped_f16_swap_ab_operands(const Args& a, const In* const (&weights)[Cfg::kWeights],
                                    GroupedF16SwapAbParams<Cfg>* p) {
  constexpr TensorMapDataType type = ::bwgemm::detail::gemm_tensor_map_type<In>();
  const int64_t lda = a.lda != 0 ? a.lda : a.k, ldb = a.ldb != 0 ? a.ldb : a.k;
  if (Status s = grouped_token_map(type, a.a, a.tokens, a.experts, a.k, lda, a.a_expert_stride, Cfg::kBlockK,
                                   Cfg::kBlockTokens, &p->tmap_tokens);
      !s.ok())
    return s;
  for (int w = 0; w < Cfg::kWeights; ++w)
    if (Status s = ::bwgemm::detail::gemm_operand_map(type, weights[w], a.k, a.n, a.experts, ldb,
                                                      a.b_expert_stride != 0 ? a.b_expert_stride : a.n * ldb,
                                                      Cfg::kBlockK, Cfg::kBlockWeights,
                                                      TensorMapSwizzle::k128B, &p->tmap_weights[w]);
        !s.ok())
      return s;
  p->idesc = Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16,
                             BLayout::kColumnMajorKxN);
  p->weights = Cfg::weight_operand(BLayout::kColumnMajorKxN);
  return Status::success();
}

// The NVFP4 swap-AB launches' operands: the tokens' data and scales, each weight's.
template <class Cfg, class Args>
Status grouped_nvfp4_swap_ab_operands(const Args& a, const Nvfp4Tensor* const (&weights)[Cfg::kWeights],
                                      GroupedNvfp4SwapAbParams<Cfg>* p) {
  if (Status s = grouped_nvfp4_token_maps(a.a, a.tokens, a.experts, a.k, Cfg::kBlockTokens, &p->tmap_tokens,
                                          &p->tmap_sf_tokens);
      !s.ok())
    return s;
  for (int w = 0; w < Cfg::kWeights; ++w)
    if (Status s = grouped_nvfp4_weight_maps(*weights[w], a.experts, a.n, a.k, a.b_data_expert_stride,
                                             a.b_scales_expert_stride, Cfg::kBlockWeights,
                                             &p->tmap_weights[w], &p->tmap_sf_weights[w]);
        !s.ok())
      return s;
  return Status::success();
}
}  // namespace detail

// Config Cfg (a GemmSwapAbConfig with sched::StaticPersistent and epi::LinearCombination) on the 16-bit
// grouped GEMM: an expert's tokens in tiles of BlockTokens, its weights in tiles of 128 rows (whole K per
// CTA).
template <class Cfg>
struct GroupedGemmSwapAb {
  using Out = typename Cfg::Out;
  static_assert(Cfg::kWeights == 1 && std::is_same_v<typename Cfg::Epilogue, epi::LinearCombination>,
                "a GemmSwapAbConfig with epi::LinearCombination");

  template <class In>
  static Status can_implement(const GroupedGemmArguments<In, Out>& a) {
    return detail::can_implement_grouped<Cfg>(a);
  }

  template <class In>
  static Status run(const GroupedGemmArguments<In, Out>& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedGemmSwapAb"); !s.ok()) return s;
    GroupedF16SwapAbParams<Cfg> p;
    const In* const weights[1] = {a.b};
    if (Status s = detail::grouped_f16_swap_ab_operands<Cfg>(a, weights, &p); !s.ok()) return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    detail::fill_grouped_gemm_output(a, &p);
    return host::launch_tile_kernel<Cfg>(&grouped_f16_swap_ab_kernel<Cfg>, p, stream, a.launch);
  }
};

// Config Cfg (a DualSwapAbConfig with sched::StaticPersistent) on the 16-bit grouped dual GEMM.
template <class Cfg>
struct GroupedDualGemmSwapAb {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  static_assert(Cfg::kWeights == 2, "a DualSwapAbConfig");

  template <class In>
  static Status can_implement(const GroupedDualGemmArguments<In, Out, Epilogue>& a) {
    return detail::can_implement_grouped<Cfg>(a);
  }

  template <class In>
  static Status run(const GroupedDualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedDualGemmSwapAb"); !s.ok())
      return s;
    GroupedF16SwapAbParams<Cfg> p;
    const In* const weights[2] = {a.b1, a.b2};
    if (Status s = detail::grouped_f16_swap_ab_operands<Cfg>(a, weights, &p); !s.ok()) return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    detail::fill_grouped_dual_output(a, &p);
    return host::launch_tile_kernel<Cfg>(&grouped_f16_swap_ab_kernel<Cfg>, p, stream, a.launch);
  }
};

// Config Cfg (an Nvfp4GemmSwapAbConfig with sched::StaticPersistent, a 16-bit or fp32 D) on the NVFP4 grouped
// GEMM.
template <class Cfg>
struct GroupedNvfp4GemmSwapAb {
  using Out = typename Cfg::Out;
  using Arguments = Nvfp4GroupedGemmArguments<Out>;
  static_assert(Cfg::kWeights == 1, "an Nvfp4GemmSwapAbConfig");

  static Status can_implement(const Arguments& a) { return detail::can_implement_grouped<Cfg>(a); }

  static Status run(const Arguments& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedNvfp4GemmSwapAb"); !s.ok())
      return s;
    GroupedNvfp4SwapAbParams<Cfg> p;
    const Nvfp4Tensor* const weights[1] = {&a.b};
    if (Status s = detail::grouped_nvfp4_swap_ab_operands<Cfg>(a, weights, &p); !s.ok()) return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    detail::fill_grouped_gemm_output(a, &p);
    return host::launch_tile_kernel<Cfg>(&grouped_nvfp4_swap_ab_kernel<Cfg>, p, stream, a.launch);
  }
};

// Config Cfg (an Nvfp4DualSwapAbConfig with sched::StaticPersistent, a 16-bit C) on the NVFP4 grouped dual
// GEMM.
template <class Cfg>
struct GroupedNvfp4DualGemmSwapAb {
  using Out = typename Cfg::Out;
  using Arguments = Nvfp4GroupedDualGemmArguments<typename Cfg::Out, typename Cfg::Epilogue>;
  static_assert(Cfg::kWeights == 2, "an Nvfp4DualSwapAbConfig");

  static Status can_implement(const Arguments& a) { return detail::can_implement_grouped<Cfg>(a); }

  static Status run(const Arguments& a, cudaStream_t stream = nullptr) {
    if (Status s = detail::check_grouped_run<Cfg>(a, "bwgemm::sm100::GroupedNvfp4DualGemmSwapAb"); !s.ok())
      return s;
    GroupedNvfp4SwapAbParams<Cfg> p;
    const Nvfp4Tensor* const weights[2] = {&a.b1, &a.b2};
    if (Status s = detail::grouped_nvfp4_swap_ab_operands<Cfg>(a, weights, &p); !s.ok()) return s;
    detail::fill_grouped_params<Cfg>(a, &p);
    detail::fill_grouped_dual_output(a, &p);
    return host::launch_tile_kernel<Cfg>(&grouped_nvfp4_swap_ab_kernel<Cfg>, p, stream, a.launch);
  }
};

// ---- the default entry points -----------------------------------------------------------------------------

// The Configs the default entry points choose from, by the tokens an expert is expected to get
// (expected_tokens_per_expert, or the buffers' rows shared evenly; detail::grouped_expected_tokens):
//   up to 32     swap AB, 32-token tiles: the expert's weights on the MMA's 128-row side, its few tokens as
//                the MMA's columns (decode: the weights are read once per 32 tokens and the MMA is not
//                padded to 128 token rows)
//   33 .. 128    tiles of 128 token rows on one CTA (an expert with few tokens wastes less of a 128-row tile
//                than of a 256-row one)
//   more         the CTA pair's 256-row tiles (the weights read once per 256 rows)
// Static persistent (the grid fixed by the host arguments), as many stages as fit (the NVFP4 ones: the dense
// Configs' counts). The NVFP4 dual GEMM with an NVFP4 C takes the tiled two only. Not measured: no B200 has
// run them; the bounds are the tile heights, not measured crossovers.
inline constexpr int64_t kGroupedSwapAbMaxTokens = 32;
inline constexpr int64_t kGroupedOneCtaMaxTokens = 128;

template <class Out>
using GroupedGemmSwapAbTokens32 =
    GemmSwapAbConfig<32, 10, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GroupedGemmTokens128 = GemmConfig<128, 0, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GroupedGemmTokens256 = GemmConfig<256, 0, 2, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out, class Epilogue>
using GroupedDualGemmSwapAbTokens32 = DualSwapAbConfig<32, 6, sched::StaticPersistent, Epilogue, Out>;
template <class Out, class Epilogue>
using GroupedDualGemmTokens128 = DualGemmConfig<128, 0, 1, sched::StaticPersistent, Epilogue, Out>;
template <class Out, class Epilogue>
using GroupedDualGemmTokens256 = DualGemmConfig<128, 0, 2, sched::StaticPersistent, Epilogue, Out>;
template <class Out>
using GroupedNvfp4GemmSwapAbTokens32 =
    Nvfp4GemmSwapAbConfig<32, 9, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GroupedNvfp4GemmTokens128 =
    Nvfp4GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GroupedNvfp4GemmTokens256 =
    Nvfp4GemmConfig<128, 8, 2, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out, class Epilogue>
using GroupedNvfp4DualGemmSwapAbTokens32 =
    Nvfp4DualSwapAbConfig<32, 5, sched::StaticPersistent, Epilogue, Out>;
template <class Out, class Epilogue>
using GroupedNvfp4DualGemmTokens128 = Nvfp4DualGemmConfig<128, 4, 1, sched::StaticPersistent, Epilogue, Out>;
template <class Out, class Epilogue>
using GroupedNvfp4DualGemmTokens256 = Nvfp4DualGemmConfig<128, 5, 2, sched::StaticPersistent, Epilogue, Out>;

// The default entry points' choices, in the order of the tuning candidate lists (sm100/tuning.hpp).
enum class GroupedChoice { kSwapAbTokens32, kTokens128, kTokens256 };
static_assert(kGroupedChoiceCount == static_cast<int>(GroupedChoice::kTokens256) + 1,
              "sm100/tuning.hpp names every GroupedChoice, in order");

// The rules' choice for an expert's expected tokens (the swap-AB one only where the operation has it).
constexpr GroupedChoice grouped_choice(int64_t expected_tokens, bool swap_ab) {
  return swap_ab && expected_tokens <= kGroupedSwapAbMaxTokens ? GroupedChoice::kSwapAbTokens32
         : expected_tokens <= kGroupedOneCtaMaxTokens          ? GroupedChoice::kTokens128
                                                               : GroupedChoice::kTokens256;
}

namespace detail {
// Runs the choice for the call: the tuning registry's entry for (op, the elements, expected tokens per
// expert, N, K, E) where one applies (sm100/tuning.hpp; no split K: the grouped kernels take none), else the
// rules' (grouped_choice); names it with the diagnostic switch on. Swap is void where the operation has no
// swap-AB Config (an NVFP4 C).
template <template <class> class SwapOp, class Swap, template <class> class Op, class Small, class Large,
          class Args>
Status run_grouped_choice(const Args& a, cudaStream_t stream, tuning::Operation op, tuning::Element in,
                          tuning::Element out, const char* entry, const char* const* names) {
  constexpr bool kHasSwapAb = !std::is_void_v<Swap>;
  const int64_t expected = grouped_expected_tokens(a);
  const tuning::Key key{op, in, out, BLayout::kColumnMajorKxN, expected, a.n, a.k, a.experts};
  const TableChoice c = choose_for_current_device(
      key, static_cast<int>(grouped_choice(expected, kHasSwapAb)), names, kGroupedChoiceCount,
      [](int i, int split_k) {
        return split_k <= 1 &&
               (kHasSwapAb || static_cast<GroupedChoice>(i) != GroupedChoice::kSwapAbTokens32);
      },
      kHasSwapAb ? "the grouped kernels take no split" : "its Config cannot write an NVFP4 output or split");
  if (diagnostics_enabled())
    ::bwgemm::detail::report_choice(entry, expected, a.n, a.k, a.experts,
                                    (std::string("sm100::") + names[c.index]).c_str());
  switch (static_cast<GroupedChoice>(c.index)) {
    case GroupedChoice::kSwapAbTokens32:
      if constexpr (kHasSwapAb) return SwapOp<Swap>::run(a, stream);
      return Op<Small>::run(a, stream);  // not reached: refused by the check above
    case GroupedChoice::kTokens128:
      return Op<Small>::run(a, stream);
    default:
      return Op<Large>::run(a, stream);
  }
}
}  // namespace detail

template <class In, class Out>
Status grouped_gemm(const GroupedGemmArguments<In, Out>& a, cudaStream_t stream = nullptr) {
  return detail::run_grouped_choice<GroupedGemmSwapAb, GroupedGemmSwapAbTokens32<Out>, GroupedGemm,
                                    GroupedGemmTokens128<Out>, GroupedGemmTokens256<Out>>(
      a, stream, tuning::Operation::kGroupedGemm, host::tuning_element<In>(), host::tuning_element<Out>(),
      "bwgemm::sm100::grouped_gemm", kGroupedGemmChoiceNames);
}

template <class Out>
Status grouped_gemm_nvfp4(const Nvfp4GroupedGemmArguments<Out>& a, cudaStream_t stream = nullptr) {
  return detail::run_grouped_choice<GroupedNvfp4GemmSwapAb, GroupedNvfp4GemmSwapAbTokens32<Out>,
                                    GroupedNvfp4Gemm, GroupedNvfp4GemmTokens128<Out>,
                                    GroupedNvfp4GemmTokens256<Out>>(
      a, stream, tuning::Operation::kNvfp4GroupedGemm, tuning::Element::kNvfp4, host::tuning_element<Out>(),
      "bwgemm::sm100::grouped_gemm_nvfp4", kNvfp4GroupedGemmChoiceNames);
}

template <class In, class Out, class Epilogue>
Status grouped_dual_gemm(const GroupedDualGemmArguments<In, Out, Epilogue>& a,
                         cudaStream_t stream = nullptr) {
  return detail::run_grouped_choice<GroupedDualGemmSwapAb, GroupedDualGemmSwapAbTokens32<Out, Epilogue>,
                                    GroupedDualGemm, GroupedDualGemmTokens128<Out, Epilogue>,
                                    GroupedDualGemmTokens256<Out, Epilogue>>(
      a, stream, tuning::Operation::kGroupedDualGemm, host::tuning_element<In>(), host::tuning_element<Out>(),
      "bwgemm::sm100::grouped_dual_gemm", kGroupedDualGemmChoiceNames);
}

template <class Out, class Epilogue>
Status grouped_dual_gemm_nvfp4(const Nvfp4GroupedDualGemmArguments<Out, Epilogue>& a,
                               cudaStream_t stream = nullptr) {
  // An NVFP4 C: the tiled Configs only (the swap-AB kernels write 16-bit outputs).
  constexpr bool kNvfp4Out = std::is_same_v<Out, Nvfp4Output>;
  using Swap = std::conditional_t<kNvfp4Out, void, GroupedNvfp4DualGemmSwapAbTokens32<Out, Epilogue>>;
  tuning::Element out = tuning::Element::kNvfp4;
  if constexpr (!kNvfp4Out) out = host::tuning_element<Out>();
  return detail::run_grouped_choice<GroupedNvfp4DualGemmSwapAb, Swap, GroupedNvfp4DualGemm,
                                    GroupedNvfp4DualGemmTokens128<Out, Epilogue>,
                                    GroupedNvfp4DualGemmTokens256<Out, Epilogue>>(
      a, stream, tuning::Operation::kNvfp4GroupedDualGemm, tuning::Element::kNvfp4, out,
      "bwgemm::sm100::grouped_dual_gemm_nvfp4", kNvfp4GroupedDualGemmChoiceNames);
}

}  // namespace bwgemm::sm100
