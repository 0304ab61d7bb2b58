#include "problems.hpp"

#include <cmath>
#include <cstring>

#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/reference/nvfp4_gemm.hpp"
#include "kernels.cuh"
#include "problem_util.hpp"
#include "timing.hpp"

namespace bwgemm::bench {
namespace {

constexpr uint64_t kDataSeed = 0x6277'6765'6D6D'0001ull;  // "bwgemm", 1: the fixed input distribution's seed
constexpr int64_t kValidationColumnBlock = 128;  // = NVFP4 scale atom rows: B row blocks are whole atoms

enum class Operand : uint64_t { kA = 1, kB = 2, kAScales = 3, kBScales = 4 };

// Seed of one operand of one rotation set (SplitMix64 of the pair, so sets are unrelated streams).
uint64_t operand_seed(int set, Operand operand) {
  uint64_t z =
      kDataSeed + (static_cast<uint64_t>(set) << 8 | static_cast<uint64_t>(operand)) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Writes a rows x block result into columns [block_index * block, ...) of a rows x cols sample.
void scatter_block(const std::vector<float>& block_out, int64_t rows, int64_t block, size_t block_index,
                   int64_t cols, std::vector<float>* sample_out) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < block; ++j)
      (*sample_out)[i * cols + static_cast<int64_t>(block_index) * block + j] = block_out[i * block + j];
}

// ------------------------------------------------------------------------------------------------
// NVFP4 operands, shared by the NVFP4 dual GEMM and GEMM problems.

// Checks the shape rules both NVFP4 problems share (K whole scale blocks; N whole 128-row scale atoms, so
// the validation's B row blocks are whole atoms and, for the dual, B2's scales start where B1's end).
void check_nvfp4_shape(const char* what, const std::string& key, int64_t n, int64_t k) {
  if (k % kNvfp4BlockSize != 0 || n % kScaleAtomRows != 0) {
    throw BenchError(std::string(what) + " problem " + key + " needs K % 16 == 0 and N % 128 == 0 (got K = " +
                     std::to_string(k) + ", N = " + std::to_string(n) + ")");
  }
}

// One rows x K NVFP4 matrix of rotation set `set`: random packed e2m1 (kFp4ByteMask) and random blocked
// e4m3 scales, from the seeds of `data_operand` and `scale_operand`.
void fill_nvfp4_matrix(uint8_t* data, uint8_t* scales, int64_t rows, int64_t k, int set, Operand data_operand,
                       Operand scale_operand, cudaStream_t stream) {
  fill_masked_bytes(data, rows * k / 2, operand_seed(set, data_operand), kFp4ByteMask, stream);
  fill_blocked_e4m3_scales(scales, rows, k / kNvfp4BlockSize, operand_seed(set, scale_operand), stream);
}

// dot = sum_k a b and dot_abs = sum_k |a b| (s x w) of the sampled A rows with rows [row0, row0 + w) of a
// device NVFP4 matrix B of b_rows rows, via bwgemm::ref::nvfp4_gemm. row0 and w are whole 128-row scale
// atoms, so B's blocked scales for them are one contiguous run that is itself the blocked layout of a w-row
// matrix.
void nvfp4_reference_block(const SampledNvfp4Rows& a, const uint8_t* b, const uint8_t* b_scales,
                           int64_t b_rows, int64_t row0, int64_t w, std::vector<float>* dot,
                           std::vector<float>* dot_abs) {
  const int64_t k = a.k, row_bytes = k / 2, sf_cols = k / kNvfp4BlockSize;
  std::vector<uint8_t> rows(static_cast<size_t>(w * row_bytes)),
      scales(static_cast<size_t>(blocked_scale_bytes(w, sf_cols)));
  copy_to_host(rows.data(), b + row0 * row_bytes, rows.size());
  copy_to_host(scales.data(), b_scales + blocked_scale_offset(row0, 0, 0, b_rows, sf_cols), scales.size());
  dot->resize(static_cast<size_t>(a.rows * w));
  dot_abs->resize(dot->size());
  ref::nvfp4_gemm(a.matrix(), ref::Nvfp4Matrix{rows.data(), scales.data(), w, k}, 1, 1.0f, dot->data());
  for (auto& byte : rows) byte &= kFp4MagnitudeMask;
  for (auto& byte : scales) byte &= kE4m3MagnitudeMask;
  ref::nvfp4_gemm(a.abs_matrix(), ref::Nvfp4Matrix{rows.data(), scales.data(), w, k}, 1, 1.0f,
                  dot_abs->data());
}

std::string name_of(const char* group, const std::string& shape_key) {
  return std::string(group) + " " + shape_key;
}

}  // namespace

SampledNvfp4Rows sample_nvfp4_rows(const uint8_t* data, const uint8_t* scales, int64_t m, int64_t k,
                                   const std::vector<int64_t>& rows) {
  const int64_t row_bytes = k / 2, sf_cols = k / kNvfp4BlockSize, s = static_cast<int64_t>(rows.size());
  SampledNvfp4Rows out;
  out.rows = s;
  out.k = k;
  out.data = copy_rows(data, row_bytes, rows, row_bytes);
  // Scales re-laid out through the formats layer (blocked -> plain -> pick rows -> blocked).
  std::vector<uint8_t> blocked(static_cast<size_t>(blocked_scale_bytes(m, sf_cols)));
  copy_to_host(blocked.data(), scales, blocked.size());
  std::vector<uint8_t> plain(static_cast<size_t>(m * sf_cols)),
      sample_plain(static_cast<size_t>(s * sf_cols));
  unswizzle_scales_from_blocked(blocked.data(), m, sf_cols, 1, plain.data());
  for (int64_t i = 0; i < s; ++i)
    std::memcpy(&sample_plain[i * sf_cols], &plain[rows[i] * sf_cols], static_cast<size_t>(sf_cols));
  out.scales.resize(static_cast<size_t>(blocked_scale_bytes(s, sf_cols)));
  swizzle_scales_to_blocked(sample_plain.data(), s, sf_cols, 1, out.scales.data());
  out.data_abs = out.data;
  out.scales_abs = out.scales;
  for (auto& byte : out.data_abs) byte &= kFp4MagnitudeMask;
  for (auto& byte : out.scales_abs) byte &= kE4m3MagnitudeMask;
  return out;
}

// ------------------------------------------------------------------------------------------------
// GEMM

template <class T>
struct GemmProblem<T>::Reference {
  std::vector<float> want, abs;
};

template <class T>
GemmProblem<T>::GemmProblem(const Shape& shape, const Context& context) : shape_(shape) {
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  const int64_t bytes_per_set = static_cast<int64_t>(sizeof(T)) * (m * k + k * n + m * n);
  const int sets = rotation_sets(bytes_per_set, context.device);
  for (int s = 0; s < sets; ++s) {
    a_.emplace_back(static_cast<size_t>(m * k));
    b_.emplace_back(static_cast<size_t>(k * n));
    d_.emplace_back(static_cast<size_t>(m * n));
    fill_uniform_pm1(a_.back().get(), m * k, operand_seed(s, Operand::kA), context.stream);
    fill_uniform_pm1(b_.back().get(), k * n, operand_seed(s, Operand::kB), context.stream);
    operands_.push_back({a_.back().get(), b_.back().get(), d_.back().get()});
  }
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(context.stream));
  sample_ = make_output_sample(m, n, kValidationColumnBlock, /*aligned_blocks=*/false);
}

template <class T>
void GemmProblem<T>::poison_output(cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].d, kNaNByte, d_[0].bytes(), stream));
}

template <class T>
CheckResult GemmProblem<T>::check_output(double /*u_mid*/, cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  const int64_t n = shape_.n, k = shape_.k, s = static_cast<int64_t>(sample_.rows.size()),
                w = sample_.col_block;
  const int64_t cols = sample_.cols();
  if (!reference_) {
    auto reference = std::make_shared<Reference>();
    reference->want.resize(static_cast<size_t>(s * cols));
    reference->abs.resize(static_cast<size_t>(s * cols));
    const std::vector<T> a_rows = copy_rows(operands_[0].a, k, sample_.rows, k);
    const std::vector<float> a_abs = abs_to_float(a_rows);
    for (size_t blk = 0; blk < sample_.col_starts.size(); ++blk) {
      const int64_t j0 = sample_.col_starts[blk];
      std::vector<T> b_block(static_cast<size_t>(w * k));
      ref::GemmArgs<T, T, float> args;
      args.m = s;
      args.n = w;
      args.k = k;
      args.a = a_rows.data();
      args.lda = k;
      args.b = b_block.data();
      args.b_layout = shape_.b_layout;
      if (shape_.b_layout == ref::BLayout::kRowMajorKxN) {  // K rows of w columns
        BWGEMM_BENCH_CUDA(cudaMemcpy2D(b_block.data(), w * sizeof(T), operands_[0].b + j0, n * sizeof(T),
                                       w * sizeof(T), k, cudaMemcpyDeviceToHost));
        args.ldb = w;
      } else {  // w rows of K
        copy_to_host(b_block.data(), operands_[0].b + j0 * k, static_cast<size_t>(w * k));
        args.ldb = k;
      }
      std::vector<float> out(static_cast<size_t>(s * w)), out_abs(static_cast<size_t>(s * w));
      args.d = out.data();
      args.ldd = w;
      ref::gemm(args);
      const std::vector<float> b_abs = abs_to_float(b_block);
      ref::GemmArgs<float, float, float> abs_args;
      abs_args.m = s;
      abs_args.n = w;
      abs_args.k = k;
      abs_args.a = a_abs.data();
      abs_args.lda = k;
      abs_args.b = b_abs.data();
      abs_args.b_layout = shape_.b_layout;
      abs_args.ldb = args.ldb;
      abs_args.d = out_abs.data();
      abs_args.ldd = w;
      ref::gemm(abs_args);
      scatter_block(out, s, w, blk, cols, &reference->want);
      scatter_block(out_abs, s, w, blk, cols, &reference->abs);
    }
    reference_ = reference;
  }
  const std::vector<float> got = gather_output(operands_[0].d, n, sample_);
  return check_gemm_output(got, reference_->want, reference_->abs, GemmTraits<T>::kUnitRoundoff,
                           kAccumulationTolerance, sample_, name_of(kGroup, shape_.key()));
}

template class GemmProblem<__half>;
template class GemmProblem<__nv_bfloat16>;

// ------------------------------------------------------------------------------------------------
// bf16 dual GEMM

struct DualBf16Problem::Reference {
  std::vector<float> x, y, abs_x, abs_y;
};

DualBf16Problem::DualBf16Problem(const Shape& shape, const Context& context) : shape_(shape) {
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  const int64_t bytes_per_set = 2 * (m * k + 2 * n * k + m * n);
  const int sets = rotation_sets(bytes_per_set, context.device);
  for (int s = 0; s < sets; ++s) {
    a_.emplace_back(static_cast<size_t>(m * k));
    b12_.emplace_back(static_cast<size_t>(2 * n * k));
    c_.emplace_back(static_cast<size_t>(m * n));
    fill_uniform_pm1(a_.back().get(), m * k, operand_seed(s, Operand::kA), context.stream);
    fill_uniform_pm1(b12_.back().get(), 2 * n * k, operand_seed(s, Operand::kB), context.stream);
    const __nv_bfloat16* b12 = b12_.back().get();
    operands_.push_back({a_.back().get(), b12, b12 + n * k, b12, c_.back().get()});
  }
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(context.stream));
  sample_ = make_output_sample(m, n, kValidationColumnBlock, /*aligned_blocks=*/false);
}

void DualBf16Problem::poison_output(cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].c, kNaNByte, c_[0].bytes(), stream));
}

CheckResult DualBf16Problem::check_output(double u_mid, cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  const int64_t n = shape_.n, k = shape_.k, s = static_cast<int64_t>(sample_.rows.size()),
                w = sample_.col_block;
  const int64_t cols = sample_.cols();
  if (!reference_) {
    auto reference = std::make_shared<Reference>();
    for (auto* v : {&reference->x, &reference->y, &reference->abs_x, &reference->abs_y})
      v->resize(static_cast<size_t>(s * cols));
    const std::vector<__nv_bfloat16> a_rows = copy_rows(operands_[0].a, k, sample_.rows, k);
    const std::vector<float> a_abs = abs_to_float(a_rows);
    for (size_t blk = 0; blk < sample_.col_starts.size(); ++blk) {
      const int64_t j0 = sample_.col_starts[blk];
      for (int branch = 0; branch < 2; ++branch) {
        const __nv_bfloat16* b = branch == 0 ? operands_[0].b1 : operands_[0].b2;
        std::vector<__nv_bfloat16> b_rows(static_cast<size_t>(w * k));
        copy_to_host(b_rows.data(), b + j0 * k, b_rows.size());
        const std::vector<float> dot = reference_dot(a_rows, b_rows, s, w, k);
        const std::vector<float> dot_abs = reference_dot(a_abs, abs_to_float(b_rows), s, w, k);
        scatter_block(dot, s, w, blk, cols, branch == 0 ? &reference->x : &reference->y);
        scatter_block(dot_abs, s, w, blk, cols, branch == 0 ? &reference->abs_x : &reference->abs_y);
      }
    }
    reference_ = reference;
  }
  const std::vector<float> got = gather_output(operands_[0].c, n, sample_);
  const Reference& r = *reference_;
  return check_dual_output(got, r.x, r.y, r.abs_x, r.abs_y, u_mid, kBf16UnitRoundoff, kAccumulationTolerance,
                           sample_, name_of(kGroup, shape_.key()));
}

// ------------------------------------------------------------------------------------------------
// NVFP4 dual GEMM

struct Nvfp4DualProblem::Reference {
  std::vector<float> x, y, abs_x, abs_y;
};

Nvfp4DualProblem::Nvfp4DualProblem(const Shape& shape, const Context& context) : shape_(shape) {
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  check_nvfp4_shape("NVFP4 dual GEMM", shape.key(), n, k);
  const int64_t sf_cols = k / kNvfp4BlockSize;
  const int64_t a_scale_bytes = blocked_scale_bytes(m, sf_cols),
                b12_scale_bytes = blocked_scale_bytes(2 * n, sf_cols);
  const int64_t bytes_per_set = m * k / 2 + a_scale_bytes + n * k + b12_scale_bytes + 2 * m * n;
  const int sets = rotation_sets(bytes_per_set, context.device);
  for (int s = 0; s < sets; ++s) {
    a_.emplace_back(static_cast<size_t>(m * k / 2));
    a_scales_.emplace_back(static_cast<size_t>(a_scale_bytes));
    b12_.emplace_back(static_cast<size_t>(n * k));  // 2N rows of K/2 bytes
    b12_scales_.emplace_back(static_cast<size_t>(b12_scale_bytes));
    c_.emplace_back(static_cast<size_t>(m * n));
    fill_nvfp4_matrix(a_.back().get(), a_scales_.back().get(), m, k, s, Operand::kA, Operand::kAScales,
                      context.stream);
    fill_nvfp4_matrix(b12_.back().get(), b12_scales_.back().get(), 2 * n, k, s, Operand::kB,
                      Operand::kBScales, context.stream);
    Operands o;
    o.a = a_.back().get();
    o.a_scales = a_scales_.back().get();
    o.b12 = o.b1 = b12_.back().get();
    o.b12_scales = o.b1_scales = b12_scales_.back().get();
    o.b2 = o.b12 + n * k / 2;
    // N % 128 == 0: rows N.. of the 2N-row blocked layout start exactly where B1's N-row buffer ends.
    o.b2_scales = o.b12_scales + blocked_scale_bytes(n, sf_cols);
    o.c = c_.back().get();
    operands_.push_back(o);
  }
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(context.stream));
  sample_ = make_output_sample(m, n, kValidationColumnBlock, /*aligned_blocks=*/true);
}

double Nvfp4DualProblem::min_bytes() const {
  const int64_t m = shape_.m, n = shape_.n, k = shape_.k;
  return static_cast<double>(m * k / 2 + n * k + (m + 2 * n) * (k / kNvfp4BlockSize) + 2 * m * n);
}

void Nvfp4DualProblem::poison_output(cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].c, kNaNByte, c_[0].bytes(), stream));
}

CheckResult Nvfp4DualProblem::check_output(double u_mid, cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  const int64_t m = shape_.m, n = shape_.n, k = shape_.k;
  const int64_t s = static_cast<int64_t>(sample_.rows.size()), w = sample_.col_block, cols = sample_.cols();
  if (!reference_) {
    auto reference = std::make_shared<Reference>();
    for (auto* v : {&reference->x, &reference->y, &reference->abs_x, &reference->abs_y})
      v->resize(static_cast<size_t>(s * cols));
    const SampledNvfp4Rows a = sample_nvfp4_rows(operands_[0].a, operands_[0].a_scales, m, k, sample_.rows);
    std::vector<float> dot, dot_abs;
    for (size_t blk = 0; blk < sample_.col_starts.size(); ++blk) {
      for (int branch = 0; branch < 2; ++branch) {  // rows of [B1; B2]
        const int64_t row0 = sample_.col_starts[blk] + (branch == 0 ? 0 : n);
        nvfp4_reference_block(a, operands_[0].b12, operands_[0].b12_scales, 2 * n, row0, w, &dot, &dot_abs);
        scatter_block(dot, s, w, blk, cols, branch == 0 ? &reference->x : &reference->y);
        scatter_block(dot_abs, s, w, blk, cols, branch == 0 ? &reference->abs_x : &reference->abs_y);
      }
    }
    reference_ = reference;
  }
  const std::vector<float> got = gather_output(operands_[0].c, n, sample_);
  const Reference& r = *reference_;
  return check_dual_output(got, r.x, r.y, r.abs_x, r.abs_y, u_mid, kFp16UnitRoundoff,
                           kFp4AccumulationTolerance, sample_, name_of(kGroup, shape_.key()));
}

// ------------------------------------------------------------------------------------------------
// NVFP4 GEMM: the NVFP4 dual's operand generation and reference, with one weight.

struct Nvfp4GemmProblem::Reference {
  std::vector<float> want, abs;
};

Nvfp4GemmProblem::Nvfp4GemmProblem(const Shape& shape, const Context& context) : shape_(shape) {
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  if (shape.b_layout != BLayout::kColumnMajorKxN)
    throw BenchError("NVFP4 GEMM problem " + shape.key() + ": B is N x K (K-major) only");
  check_nvfp4_shape("NVFP4 GEMM", shape.key(), n, k);
  const int64_t sf_cols = k / kNvfp4BlockSize;
  const int64_t a_scale_bytes = blocked_scale_bytes(m, sf_cols),
                b_scale_bytes = blocked_scale_bytes(n, sf_cols);
  const int64_t bytes_per_set = m * k / 2 + a_scale_bytes + n * k / 2 + b_scale_bytes + 2 * m * n;
  const int sets = rotation_sets(bytes_per_set, context.device);
  for (int s = 0; s < sets; ++s) {
    a_.emplace_back(static_cast<size_t>(m * k / 2));
    a_scales_.emplace_back(static_cast<size_t>(a_scale_bytes));
    b_.emplace_back(static_cast<size_t>(n * k / 2));
    b_scales_.emplace_back(static_cast<size_t>(b_scale_bytes));
    d_.emplace_back(static_cast<size_t>(m * n));
    fill_nvfp4_matrix(a_.back().get(), a_scales_.back().get(), m, k, s, Operand::kA, Operand::kAScales,
                      context.stream);
    fill_nvfp4_matrix(b_.back().get(), b_scales_.back().get(), n, k, s, Operand::kB, Operand::kBScales,
                      context.stream);
    operands_.push_back(
        {a_.back().get(), a_scales_.back().get(), b_.back().get(), b_scales_.back().get(), d_.back().get()});
  }
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(context.stream));
  sample_ = make_output_sample(m, n, kValidationColumnBlock, /*aligned_blocks=*/true);
}

double Nvfp4GemmProblem::min_bytes() const {
  const int64_t m = shape_.m, n = shape_.n, k = shape_.k;
  return static_cast<double>((m + n) * k / 2 + (m + n) * (k / kNvfp4BlockSize) + 2 * m * n);
}

void Nvfp4GemmProblem::poison_output(cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaMemsetAsync(operands_[0].d, kNaNByte, d_[0].bytes(), stream));
}

CheckResult Nvfp4GemmProblem::check_output(double /*u_mid*/, cudaStream_t stream) const {
  BWGEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
  const int64_t m = shape_.m, n = shape_.n, k = shape_.k;
  const int64_t s = static_cast<int64_t>(sample_.rows.size()), w = sample_.col_block, cols = sample_.cols();
  if (!reference_) {
    auto reference = std::make_shared<Reference>();
    reference->want.resize(static_cast<size_t>(s * cols));
    reference->abs.resize(static_cast<size_t>(s * cols));
    const SampledNvfp4Rows a = sample_nvfp4_rows(operands_[0].a, operands_[0].a_scales, m, k, sample_.rows);
    std::vector<float> dot, dot_abs;
    for (size_t blk = 0; blk < sample_.col_starts.size(); ++blk) {
      nvfp4_reference_block(a, operands_[0].b, operands_[0].b_scales, n, sample_.col_starts[blk], w, &dot,
                            &dot_abs);
      scatter_block(dot, s, w, blk, cols, &reference->want);
      scatter_block(dot_abs, s, w, blk, cols, &reference->abs);
    }
    reference_ = reference;
  }
  const std::vector<float> got = gather_output(operands_[0].d, n, sample_);
  return check_gemm_output(got, reference_->want, reference_->abs, kFp16UnitRoundoff,
                           kFp4AccumulationTolerance, sample_, name_of(kGroup, shape_.key()));
}

}  // namespace bwgemm::bench
