// bwgemm-tune's sm_100a candidate sources: every Config the default entry points choose from
// (sm100::kGemmChoiceNames, kDualGemmChoiceNames, kNvfp4GemmChoiceNames, kNvfp4DualGemmChoiceNames: their
// tuning candidate lists; the NVFP4 operations with fp16 output), the swap-AB ones also with
// each split of K (1, 2, 4, 8; 0: their own), each run by the entry point's own detail::run_*_choice; the
// built-in choice is the rules' (sm100::gemm_choice, dual_gemm_choice, nvfp4_gemm_choice, nvfp4_dual_choice).
// A candidate that cannot run the shape (a token tile smaller than M, a split larger than the K blocks) fails
// its check and is dropped. Built for 100a (bench/CMakeLists.txt).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <memory>
#include <vector>

#include "bwgemm/sm100/dual_gemm.cuh"
#include "bwgemm/sm100/gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "tune_arguments.hpp"
#include "tune_sources.hpp"

namespace bwgemm::bench::tune {
namespace {

constexpr int kSplits[] = {1, 2, 4, 8};

// Every choice i of `count` with split 0, and with each split the choice takes (takes(i, split)).
template <class Args, class Run, class Takes>
std::vector<TuneCandidate> all_choices(const char* const* names, int count, Run run, Takes takes) {
  std::vector<TuneCandidate> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(
        {names[i], 0, tuning::StreamK::kUnspecified,
         run_with<Args>([run, i](const Args& args, const TuneCall& call) { return run(i, args, call, 0); })});
    for (int s : kSplits)
      if (s > 1 && takes(i, s))
        out.push_back({names[i], s, tuning::StreamK::kUnspecified,
                       run_with<Args>([run, i, s](const Args& args, const TuneCall& call) {
                         return run(i, args, call, s);
                       })});
  }
  return out;
}

// An entry point's source: every Config of its choice enum (`names`, in enum order) run by `run_choice`
// (the entry point's detail::run_*_choice) with the splits `takes` allows, the rules' Config (`rules(m)`) as
// the built-in choice.
template <class Args, class Choice, class RunChoice, class Takes, class Rules>
std::unique_ptr<CandidateSource> choice_source(const char* const* names, int count, RunChoice run_choice,
                                               Takes takes, Rules rules) {
  auto run = [run_choice](int i, const Args& args, const TuneCall& call, int split_k) {
    return run_choice(static_cast<Choice>(i), args, stream_of(call), split_k);
  };
  auto takes_index = [takes](int i, int split_k) { return takes(static_cast<Choice>(i), split_k); };
  return std::make_unique<ListSource>(
      all_choices<Args>(names, count, run, takes_index),
      [names, rules](const TuneShape& s) { return TuneChoice{names[static_cast<int>(rules(s.m))]}; });
}

template <class T>
std::unique_ptr<CandidateSource> gemm_source() {
  using Args = GemmArguments<T>;
  return choice_source<Args, sm100::GemmChoice>(
      sm100::kGemmChoiceNames, sm100::kGemmChoiceCount,
      [](sm100::GemmChoice c, const Args& a, cudaStream_t s, int split) {
        return sm100::detail::run_gemm_choice(c, a, s, split);
      },
      sm100::detail::choice_takes_split<sm100::GemmChoice>, sm100::gemm_choice);
}

std::unique_ptr<CandidateSource> dual_gemm_source() {
  using Args = DualGemmArguments<__nv_bfloat16>;
  return choice_source<Args, sm100::DualGemmChoice>(
      sm100::kDualGemmChoiceNames, sm100::kDualGemmChoiceCount,
      [](sm100::DualGemmChoice c, const Args& a, cudaStream_t s, int split) {
        return sm100::detail::run_dual_gemm_choice(c, a, s, split);
      },
      sm100::detail::choice_takes_split<sm100::DualGemmChoice>, sm100::dual_gemm_choice);
}

// The NVFP4 operations with fp16 output (the benchmark's problems).
std::unique_ptr<CandidateSource> nvfp4_gemm_source() {
  using Args = Nvfp4GemmArguments<__half>;
  return choice_source<Args, sm100::Nvfp4GemmChoice>(
      sm100::kNvfp4GemmChoiceNames, sm100::kNvfp4GemmChoiceCount,
      [](sm100::Nvfp4GemmChoice c, const Args& a, cudaStream_t s, int split) {
        return sm100::detail::run_nvfp4_gemm_choice(c, a, s, split);
      },
      sm100::detail::choice_takes_split<sm100::Nvfp4GemmChoice>, sm100::nvfp4_gemm_choice);
}

std::unique_ptr<CandidateSource> nvfp4_dual_gemm_source() {
  using Args = Nvfp4DualGemmArguments<__half>;
  return choice_source<Args, sm100::Nvfp4DualChoice>(
      sm100::kNvfp4DualGemmChoiceNames, sm100::kNvfp4DualGemmChoiceCount,
      [](sm100::Nvfp4DualChoice c, const Args& a, cudaStream_t s, int split) {
        return sm100::detail::run_nvfp4_dual_choice(c, a, s, split);
      },
      sm100::detail::choice_takes_split<sm100::Nvfp4DualChoice>, sm100::nvfp4_dual_choice);
}

}  // namespace

std::vector<SourceRegistration> sm100_candidate_sources() {
  SourceRegistration gemm;
  gemm.name = "sm_100a gemm entry point";
  gemm.cc_major = 10, gemm.cc_minor = 0;
  gemm.op = tuning::Operation::kGemm;
  gemm.make = [](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    if (t.in == tuning::Element::kBf16 && t.out == tuning::Element::kBf16)
      return gemm_source<__nv_bfloat16>();
    if (t.in == tuning::Element::kFp16 && t.out == tuning::Element::kFp16) return gemm_source<__half>();
    return nullptr;
  };
  SourceRegistration dual;
  dual.name = "sm_100a dual_gemm entry point";
  dual.cc_major = 10, dual.cc_minor = 0;
  dual.op = tuning::Operation::kDualGemm;
  dual.make = [](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    if (t.in != tuning::Element::kBf16 || t.out != tuning::Element::kBf16) return nullptr;
    return dual_gemm_source();
  };
  const auto nvfp4_fp16 = [](const TuneTarget& t) {
    return t.in == tuning::Element::kNvfp4 && t.out == tuning::Element::kFp16;
  };
  SourceRegistration nvfp4_gemm;
  nvfp4_gemm.name = "sm_100a gemm_nvfp4 entry point";
  nvfp4_gemm.cc_major = 10, nvfp4_gemm.cc_minor = 0;
  nvfp4_gemm.op = tuning::Operation::kNvfp4Gemm;
  nvfp4_gemm.make = [nvfp4_fp16](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    return nvfp4_fp16(t) ? nvfp4_gemm_source() : nullptr;
  };
  SourceRegistration nvfp4_dual;
  nvfp4_dual.name = "sm_100a dual_gemm_nvfp4 entry point";
  nvfp4_dual.cc_major = 10, nvfp4_dual.cc_minor = 0;
  nvfp4_dual.op = tuning::Operation::kNvfp4DualGemm;
  nvfp4_dual.make = [nvfp4_fp16](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    return nvfp4_fp16(t) ? nvfp4_dual_gemm_source() : nullptr;
  };
  return {gemm, dual, nvfp4_gemm, nvfp4_dual};
}

}  // namespace bwgemm::bench::tune
