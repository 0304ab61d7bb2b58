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
#include "grouped_cases.hpp"

namespace {

using namespace grouped_test;
namespace ref = bwgemm::ref;
namespace grouped = bwgemm::grouped;
using bf16 = __nv_bfloat16;
using f16 = __half;

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
