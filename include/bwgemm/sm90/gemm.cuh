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
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/status.hpp"
#include "bwgemm/host/tensor_map.hpp"
#include "bwgemm/kernels/sm90/gemm_config.cuh"
#include "bwgemm/kernels/sm90/gemm_kernel.cuh"
#include "bwgemm/layout.hpp"

namespace bwgemm::sm90 {

// The fields (names, meanings, defaults) of bwgemm::GemmArguments (bwgemm/gemm.cuh).
template <class In, class Out = In, class Epilogue = epi::LinearCombination>
struct GemmArguments {
  static_assert(std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>,
                "A and B are __half or __nv_bfloat16");
  int64_t m = 0, n = 0, k = 0, batch = 1;
  const In* a = nullptr;       // M x K row-major
  int64_t lda = 0;             // elements between rows of A; 0 means K
  int64_t batch_stride_a = 0;  // elements between batches of A; 0 means M * lda
  const In* b = nullptr;
  BLayout b_layout = BLayout::kRowMajorKxN;
  int64_t ldb = 0;                      // 0 means N (K x N row-major) or K (N x K)
  int64_t batch_stride_b = 0;           // 0 means K * ldb or N * ldb
  const Out* c = nullptr;               // M x N row-major; read only when the epilogue reads it (beta != 0)
  int64_t ldc = 0, batch_stride_c = 0;  // 0 means N, M * ldc
  Out* d = nullptr;                     // M x N row-major
  int64_t ldd = 0, batch_stride_d = 0;  // 0 means N, M * ldd
  Epilogue epilogue{};  // D = epilogue(A·B) or epilogue(A·B, C); default {alpha = 1, beta = 0}
};

// The input, output and epilogue types of an arguments struct with GemmArguments' fields.
template <class Args>
using GemmInOf = std::remove_cv_t<std::remove_pointer_t<decltype(Args::a)>>;
template <class Args>
using GemmOutOf = std::remove_cv_t<std::remove_pointer_t<decltype(Args::d)>>;
template <class Args>
using GemmEpilogueOf = decltype(Args::epilogue);

namespace detail {

// The strides with their defaults filled in.
struct GemmStrides {
  int64_t lda, ldb, ldc, ldd, batch_stride_a, batch_stride_b, batch_stride_c, batch_stride_d;
};

template <class Args>
GemmStrides gemm_strides(const Args& a) {
  GemmStrides s{};
  const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
  s.lda = a.lda == 0 ? a.k : a.lda;
  s.ldb = a.ldb == 0 ? (kxn ? a.n : a.k) : a.ldb;
  s.ldc = a.ldc == 0 ? a.n : a.ldc;
  s.ldd = a.ldd == 0 ? a.n : a.ldd;
  s.batch_stride_a = a.batch_stride_a == 0 ? a.m * s.lda : a.batch_stride_a;
  s.batch_stride_b = a.batch_stride_b == 0 ? (kxn ? a.k : a.n) * s.ldb : a.batch_stride_b;
  s.batch_stride_c = a.batch_stride_c == 0 ? a.m * s.ldc : a.batch_stride_c;
  s.batch_stride_d = a.batch_stride_d == 0 ? a.m * s.ldd : a.batch_stride_d;
  return s;
}

// A rank-3 tensor map (inner, outer, batch) of 16-bit elements with row stride `ld` and batch stride
// `batch_stride` (elements), box (box_inner, box_outer, 1), 128-byte swizzle, tails zero-filled.
template <class In>
Status gemm_operand_map(const In* data, int64_t inner, int64_t outer, int64_t batch, int64_t ld,
                        int64_t batch_stride, uint32_t box_inner, uint32_t box_outer, CUtensorMap* out) {
  TensorMapDesc d;
  d.data_type = std::is_same_v<In, __half> ? TensorMapDataType::kFloat16 : TensorMapDataType::kBFloat16;
  d.rank = 3;
  d.global_address = data;
  d.global_dims[0] = static_cast<uint64_t>(inner);
  d.global_dims[1] = static_cast<uint64_t>(outer);
  d.global_dims[2] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = static_cast<uint64_t>(ld) * sizeof(In);
  d.global_strides_bytes[1] = static_cast<uint64_t>(batch_stride) * sizeof(In);
  d.box_dims[0] = box_inner;
  d.box_dims[1] = box_outer;
  d.box_dims[2] = 1;
  d.swizzle = TensorMapSwizzle::k128B;
  d.l2_promotion = TensorMapL2Promotion::k256B;
  d.oob_fill = TensorMapOobFill::kZero;  // the M, N and K tails read as zero
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
  static constexpr int64_t kMaxExtent = (int64_t{1} << 31) - 1;

  // Host-side checks only (no device access): shapes, pointers, alignment, strides, the functor.
  // `Args` is sm90::GemmArguments or any struct with its fields (bwgemm::GemmArguments).
  template <class Args>
  static Status can_implement(const Args& a) {
    check_types<Args>();
    const auto str = [](int64_t v) { return std::to_string(v); };
    const auto multiple_of_8 = [](int64_t v) { return v >= 8 && v % 8 == 0; };
    if (!multiple_of_8(a.m))
      return Status::invalid_argument("M must be a positive multiple of 8 (got " + str(a.m) + ")");
    if (!multiple_of_8(a.n))
      return Status::invalid_argument("N must be a positive multiple of 8 (got " + str(a.n) + ")");
    if (!multiple_of_8(a.k))
      return Status::invalid_argument("K must be a positive multiple of 8 (16-byte rows) (got " + str(a.k) +
                                      ")");
    if (a.batch < 1 || a.batch > 65535)
      return Status::invalid_argument("batch must be in [1, 65535] (got " + str(a.batch) + ")");
    if (a.m > kMaxExtent || a.n > kMaxExtent || a.k > kMaxExtent)
      return Status::invalid_argument("M, N and K must be < 2^31");
    if (a.b_layout != BLayout::kRowMajorKxN && a.b_layout != BLayout::kColumnMajorKxN)
      return Status::invalid_argument("b_layout is not a BLayout");

    const detail::GemmStrides s = detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    // Rows of 16-bit inputs are 16-byte aligned at multiples of 8 elements; of D and C at 16 / sizeof(Out).
    constexpr int64_t kInAlign = 8, kOutAlign = 16 / static_cast<int64_t>(sizeof(Out));
    const struct {
      int64_t ld, min;
      int64_t align;
      const char* name;
      const char* rule;
    } lds[] = {
        {s.lda, a.k, kInAlign, "lda", ">= K and a multiple of 8"},
        {s.ldb, kxn ? a.n : a.k, kInAlign, "ldb",
         kxn ? ">= N (B is K x N row-major) and a multiple of 8" : ">= K (B is N x K) and a multiple of 8"},
        {s.ldc, a.n, kOutAlign, "ldc", ">= N with 16-byte rows"},
        {s.ldd, a.n, kOutAlign, "ldd", ">= N with 16-byte rows"}};
    for (const auto& l : lds) {
      if (l.ld < l.min || l.ld % l.align != 0)
        return Status::invalid_argument(std::string(l.name) + " must be " + l.rule + " (got " + str(l.ld) +
                                        ")");
    }
    if (a.batch > 1) {
      const struct {
        int64_t stride, min;
        int64_t align;
        const char* name;
      } strides[] = {{s.batch_stride_a, 1, kInAlign, "batch_stride_a"},
                     {s.batch_stride_b, 1, kInAlign, "batch_stride_b"},
                     {s.batch_stride_c, 1, kOutAlign, "batch_stride_c"},
                     {s.batch_stride_d, a.m * s.ldd, kOutAlign, "batch_stride_d"}};
      for (const auto& b : strides) {
        if (b.stride < b.min || b.stride % b.align != 0)
          return Status::invalid_argument(std::string(b.name) + " must keep batches 16-byte aligned" +
                                          (b.min > 1 ? " and not overlap (>= M * ldd)" : "") + " (got " +
                                          str(b.stride) + ")");
      }
    }

    const bool read_c = epi::reads_source(a.epilogue);
    const struct {
      const void* p;
      bool required;
      const char* name;
      const char* why;
    } ptrs[] = {{a.a, true, "A", ""},
                {a.b, true, "B", ""},
                {a.d, true, "D", ""},
                {a.c, read_c, "C", " but the epilogue reads it (beta != 0)"}};
    for (const auto& q : ptrs) {
      if (!q.required) continue;
      if (q.p == nullptr) return Status::invalid_argument(std::string(q.name) + " is null" + q.why);
      if (!host::is_aligned16(q.p))
        return Status::invalid_argument(std::string(q.name) + " must be 16-byte aligned");
    }
    if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>) {
      if (!std::isfinite(a.epilogue.alpha) || !std::isfinite(a.epilogue.beta))
        return Status::invalid_argument("alpha and beta must be finite");
    }
    const sched::TileGrid tiles = tile_grid(a.m, a.n, a.batch);
    if (static_cast<int64_t>(tiles.tiles_m) * tiles.tiles_n * tiles.batch > kMaxExtent)
      return Status::invalid_argument("too many output tiles for one launch");
    return Status::success();
  }

  // Cluster tiles (kClusterBlockM x kBlockN) in the L2-friendly grouped order.
  static sched::TileGrid tile_grid(int64_t m, int64_t n, int64_t batch) {
    constexpr int32_t kGroupM = 8;  // cluster M tiles sharing each N tile in the L2-friendly order
    return sched::TileGrid{static_cast<int32_t>(ceil_div(m, Cfg::kClusterBlockM)),
                           static_cast<int32_t>(ceil_div(n, Cfg::kBlockN)), static_cast<int32_t>(batch),
                           kGroupM};
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
    int64_t resident = 1;
    if constexpr (std::is_same_v<typename Cfg::Scheduler, sched::StaticPersistent>) {
      if (Status s =
              host::resident_clusters(kernel, Cfg::kThreads, Cfg::kClusterM, Cfg::kSmemBytes, &resident);
          !s.ok())
        return s;
    }
    p.num_clusters = static_cast<int32_t>(Cfg::Scheduler::grid_clusters(p.tiles, resident));
    return host::launch_cluster_kernel(kernel, static_cast<uint32_t>(p.num_clusters * Cfg::kClusterM),
                                       Cfg::kThreads, Cfg::kClusterM, Cfg::kSmemBytes, stream, p);
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
//   GemmLarge : 128 x 256 tiles (one m64n256k16 wgmma per consumer per 16 K), 4 stages, one CTA per cluster:
//               the widest tile the registers allow
//   GemmSmall : 128 x 128 tiles, 6 stages: twice the tiles, for shapes whose 128 x 256 tiles would leave SMs
//               idle
// GemmLargeCluster2 (the GemmLarge tile in clusters of two CTAs along M sharing B through TMA multicast) is
// correct and tested but measured 1.4-1.6x slower than GemmLarge on an H200 (docs/performance.md), so the
// default does not choose it.
template <class Out>
using GemmLarge = GemmConfig<256, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmSmall = GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmLargeCluster2 = GemmConfig<256, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out>;

// Output tiles of 128 x 256 below which GemmSmall is chosen: the SM count of an H100 SXM / H200 (132).
inline constexpr int64_t kGemmSmallTileThreshold = 132;

// Default choice. Takes sm90::GemmArguments<In, Out> or bwgemm::GemmArguments<In, Out> (LinearCombination).
template <class Args>
Status gemm(const Args& args, cudaStream_t stream = nullptr) {
  using Out = GemmOutOf<Args>;
  static_assert(
      std::is_same_v<GemmEpilogueOf<Args>, epi::LinearCombination>,
      "sm90::gemm picks among LinearCombination kernels; use sm90::Gemm<Cfg>::run for other functors");
  const int64_t wide_tiles = ceil_div(args.m, int64_t{128}) * ceil_div(args.n, int64_t{256}) * args.batch;
  if (wide_tiles < kGemmSmallTileThreshold) return Gemm<GemmSmall<Out>>::run(args, stream);
  return Gemm<GemmLarge<Out>>::run(args, stream);
}

}  // namespace bwgemm::sm90
