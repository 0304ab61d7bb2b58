// What the default entry points hand the tuning registry (tuning/registry.hpp) about the call: the current
// device as the tables match it (tuning::DeviceDescription, built once per device from the CUDA runtime; in
// the CPU emulator, the emulated runtime's device where bwgemm::emu_cudart is linked) and the key's names of
// the element types.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <type_traits>

#include "bwgemm/tuning/key.hpp"
#include "bwgemm/tuning/table.hpp"

namespace bwgemm::host {

// The tuning key's name of an element type.
template <class T>
constexpr tuning::Element tuning_element() {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, float>,
                "a 16-bit GEMM's element type: __half, __nv_bfloat16 or float");
  return std::is_same_v<T, __half>          ? tuning::Element::kFp16
         : std::is_same_v<T, __nv_bfloat16> ? tuning::Element::kBf16
                                            : tuning::Element::kFp32;
}

// The current device's description (name, SM count, compute capability, CUDA runtime and driver versions,
// this build's version), built once per device and kept; false where the runtime cannot say (then the entry
// points take their rules without a lookup).
inline bool current_device_description(const tuning::DeviceDescription** out) {
  constexpr int kRemembered = 64;
  struct Slot {
    std::once_flag once;
    bool ok = false;
    tuning::DeviceDescription description;
  };
  static Slot slots[kRemembered];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kRemembered) {
    (void)cudaGetLastError();
    return false;
  }
  Slot& slot = slots[device];
  std::call_once(slot.once, [&] {
    cudaDeviceProp prop{};
    int runtime = 0, driver = 0;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess ||
        cudaRuntimeGetVersion(&runtime) != cudaSuccess || cudaDriverGetVersion(&driver) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    tuning::DeviceDescription& d = slot.description;
    d.name = prop.name;
    d.sm_count = prop.multiProcessorCount;
    d.cc_major = prop.major, d.cc_minor = prop.minor;
    d.cuda_runtime = runtime, d.cuda_driver = driver;
    slot.ok = true;
  });
  if (!slot.ok) return false;
  *out = &slot.description;
  return true;
}

}  // namespace bwgemm::host
