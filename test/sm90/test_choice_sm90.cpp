// The sm_90a default entry points' choice (sm90/choice.hpp) without a GPU and without compiling a kernel
// (g++): the rules worked out by hand on an H200's facts, and a dense grid of shapes against the choices the
// entry points made before the choice layer existed. data/expected_plans.txt holds those: written by
// test/sm90/data/gen_expected_plans.cu of commit d7f16b3 (it calls the helpers the rules had then; its
// header has the command) with its kH200 set to h200_device_facts()'s resident clusters, {132, 66, 30, 14}.
// The file: "M <list>", then per (operation, N, K, batch[, layout], workspace) two characters per M: 'a' +
// the choice's index (upper case: its stream-K launch) and the split.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/sm90/tuning.hpp"
#include "bwgemm/tuning/builtin_h200.hpp"
#include "bwgemm/tuning/registry.hpp"
#include "bwgemm/tuning/table.hpp"

#ifndef BWGEMM_SM90_EXPECTED_PLANS
#error "BWGEMM_SM90_EXPECTED_PLANS must name test/sm90/data/expected_plans.txt"
#endif

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
using bwgemm::BLayout;
constexpr BLayout kKxN = BLayout::kRowMajorKxN, kNxK = BLayout::kColumnMajorKxN;
constexpr sm90::DeviceFacts kH200 = sm90::h200_device_facts();

// An H200's SM count with the given resident clusters of 1, 2, 4, 8 CTAs.
sm90::DeviceFacts facts(const int64_t (&resident)[4]) {
  sm90::DeviceFacts d;
  for (int i = 0; i < 4; ++i) d.resident_clusters[i] = resident[i];
  return d;
}

// ---- the plans against the rules before the choice layer
// ----------------------------------------------------- Every line of data/expected_plans.txt: the plan
// gemm_plan / dual_gemm_plan gives with the H200's facts against the one the entry points ran before (two
// characters per M: 'a' + the choice's index, upper case for stream-K; the split).
TEST(Sm90Choice, SameAsTheEntryPointsBeforeOverADenseGrid) {
  std::ifstream in(BWGEMM_SM90_EXPECTED_PLANS);
  ASSERT_TRUE(in) << "cannot read " << BWGEMM_SM90_EXPECTED_PLANS;
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  std::istringstream ms(line);
  std::string tag;
  ms >> tag;
  ASSERT_EQ(tag, "M");
  std::vector<int64_t> m_values;
  for (int64_t m; ms >> m;) m_values.push_back(m);
  ASSERT_GT(m_values.size(), 500u);
  int64_t checked = 0, mismatches = 0, stream_k = 0, split = 0;
  int gemm_lines = 0, dual_lines = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string op, layout, codes;
    int64_t n = 0, k = 0, batch = 0;
    int ws = 0;
    ls >> op >> n >> k >> batch;
    if (op == "gemm") ls >> layout;
    ls >> ws >> codes;
    ASSERT_TRUE(op == "gemm" || op == "dual") << line.substr(0, 60);
    ASSERT_EQ(codes.size(), 2 * m_values.size()) << line.substr(0, 60);
    (op == "gemm" ? gemm_lines : dual_lines)++;
    for (size_t i = 0; i < m_values.size(); ++i) {
      const int64_t m = m_values[i];
      const char c = codes[2 * i];
      const bool want_stream_k = c >= 'A' && c <= 'Z';
      const int want_choice = want_stream_k ? c - 'A' : c - 'a';
      const int want_split = codes[2 * i + 1] - '0';
      int got_choice = 0, got_split = 0;
      bool got_stream_k = false;
      const char* name = "";
      if (op == "gemm") {
        const sm90::GemmPlan p =
            sm90::gemm_plan(m, n, k, batch, layout == "kn" ? kKxN : kNxK, ws != 0, kH200);
        got_choice = static_cast<int>(p.choice), got_split = p.split_k, got_stream_k = p.stream_k;
        name = sm90::gemm_choice_name(p.choice);
      } else {
        const sm90::DualGemmPlan p = sm90::dual_gemm_plan(m, n, k, batch, ws != 0, kH200);
        got_choice = static_cast<int>(p.choice), got_split = p.split_k, got_stream_k = p.stream_k;
        name = sm90::dual_gemm_choice_name(p.choice);
      }
      ++checked;
      stream_k += want_stream_k;
      split += want_split > 1;
      if (got_choice != want_choice || got_split != want_split || got_stream_k != want_stream_k) {
        if (++mismatches <= 20)
          ADD_FAILURE() << op << " " << m << " x " << n << " x " << k << " batch " << batch << " " << layout
                        << " workspace " << ws << ": got " << name << " split " << got_split
                        << (got_stream_k ? " stream-K" : "") << ", expected choice #" << want_choice
                        << " split " << want_split << (want_stream_k ? " stream-K" : "");
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << checked;
  // The grid reaches every kind of plan.
  EXPECT_EQ(gemm_lines, 18 * 8);
  EXPECT_EQ(dual_lines, 6 * 4);
  EXPECT_GT(stream_k, 1000);
  EXPECT_GT(split, 10000);
}

// ---- the names
// ------------------------------------------------------------------------------------------------
TEST(Sm90Choice, NamesRoundTrip) {
  for (int i = 0; i < sm90::kGemmChoiceCount; ++i) {
    const auto c = static_cast<sm90::GemmChoice>(i);
    sm90::GemmChoice back = sm90::GemmChoice::kTile128x128;
    ASSERT_TRUE(sm90::parse_gemm_choice(sm90::gemm_choice_name(c), &back)) << i;
    EXPECT_EQ(back, c);
  }
  for (int i = 0; i < sm90::kDualGemmChoiceCount; ++i) {
    const auto c = static_cast<sm90::DualGemmChoice>(i);
    sm90::DualGemmChoice back = sm90::DualGemmChoice::kTile128x64;
    ASSERT_TRUE(sm90::parse_dual_gemm_choice(sm90::dual_gemm_choice_name(c), &back)) << i;
    EXPECT_EQ(back, c);
  }
  EXPECT_STREQ(sm90::gemm_choice_name(sm90::GemmChoice::kSwapAbTokens192), "GemmSwapAbTokens192");
  EXPECT_STREQ(sm90::dual_gemm_choice_name(sm90::DualGemmChoice::kTile128x128Cluster2),
               "DualGemmTile128x128Cluster2");
  sm90::GemmChoice g = sm90::GemmChoice::kTile128x160;
  EXPECT_FALSE(sm90::parse_gemm_choice("GemmTile128x256Cluster2", &g));  // not in the choice
  EXPECT_FALSE(sm90::parse_gemm_choice("DualGemmTile128x64", &g));
  EXPECT_EQ(g, sm90::GemmChoice::kTile128x160) << "a failed parse leaves the output alone";
  sm90::DualGemmChoice d = sm90::DualGemmChoice::kPingPong64x96;
  EXPECT_FALSE(sm90::parse_dual_gemm_choice("GemmTile128x128", &d));
  EXPECT_EQ(d, sm90::DualGemmChoice::kPingPong64x96);
}

// ---- the SM count
// ------------------------------------------------------------------------------------------- The bounds
// fitted on 132 SMs are expressions of the SM count that give the H200's values on an H200.
TEST(Sm90Choice, BoundsFollowTheSmCount) {
  EXPECT_EQ(sm90::resident_tiles(kH200), 132);
  EXPECT_EQ(sm90::cluster_pair_min_tiles(kH200), 132);
  EXPECT_EQ(sm90::gemm_swap_ab_max_narrow_n(kH200), 66 * 128);
  EXPECT_EQ(sm90::gemm_swap_ab_tokens192_min_tiles(kH200), 9);
  EXPECT_EQ(sm90::gemm_swap_ab_tokens192_max_tiles(kH200), 28);
  sm90::DeviceFacts h100_pcie;  // 114 SMs
  h100_pcie.sm_count = 114;
  EXPECT_EQ(sm90::resident_tiles(h100_pcie), 114);
  EXPECT_EQ(sm90::cluster_pair_min_tiles(h100_pcie), 114);
  EXPECT_EQ(sm90::gemm_swap_ab_max_narrow_n(h100_pcie), 57 * 128);
  EXPECT_EQ(sm90::gemm_swap_ab_tokens192_min_tiles(h100_pcie), 8);
  EXPECT_EQ(sm90::gemm_swap_ab_tokens192_max_tiles(h100_pcie), 24);
  // At M = 128 the narrow band ends at half the SMs' 128-column tiles: N = 8000 is swap AB on 132 SMs
  // (below 8448) and tiled on 114 (at least 7296).
  EXPECT_EQ(sm90::gemm_choice(128, 8000, 1, kNxK, kH200), sm90::GemmChoice::kSwapAbTokens128);
  EXPECT_FALSE(sm90::is_swap_ab_choice(sm90::gemm_choice(128, 8000, 1, kNxK, h100_pcie)));
  // Waves count SMs: 128 x 128 tiles of 4096 x 4096 (1024) are 8 waves on 132 SMs, 9 on 114.
  EXPECT_EQ(sm90::wave_cost(4096, 4096, 1, 128, 100, kH200), 8 * 128 * 100);
  EXPECT_EQ(sm90::wave_cost(4096, 4096, 1, 128, 100, h100_pcie), 9 * 128 * 100);
  // The ping-pong threshold too: 2560 x 3072 is 20 x 24 = 480 tiles of 128 x 128, more than 3 waves of 132
  // (PingPongThreshold below) but not of 200.
  sm90::DeviceFacts big;
  big.sm_count = 200;
  EXPECT_EQ(sm90::gemm_tiled_choice(2560, 3072, 1, kNxK, kH200), sm90::GemmChoice::kPingPong128x128);
  EXPECT_NE(sm90::gemm_tiled_choice(2560, 3072, 1, kNxK, big), sm90::GemmChoice::kPingPong128x128);
}

// ---- the candidates
// ------------------------------------------------------------------------------------------- Every plan the
// rules take is a candidate; candidates are distinct, run (gemm_plan_runs), split no more than the K blocks,
// and take stream-K only with a workspace.
TEST(Sm90Choice, CandidatesHoldTheRulesPlan) {
  for (int64_t m : {1, 16, 17, 64, 100, 128, 150, 176, 192, 256, 1000, 4096, 16384})
    for (int64_t n : {72, 1024, 3584, 5120, 8448, 28672, 57344})
      for (int64_t k : {64, 128, 192, 4096, 27648})
        for (int64_t batch : {1, 3})
          for (bool ws : {false, true}) {
            SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) +
                         " batch " + std::to_string(batch) + (ws ? " workspace" : ""));
            const int64_t k_blocks = (k + 63) / 64;
            for (BLayout layout : {kKxN, kNxK}) {
              sm90::GemmPlan plans[sm90::kMaxGemmCandidatePlans];
              const int count = sm90::gemm_candidate_plans(m, n, k, batch, ws, kH200, plans);
              ASSERT_GT(count, 0);
              ASSERT_LE(count, sm90::kMaxGemmCandidatePlans);
              const sm90::GemmPlan rules = sm90::gemm_plan(m, n, k, batch, layout, ws, kH200);
              int found = 0;
              for (int i = 0; i < count; ++i) {
                found += plans[i] == rules;
                EXPECT_LE(plans[i].split_k, k_blocks);
                EXPECT_TRUE(ws || !plans[i].stream_k);
                EXPECT_TRUE(sm90::gemm_plan_runs(plans[i], m, n, k, batch, ws, kH200));
                for (int j = 0; j < i; ++j) EXPECT_FALSE(plans[i] == plans[j]) << i << " " << j;
              }
              EXPECT_EQ(found, 1) << sm90::gemm_choice_name(rules.choice) << " split " << rules.split_k;
            }
            sm90::DualGemmPlan dual[sm90::kMaxDualGemmCandidatePlans];
            const int count = sm90::dual_gemm_candidate_plans(m, n, k, batch, ws, kH200, dual);
            ASSERT_GT(count, 0);
            const sm90::DualGemmPlan rules = sm90::dual_gemm_plan(m, n, k, batch, ws, kH200);
            int found = 0;
            for (int i = 0; i < count; ++i) {
              found += dual[i] == rules;
              EXPECT_LE(dual[i].split_k, k_blocks);
              EXPECT_TRUE(ws || !dual[i].stream_k);
              for (int j = 0; j < i; ++j) EXPECT_FALSE(dual[i] == dual[j]) << i << " " << j;
            }
            EXPECT_EQ(found, 1) << sm90::dual_gemm_choice_name(rules.choice) << " split " << rules.split_k;
          }
}

// What the candidates are for one shape: 256 x 4096 x 4096 with a workspace on an H200 (64 K blocks): the
// four one-CTA tiles and the six swap-AB choices at 1, 2, 4, 8; the two ping-pong ones at 1; stream-K for
// GemmStreamK128x256 and the five swap-AB choices that have it.
TEST(Sm90Choice, CandidatesOfOneShape) {
  sm90::GemmPlan plans[sm90::kMaxGemmCandidatePlans];
  EXPECT_EQ(sm90::gemm_candidate_plans(256, 4096, 4096, 1, true, kH200, plans), 4 * 4 + 2 + 1 + 6 * 4 + 5);
  EXPECT_EQ(sm90::gemm_candidate_plans(256, 4096, 4096, 1, false, kH200, plans), 4 * 4 + 2 + 6 * 4);
  EXPECT_TRUE((plans[0] == sm90::GemmPlan{sm90::GemmChoice::kTile128x128, 1, false}));
  EXPECT_TRUE((plans[1] == sm90::GemmPlan{sm90::GemmChoice::kTile128x128, 2, false}));
  // 2 K blocks: splits up to 2; a device without clusters: no split at all.
  EXPECT_EQ(sm90::gemm_candidate_plans(256, 4096, 128, 1, false, kH200, plans), 4 * 2 + 2 + 6 * 2);
  sm90::DeviceFacts no_clusters = kH200;
  no_clusters.resident_clusters[1] = no_clusters.resident_clusters[2] = no_clusters.resident_clusters[3] = 0;
  EXPECT_EQ(sm90::gemm_candidate_plans(256, 4096, 4096, 1, false, no_clusters, plans), 4 + 2 + 6);
  // The dual GEMM: five tiled choices whole, four swap-AB ones at 1, 2, 4, 8, three with stream-K.
  sm90::DualGemmPlan dual[sm90::kMaxDualGemmCandidatePlans];
  EXPECT_EQ(sm90::dual_gemm_candidate_plans(256, 4096, 4096, 1, true, kH200, dual), 5 + 4 * 4 + 3);
  EXPECT_EQ(sm90::dual_gemm_candidate_plans(256, 4096, 4096, 1, false, no_clusters, dual), 4 + 4);
  // What cannot run: a split of a ping-pong or stream-K Config, stream-K without a workspace or on a choice
  // without it, a split above the K blocks, an unknown choice.
  EXPECT_FALSE(
      sm90::gemm_plan_runs({sm90::GemmChoice::kPingPong128x128, 2, false}, 256, 4096, 4096, 1, true, kH200));
  EXPECT_FALSE(
      sm90::gemm_plan_runs({sm90::GemmChoice::kStreamK128x256, 1, false}, 256, 4096, 4096, 1, true, kH200));
  EXPECT_FALSE(
      sm90::gemm_plan_runs({sm90::GemmChoice::kSwapAbTokens16, 1, true}, 1, 4096, 4096, 1, false, kH200));
  EXPECT_FALSE(
      sm90::gemm_plan_runs({sm90::GemmChoice::kSwapAbTokens128, 1, true}, 100, 4096, 4096, 1, true, kH200));
  EXPECT_FALSE(
      sm90::gemm_plan_runs({sm90::GemmChoice::kTile128x256, 8, false}, 256, 4096, 448, 1, false, kH200));
  EXPECT_TRUE(
      sm90::gemm_plan_runs({sm90::GemmChoice::kTile128x256, 8, false}, 256, 4096, 512, 1, false, kH200));
  EXPECT_FALSE(
      sm90::gemm_plan_runs({sm90::GemmChoice::kTile128x256, 3, false}, 256, 4096, 512, 1, false, kH200));
  EXPECT_FALSE(
      sm90::gemm_plan_runs({static_cast<sm90::GemmChoice>(13), 1, false}, 256, 4096, 512, 1, false, kH200));
  EXPECT_FALSE(sm90::dual_gemm_plan_runs({sm90::DualGemmChoice::kTile128x64, 2, false}, 256, 4096, 4096, 1,
                                         false, kH200));
  EXPECT_FALSE(sm90::dual_gemm_plan_runs({sm90::DualGemmChoice::kTile128x128Cluster2, 1, false}, 256, 4096,
                                         4096, 1, false, no_clusters));
}

// ---- the tuning tables (sm90/tuning.hpp)
// ---------------------------------------------------------------------
namespace tuning = bwgemm::tuning;

tuning::DeviceDescription h200_description() {
  tuning::DeviceDescription d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.cc_major = 9, d.cc_minor = 0;
  d.cuda_runtime = 13000, d.cuda_driver = 13000;
  return d;
}

// A call's arguments as the entry points have them (the fields the key reads).
struct CallShape {
  int64_t m, n, k, batch;
  BLayout b_layout;
};

TEST(Sm90ChoiceTuning, KeyFromTheArguments) {
  const tuning::Key g = sm90::gemm_call_key<__nv_bfloat16, float>(CallShape{17, 4096, 14336, 3, kKxN});
  EXPECT_EQ(g.op, tuning::Operation::kGemm);
  EXPECT_EQ(g.in, tuning::Element::kBf16);
  EXPECT_EQ(g.out, tuning::Element::kFp32);
  EXPECT_EQ(g.b_layout, kKxN);
  EXPECT_EQ(g.m, 17);
  EXPECT_EQ(g.n, 4096);
  EXPECT_EQ(g.k, 14336);
  EXPECT_EQ(g.batch, 3);
  const tuning::Key d = sm90::dual_gemm_call_key<__half, __half>(CallShape{512, 14336, 4096, 1, kKxN});
  EXPECT_EQ(d.op, tuning::Operation::kDualGemm);
  EXPECT_EQ(d.in, tuning::Element::kFp16);
  EXPECT_EQ(d.out, tuning::Element::kFp16);
  EXPECT_EQ(d.b_layout, kNxK) << "the dual GEMM's weights are N x K whatever the arguments say";
  EXPECT_EQ(d.m, 512);
  // The candidate lists: the choices' names in enum order, registered for compute capability 9.0.
  tuning::Registry registry;
  sm90::register_tuning_candidates(registry);
  tuning::Candidates c;
  ASSERT_TRUE(registry.candidates_for(9, 0, &c));
  EXPECT_FALSE(registry.candidates_for(10, 0, &c));
  ASSERT_TRUE(registry.candidates_for(9, 0, &c));
  EXPECT_EQ(c[tuning::Operation::kGemm].count, sm90::kGemmChoiceCount);
  EXPECT_EQ(c.find(tuning::Operation::kGemm, "GemmTile128x160"),
            static_cast<int>(sm90::GemmChoice::kTile128x160));
  EXPECT_EQ(c.find(tuning::Operation::kDualGemm, "DualGemmPingPong64x96"),
            static_cast<int>(sm90::DualGemmChoice::kPingPong64x96));
  EXPECT_EQ(c[tuning::Operation::kNvfp4Gemm].count, 0);
}

// A table for an H200 with the given entries, installed in `registry`.
void install(tuning::Registry& registry, std::vector<tuning::BuiltinEntry> entries) {
  static std::vector<std::vector<tuning::BuiltinEntry>> keep;  // the table keeps pointers to the names only
  keep.push_back(std::move(entries));
  const tuning::BuiltinTable t{"test", "NVIDIA H200", 9, 0, 132, keep.back().data(), keep.back().size()};
  std::shared_ptr<const tuning::TuningTable> table;
  ASSERT_TRUE(tuning::build_builtin_table(t, sm90::tuning_candidates(), &table).ok());
  registry.install(table);
}

constexpr auto kGemmOp = tuning::Operation::kGemm;
constexpr auto kBf16 = tuning::Element::kBf16;

// Asks choose_gemm_plan for a bf16 call with B N x K (stream-K launches take 1000 bytes), and returns the
// plan; *rules_called: whether the rules were asked.
sm90::GemmPlan choose(tuning::Registry& registry, int64_t m, int64_t n, int64_t k, int64_t workspace_bytes,
                      bool* rules_called = nullptr, const sm90::DeviceFacts& d = kH200) {
  const tuning::Key key = sm90::gemm_tuning_key(kBf16, kBf16, kNxK, m, n, k, 1);
  bool called = false;
  const sm90::GemmPlan p = sm90::choose_gemm_plan(
      key, h200_description(), d, workspace_bytes,
      [&] {
        called = true;
        return sm90::gemm_plan(m, n, k, 1, kNxK, workspace_bytes >= 1000, d);
      },
      [](const sm90::GemmPlan&) { return int64_t{1000}; }, registry);
  if (rules_called != nullptr) *rules_called = called;
  return p;
}

TEST(Sm90ChoiceTuning, TableEntryIsRun) {
  tuning::Registry registry;
  sm90::register_tuning_candidates(registry);
  install(registry,
          {{kGemmOp, kBf16, kBf16, kNxK, 4096, 4096, 1, 256, "GemmTile128x128", 4},
           {kGemmOp, kBf16, kBf16, kNxK, 4096, 4096, 1, 16, "GemmSwapAbTokens32"},
           {kGemmOp, kBf16, kBf16, kNxK, 8192, 4096, 1, 16, "GemmSwapAbTokens16", 0, tuning::StreamK::kOn},
           {kGemmOp, kBf16, kBf16, kNxK, 4096, 8192, 1, 1024, "GemmStreamK128x256"}});
  bool rules = true;
  // The entry as given: 128 x 128 tiles split 4 for M in (224, 256].
  EXPECT_TRUE((choose(registry, 256, 4096, 4096, 0, &rules) ==
               sm90::GemmPlan{sm90::GemmChoice::kTile128x128, 4, false}));
  EXPECT_FALSE(rules);
  EXPECT_TRUE(
      (choose(registry, 225, 4096, 4096, 0) == sm90::GemmPlan{sm90::GemmChoice::kTile128x128, 4, false}));
  // Another bucket, N or K: the rules.
  EXPECT_TRUE((choose(registry, 257, 4096, 4096, 0, &rules) ==
               sm90::gemm_plan(257, 4096, 4096, 1, kNxK, false, kH200)));
  EXPECT_TRUE(rules);
  // split_k 0: the rules' split for that choice (64 tiles of 64 rows x 16 tokens, 64 K blocks:
  // choose_split_k).
  const sm90::GemmPlan t32 = choose(registry, 16, 4096, 4096, 0);
  EXPECT_EQ(t32.choice, sm90::GemmChoice::kSwapAbTokens32);
  EXPECT_EQ(t32.split_k, sm90::choose_split_k(64, 64, kH200.resident_clusters));
  EXPECT_FALSE(t32.stream_k);
  // stream-K asked for and a workspace that holds it: stream-K.
  EXPECT_TRUE(
      (choose(registry, 16, 8192, 4096, 1000) == sm90::GemmPlan{sm90::GemmChoice::kSwapAbTokens16, 1, true}));
  // GemmStreamK128x256 (stream-K unspecified: its Config's only launch) with a workspace.
  EXPECT_TRUE((choose(registry, 1000, 4096, 8192, 5000) ==
               sm90::GemmPlan{sm90::GemmChoice::kStreamK128x256, 1, true}));
}

// An entry whose plan cannot run the call falls to the rules, and says why with the diagnostic switch on.
TEST(Sm90ChoiceTuning, EntryThatCannotRunFallsToTheRules) {
  tuning::Registry registry;
  sm90::register_tuning_candidates(registry);
  install(
      registry,
      {// split 8 over 4 K blocks (K = 256)
       {kGemmOp, kBf16, kBf16, kNxK, 4096, 256, 1, 256, "GemmTile128x256", 8},
       // a split of the ping-pong kernel
       {kGemmOp, kBf16, kBf16, kNxK, 4096, 4096, 1, 4096, "GemmPingPong128x128", 2},
       // stream-K asked for: none on this choice, or no workspace for it
       {kGemmOp, kBf16, kBf16, kNxK, 4096, 4096, 1, 128, "GemmSwapAbTokens128", 0, tuning::StreamK::kOn},
       {kGemmOp, kBf16, kBf16, kNxK, 8192, 4096, 1, 16, "GemmSwapAbTokens16", 0, tuning::StreamK::kOn},
       // GemmStreamK128x256 without stream-K
       {kGemmOp, kBf16, kBf16, kNxK, 4096, 8192, 1, 1024, "GemmStreamK128x256", 1, tuning::StreamK::kOff}});
  const struct {
    int64_t m, n, k, workspace;
  } cases[] = {{256, 4096, 256, 0}, {4096, 4096, 4096, 0}, {128, 4096, 4096, 1000},
               {16, 8192, 4096, 0}, {16, 8192, 4096, 999}, {1000, 4096, 8192, 5000}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + " x " + std::to_string(c.n) + " x " + std::to_string(c.k));
    bool rules = false;
    EXPECT_TRUE((choose(registry, c.m, c.n, c.k, c.workspace, &rules) ==
                 sm90::gemm_plan(c.m, c.n, c.k, 1, kNxK, c.workspace >= 1000, kH200)));
    EXPECT_TRUE(rules);
  }
  // A device without clusters of 8: the split of 8 the entry names cannot run there.
  install(registry, {{kGemmOp, kBf16, kBf16, kNxK, 4096, 4096, 1, 256, "GemmTile128x256", 8}});
  sm90::DeviceFacts no_eights = kH200;
  no_eights.resident_clusters[3] = 0;
  bool rules = false;
  EXPECT_TRUE((choose(registry, 256, 4096, 4096, 0, &rules, no_eights) ==
               sm90::gemm_plan(256, 4096, 4096, 1, kNxK, false, no_eights)));
  EXPECT_TRUE(rules);
  EXPECT_TRUE((choose(registry, 256, 4096, 4096, 0, &rules) ==
               sm90::GemmPlan{sm90::GemmChoice::kTile128x256, 8, false}));
  EXPECT_FALSE(rules);
}

// What BWGEMM_DIAGNOSTICS=1 prints: the source that chose (the registry's line), and for a refused entry why.
TEST(Sm90ChoiceTuning, DiagnosticsNameTheSource) {
  tuning::Registry registry;
  sm90::register_tuning_candidates(registry);
  install(registry, {{kGemmOp, kBf16, kBf16, kNxK, 4096, 4096, 1, 256, "GemmTile128x128", 4},
                     {kGemmOp, kBf16, kBf16, kNxK, 4096, 256, 1, 256, "GemmTile128x256", 8}});
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  choose(registry, 256, 4096, 4096, 0);
  choose(registry, 16, 4096, 4096, 0);
  choose(registry, 256, 4096, 256, 0);
  const std::string out = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  EXPECT_NE(
      out.find("bwgemm: bwgemm::tuning gemm bf16->bf16 B nk M=256 N=4096 K=4096 batch=1 -> GemmTile128x128, "
               "split_k = 4 (built-in table 'test', M bucket <= 256)"),
      std::string::npos)
      << out;
  const sm90::GemmPlan rules16 = sm90::gemm_plan(16, 4096, 4096, 1, kNxK, false, kH200);
  EXPECT_NE(
      out.find("M=16 N=4096 K=4096 batch=1 -> " + std::string(sm90::gemm_choice_name(rules16.choice)) +
               ", split_k = " + std::to_string(rules16.split_k) + ", no stream-K (rules, M bucket <= 16)"),
      std::string::npos)
      << out;
  EXPECT_NE(
      out.find("bwgemm: tuning: built-in table 'test' names GemmTile128x256, split_k = 8 for gemm M=256 "
               "N=4096 K=256 batch=1: its Config cannot run that plan for this shape and device; the rules' "
               "plan instead"),
      std::string::npos)
      << out;
  // Off: nothing.
  ::testing::internal::CaptureStderr();
  choose(registry, 256, 4096, 256, 0);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// The dual GEMM: an entry is run, one that cannot run falls to the rules.
TEST(Sm90ChoiceTuning, DualGemmEntries) {
  tuning::Registry registry;
  sm90::register_tuning_candidates(registry);
  const auto op = tuning::Operation::kDualGemm;
  install(registry, {{op, kBf16, kBf16, kNxK, 14336, 4096, 1, 512, "DualGemmTile128x128Cluster2"},
                     {op, kBf16, kBf16, kNxK, 14336, 4096, 1, 16, "DualGemmSwapAbTokens64", 4},
                     {op, kBf16, kBf16, kNxK, 14336, 4096, 1, 1024, "DualGemmPingPong64x128", 2}});
  const auto choose_dual = [&](int64_t m, bool* rules) {
    *rules = false;
    return sm90::choose_dual_gemm_plan(
        sm90::dual_gemm_tuning_key(kBf16, kBf16, m, 14336, 4096, 1), h200_description(), kH200, 0,
        [&] {
          *rules = true;
          return sm90::dual_gemm_plan(m, 14336, 4096, 1, false, kH200);
        },
        [](const sm90::DualGemmPlan&) { return int64_t{1000}; }, registry);
  };
  bool rules = false;
  EXPECT_TRUE(
      (choose_dual(512, &rules) == sm90::DualGemmPlan{sm90::DualGemmChoice::kTile128x128Cluster2, 1, false}));
  EXPECT_FALSE(rules);
  EXPECT_TRUE(
      (choose_dual(15, &rules) == sm90::DualGemmPlan{sm90::DualGemmChoice::kSwapAbTokens64, 4, false}));
  EXPECT_FALSE(rules);
  EXPECT_TRUE((choose_dual(1024, &rules) == sm90::dual_gemm_plan(1024, 14336, 4096, 1, false, kH200)));
  EXPECT_TRUE(rules);
}

// Another device's table is not consulted (a table applies to the device it names).
TEST(Sm90ChoiceTuning, OtherDevicesTablesAreSkipped) {
  tuning::Registry registry;
  sm90::register_tuning_candidates(registry);
  install(registry, {{kGemmOp, kBf16, kBf16, kNxK, 4096, 4096, 1, 256, "GemmTile128x128", 4}});
  tuning::DeviceDescription h100 = h200_description();
  h100.name = "NVIDIA H100 80GB HBM3";
  bool called = false;
  const sm90::GemmPlan p = sm90::choose_gemm_plan(
      sm90::gemm_tuning_key(kBf16, kBf16, kNxK, 256, 4096, 4096, 1), h100, kH200, 0,
      [&] {
        called = true;
        return sm90::gemm_plan(256, 4096, 4096, 1, kNxK, false, kH200);
      },
      [](const sm90::GemmPlan&) { return int64_t{0}; }, registry);
  EXPECT_TRUE(called);
  EXPECT_TRUE((p == sm90::gemm_plan(256, 4096, 4096, 1, kNxK, false, kH200)));
}

// The built-in H200 table: registered, consulted for an H200 (an entry of it chooses), skipped for another
// device; every entry names a plan the entry point runs for the bucket's shapes (stream-K with a workspace).
TEST(Sm90ChoiceTuning, BuiltinH200Table) {
  tuning::Registry registry;
  sm90::register_tuning_candidates(registry);
  ASSERT_TRUE(sm90::register_builtin_tables(registry).ok());
  for (size_t i = 0; i < tuning::kBuiltinH200EntryCount; ++i) {
    const tuning::BuiltinEntry& e = tuning::kBuiltinH200Entries[i];
    SCOPED_TRACE(std::string(e.config) + " N=" + std::to_string(e.n) + " K=" + std::to_string(e.k));
    const bool stream_k = e.stream_k == tuning::StreamK::kOn;
    if (e.op == tuning::Operation::kGemm) {
      sm90::GemmChoice c;
      ASSERT_TRUE(sm90::parse_gemm_choice(e.config, &c));
      const sm90::GemmPlan p =
          sm90::gemm_entry_plan(c, e.split_k, e.stream_k, e.m, e.n, e.k, e.batch, stream_k, kH200);
      EXPECT_TRUE(sm90::gemm_plan_runs(p, e.m, e.n, e.k, e.batch, stream_k, kH200));
    } else {
      sm90::DualGemmChoice c;
      ASSERT_TRUE(sm90::parse_dual_gemm_choice(e.config, &c));
      const sm90::DualGemmPlan p =
          sm90::dual_gemm_entry_plan(c, e.split_k, e.stream_k, e.m, e.n, e.k, e.batch, stream_k, kH200);
      EXPECT_TRUE(sm90::dual_gemm_plan_runs(p, e.m, e.n, e.k, e.batch, stream_k, kH200));
    }
  }
  // Its first GEMM entry for an H200, and the rules for another device.
  const tuning::BuiltinEntry* gemm = nullptr;
  for (size_t i = 0; i < tuning::kBuiltinH200EntryCount && gemm == nullptr; ++i)
    if (tuning::kBuiltinH200Entries[i].op == tuning::Operation::kGemm &&
        tuning::kBuiltinH200Entries[i].stream_k != tuning::StreamK::kOn)
      gemm = &tuning::kBuiltinH200Entries[i];
  ASSERT_NE(gemm, nullptr);
  const tuning::Key key =
      sm90::gemm_tuning_key(gemm->in, gemm->out, gemm->b_layout, gemm->m, gemm->n, gemm->k, gemm->batch);
  const auto rules = [&] {
    return sm90::gemm_plan(key.m, key.n, key.k, key.batch, key.b_layout, false, kH200);
  };
  const auto bytes = [](const sm90::GemmPlan&) { return int64_t{-1}; };
  sm90::GemmChoice want;
  ASSERT_TRUE(sm90::parse_gemm_choice(gemm->config, &want));
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const sm90::GemmPlan p = sm90::choose_gemm_plan(key, h200_description(), kH200, 0, rules, bytes, registry);
  const std::string out = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  EXPECT_EQ(p.choice, want);
  EXPECT_NE(out.find("(built-in table 'h200', M bucket <= " + std::to_string(gemm->m) + ")"),
            std::string::npos)
      << out;
  tuning::DeviceDescription h100 = h200_description();
  h100.name = "NVIDIA H100 80GB HBM3";
  EXPECT_TRUE((sm90::choose_gemm_plan(key, h100, kH200, 0, rules, bytes, registry) == rules()));
}

// The plan functions are constexpr: the choice of a shape is known at compile time for given facts.
static_assert(sm90::gemm_plan(16, 4096, 4096, 1, kNxK, false, kH200).choice ==
                  sm90::GemmChoice::kSwapAbTokens16,
              "");
static_assert(sm90::dual_gemm_plan(4096, 14336, 4096, 1, false, kH200).choice ==
                  sm90::DualGemmChoice::kPingPong64x128,
              "");

// The default entry point's choice (host logic: runs without a GPU). Expected kernels worked out by hand
// from the rules in sm90/choice.hpp (gemm_tiled_cost: ceil(tiles / 132) x width x 100, 100, 100 or 105 for
// the 256-, 192-, 160- and 128-column tiles; the ping-pong kernels at 95 per column of their 128 x 128 tiles
// and 94 of their 128 x 160 tiles (with B N x K, the default layout here), the cheaper of the two (ties to
// 128), only with more than 3 x 132 tiles of 128 x 128 and a strictly lower cost; ties to the wider tile).
// Tiles and costs below as 256 / 192 / 160 / 128 / ping-pong 128 (/ ping-pong 160: 160-column tiles, 15040
// per wave).
TEST(Sm90GemmChoice, ByWavesOfTiles) {
  using sm90::GemmChoice;
  // 64 / 88 / 104 / 128 tiles, one wave each: 25600 / 19200 / 16000 / 13440 -> 128 x 128 (128 tiles: no
  // ping-pong).
  EXPECT_EQ(sm90::gemm_choice(1024, 2048, 1, kNxK, kH200), GemmChoice::kTile128x128);
  // 640 / 864 / 1024 / 1280 tiles = 5 / 7 / 8 / 10 waves: 128000 / 134400 / 128000 / 134400 / 121600 /
  // 120320, 1280 > 396 tiles -> ping-pong with 128 x 160 tiles (the benchmark's 4096 x 5120); with B K x N
  // the 160-column ping-pong tile is not weighed (ping_pong_width_allowed) -> ping-pong with 128 x 128.
  EXPECT_EQ(sm90::gemm_choice(4096, 5120, 1, kNxK, kH200), GemmChoice::kPingPong128x160);
  EXPECT_EQ(sm90::gemm_choice(4096, 5120, 1, bwgemm::BLayout::kRowMajorKxN, kH200),
            GemmChoice::kPingPong128x128);
  // 2048 / 2752 / 3328 / 4096 tiles = 16 / 21 / 26 / 32 waves: 409600 / 403200 / 416000 / 430080 / 389120 /
  // 391040 -> ping-pong with 128 x 128 tiles.
  EXPECT_EQ(sm90::gemm_choice(8192, 8192, 1, kNxK, kH200), GemmChoice::kPingPong128x128);
  // 128 / 176 / 208 / 256 tiles = 1 / 2 / 2 / 2 waves: 25600 / 38400 / 32000 / 26880 / 24320, but 256 <= 396
  // tiles: no ping-pong -> 128 x 256.
  EXPECT_EQ(sm90::gemm_choice(1024, 4096, 1, kNxK, kH200), GemmChoice::kTile128x256);
  // 192 / 256 / 312 / 384 tiles = 2 / 2 / 3 / 3 waves: 51200 / 38400 / 48000 / 40320 / 36480, 384 <= 396
  // tiles -> 128 x 192.
  EXPECT_EQ(sm90::gemm_choice(1024, 6144, 1, kNxK, kH200), GemmChoice::kTile128x192);
  // 8 x 20 = 160 / 8 x 27 = 216 / 8 x 32 = 256 / 320 tiles = 2 / 2 / 2 / 3 waves: 51200 / 38400 / 32000 /
  // 40320 -> 128 x 160 (N = 5120 in 32 whole tiles).
  EXPECT_EQ(sm90::gemm_choice(1024, 5120, 1, kNxK, kH200), GemmChoice::kTile128x160);
  // 384 / 516 / 624 / 768 tiles = 3 / 4 / 5 / 6 waves: 76800 / 76800 / 80000 / 80640 / 72960 / 75200 ->
  // ping-pong (128 x 128).
  EXPECT_EQ(sm90::gemm_choice(1536, 8192, 1, kNxK, kH200), GemmChoice::kPingPong128x128);
  // 3 row tiles: 201 / 270 / 324 / 402 tiles = 2 / 3 / 3 / 4 waves: 51200 / 57600 / 48000 / 53760 / 48640 /
  // 45120: 402 > 396 tiles and the 128 x 160 ping-pong tiles cost the least -> ping-pong 160.
  EXPECT_EQ(sm90::gemm_choice(384, 17152, 1, kNxK, kH200), GemmChoice::kPingPong128x160);
  // 2 row tiles: 134 / 180 / 216 / 268 tiles = 2 / 2 / 2 / 3 waves: 51200 / 38400 / 32000 / 40320 -> 128 x
  // 160.
  EXPECT_EQ(sm90::gemm_choice(256, 17152, 1, kNxK, kH200), GemmChoice::kTile128x160);
  // 6 x 22 = 132 / 180 / 216 / 264 tiles = 1 / 2 / 2 / 2 waves: 25600 / 38400 / 32000 / 26880 -> 128 x 256
  // (264 tiles: no ping-pong).
  EXPECT_EQ(sm90::gemm_choice(768, 5632, 1, kNxK, kH200), GemmChoice::kTile128x256);
  // Batches multiply the tiles: x 4: 128 / 176 / 208 / 256 tiles (as 1024 x 4096 above) -> 128 x 256; x 9:
  // 288 / 396 / 468 / 576 tiles = 3 / 3 / 4 / 5 waves: 76800 / 57600 / 64000 / 67200 / 60800 -> 128 x 192.
  EXPECT_EQ(sm90::gemm_choice(512, 2048, 4, kNxK, kH200), GemmChoice::kTile128x256);
  EXPECT_EQ(sm90::gemm_choice(512, 2048, 9, kNxK, kH200), GemmChoice::kTile128x192);
  // x 16: 512 / 704 / 832 / 1024 tiles = 4 / 6 / 7 / 8 waves: 102400 / 115200 / 112000 / 107520 / 97280 /
  // 105280 -> ping-pong (128 x 128).
  EXPECT_EQ(sm90::gemm_choice(512, 2048, 16, kNxK, kH200), GemmChoice::kPingPong128x128);
}

// The ping-pong kernel's thresholds (more than 3 x 132 tiles of 128 x 128, at least 2 rows of them), worked
// as above. Where the 128 x 256 tile with CTA pairs would win (pair tiles >= 132, i.e. >= 528 tiles of 128 x
// 128) the ping-pong kernel costs less (at most 2 x 12160 per wave of 128 x 256 tiles against 25600), so the
// GEMM's default no longer takes GemmTile128x256Cluster2.
TEST(Sm90GemmChoice, PingPongThreshold) {
  using sm90::GemmChoice;
  // 2560 x 3072: 20 x 12 = 240 / 320 / 400 / 480 tiles = 2 / 3 / 4 / 4 waves: 51200 / 57600 / 64000 / 53760
  // / 48640 / 60160, 480 > 396 -> ping-pong (128 x 128); 2304 x 2560: 18 x 10 = 180 / 252 / 288 / 360 = 2 / 2
  // / 3 / 3 waves: 51200 / 38400 / 48000 / 40320 / 36480: ping-pong the cheapest, but 360 tiles -> 128 x 192.
  EXPECT_EQ(sm90::gemm_choice(2560, 3072, 1, kNxK, kH200), GemmChoice::kPingPong128x128);
  EXPECT_EQ(sm90::gemm_choice(2304, 2560, 1, kNxK, kH200), GemmChoice::kTile128x192);
  // 2048 x 3072: 16 x 12 = 192 / 256 / 320 / 384 tiles = 2 / 2 / 3 / 3 waves: 51200 / 38400 / 48000 / 40320
  // -> 128 x 192.
  EXPECT_EQ(sm90::gemm_choice(2048, 3072, 1, kNxK, kH200), GemmChoice::kTile128x192);
  // 2048 x 2048: 16 x 8 = 128 / 176 / 208 / 256 = 1 / 2 / 2 / 2 waves: 25600 / 38400 / 32000 / 26880 -> 128
  // x 256.
  EXPECT_EQ(sm90::gemm_choice(2048, 2048, 1, kNxK, kH200), GemmChoice::kTile128x256);
  // One row of tiles: 128 x 57344: 224 / 299 / 359 / 448 tiles = 2 / 3 / 3 / 4 waves: 51200 / 57600 / 48000
  // / 53760 / 48640, 448 > 396 tiles but 1 row tile: no ping-pong -> 128 x 160; 256 x 57344: 448 / 598 /
  // 718 / 896 tiles = 4 / 5 / 6 / 7 waves: 102400 / 96000 / 96000 / 94080 / 85120 / 90240, 2 row tiles ->
  // ping-pong (128 x 128).
  EXPECT_EQ(sm90::gemm_choice(128, 57344, 1, kNxK, kH200), GemmChoice::kTile128x160);
  EXPECT_EQ(sm90::gemm_choice(256, 57344, 1, kNxK, kH200), GemmChoice::kPingPong128x128);
}

// With B K x N (MN-major) the 128 x 160 tile needs kTile128x160MnMajorMinRowTiles (4) rows of tiles; with B
// N x K any. Worked as in ByWavesOfTiles (256 / 192 / 160 / 128 / ping-pong) and SplitModel.
TEST(Sm90GemmChoice, Medium160NeedsRowsWithBKxN) {
  using bwgemm::BLayout;
  using sm90::GemmChoice;
  EXPECT_EQ(sm90::kTile128x160MnMajorMinRowTiles, 4) << "the worked choices below assume it";
  constexpr BLayout kKxN = BLayout::kRowMajorKxN, kNxK = BLayout::kColumnMajorKxN;
  // 8 and 4 rows: allowed either way. 1024 x 5120 as in ByWavesOfTiles; 512 x 5120: 80 / 108 / 128 / 160
  // tiles = 1 / 1 / 1 / 2 waves: 25600 / 19200 / 16000 / 26880 -> 128 x 160.
  EXPECT_EQ(sm90::gemm_choice(1024, 5120, 1, kKxN, kH200), GemmChoice::kTile128x160);
  EXPECT_EQ(sm90::gemm_choice(512, 5120, 1, kKxN, kH200), GemmChoice::kTile128x160);
  EXPECT_EQ(sm90::gemm_choice(512, 5120, 1, kNxK, kH200), GemmChoice::kTile128x160);
  // 2 rows (256 x 17152: 51200 / 38400 / 32000 / 40320): without 128 x 160, 128 x 192.
  EXPECT_EQ(sm90::gemm_choice(256, 17152, 1, kNxK, kH200), GemmChoice::kTile128x160);
  EXPECT_EQ(sm90::gemm_choice(256, 17152, 1, kKxN, kH200), GemmChoice::kTile128x192);
  // 3 rows (384 x 17152: 51200 / 57600 / 48000 / 53760 / 48640 / 45120, 402 > 396 tiles): with B K x N
  // neither 160-column tile (the cooperative one needs 4 rows, the ping-pong one B N x K) -> ping-pong 128.
  EXPECT_EQ(sm90::gemm_choice(384, 17152, 1, kKxN, kH200), GemmChoice::kPingPong128x128);
  EXPECT_EQ(sm90::gemm_choice(384, 17152, 1, kNxK, kH200), GemmChoice::kPingPong128x160);
  // 1 row (128 x 57344: 51200 / 57600 / 48000 / 53760, no ping-pong): without 128 x 160, 128 x 256.
  EXPECT_EQ(sm90::gemm_choice(128, 57344, 1, kKxN, kH200), GemmChoice::kTile128x256);
  // The split plan too: 256 x 5120 x 27648 (432 K blocks), resident clusters {132, 66, 33, 16}. With B N x
  // K: 64 tiles of 128 x 160 at split 2, 128 CTAs in one wave: (216 · 105 + 2400) · 16000 = 401280000, below
  // every other (tile, split); with B K x N the best without it is 128 x 192 at split 2: 108 CTAs, one wave:
  // 25080 · 19200 = 481536000 (128 x 128 at split 8: 542304000; 128 x 192 unsplit: 829440000).
  const int64_t h200[4] = {132, 66, 33, 16};
  const sm90::GemmTiledPlan nxk = sm90::gemm_tiled_plan(256, 5120, 27648, 1, kNxK, 0, facts(h200));
  EXPECT_EQ(nxk.choice, GemmChoice::kTile128x160);
  EXPECT_EQ(nxk.split_k, 2);
  const sm90::GemmTiledPlan kxn = sm90::gemm_tiled_plan(256, 5120, 27648, 1, kKxN, 0, facts(h200));
  EXPECT_EQ(kxn.choice, GemmChoice::kTile128x192);
  EXPECT_EQ(kxn.split_k, 2);
  EXPECT_EQ(sm90::tiled_split_cost(256, 5120, 27648, 1, 160, 2, 66), 401280000);
  EXPECT_EQ(sm90::tiled_split_cost(256, 5120, 27648, 1, 192, 2, 66), 481536000);
}

// The split model of the default choice (host logic: runs without a GPU): cost = ceil(tiles · S / (resident
// clusters of S · S)) · (S > 1 ? ceil(K blocks / S) · 105 + 2400 : 100 · K blocks) · width · {100, 100, 100,
// 105}, resident clusters {132, 66, 33, 16} as on an H200. Costs below as 256 / 192 / 160 / 128 columns.
TEST(Sm90GemmChoice, SplitModel) {
  using sm90::GemmChoice;
  const int64_t h200[4] = {132, 66, 33, 16};
  EXPECT_EQ(sm90::kSplitReductionKBlocks, 24) << "the worked costs below assume the fitted constants";
  EXPECT_EQ(sm90::kSplitKBlockCostPercent, 105) << "the worked costs below assume the fitted constants";
  // M = 256, N = 4096, K = 14336 (224 K blocks): 32 / 44 / 52 / 64 tiles.
  //   S = 1: 1 wave each: 22400 · {25600, 19200, 16000, 13440} = 573440000 / 430080000 / 358400000 /
  //          301056000
  //   S = 2: 64 / 88 / 104 / 128 CTAs, 1 wave: (112 · 105 + 2400) = 14160 · ... = 362496000 / 271872000 /
  //          226560000 / 190310400
  //   S = 4: 128 / 176 / 208 / 256 CTAs of 132, 1 / 2 / 2 / 2 waves of 8280: 211968000 / 317952000 /
  //          264960000 / 222566400
  //   S = 8: 256 / 352 / 416 / 512 CTAs of 128, 2 / 3 / 4 / 4 waves of 5340: 273408000 / 307584000 /
  //          341760000 / 287078400
  //   -> 128 x 128 at split 2 (measured on the H200, 2026-12-01,
  //   docs/data/h200_2026-12-01_split_candidates.json: the best tiled pair there, 0.92x of cuBLASLt, against
  //   0.51x for 128 x 256 at split 4 and 0.69x for 128 x 128 unsplit).
  {
    const sm90::GemmTiledPlan plan = sm90::gemm_tiled_plan(256, 4096, 14336, 1, kNxK, 0, facts(h200));
    EXPECT_EQ(plan.choice, GemmChoice::kTile128x128);
    EXPECT_EQ(plan.split_k, 2);
    EXPECT_EQ(sm90::tiled_split_cost(256, 4096, 14336, 1, 256, 4, 33), 211968000);
    EXPECT_EQ(sm90::tiled_split_cost(256, 4096, 14336, 1, 128, 2, 66), 190310400);
    EXPECT_EQ(sm90::tiled_split_cost(256, 4096, 14336, 1, 256, 8, 16), 273408000);
    EXPECT_EQ(sm90::tiled_split_cost(256, 4096, 14336, 1, 128, 1, 132), 301056000);
    // For 128 x 256 tiles alone split 4 is the cheapest.
    EXPECT_EQ(sm90::choose_tiled_split_k(256, 4096, 14336, 1, 256, h200), 4);
  }
  // 8192^3: 2048 tiles of 128 x 256 fill 16 waves; a split only adds waves and reduction: split 1, the
  // unsplit choice (the ping-pong kernel, ByWavesOfTiles).
  {
    const sm90::GemmTiledPlan plan = sm90::gemm_tiled_plan(8192, 8192, 8192, 1, kNxK, 0, facts(h200));
    EXPECT_EQ(plan.split_k, 1);
    EXPECT_EQ(plan.choice, sm90::gemm_tiled_choice(8192, 8192, 1, kNxK, kH200));
    EXPECT_EQ(plan.choice, GemmChoice::kPingPong128x128);
  }
  // Without a split the plan is gemm_tiled_choice's kernel, the ping-pong kernels included: 4096 x 5120 (the
  // 128 x 160 ping-pong tiles, ByWavesOfTiles), K = 64 (one K block: no split can be taken).
  {
    const sm90::GemmTiledPlan plan = sm90::gemm_tiled_plan(4096, 5120, 64, 1, kNxK, 0, facts(h200));
    EXPECT_EQ(plan.split_k, 1);
    EXPECT_EQ(plan.choice, GemmChoice::kPingPong128x160);
  }
  // Never more splits than K blocks: K = 128 (2 blocks) caps the split at 2, K = 256 (4 blocks) at 4.
  for (int64_t k : {64, 128, 192, 256, 320, 512, 14336}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const int64_t k_blocks = (k + 63) / 64;
    for (int64_t m : {128, 256, 1024, 8192})
      for (int64_t n : {1024, 4096, 14336}) {
        const sm90::GemmTiledPlan plan = sm90::gemm_tiled_plan(m, n, k, 1, kNxK, 0, facts(h200));
        EXPECT_LE(plan.split_k, k_blocks) << m << " x " << n;
        if (plan.split_k > 1) {  // a split runs on a one-CTA kernel
          EXPECT_TRUE(plan.choice == GemmChoice::kTile128x128 || plan.choice == GemmChoice::kTile128x160 ||
                      plan.choice == GemmChoice::kTile128x192 || plan.choice == GemmChoice::kTile128x256)
              << m << " x " << n;
        }
        for (int64_t w : {128, 160, 192, 256})
          EXPECT_LE(sm90::choose_tiled_split_k(m, n, k, 1, w, h200), k_blocks);
      }
  }
  // A cluster size the device cannot place (0 resident) is never chosen: without clusters of 2, the 128 x
  // 128 split-2 plan above goes to 128 x 256 at split 4 (211968000 < 222566400 < 264960000); without clusters
  // of 2 and 4, to 128 x 256 at split 8 (273408000 < 128 x 128 unsplit 301056000); without any cluster, no
  // split.
  const int64_t no_twos[4] = {132, 0, 33, 16};
  EXPECT_EQ(sm90::gemm_tiled_plan(256, 4096, 14336, 1, kNxK, 0, facts(no_twos)).split_k, 4);
  EXPECT_EQ(sm90::gemm_tiled_plan(256, 4096, 14336, 1, kNxK, 0, facts(no_twos)).choice,
            GemmChoice::kTile128x256);
  const int64_t eights_only[4] = {132, 0, 0, 16};
  EXPECT_EQ(sm90::gemm_tiled_plan(256, 4096, 14336, 1, kNxK, 0, facts(eights_only)).split_k, 8);
  const int64_t no_clusters[4] = {132, 0, 0, 0};
  EXPECT_EQ(sm90::gemm_tiled_plan(256, 4096, 14336, 1, kNxK, 0, facts(no_clusters)).split_k, 1);
  // The plan is constexpr (the host-side choice, no device).
  static_assert(sm90::gemm_tiled_plan(256, 4096, 14336, 1, kNxK, 0, sm90::DeviceFacts{132, {132, 66, 33, 16}})
                        .split_k == 2,
                "");
}

// The plan with a workspace (host logic): stream_k_cost = (whole waves of 128 x 256 tiles x K blocks +
// one split range + kStreamKHandOffKBlocks (4) + (splits - 1) x kStreamKPartialKBlocks (2)) x 100 x 256 x
// 100 against the plan without it (tiled_split_cost; the ping-pong kernel's wave cost), with the H200's 132
// CTAs and resident clusters {132, 66, 33, 16}; without a workspace (stream_k_ctas 0) never stream-K. Costs
// below in units of 100 x 256 x 100.
TEST(Sm90GemmChoice, StreamK) {
  using sm90::GemmChoice;
  const int64_t resident[4] = {132, 66, 33, 16};
  const auto plan = [&](int64_t m, int64_t n, int64_t k, int64_t ctas) {
    return sm90::gemm_tiled_plan(m, n, k, 1, kNxK, ctas, facts(resident)).choice;
  };
  // 896 x 5952 x 4096: 7 x 24 = 168 tiles of 64 K blocks: one whole wave (64), then 36 tiles split 3 ways
  // (132 / 36) over 108 CTAs: 22 + 4 + 2 x 2 -> 94, against 128 x 192: 7 x 31 = 217 tiles, 2 waves x 64 x
  // 192 / 256 = 96 (128 x 160: 7 x 38 = 266 tiles, 3 waves x 64 x 160 / 256 = 120).
  EXPECT_EQ(plan(896, 5952, 4096, 132), GemmChoice::kStreamK128x256);
  EXPECT_EQ(plan(896, 5952, 4096, 0), GemmChoice::kTile128x192);
  // 1024 x 5120 x 5120: 8 x 20 = 160 tiles of 80 K blocks: one whole wave (80), then 28 tiles split 4 ways
  // (132 / 28) over 112 CTAs: 20 + 4 + 3 x 2 -> 110, against 128 x 160: 8 x 32 = 256 tiles, 2 waves x 80 x
  // 160 / 256 = 100.
  EXPECT_EQ(plan(1024, 5120, 5120, 132), GemmChoice::kTile128x160);
  EXPECT_EQ(plan(1024, 5120, 5120, 0), GemmChoice::kTile128x160);
  // No whole wave, never stream-K (its split alone lost to the cluster split, docs/hopper.md): 640 x 1280 x
  // 3072 is 25 tiles that would split 5 ways (10 + 4 + 4 x 2 = 22 against 128 x 128's 25.2).
  EXPECT_EQ(plan(640, 1280, 3072, 132), GemmChoice::kTile128x128);
  EXPECT_EQ(sm90::stream_k_cost(640, 1280, 3072, 1, 132), INT64_MAX);
  // 4096 x 8192 x 8192: 1024 tiles: 7 whole waves, then 100 tiles that cannot split 2 ways (132 / 100):
  // 8 waves x 128 = 1024, against ping-pong: 2048 tiles of 128 x 128 = 16 waves x 128 x 95 x 128 / 256 =
  // 972.8.
  EXPECT_EQ(plan(4096, 8192, 8192, 132), GemmChoice::kPingPong128x128);
  // 4096 x 4096 x 64: one K block per tile, no split (the floor): the plan without a workspace.
  EXPECT_EQ(plan(4096, 4096, 64, 132), plan(4096, 4096, 64, 0));
  EXPECT_NE(plan(4096, 4096, 64, 132), GemmChoice::kStreamK128x256);
}

// Stream-K against the cluster split (host logic), worked out by hand on the H200's resident clusters
// {132, 66, 32, 16}: stream-K costs (ceil(tiles · K blocks / 132) + 20) · 100, the split choose_split_k's
// cost, and stream-K needs more than one wave of tiles.
TEST(Sm90SwapAbChoice, StreamKOnlyWhereTheLastWaveIsShort) {
  const int64_t h200[4] = {132, 66, 32, 16};
  // 160 tiles (N = 10240), 128 K blocks: split 2 (3 waves · 64 · 115 = 22080); stream-K 176 · 100.
  EXPECT_TRUE(sm90::swap_ab_stream_k_pays(160, 128, h200));
  // 296 tiles (N = 18944), 56 blocks: split 2 (5 · 28 · 115 = 16100; split 1: 3 · 56 · 100 = 16800);
  // stream-K (126 + 20) · 100 = 14600.
  EXPECT_TRUE(sm90::swap_ab_stream_k_pays(296, 56, h200));
  // 448 tiles (N = 28672), 64 blocks: split 1 (4 · 64 · 100 = 25600); stream-K (218 + 20) · 100.
  EXPECT_TRUE(sm90::swap_ab_stream_k_pays(448, 64, h200));
  // 896 tiles (N = 57344), 128 blocks: split 1 (7 · 128 · 100 = 89600); stream-K (869 + 20) · 100 = 88900.
  EXPECT_TRUE(sm90::swap_ab_stream_k_pays(896, 128, h200));
  // 224 tiles (N = 14336), 56 blocks: split 1 (2 · 56 · 100 = 11200); stream-K (96 + 20) · 100 = 11600.
  EXPECT_FALSE(sm90::swap_ab_stream_k_pays(224, 56, h200));
  // 512 tiles (N = 32768), 80 blocks: split 1 (4 · 80 · 100 = 32000); stream-K (311 + 20) · 100 = 33100.
  EXPECT_FALSE(sm90::swap_ab_stream_k_pays(512, 80, h200));
  // 133 tiles, 64 blocks: split 2 (3 · 32 · 115 = 11040); stream-K (65 + 20) · 100 = 8500.
  EXPECT_TRUE(sm90::swap_ab_stream_k_pays(133, 64, h200));
  // One wave or less never, whatever the costs: 132 tiles of 128 blocks, 128 of 448, 80 of 80.
  EXPECT_FALSE(sm90::swap_ab_stream_k_pays(132, 128, h200));
  EXPECT_FALSE(sm90::swap_ab_stream_k_pays(128, 448, h200));
  EXPECT_FALSE(sm90::swap_ab_stream_k_pays(80, 80, h200));
  // A device that cannot say (no resident CTA): never.
  const int64_t none[4] = {0, 0, 0, 0};
  EXPECT_FALSE(sm90::swap_ab_stream_k_pays(448, 64, none));
}

// The split choice (host logic), worked out by hand: cost = waves · ceil(K blocks / s) · {100, 115, 150,
// 200}[s].
TEST(Sm90SwapAbChoice, SplitMinimisesWavesTimesBlocks) {
  const int64_t h200[4] = {132, 66, 32, 16};  // resident clusters of 1, 2, 4, 8 CTAs
  // 64 tiles (N = 4096 in 64-row tiles), 64 K blocks: s=1: 6400; s=2: 32·115 = 3680; s=4: 2·16·150 = 4800;
  // s=8: 4·8·200 = 6400 -> 2.
  EXPECT_EQ(sm90::choose_split_k(64, 64, h200), 2);
  // 8 tiles, 64 blocks: s=2: 3680; s=4: 2400; s=8: 8·200 = 1600 -> 8.
  EXPECT_EQ(sm90::choose_split_k(8, 64, h200), 8);
  // 80 tiles (N = 5120), 80 blocks: s=1: 8000; s=2: 2·40·115 = 9200; s=4: 3·20·150 = 9000 -> 1.
  EXPECT_EQ(sm90::choose_split_k(80, 80, h200), 1);
  // 448 tiles (N = 28672), 64 blocks: s=1: 4·64·100 = 25600; s=2: 7·32·115 = 25760 -> 1.
  EXPECT_EQ(sm90::choose_split_k(448, 64, h200), 1);
  // 2 K blocks: no split above 2; s=2: 1·1·115 < s=1: 1·2·100 -> 2.
  EXPECT_EQ(sm90::choose_split_k(8, 2, h200), 2);
  // 1 K block: no split at all.
  EXPECT_EQ(sm90::choose_split_k(8, 1, h200), 1);
  // A cluster size the device cannot place (0 resident) is never chosen.
  const int64_t no_eights[4] = {132, 66, 32, 0};
  EXPECT_EQ(sm90::choose_split_k(8, 64, no_eights), 4);
}

// The heavy split costs {100, 145, 195, 260} of Configs with more than 128 accumulator words per consumer
// thread (host logic, worked out by hand on {132, 66, 32, 16}): only the 160-token dual pairs take them.
TEST(Sm90SwapAbChoice, HeavyPartialsSplitLess) {
  using sm90::kHeavySplitCostPercent;
  // (sm90/catalogue.cuh checks these against the Configs' accumulator words at compile time.)
  EXPECT_TRUE(sm90::dual_gemm_swap_ab_shape(sm90::DualGemmChoice::kSwapAbTokens160).heavy_split);
  EXPECT_FALSE(sm90::dual_gemm_swap_ab_shape(sm90::DualGemmChoice::kSwapAbTokens128).heavy_split);
  EXPECT_FALSE(sm90::gemm_swap_ab_shape(sm90::GemmChoice::kSwapAbTokens160).heavy_split);
  const int64_t h200[4] = {132, 66, 32, 16};
  // 192 tiles (N = 12288), 64 K blocks: light s=2 3 · 32 · 115 = 11040 < s=1 2 · 64 · 100 = 12800, so no
  // stream-K ((94 + 20) · 100 = 11400); heavy s=2 3 · 32 · 145 = 13920 -> 1, and stream-K below it.
  EXPECT_EQ(sm90::choose_split_k(192, 64, h200), 2);
  EXPECT_FALSE(sm90::swap_ab_stream_k_pays(192, 64, h200));
  EXPECT_EQ(sm90::choose_split_k(192, 64, h200, kHeavySplitCostPercent), 1);
  EXPECT_TRUE(sm90::swap_ab_stream_k_pays(192, 64, h200, kHeavySplitCostPercent));
  // 140 tiles (N = 8960), 24 blocks: heavy s=1 2 · 24 · 100 = 4800, s=2 3 · 12 · 145 = 5220, s=4 5 · 6 · 195
  // = 5850 -> 1; stream-K (26 + 20) · 100 = 4600 pays.
  EXPECT_EQ(sm90::choose_split_k(140, 24, h200, kHeavySplitCostPercent), 1);
  EXPECT_TRUE(sm90::swap_ab_stream_k_pays(140, 24, h200, kHeavySplitCostPercent));
  // 8 tiles, 64 blocks: s=2 1 · 32 · 145 = 4640, s=4 1 · 16 · 195 = 3120, s=8 1 · 8 · 260 = 2080 -> 8.
  EXPECT_EQ(sm90::choose_split_k(8, 64, h200, kHeavySplitCostPercent), 8);
  // 32 tiles (N = 2048), 32 blocks: s=1 3200, s=2 16 · 145 = 2320, s=4 8 · 195 = 1560, s=8 2 waves · 4 · 260
  // = 2080 -> 4; 5 blocks (8 CTAs would exceed them): s=1 500, s=2 3 · 145 = 435, s=4 2 · 195 = 390 -> 4.
  EXPECT_EQ(sm90::choose_split_k(32, 32, h200, kHeavySplitCostPercent), 4);
  EXPECT_EQ(sm90::choose_split_k(32, 5, h200, kHeavySplitCostPercent), 4);
}

// The entry points' choice by M (host logic): swap AB up to the measured crossover, the tiled kernels above.
TEST(Sm90SwapAbChoice, DefaultEntryPointsByM) {
  using sm90::DualGemmChoice;
  using sm90::GemmChoice;
  EXPECT_EQ(sm90::gemm_choice(1, 4096, 1, kNxK, kH200), GemmChoice::kSwapAbTokens16);
  EXPECT_EQ(sm90::gemm_choice(16, 57344, 1, kNxK, kH200), GemmChoice::kSwapAbTokens16);
  EXPECT_EQ(sm90::gemm_choice(17, 4096, 1, kNxK, kH200), GemmChoice::kSwapAbTokens32);
  EXPECT_EQ(sm90::gemm_choice(32, 57344, 1, kNxK, kH200), GemmChoice::kSwapAbTokens32);
  EXPECT_EQ(sm90::gemm_choice(33, 4096, 1, kNxK, kH200), GemmChoice::kSwapAbTokens64);
  EXPECT_EQ(sm90::gemm_choice(64, 57344, 1, kNxK, kH200), GemmChoice::kSwapAbTokens64);
  // 64 < M <= 128: swap AB only while the tiled kernel's 128 x 128 tiles would fill under half the SMs.
  EXPECT_EQ(sm90::gemm_choice(65, 4096, 1, kNxK, kH200), GemmChoice::kSwapAbTokens128);
  EXPECT_EQ(sm90::gemm_choice(128, 8447, 1, kNxK, kH200), GemmChoice::kSwapAbTokens128);
  // The tiled kernels past it (Sm90GemmChoice has the rule): 33 / 44 / 66 tiles of 256 / 192 / 128 columns,
  // one wave each -> 128 x 128; 112 / 150 / 224 tiles = 1 / 2 / 2 waves -> 128 x 256 (one row tile: no pair).
  EXPECT_EQ(sm90::gemm_choice(128, 8448, 1, kNxK, kH200), GemmChoice::kTile128x128);
  EXPECT_EQ(sm90::gemm_choice(100, 28672, 1, kNxK, kH200), GemmChoice::kTile128x256);
  // 128 < M <= 160: one 160-token tile whatever N; the tiled kernels again from 161.
  EXPECT_EQ(sm90::gemm_choice(129, 4096, 1, kNxK, kH200), GemmChoice::kSwapAbTokens160);
  EXPECT_EQ(sm90::gemm_choice(160, 57344, 1, kNxK, kH200), GemmChoice::kSwapAbTokens160);
  EXPECT_EQ(sm90::gemm_choice(150, 8192, 4, kNxK, kH200), GemmChoice::kSwapAbTokens160);
  // 160 < M <= 192: the 192-token tile over 9 to 28 tiles of 128 weight rows (N x batch), else tiled.
  EXPECT_EQ(sm90::gemm_choice(161, 3584, 1, kNxK, kH200), GemmChoice::kSwapAbTokens192);
  EXPECT_EQ(sm90::gemm_choice(192, 1, 28, kNxK, kH200), GemmChoice::kSwapAbTokens192);
  EXPECT_EQ(sm90::gemm_choice(176, 1025, 1, kNxK, kH200),
            GemmChoice::kSwapAbTokens192);  // 9 tiles, the last of one row
  EXPECT_EQ(sm90::gemm_choice(176, 896, 4, kNxK, kH200), GemmChoice::kSwapAbTokens192);  // 7 tiles x 4
  EXPECT_FALSE(sm90::is_swap_ab_choice(sm90::gemm_choice(176, 896, 5, kNxK, kH200)));
  EXPECT_FALSE(sm90::is_swap_ab_choice(sm90::gemm_choice(176, 1024, 1, kNxK, kH200)));
  EXPECT_FALSE(sm90::is_swap_ab_choice(sm90::gemm_choice(161, 128, 8, kNxK, kH200)));
  EXPECT_FALSE(sm90::is_swap_ab_choice(sm90::gemm_choice(192, 3585, 1, kNxK, kH200)));
  EXPECT_FALSE(sm90::is_swap_ab_choice(sm90::gemm_choice(193, 3584, 1, kNxK, kH200)));
  EXPECT_EQ(sm90::gemm_choice(161, 4096, 1, kNxK, kH200),
            GemmChoice::kTile128x128);  // 2 row tiles: 32 / 44 / 64, one wave
  EXPECT_EQ(sm90::gemm_swap_ab_choice(161),
            GemmChoice::kSwapAbTokens192);  // gemm_swap_ab: the 192-token tile
  EXPECT_EQ(sm90::gemm_swap_ab_choice(193), GemmChoice::kSwapAbTokens128);  // two 128-token tiles
  EXPECT_EQ(sm90::dual_gemm_choice(1, 14336, 1, kH200), DualGemmChoice::kSwapAbTokens16);
  EXPECT_EQ(sm90::dual_gemm_choice(17, 14336, 1, kH200), DualGemmChoice::kSwapAbTokens64);
  EXPECT_EQ(sm90::dual_gemm_choice(64, 28672, 1, kH200), DualGemmChoice::kSwapAbTokens64);
  EXPECT_EQ(sm90::dual_gemm_choice(65, 14336, 1, kH200), DualGemmChoice::kTile128x64);  // M·batch <= 256
  EXPECT_EQ(sm90::dual_gemm_choice(128, 14336, 1, kH200), DualGemmChoice::kTile128x64);
  // 129 <= M <= 160: the 160-token pairs whatever N and batch; the tiled kernels again from 161.
  EXPECT_EQ(sm90::dual_gemm_choice(129, 14336, 1, kH200), DualGemmChoice::kSwapAbTokens160);
  EXPECT_EQ(sm90::dual_gemm_choice(160, 28672, 1, kH200), DualGemmChoice::kSwapAbTokens160);
  EXPECT_EQ(sm90::dual_gemm_choice(150, 4096, 4, kH200), DualGemmChoice::kSwapAbTokens160);
  EXPECT_EQ(sm90::dual_gemm_choice(161, 14336, 1, kH200), DualGemmChoice::kTile128x64);
  // dual_gemm_swap_ab: 128 tokens for 65..128, 160 for 129..160, two 128-token tiles from 161.
  EXPECT_EQ(sm90::dual_gemm_swap_ab_choice(128), DualGemmChoice::kSwapAbTokens128);
  EXPECT_EQ(sm90::dual_gemm_swap_ab_choice(129), DualGemmChoice::kSwapAbTokens160);
  EXPECT_EQ(sm90::dual_gemm_swap_ab_choice(161), DualGemmChoice::kSwapAbTokens128);
}

// The default entry point's choice (host logic: runs without a GPU), worked out by hand from the rules in
// sm90/choice.hpp (prefer_cluster_pair included).
TEST(Sm90DualGemmChoice, ByShape) {
  using sm90::DualGemmChoice;
  // (M <= kDualGemmSwapAbMaxM: the swap-AB kernels, their own table in test/sm90/test_swap_ab_sm90.cu.)
  // A ping-pong kernel where it has more than kDualPingPongMinWaves (4) waves of its tiles, i.e. more than
  // 528 of them (64 x 128 or 64 x 96 pairs); of two, the fewer waves x width x 100 (128) or 101 (96). Tiles
  // and costs below as 128 / 96.
  // 64 x 112 / 64 x 150 tiles (the benchmark's 4096 x 14336): 55 / 73 waves: 704000 / 707808 -> 128.
  EXPECT_EQ(sm90::dual_gemm_choice(4096, 14336, 1, kH200), DualGemmChoice::kPingPong64x128);
  // Llama-3.1-8B gate/up at M = 512: 896 / 1200 tiles, 7 / 10 waves: 89600 / 96960 -> 128.
  EXPECT_EQ(sm90::dual_gemm_choice(512, 14336, 1, kH200), DualGemmChoice::kPingPong64x128);
  // 8 x 224 / 8 x 299: 14 / 19 waves: 179200 / 184224 -> 128.
  EXPECT_EQ(sm90::dual_gemm_choice(512, 28672, 1, kH200), DualGemmChoice::kPingPong64x128);
  // Qwen2.5-32B gate/up at M = 512 (N = 27648 = 216 x 128 = 288 x 96): 1728 / 2304 tiles, 14 / 18 waves:
  // 179200 / 174528 -> 96.
  EXPECT_EQ(sm90::dual_gemm_choice(512, 27648, 1, kH200), DualGemmChoice::kPingPong64x96);
  // 18 x 32 / 18 x 43 = 576 / 774 tiles: 5 / 6 waves: 64000 / 58176 -> 96.
  EXPECT_EQ(sm90::dual_gemm_choice(1152, 4096, 1, kH200), DualGemmChoice::kPingPong64x96);
  // 6 x 512 / 6 x 683: 24 / 32 waves: 307200 / 310272 -> 128; a batch of 2 of 4 x 112 / 4 x 150: 896 / 1200
  // tiles, 7 / 10 waves -> 128.
  EXPECT_EQ(sm90::dual_gemm_choice(384, 65536, 1, kH200), DualGemmChoice::kPingPong64x128);
  EXPECT_EQ(sm90::dual_gemm_choice(256, 14336, 2, kH200), DualGemmChoice::kPingPong64x128);
  // Only the 96-column tiles above 528: 4 x 112 = 448 / 4 x 150 = 600 (256 x 14336); 6 x 88 = 528 (not more)
  // / 6 x 118 = 708 (384 x 11264); 16 x 33 = 528 / 16 x 44 = 704 (1024 x 4224); 2 x 216 = 432 / 2 x 288 =
  // 576 (128 x 27648) -> 96.
  EXPECT_EQ(sm90::dual_gemm_choice(256, 14336, 1, kH200), DualGemmChoice::kPingPong64x96);
  EXPECT_EQ(sm90::dual_gemm_choice(384, 11264, 1, kH200), DualGemmChoice::kPingPong64x96);
  EXPECT_EQ(sm90::dual_gemm_choice(1024, 4224, 1, kH200), DualGemmChoice::kPingPong64x96);
  EXPECT_EQ(sm90::dual_gemm_choice(128, 27648, 1, kH200), DualGemmChoice::kPingPong64x96);
  // Neither above 528: 4 x 32 / 4 x 43 (256 x 4096), 2 x 32 x 2 / 2 x 43 x 2 (128 x 4096 x 2), 2 x 112 /
  // 2 x 150 (128 x 14336): M·batch <= 256 -> BlockN 64.
  EXPECT_EQ(sm90::dual_gemm_choice(256, 4096, 1, kH200), DualGemmChoice::kTile128x64);
  EXPECT_EQ(sm90::dual_gemm_choice(128, 4096, 2, kH200), DualGemmChoice::kTile128x64);
  EXPECT_EQ(sm90::dual_gemm_choice(128, 14336, 1, kH200), DualGemmChoice::kTile128x64);
  // 8 x 32 / 8 x 43 = 256 / 344 ping-pong tiles; 4 row tiles, 32 column tiles of 128: 2 x 32 = 64 pair tiles
  // < 132 -> one CTA.
  EXPECT_EQ(sm90::dual_gemm_choice(512, 4096, 1, kH200), DualGemmChoice::kTile128x128);
  // 10 x 32 / 10 x 43 = 320 / 430 ping-pong tiles; waves (wave_cost, 64-column tiles at 106% per
  // column): 160 tiles of 128 = 2 waves (25600) against 320 of 64 = 3 waves (20352) -> BlockN 64.
  EXPECT_EQ(sm90::dual_gemm_choice(640, 4096, 1, kH200), DualGemmChoice::kTile128x64);
  // CTA pairs: 33792 x 96, 528 x 1 ping-pong tiles of either width (not more); 264 tiles of 128 = 2 waves
  // (25600) against 528 of 64 = 4 (27136) -> 128, in pairs (132 x 1 = 132 pair tiles, 264 row tiles: even).
  // (Wherever a pair gets enough tiles the 96-column ping-pong tiles are more than 528 unless N <= 96.)
  EXPECT_EQ(sm90::dual_gemm_choice(33792, 96, 1, kH200), DualGemmChoice::kTile128x128Cluster2);
}

}  // namespace
}  // namespace bwgemm_test
