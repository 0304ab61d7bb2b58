// The NVFP4 GEMM and gated dual-GEMM references against naive loops written here from decoded
// values, exact small-integer cases, batch, alphas, and the fp16/bf16 rounding of the output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bwgemm/reference/nvfp4_gemm.hpp"

namespace {

// An NVFP4 operand built from chosen codes and scales (no quantizer involved).
struct Operand {
  int64_t rows, k, batch;
  std::vector<uint8_t> data, scales;
  bwgemm::ref::Nvfp4Matrix view() const { return {data.data(), scales.data(), rows, k}; }
  // Decoded value, computed straight from the definition: e2m1(code) * e4m3(scale).
  float value(int64_t l, int64_t r, int64_t kk) const {
    const uint8_t byte = data[static_cast<size_t>((l * rows + r) * (k / 2) + kk / 2)];
    const uint8_t code = (kk % 2) ? byte >> 4 : byte & 0xF;
    const uint8_t sc = scales[static_cast<size_t>(bwgemm::blocked_scale_offset(r, kk / 16, l, rows, k / 16))];
    return bwgemm::e2m1_decode(code) * bwgemm::e4m3_decode(sc);
  }
};

// Random codes masked with 0b1011 (values +-{0, 0.5, 1, 1.5}) as the field's test data, with either
// random e4m3 scales in [0, 1) or power-of-two scales (exact tier).
Operand make_operand(int64_t rows, int64_t k, int64_t batch, uint32_t seed, bool power_of_two_scales) {
  std::mt19937 rng(seed);
  Operand o{rows, k, batch, std::vector<uint8_t>(static_cast<size_t>(batch * rows * k / 2)), {}};
  for (auto& b : o.data) b = static_cast<uint8_t>(rng()) & 0xBB;
  std::vector<uint8_t> plain(static_cast<size_t>(batch * rows * k / 16));
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (auto& s : plain)
    s = power_of_two_scales ? static_cast<uint8_t>((5 + rng() % 5) << 3)  // 2^-2 .. 2^2
                            : bwgemm::e4m3_encode(dist(rng));
  o.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16, batch)));
  bwgemm::swizzle_scales_to_blocked(plain.data(), rows, k / 16, batch, o.scales.data());
  return o;
}

double dot(const Operand& a, const Operand& b, int64_t l, int64_t i, int64_t j) {
  double acc = 0;
  for (int64_t kk = 0; kk < a.k; ++kk) acc += static_cast<double>(a.value(l, i, kk)) * b.value(l, j, kk);
  return acc;
}

TEST(Nvfp4Reference, GemmMatchesNaiveLoop) {
  const int64_t m = 40, n = 24, k = 128, batch = 2;
  Operand a = make_operand(m, k, batch, 1, false), b = make_operand(n, k, batch, 2, false);
  std::vector<float> d(static_cast<size_t>(batch * m * n));
  bwgemm::ref::nvfp4_gemm(a.view(), b.view(), batch, 0.5f, d.data(), 2);
  for (int64_t l = 0; l < batch; ++l)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double want = 0.5 * dot(a, b, l, i, j);
        ASSERT_NEAR(d[static_cast<size_t>((l * m + i) * n + j)], want, 1e-5 * (1 + std::abs(want)));
      }
}

TEST(Nvfp4Reference, GemmIsExactForPowerOfTwoScales) {
  const int64_t m = 16, n = 16, k = 256;
  Operand a = make_operand(m, k, 1, 3, true), b = make_operand(n, k, 1, 4, true);
  std::vector<float> d(static_cast<size_t>(m * n));
  bwgemm::ref::nvfp4_gemm(a.view(), b.view(), 1, 1.0f, d.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_EQ(d[static_cast<size_t>(i * n + j)], static_cast<float>(dot(a, b, 0, i, j)));
}

TEST(Nvfp4Reference, DualGemmSiluMatchesNaiveLoopInHalf) {
  const int64_t m = 33, n = 32, k = 192, batch = 3;
  Operand a = make_operand(m, k, batch, 5, false), b1 = make_operand(n, k, batch, 6, false),
          b2 = make_operand(n, k, batch, 7, false);
  const int64_t ldc = n + 8;
  std::vector<__half> c(static_cast<size_t>(batch * m * ldc), bwgemm::ref::from_float<__half>(-5.0f));
  bwgemm::ref::nvfp4_dual_gemm_silu(a.view(), b1.view(), b2.view(), batch, 1.25f, 0.75f, c.data(), ldc, 2);
  for (int64_t l = 0; l < batch; ++l)
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const double x = 1.25 * dot(a, b1, l, i, j), y = 0.75 * dot(a, b2, l, i, j);
        const double want = x / (1.0 + std::exp(-x)) * y;
        const double got = bwgemm::ref::to_float(c[static_cast<size_t>((l * m + i) * ldc + j)]);
        // The field's tolerance, which the reference must meet comfortably.
        ASSERT_LE(std::abs(got - want), 1e-3 + 1e-3 * std::abs(want)) << l << "," << i << "," << j;
      }
      for (int64_t j = n; j < ldc; ++j)
        ASSERT_EQ(bwgemm::ref::to_float(c[static_cast<size_t>((l * m + i) * ldc + j)]), -5.0f)
            << "padding written";
    }
}

TEST(Nvfp4Reference, DualGemmSiluExactSmallCase) {
  // One row, one column, K = 16: A = all 1.0, B1 = all 0.5, B2 = all 1.5, scales 1.
  // x = 16 * 0.5 = 8, y = 16 * 1.5 = 24: C = silu(8) * 24 = 8 * 24 / (1 + e^-8), rounded to fp16/bf16.
  auto uniform = [](uint8_t code, int64_t rows) {
    Operand o{rows,
              16,
              1,
              std::vector<uint8_t>(static_cast<size_t>(rows * 8), static_cast<uint8_t>(code | (code << 4))),
              {}};
    std::vector<uint8_t> plain(static_cast<size_t>(rows), 0x38);  // e4m3 1.0
    o.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, 1, 1)));
    bwgemm::swizzle_scales_to_blocked(plain.data(), rows, 1, 1, o.scales.data());
    return o;
  };
  Operand a = uniform(0x2, 1), b1 = uniform(0x1, 1), b2 = uniform(0x3, 1);
  const float want = 8.0f * 24.0f / (1.0f + std::exp(-8.0f));  // 191.9356...
  __half ch;
  bwgemm::ref::nvfp4_dual_gemm_silu(a.view(), b1.view(), b2.view(), 1, 1.0f, 1.0f, &ch, 1);
  // fp16 spacing in [128, 256) is 0.125: 191.9356 lies 0.0606 from 191.875 and 0.0644 from 192.
  EXPECT_EQ(bwgemm::ref::to_float(ch), 191.875f);
  EXPECT_NEAR(bwgemm::ref::to_float(ch), want, 0.0625);
  __nv_bfloat16 cb;
  bwgemm::ref::nvfp4_dual_gemm_silu(a.view(), b1.view(), b2.view(), 1, 1.0f, 1.0f, &cb, 1);
  EXPECT_EQ(bwgemm::ref::to_float(cb), 192.0f);  // bf16 spacing at 192 is 1
}

TEST(Nvfp4Reference, SiluIsXTimesSigmoid) {
  for (float x : {-20.0f, -3.0f, -0.5f, 0.0f, 0.5f, 3.0f, 20.0f})
    EXPECT_NEAR(bwgemm::ref::silu(x), x / (1.0 + std::exp(-static_cast<double>(x))),
                1e-6 * (1 + std::fabs(x)));
}

}  // namespace
