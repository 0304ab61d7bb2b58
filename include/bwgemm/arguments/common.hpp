// Pieces the argument checks of every operation share: the extent limit, the operand-pointer rule, the
// tile-count limit of one launch. Host code only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/operand_span.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::detail {

// M, N and K travel to the kernels as int32, and the kernels form row and column indices up to one tile
// (at most 512 rows or columns) past them: each is at most 2^31 - 1024, so every such index fits int32.
inline constexpr int64_t kMaxGemmExtent = (int64_t{1} << 31) - 1024;
// TMA's 2^40-byte limit on strides, kMaxStrideBytes and check_stride_limit: base/operand_span.hpp (shared
// with the quantizer).

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

// A device-pointer scale (docs/api.md, "Device-pointer scales"): null (none), or one float the kernel reads
// at run time, 4-byte aligned. It is never dereferenced on the host: its device check is the operands'
// (require_device_pointers, through device_operands), and check_scale_not_in_output keeps it out of every
// output.
inline Status check_device_scale(const float* p, const char* name) {
  if (p != nullptr && reinterpret_cast<uintptr_t>(p) % alignof(float) != 0)
    return Status::invalid_argument(std::string(name) +
                                    " must be 4-byte aligned (one float in device memory; null for none)");
  return Status::success();
}

// A device scale is an input: no output of the call may share its 4 bytes (a kernel reads it once per CTA
// while others store the output).
inline Status check_scale_not_in_output(const float* p, const char* name, const OperandSpan& output) {
  if (p == nullptr) return Status::success();
  OperandSpan scale{};
  if (Status s = strided_span(name, p, 1, 1, 1, 1, 1, static_cast<int64_t>(sizeof(float)), &scale); !s.ok())
    return s;
  return check_no_overlap(output, {scale});
}

// A dual GEMM's two scales are both 1 and neither has a device part: the kernels skip the two multiplies.
template <class Args>
bool unit_alphas(const Args& a) {
  return a.alpha1 == 1.0f && a.alpha2 == 1.0f && a.alpha1_ptr == nullptr && a.alpha2_ptr == nullptr;
}

// A dual GEMM's device scales alpha1_ptr and alpha2_ptr: aligned, outside the output span `out`.
template <class Args>
Status check_dual_device_scales(const Args& a, const OperandSpan& out) {
  if (Status s = check_device_scale(a.alpha1_ptr, "alpha1_ptr"); !s.ok()) return s;
  if (Status s = check_device_scale(a.alpha2_ptr, "alpha2_ptr"); !s.ok()) return s;
  if (Status s = check_scale_not_in_output(a.alpha1_ptr, "alpha1_ptr", out); !s.ok()) return s;
  return check_scale_not_in_output(a.alpha2_ptr, "alpha2_ptr", out);
}

// A GEMM's LinearCombination device scales (alpha_ptr, beta_ptr): aligned, outside D (span `d`), and a
// beta_ptr only with a nonzero host beta (the effective beta is beta · *beta_ptr, and beta defaults to 0).
inline Status check_linear_combination_scales(const epi::LinearCombination& f, const OperandSpan& d) {
  if (Status s = check_device_scale(f.alpha_ptr, "alpha_ptr"); !s.ok()) return s;
  if (Status s = check_device_scale(f.beta_ptr, "beta_ptr"); !s.ok()) return s;
  if (f.beta_ptr != nullptr && f.beta == 0.0f)
    return Status::invalid_argument(
        "beta_ptr is given but beta is 0: the effective beta is beta x *beta_ptr (set beta, e.g. to 1)");
  if (Status s = check_scale_not_in_output(f.alpha_ptr, "alpha_ptr", d); !s.ok()) return s;
  return check_scale_not_in_output(f.beta_ptr, "beta_ptr", d);
}

// A call's scratch memory (GemmArguments::workspace, DualGemmArguments::workspace), first its size and
// pointer: bytes >= 0; with bytes > 0 a 16-byte-aligned pointer and no wrap-around (a size of 0 means
// none, whatever the pointer).
inline Status check_workspace_pointer(const void* workspace, int64_t bytes) {
  if (bytes < 0) return Status::invalid_argument("workspace_bytes must be >= 0 (got " + str(bytes) + ")");
  if (bytes == 0) return Status::success();
  if (Status s = check_operand_pointer(workspace, "workspace", " but workspace_bytes > 0"); !s.ok()) return s;
  if (reinterpret_cast<uintptr_t>(workspace) > UINTPTR_MAX - static_cast<uint64_t>(bytes))
    return Status::invalid_argument("workspace + workspace_bytes wraps around the address space");
  return Status::success();
}
// ... then that it shares no byte with the call's operands (`spans`; an empty span, e.g. a C the epilogue
// does not read, is skipped) or its device scales (null ones skipped): the kernels write it.
struct NamedScale {
  const float* p;
  const char* name;
};
template <size_t Spans, size_t Scales>
Status check_workspace_apart(const void* workspace, int64_t bytes, const OperandSpan (&spans)[Spans],
                             const NamedScale (&scales)[Scales]) {
  if (bytes <= 0) return Status::success();
  const OperandSpan w{workspace, bytes, "workspace"};
  const auto refuse = [](const char* name) {
    return Status::invalid_argument(std::string("workspace overlaps ") + name +
                                    ": the kernels write it, so it may share memory with no operand");
  };
  for (const OperandSpan& o : spans)
    if (o.bytes > 0 && overlaps(w, o)) return refuse(o.name);
  for (const NamedScale& f : scales)
    if (f.p != nullptr && overlaps(w, {f.p, int64_t{sizeof(float)}, f.name})) return refuse(f.name);
  return Status::success();
}

// M, N, K at most kMaxGemmExtent and the batch in [1, 65535].
inline Status check_extents(int64_t m, int64_t n, int64_t k, int64_t batch) {
  const struct {
    int64_t v;
    const char* name;
  } extents[] = {{m, "M"}, {n, "N"}, {k, "K"}};
  for (const auto& e : extents)
    if (e.v > kMaxGemmExtent)
      return Status::invalid_argument(std::string(e.name) +
                                      " must be at most 2^31 - 1024 (every tile index fits int32) (got " +
                                      str(e.v) + ")");
  if (batch < 1 || batch > kMaxBatch)
    return Status::invalid_argument("batch must be in [1, 65535] (got " + str(batch) + ")");
  return Status::success();
}

// A batch stride whose default (0) is rows · ld: the effective value, or an error when rows · ld overflows.
// Every caller then checks the value against TMA's limit (check_stride_limit, or packed_batch_stride).
inline Status effective_batch_stride(const char* name, int64_t given, int64_t rows, int64_t ld,
                                     int64_t* out) {
  if (given != 0) {
    *out = given;
    return Status::success();
  }
  if (!checked_mul(rows, ld, out))
    return Status::invalid_argument(std::string(name) + " (0: rows x leading dimension) overflows int64");
  return Status::success();
}

// The batch stride of an operand whose batches are packed (rows · ld elements of elem_bytes; `name` says so,
// e.g. "the batch stride of C (M · ldc)"): no int64 overflow and below TMA's 2^40 bytes.
inline Status packed_batch_stride(const char* name, int64_t rows, int64_t ld, int64_t elem_bytes,
                                  int64_t* out) {
  if (Status s = effective_batch_stride(name, 0, rows, ld, out); !s.ok()) return s;
  return check_stride_limit(name, *out, elem_bytes);
}

// A launch covers at most 2^31 - 1 output tiles (the tile index is an int32), products checked.
inline Status validate_tile_count(int64_t tiles_m, int64_t tiles_n, int64_t batch) {
  int64_t tiles = 0;
  if (!checked_mul(tiles_m, tiles_n, &tiles) || !checked_mul(tiles, batch, &tiles) ||
      tiles > (int64_t{1} << 31) - 1)
    return Status::invalid_argument(
        "too many output tiles for one launch: tiles in M x tiles in N x batch (" + str(tiles_m) + " x " +
        str(tiles_n) + " x " + str(batch) + ") must be below 2^31");
  return Status::success();
}

// The columns of Config Cfg's cluster tile: Cfg::kClusterBlockN where the Config has one (sm90::GemmConfig,
// whose pairs may sit side by side along N), else its kBlockN.
template <class Cfg, class = void>
struct ClusterBlockN {
  static constexpr int64_t value = Cfg::kBlockN;
};
template <class Cfg>
struct ClusterBlockN<Cfg, std::void_t<decltype(Cfg::kClusterBlockN)>> {
  static constexpr int64_t value = Cfg::kClusterBlockN;
};

// The cluster tiles of Config Cfg (kClusterBlockM x ClusterBlockN) over an M x N x batch output, in the
// L2-friendly grouped order: what every backend's kernels walk.
template <class Cfg>
sched::TileGrid config_tile_grid(int64_t m, int64_t n, int64_t batch) {
  return sched::grouped_tile_grid(m, Cfg::kClusterBlockM, n, ClusterBlockN<Cfg>::value, batch);
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
