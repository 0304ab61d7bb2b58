// Tensor memory of one CTA (PTX ISA 9.7.16.2 "Tensor Memory"): 128 lanes x 512 columns of 32-bit cells,
// allocated by tcgen05.alloc in power-of-two column counts >= 32 (ISA 9.7.16.7.1). Addresses are
// (lane << 16) | column. Also remembers which cells have been written since allocation, so reads of
// garbage can be reported.
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
  int64_t find_free(uint32_t columns) const {
    for (uint32_t c = 0; c + columns <= kTmemColumns; c += columns) {
      if (!overlaps_allocation(c, columns)) return c;
    }
    return -1;
  }

  // Allocates `columns` (see find_free); -1 when no room.
  int64_t try_alloc(uint32_t columns) {
    const int64_t c = find_free(columns);
    if (c < 0) return -1;
    allocations_.push_back({static_cast<uint32_t>(c), columns});
    ensure_storage();
    for (uint32_t lane = 0; lane < kTmemLanes; ++lane) {
      for (uint32_t k = 0; k < columns; ++k) written_[lane * kTmemColumns + static_cast<uint32_t>(c) + k] = 0;
    }
    return c;
  }

  std::string dealloc(uint32_t column, uint32_t columns) {
    for (auto it = allocations_.begin(); it != allocations_.end(); ++it) {
      if (it->column == column) {
        if (it->columns != columns) {
          return "tcgen05.dealloc of " + std::to_string(columns) + " columns at column " +
                 std::to_string(column) + ", but that allocation has " + std::to_string(it->columns) +
                 " columns";
        }
        allocations_.erase(it);
        return {};
      }
    }
    return "tcgen05.dealloc at column " + std::to_string(column) + " which is not the start of an allocation";
  }

  // True when columns [column, column + n) all lie in allocations.
  bool allocated(uint32_t column, uint32_t n) const {
    for (uint32_t c = column; c < column + n; ++c) {
      bool in = false;
      for (const auto& a : allocations_) in = in || (c >= a.column && c < a.column + a.columns);
      if (!in) return false;
    }
    return true;
  }
  uint32_t free_columns() const {
    uint32_t used = 0;
    for (const auto& a : allocations_) used += a.columns;
    return kTmemColumns - used;
  }
  const std::vector<Allocation>& allocations() const { return allocations_; }

  uint32_t read(uint32_t lane, uint32_t column) const { return cells_[lane * kTmemColumns + column]; }
  bool written(uint32_t lane, uint32_t column) const { return written_[lane * kTmemColumns + column] != 0; }
  void write(uint32_t lane, uint32_t column, uint32_t value) {
    cells_[lane * kTmemColumns + column] = value;
    written_[lane * kTmemColumns + column] = 1;
  }

 private:
  bool overlaps_allocation(uint32_t c, uint32_t n) const {
    for (const auto& a : allocations_) {
      if (c < a.column + a.columns && a.column < c + n) return true;
    }
    return false;
  }
  void ensure_storage() {
    if (cells_.empty()) {
      cells_.assign(kTmemLanes * kTmemColumns, 0);
      written_.assign(kTmemLanes * kTmemColumns, 0);
    }
  }

  std::vector<Allocation> allocations_;
  std::vector<uint32_t> cells_;
  std::vector<uint8_t> written_;
};

}  // namespace bwgemm::emu::detail
