// The shapes the benchmarks run: the built-in defaults, shapes given on the command line
// (--bwgemm_shapes), and the model sweep (--bwgemm_sweep=models): M (tokens) from 1 to 16384 on the
// projections of named open models. Host code, no CUDA: tested by ctest bench.shapes without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/base/layout.hpp"

namespace bwgemm::bench {

// GEMM: D = A · B, B K x N row-major ("Bkn") or N x K ("Bnk").
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  BLayout b_layout = BLayout::kColumnMajorKxN;
  std::string key() const;  // "M4096_N5120_K4096_Bkn"
};

// Dual GEMM: C = silu(A B1ᵀ) · (A B2ᵀ), B1 and B2 N x K.
struct DualShape {
  int64_t m = 0, n = 0, k = 0;
  std::string key() const;  // "M256_N4096_K7168"
};

// An open model's linear layers (hidden size, the query and key/value widths of attention, the MLP's
// intermediate size), from the models' published configurations.
struct ModelProjections {
  const char* name;
  int64_t hidden, q_width, kv_width, intermediate;
};
const std::vector<ModelProjections>& sweep_models();
// M of the sweep: 1, 2, 4, ..., 16384 (decode steps to prefill).
const std::vector<int64_t>& sweep_tokens();

// What each group runs.
struct ShapeSets {
  std::vector<GemmShape> gemm;  // both B layouts of each (M, N, K)
  // The NVFP4 GEMM: every (M, N, K) of `gemm`, B N x K only (NVFP4 weights are K-major; keys end in _Bnk).
  std::vector<GemmShape> gemm_nvfp4;
  std::vector<DualShape> dual_bf16, dual_nvfp4;
};

// The defaults: the GPU MODE ranked shapes, squares, Llama-3-8B projections (docs/performance.md); the
// NVFP4 GEMM runs the GEMM's.
ShapeSets default_shapes();
// The sweep: every M of sweep_tokens() on every model's projections. GEMM (and the NVFP4 GEMM): qkv (N = q +
// 2 kv, K = hidden), o (N = hidden, K = q), gate and up fused (N = 2 intermediate, K = hidden), down (N =
// hidden, K = intermediate); dual: gate/up (N = intermediate, K = hidden), for bf16 and NVFP4 alike.
ShapeSets model_sweep();
// Shapes from --bwgemm_shapes: "MxNxK[,MxNxK...]" or "@FILE" (one MxNxK or "M N K" per line, '#' starts a
// comment). Every group runs every shape (GEMM in both B layouts, the NVFP4 GEMM in Bnk). False with *error
// set on a bad spec.
bool parse_shapes(const std::string& spec, ShapeSets* out, std::string* error);

}  // namespace bwgemm::bench
