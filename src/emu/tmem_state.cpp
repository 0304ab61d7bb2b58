// The tensor-memory allocator of one CTA (include/bwgemm/emu/tmem_state.hpp), PTX ISA 9.7.16.7.1.
#include <bwgemm/emu/tmem_state.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bwgemm::emu::detail {

int64_t TensorMemory::find_free(uint32_t columns) const {
  for (uint32_t c = 0; c + columns <= kTmemColumns; c += columns) {
    if (!overlaps_allocation(c, columns)) return c;
  }
  return -1;
}

int64_t TensorMemory::try_alloc(uint32_t columns) {
  const int64_t c = find_free(columns);
  if (c < 0) return -1;
  allocations_.push_back({static_cast<uint32_t>(c), columns});
  ensure_storage();
  for (uint32_t lane = 0; lane < kTmemLanes; ++lane) {
    for (uint32_t k = 0; k < columns; ++k) written_[lane * kTmemColumns + static_cast<uint32_t>(c) + k] = 0;
  }
  return c;
}

std::string TensorMemory::dealloc(uint32_t column, uint32_t columns) {
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

bool TensorMemory::allocated(uint32_t column, uint32_t n) const {
  for (uint32_t c = column; c < column + n; ++c) {
    bool in = false;
    for (const auto& a : allocations_) in = in || (c >= a.column && c < a.column + a.columns);
    if (!in) return false;
  }
  return true;
}

uint32_t TensorMemory::free_columns() const {
  uint32_t used = 0;
  for (const auto& a : allocations_) used += a.columns;
  return kTmemColumns - used;
}

bool TensorMemory::overlaps_allocation(uint32_t c, uint32_t n) const {
  for (const auto& a : allocations_) {
    if (c < a.column + a.columns && a.column < c + n) return true;
  }
  return false;
}

void TensorMemory::ensure_storage() {
  if (cells_.empty()) {
    cells_.assign(kTmemLanes * kTmemColumns, 0);
    written_.assign(kTmemLanes * kTmemColumns, 0);
  }
}

}  // namespace bwgemm::emu::detail
