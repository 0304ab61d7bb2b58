// The 16-bit dual GEMM contract (test/contract/dual_gemm_contract.hpp) on the sm_90a kernels, natively on a
// GPU of compute capability 9.0 (H100/H200); every GPU case skips with a message elsewhere. Configs: both
// shipped tile shapes, alone and in clusters of two CTAs, with the register store path, fp16 output, and a
// non-persistent variant; plus the default entry points on realistic shapes, the choice table (host logic:
// runs everywhere) and the device/host-memory refusal.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/reference/activations.hpp"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/sm90/candidate_configs.cuh"
#include "bwgemm/sm90/dual_gemm.cuh"
#include "dual_gemm_contract.hpp"

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
using bf16 = __nv_bfloat16;
using f16 = __half;

struct Sm90 {
  template <class Cfg>
  using DualGemm = sm90::DualGemm<Cfg>;
  template <class In, class Out>
  static bwgemm::Status dual_gemm(const bwgemm::DualGemmArguments<In, Out>& args) {
    return sm90::dual_gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm90(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 9.0 (H100/H200) for sm_90a code";
};

// Clusters of two CTAs along M sharing B1/B2 through TMA multicast (both tile shapes); C from registers in
// every case (TmaStore = false; the others store C with TMA wherever N % 8 == 0 and fall back to registers
// for odd N); a non-persistent variant (one CTA per tile).
using OneTile = sm90::DualGemmConfig<128, 4, 1, bwgemm::sched::OneTilePerCluster, bwgemm::epi::SiluMul, bf16>;
using Sm90DualGemmConfigs =
    Configs<sm90::DualGemmTile128x128<bf16>, sm90::DualGemmTile128x64<bf16>,
            sm90::DualGemmTile128x128Cluster2<bf16>, sm90::DualGemmTile128x64Cluster2<bf16>,
            sm90::DualGemmTile128x128<bf16>::WithTmaStore<false>,
            sm90::DualGemmTile128x64<bf16>::WithTmaStore<false>, sm90::DualGemmTile128x128<f16>, OneTile,
            sm90::DualGemmPingPong64x128<bf16>, sm90::DualGemmPingPong64x128<f16>::WithTmaStore<false>,
            sm90::DualGemmPingPong64x96<bf16>, sm90::DualGemmPingPong64x96<f16>::WithTmaStore<false>,
            sm90::DualGemmTile128x96<f16>>;

using Sm90DualGemmCases = CasesOf<Sm90, Sm90DualGemmConfigs>::type;

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm90, DualGemmContract, Sm90DualGemmCases, ConfigNames);

namespace {

// Ping-pong consumers over a long K and several tiles per CTA (as
// Sm90GemmTileShape.PingPongLongKOverSeveralTiles for the GEMM): 3 x 91 tiles of 64 x 128 (every CTA of 132
// walks 2 or 3), kStages + 4 K blocks so that each consumer skips more K blocks than the ring has stages, M,
// N and K tails; both store paths.
TEST(Sm90DualGemmPingPong, LongKOverSeveralTiles) {
  BWGEMM_REQUIRE_SM90();
  using Cfg = sm90::DualGemmPingPong64x128<bf16>;
  static_assert(
      Cfg::kPingPong && Cfg::kBlockM == 64 && Cfg::kEmptyArrivals == 1 && Cfg::consumer_row0(1) == 0,
      "one consumer's 64 rows per tile");
  const DualProblem pb{
      3 * Cfg::kBlockM - 24, 91 * Cfg::kBlockN - 40, (Cfg::kStages + 3) * 64 + 24, 1, 0, 0, 0, 0.75f, 1.25f};
  check_dual_config<Sm90, Cfg, bf16>(pb, Data::kRealistic, 31);
  check_dual_config<Sm90, Cfg::WithTmaStore<false>, f16>(pb, Data::kRealistic, 32);
  // 96-column pairs: gate and up columns 0-95 and 96-191 of one m64n192 fragment, C in 64-byte boxes.
  using Cfg96 = sm90::DualGemmPingPong64x96<bf16>;
  static_assert(Cfg96::kMmaN == 192 && Cfg96::kAccRegs == 96 && Cfg96::EpiBuffers::kBoxColumns == 32 &&
                    Cfg96::EpiBuffers::kRounds == 1 && Cfg96::kSmemBytes <= bwgemm::hw::kMaxDynamicSmemBytes,
                "");
  const DualProblem pb96{3 * Cfg96::kBlockM - 24,
                         91 * Cfg96::kBlockN - 40,
                         (Cfg96::kStages + 3) * 64 + 24,
                         1,
                         0,
                         0,
                         0,
                         0.75f,
                         1.25f};
  check_dual_config<Sm90, Cfg96, bf16>(pb96, Data::kRealistic, 33);
}

// A ragged last row of tiles over several tiles per CTA: 8 rows in the last cluster tile, so its second
// consumer's 64 rows (and a CTA pair's second tile) hold only rows past M (the tail box, or no load:
// kernels/sm90/common.cuh, row_box), while the CTAs go on to tiles of whole rows; exact data, the 128-row
// Configs and the ping-pong pairs, C bitwise equal to the reference.
template <class Cfg>
void check_ragged_last_row_tile(uint32_t seed) {
  SCOPED_TRACE(ConfigName<Cfg>::get());
  const DualProblem pb{5 * Cfg::kClusterBlockM + 8, 40 * Cfg::kBlockN, 192};  // 240 cluster tiles
  check_dual_config<Sm90, Cfg, bf16>(pb, Data::kExact, seed);
}

TEST(Sm90DualGemmTileShape, RaggedLastRowTileOverManyTiles) {
  BWGEMM_REQUIRE_SM90();
  check_ragged_last_row_tile<sm90::DualGemmTile128x128<bf16>>(41);
  check_ragged_last_row_tile<sm90::DualGemmTile128x64<bf16>>(42);
  check_ragged_last_row_tile<sm90::DualGemmTile128x128Cluster2<bf16>>(43);
  check_ragged_last_row_tile<sm90::DualGemmTile128x64Cluster2<bf16>::WithTmaStore<false>>(44);
  check_ragged_last_row_tile<sm90::DualGemmPingPong64x128<bf16>>(45);
}

// Also 384 x 11264, the 64 x 96 ping-pong pairs' (Sm90DualGemmChoice.ByShape in test_choice_sm90.cpp), with a
// partial last column tile (11264 = 117 x 96 + 32).
TEST(Sm90DualGemmDefault, RealisticShapes) {
  BWGEMM_REQUIRE_SM90();
  EXPECT_EQ(sm90::dual_gemm_choice(384, 11264, 1, sm90::h200_device_facts()),
            sm90::DualGemmChoice::kPingPong64x96);
  check_dual_default_entry<Sm90, bf16, bf16>(
      {DualProblem{256, 1024, 2048}, DualProblem{1000, 1048, 1000, 1, 0, 0, 0, 0.75f, 1.25f},
       DualProblem{384, 11264, 128}},
      7);
  check_dual_default_entry<Sm90, f16, f16>({DualProblem{512, 768, 1536}}, 9);
}

TEST(Sm90DualGemmDefault, Cluster2EntryPoint) {
  BWGEMM_REQUIRE_SM90();
  for (const DualProblem& pb :
       {DualProblem{1000, 1048, 1000, 1, 0, 0, 0, 0.75f, 1.25f}, DualProblem{256, 1024, 2048}})
    check_dual<bf16, bf16, bwgemm::epi::SiluMul>(
        pb, Data::kRealistic, 10, [](const auto& args) { return sm90::dual_gemm_cluster2(args); });
}

// Every shipped gated activation through the sm_90a dual kernel (uniform data scaled by alpha1 = alpha2 = 8
// so that gate and up reach past gpt-oss's clamp limit of 7), against the double-precision reference of
// reference/activations.hpp applied to double-precision products: |d| <= 2 bf16 roundings of the result
// + 1e-3 · the rms of the output.
template <class Epilogue, class Ref>
void check_sm90_activation(const Epilogue& f, const Ref& ref, const char* what) {
  SCOPED_TRACE(what);
  using Cfg = sm90::DualGemmTile128x64<bf16>::WithEpilogue<Epilogue>;
  const DualProblem pb{128, 256, 256, 1, 0, 0, 0, 8.0f, 8.0f};
  const DualOperands<bf16, bf16> o(pb, Data::kRealistic, 91);
  DeviceBytes a(o.a.size() * 2), b1(o.b1.size() * 2), b2(o.b2.size() * 2), c(o.c_elements() * 2);
  a.upload(o.a.data(), a.size());
  b1.upload(o.b1.data(), b1.size());
  b2.upload(o.b2.data(), b2.size());
  c.fill(kDualPoisonByte);
  bwgemm::DualGemmArguments<bf16, bf16, Epilogue> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = reinterpret_cast<const bf16*>(a.data());
  args.b1 = reinterpret_cast<const bf16*>(b1.data());
  args.b2 = reinterpret_cast<const bf16*>(b2.data());
  args.c = reinterpret_cast<bf16*>(c.data());
  args.alpha1 = pb.alpha1, args.alpha2 = pb.alpha2;
  args.epilogue = f;
  const bwgemm::Status s = sm90::DualGemm<Cfg>::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  synchronize();
  const std::vector<bf16> got = download_as<bf16>(c);
  std::vector<double> want(static_cast<size_t>(pb.m * pb.n));
  double sq = 0.0;
  for (int64_t i = 0; i < pb.m; ++i)
    for (int64_t j = 0; j < pb.n; ++j) {
      double g = 0.0, u = 0.0;
      for (int64_t kk = 0; kk < pb.k; ++kk) {
        const double x = bwgemm::ref::to_float(o.a[i * o.lda + kk]);
        g += x * bwgemm::ref::to_float(o.b1[j * o.ldb + kk]);
        u += x * bwgemm::ref::to_float(o.b2[j * o.ldb + kk]);
      }
      want[i * pb.n + j] = ref(pb.alpha1 * g, pb.alpha2 * u);
      sq += want[i * pb.n + j] * want[i * pb.n + j];
    }
  const double rms = std::sqrt(sq / static_cast<double>(want.size()));
  int64_t bad = 0;
  for (int64_t i = 0; i < pb.m; ++i)
    for (int64_t j = 0; j < pb.n; ++j) {
      const double w = want[i * pb.n + j], g = bwgemm::ref::to_float(got[i * o.ldc + j]);
      if (std::fabs(g - w) > 2.0 * 0.00390625 * std::fabs(w) + 1e-3 * rms && ++bad <= 5)
        ADD_FAILURE() << "row " << i << " col " << j << ": got " << g << ", want " << w;
    }
  EXPECT_EQ(bad, 0);
}

TEST(Sm90DualGemmActivations, EveryShippedFunctorMatchesItsReference) {
  BWGEMM_REQUIRE_SM90();
  namespace epi = bwgemm::epi;
  namespace ref = bwgemm::ref;
  check_sm90_activation(
      epi::SiluMulClamped{}, [](double g, double u) { return ref::silu_mul_clamped(g, u, 7.0, 1.702); },
      "SiluMulClamped (gpt-oss)");
  check_sm90_activation(epi::GeluTanhMul{}, ref::gelu_tanh_mul, "GeluTanhMul");
  check_sm90_activation(epi::GeluErfMul{}, ref::gelu_erf_mul, "GeluErfMul");
  check_sm90_activation(epi::ReluSquaredMul{}, ref::relu2_mul, "ReluSquaredMul");
}

// On anything but compute capability 9.0 the entry point must refuse with a clear device mismatch (and
// launch nothing); on an H100/H200 host memory must be refused as an operand.
TEST(Sm90DualGemmArguments, DeviceOrHostMemoryRefused) {
  bwgemm::DualGemmArguments<bf16, bf16> args;
  args.m = 256, args.n = 256, args.k = 256;
  args.a = reinterpret_cast<const bf16*>(uintptr_t{0x100000});  // never dereferenced
  args.b1 = reinterpret_cast<const bf16*>(uintptr_t{0x200000});
  args.b2 = reinterpret_cast<const bf16*>(uintptr_t{0x300000});
  args.c = reinterpret_cast<bf16*>(uintptr_t{0x400000});
  std::vector<bf16> host_in(256 * 256), host_out(256 * 256);
  auto in_host_memory = args;
  in_host_memory.a = in_host_memory.b1 = in_host_memory.b2 = host_in.data();
  in_host_memory.c = host_out.data();
  expect_device_or_host_memory_refused([](const auto& a) { return sm90::dual_gemm(a); }, args, in_host_memory,
                                       9, 0, "compute capability 9.0");
}

}  // namespace
}  // namespace bwgemm_test
