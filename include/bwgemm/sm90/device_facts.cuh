// What the sm_90a default entry points (sm90::gemm, sm90::dual_gemm) share around the choice: the device
// facts they hand it (sm90/choice.hpp's DeviceFacts: the SM count of the current device,
// cudaDevAttrMultiProcessorCount, asked once per device, and the resident clusters of 1, 2, 4 and 8 CTAs of a
// Config of the choice, host::cached_resident_clusters: asked once per kernel, launch shape and device), and
// the plan's workspace check.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/tuning_device.hpp"  // current_device_description
#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/sm90/split_k.cuh"

namespace bwgemm::sm90::detail {

// The current device's SM count, remembered per device; 0 where the device cannot say.
inline int64_t current_sm_count() {
  constexpr int kRemembered = 64;
  static std::atomic<int32_t> counts[kRemembered] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  if (device >= 0 && device < kRemembered) {
    if (const int32_t n = counts[device].load(std::memory_order_relaxed); n > 0) return n;
  }
  int n = 0;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    return 0;
  }
  if (device >= 0 && device < kRemembered) counts[device].store(n, std::memory_order_relaxed);
  return n;
}

// The facts for a call whose Configs place clusters as `kernel` does (every Config of the choice takes one
// CTA per SM, so any of them answers for all). Where the device cannot say (no device, another
// architecture): the SM count it gives, else an H200's, and no split; the launch then names the real error.
template <class Params>
DeviceFacts device_facts(void (*kernel)(const Params), uint32_t threads, uint32_t smem_bytes) {
  DeviceFacts f;
  const int64_t sms = current_sm_count();
  if (split_k_resident_clusters(kernel, threads, smem_bytes, true, f.resident_clusters).ok()) {
    f.sm_count = sms > 0 ? sms : f.resident_clusters[0];
  } else {
    f.sm_count = sms > 0 ? sms : h200_device_facts().sm_count;
    f.resident_clusters[0] = f.sm_count;
    for (int i = 1; i < kSplitKChoiceCount; ++i) f.resident_clusters[i] = 0;
  }
  return f;
}

// rule(has_workspace)'s plan for the call: with stream-K only where the call's workspace holds its launch.
template <class Args, class Rule, class Bytes>
auto plan_with_workspace(const Args& args, const Rule& rule, const Bytes& plan_bytes) {
  auto plan = rule(args.workspace != nullptr && args.workspace_bytes > 0);
  if (plan.stream_k) {
    const int64_t need = plan_bytes(plan);
    if (need < 0 || args.workspace_bytes < need) plan = rule(false);
  }
  return plan;
}

// A plan as the diagnostic switch prints it.
inline std::string plan_text(const char* name, int split_k, bool stream_k) {
  return std::string("sm90::") + name + ", split_k = " + std::to_string(split_k) +
         (stream_k ? ", stream-K" : "");
}
}  // namespace bwgemm::sm90::detail
