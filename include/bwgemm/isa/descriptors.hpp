// tcgen05 descriptors as constexpr values: the shared-memory matrix descriptor and the instruction
// descriptors of tcgen05.mma .kind::f16 and .kind::mxf4nvf4.
//
// Pure C++17 (no CUDA headers), usable on host, device and in the emulator. Every field is named, with the
// bit range it occupies and the PTX ISA table it comes from (PTX ISA 8.7, chapter 9.7.16 "TensorCore 5th
// Generation Family Instructions", section "Matrix Descriptors"). test/ptx/descriptors_test.cpp pins each
// field and reproduces the constants of the seed kernels bit for bit.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>

namespace bwgemm::ptx {

// =====================================================================================================
// Shared memory matrix descriptor (PTX ISA 9.7.16.4.1 "Shared Memory Descriptor", 64 bits).
//
//   bits  0-13  matrix start address, (addr & 0x3FFFF) >> 4
//   bits 16-29  leading dimension byte offset (LBO), >> 4
//   bits 32-45  stride dimension byte offset (SBO), >> 4
//   bits 46-48  fixed constant 0b001 (the sm_100 descriptor version; sm_90 wgmma descriptors have 0 here)
//   bits 49-51  matrix base offset (for swizzle patterns whose start is not pattern-aligned)
//   bit  52     leading dimension stride mode: 0 = byte offset relative, 1 = absolute address
//   bits 53-60  fixed constant 0
//   bits 61-63  swizzling mode (SmemSwizzle)
// =====================================================================================================

namespace smem_desc {
inline constexpr int kStartAddressShift = 0;
inline constexpr int kLeadingByteOffsetShift = 16;
inline constexpr int kStrideByteOffsetShift = 32;
inline constexpr int kVersionShift = 46;
inline constexpr int kBaseOffsetShift = 49;
inline constexpr int kLboModeShift = 52;
inline constexpr int kSwizzleShift = 61;
inline constexpr uint64_t k14BitMask = 0x3FFF;           // width of the address / LBO / SBO fields
inline constexpr uint64_t kVersionSm100 = 1;             // bits 46-48 = 0b001 on sm_100
inline constexpr uint32_t kAddressableBytes = 1u << 18;  // (x & 0x3FFFF) >> 4 fits 14 bits
}  // namespace smem_desc

// Swizzling mode, bits 61-63 of the shared memory descriptor (sm_100 encoding, 3 bits).
enum class SmemSwizzle : uint8_t {
  kNone = 0,         // no swizzle (interleaved 8x16B core matrices)
  k128BBase32B = 1,  // 128-byte swizzle with 32-byte atomicity
  k128B = 2,         // 128-byte swizzle (seeds 000 and 004)
  k64B = 4,          // 64-byte swizzle
  k32B = 6,          // 32-byte swizzle
};

// The 14-bit "address >> 4" encoding used by the start address, LBO and SBO fields.
BWGEMM_HD constexpr uint64_t smem_desc_encode_bytes(uint32_t bytes) {
  return (static_cast<uint64_t>(bytes) & 0x3FFFFULL) >> 4;
}

struct SmemDescriptor {
  uint32_t start_address = 0;        // shared-window byte address of the matrix (16-byte aligned)
  uint32_t leading_byte_offset = 0;  // LBO in bytes (multiple of 16)
  uint32_t stride_byte_offset = 0;   // SBO in bytes (multiple of 16)
  uint32_t base_offset = 0;          // 0..7
  bool lbo_absolute = false;         // bit 52
  SmemSwizzle swizzle = SmemSwizzle::kNone;

  BWGEMM_HD constexpr uint64_t encode() const {
    using namespace smem_desc;
    return (smem_desc_encode_bytes(start_address) << kStartAddressShift) |
           (smem_desc_encode_bytes(leading_byte_offset) << kLeadingByteOffsetShift) |
           (smem_desc_encode_bytes(stride_byte_offset) << kStrideByteOffsetShift) |
           (kVersionSm100 << kVersionShift) | (static_cast<uint64_t>(base_offset & 7u) << kBaseOffsetShift) |
           (static_cast<uint64_t>(lbo_absolute ? 1 : 0) << kLboModeShift) |
           (static_cast<uint64_t>(swizzle) << kSwizzleShift);
  }

  // nullptr when every field is encodable without loss, else what is wrong.
  BWGEMM_HD constexpr const char* error() const {
    if (start_address % 16 != 0) return "start_address must be a multiple of 16 bytes";
    if (leading_byte_offset % 16 != 0) return "leading_byte_offset must be a multiple of 16 bytes";
    if (stride_byte_offset % 16 != 0) return "stride_byte_offset must be a multiple of 16 bytes";
    if (leading_byte_offset >= smem_desc::kAddressableBytes) return "leading_byte_offset must be < 2^18";
    if (stride_byte_offset >= smem_desc::kAddressableBytes) return "stride_byte_offset must be < 2^18";
    if (base_offset > 7) return "base_offset must be 0..7";
    const auto s = static_cast<uint8_t>(swizzle);
    if (!(s == 0 || s == 1 || s == 2 || s == 4 || s == 6)) return "swizzle is not an sm_100 swizzling mode";
    return nullptr;
  }
};

// Inverse of SmemDescriptor::encode (the start address comes back as (addr & 0x3FFFF)). For tests and the
// emulator, which reads descriptors the kernels build.
BWGEMM_HD constexpr SmemDescriptor decode_smem_descriptor(uint64_t desc) {
  using namespace smem_desc;
  SmemDescriptor d;
  d.start_address = static_cast<uint32_t>(((desc >> kStartAddressShift) & k14BitMask) << 4);
  d.leading_byte_offset = static_cast<uint32_t>(((desc >> kLeadingByteOffsetShift) & k14BitMask) << 4);
  d.stride_byte_offset = static_cast<uint32_t>(((desc >> kStrideByteOffsetShift) & k14BitMask) << 4);
  d.base_offset = static_cast<uint32_t>((desc >> kBaseOffsetShift) & 7u);
  d.lbo_absolute = ((desc >> kLboModeShift) & 1u) != 0;
  d.swizzle = static_cast<SmemSwizzle>((desc >> kSwizzleShift) & 7u);
  return d;
}

// The descriptor of `base` (built with start_address 0) moved to `smem_addr`: the hot-loop patch of the
// low 14 bits (seeds: AB_desc_base + desc_encode(addr)).
BWGEMM_HD constexpr uint64_t smem_desc_with_address(uint64_t base, uint32_t smem_addr) {
  return (base & ~(smem_desc::k14BitMask << smem_desc::kStartAddressShift)) |
         smem_desc_encode_bytes(smem_addr);
}

// =====================================================================================================
// Instruction descriptor, .kind::f16 (PTX ISA 9.7.16.4.2 "Instruction descriptor", table for .kind::f16,
// .kind::tf32, .kind::f8f6f4 and .kind::i8; 32 bits, the idesc operand of tcgen05.mma).
//
//   bits  0-1   sparsity selector          (0: dense)
//   bit   2     sparsity flag              (0: dense)
//   bit   3     saturate                   (.kind::i8 only)
//   bits  4-5   D format                   (MmaDFormat)
//   bit   6     reserved
//   bits  7-9   A format                   (MmaF16Format for .kind::f16)
//   bits 10-12  B format
//   bit  13     negate A
//   bit  14     negate B
//   bit  15     transpose A = A major-ness (0: K-major, 1: MN-major)
//   bit  16     transpose B = B major-ness
//   bits 17-22  N >> 3
//   bit  23     reserved
//   bits 24-28  M >> 4
//   bit  29     reserved
//   bits 30-31  maximum shift (.ws only)
//
// Discrepancy note: some PTX ISA revisions print the M field of this table at bits 23-27. Seed 004 (ran
// correctly on a B200) writes (M >> 4) << 24, as CUTLASS's UMMA::InstrDescriptor does; we follow the seed.
// =====================================================================================================

namespace idesc {
inline constexpr int kSparseSelectorShift = 0;
inline constexpr int kSparseFlagShift = 2;
inline constexpr int kSaturateShift = 3;
inline constexpr int kDFormatShift = 4;
inline constexpr int kAFormatShift = 7;
inline constexpr int kBFormatShift = 10;
inline constexpr int kNegateAShift = 13;
inline constexpr int kNegateBShift = 14;
inline constexpr int kAMajorShift = 15;
inline constexpr int kBMajorShift = 16;
inline constexpr int kNShift = 17;  // 6 bits, N >> 3
inline constexpr int kMShift = 24;  // 5 bits, M >> 4 (.kind::f16 table; see the note above)
inline constexpr uint32_t kNMask = 0x3F;
inline constexpr uint32_t kMMask = 0x1F;

// Block-scaled kinds (.kind::mxf8f6f4, .kind::mxf4, .kind::mxf4nvf4 table).
inline constexpr int kSfbIdShift = 4;          // bits 4-5: matrix B scale factor data id
inline constexpr int kScaleFormatShift = 23;   // bit 23: scale factor type
inline constexpr int kMShiftBlockScaled = 27;  // bits 27-28: M >> 7
inline constexpr int kSfaIdShift = 29;         // bits 29-30: matrix A scale factor data id
inline constexpr uint32_t kMMaskBlockScaled = 0x3;
inline constexpr uint32_t kSfIdMask = 0x3;
}  // namespace idesc

// D (accumulator) format, bits 4-5.
enum class MmaDFormat : uint8_t {
  kF16 = 0,
  kF32 = 1,
};

// A/B formats of .kind::f16, bits 7-9 and 10-12.
enum class MmaF16Format : uint8_t {
  kF16 = 0,
  kBF16 = 1,
};

// Major-ness of A or B (the "transpose" bits 15 and 16).
enum class MmaMajor : uint8_t {
  kK = 0,   // K-major: consecutive K elements are contiguous
  kMN = 1,  // MN-major
};

struct InstrDescF16 {
  MmaDFormat d_format = MmaDFormat::kF32;
  MmaF16Format a_format = MmaF16Format::kF16;
  MmaF16Format b_format = MmaF16Format::kF16;
  bool negate_a = false;
  bool negate_b = false;
  MmaMajor a_major = MmaMajor::kK;
  MmaMajor b_major = MmaMajor::kK;
  uint32_t m = 128;  // MMA M (cta_group::2: the pair's M, e.g. 256)
  uint32_t n = 128;  // MMA N

  BWGEMM_HD constexpr uint32_t encode() const {
    using namespace idesc;
    return (static_cast<uint32_t>(d_format) << kDFormatShift) |
           (static_cast<uint32_t>(a_format) << kAFormatShift) |
           (static_cast<uint32_t>(b_format) << kBFormatShift) | (uint32_t{negate_a} << kNegateAShift) |
           (uint32_t{negate_b} << kNegateBShift) | (static_cast<uint32_t>(a_major) << kAMajorShift) |
           (static_cast<uint32_t>(b_major) << kBMajorShift) | (((n >> 3) & kNMask) << kNShift) |
           (((m >> 4) & kMMask) << kMShift);
  }

  // nullptr when the fields are encodable; checks only what the bit fields can hold (M, N multiples of
  // 16 / 8 and in range), not the per-cta_group shape table of the ISA.
  BWGEMM_HD constexpr const char* error() const {
    if (m % 16 != 0 || m == 0 || (m >> 4) > idesc::kMMask)
      return "M must be a nonzero multiple of 16, <= 496";
    if (n % 8 != 0 || n == 0 || n > 256) return "N must be a multiple of 8 in [8, 256]";
    return nullptr;
  }
};

BWGEMM_HD constexpr InstrDescF16 decode_instr_desc_f16(uint32_t bits) {
  using namespace idesc;
  InstrDescF16 d;
  d.d_format = static_cast<MmaDFormat>((bits >> kDFormatShift) & 3u);
  d.a_format = static_cast<MmaF16Format>((bits >> kAFormatShift) & 7u);
  d.b_format = static_cast<MmaF16Format>((bits >> kBFormatShift) & 7u);
  d.negate_a = ((bits >> kNegateAShift) & 1u) != 0;
  d.negate_b = ((bits >> kNegateBShift) & 1u) != 0;
  d.a_major = static_cast<MmaMajor>((bits >> kAMajorShift) & 1u);
  d.b_major = static_cast<MmaMajor>((bits >> kBMajorShift) & 1u);
  d.n = ((bits >> kNShift) & kNMask) << 3;
  d.m = ((bits >> kMShift) & kMMask) << 4;
  return d;
}

// =====================================================================================================
// Instruction descriptor, .kind::mxf4nvf4 (PTX ISA 9.7.16.4.2 "Instruction descriptor", table for
// .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4; 32 bits). D is always F32 (no D format field).
//
//   bits  0-1   reserved
//   bit   2     sparsity flag              (0: dense)
//   bit   3     reserved
//   bits  4-5   matrix B scale factor data id (0..3)
//   bit   6     reserved
//   bits  7-9   A format                   (MmaF4Format)
//   bits 10-11  B format
//   bit  12     reserved
//   bit  13     negate A
//   bit  14     negate B
//   bit  15     transpose A = A major-ness (4-bit A/B must be K-major)
//   bit  16     transpose B = B major-ness
//   bits 17-22  N >> 3
//   bit  23     scale factor type          (MmaScaleFormat)
//   bits 24-26  reserved
//   bits 27-28  M >> 7
//   bits 29-30  matrix A scale factor data id (0..3)
//   bit  31     reserved (K dimension select of other kinds; 0 = dense K 64 here)
//
// Seed 000 writes the M field as (2 << 27) for M = 256, i.e. M >> 7 at bit 27. For M in {128, 256}, the
// only legal values of the block-scaled kinds, this is bit-identical to the f16 table's (M >> 4) << 24
// (the low three bits of M >> 4 are zero); test/ptx/descriptors_test.cpp checks that.
// =====================================================================================================

// A/B formats of .kind::mxf4nvf4 (and .kind::mxf4), bits 7-9 and 10-11.
enum class MmaF4Format : uint8_t {
  kE2M1 = 1,
};

// Scale factor type, bit 23.
enum class MmaScaleFormat : uint8_t {
  kUE4M3 = 0,  // NVFP4: e4m3 scales on 16-element blocks
  kUE8M0 = 1,  // MXFP4: e8m0 scales on 32-element blocks
};

struct InstrDescMxf4Nvf4 {
  MmaF4Format a_format = MmaF4Format::kE2M1;
  MmaF4Format b_format = MmaF4Format::kE2M1;
  bool negate_a = false;
  bool negate_b = false;
  MmaMajor a_major = MmaMajor::kK;
  MmaMajor b_major = MmaMajor::kK;
  uint32_t m = 128;  // 128 (cta_group::1) or 256 (cta_group::2)
  uint32_t n = 128;
  MmaScaleFormat scale_format = MmaScaleFormat::kUE4M3;
  uint32_t sfa_id = 0;  // 0..3
  uint32_t sfb_id = 0;  // 0..3

  BWGEMM_HD constexpr uint32_t encode() const {
    using namespace idesc;
    return ((sfb_id & kSfIdMask) << kSfbIdShift) | (static_cast<uint32_t>(a_format) << kAFormatShift) |
           (static_cast<uint32_t>(b_format) << kBFormatShift) | (uint32_t{negate_a} << kNegateAShift) |
           (uint32_t{negate_b} << kNegateBShift) | (static_cast<uint32_t>(a_major) << kAMajorShift) |
           (static_cast<uint32_t>(b_major) << kBMajorShift) | (((n >> 3) & kNMask) << kNShift) |
           (static_cast<uint32_t>(scale_format) << kScaleFormatShift) |
           (((m >> 7) & kMMaskBlockScaled) << kMShiftBlockScaled) | ((sfa_id & kSfIdMask) << kSfaIdShift);
  }

  BWGEMM_HD constexpr const char* error() const {
    if (m != 128 && m != 256) return "M must be 128 (cta_group::1) or 256 (cta_group::2)";
    if (n % 8 != 0 || n == 0 || n > 256) return "N must be a multiple of 8 in [8, 256]";
    if (sfa_id > 3 || sfb_id > 3) return "scale factor ids must be 0..3";
    if (a_major != MmaMajor::kK || b_major != MmaMajor::kK) return "4-bit operands must be K-major";
    return nullptr;
  }
};

BWGEMM_HD constexpr InstrDescMxf4Nvf4 decode_instr_desc_mxf4nvf4(uint32_t bits) {
  using namespace idesc;
  InstrDescMxf4Nvf4 d;
  d.sfb_id = (bits >> kSfbIdShift) & kSfIdMask;
  d.a_format = static_cast<MmaF4Format>((bits >> kAFormatShift) & 7u);
  d.b_format = static_cast<MmaF4Format>((bits >> kBFormatShift) & 3u);
  d.negate_a = ((bits >> kNegateAShift) & 1u) != 0;
  d.negate_b = ((bits >> kNegateBShift) & 1u) != 0;
  d.a_major = static_cast<MmaMajor>((bits >> kAMajorShift) & 1u);
  d.b_major = static_cast<MmaMajor>((bits >> kBMajorShift) & 1u);
  d.n = ((bits >> kNShift) & kNMask) << 3;
  d.scale_format = static_cast<MmaScaleFormat>((bits >> kScaleFormatShift) & 1u);
  d.m = ((bits >> kMShiftBlockScaled) & kMMaskBlockScaled) << 7;
  d.sfa_id = (bits >> kSfaIdShift) & kSfIdMask;
  return d;
}

}  // namespace bwgemm::ptx
