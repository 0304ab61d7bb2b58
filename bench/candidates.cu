// bwgemm's own kernels as benchmark candidates. Compiled by nvcc for CMAKE_CUDA_ARCHITECTURES only
// (object library bwgemm_bench_candidates: sm_100a code must not meet the compute_80 PTX target).
//
// Registered: the NVFP4 dual GEMM (bwgemm::dual_gemm_nvfp4, the default Config choice). The GEMM family
// registers here once <bwgemm/gemm.cuh> lands (issue 6).
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
// b_layout) once <bwgemm/gemm.cuh> lands, and table.dual_bf16 for a Hopper backend. The harness
// validates each candidate against the host reference (operand set 0) before timing it, reports
// us, TFLOP/s, GB/s, and vs_<baseline> for every baseline of the same shape measured in the run.
#include "bwgemm/dual_gemm.cuh"
#include "registry.hpp"

namespace bwgemm::bench {

void add_bwgemm_candidates(ImplementationTable& table) {
  Implementation<Nvfp4DualProblem> dual;
  dual.name = "bwgemm";
  dual.requirement = DeviceRequirement::kSm100a;
  dual.intermediate_unit_roundoff = 0.0;  // fused: fp32 accumulators feed the SiLU epilogue
  dual.prepare = [](const Nvfp4DualProblem& problem) -> Launch {
    return [&problem](int set, cudaStream_t stream) {
      const Nvfp4DualOperands& o = problem.operands(set);
      const DualShape& s = problem.shape();
      bwgemm::DualGemmArguments<__half> args;
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
  // The GEMM family registers in table.gemm_fp16 / table.gemm_bf16 once <bwgemm/gemm.cuh> lands (issue 6).
}

}  // namespace bwgemm::bench
