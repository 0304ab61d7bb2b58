// bwgemm's own kernels as benchmark candidates. Compiled by nvcc for CMAKE_CUDA_ARCHITECTURES plus 90a
// (object library bwgemm_bench_candidates: bwgemm's kernels are `a`-target code, not compute_80 PTX).
//
// Registered, all DeviceRequirement::kSm100a (skipped with a message on any other device):
//   dual_nvfp4  bwgemm                bwgemm::dual_gemm_nvfp4 (the default Config choice)
//   gemm_nvfp4  bwgemm                bwgemm::gemm_nvfp4 (the default Config choice), fp16 D
//   gemm_fp16,  bwgemm                bwgemm::gemm (the default Config choice), both B layouts
//   gemm_bf16
//   dual_bf16   bwgemm                bwgemm::dual_gemm (on compute capability 10.0: sm100::dual_gemm)
// and the two sides of each default choice's swap-AB / tiled crossover (M <= 64 swap AB, not measured yet),
// whatever M:
//   dual_nvfp4, gemm_nvfp4, gemm_fp16, gemm_bf16   bwgemm_tiled, bwgemm_swapab
//   dual_bf16                                      bwgemm_sm100_tiled, bwgemm_sm100_swapab (beside the
//                                                  Hopper bwgemm_sm90_tiled / _swapab of candidates_sm90.cu)
// through sm100::{dual_gemm_nvfp4,nvfp4_gemm,gemm,dual_gemm}_{tiled,swap_ab}: no kernel is instantiated that
// the default choice does not instantiate too.
//
// How to register one (a few lines per group; the harness does the rest):
//
//   Implementation<Nvfp4DualProblem> impl;
//   impl.name = "bwgemm";                           // benchmark dual_nvfp4/bwgemm/<shape>
//   impl.requirement = DeviceRequirement::kSm100a;
//   impl.intermediate_unit_roundoff = 0.0;          // fused: fp32 accumulators feed the SiLU epilogue
//   impl.supports = [](const DualShape& s) { ... };  // optional: shapes the kernel accepts
//   impl.prepare = [](const Nvfp4DualProblem& problem) -> Launch {
//     // One-time setup here (workspace, tensor maps, ...); throw BenchError on failure.
//     return [&problem](int set, cudaStream_t stream) {
//       const Nvfp4DualOperands& o = problem.operands(set);  // a, a_scales, b1, b1_scales, b2, ..., c
//       const DualShape& shape = problem.shape();             // m, n, k
//       // Call the public entry point of <bwgemm/dual_gemm.cuh> on `stream` with these operands;
//       // turn a failed bwgemm::Status into BenchError(status.to_string()).
//     };
//   };
//   table.dual_nvfp4.push_back(impl);
//
// The same for table.gemm_fp16 / table.gemm_bf16 (GemmProblem<T>, operands a, b, d; shape m, n, k,
// b_layout), table.gemm_nvfp4 (Nvfp4GemmProblem, operands a, a_scales, b, b_scales, d; a GemmShape whose B
// is N x K) and table.dual_bf16 (DualBf16Problem). The harness
// validates each candidate against the host reference (operand set 0) before timing it, reports
// us, TFLOP/s, GB/s, and vs_<baseline> for every baseline of the same shape measured in the run.
#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/sm100/dual_gemm.cuh"
#include "bwgemm/sm100/gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "entry_point_candidates.hpp"
#include "registry.hpp"

namespace bwgemm::bench {

namespace {

// The sm_100a candidates of the 16-bit groups (bench/entry_point_candidates.hpp).
template <class T, class Run>
Implementation<GemmProblem<T>> gemm_candidate(const char* name, Run run) {
  return gemm_entry_candidate<T>(name, DeviceRequirement::kSm100a, run);
}
template <class Run>
Implementation<DualBf16Problem> dual_bf16_candidate(const char* name, Run run) {
  return dual_bf16_entry_candidate(name, DeviceRequirement::kSm100a, run);
}

template <class T>
void add_gemm(std::vector<Implementation<GemmProblem<T>>>& group) {
  using Args = bwgemm::GemmArguments<T>;
  group.push_back(
      gemm_candidate<T>("bwgemm", [](const Args& a, cudaStream_t s) { return bwgemm::gemm(a, s); }));
  group.push_back(gemm_candidate<T>("bwgemm_tiled",
                                    [](const Args& a, cudaStream_t s) { return sm100::gemm_tiled(a, s); }));
  group.push_back(gemm_candidate<T>("bwgemm_swapab",
                                    [](const Args& a, cudaStream_t s) { return sm100::gemm_swap_ab(a, s); }));
}

// bwgemm::dual_gemm_nvfp4-like `run` on Nvfp4DualProblem's operands.
template <class Run>
Implementation<Nvfp4DualProblem> dual_nvfp4_candidate(const char* name, Run run) {
  Implementation<Nvfp4DualProblem> dual;
  dual.name = name;
  dual.requirement = DeviceRequirement::kSm100a;
  dual.intermediate_unit_roundoff = 0.0;  // fused: fp32 accumulators feed the SiLU epilogue
  dual.prepare = [run](const Nvfp4DualProblem& problem) -> Launch {
    return [&problem, run](int set, cudaStream_t stream) {
      const Nvfp4DualOperands& o = problem.operands(set);
      const DualShape& s = problem.shape();
      bwgemm::Nvfp4DualGemmArguments<__half> args;
      args.m = s.m, args.n = s.n, args.k = s.k;
      args.a = {o.a, o.a_scales};
      args.b1 = {o.b1, o.b1_scales};
      args.b2 = {o.b2, o.b2_scales};
      args.c = o.c;
      const bwgemm::Status st = run(args, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  return dual;
}

using Nvfp4GemmArgs = bwgemm::Nvfp4GemmArguments<__half>;

// bwgemm::gemm_nvfp4-like `run` on Nvfp4GemmProblem's operands: D = A·Bᵀ (alpha 1, beta 0), fp16 D.
template <class Run>
Implementation<Nvfp4GemmProblem> gemm_nvfp4_candidate(const char* name, Run run) {
  Implementation<Nvfp4GemmProblem> impl;
  impl.name = name;
  impl.requirement = DeviceRequirement::kSm100a;
  impl.intermediate_unit_roundoff = 0.0;  // one rounding: fp32 accumulators to fp16
  impl.supports = [](const GemmShape& s) {
    return s.n % 16 == 0 && s.k % 64 == 0;
  };  // arguments/nvfp4_gemm.hpp
  impl.prepare = [run](const Nvfp4GemmProblem& problem) -> Launch {
    return [&problem, run](int set, cudaStream_t stream) {
      const Nvfp4GemmOperands& o = problem.operands(set);
      const GemmShape& s = problem.shape();
      Nvfp4GemmArgs args;
      args.m = s.m, args.n = s.n, args.k = s.k;
      args.a = {o.a, o.a_scales};
      args.b = {o.b, o.b_scales};
      args.d = o.d;
      const bwgemm::Status st = run(args, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  return impl;
}

}  // namespace

void add_bwgemm_candidates(ImplementationTable& table) {
  using DualNvfp4Args = bwgemm::Nvfp4DualGemmArguments<__half>;
  table.dual_nvfp4.push_back(dual_nvfp4_candidate(
      "bwgemm", [](const DualNvfp4Args& a, cudaStream_t s) { return bwgemm::dual_gemm_nvfp4(a, s); }));
  table.dual_nvfp4.push_back(dual_nvfp4_candidate("bwgemm_tiled", [](const DualNvfp4Args& a, cudaStream_t s) {
    return sm100::dual_gemm_nvfp4_tiled(a, s);
  }));
  table.dual_nvfp4.push_back(dual_nvfp4_candidate(
      "bwgemm_swapab",
      [](const DualNvfp4Args& a, cudaStream_t s) { return sm100::dual_gemm_nvfp4_swap_ab(a, s); }));

  table.gemm_nvfp4.push_back(gemm_nvfp4_candidate(
      "bwgemm", [](const Nvfp4GemmArgs& a, cudaStream_t s) { return bwgemm::gemm_nvfp4(a, s); }));
  table.gemm_nvfp4.push_back(gemm_nvfp4_candidate(
      "bwgemm_tiled", [](const Nvfp4GemmArgs& a, cudaStream_t s) { return sm100::nvfp4_gemm_tiled(a, s); }));
  table.gemm_nvfp4.push_back(gemm_nvfp4_candidate(
      "bwgemm_swapab",
      [](const Nvfp4GemmArgs& a, cudaStream_t s) { return sm100::nvfp4_gemm_swap_ab(a, s); }));

  add_gemm<__half>(table.gemm_fp16);
  add_gemm<__nv_bfloat16>(table.gemm_bf16);

  using DualArgs = bwgemm::DualGemmArguments<__nv_bfloat16>;
  table.dual_bf16.push_back(dual_bf16_candidate(
      "bwgemm", [](const DualArgs& a, cudaStream_t s) { return bwgemm::dual_gemm(a, s); }));
  table.dual_bf16.push_back(dual_bf16_candidate(
      "bwgemm_sm100_tiled", [](const DualArgs& a, cudaStream_t s) { return sm100::dual_gemm_tiled(a, s); }));
  table.dual_bf16.push_back(dual_bf16_candidate("bwgemm_sm100_swapab", [](const DualArgs& a, cudaStream_t s) {
    return sm100::dual_gemm_swap_ab(a, s);
  }));
}

}  // namespace bwgemm::bench
