// The device check of the sm_90a (Hopper) entry points: their kernels are built for sm_90a, an
// architecture-specific target that runs on compute capability 9.0 only (not on 10.x: `a` targets are not
// forward compatible). Native builds only: the CPU emulator models sm_100a, not Hopper.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "bwgemm/host/status.hpp"

namespace bwgemm::sm90 {

// The compute capability of the current device, or a Status saying why there is none.
inline Status current_compute_capability(int* device, int* major, int* minor) {
  cudaError_t err = cudaGetDevice(device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, *device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, *device);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::device_mismatch(std::string("no usable CUDA device (") + cudaGetErrorString(err) + ")");
  }
  return Status::success();
}

inline Status require_compute_capability_90(const char* entry_point) {
  int device = 0, major = 0, minor = 0;
  if (Status s = current_compute_capability(&device, &major, &minor); !s.ok())
    return Status::device_mismatch(std::string(entry_point) +
                                   " runs sm_90a kernels, which need a GPU of compute capability 9.0 "
                                   "(H100/H200): " +
                                   s.message());
  if (major != 9 || minor != 0) {
    return Status::device_mismatch(std::string(entry_point) +
                                   " runs sm_90a kernels, which need a GPU of compute capability 9.0 "
                                   "(H100/H200); device " +
                                   std::to_string(device) + " is " + std::to_string(major) + "." +
                                   std::to_string(minor));
  }
  return Status::success();
}

}  // namespace bwgemm::sm90
