// The host side of the NVFP4-output tests (Out = bwgemm::Nvfp4Output: the sm_100a NVFP4 dual GEMM's C,
// test/kernels/test_nvfp4_dual_nvfp4_out.cpp, and the NVFP4 GEMM's D, test_nvfp4_gemm_nvfp4_out.cpp): the
// quantizer's bytes for the reference's fp32 values and the byte-for-byte comparison with a kernel's two
// buffers. Compiled once into bwgemm_test_support.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bwgemm_test {

// The byte both output buffers start as: the kernel must overwrite every data byte and every scale byte,
// padding included (the quantizer's padding is 0, so a skipped padding byte shows).
inline constexpr uint8_t kNvfp4OutFillByte = 0xEE;

// An NVFP4 output's shape: batch x m x n (n a multiple of 16).
struct Nvfp4OutShape {
  int64_t m = 0, n = 0, batch = 1;
  size_t data_bytes() const;   // batch x m x n / 2
  size_t scale_bytes() const;  // blocked_scale_bytes(m, n / 16, batch), padding included
};

// A kernel's NVFP4 output, downloaded: the packed data and the blocked scales.
struct Nvfp4OutResult {
  std::vector<uint8_t> data, scales;
};

// The calibrated global scale of a tensor (the activations' convention): amax / (6 · 448), the largest
// e2m1 value times the largest e4m3 scale, so the tensor's largest block gets the largest scale.
float calibrated_global_scale(const std::vector<float>& x);

// bwgemm::quantize_nvfp4_host on `values` (batch x m x n fp32, row stride n) and a byte-for-byte comparison
// with the kernel's buffers, every scale byte checked with the (batch, row, scale column) it holds, padding
// included; returns the number of differing bytes (the first few reported, with where they are; `what`
// names the problem in the failure).
int64_t expect_quantizer_bytes(const Nvfp4OutShape& shape, const std::vector<float>& values,
                               float global_scale, const Nvfp4OutResult& got, const std::string& what);

// The kernel's output dequantized (bwgemm::dequantize_nvfp4_host) against `want` (batch x m x n fp32, the
// reference's values) within NVFP4's rounding: per 16-column block, an element is at most half an e2m1 step,
// i.e. one decoded block scale s = e4m3(amax / (6 g)) · g, from its value, and s is at most
// amax / 6 · (1 + 2^-4) by e4m3's rounding (amax the block's largest |want|); the bound gets a 0.1 % margin
// for the fp32 differences of a reference computed another way. Returns the number of elements outside it.
int64_t expect_within_nvfp4_rounding(const Nvfp4OutShape& shape, const Nvfp4OutResult& got,
                                     const std::vector<float>& want, float global_scale);

}  // namespace bwgemm_test
