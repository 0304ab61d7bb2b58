// bwgemm::install_tuning_file(path): reads a tuning file (docs/tuning.md, "The file"), checks it against the
// current device and the default entry points' candidate lists, and installs its table: from then on
// bwgemm::gemm and bwgemm::dual_gemm on that device take their kernel from it where it has the call's key,
// and their rules elsewhere. A refused file (another GPU's, malformed, naming an unknown Config) installs
// nothing and leaves the table installed before; the Status says why (printed too with BWGEMM_DIAGNOSTICS=1).
//
// The environment variable BWGEMM_TUNING_FILE does the same at the first call of an entry point, in every
// program that includes this header (gemm.cuh, dual_gemm.cuh and instantiate.cuh do): this header gives the
// registry its file reader (tuning/json.hpp, nlohmann/json).
#pragma once

#include <string>

#include "bwgemm/base/status.hpp"
#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/sm100/tuning.hpp"
#include "bwgemm/sm90/tuning.hpp"
#include "bwgemm/tuning/json.hpp"

namespace bwgemm {

inline Status install_tuning_file(const std::string& path) {
  const tuning::DeviceDescription* device = nullptr;
  if (!host::current_device_description(&device))
    return Status::driver_error("bwgemm::install_tuning_file: the CUDA runtime cannot describe the current "
                                "device, so no tuning file can be checked against it");
  sm100::register_tuning_candidates();
  sm90::register_tuning_candidates();
  return tuning::install_file(path, *device);
}

}  // namespace bwgemm
