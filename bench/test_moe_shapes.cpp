// bench/moe_shapes.cpp without a GPU: the models' figures, the router (counts sum to tokens x top_k, uniform
// balanced, Zipf skewed, deterministic, the expert-parallel slice a prefix of the whole model's), the
// offsets, the keys, the shape lists and the rotation plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "moe_shapes.hpp"

namespace {

using namespace bwgemm::bench;

int64_t sum_of(const std::vector<int32_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{0});
}

const MoeModel& model(const std::string& name) {
  for (const MoeModel& m : moe_models())
    if (name == m.name) return m;
  throw std::out_of_range(name);
}

TEST(BenchMoeShapes, ModelsHaveThePublishedFigures) {
  ASSERT_EQ(moe_models().size(), 5u);
  const MoeModel& v3 = model("deepseek-v3");
  EXPECT_EQ(v3.hidden, 7168);
  EXPECT_EQ(v3.intermediate, 2048);
  EXPECT_EQ(v3.experts, 256);
  EXPECT_EQ(v3.top_k, 8);
  EXPECT_EQ(v3.local_experts, 256);
  EXPECT_EQ(model("deepseek-v3-ep8").local_experts, 32);
  EXPECT_EQ(model("deepseek-v3-ep8").experts, 256);
  const MoeModel& qwen = model("qwen3-30b-a3b");
  EXPECT_EQ(qwen.hidden, 2048);
  EXPECT_EQ(qwen.intermediate, 768);
  EXPECT_EQ(qwen.experts, 128);
  EXPECT_EQ(qwen.top_k, 8);
  const MoeModel& oss = model("gpt-oss-120b");
  EXPECT_EQ(oss.hidden, 2880);
  EXPECT_EQ(oss.intermediate, 2880);
  EXPECT_EQ(oss.experts, 128);
  EXPECT_EQ(oss.top_k, 4);
  const MoeModel& maverick = model("llama4-maverick");
  EXPECT_EQ(maverick.hidden, 5120);
  EXPECT_EQ(maverick.intermediate, 8192);
  EXPECT_EQ(maverick.experts, 128);
  EXPECT_EQ(maverick.top_k, 1);
}

TEST(BenchMoeShapes, CountsSumToTokensTimesTopK) {
  for (MoeRouting routing : {MoeRouting::kUniform, MoeRouting::kZipf}) {
    for (const MoeModel& m : moe_models()) {
      for (int64_t t : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{64}, int64_t{1000}, int64_t{16384}}) {
        const std::vector<int32_t> counts =
            route_tokens(t, m.experts, m.top_k, routing, moe_routing_seed(t, m.experts, m.top_k, routing));
        ASSERT_EQ(counts.size(), static_cast<size_t>(m.experts));
        EXPECT_EQ(sum_of(counts), t * m.top_k) << m.name << " " << t;
        for (int32_t c : counts) {
          EXPECT_GE(c, 0);
          EXPECT_LE(c, t) << "a token picks an expert at most once";
        }
      }
    }
  }
  // top_k = E: every token picks every expert.
  const std::vector<int32_t> all = route_tokens(10, 4, 4, MoeRouting::kZipf, 1);
  EXPECT_EQ(all, std::vector<int32_t>(4, 10));
}

TEST(BenchMoeShapes, RoutingIsDeterministicAndSeeded) {
  const uint64_t seed = moe_routing_seed(4096, 256, 8, MoeRouting::kZipf);
  EXPECT_EQ(route_tokens(4096, 256, 8, MoeRouting::kZipf, seed),
            route_tokens(4096, 256, 8, MoeRouting::kZipf, seed));
  EXPECT_NE(route_tokens(4096, 256, 8, MoeRouting::kZipf, seed),
            route_tokens(4096, 256, 8, MoeRouting::kZipf, seed + 1));
  // The seed depends on every routing parameter.
  std::set<uint64_t> seeds;
  for (int64_t t : {1, 2, 4096})
    for (int64_t e : {32, 256})
      for (int64_t k : {1, 8})
        for (MoeRouting r : {MoeRouting::kUniform, MoeRouting::kZipf})
          seeds.insert(moe_routing_seed(t, e, k, r));
  EXPECT_EQ(seeds.size(), 3u * 2 * 2 * 2);
}

// The same values are in bench/moe_torch.py's self-test: the Python router must give these counts.
TEST(BenchMoeShapes, GoldenCountsSharedWithThePythonRouter) {
  const std::vector<int32_t> uniform =
      route_tokens(64, 16, 4, MoeRouting::kUniform, moe_routing_seed(64, 16, 4, MoeRouting::kUniform));
  const std::vector<int32_t> zipf =
      route_tokens(64, 16, 4, MoeRouting::kZipf, moe_routing_seed(64, 16, 4, MoeRouting::kZipf));
  const std::vector<int32_t> want_uniform = {15, 12, 16, 18, 11, 16, 14, 15, 14, 21, 17, 9, 16, 22, 22, 18};
  const std::vector<int32_t> want_zipf = {50, 21, 4, 17, 7, 13, 30, 9, 21, 8, 3, 9, 13, 8, 4, 39};
  EXPECT_EQ(uniform, want_uniform);
  EXPECT_EQ(zipf, want_zipf);
  EXPECT_EQ(moe_routing_seed(64, 16, 4, MoeRouting::kUniform), 13408748069177770034ull);
}

TEST(BenchMoeShapes, UniformRoutingIsBalanced) {
  // 16384 tokens x 8 over 256 experts: 512 rows each on average, binomial spread about 22.
  const std::vector<int32_t> c = route_tokens(16384, 256, 8, MoeRouting::kUniform,
                                              moe_routing_seed(16384, 256, 8, MoeRouting::kUniform));
  EXPECT_GT(*std::min_element(c.begin(), c.end()), 512 - 6 * 22);
  EXPECT_LT(*std::max_element(c.begin(), c.end()), 512 + 6 * 22);
}

TEST(BenchMoeShapes, ZipfRoutingIsSkewed) {
  // 4096 tokens x 8 over 256 experts: 128 rows each on average. Rank 0 has 1/H(256) = 16% of the weight.
  std::vector<int32_t> c =
      route_tokens(4096, 256, 8, MoeRouting::kZipf, moe_routing_seed(4096, 256, 8, MoeRouting::kZipf));
  std::sort(c.begin(), c.end(), std::greater<int32_t>());
  EXPECT_GT(c[0], 4096 * 3 / 4) << "the hottest expert gets most tokens";
  EXPECT_GT(c[0], 10 * 128);
  const int64_t top_tenth = std::accumulate(c.begin(), c.begin() + 26, int64_t{0});
  EXPECT_GT(top_tenth, 4096 * 8 / 2) << "a tenth of the experts get over half the rows";
  EXPECT_LT(c[255], 128 / 4) << "the tail is cold";
  // The hot experts are spread over the expert ids (a shuffle), not experts 0, 1, 2, ...
  const std::vector<int32_t> by_id =
      route_tokens(4096, 256, 8, MoeRouting::kZipf, moe_routing_seed(4096, 256, 8, MoeRouting::kZipf));
  EXPECT_NE(std::max_element(by_id.begin(), by_id.end()) - by_id.begin(), 0);
  EXPECT_FALSE(std::is_sorted(by_id.begin(), by_id.end(), std::greater<int32_t>()));
}

TEST(BenchMoeShapes, ExpertParallelSliceIsAPrefixOfTheWholeModel) {
  for (MoeRouting routing : {MoeRouting::kUniform, MoeRouting::kZipf}) {
    const MoeShape whole{model("deepseek-v3"), 4096, routing, MoeLayout::kContiguous, MoeOp::kFc1};
    const MoeShape slice{model("deepseek-v3-ep8"), 4096, routing, MoeLayout::kMasked, MoeOp::kFc2};
    const std::vector<int32_t> all = moe_expert_counts(whole), local = moe_expert_counts(slice);
    ASSERT_EQ(all.size(), 256u);
    ASSERT_EQ(local.size(), 32u);
    EXPECT_TRUE(std::equal(local.begin(), local.end(), all.begin()));
  }
}

TEST(BenchMoeShapes, OffsetsAreInt32CumulativeEnds) {
  const std::vector<int32_t> offs = cumulative_offsets({3, 0, 5, 0, 0, 2});
  EXPECT_EQ(offs, (std::vector<int32_t>{3, 3, 8, 8, 8, 10}));
  EXPECT_TRUE(cumulative_offsets({}).empty());
  const MoeShape s{model("qwen3-30b-a3b"), 1024, MoeRouting::kZipf, MoeLayout::kContiguous, MoeOp::kFc1};
  const std::vector<int32_t> counts = moe_expert_counts(s), o = cumulative_offsets(counts);
  ASSERT_EQ(o.size(), 128u);
  EXPECT_EQ(o.back(), 1024 * 8);
  EXPECT_TRUE(std::is_sorted(o.begin(), o.end()));
  EXPECT_EQ(o[0], counts[0]);
  EXPECT_THROW(cumulative_offsets({2147483647, 1}), std::overflow_error);
}

TEST(BenchMoeShapes, RefusesBadRouterArguments) {
  EXPECT_THROW(route_tokens(8, 4, 5, MoeRouting::kUniform, 1), std::invalid_argument);
  EXPECT_THROW(route_tokens(8, 4, 0, MoeRouting::kUniform, 1), std::invalid_argument);
  EXPECT_THROW(route_tokens(-1, 4, 1, MoeRouting::kUniform, 1), std::invalid_argument);
  EXPECT_THROW(route_tokens(8, 0, 1, MoeRouting::kUniform, 1), std::invalid_argument);
}

TEST(BenchMoeShapes, KeysNameTheGemmAndTheRouting) {
  const MoeShape fc1{model("deepseek-v3-ep8"), 4096, MoeRouting::kZipf, MoeLayout::kContiguous, MoeOp::kFc1};
  EXPECT_EQ(fc1.key(), "M4096_N2048_K7168_deepseek-v3-ep8_E32of256_top8_zipf_offs");
  MoeShape fc2 = fc1;
  fc2.op = MoeOp::kFc2;
  fc2.layout = MoeLayout::kMasked;
  fc2.routing = MoeRouting::kUniform;
  EXPECT_EQ(fc2.key(), "M4096_N7168_K2048_deepseek-v3-ep8_E32of256_top8_uniform_masked");
  const MoeShape oss{model("gpt-oss-120b"), 1, MoeRouting::kUniform, MoeLayout::kMasked, MoeOp::kLayer};
  EXPECT_EQ(oss.key(), "M1_N2880_K2880_gpt-oss-120b_E128_top4_uniform_masked");
  EXPECT_EQ(oss.max_tokens(), 1);
}

void expect_runnable(const std::vector<MoeShape>& shapes) {
  std::set<std::string> keys;
  for (const MoeShape& s : shapes) {
    EXPECT_TRUE(keys.insert(s.key()).second) << s.key();
    for (MoeOp op : {MoeOp::kFc1, MoeOp::kFc2}) {
      MoeShape g = s;
      g.op = op;
      EXPECT_EQ(g.n() % 16, 0) << g.key();  // the NVFP4 rule (16-bit: 8)
      EXPECT_EQ(g.k() % 64, 0) << g.key();
    }
    // Every shape gives the local experts work (the expert-parallel slice at 1 token might not).
    EXPECT_GT(sum_of(moe_expert_counts(s)), 0) << s.key();
  }
}

TEST(BenchMoeShapes, SweepCoversModelsTokensRoutingsAndLayouts) {
  const std::vector<MoeShape> sweep = moe_sweep();
  // 5 models x 2 routings x (7 contiguous + 3 masked token counts), less the expert-parallel model at 1
  // token.
  EXPECT_EQ(sweep.size(), 5u * 2 * 10 - 2 * 2);
  expect_runnable(sweep);
  EXPECT_EQ(moe_sweep_tokens().front(), 1);
  EXPECT_EQ(moe_sweep_tokens().back(), 16384);
  for (const MoeShape& s : sweep) {
    if (s.layout == MoeLayout::kMasked) {
      EXPECT_LE(s.tokens, 64) << s.key();
    }
  }
  const std::vector<MoeShape> fc2 = moe_shapes_for(sweep, MoeOp::kFc2);
  ASSERT_EQ(fc2.size(), sweep.size());
  EXPECT_EQ(fc2[0].op, MoeOp::kFc2);
  EXPECT_EQ(fc2[0].n(), sweep[0].k());
}

TEST(BenchMoeShapes, DefaultsAreAFewOfTheSweep) {
  const std::vector<MoeShape> d = default_moe_shapes();
  EXPECT_EQ(d.size(), 11u);
  expect_runnable(d);
  std::set<std::string> sweep_keys;
  for (const MoeShape& s : moe_sweep()) sweep_keys.insert(s.key());
  for (const MoeShape& s : d) EXPECT_EQ(sweep_keys.count(s.key()), 1u) << s.key();
}

TEST(BenchMoeShapes, RotationKeepsOneWeightCopyWhenACallStreamsEnough) {
  constexpr int64_t kMiB = 1 << 20, kGiB = int64_t{1} << 30;
  MoeRotation r;
  std::string why;
  // H200-like: 60 MiB L2, so 180 MiB between reuses (kL2RotationFactor 3). DeepSeek-V3 bf16 FC1 at 1 token: 8
  // experts of 56 MiB.
  ASSERT_TRUE(
      plan_moe_rotation(14 * kGiB, 8 * 56 * kMiB, 30 * kMiB, kMiB / 8, 180 * kMiB, 70 * kGiB, &r, &why));
  EXPECT_EQ(r.weight_copies, 1);
  EXPECT_EQ(r.sets, 2);
  EXPECT_EQ(r.bytes, 14 * kGiB + 2 * 30 * kMiB);
  // Qwen3-30B at 1 token: 8 experts of 6 MiB read, so 4 sets of everything.
  ASSERT_TRUE(plan_moe_rotation(768 * kMiB, 48 * kMiB, kMiB, kMiB / 64, 180 * kMiB, 70 * kGiB, &r, &why));
  EXPECT_EQ(r.weight_copies, 4);
  EXPECT_EQ(r.sets, 4);
  // Memory short: fewer sets, never below 2; then a refusal that says why.
  ASSERT_TRUE(plan_moe_rotation(10 * kGiB, 48 * kMiB, kMiB, kMiB / 64, 180 * kMiB, 25 * kGiB, &r, &why));
  EXPECT_EQ(r.sets, 2);
  EXPECT_FALSE(plan_moe_rotation(20 * kGiB, 48 * kMiB, kMiB, kMiB / 64, 180 * kMiB, 25 * kGiB, &r, &why));
  EXPECT_NE(why.find("more than half of the device memory"), std::string::npos) << why;
}

}  // namespace
