// bwgemm-tune's sm_100a candidate sources: every Config the default entry points choose from
// (sm100::kGemmChoiceNames, kDualGemmChoiceNames, kNvfp4GemmChoiceNames, kNvfp4DualGemmChoiceNames: their
// tuning candidate lists; the NVFP4 operations with fp16 output), the swap-AB ones also with
// each split of K (1, 2, 4, 8; 0: their own), each run by the entry point's own detail::run_*_choice; the built-in
// choice is the rules' (sm100::gemm_choice, dual_gemm_choice, nvfp4_gemm_choice, nvfp4_dual_choice). A
// candidate that cannot run the shape (a token tile smaller than M, a split larger than the K blocks) fails
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
    out.push_back({names[i], 0, tuning::StreamK::kUnspecified,
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

template <class T>
std::unique_ptr<CandidateSource> gemm_source() {
  using Args = GemmArguments<T>;
  auto run = [](int i, const Args& args, const TuneCall& call, int split_k) {
    return sm100::detail::run_gemm_choice(static_cast<sm100::GemmChoice>(i), args, stream_of(call), split_k);
  };
  auto takes = [](int i, int split_k) {
    return sm100::detail::gemm_choice_takes_split(static_cast<sm100::GemmChoice>(i), split_k);
  };
  return std::make_unique<ListSource>(
      all_choices<Args>(sm100::kGemmChoiceNames, sm100::kGemmChoiceCount, run, takes), [](const TuneShape& s) {
        return TuneChoice{sm100::kGemmChoiceNames[static_cast<int>(sm100::gemm_choice(s.m))]};
      });
}

std::unique_ptr<CandidateSource> dual_gemm_source() {
  using Args = DualGemmArguments<__nv_bfloat16>;
  auto run = [](int i, const Args& args, const TuneCall& call, int split_k) {
    return sm100::detail::run_dual_gemm_choice(static_cast<sm100::DualGemmChoice>(i), args, stream_of(call),
                                               split_k);
  };
  auto takes = [](int i, int split_k) {
    return sm100::detail::dual_gemm_choice_takes_split(static_cast<sm100::DualGemmChoice>(i), split_k);
  };
  return std::make_unique<ListSource>(
      all_choices<Args>(sm100::kDualGemmChoiceNames, sm100::kDualGemmChoiceCount, run, takes),
      [](const TuneShape& s) {
        return TuneChoice{sm100::kDualGemmChoiceNames[static_cast<int>(sm100::dual_gemm_choice(s.m))]};
      });
}

// The NVFP4 operations with fp16 output (the benchmark's problems).
std::unique_ptr<CandidateSource> nvfp4_gemm_source() {
  using Args = Nvfp4GemmArguments<__half>;
  auto run = [](int i, const Args& args, const TuneCall& call, int split_k) {
    return sm100::detail::run_nvfp4_gemm_choice(static_cast<sm100::Nvfp4GemmChoice>(i), args, stream_of(call),
                                                split_k);
  };
  auto takes = [](int i, int split_k) {
    return sm100::detail::nvfp4_gemm_choice_takes_split(static_cast<sm100::Nvfp4GemmChoice>(i), split_k);
  };
  return std::make_unique<ListSource>(
      all_choices<Args>(sm100::kNvfp4GemmChoiceNames, sm100::kNvfp4GemmChoiceCount, run, takes),
      [](const TuneShape& s) {
        return TuneChoice{sm100::kNvfp4GemmChoiceNames[static_cast<int>(sm100::nvfp4_gemm_choice(s.m))]};
      });
}

std::unique_ptr<CandidateSource> nvfp4_dual_gemm_source() {
  using Args = Nvfp4DualGemmArguments<__half>;
  auto run = [](int i, const Args& args, const TuneCall& call, int split_k) {
    return sm100::detail::run_nvfp4_dual_choice(static_cast<sm100::Nvfp4DualChoice>(i), args, stream_of(call),
                                                split_k);
  };
  auto takes = [](int i, int split_k) {
    return sm100::detail::nvfp4_dual_choice_takes_split(static_cast<sm100::Nvfp4DualChoice>(i), split_k);
  };
  return std::make_unique<ListSource>(
      all_choices<Args>(sm100::kNvfp4DualGemmChoiceNames, sm100::kNvfp4DualGemmChoiceCount, run, takes),
      [](const TuneShape& s) {
        return TuneChoice{sm100::kNvfp4DualGemmChoiceNames[static_cast<int>(sm100::nvfp4_dual_choice(s.m))]};
      });
}

}  // namespace

std::vector<SourceRegistration> sm100_candidate_sources() {
  SourceRegistration gemm;
  gemm.name = "sm_100a gemm entry point";
  gemm.cc_major = 10, gemm.cc_minor = 0;
  gemm.op = tuning::Operation::kGemm;
  gemm.make = [](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
    if (t.in == tuning::Element::kBf16 && t.out == tuning::Element::kBf16) return gemm_source<__nv_bfloat16>();
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
