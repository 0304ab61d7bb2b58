// Position in a ring of `Stages` pipeline slots, and the mbarrier parity each side waits on.
//
// Every slot has a "full" barrier (the producer's data landed) and an "empty" barrier (the consumer is
// done with it). Slot i is used for the n-th time on pass n = floor(step / Stages) through the ring,
// whose phase bit is n % 2. mbarrier.try_wait.parity(P) succeeds once the phase with parity P has
// completed (PTX ISA 9.7.13.15.16): a freshly initialised barrier is in phase 0, so waiting on parity 1
// returns at once. Hence the producer waits on "empty" with the flipped phase (the first pass finds
// every slot free), the consumer waits on "full" with the phase itself.
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"

namespace bwgemm {

template <int Stages>
struct PipelineState {
  static_assert(Stages >= 1, "a pipeline needs at least one stage");
  static constexpr int kStages = Stages;

  uint32_t index = 0;  // slot in [0, Stages)
  uint32_t phase = 0;  // parity of the current pass through the ring

  BWGEMM_HD constexpr void advance() {
    if constexpr (Stages == 2) {  // the same steps in two bit operations, no compare and selects
      phase ^= index;             // leaving slot 1 starts the next pass
      index ^= 1u;
    } else if (++index == static_cast<uint32_t>(Stages)) {
      index = 0;
      phase ^= 1u;
    }
  }
  // `steps` advances at once: `steps / Stages` whole passes (plus one more if the slot wraps).
  BWGEMM_HD constexpr void advance(uint32_t steps) {
    const uint32_t to = index + steps;
    phase ^= (to / static_cast<uint32_t>(Stages)) & 1u;
    index = to % static_cast<uint32_t>(Stages);
  }
  // Parity a producer waits on (the slot's "empty" barrier) before refilling the slot.
  BWGEMM_HD constexpr uint32_t producer_parity() const { return phase ^ 1u; }
  // Parity a consumer waits on (the slot's "full" barrier) before reading the slot.
  BWGEMM_HD constexpr uint32_t consumer_parity() const { return phase; }
};

// `Count` 8-byte mbarriers laid out back to back from a 32-bit shared-memory address.
template <int Count>
struct BarrierArray {
  static constexpr uint32_t kBytesPerBarrier = 8;  // an mbarrier object is 64 bits (PTX ISA 9.7.13.15.1)
  uint32_t base = 0;
  BWGEMM_HD constexpr uint32_t operator[](uint32_t i) const { return base + i * kBytesPerBarrier; }
};

}  // namespace bwgemm
