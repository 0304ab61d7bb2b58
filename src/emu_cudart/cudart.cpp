// The emulated CUDA runtime (bwgemm::emu_cudart; the model and what is provided:
// include/bwgemm/emu/cudart.hpp). Every function below defines the toolkit's declaration in
// cuda_runtime_api.h (C linkage, same signature), so a program written for the GPU links these instead of
// libcudart's.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "bwgemm/base/hardware.hpp"
#include "bwgemm/emu/cudart.hpp"
#include "bwgemm/emu/device_memory.hpp"

namespace bwgemm::emu::cudart {
namespace {

// cudaMalloc's alignment: "The allocated memory is suitably aligned for any kind of variable" and at least
// 256 bytes (CUDA C++ Programming Guide, "Device Memory Accesses": global memory allocations are aligned to
// at least 256 bytes). The kernels' 256-bit stores rely on 32 of them.
constexpr size_t kAllocationAlignment = 256;

// The emulated device: compute capability 10.0 (B200), as host::current_compute_capability says.
constexpr int kDeviceCount = 1;
constexpr int kComputeCapabilityMajor = 10;
constexpr int kComputeCapabilityMinor = 0;
// A B200 has 148 SMs (NVIDIA Blackwell datasheet); reported so that a program sizing work by SM count sees a
// B200's figure. The emulator's own residency is bwgemm::emulated_launch_settings().max_resident_clusters.
constexpr int kB200MultiprocessorCount = 148;
// B200 HBM3e capacity as cudaGetDeviceProperties reports it: 180 GiB (nvidia-smi on a B200 shows 183359 MiB;
// rounded here, the emulator allocates host memory and enforces no limit).
constexpr size_t kReportedGlobalMemoryBytes = size_t{180} << 30;

enum class MemoryKind { kDevice, kPinnedHost };

struct Allocation {
  size_t bytes;
  MemoryKind kind;
};

struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> live;  // keyed by start address
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: cudaFree may run from other static destructors
  return *r;
}

thread_local cudaError_t last_error = cudaSuccess;
thread_local std::string last_detail;

std::string address(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// Records a failed call: cudaGetLastError returns it, last_error_detail() explains it.
cudaError_t fail(cudaError_t err, std::string detail) {
  last_error = err;
  last_detail = std::move(detail);
  return err;
}

// The live allocation holding [p, p + bytes), or nullptr. Caller holds the registry mutex.
const Allocation* find_locked(const Registry& r, const void* p, size_t bytes, uintptr_t* start) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = r.live.upper_bound(a);
  if (it == r.live.begin()) return nullptr;
  --it;
  const size_t extent = std::max<size_t>(it->second.bytes, 1);
  if (a - it->first >= extent || bytes > extent - (a - it->first)) return nullptr;
  if (start != nullptr) *start = it->first;
  return &it->second;
}

// Where a copy's side is: in device memory (a cudaMalloc allocation), in pinned host memory, or elsewhere.
enum class Side { kDevice, kPinnedHost, kHost, kStraddles };

Side classify(const void* p, size_t bytes) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (const Allocation* a = find_locked(r, p, bytes, nullptr))
    return a->kind == MemoryKind::kDevice ? Side::kDevice : Side::kPinnedHost;
  // Not wholly inside one allocation: does it start in or reach into one?
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + std::max<size_t>(bytes, 1);
  auto it = r.live.lower_bound(lo);
  if (it != r.live.end() && it->first < hi) return Side::kStraddles;
  if (it != r.live.begin()) {
    --it;
    if (lo - it->first < std::max<size_t>(it->second.bytes, 1)) return Side::kStraddles;
  }
  return Side::kHost;
}

const char* kind_name(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice:
      return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost:
      return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice:
      return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault:
      return "cudaMemcpyDefault";
  }
  return "an unknown cudaMemcpyKind";
}

// Checks one side of a copy against what `kind` says it is. Pinned host memory is both (unified addressing
// lets the device reach it, and it is host memory).
bool side_matches(Side side, bool want_device) {
  if (side == Side::kPinnedHost) return true;
  return want_device ? side == Side::kDevice : side == Side::kHost;
}

std::string describe(Side side) {
  switch (side) {
    case Side::kDevice:
      return "emulated device memory (from cudaMalloc)";
    case Side::kPinnedHost:
      return "pinned host memory";
    case Side::kHost:
      return "not inside any live allocation of the emulated cudaMalloc (host memory, or freed)";
    case Side::kStraddles:
      return "partly outside the allocation it starts in or reaches";
  }
  return "";
}

cudaError_t copy(const char* call, void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr)
    return fail(cudaErrorInvalidValue,
                std::string(call) + ": " + (dst == nullptr ? "dst" : "src") + " is null");
  const Side d = classify(dst, count), s = classify(src, count);
  bool dst_device = false, src_device = false;
  switch (kind) {
    case cudaMemcpyHostToHost:
      break;
    case cudaMemcpyHostToDevice:
      dst_device = true;
      break;
    case cudaMemcpyDeviceToHost:
      src_device = true;
      break;
    case cudaMemcpyDeviceToDevice:
      dst_device = src_device = true;
      break;
    case cudaMemcpyDefault:  // unified addressing: the kind follows from the pointers
      dst_device = d == Side::kDevice;
      src_device = s == Side::kDevice;
      break;
    default:
      return fail(cudaErrorInvalidMemcpyDirection, std::string(call) + ": kind " +
                                                       std::to_string(static_cast<int>(kind)) +
                                                       " is not a cudaMemcpyKind");
  }
  for (const auto& [name, side, want_device, p] :
       {std::make_tuple("dst", d, dst_device, static_cast<const void*>(dst)),
        std::make_tuple("src", s, src_device, src)}) {
    if (side == Side::kStraddles || !side_matches(side, want_device))
      return fail(cudaErrorInvalidValue, std::string(call) + " (" + kind_name(kind) + ", " +
                                             std::to_string(count) + " bytes): " + name + " " + address(p) +
                                             " should be " + (want_device ? "device" : "host") +
                                             " memory but is " + describe(side));
  }
  std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t set(const char* call, void* p, int value, size_t count) {
  if (count == 0) return cudaSuccess;
  const Side side = classify(p, count);
  if (side != Side::kDevice && side != Side::kPinnedHost)
    return fail(cudaErrorInvalidValue, std::string(call) + ": devPtr " + address(p) + " (" +
                                           std::to_string(count) + " bytes) is " + describe(side));
  std::memset(p, value, count);
  return cudaSuccess;
}

cudaError_t allocate(const char* call, void** p, size_t bytes, MemoryKind kind) {
  if (p == nullptr) return fail(cudaErrorInvalidValue, std::string(call) + ": the result pointer is null");
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;  // cudaMalloc(&p, 0) succeeds with a null pointer
  const size_t rounded = (bytes + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
  void* memory = std::aligned_alloc(kAllocationAlignment, rounded);
  if (memory == nullptr)
    return fail(cudaErrorMemoryAllocation,
                std::string(call) + ": host allocation of " + std::to_string(bytes) + " bytes failed");
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.live[reinterpret_cast<uintptr_t>(memory)] = Allocation{bytes, kind};
  *p = memory;
  return cudaSuccess;
}

cudaError_t release(const char* call, void* p, MemoryKind kind) {
  if (p == nullptr) return cudaSuccess;  // cudaFree(nullptr) does nothing
  Registry& r = registry();
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.live.find(reinterpret_cast<uintptr_t>(p));
    if (it == r.live.end() || it->second.kind != kind)
      return fail(cudaErrorInvalidValue,
                  std::string(call) + ": " + address(p) + " is not the start of a live " +
                      (kind == MemoryKind::kDevice ? "cudaMalloc" : "cudaMallocHost") + " allocation");
    r.live.erase(it);
  }
  std::free(p);
  return cudaSuccess;
}

bool device_pointer_query(const void* p, std::string* why) {
  return is_device_accessible(p, 1, why);
}

// Linking the shim makes the entry points check pointers against the registry (emu/device_memory.hpp).
const bool installed = [] {
  (void)set_device_pointer_query(&device_pointer_query);
  return true;
}();

// Streams and events are host objects. An event holds the host clock at its last record.
struct Stream {
  unsigned flags;
};
using Clock = std::chrono::steady_clock;
struct Event {
  unsigned flags;
  bool recorded;
  Clock::time_point when;
};

}  // namespace

std::string last_error_detail() {
  return last_detail;
}

AllocationTotals live_allocations() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  AllocationTotals totals;
  for (const auto& [start, a] : r.live) {
    (void)start;
    ++totals.count;
    totals.bytes += static_cast<int64_t>(a.bytes);
  }
  return totals;
}

bool is_device_accessible(const void* p, int64_t bytes, std::string* why) {
  (void)installed;
  const Side side = classify(p, static_cast<size_t>(std::max<int64_t>(bytes, 1)));
  if (side == Side::kDevice || side == Side::kPinnedHost) return true;
  if (why != nullptr) *why = address(p) + " is " + describe(side);
  return false;
}

}  // namespace bwgemm::emu::cudart

namespace cudart = bwgemm::emu::cudart;

// ---- memory --------------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return cudart::allocate("cudaMalloc", devPtr, size, cudart::MemoryKind::kDevice);
}
cudaError_t cudaFree(void* devPtr) {
  return cudart::release("cudaFree", devPtr, cudart::MemoryKind::kDevice);
}
cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return cudart::allocate("cudaMallocHost", ptr, size, cudart::MemoryKind::kPinnedHost);
}
cudaError_t cudaFreeHost(void* ptr) {
  return cudart::release("cudaFreeHost", ptr, cudart::MemoryKind::kPinnedHost);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return cudart::copy("cudaMemcpy", dst, src, count, kind);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t) {
  return cudart::copy("cudaMemcpyAsync", dst, src, count, kind);
}
cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return cudart::set("cudaMemset", devPtr, value, count);
}
cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t) {
  return cudart::set("cudaMemsetAsync", devPtr, value, count);
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  if (attributes == nullptr)
    return cudart::fail(cudaErrorInvalidValue, "cudaPointerGetAttributes: attributes is null");
  *attributes = cudaPointerAttributes{};
  const cudart::Side side = cudart::classify(ptr, 1);
  attributes->device = 0;
  if (side == cudart::Side::kDevice) {
    attributes->type = cudaMemoryTypeDevice;
    attributes->devicePointer = const_cast<void*>(ptr);
  } else if (side == cudart::Side::kPinnedHost) {
    attributes->type = cudaMemoryTypeHost;
    attributes->devicePointer = attributes->hostPointer = const_cast<void*>(ptr);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;  // what the runtime says of ordinary host memory
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

// ---- streams and events (work is synchronous: everything has completed) ---------------------------------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  if (pStream == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaStreamCreate: pStream is null");
  *pStream = reinterpret_cast<cudaStream_t>(new cudart::Stream{flags});
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  return cudaStreamCreateWithFlags(pStream, cudaStreamDefault);
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr)
    return cudart::fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: the null stream");
  delete reinterpret_cast<cudart::Stream*>(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t) {
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaEventCreate: event is null");
  *event = reinterpret_cast<cudaEvent_t>(new cudart::Event{flags, false, {}});
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (event == nullptr) return cudart::fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy: null event");
  delete reinterpret_cast<cudart::Event*>(event);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (event == nullptr) return cudart::fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: null event");
  auto* e = reinterpret_cast<cudart::Event*>(event);
  e->recorded = true;
  e->when = cudart::Clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event == nullptr)
    return cudart::fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: null event");
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (event == nullptr) return cudart::fail(cudaErrorInvalidResourceHandle, "cudaEventQuery: null event");
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr || start == nullptr || end == nullptr)
    return cudart::fail(cudaErrorInvalidValue, "cudaEventElapsedTime: a null argument");
  const auto* s = reinterpret_cast<const cudart::Event*>(start);
  const auto* e = reinterpret_cast<const cudart::Event*>(end);
  if ((s->flags & cudaEventDisableTiming) || (e->flags & cudaEventDisableTiming))
    return cudart::fail(cudaErrorInvalidResourceHandle,
                        "cudaEventElapsedTime: an event made with cudaEventDisableTiming");
  if (!s->recorded || !e->recorded)
    return cudart::fail(cudaErrorInvalidResourceHandle,
                        "cudaEventElapsedTime: an event that was never recorded");
  *ms = std::chrono::duration<float, std::milli>(e->when - s->when).count();
  return cudaSuccess;
}

// ---- device and errors ----------------------------------------------------------------------------------

cudaError_t cudaDeviceSynchronize(void) {
  return cudaSuccess;
}
cudaError_t cudaDeviceReset(void) {
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) {
  const cudaError_t err = cudart::last_error;
  cudart::last_error = cudaSuccess;
  return err;
}
cudaError_t cudaPeekAtLastError(void) {
  return cudart::last_error;
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidMemcpyDirection:
      return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotSupported:
      return "cudaErrorNotSupported";
    default:
      return "cudaErrorUnknown";
  }
}
// The sentences of the toolkit's runtime for the codes the shim returns.
const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotSupported:
      return "operation not supported";
    default:
      return "unrecognized error code";
  }
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaGetDeviceCount: count is null");
  *count = cudart::kDeviceCount;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaGetDevice: device is null");
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= cudart::kDeviceCount)
    return cudart::fail(cudaErrorInvalidDevice,
                        "cudaSetDevice: the emulator is device 0 only (got " + std::to_string(device) + ")");
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: prop is null");
  if (device < 0 || device >= cudart::kDeviceCount)
    return cudart::fail(
        cudaErrorInvalidDevice,
        "cudaGetDeviceProperties: the emulator is device 0 only (got " + std::to_string(device) + ")");
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "bwgemm CPU emulator (sm_100a)");
  prop->major = cudart::kComputeCapabilityMajor;
  prop->minor = cudart::kComputeCapabilityMinor;
  prop->multiProcessorCount = cudart::kB200MultiprocessorCount;
  prop->totalGlobalMem = cudart::kReportedGlobalMemoryBytes;
  prop->warpSize = bwgemm::hw::kWarpSize;
  prop->sharedMemPerBlockOptin = static_cast<size_t>(bwgemm::hw::kMaxDynamicSmemBytes);
  prop->maxThreadsPerBlock =
      1024;  // every compute capability since 2.0 (Programming Guide, technical specifications)
  prop->unifiedAddressing = 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (value == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: value is null");
  if (device < 0 || device >= cudart::kDeviceCount)
    return cudart::fail(cudaErrorInvalidDevice, "cudaDeviceGetAttribute: the emulator is device 0 only");
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor:
      *value = cudart::kComputeCapabilityMajor;
      return cudaSuccess;
    case cudaDevAttrComputeCapabilityMinor:
      *value = cudart::kComputeCapabilityMinor;
      return cudaSuccess;
    case cudaDevAttrMultiProcessorCount:
      *value = cudart::kB200MultiprocessorCount;
      return cudaSuccess;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = bwgemm::hw::kMaxDynamicSmemBytes;
      return cudaSuccess;
    case cudaDevAttrWarpSize:
      *value = bwgemm::hw::kWarpSize;
      return cudaSuccess;
    case cudaDevAttrL2CacheSize:
      *value = 0;  // the emulator models no cache: every access goes to (host) memory
      return cudaSuccess;
    default:
      return cudart::fail(cudaErrorNotSupported, "cudaDeviceGetAttribute: attribute " +
                                                     std::to_string(static_cast<int>(attr)) +
                                                     " is not modelled by the emulated runtime");
  }
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr)
    return cudart::fail(cudaErrorInvalidValue, "cudaMemGetInfo: free or total is null");
  // The reported capacity (as cudaGetDeviceProperties says) less what the program holds now.
  const size_t used = static_cast<size_t>(cudart::live_allocations().bytes);
  *total = cudart::kReportedGlobalMemoryBytes;
  *free = used < *total ? *total - used : 0;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaRuntimeGetVersion: null");
  *runtimeVersion = CUDART_VERSION;  // the toolkit whose headers the shim was compiled against
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (driverVersion == nullptr) return cudart::fail(cudaErrorInvalidValue, "cudaDriverGetVersion: null");
  *driverVersion = CUDART_VERSION;
  return cudaSuccess;
}
