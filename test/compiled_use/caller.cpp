// A calling unit that sees only the entry points' declarations: it compiles no kernel, and links against
// the instantiations of kernels.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bwgemm/entry_points.hpp"

namespace {

// Small integers: every product and sum is exact in fp32, so the GEMM is compared bit for bit.
float small_int(uint32_t i, uint32_t salt) {
  return static_cast<float>(static_cast<int>((i * 2654435761u + salt) % 5u) - 2);
}

TEST(CompiledUse, GemmThroughTheDeclarationsOnly) {
  const int64_t m = 130, n = 72, k = 96;  // tails in M and N
  std::vector<__nv_bfloat16> a(m * k), b(k * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = __float2bfloat16(small_int(static_cast<uint32_t>(i), 1));
  for (size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16(small_int(static_cast<uint32_t>(i), 7));
  std::vector<float> d(m * n, -1.0f);
  bwgemm::GemmArguments<__nv_bfloat16, float> args;
  args.m = m, args.n = n, args.k = k;
  args.a = a.data(), args.b = b.data(), args.b_layout = bwgemm::BLayout::kRowMajorKxN, args.d = d.data();
  const bwgemm::Status s = bwgemm::gemm(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float want = 0.0f;
      for (int64_t l = 0; l < k; ++l) want += __bfloat162float(a[i * k + l]) * __bfloat162float(b[l * n + j]);
      ASSERT_EQ(d[i * n + j], want) << "D[" << i << ", " << j << "]";
    }
  int64_t bytes = -1;
  const bwgemm::Status ws = bwgemm::gemm_workspace_bytes(args, &bytes);
  ASSERT_TRUE(ws.ok()) << ws.to_string();
  EXPECT_EQ(bytes, 0);
}

TEST(CompiledUse, DualGemmThroughTheDeclarationsOnly) {
  const int64_t m = 70, n = 48, k = 64;
  std::vector<__half> a(m * k), b1(n * k), b2(n * k), c(m * n, __float2half(-1.0f));
  for (size_t i = 0; i < a.size(); ++i) a[i] = __float2half(small_int(static_cast<uint32_t>(i), 3) * 0.25f);
  for (size_t i = 0; i < b1.size(); ++i) b1[i] = __float2half(small_int(static_cast<uint32_t>(i), 5) * 0.25f);
  for (size_t i = 0; i < b2.size(); ++i) b2[i] = __float2half(small_int(static_cast<uint32_t>(i), 9) * 0.25f);
  bwgemm::DualGemmArguments<__half, __half> args;
  args.m = m, args.n = n, args.k = k;
  args.a = a.data(), args.b1 = b1.data(), args.b2 = b2.data(), args.c = c.data();
  const bwgemm::Status s = bwgemm::dual_gemm(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double gate = 0.0, up = 0.0;  // B1 and B2 are N x K (nn.Linear weights)
      for (int64_t l = 0; l < k; ++l) {
        gate += static_cast<double>(__half2float(a[i * k + l])) * __half2float(b1[j * k + l]);
        up += static_cast<double>(__half2float(a[i * k + l])) * __half2float(b2[j * k + l]);
      }
      const double want = gate / (1.0 + std::exp(-gate)) * up;
      ASSERT_NEAR(__half2float(c[i * n + j]), want, 2e-3 + 2e-3 * std::fabs(want))
          << "C[" << i << ", " << j << "]";
    }
}

// The grouped GEMM through its declaration: two experts (30 and 0 of 40 buffer rows); rows past the last
// offset keep their value.
TEST(CompiledUse, GroupedGemmThroughTheDeclarationsOnly) {
  const int64_t total = 40, n = 64, k = 64, experts = 2;
  std::vector<__half> a(total * k), b(experts * n * k), d(total * n, __float2half(-1.0f));
  for (size_t i = 0; i < a.size(); ++i) a[i] = __float2half(small_int(static_cast<uint32_t>(i), 2));
  for (size_t i = 0; i < b.size(); ++i) b[i] = __float2half(small_int(static_cast<uint32_t>(i), 4));
  const std::vector<int32_t> offs = {30, 30};
  bwgemm::GroupedGemmArguments<__half> args;
  args.tokens = bwgemm::contiguous_tokens(total, offs.data());
  args.experts = experts, args.n = n, args.k = k, args.a = a.data(), args.b = b.data(), args.d = d.data();
  const bwgemm::Status s = bwgemm::grouped_gemm(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  for (int64_t i = 0; i < total; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float want = -1.0f;
      if (i < 30) {
        want = 0.0f;
        for (int64_t l = 0; l < k; ++l) want += __half2float(a[i * k + l]) * __half2float(b[j * k + l]);
      }
      ASSERT_EQ(__half2float(d[i * n + j]), want) << "D[" << i << ", " << j << "]";
    }
}

TEST(CompiledUse, RefusalsComeFromTheEntryPoint) {
  bwgemm::GemmArguments<__nv_bfloat16, float> args;  // no operands: refused before any launch
  args.m = 16, args.n = 16, args.k = 16;
  const bwgemm::Status s = bwgemm::gemm(args);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
}

}  // namespace
