// The sm_100a small-M ("decode") FP16/BF16 GEMM, swap AB (kernels/sm100/f16_swap_ab_config.cuh): the same
// operation and arguments as sm100::Gemm (bwgemm::GemmArguments, both B layouts), with the weights' N on the
// MMA's 128-row side and the tokens on its N side.
//
//   using Cfg = bwgemm::sm100::GemmSwapAbConfig<16, 10>;
//   bwgemm::Status s = bwgemm::sm100::GemmSwapAb<Cfg>::run(args, stream);
//
// sm100::gemm (gemm.cuh) chooses it at small M. The call validates everything first (bwgemm::validate, then
// the Config's tile count) and launches nothing on error; it is asynchronous on `stream`, allocates nothing
// (no workspace: a split of K reduces inside the cluster) and does not synchronize.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm100/f16_swap_ab_kernel.cuh"
#include "bwgemm/kernels/sm100/gemm_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"
#include "bwgemm/sm100/swap_ab_launch.cuh"

namespace bwgemm::sm100 {

template <class Cfg>
struct GemmSwapAb {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = GemmArguments<In, Out, Epilogue>;

  // Host-side checks only (no device access): the GEMM's rules, then this Config's tile count.
  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a) {
    return detail::swap_ab_can_implement<Cfg>(a);
  }

  // split_k: 0 lets the entry point choose (choose_swap_ab_split_k), 1 computes whole K per CTA, 2 .. 8
  // splits K between the CTAs of a cluster with a deterministic reduction (swap_ab_split_k.cuh).
  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr,
                    int split_k = 0) {
    if (Status s = detail::check_swap_ab_run<Cfg>(a, split_k, "bwgemm::sm100::GemmSwapAb"); !s.ok()) return s;

    namespace d = ::bwgemm::detail;
    const d::GemmStrides st = d::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    constexpr TensorMapDataType type = d::gemm_tensor_map_type<In>();
    GemmSwapAbParams<Cfg> p;
    if (Status s = d::gemm_operand_map(type, a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a, Cfg::kBlockK,
                                       Cfg::kBlockTokens, TensorMapSwizzle::k128B, &p.tmap_tokens);
        !s.ok())
      return s;
    // K x N: chunks of 64 weight columns x 64 K rows (clipped at N and K); N x K: 128 rows x 64 K.
    if (Status s =
            kxn ? d::gemm_operand_map(type, a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                      Cfg::kWeightChunkColumns, Cfg::kBlockK, TensorMapSwizzle::k128B,
                                      &p.tmap_weights[0])
                : d::gemm_operand_map(type, a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                      Cfg::kBlockWeights, TensorMapSwizzle::k128B, &p.tmap_weights[0]);
        !s.ok())
      return s;
    const bool read_c = epi::reads_source(a.epilogue);
    p.d = a.d;
    p.c = read_c ? a.c : nullptr;
    p.ldd = st.ldd, p.batch_stride_d = st.batch_stride_d;
    p.ldc = st.ldc, p.batch_stride_c = st.batch_stride_c;
    p.m = static_cast<int32_t>(a.m);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = swap_ab_tiles<Cfg>(a.m, a.n, a.batch);
    p.idesc = Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16,
                              a.b_layout);
    p.weights = Cfg::weight_operand(a.b_layout);
    p.weights_mn_major = kxn;
    p.read_c = read_c;
    p.identity = epi::is_identity(a.epilogue);
    p.epilogue = a.epilogue;
    return detail::launch_swap_ab<Cfg>(&gemm_swap_ab_kernel<Cfg>, &gemm_swap_ab_split_kernel<Cfg>, p, split_k,
                                       a.m, a.n, a.k, a.batch, stream, a.launch);
  }
};

}  // namespace bwgemm::sm100
