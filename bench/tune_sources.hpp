// The candidate sources bwgemm-tune has (tune.hpp SourceRegistration): per compute capability and operation,
// how to list the candidates the default entry point chooses from there, and which one its rules choose.
#pragma once

#include <vector>

#include "tune.hpp"

namespace bwgemm::bench::tune {

// Every source of this build, in the order find_source tries them.
std::vector<SourceRegistration> candidate_sources();

// The sm_90a entry points' (tune_sources_sm90.cu): bwgemm::gemm fp16 and bf16, bwgemm::dual_gemm bf16.
std::vector<SourceRegistration> sm90_candidate_sources();
// The sm_100a entry points' (tune_sources_sm100.cu): the same operations.
std::vector<SourceRegistration> sm100_candidate_sources();

}  // namespace bwgemm::bench::tune
