// Approximate math instructions in the emulator (include/bwgemm/emu/math_ops.hpp).
#include <bwgemm/emu/math_ops.hpp>

#include <cmath>

namespace bwgemm::emu {
namespace detail {
float flush_subnormal(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}
}  // namespace detail

float ex2_approx(float x) {
  return detail::flush_subnormal(std::exp2(detail::flush_subnormal(x)));
}
float rcp_approx(float x) {
  return detail::flush_subnormal(1.0f / detail::flush_subnormal(x));
}

}  // namespace bwgemm::emu
