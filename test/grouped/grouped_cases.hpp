// What the grouped suites share: the test's own view of the tokens' layouts (the documented rules of
// docs/moe.md, written out here, not taken from base/grouped.hpp), random operands, NVFP4 tensors of the
// tokens placed by hand, stacked NVFP4 weights, and byte comparisons.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"

namespace grouped_test {

namespace ref = bwgemm::ref;
namespace grouped = bwgemm::grouped;

// ---- The test's own view of the layouts (from docs/moe.md, not from base/grouped.hpp) ---------------------

// The metadata of one case and the rows each expert owns under the documented rule.
struct Tokens {
  bool masked = false;
  int64_t experts = 0, total = 0, max_tokens = 0;
  std::vector<int32_t> meta;         // offsets or counts
  std::vector<int64_t> begin, rows;  // per expert: first row (contiguous) and rows owned
  std::vector<int64_t> scale_row;    // per expert: first scale row
  uint32_t status = 0;               // the bits the metadata should set
};

// counts: the rows each expert gets; `bad`: break the metadata (contiguous: a decreasing offset and the
// last past the total; masked: a negative count and one above max_tokens).
inline Tokens make_tokens(bool masked, const std::vector<int64_t>& counts, bool bad) {
  Tokens t;
  t.masked = masked;
  t.experts = static_cast<int64_t>(counts.size());
  int64_t sum = 0;
  for (int64_t c : counts) sum += c;
  if (!masked) {
    t.total = sum + 3;  // three rows no expert owns
    int64_t end = 0;
    for (int64_t c : counts) t.meta.push_back(static_cast<int32_t>(end += c));
    if (bad) {
      if (t.experts >= 3) t.meta[1] = t.meta[0] - 2;  // expert 1 ends below expert 0's end
      t.meta.back() = static_cast<int32_t>(t.total + 5);
    }
    int64_t high = 0, scale_row = 0;
    for (int64_t e = 0; e < t.experts; ++e) {
      const int64_t o = t.meta[static_cast<size_t>(e)];
      if (o < high) t.status |= grouped::kStatusOffsetDecreasing;
      if (o > t.total) t.status |= grouped::kStatusOffsetPastTotal;
      const int64_t b = std::min(high, t.total);
      high = std::max(high, o);
      const int64_t end_e = std::min(high, t.total);
      t.begin.push_back(b);
      t.rows.push_back(end_e - b);
      t.scale_row.push_back(scale_row);
      scale_row += (end_e - b + 127) / 128 * 128;
    }
  } else {
    t.max_tokens = *std::max_element(counts.begin(), counts.end()) + 2;
    for (int64_t c : counts) t.meta.push_back(static_cast<int32_t>(c));
    if (bad) {  // above max_tokens first, so that rows past its slab would land in the next one
      t.meta[0] = static_cast<int32_t>(t.max_tokens + 3);
      if (t.experts >= 2) t.meta.back() = -1;
    }
    for (int64_t e = 0; e < t.experts; ++e) {
      const int64_t c = t.meta[static_cast<size_t>(e)];
      if (c < 0) t.status |= grouped::kStatusCountNegative;
      if (c > t.max_tokens) t.status |= grouped::kStatusCountAboveMax;
      t.begin.push_back(0);
      t.rows.push_back(std::clamp<int64_t>(c, 0, t.max_tokens));
      t.scale_row.push_back(e * ((t.max_tokens + 127) / 128 * 128));
    }
  }
  EXPECT_EQ(t.status != 0, bad) << "a case with bad metadata sets a bit, and only such a case";
  return t;
}

template <class Args>
void set_tokens(const Tokens& t, Args* a) {
  a->tokens = t.masked ? bwgemm::masked_tokens(t.max_tokens, t.meta.data())
                       : bwgemm::contiguous_tokens(t.total, t.meta.data());
  a->experts = t.experts;
}

// The rows of the tokens' buffers (contiguous: total; masked: E slabs of max_tokens).
inline int64_t token_rows(const Tokens& t) {
  return t.masked ? t.experts * t.max_tokens : t.total;
}
// The first row of expert e in a packed buffer of the tokens.
inline int64_t first_row(const Tokens& t, int64_t e) {
  return t.masked ? e * t.max_tokens : t.begin[static_cast<size_t>(e)];
}

// The experts' counts of one case: ragged, with empty experts first, in the middle and last, and one expert
// past a 128-row scale atom.
inline std::vector<int64_t> ragged_counts(int64_t experts, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> c(static_cast<size_t>(experts));
  for (auto& x : c) x = rng() % 10;
  if (experts >= 3) c[0] = 0, c[static_cast<size_t>(experts / 2)] = 0, c.back() = 0;
  c[static_cast<size_t>(experts > 1 ? 1 : 0)] = 131;
  return c;
}

inline std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

template <class T>
std::vector<T> random_16bit(size_t n, uint32_t seed) {
  const std::vector<float> f = random_floats(n, seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = ref::from_float<T>(f[i]);
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The index of the first differing element, for the message.
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return "first difference at element " + std::to_string(i);
  return "sizes " + std::to_string(got.size()) + " and " + std::to_string(want.size());
}

inline std::string describe(const Tokens& t, bool bad) {
  return std::string(t.masked ? "masked" : "contiguous") + " E = " + std::to_string(t.experts) +
         (bad ? " (bad metadata)" : "");
}

inline constexpr float kPoison = -777.0f;
// Elements (bytes, for NVFP4) of poison past the end of every output: a write past the buffers the
// arguments describe shows there.
inline constexpr int64_t kGuard = 4096;

// ---- NVFP4 operands ------------------------------------------------------------------------------------

inline constexpr uint8_t kPoisonByte =
    0x7F;  // an e4m3 NaN scale: any byte of it read would show in the results

// One expert's standalone NVFP4 operand (a dense one of its rows) from fp32 rows x k.
struct Standalone {
  std::vector<uint8_t> data, scales;
  int64_t rows = 0, k = 0;
  ref::Nvfp4Matrix matrix() const { return {data.data(), scales.data(), rows, k}; }
};
inline Standalone quantize(const float* x, int64_t rows, int64_t k, float global_scale = 1.0f) {
  Standalone s;
  s.rows = rows, s.k = k;
  s.data.resize(static_cast<size_t>(rows * k / 2));
  s.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16)));
  const bwgemm::Status st =
      bwgemm::quantize_nvfp4_host(x, rows, k, 1, k, global_scale, s.data.data(), s.scales.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return s;
}

// An NVFP4 tensor of the tokens in the documented placement, each expert's rows quantized standalone and
// placed (data at its rows, scales from byte scale_row / 128 · ceil(K / 64) · 512); everything else poison.
struct TokenTensor {
  std::vector<uint8_t> data, scales;
  std::vector<Standalone> experts;
};
inline TokenTensor token_tensor(const Tokens& t, const std::vector<float>& x, int64_t k) {
  TokenTensor tt;
  const int64_t scale_rows = t.masked ? t.experts * ((t.max_tokens + 127) / 128 * 128)
                                      : (t.total + 127 * t.experts + 127) / 128 * 128;
  tt.data.assign(static_cast<size_t>(token_rows(t) * k / 2), kPoisonByte);
  tt.scales.assign(static_cast<size_t>(bwgemm::blocked_scale_bytes(scale_rows, k / 16)), kPoisonByte);
  for (int64_t e = 0; e < t.experts; ++e) {
    const int64_t rows = t.rows[static_cast<size_t>(e)], r0 = first_row(t, e);
    if (rows == 0) {
      tt.experts.emplace_back();
      continue;
    }
    tt.experts.push_back(quantize(&x[static_cast<size_t>(r0 * k)], rows, k));
    const Standalone& s = tt.experts.back();
    std::copy(s.data.begin(), s.data.end(), tt.data.begin() + r0 * k / 2);
    const int64_t at = t.scale_row[static_cast<size_t>(e)] / 128 * ((k / 16 + 3) / 4) * 512;
    std::copy(s.scales.begin(), s.scales.end(), tt.scales.begin() + at);
  }
  return tt;
}

// Stacked weights [E, rows, k] quantized as one tensor with batch E, and each expert's standalone.
struct Weights {
  std::vector<float> x;
  std::vector<uint8_t> data, scales;
};
inline Weights weights(int64_t experts, int64_t rows, int64_t k, uint32_t seed) {
  Weights w;
  w.x = random_floats(static_cast<size_t>(experts * rows * k), seed);
  w.data.resize(static_cast<size_t>(experts * rows * k / 2));
  w.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16, experts)));
  const bwgemm::Status st =
      bwgemm::quantize_nvfp4_host(w.x.data(), rows, k, experts, k, 1.0f, w.data.data(), w.scales.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return w;
}

}  // namespace grouped_test
