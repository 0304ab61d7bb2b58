// The mixture-of-experts groups' baselines: what a framework without a grouped kernel runs.
//
//   cublaslt_loop              FC2: one cuBLASLt matmul per expert with rows (its rows of A against its
//                              weight, into its rows of D), in expert order on the stream.
//   cublaslt_loop_concat_silu  FC1: one matmul per expert with rows against [B1_e; B2_e] (2N output columns,
//                              into an intermediate [rows, 2N]), then one silu-mul kernel over every routed
//                              row. NVFP4: where N % 128 == 0 (the stacked weight's scale view; not gpt-oss).
//   cublaslt_loop_2gemm_silu   FC1: two matmuls per expert (gate, up; two intermediates [rows, N]), then the
//                              silu-mul kernel.
//   cublaslt_loop_quantize     the NVFP4 layer: FC1's loop (concatenated where I % 128 == 0) into fp16,
//                              silu-mul, bwgemm::quantize_nvfp4_grouped into NVFP4 (FC2's A, the candidates'
//                              scale placement and global scale), FC2's loop with the problem's alpha.
//   cublas_grouped,            16-bit: cuBLAS's grouped GEMM, cublasGemmGroupedBatchedEx, one call for all
//   cublas_grouped_concat_silu the experts with rows (equal rows form a group), FC1 then silu-mul. Registered
//                              as an implementation, not a baseline: it has not run on a GPU yet, and a
//                              baseline that fails skips every paired benchmark of its shape, an
//                              implementation only its own.
// Each matmul is the dense baselines' (baselines.cpp: cuBLASLt heuristic's first algorithm, fp32
// accumulation, 32 MiB workspace, the operands swapped into cuBLASLt's column-major "TN"), configured once
// per distinct row count, with the alignment of the pointers it gets (rows start mid-buffer). NVFP4:
// CUDA_R_4F_E2M1 with VEC16_UE4M3 scales, each expert's scales read where the grouped layout puts them (each
// a blocked buffer of its own), the intermediate fp16. The masked layout's silu-mul reads the device counts
// (launch_masked_silu_mul). The loops size each matmul from the host's copy of the counts, which a framework
// would have to read back from the device (the grouped kernels never do); the time of that read-back is not
// counted.
#include <cublas_v2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cublaslt.hpp"
#include "kernels.cuh"
#include "moe_registry.hpp"

namespace bwgemm::bench {
namespace {

// cuBLASLt's default alignment assumption: pointers aligned to this need no preference.
constexpr int64_t kMaxAlignment = 256;

int64_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  return v == 0 ? kMaxAlignment : std::min<int64_t>(kMaxAlignment, static_cast<int64_t>(v & (~v + 1)));
}

// cuBLASLt shape for the row-major (rows x K) x (N x K)^T product of one expert, output row stride ldd.
LtMatmulShape expert_shape(int64_t rows, int64_t n, int64_t k, int64_t ldd, cudaDataType_t ab_type,
                           cudaDataType_t d_type, bool nvfp4, int64_t alignment) {
  LtMatmulShape s;
  s.trans_a = CUBLAS_OP_T;
  s.trans_b = CUBLAS_OP_N;
  s.m = n;
  s.n = rows;
  s.k = k;
  s.ab_type = ab_type;
  s.d_type = d_type;
  s.lda = k;
  s.ldb = k;
  s.ldd = ldd;
  s.vec16_ue4m3_scales = nvfp4;
  s.min_alignment_bytes = alignment < kMaxAlignment ? alignment : 0;
  return s;
}

template <class Problem>
constexpr bool kNvfp4 = Problem::kIsNvfp4;

template <class Problem>
cudaDataType_t ab_type() {
#if BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
  if constexpr (kNvfp4<Problem>) return CUDA_R_4F_E2M1;
#endif
  return CUDA_R_16BF;
}

template <class Problem>
cudaDataType_t out_type() {
  return kNvfp4<Problem> ? CUDA_R_16F : CUDA_R_16BF;
}

template <class Problem>
DeviceRequirement loop_requirement() {
  return kNvfp4<Problem> ? DeviceRequirement::kSm10x : DeviceRequirement::kSm80OrNewer;
}

template <class Problem>
double mid_unit_roundoff() {
  return kNvfp4<Problem> ? kFp16UnitRoundoff : kBf16UnitRoundoff;
}

// The matmuls of one benchmark: one cuBLASLt configuration per distinct row count of the experts with rows.
class ExpertMatmuls {
 public:
  // base: expert_shape for 1 row; scales: any valid ones (NVFP4, for the heuristic).
  ExpertMatmuls(const LtMatmulShape& base, const std::vector<int32_t>& counts, const void* a_scales,
                const void* b_scales) {
    for (int32_t c : counts) {
      if (c <= 0 || by_rows_.count(c) != 0) continue;
      LtMatmulShape s = base;
      s.n = c;
      by_rows_[c] = std::make_unique<LtMatmul>(context().lt, s, kCublasWorkspaceBytes, a_scales, b_scales);
    }
  }
  const LtMatmul& rows(int32_t c) const { return *by_rows_.at(c); }

 private:
  std::map<int32_t, std::unique_ptr<LtMatmul>> by_rows_;
};

// The alignment every pointer a loop passes has (the least over the operand sets and experts).
template <class Problem>
int64_t loop_alignment(const Problem& p, bool b2, int64_t mid_row_bytes, const void* mid) {
  int64_t alignment = kMaxAlignment;
  const std::vector<int32_t>& counts = p.tokens().counts();
  for (int set = 0; set < p.sets(); ++set)
    for (int64_t e = 0; e < p.tokens().experts(); ++e) {
      if (counts[static_cast<size_t>(e)] <= 0) continue;
      alignment = std::min({alignment, alignment_of(p.a_of(set, e)), alignment_of(p.b1_of(set, e)),
                            alignment_of(p.out_of(set, e))});
      if (b2) alignment = std::min(alignment, alignment_of(p.b2_of(set, e)));
      if (mid != nullptr)
        alignment = std::min(
            alignment, alignment_of(static_cast<const char*>(mid) + p.tokens().first_row(e) * mid_row_bytes));
    }
  return alignment;
}

// silu(x) * y of the rows the tokens own (x, y with row stride ld_in, the output's rows; out n wide, row
// stride n).
template <class T>
void silu_mul_tokens(const MoeTokens& t, const T* x, const T* y, int64_t ld_in, T* out, int64_t n,
                     cudaStream_t stream) {
  if (t.layout() == MoeLayout::kMasked) {
    launch_masked_silu_mul(x, y, ld_in, t.max_tokens() * ld_in, out, n, t.max_tokens() * n,
                           t.device_metadata(), t.experts(), t.max_tokens(), n, stream);
  } else {
    launch_silu_mul(x, y, ld_in, out, n, t.rows(), n, stream);  // the routed rows are rows 0 .. rows - 1
  }
}

// The silu-mul after FC1's matmuls, into the problem's output.
template <class Problem, class TMid>
void silu_mul_rows(const Problem& p, const TMid* x, const TMid* y, int64_t ld_in, typename Problem::Out* out,
                   cudaStream_t stream) {
  static_assert(std::is_same_v<TMid, typename Problem::Out>, "the intermediate is in the output's type");
  silu_mul_tokens(p.tokens(), x, y, ld_in, out, p.shape().n(), stream);
}

// ------------------------------------------------------------------------------------------------
// FC2: the loop.

template <class Problem>
Implementation<Problem> fc2_loop(bool wrong_expert = false) {
  Implementation<Problem> impl;
  impl.name = wrong_expert ? "negative_control_next_expert" : "cublaslt_loop";
  impl.is_baseline = !wrong_expert;
  impl.expect_invalid = wrong_expert;
  impl.requirement = loop_requirement<Problem>();
  impl.prepare = [wrong_expert](const Problem& p) -> Launch {
#if !BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
    if constexpr (kNvfp4<Problem>) throw BenchError("the cuBLASLt NVFP4 baseline needs cuBLAS 12.8 or newer");
#endif
    const MoeShape& s = p.shape();
    struct State {
      DeviceBuffer<uint8_t> workspace{kCublasWorkspaceBytes};
      std::unique_ptr<ExpertMatmuls> matmuls;
    };
    auto state = std::make_shared<State>();
    const LtMatmulShape base = expert_shape(1, s.n(), s.k(), s.n(), ab_type<Problem>(), out_type<Problem>(),
                                            kNvfp4<Problem>, loop_alignment(p, false, 0, nullptr));
    state->matmuls = std::make_unique<ExpertMatmuls>(base, p.tokens().counts(), p.operands(0).b1_scales,
                                                     p.operands(0).a_scales);
    const int64_t experts = p.tokens().experts();
    return [state, &p, wrong_expert, experts](int set, cudaStream_t stream) {
      const std::vector<int32_t>& counts = p.tokens().counts();
      for (int64_t e = 0; e < experts; ++e) {
        const int32_t c = counts[static_cast<size_t>(e)];
        if (c <= 0) continue;
        const int64_t w = wrong_expert ? (e + 1) % experts : e;
        state->matmuls->rows(c).run(p.b1_of(set, w), p.a_of(set, e), p.out_of(set, e), state->workspace.get(),
                                    stream, kNvfp4<Problem> ? p.b1_scales_of(set, w) : nullptr,
                                    kNvfp4<Problem> ? p.a_scales_of(set, e) : nullptr);
      }
    };
  };
  return impl;
}

// ------------------------------------------------------------------------------------------------
// FC1: the loops, then silu-mul.

enum class DualLoop { kConcat, kTwoGemms };

template <class Problem>
Implementation<Problem> fc1_loop(DualLoop variant) {
  using TMid = typename Problem::Out;
  Implementation<Problem> impl;
  impl.name = variant == DualLoop::kConcat ? "cublaslt_loop_concat_silu" : "cublaslt_loop_2gemm_silu";
  impl.is_baseline = true;
  impl.requirement = loop_requirement<Problem>();
  impl.intermediate_unit_roundoff = mid_unit_roundoff<Problem>();
  // The concatenated [B1_e; B2_e] is one operand only where B2_e's scales follow B1_e's (Problem::stacked).
  if (variant == DualLoop::kConcat && kNvfp4<Problem>)
    impl.supports = [](const MoeShape& s) { return s.n() % 128 == 0; };
  impl.prepare = [variant](const Problem& p) -> Launch {
#if !BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
    if constexpr (kNvfp4<Problem>) throw BenchError("the cuBLASLt NVFP4 baseline needs cuBLAS 12.8 or newer");
#endif
    const bool concat = variant == DualLoop::kConcat;
    if (concat && !p.stacked())
      throw BenchError("cublaslt_loop_concat_silu needs the stacked [E, 2N, K] weights");
    const MoeShape& s = p.shape();
    const int64_t n = s.n(), rows = p.tokens().buffer_rows(), n_out = concat ? 2 * n : n;
    struct State {
      DeviceBuffer<uint8_t> workspace{kCublasWorkspaceBytes};
      DeviceBuffer<TMid> x, y;  // concat: x is [rows, 2N]
      std::unique_ptr<ExpertMatmuls> matmuls;
    };
    auto state = std::make_shared<State>();
    state->x = DeviceBuffer<TMid>(static_cast<size_t>(rows * n_out));
    if (!concat) state->y = DeviceBuffer<TMid>(static_cast<size_t>(rows * n));
    const int64_t mid_row_bytes = n_out * static_cast<int64_t>(sizeof(TMid));
    const LtMatmulShape base =
        expert_shape(1, n_out, s.k(), n_out, ab_type<Problem>(), out_type<Problem>(), kNvfp4<Problem>,
                     loop_alignment(p, !concat, mid_row_bytes, state->x.get()));
    state->matmuls = std::make_unique<ExpertMatmuls>(base, p.tokens().counts(), p.operands(0).b1_scales,
                                                     p.operands(0).a_scales);
    return [state, &p, concat, n, n_out](int set, cudaStream_t stream) {
      const MoeTokens& t = p.tokens();
      void* ws = state->workspace.get();
      for (int64_t e = 0; e < t.experts(); ++e) {
        const int32_t c = t.counts()[static_cast<size_t>(e)];
        if (c <= 0) continue;
        const LtMatmul& mm = state->matmuls->rows(c);
        const void* a_scales = kNvfp4<Problem> ? p.a_scales_of(set, e) : nullptr;
        const int64_t row = t.first_row(e);
        // Stacked: B1_e is the expert's whole [2N, K] operand (and its 2N-row blocked scales).
        mm.run(p.b1_of(set, e), p.a_of(set, e), state->x.get() + row * n_out, ws, stream,
               kNvfp4<Problem> ? p.b1_scales_of(set, e) : nullptr, a_scales);
        if (!concat)
          mm.run(p.b2_of(set, e), p.a_of(set, e), state->y.get() + row * n, ws, stream,
                 kNvfp4<Problem> ? p.b2_scales_of(set, e) : nullptr, a_scales);
      }
      const TMid* x = state->x.get();
      silu_mul_rows(p, x, concat ? x + n : state->y.get(), n_out, p.operands(set).out, stream);
    };
  };
  return impl;
}

// ------------------------------------------------------------------------------------------------
// The NVFP4 layer: FC1's loop into fp16 (concatenated where the weights are stacked, else two GEMMs),
// silu-mul, bwgemm's grouped quantizer into the problem's mid (global scale g), FC2's loop on mid (its alpha
// the problem's out_alpha).

Implementation<MoeLayerNvfp4Problem> layer_loop() {
  Implementation<MoeLayerNvfp4Problem> impl;
  impl.name = "cublaslt_loop_quantize";
  impl.is_baseline = true;
  // The quantizer is bwgemm's, built for sm_100a in this binary (moe_candidates.cu), as the candidates are.
  impl.requirement = DeviceRequirement::kSm100a;
  impl.intermediate_unit_roundoff = kFp16UnitRoundoff;
  impl.prepare = [](const MoeLayerNvfp4Problem& p) -> Launch {
#if !BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
    throw BenchError("the cuBLASLt NVFP4 baseline needs cuBLAS 12.8 or newer");
#else
    const MoeTokens& t = p.tokens();
    const int64_t h = p.hidden(), i = p.intermediate(), rows = t.buffer_rows();
    const bool concat = p.stacked();
    const int64_t n_out = concat ? 2 * i : i;
    struct State {
      DeviceBuffer<uint8_t> workspace{kCublasWorkspaceBytes};
      DeviceBuffer<__half> x, y, act;  // FC1's gate (and up; concat: [rows, 2I]), silu(gate) * up
      std::unique_ptr<ExpertMatmuls> fc1, fc2;
    };
    auto state = std::make_shared<State>();
    state->x = DeviceBuffer<__half>(static_cast<size_t>(rows * n_out));
    if (!concat) state->y = DeviceBuffer<__half>(static_cast<size_t>(rows * i));
    state->act = DeviceBuffer<__half>(static_cast<size_t>(rows * i));
    int64_t alignment = kMaxAlignment;
    for (int set = 0; set < p.sets(); ++set)
      for (int64_t e = 0; e < t.experts(); ++e)
        if (t.counts()[static_cast<size_t>(e)] > 0)
          alignment = std::min({alignment, alignment_of(p.a_of(set, e)), alignment_of(p.w1_of(set, e)),
                                alignment_of(p.w3_of(set, e)), alignment_of(p.w2_of(set, e)),
                                alignment_of(p.mid_of(set, e)), alignment_of(p.out_of(set, e)),
                                alignment_of(state->x.get() + t.first_row(e) * n_out)});
    state->fc1 = std::make_unique<ExpertMatmuls>(
        expert_shape(1, n_out, h, n_out, CUDA_R_4F_E2M1, CUDA_R_16F, true, alignment), t.counts(),
        p.operands(0).w1_scales, p.operands(0).a_scales);
    state->fc2 =
        std::make_unique<ExpertMatmuls>(expert_shape(1, h, i, h, CUDA_R_4F_E2M1, CUDA_R_16F, true, alignment),
                                        t.counts(), p.operands(0).w2_scales, p.operands(0).mid_scales);
    return [state, &p, concat, i, n_out](int set, cudaStream_t stream) {
      const MoeTokens& t = p.tokens();
      void* ws = state->workspace.get();
      const float g = p.mid_global_scale();
      for (int64_t e = 0; e < t.experts(); ++e) {
        const int32_t c = t.counts()[static_cast<size_t>(e)];
        if (c <= 0) continue;
        const LtMatmul& mm = state->fc1->rows(c);
        const int64_t row = t.first_row(e);
        mm.run(p.w1_of(set, e), p.a_of(set, e), state->x.get() + row * n_out, ws, stream,
               p.w1_scales_of(set, e), p.a_scales_of(set, e));
        if (!concat)
          mm.run(p.w3_of(set, e), p.a_of(set, e), state->y.get() + row * i, ws, stream,
                 p.w3_scales_of(set, e), p.a_scales_of(set, e));
      }
      const __half* x = state->x.get();
      silu_mul_tokens(t, x, concat ? x + i : state->y.get(), n_out, state->act.get(), i, stream);
      const MoeLayerOperands& o = p.operands(set);
      moe_quantize_nvfp4(state->act.get(), t.grouped(), t.experts(), i, g, o.mid, o.mid_scales, stream);
      for (int64_t e = 0; e < t.experts(); ++e) {
        const int32_t c = t.counts()[static_cast<size_t>(e)];
        if (c <= 0) continue;
        state->fc2->rows(c).run(p.w2_of(set, e), p.mid_of(set, e), p.out_of(set, e), ws, stream,
                                p.w2_scales_of(set, e), p.mid_scales_of(set, e), p.out_alpha());
      }
    };
#endif
  };
  return impl;
}

// ------------------------------------------------------------------------------------------------
// cuBLAS's grouped GEMM (16-bit).

// One handle for the process, on the benchmark's stream, with its own workspace (so that a CUDA graph can
// capture its calls). Never destroyed: the process ends with the CUDA runtime.
cublasHandle_t cublas_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw BenchError("cublasCreate failed");
    void* workspace = nullptr;
    BWGEMM_BENCH_CUDA(cudaMalloc(&workspace, kCublasWorkspaceBytes));
    BWGEMM_BENCH_CUBLAS(cublasSetWorkspace(h, workspace, kCublasWorkspaceBytes));
    return h;
  }();
  return handle;
}

// FC2 (or FC1's matmul against [B1; B2] with dual) through cublasGemmGroupedBatchedEx; groups: the experts
// with the same rows.
template <class Problem>
Implementation<Problem> cublas_grouped() {
  static_assert(!kNvfp4<Problem>, "cuBLAS's grouped GEMM has no FP4");
  constexpr bool kDual = Problem::kIsDual;
  using T = typename Problem::Out;
  Implementation<Problem> impl;
  impl.name = kDual ? "cublas_grouped_concat_silu" : "cublas_grouped";
  impl.requirement = DeviceRequirement::kSm80OrNewer;
  impl.intermediate_unit_roundoff = kDual ? kBf16UnitRoundoff : 0.0;
  impl.prepare = [](const Problem& p) -> Launch {
    const MoeShape& s = p.shape();
    const MoeTokens& t = p.tokens();
    const int n = static_cast<int>(s.n()), k = static_cast<int>(s.k()), n_out = kDual ? 2 * n : n;
    struct State {
      std::vector<cublasOperation_t> transa, transb;
      std::vector<int> m, n, k, lda, ldb, ldc, group_size;
      std::vector<float> alpha, beta;
      std::vector<DeviceBuffer<const void*>> a,
          b;  // per operand set: cuBLAS's A (our weights), B (our tokens)
      std::vector<DeviceBuffer<void*>> c;
      DeviceBuffer<T> mid;  // FC1: [rows, 2N]
    };
    auto state = std::make_shared<State>();
    if (kDual) state->mid = DeviceBuffer<T>(static_cast<size_t>(t.buffer_rows() * n_out));
    std::map<int32_t, std::vector<int64_t>> groups;  // rows -> experts
    for (int64_t e = 0; e < t.experts(); ++e)
      if (t.counts()[static_cast<size_t>(e)] > 0) groups[t.counts()[static_cast<size_t>(e)]].push_back(e);
    for (const auto& [rows, experts] : groups) {
      state->transa.push_back(CUBLAS_OP_T);
      state->transb.push_back(CUBLAS_OP_N);
      state->m.push_back(n_out);
      state->n.push_back(rows);
      state->k.push_back(k);
      state->lda.push_back(k);
      state->ldb.push_back(k);
      state->ldc.push_back(n_out);
      state->group_size.push_back(static_cast<int>(experts.size()));
      state->alpha.push_back(1.0f);
      state->beta.push_back(0.0f);
    }
    for (int set = 0; set < p.sets(); ++set) {
      std::vector<const void*> a, b;
      std::vector<void*> c;
      for (const auto& [rows, experts] : groups)
        for (int64_t e : experts) {
          a.push_back(p.b1_of(set, e));  // stacked FC1: the expert's [2N, K]
          b.push_back(p.a_of(set, e));
          c.push_back(kDual ? static_cast<void*>(state->mid.get() + t.first_row(e) * n_out)
                            : static_cast<void*>(p.out_of(set, e)));
        }
      state->a.emplace_back(a.size());
      state->b.emplace_back(b.size());
      state->c.emplace_back(c.size());
      BWGEMM_BENCH_CUDA(
          cudaMemcpy(state->a.back().get(), a.data(), a.size() * sizeof(void*), cudaMemcpyHostToDevice));
      BWGEMM_BENCH_CUDA(
          cudaMemcpy(state->b.back().get(), b.data(), b.size() * sizeof(void*), cudaMemcpyHostToDevice));
      BWGEMM_BENCH_CUDA(
          cudaMemcpy(state->c.back().get(), c.data(), c.size() * sizeof(void*), cudaMemcpyHostToDevice));
    }
    cublasHandle_t handle = cublas_handle();
    return [state, handle, &p, n, n_out](int set, cudaStream_t stream) {
      if (state->group_size.empty()) return;
      BWGEMM_BENCH_CUBLAS(cublasSetStream(handle, stream));
      const size_t i = static_cast<size_t>(set);
      BWGEMM_BENCH_CUBLAS(cublasGemmGroupedBatchedEx(
          handle, state->transa.data(), state->transb.data(), state->m.data(), state->n.data(),
          state->k.data(), state->alpha.data(), state->a[i].get(), CUDA_R_16BF, state->lda.data(),
          state->b[i].get(), CUDA_R_16BF, state->ldb.data(), state->beta.data(), state->c[i].get(),
          CUDA_R_16BF, state->ldc.data(), static_cast<int>(state->group_size.size()),
          state->group_size.data(), CUBLAS_COMPUTE_32F));
      if constexpr (kDual) {
        const T* x = state->mid.get();
        silu_mul_rows(p, x, x + n, n_out, p.operands(set).out, stream);
      }
    };
  };
  return impl;
}

}  // namespace

void add_moe_baselines(MoeImplementationTable& table) {
  table.fc1_bf16.push_back(fc1_loop<MoeFc1Bf16Problem>(DualLoop::kConcat));
  table.fc1_bf16.push_back(fc1_loop<MoeFc1Bf16Problem>(DualLoop::kTwoGemms));
  table.fc1_bf16.push_back(cublas_grouped<MoeFc1Bf16Problem>());
  table.fc2_bf16.push_back(fc2_loop<MoeFc2Bf16Problem>());
  table.fc2_bf16.push_back(cublas_grouped<MoeFc2Bf16Problem>());
  table.fc1_nvfp4.push_back(fc1_loop<MoeFc1Nvfp4Problem>(DualLoop::kConcat));
  table.fc1_nvfp4.push_back(fc1_loop<MoeFc1Nvfp4Problem>(DualLoop::kTwoGemms));
  table.fc2_nvfp4.push_back(fc2_loop<MoeFc2Nvfp4Problem>());
  table.layer_nvfp4.push_back(layer_loop());
}

void add_moe_negative_controls(MoeImplementationTable& table) {
  table.fc2_bf16.push_back(fc2_loop<MoeFc2Bf16Problem>(/*wrong_expert=*/true));
  table.fc2_nvfp4.push_back(fc2_loop<MoeFc2Nvfp4Problem>(/*wrong_expert=*/true));
}

}  // namespace bwgemm::bench
