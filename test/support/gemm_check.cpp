// The host side of the GEMM contract: operands, reference, comparison (gemm_check.hpp).
#include "gemm_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <type_traits>

#include "bwgemm/reference/gemm.hpp"

namespace bwgemm_test {

using bwgemm::BLayout;

std::string describe(const GemmProblem& pb) {
  return "M=" + std::to_string(pb.m) + " N=" + std::to_string(pb.n) + " K=" + std::to_string(pb.k) +
         " batch=" + std::to_string(pb.batch) + (pb.b_layout == BLayout::kRowMajorKxN ? " B=KxN" : " B=NxK") +
         " alpha=" + std::to_string(pb.alpha) + " beta=" + std::to_string(pb.beta) +
         " pad=" + std::to_string(pb.pad) + " batch_gap=" + std::to_string(pb.batch_gap);
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, __half>) return "f16";
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
  return "f32";
}
template const char* type_name<__half>();
template const char* type_name<__nv_bfloat16>();
template const char* type_name<float>();

namespace {

template <class T>
std::vector<T> make_matrix(int64_t count, Data kind, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<T> v(static_cast<size_t>(count));
  for (auto& x : v) {
    // Exact tier: integers in [-4, 4], so |partial sums| <= 16 K stays far below 2^24.
    const float f = kind == Data::kExact ? static_cast<float>(static_cast<int>(rng() % 9) - 4) : uniform(rng);
    x = bwgemm::ref::from_float<T>(f);
  }
  return v;
}

template <class T>
uint32_t bits_of(T x) {
  uint32_t u = 0;
  std::memcpy(&u, &x, sizeof(T));
  return u;
}

// Unit roundoff of the output type (fp32: accumulation-order differences only).
template <class Out>
float unit_roundoff() {
  if constexpr (std::is_same_v<Out, __half>) return 0x1p-11f;
  if constexpr (std::is_same_v<Out, __nv_bfloat16>) return 0x1p-8f;
  return 0x1p-24f;
}

}  // namespace

template <class In, class Out>
GemmOperands<In, Out>::GemmOperands(const GemmProblem& p, Data kind, uint32_t seed) : pb(p) {
  const bool kxn = p.b_layout == BLayout::kRowMajorKxN;
  lda = p.k + p.pad;
  ldb = (kxn ? p.n : p.k) + p.pad;
  ldc = p.n + p.pad;
  ldd = p.n + 2 * p.pad;
  sa = p.m * lda + p.batch_gap;
  sb = (kxn ? p.k : p.n) * ldb + p.batch_gap;
  sc = p.m * ldc + p.batch_gap;
  sd = p.m * ldd + p.batch_gap;
  a = make_matrix<In>(p.batch * sa, kind, seed);
  b = make_matrix<In>(p.batch * sb, kind, seed + 1);
  c = make_matrix<Out>(p.batch * sc, kind, seed + 2);
}

template <class In, class Out>
std::vector<Out> GemmOperands<In, Out>::reference() const {
  uint8_t fill_bytes[sizeof(Out)];
  std::memset(fill_bytes, kGemmFillByte, sizeof(Out));
  Out fill;
  std::memcpy(&fill, fill_bytes, sizeof(Out));
  std::vector<Out> d(static_cast<size_t>(d_elements()), fill);
  bwgemm::ref::GemmArgs<In, In, Out> r;
  r.m = pb.m, r.n = pb.n, r.k = pb.k, r.batch = pb.batch;
  r.a = a.data(), r.lda = lda, r.batch_stride_a = sa;
  r.b = b.data(), r.b_layout = pb.b_layout, r.ldb = ldb, r.batch_stride_b = sb;
  r.c = pb.beta != 0.0f ? c.data() : nullptr, r.ldc = ldc, r.batch_stride_c = sc;
  r.d = d.data(), r.ldd = ldd, r.batch_stride_d = sd;
  r.alpha = pb.alpha, r.beta = pb.beta;
  bwgemm::ref::gemm(r);
  return d;
}

template <class In, class Out>
int64_t expect_gemm_matches(const GemmOperands<In, Out>& o, Data kind, const std::vector<Out>& got) {
  const GemmProblem& pb = o.pb;
  const std::vector<Out> want = o.reference();
  EXPECT_EQ(got.size(), want.size());
  if (got.size() != want.size()) return static_cast<int64_t>(want.size());
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const int64_t l = static_cast<int64_t>(i) / o.sd, in_batch = static_cast<int64_t>(i) % o.sd;
    const int64_t row = in_batch / o.ldd, col = in_batch % o.ldd;
    const bool inside = row < pb.m && col < pb.n;
    bool ok;
    if (!inside || kind == Data::kExact) {
      ok = bits_of(got[i]) == bits_of(want[i]);
    } else {
      const float g = bwgemm::ref::to_float(got[i]), w = bwgemm::ref::to_float(want[i]);
      // One output rounding apart (fp32 sums in another order can round to the neighbour), plus the
      // accumulation-order difference of K fp32 additions of terms |a b| <= 1.
      const float tol = 2.0f * unit_roundoff<Out>() * std::fabs(w) + 1e-6f * static_cast<float>(pb.k) + 1e-6f;
      ok = std::fabs(g - w) <= tol;
    }
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << (inside ? "" : "padding ") << "batch " << l << " row " << row << " col " << col
                    << ": got " << bwgemm::ref::to_float(got[i]) << " (0x" << std::hex << bits_of(got[i])
                    << "), want " << bwgemm::ref::to_float(want[i]) << " (0x" << bits_of(want[i]) << std::dec
                    << ")";
  }
  EXPECT_EQ(bad, 0) << bad << " elements wrong";
  return bad;
}

#define BWGEMM_TEST_INSTANTIATE_GEMM(In, Out) \
  template struct GemmOperands<In, Out>;      \
  template int64_t expect_gemm_matches<In, Out>(const GemmOperands<In, Out>&, Data, const std::vector<Out>&);
BWGEMM_TEST_INSTANTIATE_GEMM(__half, __half)
BWGEMM_TEST_INSTANTIATE_GEMM(__half, __nv_bfloat16)
BWGEMM_TEST_INSTANTIATE_GEMM(__half, float)
BWGEMM_TEST_INSTANTIATE_GEMM(__nv_bfloat16, __half)
BWGEMM_TEST_INSTANTIATE_GEMM(__nv_bfloat16, __nv_bfloat16)
BWGEMM_TEST_INSTANTIATE_GEMM(__nv_bfloat16, float)
#undef BWGEMM_TEST_INSTANTIATE_GEMM

}  // namespace bwgemm_test
