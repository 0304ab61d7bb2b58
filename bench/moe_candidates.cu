// bwgemm's grouped (mixture-of-experts) entry points as candidates of the moe_* groups. Compiled by nvcc for
// the same architectures as candidates.cu (CMAKE_CUDA_ARCHITECTURES plus 90a): one output type per group, so
// the default entry points instantiate two Configs each (sm100::GroupedGemmTokens128 / 256 and their
// siblings; the sm_90a grouped kernels, once bwgemm::grouped_gemm and grouped_dual_gemm dispatch to them).
//
//   moe_fc1_bf16     bwgemm  bwgemm::grouped_dual_gemm<bf16, bf16, epi::SiluMul>
//   moe_fc2_bf16     bwgemm  bwgemm::grouped_gemm<bf16, bf16>
//   moe_fc1_nvfp4    bwgemm  bwgemm::grouped_dual_gemm_nvfp4<__half, epi::SiluMul>
//   moe_fc2_nvfp4    bwgemm  bwgemm::grouped_gemm_nvfp4<__half>
//   moe_layer_nvfp4  bwgemm  bwgemm::grouped_dual_gemm_nvfp4<Nvfp4Output, epi::SiluMul> (its own two
//                            Configs), then bwgemm::grouped_gemm_nvfp4<__half> on its output
// and, on compute capability 10.0, the four GEMM groups' entry points with their sm_100a Config forced (the
// default's choice by the expected tokens per expert, sm100/grouped_gemm.cuh, is not measured yet):
// bwgemm_tiles128 (128-row tiles, one CTA) and bwgemm_tiles256 (256-row tiles over a CTA pair), the kernels
// the default instantiates anyway. Also here: the layer baseline's quantizer (moe_quantize_nvfp4:
// bwgemm::quantize_nvfp4_grouped<__half>).
//
// Before registering, each entry point runs once on a tiny problem (2 experts, 16 rows) on the device: one
// that returns an error there (no backend for this GPU in this build, e.g. the 16-bit grouped operations on
// an H200 before the sm_90a grouped kernels are merged) is left out, its message printed as a [skip] line.
#include "bwgemm/grouped_gemm.cuh"
#include "bwgemm/quantize.cuh"
#include "moe_registry.hpp"

namespace bwgemm::bench {
namespace {

using Bf16 = __nv_bfloat16;

Status failed(const char* what, cudaError_t err) {
  (void)cudaGetLastError();
  return Status::driver_error(std::string(what) + ": " + cudaGetErrorString(err));
}

// ---- the probe: a tiny problem on the device ------------------------------------------------------------

constexpr int64_t kProbeExperts = 2, kProbeRows = 16, kProbeN = 128, kProbeK = 128;

struct ProbeBuffers {
  DeviceBuffer<uint8_t> a, a_scales, b1, b2, b_scales1, b_scales2, out, out_scales;
  DeviceBuffer<int32_t> offs;
  ProbeBuffers()
      : a(1 << 16),
        a_scales(1 << 16),
        b1(1 << 16),
        b2(1 << 16),
        b_scales1(1 << 14),
        b_scales2(1 << 14),
        out(1 << 16),
        out_scales(1 << 14),
        offs(kProbeExperts) {
    for (auto* b : {&a, &a_scales, &b1, &b2, &b_scales1, &b_scales2, &out, &out_scales})
      BWGEMM_BENCH_CUDA(cudaMemset(b->get(), 0, b->bytes()));
    const int32_t ends[kProbeExperts] = {kProbeRows / 2, kProbeRows};
    BWGEMM_BENCH_CUDA(cudaMemcpy(offs.get(), ends, sizeof(ends), cudaMemcpyHostToDevice));
  }
  GroupedTokens tokens() const { return contiguous_tokens(kProbeRows, offs.get()); }
};

// Runs `call` (Status(const ProbeBuffers&, cudaStream_t)) on the tiny problem and waits for it.
template <class Call>
Status probe(Call call) {
  try {
    ProbeBuffers buffers;
    const Status st = call(buffers, cudaStream_t{nullptr});
    if (!st.ok()) return st;
    if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess)
      return failed("the probe's kernel", err);
    return Status::success();
  } catch (const std::exception& e) {
    return Status::internal_error(e.what());
  }
}

template <class A>
void fill_bf16(A& args, const ProbeBuffers& p) {
  args.tokens = p.tokens();
  args.experts = kProbeExperts;
  args.n = kProbeN;
  args.k = kProbeK;
  args.a = reinterpret_cast<const Bf16*>(p.a.get());
}

template <class A>
void fill_nvfp4(A& args, const ProbeBuffers& p) {
  args.tokens = p.tokens();
  args.experts = kProbeExperts;
  args.n = kProbeN;
  args.k = kProbeK;
  args.a = {p.a.get(), p.a_scales.get()};
}

Status probe_fc1_bf16(const ProbeBuffers& p, cudaStream_t s) {
  GroupedDualGemmArguments<Bf16> args;
  fill_bf16(args, p);
  args.b1 = reinterpret_cast<const Bf16*>(p.b1.get());
  args.b2 = reinterpret_cast<const Bf16*>(p.b2.get());
  args.c = reinterpret_cast<Bf16*>(p.out.get());
  return grouped_dual_gemm(args, s);
}
Status probe_fc2_bf16(const ProbeBuffers& p, cudaStream_t s) {
  GroupedGemmArguments<Bf16> args;
  fill_bf16(args, p);
  args.b = reinterpret_cast<const Bf16*>(p.b1.get());
  args.d = reinterpret_cast<Bf16*>(p.out.get());
  return grouped_gemm(args, s);
}
Status probe_fc1_nvfp4(const ProbeBuffers& p, cudaStream_t s) {
  Nvfp4GroupedDualGemmArguments<__half> args;
  fill_nvfp4(args, p);
  args.b1 = {p.b1.get(), p.b_scales1.get()};
  args.b2 = {p.b2.get(), p.b_scales2.get()};
  args.c = reinterpret_cast<__half*>(p.out.get());
  return grouped_dual_gemm_nvfp4(args, s);
}
Status probe_fc1_nvfp4_out(const ProbeBuffers& p, cudaStream_t s) {
  Nvfp4GroupedDualGemmArguments<Nvfp4Output> args;
  fill_nvfp4(args, p);
  args.b1 = {p.b1.get(), p.b_scales1.get()};
  args.b2 = {p.b2.get(), p.b_scales2.get()};
  args.c = {p.out.get(), p.out_scales.get()};
  return grouped_dual_gemm_nvfp4(args, s);
}
Status probe_fc2_nvfp4(const ProbeBuffers& p, cudaStream_t s) {
  Nvfp4GroupedGemmArguments<__half> args;
  fill_nvfp4(args, p);
  args.b = {p.b1.get(), p.b_scales1.get()};
  args.d = reinterpret_cast<__half*>(p.out.get());
  return grouped_gemm_nvfp4(args, s);
}

// ---- the candidates -------------------------------------------------------------------------------------

// The arguments of a call on operand set `set` of a problem.
GroupedDualGemmArguments<Bf16> arguments(const MoeFc1Bf16Problem& p, int set) {
  const MoeFc1Bf16Problem::Operands& o = p.operands(set);
  GroupedDualGemmArguments<Bf16> args;
  args.tokens = p.tokens().grouped();
  args.experts = p.tokens().experts();
  args.n = p.shape().n();
  args.k = p.shape().k();
  args.a = o.a;
  args.b1 = o.b1;
  args.b2 = o.b2;
  args.b_expert_stride = p.b_expert_stride();  // the stacked [E, 2N, K]: 2N rows
  args.c = o.out;
  return args;
}

GroupedGemmArguments<Bf16> arguments(const MoeFc2Bf16Problem& p, int set) {
  const MoeFc2Bf16Problem::Operands& o = p.operands(set);
  GroupedGemmArguments<Bf16> args;
  args.tokens = p.tokens().grouped();
  args.experts = p.tokens().experts();
  args.n = p.shape().n();
  args.k = p.shape().k();
  args.a = o.a;
  args.b = o.b1;
  args.b_expert_stride = p.b_expert_stride();
  args.d = o.out;
  return args;
}

Nvfp4GroupedDualGemmArguments<__half> arguments(const MoeFc1Nvfp4Problem& p, int set) {
  const MoeFc1Nvfp4Problem::Operands& o = p.operands(set);
  Nvfp4GroupedDualGemmArguments<__half> args;
  args.tokens = p.tokens().grouped();
  args.experts = p.tokens().experts();
  args.n = p.shape().n();
  args.k = p.shape().k();
  args.a = {o.a, o.a_scales};
  args.b1 = {o.b1, o.b1_scales};
  args.b2 = {o.b2, o.b2_scales};
  args.b_data_expert_stride = p.b_expert_stride();
  args.b_scales_expert_stride = p.b_scales_expert_stride();
  args.c = o.out;
  return args;
}

Nvfp4GroupedGemmArguments<__half> arguments(const MoeFc2Nvfp4Problem& p, int set) {
  const MoeFc2Nvfp4Problem::Operands& o = p.operands(set);
  Nvfp4GroupedGemmArguments<__half> args;
  args.tokens = p.tokens().grouped();
  args.experts = p.tokens().experts();
  args.n = p.shape().n();
  args.k = p.shape().k();
  args.a = {o.a, o.a_scales};
  args.b = {o.b1, o.b1_scales};
  args.b_data_expert_stride = p.b_expert_stride();
  args.b_scales_expert_stride = p.b_scales_expert_stride();
  args.d = o.out;
  return args;
}

// The NVFP4 layer: FC1 into the problem's NVFP4 mid (global scale g), FC2 from it (alpha out_alpha).
Status run_layer(const MoeLayerNvfp4Problem& p, int set, cudaStream_t stream) {
  const MoeLayerOperands& o = p.operands(set);
  Nvfp4GroupedDualGemmArguments<Nvfp4Output> fc1;
  fc1.tokens = p.tokens().grouped();
  fc1.experts = p.tokens().experts();
  fc1.n = p.intermediate();
  fc1.k = p.hidden();
  fc1.a = {o.a, o.a_scales};
  fc1.b1 = {o.w1, o.w1_scales};
  fc1.b2 = {o.w3, o.w3_scales};
  fc1.b_data_expert_stride = p.w13_expert_stride();
  fc1.b_scales_expert_stride = p.w13_scales_expert_stride();
  fc1.c = {o.mid, o.mid_scales};
  fc1.c_global_scale = p.mid_global_scale();
  if (Status st = grouped_dual_gemm_nvfp4(fc1, stream); !st.ok()) return st;
  Nvfp4GroupedGemmArguments<__half> fc2;
  fc2.tokens = fc1.tokens;
  fc2.experts = fc1.experts;
  fc2.n = p.hidden();
  fc2.k = p.intermediate();
  fc2.a = {o.mid, o.mid_scales};
  fc2.b = {o.w2, o.w2_scales};
  fc2.b_data_expert_stride = p.w2_expert_stride();
  fc2.b_scales_expert_stride = p.w2_scales_expert_stride();
  fc2.d = o.out;
  fc2.alpha = p.out_alpha();
  return grouped_gemm_nvfp4(fc2, stream);
}

Implementation<MoeLayerNvfp4Problem> layer_candidate() {
  Implementation<MoeLayerNvfp4Problem> impl;
  impl.name = "bwgemm";
  impl.requirement = DeviceRequirement::kSm100a;
  impl.prepare = [](const MoeLayerNvfp4Problem& problem) -> Launch {
    return [&problem](int set, cudaStream_t stream) {
      const Status st = run_layer(problem, set, stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  return impl;
}

// `run` (Status(const Args&, cudaStream_t)) on a problem's operands.
template <class Problem, class Run>
Implementation<Problem> candidate(const char* name, DeviceRequirement requirement, Run run) {
  Implementation<Problem> impl;
  impl.name = name;
  impl.requirement = requirement;
  impl.intermediate_unit_roundoff = 0.0;  // fused: fp32 accumulators into the epilogue
  impl.prepare = [run](const Problem& problem) -> Launch {
    return [&problem, run](int set, cudaStream_t stream) {
      const Status st = run(arguments(problem, set), stream);
      if (!st.ok()) throw BenchError(st.to_string());
    };
  };
  return impl;
}

// Registers the entry point's candidates if its probe ran, else says why not.
template <class Problem, class Probe, class Default, class Small, class Large>
void add_group(std::vector<Implementation<Problem>>& group, MoeImplementationTable& table, const char* entry,
               DeviceRequirement requirement, bool sm100, Probe probe_call, Default run, Small small,
               Large large) {
  const Status st = probe(probe_call);
  if (!st.ok()) {
    table.unavailable.emplace_back(
        Problem::kGroup,
        std::string("bwgemm: ") + entry + " did not run on this device in this build: " + st.to_string());
    return;
  }
  group.push_back(candidate<Problem>("bwgemm", requirement, run));
  if (!sm100) return;
  group.push_back(candidate<Problem>("bwgemm_tiles128", DeviceRequirement::kSm100a, small));
  group.push_back(candidate<Problem>("bwgemm_tiles256", DeviceRequirement::kSm100a, large));
}

}  // namespace

void add_moe_candidates(MoeImplementationTable& table, const DeviceInfo& device) {
  const bool sm100 = device.cc_major == 10 && device.cc_minor == 0;
  const bool sm90 = device.cc_major == 9 && device.cc_minor == 0;
  if (!sm100 && !sm90) {
    const std::string why = "bwgemm: the grouped kernels are sm_100a and sm_90a code (this device is " +
                            std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor) + ")";
    for (const char* group :
         {"moe_fc1_bf16", "moe_fc2_bf16", "moe_fc1_nvfp4", "moe_fc2_nvfp4", "moe_layer_nvfp4"})
      table.unavailable.emplace_back(group, why);
    return;
  }
  using DualArgs = GroupedDualGemmArguments<Bf16>;
  using GemmArgs = GroupedGemmArguments<Bf16>;
  add_group(
      table.fc1_bf16, table, "bwgemm::grouped_dual_gemm", DeviceRequirement::kSm80OrNewer, sm100,
      probe_fc1_bf16, [](const DualArgs& a, cudaStream_t s) { return grouped_dual_gemm(a, s); },
      [](const DualArgs& a, cudaStream_t s) {
        return sm100::GroupedDualGemm<sm100::GroupedDualGemmTokens128<Bf16, epi::SiluMul>>::run(a, s);
      },
      [](const DualArgs& a, cudaStream_t s) {
        return sm100::GroupedDualGemm<sm100::GroupedDualGemmTokens256<Bf16, epi::SiluMul>>::run(a, s);
      });
  add_group(
      table.fc2_bf16, table, "bwgemm::grouped_gemm", DeviceRequirement::kSm80OrNewer, sm100, probe_fc2_bf16,
      [](const GemmArgs& a, cudaStream_t s) { return grouped_gemm(a, s); },
      [](const GemmArgs& a, cudaStream_t s) {
        return sm100::GroupedGemm<sm100::GroupedGemmTokens128<Bf16>>::run(a, s);
      },
      [](const GemmArgs& a, cudaStream_t s) {
        return sm100::GroupedGemm<sm100::GroupedGemmTokens256<Bf16>>::run(a, s);
      });
  if (!sm100) {
    const std::string why =
        "bwgemm: NVFP4 grouped operations need compute capability 10.0 (this device is 9.0)";
    for (const char* group : {"moe_fc1_nvfp4", "moe_fc2_nvfp4", "moe_layer_nvfp4"})
      table.unavailable.emplace_back(group, why);
    return;
  }
  using DualNvfp4Args = Nvfp4GroupedDualGemmArguments<__half>;
  using GemmNvfp4Args = Nvfp4GroupedGemmArguments<__half>;
  add_group(
      table.fc1_nvfp4, table, "bwgemm::grouped_dual_gemm_nvfp4", DeviceRequirement::kSm100a, sm100,
      probe_fc1_nvfp4, [](const DualNvfp4Args& a, cudaStream_t s) { return grouped_dual_gemm_nvfp4(a, s); },
      [](const DualNvfp4Args& a, cudaStream_t s) {
        return sm100::GroupedNvfp4DualGemm<sm100::GroupedNvfp4DualGemmTokens128<__half, epi::SiluMul>>::run(
            a, s);
      },
      [](const DualNvfp4Args& a, cudaStream_t s) {
        return sm100::GroupedNvfp4DualGemm<sm100::GroupedNvfp4DualGemmTokens256<__half, epi::SiluMul>>::run(
            a, s);
      });
  add_group(
      table.fc2_nvfp4, table, "bwgemm::grouped_gemm_nvfp4", DeviceRequirement::kSm100a, sm100,
      probe_fc2_nvfp4, [](const GemmNvfp4Args& a, cudaStream_t s) { return grouped_gemm_nvfp4(a, s); },
      [](const GemmNvfp4Args& a, cudaStream_t s) {
        return sm100::GroupedNvfp4Gemm<sm100::GroupedNvfp4GemmTokens128<__half>>::run(a, s);
      },
      [](const GemmNvfp4Args& a, cudaStream_t s) {
        return sm100::GroupedNvfp4Gemm<sm100::GroupedNvfp4GemmTokens256<__half>>::run(a, s);
      });
  // The layer: FC1 with the NVFP4 output (its own Configs), then the NVFP4 grouped GEMM probed above.
  if (const Status st = probe(probe_fc1_nvfp4_out); st.ok()) {
    table.layer_nvfp4.push_back(layer_candidate());
  } else {
    table.unavailable.emplace_back(
        MoeLayerNvfp4Problem::kGroup,
        "bwgemm: bwgemm::grouped_dual_gemm_nvfp4 (NVFP4 output) did not run on this "
        "device in this build: " +
            st.to_string());
  }
}

void moe_quantize_nvfp4(const __half* x, const GroupedTokens& tokens, int64_t experts, int64_t k, float g,
                        uint8_t* packed, uint8_t* scales, cudaStream_t stream) {
  const Status st =
      quantize_nvfp4_grouped(x, tokens, experts, k, k, g, nullptr, packed, scales, nullptr, stream);
  if (!st.ok()) throw BenchError(st.to_string());
}

}  // namespace bwgemm::bench
