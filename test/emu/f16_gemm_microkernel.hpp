// A kind::f16 tcgen05 GEMM microkernel with seed 004's descriptor constants: D[M,N] (f32) = A[M,K] * B[K,N],
// A row-major (K-major, 128B swizzle), B row-major K x N (MN-major, 128B swizzle), fp16 in; cta_group::1
// (M = 128 per CTA) or cta_group::2 (M = 256 per CTA pair, B split between the pair, commit multicast to
// both CTAs). Warps 0-3: epilogue (tcgen05.ld -> global f32), warp 4: TMA producer, warp 5: MMA issuer.
// `Faults` injects the deliberate bugs the emulator tests must catch.
#pragma once

#include <cstdint>

#include <bwgemm/host/tensor_map.hpp>
#include <bwgemm/ptx/ptx.cuh>

namespace f16_gemm {

namespace ptx = bwgemm::ptx;

inline constexpr int kBlockM = 128;  // rows per CTA
inline constexpr int kBlockK = 64;   // one 128-byte swizzle row of fp16
inline constexpr int kMmaK = 16;
inline constexpr int kStages = 2;
inline constexpr int kThreads = 6 * 32;
inline constexpr int kEpilogueWarps = 4, kProducerWarp = 4, kMmaWarp = 5;

template <int CtaGroup>
struct Shape {
  static constexpr int kBlockN = CtaGroup == 1 ? 64 : 128;  // MMA N
  static constexpr int kBnPerCta = kBlockN / CtaGroup;      // B columns each CTA loads
  static constexpr int kASize = kBlockM * kBlockK * 2;
  static constexpr int kBSize = kBlockK * kBnPerCta * 2;
  static constexpr int kStageBytes = kASize + kBSize;
  static constexpr int kBarOffset = kStages * kStageBytes;  // tma[kStages], mma[kStages], mainloop, tmem slot
  static constexpr int kSmemBytes = kBarOffset + (2 * kStages + 2) * 8;
  static constexpr int kTmemCols = kBlockN;
};

struct Faults {
  int32_t expect_tx_delta = 0;           // added to the producer's arrive.expect_tx byte count
  bool skip_epilogue_wait = false;       // epilogue reads TMEM without waiting for the MMA's commit
  uint32_t a_desc_swizzle_override = 0;  // nonzero: this sm_100 swizzle code replaces A's 128B (2)
};

// seed 004: desc_encode(x) = (x & 0x3FFFF) >> 4
constexpr uint64_t desc_encode(uint64_t x) {
  return (x & 0x3'FFFFULL) >> 4ULL;
}

template <int CtaGroup>
__global__ void __launch_bounds__(kThreads)
    f16_gemm_kernel(const __grid_constant__ CUtensorMap a_tmap, const __grid_constant__ CUtensorMap b_tmap,
                    float* c, int n_total, int k_total, Faults faults) {
  using S = Shape<CtaGroup>;
  const uint32_t tid = ptx::thread_idx().x;
  const uint32_t warp = ptx::warp_idx();
  const uint32_t rank = ptx::cluster_ctarank();
  const uint32_t smem = ptx::dynamic_smem_base();
  const uint32_t tma_bar = smem + S::kBarOffset;
  const uint32_t mma_bar = tma_bar + kStages * 8;
  const uint32_t mainloop_bar = mma_bar + kStages * 8;
  const uint32_t tmem_slot = mainloop_bar + 8;
  const int num_iters = k_total / kBlockK;
  // Grid: x = n tiles * CtaGroup, y = m pairs (seed 004).
  const int bid_n = ptx::block_idx().x / CtaGroup;
  const int off_m = (ptx::block_idx().y * CtaGroup + rank) * kBlockM;
  const int off_n = bid_n * S::kBlockN + rank * S::kBnPerCta;

  if (warp == 0 && ptx::elect_one_sync()) {
    for (int i = 0; i < kStages; ++i) {
      ptx::mbarrier_init(tma_bar + i * 8, CtaGroup);
      ptx::mbarrier_init(mma_bar + i * 8, 1);
    }
    ptx::mbarrier_init(mainloop_bar, 1);
    ptx::fence_mbarrier_init();
  }
  if (warp == kMmaWarp) ptx::tcgen05_alloc<CtaGroup>(tmem_slot, S::kTmemCols);
  if constexpr (CtaGroup > 1) {
    ptx::cluster_arrive_relaxed();
    ptx::cluster_wait();
  } else {
    ptx::sync_threads();
  }
  const uint32_t taddr = *static_cast<const uint32_t*>(ptx::shared_address_to_pointer(tmem_slot));

  if (warp == kProducerWarp) {
    if (ptx::elect_one_sync()) {
      int stage = 0;
      uint32_t mma_phase = 1;
      const uint32_t tma_bar_even = ptx::even_cta_address(tma_bar);
      for (int it = 0; it < num_iters; ++it) {
        const uint32_t bar = tma_bar_even + stage * 8;
        const uint32_t a_smem = smem + stage * S::kStageBytes;
        const uint32_t b_smem = a_smem + S::kASize;
        const int off_k = it * kBlockK;
        ptx::mbarrier_wait_parity(mma_bar + stage * 8, mma_phase);
        const int32_t a_coords[3] = {0, off_m, off_k / 64};
        const int32_t b_coords[3] = {0, off_k, off_n / 64};
        ptx::tma_load<CtaGroup>(a_smem, &a_tmap, bar, a_coords);
        ptx::tma_load<CtaGroup>(b_smem, &b_tmap, bar, b_coords);
        ptx::mbarrier_arrive_expect_tx_cluster(bar, S::kASize + S::kBSize + faults.expect_tx_delta);
        stage = (stage + 1) % kStages;
        if (stage == 0) mma_phase ^= 1;
      }
    }
    return;
  }

  if (warp == kMmaWarp) {
    // seed 004's instruction and shared memory descriptors.
    constexpr uint32_t kMmaM = kBlockM * CtaGroup;
    constexpr uint32_t kMmaN = S::kBlockN;
    constexpr uint32_t i_desc =
        (1U << 4U) | (0U << 7U) | (0U << 10U) | (1U << 16U) | (kMmaN >> 3U << 17U) | (kMmaM >> 4U << 24U);
    static_assert(i_desc == ptx::InstrDescF16{ptx::MmaDFormat::kF32, ptx::MmaF16Format::kF16,
                                              ptx::MmaF16Format::kF16, false, false, ptx::MmaMajor::kK,
                                              ptx::MmaMajor::kMN, kMmaM, kMmaN}
                                .encode());
    constexpr uint64_t a_desc_base = (desc_encode(8 * 128) << 32ULL) | (1ULL << 46ULL) | (2ULL << 61ULL);
    constexpr uint64_t b_desc_base = (desc_encode(kBlockK * 128) << 16ULL) | (desc_encode(8 * 128) << 32ULL) |
                                     (1ULL << 46ULL) | (2ULL << 61ULL);
    uint64_t a_base = a_desc_base;
    if (faults.a_desc_swizzle_override != 0) {
      a_base = (a_desc_base & ~(7ULL << 61)) | (uint64_t{faults.a_desc_swizzle_override} << 61);
    }
    if (rank == 0 && ptx::elect_one_sync()) {
      int stage = 0;
      uint32_t tma_phase = 0;
      constexpr uint16_t cta_mask = (1 << CtaGroup) - 1;
      for (int it = 0; it < num_iters; ++it) {
        const uint32_t a_smem = smem + stage * S::kStageBytes;
        const uint32_t b_smem = a_smem + S::kASize;
        uint64_t a_desc = a_base | (a_smem >> 4);
        uint64_t b_desc = b_desc_base | (b_smem >> 4);
        ptx::mbarrier_wait_parity(tma_bar + stage * 8, tma_phase);
        ptx::tcgen05_fence_after_thread_sync();
        ptx::tcgen05_mma_f16<CtaGroup>(taddr, a_desc, b_desc, i_desc, it != 0);
        for (int k = 1; k < kBlockK / kMmaK; ++k) {
          a_desc += (32ULL >> 4);
          b_desc += ((kMmaK * 128ULL) >> 4);
          ptx::tcgen05_mma_f16<CtaGroup>(taddr, a_desc, b_desc, i_desc, true);
        }
        if constexpr (CtaGroup == 1) {
          ptx::tcgen05_commit<1>(mma_bar + stage * 8);
        } else {
          ptx::tcgen05_commit_multicast<CtaGroup>(mma_bar + stage * 8, cta_mask);
        }
        stage = (stage + 1) % kStages;
        if (stage == 0) tma_phase ^= 1;
      }
      if constexpr (CtaGroup == 1) {
        ptx::tcgen05_commit<1>(mainloop_bar);
      } else {
        ptx::tcgen05_commit_multicast<CtaGroup>(mainloop_bar, cta_mask);
      }
    }
    return;
  }

  // Epilogue warps 0-3: D row (rank * 128 + warp * 32 + lane) of the pair, as seed 004 addresses it.
  if (!faults.skip_epilogue_wait) ptx::mbarrier_wait_parity<ptx::Scope::kCluster>(mainloop_bar, 0);
  ptx::tcgen05_fence_after_thread_sync();
  constexpr int kWidth = 16;
  const uint32_t lane = ptx::lane_idx();
  for (int n = 0; n < S::kBlockN / kWidth; ++n) {
    const uint32_t t_row = rank * 128 + warp * 32;
    uint32_t v[kWidth];
    ptx::tcgen05_ld_32x32b<kWidth>(taddr + (t_row << 16) + n * kWidth, v);
    ptx::tcgen05_wait_ld();
    const int row = off_m + static_cast<int>(warp * 32 + lane);
    const int col = bid_n * S::kBlockN + n * kWidth;
    for (int i = 0; i < kWidth; ++i) {
      float f;
      std::memcpy(&f, &v[i], 4);
      c[static_cast<int64_t>(row) * n_total + col + i] = f;
    }
  }
  if constexpr (CtaGroup > 1) {
    ptx::cluster_arrive_release();
    ptx::cluster_wait();
  } else {
    ptx::named_barrier_sync(1, kEpilogueWarps * 32);
  }
  if (warp == 0) ptx::tcgen05_dealloc<CtaGroup>(taddr, S::kTmemCols);
  (void)tid;
}

// seed 004's init_tmap_3d_128B_fp16: {64, height, width / 64} with strides {width * 2, 128}.
inline bwgemm::Status make_tmap_128b_fp16(CUtensorMap* map, const void* ptr, uint64_t height, uint64_t width,
                                          uint32_t box_height, uint32_t box_width) {
  bwgemm::TensorMapDesc d;
  d.data_type = bwgemm::TensorMapDataType::kFloat16;
  d.rank = 3;
  d.global_address = ptr;
  d.global_dims[0] = 64;
  d.global_dims[1] = height;
  d.global_dims[2] = width / 64;
  d.global_strides_bytes[0] = width * 2;
  d.global_strides_bytes[1] = 128;
  d.box_dims[0] = 64;
  d.box_dims[1] = box_height;
  d.box_dims[2] = box_width / 64;
  d.swizzle = bwgemm::TensorMapSwizzle::k128B;
  return bwgemm::encode_tensor_map(d, map);
}

}  // namespace f16_gemm
