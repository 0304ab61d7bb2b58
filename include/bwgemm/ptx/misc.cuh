// Miscellaneous device primitives the kernels reach through ptx/ so that the emulator can replace them:
// elect.sync, thread/block/grid indices and other special registers, barriers, warp shuffles, the dynamic
// shared memory base, and shared-address <-> pointer conversions.
#pragma once

#include <cstdint>

#include <bwgemm/base/hardware.hpp>
#include <bwgemm/base/macros.hpp>
#include <bwgemm/isa/types.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#else
#include <cuda/ptx>
#endif

namespace bwgemm::ptx {

inline constexpr uint32_t kFullWarpMask = 0xFFFFFFFFu;

// PTX ISA 9.7.13 elect.sync: true in exactly one active thread of `member_mask` (the same one in every
// call with the same mask). Inline asm: not in cuda::ptx.
BWGEMM_DEVICE BWGEMM_FORCEINLINE bool elect_one_sync(uint32_t member_mask = kFullWarpMask) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::elect_one_sync(member_mask);
#else
  uint32_t elected;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "elect.sync _|p, %1;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(elected)
      : "r"(member_mask));
  return elected != 0;
#endif
}

// PTX ISA 10 (Special Registers) %tid. CUDA built-in threadIdx (the compiler knows its range).
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 thread_idx() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::thread_idx();
#else
  return Dim3{threadIdx.x, threadIdx.y, threadIdx.z};
#endif
}

// PTX ISA 10 (Special Registers) %ntid. CUDA built-in blockDim.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 block_dim() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::block_dim();
#else
  return Dim3{blockDim.x, blockDim.y, blockDim.z};
#endif
}

// PTX ISA 10 (Special Registers) %ctaid. CUDA built-in blockIdx.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 block_idx() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::block_idx();
#else
  return Dim3{blockIdx.x, blockIdx.y, blockIdx.z};
#endif
}

// PTX ISA 10 (Special Registers) %nctaid. CUDA built-in gridDim.
BWGEMM_DEVICE BWGEMM_FORCEINLINE Dim3 grid_dim() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::grid_dim();
#else
  return Dim3{gridDim.x, gridDim.y, gridDim.z};
#endif
}

// PTX ISA 10 (Special Registers) %laneid: this thread's lane in its warp. cuda::ptx::get_sreg_laneid.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t lane_idx() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::lane_idx();
#else
  return ::cuda::ptx::get_sreg_laneid();
#endif
}

// The warp index in a 1-D block, threadIdx.x / 32, made warp-uniform with a shuffle from lane 0 so the
// compiler can keep it in a uniform register (seed 004's warp_uniform). All 32 lanes must call it.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t warp_idx() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::warp_idx();
#else
  return __shfl_sync(kFullWarpMask, threadIdx.x / ::bwgemm::hw::kWarpSize, 0);
#endif
}

// PTX ISA 10 (Special Registers) %smid: the SM this CTA runs on. cuda::ptx::get_sreg_smid.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t sm_id() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::sm_id();
#else
  return ::cuda::ptx::get_sreg_smid();
#endif
}

// PTX ISA 10 (Special Registers) %dynamic_smem_size: bytes of dynamic shared memory of this launch.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t dynamic_smem_size() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::dynamic_smem_size();
#else
  return ::cuda::ptx::get_sreg_dynamic_smem_size();
#endif
}

// PTX ISA 9.7.13.1 bar/barrier: bar.sync 0 (all threads of the CTA): CUDA __syncthreads().
BWGEMM_DEVICE BWGEMM_FORCEINLINE void sync_threads() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::sync_threads();
#else
  __syncthreads();
#endif
}

// PTX ISA 9.7.13.1 bar/barrier: bar.sync id, count: named barrier `id` (1..15; 0 is __syncthreads) over
// `num_threads` threads (a multiple of 32). Inline asm: no CUDA built-in takes a thread count.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void named_barrier_sync(uint32_t id, uint32_t num_threads) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::named_barrier_sync(id, num_threads);
#else
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(num_threads) : "memory");
#endif
}

// PTX ISA 9.7.13.1 bar/barrier: bar.arrive id, count: arrive on named barrier `id` without waiting (producer
// side).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void named_barrier_arrive(uint32_t id, uint32_t num_threads) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::named_barrier_arrive(id, num_threads);
#else
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(num_threads) : "memory");
#endif
}

// PTX ISA 9.7.13.2 bar.warp.sync: CUDA __syncwarp(mask).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void sync_warp(uint32_t member_mask = kFullWarpMask) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::sync_warp(member_mask);
#else
  __syncwarp(member_mask);
#endif
}

// PTX ISA 9.7 (Data Movement) shfl.sync.idx: CUDA __shfl_sync(mask, value, src_lane) for 32-bit
// int/unsigned/float.
template <typename T>
BWGEMM_DEVICE BWGEMM_FORCEINLINE T shfl_sync(uint32_t member_mask, T value, uint32_t src_lane) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::shfl_sync<T>(member_mask, value, src_lane);
#else
  static_assert(sizeof(T) == 4, "shfl_sync moves 32-bit values");
  return __shfl_sync(member_mask, value, static_cast<int>(src_lane));
#endif
}

// PTX ISA 9.7.9 (Data Movement) cvta.to.shared: the 32-bit shared-window address of a generic pointer into
// shared memory.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t to_shared_address(const void* ptr) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::to_shared_address(ptr);
#else
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
#endif
}

// PTX ISA 9.7.9 (Data Movement) cvta.shared: the generic pointer of a shared-window address of this CTA.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void* shared_address_to_pointer(uint32_t smem_addr) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::shared_address_to_pointer(smem_addr);
#else
  return __cvta_shared_to_generic(static_cast<size_t>(smem_addr));
#endif
}

// Generic pointer to the start of the dynamic shared memory buffer (1024-byte aligned, as the 128-byte
// swizzle atoms of TMA and UMMA need). Kernels carve all their shared memory out of it.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void* dynamic_smem_ptr() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::dynamic_smem_ptr();
#else
  extern __shared__ __align__(1024) uint8_t bwgemm_dynamic_smem[];
  return bwgemm_dynamic_smem;
#endif
}

// The shared-window address of the dynamic shared memory buffer.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t dynamic_smem_base() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::dynamic_smem_base();
#else
  return to_shared_address(dynamic_smem_ptr());
#endif
}

// PTX ISA 9.7 (Miscellaneous Instructions) trap: abort the kernel (the launch fails with
// cudaErrorLaunchFailure).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void trap() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::trap();
#else
  __trap();
#endif
}

}  // namespace bwgemm::ptx
