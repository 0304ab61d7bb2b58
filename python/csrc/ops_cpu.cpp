// The CPU build of bwgemm's PyTorch operators (host C++ with BWGEMM_EMULATION=1, linked with the emulator's
// sources): the schemas of torch.ops.bwgemm and the CPU kernels -- bwgemm's sm_100a kernels run in the CPU
// emulator on CPU tensors. The fake (meta) implementations that torch.compile traces with are Python
// (bwgemm_torch/_fake.py), so that symbolic shapes work. The operators: ops.hpp.
#include <torch/library.h>

#include "ops.hpp"

TORCH_LIBRARY(bwgemm, m) {
  m.def(
      "gemm(Tensor a, Tensor b, float alpha=1.0, float beta=0.0, Tensor? c=None, ScalarType? out_dtype=None, "
      "Tensor? alpha_scale=None, Tensor? beta_scale=None) -> Tensor");
  m.def(
      "dual_gemm(Tensor a, Tensor b1, Tensor b2, float alpha1=1.0, float alpha2=1.0, Tensor? "
      "alpha1_scale=None, "
      "Tensor? alpha2_scale=None) -> Tensor");
  m.def(
      "dual_gemm_nvfp4(Tensor a, Tensor a_scales, Tensor b1, Tensor b1_scales, Tensor b2, Tensor b2_scales, "
      "float alpha1=1.0, float alpha2=1.0, ScalarType? out_dtype=None, Tensor? alpha1_scale=None, "
      "Tensor? alpha2_scale=None) -> Tensor");
  m.def(
      "gemm_nvfp4(Tensor a, Tensor a_scales, Tensor b, Tensor b_scales, float alpha=1.0, float beta=0.0, "
      "Tensor? c=None, ScalarType? out_dtype=None, Tensor? alpha_scale=None, Tensor? beta_scale=None) -> "
      "Tensor");
  m.def(
      "quantize_nvfp4(Tensor x, float global_scale=1.0, Tensor? global_scale_tensor=None) -> (Tensor, "
      "Tensor)");
  m.def(
      "quantize_nvfp4_grouped(Tensor x, Tensor offs, float global_scale=1.0, Tensor? global_scales=None) -> "
      "(Tensor, Tensor)");
  m.def(
      "grouped_mm(Tensor a, Tensor b, Tensor? offs=None, Tensor? counts=None, float alpha=1.0, Tensor? "
      "alphas=None, ScalarType? out_dtype=None, Tensor(a!)? status=None) -> Tensor");
  m.def(
      "grouped_dual_mm(Tensor a, Tensor b1, Tensor b2, Tensor? offs=None, Tensor? counts=None, float "
      "alpha1=1.0, float alpha2=1.0, Tensor? alpha1s=None, Tensor? alpha2s=None, str activation=\"silu\", "
      "float swiglu_limit=7.0, float swiglu_alpha=1.702, Tensor(a!)? status=None) -> Tensor");
  m.def(
      "grouped_mm_nvfp4(Tensor a, Tensor a_scales, Tensor b, Tensor b_scales, Tensor? offs=None, Tensor? "
      "counts=None, float alpha=1.0, Tensor? alphas=None, ScalarType? out_dtype=None, Tensor(a!)? "
      "status=None) -> Tensor");
  m.def(
      "grouped_dual_mm_nvfp4(Tensor a, Tensor a_scales, Tensor b1, Tensor b1_scales, Tensor b2, Tensor "
      "b2_scales, Tensor? offs=None, Tensor? counts=None, float alpha1=1.0, float alpha2=1.0, Tensor? "
      "alpha1s=None, Tensor? alpha2s=None, str activation=\"silu\", float swiglu_limit=7.0, float "
      "swiglu_alpha=1.702, ScalarType? out_dtype=None, Tensor(a!)? status=None) -> Tensor");
  m.def("install_tuning_file(Tensor on_device, str path) -> str");
}

TORCH_LIBRARY_IMPL(bwgemm, CPU, m) {
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
