// The sm_100a small-M ("decode") NVFP4 dual GEMM, swap AB (kernels/sm100/nvfp4_dual_swap_ab_config.cuh):
// the same operation and arguments as sm100::Nvfp4DualGemm (bwgemm::Nvfp4DualGemmArguments), with the
// weights' N on the MMA's 128-row side and the tokens on its N side.
//
//   using Cfg = bwgemm::sm100::Nvfp4DualSwapAbConfig<16, 5>;
//   bwgemm::Status s = bwgemm::sm100::Nvfp4DualGemmSwapAb<Cfg>::run(args, stream);
//
// sm100::dual_gemm_nvfp4 (nvfp4_dual_gemm.cuh) chooses it at small M. The call validates everything first
// (bwgemm::validate, then the Config's tile count) and launches nothing on error; it is asynchronous on
// `stream`, allocates nothing (no workspace: a split of K reduces inside the cluster) and does not
// synchronize.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_kernel.cuh"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"
#include "bwgemm/sm100/swap_ab_launch.cuh"

namespace bwgemm::sm100 {

template <class Cfg>
struct Nvfp4DualGemmSwapAb {
  using Arguments = Nvfp4DualGemmArguments<typename Cfg::Out, typename Cfg::Epilogue>;
  using Params = Nvfp4DualSwapAbParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  static Status can_implement(const Arguments& a) {
    if (Status s = validate(a); !s.ok()) return s;
    const sched::TileGrid tiles = nvfp4_dual_swap_ab_tiles<Cfg>(a.m, a.n, a.batch);
    return ::bwgemm::detail::validate_tile_count(tiles.tiles_m, tiles.tiles_n, tiles.batch);
  }

  // split_k: 0 lets the entry point choose (choose_swap_ab_split_k), 1 computes whole K per CTA, 2 .. 8
  // splits K between the CTAs of a cluster with a deterministic reduction (swap_ab_split_k.cuh).
  static Status run(const Arguments& a, cudaStream_t stream = nullptr, int split_k = 0) {
    constexpr const char* kName = "bwgemm::sm100::Nvfp4DualGemmSwapAb";
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = detail::check_swap_ab_split_k(split_k); !s.ok()) return s;
    if (Status s = host::require_compute_capability_100(kName); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), kName); !s.ok()) return s;

    namespace d = ::bwgemm::detail;
    Params p;
    if (Status s = d::nvfp4_data_map(a.a.data, a.m, a.k, a.batch, Cfg::kBlockTokens, &p.tmap_tokens); !s.ok())
      return s;
    if (Status s = d::nvfp4_data_map(a.b1.data, a.n, a.k, a.batch, Cfg::kBlockWeights, &p.tmap_weights[0]);
        !s.ok())
      return s;
    if (Status s = d::nvfp4_data_map(a.b2.data, a.n, a.k, a.batch, Cfg::kBlockWeights, &p.tmap_weights[1]);
        !s.ok())
      return s;
    if (Status s = d::nvfp4_scale_map(a.a.scales, a.m, a.k, a.batch, &p.tmap_sf_tokens); !s.ok()) return s;
    if (Status s = d::nvfp4_scale_map(a.b1.scales, a.n, a.k, a.batch, &p.tmap_sf_weights[0]); !s.ok())
      return s;
    if (Status s = d::nvfp4_scale_map(a.b2.scales, a.n, a.k, a.batch, &p.tmap_sf_weights[1]); !s.ok())
      return s;
    p.c = a.c;
    p.ldc = a.ldc == 0 ? a.n : a.ldc;
    p.m = static_cast<int32_t>(a.m);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = nvfp4_dual_swap_ab_tiles<Cfg>(a.m, a.n, a.batch);
    p.alpha1 = a.alpha1;
    p.alpha2 = a.alpha2;
    p.alpha1_ptr = a.alpha1_ptr;  // device scales (arguments/common.hpp, check_device_scale)
    p.alpha2_ptr = a.alpha2_ptr;
    p.unit_alphas = ::bwgemm::detail::unit_alphas(a);
    p.epilogue = a.epilogue;
    return detail::launch_swap_ab<Cfg>(&nvfp4_dual_swap_ab_kernel<Cfg>, &nvfp4_dual_swap_ab_split_kernel<Cfg>,
                                       p, split_k, a.m, a.n, a.k, a.batch, stream, a.launch);
  }
};

}  // namespace bwgemm::sm100
