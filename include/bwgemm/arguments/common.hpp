// Pieces the argument checks of every operation share: the extent limit, the operand-pointer rule, the
// tile-count limit of one launch. Host code only.
#pragma once

#include <cstdint>
#include <string>

#include "bwgemm/base/status.hpp"

namespace bwgemm::detail {

// M, N and K travel to the kernels as int32: each must be below 2^31.
inline constexpr int64_t kMaxGemmExtent = (int64_t{1} << 31) - 1;
// The batch is the tile grid's third coordinate and a TMA box coordinate.
inline constexpr int64_t kMaxBatch = 65535;

inline std::string str(int64_t v) {
  return std::to_string(v);
}

// TMA base addresses and the epilogue's vector loads and stores need 16-byte alignment.
inline bool is_aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// The rule for every operand pointer of a public entry point: not null, 16-byte aligned. `name` names the
// operand in the message; `why_needed` is appended to the null message (" but the epilogue reads it ...").
inline Status check_operand_pointer(const void* p, const char* name, const char* why_needed = "") {
  if (p == nullptr) return Status::invalid_argument(std::string(name) + " is null" + why_needed);
  if (!is_aligned16(p)) return Status::invalid_argument(std::string(name) + " must be 16-byte aligned");
  return Status::success();
}

// M, N, K below 2^31 and the batch in [1, 65535].
inline Status check_extents(int64_t m, int64_t n, int64_t k, int64_t batch) {
  const struct {
    int64_t v;
    const char* name;
  } extents[] = {{m, "M"}, {n, "N"}, {k, "K"}};
  for (const auto& e : extents)
    if (e.v > kMaxGemmExtent)
      return Status::invalid_argument(std::string(e.name) + " must be < 2^31 (got " + str(e.v) + ")");
  if (batch < 1 || batch > kMaxBatch)
    return Status::invalid_argument("batch must be in [1, 65535] (got " + str(batch) + ")");
  return Status::success();
}

// A launch covers at most 2^31 - 1 output tiles.
inline Status validate_tile_count(int64_t tiles_m, int64_t tiles_n, int64_t batch) {
  if (tiles_m * tiles_n * batch > kMaxGemmExtent)
    return Status::invalid_argument("too many output tiles for one launch");
  return Status::success();
}

}  // namespace bwgemm::detail
