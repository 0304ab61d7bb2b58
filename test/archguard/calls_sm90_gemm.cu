// Instantiates the Hopper backend alone (bwgemm::sm90::gemm), so the refusal in kernels/sm90/common.cuh is
// checked without kernels/sm100/common.cuh in the translation unit.
#include <cuda_fp16.h>

#include "bwgemm/sm90/gemm.cuh"

bwgemm::Status archguard_sm90_gemm(const bwgemm::GemmArguments<__half>& args, cudaStream_t stream) {
  return bwgemm::sm90::gemm(args, stream);
}
