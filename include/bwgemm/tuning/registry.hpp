// The registry the entry points consult for a kernel choice (docs/tuning.md), in order:
//
//   1. the installed table: the one the caller installed (Registry::install, bwgemm::install_tuning_table,
//      tuning::install_file in tuning/json.hpp), else the file BWGEMM_TUNING_FILE names (read at the first
//      lookup, and only if nothing was installed before it);
//   2. the built-in tables registered for this device (Registry::register_builtin), in registration order;
//   3. the rules: the caller's own choice (choose()'s `rules`).
//
// A table applies only to the device it describes (its GPU name, compute capability and SM count). A lookup
// allocates nothing and takes no lock: each thread keeps a reference to the registry's current immutable
// snapshot and refreshes it (under the registry's mutex) only after an install or a registration changed it.
// With BWGEMM_DIAGNOSTICS=1 (bwgemm::set_diagnostics), choose() prints which source chose, and a tuning file
// that is refused prints why. Host C++17; this header does not include the JSON library (tuning/json.hpp
// does, and sets the file reader the BWGEMM_TUNING_FILE path uses).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/tuning/key.hpp"
#include "bwgemm/tuning/table.hpp"

namespace bwgemm::tuning {

// The environment variable naming the tuning file the registry installs at its first lookup.
inline constexpr const char* kTuningFileVariable = "BWGEMM_TUNING_FILE";

// Reads, checks and builds a tuning file's table without printing anything (tuning/json.hpp's
// read_table_file). The registry calls it for BWGEMM_TUNING_FILE.
using FileReader = Status (*)(const std::string& path, const DeviceDescription& device,
                              const Candidates& candidates, std::shared_ptr<const TuningTable>* out);

namespace detail {
// The file reader; null until a translation unit that includes tuning/json.hpp is initialized.
inline std::atomic<FileReader>& file_reader() {
  static std::atomic<FileReader> reader{nullptr};
  return reader;
}
// Snapshot generations, unique across all registries (a thread's cached snapshot is never mistaken for
// another registry's or an older one).
inline uint64_t next_generation() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}
// "bwgemm: tuning: <message>" on stderr with the diagnostic switch on.
inline void report_tuning(const std::string& message) {
  if (diagnostics_enabled()) std::fprintf(stderr, "bwgemm: tuning: %s\n", message.c_str());
}
}  // namespace detail

class Registry {
 public:
  Registry() : current_(std::make_shared<const Snapshot>()), generation_(detail::next_generation()) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process's registry, the one the entry points consult (never destroyed).
  static Registry& global() {
    static Registry* registry = new Registry();
    return *registry;
  }

  // Makes `table` the installed table (null: none); from then on BWGEMM_TUNING_FILE is not read.
  void install(std::shared_ptr<const TuningTable> table) {
    std::lock_guard<std::mutex> lock(mutex_);
    environment_resolved_.store(true, std::memory_order_release);
    Snapshot next = *current_;
    next.installed = std::move(table);
    publish(std::move(next));
  }
  // The installed table (null: none; BWGEMM_TUNING_FILE's once a lookup read it).
  std::shared_ptr<const TuningTable> installed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_->installed;
  }

  // Checks a built-in table (its form, and its Config names against `candidates`) and adds it; one of the
  // same name is replaced. On failure nothing changes, and the Status (printed with the diagnostic switch
  // on) says why.
  Status register_builtin(const BuiltinTable& builtin, const Candidates& candidates) {
    std::shared_ptr<const TuningTable> table;
    Status s = build_builtin_table(builtin, candidates, &table);
    if (!s.ok()) {
      detail::report_tuning(s.message() + ": not registered");
      return s;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    Snapshot next = *current_;
    bool replaced = false;
    for (auto& t : next.builtins)
      if (t->source_name() == table->source_name()) t = table, replaced = true;
    if (!replaced) next.builtins.push_back(table);
    publish(std::move(next));
    return Status::success();
  }

  // The candidate lists of the devices of compute capability major.minor: what a tuning file read for such
  // a device (BWGEMM_TUNING_FILE, install_file) is checked against. Registering again replaces them.
  void register_candidates(int cc_major, int cc_minor, const Candidates& candidates) {
    std::lock_guard<std::mutex> lock(mutex_);
    Snapshot next = *current_;
    bool replaced = false;
    for (auto& c : next.candidates)
      if (c.first == cc_major * 100 + cc_minor) c.second = candidates, replaced = true;
    if (!replaced) next.candidates.emplace_back(cc_major * 100 + cc_minor, candidates);
    publish(std::move(next));
  }
  // The registered candidate lists for a compute capability: false where none are.
  bool candidates_for(int cc_major, int cc_minor, Candidates* out) const {
    const Snapshot& s = snapshot();
    for (const auto& c : s.candidates)
      if (c.first == cc_major * 100 + cc_minor) return *out = c.second, true;
    return false;
  }

  // What reading BWGEMM_TUNING_FILE gave: success where it was unset, not read (an install came first), not
  // yet read, or read and installed; else why the file was ignored.
  Status environment_status() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return environment_status_;
  }

  // The installed table's entry for `key` on `device`, else the first matching built-in table's; a Choice
  // with source kNone where neither has one. Allocates nothing and takes no lock (but at the first call,
  // which reads BWGEMM_TUNING_FILE, and the first after a change, which refreshes this thread's snapshot).
  Choice lookup(const Key& key, const DeviceDescription& device) {
    if (!environment_resolved_.load(std::memory_order_acquire)) resolve_environment(device);
    const Snapshot& s = snapshot();
    Choice c;
    if (s.installed && s.installed->matches(device) && s.installed->find(key, &c)) {
      c.source = Source::kInstalled;
      return c;
    }
    for (const auto& t : s.builtins)
      if (t->matches(device) && t->find(key, &c)) {
        c.source = Source::kBuiltin;
        return c;
      }
    return Choice{};
  }

  // lookup(), else `rules()` (a Choice with the caller's config index and name, split_k and stream_k; its
  // source is set to kRules). With the diagnostic switch on, prints the key, the choice and its source:
  //
  //   bwgemm: bwgemm::tuning gemm bf16->bf16 B nk M=16 N=4096 K=4096 batch=1 -> GemmSwapAb16, split_k = 2
  //   (tuning file '/data/h200.json', M bucket <= 16)
  template <class Rules>
  Choice choose(const Key& key, const DeviceDescription& device, Rules&& rules) {
    Choice c = lookup(key, device);
    if (!c.found()) {
      c = rules();
      c.source = Source::kRules;
      c.source_name = "rules";
      const int bucket = m_bucket(key.m);
      c.bucket_m = bucket >= 0 ? bucket_bound(bucket) : 0;
    }
    if (diagnostics_enabled()) report(key, c);
    return c;
  }

 private:
  // What lookups read: replaced whole (copy, change, publish) under mutex_, never changed in place.
  struct Snapshot {
    std::shared_ptr<const TuningTable> installed;
    std::vector<std::shared_ptr<const TuningTable>> builtins;
    std::vector<std::pair<int, Candidates>> candidates;  // (100 cc_major + cc_minor, lists)
  };

  // Called with mutex_ held.
  void publish(Snapshot next) {
    current_ = std::make_shared<const Snapshot>(std::move(next));
    generation_.store(detail::next_generation(), std::memory_order_release);
  }

  // This thread's copy of the current snapshot, refreshed when the generation moved: the reference stays
  // valid until this thread's next call into a registry.
  const Snapshot& snapshot() const {
    struct Cache {
      const Registry* owner = nullptr;
      uint64_t generation = 0;
      std::shared_ptr<const Snapshot> snapshot;
    };
    static thread_local Cache cache;
    if (cache.owner != this || cache.generation != generation_.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mutex_);
      cache.snapshot = current_;
      cache.generation = generation_.load(std::memory_order_relaxed);
      cache.owner = this;
    }
    return *cache.snapshot;
  }

  // Reads BWGEMM_TUNING_FILE once (the first lookup, whichever device it is for) and installs its table
  // if it is valid for `device`; records and reports why not otherwise.
  void resolve_environment(const DeviceDescription& device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (environment_resolved_.load(std::memory_order_relaxed)) return;
    const char* path = std::getenv(kTuningFileVariable);
    if (path != nullptr && path[0] != '\0') {
      Status s;
      std::shared_ptr<const TuningTable> table;
      const FileReader reader = detail::file_reader().load(std::memory_order_acquire);
      Candidates candidates;
      if (reader == nullptr) {
        s = Status::not_supported(
            "this program has no tuning-file reader (include bwgemm/tuning/json.hpp in one of its source "
            "files)");
      } else if (!candidates_locked(device.cc_major, device.cc_minor, &candidates)) {
        s = Status::not_supported("no candidate lists are registered for compute capability " +
                                  std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
      } else {
        s = reader(path, device, candidates, &table);
      }
      const std::string what = std::string(kTuningFileVariable) + " = " + detail::in_quotes(path);
      if (s.ok()) {
        Snapshot next = *current_;
        next.installed = table;
        publish(std::move(next));
        detail::report_tuning(what + ": installed " + std::to_string(table->size()) + " entries for " +
                              detail::in_quotes(device.name));
      } else {
        environment_status_ = Status(s.code(), what + " ignored: " + s.message());
        detail::report_tuning(environment_status_.message());
      }
    }
    environment_resolved_.store(true, std::memory_order_release);
  }
  bool candidates_locked(int cc_major, int cc_minor, Candidates* out) const {
    for (const auto& c : current_->candidates)
      if (c.first == cc_major * 100 + cc_minor) return *out = c.second, true;
    return false;
  }

  static void report(const Key& key, const Choice& c) {
    const std::string entry = std::string("bwgemm::tuning ") + to_string(key.op) + " " + to_string(key.in) +
                              "->" + to_string(key.out) + " B " + layout_name(key.b_layout);
    std::string choice = c.config_name != nullptr ? c.config_name : "config #" + std::to_string(c.config);
    if (c.split_k != 0) choice += ", split_k = " + std::to_string(c.split_k);
    if (c.stream_k != StreamK::kUnspecified)
      choice += c.stream_k == StreamK::kOn ? ", stream-K" : ", no stream-K";
    choice += " (" + std::string(c.source_name != nullptr ? c.source_name : to_string(c.source));
    if (c.bucket_m > 0) choice += ", M bucket <= " + std::to_string(c.bucket_m);
    choice += ")";
    ::bwgemm::detail::report_choice(entry.c_str(), key.m, key.n, key.k, key.batch, choice);
  }

  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> current_;  // guarded by mutex_
  std::atomic<uint64_t> generation_;         // current_'s; written under mutex_
  std::atomic<bool> environment_resolved_{false};
  Status environment_status_;  // guarded by mutex_
};

}  // namespace bwgemm::tuning

namespace bwgemm {

// Installs a kernel-choice table for every later default call in this process (null: removes it), ahead
// of the built-in tables and rules; BWGEMM_TUNING_FILE is not read after it. A table applies only to the
// device it was built for. tuning/json.hpp reads one from a file (tuning::install_file).
inline void install_tuning_table(std::shared_ptr<const tuning::TuningTable> table) {
  tuning::Registry::global().install(std::move(table));
}

}  // namespace bwgemm
