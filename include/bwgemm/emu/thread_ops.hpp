// Special registers, warp collectives, CTA barriers, cluster barriers and shared-address conversions: the
// emulation of ptx/misc.cuh and ptx/cluster.cuh.
//
// Warp collectives (elect.sync, shfl.sync, bar.warp.sync and the .sync.aligned tcgen05/cluster forms)
// wait until every lane of their membermask arrives; a lane that executes a different collective, or a
// membermask naming an exited lane, is reported. bar.sync / bar.arrive count threads (PTX ISA 9.7.13.1);
// barrier 0 without a count (__syncthreads) and barrier.cluster (ISA 9.7.13.3) wait for all non-exited
// threads.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/ptx/types.hpp>

namespace bwgemm::emu {

// ---- special registers (PTX ISA 10) ----
inline ptx::Dim3 thread_idx() {
  return detail::machine().thread().tid3;
}
inline ptx::Dim3 block_dim() {
  return detail::machine().cfg.block;
}
inline ptx::Dim3 block_idx() {
  return detail::machine().cta().ctaid;
}
inline ptx::Dim3 grid_dim() {
  return detail::machine().cfg.grid;
}
inline uint32_t lane_idx() {
  return detail::machine().thread().lane;
}
inline uint32_t sm_id() {
  return detail::machine().cta().smid;
}
inline uint32_t dynamic_smem_size() {
  return detail::machine().cfg.dynamic_smem_bytes;
}
inline uint32_t cluster_ctarank() {
  return detail::machine().cta().rank;
}
inline uint32_t cluster_size() {
  return detail::machine().cluster_size;
}
inline ptx::Dim3 cluster_cta_id() {
  return detail::machine().cta().cluster_ctaid;
}
inline ptx::Dim3 cluster_shape() {
  return detail::machine().cfg.cluster;
}
inline ptx::Dim3 cluster_id() {
  return detail::machine().cta().cluster->clusterid;
}
inline ptx::Dim3 cluster_grid_shape() {
  return detail::machine().grid_clusters;
}

// ---- warp collectives ----
inline bool elect_one_sync(uint32_t member_mask) {
  auto& m = detail::machine();
  m.on_call();
  return m.warp_collective("elect.sync", member_mask, 0, [](const auto&, uint32_t mask, auto& out) {
    const int leader = __builtin_ctz(mask);  // the lowest lane of the membermask
    for (uint32_t l = 0; l < detail::kWarpSize; ++l) out[l] = (l == uint32_t(leader));
  }) != 0;
}

// threadIdx.x / 32 broadcast from lane 0 (a shfl.sync over the whole warp, as ptx::warp_idx does).
inline uint32_t warp_idx() {
  auto& m = detail::machine();
  m.on_call();
  detail::Thread& t = m.thread();
  const uint32_t mask = t.cta->warps[t.warp].lanes_present;
  return static_cast<uint32_t>(m.warp_collective("shfl.sync.idx (warp_idx)", mask, t.tid / detail::kWarpSize,
                                                 [](const auto& in, uint32_t, auto& out) {
                                                   for (auto& o : out) o = in[0];
                                                 }));
}

template <typename T>
T shfl_sync(uint32_t member_mask, T value, uint32_t src_lane) {
  static_assert(sizeof(T) == 4, "shfl_sync moves 32-bit values");
  auto& m = detail::machine();
  m.on_call();
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint64_t in = bits | (static_cast<uint64_t>(src_lane % detail::kWarpSize) << 32);
  bool bad_source = false;
  const uint64_t out = m.warp_collective("shfl.sync.idx", member_mask, in,
                                         [&bad_source](const auto& ins, uint32_t mask, auto& outs) {
                                           for (uint32_t l = 0; l < detail::kWarpSize; ++l) {
                                             if (!(mask >> l & 1u)) continue;
                                             const uint32_t src = static_cast<uint32_t>(ins[l] >> 32);
                                             bad_source = bad_source || !(mask >> src & 1u);
                                             outs[l] = ins[src] & 0xFFFFFFFFu;
                                           }
                                         });
  if (bad_source) m.fail("shfl.sync reads a source lane outside its membermask (undefined result)");
  const uint32_t result_bits = static_cast<uint32_t>(out);
  T result;
  std::memcpy(&result, &result_bits, 4);
  return result;
}

inline void sync_warp(uint32_t member_mask) {
  auto& m = detail::machine();
  m.on_call();
  m.warp_collective("bar.warp.sync", member_mask, 0, [](const auto&, uint32_t, auto&) {});
}

// Every non-exited lane of the warp must execute a .sync.aligned instruction together. Returns true in the
// lowest lane, which performs the warp's single action where there is one (tcgen05.alloc, dealloc).
inline bool warp_aligned(const char* op) {
  auto& m = detail::machine();
  return m.warp_collective(op, m.warp_live_mask(), 0, [](const auto&, uint32_t mask, auto& out) {
    const uint32_t leader = static_cast<uint32_t>(__builtin_ctz(mask));
    for (uint32_t l = 0; l < detail::kWarpSize; ++l) out[l] = l == leader;
  }) != 0;
}

// ---- CTA barriers (bar.sync / bar.arrive) ----
namespace detail {
inline void named_barrier(uint32_t id, uint32_t num_threads, bool all_threads, bool wait) {
  Machine& m = machine();
  m.on_call();
  Cta& c = m.cta();
  const char* op = wait ? "bar.sync" : "bar.arrive";
  if (id >= kNamedBarriers)
    m.fail(std::string(op) + ": barrier id " + std::to_string(id) + " is not in 0..15");
  if (!all_threads && (num_threads == 0 || num_threads % kWarpSize != 0 || num_threads > c.threads.size())) {
    m.fail(std::string(op) + ": thread count " + std::to_string(num_threads) +
           " must be a nonzero multiple of 32 and at most the CTA's " + std::to_string(c.threads.size()) +
           " threads");
  }
  NamedBarrier& b = c.named[id];
  if (b.arrived == 0) {
    b.expected = num_threads;
    b.all_threads = all_threads;
  } else if (b.all_threads != all_threads || (!all_threads && b.expected != num_threads)) {
    m.fail(std::string(op) + " " + std::to_string(id) + ": thread count " +
           (all_threads ? std::string("(all threads)") : std::to_string(num_threads)) +
           " differs from the count of the threads already waiting (" +
           (b.all_threads ? std::string("all threads") : std::to_string(b.expected)) + ")");
  }
  const uint64_t generation = b.generation;
  ++b.arrived;
  m.complete_named_barrier_if_done(c, b);
  if (!wait) return;
  NamedBarrier* bp = &b;
  Cta* cp = &c;
  m.block([bp, generation] { return bp->generation > generation; },
          [bp, cp, id] {
            const uint32_t need = bp->all_threads ? cp->live_threads : bp->expected;
            return "bar.sync " + std::to_string(id) + ": " + std::to_string(bp->arrived) + " of " +
                   std::to_string(need) + " threads arrived" +
                   (bp->all_threads ? " (all non-exited threads)" : "");
          });
}
}  // namespace detail

inline void sync_threads() {
  detail::named_barrier(0, 0, /*all_threads=*/true, /*wait=*/true);
}
inline void named_barrier_sync(uint32_t id, uint32_t num_threads) {
  detail::named_barrier(id, num_threads, false, true);
}
inline void named_barrier_arrive(uint32_t id, uint32_t num_threads) {
  detail::named_barrier(id, num_threads, false, false);
}

// ---- cluster barrier (barrier.cluster.arrive / wait, .aligned) ----
inline void cluster_arrive_release() {
  auto& m = detail::machine();
  m.on_call();
  warp_aligned("barrier.cluster.arrive.aligned");
  detail::Thread& t = m.thread();
  detail::Cluster& cl = *t.cta->cluster;
  if (t.cluster_arrived) m.fail("barrier.cluster.arrive twice without a barrier.cluster.wait in between");
  t.cluster_arrived = true;
  t.cluster_arrival_phase = cl.barrier_phase;
  ++cl.barrier_arrived;
  m.complete_cluster_barrier_if_done(cl);
}
inline void cluster_arrive_relaxed() {
  cluster_arrive_release();
}

inline void cluster_wait() {
  auto& m = detail::machine();
  m.on_call();
  warp_aligned("barrier.cluster.wait.aligned");
  detail::Thread& t = m.thread();
  if (!t.cluster_arrived) m.fail("barrier.cluster.wait without a preceding barrier.cluster.arrive");
  detail::Cluster* cl = t.cta->cluster;
  const uint64_t phase = t.cluster_arrival_phase;
  m.block([cl, phase] { return cl->barrier_phase > phase; },
          [cl] {
            return "barrier.cluster.wait: " + std::to_string(cl->barrier_arrived) + " of " +
                   std::to_string(cl->live_threads) + " non-exited threads of the cluster arrived";
          });
  t.cluster_arrived = false;
}

inline uint32_t mapa_shared_cluster(uint32_t addr, uint32_t cta_rank) {
  auto& m = detail::machine();
  m.on_call();
  if (cta_rank >= m.cluster_size) {
    m.fail("mapa: CTA rank " + std::to_string(cta_rank) + " in a cluster of " +
           std::to_string(m.cluster_size));
  }
  return (cta_rank << ptx::kClusterRankAddressShift) | (addr & kSharedOffsetMask);
}

// ---- shared memory pointers ----
inline uint32_t to_shared_address(const void* ptr) {
  return detail::generic_to_shared(ptr, "cvta.to.shared");
}
inline void* shared_address_to_pointer(uint32_t smem_addr) {
  return detail::shared_to_generic(smem_addr, "cvta.shared");
}
inline void* dynamic_smem_ptr() {
  return detail::machine().cta().smem + kSharedWindowBase;
}
inline uint32_t dynamic_smem_base() {
  return detail::shared_address(detail::machine().cta(), kSharedWindowBase);
}

[[noreturn]] inline void trap() {
  detail::machine().fail("trap: the kernel executed trap (ptx::trap)");
}

}  // namespace bwgemm::emu
