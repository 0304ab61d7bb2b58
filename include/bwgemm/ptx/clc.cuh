// Cluster launch control (CLC) wrappers: work stealing from not-yet-launched clusters (sm_100).
// PTX ISA 9.7.13 (Parallel Synchronization and Communication) clusterlaunchcontrol.try_cancel and
// clusterlaunchcontrol.query_cancel, PTX ISA 8.6+.
//
// Operands: the 16-byte response and its mbarrier as 32-bit shared-window addresses.
// Inline asm, not cuda::ptx: cuda::ptx takes generic pointers / a 128-bit register value, we keep the
// response in shared memory behind a 32-bit address (what the emulator models).
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>
#include <bwgemm/isa/types.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#endif

namespace bwgemm::ptx {

// clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [response], [bar]:
// ask to cancel a cluster that has not started; the 16-byte response is written to this CTA's shared
// memory at `response_smem` (16-byte aligned) and `bar` receives complete_tx of 16 bytes.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void clc_try_cancel(uint32_t response_smem, uint32_t bar) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::clc_try_cancel(response_smem, bar);
#else
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(
          response_smem),
      "r"(bar)
      : "memory");
#endif
}

// clusterlaunchcontrol.try_cancel...multicast::cluster::all.b128 [response], [bar]: as clc_try_cancel, but
// the response (and the complete_tx on the barrier at the same offset) reaches every CTA of the cluster
// (seed 004's scheduler warp).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void clc_try_cancel_multicast(uint32_t response_smem, uint32_t bar) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::clc_try_cancel_multicast(response_smem, bar);
#else
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::"
      "all.b128 "
      "[%0], [%1];" ::"r"(response_smem),
      "r"(bar)
      : "memory");
#endif
}

// Read the response at `response_smem` (after its barrier completed) and decode it:
// ld.shared.b128, clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 and, when canceled,
// clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128.
BWGEMM_DEVICE BWGEMM_FORCEINLINE ClcResponse clc_query(uint32_t response_smem) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::clc_query(response_smem);
#else
  uint32_t canceled, x, y, z;
  asm volatile(
      "{\n\t.reg .pred p;\n\t.reg .b128 r;\n\t"
      "ld.shared.b128 r, [%4];\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "mov.u32 %1, 0;\n\tmov.u32 %2, 0;\n\tmov.u32 %3, 0;\n\t"
      "@p clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%1, %2, %3, _}, r;\n\t}"
      : "=r"(canceled), "=r"(x), "=r"(y), "=r"(z)
      : "r"(response_smem)
      : "memory");
  ClcResponse response;
  response.is_canceled = canceled != 0;
  response.first_cta = Dim3{x, y, z};
  return response;
#endif
}

}  // namespace bwgemm::ptx
