// The candidate sources bwgemm-tune has (tune.hpp SourceRegistration): per compute capability and operation,
// how to list the candidates the default entry point chooses from there, and which one its rules choose.
#pragma once

#include <vector>

#include "tune.hpp"

namespace bwgemm::bench::tune {

// Every source of this build, in the order find_source tries them.
std::vector<SourceRegistration> candidate_sources();

}  // namespace bwgemm::bench::tune
