// The mbarrier state machine (include/bwgemm/emu/mbarrier_state.hpp), PTX ISA 9.7.13.15.
#include <bwgemm/emu/mbarrier_state.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace bwgemm::emu::detail {

std::string MbarrierState::init(uint32_t count) {
  if (count < 1 || count > kMbarrierMaxArrivals)
    return "mbarrier.init count " + std::to_string(count) + " is outside [1, 2^20-1]";
  expected_ = count;
  pending_ = count;
  tx_ = 0;
  phase_ = 0;
  return {};
}

std::string MbarrierState::arrive(uint32_t count, uint32_t tx_bytes) {
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

std::string MbarrierState::expect_tx(uint32_t bytes) {
  tx_ += bytes;
  if (tx_ > kMbarrierMaxTxCount) {
    return "tx-count overflow: expect_tx of " + std::to_string(bytes) + " bytes takes it to " +
           std::to_string(tx_) + " (> 2^20-1) " + describe();
  }
  return {};
}

std::string MbarrierState::complete_tx(uint32_t bytes) {
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

std::string MbarrierState::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "(barrier state: phase %llu (parity %u), pending arrivals %lld of %u, tx-count %lld)",
                static_cast<unsigned long long>(phase_), static_cast<unsigned>(phase_ & 1u),
                static_cast<long long>(pending_), expected_, static_cast<long long>(tx_));
  return buf;
}

void MbarrierState::complete_phase_if_done() {
  if (pending_ == 0 && tx_ == 0) {
    ++phase_;
    pending_ = expected_;
  }
}

}  // namespace bwgemm::emu::detail
