// sm100::smem_desc_advanced (kernels/sm100/common.cuh), the mainloops' way of moving a shared-memory matrix
// descriptor by one MMA K step or scale atom: the same 64 bits as re-encoding the moved address with
// smem_desc_with_address, for every 16-byte start address of the shared window whose moved address stays in
// it, every step the kernels take, and every descriptor base they use (the fields outside the start address
// untouched). Host logic, built against the emulation backend (label emu) because the header is kernel code.
#include <gtest/gtest.h>

#include <cstdint>

#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"

namespace {

using bwgemm::ptx::smem_desc_with_address;
using bwgemm::ptx::SmemDescriptor;
using bwgemm::ptx::SmemSwizzle;
using bwgemm::sm100::smem_desc_advanced;

// The start-address field holds 14 bits of address / 16: the shared window is 2^18 bytes.
constexpr uint32_t kWindowBytes = 1u << 18;

TEST(SmemDescAdvanced, EqualsReencodingTheMovedAddress) {
  // The kernels' bases: K-major 128-byte swizzle (SBO 1024), MN-major 128- and 64-byte swizzle with an LBO,
  // and the unswizzled scale atoms (SBO 128), with LBO mode and base offset set to check they are kept.
  const uint64_t bases[] = {
      SmemDescriptor{0, 0, 1024, 0, false, SmemSwizzle::k128B}.encode(),
      SmemDescriptor{0, 8192, 1024, 0, false, SmemSwizzle::k128B}.encode(),
      SmemDescriptor{0, 4096, 512, 0, false, SmemSwizzle::k64B}.encode(),
      SmemDescriptor{0, 0, 128, 0, false, SmemSwizzle::kNone}.encode(),
      SmemDescriptor{0, 16, 2048, 5, true, SmemSwizzle::k32B}.encode(),
  };
  // GEMM K steps (32 bytes K-major; 16 rows of 128 or 64 bytes MN-major), the dual GEMM's 32-byte K steps
  // and 512-byte scale atoms, each times 0..3 (the steps of one stage).
  const uint32_t steps[] = {32, 16 * 128, 16 * 64, 512};
  int64_t checked = 0;
  for (uint64_t base : bases) {
    for (uint32_t step : steps) {
      for (uint32_t j = 0; j < 4; ++j) {
        const uint32_t bytes = j * step;
        for (uint32_t addr = 0; addr + bytes < kWindowBytes; addr += 16) {
          const uint64_t moved = smem_desc_advanced(smem_desc_with_address(base, addr), bytes);
          const uint64_t want = smem_desc_with_address(base, addr + bytes);
          if (moved != want) {
            FAIL() << "base 0x" << std::hex << base << " address 0x" << addr << " + 0x" << bytes << ": 0x"
                   << moved << ", re-encoded 0x" << want;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 300000);
}

// The hand-worked case: SBO 1024 (64 at bits 32-45), 128-byte swizzle (2 at bits 61-63), version 1 (bit 46),
// address 0x4400 (0x440 in bits 0-13) moved by 96 bytes: 0x446 in bits 0-13, the rest unchanged.
TEST(SmemDescAdvanced, HandWorkedK128Step) {
  const uint64_t base = SmemDescriptor{0, 0, 1024, 0, false, SmemSwizzle::k128B}.encode();
  EXPECT_EQ(base, (uint64_t{2} << 61) | (uint64_t{1} << 46) | (uint64_t{64} << 32));
  EXPECT_EQ(smem_desc_advanced(smem_desc_with_address(base, 0x4400), 96), base | 0x446);
}

}  // namespace
