// The arguments of a GEMM call and their validation, shared by every backend (sm_100a: sm100/gemm.cuh;
// sm_90a: sm90/gemm.cuh; the dispatching bwgemm::gemm: gemm.cuh). Host code only: no kernels here.
//
//   D[m, n, l] = epilogue(sum_k A[m,k,l] B[k,n,l]) or epilogue(.., C[m,n,l])   (default: alpha AB + beta C)
//
// A is fp16 or bf16, M x K row-major (row stride lda). B has A's type and is either K x N row-major
// (BLayout::kRowMajorKxN, ldb >= N) or N x K row-major, i.e. K-major (BLayout::kColumnMajorKxN, ldb >= K).
// C and D are M x N row-major in fp16, bf16 or fp32; C is read only when the epilogue reads it (beta != 0,
// or a device beta_ptr given). A zero leading dimension or batch stride means packed.
// alpha and beta may have device-pointer parts, read at run time (epi::LinearCombination's alpha_ptr and
// beta_ptr; docs/api.md, "Device-pointer scales").
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"  // host::OperandPointers

namespace bwgemm {

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
  int64_t ldb = 0;             // 0 means N (K x N row-major) or K (N x K)
  int64_t batch_stride_b = 0;  // 0 means K * ldb or N * ldb
  const Out* c = nullptr;  // M x N row-major; read only when the epilogue reads it (beta != 0 or beta_ptr)
  int64_t ldc = 0, batch_stride_c = 0;  // 0 means N, M * ldc
  Out* d = nullptr;                     // M x N row-major
  int64_t ldd = 0, batch_stride_d = 0;  // 0 means N, M * ldd
  Epilogue epilogue{};     // D = epilogue(A·B) or epilogue(A·B, C); default {alpha = 1, beta = 0}, and
                           // LinearCombination's alpha_ptr, beta_ptr: device scales (null by default)
  LaunchOptions launch{};  // per-call launch options: programmatic dependent launch (off by default)
  // Scratch memory for the kernels that take it: the sm_90a stream-K kernels (sm90::gemm_workspace_bytes
  // says how many bytes a call's choice takes; 0 for every other kernel). Device memory, 16-byte aligned,
  // not overlapping any operand, zero-filled before its first use (e.g. cudaMemsetAsync); a call leaves
  // the words that must be zero at zero again, so it is cleared once, not per call. One call at a time per
  // workspace (calls on one stream are). Null or workspace_bytes 0 (the default): none, and no kernel that
  // needs one is chosen.
  void* workspace = nullptr;
  int64_t workspace_bytes = 0;  // its size (what sm90::gemm_workspace_bytes asks for, or more)
};

namespace detail {

// The strides with their defaults filled in: GemmStrides and gemm_strides, base/layout.hpp (shared with the
// host reference).

}  // namespace detail

// The GEMM's argument checks, the same on every backend (no device access): shapes, strides, pointers,
// alignment, the functor. Every GEMM entry point runs them first; a Config's own limits (its tile count)
// come after, in its can_implement.
template <class In, class Out, class Epilogue>
Status validate(const GemmArguments<In, Out, Epilogue>& a) {
  using detail::str;
  const auto multiple_of_8 = [](int64_t v) { return v >= 8 && v % 8 == 0; };
  // M is the outer dimension of A's and D's tensor maps and rows past it are masked: any M >= 1. N and K
  // are inner dimensions: multiples of 8 keep every row 16-byte aligned (TMA, the vector stores).
  if (a.m < 1) return Status::invalid_argument("M must be >= 1 (got " + str(a.m) + ")");
  if (!multiple_of_8(a.n))
    return Status::invalid_argument("N must be a positive multiple of 8 (got " + str(a.n) + ")");
  if (!multiple_of_8(a.k))
    return Status::invalid_argument("K must be a positive multiple of 8 (16-byte rows) (got " + str(a.k) +
                                    ")");
  if (Status s = detail::check_extents(a.m, a.n, a.k, a.batch); !s.ok()) return s;
  if (a.b_layout != BLayout::kRowMajorKxN && a.b_layout != BLayout::kColumnMajorKxN)
    return Status::invalid_argument("b_layout is not a BLayout");

  const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
  // The leading dimensions with their defaults (which cannot overflow); the batch strides' defaults are
  // products, filled in below with overflow checks.
  detail::GemmStrides s{};
  s.lda = a.lda == 0 ? a.k : a.lda;
  s.ldb = a.ldb == 0 ? (kxn ? a.n : a.k) : a.ldb;
  s.ldc = a.ldc == 0 ? a.n : a.ldc;
  s.ldd = a.ldd == 0 ? a.n : a.ldd;
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
  constexpr int64_t kInBytes = sizeof(In), kOutBytes = sizeof(Out);
  const int64_t b_rows = kxn ? a.k : a.n, b_cols = kxn ? a.n : a.k;
  const struct {
    int64_t ld, elem_bytes;
    const char* name;
  } ld_limits[] = {{s.lda, kInBytes, "lda"},
                   {s.ldb, kInBytes, "ldb"},
                   {s.ldc, kOutBytes, "ldc"},
                   {s.ldd, kOutBytes, "ldd"}};
  for (const auto& l : ld_limits)
    if (Status st = detail::check_stride_limit(l.name, l.ld, l.elem_bytes); !st.ok()) return st;
  const struct {
    const char* name;
    int64_t given, rows, ld, elem_bytes;
    int64_t* out;
  } batch_strides[] = {{"batch_stride_a", a.batch_stride_a, a.m, s.lda, kInBytes, &s.batch_stride_a},
                       {"batch_stride_b", a.batch_stride_b, b_rows, s.ldb, kInBytes, &s.batch_stride_b},
                       {"batch_stride_c", a.batch_stride_c, a.m, s.ldc, kOutBytes, &s.batch_stride_c},
                       {"batch_stride_d", a.batch_stride_d, a.m, s.ldd, kOutBytes, &s.batch_stride_d}};
  for (const auto& b : batch_strides) {
    if (Status st = detail::effective_batch_stride(b.name, b.given, b.rows, b.ld, b.out); !st.ok()) return st;
    if (Status st = detail::check_stride_limit(b.name, *b.out, b.elem_bytes); !st.ok()) return st;
  }
  if (a.batch > 1) {
    int64_t d_batch_min = INT64_MAX;  // batches of D may not overlap: at least M · ldd apart
    (void)checked_mul(a.m, s.ldd, &d_batch_min);
    const struct {
      int64_t stride, min;
      int64_t align;
      const char* name;
    } strides[] = {{s.batch_stride_a, 1, kInAlign, "batch_stride_a"},
                   {s.batch_stride_b, 1, kInAlign, "batch_stride_b"},
                   {s.batch_stride_c, 1, kOutAlign, "batch_stride_c"},
                   {s.batch_stride_d, d_batch_min, kOutAlign, "batch_stride_d"}};
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
              {a.c, read_c, "C", " but the epilogue reads it (beta != 0 or beta_ptr given)"}};
  for (const auto& q : ptrs) {
    if (!q.required) continue;
    if (Status s = detail::check_operand_pointer(q.p, q.name, q.why); !s.ok()) return s;
  }
  if (Status st = detail::check_workspace_pointer(a.workspace, a.workspace_bytes); !st.ok()) return st;

  // Every offset the kernels form stays inside each operand's span, and no output aliases an input (D == C
  // with the same strides, an in-place update, is the one exception).
  detail::OperandSpan span_a, span_b, span_c{}, span_d;
  if (Status st =
          detail::strided_span("A", a.a, a.m, a.k, s.lda, a.batch, s.batch_stride_a, kInBytes, &span_a);
      !st.ok())
    return st;
  if (Status st =
          detail::strided_span("B", a.b, b_rows, b_cols, s.ldb, a.batch, s.batch_stride_b, kInBytes, &span_b);
      !st.ok())
    return st;
  if (Status st =
          detail::strided_span("D", a.d, a.m, a.n, s.ldd, a.batch, s.batch_stride_d, kOutBytes, &span_d);
      !st.ok())
    return st;
  if (Status st = detail::check_no_overlap(span_d, {span_a, span_b}); !st.ok()) return st;
  if (read_c) {
    if (Status st =
            detail::strided_span("C", a.c, a.m, a.n, s.ldc, a.batch, s.batch_stride_c, kOutBytes, &span_c);
        !st.ok())
      return st;
    const bool in_place = static_cast<const void*>(a.c) == static_cast<const void*>(a.d) && s.ldc == s.ldd &&
                          (a.batch == 1 || s.batch_stride_c == s.batch_stride_d);
    if (!in_place)
      if (Status st = detail::check_no_overlap(span_d, {span_c}); !st.ok()) return st;
  }
  if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>) {
    if (!std::isfinite(a.epilogue.alpha) || !std::isfinite(a.epilogue.beta))
      return Status::invalid_argument("alpha and beta must be finite");
    if (Status st = detail::check_linear_combination_scales(a.epilogue, span_d); !st.ok()) return st;
  }
  // The kernels write the workspace: it may share memory with no operand (nor device scale).
  const float* alpha_ptr = nullptr;
  const float* beta_ptr = nullptr;
  if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>)
    alpha_ptr = a.epilogue.alpha_ptr, beta_ptr = a.epilogue.beta_ptr;
  const detail::OperandSpan operands[] = {span_a, span_b, span_d, span_c};
  const detail::NamedScale scales[] = {{alpha_ptr, "alpha_ptr"}, {beta_ptr, "beta_ptr"}};
  if (Status st = detail::check_workspace_apart(a.workspace, a.workspace_bytes, operands, scales); !st.ok())
    return st;
  return Status::success();
}

namespace detail {

// The kernel-parameter fields every backend's GEMM shares (D, C and their strides, the extents, Config
// Cfg's tile grid, the functor), from validated arguments and their strides.
template <class Cfg, class Params, class In, class Out, class Epilogue>
void fill_common_gemm_params(const GemmArguments<In, Out, Epilogue>& a, const GemmStrides& st, Params* p) {
  const bool read_c = epi::reads_source(a.epilogue);
  p->d = a.d;
  p->c = read_c ? a.c : nullptr;
  p->ldd = st.ldd, p->batch_stride_d = st.batch_stride_d;
  p->ldc = st.ldc, p->batch_stride_c = st.batch_stride_c;
  p->m = static_cast<int32_t>(a.m);
  p->n = static_cast<int32_t>(a.n);
  p->k = static_cast<int32_t>(a.k);
  p->tiles = config_tile_grid<Cfg>(a.m, a.n, a.batch);
  p->read_c = read_c;
  p->epilogue = a.epilogue;
}

}  // namespace detail

// The device memory a GEMM call reads or writes: A, B, D, and C when the epilogue reads it.
template <class In, class Out, class Epilogue>
host::OperandPointers device_operands(const GemmArguments<In, Out, Epilogue>& a) {
  host::OperandPointers ops{{{a.a, "A"}, {a.b, "B"}, {a.d, "D"}, {a.c, "C"}}, 3};
  if (epi::reads_source(a.epilogue)) ops.count = 4;
  if constexpr (std::is_same_v<Epilogue, epi::LinearCombination>) {
    ops.add_if_given(a.epilogue.alpha_ptr, "alpha_ptr");
    ops.add_if_given(a.epilogue.beta_ptr, "beta_ptr");
  }
  if (a.workspace_bytes > 0) ops.add_if_given(a.workspace, "workspace");
  return ops;
}

}  // namespace bwgemm
