// Hardware facts every layer shares, each defined once, with where it comes from. Pure C++17.
#pragma once

#include <cstdint>

namespace bwgemm::hw {

// ---- both architectures (sm_90a and sm_100a) ------------------------------------------------------------

// Threads of a warp (CUDA C++ Programming Guide, "SIMT Architecture").
inline constexpr int kWarpSize = 32;
// The most dynamic shared memory one block may opt into: 227 KB on compute capability 9.0 and 10.0 (CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability").
inline constexpr int kMaxDynamicSmemBytes = 232448;
// Alignment the kernels give their shared-memory operand tiles: a 128-byte-swizzle atom is 8 rows x 128
// bytes and must start on a 1024-byte boundary (PTX ISA, "Shared memory matrix layout"; TMA swizzle modes).
inline constexpr int kSmemAlignment = 1024;

// ---- sm_100a (B200): tensor memory ---------------------------------------------------------------------

// Tensor memory: 128 lanes x 512 columns of 32 bits per SM (PTX ISA 9.7.16, "Tensor Memory").
inline constexpr int kTmemLanes = 128;
inline constexpr int kTmemMaxColumns = 512;
// tcgen05.alloc takes a power of two of at least 32 columns (PTX ISA 9.7.16, tcgen05.alloc).
inline constexpr int kTmemMinAllocColumns = 32;
// A tensor-memory address holds the lane in bits 31-16 and the column in bits 15-0 (PTX ISA 9.7.16,
// "Tensor Memory Addressing").
inline constexpr int kTmemLaneShift = 16;
// Each warp of a warpgroup may access only its own 32-lane quarter of tensor memory with tcgen05.ld/st
// (warp w % 4 reaches lanes 32 (w % 4) .. + 31; PTX ISA 9.7.16, "Access restrictions").
inline constexpr int kTmemLanesPerWarp = kTmemLanes / 4;

// ---- sm_90a (H100/H200) ---------------------------------------------------------------------------------

// A wgmma is issued by a warpgroup: 4 consecutive warps starting at a warp index divisible by 4 (PTX ISA
// 9.7.15, "Warpgroup").
inline constexpr int kWarpgroupThreads = 4 * kWarpSize;

}  // namespace bwgemm::hw
