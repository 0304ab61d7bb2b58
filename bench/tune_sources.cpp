// The candidate sources bwgemm-tune has (tune_sources.hpp): the sm_90a entry points' (tune_sources_sm90.cu,
// built for 90a: bwgemm::gemm fp16 and bf16, bwgemm::dual_gemm bf16) and the sm_100a ones'
// (tune_sources_sm100.cu, built for 100a: those and bwgemm::gemm_nvfp4, bwgemm::dual_gemm_nvfp4 with fp16
// output). The emulator build (bwgemm-tune-emu, an emulated compute capability 10.0 device) has the sm_100a
// sources alone.
#include "tune_sources.hpp"

namespace bwgemm::bench::tune {

std::vector<SourceRegistration> candidate_sources() {
  std::vector<SourceRegistration> all;
#if !BWGEMM_EMULATION
  all = sm90_candidate_sources();
#endif
  for (SourceRegistration& r : sm100_candidate_sources()) all.push_back(std::move(r));
  return all;
}

}  // namespace bwgemm::bench::tune
