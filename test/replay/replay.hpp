// The replay of the H200 candidate recordings through a kernel choice (docs/performance.md, "The default
// choice against the recordings"): the dataset test/replay/data/h200_recordings.json
// (tools/tuning_recordings.py dataset) read back, the plan the built-in rules (sm90/choice.hpp) and the
// generated built-in table (tuning/builtin_h200.hpp) take for each recorded shape, and the figures:
// coverage, geomean loss and the worst loss beyond the recording's noise. tools/tuning_recordings.py replay
// computes the same figures from the same plans. Host C++17.
#pragma once

#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/tuning/builtin_h200.hpp"
#include "bwgemm/tuning/key.hpp"

namespace bwgemm::replay {

// A plan as the dataset and the tables spell it.
struct Plan {
  std::string config;
  int split_k = 1;
  bool stream_k = false;
  bool operator==(const Plan& o) const {
    return config == o.config && split_k == o.split_k && stream_k == o.stream_k;
  }
};

struct Candidate {
  Plan plan;
  double time = 1;   // relative to the fastest recorded candidate of the shape
  double noise = 0;  // relative
};

struct Record {
  std::string file;
  tuning::Operation op = tuning::Operation::kGemm;
  tuning::Element in = tuning::Element::kBf16, out = tuning::Element::kBf16;
  BLayout b_layout = BLayout::kColumnMajorKxN;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool has_workspace = false;
  std::vector<Candidate> candidates;

  const Candidate* find(const Plan& p) const {
    for (const Candidate& c : candidates)
      if (c.plan == p) return &c;
    return nullptr;
  }
  const Candidate& best() const {
    const Candidate* b = &candidates.front();
    for (const Candidate& c : candidates)
      if (c.time < b->time) b = &c;
    return *b;
  }
};

inline std::vector<Record> load_records(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<Record> records;
  for (const auto& j : doc.at("records")) {
    Record r;
    r.file = j.at("file").get<std::string>();
    if (!tuning::parse_operation(j.at("op").get<std::string>(), &r.op) ||
        !tuning::parse_element(j.at("in").get<std::string>(), &r.in) ||
        !tuning::parse_element(j.at("out").get<std::string>(), &r.out) ||
        !tuning::parse_layout(j.at("layout").get<std::string>(), &r.b_layout))
      throw std::runtime_error(path + ": a record of unknown operation, type or layout");
    r.m = j.at("m"), r.n = j.at("n"), r.k = j.at("k"), r.batch = j.at("batch");
    r.has_workspace = j.at("has_workspace");
    for (const auto& c : j.at("candidates")) {
      Candidate cand;
      cand.plan = {c.at("config").get<std::string>(), c.at("split_k").get<int>(),
                   c.at("stream_k").get<bool>()};
      cand.time = c.at("time"), cand.noise = c.at("noise");
      r.candidates.push_back(std::move(cand));
    }
    if (r.candidates.size() < 2) throw std::runtime_error(path + ": a record of fewer than two candidates");
    records.push_back(std::move(r));
  }
  return records;
}

// The built-in rules' plan for a record (sm90::gemm_plan / dual_gemm_plan with an H200's facts).
inline Plan rules_plan(const Record& r) {
  const sm90::DeviceFacts facts = sm90::h200_device_facts();
  if (r.op == tuning::Operation::kGemm) {
    const sm90::GemmPlan p = sm90::gemm_plan(r.m, r.n, r.k, r.batch, r.b_layout, r.has_workspace, facts);
    return {sm90::gemm_choice_name(p.choice), p.split_k, p.stream_k};
  }
  const sm90::DualGemmPlan p = sm90::dual_gemm_plan(r.m, r.n, r.k, r.batch, r.has_workspace, facts);
  return {sm90::dual_gemm_choice_name(p.choice), p.split_k, p.stream_k};
}

// The generated table's entry for a record's key (M by its bucket), or nullptr.
inline const tuning::BuiltinEntry* table_entry(const Record& r) {
  for (size_t i = 0; i < tuning::kBuiltinH200EntryCount; ++i) {
    const tuning::BuiltinEntry& e = tuning::kBuiltinH200Entries[i];
    if (e.op == r.op && e.in == r.in && e.out == r.out && e.b_layout == r.b_layout && e.n == r.n &&
        e.k == r.k && e.batch == r.batch && tuning::m_bucket(e.m) == tuning::m_bucket(r.m))
      return &e;
  }
  return nullptr;
}

// The plan with the table: its entry where it has one (the generator writes every field), else the rules'.
inline Plan table_plan(const Record& r, const Plan& rules) {
  const tuning::BuiltinEntry* e = table_entry(r);
  if (e == nullptr) return rules;
  return {e->config, e->split_k, e->stream_k == tuning::StreamK::kOn};
}

struct Figures {
  int records = 0;
  int covered = 0;          // shapes whose chosen plan was recorded
  double geomean_loss = 0;  // over the covered shapes: geomean(chosen time / best time) - 1
  double worst_beyond = 0;  // max over covered shapes of (chosen / best - 1 - noise), at least 0
  const Record* worst = nullptr;
};

// The noise of a comparison: the larger of the two candidates' own.
inline Figures evaluate(const std::vector<Record>& records, const std::vector<Plan>& plans) {
  Figures f;
  f.records = static_cast<int>(records.size());
  double log_sum = 0, worst = -1;
  for (size_t i = 0; i < records.size(); ++i) {
    const Candidate* c = records[i].find(plans[i]);
    if (c == nullptr) continue;
    ++f.covered;
    log_sum += std::log(c->time);
    const Candidate& best = records[i].best();
    const double beyond = c->time - 1.0 - std::max(c->noise, best.noise);
    if (beyond > worst) worst = beyond, f.worst = &records[i];
  }
  f.geomean_loss = f.covered > 0 ? std::exp(log_sum / f.covered) - 1.0 : 0.0;
  f.worst_beyond = std::max(worst, 0.0);
  return f;
}

inline std::string describe(const Figures& f) {
  char buf[400];
  std::string where;
  if (f.worst != nullptr) {
    const Record& r = *f.worst;
    where = " (" + std::string(tuning::to_string(r.op)) + " " + tuning::to_string(r.in) + " B " +
            tuning::layout_name(r.b_layout) + " " + std::to_string(r.m) + " x " + std::to_string(r.n) +
            " x " + std::to_string(r.k) + ", " + r.file + ")";
  }
  std::snprintf(buf, sizeof buf,
                "%d of %d shapes covered, geomean loss %.2f%%, worst loss beyond noise %.2f%%", f.covered,
                f.records, 100 * f.geomean_loss, 100 * f.worst_beyond);
  return buf + where;
}

}  // namespace bwgemm::replay
