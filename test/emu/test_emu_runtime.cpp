// The emulator's execution model: special registers, warp collectives, CTA and cluster barriers, shared
// memory and cluster addressing, mbarrier semantics and misuse reports, deadlock reports, resident clusters.
// Every kernel here is written against the bwgemm::ptx wrappers, as library kernels are.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include <bwgemm/emu/backend.hpp>
#include <bwgemm/epilogue/functors.cuh>
#include <bwgemm/ptx/cluster.cuh>
#include <bwgemm/ptx/global.cuh>
#include <bwgemm/ptx/mbarrier.cuh>
#include <bwgemm/ptx/misc.cuh>
#include <bwgemm/reference/activations.hpp>

namespace {

using bwgemm::emu::EmuResult;
using bwgemm::emu::LaunchConfig;
namespace ptx = bwgemm::ptx;

LaunchConfig config(ptx::Dim3 grid, ptx::Dim3 block, ptx::Dim3 cluster = {1, 1, 1}, uint32_t smem = 0,
                    uint32_t resident = 1) {
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.cluster = cluster;
  cfg.dynamic_smem_bytes = smem;
  cfg.max_resident_clusters = resident;
  return cfg;
}

struct ThreadRecord {
  ptx::Dim3 tid, ctaid, cluster_ctaid, clusterid;
  uint32_t rank, lane, warp, smid;
};

__global__ void record_registers(ThreadRecord* out) {
  const ptx::Dim3 t = ptx::thread_idx();
  const ptx::Dim3 b = ptx::block_idx();
  const ptx::Dim3 nt = ptx::block_dim();
  const ptx::Dim3 nb = ptx::grid_dim();
  const uint32_t cta = b.x + nb.x * (b.y + nb.y * b.z);
  const uint32_t tid = t.x + nt.x * (t.y + nt.y * t.z);
  ThreadRecord& r = out[cta * (nt.x * nt.y * nt.z) + tid];
  r = {t,
       b,
       ptx::cluster_cta_id(),
       ptx::cluster_id(),
       ptx::cluster_ctarank(),
       ptx::lane_idx(),
       ptx::warp_idx(),
       ptx::sm_id()};
}

TEST(EmuRuntime, SpecialRegistersDescribeGridClusterAndThread) {
  // grid 4x2 CTAs in clusters of 2x1, block 40x2 threads (80 threads: warps 0..2, the last partial).
  const LaunchConfig cfg = config({4, 2, 1}, {40, 2, 1}, {2, 1, 1}, 0, 2);
  std::vector<ThreadRecord> rec(8 * 80);
  const EmuResult r = bwgemm::emu::launch(cfg, record_registers, rec.data());
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t by = 0; by < 2; ++by) {
    for (uint32_t bx = 0; bx < 4; ++bx) {
      for (uint32_t ty = 0; ty < 2; ++ty) {
        for (uint32_t tx = 0; tx < 40; ++tx) {
          const uint32_t linear = ty * 40 + tx;
          const ThreadRecord& q = rec[(by * 4 + bx) * 80 + linear];
          EXPECT_EQ(q.tid.x, tx);
          EXPECT_EQ(q.tid.y, ty);
          EXPECT_EQ(q.ctaid.x, bx);
          EXPECT_EQ(q.ctaid.y, by);
          EXPECT_EQ(q.cluster_ctaid.x, bx % 2);
          EXPECT_EQ(q.rank, bx % 2);
          EXPECT_EQ(q.clusterid.x, bx / 2);
          EXPECT_EQ(q.clusterid.y, by);
          EXPECT_EQ(q.lane, linear % 32);
          EXPECT_EQ(q.warp, linear / 32);
          EXPECT_LT(q.smid, 4u);  // 2 resident clusters x 2 CTAs
        }
      }
    }
  }
}

__global__ void elect_and_shuffle(uint32_t* elected, uint32_t* shuffled) {
  const uint32_t tid = ptx::thread_idx().x;
  if (ptx::elect_one_sync()) elected[tid / 32] += 1 + tid % 32 * 100;  // lane 0 elected: +1
  // Rotate values by one lane.
  shuffled[tid] = ptx::shfl_sync<uint32_t>(0xFFFFFFFFu, tid * 3, (ptx::lane_idx() + 1) % 32);
}

TEST(EmuRuntime, ElectPicksOneLaneAndShuffleMovesValues) {
  std::vector<uint32_t> elected(2), shuffled(64);
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {64, 1, 1}), elect_and_shuffle, elected.data(), shuffled.data());
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(elected[0], 1u);
  EXPECT_EQ(elected[1], 1u);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(shuffled[t], ((t / 32) * 32 + (t + 1) % 32) * 3) << t;
}

__global__ void syncthreads_publish(uint32_t* out) {
  auto* smem = static_cast<uint32_t*>(ptx::dynamic_smem_ptr());
  const uint32_t tid = ptx::thread_idx().x;
  smem[tid] = tid * 7;
  ptx::sync_threads();
  out[tid] = smem[(tid + 1) % 128];
}

TEST(EmuRuntime, SyncThreadsOrdersSharedMemoryWrites) {
  std::vector<uint32_t> out(128);
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {128, 1, 1}, {1, 1, 1}, 512), syncthreads_publish, out.data());
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(out[t], (t + 1) % 128 * 7);
}

// Warps 0-1 produce, then bar.arrive 1; warps 2-3 bar.sync 1 and consume (a 128-thread named barrier).
__global__ void named_barrier_handoff(uint32_t* out) {
  auto* smem = static_cast<uint32_t*>(ptx::dynamic_smem_ptr());
  const uint32_t tid = ptx::thread_idx().x;
  if (tid < 64) {
    smem[tid] = tid + 1000;
    ptx::named_barrier_arrive(1, 128);
  } else {
    ptx::named_barrier_sync(1, 128);
    out[tid - 64] = smem[tid - 64];
  }
}

TEST(EmuRuntime, NamedBarrierArriveReleasesSyncingWarps) {
  std::vector<uint32_t> out(64);
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {128, 1, 1}, {1, 1, 1}, 256), named_barrier_handoff, out.data());
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], t + 1000);
}

// Each CTA writes its rank into the peer's shared memory through a shared::cluster address (mapa), then a
// cluster barrier; each reads what the peer wrote. Also checks the even-CTA address trick (bit 24).
__global__ void cluster_exchange(uint32_t* out, uint32_t* addresses) {
  const uint32_t rank = ptx::cluster_ctarank();
  const uint32_t base = ptx::dynamic_smem_base();
  const uint32_t tid = ptx::thread_idx().x;
  if (tid == 0) {
    const uint32_t peer = ptx::mapa_shared_cluster(base, rank ^ 1u);
    *static_cast<uint32_t*>(ptx::shared_address_to_pointer(peer)) = 100 + rank;
    addresses[rank] = base;
    addresses[2 + rank] = ptx::even_cta_address(base);
  }
  ptx::cluster_sync();
  if (tid == 0) out[ptx::block_idx().x] = *static_cast<uint32_t*>(ptx::dynamic_smem_ptr());
  ptx::cluster_sync();
}

TEST(EmuRuntime, ClusterAddressingReachesThePeerCta) {
  std::vector<uint32_t> out(4), addresses(4);
  const EmuResult r = bwgemm::emu::launch(config({4, 1, 1}, {64, 1, 1}, {2, 1, 1}, 64, 1), cluster_exchange,
                                          out.data(), addresses.data());
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(out[0], 101u);
  EXPECT_EQ(out[1], 100u);
  EXPECT_EQ(out[2], 101u);
  EXPECT_EQ(out[3], 100u);
  EXPECT_EQ(addresses[0], bwgemm::emu::kSharedWindowBase);
  EXPECT_EQ(addresses[1], bwgemm::emu::kSharedWindowBase | (1u << 24));
  EXPECT_EQ(addresses[3], addresses[0]);  // rank 1's address with bit 24 cleared names rank 0's object
}

// Each CTA of a cluster of 4 writes 4 floats (rank-dependent) into its own shared memory; after a cluster
// barrier each reads every CTA's floats with ld.shared::cluster.v4.f32 through mapa; a misaligned address
// and a rank past the cluster are refused.
__global__ void cluster_vector_reads(float* out) {
  const uint32_t rank = ptx::cluster_ctarank();
  const uint32_t base = ptx::dynamic_smem_base();
  auto* mine = static_cast<float*>(ptx::dynamic_smem_ptr());
  if (ptx::thread_idx().x == 0) {
    for (int i = 0; i < 4; ++i) mine[i] = 10.0f * static_cast<float>(rank) + static_cast<float>(i);
  }
  ptx::cluster_sync();
  if (ptx::thread_idx().x == 0) {
    for (uint32_t r = 0; r < 4; ++r) {
      const ptx::Float4 v = ptx::ld_shared_cluster_v4_f32(ptx::mapa_shared_cluster(base, r));
      float* o = out + (ptx::block_idx().x * 4 + r) * 4;
      o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
    }
  }
  ptx::cluster_sync();
}

TEST(EmuRuntime, ClusterVectorLoadsReadEveryPeer) {
  std::vector<float> out(4 * 4 * 4, -1.0f);
  const EmuResult r =
      bwgemm::emu::launch(config({4, 1, 1}, {32, 1, 1}, {4, 1, 1}, 64, 1), cluster_vector_reads, out.data());
  ASSERT_TRUE(r.ok) << r.message;
  for (int cta = 0; cta < 4; ++cta)
    for (int peer = 0; peer < 4; ++peer)
      for (int i = 0; i < 4; ++i)
        EXPECT_EQ(out[(cta * 4 + peer) * 4 + i], 10.0f * static_cast<float>(peer) + static_cast<float>(i))
            << "CTA " << cta << " reading rank " << peer;
}

__global__ void cluster_vector_read_misaligned(float* out) {
  const ptx::Float4 v = ptx::ld_shared_cluster_v4_f32(ptx::dynamic_smem_base() + 4);
  out[0] = v.x;
}

TEST(EmuRuntime, ClusterVectorLoadRefusesAMisalignedAddress) {
  std::vector<float> out(1);
  const EmuResult r = bwgemm::emu::launch(config({1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 64),
                                          cluster_vector_read_misaligned, out.data());
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("ld.shared::cluster.v4.f32"), std::string::npos) << r.message;
}

// The packed conversions on hand-worked bit patterns (IEEE binary16 and bfloat16, round to nearest even): one
// thread converts pairs and stores them with one 256-bit store; a misaligned 256-bit store is refused.
__global__ void packed_conversions(uint32_t* out, const float* in, int pairs) {
  uint32_t v[8];
  for (int i = 0; i < pairs; ++i) v[i] = ptx::cvt_rn_f16x2_f32(in[2 * i], in[2 * i + 1]);
  ptx::st_global_256<ptx::L1Store::kNoAllocate>(out, v);
  for (int i = 0; i < pairs; ++i) v[i] = ptx::cvt_rn_bf16x2_f32(in[2 * i], in[2 * i + 1]);
  ptx::st_global_256(out + 8, v);
}

TEST(EmuRuntime, PackedConversionsRoundToNearestEven) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // (lo, hi) pairs; expected words worked out by hand from the formats (lo in bits 0-15).
  const std::vector<float> in = {
      1.0f,
      -2.0f,  // f16 0x3C00, 0xC000   bf16 0x3F80, 0xC000
      65504.0f,
      65520.0f,  // f16 max 0x7BFF, rounds to inf 0x7C00   bf16 0x4780 (0x477FE000 rounds up), 0x4780
      std::ldexp(1.0f, -24),
      std::ldexp(1.0f, -25),  // f16 smallest subnormal 0x0001, tie to even 0x0000   bf16 0x3380, 0x3300
      std::ldexp(3.0f, -25),
      1.0f +
          std::ldexp(1.0f, -11),  // f16 0x0002 (tie up to even), 0x3C00 (tie to even)   bf16 0x33C0, 0x3F80
      1.0f + std::ldexp(3.0f, -11),
      1.0f + std::ldexp(1.0f, -8),  // f16 0x3C02 (tie up), 0x3C04   bf16 0x3F80, 0x3F80 (tie to even)
      1.0f + std::ldexp(3.0f, -8),
      -inf,  // f16 0x3C0C, 0xFC00   bf16 0x3F82 (tie up), 0xFF80
      nan,
      0.0f,  // f16 0x7FFF, 0x0000   bf16 0x7FFF, 0x0000
      -0.0f,
      1e-40f,  // f16 0x8000, 0x0000   bf16 0x8000, 1e-40 = 0x000116C2 -> 0x0001
  };
  const uint32_t want_f16[8] = {0xC0003C00u, 0x7C007BFFu, 0x00000001u, 0x3C000002u,
                                0x3C043C02u, 0xFC003C0Cu, 0x00007FFFu, 0x00008000u};
  const uint32_t want_bf16[8] = {0xC0003F80u, 0x47804780u, 0x33003380u, 0x3F8033C0u,
                                 0x3F803F80u, 0xFF803F82u, 0x00007FFFu, 0x00018000u};
  alignas(32) uint32_t out[16] = {};
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {1, 1, 1}), packed_conversions, out, in.data(), 8);
  ASSERT_TRUE(r.ok) << r.message;
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(out[i], want_f16[i]) << "f16 pair " << i << ": 0x" << std::hex << out[i];
    EXPECT_EQ(out[8 + i], want_bf16[i]) << "bf16 pair " << i << ": 0x" << std::hex << out[8 + i];
  }
}

// The same conversions against CUDA's own host conversions (cuda_fp16.h / cuda_bf16.h, an independent
// implementation) on 2^16 bit patterns spread over every exponent, both signs, subnormals, infinities, NaNs.
__global__ void convert_many(uint32_t* f16, uint32_t* bf16, const float* in, int pairs) {
  for (int i = 0; i < pairs; ++i) {
    f16[i] = ptx::cvt_rn_f16x2_f32(in[2 * i], in[2 * i + 1]);
    bf16[i] = ptx::cvt_rn_bf16x2_f32(in[2 * i], in[2 * i + 1]);
  }
}

TEST(EmuRuntime, PackedConversionsMatchTheToolkitsHostConversions) {
  std::vector<float> in(1 << 16);
  uint32_t state = 12345u;
  for (size_t i = 0; i < in.size(); ++i) {
    state = state * 1664525u + 1013904223u;  // every bit pattern is as likely: all exponents, NaNs included
    uint32_t bits = state;
    if (i % 4 == 1)
      bits = (bits & 0x80001FFFu) | 0x38000000u | ((state >> 13) & 0x07800000u);  // near f16 range
    std::memcpy(&in[i], &bits, sizeof(bits));
  }
  const int pairs = static_cast<int>(in.size() / 2);
  std::vector<uint32_t> f16(pairs), bf16(pairs);
  const EmuResult r = bwgemm::emu::launch(config({1, 1, 1}, {1, 1, 1}), convert_many, f16.data(), bf16.data(),
                                          in.data(), pairs);
  ASSERT_TRUE(r.ok) << r.message;
  int checked = 0;
  for (int i = 0; i < pairs; ++i) {
    for (int h = 0; h < 2; ++h) {
      const float x = in[2 * i + h];
      const uint16_t got_h = static_cast<uint16_t>(f16[i] >> (16 * h)),
                     got_b = static_cast<uint16_t>(bf16[i] >> (16 * h));
      if (std::isnan(x)) {  // the instructions give the canonical NaN; the host functions keep a NaN
        EXPECT_EQ(got_h, 0x7FFF);
        EXPECT_EQ(got_b, 0x7FFF);
        continue;
      }
      ASSERT_EQ(got_h, __half_as_ushort(__float2half_rn(x))) << "f16 of " << x;
      ASSERT_EQ(got_b, __bfloat16_as_ushort(__float2bfloat16_rn(x))) << "bf16 of " << x;
      ++checked;
    }
  }
  EXPECT_GT(checked, 60000);
}

// The gated activations (epilogue/functors.cuh) against their double-precision references
// (reference/activations.hpp) over gate, up in [-12, 12] (past gpt-oss's clamp limit of 7 on both sides):
// |d| <= 1e-5 · (|ref| + |up|) + 1e-6, i.e. a few fp32 ulps of the approximations' relative error.
template <class F>
__global__ void apply_functor(const F f, float* out, const float* gate, const float* up, int n) {
  for (int i = 0; i < n; ++i) out[i] = f(gate[i], up[i]);
}

template <class F, class Ref>
void check_functor(const F& f, const Ref& ref, const char* what) {
  std::vector<float> gate, up;
  for (int i = -96; i <= 96; ++i)
    for (int j = -24; j <= 24; j += 3) {
      gate.push_back(static_cast<float>(i) / 8.0f);
      up.push_back(static_cast<float>(j) / 2.0f);
    }
  std::vector<float> out(gate.size());
  const EmuResult r = bwgemm::emu::launch(config({1, 1, 1}, {1, 1, 1}), apply_functor<F>, f, out.data(),
                                          gate.data(), up.data(), static_cast<int>(gate.size()));
  ASSERT_TRUE(r.ok) << r.message;
  for (size_t i = 0; i < out.size(); ++i) {
    const double want = ref(gate[i], up[i]);
    ASSERT_NEAR(out[i], want, 1e-5 * (std::fabs(want) + std::fabs(up[i])) + 1e-6)
        << what << " at gate " << gate[i] << ", up " << up[i];
  }
}

TEST(EmuRuntime, GatedActivationsMatchTheirReferences) {
  namespace epi = bwgemm::epi;
  namespace ref = bwgemm::ref;
  check_functor(epi::SiluMul{}, ref::silu_mul, "SiluMul");
  check_functor(
      epi::SiluMulClamped{}, [](double g, double u) { return ref::silu_mul_clamped(g, u, 7.0, 1.702); },
      "SiluMulClamped (gpt-oss)");
  check_functor(
      epi::SiluMulClamped{3.0f, 1.0f},
      [](double g, double u) { return ref::silu_mul_clamped(g, u, 3.0, 1.0); },
      "SiluMulClamped (limit 3, alpha 1)");
  check_functor(epi::GeluTanhMul{}, ref::gelu_tanh_mul, "GeluTanhMul");
  check_functor(epi::GeluErfMul{}, ref::gelu_erf_mul, "GeluErfMul");
  check_functor(epi::ReluSquaredMul{}, ref::relu2_mul, "ReluSquaredMul");
  check_functor(epi::Multiply{}, ref::multiply, "Multiply");
  // The clamped variant is not SiLU: above the limit they differ (the field's known failure mode).
  EXPECT_GT(std::fabs(ref::silu_mul_clamped(9.0, 1.0, 7.0, 1.702) - ref::silu_mul(9.0, 1.0)), 1.0);
}

__global__ void misaligned_wide_store(uint32_t* out) {
  const uint32_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ptx::st_global_256(out + 4, v);  // 16 bytes past a 32-byte boundary
}

TEST(EmuRuntime, WideStoreRefusesAMisalignedAddress) {
  alignas(32) uint32_t out[16] = {};
  const EmuResult r = bwgemm::emu::launch(config({1, 1, 1}, {1, 1, 1}), misaligned_wide_store, out);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("st.global.v8.b32"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("not 32-byte aligned"), std::string::npos) << r.message;
  for (uint32_t w : out) EXPECT_EQ(w, 0u) << "a refused store wrote memory";
}

// mbarrier phases: 4 warps arrive (one elected lane each) on a count-4 barrier twice; waiter threads see
// phases complete in order; a phase-1 wait issued first returns at once.
__global__ void mbarrier_phases(uint32_t* out) {
  const uint32_t bar = ptx::dynamic_smem_base();
  const uint32_t tid = ptx::thread_idx().x;
  const uint32_t warp = tid / 32;
  if (tid == 0) {
    ptx::mbarrier_init(bar, 4);
    ptx::fence_mbarrier_init();
  }
  ptx::sync_threads();
  ptx::mbarrier_wait_parity(bar, 1);  // the phase "before" phase 0 counts as complete
  for (uint32_t phase = 0; phase < 2; ++phase) {
    if (ptx::elect_one_sync()) {
      out[warp * 2 + phase] = 1;
      ptx::mbarrier_arrive(bar);
    }
    ptx::mbarrier_wait_parity(bar, phase);
    // Every warp's write of this phase happened before the phase completed.
    for (uint32_t w = 0; w < 4; ++w) {
      if (out[w * 2 + phase] != 1) out[8] = 1;
    }
  }
}

TEST(EmuRuntime, MbarrierPhasesCompleteAfterExpectedArrivals) {
  std::vector<uint32_t> out(9, 0);
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {128, 1, 1}, {1, 1, 1}, 64), mbarrier_phases, out.data());
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(out[8], 0u) << "a waiter passed a phase before all arrivals";
}

__global__ void mbarrier_too_many_arrivals() {
  const uint32_t bar = ptx::dynamic_smem_base();
  if (ptx::thread_idx().x == 0) {
    ptx::mbarrier_init(bar, 2);
    ptx::mbarrier_expect_tx(bar, 64);  // keeps the phase open after two arrivals
    ptx::mbarrier_arrive(bar);
    ptx::mbarrier_arrive(bar);
    ptx::mbarrier_arrive(bar);
  }
}

TEST(EmuRuntime, MbarrierReportsMoreArrivalsThanExpected) {
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 64), mbarrier_too_many_arrivals);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("more arrivals than expected"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("0x400"), std::string::npos) << r.message;
}

__global__ void mbarrier_wait_previous_parity() {
  const uint32_t bar = ptx::dynamic_smem_base();
  if (ptx::thread_idx().x == 0) {
    ptx::mbarrier_init(bar, 1);
    ptx::mbarrier_arrive_expect_tx(bar, 32);  // phase 0 now waits for 32 bytes
    ptx::mbarrier_wait_parity(bar, 1);
  }
}

TEST(EmuRuntime, WaitOnThePreviousParityReturnsAtOnce) {
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 64), mbarrier_wait_previous_parity);
  // wait(1) returns at once (phase 0 still open), the thread exits with the barrier pending: no deadlock.
  EXPECT_TRUE(r.ok) << r.message;
}

__global__ void mbarrier_never_completes(uint32_t expected_bytes) {
  const uint32_t bar = ptx::dynamic_smem_base() + 16;
  const uint32_t tid = ptx::thread_idx().x;
  if (tid == 0) ptx::mbarrier_init(bar, 1);
  ptx::sync_threads();
  if (tid / 32 == 1 && ptx::elect_one_sync()) ptx::mbarrier_arrive_expect_tx(bar, expected_bytes);
  ptx::mbarrier_wait_parity(bar, 0);
}

TEST(EmuRuntime, DeadlockReportListsEveryWarpWithBarrierState) {
  const EmuResult r =
      bwgemm::emu::launch(config({1, 1, 1}, {64, 1, 1}, {1, 1, 1}, 64), mbarrier_never_completes, 48u);
  ASSERT_FALSE(r.ok);
  const std::string& m = r.message;
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 0 lanes 0-31: mbarrier.try_wait.parity on mbarrier 0x410"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 1 lanes 0-31"), std::string::npos) << m;
  EXPECT_NE(m.find("parity 0 to complete"), std::string::npos) << m;
  EXPECT_NE(m.find("pending arrivals 0 of 1, tx-count 48"), std::string::npos) << m;
}

__global__ void out_of_range_barrier() {
  if (ptx::thread_idx().x == 0) ptx::mbarrier_init(ptx::dynamic_smem_base() + 64, 1);
}

TEST(EmuRuntime, SharedMemoryAccessOutsideTheWindowStops) {
  const EmuResult r = bwgemm::emu::launch(config({1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 64), out_of_range_barrier);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("outside the dynamic shared memory"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("thread 0 (warp 0, lane 0)"), std::string::npos) << r.message;
}

__global__ void mismatched_collectives() {
  if (ptx::lane_idx() == 0) {
    (void)ptx::elect_one_sync();
  } else {
    (void)ptx::shfl_sync<uint32_t>(0xFFFFFFFFu, 1u, 0);
  }
}

TEST(EmuRuntime, DivergentWarpCollectivesAreReported) {
  const EmuResult r = bwgemm::emu::launch(config({1, 1, 1}, {32, 1, 1}), mismatched_collectives);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("warp-collective mismatch"), std::string::npos) << r.message;
}

__global__ void elect_after_lane_exit() {
  if (ptx::lane_idx() >= 16) return;
  (void)ptx::elect_one_sync();  // membermask 0xFFFFFFFF includes the exited lanes
}

TEST(EmuRuntime, CollectiveWaitingForExitedLanesIsReported) {
  const EmuResult r = bwgemm::emu::launch(config({1, 1, 1}, {32, 1, 1}), elect_after_lane_exit);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("exited"), std::string::npos) << r.message;
}

// Persistent-style kernel: with 2 resident clusters of 2 CTAs, at most 2 clusters ever run at once, and the
// SM ids of running CTAs are distinct.
struct Occupancy {
  int running = 0;
  int max_running = 0;
  std::set<uint32_t> smids_running;
  bool smid_clash = false;
};

__global__ void occupancy_probe(Occupancy* occ) {
  const uint32_t tid = ptx::thread_idx().x;
  if (tid == 0) {
    if (!occ->smids_running.insert(ptx::sm_id()).second) occ->smid_clash = true;
    occ->max_running = std::max(occ->max_running, ++occ->running);
  }
  ptx::cluster_sync();  // everyone has registered before anyone leaves
  for (int i = 0; i < 3; ++i) ptx::sync_threads();
  ptx::cluster_sync();
  if (tid == 0) {
    occ->smids_running.erase(ptx::sm_id());
    --occ->running;
  }
}

TEST(EmuRuntime, ResidentClusterLimitBoundsConcurrency) {
  Occupancy occ;
  const EmuResult r =
      bwgemm::emu::launch(config({12, 1, 1}, {64, 1, 1}, {2, 1, 1}, 0, 2), occupancy_probe, &occ);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(occ.max_running, 4);  // 2 clusters x 2 CTAs
  EXPECT_FALSE(occ.smid_clash);
  EXPECT_EQ(occ.running, 0);
}

TEST(EmuRuntime, InvalidLaunchConfigurationIsRejected) {
  const EmuResult r = bwgemm::emu::launch(config({3, 1, 1}, {32, 1, 1}, {2, 1, 1}), out_of_range_barrier);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("multiples of the cluster"), std::string::npos) << r.message;
}

}  // namespace
