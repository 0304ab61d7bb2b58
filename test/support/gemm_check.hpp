// The host side of the GEMM contract (test/contract/gemm_contract.hpp): a problem, its operands in the layout
// the kernels read, the host reference and the comparison. Compiled once into bwgemm_test_support (no
// kernel, no device memory here), explicitly instantiated for every input and output type.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/base/layout.hpp"

namespace bwgemm_test {

enum class Data {
  kExact,      // small integers: every product and partial sum is exact in fp32, so results are bitwise
  kRealistic,  // uniform [-1, 1), rounded to the element type: within fp32-accumulation tolerance
};

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bwgemm::BLayout b_layout = bwgemm::BLayout::kRowMajorKxN;
  float alpha = 1.0f, beta = 0.0f;
  int64_t pad = 0;        // added to every leading dimension (D gets twice this)
  int64_t batch_gap = 0;  // added to every batch stride (elements)
};

std::string describe(const GemmProblem& pb);

// The byte every element of D starts as (a NaN pattern in fp16, bf16 and fp32): D's padding must keep it.
inline constexpr uint8_t kGemmFillByte = 0xEE;

// The operands of one problem on the host, with the strides the kernel is given.
template <class In, class Out>
struct GemmOperands {
  GemmProblem pb;
  int64_t lda, ldb, ldc, ldd, sa, sb, sc, sd;  // leading dimensions and batch strides (elements)
  std::vector<In> a, b;
  std::vector<Out> c;

  GemmOperands(const GemmProblem& p, Data kind, uint32_t seed);
  int64_t d_elements() const { return pb.batch * sd; }
  // D as the host reference computes it; the padding of D holds the fill pattern.
  std::vector<Out> reference() const;
};

// Compares the whole D buffer (padding included) with the reference: bitwise (exact tier, and the padding
// always) or within fp32-accumulation + output-rounding tolerance. Reports the first mismatches as gtest
// failures and returns how many elements are wrong.
template <class In, class Out>
int64_t expect_gemm_matches(const GemmOperands<In, Out>& o, Data kind, const std::vector<Out>& got);

// The type's name in test names and messages: "f16", "bf16", "f32".
template <class T>
const char* type_name();

}  // namespace bwgemm_test
