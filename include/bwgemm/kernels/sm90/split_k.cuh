// Split K over a cluster, the device side shared by the sm_90a kernels that take it (the swap-AB kernel,
// swap_ab_kernel.cuh, and the tiled GEMM, gemm_kernel.cuh): one cluster of `splits` CTAs computes one tile,
// CTA `rank` takes the K blocks split_k_range(k_blocks, splits, rank), and the CTAs reduce their fp32
// partials through distributed shared memory, with no workspace and in a fixed order (the same bits on
// every run):
//
//   1. each consumer thread writes its accumulator registers to this CTA's partial buffer (write_partials:
//      over the stages, which are free once every wgmma is done and every load landed, one tile per CTA),
//   2. cluster barrier (every thread of every CTA),
//   3. each CTA takes quads [rank·Q/S, (rank+1)·Q/S) of the tile's Q quads of partials
//      (for_each_rank_quad_sum), sums each over ranks 0..S-1 in rank order, applies the
//      epilogue and stores D,
//   4. cluster barrier (no CTA leaves, taking its shared memory, while a peer still reads its partials).
//
// Partial layout: [register group][consumer thread] of Group consecutive registers, so thread t's register
// i sits at word ((i / Group)·Threads + t)·Group + i % Group and a warp's writes are consecutive words.
// Quad q is words 4q..4q+3 (16 bytes from the buffer's start + 16q): with Group = 1 register 4q / Threads
// of threads t0..t0+3 (t0 = 4q % Threads), with Group = 2 registers 2p, 2p+1 of threads t0, t0+1
// (p = 2q / Threads, t0 = 2q % Threads).
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/isa/types.hpp"  // ptx::Float4
#include "bwgemm/ptx/cluster.cuh"
#include "bwgemm/ptx/misc.cuh"

namespace bwgemm::sm90 {

// The largest split of K: the portable cluster size (CUDA programming guide, "Thread Block Clusters": 8
// CTAs is the portable maximum on sm_90).
inline constexpr int kMaxSplitK = 8;

// The K blocks [begin, end) of split `rank` of `splits`: the K blocks of a tile divided as evenly as whole
// blocks allow (the first k_blocks % splits ranks take one more).
struct KRange {
  int32_t begin, end;
};
BWGEMM_HD constexpr KRange split_k_range(int32_t k_blocks, int32_t splits, int32_t rank) {
  const int32_t base = k_blocks / splits, extra = k_blocks % splits;
  const int32_t begin = rank * base + (rank < extra ? rank : extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

// Consumer thread `tid` (of Threads) writes its Regs accumulator registers to `partials` (this CTA's
// buffer, generic address of shared memory) in the [register group][thread] layout above.
template <int Group, int Threads, int Regs>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void write_partials(float* partials, const float (&acc)[Regs],
                                                     uint32_t tid) {
  static_assert(Group == 1 || Group == 2, "register groups of 1 or 2 (a pair of adjacent columns)");
  static_assert(Regs % Group == 0, "whole register groups");
#pragma unroll
  for (int g = 0; g < Regs / Group; ++g) {
    if constexpr (Group == 2) {
      reinterpret_cast<float2*>(partials)[g * Threads + tid] = float2{acc[2 * g], acc[2 * g + 1]};
    } else {
      partials[g * Threads + tid] = acc[g];
    }
  }
}

// Consumer thread `tid` adds the Regs words it would have written with write_partials (same Group, Threads)
// at `partials` to its accumulator registers: a peer CTA's sums of the same tile (the stream-K hand-off,
// kernels/sm90/gemm_kernel.cuh; `partials` in global memory there).
template <int Group, int Threads, int Regs>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void add_partials(float (&acc)[Regs], const float* partials, uint32_t tid) {
  static_assert(Group == 1 || Group == 2, "register groups of 1 or 2 (a pair of adjacent columns)");
  static_assert(Regs % Group == 0, "whole register groups");
#pragma unroll
  for (int g = 0; g < Regs / Group; ++g) {
    if constexpr (Group == 2) {
      const float2 v = reinterpret_cast<const float2*>(partials)[g * Threads + tid];
      acc[2 * g] += v.x;
      acc[2 * g + 1] += v.y;
    } else {
      acc[g] += partials[g * Threads + tid];
    }
  }
}

// Quads in flight per consumer thread in the tiled GEMM's reduction: each is loaded from every rank before
// any is summed, so a thread has up to kQuadsInFlight x kMaxSplitK 16-byte remote loads outstanding (128
// registers, taken from the accumulators, which are dead once written to the partials) instead of waiting one
// distributed-shared-memory round trip per quad (H200, 2026-12-01: one quad at a time left the split kernels
// several microseconds behind). The swap-AB kernel keeps one
// (Batch = 1): its few quads per thread, and 4 would spill at its register budget (ptxas).
inline constexpr int kQuadsInFlight = 4;

// This thread's quads of rank `rank`'s share of a tile's Quads quads (q = rank·Q/S + tid, + Threads, ...
// below (rank + 1)·Q/S; Quads a multiple of kMaxSplitK, so every split divides it), each summed over ranks
// 0..splits-1 in rank order from zero (the same bits on every run): visit(q, sum) with sum[s] the quad at
// shared address base + s·sum_stride + 16q (Sums partial buffers, e.g. the dual GEMM's two weights). The
// loads of Batch quads are issued together before their sums.
template <int Quads, int Threads, int Sums, int Batch, class Visit>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void for_each_rank_quad_sum(uint32_t splits, uint32_t rank, uint32_t tid,
                                                             uint32_t base, uint32_t sum_stride,
                                                             const Visit& visit) {
  using namespace ::bwgemm::ptx;
  static_assert(Quads % kMaxSplitK == 0, "the partials must split evenly among up to kMaxSplitK CTAs");
  static_assert(Batch >= 1, "at least one quad in flight");
  constexpr int kBatch = Batch;
  const int per_rank = Quads / static_cast<int>(splits);
  const int end = (static_cast<int>(rank) + 1) * per_rank;
  for (int q0 = static_cast<int>(rank) * per_rank + static_cast<int>(tid); q0 < end; q0 += Threads * kBatch) {
    Float4 part[kBatch][Sums][kMaxSplitK];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int q = q0 + b * Threads;
      if (q >= end) continue;
#pragma unroll
      for (int s = 0; s < Sums; ++s) {
        const uint32_t local = base + static_cast<uint32_t>(s) * sum_stride + static_cast<uint32_t>(16 * q);
#pragma unroll
        for (uint32_t r = 0; r < static_cast<uint32_t>(kMaxSplitK); ++r)
          if (r < splits) part[b][s][r] = ld_shared_cluster_v4_f32(mapa_shared_cluster(local, r));
      }
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int q = q0 + b * Threads;
      if (q >= end) continue;
      Float4 sum[Sums];  // zeros
#pragma unroll
      for (int s = 0; s < Sums; ++s) {
#pragma unroll
        for (uint32_t r = 0; r < static_cast<uint32_t>(kMaxSplitK); ++r) {
          if (r < splits) {
            sum[s].x += part[b][s][r].x, sum[s].y += part[b][s][r].y;
            sum[s].z += part[b][s][r].z, sum[s].w += part[b][s][r].w;
          }
        }
      }
      visit(q, sum);
    }
  }
}

}  // namespace bwgemm::sm90
