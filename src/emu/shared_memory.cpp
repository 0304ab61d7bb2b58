// Shared-memory addressing of the emulator (include/bwgemm/emu/shared_memory.hpp).
#include <bwgemm/emu/shared_memory.hpp>

#include <cstdint>
#include <string>

#include <bwgemm/emu/machine.hpp>

namespace bwgemm::emu::detail {

std::string describe_shared(uint32_t addr) {
  return format_hex(addr) + " (CTA rank " + std::to_string(addr >> ptx::kClusterRankAddressShift) +
         ", offset " + format_hex(addr & kSharedOffsetMask) + ")";
}

void check_shared_range(Machine& m, const Cta& c, uint32_t addr, uint32_t offset, uint32_t bytes,
                        uint32_t align, const char* what) {
  if (offset < kSharedWindowBase || static_cast<uint64_t>(offset) + bytes > c.smem_end) {
    m.fail(std::string(what) + ": shared-memory access of " + std::to_string(bytes) + " bytes at " +
           describe_shared(addr) + " is outside the dynamic shared memory [" + format_hex(kSharedWindowBase) +
           ", " + format_hex(c.smem_end) + ")");
  }
  if (align > 1 && offset % align != 0) {
    m.fail(std::string(what) + ": shared address " + describe_shared(addr) + " is not " +
           std::to_string(align) + "-byte aligned");
  }
}

SharedLocation resolve_shared_cta(uint32_t addr, uint32_t bytes, uint32_t align, const char* what) {
  Machine& m = machine();
  Cta& c = m.cta();
  const uint32_t rank = addr >> ptx::kClusterRankAddressShift;
  if (rank != c.rank) {
    m.fail(std::string(what) + ": shared::cta address " + describe_shared(addr) + " names cluster rank " +
           std::to_string(rank) + ", but the executing CTA has rank " + std::to_string(c.rank) +
           " (use a shared::cluster form for a peer CTA)");
  }
  const uint32_t offset = addr & kSharedOffsetMask;
  check_shared_range(m, c, addr, offset, bytes, align, what);
  return {&c, offset};
}

SharedLocation resolve_shared_cluster(Cluster& cl, uint32_t addr, uint32_t bytes, uint32_t align,
                                      const char* what) {
  Machine& m = machine();
  const uint32_t rank = addr >> ptx::kClusterRankAddressShift;
  if (rank >= cl.ctas.size()) {
    m.fail(std::string(what) + ": shared::cluster address " + describe_shared(addr) + " names CTA rank " +
           std::to_string(rank) + " of a cluster of " + std::to_string(cl.ctas.size()) + " CTA(s)");
  }
  Cta& c = *cl.ctas[rank];
  const uint32_t offset = addr & kSharedOffsetMask;
  check_shared_range(m, c, addr, offset, bytes, align, what);
  return {&c, offset};
}
SharedLocation resolve_shared_cluster(uint32_t addr, uint32_t bytes, uint32_t align, const char* what) {
  return resolve_shared_cluster(*machine().cta().cluster, addr, bytes, align, what);
}

uint32_t generic_to_shared(const void* ptr, const char* what) {
  Machine& m = machine();
  const auto* p = static_cast<const uint8_t*>(ptr);
  Cta& own = m.cta();
  auto inside = [p](const Cta& c) { return p >= c.smem && p < c.smem + c.smem_end; };
  if (inside(own)) return shared_address(own, static_cast<uint32_t>(p - own.smem));
  for (auto& c : own.cluster->ctas) {
    if (inside(*c)) return shared_address(*c, static_cast<uint32_t>(p - c->smem));
  }
  m.fail(std::string(what) + ": generic pointer " + format_hex(reinterpret_cast<uintptr_t>(ptr)) +
         " does not point into the shared memory of this cluster");
}

void* shared_to_generic(uint32_t addr, const char* what) {
  Machine& m = machine();
  Cluster& cl = *m.cta().cluster;
  const uint32_t rank = addr >> ptx::kClusterRankAddressShift;
  const uint32_t offset = addr & kSharedOffsetMask;
  if (rank >= cl.ctas.size() || offset > cl.ctas[rank]->smem_end) {
    m.fail(std::string(what) + ": shared address " + describe_shared(addr) +
           " is outside this cluster's shared memory");
  }
  return cl.ctas[rank]->smem + offset;
}

}  // namespace bwgemm::emu::detail
