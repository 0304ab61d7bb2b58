#include "validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bwgemm/reference/nvfp4_gemm.hpp"

namespace bwgemm::bench {
namespace {

constexpr double kSiluSlopeBound = 1.1;  // max |silu'(x)| = 1.0998 (at x = 2.3994)
constexpr double kBoundSafety = 2.0;     // headroom on first-order error propagation
constexpr double kRmsUnitRoundoffs = 4.0;

std::string format_float(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", v);
  return buffer;
}

}  // namespace

OutputSample make_output_sample(int64_t m, int64_t n, int64_t col_block, bool aligned_blocks) {
  OutputSample sample;
  sample.rows = {0, m / 3, std::min(m - 1, 2 * m / 3 + 1), m - 1};
  std::sort(sample.rows.begin(), sample.rows.end());
  sample.rows.erase(std::unique(sample.rows.begin(), sample.rows.end()), sample.rows.end());
  sample.col_block = std::min(col_block, n);
  const int64_t last = n - sample.col_block;
  int64_t middle = n / 2;
  middle = aligned_blocks ? middle / sample.col_block * sample.col_block : std::min(middle, last);
  sample.col_starts = {0, middle, last};
  std::sort(sample.col_starts.begin(), sample.col_starts.end());
  sample.col_starts.erase(std::unique(sample.col_starts.begin(), sample.col_starts.end()),
                          sample.col_starts.end());
  return sample;
}

CheckResult compare_with_bounds(const std::vector<float>& got, const std::vector<float>& want,
                                const std::vector<float>& bound, double max_relative_rms,
                                const OutputSample& sample, const std::string& what) {
  const int64_t cols = sample.cols();
  int64_t failures = 0, worst = -1;
  double worst_ratio = 0, error_sq = 0, want_sq = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got[i], w = want[i], err = std::fabs(g - w);
    const bool finite = std::isfinite(g);
    if (finite) error_sq += err * err;
    want_sq += w * w;
    const double ratio = finite ? err / bound[i] : INFINITY;
    if (!(ratio <= 1.0)) ++failures;
    if (!(ratio <= worst_ratio)) {
      worst_ratio = ratio;
      worst = static_cast<int64_t>(i);
    }
  }
  const double relative_rms = want_sq > 0 ? std::sqrt(error_sq / want_sq) : std::sqrt(error_sq);
  CheckResult result;
  result.worst_fraction = worst_ratio;
  if (failures == 0 && relative_rms <= max_relative_rms) return result;
  result.ok = false;
  result.message = what + ": output differs from the host reference (bwgemm::ref): ";
  if (failures > 0) {
    const int64_t r = sample.rows[static_cast<size_t>(worst / cols)], c = sample.col(worst % cols);
    result.message += std::to_string(failures) + " of " + std::to_string(want.size()) +
                      " checked elements out of bounds, worst at (row " + std::to_string(r) + ", col " +
                      std::to_string(c) + "): got " + format_float(got[static_cast<size_t>(worst)]) +
                      ", want " + format_float(want[static_cast<size_t>(worst)]) + ", allowed +-" +
                      format_float(bound[static_cast<size_t>(worst)]) + "; ";
  }
  result.message += "relative RMS error " + format_float(relative_rms) + " (allowed " +
                    format_float(max_relative_rms) + ")";
  return result;
}

CheckResult check_gemm_output(const std::vector<float>& got, const std::vector<float>& want,
                              const std::vector<float>& abs, double u_out, double accumulation_tolerance,
                              const OutputSample& sample, const std::string& what) {
  std::vector<float> bound(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    bound[i] = static_cast<float>(kBoundSafety * u_out * std::fabs(want[i]) +
                                  accumulation_tolerance * abs[i] + kAbsoluteFloor);
  return compare_with_bounds(got, want, bound, kRmsUnitRoundoffs * u_out, sample, what);
}

CheckResult check_dual_output(const std::vector<float>& got, const std::vector<float>& x,
                              const std::vector<float>& y, const std::vector<float>& abs_x,
                              const std::vector<float>& abs_y, double u_mid, double u_out,
                              double accumulation_tolerance, const OutputSample& sample,
                              const std::string& what) {
  std::vector<float> want(x.size()), bound(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double silu_x = ref::silu(x[i]);
    want[i] = static_cast<float>(silu_x * y[i]);
    const double err_x = u_mid * std::fabs(x[i]) + accumulation_tolerance * abs_x[i];
    const double err_y = u_mid * std::fabs(y[i]) + accumulation_tolerance * abs_y[i];
    const double propagated = kSiluSlopeBound * std::fabs(y[i]) * err_x + std::fabs(silu_x) * err_y +
                              kSiluSlopeBound * err_x * err_y;
    bound[i] = static_cast<float>(kBoundSafety * (propagated + u_out * std::fabs(want[i])) + kAbsoluteFloor);
  }
  return compare_with_bounds(got, want, bound, kRmsUnitRoundoffs * (2 * u_mid + u_out), sample, what);
}

}  // namespace bwgemm::bench
