// Compiled by check_typed_operands.cmake: with -DBWGEMM_TYPED_OK the call takes the toolkit's e2m1 pairs and
// e4m3 scales and must compile; without it the data and the scales are swapped and it must not.
#include <bwgemm/arguments/nvfp4_dual_gemm.hpp>

bwgemm::Nvfp4Tensor make(const __nv_fp4x2_e2m1* data, const __nv_fp8_e4m3* scales) {
#if defined(BWGEMM_TYPED_OK)
  return bwgemm::nvfp4_tensor(data, scales);
#else
  return bwgemm::nvfp4_tensor(reinterpret_cast<const __nv_fp8_e4m3*>(data),
                              reinterpret_cast<const __nv_fp4x2_e2m1*>(scales));
#endif
}
