// What gets benchmarked: implementations of each problem group, the device each one needs, and
// the medians of the baselines measured earlier in the same run (for the vs_<baseline> ratios).
//
// A benchmark is one (group, implementation, shape). For each shape the baselines are registered
// first, so under Google Benchmark's default in-order execution every other implementation of that
// shape finds their medians in BaselineRegistry. (With --benchmark_filter excluding a baseline, or
// --benchmark_enable_random_interleaving, the ratio counters of later benchmarks may be missing.)
// With --bwgemm_paired=1 each shape also gets <group>/paired_<impl>/<shape> per candidate, which times the
// candidate and the shape's baselines itself, in alternating rounds (main.cpp run_paired, paired.hpp), and
// needs no BaselineRegistry.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "problems.hpp"
#include "timing.hpp"

namespace bwgemm::bench {

enum class DeviceRequirement {
  kSm80OrNewer,  // cuBLAS fp16/bf16 baselines
  kSm10x,        // cuBLASLt NVFP4 (block-scaled FP4 tensor cores): compute capability 10.x
  kSm100a,       // bwgemm's Blackwell kernels: exactly compute capability 10.0 (sm_100a code)
  kSm90a,        // bwgemm's Hopper kernels: exactly compute capability 9.0 (sm_90a code)
};

// Whether `device` satisfies `requirement`; if not, *why says what is missing.
bool device_meets(const DeviceInfo& device, DeviceRequirement requirement, std::string* why);

// One way to compute a problem of group Problem.
template <class Problem>
struct Implementation {
  std::string name;  // e.g. "cublaslt_concat_silu"; the benchmark is <group>/<name>/<shape key>
  bool is_baseline = false;
  // A negative control: a deliberately wrong variant that validation must reject (never timed).
  bool expect_invalid = false;
  DeviceRequirement requirement = DeviceRequirement::kSm80OrNewer;
  // Unit roundoff of GEMM results the implementation stores before its epilogue (fp16 D: 2^-11,
  // bf16 D: 2^-8); 0 for a fused kernel that keeps fp32 accumulators. Widens the validation bounds.
  double intermediate_unit_roundoff = 0.0;
  // Shapes it supports (empty: all).
  std::function<bool(const typename Problem::Shape&)> supports;
  // Called once per benchmark run with the shape's problem: builds what the implementation needs
  // (plans, workspaces) and returns the Launch that enqueues one call on a given operand set.
  // Throws BenchError on failure. The Launch may keep references into the problem.
  std::function<Launch(const Problem&)> prepare;
};

using GemmFp16Problem = GemmProblem<__half>;
using GemmBf16Problem = GemmProblem<__nv_bfloat16>;

// Implementations per group, baselines first.
struct ImplementationTable {
  std::vector<Implementation<Nvfp4DualProblem>> dual_nvfp4;
  std::vector<Implementation<Nvfp4GemmProblem>> gemm_nvfp4;
  std::vector<Implementation<GemmFp16Problem>> gemm_fp16;
  std::vector<Implementation<GemmBf16Problem>> gemm_bf16;
  std::vector<Implementation<DualBf16Problem>> dual_bf16;
};

// baselines.cpp: cuBLASLt baselines for every group.
void add_baselines(ImplementationTable& table);

// baselines.cpp: deliberately wrong variants (--bwgemm_negative_controls=1).
void add_negative_controls(ImplementationTable& table);

// candidates.cu: bwgemm's kernels through the public entry points and the sm_100a crossover sides.
void add_bwgemm_candidates(ImplementationTable& table);

// candidates_sm90.cu: bwgemm's Hopper (sm_90a) kernels.
void add_bwgemm_sm90_candidates(ImplementationTable& table);

// Medians (us per call) of the baselines measured so far, per problem key "<group>/<shape key>".
class BaselineRegistry {
 public:
  void record(const std::string& problem_key, const std::string& implementation, double median_us);
  // In measurement order; empty if none measured yet.
  std::vector<std::pair<std::string, double>> baselines(const std::string& problem_key) const;

 private:
  std::map<std::string, std::vector<std::pair<std::string, double>>> medians_;
};

BaselineRegistry& baseline_registry();

}  // namespace bwgemm::bench
