// The default entry points' declarations alone: bwgemm::gemm, gemm_workspace_bytes, gemm_nvfp4, dual_gemm,
// dual_gemm_workspace_bytes, dual_gemm_nvfp4 and the grouped (mixture-of-experts) grouped_gemm,
// grouped_gemm_nvfp4, grouped_dual_gemm, grouped_dual_gemm_nvfp4, with their argument structs, and no kernel.
//
// Two ways to use bwgemm:
//   header-only  include <bwgemm/gemm.cuh> / <bwgemm/dual_gemm.cuh> where you call: every calling unit
//                compiles the kernels the entry points can choose, for each architecture it is built for.
//   compiled     include this header where you call (plain C++ or CUDA; it compiles in about a second), and
//                pay the kernels' compile once per program, in one CUDA unit of your choice that includes
//                <bwgemm/instantiate.cuh> and names what the program calls:
//
//                  // bwgemm_kernels.cu, built for the program's architectures ("90a;100a", ...)
//                  #include <bwgemm/instantiate.cuh>
//                  BWGEMM_INSTANTIATE_GEMM(__nv_bfloat16, __nv_bfloat16)
//                  BWGEMM_INSTANTIATE_DUAL_GEMM_NVFP4(__half)
//
//                A call whose instantiation no unit names fails to link (an undefined bwgemm::gemm<...>).
// The two mix: a unit that includes gemm.cuh still compiles its own copy, and the linker keeps one.
// docs/api.md, "Compile once per program", has the figures.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/arguments/grouped_dual_gemm.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"
#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "bwgemm/base/status.hpp"

namespace bwgemm {

// gemm.cuh: D = alpha A·B + beta C, fp16/bf16 operands, on the sm_100a or sm_90a kernels by device.
template <class In, class Out>
Status gemm(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr);
template <class In, class Out>
Status gemm_workspace_bytes(const GemmArguments<In, Out>& args, int64_t* bytes);
// gemm.cuh: the NVFP4 GEMM (sm_100a).
template <class Out>
Status gemm_nvfp4(const Nvfp4GemmArguments<Out>& args, cudaStream_t stream = nullptr);
// dual_gemm.cuh: C = act(alpha1 A·B1ᵀ) ⊙ (alpha2 A·B2ᵀ), NVFP4 operands (sm_100a) or fp16/bf16 (both).
template <class Out>
Status dual_gemm_nvfp4(const Nvfp4DualGemmArguments<Out>& args, cudaStream_t stream = nullptr);
template <class In, class Out>
Status dual_gemm(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr);
template <class In, class Out>
Status dual_gemm_workspace_bytes(const DualGemmArguments<In, Out>& args, int64_t* bytes);

// grouped_gemm.cuh: every expert of a mixture-of-experts layer in one call (docs/moe.md): the grouped GEMM
// (FC2) and the grouped gated dual GEMM (FC1), fp16/bf16 (sm_100a, sm_90a) and NVFP4 (sm_100a).
template <class In, class Out>
Status grouped_gemm(const GroupedGemmArguments<In, Out>& args, cudaStream_t stream = nullptr);
template <class Out>
Status grouped_gemm_nvfp4(const Nvfp4GroupedGemmArguments<Out>& args, cudaStream_t stream = nullptr);
template <class In, class Out, class Epilogue>
Status grouped_dual_gemm(const GroupedDualGemmArguments<In, Out, Epilogue>& args,
                         cudaStream_t stream = nullptr);
template <class Out, class Epilogue>
Status grouped_dual_gemm_nvfp4(const Nvfp4GroupedDualGemmArguments<Out, Epilogue>& args,
                               cudaStream_t stream = nullptr);

}  // namespace bwgemm
