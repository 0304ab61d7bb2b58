// mbarrier operations of the emulator (ptx/mbarrier.cuh), PTX ISA 9.7.13.15. The barrier's state lives in a
// side table of its CTA, keyed by its shared-window offset (see mbarrier_state.hpp for the semantics).
// try_wait blocks the thread until the phase completes (a try_wait with an unbounded suspend-time hint),
// so a kernel's retry loop runs once; a wait that can never end shows up in the deadlock report.
#pragma once

#include <cstdint>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/ptx/types.hpp>

namespace bwgemm::emu {
namespace detail {

inline MbarrierState& mbarrier_at(const SharedLocation& loc, uint32_t addr, const char* what) {
  auto it = loc.cta->mbarriers.find(loc.offset);
  if (it == loc.cta->mbarriers.end()) {
    machine().fail(std::string(what) + ": no mbarrier was initialised at " + describe_shared(addr));
  }
  return it->second;
}

inline void check(Machine& m, const std::string& err, const char* what, uint32_t addr) {
  if (!err.empty()) m.fail(std::string(what) + " on mbarrier " + describe_shared(addr) + ": " + err);
}

inline SharedLocation mbarrier_cta(uint32_t bar, const char* what) {
  return resolve_shared_cta(bar, kMbarrierBytes, kMbarrierBytes, what);
}
inline SharedLocation mbarrier_cluster(uint32_t bar, const char* what) {
  return resolve_shared_cluster(bar, kMbarrierBytes, kMbarrierBytes, what);
}

inline void arrive(const SharedLocation& loc, uint32_t bar, uint32_t count, uint32_t tx, const char* what) {
  Machine& m = machine();
  check(m, mbarrier_at(loc, bar, what).arrive(count, tx), what, bar);
}

// complete_tx on a barrier, from an asynchronous operation (TMA, CLC).
inline void complete_tx(Cta& c, uint32_t offset, uint32_t bytes, const std::string& what) {
  Machine& m = machine();
  const uint32_t addr = shared_address(c, offset);
  auto it = c.mbarriers.find(offset);
  if (it == c.mbarriers.end()) {
    m.fail(what + ": complete_tx on " + describe_shared(addr) + " where no mbarrier was initialised");
  }
  const std::string err = it->second.complete_tx(bytes);
  if (!err.empty())
    m.fail(what + ": complete_tx of " + std::to_string(bytes) + " bytes on mbarrier " +
           describe_shared(addr) + ": " + err);
}

inline void wait_parity(const SharedLocation& loc, uint32_t bar, uint32_t parity, const char* what) {
  Machine& m = machine();
  MbarrierState* b = &mbarrier_at(loc, bar, what);
  const std::string op = what;
  m.block([b, parity] { return b->parity_completed(parity); },
          [b, bar, parity, op] {
            return op + " on mbarrier " + describe_shared(bar) + " waiting for the phase with parity " +
                   std::to_string(parity & 1u) + " to complete " + b->describe();
          });
}

}  // namespace detail

inline void mbarrier_init(uint32_t bar, uint32_t arrive_count) {
  auto& m = detail::machine();
  m.on_call();
  auto loc = detail::mbarrier_cta(bar, "mbarrier.init");
  detail::check(m, loc.cta->mbarriers[loc.offset].init(arrive_count), "mbarrier.init", bar);
}

inline void fence_mbarrier_init() {
  detail::machine().on_call();
}

inline void mbarrier_arrive(uint32_t bar) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cta(bar, "mbarrier.arrive"), bar, 1, 0, "mbarrier.arrive");
}
inline void mbarrier_arrive_cluster(uint32_t cluster_bar) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cluster(cluster_bar, "mbarrier.arrive.shared::cluster"), cluster_bar, 1, 0,
                 "mbarrier.arrive.shared::cluster");
}
inline void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cta(bar, "mbarrier.arrive.expect_tx"), bar, 1, tx_bytes,
                 "mbarrier.arrive.expect_tx");
}
inline void mbarrier_arrive_expect_tx_cluster(uint32_t cluster_bar, uint32_t tx_bytes) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cluster(cluster_bar, "mbarrier.arrive.expect_tx.shared::cluster"),
                 cluster_bar, 1, tx_bytes, "mbarrier.arrive.expect_tx.shared::cluster");
}
inline void mbarrier_expect_tx(uint32_t bar, uint32_t tx_bytes) {
  auto& m = detail::machine();
  m.on_call();
  auto loc = detail::mbarrier_cta(bar, "mbarrier.expect_tx");
  detail::check(m, detail::mbarrier_at(loc, bar, "mbarrier.expect_tx").expect_tx(tx_bytes),
                "mbarrier.expect_tx", bar);
}

template <ptx::Scope S>
bool mbarrier_try_wait_parity(uint32_t bar, uint32_t parity) {
  detail::machine().on_call();
  detail::wait_parity(detail::mbarrier_cta(bar, "mbarrier.try_wait.parity"), bar, parity,
                      "mbarrier.try_wait.parity");
  return true;
}
template <ptx::Scope S>
void mbarrier_wait_parity(uint32_t bar, uint32_t parity) {
  mbarrier_try_wait_parity<S>(bar, parity);
}

}  // namespace bwgemm::emu
