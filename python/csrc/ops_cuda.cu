// The CUDA build of bwgemm's PyTorch operators (nvcc, sm_90a and sm_100a): the CUDA kernels of
// torch.ops.bwgemm, whose schemas and CPU / Meta kernels ops_cpu.cpp registers (that library loads first).
// Each call runs on PyTorch's current stream of the operands' device, allocates only its output (through
// PyTorch's caching allocator) and does not synchronize, so it can be captured in a CUDA graph; the
// per-tensor scales are host floats baked into a captured launch (the operators take device-pointer scales as
// one-element tensors; see docs/pytorch.md). The operators: ops.hpp.
#include <torch/library.h>

#include "ops.hpp"

TORCH_LIBRARY_IMPL(bwgemm, CUDA, m) {
  m.impl("gemm", &bwgemm_torch::gemm);
  m.impl("dual_gemm", &bwgemm_torch::dual_gemm);
  m.impl("dual_gemm_nvfp4", &bwgemm_torch::dual_gemm_nvfp4);
  m.impl("gemm_nvfp4", &bwgemm_torch::gemm_nvfp4);
  m.impl("quantize_nvfp4", &bwgemm_torch::quantize_nvfp4);
  m.impl("quantize_nvfp4_grouped", &bwgemm_torch::quantize_nvfp4_grouped);
  m.impl("grouped_mm", &bwgemm_torch::grouped_mm);
  m.impl("grouped_dual_mm", &bwgemm_torch::grouped_dual_mm);
  m.impl("grouped_mm_nvfp4", &bwgemm_torch::grouped_mm_nvfp4);
  m.impl("grouped_dual_mm_nvfp4", &bwgemm_torch::grouped_dual_mm_nvfp4);
  m.impl("install_tuning_file", &bwgemm_torch::install_tuning_file);
}
