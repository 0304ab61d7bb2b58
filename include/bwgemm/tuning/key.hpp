// What a kernel-choice table is keyed by (docs/tuning.md): the operation, the element types in and out, B's
// layout, N, K, the batch and a bucket of M; and the stable names a tuning file spells them with. Host C++17,
// no CUDA, no allocation.
#pragma once

#include <cstdint>
#include <string_view>

#include "bwgemm/base/layout.hpp"

namespace bwgemm::tuning {

// ---- operations and element types ----------------------------------------------------------------------

// The operations a table chooses kernels for. New operations (the grouped GEMMs) append here and to
// kOperationNames; a file's "op" is the name.
// The grouped (mixture-of-experts) operations' keys: m is the tokens an expert is expected to get
// (expected_tokens_per_expert, or the buffers' rows over E), batch the experts E, the layout "nk".
enum class Operation : uint8_t {
  kGemm,
  kDualGemm,
  kNvfp4Gemm,
  kNvfp4DualGemm,
  kGroupedGemm,
  kGroupedDualGemm,
  kNvfp4GroupedGemm,
  kNvfp4GroupedDualGemm
};
inline constexpr int kOperationCount = 8;
inline constexpr const char* kOperationNames[kOperationCount] = {
    "gemm",         "dual_gemm",         "nvfp4_gemm",         "nvfp4_dual_gemm",
    "grouped_gemm", "grouped_dual_gemm", "nvfp4_grouped_gemm", "nvfp4_grouped_dual_gemm"};

// The element types of the operands ("in": A and B) and of the output ("out": D or C); the names are the
// benchmark's (gemm_fp16, gemm_bf16, gemm_nvfp4). nvfp4: e2m1 data with e4m3 scales per 16 values.
enum class Element : uint8_t { kFp16, kBf16, kFp32, kNvfp4 };
inline constexpr int kElementCount = 4;
inline constexpr const char* kElementNames[kElementCount] = {"fp16", "bf16", "fp32", "nvfp4"};

// B's layout: "kn" is K x N row-major (BLayout::kRowMajorKxN), "nk" N x K row-major (kColumnMajorKxN, the
// nn.Linear weight); the benchmark's keys end in _Bkn and _Bnk.
inline constexpr const char* kLayoutNames[2] = {"kn", "nk"};

constexpr const char* to_string(Operation op) {
  return kOperationNames[static_cast<int>(op)];
}
constexpr const char* to_string(Element e) {
  return kElementNames[static_cast<int>(e)];
}
constexpr const char* layout_name(BLayout layout) {
  return layout == BLayout::kRowMajorKxN ? kLayoutNames[0] : kLayoutNames[1];
}

// The enum a name spells; false (and *out untouched) for any other string.
inline bool parse_operation(std::string_view name, Operation* out) {
  for (int i = 0; i < kOperationCount; ++i)
    if (name == kOperationNames[i]) return *out = static_cast<Operation>(i), true;
  return false;
}
inline bool parse_element(std::string_view name, Element* out) {
  for (int i = 0; i < kElementCount; ++i)
    if (name == kElementNames[i]) return *out = static_cast<Element>(i), true;
  return false;
}
inline bool parse_layout(std::string_view name, BLayout* out) {
  if (name == kLayoutNames[0]) return *out = BLayout::kRowMajorKxN, true;
  if (name == kLayoutNames[1]) return *out = BLayout::kColumnMajorKxN, true;
  return false;
}

// ---- M buckets -----------------------------------------------------------------------------------------
//
// A table holds one choice per bucket of M, named by the bucket's upper bound: M = 1 .. 8 each its own
// bucket, then four buckets per octave (quarter-octave steps: 10, 12, 14, 16, 20, 24, 28, 32, 40, ..., 12288,
// 14336, 16384). Bucket b holds bound(b - 1) < M <= bound(b); every M above 16384 falls in the last bucket
// (the kernels are in their many-wave regime there). Every bound of the built-in rules (16, 32, 64, 128,
// 160, 192, 256, 512 tokens) is a bucket bound, so no bucket straddles one. 52 buckets.

inline constexpr int kBucketCount = 52;
inline constexpr int64_t kMaxBucketM = 16384;

// The upper bound of bucket `b` (0 <= b < kBucketCount).
constexpr int64_t bucket_bound(int b) {
  if (b < 8) return b + 1;
  const int octave = (b - 8) / 4, quarter = (b - 8) % 4 + 1;
  const int64_t base = int64_t{8} << octave;
  return base + quarter * (base / 4);
}

// The bucket of M rows; -1 for M < 1.
constexpr int m_bucket(int64_t m) {
  if (m < 1) return -1;
  if (m <= 8) return static_cast<int>(m) - 1;
  if (m > kMaxBucketM) return kBucketCount - 1;
  int octave = 0;
  int64_t base = 8;  // base < m <= 2 base
  while (2 * base < m) base *= 2, ++octave;
  const int64_t step = base / 4;
  const int64_t quarter = (m - base + step - 1) / step;  // 1 .. 4
  return 8 + 4 * octave + static_cast<int>(quarter) - 1;
}

// The bucket whose upper bound is `bound`; -1 where `bound` is not a bucket bound.
constexpr int bucket_of_bound(int64_t bound) {
  const int b = m_bucket(bound);
  return b >= 0 && bucket_bound(b) == bound ? b : -1;
}

// ---- the key -------------------------------------------------------------------------------------------

// The extents a table accepts: the arguments' own limits (arguments/common.hpp: M, N, K at most
// 2^31 - 1024, the batch 1 .. 65535; test_tuning checks they agree).
inline constexpr int64_t kMaxExtent = (int64_t{1} << 31) - 1024;
inline constexpr int64_t kMaxBatch = 65535;

// One call's key, as an entry point has it (M itself: the lookup takes its bucket).
struct Key {
  Operation op = Operation::kGemm;
  Element in = Element::kBf16;
  Element out = Element::kBf16;
  BLayout b_layout = BLayout::kColumnMajorKxN;
  int64_t m = 0, n = 0, k = 0, batch = 1;
};

// Whether a split / stream-K field is given, and which way.
enum class StreamK : int8_t { kUnspecified = -1, kOff = 0, kOn = 1 };

}  // namespace bwgemm::tuning
