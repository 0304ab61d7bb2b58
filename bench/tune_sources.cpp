// The candidate sources bwgemm-tune has (tune_sources.hpp).
//
// None yet: the architectures' candidate lists (the sm_90a and sm_100a entry points' Configs, by their stable
// names, each with a function that runs it) are added here from the catalogue the entry points export. A
// source for one operation of one architecture is a registration whose make() returns a ListSource
// (tune.hpp) over that list, with the entry point's rules as the built-in choice:
//
//   SourceRegistration r;
//   r.name = "sm_90a gemm";
//   r.cc_major = 9, r.cc_minor = 0;
//   r.op = tuning::Operation::kGemm;
//   r.make = [](const TuneTarget& t) -> std::unique_ptr<CandidateSource> {
//     if (t.in != tuning::Element::kBf16) return nullptr;             // the types this list covers
//     std::vector<TuneCandidate> list;
//     for (const auto& c : catalogue)                                  // (name, typed run function) pairs
//       list.push_back({c.name, 0, tuning::StreamK::kUnspecified,
//                       run_with<GemmArguments<__nv_bfloat16>>(c.run)});  // tune_arguments.hpp
//     return std::make_unique<ListSource>(std::move(list), [](const TuneShape& s) {
//       return TuneChoice{rules_choice_name(s)};                      // what the entry point's rules pick
//     });
//   };
//
// The run functions' code must be in the binary: the file that defines them is a CUDA source built for the
// architecture (like bench/candidates_sm90.cu, which bench/CMakeLists.txt builds for 90a), added to
// bwgemm-tune's sources.
#include "tune_sources.hpp"

namespace bwgemm::bench::tune {

std::vector<SourceRegistration> candidate_sources() {
  return {};
}

}  // namespace bwgemm::bench::tune
