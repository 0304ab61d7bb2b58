// The NVFP4 tcgen05 GEMM microkernel with seed 000's constants (CTA pair and single CTA), exact against an
// fp32 reference on data where every product and partial sum is exact (e2m1 values with power-of-two e4m3
// scales).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <bwgemm/formats/formats.cuh>

#include "nvfp4_gemm_microkernel.hpp"

namespace {

using namespace nvfp4_gemm;

struct Problem {
  int m, n, k;
  std::vector<uint8_t> a, b;      // packed e2m1, element 2i in the low nibble
  std::vector<uint8_t> sfa, sfb;  // blocked 128x4 layout
  std::vector<float> want;

  Problem(int m_, int n_, int k_) : m(m_), n(n_), k(k_) {
    uint32_t s = 777;
    auto next = [&s] { return s = s * 1664525u + 1013904223u; };
    const float values[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, -0.5f, -1.0f, -2.0f};
    const float scales[] = {0.5f, 1.0f, 2.0f, 4.0f};
    auto fill = [&](int rows, std::vector<uint8_t>& packed, std::vector<uint8_t>& blocked,
                    std::vector<float>& dq) {
      packed.assign(size_t(rows) * k / 2, 0);
      std::vector<uint8_t> plain(size_t(rows) * (k / 16));
      for (auto& p : plain) p = bwgemm::e4m3_encode(scales[(next() >> 8) % 4]);
      dq.assign(size_t(rows) * k, 0.0f);
      for (int r = 0; r < rows; ++r)
        for (int q = 0; q < k; ++q) {
          const uint8_t code = bwgemm::e2m1_encode(values[(next() >> 8) % 8]);
          packed[(size_t(r) * k + q) / 2] |= uint8_t(code << (4 * (q % 2)));
          dq[size_t(r) * k + q] =
              bwgemm::e2m1_decode(code) * bwgemm::e4m3_decode(plain[size_t(r) * (k / 16) + q / 16]);
        }
      blocked.assign(size_t(bwgemm::blocked_scale_bytes(rows, k / 16)), 0);
      bwgemm::swizzle_scales_to_blocked(plain.data(), rows, k / 16, 1, blocked.data());
    };
    std::vector<float> adq, bdq;
    fill(m, a, sfa, adq);
    fill(n, b, sfb, bdq);
    want.assign(size_t(m) * n, 0.0f);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int q = 0; q < k; ++q) acc += adq[size_t(i) * k + q] * bdq[size_t(j) * k + q];
        want[size_t(i) * n + j] = acc;
      }
  }
};

template <int CtaGroup = 2>
bwgemm::emu::EmuResult run(const Problem& p, std::vector<float>* c, uint32_t delay = 0) {
  CUtensorMap a_map, b_map, sfa_map, sfb_map;
  EXPECT_TRUE(make_ab_tmap(&a_map, p.a.data(), p.m, p.k, kBlockM).ok());
  EXPECT_TRUE(make_ab_tmap(&b_map, p.b.data(), p.n, p.k, Shape<CtaGroup>::kBRows).ok());
  EXPECT_TRUE(make_sf_tmap(&sfa_map, p.sfa.data(), p.m, p.k).ok());
  EXPECT_TRUE(make_sf_tmap(&sfb_map, p.sfb.data(), p.n, p.k).ok());
  c->assign(size_t(p.m) * p.n, -1.0f);
  bwgemm::emu::LaunchConfig cfg;
  cfg.grid = {uint32_t((p.m / kBlockM) * (p.n / kBlockN)), 1, 1};
  cfg.block = {kThreads, 1, 1};
  cfg.cluster = {CtaGroup, 1, 1};
  cfg.dynamic_smem_bytes = Shape<CtaGroup>::kSmemBytes;
  cfg.max_resident_clusters = 2;
  cfg.max_async_delay_steps = delay;
  return bwgemm::emu::launch(cfg, nvfp4_gemm_kernel<CtaGroup>, a_map, b_map, sfa_map, sfb_map, c->data(), p.n,
                             p.k);
}

// N = 128 covers both values of the scale_B column offset (cluster_n = 0 and 1 share one SFB atom).
TEST(EmuNvfp4Gemm, CtaPairSeed000ConstantsGiveTheReference) {
  const Problem p(256, 128, 512);
  std::vector<float> c;
  const auto r = run(p, &c);
  ASSERT_TRUE(r.ok) << r.message;
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], p.want[i]) << "element " << i;
}

// One CTA (cta_group::1, M = 128) with the same descriptor constants: idesc M field 1 at bit 27, SFA 4
// columns per K step, no split of B, no multicast.
TEST(EmuNvfp4Gemm, SingleCtaSeed000ConstantsGiveTheReference) {
  const Problem p(256, 128, 512);
  std::vector<float> c;
  const auto r = run<1>(p, &c);
  ASSERT_TRUE(r.ok) << r.message;
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], p.want[i]) << "element " << i;
}

TEST(EmuNvfp4Gemm, RandomAsyncDelaysGiveTheSameResult) {
  const Problem p(256, 64, 512);
  std::vector<float> c;
  const auto r = run(p, &c, 60);
  ASSERT_TRUE(r.ok) << r.message;
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], p.want[i]) << "element " << i;
}

}  // namespace
