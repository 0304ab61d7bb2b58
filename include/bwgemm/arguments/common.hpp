// Pieces the argument checks of every operation share: the extent limit, the operand-pointer rule, the
// tile-count limit of one launch. Host code only.
#pragma once

#include <cstdint>
#include <string>

#include "bwgemm/base/status.hpp"
#include "bwgemm/scheduler/tile_order.cuh"

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

// The cluster tiles of Config Cfg (kClusterBlockM x kBlockN) over an M x N x batch output, in the
// L2-friendly grouped order: what every backend's kernels walk.
template <class Cfg>
sched::TileGrid config_tile_grid(int64_t m, int64_t n, int64_t batch) {
  return sched::grouped_tile_grid(m, Cfg::kClusterBlockM, n, Cfg::kBlockN, batch);
}

// What every explicit-Config entry point checks before it touches the device: the operation's rules
// (bwgemm::validate, found for the arguments' type), then that Cfg's tile grid fits one launch.
template <class Cfg, class Args>
Status can_implement_config(const Args& a) {
  if (Status s = validate(a); !s.ok()) return s;
  const sched::TileGrid tiles = config_tile_grid<Cfg>(a.m, a.n, a.batch);
  return validate_tile_count(tiles.tiles_m, tiles.tiles_n, tiles.batch);
}

}  // namespace bwgemm::detail
