// The host side of the NVFP4-output tests (nvfp4_output_check.hpp).
#include "nvfp4_output_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/formats/scale_layout.cuh"

namespace bwgemm_test {

size_t Nvfp4OutShape::data_bytes() const {
  return static_cast<size_t>(batch * m * n / 2);
}
size_t Nvfp4OutShape::scale_bytes() const {
  return static_cast<size_t>(bwgemm::blocked_scale_bytes(m, n / 16, batch));
}

float calibrated_global_scale(const std::vector<float>& x) {
  float amax = 0.0f;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  return amax > 0.0f ? amax / (6.0f * 448.0f) : 1.0f;
}

int64_t expect_quantizer_bytes(const Nvfp4OutShape& shape, const std::vector<float>& values,
                               float global_scale, const Nvfp4OutResult& got, const std::string& what) {
  const int64_t m = shape.m, n = shape.n, batch = shape.batch;
  std::vector<uint8_t> want_data(shape.data_bytes()), want_scales(shape.scale_bytes());
  const bwgemm::Status s = bwgemm::quantize_nvfp4_host(values.data(), m, n, batch, n, global_scale,
                                                       want_data.data(), want_scales.data());
  EXPECT_TRUE(s.ok()) << s.to_string();
  int64_t wrong = 0;
  EXPECT_EQ(got.data.size(), want_data.size());
  EXPECT_EQ(got.scales.size(), want_scales.size());
  if (got.data.size() != want_data.size() || got.scales.size() != want_scales.size()) return -1;
  for (size_t i = 0; i < want_data.size(); ++i) {
    if (got.data[i] == want_data[i]) continue;
    if (++wrong <= 5) {
      const int64_t row = static_cast<int64_t>(i) / (n / 2), col = static_cast<int64_t>(i) % (n / 2) * 2;
      ADD_FAILURE() << "packed byte " << i << " (batch-row " << row << ", columns " << col << ", " << col + 1
                    << "): got 0x" << std::hex << int{got.data[i]} << ", quantizer 0x" << int{want_data[i]};
    }
  }
  // Every scale byte, padding included, with the (batch, row, scale column) it holds in the blocked layout.
  const int64_t sf_cols = n / 16, padded_rows = bwgemm::round_up(m, bwgemm::kScaleAtomRows),
                padded_cols = bwgemm::round_up(sf_cols, bwgemm::kScaleAtomCols);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < padded_rows; ++r)
      for (int64_t j = 0; j < padded_cols; ++j) {
        const size_t at = static_cast<size_t>(bwgemm::blocked_scale_offset(r, j, b, m, sf_cols));
        if (got.scales[at] == want_scales[at]) continue;
        if (++wrong <= 10)
          ADD_FAILURE() << "scale byte " << at << " (batch " << b << ", row " << r << ", scale column " << j
                        << (r >= m || j >= sf_cols ? ", padding" : "") << "): got 0x" << std::hex
                        << int{got.scales[at]} << ", quantizer 0x" << int{want_scales[at]};
      }
  EXPECT_EQ(wrong, 0) << what;
  return wrong;
}

int64_t expect_within_nvfp4_rounding(const Nvfp4OutShape& shape, const Nvfp4OutResult& got,
                                     const std::vector<float>& want, float global_scale) {
  const int64_t rows = shape.batch * shape.m, n = shape.n;
  std::vector<float> decoded(static_cast<size_t>(rows * n));
  const bwgemm::Status s = bwgemm::dequantize_nvfp4_host(got.data.data(), got.scales.data(), shape.m, n,
                                                         shape.batch, global_scale, decoded.data());
  EXPECT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(want.size(), decoded.size());
  if (!s.ok() || want.size() != decoded.size()) return -1;
  int64_t outside = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t blk = 0; blk < n / 16; ++blk) {
      float amax = 0.0f;
      for (int i = 0; i < 16; ++i) amax = std::max(amax, std::fabs(want[r * n + blk * 16 + i]));
      const float bound = amax / 6.0f * (1.0f + 1.0f / 16.0f) * 1.001f + 1e-30f;
      for (int i = 0; i < 16; ++i) {
        const size_t at = static_cast<size_t>(r * n + blk * 16 + i);
        if (std::fabs(decoded[at] - want[at]) > bound && ++outside <= 5)
          ADD_FAILURE() << "batch-row " << r << " column " << blk * 16 + i << ": decoded " << decoded[at]
                        << ", reference " << want[at] << ", bound " << bound;
      }
    }
  EXPECT_EQ(outside, 0);
  return outside;
}

}  // namespace bwgemm_test
