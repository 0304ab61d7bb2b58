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
#include "bwgemm/tuning/registry.hpp"
// The reader is host code, reached through the registry's reader pointer (tuning::detail::file_reader, set
// when the program starts): nvcc's device passes (__CUDA_ARCH__ defined) skip nlohmann/json, which would
// otherwise be parsed once more per architecture in every unit that includes gemm.cuh or dual_gemm.cuh.
#if !defined(__CUDA_ARCH__)
#include "bwgemm/tuning/json.hpp"
#endif

namespace bwgemm {

inline Status install_tuning_file(const std::string& path) {
  const tuning::DeviceDescription* device = nullptr;
  if (!host::current_device_description(&device))
    return Status::driver_error(
        "bwgemm::install_tuning_file: the CUDA runtime cannot describe the current "
        "device, so no tuning file can be checked against it");
  sm100::register_tuning_candidates();
  sm90::register_tuning_candidates();
  tuning::Registry& registry = tuning::Registry::global();
  tuning::Candidates candidates;
  Status s;
  std::shared_ptr<const tuning::TuningTable> table;
  const tuning::FileReader reader = tuning::detail::file_reader().load(std::memory_order_acquire);
  if (!registry.candidates_for(device->cc_major, device->cc_minor, &candidates))
    s = Status::not_supported("tuning file " + tuning::detail::in_quotes(path) +
                              ": no candidate lists are registered for compute capability " +
                              std::to_string(device->cc_major) + "." + std::to_string(device->cc_minor));
  else if (reader == nullptr)  // only before static initialization
    s = Status::not_supported("tuning file " + tuning::detail::in_quotes(path) +
                              ": the tuning-file reader is not initialized yet");
  else
    s = reader(path, *device, candidates, &table);
  if (!s.ok()) {
    tuning::detail::report_tuning(s.message() + ": ignored");
    return s;
  }
  registry.install(std::move(table));
  return Status::success();
}

}  // namespace bwgemm
