// bwgemm-tune's core (tune.hpp): host C++17, no CUDA.
#include "tune.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace bwgemm::bench::tune {

namespace {

std::string format(const char* fmt, double v) {
  char text[64];
  std::snprintf(text, sizeof(text), fmt, v);
  return text;
}

std::string seconds_text(double s) {
  if (s < 120) return format("%.1f s", s);
  if (s < 7200) return format("%.1f min", s / 60);
  return format("%.1f h", s / 3600);
}

bool same_choice(const std::string& name, int split_k, tuning::StreamK stream_k, const std::string& name2,
                 int split_k2, tuning::StreamK stream_k2) {
  return name == name2 && split_k == split_k2 && stream_k == stream_k2;
}

// Linear interpolation between the order statistics of sorted `v` at fraction p.
double quantile(const std::vector<double>& v, double p) {
  const double pos = p * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double w = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * w;
}

// Why `c` cannot be a table entry's candidate; empty when it can.
std::string malformed(const TuneCandidate& c) {
  if (c.name.empty() || c.name.size() > tuning::kMaxNameLength)
    return "a candidate's name must be 1 .. " + std::to_string(tuning::kMaxNameLength) + " characters";
  if (c.split_k < 0 || c.split_k > tuning::kMaxSplitK)
    return describe(c) + ": split_k must be 0 .. " + std::to_string(tuning::kMaxSplitK);
  if (!c.run) return describe(c) + ": no run function";
  return {};
}

using KeyTuple = std::tuple<tuning::Operation, tuning::Element, tuning::Element, BLayout, int64_t, int64_t,
                            int64_t, int64_t>;
KeyTuple key_of(const tuning::Entry& e) {
  return {e.op, e.in, e.out, e.b_layout, e.n, e.k, e.batch, e.m};
}
std::string describe_key(const tuning::Entry& e) {
  return std::string(to_string(e.op)) + " " + to_string(e.in) + "->" + to_string(e.out) + " B " +
         tuning::layout_name(e.b_layout) + " N=" + std::to_string(e.n) + " K=" + std::to_string(e.k) +
         (e.batch != 1 ? " batch=" + std::to_string(e.batch) : std::string()) +
         " M bucket <= " + std::to_string(e.m);
}

}  // namespace

// ---- names
// --------------------------------------------------------------------------------------------------

std::string describe(const TuneTarget& t) {
  return std::string(to_string(t.op)) + " " + to_string(t.in) + "->" + to_string(t.out) + " B " +
         tuning::layout_name(t.b_layout);
}

std::string describe(const TuneTarget& t, const TuneShape& s) {
  return describe(t) + " M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) +
         " K=" + std::to_string(s.k);
}

std::string describe(const std::string& name, int split_k, tuning::StreamK stream_k) {
  std::string s = name;
  if (split_k != 0) s += " split " + std::to_string(split_k);
  if (stream_k == tuning::StreamK::kOn) s += " stream-K";
  if (stream_k == tuning::StreamK::kOff) s += " no stream-K";
  return s;
}
std::string describe(const TuneCandidate& c) {
  return describe(c.name, c.split_k, c.stream_k);
}
std::string describe(const TuneChoice& c) {
  return describe(c.name, c.split_k, c.stream_k);
}

// ---- sources
// ------------------------------------------------------------------------------------------------

std::vector<TuneCandidate> ListSource::candidates(const TuneShape& shape) const {
  std::vector<TuneCandidate> out;
  for (const TuneCandidate& c : list_)
    if (!supports_ || supports_(c, shape)) out.push_back(c);
  return out;
}

std::vector<TuneCandidate> with_splits(const std::vector<TuneCandidate>& list,
                                       const std::vector<int>& splits) {
  std::vector<TuneCandidate> out;
  for (const TuneCandidate& c : list) {
    out.push_back(c);
    for (int s : splits) {
      if (s == c.split_k) continue;
      TuneCandidate split = c;
      split.split_k = s;
      out.push_back(std::move(split));
    }
  }
  return out;
}

int builtin_index(const std::vector<TuneCandidate>& candidates, const TuneChoice& builtin) {
  for (size_t i = 0; i < candidates.size(); ++i)
    if (same_choice(candidates[i].name, candidates[i].split_k, candidates[i].stream_k, builtin.name,
                    builtin.split_k, builtin.stream_k))
      return static_cast<int>(i);
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].name == builtin.name && candidates[i].split_k == 0 &&
        candidates[i].stream_k == tuning::StreamK::kUnspecified)
      return static_cast<int>(i);
  return -1;
}

std::unique_ptr<CandidateSource> find_source(const std::vector<SourceRegistration>& registrations,
                                             const TuneTarget& target, int cc_major, int cc_minor,
                                             std::string* why) {
  std::string here;
  for (const SourceRegistration& r : registrations) {
    if (r.cc_major != cc_major || r.cc_minor != cc_minor) continue;
    here += (here.empty() ? "" : ", ") + r.name + " (" + to_string(r.op) + ")";
    if (r.op != target.op || !r.make) continue;
    if (std::unique_ptr<CandidateSource> source = r.make(target)) return source;
  }
  const std::string cc = std::to_string(cc_major) + "." + std::to_string(cc_minor);
  if (registrations.empty())
    *why = "this build has no candidate sources (bench/tune_sources.cpp lists them): nothing to tune";
  else if (here.empty())
    *why = "no candidate source for compute capability " + cc + " in this build";
  else
    *why = "no candidate source for " + describe(target) + " on compute capability " + cc +
           " (there are: " + here + ")";
  return nullptr;
}

// ---- statistics
// ---------------------------------------------------------------------------------------------

SampleStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  for (double v : samples)
    if (!std::isfinite(v) || v <= 0)
      throw std::invalid_argument("summarize: a sample is not positive and finite");
  std::sort(samples.begin(), samples.end());
  SampleStats s;
  s.count = static_cast<int>(samples.size());
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  s.noise = (s.q3 - s.q1) / 2;
  return s;
}

// ---- one shape
// ----------------------------------------------------------------------------------------------

namespace {

using Progress = std::function<void(const std::string&)>;

ShapeResult tune_shape(const TuneTarget& target, const TuneShape& shape, const CandidateSource& source,
                       Measurer& measurer, int rounds, double min_relative_gain, const Progress& progress) {
  ShapeResult r;
  r.shape = shape;
  const std::string what = describe(target, shape);
  auto fail = [&](std::string message) {
    r.outcome = ShapeOutcome::kFailed;
    r.message = std::move(message);
    progress("bwgemm-tune:   " + what + ": not tuned: " + r.message);
    return r;
  };
  try {
    std::vector<TuneCandidate> offered = source.candidates(shape);
    if (offered.empty()) {
      r.outcome = ShapeOutcome::kNoCandidate;
      r.message = "no candidate runs this shape";
      progress("bwgemm-tune:   " + what + ": skipped: " + r.message);
      return r;
    }
    // Malformed and repeated candidates out, reported.
    std::vector<TuneCandidate> candidates;
    for (TuneCandidate& c : offered) {
      std::string why = malformed(c);
      for (const TuneCandidate& kept : candidates)
        if (why.empty() && same_choice(kept.name, kept.split_k, kept.stream_k, c.name, c.split_k, c.stream_k))
          why = describe(c) + " is listed twice";
      if (!why.empty()) {
        progress("bwgemm-tune:   " + what + ": candidate ignored: " + why);
        continue;
      }
      candidates.push_back(std::move(c));
    }
    const TuneChoice builtin = source.builtin(shape);
    r.builtin = builtin_index(candidates, builtin);
    for (const TuneCandidate& c : candidates) {
      CandidateResult cr;
      cr.name = c.name, cr.split_k = c.split_k, cr.stream_k = c.stream_k;
      r.candidates.push_back(std::move(cr));
    }
    if (r.builtin < 0)
      return fail("the built-in choice " + describe(builtin) + " is not among the " +
                  std::to_string(candidates.size()) + " candidates");

    std::unique_ptr<ShapeMeasurement> m;
    if (Status s = measurer.open(target, shape, &m); !s.ok())
      return fail("cannot set up the problem: " + s.message());
    if (!m) return fail("cannot set up the problem");

    // Validate each before any timing: a wrong result must not become a table entry.
    std::vector<int> valid;
    for (size_t i = 0; i < candidates.size(); ++i) {
      CheckOutcome check;
      try {
        check = m->validate(candidates[i]);
      } catch (const std::exception& e) {
        check = {false, e.what()};
      }
      CandidateResult& cr = r.candidates[i];
      cr.valid = check.ok;
      if (check.ok) {
        valid.push_back(static_cast<int>(i));
      } else {
        cr.message = check.message.empty() ? "failed validation" : check.message;
        progress("bwgemm-tune:   " + what + ": dropped " + describe(candidates[i]) +
                 (static_cast<int>(i) == r.builtin ? " (the built-in choice)" : "") + ": " + cr.message);
      }
    }
    if (valid.empty()) return fail("no candidate passed validation");

    std::vector<const TuneCandidate*> timed;
    for (int i : valid) timed.push_back(&candidates[static_cast<size_t>(i)]);
    std::vector<std::vector<double>> us;
    Status s;
    try {
      s = m->time(timed, rounds, &us);
    } catch (const std::exception& e) {
      s = Status::internal_error(e.what());
    }
    if (!s.ok()) return fail("timing failed: " + s.message());
    if (us.size() != timed.size())
      return fail("timing returned " + std::to_string(us.size()) + " candidates' samples for " +
                  std::to_string(timed.size()));

    std::vector<tuning::Timing> timings;
    int builtin_timed = -1;
    for (size_t j = 0; j < valid.size(); ++j) {
      CandidateResult& cr = r.candidates[static_cast<size_t>(valid[j])];
      try {
        cr.stats = summarize(us[j]);
      } catch (const std::exception& e) {
        return fail(describe(*timed[j]) + ": " + e.what());
      }
      timings.push_back({cr.stats.median, cr.stats.noise});
      if (valid[j] == r.builtin) builtin_timed = static_cast<int>(j);
    }
    const tuning::Selection sel = tuning::select_candidate(timings, builtin_timed, min_relative_gain);
    if (sel.index < 0) return fail("no candidate has a usable time");
    r.winner = valid[static_cast<size_t>(sel.index)];
    r.kept_builtin = sel.kept_builtin;
    if (builtin_timed < 0)
      r.message = "the built-in choice failed validation; the fastest valid candidate chosen";
    r.outcome = ShapeOutcome::kTuned;
    return r;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace

int TuneResult::failed() const {
  int n = 0;
  for (const ShapeResult& s : shapes) n += s.outcome == ShapeOutcome::kFailed;
  return n;
}

TuneResult tune(const TuneTarget& target, const std::vector<TuneShape>& shapes, const CandidateSource& source,
                Measurer& measurer, const TuneOptions& options) {
  const std::function<double()> clock = options.clock ? options.clock : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  const Progress progress = options.progress ? options.progress : [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  };
  const int rounds = std::max(2, (options.rounds + 1) / 2 * 2);

  TuneResult result;
  result.target = target;
  result.planned = static_cast<int>(shapes.size());
  const double start = clock();
  const int n = result.planned;
  const auto work = [](const TuneShape& s) {  // a shape's multiply-adds, for the next shape's time estimate
    return static_cast<double>(std::max<int64_t>(s.m, 1)) * static_cast<double>(s.n) *
           static_cast<double>(s.k);
  };
  for (int i = 0; i < n; ++i) {
    const double elapsed = clock() - start;
    // The next shape is expected to take the average so far, or the last shape's time scaled by the two
    // shapes' work where that is more (a sweep's M doubles from shape to shape: its last shapes take
    // longest).
    double per_shape = i > 0 ? elapsed / i : 0;
    if (i > 0) {
      const ShapeResult& last = result.shapes.back();
      const double ratio = work(shapes[static_cast<size_t>(i)]) / std::max(work(last.shape), 1.0);
      per_shape = std::max(per_shape, last.seconds * ratio);
    }
    if (options.stop_requested && options.stop_requested()) {
      result.stopped_early = true;
      result.stop_reason = "stopped on request";
    } else if (options.budget_seconds > 0 && elapsed >= options.budget_seconds) {
      result.stopped_early = true;
      result.stop_reason = "the time budget (" + seconds_text(options.budget_seconds) + ") is used up";
    } else if (options.budget_seconds > 0 && i > 0 && elapsed + per_shape > options.budget_seconds) {
      result.stopped_early = true;
      result.stop_reason = "the next shape would end past the time budget (" +
                           seconds_text(options.budget_seconds) + "; a shape takes about " +
                           seconds_text(per_shape) + ")";
    }
    if (result.stopped_early) {
      progress("bwgemm-tune: " + result.stop_reason + ": stopping after " + std::to_string(i) + " of " +
               std::to_string(n) + " shapes");
      break;
    }
    std::string line = "bwgemm-tune: shape " + std::to_string(i + 1) + " of " + std::to_string(n) + " (" +
                       describe(target, shapes[static_cast<size_t>(i)]) + "): " + seconds_text(elapsed) +
                       " elapsed";
    if (i > 0) {
      line += ", about " + seconds_text(per_shape * (n - i)) + " remaining";
      if (options.budget_seconds > 0 && elapsed + per_shape * (n - i) > options.budget_seconds)
        line += " (the budget ends in " + seconds_text(options.budget_seconds - elapsed) + ")";
    }
    progress(line);
    const double t0 = clock();
    ShapeResult r = tune_shape(target, shapes[static_cast<size_t>(i)], source, measurer, rounds,
                               options.min_relative_gain, progress);
    r.seconds = clock() - t0;
    if (r.outcome == ShapeOutcome::kTuned) result.entries.push_back(make_entry(target, r));
    result.shapes.push_back(std::move(r));
    if (options.after_shape) options.after_shape(result);
  }
  return result;
}

tuning::Entry make_entry(const TuneTarget& target, const ShapeResult& shape) {
  tuning::Entry e;
  e.op = target.op;
  e.in = target.in;
  e.out = target.out;
  e.b_layout = target.b_layout;
  e.n = shape.shape.n;
  e.k = shape.shape.k;
  e.batch = 1;
  e.m = tuning::bucket_bound(tuning::m_bucket(std::max<int64_t>(shape.shape.m, 1)));
  if (shape.winner >= 0) {
    const CandidateResult& w = shape.candidates[static_cast<size_t>(shape.winner)];
    e.config = w.name;
    e.split_k = w.split_k;
    e.stream_k = w.stream_k;
  }
  if (shape.builtin >= 0) e.rules_config = shape.candidates[static_cast<size_t>(shape.builtin)].name;
  // Every timed candidate's time; past kMaxMeasured, the winner, the built-in choice and the fastest others.
  std::vector<size_t> timed;
  for (size_t i = 0; i < shape.candidates.size(); ++i)
    if (shape.candidates[i].valid && shape.candidates[i].stats.count > 0) timed.push_back(i);
  if (timed.size() > tuning::kMaxMeasured) {
    std::stable_sort(timed.begin(), timed.end(), [&](size_t a, size_t b) {
      const auto rank = [&](size_t i) {
        return static_cast<int>(i) == shape.winner || static_cast<int>(i) == shape.builtin ? 0 : 1;
      };
      return std::make_pair(rank(a), shape.candidates[a].stats.median) <
             std::make_pair(rank(b), shape.candidates[b].stats.median);
    });
    timed.resize(tuning::kMaxMeasured);
    std::sort(timed.begin(), timed.end());
  }
  for (size_t i : timed) {
    const CandidateResult& c = shape.candidates[i];
    tuning::Measurement m;
    m.config = c.name;
    m.split_k = c.split_k;
    m.stream_k = c.stream_k;
    m.median_us = c.stats.median;
    m.noise_us = c.stats.noise;
    e.measured.push_back(std::move(m));
  }
  return e;
}

std::string summary_line(const TuneTarget& target, const ShapeResult& r) {
  const std::string what = describe(target, r.shape) + ": ";
  if (r.outcome == ShapeOutcome::kNoCandidate) return what + "skipped: " + r.message;
  if (r.outcome == ShapeOutcome::kFailed) return what + "not tuned: " + r.message;
  const auto timed = [&](int i) {
    const CandidateResult& c = r.candidates[static_cast<size_t>(i)];
    return describe(c.name, c.split_k, c.stream_k) + " " + format("%.2f us", c.stats.median) +
           format(" (noise %.1f%%)", 100 * c.stats.relative_noise());
  };
  const CandidateResult& w = r.candidates[static_cast<size_t>(r.winner)];
  const bool builtin_timed = r.builtin >= 0 && r.candidates[static_cast<size_t>(r.builtin)].valid;
  if (!builtin_timed) return what + "built-in failed validation; chose " + timed(r.winner);
  const CandidateResult& b = r.candidates[static_cast<size_t>(r.builtin)];
  if (r.kept_builtin) {
    // The fastest other candidate, to show what the noise hid.
    int best = -1;
    for (size_t i = 0; i < r.candidates.size(); ++i)
      if (static_cast<int>(i) != r.builtin && r.candidates[i].valid &&
          (best < 0 || r.candidates[i].stats.median < r.candidates[static_cast<size_t>(best)].stats.median))
        best = static_cast<int>(i);
    std::string line = what + "built-in " + timed(r.builtin) + " kept";
    if (best >= 0) {
      line += "; fastest other " + timed(best);
      if (r.candidates[static_cast<size_t>(best)].stats.median < b.stats.median) line += ", within the noise";
    }
    return line;
  }
  return what + "built-in " + timed(r.builtin) + "; winner " + timed(r.winner) +
         format(": %.3fx", b.stats.median / w.stats.median);
}

// ---- files
// --------------------------------------------------------------------------------------------------

tuning::Metadata make_metadata(const tuning::DeviceDescription& device, tuning::LaunchMode launch,
                               const std::string& date, const std::string& command) {
  tuning::Metadata md;
  md.gpu = device.name;
  md.sm_count = device.sm_count;
  md.cc_major = device.cc_major;
  md.cc_minor = device.cc_minor;
  md.cuda_runtime = device.cuda_runtime;
  md.cuda_driver = device.cuda_driver;
  md.bwgemm_version = std::to_string(BWGEMM_VERSION_MAJOR) + "." + std::to_string(BWGEMM_VERSION_MINOR) +
                      "." + std::to_string(BWGEMM_VERSION_PATCH);
  md.launch = launch;
  md.l2 = tuning::L2Mode::kCold;
  md.date = date;
  md.command = command.substr(0, tuning::kMaxCommandLength);
  return md;
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", &tm);
  return text;
}

Status merge_documents(const tuning::TuningDocument& base, const tuning::TuningDocument& update,
                       tuning::TuningDocument* out) {
  const tuning::Metadata &a = base.metadata, &b = update.metadata;
  const std::string cc_a = std::to_string(a.cc_major) + "." + std::to_string(a.cc_minor);
  const std::string cc_b = std::to_string(b.cc_major) + "." + std::to_string(b.cc_minor);
  if (a.gpu != b.gpu || a.sm_count != b.sm_count || cc_a != cc_b)
    return Status::device_mismatch("the file was measured on '" + a.gpu + "' (" + std::to_string(a.sm_count) +
                                   " SMs, compute capability " + cc_a + "), this device is '" + b.gpu +
                                   "' (" + std::to_string(b.sm_count) + " SMs, " + cc_b + ")");
  if (a.launch != b.launch || a.l2 != b.l2)
    return Status::invalid_argument(std::string("the file was measured with launch = ") +
                                    tuning::kLaunchModeNames[static_cast<int>(a.launch)] + ", l2 = " +
                                    tuning::kL2ModeNames[static_cast<int>(a.l2)] + "; this run measures " +
                                    tuning::kLaunchModeNames[static_cast<int>(b.launch)] + ", " +
                                    tuning::kL2ModeNames[static_cast<int>(b.l2)]);
  std::map<KeyTuple, int> updated;
  for (const tuning::Entry& e : update.entries) updated[key_of(e)] = 1;
  tuning::TuningDocument merged;
  merged.format_version = update.format_version;
  merged.metadata = update.metadata;
  for (const tuning::Entry& e : base.entries)
    if (updated.find(key_of(e)) == updated.end()) merged.entries.push_back(e);
  for (const tuning::Entry& e : update.entries) merged.entries.push_back(e);
  *out = std::move(merged);
  return Status::success();
}

std::vector<TuneShape> shapes_not_in(const TuneTarget& target, const std::vector<TuneShape>& shapes,
                                     const tuning::TuningDocument& doc) {
  std::map<KeyTuple, int> have;
  for (const tuning::Entry& e : doc.entries) have[key_of(e)] = 1;
  std::vector<TuneShape> out;
  for (const TuneShape& s : shapes) {
    ShapeResult r;
    r.shape = s;
    if (have.find(key_of(make_entry(target, r))) == have.end()) out.push_back(s);
  }
  return out;
}

Status make_document(const tuning::Metadata& metadata, const std::vector<TuneResult>& results,
                     const tuning::TuningDocument* base, tuning::TuningDocument* out) {
  tuning::TuningDocument doc;
  doc.metadata = metadata;
  for (const TuneResult& r : results)
    doc.entries.insert(doc.entries.end(), r.entries.begin(), r.entries.end());
  if (base == nullptr) {
    *out = std::move(doc);
    return Status::success();
  }
  return merge_documents(*base, doc, out);
}

CompareResult compare_documents(const tuning::TuningDocument& first, const tuning::TuningDocument& second) {
  CompareResult r;
  std::map<KeyTuple, const tuning::Entry*> in_second;
  for (const tuning::Entry& e : second.entries) in_second[key_of(e)] = &e;
  std::map<KeyTuple, int> seen;
  for (const tuning::Entry& e : first.entries) {
    const auto it = in_second.find(key_of(e));
    if (it == in_second.end()) {
      ++r.only_first;
      r.lines.push_back("only in the first: " + describe_key(e) + ": " +
                        describe(e.config, e.split_k, e.stream_k));
      continue;
    }
    seen[key_of(e)] = 1;
    ++r.common;
    const tuning::Entry& o = *it->second;
    if (!same_choice(e.config, e.split_k, e.stream_k, o.config, o.split_k, o.stream_k)) {
      ++r.differ;
      r.lines.push_back("differs: " + describe_key(e) + ": " + describe(e.config, e.split_k, e.stream_k) +
                        " | " + describe(o.config, o.split_k, o.stream_k));
    }
  }
  for (const tuning::Entry& e : second.entries)
    if (seen.find(key_of(e)) == seen.end()) {
      ++r.only_second;
      r.lines.push_back("only in the second: " + describe_key(e) + ": " +
                        describe(e.config, e.split_k, e.stream_k));
    }
  const tuning::Metadata &a = first.metadata, &b = second.metadata;
  if (a.gpu != b.gpu) r.lines.push_back("metadata: gpu '" + a.gpu + "' | '" + b.gpu + "'");
  if (a.sm_count != b.sm_count)
    r.lines.push_back("metadata: sm_count " + std::to_string(a.sm_count) + " | " +
                      std::to_string(b.sm_count));
  if (a.cc_major != b.cc_major || a.cc_minor != b.cc_minor)
    r.lines.push_back("metadata: compute_capability " + std::to_string(a.cc_major) + "." +
                      std::to_string(a.cc_minor) + " | " + std::to_string(b.cc_major) + "." +
                      std::to_string(b.cc_minor));
  if (a.launch != b.launch)
    r.lines.push_back(std::string("metadata: launch ") +
                      tuning::kLaunchModeNames[static_cast<int>(a.launch)] + " | " +
                      tuning::kLaunchModeNames[static_cast<int>(b.launch)]);
  return r;
}

}  // namespace bwgemm::bench::tune
