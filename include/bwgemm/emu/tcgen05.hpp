// tcgen05 in the emulator (ptx/tcgen05.cuh), PTX ISA 9.7.16 "TensorCore 5th Generation Family Instructions".
//
//  * alloc / dealloc / relinquish_alloc_permit (9.7.16.7.1): warp-wide; power-of-two column counts >= 32,
//    first fit aligned to the size; an alloc that does not fit waits for a dealloc (and shows up in a
//    deadlock report); a CTA that exits with columns allocated is reported. With cta_group::2 each CTA of the
//    pair allocates in its own tensor memory (one warp in each executes it).
//  * mma (9.7.16.10.9) kind::f16 (f16/bf16 -> f32) and kind::mxf4nvf4.block16 (e2m1 with ue4m3 scales):
//    cta_group::1 with M = 128 (D row m in lane m), cta_group::2 with M = 256 issued by the even CTA of the
//    pair: A rows 0-127 from the even CTA's shared memory and 128-255 from the odd one's (same descriptor),
//    B rows (N) 0..N/2-1 from the even CTA and N/2..N-1 from the odd one, D rows of each half in that CTA's
//    tensor memory. Operands are read through the shared memory descriptor (smem_operand.hpp) when the
//    operation completes; the element arithmetic is bwgemm::emu::arith (bit-exact to B200).
//  * Scale factors (9.7.16.10.7): for A row r (of the CTA's half) lane r, column sfa + r/32, byte j holds
//    the scale of K block j; for B column n lane n%128, column sfb + n/32, byte j (the layout that
//    tcgen05.cp.32x128b.warpx4 produces from the 128x4 blocked scale atoms).
//  * cp (9.7.16.8.3) .32x128b.warpx4 and .128x128b; cta_group::2 copies in both CTAs of the pair, each
//    from its own shared memory into its own tensor memory.
//  * ld (9.7.16.8.4) .32x32b.xN: warp-wide; warp w reaches lanes 32*(w%4) .. +31 only (reported otherwise),
//    the address's lane field taken modulo 128 (the seeds address the odd CTA's rows as lanes 128..255);
//    reading cells that a pending (not yet completed) mma or cp writes is reported, as is reading cells no
//    mma/cp wrote since allocation (LaunchConfig::report_uninitialized_tmem_reads).
//  * commit (9.7.16.10.12): an arrive::one on the barrier (or on the barrier at that offset in every CTA of
//    the multicast mask) once every earlier mma/cp of the issuing thread has completed; mma, cp and commit
//    of one thread complete in issue order.
//  * fences and wait::ld: ordering only; nothing to emulate (loads complete synchronously).
// The operations are in src/emu/tcgen05.cpp; the templates here only forward their compile-time arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/mbarrier.hpp>
#include <bwgemm/emu/mma_arith.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/emu/smem_operand.hpp>
#include <bwgemm/emu/thread_ops.hpp>
#include <bwgemm/emu/tmem_state.hpp>
#include <bwgemm/isa/descriptors.hpp>
#include <bwgemm/isa/types.hpp>

namespace bwgemm::emu {
namespace detail {

inline constexpr uint32_t kTmemAddressBytes = 4;  // tcgen05.alloc writes a 32-bit TMEM address

// The CTAs a cta_group::N operation (N = 1 or 2) acts on: the issuing CTA, or the pair (even rank first).
std::vector<Cta*> cta_group_members(int cta_group, const char* what);

void check_tmem_columns(const Cta& c, uint32_t column, uint32_t n, const char* what);

enum class MmaKind { kF16, kMxf4Nvf4 };

struct MmaJob {
  MmaKind kind;
  std::vector<Cta*> ctas;  // one, or the pair
  uint32_t m, n, k;
  uint32_t d_column;
  SmemOperand a, b;
  arith::F16Format format = arith::F16Format::kF16;
  bool negate_a = false, negate_b = false;
  uint32_t sfa_column = 0, sfb_column = 0;
  bool accumulate;
  std::string what;
};

uint32_t tmem_scale_word(const Cta& c, uint32_t lane, uint32_t column, const std::string& what,
                         const LaunchConfig& cfg);

// Runs an MMA when it completes: reads the operands, writes D into tensor memory.
void run_mma(const MmaJob& job);

void issue_mma(int cta_group, MmaJob job, uint32_t d_tmem, const char* what);
void issue_commit(uint32_t bar, uint16_t cta_mask, bool multicast);

// The operations behind the templates below, with their compile-time arguments as values.
void tcgen05_alloc_impl(int cta_group, uint32_t dst_smem, uint32_t ncols);
void tcgen05_dealloc_impl(int cta_group, uint32_t taddr, uint32_t ncols);
void tcgen05_relinquish_alloc_permit_impl();
void tcgen05_mma_f16_impl(int cta_group, uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                          bool accumulate);
void tcgen05_mma_mxf4nvf4_impl(int cta_group, uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                               uint32_t idesc, uint32_t sfa_tmem, uint32_t sfb_tmem, bool accumulate);
void tcgen05_cp_impl(int cta_group, ptx::TmemCopyShape shape, uint32_t taddr, uint64_t s_desc);
void tcgen05_ld_32x32b_impl(uint32_t taddr, uint32_t* out, uint32_t n);

}  // namespace detail

template <int CtaGroup>
void tcgen05_alloc(uint32_t dst_smem, uint32_t ncols) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  detail::tcgen05_alloc_impl(CtaGroup, dst_smem, ncols);
}

template <int CtaGroup>
void tcgen05_dealloc(uint32_t taddr, uint32_t ncols) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  detail::tcgen05_dealloc_impl(CtaGroup, taddr, ncols);
}

template <int CtaGroup>
void tcgen05_relinquish_alloc_permit() {
  detail::tcgen05_relinquish_alloc_permit_impl();
}

template <int CtaGroup, ptx::CollectorUsage Collector>
void tcgen05_mma_f16(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, bool accumulate) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  detail::tcgen05_mma_f16_impl(CtaGroup, d_tmem, a_desc, b_desc, idesc, accumulate);
}

template <int CtaGroup, ptx::CollectorUsage Collector>
void tcgen05_mma_mxf4nvf4(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                          uint32_t sfa_tmem, uint32_t sfb_tmem, bool accumulate) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  detail::tcgen05_mma_mxf4nvf4_impl(CtaGroup, d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate);
}

template <int CtaGroup>
void tcgen05_commit(uint32_t bar) {
  detail::issue_commit(bar, 0, false);
}
template <int CtaGroup>
void tcgen05_commit_multicast(uint32_t bar, uint16_t cta_mask) {
  detail::issue_commit(bar, cta_mask, true);
}

void tcgen05_fence_before_thread_sync();
void tcgen05_fence_after_thread_sync();

template <int CtaGroup, ptx::TmemCopyShape Shape>
void tcgen05_cp(uint32_t taddr, uint64_t s_desc) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  detail::tcgen05_cp_impl(CtaGroup, Shape, taddr, s_desc);
}

template <int N>
void tcgen05_ld_32x32b(uint32_t taddr, uint32_t (&out)[N]) {
  detail::tcgen05_ld_32x32b_impl(taddr, out, N);
}

void tcgen05_wait_ld();

}  // namespace bwgemm::emu
