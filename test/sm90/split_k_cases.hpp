// What the sm_90a split-K and stream-K tests share (test_swap_ab_sm90.cu, test_gemm_sm90.cu): the split a
// contract problem can take, gtest type lists joined, the stream-K workspace, and the check that a split
// gives the same bits on every run. Include after gemm_contract.hpp.
#pragma once

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "bwgemm/sm90/gemm.cuh"

namespace bwgemm_test {

// The largest split of {1, 2, 4, 8} not above `want` and the problem's K blocks of 64 (a forced split may
// not exceed them; the contract's shapes have K = 8..2056).
inline int split_for(int want, int64_t k) {
  const int64_t k_blocks = (k + 63) / 64;
  int s = want;
  while (s > 1 && s > k_blocks) s /= 2;
  return s;
}

// A zero-filled device workspace of at least `bytes` (stream-K: GemmArguments::workspace), kept for the
// process and reused as it is: every stream-K call must leave its flags at zero, so every later call in
// this process checks that the calls before it did.
inline void* reused_workspace(int64_t bytes) {
  static std::unique_ptr<DeviceBytes> workspace;
  if (!workspace || static_cast<int64_t>(workspace->size()) < bytes) {
    workspace = std::make_unique<DeviceBytes>(static_cast<size_t>(bytes));
    workspace->fill(0);
  }
  return workspace->data();
}

// The sm_90a default GEMM entry point with the workspace it asks for (sm90::gemm_workspace_bytes, from
// reused_workspace; none where it asks for 0 bytes).
template <class In, class Out>
bwgemm::Status sm90_gemm_with_workspace(const bwgemm::GemmArguments<In, Out>& args) {
  int64_t bytes = 0;
  if (bwgemm::Status s = bwgemm::sm90::gemm_workspace_bytes(args, &bytes); !s.ok()) return s;
  auto with = args;
  if (bytes > 0) with.workspace = reused_workspace(bytes), with.workspace_bytes = bytes;
  return bwgemm::sm90::gemm(with);
}

// gtest type lists joined into one.
template <class... Lists>
struct Concat;
template <class... A>
struct Concat<::testing::Types<A...>> {
  using type = ::testing::Types<A...>;
};
template <class... A, class... B, class... Rest>
struct Concat<::testing::Types<A...>, ::testing::Types<B...>, Rest...> {
  using type = typename Concat<::testing::Types<A..., B...>, Rest...>::type;
};

// Split K gives the same bits on every run: bf16 realistic data for `pb` (sums that round), `runs` calls of
// launch(args, split) per split, each into a D first filled with a new byte (a stale result cannot pass for
// a new one), compared byte for byte with the first, which is checked against the reference.
template <class Launch>
void expect_bitwise_identical_runs(const GemmProblem& pb, uint32_t seed, std::initializer_list<int> splits,
                                   int runs, const Launch& launch) {
  using bf16 = __nv_bfloat16;
  const GemmOperands<bf16, bf16> o(pb, Data::kRealistic, seed);
  DeviceBytes a(o.a.size() * sizeof(bf16)), b(o.b.size() * sizeof(bf16)),
      d(static_cast<size_t>(o.d_elements()) * sizeof(bf16));
  a.upload(o.a.data(), a.size());
  b.upload(o.b.data(), b.size());
  bwgemm::GemmArguments<bf16> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = reinterpret_cast<const bf16*>(a.data()), args.lda = o.lda;
  args.b = reinterpret_cast<const bf16*>(b.data()), args.b_layout = pb.b_layout, args.ldb = o.ldb;
  args.d = reinterpret_cast<bf16*>(d.data()), args.ldd = o.ldd;
  for (int split : splits) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    std::vector<uint8_t> first;
    for (int run = 0; run < runs; ++run) {
      d.fill(static_cast<uint8_t>(run));
      ASSERT_TRUE(launch(args, split).ok());
      synchronize();
      const std::vector<uint8_t> bytes = d.download_checked();
      if (run == 0) {
        first = bytes;
        expect_gemm_matches(o, Data::kRealistic, download_as<bf16>(d));
      } else {
        ASSERT_EQ(std::memcmp(first.data(), bytes.data(), bytes.size()), 0) << "run " << run << " differs";
      }
    }
  }
}

}  // namespace bwgemm_test
