// The mixture-of-experts (MoE) problems: one layer's FC1 (the gated grouped dual GEMM) or FC2 (the grouped
// GEMM) over the tokens a shape's router sends to the local experts (moe_shapes.hpp), 16-bit (bf16 in and
// out) or NVFP4 (fp16 out). As the dense problems (problems.hpp), each owns rotating operand sets filled once
// from fixed seeds and checks an output against bwgemm's host references on a sample; every implementation of
// one shape runs on the same problem.
//
// Layouts (row-major; E the local experts, N and K the group's: FC1 N = intermediate, K = hidden; FC2 the
// other way round):
//   tokens, contiguous  A [rows, K] sorted by expert, the output [rows, N]; rows = the routed rows (at
//                       least 1 row is allocated); `offs` E int32 cumulative row ends on the device
//                       (torch._grouped_mm's)
//   tokens, masked      A [E, max_tokens, K], the output [E, max_tokens, N]; E int32 counts on the device
//   NVFP4 tokens        data as above with K/2 bytes a row; scales where bwgemm's grouped operations read
//                       them (docs/moe.md): contiguous, expert e's blocked scales from row sum_{j<e}
//                       round_up(rows_j, 128) of a buffer of grouped_scale_rows(rows, E) rows; masked, E
//                       slabs of round_up(max_tokens, 128) rows. Each expert's scales are a blocked buffer
//                       of its own, so a cuBLASLt call per expert reads them as they are.
//   weights             nn.Linear per expert, stacked [E, N, K] (FC2). FC1: one stacked [E, 2N, K] tensor,
//                       gate rows first (B1 = W, B2 = W + N rows, the expert stride 2N rows); NVFP4 with
//                       N % 128 != 0 (gpt-oss) two [E, N, K] tensors, as the blocked scales of 2N rows cannot
//                       be split there. NVFP4 weights: each expert's scales a blocked buffer of its rows (N,
//                       or 2N stacked).
//
// The routing is fixed per shape and the same in every operand set; the device offsets or counts are uploaded
// once and read by the calls on the device (the cuBLASLt loops read the host copy to size their GEMMs).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bwgemm/base/grouped.hpp"
#include "common.hpp"
#include "moe_shapes.hpp"
#include "validate.hpp"

namespace bwgemm::bench {

// The routed tokens of a problem on the device and the host.
class MoeTokens {
 public:
  explicit MoeTokens(const MoeShape& shape);  // routes on the host, uploads the offsets or counts

  MoeLayout layout() const { return layout_; }
  int64_t experts() const { return static_cast<int64_t>(counts_.size()); }
  const std::vector<int32_t>& counts() const { return counts_; }
  int64_t rows() const { return rows_; }                // routed rows: the sum of the counts
  int64_t active_experts() const { return active_; }    // experts with rows
  int64_t max_tokens() const { return max_tokens_; }    // masked: the rows of a slab
  int64_t buffer_rows() const { return buffer_rows_; }  // rows of A and of the output
  int64_t first_row(int64_t e) const { return first_row_[static_cast<size_t>(e)]; }  // expert e's row 0
  // NVFP4 tokens: the first scale row of expert e (a multiple of 128), and the rows of its blocked buffer.
  int64_t scale_row(int64_t e) const { return scale_row_[static_cast<size_t>(e)]; }
  int64_t scale_buffer_rows(int64_t e) const;
  int64_t scale_rows() const;  // rows of the whole scale buffer
  // bwgemm's description: contiguous_tokens(buffer_rows, offs) or masked_tokens(max_tokens, counts).
  GroupedTokens grouped() const;
  const int32_t* device_metadata() const { return metadata_.get(); }  // offs or counts, E int32

 private:
  MoeLayout layout_;
  std::vector<int32_t> counts_;
  std::vector<int64_t> first_row_, scale_row_;
  int64_t rows_ = 0, active_ = 0, max_tokens_ = 0, buffer_rows_ = 0;
  DeviceBuffer<int32_t> metadata_;
};

// One operand set. In: __nv_bfloat16, or uint8_t (packed e2m1) with the *_scales; Out: bf16 or __half.
template <class In, class Out>
struct MoeOperands {
  const In* a = nullptr;
  const uint8_t* a_scales = nullptr;
  const In* b1 = nullptr;  // FC2: the weights; FC1: the gate projections (B1)
  const uint8_t* b1_scales = nullptr;
  const In* b2 = nullptr;  // FC1: the up projections (B2); FC2: null
  const uint8_t* b2_scales = nullptr;
  Out* out = nullptr;  // FC2: D; FC1: C
};

template <bool kNvfp4, bool kDual>
struct MoeProblemTraits;
template <>
struct MoeProblemTraits<false, true> {
  static constexpr const char* kGroup = "moe_fc1_bf16";
};
template <>
struct MoeProblemTraits<false, false> {
  static constexpr const char* kGroup = "moe_fc2_bf16";
};
template <>
struct MoeProblemTraits<true, true> {
  static constexpr const char* kGroup = "moe_fc1_nvfp4";
};
template <>
struct MoeProblemTraits<true, false> {
  static constexpr const char* kGroup = "moe_fc2_nvfp4";
};

// FC1 (kDual: C_e = silu(A_e B1_eᵀ) · (A_e B2_eᵀ)) or FC2 (D_e = A_e B_eᵀ), 16-bit or NVFP4.
template <bool kNvfp4, bool kDual>
class MoeProblem {
 public:
  using Shape = MoeShape;
  using In = std::conditional_t<kNvfp4, uint8_t, __nv_bfloat16>;
  using Out = std::conditional_t<kNvfp4, __half, __nv_bfloat16>;
  using Operands = MoeOperands<In, Out>;
  static constexpr bool kIsNvfp4 = kNvfp4;
  static constexpr bool kIsDual = kDual;
  static constexpr const char* kGroup = MoeProblemTraits<kNvfp4, kDual>::kGroup;

  MoeProblem(const Shape& shape, const Context& context);
  const Shape& shape() const { return shape_; }
  const MoeTokens& tokens() const { return tokens_; }
  int sets() const { return static_cast<int>(operands_.size()); }
  const Operands& operands(int set) const { return operands_[static_cast<size_t>(set)]; }
  int weight_copies() const { return weight_copies_; }

  // The weights' layout: B1 and B2 (FC1) share these strides; 16-bit in elements, NVFP4 in bytes.
  int64_t b_expert_stride() const { return b_expert_stride_; }
  int64_t b_scales_expert_stride() const { return b_scales_expert_stride_; }  // NVFP4
  // FC1: B1 and B2 are views of one stacked [E, 2N, K] tensor (B2 = B1 + N rows, scales included), so
  // [B1_e; B2_e] is one 2N x K operand (b1 / b1_scales of expert e): always for 16-bit, for NVFP4 when N %
  // 128 == 0.
  bool stacked() const { return stacked_; }
  // Expert e's weight rows: B1 (or B) and B2 data, and their blocked scales (NVFP4).
  const In* b1_of(int set, int64_t e) const { return operands(set).b1 + e * b_expert_stride_; }
  const In* b2_of(int set, int64_t e) const { return operands(set).b2 + e * b_expert_stride_; }
  const uint8_t* b1_scales_of(int set, int64_t e) const {
    return operands(set).b1_scales + e * b_scales_expert_stride_;
  }
  const uint8_t* b2_scales_of(int set, int64_t e) const {
    return operands(set).b2_scales + e * b_scales_expert_stride_;
  }
  // Expert e's token rows (its first row of A, of the output) and, NVFP4, its blocked A scales.
  const In* a_of(int set, int64_t e) const;
  const uint8_t* a_scales_of(int set, int64_t e) const;
  Out* out_of(int set, int64_t e) const { return operands(set).out + tokens_.first_row(e) * shape_.n(); }

  double flops() const;
  double min_bytes() const;  // the routed rows of A and of the output, the weights of the experts with rows
  // Validation uses operand set 0 (problems.hpp): poison its output, then check the sampled rows of up to
  // four experts against the host reference.
  void poison_output(cudaStream_t stream) const;
  CheckResult check_output(double u_mid, cudaStream_t stream) const;

 private:
  struct Reference;
  struct SampledRows {
    std::vector<int64_t> experts;                  // experts with rows, in order
    std::vector<std::vector<int64_t>> local_rows;  // rows of each, within the expert
    OutputSample sample;                           // rows: the output rows (buffer rows) for the messages
  };
  int64_t a_row_bytes() const;   // bytes of one row of A
  int64_t weight_bytes() const;  // one copy of the weights, scales included
  int64_t expert_weight_bytes() const;

  Shape shape_;
  MoeTokens tokens_;
  SampledRows sampled_;
  bool stacked_ = false;
  int64_t b_expert_stride_ = 0, b_scales_expert_stride_ = 0;
  int weight_copies_ = 0;
  std::vector<DeviceBuffer<In>> a_, b_;
  std::vector<DeviceBuffer<uint8_t>> a_scales_, b_scales_;
  std::vector<DeviceBuffer<Out>> out_;
  std::vector<Operands> operands_;
  mutable std::shared_ptr<const Reference> reference_;
};

// One MoE layer in NVFP4 (group moe_layer_nvfp4): FC1 with an NVFP4 output, which FC2 reads as its A.
//   mid = NVFP4(silu(A W1_eᵀ) · (A W3_eᵀ)), global scale g, placed as FC2's tokens (K = intermediate)
//   D   = out_alpha · mid W2_eᵀ  (fp16)
// A and W13 as MoeFc1Nvfp4Problem's, W2 as MoeFc2Nvfp4Problem's B. g: a power of two for which this data's
// largest silu(x)·y stays well inside the e4m3 block scales' range (mid_global_scale); out_alpha: g over a
// power of two (at least 2) that keeps D well inside fp16 (the mid's decode scale times a layer's output
// scale). The check: mid decodes to within its quantization error of the fp32 reference (a block's scale per
// element), and D matches the NVFP4 reference computed from the mid the implementation wrote.
struct MoeLayerOperands {
  const uint8_t* a = nullptr;  // tokens [rows, H/2 bytes], scales in the grouped placement (K = H)
  const uint8_t* a_scales = nullptr;
  const uint8_t* w1 = nullptr;  // gate: [E, I, H] (or the stacked [E, 2I, H])
  const uint8_t* w1_scales = nullptr;
  const uint8_t* w3 = nullptr;  // up
  const uint8_t* w3_scales = nullptr;
  const uint8_t* w2 = nullptr;  // [E, H, I]
  const uint8_t* w2_scales = nullptr;
  uint8_t* mid = nullptr;  // [rows, I/2 bytes], scales in the grouped placement (K = I)
  uint8_t* mid_scales = nullptr;
  __half* out = nullptr;  // [rows, H]
};

class MoeLayerNvfp4Problem {
 public:
  using Shape = MoeShape;  // op kLayer: N = intermediate, K = hidden (FC1's)
  using Operands = MoeLayerOperands;
  static constexpr const char* kGroup = "moe_layer_nvfp4";

  MoeLayerNvfp4Problem(const Shape& shape, const Context& context);
  const Shape& shape() const { return shape_; }
  const MoeTokens& tokens() const { return tokens_; }
  int sets() const { return static_cast<int>(operands_.size()); }
  const Operands& operands(int set) const { return operands_[static_cast<size_t>(set)]; }
  int64_t hidden() const { return shape_.model.hidden; }
  int64_t intermediate() const { return shape_.model.intermediate; }
  float mid_global_scale() const { return mid_global_scale_; }
  float out_alpha() const { return out_alpha_; }  // FC2's alpha

  // W1 and W3 share these (bytes). Stacked (I % 128 == 0): W3_e = W1_e + I rows, [W1_e; W3_e] one 2I x H
  // operand.
  bool stacked() const { return stacked_; }
  int64_t w13_expert_stride() const { return w13_stride_; }
  int64_t w13_scales_expert_stride() const { return w13_scales_stride_; }
  int64_t w2_expert_stride() const { return w2_stride_; }
  int64_t w2_scales_expert_stride() const { return w2_scales_stride_; }
  // Expert e's operands in operand set `set`.
  const uint8_t* a_of(int set, int64_t e) const;
  const uint8_t* a_scales_of(int set, int64_t e) const;
  const uint8_t* w1_of(int set, int64_t e) const { return operands(set).w1 + e * w13_stride_; }
  const uint8_t* w1_scales_of(int set, int64_t e) const {
    return operands(set).w1_scales + e * w13_scales_stride_;
  }
  const uint8_t* w3_of(int set, int64_t e) const { return operands(set).w3 + e * w13_stride_; }
  const uint8_t* w3_scales_of(int set, int64_t e) const {
    return operands(set).w3_scales + e * w13_scales_stride_;
  }
  const uint8_t* w2_of(int set, int64_t e) const { return operands(set).w2 + e * w2_stride_; }
  const uint8_t* w2_scales_of(int set, int64_t e) const {
    return operands(set).w2_scales + e * w2_scales_stride_;
  }
  uint8_t* mid_of(int set, int64_t e) const;
  uint8_t* mid_scales_of(int set, int64_t e) const;
  __half* out_of(int set, int64_t e) const { return operands(set).out + tokens_.first_row(e) * hidden(); }

  double flops() const;      // FC1 and FC2
  double min_bytes() const;  // A, the routed experts' W13 and W2, mid written and read, D
  void poison_output(cudaStream_t stream) const;  // D and mid (data and scales) of set 0
  CheckResult check_output(double u_mid, cudaStream_t stream) const;

 private:
  struct Reference;
  Shape shape_;
  MoeTokens tokens_;
  std::vector<int64_t> sampled_experts_;
  std::vector<std::vector<int64_t>> sampled_rows_;  // within each expert
  OutputSample mid_sample_, out_sample_;            // the same rows; columns of I, of H
  bool stacked_ = false;
  float mid_global_scale_ = 1.0f, out_alpha_ = 1.0f;
  int64_t w13_stride_ = 0, w13_scales_stride_ = 0, w2_stride_ = 0, w2_scales_stride_ = 0;
  std::vector<DeviceBuffer<uint8_t>> a_, a_scales_, w13_, w13_scales_, w2_, w2_scales_, mid_, mid_scales_;
  std::vector<DeviceBuffer<__half>> out_;
  std::vector<Operands> operands_;
  mutable std::shared_ptr<const Reference> reference_;  // FC1's x, y
};

using MoeFc1Bf16Problem = MoeProblem<false, true>;
using MoeFc2Bf16Problem = MoeProblem<false, false>;
using MoeFc1Nvfp4Problem = MoeProblem<true, true>;
using MoeFc2Nvfp4Problem = MoeProblem<true, false>;

}  // namespace bwgemm::bench
