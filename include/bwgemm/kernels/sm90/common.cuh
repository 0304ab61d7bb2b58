// Pieces shared by the sm_90a (Hopper) kernels: hardware limits, warpgroup register budgets, and the
// global-memory stores of a wgmma accumulator fragment (pairs of adjacent columns).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/common.cuh"
#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/ptx/descriptors_sm90.hpp"

namespace bwgemm::sm90 {

// Hardware facts of H100/H200 (compute capability 9.0).
inline constexpr int kWarpSize = 32;
inline constexpr int kWarpgroupThreads = 128;        // 4 consecutive warps issue one wgmma
inline constexpr int kWgmmaM = 64;                   // M of every wgmma.mma_async
inline constexpr int kMaxDynamicSmemBytes = 232448;  // 227 KB opt-in shared memory per block (CUDA C++
                                                     // Programming Guide, "Technical Specifications", cc 9.0)
inline constexpr int kSmemAlignment = 1024;          // 128B-swizzle atoms (8 rows x 128 B) must be aligned
// Register budgets after setmaxnreg, per thread: a producer warpgroup that only issues TMA and two consumer
// warpgroups that hold the accumulators. 128·40 + 256·232 = 64512 <= the 65536 registers of an SM.
// (CUTLASS's sm90 warp-specialized cooperative kernel: LoadRegisterRequirement 40, MmaRegisterRequirement
// 232.)
inline constexpr int kProducerRegisters = 40;
inline constexpr int kConsumerRegisters = 232;

BWGEMM_HD constexpr uint32_t round_up_u32(uint32_t x, uint32_t a) {
  return (x + a - 1) / a * a;
}

// Stores out[0], out[1] to dst[0], dst[1] (two adjacent columns of one row; dst 4-byte aligned for 16-bit
// outputs, 8-byte for fp32), or only out[0] when `both` is false (the last, odd column of C).
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void store_pair(Out* dst, float v0, float v1, bool both) {
  if constexpr (std::is_same_v<Out, float>) {
    if (both) {
      *reinterpret_cast<float2*>(dst) = float2{v0, v1};
    } else {
      dst[0] = v0;
    }
  } else {
    const uint32_t packed = epi::pack_two<Out>(v0, v1);
    if (both) {
      *reinterpret_cast<uint32_t*>(dst) = packed;
    } else {
      *reinterpret_cast<uint16_t*>(dst) = static_cast<uint16_t>(packed & 0xFFFFu);
    }
  }
}

}  // namespace bwgemm::sm90
