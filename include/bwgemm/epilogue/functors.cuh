// Epilogue functors: what happens to an fp32 accumulator value between tensor memory and the store.
//
// A single-accumulator kernel (GEMM) calls  out = f(acc)  or, with a C operand,  out = f(acc, c);
// the dual GEMM calls  out = f(acc1, acc2)  with acc1 the gate (A·B1ᵀ) and acc2 the up projection
// (A·B2ᵀ). Any copyable type with the matching call operator works as a user-supplied functor
// (docs/extending.md). Functors hold their parameters by value: they travel in the kernel arguments.
#pragma once

#include <cmath>
#include <type_traits>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/ptx/math.cuh"

namespace bwgemm::epi {

// out = acc
struct Identity {
  BWGEMM_HD float operator()(float acc) const { return acc; }
};

// out = alpha * acc
struct AlphaScale {
  float alpha = 1.0f;
  BWGEMM_HD float operator()(float acc) const { return alpha * acc; }
};

// out = alpha * acc + beta * c  (the GEMM's D = alpha A B + beta C; with beta == 0 the kernel reads no C)
//
// Device-pointer scales (alpha_ptr, beta_ptr; for scales computed on the GPU and for CUDA graphs): where one
// is not null the kernel reads one float from it at run time, once per CTA in its epilogue threads
// (epi::with_device_scales, epilogue/device_scale.cuh), and the effective scale is the host value times that
// float: alpha · *alpha_ptr, beta · *beta_ptr. A captured graph so sees the value the pointer holds when it
// is replayed. alpha defaults to 1, so a caller passes only alpha_ptr; beta defaults to 0, so a caller with a
// beta_ptr sets beta too (e.g. to 1; validate refuses a beta_ptr with beta == 0). A non-null beta_ptr means
// "C may be read": the kernel reads C (which must then be given), whatever the value behind it. Null
// pointers are the plain host scales, bit for bit.
struct LinearCombination {
  float alpha = 1.0f;
  float beta = 0.0f;
  const float* alpha_ptr = nullptr;  // device memory, 4-byte aligned; null: alpha alone
  const float* beta_ptr = nullptr;   // device memory, 4-byte aligned; null: beta alone
  BWGEMM_HD float operator()(float acc) const { return alpha * acc; }
  BWGEMM_HD float operator()(float acc, float c) const { return alpha * acc + beta * c; }
};

// Whether functor `f` carries device-pointer scales (LinearCombination's alpha_ptr, beta_ptr).
template <class F>
constexpr bool has_device_scales(const F& /*f*/) {
  return false;
}
inline bool has_device_scales(const LinearCombination& f) {
  return f.alpha_ptr != nullptr || f.beta_ptr != nullptr;
}

// Whether a single-accumulator kernel must read its source operand C for functor `f`: a functor that takes
// (acc, c) reads it; LinearCombination only when beta != 0 or a device beta is given (D = alpha A B reads no
// C).
template <class F>
constexpr bool reads_source(const F& /*f*/) {
  return std::is_invocable_v<const F&, float, float>;
}
inline bool reads_source(const LinearCombination& f) {
  return f.beta != 0.0f || f.beta_ptr != nullptr;
}

// Whether functor `f` returns the accumulator unchanged (out = acc), so that a kernel may store the
// accumulator without calling it: Identity always, LinearCombination with alpha == 1 and beta == 0 and no
// device-pointer scale (the plain D = A·B); a user functor never (it is always called).
template <class F>
constexpr bool is_identity(const F& /*f*/) {
  return false;
}
inline bool is_identity(const Identity& /*f*/) {
  return true;
}
inline bool is_identity(const LinearCombination& f) {
  return f.alpha == 1.0f && f.beta == 0.0f && !has_device_scales(f);
}

// out = silu(gate) * up,  silu(x) = x / (1 + e^-x) = x * sigmoid(x). (The dual GEMM applies its
// per-tensor scales first: gate = alpha1 * A·B1ᵀ, up = alpha2 * A·B2ᵀ.)
// e^-x is computed as 2^(-x * log2 e) with ex2.approx and the reciprocal with rcp.approx: relative error
// around 1e-6, far inside the field's |d| <= 1e-3 + 1e-3 |ref| (tested). Saturates correctly: for
// x -> -inf the sigmoid goes to +0, for x -> +inf to 1.
struct SiluMul {
  static constexpr float kLog2e = 1.4426950408889634f;  // log2(e), to evaluate e^t as 2^(t log2 e)
  BWGEMM_DEVICE float operator()(float gate, float up) const {
    const float sigmoid = ptx::rcp_approx(1.0f + ptx::ex2_approx(-gate * kLog2e));
    return gate * sigmoid * up;
  }
};

// out = gate * up: the plain product of the two GEMMs (a GLU without activation; also what the exact
// test tier uses, since its result is exact in fp32).
struct Multiply {
  BWGEMM_HD float operator()(float gate, float up) const { return gate * up; }
};

// gpt-oss's clamped SwiGLU: gate clamped above at `limit`, up clamped to [-limit, limit],
// out = gate · sigmoid(alpha · gate) · (up + 1) (gpt-oss: limit 7.0, alpha 1.702; the plain SiluMul is the
// wrong function for that model). The sigmoid as in SiluMul (ex2.approx, rcp.approx). Reference:
// ref::silu_mul_clamped (reference/activations.hpp).
struct SiluMulClamped {
  float limit = 7.0f;
  float alpha = 1.702f;
  BWGEMM_DEVICE float operator()(float gate, float up) const {
    const float g = fminf(gate, limit);
    const float u = fminf(fmaxf(up, -limit), limit);
    const float sigmoid = ptx::rcp_approx(1.0f + ptx::ex2_approx(-alpha * g * SiluMul::kLog2e));
    return g * sigmoid * (u + 1.0f);
  }
};

// GeGLU, tanh approximation of GELU (Gemma's gelu_pytorch_tanh): 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715
// g^3))) · up, with the CUDA math library's tanhf. Reference: ref::gelu_tanh_mul.
struct GeluTanhMul {
  static constexpr float kSqrt2OverPi = 0.7978845608028654f;  // sqrt(2 / pi)
  static constexpr float kCubic = 0.044715f;                  // the tanh approximation's cubic coefficient
  BWGEMM_HD float operator()(float gate, float up) const {
    return 0.5f * gate * (1.0f + tanhf(kSqrt2OverPi * (gate + kCubic * gate * gate * gate))) * up;
  }
};

// GeGLU, exact GELU: 0.5 g (1 + erf(g / sqrt 2)) · up, with the CUDA math library's erff. Reference:
// ref::gelu_erf_mul.
struct GeluErfMul {
  static constexpr float kInvSqrt2 = 0.7071067811865476f;  // 1 / sqrt(2)
  BWGEMM_HD float operator()(float gate, float up) const {
    return 0.5f * gate * (1.0f + erff(gate * kInvSqrt2)) * up;
  }
};

// ReLU²-gated: max(g, 0)^2 · up. Reference: ref::relu2_mul.
struct ReluSquaredMul {
  BWGEMM_HD float operator()(float gate, float up) const {
    const float r = fmaxf(gate, 0.0f);
    return r * r * up;
  }
};

}  // namespace bwgemm::epi
