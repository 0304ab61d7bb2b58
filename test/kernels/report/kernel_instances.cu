// Every shipped sm_100a kernel, instantiated for the compile report (tools/kernel_report.py): the object's
// resource usage (cuobjdump -res-usage) gives registers, spills and stack; main() prints each Config's
// derived constants (threads, shared memory, tensor-memory columns) in the same key format.
#include <cstdio>
#include <type_traits>

#include "bwgemm/kernels/sm100/dual_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/dual_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/gemm_configs.cuh"
#include "bwgemm/kernels/sm100/gemm_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_swap_ab_configs.cuh"
#include "bwgemm/sm100/dual_gemm.cuh"
#include "bwgemm/sm100/dual_gemm_swap_ab.cuh"
#include "bwgemm/sm100/gemm.cuh"
#include "bwgemm/sm100/gemm_swap_ab.cuh"
#include "bwgemm/sm100/grouped_gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_swap_ab.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm_swap_ab.cuh"

namespace {

template <class Out>
const char* out_name() {
  if constexpr (std::is_same_v<Out, __half>) return "__half";
  if constexpr (std::is_same_v<Out, __nv_bfloat16>) return "__nv_bfloat16";
  if constexpr (std::is_same_v<Out, bwgemm::Nvfp4Output>) return "Nvfp4Output";  // NVFP4 C
  return "float";
}

template <class Cfg>
struct IsGemmConfig : std::false_type {};
template <int N, int S, int G, class Sc, class E, class O>
struct IsGemmConfig<bwgemm::sm100::GemmConfig<N, S, G, Sc, E, O>> : std::true_type {};

// The small-M (swap-AB) Configs: their BlockN is the token tile (the MMA's N), their CTA group 1.
template <class Cfg>
struct IsGemmSwapAbConfig : std::false_type {};
template <int T, int S, class Sc, class E, class O>
struct IsGemmSwapAbConfig<bwgemm::sm100::GemmSwapAbConfig<T, S, Sc, E, O>> : std::true_type {};
template <class Cfg>
struct IsNvfp4GemmConfig : std::false_type {};
template <int N, int S, int G, class Sc, class E, class O, bwgemm::L2CacheHints H>
struct IsNvfp4GemmConfig<bwgemm::sm100::Nvfp4GemmConfig<N, S, G, Sc, E, O, H>> : std::true_type {};
// The 16-bit dual GEMM.
template <class Cfg>
struct IsDualGemmConfig : std::false_type {};
template <int N, int S, int G, class Sc, class E, class O>
struct IsDualGemmConfig<bwgemm::sm100::DualGemmConfig<N, S, G, Sc, E, O>> : std::true_type {};
template <class Cfg>
struct IsNvfp4DualSwapAbConfig : std::false_type {};
template <int T, int S, class Sc, class E, class O>
struct IsNvfp4DualSwapAbConfig<bwgemm::sm100::Nvfp4DualSwapAbConfig<T, S, Sc, E, O>> : std::true_type {};
// The small-M NVFP4 GEMM: the NVFP4 dual swap-AB kernels with one weight operand.
template <class Cfg>
struct IsNvfp4GemmSwapAbConfig : std::false_type {};
template <int T, int S, class Sc, class E, class O>
struct IsNvfp4GemmSwapAbConfig<bwgemm::sm100::Nvfp4GemmSwapAbConfig<T, S, Sc, E, O>> : std::true_type {};

// The small-M 16-bit dual GEMM: the 16-bit swap-AB kernels with two weight operands.
template <class Cfg>
struct IsDualSwapAbConfig : std::false_type {};
template <int T, int S, class Sc, class E, class O>
struct IsDualSwapAbConfig<bwgemm::sm100::DualSwapAbConfig<T, S, Sc, E, O>> : std::true_type {};

// Split: the swap-AB Configs' split-K kernel (swap_ab_split_k.cuh) rather than their persistent one.
template <class Cfg, bool Split = false>
const char* kernel_name() {
  if constexpr (IsGemmConfig<Cfg>::value) return "gemm_kernel";
  if constexpr (IsNvfp4GemmConfig<Cfg>::value) return "nvfp4_gemm_kernel";
  if constexpr (IsDualGemmConfig<Cfg>::value) return "dual_gemm_kernel";
  if constexpr (IsGemmSwapAbConfig<Cfg>::value)
    return Split ? "gemm_swap_ab_split_kernel" : "gemm_swap_ab_kernel";
  if constexpr (IsNvfp4DualSwapAbConfig<Cfg>::value)
    return Split ? "nvfp4_dual_swap_ab_split_kernel" : "nvfp4_dual_swap_ab_kernel";
  if constexpr (IsNvfp4GemmSwapAbConfig<Cfg>::value)
    return Split ? "nvfp4_gemm_swap_ab_split_kernel" : "nvfp4_gemm_swap_ab_kernel";
  if constexpr (IsDualSwapAbConfig<Cfg>::value)
    return Split ? "dual_swap_ab_split_kernel" : "dual_swap_ab_kernel";
  return "nvfp4_dual_gemm_kernel";
}

// prefix: "grouped_" for a Config's grouped (mixture-of-experts) kernel (kernels/sm100/grouped_kernels.cuh).
template <class Cfg, bool Split = false>
void describe(int stages_argument, const char* prefix = "") {
  std::printf("%s%s|%d|%d|%d|%s|%s|stages=%d|threads=%d|smem=%d|tmem=%d|acc_stages=%d\n", prefix,
              kernel_name<Cfg, Split>(), Cfg::kBlockN, stages_argument, Cfg::kClusterCtas,
              Cfg::Scheduler::kName, out_name<typename Cfg::Out>(), Cfg::kStages, Cfg::kThreads,
              Cfg::kSmemBytes, Cfg::kTmemColumns, Cfg::kAccStages);
}

// The key (kernel|BlockN|Stages template argument|ClusterCtas|scheduler|out) matches the kernel's demangled
// name; the fields after it are the derived constants (stages: the resolved count when Stages is 0).
template <class Cfg>
void instantiate_and_describe() {
  // Taking the kernel's address instantiates it for the device.
  if constexpr (IsGemmConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::gemm_kernel<Cfg>;
    (void)kernel;
  } else if constexpr (IsNvfp4GemmConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::nvfp4_gemm_kernel<Cfg>;
    (void)kernel;
  } else if constexpr (IsDualGemmConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::dual_gemm_kernel<Cfg>;
    (void)kernel;
  } else if constexpr (IsGemmSwapAbConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::gemm_swap_ab_kernel<Cfg>;
    volatile auto split_kernel = &bwgemm::sm100::gemm_swap_ab_split_kernel<Cfg>;
    (void)kernel;
    (void)split_kernel;
  } else if constexpr (IsNvfp4DualSwapAbConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::nvfp4_dual_swap_ab_kernel<Cfg>;
    volatile auto split_kernel = &bwgemm::sm100::nvfp4_dual_swap_ab_split_kernel<Cfg>;
    (void)kernel;
    (void)split_kernel;
  } else if constexpr (IsNvfp4GemmSwapAbConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::nvfp4_gemm_swap_ab_kernel<Cfg>;
    volatile auto split_kernel = &bwgemm::sm100::nvfp4_gemm_swap_ab_split_kernel<Cfg>;
    (void)kernel;
    (void)split_kernel;
  } else if constexpr (IsDualSwapAbConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::dual_swap_ab_kernel<Cfg>;
    volatile auto split_kernel = &bwgemm::sm100::dual_swap_ab_split_kernel<Cfg>;
    (void)kernel;
    (void)split_kernel;
  } else {
    volatile auto kernel = &bwgemm::sm100::nvfp4_dual_gemm_kernel<Cfg>;
    (void)kernel;
  }
  int stages_argument = Cfg::kStages;
  if constexpr (IsGemmConfig<Cfg>::value || IsDualGemmConfig<Cfg>::value)
    stages_argument = Cfg::kStagesRequested;
  describe<Cfg>(stages_argument);
  if constexpr (IsGemmSwapAbConfig<Cfg>::value || IsNvfp4DualSwapAbConfig<Cfg>::value ||
                IsNvfp4GemmSwapAbConfig<Cfg>::value || IsDualSwapAbConfig<Cfg>::value)
    describe<Cfg, true>(stages_argument);
}

template <class... Cs>
void describe_all(bwgemm::sm100::ConfigList<Cs...>) {
  (instantiate_and_describe<Cs>(), ...);
}

// The grouped kernel of Cfg, a shipped grouped Config (sm100/grouped_gemm.cuh: a tiled GEMM, dual GEMM, NVFP4
// GEMM or NVFP4 dual GEMM Config, static persistent).
template <class Cfg>
void instantiate_and_describe_grouped() {
  if constexpr (IsGemmConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::grouped_gemm_kernel<Cfg>;
    (void)kernel;
  } else if constexpr (IsNvfp4GemmConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::grouped_nvfp4_gemm_kernel<Cfg>;
    (void)kernel;
  } else if constexpr (IsDualGemmConfig<Cfg>::value) {
    volatile auto kernel = &bwgemm::sm100::grouped_dual_gemm_kernel<Cfg>;
    (void)kernel;
  } else {
    volatile auto kernel = &bwgemm::sm100::grouped_nvfp4_dual_gemm_kernel<Cfg>;
    (void)kernel;
  }
  int stages_argument = Cfg::kStages;
  if constexpr (IsGemmConfig<Cfg>::value || IsDualGemmConfig<Cfg>::value)
    stages_argument = Cfg::kStagesRequested;
  describe<Cfg>(stages_argument, "grouped_");
}

template <class... Cs>
void describe_all_grouped(bwgemm::sm100::ConfigList<Cs...>) {
  (instantiate_and_describe_grouped<Cs>(), ...);
}

// The shipped grouped Configs (one per entry point's choice), fp16 output, SiluMul for the duals.
using ShippedGroupedConfigs = bwgemm::sm100::ConfigList<
    bwgemm::sm100::GroupedGemmTokens128<__half>, bwgemm::sm100::GroupedGemmTokens256<__half>,
    bwgemm::sm100::GroupedDualGemmTokens128<__half, bwgemm::epi::SiluMul>,
    bwgemm::sm100::GroupedDualGemmTokens256<__half, bwgemm::epi::SiluMul>,
    bwgemm::sm100::GroupedNvfp4GemmTokens128<__half>, bwgemm::sm100::GroupedNvfp4GemmTokens256<__half>,
    bwgemm::sm100::GroupedNvfp4DualGemmTokens128<__half, bwgemm::epi::SiluMul>,
    bwgemm::sm100::GroupedNvfp4DualGemmTokens256<__half, bwgemm::epi::SiluMul>>;

}  // namespace

int main() {
  describe_all(bwgemm::sm100::ShippedNvfp4DualGemmConfigs{});
  describe_all(bwgemm::sm100::ShippedGemmConfigs{});
  describe_all(bwgemm::sm100::ShippedGemmOutputVariants{});
  describe_all(bwgemm::sm100::ShippedNvfp4DualSwapAbConfigs{});
  describe_all(bwgemm::sm100::ShippedGemmSwapAbConfigs{});
  describe_all(bwgemm::sm100::ShippedGemmSwapAbOutputVariants{});
  describe_all(bwgemm::sm100::ShippedNvfp4GemmConfigs{});
  describe_all(bwgemm::sm100::ShippedDualGemmConfigs{});
  describe_all(bwgemm::sm100::ShippedNvfp4GemmSwapAbConfigs{});
  describe_all(bwgemm::sm100::ShippedNvfp4DualNvfp4OutConfigs{});  // NVFP4 C
  describe_all(bwgemm::sm100::ShippedNvfp4GemmNvfp4OutConfigs{});  // NVFP4 D
  describe_all(bwgemm::sm100::ShippedDualSwapAbConfigs{});         // small-M 16-bit dual
  describe_all_grouped(ShippedGroupedConfigs{});                   // grouped (mixture of experts)
  return 0;
}
