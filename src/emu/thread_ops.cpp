// Special registers, warp collectives, CTA and cluster barriers, shared-address conversions
// (include/bwgemm/emu/thread_ops.hpp).
#include <bwgemm/emu/thread_ops.hpp>

#include <cstdint>
#include <cstring>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/isa/types.hpp>

namespace bwgemm::emu {

// ---- special registers (PTX ISA 10) ----
ptx::Dim3 thread_idx() {
  return detail::machine().thread().tid3;
}
ptx::Dim3 block_dim() {
  return detail::machine().cfg.block;
}
ptx::Dim3 block_idx() {
  return detail::machine().cta().ctaid;
}
ptx::Dim3 grid_dim() {
  return detail::machine().cfg.grid;
}
uint32_t lane_idx() {
  return detail::machine().thread().lane;
}
uint32_t sm_id() {
  return detail::machine().cta().smid;
}
uint32_t dynamic_smem_size() {
  return detail::machine().cfg.dynamic_smem_bytes;
}
uint32_t cluster_ctarank() {
  return detail::machine().cta().rank;
}
uint32_t cluster_size() {
  return detail::machine().cluster_size;
}
ptx::Dim3 cluster_cta_id() {
  return detail::machine().cta().cluster_ctaid;
}
ptx::Dim3 cluster_shape() {
  return detail::machine().cfg.cluster;
}
ptx::Dim3 cluster_id() {
  return detail::machine().cta().cluster->clusterid;
}
ptx::Dim3 cluster_grid_shape() {
  return detail::machine().grid_clusters;
}

// ---- warp collectives ----
bool elect_one_sync(uint32_t member_mask) {
  auto& m = detail::machine();
  m.on_call();
  return m.warp_collective("elect.sync", member_mask, 0, [](const auto&, uint32_t mask, auto& out) {
    const int leader = __builtin_ctz(mask);  // the lowest lane of the membermask
    for (uint32_t l = 0; l < detail::kWarpSize; ++l) out[l] = (l == uint32_t(leader));
  }) != 0;
}

uint32_t warp_idx() {
  auto& m = detail::machine();
  m.on_call();
  detail::Thread& t = m.thread();
  const uint32_t mask = t.cta->warps[t.warp].lanes_present;
  return static_cast<uint32_t>(m.warp_collective("shfl.sync.idx (warp_idx)", mask, t.tid / detail::kWarpSize,
                                                 [](const auto& in, uint32_t, auto& out) {
                                                   for (auto& o : out) o = in[0];
                                                 }));
}

namespace detail {
uint32_t shfl_sync_bits(uint32_t member_mask, uint32_t bits, uint32_t src_lane) {
  auto& m = detail::machine();
  m.on_call();
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
  return static_cast<uint32_t>(out);
}
}  // namespace detail

void sync_warp(uint32_t member_mask) {
  auto& m = detail::machine();
  m.on_call();
  m.warp_collective("bar.warp.sync", member_mask, 0, [](const auto&, uint32_t, auto&) {});
}

bool warp_aligned(const char* op) {
  auto& m = detail::machine();
  return m.warp_collective(op, m.warp_live_mask(), 0, [](const auto&, uint32_t mask, auto& out) {
    const uint32_t leader = static_cast<uint32_t>(__builtin_ctz(mask));
    for (uint32_t l = 0; l < detail::kWarpSize; ++l) out[l] = l == leader;
  }) != 0;
}

// ---- CTA barriers (bar.sync / bar.arrive) ----
namespace detail {
void named_barrier(uint32_t id, uint32_t num_threads, bool all_threads, bool wait) {
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

void sync_threads() {
  detail::named_barrier(0, 0, /*all_threads=*/true, /*wait=*/true);
}
void named_barrier_sync(uint32_t id, uint32_t num_threads) {
  detail::named_barrier(id, num_threads, false, true);
}
void named_barrier_arrive(uint32_t id, uint32_t num_threads) {
  detail::named_barrier(id, num_threads, false, false);
}

// ---- cluster barrier (barrier.cluster.arrive / wait, .aligned) ----
void cluster_arrive_release() {
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
void cluster_arrive_relaxed() {
  cluster_arrive_release();
}

void cluster_wait() {
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

uint32_t mapa_shared_cluster(uint32_t addr, uint32_t cta_rank) {
  auto& m = detail::machine();
  m.on_call();
  if (cta_rank >= m.cluster_size) {
    m.fail("mapa: CTA rank " + std::to_string(cta_rank) + " in a cluster of " +
           std::to_string(m.cluster_size));
  }
  return (cta_rank << ptx::kClusterRankAddressShift) | (addr & kSharedOffsetMask);
}

void st_global_256(void* dst, const uint32_t (&v)[8], bool no_allocate) {
  (void)no_allocate;  // an L1 hint: nothing to model
  auto& m = detail::machine();
  m.on_call();
  if (reinterpret_cast<uintptr_t>(dst) % 32 != 0)
    m.fail("st.global.v8.b32: address " + detail::format_hex(reinterpret_cast<uintptr_t>(dst)) +
           " is not 32-byte aligned");
  std::memcpy(dst, v, 32);
}

ptx::Float4 ld_shared_cluster_v4_f32(uint32_t addr) {
  auto& m = detail::machine();
  m.on_call();
  const detail::SharedLocation loc =
      detail::resolve_shared_cluster(addr, 16, 16, "ld.shared::cluster.v4.f32");
  ptx::Float4 v;
  std::memcpy(&v, loc.bytes(), sizeof(v));
  return v;
}

// ---- shared memory pointers ----
uint32_t to_shared_address(const void* ptr) {
  return detail::generic_to_shared(ptr, "cvta.to.shared");
}
void* shared_address_to_pointer(uint32_t smem_addr) {
  return detail::shared_to_generic(smem_addr, "cvta.shared");
}
void* dynamic_smem_ptr() {
  return detail::machine().cta().smem + kSharedWindowBase;
}
uint32_t dynamic_smem_base() {
  return detail::shared_address(detail::machine().cta(), kSharedWindowBase);
}

void trap() {
  detail::machine().fail("trap: the kernel executed trap (ptx::trap)");
}

}  // namespace bwgemm::emu
