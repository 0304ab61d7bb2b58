// The problems the benchmarks solve. A problem owns `sets()` rotating copies of its operands on the
// device (timing.hpp says why), filled once from fixed seeds, and checks an output against bwgemm's
// host references. Every implementation of one shape (baselines and bwgemm kernels) runs on the
// same problem object, so they all see the same bytes.
//
// Layouts (all row-major in the C sense, batch count L = 1):
//   GEMM          A: M x K (lda = K). B: K x N row-major (ldb = N, "Bkn", GPU MODE matmul_v2) or
//                 N x K K-major (ldb = K, "Bnk", nn.Linear weights). D: M x N (ldd = N), same type.
//   bf16 dual     A: M x K. B1, B2: N x K K-major, stored as one [B1; B2] buffer of 2N rows
//                 (b2 = b12 + N * K). C = silu(A B1^T) * (A B2^T): M x N bf16.
//   NVFP4 dual    A: M x K/2 bytes (two e2m1 per byte, element 2i in the low nibble), B1/B2 N x K/2
//                 likewise, stacked as [B1; B2]; scales e4m3 in the 128x4 blocked layout, one buffer
//                 per matrix (rows = M, N or 2N; with N % 128 == 0 the [B1; B2] scale buffer is B1's
//                 followed by B2's). C: M x N fp16.
//   NVFP4 GEMM    A: M x K/2 bytes, B: N x K/2 bytes (K-major, the shape's layout is always "Bnk"), each with
//                 its own blocked scale buffer (rows = M, N): the NVFP4 dual's operand format, generated and
//                 checked by the same code. D: M x N fp16.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bwgemm/reference/gemm.hpp"
#include "common.hpp"
#include "shapes.hpp"
#include "validate.hpp"

namespace bwgemm::bench {

// ------------------------------------------------------------------------------------------------
// GEMM: D = A * B, fp16 or bf16 in and out, fp32 accumulation. (GemmShape and DualShape: shapes.hpp.)

template <class T>
struct GemmOperands {
  const T* a = nullptr;
  const T* b = nullptr;
  T* d = nullptr;
};

template <class T>
struct GemmTraits;
template <>
struct GemmTraits<__half> {
  static constexpr const char* kGroup = "gemm_fp16";
  static constexpr double kUnitRoundoff = kFp16UnitRoundoff;
};
template <>
struct GemmTraits<__nv_bfloat16> {
  static constexpr const char* kGroup = "gemm_bf16";
  static constexpr double kUnitRoundoff = kBf16UnitRoundoff;
};

template <class T>
class GemmProblem {
 public:
  using Shape = GemmShape;
  using Operands = GemmOperands<T>;
  static constexpr const char* kGroup = GemmTraits<T>::kGroup;

  GemmProblem(const Shape& shape, const Context& context);
  const Shape& shape() const { return shape_; }
  int sets() const { return static_cast<int>(operands_.size()); }
  const Operands& operands(int set) const { return operands_[static_cast<size_t>(set)]; }
  double flops() const { return 2.0 * shape_.m * shape_.n * shape_.k; }
  double min_bytes() const { return 2.0 * (shape_.m * shape_.k + shape_.k * shape_.n + shape_.m * shape_.n); }

  // Validation uses operand set 0. poison_output fills its output with NaN, so an implementation
  // that writes nothing fails; check_output synchronizes `stream` and compares that output with the
  // host reference. u_mid: unit roundoff of intermediates the implementation stores (unused for GEMM).
  void poison_output(cudaStream_t stream) const;
  CheckResult check_output(double u_mid, cudaStream_t stream) const;

 private:
  struct Reference;
  Shape shape_;
  OutputSample sample_;
  std::vector<DeviceBuffer<T>> a_, b_, d_;
  std::vector<Operands> operands_;
  mutable std::shared_ptr<const Reference> reference_;  // computed at the first check
};

// bf16 dual GEMM: C = silu(A B1^T) * (A B2^T).
struct DualBf16Operands {
  const __nv_bfloat16* a = nullptr;    // M x K
  const __nv_bfloat16* b1 = nullptr;   // N x K (= b12)
  const __nv_bfloat16* b2 = nullptr;   // N x K (= b12 + N * K)
  const __nv_bfloat16* b12 = nullptr;  // 2N x K, [B1; B2]
  __nv_bfloat16* c = nullptr;          // M x N
};

class DualBf16Problem {
 public:
  using Shape = DualShape;
  using Operands = DualBf16Operands;
  static constexpr const char* kGroup = "dual_bf16";

  DualBf16Problem(const Shape& shape, const Context& context);
  const Shape& shape() const { return shape_; }
  int sets() const { return static_cast<int>(operands_.size()); }
  const Operands& operands(int set) const { return operands_[static_cast<size_t>(set)]; }
  double flops() const { return 4.0 * shape_.m * shape_.n * shape_.k; }
  double min_bytes() const {
    return 2.0 * (shape_.m * shape_.k + 2 * shape_.n * shape_.k + shape_.m * shape_.n);
  }
  void poison_output(cudaStream_t stream) const;
  CheckResult check_output(double u_mid, cudaStream_t stream) const;

 private:
  struct Reference;
  Shape shape_;
  OutputSample sample_;
  std::vector<DeviceBuffer<__nv_bfloat16>> a_, b12_, c_;
  std::vector<Operands> operands_;
  mutable std::shared_ptr<const Reference> reference_;
};

// NVFP4 dual GEMM (reference/nvfp4_dual_gemm.md): C = silu(A B1^T) * (A B2^T), fp16 C.
struct Nvfp4DualOperands {
  const uint8_t* a = nullptr;           // M x K/2 packed e2m1
  const uint8_t* a_scales = nullptr;    // blocked, rows = M
  const uint8_t* b1 = nullptr;          // N x K/2 (= b12)
  const uint8_t* b1_scales = nullptr;   // blocked, rows = N (= b12_scales)
  const uint8_t* b2 = nullptr;          // N x K/2 (= b12 + N * K/2)
  const uint8_t* b2_scales = nullptr;   // blocked, rows = N (= b12_scales + blocked_scale_bytes(N, K/16))
  const uint8_t* b12 = nullptr;         // 2N x K/2, [B1; B2]
  const uint8_t* b12_scales = nullptr;  // blocked, rows = 2N
  __half* c = nullptr;                  // M x N
};

class Nvfp4DualProblem {
 public:
  using Shape = DualShape;
  using Operands = Nvfp4DualOperands;
  static constexpr const char* kGroup = "dual_nvfp4";

  Nvfp4DualProblem(const Shape& shape, const Context& context);
  const Shape& shape() const { return shape_; }
  int sets() const { return static_cast<int>(operands_.size()); }
  const Operands& operands(int set) const { return operands_[static_cast<size_t>(set)]; }
  double flops() const { return 4.0 * shape_.m * shape_.n * shape_.k; }
  double min_bytes() const;
  void poison_output(cudaStream_t stream) const;
  CheckResult check_output(double u_mid, cudaStream_t stream) const;

 private:
  struct Reference;
  Shape shape_;
  OutputSample sample_;
  std::vector<DeviceBuffer<uint8_t>> a_, a_scales_, b12_, b12_scales_;
  std::vector<DeviceBuffer<__half>> c_;
  std::vector<Operands> operands_;
  mutable std::shared_ptr<const Reference> reference_;
};

// NVFP4 GEMM (bwgemm::gemm_nvfp4): D = A B^T, fp16 D; the NVFP4 dual GEMM's operands with one weight.
struct Nvfp4GemmOperands {
  const uint8_t* a = nullptr;         // M x K/2 packed e2m1
  const uint8_t* a_scales = nullptr;  // blocked, rows = M
  const uint8_t* b = nullptr;         // N x K/2 packed e2m1
  const uint8_t* b_scales = nullptr;  // blocked, rows = N
  __half* d = nullptr;                // M x N
};

class Nvfp4GemmProblem {
 public:
  using Shape = GemmShape;  // b_layout is always kColumnMajorKxN (B N x K); keys end in "_Bnk"
  using Operands = Nvfp4GemmOperands;
  static constexpr const char* kGroup = "gemm_nvfp4";

  Nvfp4GemmProblem(const Shape& shape, const Context& context);
  const Shape& shape() const { return shape_; }
  int sets() const { return static_cast<int>(operands_.size()); }
  const Operands& operands(int set) const { return operands_[static_cast<size_t>(set)]; }
  double flops() const { return 2.0 * shape_.m * shape_.n * shape_.k; }
  double min_bytes() const;
  void poison_output(cudaStream_t stream) const;
  CheckResult check_output(double u_mid, cudaStream_t stream) const;

 private:
  struct Reference;
  Shape shape_;
  OutputSample sample_;
  std::vector<DeviceBuffer<uint8_t>> a_, a_scales_, b_, b_scales_;
  std::vector<DeviceBuffer<__half>> d_;
  std::vector<Operands> operands_;
  mutable std::shared_ptr<const Reference> reference_;
};

}  // namespace bwgemm::bench
