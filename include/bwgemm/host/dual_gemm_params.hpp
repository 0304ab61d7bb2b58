// The kernel-parameter fields every dual GEMM kernel takes alike (sm_90a and sm_100a, 16-bit and NVFP4, tiled
// and swap AB), filled from validated dual-GEMM arguments (bwgemm::DualGemmArguments,
// bwgemm::Nvfp4DualGemmArguments): the dual GEMM's counterpart of detail::fill_common_gemm_params
// (arguments/gemm.hpp).
#pragma once

#include <cstdint>

#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::host {

// The extents, the tile grid (`tiles`: the Config's over the call's M x N x batch), the two scales with their
// device parts and the functor. C and its strides (named per kernel), the tensor maps and the kernel's own
// fields (e.g. sm_100a's unit_alphas, detail::unit_alphas) are the caller's.
template <class Params, class Args>
void fill_common_dual_gemm_params(const Args& a, const sched::TileGrid& tiles, Params* p) {
  p->m = static_cast<int32_t>(a.m);
  p->n = static_cast<int32_t>(a.n);
  p->k = static_cast<int32_t>(a.k);
  p->tiles = tiles;
  p->alpha1 = a.alpha1;
  p->alpha2 = a.alpha2;
  p->alpha1_ptr = a.alpha1_ptr;  // device scales (arguments/common.hpp, check_device_scale)
  p->alpha2_ptr = a.alpha2_ptr;
  p->epilogue = a.epilogue;
}

}  // namespace bwgemm::host
