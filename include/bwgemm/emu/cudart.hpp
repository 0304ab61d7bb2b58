// The emulated CUDA runtime (bwgemm::emu_cudart): what a host program written for the GPU calls besides
// bwgemm's entry points -- cudaMalloc / cudaFree / cudaMallocHost / cudaFreeHost, cudaMemcpy[Async],
// cudaMemset[Async], streams, events, cudaDeviceSynchronize, cudaGetLastError / cudaPeekAtLastError,
// cudaGetErrorString / cudaGetErrorName, cudaGetDevice / cudaSetDevice / cudaGetDeviceCount,
// cudaGetDeviceProperties, cudaDeviceGetAttribute, cudaMemGetInfo, cudaPointerGetAttributes, the version
// queries -- defined on the host (src/emu_cudart/cudart.cpp) with the signatures of the toolkit's
// cuda_runtime_api.h, so that such a program compiles as host C++ against bwgemm::emu unchanged and runs the
// sm_100a kernels in the CPU emulator (docs/emulator.md, "Run your own program").
//
//   target_link_libraries(app PRIVATE bwgemm::emu_cudart)         # brings bwgemm::emu
//   set_source_files_properties(app.cu PROPERTIES LANGUAGE CXX)   # a .cu file compiled as host C++
//
// The program needs no include of this header; it declares what the shim adds to the CUDA API.
//
// The model: device memory is host memory from a registry of live allocations (256-byte aligned, like
// cudaMalloc's). Linking the shim installs the registry as the entry points' device-pointer check
// (emu/device_memory.hpp), so a pointer that did not come from cudaMalloc / cudaMallocHost (or was freed) is
// refused with a Status naming the operand, as the native check refuses host memory. cudaMemcpy checks that
// the kind matches where the pointers are (device side inside one live allocation for the whole count, host
// side outside every device allocation) and returns cudaErrorInvalidValue otherwise. Work is synchronous:
// every emulated launch has finished when the entry point returns, so streams order nothing, a stream or
// event query is always complete, and an event records the host clock (cudaEventElapsedTime measures the
// emulation's wall time). One emulated device, device 0, compute capability 10.0,
// with no L2 cache (cudaDevAttrL2CacheSize 0); cudaMemGetInfo reports its capacity less the live allocations.
//
// Not provided: kernel launches of the program's own kernels (<<<...>>> does not compile as host C++),
// graphs, unified memory, peer copies, 2D/3D copies; a call the shim does not define resolves to the real
// libcudart, which reports that there is no device.
#pragma once

#include <cstdint>
#include <string>

namespace bwgemm::emu::cudart {

// The explanation of this thread's last failed call into the shim ("cudaMemcpy (cudaMemcpyHostToDevice):
// dst 0x... is not inside any live allocation of the emulated cudaMalloc"); empty when none failed yet.
// cudaGetErrorString gives only the error code's sentence.
std::string last_error_detail();

struct AllocationTotals {
  int64_t count = 0;  // live allocations (device and pinned host)
  int64_t bytes = 0;  // their requested sizes
};
AllocationTotals live_allocations();

// Is [p, p + bytes) inside one live allocation (device or pinned host)? Otherwise false and `why` says so.
bool is_device_accessible(const void* p, int64_t bytes, std::string* why = nullptr);

}  // namespace bwgemm::emu::cudart
