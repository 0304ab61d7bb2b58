// bwgemm-tune on the GPU (tune_gpu.hpp).
#include "tune_gpu.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

#include "kernels.cuh"  // bench_kernels_loadable
#include "problems.hpp"
#include "timing.hpp"

#ifndef BWGEMM_BENCH_CUDA_ARCHITECTURES
#define BWGEMM_BENCH_CUDA_ARCHITECTURES "(unknown)"
#endif

namespace bwgemm::bench::tune {

namespace {

// The problem's operand set `set` as a call (tune.hpp TuneCall).
template <class T>
TuneCall call_of(const GemmProblem<T>& p, int set) {
  const GemmOperands<T>& o = p.operands(set);
  TuneCall c;
  c.m = p.shape().m, c.n = p.shape().n, c.k = p.shape().k;
  c.b_layout = p.shape().b_layout;
  c.a = o.a, c.b = o.b, c.out = o.d;
  return c;
}
TuneCall call_of(const DualBf16Problem& p, int set) {
  const DualBf16Operands& o = p.operands(set);
  TuneCall c;
  c.m = p.shape().m, c.n = p.shape().n, c.k = p.shape().k;
  c.a = o.a, c.b = o.b1, c.b2 = o.b2, c.out = o.c;
  return c;
}
TuneCall call_of(const Nvfp4GemmProblem& p, int set) {
  const Nvfp4GemmOperands& o = p.operands(set);
  TuneCall c;
  c.m = p.shape().m, c.n = p.shape().n, c.k = p.shape().k;
  c.a = o.a, c.a_scales = o.a_scales, c.b = o.b, c.b_scales = o.b_scales, c.out = o.d;
  return c;
}
TuneCall call_of(const Nvfp4DualProblem& p, int set) {
  const Nvfp4DualOperands& o = p.operands(set);
  TuneCall c;
  c.m = p.shape().m, c.n = p.shape().n, c.k = p.shape().k;
  c.a = o.a, c.a_scales = o.a_scales, c.b = o.b1, c.b_scales = o.b1_scales;
  c.b2 = o.b2, c.b2_scales = o.b2_scales, c.out = o.c;
  return c;
}

template <class Problem>
class ProblemMeasurement final : public ShapeMeasurement {
 public:
  ProblemMeasurement(std::unique_ptr<Problem> problem, const Context& context, void* workspace)
      : problem_(std::move(problem)), context_(context), workspace_(workspace) {}

  CheckOutcome validate(const TuneCandidate& c) override {
    cudaStream_t stream = context_.stream;
    try {
      const Launch launch = launch_of(c);
      problem_->poison_output(stream);
      run_once(launch);
      const CheckResult r = problem_->check_output(/*u_mid=*/0.0, stream);  // fused: no rounded intermediates
      if (!r.ok) rezero_workspace();
      return {r.ok, r.message};
    } catch (const std::exception& e) {
      cudaStreamSynchronize(stream);
      (void)cudaGetLastError();  // a launch error; a sticky fault fails every later call, and says so
      rezero_workspace();
      return {false, e.what()};
    }
  }

  Status time(const std::vector<const TuneCandidate*>& candidates, int rounds,
              std::vector<std::vector<double>>* us) override {
    try {
      std::vector<Launch> launches;
      for (const TuneCandidate* c : candidates) launches.push_back(launch_of(*c));
      InterleavedTiming t = time_interleaved(launches, problem_->sets(), rounds, context_);
      *us = std::move(t.per_call_us);
      return Status::success();
    } catch (const std::exception& e) {
      cudaStreamSynchronize(context_.stream);
      (void)cudaGetLastError();
      rezero_workspace();
      return Status::internal_error(e.what());
    }
  }

 private:
  // One call of `c` on a set; a failed Status throws (time_interleaved and validate catch it).
  Launch launch_of(const TuneCandidate& c) const {
    const TuneCandidate* candidate = &c;  // alive while the shape is tuned (tune.hpp's tune_shape holds it)
    const Problem* problem = problem_.get();
    void* workspace = workspace_;
    return [candidate, problem, workspace](int set, cudaStream_t stream) {
      TuneCall call = call_of(*problem, set);
      call.workspace = workspace;
      call.workspace_bytes = workspace != nullptr ? kTuneWorkspaceBytes : 0;
      call.split_k = candidate->split_k;
      call.stream_k = candidate->stream_k;
      call.stream = stream;
      const Status s = candidate->run(call);
      if (!s.ok()) throw BenchError(describe(*candidate) + ": " + s.to_string());
    };
  }

  // One call on operand set 0 the way the timing makes it: captured into a CUDA graph and replayed (--mode=
  // graph: a candidate that cannot be captured fails here, alone), or launched on the stream.
  void run_once(const Launch& launch) const {
    cudaStream_t stream = context_.stream;
    if (!context_.timing.use_graphs) {
      launch(0, stream);
      return;
    }
    BWGEMM_BENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      launch(0, stream);
    } catch (...) {
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(stream, &partial);
      if (partial != nullptr) cudaGraphDestroy(partial);
      (void)cudaGetLastError();
      throw;
    }
    cudaGraph_t graph = nullptr;
    BWGEMM_BENCH_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    if (instantiated != cudaSuccess)
      throw BenchError(std::string("cudaGraphInstantiate failed: ") + cudaGetErrorString(instantiated));
    const cudaError_t launched = cudaGraphLaunch(exec, stream);
    cudaGraphExecDestroy(exec);  // freed when the launch completes
    BWGEMM_BENCH_CUDA(launched);
  }

  void rezero_workspace() {
    if (workspace_ != nullptr) cudaMemset(workspace_, 0, static_cast<size_t>(kTuneWorkspaceBytes));
  }

  std::unique_ptr<Problem> problem_;
  const Context& context_;
  void* workspace_;
};

template <class Problem, class Shape>
std::unique_ptr<ShapeMeasurement> measure(const Shape& shape, const Context& context, void* workspace) {
  return std::make_unique<ProblemMeasurement<Problem>>(std::make_unique<Problem>(shape, context), context,
                                                       workspace);
}

}  // namespace

Status open_device(int ordinal, Context* context, tuning::DeviceDescription* device, std::string* banner) {
  int count = 0;
  const cudaError_t count_status = cudaGetDeviceCount(&count);
  if (count_status != cudaSuccess || count == 0)
    return Status::not_supported(
        std::string("no CUDA device (") +
        (count_status != cudaSuccess ? cudaGetErrorString(count_status) : "0 devices") +
        "): tuning measures on a GPU; nothing was tuned");
  if (ordinal >= count)
    return Status::invalid_argument("--device=" + std::to_string(ordinal) + " but there are only " +
                                    std::to_string(count) + " CUDA device(s)");
  DeviceInfo& d = context->device;
  try {
    open_device_info(ordinal, &d, &context->stream);
    BWGEMM_BENCH_CUDA(cudaRuntimeGetVersion(&device->cuda_runtime));
    BWGEMM_BENCH_CUDA(cudaDriverGetVersion(&device->cuda_driver));
  } catch (const std::exception& e) {
    return Status::driver_error("cannot set up device " + std::to_string(ordinal) + ": " + e.what());
  }
  device->name = d.name;
  device->sm_count = d.sm_count;
  device->cc_major = d.cc_major;
  device->cc_minor = d.cc_minor;
  std::string why;
  if (!bench_kernels_loadable(&why))
    return Status::not_supported(
        "this binary has no code for compute capability " + std::to_string(d.cc_major) + "." +
        std::to_string(d.cc_minor) + " (" + why +
        "); it was built for CUDA architectures " BWGEMM_BENCH_CUDA_ARCHITECTURES
        ": add it to CMAKE_CUDA_ARCHITECTURES or BWGEMM_BENCH_EXTRA_CUDA_ARCHITECTURES");
  char line[256];
  std::snprintf(
      line, sizeof(line),
      "device %d: %s, compute capability %d.%d, %d SMs, L2 %.0f MiB, %.1f GiB free; CUDA runtime %d, "
      "driver %d",
      ordinal, d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.l2_bytes / kMiB,
      d.free_bytes / kMiB / 1024, device->cuda_runtime, device->cuda_driver);
  *banner = line;
  return Status::success();
}

void close_device(Context* context) {
  if (context->stream != nullptr) cudaStreamDestroy(context->stream);
  context->stream = nullptr;
}

GpuMeasurer::GpuMeasurer(const Context& context)
    : context_(context), workspace_(static_cast<size_t>(kTuneWorkspaceBytes)) {
  BWGEMM_BENCH_CUDA(cudaMemset(workspace_.get(), 0, workspace_.bytes()));
}

Status GpuMeasurer::open(const TuneTarget& target, const TuneShape& shape,
                         std::unique_ptr<ShapeMeasurement>* out) {
  using tuning::Element;
  using tuning::Operation;
  // A kernel fault earlier leaves the context unusable: say so instead of failing every shape obscurely.
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    return Status::driver_error(std::string("the device is in an error state after an earlier failure (") +
                                cudaGetErrorString(e) +
                                "): run bwgemm-tune again, without the failing shape");
  void* ws = workspace_.get();
  const GemmShape gemm{shape.m, shape.n, shape.k, target.b_layout};
  const DualShape dual{shape.m, shape.n, shape.k};
  try {
    switch (target.op) {
      case Operation::kGemm:
        if (target.in == Element::kFp16 && target.out == Element::kFp16)
          return *out = measure<GemmProblem<__half>>(gemm, context_, ws), Status::success();
        if (target.in == Element::kBf16 && target.out == Element::kBf16)
          return *out = measure<GemmProblem<__nv_bfloat16>>(gemm, context_, ws), Status::success();
        break;
      case Operation::kDualGemm:
        if (target.in == Element::kBf16 && target.out == Element::kBf16)
          return *out = measure<DualBf16Problem>(dual, context_, ws), Status::success();
        break;
      case Operation::kNvfp4Gemm:
        if (target.out == Element::kFp16)
          return *out = measure<Nvfp4GemmProblem>(gemm, context_, ws), Status::success();
        break;
      case Operation::kNvfp4DualGemm:
        if (target.out == Element::kFp16)
          return *out = measure<Nvfp4DualProblem>(dual, context_, ws), Status::success();
        break;
    }
  } catch (const std::exception& e) {
    cudaStreamSynchronize(context_.stream);
    (void)cudaGetLastError();
    return Status::internal_error(e.what());
  }
  return Status::not_supported("the benchmark has no problem for " + describe(target));
}

}  // namespace bwgemm::bench::tune
