// Host references of the grouped (mixture-of-experts) operations: the grouped GEMM (FC2) and the grouped dual
// GEMM (gated FC1), 16-bit and NVFP4, NVFP4 output included. Each walks the experts with the device-metadata
// contract (base/grouped.hpp: the rows an expert owns after clamping, the status bits, the NVFP4 scale
// placement) and runs the dense reference on each expert's rows (ref::gemm, ref::nvfp4_gemm), so a kernel
// test compares its output, and its status word, with these.
//
// Args is the operation's argument struct (arguments/grouped_gemm.hpp, arguments/grouped_dual_gemm.hpp) or
// anything with its fields, every pointer in it host memory here (the offsets or counts, the per-expert
// scale arrays included). The argument structs are not included (a higher layer): the functions read their
// fields by name. Each returns the status bits the kernels OR into the status word (Args::status itself is
// not touched). Rows no expert owns are not written; an NVFP4 output gets each expert's scale atoms whole,
// the padding rows' scales zero, as the kernels write them.
//
// The dual GEMM's activation is a host callable act(gate, up) (reference/activations.hpp: ref::silu_mul,
// ref::silu_mul_clamped via a lambda, ref::gelu_tanh_mul, ...; or a functor callable on the host, e.g.
// epi::Multiply): C = act(alpha1_e · A·B1ᵀ, alpha2_e · A·B2ᵀ), gate and up fp32, the result rounded to C's
// type (round to nearest even) or quantized to NVFP4. The Args' Epilogue field is not read.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"

namespace bwgemm::ref {

namespace grouped_detail {

// Calls fn(e, rows) for every expert that owns at least one row, in expert order; returns the OR of every
// expert's status bits (empty experts' included).
template <class Fn>
uint32_t for_each_expert(const GroupedTokens& t, int64_t experts, Fn&& fn) {
  uint32_t status = 0;
  grouped::ContiguousExpertScan scan(t.total_tokens);
  for (int64_t e = 0; e < experts; ++e) {
    const grouped::ExpertRows r = t.layout == GroupedLayout::kMasked
                                      ? grouped::masked_expert_rows(e, t.counts[e], t.max_tokens)
                                      : scan.next(t.offsets[e]);
    status |= r.status;
    if (r.rows() > 0) fn(e, r);
  }
  return status;
}

// A host scale times expert e's value of its device array (none: the host scale alone).
inline float expert_scale(float host, const float* per_expert, int64_t e) {
  return per_expert != nullptr ? host * per_expert[e] : host;
}

// Element offset of expert e's first row in a 16-bit matrix of the tokens (row stride ld; masked: expert
// stride `expert_stride`, 0 meaning max_tokens · ld).
inline int64_t token_offset(const GroupedTokens& t, int64_t e, const grouped::ExpertRows& r, int64_t ld,
                            int64_t expert_stride) {
  if (t.layout == GroupedLayout::kContiguous) return r.begin * ld;
  return e * (expert_stride == 0 ? t.max_tokens * ld : expert_stride);
}

// The first row of expert e in a packed NVFP4 tensor of the tokens: contiguous, its first row; masked, its
// slab's.
inline int64_t token_row(const GroupedTokens& t, int64_t e, const grouped::ExpertRows& r) {
  return t.layout == GroupedLayout::kContiguous ? r.begin : e * t.max_tokens;
}

// Expert e's part of an NVFP4 tensor of the tokens (cols: K), a dense NVFP4 operand of its rows: the data
// from its first row, the scales from its scale row (base/grouped.hpp's placement).
inline Nvfp4Matrix token_nvfp4(const void* data, const void* scales, const GroupedTokens& t, int64_t e,
                               const grouped::ExpertRows& r, int64_t cols) {
  Nvfp4Matrix m;
  m.data = static_cast<const uint8_t*>(data) + token_row(t, e, r) * (cols / 2);
  m.scales = static_cast<const uint8_t*>(scales) + grouped::scale_byte_offset(r.scale_row, cols / 16);
  m.rows = r.rows();
  m.k = cols;
  return m;
}

// Expert e's N x K weight of a stacked NVFP4 tensor (strides in bytes, 0 meaning packed).
inline Nvfp4Matrix weight_nvfp4(const void* data, const void* scales, int64_t e, int64_t n, int64_t k,
                                int64_t data_stride, int64_t scales_stride) {
  Nvfp4Matrix m;
  const int64_t ds = data_stride == 0 ? n * (k / 2) : data_stride;
  const int64_t ss = scales_stride == 0 ? blocked_scale_bytes(n, k / 16) : scales_stride;
  m.data = static_cast<const uint8_t*>(data) + e * ds;
  m.scales = static_cast<const uint8_t*>(scales) + e * ss;
  m.rows = n;
  m.k = k;
  return m;
}

// rows x n fp32 values (row stride n) -> Out at `out` with row stride ld.
template <class Out>
void store_rows(const std::vector<float>& v, int64_t rows, int64_t n, Out* out, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) out[i * ld + j] = from_float<Out>(v[i * n + j]);
}

// gate = alpha1 · A·B1ᵀ, up = alpha2 · A·B2ᵀ (16-bit, one expert, fp32 rows x n) through ref::gemm.
template <class In>
void gemm_f32(const In* a, int64_t lda, const In* b, int64_t ldb, int64_t rows, int64_t n, int64_t k,
              float alpha, std::vector<float>* out, int threads) {
  out->assign(static_cast<size_t>(rows * n), 0.0f);
  GemmArgs<In, In, float> g;
  g.m = rows, g.n = n, g.k = k;
  g.a = a, g.lda = lda;
  g.b = b, g.b_layout = BLayout::kColumnMajorKxN, g.ldb = ldb;
  g.d = out->data(), g.ldd = n;
  g.alpha = alpha;
  gemm(g, threads);
}

template <class Act>
std::vector<float> activate(const std::vector<float>& gate, const std::vector<float>& up, Act&& act) {
  std::vector<float> out(gate.size());
  for (size_t i = 0; i < gate.size(); ++i) out[i] = static_cast<float>(act(gate[i], up[i]));
  return out;
}

template <class P>
using pointee_t = std::remove_cv_t<std::remove_pointer_t<P>>;

}  // namespace grouped_detail

// The 16-bit grouped GEMM: D_e = alpha_e · A_e B_eᵀ (Args: GroupedGemmArguments' fields).
template <class Args>
uint32_t grouped_gemm(const Args& a, int threads = 0) {
  using namespace grouped_detail;
  using In = pointee_t<decltype(a.a)>;
  using Out = pointee_t<decltype(a.d)>;
  const int64_t lda = a.lda == 0 ? a.k : a.lda, ldb = a.ldb == 0 ? a.k : a.ldb,
                ldd = a.ldd == 0 ? a.n : a.ldd;
  const int64_t b_stride = a.b_expert_stride == 0 ? a.n * ldb : a.b_expert_stride;
  return for_each_expert(a.tokens, a.experts, [&](int64_t e, const grouped::ExpertRows& r) {
    GemmArgs<In, In, Out> g;
    g.m = r.rows(), g.n = a.n, g.k = a.k;
    g.a = a.a + token_offset(a.tokens, e, r, lda, a.a_expert_stride), g.lda = lda;
    g.b = a.b + e * b_stride, g.b_layout = BLayout::kColumnMajorKxN, g.ldb = ldb;
    g.d = a.d + token_offset(a.tokens, e, r, ldd, a.d_expert_stride), g.ldd = ldd;
    g.alpha = expert_scale(a.alpha, a.alpha_ptr, e);
    gemm(g, threads);
  });
}

// The 16-bit grouped dual GEMM: C_e = act(alpha1_e · A_e B1_eᵀ, alpha2_e · A_e B2_eᵀ) (Args:
// GroupedDualGemmArguments' fields).
template <class Args, class Act>
uint32_t grouped_dual_gemm(const Args& a, Act&& act, int threads = 0) {
  using namespace grouped_detail;
  const int64_t lda = a.lda == 0 ? a.k : a.lda, ldb = a.ldb == 0 ? a.k : a.ldb,
                ldc = a.ldc == 0 ? a.n : a.ldc;
  const int64_t b_stride = a.b_expert_stride == 0 ? a.n * ldb : a.b_expert_stride;
  return for_each_expert(a.tokens, a.experts, [&](int64_t e, const grouped::ExpertRows& r) {
    const auto* ae = a.a + token_offset(a.tokens, e, r, lda, a.a_expert_stride);
    std::vector<float> gate, up;
    gemm_f32(ae, lda, a.b1 + e * b_stride, ldb, r.rows(), a.n, a.k, expert_scale(a.alpha1, a.alpha1_ptr, e),
             &gate, threads);
    gemm_f32(ae, lda, a.b2 + e * b_stride, ldb, r.rows(), a.n, a.k, expert_scale(a.alpha2, a.alpha2_ptr, e),
             &up, threads);
    store_rows(activate(gate, up, act), r.rows(), a.n,
               a.c + token_offset(a.tokens, e, r, ldc, a.c_expert_stride), ldc);
  });
}

// The NVFP4 grouped GEMM: D_e = alpha_e · A_e B_eᵀ, A's and B's values decoded (Args:
// Nvfp4GroupedGemmArguments' fields).
template <class Args>
uint32_t nvfp4_grouped_gemm(const Args& a, int threads = 0) {
  using namespace grouped_detail;
  const int64_t ldd = a.ldd == 0 ? a.n : a.ldd;
  return for_each_expert(a.tokens, a.experts, [&](int64_t e, const grouped::ExpertRows& r) {
    const Nvfp4Matrix ae = token_nvfp4(a.a.data, a.a.scales, a.tokens, e, r, a.k);
    const Nvfp4Matrix be =
        weight_nvfp4(a.b.data, a.b.scales, e, a.n, a.k, a.b_data_expert_stride, a.b_scales_expert_stride);
    std::vector<float> acc(static_cast<size_t>(r.rows() * a.n));
    nvfp4_gemm(ae, be, 1, expert_scale(a.alpha, a.alpha_ptr, e), acc.data(), threads);
    store_rows(acc, r.rows(), a.n, a.d + token_offset(a.tokens, e, r, ldd, a.d_expert_stride), ldd);
  });
}

namespace grouped_detail {
// One expert's gate and up of an NVFP4 grouped dual GEMM, activated: rows x N fp32.
template <class Args, class Act>
std::vector<float> nvfp4_dual_values(const Args& a, int64_t e, const grouped::ExpertRows& r, Act&& act,
                                     int threads) {
  const Nvfp4Matrix ae = token_nvfp4(a.a.data, a.a.scales, a.tokens, e, r, a.k);
  const Nvfp4Matrix b1 =
      weight_nvfp4(a.b1.data, a.b1.scales, e, a.n, a.k, a.b_data_expert_stride, a.b_scales_expert_stride);
  const Nvfp4Matrix b2 =
      weight_nvfp4(a.b2.data, a.b2.scales, e, a.n, a.k, a.b_data_expert_stride, a.b_scales_expert_stride);
  std::vector<float> gate(static_cast<size_t>(r.rows() * a.n)), up(gate.size());
  nvfp4_gemm(ae, b1, 1, expert_scale(a.alpha1, a.alpha1_ptr, e), gate.data(), threads);
  nvfp4_gemm(ae, b2, 1, expert_scale(a.alpha2, a.alpha2_ptr, e), up.data(), threads);
  return activate(gate, up, act);
}
}  // namespace grouped_detail

// The NVFP4 grouped dual GEMM with a 16-bit C (Args: Nvfp4GroupedDualGemmArguments<Out>'s fields).
template <class Args, class Act>
uint32_t nvfp4_grouped_dual_gemm(const Args& a, Act&& act, int threads = 0) {
  using namespace grouped_detail;
  const int64_t ldc = a.ldc == 0 ? a.n : a.ldc;
  return for_each_expert(a.tokens, a.experts, [&](int64_t e, const grouped::ExpertRows& r) {
    store_rows(nvfp4_dual_values(a, e, r, act, threads), r.rows(), a.n,
               a.c + token_offset(a.tokens, e, r, ldc, a.c_expert_stride), ldc);
  });
}

// The NVFP4 grouped dual GEMM with NVFP4 C (Args: Nvfp4GroupedDualGemmArguments<Nvfp4Output>'s fields): each
// expert's activated rows quantized as quantize_nvfp4 quantizes them (quantize_nvfp4_block) with the global
// scale c_global_scale · c_global_scale_ptr[e], the data at the expert's rows, the scales at its scale row
// (its atoms zeroed first: the padding rows' scales are 0).
template <class Args, class Act>
uint32_t nvfp4_grouped_dual_gemm_nvfp4_out(const Args& a, Act&& act, int threads = 0) {
  using namespace grouped_detail;
  return for_each_expert(a.tokens, a.experts, [&](int64_t e, const grouped::ExpertRows& r) {
    const std::vector<float> v = nvfp4_dual_values(a, e, r, act, threads);
    const int64_t rows = r.rows(), n = a.n, sf_cols = n / kNvfp4BlockSize;
    const float g = expert_scale(a.c_global_scale, a.c_global_scale_ptr, e);
    uint8_t* data = static_cast<uint8_t*>(a.c.data) + token_row(a.tokens, e, r) * (n / 2);
    uint8_t* scales = static_cast<uint8_t*>(a.c.scales) + grouped::scale_byte_offset(r.scale_row, sf_cols);
    std::memset(scales, 0, static_cast<size_t>(blocked_scale_bytes(rows, sf_cols)));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < sf_cols; ++j) {
        uint8_t codes[kNvfp4BlockSize];
        quantize_nvfp4_block(&v[static_cast<size_t>(i * n + j * kNvfp4BlockSize)], g,
                             &scales[blocked_scale_offset(i, j, 0, rows, sf_cols)], codes);
        for (int c = 0; c < kNvfp4BlockSize; c += 2)
          data[i * (n / 2) + (j * kNvfp4BlockSize + c) / 2] =
              static_cast<uint8_t>(codes[c] | (codes[c + 1] << 4));
      }
  });
}

}  // namespace bwgemm::ref
