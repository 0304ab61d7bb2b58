// tcgen05 kind::f16 GEMM microkernels with seed 004's constants (1-CTA and 2-CTA), exact against an fp32
// reference on small-integer data; and the deliberately broken variants whose emulator reports the tests
// assert on: a wrong expect_tx byte count, a missing wait before reading tensor memory, a wrong swizzle mode.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <bwgemm/formats/fp16.cuh>

#include "f16_gemm_microkernel.hpp"

namespace {

using namespace f16_gemm;

struct Problem {
  int m, n, k;
  std::vector<uint16_t> a, b;  // fp16 bits, A: M x K, B: K x N, row-major
  std::vector<float> want;
  Problem(int m_, int n_, int k_)
      : m(m_), n(n_), k(k_), a(size_t(m_) * k_), b(size_t(k_) * n_), want(size_t(m_) * n_) {
    uint32_t s = 12345;
    auto small = [&s] {
      s = s * 1103515245u + 12345u;
      return float(int((s >> 16) % 5) - 2);  // -2..2: every product and sum exact in fp32
    };
    std::vector<float> af(a.size()), bf(b.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = bwgemm::f32_to_f16_bits(af[i] = small());
    for (size_t i = 0; i < b.size(); ++i) b[i] = bwgemm::f32_to_f16_bits(bf[i] = small());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        float acc = 0;
        for (int q = 0; q < k; ++q) acc += af[size_t(i) * k + q] * bf[size_t(q) * n + j];
        want[size_t(i) * n + j] = acc;
      }
  }
};

template <int CtaGroup>
bwgemm::emu::EmuResult run(const Problem& p, std::vector<float>* c, Faults faults = {}, uint32_t delay = 0) {
  using S = Shape<CtaGroup>;
  CUtensorMap a_map, b_map;
  EXPECT_TRUE(make_tmap_128b_fp16(&a_map, p.a.data(), p.m, p.k, kBlockM, kBlockK).ok());
  EXPECT_TRUE(make_tmap_128b_fp16(&b_map, p.b.data(), p.k, p.n, kBlockK, S::kBnPerCta).ok());
  c->assign(size_t(p.m) * p.n, -1.0f);
  bwgemm::emu::LaunchConfig cfg;
  cfg.grid = {uint32_t(p.n / S::kBlockN * CtaGroup), uint32_t(p.m / (kBlockM * CtaGroup)), 1};
  cfg.block = {kThreads, 1, 1};
  cfg.cluster = {CtaGroup, 1, 1};
  cfg.dynamic_smem_bytes = S::kSmemBytes;
  cfg.max_resident_clusters = 2;
  cfg.max_async_delay_steps = delay;
  return bwgemm::emu::launch(cfg, f16_gemm_kernel<CtaGroup>, a_map, b_map, c->data(), p.n, p.k, faults);
}

TEST(EmuF16Gemm, SingleCtaSeed004ConstantsGiveTheReference) {
  const Problem p(256, 128, 256);
  std::vector<float> c;
  const auto r = run<1>(p, &c);
  ASSERT_TRUE(r.ok) << r.message;
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], p.want[i]) << "element " << i;
}

TEST(EmuF16Gemm, CtaPairSeed004ConstantsGiveTheReference) {
  const Problem p(256, 256, 128);
  std::vector<float> c;
  const auto r = run<2>(p, &c);
  ASSERT_TRUE(r.ok) << r.message;
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], p.want[i]) << "element " << i;
}

TEST(EmuF16Gemm, CtaPairUnderRandomAsyncDelaysGivesTheReference) {
  const Problem p(256, 128, 192);
  std::vector<float> c;
  const auto r = run<2>(p, &c, {}, 40);
  ASSERT_TRUE(r.ok) << r.message;
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], p.want[i]) << "element " << i;
}

// Broken kernel 1: the producer expects 16 bytes more than its TMA loads deliver. Every phase of the
// stage barrier keeps a tx-count of 16; the deadlock report names that barrier and its state.
TEST(EmuF16GemmBroken, WrongExpectTxByteCountDeadlocksAndTheReportNamesTheBarrier) {
  const Problem p(128, 64, 128);
  std::vector<float> c;
  Faults f;
  f.expect_tx_delta = 16;
  const auto r = run<1>(p, &c, f);
  ASSERT_FALSE(r.ok);
  const std::string& m = r.message;
  const uint32_t tma_bar0 = bwgemm::emu::kSharedWindowBase + Shape<1>::kBarOffset;
  char bar[32];
  std::snprintf(bar, sizeof bar, "mbarrier 0x%x", tma_bar0);
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find(std::string("warp 5 lane 0: mbarrier.try_wait.parity on ") + bar), std::string::npos) << m;
  EXPECT_NE(m.find("pending arrivals 0 of 1, tx-count 16"), std::string::npos) << m;
}

// Broken kernel 2: the epilogue reads the accumulator without waiting for the MMA's commit barrier.
TEST(EmuF16GemmBroken, MissingWaitBeforeReadingTensorMemoryIsReported) {
  const Problem p(128, 64, 128);
  std::vector<float> c;
  Faults f;
  f.skip_epilogue_wait = true;
  for (uint32_t delay : {0u, 30u}) {
    const auto r = run<1>(p, &c, f, delay);
    ASSERT_FALSE(r.ok) << "delay " << delay;
    EXPECT_NE(r.message.find("tcgen05.ld.32x32b: reads tensor memory lane"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("missing wait"), std::string::npos) << r.message;
  }
}

// Broken kernel 3: A's descriptor says 64B swizzle while TMA wrote 128B-swizzled tiles: the kernel runs,
// the emulated MMA reads the wrong elements, and the result differs from the reference.
TEST(EmuF16GemmBroken, WrongSwizzleModeInTheDescriptorGivesAWrongResult) {
  const Problem p(128, 64, 64);
  std::vector<float> c;
  Faults f;
  f.a_desc_swizzle_override = 4;  // SmemSwizzle::k64B
  const auto r = run<1>(p, &c, f);
  ASSERT_TRUE(r.ok) << r.message;
  size_t wrong = 0;
  for (size_t i = 0; i < c.size(); ++i) wrong += c[i] != p.want[i];
  EXPECT_GT(wrong, c.size() / 2) << "a wrong swizzle mode must corrupt most of the result";
}

}  // namespace
