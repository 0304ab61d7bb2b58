// tcgen05 primitives in the emulator: tensor-memory allocation accounting, the lane-quarter rule of
// tcgen05.ld, and cp.32x128b.warpx4 replication (read back with tcgen05.ld).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <bwgemm/emu/backend.hpp>
#include <bwgemm/ptx/ptx.cuh>

namespace {

namespace ptx = bwgemm::ptx;

bwgemm::emu::LaunchConfig one_cta(uint32_t threads) {
  bwgemm::emu::LaunchConfig cfg;
  cfg.block = {threads, 1, 1};
  cfg.dynamic_smem_bytes = 2048;
  return cfg;
}

// Warp 0 allocates; warp 1 reads lanes 0-31 (warp 1 may only reach lanes 32-63).
__global__ void ld_outside_lane_quarter() {
  const uint32_t slot = ptx::dynamic_smem_base();
  if (ptx::warp_idx() == 0) ptx::tcgen05_alloc(slot, 32);
  ptx::sync_threads();
  const uint32_t taddr = *static_cast<uint32_t*>(ptx::shared_address_to_pointer(slot));
  if (ptx::warp_idx() == 1) {
    uint32_t v[1];
    ptx::tcgen05_ld_32x32b<1>(taddr, v);
  }
}

TEST(EmuTcgen05, LoadOutsideTheWarpsLaneQuarterIsReported) {
  const auto r = bwgemm::emu::launch(one_cta(64), ld_outside_lane_quarter);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("warp 1 may access tensor-memory lanes 32..63 only"), std::string::npos)
      << r.message;
}

__global__ void alloc_without_dealloc() {
  if (ptx::warp_idx() == 0) ptx::tcgen05_alloc(ptx::dynamic_smem_base(), 64);
}

TEST(EmuTcgen05, ExitingWithAllocatedColumnsIsReported) {
  const auto r = bwgemm::emu::launch(one_cta(32), alloc_without_dealloc);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("64 tensor-memory columns still allocated"), std::string::npos) << r.message;
}

// 512 + 32 columns: the second alloc waits for a dealloc that never comes.
__global__ void over_allocation() {
  const uint32_t slot = ptx::dynamic_smem_base();
  if (ptx::warp_idx() == 0) ptx::tcgen05_alloc(slot, 512);
  ptx::sync_threads();
  if (ptx::warp_idx() == 1) ptx::tcgen05_alloc(slot + 4, 32);
}

TEST(EmuTcgen05, AllocBeyond512ColumnsWaitsAndShowsInTheDeadlockReport) {
  const auto r = bwgemm::emu::launch(one_cta(64), over_allocation);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("tcgen05.alloc of 32 columns waits: 0 of 512 tensor-memory columns free"),
            std::string::npos)
      << r.message;
}

// A 32-row x 16-byte tile copied with .32x128b.warpx4 lands in all four lane quarters; each warp reads its
// quarter back: lane q*32+i, column c+w holds bytes 4w..4w+3 of row i.
__global__ void cp_warpx4_roundtrip(uint32_t* out) {
  const uint32_t base = ptx::dynamic_smem_base();
  const uint32_t slot = base + 1024;
  const uint32_t bar = slot + 8;
  auto* tile = static_cast<uint8_t*>(ptx::dynamic_smem_ptr());
  const uint32_t tid = ptx::thread_idx().x;
  const uint32_t warp = ptx::warp_idx();
  for (uint32_t i = tid; i < 512; i += 128) tile[i] = static_cast<uint8_t>(i * 7 + 3);
  if (warp == 0) ptx::tcgen05_alloc(slot, 32);
  if (tid == 0) ptx::mbarrier_init(bar, 1);
  ptx::fence_proxy_async_shared_cta();
  ptx::sync_threads();
  const uint32_t taddr = *static_cast<uint32_t*>(ptx::shared_address_to_pointer(slot));
  if (tid == 0) {
    constexpr uint64_t sf_desc_base = (uint64_t{(8 * 16) >> 4} << 32) | (1ULL << 46);  // seed 000, SBO 128
    ptx::tcgen05_cp(taddr + 4, sf_desc_base | (base >> 4));
    ptx::tcgen05_commit(bar);
  }
  ptx::mbarrier_wait_parity(bar, 0);
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t v[4];
  ptx::tcgen05_ld_32x32b<4>(taddr + ((warp * 32) << 16) + 4, v);
  ptx::tcgen05_wait_ld();
  for (int w = 0; w < 4; ++w) out[tid * 4 + w] = v[w];
  ptx::sync_threads();
  if (warp == 0) ptx::tcgen05_dealloc(taddr, 32);
}

TEST(EmuTcgen05, CopyWarpx4ReplicatesRowsIntoEveryLaneQuarter) {
  std::vector<uint32_t> out(128 * 4);
  const auto r = bwgemm::emu::launch(one_cta(128), cp_warpx4_roundtrip, out.data());
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t lane = 0; lane < 128; ++lane) {
    for (uint32_t w = 0; w < 4; ++w) {
      uint32_t want = 0;
      for (uint32_t b = 0; b < 4; ++b) {
        const uint32_t byte_index = (lane % 32) * 16 + w * 4 + b;  // row (lane % 32), byte 4w + b
        want |= ((byte_index * 7 + 3) & 0xFFu) << (8 * b);
      }
      ASSERT_EQ(out[lane * 4 + w], want) << "lane " << lane << " word " << w;
    }
  }
}

}  // namespace
