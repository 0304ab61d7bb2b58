// Tensor memory of one CTA (PTX ISA 9.7.16.2 "Tensor Memory"): 128 lanes x 512 columns of 32-bit cells,
// allocated by tcgen05.alloc in power-of-two column counts >= 32 (ISA 9.7.16.7.1). Addresses are
// (lane << 16) | column. Also remembers which cells have been written since allocation, so reads of
// garbage can be reported. The allocator is in src/emu/tmem_state.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bwgemm::emu::detail {

inline constexpr uint32_t kTmemLanes = 128;
inline constexpr uint32_t kTmemColumns = 512;
inline constexpr uint32_t kTmemMinAllocColumns = 32;
inline constexpr uint32_t kTmemLanesPerWarp = 32;  // a warp reaches lanes 32*(warp%4) .. +31

inline constexpr uint32_t tmem_lane(uint32_t addr) {
  return addr >> 16;
}
inline constexpr uint32_t tmem_column(uint32_t addr) {
  return addr & 0xFFFFu;
}
inline constexpr uint32_t tmem_address(uint32_t lane, uint32_t column) {
  return (lane << 16) | column;
}

class TensorMemory {
 public:
  struct Allocation {
    uint32_t column;
    uint32_t columns;
  };

  static bool valid_column_count(uint32_t n) {
    return n >= kTmemMinAllocColumns && n <= kTmemColumns && (n & (n - 1)) == 0;
  }

  // First fit, aligned to the allocation size: the first column, or -1 when no room.
  int64_t find_free(uint32_t columns) const;

  // Allocates `columns` (see find_free); -1 when no room.
  int64_t try_alloc(uint32_t columns);

  std::string dealloc(uint32_t column, uint32_t columns);

  // True when columns [column, column + n) all lie in allocations.
  bool allocated(uint32_t column, uint32_t n) const;
  uint32_t free_columns() const;
  const std::vector<Allocation>& allocations() const { return allocations_; }

  // Cell accessors, inline: tcgen05.ld and the MMA touch every cell.
  uint32_t read(uint32_t lane, uint32_t column) const { return cells_[lane * kTmemColumns + column]; }
  bool written(uint32_t lane, uint32_t column) const { return written_[lane * kTmemColumns + column] != 0; }
  void write(uint32_t lane, uint32_t column, uint32_t value) {
    cells_[lane * kTmemColumns + column] = value;
    written_[lane * kTmemColumns + column] = 1;
  }

 private:
  bool overlaps_allocation(uint32_t c, uint32_t n) const;
  void ensure_storage();

  std::vector<Allocation> allocations_;
  std::vector<uint32_t> cells_;
  std::vector<uint8_t> written_;
};

}  // namespace bwgemm::emu::detail
