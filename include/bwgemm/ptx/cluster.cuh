// Thread block cluster wrappers: cluster special registers, barrier.cluster, mapa, and loads from a peer
// CTA's shared memory (distributed shared memory).
//
// The even-CTA address trick of seed 000 (kClusterRankAddressShift, even_cta_address) is in types.hpp,
// because it is pure arithmetic shared with the emulator and host tests.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>
#include <bwgemm/isa/types.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#else
#include <cuda/ptx>
#endif

namespace bwgemm::ptx {

// PTX ISA 10 (Special Registers) %cluster_ctarank: this CTA's rank in its cluster (0..cluster_size()-1).
// cuda::ptx::get_sreg_* (CCCL >= 2.4): the exact mov form.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t cluster_ctarank() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_ctarank();
#else
  return ::cuda::ptx::get_sreg_cluster_ctarank();
#endif
}

// PTX ISA 10 (Special Registers) %cluster_nctarank: number of CTAs in the cluster.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t cluster_size() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_size();
#else
  return ::cuda::ptx::get_sreg_cluster_nctarank();
#endif
}

// PTX ISA 10 (Special Registers) %cluster_ctaid: this CTA's coordinates inside its cluster.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 cluster_cta_id() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_cta_id();
#else
  return Dim3{::cuda::ptx::get_sreg_cluster_ctaid_x(), ::cuda::ptx::get_sreg_cluster_ctaid_y(),
              ::cuda::ptx::get_sreg_cluster_ctaid_z()};
#endif
}

// PTX ISA 10 (Special Registers) %cluster_nctaid: the cluster shape in CTAs.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 cluster_shape() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_shape();
#else
  return Dim3{::cuda::ptx::get_sreg_cluster_nctaid_x(), ::cuda::ptx::get_sreg_cluster_nctaid_y(),
              ::cuda::ptx::get_sreg_cluster_nctaid_z()};
#endif
}

// PTX ISA 10 (Special Registers) %clusterid: this cluster's coordinates in the grid of clusters.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 cluster_id() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_id();
#else
  return Dim3{::cuda::ptx::get_sreg_clusterid_x(), ::cuda::ptx::get_sreg_clusterid_y(),
              ::cuda::ptx::get_sreg_clusterid_z()};
#endif
}

// PTX ISA 10 (Special Registers) %nclusterid: the grid's shape in clusters.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 cluster_grid_shape() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_grid_shape();
#else
  return Dim3{::cuda::ptx::get_sreg_nclusterid_x(), ::cuda::ptx::get_sreg_nclusterid_y(),
              ::cuda::ptx::get_sreg_nclusterid_z()};
#endif
}

// PTX ISA 9.7.13.3 barrier.cluster: barrier.cluster.arrive.release.aligned (all threads of the warp must
// execute it). Inline asm: cuda::ptx has barrier.cluster.arrive only without .aligned.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void cluster_arrive_release() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_arrive_release();
#else
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}

// PTX ISA 9.7.13.3 barrier.cluster: barrier.cluster.arrive.relaxed.aligned (no memory ordering; seed 004
// uses it after mbarrier init + fence.mbarrier_init).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void cluster_arrive_relaxed() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_arrive_relaxed();
#else
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
}

// PTX ISA 9.7.13.3 barrier.cluster: barrier.cluster.wait.acquire.aligned.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void cluster_wait() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cluster_wait();
#else
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

// Composite (no PTX of its own): arrive.release + wait.acquire, the full cluster barrier.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void cluster_sync() {
  cluster_arrive_release();
  cluster_wait();
}

// PTX ISA 9.7.9 (Data Movement) mapa: the shared::cluster address of the object at shared address `addr` in
// the CTA of rank `cta_rank`. mapa.shared::cluster.u32 d, addr, rank. Inline asm: cuda::ptx has no mapa
// wrapper.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t mapa_shared_cluster(uint32_t addr, uint32_t cta_rank) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mapa_shared_cluster(addr, cta_rank);
#else
  uint32_t result;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(result) : "r"(addr), "r"(cta_rank));
  return result;
#endif
}

// PTX ISA 9.7.9.8 ld: ld.shared::cluster.v4.f32: four consecutive floats at the shared::cluster address
// `addr` (16-byte aligned; mapa_shared_cluster forms it for a peer CTA, or this CTA's own address). Reads
// another CTA's shared memory (the split-K reduction of the sm_90a swap-AB kernels); the caller orders it
// after the writer's stores with a cluster barrier (barrier.cluster.arrive.release / wait.acquire).
// Inline asm: cuda::ptx has no ld wrapper.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Float4 ld_shared_cluster_v4_f32(uint32_t addr) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::ld_shared_cluster_v4_f32(addr);
#else
  Float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
  return v;
#endif
}

}  // namespace bwgemm::ptx
