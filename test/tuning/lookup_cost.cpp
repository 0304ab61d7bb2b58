// The host cost of a kernel-choice lookup (docs/tuning.md, "Cost"): Registry::lookup and choose() on a table
// the size a tuned device would have (24 (N, K) shapes x 2 B layouts x 52 M buckets = 2496 entries), a hit in
// the installed table, a hit in a built-in table behind it, and a miss that falls to the rules; on one thread
// and on two. And what an H200's default entry points pay with no table installed: the built-in H200 table,
// then the rules.
//
//   tuning_lookup_cost --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "bwgemm/sm90/tuning.hpp"
#include "bwgemm/tuning/registry.hpp"

namespace {

using namespace bwgemm::tuning;
using bwgemm::BLayout;

const char* const kNames[] = {"GemmSmall",    "GemmMedium",   "GemmLarge",    "GemmPingPong", "GemmStreamK",
                              "GemmSwapAb16", "GemmSwapAb32", "GemmSwapAb64", "GemmSwapAb128"};

Candidates candidates() {
  Candidates c;
  c[Operation::kGemm] = {kNames, 9};
  return c;
}

DeviceDescription device() {
  DeviceDescription d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.cc_major = 9, d.cc_minor = 0;
  d.cuda_runtime = d.cuda_driver = 13000;
  return d;
}

const int64_t kShapes[][2] = {{4096, 4096},  {6144, 4096},  {28672, 4096}, {4096, 14336}, {5120, 5120},
                              {7168, 5120},  {55296, 5120}, {5120, 27648}, {8192, 8192},  {10240, 8192},
                              {57344, 8192}, {8192, 28672}, {2048, 2048},  {3072, 2048},  {16384, 2048},
                              {2048, 8192},  {3584, 3584},  {4608, 3584},  {37888, 3584}, {3584, 18944},
                              {1024, 1024},  {1536, 1024},  {4096, 1024},  {1024, 4096}};

TuningDocument document(const char* config) {
  TuningDocument doc;
  Metadata& md = doc.metadata;
  md.gpu = "NVIDIA H200";
  md.sm_count = 132;
  md.cc_major = 9;
  md.cuda_runtime = md.cuda_driver = 13000;
  md.bwgemm_version =
      std::to_string(BWGEMM_VERSION_MAJOR) + "." + std::to_string(BWGEMM_VERSION_MINOR) + ".0";
  md.date = "2026-12-02";
  for (const auto& shape : kShapes)
    for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN})
      for (int b = 0; b < kBucketCount; ++b) {
        Entry e;
        e.op = Operation::kGemm;
        e.b_layout = layout;
        e.n = shape[0], e.k = shape[1], e.m = bucket_bound(b);
        e.config = config;
        doc.entries.push_back(e);
      }
  return doc;
}

// The registry of one process: an installed table of 2496 entries and a built-in table of 2496 with other
// shapes' N doubled (so a key can miss the first and hit the second).
Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry();
    std::shared_ptr<const TuningTable> installed;
    if (!build_table(document("GemmLarge"), device(), candidates(), "installed", &installed).ok())
      std::abort();
    reg->install(installed);
    static std::vector<BuiltinEntry> builtin;
    for (const Entry& e : document("GemmSmall").entries)
      builtin.push_back({e.op, e.in, e.out, e.b_layout, 2 * e.n, e.k, 1, e.m, "GemmSmall"});
    if (!reg->register_builtin({"h200", "NVIDIA H200", 9, 0, 0, builtin.data(), builtin.size()}, candidates())
             .ok())
      std::abort();
    return reg;
  }();
  return *r;
}

Key key(int64_t m, int64_t n, int64_t k) {
  Key key;
  key.op = Operation::kGemm;
  key.m = m, key.n = n, key.k = k;
  return key;
}

Choice rules() {
  Choice c;
  c.config = 0;
  return c;
}

// M walks 1 .. 4096 so the search does not see one key only.
void BM_LookupInstalledHit(benchmark::State& state) {
  Registry& r = registry();
  const DeviceDescription d = device();
  int64_t m = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(r.lookup(key(m, 28672, 4096), d));
    m = m % 4096 + 1;
  }
}
BENCHMARK(BM_LookupInstalledHit)->Threads(1)->Threads(2);

void BM_LookupBuiltinHit(benchmark::State& state) {
  Registry& r = registry();
  const DeviceDescription d = device();
  int64_t m = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(r.lookup(key(m, 2 * 28672, 4096), d));
    m = m % 4096 + 1;
  }
}
BENCHMARK(BM_LookupBuiltinHit)->Threads(1)->Threads(2);

void BM_ChooseFallsToRules(benchmark::State& state) {
  Registry& r = registry();
  const DeviceDescription d = device();
  int64_t m = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(r.choose(key(m, 12345, 4096), d, rules));
    m = m % 4096 + 1;
  }
}
BENCHMARK(BM_ChooseFallsToRules)->Threads(1)->Threads(2);

// What the sm_90a default entry points do on an H200 with no table installed: the built-in H200 table (8
// entries) and the rules, registered as sm90::register_tuning_candidates registers them; a decode GEMM of a
// shape the table does not hold, so choose() falls to the rules.
Registry& h200_registry() {
  static Registry* r = [] {
    auto* reg = new Registry();
    bwgemm::sm90::register_tuning_candidates(*reg);
    if (!bwgemm::sm90::register_builtin_tables(*reg).ok()) std::abort();
    reg->install(nullptr);  // no BWGEMM_TUNING_FILE: the built-in table and the rules
    return reg;
  }();
  return *r;
}

void BM_DefaultH200FallsToRules(benchmark::State& state) {
  Registry& r = h200_registry();
  const DeviceDescription d = device();
  int64_t m = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(r.choose(key(m, 4096, 14336), d, rules));
    m = m % 64 + 1;
  }
}
BENCHMARK(BM_DefaultH200FallsToRules)->Threads(1);

}  // namespace

BENCHMARK_MAIN();
