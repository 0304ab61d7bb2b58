// bwgemm's Hopper (sm_90a) fp16/bf16 dual GEMM with a fused gated epilogue:
//
//   C[m, n, l] = silu(alpha1 · sum_k A[m,k,l] B1[n,k,l]) · (alpha2 · sum_k A[m,k,l] B2[n,k,l])
//
// The arguments are bwgemm::DualGemmArguments (arguments/dual_gemm.hpp), the same for every backend:
// A: M x K row-major (row stride lda), B1, B2: N x K row-major (the nn.Linear weight layout, row stride
// ldb), C: M x N row-major (row stride ldc); batches packed (batch strides M·lda, N·ldb, M·ldc). Inputs
// fp16 or bf16 (both the same type), C fp16 or bf16, fp32 accumulation.
//
//   bwgemm::DualGemmArguments<__nv_bfloat16> args;
//   args.m = 512; args.n = 4096; args.k = 7168;
//   args.a = a; args.b1 = w_gate; args.b2 = w_up; args.c = c;
//   bwgemm::Status s = bwgemm::sm90::dual_gemm(args, stream);        // picks a kernel from the shape
//   // or an explicit kernel:
//   using Cfg = bwgemm::sm90::DualGemmConfig<128, 4, 1, bwgemm::sched::StaticPersistent>;
//   s = bwgemm::sm90::DualGemm<Cfg>::run(args, stream);
//
// Shapes: any M, N, K >= 1 (tiles past the edges read zeros through TMA, stores are masked); lda, ldb
// multiples of 8 (TMA needs 16-byte row strides), ldc a multiple of 8. C goes out through shared memory and
// TMA stores when N % 8 == 0 (configs with TmaStore, the default for BlockN 64 and 128), from registers
// otherwise. The call validates everything first
// and launches nothing on error; it is asynchronous on `stream`, allocates nothing and does not
// synchronize. The kernels need a GPU of compute capability 9.0 (H100/H200) exactly.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/dual_gemm_params.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm90/dual_gemm_config.cuh"
#include "bwgemm/kernels/sm90/dual_gemm_kernel.cuh"
#include "bwgemm/sm90/catalogue.cuh"
#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/sm90/device_facts.cuh"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/swap_ab.cuh"
#include "bwgemm/sm90/tuning.hpp"

namespace bwgemm::sm90 {

template <class Cfg>
struct DualGemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = DualGemmArguments<In, Out, Epilogue>;
  using Params = DualGemmParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  template <class In>
  static Status can_implement(const DualGemmArguments<In, Out, Epilogue>& a) {
    return ::bwgemm::detail::can_implement_config<Cfg>(a);
  }

  template <class In>
  static Status run(const DualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::DualGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::DualGemm"); !s.ok())
      return s;
    const auto [lda, ldb, ldc] = ::bwgemm::detail::dual_gemm_strides(a);

    Params p;
    if (Status s =
            detail::operand_maps_with_tail(a.a, a.k, a.m, a.batch, lda, a.m * lda, ptx::kSw128Elements16,
                                           Cfg::kBlockM, &p.tmap_a, &p.tmap_a_tail);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b1, a.k, a.n, a.batch, ldb, a.n * ldb, ptx::kSw128Elements16,
                                       Cfg::kBRowsPerCta, &p.tmap_b1);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b2, a.k, a.n, a.batch, ldb, a.n * ldb, ptx::kSw128Elements16,
                                       Cfg::kBRowsPerCta, &p.tmap_b2);
        !s.ok())
      return s;
    p.c = a.c;
    p.ldc = ldc;
    // C through TMA stores needs 16-byte rows (the tensor map's stride) and whole 16-byte units per row
    // (N % 8 == 0); otherwise the kernel stores from registers.
    p.tma_store = Cfg::kTmaStore && a.n % 8 == 0 && p.ldc * static_cast<int64_t>(sizeof(Out)) % 16 == 0;
    if (p.tma_store) {
      if (Status s = ::bwgemm::detail::gemm_output_map(
              a.c, a.n, a.m, a.batch, p.ldc, a.m * p.ldc, Cfg::EpiBuffers::kBoxColumns,
              Cfg::EpiBuffers::kBoxRows, &p.tmap_c, Cfg::EpiBuffers::kSwizzleBytes);
          !s.ok())
        return s;
    }
    host::fill_common_dual_gemm_params(a, ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch), &p);

    return host::launch_tile_kernel<Cfg>(&dual_gemm_kernel<Cfg, In>, p, stream, a.launch);
  }
};

// ---- the default entry point
// --------------------------------------------------------------------------------- sm90::dual_gemm runs the
// plan of sm90/choice.hpp's rules (dual_gemm_plan) on the Configs of sm90/catalogue.cuh; run_dual_gemm_plan
// runs any plan.
namespace detail {
// The device's facts for a dual GEMM call: its SM count, and the resident clusters of
// DualGemmSwapAbTokens64's kernel (every Config of the choice takes one CTA per SM).
template <class In, class Out>
DeviceFacts dual_gemm_device_facts(const DualGemmArguments<In, Out>&) {
  using Cfg = DualGemmSwapAbTokens64<Out>;
  return device_facts(&swap_ab_kernel<Cfg, In, false>, Cfg::kThreads, Cfg::kSmemBytes);
}

// The workspace bytes `plan`'s stream-K launch takes for the call on the current device; 0 without stream-K,
// -1 where it cannot be planned.
template <class In, class Out>
int64_t dual_gemm_plan_workspace_bytes(const DualGemmPlan& plan, const DualGemmArguments<In, Out>& args) {
  if (!plan.stream_k) return 0;
  return visit_dual_gemm_choice<Out>(plan.choice, [&](auto entry) -> int64_t {
    using E = decltype(entry);
    using Cfg = typename E::Config;
    if constexpr (std::is_same_v<E, TiledEntry<Cfg>>) {
      return -1;
    } else if constexpr (std::is_void_v<typename E::StreamKConfig>) {
      return -1;
    } else {
      int64_t bytes = 0;
      return SwapAbDualGemm<typename E::StreamKConfig>::workspace_bytes(args, &bytes).ok() ? bytes : -1;
    }
  });
}

// The plan sm90::dual_gemm runs for the call on a device with facts `d`.
template <class In, class Out>
DualGemmPlan default_dual_gemm_plan(const DualGemmArguments<In, Out>& args, const DeviceFacts& d) {
  return plan_with_workspace(
      args,
      [&](bool has_workspace) {
        return dual_gemm_plan(args.m, args.n, args.k, args.batch, has_workspace, d);
      },
      [&](const DualGemmPlan& p) { return dual_gemm_plan_workspace_bytes(p, args); });
}
}  // namespace detail

// Runs a plan on the call (its Config from sm90/catalogue.cuh; a swap-AB pair with plan.split_k or, with
// plan.stream_k, its stream-K launch over args.workspace; a tiled pair whole) and names it with the
// diagnostic switch on. A plan the Config cannot run is refused with the Config's own message.
template <class In, class Out>
Status run_dual_gemm_plan(const DualGemmPlan& plan, const DualGemmArguments<In, Out>& args,
                          cudaStream_t stream = nullptr) {
  ::bwgemm::detail::report_choice(
      "bwgemm::sm90::dual_gemm", args.m, args.n, args.k, args.batch,
      detail::plan_text(dual_gemm_choice_name(plan.choice), plan.split_k, plan.stream_k));
  return visit_dual_gemm_choice<Out>(plan.choice, [&](auto entry) -> Status {
    using E = decltype(entry);
    using Cfg = typename E::Config;
    if constexpr (std::is_same_v<E, TiledEntry<Cfg>>) {
      if (plan.stream_k || plan.split_k != 1)
        return Status::invalid_argument(std::string("plan: ") + dual_gemm_choice_name(plan.choice) +
                                        " takes neither a split of K nor stream-K (split_k = 1)");
      return DualGemm<Cfg>::run(args, stream);
    } else {
      if (!plan.stream_k) return SwapAbDualGemm<Cfg>::run(args, stream, plan.split_k);
      if constexpr (std::is_void_v<typename E::StreamKConfig>) {
        return Status::invalid_argument(std::string("plan: ") + dual_gemm_choice_name(plan.choice) +
                                        " has no stream-K launch");
      } else {
        if (plan.split_k != 1)
          return Status::invalid_argument("plan: a stream-K plan takes split_k = 1 (got " +
                                          std::to_string(plan.split_k) + ")");
        return SwapAbDualGemm<typename E::StreamKConfig>::run_stream_k(args, stream);
      }
    }
  });
}

namespace detail {
// The plan sm90::dual_gemm runs: the tuning registry's where it has an entry that runs the call, else the
// rules' (sm90/gemm.cuh's chosen_gemm_plan for the dual GEMM).
template <class In, class Out>
DualGemmPlan chosen_dual_gemm_plan(const DualGemmArguments<In, Out>& args, const DeviceFacts& d,
                                   bool assume_workspace) {
  const auto rules = [&] {
    return assume_workspace ? dual_gemm_plan(args.m, args.n, args.k, args.batch, true, d)
                            : default_dual_gemm_plan(args, d);
  };
  const tuning::DeviceDescription* device = nullptr;
  if (!host::current_device_description(&device) || device->cc_major != 9 || device->cc_minor != 0)
    return rules();
  register_tuning_candidates();
  const int64_t workspace_bytes = assume_workspace            ? INT64_MAX
                                  : args.workspace != nullptr ? args.workspace_bytes
                                                              : 0;
  return choose_dual_gemm_plan(
      dual_gemm_call_key<In, Out>(args), *device, d, workspace_bytes, rules,
      [&](const DualGemmPlan& p) { return dual_gemm_plan_workspace_bytes(p, args); });
}
}  // namespace detail

// The sm_90a default entry point: the plan of the tuning registry or, without an entry for the call, of the
// rules (dual_gemm_plan in sm90/choice.hpp).
template <class In, class Out>
Status dual_gemm(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return run_dual_gemm_plan(detail::chosen_dual_gemm_plan(args, detail::dual_gemm_device_facts(args), false),
                            args, stream);
}

// The workspace bytes sm90::dual_gemm takes for `args` on the current device (DualGemmArguments::workspace):
// the stream-K launch's where the plan given a workspace takes it (a table's entry, or a swap-AB pair where
// swap_ab_stream_k_pays), else 0. A call with less (or none) runs the cluster split. Validates args.
template <class In, class Out>
Status dual_gemm_workspace_bytes(const DualGemmArguments<In, Out>& args, int64_t* bytes) {
  *bytes = 0;
  if (Status s = validate(args); !s.ok()) return s;
  const DualGemmPlan plan = detail::chosen_dual_gemm_plan(args, detail::dual_gemm_device_facts(args), true);
  const int64_t need = detail::dual_gemm_plan_workspace_bytes(plan, args);
  *bytes = need > 0 ? need : 0;
  return Status::success();
}

}  // namespace bwgemm::sm90
