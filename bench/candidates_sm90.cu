// bwgemm's Hopper (sm_90a) kernels as benchmark candidates. Compiled by nvcc for 90a only (object library
// bwgemm_bench_candidates_sm90), whatever CMAKE_CUDA_ARCHITECTURES says: sm_90a code must not meet the
// sm_100a or compute_80 targets of the rest of the binary. Registered with DeviceRequirement::kSm90a, so they
// run only on a GPU of compute capability 9.0 (H100/H200).
//
// Registered: the bf16 dual GEMM (bwgemm::sm90::dual_gemm, the default Config choice) in dual_bf16.
#include "bwgemm/sm90/dual_gemm.cuh"
#include "registry.hpp"

namespace bwgemm::bench {

void add_bwgemm_sm90_candidates(ImplementationTable& table) {
  Implementation<DualBf16Problem> dual;
  dual.name = "bwgemm_sm90";
  dual.requirement = DeviceRequirement::kSm90a;
  dual.intermediate_unit_roundoff = 0.0;  // fused: fp32 accumulators feed the SiLU epilogue
  dual.prepare = [](const DualBf16Problem& problem) -> Launch {
    return [&problem](int set, cudaStream_t stream) {
      const DualBf16Operands& o = problem.operands(set);
      const DualShape& s = problem.shape();
      bwgemm::sm90::DualGemmArguments<__nv_bfloat16> args;
      args.m = s.m, args.n = s.n, args.k = s.k;
      args.a = o.a;
      args.b1 = o.b1;
      args.b2 = o.b2;
      args.c = o.c;
      const bwgemm::Status st = bwgemm::sm90::dual_gemm(args, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  table.dual_bf16.push_back(dual);
}

}  // namespace bwgemm::bench
