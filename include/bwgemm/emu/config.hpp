// Public types of the emulator: how a launch is configured and what it reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <bwgemm/base/hardware.hpp>
#include <bwgemm/isa/types.hpp>

namespace bwgemm::emu {

// The first byte of a CTA's dynamic shared memory in the shared window. Like the GPU (where the first 1 KiB
// of the window is reserved for the system), the window does not start at 0, so a null address is never
// valid, and 0x400 keeps 1024-byte (128B-swizzle atom) alignment of the dynamic buffer.
inline constexpr uint32_t kSharedWindowBase = 0x400;
// Opt-in maximum of dynamic shared memory per CTA (base/hardware.hpp).
inline constexpr uint32_t kMaxDynamicSharedBytes = ::bwgemm::hw::kMaxDynamicSmemBytes;
// shared::cluster addresses carry the target CTA's rank in bits 24..27 (ptx/types.hpp).
inline constexpr uint32_t kSharedOffsetMask = (1u << ptx::kClusterRankAddressShift) - 1;
inline constexpr uint32_t kMaxClusterSize = 16;

struct LaunchConfig {
  ptx::Dim3 grid{1, 1, 1};     // CTAs per dimension (a multiple of `cluster` in each)
  ptx::Dim3 block{32, 1, 1};   // threads per CTA
  ptx::Dim3 cluster{1, 1, 1};  // CTAs per cluster
  uint32_t dynamic_smem_bytes = 0;
  // Clusters that run at the same time (the "SMs" of the emulated GPU, in clusters). Further clusters start
  // when one finishes, so persistent and CLC schedulers see the same work split as on a GPU of that size.
  uint32_t max_resident_clusters = 1;

  // Fiber stack per emulated thread (mmap'd with a guard page below; an overflow stops with a message).
  std::size_t stack_bytes = 256 * 1024;
  // 0: asynchronous operations (TMA, tcgen05.mma/cp/commit, CLC) complete at the next scheduling point.
  // N > 0: each completes after a random number of scheduler steps in [0, N] (seeded by `seed`), TMA and
  // CLC requests of different CTAs in any order, one CTA's CLC requests in issue order (clc_in_issue_order),
  // tcgen05 operations of one thread in issue order. Exposes missing waits.
  uint32_t max_async_delay_steps = 0;
  uint64_t seed = 1;
  // One CTA's clusterlaunchcontrol.try_cancel requests complete in the order it issued them (with random
  // delays too: a request is never due before its predecessor). The ISA text does not say; the hardware
  // evidence does: seed 004's scheduler keeps two requests in flight and stops at the first "not canceled"
  // answer, which loses a tile unless answers come in issue order, and it ran correctly on a B200; CUTLASS's
  // sm100 CLC pipeline is multi-stage the same way. false: the model before (any order), kept for the test
  // that shows what it breaks (test/emu/test_emu_clc.cpp).
  bool clc_in_issue_order = true;
  // Additionally yield every N calls into the emulator (0: only at blocking points).
  uint32_t yield_every_calls = 0;
  // Stop with a report after this many fiber resumptions (a livelock guard; 0: no limit).
  uint64_t max_steps = 200'000'000;
  // Initial content of every byte of dynamic shared memory.
  uint8_t smem_fill = 0;
  // Report tcgen05.ld of tensor-memory cells no tcgen05.mma/cp has written since allocation.
  bool report_uninitialized_tmem_reads = true;
};

// What a launch returns: ok, or the emulator's report (misuse, deadlock, stack overflow is fatal instead).
struct EmuResult {
  bool ok = true;
  std::string message;
  explicit operator bool() const { return ok; }
};

}  // namespace bwgemm::emu
