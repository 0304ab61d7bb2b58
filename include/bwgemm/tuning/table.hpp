// Kernel-choice tables (docs/tuning.md): a tuning file's contents as plain data (TuningDocument: metadata and
// entries naming Configs by their stable names), its checks against the device and the operations' candidate
// lists, and the lookup structure built from it (TuningTable: a sorted flat array searched without
// allocating). Built-in tables are static arrays (BuiltinTable) turned into the same structure. Host C++17,
// no CUDA and no JSON: the JSON reader and writer are in tuning/json.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/macros.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/tuning/key.hpp"

namespace bwgemm::tuning {

// ---- the device -----------------------------------------------------------------------------------------

// The device (and library build) a table must match, as plain data: the entry points fill it from the CUDA
// runtime once per device; tests write it by hand.
struct DeviceDescription {
  std::string name;  // cudaDeviceProp::name, e.g. "NVIDIA H200"
  int sm_count = 0;  // cudaDeviceProp::multiProcessorCount (what the kernels see: a MIG slice has fewer)
  int cc_major = 0;  // compute capability, e.g. 9 and 0
  int cc_minor = 0;
  int cuda_runtime = 0;  // cudaRuntimeGetVersion: 1000 major + 10 minor, e.g. 13000 for 13.0
  int cuda_driver = 0;   // cudaDriverGetVersion, the same encoding
  int bwgemm_major = BWGEMM_VERSION_MAJOR;  // the library build looking the table up
  int bwgemm_minor = BWGEMM_VERSION_MINOR;
};

// ---- the document: a tuning file's contents ---------------------------------------------------------------

// How the times were measured: launches captured in a CUDA graph or issued on a stream; L2 flushed before
// each launch (cold) or not (warm).
enum class LaunchMode : uint8_t { kGraph, kStream };
enum class L2Mode : uint8_t { kCold, kWarm };
inline constexpr const char* kLaunchModeNames[2] = {"graph", "stream"};
inline constexpr const char* kL2ModeNames[2] = {"cold-l2", "warm-l2"};

struct Metadata {
  std::string gpu;   // matches DeviceDescription::name exactly
  int sm_count = 0;  // exactly
  int cc_major = 0;  // exactly ("compute_capability": "9.0")
  int cc_minor = 0;
  int cuda_runtime = 0;        // the major version must match ("cuda_runtime": "13.0" is 13000)
  int cuda_driver = 0;         // the major version must match
  std::string bwgemm_version;  // "0.1.0": major and minor must match the build
  LaunchMode launch = LaunchMode::kGraph;
  L2Mode l2 = L2Mode::kCold;
  std::string date;     // YYYY-MM-DD
  std::string command;  // the command that measured it (optional, provenance)
};

// One candidate's measured time for an entry (provenance: the lookup does not read it). median_us and
// noise_us: the median over the repetitions and its noise estimate, microseconds.
struct Measurement {
  std::string config;
  int split_k = 0;  // 0: the Config's own choice
  StreamK stream_k = StreamK::kUnspecified;
  double median_us = 0;
  double noise_us = 0;
};

// One choice: for (op, in, out, b_layout, n, k, batch) and the M bucket whose upper bound is m, run the
// candidate named `config`, with split_k (0: the rules choose the split) and stream_k where given.
struct Entry {
  Operation op = Operation::kGemm;
  Element in = Element::kBf16;
  Element out = Element::kBf16;
  BLayout b_layout = BLayout::kColumnMajorKxN;
  int64_t n = 0, k = 0, batch = 1;
  int64_t m = 0;  // a bucket bound (key.hpp)
  std::string config;
  int split_k = 0;
  StreamK stream_k = StreamK::kUnspecified;
  std::string rules_config;  // what the built-in rules chose at this point (optional, provenance)
  std::vector<Measurement> measured;
};

struct TuningDocument {
  int format_version = 1;
  Metadata metadata;
  std::vector<Entry> entries;
};

inline constexpr int kFormatVersion = 1;
// Bounds a file must keep (a longer string, a larger split or time, more entries: the file is refused).
inline constexpr size_t kMaxEntries = 100000;
inline constexpr size_t kMaxMeasured = 256;  // measurements per entry
inline constexpr size_t kMaxNameLength = 256;
inline constexpr size_t kMaxCommandLength = 4096;
inline constexpr int kMaxSplitK = 64;
inline constexpr double kMaxTimeUs = 1e9;  // 1000 s

// ---- the candidates ---------------------------------------------------------------------------------------

// The stable names of an operation's candidate Configs on one architecture, in the order the entry point
// numbers them: a table entry's Config becomes its index here. The arrays are the caller's (static storage:
// a table keeps pointers to the names).
struct CandidateList {
  const char* const* names = nullptr;
  int count = 0;
};
struct Candidates {
  CandidateList lists[kOperationCount] = {};

  const CandidateList& operator[](Operation op) const { return lists[static_cast<int>(op)]; }
  CandidateList& operator[](Operation op) { return lists[static_cast<int>(op)]; }
  // The index of `name` in op's list; -1 if absent.
  int find(Operation op, std::string_view name) const {
    const CandidateList& l = (*this)[op];
    for (int i = 0; i < l.count; ++i)
      if (l.names[i] != nullptr && name == l.names[i]) return i;
    return -1;
  }
};

namespace detail {

inline std::string in_quotes(std::string_view s) {
  return "'" + std::string(s) + "'";
}
inline std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}
inline bool finite_time(double t) {
  return std::isfinite(t) && t >= 0 && t <= kMaxTimeUs;
}
inline bool valid_date(const std::string& d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return false;
  const int month = (d[5] - '0') * 10 + (d[6] - '0'), day = (d[8] - '0') * 10 + (d[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}
// "major.minor.patch", each a decimal number; false otherwise.
inline bool parse_version(const std::string& v, int* major, int* minor) {
  int parts[3] = {0, 0, 0}, n = 0;
  size_t i = 0;
  for (; n < 3; ++n) {
    size_t start = i;
    long value = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9' && i - start < 6) value = value * 10 + (v[i++] - '0');
    if (i == start) return false;
    parts[n] = static_cast<int>(value);
    if (n < 2 && (i >= v.size() || v[i++] != '.')) return false;
  }
  if (i != v.size()) return false;
  *major = parts[0], *minor = parts[1];
  return true;
}
inline std::string entry_label(size_t i) {
  return "entries[" + std::to_string(i) + "]";
}
// Whether (in, out, b_layout) is a combination the operation has.
inline bool types_fit(Operation op, Element in, Element out, BLayout b_layout) {
  const bool nvfp4_op = op == Operation::kNvfp4Gemm || op == Operation::kNvfp4DualGemm;
  if (nvfp4_op) return in == Element::kNvfp4 && b_layout == BLayout::kColumnMajorKxN;
  return (in == Element::kFp16 || in == Element::kBf16) && out != Element::kNvfp4;
}

}  // namespace detail

// ---- checks
// ------------------------------------------------------------------------------------------------

// What every entry must hold whatever the device: known types for its operation, extents in range, m a
// bucket bound, split_k 0 .. kMaxSplitK, finite non-negative times, bounded strings; no two entries with one
// key. The JSON reader and writer both run it.
inline Status check_form(const TuningDocument& doc) {
  if (doc.format_version != kFormatVersion)
    return Status::not_supported("format version " + std::to_string(doc.format_version) +
                                 " (this build reads version " + std::to_string(kFormatVersion) + ")");
  const Metadata& md = doc.metadata;
  if (md.gpu.empty() || md.gpu.size() > kMaxNameLength)
    return Status::invalid_argument("metadata.gpu must be a non-empty name of at most " +
                                    std::to_string(kMaxNameLength) + " characters");
  if (md.sm_count < 1 || md.sm_count > 4096)
    return Status::invalid_argument("metadata.sm_count must be 1 .. 4096 (got " +
                                    std::to_string(md.sm_count) + ")");
  if (md.cc_major < 1 || md.cc_major > 99 || md.cc_minor < 0 || md.cc_minor > 9)
    return Status::invalid_argument("metadata.compute_capability must be 'major.minor' (got " +
                                    std::to_string(md.cc_major) + "." + std::to_string(md.cc_minor) + ")");
  if (md.cuda_runtime < 1000 || md.cuda_runtime > 99990 || md.cuda_driver < 1000 || md.cuda_driver > 99990)
    return Status::invalid_argument("metadata.cuda_runtime and cuda_driver must be 'major.minor' versions");
  int major = 0, minor = 0;
  if (!detail::parse_version(md.bwgemm_version, &major, &minor))
    return Status::invalid_argument("metadata.bwgemm_version must be 'major.minor.patch' (got " +
                                    detail::in_quotes(md.bwgemm_version.substr(0, kMaxNameLength)) + ")");
  if (!detail::valid_date(md.date))
    return Status::invalid_argument("metadata.date must be YYYY-MM-DD (got " +
                                    detail::in_quotes(md.date.substr(0, kMaxNameLength)) + ")");
  if (md.command.size() > kMaxCommandLength)
    return Status::invalid_argument("metadata.command is longer than " + std::to_string(kMaxCommandLength) +
                                    " characters");
  if (doc.entries.size() > kMaxEntries)
    return Status::invalid_argument(std::to_string(doc.entries.size()) + " entries (at most " +
                                    std::to_string(kMaxEntries) + ")");
  const auto name_ok = [](const std::string& s) { return !s.empty() && s.size() <= kMaxNameLength; };
  const auto split_ok = [](int s) { return s >= 0 && s <= kMaxSplitK; };
  for (size_t i = 0; i < doc.entries.size(); ++i) {
    const Entry& e = doc.entries[i];
    const std::string at = detail::entry_label(i);
    if (!detail::types_fit(e.op, e.in, e.out, e.b_layout))
      return Status::invalid_argument(at + ": " + to_string(e.op) + " has no " + to_string(e.in) + " -> " +
                                      to_string(e.out) + " with B " + layout_name(e.b_layout));
    if (e.n < 1 || e.n > kMaxExtent || e.k < 1 || e.k > kMaxExtent)
      return Status::invalid_argument(at + ": n and k must be 1 .. " + std::to_string(kMaxExtent) +
                                      " (got n = " + std::to_string(e.n) + ", k = " + std::to_string(e.k) +
                                      ")");
    if (e.batch < 1 || e.batch > kMaxBatch)
      return Status::invalid_argument(at + ": batch must be 1 .. " + std::to_string(kMaxBatch) + " (got " +
                                      std::to_string(e.batch) + ")");
    if (bucket_of_bound(e.m) < 0)
      return Status::invalid_argument(
          at + ": m = " + std::to_string(e.m) +
          " is not an M bucket bound (1 .. 8, then 10, 12, 14, 16, 20, 24, ..., " +
          std::to_string(kMaxBucketM) + ")");
    if (!name_ok(e.config)) return Status::invalid_argument(at + ": config must be a non-empty name");
    if (!split_ok(e.split_k))
      return Status::invalid_argument(at + ": split_k must be 1 .. " + std::to_string(kMaxSplitK) + " (got " +
                                      std::to_string(e.split_k) + ")");
    if (!e.rules_config.empty() && e.rules_config.size() > kMaxNameLength)
      return Status::invalid_argument(at + ": rules is longer than " + std::to_string(kMaxNameLength));
    if (e.measured.size() > kMaxMeasured)
      return Status::invalid_argument(at + ": more than " + std::to_string(kMaxMeasured) + " measurements");
    for (size_t j = 0; j < e.measured.size(); ++j) {
      const Measurement& t = e.measured[j];
      const std::string mat = at + ".measured[" + std::to_string(j) + "]";
      if (!name_ok(t.config)) return Status::invalid_argument(mat + ": config must be a non-empty name");
      if (!split_ok(t.split_k))
        return Status::invalid_argument(mat + ": split_k must be 1 .. " + std::to_string(kMaxSplitK));
      if (!detail::finite_time(t.median_us) || !detail::finite_time(t.noise_us))
        return Status::invalid_argument(mat + ": median_us and noise_us must be finite, 0 .. 1e9");
    }
  }
  // One entry per key: sort the keys' positions and compare neighbours.
  std::vector<size_t> order(doc.entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto key_of = [&](size_t i) {
    const Entry& e = doc.entries[i];
    return std::make_tuple(e.op, e.in, e.out, e.b_layout, e.n, e.k, e.batch, e.m);
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key_of(a) < key_of(b); });
  for (size_t i = 1; i < order.size(); ++i)
    if (key_of(order[i - 1]) == key_of(order[i]))
      return Status::invalid_argument(detail::entry_label(std::min(order[i - 1], order[i])) + " and " +
                                      detail::entry_label(std::max(order[i - 1], order[i])) +
                                      " have the same key");
  return Status::success();
}

// Whether the document's metadata describes `device` and this build: the GPU name, SM count and compute
// capability exactly, the CUDA runtime's and driver's major versions, bwgemm's major and minor version.
// device_mismatch naming the first field that differs.
inline Status check_device(const Metadata& md, const DeviceDescription& device) {
  const auto differs = [](const char* field, const std::string& file, const std::string& here) {
    return Status::device_mismatch("metadata." + std::string(field) + " is " + file + " but " + here);
  };
  if (md.gpu != device.name)
    return differs("gpu", detail::in_quotes(md.gpu), "the device is " + detail::in_quotes(device.name));
  if (md.sm_count != device.sm_count)
    return differs("sm_count", std::to_string(md.sm_count),
                   "the device has " + std::to_string(device.sm_count));
  if (md.cc_major != device.cc_major || md.cc_minor != device.cc_minor)
    return differs(
        "compute_capability", std::to_string(md.cc_major) + "." + std::to_string(md.cc_minor),
        "the device's is " + std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
  if (md.cuda_runtime / 1000 != device.cuda_runtime / 1000)
    return differs("cuda_runtime", detail::cuda_version_string(md.cuda_runtime),
                   "the runtime is " + detail::cuda_version_string(device.cuda_runtime) +
                       " (the major versions must match)");
  if (md.cuda_driver / 1000 != device.cuda_driver / 1000)
    return differs("cuda_driver", detail::cuda_version_string(md.cuda_driver),
                   "the driver is " + detail::cuda_version_string(device.cuda_driver) +
                       " (the major versions must match)");
  int major = -1, minor = -1;
  detail::parse_version(md.bwgemm_version, &major, &minor);
  if (major != device.bwgemm_major || minor != device.bwgemm_minor)
    return differs("bwgemm_version", md.bwgemm_version,
                   "this build is " + std::to_string(device.bwgemm_major) + "." +
                       std::to_string(device.bwgemm_minor) + " (major and minor must match)");
  return Status::success();
}

// Whether every Config the document names (an entry's, its measurements', its rules choice) is in its
// operation's candidate list.
inline Status check_names(const TuningDocument& doc, const Candidates& candidates) {
  for (size_t i = 0; i < doc.entries.size(); ++i) {
    const Entry& e = doc.entries[i];
    const auto unknown = [&](const std::string& name, const std::string& where) {
      if (candidates[e.op].count == 0)
        return Status::not_supported(where + ": " + to_string(e.op) + " has no candidates here");
      return Status::invalid_argument(where + ": " + detail::in_quotes(name.substr(0, kMaxNameLength)) +
                                      " is not a " + to_string(e.op) + " candidate");
    };
    const std::string at = detail::entry_label(i);
    if (candidates.find(e.op, e.config) < 0) return unknown(e.config, at + ".config");
    if (!e.rules_config.empty() && candidates.find(e.op, e.rules_config) < 0)
      return unknown(e.rules_config, at + ".rules");
    for (size_t j = 0; j < e.measured.size(); ++j)
      if (candidates.find(e.op, e.measured[j].config) < 0)
        return unknown(e.measured[j].config, at + ".measured[" + std::to_string(j) + "].config");
  }
  return Status::success();
}

// ---- the lookup structure
// -----------------------------------------------------------------------------------

// Where a choice came from.
enum class Source : uint8_t { kNone, kInstalled, kBuiltin, kRules };
inline constexpr const char* to_string(Source s) {
  return s == Source::kInstalled ? "installed"
         : s == Source::kBuiltin ? "built-in"
         : s == Source::kRules   ? "rules"
                                 : "none";
}

// A lookup's answer. config indexes the operation's candidate list (Candidates), config_name is that
// list's name; split_k 0 and stream_k kUnspecified: the table leaves them to the rules.
struct Choice {
  Source source = Source::kNone;
  int config = -1;
  const char* config_name = nullptr;
  int split_k = 0;
  StreamK stream_k = StreamK::kUnspecified;
  // The table's name ("tuning file '<path>'", "built-in table 'h200'") or "rules": valid until this thread's
  // next lookup in the same registry.
  const char* source_name = nullptr;
  int64_t bucket_m = 0;  // the upper bound of M's bucket

  bool found() const { return source != Source::kNone; }
};

struct BuiltinTable;

// A table ready for lookups: the entries sorted by key in one flat array; find() is a binary search that
// allocates nothing. Immutable once built (a registry shares it between threads).
class TuningTable {
 public:
  // How a table matches a device: the GPU name and compute capability, and the SM count unless 0.
  struct DeviceMatch {
    std::string gpu;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
  };

  const std::string& source_name() const { return source_name_; }
  const DeviceMatch& device_match() const { return match_; }
  const Metadata& metadata() const { return metadata_; }
  size_t size() const { return rows_.size(); }

  bool matches(const DeviceDescription& d) const {
    return d.cc_major == match_.cc_major && d.cc_minor == match_.cc_minor &&
           (match_.sm_count == 0 || d.sm_count == match_.sm_count) && d.name == match_.gpu;
  }

  // The entry for `key` (M by its bucket): true and *out filled (all but source), or false. No allocation:
  // one probe of an open-addressing index (built with the table) in the common case.
  bool find(const Key& key, Choice* out) const {
    if (rows_.empty()) return false;
    const int bucket = m_bucket(key.m);
    if (bucket < 0) return false;
    const uint64_t head = pack(key.op, key.in, key.out, key.b_layout, bucket);
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash(head, key.n, key.k, key.batch) & mask;; i = (i + 1) & mask) {
      if (slots_[i] < 0) return false;  // an empty slot ends the probe: no such key
      const Row& row = rows_[static_cast<size_t>(slots_[i])];
      if (row.head != head || row.n != key.n || row.k != key.k || row.batch != key.batch) continue;
      out->config = row.config;
      out->config_name = row.config_name;
      out->split_k = row.split_k;
      out->stream_k = row.stream_k;
      out->source_name = source_name_.c_str();
      out->bucket_m = bucket_bound(bucket);
      return true;
    }
  }

 private:
  friend Status build_table(const TuningDocument&, const DeviceDescription&, const Candidates&, std::string,
                            std::shared_ptr<const TuningTable>*);
  friend Status build_builtin_table(const BuiltinTable&, const Candidates&,
                                    std::shared_ptr<const TuningTable>*);

  // The table of a document whose form and names were checked (check_form, check_names).
  TuningTable(const TuningDocument& doc, const Candidates& candidates, std::string source_name,
              DeviceMatch match)
      : source_name_(std::move(source_name)), match_(std::move(match)), metadata_(doc.metadata) {
    rows_.reserve(doc.entries.size());
    for (const Entry& e : doc.entries) {
      Row r{};
      r.head = pack(e.op, e.in, e.out, e.b_layout, bucket_of_bound(e.m));
      r.n = e.n, r.k = e.k, r.batch = e.batch;
      r.config = candidates.find(e.op, e.config);
      r.config_name = candidates[e.op].names[r.config];
      r.split_k = static_cast<int16_t>(e.split_k);
      r.stream_k = e.stream_k;
      rows_.push_back(r);
    }
    std::sort(rows_.begin(), rows_.end(), less);
    // The index: a power of two of at least twice the rows' slots (a load of at most one half), each the row
    // whose key hashes there or after it (linear probing), -1 where empty.
    size_t slots = 8;
    while (slots < 2 * rows_.size()) slots *= 2;
    slots_.assign(slots, -1);
    for (size_t r = 0; r < rows_.size(); ++r) {
      size_t i = hash(rows_[r].head, rows_[r].n, rows_[r].k, rows_[r].batch) & (slots - 1);
      while (slots_[i] >= 0) i = (i + 1) & (slots - 1);
      slots_[i] = static_cast<int32_t>(r);
    }
  }

  struct Row {
    uint64_t head;  // op, in, out, layout, M bucket
    int64_t n, k, batch;
    const char* config_name;
    int32_t config;
    int16_t split_k;
    StreamK stream_k;
  };
  static uint64_t pack(Operation op, Element in, Element out, BLayout layout, int bucket) {
    return uint64_t{static_cast<uint8_t>(op)} << 40 | uint64_t{static_cast<uint8_t>(in)} << 32 |
           uint64_t{static_cast<uint8_t>(out)} << 24 |
           uint64_t{layout == BLayout::kRowMajorKxN ? 0u : 1u} << 16 | static_cast<uint64_t>(bucket);
  }
  // A multiplicative hash of the key's words (odd 64-bit constants), folded.
  static size_t hash(uint64_t head, int64_t n, int64_t k, int64_t batch) {
    uint64_t z = head * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(n) * 0xC2B2AE3D27D4EB4Full ^
                 static_cast<uint64_t>(k) * 0x165667B19E3779F9ull ^ static_cast<uint64_t>(batch);
    z ^= z >> 29;
    z *= 0xBF58476D1CE4E5B9ull;
    return static_cast<size_t>(z ^ (z >> 32));
  }
  static bool less(const Row& a, const Row& b) {
    if (a.head != b.head) return a.head < b.head;
    if (a.n != b.n) return a.n < b.n;
    if (a.k != b.k) return a.k < b.k;
    return a.batch < b.batch;
  }

  std::vector<Row> rows_;
  std::vector<int32_t> slots_;  // the index: row numbers by key hash, -1 empty
  std::string source_name_;
  DeviceMatch match_;
  Metadata metadata_;
};

// Checks a document (form, device, names) and builds its table; on any failure *out is untouched and the
// Status names the first reason. The table matches the device exactly (name, compute capability, SMs).
inline Status build_table(const TuningDocument& doc, const DeviceDescription& device,
                          const Candidates& candidates, std::string source_name,
                          std::shared_ptr<const TuningTable>* out) {
  try {
    if (Status s = check_form(doc); !s.ok()) return s;
    if (Status s = check_device(doc.metadata, device); !s.ok()) return s;
    if (Status s = check_names(doc, candidates); !s.ok()) return s;
    TuningTable::DeviceMatch match{doc.metadata.gpu, doc.metadata.cc_major, doc.metadata.cc_minor,
                                   doc.metadata.sm_count};
    out->reset(new TuningTable(doc, candidates, std::move(source_name), std::move(match)));
    return Status::success();
  } catch (const std::exception& e) {  // std::bad_alloc
    return Status::internal_error(std::string("building the table: ") + e.what());
  }
}

// ---- built-in tables
// ------------------------------------------------------------------------------------------

// A built-in table: static data, keyed by the device's name (and compute capability; the SM count where not
// 0), e.g.
//
//   inline constexpr bwgemm::tuning::BuiltinEntry kH200Gemm[] = {
//       {Operation::kGemm, Element::kBf16, Element::kBf16, BLayout::kColumnMajorKxN, 4096, 4096, 1, 16,
//        "GemmSwapAb16", 2},
//   };
//   inline constexpr bwgemm::tuning::BuiltinTable kH200{"h200", "NVIDIA H200", 9, 0, 132, kH200Gemm, 1};
//
// Registry::register_builtin checks it as it would a file (form, names) and builds its lookup table.
struct BuiltinEntry {
  Operation op;
  Element in, out;
  BLayout b_layout;
  int64_t n, k, batch, m;  // m: a bucket bound
  const char* config;
  int split_k = 0;
  StreamK stream_k = StreamK::kUnspecified;
};
struct BuiltinTable {
  const char* name;  // what diagnostics call it: "built-in table '<name>'"
  const char* gpu;   // DeviceDescription::name it serves
  int cc_major, cc_minor;
  int sm_count;  // 0: any
  const BuiltinEntry* entries;
  size_t count;
};

// A built-in table as a document (its metadata: the device fields it names; the rest a placeholder that
// check_form accepts) and its device match.
inline TuningDocument builtin_document(const BuiltinTable& t) {
  TuningDocument doc;
  doc.metadata.gpu = t.gpu != nullptr ? t.gpu : "";
  doc.metadata.sm_count = t.sm_count == 0 ? 1 : t.sm_count;
  doc.metadata.cc_major = t.cc_major, doc.metadata.cc_minor = t.cc_minor;
  doc.metadata.cuda_runtime = doc.metadata.cuda_driver = 1000;
  doc.metadata.bwgemm_version = std::to_string(BWGEMM_VERSION_MAJOR) + "." +
                                std::to_string(BWGEMM_VERSION_MINOR) + "." +
                                std::to_string(BWGEMM_VERSION_PATCH);
  doc.metadata.date = "2000-01-01";
  doc.entries.reserve(t.count);
  for (size_t i = 0; i < t.count; ++i) {
    const BuiltinEntry& b = t.entries[i];
    Entry e;
    e.op = b.op, e.in = b.in, e.out = b.out, e.b_layout = b.b_layout;
    e.n = b.n, e.k = b.k, e.batch = b.batch, e.m = b.m;
    e.config = b.config != nullptr ? b.config : "";
    e.split_k = b.split_k, e.stream_k = b.stream_k;
    doc.entries.push_back(std::move(e));
  }
  return doc;
}

inline Status build_builtin_table(const BuiltinTable& t, const Candidates& candidates,
                                  std::shared_ptr<const TuningTable>* out) {
  try {
    const std::string name = t.name != nullptr ? t.name : "";
    const auto fail = [&](const Status& s) {
      return Status(s.code(), "built-in table " + detail::in_quotes(name) + ": " + s.message());
    };
    if (name.empty() || name.size() > kMaxNameLength) return fail(Status::invalid_argument("needs a name"));
    if (t.count > 0 && t.entries == nullptr) return fail(Status::invalid_argument("entries is null"));
    if (t.count > kMaxEntries)
      return fail(Status::invalid_argument("more than " + std::to_string(kMaxEntries) + " entries"));
    const TuningDocument doc = builtin_document(t);
    if (Status s = check_form(doc); !s.ok()) return fail(s);
    if (Status s = check_names(doc, candidates); !s.ok()) return fail(s);
    TuningTable::DeviceMatch match{doc.metadata.gpu, t.cc_major, t.cc_minor, t.sm_count};
    out->reset(
        new TuningTable(doc, candidates, "built-in table " + detail::in_quotes(name), std::move(match)));
    return Status::success();
  } catch (const std::exception& e) {
    return Status::internal_error(std::string("building a built-in table: ") + e.what());
  }
}

}  // namespace bwgemm::tuning
