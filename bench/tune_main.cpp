// bwgemm-tune: measures the candidates of bwgemm's default entry points on this GPU and writes a tuning file
// (docs/tuning.md, "Tuning on your GPU"). bwgemm-tune --help lists the flags.
//
// Exit status: 0 when every shape asked for was tuned or skipped (no candidate runs it), including a run the
// time budget stopped early; 1 when a shape could not be tuned (the file is still written with the others),
// nothing was tuned, or there is no GPU or candidate source; 2 for a bad command line.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bwgemm/tuning/json.hpp"
#include "timing.hpp"  // kL2RotationFactor
#include "tune.hpp"
#include "tune_cli.hpp"
#include "tune_gpu.hpp"
#include "tune_sources.hpp"

namespace {

using namespace bwgemm;
using namespace bwgemm::bench;
using namespace bwgemm::bench::tune;

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}

int fail(const std::string& message, int status = EXIT_FAILURE) {
  std::fprintf(stderr, "bwgemm-tune: %s\n", message.c_str());
  return status;
}

int compare(const CliOptions& o) {
  std::string report;
  if (Status s = run_compare(o.compare_first, o.compare_second, &report); !s.ok()) return fail(s.message());
  std::printf("%s", report.c_str());
  return EXIT_SUCCESS;
}

int tune_files(const CliOptions& o) {
  Context context;
  context.timing.use_graphs = o.launch == tuning::LaunchMode::kGraph;
  context.timing.min_sample_seconds = o.min_sample_ms * 1e-3;
  context.timing.warmup_seconds = o.warmup_ms * 1e-3;
  tuning::DeviceDescription device;
  std::string banner;
  if (Status s = open_device(o.device, &context, &device, &banner); !s.ok()) return fail(s.message());
  std::printf("bwgemm-tune: %s\n", banner.c_str());

  // A source for each plan before anything is measured.
  const std::vector<SourceRegistration> registrations = candidate_sources();
  std::vector<std::unique_ptr<CandidateSource>> sources;
  for (const TunePlan& plan : o.plans) {
    std::string why;
    sources.push_back(find_source(registrations, plan.target, device.cc_major, device.cc_minor, &why));
    if (!sources.back()) return fail(why);
  }

  const tuning::Metadata metadata = make_metadata(device, o.launch, today_utc(), o.command);
  tuning::TuningDocument base;
  const bool merge = o.update && std::ifstream(o.output).good();  // --update of a new file: written new
  if (merge) {                                                    // refused before anything is measured
    tuning::TuningDocument probe;
    Status s = tuning::read_tuning_file(o.output, &base);
    if (s.ok()) s = make_document(metadata, {}, &base, &probe);
    if (!s.ok()) return fail("--update: tuning file '" + o.output + "': " + s.message());
  } else if (o.update) {
    std::fprintf(stderr, "bwgemm-tune: note: %s: '%s' does not exist yet: it is written new\n",
                 o.resume ? "--resume" : "--update", o.output.c_str());
  }
  std::vector<TunePlan> plans = o.plans;
  if (merge && o.resume)
    for (TunePlan& plan : plans) {
      const size_t asked = plan.shapes.size();
      plan.shapes = shapes_not_in(plan.target, plan.shapes, base);
      std::fprintf(stderr, "bwgemm-tune: note: --resume: %s: %zu of %zu shapes are in '%s' already\n",
                   describe(plan.target).c_str(), asked - plan.shapes.size(), asked, o.output.c_str());
    }
  for (const std::string& note : o.notes) std::fprintf(stderr, "bwgemm-tune: note: %s\n", note.c_str());
  std::printf(
      "bwgemm-tune: %s launches, operand sets rotating over > %.0fx L2, %.0f ms warm-up per candidate, "
      "%d interleaved rounds of >= %.2f ms samples per shape%s\n",
      o.launch == tuning::LaunchMode::kGraph ? "CUDA-graph" : "stream", kL2RotationFactor, o.warmup_ms,
      (o.rounds + 1) / 2 * 2, o.min_sample_ms,
      o.budget_seconds > 0 ? (", budget " + std::to_string(static_cast<int>(o.budget_seconds)) + " s").c_str()
                           : "");
  std::fflush(stdout);

  std::signal(SIGINT, on_interrupt);
  GpuMeasurer measurer(context);
  std::vector<TuneResult> results;
  const auto clock = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  const double start = clock();
  bool stopped = false;
  for (size_t p = 0; p < plans.size() && !stopped; ++p) {
    TuneOptions options;
    options.rounds = o.rounds;
    options.min_relative_gain = o.min_relative_gain;
    options.clock = clock;
    options.stop_requested = [] { return g_interrupted != 0; };
    // The file is rewritten after every shape, so a run killed mid-shape (a job's time limit) keeps the
    // shapes it tuned (--resume continues it).
    options.after_shape = [&](const TuneResult& so_far) {
      std::vector<TuneResult> all = results;
      all.push_back(so_far);
      tuning::TuningDocument partial;
      if (so_far.entries.empty() || !make_document(metadata, all, merge ? &base : nullptr, &partial).ok() ||
          !tuning::write_tuning_file(o.output, partial).ok())
        return;  // the final write reports any problem
    };
    if (o.budget_seconds > 0) {
      options.budget_seconds = o.budget_seconds - (clock() - start);
      if (options.budget_seconds <= 0) {
        std::fprintf(stderr, "bwgemm-tune: the time budget is used up: %s not started\n",
                     describe(plans[p].target).c_str());
        stopped = true;
        break;
      }
    }
    results.push_back(bench::tune::tune(plans[p].target, plans[p].shapes, *sources[p], measurer, options));
    stopped = results.back().stopped_early;
  }
  std::signal(SIGINT, SIG_DFL);

  int tuned = 0, failed = 0, planned = 0;
  std::printf("\nbwgemm-tune: summary\n");
  for (const TuneResult& r : results) {
    for (const ShapeResult& s : r.shapes) std::printf("  %s\n", summary_line(r.target, s).c_str());
    tuned += static_cast<int>(r.entries.size());
    failed += r.failed();
  }
  for (const TunePlan& plan : plans) planned += static_cast<int>(plan.shapes.size());
  if (stopped)
    std::printf(
        "bwgemm-tune: stopped early: %d of %d shapes tuned (the same command with --resume continues)\n",
        tuned, planned);

  tuning::TuningDocument doc;
  if (Status s = make_document(metadata, results, merge ? &base : nullptr, &doc); !s.ok())
    return fail(s.message());
  if (tuned == 0 && !merge) return fail("nothing was tuned; '" + o.output + "' not written");
  if (Status s = tuning::write_tuning_file(o.output, doc); !s.ok())
    return fail("cannot write '" + o.output + "': " + s.message());
  std::printf("bwgemm-tune: wrote %s: %zu entries (%d tuned now); install it with BWGEMM_TUNING_FILE=%s\n",
              o.output.c_str(), doc.entries.size(), tuned, o.output.c_str());
  close_device(&context);
  if (failed > 0) return fail(std::to_string(failed) + " shape(s) could not be tuned (see above)");
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  CliOptions options;
  if (Status s = parse_cli(argc, argv, &options); !s.ok())
    return fail(s.message() + "\n(bwgemm-tune --help lists the flags)", 2);
  switch (options.mode) {
    case CliOptions::Mode::kHelp:
      std::printf("%s", usage());
      return EXIT_SUCCESS;
    case CliOptions::Mode::kCompare:
      return compare(options);
    case CliOptions::Mode::kTune:
      break;
  }
  try {
    return tune_files(options);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
