// Tests of bwgemm/emu/mma_arith.hpp: the bit-exact arithmetic of one tcgen05.mma output element.
//
//  * Tcgen05B200Vectors/*: every result word captured on B200 (test/data/tcgen05_b200_vectors.json, a
//    verbatim copy of the project reference) must be reproduced bit for bit, one test per vector.
//  * ExactRegime*: small-integer inputs (and power-of-two NVFP4 scales) make every path of the model exact,
//    so the result must equal a naive fp32 dot product.
//  * Truncation*: hand-built cases where round-to-nearest (or an exact sum) and the hardware's truncation
//    give different words.
//  * Specials*: the NaN / infinity rules of tcgen05_arithmetic.md.
#include "bwgemm/emu/mma_arith.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#ifndef BWGEMM_TEST_DATA_DIR
#error "BWGEMM_TEST_DATA_DIR must name the directory holding tcgen05_b200_vectors.json"
#endif

namespace {

namespace arith = bwgemm::emu::arith;
using arith::F16Format;

// Number of vectors in test/data/tcgen05_b200_vectors.json (the shared reference file lists 19).
constexpr size_t kExpectedVectorCount = 19;

std::string hex32(uint32_t w) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", w);
  return buf;
}

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// ------------------------------------------------------------------------------------------------
// A minimal JSON reader: enough for the vector file (objects, arrays, strings, non-negative integers,
// and, for completeness, other numbers, true/false/null).
struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  bool is_uint = false;  // number is a non-negative integer that fits uint64
  uint64_t uint = 0;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;

  const Json* find(const std::string& key) const {
    for (const auto& kv : object) {
      if (kv.first == key) return &kv.second;
    }
    return nullptr;
  }
  const Json& at(const std::string& key) const {
    const Json* v = find(key);
    if (v == nullptr) throw std::runtime_error("missing key \"" + key + "\"");
    return *v;
  }
  uint64_t as_uint() const {
    if (type != Type::kNumber || !is_uint) throw std::runtime_error("expected a non-negative integer");
    return uint;
  }
  const std::string& as_string() const {
    if (type != Type::kString) throw std::runtime_error("expected a string");
    return string;
  }
  std::vector<uint64_t> as_uint_array() const {
    if (type != Type::kArray) throw std::runtime_error("expected an array");
    std::vector<uint64_t> out;
    for (const Json& v : array) out.push_back(v.as_uint());
    return out;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  Json parse() {
    Json v = value();
    skip_ws();
    if (pos_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(pos_));
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) {
      ++pos_;
    }
  }
  char peek() {
    skip_ws();
    if (pos_ >= s_.size()) fail("unexpected end");
    return s_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool literal(const char* word) {
    const size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  Json value() {
    const char c = peek();
    Json v;
    if (c == '{') {
      v.type = Json::Type::kObject;
      ++pos_;
      if (peek() == '}') {
        ++pos_;
        return v;
      }
      while (true) {
        std::string key = string_body();
        expect(':');
        v.object.emplace_back(std::move(key), value());
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.type = Json::Type::kArray;
      ++pos_;
      if (peek() == ']') {
        ++pos_;
        return v;
      }
      while (true) {
        v.array.push_back(value());
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.type = Json::Type::kString;
      v.string = string_body();
      return v;
    }
    if (literal("true")) {
      v.type = Json::Type::kBool;
      v.boolean = true;
      return v;
    }
    if (literal("false")) {
      v.type = Json::Type::kBool;
      return v;
    }
    if (literal("null")) return v;
    return number();
  }

  std::string string_body() {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          if (pos_ + 4 > s_.size()) fail("short \\u escape");
          const unsigned long cp = std::stoul(s_.substr(pos_, 4), nullptr, 16);
          pos_ += 4;
          out.push_back(cp < 0x80 ? static_cast<char>(cp) : '?');  // names and notes are ASCII
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }

  Json number() {
    Json v;
    v.type = Json::Type::kNumber;
    const size_t start = pos_;
    bool integral = true;
    if (s_[pos_] == '-') {
      integral = false;
      ++pos_;
    }
    while (pos_ < s_.size() && std::strchr("0123456789.eE+-", s_[pos_]) != nullptr) {
      if (!std::isdigit(static_cast<unsigned char>(s_[pos_]))) integral = false;
      ++pos_;
    }
    const std::string text = s_.substr(start, pos_ - start);
    if (text.empty() || text == "-") fail("bad value");
    v.number = std::stod(text);
    if (integral && text.size() <= 19) {
      v.is_uint = true;
      v.uint = std::stoull(text);
    }
    return v;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

// ------------------------------------------------------------------------------------------------
// The B200 vectors.
struct Vector {
  std::string name;
  std::string kind;       // "f16" or "mxf4nvf4"
  std::string ab_format;  // "f16", "bf16" or "e2m1"
  int k = 0;
  std::vector<uint64_t> a, b, scale_a, scale_b;
  std::string scale_format;
  int scale_block = 0;
  uint32_t c = 0;
  uint32_t d = 0;
};

struct VectorFile {
  std::vector<Vector> vectors;
  std::string error;  // non-empty when the file could not be read or parsed
};

const VectorFile& vector_file() {
  static const VectorFile file = [] {
    VectorFile f;
    const std::string path = std::string(BWGEMM_TEST_DATA_DIR) + "/tcgen05_b200_vectors.json";
    try {
      std::ifstream in(path, std::ios::binary);
      if (!in) throw std::runtime_error("cannot open " + path);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      const Json root = JsonParser(text).parse();
      for (const Json& jv : root.at("vectors").array) {
        Vector v;
        v.name = jv.at("name").as_string();
        v.kind = jv.at("kind").as_string();
        v.ab_format = jv.at("ab_format").as_string();
        v.k = static_cast<int>(jv.at("k").as_uint());
        v.a = jv.at("a").as_uint_array();
        v.b = jv.at("b").as_uint_array();
        v.c = static_cast<uint32_t>(jv.at("c").as_uint());
        v.d = static_cast<uint32_t>(jv.at("d").as_uint());
        if (const Json* s = jv.find("scale_a")) v.scale_a = s->as_uint_array();
        if (const Json* s = jv.find("scale_b")) v.scale_b = s->as_uint_array();
        if (const Json* s = jv.find("scale_format")) v.scale_format = s->as_string();
        if (const Json* s = jv.find("scale_block")) v.scale_block = static_cast<int>(s->as_uint());
        f.vectors.push_back(std::move(v));
      }
    } catch (const std::exception& e) {
      f.error = std::string(path) + ": " + e.what();
      f.vectors.clear();
    }
    return f;
  }();
  return file;
}

std::vector<std::string> vector_names() {
  std::vector<std::string> names;
  for (const Vector& v : vector_file().vectors) names.push_back(v.name);
  return names;
}

TEST(Tcgen05B200VectorFile, LoadsEveryVector) {
  ASSERT_EQ(vector_file().error, "");
  EXPECT_EQ(vector_file().vectors.size(), kExpectedVectorCount);
}

class Tcgen05B200Vectors : public ::testing::TestWithParam<std::string> {};

TEST_P(Tcgen05B200Vectors, MatchesHardwareWord) {
  const Vector* found = nullptr;
  for (const Vector& v : vector_file().vectors) {
    if (v.name == GetParam()) found = &v;
  }
  ASSERT_NE(found, nullptr);
  const Vector& v = *found;
  ASSERT_EQ(v.a.size(), static_cast<size_t>(v.k));
  ASSERT_EQ(v.b.size(), static_cast<size_t>(v.k));

  uint32_t got = 0;
  if (v.kind == "f16") {
    ASSERT_EQ(v.k, arith::kF16InstrK);
    ASSERT_TRUE(v.ab_format == "f16" || v.ab_format == "bf16") << v.ab_format;
    const bool bf16 = v.ab_format == "bf16";
    std::vector<uint16_t> a(v.k), b(v.k);
    for (int i = 0; i < v.k; ++i) {
      const auto aw = static_cast<uint32_t>(v.a[i]);
      const auto bw = static_cast<uint32_t>(v.b[i]);
      // bf16: the high half of the f32 container (low half cleared before use); f16: the low half.
      a[i] = bf16 ? arith::bf16_from_f32_container(aw) : static_cast<uint16_t>(aw & 0xFFFFu);
      b[i] = bf16 ? arith::bf16_from_f32_container(bw) : static_cast<uint16_t>(bw & 0xFFFFu);
    }
    got = arith::mma_f16_element(bf16 ? F16Format::kBF16 : F16Format::kF16, a.data(), b.data(), v.k, v.c,
                                 /*accumulate=*/true);
  } else if (v.kind == "mxf4nvf4") {
    ASSERT_EQ(v.k, arith::kNvfp4InstrK);
    ASSERT_EQ(v.ab_format, "e2m1");
    ASSERT_EQ(v.scale_format, "ue4m3");
    ASSERT_EQ(v.scale_block, arith::kNvfp4ScaleBlock);
    const size_t blocks = static_cast<size_t>(v.k / arith::kNvfp4ScaleBlock);
    ASSERT_EQ(v.scale_a.size(), blocks);
    ASSERT_EQ(v.scale_b.size(), blocks);
    std::vector<uint8_t> a(v.k), b(v.k), sa(blocks), sb(blocks);
    for (int i = 0; i < v.k; ++i) {
      ASSERT_LT(v.a[i], 16u);
      ASSERT_LT(v.b[i], 16u);
      a[i] = static_cast<uint8_t>(v.a[i]);
      b[i] = static_cast<uint8_t>(v.b[i]);
    }
    for (size_t j = 0; j < blocks; ++j) {
      ASSERT_LT(v.scale_a[j], 256u);
      ASSERT_LT(v.scale_b[j], 256u);
      sa[j] = static_cast<uint8_t>(v.scale_a[j]);
      sb[j] = static_cast<uint8_t>(v.scale_b[j]);
    }
    got = arith::mma_nvfp4_element(a.data(), b.data(), sa.data(), sb.data(), v.k, v.c, /*accumulate=*/true);
  } else {
    FAIL() << "unknown kind " << v.kind;
  }
  EXPECT_EQ(hex32(got), hex32(v.d)) << "vector " << v.name;
}

std::string sanitize(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(B200, Tcgen05B200Vectors, ::testing::ValuesIn(vector_names()), sanitize);

// ------------------------------------------------------------------------------------------------
// Independent encoders for the exact-regime tests (small values only; they check exactness).

// f16 / bf16 code of a small integer (|v| <= 2048), via its exactly representable f32 bits.
uint16_t half_code(F16Format fmt, int v) {
  const uint32_t bits = f32_bits(static_cast<float>(v));
  if (fmt == F16Format::kBF16) {
    EXPECT_EQ(bits & 0xFFFFu, 0u) << v << " is not exact in bf16";
    return static_cast<uint16_t>(bits >> 16);
  }
  if (v == 0) return 0;
  const uint32_t sign = (bits >> 31) << 15;
  const int exp = static_cast<int>((bits >> 23) & 0xFFu) - 127;  // IEEE binary32 bias
  const uint32_t frac = bits & 0x7FFFFFu;
  EXPECT_EQ(frac & 0x1FFFu, 0u) << v << " is not exact in f16";
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp + 15) << 10) | (frac >> 13));
}

// e2m1 magnitudes by 3-bit code (OCP MX spec): 0, 0.5, 1, 1.5, 2, 3, 4, 6; bit 3 is the sign.
constexpr double kE2m1Magnitude[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
double e2m1_value(uint8_t code) {
  return (code & 8u ? -1.0 : 1.0) * kE2m1Magnitude[code & 7u];
}

// ue4m3 power-of-two scale code 2^e (bias 7, zero fraction).
uint8_t ue4m3_pow2_code(int e) {
  return static_cast<uint8_t>((e + 7) << 3);
}

void exact_regime_f16(F16Format fmt, uint32_t seed) {
  std::mt19937 rng(seed);
  // |a|, |b| <= 16 and |c| <= 256: products <= 256, every term an integer, the sum below 2^13. The window
  // quantum 2^(r_max - 25) <= 2^(8 - 25) and fp32 both hold every partial sum exactly.
  std::uniform_int_distribution<int> ab(-16, 16), cdist(-256, 256), coin(0, 3);
  constexpr int kTrials = 4000;
  for (int t = 0; t < kTrials; ++t) {
    uint16_t a[arith::kF16InstrK], b[arith::kF16InstrK];
    float af[arith::kF16InstrK], bf[arith::kF16InstrK];
    for (int i = 0; i < arith::kF16InstrK; ++i) {
      const int x = coin(rng) == 0 ? 0 : ab(rng);
      const int y = ab(rng);
      a[i] = half_code(fmt, x);
      b[i] = half_code(fmt, y);
      af[i] = static_cast<float>(x);
      bf[i] = static_cast<float>(y);
    }
    const bool accumulate = coin(rng) != 0;
    const float c = static_cast<float>(cdist(rng));
    // Naive fp32 reference and a double cross-check that it is exact.
    float acc = accumulate ? c : 0.0f;
    double exact = accumulate ? c : 0.0;
    for (int i = 0; i < arith::kF16InstrK; ++i) {
      acc += af[i] * bf[i];
      exact += static_cast<double>(af[i]) * bf[i];
    }
    ASSERT_EQ(static_cast<double>(acc), exact) << "test premise: fp32 sum must be exact";
    const uint32_t got = arith::mma_f16_element(fmt, a, b, arith::kF16InstrK, f32_bits(c), accumulate);
    ASSERT_EQ(hex32(got), hex32(f32_bits(acc))) << "trial " << t << " accumulate " << accumulate;
  }
}

TEST(MmaArithExactRegime, F16SmallIntegersEqualFp32Dot) {
  exact_regime_f16(F16Format::kF16, 1234u);
}
TEST(MmaArithExactRegime, Bf16SmallIntegersEqualFp32Dot) {
  exact_regime_f16(F16Format::kBF16, 5678u);
}

TEST(MmaArithExactRegime, Nvfp4SmallValuesPow2ScalesEqualFp32Dot) {
  std::mt19937 rng(4321u);
  // Scales 2^-1..2^1: every scaled product is a multiple of 2^-4 and at most 6*6*2*2 = 144; with |c| up to
  // 2^14 the sum stays below 2^15, i.e. within 19 significant bits. Both NVFP4 windows (>= 35 fraction bits
  // under the top exponent) and fp32 are exact. Large c values take the C-dominant path.
  std::uniform_int_distribution<int> code(0, 15), sexp(-1, 1), coin(0, 3), csmall(-64, 64),
      cbig(-16384, 16384);
  constexpr int kTrials = 4000;
  constexpr int kBlocks = arith::kNvfp4InstrK / arith::kNvfp4ScaleBlock;
  for (int t = 0; t < kTrials; ++t) {
    uint8_t a[arith::kNvfp4InstrK], b[arith::kNvfp4InstrK], sa[kBlocks], sb[kBlocks];
    double sav[kBlocks], sbv[kBlocks];
    for (int j = 0; j < kBlocks; ++j) {
      const int ea = sexp(rng), eb = sexp(rng);
      sa[j] = ue4m3_pow2_code(ea);
      sb[j] = ue4m3_pow2_code(eb);
      sav[j] = std::ldexp(1.0, ea);
      sbv[j] = std::ldexp(1.0, eb);
    }
    for (int i = 0; i < arith::kNvfp4InstrK; ++i) {
      a[i] = static_cast<uint8_t>(code(rng));
      b[i] = static_cast<uint8_t>(code(rng));
    }
    const bool accumulate = coin(rng) != 0;
    const int c_int = coin(rng) == 0 ? cbig(rng) : csmall(rng);
    const float c = static_cast<float>(c_int);
    float acc = accumulate ? c : 0.0f;
    double exact = accumulate ? c : 0.0;
    for (int i = 0; i < arith::kNvfp4InstrK; ++i) {
      const int j = i / arith::kNvfp4ScaleBlock;
      const double p = e2m1_value(a[i]) * e2m1_value(b[i]) * sav[j] * sbv[j];
      acc += static_cast<float>(p);
      exact += p;
    }
    ASSERT_EQ(static_cast<double>(acc), exact) << "test premise: fp32 sum must be exact";
    const uint32_t got = arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, f32_bits(c), accumulate);
    ASSERT_EQ(hex32(got), hex32(f32_bits(acc))) << "trial " << t << " accumulate " << accumulate;
  }
}

// ------------------------------------------------------------------------------------------------
// Truncation direction. Each case is derived by hand from the rules in mma_arith.hpp.

// f16 codes used below (IEEE binary16: sign | exponent+15 << 10 | fraction).
constexpr uint16_t kF16One = 0x3C00;                // 1.0
constexpr uint16_t kF16NegOne = 0xBC00;             // -1.0
constexpr uint16_t kF16Pow2m12 = 0x0C00;            // 2^-12 (exponent field 3)
constexpr uint16_t kF16OneHalfPow2m12 = 0x0E00;     // 1.5 * 2^-12
constexpr uint16_t kF16NegOneHalfPow2m12 = 0x8E00;  // -1.5 * 2^-12
constexpr uint16_t kF16Pow2m13 = 0x0800;            // 2^-13 (exponent field 2)
constexpr uint16_t kF16NegPow2m13 = 0x8800;         // -2^-13

TEST(MmaArithTruncation, F16FinalNormalisationRoundsTowardZero) {
  // D = 1*1 + (1.5*2^-12)*(2^-12) = 1 + 3*2^-25.
  // r_max = 0 + 0 = 0, q = -25: the products are 2^25 and 3 units exactly, sum 2^25 + 3 (26 bits).
  // f32 keeps 24 bits: the low 2 bits (3 = 0.75 ulp of 1.0) are dropped -> 1.0 = 0x3F800000.
  // IEEE round-to-nearest would give 1 + 2^-23 = 0x3F800001.
  uint16_t a[arith::kF16InstrK] = {kF16One, kF16OneHalfPow2m12};
  uint16_t b[arith::kF16InstrK] = {kF16One, kF16Pow2m12};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, 0, false)),
            hex32(0x3F800000u));
  EXPECT_EQ(hex32(f32_bits(1.0f + static_cast<float>(std::ldexp(3.0, -25)))), hex32(0x3F800001u))
      << "round-to-nearest reference differs, as the case intends";
  // Negative: -1 - 3*2^-25 truncates toward zero to -1.0 = 0xBF800000 (round-to-nearest: 0xBF800001).
  a[0] = kF16NegOne;
  a[1] = kF16NegOneHalfPow2m12;
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, 0, false)),
            hex32(0xBF800000u));
}

TEST(MmaArithTruncation, Bf16FinalNormalisationRoundsTowardZero) {
  // Same case in bf16: 1.0 = 0x3F80, 2^-12 = 0x3980 (exponent 115), 1.5*2^-12 = 0x39C0. Result 0x3F800000.
  const uint16_t a[arith::kF16InstrK] = {0x3F80, 0x39C0};
  const uint16_t b[arith::kF16InstrK] = {0x3F80, 0x3980};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kBF16, a, b, arith::kF16InstrK, 0, false)),
            hex32(0x3F800000u));
}

TEST(MmaArithTruncation, F16TermBelowWindowQuantumIsLost) {
  // D = 1*1 + (-2^-13)*(2^-13) = 1 - 2^-26. r_max = 0, q = -25: the second product is -0.5 units and is
  // truncated toward zero to 0 BEFORE the sum, so D = 1.0 = 0x3F800000. Summing exactly and then
  // truncating would give 0x3F7FFFFF (0.99999994).
  uint16_t a[arith::kF16InstrK] = {kF16One, kF16NegPow2m13};
  uint16_t b[arith::kF16InstrK] = {kF16One, kF16Pow2m13};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, 0, false)),
            hex32(0x3F800000u));
  // The same with the 1.0 supplied as C: raw(C) = 0 sets r_max; same result.
  uint16_t a2[arith::kF16InstrK] = {kF16NegPow2m13};
  uint16_t b2[arith::kF16InstrK] = {kF16Pow2m13};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a2, b2, arith::kF16InstrK, 0x3F800000u, true)),
            hex32(0x3F800000u));
}

TEST(MmaArithTruncation, F16TermAtWindowQuantumIsKept) {
  // D = 1*1 + (-2^-13)*(2^-12) = 1 - 2^-25: exactly one unit of q = 0 - 25, so it survives alignment.
  // Sum 2^25 - 1 units: leading bit 2^24 (value in [0.5, 1)), 24 bits kept -> 1 - 2^-24 = 0x3F7FFFFF.
  // Together with F16TermBelowWindowQuantumIsLost this pins the quantum at exactly 2^(r_max - 25).
  const uint16_t a[arith::kF16InstrK] = {kF16One, kF16NegPow2m13};
  const uint16_t b[arith::kF16InstrK] = {kF16One, kF16Pow2m12};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, 0, false)),
            hex32(0x3F7FFFFFu));
}

// NVFP4 operand codes used below: e2m1 0x1 = 0.5, 0x3 = 1.5, 0x7 = 6.0, 0x9 = -0.5; ue4m3 0x38 = 1.0
// (exponent 7, raw 0), 0x01 = 2^-9 (subnormal: raw -6, fraction 1 -> 1 * 2^(-6-3)).
// e2m1 0x2 = 1.0; ue4m3 0x78 = 2^8 (exponent field 15, fraction 0; 0x7F would be NaN).
constexpr uint8_t kE2m1Half = 0x1, kE2m1One = 0x2, kE2m1OneHalf = 0x3, kE2m1Six = 0x7, kE2m1NegHalf = 0x9;
constexpr uint8_t kUe4m3One = 0x38, kUe4m3Min = 0x01, kUe4m3Pow2p8 = 0x78;

TEST(MmaArithTruncation, Nvfp4ProductPathRoundsTowardZero) {
  // Block 0: 6*6*1*1 = 36 (raw 2+2+0+0 = 4). Block 1: 1.5*0.5*2^-9*2^-9 = 3*2^-20 (raw 0+0-6-6 = -12).
  // P = 4, S = max scale-pair raw over nonzero products = 0, q = max(4-39, 0-35) = -35: both terms exact.
  // Sum 36 + 3*2^-20; the f32 ulp of 36 is 2^-18, so 3*2^-20 = 0.75 ulp is truncated -> 36.0 = 0x42100000.
  // Round-to-nearest would give 0x42100001.
  uint8_t a[arith::kNvfp4InstrK] = {}, b[arith::kNvfp4InstrK] = {};
  uint8_t sa[4] = {kUe4m3One, kUe4m3Min, kUe4m3One, kUe4m3One};
  uint8_t sb[4] = {kUe4m3One, kUe4m3Min, kUe4m3One, kUe4m3One};
  a[0] = kE2m1Six;
  b[0] = kE2m1Six;
  a[16] = kE2m1OneHalf;
  b[16] = kE2m1Half;
  EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, 0, false)), hex32(0x42100000u));
  EXPECT_EQ(hex32(f32_bits(36.0f + static_cast<float>(std::ldexp(3.0, -20)))), hex32(0x42100001u))
      << "round-to-nearest reference differs, as the case intends";
}

TEST(MmaArithTruncation, Nvfp4CDominantBlockWindow) {
  // C = 65536 (raw 16). One product -0.5*0.5*2^-9*2^-9 = -2^-20 (raw -12 <= 16): C-dominant path,
  // q = 16 - 35 = -19. The block sum -2^-20 is -0.5 units, truncated to 0 -> D = 65536 = 0x47800000.
  // An exact sum then truncation gives 65536 - 2^-8 = 0x477FFFFF, and so would the product-dominant window
  // (q = max(16-39, -12-35) = -23 keeps -8 units).
  uint8_t a[arith::kNvfp4InstrK] = {}, b[arith::kNvfp4InstrK] = {};
  uint8_t sa[4] = {kUe4m3Min, kUe4m3One, kUe4m3One, kUe4m3One};
  uint8_t sb[4] = {kUe4m3Min, kUe4m3One, kUe4m3One, kUe4m3One};
  a[0] = kE2m1NegHalf;
  b[0] = kE2m1Half;
  EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, 0x47800000u, true)),
            hex32(0x47800000u));
}

// Window edges of the NVFP4 paths. Products of -2^-19 (= -0.5 * 1.0 * 2^-9 * 2^-9) or -2^-20
// (= -0.5 * 0.5 * 2^-9 * 2^-9) at chosen K positions are set against a big term; each case states the
// expected word. The small products sit in blocks with the minimum scales (scale-pair raw -6-6 = -12).
struct Nvfp4EdgeCase {
  const char* what;
  int pos[2];       // K positions of the small products (-1: unused)
  uint8_t b_code;   // kE2m1One (product -2^-19) or kE2m1Half (product -2^-20)
  uint32_t expect;  // result word
};

TEST(MmaArithTruncation, Nvfp4ProductPathWindowAndGroupsOfFour) {
  // Block 0: 6 * 6 * 2^8 * 2^8 = 36 * 2^16 = 2359296 = 0x4A100000 (raw 2+2+8+8 = 20), f32 ulp 2^-2.
  // Blocks 1..3: scales 2^-9 (raw -6). No C: product path with P = 20, S = 8+8 = 16,
  // q = max(20 - 39, 16 - 35) = -19. 36*2^16 minus anything in (0, 2^-2) truncates to 0x4A0FFFFF.
  const Nvfp4EdgeCase cases[] = {
      {"-2^-19 is one quantum: kept", {16, -1}, kE2m1One, 0x4A0FFFFFu},
      {"-2^-20 is half a quantum: lost", {16, -1}, kE2m1Half, 0x4A100000u},
      {"two -2^-20 in one aligned group of 4 sum exactly to one quantum: kept",
       {16, 17},
       kE2m1Half,
       0x4A0FFFFFu},
      {"two -2^-20 in different groups of one block: each group truncated, lost",
       {16, 20},
       kE2m1Half,
       0x4A100000u},
  };
  for (const Nvfp4EdgeCase& tc : cases) {
    uint8_t a[arith::kNvfp4InstrK] = {}, b[arith::kNvfp4InstrK] = {};
    uint8_t sa[4] = {kUe4m3Pow2p8, kUe4m3Min, kUe4m3Min, kUe4m3Min};
    uint8_t sb[4] = {kUe4m3Pow2p8, kUe4m3Min, kUe4m3Min, kUe4m3Min};
    a[0] = kE2m1Six;
    b[0] = kE2m1Six;
    for (int p : tc.pos) {
      if (p < 0) continue;
      a[p] = kE2m1NegHalf;
      b[p] = tc.b_code;
    }
    EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, 0, false)), hex32(tc.expect))
        << tc.what;
  }
}

TEST(MmaArithTruncation, Nvfp4CDominantWindowAndBlocksOfSixteen) {
  // C = 65536 = 2^16 (raw 16) >= every product raw (-12): C-dominant path, q = 16 - 35 = -19, blocks of 16.
  // 65536 minus anything in (0, 2^-8) truncates to 0x477FFFFF.
  const Nvfp4EdgeCase cases[] = {
      {"-2^-19 is one quantum: kept", {0, -1}, kE2m1One, 0x477FFFFFu},
      {"-2^-20 is half a quantum: lost", {0, -1}, kE2m1Half, 0x47800000u},
      {"two -2^-20 in different groups of one block: block sum is one quantum, kept",
       {0, 8},
       kE2m1Half,
       0x477FFFFFu},
      {"two -2^-20 in different blocks: each block truncated, lost", {0, 16}, kE2m1Half, 0x47800000u},
  };
  for (const Nvfp4EdgeCase& tc : cases) {
    uint8_t a[arith::kNvfp4InstrK] = {}, b[arith::kNvfp4InstrK] = {};
    uint8_t sa[4] = {kUe4m3Min, kUe4m3Min, kUe4m3Min, kUe4m3Min};
    uint8_t sb[4] = {kUe4m3Min, kUe4m3Min, kUe4m3Min, kUe4m3Min};
    for (int p : tc.pos) {
      if (p < 0) continue;
      a[p] = kE2m1NegHalf;
      b[p] = tc.b_code;
    }
    EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, 0x47800000u, true)),
              hex32(tc.expect))
        << tc.what;
  }
}

TEST(MmaArithTruncation, Nvfp4ScaleFloorSetsTheWindow) {
  // Block 0: 1 * 1 * 2^8 * 2^8 = 2^16 (raw 0+0+8+8 = 16 = S), so P - 39 = -23 < S - 35 = -19: the scale
  // floor alone sets q = -19. Block 1: -2^-20 (half a quantum) is lost -> exactly 2^16 = 0x47800000;
  // -2^-19 (one quantum) is kept -> 2^16 - 2^-19 truncates to 2^16 - 2^-8 = 0x477FFFFF.
  for (const bool one_quantum : {false, true}) {
    uint8_t a[arith::kNvfp4InstrK] = {}, b[arith::kNvfp4InstrK] = {};
    uint8_t sa[4] = {kUe4m3Pow2p8, kUe4m3Min, kUe4m3One, kUe4m3One};
    uint8_t sb[4] = {kUe4m3Pow2p8, kUe4m3Min, kUe4m3One, kUe4m3One};
    a[0] = kE2m1One;
    b[0] = kE2m1One;
    a[16] = kE2m1NegHalf;
    b[16] = one_quantum ? kE2m1One : kE2m1Half;
    EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, 0, false)),
              hex32(one_quantum ? 0x477FFFFFu : 0x47800000u))
        << "one_quantum " << one_quantum;
  }
}

TEST(MmaArithTruncation, Nvfp4ScaleFloorCountsOnlyBlocksWithNonzeroProducts) {
  // [MODEL.md] rule: S ranges over nonzero products. Block 0: 6*6*1*1 = 36 (raw 4, scale pair 0);
  // block 1: -2^-20 (scale pair -12); block 2: scales 2^8 but all-zero elements, so it does not raise S.
  // q = max(4 - 39, 0 - 35) = -35 keeps -2^-20: 36 - 2^-20 truncates to 36 - 2^-18 = 0x420FFFFF.
  // (Were block 2's scales counted, q = 16 - 35 = -19 would lose the term and give 0x42100000.)
  uint8_t a[arith::kNvfp4InstrK] = {}, b[arith::kNvfp4InstrK] = {};
  uint8_t sa[4] = {kUe4m3One, kUe4m3Min, kUe4m3Pow2p8, kUe4m3One};
  uint8_t sb[4] = {kUe4m3One, kUe4m3Min, kUe4m3Pow2p8, kUe4m3One};
  a[0] = kE2m1Six;
  b[0] = kE2m1Six;
  a[16] = kE2m1NegHalf;
  b[16] = kE2m1Half;
  EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, 0, false)), hex32(0x420FFFFFu));
}

// ------------------------------------------------------------------------------------------------
// Special values [tcgen05_arithmetic.md "Specials"] and other rules.

constexpr uint16_t kF16PosInf = 0x7C00, kF16NegInf = 0xFC00, kF16MinSubnormal = 0x0001;
constexpr uint32_t kF32PosInf = 0x7F800000u, kF32NegInf = 0xFF800000u, kF32QuietNan = 0x7FC00000u;

TEST(MmaArithSpecials, F16InfinityRules) {
  uint16_t a[arith::kF16InstrK] = {kF16PosInf, kF16NegInf};
  uint16_t b[arith::kF16InstrK] = {kF16One, kF16One};
  // Opposite infinities -> canonical NaN.
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, 2, 0, false)), hex32(0x7FFFFFFFu));
  // +inf * -1 -> -inf; plus a finite C stays -inf; plus +inf C -> NaN.
  a[1] = kF16One;
  b[0] = kF16NegOne;
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, 2, 0x3F800000u, true)), hex32(kF32NegInf));
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, 2, kF32PosInf, true)), hex32(0x7FFFFFFFu));
  // Infinity times a nonzero subnormal is infinity, not NaN.
  b[0] = kF16MinSubnormal;
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, 2, 0, false)), hex32(kF32PosInf));
}

TEST(MmaArithSpecials, AccumulateOffIgnoresC) {
  const uint16_t a[arith::kF16InstrK] = {kF16One};
  const uint16_t b[arith::kF16InstrK] = {kF16One};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, kF32QuietNan, false)),
            hex32(0x3F800000u));
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, kF32QuietNan, true)),
            hex32(0x7FFFFFFFu));
}

TEST(MmaArithSpecials, ExactCancellationGivesPositiveZero) {
  const uint16_t a[arith::kF16InstrK] = {kF16NegOne, kF16One};
  const uint16_t b[arith::kF16InstrK] = {kF16One, kF16One};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, 0x80000000u, true)),
            hex32(0u));
}

TEST(MmaArithSpecials, Bf16SumOverflowGivesInfinity) {
  // bf16 0x7F7F is the largest finite bf16 (~3.39e38); times -2 (0xC000) exceeds the f32 range.
  const uint16_t a[arith::kF16InstrK] = {0x7F7F};
  const uint16_t b[arith::kF16InstrK] = {0xC000};
  EXPECT_EQ(hex32(arith::mma_f16_element(F16Format::kBF16, a, b, arith::kF16InstrK, 0, false)),
            hex32(kF32NegInf));
}

TEST(MmaArithSpecials, Bf16ContainerIsTruncatedNotRounded) {
  EXPECT_EQ(arith::bf16_from_f32_container(0x7F800001u), 0x7F80);  // NaN payload only in low half -> +inf
  EXPECT_EQ(arith::bf16_from_f32_container(0x3F80FFFFu), 0x3F80);  // no rounding
}

TEST(MmaArithSpecials, Nvfp4SpecialC) {
  uint8_t a[arith::kNvfp4InstrK] = {}, b[arith::kNvfp4InstrK] = {};
  uint8_t sa[4] = {kUe4m3One, kUe4m3One, kUe4m3One, kUe4m3One};
  uint8_t sb[4] = {kUe4m3One, kUe4m3One, kUe4m3One, kUe4m3One};
  a[5] = kE2m1Six;
  b[5] = kE2m1Six;
  EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, kF32NegInf, true)),
            hex32(kF32NegInf));
  EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, kF32QuietNan, true)),
            hex32(0x7FFFFFFFu));
  sb[2] = 0x7F;  // a NaN scale poisons the result
  EXPECT_EQ(hex32(arith::mma_nvfp4_element(a, b, sa, sb, arith::kNvfp4InstrK, 0, false)), hex32(0x7FFFFFFFu));
}

TEST(MmaArithShape, ShorterKEqualsZeroPadding) {
  std::mt19937 rng(99u);
  std::uniform_int_distribution<int> bits16(0, 0xFFFF), bits4(0, 15), scale(0, 0x7E);
  for (int t = 0; t < 200; ++t) {
    uint16_t a[arith::kF16InstrK] = {}, b[arith::kF16InstrK] = {};
    for (int i = 0; i < 9; ++i) {
      a[i] = static_cast<uint16_t>(bits16(rng));
      b[i] = static_cast<uint16_t>(bits16(rng));
    }
    EXPECT_EQ(arith::mma_f16_element(F16Format::kF16, a, b, 9, 0x3F800000u, true),
              arith::mma_f16_element(F16Format::kF16, a, b, arith::kF16InstrK, 0x3F800000u, true));
    uint8_t x[arith::kNvfp4InstrK] = {}, y[arith::kNvfp4InstrK] = {};
    uint8_t sa[4], sb[4];
    for (int j = 0; j < 4; ++j) {
      sa[j] = static_cast<uint8_t>(scale(rng));
      sb[j] = static_cast<uint8_t>(scale(rng));
    }
    for (int i = 0; i < 37; ++i) {
      x[i] = static_cast<uint8_t>(bits4(rng));
      y[i] = static_cast<uint8_t>(bits4(rng));
    }
    EXPECT_EQ(arith::mma_nvfp4_element(x, y, sa, sb, 37, 0x3F800000u, true),
              arith::mma_nvfp4_element(x, y, sa, sb, arith::kNvfp4InstrK, 0x3F800000u, true));
  }
}

}  // namespace
