// The diagnostic switch: with it on, every default entry point reports on stderr which backend and Config
// it chose for a call (and the swap-AB kernels their split of K), one line per call:
//
//   bwgemm: bwgemm::sm90::gemm M=16 N=4096 K=4096 batch=1 -> sm90::GemmSwapAbTokens16 (swap AB, 16 tokens x
//   64 rows)
//
// On when the environment variable BWGEMM_DIAGNOSTICS is set to anything but "0" or "" (read once), or after
// bwgemm::set_diagnostics(true); off by default. Host code only; costs one relaxed atomic load per call when
// off.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace bwgemm {

namespace detail {
inline std::atomic<int>& diagnostics_state() {  // -1: not yet read from the environment, 0: off, 1: on
  static std::atomic<int> state{-1};
  return state;
}
}  // namespace detail

// Turns the report on or off for every later call (overrides BWGEMM_DIAGNOSTICS).
inline void set_diagnostics(bool on) {
  detail::diagnostics_state().store(on ? 1 : 0, std::memory_order_relaxed);
}

inline bool diagnostics_enabled() {
  int s = detail::diagnostics_state().load(std::memory_order_relaxed);
  if (s < 0) {
    const char* v = std::getenv("BWGEMM_DIAGNOSTICS");
    s = (v != nullptr && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0')) ? 1 : 0;
    int expected = -1;
    detail::diagnostics_state().compare_exchange_strong(expected, s, std::memory_order_relaxed);
    s = detail::diagnostics_state().load(std::memory_order_relaxed);
  }
  return s == 1;
}

namespace detail {
// One report line: "bwgemm: <entry> M=.. N=.. K=.. batch=.. -> <choice>".
inline void report_choice(const char* entry, int64_t m, int64_t n, int64_t k, int64_t batch,
                          const std::string& choice) {
  if (!diagnostics_enabled()) return;
  std::fprintf(stderr, "bwgemm: %s M=%lld N=%lld K=%lld batch=%lld -> %s\n", entry, static_cast<long long>(m),
               static_cast<long long>(n), static_cast<long long>(k), static_cast<long long>(batch),
               choice.c_str());
}
}  // namespace detail

}  // namespace bwgemm
