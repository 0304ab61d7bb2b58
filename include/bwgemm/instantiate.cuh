// The definitions of the default entry points for the compiled use (entry_points.hpp says how): include this
// in one CUDA unit of the program, built for the architectures the program runs on, and name each
// instantiation the program calls, at namespace scope:
//
//   BWGEMM_INSTANTIATE_GEMM(In, Out)             bwgemm::gemm and gemm_workspace_bytes; In: __half or
//                                                __nv_bfloat16, Out: __half, __nv_bfloat16 or float
//   BWGEMM_INSTANTIATE_GEMM_NVFP4(Out)           bwgemm::gemm_nvfp4; Out: __half, __nv_bfloat16, float or
//                                                bwgemm::Nvfp4Output
//   BWGEMM_INSTANTIATE_DUAL_GEMM(In, Out)        bwgemm::dual_gemm and dual_gemm_workspace_bytes; In and Out:
//                                                __half or __nv_bfloat16
//   BWGEMM_INSTANTIATE_DUAL_GEMM_NVFP4(Out)      bwgemm::dual_gemm_nvfp4; Out: __half, __nv_bfloat16 or
//                                                bwgemm::Nvfp4Output
//   BWGEMM_INSTANTIATE_GROUPED_GEMM(In, Out)     bwgemm::grouped_gemm (the grouped GEMM's types)
//   BWGEMM_INSTANTIATE_GROUPED_GEMM_NVFP4(Out)   bwgemm::grouped_gemm_nvfp4
//   BWGEMM_INSTANTIATE_GROUPED_DUAL_GEMM(In, Out, Epilogue)    bwgemm::grouped_dual_gemm; Epilogue: a gated
//                                                functor (bwgemm::epi::SiluMul, ...)
//   BWGEMM_INSTANTIATE_GROUPED_DUAL_GEMM_NVFP4(Out, Epilogue)  bwgemm::grouped_dual_gemm_nvfp4
//
// Each names explicit instantiation definitions of the function templates that gemm.cuh, dual_gemm.cuh and
// grouped_gemm.cuh define, so a program that names one twice fails to compile, as C++ requires.
#pragma once

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/entry_points.hpp"
#include "bwgemm/gemm.cuh"
#include "bwgemm/grouped_gemm.cuh"

#define BWGEMM_INSTANTIATE_GEMM(In, Out)                                                                   \
  template ::bwgemm::Status bwgemm::gemm<In, Out>(const ::bwgemm::GemmArguments<In, Out>&, cudaStream_t);  \
  template ::bwgemm::Status bwgemm::gemm_workspace_bytes<In, Out>(const ::bwgemm::GemmArguments<In, Out>&, \
                                                                  int64_t*);
#define BWGEMM_INSTANTIATE_GEMM_NVFP4(Out) \
  template ::bwgemm::Status bwgemm::gemm_nvfp4<Out>(const ::bwgemm::Nvfp4GemmArguments<Out>&, cudaStream_t);
#define BWGEMM_INSTANTIATE_DUAL_GEMM(In, Out)                                                       \
  template ::bwgemm::Status bwgemm::dual_gemm<In, Out>(const ::bwgemm::DualGemmArguments<In, Out>&, \
                                                       cudaStream_t);                               \
  template ::bwgemm::Status bwgemm::dual_gemm_workspace_bytes<In, Out>(                             \
      const ::bwgemm::DualGemmArguments<In, Out>&, int64_t*);
#define BWGEMM_INSTANTIATE_DUAL_GEMM_NVFP4(Out)                                                        \
  template ::bwgemm::Status bwgemm::dual_gemm_nvfp4<Out>(const ::bwgemm::Nvfp4DualGemmArguments<Out>&, \
                                                         cudaStream_t);
#define BWGEMM_INSTANTIATE_GROUPED_GEMM(In, Out)                                                          \
  template ::bwgemm::Status bwgemm::grouped_gemm<In, Out>(const ::bwgemm::GroupedGemmArguments<In, Out>&, \
                                                          cudaStream_t);
#define BWGEMM_INSTANTIATE_GROUPED_GEMM_NVFP4(Out)                                                           \
  template ::bwgemm::Status bwgemm::grouped_gemm_nvfp4<Out>(const ::bwgemm::Nvfp4GroupedGemmArguments<Out>&, \
                                                            cudaStream_t);
#define BWGEMM_INSTANTIATE_GROUPED_DUAL_GEMM(In, Out, Epilogue)           \
  template ::bwgemm::Status bwgemm::grouped_dual_gemm<In, Out, Epilogue>( \
      const ::bwgemm::GroupedDualGemmArguments<In, Out, Epilogue>&, cudaStream_t);
#define BWGEMM_INSTANTIATE_GROUPED_DUAL_GEMM_NVFP4(Out, Epilogue)           \
  template ::bwgemm::Status bwgemm::grouped_dual_gemm_nvfp4<Out, Epilogue>( \
      const ::bwgemm::Nvfp4GroupedDualGemmArguments<Out, Epilogue>&, cudaStream_t);
