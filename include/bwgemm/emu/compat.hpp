// Makes CUDA-isms compile as host C++ in the emulation build (BWGEMM_EMULATION=1, g++/clang, no nvcc).
//
// The toolkit's crt/host_defines.h, which <cuda_runtime_api.h> includes, already turns __global__,
// __device__, __host__, __shared__, __grid_constant__ into nothing and defines __forceinline__ and
// __align__(n) for a non-CUDA compiler. What it leaves unusable on the host: __launch_bounds__ (undefined
// unless __CUDACC__) and __cluster_dims__ (expands to an attribute g++ warns about). Both are replaced by
// nothing here. Kernels never touch threadIdx/blockIdx/__syncthreads directly (they go through ptx/), so
// those builtins are not provided.
#pragma once

#if defined(__CUDACC__)
#error "bwgemm/emu/compat.hpp is for host compilers; the emulation build compiles kernels as host C++"
#endif

#include <cuda_runtime_api.h>  // crt/host_defines.h: __global__, __device__, __forceinline__, __align__, ...

#undef __launch_bounds__
#define __launch_bounds__(...)
#undef __cluster_dims__
#define __cluster_dims__(...)
#ifndef __grid_constant__
#define __grid_constant__
#endif
