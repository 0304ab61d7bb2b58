// Device-pointer per-tensor scales: the one place a kernel reads a scale from device memory (the GEMMs'
// alpha_ptr and beta_ptr in LinearCombination, the dual GEMMs' alpha1_ptr and alpha2_ptr, the NVFP4 output's
// c_global_scale_ptr; docs/api.md, "Device-pointer scales").
//
// The effective scale is the host value times one float read at run time where the pointer is not null, the
// host value alone where it is null (no multiply: bit for bit what a call without the pointer computes).
// Every kernel reads its scales once per CTA, in the threads that run the epilogue, before their tile loop
// (never in the main loop), so a CUDA graph captured with the pointer sees the value the pointer holds when
// it is replayed. The host never dereferences the pointer; the argument checks (arguments/) only require it
// 4-byte aligned and device-accessible. A plain load: the value does not change while the kernel runs, and a
// kernel's loads see what earlier kernels of the stream wrote.
#pragma once

#include "bwgemm/base/macros.hpp"
#include "bwgemm/epilogue/functors.cuh"

namespace bwgemm::epi {

// host · *device, or host where device is null.
BWGEMM_DEVICE BWGEMM_FORCEINLINE float device_scale(float host, const float* device) {
  return device == nullptr ? host : host * *device;
}

// The functor with its device-pointer scales read and folded into its host values (pointers then null): a
// functor without device scales as it is; LinearCombination {alpha · *alpha_ptr, beta · *beta_ptr}.
template <class F>
BWGEMM_DEVICE BWGEMM_FORCEINLINE F with_device_scales(const F& f) {
  return f;
}
BWGEMM_DEVICE BWGEMM_FORCEINLINE LinearCombination with_device_scales(const LinearCombination& f) {
  return LinearCombination{device_scale(f.alpha, f.alpha_ptr), device_scale(f.beta, f.beta_ptr), nullptr,
                           nullptr};
}

// A dual GEMM's two per-tensor scales, read once per CTA (dual_scales).
struct DualScales {
  float alpha1, alpha2;
};

// Params: a dual GEMM kernel's parameters (alpha1, alpha2, alpha1_ptr, alpha2_ptr).
template <class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE DualScales dual_scales(const Params& p) {
  return DualScales{device_scale(p.alpha1, p.alpha1_ptr), device_scale(p.alpha2, p.alpha2_ptr)};
}

}  // namespace bwgemm::epi
