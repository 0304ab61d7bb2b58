// The sm_90a default entry points' side of the tuning tables (docs/tuning.md): their candidate lists for
// compute capability 9.0 (the choices' stable names, sm90/choice.hpp), the key of a call, and the plan a
// table's entry stands for. Host-only C++17 (g++ compiles it; of CUDA only the runtime's and the types'
// headers); sm90::gemm and sm90::dual_gemm call choose_gemm_plan / choose_dual_gemm_plan with the device's
// description and facts.
//
// Lookup order: the installed table (or BWGEMM_TUNING_FILE's), the built-in tables for this device, then the
// rules (gemm_plan, dual_gemm_plan). A table's entry names a choice and optionally its split of K (0: the
// rules' split for that choice) and stream-K (unspecified: the rules' for that choice, given the call's
// workspace). An entry whose plan cannot run the call (a split the Config does not take or above the K
// blocks, stream-K without a workspace that holds it) is not run: the rules' plan is, and with
// BWGEMM_DIAGNOSTICS=1 a line says why.
#pragma once

#include <cstdint>
#include <string>

#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/tuning_device.hpp"  // tuning_element
#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/tuning/builtin_h200.hpp"
#include "bwgemm/tuning/key.hpp"
#include "bwgemm/tuning/registry.hpp"
#include "bwgemm/tuning/table.hpp"

namespace bwgemm::sm90 {

// The candidate lists of the sm_90a default entry points: the GEMM's and the dual GEMM's choices, by name, in
// enum order (a table's config index is the enum's value).
inline const tuning::Candidates& tuning_candidates() {
  static const tuning::Candidates candidates = [] {
    tuning::Candidates c;
    c[tuning::Operation::kGemm] = {kGemmChoiceNames, kGemmChoiceCount};
    c[tuning::Operation::kDualGemm] = {kDualGemmChoiceNames, kDualGemmChoiceCount};
    return c;
  }();
  return candidates;
}
// Registers them with `registry` for compute capability 9.0 (what tuning files for an H100/H200 are checked
// against).
inline void register_tuning_candidates(tuning::Registry& registry) {
  registry.register_candidates(9, 0, tuning_candidates());
}
// Registers the sm_90a built-in tables with `registry`: the H200's (tuning/builtin_h200.hpp, generated from
// the recordings in docs/data/). A table the checks refuse is not registered (the Status says why).
inline Status register_builtin_tables(tuning::Registry& registry) {
  return registry.register_builtin(tuning::kBuiltinH200, tuning_candidates());
}
// Both, once per process, with the global registry: the entry points call it before their first lookup.
inline void register_tuning_candidates() {
  static const bool registered = [] {
    tuning::Registry& global = tuning::Registry::global();
    register_tuning_candidates(global);
    (void)register_builtin_tables(global);
    return true;
  }();
  (void)registered;
}

// The key of a call (its M is bucketed by the lookup).
inline tuning::Key gemm_tuning_key(tuning::Element in, tuning::Element out, BLayout b_layout, int64_t m,
                                   int64_t n, int64_t k, int64_t batch) {
  tuning::Key key;
  key.op = tuning::Operation::kGemm;
  key.in = in, key.out = out, key.b_layout = b_layout;
  key.m = m, key.n = n, key.k = k, key.batch = batch;
  return key;
}
// The dual GEMM's weights are N x K (nn.Linear): its key's layout is always "nk".
inline tuning::Key dual_gemm_tuning_key(tuning::Element in, tuning::Element out, int64_t m, int64_t n,
                                        int64_t k, int64_t batch) {
  tuning::Key key = gemm_tuning_key(in, out, BLayout::kColumnMajorKxN, m, n, k, batch);
  key.op = tuning::Operation::kDualGemm;
  return key;
}

// The key of a call's arguments (GemmArguments<In, Out> / DualGemmArguments<In, Out>: m, n, k, batch and,
// for the GEMM, b_layout).
template <class In, class Out, class Args>
tuning::Key gemm_call_key(const Args& a) {
  return gemm_tuning_key(host::tuning_element<In>(), host::tuning_element<Out>(), a.b_layout, a.m, a.n, a.k,
                         a.batch);
}
template <class In, class Out, class Args>
tuning::Key dual_gemm_call_key(const Args& a) {
  return dual_gemm_tuning_key(host::tuning_element<In>(), host::tuning_element<Out>(), a.m, a.n, a.k,
                              a.batch);
}

// ---- a table's entry as a plan ---------------------------------------------------------------------------
// The plan an entry (choice, split_k, stream_k) stands for: split_k 0 the rules' split for that choice (the
// swap-AB split of swap_ab_plan, a one-CTA tiled Config's choose_tiled_split_k, else 1); stream_k unspecified
// the rules' (a swap-AB choice's where swap_ab_plan takes it given has_workspace, GemmStreamK128x256 always),
// kOn / kOff as given. Whether it runs is gemm_plan_runs' to say.
constexpr GemmPlan gemm_entry_plan(GemmChoice choice, int split_k, tuning::StreamK stream_k, int64_t m,
                                   int64_t n, int64_t k, int64_t batch, bool has_workspace,
                                   const DeviceFacts& d) {
  GemmPlan p{choice, split_k, stream_k == tuning::StreamK::kOn};
  if (is_swap_ab_choice(choice)) {
    const bool may_stream_k = has_workspace && stream_k != tuning::StreamK::kOff && split_k == 0;
    const SwapAbPlan r = swap_ab_plan(gemm_swap_ab_shape(choice), m, n, k, batch, may_stream_k, d);
    if (stream_k == tuning::StreamK::kUnspecified) p.stream_k = r.stream_k;
    if (split_k == 0)
      p.split_k = p.stream_k ? 1 : swap_ab_plan(gemm_swap_ab_shape(choice), m, n, k, batch, false, d).split_k;
    return p;
  }
  if (choice == GemmChoice::kStreamK128x256) {
    if (stream_k == tuning::StreamK::kUnspecified) p.stream_k = true;
    if (split_k == 0) p.split_k = 1;
    return p;
  }
  if (split_k == 0) {
    p.split_k = 1;
    if (gemm_choice_splits_k(choice) && !p.stream_k)
      for (const TiledWidth& w : kTiledWidths)
        if (w.choice == choice)
          p.split_k = choose_tiled_split_k(m, n, k, batch, w.block_n, d.resident_clusters);
  }
  return p;
}
constexpr DualGemmPlan dual_gemm_entry_plan(DualGemmChoice choice, int split_k, tuning::StreamK stream_k,
                                            int64_t m, int64_t n, int64_t k, int64_t batch,
                                            bool has_workspace, const DeviceFacts& d) {
  DualGemmPlan p{choice, split_k, stream_k == tuning::StreamK::kOn};
  if (is_dual_swap_ab_choice(choice)) {
    const bool may_stream_k = has_workspace && stream_k != tuning::StreamK::kOff && split_k == 0;
    const SwapAbPlan r = swap_ab_plan(dual_gemm_swap_ab_shape(choice), m, n, k, batch, may_stream_k, d);
    if (stream_k == tuning::StreamK::kUnspecified) p.stream_k = r.stream_k;
    if (split_k == 0)
      p.split_k =
          p.stream_k ? 1 : swap_ab_plan(dual_gemm_swap_ab_shape(choice), m, n, k, batch, false, d).split_k;
    return p;
  }
  if (split_k == 0) p.split_k = 1;
  return p;
}

namespace detail {
inline std::string plan_words(const char* name, int split_k, bool stream_k) {
  return std::string(name) + ", split_k = " + std::to_string(split_k) + (stream_k ? ", stream-K" : "");
}
// "bwgemm: tuning: <source> names <plan> for <op> M=.. N=.. K=.. batch=..: <why>; the rules' plan instead"
// with the diagnostic switch on.
inline void report_refused_entry(const tuning::Choice& c, const tuning::Key& key, const std::string& plan,
                                 const char* why) {
  if (!diagnostics_enabled()) return;
  ::bwgemm::tuning::detail::report_tuning(
      std::string(c.source_name != nullptr ? c.source_name : to_string(c.source)) + " names " + plan +
      " for " + to_string(key.op) + " M=" + std::to_string(key.m) + " N=" + std::to_string(key.n) +
      " K=" + std::to_string(key.k) + " batch=" + std::to_string(key.batch) + ": " + why +
      "; the rules' plan instead");
}
}  // namespace detail

// The plan the GEMM runs for a call: the registry's entry for `key` on `device` where it has one that runs
// the call, else rules() (the rules' plan, given the call's workspace). workspace_bytes: the call's (0:
// none); stream_k_bytes(plan): the bytes a stream-K plan's launch takes (negative: it cannot be planned).
// With the diagnostic switch on, the registry names the source that chose, and a refused entry says why.
// Allocates nothing but with the diagnostic switch on (and at the registry's first lookup).
template <class Rules, class StreamKBytes>
GemmPlan choose_gemm_plan(const tuning::Key& key, const tuning::DeviceDescription& device,
                          const DeviceFacts& d, int64_t workspace_bytes, const Rules& rules,
                          const StreamKBytes& stream_k_bytes,
                          tuning::Registry& registry = tuning::Registry::global()) {
  GemmPlan rules_plan;
  bool have_rules = false;
  const tuning::Choice c = registry.choose(key, device, [&] {
    rules_plan = rules(), have_rules = true;
    tuning::Choice r;
    r.config = static_cast<int>(rules_plan.choice);
    r.config_name = gemm_choice_name(rules_plan.choice);
    r.split_k = rules_plan.split_k;
    r.stream_k = rules_plan.stream_k ? tuning::StreamK::kOn : tuning::StreamK::kOff;
    return r;
  });
  if (c.source == tuning::Source::kRules) return rules_plan;
  if (c.config < 0 || c.config >= kGemmChoiceCount) {
    detail::report_refused_entry(c, key, "config #" + std::to_string(c.config), "not a choice of this build");
    return have_rules ? rules_plan : rules();
  }
  const bool has_workspace = workspace_bytes > 0;
  GemmPlan p = gemm_entry_plan(static_cast<GemmChoice>(c.config), c.split_k, c.stream_k, key.m, key.n, key.k,
                               key.batch, has_workspace, d);
  if (p.stream_k && c.stream_k == tuning::StreamK::kUnspecified) {
    // The rules' stream-K for that choice: only where the workspace holds the launch.
    const int64_t need = stream_k_bytes(p);
    if (need < 0 || workspace_bytes < need)
      p = gemm_entry_plan(p.choice, c.split_k, tuning::StreamK::kOff, key.m, key.n, key.k, key.batch, false,
                          d);
  }
  const char* why = nullptr;
  if (!gemm_plan_runs(p, key.m, key.n, key.k, key.batch, has_workspace, d)) {
    why = "its Config cannot run that plan for this shape and device";
  } else if (p.stream_k) {
    const int64_t need = stream_k_bytes(p);
    if (need < 0 || workspace_bytes < need) why = "the call's workspace does not hold its stream-K launch";
  }
  if (why == nullptr) return p;
  detail::report_refused_entry(c, key, detail::plan_words(gemm_choice_name(p.choice), p.split_k, p.stream_k),
                               why);
  return have_rules ? rules_plan : rules();
}

// The dual GEMM's (choose_gemm_plan's rules, with dual_gemm_entry_plan and dual_gemm_plan_runs).
template <class Rules, class StreamKBytes>
DualGemmPlan choose_dual_gemm_plan(const tuning::Key& key, const tuning::DeviceDescription& device,
                                   const DeviceFacts& d, int64_t workspace_bytes, const Rules& rules,
                                   const StreamKBytes& stream_k_bytes,
                                   tuning::Registry& registry = tuning::Registry::global()) {
  DualGemmPlan rules_plan;
  bool have_rules = false;
  const tuning::Choice c = registry.choose(key, device, [&] {
    rules_plan = rules(), have_rules = true;
    tuning::Choice r;
    r.config = static_cast<int>(rules_plan.choice);
    r.config_name = dual_gemm_choice_name(rules_plan.choice);
    r.split_k = rules_plan.split_k;
    r.stream_k = rules_plan.stream_k ? tuning::StreamK::kOn : tuning::StreamK::kOff;
    return r;
  });
  if (c.source == tuning::Source::kRules) return rules_plan;
  if (c.config < 0 || c.config >= kDualGemmChoiceCount) {
    detail::report_refused_entry(c, key, "config #" + std::to_string(c.config), "not a choice of this build");
    return have_rules ? rules_plan : rules();
  }
  const bool has_workspace = workspace_bytes > 0;
  DualGemmPlan p = dual_gemm_entry_plan(static_cast<DualGemmChoice>(c.config), c.split_k, c.stream_k, key.m,
                                        key.n, key.k, key.batch, has_workspace, d);
  if (p.stream_k && c.stream_k == tuning::StreamK::kUnspecified) {
    const int64_t need = stream_k_bytes(p);
    if (need < 0 || workspace_bytes < need)
      p = dual_gemm_entry_plan(p.choice, c.split_k, tuning::StreamK::kOff, key.m, key.n, key.k, key.batch,
                               false, d);
  }
  const char* why = nullptr;
  if (!dual_gemm_plan_runs(p, key.m, key.n, key.k, key.batch, has_workspace, d)) {
    why = "its Config cannot run that plan for this shape and device";
  } else if (p.stream_k) {
    const int64_t need = stream_k_bytes(p);
    if (need < 0 || workspace_bytes < need) why = "the call's workspace does not hold its stream-K launch";
  }
  if (why == nullptr) return p;
  detail::report_refused_entry(
      c, key, detail::plan_words(dual_gemm_choice_name(p.choice), p.split_k, p.stream_k), why);
  return have_rules ? rules_plan : rules();
}

}  // namespace bwgemm::sm90
