// mbarrier wrappers (PTX ISA 9.7.13.15 "mbarrier" in ISA 8.7, chapter 9.7.13 Parallel Synchronization and
// Communication Instructions).
//
// Operands: barriers are 32-bit shared-window addresses (shared::cta), or shared::cluster addresses for the
// *_cluster forms (from mapa_shared_cluster() or even_cta_address()).
//
// Inline asm, not cuda::ptx: cuda::ptx's mbarrier functions take generic uint64_t* pointers, our signature
// is a 32-bit shared address (what the emulator models); converting back and forth would cost cvta
// instructions and hide the address space.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>
#include <bwgemm/isa/types.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#else
#include <cstdio>

#include <cuda/ptx>
#endif

// Debug aid: when > 0, mbarrier_wait_parity() gives up after this many try_wait attempts (each of which
// already suspends for a hardware-defined time), prints the barrier, parity, block and thread, and traps.
// 0 (the default) waits forever, as production kernels must.
#ifndef BWGEMM_MBARRIER_MAX_TRIES
#define BWGEMM_MBARRIER_MAX_TRIES 0
#endif

namespace bwgemm::ptx {

// PTX ISA 9.7.13.15.9 mbarrier.init: mbarrier.init.shared::cta.b64 [bar], count.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void mbarrier_init(uint32_t bar, uint32_t arrive_count) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_init(bar, arrive_count);
#else
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrive_count) : "memory");
#endif
}

// PTX ISA 9.7.13.4 membar/fence: fence.mbarrier_init.release.cluster. Makes mbarrier.init visible to the
// other CTAs of the cluster (and to the async proxy) before a cluster barrier.
// cuda::ptx: the exact form exists since CCCL 2.3 (CUDA 12.3).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void fence_mbarrier_init() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::fence_mbarrier_init();
#else
  ::cuda::ptx::fence_mbarrier_init(::cuda::ptx::sem_release, ::cuda::ptx::scope_cluster);
#endif
}

// PTX ISA 9.7.13.15.13 mbarrier.arrive: one arrival on a barrier of this CTA.
// mbarrier.arrive.release.cta.shared::cta.b64 _, [bar].
BWGEMM_DEVICE BWGEMM_FORCEINLINE void mbarrier_arrive(uint32_t bar) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_arrive(bar);
#else
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
#endif
}

// PTX ISA 9.7.13.15.13 mbarrier.arrive: one arrival on a barrier anywhere in the cluster (a peer CTA's, by
// a shared::cluster address). mbarrier.arrive.release.cta.shared::cluster.b64 _, [bar].
//
// Scope .cta, as seed 000 and CUTLASS's ClusterBarrier::arrive(cta_id) write it: every arrival of ours on a
// peer's barrier signals only that asynchronous work is done (wgmma/tcgen05 reads of a stage, proven by
// their own waits; a TMA whose bytes the barrier counts itself), never data this thread wrote for the
// peer to read. `.release.cluster` would order such writes, and costs a GPU-wide fence: ptxas (CUDA 13.0,
// sm_90a and sm_100a) puts MEMBAR.ALL.CTA + MEMBAR.ALL.GPU + ERRBAR + CGAERRBAR before every such arrive,
// while .release.cta is the bare SYNCS.ARRIVE. The Hopper cluster kernels paid that fence twice per K block
// (docs/hopper.md has what removing it changed). The test kernels.no_gpu_scope_fences keeps it out of the
// shipped kernels.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void mbarrier_arrive_cluster(uint32_t cluster_bar) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_arrive_cluster(cluster_bar);
#else
  asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
#endif
}

// PTX ISA 9.7.13.15.13 mbarrier.arrive: arrive and raise the expected transaction bytes of a barrier of
// this CTA. mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [bar], tx_bytes.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_arrive_expect_tx(bar, tx_bytes);
#else
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(tx_bytes)
               : "memory");
#endif
}

// PTX ISA 9.7.13.15.13 mbarrier.arrive: arrive.expect_tx on a barrier anywhere in the cluster (seed 000:
// both CTAs of a pair report TMA bytes to the even CTA's barrier).
// mbarrier.arrive.expect_tx.release.cta.shared::cluster.b64 _, [bar], tx_bytes (scope .cta: see
// mbarrier_arrive_cluster).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void mbarrier_arrive_expect_tx_cluster(uint32_t cluster_bar,
                                                                        uint32_t tx_bytes) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_arrive_expect_tx_cluster(cluster_bar, tx_bytes);
#else
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cluster.b64 _, [%0], %1;" ::"r"(cluster_bar),
               "r"(tx_bytes)
               : "memory");
#endif
}

// PTX ISA 9.7.13.15.11 mbarrier.expect_tx: raise the expected transaction bytes without arriving.
// mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], tx_bytes.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void mbarrier_expect_tx(uint32_t bar, uint32_t tx_bytes) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_expect_tx(bar, tx_bytes);
#else
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(tx_bytes)
               : "memory");
#endif
}

// PTX ISA 9.7.13.15.16 mbarrier.try_wait: one bounded wait for the phase with the given parity to complete.
// True once it has. mbarrier.try_wait.parity.acquire.{cta,cluster}.shared::cta.b64.
// S = Scope::kCluster when the arrivals that complete the phase come from other CTAs and this thread reads
// memory they wrote.
template <Scope S = Scope::kCta>
BWGEMM_DEVICE BWGEMM_FORCEINLINE bool mbarrier_try_wait_parity(uint32_t bar, uint32_t parity) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_try_wait_parity<S>(bar, parity);
#else
  uint32_t done;
  if constexpr (S == Scope::kCta) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } else {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  }
  return done != 0;
#endif
}

// PTX ISA 9.7.13.15.16 mbarrier.try_wait: wait until the phase with the given parity has completed
// (a try_wait loop). With BWGEMM_MBARRIER_MAX_TRIES > 0 a wait that never ends traps with a message.
template <Scope S = Scope::kCta>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void mbarrier_wait_parity(uint32_t bar, uint32_t parity) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::mbarrier_wait_parity<S>(bar, parity);
#else
#if BWGEMM_MBARRIER_MAX_TRIES > 0
  for (unsigned long long tries = 1; !mbarrier_try_wait_parity<S>(bar, parity); ++tries) {
    if (tries >= static_cast<unsigned long long>(BWGEMM_MBARRIER_MAX_TRIES)) {
      printf(
          "bwgemm: mbarrier wait gave up after %llu tries: bar=0x%x parity=%u block=(%u,%u,%u) thread=%u\n",
          tries, bar, parity, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x);
      asm volatile("trap;");
    }
  }
#else
  while (!mbarrier_try_wait_parity<S>(bar, parity)) {
  }
#endif
#endif
}

}  // namespace bwgemm::ptx
