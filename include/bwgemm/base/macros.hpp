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

// Which device passes may compile bwgemm kernels at all. A stub is harmless only where no GPU could launch
// it: the dispatch runs the sm_90a kernels on compute capability 9.0 and the sm_100a kernels on 10.0, and a
// device pass produces code that can run an sm_90a kernel's stub on a 9.0 GPU, or an sm_100a kernel's stub
// on a 10.0 GPU, unless it is itself an architecture-specific ("a") pass: SASS of another major version
// does not run, and architecture-specific PTX (compute_90a, compute_100a) is not forward compatible, but
// plain PTX (compute_XX) is JIT-compiled for newer GPUs, and plain SASS of the same major version runs
// (sm_90 on a 9.0 GPU, sm_100 on 10.0). A pass cannot tell whether its output becomes SASS or PTX
// (code=sm_80 and code=compute_80 are one pass, __CUDA_ARCH__ = 800), so every device pass other than
// compute_90a and compute_100a is refused. That includes the family-specific targets (CUDA 12.9+): nvcc 13.0
// defines __CUDA_ARCH_FAMILY_SPECIFIC__ = 1000 for sm_100f but neither __CUDA_ARCH_SPECIFIC__ nor
// __CUDA_ARCH_FEAT_SM100_ALL, so a 100f pass compiles the sm_100a kernels as stubs, and its SASS and PTX run
// on a 10.0 GPU. Passes of newer architectures (sm_103a, B300: __CUDA_ARCH_FEAT_SM103_ALL, not ..._SM100_ALL;
// sm_110, sm_120) could not run on 9.0 or 10.0, but the kernels use sm_100a-only instruction forms, so such
// a pass could only carry stubs: it is refused too, with the same message, and a 10.3 device gets
// device_mismatch from the dispatch (which accepts exactly 10.0 and 9.0). The host pass and the emulator (no
// __CUDA_ARCH__) are fine, and so is a multi-architecture build "90a;100a": each `a` pass compiles the other
// architecture's kernels as stubs, which its code cannot run on the other GPU. kernels/sm100/common.cuh and
// kernels/sm90/common.cuh (included by every kernel) refuse a pass with BWGEMM_REFUSE_DEVICE_PASS(); headers
// without bwgemm kernels (quantize.cuh, formats/) compile for any architecture.
// BWGEMM_STUBS_ONLY_DEVICE_PASS: 1 in a device pass where every bwgemm kernel would be a stub.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define BWGEMM_STUBS_ONLY_DEVICE_PASS 1
#else
#define BWGEMM_STUBS_ONLY_DEVICE_PASS 0
#endif

// The compile error of a refused device pass, naming its __CUDA_ARCH__ and the fix. #error cannot print a
// macro's value (its text is not expanded), so the message is a string built by the preprocessor and raised
// by the preprocessor's error pragma: nvcc preprocesses each device pass with the host compiler, and GCC and
// Clang stop there, before the device compiler runs. The static_assert raises the same message in the
// device compiler wherever the pragma is unknown (and ignored with a warning, e.g. MSVC).
#define BWGEMM_DETAIL_STRING(...) #__VA_ARGS__
#define BWGEMM_DETAIL_PRAGMA_STRING(...) _Pragma(#__VA_ARGS__)
#define BWGEMM_DETAIL_PRAGMA(...) BWGEMM_DETAIL_PRAGMA_STRING(__VA_ARGS__)
#define BWGEMM_DETAIL_DEVICE_PASS_MESSAGE(bwgemm_cuda_arch)                                                \
  BWGEMM_DETAIL_STRING(bwgemm: this device pass (__CUDA_ARCH__ = bwgemm_cuda_arch) is not an                 \
                       architecture-specific target, so its bwgemm kernels would be trap stubs that a GPU  \
                       could launch. Build for 90a (H100/H200) and/or 100a (B200/GB200) only:              \
                       CMAKE_CUDA_ARCHITECTURES="90a;100a",                                                \
                       nvcc -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_100a,code=sm_100a, \
                       or TORCH_CUDA_ARCH_LIST="9.0a;10.0a")
#define BWGEMM_REFUSE_DEVICE_PASS()                                                \
  BWGEMM_DETAIL_PRAGMA(GCC error BWGEMM_DETAIL_DEVICE_PASS_MESSAGE(__CUDA_ARCH__)) \
  static_assert(!BWGEMM_STUBS_ONLY_DEVICE_PASS, BWGEMM_DETAIL_DEVICE_PASS_MESSAGE(__CUDA_ARCH__));

#define BWGEMM_VERSION_MAJOR 0
#define BWGEMM_VERSION_MINOR 1
#define BWGEMM_VERSION_PATCH 0
