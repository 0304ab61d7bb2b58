// bwgemm-tune's core and command line without a GPU (bench/tune.hpp, bench/tune_cli.hpp): a fake candidate
// source and a fake measurer whose times the tests choose, a fake clock for the budget.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bwgemm/tuning/json.hpp"
#include "tune.hpp"
#include "tune_arguments.hpp"
#include "tune_cli.hpp"

namespace {

using namespace bwgemm;
using namespace bwgemm::bench::tune;
using tuning::StreamK;

// ---- fakes
// ----------------------------------------------------------------------------------------------------

RunFunction never_called() {
  return [](const TuneCall&) { return Status::internal_error("the fake measurer does not run candidates"); };
}

TuneCandidate candidate(const std::string& name, int split_k = 0, StreamK stream_k = StreamK::kUnspecified) {
  return {name, split_k, stream_k, never_called()};
}

// Times per candidate (by describe(candidate)), the same every round unless `rounds_of` says otherwise;
// candidates in `invalid` fail validation. Logs what it validated and timed; advances *clock by
// seconds_per_shape at each timing.
class FakeMeasurer : public Measurer {
 public:
  std::map<std::string, std::vector<double>> samples;   // per round, cycled
  std::map<std::string, std::string> invalid;           // name -> message
  std::function<Status(const TuneShape&)> open_status;  // null: success
  bool fail_timing = false;
  double* clock = nullptr;
  double seconds_per_shape = 0;
  std::vector<std::string> validated, timed;
  int opened = 0;

  Status open(const TuneTarget&, const TuneShape& shape, std::unique_ptr<ShapeMeasurement>* out) override {
    ++opened;
    if (open_status) {
      Status s = open_status(shape);
      if (!s.ok()) return s;
    }
    *out = std::make_unique<Shape>(this);
    return Status::success();
  }

 private:
  class Shape : public ShapeMeasurement {
   public:
    explicit Shape(FakeMeasurer* owner) : owner_(owner) {}
    CheckOutcome validate(const TuneCandidate& c) override {
      owner_->validated.push_back(describe(c));
      const auto it = owner_->invalid.find(describe(c));
      if (it != owner_->invalid.end()) return {false, it->second};
      return {true, ""};
    }
    Status time(const std::vector<const TuneCandidate*>& candidates, int rounds,
                std::vector<std::vector<double>>* us) override {
      if (owner_->clock != nullptr) *owner_->clock += owner_->seconds_per_shape;
      if (owner_->fail_timing) return Status::driver_error("cudaGraphInstantiate failed");
      us->clear();
      for (const TuneCandidate* c : candidates) {
        owner_->timed.push_back(describe(*c));
        const auto it = owner_->samples.find(describe(*c));
        const std::vector<double> base = it != owner_->samples.end() ? it->second : std::vector<double>{10.0};
        std::vector<double> v;
        for (int r = 0; r < rounds; ++r) v.push_back(base[static_cast<size_t>(r) % base.size()]);
        us->push_back(std::move(v));
      }
      return Status::success();
    }

   private:
    FakeMeasurer* owner_;
  };
};

// A source with a fixed list and a fixed built-in choice.
ListSource source(std::vector<TuneCandidate> list, TuneChoice builtin) {
  return ListSource(std::move(list), [builtin](const TuneShape&) { return builtin; });
}

TuneTarget gemm_bf16_nk() {
  return {tuning::Operation::kGemm, tuning::Element::kBf16, tuning::Element::kBf16, BLayout::kColumnMajorKxN};
}

struct Outcome {
  std::vector<std::string> progress;
  TuneResult result;
};

Outcome run_tune(const CandidateSource& src, FakeMeasurer& m, std::vector<TuneShape> shapes,
                 TuneOptions options = {}) {
  Outcome run;
  options.progress = [&run](const std::string& line) { run.progress.push_back(line); };
  if (!options.clock) options.clock = [] { return 0.0; };
  run.result = tune(gemm_bf16_nk(), shapes, src, m, options);
  return run;
}

bool any_line_has(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

tuning::DeviceDescription h200() {
  tuning::DeviceDescription d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.cuda_runtime = 13000;
  d.cuda_driver = 13010;
  return d;
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "bwgemm_tune_" + name;
}

// ---- statistics
// ------------------------------------------------------------------------------------------------

TEST(TuneStats, MedianQuartilesAndNoise) {
  // Sorted: 1 2 3 4 5 6 7 8 9: median 5, q1 3, q3 7, noise (7 - 3) / 2.
  const SampleStats s = summarize({9, 1, 8, 2, 7, 3, 6, 4, 5});
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.q1, 3);
  EXPECT_DOUBLE_EQ(s.q3, 7);
  EXPECT_DOUBLE_EQ(s.noise, 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_EQ(s.count, 9);
  EXPECT_DOUBLE_EQ(s.relative_noise(), 0.4);
  // Even count: the median is the mean of the middle two; quartiles interpolate.
  const SampleStats e = summarize({10, 20, 30, 40});
  EXPECT_DOUBLE_EQ(e.median, 25);
  EXPECT_DOUBLE_EQ(e.q1, 17.5);
  EXPECT_DOUBLE_EQ(e.q3, 32.5);
  // One outlier round moves neither the median nor the noise much.
  const SampleStats o = summarize({10, 10, 10, 10, 10, 10, 10, 1000});
  EXPECT_DOUBLE_EQ(o.median, 10);
  EXPECT_DOUBLE_EQ(o.noise, 0);
}

TEST(TuneStats, RefusesEmptyAndNonPositive) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, -2.0}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::nan("")}), std::invalid_argument);
}

// ---- selection
// -------------------------------------------------------------------------------------------------

TEST(TuneSelect, FasterBeyondTheNoiseReplacesTheBuiltin) {
  const ListSource src = source(
      {candidate("GemmSwapAb16"), candidate("GemmSwapAb32"), candidate("GemmSmall")}, {"GemmSwapAb16"});
  FakeMeasurer m;
  m.samples["GemmSwapAb16"] = {10.0, 10.2, 9.8, 10.1};  // noise ~0.1
  m.samples["GemmSwapAb32"] = {8.0, 8.1, 7.9, 8.05};
  m.samples["GemmSmall"] = {12.0};
  const Outcome run = run_tune(src, m, {{16, 4096, 4096}});
  ASSERT_EQ(run.result.shapes.size(), 1u);
  const ShapeResult& r = run.result.shapes[0];
  EXPECT_EQ(r.outcome, ShapeOutcome::kTuned);
  EXPECT_FALSE(r.kept_builtin);
  EXPECT_EQ(r.candidates[static_cast<size_t>(r.winner)].name, "GemmSwapAb32");
  ASSERT_EQ(run.result.entries.size(), 1u);
  const tuning::Entry& e = run.result.entries[0];
  EXPECT_EQ(e.config, "GemmSwapAb32");
  EXPECT_EQ(e.rules_config, "GemmSwapAb16");
  EXPECT_EQ(e.m, 16);
  EXPECT_EQ(e.n, 4096);
  EXPECT_EQ(e.k, 4096);
  EXPECT_EQ(e.batch, 1);
  ASSERT_EQ(e.measured.size(), 3u);
  EXPECT_EQ(e.measured[1].config, "GemmSwapAb32");
  EXPECT_NEAR(e.measured[1].median_us, 8.025, 1e-12);
  EXPECT_GT(e.measured[1].noise_us, 0);
  // The summary says built-in, winner and gain.
  const std::string line = summary_line(gemm_bf16_nk(), r);
  EXPECT_NE(line.find("built-in GemmSwapAb16 10.05 us"), std::string::npos) << line;
  EXPECT_NE(line.find("winner GemmSwapAb32 8.0"), std::string::npos) << line;
  EXPECT_NE(line.find("1.252x"), std::string::npos) << line;
}

TEST(TuneSelect, FasterWithinTheNoiseKeepsTheBuiltin) {
  const ListSource src = source({candidate("A"), candidate("B")}, {"A"});
  FakeMeasurer m;
  m.samples["A"] = {10.0, 11.0, 9.0, 10.0};  // median 10, noise 0.5
  m.samples["B"] = {9.6, 10.6, 8.6, 9.6};    // median 9.6, noise 0.5: 0.4 faster < 1.0 of noise
  const Outcome run = run_tune(src, m, {{64, 8192, 8192}});
  const ShapeResult& r = run.result.shapes[0];
  ASSERT_EQ(r.outcome, ShapeOutcome::kTuned);
  EXPECT_TRUE(r.kept_builtin);
  EXPECT_EQ(run.result.entries[0].config, "A");
  const std::string line = summary_line(gemm_bf16_nk(), r);
  EXPECT_NE(line.find("kept; fastest other B 9.60 us"), std::string::npos) << line;
  EXPECT_NE(line.find("within the noise"), std::string::npos) << line;
}

TEST(TuneSelect, TiesKeepTheBuiltinAndEqualWinnersGoToTheFirst) {
  {
    const ListSource src = source({candidate("A"), candidate("B")}, {"B"});
    FakeMeasurer m;
    m.samples["A"] = {10.0};
    m.samples["B"] = {10.0};
    const Outcome run = run_tune(src, m, {{8, 1024, 1024}});
    EXPECT_TRUE(run.result.shapes[0].kept_builtin);
    EXPECT_EQ(run.result.entries[0].config, "B");
  }
  {
    // C and D both beat the built-in by the same margin: the first listed wins.
    const ListSource src = source({candidate("A"), candidate("C"), candidate("D")}, {"A"});
    FakeMeasurer m;
    m.samples["A"] = {10.0};
    m.samples["C"] = {5.0};
    m.samples["D"] = {5.0};
    const Outcome run = run_tune(src, m, {{8, 1024, 1024}});
    EXPECT_EQ(run.result.entries[0].config, "C");
  }
}

TEST(TuneSelect, MinimumGainAndSplitCandidates) {
  // The split-2 variant is 3% faster with no noise: it wins at min_gain 0, not at 5%.
  const ListSource src = source(with_splits({candidate("GemmSmall")}, {2, 4}), {"GemmSmall"});
  FakeMeasurer m;
  m.samples["GemmSmall"] = {10.0};
  m.samples["GemmSmall split 2"] = {9.7};
  m.samples["GemmSmall split 4"] = {9.9};
  Outcome run = run_tune(src, m, {{128, 4096, 4096}});
  EXPECT_EQ(run.result.entries[0].config, "GemmSmall");
  EXPECT_EQ(run.result.entries[0].split_k, 2);
  ASSERT_EQ(run.result.entries[0].measured.size(), 3u);
  EXPECT_EQ(run.result.entries[0].measured[2].split_k, 4);
  TuneOptions strict;
  strict.min_relative_gain = 0.05;
  run = run_tune(src, m, {{128, 4096, 4096}}, strict);
  EXPECT_EQ(run.result.entries[0].split_k, 0);
  EXPECT_TRUE(run.result.shapes[0].kept_builtin);
}

TEST(TuneSelect, MIsTheBucketBound) {
  const ListSource src = source({candidate("A")}, {"A"});
  FakeMeasurer m;
  const Outcome run = run_tune(src, m, {{100, 4096, 4096}, {20000, 4096, 4096}});
  ASSERT_EQ(run.result.entries.size(), 2u);
  EXPECT_EQ(run.result.entries[0].m, 112);    // 97 .. 112
  EXPECT_EQ(run.result.entries[1].m, 16384);  // the last bucket
}

// ---- validation
// --------------------------------------------------------------------------------------------------

TEST(TuneValidate, AFailingCandidateIsDroppedAndReported) {
  const ListSource src = source({candidate("A"), candidate("Broken"), candidate("B")}, {"A"});
  FakeMeasurer m;
  m.samples["A"] = {10.0};
  m.samples["Broken"] = {1.0};  // fastest, but wrong
  m.samples["B"] = {9.0};
  m.invalid["Broken"] = "output differs from the host reference";
  const Outcome run = run_tune(src, m, {{32, 4096, 4096}});
  EXPECT_EQ(m.validated, (std::vector<std::string>{"A", "Broken", "B"}));
  EXPECT_EQ(m.timed, (std::vector<std::string>{"A", "B"}));  // never timed
  const ShapeResult& r = run.result.shapes[0];
  EXPECT_FALSE(r.candidates[1].valid);
  EXPECT_EQ(r.candidates[1].message, "output differs from the host reference");
  EXPECT_TRUE(any_line_has(run.progress, "dropped Broken: output differs from the host reference"));
  EXPECT_EQ(run.result.entries[0].config, "B");
  for (const tuning::Measurement& t : run.result.entries[0].measured) EXPECT_NE(t.config, "Broken");
}

TEST(TuneValidate, AFailingBuiltinLetsTheFastestValidWin) {
  const ListSource src = source({candidate("A"), candidate("B"), candidate("C")}, {"A"});
  FakeMeasurer m;
  m.samples["B"] = {9.0};
  m.samples["C"] = {8.0};
  m.invalid["A"] = "NaN in the output";
  const Outcome run = run_tune(src, m, {{32, 4096, 4096}});
  const ShapeResult& r = run.result.shapes[0];
  ASSERT_EQ(r.outcome, ShapeOutcome::kTuned);
  EXPECT_EQ(run.result.entries[0].config, "C");
  EXPECT_EQ(run.result.entries[0].rules_config, "A");
  EXPECT_NE(r.message.find("built-in choice failed validation"), std::string::npos);
  EXPECT_TRUE(any_line_has(run.progress, "dropped A (the built-in choice): NaN in the output"));
}

TEST(TuneValidate, NoValidCandidateFailsTheShapeOnly) {
  const ListSource src = source({candidate("A"), candidate("B")}, {"A"});
  FakeMeasurer m;
  m.invalid["A"] = "wrong";
  m.invalid["B"] = "wrong";
  const Outcome run = run_tune(src, m, {{1, 4096, 4096}});
  EXPECT_EQ(run.result.shapes[0].outcome, ShapeOutcome::kFailed);
  EXPECT_EQ(run.result.shapes[0].message, "no candidate passed validation");
  EXPECT_TRUE(run.result.entries.empty());
  EXPECT_EQ(run.result.failed(), 1);
  EXPECT_TRUE(m.timed.empty());
}

TEST(TuneValidate, ShapeFailuresAreReportedAndTheRunGoesOn) {
  FakeMeasurer m;
  m.open_status = [](const TuneShape& s) {
    return s.m == 2 ? Status::internal_error("out of memory") : Status::success();
  };
  // The built-in choice is not a candidate at M = 4; no candidate runs M = 8.
  const ListSource src(
      {candidate("A"), candidate("B")},
      [](const TuneShape& s) { return TuneChoice{s.m == 4 ? "Missing" : "A"}; },
      [](const TuneCandidate&, const TuneShape& s) { return s.m != 8; });
  const Outcome run = run_tune(src, m, {{1, 64, 64}, {2, 64, 64}, {4, 64, 64}, {8, 64, 64}});
  ASSERT_EQ(run.result.shapes.size(), 4u);
  EXPECT_EQ(run.result.shapes[0].outcome, ShapeOutcome::kTuned);
  EXPECT_EQ(run.result.shapes[1].outcome, ShapeOutcome::kFailed);
  EXPECT_EQ(run.result.shapes[1].message, "cannot set up the problem: out of memory");
  EXPECT_EQ(run.result.shapes[2].outcome, ShapeOutcome::kFailed);
  EXPECT_EQ(run.result.shapes[2].message, "the built-in choice Missing is not among the 2 candidates");
  EXPECT_EQ(run.result.shapes[3].outcome, ShapeOutcome::kNoCandidate);
  EXPECT_EQ(run.result.entries.size(), 1u);
  EXPECT_EQ(run.result.failed(), 2);
  EXPECT_EQ(summary_line(gemm_bf16_nk(), run.result.shapes[3]),
            "gemm bf16->bf16 B nk M=8 N=64 K=64: skipped: no candidate runs this shape");
}

TEST(TuneValidate, TimingFailureFailsTheShape) {
  const ListSource src = source({candidate("A")}, {"A"});
  FakeMeasurer m;
  m.fail_timing = true;
  const Outcome run = run_tune(src, m, {{1, 64, 64}});
  EXPECT_EQ(run.result.shapes[0].outcome, ShapeOutcome::kFailed);
  EXPECT_NE(run.result.shapes[0].message.find("timing failed: cudaGraphInstantiate failed"),
            std::string::npos);
}

TEST(TuneValidate, MalformedAndRepeatedCandidatesAreIgnored) {
  TuneCandidate no_run = candidate("NoRun");
  no_run.run = nullptr;
  const ListSource src = source({candidate("A"), candidate("A"), candidate("Big", 65), candidate(""), no_run,
                                 candidate("A", 2), candidate("A", 0, StreamK::kOn)},
                                {"A"});
  FakeMeasurer m;
  const Outcome run = run_tune(src, m, {{1, 64, 64}});
  EXPECT_EQ(m.validated, (std::vector<std::string>{"A", "A split 2", "A stream-K"}));
  EXPECT_TRUE(any_line_has(run.progress, "candidate ignored: A is listed twice"));
  EXPECT_TRUE(any_line_has(run.progress, "Big split 65: split_k must be 0 .. 64"));
  EXPECT_TRUE(any_line_has(run.progress, "NoRun: no run function"));
}

// ---- sources
// ---------------------------------------------------------------------------------------------------

TEST(TuneSource, BuiltinIndexAndSplits) {
  const std::vector<TuneCandidate> list = with_splits({candidate("X"), candidate("Y", 4)}, {2, 4});
  ASSERT_EQ(list.size(), 5u);  // X, X/2, X/4, Y/4, Y/2
  EXPECT_EQ(describe(list[3]), "Y split 4");
  EXPECT_EQ(describe(list[4]), "Y split 2");
  EXPECT_EQ(builtin_index(list, {"X"}), 0);
  EXPECT_EQ(builtin_index(list, {"X", 4}), 2);
  EXPECT_EQ(builtin_index(list, {"Y", 2}), 4);
  EXPECT_EQ(builtin_index(list, {"Y"}), -1);    // Y is listed only with a split
  EXPECT_EQ(builtin_index(list, {"X", 8}), 0);  // the rules' split of X: X as the rules run it
  EXPECT_EQ(builtin_index(list, {"Z"}), -1);
}

TEST(TuneSource, FindSourceByDeviceAndOperation) {
  std::vector<SourceRegistration> regs;
  std::string why;
  EXPECT_EQ(find_source(regs, gemm_bf16_nk(), 9, 0, &why), nullptr);
  EXPECT_NE(why.find("this build has no candidate sources"), std::string::npos) << why;
  SourceRegistration r;
  r.name = "sm_90a gemm";
  r.cc_major = 9, r.cc_minor = 0;
  r.op = tuning::Operation::kGemm;
  r.make = [](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    if (t.in != tuning::Element::kBf16) return nullptr;
    return std::make_unique<ListSource>(std::vector<TuneCandidate>{candidate("GemmLarge")},
                                        [](const TuneShape&) { return TuneChoice{"GemmLarge"}; });
  };
  regs.push_back(r);
  std::unique_ptr<CandidateSource> s = find_source(regs, gemm_bf16_nk(), 9, 0, &why);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->candidates({1, 8, 8})[0].name, "GemmLarge");
  EXPECT_EQ(find_source(regs, gemm_bf16_nk(), 10, 0, &why), nullptr);
  EXPECT_EQ(why, "no candidate source for compute capability 10.0 in this build");
  TuneTarget fp16 = gemm_bf16_nk();
  fp16.in = fp16.out = tuning::Element::kFp16;
  EXPECT_EQ(find_source(regs, fp16, 9, 0, &why), nullptr);
  EXPECT_EQ(why,
            "no candidate source for gemm fp16->fp16 B nk on compute capability 9.0 (there are: sm_90a gemm "
            "(gemm))");
}

TEST(TuneSource, ArgumentsFromACall) {
  TuneCall c;
  c.m = 16, c.n = 4096, c.k = 1024;
  c.b_layout = BLayout::kRowMajorKxN;
  int dummy[8];
  c.a = &dummy[0], c.b = &dummy[1], c.b2 = &dummy[2], c.out = &dummy[3];
  c.a_scales = &dummy[4], c.b_scales = &dummy[5], c.b2_scales = &dummy[6];
  c.workspace = &dummy[7], c.workspace_bytes = 64;
  c.split_k = 4;
  const auto g = arguments_of<GemmArguments<__nv_bfloat16>>(c);
  EXPECT_EQ(g.m, 16);
  EXPECT_EQ(g.n, 4096);
  EXPECT_EQ(g.k, 1024);
  EXPECT_EQ(g.b_layout, BLayout::kRowMajorKxN);
  EXPECT_EQ(static_cast<const void*>(g.a), c.a);
  EXPECT_EQ(static_cast<const void*>(g.b), c.b);
  EXPECT_EQ(static_cast<void*>(g.d), c.out);
  EXPECT_EQ(g.workspace, c.workspace);
  EXPECT_EQ(g.workspace_bytes, 64);
  const auto d = arguments_of<DualGemmArguments<__nv_bfloat16>>(c);
  EXPECT_EQ(static_cast<const void*>(d.b1), c.b);
  EXPECT_EQ(static_cast<const void*>(d.b2), c.b2);
  EXPECT_EQ(static_cast<void*>(d.c), c.out);
  const auto q = arguments_of<Nvfp4DualGemmArguments<__half>>(c);
  EXPECT_EQ(q.b2.data, c.b2);
  EXPECT_EQ(q.b2.scales, c.b2_scales);
  EXPECT_EQ(q.a.scales, c.a_scales);
  const auto n = arguments_of<Nvfp4GemmArguments<__half>>(c);
  EXPECT_EQ(n.b.data, c.b);
  EXPECT_EQ(n.b.scales, c.b_scales);
  // run_with hands the run function the Arguments and the call (its split).
  int seen_split = 0;
  int64_t seen_n = 0;
  const RunFunction run = run_with<GemmArguments<__nv_bfloat16>>(
      [&](const GemmArguments<__nv_bfloat16>& args, const TuneCall& call) {
        seen_split = call.split_k;
        seen_n = args.n;
        return Status::success();
      });
  EXPECT_TRUE(run(c).ok());
  EXPECT_EQ(seen_split, 4);
  EXPECT_EQ(seen_n, 4096);
}

// ---- budget and progress
// ---------------------------------------------------------------------------------------

TEST(TuneBudget, StopsCleanlyAndTheFileHoldsWhatWasTuned) {
  const ListSource src = source({candidate("A"), candidate("B")}, {"A"});
  FakeMeasurer m;
  m.samples["A"] = {10.0};
  m.samples["B"] = {5.0};
  double now = 1000;
  m.clock = &now;
  m.seconds_per_shape = 10;
  TuneOptions options;
  options.clock = [&now] { return now; };
  options.budget_seconds = 25;  // shapes at 0 s and 10 s; the third would end at 30 s
  // Shapes of equal work (M N K), so the estimate is the average.
  const Outcome run =
      run_tune(src, m, {{1, 64, 64}, {2, 32, 64}, {4, 16, 64}, {8, 8, 64}, {16, 4, 64}}, options);
  EXPECT_TRUE(run.result.stopped_early);
  EXPECT_EQ(run.result.planned, 5);
  ASSERT_EQ(run.result.shapes.size(), 2u);
  EXPECT_EQ(run.result.entries.size(), 2u);
  EXPECT_NE(run.result.stop_reason.find("the next shape would end past the time budget"), std::string::npos);
  EXPECT_TRUE(any_line_has(run.progress, "stopping after 2 of 5 shapes"));
  EXPECT_TRUE(any_line_has(run.progress, "shape 1 of 5 (gemm bf16->bf16 B nk M=1 N=64 K=64): 0.0 s elapsed"));
  EXPECT_TRUE(any_line_has(run.progress,
                           "shape 2 of 5 (gemm bf16->bf16 B nk M=2 N=32 K=64): 10.0 s elapsed, "
                           "about 40.0 s remaining (the budget ends in 15.0 s)"));

  // The partial result as a file, read back.
  tuning::TuningDocument doc;
  ASSERT_TRUE(
      make_document(make_metadata(h200(), tuning::LaunchMode::kGraph, "2026-12-08", "bwgemm-tune ..."),
                    {run.result}, nullptr, &doc)
          .ok());
  const std::string path = temp_path("partial.json");
  ASSERT_TRUE(tuning::write_tuning_file(path, doc).ok());
  tuning::TuningDocument back;
  ASSERT_TRUE(tuning::read_tuning_file(path, &back).ok());
  ASSERT_EQ(back.entries.size(), 2u);
  EXPECT_EQ(back.entries[0].m, 1);
  EXPECT_EQ(back.entries[1].m, 2);
  EXPECT_EQ(back.entries[1].config, "B");
  std::remove(path.c_str());
}

// The next shape's time is the last one's scaled by the work where that is more than the average: a sweep's
// M = 16384 after M = 8192 is expected to take twice as long, and is not started with too little budget left.
TEST(TuneBudget, TheNextShapesEstimateScalesWithItsWork) {
  const ListSource src = source({candidate("A")}, {"A"});
  FakeMeasurer m;
  double now = 0;
  m.clock = &now;
  m.seconds_per_shape = 10;
  TuneOptions options;
  options.clock = [&now] { return now; };
  options.budget_seconds = 35;  // the average (10 s) would start the third shape; 2 x 10 s ends past 35 s
  const Outcome run = run_tune(src, m, {{8, 64, 64}, {8, 64, 64}, {16, 64, 64}}, options);
  EXPECT_EQ(run.result.shapes.size(), 2u);
  EXPECT_TRUE(run.result.stopped_early);
  EXPECT_NE(run.result.stop_reason.find("a shape takes about 20.0 s"), std::string::npos)
      << run.result.stop_reason;
}

// The file can be written after every shape (bwgemm-tune does, so a killed run keeps its shapes).
TEST(TuneBudget, AfterShapeSeesEveryShapeSoFar) {
  const ListSource src = source({candidate("A")}, {"A"});
  FakeMeasurer m;
  TuneOptions options;
  std::vector<size_t> seen;
  options.after_shape = [&seen](const TuneResult& r) { seen.push_back(r.entries.size()); };
  const Outcome run = run_tune(src, m, {{1, 64, 64}, {2, 64, 64}, {4, 64, 64}}, options);
  EXPECT_EQ(run.result.entries.size(), 3u);
  EXPECT_EQ(seen, (std::vector<size_t>{1, 2, 3}));
}

TEST(TuneBudget, UsedUpAndStopRequested) {
  const ListSource src = source({candidate("A")}, {"A"});
  FakeMeasurer m;
  double now = 0;
  m.clock = &now;
  m.seconds_per_shape = 100;
  TuneOptions options;
  options.clock = [&now] { return now; };
  options.budget_seconds = 50;  // the first shape alone takes longer: it ends the run
  Outcome run = run_tune(src, m, {{1, 64, 64}, {2, 64, 64}}, options);
  EXPECT_EQ(run.result.shapes.size(), 1u);
  EXPECT_NE(run.result.stop_reason.find("is used up"), std::string::npos);

  int asked = 0;
  TuneOptions stop;
  stop.stop_requested = [&asked] { return ++asked > 2; };
  run = run_tune(src, m, {{1, 64, 64}, {2, 64, 64}, {4, 64, 64}}, stop);
  EXPECT_EQ(run.result.shapes.size(), 2u);
  EXPECT_TRUE(run.result.stopped_early);
  EXPECT_EQ(run.result.stop_reason, "stopped on request");
}

TEST(TuneBudget, RoundsAreEven) {
  const ListSource src = source({candidate("A")}, {"A"});
  FakeMeasurer m;
  m.samples["A"] = {10.0, 20.0, 30.0};  // cycled over the rounds: 10 20 30 10 20 30 10 20 (8 rounds)
  TuneOptions options;
  options.rounds = 7;
  const Outcome run = run_tune(src, m, {{1, 64, 64}}, options);
  EXPECT_EQ(run.result.shapes[0].candidates[0].stats.count, 8);
}

// ---- files
// -----------------------------------------------------------------------------------------------------

TEST(TuneFile, MetadataAndRoundTrip) {
  const tuning::Metadata md = make_metadata(h200(), tuning::LaunchMode::kStream, "2026-12-08",
                                            "bwgemm-tune --op=gemm --shapes=16x4096x4096 --output=h200.json");
  EXPECT_EQ(md.gpu, "NVIDIA H200");
  EXPECT_EQ(md.sm_count, 132);
  EXPECT_EQ(md.bwgemm_version, std::to_string(BWGEMM_VERSION_MAJOR) + "." +
                                   std::to_string(BWGEMM_VERSION_MINOR) + "." +
                                   std::to_string(BWGEMM_VERSION_PATCH));
  EXPECT_EQ(md.l2, tuning::L2Mode::kCold);
  // The file is valid for the device it describes.
  EXPECT_TRUE(tuning::check_device(md, h200()).ok());

  const ListSource src = source({candidate("GemmSwapAb16"), candidate("GemmSwapAb32", 2)}, {"GemmSwapAb16"});
  FakeMeasurer m;
  m.samples["GemmSwapAb16"] = {10.0, 10.5};
  m.samples["GemmSwapAb32 split 2"] = {7.0, 7.5};
  const Outcome run = run_tune(src, m, {{16, 4096, 4096}});
  tuning::TuningDocument doc;
  ASSERT_TRUE(make_document(md, {run.result}, nullptr, &doc).ok());
  const std::string path = temp_path("round_trip.json");
  ASSERT_TRUE(tuning::write_tuning_file(path, doc).ok());
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"compute_capability\": \"9.0\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"cuda_runtime\": \"13.0\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"cuda_driver\": \"13.1\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"launch\": \"stream\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"l2\": \"cold-l2\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"date\": \"2026-12-08\""), std::string::npos) << text;

  tuning::TuningDocument back;
  ASSERT_TRUE(tuning::read_tuning_file(path, &back).ok());
  EXPECT_EQ(back.metadata.gpu, md.gpu);
  EXPECT_EQ(back.metadata.cc_major, 9);
  EXPECT_EQ(back.metadata.cuda_driver, 13010);
  EXPECT_EQ(back.metadata.launch, tuning::LaunchMode::kStream);
  EXPECT_EQ(back.metadata.command, md.command);
  ASSERT_EQ(back.entries.size(), 1u);
  const tuning::Entry& e = back.entries[0];
  EXPECT_EQ(e.op, tuning::Operation::kGemm);
  EXPECT_EQ(e.b_layout, BLayout::kColumnMajorKxN);
  EXPECT_EQ(e.config, "GemmSwapAb32");
  EXPECT_EQ(e.split_k, 2);
  EXPECT_EQ(e.rules_config, "GemmSwapAb16");
  ASSERT_EQ(e.measured.size(), 2u);
  EXPECT_DOUBLE_EQ(e.measured[0].median_us, 10.25);
  EXPECT_DOUBLE_EQ(e.measured[0].noise_us, 0.25);
  EXPECT_DOUBLE_EQ(e.measured[1].median_us, 7.25);
  std::remove(path.c_str());
}

TEST(TuneFile, TodayIsADate) {
  const std::string d = today_utc();
  tuning::Metadata md = make_metadata(h200(), tuning::LaunchMode::kGraph, d, "");
  tuning::TuningDocument doc;
  doc.metadata = md;
  std::string text;
  EXPECT_TRUE(tuning::write_tuning_json(doc, &text).ok()) << d;  // the writer checks YYYY-MM-DD
}

tuning::Entry entry(int64_t n, int64_t m, const std::string& config, int split_k = 0) {
  tuning::Entry e;
  e.n = n, e.k = 4096, e.m = m;
  e.config = config;
  e.split_k = split_k;
  return e;
}

TEST(TuneFile, UpdateKeepsOtherKeysAndRefusesAnotherDevice) {
  tuning::TuningDocument base, update, merged;
  base.metadata = make_metadata(h200(), tuning::LaunchMode::kGraph, "2026-12-01", "");
  update.metadata = make_metadata(h200(), tuning::LaunchMode::kGraph, "2026-12-08", "");
  base.entries = {entry(4096, 16, "Old"), entry(4096, 32, "Kept"), entry(8192, 16, "Old")};
  update.entries = {entry(4096, 16, "New"), entry(8192, 16, "New", 2), entry(8192, 64, "Added")};
  ASSERT_TRUE(merge_documents(base, update, &merged).ok());
  ASSERT_EQ(merged.entries.size(), 4u);
  EXPECT_EQ(merged.entries[0].config, "Kept");
  EXPECT_EQ(merged.entries[1].config, "New");
  EXPECT_EQ(merged.entries[2].split_k, 2);
  EXPECT_EQ(merged.entries[3].config, "Added");
  EXPECT_EQ(merged.metadata.date, "2026-12-08");
  std::string text;
  EXPECT_TRUE(tuning::write_tuning_json(merged, &text).ok());  // no repeated key

  tuning::TuningDocument other = update;
  other.metadata.sm_count = 114;
  Status s = merge_documents(base, other, &merged);
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch);
  EXPECT_NE(s.message().find("132 SMs"), std::string::npos) << s.message();
  other = update;
  other.metadata.launch = tuning::LaunchMode::kStream;
  s = merge_documents(base, other, &merged);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("launch = graph"), std::string::npos) << s.message();
}

TEST(TuneFile, ResumeSkipsTheKeysTheFileHas) {
  tuning::TuningDocument doc;
  doc.entries = {entry(4096, 16, "A"), entry(4096, 112, "B"), entry(8192, 16, "C")};
  doc.entries[2].b_layout = BLayout::kRowMajorKxN;  // another target's key
  const std::vector<TuneShape> left = shapes_not_in(
      gemm_bf16_nk(), {{16, 4096, 4096}, {100, 4096, 4096}, {32, 4096, 4096}, {16, 8192, 4096}}, doc);
  ASSERT_EQ(left.size(), 2u);  // M = 100 is in the bucket <= 112 the file has
  EXPECT_EQ(left[0].m, 32);
  EXPECT_EQ(left[1].n, 8192);
}

TEST(TuneFile, CompareCountsDifferences) {
  tuning::TuningDocument a, b;
  a.metadata = make_metadata(h200(), tuning::LaunchMode::kGraph, "2026-12-01", "");
  b.metadata = make_metadata(h200(), tuning::LaunchMode::kGraph, "2026-12-08", "");
  a.entries = {entry(4096, 16, "X"), entry(4096, 32, "Y", 2), entry(4096, 64, "Z"),
               entry(4096, 128, "OnlyA")};
  b.entries = {entry(4096, 64, "Z"), entry(4096, 16, "X2"), entry(4096, 32, "Y", 4),
               entry(4096, 256, "OnlyB")};
  CompareResult r = compare_documents(a, b);
  EXPECT_EQ(r.common, 3);
  EXPECT_EQ(r.differ, 2);
  EXPECT_EQ(r.only_first, 1);
  EXPECT_EQ(r.only_second, 1);
  EXPECT_TRUE(any_line_has(
      r.lines, "differs: gemm bf16->bf16 B nk N=4096 K=4096 M bucket <= 32: Y split 2 | Y split 4"));
  EXPECT_TRUE(
      any_line_has(r.lines, "only in the second: gemm bf16->bf16 B nk N=4096 K=4096 M bucket <= 256: OnlyB"));
  r = compare_documents(a, a);
  EXPECT_EQ(r.common, 4);
  EXPECT_EQ(r.differ, 0);
  EXPECT_TRUE(r.lines.empty());

  // The same through files, as --compare reads them.
  const std::string pa = temp_path("cmp_a.json"), pb = temp_path("cmp_b.json");
  ASSERT_TRUE(tuning::write_tuning_file(pa, a).ok());
  ASSERT_TRUE(tuning::write_tuning_file(pb, b).ok());
  std::string report;
  ASSERT_TRUE(run_compare(pa, pb, &report).ok());
  EXPECT_EQ(report.substr(0, report.find('\n')),
            "3 entries in both, 2 differ; 1 only in the first, 1 only in the second");
  const Status missing = run_compare(pa, temp_path("no_such_file.json"), &report);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("cannot open"), std::string::npos) << missing.message();
  std::remove(pa.c_str());
  std::remove(pb.c_str());
}

// ---- the command line
// ------------------------------------------------------------------------------------------

Status parse(std::vector<const char*> args, CliOptions* o) {
  args.insert(args.begin(), "/usr/local/bin/bwgemm-tune");
  return parse_cli(static_cast<int>(args.size()), args.data(), o);
}

void expect_error(std::vector<const char*> args, const std::string& text) {
  CliOptions o;
  const Status s = parse(args, &o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

TEST(TuneCli, DefaultsAndShapes) {
  CliOptions o;
  ASSERT_TRUE(
      parse({"--op=gemm", "--shapes=16x4096x4096,100x4096x4096,112x4096x4096,1x8192x1024", "--output=t.json"},
            &o)
          .ok());
  EXPECT_EQ(o.mode, CliOptions::Mode::kTune);
  ASSERT_EQ(o.plans.size(), 1u);
  EXPECT_EQ(describe(o.plans[0].target), "gemm bf16->bf16 B nk");
  ASSERT_EQ(o.plans[0].shapes.size(), 3u);  // M = 100 and 112 share the bucket <= 112
  EXPECT_EQ(o.plans[0].shapes[0].m, 16);
  EXPECT_EQ(o.plans[0].shapes[1].m, 112);
  EXPECT_EQ(o.plans[0].shapes[2].n, 8192);
  EXPECT_TRUE(any_line_has(o.notes, "M=100 is measured at its M bucket's bound 112"));
  EXPECT_TRUE(any_line_has(o.notes, "M bucket <= 112 of N=4096 K=4096 is asked for more than once"));
  EXPECT_EQ(o.launch, tuning::LaunchMode::kGraph);
  EXPECT_EQ(o.rounds, 30);
  EXPECT_EQ(o.budget_seconds, 0);
  EXPECT_EQ(o.output, "t.json");
  EXPECT_EQ(o.command,
            "bwgemm-tune --op=gemm --shapes=16x4096x4096,100x4096x4096,112x4096x4096,1x8192x1024 "
            "--output=t.json");
}

TEST(TuneCli, TypesLayoutsModeAndNumbers) {
  CliOptions o;
  ASSERT_TRUE(parse({"--op=gemm", "--in_type=fp16", "--b_layout=both", "--shapes=64x4096x4096",
                     "--output=t.json", "--mode=stream", "--budget_s=600", "--rounds=11", "--min_gain=0.02",
                     "--min_sample_ms=2", "--warmup_ms=100", "--device=1", "--update"},
                    &o)
                  .ok());
  ASSERT_EQ(o.plans.size(), 2u);
  EXPECT_EQ(describe(o.plans[0].target), "gemm fp16->fp16 B nk");
  EXPECT_EQ(describe(o.plans[1].target), "gemm fp16->fp16 B kn");
  EXPECT_EQ(o.launch, tuning::LaunchMode::kStream);
  EXPECT_EQ(o.budget_seconds, 600);
  EXPECT_EQ(o.rounds, 11);
  EXPECT_DOUBLE_EQ(o.min_relative_gain, 0.02);
  EXPECT_EQ(o.min_sample_ms, 2);
  EXPECT_EQ(o.warmup_ms, 100);
  EXPECT_EQ(o.device, 1);
  EXPECT_TRUE(o.update);
  EXPECT_FALSE(o.resume);
  ASSERT_TRUE(parse({"--op=gemm", "--shapes=64x4096x4096", "--output=t.json", "--resume"}, &o).ok());
  EXPECT_TRUE(o.update);
  EXPECT_TRUE(o.resume);
  ASSERT_TRUE(parse({"--op=nvfp4_dual_gemm", "--shapes=256x4096x7168", "--output=t.json"}, &o).ok());
  EXPECT_EQ(describe(o.plans[0].target), "nvfp4_dual_gemm nvfp4->fp16 B nk");
}

TEST(TuneCli, MBucketsAndSweep) {
  CliOptions o;
  ASSERT_TRUE(
      parse({"--op=gemm", "--shapes=1x4096x4096,1x8192x4096", "--m=all", "--output=t.json"}, &o).ok());
  ASSERT_EQ(o.plans[0].shapes.size(), 2u * tuning::kBucketCount);
  EXPECT_EQ(o.plans[0].shapes[tuning::kBucketCount - 1].m, 16384);
  EXPECT_EQ(o.plans[0].shapes[tuning::kBucketCount].n, 8192);
  ASSERT_TRUE(parse({"--op=gemm", "--shapes=1x4096x4096", "--m=3,9,9,40000", "--output=t.json"}, &o).ok());
  ASSERT_EQ(o.plans[0].shapes.size(), 3u);  // 3, 10, 16384
  EXPECT_EQ(o.plans[0].shapes[1].m, 10);
  EXPECT_EQ(o.plans[0].shapes[2].m, 16384);
  EXPECT_TRUE(any_line_has(o.notes, "M=40000 is measured at its M bucket's bound 16384 (the last bucket"));
  // The model sweep: the dual GEMM's gate/up shapes, 3 models x 15 M; the GEMM's four projections.
  ASSERT_TRUE(parse({"--op=dual_gemm", "--sweep=models", "--output=t.json"}, &o).ok());
  EXPECT_EQ(o.plans[0].shapes.size(), 3u * 15);
  EXPECT_TRUE(o.notes.empty());  // every sweep M is a bucket bound
  ASSERT_TRUE(parse({"--op=gemm", "--sweep=models", "--output=t.json"}, &o).ok());
  EXPECT_EQ(o.plans[0].shapes.size(), 3u * 15 * 4);  // twelve distinct (N, K)
}

TEST(TuneCli, ShapesFromAFile) {
  const std::string path = temp_path("shapes.txt");
  {
    std::ofstream f(path);
    f << "# decode\n16 4096 4096\n32x4096x4096  # comment\n";
  }
  CliOptions o;
  const std::string flag = "--shapes=@" + path;
  ASSERT_TRUE(parse({"--op=gemm", flag.c_str(), "--output=t.json"}, &o).ok());
  ASSERT_EQ(o.plans[0].shapes.size(), 2u);
  EXPECT_EQ(o.plans[0].shapes[1].m, 32);
  std::remove(path.c_str());
}

TEST(TuneCli, Errors) {
  expect_error({"--shapes=16x64x64", "--output=t.json"}, "--op is required");
  expect_error({"--op=gem", "--shapes=16x64x64", "--output=t.json"},
               "--op: 'gem' is not an operation (gemm, dual_gemm, nvfp4_gemm, nvfp4_dual_gemm)");
  expect_error({"--op=gemm", "--in_type=int8", "--shapes=16x64x64", "--output=t.json"},
               "--in_type: 'int8' is not an element type");
  expect_error({"--op=gemm", "--out_type=fp32", "--shapes=16x64x64", "--output=t.json"},
               "gemm bf16->fp32 B nk: the tuner measures on the benchmark's problems");
  expect_error({"--op=nvfp4_gemm", "--b_layout=kn", "--shapes=16x64x64", "--output=t.json"},
               "nvfp4_gemm nvfp4->fp16 B kn: the tuner measures");
  expect_error({"--op=dual_gemm", "--in_type=fp16", "--shapes=16x64x64", "--output=t.json"},
               "dual_gemm fp16->fp16 B nk");
  expect_error({"--op=gemm", "--b_layout=km", "--shapes=16x64x64", "--output=t.json"}, "--b_layout must be");
  expect_error({"--op=gemm", "--shapes=4096x4096", "--output=t.json"},
               "--shapes: a shape is MxNxK with positive integers (or 'M N K' in a file), got '4096x4096'");
  expect_error({"--op=gemm", "--shapes=16x0x64", "--output=t.json"}, "--shapes: a shape is MxNxK");
  expect_error({"--op=gemm", "--shapes=@/nonexistent/shapes.txt", "--output=t.json"},
               "--shapes: cannot read the shapes file '/nonexistent/shapes.txt'");
  expect_error({"--op=gemm", "--output=t.json"}, "no shapes");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--sweep=models", "--output=t.json"}, "not both");
  expect_error({"--op=gemm", "--sweep=tokens", "--output=t.json"}, "--sweep takes 'models'");
  expect_error({"--op=gemm", "--shapes=16x64x64"}, "--output=FILE is required");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--mode=eager"},
               "--mode must be graph or stream");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--budget_s=-1"}, "--budget_s must be");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--rounds=1"},
               "--rounds must be an integer 2");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--rounds=ten"}, "--rounds must be");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--min_gain=2"}, "--min_gain must be");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--m=0"}, "--m must be");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--m=16,"}, "--m must be");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "--frobnicate"},
               "unknown flag '--frobnicate'");
  expect_error({"--op=gemm", "--shapes=16x64x64", "--output=t.json", "extra"}, "unexpected argument 'extra'");
}

TEST(TuneCli, CompareAndHelp) {
  CliOptions o;
  ASSERT_TRUE(parse({"--compare=a.json", "b.json"}, &o).ok());
  EXPECT_EQ(o.mode, CliOptions::Mode::kCompare);
  EXPECT_EQ(o.compare_first, "a.json");
  EXPECT_EQ(o.compare_second, "b.json");
  expect_error({"--compare=a.json"}, "--compare takes two tuning files");
  expect_error({"--compare=a.json", "b.json", "c.json"}, "--compare takes two tuning files");
  expect_error({"--compare=a.json", "b.json", "--op=gemm"}, "--compare takes no other flag");
  ASSERT_TRUE(parse({"--op=gemm", "--help"}, &o).ok());
  EXPECT_EQ(o.mode, CliOptions::Mode::kHelp);
  const std::string text = usage();
  for (const char* flag :
       {"--op=", "--shapes=", "--sweep=models", "--m=", "--output=", "--update", "--resume",
        "--mode=", "--budget_s=", "--rounds=", "--min_gain=", "--compare=", "BWGEMM_TUNING_FILE"})
    EXPECT_NE(text.find(flag), std::string::npos) << flag;
}

}  // namespace
