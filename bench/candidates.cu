// bwgemm's own kernels as benchmark candidates. Compiled by nvcc for CMAKE_CUDA_ARCHITECTURES plus 90a
// (object library bwgemm_bench_candidates: bwgemm's kernels are `a`-target code, not compute_80 PTX).
//
// Registered: the NVFP4 dual GEMM (bwgemm::dual_gemm_nvfp4) and the FP16/BF16 GEMM (bwgemm::gemm, both B
// layouts), each through its default Config choice.
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
// b_layout), and table.dual_bf16 for a Hopper backend. The harness
// validates each candidate against the host reference (operand set 0) before timing it, reports
// us, TFLOP/s, GB/s, and vs_<baseline> for every baseline of the same shape measured in the run.
#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/gemm.cuh"
#include "registry.hpp"

namespace bwgemm::bench {

namespace {

// bwgemm::gemm on GemmProblem<T>'s operands: D = A·B, T in and out, B as the shape says.
template <class T>
Implementation<GemmProblem<T>> gemm_candidate() {
  Implementation<GemmProblem<T>> impl;
  impl.name = "bwgemm";
  impl.requirement = DeviceRequirement::kSm100a;
  impl.intermediate_unit_roundoff = 0.0;  // one rounding: fp32 accumulators to T
  impl.supports = [](const GemmShape& s) { return s.n % 8 == 0 && s.k % 8 == 0; };  // any M (arguments/gemm.hpp)
  impl.prepare = [](const GemmProblem<T>& problem) -> Launch {
    return [&problem](int set, cudaStream_t stream) {
      const GemmOperands<T>& o = problem.operands(set);
      const GemmShape& s = problem.shape();
      bwgemm::GemmArguments<T> args;
      args.m = s.m, args.n = s.n, args.k = s.k;
      args.a = o.a;
      args.b = o.b;
      args.b_layout = s.b_layout;  // ldb defaults to N (K x N) or K (N x K), as the problem stores B
      args.d = o.d;
      const bwgemm::Status st = bwgemm::gemm(args, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  return impl;
}

}  // namespace

void add_bwgemm_candidates(ImplementationTable& table) {
  Implementation<Nvfp4DualProblem> dual;
  dual.name = "bwgemm";
  dual.requirement = DeviceRequirement::kSm100a;
  dual.intermediate_unit_roundoff = 0.0;  // fused: fp32 accumulators feed the SiLU epilogue
  dual.prepare = [](const Nvfp4DualProblem& problem) -> Launch {
    return [&problem](int set, cudaStream_t stream) {
      const Nvfp4DualOperands& o = problem.operands(set);
      const DualShape& s = problem.shape();
      bwgemm::Nvfp4DualGemmArguments<__half> args;
      args.m = s.m, args.n = s.n, args.k = s.k;
      args.a = {o.a, o.a_scales};
      args.b1 = {o.b1, o.b1_scales};
      args.b2 = {o.b2, o.b2_scales};
      args.c = o.c;
      const bwgemm::Status st = bwgemm::dual_gemm_nvfp4(args, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  table.dual_nvfp4.push_back(dual);
  table.gemm_fp16.push_back(gemm_candidate<__half>());
  table.gemm_bf16.push_back(gemm_candidate<__nv_bfloat16>());
}

}  // namespace bwgemm::bench
