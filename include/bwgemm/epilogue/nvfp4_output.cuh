// NVFP4 output of an epilogue: the fp32 values of one row's 16-column blocks quantized as
// bwgemm::quantize_nvfp4 quantizes them (formats/nvfp4.cuh, quantize_nvfp4_block: the per-tensor global scale
// g, e4m3 block scales of amax / (6 g), e2m1 codes of x / (e4m3(scale) · g)), packed two codes a byte, and
// the block scales in the 128x4 blocked layout (formats/scale_layout.cuh).
//
// Nvfp4Output is the tag a kernel Config takes as its Out to write C so (the sm_100a NVFP4 dual GEMM:
// Nvfp4DualGemmConfig<..., Nvfp4Output>); the arguments then carry an Nvfp4OutputTensor and the global scale
// (arguments/nvfp4_dual_gemm.hpp).
#pragma once

#include <cstdint>

#include "bwgemm/formats/nvfp4.cuh"

namespace bwgemm {

// Out = Nvfp4Output: C is an NVFP4 tensor (packed e2m1 data plus blocked e4m3 scales), not fp16 / bf16.
struct Nvfp4Output {};

namespace epi {

inline constexpr int kNvfp4PackedBlockBytes = kNvfp4BlockSize / 2;  // 8: two e2m1 codes a byte

// One 16-column block of fp32 epilogue values -> its e4m3 scale code and the block's 8 packed bytes as a
// little-endian 64-bit word (element 2i in the low nibble of byte i, as quantize_nvfp4 stores them).
BWGEMM_HD BWGEMM_FORCEINLINE uint64_t quantize_nvfp4_packed(const float (&x)[kNvfp4BlockSize],
                                                            float global_scale, uint8_t* scale_code) {
  uint8_t codes[kNvfp4BlockSize];
  quantize_nvfp4_block(x, global_scale, scale_code, codes);
  uint64_t packed = 0;
#pragma unroll
  for (int i = 0; i < kNvfp4BlockSize; i += 2)
    packed |= static_cast<uint64_t>(codes[i] | (codes[i + 1] << 4)) << (4 * i);
  return packed;
}

}  // namespace epi
}  // namespace bwgemm
