#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>

namespace bwgemm::bench {

void open_device_info(int ordinal, DeviceInfo* d, cudaStream_t* stream) {
  BWGEMM_BENCH_CUDA(cudaSetDevice(ordinal));
  cudaDeviceProp prop{};
  BWGEMM_BENCH_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  int l2 = 0;
  BWGEMM_BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal));
  size_t free_bytes = 0, total_bytes = 0;
  BWGEMM_BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  d->ordinal = ordinal;
  d->name = prop.name;
  d->cc_major = prop.major;
  d->cc_minor = prop.minor;
  d->sm_count = prop.multiProcessorCount;
  d->l2_bytes = l2;
  d->free_bytes = static_cast<int64_t>(free_bytes);
  d->total_bytes = static_cast<int64_t>(total_bytes);
  BWGEMM_BENCH_CUDA(cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking));
}
namespace {

// A sample never holds more calls than this (bounds graph size for very short kernels).
constexpr int kMaxCallsPerSample = 4096;
constexpr int kMinWarmupRuns = 2;  // even with --bwgemm_warmup_ms=0

class Event {
 public:
  Event() { BWGEMM_BENCH_CUDA(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(event_); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// `calls` back-to-back calls cycling through the operand sets, replayed as one CUDA graph or,
// without graphs, enqueued on the stream each time.
class Batch {
 public:
  Batch(const Launch& launch, int sets, int calls, bool use_graph, cudaStream_t stream)
      : launch_(launch), sets_(sets), calls_(calls), stream_(stream) {
    if (!use_graph) return;
    BWGEMM_BENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(stream, &partial);
      if (partial != nullptr) cudaGraphDestroy(partial);
      (void)cudaGetLastError();
      throw;
    }
    BWGEMM_BENCH_CUDA(cudaStreamEndCapture(stream, &graph_));
    const cudaError_t status = cudaGraphInstantiate(&exec_, graph_, 0);
    if (status != cudaSuccess) {
      throw BenchError(std::string("cudaGraphInstantiate failed: ") + cudaGetErrorString(status) +
                       " (try --bwgemm_graphs=0)");
    }
  }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }

  int calls() const { return calls_; }

  void run() {
    if (exec_ != nullptr) {
      BWGEMM_BENCH_CUDA(cudaGraphLaunch(exec_, stream_));
    } else {
      enqueue();
    }
  }

 private:
  void enqueue() {
    for (int i = 0; i < calls_; ++i) launch_(i % sets_, stream_);
  }

  const Launch& launch_;
  int sets_;
  int calls_;
  cudaStream_t stream_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Seconds of GPU time for one run of the batch.
double time_batch(Batch& batch, const Event& start, const Event& stop, cudaStream_t stream) {
  BWGEMM_BENCH_CUDA(cudaEventRecord(start.get(), stream));
  batch.run();
  BWGEMM_BENCH_CUDA(cudaEventRecord(stop.get(), stream));
  BWGEMM_BENCH_CUDA(cudaEventSynchronize(stop.get()));
  BWGEMM_BENCH_CUDA(cudaGetLastError());  // a failed kernel launch inside the batch
  float ms = 0;
  BWGEMM_BENCH_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms * 1e-3;
}

}  // namespace

int rotation_sets(int64_t bytes_per_set, const DeviceInfo& device) {
  const double needed = kL2RotationFactor * static_cast<double>(device.l2_bytes);
  int sets =
      std::max(kMinRotationSets, static_cast<int>(std::ceil(needed / static_cast<double>(bytes_per_set))));
  const double budget = kRotationMemoryFraction * static_cast<double>(device.free_bytes);
  const int affordable = static_cast<int>(budget / static_cast<double>(bytes_per_set));
  if (affordable < kMinRotationSets) {
    throw BenchError("problem needs " + std::to_string(kMinRotationSets) + " x " +
                     std::to_string(static_cast<int64_t>(bytes_per_set / kMiB)) +
                     " MiB of operand sets, more than half of the device memory free at start-up");
  }
  return std::min(sets, affordable);
}

namespace {

// A side's batch, sized by a probe pass over the sets (run twice: the first run pays for lazy module loading
// and clock ramp-up) to at least TimingConfig::min_sample_seconds of calls.
std::unique_ptr<Batch> calibrated_batch(const Launch& launch, int sets, const TimingConfig& config,
                                        const Event& start, const Event& stop, cudaStream_t stream) {
  auto probe = std::make_unique<Batch>(launch, sets, sets, config.use_graphs, stream);
  probe->run();
  const double probe_seconds = time_batch(*probe, start, stop, stream) / sets;

  int calls = sets;
  if (probe_seconds > 0) {
    const double wanted = std::ceil(config.min_sample_seconds / probe_seconds);
    calls = static_cast<int>(std::min<double>(wanted, kMaxCallsPerSample));
    calls = std::max(sets, (calls + sets - 1) / sets * sets);  // whole passes over the sets
  }
  return calls == sets ? std::move(probe)
                       : std::make_unique<Batch>(launch, sets, calls, config.use_graphs, stream);
}

// Untimed runs of the batch: at least kMinWarmupRuns and TimingConfig::warmup_seconds.
void warm_up(Batch& batch, const TimingConfig& config, cudaStream_t stream) {
  using Clock = std::chrono::steady_clock;
  const auto warmup_begin = Clock::now();
  for (int run = 0;; ++run) {
    const std::chrono::duration<double> elapsed = Clock::now() - warmup_begin;
    if (run >= kMinWarmupRuns && elapsed.count() >= config.warmup_seconds) break;
    batch.run();
    // Keep the queue short: the host clock measures the warm-up.
    BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  }
}

}  // namespace

InterleavedTiming time_interleaved(const std::vector<Launch>& launches, int sets, int rounds,
                                   const Context& context) {
  if (launches.empty() || rounds < 1) throw BenchError("time_interleaved: needs a launch and a round");
  const TimingConfig& config = context.timing;
  cudaStream_t stream = context.stream;
  Event start, stop;
  const int sides = static_cast<int>(launches.size());

  std::vector<std::unique_ptr<Batch>> batches;
  for (const Launch& launch : launches)
    batches.push_back(calibrated_batch(launch, sets, config, start, stop, stream));
  for (auto& batch : batches) warm_up(*batch, config, stream);

  InterleavedTiming timing;
  timing.sets = sets;
  timing.per_call_us.assign(static_cast<size_t>(sides), {});
  for (int side = 0; side < sides; ++side) {
    timing.per_call_us[static_cast<size_t>(side)].reserve(static_cast<size_t>(rounds));
    timing.calls_per_sample.push_back(batches[static_cast<size_t>(side)]->calls());
  }
  for (int round = 0; round < rounds; ++round) {
    for (int side : round_order(round, sides)) {
      Batch& batch = *batches[static_cast<size_t>(side)];
      timing.per_call_us[static_cast<size_t>(side)].push_back(time_batch(batch, start, stop, stream) * 1e6 /
                                                              batch.calls());
    }
  }
  return timing;
}

Timing time_launches(const Launch& launch, int sets, const Context& context) {
  const InterleavedTiming interleaved = time_interleaved({launch}, sets, context.timing.samples, context);
  const std::vector<double>& per_call_us = interleaved.per_call_us[0];
  Timing timing;
  timing.median_us = median_of(per_call_us);
  timing.min_us = *std::min_element(per_call_us.begin(), per_call_us.end());
  timing.max_us = *std::max_element(per_call_us.begin(), per_call_us.end());
  timing.samples = static_cast<int>(per_call_us.size());
  timing.calls_per_sample = interleaved.calls_per_sample[0];
  timing.sets = sets;
  return timing;
}

}  // namespace bwgemm::bench
