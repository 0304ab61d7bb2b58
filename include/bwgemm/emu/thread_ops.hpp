// Special registers, warp collectives, CTA barriers, cluster barriers and shared-address conversions: the
// emulation of ptx/misc.cuh and ptx/cluster.cuh.
//
// Warp collectives (elect.sync, shfl.sync, bar.warp.sync and the .sync.aligned tcgen05/cluster forms)
// wait until every lane of their membermask arrives; a lane that executes a different collective, or a
// membermask naming an exited lane, is reported. bar.sync / bar.arrive count threads (PTX ISA 9.7.13.1);
// barrier 0 without a count (__syncthreads) and barrier.cluster (ISA 9.7.13.3) wait for all non-exited
// threads. The operations are in src/emu/thread_ops.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/isa/types.hpp>

namespace bwgemm::emu {

// ---- special registers (PTX ISA 10) ----
ptx::Dim3 thread_idx();
ptx::Dim3 block_dim();
ptx::Dim3 block_idx();
ptx::Dim3 grid_dim();
uint32_t lane_idx();
uint32_t sm_id();
uint32_t dynamic_smem_size();
uint32_t cluster_ctarank();
uint32_t cluster_size();
ptx::Dim3 cluster_cta_id();
ptx::Dim3 cluster_shape();
ptx::Dim3 cluster_id();
ptx::Dim3 cluster_grid_shape();

// ---- warp collectives ----
bool elect_one_sync(uint32_t member_mask);

// threadIdx.x / 32 broadcast from lane 0 (a shfl.sync over the whole warp, as ptx::warp_idx does).
uint32_t warp_idx();

namespace detail {
// shfl.sync.idx of the 32-bit pattern `bits`.
uint32_t shfl_sync_bits(uint32_t member_mask, uint32_t bits, uint32_t src_lane);
}  // namespace detail

template <typename T>
T shfl_sync(uint32_t member_mask, T value, uint32_t src_lane) {
  static_assert(sizeof(T) == 4, "shfl_sync moves 32-bit values");
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint32_t result_bits = detail::shfl_sync_bits(member_mask, bits, src_lane);
  T result;
  std::memcpy(&result, &result_bits, 4);
  return result;
}

void sync_warp(uint32_t member_mask);

// Every non-exited lane of the warp must execute a .sync.aligned instruction together. Returns true in the
// lowest lane, which performs the warp's single action where there is one (tcgen05.alloc, dealloc).
bool warp_aligned(const char* op);

// ---- CTA barriers (bar.sync / bar.arrive) ----
namespace detail {
void named_barrier(uint32_t id, uint32_t num_threads, bool all_threads, bool wait);
}  // namespace detail

void sync_threads();
void named_barrier_sync(uint32_t id, uint32_t num_threads);
void named_barrier_arrive(uint32_t id, uint32_t num_threads);

// ---- cluster barrier (barrier.cluster.arrive / wait, .aligned) ----
void cluster_arrive_release();
void cluster_arrive_relaxed();
void cluster_wait();

uint32_t mapa_shared_cluster(uint32_t addr, uint32_t cta_rank);

// st.global.v8.b32 (with .L1::no_allocate or not: the emulator has no L1): 32 bytes to dst, which must be
// 32-byte aligned.
void st_global_256(void* dst, const uint32_t (&v)[8], bool no_allocate);

// ld.shared::cluster.v4.f32: 16 bytes of any CTA of the executing cluster (bounds- and alignment-checked).
ptx::Float4 ld_shared_cluster_v4_f32(uint32_t addr);

// ---- shared memory pointers ----
uint32_t to_shared_address(const void* ptr);
void* shared_address_to_pointer(uint32_t smem_addr);
void* dynamic_smem_ptr();
uint32_t dynamic_smem_base();

[[noreturn]] void trap();

// ---- programmatic dependent launch (griddepcontrol, ptx/griddepcontrol.cuh) ----
// The emulator runs one grid at a time: emu::launch returns when its grid has finished, and the next launch
// starts after it. No prerequisite grid is ever in flight when a kernel runs (every earlier grid's memory
// operations are complete and visible), and no dependent grid can start before this one ends. So .wait has
// nothing to wait for and .launch_dependents nothing to allow early: both are no-ops, which models exactly
// what the instructions guarantee (not when a GPU would overlap the grids).
inline void griddepcontrol_wait() {}
inline void griddepcontrol_launch_dependents() {}

}  // namespace bwgemm::emu
