// Tuning files (docs/tuning.md, "The file"): the JSON reader and writer of TuningDocument, and loading a file
// into a checked table. This is the only bwgemm header that includes the JSON library (nlohmann/json,
// find_package(nlohmann_json 3.2), Debian/Ubuntu nlohmann-json3-dev); the registry and the entry points use
// tuning/registry.hpp, which does not. Including this header in one source file of a program also gives the
// registry its file reader, so BWGEMM_TUNING_FILE works there.
//
// Nothing here throws: the JSON library's exceptions (a syntax error, a bad UTF-8 string) and std::bad_alloc
// are caught and returned as a Status naming the reason. A file that fails any check is refused whole.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bwgemm/base/status.hpp"
#include "bwgemm/tuning/key.hpp"
#include "bwgemm/tuning/registry.hpp"
#include "bwgemm/tuning/table.hpp"

namespace bwgemm::tuning {

// The value of a file's "format" field.
inline constexpr const char* kFormatName = "bwgemm-tuning";
// Files larger than this are refused unread.
inline constexpr int64_t kMaxFileBytes = int64_t{64} << 20;

namespace detail {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Field readers: each checks the field's presence, JSON type and range, and names it in its Status
// ("entries[3].n must be an integer 1 .. 2147482624").
inline Status missing(const std::string& where, const char* key) {
  return Status::invalid_argument(where + "." + key + " is missing");
}
inline const Json* member(const Json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}
inline Status only_keys(const Json& obj, const std::string& where, std::initializer_list<const char*> keys) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known = known || it.key() == k;
    if (!known)
      return Status::invalid_argument(where + " has an unknown field " +
                                      in_quotes(it.key().substr(0, kMaxNameLength)));
  }
  return Status::success();
}
inline Status read_string(const Json& obj, const std::string& where, const char* key, std::string* out,
                          bool required = true, size_t max_length = kMaxNameLength) {
  const Json* v = member(obj, key);
  if (v == nullptr) return required ? missing(where, key) : Status::success();
  if (!v->is_string()) return Status::invalid_argument(where + "." + key + " must be a string");
  const auto& s = v->get_ref<const std::string&>();
  if (s.empty() || s.size() > max_length)
    return Status::invalid_argument(where + "." + key + " must be 1 .. " + std::to_string(max_length) +
                                    " characters");
  *out = s;
  return Status::success();
}
inline Status read_integer(const Json& obj, const std::string& where, const char* key, int64_t lo, int64_t hi,
                           int64_t* out, bool required = true) {
  const Json* v = member(obj, key);
  if (v == nullptr) return required ? missing(where, key) : Status::success();
  const auto bad = [&] {
    return Status::invalid_argument(where + "." + key + " must be an integer " + std::to_string(lo) + " .. " +
                                    std::to_string(hi));
  };
  int64_t value = 0;
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) return bad();
    value = static_cast<int64_t>(u);
  } else if (v->is_number_integer()) {
    value = v->get<int64_t>();
  } else {
    return bad();
  }
  if (value < lo || value > hi) return bad();
  *out = value;
  return Status::success();
}
inline Status read_int(const Json& obj, const std::string& where, const char* key, int lo, int hi, int* out,
                       bool required = true) {
  int64_t v = *out;
  if (Status s = read_integer(obj, where, key, lo, hi, &v, required); !s.ok()) return s;
  *out = static_cast<int>(v);
  return Status::success();
}
inline Status read_time(const Json& obj, const std::string& where, const char* key, double* out) {
  const Json* v = member(obj, key);
  if (v == nullptr) return missing(where, key);
  if (!v->is_number() || !finite_time(v->get<double>()))
    return Status::invalid_argument(where + "." + key + " must be a finite number of microseconds, 0 .. 1e9");
  *out = v->get<double>();
  return Status::success();
}
inline Status read_stream_k(const Json& obj, const std::string& where, StreamK* out) {
  const Json* v = member(obj, "stream_k");
  if (v == nullptr) return Status::success();
  if (!v->is_boolean()) return Status::invalid_argument(where + ".stream_k must be true or false");
  *out = v->get<bool>() ? StreamK::kOn : StreamK::kOff;
  return Status::success();
}
template <class Enum>
Status read_name(const Json& obj, const std::string& where, const char* key,
                 bool (*parse)(std::string_view, Enum*), Enum* out) {
  std::string name;
  if (Status s = read_string(obj, where, key, &name); !s.ok()) return s;
  if (!parse(name, out))
    return Status::invalid_argument(where + "." + key + " = " + in_quotes(name) + " is not known");
  return Status::success();
}
inline bool parse_launch(std::string_view s, LaunchMode* out) {
  if (s == kLaunchModeNames[0]) return *out = LaunchMode::kGraph, true;
  if (s == kLaunchModeNames[1]) return *out = LaunchMode::kStream, true;
  return false;
}
inline bool parse_l2(std::string_view s, L2Mode* out) {
  if (s == kL2ModeNames[0]) return *out = L2Mode::kCold, true;
  if (s == kL2ModeNames[1]) return *out = L2Mode::kWarm, true;
  return false;
}
// "major.minor" with major 1 .. 99 and minor 0 .. 99 (max_minor); false otherwise.
inline bool parse_major_minor(const std::string& s, int max_minor, int* major, int* minor) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot > 2 || dot + 1 == s.size() || s.size() - dot - 1 > 2)
    return false;
  int a = 0, b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == dot) continue;
    if (s[i] < '0' || s[i] > '9') return false;
    (i < dot ? a : b) = (i < dot ? a : b) * 10 + (s[i] - '0');
  }
  if (a < 1 || b > max_minor) return false;
  *major = a, *minor = b;
  return true;
}
inline Status read_cuda_version(const Json& obj, const std::string& where, const char* key, int* out) {
  std::string s;
  if (Status st = read_string(obj, where, key, &s); !st.ok()) return st;
  int major = 0, minor = 0;
  if (!parse_major_minor(s, 99, &major, &minor))
    return Status::invalid_argument(where + "." + key + " must be 'major.minor' (got " + in_quotes(s) + ")");
  *out = major * 1000 + minor * 10;
  return Status::success();
}

inline Status read_metadata(const Json& j, Metadata* md) {
  const std::string where = "metadata";
  if (!j.is_object()) return Status::invalid_argument("metadata must be an object");
  if (Status s = only_keys(j, where,
                           {"gpu", "sm_count", "compute_capability", "cuda_runtime", "cuda_driver",
                            "bwgemm_version", "launch", "l2", "date", "command"});
      !s.ok())
    return s;
  std::string cc;
  Status s = read_string(j, where, "gpu", &md->gpu);
  if (s.ok()) s = read_int(j, where, "sm_count", 1, 4096, &md->sm_count);
  if (s.ok()) s = read_string(j, where, "compute_capability", &cc);
  if (s.ok() && !parse_major_minor(cc, 9, &md->cc_major, &md->cc_minor))
    s = Status::invalid_argument("metadata.compute_capability must be 'major.minor' (got " + in_quotes(cc) +
                                 ")");
  if (s.ok()) s = read_cuda_version(j, where, "cuda_runtime", &md->cuda_runtime);
  if (s.ok()) s = read_cuda_version(j, where, "cuda_driver", &md->cuda_driver);
  if (s.ok()) s = read_string(j, where, "bwgemm_version", &md->bwgemm_version);
  if (s.ok()) s = read_name(j, where, "launch", &parse_launch, &md->launch);
  if (s.ok()) s = read_name(j, where, "l2", &parse_l2, &md->l2);
  if (s.ok()) s = read_string(j, where, "date", &md->date);
  if (s.ok()) s = read_string(j, where, "command", &md->command, /*required=*/false, kMaxCommandLength);
  return s;
}

inline Status read_measurement(const Json& j, const std::string& where, Measurement* t) {
  if (!j.is_object()) return Status::invalid_argument(where + " must be an object");
  if (Status s = only_keys(j, where, {"config", "split_k", "stream_k", "median_us", "noise_us"}); !s.ok())
    return s;
  Status s = read_string(j, where, "config", &t->config);
  if (s.ok()) s = read_int(j, where, "split_k", 1, kMaxSplitK, &t->split_k, /*required=*/false);
  if (s.ok()) s = read_stream_k(j, where, &t->stream_k);
  if (s.ok()) s = read_time(j, where, "median_us", &t->median_us);
  if (s.ok()) s = read_time(j, where, "noise_us", &t->noise_us);
  return s;
}

inline Status read_entry(const Json& j, const std::string& where, Entry* e) {
  if (!j.is_object()) return Status::invalid_argument(where + " must be an object");
  if (Status s = only_keys(j, where,
                           {"op", "in", "out", "b_layout", "n", "k", "batch", "m", "config", "split_k",
                            "stream_k", "rules", "measured"});
      !s.ok())
    return s;
  Status s = read_name(j, where, "op", &parse_operation, &e->op);
  if (s.ok()) s = read_name(j, where, "in", &parse_element, &e->in);
  if (s.ok()) s = read_name(j, where, "out", &parse_element, &e->out);
  if (s.ok()) s = read_name(j, where, "b_layout", &parse_layout, &e->b_layout);
  if (s.ok()) s = read_integer(j, where, "n", 1, kMaxExtent, &e->n);
  if (s.ok()) s = read_integer(j, where, "k", 1, kMaxExtent, &e->k);
  if (s.ok()) s = read_integer(j, where, "batch", 1, kMaxBatch, &e->batch, /*required=*/false);
  if (s.ok()) s = read_integer(j, where, "m", 1, kMaxBucketM, &e->m);
  if (s.ok()) s = read_string(j, where, "config", &e->config);
  if (s.ok()) s = read_int(j, where, "split_k", 1, kMaxSplitK, &e->split_k, /*required=*/false);
  if (s.ok()) s = read_stream_k(j, where, &e->stream_k);
  if (s.ok()) s = read_string(j, where, "rules", &e->rules_config, /*required=*/false);
  if (!s.ok()) return s;
  if (const Json* measured = member(j, "measured")) {
    if (!measured->is_array()) return Status::invalid_argument(where + ".measured must be an array");
    if (measured->size() > kMaxMeasured)
      return Status::invalid_argument(where + ".measured has more than " + std::to_string(kMaxMeasured) +
                                      " items");
    e->measured.resize(measured->size());
    for (size_t i = 0; i < measured->size(); ++i)
      if (Status st = read_measurement((*measured)[i], where + ".measured[" + std::to_string(i) + "]",
                                       &e->measured[i]);
          !st.ok())
        return st;
  }
  return Status::success();
}

inline Status read_document(const Json& j, TuningDocument* doc) {
  if (!j.is_object()) return Status::invalid_argument("the file must hold a JSON object");
  if (Status s = only_keys(j, "the file", {"format", "version", "metadata", "entries"}); !s.ok()) return s;
  std::string format;
  if (Status s = read_string(j, "the file", "format", &format); !s.ok()) return s;
  if (format != kFormatName)
    return Status::invalid_argument("format is " + in_quotes(format) + ", not " + in_quotes(kFormatName));
  int64_t version = 0;
  if (Status s = read_integer(j, "the file", "version", 1, 1000000, &version); !s.ok()) return s;
  if (version != kFormatVersion)
    return Status::not_supported("format version " + std::to_string(version) + " (this build reads version " +
                                 std::to_string(kFormatVersion) + ")");
  doc->format_version = static_cast<int>(version);
  const Json* md = member(j, "metadata");
  if (md == nullptr) return Status::invalid_argument("metadata is missing");
  if (Status s = read_metadata(*md, &doc->metadata); !s.ok()) return s;
  const Json* entries = member(j, "entries");
  if (entries == nullptr) return Status::invalid_argument("entries is missing");
  if (!entries->is_array()) return Status::invalid_argument("entries must be an array");
  if (entries->size() > kMaxEntries)
    return Status::invalid_argument("more than " + std::to_string(kMaxEntries) + " entries");
  doc->entries.resize(entries->size());
  for (size_t i = 0; i < entries->size(); ++i)
    if (Status s = read_entry((*entries)[i], entry_label(i), &doc->entries[i]); !s.ok()) return s;
  return check_form(*doc);
}

inline OrderedJson entry_json(const Entry& e) {
  OrderedJson j;
  j["op"] = to_string(e.op);
  j["in"] = to_string(e.in);
  j["out"] = to_string(e.out);
  j["b_layout"] = layout_name(e.b_layout);
  j["n"] = e.n;
  j["k"] = e.k;
  j["batch"] = e.batch;
  j["m"] = e.m;
  j["config"] = e.config;
  if (e.split_k != 0) j["split_k"] = e.split_k;
  if (e.stream_k != StreamK::kUnspecified) j["stream_k"] = e.stream_k == StreamK::kOn;
  if (!e.rules_config.empty()) j["rules"] = e.rules_config;
  if (!e.measured.empty()) {
    OrderedJson measured = OrderedJson::array();
    for (const Measurement& t : e.measured) {
      OrderedJson m;
      m["config"] = t.config;
      if (t.split_k != 0) m["split_k"] = t.split_k;
      if (t.stream_k != StreamK::kUnspecified) m["stream_k"] = t.stream_k == StreamK::kOn;
      m["median_us"] = t.median_us;
      m["noise_us"] = t.noise_us;
      measured.push_back(std::move(m));
    }
    j["measured"] = std::move(measured);
  }
  return j;
}

}  // namespace detail

// Parses a tuning file's text and checks its form (check_form: types, ranges, bucket bounds, no repeated
// key); not the device or the Config names (build_table does). On failure *doc is untouched.
inline Status parse_tuning_json(std::string_view text, TuningDocument* doc) {
  try {
    const detail::Json j = detail::Json::parse(text.begin(), text.end());
    TuningDocument parsed;
    if (Status s = detail::read_document(j, &parsed); !s.ok()) return s;
    *doc = std::move(parsed);
    return Status::success();
  } catch (const nlohmann::json::exception& e) {
    return Status::invalid_argument(std::string("not valid JSON: ") + e.what());
  } catch (const std::exception& e) {
    return Status::internal_error(std::string("reading the JSON: ") + e.what());
  }
}

// The document as a tuning file's text: the metadata one field a line, each entry on one line (a table's
// diff then shows the entries that changed). Refuses (and writes nothing to *text) a document that
// check_form refuses, e.g. a NaN time.
inline Status write_tuning_json(const TuningDocument& doc, std::string* text) {
  if (Status s = check_form(doc); !s.ok()) return s;
  try {
    const Metadata& md = doc.metadata;
    detail::OrderedJson head;
    head["format"] = kFormatName;
    head["version"] = doc.format_version;
    detail::OrderedJson m;
    m["gpu"] = md.gpu;
    m["sm_count"] = md.sm_count;
    m["compute_capability"] = std::to_string(md.cc_major) + "." + std::to_string(md.cc_minor);
    m["cuda_runtime"] = detail::cuda_version_string(md.cuda_runtime);
    m["cuda_driver"] = detail::cuda_version_string(md.cuda_driver);
    m["bwgemm_version"] = md.bwgemm_version;
    m["launch"] = kLaunchModeNames[static_cast<int>(md.launch)];
    m["l2"] = kL2ModeNames[static_cast<int>(md.l2)];
    m["date"] = md.date;
    if (!md.command.empty()) m["command"] = md.command;
    head["metadata"] = std::move(m);
    std::string out = head.dump(2, ' ', false, nlohmann::json::error_handler_t::strict);
    out.resize(out.size() - 2);  // the closing "\n}"
    out += ",\n  \"entries\": [";
    for (size_t i = 0; i < doc.entries.size(); ++i) {
      out += i == 0 ? "\n    " : ",\n    ";
      out += detail::entry_json(doc.entries[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    }
    out += doc.entries.empty() ? "]\n}\n" : "\n  ]\n}\n";
    *text = std::move(out);
    return Status::success();
  } catch (const std::exception& e) {  // a string that is not UTF-8, std::bad_alloc
    return Status::invalid_argument(std::string("cannot write the document: ") + e.what());
  }
}

// Reads and parses a tuning file (parse_tuning_json); refuses one over kMaxFileBytes unread.
inline Status read_tuning_file(const std::string& path, TuningDocument* doc) {
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::invalid_argument("cannot open " + detail::in_quotes(path));
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) return Status::invalid_argument("cannot read " + detail::in_quotes(path));
    if (size > kMaxFileBytes)
      return Status::invalid_argument(detail::in_quotes(path) + " has " + std::to_string(size) +
                                      " bytes (at most " + std::to_string(kMaxFileBytes) + ")");
    in.seekg(0, std::ios::beg);
    std::string text(static_cast<size_t>(size), '\0');
    if (size > 0 && !in.read(&text[0], size))
      return Status::invalid_argument("cannot read " + detail::in_quotes(path));
    return parse_tuning_json(text, doc);
  } catch (const std::exception& e) {
    return Status::internal_error("reading " + detail::in_quotes(path) + ": " + e.what());
  }
}

// Writes the document (write_tuning_json) to `path`: to path + ".tmp" first, then renamed over `path`, so a
// reader never sees half a file.
inline Status write_tuning_file(const std::string& path, const TuningDocument& doc) {
  std::string text;
  if (Status s = write_tuning_json(doc, &text); !s.ok()) return s;
  try {
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) return Status::invalid_argument("cannot create " + detail::in_quotes(tmp));
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      out.close();
      if (!out) {
        std::remove(tmp.c_str());
        return Status::invalid_argument("cannot write " + detail::in_quotes(tmp));
      }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      return Status::invalid_argument("cannot rename " + detail::in_quotes(tmp) + " to " +
                                      detail::in_quotes(path));
    }
    return Status::success();
  } catch (const std::exception& e) {
    return Status::internal_error("writing " + detail::in_quotes(path) + ": " + e.what());
  }
}

// Reads a tuning file and builds its table for `device` (build_table: form, metadata against the device,
// Config names against `candidates`), printing nothing. The Status names the file and the first reason it
// was refused. The registry's reader for BWGEMM_TUNING_FILE.
inline Status read_table_file(const std::string& path, const DeviceDescription& device,
                              const Candidates& candidates, std::shared_ptr<const TuningTable>* out) {
  TuningDocument doc;
  Status s = read_tuning_file(path, &doc);
  if (s.ok()) s = build_table(doc, device, candidates, "tuning file " + detail::in_quotes(path), out);
  if (!s.ok()) return Status(s.code(), "tuning file " + detail::in_quotes(path) + ": " + s.message());
  return s;
}

// read_table_file, and with the diagnostic switch on prints why a refused file is ignored.
inline Status load_tuning_file(const std::string& path, const DeviceDescription& device,
                               const Candidates& candidates, std::shared_ptr<const TuningTable>* out) {
  Status s = read_table_file(path, device, candidates, out);
  if (!s.ok()) detail::report_tuning(s.message() + ": ignored");
  return s;
}

// Loads a tuning file for `device` and installs its table in `registry`; a refused file changes nothing
// (the table installed before stays). The first form checks the names against the candidate lists the
// registry holds for the device's compute capability (Registry::register_candidates).
inline Status install_file(const std::string& path, const DeviceDescription& device,
                           const Candidates& candidates, Registry& registry = Registry::global()) {
  std::shared_ptr<const TuningTable> table;
  if (Status s = load_tuning_file(path, device, candidates, &table); !s.ok()) return s;
  registry.install(std::move(table));
  return Status::success();
}
inline Status install_file(const std::string& path, const DeviceDescription& device,
                           Registry& registry = Registry::global()) {
  Candidates candidates;
  if (!registry.candidates_for(device.cc_major, device.cc_minor, &candidates)) {
    Status s = Status::not_supported("tuning file " + detail::in_quotes(path) +
                                     ": no candidate lists are registered for compute capability " +
                                     std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
    detail::report_tuning(s.message() + ": ignored");
    return s;
  }
  return install_file(path, device, candidates, registry);
}

namespace detail {
// Gives the registry its file reader when the program starts (every translation unit that includes this
// header sets the same function).
inline const bool kFileReaderSet = (file_reader().store(&read_table_file, std::memory_order_release), true);
}  // namespace detail

}  // namespace bwgemm::tuning
