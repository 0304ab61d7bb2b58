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

enum class MoeOperand : uint64_t { kA = 1, kB = 2, kAScales = 3, kBScales = 4, kB2 = 5, kB2Scales = 6 };

uint64_t moe_seed(int copy, MoeOperand operand) {
  return generators::random_bits(kMoeDataSeed,
                                 static_cast<uint64_t>(copy) * 16 + static_cast<uint64_t>(operand));
}

int64_t nvfp4_rows_padded(int64_t rows) {
  return round_up(rows, kScaleAtomRows);
}

// The rows the validation checks: the first and last expert with rows, the one with the most, one in the
// middle (at most kMaxSampledExperts); the first and last row of each.
struct PickedRows {
  std::vector<int64_t> experts;
  std::vector<std::vector<int64_t>> local_rows;  // within each expert
  std::vector<int64_t> rows;                     // in the buffers (the output's rows)
};

PickedRows pick_rows(const MoeTokens& t) {
  PickedRows out;
  std::vector<int64_t> active;
  for (int64_t e = 0; e < t.experts(); ++e)
    if (t.counts()[static_cast<size_t>(e)] > 0) active.push_back(e);
  if (active.empty()) return out;
  std::vector<int64_t> picks = {active.front(), active[active.size() / 2], active.back()};
  picks.push_back(*std::max_element(active.begin(), active.end(), [&](int64_t x, int64_t y) {
    return t.counts()[static_cast<size_t>(x)] < t.counts()[static_cast<size_t>(y)];
  }));
  std::sort(picks.begin(), picks.end());
  picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
  picks.resize(std::min(picks.size(), kMaxSampledExperts));
  for (int64_t e : picks) {
    const int64_t c = t.counts()[static_cast<size_t>(e)];
    std::vector<int64_t> local = {0, c - 1};
    local.erase(std::unique(local.begin(), local.end()), local.end());
    out.experts.push_back(e);
    for (int64_t r : local) out.rows.push_back(t.first_row(e) + r);
    out.local_rows.push_back(local);
  }
  return out;
}

// `rows` with column blocks at the start, middle and end of n columns.
OutputSample columns_of(const std::vector<int64_t>& rows, int64_t n) {
  OutputSample sample = make_output_sample(1, n, kValidationColumnBlock, /*aligned_blocks=*/false);
  sample.rows = rows;
  for (int64_t& start : sample.col_starts)
    start -= start % kNvfp4BlockSize;  // whole NVFP4 blocks of an output
  sample.col_starts.erase(std::unique(sample.col_starts.begin(), sample.col_starts.end()),
                          sample.col_starts.end());
  return sample;
}

// dot = alpha sum_k a b and dot_abs = alpha sum_k |a b| (a.rows x w) of sampled NVFP4 rows with rows
// [row0, row0 + w) of a device NVFP4 weight of b_rows rows and K = a.k.
void nvfp4_block_dot(const SampledNvfp4Rows& a, const uint8_t* b, const uint8_t* b_scales, int64_t b_rows,
                     int64_t row0, int64_t w, float alpha, std::vector<float>* dot,
                     std::vector<float>* dot_abs) {
  std::vector<int64_t> rows(static_cast<size_t>(w));
  for (int64_t j = 0; j < w; ++j) rows[static_cast<size_t>(j)] = row0 + j;
  const SampledNvfp4Rows bsel = sample_nvfp4_rows(b, b_scales, b_rows, a.k, rows);
  dot->assign(static_cast<size_t>(a.rows * w), 0.0f);
  dot_abs->assign(dot->size(), 0.0f);
  ref::nvfp4_gemm(a.matrix(), bsel.matrix(), 1, alpha, dot->data());
  ref::nvfp4_gemm(a.abs_matrix(), bsel.abs_matrix(), 1, alpha, dot_abs->data());
}

// Writes an s x w block into columns [blk * w, ...) of rows [row0, row0 + s) of a sample of `cols` columns.
void place_block(const std::vector<float>& block, int64_t s, int64_t w, size_t blk, int64_t row0,
                 int64_t cols, std::vector<float>* out) {
  for (int64_t r = 0; r < s; ++r)
    for (int64_t j = 0; j < w; ++j)
      (*out)[static_cast<size_t>((row0 + r) * cols + static_cast<int64_t>(blk) * w + j)] =
          block[static_cast<size_t>(r * w + j)];
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

  PickedRows picked = pick_rows(tokens_);
  sampled_.experts = std::move(picked.experts);
  sampled_.local_rows = std::move(picked.local_rows);
  sampled_.sample = columns_of(picked.rows, n);
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
            // B rows j0 .. j0 + w of gate (branch 0) or up (in the stacked [2N, K] operand from row N).
            const bool up_in_b1 = branch == 1 && stacked_;
            const uint8_t* b = branch == 1 && !stacked_ ? b2_of(0, e) : b1_of(0, e);
            const uint8_t* bs = branch == 1 && !stacked_ ? b2_scales_of(0, e) : b1_scales_of(0, e);
            nvfp4_block_dot(a, b, bs, stacked_ ? 2 * n : n, (up_in_b1 ? n : 0) + j0, w, 1.0f, &dot, &dot_abs);
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
          place_block(dot, s, w, blk, row0, cols, branch == 0 ? &reference->x : &reference->y);
          place_block(dot_abs, s, w, blk, row0, cols, branch == 0 ? &reference->abs_x : &reference->abs_y);
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

// ------------------------------------------------------------------------------------------------
// MoeLayerNvfp4Problem

namespace {

// The FC1 output's global scale for this data: e2m1 values of magnitude 0.5..1.5 and e4m3 scales in [0, 1)
// (kernels.cuh) give gate and up of variance about 0.085 K, so silu(gate) · up stays below (7 sigma)^2 = 4.2
// K; a power of two g >= K / 400 keeps its block scales amax / (6 g) at most 280, inside e4m3's 448.
float layer_mid_global_scale(int64_t k) {
  return static_cast<float>(std::exp2(std::ceil(std::log2(std::max(1.0, static_cast<double>(k) / 400.0)))));
}

// FC2's alpha: g over a power of two, at least 2 (the alpha differs from the mid's decode scale, as a layer's
// output scale makes it), enough that D's spread stays 8 sigma under fp16's 65504 (gate and up of variance
// 0.085 K, silu(gate) · up of mean square about their variance^2 / 2, D summing intermediate of those times
// the weights' 0.29).
float layer_out_alpha(int64_t hidden, int64_t intermediate, float g) {
  const double gate_variance = 0.085 * static_cast<double>(hidden);
  const double sigma =
      std::sqrt(static_cast<double>(intermediate) * 0.29 * gate_variance * gate_variance / 2.0);
  const double halvings = std::max(1.0, std::ceil(std::log2(8.0 * sigma / 65504.0)));
  return static_cast<float>(g / std::exp2(halvings));
}

float silu(float v) {
  return v / (1.0f + std::exp(-v));
}

}  // namespace

struct MoeLayerNvfp4Problem::Reference {
  std::vector<float> x, y, abs_x, abs_y;  // FC1 on the mid sample's columns
};

const uint8_t* MoeLayerNvfp4Problem::a_of(int set, int64_t e) const {
  return operands(set).a + tokens_.first_row(e) * hidden() / 2;
}

const uint8_t* MoeLayerNvfp4Problem::a_scales_of(int set, int64_t e) const {
  return operands(set).a_scales +
         grouped::scale_byte_offset(tokens_.scale_row(e), hidden() / kNvfp4BlockSize);
}

uint8_t* MoeLayerNvfp4Problem::mid_of(int set, int64_t e) const {
  return operands(set).mid + tokens_.first_row(e) * intermediate() / 2;
}

uint8_t* MoeLayerNvfp4Problem::mid_scales_of(int set, int64_t e) const {
  return operands(set).mid_scales +
         grouped::scale_byte_offset(tokens_.scale_row(e), intermediate() / kNvfp4BlockSize);
}

MoeLayerNvfp4Problem::MoeLayerNvfp4Problem(const Shape& shape, const Context& context)
    : shape_(shape), tokens_(shape) {
  const int64_t h = hidden(), i = intermediate(), e_count = tokens_.experts(), rows = tokens_.buffer_rows();
  if (i % 64 != 0 || h % 64 != 0)
    throw BenchError(std::string(kGroup) + " " + shape.key() +
                     ": NVFP4 needs hidden and intermediate % 64 == 0");
  const int64_t sf_h = h / kNvfp4BlockSize, sf_i = i / kNvfp4BlockSize;
  stacked_ = i % kScaleAtomRows == 0;
  const int64_t w13_rows = stacked_ ? 2 * i : i, w13_tensors = stacked_ ? 1 : 2;
  w13_stride_ = w13_rows * h / 2;
  w13_scales_stride_ = blocked_scale_bytes(w13_rows, sf_h);
  w2_stride_ = h * i / 2;
  w2_scales_stride_ = blocked_scale_bytes(h, sf_i);
  mid_global_scale_ = layer_mid_global_scale(h);
  out_alpha_ = layer_out_alpha(h, i, mid_global_scale_);
  const int64_t w13_bytes = w13_tensors * e_count * w13_stride_,
                w13_scale_bytes = w13_tensors * e_count * w13_scales_stride_;
  const int64_t w2_bytes = e_count * w2_stride_, w2_scale_bytes = e_count * w2_scales_stride_;
  const int64_t expert_weight =
      2 * (i * h / 2 + blocked_scale_bytes(i, sf_h)) + w2_stride_ + w2_scales_stride_;
  const int64_t a_scale_bytes = blocked_scale_bytes(tokens_.scale_rows(), sf_h),
                mid_scale_bytes = blocked_scale_bytes(tokens_.scale_rows(), sf_i);
  const int64_t activation_bytes =
      rows * h / 2 + a_scale_bytes + rows * i / 2 + mid_scale_bytes + rows * h * 2;
  const int64_t routed = tokens_.rows();
  const int64_t activation_touched = routed * (h / 2 + sf_h + 2 * (i / 2 + sf_i) + 2 * h);
  MoeRotation rotation;
  std::string why;
  if (!plan_moe_rotation(
          w13_bytes + w13_scale_bytes + w2_bytes + w2_scale_bytes, tokens_.active_experts() * expert_weight,
          activation_bytes, activation_touched,
          static_cast<int64_t>(kL2RotationFactor * static_cast<double>(context.device.l2_bytes)),
          static_cast<int64_t>(kRotationMemoryFraction * static_cast<double>(context.device.free_bytes)),
          &rotation, &why))
    throw BenchError(std::string(kGroup) + " " + shape.key() + ": " + why);

  for (int c = 0; c < rotation.weight_copies; ++c) {
    w13_.emplace_back(static_cast<size_t>(w13_bytes));
    w13_scales_.emplace_back(static_cast<size_t>(w13_scale_bytes));
    w2_.emplace_back(static_cast<size_t>(w2_bytes));
    w2_scales_.emplace_back(static_cast<size_t>(w2_scale_bytes));
    fill_masked_bytes(w13_.back().get(), w13_bytes, moe_seed(c, MoeOperand::kB), kFp4ByteMask,
                      context.stream);
    fill_blocked_e4m3_scales(w13_scales_.back().get(), w13_tensors * e_count * nvfp4_rows_padded(w13_rows),
                             sf_h, moe_seed(c, MoeOperand::kBScales), context.stream);
    fill_masked_bytes(w2_.back().get(), w2_bytes, moe_seed(c, MoeOperand::kB2), kFp4ByteMask, context.stream);
    fill_blocked_e4m3_scales(w2_scales_.back().get(), e_count * nvfp4_rows_padded(h), sf_i,
                             moe_seed(c, MoeOperand::kB2Scales), context.stream);
  }
  for (int s = 0; s < rotation.sets; ++s) {
    a_.emplace_back(static_cast<size_t>(rows * h / 2));
    a_scales_.emplace_back(static_cast<size_t>(a_scale_bytes));
    mid_.emplace_back(static_cast<size_t>(rows * i / 2));
    mid_scales_.emplace_back(static_cast<size_t>(mid_scale_bytes));
    out_.emplace_back(static_cast<size_t>(rows * h));
    fill_masked_bytes(a_.back().get(), rows * h / 2, moe_seed(s, MoeOperand::kA), kFp4ByteMask,
                      context.stream);
    fill_blocked_e4m3_scales(a_scales_.back().get(), tokens_.scale_rows(), sf_h,
                             moe_seed(s, MoeOperand::kAScales), context.stream);
    const int c = s % rotation.weight_copies;
    Operands o;
    o.a = a_.back().get();
    o.a_scales = a_scales_.back().get();
    o.w1 = w13_[static_cast<size_t>(c)].get();
    o.w1_scales = w13_scales_[static_cast<size_t>(c)].get();
    o.w3 = stacked_ ? o.w1 + i * h / 2 : o.w1 + e_count * w13_stride_;
    o.w3_scales =
        stacked_ ? o.w1_scales + blocked_scale_bytes(i, sf_h) : o.w1_scales + e_count * w13_scales_stride_;
    o.w2 = w2_[static_cast<size_t>(c)].get();
    o.w2_scales = w2_scales_[static_cast<size_t>(c)].get();
    o.mid = mid_.back().get();
    o.mid_scales = mid_scales_.back().get();
    o.out = out_.back().get();
    operands_.push_back(o);
  }
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(context.stream));
  PickedRows picked = pick_rows(tokens_);
  sampled_experts_ = std::move(picked.experts);
  sampled_rows_ = std::move(picked.local_rows);
  mid_sample_ = columns_of(picked.rows, i);
  out_sample_ = columns_of(picked.rows, h);
}

double MoeLayerNvfp4Problem::flops() const {
  return 6.0 * static_cast<double>(tokens_.rows()) * static_cast<double>(hidden()) *
         static_cast<double>(intermediate());
}

double MoeLayerNvfp4Problem::min_bytes() const {
  const int64_t h = hidden(), i = intermediate(), sf_h = h / kNvfp4BlockSize, sf_i = i / kNvfp4BlockSize;
  const int64_t expert_weight =
      2 * (i * h / 2 + blocked_scale_bytes(i, sf_h)) + w2_stride_ + w2_scales_stride_;
  return static_cast<double>(tokens_.active_experts() * expert_weight +
                             tokens_.rows() * (h / 2 + sf_h + 2 * (i / 2 + sf_i) + 2 * h));
}

void MoeLayerNvfp4Problem::poison_output(cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].out, kNaNByte, out_[0].bytes(), stream));
  // e2m1 code 0xF is -6 and e4m3 0xFF a NaN: an implementation that leaves mid alone fails its check.
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].mid, 0xFF, mid_[0].bytes(), stream));
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].mid_scales, 0xFF, mid_scales_[0].bytes(), stream));
}

CheckResult MoeLayerNvfp4Problem::check_output(double u_mid, cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  const std::string what = std::string(kGroup) + " " + shape_.key();
  if (mid_sample_.rows.empty()) return CheckResult{true, "", 0.0};
  const int64_t h = hidden(), i = intermediate();
  const float g = mid_global_scale_;
  const int64_t mid_cols = mid_sample_.cols(), out_cols = out_sample_.cols(), wm = mid_sample_.col_block,
                wo = out_sample_.col_block, s_all = static_cast<int64_t>(mid_sample_.rows.size());
  if (!reference_) {  // FC1's gate and up on the mid sample (the inputs do not change)
    auto reference = std::make_shared<Reference>();
    for (auto* v : {&reference->x, &reference->y, &reference->abs_x, &reference->abs_y})
      v->resize(static_cast<size_t>(s_all * mid_cols));
    int64_t row0 = 0;
    for (size_t n = 0; n < sampled_experts_.size(); ++n) {
      const int64_t e = sampled_experts_[n], s = static_cast<int64_t>(sampled_rows_[n].size());
      const SampledNvfp4Rows a =
          sample_nvfp4_rows(a_of(0, e), a_scales_of(0, e), tokens_.scale_buffer_rows(e), h, sampled_rows_[n]);
      for (size_t blk = 0; blk < mid_sample_.col_starts.size(); ++blk) {
        const int64_t j0 = mid_sample_.col_starts[blk];
        std::vector<float> dot, dot_abs;
        for (int branch = 0; branch < 2; ++branch) {
          const bool up_in_w1 = branch == 1 && stacked_;
          const uint8_t* w = branch == 1 && !stacked_ ? w3_of(0, e) : w1_of(0, e);
          const uint8_t* ws = branch == 1 && !stacked_ ? w3_scales_of(0, e) : w1_scales_of(0, e);
          nvfp4_block_dot(a, w, ws, stacked_ ? 2 * i : i, (up_in_w1 ? i : 0) + j0, wm, 1.0f, &dot, &dot_abs);
          place_block(dot, s, wm, blk, row0, mid_cols, branch == 0 ? &reference->x : &reference->y);
          place_block(dot_abs, s, wm, blk, row0, mid_cols,
                      branch == 0 ? &reference->abs_x : &reference->abs_y);
        }
      }
      row0 += s;
    }
    reference_ = reference;
  }
  const Reference& r = *reference_;
  // FC1's NVFP4 output: each sampled element decoded (x g) against silu(gate) · up, within its quantization
  // error (one e2m1 step at the top of the range: 1.0 x the block's scale x g), the accumulation tolerance
  // and the rounding of stored intermediates (u_mid).
  std::vector<float> mid_got(r.x.size()), mid_want(r.x.size()), mid_bound(r.x.size());
  std::vector<float> out_want(static_cast<size_t>(s_all * out_cols)),
      out_abs(static_cast<size_t>(s_all * out_cols));
  int64_t row0 = 0;
  for (size_t n = 0; n < sampled_experts_.size(); ++n) {
    const int64_t e = sampled_experts_[n], s = static_cast<int64_t>(sampled_rows_[n].size());
    const SampledNvfp4Rows m = sample_nvfp4_rows(mid_of(0, e), mid_scales_of(0, e),
                                                 tokens_.scale_buffer_rows(e), i, sampled_rows_[n]);
    std::vector<float> decoded(static_cast<size_t>(s * i)), block_scale(decoded.size());
    ref::decode_nvfp4(m.matrix(), 0, decoded.data());
    std::vector<uint8_t> ones(m.data.size(), 0x22);  // e2m1 1.0 in both nibbles: decodes to the block scales
    ref::decode_nvfp4(ref::Nvfp4Matrix{ones.data(), m.scales.data(), s, i}, 0, block_scale.data());
    for (int64_t rr = 0; rr < s; ++rr) {
      for (int64_t j = 0; j < mid_cols; ++j) {
        const size_t at = static_cast<size_t>((row0 + rr) * mid_cols + j);
        const float x = r.x[at], y = r.y[at];
        mid_want[at] = silu(x) * y;
        mid_got[at] = decoded[static_cast<size_t>(rr * i + mid_sample_.col(j))] * g;
      }
      // Per 16-column block (the sample's column blocks are whole ones): the largest error of the quantizer,
      // one e2m1 step at the top of the range (1.0 x the block's scale x g), or what clipping at 6 x the
      // scale loses where the e4m3 scale rounded down (subnormal scales included).
      for (int64_t j0 = 0; j0 < mid_cols; j0 += kNvfp4BlockSize) {
        const size_t first = static_cast<size_t>((row0 + rr) * mid_cols + j0);
        float amax = 0.0f;
        for (int64_t j = 0; j < kNvfp4BlockSize; ++j) amax = std::max(amax, std::fabs(mid_want[first + j]));
        const float scale = std::fabs(block_scale[static_cast<size_t>(rr * i + mid_sample_.col(j0))]) * g;
        const double quantization = std::max<double>(scale, amax - 6.0 * scale);
        for (int64_t j = 0; j < kNvfp4BlockSize; ++j) {
          const size_t at = first + static_cast<size_t>(j);
          const double x = r.x[at], y = r.y[at], sx = silu(r.x[at]);
          const double propagated = 1.1 * r.abs_x[at] * std::fabs(y) + std::fabs(sx) * r.abs_y[at];
          mid_bound[at] =
              static_cast<float>(quantization + kFp4AccumulationTolerance * propagated +
                                 2.0 * u_mid * (1.1 * std::fabs(x * y) + std::fabs(sx * y)) + kAbsoluteFloor);
        }
      }
    }
    // FC2 on the mid this implementation wrote: D = out_alpha · mid W2ᵀ.
    for (size_t blk = 0; blk < out_sample_.col_starts.size(); ++blk) {
      std::vector<float> dot, dot_abs;
      nvfp4_block_dot(m, w2_of(0, e), w2_scales_of(0, e), h, out_sample_.col_starts[blk], wo, out_alpha_,
                      &dot, &dot_abs);
      place_block(dot, s, wo, blk, row0, out_cols, &out_want);
      place_block(dot_abs, s, wo, blk, row0, out_cols, &out_abs);
    }
    row0 += s;
  }
  // e2m1 leaves a relative RMS error of about 10% of a block: a quarter catches zeros, signs, wrong rows.
  constexpr double kMidRelativeRms = 0.25;
  CheckResult mid = compare_with_bounds(mid_got, mid_want, mid_bound, kMidRelativeRms, mid_sample_,
                                        what + " (FC1's NVFP4 output, decoded)");
  if (!mid.ok) return mid;
  const std::vector<float> got = gather_output(operands_[0].out, h, out_sample_);
  CheckResult out = check_gemm_output(got, out_want, out_abs, kFp16UnitRoundoff, kFp4AccumulationTolerance,
                                      out_sample_, what);
  out.worst_fraction = std::max(out.worst_fraction, mid.worst_fraction);
  return out;
}

template class MoeProblem<false, true>;
template class MoeProblem<false, false>;
template class MoeProblem<true, true>;
template class MoeProblem<true, false>;

}  // namespace bwgemm::bench
