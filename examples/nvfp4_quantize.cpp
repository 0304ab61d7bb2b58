// Quantize a random fp32 matrix to NVFP4 (e2m1 codes + 128x4 blocked e4m3 scales), dequantize it,
// and print the error statistics. Runs on the host; no GPU needed.
//
//   nvfp4_quantize_example [rows] [K]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bwgemm/formats/formats.cuh"

int main(int argc, char** argv) {
  const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 256;
  const int64_t k = argc > 2 ? std::atoll(argv[2]) : 1024;

  // Activations-like data: normal values with a few outliers.
  std::mt19937 rng(2026);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(rows * k));
  for (auto& v : x) v = normal(rng) * (rng() % 64 == 0 ? 8.0f : 1.0f);

  std::vector<uint8_t> packed(static_cast<size_t>(rows * k / 2));
  std::vector<uint8_t> scales(
      static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / bwgemm::kNvfp4BlockSize)));
  if (bwgemm::Status s =
          bwgemm::quantize_nvfp4_host(x.data(), rows, k, 1, k, 1.0f, packed.data(), scales.data());
      !s.ok()) {
    std::fprintf(stderr, "quantize_nvfp4_host: %s\n", s.to_string().c_str());
    return 1;
  }
  std::vector<float> back(x.size());
  if (bwgemm::Status s =
          bwgemm::dequantize_nvfp4_host(packed.data(), scales.data(), rows, k, 1, 1.0f, back.data());
      !s.ok()) {
    std::fprintf(stderr, "dequantize_nvfp4_host: %s\n", s.to_string().c_str());
    return 1;
  }

  double sq_err = 0, sq_ref = 0, max_abs = 0, sum_abs = 0;
  int64_t exact = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::fabs(static_cast<double>(back[i]) - x[i]);
    sq_err += e * e;
    sq_ref += static_cast<double>(x[i]) * x[i];
    sum_abs += e;
    max_abs = std::max(max_abs, e);
    exact += e == 0.0;
  }
  std::printf("NVFP4 quantization of a %lld x %lld fp32 matrix (16-element blocks, e4m3 scales)\n",
              static_cast<long long>(rows), static_cast<long long>(k));
  std::printf("  packed data     %zu bytes, blocked scales %zu bytes (%.3f bits per value)\n", packed.size(),
              scales.size(),
              8.0 * static_cast<double>(packed.size() + scales.size()) / static_cast<double>(x.size()));
  std::printf("  mean |error|    %.6f\n", sum_abs / static_cast<double>(x.size()));
  std::printf("  max |error|     %.6f\n", max_abs);
  std::printf("  relative RMS error %.6f\n", std::sqrt(sq_err / sq_ref));
  std::printf("  exact values    %.2f%%\n",
              100.0 * static_cast<double>(exact) / static_cast<double>(x.size()));
  return 0;
}
