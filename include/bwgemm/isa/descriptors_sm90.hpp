// The sm_90 (Hopper) wgmma shared-memory matrix descriptor as a constexpr value.
//
// Pure C++17 (no CUDA headers), usable on host and device. Every field is named with the bit range it
// occupies (PTX ISA 8.x, section 9.7.15.5.1 "Matrix Descriptor Format" of "Asynchronous Warpgroup Level
// Matrix Multiply-Accumulate Instructions"). test/sm90/wgmma_descriptor_test.cpp pins each field and
// reproduces published known-good constants (pranjalssh/fast.cu's make_smem_desc, CUTLASS's
// GmmaDescriptor) bit for bit.
//
// It differs from the sm_100 descriptor of descriptors.hpp in two fields: bits 46-48 are 0 (no version
// constant) and the swizzle mode is a 2-bit field at bits 62-63 with its own encoding.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>

namespace bwgemm::ptx {

// =====================================================================================================
// wgmma shared memory matrix descriptor (64 bits).
//
//   bits  0-13  matrix start address, (addr & 0x3FFFF) >> 4
//   bits 16-29  leading dimension byte offset (LBO), >> 4
//   bits 32-45  stride dimension byte offset (SBO), >> 4
//   bits 49-51  matrix base offset (for swizzled matrices whose start is not pattern-aligned)
//   bits 62-63  swizzle mode (WgmmaSwizzle)
//   all other bits 0
//
// Operand layouts the kernels use (16-bit elements, 128-byte swizzle, tiles 1024-byte aligned):
//   K-major  (rows of 64 K elements = one 128-byte swizzle row): SBO = 1024 (8-row core groups), LBO is
//            not used by the hardware for swizzled K-major layouts (set to 16 by convention, as fast.cu).
//            One k16 step advances the start address by 32 bytes inside the swizzle row.
//   MN-major (rows of 64 MN elements, one per K index): SBO = 1024 (8 K rows), LBO = byte distance between
//            consecutive 64-element MN chunks (CUTLASS mma_sm90_desc.hpp, canonical layout
//            "Swizzle<3,4,3> o ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))"). One k16 step advances 16 K rows.
// =====================================================================================================

namespace wgmma_desc {
inline constexpr int kStartAddressShift = 0;
inline constexpr int kLeadingByteOffsetShift = 16;
inline constexpr int kStrideByteOffsetShift = 32;
inline constexpr int kBaseOffsetShift = 49;
inline constexpr int kSwizzleShift = 62;
inline constexpr uint64_t k14BitMask = 0x3FFF;           // width of the address / LBO / SBO fields
inline constexpr uint32_t kAddressableBytes = 1u << 18;  // (x & 0x3FFFF) >> 4 fits 14 bits
}  // namespace wgmma_desc

// Swizzling mode, bits 62-63 of the wgmma descriptor (CUTLASS GMMA::LayoutType: INTERLEAVE, B128, B64, B32).
enum class WgmmaSwizzle : uint8_t {
  kNone = 0,  // interleaved 8x16B core matrices
  k128B = 1,
  k64B = 2,
  k32B = 3,
};

struct WgmmaSmemDescriptor {
  uint32_t start_address = 0;        // shared-window byte address of the matrix (16-byte aligned)
  uint32_t leading_byte_offset = 0;  // LBO in bytes (multiple of 16)
  uint32_t stride_byte_offset = 0;   // SBO in bytes (multiple of 16)
  uint32_t base_offset = 0;          // 0..7
  WgmmaSwizzle swizzle = WgmmaSwizzle::kNone;

  BWGEMM_HD constexpr uint64_t encode() const {
    using namespace wgmma_desc;
    return (encode_bytes(start_address) << kStartAddressShift) |
           (encode_bytes(leading_byte_offset) << kLeadingByteOffsetShift) |
           (encode_bytes(stride_byte_offset) << kStrideByteOffsetShift) |
           (static_cast<uint64_t>(base_offset & 7u) << kBaseOffsetShift) |
           (static_cast<uint64_t>(swizzle) << kSwizzleShift);
  }

  // nullptr when every field is encodable without loss, else what is wrong.
  BWGEMM_HD constexpr const char* error() const {
    if (start_address % 16 != 0) return "start_address must be a multiple of 16 bytes";
    if (leading_byte_offset % 16 != 0) return "leading_byte_offset must be a multiple of 16 bytes";
    if (stride_byte_offset % 16 != 0) return "stride_byte_offset must be a multiple of 16 bytes";
    if (leading_byte_offset >= wgmma_desc::kAddressableBytes) return "leading_byte_offset must be < 2^18";
    if (stride_byte_offset >= wgmma_desc::kAddressableBytes) return "stride_byte_offset must be < 2^18";
    if (base_offset > 7) return "base_offset must be 0..7";
    if (static_cast<uint8_t>(swizzle) > 3) return "swizzle is not an sm_90 swizzling mode";
    return nullptr;
  }

  // The 14-bit "address >> 4" encoding of the address / LBO / SBO fields.
  BWGEMM_HD static constexpr uint64_t encode_bytes(uint32_t bytes) {
    return (static_cast<uint64_t>(bytes) & 0x3FFFFULL) >> 4;
  }
};

// Inverse of WgmmaSmemDescriptor::encode (the start address comes back as (addr & 0x3FFFF)).
BWGEMM_HD constexpr WgmmaSmemDescriptor decode_wgmma_smem_descriptor(uint64_t desc) {
  using namespace wgmma_desc;
  WgmmaSmemDescriptor d;
  d.start_address = static_cast<uint32_t>(((desc >> kStartAddressShift) & k14BitMask) << 4);
  d.leading_byte_offset = static_cast<uint32_t>(((desc >> kLeadingByteOffsetShift) & k14BitMask) << 4);
  d.stride_byte_offset = static_cast<uint32_t>(((desc >> kStrideByteOffsetShift) & k14BitMask) << 4);
  d.base_offset = static_cast<uint32_t>((desc >> kBaseOffsetShift) & 7u);
  d.swizzle = static_cast<WgmmaSwizzle>((desc >> kSwizzleShift) & 3u);
  return d;
}

// The descriptor `base` (built with start_address 0) moved to `smem_addr`: the hot-loop patch of the low
// 14 bits only (DeepGEMM and fast.cu add the encoded address to a prebuilt descriptor the same way).
BWGEMM_HD constexpr uint64_t wgmma_desc_with_address(uint64_t base, uint32_t smem_addr) {
  return (base & ~(wgmma_desc::k14BitMask << wgmma_desc::kStartAddressShift)) |
         WgmmaSmemDescriptor::encode_bytes(smem_addr);
}

// Geometry of a 128-byte-swizzled tile of 16-bit elements (fp16/bf16), the only operand layout the sm_90a
// kernels use.
inline constexpr uint32_t kSw128RowBytes = 128;                   // one swizzle row
inline constexpr uint32_t kSw128AtomBytes = 8 * kSw128RowBytes;   // 8 rows: the swizzle pattern repeats
inline constexpr uint32_t kSw128Elements16 = kSw128RowBytes / 2;  // 64 16-bit elements per row
inline constexpr uint32_t kWgmmaM = 64;    // M of every wgmma.mma_async (PTX ISA 9.7.15)
inline constexpr uint32_t kWgmmaK16 = 16;  // K of one wgmma with 16-bit inputs
inline constexpr uint32_t kWgmmaK16BytesKMajor = kWgmmaK16 * 2;     // k16 step in a K-major tile: 32 bytes
inline constexpr uint32_t kWgmmaK16BytesMnMajor = kWgmmaK16 * 128;  // k16 step in an MN-major tile: 16 rows

// The N of m64nNk16 that ptx::wgmma_ss (wgmma.cuh) instantiates: a subset of the ISA's multiples of 8 in
// [8, 256] (what the kernels use, plus small ones for tests). Adding one is one line there and one here.
template <int N>
inline constexpr bool kWgmmaSupportedN = N == 8 || N == 16 || N == 32 || N == 48 || N == 64 || N == 96 ||
                                         N == 128 || N == 160 || N == 192 || N == 256;

// K-major operand, 128-byte swizzle: SBO = one 8-row atom, LBO unused (16 by convention).
inline constexpr uint64_t kWgmmaKMajorSw128Desc =
    WgmmaSmemDescriptor{0, 16, kSw128AtomBytes, 0, WgmmaSwizzle::k128B}.encode();

// MN-major operand, 128-byte swizzle, whose consecutive 64-element MN chunks are `chunk_bytes` apart.
BWGEMM_HD constexpr uint64_t wgmma_mn_major_sw128_desc(uint32_t chunk_bytes) {
  return WgmmaSmemDescriptor{0, chunk_bytes, kSw128AtomBytes, 0, WgmmaSwizzle::k128B}.encode();
}

}  // namespace bwgemm::ptx
