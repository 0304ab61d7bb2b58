// Reading tcgen05 matrix operands out of shared memory through a shared memory descriptor (PTX ISA
// 9.7.16.4.1 "Shared Memory Descriptor" and "Shared Memory Matrix Layouts": the canonical layouts).
//
// With T = 16 bytes of elements and S the swizzle span in bytes (32, 64, 128), in bytes:
//   K-major,  no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO))   row r, K byte b:
//                         start + (r%8)*16 + (r/8)*SBO + b%16 + (b/16)*LBO
//   K-major,  swizzled:   ((8,m),(T,2k)):((S/16 T,SBO),(1,T))
//                         start + (r%8)*S + (r/8)*SBO + b          (b < S), then the swizzle
//   MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))   MN byte c, K index k:
//                         start + c%16 + (c/16)*SBO + (k%8)*16 + (k/8)*LBO
//   MN-major, swizzled:   ((T,S/16,m),(8,k)):((1,T,LBO),(S/16 T,SBO))
//                         start + c%S + (c/S)*LBO + (k%8)*S + (k/8)*SBO, then the swizzle
// The swizzle is swizzle_address() on the shared-window address, as TMA applies it when writing.
// Not modelled (reported): the 128B-with-32B-atom swizzle (mode 1), a nonzero base offset, the absolute
// LBO mode (bit 52). The decoding is in src/emu/smem_operand.cpp.
#pragma once

#include <cstdint>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/emu/swizzle.hpp>
#include <bwgemm/isa/descriptors.hpp>

namespace bwgemm::emu::detail {

inline constexpr int kSmemDescVersionShift = 46;  // bits 46-48 hold 0b001 on sm_100

struct SmemOperand {
  ptx::SmemDescriptor desc;
  uint32_t span = 0;  // swizzle span in bytes, 0 for none
  bool k_major = true;
  uint32_t element_bits = 16;

  // Shared-window offset of the byte holding element (mn, k), and the bit position of the element in it.
  uint32_t byte_offset(uint32_t mn, uint32_t k, uint32_t* bit_shift) const;
};

// Decodes and validates a descriptor; fails the launch for encodings the emulator does not model.
SmemOperand decode_operand(uint64_t raw, bool k_major, uint32_t element_bits, const char* what);

// Reads element (mn, k) of an operand in `cta`'s shared memory (bounds-checked).
uint32_t read_operand_element(const SmemOperand& op, const Cta& cta, uint32_t mn, uint32_t k,
                              const char* what);

}  // namespace bwgemm::emu::detail
