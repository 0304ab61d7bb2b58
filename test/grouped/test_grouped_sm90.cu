// The sm_90a grouped GEMM and grouped dual GEMM (sm90/grouped_gemm.cuh) against the host references
// (reference/grouped.hpp), natively on a GPU of compute capability 9.0 (H100/H200); every GPU case skips with
// a message elsewhere; the argument refusals and the kernels' tile walk replayed on the host (every owned row
// and column tile taken once by the persistent grid, for grids of 1 to 132 CTAs) run everywhere.
//
// Every GPU case runs the tiled kernels (GroupedGemmTile128x128, GroupedDualGemmTile128x64) and the swap-AB
// ones (GroupedGemmSwapAbTokens32, GroupedDualGemmSwapAbTokens32) by name; the decode cases (a few tokens per
// expert) and the choice cases go through the default entry points.
// Cases: E = 1 .. 16 with ragged counts up to 300 rows (empty experts first, in the middle and last, one-row
// experts), both layouts, padded row strides and (masked) expert strides, per-expert alphas, every shipped
// gated functor for the dual GEMM, bad device metadata (decreasing offsets, offsets past total_tokens,
// negative counts, counts above max_tokens), and the same call replayed after the device's counts changed.
// Every output byte is compared: the experts' rows within fp32-accumulation tolerance of the reference, every
// other byte (rows no expert owns, padding columns, the guard bands around each buffer) still holding its
// poison; the status word equals the reference's bits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/grouped_gemm.cuh"
#include "bwgemm/reference/activations.hpp"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/grouped.hpp"
#include "bwgemm/sm90/grouped_gemm.cuh"
#include "device.hpp"

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
namespace ref = bwgemm::ref;
namespace grouped = bwgemm::grouped;
using bf16 = __nv_bfloat16;
using f16 = __half;

constexpr uint8_t kPoison = kPoisonByte;  // 0xFF: a NaN in fp16, bf16 and fp32

// The kernels a case runs: the public dispatch (bwgemm::grouped_gemm, grouped_dual_gemm: sm90's default
// choice on a compute-capability-9.0 GPU), or a grouped Config of sm90 by name.
enum class Kernel { kDefault, kTiled, kSwapAb };
constexpr Kernel kKernels[] = {Kernel::kTiled, Kernel::kSwapAb};
const char* kernel_name(Kernel k) {
  return k == Kernel::kDefault ? "default" : k == Kernel::kTiled ? "tiled" : "swap AB";
}

template <class T>
uint32_t bits_of(T v) {
  uint32_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
constexpr uint32_t poison_bits() {
  return sizeof(T) == 2 ? 0xFFFFu : 0xFFFFFFFFu;
}
template <class T>
constexpr double unit_roundoff() {
  return std::is_same_v<T, f16> ? 0x1p-11 : std::is_same_v<T, bf16> ? 0x1p-8 : 0x1p-24;
}

// ---- the tokens of one case
// --------------------------------------------------------------------------------

// The layout, E, the buffers' rows (total_tokens, or max_tokens per slab) and the device array's values.
struct Tokens {
  bool masked = false;
  int64_t experts = 0, rows = 0;
  std::vector<int32_t> meta;  // offsets or counts
};

// Contiguous: the cumulative ends of `counts`, `spare` rows past the last one that no expert owns.
Tokens contiguous(const std::vector<int64_t>& counts, int64_t spare = 5) {
  Tokens t;
  t.experts = static_cast<int64_t>(counts.size());
  int64_t end = 0;
  for (int64_t c : counts) t.meta.push_back(static_cast<int32_t>(end += c));
  t.rows = end + spare;
  return t;
}
// Masked: slabs of the largest count + `spare` rows.
Tokens masked(const std::vector<int64_t>& counts, int64_t spare = 3) {
  Tokens t;
  t.masked = true;
  t.experts = static_cast<int64_t>(counts.size());
  for (int64_t c : counts) t.meta.push_back(static_cast<int32_t>(c));
  t.rows = *std::max_element(counts.begin(), counts.end()) + spare;
  return t;
}

// Ragged counts up to 300 rows, zeros first, in the middle and last and one-row experts (E >= 4).
std::vector<int64_t> ragged(int64_t experts, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> c(static_cast<size_t>(experts));
  for (auto& x : c) x = rng() % 301;
  if (experts >= 4) {
    c[0] = 0, c[static_cast<size_t>(experts / 2)] = 0, c.back() = 0;
    c[1] = 1, c[static_cast<size_t>(experts / 2 + 1 < experts - 1 ? experts / 2 + 1 : 1)] = 1;
  }
  return c;
}

template <class T>
std::vector<T> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<T> v(n);
  for (auto& x : v) x = ref::from_float<T>(u(rng));
  return v;
}

std::vector<float> expert_alphas(int64_t experts, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.25f, 2.0f);
  std::vector<float> v(static_cast<size_t>(experts));
  for (auto& x : v) x = u(rng);
  return v;
}

// A device buffer holding `v`.
template <class T>
void upload(DeviceBytes& d, const std::vector<T>& v) {
  d.upload(v.data(), v.size() * sizeof(T));
}

// ---- one operation's buffers on the device and the host ---------------------------------------------------

// The shapes of one case: the tokens' rows, N, K, the padding of the row strides, the masked expert gap.
struct Shape {
  int64_t n = 0, k = 0;
  int64_t pad = 8;         // added to lda and to the output's ld (the padding columns must keep the poison)
  int64_t expert_gap = 8;  // masked: added to the A and output expert strides
};

// Strides of a matrix of the tokens: ld, and the expert stride (masked; 0 contiguous), elements; its size.
struct TokenMatrix {
  int64_t ld = 0, expert_stride = 0, elements = 0;
};
TokenMatrix token_matrix(const Tokens& t, int64_t cols, const Shape& s) {
  TokenMatrix m;
  m.ld = cols + s.pad;
  if (t.masked) {
    m.expert_stride = t.rows * m.ld + s.expert_gap;
    m.elements = t.experts * m.expert_stride;
  } else {
    m.elements = t.rows * m.ld;
  }
  return m;
}

// Compares an output buffer with the reference's: the reference's poisoned elements (rows no expert owns,
// padding) bitwise, the others within `tol(want)`. Returns the mismatches (the first 5 reported).
template <class Out, class Tol>
int64_t expect_output_matches(const std::vector<Out>& got, const std::vector<Out>& want, const Tol& tol,
                              const char* what) {
  EXPECT_EQ(got.size(), want.size());
  int64_t bad = 0;
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    bool ok;
    if (bits_of(want[i]) == poison_bits<Out>()) {
      ok = bits_of(got[i]) == poison_bits<Out>();
    } else {
      const double g = ref::to_float(got[i]), w = ref::to_float(want[i]);
      ok = std::isfinite(g) && std::fabs(g - w) <= tol(w);
    }
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << what << " element " << i << ": got " << ref::to_float(got[i]) << " (0x" << std::hex
                    << bits_of(got[i]) << "), want " << ref::to_float(want[i]) << " (0x" << bits_of(want[i])
                    << std::dec << ")"
                    << (bits_of(want[i]) == poison_bits<Out>() ? ": a row no expert owns" : "");
  }
  return bad;
}

// The device metadata and status word of a case, with the host copy of the metadata.
struct Metadata {
  Tokens t;
  DeviceBytes meta, status;
  explicit Metadata(const Tokens& tokens) : t(tokens), meta(tokens.meta.size() * 4), status(4) {}
  // New device values (the same E): what a CUDA graph replay would see.
  void set(const std::vector<int32_t>& values) {
    ASSERT_EQ(values.size(), t.meta.size());
    t.meta = values;
    upload(meta, values);
    status.fill(0);
  }
  bwgemm::GroupedTokens device_tokens() const {
    const auto* p = reinterpret_cast<const int32_t*>(meta.data());
    return t.masked ? bwgemm::masked_tokens(t.rows, p) : bwgemm::contiguous_tokens(t.rows, p);
  }
  bwgemm::GroupedTokens host_tokens() const {
    return t.masked ? bwgemm::masked_tokens(t.rows, t.meta.data())
                    : bwgemm::contiguous_tokens(t.rows, t.meta.data());
  }
  uint32_t device_status() const {
    uint32_t s = 0;
    const std::vector<uint8_t> bytes = status.download_checked();
    std::memcpy(&s, bytes.data(), 4);
    return s;
  }
};

// ---- the grouped GEMM
// ---------------------------------------------------------------------------------------

template <class In, class Out>
class GemmCase {
 public:
  GemmCase(const Tokens& t, const Shape& s, bool per_expert_alpha, uint32_t seed)
      : md_(t),
        s_(s),
        am_(token_matrix(t, s.k, s)),
        dm_(token_matrix(t, s.n, s)),
        a_(random_values<In>(static_cast<size_t>(am_.elements), seed)),
        b_(random_values<In>(static_cast<size_t>(t.experts * s.n * s.k), seed + 1)),
        alphas_(per_expert_alpha ? expert_alphas(t.experts, seed + 2) : std::vector<float>{}),
        da_(a_.size() * sizeof(In)),
        db_(b_.size() * sizeof(In)),
        dd_(static_cast<size_t>(dm_.elements) * sizeof(Out)),
        dalpha_(std::max<size_t>(alphas_.size(), 1) * 4) {
    upload(da_, a_);
    upload(db_, b_);
    if (!alphas_.empty()) upload(dalpha_, alphas_);
  }

  // Runs the call on `kernel` with the device's values `meta` and compares D and the status word with the
  // reference.
  void check(const std::vector<int32_t>& meta, Kernel kernel = Kernel::kDefault) {
    SCOPED_TRACE(kernel_name(kernel));
    md_.set(meta);
    dd_.fill(kPoison);
    bwgemm::GroupedGemmArguments<In, Out> args = arguments(true);
    const bwgemm::Status st =
        kernel == Kernel::kTiled    ? sm90::GroupedGemm<sm90::GroupedGemmTile128x128<Out>>::run(args)
        : kernel == Kernel::kSwapAb ? sm90::GroupedGemmSwapAb<sm90::GroupedGemmSwapAbTokens32<Out>>::run(args)
                                    : bwgemm::grouped_gemm(args);  // the public dispatch: sm90 on cc 9.0
    ASSERT_TRUE(st.ok()) << st.to_string();
    synchronize();

    std::vector<Out> want(static_cast<size_t>(dm_.elements));
    std::memset(want.data(), kPoison, want.size() * sizeof(Out));
    bwgemm::GroupedGemmArguments<In, Out> host = arguments(false);
    host.d = want.data();
    const uint32_t want_status = ref::grouped_gemm(host);
    const double amax = alphas_.empty() ? 1.0 : *std::max_element(alphas_.begin(), alphas_.end());
    const double k = static_cast<double>(s_.k);
    expect_output_matches(
        download_as<Out>(dd_), want,
        [&](double w) { return 2 * unit_roundoff<Out>() * std::fabs(w) + 1e-6 * k * amax + 1e-6; }, "D");
    EXPECT_EQ(md_.device_status(), want_status) << "status: " << grouped::describe_status(md_.device_status())
                                                << "; want " << grouped::describe_status(want_status);
  }

  bwgemm::GroupedGemmArguments<In, Out> arguments(bool device) {
    bwgemm::GroupedGemmArguments<In, Out> a;
    a.tokens = device ? md_.device_tokens() : md_.host_tokens();
    a.experts = md_.t.experts;
    a.n = s_.n, a.k = s_.k;
    a.a = device ? reinterpret_cast<const In*>(da_.data()) : a_.data();
    a.lda = am_.ld, a.a_expert_stride = am_.expert_stride;
    a.b = device ? reinterpret_cast<const In*>(db_.data()) : b_.data();
    a.d = device ? reinterpret_cast<Out*>(dd_.data()) : nullptr;
    a.ldd = dm_.ld, a.d_expert_stride = dm_.expert_stride;
    a.alpha = 0.75f;
    if (!alphas_.empty())
      a.alpha_ptr = device ? reinterpret_cast<const float*>(dalpha_.data()) : alphas_.data();
    a.expected_tokens_per_expert = expected;
    if (device) a.status = reinterpret_cast<uint32_t*>(md_.status.data());
    return a;
  }

  int64_t expected = 0;  // expected_tokens_per_expert (0: no hint)

 private:
  Metadata md_;
  Shape s_;
  TokenMatrix am_, dm_;
  std::vector<In> a_, b_;
  std::vector<float> alphas_;
  DeviceBytes da_, db_, dd_, dalpha_;
};

template <class In, class Out>
void check_gemm(const Tokens& t, const Shape& s, bool per_expert_alpha, uint32_t seed,
                Kernel kernel = Kernel::kDefault) {
  SCOPED_TRACE(std::string(t.masked ? "masked" : "contiguous") + " E " + std::to_string(t.experts) +
               " rows " + std::to_string(t.rows) + " N " + std::to_string(s.n) + " K " + std::to_string(s.k));
  GemmCase<In, Out> c(t, s, per_expert_alpha, seed);
  c.check(t.meta, kernel);
}

// ---- the grouped dual GEMM
// ----------------------------------------------------------------------------------

template <class In, class Out, class Epilogue>
class DualCase {
 public:
  DualCase(const Tokens& t, const Shape& s, bool per_expert_alpha, uint32_t seed, Epilogue f = {})
      : md_(t),
        s_(s),
        f_(f),
        am_(token_matrix(t, s.k, s)),
        cm_(token_matrix(t, s.n, s)),
        a_(random_values<In>(static_cast<size_t>(am_.elements), seed)),
        w_(random_values<In>(static_cast<size_t>(t.experts * 2 * s.n * s.k), seed + 1)),
        alpha1_(per_expert_alpha ? expert_alphas(t.experts, seed + 2) : std::vector<float>{}),
        alpha2_(per_expert_alpha ? expert_alphas(t.experts, seed + 3) : std::vector<float>{}),
        da_(a_.size() * sizeof(In)),
        dw_(w_.size() * sizeof(In)),
        dc_(static_cast<size_t>(cm_.elements) * sizeof(Out)),
        dalpha1_(std::max<size_t>(alpha1_.size(), 1) * 4),
        dalpha2_(std::max<size_t>(alpha2_.size(), 1) * 4) {
    upload(da_, a_);
    upload(dw_, w_);
    if (!alpha1_.empty()) upload(dalpha1_, alpha1_), upload(dalpha2_, alpha2_);
  }

  // `act`: the host form of the functor (reference/activations.hpp).
  template <class Act>
  void check(const std::vector<int32_t>& meta, const Act& act, Kernel kernel = Kernel::kDefault) {
    SCOPED_TRACE(kernel_name(kernel));
    md_.set(meta);
    dc_.fill(kPoison);
    const bwgemm::GroupedDualGemmArguments<In, Out, Epilogue> args = arguments(true);
    const bwgemm::Status st =
        kernel == Kernel::kTiled
            ? sm90::GroupedDualGemm<sm90::GroupedDualGemmTile128x64<Out, Epilogue>>::run(args)
        : kernel == Kernel::kSwapAb
            ? sm90::GroupedDualGemmSwapAb<sm90::GroupedDualGemmSwapAbTokens32<Out, Epilogue>>::run(args)
            : bwgemm::grouped_dual_gemm(args);  // the public dispatch
    ASSERT_TRUE(st.ok()) << st.to_string();
    synchronize();

    std::vector<Out> want(static_cast<size_t>(cm_.elements));
    std::memset(want.data(), kPoison, want.size() * sizeof(Out));
    bwgemm::GroupedDualGemmArguments<In, Out, Epilogue> host = arguments(false);
    host.c = want.data();
    const uint32_t want_status = ref::grouped_dual_gemm(host, act);
    double sq = 0.0;
    int64_t owned = 0;
    for (const Out& w : want)
      if (bits_of(w) != poison_bits<Out>()) sq += ref::to_float(w) * ref::to_float(w), ++owned;
    const double rms = owned > 0 ? std::sqrt(sq / static_cast<double>(owned)) : 0.0;
    expect_output_matches(
        download_as<Out>(dc_), want,
        [&](double w) { return 2 * unit_roundoff<Out>() * std::fabs(w) + 1e-3 * rms + 1e-6; }, "C");
    EXPECT_EQ(md_.device_status(), want_status) << "status: " << grouped::describe_status(md_.device_status())
                                                << "; want " << grouped::describe_status(want_status);
  }

  // B1 and B2 as the two views of one stacked [E, 2N, K] tensor (docs/moe.md).
  bwgemm::GroupedDualGemmArguments<In, Out, Epilogue> arguments(bool device) {
    bwgemm::GroupedDualGemmArguments<In, Out, Epilogue> a;
    a.tokens = device ? md_.device_tokens() : md_.host_tokens();
    a.experts = md_.t.experts;
    a.n = s_.n, a.k = s_.k;
    a.a = device ? reinterpret_cast<const In*>(da_.data()) : a_.data();
    a.lda = am_.ld, a.a_expert_stride = am_.expert_stride;
    const In* w = device ? reinterpret_cast<const In*>(dw_.data()) : w_.data();
    a.b1 = w, a.b2 = w + s_.n * s_.k;
    a.b_expert_stride = 2 * s_.n * s_.k;
    a.c = device ? reinterpret_cast<Out*>(dc_.data()) : nullptr;
    a.ldc = cm_.ld, a.c_expert_stride = cm_.expert_stride;
    a.alpha1 = 1.25f, a.alpha2 = 0.75f;
    if (!alpha1_.empty()) {
      a.alpha1_ptr = device ? reinterpret_cast<const float*>(dalpha1_.data()) : alpha1_.data();
      a.alpha2_ptr = device ? reinterpret_cast<const float*>(dalpha2_.data()) : alpha2_.data();
    }
    a.epilogue = f_;
    a.expected_tokens_per_expert = expected;
    if (device) a.status = reinterpret_cast<uint32_t*>(md_.status.data());
    return a;
  }

  int64_t expected = 0;  // expected_tokens_per_expert (0: no hint)

 private:
  Metadata md_;
  Shape s_;
  Epilogue f_;
  TokenMatrix am_, cm_;
  std::vector<In> a_, w_;
  std::vector<float> alpha1_, alpha2_;
  DeviceBytes da_, dw_, dc_, dalpha1_, dalpha2_;
};

const auto kSiluMulRef = [](float g, float u) { return ref::silu_mul(g, u); };

template <class In, class Out>
void check_dual(const Tokens& t, const Shape& s, bool per_expert_alpha, uint32_t seed,
                Kernel kernel = Kernel::kDefault) {
  SCOPED_TRACE(std::string(t.masked ? "masked" : "contiguous") + " E " + std::to_string(t.experts) +
               " rows " + std::to_string(t.rows) + " N " + std::to_string(s.n) + " K " + std::to_string(s.k));
  DualCase<In, Out, bwgemm::epi::SiluMul> c(t, s, per_expert_alpha, seed);
  c.check(t.meta, kSiluMulRef, kernel);
}

// ---- the cases
// ---------------------------------------------------------------------------------------------

// E = 1 .. 16, ragged counts, both layouts, fp16 and bf16; N a multiple of 8 but not of the tiles' columns,
// K a multiple of 8 but not of 64 (TMA zero-fills the last K block).
TEST(Sm90GroupedGemm, RaggedCountsBothLayouts) {
  BWGEMM_REQUIRE_SM90();
  for (Kernel kernel : kKernels) {
    uint32_t seed = 100;
    for (int64_t experts : {1, 2, 3, 5, 8, 16}) {
      const std::vector<int64_t> counts = ragged(experts, seed);
      const Shape s{experts % 2 ? 200 : 136, experts % 3 ? 328 : 72};
      check_gemm<bf16, bf16>(contiguous(counts), s, experts % 2 == 0, seed++, kernel);
      check_gemm<bf16, bf16>(masked(counts), s, experts % 2 == 1, seed++, kernel);
    }
    const std::vector<int64_t> counts = ragged(7, 7);
    check_gemm<f16, f16>(contiguous(counts), Shape{264, 128}, true, seed++, kernel);
    check_gemm<f16, f16>(masked(counts), Shape{64, 200}, false, seed++, kernel);
  }
}

// Every expert with one row, one expert with one row, and every expert empty (no tile at all: nothing
// written).
TEST(Sm90GroupedGemm, OneTokenAndEmptyExperts) {
  BWGEMM_REQUIRE_SM90();
  const Shape s{136, 96};
  for (Kernel kernel : kKernels) {
    check_gemm<bf16, bf16>(contiguous(std::vector<int64_t>(16, 1)), s, true, 200, kernel);
    check_gemm<bf16, bf16>(masked(std::vector<int64_t>(16, 1)), s, true, 201, kernel);
    check_gemm<bf16, bf16>(contiguous({1}, 0), s, false, 202, kernel);
    check_gemm<bf16, bf16>(masked({1}, 0), s, false, 203, kernel);
    check_gemm<bf16, bf16>(contiguous({0, 0, 0}), s, false, 204, kernel);
    check_gemm<bf16, bf16>(masked({0, 0, 0, 0}), s, false, 205, kernel);
  }
}

// Bad device values: what each expert owns is clamped (base/grouped.hpp), nothing outside it is written,
// and the status word has the reference's bits.
std::vector<int32_t> bad_offsets_decreasing(const Tokens& t) {
  std::vector<int32_t> m = t.meta;
  m[2] = m[1] - 40;  // expert 2 ends below expert 1's end
  m[4] = -3;         // and a negative offset
  return m;
}
std::vector<int32_t> bad_offsets_past_total(const Tokens& t) {
  std::vector<int32_t> m = t.meta;
  m[3] = static_cast<int32_t>(t.rows + 50);  // past total_tokens: experts 3.. end at total_tokens
  return m;
}
std::vector<int32_t> bad_counts(const Tokens& t) {
  std::vector<int32_t> m = t.meta;
  m[0] = static_cast<int32_t>(t.rows + 100);  // above max_tokens: cut to the slab
  m[2] = -5;                                  // negative: empty
  m.back() = static_cast<int32_t>(t.rows + 1);
  return m;
}

TEST(Sm90GroupedGemm, BadMetadataClampedAndReported) {
  BWGEMM_REQUIRE_SM90();
  const std::vector<int64_t> counts{130, 70, 90, 5, 120, 33};
  const Shape s{136, 128};
  for (Kernel kernel : kKernels) {
    {
      const Tokens t = contiguous(counts);
      GemmCase<bf16, bf16> c(t, s, true, 300);
      c.check(bad_offsets_decreasing(t), kernel);
      c.check(bad_offsets_past_total(t), kernel);
    }
    {
      const Tokens t = masked(counts);
      GemmCase<bf16, bf16> c(t, s, true, 301);
      c.check(bad_counts(t), kernel);
    }
  }
}

// The same call (the same argument struct, buffers and grid) with new device values, as a CUDA graph replay
// sees them: more rows, fewer rows, experts emptied and filled.
TEST(Sm90GroupedGemm, SameCallWithNewCounts) {
  BWGEMM_REQUIRE_SM90();
  const Shape s{200, 136};
  for (Kernel kernel : kKernels) {
    {
      const Tokens t = contiguous({40, 200, 0, 300, 17}, 60);
      GemmCase<bf16, bf16> c(t, s, true, 400);
      c.check(t.meta, kernel);
      c.check({0, 0, 150, 150, 617}, kernel);  // one expert takes every row
      c.check({300, 301, 302, 500, 520}, kernel);
    }
    {
      const Tokens t = masked({40, 200, 0, 300, 17});
      GemmCase<f16, f16> c(t, s, false, 401);
      c.check(t.meta, kernel);
      c.check({303, 0, 1, 129, 128}, kernel);
    }
  }
}

// The GEMM's fp32 output.
TEST(Sm90GroupedGemm, Fp32Output) {
  BWGEMM_REQUIRE_SM90();
  for (Kernel kernel : kKernels)
    check_gemm<bf16, float>(contiguous(ragged(6, 11)), Shape{136, 200}, true, 500, kernel);
}

// Decode: a few tokens per expert (0 .. 65, the swap-AB tile's 32 and its neighbours) through the default
// entry points, each layout once on the swap-AB kernels and once on the tiled ones: contiguous, 261 rows
// over 12 experts (22 expected: swap AB), then the hint 64 (tiled); masked, the slab's 65 rows (tiled),
// then the hint 22 (swap AB).
const std::vector<int64_t> kDecodeCounts{0, 1, 31, 32, 33, 5, 64, 17, 0, 2, 65, 8};

TEST(Sm90GroupedGemm, DecodeCountsDefaultChoice) {
  BWGEMM_REQUIRE_SM90();
  const Shape s{392, 136};
  for (bool is_masked : {false, true}) {
    const Tokens t = is_masked ? masked(kDecodeCounts, 0) : contiguous(kDecodeCounts, 3);
    SCOPED_TRACE(is_masked ? "masked" : "contiguous");
    GemmCase<bf16, bf16> c(t, s, true, 1000 + is_masked);
    c.check(t.meta);
    c.expected = is_masked ? 22 : 64;
    c.check(t.meta);
  }
}

TEST(Sm90GroupedDualGemm, RaggedCountsBothLayouts) {
  BWGEMM_REQUIRE_SM90();
  for (Kernel kernel : kKernels) {
    uint32_t seed = 600;
    for (int64_t experts : {1, 2, 4, 9, 16}) {
      const std::vector<int64_t> counts = ragged(experts, seed);
      const Shape s{experts % 2 ? 136 : 200, experts % 3 ? 200 : 64};
      check_dual<bf16, bf16>(contiguous(counts), s, experts % 2 == 0, seed++, kernel);
      check_dual<bf16, bf16>(masked(counts), s, experts % 2 == 1, seed++, kernel);
    }
    const std::vector<int64_t> counts = ragged(5, 5);
    check_dual<f16, f16>(contiguous(counts), Shape{72, 128}, true, seed++, kernel);
    check_dual<f16, f16>(masked(counts), Shape{128, 72}, false, seed++, kernel);
  }
}

TEST(Sm90GroupedDualGemm, BadMetadataAndNewCounts) {
  BWGEMM_REQUIRE_SM90();
  const std::vector<int64_t> counts{130, 70, 90, 5, 120, 33};
  const Shape s{136, 128};
  for (Kernel kernel : kKernels) {
    {
      const Tokens t = contiguous(counts);
      DualCase<bf16, bf16, bwgemm::epi::SiluMul> c(t, s, true, 700);
      c.check(bad_offsets_decreasing(t), kSiluMulRef, kernel);
      c.check(bad_offsets_past_total(t), kSiluMulRef, kernel);
      c.check(t.meta, kSiluMulRef, kernel);
      c.check({0, 1, 2, 300, 300, 400}, kSiluMulRef, kernel);
    }
    {
      const Tokens t = masked(counts);
      DualCase<bf16, bf16, bwgemm::epi::SiluMul> c(t, s, true, 701);
      c.check(bad_counts(t), kSiluMulRef, kernel);
      c.check({0, 0, 1, 132, 0, 7}, kSiluMulRef, kernel);
    }
    {
      const Tokens t = masked(std::vector<int64_t>(16, 1));
      DualCase<bf16, bf16, bwgemm::epi::SiluMul> c(t, s, false, 702);
      c.check(t.meta, kSiluMulRef, kernel);
    }
  }
}

TEST(Sm90GroupedDualGemm, DecodeCountsDefaultChoice) {
  BWGEMM_REQUIRE_SM90();
  const Shape s{200, 392};
  for (bool is_masked : {false, true}) {
    const Tokens t = is_masked ? masked(kDecodeCounts, 0) : contiguous(kDecodeCounts, 3);
    SCOPED_TRACE(is_masked ? "masked" : "contiguous");
    DualCase<bf16, bf16, bwgemm::epi::SiluMul> c(t, s, true, 1100 + is_masked);
    c.check(t.meta, kSiluMulRef);
    c.expected = is_masked ? 22 : 64;
    c.check(t.meta, kSiluMulRef);
  }
}

// Every shipped gated functor (epilogue/functors.cuh) against its reference (reference/activations.hpp),
// gate and up scaled up so that gpt-oss's clamp (limit 7) is reached.
template <class Epilogue, class Act>
void check_functor(const Act& act, const char* name, uint32_t seed, Epilogue f = {}) {
  SCOPED_TRACE(name);
  const Tokens t = contiguous({37, 0, 140, 1, 64});
  DualCase<bf16, bf16, Epilogue> c(t, Shape{72, 136, 8, 8}, true, seed, f);
  for (Kernel kernel : kKernels) c.check(t.meta, act, kernel);
}

TEST(Sm90GroupedDualGemm, EveryShippedFunctor) {
  BWGEMM_REQUIRE_SM90();
  namespace epi = bwgemm::epi;
  check_functor<epi::SiluMulClamped>([](float g, float u) { return ref::silu_mul_clamped(g, u, 7.0, 1.702); },
                                     "SiluMulClamped", 800);
  check_functor<epi::GeluTanhMul>([](float g, float u) { return ref::gelu_tanh_mul(g, u); }, "GeluTanhMul",
                                  801);
  check_functor<epi::GeluErfMul>([](float g, float u) { return ref::gelu_erf_mul(g, u); }, "GeluErfMul", 802);
  check_functor<epi::ReluSquaredMul>([](float g, float u) { return ref::relu2_mul(g, u); }, "ReluSquaredMul",
                                     803);
  check_functor<epi::Multiply>([](float g, float u) { return ref::multiply(g, u); }, "Multiply", 804);
}

// ---- the kernels' walk on the host (no GPU needed)
// ---------------------------------------------------------

// The tiles the kernels' CTAs take, walked on the host as each CTA's roles walk them (StaticPersistent over
// grouped_tile_bound ids, each CTA stopping at the first id GroupedTileWalk rejects): every row of every
// expert's tiles and every column tile exactly once, whatever the grid, and CTA 0's finished walk has the
// reference's status bits. kBlockM: the tiled kernels' 128 rows, or the swap-AB kernels' 32 tokens (their
// column tiles the weight tiles).
void check_walk(const Tokens& t, int64_t n_tiles, int64_t grid, int64_t kBlockM) {
  SCOPED_TRACE("tiles of " + std::to_string(kBlockM) + " rows");
  const bwgemm::GroupedTokens tokens = t.masked ? bwgemm::masked_tokens(t.rows, t.meta.data())
                                                : bwgemm::contiguous_tokens(t.rows, t.meta.data());
  const int64_t bound = sm90::grouped_tile_bound(tokens, t.experts, kBlockM, n_tiles);
  const int64_t slab = t.masked ? t.rows : 0;
  std::vector<int> seen(static_cast<size_t>((t.masked ? t.experts * t.rows : t.rows) * n_tiles), 0);
  uint32_t status0 = 0;
  for (int64_t cta = 0; cta < std::min(grid, bound); ++cta) {
    grouped::GroupedTileWalk walk(tokens, t.experts, kBlockM, n_tiles);
    grouped::GroupedTile tile;
    for (int32_t id = bwgemm::sched::StaticPersistent::first_tile(
             static_cast<int32_t>(cta), static_cast<int32_t>(grid), static_cast<int32_t>(bound));
         id != bwgemm::sched::kNoTile; id = bwgemm::sched::StaticPersistent::next_tile(
                                           id, static_cast<int32_t>(grid), static_cast<int32_t>(bound))) {
      if (!walk.seek(id, &tile)) break;
      ASSERT_LT(tile.row_begin, tile.row_end);
      ASSERT_LE(tile.row_end - tile.row_begin, kBlockM);
      for (int64_t r = tile.row_begin; r < tile.row_end; ++r)
        ++seen[static_cast<size_t>((tile.expert * slab + r) * n_tiles + tile.n_tile)];
    }
    if (cta == 0) {
      (void)walk.seek(INT64_MAX, &tile);
      status0 = walk.status();
    }
  }
  std::vector<int> want(seen.size(), 0);
  const uint32_t want_status =
      ref::grouped_detail::for_each_expert(tokens, t.experts, [&](int64_t e, const grouped::ExpertRows& r) {
        for (int64_t row = r.begin; row < r.end; ++row)
          for (int64_t j = 0; j < n_tiles; ++j) want[static_cast<size_t>((e * slab + row) * n_tiles + j)] = 1;
      });
  EXPECT_EQ(seen, want) << "grid " << grid;
  EXPECT_EQ(status0, want_status) << "grid " << grid;
}

TEST(Sm90GroupedWalk, EveryOwnedTileOnceWhateverTheGrid) {
  for (int64_t block_m : {int64_t{128}, sm90::kGroupedSwapAbMaxTokens}) {
    uint32_t seed = 900;
    for (int64_t experts : {1, 3, 8, 16}) {
      const std::vector<int64_t> counts = ragged(experts, seed++);
      for (bool is_masked : {false, true}) {
        Tokens t = is_masked ? masked(counts) : contiguous(counts);
        for (int64_t grid : {1, 5, 132})
          for (int64_t n_tiles : {1, 3}) check_walk(t, n_tiles, grid, block_m);
        if (experts >= 8) {  // bad values
          t.meta = is_masked ? bad_counts(t) : bad_offsets_decreasing(t);
          for (int64_t grid : {1, 7, 132}) check_walk(t, 2, grid, block_m);
          if (!is_masked) {
            t.meta = bad_offsets_past_total(contiguous(counts));
            check_walk(t, 2, 3, block_m);
          }
        }
      }
    }
    // Decode counts (0 .. 65 tokens per expert).
    for (bool is_masked : {false, true}) {
      const Tokens t = is_masked ? masked(kDecodeCounts, 0) : contiguous(kDecodeCounts, 3);
      for (int64_t grid : {1, 13, 132}) check_walk(t, 4, grid, block_m);
    }
  }
}

// ---- argument refusals (no GPU needed)
// ---------------------------------------------------------------------

// Arguments whose every pointer is fake (never dereferenced: the refusals come before any device access).
bwgemm::GroupedGemmArguments<bf16> fake_gemm_arguments() {
  bwgemm::GroupedGemmArguments<bf16> a;
  a.tokens = bwgemm::contiguous_tokens(1000, reinterpret_cast<const int32_t*>(uintptr_t{1} << 40));
  a.experts = 8;
  a.n = 256, a.k = 256;
  a.a = reinterpret_cast<const bf16*>(uintptr_t{2} << 40);
  a.b = reinterpret_cast<const bf16*>(uintptr_t{3} << 40);
  a.d = reinterpret_cast<bf16*>(uintptr_t{4} << 40);
  return a;
}

// bwgemm::validate's message first, whatever the device (the dense entry points' order).
TEST(Sm90GroupedArguments, ValidationBeforeTheDevice) {
  bwgemm::GroupedGemmArguments<bf16> a = fake_gemm_arguments();
  a.experts = 0;
  bwgemm::Status s = sm90::grouped_gemm(a);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("experts"), std::string::npos) << s.message();

  bwgemm::GroupedDualGemmArguments<bf16> d;
  d.tokens = bwgemm::masked_tokens(64, reinterpret_cast<const int32_t*>(uintptr_t{1} << 40));
  d.experts = 4, d.n = 100, d.k = 64;  // N not a multiple of 8
  d.a = reinterpret_cast<const bf16*>(uintptr_t{2} << 40);
  d.b1 = reinterpret_cast<const bf16*>(uintptr_t{3} << 40);
  d.b2 = reinterpret_cast<const bf16*>(uintptr_t{5} << 40);
  d.c = reinterpret_cast<bf16*>(uintptr_t{4} << 40);
  s = sm90::grouped_dual_gemm(d);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("N must be"), std::string::npos) << s.message();

  // The swap-AB entry points alike.
  s = sm90::GroupedGemmSwapAb<sm90::GroupedGemmSwapAbTokens32<bf16>>::run(a);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("experts"), std::string::npos) << s.message();
  s = sm90::GroupedDualGemmSwapAb<sm90::GroupedDualGemmSwapAbTokens32<bf16>>::run(d);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("N must be"), std::string::npos) << s.message();
}

// A tile bound past 32 bits (E · ceil(max_tokens / 128) · ceil(N / 128) tiles) is refused by name.
TEST(Sm90GroupedArguments, TileBoundPast32BitsRefused) {
  bwgemm::GroupedGemmArguments<bf16> a;
  a.tokens = bwgemm::masked_tokens(int64_t{1} << 24, reinterpret_cast<const int32_t*>(uintptr_t{1} << 40));
  a.experts = 1024;
  a.n = 8192, a.k = 8;
  a.a = reinterpret_cast<const bf16*>(uintptr_t{1} << 50);
  a.b = reinterpret_cast<const bf16*>(uintptr_t{2} << 50);
  a.d = reinterpret_cast<bf16*>(uintptr_t{3} << 50);
  ASSERT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  const bwgemm::Status s = sm90::grouped_gemm(a);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("experts · ceil(max_tokens / 128)"), std::string::npos) << s.message();
  // The swap-AB kernels' bound: tiles of 32 tokens by 64 weight rows.
  const bwgemm::Status swap =
      sm90::GroupedGemmSwapAb<sm90::GroupedGemmSwapAbTokens32<bf16>>::can_implement(a);
  EXPECT_EQ(swap.code(), bwgemm::StatusCode::kInvalidArgument) << swap.to_string();
  EXPECT_NE(swap.message().find("experts · ceil(max_tokens / 32)) · ceil(n / 64)"), std::string::npos)
      << swap.message();
}

// Valid arguments: off a compute-capability-9.0 GPU a device mismatch naming H100/H200; on one, host memory
// refused as an operand.
TEST(Sm90GroupedArguments, DeviceOrHostMemoryRefused) {
  std::vector<int32_t> offs{100, 200, 300, 400, 500, 600, 700, 1000};
  std::vector<bf16> a(1000 * 256), b(8 * 256 * 256), d(1000 * 256);
  bwgemm::GroupedGemmArguments<bf16> host;
  host.tokens = bwgemm::contiguous_tokens(1000, offs.data());
  host.experts = 8, host.n = 256, host.k = 256;
  host.a = a.data(), host.b = b.data(), host.d = d.data();
  expect_device_or_host_memory_refused([](const auto& args) { return sm90::grouped_gemm(args); },
                                       fake_gemm_arguments(), host, 9, 0, "H100/H200");
  expect_device_or_host_memory_refused(
      [](const auto& args) {
        return sm90::GroupedGemmSwapAb<sm90::GroupedGemmSwapAbTokens32<bf16>>::run(args);
      },
      fake_gemm_arguments(), host, 9, 0, "H100/H200");
}

}  // namespace
}  // namespace bwgemm_test
