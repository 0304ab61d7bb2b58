// NVFP4 block quantization on the host: zero blocks, exact round trips of representable data,
// per-element error bounds, the global scale, NaN, fp16/bf16 inputs, and argument validation.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "bwgemm/formats/nvfp4.cuh"

namespace {

struct Quantized {
  std::vector<uint8_t> packed, scales;
  std::vector<float> dequant;
};

template <class T>
Quantized quantize(const std::vector<T>& x, int64_t rows, int64_t k, int64_t batch = 1, float g = 1.0f) {
  Quantized q;
  q.packed.assign(static_cast<size_t>(batch * rows * k / 2), 0xAA);
  q.scales.assign(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16, batch)), 0xAA);
  q.dequant.assign(static_cast<size_t>(batch * rows * k), -1.0f);
  EXPECT_TRUE(
      bwgemm::quantize_nvfp4_host(x.data(), rows, k, batch, k, g, q.packed.data(), q.scales.data()).ok());
  EXPECT_TRUE(
      bwgemm::dequantize_nvfp4_host(q.packed.data(), q.scales.data(), rows, k, batch, g, q.dequant.data())
          .ok());
  return q;
}

TEST(Nvfp4Quantize, ZeroBlocksGetZeroScaleAndCodes) {
  std::vector<float> x(2 * 32, 0.0f);
  for (int i = 16; i < 32; ++i)
    x[static_cast<size_t>(i)] = static_cast<float>(i - 20);  // row 0, block 1 nonzero
  Quantized q = quantize(x, 2, 32);
  EXPECT_EQ(q.scales[static_cast<size_t>(bwgemm::blocked_scale_offset(0, 0, 0, 2, 2))], 0);
  EXPECT_EQ(q.scales[static_cast<size_t>(bwgemm::blocked_scale_offset(1, 1, 0, 2, 2))], 0);
  EXPECT_NE(q.scales[static_cast<size_t>(bwgemm::blocked_scale_offset(0, 1, 0, 2, 2))], 0);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(q.packed[static_cast<size_t>(i)], 0);    // row 0 block 0
  for (int i = 16; i < 32; ++i) EXPECT_EQ(q.packed[static_cast<size_t>(i)], 0);  // row 1
  for (int i = 0; i < 16; ++i) EXPECT_EQ(q.dequant[static_cast<size_t>(i)], 0.0f);
}

TEST(Nvfp4Quantize, RepresentableDataRoundTripsExactly) {
  // Each block: codes * s with s a power of two (so amax / 6 = s exactly) and one element at +-6 s.
  std::mt19937 rng(7);
  const int64_t rows = 37, k = 128;
  std::vector<float> x(static_cast<size_t>(rows * k));
  std::vector<uint8_t> want_codes(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < k / 16; ++j) {
      const float s = std::ldexp(1.0f, static_cast<int>(rng() % 18) - 9);  // e4m3 powers of two 2^-9..2^8
      for (int i = 0; i < 16; ++i) {
        uint8_t code = static_cast<uint8_t>(rng() % 16);
        if (i == static_cast<int>(j % 16)) code = (rng() & 1) ? 0x7 : 0xF;  // the block's amax is 6 s
        if (code == 0x8) code = 0;                                          // -0 decodes as 0 anyway
        const size_t idx = static_cast<size_t>(r * k + j * 16 + i);
        x[idx] = bwgemm::e2m1_decode(code) * s;
        want_codes[idx] = code;
      }
    }
  Quantized q = quantize(x, rows, k);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(q.dequant[i], x[i]) << "element " << i;
    const uint8_t byte = q.packed[i / 2];
    ASSERT_EQ((i & 1) ? byte >> 4 : byte & 0xF, want_codes[i]) << "element " << i;
  }
}

TEST(Nvfp4Quantize, PerElementErrorIsWithinTheBlockBound) {
  std::mt19937 rng(8);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const int64_t rows = 64, k = 256;
  std::vector<float> x(static_cast<size_t>(rows * k));
  for (auto& v : x) v = dist(rng) * std::exp(dist(rng));  // heavy tails: amax varies per block
  Quantized q = quantize(x, rows, k);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < k / 16; ++j) {
      float amax = 0;
      for (int i = 0; i < 16; ++i)
        amax = std::max(amax, std::fabs(x[static_cast<size_t>(r * k + j * 16 + i)]));
      const uint8_t scale =
          q.scales[static_cast<size_t>(bwgemm::blocked_scale_offset(r, j, 0, rows, k / 16))];
      const float s = bwgemm::e4m3_decode(scale);
      // The scale is amax / 6 rounded to nearest e4m3: relative error <= 2^-4 for normal scales.
      ASSERT_LE(std::fabs(s - amax / 6.0f), amax / 6.0f * 0.0625f + 1e-30f);
      for (int i = 0; i < 16; ++i) {
        const size_t idx = static_cast<size_t>(r * k + j * 16 + i);
        const float ax = std::fabs(x[idx]) / s;
        // Half the e2m1 spacing at |x| / s (0.25 below 2, 0.5 below 4, 1 up to 6); beyond 6 s the
        // value saturates and the error is |x| - 6 s <= amax - 6 s.
        const float half_gap = ax <= 2.0f ? 0.25f : (ax <= 4.0f ? 0.5f : 1.0f);
        const float bound = ax <= 6.0f ? half_gap * s : std::fabs(x[idx]) - 6.0f * s;
        ASSERT_LE(std::fabs(q.dequant[idx] - x[idx]), bound * (1 + 1e-6f)) << "r " << r << " block " << j;
      }
    }
}

TEST(Nvfp4Quantize, GlobalScaleDividesTheBlockScale) {
  // Values of magnitude ~1e4 do not fit e4m3 scales (max 448 * 6); a global scale brings them in range.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i)
    x[static_cast<size_t>(i)] = 1024.0f * bwgemm::e2m1_decode(static_cast<uint8_t>(i));
  const float g = 16.0f;
  Quantized q = quantize(x, 1, 16, 1, g);
  EXPECT_EQ(q.scales[0], bwgemm::e4m3_encode(6.0f * 1024.0f / (6.0f * g)));  // 64 = 0x5E... exactly
  for (int i = 0; i < 16; ++i) EXPECT_EQ(q.dequant[static_cast<size_t>(i)], x[static_cast<size_t>(i)]);
  // Without it the scale saturates at 448 and the block's large values clip to 6 * 448.
  Quantized clipped = quantize(x, 1, 16, 1, 1.0f);
  EXPECT_EQ(clipped.scales[0], bwgemm::kE4m3MaxCode);
  EXPECT_EQ(clipped.dequant[7], 6.0f * 448.0f);
}

// Every positive finite global scale is accepted, FLT_MAX included, and quantizes as the formula says:
// where 6 g overflows fp32 (g > FLT_MAX / 6) the block scale amax / (6 g) is the one an unbounded exponent
// gives, so x with g quantizes exactly as x / 2^8 with g / 2^8 (both scalings exact), whose 6 g is finite.
// (With 6 g formed as +inf, every block's scale was 0 and every code 0.)
TEST(Nvfp4Quantize, HugeGlobalScalesQuantizeAsTheirScaledDownTwins) {
  const float g_edge = FLT_MAX / 6.0f;  // 6 g_edge rounds to FLT_MAX or just below
  const float scales_to_try[] = {
      FLT_MAX, std::nextafter(FLT_MAX, 0.0f), FLT_MAX / 5.0f, std::nextafter(g_edge, INFINITY),
      g_edge,  std::nextafter(g_edge, 0.0f),  FLT_MAX / 64.0f};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(80, 126);  // block magnitudes 2^80 .. 2^126: normal after / 2^8
  const int64_t rows = 4, k = 64;
  std::vector<float> x(static_cast<size_t>(rows * k)), x_down(x.size());
  for (size_t block = 0; block < x.size() / 16; ++block) {
    const float magnitude = std::ldexp(1.0f, exponent(rng));
    for (size_t i = 0; i < 16; ++i) x[block * 16 + i] = mantissa(rng) * magnitude;
  }
  x[0] = 0x1p126f;  // block 0's amax: 2^126
  for (size_t i = 0; i < x.size(); ++i) x_down[i] = std::ldexp(x[i], -8);
  for (float g : scales_to_try) {
    Quantized q = quantize(x, rows, k, 1, g);
    Quantized down = quantize(x_down, rows, k, 1, std::ldexp(g, -8));
    EXPECT_EQ(q.packed, down.packed) << "g = " << g;
    EXPECT_EQ(q.scales, down.scales) << "g = " << g;
    // Block 0 (amax 2^126) against g ~ 2^128: a nonzero scale (2^126 / 6g is far above e4m3's 2^-9), and
    // its largest element decodes within NVFP4's rounding (e4m3 and e2m1 steps: under 1/8 relative).
    EXPECT_NE(q.scales[static_cast<size_t>(bwgemm::blocked_scale_offset(0, 0, 0, rows, k / 16))], 0)
        << "g = " << g;
    EXPECT_LE(std::fabs(q.dequant[0] - x[0]), x[0] / 8) << "g = " << g << ": " << q.dequant[0];
  }
}

TEST(Nvfp4Quantize, NaNInABlockMakesItsScaleNaN) {
  std::vector<float> x(32, 6.0f);  // amax 6: scale 1, exact
  x[3] = std::numeric_limits<float>::quiet_NaN();
  Quantized q = quantize(x, 1, 32);
  EXPECT_TRUE(bwgemm::e4m3_is_nan(q.scales[0]));
  EXPECT_TRUE(std::isnan(q.dequant[0]));
  EXPECT_EQ(q.dequant[20], 6.0f);  // the other block is untouched
}

TEST(Nvfp4Quantize, HalfAndBfloatInputsQuantizeLikeTheirFloatValues) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  const int64_t rows = 5, k = 64;
  std::vector<__half> xh(static_cast<size_t>(rows * k));
  std::vector<__nv_bfloat16> xb(xh.size());
  std::vector<float> fh(xh.size()), fb(xh.size());
  for (size_t i = 0; i < xh.size(); ++i) {
    const float v = dist(rng);
    __half_raw hr;
    hr.x = bwgemm::f32_to_f16_bits(v);
    xh[i] = __half(hr);
    fh[i] = bwgemm::to_f32(xh[i]);
    __nv_bfloat16_raw br;
    br.x = bwgemm::f32_to_bf16_bits(v);
    xb[i] = __nv_bfloat16(br);
    fb[i] = bwgemm::to_f32(xb[i]);
  }
  Quantized qh = quantize(xh, rows, k), qf = quantize(fh, rows, k);
  EXPECT_EQ(qh.packed, qf.packed);
  EXPECT_EQ(qh.scales, qf.scales);
  Quantized qb = quantize(xb, rows, k), qfb = quantize(fb, rows, k);
  EXPECT_EQ(qb.packed, qfb.packed);
  EXPECT_EQ(qb.scales, qfb.scales);
}

TEST(Nvfp4Quantize, RowStrideAndBatchAreHonoured) {
  const int64_t rows = 3, k = 32, ld = 48, batch = 2;
  std::vector<float> x(static_cast<size_t>(batch * rows * ld), 1000.0f);  // the padding columns would show
  std::vector<float> dense(static_cast<size_t>(batch * rows * k));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < k; ++i) {
        const float v = static_cast<float>((b + 1) * ((r + i) % 7) - 3);
        x[static_cast<size_t>((b * rows + r) * ld + i)] = v;
        dense[static_cast<size_t>((b * rows + r) * k + i)] = v;
      }
  std::vector<uint8_t> packed(static_cast<size_t>(batch * rows * k / 2)),
      scales(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, 2, batch)));
  ASSERT_TRUE(
      bwgemm::quantize_nvfp4_host(x.data(), rows, k, batch, ld, 1.0f, packed.data(), scales.data()).ok());
  Quantized want = quantize(dense, rows, k, batch);
  EXPECT_EQ(packed, want.packed);
  EXPECT_EQ(scales, want.scales);
}

TEST(Nvfp4Quantize, RejectsBadArguments) {
  std::vector<float> x(64, 1.0f);
  std::vector<uint8_t> p(64), s(2048);
  auto run = [&](int64_t rows, int64_t k, int64_t batch, int64_t ld, float g, const float* xp) {
    return bwgemm::quantize_nvfp4_host(xp, rows, k, batch, ld, g, p.data(), s.data());
  };
  EXPECT_TRUE(run(1, 32, 1, 32, 1.0f, x.data()).ok());
  const bwgemm::Status bad_k = run(1, 24, 1, 24, 1.0f, x.data());
  EXPECT_EQ(bad_k.code(), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_k.message().find("multiple of 16"), std::string::npos) << bad_k.message();
  EXPECT_FALSE(run(0, 32, 1, 32, 1.0f, x.data()).ok());
  EXPECT_FALSE(run(1, 32, 0, 32, 1.0f, x.data()).ok());
  EXPECT_FALSE(run(1, 32, 1, 16, 1.0f, x.data()).ok());
  EXPECT_FALSE(run(1, 32, 1, 32, 0.0f, x.data()).ok());
  EXPECT_FALSE(run(1, 32, 1, 32, std::numeric_limits<float>::quiet_NaN(), x.data()).ok());
  EXPECT_FALSE(run(1, 32, 1, 32, 1.0f, nullptr).ok());
}

}  // namespace
