// The operand tensor maps of the sm_90a kernels (16-bit elements, 128-byte swizzle, 256-byte L2
// promotion): what every sm_90a entry point builds for A, B, B1, B2 and the tokens of the swap-AB kernels.
#pragma once

#include <cstdint>

#include "bwgemm/base/status.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/host/tensor_map.hpp"

namespace bwgemm::sm90::detail {

template <class In>
Status operand_map(const In* data, int64_t inner, int64_t outer, int64_t batch, int64_t ld,
                   int64_t batch_stride, uint32_t box_inner, uint32_t box_outer, CUtensorMap* out) {
  return ::bwgemm::detail::gemm_operand_map(::bwgemm::detail::gemm_tensor_map_type<In>(), data, inner, outer,
                                            batch, ld, batch_stride, box_inner, box_outer,
                                            TensorMapSwizzle::k128B, out, TensorMapL2Promotion::k256B);
}

// An M-side operand's map (A, or the swap-AB kernels' tokens: `outer` is M) and its tail map, whose box
// holds the rows of the last box alone (outer mod box_outer; kernels/sm90/common.cuh, RowBox says why).
// Where box_outer divides outer no box crosses M and the tail map is left unset: the kernels never read it.
template <class In>
Status operand_maps_with_tail(const In* data, int64_t inner, int64_t outer, int64_t batch, int64_t ld,
                              int64_t batch_stride, uint32_t box_inner, uint32_t box_outer, CUtensorMap* out,
                              CUtensorMap* tail) {
  if (Status s = operand_map(data, inner, outer, batch, ld, batch_stride, box_inner, box_outer, out); !s.ok())
    return s;
  const int64_t rest = outer % box_outer;
  if (rest == 0) return Status::success();
  return operand_map(data, inner, outer, batch, ld, batch_stride, box_inner, static_cast<uint32_t>(rest),
                     tail);
}

}  // namespace bwgemm::sm90::detail
