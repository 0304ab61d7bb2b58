// bench/shapes.cpp without a GPU: the model sweep's shapes, worked out by hand from the models' configs, and
// the --bwgemm_shapes parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "shapes.hpp"

namespace {

using bwgemm::BLayout;
using namespace bwgemm::bench;

bool has_gemm(const ShapeSets& s, int64_t m, int64_t n, int64_t k) {
  int layouts = 0;
  for (const GemmShape& g : s.gemm) layouts += g.m == m && g.n == n && g.k == k;
  return layouts == 2;  // both B layouts
}

// The NVFP4 GEMM holds (M, N, K) exactly once, with B N x K.
bool has_nvfp4_gemm(const ShapeSets& s, int64_t m, int64_t n, int64_t k) {
  int count = 0;
  for (const GemmShape& g : s.gemm_nvfp4)
    count += g.m == m && g.n == n && g.k == k && g.b_layout == BLayout::kColumnMajorKxN;
  return count == 1;
}

// Every NVFP4 GEMM shape is one of the GEMM's (M, N, K), in B N x K only, and the other way round; and each
// is one the NVFP4 problems take (N whole 128-row scale atoms) and bwgemm::gemm_nvfp4 accepts (K % 64 == 0).
void expect_nvfp4_gemm_mirrors_gemm(const ShapeSets& s) {
  EXPECT_EQ(s.gemm_nvfp4.size() * 2, s.gemm.size());
  for (const GemmShape& g : s.gemm_nvfp4) {
    EXPECT_EQ(g.b_layout, BLayout::kColumnMajorKxN) << g.key();
    EXPECT_TRUE(has_gemm(s, g.m, g.n, g.k)) << g.key();
    EXPECT_EQ(g.n % 128, 0) << g.key();
    EXPECT_EQ(g.k % 64, 0) << g.key();
  }
  for (const GemmShape& g : s.gemm) EXPECT_TRUE(has_nvfp4_gemm(s, g.m, g.n, g.k)) << g.key();
}

TEST(BenchShapes, SweepCoversEveryTokenCountAndProjection) {
  const ShapeSets s = model_sweep();
  ASSERT_EQ(sweep_tokens().size(), 15u);
  EXPECT_EQ(sweep_tokens().front(), 1);
  EXPECT_EQ(sweep_tokens().back(), 16384);
  // 3 models x 15 token counts x 4 projections x 2 layouts; one dual shape per model and M.
  EXPECT_EQ(s.gemm.size(), 3u * 15 * 4 * 2);
  EXPECT_EQ(s.dual_bf16.size(), 3u * 15);
  EXPECT_EQ(s.dual_nvfp4.size(), 3u * 15);
  EXPECT_EQ(s.gemm_nvfp4.size(), 3u * 15 * 4);  // the four projections, B N x K
  // Llama-3.1-8B: hidden 4096, 32 heads and 8 KV heads of 128, intermediate 14336.
  EXPECT_TRUE(has_gemm(s, 1, 6144, 4096));    // qkv
  EXPECT_TRUE(has_gemm(s, 16, 4096, 4096));   // o
  EXPECT_TRUE(has_gemm(s, 64, 28672, 4096));  // gate and up
  EXPECT_TRUE(has_gemm(s, 2, 4096, 14336));   // down
  EXPECT_TRUE(has_nvfp4_gemm(s, 1, 6144, 4096));
  EXPECT_TRUE(has_nvfp4_gemm(s, 16, 4096, 4096));
  EXPECT_TRUE(has_nvfp4_gemm(s, 64, 28672, 4096));
  EXPECT_TRUE(has_nvfp4_gemm(s, 2, 4096, 14336));
  EXPECT_TRUE(has_nvfp4_gemm(s, 16384, 10240, 8192));  // Llama-3.1-70B qkv
  EXPECT_TRUE(has_nvfp4_gemm(s, 8, 7168, 5120));       // Qwen2.5-32B qkv
  EXPECT_TRUE(has_nvfp4_gemm(s, 32, 55296, 5120));     // Qwen2.5-32B gate and up
  expect_nvfp4_gemm_mirrors_gemm(s);
  // Llama-3.1-70B: hidden 8192, 64 heads, 8 KV heads, intermediate 28672.
  EXPECT_TRUE(has_gemm(s, 16384, 10240, 8192));
  EXPECT_TRUE(has_gemm(s, 512, 8192, 28672));
  // Qwen2.5-32B: hidden 5120, 40 heads, 8 KV heads, intermediate 27648.
  EXPECT_TRUE(has_gemm(s, 8, 7168, 5120));
  const auto dual = [&](int64_t m, int64_t n, int64_t k) {
    return std::any_of(s.dual_bf16.begin(), s.dual_bf16.end(),
                       [&](const DualShape& d) { return d.m == m && d.n == n && d.k == k; });
  };
  EXPECT_TRUE(dual(1, 27648, 5120));
  EXPECT_TRUE(dual(4096, 14336, 4096));
}

TEST(BenchShapes, DefaultsGiveTheNvfp4GemmTheGemmShapes) {
  const ShapeSets s = default_shapes();
  EXPECT_EQ(s.gemm.size(), 9u * 2);
  EXPECT_EQ(s.gemm_nvfp4.size(), 9u);
  EXPECT_TRUE(has_nvfp4_gemm(s, 4096, 5120, 4096));   // GPU MODE ranked
  EXPECT_TRUE(has_nvfp4_gemm(s, 1024, 14336, 4096));  // Llama-3-8B gate
  EXPECT_TRUE(has_nvfp4_gemm(s, 1024, 4096, 14336));  // Llama-3-8B down
  expect_nvfp4_gemm_mirrors_gemm(s);
}

TEST(BenchShapes, ParsesListsAndFiles) {
  ShapeSets s;
  std::string error;
  ASSERT_TRUE(parse_shapes("1x4096x4096,16X14336x4096", &s, &error)) << error;
  EXPECT_EQ(s.gemm.size(), 4u);
  EXPECT_EQ(s.gemm[0].b_layout, BLayout::kRowMajorKxN);
  EXPECT_EQ(s.gemm[1].b_layout, BLayout::kColumnMajorKxN);
  EXPECT_EQ(s.dual_bf16.size(), 2u);
  EXPECT_EQ(s.dual_nvfp4[1].n, 14336);
  EXPECT_EQ(s.gemm[2].key(), "M16_N14336_K4096_Bkn");
  ASSERT_EQ(s.gemm_nvfp4.size(), 2u);
  EXPECT_EQ(s.gemm_nvfp4[1].key(), "M16_N14336_K4096_Bnk");

  const std::string path = testing::TempDir() + "bench_shapes.txt";
  {
    std::ofstream f(path);
    f << "# decode shapes\n1 8192 8192\n\n2x1024x8192  # with a comment\n";
  }
  ASSERT_TRUE(parse_shapes("@" + path, &s, &error)) << error;
  ASSERT_EQ(s.dual_bf16.size(), 2u);
  EXPECT_EQ(s.dual_bf16[1].m, 2);
  ASSERT_EQ(s.gemm_nvfp4.size(), 2u);
  EXPECT_EQ(s.gemm_nvfp4[0].key(), "M1_N8192_K8192_Bnk");
  EXPECT_EQ(s.dual_bf16[1].n, 1024);
  std::remove(path.c_str());
}

TEST(BenchShapes, RefusesBadSpecs) {
  ShapeSets s;
  std::string error;
  for (const char* bad :
       {"", "4096x4096", "0x8x8", "-1x8x8", "8x8x8x8", "axbxc", "8x8x8,", "@/nonexistent/file"}) {
    EXPECT_FALSE(parse_shapes(bad, &s, &error)) << "'" << bad << "' was accepted";
    EXPECT_FALSE(error.empty());
  }
}

}  // namespace
