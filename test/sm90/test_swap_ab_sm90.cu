// The sm_90a small-M kernels (swap AB, split K: sm90/swap_ab.cuh), natively on a GPU of compute capability
// 9.0 (H100/H200); every GPU case skips with a message elsewhere. The GEMM and dual GEMM contracts
// (test/contract: every output type, more tiles than SMs) on the shipped Configs, with the split chosen by
// the entry point and forced to 8; the decode
// sizes M = 1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65 on every shipped Config (exact tier bitwise, realistic tier
// within tolerance, splits 1, 2, 4, 8); split-K outputs bitwise identical across runs; the default entry
// points at decode sizes; the split choice and the entry points' choice table (host logic: run everywhere).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/sm90/candidate_configs.cuh"
#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"
#include "bwgemm/sm90/swap_ab.cuh"
#include "dual_gemm_contract.hpp"
#include "gemm_contract.hpp"
#include "split_k_cases.hpp"

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
namespace epi = bwgemm::epi;
using bf16 = __nv_bfloat16;
using f16 = __half;

// The explicit-Config entry points with the split forced (Split > 0) or chosen (Split = 0).
template <int Split>
struct SwapAbBackend {
  template <class Cfg>
  struct Gemm {
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return sm90::SwapAbGemm<Cfg>::can_implement(a, Split == 0 ? 0 : split_for(Split, a.k));
    }
    template <class Args>
    static bwgemm::Status run(const Args& a, cudaStream_t stream = nullptr) {
      return sm90::SwapAbGemm<Cfg>::run(a, stream, Split == 0 ? 0 : split_for(Split, a.k));
    }
  };
  template <class Cfg>
  struct DualGemm {
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return sm90::SwapAbDualGemm<Cfg>::can_implement(a, Split == 0 ? 0 : split_for(Split, a.k));
    }
    template <class Args>
    static bwgemm::Status run(const Args& a, cudaStream_t stream = nullptr) {
      return sm90::SwapAbDualGemm<Cfg>::run(a, stream, Split == 0 ? 0 : split_for(Split, a.k));
    }
  };
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return sm90::gemm(args);
  }
  template <class In, class Out>
  static bwgemm::Status dual_gemm(const bwgemm::DualGemmArguments<In, Out>& args) {
    return sm90::dual_gemm(args);
  }
  static bool available(std::string* why) { return can_run_sm90(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 9.0 (H100/H200) for sm_90a code";
};
using Chosen = SwapAbBackend<0>;
using Split8 = SwapAbBackend<8>;

// The GEMM's (or, with Op, the dual GEMM's) stream-K (run_stream_k) on `ctas` CTAs (0: one per resident CTA)
// with the workspace it asks for (SwapAbGemm::workspace_bytes, from reused_workspace: every call must leave
// the flags at zero for the next one).
template <class Cfg, class Op = sm90::SwapAbGemm<Cfg>, class Args>
bwgemm::Status run_swap_ab_stream_k(const Args& a, int64_t ctas, cudaStream_t stream = nullptr) {
  int64_t bytes = 0;
  if (bwgemm::Status s = Op::workspace_bytes(a, &bytes, nullptr, ctas); !s.ok()) return s;
  Args with = a;
  with.workspace = reused_workspace(bytes), with.workspace_bytes = bytes;
  return Op::run_stream_k(with, stream, ctas);
}

// The contract's backend for the GEMM's stream-K on Ctas CTAs; the default entry point with the workspace
// it asks for (gemm_workspace_bytes: stream-K at the swap-AB shapes).
template <int Ctas>
struct SwapAbStreamK {
  template <class Cfg>
  struct Gemm {
    template <class Args>
    static bwgemm::Status can_implement(const Args& a) {
      return sm90::SwapAbGemm<Cfg>::can_implement(a);
    }
    template <class Args>
    static bwgemm::Status run(const Args& a, cudaStream_t stream = nullptr) {
      return run_swap_ab_stream_k<Cfg>(a, Ctas, stream);
    }
  };
  template <class In, class Out>
  static bwgemm::Status gemm(const bwgemm::GemmArguments<In, Out>& args) {
    return sm90_gemm_with_workspace(args);
  }
  static bool available(std::string* why) { return can_run_sm90(why); }
  static constexpr const char* kNeeds = "a GPU of compute capability 9.0 (H100/H200) for sm_90a code";
  static constexpr int kCtas = Ctas;
};

// The shipped Configs of the cluster split (64 weight rows per tile) and one with 128-row tiles (two
// consumer warpgroups: the WeightWarpgroups knob; GemmSwapAbStreamKTokens16, which the default runs stream-K,
// here under the cluster split; the dual GEMM's 128-row tiles spill 4 bytes at the 168 registers of 384
// threads and are not shipped).
using Wide16 = sm90::GemmSwapAbStreamKTokens16<bf16>;
using GemmSwapAbConfigs = Configs<sm90::GemmSwapAbTokens16<bf16>, sm90::GemmSwapAbTokens32<bf16>,
                                  sm90::GemmSwapAbTokens64<f16>, sm90::GemmSwapAbTokens128<float>, Wide16,
                                  sm90::GemmSwapAbTokens160<bf16>, sm90::GemmSwapAbTokens192<f16>>;
using DualSwapAbConfigs = Configs<sm90::DualGemmSwapAbTokens16<bf16>, sm90::DualGemmSwapAbTokens64<bf16>,
                                  sm90::DualGemmSwapAbTokens128<f16>, sm90::DualGemmSwapAbTokens160<bf16>>;

// Two backends in one type list: the chosen split on every Config, split 8 on the first.
// (GemmSwapAbTokens160 at split 8 too: 80 accumulators per thread, 10 per rank.)
using GemmCases = Concat<
    CasesOf<Chosen, GemmSwapAbConfigs>::type,
    CasesOf<Split8, Configs<sm90::GemmSwapAbTokens16<f16>, sm90::GemmSwapAbTokens160<f16>>>::type>::type;
using DualCases = Concat<CasesOf<Chosen, DualSwapAbConfigs>::type,
                         CasesOf<Split8, Configs<sm90::DualGemmSwapAbTokens16<f16>>>::type>::type;
using OutputCases = CasesOf<Chosen, GemmSwapAbConfigs>::type;
using ManyTilesCases = CasesOf<Chosen, Configs<sm90::GemmSwapAbTokens16<bf16>>>::type;
// Stream-K (the shipped 128-row stream-K Configs, and 64-row ones: the kernel takes either) on 7 CTAs
// (ranges that cross tiles on every contract shape), on one per resident CTA (the contract's small shapes
// then have a unit or a few per CTA: tiles handed off over many CTAs), on 3.
using StreamKCases = Concat<
    CasesOf<SwapAbStreamK<7>, Configs<sm90::GemmSwapAbStreamKTokens16<bf16>, sm90::GemmSwapAbTokens16<bf16>,
                                      sm90::GemmSwapAbStreamKTokens64<f16>>>::type,
    CasesOf<SwapAbStreamK<0>,
            Configs<sm90::GemmSwapAbStreamKTokens32<bf16>, sm90::GemmSwapAbTokens128<f16>>>::type>::type;
using StreamKOutputCases =
    CasesOf<SwapAbStreamK<3>,
            Configs<sm90::GemmSwapAbStreamKTokens16<float>, sm90::GemmSwapAbTokens64<bf16>>>::type;
using StreamKManyTilesCases = CasesOf<SwapAbStreamK<0>, Configs<sm90::GemmSwapAbStreamKTokens16<bf16>>>::type;

// Test names carry the split: "SwapAbT16_S12_bf16" (chosen), "SwapAbT16_S12_f16_Split8".
struct SwapAbNames {
  template <class C>
  static std::string GetName(int) {
    return ConfigName<typename C::Cfg>::get() +
           (std::is_same_v<typename C::Backend, Split8> ? std::string("_Split8") : std::string());
  }
};
// ... and the stream-K CTA count: "SwapAbT16xN64_S16_bf16_StreamK7".
struct StreamKNames {
  template <class C>
  static std::string GetName(int) {
    return ConfigName<typename C::Cfg>::get() + "_StreamK" + std::to_string(C::Backend::kCtas);
  }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, GemmContract, GemmCases, SwapAbNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, DualGemmContract, DualCases, SwapAbNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, GemmOutputContract, OutputCases, SwapAbNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAb, GemmManyTilesContract, ManyTilesCases, SwapAbNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAbStreamK, GemmContract, StreamKCases, StreamKNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAbStreamK, GemmOutputContract, StreamKOutputCases, StreamKNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90SwapAbStreamK, GemmManyTilesContract, StreamKManyTilesCases, StreamKNames);

namespace {

const std::vector<int64_t> kDecodeM = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 65};
// The 160-token tiles (the defaults for 128 < M <= 160) at the edges of where they are chosen: 129 (one row
// past the 128-token tile), 136, 150, 159, 160 (the whole tile), and 161 (two token tiles, the second of one
// row).
const std::vector<int64_t> kTokens160M = {129, 136, 150, 159, 160, 161};
// Around the 192-token tile (the default for 160 < M <= 192 over few tiles): 161 (the first M it takes), 176,
// 191, 192 (the whole tile), 193 (two token tiles, the second of one row).
const std::vector<int64_t> kTokens192M = {161, 176, 191, 192, 193};
constexpr int kSplits[] = {1, 2, 4, 8};

// Every shipped GEMM Config at every decode M: N = 392 (three weight tiles and a tail), K = 520 (9 K blocks,
// the last one partial, so splits of 8 have uneven ranges); exact tier both B layouts, realistic tier bf16;
// the split cycles through 1, 2, 4, 8.
template <class Cfg>
void check_gemm_decode_sizes(const std::vector<int64_t>& ms = kDecodeM) {
  int i = 0;
  for (int64_t m : ms) {
    const int split = kSplits[i++ % 4];
    SCOPED_TRACE("split_k " + std::to_string(split));
    const auto run = [split](const auto& args) { return sm90::SwapAbGemm<Cfg>::run(args, nullptr, split); };
    for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
      GemmProblem pb{m, 392, 520, 1, layout};
      check_gemm_with<Cfg, f16>(pb, Data::kExact, 100 + static_cast<uint32_t>(m), run);
      pb.alpha = 0.5f, pb.beta = 1.0f;
      check_gemm_with<Cfg, bf16>(pb, Data::kRealistic, 200 + static_cast<uint32_t>(m), run);
    }
  }
}

// The same decode sizes with stream-K, the CTA count cycling through 0 (one per resident CTA, at most one
// per unit), 2, 5, 11 and 1 (one CTA walking every tile): N = 392 and 9 K blocks is 63 units in 64-row
// tiles (7 x 9) and 36 in 128-row ones (4 x 9), so every count but 1 splits tiles over CTAs.
constexpr int64_t kStreamKCtas[] = {0, 2, 5, 11, 1};
template <class Cfg>
void check_gemm_decode_sizes_stream_k(const std::vector<int64_t>& ms = kDecodeM) {
  int i = 0;
  for (int64_t m : ms) {
    const int64_t ctas = kStreamKCtas[i++ % 5];
    SCOPED_TRACE("stream-K CTAs " + std::to_string(ctas));
    const auto run = [ctas](const auto& args) { return run_swap_ab_stream_k<Cfg>(args, ctas); };
    for (bwgemm::BLayout layout : {bwgemm::BLayout::kRowMajorKxN, bwgemm::BLayout::kColumnMajorKxN}) {
      GemmProblem pb{m, 392, 520, 1, layout};
      check_gemm_with<Cfg, f16>(pb, Data::kExact, 800 + static_cast<uint32_t>(m), run);
      pb.alpha = 0.5f, pb.beta = 1.0f;
      check_gemm_with<Cfg, bf16>(pb, Data::kRealistic, 900 + static_cast<uint32_t>(m), run);
    }
  }
}

template <class Cfg>
void check_dual_decode_sizes(const std::vector<int64_t>& ms = kDecodeM) {
  int i = 0;
  for (int64_t m : ms) {
    const int split = kSplits[i++ % 4];
    SCOPED_TRACE("split_k " + std::to_string(split));
    using Exact = typename Cfg::template WithEpilogue<epi::Multiply>;
    const DualProblem pb{m, 392, 520, 1, 0, 0, 0, 0.5f, 2.0f};
    check_dual<bf16, typename Cfg::Out, epi::Multiply>(
        pb, Data::kExact, 300 + static_cast<uint32_t>(m),
        [split](const auto& args) { return sm90::SwapAbDualGemm<Exact>::run(args, nullptr, split); });
    check_dual<bf16, typename Cfg::Out, epi::SiluMul>(
        pb, Data::kRealistic, 400 + static_cast<uint32_t>(m),
        [split](const auto& args) { return sm90::SwapAbDualGemm<Cfg>::run(args, nullptr, split); });
  }
}

TEST(Sm90SwapAbDecode, GemmTokens16) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens16<bf16>>();
}
TEST(Sm90SwapAbDecode, GemmTokens32) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens32<bf16>>();
}
TEST(Sm90SwapAbDecode, GemmTokens64) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens64<f16>>();
}
TEST(Sm90SwapAbDecode, GemmTokens128) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens128<float>>();
}
// The 160-token tile (the default for 128 < M <= 160) at the decode sizes and around where it is chosen.
TEST(Sm90SwapAbDecode, GemmTokens160) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens160<bf16>>();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens160<bf16>>(kTokens160M);
}
TEST(Sm90SwapAbDecode, GemmTokens16Rows128) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<Wide16>();
}
TEST(Sm90SwapAbDecode, StreamKTokens16) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes_stream_k<sm90::GemmSwapAbStreamKTokens16<bf16>>();
}
TEST(Sm90SwapAbDecode, StreamKTokens32) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes_stream_k<sm90::GemmSwapAbStreamKTokens32<f16>>();
}
TEST(Sm90SwapAbDecode, StreamKTokens64) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes_stream_k<sm90::GemmSwapAbStreamKTokens64<bf16>>();
}
TEST(Sm90SwapAbDecode, StreamKTokens128Rows64) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes_stream_k<sm90::GemmSwapAbTokens128<float>>();
}
// The 192-token tile (the default for 160 < M <= 192 over few tiles) at the decode sizes and around its
// tile, under the cluster split and stream-K.
TEST(Sm90SwapAbDecode, GemmTokens192) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens192<bf16>>();
  check_gemm_decode_sizes<sm90::GemmSwapAbTokens192<bf16>>(kTokens192M);
  check_gemm_decode_sizes_stream_k<sm90::GemmSwapAbTokens192<bf16>>(kTokens192M);
}
// The 160-token tile under stream-K (the default's with a workspace where swap_ab_stream_k_pays).
TEST(Sm90SwapAbDecode, StreamKTokens160) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes_stream_k<sm90::GemmSwapAbTokens160<bf16>>(kTokens160M);
}
TEST(Sm90SwapAbDecode, StreamKTokens16Rows64) {
  BWGEMM_REQUIRE_SM90();
  check_gemm_decode_sizes_stream_k<sm90::GemmSwapAbTokens16<bf16>>();
}
// The dual GEMM's stream-K at the decode sizes (its 64-row pairs, as the default runs them with a
// workspace), the CTA count cycling as for the GEMM; exact tier (Multiply) and realistic (SiLU).
template <class Cfg>
void check_dual_decode_sizes_stream_k(const std::vector<int64_t>& ms = kDecodeM) {
  int i = 0;
  for (int64_t m : ms) {
    const int64_t ctas = kStreamKCtas[i++ % 5];
    SCOPED_TRACE("stream-K CTAs " + std::to_string(ctas));
    using Exact = typename Cfg::template WithEpilogue<epi::Multiply>;
    const DualProblem pb{m, 392, 520, 1, 0, 0, 0, 0.5f, 2.0f};
    check_dual<bf16, typename Cfg::Out, epi::Multiply>(
        pb, Data::kExact, 1100 + static_cast<uint32_t>(m), [ctas](const auto& args) {
          return run_swap_ab_stream_k<Exact, sm90::SwapAbDualGemm<Exact>>(args, ctas);
        });
    check_dual<bf16, typename Cfg::Out, epi::SiluMul>(
        pb, Data::kRealistic, 1200 + static_cast<uint32_t>(m), [ctas](const auto& args) {
          return run_swap_ab_stream_k<Cfg, sm90::SwapAbDualGemm<Cfg>>(args, ctas);
        });
  }
}

TEST(Sm90SwapAbDecode, DualStreamKTokens16) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes_stream_k<sm90::DualGemmSwapAbTokens16<bf16>>();
}
TEST(Sm90SwapAbDecode, DualStreamKTokens64) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes_stream_k<sm90::DualGemmSwapAbTokens64<f16>>();
}
TEST(Sm90SwapAbDecode, DualStreamKTokens160) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes_stream_k<sm90::DualGemmSwapAbTokens160<bf16>>(kTokens160M);
}

// The default dual entry point with a workspace: dual_gemm_workspace_bytes asks for the stream-K launch's
// bytes where swap_ab_stream_k_pays (M = 1, N = 8512, K = 8192: 133 pairs of 64 rows, 128 K blocks), none at
// two waves of 64 K blocks (N = 14336, K = 4096: the split's 12800 against (109 + 20) x 100), and computes
// right with it; stream-K gives the same bits on every run.
TEST(Sm90SwapAbDecode, DualDefaultWithWorkspace) {
  BWGEMM_REQUIRE_SM90();
  using Cfg = sm90::DualGemmSwapAbTokens16<bf16>;
  bwgemm::DualGemmArguments<bf16> probe;
  probe.m = 1, probe.n = 8512, probe.k = 8192;
  probe.a = reinterpret_cast<const bf16*>(uintptr_t{1} << 32);
  probe.b1 = reinterpret_cast<const bf16*>(uintptr_t{2} << 32);
  probe.b2 = reinterpret_cast<const bf16*>(uintptr_t{3} << 32);
  probe.c = reinterpret_cast<bf16*>(uintptr_t{4} << 32);
  int64_t asked = 0, explicit_bytes = 0, resident = 0;
  ASSERT_TRUE(sm90::dual_gemm_workspace_bytes(probe, &asked).ok());
  ASSERT_TRUE(sm90::SwapAbDualGemm<Cfg>::workspace_bytes(probe, &explicit_bytes, &resident).ok());
  EXPECT_GT(asked, 0);
  EXPECT_EQ(asked, explicit_bytes);
  EXPECT_EQ(asked, sm90::swap_ab_stream_k_workspace_bytes<Cfg>(resident));
  auto two_waves = probe;
  two_waves.n = 14336, two_waves.k = 4096;
  ASSERT_TRUE(sm90::dual_gemm_workspace_bytes(two_waves, &asked).ok());
  EXPECT_EQ(asked, 0);
  const auto with_workspace = [](const auto& args) {
    int64_t bytes = 0;
    if (bwgemm::Status s = sm90::dual_gemm_workspace_bytes(args, &bytes); !s.ok()) return s;
    auto with = args;
    if (bytes > 0) with.workspace = reused_workspace(bytes), with.workspace_bytes = bytes;
    return sm90::dual_gemm(with);
  };
  check_dual<bf16, bf16, epi::SiluMul>(DualProblem{1, 8512, 8192}, Data::kRealistic, 1300, with_workspace);
}

TEST(Sm90SwapAbDecode, DualTokens16) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes<sm90::DualGemmSwapAbTokens16<bf16>>();
}
TEST(Sm90SwapAbDecode, DualTokens64) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes<sm90::DualGemmSwapAbTokens64<bf16>>();
}
TEST(Sm90SwapAbDecode, DualTokens128) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes<sm90::DualGemmSwapAbTokens128<f16>>();
}
TEST(Sm90SwapAbDecode, DualTokens160) {
  BWGEMM_REQUIRE_SM90();
  check_dual_decode_sizes<sm90::DualGemmSwapAbTokens160<f16>>();
  check_dual_decode_sizes<sm90::DualGemmSwapAbTokens160<f16>>(kTokens160M);
}

// The default entry points at decode sizes on a model's shapes (the choice, the chosen split and the kernel
// together), realistic tier.
TEST(Sm90SwapAbDecode, DefaultEntryPoints) {
  BWGEMM_REQUIRE_SM90();
  for (int64_t m : {1, 16, 33, 100, 128, 129, 160, 161})
    check_gemm_with<sm90::GemmSwapAbTokens16<bf16>, bf16>(
        GemmProblem{m, 4096, 4096, 1, bwgemm::BLayout::kColumnMajorKxN}, Data::kRealistic,
        500 + static_cast<uint32_t>(m), [](const auto& args) { return sm90::gemm(args); });
  // 160 < M <= 192 over 28 tiles of 128 weight rows: the 192-token tile (193: the tiled kernels).
  for (int64_t m : {161, 192, 193})
    check_gemm_with<sm90::GemmSwapAbTokens16<bf16>, bf16>(
        GemmProblem{m, 3584, 2048, 1, bwgemm::BLayout::kRowMajorKxN}, Data::kRealistic,
        550 + static_cast<uint32_t>(m), [](const auto& args) { return sm90::gemm(args); });
  check_dual_default_entry<Chosen, bf16, bf16>(
      {DualProblem{1, 2048, 4096}, DualProblem{40, 1536, 2048}, DualProblem{129, 2048, 1024},
       DualProblem{160, 1536, 2048}, DualProblem{161, 1024, 1024}, DualProblem{200, 1024, 1024}},
      600);
}

// Split K gives the same bits on every run: realistic data (sums that round), 5 calls per split, each
// compared byte for byte with the first.
TEST(Sm90SwapAbDecode, SplitKIsBitwiseDeterministic) {
  BWGEMM_REQUIRE_SM90();
  expect_bitwise_identical_runs(GemmProblem{5, 1024, 8192, 1, bwgemm::BLayout::kColumnMajorKxN}, 700,
                                {0, 2, 8}, 5, [](const auto& args, int split) {
                                  return sm90::SwapAbGemm<sm90::GemmSwapAbTokens16<bf16>>::run(args, nullptr,
                                                                                               split);
                                });
}

// Stream-K gives the same bits on every run for a given CTA count: 16 tiles of 64 rows x 128 K blocks over
// 50, 97 and 132 CTAs (each tile over 3-9 CTAs), 3 calls each, byte for byte.
TEST(Sm90SwapAbDecode, StreamKIsBitwiseDeterministic) {
  BWGEMM_REQUIRE_SM90();
  expect_bitwise_identical_runs(GemmProblem{5, 1024, 8192, 1, bwgemm::BLayout::kColumnMajorKxN}, 1000,
                                {0, 50, 97}, 3, [](const auto& args, int ctas) {
                                  return run_swap_ab_stream_k<sm90::GemmSwapAbTokens16<bf16>>(args, ctas);
                                });
}

// The workspace: its size is what workspace_bytes says (13 CTAs: 256 bytes of flags and 13 slots of 16 x 64
// fp32 sums), the flags are zero again after a call (a fresh workspace, checked word for word), the slots
// need no clearing (0xFF, NaN as floats, before the call: D is still right), nothing is written outside it
// (guard bands); the default entry point asks for the stream-K Config's workspace where
// swap_ab_stream_k_pays (M = 1, N = 10240, K = 8192: 160 tiles of 64 rows; host pointers suffice for the
// size, it validates and does not launch), none at one wave (N = 5120: 80 tiles), and computes right.
TEST(Sm90SwapAbDecode, StreamKWorkspace) {
  BWGEMM_REQUIRE_SM90();
  using Cfg = sm90::GemmSwapAbTokens16<bf16>;
  const int64_t ctas = 13;
  const int64_t bytes = sm90::swap_ab_stream_k_workspace_bytes<Cfg>(ctas);
  EXPECT_EQ(bytes, 256 + 13 * 16 * 64 * 4);
  DeviceBytes workspace(static_cast<size_t>(bytes));
  workspace.fill(0xFF);
  ASSERT_EQ(cudaMemset(workspace.data(), 0, 256), cudaSuccess);  // the flags
  const auto run = [&](const auto& args) {
    int64_t asked = 0, asked_ctas = 0;
    if (bwgemm::Status s = sm90::SwapAbGemm<Cfg>::workspace_bytes(args, &asked, &asked_ctas, ctas); !s.ok())
      return s;
    EXPECT_EQ(asked, bytes);
    EXPECT_EQ(asked_ctas, ctas);
    auto with = args;
    with.workspace = workspace.data(), with.workspace_bytes = bytes;
    return sm90::SwapAbGemm<Cfg>::run_stream_k(with, nullptr, ctas);
  };
  check_gemm_with<Cfg, bf16>(GemmProblem{9, 1000, 1096, 1, bwgemm::BLayout::kRowMajorKxN}, Data::kExact, 1010,
                             run);
  const std::vector<uint8_t> after = workspace.download_checked();
  for (int64_t i = 0; i < 256; ++i)
    ASSERT_EQ(after[static_cast<size_t>(i)], 0) << "flag byte " << i << " left set";

  // The default entry point at M = 1 with the workspace it asks for: the stream-K launch's (one CTA per
  // resident CTA), the realistic tier.
  bwgemm::GemmArguments<bf16> probe;
  probe.m = 1, probe.n = 10240, probe.k = 8192;
  probe.a = reinterpret_cast<const bf16*>(uintptr_t{1} << 32);
  probe.b = reinterpret_cast<const bf16*>(uintptr_t{2} << 32);
  probe.d = reinterpret_cast<bf16*>(uintptr_t{3} << 32);
  using Sk = sm90::GemmSwapAbStreamKTokens16<bf16>;
  int64_t asked = 0, resident = 0, explicit_bytes = 0;
  ASSERT_TRUE(sm90::gemm_workspace_bytes(probe, &asked).ok());
  ASSERT_TRUE(sm90::SwapAbGemm<Sk>::workspace_bytes(probe, &explicit_bytes, &resident).ok());
  EXPECT_GT(asked, 0);
  EXPECT_EQ(asked, explicit_bytes);
  EXPECT_EQ(asked, sm90::swap_ab_stream_k_workspace_bytes<Sk>(resident));
  auto one_wave = probe;
  one_wave.n = 5120, one_wave.k = 5120;
  ASSERT_TRUE(sm90::gemm_workspace_bytes(one_wave, &asked).ok());
  EXPECT_EQ(asked, 0);
  // M = 136 takes the 160-token tile: N = 28672 is 224 tiles of 128 rows, K = 8192 128 K blocks; stream-K
  // ((218 + 20) · 100) below one CTA per tile (2 waves · 128 · 100) and the split of 2 (4 · 64 · 115), so
  // the default asks for that tile's stream-K workspace; at N = 4096 (32 tiles, one wave) for none.
  using T160 = sm90::GemmSwapAbTokens160<bf16>;
  auto tokens160 = probe;
  tokens160.m = 136, tokens160.n = 28672;
  ASSERT_TRUE(sm90::gemm_workspace_bytes(tokens160, &asked).ok());
  ASSERT_TRUE(sm90::SwapAbGemm<T160>::workspace_bytes(tokens160, &explicit_bytes, &resident).ok());
  EXPECT_GT(asked, 0);
  EXPECT_EQ(asked, explicit_bytes);
  EXPECT_EQ(asked, sm90::swap_ab_stream_k_workspace_bytes<T160>(resident));
  tokens160.n = 4096;
  ASSERT_TRUE(sm90::gemm_workspace_bytes(tokens160, &asked).ok());
  EXPECT_EQ(asked, 0);
  // M = 176 over 28 tiles takes the 192-token tile: one wave, the cluster split, no workspace.
  auto tokens192 = probe;
  tokens192.m = 176, tokens192.n = 3584;
  ASSERT_TRUE(sm90::gemm_workspace_bytes(tokens192, &asked).ok());
  EXPECT_EQ(asked, 0);
  check_gemm_with<Sk, bf16>(GemmProblem{1, 10240, 8192, 1, bwgemm::BLayout::kColumnMajorKxN},
                            Data::kRealistic, 1020,
                            [](const auto& args) { return SwapAbStreamK<0>::gemm(args); });
}

// A stream-K call without the workspace it takes (or too small), or with a CTA count the device cannot hold
// at once, is refused before anything is launched.
TEST(Sm90SwapAbDecode, StreamKRefusals) {
  BWGEMM_REQUIRE_SM90();
  using Op = sm90::SwapAbGemm<sm90::GemmSwapAbTokens16<bf16>>;
  DeviceBytes a(16 * 1024 * 2), b(1024 * 512 * 2), d(16 * 512 * 2), small(256);
  d.fill(0x5A);
  bwgemm::GemmArguments<bf16> args;
  args.m = 16, args.n = 512, args.k = 1024;
  args.a = reinterpret_cast<const bf16*>(a.data());
  args.b = reinterpret_cast<const bf16*>(b.data());
  args.d = reinterpret_cast<bf16*>(d.data());
  expect_refused(Op::run_stream_k(args), "workspace: this swap-AB stream-K launch");
  auto too_small = args;
  too_small.workspace = small.data(), too_small.workspace_bytes = 256;
  expect_refused(Op::run_stream_k(too_small), "workspace: this swap-AB stream-K launch");
  expect_refused(Op::run_stream_k(too_small, nullptr, -1), "stream_k_ctas must be >= 0");
  expect_refused(Op::run_stream_k(too_small, nullptr, 100000), "must not exceed the CTAs this device holds");
  // run (the cluster split) with a workspace: it needs none and does not touch it.
  ASSERT_TRUE(Op::run(too_small).ok());
  synchronize();
  for (uint8_t byte : small.download_checked()) ASSERT_EQ(byte, kGuardByte) << "the small workspace written";
  d.fill(0x5A);
  expect_refused(Op::run_stream_k(args, nullptr, 3), "workspace: this swap-AB stream-K launch");
  synchronize();
  for (uint8_t byte : d.download_checked()) ASSERT_EQ(byte, 0x5A) << "a refused call wrote D";
}

// A forced split the kernel cannot take is refused before anything is launched.
TEST(Sm90SwapAb, RefusesBadSplits) {
  using Op = sm90::SwapAbGemm<sm90::GemmSwapAbTokens16<bf16>>;
  alignas(16) static uint8_t buf[3 * 64 * 256 * 2];
  bwgemm::GemmArguments<bf16> args;
  args.m = 16, args.n = 64, args.k = 256;  // 4 K blocks
  args.a = reinterpret_cast<const bf16*>(buf);
  args.b = reinterpret_cast<const bf16*>(buf + 64 * 256 * 2);
  args.d = reinterpret_cast<bf16*>(buf + 2 * 64 * 256 * 2);
  EXPECT_TRUE(Op::can_implement(args, 4).ok());
  expect_refused(Op::run(args, nullptr, 3), "split_k must be 0 (chosen from the shape), 1, 2, 4 or 8");
  expect_refused(Op::run(args, nullptr, 16), "split_k must be 0");
  expect_refused(Op::run(args, nullptr, 8), "must not exceed the K blocks of 64 (4)");
  for (uint8_t byte : buf) ASSERT_EQ(byte, 0) << "a refused call wrote memory";
}

// The K ranges of a split cover the K blocks once, in order, as evenly as whole blocks allow.
TEST(Sm90SplitK, RangesCoverKOnce) {
  for (int32_t blocks : {1, 2, 7, 8, 9, 64, 65})
    for (int32_t splits : {1, 2, 4, 8}) {
      if (splits > blocks) continue;
      int32_t next = 0;
      for (int32_t r = 0; r < splits; ++r) {
        const sm90::KRange kr = sm90::split_k_range(blocks, splits, r);
        EXPECT_EQ(kr.begin, next);
        EXPECT_GE(kr.end - kr.begin, blocks / splits);
        EXPECT_LE(kr.end - kr.begin, blocks / splits + 1);
        next = kr.end;
      }
      EXPECT_EQ(next, blocks);
    }
}

}  // namespace
}  // namespace bwgemm_test
