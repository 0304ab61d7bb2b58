// bwgemm's grouped (mixture-of-experts) operations, every expert in one call, on the backend of the current
// device:
//
//   grouped_gemm(GroupedGemmArguments)                  D_e = alpha_e · A_e B_eᵀ           (FC2), fp16/bf16
//   grouped_gemm_nvfp4(Nvfp4GroupedGemmArguments)       the same with NVFP4 A and B         (sm_100a)
//   grouped_dual_gemm(GroupedDualGemmArguments)         C_e = epilogue(alpha1_e · A_e B1_eᵀ, alpha2_e · A_e
//   B2_eᵀ)
//                                                       (gated FC1), fp16/bf16
//   grouped_dual_gemm_nvfp4(Nvfp4GroupedDualGemmArguments)  the same with NVFP4 A, B1, B2    (sm_100a)
//
// The tokens are contiguous (rows sorted by expert, torch._grouped_mm's `offs` on the device) or masked
// ([E, max_tokens, K] with device counts); docs/moe.md has the layouts, the scale placement and a whole MoE
// layer. Every call validates its arguments first (messages name the argument and the entry point), never
// reads the device counts on the host, allocates nothing and does not synchronize: a CUDA graph captures it
// once and replays it with new counts. Bad device offsets or counts are clamped to the caller's buffers and
// reported through the optional device status word (base/grouped.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include "bwgemm/arguments/grouped_dual_gemm.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"
#include "bwgemm/base/entry_point.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/entry_points.hpp"  // the declarations, with the stream's default (nullptr)
#include "bwgemm/host/launch.hpp"
#include "bwgemm/sm100/grouped_gemm.cuh"
#if !BWGEMM_EMULATION
#include "bwgemm/sm90/grouped_gemm.cuh"  // the Hopper backend (native builds: the emulator is an sm_100a device)
#endif

namespace bwgemm {

namespace detail {
// An NVFP4 grouped call on a device without NVFP4 tensor cores.
inline Status grouped_nvfp4_not_on_hopper(const char* entry) {
  return Status::not_supported(
      std::string(entry) +
      ": NVFP4 operands need the sm_100a block-scaled tensor cores; on Hopper use the "
      "16-bit form (bf16/fp16 operands)");
}
}  // namespace detail

template <class In, class Out>
Status grouped_gemm(const GroupedGemmArguments<In, Out>& args, cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::grouped_gemm");
  if (Status s = validate(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::grouped_gemm(args, stream);
#if !BWGEMM_EMULATION
  if (query.ok() && cc.is(9, 0)) return sm90::grouped_gemm(args, stream);
#endif
  return host::no_backend_for_device("bwgemm::grouped_gemm", query, cc);
}

template <class Out>
Status grouped_gemm_nvfp4(const Nvfp4GroupedGemmArguments<Out>& args, cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::grouped_gemm_nvfp4");
  if (Status s = validate(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::grouped_gemm_nvfp4(args, stream);
  if (query.ok() && cc.is(9, 0)) return detail::grouped_nvfp4_not_on_hopper("bwgemm::grouped_gemm_nvfp4");
  return host::no_backend_for_device("bwgemm::grouped_gemm_nvfp4", query, cc);
}

template <class In, class Out, class Epilogue>
Status grouped_dual_gemm(const GroupedDualGemmArguments<In, Out, Epilogue>& args, cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::grouped_dual_gemm");
  if (Status s = validate(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::grouped_dual_gemm(args, stream);
#if !BWGEMM_EMULATION
  if (query.ok() && cc.is(9, 0)) return sm90::grouped_dual_gemm(args, stream);
#endif
  return host::no_backend_for_device("bwgemm::grouped_dual_gemm", query, cc);
}

template <class Out, class Epilogue>
Status grouped_dual_gemm_nvfp4(const Nvfp4GroupedDualGemmArguments<Out, Epilogue>& args,
                               cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::grouped_dual_gemm_nvfp4");
  if (Status s = validate(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::grouped_dual_gemm_nvfp4(args, stream);
  if (query.ok() && cc.is(9, 0))
    return detail::grouped_nvfp4_not_on_hopper("bwgemm::grouped_dual_gemm_nvfp4");
  return host::no_backend_for_device("bwgemm::grouped_dual_gemm_nvfp4", query, cc);
}

}  // namespace bwgemm
