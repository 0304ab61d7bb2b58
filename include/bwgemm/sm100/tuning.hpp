// The sm_100a default entry points' side of the tuning tables (docs/tuning.md): their candidate lists for
// compute capability 10.0 (the stable names of sm100::GemmChoice, DualGemmChoice, Nvfp4GemmChoice and
// Nvfp4DualChoice, in enum order) and the choice a table's entry stands for. Host-only C++17. sm100::gemm,
// dual_gemm, nvfp4_gemm and dual_gemm_nvfp4 ask choose_for_current_device (choose_table_choice with the
// device's description): the installed table (or BWGEMM_TUNING_FILE's), the
// built-in tables for this device, then their rules. An entry the choice cannot run for the call (a split its
// Config does not take, stream-K, which no sm_100a Config of the choice has) is not run: the rules' choice
// is, and with BWGEMM_DIAGNOSTICS=1 a line says why.
#pragma once

#include <cstdint>
#include <string>

#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/tuning/key.hpp"
#include "bwgemm/tuning/registry.hpp"
#include "bwgemm/tuning/table.hpp"

namespace bwgemm::sm100 {

// The names of the choices, in the order of sm100::GemmChoice and sm100::DualGemmChoice (sm100/gemm.cuh,
// sm100/dual_gemm.cuh check the counts): the Config aliases' names.
inline constexpr int kGemmChoiceCount = 6;
inline constexpr const char* kGemmChoiceNames[kGemmChoiceCount] = {"GemmSwapAbTokens16", "GemmSwapAbTokens32",
                                                                   "GemmSwapAbTokens64", "GemmSmallM",
                                                                   "GemmMediumM",        "GemmLargeM"};
inline constexpr int kDualGemmChoiceCount = 5;
inline constexpr const char* kDualGemmChoiceNames[kDualGemmChoiceCount] = {
    "DualGemmSwapAbTokens16", "DualGemmSwapAbTokens32", "DualGemmSwapAbTokens64", "DualGemmSmallM",
    "DualGemmLargeM"};

// The NVFP4 operations' (sm100/nvfp4_gemm.cuh, nvfp4_dual_gemm.cuh check the counts). With an NVFP4 output
// only the tiled ones (SmallM, LargeM) run.
inline constexpr int kNvfp4GemmChoiceCount = 5;
inline constexpr const char* kNvfp4GemmChoiceNames[kNvfp4GemmChoiceCount] = {
    "Nvfp4GemmSwapAbTokens16", "Nvfp4GemmSwapAbTokens32", "Nvfp4GemmSwapAbTokens64", "Nvfp4GemmSmallM",
    "Nvfp4GemmLargeM"};
inline constexpr int kNvfp4DualGemmChoiceCount = 5;
inline constexpr const char* kNvfp4DualGemmChoiceNames[kNvfp4DualGemmChoiceCount] = {
    "Nvfp4DualGemmSwapAbTokens16", "Nvfp4DualGemmSwapAbTokens32", "Nvfp4DualGemmSwapAbTokens64",
    "Nvfp4DualGemmSmallM", "Nvfp4DualGemmLargeM"};

// The grouped operations' (sm100/grouped_gemm.cuh's GroupedChoice order): the swap-AB 32-token tiles, the
// 128-row tiles on one CTA, the 256-row tiles on a CTA pair. With an NVFP4 output only the tiled two run.
inline constexpr int kGroupedChoiceCount = 3;
inline constexpr const char* kGroupedGemmChoiceNames[kGroupedChoiceCount] = {
    "GroupedGemmSwapAbTokens32", "GroupedGemmTokens128", "GroupedGemmTokens256"};
inline constexpr const char* kGroupedDualGemmChoiceNames[kGroupedChoiceCount] = {
    "GroupedDualGemmSwapAbTokens32", "GroupedDualGemmTokens128", "GroupedDualGemmTokens256"};
inline constexpr const char* kNvfp4GroupedGemmChoiceNames[kGroupedChoiceCount] = {
    "GroupedNvfp4GemmSwapAbTokens32", "GroupedNvfp4GemmTokens128", "GroupedNvfp4GemmTokens256"};
inline constexpr const char* kNvfp4GroupedDualGemmChoiceNames[kGroupedChoiceCount] = {
    "GroupedNvfp4DualGemmSwapAbTokens32", "GroupedNvfp4DualGemmTokens128", "GroupedNvfp4DualGemmTokens256"};

inline const tuning::Candidates& tuning_candidates() {
  static const tuning::Candidates candidates = [] {
    tuning::Candidates c;
    c[tuning::Operation::kGemm] = {kGemmChoiceNames, kGemmChoiceCount};
    c[tuning::Operation::kDualGemm] = {kDualGemmChoiceNames, kDualGemmChoiceCount};
    c[tuning::Operation::kNvfp4Gemm] = {kNvfp4GemmChoiceNames, kNvfp4GemmChoiceCount};
    c[tuning::Operation::kNvfp4DualGemm] = {kNvfp4DualGemmChoiceNames, kNvfp4DualGemmChoiceCount};
    c[tuning::Operation::kGroupedGemm] = {kGroupedGemmChoiceNames, kGroupedChoiceCount};
    c[tuning::Operation::kGroupedDualGemm] = {kGroupedDualGemmChoiceNames, kGroupedChoiceCount};
    c[tuning::Operation::kNvfp4GroupedGemm] = {kNvfp4GroupedGemmChoiceNames, kGroupedChoiceCount};
    c[tuning::Operation::kNvfp4GroupedDualGemm] = {kNvfp4GroupedDualGemmChoiceNames, kGroupedChoiceCount};
    return c;
  }();
  return candidates;
}
// Registers them with `registry` for compute capability 10.0; the entry points call it (once per process for
// the global registry) before their first lookup.
inline void register_tuning_candidates(tuning::Registry& registry) {
  registry.register_candidates(10, 0, tuning_candidates());
}
inline void register_tuning_candidates() {
  static const bool registered = (register_tuning_candidates(tuning::Registry::global()), true);
  (void)registered;
}

// What a call runs: the choice's index in its operation's list and its split_k (0: the Config's own).
struct TableChoice {
  int index;
  int split_k;
};

// The registry's choice for `key` on `device` where an entry applies and runs(index, split_k) says its
// Config takes it (stream-K never), else the rules' (rules_index, split 0); `cannot_run` is the diagnostic's
// reason where runs() says no. Allocates nothing but with the diagnostic switch on (and at the registry's
// first lookup).
template <class Runs>
TableChoice choose_table_choice(const tuning::Key& key, const tuning::DeviceDescription& device,
                                int rules_index, const char* const* names, int count, const Runs& runs,
                                tuning::Registry& registry = tuning::Registry::global(),
                                const char* cannot_run = "its Config cannot run that split for this shape") {
  const tuning::Choice c = registry.choose(key, device, [&] {
    tuning::Choice r;
    r.config = rules_index;
    r.config_name = names[rules_index];
    return r;
  });
  if (c.source == tuning::Source::kRules) return {rules_index, 0};
  const char* why = nullptr;
  if (c.config < 0 || c.config >= count)
    why = "not a choice of this build";
  else if (c.stream_k == tuning::StreamK::kOn)
    why = "no sm_100a Config of the choice runs stream-K";
  else if (!runs(c.config, c.split_k))
    why = cannot_run;
  if (why == nullptr) return {c.config, c.split_k};
  if (diagnostics_enabled())
    ::bwgemm::tuning::detail::report_tuning(
        std::string(c.source_name != nullptr ? c.source_name : to_string(c.source)) + " names " +
        (c.config >= 0 && c.config < count ? std::string(names[c.config])
                                           : "config #" + std::to_string(c.config)) +
        ", split_k = " + std::to_string(c.split_k) + " for " + to_string(key.op) +
        " M=" + std::to_string(key.m) + " N=" + std::to_string(key.n) + " K=" + std::to_string(key.k) +
        " batch=" + std::to_string(key.batch) + ": " + why + "; the rules' choice instead");
  return {rules_index, 0};
}

// What the default entry points ask: the rules' choice (rules_index, split 0) where the current device cannot
// be described or is not compute capability 10.0 (the emulator is, with bwgemm::emu_cudart linked), else
// choose_table_choice on the global registry with the candidate lists registered.
template <class Runs>
TableChoice choose_for_current_device(
    const tuning::Key& key, int rules_index, const char* const* names, int count, const Runs& runs,
    const char* cannot_run = "its Config cannot run that split for this shape") {
  const tuning::DeviceDescription* device = nullptr;
  if (!host::current_device_description(&device) || device->cc_major != 10 || device->cc_minor != 0)
    return {rules_index, 0};
  register_tuning_candidates();
  return choose_table_choice(key, *device, rules_index, names, count, runs, tuning::Registry::global(),
                             cannot_run);
}

}  // namespace bwgemm::sm100
