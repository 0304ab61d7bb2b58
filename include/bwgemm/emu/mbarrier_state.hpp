// The state machine of one mbarrier object (PTX ISA 9.7.13.15 "Parallel Synchronization and Communication
// Instructions: mbarrier"), independent of where it lives. The emulator keeps one per initialised barrier
// address; its operations return an empty string or a description of the misuse.
//
// Modelled exactly (ISA 9.7.13.15.1-.6): the current phase, its pending arrival count (reset to the
// expected count when a phase completes), its transaction count (tx-count, raised by expect-tx and lowered
// by complete-tx, in bytes), and phase completion when both pending arrivals and tx-count reach zero.
// The tx-count may go negative while arrivals are pending (complete-tx may precede its expect-tx, as when a
// kernel issues the TMA before arrive.expect_tx, seed 004); once every arrival is in, a complete-tx that
// takes it below zero is a transaction underflow and is reported.
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
  std::string init(uint32_t count) {
    if (count < 1 || count > kMbarrierMaxArrivals)
      return "mbarrier.init count " + std::to_string(count) + " is outside [1, 2^20-1]";
    expected_ = count;
    pending_ = count;
    tx_ = 0;
    phase_ = 0;
    return {};
  }

  // arrive-on with `count` arrivals, preceded by an expect-tx of `tx_bytes` (mbarrier.arrive.expect_tx).
  std::string arrive(uint32_t count, uint32_t tx_bytes = 0) {
    if (tx_bytes != 0) {
      std::string err = expect_tx(tx_bytes);
      if (!err.empty()) return err;
    }
    if (count == 0 || static_cast<int64_t>(count) > pending_) {
      return "more arrivals than expected: arrive of count " + std::to_string(count) + " with " +
             std::to_string(pending_) + " arrival(s) pending in phase " + std::to_string(phase_) + " " +
             describe();
    }
    pending_ -= count;
    complete_phase_if_done();
    return {};
  }

  std::string expect_tx(uint32_t bytes) {
    tx_ += bytes;
    if (tx_ > kMbarrierMaxTxCount) {
      return "tx-count overflow: expect_tx of " + std::to_string(bytes) + " bytes takes it to " +
             std::to_string(tx_) + " (> 2^20-1) " + describe();
    }
    return {};
  }

  std::string complete_tx(uint32_t bytes) {
    tx_ -= bytes;
    if (pending_ == 0 && tx_ < 0) {
      return "transaction underflow: complete_tx of " + std::to_string(bytes) +
             " bytes exceeds the bytes expected after every arrival is in (tx-count now " +
             std::to_string(tx_) + ") " + describe();
    }
    if (tx_ < -kMbarrierMaxTxCount) return "tx-count underflow below -(2^20-1) " + describe();
    complete_phase_if_done();
    return {};
  }

  // mbarrier.test_wait.parity / try_wait.parity: true once the phase with parity `parity` has completed,
  // i.e. the current (incomplete) phase has the other parity (ISA 9.7.13.15.16).
  bool parity_completed(uint32_t parity) const { return (phase_ & 1u) != (parity & 1u); }
  // Phase-token form: `token` is the phase an arrive returned; true once that phase completed.
  bool token_completed(uint64_t token) const { return phase_ > token; }

  uint64_t phase() const { return phase_; }
  int64_t pending() const { return pending_; }
  int64_t tx_count() const { return tx_; }
  uint32_t expected() const { return expected_; }

  std::string describe() const {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "(barrier state: phase %llu (parity %u), pending arrivals %lld of %u, tx-count %lld)",
                  static_cast<unsigned long long>(phase_), static_cast<unsigned>(phase_ & 1u),
                  static_cast<long long>(pending_), expected_, static_cast<long long>(tx_));
    return buf;
  }

 private:
  void complete_phase_if_done() {
    if (pending_ == 0 && tx_ == 0) {
      ++phase_;
      pending_ = expected_;
    }
  }

  uint32_t expected_ = 0;
  int64_t pending_ = 0;
  int64_t tx_ = 0;
  uint64_t phase_ = 0;
};

}  // namespace bwgemm::emu::detail
