// tcgen05 in the emulator (include/bwgemm/emu/tcgen05.hpp), PTX ISA 9.7.16.
#include <bwgemm/emu/tcgen05.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
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

std::vector<Cta*> cta_group_members(int cta_group, const char* what) {
  Machine& m = machine();
  Cta& c = m.cta();
  if (cta_group == 1) {
    return {&c};
  } else {
    Cluster& cl = *c.cluster;
    const uint32_t even = c.rank & ~1u;
    if (even + 1 >= cl.ctas.size()) {
      m.fail(std::string(what) + ": cta_group::2 needs a CTA pair, but the cluster has " +
             std::to_string(cl.ctas.size()) + " CTA(s)");
    }
    return {cl.ctas[even].get(), cl.ctas[even + 1].get()};
  }
}

void check_tmem_columns(const Cta& c, uint32_t column, uint32_t n, const char* what) {
  if (column + n > kTmemColumns || !c.tmem.allocated(column, n)) {
    machine().fail(std::string(what) + ": tensor-memory columns [" + std::to_string(column) + ", " +
                   std::to_string(column + n) + ") of CTA rank " + std::to_string(c.rank) +
                   " are not (all) allocated");
  }
}

uint32_t tmem_scale_word(const Cta& c, uint32_t lane, uint32_t column, const std::string& what,
                         const LaunchConfig& cfg) {
  if (cfg.report_uninitialized_tmem_reads && !c.tmem.written(lane, column)) {
    machine().fail(what + ": scale factors read from tensor memory lane " + std::to_string(lane) +
                   " column " + std::to_string(column) + " of CTA rank " + std::to_string(c.rank) +
                   ", which no tcgen05.cp/mma has written");
  }
  return c.tmem.read(lane, column);
}

void run_mma(const MmaJob& job) {
  Machine& m = machine();
  const uint32_t rows_per_cta = job.m / static_cast<uint32_t>(job.ctas.size());
  const uint32_t b_rows_per_cta = job.n / static_cast<uint32_t>(job.ctas.size());
  const uint32_t elem_bits = job.kind == MmaKind::kF16 ? 16 : 4;
  const uint32_t neg_a = job.negate_a ? (elem_bits == 16 ? 0x8000u : 0x8u) : 0u;
  const uint32_t neg_b = job.negate_b ? (elem_bits == 16 ? 0x8000u : 0x8u) : 0u;
  // B (N x K) gathered once: B row n lives in CTA n / (N / #ctas).
  std::vector<uint32_t> b(job.n * job.k);
  for (uint32_t n = 0; n < job.n; ++n) {
    const Cta& src = *job.ctas[n / b_rows_per_cta];
    for (uint32_t k = 0; k < job.k; ++k) {
      b[n * job.k + k] = read_operand_element(job.b, src, n % b_rows_per_cta, k, job.what.c_str()) ^ neg_b;
    }
  }
  std::vector<uint16_t> a16(job.k), b16(job.k);
  std::vector<uint8_t> a4(job.k), b4(job.k);
  constexpr uint32_t kBlocks = arith::kNvfp4InstrK / arith::kNvfp4ScaleBlock;
  for (uint32_t ci = 0; ci < job.ctas.size(); ++ci) {
    Cta& c = *job.ctas[ci];
    for (uint32_t r = 0; r < rows_per_cta; ++r) {
      for (uint32_t k = 0; k < job.k; ++k) {
        const uint32_t v = read_operand_element(job.a, c, r, k, job.what.c_str()) ^ neg_a;
        a16[k] = static_cast<uint16_t>(v);
        a4[k] = static_cast<uint8_t>(v);
      }
      uint8_t sa[kBlocks] = {};
      if (job.kind == MmaKind::kMxf4Nvf4) {
        const uint32_t w = tmem_scale_word(c, r, job.sfa_column + r / 32, job.what, m.cfg);
        for (uint32_t j = 0; j < kBlocks; ++j) sa[j] = static_cast<uint8_t>(w >> (8 * j));
      }
      for (uint32_t n = 0; n < job.n; ++n) {
        const uint32_t col = job.d_column + n;
        const uint32_t cval = job.accumulate ? c.tmem.read(r, col) : 0u;
        if (job.accumulate && m.cfg.report_uninitialized_tmem_reads && !c.tmem.written(r, col)) {
          m.fail(job.what + ": accumulates into tensor memory lane " + std::to_string(r) + " column " +
                 std::to_string(col) + " of CTA rank " + std::to_string(c.rank) +
                 ", which nothing has written (enable_input_d should be false for the first MMA)");
        }
        uint32_t d;
        if (job.kind == MmaKind::kF16) {
          for (uint32_t k = 0; k < job.k; ++k) b16[k] = static_cast<uint16_t>(b[n * job.k + k]);
          d = arith::mma_f16_element(job.format, a16.data(), b16.data(), static_cast<int>(job.k), cval,
                                     job.accumulate);
        } else {
          for (uint32_t k = 0; k < job.k; ++k) b4[k] = static_cast<uint8_t>(b[n * job.k + k]);
          const uint32_t w = tmem_scale_word(c, n % kTmemLanes, job.sfb_column + n / 32, job.what, m.cfg);
          uint8_t sb[kBlocks];
          for (uint32_t j = 0; j < kBlocks; ++j) sb[j] = static_cast<uint8_t>(w >> (8 * j));
          d = arith::mma_nvfp4_element(a4.data(), b4.data(), sa, sb, static_cast<int>(job.k), cval,
                                       job.accumulate);
        }
        c.tmem.write(r, col, d);
      }
    }
  }
}

void issue_mma(int cta_group, MmaJob job, uint32_t d_tmem, const char* what) {
  Machine& m = machine();
  job.ctas = cta_group_members(cta_group, what);
  if (cta_group == 2 && m.cta().rank % 2 != 0) {
    m.fail(std::string(what) + ": cta_group::2 MMA issued by an odd CTA; the even CTA of the pair issues it");
  }
  const uint32_t expected_m = cta_group == 1 ? 128u : 256u;
  if (job.m != expected_m) {
    m.fail(std::string(what) + ": instruction descriptor M = " + std::to_string(job.m) +
           "; the emulator models M = " + std::to_string(expected_m) +
           " for cta_group::" + std::to_string(cta_group));
  }
  if (job.n == 0 || job.n % 16 != 0 || job.n > 256) {
    m.fail(std::string(what) + ": instruction descriptor N = " + std::to_string(job.n) +
           " is not a multiple of 16 in [16, 256] (PTX ISA tcgen05 shape table for this M)");
  }
  if (tmem_lane(d_tmem) != 0) m.fail(std::string(what) + ": the D tensor-memory address must be at lane 0");
  job.d_column = tmem_column(d_tmem);
  for (Cta* c : job.ctas) check_tmem_columns(*c, job.d_column, job.n, what);
  if (job.kind == MmaKind::kMxf4Nvf4) {
    for (Cta* c : job.ctas) {
      check_tmem_columns(*c, job.sfa_column, 4, what);
      check_tmem_columns(*c, job.sfb_column, (job.n + 31) / 32, what);
    }
  }
  job.what = std::string(what) + " into tensor memory column " + std::to_string(job.d_column) + m.where();
  AsyncOp op;
  op.queue = &m.thread();
  op.what = job.what;
  for (Cta* c : job.ctas) op.tmem_writes.push_back({c, 0, kTmemLanes, job.d_column, job.d_column + job.n});
  op.run = [job] { run_mma(job); };
  m.post_async(std::move(op));
}

void issue_commit(uint32_t bar, uint16_t cta_mask, bool multicast) {
  Machine& m = machine();
  m.on_call();
  const char* what = multicast ? "tcgen05.commit.multicast::cluster" : "tcgen05.commit";
  Cluster& cl = *m.cta().cluster;
  std::vector<SharedLocation> targets;
  if (multicast) {
    for (uint32_t rank = 0; rank < kMaxClusterSize; ++rank) {
      if (!(cta_mask >> rank & 1u)) continue;
      const uint32_t addr = (rank << ptx::kClusterRankAddressShift) | (bar & kSharedOffsetMask);
      targets.push_back(resolve_shared_cluster(cl, addr, kMbarrierBytes, kMbarrierBytes, what));
    }
    if (targets.empty()) m.fail(std::string(what) + ": empty cta_mask");
  } else {
    targets.push_back(resolve_shared_cluster(cl, bar, kMbarrierBytes, kMbarrierBytes, what));
  }
  AsyncOp op;
  op.queue = &m.thread();
  op.what = std::string(what) + " arriving on mbarrier " + describe_shared(bar) + m.where();
  op.run = [targets, what = op.what] {
    for (const SharedLocation& t : targets) {
      auto it = t.cta->mbarriers.find(t.offset);
      if (it == t.cta->mbarriers.end()) {
        machine().fail(what + ": no mbarrier was initialised at " +
                       describe_shared(shared_address(*t.cta, t.offset)));
      }
      const std::string err = it->second.arrive(1);
      if (!err.empty()) machine().fail(what + ": " + err);
    }
  };
  m.post_async(std::move(op));
}

void tcgen05_alloc_impl(int cta_group, uint32_t dst_smem, uint32_t ncols) {
  auto& m = detail::machine();
  m.on_call();
  if (!warp_aligned("tcgen05.alloc.sync.aligned")) return;  // the lowest lane allocates for the warp
  const char* what = "tcgen05.alloc";
  if (!detail::TensorMemory::valid_column_count(ncols)) {
    m.fail(std::string(what) + ": " + std::to_string(ncols) +
           " columns; must be a power of two in [32, 512]");
  }
  detail::SharedLocation dst = detail::resolve_shared_cta(dst_smem, detail::kTmemAddressBytes, 4, what);
  detail::cta_group_members(cta_group, what);  // validates the pair
  detail::Cta& c = m.cta();
  if (c.tmem_permit_relinquished) m.fail(std::string(what) + " after tcgen05.relinquish_alloc_permit");
  int64_t column = c.tmem.try_alloc(ncols);
  if (column < 0) {
    detail::Cta* cp = &c;
    m.block([cp, ncols] { return cp->tmem.find_free(ncols) >= 0; },
            [cp, ncols] {
              return "tcgen05.alloc of " + std::to_string(ncols) +
                     " columns waits: " + std::to_string(cp->tmem.free_columns()) +
                     " of 512 tensor-memory columns free";
            });
    column = c.tmem.try_alloc(ncols);
  }
  const uint32_t addr = detail::tmem_address(0, static_cast<uint32_t>(column));
  std::memcpy(dst.bytes(), &addr, sizeof addr);
}

void tcgen05_dealloc_impl(int cta_group, uint32_t taddr, uint32_t ncols) {
  auto& m = detail::machine();
  m.on_call();
  if (!warp_aligned("tcgen05.dealloc.sync.aligned")) return;
  detail::cta_group_members(cta_group, "tcgen05.dealloc");
  if (detail::tmem_lane(taddr) != 0) m.fail("tcgen05.dealloc: the address must be at lane 0");
  const std::string err = m.cta().tmem.dealloc(detail::tmem_column(taddr), ncols);
  if (!err.empty()) m.fail(err);
}

void tcgen05_relinquish_alloc_permit_impl() {
  auto& m = detail::machine();
  m.on_call();
  warp_aligned("tcgen05.relinquish_alloc_permit.sync.aligned");
  m.cta().tmem_permit_relinquished = true;
}

void tcgen05_mma_f16_impl(int cta_group, uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                          bool accumulate) {
  auto& m = detail::machine();
  m.on_call();
  const char* what = "tcgen05.mma.kind::f16";
  const ptx::InstrDescF16 id = ptx::decode_instr_desc_f16(idesc);
  if (id.d_format != ptx::MmaDFormat::kF32)
    m.fail(std::string(what) + ": only an f32 accumulator is modelled");
  if (static_cast<uint8_t>(id.a_format) > 1 || id.a_format != id.b_format) {
    m.fail(std::string(what) + ": A and B formats must both be f16 or both bf16");
  }
  if ((idesc & 0x7u) != 0) m.fail(std::string(what) + ": sparse MMA is not modelled");
  detail::MmaJob job;
  job.kind = detail::MmaKind::kF16;
  job.m = id.m;
  job.n = id.n;
  job.k = arith::kF16InstrK;
  job.format = id.a_format == ptx::MmaF16Format::kBF16 ? arith::F16Format::kBF16 : arith::F16Format::kF16;
  job.negate_a = id.negate_a;
  job.negate_b = id.negate_b;
  job.a = detail::decode_operand(a_desc, id.a_major == ptx::MmaMajor::kK, 16, what);
  job.b = detail::decode_operand(b_desc, id.b_major == ptx::MmaMajor::kK, 16, what);
  job.accumulate = accumulate;
  detail::issue_mma(cta_group, std::move(job), d_tmem, what);
}

void tcgen05_mma_mxf4nvf4_impl(int cta_group, uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                               uint32_t idesc, uint32_t sfa_tmem, uint32_t sfb_tmem, bool accumulate) {
  auto& m = detail::machine();
  m.on_call();
  const char* what = "tcgen05.mma.kind::mxf4nvf4.block16";
  const ptx::InstrDescMxf4Nvf4 id = ptx::decode_instr_desc_mxf4nvf4(idesc);
  if (id.a_format != ptx::MmaF4Format::kE2M1 || id.b_format != ptx::MmaF4Format::kE2M1) {
    m.fail(std::string(what) + ": A and B formats must be E2M1");
  }
  if (id.scale_format != ptx::MmaScaleFormat::kUE4M3 || id.sfa_id != 0 || id.sfb_id != 0) {
    m.fail(std::string(what) + ": block16 needs UE4M3 scales and scale factor ids 0");
  }
  if (id.a_major != ptx::MmaMajor::kK || id.b_major != ptx::MmaMajor::kK) {
    m.fail(std::string(what) + ": 4-bit operands must be K-major");
  }
  if ((idesc >> 2 & 1u) != 0) m.fail(std::string(what) + ": sparse MMA is not modelled");
  if (detail::tmem_lane(sfa_tmem) != 0 || detail::tmem_lane(sfb_tmem) != 0) {
    m.fail(std::string(what) + ": scale-factor tensor-memory addresses must be at lane 0");
  }
  detail::MmaJob job;
  job.kind = detail::MmaKind::kMxf4Nvf4;
  job.m = id.m;
  job.n = id.n;
  job.k = arith::kNvfp4InstrK;
  job.negate_a = id.negate_a;
  job.negate_b = id.negate_b;
  job.a = detail::decode_operand(a_desc, true, 4, what);
  job.b = detail::decode_operand(b_desc, true, 4, what);
  job.sfa_column = detail::tmem_column(sfa_tmem);
  job.sfb_column = detail::tmem_column(sfb_tmem);
  job.accumulate = accumulate;
  detail::issue_mma(cta_group, std::move(job), d_tmem, what);
}

void tcgen05_cp_impl(int cta_group, ptx::TmemCopyShape shape, uint32_t taddr, uint64_t s_desc) {
  auto& m = detail::machine();
  m.on_call();
  const char* what =
      shape == ptx::TmemCopyShape::k32x128bWarpx4 ? "tcgen05.cp.32x128b.warpx4" : "tcgen05.cp.128x128b";
  if (shape != ptx::TmemCopyShape::k32x128bWarpx4 && shape != ptx::TmemCopyShape::k128x128b) {
    m.fail("tcgen05.cp: only the .32x128b.warpx4 and .128x128b shapes are modelled by the emulator");
  }
  const uint32_t rows = shape == ptx::TmemCopyShape::k32x128bWarpx4 ? 32 : 128;
  constexpr uint32_t kRowBytes = 16;  // 128 bits
  constexpr uint32_t kColumns = kRowBytes / 4;
  if (detail::tmem_lane(taddr) != 0)
    m.fail(std::string(what) + ": the tensor-memory address must be at lane 0");
  const uint32_t column = detail::tmem_column(taddr);
  const std::vector<detail::Cta*> ctas = detail::cta_group_members(cta_group, what);
  for (detail::Cta* c : ctas) detail::check_tmem_columns(*c, column, kColumns, what);
  const detail::SmemOperand src = detail::decode_operand(s_desc, true, 8, what);
  detail::AsyncOp op;
  op.queue = &m.thread();
  op.what = std::string(what) + " to tensor memory column " + std::to_string(column) + m.where();
  for (detail::Cta* c : ctas) op.tmem_writes.push_back({c, 0, detail::kTmemLanes, column, column + kColumns});
  op.run = [ctas, src, column, rows, what = op.what] {
    for (detail::Cta* c : ctas) {
      for (uint32_t row = 0; row < rows; ++row) {
        uint32_t words[kColumns] = {};
        for (uint32_t byte = 0; byte < kRowBytes; ++byte) {
          words[byte / 4] |= detail::read_operand_element(src, *c, row, byte, what.c_str())
                             << (8 * (byte % 4));
        }
        // .warpx4: the 32 rows are replicated into each of the four 32-lane quarters.
        for (uint32_t lane = row; lane < detail::kTmemLanes; lane += rows) {
          for (uint32_t w = 0; w < kColumns; ++w) c->tmem.write(lane, column + w, words[w]);
        }
      }
    }
  };
  m.post_async(std::move(op));
}

void tcgen05_ld_32x32b_impl(uint32_t taddr, uint32_t* out, uint32_t n) {
  auto& m = detail::machine();
  m.on_call();
  const char* what = "tcgen05.ld.32x32b";
  warp_aligned("tcgen05.ld.sync.aligned.32x32b");
  detail::Thread& t = m.thread();
  detail::Cta& c = *t.cta;
  // Both seeds address the odd CTA's accumulator rows as lanes 128 + ... (tmem_row = cta_rank * 128 +
  // warp * 32) and ran correctly on B200: the lane field is taken modulo the 128 lanes of a CTA.
  const uint32_t base_lane = detail::tmem_lane(taddr) % detail::kTmemLanes;
  const uint32_t quarter = detail::kTmemLanesPerWarp * (t.warp % 4);
  if (base_lane != quarter) {
    m.fail(std::string(what) + ": warp " + std::to_string(t.warp) + " may access tensor-memory lanes " +
           std::to_string(quarter) + ".." + std::to_string(quarter + 31) + " only (warp % 4 = " +
           std::to_string(t.warp % 4) + "), but the address names lane " + std::to_string(base_lane));
  }
  const uint32_t column = detail::tmem_column(taddr);
  detail::check_tmem_columns(c, column, n, what);
  const uint32_t lane = base_lane + t.lane;
  if (const detail::AsyncOp* w = m.pending_tmem_writer(&c, lane, lane + 1, column, column + n)) {
    m.fail(std::string(what) + ": reads tensor memory lane " + std::to_string(lane) + " columns [" +
           std::to_string(column) + ", " + std::to_string(column + n) +
           ") that an uncompleted asynchronous operation still writes (missing wait on its tcgen05.commit "
           "barrier?): " +
           w->what);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (m.cfg.report_uninitialized_tmem_reads && !c.tmem.written(lane, column + i)) {
      m.fail(std::string(what) + ": reads tensor memory lane " + std::to_string(lane) + " column " +
             std::to_string(column + i) +
             " that no tcgen05.mma/cp has written since allocation (missing wait "
             "on the MMA's commit barrier?)");
    }
    out[i] = c.tmem.read(lane, column + i);
  }
}

}  // namespace detail

void tcgen05_fence_before_thread_sync() {
  detail::machine().on_call();
}
void tcgen05_fence_after_thread_sync() {
  detail::machine().on_call();
}

void tcgen05_wait_ld() {
  detail::machine().on_call();
  warp_aligned("tcgen05.wait::ld.sync.aligned");
}

}  // namespace bwgemm::emu
