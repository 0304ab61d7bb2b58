// mbarrier operations of the emulator (ptx/mbarrier.cuh), PTX ISA 9.7.13.15. The barrier's state lives in a
// side table of its CTA, keyed by its shared-window offset (see mbarrier_state.hpp for the semantics).
// try_wait blocks the thread until the phase completes (a try_wait with an unbounded suspend-time hint),
// so a kernel's retry loop runs once; a wait that can never end shows up in the deadlock report. The
// operations are in src/emu/mbarrier.cpp.
#pragma once

#include <cstdint>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/isa/types.hpp>

namespace bwgemm::emu {
namespace detail {

MbarrierState& mbarrier_at(const SharedLocation& loc, uint32_t addr, const char* what);

// Fails the launch with `err` (an MbarrierState result) unless it is empty.
void check(Machine& m, const std::string& err, const char* what, uint32_t addr);

SharedLocation mbarrier_cta(uint32_t bar, const char* what);
SharedLocation mbarrier_cluster(uint32_t bar, const char* what);

void arrive(const SharedLocation& loc, uint32_t bar, uint32_t count, uint32_t tx, const char* what);

// complete_tx on a barrier, from an asynchronous operation (TMA, CLC).
void complete_tx(Cta& c, uint32_t offset, uint32_t bytes, const std::string& what);

void wait_parity(const SharedLocation& loc, uint32_t bar, uint32_t parity, const char* what);

}  // namespace detail

void mbarrier_init(uint32_t bar, uint32_t arrive_count);
void fence_mbarrier_init();
void mbarrier_arrive(uint32_t bar);
void mbarrier_arrive_cluster(uint32_t cluster_bar);
void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes);
void mbarrier_arrive_expect_tx_cluster(uint32_t cluster_bar, uint32_t tx_bytes);
void mbarrier_expect_tx(uint32_t bar, uint32_t tx_bytes);

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
