// The host side of the 16-bit dual GEMM contract (dual_gemm_check.hpp).
#include "dual_gemm_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <type_traits>

#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"  // ref::silu

namespace bwgemm_test {

namespace ref = bwgemm::ref;

std::string describe(const DualProblem& pb) {
  return "M=" + std::to_string(pb.m) + " N=" + std::to_string(pb.n) + " K=" + std::to_string(pb.k) +
         " batch=" + std::to_string(pb.batch) + " lda=" + std::to_string(pb.lda) +
         " ldb=" + std::to_string(pb.ldb) + " ldc=" + std::to_string(pb.ldc) +
         " alpha1=" + std::to_string(pb.alpha1) + " alpha2=" + std::to_string(pb.alpha2);
}

template <class In, class Out>
DualOperands<In, Out>::DualOperands(const DualProblem& p, Data kind, uint32_t seed)
    : pb(p), lda(p.lda ? p.lda : p.k), ldb(p.ldb ? p.ldb : p.k), ldc(p.ldc ? p.ldc : p.n) {
  std::mt19937 rng(seed);
  const int range = std::is_same_v<Out, __half> ? 1 : 2;
  std::uniform_int_distribution<int> small(-range, range);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const auto fill = [&](std::vector<In>& v, int64_t rows, int64_t ld) {
    v.assign(static_cast<size_t>(p.batch * rows * ld), ref::from_float<In>(1000.0f));
    for (int64_t l = 0; l < p.batch; ++l)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < p.k; ++c)
          v[static_cast<size_t>((l * rows + r) * ld + c)] =
              ref::from_float<In>(kind == Data::kExact ? static_cast<float>(small(rng)) : uniform(rng));
  };
  fill(a, p.m, lda);
  fill(b1, p.n, ldb);
  fill(b2, p.n, ldb);
}

namespace {

template <class T>
uint32_t bits_of(T x) {
  uint16_t u = 0;
  std::memcpy(&u, &x, 2);
  return u;
}

}  // namespace

template <class In, class Out>
int64_t expect_dual_matches(const DualOperands<In, Out>& o, Data kind, const std::vector<Out>& got) {
  const DualProblem& s = o.pb;
  EXPECT_EQ(got.size(), static_cast<size_t>(o.c_elements()));
  if (got.size() != static_cast<size_t>(o.c_elements())) return o.c_elements();
  // gate and up in fp32 (ref::gemm, B given as N x K).
  std::vector<float> gate(static_cast<size_t>(s.batch * s.m * s.n)), up(gate.size());
  const auto product = [&](const std::vector<In>& b, float alpha, std::vector<float>& out) {
    ref::GemmArgs<In, In, float> g;
    g.m = s.m, g.n = s.n, g.k = s.k, g.batch = s.batch;
    g.a = o.a.data(), g.lda = o.lda, g.batch_stride_a = s.m * o.lda;
    g.b = b.data(), g.b_layout = ref::BLayout::kColumnMajorKxN, g.ldb = o.ldb, g.batch_stride_b = s.n * o.ldb;
    g.d = out.data(), g.ldd = s.n, g.batch_stride_d = s.m * s.n;
    g.alpha = alpha;
    ref::gemm(g);
  };
  product(o.b1, s.alpha1, gate);
  product(o.b2, s.alpha2, up);
  const auto want_at = [&](size_t r) {
    return kind == Data::kExact ? gate[r] * up[r] : ref::silu(gate[r]) * up[r];
  };
  double sum_sq = 0;
  for (size_t r = 0; r < gate.size(); ++r) sum_sq += static_cast<double>(want_at(r)) * want_at(r);
  const double rms = std::sqrt(sum_sq / static_cast<double>(gate.size()));
  constexpr double kUnitRoundoff = std::is_same_v<Out, __half> ? 0x1p-11 : 0x1p-8;
  constexpr uint32_t kPoisonBits = kDualPoisonByte * 0x101u;
  int64_t failures = 0;
  for (int64_t l = 0; l < s.batch; ++l) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < o.ldc; ++j) {
        const Out g = got[static_cast<size_t>((l * s.m + i) * o.ldc + j)];
        if (j >= s.n) {  // padding column: untouched
          if (bits_of(g) != kPoisonBits && ++failures <= 5)
            ADD_FAILURE() << "padding column written at batch " << l << " row " << i << " col " << j;
          continue;
        }
        const size_t r = static_cast<size_t>((l * s.m + i) * s.n + j);
        const float want = want_at(r);
        const float got_f = ref::to_float(g);
        bool ok;
        if (kind == Data::kExact) {
          ok = bits_of(g) == bits_of(ref::from_float<Out>(want));
        } else {
          const double bound = 2 * kUnitRoundoff * std::fabs(want) + 1e-3 * rms;
          ok = std::isfinite(got_f) && std::fabs(got_f - want) <= bound;
        }
        if (!ok && ++failures <= 5)
          ADD_FAILURE() << "C[" << l << "][" << i << "][" << j << "] = " << got_f << " (bits 0x" << std::hex
                        << bits_of(g) << std::dec << "), want " << want << " (gate " << gate[r] << ", up "
                        << up[r] << ")";
      }
    }
  }
  EXPECT_EQ(failures, 0) << failures << " wrong elements";
  return failures;
}

#define BWGEMM_TEST_INSTANTIATE_DUAL(In, Out) \
  template struct DualOperands<In, Out>;      \
  template int64_t expect_dual_matches<In, Out>(const DualOperands<In, Out>&, Data, const std::vector<Out>&);
BWGEMM_TEST_INSTANTIATE_DUAL(__half, __half)
BWGEMM_TEST_INSTANTIATE_DUAL(__half, __nv_bfloat16)
BWGEMM_TEST_INSTANTIATE_DUAL(__nv_bfloat16, __half)
BWGEMM_TEST_INSTANTIATE_DUAL(__nv_bfloat16, __nv_bfloat16)
#undef BWGEMM_TEST_INSTANTIATE_DUAL

}  // namespace bwgemm_test
