// bwgemm-tune's core (docs/tuning.md, "Tuning on your GPU"): for each shape, the candidates the default entry
// point can choose on this device are checked against the host reference, timed in interleaved rounds, and
// the built-in choice is replaced only by a candidate faster beyond the measured noise
// (tuning::select_candidate). The result is a tuning file's document (tuning/table.hpp).
//
// The core is host C++17 and knows neither CUDA nor where the candidates come from:
//   - a CandidateSource lists a shape's candidates (TuneCandidate: a Config's stable name, optionally a split
//     of K or stream-K, and a RunFunction that makes one call) and names the built-in choice; ListSource
//     builds one from a list of (name, run function) and the entry point's rules;
//   - a Measurer checks and times them: bench/tune_gpu.cpp's on the GPU (the benchmark's problems, rotation
//     and interleaved rounds), a fake one in the tests, which feeds numbers.
// Both are parameters of tune(), as is the clock the time budget reads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/tuning/key.hpp"
#include "bwgemm/tuning/select.hpp"
#include "bwgemm/tuning/table.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st* (cuda_runtime_api.h); no CUDA header needed here

namespace bwgemm::bench::tune {

// ---- what is tuned ---------------------------------------------------------------------------------------

// An operation with its element types and B's layout: one group of a tuning file's keys.
struct TuneTarget {
  tuning::Operation op = tuning::Operation::kGemm;
  tuning::Element in = tuning::Element::kBf16;
  tuning::Element out = tuning::Element::kBf16;
  BLayout b_layout = BLayout::kColumnMajorKxN;
};

// One shape of a target (batch 1): M is the representative of its M bucket (the bucket's upper bound).
struct TuneShape {
  int64_t m = 0, n = 0, k = 0;
};

// "gemm bf16->bf16 B nk"; "gemm bf16->bf16 B nk M=16 N=4096 K=4096".
std::string describe(const TuneTarget& target);
std::string describe(const TuneTarget& target, const TuneShape& shape);

// ---- candidates
// --------------------------------------------------------------------------------------------

// One call of a candidate on one operand set, in the operation's terms: what a RunFunction turns into the
// operation's Arguments (bench/tune_arguments.hpp does, per operation) and runs on `stream`. Row-major
// operands with the default strides (A M x K; B K x N or N x K as b_layout says; the output M x N); the
// pointers are device memory of the target's element types; NVFP4 operands are packed e2m1 data with their
// blocked e4m3 scales. The dual GEMMs' B1 is `b`, B2 `b2`.
struct TuneCall {
  int64_t m = 0, n = 0, k = 0;
  BLayout b_layout = BLayout::kColumnMajorKxN;
  const void* a = nullptr;
  const void* a_scales = nullptr;  // NVFP4 only
  const void* b = nullptr;
  const void* b_scales = nullptr;  // NVFP4 only
  const void* b2 = nullptr;        // dual GEMMs only
  const void* b2_scales = nullptr;
  void* out = nullptr;        // D (GEMMs) or C (dual GEMMs)
  void* workspace = nullptr;  // zero-filled scratch for the kernels that take one (sm_90a stream-K)
  int64_t workspace_bytes = 0;
  int split_k = 0;                                           // the candidate's (TuneCandidate::split_k)
  tuning::StreamK stream_k = tuning::StreamK::kUnspecified;  // the candidate's
  CUstream_st* stream = nullptr;
};

// Makes one call; must not synchronize or allocate (it may be captured into a CUDA graph). A failed Status
// fails the candidate (dropped at validation, reported).
using RunFunction = std::function<Status(const TuneCall&)>;

// A candidate as a table entry records it: the Config's stable name (from the operation's candidate list on
// this architecture, tuning::Candidates), optionally a split of K (1 .. 64; 0: the rules choose the split)
// and stream-K; and how to run it.
struct TuneCandidate {
  std::string name;
  int split_k = 0;
  tuning::StreamK stream_k = tuning::StreamK::kUnspecified;
  RunFunction run;
};

// The built-in choice for a shape, as the entry point's rules make it: a Config name and, where the rules
// fix one, a split of K and stream-K (0 / kUnspecified: the Config's own).
struct TuneChoice {
  std::string name;
  int split_k = 0;
  tuning::StreamK stream_k = tuning::StreamK::kUnspecified;
};

// "GemmSwapAb16", "GemmSwapAb16 split 2", "GemmStreamK stream-K".
std::string describe(const std::string& name, int split_k, tuning::StreamK stream_k);
std::string describe(const TuneCandidate& c);
std::string describe(const TuneChoice& c);

// Where a target's candidates come from: for a shape, the candidates the default entry point can choose on
// this device, and which one its built-in rules choose.
class CandidateSource {
 public:
  virtual ~CandidateSource() = default;
  // The candidates that can run `shape` (empty: none can; the shape is skipped).
  virtual std::vector<TuneCandidate> candidates(const TuneShape& shape) const = 0;
  // What the built-in rules choose for `shape`; it must be one of candidates(shape) (builtin_index).
  virtual TuneChoice builtin(const TuneShape& shape) const = 0;
};

// The source of a fixed list: the candidates `supports` accepts for the shape (all, without it), the rules'
// choice from `rules`. From an exported catalogue of (name, run function) pairs:
//
//   std::vector<TuneCandidate> list;
//   for (const auto& c : catalogue) list.push_back({c.name, 0, tuning::StreamK::kUnspecified, run_of(c)});
//   ListSource source(std::move(list), [](const TuneShape& s) { return TuneChoice{rules_name(s)}; });
class ListSource : public CandidateSource {
 public:
  using Rules = std::function<TuneChoice(const TuneShape&)>;
  using Supports = std::function<bool(const TuneCandidate&, const TuneShape&)>;
  ListSource(std::vector<TuneCandidate> list, Rules rules, Supports supports = nullptr)
      : list_(std::move(list)), rules_(std::move(rules)), supports_(std::move(supports)) {}
  std::vector<TuneCandidate> candidates(const TuneShape& shape) const override;
  TuneChoice builtin(const TuneShape& shape) const override { return rules_(shape); }

 private:
  std::vector<TuneCandidate> list_;
  Rules rules_;
  Supports supports_;
};

// Each candidate as given, then, for each split in `splits`, a copy with that split_k (the splits a Config's
// run function honours through TuneCall::split_k).
std::vector<TuneCandidate> with_splits(const std::vector<TuneCandidate>& list,
                                       const std::vector<int>& splits);

// The index in `candidates` of the built-in choice: the candidate with its name, split and stream-K; else
// the one with its name and neither split nor stream-K given (the rules' own); -1 if none.
int builtin_index(const std::vector<TuneCandidate>& candidates, const TuneChoice& builtin);

// A way to get a source for a target on a device (bench/tune_sources.cpp lists them).
struct SourceRegistration {
  std::string name;  // e.g. "sm_90a entry points", for messages
  int cc_major = 0, cc_minor = 0;
  tuning::Operation op = tuning::Operation::kGemm;
  std::function<std::unique_ptr<CandidateSource>(const TuneTarget&)> make;  // null: not for this target
};
// The first registration for the device's compute capability and the target's operation whose make()
// gives a source; null with *why saying what is missing otherwise.
std::unique_ptr<CandidateSource> find_source(const std::vector<SourceRegistration>& registrations,
                                             const TuneTarget& target, int cc_major, int cc_minor,
                                             std::string* why);

// ---- measuring --------------------------------------------------------------------------------------------

// What a check of one call against the host reference found.
struct CheckOutcome {
  bool ok = false;
  std::string message;  // why it failed (empty when ok)
};

// One shape's problem on the measuring device (operands in rotating sets), alive while the shape is tuned.
class ShapeMeasurement {
 public:
  virtual ~ShapeMeasurement() = default;
  // One call of `c` on operand set 0, whose output was poisoned first, checked against the host reference.
  virtual CheckOutcome validate(const TuneCandidate& c) = 0;
  // `rounds` interleaved rounds of the candidates (each round one sample of every candidate, the order
  // reversed every other round): (*us)[i][r], microseconds per call of candidate i in round r. A failure
  // (a call failing, a CUDA error) returns its Status.
  virtual Status time(const std::vector<const TuneCandidate*>& candidates, int rounds,
                      std::vector<std::vector<double>>* us) = 0;
};

// The injected timer: builds a shape's problem (a failure skips the shape with the Status's message).
class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual Status open(const TuneTarget& target, const TuneShape& shape,
                      std::unique_ptr<ShapeMeasurement>* out) = 0;
};

// A candidate's rounds summarized: the median, the quartiles (linear interpolation between order
// statistics) and the noise estimate select_candidate uses, half the interquartile range (the spread of the
// middle half of the rounds).
struct SampleStats {
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
  double noise = 0;  // (q3 - q1) / 2
  int count = 0;
  double relative_noise() const { return median > 0 ? noise / median : 0; }
};
// Throws std::invalid_argument for no samples or a sample that is not positive and finite.
SampleStats summarize(std::vector<double> samples);

// ---- the run
// ------------------------------------------------------------------------------------------------

struct TuneResult;

struct TuneOptions {
  int rounds = 30;                // interleaved rounds per shape (rounded up to even: the order alternates)
  double min_relative_gain = 0;   // select_candidate's margin beyond the noise (0: the noise alone)
  double budget_seconds = 0;      // 0: none; else no shape starts past it (or expected to end past it: the
                                  // average so far, or the last shape's time times the work ratio if more)
  std::function<double()> clock;  // seconds, any origin (default: std::chrono::steady_clock)
  std::function<bool()> stop_requested;              // e.g. SIGINT seen; checked between shapes (null: never)
  std::function<void(const std::string&)> progress;  // progress lines (default: stderr)
  // Called after each shape with the result so far (e.g. to write the file, so a killed run keeps its
  // shapes).
  std::function<void(const TuneResult&)> after_shape;
};

struct CandidateResult {
  std::string name;
  int split_k = 0;
  tuning::StreamK stream_k = tuning::StreamK::kUnspecified;
  bool valid = false;   // passed the check against the reference (and was timed)
  std::string message;  // why it was dropped
  SampleStats stats;    // when valid and timed
};

enum class ShapeOutcome {
  kTuned,        // an entry was made (the built-in choice kept or replaced)
  kNoCandidate,  // the source has no candidate for the shape: skipped
  kFailed,       // the problem could not be built, the built-in choice is not a candidate, no candidate
                 // passed validation, or the timing failed: no entry
};

struct ShapeResult {
  TuneShape shape;
  ShapeOutcome outcome = ShapeOutcome::kFailed;
  std::string message;  // for kNoCandidate and kFailed
  std::vector<CandidateResult> candidates;
  int builtin = -1;  // index into candidates (-1: not among them)
  int winner = -1;   // index into candidates
  bool kept_builtin = false;
  double seconds = 0;  // wall time the shape took
};

struct TuneResult {
  TuneTarget target;
  std::vector<ShapeResult> shapes;  // in order, the ones started
  int planned = 0;                  // shapes asked for
  bool stopped_early = false;       // the budget ran out or a stop was requested
  std::string stop_reason;
  std::vector<tuning::Entry> entries;  // one per tuned shape
  int failed() const;
};

// Tunes `shapes` of `target`: per shape, the source's candidates (malformed ones, e.g. an empty name or a
// split over 64, dropped), each validated (failures dropped and reported), the rest timed together, the
// winner by tuning::select_candidate against the built-in choice. Progress on options.progress: one line per
// shape (shape i of n, elapsed, estimated remaining) and one per dropped candidate.
TuneResult tune(const TuneTarget& target, const std::vector<TuneShape>& shapes, const CandidateSource& source,
                Measurer& measurer, const TuneOptions& options);

// The entry for a tuned shape: the key (M as its bucket's bound), the winner, the built-in choice as
// `rules`, every timed candidate's median and noise in microseconds.
tuning::Entry make_entry(const TuneTarget& target, const ShapeResult& shape);

// The per-shape summary printed on stdout: built-in, winner, gain.
std::string summary_line(const TuneTarget& target, const ShapeResult& shape);

// ---- the file
// ----------------------------------------------------------------------------------------------

// The metadata of a file measured on `device` (its GPU name, SM count, compute capability, CUDA runtime and
// driver), by this build of bwgemm, in `launch` mode, L2 cold, on `date` (YYYY-MM-DD) with `command`.
tuning::Metadata make_metadata(const tuning::DeviceDescription& device, tuning::LaunchMode launch,
                               const std::string& date, const std::string& command);
// Today's date (UTC) as YYYY-MM-DD.
std::string today_utc();

// The document of a run: `metadata` and the entries of `results` in order; with `base` (--update: the file
// tuned further), merged into it (merge_documents). Refused where base is another device's or mode's.
Status make_document(const tuning::Metadata& metadata, const std::vector<TuneResult>& results,
                     const tuning::TuningDocument* base, tuning::TuningDocument* out);

// The shapes of `target` whose key (N, K, batch 1 and the bucket of M) `doc` has no entry for, in order
// (--resume: a run the budget stopped, continued).
std::vector<TuneShape> shapes_not_in(const TuneTarget& target, const std::vector<TuneShape>& shapes,
                                     const tuning::TuningDocument& doc);

// `update` with the entries of `base` whose keys it does not have kept in front (in base's order), for
// tuning a file further (--update). Refused where base was measured on another device (GPU name, SM count,
// compute capability) or in another launch mode. The metadata is update's.
Status merge_documents(const tuning::TuningDocument& base, const tuning::TuningDocument& update,
                       tuning::TuningDocument* out);

// How two tuning files' entries compare (--compare): keys in both with the same choice (Config, split_k,
// stream_k) or not, keys in one only.
struct CompareResult {
  int common = 0;
  int differ = 0;
  int only_first = 0, only_second = 0;
  std::vector<std::string> lines;  // one per differing or unmatched entry, then metadata notes
};
CompareResult compare_documents(const tuning::TuningDocument& first, const tuning::TuningDocument& second);

}  // namespace bwgemm::bench::tune
