// bwgemm-tune on the GPU: the device's description for the file's metadata, and the Measurer that checks and
// times candidates on the benchmark's problems (bench/problems.hpp: operands in rotating sets together more
// than 3x L2, validation against the host references) with the benchmark's interleaved timing
// (bench/timing.hpp time_interleaved: CUDA-graph replay or stream launches, fixed warm-up, alternating
// rounds).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bwgemm/tuning/table.hpp"
#include "common.hpp"
#include "tune.hpp"

namespace bwgemm::bench::tune {

// Sets up device `ordinal` for measuring: fills *context (device, stream; not the cuBLASLt handle) and
// *device (the tuning file's metadata), and a one-line *banner. not_supported where there is no CUDA device
// or the benchmark's own kernels cannot run on it; invalid_argument for an ordinal past the last device.
Status open_device(int ordinal, Context* context, tuning::DeviceDescription* device, std::string* banner);

// Frees what open_device created.
void close_device(Context* context);

// Builds each shape's problem on context.device and runs the candidates on it: validation on operand set 0
// with its output poisoned first, timing by time_interleaved with context.timing (use_graphs: --mode).
// The candidates share one zero-filled 32 MiB workspace (TuneCall::workspace), zeroed again after a failed
// call.
class GpuMeasurer : public Measurer {
 public:
  explicit GpuMeasurer(const Context& context);
  Status open(const TuneTarget& target, const TuneShape& shape,
              std::unique_ptr<ShapeMeasurement>* out) override;

 private:
  const Context& context_;
  DeviceBuffer<uint8_t> workspace_;
};

inline constexpr int64_t kTuneWorkspaceBytes = int64_t{32} << 20;

}  // namespace bwgemm::bench::tune
