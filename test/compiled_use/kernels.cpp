// The one unit of the program that compiles the kernels (host C++ against the emulator here; a CUDA unit
// built for the program's architectures in a native build).
#include "bwgemm/instantiate.cuh"

BWGEMM_INSTANTIATE_GEMM(__nv_bfloat16, float)
BWGEMM_INSTANTIATE_DUAL_GEMM(__half, __half)
BWGEMM_INSTANTIATE_GROUPED_GEMM(__half, __half)
