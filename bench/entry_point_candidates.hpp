// Benchmark candidates that call one of bwgemm's 16-bit entry points (or an explicit Config's run) on a
// problem's operands: the adapters candidates.cu (sm_100a) and candidates_sm90.cu (sm_90a) share. `run` is
// Status(const Args&, cudaStream_t); a failed Status becomes a BenchError. Included only by nvcc-compiled
// files (the arguments' types need the CUDA headers).
#pragma once

#include <cuda_bf16.h>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "cublaslt.hpp"  // kCublasWorkspaceBytes
#include "registry.hpp"

namespace bwgemm::bench {

// The scratch memory the bwgemm GEMM and dual GEMM candidates pass (GemmArguments::workspace,
// DualGemmArguments::workspace, which only the sm_90a stream-K kernels use): as much as the cuBLASLt
// baselines get (kCublasWorkspaceBytes), zero-filled once (a call leaves the words that must be zero at
// zero), shared by the calls, which run one at a time on the benchmark's stream.
inline void* gemm_workspace() {
  static void* const workspace = [] {
    void* p = nullptr;
    if (cudaMalloc(&p, kCublasWorkspaceBytes) != cudaSuccess ||
        cudaMemset(p, 0, kCublasWorkspaceBytes) != cudaSuccess)
      throw BenchError("cannot allocate the GEMM candidates' workspace");
    return p;
  }();
  return workspace;
}

// D = A·B on GemmProblem<T>'s operands (T in and out, B as the shape says) through `run`, with
// gemm_workspace() as the workspace (none with with_workspace false).
template <class T, class Run>
Implementation<GemmProblem<T>> gemm_entry_candidate(const char* name, DeviceRequirement requirement, Run run,
                                                    bool with_workspace = true) {
  Implementation<GemmProblem<T>> impl;
  impl.name = name;
  impl.requirement = requirement;
  impl.intermediate_unit_roundoff = 0.0;  // one rounding: fp32 accumulators to T
  impl.supports = [](const GemmShape& s) {
    return s.n % 8 == 0 && s.k % 8 == 0;
  };  // any M (arguments/gemm.hpp)
  impl.prepare = [run, with_workspace](const GemmProblem<T>& problem) -> Launch {
    void* const workspace = with_workspace ? gemm_workspace() : nullptr;
    return [&problem, run, workspace](int set, cudaStream_t stream) {
      const GemmOperands<T>& o = problem.operands(set);
      const GemmShape& s = problem.shape();
      bwgemm::GemmArguments<T> args;
      args.m = s.m, args.n = s.n, args.k = s.k;
      args.a = o.a;
      args.b = o.b;
      args.b_layout = s.b_layout;  // ldb defaults to N (K x N) or K (N x K), as the problem stores B
      args.d = o.d;
      args.workspace = workspace;
      args.workspace_bytes = workspace != nullptr ? static_cast<int64_t>(kCublasWorkspaceBytes) : 0;
      const bwgemm::Status st = run(args, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  return impl;
}

// C = silu(A·B1ᵀ) · (A·B2ᵀ) on DualBf16Problem's operands through `run`, with gemm_workspace() as the
// workspace (none with with_workspace false).
template <class Run>
Implementation<DualBf16Problem> dual_bf16_entry_candidate(const char* name, DeviceRequirement requirement,
                                                          Run run, bool with_workspace = true) {
  Implementation<DualBf16Problem> dual;
  dual.name = name;
  dual.requirement = requirement;
  dual.intermediate_unit_roundoff = 0.0;  // fused: fp32 accumulators feed the SiLU epilogue
  dual.prepare = [run, with_workspace](const DualBf16Problem& problem) -> Launch {
    void* const workspace = with_workspace ? gemm_workspace() : nullptr;
    return [&problem, run, workspace](int set, cudaStream_t stream) {
      const DualBf16Operands& o = problem.operands(set);
      const DualShape& s = problem.shape();
      bwgemm::DualGemmArguments<__nv_bfloat16> args;
      args.m = s.m, args.n = s.n, args.k = s.k;
      args.a = o.a;
      args.b1 = o.b1;
      args.b2 = o.b2;
      args.c = o.c;
      // DualGemmArguments::workspace: the sm_90a swap-AB stream-K kernels take it at decode sizes.
      args.workspace = workspace;
      args.workspace_bytes = workspace != nullptr ? static_cast<int64_t>(kCublasWorkspaceBytes) : 0;
      const bwgemm::Status st = run(args, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  return dual;
}

}  // namespace bwgemm::bench
