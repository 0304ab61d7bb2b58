// Memory helpers shared by the examples, which build twice from one source: natively (device memory is
// cudaMalloc'd) and against the CPU emulator (whose global memory is host memory).
#pragma once

#include <cstdlib>
#include <cstring>

#include "bwgemm/base/macros.hpp"

#if !BWGEMM_EMULATION
#include <cuda_runtime.h>
#endif

namespace example {

// Exit code of a native build that found no GPU it runs on (compute capability 10.0; the main example also
// 9.0); run_example.cmake then runs the emulator build instead.
constexpr int kNoSuitableGpu = 77;

inline void* device_alloc(size_t bytes) {
#if BWGEMM_EMULATION
  return std::aligned_alloc(256, (bytes + 255) / 256 * 256);
#else
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
  return p;
#endif
}

inline void device_free(void* p) {
#if BWGEMM_EMULATION
  std::free(p);
#else
  cudaFree(p);
#endif
}

inline void copy(void* dst, const void* src, size_t bytes, bool to_device) {
#if BWGEMM_EMULATION
  (void)to_device;
  std::memcpy(dst, src, bytes);
#else
  cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
#endif
}

}  // namespace example
