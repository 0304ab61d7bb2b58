// bwgemm's Hopper (sm_90a) FP16/BF16 GEMM, fp32 accumulation:
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[k,n,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// The arguments are bwgemm::GemmArguments (arguments/gemm.hpp), the same for every backend: A fp16 or bf16,
// M x K row-major (row stride lda); B of A's type, K x N row-major (BLayout::kRowMajorKxN, ldb >= N) or
// N x K row-major, i.e. K-major (BLayout::kColumnMajorKxN, ldb >= K); C and D M x N row-major in fp16, bf16
// or fp32 (the Config's Out); beta == 0 reads no C (which may then be null); batches at element strides (0:
// packed).
//
//   bwgemm::GemmArguments<__nv_bfloat16> args;               // In = Out = bf16
//   args.m = 4096; args.n = 5120; args.k = 4096;
//   args.a = a; args.b = b; args.b_layout = bwgemm::BLayout::kRowMajorKxN; args.d = d;
//   args.epilogue = {alpha, beta}; args.c = c;               // optional: D = alpha A B + beta C
//   bwgemm::Status s = bwgemm::sm90::gemm(args, stream);     // picks a kernel from the shape
//   // or an explicit kernel:
//   using Cfg = bwgemm::sm90::GemmConfig<256, 4, 2, bwgemm::sched::StaticPersistent,
//                                        bwgemm::epi::LinearCombination, __nv_bfloat16>;
//   s = bwgemm::sm90::Gemm<Cfg>::run(args, stream);
//   // a one-CTA Config with K split over a cluster of 4 CTAs per tile (0: the split chosen from the shape):
//   s = bwgemm::sm90::Gemm<bwgemm::sm90::GemmTile128x256<__nv_bfloat16>>::run(args, stream, /*split_k=*/4);
//
// Shapes: any M >= 1; N and K positive multiples of 8 (rows stay 16-byte aligned); tiles past M, N and K are
// masked (loads zero-filled by TMA, stores skipped). Split K (split_k 2, 4, 8: Configs with ClusterCtas = 1)
// reduces the CTAs' partials inside the cluster in rank order, with no workspace: the same bits on every
// run for a given split (kernels/sm90/split_k.cuh). Leading dimensions and batch strides keep every row
// 16-byte aligned. The call validates everything first (bwgemm::validate, then the Config's tile count) and
// launches nothing on error; it is asynchronous on `stream`, allocates nothing and does not synchronize. The
// kernels need a GPU of compute capability 9.0; bwgemm::gemm (gemm.cuh) dispatches between backends.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm90/gemm_config.cuh"
#include "bwgemm/kernels/sm90/gemm_kernel.cuh"
#include "bwgemm/sm90/catalogue.cuh"
#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/sm90/device_facts.cuh"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/split_k.cuh"
#include "bwgemm/sm90/swap_ab.cuh"
#include "bwgemm/sm90/tuning.hpp"

namespace bwgemm::sm90 {

// ---- stream-K (sched::StreamK Configs: GemmStreamK128x256) ---------------------------------------------
// The workspace of a stream-K launch whose last wave's
// tiles are split over sk_ctas CTAs (GemmArguments::workspace): a 32-bit flag per such CTA, rounded up to
// kStreamKFlagBytesAlign bytes so that the partial slots start aligned (sm90/split_k.cuh), then each one's
// slot of Cfg::kPartialBytes (128 x BlockN fp32 sums); none without a split part. Only the flags must be zero
// before a call, and a call leaves them zero.
template <class Cfg>
constexpr int64_t stream_k_workspace_bytes(int64_t sk_ctas) {
  return round_up(sk_ctas * 4, kStreamKFlagBytesAlign) + sk_ctas * int64_t{Cfg::kPartialBytes};
}
// The stream-K work of `tiles` tiles of K / BlockK K blocks on `ctas` CTAs (sm90/choice.hpp's
// stream_k_work_blocks: sched::StreamK::plan with kStreamKMinKBlocksPerCta); false where (tiles + ctas) · K
// blocks does not fit in 32 bits (the kernel's iteration numbers).
template <class Cfg>
constexpr bool stream_k_work(int64_t tiles, int64_t k, int64_t ctas, sched::StreamK::Work* w) {
  return stream_k_work_blocks(tiles, ceil_div(k, int64_t{Cfg::kBlockK}), ctas, w);
}

namespace detail {
// A stream-K launch's work for validated arguments: `requested` CTAs (0: one per resident CTA; at most the
// resident CTAs, so that every CTA of the grid runs at once: a tile's head waits for the others).
template <class Cfg, class Params>
Status stream_k_launch_work(void (*kernel)(const Params), const Params& p, int64_t requested,
                            sched::StreamK::Work* w) {
  int64_t ctas = 0, resident = 0;
  if (Status s = stream_k_grid_ctas<Cfg>(kernel, requested, &ctas, &resident); !s.ok()) return s;
  if (!stream_k_work<Cfg>(p.tiles.total(), p.k, ctas, w))
    return Status::invalid_argument("stream-K: (tiles + CTAs) x K blocks must fit in 32 bits");
  return Status::success();
}

template <class Cfg, class Params>
Status launch_stream_k(void (*kernel)(const Params), Params& p, int64_t requested_ctas, void* workspace,
                       int64_t workspace_bytes, cudaStream_t stream, const LaunchOptions& options) {
  sched::StreamK::Work w;
  if (Status s = stream_k_launch_work<Cfg>(kernel, p, requested_ctas, &w); !s.ok()) return s;
  const int64_t need = stream_k_workspace_bytes<Cfg>(w.sk_ctas);
  if (need > 0 && (workspace == nullptr || workspace_bytes < need))
    return Status::invalid_argument(
        "workspace: this stream-K launch (its last " + std::to_string(w.sk_tiles) + " tiles split " +
        std::to_string(w.sk_splits) + " ways over " + std::to_string(w.sk_ctas) + " CTAs) takes " +
        std::to_string(need) + " bytes (got " + std::to_string(workspace_bytes) +
        "; sm90::gemm_workspace_bytes says how many)");
  p.sk = w;
  p.num_clusters = w.ctas;
  p.sk_flags = static_cast<uint32_t*>(workspace);
  p.sk_partials = need > 0 ? reinterpret_cast<float*>(static_cast<char*>(workspace) +
                                                      round_up(w.sk_ctas * 4, kStreamKFlagBytesAlign))
                           : nullptr;
  const int32_t grid = sched::StreamK::grid(w);
  ::bwgemm::detail::report_choice("bwgemm::sm90 stream-K launch", p.m, p.n, p.k, p.tiles.batch,
                                  std::to_string(w.dp_tiles) + " tiles whole on " + std::to_string(w.ctas) +
                                      " CTAs, then " + std::to_string(w.sk_tiles) + " split " +
                                      std::to_string(w.sk_splits) + " ways");
  return host::launch_cluster_kernel(kernel, static_cast<uint32_t>(grid), Cfg::kThreads, 1, Cfg::kSmemBytes,
                                     stream, p, options);
}

// Fills p.splits (given, or chosen from the shape and the device) and launches: split 1 the persistent
// grid of host::launch_tile_kernel, a split tiles · split CTAs in clusters of `split` (one tile each).
template <class Cfg, class Params>
Status launch_tiled(void (*kernel)(const Params), Params& p, int split_k, cudaStream_t stream,
                    const LaunchOptions& options) {
  if (split_k == 0) {
    int64_t resident[kSplitKChoiceCount];
    if (Status s = split_k_resident_clusters(kernel, Cfg::kThreads, Cfg::kSmemBytes, true, resident); !s.ok())
      return s;
    split_k = choose_tiled_split_k(p.m, p.n, p.k, p.tiles.batch, Cfg::kBlockN, resident);
  }
  p.splits = split_k;
  if (split_k == 1) return host::launch_tile_kernel<Cfg>(kernel, p, stream, options);
  const int64_t tiles = p.tiles.total();
  ::bwgemm::detail::report_choice(
      "bwgemm::sm90 tiled launch", p.m, p.n, p.k, p.tiles.batch,
      "split_k = " + std::to_string(split_k) + " over " + std::to_string(tiles) + " tiles");
  int64_t ctas = 0;
  if (Status s = split_k_ctas(tiles, split_k, &ctas); !s.ok()) return s;
  return launch_split_k<Cfg>(kernel, p, ctas, split_k, stream, options);
}
}  // namespace detail

template <class Cfg>
struct Gemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = GemmArguments<In, Out, Epilogue>;
  using Params = GemmParams<Cfg>;

  // Host-side checks only (no device access): the GEMM's rules, this Config's tile count, then the split
  // (check_split_k's rules; a split needs a Config with Cfg::kSplitK, without which 0 chooses 1).
  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a, int split_k = 1) {
    if (Status s = ::bwgemm::detail::can_implement_config<Cfg>(a); !s.ok()) return s;
    if (Cfg::kClusterCtas != 1 && split_k != 0 && split_k != 1)
      return Status::invalid_argument(
          "split_k (" + std::to_string(split_k) + ") needs a Config with ClusterCtas = 1 (this one has " +
          std::to_string(Cfg::kClusterCtas) + ": its CTAs share B over the cluster)");
    if (Cfg::kRowBlocks != 1 && split_k != 0 && split_k != 1)
      return Status::invalid_argument("split_k (" + std::to_string(split_k) +
                                      ") needs a Config with RowBlocks = 1 (this one has " +
                                      std::to_string(Cfg::kRowBlocks) + ")");
    if (Cfg::kStreamK && split_k != 0 && split_k != 1)
      return Status::invalid_argument("split_k (" + std::to_string(split_k) +
                                      ") needs a Config without sched::StreamK (stream-K splits K itself)");
    if (Cfg::kPingPong && split_k != 0 && split_k != 1)
      return Status::invalid_argument(
          "split_k (" + std::to_string(split_k) +
          ") needs a Config without PingPong (its consumers take separate tiles)");
    if (!Cfg::kSplitK && split_k != 0 && split_k != 1)
      return Status::invalid_argument(
          "split_k (" + std::to_string(split_k) +
          ") needs a Config whose 128 x BlockN fp32 partials fit over its stages (" +
          std::to_string(Cfg::kPartialBytes) + " bytes > " + std::to_string(Cfg::kStages * Cfg::kStageBytes) +
          ")");
    return detail::check_split_k(split_k, ceil_div(a.k, int64_t{Cfg::kBlockK}));
  }

  // split_k: 1 (default) the persistent kernel; 2, 4 or 8 K split over a cluster of that many CTAs per
  // tile; 0 chosen from the shape and the device (choose_tiled_split_k; 1 for Configs without kSplitK).
  // stream_k_ctas (sched::StreamK Configs, which take a.workspace: workspace_bytes): 0 one CTA per resident
  // CTA, else that many (tuning and tests: at most the resident CTAs).
  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr, int split_k = 1,
                    int64_t stream_k_ctas = 0) {
    if (!Cfg::kSplitK && split_k == 0) split_k = 1;
    if (Status s = can_implement(a, split_k); !s.ok()) return s;
    if (!Cfg::kStreamK && stream_k_ctas != 0)
      return Status::invalid_argument("stream_k_ctas (" + std::to_string(stream_k_ctas) +
                                      ") needs a Config with sched::StreamK");
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::Gemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::Gemm"); !s.ok()) return s;

    const ::bwgemm::detail::GemmStrides st = ::bwgemm::detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    Params p;
    // A: this CTA's rows of the A tile (all kBlockM, or half with a pair along N sharing A).
    if (Status s = detail::operand_maps_with_tail(a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a,
                                                  Cfg::kBlockK, Cfg::kARowsPerCta, &p.tmap_a, &p.tmap_a_tail);
        !s.ok())
      return s;
    if (kxn) {  // (N, K, batch): one box per 64-column chunk
      if (Status s = detail::operand_map(a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                         Cfg::kBMnChunkColumns, Cfg::kBlockK, &p.tmap_b);
          !s.ok())
        return s;
    } else {  // (K, N, batch): this CTA's rows of the B tile
      if (Status s = detail::operand_map(a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                         Cfg::kBKMajorRowsPerCta, &p.tmap_b);
          !s.ok())
        return s;
    }
    if constexpr (Cfg::kTmaStore) {
      if (Status s = ::bwgemm::detail::gemm_output_map(
              a.d, a.n, a.m, a.batch, st.ldd, st.batch_stride_d, Cfg::EpiBuffers::kBoxColumns,
              Cfg::EpiBuffers::kBoxRows, &p.tmap_d, Cfg::EpiBuffers::kSwizzleBytes);
          !s.ok())
        return s;
    }
    ::bwgemm::detail::fill_common_gemm_params<Cfg>(a, st, &p);

    auto* kernel = kernel_for<In>(a.b_layout);
    if constexpr (Cfg::kStreamK) {
      return detail::launch_stream_k<Cfg>(kernel, p, stream_k_ctas, a.workspace, a.workspace_bytes, stream,
                                          a.launch);
    } else {
      return detail::launch_tiled<Cfg>(kernel, p, split_k, stream, a.launch);
    }
  }

  // This Config's kernel for input type In and B's layout (one instance per layout: BMnMajor).
  template <class In>
  static auto kernel_for(BLayout b_layout) {
    return b_layout == BLayout::kRowMajorKxN ? &gemm_kernel<Cfg, In, true> : &gemm_kernel<Cfg, In, false>;
  }

  // The workspace bytes run takes for `a` on the current device (validated first): a stream-K Config's
  // (stream_k_workspace_bytes of its last wave's CTAs; its CTA count in *ctas_out if given), 0 for every
  // other Config.
  template <class In>
  static Status workspace_bytes(const GemmArguments<In, Out, Epilogue>& a, int64_t* bytes,
                                int64_t* ctas_out = nullptr, int64_t stream_k_ctas = 0) {
    *bytes = 0;
    if (ctas_out != nullptr) *ctas_out = 0;
    if (Status s = can_implement(a); !s.ok()) return s;
    if constexpr (Cfg::kStreamK) {
      if (Status s = host::require_compute_capability_90("bwgemm::sm90::Gemm"); !s.ok()) return s;
      Params p;
      p.k = static_cast<int32_t>(a.k);
      p.tiles = ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch);
      sched::StreamK::Work w;
      if (Status s = detail::stream_k_launch_work<Cfg>(kernel_for<In>(a.b_layout), p, stream_k_ctas, &w);
          !s.ok())
        return s;
      *bytes = stream_k_workspace_bytes<Cfg>(w.sk_ctas);
      if (ctas_out != nullptr) *ctas_out = w.ctas;
    }
    return Status::success();
  }
};

// ---- the default entry point
// --------------------------------------------------------------------------------- sm90::gemm runs the plan
// of sm90/choice.hpp's rules (gemm_plan) for the call's shape and this device's facts, on the Configs of
// sm90/catalogue.cuh; run_gemm_plan runs any plan (a tuner's candidates: gemm_candidate_plans).
namespace detail {
// The device's facts for a GEMM call: its SM count, and the resident clusters of GemmTile128x256's kernel for
// the call's types and B layout (every Config of the choice takes one CTA per SM, so their counts agree).
template <class In, class Out>
DeviceFacts gemm_device_facts(const GemmArguments<In, Out>& args) {
  using Cfg = GemmTile128x256<Out>;
  return device_facts(Gemm<Cfg>::template kernel_for<In>(args.b_layout), Cfg::kThreads, Cfg::kSmemBytes);
}

// The workspace bytes `plan`'s stream-K launch takes for the call on the current device; 0 without stream-K,
// -1 where the launch cannot be planned (the Config has no stream-K launch, the work does not fit it, the
// device cannot say).
template <class In, class Out>
int64_t gemm_plan_workspace_bytes(const GemmPlan& plan, const GemmArguments<In, Out>& args) {
  if (!plan.stream_k) return 0;
  return visit_gemm_choice<Out>(plan.choice, [&](auto entry) -> int64_t {
    using E = decltype(entry);
    using Cfg = typename E::Config;
    int64_t bytes = 0;
    if constexpr (std::is_same_v<E, TiledEntry<Cfg>>) {
      if (!Cfg::kStreamK || !Gemm<Cfg>::workspace_bytes(args, &bytes).ok()) return -1;
    } else if constexpr (!std::is_void_v<typename E::StreamKConfig>) {
      if (!SwapAbGemm<typename E::StreamKConfig>::workspace_bytes(args, &bytes).ok()) return -1;
    } else {
      return -1;
    }
    return bytes;
  });
}

// The plan sm90::gemm runs for the call on a device with facts `d`.
template <class In, class Out>
GemmPlan default_gemm_plan(const GemmArguments<In, Out>& args, const DeviceFacts& d) {
  return plan_with_workspace(
      args,
      [&](bool has_workspace) {
        return gemm_plan(args.m, args.n, args.k, args.batch, args.b_layout, has_workspace, d);
      },
      [&](const GemmPlan& p) { return gemm_plan_workspace_bytes(p, args); });
}

}  // namespace detail

// Runs a plan on the call (its Config from sm90/catalogue.cuh, with plan.split_k; plan.stream_k: the stream-K
// launch over args.workspace, which must hold gemm_plan_workspace_bytes) and names it with the diagnostic
// switch on. A plan the Config cannot run (a split it does not take, more splits than K blocks, stream-K
// without a workspace) is refused with the Config's own message, launching nothing.
template <class In, class Out>
Status run_gemm_plan(const GemmPlan& plan, const GemmArguments<In, Out>& args,
                     cudaStream_t stream = nullptr) {
  ::bwgemm::detail::report_choice(
      "bwgemm::sm90::gemm", args.m, args.n, args.k, args.batch,
      detail::plan_text(gemm_choice_name(plan.choice), plan.split_k, plan.stream_k));
  return visit_gemm_choice<Out>(plan.choice, [&](auto entry) -> Status {
    using E = decltype(entry);
    using Cfg = typename E::Config;
    if constexpr (std::is_same_v<E, TiledEntry<Cfg>>) {
      if (plan.stream_k != static_cast<bool>(Cfg::kStreamK))
        return Status::invalid_argument(std::string("plan: ") + gemm_choice_name(plan.choice) +
                                        (Cfg::kStreamK ? " runs stream-K only" : " has no stream-K launch"));
      return Gemm<Cfg>::run(args, stream, plan.split_k);
    } else {
      if (!plan.stream_k) return SwapAbGemm<Cfg>::run(args, stream, plan.split_k);
      if constexpr (std::is_void_v<typename E::StreamKConfig>) {
        return Status::invalid_argument(std::string("plan: ") + gemm_choice_name(plan.choice) +
                                        " has no stream-K launch");
      } else {
        if (plan.split_k != 1)
          return Status::invalid_argument("plan: a stream-K plan takes split_k = 1 (got " +
                                          std::to_string(plan.split_k) + ")");
        return SwapAbGemm<typename E::StreamKConfig>::run_stream_k(args, stream);
      }
    }
  });
}

namespace detail {
// The plan sm90::gemm runs: the tuning registry's (sm90/tuning.hpp: the installed table or
// BWGEMM_TUNING_FILE's, the built-in tables for this device) where it has an entry that runs the call, else
// the rules' (default_gemm_plan). assume_workspace: as if the call had a workspace of any size (what
// gemm_workspace_bytes asks).
template <class In, class Out>
GemmPlan chosen_gemm_plan(const GemmArguments<In, Out>& args, const DeviceFacts& d, bool assume_workspace) {
  const auto rules = [&] {
    return assume_workspace ? gemm_plan(args.m, args.n, args.k, args.batch, args.b_layout, true, d)
                            : default_gemm_plan(args, d);
  };
  const tuning::DeviceDescription* device = nullptr;
  if (!host::current_device_description(&device) || device->cc_major != 9 || device->cc_minor != 0)
    return rules();
  register_tuning_candidates();
  const int64_t workspace_bytes = assume_workspace            ? INT64_MAX
                                  : args.workspace != nullptr ? args.workspace_bytes
                                                              : 0;
  return choose_gemm_plan(gemm_call_key<In, Out>(args), *device, d, workspace_bytes, rules,
                          [&](const GemmPlan& p) { return gemm_plan_workspace_bytes(p, args); });
}
}  // namespace detail

// The sm_90a default entry point: the plan of the tuning registry or, without an entry for the call, of the
// rules (gemm_plan in sm90/choice.hpp) for the shape, this device and the call's workspace.
template <class In, class Out>
Status gemm(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return run_gemm_plan(detail::chosen_gemm_plan(args, detail::gemm_device_facts(args), false), args, stream);
}

// The workspace bytes sm90::gemm takes for `args` on the current device (GemmArguments::workspace): the
// stream-K launch's where the plan given a workspace takes it (a table's entry, or gemm_plan with
// has_workspace), else 0. A call with less (or none) runs the plan it can without stream-K.
template <class In, class Out>
Status gemm_workspace_bytes(const GemmArguments<In, Out>& args, int64_t* bytes) {
  *bytes = 0;
  if (Status s = validate(args); !s.ok()) return s;
  const GemmPlan plan = detail::chosen_gemm_plan(args, detail::gemm_device_facts(args), true);
  const int64_t need = detail::gemm_plan_workspace_bytes(plan, args);
  *bytes = need > 0 ? need : 0;
  return Status::success();
}

}  // namespace bwgemm::sm90
