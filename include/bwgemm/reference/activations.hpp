// Host references of the gated activations (epilogue/functors.cuh), in double precision: out(gate, up)
// where gate = alpha1 · A·B1ᵀ and up = alpha2 · A·B2ᵀ. Each names the model convention it follows.
#pragma once

#include <algorithm>
#include <cmath>

namespace bwgemm::ref {

// SwiGLU (Llama, Qwen, Mistral...): silu(gate) · up, silu(x) = x / (1 + e^-x).
inline double silu_mul(double gate, double up) {
  return gate / (1.0 + std::exp(-gate)) * up;
}

// gpt-oss's clamped SwiGLU (its reference `swiglu`): gate clamped above at `limit`, up clamped to
// [-limit, limit], out = gate · sigmoid(alpha · gate) · (up + 1). gpt-oss uses limit 7.0, alpha 1.702.
inline double silu_mul_clamped(double gate, double up, double limit, double alpha) {
  const double g = std::min(gate, limit);
  const double u = std::clamp(up, -limit, limit);
  return g / (1.0 + std::exp(-alpha * g)) * (u + 1.0);
}

// GeGLU with the tanh approximation of GELU (Gemma's gelu_pytorch_tanh):
// 0.5 · g · (1 + tanh(sqrt(2/pi) · (g + 0.044715 g^3))) · up.
inline double gelu_tanh_mul(double gate, double up) {
  const double kSqrt2OverPi = 0.79788456080286535588;
  return 0.5 * gate * (1.0 + std::tanh(kSqrt2OverPi * (gate + 0.044715 * gate * gate * gate))) * up;
}

// GeGLU with the exact (erf) GELU: 0.5 · g · (1 + erf(g / sqrt 2)) · up.
inline double gelu_erf_mul(double gate, double up) {
  return 0.5 * gate * (1.0 + std::erf(gate * 0.70710678118654752440)) * up;
}

// ReLU²-gated (Primer's squared ReLU as a GLU): max(g, 0)^2 · up.
inline double relu2_mul(double gate, double up) {
  const double r = std::max(gate, 0.0);
  return r * r * up;
}

// The plain product of the two projections (a GLU without activation; epi::Multiply).
inline double multiply(double gate, double up) {
  return gate * up;
}

}  // namespace bwgemm::ref
