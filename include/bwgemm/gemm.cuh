// bwgemm's FP16/BF16 GEMM for Blackwell (sm_100a), fp32 accumulation:
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[k,n,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// A is fp16 or bf16, M x K row-major (row stride lda). B has A's type and is either K x N row-major
// (BLayout::kRowMajorKxN, row stride ldb >= N; the GPU MODE matmul_v2 layout, seed 004) or N x K
// row-major, i.e. K-major (BLayout::kColumnMajorKxN, ldb >= K; nn.Linear weights). C and D are M x N
// row-major in fp16, bf16 or fp32 (D's type, the Config's Out); with beta == 0 C is not read (and may be
// null). Batches sit at element strides (0: packed, e.g. M * lda).
//
//   bwgemm::GemmArguments<__half> args;                 // In = Out = __half
//   args.m = 4096; args.n = 4096; args.k = 4096;
//   args.a = a; args.b = b; args.b_layout = bwgemm::BLayout::kRowMajorKxN; args.d = d;
//   args.epilogue = {alpha, beta}; args.c = c;          // optional: D = alpha A B + beta C
//   bwgemm::Status s = bwgemm::gemm(args, stream);      // backend from the device, kernel from the shape
//   // or an explicit sm_100a kernel:
//   using Cfg = bwgemm::sm100::GemmConfig<256, 0, 2, bwgemm::sched::ClcWorkStealing>;
//   s = bwgemm::Gemm<Cfg>::run(args, stream);
//
// Shapes: M, N and K positive multiples of 8 (rows stay 16-byte aligned); tiles past M, N and K are masked
// (loads zero-filled by TMA, stores skipped). Leading dimensions and batch strides keep every row 16-byte
// aligned. The call validates everything first and launches nothing on error; it is asynchronous on
// `stream`, allocates nothing and does not synchronize.
//
// Devices: bwgemm::gemm runs the sm_100a kernels on a GPU of compute capability 10.0 (B200/GB200) and the
// sm_90a kernels of bwgemm::sm90::gemm on 9.0 (H100/H200), each only if the binary was built for that
// architecture (CMAKE_CUDA_ARCHITECTURES "100a", "90a" or "90a;100a"); any other device gets
// Status::device_mismatch. Gemm<Cfg>::run runs the sm_100a kernel Cfg on compute capability 10.0 only.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/formats/scale_layout.cuh"  // ceil_div
#include "bwgemm/gemm_arguments.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/status.hpp"
#include "bwgemm/host/tensor_map.hpp"
#include "bwgemm/kernels/sm100/gemm_config.cuh"
#include "bwgemm/kernels/sm100/gemm_kernel.cuh"
#include "bwgemm/layout.hpp"
#if !BWGEMM_EMULATION
#include "bwgemm/sm90/gemm.cuh"  // the Hopper backend of bwgemm::gemm (native builds: the emulator is sm_100a)
#endif

namespace bwgemm {

template <class Cfg>
struct Gemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = GemmArguments<In, Out, Epilogue>;

  // Host-side checks only (no device access): shapes, pointers, alignment, strides, the functor.
  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a) {
    if (Status s = detail::validate_gemm_arguments<Out, Epilogue>(a); !s.ok()) return s;
    const sched::TileGrid tiles = tile_grid(a.m, a.n, a.batch);
    return detail::validate_tile_count(tiles.tiles_m, tiles.tiles_n, tiles.batch);
  }

  static sched::TileGrid tile_grid(int64_t m, int64_t n, int64_t batch) {
    return sched::grouped_tile_grid(m, Cfg::kClusterM, n, Cfg::kBlockN, batch);
  }

  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_100("bwgemm::Gemm"); !s.ok()) return s;
    const bool read_c = epi::reads_source(a.epilogue);
    const void* const operands[] = {a.a, a.b, a.d, read_c ? a.c : a.d};
    for (const void* ptr : operands) {
      if (Status s = host::require_device_pointer(ptr, "an operand of bwgemm::Gemm"); !s.ok()) return s;
    }

    const detail::GemmStrides st = detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    constexpr TensorMapDataType type = detail::gemm_tensor_map_type<In>();
    sm100::GemmParams<Cfg> p;
    if (Status s = detail::gemm_operand_map(type, a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a,
                                            Cfg::kBlockK, Cfg::kBlockM, TensorMapSwizzle::k128B, &p.tmap_a);
        !s.ok())
      return s;
    if (kxn) {
      const TensorMapSwizzle swizzle =
          Cfg::kBMnSpanBytes == 128 ? TensorMapSwizzle::k128B : TensorMapSwizzle::k64B;
      if (Status s = detail::gemm_operand_map(type, a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                              Cfg::kBChunkColumns, Cfg::kBlockK, swizzle, &p.tmap_b);
          !s.ok())
        return s;
    } else {
      if (Status s =
              detail::gemm_operand_map(type, a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                       Cfg::kBColumnsPerCta, TensorMapSwizzle::k128B, &p.tmap_b);
          !s.ok())
        return s;
    }
    p.d = a.d;
    p.c = read_c ? a.c : nullptr;
    p.ldd = st.ldd, p.batch_stride_d = st.batch_stride_d;
    p.ldc = st.ldc, p.batch_stride_c = st.batch_stride_c;
    p.m = static_cast<int32_t>(a.m);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = tile_grid(a.m, a.n, a.batch);
    p.idesc = Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16,
                              a.b_layout);
    p.b = Cfg::b_operand(a.b_layout);
    p.b_mn_major = kxn;
    p.read_c = read_c;
    p.epilogue = a.epilogue;
    return host::launch_tile_kernel<Cfg, Cfg::kCtaGroup>(&sm100::gemm_kernel<Cfg>, p, stream);
  }
};

// The kernels the default entry point chooses from on a compute-capability-10.0 GPU (docs/api.md has the
// table and the reasoning):
//   M <= 128       : BlockN 64, one CTA (M = 128), static persistent: many N tiles to spread over the SMs.
//   128 < M <= 512 : BlockN 128, CTA pair (M = 256), Cluster Launch Control work stealing.
//   M > 512        : BlockN 256, CTA pair, CLC work stealing: seed 004's kernel.
// Every one takes as many stages as fit in 227 KB. On compute capability 9.0 bwgemm::gemm runs
// sm90::gemm instead (bwgemm/sm90/gemm.cuh: same arguments, its own choice of sm_90a kernels).
template <class Out>
using GemmSmallM = sm100::GemmConfig<64, 0, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmMediumM = sm100::GemmConfig<128, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, Out>;
template <class Out>
using GemmLargeM = sm100::GemmConfig<256, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, Out>;

namespace detail {

// bwgemm::gemm with the sm_100a kernel `Cfg` chosen for the shape: checks the arguments (the contract is the
// same on both backends, so a bad call gets the same answer on every machine), then picks the backend from
// the current device.
template <class Cfg, class In, class Out>
Status gemm_on_current_device(const GemmArguments<In, Out>& args, cudaStream_t stream) {
  if (Status s = Gemm<Cfg>::can_implement(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return Gemm<Cfg>::run(args, stream);
#if !BWGEMM_EMULATION
  if (query.ok() && cc.is(9, 0)) return sm90::gemm(args, stream);
#endif
  return host::no_backend_for_device("bwgemm::gemm", query, cc);
}

}  // namespace detail

// The default entry point: the sm_100a kernels on compute capability 10.0, the sm_90a kernels on 9.0,
// Status::device_mismatch elsewhere (docs/api.md, "Dispatch").
template <class In, class Out>
Status gemm(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  if (args.m <= 128) return detail::gemm_on_current_device<GemmSmallM<Out>>(args, stream);
  if (args.m <= 512) return detail::gemm_on_current_device<GemmMediumM<Out>>(args, stream);
  return detail::gemm_on_current_device<GemmLargeM<Out>>(args, stream);
}

}  // namespace bwgemm
