// The mixture-of-experts problems and bwgemm's grouped candidates (bench/moe_problems.cpp, moe_candidates.cu)
// in the CPU emulator: on small layers of both weight layouts (N a multiple of 128: the stacked [E, 2N, K]
// weights; N = 192: NVFP4 gate and up as two tensors) and both token layouts, every candidate the emulated
// B200 registers (its probe runs) passes the problem's validation, the NVFP4 layer (FC1's NVFP4 output into
// FC2) included; a call that writes nothing fails it, and so does a layer whose NVFP4 intermediate is wrong;
// the masked silu-mul writes the counted rows only. The cuBLASLt baselines need a GPU.
//
// Emulation only (label emu): the same problem and candidate code bwgemm_bench runs, compiled as host C++
// against the emulated runtime.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels.cuh"
#include "moe_registry.hpp"

namespace {

using namespace bwgemm::bench;

// Small layers: hidden (FC1's K, FC2's N) 128; intermediate 128 (stacked NVFP4 weights) or 192 (two tensors).
const MoeModel kStacked{"tiny", 128, 128, 16, 2, 16};
const MoeModel kSplit{"tiny-split", 128, 192, 8, 2, 8};

struct Emulated {
  Context context;
  DeviceInfo b200;
  Emulated() {
    EXPECT_EQ(cudaStreamCreate(&context.stream), cudaSuccess);
    context.device.l2_bytes = 4096;  // two operand sets
    context.device.free_bytes = int64_t{1} << 30;
    b200.cc_major = 10;
    b200.cc_minor = 0;
  }
  ~Emulated() { cudaStreamDestroy(context.stream); }
};

template <class Problem>
void expect_candidates_pass(const std::vector<Implementation<Problem>>& impls, const MoeModel& model,
                            MoeOp op) {
  Emulated emu;
  // bwgemm, bwgemm_tiles128, bwgemm_tiles256; the layer: bwgemm.
  ASSERT_EQ(impls.size(), op == MoeOp::kLayer ? 1u : 3u);
  // Contiguous with Zipf routing (of 16 experts two get no row, one gets 21), masked with uniform routing.
  for (MoeLayout layout : {MoeLayout::kContiguous, MoeLayout::kMasked}) {
    {
      const MoeRouting routing = layout == MoeLayout::kContiguous ? MoeRouting::kZipf : MoeRouting::kUniform;
      const MoeShape shape{model, 40, routing, layout, op};
      const Problem problem(shape, emu.context);
      ASSERT_EQ(problem.sets(), 2) << shape.key();
      EXPECT_EQ(problem.tokens().rows(), 40 * model.top_k);
      // Nothing written: the poisoned output fails.
      problem.poison_output(emu.context.stream);
      EXPECT_FALSE(problem.check_output(0.0, emu.context.stream).ok) << shape.key();
      for (const Implementation<Problem>& impl : impls) {
        const Launch launch = impl.prepare(problem);
        problem.poison_output(emu.context.stream);
        launch(0, emu.context.stream);
        const CheckResult check = problem.check_output(impl.intermediate_unit_roundoff, emu.context.stream);
        EXPECT_TRUE(check.ok) << Problem::kGroup << "/" << impl.name << "/" << shape.key() << ": "
                              << check.message;
        launch(1, emu.context.stream);  // the other operand set's pointers are valid too
        EXPECT_EQ(cudaStreamSynchronize(emu.context.stream), cudaSuccess);
      }
    }
  }
}

MoeImplementationTable candidates() {
  Emulated emu;
  MoeImplementationTable table;
  add_moe_candidates(table, emu.b200);
  for (const auto& [group, why] : table.unavailable) ADD_FAILURE() << group << ": " << why;
  return table;
}

TEST(MoeEmu, Fc2Bf16) {
  const MoeImplementationTable t = candidates();
  expect_candidates_pass(t.fc2_bf16, kStacked, MoeOp::kFc2);
}

TEST(MoeEmu, Fc1Bf16) {
  const MoeImplementationTable t = candidates();
  expect_candidates_pass(t.fc1_bf16, kStacked, MoeOp::kFc1);
}

TEST(MoeEmu, Fc2Nvfp4) {
  const MoeImplementationTable t = candidates();
  expect_candidates_pass(t.fc2_nvfp4, kSplit, MoeOp::kFc2);
}

TEST(MoeEmu, Fc1Nvfp4StackedWeights) {
  const MoeImplementationTable t = candidates();
  expect_candidates_pass(t.fc1_nvfp4, kStacked, MoeOp::kFc1);
}

TEST(MoeEmu, Fc1Nvfp4GateAndUpApart) {
  const MoeImplementationTable t = candidates();
  expect_candidates_pass(t.fc1_nvfp4, kSplit, MoeOp::kFc1);
}

TEST(MoeEmu, LayerNvfp4StackedWeights) {
  const MoeImplementationTable t = candidates();
  expect_candidates_pass(t.layer_nvfp4, kStacked, MoeOp::kLayer);
}

TEST(MoeEmu, LayerNvfp4GateAndUpApart) {
  const MoeImplementationTable t = candidates();
  expect_candidates_pass(t.layer_nvfp4, kSplit, MoeOp::kLayer);
}

// The layer check reads the NVFP4 intermediate: bwgemm's layer passes; then the layer baseline's quantizer
// (moe_quantize_nvfp4) writes zeros over mid, and the check fails on FC1's output.
TEST(MoeEmu, LayerCheckReadsTheQuantizedMid) {
  Emulated emu;
  const MoeShape shape{kSplit, 40, MoeRouting::kUniform, MoeLayout::kContiguous, MoeOp::kLayer};
  const MoeLayerNvfp4Problem problem(shape, emu.context);
  const MoeImplementationTable t = candidates();
  const Launch bwgemm = t.layer_nvfp4.at(0).prepare(problem);
  problem.poison_output(emu.context.stream);
  bwgemm(0, emu.context.stream);
  ASSERT_TRUE(problem.check_output(0.0, emu.context.stream).ok);
  DeviceBuffer<__half> zeros(static_cast<size_t>(problem.tokens().buffer_rows() * problem.intermediate()));
  ASSERT_EQ(cudaMemset(zeros.get(), 0, zeros.bytes()), cudaSuccess);
  const MoeLayerOperands& o = problem.operands(0);
  moe_quantize_nvfp4(zeros.get(), problem.tokens().grouped(), problem.tokens().experts(),
                     problem.intermediate(), problem.mid_global_scale(), o.mid, o.mid_scales,
                     emu.context.stream);
  const CheckResult check = problem.check_output(0.0, emu.context.stream);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("FC1's NVFP4 output"), std::string::npos) << check.message;
}

TEST(MoeEmu, MaskedSiluMulWritesTheCountedRowsOnly) {
  Emulated emu;
  constexpr int64_t kExperts = 3, kMaxRows = 4, kCols = 16, kLd = 2 * kCols;
  const std::vector<int32_t> counts = {2, 0, 5};  // 5: clamped to 4
  std::vector<__half> mid(static_cast<size_t>(kExperts * kMaxRows * kLd));
  for (size_t i = 0; i < mid.size(); ++i) mid[i] = __float2half(static_cast<float>(i % 7) * 0.25f - 0.75f);
  DeviceBuffer<__half> x(mid.size()), out(static_cast<size_t>(kExperts * kMaxRows * kCols));
  DeviceBuffer<int32_t> c(counts.size());
  ASSERT_EQ(cudaMemcpy(x.get(), mid.data(), x.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(c.get(), counts.data(), c.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(out.get(), 0xFF, out.bytes()), cudaSuccess);
  launch_masked_silu_mul(x.get(), x.get() + kCols, kLd, kMaxRows * kLd, out.get(), kCols, kMaxRows * kCols,
                         c.get(), kExperts, kMaxRows, kCols, emu.context.stream);
  std::vector<__half> got(out.size());
  ASSERT_EQ(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int64_t e = 0; e < kExperts; ++e)
    for (int64_t r = 0; r < kMaxRows; ++r)
      for (int64_t j = 0; j < kCols; ++j) {
        const float v = __half2float(got[static_cast<size_t>((e * kMaxRows + r) * kCols + j)]);
        const bool owned = r < std::min<int64_t>(counts[static_cast<size_t>(e)], kMaxRows);
        if (!owned) {
          EXPECT_TRUE(std::isnan(v)) << e << " " << r << " " << j;
          continue;
        }
        const size_t at = static_cast<size_t>((e * kMaxRows + r) * kLd + j);
        const float gate = __half2float(mid[at]), up = __half2float(mid[at + kCols]);
        EXPECT_NEAR(v, gate / (1.0f + std::exp(-gate)) * up, 2e-3f) << e << " " << r << " " << j;
      }
}

}  // namespace
