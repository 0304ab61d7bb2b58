// The public entry point a call came through, for the messages of the checks below it: a caller of
// bwgemm::gemm reads "B of bwgemm::gemm is not device-accessible memory", not the name of the backend class
// (bwgemm::sm100::Gemm, bwgemm::sm90::SwapAbGemm, ...) that made the check.
//
//   Status gemm(...) {
//     const detail::EntryPointScope entry("bwgemm::gemm");   // every message below names bwgemm::gemm
//     ...
//   }
//
// The outermost scope of a thread wins, so a backend entry point called by a public one (sm100::gemm from
// bwgemm::gemm) keeps the public name; a check with no scope open names itself (a direct call of
// bwgemm::sm100::Gemm<Cfg>::run reads "B of bwgemm::sm100::Gemm"). Host code only; one thread-local
// pointer per thread.
#pragma once

namespace bwgemm::detail {

inline const char*& entry_point_slot() {
  static thread_local const char* name = nullptr;
  return name;
}

// The name a message gives the call: the open scope's entry point, else `own_name`.
inline const char* entry_point_name(const char* own_name) {
  const char* name = entry_point_slot();
  return name != nullptr ? name : own_name;
}

// Names the public entry point for everything the call does on this thread until the scope closes.
class EntryPointScope {
 public:
  explicit EntryPointScope(const char* name) : outermost_(entry_point_slot() == nullptr) {
    if (outermost_) entry_point_slot() = name;
  }
  ~EntryPointScope() {
    if (outermost_) entry_point_slot() = nullptr;
  }
  EntryPointScope(const EntryPointScope&) = delete;
  EntryPointScope& operator=(const EntryPointScope&) = delete;

 private:
  bool outermost_;
};

}  // namespace bwgemm::detail
