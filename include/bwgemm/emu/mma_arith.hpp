// bwgemm::emu::arith -- bit-exact arithmetic of ONE output element of a tcgen05.mma, as measured on B200.
//
// Plain C++17, no CUDA headers. The CPU emulator calls these once per D element per instruction. The two
// element functions are compiled in src/emu/mma_arith.cpp, part of the bwgemm::emu library (link it); the
// small helpers of their inner loops stay inline here, where the compiler inlines them into the loops.
//
// Source of every rule below: the project reference "tcgen05_arithmetic.md" (a summary of the public
// sf-tensor/tcgen05 arithmetic model, fitted to and validated against raw result words captured on B200),
// cited as [md]. Where [md] is silent, the rule follows that project's own model description
// (tcgen05_model/MODEL.md, commit 6f19f22), cited as [MODEL.md]; the code here is an independent
// implementation, checked bit for bit against the B200 result words in test/data/tcgen05_b200_vectors.json
// by test/emu/test_mma_arith.cpp.
//
// Terms used below:
//  * raw exponent: the encoded, unbiased exponent of a value; subnormals (and zero) use the minimum normal
//    exponent [md]. A finite code is decoded exactly as mant * 2^(raw - frac_bits), mant an integer.
//  * quantum 2^q: the weight of one unit of the fixed-point window every term is aligned to.
//  * truncate: discard magnitude bits below the quantum, i.e. round toward zero for both signs [md].
#pragma once

#include <cassert>
#include <cstdint>

namespace bwgemm::emu::arith {

enum class F16Format { kF16, kBF16 };

// K of one instruction: the PTX ISA's tcgen05.mma reads 32 bytes of A per row and instruction, i.e.
// 16 f16/bf16 elements (kind::f16) or 64 e2m1 elements (kind::mxf4nvf4).
inline constexpr int kF16InstrK = 16;
inline constexpr int kNvfp4InstrK = 64;
// NVFP4 (.block16 / scale_vec::4X): one ue4m3 scale per 16 K elements (PTX ISA; [md]).
inline constexpr int kNvfp4ScaleBlock = 16;

// The NaN word the tensor core writes for every generated NaN (not any IEEE NaN) [md "Specials"].
inline constexpr uint32_t kCanonicalNanF32 = 0x7FFFFFFFu;
inline constexpr uint32_t kPosInfF32 = 0x7F800000u;  // IEEE 754 binary32 +infinity
inline constexpr uint32_t kSignF32 = 0x80000000u;    // IEEE 754 binary32 sign bit

// A bf16 operand taken from a 32-bit container: tcgen05 uses the high 16 bits and clears the low 16 bits
// BEFORE classifying the value [md], so 0x7F800001 (an f32 NaN whose payload lies only in the low half)
// arrives as +infinity. Truncation, not rounding.
inline constexpr uint16_t bf16_from_f32_container(uint32_t word) {
  return static_cast<uint16_t>(word >> 16);
}

namespace detail {

// Window widths, all from [md]:
// kind::f16: quantum 2^(r_max - 25), r_max = largest raw exponent sum among nonzero products and C.
inline constexpr int kF16WindowFracBits = 25;
// kind::mxf4nvf4 NVFP4: quantum 2^max(P - 39, S - 35) on the product-dominant path ...
inline constexpr int kNvfp4ProductWindowFracBits = 39;
inline constexpr int kNvfp4ScaleFloorFracBits = 35;
// ... and 2^(raw_exp(C) - 35) on the C-dominant path.
inline constexpr int kNvfp4CWindowFracBits = 35;
// NVFP4 products are first summed exactly in aligned groups of 4 along K [md].
inline constexpr int kNvfp4ProductGroup = 4;

// IEEE 754 binary32 parameters.
inline constexpr int kF32FracBits = 23;
inline constexpr int kF32Bias = 127;
inline constexpr int kF32MaxExp = 127;
inline constexpr int kF32MinNormalExp = -126;
inline constexpr int kF32MinSubnormalExp = -149;  // weight of the subnormal LSB

enum class Class : uint8_t { kFinite, kInf, kNaN };

// A decoded floating operand: value = (neg ? -1 : 1) * mant * 2^(raw - frac_bits) when finite.
struct Operand {
  Class cls;
  bool neg;
  uint32_t mant;
  int raw;
};

// Generic IEEE-style decode (all-ones exponent = Inf/NaN), used for f16, bf16 and f32.
template <int kExpBits, int kFracBits>
inline Operand decode_ieee(uint32_t code) {
  constexpr uint32_t kExpMask = (1u << kExpBits) - 1u;
  constexpr uint32_t kFracMask = (1u << kFracBits) - 1u;
  constexpr int kBias = static_cast<int>(kExpMask >> 1);
  const bool neg = ((code >> (kExpBits + kFracBits)) & 1u) != 0;
  const uint32_t e = (code >> kFracBits) & kExpMask;
  const uint32_t f = code & kFracMask;
  if (e == kExpMask) return {f != 0 ? Class::kNaN : Class::kInf, neg, 0, 0};
  if (e == 0) return {Class::kFinite, neg, f, 1 - kBias};  // subnormal: minimum normal exponent [md]
  return {Class::kFinite, neg, f | (1u << kFracBits), static_cast<int>(e) - kBias};
}

inline int bit_length(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
  return x == 0 ? 0 : 64 - __builtin_clzll(x);
#else
  int n = 0;
  while (x != 0) {
    ++n;
    x >>= 1;
  }
  return n;
#endif
}

// Re-expresses the signed integer v (value v * 2^from) in units of 2^to, truncating toward zero. Callers
// guarantee (see the bounds at each call site) that a left shift cannot overflow int64.
inline int64_t to_units(int64_t v, int from, int to) {
  const bool neg = v < 0;
  uint64_t mag = neg ? (0u - static_cast<uint64_t>(v)) : static_cast<uint64_t>(v);
  const int shift = from - to;
  if (shift >= 0) {
    mag <<= shift;
  } else {
    mag = -shift >= 64 ? 0 : (mag >> -shift);  // truncation toward zero of the magnitude
  }
  return neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
}

// Normalises the exact sum units * 2^q to binary32 with truncation (round toward zero) [md].
//  * exact zero -> +0 [md], whatever the signs of the terms were;
//  * a magnitude of 2^128 or more -> infinity of the sign (B200 vectors bf16-0/bf16-1: finite bf16 inputs
//    whose sum overflows give 0x7F800000, not the largest finite value round-toward-zero would give);
//  * below 2^-126 the result is an f32 subnormal (vector bf16-minimum-subnormal), truncated to 2^-149;
//    if that truncation leaves nothing the result is +0 ([MODEL.md]; not covered by a B200 vector).
inline uint32_t to_f32_rz(int64_t units, int q) {
  if (units == 0) return 0;
  const uint32_t sign = units < 0 ? kSignF32 : 0u;
  const uint64_t mag = units < 0 ? (0u - static_cast<uint64_t>(units)) : static_cast<uint64_t>(units);
  const int nbits = bit_length(mag);
  const int exp = nbits - 1 + q;  // unbiased exponent of the leading bit
  if (exp > kF32MaxExp) return sign | kPosInfF32;
  if (exp >= kF32MinNormalExp) {
    const int shift = nbits - 1 - kF32FracBits;  // keep 24 significant bits
    const uint64_t m = shift >= 0 ? (mag >> shift) : (mag << -shift);
    return sign | (static_cast<uint32_t>(exp + kF32Bias) << kF32FracBits) |
           (static_cast<uint32_t>(m) & ((1u << kF32FracBits) - 1u));
  }
  // Subnormal result: units of 2^-149. exp < -126 bounds the left shift below 23 bits.
  const int shift = q - kF32MinSubnormalExp;
  const uint64_t m = shift >= 0 ? (mag << shift) : (-shift >= 64 ? 0 : (mag >> -shift));
  if (m == 0) return 0;
  return sign | static_cast<uint32_t>(m);
}

// Infinities seen among the terms; NaN when both signs occur [md "Specials"].
struct InfState {
  bool pos = false;
  bool neg = false;
  void add(bool negative) { (negative ? neg : pos) = true; }
  bool any() const { return pos || neg; }
  uint32_t word() const { return pos && neg ? kCanonicalNanF32 : (neg ? kSignF32 | kPosInfF32 : kPosInfF32); }
};

// e2m1 (low nibble): sign 1, exponent 2 (bias 1), fraction 1; every code is finite (no Inf/NaN).
// value = mant * 2^(raw - 1).
inline constexpr int kE2m1FracBits = 1;
inline constexpr int kE2m1Bias = 1;
struct E2m1 {
  bool neg;
  uint32_t mant;
  int raw;
};
constexpr E2m1 decode_e2m1(uint8_t code) {
  const uint32_t e = (code >> 1) & 0x3u;
  const uint32_t f = code & 0x1u;
  if (e == 0) return {(code & 0x8u) != 0, f, 1 - kE2m1Bias};
  return {(code & 0x8u) != 0, f | 0x2u, static_cast<int>(e) - kE2m1Bias};
}
// Per-code tables built from decode_e2m1: the signed value in units of 2^-1 (mant << raw) and the raw
// exponent, so the hot loop is a small-integer dot product.
struct E2m1Tables {
  int8_t half_units[16];
  int8_t raw[16];
};
constexpr E2m1Tables make_e2m1_tables() {
  E2m1Tables t{};
  for (int code = 0; code < 16; ++code) {
    const E2m1 d = decode_e2m1(static_cast<uint8_t>(code));
    const int mag = static_cast<int>(d.mant) << d.raw;  // mant * 2^(raw - 1) in units of 2^-1
    t.half_units[code] = static_cast<int8_t>(d.neg ? -mag : mag);
    t.raw[code] = static_cast<int8_t>(d.raw);
  }
  return t;
}
inline constexpr E2m1Tables kE2m1Tables = make_e2m1_tables();
static_assert(kE2m1Tables.half_units[0x7] == 12 && kE2m1Tables.half_units[0x9] == -1, "e2m1: 6.0, -0.5");

// ue4m3 scale: the positive e4m3 encoding, 7 bits (bit 7 ignored), exponent 4 (bias 7), fraction 3;
// 0x7F is NaN, there is no infinity [md]. value = mant * 2^(raw - 3).
inline constexpr int kUe4m3FracBits = 3;
inline constexpr int kUe4m3Bias = 7;
inline constexpr uint32_t kUe4m3NanCode = 0x7Fu;
struct Ue4m3 {
  bool nan;
  uint32_t mant;
  int raw;
};
constexpr Ue4m3 decode_ue4m3(uint8_t code) {
  const uint32_t c = code & 0x7Fu;
  if (c == kUe4m3NanCode) return {true, 0, 0};
  const uint32_t e = c >> 3;
  const uint32_t f = c & 0x7u;
  if (e == 0) return {false, f, 1 - kUe4m3Bias};
  return {false, f | 0x8u, static_cast<int>(e) - kUe4m3Bias};
}

// Exact NVFP4 products as integers in units of 2^kNvfp4BaseExp. A scaled product is
// (a in units of 2^-1) * (b in units of 2^-1) * mant_sa * mant_sb * 2^(raw_sa + raw_sb - 2 - 2*3), and
// raw_sa + raw_sb >= 2*(1 - 7) = -12, so with base 2^-20 = 2^(-2 - 6 - 12) every product is the integer
// (a_half * b_half) * F, F = mant_sa * mant_sb << (raw_sa + raw_sb + 12) < 2^8 * 2^28. A group of 4
// small-integer products (|a_half * b_half| <= 144) times F stays below 2^46.
inline constexpr int kNvfp4MinScalePairRaw = 2 * (1 - kUe4m3Bias);
inline constexpr int kNvfp4BaseExp = -2 * kE2m1FracBits - 2 * kUe4m3FracBits + kNvfp4MinScalePairRaw;

template <int kExpBits, int kFracBits>
inline uint32_t mma_ieee16_element(const uint16_t* a, const uint16_t* b, int k, uint32_t c, bool accumulate) {
  // Pass 1 (over the operands): specials, exact products and the window exponent.
  int64_t prod[kF16InstrK];
  int prod_raw[kF16InstrK];
  int n = 0;
  InfState inf;
  bool have_term = false;
  int r_max = 0;
  for (int i = 0; i < k; ++i) {
    const Operand x = decode_ieee<kExpBits, kFracBits>(a[i]);
    const Operand y = decode_ieee<kExpBits, kFracBits>(b[i]);
    if (x.cls != Class::kFinite || y.cls != Class::kFinite) {
      if (x.cls == Class::kNaN || y.cls == Class::kNaN) return kCanonicalNanF32;
      const bool x_zero = x.cls == Class::kFinite && x.mant == 0;
      const bool y_zero = y.cls == Class::kFinite && y.mant == 0;
      if (x_zero || y_zero) return kCanonicalNanF32;  // Inf * 0
      inf.add(x.neg != y.neg);
      continue;
    }
    if (x.mant == 0 || y.mant == 0) continue;
    const int64_t m = static_cast<int64_t>(x.mant) * y.mant;  // exact: < 2^22
    const int r = x.raw + y.raw;
    prod[n] = x.neg != y.neg ? -m : m;
    prod_raw[n] = r;
    ++n;
    r_max = have_term ? (r > r_max ? r : r_max) : r;
    have_term = true;
  }
  const Operand cc = accumulate ? decode_ieee<8, 23>(c) : Operand{Class::kFinite, false, 0, 0};
  if (cc.cls == Class::kNaN) return kCanonicalNanF32;
  if (cc.cls == Class::kInf) inf.add(cc.neg);
  if (inf.any()) return inf.word();
  if (cc.mant != 0) {
    r_max = have_term ? (cc.raw > r_max ? cc.raw : r_max) : cc.raw;
    have_term = true;
  }
  if (!have_term) return 0;  // only zero terms: +0 (vectors f16/bf16-negative-zero: -0 C gives +0)

  // Pass 2: the truncated terms in units of 2^q. A product's value exponent is r - 2*kFracBits
  // <= q + 25 - 2*kFracBits, so its units are < 2^22 * 2^5 (f16) or 2^16 * 2^11 (bf16); C's are
  // < 2^24 * 2^2. 17 such terms fit int64 with room to spare.
  const int q = r_max - kF16WindowFracBits;
  int64_t units = 0;
  for (int j = 0; j < n; ++j) units += to_units(prod[j], prod_raw[j] - 2 * kFracBits, q);
  if (cc.mant != 0) {
    const int64_t m = cc.neg ? -static_cast<int64_t>(cc.mant) : static_cast<int64_t>(cc.mant);
    units += to_units(m, cc.raw - kF32FracBits, q);
  }
  return to_f32_rz(units, q);
}

}  // namespace detail

// One output element of tcgen05.mma kind::f16 with f32 D:  D = sum_{i<k} a[i]*b[i] (+ c).
//   a, b: raw 16-bit operand codes (f16, or bf16 = high half of the f32 container: see
//         bf16_from_f32_container). c and the result: raw binary32 words.
//   accumulate == false: C is absent (the instruction's enable-input-D off); c is ignored, even a NaN.
//   k: the instruction's K, kF16InstrK. A smaller k is the same as zero-padding to K (zero products take
//      no part in the window), so 1 <= k <= kF16InstrK is accepted; any other k is a contract violation
//      (assert; kCanonicalNanF32 when asserts are off).
// Rules [md, kind::f16]:
//  1. Specials first: any NaN operand or NaN C, infinity times zero (zero = +-0, not a subnormal), or
//     infinite terms of both signs give kCanonicalNanF32; otherwise an infinite term gives that infinity.
//  2. Every finite product is exact (mant_a*mant_b < 2^22). r = raw_a + raw_b; r_max = max r over nonzero
//     products and raw(C) for nonzero C. q = r_max - 25.
//  3. Each product and C is truncated toward zero to a multiple of 2^q; the integers are summed exactly.
//     (A term below the quantum is lost and cannot reappear through later cancellation.)
//  4. The sum is normalised to f32 with truncation; exact zero -> +0 (see detail::to_f32_rz).
uint32_t mma_f16_element(F16Format fmt, const uint16_t* a, const uint16_t* b, int k, uint32_t c,
                         bool accumulate);

// One output element of tcgen05.mma kind::mxf4nvf4 .block16 (NVFP4) with f32 D:
//   D = sum_{i<k} a[i]*b[i]*sa[i/16]*sb[i/16] (+ c).
//   a, b: e2m1 codes, one per byte in the low nibble (the high nibble is ignored).
//   sa, sb: ue4m3 scale codes, one per 16 K elements: ceil(k/16) of each.
//   c and the result: raw binary32 words; accumulate == false: C is absent, c ignored.
//   k: the instruction's K, kNvfp4InstrK. A smaller k is the same as zero-padding to K with non-NaN scales
//      (zero products take no part in P, S or the sums), so 1 <= k <= kNvfp4InstrK is accepted; any other
//      k is a contract violation (assert; kCanonicalNanF32 when asserts are off).
// Rules [md, kind::mxf4nvf4]:
//  1. Specials: a NaN scale (0x7F) anywhere in the instruction or a NaN C gives kCanonicalNanF32 (vector
//     nvfp4-scale-nan); an infinite C gives that infinity (e2m1 and ue4m3 have no infinities).
//  2. Scaled products are exact. For each nonzero product, raw = raw_a + raw_b + raw_sa + raw_sb; P = max raw
//     over nonzero products; S = max (raw_sa + raw_sb) over the same nonzero products [MODEL.md].
//  3. No nonzero product: D = C unchanged (c word returned as is, -0 included) [MODEL.md]; +0 without C.
//  4. C-dominant path: C nonzero and raw(C) >= P. Each 16-element block is summed exactly and truncated to
//     2^(raw(C) - 35); C (exact in that window) is added.
//  5. Product-dominant path otherwise: q = max(P - 39, S - 35), P over products and C [md] (a nonzero C
//     only gets here with raw(C) < P). Products are summed exactly in aligned groups of 4 along K, each
//     group sum is truncated to 2^q, C is truncated to 2^q, and all are summed exactly (vector
//     nvfp4-k4-product-carry needs the group-of-4 step). Note: e2m1 raw exponents are <= 2, so P <= S + 4
//     and the P - 39 term never exceeds S - 35 here: in this format pair the scale floor sets the window.
//  6. Normalised to f32 with truncation; exact zero -> +0 (see detail::to_f32_rz).
uint32_t mma_nvfp4_element(const uint8_t* a, const uint8_t* b, const uint8_t* sa, const uint8_t* sb, int k,
                           uint32_t c, bool accumulate);

}  // namespace bwgemm::emu::arith
