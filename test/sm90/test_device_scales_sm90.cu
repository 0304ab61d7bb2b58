// Device-pointer per-tensor scales on the sm_90a kernels (docs/api.md, "Device-pointer scales"):
// the four-launch sequence of test/contract/device_scale_contract.hpp (device values alone, the same
// arguments with other values written between two launches, host part x device value, null pointers bit for
// bit the host scales) and the refusals (a misaligned pointer, a host-memory pointer), on the GEMM (TMA-store
// and register-store epilogues, a cluster of two), the dual GEMM and the swap-AB GEMM and dual GEMM (whole K
// and split K). Natively on a compute-capability-9.0 GPU (H100/H200); every case skips with a message
// elsewhere.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "bwgemm/gemm.cuh"
#include "bwgemm/sm90/candidate_configs.cuh"
#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"
#include "bwgemm/sm90/swap_ab.cuh"
#include "device_scale_contract.hpp"

namespace bwgemm_test {
namespace {

namespace sm90 = bwgemm::sm90;
namespace epi = bwgemm::epi;
using bf16 = __nv_bfloat16;
using f16 = __half;

TEST(Sm90DeviceScales, GemmTmaStoreAndRegisterStore) {
  BWGEMM_REQUIRE_SM90();
  using Tma = sm90::GemmTile128x128<f16>;
  using Registers = sm90::GemmTile128x128<bf16>::WithTmaStore<false>;
  const GemmProblem pb{256, 256, 128, 1, bwgemm::BLayout::kColumnMajorKxN};
  const auto tma = [](const auto& args) { return sm90::Gemm<Tma>::run(args); };
  const auto registers = [](const auto& args) { return sm90::Gemm<Registers>::run(args); };
  check_gemm_device_scales<Tma, f16>(pb, false, tma);
  check_gemm_device_scales<Tma, f16>(pb, true, tma);
  check_gemm_device_scales<Registers, bf16>(pb, true, registers);
}

TEST(Sm90DeviceScales, GemmClusterOfTwoKxN) {
  BWGEMM_REQUIRE_SM90();
  using Cfg = sm90::GemmTile128x256Cluster2<bf16>;
  check_gemm_device_scales<Cfg, bf16>(GemmProblem{256, 512, 128, 1, bwgemm::BLayout::kRowMajorKxN}, true,
                                      [](const auto& args) { return sm90::Gemm<Cfg>::run(args); });
}

TEST(Sm90DeviceScales, GemmDefaultEntryPoint) {
  BWGEMM_REQUIRE_SM90();
  // bwgemm::gemm on a 9.0 device: M = 300 a tiled kernel, M = 8 a swap-AB kernel.
  const auto run = [](const auto& args) { return bwgemm::gemm(args); };
  check_gemm_device_scales<sm90::GemmTile128x128<f16>, f16>(GemmProblem{300, 256, 128}, true, run);
  check_gemm_device_scales<sm90::GemmTile128x128<f16>, f16>(GemmProblem{8, 256, 128}, true, run);
}

TEST(Sm90DeviceScales, DualGemm) {
  BWGEMM_REQUIRE_SM90();
  using Tma = sm90::DualGemmTile128x64<f16>::WithEpilogue<epi::Multiply>;
  using Registers = sm90::DualGemmTile128x128<f16>::WithEpilogue<epi::Multiply>::WithTmaStore<false>;
  check_dual_device_scales<bf16, f16>(DualProblem{256, 256, 128},
                                      [](const auto& args) { return sm90::DualGemm<Tma>::run(args); });
  check_dual_device_scales<f16, f16>(DualProblem{200, 136, 72},
                                     [](const auto& args) { return sm90::DualGemm<Registers>::run(args); });
}

TEST(Sm90DeviceScales, SwapAbWholeAndSplitK) {
  BWGEMM_REQUIRE_SM90();
  using Gemm = sm90::GemmSwapAbTokens16<f16>;
  using Dual = sm90::DualGemmSwapAbTokens16<f16>::WithEpilogue<epi::Multiply>;
  for (int split : {1, 2}) {
    SCOPED_TRACE("split_k " + std::to_string(split));
    check_gemm_device_scales<Gemm, f16>(GemmProblem{12, 256, 256}, true, [split](const auto& args) {
      return sm90::SwapAbGemm<Gemm>::run(args, nullptr, split);
    });
    check_dual_device_scales<f16, f16>(DualProblem{12, 256, 256}, [split](const auto& args) {
      return sm90::SwapAbDualGemm<Dual>::run(args, nullptr, split);
    });
  }
}

}  // namespace
}  // namespace bwgemm_test
