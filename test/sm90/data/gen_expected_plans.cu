// Writes the sm_90a default entry points' choices (sm90::gemm and sm90::dual_gemm, as the rules before
// sm90/choice.hpp ran them) over a grid of shapes with an H200's resident clusters {132, 66, 32, 16}: the
// expected answers of test_choice_sm90 (expected_plans.txt). Built and run once on the code before the choice
// layer existed (it calls the entry points' old helpers):
//
//   nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iinclude test/sm90/data/gen_expected_plans.cu -o /tmp/gen \
//     && /tmp/gen > test/sm90/data/expected_plans.txt
//
// Format: "M <list>", then one line per (operation, N, K, batch[, layout], workspace): two characters per M of
// the list, the choice ('a' + the enum's index; upper case: its stream-K launch) and the split (1, 2, 4, 8).
#include <cstdio>
#include <vector>

#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"

namespace sm90 = bwgemm::sm90;
using bwgemm::BLayout;
using bwgemm::ceil_div;

static const int64_t kH200[4] = {132, 66, 32, 16};

template <class SplitOp, class StreamKOp>
static void swap_ab(int64_t m, int64_t n, int64_t k, int64_t batch, bool ws, bool* sk, int* split) {
  using Cfg = typename SplitOp::Config;
  const int64_t tiles = bwgemm::detail::config_tile_grid<Cfg>(m, n, batch).total();
  const int64_t kb = ceil_div(k, int64_t{Cfg::kBlockK});
  *sk = false;
  if constexpr (!std::is_same_v<StreamKOp, sm90::detail::NoStreamK>) {
    using SkCfg = typename StreamKOp::Config;
    const int64_t sk_units = bwgemm::detail::config_tile_grid<SkCfg>(m, n, batch).total() * kb;
    if (ws && sm90::swap_ab_stream_k_pays(tiles, kb, kH200, sm90::swap_ab_split_cost_percent<Cfg>()) &&
        sk_units <= INT32_MAX) {
      *sk = true, *split = 1;
      return;
    }
  }
  *split = sm90::choose_split_k(tiles, kb, kH200, sm90::swap_ab_split_cost_percent<Cfg>());
}

static char code(int index, bool sk) { return static_cast<char>((sk ? 'A' : 'a') + index); }

int main() {
  std::vector<int64_t> ms;
  for (int64_t m = 1; m <= 16384; ++m)
    if (m <= 320 || (m <= 2048 && (m % 8 == 0 || m % 128 == 1 || m % 128 == 127)) || m % 64 == 0 ||
        m == 16383)
      ms.push_back(m);
  std::printf("M");
  for (int64_t m : ms) std::printf(" %lld", static_cast<long long>(m));
  std::printf("\n");
  // The model sweep's projections (bench/shapes.cpp) and a few narrow ones around the band edges.
  const int64_t gemm_nk[][2] = {{6144, 4096},  {4096, 4096},  {28672, 4096}, {4096, 14336}, {7168, 5120},
                                {5120, 5120},  {55296, 5120}, {5120, 27648}, {10240, 8192}, {8192, 8192},
                                {57344, 8192}, {8192, 28672}, {1024, 4096},  {1152, 2048},  {3584, 8192},
                                {8440, 4096},  {8448, 4096},  {2048, 72}};
  for (const auto& nk : gemm_nk)
    for (int64_t batch : {1, 3})
      for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN})
        for (bool ws : {false, true}) {
          const int64_t n = nk[0], k = nk[1];
          std::printf("gemm %lld %lld %lld %s %d ", static_cast<long long>(n), static_cast<long long>(k),
                      static_cast<long long>(batch), layout == BLayout::kRowMajorKxN ? "kn" : "nk", ws ? 1 : 0);
          for (int64_t m : ms) {
            const sm90::GemmChoice c = sm90::gemm_choice(m, n, batch, layout);
            bool sk = false;
            int split = 1;
            sm90::GemmChoice chosen = c;
            if (!sm90::is_swap_ab_choice(c)) {
              bwgemm::sched::StreamK::Work w;
              const int64_t tiles = ceil_div(m, int64_t{128}) * ceil_div(n, int64_t{256}) * batch;
              const int64_t sk_ctas =
                  ws && sm90::stream_k_work<sm90::GemmStreamK128x256<float>>(tiles, k, kH200[0], &w) ? kH200[0]
                                                                                                     : 0;
              const sm90::GemmTiledPlan p = sm90::gemm_tiled_plan(m, n, k, batch, kH200, sk_ctas, layout);
              chosen = p.choice, split = p.split_k, sk = p.choice == sm90::GemmChoice::kStreamK128x256;
            } else {
              sm90::detail::visit_swap_ab_choice<float>(c, [&](auto s, auto streamk, const char*) {
                swap_ab<decltype(s), decltype(streamk)>(m, n, k, batch, ws, &sk, &split);
                return 0;
              });
            }
            std::printf("%c%d", code(static_cast<int>(chosen), sk), split);
          }
          std::printf("\n");
        }
  const int64_t dual_nk[][2] = {{14336, 4096}, {27648, 5120}, {28672, 8192},
                                {4096, 7168},  {3072, 4096},  {1024, 1024}};
  for (const auto& nk : dual_nk)
    for (int64_t batch : {1, 3})
      for (bool ws : {false, true}) {
        const int64_t n = nk[0], k = nk[1];
        std::printf("dual %lld %lld %lld %d ", static_cast<long long>(n), static_cast<long long>(k),
                    static_cast<long long>(batch), ws ? 1 : 0);
        for (int64_t m : ms) {
          const sm90::DualGemmChoice c = sm90::dual_gemm_choice(m, n, batch);
          bool sk = false;
          int split = 1;
          if (sm90::detail::is_dual_swap_ab_choice(c))
            sm90::detail::visit_dual_swap_ab_choice<__nv_bfloat16>(c, [&](auto s, auto streamk, const char*) {
              swap_ab<decltype(s), decltype(streamk)>(m, n, k, batch, ws, &sk, &split);
              return 0;
            });
          std::printf("%c%d", code(static_cast<int>(c), sk), split);
        }
        std::printf("\n");
      }
  return 0;
}
