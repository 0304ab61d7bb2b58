// The TMA engine of the emulator (ptx/tma.cuh): cp.async.bulk.tensor tile loads and stores, PTX ISA
// 9.7.9.25.5 "cp.async.bulk.tensor" and 5.5 "Tensors" (tensor maps, bounding box, traversal stride,
// out-of-bounds fill, swizzle).
//
// A load is an asynchronous operation: when it completes (see machine.hpp), it reads the box from global
// memory, writes it to shared memory of each destination CTA with the tensor map's swizzle, and performs
// complete_tx of the box's bytes on each destination's barrier. Modelled:
//  * every element type bwgemm uses (4-bit packed fp4, 8-, 16-, 32-bit), ranks 1-5;
//  * boxes with traversal (element) strides: ceil(box[i] / stride[i]) elements in dimensions i >= 1 (the
//    stride of dimension 0 is ignored, as cuda.h documents for non-interleaved maps), packed densely in
//    shared memory (dimension 0 fastest, rows of box[0] * element bytes);
//  * the innermost start coordinate must be at a 16-byte boundary (an H200 faults otherwise; reported);
//  * out-of-bounds elements (any coordinate < 0 or >= the global dimension) are filled with zero, or with
//    the canonical NaN for float types under NAN_REQUEST_ZERO_FMA; they still count in the transaction bytes;
//  * swizzle none / 32B / 64B / 128B applied to shared-window addresses (swizzle.hpp);
//  * .multicast::cluster: the box lands at the same offset in every CTA of cta_mask, and each destination's
//    barrier at the barrier's offset receives complete_tx (with .cta_group::2: the barrier in the
//    destination's pair CTA that has the barrier address's parity, so both CTAs of a pair can report to the
//    even CTA);
//  * cache hints are accepted and ignored.
// Not modelled (reported when used): interleaved layouts, SWIZZLE_128B_ATOM_32B, 16U4_ALIGN16B.
// The engine is in src/emu/tma.cpp; the templates here only forward their compile-time arguments.
#pragma once

#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/mbarrier.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/emu/swizzle.hpp>
#include <bwgemm/emu/tensor_map.hpp>

namespace bwgemm::emu {
namespace detail {

// cp.async.bulk.tensor shared-memory operands are 128-byte aligned (PTX ISA 9.7.9.25.5.1).
inline constexpr uint32_t kTmaSmemAlignment = 128;

struct TmaBox {
  TmaRecord map;
  int32_t coords[kTmaMaxRank] = {};
  uint32_t count[kTmaMaxRank] = {1, 1, 1, 1, 1};  // elements per dimension after the traversal stride
  uint32_t row_bytes = 0;                         // dimension-0 extent in shared memory
  uint32_t total_bytes = 0;
};

TmaBox decode_box(const CUtensorMap* tensor_map, const int32_t* coords, uint32_t rank, const char* what);

// Calls f(smem_byte_offset_in_box_before_swizzle, bit_shift_in_byte, global_element_ptr_or_null,
// global_bit_shift) for every element of the box; the global pointer is null for out-of-bounds elements.
template <class F>
void for_each_box_element(const TmaBox& box, F&& f) {
  const TmaRecord& r = box.map;
  const uint32_t bits = r.element_bits;
  uint32_t j[kTmaMaxRank] = {};
  const uint64_t rows = static_cast<uint64_t>(box.count[1]) * box.count[2] * box.count[3] * box.count[4];
  for (uint64_t row = 0; row < rows; ++row) {
    uint64_t rest = row;
    for (uint32_t d = 1; d < kTmaMaxRank; ++d) {
      j[d] = static_cast<uint32_t>(rest % box.count[d]);
      rest /= box.count[d];
    }
    bool row_in_bounds = true;
    uint64_t row_offset = 0;  // bytes
    for (uint32_t d = 1; d < r.rank; ++d) {
      const int64_t c =
          static_cast<int64_t>(box.coords[d]) + static_cast<int64_t>(j[d]) * r.element_strides[d];
      row_in_bounds = row_in_bounds && c >= 0 && static_cast<uint64_t>(c) < r.global_dims[d];
      row_offset += static_cast<uint64_t>(c) * r.global_strides[d];
    }
    for (uint32_t j0 = 0; j0 < box.count[0]; ++j0) {
      const int64_t c0 =
          static_cast<int64_t>(box.coords[0]) + static_cast<int64_t>(j0) * r.element_strides[0];
      const bool in = row_in_bounds && c0 >= 0 && static_cast<uint64_t>(c0) < r.global_dims[0];
      const uint64_t smem_bit = row * box.row_bytes * 8 + static_cast<uint64_t>(j0) * bits;
      uint8_t* g = nullptr;
      uint32_t gshift = 0;
      if (in) {
        const uint64_t gbit = static_cast<uint64_t>(c0) * bits;
        g = reinterpret_cast<uint8_t*>(r.global_address + row_offset + gbit / 8);
        gshift = static_cast<uint32_t>(gbit % 8);
      }
      f(static_cast<uint32_t>(smem_bit / 8), static_cast<uint32_t>(smem_bit % 8), g, gshift);
    }
  }
}

// The fill value of an out-of-bounds element.
uint32_t oob_fill_value(const TmaRecord& r);

// Copies the box into `cta`'s shared memory at window offset `dst_offset`.
void tma_write_box(const TmaBox& box, Cta& cta, uint32_t dst_offset);

void tma_read_box(const TmaBox& box, const Cta& cta, uint32_t src_offset);

// The tile load behind tma_load / tma_load_multicast: cta_group 1 or 2, `tensor_rank` coordinates.
void tma_load_impl(int cta_group, uint32_t dst, const CUtensorMap* tensor_map, uint32_t bar,
                   const int32_t* coords, uint32_t tensor_rank, bool multicast, uint16_t cta_mask);

// The tile store behind tma_store.
void tma_store_impl(const CUtensorMap* tensor_map, uint32_t src, const int32_t* coords, uint32_t tensor_rank);

void bulk_wait(int max_pending, const char* what);

}  // namespace detail

template <int CtaGroup, int Rank>
void tma_load(uint32_t dst, const CUtensorMap* tensor_map, uint32_t bar, const int32_t (&coords)[Rank],
              uint64_t /*cache_policy*/ = 0) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  detail::tma_load_impl(CtaGroup, dst, tensor_map, bar, coords, Rank, false, 0);
}

template <int CtaGroup, int Rank>
void tma_load_multicast(uint32_t dst, const CUtensorMap* tensor_map, uint32_t bar,
                        const int32_t (&coords)[Rank], uint16_t cta_mask, uint64_t /*cache_policy*/ = 0) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  detail::tma_load_impl(CtaGroup, dst, tensor_map, bar, coords, Rank, true, cta_mask);
}

template <int Rank>
void tma_store(const CUtensorMap* tensor_map, uint32_t src, const int32_t (&coords)[Rank]) {
  detail::tma_store_impl(tensor_map, src, coords, Rank);
}

void tma_store_commit_group();

template <int MaxPending>
void tma_store_wait_read() {
  detail::bulk_wait(MaxPending, "cp.async.bulk.wait_group.read");
}
template <int MaxPending>
void tma_store_wait() {
  detail::bulk_wait(MaxPending, "cp.async.bulk.wait_group");
}

void fence_proxy_async_shared_cta();

void tma_prefetch_descriptor(const CUtensorMap* tensor_map);

}  // namespace bwgemm::emu
