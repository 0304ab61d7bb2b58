// bwgemm: common macros shared by every header.
//
// BWGEMM_HD marks functions usable on host and device. In the CPU emulation build
// (BWGEMM_EMULATION=1, compiled by a host C++ compiler) device code is host code.
#pragma once

#include <cstdint>

#if !defined(BWGEMM_EMULATION)
#define BWGEMM_EMULATION 0
#endif

#if defined(__CUDACC__)
#define BWGEMM_HD __host__ __device__
#define BWGEMM_DEVICE __device__
#define BWGEMM_FORCEINLINE __forceinline__
#else
#define BWGEMM_HD
#define BWGEMM_DEVICE
#define BWGEMM_FORCEINLINE inline
#endif

// True while compiling code for a GPU (the device pass of nvcc). False on the host and in the emulator.
#if defined(__CUDA_ARCH__)
#define BWGEMM_DEVICE_PASS 1
#else
#define BWGEMM_DEVICE_PASS 0
#endif

#define BWGEMM_VERSION_MAJOR 0
#define BWGEMM_VERSION_MINOR 1
#define BWGEMM_VERSION_PATCH 0
