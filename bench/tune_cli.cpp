// bwgemm-tune's command line (tune_cli.hpp).
#include "tune_cli.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "bwgemm/tuning/json.hpp"
#include "shapes.hpp"

namespace bwgemm::bench::tune {

namespace {

const char* const kUsage =
    "bwgemm-tune: measures the candidates bwgemm's default entry points choose from on this GPU and writes "
    "a\n"
    "tuning file (docs/tuning.md, \"Tuning on your GPU\"; install it with BWGEMM_TUNING_FILE=FILE).\n"
    "\n"
    "  bwgemm-tune --op=OP (--shapes=MxNxK[,MxNxK...] | --shapes=@FILE | --sweep=models) --output=FILE\n"
    "              [--in_type=T] [--out_type=T] [--b_layout=nk|kn|both] [--m=M[,M...]|all]\n"
    "              [--mode=graph|stream] [--budget_s=S] [--rounds=N] [--min_gain=F] [--min_sample_ms=X]\n"
    "              [--warmup_ms=X] [--update | --resume] [--device=N]\n"
    "  bwgemm-tune --compare=FIRST.json SECOND.json\n"
    "\n"
    "  --op=OP             gemm, dual_gemm, nvfp4_gemm or nvfp4_dual_gemm\n"
    "  --in_type=T         A and B: fp16 or bf16 (gemm; default bf16), bf16 (dual_gemm), nvfp4 (the NVFP4 "
    "ops)\n"
    "  --out_type=T        the output: as --in_type (gemm, dual_gemm), fp16 (the NVFP4 ops); default those\n"
    "  --b_layout=L        nk (B N x K, nn.Linear weights; default), kn (B K x N; gemm only) or both\n"
    "  --shapes=...        MxNxK list, or @FILE with one MxNxK or 'M N K' per line ('#' comments)\n"
    "  --sweep=models      the benchmark's model sweep: M = 1, 2, 4, ..., 16384 on the projections of\n"
    "                      Llama-3.1-8B, Qwen2.5-32B and Llama-3.1-70B (bench/shapes.cpp)\n"
    "  --m=M,M,...|all     tune these M on every (N, K) instead of the shapes' own; all: every M bucket\n"
    "                      (1 .. 8, 10, 12, 14, 16, 20, ..., 16384). Each M is measured at its bucket's "
    "upper\n"
    "                      bound, the M the file's entry names\n"
    "  --output=FILE       the tuning file written (to FILE.tmp, then renamed)\n"
    "  --update            keep FILE's entries for keys not tuned now (same GPU and --mode required)\n"
    "  --resume            --update, and skip the shapes FILE already has (continues a run the budget "
    "stopped)\n"
    "  --mode=graph        time calls replayed from a CUDA graph (default); stream: launched on a stream\n"
    "  --budget_s=S        stop starting shapes after S seconds, or when the next would end past S; the "
    "shapes\n"
    "                      tuned so far are written (default 0: no limit)\n"
    "  --rounds=N          interleaved rounds per shape, one sample of every candidate each (default 30,\n"
    "                      rounded up to even: the order reverses every round)\n"
    "  --min_gain=F        a candidate must also beat the built-in choice by this fraction (default 0: the\n"
    "                      noise rule alone: faster by more than both noise estimates)\n"
    "  --min_sample_ms=X   GPU time of one sample of back-to-back calls, at least (default 1)\n"
    "  --warmup_ms=X       fixed untimed warm-up of each candidate before the rounds (default 50)\n"
    "  --device=N          CUDA device ordinal (default 0)\n"
    "  --compare=A B       how many entries of two tuning files differ (no GPU needed)\n"
    "  --help              this text\n";

const char* const kOperations = "gemm, dual_gemm, nvfp4_gemm, nvfp4_dual_gemm";

Status bad(const std::string& message) {
  return Status::invalid_argument(message);
}

// "--name=value": true with *value set where arg is that flag.
bool flag_value(const char* arg, const char* name, std::string* value) {
  const size_t len = std::strlen(name);
  if (std::strncmp(arg, name, len) != 0 || arg[len] != '=') return false;
  *value = arg + len + 1;
  return true;
}

Status parse_double(const std::string& flag, const std::string& text, double lo, double hi, double* out) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v) || v < lo ||
      v > hi) {
    std::ostringstream range;
    range << lo << " .. " << hi;
    return bad(flag + " must be a number " + range.str() + " (got '" + text + "')");
  }
  *out = v;
  return Status::success();
}

Status parse_int(const std::string& flag, const std::string& text, int lo, int hi, int* out) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || v < lo || v > hi)
    return bad(flag + " must be an integer " + std::to_string(lo) + " .. " + std::to_string(hi) + " (got '" +
               text + "')");
  *out = static_cast<int>(v);
  return Status::success();
}

Status parse_m_list(const std::string& text, std::vector<int64_t>* out) {
  out->clear();
  if (text == "all") {
    for (int b = 0; b < tuning::kBucketCount; ++b) out->push_back(tuning::bucket_bound(b));
    return Status::success();
  }
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size() || errno != 0 || v < 1 || v > tuning::kMaxExtent)
      return bad("--m must be 'all' or a list of M from 1 to " + std::to_string(tuning::kMaxExtent) +
                 " (got '" + item + "')");
    out->push_back(v);
  }
  if (out->empty() || text.back() == ',') return bad("--m must be 'all' or a list of M (got '" + text + "')");
  return Status::success();
}

std::string quoted_command(int argc, const char* const* argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i == 0) {
      const size_t slash = a.find_last_of('/');
      if (slash != std::string::npos) a = a.substr(slash + 1);
    }
    if (a.find_first_of(" \t'\"") != std::string::npos) a = "'" + a + "'";
    command += (i ? " " : "") + a;
  }
  return command;
}

// The (M, N, K) of the op's list in the shape sets (B layout `layout` for the GEMM), in order.
std::vector<TuneShape> shapes_of(const ShapeSets& sets, tuning::Operation op, BLayout layout) {
  std::vector<TuneShape> out;
  switch (op) {
    case tuning::Operation::kGemm:
      for (const GemmShape& s : sets.gemm)
        if (s.b_layout == layout) out.push_back({s.m, s.n, s.k});
      break;
    case tuning::Operation::kNvfp4Gemm:
      for (const GemmShape& s : sets.gemm_nvfp4) out.push_back({s.m, s.n, s.k});
      break;
    case tuning::Operation::kDualGemm:
      for (const DualShape& s : sets.dual_bf16) out.push_back({s.m, s.n, s.k});
      break;
    case tuning::Operation::kNvfp4DualGemm:
      for (const DualShape& s : sets.dual_nvfp4) out.push_back({s.m, s.n, s.k});
      break;
  }
  return out;
}

}  // namespace

const char* usage() {
  return kUsage;
}

bool measurable(const TuneTarget& t, std::string* why) {
  using tuning::Element;
  using tuning::Operation;
  const bool nk = t.b_layout == BLayout::kColumnMajorKxN;
  bool ok = false;
  switch (t.op) {
    case Operation::kGemm:
      ok = (t.in == Element::kFp16 || t.in == Element::kBf16) && t.out == t.in;
      break;
    case Operation::kDualGemm:
      ok = t.in == Element::kBf16 && t.out == Element::kBf16 && nk;
      break;
    case Operation::kNvfp4Gemm:
    case Operation::kNvfp4DualGemm:
      ok = t.in == Element::kNvfp4 && t.out == Element::kFp16 && nk;
      break;
  }
  if (!ok)
    *why = describe(t) +
           ": the tuner measures on the benchmark's problems: gemm fp16->fp16 and bf16->bf16 (B nk or kn), "
           "dual_gemm bf16->bf16, nvfp4_gemm and nvfp4_dual_gemm nvfp4->fp16 (B nk)";
  return ok;
}

std::vector<TuneShape> bucket_shapes(const std::vector<TuneShape>& given, std::vector<std::string>* notes) {
  std::vector<std::pair<int64_t, int64_t>> nk_order;
  std::map<std::pair<int64_t, int64_t>, std::set<int64_t>> buckets;
  std::set<std::string> said;
  if (notes != nullptr) said.insert(notes->begin(), notes->end());
  const auto note = [&](const std::string& line) {
    if (notes != nullptr && said.insert(line).second) notes->push_back(line);
  };
  for (const TuneShape& s : given) {
    const std::pair<int64_t, int64_t> nk{s.n, s.k};
    if (buckets.find(nk) == buckets.end()) nk_order.push_back(nk);
    const int64_t bound = tuning::bucket_bound(tuning::m_bucket(s.m));
    if (bound != s.m)
      note("M=" + std::to_string(s.m) + " is measured at its M bucket's bound " + std::to_string(bound) +
           (s.m > tuning::kMaxBucketM ? " (the last bucket holds every M above it)" : ""));
    if (!buckets[nk].insert(bound).second)
      note("M bucket <= " + std::to_string(bound) + " of N=" + std::to_string(s.n) +
           " K=" + std::to_string(s.k) + " is asked for more than once: tuned once");
  }
  std::vector<TuneShape> out;
  for (const auto& nk : nk_order)
    for (int64_t m : buckets[nk]) out.push_back({m, nk.first, nk.second});
  return out;
}

Status parse_cli(int argc, const char* const* argv, CliOptions* out) {
  CliOptions o;
  o.command = quoted_command(argc, argv);
  std::string op_name, in_name, out_name, layout_name = "nk", shapes_spec, m_spec, mode = "graph";
  bool sweep = false, have_op = false, have_in = false, have_out = false;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    std::string v;
    if (std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0) {
      out->mode = CliOptions::Mode::kHelp;
      return Status::success();
    } else if (flag_value(arg, "--op", &v)) {
      op_name = v, have_op = true;
    } else if (flag_value(arg, "--in_type", &v)) {
      in_name = v, have_in = true;
    } else if (flag_value(arg, "--out_type", &v)) {
      out_name = v, have_out = true;
    } else if (flag_value(arg, "--b_layout", &v)) {
      layout_name = v;
    } else if (flag_value(arg, "--shapes", &v)) {
      if (!shapes_spec.empty()) return bad("--shapes is given twice");
      if (v.empty()) return bad("--shapes needs MxNxK[,MxNxK...] or @FILE");
      shapes_spec = v;
    } else if (flag_value(arg, "--sweep", &v)) {
      if (v != "models") return bad("--sweep takes 'models' (got '" + v + "')");
      sweep = true;
    } else if (flag_value(arg, "--m", &v)) {
      m_spec = v;
    } else if (flag_value(arg, "--output", &v)) {
      if (v.empty()) return bad("--output needs a file name");
      o.output = v;
    } else if (std::strcmp(arg, "--update") == 0) {
      o.update = true;
    } else if (std::strcmp(arg, "--resume") == 0) {
      o.update = o.resume = true;
    } else if (flag_value(arg, "--mode", &v)) {
      mode = v;
    } else if (flag_value(arg, "--budget_s", &v)) {
      if (Status s = parse_double("--budget_s", v, 0, 1e7, &o.budget_seconds); !s.ok()) return s;
    } else if (flag_value(arg, "--rounds", &v)) {
      if (Status s = parse_int("--rounds", v, 2, 10000, &o.rounds); !s.ok()) return s;
    } else if (flag_value(arg, "--min_gain", &v)) {
      if (Status s = parse_double("--min_gain", v, 0, 1, &o.min_relative_gain); !s.ok()) return s;
    } else if (flag_value(arg, "--min_sample_ms", &v)) {
      if (Status s = parse_double("--min_sample_ms", v, 0.001, 10000, &o.min_sample_ms); !s.ok()) return s;
    } else if (flag_value(arg, "--warmup_ms", &v)) {
      if (Status s = parse_double("--warmup_ms", v, 0, 1e6, &o.warmup_ms); !s.ok()) return s;
    } else if (flag_value(arg, "--device", &v)) {
      if (Status s = parse_int("--device", v, 0, 1023, &o.device); !s.ok()) return s;
    } else if (flag_value(arg, "--compare", &v)) {
      if (v.empty()) return bad("--compare needs two tuning files: --compare=FIRST.json SECOND.json");
      o.mode = CliOptions::Mode::kCompare;
      o.compare_first = v;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return bad("unknown flag '" + std::string(arg) + "' (--help lists them)");
    } else {
      positional.push_back(arg);
    }
  }

  if (o.mode == CliOptions::Mode::kCompare) {
    if (positional.size() != 1)
      return bad("--compare takes two tuning files: --compare=FIRST.json SECOND.json");
    if (argc != 3) return bad("--compare takes no other flag: --compare=FIRST.json SECOND.json");
    o.compare_second = positional[0];
    *out = std::move(o);
    return Status::success();
  }
  if (!positional.empty()) return bad("unexpected argument '" + positional[0] + "' (--help lists the flags)");

  TuneTarget target;
  if (!have_op) return bad(std::string("--op is required: ") + kOperations);
  if (!tuning::parse_operation(op_name, &target.op))
    return bad("--op: '" + op_name + "' is not an operation (" + kOperations + ")");
  const bool nvfp4 =
      target.op == tuning::Operation::kNvfp4Gemm || target.op == tuning::Operation::kNvfp4DualGemm;
  if (!have_in) in_name = nvfp4 ? "nvfp4" : "bf16";
  if (!tuning::parse_element(in_name, &target.in))
    return bad("--in_type: '" + in_name + "' is not an element type (fp16, bf16, nvfp4)");
  if (!have_out) out_name = nvfp4 ? "fp16" : in_name;
  if (!tuning::parse_element(out_name, &target.out))
    return bad("--out_type: '" + out_name + "' is not an element type (fp16, bf16, fp32)");
  std::vector<BLayout> layouts;
  if (layout_name == "both") {
    layouts = {BLayout::kColumnMajorKxN, BLayout::kRowMajorKxN};
  } else {
    BLayout l{};
    if (!tuning::parse_layout(layout_name, &l))
      return bad("--b_layout must be nk, kn or both (got '" + layout_name + "')");
    layouts = {l};
  }
  if (mode == "graph") {
    o.launch = tuning::LaunchMode::kGraph;
  } else if (mode == "stream") {
    o.launch = tuning::LaunchMode::kStream;
  } else {
    return bad("--mode must be graph or stream (got '" + mode + "')");
  }
  for (BLayout l : layouts) {
    TuneTarget t = target;
    t.b_layout = l;
    std::string why;
    if (!measurable(t, &why)) return bad(why);
  }

  if (sweep && !shapes_spec.empty()) return bad("give --shapes or --sweep=models, not both");
  if (!sweep && shapes_spec.empty())
    return bad("no shapes: give --shapes=MxNxK[,...], --shapes=@FILE or --sweep=models");
  ShapeSets sets;
  if (sweep) {
    sets = model_sweep();
  } else {
    std::string error;
    if (!parse_shapes(shapes_spec, &sets, &error)) return bad("--shapes: " + error);
  }
  std::vector<int64_t> m_override;
  if (!m_spec.empty())
    if (Status s = parse_m_list(m_spec, &m_override); !s.ok()) return s;
  if (o.output.empty()) return bad("--output=FILE is required (the tuning file to write)");

  for (BLayout l : layouts) {
    TunePlan plan;
    plan.target = target;
    plan.target.b_layout = l;
    std::vector<TuneShape> given = shapes_of(sets, target.op, l);
    if (!m_override.empty()) {
      std::vector<TuneShape> replaced;
      std::set<std::pair<int64_t, int64_t>> done;
      for (const TuneShape& s : given)
        if (done.insert({s.n, s.k}).second)
          for (int64_t m : m_override) replaced.push_back({m, s.n, s.k});
      given = std::move(replaced);
    }
    plan.shapes = bucket_shapes(given, &o.notes);
    o.plans.push_back(std::move(plan));
  }
  *out = std::move(o);
  return Status::success();
}

Status run_compare(const std::string& first, const std::string& second, std::string* report,
                   CompareResult* result) {
  tuning::TuningDocument a, b;
  if (Status s = tuning::read_tuning_file(first, &a); !s.ok())
    return Status(s.code(), "tuning file '" + first + "': " + s.message());
  if (Status s = tuning::read_tuning_file(second, &b); !s.ok())
    return Status(s.code(), "tuning file '" + second + "': " + s.message());
  const CompareResult r = compare_documents(a, b);
  std::string text = std::to_string(r.common) + " entries in both, " + std::to_string(r.differ) +
                     " differ; " + std::to_string(r.only_first) + " only in the first, " +
                     std::to_string(r.only_second) + " only in the second\n";
  for (const std::string& line : r.lines) text += "  " + line + "\n";
  *report = std::move(text);
  if (result != nullptr) *result = r;
  return Status::success();
}

}  // namespace bwgemm::bench::tune
