// Shared pieces of bwgemm_bench: error handling, device buffers, the run-wide context.
//
// Every CUDA and cuBLASLt status is checked; a failure throws BenchError, which the benchmark
// body turns into benchmark::State::SkipWithError with the message (the run goes on).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace bwgemm::bench {

// Any failure while preparing, validating or timing one benchmark.
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw BenchError(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ") at " + file + ":" + std::to_string(line));
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw BenchError(std::string(call) + " failed: " + cublasLtGetStatusName(status) + " (" +
                   cublasLtGetStatusString(status) + ") at " + file + ":" + std::to_string(line));
}

#define BWGEMM_BENCH_CUDA(call) ::bwgemm::bench::check_cuda((call), #call, __FILE__, __LINE__)
#define BWGEMM_BENCH_CUBLAS(call) ::bwgemm::bench::check_cublas((call), #call, __FILE__, __LINE__)

// Owning, move-only device allocation of `count` elements of T (cudaMalloc: 256-byte aligned).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count > 0) BWGEMM_BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() {
    if (ptr_ != nullptr)
      cudaFree(ptr_);  // no throw from a destructor; a failing free is reported by later calls
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// What the run measures on, read once at start-up.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;    // cudaDevAttrL2CacheSize
  int64_t free_bytes = 0;  // cudaMemGetInfo at start-up
  int64_t total_bytes = 0;
};

// Makes `ordinal` the current device, reads what the run measures on into *d and creates *stream (non-blocking):
// what bwgemm_bench and bwgemm-tune do at start-up (timing.cpp). Throws BenchError on a CUDA error.
void open_device_info(int ordinal, DeviceInfo* d, cudaStream_t* stream);

// How each benchmark is timed (docs/performance.md, "How the benchmarks measure").
struct TimingConfig {
  int samples = 50;                  // timed samples per benchmark; the median is reported
  double min_sample_seconds = 1e-3;  // each sample runs back-to-back calls for at least this long
  double warmup_seconds = 0.03;      // untimed calls before the first sample (clocks, caches, lazy loading)
  bool use_graphs = true;            // a sample is one CUDA graph of its calls (no host launch overhead)
};

// The run-wide state every benchmark uses: the device, one stream, one cuBLASLt handle.
struct Context {
  DeviceInfo device;
  TimingConfig timing;
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
};

// Set up by main() before any benchmark runs.
Context& context();

// 1 MiB, for messages.
inline constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace bwgemm::bench
