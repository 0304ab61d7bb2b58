// Host-side launch plumbing shared by the public entry points: the device query and the device checks (and
// the messages of the default entry points' dispatch), device-pointer and alignment checks, the number of
// co-resident clusters, the cluster launch itself, and the launch of a kernel that walks a tile grid under a
// scheduler. In the CPU emulation build (BWGEMM_EMULATION=1) the same calls run the kernel in the emulator
// instead.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "bwgemm/base/entry_point.hpp"
#include "bwgemm/base/macros.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/scheduler/schedulers.cuh"

#if BWGEMM_EMULATION
#include <cuda_runtime_api.h>  // cudaStream_t

#include "bwgemm/emu/device_memory.hpp"
#include "bwgemm/emu/launch.hpp"
#else
#include <cuda_runtime.h>
#endif

namespace bwgemm {

// Per-call launch options: the `launch` field of every GEMM and dual GEMM argument struct (docs/api.md,
// "Programmatic dependent launch").
struct LaunchOptions {
  // Programmatic dependent launch (PDL, sm_90 and newer; off by default): the kernel is launched with
  // cudaLaunchAttributeProgrammaticStreamSerialization, so it may start while the previous kernel of the
  // stream finishes. Its prologue (barrier initialisation, tensor-memory allocation, tensor-map prefetch)
  // then overlaps that kernel's tail; every thread waits (griddepcontrol.wait) before it touches global
  // memory, so the results are the same as without it. The kernels also let their own dependents start early
  // (griddepcontrol.launch_dependents, where each says why). In the emulator accepted and without effect
  // (grids run one after another there).
  bool programmatic_dependent_launch = false;
};

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

// The current device and its compute capability: the one query behind every device check and the
// dispatch of the default entry points. The CPU emulator is device 0 of compute capability 10.0.
struct ComputeCapability {
  int device = 0, major = 0, minor = 0;
  bool is(int want_major, int want_minor) const { return major == want_major && minor == want_minor; }
};

#if !BWGEMM_EMULATION
// Why the CUDA runtime found no device, in words, with the CUDA error as the detail: "no usable CUDA device
// here: no CUDA driver is installed (...) (cudaErrorInsufficientDriver: CUDA driver version is ...)".
inline std::string no_device_reason(cudaError_t err) {
  std::string why = "no usable CUDA device here: ";
  if (err == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);  // 0 where no driver is installed
    (void)cudaRuntimeGetVersion(&runtime);
    const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    why += driver == 0 ? std::string("no CUDA driver is installed or loaded (no NVIDIA GPU on this machine?)")
                       : "the CUDA driver (for CUDA " + version(driver) +
                             ") is older than the CUDA runtime this program was built with (" +
                             version(runtime) + ")";
  } else if (err == cudaErrorNoDevice) {
    why += "the CUDA driver sees no GPU (none installed, or CUDA_VISIBLE_DEVICES hides them)";
  } else {
    why += "the CUDA runtime could not query the current device";
  }
  return why + " (" + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
}
#endif

// Fills `cc`, or returns device_mismatch saying why there is no usable device (its message is a fragment
// like "no usable CUDA device here: the CUDA driver sees no GPU (...)", for callers to build on).
inline Status current_compute_capability(ComputeCapability* cc) {
#if BWGEMM_EMULATION
  *cc = ComputeCapability{0, 10, 0};  // the emulator is an sm_100a device
  return Status::success();
#else
  cudaError_t err = cudaGetDevice(&cc->device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&cc->major, cudaDevAttrComputeCapabilityMajor, cc->device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&cc->minor, cudaDevAttrComputeCapabilityMinor, cc->device);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    *cc = ComputeCapability{};
    return Status::device_mismatch(no_device_reason(err));
  }
  return Status::success();
#endif
}

// "device 0 is 9.0", or why there is no device: the end of every device-mismatch message.
inline std::string describe_current_device(const Status& query, const ComputeCapability& cc) {
  if (!query.ok()) return query.message();
  return "device " + std::to_string(cc.device) + " is " + std::to_string(cc.major) + "." +
         std::to_string(cc.minor);
}

// device_mismatch unless the current device is compute capability major.minor exactly. `requirement` says
// what the entry point runs and needs ("runs sm_100a kernels, which need ...").
inline Status require_compute_capability(int major, int minor, const char* entry_point,
                                         const char* requirement) {
  ComputeCapability cc;
  const Status query = current_compute_capability(&cc);
  if (query.ok() && cc.is(major, minor)) return Status::success();
  return Status::device_mismatch(std::string(::bwgemm::detail::entry_point_name(entry_point)) + " " +
                                 requirement + "; " + describe_current_device(query, cc));
}

// The explicit-Config entry points: an `a` target is not forward compatible, so "10.x or newer" (or "9.x or
// newer") would be wrong.
inline Status require_compute_capability_100(const char* entry_point) {
  return require_compute_capability(
      10, 0, entry_point, "runs sm_100a kernels, which need a GPU of compute capability 10.0 (B200/GB200)");
}
inline Status require_compute_capability_90(const char* entry_point) {
  return require_compute_capability(
      9, 0, entry_point, "runs sm_90a kernels, which need a GPU of compute capability 9.0 (H100/H200)");
}

// The default entry points (bwgemm::gemm, ...) on a device neither backend runs on.
inline Status no_backend_for_device(const char* entry_point, const Status& query,
                                    const ComputeCapability& cc) {
  return Status::device_mismatch(std::string(entry_point) +
                                 " runs sm_100a kernels on a GPU of compute capability 10.0 (B200/GB200) and "
                                 "sm_90a kernels on one of compute capability 9.0 (H100/H200); " +
                                 describe_current_device(query, cc));
}

#if !BWGEMM_EMULATION
// A failed launch or kernel-attribute call as a Status. A binary without code for the device's architecture
// (cudaErrorNoKernelImageForDevice; cudaErrorInvalidDeviceFunction from some calls) gets the rebuild hint.
inline Status kernel_call_failure(const std::string& what, cudaError_t err) {
  std::string message = what + ": " + cudaGetErrorString(err);
  if (err != cudaErrorNoKernelImageForDevice && err != cudaErrorInvalidDeviceFunction)
    return Status::driver_error(message);
  ComputeCapability cc;
  const Status query = current_compute_capability(&cc);
  return Status::device_mismatch(
      message + " (" + describe_current_device(query, cc) +
      "): this binary has no code for the device's architecture; rebuild with it in CMAKE_CUDA_ARCHITECTURES "
      "(90a for H100/H200, 100a for B200/GB200: -DCMAKE_CUDA_ARCHITECTURES=\"90a;100a\" builds both)");
}
#endif

// Global memory the GPU can read and write (device, managed or mapped host memory)? In the emulation build
// global memory is host memory: any pointer passes, unless a program linked the emulated CUDA runtime
// (bwgemm::emu_cudart), whose allocation registry then decides (emu/device_memory.hpp).
inline Status require_device_pointer(const void* p, const char* name) {
#if BWGEMM_EMULATION
  const emu::DevicePointerQuery query = emu::device_pointer_query();
  std::string why;
  if (query != nullptr && !query(p, &why))
    return Status::invalid_argument(std::string(name) + " is not device-accessible memory (" + why + ")");
  return Status::success();
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

// The device memory one call reads or writes, each pointer with the operand's name ("A", "B1 scales"), and
// the device-pointer scales the call reads (add_if_given).
struct OperandPointers {
  // The NVFP4 dual GEMM with NVFP4 C: 8 operands and 3 device scales; its grouped form: 8 operands, the
  // offsets or counts, 3 per-expert scale arrays and the status word (arguments/grouped_dual_gemm.hpp).
  static constexpr int kMax = 16;
  struct Entry {
    const void* p;
    const char* name;
  } entries[kMax];
  int count = 0;
  // Appends p (a device-pointer scale) unless it is null (no device scale given).
  void add_if_given(const void* p, const char* name) {
    if (p != nullptr && count < kMax) entries[count++] = Entry{p, name};
  }
};

// require_device_pointer for each operand of `entry_point`'s call: "B of bwgemm::sm90::Gemm is not
// device-accessible memory", or, inside a public entry point's scope (base/entry_point.hpp), "B of
// bwgemm::gemm ...".
inline Status require_device_pointers(const OperandPointers& operands, const char* entry_point) {
  for (int i = 0; i < operands.count; ++i) {
    const std::string name =
        std::string(operands.entries[i].name) + " of " + ::bwgemm::detail::entry_point_name(entry_point);
    if (Status s = require_device_pointer(operands.entries[i].p, name.c_str()); !s.ok()) return s;
  }
  return Status::success();
}

// Launches kernel<<<grid_x, block_x, smem>>>(params) in clusters of cluster_x CTAs along x, with the
// programmatic-stream-serialization attribute where `options` asks for PDL.
template <class Params>
Status launch_cluster_kernel(void (*kernel)(const Params), uint32_t grid_x, uint32_t block_x,
                             uint32_t cluster_x, uint32_t smem_bytes, cudaStream_t stream,
                             const Params& params, const LaunchOptions& options = {}) {
#if BWGEMM_EMULATION
  (void)stream;
  (void)options;  // grids run one after another: nothing to overlap (ptx/griddepcontrol.cuh)
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
    cudaLaunchAttribute attr[2];
    unsigned num_attrs = 0;
    if (cluster_x > 1) {  // no cluster attribute for plain launches (sm_80 has none)
      attr[num_attrs].id = cudaLaunchAttributeClusterDimension;
      attr[num_attrs].val.clusterDim.x = cluster_x;
      attr[num_attrs].val.clusterDim.y = 1;
      attr[num_attrs].val.clusterDim.z = 1;
      ++num_attrs;
    }
    if (options.programmatic_dependent_launch) {
      attr[num_attrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[num_attrs].val.programmaticStreamSerializationAllowed = 1;
      ++num_attrs;
    }
    config.attrs = attr;
    config.numAttrs = num_attrs;
    err = cudaLaunchKernelEx(&config, kernel, params);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return kernel_call_failure("kernel launch failed", err);
  }
  return Status::success();
#endif
}

// How many clusters of `cluster_x` CTAs of this kernel can run at once (the persistent grid size); on an
// error *clusters is 0 where the device cannot place the cluster at all, -1 where the query failed.
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
  *clusters = -1;  // -1 on a failed query, 0 where the query says the cluster cannot be placed
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
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return kernel_call_failure("cannot place a cluster of this kernel on the device", err);
  }
  if (n < 1) {
    *clusters = 0;
    return Status::driver_error("cannot place a cluster of this kernel on the device: occupancy is zero");
  }
  *clusters = n;
  return Status::success();
#endif
}

// resident_clusters, measured once per kernel, launch shape and device and then remembered: it depends on
// nothing else, and a persistent launch needs it on every call (the query costs microseconds of host time,
// comparable to a small GEMM). The emulator's answer follows emulated_launch_settings(), which tests change,
// so it is never cached there.
template <class Params>
Status cached_resident_clusters(void (*kernel)(const Params), uint32_t block_x, uint32_t cluster_x,
                                uint32_t smem_bytes, int64_t* clusters) {
#if BWGEMM_EMULATION
  return resident_clusters(kernel, block_x, cluster_x, smem_bytes, clusters);
#else
  struct Entry {
    void (*kernel)(const Params);
    int device;
    uint32_t block_x, cluster_x, smem_bytes;
    int64_t clusters;
  };
  static std::mutex mutex;
  static std::vector<Entry> entries;
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) {
    (void)cudaGetLastError();
    return kernel_call_failure("cannot query the current device", err);
  }
  {
    const std::lock_guard<std::mutex> lock(mutex);
    for (const Entry& e : entries) {
      if (e.kernel == kernel && e.device == device && e.block_x == block_x && e.cluster_x == cluster_x &&
          e.smem_bytes == smem_bytes) {
        *clusters = e.clusters;
        if (e.clusters == 0)
          return Status::driver_error(
              "cannot place a cluster of this kernel on the device: occupancy is zero");
        return Status::success();
      }
    }
  }
  const Status s = resident_clusters(kernel, block_x, cluster_x, smem_bytes, clusters);
  // A cluster the device cannot place (occupancy zero: e.g. 8 CTAs of a large kernel) is an answer too, and
  // is remembered as 0 clusters, so that choices trying every cluster size do not query it on every call;
  // other failures (a driver error) are not.
  const bool cannot_place = !s.ok() && *clusters == 0;
  if (!s.ok() && !cannot_place) return s;
  const std::lock_guard<std::mutex> lock(mutex);
  entries.push_back({kernel, device, block_x, cluster_x, smem_bytes, cannot_place ? 0 : *clusters});
  return s;
#endif
}

// Launches a kernel whose Config walks `params.tiles` under Cfg::Scheduler: the grid is the scheduler's
// cluster count (for a persistent scheduler, bounded by the clusters that fit on the device at once),
// stored in params.num_clusters, in clusters of Cfg::kClusterCtas CTAs.
template <class Cfg, class Params>
Status launch_tile_kernel(void (*kernel)(const Params), Params& params, cudaStream_t stream,
                          const LaunchOptions& options = {}) {
  constexpr int ClusterCtas = Cfg::kClusterCtas;
  int64_t resident = 1;
  if constexpr (std::is_same_v<typename Cfg::Scheduler, sched::StaticPersistent>) {
    if (Status s = cached_resident_clusters(kernel, Cfg::kThreads, ClusterCtas, Cfg::kSmemBytes, &resident);
        !s.ok())
      return s;
  }
  params.num_clusters = static_cast<int32_t>(Cfg::Scheduler::grid_clusters(params.tiles, resident));
  return launch_cluster_kernel(kernel, static_cast<uint32_t>(params.num_clusters * ClusterCtas),
                               Cfg::kThreads, ClusterCtas, Cfg::kSmemBytes, stream, params, options);
}

}  // namespace host
}  // namespace bwgemm
