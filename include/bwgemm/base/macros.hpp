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

// Architecture guards of the kernel bodies. One translation unit may be built for several architectures at
// once (CMAKE_CUDA_ARCHITECTURES "90a;100a"): every kernel it instantiates is then compiled in every device
// pass, but a kernel's body uses the instructions of one architecture only (tcgen05 on sm_100a, wgmma on
// sm_90a). Each kernel compiles its body where the body's guard is 1 -- its own architecture's device pass,
// the host pass and the CPU emulator -- and elsewhere is a stub that traps: the public entry points check
// the device's compute capability before they launch, so a stub is never run.
// nvcc defines __CUDA_ARCH_FEAT_SM100_ALL / __CUDA_ARCH_FEAT_SM90_ALL in the device pass of the
// architecture-specific targets compute_100a / compute_90a only (CUDA 12.8 and newer for sm_100a).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define BWGEMM_SM100A_KERNEL_BODY 1
#else
#define BWGEMM_SM100A_KERNEL_BODY 0
#endif
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define BWGEMM_SM90A_KERNEL_BODY 1
#else
#define BWGEMM_SM90A_KERNEL_BODY 0
#endif

#define BWGEMM_VERSION_MAJOR 0
#define BWGEMM_VERSION_MINOR 1
#define BWGEMM_VERSION_PATCH 0
