// Integer helpers every layer shares (tile counts, padded sizes, aligned addresses).
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"

namespace bwgemm {

BWGEMM_HD constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
BWGEMM_HD constexpr int64_t round_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}
BWGEMM_HD constexpr uint32_t round_up_u32(uint32_t x, uint32_t a) {
  return (x + a - 1) / a * a;
}

}  // namespace bwgemm
