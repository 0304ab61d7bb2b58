// A downstream project: host code and sm_100a device code against the installed headers.
#include <bwgemm/formats/formats.cuh>

#include <cmath>
#include <cstdio>

__global__ void encode_kernel(const float* x, uint8_t* codes) {
  codes[threadIdx.x] = bwgemm::e2m1_encode(x[threadIdx.x]);
}

int main() {
  float x[32];
  for (int i = 0; i < 32; ++i) x[i] = bwgemm::e2m1_decode(static_cast<uint8_t>(i % 16)) * 2.0f;
  uint8_t packed[16], scales[512];
  const bwgemm::Status s = bwgemm::quantize_nvfp4_host(x, 1, 32, 1, 32, 1.0f, packed, scales);
  if (!s.ok()) {
    std::printf("%s\n", s.to_string().c_str());
    return 1;
  }
  float back[32], max_err = 0;
  if (!bwgemm::dequantize_nvfp4_host(packed, scales, 1, 32, 1, 1.0f, back).ok()) return 1;
  for (int i = 0; i < 32; ++i) max_err = std::fmax(max_err, std::fabs(back[i] - x[i]));
  std::printf("bwgemm %d.%d.%d: quantized 32 values, max error %g\n", BWGEMM_VERSION_MAJOR,
              BWGEMM_VERSION_MINOR, BWGEMM_VERSION_PATCH, max_err);
  return 0;
}
