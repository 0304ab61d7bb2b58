// bwgemm-tune's sm_90a candidate sources: for a shape, every plan the default entry points can run
// (sm90::gemm_candidate_plans / dual_gemm_candidate_plans: each catalogue Config by its stable name, with the
// splits of K it takes and stream-K, the tuner's call giving a workspace), each run by sm90::run_gemm_plan /
// run_dual_gemm_plan; the built-in choice is the rules' plan (sm90::gemm_plan / dual_gemm_plan) with the
// device's facts, as the entry point takes it without a table. Built for 90a (bench/CMakeLists.txt).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <memory>
#include <vector>

#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"
#include "tune_arguments.hpp"
#include "tune_sources.hpp"

namespace bwgemm::bench::tune {
namespace {

tuning::StreamK stream_k_of(bool on) {
  return on ? tuning::StreamK::kOn : tuning::StreamK::kOff;
}

// The tuner's calls always carry a workspace (TuneCall::workspace), so the stream-K plans are candidates and
// the rules choose as they do for a call that gives one.
constexpr bool kTunerHasWorkspace = true;

template <class T>
class Sm90GemmSource : public CandidateSource {
 public:
  explicit Sm90GemmSource(BLayout layout) : layout_(layout) {}
  std::vector<TuneCandidate> candidates(const TuneShape& s) const override {
    sm90::GemmPlan plans[sm90::kMaxGemmCandidatePlans];
    const int count = sm90::gemm_candidate_plans(s.m, s.n, s.k, 1, kTunerHasWorkspace, facts(s), plans);
    std::vector<TuneCandidate> out;
    for (int i = 0; i < count; ++i) {
      const sm90::GemmPlan plan = plans[i];
      out.push_back({sm90::gemm_choice_name(plan.choice), plan.split_k, stream_k_of(plan.stream_k),
                     run_with<GemmArguments<T>>([plan](const GemmArguments<T>& args, const TuneCall& call) {
                       return sm90::run_gemm_plan(plan, args, stream_of(call));
                     })});
    }
    return out;
  }
  TuneChoice builtin(const TuneShape& s) const override {
    const sm90::GemmPlan p = sm90::gemm_plan(s.m, s.n, s.k, 1, layout_, kTunerHasWorkspace, facts(s));
    return {sm90::gemm_choice_name(p.choice), p.split_k, stream_k_of(p.stream_k)};
  }

 private:
  sm90::DeviceFacts facts(const TuneShape& s) const {
    GemmArguments<T> args;
    args.m = s.m, args.n = s.n, args.k = s.k, args.b_layout = layout_;
    return sm90::detail::gemm_device_facts(args);
  }
  BLayout layout_;
};

class Sm90DualGemmSource : public CandidateSource {
 public:
  using Args = DualGemmArguments<__nv_bfloat16>;
  std::vector<TuneCandidate> candidates(const TuneShape& s) const override {
    sm90::DualGemmPlan plans[sm90::kMaxDualGemmCandidatePlans];
    const int count = sm90::dual_gemm_candidate_plans(s.m, s.n, s.k, 1, kTunerHasWorkspace, facts(), plans);
    std::vector<TuneCandidate> out;
    for (int i = 0; i < count; ++i) {
      const sm90::DualGemmPlan plan = plans[i];
      out.push_back({sm90::dual_gemm_choice_name(plan.choice), plan.split_k, stream_k_of(plan.stream_k),
                     run_with<Args>([plan](const Args& args, const TuneCall& call) {
                       return sm90::run_dual_gemm_plan(plan, args, stream_of(call));
                     })});
    }
    return out;
  }
  TuneChoice builtin(const TuneShape& s) const override {
    const sm90::DualGemmPlan p = sm90::dual_gemm_plan(s.m, s.n, s.k, 1, kTunerHasWorkspace, facts());
    return {sm90::dual_gemm_choice_name(p.choice), p.split_k, stream_k_of(p.stream_k)};
  }

 private:
  static sm90::DeviceFacts facts() { return sm90::detail::dual_gemm_device_facts(Args{}); }
};

}  // namespace

std::vector<SourceRegistration> sm90_candidate_sources() {
  SourceRegistration gemm;
  gemm.name = "sm_90a gemm entry point";
  gemm.cc_major = 9, gemm.cc_minor = 0;
  gemm.op = tuning::Operation::kGemm;
  gemm.make = [](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    if (t.in == tuning::Element::kBf16 && t.out == tuning::Element::kBf16)
      return std::make_unique<Sm90GemmSource<__nv_bfloat16>>(t.b_layout);
    if (t.in == tuning::Element::kFp16 && t.out == tuning::Element::kFp16)
      return std::make_unique<Sm90GemmSource<__half>>(t.b_layout);
    return nullptr;
  };
  SourceRegistration dual;
  dual.name = "sm_90a dual_gemm entry point";
  dual.cc_major = 9, dual.cc_minor = 0;
  dual.op = tuning::Operation::kDualGemm;
  dual.make = [](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    if (t.in != tuning::Element::kBf16 || t.out != tuning::Element::kBf16) return nullptr;
    return std::make_unique<Sm90DualGemmSource>();
  };
  return {gemm, dual};
}

}  // namespace bwgemm::bench::tune
