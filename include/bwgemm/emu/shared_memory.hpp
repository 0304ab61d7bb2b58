// Shared-memory addressing of the emulator (PTX ISA 5.1.3 "Shared State Space" and 9.7.9.19 cvta, 9.7.9.x
// mapa).
//
// A shared-window address is (cluster rank << 24) | offset. The offset of the first dynamic shared-memory
// byte is kSharedWindowBase (0x400); a CTA's own addresses (what cvta.to.shared and dynamic_smem_base()
// give) carry its own rank, so they are valid shared::cluster addresses of that CTA, as on sm_90/sm_100
// (seed 000 clears bit 24 to address the even CTA of its pair). Every access through the emulator is
// bounds-checked against [kSharedWindowBase, kSharedWindowBase + dynamic_smem_bytes). The resolvers are
// in src/emu/shared_memory.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include <bwgemm/emu/machine.hpp>

namespace bwgemm::emu::detail {

struct SharedLocation {
  Cta* cta;
  uint32_t offset;  // within the CTA's window
  uint8_t* bytes() const { return cta->smem + offset; }
};

inline uint32_t shared_address(const Cta& c, uint32_t offset) {
  return (c.rank << ptx::kClusterRankAddressShift) | offset;
}

std::string describe_shared(uint32_t addr);

// Checks [offset, offset + bytes) of `c` and the alignment.
void check_shared_range(Machine& m, const Cta& c, uint32_t addr, uint32_t offset, uint32_t bytes,
                        uint32_t align, const char* what);

// A shared::cta address of the executing CTA.
SharedLocation resolve_shared_cta(uint32_t addr, uint32_t bytes, uint32_t align, const char* what);

// A shared::cluster address: any CTA of the executing thread's cluster (or of `cluster`).
SharedLocation resolve_shared_cluster(Cluster& cl, uint32_t addr, uint32_t bytes, uint32_t align,
                                      const char* what);
SharedLocation resolve_shared_cluster(uint32_t addr, uint32_t bytes, uint32_t align, const char* what);

// The shared-window address of a generic pointer into any CTA's shared memory of the executing cluster.
uint32_t generic_to_shared(const void* ptr, const char* what);

void* shared_to_generic(uint32_t addr, const char* what);

}  // namespace bwgemm::emu::detail
