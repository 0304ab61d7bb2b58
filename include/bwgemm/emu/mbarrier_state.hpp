// The state machine of one mbarrier object (PTX ISA 9.7.13.15 "Parallel Synchronization and Communication
// Instructions: mbarrier"), independent of where it lives. The emulator keeps one per initialised barrier
// address; its operations return an empty string or a description of the misuse.
//
// Modelled exactly (ISA 9.7.13.15.1-.6): the current phase, its pending arrival count (reset to the
// expected count when a phase completes), its transaction count (tx-count, raised by expect-tx and lowered
// by complete-tx, in bytes), and phase completion when both pending arrivals and tx-count reach zero.
// The tx-count may go negative while arrivals are pending (complete-tx may precede its expect-tx, as when a
// kernel issues the TMA before arrive.expect_tx, seed 004); once every arrival is in, a complete-tx that
// takes it below zero is a transaction underflow and is reported. The operations are in
// src/emu/mbarrier_state.cpp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace bwgemm::emu::detail {

// PTX ISA 9.7.13.15.1 "Size and alignment of mbarrier object": 8 bytes, 8-byte aligned.
inline constexpr uint32_t kMbarrierBytes = 8;
// PTX ISA 9.7.13.15.1 "Contents of the mbarrier object": arrival counts in [1, 2^20 - 1], tx-count in
// [-(2^20 - 1), 2^20 - 1].
inline constexpr int64_t kMbarrierMaxArrivals = (1 << 20) - 1;
inline constexpr int64_t kMbarrierMaxTxCount = (1 << 20) - 1;

class MbarrierState {
 public:
  std::string init(uint32_t count);

  // arrive-on with `count` arrivals, preceded by an expect-tx of `tx_bytes` (mbarrier.arrive.expect_tx).
  std::string arrive(uint32_t count, uint32_t tx_bytes = 0);

  std::string expect_tx(uint32_t bytes);

  std::string complete_tx(uint32_t bytes);

  // mbarrier.test_wait.parity / try_wait.parity: true once the phase with parity `parity` has completed,
  // i.e. the current (incomplete) phase has the other parity (ISA 9.7.13.15.16).
  bool parity_completed(uint32_t parity) const { return (phase_ & 1u) != (parity & 1u); }
  // Phase-token form: `token` is the phase an arrive returned; true once that phase completed.
  bool token_completed(uint64_t token) const { return phase_ > token; }

  uint64_t phase() const { return phase_; }
  int64_t pending() const { return pending_; }
  int64_t tx_count() const { return tx_; }
  uint32_t expected() const { return expected_; }

  std::string describe() const;

 private:
  void complete_phase_if_done();

  uint32_t expected_ = 0;
  int64_t pending_ = 0;
  int64_t tx_ = 0;
  uint64_t phase_ = 0;
};

}  // namespace bwgemm::emu::detail
