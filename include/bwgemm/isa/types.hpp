// bwgemm::ptx value types shared by the device wrappers, the host tests and the CPU emulator.
//
// Pure C++17, no CUDA headers (base/macros.hpp only defines macros): the emulation backend
// (include/bwgemm/emu/) includes this file to implement the wrappers with the same signatures.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>

namespace bwgemm::ptx {

// Three unsigned components, as the x/y/z special registers (%tid, %ctaid, %clusterid, ...) hold them.
struct Dim3 {
  uint32_t x = 0;
  uint32_t y = 0;
  uint32_t z = 0;
};

// Four floats, as a vector load (ld.v4.f32) returns them.
struct Float4 {
  float x = 0.0f, y = 0.0f, z = 0.0f, w = 0.0f;
};

// Memory-model scope of an acquire/release (PTX ISA 8.5 "Scope").
enum class Scope : int {
  kCta = 0,
  kCluster = 1,
};

// tcgen05.mma collector usage of the A operand (PTX ISA 9.7.16, tcgen05.mma, ".collector_usage").
// kFill loads A into the collector buffer and keeps it; kUse reads it from there; kLastUse reads it
// and frees the buffer; kDiscard (the default when omitted) does not keep it.
enum class CollectorUsage : int {
  kNone = 0,  // no qualifier: the hardware default, equal to ::discard
  kFill,      // .collector::a::fill
  kUse,       // .collector::a::use
  kLastUse,   // .collector::a::lastuse
  kDiscard,   // .collector::a::discard
};

// tcgen05.cp source/destination shapes (PTX ISA 9.7.16, tcgen05.cp, ".shape" and ".multicast").
enum class TmemCopyShape : int {
  k128x256b = 0,         // .128x256b
  k4x256b,               // .4x256b
  k128x128b,             // .128x128b
  k64x128bWarpx2_02_13,  // .64x128b.warpx2::02_13
  k64x128bWarpx2_01_23,  // .64x128b.warpx2::01_23
  k32x128bWarpx4,        // .32x128b.warpx4 (the scale-factor copy of seed 000)
};

// Result of clusterlaunchcontrol.query_cancel on a try_cancel response (PTX ISA 9.7, clusterlaunchcontrol).
// first_cta is meaningful only when is_canceled is true; it is zero otherwise.
struct ClcResponse {
  bool is_canceled = false;
  Dim3 first_cta;  // %ctaid of the first CTA of the canceled cluster
};

// L2 cache-eviction policies for the .L2::cache_hint operand of cp.async.bulk.tensor. These are the
// 64-bit policy words createpolicy.fractional.L2::<policy>.b64 produces with fraction 1.0
// (PTX ISA 9.7.9, createpolicy). EVICT_FIRST / EVICT_LAST are the constants of seed 000;
// EVICT_NORMAL is CUTLASS's TMA::CacheHintSm90::EVICT_NORMAL.
inline constexpr uint64_t kL2EvictNormal = 0x1000000000000000ULL;
inline constexpr uint64_t kL2EvictFirst = 0x12F0000000000000ULL;
inline constexpr uint64_t kL2EvictLast = 0x14F0000000000000ULL;

// shared::cluster addressing. A CTA's shared-window address (what cvta.to.shared gives) is also a valid
// shared::cluster address of that CTA, and on sm_90/sm_100 the CTA's rank in the cluster sits at bit 24 of
// it. Seed 000 clears that bit (addr & 0xFEFFFFFF) to name "the same barrier in the even CTA of my pair"
// without a mapa instruction. This is hardware behaviour the seeds rely on, not an ISA guarantee:
// mapa_shared_cluster() (cluster.cuh) is the documented way. The emulator encodes addresses the same way.
inline constexpr uint32_t kClusterRankAddressShift = 24;
inline constexpr uint32_t kClusterRankAddressBit = 1u << kClusterRankAddressShift;

// The address of the same shared-memory object in the even CTA of a CTA pair (rank & ~1).
BWGEMM_HD constexpr uint32_t even_cta_address(uint32_t shared_cluster_addr) {
  return shared_cluster_addr & ~kClusterRankAddressBit;
}

// Size of a clusterlaunchcontrol.try_cancel response in shared memory (PTX ISA: .b128, 16-byte aligned).
inline constexpr uint32_t kClcResponseBytes = 16;

}  // namespace bwgemm::ptx
