// The H200 candidate recordings replayed through the default kernel choice (replay.hpp; docs/performance.md,
// "The default choice against the recordings"). For each recorded shape the plan the built-in rules take,
// and the plan with the generated built-in table (include/bwgemm/tuning/builtin_h200.hpp), against the
// fastest recorded candidate: the table's figures must stay within the thresholds; the rules' figures may
// not get worse than the ones docs/performance.md gives.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "replay.hpp"

namespace bwgemm::replay {
namespace {

// The thresholds (tools/tuning_recordings.py has the same).
constexpr double kMaxGeomeanLoss = 0.01;
constexpr double kMaxLossBeyondNoise = 0.05;

// The rules' figures on the recordings (docs/performance.md): a change that makes them worse fails here;
// one that makes them better updates them (and the docs).
constexpr int kRulesCovered = 497;
constexpr double kRulesGeomeanLoss = 0.0021;
constexpr double kRulesWorstBeyondNoise = 0.2514;
// Printed figures are rounded to 0.01%: the pins allow that much.
constexpr double kRounding = 5e-5;

const std::vector<Record>& records() {
  static const std::vector<Record> r =
      load_records(BWGEMM_SOURCE_DIR "/test/replay/data/h200_recordings.json");
  return r;
}

std::vector<Plan> rules_plans() {
  std::vector<Plan> plans;
  for (const Record& r : records()) plans.push_back(rules_plan(r));
  return plans;
}

std::vector<Plan> table_plans() {
  std::vector<Plan> plans;
  for (const Record& r : records()) plans.push_back(table_plan(r, rules_plan(r)));
  return plans;
}

TEST(Replay, DatasetIsWellFormed) {
  ASSERT_GT(records().size(), 100u);
  for (const Record& r : records()) {
    SCOPED_TRACE(r.file + " M" + std::to_string(r.m) + "_N" + std::to_string(r.n) + "_K" +
                 std::to_string(r.k));
    EXPECT_DOUBLE_EQ(r.best().time, 1.0);  // times are relative to the fastest
    for (const Candidate& c : r.candidates) {
      EXPECT_GE(c.time, 1.0);
      EXPECT_GE(c.noise, 0.0);
      EXPECT_TRUE(!c.plan.stream_k || r.has_workspace);
      EXPECT_TRUE(c.plan.split_k == 1 || c.plan.split_k == 2 || c.plan.split_k == 4 || c.plan.split_k == 8);
    }
  }
}

// Every candidate name of the dataset and of the generated table is one the choice layer parses for its
// operation.
TEST(Replay, PlansNameCatalogueCandidates) {
  for (const Record& r : records()) {
    for (const Candidate& c : r.candidates) {
      if (r.op == tuning::Operation::kGemm) {
        sm90::GemmChoice g;
        EXPECT_TRUE(sm90::parse_gemm_choice(c.plan.config, &g)) << c.plan.config;
      } else {
        sm90::DualGemmChoice d;
        EXPECT_TRUE(sm90::parse_dual_gemm_choice(c.plan.config, &d)) << c.plan.config;
      }
    }
  }
  for (size_t i = 0; i < tuning::kBuiltinH200EntryCount; ++i) {
    const tuning::BuiltinEntry& e = tuning::kBuiltinH200Entries[i];
    sm90::GemmChoice g;
    sm90::DualGemmChoice d;
    EXPECT_TRUE(e.op == tuning::Operation::kGemm ? sm90::parse_gemm_choice(e.config, &g)
                                                 : sm90::parse_dual_gemm_choice(e.config, &d))
        << e.config;
  }
}

TEST(Replay, GeneratedTableWithinThresholds) {
  const Figures f = evaluate(records(), table_plans());
  std::printf("table: %s\n", describe(f).c_str());
  EXPECT_LE(f.geomean_loss, kMaxGeomeanLoss) << describe(f);
  EXPECT_LE(f.worst_beyond, kMaxLossBeyondNoise) << describe(f);
  // The table only replaces the rules' plan where a recorded one was faster: it covers at least as much.
  EXPECT_GE(f.covered, evaluate(records(), rules_plans()).covered);
}

TEST(Replay, RulesNoWorseThanDocumented) {
  const Figures f = evaluate(records(), rules_plans());
  std::printf("rules: %s\n", describe(f).c_str());
  EXPECT_GE(f.covered, kRulesCovered) << describe(f);
  EXPECT_LE(f.geomean_loss, kRulesGeomeanLoss + kRounding) << describe(f);
  EXPECT_LE(f.worst_beyond, kRulesWorstBeyondNoise + kRounding) << describe(f);
}

// Each table entry is backed by its recordings (the generator's rule, tools/tuning_recordings.py): the
// entry's plan was recorded on every shape of its key, and over the shapes that also recorded the rules' plan
// (at least one) the rules' geomean time over the entry's exceeds 1 by more than the mean of the two noises
// together.
TEST(Replay, TableEntriesBackedByRecordings) {
  for (size_t i = 0; i < tuning::kBuiltinH200EntryCount; ++i) {
    const tuning::BuiltinEntry& e = tuning::kBuiltinH200Entries[i];
    const Plan entry{e.config, e.split_k, e.stream_k == tuning::StreamK::kOn};
    SCOPED_TRACE(std::string(e.config) + " at N " + std::to_string(e.n) + " K " + std::to_string(e.k) +
                 " M <= " + std::to_string(e.m));
    int shapes = 0, evidence = 0;
    double log_sum = 0, noise_sum = 0;
    for (const Record& r : records()) {
      if (table_entry(r) != &e) continue;
      ++shapes;
      const Candidate* mine = r.find(entry);
      ASSERT_NE(mine, nullptr) << r.file << " M " << r.m;
      const Candidate* theirs = r.find(rules_plan(r));
      if (theirs == nullptr) continue;
      ++evidence;
      log_sum += std::log(theirs->time / mine->time);
      noise_sum += theirs->noise + mine->noise;
    }
    EXPECT_GT(shapes, 0);
    ASSERT_GT(evidence, 0);
    EXPECT_GT(std::exp(log_sum / evidence) - 1.0, noise_sum / evidence);
  }
}

// The replay's arithmetic on a record made by hand.
TEST(Replay, FiguresByHand) {
  Record r;
  r.candidates = {{{"GemmTile128x256", 1, false}, 1.00, 0.01}, {{"GemmTile128x128", 2, false}, 1.10, 0.02}};
  std::vector<Record> rs{r, r};
  const Figures f = evaluate(rs, {{"GemmTile128x128", 2, false}, {"GemmTile128x192", 1, false}});
  EXPECT_EQ(f.records, 2);
  EXPECT_EQ(f.covered, 1);
  EXPECT_NEAR(f.geomean_loss, 0.10, 1e-12);
  EXPECT_NEAR(f.worst_beyond, 0.08, 1e-12);  // 10% loss less the larger noise, 2%
  const Figures g = evaluate(rs, {{"GemmTile128x256", 1, false}, {"GemmTile128x256", 1, false}});
  EXPECT_EQ(g.covered, 2);
  EXPECT_EQ(g.geomean_loss, 0.0);
  EXPECT_EQ(g.worst_beyond, 0.0);
}

}  // namespace
}  // namespace bwgemm::replay
