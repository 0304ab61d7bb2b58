// bwgemm-tune's command line (docs/tuning.md, "Tuning on your GPU"): the flags, the shapes to tune (one
// representative M per M bucket), and the --compare report. Host C++17, no CUDA: tested without a GPU.
#pragma once

#include <string>
#include <vector>

#include "bwgemm/base/status.hpp"
#include "bwgemm/tuning/table.hpp"
#include "tune.hpp"

namespace bwgemm::bench::tune {

// One B layout's share of a run: its target and shapes.
struct TunePlan {
  TuneTarget target;
  std::vector<TuneShape> shapes;
};

struct CliOptions {
  enum class Mode { kTune, kCompare, kHelp };
  Mode mode = Mode::kTune;

  // kTune
  std::vector<TunePlan> plans;     // one per B layout asked for
  std::vector<std::string> notes;  // e.g. an M tuned as its bucket's bound
  std::string output;              // --output
  bool update = false;             // --update: merge into the existing --output
  bool resume = false;             // --resume: --update, skipping the keys --output already has
  tuning::LaunchMode launch = tuning::LaunchMode::kGraph;
  int rounds = 30;
  double min_relative_gain = 0;
  double budget_seconds = 0;
  double min_sample_ms = 1;
  double warmup_ms = 50;
  int device = 0;
  std::string command;  // the command line, for the file's metadata

  // kCompare
  std::string compare_first, compare_second;
};

// Parses the command line (argv[0] is the program). Invalid or missing flags: invalid_argument naming the
// flag; nothing else is checked (no file is read but a --shapes=@FILE list, no device looked at).
Status parse_cli(int argc, const char* const* argv, CliOptions* out);

// The --help text.
const char* usage();

// Whether the tuner can measure `target`: the benchmark's problems (bench/problems.hpp) are GEMM fp16->fp16
// and bf16->bf16 in either B layout, the dual GEMM bf16->bf16, and the NVFP4 GEMM and dual GEMM with fp16
// out, B N x K. *why says which are there otherwise.
bool measurable(const TuneTarget& target, std::string* why);

// One shape per (N, K) and M bucket: each M becomes its bucket's upper bound (tuning::bucket_bound), the
// first of a bucket kept; ordered by (N, K) as first given, then M. `notes` gets a line per M moved to its
// bound and per repeated bucket.
std::vector<TuneShape> bucket_shapes(const std::vector<TuneShape>& given, std::vector<std::string>* notes);

// Reads two tuning files and reports how many entries differ (compare_documents) as text: a first line
// "N entries in both, D differ; X only in the first, Y only in the second", then one line per difference.
Status run_compare(const std::string& first, const std::string& second, std::string* report,
                   CompareResult* result = nullptr);

}  // namespace bwgemm::bench::tune
