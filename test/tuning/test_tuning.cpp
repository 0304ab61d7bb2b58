// Kernel-choice tables (include/bwgemm/tuning/, docs/tuning.md): the M buckets, the tuner's selection rule,
// tuning files (round trip; malformed, mismatched and unknown-name files refused whole, never a throw or a
// crash), the lookup order installed > built-in > rules, BWGEMM_TUNING_FILE, the diagnostics, allocation-free
// lookups and lookups while another thread installs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/tuning/json.hpp"
#include "bwgemm/tuning/registry.hpp"
#include "bwgemm/tuning/select.hpp"

// ---- allocation counting: every operator new of a thread that set counting_allocations -------------------

namespace {
thread_local bool counting_allocations = false;
std::atomic<long> counted_allocations{0};
}  // namespace

// Out of line, so that the compiler does not pair an inlined free() with operator new at the call sites.
__attribute__((noinline)) void* operator new(std::size_t size) {
  if (counting_allocations) counted_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void operator delete(void* p) noexcept {
  std::free(p);
}
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace bwgemm::tuning {
namespace {

using nlohmann::json;

// ---- fixtures ---------------------------------------------------------------------------------------------

const char* const kGemmNames[] = {"GemmTile128x128", "GemmTile128x256", "GemmSwapAbTokens16", "GemmSwapAbTokens32"};
const char* const kDualNames[] = {"DualGemm128", "DualSwapAb16"};

Candidates test_candidates() {
  Candidates c;
  c[Operation::kGemm] = {kGemmNames, 4};
  c[Operation::kDualGemm] = {kDualNames, 2};
  return c;
}

DeviceDescription h200() {
  DeviceDescription d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.cc_major = 9, d.cc_minor = 0;
  d.cuda_runtime = 13000, d.cuda_driver = 13000;
  return d;
}

std::string library_version() {
  return std::to_string(BWGEMM_VERSION_MAJOR) + "." + std::to_string(BWGEMM_VERSION_MINOR) + "." +
         std::to_string(BWGEMM_VERSION_PATCH);
}

Entry gemm_entry(int64_t n, int64_t k, int64_t m, const char* config, int split_k = 0) {
  Entry e;
  e.op = Operation::kGemm;
  e.in = Element::kBf16, e.out = Element::kBf16;
  e.b_layout = BLayout::kColumnMajorKxN;
  e.n = n, e.k = k, e.m = m;
  e.config = config;
  e.split_k = split_k;
  return e;
}

TuningDocument sample_document() {
  TuningDocument doc;
  Metadata& md = doc.metadata;
  md.gpu = "NVIDIA H200";
  md.sm_count = 132;
  md.cc_major = 9, md.cc_minor = 0;
  md.cuda_runtime = 13000, md.cuda_driver = 13000;
  md.bwgemm_version = library_version();
  md.launch = LaunchMode::kGraph;
  md.l2 = L2Mode::kCold;
  md.date = "2026-12-02";
  md.command = "bwgemm_tune --ops gemm";
  Entry a = gemm_entry(4096, 4096, 16, "GemmSwapAbTokens16", 2);
  a.rules_config = "GemmSwapAbTokens16";
  a.measured = {{"GemmSwapAbTokens16", 2, StreamK::kUnspecified, 9.8125, 0.05},
                {"GemmSwapAbTokens32", 0, StreamK::kOn, 11.3, 0.1},
                {"GemmTile128x256", 4, StreamK::kOff, 1.0 / 3.0, 0.0}};
  Entry b = gemm_entry(4096, 4096, 1024, "GemmTile128x256");
  b.stream_k = StreamK::kOn;
  b.b_layout = BLayout::kRowMajorKxN;
  b.out = Element::kFp32;
  Entry c;
  c.op = Operation::kDualGemm;
  c.in = Element::kFp16, c.out = Element::kFp16;
  c.n = 14336, c.k = 4096, c.batch = 2, c.m = 160;
  c.config = "DualSwapAb16";
  doc.entries = {a, b, c};
  return doc;
}

std::string sample_text() {
  std::string text;
  EXPECT_TRUE(write_tuning_json(sample_document(), &text).ok());
  return text;
}

Key gemm_key(int64_t m, int64_t n = 4096, int64_t k = 4096) {
  Key key;
  key.op = Operation::kGemm;
  key.in = key.out = Element::kBf16;
  key.b_layout = BLayout::kColumnMajorKxN;
  key.m = m, key.n = n, key.k = k;
  return key;
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "bwgemm_tuning_" + std::to_string(::getpid()) + "_" + name;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

bool same_measurement(const Measurement& a, const Measurement& b) {
  return a.config == b.config && a.split_k == b.split_k && a.stream_k == b.stream_k &&
         a.median_us == b.median_us && a.noise_us == b.noise_us;
}
bool same_entry(const Entry& a, const Entry& b) {
  if (a.measured.size() != b.measured.size()) return false;
  for (size_t i = 0; i < a.measured.size(); ++i)
    if (!same_measurement(a.measured[i], b.measured[i])) return false;
  return a.op == b.op && a.in == b.in && a.out == b.out && a.b_layout == b.b_layout && a.n == b.n &&
         a.k == b.k && a.batch == b.batch && a.m == b.m && a.config == b.config && a.split_k == b.split_k &&
         a.stream_k == b.stream_k && a.rules_config == b.rules_config;
}
bool same_document(const TuningDocument& a, const TuningDocument& b) {
  const Metadata &x = a.metadata, &y = b.metadata;
  if (a.format_version != b.format_version || x.gpu != y.gpu || x.sm_count != y.sm_count ||
      x.cc_major != y.cc_major || x.cc_minor != y.cc_minor || x.cuda_runtime != y.cuda_runtime ||
      x.cuda_driver != y.cuda_driver || x.bwgemm_version != y.bwgemm_version || x.launch != y.launch ||
      x.l2 != y.l2 || x.date != y.date || x.command != y.command || a.entries.size() != b.entries.size())
    return false;
  for (size_t i = 0; i < a.entries.size(); ++i)
    if (!same_entry(a.entries[i], b.entries[i])) return false;
  return true;
}

// Parses JSON text and builds its table for the H200 with the test candidates.
Status build_from_text(const std::string& text, std::shared_ptr<const TuningTable>* table = nullptr,
                       const DeviceDescription& device = h200()) {
  TuningDocument doc;
  if (Status s = parse_tuning_json(text, &doc); !s.ok()) return s;
  std::shared_ptr<const TuningTable> local;
  return build_table(doc, device, test_candidates(), "test", table != nullptr ? table : &local);
}

// The sample file's JSON with one change applied.
template <class F>
std::string edited(F&& edit) {
  json j = json::parse(sample_text());
  edit(j);
  return j.dump();
}

// ---- M buckets
// ----------------------------------------------------------------------------------------------

TEST(TuningBuckets, BoundsAreExactThenQuarterOctaves) {
  const int64_t first[] = {1,  2,  3,  4,  5,  6,  7,   8,   10,  12,  14,  16,  20,  24,  28,  32,
                           40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512};
  for (int b = 0; b < static_cast<int>(std::size(first)); ++b) EXPECT_EQ(bucket_bound(b), first[b]) << b;
  EXPECT_EQ(bucket_bound(kBucketCount - 1), kMaxBucketM);
  EXPECT_EQ(bucket_bound(kBucketCount - 2), 14336);
  for (int b = 1; b < kBucketCount; ++b) EXPECT_LT(bucket_bound(b - 1), bucket_bound(b)) << b;
  // Every bound of the built-in rules is a bucket bound.
  for (int64_t rule_bound : {16, 32, 64, 128, 160, 192, 256, 512}) EXPECT_GE(bucket_of_bound(rule_bound), 0);
  static_assert(m_bucket(16) == 11 && bucket_bound(11) == 16, "constexpr");
}

TEST(TuningBuckets, EachMFallsInTheBucketAboveThePreviousBound) {
  for (int64_t m = 1; m <= 20000; ++m) {
    const int b = m_bucket(m);
    ASSERT_GE(b, 0) << m;
    if (m <= kMaxBucketM) {
      ASSERT_LE(m, bucket_bound(b)) << m;
      if (b > 0) {
        ASSERT_GT(m, bucket_bound(b - 1)) << m;
      }
    } else {
      ASSERT_EQ(b, kBucketCount - 1) << m;
    }
  }
}

TEST(TuningBuckets, Edges) {
  EXPECT_EQ(m_bucket(0), -1);
  EXPECT_EQ(m_bucket(-1), -1);
  EXPECT_EQ(m_bucket(std::numeric_limits<int64_t>::min()), -1);
  EXPECT_EQ(bucket_bound(m_bucket(8)), 8);
  EXPECT_EQ(bucket_bound(m_bucket(9)), 10);
  EXPECT_EQ(bucket_bound(m_bucket(10)), 10);
  EXPECT_EQ(bucket_bound(m_bucket(11)), 12);
  EXPECT_EQ(bucket_bound(m_bucket(129)), 160);
  EXPECT_EQ(bucket_bound(m_bucket(160)), 160);
  EXPECT_EQ(bucket_bound(m_bucket(161)), 192);
  EXPECT_EQ(bucket_bound(m_bucket(16383)), 16384);
  EXPECT_EQ(m_bucket(16385), kBucketCount - 1);
  EXPECT_EQ(m_bucket(std::numeric_limits<int64_t>::max()), kBucketCount - 1);
  for (int b = 0; b < kBucketCount; ++b) EXPECT_EQ(bucket_of_bound(bucket_bound(b)), b);
  EXPECT_EQ(bucket_of_bound(9), -1);
  EXPECT_EQ(bucket_of_bound(100), -1);
  EXPECT_EQ(bucket_of_bound(16385), -1);
  EXPECT_EQ(bucket_of_bound(0), -1);
}

TEST(TuningBuckets, LimitsAreTheArguments) {
  EXPECT_EQ(kMaxExtent, ::bwgemm::detail::kMaxGemmExtent);
  EXPECT_EQ(kMaxBatch, ::bwgemm::detail::kMaxBatch);
}

// ---- selection
// ------------------------------------------------------------------------------------------------

TEST(TuningSelect, FasterBeyondTheNoiseWins) {
  const std::vector<Timing> t = {{10.0, 0.1}, {9.0, 0.1}, {9.5, 0.1}};
  const Selection s = select_candidate(t, 0);
  EXPECT_EQ(s.index, 1);
  EXPECT_FALSE(s.kept_builtin);
}

TEST(TuningSelect, FasterWithinTheNoiseKeepsTheBuiltin) {
  // 0.4 faster, noise 0.25 + 0.25: within it.
  const std::vector<Timing> t = {{9.6, 0.25}, {10.0, 0.25}};
  EXPECT_EQ(select_candidate(t, 1).index, 1);
  EXPECT_TRUE(select_candidate(t, 1).kept_builtin);
  // Exactly the summed noise is not beyond it.
  const std::vector<Timing> edge = {{10.0, 0.25}, {9.5, 0.25}};
  EXPECT_EQ(select_candidate(edge, 0).index, 0);
  const std::vector<Timing> beyond = {{10.0, 0.25}, {9.49, 0.25}};
  EXPECT_EQ(select_candidate(beyond, 0).index, 1);
}

TEST(TuningSelect, TiesAndAllEqual) {
  const std::vector<Timing> equal = {{5.0, 0.0}, {5.0, 0.0}, {5.0, 0.0}};
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(select_candidate(equal, b).index, b);
    EXPECT_TRUE(select_candidate(equal, b).kept_builtin);
  }
  // Without a built-in choice the lowest index among equals wins.
  EXPECT_EQ(select_candidate(equal, -1).index, 0);
  EXPECT_FALSE(select_candidate(equal, -1).kept_builtin);
  // Two candidates beat the built-in choice by the same time: the lower index.
  const std::vector<Timing> two = {{10.0, 0.0}, {8.0, 0.0}, {8.0, 0.0}};
  EXPECT_EQ(select_candidate(two, 0).index, 1);
  const std::vector<Timing> two_after = {{8.0, 0.0}, {8.0, 0.0}, {10.0, 0.0}};
  EXPECT_EQ(select_candidate(two_after, 2).index, 0);
}

TEST(TuningSelect, AmongWinnersTheLowestMedian) {
  // Candidate 1 beats the noise but candidate 2 is faster and beats it too; candidate 3 is fastest but noisy.
  const std::vector<Timing> t = {{10.0, 0.1}, {9.0, 0.1}, {8.5, 0.1}, {8.0, 2.5}};
  EXPECT_EQ(select_candidate(t, 0).index, 2);
}

TEST(TuningSelect, ZeroNoiseAndRelativeGain) {
  const std::vector<Timing> t = {{10.0, 0.0}, {9.9, 0.0}};
  EXPECT_EQ(select_candidate(t, 0).index, 1);
  EXPECT_EQ(select_candidate(t, 0, 0.02).index, 0);  // 1% faster: below a 2% margin
  EXPECT_EQ(select_candidate(t, 0, 0.005).index, 1);
}

TEST(TuningSelect, UnmeasuredCandidates) {
  const double nan = std::nan("");
  // A candidate that could not run is skipped.
  EXPECT_EQ(select_candidate({{10.0, 0.1}, {nan, 0.1}, {9.0, 0.1}}, 0).index, 2);
  EXPECT_EQ(select_candidate({{10.0, 0.1}, {-1.0, 0.1}, {9.0, nan}}, 0).index, 0);
  // The built-in choice unmeasured (or out of range): the fastest measured one.
  EXPECT_EQ(select_candidate({{nan, 0.1}, {9.0, 0.1}, {8.9, 5.0}}, 0).index, 2);
  EXPECT_EQ(select_candidate({{10.0, 0.1}, {9.0, 0.1}}, 7).index, 1);
  EXPECT_EQ(select_candidate({{std::numeric_limits<double>::infinity(), 0}, {9.0, 0.1}}, 0).index, 1);
  // Nothing measured.
  EXPECT_EQ(select_candidate({{nan, 0.0}, {-2.0, 0.0}}, 0).index, -1);
  EXPECT_EQ(select_candidate(std::vector<Timing>{}, 0).index, -1);
}

// ---- the file: round trip
// --------------------------------------------------------------------------------------

TEST(TuningFile, WriteThenReadGivesTheSameDocument) {
  const TuningDocument doc = sample_document();
  std::string text;
  ASSERT_TRUE(write_tuning_json(doc, &text).ok());
  TuningDocument back;
  const Status s = parse_tuning_json(text, &back);
  ASSERT_TRUE(s.ok()) << s.to_string() << "\n" << text;
  EXPECT_TRUE(same_document(doc, back)) << text;
  // The text is stable: writing what was read gives the same bytes.
  std::string again;
  ASSERT_TRUE(write_tuning_json(back, &again).ok());
  EXPECT_EQ(text, again);
  // One entry a line.
  EXPECT_NE(
      text.find("\n    {\"op\":\"gemm\",\"in\":\"bf16\",\"out\":\"bf16\",\"b_layout\":\"nk\",\"n\":4096"),
      std::string::npos)
      << text;
}

TEST(TuningFile, WriteThenReadThroughAFile) {
  const std::string path = temp_path("round_trip.json");
  ASSERT_TRUE(write_tuning_file(path, sample_document()).ok());
  TuningDocument back;
  ASSERT_TRUE(read_tuning_file(path, &back).ok());
  EXPECT_TRUE(same_document(sample_document(), back));
  std::shared_ptr<const TuningTable> table;
  const Status s = load_tuning_file(path, h200(), test_candidates(), &table);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->size(), 3u);
  EXPECT_EQ(table->source_name(), "tuning file '" + path + "'");
  std::remove(path.c_str());
}

TEST(TuningFile, EmptyEntriesRoundTrip) {
  TuningDocument doc = sample_document();
  doc.entries.clear();
  std::string text;
  ASSERT_TRUE(write_tuning_json(doc, &text).ok());
  TuningDocument back;
  ASSERT_TRUE(parse_tuning_json(text, &back).ok()) << text;
  EXPECT_TRUE(same_document(doc, back));
}

TEST(TuningFile, WriterRefusesWhatTheReaderWould) {
  std::string text = "unchanged";
  TuningDocument doc = sample_document();
  doc.entries[0].measured[0].median_us = std::nan("");
  EXPECT_FALSE(write_tuning_json(doc, &text).ok());
  doc = sample_document();
  doc.entries[0].measured[1].noise_us = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(write_tuning_json(doc, &text).ok());
  doc = sample_document();
  doc.entries[1].m = 100;
  EXPECT_FALSE(write_tuning_json(doc, &text).ok());
  doc = sample_document();
  doc.entries.push_back(doc.entries[0]);
  EXPECT_FALSE(write_tuning_json(doc, &text).ok());
  doc = sample_document();
  doc.metadata.gpu = "bad \xff utf-8";
  EXPECT_FALSE(write_tuning_json(doc, &text).ok());
  EXPECT_EQ(text, "unchanged");
  EXPECT_FALSE(write_tuning_file(temp_path("no_such_dir/x/y.json"), sample_document()).ok());
}

// The example in docs/tuning.md is a valid file for the device it names.
TEST(TuningFile, DocsExampleIsValid) {
  std::ifstream in(std::string(BWGEMM_SOURCE_DIR) + "/docs/tuning.md");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string md = ss.str();
  const size_t start = md.find("```json\n");
  ASSERT_NE(start, std::string::npos);
  const size_t end = md.find("```", start + 8);
  ASSERT_NE(end, std::string::npos);
  TuningDocument doc;
  const Status s = parse_tuning_json(md.substr(start + 8, end - start - 8), &doc);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(doc.metadata.gpu, "NVIDIA H200");
  DeviceDescription device = h200();
  device.bwgemm_major = 0, device.bwgemm_minor = 1;  // the example's version
  Candidates names;
  const char* const gemm[] = {"GemmSwapAbTokens16", "GemmSwapAbTokens32", "GemmSwapAbTokens64", "GemmTile128x256",
                              "GemmTile128x192",   "GemmPingPong128x128", "GemmStreamK128x256"};
  names[Operation::kGemm] = {gemm, 7};
  std::shared_ptr<const TuningTable> table;
  const Status b = build_table(doc, device, names, "docs", &table);
  EXPECT_TRUE(b.ok()) << b.to_string();
}

// ---- the file: malformed
// --------------------------------------------------------------------------------------

// Every proper prefix of a valid file is refused (never a throw, never a crash).
TEST(TuningMalformed, Truncated) {
  const std::string text = sample_text();
  ASSERT_TRUE(build_from_text(text).ok());
  for (size_t n = 0; n + 1 < text.size(); ++n) {
    TuningDocument doc;
    const Status s = parse_tuning_json(std::string_view(text).substr(0, n), &doc);
    ASSERT_FALSE(s.ok()) << n;
    EXPECT_EQ(doc.entries.size(), 0u);
  }
  EXPECT_FALSE(build_from_text("").ok());
  EXPECT_FALSE(build_from_text("[]").ok());
  EXPECT_FALSE(build_from_text("null").ok());
  EXPECT_FALSE(build_from_text(text + "{").ok());
}

TEST(TuningMalformed, WrongTypes) {
  const auto refused = [](const std::string& text, const std::string& names) {
    const Status s = build_from_text(text);
    EXPECT_FALSE(s.ok()) << text;
    EXPECT_NE(s.message().find(names), std::string::npos) << s.to_string();
  };
  refused(edited([](json& j) { j["entries"][0]["n"] = "4096"; }), "entries[0].n must be an integer");
  refused(edited([](json& j) { j["entries"][0]["n"] = 4096.5; }), "entries[0].n must be an integer");
  refused(edited([](json& j) { j["entries"][0]["k"] = 4096.0; }), "entries[0].k must be an integer");
  refused(edited([](json& j) { j["entries"][1]["config"] = 3; }), "entries[1].config must be a string");
  refused(edited([](json& j) { j["entries"][1]["stream_k"] = "yes"; }), "entries[1].stream_k");
  refused(edited([](json& j) { j["entries"][0]["measured"] = json::object(); }), "measured must be an array");
  refused(edited([](json& j) { j["entries"][0]["measured"][1]["median_us"] = "9"; }),
          "measured[1].median_us");
  refused(edited([](json& j) { j["entries"][0]["measured"][1]["median_us"] = nullptr; }),
          "measured[1].median_us");
  refused(edited([](json& j) { j["entries"] = json::object(); }), "entries must be an array");
  refused(edited([](json& j) { j["entries"][2] = 7; }), "entries[2] must be an object");
  refused(edited([](json& j) { j["metadata"]["sm_count"] = "132"; }), "metadata.sm_count");
  refused(edited([](json& j) { j["metadata"]["compute_capability"] = 9.0; }), "metadata.compute_capability");
  refused(edited([](json& j) { j["metadata"]["compute_capability"] = "9"; }), "metadata.compute_capability");
  refused(edited([](json& j) { j["metadata"]["cuda_runtime"] = 13000; }), "metadata.cuda_runtime");
  refused(edited([](json& j) { j["metadata"] = json::array(); }), "metadata must be an object");
  refused(edited([](json& j) { j["entries"][0]["op"] = "grouped_conv"; }), "entries[0].op");
  // A known operation this device's lists do not have (the grouped ones are sm_100a's).
  refused(edited([](json& j) { j["entries"][0]["op"] = "grouped_gemm"; }), "grouped_gemm has no candidates here");
  refused(edited([](json& j) { j["entries"][0]["in"] = "fp8"; }), "entries[0].in");
  refused(edited([](json& j) { j["entries"][0]["b_layout"] = "NK"; }), "entries[0].b_layout");
  refused(edited([](json& j) { j["entries"][0]["in"] = "nvfp4"; }), "has no nvfp4");
  refused(edited([](json& j) { j["metadata"]["launch"] = "graphs"; }), "metadata.launch");
  refused(edited([](json& j) { j["metadata"]["l2"] = "cold"; }), "metadata.l2");
  refused(edited([](json& j) { j["metadata"]["date"] = "2026-13-01"; }), "metadata.date");
  refused(edited([](json& j) { j["metadata"]["bwgemm_version"] = "0.1"; }), "metadata.bwgemm_version");
  refused(edited([](json& j) { j["format"] = "vllm"; }), "format");
  refused(edited([](json& j) { j["version"] = 2; }), "format version 2");
  refused(edited([](json& j) { j["entries"][0]["splitk"] = 2; }), "unknown field 'splitk'");
  refused(edited([](json& j) { j["metadata"]["gpu_name"] = "x"; }), "unknown field 'gpu_name'");
  refused(edited([](json& j) { j["extra"] = 1; }), "unknown field 'extra'");
}

TEST(TuningMalformed, MissingFields) {
  for (const char* key : {"format", "version", "metadata", "entries"}) {
    const Status s = build_from_text(edited([&](json& j) { j.erase(key); }));
    EXPECT_FALSE(s.ok()) << key;
    EXPECT_NE(s.message().find(key), std::string::npos) << s.to_string();
  }
  for (const char* key : {"gpu", "sm_count", "compute_capability", "cuda_runtime", "cuda_driver",
                          "bwgemm_version", "launch", "l2", "date"}) {
    const Status s = build_from_text(edited([&](json& j) { j["metadata"].erase(key); }));
    EXPECT_FALSE(s.ok()) << key;
    EXPECT_NE(s.message().find(std::string("metadata.") + key + " is missing"), std::string::npos)
        << s.to_string();
  }
  for (const char* key : {"op", "in", "out", "b_layout", "n", "k", "m", "config"}) {
    const Status s = build_from_text(edited([&](json& j) { j["entries"][1].erase(key); }));
    EXPECT_FALSE(s.ok()) << key;
    EXPECT_NE(s.message().find(std::string("entries[1].") + key + " is missing"), std::string::npos)
        << s.to_string();
  }
  for (const char* key : {"config", "median_us", "noise_us"}) {
    const Status s = build_from_text(edited([&](json& j) { j["entries"][0]["measured"][2].erase(key); }));
    EXPECT_FALSE(s.ok()) << key;
  }
  // The optional fields may be left out.
  for (const char* key : {"batch", "split_k", "rules", "measured"})
    EXPECT_TRUE(build_from_text(edited([&](json& j) { j["entries"][0].erase(key); })).ok()) << key;
  EXPECT_TRUE(build_from_text(edited([&](json& j) { j["metadata"].erase("command"); })).ok());
}

TEST(TuningMalformed, HugeAndNegativeValues) {
  const auto refused = [](const std::string& text) {
    const Status s = build_from_text(text);
    EXPECT_FALSE(s.ok()) << text;
    return s.message();
  };
  refused(edited([](json& j) { j["entries"][0]["n"] = 1e30; }));
  refused(edited([](json& j) { j["entries"][0]["n"] = std::numeric_limits<uint64_t>::max(); }));
  refused(edited([](json& j) { j["entries"][0]["n"] = std::numeric_limits<int64_t>::min(); }));
  refused(edited([](json& j) { j["entries"][0]["n"] = kMaxExtent + 1; }));
  EXPECT_TRUE(build_from_text(edited([](json& j) { j["entries"][0]["n"] = kMaxExtent; })).ok());
  refused(edited([](json& j) { j["entries"][0]["n"] = -4096; }));
  refused(edited([](json& j) { j["entries"][0]["k"] = 0; }));
  refused(edited([](json& j) { j["entries"][0]["m"] = -16; }));
  refused(edited([](json& j) { j["entries"][0]["m"] = 0; }));
  refused(edited([](json& j) { j["entries"][0]["m"] = 32768; }));
  EXPECT_NE(refused(edited([](json& j) { j["entries"][0]["m"] = 100; })).find("not an M bucket bound"),
            std::string::npos);
  refused(edited([](json& j) { j["entries"][0]["batch"] = 65536; }));
  refused(edited([](json& j) { j["entries"][0]["batch"] = 0; }));
  refused(edited([](json& j) { j["entries"][0]["split_k"] = 1000; }));
  refused(edited([](json& j) { j["entries"][0]["split_k"] = 0; }));
  refused(edited([](json& j) { j["entries"][0]["split_k"] = -2; }));
  refused(edited([](json& j) { j["entries"][0]["measured"][0]["median_us"] = 1e300; }));
  refused(edited([](json& j) { j["entries"][0]["measured"][0]["noise_us"] = -0.5; }));
  refused(edited([](json& j) { j["metadata"]["sm_count"] = 0; }));
  refused(edited([](json& j) { j["metadata"]["sm_count"] = -132; }));
  refused(edited([](json& j) { j["metadata"]["sm_count"] = 1e12; }));
  refused(edited([](json& j) { j["metadata"]["gpu"] = std::string(1000, 'x'); }));
  refused(edited([](json& j) { j["metadata"]["gpu"] = ""; }));
  refused(edited([](json& j) {
    for (int i = 0; i < 300; ++i)
      j["entries"][0]["measured"].push_back({{"config", "GemmTile128x256"}, {"median_us", 1.0}, {"noise_us", 0.0}});
  }));
}

TEST(TuningMalformed, NanTimes) {
  // JSON has no NaN: a NaN or Infinity literal is a syntax error, and a writer's NaN (null) is the wrong
  // type.
  std::string text = sample_text();
  const std::string median = "\"median_us\":9.8125";
  const size_t at = text.find(median);
  ASSERT_NE(at, std::string::npos) << text;
  for (const char* bad : {"NaN", "nan", "Infinity", "-Infinity", "null", "1e400"}) {
    std::string t = text;
    t.replace(at, median.size(), std::string("\"median_us\":") + bad);
    EXPECT_FALSE(build_from_text(t).ok()) << bad;
  }
}

TEST(TuningMalformed, NotJsonAtAll) {
  EXPECT_FALSE(build_from_text(std::string("\x00\x01\x02", 3)).ok());
  EXPECT_FALSE(build_from_text("{\"format\": \"bwgemm-tuning\", \"version\": 1,}").ok());
  // A string that is not UTF-8.
  std::string text = sample_text();
  const size_t at = text.find("NVIDIA H200");
  text[at + 2] = static_cast<char>(0xff);
  EXPECT_FALSE(build_from_text(text).ok());
  // Deep nesting: refused, no stack overflow.
  EXPECT_FALSE(build_from_text(std::string(200000, '[') + std::string(200000, ']')).ok());
  std::string nested =
      "{\"format\": \"bwgemm-tuning\", \"version\": 1, \"extra\": " + std::string(100000, '[') +
      std::string(100000, ']') + "}";
  EXPECT_FALSE(build_from_text(nested).ok());
  // A file that does not exist, a directory.
  TuningDocument doc;
  EXPECT_FALSE(read_tuning_file(temp_path("does_not_exist.json"), &doc).ok());
  EXPECT_FALSE(read_tuning_file(::testing::TempDir(), &doc).ok());
}

TEST(TuningMalformed, RepeatedKey) {
  const Status s = build_from_text(edited([](json& j) { j["entries"].push_back(j["entries"][1]); }));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("entries[1] and entries[3] have the same key"), std::string::npos)
      << s.to_string();
  // Another bucket, batch or layout is another key.
  EXPECT_TRUE(build_from_text(edited([](json& j) {
                json e = j["entries"][1];
                e["m"] = 768;
                j["entries"].push_back(e);
                e["batch"] = 2;
                j["entries"].push_back(e);
              })).ok());
}

// ---- the file: device and names
// ------------------------------------------------------------------------------

TEST(TuningDevice, EachMetadataFieldMustMatch) {
  struct Case {
    const char* field;
    void (*change)(DeviceDescription&);
  };
  const Case cases[] = {
      {"metadata.gpu", [](DeviceDescription& d) { d.name = "NVIDIA H100 80GB HBM3"; }},
      {"metadata.sm_count", [](DeviceDescription& d) { d.sm_count = 114; }},
      {"metadata.compute_capability", [](DeviceDescription& d) { d.cc_major = 10; }},
      {"metadata.compute_capability", [](DeviceDescription& d) { d.cc_minor = 1; }},
      {"metadata.cuda_runtime", [](DeviceDescription& d) { d.cuda_runtime = 12080; }},
      {"metadata.cuda_driver", [](DeviceDescription& d) { d.cuda_driver = 14000; }},
      {"metadata.bwgemm_version", [](DeviceDescription& d) { d.bwgemm_major += 1; }},
      {"metadata.bwgemm_version", [](DeviceDescription& d) { d.bwgemm_minor += 1; }},
  };
  const std::string text = sample_text();
  ASSERT_TRUE(build_from_text(text).ok());
  for (const Case& c : cases) {
    DeviceDescription device = h200();
    c.change(device);
    std::shared_ptr<const TuningTable> table;
    const Status s = build_from_text(text, &table, device);
    EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch) << c.field << ": " << s.to_string();
    EXPECT_NE(s.message().find(c.field), std::string::npos) << s.to_string();
    EXPECT_EQ(table, nullptr);
  }
  // Minor CUDA versions and bwgemm's patch level may differ.
  DeviceDescription device = h200();
  device.cuda_runtime = 13020, device.cuda_driver = 13010;
  EXPECT_TRUE(build_from_text(text, nullptr, device).ok());
  EXPECT_TRUE(build_from_text(edited([](json& j) {
                j["metadata"]["bwgemm_version"] =
                    std::to_string(BWGEMM_VERSION_MAJOR) + "." + std::to_string(BWGEMM_VERSION_MINOR) + ".99";
              })).ok());
}

TEST(TuningDevice, UnknownConfigNamesRefuseTheWholeFile) {
  const auto refused = [](const std::string& text, const std::string& names) {
    std::shared_ptr<const TuningTable> table;
    const Status s = build_from_text(text, &table);
    EXPECT_FALSE(s.ok()) << text;
    EXPECT_NE(s.message().find(names), std::string::npos) << s.to_string();
    EXPECT_EQ(table, nullptr);
  };
  refused(edited([](json& j) { j["entries"][1]["config"] = "GemmHuge"; }),
          "entries[1].config: 'GemmHuge' is not a gemm candidate");
  refused(edited([](json& j) { j["entries"][0]["rules"] = "GemmTiny"; }), "entries[0].rules");
  refused(edited([](json& j) { j["entries"][0]["measured"][2]["config"] = "gemmlarge"; }),
          "entries[0].measured[2].config");
  // Another operation's candidate.
  refused(edited([](json& j) { j["entries"][2]["config"] = "GemmTile128x256"; }), "not a dual_gemm candidate");
  // An operation with no candidates on this device.
  refused(edited([](json& j) {
            j["entries"][1]["op"] = "nvfp4_gemm";
            j["entries"][1]["in"] = "nvfp4";
            j["entries"][1]["b_layout"] = "nk";
          }),
          "nvfp4_gemm has no candidates");
}

// ---- lookup
// ---------------------------------------------------------------------------------------------------

std::shared_ptr<const TuningTable> sample_table(const DeviceDescription& device = h200()) {
  std::shared_ptr<const TuningTable> table;
  TuningDocument doc = sample_document();
  doc.metadata.gpu = device.name;
  doc.metadata.sm_count = device.sm_count;
  EXPECT_TRUE(build_table(doc, device, test_candidates(), "tuning file 'sample.json'", &table).ok());
  return table;
}

TEST(TuningLookup, FindsTheKeyAndItsBucket) {
  const auto table = sample_table();
  ASSERT_NE(table, nullptr);
  Choice c;
  ASSERT_TRUE(table->find(gemm_key(16), &c));
  EXPECT_EQ(c.config, 2);
  EXPECT_STREQ(c.config_name, "GemmSwapAbTokens16");
  EXPECT_EQ(c.split_k, 2);
  EXPECT_EQ(c.stream_k, StreamK::kUnspecified);
  EXPECT_EQ(c.bucket_m, 16);
  EXPECT_STREQ(c.source_name, "tuning file 'sample.json'");
  // Bucket 16 holds M = 15 and 16.
  EXPECT_TRUE(table->find(gemm_key(15), &c));
  EXPECT_FALSE(table->find(gemm_key(14), &c));
  EXPECT_FALSE(table->find(gemm_key(17), &c));
  EXPECT_FALSE(table->find(gemm_key(0), &c));
  EXPECT_FALSE(table->find(gemm_key(-16), &c));
  // Every other field of the key must match too.
  Key key = gemm_key(16);
  EXPECT_FALSE(table->find(gemm_key(16, 4095), &c));
  EXPECT_FALSE(table->find(gemm_key(16, 4096, 8192), &c));
  key.batch = 2;
  EXPECT_FALSE(table->find(key, &c));
  key = gemm_key(16), key.b_layout = BLayout::kRowMajorKxN;
  EXPECT_FALSE(table->find(key, &c));
  key = gemm_key(16), key.out = Element::kFp32;
  EXPECT_FALSE(table->find(key, &c));
  key = gemm_key(16), key.in = Element::kFp16;
  EXPECT_FALSE(table->find(key, &c));
  key = gemm_key(16), key.op = Operation::kDualGemm;
  EXPECT_FALSE(table->find(key, &c));
  // The fp32-out, B K x N entry: bucket 1024 holds 897 .. 1024; stream-K on.
  key = gemm_key(897), key.out = Element::kFp32, key.b_layout = BLayout::kRowMajorKxN;
  ASSERT_TRUE(table->find(key, &c));
  EXPECT_STREQ(c.config_name, "GemmTile128x256");
  EXPECT_EQ(c.split_k, 0);
  EXPECT_EQ(c.stream_k, StreamK::kOn);
  key.m = 896;
  EXPECT_FALSE(table->find(key, &c));
  // The dual GEMM entry, batch 2, bucket 160 (129 .. 160).
  key = Key{
      Operation::kDualGemm, Element::kFp16, Element::kFp16, BLayout::kColumnMajorKxN, 129, 14336, 4096, 2};
  ASSERT_TRUE(table->find(key, &c));
  EXPECT_STREQ(c.config_name, "DualSwapAb16");
  EXPECT_EQ(c.config, 1);
}

TEST(TuningLookup, LastBucketHoldsEveryLargerM) {
  TuningDocument doc = sample_document();
  doc.entries = {gemm_entry(8192, 8192, kMaxBucketM, "GemmTile128x256")};
  std::shared_ptr<const TuningTable> table;
  ASSERT_TRUE(build_table(doc, h200(), test_candidates(), "t", &table).ok());
  Choice c;
  for (int64_t m : {int64_t{14337}, int64_t{16384}, int64_t{16385}, int64_t{1} << 30, kMaxExtent})
    EXPECT_TRUE(table->find(gemm_key(m, 8192, 8192), &c)) << m;
  EXPECT_FALSE(table->find(gemm_key(14336, 8192, 8192), &c));
}

const BuiltinEntry kBuiltinEntries[] = {
    {Operation::kGemm, Element::kBf16, Element::kBf16, BLayout::kColumnMajorKxN, 4096, 4096, 1, 16,
     "GemmTile128x256"},
    {Operation::kGemm, Element::kBf16, Element::kBf16, BLayout::kColumnMajorKxN, 4096, 4096, 1, 32,
     "GemmTile128x128", 4},
};
const BuiltinTable kBuiltin{"h200", "NVIDIA H200", 9, 0, 0, kBuiltinEntries, 2};

Choice rules_choice() {
  Choice c;
  c.config = 3;
  c.config_name = "GemmSwapAbTokens32";
  return c;
}

TEST(TuningLookup, InstalledThenBuiltinThenRules) {
  Registry r;
  r.install(nullptr);  // BWGEMM_TUNING_FILE: not read
  ASSERT_TRUE(r.register_builtin(kBuiltin, test_candidates()).ok());
  const DeviceDescription device = h200();

  // No table installed: the built-in table, then the rules.
  Choice c = r.choose(gemm_key(16), device, rules_choice);
  EXPECT_EQ(c.source, Source::kBuiltin);
  EXPECT_STREQ(c.config_name, "GemmTile128x256");
  EXPECT_STREQ(c.source_name, "built-in table 'h200'");
  c = r.choose(gemm_key(64), device, rules_choice);
  EXPECT_EQ(c.source, Source::kRules);
  EXPECT_STREQ(c.config_name, "GemmSwapAbTokens32");
  EXPECT_STREQ(c.source_name, "rules");
  EXPECT_EQ(c.bucket_m, 64);
  EXPECT_FALSE(r.lookup(gemm_key(64), device).found());

  // Installed: it wins where it has the key; the built-in table still answers the rest.
  r.install(sample_table());
  c = r.choose(gemm_key(16), device, rules_choice);
  EXPECT_EQ(c.source, Source::kInstalled);
  EXPECT_STREQ(c.config_name, "GemmSwapAbTokens16");
  EXPECT_EQ(c.split_k, 2);
  c = r.choose(gemm_key(32), device, rules_choice);
  EXPECT_EQ(c.source, Source::kBuiltin);
  EXPECT_STREQ(c.config_name, "GemmTile128x128");
  EXPECT_EQ(c.split_k, 4);
  EXPECT_EQ(r.choose(gemm_key(64), device, rules_choice).source, Source::kRules);

  // Uninstalled: the built-in table again.
  r.install(nullptr);
  EXPECT_EQ(r.choose(gemm_key(16), device, rules_choice).source, Source::kBuiltin);
}

TEST(TuningLookup, TablesApplyOnlyToTheirDevice) {
  Registry r;
  r.install(sample_table());
  ASSERT_TRUE(r.register_builtin(kBuiltin, test_candidates()).ok());
  DeviceDescription other = h200();
  other.sm_count =
      66;  // an H200 slice: the installed file (132 SMs) does not apply; the built-in table (any) does
  EXPECT_EQ(r.lookup(gemm_key(16), other).source, Source::kBuiltin);
  other.name = "NVIDIA B200", other.cc_major = 10;
  EXPECT_FALSE(r.lookup(gemm_key(16), other).found());
  EXPECT_EQ(r.lookup(gemm_key(16), h200()).source, Source::kInstalled);
}

TEST(TuningLookup, BuiltinTablesAreCheckedAndReplacedByName) {
  Registry r;
  r.install(nullptr);
  const BuiltinEntry bad_name[] = {{Operation::kGemm, Element::kBf16, Element::kBf16,
                                    BLayout::kColumnMajorKxN, 4096, 4096, 1, 16, "GemmHuge"}};
  Status s = r.register_builtin({"h200", "NVIDIA H200", 9, 0, 0, bad_name, 1}, test_candidates());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("built-in table 'h200': entries[0].config: 'GemmHuge'"), std::string::npos)
      << s.to_string();
  const BuiltinEntry bad_bucket[] = {{Operation::kGemm, Element::kBf16, Element::kBf16,
                                      BLayout::kColumnMajorKxN, 4096, 4096, 1, 17, "GemmTile128x256"}};
  EXPECT_FALSE(r.register_builtin({"h200", "NVIDIA H200", 9, 0, 0, bad_bucket, 1}, test_candidates()).ok());
  EXPECT_FALSE(
      r.register_builtin({nullptr, "NVIDIA H200", 9, 0, 0, kBuiltinEntries, 2}, test_candidates()).ok());
  EXPECT_FALSE(r.register_builtin({"h200", "NVIDIA H200", 9, 0, 0, nullptr, 2}, test_candidates()).ok());
  EXPECT_FALSE(r.register_builtin({"h200", nullptr, 9, 0, 0, kBuiltinEntries, 2}, test_candidates()).ok());
  EXPECT_FALSE(r.lookup(gemm_key(16), h200()).found());

  ASSERT_TRUE(r.register_builtin(kBuiltin, test_candidates()).ok());
  const BuiltinEntry replacement[] = {{Operation::kGemm, Element::kBf16, Element::kBf16,
                                       BLayout::kColumnMajorKxN, 4096, 4096, 1, 16, "GemmTile128x128"}};
  ASSERT_TRUE(r.register_builtin({"h200", "NVIDIA H200", 9, 0, 0, replacement, 1}, test_candidates()).ok());
  Choice c = r.lookup(gemm_key(16), h200());
  EXPECT_STREQ(c.config_name, "GemmTile128x128");
  EXPECT_FALSE(r.lookup(gemm_key(32), h200()).found());
}

TEST(TuningLookup, AllocatesNothing) {
  Registry r;
  r.install(sample_table());
  ASSERT_TRUE(r.register_builtin(kBuiltin, test_candidates()).ok());
  const DeviceDescription device = h200();
  r.lookup(gemm_key(16), device);  // refreshes this thread's snapshot
  counted_allocations = 0;
  counting_allocations = true;
  int found = 0;
  for (int64_t m = 1; m <= 2048; ++m) {
    found += r.lookup(gemm_key(m), device).found();
    found += r.choose(gemm_key(m), device, rules_choice).source == Source::kRules;
  }
  counting_allocations = false;
  EXPECT_EQ(counted_allocations.load(), 0);
  EXPECT_EQ(found, 2048);  // lookup finds M = 15 .. 16 (installed) and 31 .. 32 (built-in); choose the rest
  // The counter works: a string allocates.
  counting_allocations = true;
  std::string s(100, 'x');
  counting_allocations = false;
  EXPECT_GT(counted_allocations.load(), 0);
}

// ---- diagnostics
// ------------------------------------------------------------------------------------------------

TEST(TuningDiagnostics, ChooseSaysWhichSourceChose) {
  Registry r;
  r.install(sample_table());
  ASSERT_TRUE(r.register_builtin(kBuiltin, test_candidates()).ok());
  set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  r.choose(gemm_key(16), h200(), rules_choice);
  r.choose(gemm_key(32), h200(), rules_choice);
  r.choose(gemm_key(33), h200(), rules_choice);
  const std::string out = ::testing::internal::GetCapturedStderr();
  set_diagnostics(false);
  EXPECT_NE(
      out.find("bwgemm: bwgemm::tuning gemm bf16->bf16 B nk M=16 N=4096 K=4096 batch=1 -> GemmSwapAbTokens16, "
               "split_k = 2 (tuning file 'sample.json', M bucket <= 16)"),
      std::string::npos)
      << out;
  EXPECT_NE(
      out.find(
          "M=32 N=4096 K=4096 batch=1 -> GemmTile128x128, split_k = 4 (built-in table 'h200', M bucket <= 32)"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("M=33 N=4096 K=4096 batch=1 -> GemmSwapAbTokens32 (rules, M bucket <= 40)"), std::string::npos)
      << out;

  ::testing::internal::CaptureStderr();
  r.choose(gemm_key(16), h200(), rules_choice);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(TuningDiagnostics, RefusedFileSaysWhy) {
  const std::string path = temp_path("refused.json");
  write_text(path, edited([](json& j) { j["entries"][0]["n"] = -1; }));
  std::shared_ptr<const TuningTable> table;
  set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const Status s = load_tuning_file(path, h200(), test_candidates(), &table);
  const std::string out = ::testing::internal::GetCapturedStderr();
  set_diagnostics(false);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(table, nullptr);
  EXPECT_NE(out.find("bwgemm: tuning: tuning file '" + path + "': entries[0].n must be an integer"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(": ignored"), std::string::npos) << out;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(load_tuning_file(path, h200(), test_candidates(), &table).ok());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  std::remove(path.c_str());
}

// ---- install_file and BWGEMM_TUNING_FILE
// ------------------------------------------------------------------------

TEST(TuningInstall, InstallFileKeepsThePreviousTableOnFailure) {
  Registry r;
  r.register_candidates(9, 0, test_candidates());
  const std::string good = temp_path("good.json"), bad = temp_path("bad.json");
  ASSERT_TRUE(write_tuning_file(good, sample_document()).ok());
  write_text(bad, sample_text().substr(0, 100));
  ASSERT_TRUE(install_file(good, h200(), r).ok());
  EXPECT_EQ(r.lookup(gemm_key(16), h200()).source, Source::kInstalled);
  EXPECT_FALSE(install_file(bad, h200(), r).ok());
  const Choice c = r.lookup(gemm_key(16), h200());
  EXPECT_EQ(c.source, Source::kInstalled);
  EXPECT_EQ(std::string(c.source_name), "tuning file '" + good + "'");
  // No candidates registered for the device's compute capability.
  DeviceDescription b200 = h200();
  b200.cc_major = 10;
  const Status s = install_file(good, b200, r);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported);
  EXPECT_NE(s.message().find("compute capability 10.0"), std::string::npos) << s.to_string();
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

// Sets BWGEMM_TUNING_FILE for one test.
class TuningEnvironment : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv(kTuningFileVariable); }
};

TEST_F(TuningEnvironment, FileIsInstalledAtTheFirstLookup) {
  const std::string path = temp_path("env.json");
  ASSERT_TRUE(write_tuning_file(path, sample_document()).ok());
  ASSERT_EQ(::setenv(kTuningFileVariable, path.c_str(), 1), 0);
  Registry r;
  r.register_candidates(9, 0, test_candidates());
  ASSERT_TRUE(r.register_builtin(kBuiltin, test_candidates()).ok());
  EXPECT_EQ(r.installed(), nullptr);  // not read before a lookup
  const Choice c = r.lookup(gemm_key(16), h200());
  EXPECT_EQ(c.source, Source::kInstalled);
  EXPECT_STREQ(c.config_name, "GemmSwapAbTokens16");
  EXPECT_EQ(std::string(c.source_name), "tuning file '" + path + "'");
  EXPECT_TRUE(r.environment_status().ok());
  ASSERT_NE(r.installed(), nullptr);
  // An install replaces it.
  r.install(nullptr);
  EXPECT_EQ(r.lookup(gemm_key(16), h200()).source, Source::kBuiltin);
  std::remove(path.c_str());
}

TEST_F(TuningEnvironment, RefusedFileIsIgnoredWithItsReason) {
  const std::string path = temp_path("env_bad.json");
  write_text(path, edited([](json& j) { j["metadata"]["sm_count"] = 114; }));
  ASSERT_EQ(::setenv(kTuningFileVariable, path.c_str(), 1), 0);
  Registry r;
  r.register_candidates(9, 0, test_candidates());
  set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const Choice c = r.choose(gemm_key(16), h200(), rules_choice);
  const std::string out = ::testing::internal::GetCapturedStderr();
  set_diagnostics(false);
  EXPECT_EQ(c.source, Source::kRules);
  const Status s = r.environment_status();
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch);
  EXPECT_NE(s.message().find("BWGEMM_TUNING_FILE = '" + path + "' ignored: tuning file '" + path +
                             "': metadata.sm_count is 114 but the device has 132"),
            std::string::npos)
      << s.to_string();
  EXPECT_NE(out.find(s.message()), std::string::npos) << out;
  std::remove(path.c_str());
}

TEST_F(TuningEnvironment, AnInstallBeforeTheFirstLookupWins) {
  const std::string path = temp_path("env_unused.json");
  ASSERT_TRUE(write_tuning_file(path, sample_document()).ok());
  ASSERT_EQ(::setenv(kTuningFileVariable, path.c_str(), 1), 0);
  Registry r;
  r.register_candidates(9, 0, test_candidates());
  r.install(nullptr);
  EXPECT_FALSE(r.lookup(gemm_key(16), h200()).found());
  EXPECT_EQ(r.installed(), nullptr);
  std::remove(path.c_str());
}

TEST_F(TuningEnvironment, WithoutCandidatesOrReaderTheFileIsIgnored) {
  const std::string path = temp_path("env_no_names.json");
  ASSERT_TRUE(write_tuning_file(path, sample_document()).ok());
  ASSERT_EQ(::setenv(kTuningFileVariable, path.c_str(), 1), 0);
  {
    Registry r;  // no candidate lists registered
    EXPECT_FALSE(r.lookup(gemm_key(16), h200()).found());
    EXPECT_EQ(r.environment_status().code(), StatusCode::kNotSupported);
    EXPECT_NE(r.environment_status().message().find("no candidate lists"), std::string::npos);
  }
  {
    // A program that does not include tuning/json.hpp has no reader.
    const FileReader reader = detail::file_reader().exchange(nullptr);
    ASSERT_EQ(reader, &read_table_file);
    Registry r;
    r.register_candidates(9, 0, test_candidates());
    EXPECT_FALSE(r.lookup(gemm_key(16), h200()).found());
    detail::file_reader().store(reader);
    EXPECT_NE(r.environment_status().message().find("include bwgemm/tuning/json.hpp"), std::string::npos)
        << r.environment_status().to_string();
  }
  std::remove(path.c_str());
}

TEST_F(TuningEnvironment, GlobalRegistry) {
  // The process's registry: bwgemm::install_tuning_table installs there.
  Registry& g = Registry::global();
  EXPECT_EQ(&g, &Registry::global());
  bwgemm::install_tuning_table(sample_table());
  EXPECT_EQ(g.lookup(gemm_key(16), h200()).source, Source::kInstalled);
  bwgemm::install_tuning_table(nullptr);
  EXPECT_FALSE(g.lookup(gemm_key(16), h200()).found());
}

// ---- threads
// ------------------------------------------------------------------------------------------------------

// Readers look up while one thread installs two tables (and none) in turn and registers built-in tables: each
// answer is one of the tables' whole answers.
TEST(TuningThreads, LookupsWhileInstalling) {
  Registry r;
  r.install(nullptr);
  TuningDocument doc_a = sample_document(), doc_b = sample_document();
  doc_b.entries[0].config = "GemmTile128x128";
  doc_b.entries[0].split_k = 8;
  std::shared_ptr<const TuningTable> a, b;
  ASSERT_TRUE(build_table(doc_a, h200(), test_candidates(), "a", &a).ok());
  ASSERT_TRUE(build_table(doc_b, h200(), test_candidates(), "b", &b).ok());

  std::atomic<bool> stop{false};
  std::atomic<long> wrong{0}, seen_a{0}, seen_b{0}, seen_none{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      const DeviceDescription device = h200();
      while (!stop.load(std::memory_order_relaxed)) {
        const Choice c = r.lookup(gemm_key(16), device);
        if (c.source == Source::kNone) {
          ++seen_none;
        } else if (c.source == Source::kInstalled && c.config == 2 && c.split_k == 2 &&
                   std::string_view(c.config_name) == "GemmSwapAbTokens16" &&
                   std::string_view(c.source_name) == "a") {
          ++seen_a;
        } else if (c.source == Source::kInstalled && c.config == 0 && c.split_k == 8 &&
                   std::string_view(c.config_name) == "GemmTile128x128" && std::string_view(c.source_name) == "b") {
          ++seen_b;
        } else if (!(c.source == Source::kBuiltin && std::string_view(c.config_name) == "GemmTile128x256")) {
          ++wrong;
        }
      }
    });
  for (int i = 0; i < 1000; ++i) {
    r.install(i % 3 == 0 ? a : i % 3 == 1 ? b : nullptr);
    if (i % 100 == 0) {
      EXPECT_TRUE(r.register_builtin(kBuiltin, test_candidates()).ok());
    }
    if (i % 10 == 0) std::this_thread::yield();
  }
  r.install(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(seen_a.load() + seen_b.load(), 0);
  // After the last install, every thread (one that looked up before, and a new one) sees it.
  EXPECT_STREQ(r.lookup(gemm_key(16), h200()).source_name, "a");
  std::thread([&] { EXPECT_STREQ(r.lookup(gemm_key(16), h200()).source_name, "a"); }).join();
}

}  // namespace
}  // namespace bwgemm::tuning
