// bwgemm's Hopper (sm_90a) FP16/BF16 GEMM, fp32 accumulation:
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[k,n,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// The argument conventions are those of the sm_100a bwgemm::gemm (bwgemm/gemm.cuh): A fp16 or bf16, M x K
// row-major (row stride lda); B of A's type, K x N row-major (BLayout::kRowMajorKxN, ldb >= N) or N x K
// row-major, i.e. K-major (BLayout::kColumnMajorKxN, ldb >= K); C and D M x N row-major in fp16, bf16 or
// fp32 (the Config's Out); beta == 0 reads no C (which may then be null); batches at element strides (0:
// packed). sm90::GemmArguments has exactly the fields of bwgemm::GemmArguments, and the entry points take
// either struct (any struct with those fields), so the public dispatch can pass its arguments through.
//
//   bwgemm::sm90::GemmArguments<__nv_bfloat16> args;       // In = Out = bf16
//   args.m = 4096; args.n = 5120; args.k = 4096;
//   args.a = a; args.b = b; args.b_layout = bwgemm::BLayout::kRowMajorKxN; args.d = d;
//   args.epilogue = {alpha, beta}; args.c = c;               // optional: D = alpha A B + beta C
//   bwgemm::Status s = bwgemm::sm90::gemm(args, stream);     // picks a kernel from the shape
//   // or an explicit kernel:
//   using Cfg = bwgemm::sm90::GemmConfig<256, 4, 2, bwgemm::sched::StaticPersistent,
//                                        bwgemm::epi::LinearCombination, __nv_bfloat16>;
//   s = bwgemm::sm90::Gemm<Cfg>::run(args, stream);
//
// Shapes: M, N and K positive multiples of 8 (rows stay 16-byte aligned); tiles past M, N and K are masked
// (loads zero-filled by TMA, stores skipped). Leading dimensions and batch strides keep every row 16-byte
// aligned. The call validates everything first and launches nothing on error; it is asynchronous on
// `stream`, allocates nothing and does not synchronize. The kernels need a GPU of compute capability 9.0.
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
#include "bwgemm/kernels/sm90/gemm_config.cuh"
#include "bwgemm/kernels/sm90/gemm_kernel.cuh"
#include "bwgemm/layout.hpp"

namespace bwgemm::sm90 {

// The fields (names, meanings, defaults) of bwgemm::GemmArguments (bwgemm/gemm.cuh).
// The arguments are bwgemm::GemmArguments (gemm_arguments.hpp), shared with the sm_100a backend.
template <class In, class Out = In, class Epilogue = epi::LinearCombination>
using GemmArguments = ::bwgemm::GemmArguments<In, Out, Epilogue>;

// The input, output and epilogue types of an arguments struct with GemmArguments' fields.
template <class Args>
using GemmInOf = std::remove_cv_t<std::remove_pointer_t<decltype(Args::a)>>;
template <class Args>
using GemmOutOf = std::remove_cv_t<std::remove_pointer_t<decltype(Args::d)>>;
template <class Args>
using GemmEpilogueOf = decltype(Args::epilogue);

namespace detail {

// The strides with their defaults filled in.
using ::bwgemm::detail::gemm_strides;
using ::bwgemm::detail::GemmStrides;

// Operand tensor maps of the sm_90a kernels: 128-byte swizzle, 256-byte L2 promotion.
template <class In>
Status gemm_operand_map(const In* data, int64_t inner, int64_t outer, int64_t batch, int64_t ld,
                        int64_t batch_stride, uint32_t box_inner, uint32_t box_outer, CUtensorMap* out) {
  return ::bwgemm::detail::gemm_operand_map(::bwgemm::detail::gemm_tensor_map_type<In>(), data, inner, outer,
                                            batch, ld, batch_stride, box_inner, box_outer,
                                            TensorMapSwizzle::k128B, out, TensorMapL2Promotion::k256B);
}

// The TMA-store map of D: (N, M, batch) of Out with row stride ldd and batch stride batch_stride_d
// (elements), box (box_inner, box_outer, 1), 128-byte swizzle. Stores clip at N and M.
template <class Out>
Status gemm_output_map(Out* data, int64_t n, int64_t m, int64_t batch, int64_t ldd, int64_t batch_stride,
                       uint32_t box_inner, uint32_t box_outer, CUtensorMap* out) {
  TensorMapDesc d;
  d.data_type = std::is_same_v<Out, float>    ? TensorMapDataType::kFloat32
                : std::is_same_v<Out, __half> ? TensorMapDataType::kFloat16
                                              : TensorMapDataType::kBFloat16;
  d.rank = 3;
  d.global_address = data;
  d.global_dims[0] = static_cast<uint64_t>(n);
  d.global_dims[1] = static_cast<uint64_t>(m);
  d.global_dims[2] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = static_cast<uint64_t>(ldd) * sizeof(Out);
  d.global_strides_bytes[1] = static_cast<uint64_t>(batch_stride) * sizeof(Out);
  d.box_dims[0] = box_inner;
  d.box_dims[1] = box_outer;
  d.box_dims[2] = 1;
  d.swizzle = TensorMapSwizzle::k128B;
  d.oob_fill = TensorMapOobFill::kZero;
  return encode_tensor_map(d, out);
}

}  // namespace detail

template <class Cfg>
struct Gemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = GemmArguments<In, Out, Epilogue>;
  using Params = GemmParams<Cfg>;

  // Host-side checks only (no device access): shapes, pointers, alignment, strides, the functor.
  // `Args` is sm90::GemmArguments or any struct with its fields (bwgemm::GemmArguments).
  template <class Args>
  static Status can_implement(const Args& a) {
    check_types<Args>();
    if (Status s = ::bwgemm::detail::validate_gemm_arguments<Out, Epilogue>(a); !s.ok()) return s;
    const sched::TileGrid tiles = tile_grid(a.m, a.n, a.batch);
    return ::bwgemm::detail::validate_tile_count(tiles.tiles_m, tiles.tiles_n, tiles.batch);
  }

  // Cluster tiles (kClusterBlockM x kBlockN) in the L2-friendly grouped order.
  static sched::TileGrid tile_grid(int64_t m, int64_t n, int64_t batch) {
    return sched::grouped_tile_grid(m, Cfg::kClusterBlockM, n, Cfg::kBlockN, batch);
  }

  template <class Args>
  static Status run(const Args& a, cudaStream_t stream = nullptr) {
    using In = GemmInOf<Args>;
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::Gemm"); !s.ok()) return s;
    const bool read_c = epi::reads_source(a.epilogue);
    const void* const operands[] = {a.a, a.b, a.d, read_c ? static_cast<const void*>(a.c) : a.d};
    for (const void* ptr : operands) {
      if (Status s = host::require_device_pointer(ptr, "an operand of bwgemm::sm90::Gemm"); !s.ok()) return s;
    }

    const detail::GemmStrides st = detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    Params p;
    if (Status s = detail::gemm_operand_map(a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a, Cfg::kBlockK,
                                            Cfg::kBlockM, &p.tmap_a);
        !s.ok())
      return s;
    if (kxn) {  // (N, K, batch): one box per 64-column chunk
      if (Status s = detail::gemm_operand_map(a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                              Cfg::kBMnChunkColumns, Cfg::kBlockK, &p.tmap_b);
          !s.ok())
        return s;
    } else {  // (K, N, batch): this CTA's rows of the B tile
      if (Status s = detail::gemm_operand_map(a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                              Cfg::kBKMajorRowsPerCta, &p.tmap_b);
          !s.ok())
        return s;
    }
    if constexpr (Cfg::kTmaStore) {
      if (Status s = detail::gemm_output_map(a.d, a.n, a.m, a.batch, st.ldd, st.batch_stride_d,
                                             Cfg::EpiBuffers::kBoxColumns, Cfg::kWarpgroupM, &p.tmap_d);
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
    p.read_c = read_c;
    p.epilogue = a.epilogue;

    auto* kernel = kxn ? &gemm_kernel<Cfg, In, true> : &gemm_kernel<Cfg, In, false>;
    return host::launch_tile_kernel<Cfg, Cfg::kClusterM>(kernel, p, stream);
  }

 private:
  template <class Args>
  static constexpr void check_types() {
    static_assert(std::is_same_v<GemmInOf<Args>, __half> || std::is_same_v<GemmInOf<Args>, __nv_bfloat16>,
                  "A and B are __half or __nv_bfloat16");
    static_assert(std::is_same_v<GemmOutOf<Args>, Out>, "the arguments' D type is not the Config's Out");
    static_assert(std::is_same_v<GemmEpilogueOf<Args>, Epilogue>,
                  "the arguments' epilogue functor is not the Config's Epilogue");
  }
};

// The kernels the default entry point chooses from (docs/hopper.md):
//   GemmLarge         : 128 x 256 tiles (one m64n256k16 wgmma per consumer per 16 K), 4 stages, one CTA per
//                       cluster: the widest tile the registers allow
//   GemmLargeCluster2 : the GemmLarge tile in clusters of two CTAs along M sharing B through TMA multicast,
//                       for shapes with enough tiles for every pair (prefer_cluster_pair)
//   GemmSmall         : 128 x 128 tiles, 6 stages: twice the tiles, for shapes whose 128 x 256 tiles would
//                       leave SMs idle
template <class Out>
using GemmLarge = GemmConfig<256, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmSmall = GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmLargeCluster2 = GemmConfig<256, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out>;

// Output tiles of 128 x 256 below which GemmSmall is chosen: the SM count of an H100 SXM / H200 (132).
inline constexpr int64_t kGemmSmallTileThreshold = 132;

enum class GemmChoice { kSmall, kLarge, kLargeCluster2 };

// The default entry point's kernel for a shape.
constexpr GemmChoice gemm_choice(int64_t m, int64_t n, int64_t batch) {
  const int64_t row_tiles = ceil_div(m, int64_t{128}), wide_col_tiles = ceil_div(n, int64_t{256});
  if (row_tiles * wide_col_tiles * batch < kGemmSmallTileThreshold) return GemmChoice::kSmall;
  return prefer_cluster_pair(row_tiles, wide_col_tiles, batch) ? GemmChoice::kLargeCluster2
                                                               : GemmChoice::kLarge;
}

// Default choice. Takes sm90::GemmArguments<In, Out> or bwgemm::GemmArguments<In, Out> (LinearCombination).
template <class Args>
Status gemm(const Args& args, cudaStream_t stream = nullptr) {
  using Out = GemmOutOf<Args>;
  static_assert(
      std::is_same_v<GemmEpilogueOf<Args>, epi::LinearCombination>,
      "sm90::gemm picks among LinearCombination kernels; use sm90::Gemm<Cfg>::run for other functors");
  switch (gemm_choice(args.m, args.n, args.batch)) {
    case GemmChoice::kSmall:
      return Gemm<GemmSmall<Out>>::run(args, stream);
    case GemmChoice::kLargeCluster2:
      return Gemm<GemmLargeCluster2<Out>>::run(args, stream);
    default:
      return Gemm<GemmLarge<Out>>::run(args, stream);
  }
}

}  // namespace bwgemm::sm90
