// A kind::mxf4nvf4.block16 (NVFP4) tcgen05 GEMM microkernel with seed 000's constants, for a CTA pair
// (seed 000's cta_group::2 form) and for a single CTA (cta_group::1, M = 128): D[M,N] (f32) =
// A[M,K] * B[N,K]^T, A and B packed e2m1 K-major (16U4_ALIGN8B TMA, 128B swizzle), e4m3 scales per 16 K in
// the 128x4 blocked layout (TMA'd as 512-byte atoms, SFB multicast from the even CTA), copied to tensor
// memory with tcgen05.cp.32x128b.warpx4; M = 256 per CTA pair, BLOCK_N = 64 (32 B rows per CTA),
// BLOCK_K = 256, the scale_B column offset (cluster_n % (128 / BLOCK_N)) * (BLOCK_N / 32).
// Warps 0-3: epilogue, warp 4: TMA (tensors + scales), warp 5: MMA (even CTA only).
#pragma once

#include <cstdint>
#include <cstring>

#include <bwgemm/host/tensor_map.hpp>
#include <bwgemm/ptx/ptx.cuh>

namespace nvfp4_gemm {

namespace ptx = bwgemm::ptx;

inline constexpr int kBlockM = 128, kBlockN = 64, kBlockK = 256, kMmaK = 64, kStages = 2;
inline constexpr int kThreads = 6 * 32;
inline constexpr int kASize = kBlockM * kBlockK / 2;
inline constexpr int kSfaSize = 128 * kBlockK / 16;
inline constexpr int kSfbSize = 128 * kBlockK / 16;
inline constexpr int kSfbColsPerK = 4;  // 128 cols / 32
inline constexpr int kAccTmem = 0;
inline constexpr int kTmemCols = 256;

// What depends on the CTA group: the pair splits B (each CTA loads BLOCK_N / 2 rows) and seed 000 spaces
// the SFA columns 8 apart per K step for M = 256 (4 are written); a single CTA has M = 128 and 4.
template <int CtaGroup>
struct Shape {
  static constexpr int kBRows = kBlockN / CtaGroup;
  static constexpr int kBSize = kBRows * kBlockK / 2;
  static constexpr int kStageBytes = kASize + kBSize + kSfaSize + kSfbSize;
  static constexpr int kBarOffset = kStages * kStageBytes;
  static constexpr int kSmemBytes = kBarOffset + (2 * kStages + 2) * 8;
  static constexpr int kSfaColsPerK = CtaGroup == 2 ? 8 : 4;
  static constexpr int kSfaTmem = 2 * kBlockN;
  static constexpr int kSfbTmem = kSfaTmem + kSfaColsPerK * (kBlockK / kMmaK);
};

BWGEMM_HD constexpr uint64_t desc_encode(uint64_t x) {
  return (x & 0x3'FFFFULL) >> 4ULL;
}

template <int kCtaGroup>
__global__ void __launch_bounds__(kThreads)
    nvfp4_gemm_kernel(const __grid_constant__ CUtensorMap a_tmap, const __grid_constant__ CUtensorMap b_tmap,
                      const __grid_constant__ CUtensorMap sfa_tmap,
                      const __grid_constant__ CUtensorMap sfb_tmap, float* c, int n_total, int k_total) {
  using S = Shape<kCtaGroup>;
  constexpr int kHalfBlockN = S::kBRows, kStageBytes = S::kStageBytes, kBarOffset = S::kBarOffset;
  constexpr int kBSize = S::kBSize, kSfaColsPerK = S::kSfaColsPerK, kSfaTmem = S::kSfaTmem,
                kSfbTmem = S::kSfbTmem;
  const uint32_t warp = ptx::warp_idx();
  const uint32_t rank = ptx::cluster_ctarank();
  const uint32_t smem = ptx::dynamic_smem_base();
  const uint32_t tma_bar = smem + kBarOffset;
  const uint32_t mma_bar = tma_bar + kStages * 8;
  const uint32_t mainloop_bar = mma_bar + kStages * 8;
  const uint32_t tmem_slot = mainloop_bar + 8;
  // seed 000 v6: M-mode first, cluster = one 256 x BLOCK_N tile.
  const int cluster_idx = ptx::block_idx().x / kCtaGroup;
  const int grid_n_clusters = n_total / kBlockN;
  const int cluster_m = cluster_idx / grid_n_clusters;
  const int cluster_n = cluster_idx % grid_n_clusters;
  const int off_m = cluster_m * (kBlockM * kCtaGroup) + rank * kBlockM;
  const int off_n = cluster_n * kBlockN;
  const int num_iters = k_total / kBlockK;

  if (warp == 0 && ptx::elect_one_sync()) {
    for (int i = 0; i < kStages; ++i) {
      ptx::mbarrier_init(tma_bar + i * 8, kCtaGroup * 2);  // tensor + scale arrive.expect_tx per CTA
      ptx::mbarrier_init(mma_bar + i * 8, 1);
    }
    ptx::mbarrier_init(mainloop_bar, 1);
    ptx::fence_mbarrier_init();
  } else if (warp == 1) {
    ptx::tcgen05_alloc<kCtaGroup>(tmem_slot, kTmemCols);
  }
  ptx::cluster_sync();
  const uint32_t taddr = *static_cast<const uint32_t*>(ptx::shared_address_to_pointer(tmem_slot));

  // seed 000's instruction and shared-memory descriptors.
  // seed 000: (2U << 27U) is M = 256 (M >> 7 at bit 27); the single CTA writes M = 128 the same way.
  constexpr uint32_t i_desc =
      (1U << 7U) | (1U << 10U) | ((uint32_t)kBlockN >> 3U << 17U) | (uint32_t(kCtaGroup) << 27U);
  static_assert(i_desc == ptx::InstrDescMxf4Nvf4{ptx::MmaF4Format::kE2M1, ptx::MmaF4Format::kE2M1, false,
                                                 false, ptx::MmaMajor::kK, ptx::MmaMajor::kK,
                                                 uint32_t(128 * kCtaGroup), kBlockN}
                              .encode());
  constexpr int kSboAb = 8 * 128;
  constexpr int kSboSf = 8 * 16;
  constexpr uint64_t ab_desc_base = (desc_encode(kSboAb) << 32ULL) | (1ULL << 46ULL) | (2ULL << 61ULL);
  constexpr uint64_t sf_desc_base = (desc_encode(kSboSf) << 32ULL) | (1ULL << 46ULL);

  if (warp == 4 && ptx::elect_one_sync()) {
    int stage = 0;
    uint32_t mma_phase = 1;
    for (int it = 0; it < num_iters; ++it) {
      if (it >= kStages) ptx::mbarrier_wait_parity(mma_bar + stage * 8, mma_phase);
      const uint32_t bar = ptx::even_cta_address(tma_bar + stage * 8);
      const int off_k = it * kBlockK;
      const uint32_t a_smem = smem + stage * kStageBytes;
      const uint32_t b_smem = a_smem + kASize;
      const uint32_t sfa_smem = b_smem + kBSize;
      const uint32_t sfb_smem = sfa_smem + kSfaSize;
      ptx::mbarrier_arrive_expect_tx_cluster(bar, kASize + kBSize);
      const int32_t a_c[3] = {0, off_m, off_k / 256};
      const int32_t b_c[3] = {0, off_n + static_cast<int>(rank) * kHalfBlockN, off_k / 256};
      ptx::tma_load<kCtaGroup>(a_smem, &a_tmap, bar, a_c, ptx::kL2EvictFirst);
      ptx::tma_load<kCtaGroup>(b_smem, &b_tmap, bar, b_c, ptx::kL2EvictLast);
      // Multicast complete_tx counts every destination: SFB's bytes twice on the even CTA's barrier.
      const int sf_bytes = kSfaSize + (rank == 0 ? kCtaGroup * kSfbSize : 0);
      ptx::mbarrier_arrive_expect_tx_cluster(bar, sf_bytes);
      const int32_t sfa_c[3] = {0, off_m / 128, off_k / 64};
      ptx::tma_load<kCtaGroup>(sfa_smem, &sfa_tmap, bar, sfa_c);
      if (rank == 0) {
        const int32_t sfb_c[3] = {0, off_n / 128, off_k / 64};
        if constexpr (kCtaGroup == 2) {
          ptx::tma_load_multicast<kCtaGroup>(sfb_smem, &sfb_tmap, bar, sfb_c, (1u << kCtaGroup) - 1u);
        } else {
          ptx::tma_load<kCtaGroup>(sfb_smem, &sfb_tmap, bar, sfb_c);
        }
      }
      stage = (stage + 1) % kStages;
      if (stage == 0) mma_phase ^= 1;
    }
  } else if (warp == 5 && rank == 0 && ptx::elect_one_sync()) {
    const int scale_b_base_off = (cluster_n % (128 / kBlockN)) * (kBlockN / 32);
    int stage = 0;
    uint32_t tma_phase = 0;
    for (int it = 0; it < num_iters; ++it) {
      ptx::mbarrier_wait_parity(tma_bar + stage * 8, tma_phase);
      ptx::tcgen05_fence_after_thread_sync();
      const uint32_t a_smem = smem + stage * kStageBytes;
      const uint32_t b_smem = a_smem + kASize;
      const uint32_t sfa_smem = b_smem + kBSize;
      const uint32_t sfb_smem = sfa_smem + kSfaSize;
      const uint64_t sfa_desc = sf_desc_base + (uint64_t{sfa_smem} >> 4ULL);
      const uint64_t sfb_desc = sf_desc_base + (uint64_t{sfb_smem} >> 4ULL);
      for (int k = 0; k < kBlockK / kMmaK; ++k) {
        ptx::tcgen05_cp<kCtaGroup>(taddr + kSfaTmem + k * kSfaColsPerK, sfa_desc + uint64_t(k) * 32ULL);
        ptx::tcgen05_cp<kCtaGroup>(taddr + kSfbTmem + k * kSfbColsPerK, sfb_desc + uint64_t(k) * 32ULL);
      }
      ptx::tcgen05_fence_before_thread_sync();
      for (int k2 = 0; k2 < kBlockK / kMmaK; ++k2) {
        const uint64_t a_desc = ab_desc_base + desc_encode(a_smem + k2 * 32);
        const uint64_t b_desc = ab_desc_base + desc_encode(b_smem + k2 * 32);
        const uint32_t scale_a = taddr + kSfaTmem + k2 * kSfaColsPerK;
        const uint32_t scale_b = taddr + kSfbTmem + k2 * kSfbColsPerK + scale_b_base_off;
        const bool enable_d = k2 == 0 ? it != 0 : true;
        ptx::tcgen05_mma_mxf4nvf4<kCtaGroup>(taddr + kAccTmem, a_desc, b_desc, i_desc, scale_a, scale_b,
                                             enable_d);
      }
      if constexpr (kCtaGroup == 2) {
        ptx::tcgen05_commit_multicast<kCtaGroup>(mma_bar + stage * 8, (1u << kCtaGroup) - 1u);
      } else {
        ptx::tcgen05_commit<kCtaGroup>(mma_bar + stage * 8);
      }
      stage = (stage + 1) % kStages;
      if (stage == 0) tma_phase ^= 1;
    }
    if constexpr (kCtaGroup == 2) {
      ptx::tcgen05_commit_multicast<kCtaGroup>(mainloop_bar, (1u << kCtaGroup) - 1u);
    } else {
      ptx::tcgen05_commit<kCtaGroup>(mainloop_bar);
    }
  }

  if (warp < 4) {
    ptx::mbarrier_wait_parity(mainloop_bar, 0);
    ptx::tcgen05_fence_after_thread_sync();
    const uint32_t tmem_row = rank * 128 + warp * 32;  // seed 000
    uint32_t acc[32];
    for (int n = 0; n < kBlockN / 32; ++n) {
      ptx::tcgen05_ld_32x32b<32>(taddr + (tmem_row << 16) + kAccTmem + n * 32, acc);
      ptx::tcgen05_wait_ld();
      const int row = off_m + static_cast<int>(warp * 32 + ptx::lane_idx());
      std::memcpy(c + static_cast<int64_t>(row) * n_total + off_n + n * 32, acc, sizeof acc);
    }
  }
  ptx::cluster_sync();
  if (warp == 0) ptx::tcgen05_dealloc<kCtaGroup>(taddr, kTmemCols);
}

// seed 000's init_AB_tmap: {256 fp4, rows, K / 256}, strides {K / 2, 128}, box {256, box_rows, BLOCK_K /
// 256}.
inline bwgemm::Status make_ab_tmap(CUtensorMap* map, const void* ptr, uint64_t rows, uint64_t k,
                                   uint32_t box_rows) {
  bwgemm::TensorMapDesc d;
  d.data_type = bwgemm::TensorMapDataType::kFp4E2M1Packed;
  d.rank = 3;
  d.global_address = ptr;
  d.global_dims[0] = 256;
  d.global_dims[1] = rows;
  d.global_dims[2] = k / 256;
  d.global_strides_bytes[0] = k / 2;
  d.global_strides_bytes[1] = 128;
  d.box_dims[0] = 256;
  d.box_dims[1] = box_rows;
  d.box_dims[2] = kBlockK / 256;
  d.swizzle = bwgemm::TensorMapSwizzle::k128B;
  return bwgemm::encode_tensor_map(d, map);
}

// seed 000's init_SF_tmap: 512-byte atoms viewed as {256 x u16, mn / 128, K / 64}.
inline bwgemm::Status make_sf_tmap(CUtensorMap* map, const void* ptr, uint64_t mn, uint64_t k) {
  bwgemm::TensorMapDesc d;
  d.data_type = bwgemm::TensorMapDataType::kUInt16;
  d.rank = 3;
  d.global_address = ptr;
  d.global_dims[0] = 256;
  d.global_dims[1] = (mn + 127) / 128;  // the blocked layout pads rows to 128
  d.global_dims[2] = k / 64;
  d.global_strides_bytes[0] = (k / 64) * 512;
  d.global_strides_bytes[1] = 512;
  d.box_dims[0] = 256;
  d.box_dims[1] = 1;
  d.box_dims[2] = kBlockK / 64;
  return bwgemm::encode_tensor_map(d, map);
}

}  // namespace nvfp4_gemm
