// The host GEMM reference against a naive triple loop written here, and exact small-integer cases
// whose answers are known in closed form.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/reference/gemm.hpp"

namespace {

using bwgemm::ref::BLayout;
using bwgemm::ref::from_float;
using bwgemm::ref::to_float;

template <class T>
std::vector<T> random_matrix(size_t count, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> v(count);
  for (auto& x : v) x = from_float<T>(dist(rng));
  return v;
}

// D = alpha * A * B + beta * C in double, the most literal way.
template <class TA, class TB, class TD>
std::vector<double> naive(const bwgemm::ref::GemmArgs<TA, TB, TD>& p) {
  std::vector<double> out(static_cast<size_t>(p.batch * p.m * p.n));
  for (int64_t l = 0; l < p.batch; ++l)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double acc = 0;
        for (int64_t kk = 0; kk < p.k; ++kk) {
          const TB bv = p.b_layout == BLayout::kRowMajorKxN ? p.b[l * p.batch_stride_b + kk * p.ldb + j]
                                                            : p.b[l * p.batch_stride_b + j * p.ldb + kk];
          acc += static_cast<double>(to_float(p.a[l * p.batch_stride_a + i * p.lda + kk])) * to_float(bv);
        }
        double v = p.alpha * acc;
        if (p.beta != 0.0f)
          v += static_cast<double>(p.beta) * to_float(p.c[l * p.batch_stride_c + i * p.ldc + j]);
        out[static_cast<size_t>((l * p.m + i) * p.n + j)] = v;
      }
  return out;
}

template <class TA, class TD>
void check_against_naive(BLayout layout, int64_t m, int64_t n, int64_t k, int64_t batch, float alpha,
                         float beta) {
  using TB = TA;
  const int64_t lda = k + 3, ldb = (layout == BLayout::kRowMajorKxN ? n : k) + 5, ldc = n + 2, ldd = n + 1;
  const int64_t b_rows = layout == BLayout::kRowMajorKxN ? k : n;
  auto a = random_matrix<TA>(static_cast<size_t>(batch * m * lda), 1);
  auto b = random_matrix<TB>(static_cast<size_t>(batch * b_rows * ldb), 2);
  auto c = random_matrix<TD>(static_cast<size_t>(batch * m * ldc), 3);
  std::vector<TD> d(static_cast<size_t>(batch * m * ldd), from_float<TD>(-96.0f));
  bwgemm::ref::GemmArgs<TA, TB, TD> p;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.a = a.data(), p.lda = lda, p.batch_stride_a = m * lda;
  p.b = b.data(), p.b_layout = layout, p.ldb = ldb, p.batch_stride_b = b_rows * ldb;
  p.c = c.data(), p.ldc = ldc, p.batch_stride_c = m * ldc;
  p.d = d.data(), p.ldd = ldd, p.batch_stride_d = m * ldd;
  p.alpha = alpha, p.beta = beta;
  bwgemm::ref::gemm(p, 2);
  const std::vector<double> want = naive(p);
  // fp32 accumulation over k terms of magnitude <= 1, then rounding to the output type.
  const double out_eps = sizeof(TD) == 4 ? 1.2e-7 : (std::is_same_v<TD, __half> ? 9.8e-4 : 7.9e-3);
  for (int64_t l = 0; l < batch; ++l)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double w = want[static_cast<size_t>((l * m + i) * n + j)];
        const double got = to_float(d[static_cast<size_t>(l * m * ldd + i * ldd + j)]);
        ASSERT_NEAR(got, w, 2e-6 * k + out_eps * std::abs(w)) << "l " << l << " i " << i << " j " << j;
      }
  // Padding columns of D (j >= n) must not be written.
  for (int64_t l = 0; l < batch; ++l)
    for (int64_t i = 0; i < m; ++i)
      ASSERT_EQ(to_float(d[static_cast<size_t>(l * m * ldd + i * ldd + n)]), -96.0f);
}

TEST(GemmReference, HalfInHalfOutKMajorB) {
  check_against_naive<__half, __half>(BLayout::kColumnMajorKxN, 33, 40, 64, 1, 1.0f, 0.0f);
}
TEST(GemmReference, HalfInFloatOutRowMajorB) {
  check_against_naive<__half, float>(BLayout::kRowMajorKxN, 17, 24, 48, 2, 0.5f, 0.0f);
}
TEST(GemmReference, BfloatInBfloatOutWithBetaAndC) {
  check_against_naive<__nv_bfloat16, __nv_bfloat16>(BLayout::kColumnMajorKxN, 20, 16, 32, 1, 1.5f, -0.75f);
}
TEST(GemmReference, FloatInFloatOutBatchedRowMajorB) {
  check_against_naive<float, float>(BLayout::kRowMajorKxN, 9, 13, 21, 3, 2.0f, 1.0f);
}
TEST(GemmReference, BfloatInHalfOutBatchedWithBeta) {
  check_against_naive<__nv_bfloat16, __half>(BLayout::kRowMajorKxN, 31, 8, 40, 2, 1.0f, 0.5f);
}

TEST(GemmReference, ExactSmallIntegers) {
  // A[i][k] = (i + k) % 5 - 2 and B[k][j] = (k * j) % 3 - 1: every product and sum is a small integer,
  // exact in fp16 and fp32; the expected value is computed in integers.
  const int64_t m = 24, n = 16, k = 128;
  std::vector<__half> a(static_cast<size_t>(m * k)), b_row(static_cast<size_t>(k * n)),
      b_col(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      a[static_cast<size_t>(i * k + kk)] = from_float<__half>(static_cast<float>((i + kk) % 5 - 2));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) {
      const float v = static_cast<float>((kk * j) % 3 - 1);
      b_row[static_cast<size_t>(kk * n + j)] = from_float<__half>(v);
      b_col[static_cast<size_t>(j * k + kk)] = from_float<__half>(v);
    }
  for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN}) {
    std::vector<float> d(static_cast<size_t>(m * n), 0.0f);
    bwgemm::ref::GemmArgs<__half, __half, float> p;
    p.m = m, p.n = n, p.k = k;
    p.a = a.data(), p.lda = k;
    p.b = layout == BLayout::kRowMajorKxN ? b_row.data() : b_col.data();
    p.b_layout = layout, p.ldb = layout == BLayout::kRowMajorKxN ? n : k;
    p.d = d.data(), p.ldd = n;
    bwgemm::ref::gemm(p);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t want = 0;
        for (int64_t kk = 0; kk < k; ++kk) want += ((i + kk) % 5 - 2) * ((kk * j) % 3 - 1);
        ASSERT_EQ(d[static_cast<size_t>(i * n + j)], static_cast<float>(want)) << i << "," << j;
      }
  }
}

TEST(GemmReference, IdentityAndOnes) {
  // A = I (n x n), so D = B exactly; and A = ones, B = ones gives K everywhere.
  const int64_t n = 16, k = 16;
  std::vector<float> eye(static_cast<size_t>(n * k), 0.0f), b(static_cast<size_t>(k * n)),
      d(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * k + i)] = 1.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) - 100.0f;
  bwgemm::ref::GemmArgs<float, float, float> p;
  p.m = n, p.n = n, p.k = k, p.a = eye.data(), p.lda = k, p.b = b.data(), p.b_layout = BLayout::kRowMajorKxN;
  p.ldb = n, p.d = d.data(), p.ldd = n;
  bwgemm::ref::gemm(p);
  EXPECT_EQ(d, b);
  std::vector<float> ones(static_cast<size_t>(n * 1000), 1.0f), d2(static_cast<size_t>(n * n));
  p.k = 1000, p.a = ones.data(), p.lda = 1000, p.b = ones.data(), p.b_layout = BLayout::kColumnMajorKxN,
  p.ldb = 1000;
  p.d = d2.data();
  bwgemm::ref::gemm(p);
  for (float v : d2) ASSERT_EQ(v, 1000.0f);
}

// The reference takes GemmArguments' defaults: B K x N unless said otherwise, and every zero leading
// dimension and batch stride packed (the same D as with the packed values spelled out).
TEST(GemmReference, TakesTheArgumentStructsDefaults) {
  using RefArgs = bwgemm::ref::GemmArgs<float, float, float>;
  EXPECT_EQ(RefArgs{}.b_layout, bwgemm::GemmArguments<__half>{}.b_layout);
  const int64_t m = 5, n = 6, k = 7, batch = 3;
  for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN}) {
    std::vector<float> a(static_cast<size_t>(batch * m * k)), b(static_cast<size_t>(batch * k * n)),
        c(static_cast<size_t>(batch * m * n)), d0(c.size()), d1(c.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
    for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i % 3);
    bwgemm::ref::GemmArgs<float, float, float> zeros;
    zeros.m = m, zeros.n = n, zeros.k = k, zeros.batch = batch;
    zeros.a = a.data(), zeros.b = b.data(), zeros.b_layout = layout, zeros.c = c.data(), zeros.d = d0.data();
    zeros.alpha = 2.0f, zeros.beta = 0.5f;
    bwgemm::ref::GemmArgs<float, float, float> spelled = zeros;
    spelled.d = d1.data();
    spelled.lda = k, spelled.batch_stride_a = m * k;
    spelled.ldb = layout == BLayout::kRowMajorKxN ? n : k, spelled.batch_stride_b = k * n;
    spelled.ldc = n, spelled.batch_stride_c = m * n, spelled.ldd = n, spelled.batch_stride_d = m * n;
    bwgemm::ref::gemm(zeros);
    bwgemm::ref::gemm(spelled);
    EXPECT_EQ(d0, d1);
    // And the D of batch 2 is really computed from batch 2's operands (a stride of 0 is not a broadcast).
    float want = 0.0f;
    for (int64_t kk = 0; kk < k; ++kk)
      want +=
          a[2 * m * k + kk] * (layout == BLayout::kRowMajorKxN ? b[2 * k * n + kk * n] : b[2 * k * n + kk]);
    EXPECT_EQ(d0[2 * m * n], 2.0f * want + 0.5f * c[2 * m * n]);
  }
}

}  // namespace
