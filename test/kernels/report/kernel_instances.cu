// Every shipped sm_100a kernel, instantiated for the compile report (tools/kernel_report.py): the object's
// resource usage (cuobjdump -res-usage) gives registers, spills and stack; main() prints each Config's
// derived constants (threads, shared memory, tensor-memory columns) in the same key format.
#include <cstdio>
#include <type_traits>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_configs.cuh"

namespace {

template <class Cfg>
void instantiate_and_describe() {
  // Taking the kernel's address instantiates it for the device.
  volatile auto kernel = &bwgemm::sm100::dual_gemm_kernel<Cfg>;
  (void)kernel;
  const char* out = std::is_same_v<typename Cfg::Out, __half> ? "__half" : "__nv_bfloat16";
  std::printf("dual_gemm_kernel|%d|%d|%d|%s|%s|threads=%d|smem=%d|tmem=%d|acc_stages=%d\n", Cfg::kBlockN,
              Cfg::kStages, Cfg::kCtaGroup, Cfg::Scheduler::kName, out, Cfg::kThreads, Cfg::kSmemBytes,
              Cfg::kTmemColumns, Cfg::kAccStages);
}

template <class... Cs>
void describe_all(bwgemm::sm100::ConfigList<Cs...>) {
  (instantiate_and_describe<Cs>(), ...);
}

}  // namespace

int main() {
  describe_all(bwgemm::sm100::ShippedDualGemmConfigs{});
  return 0;
}
