// bwgemm's PyTorch operators (namespace torch.ops.bwgemm), shared by both builds of the extension:
//   ops_cpu.cpp  (host C++, BWGEMM_EMULATION=1): the schemas and the CPU kernels (the sm_100a kernels in the
//                CPU emulator);
//   ops_cuda.cu  (nvcc, sm_90a and sm_100a): the CUDA kernels.
//
// Every operator checks its tensors here -- dtypes, shapes, devices, contiguity, alignment -- with the same
// messages on every device (the fake implementations, bwgemm_torch/_fake.py, check the same rules), then
// calls bwgemm's entry point on the current stream and turns a failed bwgemm::Status into a RuntimeError
// carrying its message.
//
//   gemm(a, b, alpha=1, beta=0, c=None, out_dtype=None) -> d      d = alpha a b^T + beta c
//       a [M, K] fp16/bf16, b [N, K] (nn.Linear weight) of a's dtype; out_dtype a's dtype (default) or fp32
//   dual_gemm(a, b1, b2, alpha1=1, alpha2=1) -> c                 c = silu(alpha1 a b1^T) * (alpha2 a b2^T)
//       16-bit: a [M, K], b1 and b2 [N, K], c [M, N], all of a's dtype
//   dual_gemm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, alpha1=1, alpha2=1, out_dtype=None) -> c
//       NVFP4: data [rows, K/2] float4_e2m1fn_x2 or uint8; scales float8_e4m3fn or uint8 in the 128x4
//       blocked layout (PyTorch's to_blocked), blocked_scale_bytes(rows, K/16) elements, any shape;
//       c [M, N] fp16 (default) or bf16
//   gemm_nvfp4(a, a_scales, b, b_scales, alpha=1, beta=0, c=None, out_dtype=None) -> d
//       d = alpha A B^T + beta c on NVFP4 operands (the dual's operand rules); d [M, N] fp16 (default),
//       bf16 or fp32; c [M, N] of d's dtype
//   quantize_nvfp4(x, global_scale=1) -> (data, scales)
//       x [rows, K] fp32/fp16/bf16 -> data [rows, K/2] float4_e2m1fn_x2, scales float8_e4m3fn 1-D blocked
//   quantize_nvfp4_grouped(x, offs, global_scale=1, global_scales=None) -> (data, scales)
//       a MoE layer's routed tokens x [T, K] with torch._grouped_mm's offs: each expert's scales where the
//       grouped operations read them (docs/moe.md)
//   grouped_mm(a, b, offs=None, counts=None, alpha=1, alphas=None, out_dtype=None, status=None) -> d
//       a mixture-of-experts layer's FC2, every expert in one call: d_e = alpha alphas[e] a_e b[e]^T. Tokens:
//       offs (a [T, K], torch._grouped_mm's E int32 cumulative row ends; d [T, N]) or counts (a [E,
//       max_tokens, K], E int32; d [E, max_tokens, N]), read on the device; b [E, N, K] stacked nn.Linear
//       weights (any row and expert strides); alphas E float32; status one int32 the kernel ORs the
//       bwgemm::grouped::kStatus* bits of out-of-range offsets or counts into. Rows no expert owns are not
//       written (the output is at::empty, as torch._grouped_mm's).
//   grouped_dual_mm(a, b1, b2, offs=None, counts=None, alpha1=1, alpha2=1, alpha1s=None, alpha2s=None,
//                   activation="silu", swiglu_limit=7, swiglu_alpha=1.702, status=None) -> c
//       the gated FC1: c_e = act(alpha1 alpha1s[e] a_e b1[e]^T, alpha2 alpha2s[e] a_e b2[e]^T), act "silu"
//       (epi::SiluMul) or "swiglu_oai" (epi::SiluMulClamped); b1 and b2 with one row and expert stride
//       (views w[:, :N], w[:, N:] of a stacked [E, 2N, K] weight)
//   grouped_mm_nvfp4(a, a_scales, b, b_scales, offs=None, counts=None, alpha=1, alphas=None, out_dtype=None,
//                    status=None) -> d
//   grouped_dual_mm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, offs=None, counts=None, alpha1=1,
//                         alpha2=1, alpha1s=None, alpha2s=None, activation="silu", swiglu_limit=7,
//                         swiglu_alpha=1.702, out_dtype=None, status=None) -> c
//       NVFP4: a [T, K/2] with quantize_nvfp4_grouped's scales (offs) or [E, max_tokens, K/2] with E slabs of
//       blocked scales (counts); b [E, N, K/2] with each expert's blocked scales (contiguous, or an [E,
//       blocked] view); output fp16 (default) or bf16
//   install_tuning_file(on_device, path) -> str                  a tuning file for the CUDA operators on
//       on_device's GPU: "" when installed, else why not (bwgemm_torch.load_tuning_file)
//
// Device scales: each operator also takes its per-tensor scales as optional one-element float32 tensors on
// the operands' device (alpha_scale, beta_scale, alpha1_scale, alpha2_scale, global_scale_tensor): the
// effective scale is the float argument times the tensor's value, read by the kernel when it runs (bwgemm's
// device-pointer scales, docs/api.md), so a captured CUDA graph uses the value the tensor holds at replay.
#pragma once

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>

#include <bwgemm/dual_gemm.cuh>
#include <bwgemm/formats/scale_layout.cuh>
#include <bwgemm/gemm.cuh>
#include <bwgemm/grouped_gemm.cuh>
#include <bwgemm/quantize.cuh>

#if !BWGEMM_EMULATION
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace bwgemm_torch {

// The NVFP4 block: 16 K elements per e4m3 scale (formats/nvfp4.cuh), two e2m1 codes per byte.
constexpr int64_t kBlock = bwgemm::kNvfp4BlockSize;
// What bwgemm's entry points require of every operand's address (arguments/: 16-byte TMA alignment).
constexpr int64_t kOperandAlignment = 16;

// ---- checks ----------------------------------------------------------------

inline void check_matrix(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK_VALUE(t.dim() == 2, op, ": ", name, " must be a 2-D tensor (got ", t.dim(),
                    " dimensions, shape ", t.sizes(), ")");
  TORCH_CHECK_VALUE(t.is_contiguous(), op, ": ", name, " must be contiguous (row-major; got strides ",
                    t.strides(), "): call .contiguous()");
}

inline void check_same_device(const char* op, const at::Tensor& first, const char* name,
                              const at::Tensor& t) {
  TORCH_CHECK(t.device() == first.device(), op, ": ", name, " is on ", t.device(),
              " but the first operand is on ", first.device(), "; all operands must be on one device");
}

inline void check_aligned(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK_VALUE(reinterpret_cast<uintptr_t>(t.data_ptr()) % kOperandAlignment == 0, op, ": ", name,
                    " must start at a 16-byte aligned address (a view at an offset of ", t.storage_offset(),
                    " elements is not)");
}

inline void check_16bit(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK_TYPE(t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16, op, ": ", name,
                   " must be float16 or bfloat16 (got ", t.scalar_type(), ")");
}

inline void check_dtype_as(const char* op, const char* name, const at::Tensor& t, const at::Tensor& first) {
  TORCH_CHECK_TYPE(t.scalar_type() == first.scalar_type(), op, ": ", name, " must have A's dtype ",
                   first.scalar_type(), " (got ", t.scalar_type(), ")");
}

inline void check_device_kind(const char* op, const at::Tensor& t) {
  TORCH_CHECK(t.is_cpu() || t.is_cuda(), op, ": tensors must be on CPU (the CPU emulator) or CUDA (got ",
              t.device(), ")");
}

// NVFP4 operand: packed data [rows, K/2] and its blocked scales.
inline void check_nvfp4(const char* op, const char* name, const char* scales_name, const at::Tensor& data,
                        const at::Tensor& scales, int64_t k) {
  check_matrix(op, name, data);
  TORCH_CHECK_TYPE(
      data.scalar_type() == at::kFloat4_e2m1fn_x2 || data.scalar_type() == at::kByte, op, ": ", name,
      " must be float4_e2m1fn_x2 or uint8 (two e2m1 codes per byte, element 2i in the low nibble; got ",
      data.scalar_type(), ")");
  TORCH_CHECK_TYPE(scales.scalar_type() == at::kFloat8_e4m3fn || scales.scalar_type() == at::kByte, op, ": ",
                   scales_name, " must be float8_e4m3fn or uint8 (got ", scales.scalar_type(), ")");
  TORCH_CHECK_VALUE(scales.is_contiguous(), op, ": ", scales_name, " must be contiguous");
  const int64_t want = bwgemm::blocked_scale_bytes(data.size(0), k / kBlock);
  TORCH_CHECK_VALUE(scales.numel() == want, op, ": ", scales_name, " must hold the 128x4 blocked scales of ",
                    data.size(0), " rows x ", k / kBlock, " blocks: ", want,
                    " elements (to_blocked's output, padding included; got ", scales.numel(), ")");
  check_aligned(op, name, data);
  check_aligned(op, scales_name, scales);
}

// A device scale: a one-element float32 tensor on the operands' device (its value is read by the kernel).
inline void check_scale(const char* op, const char* name, const std::optional<at::Tensor>& s,
                        const at::Tensor& first) {
  if (!s.has_value()) return;
  TORCH_CHECK_TYPE(s->scalar_type() == at::kFloat, op, ": ", name, " must be a float32 tensor (got ",
                   s->scalar_type(), ")");
  TORCH_CHECK_VALUE(s->numel() == 1, op, ": ", name, " must hold one element (got ", s->numel(), ")");
  check_same_device(op, first, name, *s);
}

inline const float* scale_ptr(const std::optional<at::Tensor>& s) {
  return s.has_value() ? static_cast<const float*>(s->data_ptr()) : nullptr;
}

// A GEMM's C: [M, N] of the output dtype on the operands' device, or none with beta == 0.
inline void check_c_and_beta(const char* op, const at::Tensor& a, int64_t n, at::ScalarType out,
                             const std::optional<at::Tensor>& c, double beta) {
  if (c.has_value()) {
    check_matrix(op, "c", *c);
    check_same_device(op, a, "c", *c);
    TORCH_CHECK_TYPE(c->scalar_type() == out, op, ": c must have the output dtype ", out, " (got ",
                     c->scalar_type(), ")");
    TORCH_CHECK_VALUE(c->size(0) == a.size(0) && c->size(1) == n, op, ": c must be [M, N] = [", a.size(0),
                      ", ", n, "] (got ", c->sizes(), ")");
    check_aligned(op, "c", *c);
  } else {
    TORCH_CHECK_VALUE(beta == 0.0, op, ": beta = ", beta, " needs c");
  }
}

inline at::ScalarType gemm_out_dtype(const char* op, const at::Tensor& a,
                                     std::optional<at::ScalarType> out_dtype) {
  const at::ScalarType out = out_dtype.value_or(a.scalar_type());
  TORCH_CHECK_TYPE(out == a.scalar_type() || out == at::kFloat, op, ": out_dtype must be A's dtype (",
                   a.scalar_type(), ") or float32 (got ", out, ")");
  return out;
}

// The checks of gemm; returns D's dtype.
inline at::ScalarType check_gemm(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
                                 double beta, std::optional<at::ScalarType> out_dtype,
                                 const std::optional<at::Tensor>& alpha_scale,
                                 const std::optional<at::Tensor>& beta_scale) {
  constexpr const char* op = "bwgemm.gemm";
  check_device_kind(op, a);
  check_matrix(op, "a", a);
  check_matrix(op, "b", b);
  check_16bit(op, "a", a);
  check_dtype_as(op, "b", b, a);
  check_same_device(op, a, "b", b);
  TORCH_CHECK_VALUE(b.size(1) == a.size(1), op, ": b must be [N, K] with a's K = ", a.size(1),
                    " (an nn.Linear weight; got shape ", b.sizes(), ")");
  const at::ScalarType out = gemm_out_dtype(op, a, out_dtype);
  check_c_and_beta(op, a, b.size(0), out, c, beta);
  check_aligned(op, "a", a);
  check_aligned(op, "b", b);
  check_scale(op, "alpha_scale", alpha_scale, a);
  check_scale(op, "beta_scale", beta_scale, a);
  TORCH_CHECK_VALUE(!beta_scale.has_value() || (c.has_value() && beta != 0.0), op,
                    ": beta_scale needs c and a nonzero beta (the effective beta is beta x beta_scale)");
  return out;
}

inline void check_dual_gemm(const at::Tensor& a, const at::Tensor& b1, const at::Tensor& b2,
                            const std::optional<at::Tensor>& alpha1_scale,
                            const std::optional<at::Tensor>& alpha2_scale) {
  constexpr const char* op = "bwgemm.dual_gemm";
  check_scale(op, "alpha1_scale", alpha1_scale, a);
  check_scale(op, "alpha2_scale", alpha2_scale, a);
  check_device_kind(op, a);
  check_matrix(op, "a", a);
  check_matrix(op, "b1", b1);
  check_matrix(op, "b2", b2);
  check_16bit(op, "a", a);
  check_dtype_as(op, "b1", b1, a);
  check_dtype_as(op, "b2", b2, a);
  check_same_device(op, a, "b1", b1);
  check_same_device(op, a, "b2", b2);
  TORCH_CHECK_VALUE(b1.size(1) == a.size(1) && b2.sizes() == b1.sizes(), op,
                    ": b1 and b2 must both be [N, K] with a's K = ", a.size(1), " (got ", b1.sizes(), " and ",
                    b2.sizes(), ")");
  check_aligned(op, "a", a);
  check_aligned(op, "b1", b1);
  check_aligned(op, "b2", b2);
}

// The checks of dual_gemm_nvfp4; returns C's dtype.
inline at::ScalarType check_dual_gemm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales,
                                            const at::Tensor& b1, const at::Tensor& b1_scales,
                                            const at::Tensor& b2, const at::Tensor& b2_scales,
                                            std::optional<at::ScalarType> out_dtype,
                                            const std::optional<at::Tensor>& alpha1_scale,
                                            const std::optional<at::Tensor>& alpha2_scale) {
  constexpr const char* op = "bwgemm.dual_gemm_nvfp4";
  check_device_kind(op, a);
  check_scale(op, "alpha1_scale", alpha1_scale, a);
  check_scale(op, "alpha2_scale", alpha2_scale, a);
  TORCH_CHECK_VALUE(a.dim() == 2, op, ": a must be a 2-D tensor [M, K/2] (got shape ", a.sizes(), ")");
  const int64_t k = 2 * a.size(1);
  check_nvfp4(op, "a", "a_scales", a, a_scales, k);
  check_nvfp4(op, "b1", "b1_scales", b1, b1_scales, k);
  check_nvfp4(op, "b2", "b2_scales", b2, b2_scales, k);
  int i = 0;
  const char* names[] = {"a_scales", "b1", "b1_scales", "b2", "b2_scales"};
  for (const at::Tensor* t : {&a_scales, &b1, &b1_scales, &b2, &b2_scales})
    check_same_device(op, a, names[i++], *t);
  TORCH_CHECK_VALUE(b1.size(1) == a.size(1) && b2.sizes() == b1.sizes(), op,
                    ": b1 and b2 must both be [N, K/2] with a's K/2 = ", a.size(1), " (got ", b1.sizes(),
                    " and ", b2.sizes(), ")");
  TORCH_CHECK_VALUE(k % 64 == 0, op, ": K = ", k, " must be a multiple of 64 (a is [M, K/2] bytes)");
  TORCH_CHECK_VALUE(b1.size(0) % 16 == 0, op, ": N = ", b1.size(0), " must be a multiple of 16");
  const at::ScalarType out = out_dtype.value_or(at::kHalf);
  TORCH_CHECK_TYPE(out == at::kHalf || out == at::kBFloat16, op,
                   ": out_dtype must be float16 or bfloat16 (got ", out, ")");
  return out;
}

// The checks of gemm_nvfp4; returns D's dtype.
inline at::ScalarType check_gemm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b,
                                       const at::Tensor& b_scales, const std::optional<at::Tensor>& c,
                                       double beta, std::optional<at::ScalarType> out_dtype,
                                       const std::optional<at::Tensor>& alpha_scale,
                                       const std::optional<at::Tensor>& beta_scale) {
  constexpr const char* op = "bwgemm.gemm_nvfp4";
  check_device_kind(op, a);
  check_scale(op, "alpha_scale", alpha_scale, a);
  check_scale(op, "beta_scale", beta_scale, a);
  TORCH_CHECK_VALUE(!beta_scale.has_value() || (c.has_value() && beta != 0.0), op,
                    ": beta_scale needs c and a nonzero beta (the effective beta is beta x beta_scale)");
  TORCH_CHECK_VALUE(a.dim() == 2, op, ": a must be a 2-D tensor [M, K/2] (got shape ", a.sizes(), ")");
  const int64_t k = 2 * a.size(1);
  check_nvfp4(op, "a", "a_scales", a, a_scales, k);
  check_nvfp4(op, "b", "b_scales", b, b_scales, k);
  check_same_device(op, a, "a_scales", a_scales);
  check_same_device(op, a, "b", b);
  check_same_device(op, a, "b_scales", b_scales);
  TORCH_CHECK_VALUE(b.size(1) == a.size(1), op, ": b must be [N, K/2] with a's K/2 = ", a.size(1), " (got ",
                    b.sizes(), ")");
  TORCH_CHECK_VALUE(k % 64 == 0, op, ": K = ", k, " must be a multiple of 64 (a is [M, K/2] bytes)");
  TORCH_CHECK_VALUE(b.size(0) % 16 == 0, op, ": N = ", b.size(0), " must be a multiple of 16");
  const at::ScalarType out = out_dtype.value_or(at::kHalf);
  TORCH_CHECK_TYPE(out == at::kHalf || out == at::kBFloat16 || out == at::kFloat, op,
                   ": out_dtype must be float16, bfloat16 or float32 (got ", out, ")");
  check_c_and_beta(op, a, b.size(0), out, c, beta);
  return out;
}

inline void check_quantize(const at::Tensor& x, double global_scale,
                           const std::optional<at::Tensor>& global_scale_tensor,
                           const char* op = "bwgemm.quantize_nvfp4") {
  check_device_kind(op, x);
  if (global_scale_tensor.has_value()) check_scale(op, "global_scale_tensor", global_scale_tensor, x);
  check_matrix(op, "x", x);
  TORCH_CHECK_TYPE(
      x.scalar_type() == at::kFloat || x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16, op,
      ": x must be float32, float16 or bfloat16 (got ", x.scalar_type(), ")");
  TORCH_CHECK_VALUE(x.size(1) % kBlock == 0 && x.size(1) > 0, op, ": K = ", x.size(1),
                    " (x's last dimension) must be a positive multiple of 16, the NVFP4 block");
  TORCH_CHECK_VALUE(x.size(0) > 0, op, ": x must have at least one row");
  TORCH_CHECK_VALUE(global_scale > 0.0 && global_scale <= std::numeric_limits<float>::max(), op,
                    ": global_scale must be positive and finite as a float32 (got ", global_scale,
                    "); bwgemm decodes e2m1 * e4m3 * global_scale, the reciprocal of the scale some "
                    "engines multiply by");
}

// ---- grouped (mixture-of-experts) checks
// -------------------------------------------------------------------

// The tokens of a grouped call: contiguous (a [T, K] or [T, K/2], offs: torch._grouped_mm's E cumulative row
// ends) or masked (a [E, max_tokens, ...], counts: E rows per slab), and the device array that splits them.
struct TokenSplit {
  bool masked = false;
  int64_t experts = 0;  // E
  int64_t rows = 0;     // T (contiguous) or max_tokens (masked)
  const at::Tensor* meta = nullptr;
};

// Exactly one of offs and counts, int32, 1-D, contiguous, on a's device; a 2-D with offs, 3-D [E, ...] with
// counts.
inline TokenSplit check_grouped_tokens(const char* op, const at::Tensor& a,
                                       const std::optional<at::Tensor>& offs,
                                       const std::optional<at::Tensor>& counts, const char* a_shape2,
                                       const char* a_shape3) {
  check_device_kind(op, a);
  TORCH_CHECK_VALUE(offs.has_value() != counts.has_value(), op,
                    ": pass exactly one of offs (contiguous tokens: torch._grouped_mm's cumulative row ends) "
                    "and counts (masked tokens: each expert's rows of its slab)");
  TokenSplit t;
  t.masked = counts.has_value();
  const char* name = t.masked ? "counts" : "offs";
  const at::Tensor& m = t.masked ? *counts : *offs;
  TORCH_CHECK_TYPE(m.scalar_type() == at::kInt, op, ": ", name, " must be int32 (got ", m.scalar_type(), ")");
  TORCH_CHECK_VALUE(m.dim() == 1 && m.numel() >= 1 && m.is_contiguous(), op, ": ", name,
                    " must be a contiguous 1-D tensor of one value per expert (got shape ", m.sizes(), ")");
  check_same_device(op, a, name, m);
  t.experts = m.numel();
  t.meta = &m;
  if (t.masked) {
    TORCH_CHECK_VALUE(a.dim() == 3 && a.size(0) == t.experts, op, ": with counts, a must be ", a_shape3,
                      " with E = ", t.experts, " (counts' length; got shape ", a.sizes(), ")");
  } else {
    TORCH_CHECK_VALUE(a.dim() == 2, op, ": with offs, a must be ", a_shape2, " (got shape ", a.sizes(), ")");
  }
  TORCH_CHECK_VALUE(a.is_contiguous(), op, ": a must be contiguous (got strides ", a.strides(),
                    "): call .contiguous()");
  t.rows = a.size(t.masked ? 1 : 0);
  return t;
}

// A per-expert scale array: E float32 on the operands' device, contiguous.
inline void check_expert_scales(const char* op, const char* name, const std::optional<at::Tensor>& s,
                                const at::Tensor& first, int64_t experts) {
  if (!s.has_value()) return;
  TORCH_CHECK_TYPE(s->scalar_type() == at::kFloat, op, ": ", name, " must be float32 (got ", s->scalar_type(),
                   ")");
  TORCH_CHECK_VALUE(s->dim() == 1 && s->numel() == experts && s->is_contiguous(), op, ": ", name,
                    " must be a contiguous 1-D tensor of one scale per expert (", experts, "; got shape ",
                    s->sizes(), ")");
  check_same_device(op, first, name, *s);
}

// The status word: one int32 on the operands' device, into which the kernel ORs the bits of out-of-range
// offsets or counts (bwgemm::grouped::kStatus*, docs/moe.md).
inline void check_status_word(const char* op, const std::optional<at::Tensor>& status,
                              const at::Tensor& first) {
  if (!status.has_value()) return;
  TORCH_CHECK_TYPE(status->scalar_type() == at::kInt, op, ": status must be int32 (got ",
                   status->scalar_type(), ")");
  TORCH_CHECK_VALUE(status->numel() == 1, op, ": status must hold one element (got ", status->numel(), ")");
  check_same_device(op, first, "status", *status);
}

inline const float* expert_scales_ptr(const std::optional<at::Tensor>& s) {
  return s.has_value() ? static_cast<const float*>(s->data_ptr()) : nullptr;
}
inline uint32_t* status_ptr(const std::optional<at::Tensor>& s) {
  return s.has_value() ? static_cast<uint32_t*>(s->data_ptr()) : nullptr;
}

// Stacked 16-bit weights [E, N, K] of a's dtype, rows of K contiguous elements: their row stride and expert
// stride (elements; 0 with E = 1, where it does not matter).
struct WeightStrides {
  int64_t ld = 0, expert = 0;
};
inline WeightStrides check_grouped_weights(const char* op, const char* name, const at::Tensor& b,
                                           const at::Tensor& a, int64_t experts, int64_t k) {
  TORCH_CHECK_VALUE(b.dim() == 3 && b.size(0) == experts && b.size(2) == k, op, ": ", name,
                    " must be [E, N, K] = [", experts, ", N, ", k,
                    "] (each expert's nn.Linear weight; got shape ", b.sizes(), ")");
  check_dtype_as(op, name, b, a);
  check_same_device(op, a, name, b);
  TORCH_CHECK_VALUE(b.stride(2) == 1, op, ": ", name,
                    " must have rows of K contiguous elements (got strides ", b.strides(), ")");
  check_aligned(op, name, b);
  return {b.stride(1), experts > 1 ? b.stride(0) : 0};
}

// The shape rule of the 16-bit grouped operations.
inline void check_grouped_16bit_shape(const char* op, int64_t n, int64_t k) {
  TORCH_CHECK_VALUE(n > 0 && n % 8 == 0, op, ": N = ", n, " must be a positive multiple of 8");
  TORCH_CHECK_VALUE(k > 0 && k % 8 == 0, op, ": K = ", k, " must be a positive multiple of 8 (16-byte rows)");
}

// The gated activations of the grouped dual GEMMs: "silu" (epi::SiluMul) and "swiglu_oai" (gpt-oss's clamped
// SwiGLU, epi::SiluMulClamped with swiglu_limit and swiglu_alpha).
inline bool check_activation(const char* op, const std::string& activation, double limit, double alpha) {
  TORCH_CHECK_VALUE(activation == "silu" || activation == "swiglu_oai", op,
                    ": activation must be \"silu\" or \"swiglu_oai\" (got \"", activation, "\")");
  TORCH_CHECK_VALUE(std::isfinite(limit) && std::isfinite(alpha), op,
                    ": swiglu_limit and swiglu_alpha must be finite (got ", limit, " and ", alpha, ")");
  return activation == "swiglu_oai";
}

// grouped_mm's checks; returns the tokens, N and D's dtype.
inline TokenSplit check_grouped_mm(const at::Tensor& a, const at::Tensor& b,
                                   const std::optional<at::Tensor>& offs,
                                   const std::optional<at::Tensor>& counts,
                                   const std::optional<at::Tensor>& alphas,
                                   std::optional<at::ScalarType> out_dtype,
                                   const std::optional<at::Tensor>& status, WeightStrides* ws,
                                   at::ScalarType* out) {
  constexpr const char* op = "bwgemm.grouped_mm";
  const TokenSplit t = check_grouped_tokens(op, a, offs, counts, "[T, K]", "[E, max_tokens, K]");
  check_16bit(op, "a", a);
  check_aligned(op, "a", a);
  const int64_t k = a.size(-1);
  *ws = check_grouped_weights(op, "b", b, a, t.experts, k);
  check_grouped_16bit_shape(op, b.size(1), k);
  check_expert_scales(op, "alphas", alphas, a, t.experts);
  check_status_word(op, status, a);
  *out = gemm_out_dtype(op, a, out_dtype);
  return t;
}

// grouped_dual_mm's checks; returns the tokens; b1 and b2 share their strides.
inline TokenSplit check_grouped_dual_mm(const at::Tensor& a, const at::Tensor& b1, const at::Tensor& b2,
                                        const std::optional<at::Tensor>& offs,
                                        const std::optional<at::Tensor>& counts,
                                        const std::optional<at::Tensor>& alpha1s,
                                        const std::optional<at::Tensor>& alpha2s,
                                        const std::optional<at::Tensor>& status, WeightStrides* ws) {
  constexpr const char* op = "bwgemm.grouped_dual_mm";
  const TokenSplit t = check_grouped_tokens(op, a, offs, counts, "[T, K]", "[E, max_tokens, K]");
  check_16bit(op, "a", a);
  check_aligned(op, "a", a);
  const int64_t k = a.size(-1);
  *ws = check_grouped_weights(op, "b1", b1, a, t.experts, k);
  const WeightStrides w2 = check_grouped_weights(op, "b2", b2, a, t.experts, k);
  TORCH_CHECK_VALUE(b1.sizes() == b2.sizes(), op, ": b1 and b2 must have one shape [E, N, K] (got ",
                    b1.sizes(), " and ", b2.sizes(), ")");
  TORCH_CHECK_VALUE(ws->ld == w2.ld && ws->expert == w2.expert, op,
                    ": b1 and b2 must have the same strides (one row stride and one expert stride: two "
                    "tensors alike, or the views w[:, :N] and w[:, N:] of one [E, 2N, K] tensor; got ",
                    b1.strides(), " and ", b2.strides(), ")");
  check_grouped_16bit_shape(op, b1.size(1), k);
  check_expert_scales(op, "alpha1s", alpha1s, a, t.experts);
  check_expert_scales(op, "alpha2s", alpha2s, a, t.experts);
  check_status_word(op, status, a);
  return t;
}

// An NVFP4 A of the tokens: data [T, K/2] (offs) or [E, max_tokens, K/2] (counts), contiguous; its scales
// (contiguous, any shape) quantize_nvfp4_grouped's placement (offs: blocked_scale_bytes(round_up(T + 127 E,
// 128), K/16)) or E slabs of max_tokens rows (counts: E x blocked_scale_bytes(max_tokens, K/16)).
inline TokenSplit check_grouped_nvfp4_tokens(const char* op, const at::Tensor& a, const at::Tensor& a_scales,
                                             const std::optional<at::Tensor>& offs,
                                             const std::optional<at::Tensor>& counts) {
  const TokenSplit t = check_grouped_tokens(op, a, offs, counts, "[T, K/2]", "[E, max_tokens, K/2]");
  TORCH_CHECK_TYPE(a.scalar_type() == at::kFloat4_e2m1fn_x2 || a.scalar_type() == at::kByte, op,
                   ": a must be float4_e2m1fn_x2 or uint8 (two e2m1 codes per byte, element 2i in the low "
                   "nibble; got ",
                   a.scalar_type(), ")");
  TORCH_CHECK_TYPE(a_scales.scalar_type() == at::kFloat8_e4m3fn || a_scales.scalar_type() == at::kByte, op,
                   ": a_scales must be float8_e4m3fn or uint8 (got ", a_scales.scalar_type(), ")");
  check_same_device(op, a, "a_scales", a_scales);
  TORCH_CHECK_VALUE(a_scales.is_contiguous(), op, ": a_scales must be contiguous");
  const int64_t k = 2 * a.size(-1);
  TORCH_CHECK_VALUE(k > 0 && k % 64 == 0, op, ": K = ", k,
                    " must be a positive multiple of 64 (a is [..., K/2] bytes)");
  if (t.masked) {
    const int64_t want = t.experts * bwgemm::blocked_scale_bytes(t.rows, k / kBlock);
    TORCH_CHECK_VALUE(a_scales.numel() == want, op, ": with counts, a_scales must hold E = ", t.experts,
                      " slabs of the 128x4 blocked scales of max_tokens = ", t.rows, " rows x ", k / kBlock,
                      " blocks: ", want, " elements (each expert's quantize_nvfp4 scales, concatenated; got ",
                      a_scales.numel(), ")");
  } else {
    const int64_t scale_rows = bwgemm::grouped::grouped_scale_rows(t.rows, t.experts);
    const int64_t want = bwgemm::blocked_scale_bytes(scale_rows, k / kBlock);
    TORCH_CHECK_VALUE(
        a_scales.numel() == want, op, ": with offs, a_scales must hold the 128x4 blocked scales of ",
        scale_rows, " rows (round_up(T + 127 E, 128), T = ", t.rows, ", E = ", t.experts, ") x ", k / kBlock,
        " blocks: ", want, " elements (quantize_nvfp4_grouped's scales; got ", a_scales.numel(), ")");
  }
  check_aligned(op, "a", a);
  check_aligned(op, "a_scales", a_scales);
  return t;
}

// Stacked NVFP4 weights: data [E, N, K/2] with packed rows (any expert stride) and scales holding each
// expert's blocked_scale_bytes(N, K/16): contiguous (any shape) or an [E, blocked] view with unit inner
// stride. Their expert strides in bytes (0: packed, or E = 1).
struct Nvfp4WeightStrides {
  int64_t data = 0, scales = 0;
};
inline Nvfp4WeightStrides check_grouped_nvfp4_weights(const char* op, const char* name,
                                                      const char* scales_name, const at::Tensor& b,
                                                      const at::Tensor& b_scales, const at::Tensor& a,
                                                      int64_t experts, int64_t k) {
  TORCH_CHECK_VALUE(b.dim() == 3 && b.size(0) == experts && b.size(2) == k / 2, op, ": ", name,
                    " must be [E, N, K/2] = [", experts, ", N, ", k / 2, "] (got shape ", b.sizes(), ")");
  TORCH_CHECK_TYPE(b.scalar_type() == at::kFloat4_e2m1fn_x2 || b.scalar_type() == at::kByte, op, ": ", name,
                   " must be float4_e2m1fn_x2 or uint8 (got ", b.scalar_type(), ")");
  TORCH_CHECK_TYPE(b_scales.scalar_type() == at::kFloat8_e4m3fn || b_scales.scalar_type() == at::kByte, op,
                   ": ", scales_name, " must be float8_e4m3fn or uint8 (got ", b_scales.scalar_type(), ")");
  check_same_device(op, a, name, b);
  check_same_device(op, a, scales_name, b_scales);
  TORCH_CHECK_VALUE(b.stride(2) == 1 && b.stride(1) == k / 2, op, ": ", name,
                    " must have packed rows of K/2 = ", k / 2, " bytes (got strides ", b.strides(), ")");
  const int64_t per_expert = bwgemm::blocked_scale_bytes(b.size(1), k / kBlock);
  Nvfp4WeightStrides s;
  s.data = experts > 1 ? b.stride(0) : 0;
  if (b_scales.is_contiguous()) {
    s.scales = experts > 1 ? per_expert : 0;
    TORCH_CHECK_VALUE(b_scales.numel() == experts * per_expert, op, ": ", scales_name,
                      " must hold E = ", experts, " experts' 128x4 blocked scales of ", b.size(1), " rows x ",
                      k / kBlock, " blocks: ", experts * per_expert, " elements (got ", b_scales.numel(),
                      ")");
  } else {
    TORCH_CHECK_VALUE(b_scales.dim() == 2 && b_scales.size(0) == experts && b_scales.size(1) == per_expert &&
                          b_scales.stride(1) == 1,
                      op, ": ", scales_name, " must be contiguous, or an [E, ", per_expert,
                      "] view with unit inner stride (each expert's blocked scales of ", b.size(1),
                      " rows; got shape ", b_scales.sizes(), ", strides ", b_scales.strides(), ")");
    s.scales = experts > 1 ? b_scales.stride(0) : 0;
  }
  check_aligned(op, name, b);
  check_aligned(op, scales_name, b_scales);
  return s;
}

inline at::ScalarType grouped_nvfp4_out_dtype(const char* op, std::optional<at::ScalarType> out_dtype) {
  const at::ScalarType out = out_dtype.value_or(at::kHalf);
  TORCH_CHECK_TYPE(out == at::kHalf || out == at::kBFloat16, op,
                   ": out_dtype must be float16 or bfloat16 (got ", out, ")");
  return out;
}

inline void check_grouped_nvfp4_shape(const char* op, int64_t n) {
  TORCH_CHECK_VALUE(n > 0 && n % 16 == 0, op, ": N = ", n, " must be a positive multiple of 16");
}

// ---- outputs -------------------------------------------------

inline at::Tensor empty_matrix(const at::Tensor& like, int64_t rows, int64_t cols, at::ScalarType dtype) {
  return at::empty({rows, cols}, like.options().dtype(dtype));
}

inline std::tuple<at::Tensor, at::Tensor> empty_quantized(const at::Tensor& x) {
  const int64_t rows = x.size(0), k = x.size(1);
  return {at::empty({rows, k / 2}, x.options().dtype(at::kFloat4_e2m1fn_x2)),
          at::empty({bwgemm::blocked_scale_bytes(rows, k / kBlock)}, x.options().dtype(at::kFloat8_e4m3fn))};
}

// ---- running bwgemm
// -----------------------------------------------------------------------------------------

inline void check_status(const char* op, const bwgemm::Status& s) {
  TORCH_CHECK(s.ok(), op, ": ", s.to_string());
}

// The stream and device a call runs on. In the emulator: no stream, and one call at a time (the emulated
// launch settings are process-wide).
struct CallContext {
#if BWGEMM_EMULATION
  explicit CallContext(const at::Tensor&) : lock(mutex()) {}
  cudaStream_t stream = nullptr;
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> lock;
#else
  explicit CallContext(const at::Tensor& t)
      : guard(t.device()), stream(c10::cuda::getCurrentCUDAStream().stream()) {}
  c10::cuda::CUDAGuard guard;
  cudaStream_t stream;
#endif
};

template <class T>
const T* ptr(const at::Tensor& t) {
  return static_cast<const T*>(t.data_ptr());
}
template <class T>
T* mutable_ptr(const at::Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// The per-tensor scales of one call: host values and optional device parts.
struct Scales {
  double first = 1.0, second = 0.0;  // alpha and beta, or alpha1 and alpha2
  const float* first_ptr = nullptr;
  const float* second_ptr = nullptr;
};

inline bwgemm::epi::LinearCombination linear_combination(const Scales& s) {
  bwgemm::epi::LinearCombination f{static_cast<float>(s.first), static_cast<float>(s.second)};
  f.alpha_ptr = s.first_ptr;
  f.beta_ptr = s.second_ptr;
  return f;
}

template <class In, class Out>
void run_gemm(const at::Tensor& a, const at::Tensor& b, const Scales& scales,
              const std::optional<at::Tensor>& c, const at::Tensor& d, cudaStream_t stream) {
  bwgemm::GemmArguments<In, Out> args;
  args.m = a.size(0), args.n = b.size(0), args.k = a.size(1);
  args.a = ptr<In>(a);
  args.b = ptr<In>(b);
  args.b_layout = bwgemm::BLayout::kColumnMajorKxN;  // [N, K] row-major: K-major B
  args.c = c.has_value() ? ptr<Out>(*c) : nullptr;
  args.d = mutable_ptr<Out>(d);
  args.epilogue = linear_combination(scales);
  check_status("bwgemm.gemm", bwgemm::gemm(args, stream));
}

template <class In>
void dispatch_gemm_out(const at::Tensor& a, const at::Tensor& b, const Scales& scales,
                       const std::optional<at::Tensor>& c, const at::Tensor& d, cudaStream_t stream) {
  if (d.scalar_type() == at::kFloat)
    run_gemm<In, float>(a, b, scales, c, d, stream);
  else
    run_gemm<In, In>(a, b, scales, c, d, stream);
}

inline at::Tensor gemm(const at::Tensor& a, const at::Tensor& b, double alpha, double beta,
                       const std::optional<at::Tensor>& c, std::optional<at::ScalarType> out_dtype,
                       const std::optional<at::Tensor>& alpha_scale,
                       const std::optional<at::Tensor>& beta_scale) {
  const at::ScalarType out = check_gemm(a, b, c, beta, out_dtype, alpha_scale, beta_scale);
  const Scales scales{alpha, beta, scale_ptr(alpha_scale), scale_ptr(beta_scale)};
  at::Tensor d = empty_matrix(a, a.size(0), b.size(0), out);
  if (d.numel() == 0) return d;
  TORCH_CHECK_VALUE(a.size(1) > 0, "bwgemm.gemm: K must be >= 1");
  CallContext ctx(a);
  if (a.scalar_type() == at::kHalf)
    dispatch_gemm_out<__half>(a, b, scales, c, d, ctx.stream);
  else
    dispatch_gemm_out<__nv_bfloat16>(a, b, scales, c, d, ctx.stream);
  return d;
}

// The fused kernels: sm_90a's on an H100/H200, sm_100a's on a B200 and in the emulator (CPU tensors).
template <class In>
void run_dual_gemm(const at::Tensor& a, const at::Tensor& b1, const at::Tensor& b2, const Scales& scales,
                   const at::Tensor& c, cudaStream_t stream) {
  bwgemm::DualGemmArguments<In, In> args;
  args.m = a.size(0), args.n = b1.size(0), args.k = a.size(1);
  args.a = ptr<In>(a);
  args.b1 = ptr<In>(b1);
  args.b2 = ptr<In>(b2);
  args.c = mutable_ptr<In>(c);
  args.alpha1 = static_cast<float>(scales.first);
  args.alpha2 = static_cast<float>(scales.second);
  args.alpha1_ptr = scales.first_ptr;
  args.alpha2_ptr = scales.second_ptr;
  check_status("bwgemm.dual_gemm", bwgemm::dual_gemm(args, stream));
}

inline at::Tensor dual_gemm(const at::Tensor& a, const at::Tensor& b1, const at::Tensor& b2, double alpha1,
                            double alpha2, const std::optional<at::Tensor>& alpha1_scale,
                            const std::optional<at::Tensor>& alpha2_scale) {
  check_dual_gemm(a, b1, b2, alpha1_scale, alpha2_scale);
  const Scales scales{alpha1, alpha2, scale_ptr(alpha1_scale), scale_ptr(alpha2_scale)};
  at::Tensor c = empty_matrix(a, a.size(0), b1.size(0), a.scalar_type());
  if (c.numel() == 0) return c;
  CallContext ctx(a);
  if (a.scalar_type() == at::kHalf)
    run_dual_gemm<__half>(a, b1, b2, scales, c, ctx.stream);
  else
    run_dual_gemm<__nv_bfloat16>(a, b1, b2, scales, c, ctx.stream);
  return c;
}

template <class Out>
void run_dual_gemm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b1,
                         const at::Tensor& b1_scales, const at::Tensor& b2, const at::Tensor& b2_scales,
                         const Scales& scales, const at::Tensor& c, cudaStream_t stream) {
  bwgemm::Nvfp4DualGemmArguments<Out> args;
  args.m = a.size(0), args.n = b1.size(0), args.k = 2 * a.size(1);
  args.a = {a.data_ptr(), a_scales.data_ptr()};
  args.b1 = {b1.data_ptr(), b1_scales.data_ptr()};
  args.b2 = {b2.data_ptr(), b2_scales.data_ptr()};
  args.c = mutable_ptr<Out>(c);
  args.alpha1 = static_cast<float>(scales.first);
  args.alpha2 = static_cast<float>(scales.second);
  args.alpha1_ptr = scales.first_ptr;
  args.alpha2_ptr = scales.second_ptr;
  check_status("bwgemm.dual_gemm_nvfp4", bwgemm::dual_gemm_nvfp4(args, stream));
}

inline at::Tensor dual_gemm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b1,
                                  const at::Tensor& b1_scales, const at::Tensor& b2,
                                  const at::Tensor& b2_scales, double alpha1, double alpha2,
                                  std::optional<at::ScalarType> out_dtype,
                                  const std::optional<at::Tensor>& alpha1_scale,
                                  const std::optional<at::Tensor>& alpha2_scale) {
  const at::ScalarType out =
      check_dual_gemm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, out_dtype, alpha1_scale, alpha2_scale);
  const Scales scales{alpha1, alpha2, scale_ptr(alpha1_scale), scale_ptr(alpha2_scale)};
  at::Tensor c = empty_matrix(a, a.size(0), b1.size(0), out);
  if (c.numel() == 0) return c;
  CallContext ctx(a);
  if (out == at::kHalf)
    run_dual_gemm_nvfp4<__half>(a, a_scales, b1, b1_scales, b2, b2_scales, scales, c, ctx.stream);
  else
    run_dual_gemm_nvfp4<__nv_bfloat16>(a, a_scales, b1, b1_scales, b2, b2_scales, scales, c, ctx.stream);
  return c;
}

template <class Out>
void run_gemm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b,
                    const at::Tensor& b_scales, const Scales& scales, const std::optional<at::Tensor>& c,
                    const at::Tensor& d, cudaStream_t stream) {
  bwgemm::Nvfp4GemmArguments<Out> args;
  args.m = a.size(0), args.n = b.size(0), args.k = 2 * a.size(1);
  args.a = {a.data_ptr(), a_scales.data_ptr()};
  args.b = {b.data_ptr(), b_scales.data_ptr()};
  args.c = c.has_value() ? ptr<Out>(*c) : nullptr;
  args.d = mutable_ptr<Out>(d);
  args.epilogue = linear_combination(scales);
  check_status("bwgemm.gemm_nvfp4", bwgemm::gemm_nvfp4(args, stream));
}

inline at::Tensor gemm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b,
                             const at::Tensor& b_scales, double alpha, double beta,
                             const std::optional<at::Tensor>& c, std::optional<at::ScalarType> out_dtype,
                             const std::optional<at::Tensor>& alpha_scale,
                             const std::optional<at::Tensor>& beta_scale) {
  const at::ScalarType out =
      check_gemm_nvfp4(a, a_scales, b, b_scales, c, beta, out_dtype, alpha_scale, beta_scale);
  const Scales scales{alpha, beta, scale_ptr(alpha_scale), scale_ptr(beta_scale)};
  at::Tensor d = empty_matrix(a, a.size(0), b.size(0), out);
  if (d.numel() == 0) return d;
  CallContext ctx(a);
  if (out == at::kHalf)
    run_gemm_nvfp4<__half>(a, a_scales, b, b_scales, scales, c, d, ctx.stream);
  else if (out == at::kBFloat16)
    run_gemm_nvfp4<__nv_bfloat16>(a, a_scales, b, b_scales, scales, c, d, ctx.stream);
  else
    run_gemm_nvfp4<float>(a, a_scales, b, b_scales, scales, c, d, ctx.stream);
  return d;
}

template <class T>
void run_quantize(const at::Tensor& x, double global_scale, const float* global_scale_ptr,
                  const at::Tensor& data, const at::Tensor& scales, cudaStream_t stream) {
  check_status("bwgemm.quantize_nvfp4",
               bwgemm::quantize_nvfp4(ptr<T>(x), x.size(0), x.size(1), 1, x.size(1),
                                      static_cast<float>(global_scale), global_scale_ptr,
                                      mutable_ptr<uint8_t>(data), mutable_ptr<uint8_t>(scales), stream));
}

inline std::tuple<at::Tensor, at::Tensor> quantize_nvfp4(
    const at::Tensor& x, double global_scale, const std::optional<at::Tensor>& global_scale_tensor) {
  check_quantize(x, global_scale, global_scale_tensor);
  const float* gptr = scale_ptr(global_scale_tensor);
  auto [data, scales] = empty_quantized(x);
  CallContext ctx(x);
  if (x.scalar_type() == at::kFloat)
    run_quantize<float>(x, global_scale, gptr, data, scales, ctx.stream);
  else if (x.scalar_type() == at::kHalf)
    run_quantize<__half>(x, global_scale, gptr, data, scales, ctx.stream);
  else
    run_quantize<__nv_bfloat16>(x, global_scale, gptr, data, scales, ctx.stream);
  return {data, scales};
}

// quantize_nvfp4_grouped(x, offs, global_scale=1, global_scales=None) -> (data, scales): the routed tokens x
// [T, K] (sorted by expert; offs: E int32 cumulative row ends on x's device, torch._grouped_mm's `offs`)
// quantized with each expert's scales where the grouped operations read them: data [T, K/2]
// float4_e2m1fn_x2, scales 1-D float8_e4m3fn of blocked_scale_bytes(round_up(T + 127 E, 128), K/16)
// (bwgemm::quantize_nvfp4_grouped, docs/moe.md). Expert e's global scale: global_scale · global_scales[e]
// (E float32 on x's device). Rows and scale rows no expert owns are zero (the outputs are zeroed first).
template <class T>
void run_quantize_grouped(const at::Tensor& x, const at::Tensor& offs, double global_scale,
                          const float* global_scales, const at::Tensor& data, const at::Tensor& scales,
                          cudaStream_t stream) {
  check_status("bwgemm.quantize_nvfp4_grouped",
               bwgemm::quantize_nvfp4_grouped(
                   ptr<T>(x), bwgemm::contiguous_tokens(x.size(0), ptr<int32_t>(offs)), offs.numel(),
                   x.size(1), x.size(1), static_cast<float>(global_scale), global_scales,
                   mutable_ptr<uint8_t>(data), mutable_ptr<uint8_t>(scales), nullptr, stream));
}

inline std::tuple<at::Tensor, at::Tensor> quantize_nvfp4_grouped(
    const at::Tensor& x, const at::Tensor& offs, double global_scale,
    const std::optional<at::Tensor>& global_scales) {
  constexpr const char* op = "bwgemm.quantize_nvfp4_grouped";
  check_quantize(x, global_scale, std::nullopt, op);
  TORCH_CHECK_VALUE(offs.dim() == 1 && offs.numel() >= 1 && offs.is_contiguous(), op,
                    ": offs must be a contiguous 1-D tensor of one cumulative row end per expert (got shape ",
                    offs.sizes(), ")");
  TORCH_CHECK_TYPE(offs.scalar_type() == at::kInt, op, ": offs must be int32 (got ", offs.scalar_type(), ")");
  check_same_device(op, x, "offs", offs);
  const int64_t experts = offs.numel();
  if (global_scales.has_value()) {
    TORCH_CHECK_TYPE(global_scales->scalar_type() == at::kFloat, op, ": global_scales must be float32 (got ",
                     global_scales->scalar_type(), ")");
    TORCH_CHECK_VALUE(
        global_scales->dim() == 1 && global_scales->numel() == experts && global_scales->is_contiguous(), op,
        ": global_scales must be a contiguous 1-D tensor of one scale per expert (", experts, "; got shape ",
        global_scales->sizes(), ")");
    check_same_device(op, x, "global_scales", *global_scales);
  }
  const int64_t rows = x.size(0), k = x.size(1);
  at::Tensor data = at::zeros({rows, k / 2}, x.options().dtype(at::kByte)).view(at::kFloat4_e2m1fn_x2);
  at::Tensor scales =
      at::zeros({bwgemm::blocked_scale_bytes(bwgemm::grouped::grouped_scale_rows(rows, experts), k / kBlock)},
                x.options().dtype(at::kByte))
          .view(at::kFloat8_e4m3fn);
  const float* gptr =
      global_scales.has_value() ? static_cast<const float*>(global_scales->data_ptr()) : nullptr;
  CallContext ctx(x);
  if (x.scalar_type() == at::kFloat)
    run_quantize_grouped<float>(x, offs, global_scale, gptr, data, scales, ctx.stream);
  else if (x.scalar_type() == at::kHalf)
    run_quantize_grouped<__half>(x, offs, global_scale, gptr, data, scales, ctx.stream);
  else
    run_quantize_grouped<__nv_bfloat16>(x, offs, global_scale, gptr, data, scales, ctx.stream);
  return {data, scales};
}

// ---- grouped (mixture-of-experts) operations -------------------------------------------------------------
//
// The output is allocated with at::empty, as torch._grouped_mm allocates its own: the rows no expert owns
// (contiguous: past offs[E-1], or of an expert whose offsets are out of range; masked: past counts[e] in each
// slab) are not written and hold whatever the allocator returned.

inline at::Tensor empty_grouped_output(const at::Tensor& a, const TokenSplit& t, int64_t n,
                                       at::ScalarType dtype) {
  if (t.masked) return at::empty({t.experts, t.rows, n}, a.options().dtype(dtype));
  return at::empty({t.rows, n}, a.options().dtype(dtype));
}

inline bwgemm::GroupedTokens grouped_tokens(const TokenSplit& t) {
  const int32_t* p = ptr<int32_t>(*t.meta);
  return t.masked ? bwgemm::masked_tokens(t.rows, p) : bwgemm::contiguous_tokens(t.rows, p);
}

template <class In, class Out>
void run_grouped_mm(const at::Tensor& a, const at::Tensor& b, const TokenSplit& t, const WeightStrides& ws,
                    double alpha, const std::optional<at::Tensor>& alphas,
                    const std::optional<at::Tensor>& status, const at::Tensor& d, cudaStream_t stream) {
  bwgemm::GroupedGemmArguments<In, Out> args;
  args.tokens = grouped_tokens(t);
  args.experts = t.experts;
  args.n = b.size(1), args.k = b.size(2);
  args.a = ptr<In>(a);
  args.b = ptr<In>(b);
  args.ldb = ws.ld, args.b_expert_stride = ws.expert;
  args.d = mutable_ptr<Out>(d);
  args.alpha = static_cast<float>(alpha);
  args.alpha_ptr = expert_scales_ptr(alphas);
  args.status = status_ptr(status);
  check_status("bwgemm.grouped_mm", bwgemm::grouped_gemm(args, stream));
}

// grouped_mm(a, b, offs=None, counts=None, alpha=1, alphas=None, out_dtype=None, status=None) -> d
inline at::Tensor grouped_mm(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& offs,
                             const std::optional<at::Tensor>& counts, double alpha,
                             const std::optional<at::Tensor>& alphas, std::optional<at::ScalarType> out_dtype,
                             const std::optional<at::Tensor>& status) {
  WeightStrides ws;
  at::ScalarType out = at::kHalf;
  const TokenSplit t = check_grouped_mm(a, b, offs, counts, alphas, out_dtype, status, &ws, &out);
  at::Tensor d = empty_grouped_output(a, t, b.size(1), out);
  if (t.rows == 0) return d;
  CallContext ctx(a);
  const bool f32 = out == at::kFloat;
  if (a.scalar_type() == at::kHalf) {
    if (f32)
      run_grouped_mm<__half, float>(a, b, t, ws, alpha, alphas, status, d, ctx.stream);
    else
      run_grouped_mm<__half, __half>(a, b, t, ws, alpha, alphas, status, d, ctx.stream);
  } else {
    if (f32)
      run_grouped_mm<__nv_bfloat16, float>(a, b, t, ws, alpha, alphas, status, d, ctx.stream);
    else
      run_grouped_mm<__nv_bfloat16, __nv_bfloat16>(a, b, t, ws, alpha, alphas, status, d, ctx.stream);
  }
  return d;
}

// The per-expert scales of a grouped dual GEMM.
struct DualScales {
  double alpha1 = 1.0, alpha2 = 1.0;
  const float* alpha1_ptr = nullptr;
  const float* alpha2_ptr = nullptr;
};

template <class Args>
void set_dual_scales(Args* args, const DualScales& s) {
  args->alpha1 = static_cast<float>(s.alpha1);
  args->alpha2 = static_cast<float>(s.alpha2);
  args->alpha1_ptr = s.alpha1_ptr;
  args->alpha2_ptr = s.alpha2_ptr;
}

template <class In, class Epilogue>
void run_grouped_dual_mm(const at::Tensor& a, const at::Tensor& b1, const at::Tensor& b2, const TokenSplit& t,
                         const WeightStrides& ws, const DualScales& scales, const Epilogue& epilogue,
                         const std::optional<at::Tensor>& status, const at::Tensor& c, cudaStream_t stream) {
  bwgemm::GroupedDualGemmArguments<In, In, Epilogue> args;
  args.tokens = grouped_tokens(t);
  args.experts = t.experts;
  args.n = b1.size(1), args.k = b1.size(2);
  args.a = ptr<In>(a);
  args.b1 = ptr<In>(b1);
  args.b2 = ptr<In>(b2);
  args.ldb = ws.ld, args.b_expert_stride = ws.expert;
  args.c = mutable_ptr<In>(c);
  set_dual_scales(&args, scales);
  args.epilogue = epilogue;
  args.status = status_ptr(status);
  check_status("bwgemm.grouped_dual_mm", bwgemm::grouped_dual_gemm(args, stream));
}

// grouped_dual_mm(a, b1, b2, offs=None, counts=None, alpha1=1, alpha2=1, alpha1s=None, alpha2s=None,
//                 activation="silu", swiglu_limit=7, swiglu_alpha=1.702, status=None) -> c
inline at::Tensor grouped_dual_mm(const at::Tensor& a, const at::Tensor& b1, const at::Tensor& b2,
                                  const std::optional<at::Tensor>& offs,
                                  const std::optional<at::Tensor>& counts, double alpha1, double alpha2,
                                  const std::optional<at::Tensor>& alpha1s,
                                  const std::optional<at::Tensor>& alpha2s, std::string activation,
                                  double swiglu_limit, double swiglu_alpha,
                                  const std::optional<at::Tensor>& status) {
  constexpr const char* op = "bwgemm.grouped_dual_mm";
  WeightStrides ws;
  const TokenSplit t = check_grouped_dual_mm(a, b1, b2, offs, counts, alpha1s, alpha2s, status, &ws);
  const bool clamped = check_activation(op, activation, swiglu_limit, swiglu_alpha);
  const DualScales scales{alpha1, alpha2, expert_scales_ptr(alpha1s), expert_scales_ptr(alpha2s)};
  at::Tensor c = empty_grouped_output(a, t, b1.size(1), a.scalar_type());
  if (t.rows == 0) return c;
  CallContext ctx(a);
  const bwgemm::epi::SiluMulClamped swiglu{static_cast<float>(swiglu_limit),
                                           static_cast<float>(swiglu_alpha)};
  if (a.scalar_type() == at::kHalf) {
    if (clamped)
      run_grouped_dual_mm<__half>(a, b1, b2, t, ws, scales, swiglu, status, c, ctx.stream);
    else
      run_grouped_dual_mm<__half>(a, b1, b2, t, ws, scales, bwgemm::epi::SiluMul{}, status, c, ctx.stream);
  } else {
    if (clamped)
      run_grouped_dual_mm<__nv_bfloat16>(a, b1, b2, t, ws, scales, swiglu, status, c, ctx.stream);
    else
      run_grouped_dual_mm<__nv_bfloat16>(a, b1, b2, t, ws, scales, bwgemm::epi::SiluMul{}, status, c,
                                         ctx.stream);
  }
  return c;
}

template <class Out>
void run_grouped_mm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b,
                          const at::Tensor& b_scales, const TokenSplit& t, const Nvfp4WeightStrides& ws,
                          double alpha, const std::optional<at::Tensor>& alphas,
                          const std::optional<at::Tensor>& status, const at::Tensor& d, cudaStream_t stream) {
  bwgemm::Nvfp4GroupedGemmArguments<Out> args;
  args.tokens = grouped_tokens(t);
  args.experts = t.experts;
  args.n = b.size(1), args.k = 2 * b.size(2);
  args.a = {a.data_ptr(), a_scales.data_ptr()};
  args.b = {b.data_ptr(), b_scales.data_ptr()};
  args.b_data_expert_stride = ws.data, args.b_scales_expert_stride = ws.scales;
  args.d = mutable_ptr<Out>(d);
  args.alpha = static_cast<float>(alpha);
  args.alpha_ptr = expert_scales_ptr(alphas);
  args.status = status_ptr(status);
  check_status("bwgemm.grouped_mm_nvfp4", bwgemm::grouped_gemm_nvfp4(args, stream));
}

// grouped_mm_nvfp4(a, a_scales, b, b_scales, offs=None, counts=None, alpha=1, alphas=None, out_dtype=None,
//                  status=None) -> d
inline at::Tensor grouped_mm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b,
                                   const at::Tensor& b_scales, const std::optional<at::Tensor>& offs,
                                   const std::optional<at::Tensor>& counts, double alpha,
                                   const std::optional<at::Tensor>& alphas,
                                   std::optional<at::ScalarType> out_dtype,
                                   const std::optional<at::Tensor>& status) {
  constexpr const char* op = "bwgemm.grouped_mm_nvfp4";
  const TokenSplit t = check_grouped_nvfp4_tokens(op, a, a_scales, offs, counts);
  const int64_t k = 2 * a.size(-1);
  const Nvfp4WeightStrides ws =
      check_grouped_nvfp4_weights(op, "b", "b_scales", b, b_scales, a, t.experts, k);
  check_grouped_nvfp4_shape(op, b.size(1));
  check_expert_scales(op, "alphas", alphas, a, t.experts);
  check_status_word(op, status, a);
  const at::ScalarType out = grouped_nvfp4_out_dtype(op, out_dtype);
  at::Tensor d = empty_grouped_output(a, t, b.size(1), out);
  if (t.rows == 0) return d;
  CallContext ctx(a);
  if (out == at::kHalf)
    run_grouped_mm_nvfp4<__half>(a, a_scales, b, b_scales, t, ws, alpha, alphas, status, d, ctx.stream);
  else
    run_grouped_mm_nvfp4<__nv_bfloat16>(a, a_scales, b, b_scales, t, ws, alpha, alphas, status, d,
                                        ctx.stream);
  return d;
}

template <class Out, class Epilogue>
void run_grouped_dual_mm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b1,
                               const at::Tensor& b1_scales, const at::Tensor& b2, const at::Tensor& b2_scales,
                               const TokenSplit& t, const Nvfp4WeightStrides& ws, const DualScales& scales,
                               const Epilogue& epilogue, const std::optional<at::Tensor>& status,
                               const at::Tensor& c, cudaStream_t stream) {
  bwgemm::Nvfp4GroupedDualGemmArguments<Out, Epilogue> args;
  args.tokens = grouped_tokens(t);
  args.experts = t.experts;
  args.n = b1.size(1), args.k = 2 * b1.size(2);
  args.a = {a.data_ptr(), a_scales.data_ptr()};
  args.b1 = {b1.data_ptr(), b1_scales.data_ptr()};
  args.b2 = {b2.data_ptr(), b2_scales.data_ptr()};
  args.b_data_expert_stride = ws.data, args.b_scales_expert_stride = ws.scales;
  args.c = mutable_ptr<Out>(c);
  set_dual_scales(&args, scales);
  args.epilogue = epilogue;
  args.status = status_ptr(status);
  check_status("bwgemm.grouped_dual_mm_nvfp4", bwgemm::grouped_dual_gemm_nvfp4(args, stream));
}

template <class Out>
void dispatch_grouped_dual_mm_nvfp4(bool clamped, const bwgemm::epi::SiluMulClamped& swiglu,
                                    const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b1,
                                    const at::Tensor& b1_scales, const at::Tensor& b2,
                                    const at::Tensor& b2_scales, const TokenSplit& t,
                                    const Nvfp4WeightStrides& ws, const DualScales& scales,
                                    const std::optional<at::Tensor>& status, const at::Tensor& c,
                                    cudaStream_t stream) {
  if (clamped)
    run_grouped_dual_mm_nvfp4<Out>(a, a_scales, b1, b1_scales, b2, b2_scales, t, ws, scales, swiglu, status,
                                   c, stream);
  else
    run_grouped_dual_mm_nvfp4<Out>(a, a_scales, b1, b1_scales, b2, b2_scales, t, ws, scales,
                                   bwgemm::epi::SiluMul{}, status, c, stream);
}

// grouped_dual_mm_nvfp4(a, a_scales, b1, b1_scales, b2, b2_scales, offs=None, counts=None, alpha1=1,
//                       alpha2=1, alpha1s=None, alpha2s=None, activation="silu", swiglu_limit=7,
//                       swiglu_alpha=1.702, out_dtype=None, status=None) -> c
inline at::Tensor grouped_dual_mm_nvfp4(const at::Tensor& a, const at::Tensor& a_scales, const at::Tensor& b1,
                                        const at::Tensor& b1_scales, const at::Tensor& b2,
                                        const at::Tensor& b2_scales, const std::optional<at::Tensor>& offs,
                                        const std::optional<at::Tensor>& counts, double alpha1, double alpha2,
                                        const std::optional<at::Tensor>& alpha1s,
                                        const std::optional<at::Tensor>& alpha2s, std::string activation,
                                        double swiglu_limit, double swiglu_alpha,
                                        std::optional<at::ScalarType> out_dtype,
                                        const std::optional<at::Tensor>& status) {
  constexpr const char* op = "bwgemm.grouped_dual_mm_nvfp4";
  const TokenSplit t = check_grouped_nvfp4_tokens(op, a, a_scales, offs, counts);
  const int64_t k = 2 * a.size(-1);
  const Nvfp4WeightStrides ws =
      check_grouped_nvfp4_weights(op, "b1", "b1_scales", b1, b1_scales, a, t.experts, k);
  const Nvfp4WeightStrides w2 =
      check_grouped_nvfp4_weights(op, "b2", "b2_scales", b2, b2_scales, a, t.experts, k);
  TORCH_CHECK_VALUE(b1.sizes() == b2.sizes(), op, ": b1 and b2 must have one shape [E, N, K/2] (got ",
                    b1.sizes(), " and ", b2.sizes(), ")");
  TORCH_CHECK_VALUE(ws.data == w2.data && ws.scales == w2.scales, op,
                    ": b1 and b2 must have the same expert strides, data and scales (two tensors alike, or "
                    "views of one stacked [E, 2N, K/2] tensor: bwgemm_torch.split_gate_up_nvfp4; got ",
                    ws.data, " and ", w2.data, " data bytes, ", ws.scales, " and ", w2.scales,
                    " scale bytes)");
  check_grouped_nvfp4_shape(op, b1.size(1));
  check_expert_scales(op, "alpha1s", alpha1s, a, t.experts);
  check_expert_scales(op, "alpha2s", alpha2s, a, t.experts);
  const bool clamped = check_activation(op, activation, swiglu_limit, swiglu_alpha);
  check_status_word(op, status, a);
  const at::ScalarType out = grouped_nvfp4_out_dtype(op, out_dtype);
  const DualScales scales{alpha1, alpha2, expert_scales_ptr(alpha1s), expert_scales_ptr(alpha2s)};
  at::Tensor c = empty_grouped_output(a, t, b1.size(1), out);
  if (t.rows == 0) return c;
  CallContext ctx(a);
  const bwgemm::epi::SiluMulClamped swiglu{static_cast<float>(swiglu_limit),
                                           static_cast<float>(swiglu_alpha)};
  if (out == at::kHalf)
    dispatch_grouped_dual_mm_nvfp4<__half>(clamped, swiglu, a, a_scales, b1, b1_scales, b2, b2_scales, t, ws,
                                           scales, status, c, ctx.stream);
  else
    dispatch_grouped_dual_mm_nvfp4<__nv_bfloat16>(clamped, swiglu, a, a_scales, b1, b1_scales, b2, b2_scales,
                                                  t, ws, scales, status, c, ctx.stream);
  return c;
}

// ---- tuning ----------------------------------------------------------------

// install_tuning_file(on_device, path) -> str: bwgemm::install_tuning_file (docs/tuning.md) for the CUDA
// operators on on_device's device (any tensor there; its data is not read): "" when the file's table is
// installed, else why it was refused (the table installed before stays). The CUDA library holds its own
// tuning registry, which its operators consult (BWGEMM_TUNING_FILE too, at their first call). On a CPU tensor
// it says why not: the CPU operators run the emulator, whose calls take the built-in rules.
inline std::string install_tuning_file(const at::Tensor& on_device, std::string path) {
  check_device_kind("bwgemm.install_tuning_file", on_device);
  TORCH_CHECK_VALUE(on_device.is_cuda(),
                    "bwgemm.install_tuning_file: a tuning file applies to the CUDA "
                    "operators on the GPU it was measured on; the CPU operators (the CPU emulator) take the "
                    "built-in rules (got a tensor on ",
                    on_device.device(), ")");
#if BWGEMM_EMULATION
  (void)path;
  return "bwgemm.install_tuning_file: this library has no CUDA kernels";
#else
  const c10::cuda::CUDAGuard guard(on_device.device());
  const bwgemm::Status s = bwgemm::install_tuning_file(path);
  return s.ok() ? std::string() : s.to_string();
#endif
}

}  // namespace bwgemm_torch
