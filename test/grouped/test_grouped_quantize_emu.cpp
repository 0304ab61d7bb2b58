// bwgemm::quantize_nvfp4_grouped in the CPU emulator: each expert's rows quantized as the host quantizer
// quantizes them alone (quantize_nvfp4_host, bit for bit), its scales where the grouped operations read them
// (base/grouped.hpp), every byte no expert owns untouched (guard bands around the buffers included), the
// status bits of bad offsets and counts, per-expert global scales read on the device, the same call again
// after the device counts changed, and the argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/quantize.cuh"

namespace {

using bwgemm::GroupedLayout;
using bwgemm::GroupedTokens;
namespace grouped = bwgemm::grouped;

constexpr uint8_t kSentinel = 0xEE;
constexpr int64_t kGuard = 256;  // bytes before and after each output

// An output buffer with guard bands: data() is kGuard bytes in.
struct Guarded {
  std::vector<uint8_t> bytes;
  explicit Guarded(int64_t n) : bytes(static_cast<size_t>(n + 2 * kGuard), kSentinel) {}
  uint8_t* data() { return bytes.data() + kGuard; }
  int64_t size() const { return static_cast<int64_t>(bytes.size()) - 2 * kGuard; }
  uint8_t at(int64_t i) const { return bytes[static_cast<size_t>(i + kGuard)]; }
  bool guards_intact() const {
    for (int64_t i = 0; i < kGuard; ++i)
      if (bytes[static_cast<size_t>(i)] != kSentinel ||
          bytes[bytes.size() - 1 - static_cast<size_t>(i)] != kSentinel)
        return false;
    return true;
  }
};

template <class T>
T from_float(float v);
template <>
float from_float<float>(float v) {
  return v;
}
template <>
__half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

struct Case {
  GroupedLayout layout;
  std::vector<int32_t> values;  // offsets or counts
  int64_t rows;                 // total_tokens or max_tokens
  int64_t k, ld;
  bool per_expert_scales;
};

// Runs the grouped quantizer on `c` and checks every byte of packed and scales against a per-expert loop of
// the host quantizer; returns the status word.
template <class T>
uint32_t check_case(const Case& c, uint32_t seed) {
  const int64_t experts = static_cast<int64_t>(c.values.size());
  const bool masked = c.layout == GroupedLayout::kMasked;
  const int64_t x_rows = masked ? experts * c.rows : c.rows, sf_cols = c.k / bwgemm::kNvfp4BlockSize;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-6.0f, 6.0f);
  std::vector<T> x(static_cast<size_t>(x_rows * c.ld));
  for (auto& v : x) v = from_float<T>(u(rng));
  std::vector<float> scales_per_expert(static_cast<size_t>(experts));
  for (auto& g : scales_per_expert)
    g = c.per_expert_scales ? std::ldexp(1.0f, static_cast<int>(rng() % 9) - 4) : 1.0f;
  const float global_scale = 0.75f;
  const int64_t scale_rows =
      masked ? experts * bwgemm::round_up(c.rows, 128) : grouped::grouped_scale_rows(c.rows, experts);
  Guarded packed(x_rows * c.k / 2), scales(bwgemm::blocked_scale_bytes(scale_rows, sf_cols));
  uint32_t status = 0;
  const GroupedTokens tokens = masked ? bwgemm::masked_tokens(c.rows, c.values.data())
                                      : bwgemm::contiguous_tokens(c.rows, c.values.data());
  const bwgemm::Status s = bwgemm::quantize_nvfp4_grouped(
      x.data(), tokens, experts, c.k, c.ld, global_scale,
      c.per_expert_scales ? scales_per_expert.data() : nullptr, packed.data(), scales.data(), &status);
  EXPECT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(packed.guards_intact());
  EXPECT_TRUE(scales.guards_intact());

  std::vector<bool> packed_owned(static_cast<size_t>(packed.size())),
      scales_owned(static_cast<size_t>(scales.size()));
  uint32_t want_status = 0;
  for (int64_t e = 0; e < experts; ++e) {
    const grouped::ExpertRows r = grouped::expert_rows(tokens, e);
    want_status |= r.status;
    if (r.rows() == 0) continue;
    const int64_t first_row = masked ? e * c.rows : r.begin;
    std::vector<uint8_t> ref_packed(static_cast<size_t>(r.rows() * c.k / 2)),
        ref_scales(static_cast<size_t>(bwgemm::blocked_scale_bytes(r.rows(), sf_cols)));
    const bwgemm::Status hs = bwgemm::quantize_nvfp4_host(
        x.data() + first_row * c.ld, r.rows(), c.k, 1, c.ld,
        global_scale * scales_per_expert[static_cast<size_t>(e)], ref_packed.data(), ref_scales.data());
    EXPECT_TRUE(hs.ok()) << hs.to_string();
    int64_t wrong = 0;
    for (size_t i = 0; i < ref_packed.size(); ++i) {
      const int64_t at = first_row * c.k / 2 + static_cast<int64_t>(i);
      wrong += packed.at(at) != ref_packed[i];
      packed_owned[static_cast<size_t>(at)] = true;
    }
    const int64_t base = grouped::scale_byte_offset(r.scale_row, sf_cols);
    for (size_t i = 0; i < ref_scales.size(); ++i) {
      wrong += scales.at(base + static_cast<int64_t>(i)) != ref_scales[i];
      scales_owned[static_cast<size_t>(base) + i] = true;
    }
    EXPECT_EQ(wrong, 0) << "expert " << e << " (" << r.rows() << " rows)";
  }
  int64_t touched = 0;
  for (int64_t i = 0; i < packed.size(); ++i)
    touched += !packed_owned[static_cast<size_t>(i)] && packed.at(i) != kSentinel;
  for (int64_t i = 0; i < scales.size(); ++i)
    touched += !scales_owned[static_cast<size_t>(i)] && scales.at(i) != kSentinel;
  EXPECT_EQ(touched, 0) << "bytes no expert owns were written";
  EXPECT_EQ(status, want_status);
  return status;
}

TEST(GroupedQuantize, ContiguousZeroTokenExpertsFirstMiddleLast) {
  // 7 experts: 0 and 3 and 6 empty, ragged counts up to 300 rows, K = 48 (a padding scale column).
  const Case c{GroupedLayout::kContiguous, {0, 130, 131, 131, 431, 440, 440}, 500, 48, 48, false};
  EXPECT_EQ(check_case<__nv_bfloat16>(c, 1), 0u);
}

TEST(GroupedQuantize, ContiguousRandomExpertsAndTypes) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 6; ++iter) {
    const int64_t experts = 1 + rng() % 16, total = 1 + rng() % 400;
    std::vector<int32_t> offs(static_cast<size_t>(experts));
    for (auto& o : offs) o = static_cast<int32_t>(rng() % (total + 1));
    std::sort(offs.begin(), offs.end());
    const Case c{GroupedLayout::kContiguous, offs, total, 64, 80, iter % 2 == 0};
    SCOPED_TRACE("iteration " + std::to_string(iter));
    if (iter % 3 == 0) EXPECT_EQ(check_case<float>(c, 10 + iter), 0u);
    if (iter % 3 == 1) EXPECT_EQ(check_case<__half>(c, 10 + iter), 0u);
    if (iter % 3 == 2) EXPECT_EQ(check_case<__nv_bfloat16>(c, 10 + iter), 0u);
  }
}

TEST(GroupedQuantize, MaskedCountsAndPerExpertScales) {
  const Case c{GroupedLayout::kMasked, {0, 1, 130, 0, 200}, 200, 64, 64, true};
  EXPECT_EQ(check_case<__nv_bfloat16>(c, 3), 0u);
}

TEST(GroupedQuantize, BadOffsetsAndCountsStayInsideAndSetTheBits) {
  const Case offs{GroupedLayout::kContiguous, {50, 20, 90, 1000}, 120, 32, 32, false};
  EXPECT_EQ(check_case<__half>(offs, 4), grouped::kStatusOffsetDecreasing | grouped::kStatusOffsetPastTotal);
  const Case counts{GroupedLayout::kMasked, {-3, 70, 500}, 64, 32, 32, false};
  EXPECT_EQ(check_case<__half>(counts, 5), grouped::kStatusCountNegative | grouped::kStatusCountAboveMax);
}

// What a CUDA graph replay does: the same host arguments, new device counts.
TEST(GroupedQuantize, SameCallAfterTheCountsChanged) {
  std::vector<int32_t> offs = {10, 10, 40};
  const int64_t total = 40, k = 32, sf_cols = 2;
  std::vector<float> x(static_cast<size_t>(total * k), 1.0f);
  std::vector<uint8_t> packed(static_cast<size_t>(total * k / 2)),
      scales(
          static_cast<size_t>(bwgemm::blocked_scale_bytes(grouped::grouped_scale_rows(total, 3), sf_cols)));
  const auto run = [&] {
    std::fill(scales.begin(), scales.end(), kSentinel);
    const bwgemm::Status s =
        bwgemm::quantize_nvfp4_grouped(x.data(), bwgemm::contiguous_tokens(total, offs.data()), 3, k, k, 1.0f,
                                       nullptr, packed.data(), scales.data(), nullptr);
    ASSERT_TRUE(s.ok()) << s.to_string();
  };
  run();
  EXPECT_NE(scales[static_cast<size_t>(grouped::scale_byte_offset(128, sf_cols))],
            kSentinel);  // expert 2 at 128
  offs = {0, 40, 40};    // now expert 1 owns every row and expert 2 none
  run();
  EXPECT_NE(scales[0], kSentinel);
  EXPECT_EQ(scales[static_cast<size_t>(grouped::scale_byte_offset(128, sf_cols))], kSentinel);
}

TEST(GroupedQuantize, ArgumentChecksNameTheArgument) {
  std::vector<float> x(64 * 32);
  std::vector<int32_t> offs = {32, 64};
  std::vector<uint8_t> packed(64 * 16), scales(static_cast<size_t>(bwgemm::blocked_scale_bytes(512, 2)));
  std::vector<uint32_t> status(2);
  const GroupedTokens t = bwgemm::contiguous_tokens(64, offs.data());
  const auto message = [&](const GroupedTokens& tokens, int64_t experts, int64_t k, uint8_t* p, uint8_t* s,
                           uint32_t* st) {
    return bwgemm::quantize_nvfp4_grouped(x.data(), tokens, experts, k, k, 1.0f, nullptr, p, s, st).message();
  };
  EXPECT_NE(message(t, 2, 32, nullptr, scales.data(), nullptr).find("packed is null"), std::string::npos);
  EXPECT_NE(message(t, 0, 32, packed.data(), scales.data(), nullptr).find("experts must be in [1, 65535]"),
            std::string::npos);
  EXPECT_NE(
      message(t, 2, 40, packed.data(), scales.data(), nullptr).find("K must be a positive multiple of 16"),
      std::string::npos);
  EXPECT_NE(message(bwgemm::contiguous_tokens(64, nullptr), 2, 32, packed.data(), scales.data(), nullptr)
                .find("offsets is null"),
            std::string::npos);
  const std::string misaligned =
      message(t, 2, 32, packed.data(), scales.data(),
              reinterpret_cast<uint32_t*>(reinterpret_cast<char*>(status.data()) + 1));
  EXPECT_NE(misaligned.find("status must be 4-byte aligned"), std::string::npos) << misaligned;
  const std::string overlap = message(t, 2, 32, packed.data(), packed.data() + 8, nullptr);
  EXPECT_NE(overlap.find("overlaps"), std::string::npos) << overlap;
  EXPECT_EQ(message(t, 2, 32, nullptr, scales.data(), nullptr).rfind("bwgemm::quantize_nvfp4_grouped: ", 0),
            0u);
  EXPECT_EQ(message(t, 2, 32, packed.data(), scales.data(), status.data()), "");  // a valid call
}

}  // namespace
