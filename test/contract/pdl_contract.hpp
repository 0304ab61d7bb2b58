// Programmatic dependent launch (docs/api.md, "Programmatic dependent launch"): a chain of calls on
// one stream, each launched with LaunchOptions::programmatic_dependent_launch, must give bitwise what the
// same chain gives without it. Written once for the default entry points (bwgemm::gemm, bwgemm::dual_gemm:
// sm_100a on a B200 and in the emulator, sm_90a on an H100/H200).
//
// Per repetition r of the chain (one stream, no synchronisation between the calls):
//   1. GEMM  D1[r] = X · P1        reads X, which call 2 of repetition r - 1 wrote (read after write)
//   2. GEMM  X     = D1[r] · P2    reads D1[r] (read after write on the call before it) and overwrites X,
//                                  which call 1 read (write after read on the call before it)
//   3. dual  C[r]  = silu(X · W1ᵀ) · (X · W2ᵀ)   reads X (read after write)
// P1 and P2 are signed permutation matrices (every product exact, values bounded), so X changes every
// repetition and every D1[r] differs. All D1[r], C[r] and the final X are compared bit for bit with the chain
// run without PDL, and D1[0] with the host product X0 · P1.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/reference/gemm.hpp"
#include "device.hpp"

namespace bwgemm_test {

// The chain's buffers and results: D1[0 .. reps - 1], C[0 .. reps - 1] and X after the last repetition, as
// 16-bit words.
struct PdlChainResult {
  std::vector<uint16_t> d1, c, x;
};

// A K x K signed permutation matrix (row-major bf16): one ±1 per row and column.
inline std::vector<__nv_bfloat16> signed_permutation(int64_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> perm(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) perm[static_cast<size_t>(i)] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<__nv_bfloat16> p(static_cast<size_t>(k * k), bwgemm::ref::from_float<__nv_bfloat16>(0.0f));
  for (int64_t i = 0; i < k; ++i)
    p[static_cast<size_t>(i * k + perm[static_cast<size_t>(i)])] =
        bwgemm::ref::from_float<__nv_bfloat16>(rng() % 2 ? 1.0f : -1.0f);
  return p;
}

// Runs the chain (M x K activations, K x K permutations, N x K dual weights) `reps` times with `gemm` and
// `dual` (Status(const Args&, cudaStream_t)), PDL on or off, on a fresh stream; returns the outputs.
template <class Gemm, class Dual>
PdlChainResult run_pdl_chain(int64_t m, int64_t k, int64_t n, int reps, bool pdl, const Gemm& gemm,
                             const Dual& dual) {
  using bf16 = __nv_bfloat16;
  std::mt19937 rng(2024);
  std::vector<bf16> x0(static_cast<size_t>(m * k)), w1(static_cast<size_t>(n * k)), w2(w1.size());
  for (auto& v : x0) v = bwgemm::ref::from_float<bf16>(static_cast<float>(static_cast<int>(rng() % 9) - 4));
  for (auto& v : w1)
    v = bwgemm::ref::from_float<bf16>(static_cast<float>(static_cast<int>(rng() % 5) - 2) / 8);
  for (auto& v : w2)
    v = bwgemm::ref::from_float<bf16>(static_cast<float>(static_cast<int>(rng() % 5) - 2) / 8);
  const std::vector<bf16> p1 = signed_permutation(k, 11), p2 = signed_permutation(k, 12);
  DeviceBytes x(x0.size() * 2), d1(static_cast<size_t>(reps) * m * k * 2),
      c(static_cast<size_t>(reps) * m * n * 2), dp1(p1.size() * 2), dp2(p2.size() * 2), dw1(w1.size() * 2),
      dw2(w2.size() * 2);
  x.upload(x0.data(), x.size());
  dp1.upload(p1.data(), dp1.size());
  dp2.upload(p2.data(), dp2.size());
  dw1.upload(w1.data(), dw1.size());
  dw2.upload(w2.data(), dw2.size());
  d1.fill(0xEE), c.fill(0xEE);
  cudaStream_t stream = nullptr;
#if !BWGEMM_EMULATION
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
#endif
  bool ok = true;
  for (int r = 0; r < reps && ok; ++r) {
    bwgemm::GemmArguments<bf16, bf16> g1;
    g1.m = m, g1.n = k, g1.k = k;
    g1.a = reinterpret_cast<const bf16*>(x.data());
    g1.b = reinterpret_cast<const bf16*>(dp1.data());
    g1.d = reinterpret_cast<bf16*>(d1.data()) + static_cast<int64_t>(r) * m * k;
    g1.launch.programmatic_dependent_launch = pdl;
    bwgemm::GemmArguments<bf16, bf16> g2 = g1;
    g2.a = g1.d;
    g2.b = reinterpret_cast<const bf16*>(dp2.data());
    g2.d = reinterpret_cast<bf16*>(x.data());
    bwgemm::DualGemmArguments<bf16, bf16> du;
    du.m = m, du.n = n, du.k = k;
    du.a = reinterpret_cast<const bf16*>(x.data());
    du.b1 = reinterpret_cast<const bf16*>(dw1.data());
    du.b2 = reinterpret_cast<const bf16*>(dw2.data());
    du.c = reinterpret_cast<bf16*>(c.data()) + static_cast<int64_t>(r) * m * n;
    du.launch.programmatic_dependent_launch = pdl;
    for (const bwgemm::Status s : {gemm(g1, stream), gemm(g2, stream), dual(du, stream)}) {
      EXPECT_TRUE(s.ok()) << "repetition " << r << ": " << s.to_string();
      ok = ok && s.ok();
    }
  }
#if !BWGEMM_EMULATION
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
#endif
  synchronize();
  PdlChainResult out{download_as<uint16_t>(d1), download_as<uint16_t>(c), download_as<uint16_t>(x)};
  // D1[0] = X0 · P1 on the host (exact: a signed permutation of X0's columns).
  std::vector<float> want(static_cast<size_t>(m * k), 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j)
      for (int64_t l = 0; l < k; ++l)
        want[static_cast<size_t>(i * k + j)] += bwgemm::ref::to_float(x0[static_cast<size_t>(i * k + l)]) *
                                                bwgemm::ref::to_float(p1[static_cast<size_t>(l * k + j)]);
  int64_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bf16 w = bwgemm::ref::from_float<bf16>(want[i]);
    uint16_t bits;
    std::memcpy(&bits, &w, 2);
    wrong += out.d1[i] != bits;
  }
  EXPECT_EQ(wrong, 0) << "D1[0] differs from X0 · P1 (PDL " << (pdl ? "on" : "off") << ")";
  return out;
}

// The chain with PDL on equals the chain with PDL off bit for bit; the repetitions' outputs differ.
template <class Gemm, class Dual>
void check_pdl_chain(int64_t m, int64_t k, int64_t n, int reps, const Gemm& gemm, const Dual& dual) {
  SCOPED_TRACE("PDL chain M=" + std::to_string(m) + " K=" + std::to_string(k) + " N=" + std::to_string(n) +
               " x" + std::to_string(reps));
  const PdlChainResult off = run_pdl_chain(m, k, n, reps, false, gemm, dual);
  const PdlChainResult on = run_pdl_chain(m, k, n, reps, true, gemm, dual);
  EXPECT_TRUE(off.d1 == on.d1) << "D1 differs with PDL";
  EXPECT_TRUE(off.c == on.c) << "C differs with PDL";
  EXPECT_TRUE(off.x == on.x) << "X differs with PDL";
  if (reps > 1) {
    const size_t slice = static_cast<size_t>(m * k);
    EXPECT_FALSE(std::equal(off.d1.begin(), off.d1.begin() + slice, off.d1.begin() + slice))
        << "the chain's data does not change between repetitions";
  }
}

}  // namespace bwgemm_test
