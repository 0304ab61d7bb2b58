// The global-memory ends of an epilogue, 8 consecutive columns of one row at a time: store8 converts fp32
// values to the output type and stores them (one 16-byte store for fp16/bf16, two for fp32); load8 reads a
// source operand (the GEMM's C) the same way and widens it to fp32. Rows and column vectors outside the
// output are masked by the caller (kernels check row < M and col + 8 <= N; N is a multiple of 8).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>  // uint4

#include <cstdint>
#include <type_traits>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/ptx/global.cuh"

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

// Two fp32 values as two 16-bit outputs in one word with one packed conversion (cvt.rn.{f16,bf16}x2.f32,
// round to nearest even: the same bits as pack_two), low half first.
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t pack2(float lo, float hi) {
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>, "16-bit outputs only");
  if constexpr (std::is_same_v<Out, __half>) {
    return ptx::cvt_rn_f16x2_f32(lo, hi);
  } else {
    return ptx::cvt_rn_bf16x2_f32(lo, hi);
  }
}

// Stores v[0..7] at dst[0..7]; dst must be 16-byte aligned (fp32: two 16-byte stores).
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void store8(Out* dst, const float (&v)[kStoreVector]) {
  if constexpr (std::is_same_v<Out, float>) {
    reinterpret_cast<float4*>(dst)[0] = float4{v[0], v[1], v[2], v[3]};
    reinterpret_cast<float4*>(dst)[1] = float4{v[4], v[5], v[6], v[7]};
  } else {
    const uint4 packed{pack2<Out>(v[0], v[1]), pack2<Out>(v[2], v[3]), pack2<Out>(v[4], v[5]),
                       pack2<Out>(v[6], v[7])};
    *reinterpret_cast<uint4*>(dst) = packed;
  }
}

// Stores v[0..N-1] at dst[0..N-1], N a multiple of 16 (32 bytes of 16-bit outputs): with `aligned32`
// (dst 32-byte aligned) in 256-bit stores that do not allocate in L1 (ptx::st_global_256; seed 004's
// epilogue store), otherwise in 128-bit stores; dst is at least 16-byte aligned.
template <class Out, int N>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void store_row(Out* dst, const float (&v)[N], bool aligned32) {
  static_assert(N % 16 == 0, "store_row stores whole 32-byte units of 16-bit outputs");
  constexpr int kWords = N * static_cast<int>(sizeof(Out)) / 4;
  uint32_t w[kWords];
#pragma unroll
  for (int i = 0; i < kWords; ++i) {
    if constexpr (std::is_same_v<Out, float>) {
      w[i] = f32_to_bits(v[i]);
    } else {
      w[i] = pack2<Out>(v[2 * i], v[2 * i + 1]);
    }
  }
  uint32_t* const out = reinterpret_cast<uint32_t*>(dst);
  if (aligned32) {
#pragma unroll
    for (int i = 0; i < kWords; i += 8) {
      const uint32_t part[8] = {w[i], w[i + 1], w[i + 2], w[i + 3], w[i + 4], w[i + 5], w[i + 6], w[i + 7]};
      ptx::st_global_256<ptx::L1Store::kNoAllocate>(out + i, part);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kWords; i += 4)
      *reinterpret_cast<uint4*>(out + i) = uint4{w[i], w[i + 1], w[i + 2], w[i + 3]};
  }
}

// The 16-bit value in the low (hi = false) or high half of a 32-bit word as fp32.
template <class T>
BWGEMM_DEVICE BWGEMM_FORCEINLINE float unpack_half(uint32_t word, bool hi) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "16-bit types only");
  const auto bits = static_cast<unsigned short>(hi ? word >> 16 : word & 0xFFFFu);
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(__ushort_as_half(bits));
  } else {
    return __bfloat162float(__ushort_as_bfloat16(bits));
  }
}

// Loads src[0..7] as fp32 into v; src must be 16-byte aligned.
template <class T>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void load8(const T* src, float (&v)[kStoreVector]) {
  if constexpr (std::is_same_v<T, float>) {
    const float4 lo = reinterpret_cast<const float4*>(src)[0];
    const float4 hi = reinterpret_cast<const float4*>(src)[1];
    v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w;
    v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
  } else {
    const uint4 packed = *reinterpret_cast<const uint4*>(src);
    const uint32_t words[4] = {packed.x, packed.y, packed.z, packed.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      v[2 * i] = unpack_half<T>(words[i], false);
      v[2 * i + 1] = unpack_half<T>(words[i], true);
    }
  }
}

}  // namespace bwgemm::epi
