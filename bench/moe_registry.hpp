// The mixture-of-experts groups' implementations (moe_baselines.cpp, moe_candidates.cu), registered by
// main.cpp like the dense groups' (registry.hpp): per shape the baselines first, then bwgemm's grouped entry
// points.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "moe_problems.hpp"
#include "registry.hpp"

namespace bwgemm::bench {

struct MoeImplementationTable {
  std::vector<Implementation<MoeFc1Bf16Problem>> fc1_bf16;
  std::vector<Implementation<MoeFc2Bf16Problem>> fc2_bf16;
  std::vector<Implementation<MoeFc1Nvfp4Problem>> fc1_nvfp4;
  std::vector<Implementation<MoeFc2Nvfp4Problem>> fc2_nvfp4;
  std::vector<Implementation<MoeLayerNvfp4Problem>> layer_nvfp4;
  // Implementations left out on this device: (group, "<implementation>: <why>"), printed as [skip] lines.
  std::vector<std::pair<std::string, std::string>> unavailable;
};

// moe_baselines.cpp: a cuBLASLt matmul per expert with rows (16-bit on sm_80 and newer, NVFP4 on
// compute capability 10.x), FC1 then a silu-mul kernel; and cuBLAS's grouped GEMM
// (cublasGemmGroupedBatchedEx, 16-bit), registered as an implementation rather than a baseline
// (moe_baselines.cpp says why).
void add_moe_baselines(MoeImplementationTable& table);
// --bwgemm_negative_controls=1: a loop that gives each expert the next expert's weights.
void add_moe_negative_controls(MoeImplementationTable& table);

// moe_candidates.cu: bwgemm::grouped_gemm, grouped_dual_gemm, grouped_gemm_nvfp4 and grouped_dual_gemm_nvfp4
// ("bwgemm"), and on compute capability 10.0 their two sm_100a tilings forced ("bwgemm_tiles128",
// "bwgemm_tiles256"). Each entry point first runs once on a tiny problem on this device: where it returns an
// error (a build without the backend for this GPU, e.g. the sm_90a grouped kernels not merged yet), it is not
// registered and table.unavailable says why.
void add_moe_candidates(MoeImplementationTable& table, const DeviceInfo& device);

// moe_candidates.cu: bwgemm::quantize_nvfp4_grouped of a 16-bit [rows, k] (contiguous) or [E, max_tokens, k]
// (masked) x into the grouped placement with global scale g, for the layer baseline (moe_baselines.cpp)
// between its silu-mul and FC2. Throws BenchError on failure.
void moe_quantize_nvfp4(const __half* x, const GroupedTokens& tokens, int64_t experts, int64_t k, float g,
                        uint8_t* packed, uint8_t* scales, cudaStream_t stream);

}  // namespace bwgemm::bench
