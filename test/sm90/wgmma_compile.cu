// Every ptx::wgmma_ss form the library can emit, plus the warpgroup fences and setmaxnreg, compiled for
// sm_90a: the build runs ptxas on each (its warnings are errors), so a malformed operand list or an
// unsupported shape fails the build. Never launched.
#include <cstdint>
#include <utility>

#include "bwgemm/ptx/wgmma.cuh"

namespace ptx = bwgemm::ptx;

template <class T, int N, ptx::WgmmaMajor A, ptx::WgmmaMajor B>
__global__ void __launch_bounds__(128, 1)
    wgmma_form(float* out, uint64_t desc_a, uint64_t desc_b, int accumulate) {
  ptx::warpgroup_reg_alloc<232>();
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.0f;
  ptx::wgmma_fence_operand(d);
  ptx::wgmma_fence();
  ptx::wgmma_ss<T, N, A, B>(d, desc_a, desc_b, accumulate != 0);
  ptx::wgmma_commit_group();
  ptx::wgmma_wait_group<0>();
  ptx::wgmma_fence_operand(d);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) out[threadIdx.x * (N / 2) + i] = d[i];
}

__global__ void __launch_bounds__(384, 1) setmaxnreg_roles(int* out) {
  if (threadIdx.x < 128) {
    ptx::warpgroup_reg_dealloc<40>();
    out[threadIdx.x] = 1;
  } else {
    ptx::warpgroup_reg_alloc<232>();
    out[threadIdx.x] = 2;
  }
  ptx::wgmma_wait_group<1>();
}

template <class T, ptx::WgmmaMajor A, ptx::WgmmaMajor B, int... Ns>
void instantiate(std::integer_sequence<int, Ns...>) {
  (void)std::initializer_list<void*>{reinterpret_cast<void*>(&wgmma_form<T, Ns, A, B>)...};
}

using AllN = std::integer_sequence<int, 8, 16, 32, 48, 64, 96, 128, 160, 192, 256>;

void instantiate_all() {
  constexpr auto K = ptx::WgmmaMajor::kK, MN = ptx::WgmmaMajor::kMN;
  instantiate<__nv_bfloat16, K, K>(AllN{});
  instantiate<__half, K, K>(AllN{});
  instantiate<__nv_bfloat16, K, MN>(AllN{});
  instantiate<__half, K, MN>(AllN{});
  instantiate<__nv_bfloat16, MN, MN>(std::integer_sequence<int, 64, 256>{});
  instantiate<__half, MN, K>(std::integer_sequence<int, 64, 256>{});
}
