// bwgemm's NVFP4 dual GEMM with a fused gated epilogue, the gated MLP of modern LLMs:
//
//   C[m, n, l] = silu(alpha1 * sum_k A[m,k,l] B1[n,k,l]) * (alpha2 * sum_k A[m,k,l] B2[n,k,l])
//
// Operands are NVFP4: packed e2m1 K-major data (two per byte, element 2i in the low nibble; row r of an
// M x K matrix is K/2 contiguous bytes; batch outermost) plus e4m3 scales, one per 16 K elements, in the
// 128x4 blocked layout (docs/formats.md; bwgemm::quantize_nvfp4 produces both). C is fp16 or bf16,
// row-major with row stride ldc, batch stride m * ldc.
//
//   bwgemm::DualGemmArguments<__half> args;
//   args.m = 512; args.n = 4096; args.k = 7168;
//   args.a = {a_data, a_scales}; args.b1 = {...}; args.b2 = {...}; args.c = c;
//   bwgemm::Status s = bwgemm::dual_gemm_nvfp4(args, stream);        // picks a kernel from the shape
//   // or an explicit sm_100a kernel:
//   using Cfg = bwgemm::sm100::DualGemmConfig<128, 5, 2, bwgemm::sched::ClcWorkStealing>;
//   s = bwgemm::DualGemm<Cfg>::run(args, stream);
//
// Shapes: M >= 1 (rows past M read as zero, stores masked), N a multiple of 16, K a multiple of 64,
// batch >= 1. The call validates everything first and launches nothing on error; it is asynchronous on
// `stream`, allocates nothing and does not synchronize. The kernels need a GPU of compute capability 10.0
// (B200/GB200); on 9.0 (Hopper: no FP4 tensor cores) dual_gemm_nvfp4 returns Status::not_supported.
//
// fp16/bf16 operands: bwgemm::dual_gemm(DualGemm16BitArguments<In, Out>, stream) (end of this header) runs
// the sm_90a kernels on compute capability 9.0 (H100/H200); there is no sm_100a kernel for it yet.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/gemm_arguments.hpp"  // detail::validate_tile_count, kMaxGemmExtent
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/status.hpp"
#include "bwgemm/host/tensor_map.hpp"
#include "bwgemm/kernels/sm100/dual_gemm_config.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_kernel.cuh"
#if !BWGEMM_EMULATION
#include "bwgemm/sm90/dual_gemm.cuh"  // the Hopper backend of bwgemm::dual_gemm (native builds only)
#endif

namespace bwgemm {

// One NVFP4 operand in device memory.
struct Nvfp4Tensor {
  const void* data = nullptr;    // rows x K/2 bytes per batch (16-byte aligned)
  const void* scales = nullptr;  // blocked_scale_bytes(rows, K/16, batch) bytes (16-byte aligned)
};

template <class Out = __half, class Epilogue = epi::SiluMul>
struct DualGemmArguments {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  Nvfp4Tensor a;   // M x K
  Nvfp4Tensor b1;  // N x K: the gate projection
  Nvfp4Tensor b2;  // N x K: the up projection
  Out* c = nullptr;
  int64_t ldc = 0;                     // elements between rows of C; 0 means n
  float alpha1 = 1.0f, alpha2 = 1.0f;  // per-tensor scales (NVFP4 global scales of A times B1, A times B2)
  Epilogue epilogue{};                 // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};

namespace detail {

// Packed e2m1 operand of `rows` x k per batch as a rank-3 tensor map (K, rows, batch).
inline Status nvfp4_data_map(const void* data, int64_t rows, int64_t k, int64_t batch, uint32_t box_rows,
                             CUtensorMap* out) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kFp4E2M1Packed;
  d.rank = 3;
  d.global_address = data;
  d.global_dims[0] = static_cast<uint64_t>(k);
  d.global_dims[1] = static_cast<uint64_t>(rows);
  d.global_dims[2] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = static_cast<uint64_t>(k / 2);
  d.global_strides_bytes[1] = static_cast<uint64_t>(rows * k / 2);
  d.box_dims[0] = 256;  // one 128-byte swizzle row of fp4
  d.box_dims[1] = box_rows;
  d.box_dims[2] = 1;
  d.swizzle = TensorMapSwizzle::k128B;
  return encode_tensor_map(d, out);
}

// Blocked scales of a `rows` x k operand as 16-bit words: (256 words = one 512-byte atom, K/64 atoms,
// row blocks of 128, batch); a box is the 4 atoms (256 K elements) of one row block.
inline Status nvfp4_scale_map(const void* scales, int64_t rows, int64_t k, int64_t batch, CUtensorMap* out) {
  const int64_t k_atoms = ceil_div(k / kNvfp4BlockSize, kScaleAtomCols);
  const int64_t row_blocks = ceil_div(rows, kScaleAtomRows);
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kUInt16;
  d.rank = 4;
  d.global_address = scales;
  d.global_dims[0] = kScaleAtomBytes / 2;
  d.global_dims[1] = static_cast<uint64_t>(k_atoms);
  d.global_dims[2] = static_cast<uint64_t>(row_blocks);
  d.global_dims[3] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = kScaleAtomBytes;
  d.global_strides_bytes[1] = static_cast<uint64_t>(k_atoms * kScaleAtomBytes);
  d.global_strides_bytes[2] = static_cast<uint64_t>(row_blocks * k_atoms * kScaleAtomBytes);
  d.box_dims[0] = kScaleAtomBytes / 2;
  d.box_dims[1] = 4;  // 4 atoms = 256 K elements, one stage
  d.box_dims[2] = 1;
  d.box_dims[3] = 1;
  d.swizzle = TensorMapSwizzle::kNone;
  return encode_tensor_map(d, out);
}

}  // namespace detail

template <class Cfg>
struct DualGemm {
  using Arguments = DualGemmArguments<typename Cfg::Out, typename Cfg::Epilogue>;
  using Params = sm100::DualGemmParams<Cfg>;

  // Host-side checks only (no device access): shapes, pointers, alignment, strides.
  static Status can_implement(const Arguments& a) {
    const auto str = [](int64_t v) { return std::to_string(v); };
    if (a.m < 1) return Status::invalid_argument("M must be >= 1 (got " + str(a.m) + ")");
    if (a.n < 16 || a.n % 16 != 0)
      return Status::invalid_argument("N must be a positive multiple of 16 (got " + str(a.n) + ")");
    if (a.k < 64 || a.k % 64 != 0)
      return Status::invalid_argument("K must be a positive multiple of 64 (got " + str(a.k) + ")");
    if (a.batch < 1) return Status::invalid_argument("batch must be >= 1 (got " + str(a.batch) + ")");
    if (a.m > ::bwgemm::detail::kMaxGemmExtent || a.n > ::bwgemm::detail::kMaxGemmExtent ||
        a.k > ::bwgemm::detail::kMaxGemmExtent || a.batch > 65535)
      return Status::invalid_argument("M, N, K must be < 2^31 and batch <= 65535");
    const int64_t ldc = a.ldc == 0 ? a.n : a.ldc;
    if (ldc < a.n || ldc % 8 != 0)
      return Status::invalid_argument("ldc must be >= N and a multiple of 8 (16-byte rows) (got " + str(ldc) +
                                      ")");
    const struct {
      const void* p;
      const char* name;
    } ptrs[] = {{a.a.data, "A data"},
                {a.a.scales, "A scales"},
                {a.b1.data, "B1 data"},
                {a.b1.scales, "B1 scales"},
                {a.b2.data, "B2 data"},
                {a.b2.scales, "B2 scales"},
                {a.c, "C"}};
    for (const auto& q : ptrs) {
      if (Status s = host::check_operand_pointer(q.p, q.name); !s.ok()) return s;
    }
    if (!std::isfinite(a.alpha1) || !std::isfinite(a.alpha2))
      return Status::invalid_argument("alpha1 and alpha2 must be finite");
    const sched::TileGrid tiles = tile_grid(a);
    return ::bwgemm::detail::validate_tile_count(tiles.tiles_m, tiles.tiles_n, tiles.batch);
  }

  static sched::TileGrid tile_grid(const Arguments& a) {
    return sched::grouped_tile_grid(a.m, Cfg::kClusterM, a.n, Cfg::kBlockN, a.batch);
  }

  static Status run(const Arguments& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_100("bwgemm::DualGemm"); !s.ok()) return s;
    const void* const operands[] = {a.a.data,  a.a.scales,  a.b1.data, a.b1.scales,
                                    a.b2.data, a.b2.scales, a.c};
    for (const void* ptr : operands) {
      if (Status s = host::require_device_pointer(ptr, "an operand of bwgemm::DualGemm"); !s.ok()) return s;
    }

    Params p;
    if (Status s = detail::nvfp4_data_map(a.a.data, a.m, a.k, a.batch, Cfg::kBlockM, &p.tmap_a); !s.ok())
      return s;
    if (Status s = detail::nvfp4_data_map(a.b1.data, a.n, a.k, a.batch, Cfg::kBRowsPerCta, &p.tmap_b1);
        !s.ok())
      return s;
    if (Status s = detail::nvfp4_data_map(a.b2.data, a.n, a.k, a.batch, Cfg::kBRowsPerCta, &p.tmap_b2);
        !s.ok())
      return s;
    if (Status s = detail::nvfp4_scale_map(a.a.scales, a.m, a.k, a.batch, &p.tmap_sfa); !s.ok()) return s;
    if (Status s = detail::nvfp4_scale_map(a.b1.scales, a.n, a.k, a.batch, &p.tmap_sfb1); !s.ok()) return s;
    if (Status s = detail::nvfp4_scale_map(a.b2.scales, a.n, a.k, a.batch, &p.tmap_sfb2); !s.ok()) return s;
    p.c = a.c;
    p.ldc = a.ldc == 0 ? a.n : a.ldc;
    p.m = static_cast<int32_t>(a.m);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = tile_grid(a);
    p.alpha1 = a.alpha1;
    p.alpha2 = a.alpha2;
    p.epilogue = a.epilogue;
    // Keep the operand more tiles re-read (B when M > N) in L2; stream the other.
    const bool keep_b = a.m > a.n;
    p.cache_hint_a = keep_b ? ptx::kL2EvictFirst : ptx::kL2EvictLast;
    p.cache_hint_b = keep_b ? ptx::kL2EvictLast : ptx::kL2EvictFirst;

    return host::launch_tile_kernel<Cfg, Cfg::kCtaGroup>(&sm100::dual_gemm_kernel<Cfg>, p, stream);
  }
};

// The kernels the default entry point chooses from (docs/api.md has the table and the reasoning):
//   M <= 256 : BlockN 64, 7 stages, CTA pair, static persistent, double-buffered accumulators: more tiles to
//              spread over the SMs when M is small (seed 000's persistent kernel for M = 256).
//   M > 256  : BlockN 128, 5 stages, CTA pair, Cluster Launch Control work stealing.
template <class Out>
using DualGemmSmallM = sm100::DualGemmConfig<64, 7, 2, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmLargeM = sm100::DualGemmConfig<128, 5, 2, sched::ClcWorkStealing, epi::SiluMul, Out>;

namespace detail {

// bwgemm::dual_gemm_nvfp4 with the sm_100a kernel `Cfg` chosen for the shape: checks the arguments, then
// the device. NVFP4 needs the block-scaled tensor cores of sm_100a: Hopper gets not_supported.
template <class Cfg, class Out>
Status dual_gemm_nvfp4_on_current_device(const DualGemmArguments<Out>& args, cudaStream_t stream) {
  if (Status s = DualGemm<Cfg>::can_implement(args); !s.ok()) return s;
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return DualGemm<Cfg>::run(args, stream);
  if (query.ok() && cc.is(9, 0))
    return Status::not_supported(
        "NVFP4 operands need the sm_100a block-scaled tensor cores; on Hopper use bwgemm::dual_gemm with "
        "bf16/fp16 operands");
  return host::no_backend_for_device("bwgemm::dual_gemm_nvfp4", query, cc);
}

}  // namespace detail

// The default NVFP4 entry point: the sm_100a kernels on compute capability 10.0, not_supported on 9.0
// (Hopper has no FP4 tensor cores), device_mismatch elsewhere.
template <class Out>
Status dual_gemm_nvfp4(const DualGemmArguments<Out>& args, cudaStream_t stream = nullptr) {
  if (args.m <= 256) return detail::dual_gemm_nvfp4_on_current_device<DualGemmSmallM<Out>>(args, stream);
  return detail::dual_gemm_nvfp4_on_current_device<DualGemmLargeM<Out>>(args, stream);
}

// ---- fp16/bf16 operands ---------------------------------------------------------------------------------
//
//   C[m, n, l] = silu(alpha1 · sum_k A[m,k,l] B1[n,k,l]) · (alpha2 · sum_k A[m,k,l] B2[n,k,l])
//
// A: M x K row-major (row stride lda), B1, B2: N x K row-major (nn.Linear weights, row stride ldb), C: M x N
// row-major (row stride ldc); batches packed (M·lda, N·ldb, M·ldc). In is __half or __nv_bfloat16 (A, B1
// and B2 alike), Out __half or __nv_bfloat16; fp32 accumulation. Any M, N, K >= 1; lda, ldb, ldc multiples
// of 8 (16-byte rows); every pointer 16-byte aligned.
template <class In, class Out = In>
struct DualGemm16BitArguments {
  static_assert(std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>,
                "A, B1 and B2 are __half or __nv_bfloat16");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>,
                "C is __half or __nv_bfloat16");
  int64_t m = 0, n = 0, k = 0, batch = 1;
  const In* a = nullptr;               // M x K, row stride lda
  const In* b1 = nullptr;              // N x K, row stride ldb: the gate projection
  const In* b2 = nullptr;              // N x K, row stride ldb: the up projection
  Out* c = nullptr;                    // M x N, row stride ldc
  int64_t lda = 0, ldb = 0, ldc = 0;   // 0 means K, K and N
  float alpha1 = 1.0f, alpha2 = 1.0f;  // scales of A·B1ᵀ and A·B2ᵀ, applied before the SiLU gating
};

// The fp16/bf16 dual GEMM + SiLU: on compute capability 9.0 the sm_90a kernels of bwgemm::sm90::dual_gemm
// (which checks the arguments). There is no sm_100a fp16/bf16 dual GEMM kernel yet, so compute capability
// 10.0 gets not_supported (use dual_gemm_nvfp4 there); other devices get device_mismatch. The device is
// checked before the arguments: where no kernel can run, the arguments are not looked at.
template <class In, class Out>
Status dual_gemm(const DualGemm16BitArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  host::ComputeCapability cc;
  const Status query = host::current_compute_capability(&cc);
#if !BWGEMM_EMULATION
  if (query.ok() && cc.is(9, 0)) {
    sm90::DualGemmArguments<In, Out> hopper;
    hopper.m = args.m, hopper.n = args.n, hopper.k = args.k, hopper.batch = args.batch;
    hopper.a = args.a, hopper.b1 = args.b1, hopper.b2 = args.b2, hopper.c = args.c;
    hopper.lda = args.lda, hopper.ldb = args.ldb, hopper.ldc = args.ldc;
    hopper.alpha1 = args.alpha1, hopper.alpha2 = args.alpha2;
    return sm90::dual_gemm(hopper, stream);
  }
#else
  (void)args, (void)stream;  // the emulator is a compute-capability-10.0 device
#endif
  if (query.ok() && cc.is(10, 0))
    return Status::not_supported(
        "bwgemm::dual_gemm: there is no sm_100a fp16/bf16 dual GEMM kernel yet; on a B200 quantize the "
        "operands to NVFP4 (bwgemm::quantize_nvfp4) and use bwgemm::dual_gemm_nvfp4");
  return host::no_backend_for_device("bwgemm::dual_gemm", query, cc);
}

}  // namespace bwgemm
