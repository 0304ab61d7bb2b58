// The baselines bwgemm is compared with, all through cuBLASLt (heuristic's first algorithm, 32 MiB
// workspace, fp32 accumulation, alpha = 1, beta = 0). docs/performance.md defines them.
//
// Operand mapping. The problems are row-major; cuBLASLt is column-major. A row-major M x N output
// is the column-major N x M matrix C^T = B^T A^T, so each GEMM is issued with cuBLASLt m = N,
// n = M, and cuBLASLt's "A" is our B, its "B" is our A:
//   - our A (M x K row-major) is column-major K x M, ld = K: cuBLASLt B with op N, ldb = K;
//   - our B, N x K K-major ("Bnk", and every dual-GEMM weight) is column-major K x N, ld = K:
//     cuBLASLt A with op T, lda = K   ->  "TN", the only layout cuBLASLt's FP4 GEMM accepts;
//   - our B, K x N row-major ("Bkn") is column-major N x K, ld = N: cuBLASLt A with op N, lda = N;
//   - D column-major N x M with ldd = N (2N for the concatenated weight) is our row-major M x N.
// NVFP4 scales follow their operand: cuBLASLt A_SCALE = B's scales (rows = N), B_SCALE = A's
// scales (rows = M); both in the 128x4 blocked layout with rows = the non-K dimension.
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "cublaslt.hpp"
#include "kernels.cuh"
#include "registry.hpp"

namespace bwgemm::bench {
namespace {

template <class T>
constexpr cudaDataType_t cuda_type();
template <>
constexpr cudaDataType_t cuda_type<__half>() {
  return CUDA_R_16F;
}
template <>
constexpr cudaDataType_t cuda_type<__nv_bfloat16>() {
  return CUDA_R_16BF;
}

// cuBLASLt shape for a row-major (M x K) x (N x K)^T product with output row stride ldd.
LtMatmulShape tn_shape(int64_t m, int64_t n, int64_t k, int64_t ldd, cudaDataType_t ab_type,
                       cudaDataType_t d_type) {
  LtMatmulShape s;
  s.trans_a = CUBLAS_OP_T;
  s.trans_b = CUBLAS_OP_N;
  s.m = n;
  s.n = m;
  s.k = k;
  s.ab_type = ab_type;
  s.d_type = d_type;
  s.lda = k;
  s.ldb = k;
  s.ldd = ldd;
  return s;
}

// Negative controls (--bwgemm_negative_controls=1): deliberately wrong variants of the baselines
// that validation must reject, showing on the device at hand that the checks catch the failure
// modes that matter. kScaleModeUnset is the documented cuBLASLt trap: scale pointers set, scale
// mode left at its default, so each pointer is read as one fp32 scalar (reference/performance.md).
enum class Fault {
  kNone,
  kOtherSetB,          // GEMM: reads the next operand set's B
  kSwappedSiluInputs,  // dual: silu(y) * x instead of silu(x) * y
  kScaleModeUnset,     // NVFP4: CUBLASLT_MATMUL_DESC_{A,B}_SCALE_MODE not set
};

// ------------------------------------------------------------------------------------------------
// GEMM: one cuBLASLt call, D in the input type.
template <class T>
Implementation<GemmProblem<T>> gemm_baseline(Fault fault = Fault::kNone) {
  Implementation<GemmProblem<T>> impl;
  impl.name = fault == Fault::kNone ? "cublaslt" : "negative_control_other_set_b";
  impl.is_baseline = fault == Fault::kNone;
  impl.expect_invalid = fault != Fault::kNone;
  impl.requirement = DeviceRequirement::kSm80OrNewer;
  impl.prepare = [fault](const GemmProblem<T>& problem) -> Launch {
    const GemmShape& g = problem.shape();
    LtMatmulShape s = tn_shape(g.m, g.n, g.k, g.n, cuda_type<T>(), cuda_type<T>());
    if (g.b_layout == ref::BLayout::kRowMajorKxN) {
      s.trans_a = CUBLAS_OP_N;
      s.lda = g.n;
    }
    struct State {
      DeviceBuffer<uint8_t> workspace{kCublasWorkspaceBytes};
      std::unique_ptr<LtMatmul> matmul;
    };
    auto state = std::make_shared<State>();
    state->matmul = std::make_unique<LtMatmul>(context().lt, s, kCublasWorkspaceBytes);
    const int b_offset = fault == Fault::kOtherSetB ? 1 : 0;
    return [state, b_offset, &problem](int set, cudaStream_t stream) {
      const GemmOperands<T>& o = problem.operands(set);
      const T* b = problem.operands((set + b_offset) % problem.sets()).b;
      state->matmul->run(b, o.a, o.d, state->workspace.get(), stream);
    };
  };
  return impl;
}

// ------------------------------------------------------------------------------------------------
// Dual GEMM, unfused. "2gemm": D1 = A B1^T, D2 = A B2^T (two calls), then C = silu(D1) * D2.
// "concat": D12 = A [B1; B2]^T (one call, N' = 2N; D12 row i is [x(N) | y(N)]), then
// C = silu(D12[:, :N]) * D12[:, N:]. D1, D2, D12 are in the intermediate type.

enum class DualVariant { kTwoGemms, kConcatenated };

std::string dual_name(DualVariant variant, Fault fault) {
  if (fault == Fault::kSwappedSiluInputs) return "negative_control_swapped_silu_inputs";
  if (fault == Fault::kScaleModeUnset) return "negative_control_scale_mode_unset";
  return variant == DualVariant::kTwoGemms ? "cublaslt_2gemm_silu" : "cublaslt_concat_silu";
}

// Shared by the bf16 and NVFP4 dual baselines. TMid: D's element type.
template <class Problem, class TMid>
Implementation<Problem> dual_baseline(DualVariant variant, Fault fault, cudaDataType_t ab_type,
                                      cudaDataType_t mid_type, double mid_unit_roundoff,
                                      DeviceRequirement requirement, bool block_scaled) {
  Implementation<Problem> impl;
  impl.name = dual_name(variant, fault);
  impl.is_baseline = fault == Fault::kNone;
  impl.expect_invalid = fault != Fault::kNone;
  impl.requirement = requirement;
  impl.intermediate_unit_roundoff = mid_unit_roundoff;
  impl.prepare = [=](const Problem& problem) -> Launch {
    const DualShape& d = problem.shape();
    const int64_t n_out = variant == DualVariant::kTwoGemms ? d.n : 2 * d.n;
    struct State {
      DeviceBuffer<uint8_t> workspace{kCublasWorkspaceBytes};
      DeviceBuffer<TMid> d1, d2;  // kTwoGemms: M x N each; kConcatenated: d1 is M x 2N
      std::unique_ptr<LtMatmul> matmul;
    };
    auto state = std::make_shared<State>();
    state->d1 = DeviceBuffer<TMid>(static_cast<size_t>(d.m * n_out));
    if (variant == DualVariant::kTwoGemms) state->d2 = DeviceBuffer<TMid>(static_cast<size_t>(d.m * d.n));
    LtMatmulShape s = tn_shape(d.m, n_out, d.k, n_out, ab_type, mid_type);
    s.vec16_ue4m3_scales = block_scaled;
    s.omit_scale_mode_for_negative_control = fault == Fault::kScaleModeUnset;
    if constexpr (std::is_same_v<Problem, Nvfp4DualProblem>) {
      const Nvfp4DualOperands& o0 = problem.operands(0);
      state->matmul =
          std::make_unique<LtMatmul>(context().lt, s, kCublasWorkspaceBytes, o0.b12_scales, o0.a_scales);
    } else {
      state->matmul = std::make_unique<LtMatmul>(context().lt, s, kCublasWorkspaceBytes);
    }
    const bool swap = fault == Fault::kSwappedSiluInputs;
    return [state, variant, swap, d, &problem](int set, cudaStream_t stream) {
      const auto& o = problem.operands(set);
      void* ws = state->workspace.get();
      const void *b1_scales = nullptr, *b2_scales = nullptr, *b12_scales = nullptr, *a_scales = nullptr;
      if constexpr (std::is_same_v<Problem, Nvfp4DualProblem>) {
        b1_scales = o.b1_scales;
        b2_scales = o.b2_scales;
        b12_scales = o.b12_scales;
        a_scales = o.a_scales;
      }
      const TMid *x = state->d1.get(), *y = nullptr;
      int64_t ld = d.n;
      if (variant == DualVariant::kTwoGemms) {
        state->matmul->run(o.b1, o.a, state->d1.get(), ws, stream, b1_scales, a_scales);
        state->matmul->run(o.b2, o.a, state->d2.get(), ws, stream, b2_scales, a_scales);
        y = state->d2.get();
      } else {
        state->matmul->run(o.b12, o.a, state->d1.get(), ws, stream, b12_scales, a_scales);
        y = state->d1.get() + d.n;
        ld = 2 * d.n;
      }
      if (swap) std::swap(x, y);
      launch_silu_mul(x, y, ld, o.c, d.n, d.m, d.n, stream);
    };
  };
  return impl;
}

Implementation<DualBf16Problem> dual_bf16_baseline(DualVariant variant, Fault fault = Fault::kNone) {
  return dual_baseline<DualBf16Problem, __nv_bfloat16>(variant, fault, CUDA_R_16BF, CUDA_R_16BF,
                                                       kBf16UnitRoundoff, DeviceRequirement::kSm80OrNewer,
                                                       /*block_scaled=*/false);
}

// NVFP4: A and B are CUDA_R_4F_E2M1 with VEC16_UE4M3 scales; D is fp16 (cuBLASLt's FP4 GEMM also
// writes bf16 or fp32; fp16 is the cheapest that carries the precision of the fp16 output C).
Implementation<Nvfp4DualProblem> dual_nvfp4_baseline(DualVariant variant, Fault fault = Fault::kNone) {
#if BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
  return dual_baseline<Nvfp4DualProblem, __half>(variant, fault, CUDA_R_4F_E2M1, CUDA_R_16F,
                                                 kFp16UnitRoundoff, DeviceRequirement::kSm10x,
                                                 /*block_scaled=*/true);
#else
  Implementation<Nvfp4DualProblem> impl;
  impl.name = dual_name(variant, fault);
  impl.is_baseline = fault == Fault::kNone;
  impl.expect_invalid = fault != Fault::kNone;
  impl.requirement = DeviceRequirement::kSm10x;  // device_meets() reports the missing cuBLAS 12.8
  impl.prepare = [](const Nvfp4DualProblem&) -> Launch {
    throw BenchError("the cuBLASLt NVFP4 baseline needs cuBLAS 12.8 or newer at build time");
  };
  return impl;
#endif
}

// NVFP4 GEMM: one GEMM of the NVFP4 dual's "2gemm" baseline (the same block-scaled FP4 cuBLASLt
// configuration, D fp16 straight into the problem's output, no SiLU). kScaleModeUnset: its negative control.
Implementation<Nvfp4GemmProblem> gemm_nvfp4_baseline(Fault fault = Fault::kNone) {
  Implementation<Nvfp4GemmProblem> impl;
  impl.name = fault == Fault::kNone ? "cublaslt" : dual_name(DualVariant::kConcatenated, fault);
  impl.is_baseline = fault == Fault::kNone;
  impl.expect_invalid = fault != Fault::kNone;
  impl.requirement = DeviceRequirement::kSm10x;  // without cuBLAS 12.8, device_meets() says so
#if BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
  impl.prepare = [fault](const Nvfp4GemmProblem& problem) -> Launch {
    const GemmShape& g = problem.shape();
    LtMatmulShape s = tn_shape(g.m, g.n, g.k, g.n, CUDA_R_4F_E2M1, CUDA_R_16F);
    s.vec16_ue4m3_scales = true;
    s.omit_scale_mode_for_negative_control = fault == Fault::kScaleModeUnset;
    struct State {
      DeviceBuffer<uint8_t> workspace{kCublasWorkspaceBytes};
      std::unique_ptr<LtMatmul> matmul;
    };
    auto state = std::make_shared<State>();
    const Nvfp4GemmOperands& o0 = problem.operands(0);
    state->matmul =
        std::make_unique<LtMatmul>(context().lt, s, kCublasWorkspaceBytes, o0.b_scales, o0.a_scales);
    return [state, &problem](int set, cudaStream_t stream) {
      const Nvfp4GemmOperands& o = problem.operands(set);
      state->matmul->run(o.b, o.a, o.d, state->workspace.get(), stream, o.b_scales, o.a_scales);
    };
  };
#else
  impl.prepare = [](const Nvfp4GemmProblem&) -> Launch {
    throw BenchError("the cuBLASLt NVFP4 baseline needs cuBLAS 12.8 or newer at build time");
  };
#endif
  return impl;
}

}  // namespace

void add_baselines(ImplementationTable& table) {
  table.dual_nvfp4.push_back(dual_nvfp4_baseline(DualVariant::kTwoGemms));
  table.dual_nvfp4.push_back(dual_nvfp4_baseline(DualVariant::kConcatenated));
  table.gemm_nvfp4.push_back(gemm_nvfp4_baseline());
  table.gemm_fp16.push_back(gemm_baseline<__half>());
  table.gemm_bf16.push_back(gemm_baseline<__nv_bfloat16>());
  table.dual_bf16.push_back(dual_bf16_baseline(DualVariant::kTwoGemms));
  table.dual_bf16.push_back(dual_bf16_baseline(DualVariant::kConcatenated));
}

void add_negative_controls(ImplementationTable& table) {
  table.dual_nvfp4.push_back(dual_nvfp4_baseline(DualVariant::kConcatenated, Fault::kScaleModeUnset));
  table.dual_nvfp4.push_back(dual_nvfp4_baseline(DualVariant::kConcatenated, Fault::kSwappedSiluInputs));
  table.gemm_nvfp4.push_back(gemm_nvfp4_baseline(Fault::kScaleModeUnset));
  table.gemm_fp16.push_back(gemm_baseline<__half>(Fault::kOtherSetB));
  table.gemm_bf16.push_back(gemm_baseline<__nv_bfloat16>(Fault::kOtherSetB));
  table.dual_bf16.push_back(dual_bf16_baseline(DualVariant::kConcatenated, Fault::kSwappedSiluInputs));
}

}  // namespace bwgemm::bench
