// Host tests of the sm_90 wgmma shared-memory descriptor (include/bwgemm/isa/descriptors_sm90.hpp): every
// field in its PTX ISA position, the round trip, the error messages, and published known-good constants
// reproduced bit for bit. Compiled by the host C++ compiler with no CUDA headers.
#include <bwgemm/isa/descriptors_sm90.hpp>

#include <cstdint>

#include <gtest/gtest.h>

namespace ptx = bwgemm::ptx;

namespace {

// pranjalssh/fast.cu (hand-written H100 wgmma GEMM, examples/matmul/matmul_*.cuh), make_smem_desc:
//   desc |= matrix_descriptor_encode(addr);                      // (x & 0x3FFFF) >> 4
//   desc |= matrix_descriptor_encode((uint64_t)16) << 16;        // LBO
//   desc |= matrix_descriptor_encode((uint64_t)1024) << 32;      // SBO
//   desc |= 1llu << 62;                                          // 128B swizzle
constexpr uint64_t fastcu_encode(uint64_t x) {
  return (x & 0x3FFFF) >> 4;
}
constexpr uint64_t fastcu_smem_desc(uint32_t addr) {
  return fastcu_encode(addr) | (fastcu_encode(16) << 16) | (fastcu_encode(1024) << 32) | (1ULL << 62);
}

// CUTLASS cute/arch/mma_sm90_desc.hpp, GmmaDescriptor: start_address_ :14 at bit 0, leading_byte_offset_
// :14 at bit 16, stride_byte_offset_ :14 at bit 32, base_offset_ :3 at bit 49, layout_type_ :2 at bit 62
// with LayoutType INTERLEAVE = 0, B128 = 1, B64 = 2, B32 = 3.
static_assert(static_cast<int>(ptx::WgmmaSwizzle::kNone) == 0);
static_assert(static_cast<int>(ptx::WgmmaSwizzle::k128B) == 1);
static_assert(static_cast<int>(ptx::WgmmaSwizzle::k64B) == 2);
static_assert(static_cast<int>(ptx::WgmmaSwizzle::k32B) == 3);

// The builders are constexpr: pin the published constant at compile time too.
static_assert(ptx::kWgmmaKMajorSw128Desc == fastcu_smem_desc(0));

TEST(WgmmaDescriptor, LiteralValues) {
  EXPECT_EQ(fastcu_smem_desc(0), 0x4000004000010000ULL);
  EXPECT_EQ(ptx::kWgmmaKMajorSw128Desc, 0x4000004000010000ULL);
}

TEST(WgmmaDescriptor, FieldPositions) {
  ptx::WgmmaSmemDescriptor d;
  EXPECT_EQ(d.encode(), 0ULL) << "sm_90 descriptors have no version bits (bits 46-48 are 0)";
  d.start_address = 0x3FFF0;
  EXPECT_EQ(d.encode(), 0x3FFFULL);  // bits 0-13
  d = {};
  d.leading_byte_offset = 0x3FFF0;
  EXPECT_EQ(d.encode(), 0x3FFFULL << 16);  // bits 16-29
  d = {};
  d.stride_byte_offset = 0x3FFF0;
  EXPECT_EQ(d.encode(), 0x3FFFULL << 32);  // bits 32-45
  d = {};
  d.base_offset = 7;
  EXPECT_EQ(d.encode(), 7ULL << 49);  // bits 49-51
  for (auto s : {ptx::WgmmaSwizzle::k128B, ptx::WgmmaSwizzle::k64B, ptx::WgmmaSwizzle::k32B}) {
    d = {};
    d.swizzle = s;
    EXPECT_EQ(d.encode(), static_cast<uint64_t>(s) << 62);  // bits 62-63
  }
}

TEST(WgmmaDescriptor, AddressFieldDropsBitsAbove18) {
  // Shared-window addresses of CTA rank 1 carry bit 24; the encoding keeps (addr & 0x3FFFF) >> 4.
  ptx::WgmmaSmemDescriptor d;
  d.start_address = 0x0100'0400;
  EXPECT_EQ(d.encode(), 0x40ULL);
}

TEST(WgmmaDescriptor, RoundTrip) {
  ptx::WgmmaSmemDescriptor d;
  d.start_address = 0x2A400;
  d.leading_byte_offset = 8192;
  d.stride_byte_offset = 1024;
  d.base_offset = 3;
  d.swizzle = ptx::WgmmaSwizzle::k64B;
  const ptx::WgmmaSmemDescriptor r = ptx::decode_wgmma_smem_descriptor(d.encode());
  EXPECT_EQ(r.start_address, d.start_address);
  EXPECT_EQ(r.leading_byte_offset, d.leading_byte_offset);
  EXPECT_EQ(r.stride_byte_offset, d.stride_byte_offset);
  EXPECT_EQ(r.base_offset, d.base_offset);
  EXPECT_EQ(r.swizzle, d.swizzle);
  EXPECT_EQ(r.encode(), d.encode());
}

TEST(WgmmaDescriptor, HotLoopAddressPatchMatchesFastCu) {
  // A k16 step inside a K-major 128B-swizzled tile moves the start address by 32 bytes.
  for (uint32_t tile : {0x0u, 0x400u, 0x1'2000u, 0x3'C000u}) {
    for (uint32_t k = 0; k < 4; ++k) {
      const uint32_t addr = tile + k * ptx::kWgmmaK16BytesKMajor;
      EXPECT_EQ(ptx::wgmma_desc_with_address(ptx::kWgmmaKMajorSw128Desc, addr), fastcu_smem_desc(addr));
    }
  }
  // Patching twice replaces, it does not add.
  const uint64_t once = ptx::wgmma_desc_with_address(ptx::kWgmmaKMajorSw128Desc, 0x800);
  EXPECT_EQ(ptx::wgmma_desc_with_address(once, 0x400), fastcu_smem_desc(0x400));
}

TEST(WgmmaDescriptor, MnMajorSw128) {
  // 64-element MN chunks 8192 bytes apart (a 64 x 64 box each), 8-row K groups 1024 bytes apart.
  const uint64_t d = ptx::wgmma_mn_major_sw128_desc(8192);
  const ptx::WgmmaSmemDescriptor r = ptx::decode_wgmma_smem_descriptor(d);
  EXPECT_EQ(r.leading_byte_offset, 8192u);
  EXPECT_EQ(r.stride_byte_offset, 1024u);
  EXPECT_EQ(r.swizzle, ptx::WgmmaSwizzle::k128B);
  EXPECT_EQ(d, (fastcu_encode(8192) << 16) | (fastcu_encode(1024) << 32) | (1ULL << 62));
}

TEST(WgmmaDescriptor, Errors) {
  ptx::WgmmaSmemDescriptor d;
  EXPECT_EQ(d.error(), nullptr);
  d.start_address = 8;
  EXPECT_STREQ(d.error(), "start_address must be a multiple of 16 bytes");
  d = {};
  d.leading_byte_offset = 24;
  EXPECT_STREQ(d.error(), "leading_byte_offset must be a multiple of 16 bytes");
  d = {};
  d.stride_byte_offset = 1u << 18;
  EXPECT_STREQ(d.error(), "stride_byte_offset must be < 2^18");
  d = {};
  d.base_offset = 8;
  EXPECT_STREQ(d.error(), "base_offset must be 0..7");
  d = {};
  d.swizzle = static_cast<ptx::WgmmaSwizzle>(4);
  EXPECT_STREQ(d.error(), "swizzle is not an sm_90 swizzling mode");
}

TEST(WgmmaGeometry, Sw128Constants) {
  EXPECT_EQ(ptx::kSw128RowBytes, 128u);
  EXPECT_EQ(ptx::kSw128AtomBytes, 1024u);
  EXPECT_EQ(ptx::kSw128Elements16, 64u);
  EXPECT_EQ(ptx::kWgmmaK16BytesKMajor, 32u);
  EXPECT_EQ(ptx::kWgmmaK16BytesMnMajor, 2048u);
  EXPECT_TRUE(ptx::kWgmmaSupportedN<256>);
  EXPECT_TRUE(ptx::kWgmmaSupportedN<128>);
  EXPECT_TRUE(ptx::kWgmmaSupportedN<160>);
  EXPECT_FALSE(ptx::kWgmmaSupportedN<168>);
  EXPECT_FALSE(ptx::kWgmmaSupportedN<24>);
  EXPECT_FALSE(ptx::kWgmmaSupportedN<512>);
}

}  // namespace
