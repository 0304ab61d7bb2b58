// bwgemm_bench: Google Benchmark driver for bwgemm's kernels and their cuBLASLt baselines.
//
//   bwgemm_bench [Google Benchmark flags] [--bwgemm_samples=N] [--bwgemm_min_sample_ms=X]
//                [--bwgemm_warmup_ms=X] [--bwgemm_graphs=0|1] [--bwgemm_device=N]
//                [--bwgemm_shapes=MxNxK,... | @FILE] [--bwgemm_sweep=models|moe] [--bwgemm_paired=0|1]
//                [--bwgemm_host_cost=0|1]
//
// Inspects the GPU first and registers only what it can run (printing what was skipped and why), the
// bandwidth references (reference/*) first; without a CUDA device it says so and exits 0.
// docs/performance.md: how to run and how it measures.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/tuning/registry.hpp"
#include "cublaslt.hpp"
#include "kernels.cuh"
#include "moe_registry.hpp"
#include "paired.hpp"
#include "registry.hpp"
#include "shapes.hpp"

namespace bwgemm::bench {

Context& context() {
  static Context instance;
  return instance;
}

void BaselineRegistry::record(const std::string& problem_key, const std::string& implementation,
                              double median_us) {
  auto& list = medians_[problem_key];
  for (auto& entry : list) {
    if (entry.first == implementation) {  // a repetition: keep the latest
      entry.second = median_us;
      return;
    }
  }
  list.emplace_back(implementation, median_us);
}

std::vector<std::pair<std::string, double>> BaselineRegistry::baselines(
    const std::string& problem_key) const {
  const auto it = medians_.find(problem_key);
  return it == medians_.end() ? std::vector<std::pair<std::string, double>>{} : it->second;
}

BaselineRegistry& baseline_registry() {
  static BaselineRegistry instance;
  return instance;
}

namespace {

// cuBLAS 12.8 (CUDA 12.8) is the first with NVFP4 (CUDA_R_4F_E2M1, VEC16_UE4M3 scale mode).
constexpr size_t kMinCublasLtVersionForNvfp4 = 120800;

std::string cc_string(const DeviceInfo& d) {
  return std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
}

}  // namespace

bool device_meets(const DeviceInfo& device, DeviceRequirement requirement, std::string* why) {
  switch (requirement) {
    case DeviceRequirement::kSm80OrNewer:
      if (device.cc_major >= 8) return true;
      *why = "needs compute capability 8.0 or newer (this device is " + cc_string(device) + ")";
      return false;
    case DeviceRequirement::kSm10x:
      if (device.cc_major != 10) {
        *why = "needs compute capability 10.x, block-scaled FP4 tensor cores (this device is " +
               cc_string(device) + ")";
        return false;
      }
      if (!BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4) {
        *why =
            "this binary was built against cuBLAS " + std::to_string(CUBLAS_VERSION) + "; NVFP4 needs 12.8+";
        return false;
      }
      if (cublasLtGetVersion() < kMinCublasLtVersionForNvfp4) {
        *why = "the cuBLASLt library loaded is version " + std::to_string(cublasLtGetVersion()) +
               "; NVFP4 needs 12.8+";
        return false;
      }
      return true;
    case DeviceRequirement::kSm100a:
      if (device.cc_major == 10 && device.cc_minor == 0) return true;
      *why = "needs compute capability 10.0 exactly, sm_100a code (this device is " + cc_string(device) + ")";
      return false;
    case DeviceRequirement::kSm90a:
      if (device.cc_major == 9 && device.cc_minor == 0) return true;
      *why = "needs compute capability 9.0 exactly, sm_90a code (this device is " + cc_string(device) + ")";
      return false;
  }
  *why = "unknown requirement";
  return false;
}

namespace {

// The last problem built, shared by every implementation of that shape (they run consecutively).
// Freed before the next one is built, so at most one problem's operand sets are on the device.
class ProblemCache {
 public:
  template <class Problem, class Factory>
  std::shared_ptr<const Problem> get(const std::string& key, Factory&& make) {
    if (key != key_) {
      problem_.reset();
      key_.clear();
      std::shared_ptr<const Problem> fresh = make();
      problem_ = fresh;
      key_ = key;
      return fresh;
    }
    return std::static_pointer_cast<const Problem>(problem_);
  }
  void clear() {
    problem_.reset();
    key_.clear();
  }

 private:
  std::string key_;
  std::shared_ptr<const void> problem_;
};

ProblemCache& problem_cache() {
  static ProblemCache instance;
  return instance;
}

struct GroupReport {
  int registered = 0;
  std::vector<std::string> skipped;  // "<implementation>: <why>"
};

// --- bandwidth references -----------------------------------------------------------------------
//
// reference/read_bandwidth/2GiB reads one 2 GiB buffer per call (launch_read_reduce: 16-byte loads, a
// grid-stride loop over a full-occupancy grid, an XOR reduction into one word) and reports the DRAM read
// bandwidth a kernel reaches on this GPU in this run; reference/copy_bandwidth/2GiB copies one 2 GiB buffer
// into another (2 GiB read + 2 GiB written per call). Both are timed by time_launches like the problems,
// with a single "operand set": one buffer is far larger than L2 (more than 3x the L2 of any current GPU;
// an H200's is 60 MiB), and every call streams it from start to end, so the bytes a call reads were last
// touched a whole buffer earlier and have left L2, as rotation guarantees for the problems.
//
// The references are registered before every group, so under Google Benchmark's default in-order execution
// they run first and every GEMM and dual-GEMM benchmark after them gets the counter read_bw_frac = its GB/s
// / the read reference's GB/s (the latest read reference run, like BaselineRegistry's repetitions). A
// benchmark that runs while no read reference has completed in this process (--benchmark_filter without
// '^reference/', a failed reference, or --benchmark_enable_random_interleaving placing it later) has no
// read_bw_frac counter: no fraction of a bandwidth this run did not measure. bench/plot.py computes the
// fraction from the medians of the JSON instead, which also covers interleaved runs.
constexpr int64_t kReferenceBytes = int64_t{2} << 30;  // 2 GiB per buffer; the benchmarks' names say "2GiB"
constexpr const char* kReferenceSize = "2GiB";
// The read kernel is checked against a host XOR of this prefix before timing (not a multiple of the grid's
// step, so the remainder loop is checked too).
constexpr int64_t kReadCheckBytes = (int64_t{64} << 20) + 48;
// Random bytes (any fixed seed), like the problems' operands: zeros would draw less power.
constexpr uint64_t kReferenceSeed = 0x6277'6765'6D6D'0BADull;

enum class ReferenceKind { kRead, kCopy };

const char* reference_name(ReferenceKind kind) {
  return kind == ReferenceKind::kRead ? "read_bandwidth" : "copy_bandwidth";
}

// GB/s of the references measured so far in this run, by reference name; a repetition replaces the value.
class ReferenceRegistry {
 public:
  void record(const std::string& name, double gbps) { gbps_[name] = gbps; }
  // 0 when that reference has not run (or not succeeded) yet.
  double gbps(const std::string& name) const {
    const auto it = gbps_.find(name);
    return it == gbps_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> gbps_;
};

ReferenceRegistry& reference_registry() {
  static ReferenceRegistry instance;
  return instance;
}

uint32_t host_xor_words(const std::vector<uint8_t>& bytes) {
  uint32_t acc = 0;
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    uint32_t word;
    std::memcpy(&word, &bytes[i], sizeof(word));
    acc ^= word;
  }
  return acc;
}

// The XOR of the 32-bit words of `bytes` bytes of device memory, by the read kernel.
uint32_t device_xor_words(const void* data, int64_t bytes, uint32_t* sink, int blocks, cudaStream_t stream) {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(sink, 0, sizeof(uint32_t), stream));
  launch_read_reduce(data, bytes, sink, blocks, stream);
  uint32_t value = 0;
  BWGEMM_BENCH_CUDA(cudaMemcpyAsync(&value, sink, sizeof(value), cudaMemcpyDeviceToHost, stream));
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  return value;
}

void run_reference(benchmark::State& state, ReferenceKind kind) {
  Context& ctx = context();
  try {
    problem_cache().clear();  // the reference's buffers alone on the device
    const int buffers = kind == ReferenceKind::kCopy ? 2 : 1;
    if (buffers * kReferenceBytes > kRotationMemoryFraction * static_cast<double>(ctx.device.free_bytes)) {
      throw BenchError(std::string(reference_name(kind)) + " needs " + std::to_string(buffers) +
                       " x 2 GiB, more than half of the device memory free at start-up");
    }
    DeviceBuffer<uint8_t> src(static_cast<size_t>(kReferenceBytes));
    DeviceBuffer<uint8_t> dst(kind == ReferenceKind::kCopy ? static_cast<size_t>(kReferenceBytes) : 0);
    DeviceBuffer<uint32_t> sink(1);
    fill_masked_bytes(src.get(), kReferenceBytes, kReferenceSeed, 0xFF, ctx.stream);
    BWGEMM_BENCH_CUDA(cudaStreamSynchronize(ctx.stream));  // the stream is non-blocking: before cudaMemcpy
    const int blocks = bandwidth_grid_blocks(ctx.device.sm_count);

    // Check before timing, as for the problems: the read kernel against the host on a prefix, then the
    // copy by reading both buffers (dst poisoned first, so a copy that writes nothing fails).
    std::vector<uint8_t> prefix(static_cast<size_t>(kReadCheckBytes));
    BWGEMM_BENCH_CUDA(cudaMemcpy(prefix.data(), src.get(), prefix.size(), cudaMemcpyDeviceToHost));
    if (device_xor_words(src.get(), kReadCheckBytes, sink.get(), blocks, ctx.stream) !=
        host_xor_words(prefix)) {
      throw BenchError("read-bandwidth kernel: its XOR of the first " + std::to_string(kReadCheckBytes) +
                       " bytes differs from the host's");
    }
    Launch launch;
    if (kind == ReferenceKind::kRead) {
      launch = [&](int /*set*/, cudaStream_t stream) {
        launch_read_reduce(src.get(), kReferenceBytes, sink.get(), blocks, stream);
      };
    } else {
      launch = [&](int /*set*/, cudaStream_t stream) {
        launch_copy(src.get(), dst.get(), kReferenceBytes, blocks, stream);
      };
      BWGEMM_BENCH_CUDA(cudaMemsetAsync(dst.get(), 0xFF, dst.bytes(), ctx.stream));
      launch(0, ctx.stream);
      if (device_xor_words(dst.get(), kReferenceBytes, sink.get(), blocks, ctx.stream) !=
          device_xor_words(src.get(), kReferenceBytes, sink.get(), blocks, ctx.stream)) {
        throw BenchError("copy-bandwidth kernel: the copy's XOR differs from the source's");
      }
    }

    const Timing timing = time_launches(launch, /*sets=*/1, ctx);
    for (auto _ : state) state.SetIterationTime(timing.median_us * 1e-6);
    const double bytes_moved = static_cast<double>(buffers) * static_cast<double>(kReferenceBytes);
    const double gbps = bytes_moved / (timing.median_us * 1e-6) * 1e-9;
    state.counters["us"] = timing.median_us;
    state.counters["GB/s"] = gbps;
    state.counters["bytes"] = bytes_moved;
    char l2_multiple[16];
    std::snprintf(l2_multiple, sizeof(l2_multiple), "%.0f",
                  static_cast<double>(kReferenceBytes) /
                      static_cast<double>(std::max<int64_t>(ctx.device.l2_bytes, 1)));
    state.SetLabel("median of " + std::to_string(timing.samples) + " x " +
                   std::to_string(timing.calls_per_sample) + " calls, " +
                   (kind == ReferenceKind::kRead ? "reads" : "copies") + " 2 GiB (" + l2_multiple +
                   "x L2) per call, " + std::to_string(blocks) + " blocks" +
                   (ctx.timing.use_graphs ? ", graph" : ", stream") + "; checked");
    reference_registry().record(reference_name(kind), gbps);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// Registers the references (any GPU the benchmark's own kernels run on); call before the groups so that they
// run first.
GroupReport register_references() {
  GroupReport report;
  for (ReferenceKind kind : {ReferenceKind::kRead, ReferenceKind::kCopy}) {
    const std::string name = std::string("reference/") + reference_name(kind) + "/" + kReferenceSize;
    benchmark::RegisterBenchmark(name.c_str(),
                                 [kind](benchmark::State& state) { run_reference(state, kind); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
    ++report.registered;
  }
  return report;
}

// The shape's problem, shared with the other benchmarks of that shape (ProblemCache).
template <class Problem>
std::shared_ptr<const Problem> shape_problem(const std::string& problem_key,
                                             const typename Problem::Shape& shape) {
  return problem_cache().get<Problem>(problem_key,
                                      [&] { return std::make_shared<const Problem>(shape, context()); });
}

// Validate before timing: a wrong result must not become a speedup. One call on operand set 0, whose output
// was poisoned first, checked against the host reference.
template <class Problem>
CheckResult validate(const Problem& problem, const Implementation<Problem>& impl, const Launch& launch) {
  Context& ctx = context();
  problem.poison_output(ctx.stream);
  launch(0, ctx.stream);
  return problem.check_output(impl.intermediate_unit_roundoff, ctx.stream);
}

// The counters every timed problem benchmark reports from its median time per call.
template <class Problem>
void rate_counters(benchmark::State& state, const Problem& problem, double median_us) {
  const double seconds = median_us * 1e-6;
  state.counters["us"] = median_us;
  state.counters["TFLOP/s"] = problem.flops() / seconds * 1e-12;
  const double gbps = problem.min_bytes() / seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  // Absent when no read reference has completed in this process (see the references above).
  const double read_reference_gbps = reference_registry().gbps(reference_name(ReferenceKind::kRead));
  if (read_reference_gbps > 0) state.counters["read_bw_frac"] = gbps / read_reference_gbps;
}

std::string two_decimals(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  return text;
}

template <class Problem>
void run_benchmark(benchmark::State& state, const Implementation<Problem>& impl,
                   const typename Problem::Shape& shape) {
  Context& ctx = context();
  const std::string problem_key = std::string(Problem::kGroup) + "/" + shape.key();
  try {
    const std::shared_ptr<const Problem> problem = shape_problem<Problem>(problem_key, shape);
    const Launch launch = impl.prepare(*problem);
    const CheckResult check = validate(*problem, impl, launch);
    if (impl.expect_invalid) {  // a negative control: passes when validation rejects it
      if (check.ok) {
        state.SkipWithError("negative control passed validation: the output check is too weak to catch it");
        return;
      }
      for (auto _ : state) state.SetIterationTime(0);
      state.counters["rejected"] = 1;
      state.SetLabel("rejected as expected: " + check.message);
      return;
    }
    if (!check.ok) {
      state.SkipWithError(check.message.c_str());
      return;
    }

    const Timing timing = time_launches(launch, problem->sets(), ctx);
    for (auto _ : state) state.SetIterationTime(timing.median_us * 1e-6);

    rate_counters(state, *problem, timing.median_us);
    state.counters["baseline"] = impl.is_baseline ? 1 : 0;
    double best_baseline_us = 0;
    for (const auto& [name, us] : baseline_registry().baselines(problem_key)) {
      if (name == impl.name) continue;
      state.counters["vs_" + name] = us / timing.median_us;
      if (best_baseline_us == 0 || us < best_baseline_us) best_baseline_us = us;
    }
    if (best_baseline_us > 0) state.counters["vs_best_baseline"] = best_baseline_us / timing.median_us;
    state.SetLabel("median of " + std::to_string(timing.samples) + " x " +
                   std::to_string(timing.calls_per_sample) + " calls, " + std::to_string(timing.sets) +
                   " operand sets" + (ctx.timing.use_graphs ? ", graph" : ", stream") +
                   "; validated, worst error " + two_decimals(check.worst_fraction) + " of bound");
    if (impl.is_baseline) baseline_registry().record(problem_key, impl.name, timing.median_us);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// --- paired mode (--bwgemm_paired=1; paired.hpp) --------------------------------------------------
//
// <group>/paired_<impl>/<shape>: the implementation and the shape's baselines validated as run_benchmark
// validates, then timed in alternating rounds (time_interleaved) so that they share the GPU's clock drift.
constexpr const char* kPairedPrefix = "paired_";

template <class Problem>
void run_paired(benchmark::State& state, const Implementation<Problem>& impl,
                const std::vector<Implementation<Problem>>& baselines, const typename Problem::Shape& shape) {
  Context& ctx = context();
  const std::string problem_key = std::string(Problem::kGroup) + "/" + shape.key();
  try {
    const std::shared_ptr<const Problem> problem = shape_problem<Problem>(problem_key, shape);
    // Side 0 is the implementation, sides 1.. the baselines (paired_stats' order).
    std::vector<const Implementation<Problem>*> sides{&impl};
    for (const auto& baseline : baselines) sides.push_back(&baseline);
    std::vector<Launch> launches;
    double worst = 0;
    for (const Implementation<Problem>* side : sides) {
      launches.push_back(side->prepare(*problem));
      const CheckResult check = validate(*problem, *side, launches.back());
      if (!check.ok) {
        state.SkipWithError((side->name + ": " + check.message).c_str());
        return;
      }
      worst = std::max(worst, check.worst_fraction);
    }

    const int rounds = paired_rounds(ctx.timing.samples);
    const InterleavedTiming timing = time_interleaved(launches, problem->sets(), rounds, ctx);
    const std::vector<std::vector<double>> baseline_us(timing.per_call_us.begin() + 1,
                                                       timing.per_call_us.end());
    const PairedStats stats = paired_stats(timing.per_call_us[0], baseline_us);
    for (auto _ : state) state.SetIterationTime(stats.us * 1e-6);

    rate_counters(state, *problem, stats.us);
    state.counters["baseline_us"] = stats.baseline_us;
    state.counters["ratio"] = stats.ratio;
    state.counters["ratio_of_medians"] = stats.ratio_of_medians;
    state.counters["ratio_min"] = stats.ratio_min;
    state.counters["ratio_max"] = stats.ratio_max;
    for (size_t b = 0; b < baselines.size(); ++b)
      state.counters["vs_" + baselines[b].name] = stats.baseline_medians[b] / stats.us;
    state.SetLabel("paired with " + baselines[static_cast<size_t>(stats.best_baseline)].name +
                   " (fastest of " + std::to_string(baselines.size()) + " baseline" +
                   (baselines.size() == 1 ? "" : "s") + "), " + std::to_string(rounds) +
                   " alternating rounds x " + std::to_string(timing.calls_per_sample[0]) + " calls, " +
                   std::to_string(timing.sets) + " operand sets" +
                   (ctx.timing.use_graphs ? ", graph" : ", stream") + "; validated, worst error " +
                   two_decimals(worst) + " of bound");
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// After a shape's own benchmarks (so they share its problem): one paired benchmark per runnable candidate
// (not a baseline, not a negative control) with every runnable baseline of the shape. Without a baseline that
// runs here nothing is registered; the [skip] lines already say why each side cannot run.
template <class Problem>
void register_paired(const std::vector<Implementation<Problem>>& impls, const std::vector<bool>& runnable,
                     const typename Problem::Shape& shape, GroupReport* report) {
  auto usable = [&](size_t i) { return runnable[i] && (!impls[i].supports || impls[i].supports(shape)); };
  std::vector<Implementation<Problem>> baselines;
  for (size_t i = 0; i < impls.size(); ++i)
    if (impls[i].is_baseline && usable(i)) baselines.push_back(impls[i]);
  if (baselines.empty()) return;
  for (size_t i = 0; i < impls.size(); ++i) {
    const Implementation<Problem>& impl = impls[i];
    if (impl.is_baseline || impl.expect_invalid || !usable(i)) continue;
    const std::string name =
        std::string(Problem::kGroup) + "/" + kPairedPrefix + impl.name + "/" + shape.key();
    benchmark::RegisterBenchmark(name.c_str(),
                                 [impl, baselines, shape](benchmark::State& state) {
                                   run_paired<Problem>(state, impl, baselines, shape);
                                 })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
    ++report->registered;
  }
}

// --- host cost (--bwgemm_host_cost=1) -----------------------------------------------------------
//
// <group>/host_<impl>/<shape>: the CPU time of one call as a program makes it (the entry point's argument
// checks, its kernel choice and the kernel's launch on the stream, no graph), and for the default entry
// points of the 16-bit groups the kernel-choice lookup they make for that shape (docs/tuning.md, "Cost"): the
// lookup's share of the call's host time. Calls are issued in batches of kHostBatch on the stream, timed on
// the host clock; the stream is drained between batches (untimed), so the launch queue never fills.
constexpr const char* kHostPrefix = "host_";
constexpr int kHostBatch = 64;
constexpr int kLookupsPerSample = 20000;

tuning::Key host_cost_key(const GemmShape& shape, tuning::Element element) {
  return tuning::Key{
      tuning::Operation::kGemm, element, element, shape.b_layout, shape.m, shape.n, shape.k, 1};
}
tuning::Key host_cost_key(const DualShape& shape, tuning::Element element) {
  return tuning::Key{
      tuning::Operation::kDualGemm, element, element, BLayout::kColumnMajorKxN, shape.m, shape.n, shape.k, 1};
}
template <class Problem>
constexpr tuning::Element kKeyElement =
    std::is_same_v<Problem, GemmFp16Problem> ? tuning::Element::kFp16 : tuning::Element::kBf16;
template <class Problem>
constexpr bool kHasTuningKey =
    std::is_same_v<Problem, GemmFp16Problem> || std::is_same_v<Problem, GemmBf16Problem> ||
    std::is_same_v<Problem, DualBf16Problem>;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Nanoseconds per kernel-choice lookup as the default entry points make it (the current device's description,
// then Registry::choose with the key; a trivial rules function), median of the samples; *source says which
// source answered (0 installed table, 1 built-in table, 2 rules). Negative where the device cannot be
// described.
double lookup_ns(const tuning::Key& key, int samples, int* source) {
  using Clock = std::chrono::steady_clock;
  const auto rules = [] {
    tuning::Choice c;
    c.config = 0;
    return c;
  };
  const tuning::DeviceDescription* device = nullptr;
  if (!host::current_device_description(&device)) return -1;
  *source = static_cast<int>(tuning::Registry::global().choose(key, *device, rules).source);
  std::vector<double> ns;
  for (int s = 0; s < samples; ++s) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kLookupsPerSample; ++i) {
      const tuning::DeviceDescription* d = nullptr;
      host::current_device_description(&d);
      tuning::Choice c = tuning::Registry::global().choose(key, *d, rules);
      benchmark::DoNotOptimize(c);
    }
    ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / kLookupsPerSample);
  }
  return median_of(ns);
}

template <class Problem>
void run_host_cost(benchmark::State& state, const Implementation<Problem>& impl,
                   const typename Problem::Shape& shape) {
  using Clock = std::chrono::steady_clock;
  Context& ctx = context();
  const std::string problem_key = std::string(Problem::kGroup) + "/" + shape.key();
  try {
    const std::shared_ptr<const Problem> problem = shape_problem<Problem>(problem_key, shape);
    const Launch launch = impl.prepare(*problem);
    const CheckResult check = validate(*problem, impl, launch);
    if (!check.ok) {
      state.SkipWithError(check.message.c_str());
      return;
    }
    const int sets = problem->sets();
    for (int i = 0; i < 4 * kHostBatch; ++i) launch(i % sets, ctx.stream);  // warm-up: first-call costs
    BWGEMM_BENCH_CUDA(cudaStreamSynchronize(ctx.stream));
    std::vector<double> us;
    for (int s = 0; s < ctx.timing.samples; ++s) {
      const auto t0 = Clock::now();
      for (int i = 0; i < kHostBatch; ++i) launch(i % sets, ctx.stream);
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / kHostBatch);
      BWGEMM_BENCH_CUDA(cudaStreamSynchronize(ctx.stream));
    }
    const double call_us = median_of(us);
    for (auto _ : state) state.SetIterationTime(call_us * 1e-6);
    state.counters["host_us"] = call_us;
    std::string label = "host time per call, median of " + std::to_string(ctx.timing.samples) +
                        " batches of " + std::to_string(kHostBatch) + " stream launches";
    if constexpr (kHasTuningKey<Problem>) {
      // The default entry points: bwgemm::gemm / dual_gemm ("bwgemm", sm_100a) and sm90::gemm / dual_gemm
      // ("bwgemm_sm90"), which make this lookup.
      if (impl.name == "bwgemm" || impl.name == "bwgemm_sm90") {
        int source = -1;
        const double ns = lookup_ns(host_cost_key(shape, kKeyElement<Problem>), ctx.timing.samples, &source);
        if (ns >= 0) {
          state.counters["lookup_ns"] = ns;
          state.counters["lookup_share_pct"] = 100.0 * ns * 1e-3 / call_us;
          label += std::string("; kernel-choice lookup answered by the ") + (source == 0   ? "installed table"
                                                                             : source == 1 ? "built-in table"
                                                                                           : "rules");
        }
      }
    }
    state.SetLabel(label);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

template <class Problem>
void register_host_cost(const std::vector<Implementation<Problem>>& impls, const std::vector<bool>& runnable,
                        const typename Problem::Shape& shape, GroupReport* report) {
  for (size_t i = 0; i < impls.size(); ++i) {
    const Implementation<Problem>& impl = impls[i];
    if (!runnable[i] || impl.expect_invalid || (impl.supports && !impl.supports(shape))) continue;
    const std::string name = std::string(Problem::kGroup) + "/" + kHostPrefix + impl.name + "/" + shape.key();
    benchmark::RegisterBenchmark(
        name.c_str(), [impl, shape](benchmark::State& state) { run_host_cost<Problem>(state, impl, shape); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
    ++report->registered;
  }
}

template <class Problem>
GroupReport register_group(const std::vector<Implementation<Problem>>& impls,
                           const std::vector<typename Problem::Shape>& shapes, const DeviceInfo& device,
                           bool paired, bool host_cost) {
  GroupReport report;
  std::vector<bool> runnable;
  for (const auto& impl : impls) {
    std::string why;
    runnable.push_back(device_meets(device, impl.requirement, &why));
    if (!runnable.back()) report.skipped.push_back(impl.name + ": " + why);
  }
  for (const auto& shape : shapes) {
    for (size_t i = 0; i < impls.size(); ++i) {
      const Implementation<Problem>& impl = impls[i];
      if (!runnable[i] || (impl.supports && !impl.supports(shape))) continue;
      const std::string name = std::string(Problem::kGroup) + "/" + impl.name + "/" + shape.key();
      benchmark::RegisterBenchmark(
          name.c_str(),
          [impl, shape](benchmark::State& state) { run_benchmark<Problem>(state, impl, shape); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
      ++report.registered;
    }
    if (paired) register_paired(impls, runnable, shape, &report);
    if (host_cost) register_host_cost(impls, runnable, shape, &report);
  }
  return report;
}

template <class Problem>
int count_candidates(const std::vector<Implementation<Problem>>& impls) {
  int count = 0;
  for (const auto& impl : impls) count += impl.is_baseline || impl.expect_invalid ? 0 : 1;
  return count;
}

void print_group(const char* group, const GroupReport& report) {
  if (report.registered > 0) std::printf("  [run ] %-11s %d benchmarks\n", group, report.registered);
  for (const auto& why : report.skipped) std::printf("  [skip] %-11s %s\n", group, why.c_str());
}

// --- command line -----------------------------------------------------------------------------

const char* const kUsage =
    "bwgemm_bench flags (besides Google Benchmark's --benchmark_*):\n"
    "  --bwgemm_samples=N         timed samples per benchmark, the median is reported (default 50)\n"
    "  --bwgemm_min_sample_ms=X   minimum GPU time of one sample of back-to-back calls (default 1)\n"
    "  --bwgemm_warmup_ms=X       untimed warm-up per benchmark (default 30)\n"
    "  --bwgemm_graphs=0|1        replay each sample as a CUDA graph (default 1) or enqueue on a stream\n"
    "  --bwgemm_device=N          CUDA device ordinal (default 0)\n"
    "  --bwgemm_negative_controls=0|1  also register deliberately wrong baselines that validation must\n"
    "                             reject (shows the checks work on this device; default 0)\n"
    "  --bwgemm_shapes=MxNxK[,MxNxK...] | @FILE\n"
    "                             run these shapes in every group instead of the defaults (a file: one\n"
    "                             MxNxK or 'M N K' per line, '#' comments); GEMM in both B layouts\n"
    "  --bwgemm_sweep=models      M = 1, 2, 4, ..., 16384 on the qkv, o, gate/up and down projections of\n"
    "                             Llama-3.1-8B, Qwen2.5-32B and Llama-3.1-70B (bench/shapes.cpp)\n"
    "  --bwgemm_sweep=moe         the mixture-of-experts groups only (moe_fc1_*, moe_fc2_*,\n"
    "                             moe_layer_nvfp4): the MoE layers of DeepSeek-V3 (also with 32\n"
    "                             local experts), Qwen3-30B-A3B, gpt-oss-120b and Llama 4 Maverick\n"
    "                             at 1 to 16384 tokens, uniform and Zipf routing, offsets and masked\n"
    "                             (bench/moe_shapes.cpp). Without it the MoE groups run a few default\n"
    "                             shapes; --bwgemm_shapes and --bwgemm_sweep=models leave them out\n"
    "  --bwgemm_paired=0|1        also register <group>/paired_<impl>/<shape> for every bwgemm kernel: it "
    "and\n"
    "                             the shape's baselines timed in alternating rounds (ABAB.., order reversed\n"
    "                             every round, --bwgemm_samples rounded up to even), so GPU clock drift\n"
    "                             cancels; counters us, baseline_us (fastest baseline), ratio (median of\n"
    "                             per-round baseline/impl), ratio_of_medians. Select them with\n"
    "                             --benchmark_filter=paired_; summarize with bench/paired_table.py (default "
    "0)\n"
    "  --bwgemm_host_cost=0|1     also register <group>/host_<impl>/<shape> for every implementation: the "
    "CPU\n"
    "                             time of one call (argument checks, kernel choice, launch on the stream),\n"
    "                             median of --bwgemm_samples batches; for bwgemm's default 16-bit entry\n"
    "                             points also the kernel-choice lookup's time and share of it (counters\n"
    "                             host_us, lookup_ns, lookup_share_pct; default 0)\n";

bool parse_number(const char* arg, const char* flag, double* value) {
  const size_t len = std::strlen(flag);
  if (std::strncmp(arg, flag, len) != 0 || arg[len] != '=') return false;
  char* end = nullptr;
  *value = std::strtod(arg + len + 1, &end);
  if (end == arg + len + 1 || *end != '\0') {
    std::fprintf(stderr, "bwgemm_bench: %s needs a number, got '%s'\n", flag, arg + len + 1);
    std::exit(EXIT_FAILURE);
  }
  return true;
}

struct Options {
  int device = 0;
  bool negative_controls = false;
  bool paired = false;
  bool host_cost = false;
  ShapeSets shapes = default_shapes();
  std::vector<MoeShape> moe = default_moe_shapes();  // the mixture-of-experts groups' (layer) shapes
};

int parse_flags(int argc, char** argv, TimingConfig* timing, Options* options) {
  for (int i = 1; i < argc; ++i) {
    double v = 0;
    if (parse_number(argv[i], "--bwgemm_samples", &v) && v >= 1) {
      timing->samples = static_cast<int>(v);
    } else if (parse_number(argv[i], "--bwgemm_min_sample_ms", &v) && v > 0) {
      timing->min_sample_seconds = v * 1e-3;
    } else if (parse_number(argv[i], "--bwgemm_warmup_ms", &v) && v >= 0) {
      timing->warmup_seconds = v * 1e-3;
    } else if (parse_number(argv[i], "--bwgemm_graphs", &v) && (v == 0 || v == 1)) {
      timing->use_graphs = v == 1;
    } else if (parse_number(argv[i], "--bwgemm_device", &v) && v >= 0) {
      options->device = static_cast<int>(v);
    } else if (parse_number(argv[i], "--bwgemm_negative_controls", &v) && (v == 0 || v == 1)) {
      options->negative_controls = v == 1;
    } else if (parse_number(argv[i], "--bwgemm_paired", &v) && (v == 0 || v == 1)) {
      options->paired = v == 1;
    } else if (parse_number(argv[i], "--bwgemm_host_cost", &v) && (v == 0 || v == 1)) {
      options->host_cost = v == 1;
    } else if (std::strncmp(argv[i], "--bwgemm_shapes=", 16) == 0) {
      std::string error;
      if (!parse_shapes(argv[i] + 16, &options->shapes, &error)) {
        std::fprintf(stderr, "bwgemm_bench: --bwgemm_shapes: %s\n", error.c_str());
        return EXIT_FAILURE;
      }
      options->moe.clear();
    } else if (std::strcmp(argv[i], "--bwgemm_sweep=models") == 0) {
      options->shapes = model_sweep();
      options->moe.clear();
    } else if (std::strcmp(argv[i], "--bwgemm_sweep=moe") == 0) {
      options->shapes = ShapeSets{};
      options->moe = moe_sweep();
    } else {
      std::fprintf(stderr, "bwgemm_bench: unrecognized or out-of-range argument '%s'\n%s", argv[i], kUsage);
      return EXIT_FAILURE;
    }
  }
  return EXIT_SUCCESS;
}

}  // namespace
}  // namespace bwgemm::bench

int main(int argc, char** argv) {
  using namespace bwgemm::bench;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) std::printf("%s\n", kUsage);
  benchmark::Initialize(&argc, argv);  // consumes --benchmark_* flags (and handles --help)
  Context& ctx = context();
  Options options;
  if (parse_flags(argc, argv, &ctx.timing, &options) != EXIT_SUCCESS) return EXIT_FAILURE;
  const int ordinal = options.device;

  int device_count = 0;
  const cudaError_t count_status = cudaGetDeviceCount(&device_count);
  if (count_status != cudaSuccess || device_count == 0) {
    std::printf("no CUDA device: bwgemm_bench measures on a GPU; nothing to run (%s)\n",
                count_status != cudaSuccess ? cudaGetErrorString(count_status) : "0 devices");
    return EXIT_SUCCESS;
  }
  if (ordinal >= device_count) {
    std::fprintf(stderr, "bwgemm_bench: --bwgemm_device=%d but only %d CUDA device(s)\n", ordinal,
                 device_count);
    return EXIT_FAILURE;
  }

  DeviceInfo& dev = ctx.device;
  try {
    open_device_info(ordinal, &dev, &ctx.stream);
    BWGEMM_BENCH_CUBLAS(cublasLtCreate(&ctx.lt));
  } catch (const BenchError& e) {
    std::fprintf(stderr, "bwgemm_bench: cannot set up device %d: %s\n", ordinal, e.what());
    return EXIT_FAILURE;
  }

  int runtime_version = 0, driver_version = 0;
  cudaRuntimeGetVersion(&runtime_version);
  cudaDriverGetVersion(&driver_version);
  const std::string cc = std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor);
  std::printf("bwgemm_bench: device %d: %s, compute capability %s, %d SMs, L2 %.0f MiB, %.1f GiB free\n",
              ordinal, dev.name.c_str(), cc.c_str(), dev.sm_count, dev.l2_bytes / kMiB,
              dev.free_bytes / kMiB / 1024);
  std::printf("bwgemm_bench: CUDA runtime %d, driver %d, cuBLASLt %zu\n", runtime_version, driver_version,
              cublasLtGetVersion());
  std::printf(
      "bwgemm_bench: median of %d samples, each >= %.2f ms of back-to-back calls (%s) rotating over operand "
      "sets "
      "> %.0fx L2; %.0f ms warm-up\n",
      ctx.timing.samples, ctx.timing.min_sample_seconds * 1e3,
      ctx.timing.use_graphs ? "CUDA graph" : "stream", kL2RotationFactor, ctx.timing.warmup_seconds * 1e3);
  benchmark::AddCustomContext("bwgemm_device", dev.name);
  benchmark::AddCustomContext("bwgemm_compute_capability", cc);
  benchmark::AddCustomContext("bwgemm_cublaslt_version", std::to_string(cublasLtGetVersion()));
  if (options.paired) {
    std::printf(
        "bwgemm_bench: paired mode: each bwgemm kernel also timed against the baselines in %d alternating "
        "rounds (<group>/paired_<impl>/<shape>)\n",
        paired_rounds(ctx.timing.samples));
    benchmark::AddCustomContext("bwgemm_paired", std::to_string(paired_rounds(ctx.timing.samples)) +
                                                     " alternating rounds per paired benchmark");
  }
  benchmark::AddCustomContext("bwgemm_timing", "median of " + std::to_string(ctx.timing.samples) +
                                                   " samples; L2-cold by rotating operand sets > 3x L2");

  std::string why;
  if (dev.cc_major < 8) {
    std::printf("bwgemm_bench: compute capability %s is older than 8.0: nothing to run\n", cc.c_str());
    return EXIT_SUCCESS;
  }
  if (!bench_kernels_loadable(&why)) {
    std::fprintf(
        stderr,
        "bwgemm_bench: this binary has no code for compute capability %s (%s); it was built for CUDA "
        "architectures %s: add it to CMAKE_CUDA_ARCHITECTURES or BWGEMM_BENCH_EXTRA_CUDA_ARCHITECTURES\n",
        cc.c_str(), why.c_str(), BWGEMM_BENCH_CUDA_ARCHITECTURES);
    return EXIT_FAILURE;
  }

  ImplementationTable table;
  add_baselines(table);
  add_bwgemm_candidates(table);
  add_bwgemm_sm90_candidates(table);
  if (options.negative_controls) add_negative_controls(table);
  const ShapeSets& shapes = options.shapes;
  print_group("reference", register_references());  // first: they run before the shapes
  print_group("dual_nvfp4",
              register_group(table.dual_nvfp4, shapes.dual_nvfp4, dev, options.paired, options.host_cost));
  print_group("gemm_nvfp4",
              register_group(table.gemm_nvfp4, shapes.gemm_nvfp4, dev, options.paired, options.host_cost));
  print_group("gemm_fp16",
              register_group(table.gemm_fp16, shapes.gemm, dev, options.paired, options.host_cost));
  print_group("gemm_bf16",
              register_group(table.gemm_bf16, shapes.gemm, dev, options.paired, options.host_cost));
  print_group("dual_bf16",
              register_group(table.dual_bf16, shapes.dual_bf16, dev, options.paired, options.host_cost));

  // The mixture-of-experts groups (bench/moe_*): bwgemm's grouped entry points first run on a tiny problem
  // here.
  MoeImplementationTable moe;
  add_moe_baselines(moe);
  if (!options.moe.empty()) add_moe_candidates(moe, dev);
  if (options.negative_controls) add_moe_negative_controls(moe);
  const std::pair<const char*, GroupReport> moe_reports[] = {
      {"moe_fc1_bf16", register_group(moe.fc1_bf16, moe_shapes_for(options.moe, MoeOp::kFc1), dev,
                                      options.paired, options.host_cost)},
      {"moe_fc2_bf16", register_group(moe.fc2_bf16, moe_shapes_for(options.moe, MoeOp::kFc2), dev,
                                      options.paired, options.host_cost)},
      {"moe_fc1_nvfp4", register_group(moe.fc1_nvfp4, moe_shapes_for(options.moe, MoeOp::kFc1), dev,
                                       options.paired, options.host_cost)},
      {"moe_fc2_nvfp4", register_group(moe.fc2_nvfp4, moe_shapes_for(options.moe, MoeOp::kFc2), dev,
                                       options.paired, options.host_cost)},
      {"moe_layer_nvfp4", register_group(moe.layer_nvfp4, moe_shapes_for(options.moe, MoeOp::kLayer), dev,
                                         options.paired, options.host_cost)}};
  for (const auto& [group, report] : moe_reports) {
    GroupReport with_probes = report;
    for (const auto& [g, why] : moe.unavailable)
      if (g == group) with_probes.skipped.push_back(why);
    if (!options.moe.empty()) print_group(group, with_probes);
  }
  const int candidates = count_candidates(table.dual_nvfp4) + count_candidates(table.gemm_nvfp4) +
                         count_candidates(table.gemm_fp16) + count_candidates(table.gemm_bf16) +
                         count_candidates(table.dual_bf16) + count_candidates(moe.fc1_bf16) +
                         count_candidates(moe.fc2_bf16) + count_candidates(moe.fc1_nvfp4) +
                         count_candidates(moe.fc2_nvfp4) + count_candidates(moe.layer_nvfp4);
  if (candidates == 0) {
    std::printf(
        "  [none] bwgemm kernels: none registered yet (they register in bench/candidates.cu once "
        "<bwgemm/dual_gemm.cuh> and <bwgemm/gemm.cuh> land)\n");
  }
  std::fflush(stdout);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  problem_cache().clear();  // free device memory while the CUDA runtime is still up
  cublasLtDestroy(ctx.lt);
  cudaStreamDestroy(ctx.stream);
  return EXIT_SUCCESS;
}
