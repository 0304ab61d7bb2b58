// The 128x4 blocked scale layout: formula, bijection on the padded domain, agreement with the
// GPU MODE / cuBLASLt `to_blocked` recipe (re-expressed here as tensor reshapes), and the whole-matrix
// swizzle/unswizzle with padding.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "bwgemm/formats/scale_layout.cuh"

namespace {

using bwgemm::blocked_scale_bytes;
using bwgemm::blocked_scale_offset;

// A row-major tensor with a shape, and the two operations the recipe uses.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

// view/reshape: same data, new shape (one dimension may be -1).
Tensor reshape(Tensor t, std::vector<int64_t> shape) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i)
    (shape[i] == -1) ? infer = static_cast<int64_t>(i) : known *= shape[i];
  if (infer >= 0) shape[static_cast<size_t>(infer)] = t.size() / known;
  int64_t total = 1;
  for (int64_t s : shape) total *= s;
  EXPECT_EQ(total, t.size());
  t.shape = shape;
  return t;
}

// permute: out[i_perm[0], ..., i_perm[n-1]] = in[i_0, ..., i_{n-1}], materialized contiguously.
Tensor permute(const Tensor& t, const std::vector<int>& perm) {
  const size_t n = t.shape.size();
  std::vector<int64_t> in_strides(n, 1);
  for (size_t d = n - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * t.shape[d];
  Tensor out;
  for (int p : perm) out.shape.push_back(t.shape[static_cast<size_t>(p)]);
  out.data.resize(t.data.size());
  std::vector<int64_t> idx(n, 0);  // index into `out`
  for (int64_t flat = 0; flat < out.size(); ++flat) {
    int64_t src = 0;
    for (size_t d = 0; d < n; ++d) src += idx[d] * in_strides[static_cast<size_t>(perm[d])];
    out.data[static_cast<size_t>(flat)] = t.data[static_cast<size_t>(src)];
    for (size_t d = n; d-- > 0;) {
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor transpose(const Tensor& t, int a, int b) {
  std::vector<int> perm(t.shape.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
  return permute(t, perm);
}

TEST(ScaleLayout, FormulaOnHandPickedEntries) {
  // rows = 256, sf_cols = 8 (K = 128): 2 row blocks x 2 column blocks of 512-byte atoms.
  EXPECT_EQ(blocked_scale_offset(0, 0, 0, 256, 8), 0);
  EXPECT_EQ(blocked_scale_offset(0, 3, 0, 256, 8), 3);
  EXPECT_EQ(blocked_scale_offset(32, 0, 0, 256, 8), 4);  // second 32-row group: next 4 bytes
  EXPECT_EQ(blocked_scale_offset(1, 0, 0, 256, 8), 16);  // next row in a group: next 16-byte line
  EXPECT_EQ(blocked_scale_offset(127, 3, 0, 256, 8), 31 * 16 + 3 * 4 + 3);
  EXPECT_EQ(blocked_scale_offset(0, 4, 0, 256, 8), 512);     // next atom along K
  EXPECT_EQ(blocked_scale_offset(128, 0, 0, 256, 8), 1024);  // next row block after both K atoms
  EXPECT_EQ(blocked_scale_offset(0, 0, 1, 256, 8), 2048);    // next batch
  static_assert(blocked_scale_offset(200, 5, 0, 200, 6) == (1 * 2 + 1) * 512 + 8 * 16 + 2 * 4 + 1,
                "constexpr");
  EXPECT_EQ(blocked_scale_bytes(256, 8, 1), 2048);
  EXPECT_EQ(blocked_scale_bytes(1, 1, 1), 512);  // everything pads to one atom
  EXPECT_EQ(blocked_scale_bytes(129, 5, 3), 3 * 2 * 2 * 512);
}

class ScaleLayoutShapes : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t>> {};

TEST_P(ScaleLayoutShapes, IsABijectionOnThePaddedDomain) {
  const auto [rows, sf_cols, batch] = GetParam();
  const int64_t padded_rows = bwgemm::round_up(rows, 128), padded_cols = bwgemm::round_up(sf_cols, 4);
  const int64_t bytes = blocked_scale_bytes(rows, sf_cols, batch);
  ASSERT_EQ(bytes, batch * padded_rows * padded_cols);
  std::vector<int> hits(static_cast<size_t>(bytes), 0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < padded_rows; ++r)
      for (int64_t j = 0; j < padded_cols; ++j) {
        const int64_t off = blocked_scale_offset(r, j, b, rows, sf_cols);
        ASSERT_GE(off, 0);
        ASSERT_LT(off, bytes);
        ++hits[static_cast<size_t>(off)];
      }
  for (int h : hits) ASSERT_EQ(h, 1);
}

TEST_P(ScaleLayoutShapes, AgreesWithTheToBlockedRecipe) {
  const auto [rows, sf_cols, batch] = GetParam();
  const int64_t nrb = bwgemm::ceil_div(rows, 128), ncb = bwgemm::ceil_div(sf_cols, 4);
  for (int64_t b = 0; b < batch; ++b) {
    // Padded plain matrix whose entries name their own (row, col): id = row * (ncb*4) + col.
    Tensor plain{{nrb * 128, ncb * 4}, {}};
    plain.data.resize(static_cast<size_t>(nrb * 128 * ncb * 4));
    std::iota(plain.data.begin(), plain.data.end(), 0);
    // blocks = view(nrb,128,ncb,4).permute(0,2,1,3); rearranged = blocks.reshape(-1,4,32,4).transpose(1,2)
    //          .reshape(-1,32,16); result = rearranged.flatten()
    Tensor t = reshape(plain, {nrb, 128, ncb, 4});
    t = permute(t, {0, 2, 1, 3});
    t = reshape(t, {-1, 4, 32, 4});
    t = transpose(t, 1, 2);
    t = reshape(t, {-1, 32, 16});
    ASSERT_EQ(t.size(), nrb * ncb * 512);
    for (int64_t pos = 0; pos < t.size(); ++pos) {
      const int64_t id = t.data[static_cast<size_t>(pos)];
      const int64_t r = id / (ncb * 4), j = id % (ncb * 4);
      ASSERT_EQ(blocked_scale_offset(r, j, b, rows, sf_cols), b * nrb * ncb * 512 + pos)
          << "r " << r << " j " << j;
    }
  }
}

TEST_P(ScaleLayoutShapes, SwizzleAndUnswizzleRoundTripWithZeroPadding) {
  const auto [rows, sf_cols, batch] = GetParam();
  std::mt19937 rng(static_cast<uint32_t>(rows * 131 + sf_cols * 7 + batch));
  std::vector<uint8_t> plain(static_cast<size_t>(rows * sf_cols * batch));
  for (auto& v : plain) v = static_cast<uint8_t>(1 + rng() % 255);  // nonzero, so padding is visible
  std::vector<uint8_t> blocked(static_cast<size_t>(blocked_scale_bytes(rows, sf_cols, batch)), 0xCD);
  bwgemm::swizzle_scales_to_blocked(plain.data(), rows, sf_cols, batch, blocked.data());
  int64_t zeros = 0;
  for (uint8_t v : blocked) zeros += v == 0;
  EXPECT_EQ(zeros, static_cast<int64_t>(blocked.size()) - rows * sf_cols * batch);  // exactly the padding
  std::vector<uint8_t> back(plain.size(), 0);
  bwgemm::unswizzle_scales_from_blocked(blocked.data(), rows, sf_cols, batch, back.data());
  EXPECT_EQ(back, plain);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ScaleLayoutShapes,
                         ::testing::Values(std::make_tuple(int64_t{128}, int64_t{4}, int64_t{1}),
                                           std::make_tuple(int64_t{256}, int64_t{16}, int64_t{1}),
                                           std::make_tuple(int64_t{1}, int64_t{1}, int64_t{1}),
                                           std::make_tuple(int64_t{300}, int64_t{7}, int64_t{3}),
                                           std::make_tuple(int64_t{512}, int64_t{448}, int64_t{1})),
                         [](const auto& info) {
                           return "r" + std::to_string(std::get<0>(info.param)) + "_c" +
                                  std::to_string(std::get<1>(info.param)) + "_l" +
                                  std::to_string(std::get<2>(info.param));
                         });

}  // namespace
