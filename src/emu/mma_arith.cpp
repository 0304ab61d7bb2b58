// bwgemm::emu::arith -- bit-exact tcgen05.mma element arithmetic (include/bwgemm/emu/mma_arith.hpp, which
// states the rules and their sources).
#include <bwgemm/emu/mma_arith.hpp>

#include <cassert>
#include <cstdint>

namespace bwgemm::emu::arith {

uint32_t mma_f16_element(F16Format fmt, const uint16_t* a, const uint16_t* b, int k, uint32_t c,
                         bool accumulate) {
  if (k <= 0 || k > kF16InstrK) {
    assert(!"mma_f16_element: k must be in [1, kF16InstrK]");
    return kCanonicalNanF32;
  }
  // bf16: sign/exponent/fraction 1/8/7; f16: IEEE 754 binary16, 1/5/10.
  return fmt == F16Format::kBF16 ? detail::mma_ieee16_element<8, 7>(a, b, k, c, accumulate)
                                 : detail::mma_ieee16_element<5, 10>(a, b, k, c, accumulate);
}

uint32_t mma_nvfp4_element(const uint8_t* a, const uint8_t* b, const uint8_t* sa, const uint8_t* sb, int k,
                           uint32_t c, bool accumulate) {
  if (k <= 0 || k > kNvfp4InstrK) {
    assert(!"mma_nvfp4_element: k must be in [1, kNvfp4InstrK]");
    return kCanonicalNanF32;
  }
  using detail::Class;
  using detail::Operand;
  constexpr int kGroup = detail::kNvfp4ProductGroup;
  constexpr int kGroupsPerBlock = kNvfp4ScaleBlock / kGroup;
  const int blocks = (k + kNvfp4ScaleBlock - 1) / kNvfp4ScaleBlock;
  const int groups = (k + kGroup - 1) / kGroup;

  // Specials.
  detail::Ue4m3 xs[kNvfp4InstrK / kNvfp4ScaleBlock];
  detail::Ue4m3 ys[kNvfp4InstrK / kNvfp4ScaleBlock];
  for (int blk = 0; blk < blocks; ++blk) {
    xs[blk] = detail::decode_ue4m3(sa[blk]);
    ys[blk] = detail::decode_ue4m3(sb[blk]);
    if (xs[blk].nan || ys[blk].nan) return kCanonicalNanF32;
  }
  const Operand cc = accumulate ? detail::decode_ieee<8, 23>(c) : Operand{Class::kFinite, false, 0, 0};
  if (cc.cls == Class::kNaN) return kCanonicalNanF32;
  if (cc.cls == Class::kInf) return cc.neg ? (kSignF32 | kPosInfF32) : kPosInfF32;

  // Exact small-integer dot product of every aligned group of 4 (units of 2^-2, before scaling), the
  // per-block scale factor F (see detail::kNvfp4BaseExp), P and S.
  int32_t group_dot[kNvfp4InstrK / detail::kNvfp4ProductGroup] = {};
  int64_t block_factor[kNvfp4InstrK / kNvfp4ScaleBlock];
  bool have_product = false;
  int p_max = 0;
  int s_max = 0;
  for (int blk = 0; blk < blocks; ++blk) {
    const int s = xs[blk].raw + ys[blk].raw;
    block_factor[blk] = static_cast<int64_t>(xs[blk].mant * ys[blk].mant)
                        << (s - detail::kNvfp4MinScalePairRaw);
    int e2m1_raw_max = -1;  // over this block's nonzero a*b; -1: none
    const int end = (blk + 1) * kNvfp4ScaleBlock < k ? (blk + 1) * kNvfp4ScaleBlock : k;
    for (int i = blk * kNvfp4ScaleBlock; i < end; ++i) {
      const int p = detail::kE2m1Tables.half_units[a[i] & 0xF] * detail::kE2m1Tables.half_units[b[i] & 0xF];
      group_dot[i / kGroup] += p;
      const int r = p != 0 ? detail::kE2m1Tables.raw[a[i] & 0xF] + detail::kE2m1Tables.raw[b[i] & 0xF] : -1;
      e2m1_raw_max = r > e2m1_raw_max ? r : e2m1_raw_max;  // branch-free: random data mispredicts
    }
    if (e2m1_raw_max < 0 || block_factor[blk] == 0) continue;  // no nonzero product in this block
    const int r = e2m1_raw_max + s;
    p_max = have_product ? (r > p_max ? r : p_max) : r;
    s_max = have_product ? (s > s_max ? s : s_max) : s;
    have_product = true;
  }
  if (!have_product) return accumulate ? c : 0u;

  const int64_t c_mant = cc.neg ? -static_cast<int64_t>(cc.mant) : static_cast<int64_t>(cc.mant);
  const int c_exp = cc.raw - detail::kF32FracBits;

  // Bounds for the shifts below: every product is < 2^(P + 3). Product path: q >= P - 39, so a group of 4
  // is < 2^44 units and C (raw(C) < P there, mantissa < 2^24) is shifted left by at most 15 bits. C path:
  // q = raw(C) - 35 >= P - 35, so a block of 16 is < 2^42 units and C is shifted left by exactly 12 bits.
  // All sums stay far below 2^63.
  if (cc.mant != 0 && cc.raw >= p_max) {
    // C-dominant path [md]: per-16-block exact sums truncated into a C-relative 35-bit window.
    const int q = cc.raw - detail::kNvfp4CWindowFracBits;
    int64_t units = detail::to_units(c_mant, c_exp, q);
    for (int blk = 0; blk < blocks; ++blk) {
      int64_t block_dot = 0;
      for (int g = blk * kGroupsPerBlock; g < (blk + 1) * kGroupsPerBlock && g < groups; ++g) {
        block_dot += group_dot[g];
      }
      units += detail::to_units(block_dot * block_factor[blk], detail::kNvfp4BaseExp, q);
    }
    return detail::to_f32_rz(units, q);
  }

  // Product-dominant path [md]: aligned groups of 4, each truncated into the shared window.
  const int q_product = p_max - detail::kNvfp4ProductWindowFracBits;
  const int q_scale = s_max - detail::kNvfp4ScaleFloorFracBits;
  const int q = q_product > q_scale ? q_product : q_scale;
  int64_t units = cc.mant != 0 ? detail::to_units(c_mant, c_exp, q) : 0;
  for (int g = 0; g < groups; ++g) {
    units += detail::to_units(group_dot[g] * block_factor[g / kGroupsPerBlock], detail::kNvfp4BaseExp, q);
  }
  return detail::to_f32_rz(units, q);
}

}  // namespace bwgemm::emu::arith
