// Every shipped sm_100a GEMM, NVFP4 dual GEMM, NVFP4 GEMM and 16-bit dual GEMM Config in the CPU emulator
// under random completion delays of every asynchronous operation (TMA, tcgen05.mma/cp/commit, CLC;
// docs/emulator.md, max_async_delay_steps): the epilogue reads each accumulator stage only after its
// tcgen05.commit barrier, hands it back only once every chunk is in registers (with chunk c + 1's
// tensor-memory loads issued ahead of chunk c's stores), and the CLC clusters keep two try_cancel requests in
// flight; none of it may depend on when the operations land. The problems take several tiles per cluster (two
// resident clusters), with a partial last tile column (the per-chunk path) and rows past M (lanes off the
// per-tile fast path) next to interior tiles (the fast path). The exact tier is bitwise; the dual GEMM's
// realistic tier runs its SiLU (the fast path's functor).
//
// Emulation only (label emu): delays are an emulator setting.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bwgemm/kernels/sm100/dual_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_configs.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_configs.cuh"
#include "bwgemm/sm100/dual_gemm.cuh"
#include "bwgemm/sm100/gemm.cuh"
#include "bwgemm/sm100/nvfp4_dual_gemm.cuh"
#include "bwgemm/sm100/nvfp4_gemm.cuh"
#include "dual_gemm_contract.hpp"
#include "gemm_contract.hpp"
#include "nvfp4_dual_gemm_contract.hpp"
#include "nvfp4_gemm_contract.hpp"

namespace bwgemm_test {
namespace {

struct Sm100 {
  template <class Cfg>
  using Gemm = bwgemm::sm100::Gemm<Cfg>;
  template <class Cfg>
  using Nvfp4DualGemm = bwgemm::sm100::Nvfp4DualGemm<Cfg>;
  template <class Cfg>
  using Nvfp4Gemm = bwgemm::sm100::Nvfp4Gemm<Cfg>;
  template <class Cfg>
  using DualGemm = bwgemm::sm100::DualGemm<Cfg>;
  static bool available(std::string* why) { return can_run_sm100(why); }
  static constexpr const char* kNeeds = "the emulation build";
};

// Completion delays of up to this many scheduler steps (the swap-AB suite's and test_emu_clc's order of
// magnitude: long enough to reorder a stage's TMA loads, MMAs and CLC answers against the waits).
constexpr uint32_t kDelaySteps = 40;
constexpr uint64_t kSeeds[] = {5, 23};

// Restores the emulator's launch settings when a test ends.
struct DelayedLaunches {
  bwgemm::emu::LaunchConfig& settings = bwgemm::emulated_launch_settings();
  const bwgemm::emu::LaunchConfig saved = settings;
  explicit DelayedLaunches(uint64_t seed) {
    settings.max_resident_clusters = 2;  // persistent and CLC clusters take several tiles each
    settings.max_async_delay_steps = kDelaySteps;
    settings.seed = seed;
  }
  ~DelayedLaunches() { settings = saved; }
};

// 3 x 3 cluster tiles: the last M tile has rows past M, the last N tile columns past N.
template <class Cfg>
void check_gemm_delayed(uint64_t seed) {
  SCOPED_TRACE(std::string(ConfigName<Cfg>::get()) + ", seed " + std::to_string(seed));
  const DelayedLaunches delayed(seed);
  check_gemm<Sm100, Cfg, __half>(
      GemmProblem{2 * Cfg::kClusterBlockM + 40, 3 * Cfg::kBlockN - 8, 128, 1, bwgemm::BLayout::kRowMajorKxN},
      Data::kExact, static_cast<uint32_t>(700 + seed));
}

template <class Cfg>
void check_dual_delayed(uint64_t seed) {
  SCOPED_TRACE(std::string(ConfigName<Cfg>::get()) + ", seed " + std::to_string(seed));
  const DelayedLaunches delayed(seed);
  const Nvfp4DualProblem pb{2 * Cfg::kClusterBlockM + 40, 3 * Cfg::kBlockN - 16, 512};
  check_nvfp4_dual<Sm100, Cfg>(pb, Data::kExact, static_cast<uint32_t>(800 + seed));
  check_nvfp4_dual<Sm100, Cfg>(pb, Data::kRealistic, static_cast<uint32_t>(900 + seed));
}

// The NVFP4 GEMM: D = A·Bᵀ exact (the per-tile fast path on interior tiles), then realistic data
// with beta = 0.5 (C read on every chunk).
template <class Cfg>
void check_nvfp4_gemm_delayed(uint64_t seed) {
  SCOPED_TRACE(std::string(ConfigName<Cfg>::get()) + ", seed " + std::to_string(seed));
  const DelayedLaunches delayed(seed);
  const int64_t m = 2 * Cfg::kClusterBlockM + 40, n = 3 * Cfg::kBlockN - 16;
  check_nvfp4_gemm<Sm100, Cfg>(Nvfp4GemmProblem{m, n, 512}, Data::kExact, static_cast<uint32_t>(1000 + seed));
  check_nvfp4_gemm<Sm100, Cfg>(Nvfp4GemmProblem{m, n, 512, 1, 1.0f, 0.5f}, Data::kRealistic,
                               static_cast<uint32_t>(1100 + seed));
}

// The 16-bit dual GEMM: exact (bitwise) and realistic (its SiLU), N not a multiple of 8 (the last
// columns stored one by one).
template <class Cfg>
void check_dual16_delayed(uint64_t seed) {
  SCOPED_TRACE(std::string(ConfigName<Cfg>::get()) + ", seed " + std::to_string(seed));
  const DelayedLaunches delayed(seed);
  // ldc: N rounded up to a multiple of 8 (16-byte rows), the padding columns must keep their poison.
  const DualProblem pb{2 * Cfg::kClusterBlockM + 40, 3 * Cfg::kBlockN - 3, 256, 1, 0, 0, 3 * Cfg::kBlockN};
  check_dual_config<Sm100, Cfg, __nv_bfloat16>(pb, Data::kExact, static_cast<uint32_t>(1200 + seed));
  check_dual_config<Sm100, Cfg, __half>(pb, Data::kRealistic, static_cast<uint32_t>(1300 + seed));
}

template <class... Cfgs>
void check_dual16s_delayed(bwgemm::sm100::ConfigList<Cfgs...>) {
  for (uint64_t seed : kSeeds) (check_dual16_delayed<Cfgs>(seed), ...);
}

template <class... Cfgs>
void check_nvfp4_gemms_delayed(bwgemm::sm100::ConfigList<Cfgs...>) {
  for (uint64_t seed : kSeeds) (check_nvfp4_gemm_delayed<Cfgs>(seed), ...);
}

template <class... Cfgs>
void check_gemms_delayed(bwgemm::sm100::ConfigList<Cfgs...>) {
  for (uint64_t seed : kSeeds) (check_gemm_delayed<Cfgs>(seed), ...);
}

template <class... Cfgs>
void check_duals_delayed(bwgemm::sm100::ConfigList<Cfgs...>) {
  for (uint64_t seed : kSeeds) (check_dual_delayed<Cfgs>(seed), ...);
}

}  // namespace

// The contract headers' typed suites are instantiated by test_gemm.cpp and test_dual_gemm.cpp, not here.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmContract);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmOutputContract);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmManyTilesContract);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Nvfp4DualGemmContract);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Nvfp4GemmContract);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DualGemmContract);

namespace {

TEST(Sm100AsyncDelays, EveryShippedGemmConfigStaysExact) {
  check_gemms_delayed(bwgemm::sm100::ShippedGemmConfigs{});
}

TEST(Sm100AsyncDelays, EveryShippedNvfp4DualGemmConfigStaysCorrect) {
  check_duals_delayed(bwgemm::sm100::ShippedNvfp4DualGemmConfigs{});
}

TEST(Sm100AsyncDelays, EveryShippedNvfp4GemmConfigStaysCorrect) {
  check_nvfp4_gemms_delayed(bwgemm::sm100::ShippedNvfp4GemmConfigs{});
}

TEST(Sm100AsyncDelays, EveryShippedDualGemm16BitConfigStaysCorrect) {
  check_dual16s_delayed(bwgemm::sm100::ShippedDualGemmConfigs{});
}

}  // namespace
}  // namespace bwgemm_test
