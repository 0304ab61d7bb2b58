// Host tests of the tcgen05 descriptor builders (include/bwgemm/isa/descriptors.hpp): every field against
// the PTX ISA tables, and the constants of the seed kernels (shared/seeds/) reproduced bit for bit.
// Compiled by the host C++ compiler with no CUDA headers.
#include <bwgemm/isa/descriptors.hpp>
#include <bwgemm/isa/types.hpp>

#include <cstdint>

#include <gtest/gtest.h>

namespace ptx = bwgemm::ptx;

namespace {

// The seeds' own helper: desc_encode(x) = (x & 0x3FFFF) >> 4.
constexpr uint64_t seed_desc_encode(uint64_t x) {
  return (x & 0x3'FFFFULL) >> 4ULL;
}

// ---- seed 000 (NVFP4 dual GEMM, cta_group::2, MMA M = 256) ----------------------------------------------
// i_desc = (1U << 7U) | (1U << 10U) | ((uint32_t)BLOCK_N >> 3U << 17U) | (2U << 27U)
constexpr uint32_t seed000_idesc(uint32_t block_n) {
  return (1U << 7U) | (1U << 10U) | (block_n >> 3U << 17U) | (2U << 27U);
}
// AB_desc_base = (desc_encode(SBO_AB) << 32) | (1 << 46) | (2 << 61), SBO_AB = 8 * 128
constexpr uint64_t kSeed000ABDescBase =
    (seed_desc_encode(8 * 128) << 32ULL) | (1ULL << 46ULL) | (2ULL << 61ULL);
// SF_desc_base = (desc_encode(SBO_SF) << 32) | (1 << 46), SBO_SF = 8 * 16
constexpr uint64_t kSeed000SFDescBase = (seed_desc_encode(8 * 16) << 32ULL) | (1ULL << 46ULL);

// ---- seed 004 (FP16 GEMM, cta_group::2, BLOCK_M 128 per CTA, BLOCK_N 256, BLOCK_K 64) ---------------------
constexpr uint32_t seed004_idesc(uint32_t mma_m, uint32_t mma_n) {
  return (1U << 4U) | (0U << 7U) | (0U << 10U) | (1U << 16U) | (mma_n >> 3U << 17U) | (mma_m >> 4U << 24U);
}
constexpr uint64_t kSeed004ADescBase =
    (seed_desc_encode(8 * 128) << 32ULL) | (1ULL << 46ULL) | (2ULL << 61ULL);
constexpr uint64_t seed004_b_desc_base(uint64_t block_k) {
  return (seed_desc_encode(block_k * 128) << 16ULL) | (seed_desc_encode(8 * 128) << 32ULL) | (1ULL << 46ULL) |
         (2ULL << 61ULL);
}

constexpr ptx::InstrDescMxf4Nvf4 nvfp4_idesc(uint32_t m, uint32_t n) {
  ptx::InstrDescMxf4Nvf4 d;
  d.m = m;
  d.n = n;
  return d;  // e2m1 x e2m1, ue4m3 scales, K-major, sf ids 0
}

constexpr ptx::SmemDescriptor sw128_kmajor_desc(uint32_t sbo) {
  ptx::SmemDescriptor d;
  d.stride_byte_offset = sbo;
  d.swizzle = ptx::SmemSwizzle::k128B;
  return d;
}

// The builders are constexpr: pin the seed constants at compile time too.
static_assert(nvfp4_idesc(256, 64).encode() == seed000_idesc(64));
static_assert(sw128_kmajor_desc(1024).encode() == kSeed000ABDescBase);

// ---------------------------------------------------------------------------------------------------------
TEST(SeedConstants, LiteralValues) {
  // What the seeds' expressions evaluate to, written out, so a typo in the transcriptions above shows.
  EXPECT_EQ(seed000_idesc(64), 0x10100480u);
  EXPECT_EQ(seed000_idesc(128), 0x10200480u);
  EXPECT_EQ(kSeed000ABDescBase, 0x4000404000000000ULL);
  EXPECT_EQ(kSeed000SFDescBase, 0x0000400800000000ULL);
  EXPECT_EQ(seed004_idesc(256, 256), 0x10410010u);
  EXPECT_EQ(kSeed004ADescBase, 0x4000404000000000ULL);
  EXPECT_EQ(seed004_b_desc_base(64), 0x4000404002000000ULL);
}

TEST(Seed000, InstrDescMxf4Nvf4M256) {
  EXPECT_EQ(nvfp4_idesc(256, 64).encode(), seed000_idesc(64));
  EXPECT_EQ(nvfp4_idesc(256, 128).encode(), seed000_idesc(128));
  EXPECT_EQ(nvfp4_idesc(256, 64).error(), nullptr);
  EXPECT_EQ(nvfp4_idesc(256, 128).error(), nullptr);
}

TEST(Seed000, OperandDescriptorBaseSbo1024Swizzle128B) {
  EXPECT_EQ(sw128_kmajor_desc(1024).encode(), kSeed000ABDescBase);
  // The hot loop adds the operand address: AB_desc_base + desc_encode(A_smem + a_off).
  const uint32_t a_smem = 0x0100'0400 + 3 * 32;  // CTA-rank bit set, as in CTA 1: masked off by the encoding
  EXPECT_EQ(ptx::smem_desc_with_address(kSeed000ABDescBase, a_smem),
            kSeed000ABDescBase + seed_desc_encode(a_smem));
}

TEST(Seed000, ScaleFactorDescriptorBaseSbo128) {
  ptx::SmemDescriptor sf;
  sf.stride_byte_offset = 128;  // 8 rows x 16 bytes
  sf.swizzle = ptx::SmemSwizzle::kNone;
  EXPECT_EQ(sf.encode(), kSeed000SFDescBase);
  EXPECT_EQ(sf.error(), nullptr);
  // Seed 000: SFA_desc = SF_desc_base + (SFA_smem >> 4); per K step + 32 (512 bytes).
  const uint32_t sfa = 0x1'2000;
  EXPECT_EQ(ptx::smem_desc_with_address(kSeed000SFDescBase, sfa), kSeed000SFDescBase + (uint64_t{sfa} >> 4));
  EXPECT_EQ(ptx::smem_desc_with_address(kSeed000SFDescBase, sfa + 512),
            kSeed000SFDescBase + (uint64_t{sfa} >> 4) + 32);
}

TEST(Seed004, InstrDescF16M256N256BMnMajor) {
  ptx::InstrDescF16 d;
  d.d_format = ptx::MmaDFormat::kF32;
  d.a_format = ptx::MmaF16Format::kF16;
  d.b_format = ptx::MmaF16Format::kF16;
  d.a_major = ptx::MmaMajor::kK;
  d.b_major = ptx::MmaMajor::kMN;
  d.m = 256;
  d.n = 256;
  EXPECT_EQ(d.encode(), seed004_idesc(256, 256));
  EXPECT_EQ(d.error(), nullptr);
}

TEST(Seed004, OperandDescriptorBases) {
  EXPECT_EQ(sw128_kmajor_desc(1024).encode(), kSeed004ADescBase);
  ptx::SmemDescriptor b;  // B is N-major: LBO = BLOCK_K * 128 bytes between 64-column swizzle atoms
  b.leading_byte_offset = 64 * 128;
  b.stride_byte_offset = 1024;
  b.swizzle = ptx::SmemSwizzle::k128B;
  EXPECT_EQ(b.encode(), seed004_b_desc_base(64));
  EXPECT_EQ(b.error(), nullptr);
  // Seed 004's K advance: a_desc += 32 >> 4, b_desc += (16 * 128) >> 4 is the address field moving.
  const uint32_t a_smem = 0x400, b_smem = 0x8400;
  EXPECT_EQ(ptx::smem_desc_with_address(kSeed004ADescBase, a_smem + 32),
            (kSeed004ADescBase | (a_smem >> 4)) + 2);
  EXPECT_EQ(ptx::smem_desc_with_address(b.encode(), b_smem + 16 * 128),
            (seed004_b_desc_base(64) | (b_smem >> 4)) + 128);
}

// ---- Shared memory descriptor: each field in its ISA position -----------------------------------------
TEST(SmemDescriptor, FieldPositions) {
  ptx::SmemDescriptor d;
  EXPECT_EQ(d.encode(), 1ULL << 46)
      << "an all-zero descriptor still carries the sm_100 version bits 46-48 = 0b001";
  d.start_address = 0x3FFF0;
  EXPECT_EQ(d.encode(), (1ULL << 46) | 0x3FFFULL);  // bits 0-13
  d = {};
  d.leading_byte_offset = 0x3FFF0;
  EXPECT_EQ(d.encode(), (1ULL << 46) | (0x3FFFULL << 16));  // bits 16-29
  d = {};
  d.stride_byte_offset = 0x3FFF0;
  EXPECT_EQ(d.encode(), (1ULL << 46) | (0x3FFFULL << 32));  // bits 32-45
  d = {};
  d.base_offset = 7;
  EXPECT_EQ(d.encode(), (1ULL << 46) | (7ULL << 49));  // bits 49-51
  d = {};
  d.lbo_absolute = true;
  EXPECT_EQ(d.encode(), (1ULL << 46) | (1ULL << 52));  // bit 52
}

TEST(SmemDescriptor, SwizzleModes) {
  // Bits 61-63: 0 none, 1 128B with 32B atom, 2 128B, 4 64B, 6 32B.
  const std::pair<ptx::SmemSwizzle, uint64_t> modes[] = {
      {ptx::SmemSwizzle::kNone, 0}, {ptx::SmemSwizzle::k128BBase32B, 1}, {ptx::SmemSwizzle::k128B, 2},
      {ptx::SmemSwizzle::k64B, 4},  {ptx::SmemSwizzle::k32B, 6},
  };
  for (const auto& [mode, code] : modes) {
    ptx::SmemDescriptor d;
    d.swizzle = mode;
    EXPECT_EQ(d.encode(), (1ULL << 46) | (code << 61));
    EXPECT_EQ(d.error(), nullptr);
    EXPECT_EQ(ptx::decode_smem_descriptor(d.encode()).swizzle, mode);
  }
}

TEST(SmemDescriptor, StartAddressUsesLow18Bits) {
  ptx::SmemDescriptor d;
  d.start_address = (1u << 24) | 0x2A0;  // the cluster-rank bit lies outside the field
  EXPECT_EQ(d.encode() & 0x3FFF, 0x2Au);
}

TEST(SmemDescriptor, RoundTrip) {
  ptx::SmemDescriptor d;
  d.start_address = 0x1F3A0;
  d.leading_byte_offset = 8192;
  d.stride_byte_offset = 1024;
  d.base_offset = 5;
  d.lbo_absolute = true;
  d.swizzle = ptx::SmemSwizzle::k64B;
  const ptx::SmemDescriptor r = ptx::decode_smem_descriptor(d.encode());
  EXPECT_EQ(r.start_address, d.start_address);
  EXPECT_EQ(r.leading_byte_offset, d.leading_byte_offset);
  EXPECT_EQ(r.stride_byte_offset, d.stride_byte_offset);
  EXPECT_EQ(r.base_offset, d.base_offset);
  EXPECT_EQ(r.lbo_absolute, d.lbo_absolute);
  EXPECT_EQ(r.swizzle, d.swizzle);
}

TEST(SmemDescriptor, RejectsUnencodableFields) {
  ptx::SmemDescriptor d;
  d.start_address = 8;
  EXPECT_NE(d.error(), nullptr);
  d = {};
  d.leading_byte_offset = 24;
  EXPECT_NE(d.error(), nullptr);
  d = {};
  d.stride_byte_offset = 1u << 18;
  EXPECT_NE(d.error(), nullptr);
  d = {};
  d.base_offset = 8;
  EXPECT_NE(d.error(), nullptr);
  d = {};
  d.swizzle = static_cast<ptx::SmemSwizzle>(3);
  EXPECT_NE(d.error(), nullptr);
}

// ---- kind::f16 instruction descriptor -------------------------------------------------------------------
TEST(InstrDescF16, FieldPositions) {
  auto base = [] {
    ptx::InstrDescF16 d;
    d.d_format = ptx::MmaDFormat::kF16;  // 0
    d.m = 0;
    d.n = 0;
    return d;
  };
  EXPECT_EQ(base().encode(), 0u);
  auto d = base();
  d.d_format = ptx::MmaDFormat::kF32;
  EXPECT_EQ(d.encode(), 1u << 4);  // bits 4-5, F32 = 1
  d = base();
  d.a_format = ptx::MmaF16Format::kBF16;
  EXPECT_EQ(d.encode(), 1u << 7);  // bits 7-9, BF16 = 1
  d = base();
  d.b_format = ptx::MmaF16Format::kBF16;
  EXPECT_EQ(d.encode(), 1u << 10);  // bits 10-12
  d = base();
  d.negate_a = true;
  EXPECT_EQ(d.encode(), 1u << 13);
  d = base();
  d.negate_b = true;
  EXPECT_EQ(d.encode(), 1u << 14);
  d = base();
  d.a_major = ptx::MmaMajor::kMN;
  EXPECT_EQ(d.encode(), 1u << 15);
  d = base();
  d.b_major = ptx::MmaMajor::kMN;
  EXPECT_EQ(d.encode(), 1u << 16);
  d = base();
  d.n = 256;
  EXPECT_EQ(d.encode(), 32u << 17);  // bits 17-22, N >> 3
  d = base();
  d.m = 128;
  EXPECT_EQ(d.encode(), 8u << 24);  // bits 24-28, M >> 4
  d.m = 64;
  EXPECT_EQ(d.encode(), 4u << 24);
}

TEST(InstrDescF16, RoundTripAndValidation) {
  ptx::InstrDescF16 d;
  d.a_format = ptx::MmaF16Format::kBF16;
  d.b_format = ptx::MmaF16Format::kBF16;
  d.negate_b = true;
  d.a_major = ptx::MmaMajor::kMN;
  d.m = 64;
  d.n = 200;
  const ptx::InstrDescF16 r = ptx::decode_instr_desc_f16(d.encode());
  EXPECT_EQ(r.d_format, d.d_format);
  EXPECT_EQ(r.a_format, d.a_format);
  EXPECT_EQ(r.b_format, d.b_format);
  EXPECT_EQ(r.negate_a, d.negate_a);
  EXPECT_EQ(r.negate_b, d.negate_b);
  EXPECT_EQ(r.a_major, d.a_major);
  EXPECT_EQ(r.b_major, d.b_major);
  EXPECT_EQ(r.m, d.m);
  EXPECT_EQ(r.n, d.n);
  EXPECT_EQ(d.error(), nullptr);
  d.n = 260;
  EXPECT_NE(d.error(), nullptr);
  d.n = 12;
  EXPECT_NE(d.error(), nullptr);
  d.n = 16;
  d.m = 72;
  EXPECT_NE(d.error(), nullptr);
}

// ---- kind::mxf4nvf4 instruction descriptor --------------------------------------------------------------
TEST(InstrDescMxf4Nvf4, FieldPositions) {
  auto base = [] {
    ptx::InstrDescMxf4Nvf4 d;
    d.a_format = static_cast<ptx::MmaF4Format>(0);
    d.b_format = static_cast<ptx::MmaF4Format>(0);
    d.m = 0;
    d.n = 0;
    return d;
  };
  EXPECT_EQ(base().encode(), 0u);
  auto d = base();
  d.sfb_id = 3;
  EXPECT_EQ(d.encode(), 3u << 4);  // bits 4-5
  d = base();
  d.a_format = ptx::MmaF4Format::kE2M1;
  EXPECT_EQ(d.encode(), 1u << 7);  // bits 7-9, E2M1 = 1
  d = base();
  d.b_format = ptx::MmaF4Format::kE2M1;
  EXPECT_EQ(d.encode(), 1u << 10);  // bits 10-11
  d = base();
  d.negate_a = true;
  d.negate_b = true;
  EXPECT_EQ(d.encode(), (1u << 13) | (1u << 14));
  d = base();
  d.b_major = ptx::MmaMajor::kMN;
  EXPECT_EQ(d.encode(), 1u << 16);
  d = base();
  d.n = 128;
  EXPECT_EQ(d.encode(), 16u << 17);  // bits 17-22, N >> 3
  d = base();
  d.scale_format = ptx::MmaScaleFormat::kUE8M0;
  EXPECT_EQ(d.encode(), 1u << 23);  // bit 23
  d = base();
  d.m = 128;
  EXPECT_EQ(d.encode(), 1u << 27);  // bits 27-28, M >> 7
  d.m = 256;
  EXPECT_EQ(d.encode(), 2u << 27);
  d = base();
  d.sfa_id = 3;
  EXPECT_EQ(d.encode(), 3u << 29);  // bits 29-30
}

TEST(InstrDescMxf4Nvf4, MFieldAgreesWithF16Placement) {
  // The block-scaled table's M >> 7 at bit 27 and the f16 table's M >> 4 at bit 24 give the same bits for
  // the only legal block-scaled M values (see descriptors.hpp).
  for (uint32_t m : {128u, 256u}) {
    EXPECT_EQ(nvfp4_idesc(m, 8).encode() & (0x1Fu << 24), (m >> 4) << 24) << "M = " << m;
  }
}

TEST(InstrDescMxf4Nvf4, RoundTripAndValidation) {
  ptx::InstrDescMxf4Nvf4 d = nvfp4_idesc(128, 248);
  d.sfa_id = 2;
  d.sfb_id = 1;
  d.negate_a = true;
  d.scale_format = ptx::MmaScaleFormat::kUE8M0;
  const ptx::InstrDescMxf4Nvf4 r = ptx::decode_instr_desc_mxf4nvf4(d.encode());
  EXPECT_EQ(r.m, 128u);
  EXPECT_EQ(r.n, 248u);
  EXPECT_EQ(r.sfa_id, 2u);
  EXPECT_EQ(r.sfb_id, 1u);
  EXPECT_TRUE(r.negate_a);
  EXPECT_FALSE(r.negate_b);
  EXPECT_EQ(r.scale_format, ptx::MmaScaleFormat::kUE8M0);
  EXPECT_EQ(r.a_format, ptx::MmaF4Format::kE2M1);
  EXPECT_EQ(r.b_format, ptx::MmaF4Format::kE2M1);
  EXPECT_EQ(d.error(), nullptr);
  EXPECT_NE(nvfp4_idesc(64, 128).error(), nullptr);
  EXPECT_NE(nvfp4_idesc(256, 100).error(), nullptr);
  d.sfa_id = 4;
  EXPECT_NE(d.error(), nullptr);
  d = nvfp4_idesc(256, 128);
  d.a_major = ptx::MmaMajor::kMN;
  EXPECT_NE(d.error(), nullptr);
}

// ---- named constants of types.hpp -----------------------------------------------------------------------
TEST(NamedConstants, SeedValues) {
  EXPECT_EQ(ptx::kL2EvictFirst, 0x12F0000000000000ULL);  // seed 000 EVICT_FIRST
  EXPECT_EQ(ptx::kL2EvictLast, 0x14F0000000000000ULL);   // seed 000 EVICT_LAST
  EXPECT_EQ(ptx::kL2EvictNormal, 0x1000000000000000ULL);
  EXPECT_EQ(ptx::kClusterRankAddressShift, 24);
  EXPECT_EQ(~ptx::kClusterRankAddressBit, 0xFEFFFFFFu);  // seed 000's mask
  // even_cta_address(addr) == addr & 0xFEFFFFFF for the addresses of both CTAs of a pair.
  for (uint32_t addr : {0x400u, 0x0100'0400u, 0x0100'FFF8u, 0x0300'0010u}) {
    EXPECT_EQ(ptx::even_cta_address(addr), addr & 0xFEFFFFFFu);
  }
  EXPECT_EQ(ptx::kClcResponseBytes, 16u);
}

}  // namespace
