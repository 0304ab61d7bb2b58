// The shared-memory swizzle patterns that TMA writes and tcgen05.mma / tcgen05.cp read (PTX ISA 5.5.6
// "Tensor swizzling modes"; CUTLASS Swizzle<B,4,3>). A swizzle of span S bytes (32, 64 or 128) XORs the
// 16-byte chunk index inside an S-byte row (address bits 4 .. 4+log2(S/16)-1) with the row index inside the
// pattern (address bits 7 .. 7+log2(S/16)-1). The pattern repeats every 8 rows (256, 512 or 1024 bytes).
// It is computed on the shared-window address, so writer and reader agree only when both see the same
// address bits: data written by TMA at address A is found by the MMA at address A.
#pragma once

#include <cstdint>

namespace bwgemm::emu::detail {

inline constexpr uint32_t kSwizzleChunkBytes = 16;
inline constexpr uint32_t kSwizzleRowShift = 7;  // the row index is taken from bits 7.. (128-byte rows)

// span_bytes: 0 (no swizzle), 32, 64 or 128.
inline constexpr uint32_t swizzle_address(uint32_t addr, uint32_t span_bytes) {
  if (span_bytes == 0) return addr;
  const uint32_t mask = span_bytes / kSwizzleChunkBytes - 1;  // 1, 3 or 7
  return addr ^ (((addr >> kSwizzleRowShift) & mask) << 4);
}

static_assert(swizzle_address(0x400 + 128 * 3 + 16 * 1, 128) == 0x400 + 128 * 3 + 16 * 2,
              "row 3 chunk 1 -> 2");
static_assert(swizzle_address(0x400 + 128 * 1 + 16 * 0, 32) == 0x400 + 128 * 1 + 16 * 1,
              "32B: bit 7 -> bit 4");
static_assert(swizzle_address(0x400 + 128 * 5, 64) == 0x400 + 128 * 5 + 16 * 1, "64B: row 5 & 3 = 1");

}  // namespace bwgemm::emu::detail
