// Validation against bwgemm's host references (include/bwgemm/reference) on a slice of the output:
// a few rows spread over M times a few 128-column blocks spread over N. A baseline or kernel that
// computes something else cannot produce a speedup: its benchmark is skipped with the mismatch.
//
// Tolerances. Inputs are exact in fp32 products (fp16/bf16 x fp16/bf16, e2m1 x e4m3 x e2m1 x e4m3),
// so the only differences are accumulation order and rounding of what an implementation stores:
//   element i passes when |got - want| <= bound_i, where bound_i adds
//   - kAccumulationTolerance x sum_k |a_k b_k| for each dot product (summation order/precision);
//   - for an implementation that stores its GEMM results before the epilogue (the unfused
//     baselines), their rounding (unit roundoff u_mid) propagated through silu(x) * y;
//   - twice the output type's unit roundoff times |want|;
// and the slice's relative RMS error must stay below a few unit roundoffs, so that a systematic
// error hiding under the per-element bounds still fails.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bwgemm::bench {

inline constexpr double kFp16UnitRoundoff = 1.0 / 2048;  // 2^-11: fp16 has 11 significand bits
inline constexpr double kBf16UnitRoundoff = 1.0 / 256;   // 2^-8: bf16 has 8 significand bits
// Summation tolerance relative to sum |a_k b_k|: 10x the random-walk growth sqrt(K) * 2^-24 of fp32
// rounding at K = 16384 (7.6e-6), far below the error of a misread operand, scale or layout.
inline constexpr double kAccumulationTolerance = 1e-4;
// The same for block-scaled FP4 tensor-core MMA, whose internal accumulation precision is not
// published: 2.5x looser, still about 10x below the change one misread 16-element scale block makes.
inline constexpr double kFp4AccumulationTolerance = 2.5e-4;
inline constexpr double kAbsoluteFloor = 1e-6;  // near-zero results (fp16 subnormals start at 6e-8)

// The slice of the output that is checked.
struct OutputSample {
  std::vector<int64_t> rows;        // row indices
  std::vector<int64_t> col_starts;  // first column of each block
  int64_t col_block = 0;            // columns per block
  int64_t cols() const { return static_cast<int64_t>(col_starts.size()) * col_block; }
  int64_t col(int64_t j) const { return col_starts[j / col_block] + j % col_block; }  // j-th sampled column
};

// Rows {0, M/3, 2M/3+1, M-1} and column blocks at the start, middle and end of N (deduplicated).
// col_block must divide N when `aligned_blocks` (NVFP4 B row blocks are read as whole 128-row atoms).
OutputSample make_output_sample(int64_t m, int64_t n, int64_t col_block, bool aligned_blocks);

struct CheckResult {
  bool ok = true;
  std::string message;        // what failed, where, by how much; empty when ok
  double worst_fraction = 0;  // max over checked elements of |got - want| / bound (<= 1 when ok)
};

// got/want/bound: rows x cols of the sample, row-major. `what` names the problem in the message.
CheckResult compare_with_bounds(const std::vector<float>& got, const std::vector<float>& want,
                                const std::vector<float>& bound, double max_relative_rms,
                                const OutputSample& sample, const std::string& what);

// GEMM: want = sum_k a b, abs = sum_k |a b|; the implementation stores type with unit roundoff u_out.
CheckResult check_gemm_output(const std::vector<float>& got, const std::vector<float>& want,
                              const std::vector<float>& abs, double u_out, double accumulation_tolerance,
                              const OutputSample& sample, const std::string& what);

// Dual GEMM: x = A B1^T, y = A B2^T (fp32 references), abs_x/abs_y their sums of |products|;
// want = silu(x) * y. u_mid: unit roundoff of stored intermediates (0 for a fused kernel).
CheckResult check_dual_output(const std::vector<float>& got, const std::vector<float>& x,
                              const std::vector<float>& y, const std::vector<float>& abs_x,
                              const std::vector<float>& abs_y, double u_mid, double u_out,
                              double accumulation_tolerance, const OutputSample& sample,
                              const std::string& what);

}  // namespace bwgemm::bench
