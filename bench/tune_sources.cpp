// The candidate sources bwgemm-tune has (tune_sources.hpp): the sm_90a entry points' (tune_sources_sm90.cu,
// built for 90a). The sm_100a entry points export no candidate list yet: on a B200 the tuner says there is
// no source for the device.
#include "tune_sources.hpp"

namespace bwgemm::bench::tune {

std::vector<SourceRegistration> candidate_sources() {
  return sm90_candidate_sources();
}

}  // namespace bwgemm::bench::tune
