// The arguments of the grouped GEMM (a mixture-of-experts layer's FC2) and their validation, in its 16-bit
// and NVFP4 forms, with the checks every grouped operation shares (the grouped dual GEMM's forms:
// arguments/grouped_dual_gemm.hpp). Host code only: no kernels here, and no kernel runs these operations
// yet; the structs, bwgemm::validate and the host references (reference/grouped.hpp) are the contract the
// kernels implement. docs/moe.md describes the conventions.
//
//   D_e = alpha_e · A_e B_eᵀ  for every expert e in [0, E)
//
// The tokens (GroupedTokens, base/grouped.hpp): contiguous (A is [total_tokens, K], D [total_tokens, N],
// expert e owns rows offsets[e-1] .. offsets[e] of both, torch._grouped_mm's `offs`: the cumulative row
// ends, E int32 in device memory) or masked (A is [E, max_tokens, K], D [E, max_tokens, N], expert e owns the
// first counts[e] rows of its slab). Offsets and counts are read on the device and not trusted: values out
// of range clamp the expert's rows to the buffers and set bits of the optional device status word
// (grouped::ContiguousExpertScan, grouped::masked_expert_rows). Rows no expert owns are neither read nor
// written. The weights B are stacked [E, N, K] (each expert's an nn.Linear weight, N x K row-major), expert e
// at b + e · b_expert_stride. alpha_e = alpha · alpha_ptr[e] (alpha_ptr: E floats in device memory, or null
// for alpha alone).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/nvfp4_operands.hpp"  // Nvfp4Tensor, nvfp4_tensor, the NVFP4 shape rule
#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/operand_span.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/host/launch.hpp"  // host::OperandPointers, LaunchOptions

namespace bwgemm {

// 16-bit operands: A, B in __half or __nv_bfloat16, D in __half, __nv_bfloat16 or float; fp32 accumulation.
template <class In, class Out = In>
struct GroupedGemmArguments {
  static_assert(std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>,
                "A and B are __half or __nv_bfloat16");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float>,
                "D is __half, __nv_bfloat16 or float");
  GroupedTokens tokens;  // contiguous_tokens(total_tokens, offsets) or masked_tokens(max_tokens, counts)
  int64_t experts = 0;   // E
  int64_t n = 0, k = 0;
  const In* a = nullptr;        // contiguous: [total_tokens, K]; masked: [E, max_tokens, K]; row stride lda
  int64_t lda = 0;              // 0 means K
  int64_t a_expert_stride = 0;  // masked: elements between experts' slabs, 0 means max_tokens · lda
  const In* b = nullptr;        // [E, N, K]: expert e's N x K weight at b + e · b_expert_stride
  int64_t ldb = 0;              // 0 means K
  int64_t b_expert_stride = 0;  // 0 means N · ldb
  Out* d = nullptr;             // contiguous: [total_tokens, N]; masked: [E, max_tokens, N]; row stride ldd
  int64_t ldd = 0;              // 0 means N
  int64_t d_expert_stride = 0;  // masked: 0 means max_tokens · ldd
  float alpha = 1.0f;           // alpha_e = alpha · alpha_ptr[e]
  const float* alpha_ptr = nullptr;  // E floats in device memory (4-byte aligned), or null: alpha alone
  // The tokens an expert is expected to get, for the choice of kernel (0: derived from the buffers' rows).
  // A hint: the kernels are correct for any counts.
  int64_t expected_tokens_per_expert = 0;
  // Optional device status word (4-byte aligned, device memory; null: none): the kernels OR in the
  // grouped::kStatus* bits of out-of-range offsets or counts and never clear it (base/grouped.hpp).
  uint32_t* status = nullptr;
  LaunchOptions launch{};  // per-call launch options: programmatic dependent launch (off by default)
};

// NVFP4 operands (arguments/nvfp4_operands.hpp: packed e2m1 K-major data and e4m3 scales, one per 16 K
// elements, in the 128x4 blocked layout), D in __half, __nv_bfloat16 or float.
//   A, contiguous: data [total_tokens, K/2] bytes; scales a blocked buffer of
//      grouped_scale_rows(total_tokens, E) = round_up(total_tokens + 127 · E, 128) rows and K/16 columns,
//      expert e's scales starting at row sum_{j<e} round_up(rows_j, 128) (grouped::ExpertRows::scale_row;
//      vLLM's blockscale_offsets), so each expert's scales are a blocked buffer of its own.
//   A, masked: data [E, max_tokens, K/2] bytes; scales blocked_scale_bytes(max_tokens, K/16, E) (batch e:
//      expert e), as the dense NVFP4 operand with batch E.
//   B: expert e's data at b.data + e · b_data_expert_stride bytes (N x K/2), its scales a blocked buffer of
//      N rows at b.scales + e · b_scales_expert_stride bytes.
// alpha_e = alpha · alpha_ptr[e]: for NVFP4, A's global scale times expert e's weight global scale.
template <class Out = __half>
struct Nvfp4GroupedGemmArguments {
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float>,
                "D is __half, __nv_bfloat16 or float");
  GroupedTokens tokens;
  int64_t experts = 0;
  int64_t n = 0, k = 0;
  Nvfp4Tensor a;                       // the tokens (see above)
  Nvfp4Tensor b;                       // the weights, stacked [E, N, K]
  int64_t b_data_expert_stride = 0;    // bytes; 0 means N · K / 2
  int64_t b_scales_expert_stride = 0;  // bytes; 0 means blocked_scale_bytes(N, K / 16)
  Out* d = nullptr;                    // as GroupedGemmArguments::d
  int64_t ldd = 0;                     // 0 means N
  int64_t d_expert_stride = 0;         // masked: 0 means max_tokens · ldd
  float alpha = 1.0f;
  const float* alpha_ptr = nullptr;  // E floats, or null
  int64_t expected_tokens_per_expert = 0;
  uint32_t* status = nullptr;
  LaunchOptions launch{};
};

namespace detail {

// E: the grid's expert coordinate, as the dense batch.
inline constexpr int64_t kMaxExperts = 65535;

static_assert(grouped::kScaleRowAlign == kScaleAtomRows &&
                  grouped::scale_byte_offset(128, 4) == kScaleAtomBytes,
              "base/grouped.hpp's scale placement follows formats/scale_layout.cuh's atoms");

// An output of a grouped call and the memory it may not share: "D overlaps offsets: the kernels write D, so
// it may share memory with no input". Empty spans (an optional array not given) are skipped.
inline Status check_grouped_apart(const OperandSpan& output, std::initializer_list<OperandSpan> others) {
  if (output.bytes <= 0) return Status::success();
  for (const OperandSpan& o : others)
    if (o.bytes > 0 && overlaps(output, o))
      return Status::invalid_argument(std::string(output.name) + " overlaps " + o.name +
                                      ": the kernels write " + output.name +
                                      ", so it may share memory with no other argument");
  return Status::success();
}

// An array of E 4-byte values in device memory (offsets, counts, a per-expert scale): null (when optional)
// or 4-byte aligned, its span E · 4 bytes (empty when null).
inline Status grouped_array(const void* p, const char* name, int64_t experts, bool required,
                            OperandSpan* span) {
  *span = OperandSpan{p, 0, name};
  if (p == nullptr) {
    if (required) return Status::invalid_argument(std::string(name) + " is null");
    return Status::success();
  }
  if (reinterpret_cast<uintptr_t>(p) % 4 != 0)
    return Status::invalid_argument(std::string(name) +
                                    " must be 4-byte aligned (E 4-byte values in device memory)");
  return strided_span(name, p, 1, experts, experts, 1, 0, 4, span);
}

// The tokens, E and the hint, shared by every grouped operation: E in [1, 65535]; the layout's rows in
// [1, 2^31 - 1024] (the buffers' capacity, at least one row) and its device array given (4-byte aligned),
// the other layout's fields 0 / null; the hint in [0, rows]. `metadata`: the device array's span.
template <class Args>
Status validate_grouped_tokens(const Args& a, OperandSpan* metadata) {
  const GroupedTokens& t = a.tokens;
  if (a.experts < 1 || a.experts > kMaxExperts)
    return Status::invalid_argument("experts must be in [1, 65535] (got " + str(a.experts) + ")");
  int64_t rows = 0;
  if (t.layout == GroupedLayout::kContiguous) {
    if (t.max_tokens != 0 || t.counts != nullptr)
      return Status::invalid_argument(
          "max_tokens and counts are for the masked layout: with contiguous tokens they must be 0 and null "
          "(got max_tokens " +
          str(t.max_tokens) + ")");
    if (t.total_tokens < 1 || t.total_tokens > kMaxGemmExtent)
      return Status::invalid_argument(
          "total_tokens must be in [1, 2^31 - 1024] (the rows of A and of the output) (got " +
          str(t.total_tokens) + ")");
    if (Status s = grouped_array(t.offsets, "offsets", a.experts, true, metadata); !s.ok()) return s;
    rows = t.total_tokens;
  } else if (t.layout == GroupedLayout::kMasked) {
    if (t.total_tokens != 0 || t.offsets != nullptr)
      return Status::invalid_argument(
          "total_tokens and offsets are for the contiguous layout: with masked tokens they must be 0 and "
          "null "
          "(got total_tokens " +
          str(t.total_tokens) + ")");
    if (t.max_tokens < 1 || t.max_tokens > kMaxGemmExtent)
      return Status::invalid_argument(
          "max_tokens must be in [1, 2^31 - 1024] (the rows of each expert's slab) (got " +
          str(t.max_tokens) + ")");
    if (Status s = grouped_array(t.counts, "counts", a.experts, true, metadata); !s.ok()) return s;
    rows = t.max_tokens;
  } else {
    return Status::invalid_argument("tokens.layout is not a GroupedLayout");
  }
  if (a.expected_tokens_per_expert < 0 || a.expected_tokens_per_expert > rows)
    return Status::invalid_argument(std::string("expected_tokens_per_expert must be in [0, ") +
                                    (t.layout == GroupedLayout::kContiguous ? "total_tokens" : "max_tokens") +
                                    "] (0: no hint) (got " + str(a.expected_tokens_per_expert) + ")");
  return Status::success();
}

// The status word: null, or 4-byte aligned, its 4 bytes apart from every other argument (the kernels write
// it). `span`: empty when null.
inline Status grouped_status_word(const uint32_t* p, OperandSpan* span) {
  *span = OperandSpan{p, 0, "status"};
  if (p == nullptr) return Status::success();
  if (reinterpret_cast<uintptr_t>(p) % 4 != 0)
    return Status::invalid_argument(
        "status must be 4-byte aligned (one uint32 in device memory; null for none)");
  return strided_span("status", p, 1, 1, 1, 1, 1, 4, span);
}

// A leading dimension: 0 means `min`; at least `min`, a multiple of `align` elements, below 2^40 bytes.
inline Status grouped_ld(const char* name, int64_t given, int64_t min, int64_t align, const char* rule,
                         int64_t elem_bytes, int64_t* out) {
  *out = given == 0 ? min : given;
  if (*out < min || *out % align != 0)
    return Status::invalid_argument(std::string(name) + " must be " + rule + " (got " + str(*out) + ")");
  return check_stride_limit(name, *out, elem_bytes);
}

// An expert stride whose default (0) is one expert's extent (`extent_what`, e.g. "max_tokens · lda"): at
// least that extent (experts apart), a multiple of `align` units, below 2^40 bytes (`unit_bytes` per unit).
inline Status grouped_expert_stride(const char* name, int64_t given, int64_t extent, bool extent_overflowed,
                                    const char* extent_what, int64_t align, int64_t unit_bytes,
                                    int64_t* out) {
  if (extent_overflowed)
    return Status::invalid_argument(std::string(name) + ": one expert's extent (" + extent_what +
                                    ") overflows int64");
  *out = given == 0 ? extent : given;
  if (*out < extent || *out % align != 0)
    return Status::invalid_argument(std::string(name) + " must be at least " + extent_what +
                                    " (one expert) and a multiple of " + str(align) +
                                    " (16-byte aligned experts) (got " + str(*out) + ", " + extent_what +
                                    " = " + str(extent) + ")");
  return check_stride_limit(name, *out, unit_bytes);
}

// A 16-bit (or fp32) matrix of the tokens (A, or a 16-bit output): its leading dimension (>= cols, rows of
// 16 bytes) and, masked, its expert stride (>= max_tokens · ld; contiguous: the stride must be 0), its span
// inside the address space.
struct TokenMatrixNames {
  const char* matrix;         // "A"
  const char* ld;             // "lda"
  const char* expert_stride;  // "a_expert_stride"
};
inline Status grouped_token_matrix(const void* p, const GroupedTokens& t, int64_t experts, int64_t cols,
                                   int64_t ld_given, int64_t stride_given, int64_t elem_bytes,
                                   const TokenMatrixNames& names, const std::string& ld_rule,
                                   OperandSpan* span) {
  const int64_t align = 16 / elem_bytes;
  int64_t ld = 0, stride = 0;
  if (Status s = grouped_ld(names.ld, ld_given, cols, align, ld_rule.c_str(), elem_bytes, &ld); !s.ok())
    return s;
  if (t.layout == GroupedLayout::kContiguous) {
    if (stride_given != 0)
      return Status::invalid_argument(std::string(names.expert_stride) +
                                      " is for the masked layout: with contiguous tokens it must be 0 (got " +
                                      str(stride_given) + ")");
  } else {
    int64_t extent = 0;
    const bool overflow = !checked_mul(t.max_tokens, ld, &extent);
    const std::string what = std::string("max_tokens · ") + names.ld;
    if (Status s = grouped_expert_stride(names.expert_stride, stride_given, extent, overflow, what.c_str(),
                                         align, elem_bytes, &stride);
        !s.ok())
      return s;
  }
  if (Status s = check_operand_pointer(p, names.matrix); !s.ok()) return s;
  if (t.layout == GroupedLayout::kContiguous)
    return strided_span(names.matrix, p, t.total_tokens, cols, ld, 1, 0, elem_bytes, span);
  return strided_span(names.matrix, p, t.max_tokens, cols, ld, experts, stride, elem_bytes, span);
}

// 16-bit stacked weights [E, N, K] (B, or B1 and B2 with one ldb and one expert stride): ldb >= K, a multiple
// of 8; the expert stride >= N · ldb, a multiple of 8; each pointer given, its span inside the address space.
template <class In, size_t Count>
Status grouped_weights_16bit(const In* const (&ptrs)[Count], const char* const (&names)[Count],
                             int64_t experts, int64_t n, int64_t k, int64_t ldb_given, int64_t stride_given,
                             const char* stride_name, OperandSpan (&spans)[Count]) {
  constexpr int64_t kBytes = sizeof(In);
  int64_t ldb = 0, stride = 0, extent = 0;
  if (Status s = grouped_ld("ldb", ldb_given, k, 8, ">= K and a multiple of 8 (16-byte rows)", kBytes, &ldb);
      !s.ok())
    return s;
  const bool overflow = !checked_mul(n, ldb, &extent);
  if (Status s =
          grouped_expert_stride(stride_name, stride_given, extent, overflow, "N · ldb", 8, kBytes, &stride);
      !s.ok())
    return s;
  for (size_t i = 0; i < Count; ++i) {
    if (Status s = check_operand_pointer(ptrs[i], names[i]); !s.ok()) return s;
    if (Status s = strided_span(names[i], ptrs[i], n, k, ldb, experts, stride, kBytes, &spans[i]); !s.ok())
      return s;
  }
  return Status::success();
}

// An NVFP4 tensor of the tokens (A, or an NVFP4 output), `cols` its inner extent (K, or N): both pointers
// given; contiguous: data total_tokens · cols/2 bytes, scales blocked_scale_bytes(grouped_scale_rows(
// total_tokens, E), cols/16); masked: the dense NVFP4 operand of max_tokens rows with batch E (each expert's
// slab below 2^40 bytes). Products overflow-checked.
inline Status grouped_nvfp4_tokens(const void* data_p, const void* scales_p, const GroupedTokens& t,
                                   int64_t experts, int64_t cols, const char* data_name,
                                   const char* scales_name, OperandSpan* data, OperandSpan* scales) {
  if (Status s = check_operand_pointer(data_p, data_name); !s.ok()) return s;
  if (Status s = check_operand_pointer(scales_p, scales_name); !s.ok()) return s;
  if (t.layout == GroupedLayout::kMasked)
    return nvfp4_operand_spans(Nvfp4Tensor{data_p, scales_p}, t.max_tokens, cols, experts, data_name,
                               scales_name, data, scales);
  int64_t data_bytes = 0, atoms = 0, scale_bytes = 0;
  if (!checked_mul(t.total_tokens, cols / 2, &data_bytes))
    return Status::invalid_argument(std::string(data_name) + ": total_tokens rows of " + str(cols / 2) +
                                    " bytes overflow int64");
  const int64_t scale_rows = grouped::grouped_scale_rows(t.total_tokens, experts);
  if (!checked_mul(scale_rows / kScaleAtomRows, ceil_div(cols / kNvfp4BlockSize, kScaleAtomCols), &atoms) ||
      !checked_mul(atoms, kScaleAtomBytes, &scale_bytes))
    return Status::invalid_argument(
        std::string(scales_name) +
        ": the blocked scales of round_up(total_tokens + 127 x E, 128) rows overflow int64");
  if (Status s = strided_span(data_name, data_p, 1, data_bytes, data_bytes, 1, 0, 1, data); !s.ok()) return s;
  return strided_span(scales_name, scales_p, 1, scale_bytes, scale_bytes, 1, 0, 1, scales);
}

// NVFP4 stacked weights [E, N, K] (B, or B1 and B2 sharing the two expert strides): the data stride >=
// N · K/2 bytes, the scales stride >= blocked_scale_bytes(N, K/16), both multiples of 16 and below 2^40;
// each pointer given, each span inside the address space.
template <size_t Count>
Status grouped_weights_nvfp4(const Nvfp4Tensor* const (&ts)[Count], const char* const (&data_names)[Count],
                             const char* const (&scale_names)[Count], int64_t experts, int64_t n, int64_t k,
                             int64_t data_stride_given, int64_t scales_stride_given,
                             OperandSpan (&data)[Count], OperandSpan (&scales)[Count]) {
  int64_t data_extent = 0, scale_extent = 0, data_stride = 0, scales_stride = 0;
  const bool data_overflow = !checked_mul(n, k / 2, &data_extent);
  if (Status s = grouped_expert_stride("b_data_expert_stride", data_stride_given, data_extent, data_overflow,
                                       "N · K / 2 bytes", 16, 1, &data_stride);
      !s.ok())
    return s;
  int64_t atoms = 0;
  const bool scale_overflow =
      !checked_mul(ceil_div(n, kScaleAtomRows), ceil_div(k / kNvfp4BlockSize, kScaleAtomCols), &atoms) ||
      !checked_mul(atoms, kScaleAtomBytes, &scale_extent);
  if (Status s =
          grouped_expert_stride("b_scales_expert_stride", scales_stride_given, scale_extent, scale_overflow,
                                "blocked_scale_bytes(N, K / 16)", 16, 1, &scales_stride);
      !s.ok())
    return s;
  for (size_t i = 0; i < Count; ++i) {
    if (Status s = check_operand_pointer(ts[i]->data, data_names[i]); !s.ok()) return s;
    if (Status s = check_operand_pointer(ts[i]->scales, scale_names[i]); !s.ok()) return s;
    if (Status s = strided_span(data_names[i], ts[i]->data, 1, data_extent, data_extent, experts, data_stride,
                                1, &data[i]);
        !s.ok())
      return s;
    if (Status s = strided_span(scale_names[i], ts[i]->scales, 1, scale_extent, scale_extent, experts,
                                scales_stride, 1, &scales[i]);
        !s.ok())
      return s;
  }
  return Status::success();
}

// The host scale and its per-expert device array: the scale finite, the array null or E aligned floats.
inline Status grouped_alpha(float alpha, const char* alpha_name, const float* p, const char* ptr_name,
                            int64_t experts, OperandSpan* span) {
  if (!std::isfinite(alpha))
    return Status::invalid_argument(std::string(alpha_name) + " must be finite (got " +
                                    std::to_string(alpha) + ")");
  return grouped_array(p, ptr_name, experts, false, span);
}

// N and K of a 16-bit grouped operation: positive multiples of 8 (16-byte rows), within the extent limit.
inline Status grouped_16bit_shape(int64_t n, int64_t k) {
  if (n < 8 || n % 8 != 0)
    return Status::invalid_argument("N must be a positive multiple of 8 (got " + str(n) + ")");
  if (k < 8 || k % 8 != 0)
    return Status::invalid_argument("K must be a positive multiple of 8 (16-byte rows) (got " + str(k) + ")");
  return check_extents(1, n, k, 1);
}

// The 16-bit (or fp32) output of an operation with NVFP4 or 16-bit inputs: ld >= N with 16-byte rows, the
// expert stride (masked), the pointer, the span.
template <class Out>
Status grouped_output_16bit(const Out* p, const GroupedTokens& t, int64_t experts, int64_t n, int64_t ld,
                            int64_t expert_stride, const TokenMatrixNames& names, OperandSpan* span) {
  return grouped_token_matrix(p, t, experts, n, ld, expert_stride, static_cast<int64_t>(sizeof(Out)), names,
                              ">= N with 16-byte rows", span);
}

}  // namespace detail

// The 16-bit grouped GEMM's checks (no device access): E and the tokens (layout, rows, offsets or counts),
// N and K multiples of 8, the leading dimensions and expert strides (16-byte rows and experts, experts of
// D apart, every stride below 2^40 bytes), the pointers, every span inside the address space with
// overflow-checked products, D apart from every input and the metadata, alpha finite, alpha_ptr and status
// aligned, status apart from everything.
template <class In, class Out>
Status validate(const GroupedGemmArguments<In, Out>& a) {
  using namespace detail;
  OperandSpan meta, span_a, span_b[1], span_d, span_alpha, span_status;
  if (Status s = validate_grouped_tokens(a, &meta); !s.ok()) return s;
  if (Status s = grouped_16bit_shape(a.n, a.k); !s.ok()) return s;
  if (Status s = grouped_token_matrix(a.a, a.tokens, a.experts, a.k, a.lda, a.a_expert_stride, sizeof(In),
                                      {"A", "lda", "a_expert_stride"},
                                      ">= K and a multiple of 8 (16-byte rows)", &span_a);
      !s.ok())
    return s;
  const In* const b[1] = {a.b};
  const char* const b_names[1] = {"B"};
  if (Status s = grouped_weights_16bit(b, b_names, a.experts, a.n, a.k, a.ldb, a.b_expert_stride,
                                       "b_expert_stride", span_b);
      !s.ok())
    return s;
  if (Status s = grouped_output_16bit(a.d, a.tokens, a.experts, a.n, a.ldd, a.d_expert_stride,
                                      {"D", "ldd", "d_expert_stride"}, &span_d);
      !s.ok())
    return s;
  if (Status s = grouped_alpha(a.alpha, "alpha", a.alpha_ptr, "alpha_ptr", a.experts, &span_alpha); !s.ok())
    return s;
  if (Status s = grouped_status_word(a.status, &span_status); !s.ok()) return s;
  if (Status s = check_grouped_apart(span_d, {span_a, span_b[0], meta, span_alpha, span_status}); !s.ok())
    return s;
  return check_grouped_apart(span_status, {span_a, span_b[0], meta, span_alpha});
}

// The NVFP4 grouped GEMM's checks: as the 16-bit form's, with N a multiple of 16 and K of 64, A's data and
// scales in the layout's sizes (contiguous: the scales of grouped_scale_rows(total_tokens, E) rows), the
// weights' two expert strides (>= one expert, multiples of 16 bytes, below 2^40), D apart from all of them.
template <class Out>
Status validate(const Nvfp4GroupedGemmArguments<Out>& a) {
  using namespace detail;
  OperandSpan meta, a_data, a_scales, b_data[1], b_scales[1], span_d, span_alpha, span_status;
  if (Status s = validate_grouped_tokens(a, &meta); !s.ok()) return s;
  if (Status s = validate_nvfp4_gemm_shape(1, a.n, a.k, 1); !s.ok()) return s;
  if (Status s = grouped_nvfp4_tokens(a.a.data, a.a.scales, a.tokens, a.experts, a.k, "A data", "A scales",
                                      &a_data, &a_scales);
      !s.ok())
    return s;
  const Nvfp4Tensor* const b[1] = {&a.b};
  const char* const data_names[1] = {"B data"};
  const char* const scale_names[1] = {"B scales"};
  if (Status s = grouped_weights_nvfp4(b, data_names, scale_names, a.experts, a.n, a.k,
                                       a.b_data_expert_stride, a.b_scales_expert_stride, b_data, b_scales);
      !s.ok())
    return s;
  if (Status s = grouped_output_16bit(a.d, a.tokens, a.experts, a.n, a.ldd, a.d_expert_stride,
                                      {"D", "ldd", "d_expert_stride"}, &span_d);
      !s.ok())
    return s;
  if (Status s = grouped_alpha(a.alpha, "alpha", a.alpha_ptr, "alpha_ptr", a.experts, &span_alpha); !s.ok())
    return s;
  if (Status s = grouped_status_word(a.status, &span_status); !s.ok()) return s;
  if (Status s = check_grouped_apart(
          span_d, {a_data, a_scales, b_data[0], b_scales[0], meta, span_alpha, span_status});
      !s.ok())
    return s;
  return check_grouped_apart(span_status, {a_data, a_scales, b_data[0], b_scales[0], meta, span_alpha});
}

namespace detail {
// The layout's device array, named as in the messages.
inline void add_grouped_metadata(host::OperandPointers* ops, const GroupedTokens& t) {
  if (t.layout == GroupedLayout::kMasked)
    ops->add_if_given(t.counts, "counts");
  else
    ops->add_if_given(t.offsets, "offsets");
}

// The tokens an expert is expected to get (the backends' choice of a Config): the caller's hint, else the
// buffers' rows shared evenly (contiguous) or the slab's rows (masked). Called before validate: E < 1 gives
// 0 (validate refuses the call).
template <class Args>
int64_t grouped_expected_tokens(const Args& a) {
  if (a.expected_tokens_per_expert > 0) return a.expected_tokens_per_expert;
  if (a.tokens.layout == GroupedLayout::kMasked) return a.tokens.max_tokens;
  return a.experts > 0 ? ceil_div(a.tokens.total_tokens, a.experts) : 0;
}
}  // namespace detail

// The device memory a grouped GEMM call reads or writes (for host::require_device_pointers).
template <class In, class Out>
host::OperandPointers device_operands(const GroupedGemmArguments<In, Out>& a) {
  host::OperandPointers ops{{{a.a, "A"}, {a.b, "B"}, {a.d, "D"}}, 3};
  detail::add_grouped_metadata(&ops, a.tokens);
  ops.add_if_given(a.alpha_ptr, "alpha_ptr");
  ops.add_if_given(a.status, "status");
  return ops;
}

template <class Out>
host::OperandPointers device_operands(const Nvfp4GroupedGemmArguments<Out>& a) {
  host::OperandPointers ops{{{a.a.data, "A data"},
                             {a.a.scales, "A scales"},
                             {a.b.data, "B data"},
                             {a.b.scales, "B scales"},
                             {a.d, "D"}},
                            5};
  detail::add_grouped_metadata(&ops, a.tokens);
  ops.add_if_given(a.alpha_ptr, "alpha_ptr");
  ops.add_if_given(a.status, "status");
  return ops;
}

}  // namespace bwgemm
