// Instantiates the default GEMM entry point (bwgemm::gemm: the sm_100a and sm_90a kernels it dispatches to),
// so every device pass compiles bwgemm kernels. test/archguard/CMakeLists.txt compiles it for each target.
#include <cuda_fp16.h>

#include "bwgemm/gemm.cuh"

bwgemm::Status archguard_gemm(const bwgemm::GemmArguments<__half>& args, cudaStream_t stream) {
  return bwgemm::gemm(args, stream);
}
