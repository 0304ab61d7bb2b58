// bwgemm's dual GEMM with a fused gated epilogue, the gated MLP of modern LLMs, on whatever GPU the call
// runs on:
//
//   C[m, n, l] = silu(alpha1 * sum_k A[m,k,l] B1[n,k,l]) * (alpha2 * sum_k A[m,k,l] B2[n,k,l])
//
// Two operations, each with its own arguments (arguments/):
//   bwgemm::dual_gemm_nvfp4(Nvfp4DualGemmArguments<Out>)  NVFP4 operands (packed e2m1 + 128x4 blocked e4m3
//       scales; M >= 1, N % 16 == 0, K % 64 == 0): the sm_100a kernels (sm100/nvfp4_dual_gemm.cuh) on compute
//       capability 10.0; Status::not_supported on 9.0 (Hopper has no FP4 tensor cores)
//   bwgemm::dual_gemm(DualGemmArguments<In, Out>)  fp16/bf16 operands (any M, N, K >= 1): the sm_100a kernels
//       (sm100/dual_gemm.cuh) on compute capability 10.0, the sm_90a kernels (sm90/dual_gemm.cuh) on 9.0
// Any other device gets Status::device_mismatch.
//
//   bwgemm::Nvfp4DualGemmArguments<__half> args;
//   args.m = 512; args.n = 4096; args.k = 7168;
//   args.a = {a_data, a_scales}; args.b1 = {...}; args.b2 = {...}; args.c = c;
//   bwgemm::Status s = bwgemm::dual_gemm_nvfp4(args, stream);        // picks a kernel from the shape
//
// This header only dispatches: it checks the arguments (bwgemm::validate: the same answer on every machine),
// then picks the backend from the device. The calls launch nothing on error; they are asynchronous on
// `stream`, allocate nothing and do not synchronize. A refused call's message names the entry point called
// ("C of bwgemm::dual_gemm_nvfp4 is not device-accessible memory"), not the backend class that checked.
#pragma once

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/base/entry_point.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/entry_points.hpp"  // the declarations, with the stream's default (nullptr)
#include "bwgemm/tuning_file.hpp"  // bwgemm::install_tuning_file; BWGEMM_TUNING_FILE read at the first call
#include "bwgemm/host/launch.hpp"
#include "bwgemm/sm100/dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#if !BWGEMM_EMULATION
#include "bwgemm/sm90/dual_gemm.cuh"  // the Hopper backend of bwgemm::dual_gemm (native builds only)
#endif

namespace bwgemm {

// The default NVFP4 entry point: the sm_100a kernels on compute capability 10.0, not_supported on 9.0
// (Hopper has no FP4 tensor cores), device_mismatch elsewhere.
template <class Out>
Status dual_gemm_nvfp4(const Nvfp4DualGemmArguments<Out>& args, cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::dual_gemm_nvfp4");  // messages name bwgemm::dual_gemm_nvfp4
  if (Status s = validate(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::dual_gemm_nvfp4(args, stream);
  if (query.ok() && cc.is(9, 0))
    return Status::not_supported(
        "bwgemm::dual_gemm_nvfp4: NVFP4 operands need the sm_100a block-scaled tensor cores; on Hopper use "
        "bwgemm::dual_gemm with bf16/fp16 operands");
  return host::no_backend_for_device("bwgemm::dual_gemm_nvfp4", query, cc);
}

// The fp16/bf16 dual GEMM: the sm_100a kernels (sm100/dual_gemm.cuh) on compute capability 10.0, the sm_90a
// kernels on 9.0; other devices get device_mismatch. The device is checked before the arguments: where no
// kernel can run, the arguments are not looked at (each backend validates them first).
template <class In, class Out>
Status dual_gemm(const DualGemmArguments<In, Out>& args, cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::dual_gemm");  // messages name bwgemm::dual_gemm
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::dual_gemm(args, stream);
#if !BWGEMM_EMULATION
  if (query.ok() && cc.is(9, 0)) return sm90::dual_gemm(args, stream);
#endif
  return host::no_backend_for_device("bwgemm::dual_gemm", query, cc);
}

// The workspace bytes bwgemm::dual_gemm takes for `args` on the current device
// (DualGemmArguments::workspace): on compute capability 9.0 sm90::dual_gemm_workspace_bytes (the swap-AB
// stream-K launch's, where the choice takes it), 0 on 10.0 (no sm_100a kernel takes one) and wherever no
// backend runs (bwgemm::dual_gemm then says why). The arguments are validated first.
template <class In, class Out>
Status dual_gemm_workspace_bytes(const DualGemmArguments<In, Out>& args, int64_t* bytes) {
  *bytes = 0;
  if (Status s = validate(args); !s.ok()) return s;
#if !BWGEMM_EMULATION
  host::ComputeCapability cc;
  if (host::current_compute_capability(&cc).ok() && cc.is(9, 0))
    return sm90::dual_gemm_workspace_bytes(args, bytes);
#endif
  return Status::success();
}

}  // namespace bwgemm
