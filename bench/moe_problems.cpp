// The mixture-of-experts problems (moe_problems.hpp).
#include "moe_problems.hpp"

#include <algorithm>
#include <cmath>

#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/reference/nvfp4_gemm.hpp"
#include "generators.hpp"
#include "kernels.cuh"
#include "problem_util.hpp"
#include "timing.hpp"

namespace bwgemm::bench {
namespace {

constexpr uint64_t kMoeDataSeed = 0x6277'6765'6D6D'0002ull;  // "bwgemm", 2: the MoE problems' inputs
constexpr int64_t kValidationColumnBlock = 128;
constexpr size_t kMaxSampledExperts = 4;

enum class MoeOperand : uint64_t { kA = 1, kB = 2, kAScales = 3, kBScales = 4 };

uint64_t moe_seed(int copy, MoeOperand operand) {
  return generators::random_bits(kMoeDataSeed,
                                 static_cast<uint64_t>(copy) * 16 + static_cast<uint64_t>(operand));
}

int64_t nvfp4_rows_padded(int64_t rows) {
  return round_up(rows, kScaleAtomRows);
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// MoeTokens

MoeTokens::MoeTokens(const MoeShape& shape) : layout_(shape.layout), counts_(moe_expert_counts(shape)) {
  const int64_t e_count = experts();
  max_tokens_ = shape.max_tokens();
  first_row_.resize(counts_.size());
  scale_row_.resize(counts_.size());
  int64_t row = 0, scale_row = 0;
  for (int64_t e = 0; e < e_count; ++e) {
    const int64_t c = counts_[static_cast<size_t>(e)];
    rows_ += c;
    active_ += c > 0 ? 1 : 0;
    if (layout_ == MoeLayout::kMasked) {
      first_row_[static_cast<size_t>(e)] = e * max_tokens_;
      scale_row_[static_cast<size_t>(e)] = e * nvfp4_rows_padded(max_tokens_);
    } else {
      first_row_[static_cast<size_t>(e)] = row;
      scale_row_[static_cast<size_t>(e)] = scale_row;  // grouped::ContiguousExpertScan's scale_row
      row += c;
      scale_row += round_up(c, grouped::kScaleRowAlign);
    }
  }
  // At least one row: bwgemm takes buffers of 1 row or more (the offsets then give every expert none).
  buffer_rows_ = layout_ == MoeLayout::kMasked ? e_count * max_tokens_ : std::max<int64_t>(rows_, 1);
  const std::vector<int32_t> values = layout_ == MoeLayout::kMasked ? counts_ : cumulative_offsets(counts_);
  metadata_ = DeviceBuffer<int32_t>(values.size());
  BWGEMM_BENCH_CUDA(
      cudaMemcpy(metadata_.get(), values.data(), values.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
}

int64_t MoeTokens::scale_buffer_rows(int64_t e) const {
  return layout_ == MoeLayout::kMasked ? max_tokens_ : counts_[static_cast<size_t>(e)];
}

int64_t MoeTokens::scale_rows() const {
  return layout_ == MoeLayout::kMasked ? experts() * nvfp4_rows_padded(max_tokens_)
                                       : grouped::grouped_scale_rows(buffer_rows_, experts());
}

GroupedTokens MoeTokens::grouped() const {
  return layout_ == MoeLayout::kMasked ? masked_tokens(max_tokens_, metadata_.get())
                                       : contiguous_tokens(buffer_rows_, metadata_.get());
}

// ------------------------------------------------------------------------------------------------
// MoeProblem

template <bool kNvfp4, bool kDual>
struct MoeProblem<kNvfp4, kDual>::Reference {
  std::vector<float> x, y, abs_x, abs_y;  // FC2: x and abs_x only
};

template <bool kNvfp4, bool kDual>
int64_t MoeProblem<kNvfp4, kDual>::a_row_bytes() const {
  return kNvfp4 ? shape_.k() / 2 : shape_.k() * static_cast<int64_t>(sizeof(In));
}

template <bool kNvfp4, bool kDual>
int64_t MoeProblem<kNvfp4, kDual>::expert_weight_bytes() const {
  const int64_t n = shape_.n(), k = shape_.k(), branches = kDual ? 2 : 1;
  if constexpr (kNvfp4) {
    return branches * (n * k / 2 + blocked_scale_bytes(n, k / kNvfp4BlockSize));
  } else {
    return branches * n * k * static_cast<int64_t>(sizeof(In));
  }
}

template <bool kNvfp4, bool kDual>
int64_t MoeProblem<kNvfp4, kDual>::weight_bytes() const {
  return tokens_.experts() * expert_weight_bytes();
}

template <bool kNvfp4, bool kDual>
auto MoeProblem<kNvfp4, kDual>::a_of(int set, int64_t e) const -> const In* {
  const int64_t per_row = kNvfp4 ? shape_.k() / 2 : shape_.k();
  return operands(set).a + tokens_.first_row(e) * per_row;
}

template <bool kNvfp4, bool kDual>
const uint8_t* MoeProblem<kNvfp4, kDual>::a_scales_of(int set, int64_t e) const {
  return operands(set).a_scales +
         grouped::scale_byte_offset(tokens_.scale_row(e), shape_.k() / kNvfp4BlockSize);
}

template <bool kNvfp4, bool kDual>
MoeProblem<kNvfp4, kDual>::MoeProblem(const Shape& shape, const Context& context)
    : shape_(shape), tokens_(shape) {
  const int64_t n = shape.n(), k = shape.k(), e_count = tokens_.experts(), sf_cols = k / kNvfp4BlockSize;
  if (kNvfp4 && (n % 16 != 0 || k % 64 != 0))
    throw BenchError(std::string(kGroup) + " " + shape.key() + ": NVFP4 needs N % 16 == 0 and K % 64 == 0");
  const int64_t rows = tokens_.buffer_rows();
  stacked_ = kDual && (!kNvfp4 || n % kScaleAtomRows == 0);
  // The weights: B1 (and B2) [E, N, K]; stacked, one [E, 2N, K] tensor.
  const int64_t weight_rows = stacked_ ? 2 * n : n;  // rows of one expert's weight tensor
  const int64_t tensors = kDual && !stacked_ ? 2 : 1;
  int64_t weight_elems = 0, weight_scale_bytes = 0, a_scale_bytes = 0;
  if constexpr (kNvfp4) {
    b_expert_stride_ = weight_rows * k / 2;
    b_scales_expert_stride_ = blocked_scale_bytes(weight_rows, sf_cols);
    weight_elems = tensors * e_count * b_expert_stride_;
    weight_scale_bytes = tensors * e_count * b_scales_expert_stride_;
    a_scale_bytes = blocked_scale_bytes(tokens_.scale_rows(), sf_cols);
  } else {
    b_expert_stride_ = weight_rows * k;
    weight_elems = tensors * e_count * b_expert_stride_;
  }
  const int64_t a_elems = kNvfp4 ? rows * k / 2 : rows * k;
  const int64_t activation_bytes = a_elems * static_cast<int64_t>(sizeof(In)) + a_scale_bytes +
                                   rows * n * static_cast<int64_t>(sizeof(Out));
  const int64_t routed = tokens_.rows();
  const int64_t activation_touched =
      routed * (a_row_bytes() + n * static_cast<int64_t>(sizeof(Out))) +
      (kNvfp4 ? blocked_scale_bytes(std::max<int64_t>(routed, 1), sf_cols) : 0);
  MoeRotation rotation;
  std::string why;
  if (!plan_moe_rotation(
          weight_elems * static_cast<int64_t>(sizeof(In)) + weight_scale_bytes,
          tokens_.active_experts() * expert_weight_bytes(), activation_bytes, activation_touched,
          static_cast<int64_t>(kL2RotationFactor * static_cast<double>(context.device.l2_bytes)),
          static_cast<int64_t>(kRotationMemoryFraction * static_cast<double>(context.device.free_bytes)),
          &rotation, &why))
    throw BenchError(std::string(kGroup) + " " + shape.key() + ": " + why);
  weight_copies_ = rotation.weight_copies;

  for (int c = 0; c < rotation.weight_copies; ++c) {
    b_.emplace_back(static_cast<size_t>(weight_elems));
    if constexpr (kNvfp4) {
      b_scales_.emplace_back(static_cast<size_t>(weight_scale_bytes));
      fill_masked_bytes(b_.back().get(), weight_elems, moe_seed(c, MoeOperand::kB), kFp4ByteMask,
                        context.stream);
      // Every expert's blocked buffer is whole 128-row atoms: the tensors' scales are one blocked matrix of
      // tensors x E x round_up(rows, 128) rows.
      fill_blocked_e4m3_scales(b_scales_.back().get(), tensors * e_count * nvfp4_rows_padded(weight_rows),
                               sf_cols, moe_seed(c, MoeOperand::kBScales), context.stream);
    } else {
      fill_uniform_pm1(b_.back().get(), weight_elems, moe_seed(c, MoeOperand::kB), context.stream);
    }
  }
  for (int s = 0; s < rotation.sets; ++s) {
    a_.emplace_back(static_cast<size_t>(a_elems));
    out_.emplace_back(static_cast<size_t>(rows * n));
    Operands o;
    if constexpr (kNvfp4) {
      a_scales_.emplace_back(static_cast<size_t>(a_scale_bytes));
      fill_masked_bytes(a_.back().get(), a_elems, moe_seed(s, MoeOperand::kA), kFp4ByteMask, context.stream);
      fill_blocked_e4m3_scales(a_scales_.back().get(), tokens_.scale_rows(), sf_cols,
                               moe_seed(s, MoeOperand::kAScales), context.stream);
      o.a_scales = a_scales_.back().get();
    } else {
      fill_uniform_pm1(a_.back().get(), a_elems, moe_seed(s, MoeOperand::kA), context.stream);
    }
    o.a = a_.back().get();
    const int c = s % rotation.weight_copies;
    o.b1 = b_[static_cast<size_t>(c)].get();
    if constexpr (kNvfp4) o.b1_scales = b_scales_[static_cast<size_t>(c)].get();
    if constexpr (kDual) {
      if (stacked_) {  // B2 = B1 + N rows of each expert
        o.b2 = o.b1 + (kNvfp4 ? n * k / 2 : n * k);
        if constexpr (kNvfp4) o.b2_scales = o.b1_scales + blocked_scale_bytes(n, sf_cols);
      } else {  // two tensors, one after the other
        o.b2 = o.b1 + e_count * b_expert_stride_;
        if constexpr (kNvfp4) o.b2_scales = o.b1_scales + e_count * b_scales_expert_stride_;
      }
    }
    o.out = out_.back().get();
    operands_.push_back(o);
  }
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(context.stream));

  // The sample: the first and last expert with rows, the one with the most, one in the middle; the first and
  // last row of each; column blocks at the start, middle and end of N.
  std::vector<int64_t> active;
  for (int64_t e = 0; e < e_count; ++e)
    if (tokens_.counts()[static_cast<size_t>(e)] > 0) active.push_back(e);
  if (!active.empty()) {
    std::vector<int64_t> picks = {active.front(), active[active.size() / 2], active.back()};
    picks.push_back(*std::max_element(active.begin(), active.end(), [&](int64_t x, int64_t y) {
      return tokens_.counts()[static_cast<size_t>(x)] < tokens_.counts()[static_cast<size_t>(y)];
    }));
    std::sort(picks.begin(), picks.end());
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
    picks.resize(std::min(picks.size(), kMaxSampledExperts));
    for (int64_t e : picks) {
      const int64_t c = tokens_.counts()[static_cast<size_t>(e)];
      std::vector<int64_t> local = {0, c - 1};
      local.erase(std::unique(local.begin(), local.end()), local.end());
      sampled_.experts.push_back(e);
      for (int64_t r : local) sampled_.sample.rows.push_back(tokens_.first_row(e) + r);
      sampled_.local_rows.push_back(local);
    }
  }
  const OutputSample columns = make_output_sample(1, n, kValidationColumnBlock, /*aligned_blocks=*/false);
  sampled_.sample.col_starts = columns.col_starts;
  sampled_.sample.col_block = columns.col_block;
}

template <bool kNvfp4, bool kDual>
double MoeProblem<kNvfp4, kDual>::flops() const {
  return (kDual ? 4.0 : 2.0) * static_cast<double>(tokens_.rows()) * static_cast<double>(shape_.n()) *
         static_cast<double>(shape_.k());
}

template <bool kNvfp4, bool kDual>
double MoeProblem<kNvfp4, kDual>::min_bytes() const {
  const int64_t routed = tokens_.rows();
  double bytes =
      static_cast<double>(tokens_.active_experts() * expert_weight_bytes()) +
      static_cast<double>(routed * (a_row_bytes() + shape_.n() * static_cast<int64_t>(sizeof(Out))));
  if constexpr (kNvfp4) bytes += static_cast<double>(routed * (shape_.k() / kNvfp4BlockSize));
  return bytes;
}

template <bool kNvfp4, bool kDual>
void MoeProblem<kNvfp4, kDual>::poison_output(cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].out, kNaNByte, out_[0].bytes(), stream));
}

template <bool kNvfp4, bool kDual>
CheckResult MoeProblem<kNvfp4, kDual>::check_output(double u_mid, cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  const OutputSample& sample = sampled_.sample;
  const std::string what = std::string(kGroup) + " " + shape_.key();
  if (sample.rows.empty()) return CheckResult{true, "", 0.0};  // no expert has rows: nothing was computed
  const int64_t n = shape_.n(), k = shape_.k(), cols = sample.cols(), w = sample.col_block;
  const int64_t s_all = static_cast<int64_t>(sample.rows.size());
  if (!reference_) {
    auto reference = std::make_shared<Reference>();
    for (auto* v : {&reference->x, &reference->y, &reference->abs_x, &reference->abs_y})
      v->resize(static_cast<size_t>(s_all * cols));
    int64_t row0 = 0;  // the expert's first row in the sample
    for (size_t i = 0; i < sampled_.experts.size(); ++i) {
      const int64_t e = sampled_.experts[i];
      const std::vector<int64_t>& local = sampled_.local_rows[i];
      const int64_t s = static_cast<int64_t>(local.size());
      for (size_t blk = 0; blk < sample.col_starts.size(); ++blk) {
        const int64_t j0 = sample.col_starts[blk];
        for (int branch = 0; branch < (kDual ? 2 : 1); ++branch) {
          std::vector<float> dot, dot_abs;
          if constexpr (kNvfp4) {
            const SampledNvfp4Rows a =
                sample_nvfp4_rows(a_of(0, e), a_scales_of(0, e), tokens_.scale_buffer_rows(e), k, local);
            // B rows j0 .. j0 + w of gate (branch 0) or up: in the stacked [2N, K] operand, up starts at row
            // N.
            const bool up_in_b1 = branch == 1 && stacked_;
            const uint8_t* b = branch == 1 && !stacked_ ? b2_of(0, e) : b1_of(0, e);
            const uint8_t* bs = branch == 1 && !stacked_ ? b2_scales_of(0, e) : b1_scales_of(0, e);
            std::vector<int64_t> b_rows(static_cast<size_t>(w));
            for (int64_t j = 0; j < w; ++j) b_rows[static_cast<size_t>(j)] = (up_in_b1 ? n : 0) + j0 + j;
            const SampledNvfp4Rows bsel = sample_nvfp4_rows(b, bs, stacked_ ? 2 * n : n, k, b_rows);
            dot.resize(static_cast<size_t>(s * w));
            dot_abs.resize(dot.size());
            ref::nvfp4_gemm(a.matrix(), bsel.matrix(), 1, 1.0f, dot.data());
            ref::nvfp4_gemm(a.abs_matrix(), bsel.abs_matrix(), 1, 1.0f, dot_abs.data());
          } else {
            std::vector<int64_t> rows(local.size());
            for (size_t r = 0; r < local.size(); ++r) rows[r] = tokens_.first_row(e) + local[r];
            const std::vector<In> a_rows = copy_rows(operands_[0].a, k, rows, k);
            const In* b = (branch == 0 ? b1_of(0, e) : b2_of(0, e)) + j0 * k;
            std::vector<In> b_rows(static_cast<size_t>(w * k));
            copy_to_host(b_rows.data(), b, b_rows.size());
            dot = reference_dot(a_rows, b_rows, s, w, k);
            dot_abs = reference_dot(abs_to_float(a_rows), abs_to_float(b_rows), s, w, k);
          }
          std::vector<float>& x = branch == 0 ? reference->x : reference->y;
          std::vector<float>& x_abs = branch == 0 ? reference->abs_x : reference->abs_y;
          for (int64_t r = 0; r < s; ++r)
            for (int64_t j = 0; j < w; ++j) {
              const size_t at = static_cast<size_t>((row0 + r) * cols + static_cast<int64_t>(blk) * w + j);
              x[at] = dot[static_cast<size_t>(r * w + j)];
              x_abs[at] = dot_abs[static_cast<size_t>(r * w + j)];
            }
        }
      }
      row0 += s;
    }
    reference_ = reference;
  }
  const std::vector<float> got = gather_output(operands_[0].out, n, sample);
  const Reference& r = *reference_;
  const double u_out = kNvfp4 ? kFp16UnitRoundoff : kBf16UnitRoundoff;
  const double tolerance = kNvfp4 ? kFp4AccumulationTolerance : kAccumulationTolerance;
  if constexpr (kDual) {
    return check_dual_output(got, r.x, r.y, r.abs_x, r.abs_y, u_mid, u_out, tolerance, sample, what);
  } else {
    return check_gemm_output(got, r.x, r.abs_x, u_out, tolerance, sample, what);
  }
}

template class MoeProblem<false, true>;
template class MoeProblem<false, false>;
template class MoeProblem<true, true>;
template class MoeProblem<true, false>;

}  // namespace bwgemm::bench
