// The sm_100a grouped kernels (sm100/grouped_gemm.cuh) in the CPU emulator, every shipped Config (the
// 128-row one-CTA and 256-row CTA-pair tiles of the grouped GEMM, dual GEMM, NVFP4 GEMM and NVFP4 dual GEMM)
// against the grouped references (reference/grouped.hpp): E = 1 .. 16, zero-token experts first, in the
// middle and last, one-token experts, ragged counts up to 300 rows, both layouts, per-expert scales, strided
// tokens and outputs, gate and up as two views of one stacked [E, 2N, K] tensor, bad offsets and counts
// (the status word's bits, nothing written outside the rows the experts own, guard bands past the buffers),
// the same call again after the device counts changed, random completion delays of every asynchronous
// operation, the default entry points' choice and their argument checks.
//
// Emulation only (label emu): the kernels run natively on a B200 only, which this suite does not reach.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/arguments/grouped_dual_gemm.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/grouped_gemm.cuh"
#include "bwgemm/quantize.cuh"
#include "bwgemm/reference/activations.hpp"
#include "bwgemm/reference/grouped.hpp"
#include "bwgemm/sm100/grouped_gemm.cuh"
#include "grouped_cases.hpp"

namespace {

using namespace grouped_test;
namespace sm100 = bwgemm::sm100;
using bf16 = __nv_bfloat16;
using f16 = __half;

// Two co-resident clusters: each persistent cluster walks several tiles of several experts.
const bool kTwoResidentClusters = [] {
  bwgemm::emulated_launch_settings().max_resident_clusters = 2;
  return true;
}();

// Counts with every feature of the class: zero-token experts first, in the middle and last, a one-token
// expert, one past a 128-row tile (and a scale atom), the rest ragged (E >= 4; smaller E: the first ones).
std::vector<int64_t> mixed_counts(int64_t experts, int64_t big, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> c(static_cast<size_t>(experts));
  for (auto& x : c) x = 1 + rng() % 40;
  c[0] = experts > 1 ? 0 : big;
  if (experts >= 2) c[1] = big;
  if (experts >= 3) c.back() = 0;
  if (experts >= 4) c[static_cast<size_t>(experts / 2)] = 0, c[2] = 1;
  return c;
}

// Randomised delays of every asynchronous completion for the scope (docs/emulator.md).
struct Delays {
  explicit Delays(uint64_t seed) {
    auto& s = bwgemm::emulated_launch_settings();
    s.max_async_delay_steps = 40;
    s.seed = seed;
  }
  ~Delays() { bwgemm::emulated_launch_settings().max_async_delay_steps = 0; }
};

// Small integers (exact in every type and in fp32 sums over K = 128).
template <class T>
std::vector<T> small_ints(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = ref::from_float<T>(static_cast<float>(static_cast<int>(rng() % 5) - 2));
  return v;
}

// Powers of two (exact products).
std::vector<float> pow2_scales(int64_t experts, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(static_cast<size_t>(experts));
  for (auto& x : v) x = std::ldexp(1.0f, static_cast<int>(rng() % 5) - 2);
  return v;
}

template <class Out>
float as_float(Out v) {
  if constexpr (std::is_same_v<Out, float>) {
    return v;
  } else if constexpr (std::is_same_v<Out, __half>) {
    return __half2float(v);
  } else {
    return __bfloat162float(v);
  }
}

// Element i of got and want: the same bits (poison where no expert owns the row, exact tiers), or both
// numbers within the field's tolerance (|d| <= 1e-3 + 1e-3 |want| plus one ulp of Out). Returns the wrong
// elements, reporting the first.
template <class Out>
int64_t count_wrong(const std::vector<Out>& got, const std::vector<Out>& want, bool exact) {
  const float ulp = std::is_same_v<Out, bf16> ? 1.0f / 128 : std::is_same_v<Out, f16> ? 1.0f / 1024 : 0.0f;
  int64_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(Out)) == 0) continue;
    const float g = as_float(got[i]), w = as_float(want[i]);
    const bool poison = w == kPoison || g == kPoison;
    if (!exact && !poison && std::abs(g - w) <= 1e-3f + (1e-3f + ulp) * std::abs(w)) continue;
    if (wrong++ < 3) ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w;
  }
  return wrong;
}

// ---- the 16-bit grouped GEMM ------------------------------------------------------------------------------

// One call of Config Cfg on a case, against the reference; then, where `recount`, the same arguments again
// after new counts were written to the device array.
struct Case16 {
  bool masked;
  std::vector<int64_t> counts;
  bool bad = false;
  bool strided = false;  // lda, ldd (and masked expert strides) beyond the packed ones
  bool per_expert_alpha = true;
  int64_t n = 136, k = 128;
};

// Op: sm100::GroupedGemm<Cfg> or sm100::GroupedGemmSwapAb<Cfg> (likewise below).
template <class Op, class In>
void check_grouped_gemm(const Case16& c, uint32_t seed) {
  using Out = typename Op::Out;
  Tokens t = make_tokens(c.masked, c.counts, c.bad);
  SCOPED_TRACE(describe(t, c.bad) + ", N " + std::to_string(c.n));
  const int64_t experts = t.experts, n = c.n, k = c.k;
  const int64_t lda = c.strided ? k + 8 : k, ldd = c.strided ? n + 16 : n;
  const int64_t a_stride = c.masked && c.strided ? t.max_tokens * lda + 64 : 0;
  const int64_t d_stride = c.masked && c.strided ? t.max_tokens * ldd + 32 : 0;
  const int64_t a_rows = token_rows(t) + (c.masked && c.strided ? experts : 0);
  const std::vector<In> a = small_ints<In>(static_cast<size_t>(a_rows * lda + 64), seed);
  const std::vector<In> b = small_ints<In>(static_cast<size_t>(experts * n * k), seed + 1);
  const std::vector<float> alphas = pow2_scales(experts, seed + 2);
  const int64_t d_elems =
      c.masked ? (experts - 1) * (d_stride ? d_stride : t.max_tokens * ldd) + t.max_tokens * ldd
               : t.total * ldd;
  std::vector<Out> d(static_cast<size_t>(d_elems + kGuard), ref::from_float<Out>(kPoison));
  std::vector<Out> want = d;
  uint32_t status = 0;

  bwgemm::GroupedGemmArguments<In, Out> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = a.data(), args.lda = c.strided ? lda : 0, args.a_expert_stride = a_stride;
  args.b = b.data();
  args.d = d.data(), args.ldd = c.strided ? ldd : 0, args.d_expert_stride = d_stride;
  args.alpha = 0.5f, args.alpha_ptr = c.per_expert_alpha ? alphas.data() : nullptr;
  args.status = &status;
  const bwgemm::Status s = Op::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto ref_args = args;
  ref_args.d = want.data();
  EXPECT_EQ(status, ref::grouped_gemm(ref_args, 1));
  EXPECT_EQ(status, t.status);
  EXPECT_EQ(count_wrong(d, want, true), 0);
}

template <class Op>
void gemm_cases() {
  for (bool masked : {false, true}) {
    check_grouped_gemm<Op, f16>({masked, mixed_counts(1, 37, 1)}, 10);
    check_grouped_gemm<Op, bf16>({masked, mixed_counts(5, 131, 2), false, true}, 20);
    check_grouped_gemm<Op, f16>({masked, mixed_counts(16, 300, 3), false, false, true, 264, 64}, 30);
  }
}

TEST(GroupedGemmSm100, Tokens128) {
  gemm_cases<sm100::GroupedGemm<sm100::GroupedGemmTokens128<f16>>>();
}
TEST(GroupedGemmSm100, Tokens256) {
  gemm_cases<sm100::GroupedGemm<sm100::GroupedGemmTokens256<f16>>>();
}
TEST(GroupedGemmSm100, SwapAbTokens32) {
  using Op = sm100::GroupedGemmSwapAb<sm100::GroupedGemmSwapAbTokens32<f16>>;
  for (bool masked : {false, true}) {
    check_grouped_gemm<Op, f16>({masked, mixed_counts(1, 3, 101)}, 1010);
    check_grouped_gemm<Op, bf16>({masked, mixed_counts(16, 70, 102), false, true}, 1020);
    check_grouped_gemm<Op, f16>({masked, mixed_counts(6, 33, 103), true, false, true, 264, 64}, 1030);
  }
  const Delays delays(11);
  check_grouped_gemm<sm100::GroupedGemmSwapAb<sm100::GroupedGemmSwapAbTokens32<bf16>>, bf16>(
      {false, mixed_counts(9, 40, 104)}, 1040);
}

TEST(GroupedGemmSm100, OtherOutputTypes) {
  check_grouped_gemm<sm100::GroupedGemm<sm100::GroupedGemmTokens256<bf16>>, bf16>(
      {false, mixed_counts(6, 200, 4)}, 40);
  check_grouped_gemm<sm100::GroupedGemm<sm100::GroupedGemmTokens128<float>>, f16>(
      {true, mixed_counts(4, 70, 5), false, true}, 50);
}

// Bad offsets and counts: the experts' clamped rows only, the status bits, the guard bands.
TEST(GroupedGemmSm100, BadMetadataStaysInsideAndSetsTheStatus) {
  for (bool masked : {false, true}) {
    check_grouped_gemm<sm100::GroupedGemm<sm100::GroupedGemmTokens128<f16>>, f16>(
        {masked, mixed_counts(6, 140, 6), true}, 60);
    check_grouped_gemm<sm100::GroupedGemm<sm100::GroupedGemmTokens256<f16>>, f16>(
        {masked, mixed_counts(3, 20, 7), true, true}, 70);
  }
}

TEST(GroupedGemmSm100, RandomAsyncDelays) {
  const Delays delays(5);
  check_grouped_gemm<sm100::GroupedGemm<sm100::GroupedGemmTokens256<f16>>, f16>(
      {false, mixed_counts(5, 150, 8)}, 80);
  check_grouped_gemm<sm100::GroupedGemm<sm100::GroupedGemmTokens128<f16>>, bf16>(
      {true, mixed_counts(4, 60, 9), true}, 90);
}

// A graph replay's situation: one set of arguments, called again after the device counts changed (more
// rows for some experts, none for others).
TEST(GroupedGemmSm100, SameCallAfterTheCountsChanged) {
  for (bool masked : {false, true}) {
    Tokens t = make_tokens(masked, {30, 0, 140, 5}, false);
    const int64_t experts = t.experts, n = 64, k = 64;
    const std::vector<f16> a = small_ints<f16>(static_cast<size_t>(token_rows(t) * k), 100);
    const std::vector<f16> b = small_ints<f16>(static_cast<size_t>(experts * n * k), 101);
    std::vector<f16> d(static_cast<size_t>(token_rows(t) * n + kGuard), ref::from_float<f16>(kPoison));
    bwgemm::GroupedGemmArguments<f16> args;
    set_tokens(t, &args);  // args.tokens points at t.meta: the "device" array
    args.n = n, args.k = k, args.a = a.data(), args.b = b.data(), args.d = d.data();
    for (const std::vector<int32_t>& meta :
         masked ? std::vector<std::vector<int32_t>>{{30, 0, 140, 5}, {0, 141, 2, 70}, {0, 0, 0, 0}}
                : std::vector<std::vector<int32_t>>{{30, 30, 170, 175}, {0, 145, 147, 170}, {0, 0, 0, 0}}) {
      std::copy(meta.begin(), meta.end(), t.meta.begin());
      std::fill(d.begin(), d.end(), ref::from_float<f16>(kPoison));
      std::vector<f16> want = d;
      ASSERT_TRUE(sm100::grouped_gemm(args).ok());
      auto r = args;
      r.d = want.data();
      EXPECT_EQ(ref::grouped_gemm(r, 1), 0u);
      EXPECT_EQ(count_wrong(d, want, true), 0) << "counts " << meta[0] << ", " << meta[1] << ", ...";
    }
  }
}

// ---- the 16-bit grouped dual GEMM -------------------------------------------------------------------------

template <class Op, class In, class Act>
void check_grouped_dual(const Case16& c, bool stacked_2n, Act&& act, uint32_t seed) {
  using Out = typename Op::Out;
  Tokens t = make_tokens(c.masked, c.counts, c.bad);
  SCOPED_TRACE(describe(t, c.bad) + (stacked_2n ? ", stacked [E, 2N, K]" : ""));
  const int64_t experts = t.experts, n = c.n, k = c.k, lda = c.strided ? k + 8 : k;
  const int64_t ldc = c.strided ? n + 8 : n;
  const std::vector<In> a = random_16bit<In>(static_cast<size_t>(token_rows(t) * lda), seed);
  // The weights: two [E, N, K] tensors, or one [E, 2N, K] (gate rows, then up rows, per expert).
  const std::vector<In> w = random_16bit<In>(static_cast<size_t>(experts * 2 * n * k), seed + 1);
  const std::vector<float> alphas1 = pow2_scales(experts, seed + 2), alphas2 = pow2_scales(experts, seed + 3);
  std::vector<Out> cbuf(static_cast<size_t>(token_rows(t) * ldc + kGuard), ref::from_float<Out>(kPoison));
  std::vector<Out> want = cbuf;
  uint32_t status = 0;

  bwgemm::GroupedDualGemmArguments<In, Out, typename Op::Epilogue> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = a.data(), args.lda = c.strided ? lda : 0;
  args.b1 = w.data();
  args.b2 = stacked_2n ? w.data() + n * k : w.data() + experts * n * k;
  args.b_expert_stride = stacked_2n ? 2 * n * k : 0;
  args.c = cbuf.data(), args.ldc = c.strided ? ldc : 0;
  args.alpha1 = 0.75f, args.alpha2 = 1.5f;
  if (c.per_expert_alpha) args.alpha1_ptr = alphas1.data(), args.alpha2_ptr = alphas2.data();
  args.status = &status;
  const bwgemm::Status s = Op::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto ref_args = args;
  ref_args.c = want.data();
  EXPECT_EQ(status, ref::grouped_dual_gemm(ref_args, act, 1));
  EXPECT_EQ(status, t.status);
  EXPECT_EQ(count_wrong(cbuf, want, false), 0);
}

const auto kSiluMul = [](float g, float u) { return ref::silu_mul(g, u); };

template <class Op>
void dual_cases() {
  for (bool masked : {false, true}) {
    check_grouped_dual<Op, f16>({masked, mixed_counts(1, 50, 11)}, false, kSiluMul, 110);
    check_grouped_dual<Op, bf16>({masked, mixed_counts(7, 260, 12), false, true, true, 128, 64}, true,
                                 kSiluMul, 120);
  }
  check_grouped_dual<Op, f16>({false, mixed_counts(5, 131, 13), true}, false, kSiluMul, 130);
}

TEST(GroupedDualGemmSm100, Tokens128) {
  dual_cases<sm100::GroupedDualGemm<sm100::GroupedDualGemmTokens128<f16, bwgemm::epi::SiluMul>>>();
}
TEST(GroupedDualGemmSm100, Tokens256) {
  dual_cases<sm100::GroupedDualGemm<sm100::GroupedDualGemmTokens256<f16, bwgemm::epi::SiluMul>>>();
}

TEST(GroupedDualGemmSm100, SwapAbTokens32) {
  using Op = sm100::GroupedDualGemmSwapAb<sm100::GroupedDualGemmSwapAbTokens32<f16, bwgemm::epi::SiluMul>>;
  for (bool masked : {false, true}) {
    check_grouped_dual<Op, f16>({masked, mixed_counts(1, 2, 111)}, false, kSiluMul, 1110);
    check_grouped_dual<Op, bf16>({masked, mixed_counts(12, 65, 112), false, true, true, 136, 64}, true,
                                 kSiluMul, 1120);
    check_grouped_dual<Op, f16>({masked, mixed_counts(5, 20, 113), true}, false, kSiluMul, 1130);
  }
}

// The other gated functors, through the default entry point (gpt-oss's clamped SwiGLU, GELU-tanh).
TEST(GroupedDualGemmSm100, OtherActivations) {
  const bwgemm::epi::SiluMulClamped clamped{7.0f, 1.702f};
  Tokens t = make_tokens(false, mixed_counts(4, 90, 14), false);
  const int64_t n = 64, k = 64;
  const std::vector<bf16> a = random_16bit<bf16>(static_cast<size_t>(token_rows(t) * k), 140);
  std::vector<float> big(static_cast<size_t>(t.experts * n * k));
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = 12.0f * std::sin(0.37f * static_cast<float>(i));  // past the limit
  std::vector<bf16> b1(big.size()), b2(big.size());
  for (size_t i = 0; i < big.size(); ++i)
    b1[i] = ref::from_float<bf16>(big[i]), b2[i] = ref::from_float<bf16>(big[big.size() - 1 - i]);
  std::vector<bf16> c(static_cast<size_t>(token_rows(t) * n + kGuard), ref::from_float<bf16>(kPoison));
  std::vector<bf16> want = c;
  bwgemm::GroupedDualGemmArguments<bf16, bf16, bwgemm::epi::SiluMulClamped> args;
  set_tokens(t, &args);
  args.n = n, args.k = k, args.a = a.data(), args.b1 = b1.data(), args.b2 = b2.data(), args.c = c.data();
  args.epilogue = clamped;
  ASSERT_TRUE(sm100::grouped_dual_gemm(args).ok());
  auto r = args;
  r.c = want.data();
  ref::grouped_dual_gemm(
      r, [&](float g, float u) { return ref::silu_mul_clamped(g, u, 7.0, 1.702); }, 1);
  EXPECT_EQ(count_wrong(c, want, false), 0);

  bwgemm::GroupedDualGemmArguments<bf16, bf16, bwgemm::epi::GeluTanhMul> gelu;
  set_tokens(t, &gelu);
  gelu.n = n, gelu.k = k, gelu.a = a.data(), gelu.b1 = b1.data(), gelu.b2 = b2.data(), gelu.c = c.data();
  gelu.alpha1 = 0.05f, gelu.alpha2 = 0.05f;
  std::fill(c.begin(), c.end(), ref::from_float<bf16>(kPoison));
  want = c;
  ASSERT_TRUE(sm100::grouped_dual_gemm(gelu).ok());
  auto rg = gelu;
  rg.c = want.data();
  ref::grouped_dual_gemm(
      rg, [](float g, float u) { return ref::gelu_tanh_mul(g, u); }, 1);
  EXPECT_EQ(count_wrong(c, want, false), 0);
}

// ---- the NVFP4 grouped GEMM and dual GEMM -----------------------------------------------------------------

// An NVFP4 A of the tokens as bwgemm::quantize_nvfp4_grouped writes it on the device (its placement is
// checked against docs/moe.md's in test_grouped_quantize_emu).
struct Nvfp4Tokens {
  std::vector<uint8_t> data, scales;
};
Nvfp4Tokens quantized_tokens(const Tokens& t, int64_t k, uint32_t seed) {
  const std::vector<float> x = random_floats(static_cast<size_t>(token_rows(t) * k), seed);
  const int64_t scale_rows = t.masked ? t.experts * bwgemm::round_up(t.max_tokens, 128)
                                      : grouped::grouped_scale_rows(t.total, t.experts);
  Nvfp4Tokens q;
  q.data.assign(static_cast<size_t>(token_rows(t) * k / 2), kPoisonByte);
  q.scales.assign(static_cast<size_t>(bwgemm::blocked_scale_bytes(scale_rows, k / 16)), kPoisonByte);
  const bwgemm::GroupedTokens tokens = t.masked ? bwgemm::masked_tokens(t.max_tokens, t.meta.data())
                                                : bwgemm::contiguous_tokens(t.total, t.meta.data());
  const bwgemm::Status s = bwgemm::quantize_nvfp4_grouped(x.data(), tokens, t.experts, k, k, 1.0f, nullptr,
                                                          q.data.data(), q.scales.data(), nullptr);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return q;
}

template <class Op>
void check_nvfp4_grouped_gemm(bool masked, const std::vector<int64_t>& counts, bool bad, uint32_t seed) {
  using Out = typename Op::Out;
  Tokens t = make_tokens(masked, counts, bad);
  SCOPED_TRACE(describe(t, bad));
  const int64_t n = 144, k = 128, ldd = n + 16;
  const Nvfp4Tokens a = quantized_tokens(t, k, seed);
  const Weights b = weights(t.experts, n, k, seed + 1);
  const std::vector<float> alphas = random_floats(static_cast<size_t>(t.experts), seed + 2);
  std::vector<Out> d(static_cast<size_t>(token_rows(t) * ldd + kGuard), ref::from_float<Out>(kPoison));
  std::vector<Out> want = d;
  uint32_t status = 0;
  bwgemm::Nvfp4GroupedGemmArguments<Out> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = {a.data.data(), a.scales.data()};
  args.b = {b.data.data(), b.scales.data()};
  args.d = d.data(), args.ldd = ldd;
  args.alpha = 2.0f, args.alpha_ptr = alphas.data();
  args.status = &status;
  const bwgemm::Status s = Op::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto r = args;
  r.d = want.data();
  EXPECT_EQ(status, ref::nvfp4_grouped_gemm(r, 1));
  EXPECT_EQ(status, t.status);
  EXPECT_EQ(count_wrong(d, want, false), 0);
}

template <class Op>
void nvfp4_gemm_cases() {
  for (bool masked : {false, true}) {
    check_nvfp4_grouped_gemm<Op>(masked, mixed_counts(1, 9, 21), false, 210);
    check_nvfp4_grouped_gemm<Op>(masked, mixed_counts(9, 300, 22), false, 220);
    check_nvfp4_grouped_gemm<Op>(masked, mixed_counts(5, 140, 23), true, 230);
  }
}

TEST(GroupedNvfp4GemmSm100, Tokens128) {
  nvfp4_gemm_cases<sm100::GroupedNvfp4Gemm<sm100::GroupedNvfp4GemmTokens128<f16>>>();
}
TEST(GroupedNvfp4GemmSm100, Tokens256) {
  nvfp4_gemm_cases<sm100::GroupedNvfp4Gemm<sm100::GroupedNvfp4GemmTokens256<f16>>>();
}

TEST(GroupedNvfp4GemmSm100, SwapAbTokens32) {
  nvfp4_gemm_cases<sm100::GroupedNvfp4GemmSwapAb<sm100::GroupedNvfp4GemmSwapAbTokens32<f16>>>();
}

// FC1 with gate and up two views of one stacked [E, 2N, K] NVFP4 tensor (N a multiple of 128).
template <class Op>
void check_nvfp4_grouped_dual(bool masked, const std::vector<int64_t>& counts, bool bad, uint32_t seed) {
  using Out = typename Op::Out;
  Tokens t = make_tokens(masked, counts, bad);
  SCOPED_TRACE(describe(t, bad));
  const int64_t n = 128, k = 128;
  const Nvfp4Tokens a = quantized_tokens(t, k, seed);
  const Weights w = weights(t.experts, 2 * n, k, seed + 1);
  const std::vector<float> alphas1 = random_floats(static_cast<size_t>(t.experts), seed + 2);
  std::vector<Out> c(static_cast<size_t>(token_rows(t) * n + kGuard), ref::from_float<Out>(kPoison));
  std::vector<Out> want = c;
  uint32_t status = 0;
  bwgemm::Nvfp4GroupedDualGemmArguments<Out> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = {a.data.data(), a.scales.data()};
  args.b1 = {w.data.data(), w.scales.data()};
  args.b2 = {w.data.data() + n * k / 2, w.scales.data() + bwgemm::blocked_scale_bytes(n, k / 16)};
  args.b_data_expert_stride = 2 * n * k / 2;
  args.b_scales_expert_stride = bwgemm::blocked_scale_bytes(2 * n, k / 16);
  args.c = c.data();
  args.alpha1 = 1.5f, args.alpha1_ptr = alphas1.data(), args.alpha2 = 0.5f;
  args.status = &status;
  const bwgemm::Status s = Op::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto r = args;
  r.c = want.data();
  EXPECT_EQ(status, ref::nvfp4_grouped_dual_gemm(r, kSiluMul, 1));
  EXPECT_EQ(status, t.status);
  EXPECT_EQ(count_wrong(c, want, false), 0);
}

template <class Op>
void nvfp4_dual_cases() {
  for (bool masked : {false, true}) {
    check_nvfp4_grouped_dual<Op>(masked, mixed_counts(1, 3, 31), false, 310);
    check_nvfp4_grouped_dual<Op>(masked, mixed_counts(8, 300, 32), false, 320);
    check_nvfp4_grouped_dual<Op>(masked, mixed_counts(4, 129, 33), true, 330);
  }
}

TEST(GroupedNvfp4DualGemmSm100, Tokens128) {
  nvfp4_dual_cases<
      sm100::GroupedNvfp4DualGemm<sm100::GroupedNvfp4DualGemmTokens128<f16, bwgemm::epi::SiluMul>>>();
}
TEST(GroupedNvfp4DualGemmSm100, Tokens256) {
  nvfp4_dual_cases<
      sm100::GroupedNvfp4DualGemm<sm100::GroupedNvfp4DualGemmTokens256<f16, bwgemm::epi::SiluMul>>>();
}
TEST(GroupedNvfp4DualGemmSm100, SwapAbTokens32) {
  nvfp4_dual_cases<sm100::GroupedNvfp4DualGemmSwapAb<
      sm100::GroupedNvfp4DualGemmSwapAbTokens32<f16, bwgemm::epi::SiluMul>>>();
  const Delays delays(13);
  check_nvfp4_grouped_dual<sm100::GroupedNvfp4DualGemmSwapAb<
      sm100::GroupedNvfp4DualGemmSwapAbTokens32<bf16, bwgemm::epi::SiluMul>>>(true, mixed_counts(7, 45, 36),
                                                                              true, 360);
}

TEST(GroupedNvfp4DualGemmSm100, Bf16OutputAndRandomAsyncDelays) {
  const Delays delays(7);
  check_nvfp4_grouped_dual<
      sm100::GroupedNvfp4DualGemm<sm100::GroupedNvfp4DualGemmTokens256<bf16, bwgemm::epi::SiluMul>>>(
      false, mixed_counts(6, 200, 34), true, 340);
  check_nvfp4_grouped_gemm<sm100::GroupedNvfp4Gemm<sm100::GroupedNvfp4GemmTokens128<bf16>>>(
      true, mixed_counts(5, 150, 35), false, 350);
}

// FC1 with an NVFP4 C for FC2: the exact tier (every e2m1 product and sum exact in fp32: A's and the
// weights' scales all 1.0, epi::Multiply, power-of-two alphas), so the kernel's fp32 values are the
// reference's bit for bit and the output bytes (data, scales, the zero scales of each expert's last atom's
// padding rows) must be the reference quantizer's byte for byte; bytes no expert owns keep their poison.
template <class Cfg>
void check_nvfp4_grouped_dual_nvfp4_out(bool masked, const std::vector<int64_t>& counts, bool bad,
                                        uint32_t seed) {
  Tokens t = make_tokens(masked, counts, bad);
  SCOPED_TRACE(describe(t, bad) + ", NVFP4 C");
  const int64_t experts = t.experts, n = 128, k = 128;
  constexpr uint8_t kOne = 0x38;  // e4m3 1.0
  std::mt19937 rng(seed);
  const auto codes = [&](size_t bytes) {
    std::vector<uint8_t> v(bytes);
    for (auto& x : v) x = static_cast<uint8_t>(rng());
    return v;
  };
  const int64_t a_scale_rows =
      masked ? experts * bwgemm::round_up(t.max_tokens, 128) : grouped::grouped_scale_rows(t.total, experts);
  const std::vector<uint8_t> a_data = codes(static_cast<size_t>(token_rows(t) * k / 2));
  const std::vector<uint8_t> a_scales(static_cast<size_t>(bwgemm::blocked_scale_bytes(a_scale_rows, k / 16)),
                                      kOne);
  const std::vector<uint8_t> b1 = codes(static_cast<size_t>(experts * n * k / 2)), b2 = codes(b1.size());
  const std::vector<uint8_t> b_scales(static_cast<size_t>(bwgemm::blocked_scale_bytes(n, k / 16, experts)),
                                      kOne);
  const std::vector<float> gscales = pow2_scales(experts, seed + 1);
  std::vector<uint8_t> c_data(static_cast<size_t>(token_rows(t) * n / 2 + kGuard), kPoisonByte);
  std::vector<uint8_t> c_scales(
      static_cast<size_t>(bwgemm::blocked_scale_bytes(a_scale_rows, n / 16) + kGuard), kPoisonByte);
  std::vector<uint8_t> want_data = c_data, want_scales = c_scales;
  uint32_t status = 0;
  bwgemm::Nvfp4GroupedDualGemmArguments<bwgemm::Nvfp4Output, bwgemm::epi::Multiply> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = {a_data.data(), a_scales.data()};
  args.b1 = {b1.data(), b_scales.data()}, args.b2 = {b2.data(), b_scales.data()};
  args.c = {c_data.data(), c_scales.data()};
  args.c_global_scale = 0.5f, args.c_global_scale_ptr = gscales.data();
  args.alpha1 = 0.5f, args.alpha2 = 2.0f;
  args.status = &status;
  const bwgemm::Status s = sm100::GroupedNvfp4DualGemm<Cfg>::run(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto r = args;
  r.c = {want_data.data(), want_scales.data()};
  EXPECT_EQ(status, ref::nvfp4_grouped_dual_gemm_nvfp4_out(
                        r, [](float g, float u) { return ref::multiply(g, u); }, 1));
  EXPECT_EQ(status, t.status);
  EXPECT_TRUE(same_bits(c_data, want_data)) << "data: " << first_difference(c_data, want_data);
  EXPECT_TRUE(same_bits(c_scales, want_scales)) << "scales: " << first_difference(c_scales, want_scales);
}

template <class Cfg>
void nvfp4_out_cases() {
  for (bool masked : {false, true}) {
    check_nvfp4_grouped_dual_nvfp4_out<Cfg>(masked, mixed_counts(1, 5, 41), false, 410);
    check_nvfp4_grouped_dual_nvfp4_out<Cfg>(masked, mixed_counts(7, 300, 42), false, 420);
    check_nvfp4_grouped_dual_nvfp4_out<Cfg>(masked, mixed_counts(5, 129, 43), true, 430);
  }
}

TEST(GroupedNvfp4DualGemmSm100, Nvfp4OutputTokens128) {
  nvfp4_out_cases<sm100::GroupedNvfp4DualGemmTokens128<bwgemm::Nvfp4Output, bwgemm::epi::Multiply>>();
}
TEST(GroupedNvfp4DualGemmSm100, Nvfp4OutputTokens256) {
  nvfp4_out_cases<sm100::GroupedNvfp4DualGemmTokens256<bwgemm::Nvfp4Output, bwgemm::epi::Multiply>>();
}

// ---- the default entry points -----------------------------------------------------------------------------

// The expected tokens per expert (the hint, else the buffers' rows over E) pick swap AB (up to 32), the
// 128-row tiles (up to 128) or the 256-row ones.
TEST(GroupedSm100Default, TheHintPicksTheKernel) {
  Tokens t = make_tokens(false, {100, 0, 180}, false);
  const int64_t n = 64, k = 64;
  const std::vector<f16> a = small_ints<f16>(static_cast<size_t>(token_rows(t) * k), 400);
  const std::vector<f16> b = small_ints<f16>(static_cast<size_t>(t.experts * n * k), 401);
  std::vector<f16> d(static_cast<size_t>(token_rows(t) * n), ref::from_float<f16>(kPoison));
  bwgemm::GroupedGemmArguments<f16> args;
  set_tokens(t, &args);
  args.n = n, args.k = k, args.a = a.data(), args.b = b.data(), args.d = d.data();
  for (int64_t hint : {int64_t{0}, int64_t{16}, int64_t{200}}) {
    args.expected_tokens_per_expert = hint;
    bwgemm::set_diagnostics(true);
    ::testing::internal::CaptureStderr();
    ASSERT_TRUE(bwgemm::grouped_gemm(args).ok());
    const std::string said = ::testing::internal::GetCapturedStderr();
    bwgemm::set_diagnostics(false);
    // No hint: 283 buffer rows over 3 experts = 95 expected tokens.
    const char* kernel = hint == 200  ? "GroupedGemmTokens256"
                         : hint == 16 ? "GroupedGemmSwapAbTokens32"
                                      : "GroupedGemmTokens128";
    EXPECT_NE(said.find(kernel), std::string::npos) << said;
    std::vector<f16> want(d.size(), ref::from_float<f16>(kPoison));
    auto r = args;
    r.d = want.data();
    ref::grouped_gemm(r, 1);
    EXPECT_EQ(count_wrong(d, want, true), 0);
  }
}

// The entry points validate before anything else: a message naming the argument, nothing launched.
TEST(GroupedSm100Default, InvalidArgumentsNameTheArgument) {
  Tokens t = make_tokens(true, {3, 4}, false);
  std::vector<f16> a(static_cast<size_t>(token_rows(t) * 64)), b(2 * 64 * 64), d(a.size());
  bwgemm::GroupedGemmArguments<f16> args;
  set_tokens(t, &args);
  args.n = 64, args.k = 64, args.a = a.data(), args.b = b.data(), args.d = d.data();
  ASSERT_TRUE(bwgemm::grouped_gemm(args).ok());
  auto bad = args;
  bad.k = 60;
  bwgemm::Status s = bwgemm::grouped_gemm(bad);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.to_string().find("K must be"), std::string::npos) << s.to_string();
  bad = args;
  bad.d = reinterpret_cast<f16*>(const_cast<f16*>(a.data()));
  s = sm100::grouped_gemm(bad);
  EXPECT_NE(s.to_string().find("overlaps"), std::string::npos) << s.to_string();
  bad = args;
  bad.experts = 0;
  s = sm100::GroupedGemm<sm100::GroupedGemmTokens128<f16>>::run(bad);
  EXPECT_NE(s.to_string().find("experts"), std::string::npos) << s.to_string();
  // A grid the 32-bit tile ids cannot hold: 65535 experts of a masked slab of 2^20 rows, N 2^14.
  auto big = args;
  big.tokens = bwgemm::masked_tokens(int64_t{1} << 20, t.meta.data());
  big.experts = 65535;
  big.n = int64_t{1} << 14;
  s = sm100::GroupedGemm<sm100::GroupedGemmTokens256<f16>>::can_implement(big);
  EXPECT_FALSE(s.ok());
}

}  // namespace
