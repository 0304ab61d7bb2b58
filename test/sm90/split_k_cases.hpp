// What the sm_90a split-K tests share (test_swap_ab_sm90.cu, test_gemm_sm90.cu): the split a contract
// problem can take, and gtest type lists joined.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

namespace bwgemm_test {

// The largest split of {1, 2, 4, 8} not above `want` and the problem's K blocks of 64 (a forced split may
// not exceed them; the contract's shapes have K = 8..2056).
inline int split_for(int want, int64_t k) {
  const int64_t k_blocks = (k + 63) / 64;
  int s = want;
  while (s > 1 && s > k_blocks) s /= 2;
  return s;
}

// gtest type lists joined into one.
template <class... Lists>
struct Concat;
template <class... A>
struct Concat<::testing::Types<A...>> {
  using type = ::testing::Types<A...>;
};
template <class... A, class... B, class... Rest>
struct Concat<::testing::Types<A...>, ::testing::Types<B...>, Rest...> {
  using type = typename Concat<::testing::Types<A..., B...>, Rest...>::type;
};

}  // namespace bwgemm_test
