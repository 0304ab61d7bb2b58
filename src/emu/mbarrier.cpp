// mbarrier operations of the emulator (include/bwgemm/emu/mbarrier.hpp), PTX ISA 9.7.13.15.
#include <bwgemm/emu/mbarrier.hpp>

#include <cstdint>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/mbarrier_state.hpp>
#include <bwgemm/emu/shared_memory.hpp>

namespace bwgemm::emu {
namespace detail {

MbarrierState& mbarrier_at(const SharedLocation& loc, uint32_t addr, const char* what) {
  auto it = loc.cta->mbarriers.find(loc.offset);
  if (it == loc.cta->mbarriers.end()) {
    machine().fail(std::string(what) + ": no mbarrier was initialised at " + describe_shared(addr));
  }
  return it->second;
}

void check(Machine& m, const std::string& err, const char* what, uint32_t addr) {
  if (!err.empty()) m.fail(std::string(what) + " on mbarrier " + describe_shared(addr) + ": " + err);
}

SharedLocation mbarrier_cta(uint32_t bar, const char* what) {
  return resolve_shared_cta(bar, kMbarrierBytes, kMbarrierBytes, what);
}
SharedLocation mbarrier_cluster(uint32_t bar, const char* what) {
  return resolve_shared_cluster(bar, kMbarrierBytes, kMbarrierBytes, what);
}

void arrive(const SharedLocation& loc, uint32_t bar, uint32_t count, uint32_t tx, const char* what) {
  Machine& m = machine();
  check(m, mbarrier_at(loc, bar, what).arrive(count, tx), what, bar);
}

void complete_tx(Cta& c, uint32_t offset, uint32_t bytes, const std::string& what) {
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

void wait_parity(const SharedLocation& loc, uint32_t bar, uint32_t parity, const char* what) {
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

void mbarrier_init(uint32_t bar, uint32_t arrive_count) {
  auto& m = detail::machine();
  m.on_call();
  auto loc = detail::mbarrier_cta(bar, "mbarrier.init");
  detail::check(m, loc.cta->mbarriers[loc.offset].init(arrive_count), "mbarrier.init", bar);
}

void fence_mbarrier_init() {
  detail::machine().on_call();
}

void mbarrier_arrive(uint32_t bar) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cta(bar, "mbarrier.arrive"), bar, 1, 0, "mbarrier.arrive");
}
void mbarrier_arrive_cluster(uint32_t cluster_bar) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cluster(cluster_bar, "mbarrier.arrive.shared::cluster"), cluster_bar, 1, 0,
                 "mbarrier.arrive.shared::cluster");
}
void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cta(bar, "mbarrier.arrive.expect_tx"), bar, 1, tx_bytes,
                 "mbarrier.arrive.expect_tx");
}
void mbarrier_arrive_expect_tx_cluster(uint32_t cluster_bar, uint32_t tx_bytes) {
  detail::machine().on_call();
  detail::arrive(detail::mbarrier_cluster(cluster_bar, "mbarrier.arrive.expect_tx.shared::cluster"),
                 cluster_bar, 1, tx_bytes, "mbarrier.arrive.expect_tx.shared::cluster");
}
void mbarrier_expect_tx(uint32_t bar, uint32_t tx_bytes) {
  auto& m = detail::machine();
  m.on_call();
  auto loc = detail::mbarrier_cta(bar, "mbarrier.expect_tx");
  detail::check(m, detail::mbarrier_at(loc, bar, "mbarrier.expect_tx").expect_tx(tx_bytes),
                "mbarrier.expect_tx", bar);
}

}  // namespace bwgemm::emu
