// The last step of an epilogue: fp32 values -> the output type -> global memory, 8 consecutive columns
// of one row at a time (one 16-byte store for fp16/bf16, two for fp32). Rows and column vectors outside
// the output are masked by the caller (kernels check row < M and col + 8 <= N; N is a multiple of 8).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>  // uint4

#include <cstdint>
#include <type_traits>

#include "bwgemm/common.cuh"

namespace bwgemm::epi {

inline constexpr int kStoreVector = 8;  // outputs per store call

// Two fp32 values as two 16-bit outputs in one 32-bit word (round to nearest even), low half first.
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t pack_two(float lo, float hi) {
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>, "16-bit outputs only");
  uint16_t a, b;
  if constexpr (std::is_same_v<Out, __half>) {
    a = __half_as_ushort(__float2half_rn(lo));
    b = __half_as_ushort(__float2half_rn(hi));
  } else {
    a = __bfloat16_as_ushort(__float2bfloat16_rn(lo));
    b = __bfloat16_as_ushort(__float2bfloat16_rn(hi));
  }
  return static_cast<uint32_t>(a) | (static_cast<uint32_t>(b) << 16);
}

// Stores v[0..7] at dst[0..7]; dst must be 16-byte aligned (32-byte for fp32 is not required: two
// 16-byte stores).
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void store8(Out* dst, const float (&v)[kStoreVector]) {
  if constexpr (std::is_same_v<Out, float>) {
    reinterpret_cast<float4*>(dst)[0] = float4{v[0], v[1], v[2], v[3]};
    reinterpret_cast<float4*>(dst)[1] = float4{v[4], v[5], v[6], v[7]};
  } else {
    const uint4 packed{pack_two<Out>(v[0], v[1]), pack_two<Out>(v[2], v[3]), pack_two<Out>(v[4], v[5]),
                       pack_two<Out>(v[6], v[7])};
    *reinterpret_cast<uint4*>(dst) = packed;
  }
}

}  // namespace bwgemm::epi
