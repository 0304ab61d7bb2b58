// The host side of the NVFP4 dual GEMM contract (nvfp4_dual_check.hpp).
#include "nvfp4_dual_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <type_traits>

#include "bwgemm/formats/e4m3.cuh"
#include "bwgemm/formats/fp16.cuh"
#include "bwgemm/formats/scale_layout.cuh"

namespace bwgemm_test {

Nvfp4Operand make_nvfp4_operand(int64_t rows, int64_t k, int64_t batch, Data kind, uint32_t seed) {
  std::mt19937 rng(seed);
  Nvfp4Operand o;
  o.rows = rows, o.k = k, o.batch = batch;
  o.data.resize(static_cast<size_t>(batch * rows * k / 2));
  for (auto& b : o.data) b = static_cast<uint8_t>(rng()) & (kind == Data::kRealistic ? 0xBB : 0xFF);
  std::vector<uint8_t> plain(static_cast<size_t>(batch * rows * k / 16));
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (auto& s : plain)
    s = kind == Data::kExact ? static_cast<uint8_t>((6 + rng() % 3) << 3)  // e4m3 2^-1, 2^0, 2^1
                             : bwgemm::e4m3_encode(uniform(rng));
  o.scales.resize(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16, batch)));
  bwgemm::swizzle_scales_to_blocked(plain.data(), rows, k / 16, batch, o.scales.data());
  return o;
}

std::string describe(const Nvfp4DualProblem& pb) {
  return "M=" + std::to_string(pb.m) + " N=" + std::to_string(pb.n) + " K=" + std::to_string(pb.k) +
         " batch=" + std::to_string(pb.batch) + " alpha1=" + std::to_string(pb.alpha1) +
         " alpha2=" + std::to_string(pb.alpha2) + " ldc=" + std::to_string(pb.ldc());
}

Nvfp4DualOperands::Nvfp4DualOperands(const Nvfp4DualProblem& p, Data kind, uint32_t seed)
    : pb(p),
      a(make_nvfp4_operand(p.m, p.k, p.batch, kind, seed)),
      b1(make_nvfp4_operand(p.n, p.k, p.batch, kind, seed + 1)),
      b2(make_nvfp4_operand(p.n, p.k, p.batch, kind, seed + 2)) {}

std::vector<float> nvfp4_product(const Nvfp4Operand& a, const Nvfp4Operand& b, float alpha) {
  std::vector<float> d(static_cast<size_t>(a.batch * a.rows * b.rows));
  bwgemm::ref::nvfp4_gemm(a.host_view(), b.host_view(), a.batch, alpha, d.data());
  return d;
}

namespace {

template <class Out>
float out_to_float(uint16_t bits) {
  return std::is_same_v<Out, __half> ? bwgemm::f16_bits_to_f32(bits) : bwgemm::bf16_bits_to_f32(bits);
}
template <class Out>
uint16_t float_to_out(float v) {
  return std::is_same_v<Out, __half> ? bwgemm::f32_to_f16_bits(v) : bwgemm::f32_to_bf16_bits(v);
}

}  // namespace

template <class Out>
int64_t expect_nvfp4_dual_matches(const Nvfp4DualOperands& o, Data kind, const std::vector<uint16_t>& got) {
  const Nvfp4DualProblem& pb = o.pb;
  const int64_t ldc = pb.ldc();
  EXPECT_EQ(got.size(), static_cast<size_t>(pb.batch * pb.m * ldc));
  if (got.size() != static_cast<size_t>(pb.batch * pb.m * ldc)) return pb.batch * pb.m * ldc;
  std::vector<uint16_t> want(got.size(), static_cast<uint16_t>(kDualFillByte * 0x101));
  if (kind == Data::kExact) {
    // Every term and partial sum is a multiple of 2^-4 below 2^17: the fp32 products are exact.
    const std::vector<float> gate = nvfp4_product(o.a, o.b1, 1.0f), up = nvfp4_product(o.a, o.b2, 1.0f);
    for (int64_t l = 0; l < pb.batch; ++l)
      for (int64_t i = 0; i < pb.m; ++i)
        for (int64_t j = 0; j < pb.n; ++j) {
          const size_t r = static_cast<size_t>((l * pb.m + i) * pb.n + j);
          want[static_cast<size_t>((l * pb.m + i) * ldc + j)] =
              float_to_out<Out>((pb.alpha1 * gate[r]) * (pb.alpha2 * up[r]));
        }
  } else {
    std::vector<Out> c(got.size());
    bwgemm::ref::nvfp4_dual_gemm_silu(o.a.host_view(), o.b1.host_view(), o.b2.host_view(), pb.batch,
                                      pb.alpha1, pb.alpha2, c.data(), ldc);
    for (int64_t l = 0; l < pb.batch; ++l)
      for (int64_t i = 0; i < pb.m; ++i)
        for (int64_t j = 0; j < pb.n; ++j) {
          const size_t idx = static_cast<size_t>((l * pb.m + i) * ldc + j);
          want[idx] = float_to_out<Out>(bwgemm::ref::to_float(c[idx]));
        }
  }
  int64_t bad = 0;
  for (int64_t l = 0; l < pb.batch; ++l)
    for (int64_t i = 0; i < pb.m; ++i)
      for (int64_t j = 0; j < ldc; ++j) {
        const size_t idx = static_cast<size_t>((l * pb.m + i) * ldc + j);
        bool ok;
        if (j >= pb.n || kind == Data::kExact) {
          ok = got[idx] == want[idx];  // the row padding of C is not the kernel's to write
        } else {
          const float g = out_to_float<Out>(got[idx]), w = out_to_float<Out>(want[idx]);
          // The field's tolerance (GPU MODE nvfp4_dual_gemm), plus one output ulp for bf16's coarser grid.
          const float ulp = std::is_same_v<Out, __half> ? 0.0f : std::fabs(w) * 0.0078125f;
          ok = std::fabs(g - w) <= 1e-3f + 1e-3f * std::fabs(w) + ulp;
        }
        if (!ok && ++bad <= 5)
          ADD_FAILURE() << (j >= pb.n ? "row padding " : "") << "batch " << l << " row " << i << " col " << j
                        << ": got " << out_to_float<Out>(got[idx]) << " (0x" << std::hex << got[idx]
                        << "), want " << out_to_float<Out>(want[idx]) << " (0x" << want[idx] << std::dec
                        << ")";
      }
  EXPECT_EQ(bad, 0) << bad << " elements wrong";
  return bad;
}

template int64_t expect_nvfp4_dual_matches<__half>(const Nvfp4DualOperands&, Data,
                                                   const std::vector<uint16_t>&);
template int64_t expect_nvfp4_dual_matches<__nv_bfloat16>(const Nvfp4DualOperands&, Data,
                                                          const std::vector<uint16_t>&);

}  // namespace bwgemm_test
