// The TMA engine of the emulator (include/bwgemm/emu/tma.hpp): cp.async.bulk.tensor, PTX ISA 9.7.9.25.5.
#include <bwgemm/emu/tma.hpp>

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/mbarrier.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/emu/swizzle.hpp>
#include <bwgemm/emu/tensor_map.hpp>

namespace bwgemm::emu {
namespace detail {

TmaBox decode_box(const CUtensorMap* tensor_map, const int32_t* coords, uint32_t rank, const char* what) {
  Machine& m = machine();
  TmaBox box;
  if (tensor_map == nullptr || !read_tma_record(tensor_map, &box.map)) {
    m.fail(std::string(what) +
           ": the tensor map was not encoded by bwgemm::encode_tensor_map in the "
           "emulation build");
  }
  const TmaRecord& r = box.map;
  if (r.rank != rank) {
    m.fail(std::string(what) + ": " + std::to_string(rank) + " coordinates for a tensor map of rank " +
           std::to_string(r.rank));
  }
  if (r.flags & (kTmaSwizzleAtom32B | kTmaAlign16BSlots | kTmaInterleaved)) {
    m.fail(std::string(what) +
           ": the tensor map uses a feature the emulator does not model "
           "(interleave, SWIZZLE_128B_ATOM_32B or 16U4_ALIGN16B)");
  }
  // Traversal strides apply to dimensions 1.. only: cuda.h (cuTensorMapEncodeTiled) says the first element
  // of elementStrides is ignored without interleave, and an H200 delivers full rows (checked by
  // test/emu/tma_h200).
  box.map.element_strides[0] = 1;
  uint64_t elements = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    box.coords[i] = coords[i];
    box.count[i] = (r.box_dims[i] + box.map.element_strides[i] - 1) / box.map.element_strides[i];
    elements *= box.count[i];
  }
  // An H200 faults (illegal instruction) on a tile load whose innermost start coordinate is not 16-byte
  // aligned (test/emu/tma_h200): report it instead of loading.
  if ((static_cast<int64_t>(coords[0]) * r.element_bits) % (8 * 16) != 0) {
    m.fail(std::string(what) + ": the innermost coordinate " + std::to_string(coords[0]) +
           " is not at a 16-byte "
           "boundary (" +
           std::to_string(r.element_bits) + "-bit elements); the GPU faults on such a load");
  }
  box.row_bytes = box.count[0] * r.element_bits / 8;
  box.total_bytes = static_cast<uint32_t>(elements * r.element_bits / 8);
  if (r.swizzle_span != 0 && box.row_bytes > r.swizzle_span) {
    m.fail(std::string(what) + ": a box row of " + std::to_string(box.row_bytes) + " bytes exceeds the " +
           std::to_string(r.swizzle_span) + "-byte swizzle span");
  }
  return box;
}

uint32_t oob_fill_value(const TmaRecord& r) {
  if (!(r.flags & kTmaOobNan) || !(r.flags & kTmaFloat)) return 0;
  return r.element_bits == 32 ? 0x7FFFFFFFu : (r.element_bits == 16 ? 0x7FFFu : 0u);
}

void tma_write_box(const TmaBox& box, Cta& cta, uint32_t dst_offset) {
  const TmaRecord& r = box.map;
  const uint32_t bytes = (r.element_bits + 7) / 8;
  const uint32_t fill = oob_fill_value(r);
  for_each_box_element(box, [&](uint32_t off, uint32_t shift, const uint8_t* g, uint32_t gshift) {
    uint8_t* s = cta.smem + swizzle_address(dst_offset + off, r.swizzle_span);
    if (r.element_bits == 4) {
      const uint8_t v = g ? static_cast<uint8_t>((*g >> gshift) & 0xF) : static_cast<uint8_t>(fill & 0xF);
      *s = static_cast<uint8_t>((*s & ~(0xF << shift)) | (v << shift));
    } else if (g) {
      std::memcpy(s, g, bytes);
    } else {
      std::memcpy(s, &fill, bytes);
    }
  });
}

void tma_read_box(const TmaBox& box, const Cta& cta, uint32_t src_offset) {
  const TmaRecord& r = box.map;
  const uint32_t bytes = (r.element_bits + 7) / 8;
  for_each_box_element(box, [&](uint32_t off, uint32_t shift, uint8_t* g, uint32_t gshift) {
    if (g == nullptr) return;  // out-of-bounds elements are not written
    const uint8_t* s = cta.smem + swizzle_address(src_offset + off, r.swizzle_span);
    if (r.element_bits == 4) {
      const uint8_t v = static_cast<uint8_t>((*s >> shift) & 0xF);
      *g = static_cast<uint8_t>((*g & ~(0xF << gshift)) | (v << gshift));
    } else {
      std::memcpy(g, s, bytes);
    }
  });
}

void tma_load_impl(int cta_group, uint32_t dst, const CUtensorMap* tensor_map, uint32_t bar,
                   const int32_t* coords, uint32_t tensor_rank, bool multicast, uint16_t cta_mask) {
  Machine& m = machine();
  m.on_call();
  const char* what = multicast ? "cp.async.bulk.tensor.multicast::cluster" : "cp.async.bulk.tensor";
  const TmaBox box = decode_box(tensor_map, coords, tensor_rank, what);
  Cta& issuer = m.cta();
  Cluster& cl = *issuer.cluster;
  const uint32_t bar_rank = bar >> ptx::kClusterRankAddressShift;
  struct Target {
    Cta* cta;
    uint32_t dst_offset;
    Cta* bar_cta;
    uint32_t bar_offset;
  };
  std::vector<Target> targets;
  auto add_target = [&](uint32_t rank) {
    const uint32_t dst_addr = (rank << ptx::kClusterRankAddressShift) | (dst & kSharedOffsetMask);
    SharedLocation d = resolve_shared_cluster(cl, dst_addr, box.total_bytes, kTmaSmemAlignment, what);
    uint32_t b_rank = bar_rank;
    if (multicast) b_rank = cta_group == 2 ? ((rank & ~1u) | (bar_rank & 1u)) : rank;
    const uint32_t bar_addr = (b_rank << ptx::kClusterRankAddressShift) | (bar & kSharedOffsetMask);
    SharedLocation b = resolve_shared_cluster(cl, bar_addr, kMbarrierBytes, kMbarrierBytes, what);
    targets.push_back({d.cta, d.offset, b.cta, b.offset});
  };
  if (multicast) {
    if (cta_mask == 0) m.fail(std::string(what) + ": empty cta_mask");
    for (uint32_t rank = 0; rank < kMaxClusterSize; ++rank) {
      if (!(cta_mask >> rank & 1u)) continue;
      if (rank >= cl.ctas.size()) {
        m.fail(std::string(what) + ": cta_mask " + format_hex(cta_mask) + " names CTA rank " +
               std::to_string(rank) + " of a cluster of " + std::to_string(cl.ctas.size()));
      }
      add_target(rank);
    }
  } else {
    add_target(dst >> ptx::kClusterRankAddressShift);
  }
  AsyncOp op;
  op.what = std::string(what) + " of " + std::to_string(box.total_bytes) + " bytes to " +
            describe_shared(dst) + " signalling mbarrier " + describe_shared(bar) + m.where();
  op.run = [box, targets, what = op.what] {
    for (const Target& t : targets) {
      tma_write_box(box, *t.cta, t.dst_offset);
      complete_tx(*t.bar_cta, t.bar_offset, box.total_bytes, what);
    }
  };
  m.post_async(std::move(op));
}

void tma_store_impl(const CUtensorMap* tensor_map, uint32_t src, const int32_t* coords,
                    uint32_t tensor_rank) {
  auto& m = detail::machine();
  m.on_call();
  const char* what = "cp.async.bulk.tensor (shared::cta -> global)";
  const detail::TmaBox box = detail::decode_box(tensor_map, coords, tensor_rank, what);
  detail::SharedLocation s =
      detail::resolve_shared_cta(src, box.total_bytes, detail::kTmaSmemAlignment, what);
  detail::Thread& t = m.thread();
  std::shared_ptr<int> group = t.open_bulk_group;
  ++*group;
  detail::AsyncOp op;
  op.what = std::string(what) + " of " + std::to_string(box.total_bytes) + " bytes from " +
            detail::describe_shared(src) + m.where();
  op.run = [box, s, group] {
    detail::tma_read_box(box, *s.cta, s.offset);
    --*group;
  };
  m.post_async(std::move(op));
}

}  // namespace detail

void tma_store_commit_group() {
  auto& m = detail::machine();
  m.on_call();
  detail::Thread& t = m.thread();
  t.bulk_groups.push_back(t.open_bulk_group);
  t.open_bulk_group = std::make_shared<int>(0);
}

namespace detail {
void bulk_wait(int max_pending, const char* what) {
  Machine& m = machine();
  m.on_call();
  Thread* t = &m.thread();
  auto pending = [t] {
    int n = 0;
    for (const auto& g : t->bulk_groups) n += *g > 0;
    return n;
  };
  m.block([pending, max_pending] { return pending() <= max_pending; },
          [pending, what] {
            return std::string(what) + ": " + std::to_string(pending()) + " bulk group(s) pending";
          });
  auto& groups = t->bulk_groups;
  groups.erase(std::remove_if(groups.begin(), groups.end(), [](const auto& g) { return *g == 0; }),
               groups.end());
}
}  // namespace detail

void fence_proxy_async_shared_cta() {
  detail::machine().on_call();
}

void tma_prefetch_descriptor(const CUtensorMap* tensor_map) {
  auto& m = detail::machine();
  m.on_call();
  detail::TmaRecord r;
  if (tensor_map == nullptr || !detail::read_tma_record(tensor_map, &r)) {
    m.fail(
        "prefetch.tensormap: the tensor map was not encoded by bwgemm::encode_tensor_map in the emulation "
        "build");
  }
}

}  // namespace bwgemm::emu
