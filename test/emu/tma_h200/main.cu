// Runs test/emu/tma_microkernel.cuh natively on an sm_90a GPU (H200) and writes the bytes both CTAs dumped
// to the file named by argv[1]. test/emu/test_emu_tma.cpp compares the emulator with that file
// (test/data/tma_h200_golden.bin). Build and run: test/emu/tma_h200/run.sh.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "../tma_microkernel.cuh"

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e = (x);                                                                      \
    if (e != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main(int argc, char** argv) {
  using namespace tma_probe;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.bin\n", argv[0]);
    return 2;
  }
  Tensors t;
  void *f16 = nullptr, *fp4 = nullptr;
  uint8_t* out = nullptr;
  CHECK(cudaMalloc(&f16, t.f16.size() * 2));
  CHECK(cudaMalloc(&fp4, t.fp4.size()));
  CHECK(cudaMalloc(&out, kClusterCtas * kDataBytes));
  CHECK(cudaMemcpy(f16, t.f16.data(), t.f16.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(fp4, t.fp4.data(), t.fp4.size(), cudaMemcpyHostToDevice));
  Maps maps;
  const bwgemm::Status s = make_maps(f16, fp4, &maps, /*fp4_as_bytes=*/true);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    return 1;
  }
  CHECK(cudaFuncSetAttribute(tma_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(kClusterCtas, 1, 1);
  cfg.blockDim = dim3(kThreads, 1, 1);
  cfg.dynamicSmemBytes = kSmemBytes;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kClusterCtas;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, tma_probe_kernel, maps, out));
  CHECK(cudaDeviceSynchronize());
  std::vector<uint8_t> host(kClusterCtas * kDataBytes);
  CHECK(cudaMemcpy(host.data(), out, host.size(), cudaMemcpyDeviceToHost));
  FILE* f = std::fopen(argv[1], "wb");
  if (f == nullptr || std::fwrite(host.data(), 1, host.size(), f) != host.size()) return 1;
  std::fclose(f);
  std::printf("wrote %zu bytes to %s\n", host.size(), argv[1]);
  return 0;
}
