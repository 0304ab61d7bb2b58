// TMA (tensor memory access), device side: cp.async.bulk.tensor loads and stores, tensor-map prefetch,
// and the proxy fence a TMA store needs.
//
// Operands: shared memory as 32-bit shared-window addresses; tensor maps as generic pointers to
// __grid_constant__ CUtensorMap kernel parameters (or a CUtensorMap in global memory); coordinates as int32
// element indices, innermost first, one per tensor-map dimension (rank deduced from the braced list):
//   ptx::tma_load<2>(smem_a, &tmap_a, even_cta_address(bar), {0, m, k}, kL2EvictFirst);
//
// Inline asm, not cuda::ptx: cuda::ptx takes generic smem pointers (we pass 32-bit addresses) and has no
// .L2::cache_hint forms of these instructions.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap

#include <bwgemm/base/macros.hpp>
#include <bwgemm/isa/types.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#endif

namespace bwgemm::ptx {

#if !BWGEMM_EMULATION
namespace detail {

// One cp.async.bulk.tensor load for each rank; operands: %0 dst, %1 tensor map, %2 mbarrier, %3 CTA mask,
// %4 cache policy, %5.. coordinates. MODS are the qualifiers after complete_tx::bytes, TAIL the optional
// ctaMask / cache-policy operands.
#define BWGEMM_TMA_LOAD_ASM(DIM, COORDS, MODS, TAIL, ...)                                              \
  asm volatile("cp.async.bulk.tensor." DIM ".shared::cluster.global.mbarrier::complete_tx::bytes" MODS \
               " [%0], [%1, " COORDS "], [%2]" TAIL ";" ::"r"(dst),                                    \
               "l"(tensor_map), "r"(bar), "h"(cta_mask), "l"(cache_policy), __VA_ARGS__                \
               : "memory")

#define BWGEMM_TMA_LOAD_ALL_RANKS(MODS, TAIL)                                                              \
  if constexpr (Rank == 1) {                                                                               \
    BWGEMM_TMA_LOAD_ASM("1d", "{%5}", MODS, TAIL, "r"(c[0]));                                              \
  } else if constexpr (Rank == 2) {                                                                        \
    BWGEMM_TMA_LOAD_ASM("2d", "{%5, %6}", MODS, TAIL, "r"(c[0]), "r"(c[1]));                               \
  } else if constexpr (Rank == 3) {                                                                        \
    BWGEMM_TMA_LOAD_ASM("3d", "{%5, %6, %7}", MODS, TAIL, "r"(c[0]), "r"(c[1]), "r"(c[2]));                \
  } else if constexpr (Rank == 4) {                                                                        \
    BWGEMM_TMA_LOAD_ASM("4d", "{%5, %6, %7, %8}", MODS, TAIL, "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])); \
  } else {                                                                                                 \
    BWGEMM_TMA_LOAD_ASM("5d", "{%5, %6, %7, %8, %9}", MODS, TAIL, "r"(c[0]), "r"(c[1]), "r"(c[2]),         \
                        "r"(c[3]), "r"(c[4]));                                                             \
  }

template <int CtaGroup, bool Multicast, bool Hint, int Rank>
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* tensor_map, uint32_t bar,
                                         const int32_t (&c)[Rank], uint16_t cta_mask, uint64_t cache_policy) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  static_assert(Rank >= 1 && Rank <= 5, "cp.async.bulk.tensor supports 1 to 5 dimensions");
  // cta_group::1 is spelled by omitting the qualifier (the form every sm_90+ toolkit accepts).
  if constexpr (!Multicast && !Hint) {
    if constexpr (CtaGroup == 1) {
      BWGEMM_TMA_LOAD_ALL_RANKS("", "")
    } else {
      BWGEMM_TMA_LOAD_ALL_RANKS(".cta_group::2", "")
    }
  } else if constexpr (!Multicast && Hint) {
    if constexpr (CtaGroup == 1) {
      BWGEMM_TMA_LOAD_ALL_RANKS(".L2::cache_hint", ", %4")
    } else {
      BWGEMM_TMA_LOAD_ALL_RANKS(".cta_group::2.L2::cache_hint", ", %4")
    }
  } else if constexpr (Multicast && !Hint) {
    if constexpr (CtaGroup == 1) {
      BWGEMM_TMA_LOAD_ALL_RANKS(".multicast::cluster", ", %3")
    } else {
      BWGEMM_TMA_LOAD_ALL_RANKS(".multicast::cluster.cta_group::2", ", %3")
    }
  } else {
    if constexpr (CtaGroup == 1) {
      BWGEMM_TMA_LOAD_ALL_RANKS(".multicast::cluster.L2::cache_hint", ", %3, %4")
    } else {
      BWGEMM_TMA_LOAD_ALL_RANKS(".multicast::cluster.cta_group::2.L2::cache_hint", ", %3, %4")
    }
  }
}

#undef BWGEMM_TMA_LOAD_ALL_RANKS
#undef BWGEMM_TMA_LOAD_ASM

}  // namespace detail
#endif  // !BWGEMM_EMULATION

// PTX ISA 9.7.9.25.5.1 cp.async.bulk.tensor (global -> shared::cluster, tile mode): load the box at
// `coords` into shared memory at `dst` and signal `bar` with complete_tx of the box's bytes.
// CtaGroup 2 adds .cta_group::2: `bar` may then be in the peer CTA of the pair (even_cta_address()).
template <int CtaGroup = 1, int Rank>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_load(uint32_t dst, const CUtensorMap* tensor_map, uint32_t bar,
                                               const int32_t (&coords)[Rank]) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_load<CtaGroup, Rank>(dst, tensor_map, bar, coords);
#else
  detail::tma_load<CtaGroup, false, false, Rank>(dst, tensor_map, bar, coords, 0, 0);
#endif
}

// As above with .L2::cache_hint: cache_policy is kL2EvictFirst / kL2EvictLast / kL2EvictNormal.
template <int CtaGroup = 1, int Rank>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_load(uint32_t dst, const CUtensorMap* tensor_map, uint32_t bar,
                                               const int32_t (&coords)[Rank], uint64_t cache_policy) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_load<CtaGroup, Rank>(dst, tensor_map, bar, coords, cache_policy);
#else
  detail::tma_load<CtaGroup, false, true, Rank>(dst, tensor_map, bar, coords, 0, cache_policy);
#endif
}

// PTX ISA 9.7.9.25.5.1 cp.async.bulk.tensor .multicast::cluster: the same box lands at offset `dst` in every
// CTA whose rank bit is set in cta_mask; each destination CTA's barrier at the same offset as `bar` (with
// .cta_group::2: that CTA's pair's barrier) receives complete_tx of the box's bytes.
template <int CtaGroup = 1, int Rank>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_load_multicast(uint32_t dst, const CUtensorMap* tensor_map,
                                                         uint32_t bar, const int32_t (&coords)[Rank],
                                                         uint16_t cta_mask) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_load_multicast<CtaGroup, Rank>(dst, tensor_map, bar, coords, cta_mask);
#else
  detail::tma_load<CtaGroup, true, false, Rank>(dst, tensor_map, bar, coords, cta_mask, 0);
#endif
}

// As above with .L2::cache_hint.
template <int CtaGroup = 1, int Rank>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_load_multicast(uint32_t dst, const CUtensorMap* tensor_map,
                                                         uint32_t bar, const int32_t (&coords)[Rank],
                                                         uint16_t cta_mask, uint64_t cache_policy) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_load_multicast<CtaGroup, Rank>(dst, tensor_map, bar, coords, cta_mask,
                                                           cache_policy);
#else
  detail::tma_load<CtaGroup, true, true, Rank>(dst, tensor_map, bar, coords, cta_mask, cache_policy);
#endif
}

// PTX ISA 9.7.9.25.5.1 cp.async.bulk.tensor (shared::cta -> global, tile mode, bulk_group completion):
// store the box at `src` to the tensor at `coords`. Precede it with fence_proxy_async_shared_cta() after
// the threads that wrote `src` have synchronized; follow it with tma_store_commit_group().
template <int Rank>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_store(const CUtensorMap* tensor_map, uint32_t src,
                                                const int32_t (&coords)[Rank]) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_store<Rank>(tensor_map, src, coords);
#else
  static_assert(Rank >= 1 && Rank <= 5, "cp.async.bulk.tensor supports 1 to 5 dimensions");
  const int32_t(&c)[Rank] = coords;
  if constexpr (Rank == 1) {
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];" ::"l"(tensor_map),
                 "r"(src), "r"(c[0])
                 : "memory");
  } else if constexpr (Rank == 2) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(tensor_map),
        "r"(src), "r"(c[0]), "r"(c[1])
        : "memory");
  } else if constexpr (Rank == 3) {
    asm volatile(
        "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(tensor_map),
        "r"(src), "r"(c[0]), "r"(c[1]), "r"(c[2])
        : "memory");
  } else if constexpr (Rank == 4) {
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(
                     tensor_map),
                 "r"(src), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])
                 : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];" ::"l"(
            tensor_map),
        "r"(src), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4])
        : "memory");
  }
#endif
}

// PTX ISA 9.7.9.25 cp.async.bulk.commit_group: close the current bulk async-group of this thread.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_store_commit_group() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_store_commit_group();
#else
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

// PTX ISA 9.7.9.25 cp.async.bulk.wait_group.read: wait until at most MaxPending bulk groups of this
// thread still read their shared-memory source (the source may then be overwritten).
template <int MaxPending = 0>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_store_wait_read() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_store_wait_read<MaxPending>();
#else
  static_assert(MaxPending >= 0 && MaxPending <= 63, "wait_group takes a small immediate");
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(MaxPending) : "memory");
#endif
}

// PTX ISA 9.7.9.25 cp.async.bulk.wait_group: wait until at most MaxPending bulk groups of this thread are
// incomplete (their global writes done).
template <int MaxPending = 0>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_store_wait() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_store_wait<MaxPending>();
#else
  static_assert(MaxPending >= 0 && MaxPending <= 63, "wait_group takes a small immediate");
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(MaxPending) : "memory");
#endif
}

// PTX ISA 9.7.13.4 membar/fence: fence.proxy.async.shared::cta. Orders this thread's generic-proxy
// shared-memory writes before later async-proxy (TMA store, tcgen05) reads of them.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void fence_proxy_async_shared_cta() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::fence_proxy_async_shared_cta();
#else
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// PTX ISA 9.7.9 (Data Movement) prefetch.tensormap: bring a tensor map into the descriptor cache ahead of its
// first use. `tensor_map` is the generic address of a __grid_constant__ parameter or of global memory.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tma_prefetch_descriptor(const CUtensorMap* tensor_map) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tma_prefetch_descriptor(tensor_map);
#else
  asm volatile("prefetch.tensormap [%0];" ::"l"(tensor_map) : "memory");
#endif
}

}  // namespace bwgemm::ptx
