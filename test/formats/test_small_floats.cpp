// e2m1, e4m3, ue8m0, fp16 and bf16 codecs: against values computed from the bit definitions and
// against the CUDA toolkit's own conversions (cuda_fp4.h, cuda_fp8.h, cuda_fp16.h, cuda_bf16.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "bwgemm/formats/formats.cuh"

namespace {

using bwgemm::bits_to_f32;
using bwgemm::f32_to_bits;

// Value of a sign/exponent/mantissa code from the IEEE-style definition, in double:
// exponent field 0 is subnormal (2^(1-bias) * m / 2^mbits), otherwise 2^(e-bias) * (1 + m / 2^mbits).
double value_from_fields(uint32_t code, int ebits, int mbits, int bias) {
  const uint32_t m = code & ((1u << mbits) - 1);
  const uint32_t e = (code >> mbits) & ((1u << ebits) - 1);
  const bool negative = (code >> (ebits + mbits)) & 1u;
  const double frac = static_cast<double>(m) / static_cast<double>(1u << mbits);
  const double mag = e == 0 ? std::ldexp(frac, 1 - bias) : std::ldexp(1.0 + frac, static_cast<int>(e) - bias);
  return negative ? -mag : mag;
}

float cuda_fp4_decode(uint8_t code) {
  __half_raw h = __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(code), __NV_E2M1);
  return __half2float(__half(h));
}
uint8_t cuda_fp4_encode(float x) {
  return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest);
}
float cuda_e4m3_decode(uint8_t code) {
  __half_raw h = __nv_cvt_fp8_to_halfraw(code, __NV_E4M3);
  return __half2float(__half(h));
}
uint8_t cuda_e4m3_encode(float x) {
  return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
}

bool same_float(float a, float b) {
  return std::isnan(a) ? std::isnan(b) : f32_to_bits(a) == f32_to_bits(b);
}

// Floats around every point of interest: the point itself and its fp32 neighbours.
std::vector<float> around(const std::vector<float>& points) {
  std::vector<float> out;
  for (float p : points) {
    for (float v : {p, -p}) {
      out.push_back(v);
      out.push_back(std::nextafter(v, std::numeric_limits<float>::infinity()));
      out.push_back(std::nextafter(v, -std::numeric_limits<float>::infinity()));
    }
  }
  return out;
}

// ----------------------------------------------------------------------------------------- e2m1
TEST(E2m1, AllSixteenCodesDecodeAsTheBitDefinitionSays) {
  for (uint32_t code = 0; code < 16; ++code) {
    const double want = value_from_fields(code, /*ebits=*/2, /*mbits=*/1, /*bias=*/1);
    EXPECT_EQ(bwgemm::e2m1_decode(static_cast<uint8_t>(code)), static_cast<float>(want)) << "code " << code;
  }
  // The table the field quotes: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
  const float table[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int c = 0; c < 8; ++c) EXPECT_EQ(bwgemm::e2m1_decode(static_cast<uint8_t>(c)), table[c]);
  static_assert(bwgemm::e2m1_decode(0x7) == 6.0f && bwgemm::e2m1_decode(0xB) == -1.5f, "constexpr decode");
}

TEST(E2m1, DecodeAgreesWithCudaFp4) {
  for (uint32_t code = 0; code < 16; ++code)
    EXPECT_TRUE(same_float(bwgemm::e2m1_decode(static_cast<uint8_t>(code)),
                           cuda_fp4_decode(static_cast<uint8_t>(code))))
        << "code " << code;
}

TEST(E2m1, EveryCodeRoundTrips) {
  for (uint8_t code = 0; code < 16; ++code) EXPECT_EQ(bwgemm::e2m1_encode(bwgemm::e2m1_decode(code)), code);
}

TEST(E2m1, TiesRoundToEvenCode) {
  // Midpoints between neighbours go to the code with mantissa bit 0.
  EXPECT_EQ(bwgemm::e2m1_encode(0.25f), 0x0);  // 0 | 0.5   -> 0
  EXPECT_EQ(bwgemm::e2m1_encode(0.75f), 0x2);  // 0.5 | 1   -> 1
  EXPECT_EQ(bwgemm::e2m1_encode(1.25f), 0x2);  // 1 | 1.5   -> 1
  EXPECT_EQ(bwgemm::e2m1_encode(1.75f), 0x4);  // 1.5 | 2   -> 2
  EXPECT_EQ(bwgemm::e2m1_encode(2.5f), 0x4);   // 2 | 3     -> 2
  EXPECT_EQ(bwgemm::e2m1_encode(3.5f), 0x6);   // 3 | 4     -> 4
  EXPECT_EQ(bwgemm::e2m1_encode(5.0f), 0x6);   // 4 | 6     -> 4
  EXPECT_EQ(bwgemm::e2m1_encode(-5.0f), 0xE);
  EXPECT_EQ(bwgemm::e2m1_encode(std::nextafter(5.0f, 6.0f)), 0x7);
}

TEST(E2m1, SaturatesAndHandlesSpecials) {
  EXPECT_EQ(bwgemm::e2m1_encode(6.5f), 0x7);
  EXPECT_EQ(bwgemm::e2m1_encode(1e30f), 0x7);
  EXPECT_EQ(bwgemm::e2m1_encode(-1e30f), 0xF);
  EXPECT_EQ(bwgemm::e2m1_encode(std::numeric_limits<float>::infinity()), 0x7);
  EXPECT_EQ(bwgemm::e2m1_encode(-std::numeric_limits<float>::infinity()), 0xF);
  EXPECT_EQ(bwgemm::e2m1_encode(std::numeric_limits<float>::quiet_NaN()), 0x7);  // documented: NaN -> +6
  EXPECT_EQ(bwgemm::e2m1_encode(-std::numeric_limits<float>::quiet_NaN()), 0x7);
  EXPECT_EQ(bwgemm::e2m1_encode(-0.0f), 0x8);
  EXPECT_EQ(bwgemm::e2m1_encode(1e-40f), 0x0);
}

TEST(E2m1, EncodeAgreesWithCudaFp4) {
  std::vector<float> points = {0,
                               0.25f,
                               0.5f,
                               0.75f,
                               1,
                               1.25f,
                               1.5f,
                               1.75f,
                               2,
                               2.5f,
                               3,
                               3.5f,
                               4,
                               5,
                               6,
                               7,
                               8,
                               1e-40f,
                               std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> xs = around(points);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  for (int i = 0; i < 200000; ++i) xs.push_back(dist(rng));
  for (float x : xs) ASSERT_EQ(bwgemm::e2m1_encode(x), cuda_fp4_encode(x)) << "x = " << x;
}

// ----------------------------------------------------------------------------------------- e4m3
TEST(E4m3, All256CodesDecodeAsTheBitDefinitionSays) {
  for (uint32_t code = 0; code < 256; ++code) {
    const float got = bwgemm::e4m3_decode(static_cast<uint8_t>(code));
    if ((code & 0x7F) == 0x7F) {
      EXPECT_TRUE(std::isnan(got)) << "code " << code;  // S.1111.111 is NaN; no infinities
      EXPECT_TRUE(bwgemm::e4m3_is_nan(static_cast<uint8_t>(code)));
      continue;
    }
    EXPECT_EQ(got, static_cast<float>(value_from_fields(code, 4, 3, 7))) << "code " << code;
    EXPECT_EQ(got, bwgemm::e4m3_decode_constexpr(static_cast<uint8_t>(code))) << "code " << code;
  }
  EXPECT_EQ(bwgemm::e4m3_decode(0x7E), 448.0f);
  EXPECT_EQ(bwgemm::e4m3_decode(0x01), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(bwgemm::e4m3_decode(0x08), std::ldexp(1.0f, -6));  // smallest normal
}

TEST(E4m3, DecodeAgreesWithCudaFp8) {
  for (uint32_t code = 0; code < 256; ++code)
    EXPECT_TRUE(same_float(bwgemm::e4m3_decode(static_cast<uint8_t>(code)),
                           cuda_e4m3_decode(static_cast<uint8_t>(code))))
        << "code " << code;
}

TEST(E4m3, EveryFiniteCodeRoundTrips) {
  for (uint32_t code = 0; code < 256; ++code) {
    if (bwgemm::e4m3_is_nan(static_cast<uint8_t>(code))) continue;
    EXPECT_EQ(bwgemm::e4m3_encode(bwgemm::e4m3_decode(static_cast<uint8_t>(code))), code);
  }
}

TEST(E4m3, TiesBetweenNeighboursRoundToEvenCode) {
  for (uint32_t code = 0; code < 0x7E; ++code) {
    const float lo = bwgemm::e4m3_decode(static_cast<uint8_t>(code));
    const float hi = bwgemm::e4m3_decode(static_cast<uint8_t>(code + 1));
    const float mid = 0.5f * (lo + hi);  // exact in fp32
    const uint32_t even = (code % 2 == 0) ? code : code + 1;
    EXPECT_EQ(bwgemm::e4m3_encode(mid), even) << "between codes " << code << " and " << code + 1;
    EXPECT_EQ(bwgemm::e4m3_encode(std::nextafter(mid, 0.0f)), code);
    EXPECT_EQ(bwgemm::e4m3_encode(std::nextafter(mid, 1000.0f)), code + 1);
  }
}

TEST(E4m3, SaturatesToFiniteMaxAndEncodesNaN) {
  EXPECT_EQ(bwgemm::e4m3_encode(464.0f), 0x7E);  // midpoint of 448 and 480 (not a code): ties to 448
  EXPECT_EQ(bwgemm::e4m3_encode(500.0f), 0x7E);
  EXPECT_EQ(bwgemm::e4m3_encode(-1e9f), 0xFE);
  EXPECT_EQ(bwgemm::e4m3_encode(std::numeric_limits<float>::infinity()), 0x7E);
  EXPECT_EQ(bwgemm::e4m3_encode(-std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(bwgemm::e4m3_encode(std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(bwgemm::e4m3_encode(-std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(bwgemm::e4m3_encode(std::ldexp(1.0f, -10)), 0x00);  // tie 0 | 2^-9 -> 0
  EXPECT_EQ(bwgemm::e4m3_encode(std::nextafter(std::ldexp(1.0f, -10), 1.0f)), 0x01);
}

TEST(E4m3, EncodeAgreesWithCudaFp8) {
  std::vector<float> points;
  for (uint32_t code = 0; code < 0x7F; ++code) {
    const float v = bwgemm::e4m3_decode(static_cast<uint8_t>(code));
    points.push_back(v);
    if (code < 0x7E) points.push_back(0.5f * (v + bwgemm::e4m3_decode(static_cast<uint8_t>(code + 1))));
  }
  points.push_back(480.0f);
  points.push_back(std::numeric_limits<float>::infinity());
  points.push_back(std::numeric_limits<float>::quiet_NaN());
  std::vector<float> xs = around(points);
  std::mt19937 rng(2);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits = (rng() & 0x83FFFFFFu) | (static_cast<uint32_t>(100 + rng() % 40) << 23);
    xs.push_back(bits_to_f32(bits));  // exponents 2^-27 .. 2^12: across subnormals, normals, saturation
  }
  for (float x : xs) ASSERT_EQ(bwgemm::e4m3_encode(x), cuda_e4m3_encode(x)) << "x = " << x;
}

// ---------------------------------------------------------------------------------------- ue8m0
TEST(Ue8m0, All256CodesArePowersOfTwo) {
  for (uint32_t code = 0; code < 255; ++code)
    EXPECT_EQ(bwgemm::ue8m0_decode(static_cast<uint8_t>(code)),
              std::ldexp(1.0f, static_cast<int>(code) - 127))
        << "code " << code;
  EXPECT_TRUE(std::isnan(bwgemm::ue8m0_decode(0xFF)));
  for (uint32_t code = 0; code < 255; ++code)
    EXPECT_TRUE(
        same_float(bwgemm::ue8m0_decode(static_cast<uint8_t>(code)),
                   __bfloat162float(__nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(static_cast<uint8_t>(code))))));
}

TEST(Ue8m0, DirectedRoundingAgreesWithCuda) {
  std::vector<float> xs = around(
      {0, std::ldexp(1.0f, -127), std::ldexp(1.5f, -127), std::ldexp(1.0f, -126), 1.0f, 1.5f, 3.0f, 1e-30f,
       1e30f, 3.4e38f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()});
  std::mt19937 rng(3);
  for (int i = 0; i < 200000; ++i) xs.push_back(bits_to_f32(rng()));
  for (float x : xs) {
    ASSERT_EQ(bwgemm::ue8m0_encode(x, bwgemm::Ue8m0Rounding::kTowardZero),
              __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero))
        << "x = " << x;
    ASSERT_EQ(bwgemm::ue8m0_encode(x, bwgemm::Ue8m0Rounding::kTowardPosInf),
              __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf))
        << "x = " << x;
  }
}

TEST(Ue8m0, NearestEvenRoundsAtOnePointFive) {
  using R = bwgemm::Ue8m0Rounding;
  EXPECT_EQ(bwgemm::ue8m0_encode(1.0f, R::kNearestEven), 127);
  EXPECT_EQ(bwgemm::ue8m0_encode(1.49f, R::kNearestEven), 127);
  EXPECT_EQ(bwgemm::ue8m0_encode(1.51f, R::kNearestEven), 128);
  EXPECT_EQ(bwgemm::ue8m0_encode(1.5f, R::kNearestEven), 128);   // tie between codes 127 and 128 -> even 128
  EXPECT_EQ(bwgemm::ue8m0_encode(3.0f, R::kNearestEven), 128);   // tie between codes 128 and 129 -> even 128
  EXPECT_EQ(bwgemm::ue8m0_encode(-3.0f, R::kNearestEven), 128);  // unsigned: magnitude
  EXPECT_EQ(bwgemm::ue8m0_encode(std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(bwgemm::ue8m0_encode(std::numeric_limits<float>::quiet_NaN()), 0xFF);
  EXPECT_EQ(bwgemm::ue8m0_encode(0.0f), 0);
  for (uint8_t code = 0; code < 255; ++code)
    EXPECT_EQ(bwgemm::ue8m0_encode(bwgemm::ue8m0_decode(code)), code);
}

// ------------------------------------------------------------------------------------ fp16/bf16
TEST(Fp16, All65536CodesDecodeLikeCuda) {
  for (uint32_t h = 0; h < 65536; ++h) {
    __half_raw r;
    r.x = static_cast<uint16_t>(h);
    ASSERT_TRUE(same_float(bwgemm::f16_bits_to_f32(static_cast<uint16_t>(h)), __half2float(__half(r)))) << h;
  }
}

TEST(Fp16, EncodeAgreesWithCuda) {
  std::mt19937 rng(4);
  std::vector<float> xs = around({65504.0f, 65519.0f, 65520.0f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -25),
                                  std::ldexp(1.5f, -25), std::ldexp(1.0f, -14), 1.0f, 0.0f});
  for (int i = 0; i < 300000; ++i)
    xs.push_back(bits_to_f32((rng() & 0x87FFFFFFu) | ((96u + rng() % 48) << 23)));
  for (uint32_t h = 0; h < 65536; ++h) xs.push_back(bwgemm::f16_bits_to_f32(static_cast<uint16_t>(h)));
  for (float x : xs) {
    const uint16_t want = __half_raw(__float2half_rn(x)).x;
    if (std::isnan(x)) {
      EXPECT_EQ(bwgemm::f32_to_f16_bits(x) & 0x7E00, 0x7E00);
      continue;
    }
    ASSERT_EQ(bwgemm::f32_to_f16_bits(x), want) << "x = " << x;
  }
}

TEST(Bf16, DecodeAndEncodeAgreeWithCuda) {
  for (uint32_t h = 0; h < 65536; ++h) {
    __nv_bfloat16_raw r;
    r.x = static_cast<uint16_t>(h);
    ASSERT_TRUE(
        same_float(bwgemm::bf16_bits_to_f32(static_cast<uint16_t>(h)), __bfloat162float(__nv_bfloat16(r))));
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 300000; ++i) {
    const float x = bits_to_f32(rng());
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(bwgemm::bf16_bits_to_f32(bwgemm::f32_to_bf16_bits(x))));
      continue;
    }
    ASSERT_EQ(bwgemm::f32_to_bf16_bits(x), __nv_bfloat16_raw(__float2bfloat16_rn(x)).x) << "x = " << x;
  }
}

}  // namespace
