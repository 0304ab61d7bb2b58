// Cluster launch control in the emulator: try_cancel claims clusters that have not started (in launch
// order), multicasts the response to every CTA of the cluster, completes 16 transaction bytes on each CTA's
// barrier, and answers "not canceled" once every cluster has started or been claimed.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <bwgemm/emu/backend.hpp>
#include <bwgemm/ptx/ptx.cuh>

namespace {

namespace ptx = bwgemm::ptx;

struct Log {
  std::vector<int> tile_count;      // how often each cluster's tile was processed
  std::vector<int> started;         // clusters that actually ran
  std::vector<uint32_t> peer_seen;  // tiles the odd CTA decoded (it must agree with the even one)
};

// Persistent CLC loop of seed 004, reduced to one thread per CTA: do the own tile, then steal until none
// left.
__global__ void clc_steal(Log* log) {
  const uint32_t tid = ptx::thread_idx().x;
  const uint32_t rank = ptx::cluster_ctarank();
  const uint32_t response = ptx::dynamic_smem_base();
  const uint32_t bar = response + 16;
  if (tid == 0) {
    ptx::mbarrier_init(bar, 1);
    ptx::fence_mbarrier_init();
  }
  ptx::cluster_sync();
  if (tid == 0) {
    uint32_t tile = ptx::cluster_id().x;
    if (rank == 0) log->started.push_back(static_cast<int>(tile));
    for (uint32_t phase = 0;; phase ^= 1) {
      if (rank == 0) ++log->tile_count[tile];
      if (rank == 1) log->peer_seen.push_back(tile);
      ptx::mbarrier_arrive_expect_tx(bar, ptx::kClcResponseBytes);
      if (rank == 0) ptx::clc_try_cancel_multicast(response, bar);
      ptx::mbarrier_wait_parity(bar, phase);
      const ptx::ClcResponse r = ptx::clc_query(response);
      if (!r.is_canceled) break;
      tile = r.first_cta.x / 2;
    }
  }
  ptx::cluster_sync();  // the peer must not exit before the multicast response landed
}

TEST(EmuClc, TryCancelStealsEveryNotStartedClusterExactlyOnce) {
  Log log;
  log.tile_count.assign(8, 0);
  bwgemm::emu::LaunchConfig cfg;
  cfg.grid = {16, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.cluster = {2, 1, 1};
  cfg.dynamic_smem_bytes = 64;
  cfg.max_resident_clusters = 2;
  const auto r = bwgemm::emu::launch(cfg, clc_steal, &log);
  ASSERT_TRUE(r.ok) << r.message;
  for (int t = 0; t < 8; ++t) EXPECT_EQ(log.tile_count[t], 1) << "tile " << t;
  EXPECT_LT(log.started.size(), 8u) << "with 2 resident clusters, running clusters must steal the others";
  int processed = 0;
  for (int c : log.tile_count) processed += c;
  EXPECT_EQ(log.peer_seen.size(), size_t(processed)) << "the odd CTA decodes the same responses";
}

__global__ void clc_query_without_response() {
  if (ptx::thread_idx().x == 0) (void)ptx::clc_query(ptx::dynamic_smem_base());
}

TEST(EmuClc, QueryOfAnUnwrittenResponseIsReported) {
  bwgemm::emu::LaunchConfig cfg;
  cfg.dynamic_smem_bytes = 64;
  const auto r = bwgemm::emu::launch(cfg, clc_query_without_response);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("no try_cancel response"), std::string::npos) << r.message;
}

}  // namespace
