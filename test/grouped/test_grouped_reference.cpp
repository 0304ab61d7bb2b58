// The grouped references (reference/grouped.hpp) against a per-expert loop of the dense references on
// standalone copies of each expert's rows, weights and scales: E = 1 .. 16, ragged counts with empty
// experts, both layouts, strided and stacked operands, bad offsets and counts. Every output byte is compared:
// the experts' rows bit for bit, every other byte (rows no expert owns, padding columns, scale rows no
// expert owns) still holding its poison. The argument structs the test builds pass bwgemm::validate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/arguments/grouped_dual_gemm.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/reference/activations.hpp"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/grouped.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"

namespace {

namespace ref = bwgemm::ref;
namespace grouped = bwgemm::grouped;
using bf16 = __nv_bfloat16;
using f16 = __half;

// ---- The test's own view of the layouts (from docs/moe.md, not from base/grouped.hpp) ---------------------

// The metadata of one case and the rows each expert owns under the documented rule.
struct Tokens {
  bool masked = false;
  int64_t experts = 0, total = 0, max_tokens = 0;
  std::vector<int32_t> meta;         // offsets or counts
  std::vector<int64_t> begin, rows;  // per expert: first row (contiguous) and rows owned
  std::vector<int64_t> scale_row;    // per expert: first scale row
  uint32_t status = 0;               // the bits the metadata should set
};

// counts: the rows each expert gets; `bad`: break the metadata (contiguous: a decreasing offset and the
// last past the total; masked: a negative count and one above max_tokens).
Tokens make_tokens(bool masked, const std::vector<int64_t>& counts, bool bad) {
  Tokens t;
  t.masked = masked;
  t.experts = static_cast<int64_t>(counts.size());
  int64_t sum = 0;
  for (int64_t c : counts) sum += c;
  if (!masked) {
    t.total = sum + 3;  // three rows no expert owns
    int64_t end = 0;
    for (int64_t c : counts) t.meta.push_back(static_cast<int32_t>(end += c));
    if (bad) {
      if (t.experts >= 3) t.meta[1] = t.meta[0] - 2;  // expert 1 ends below expert 0's end
      t.meta.back() = static_cast<int32_t>(t.total + 5);
    }
    int64_t high = 0, scale_row = 0;
    for (int64_t e = 0; e < t.experts; ++e) {
      const int64_t o = t.meta[static_cast<size_t>(e)];
      if (o < high) t.status |= grouped::kStatusOffsetDecreasing;
      if (o > t.total) t.status |= grouped::kStatusOffsetPastTotal;
      const int64_t b = std::min(high, t.total);
      high = std::max(high, o);
      const int64_t end_e = std::min(high, t.total);
      t.begin.push_back(b);
      t.rows.push_back(end_e - b);
      t.scale_row.push_back(scale_row);
      scale_row += (end_e - b + 127) / 128 * 128;
    }
  } else {
    t.max_tokens = *std::max_element(counts.begin(), counts.end()) + 2;
    for (int64_t c : counts) t.meta.push_back(static_cast<int32_t>(c));
    if (bad) {  // above max_tokens first, so that rows past its slab would land in the next one
      t.meta[0] = static_cast<int32_t>(t.max_tokens + 3);
      if (t.experts >= 2) t.meta.back() = -1;
    }
    for (int64_t e = 0; e < t.experts; ++e) {
      const int64_t c = t.meta[static_cast<size_t>(e)];
      if (c < 0) t.status |= grouped::kStatusCountNegative;
      if (c > t.max_tokens) t.status |= grouped::kStatusCountAboveMax;
      t.begin.push_back(0);
      t.rows.push_back(std::clamp<int64_t>(c, 0, t.max_tokens));
      t.scale_row.push_back(e * ((t.max_tokens + 127) / 128 * 128));
    }
  }
  EXPECT_EQ(t.status != 0, bad) << "a case with bad metadata sets a bit, and only such a case";
  return t;
}

template <class Args>
void set_tokens(const Tokens& t, Args* a) {
  a->tokens = t.masked ? bwgemm::masked_tokens(t.max_tokens, t.meta.data())
                       : bwgemm::contiguous_tokens(t.total, t.meta.data());
  a->experts = t.experts;
}

// The rows of the tokens' buffers (contiguous: total; masked: E slabs of max_tokens).
int64_t token_rows(const Tokens& t) {
  return t.masked ? t.experts * t.max_tokens : t.total;
}
// The first row of expert e in a packed buffer of the tokens.
int64_t first_row(const Tokens& t, int64_t e) {
  return t.masked ? e * t.max_tokens : t.begin[static_cast<size_t>(e)];
}

// The experts' counts of one case: ragged, with empty experts first, in the middle and last, and one expert
// past a 128-row scale atom.
std::vector<int64_t> ragged_counts(int64_t experts, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> c(static_cast<size_t>(experts));
  for (auto& x : c) x = rng() % 10;
  if (experts >= 3) c[0] = 0, c[static_cast<size_t>(experts / 2)] = 0, c.back() = 0;
  c[static_cast<size_t>(experts > 1 ? 1 : 0)] = 131;
  return c;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

template <class T>
std::vector<T> random_16bit(size_t n, uint32_t seed) {
  const std::vector<float> f = random_floats(n, seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = ref::from_float<T>(f[i]);
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The index of the first differing element, for the message.
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return "first difference at element " + std::to_string(i);
  return "sizes " + std::to_string(got.size()) + " and " + std::to_string(want.size());
}

std::string describe(const Tokens& t, bool bad) {
  return std::string(t.masked ? "masked" : "contiguous") + " E = " + std::to_string(t.experts) +
         (bad ? " (bad metadata)" : "");
}

// ---- 16-bit
// ---------------------------------------------------------------------------------------------------

// A stacked expert's rows x cols (row stride ld) copied packed.
template <class T>
std::vector<T> copy_rows(const T* p, int64_t rows, int64_t cols, int64_t ld) {
  std::vector<T> v(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) v[static_cast<size_t>(i * cols + j)] = p[i * ld + j];
  return v;
}

// Dense reference of one expert: out (rows x n fp32 or Out) = alpha · A Bᵀ from packed copies.
template <class In, class Out>
std::vector<Out> dense_gemm(const std::vector<In>& a, const std::vector<In>& b, int64_t rows, int64_t n,
                            int64_t k, float alpha) {
  std::vector<Out> d(static_cast<size_t>(rows * n));
  ref::GemmArgs<In, In, Out> g;
  g.m = rows, g.n = n, g.k = k, g.a = a.data(), g.b = b.data(), g.b_layout = bwgemm::BLayout::kColumnMajorKxN;
  g.d = d.data(), g.alpha = alpha;
  ref::gemm(g, 1);
  return d;
}

constexpr float kPoison = -777.0f;
// Elements (bytes, for NVFP4) of poison past the end of every output: a write past the buffers the
// arguments describe shows there.
constexpr int64_t kGuard = 4096;

template <class In, class Out>
void check_grouped_gemm_16bit(bool masked, int64_t experts, bool bad, uint32_t seed) {
  const Tokens t = make_tokens(masked, ragged_counts(experts, seed), bad);
  SCOPED_TRACE(describe(t, bad));
  const int64_t n = 24, k = 40, lda = k + 8, ldb = k, ldd = n + 8;
  const int64_t a_stride = t.max_tokens * lda + 8, b_stride = n * ldb + 16, d_stride = t.max_tokens * ldd + 8;
  const int64_t slabs = masked ? t.experts : 1, slab_rows = masked ? t.max_tokens : t.total;
  const std::vector<In> a =
      random_16bit<In>(static_cast<size_t>((slabs - 1) * a_stride + slab_rows * lda), seed + 1);
  const std::vector<In> b = random_16bit<In>(static_cast<size_t>(experts * b_stride), seed + 2);
  const std::vector<float> alphas = random_floats(static_cast<size_t>(experts), seed + 3);
  std::vector<Out> d(static_cast<size_t>((slabs - 1) * d_stride + slab_rows * ldd + kGuard),
                     ref::from_float<Out>(kPoison));
  std::vector<Out> want = d;

  bwgemm::GroupedGemmArguments<In, Out> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = a.data(), args.lda = lda, args.a_expert_stride = masked ? a_stride : 0;
  args.b = b.data(), args.ldb = ldb, args.b_expert_stride = b_stride;
  args.d = d.data(), args.ldd = ldd, args.d_expert_stride = masked ? d_stride : 0;
  args.alpha = 0.75f, args.alpha_ptr = alphas.data();
  ASSERT_TRUE(bwgemm::validate(args).ok()) << bwgemm::validate(args).to_string();
  EXPECT_EQ(ref::grouped_gemm(args, 1), t.status);

  for (int64_t e = 0; e < experts; ++e) {
    const int64_t rows = t.rows[static_cast<size_t>(e)];
    if (rows == 0) continue;
    const int64_t a_row0 = masked ? e * a_stride : t.begin[static_cast<size_t>(e)] * lda;
    const int64_t d_row0 = masked ? e * d_stride : t.begin[static_cast<size_t>(e)] * ldd;
    const std::vector<Out> de = dense_gemm<In, Out>(copy_rows(a.data() + a_row0, rows, k, lda),
                                                    copy_rows(b.data() + e * b_stride, n, k, ldb), rows, n, k,
                                                    0.75f * alphas[static_cast<size_t>(e)]);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j)
        want[static_cast<size_t>(d_row0 + i * ldd + j)] = de[static_cast<size_t>(i * n + j)];
  }
  EXPECT_TRUE(same_bits(d, want)) << first_difference(d, want);
}

// act: the activation the reference and the dense loop both apply (default: SwiGLU).
inline double silu_mul_f(float g, float u) {
  return ref::silu_mul(g, u);
}
template <class In, class Out, class Act = double (*)(float, float)>
void check_grouped_dual_gemm_16bit(bool masked, int64_t experts, bool bad, bool stacked_2n, uint32_t seed,
                                   Act act = silu_mul_f) {
  const Tokens t = make_tokens(masked, ragged_counts(experts, seed), bad);
  SCOPED_TRACE(describe(t, bad) + (stacked_2n ? ", gate and up two views of one [E, 2N, K]" : ""));
  const int64_t n = 16, k = 32, lda = k, ldb = k + 8, ldc = n + 8;
  const int64_t slabs = masked ? t.experts : 1, slab_rows = masked ? t.max_tokens : t.total;
  const int64_t b_stride = (stacked_2n ? 2 : 1) * n * ldb;
  const std::vector<In> a = random_16bit<In>(static_cast<size_t>(slabs * slab_rows * lda), seed + 1);
  const std::vector<In> w = random_16bit<In>(static_cast<size_t>(experts * b_stride), seed + 2);
  const std::vector<In> w2 = random_16bit<In>(static_cast<size_t>(experts * b_stride), seed + 3);
  const In* b1 = w.data();
  const In* b2 = stacked_2n ? w.data() + n * ldb : w2.data();
  const std::vector<float> alphas1 = random_floats(static_cast<size_t>(experts), seed + 4);
  std::vector<Out> c(static_cast<size_t>(slabs * slab_rows * ldc + kGuard), ref::from_float<Out>(kPoison));
  std::vector<Out> want = c;

  bwgemm::GroupedDualGemmArguments<In, Out> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = a.data(), args.lda = lda;
  args.b1 = b1, args.b2 = b2, args.ldb = ldb, args.b_expert_stride = b_stride;
  args.c = c.data(), args.ldc = ldc;
  args.alpha1 = 2.0f, args.alpha1_ptr = alphas1.data(), args.alpha2 = -0.5f;
  ASSERT_TRUE(bwgemm::validate(args).ok()) << bwgemm::validate(args).to_string();
  EXPECT_EQ(ref::grouped_dual_gemm(args, act, 1), t.status);

  for (int64_t e = 0; e < experts; ++e) {
    const int64_t rows = t.rows[static_cast<size_t>(e)];
    if (rows == 0) continue;
    const int64_t r0 = first_row(t, e);
    const std::vector<In> ae = copy_rows(a.data() + r0 * lda, rows, k, lda);
    const std::vector<float> gate = dense_gemm<In, float>(ae, copy_rows(b1 + e * b_stride, n, k, ldb), rows,
                                                          n, k, 2.0f * alphas1[static_cast<size_t>(e)]);
    const std::vector<float> up =
        dense_gemm<In, float>(ae, copy_rows(b2 + e * b_stride, n, k, ldb), rows, n, k, -0.5f);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const size_t v = static_cast<size_t>(i * n + j);
        want[static_cast<size_t>((r0 + i) * ldc + j)] =
            ref::from_float<Out>(static_cast<float>(act(gate[v], up[v])));
      }
  }
  EXPECT_TRUE(same_bits(c, want)) << first_difference(c, want);
}

TEST(GroupedReference, GemmFp16AndBf16BothLayouts) {
  uint32_t seed = 100;
  for (bool masked : {false, true})
    for (int64_t experts : {1, 2, 3, 5, 8, 16}) {
      check_grouped_gemm_16bit<f16, f16>(masked, experts, false, seed++);
      check_grouped_gemm_16bit<bf16, float>(masked, experts, false, seed++);
    }
}

TEST(GroupedReference, DualGemmFp16AndBf16BothLayouts) {
  uint32_t seed = 200;
  for (bool masked : {false, true})
    for (int64_t experts : {1, 2, 3, 5, 8, 16}) {
      check_grouped_dual_gemm_16bit<bf16, bf16>(masked, experts, false, experts % 2 == 0, seed++);
      check_grouped_dual_gemm_16bit<f16, f16>(masked, experts, false, experts % 2 == 1, seed++);
    }
  // A shipped functor callable on the host as the activation: the plain product.
  check_grouped_dual_gemm_16bit<bf16, bf16>(false, 5, false, true, seed++, bwgemm::epi::Multiply{});
  check_grouped_dual_gemm_16bit<f16, f16>(true, 5, false, false, seed++, bwgemm::epi::GeluTanhMul{});
}

TEST(GroupedReference, BadOffsetsAndCountsSetTheBitsAndStayInside) {
  uint32_t seed = 300;
  for (bool masked : {false, true})
    for (int64_t experts : {1, 3, 7}) {
      check_grouped_gemm_16bit<f16, f16>(masked, experts, true, seed++);
      check_grouped_dual_gemm_16bit<bf16, bf16>(masked, experts, true, true, seed++);
    }
}

// ---- NVFP4
// ---------------------------------------------------------------------------------------------------

constexpr uint8_t kPoisonByte = 0x7F;  // an e4m3 NaN scale: any byte of it read would show in the results

// One expert's standalone NVFP4 operand (a dense one of its rows) from fp32 rows x k.
struct Standalone {
  std::vector<uint8_t> data, scales;
  int64_t rows = 0, k = 0;
  ref::Nvfp4Matrix matrix() const { return {data.data(), scales.data(), rows, k}; }
};
Standalone quantize(const float* x, int64_t rows, int64_t k, float global_scale = 1.0f) {
  Standalone s;
  s.rows = rows, s.k = k;
  s.data.resize(static_cast<size_t>(rows * k / 2));
  s.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16)));
  const bwgemm::Status st =
      bwgemm::quantize_nvfp4_host(x, rows, k, 1, k, global_scale, s.data.data(), s.scales.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return s;
}

// An NVFP4 tensor of the tokens in the documented placement, each expert's rows quantized standalone and
// placed (data at its rows, scales from byte scale_row / 128 · ceil(K / 64) · 512); everything else poison.
struct TokenTensor {
  std::vector<uint8_t> data, scales;
  std::vector<Standalone> experts;
};
TokenTensor token_tensor(const Tokens& t, const std::vector<float>& x, int64_t k) {
  TokenTensor tt;
  const int64_t scale_rows = t.masked ? t.experts * ((t.max_tokens + 127) / 128 * 128)
                                      : (t.total + 127 * t.experts + 127) / 128 * 128;
  tt.data.assign(static_cast<size_t>(token_rows(t) * k / 2), kPoisonByte);
  tt.scales.assign(static_cast<size_t>(bwgemm::blocked_scale_bytes(scale_rows, k / 16)), kPoisonByte);
  for (int64_t e = 0; e < t.experts; ++e) {
    const int64_t rows = t.rows[static_cast<size_t>(e)], r0 = first_row(t, e);
    if (rows == 0) {
      tt.experts.emplace_back();
      continue;
    }
    tt.experts.push_back(quantize(&x[static_cast<size_t>(r0 * k)], rows, k));
    const Standalone& s = tt.experts.back();
    std::copy(s.data.begin(), s.data.end(), tt.data.begin() + r0 * k / 2);
    const int64_t at = t.scale_row[static_cast<size_t>(e)] / 128 * ((k / 16 + 3) / 4) * 512;
    std::copy(s.scales.begin(), s.scales.end(), tt.scales.begin() + at);
  }
  return tt;
}

// Stacked weights [E, rows, k] quantized as one tensor with batch E, and each expert's standalone.
struct Weights {
  std::vector<float> x;
  std::vector<uint8_t> data, scales;
};
Weights weights(int64_t experts, int64_t rows, int64_t k, uint32_t seed) {
  Weights w;
  w.x = random_floats(static_cast<size_t>(experts * rows * k), seed);
  w.data.resize(static_cast<size_t>(experts * rows * k / 2));
  w.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16, experts)));
  const bwgemm::Status st =
      bwgemm::quantize_nvfp4_host(w.x.data(), rows, k, experts, k, 1.0f, w.data.data(), w.scales.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return w;
}

template <class Out>
void check_nvfp4_grouped_gemm(bool masked, int64_t experts, bool bad, uint32_t seed) {
  const Tokens t = make_tokens(masked, ragged_counts(experts, seed), bad);
  SCOPED_TRACE(describe(t, bad));
  const int64_t n = 48, k = 128, ldd = n + 8, d_stride = t.max_tokens * ldd;
  const std::vector<float> x = random_floats(static_cast<size_t>(token_rows(t) * k), seed + 1);
  const TokenTensor a = token_tensor(t, x, k);
  const Weights b = weights(experts, n, k, seed + 2);
  const std::vector<float> alphas = random_floats(static_cast<size_t>(experts), seed + 3);
  std::vector<Out> d(static_cast<size_t>(token_rows(t) * ldd + kGuard), ref::from_float<Out>(kPoison));
  std::vector<Out> want = d;

  bwgemm::Nvfp4GroupedGemmArguments<Out> args;
  set_tokens(t, &args);
  args.n = n, args.k = k;
  args.a = {a.data.data(), a.scales.data()};
  args.b = {b.data.data(), b.scales.data()};
  args.d = d.data(), args.ldd = ldd, args.d_expert_stride = masked ? d_stride : 0;
  args.alpha = 3.0f, args.alpha_ptr = alphas.data();
  ASSERT_TRUE(bwgemm::validate(args).ok()) << bwgemm::validate(args).to_string();
  EXPECT_EQ(ref::nvfp4_grouped_gemm(args, 1), t.status);

  for (int64_t e = 0; e < experts; ++e) {
    const int64_t rows = t.rows[static_cast<size_t>(e)];
    if (rows == 0) continue;
    const Standalone be = quantize(&b.x[static_cast<size_t>(e * n * k)], n, k);
    std::vector<float> acc(static_cast<size_t>(rows * n));
    ref::nvfp4_gemm(a.experts[static_cast<size_t>(e)].matrix(), be.matrix(), 1,
                    3.0f * alphas[static_cast<size_t>(e)], acc.data(), 1);
    const int64_t r0 = first_row(t, e);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j)
        want[static_cast<size_t>((r0 + i) * ldd + j)] =
            ref::from_float<Out>(acc[static_cast<size_t>(i * n + j)]);
  }
  EXPECT_TRUE(same_bits(d, want)) << first_difference(d, want);
}

// The NVFP4 dual GEMM, gate and up two views of one stacked [E, 2N, K] (N = 128), C in bf16 or NVFP4.
void check_nvfp4_grouped_dual(bool masked, int64_t experts, bool bad, bool nvfp4_out, uint32_t seed) {
  const Tokens t = make_tokens(masked, ragged_counts(experts, seed), bad);
  SCOPED_TRACE(describe(t, bad) + (nvfp4_out ? ", NVFP4 C" : ", bf16 C"));
  const int64_t n = 128, k = 64;
  const std::vector<float> x = random_floats(static_cast<size_t>(token_rows(t) * k), seed + 1);
  const TokenTensor a = token_tensor(t, x, k);
  const Weights w = weights(experts, 2 * n, k, seed + 2);
  const bwgemm::Nvfp4Tensor b1{w.data.data(), w.scales.data()};
  const bwgemm::Nvfp4Tensor b2{w.data.data() + n * k / 2,
                               w.scales.data() + bwgemm::blocked_scale_bytes(n, k / 16)};
  const std::vector<float> alphas2 = random_floats(static_cast<size_t>(experts), seed + 3);
  std::vector<float> gscales = random_floats(static_cast<size_t>(experts), seed + 4);
  for (auto& g : gscales) g = 0.05f + std::abs(g) * 0.1f;
  const auto act = [](float g, float u) { return ref::silu_mul(g, u); };

  // Each expert's activated values from the dense reference on its standalone operands.
  std::vector<std::vector<float>> values(static_cast<size_t>(experts));
  for (int64_t e = 0; e < experts; ++e) {
    const int64_t rows = t.rows[static_cast<size_t>(e)];
    if (rows == 0) continue;
    const Standalone g = quantize(&w.x[static_cast<size_t>(e * 2 * n * k)], n, k);
    const Standalone u = quantize(&w.x[static_cast<size_t>((e * 2 + 1) * n * k)], n, k);
    std::vector<float> gate(static_cast<size_t>(rows * n)), up(gate.size());
    const ref::Nvfp4Matrix ae = a.experts[static_cast<size_t>(e)].matrix();
    ref::nvfp4_gemm(ae, g.matrix(), 1, 1.5f, gate.data(), 1);
    ref::nvfp4_gemm(ae, u.matrix(), 1, 1.0f * alphas2[static_cast<size_t>(e)], up.data(), 1);
    for (size_t i = 0; i < gate.size(); ++i)
      values[static_cast<size_t>(e)].push_back(static_cast<float>(act(gate[i], up[i])));
  }

  const auto set_common = [&](auto* args) {
    set_tokens(t, args);
    args->n = n, args->k = k;
    args->a = {a.data.data(), a.scales.data()};
    args->b1 = b1, args->b2 = b2;
    args->b_data_expert_stride = 2 * n * k / 2,
    args->b_scales_expert_stride = bwgemm::blocked_scale_bytes(2 * n, k / 16);
    args->alpha1 = 1.5f, args->alpha2_ptr = alphas2.data();
  };
  if (!nvfp4_out) {
    const int64_t ldc = n;
    std::vector<bf16> c(static_cast<size_t>(token_rows(t) * ldc + kGuard), ref::from_float<bf16>(kPoison));
    std::vector<bf16> want = c;
    bwgemm::Nvfp4GroupedDualGemmArguments<bf16> args;
    set_common(&args);
    args.c = c.data();
    ASSERT_TRUE(bwgemm::validate(args).ok()) << bwgemm::validate(args).to_string();
    EXPECT_EQ(ref::nvfp4_grouped_dual_gemm(args, act, 1), t.status);
    for (int64_t e = 0; e < experts; ++e)
      for (size_t i = 0; i < values[static_cast<size_t>(e)].size(); ++i)
        want[static_cast<size_t>(first_row(t, e) * ldc) + i] =
            ref::from_float<bf16>(values[static_cast<size_t>(e)][i]);
    EXPECT_TRUE(same_bits(c, want)) << first_difference(c, want);
    return;
  }
  // NVFP4 C: the documented placement of an NVFP4 tensor of the tokens with K = N, each expert's rows
  // quantized standalone with its global scale; every other byte keeps the poison.
  const int64_t scale_rows = masked ? t.experts * ((t.max_tokens + 127) / 128 * 128)
                                    : grouped::grouped_scale_rows(t.total, t.experts);
  std::vector<uint8_t> c_data(static_cast<size_t>(token_rows(t) * n / 2 + kGuard), kPoisonByte);
  std::vector<uint8_t> c_scales(static_cast<size_t>(bwgemm::blocked_scale_bytes(scale_rows, n / 16) + kGuard),
                                kPoisonByte);
  std::vector<uint8_t> want_data = c_data, want_scales = c_scales;
  bwgemm::Nvfp4GroupedDualGemmArguments<bwgemm::Nvfp4Output> args;
  set_common(&args);
  args.c = {c_data.data(), c_scales.data()};
  args.c_global_scale = 2.0f, args.c_global_scale_ptr = gscales.data();
  ASSERT_TRUE(bwgemm::validate(args).ok()) << bwgemm::validate(args).to_string();
  EXPECT_EQ(ref::nvfp4_grouped_dual_gemm_nvfp4_out(args, act, 1), t.status);
  for (int64_t e = 0; e < experts; ++e) {
    const int64_t rows = t.rows[static_cast<size_t>(e)];
    if (rows == 0) continue;
    const Standalone q =
        quantize(values[static_cast<size_t>(e)].data(), rows, n, 2.0f * gscales[static_cast<size_t>(e)]);
    std::copy(q.data.begin(), q.data.end(), want_data.begin() + first_row(t, e) * n / 2);
    std::copy(q.scales.begin(), q.scales.end(),
              want_scales.begin() + t.scale_row[static_cast<size_t>(e)] / 128 * ((n / 16 + 3) / 4) * 512);
  }
  EXPECT_TRUE(same_bits(c_data, want_data)) << "C data: " << first_difference(c_data, want_data);
  EXPECT_TRUE(same_bits(c_scales, want_scales)) << "C scales: " << first_difference(c_scales, want_scales);
}

TEST(GroupedReference, Nvfp4GemmBothLayouts) {
  uint32_t seed = 400;
  for (bool masked : {false, true})
    for (int64_t experts : {1, 2, 3, 5, 8, 16}) {
      check_nvfp4_grouped_gemm<f16>(masked, experts, false, seed++);
      check_nvfp4_grouped_gemm<float>(masked, experts, false, seed++);
    }
}

TEST(GroupedReference, Nvfp4DualGemmBf16AndNvfp4OutputBothLayouts) {
  uint32_t seed = 500;
  for (bool masked : {false, true})
    for (int64_t experts : {1, 2, 3, 5, 8, 16})
      for (bool nvfp4_out : {false, true})
        check_nvfp4_grouped_dual(masked, experts, false, nvfp4_out, seed++);
}

TEST(GroupedReference, Nvfp4BadOffsetsAndCountsSetTheBitsAndStayInside) {
  uint32_t seed = 600;
  for (bool masked : {false, true})
    for (int64_t experts : {1, 3, 7}) {
      check_nvfp4_grouped_gemm<bf16>(masked, experts, true, seed++);
      check_nvfp4_grouped_dual(masked, experts, true, true, seed++);
    }
}

}  // namespace
