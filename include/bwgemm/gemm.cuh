// bwgemm::gemm: the FP16/BF16 GEMM on whatever GPU the call runs on, fp32 accumulation:
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[k,n,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// The arguments are bwgemm::GemmArguments (arguments/gemm.hpp has the layouts and rules): A is fp16 or bf16,
// M x K row-major; B has A's type, K x N row-major (BLayout::kRowMajorKxN) or N x K row-major, i.e. K-major
// (BLayout::kColumnMajorKxN, nn.Linear weights); C and D are M x N row-major in fp16, bf16 or fp32.
//
//   bwgemm::GemmArguments<__half> args;                 // In = Out = __half
//   args.m = 4096; args.n = 4096; args.k = 4096;
//   args.a = a; args.b = b; args.b_layout = bwgemm::BLayout::kRowMajorKxN; args.d = d;
//   args.epilogue = {alpha, beta}; args.c = c;          // optional: D = alpha A B + beta C
//   bwgemm::Status s = bwgemm::gemm(args, stream);      // backend from the device, kernel from the shape
//
// This header only dispatches: it checks the arguments (bwgemm::validate: the same answer on every machine),
// then runs bwgemm::sm100::gemm (sm100/gemm.cuh) on a GPU of compute capability 10.0 (B200/GB200) and
// bwgemm::sm90::gemm (sm90/gemm.cuh) on 9.0 (H100/H200), each only if the binary was built for that
// architecture (CMAKE_CUDA_ARCHITECTURES "100a", "90a" or "90a;100a"); any other device gets
// Status::device_mismatch. Explicit kernels: bwgemm::sm100::Gemm<Cfg>, bwgemm::sm90::Gemm<Cfg>.
//
// bwgemm::gemm_nvfp4(Nvfp4GemmArguments<Out>): the NVFP4 GEMM D = alpha A·Bᵀ + beta C
// (arguments/nvfp4_gemm.hpp: the NVFP4 dual GEMM's operands), the sm_100a kernels (sm100/nvfp4_gemm.cuh) on
// compute capability 10.0, Status::not_supported on 9.0 (no FP4 tensor cores), device_mismatch elsewhere.
// With Nvfp4GemmArguments<Nvfp4Output>, D is NVFP4 (packed e2m1 data plus blocked e4m3 scales, bit for bit
// bwgemm::quantize_nvfp4 of alpha A·Bᵀ with D's global scale; no C), on the sm_100a tiled kernels for
// every M.
//
// bwgemm::gemm_workspace_bytes(args, &bytes): the scratch memory a call may use (GemmArguments::workspace;
// the Hopper stream-K kernel, for shapes whose last wave of tiles would leave SMs idle). Without one (the
// default), the choice takes a kernel that needs none.
//
// The call launches nothing on error; it is asynchronous on `stream`, allocates nothing and does not
// synchronize. A refused call's message names the entry point called ("B of bwgemm::gemm is not
// device-accessible memory"), not the backend class that checked.
#pragma once

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "bwgemm/base/entry_point.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/entry_points.hpp"  // the declarations, with the stream's default (nullptr)
#include "bwgemm/tuning_file.hpp"  // bwgemm::install_tuning_file; BWGEMM_TUNING_FILE read at the first call
#include "bwgemm/host/launch.hpp"
#include "bwgemm/sm100/gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#if !BWGEMM_EMULATION
#include "bwgemm/sm90/gemm.cuh"  // the Hopper backend (native builds: the emulator is an sm_100a device)
#endif

namespace bwgemm {

// The default entry point: the sm_100a kernels on compute capability 10.0, the sm_90a kernels on 9.0,
// Status::device_mismatch elsewhere (docs/api.md, "Dispatch").
template <class In, class Out>
Status gemm(const GemmArguments<In, Out>& args, cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::gemm");  // messages name bwgemm::gemm
  if (Status s = validate(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::gemm(args, stream);
#if !BWGEMM_EMULATION
  if (query.ok() && cc.is(9, 0)) return sm90::gemm(args, stream);
#endif
  return host::no_backend_for_device("bwgemm::gemm", query, cc);
}

// The workspace bytes bwgemm::gemm takes for `args` on the current device (GemmArguments::workspace): on
// compute capability 9.0 sm90::gemm_workspace_bytes (the stream-K kernel's, where the choice takes it), 0 on
// 10.0 (no sm_100a kernel takes one) and wherever no backend runs (bwgemm::gemm then says why). The
// arguments are validated first.
template <class In, class Out>
Status gemm_workspace_bytes(const GemmArguments<In, Out>& args, int64_t* bytes) {
  *bytes = 0;
  if (Status s = validate(args); !s.ok()) return s;
#if !BWGEMM_EMULATION
  host::ComputeCapability cc;
  if (host::current_compute_capability(&cc).ok() && cc.is(9, 0))
    return sm90::gemm_workspace_bytes(args, bytes);
#endif
  return Status::success();
}

// The default NVFP4 GEMM entry point: the sm_100a kernels on compute capability 10.0, not_supported on 9.0
// (Hopper has no FP4 tensor cores), device_mismatch elsewhere.
template <class Out>
Status gemm_nvfp4(const Nvfp4GemmArguments<Out>& args, cudaStream_t stream) {
  const detail::EntryPointScope entry("bwgemm::gemm_nvfp4");  // messages name bwgemm::gemm_nvfp4
  if (Status s = validate(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return sm100::nvfp4_gemm(args, stream);
  if (query.ok() && cc.is(9, 0))
    return Status::not_supported(
        "bwgemm::gemm_nvfp4: NVFP4 operands need the sm_100a block-scaled tensor cores; on Hopper use "
        "bwgemm::gemm with bf16/fp16 operands");
  return host::no_backend_for_device("bwgemm::gemm_nvfp4", query, cc);
}

}  // namespace bwgemm
