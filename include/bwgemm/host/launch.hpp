// Host-side launch plumbing shared by the public entry points: the device check of the sm_100a kernels,
// device-pointer and alignment checks, the number of co-resident clusters, the cluster launch itself, and
// the launch of a kernel that walks a tile grid under a scheduler. In the CPU
// emulation build (BWGEMM_EMULATION=1) the same calls run the kernel in the emulator instead.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/common.cuh"
#include "bwgemm/host/status.hpp"
#include "bwgemm/scheduler/schedulers.cuh"

#if BWGEMM_EMULATION
#include <cuda_runtime_api.h>  // cudaStream_t

#include "bwgemm/emu/launch.hpp"
#else
#include <cuda_runtime.h>
#endif

namespace bwgemm {

#if BWGEMM_EMULATION
// How the public entry points launch in the emulation build: grid, block, cluster and shared memory come
// from the kernel; everything else (co-resident clusters, random async delays, ...) from here. Tests adjust
// it; the defaults model a small GPU of 4 co-resident clusters.
inline emu::LaunchConfig& emulated_launch_settings() {
  static emu::LaunchConfig settings = [] {
    emu::LaunchConfig c;
    c.max_resident_clusters = 4;
    return c;
  }();
  return settings;
}
#endif

namespace host {

// The sm_100a kernels run only on compute capability 10.0 (B200/GB200): an `a` target is not forward
// compatible, so "10.x or newer" would be wrong.
inline Status require_compute_capability_100(const char* entry_point) {
#if BWGEMM_EMULATION
  (void)entry_point;
  return Status::success();  // the emulator is an sm_100a device
#else
  int device = 0, major = 0, minor = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::device_mismatch(std::string(entry_point) +
                                   " runs sm_100a kernels, which need a GPU of compute capability 10.0; "
                                   "no usable CUDA device here (" + cudaGetErrorString(err) + ")");
  }
  if (major != 10 || minor != 0) {
    return Status::device_mismatch(std::string(entry_point) +
                                   " runs sm_100a kernels, which need a GPU of compute "
                                   "capability 10.0 (B200/GB200); device " +
                                   std::to_string(device) + " is " + std::to_string(major) + "." +
                                   std::to_string(minor));
  }
  return Status::success();
#endif
}

// TMA base addresses and the epilogue's vector loads and stores need 16-byte alignment.
inline bool is_aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// Global memory the GPU can read and write (device, managed or mapped host memory)?
inline Status require_device_pointer(const void* p, const char* name) {
#if BWGEMM_EMULATION
  (void)p;
  (void)name;
  return Status::success();  // the emulator's global memory is host memory
#else
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) (void)cudaGetLastError();
  const bool ok =
      err == cudaSuccess && (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
                             (attr.type == cudaMemoryTypeHost && attr.devicePointer != nullptr));
  if (!ok) return Status::invalid_argument(std::string(name) + " is not device-accessible memory");
  return Status::success();
#endif
}

// Launches kernel<<<grid_x, block_x, smem>>>(params) in clusters of cluster_x CTAs along x.
// `resident_clusters` (if not null) receives how many such clusters fit on the device at once.
template <class Params>
Status launch_cluster_kernel(void (*kernel)(const Params), uint32_t grid_x, uint32_t block_x,
                             uint32_t cluster_x, uint32_t smem_bytes, cudaStream_t stream,
                             const Params& params) {
#if BWGEMM_EMULATION
  (void)stream;
  emu::LaunchConfig cfg = emulated_launch_settings();
  cfg.grid = {grid_x, 1, 1};
  cfg.block = {block_x, 1, 1};
  cfg.cluster = {cluster_x, 1, 1};
  cfg.dynamic_smem_bytes = smem_bytes;
  const emu::EmuResult r = emu::launch(cfg, kernel, params);
  if (!r.ok) return Status::internal_error("the emulated kernel failed:\n" + r.message);
  return Status::success();
#else
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  if (err == cudaSuccess) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid_x, 1, 1);
    config.blockDim = dim3(block_x, 1, 1);
    config.dynamicSmemBytes = smem_bytes;
    config.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster_x;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = cluster_x > 1 ? 1 : 0;  // no cluster attribute for plain launches (sm_80 has none)
    err = cudaLaunchKernelEx(&config, kernel, params);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::driver_error(std::string("kernel launch failed: ") + cudaGetErrorString(err));
  }
  return Status::success();
#endif
}

// How many clusters of `cluster_x` CTAs of this kernel can run at once (the persistent grid size).
template <class Params>
Status resident_clusters(void (*kernel)(const Params), uint32_t block_x, uint32_t cluster_x,
                         uint32_t smem_bytes, int64_t* clusters) {
#if BWGEMM_EMULATION
  (void)kernel;
  (void)block_x;
  (void)cluster_x;
  (void)smem_bytes;
  *clusters = emulated_launch_settings().max_resident_clusters;
  return Status::success();
#else
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  int n = 0;
  if (err == cudaSuccess) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(cluster_x, 1, 1);
    config.blockDim = dim3(block_x, 1, 1);
    config.dynamicSmemBytes = smem_bytes;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster_x;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    err = cudaOccupancyMaxActiveClusters(&n, kernel, &config);
  }
  if (err != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    return Status::driver_error(std::string("cannot place a cluster of this kernel on the device: ") +
                                (err != cudaSuccess ? cudaGetErrorString(err) : "occupancy is zero"));
  }
  *clusters = n;
  return Status::success();
#endif
}

// Launches a kernel whose Config walks `params.tiles` under Cfg::Scheduler: the grid is the scheduler's
// cluster count (for a persistent scheduler, bounded by the clusters that fit on the device at once),
// stored in params.num_clusters, in clusters of Cfg::kCtaGroup CTAs.
template <class Cfg, class Params>
Status launch_tile_kernel(void (*kernel)(const Params), Params& params, cudaStream_t stream) {
  int64_t resident = 1;
  if constexpr (std::is_same_v<typename Cfg::Scheduler, sched::StaticPersistent>) {
    if (Status s = resident_clusters(kernel, Cfg::kThreads, Cfg::kCtaGroup, Cfg::kSmemBytes, &resident);
        !s.ok())
      return s;
  }
  params.num_clusters = static_cast<int32_t>(Cfg::Scheduler::grid_clusters(params.tiles, resident));
  return launch_cluster_kernel(kernel, static_cast<uint32_t>(params.num_clusters * Cfg::kCtaGroup),
                               Cfg::kThreads, Cfg::kCtaGroup, Cfg::kSmemBytes, stream, params);
}

}  // namespace host
}  // namespace bwgemm
