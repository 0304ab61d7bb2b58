// Reading tcgen05 matrix operands through a shared memory descriptor (include/bwgemm/emu/smem_operand.hpp).
#include <bwgemm/emu/smem_operand.hpp>

#include <cstdint>
#include <string>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/swizzle.hpp>
#include <bwgemm/isa/descriptors.hpp>

namespace bwgemm::emu::detail {

uint32_t SmemOperand::byte_offset(uint32_t mn, uint32_t k, uint32_t* bit_shift) const {
  const ptx::SmemDescriptor& d = desc;
  uint32_t addr;
  if (k_major) {
    const uint32_t kbit = k * element_bits;
    const uint32_t b = kbit / 8;
    *bit_shift = kbit % 8;
    if (span == 0) {
      addr = d.start_address + (mn % 8) * 16 + (mn / 8) * d.stride_byte_offset + b % 16 +
             (b / 16) * d.leading_byte_offset;
    } else {
      addr = d.start_address + (mn % 8) * span + (mn / 8) * d.stride_byte_offset + b % span +
             (b / span) * d.leading_byte_offset;
    }
  } else {
    const uint32_t cbit = mn * element_bits;
    const uint32_t c = cbit / 8;
    *bit_shift = cbit % 8;
    if (span == 0) {
      addr = d.start_address + c % 16 + (c / 16) * d.stride_byte_offset + (k % 8) * 16 +
             (k / 8) * d.leading_byte_offset;
    } else {
      addr = d.start_address + c % span + (c / span) * d.leading_byte_offset + (k % 8) * span +
             (k / 8) * d.stride_byte_offset;
    }
  }
  return swizzle_address(addr, span);
}

SmemOperand decode_operand(uint64_t raw, bool k_major, uint32_t element_bits, const char* what) {
  Machine& m = machine();
  SmemOperand op;
  op.desc = ptx::decode_smem_descriptor(raw);
  op.k_major = k_major;
  op.element_bits = element_bits;
  const std::string w = std::string(what) + " (descriptor " + format_hex(raw) + ")";
  if (((raw >> kSmemDescVersionShift) & 7u) != ptx::smem_desc::kVersionSm100) {
    m.fail(w + ": bits 46-48 must hold the sm_100 descriptor version 0b001");
  }
  switch (op.desc.swizzle) {
    case ptx::SmemSwizzle::kNone:
      op.span = 0;
      break;
    case ptx::SmemSwizzle::k32B:
      op.span = 32;
      break;
    case ptx::SmemSwizzle::k64B:
      op.span = 64;
      break;
    case ptx::SmemSwizzle::k128B:
      op.span = 128;
      break;
    case ptx::SmemSwizzle::k128BBase32B:
      m.fail(w + ": the 128-byte swizzle with 32-byte atomicity is not modelled by the emulator");
    default:
      m.fail(w + ": bits 61-63 hold no sm_100 swizzling mode");
  }
  if (op.desc.base_offset != 0) m.fail(w + ": a nonzero matrix base offset is not modelled by the emulator");
  if (op.desc.lbo_absolute) m.fail(w + ": the absolute leading-dimension mode (bit 52) is not modelled");
  return op;
}

uint32_t read_operand_element(const SmemOperand& op, const Cta& cta, uint32_t mn, uint32_t k,
                              const char* what) {
  uint32_t shift = 0;
  const uint32_t off = op.byte_offset(mn, k, &shift);
  const uint32_t bytes = (op.element_bits + 7) / 8;
  if (off < kSharedWindowBase || off + bytes > cta.smem_end) {
    machine().fail(std::string(what) + ": operand element (" + std::to_string(mn) + ", " + std::to_string(k) +
                   ") of CTA rank " + std::to_string(cta.rank) + " lies at shared offset " + format_hex(off) +
                   ", outside the dynamic shared memory");
  }
  const uint8_t* p = cta.smem + off;
  switch (op.element_bits) {
    case 4:
      return (*p >> shift) & 0xFu;
    case 8:
      return *p;
    case 16:
      return static_cast<uint32_t>(p[0] | (p[1] << 8));
    default:
      return static_cast<uint32_t>(p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24));
  }
}

}  // namespace bwgemm::emu::detail
