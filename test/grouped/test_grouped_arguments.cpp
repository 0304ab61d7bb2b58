// The argument rules of the grouped operations (arguments/grouped_gemm.hpp, arguments/grouped_dual_gemm.hpp),
// each checked once on bwgemm::validate: a broken rule gives kInvalidArgument with a message naming the
// argument. Host logic only: the pointers are never dereferenced.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "bwgemm/arguments/grouped_dual_gemm.hpp"
#include "bwgemm/arguments/grouped_gemm.hpp"

namespace {

using bwgemm::Status;
using bwgemm::StatusCode;
using bf16 = __nv_bfloat16;
using f16 = __half;

template <class T>
T* at(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

template <class Args>
void expect_invalid(const Args& a, const std::string& fragment) {
  const Status s = bwgemm::validate(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << fragment << ": " << s.to_string();
  EXPECT_NE(s.message().find(fragment), std::string::npos)
      << "want \"" << fragment << "\", message: " << s.message();
}

template <class Args>
void expect_valid(const Args& a) {
  const Status s = bwgemm::validate(a);
  EXPECT_TRUE(s.ok()) << s.to_string();
}

// The addresses of a valid call: E = 4, N = 64, K = 128, 256 tokens (contiguous) or 64 per expert (masked).
// Every operand 16 MiB apart.
constexpr uintptr_t kA = 0x10000000, kAScales = 0x11000000, kB = 0x20000000, kBScales = 0x21000000,
                    kB2 = 0x22000000, kB2Scales = 0x23000000, kOut = 0x30000000, kOutScales = 0x31000000,
                    kMeta = 0x40000000, kAlpha1 = 0x41000000, kAlpha2 = 0x42000000, kGScale = 0x43000000,
                    kStatus = 0x44000000;
constexpr int64_t kE = 4, kN = 64, kK = 128, kTotal = 256, kMax = 64;

template <class Args>
void set_tokens(Args* a, bool masked) {
  a->tokens = masked ? bwgemm::masked_tokens(kMax, at<const int32_t>(kMeta))
                     : bwgemm::contiguous_tokens(kTotal, at<const int32_t>(kMeta));
  a->experts = kE, a->n = kN, a->k = kK;
}

bwgemm::GroupedGemmArguments<f16> gemm16(bool masked = false) {
  bwgemm::GroupedGemmArguments<f16> a;
  set_tokens(&a, masked);
  a.a = at<const f16>(kA), a.b = at<const f16>(kB), a.d = at<f16>(kOut);
  return a;
}

bwgemm::GroupedDualGemmArguments<bf16> dual16(bool masked = false) {
  bwgemm::GroupedDualGemmArguments<bf16> a;
  set_tokens(&a, masked);
  a.a = at<const bf16>(kA), a.b1 = at<const bf16>(kB), a.b2 = at<const bf16>(kB2), a.c = at<bf16>(kOut);
  return a;
}

bwgemm::Nvfp4GroupedGemmArguments<f16> gemm4(bool masked = false) {
  bwgemm::Nvfp4GroupedGemmArguments<f16> a;
  set_tokens(&a, masked);
  a.a = {at<const void>(kA), at<const void>(kAScales)};
  a.b = {at<const void>(kB), at<const void>(kBScales)};
  a.d = at<f16>(kOut);
  return a;
}

bwgemm::Nvfp4GroupedDualGemmArguments<bf16> dual4(bool masked = false) {
  bwgemm::Nvfp4GroupedDualGemmArguments<bf16> a;
  set_tokens(&a, masked);
  a.a = {at<const void>(kA), at<const void>(kAScales)};
  a.b1 = {at<const void>(kB), at<const void>(kBScales)};
  a.b2 = {at<const void>(kB2), at<const void>(kB2Scales)};
  a.c = at<bf16>(kOut);
  return a;
}

bwgemm::Nvfp4GroupedDualGemmArguments<bwgemm::Nvfp4Output> dual4out(bool masked = false) {
  bwgemm::Nvfp4GroupedDualGemmArguments<bwgemm::Nvfp4Output> a;
  set_tokens(&a, masked);
  a.a = {at<const void>(kA), at<const void>(kAScales)};
  a.b1 = {at<const void>(kB), at<const void>(kBScales)};
  a.b2 = {at<const void>(kB2), at<const void>(kB2Scales)};
  a.c = {at<void>(kOut), at<void>(kOutScales)};
  return a;
}

// ---- The rules every grouped operation shares: E, the tokens, the hint, the status word
// --------------------

template <class Maker>
void check_shared_rules(Maker make) {
  expect_valid(make(false));
  expect_valid(make(true));
  auto a = make(false);
  a.experts = 0;
  expect_invalid(a, "experts must be in [1, 65535] (got 0)");
  a = make(false), a.experts = 65536;
  expect_invalid(a, "experts must be in [1, 65535]");
  a = make(false), a.tokens.layout = static_cast<bwgemm::GroupedLayout>(5);
  expect_invalid(a, "tokens.layout is not a GroupedLayout");
  a = make(false), a.tokens.max_tokens = 8;
  expect_invalid(a, "max_tokens and counts are for the masked layout");
  a = make(true), a.tokens.offsets = at<const int32_t>(kMeta);
  expect_invalid(a, "total_tokens and offsets are for the contiguous layout");
  a = make(false), a.tokens.total_tokens = 0;
  expect_invalid(a, "total_tokens must be in [1, 2^31 - 1024]");
  a = make(false), a.tokens.total_tokens = int64_t{1} << 31;
  expect_invalid(a, "total_tokens must be in [1, 2^31 - 1024]");
  a = make(true), a.tokens.max_tokens = -1;
  expect_invalid(a, "max_tokens must be in [1, 2^31 - 1024]");
  a = make(false), a.tokens.offsets = nullptr;
  expect_invalid(a, "offsets is null");
  a = make(false), a.tokens.offsets = at<const int32_t>(kMeta + 2);
  expect_invalid(a, "offsets must be 4-byte aligned");
  a = make(true), a.tokens.counts = nullptr;
  expect_invalid(a, "counts is null");
  a = make(false), a.tokens.offsets = at<const int32_t>(UINTPTR_MAX - 7);
  expect_invalid(a, "offsets runs past the end of the address space");
  a = make(false), a.expected_tokens_per_expert = -1;
  expect_invalid(a, "expected_tokens_per_expert must be in [0, total_tokens]");
  a = make(true), a.expected_tokens_per_expert = kMax + 1;
  expect_invalid(a, "expected_tokens_per_expert must be in [0, max_tokens]");
  a = make(true), a.expected_tokens_per_expert = kMax;
  expect_valid(a);
  // The status word: optional, 4-byte aligned, apart from every other argument.
  a = make(false), a.status = at<uint32_t>(kStatus);
  expect_valid(a);
  a.status = at<uint32_t>(kStatus + 1);
  expect_invalid(a, "status must be 4-byte aligned");
  a = make(false), a.status = at<uint32_t>(UINTPTR_MAX - 3);
  expect_invalid(a, "status runs past the end of the address space");
  a = make(false), a.status = at<uint32_t>(kMeta + 4);
  expect_invalid(a, "status overlaps offsets");
  a = make(true), a.status = at<uint32_t>(kA + 64);
  expect_invalid(a, "status overlaps A");
  a = make(true), a.status = at<uint32_t>(kOut + 64);  // the output's own check names the pair first
  expect_invalid(a, "overlaps status");
}

TEST(GroupedArguments, SharedRulesOfEveryOperation) {
  {
    SCOPED_TRACE("GroupedGemmArguments");
    check_shared_rules(gemm16);
  }
  {
    SCOPED_TRACE("GroupedDualGemmArguments");
    check_shared_rules(dual16);
  }
  {
    SCOPED_TRACE("Nvfp4GroupedGemmArguments");
    check_shared_rules(gemm4);
  }
  {
    SCOPED_TRACE("Nvfp4GroupedDualGemmArguments");
    check_shared_rules(dual4);
  }
  {
    SCOPED_TRACE("Nvfp4GroupedDualGemmArguments<Nvfp4Output>");
    check_shared_rules(dual4out);
  }
}

// ---- 16-bit grouped GEMM
// ------------------------------------------------------------------------------------

TEST(GroupedGemmArguments, ValidCallsPass) {
  auto a = gemm16(true);
  a.lda = 136, a.a_expert_stride = 64 * 136 + 8, a.ldb = 128, a.b_expert_stride = 64 * 128 * 2;
  a.ldd = 72, a.d_expert_stride = 64 * 72;
  a.alpha = 0.5f, a.alpha_ptr = at<const float>(kAlpha1), a.status = at<uint32_t>(kStatus);
  a.expected_tokens_per_expert = 3;
  expect_valid(a);
  bwgemm::GroupedGemmArguments<bf16, float> f;
  f.tokens = bwgemm::contiguous_tokens(1, at<const int32_t>(kMeta));
  f.experts = 65535, f.n = 8, f.k = 8;
  f.a = at<const bf16>(kA), f.b = at<const bf16>(kB), f.d = at<float>(kOut);
  expect_valid(f);
}

TEST(GroupedGemmArguments, ShapesAndLeadingDimensions) {
  auto a = gemm16();
  a.n = 12;
  expect_invalid(a, "N must be a positive multiple of 8");
  a = gemm16(), a.k = 0;
  expect_invalid(a, "K must be a positive multiple of 8");
  a = gemm16(), a.k = int64_t{1} << 31;
  expect_invalid(a, "K must be at most 2^31 - 1024");
  a = gemm16(), a.lda = 120;
  expect_invalid(a, "lda must be >= K and a multiple of 8");
  a = gemm16(), a.lda = 132;
  expect_invalid(a, "lda must be >= K and a multiple of 8");
  a = gemm16(), a.lda = int64_t{1} << 39;
  expect_invalid(a, "lda must be below 2^40 bytes");
  a = gemm16(), a.ldb = 64;
  expect_invalid(a, "ldb must be >= K and a multiple of 8");
  a = gemm16(), a.ldd = 60;
  expect_invalid(a, "ldd must be >= N with 16-byte rows");
  a = gemm16(), a.ldd = 68;
  expect_invalid(a, "ldd must be >= N with 16-byte rows");
}

TEST(GroupedGemmArguments, ExpertStrides) {
  auto a = gemm16();
  a.a_expert_stride = 64 * 128;
  expect_invalid(a, "a_expert_stride is for the masked layout");
  a = gemm16(), a.d_expert_stride = 64 * 64;
  expect_invalid(a, "d_expert_stride is for the masked layout");
  a = gemm16(true), a.a_expert_stride = 63 * 128;
  expect_invalid(a, "a_expert_stride must be at least max_tokens · lda");
  a = gemm16(true), a.a_expert_stride = 64 * 128 + 4;
  expect_invalid(a, "a_expert_stride must be at least max_tokens · lda (one expert) and a multiple of 8");
  a = gemm16(true), a.d_expert_stride = 63 * 64;  // experts of D would overlap
  expect_invalid(a, "d_expert_stride must be at least max_tokens · ldd");
  a = gemm16(true), a.d_expert_stride = int64_t{1} << 39;
  expect_invalid(a, "d_expert_stride must be below 2^40 bytes");
  a = gemm16(), a.b_expert_stride = 64 * 128 - 8;
  expect_invalid(a, "b_expert_stride must be at least N · ldb");
  a = gemm16(), a.b_expert_stride = int64_t{1} << 39;
  expect_invalid(a, "b_expert_stride must be below 2^40 bytes");
  // The default max_tokens · lda overflows int64.
  a = gemm16(true), a.tokens.max_tokens = (int64_t{1} << 31) - 1024, a.lda = (int64_t{1} << 39) - 8;
  expect_invalid(a, "a_expert_stride: one expert's extent (max_tokens · lda) overflows int64");
}

TEST(GroupedGemmArguments, PointersSpansAndOverlaps) {
  auto a = gemm16();
  a.a = nullptr;
  expect_invalid(a, "A is null");
  a = gemm16(), a.b = at<const f16>(kB + 8);
  expect_invalid(a, "B must be 16-byte aligned");
  a = gemm16(), a.d = nullptr;
  expect_invalid(a, "D is null");
  // A's span: 2^31 - 1024 tokens of 2^38 - 8 elements.
  a = gemm16(), a.tokens.total_tokens = (int64_t{1} << 31) - 1024, a.lda = (int64_t{1} << 38) - 8;
  expect_invalid(a, "A spans more than 2^56 bytes");
  a = gemm16(), a.b = at<const f16>(UINTPTR_MAX - 0xFFFF);
  expect_invalid(a, "B runs past the end of the address space");
  // D: 256 x 64 halves = 32 KiB from kOut, apart from A, B, the metadata and alpha_ptr.
  a = gemm16(), a.d = at<f16>(kA + 256 * 128 * 2 - 16);
  expect_invalid(a, "D overlaps A");
  a = gemm16(), a.d = at<f16>(kA + 256 * 128 * 2);
  expect_valid(a);
  a = gemm16(), a.b = at<const f16>(kOut + 32768 - 16);
  expect_invalid(a, "D overlaps B");
  a = gemm16(), a.tokens.offsets = at<const int32_t>(kOut + 32768 - 4);
  expect_invalid(a, "D overlaps offsets");
  a = gemm16(), a.tokens.offsets = at<const int32_t>(kOut + 32768);
  expect_valid(a);
  a = gemm16(true), a.tokens.counts = at<const int32_t>(kOut + 4 * 64 * 64 * 2 - 4);
  expect_invalid(a, "D overlaps counts");
  a = gemm16(), a.alpha_ptr = at<const float>(kOut - 12);  // E = 4 floats: the last one is D's first
  expect_invalid(a, "D overlaps alpha_ptr");
  a = gemm16(), a.alpha_ptr = at<const float>(kOut - 16);
  expect_valid(a);
}

TEST(GroupedGemmArguments, Scales) {
  auto a = gemm16();
  a.alpha = std::nanf("");
  expect_invalid(a, "alpha must be finite");
  a = gemm16(), a.alpha_ptr = at<const float>(kAlpha1 + 2);
  expect_invalid(a, "alpha_ptr must be 4-byte aligned");
}

// ---- 16-bit grouped dual GEMM
// -------------------------------------------------------------------------------

TEST(GroupedDualGemmArguments, Rules) {
  auto a = dual16(true);
  a.ldb = 128, a.b_expert_stride = 2 * 64 * 128;  // gate and up: two views of one [E, 2N, K]
  a.b2 = at<const bf16>(kB + 64 * 128 * 2);
  a.alpha1_ptr = at<const float>(kAlpha1), a.alpha2_ptr = at<const float>(kAlpha2);
  expect_valid(a);
  a = dual16(), a.b1 = nullptr;
  expect_invalid(a, "B1 is null");
  a = dual16(), a.b2 = at<const bf16>(kB2 + 2);
  expect_invalid(a, "B2 must be 16-byte aligned");
  a = dual16(), a.c = nullptr;
  expect_invalid(a, "C is null");
  a = dual16(), a.ldc = 70;
  expect_invalid(a, "ldc must be >= N with 16-byte rows");
  a = dual16(true), a.c_expert_stride = 64 * 64 - 8;
  expect_invalid(a, "c_expert_stride must be at least max_tokens · ldc");
  a = dual16(), a.c_expert_stride = 64 * 64;
  expect_invalid(a, "c_expert_stride is for the masked layout");
  a = dual16(), a.b_expert_stride = 100;
  expect_invalid(a, "b_expert_stride must be at least N · ldb");
  a = dual16(), a.b2 = at<const bf16>(kOut + 16);
  expect_invalid(a, "C overlaps B2");
  a = dual16(), a.alpha2 = INFINITY;
  expect_invalid(a, "alpha2 must be finite");
  a = dual16(), a.alpha1_ptr = at<const float>(kAlpha1 + 1);
  expect_invalid(a, "alpha1_ptr must be 4-byte aligned");
  a = dual16(), a.alpha2_ptr = at<const float>(kOut + 64);
  expect_invalid(a, "C overlaps alpha2_ptr");
}

// ---- NVFP4 grouped GEMM
// -------------------------------------------------------------------------------------

// Contiguous A's scales: round_up(256 + 127 · 4, 128) = 768 rows of K/16 = 8 scale columns (2 atom columns):
// 6 · 2 · 512 = 6144 bytes. Masked: 4 experts of blocked_scale_bytes(64, 8) = 1024 bytes.
constexpr int64_t kAScaleBytes = 6144, kMaskedAScaleBytes = 4096;

TEST(Nvfp4GroupedGemmArguments, Rules) {
  static_assert(bwgemm::grouped::grouped_scale_rows(kTotal, kE) == 768);
  auto a = gemm4();
  a.n = 24;
  expect_invalid(a, "N must be a positive multiple of 16");
  a = gemm4(), a.k = 96;
  expect_invalid(a, "K must be a positive multiple of 64");
  a = gemm4(), a.a.scales = nullptr;
  expect_invalid(a, "A scales is null");
  a = gemm4(), a.a.data = at<const void>(kA + 8);
  expect_invalid(a, "A data must be 16-byte aligned");
  a = gemm4(), a.b.data = nullptr;
  expect_invalid(a, "B data is null");
  a = gemm4(), a.b_data_expert_stride = 64 * 64 - 16;
  expect_invalid(a, "b_data_expert_stride must be at least N · K / 2 bytes");
  a = gemm4(), a.b_data_expert_stride = 64 * 64 + 8;
  expect_invalid(a,
                 "b_data_expert_stride must be at least N · K / 2 bytes (one expert) and a multiple of 16");
  a = gemm4(), a.b_scales_expert_stride = 512;  // one expert: blocked_scale_bytes(64, 8) = 1024
  expect_invalid(a, "b_scales_expert_stride must be at least blocked_scale_bytes(N, K / 16)");
  a = gemm4(), a.b_scales_expert_stride = int64_t{1} << 40;
  expect_invalid(a, "b_scales_expert_stride must be below 2^40 bytes");
  a = gemm4(), a.ldd = 8;
  expect_invalid(a, "ldd must be >= N");
  // A's scale buffer is sized for the worst case: D right after it is fine, 16 bytes inside is not.
  a = gemm4(), a.d = at<f16>(kAScales + kAScaleBytes);
  expect_valid(a);
  a = gemm4(), a.d = at<f16>(kAScales + kAScaleBytes - 16);
  expect_invalid(a, "D overlaps A scales");
  a = gemm4(true), a.d = at<f16>(kAScales + kMaskedAScaleBytes);
  expect_valid(a);
  a = gemm4(true), a.d = at<f16>(kAScales + kMaskedAScaleBytes - 16);
  expect_invalid(a, "D overlaps A scales");
  // A's data: 256 x 64 bytes; B's: 4 experts of 64 x 64 bytes, scales 4 x 1024.
  a = gemm4(), a.d = at<f16>(kA + 256 * 64 - 16);
  expect_invalid(a, "D overlaps A data");
  a = gemm4(), a.d = at<f16>(kB + 4 * 64 * 64 - 16);
  expect_invalid(a, "D overlaps B data");
  a = gemm4(), a.d = at<f16>(kBScales + 4 * 1024 - 16);
  expect_invalid(a, "D overlaps B scales");
  a = gemm4(), a.d = at<f16>(kBScales + 4 * 1024);
  expect_valid(a);
  // The largest contiguous A: 2^31 - 1024 tokens of K = 2^31 - 1024 (2^61 bytes of data).
  a = gemm4(), a.tokens.total_tokens = (int64_t{1} << 31) - 1024, a.k = (int64_t{1} << 31) - 1024;
  expect_invalid(a, "A data spans more than 2^56 bytes");
  // Masked A's slab of one expert: below 2^40 bytes (the dense operand's batch rule).
  a = gemm4(true), a.tokens.max_tokens = int64_t{1} << 30, a.k = int64_t{1} << 12;
  expect_invalid(a, "A data: one batch (rows x K / 2 bytes) must be below 2^40 bytes");
  a = gemm4(), a.alpha = -INFINITY;
  expect_invalid(a, "alpha must be finite");
}

// ---- NVFP4 grouped dual GEMM
// --------------------------------------------------------------------------------

TEST(Nvfp4GroupedDualGemmArguments, Rules) {
  auto a = dual4();
  // Gate and up as two views of one [E, 2N, K] with N = 128: B2 N rows on, in data and in scales.
  a.n = 128;
  a.b2 = {at<const void>(kB + 128 * 64), at<const void>(kBScales + bwgemm::blocked_scale_bytes(128, 8))};
  a.b_data_expert_stride = 2 * 128 * 64, a.b_scales_expert_stride = bwgemm::blocked_scale_bytes(256, 8);
  expect_valid(a);
  a = dual4(), a.b2.scales = nullptr;
  expect_invalid(a, "B2 scales is null");
  a = dual4(), a.b1.data = at<const void>(kB + 4);
  expect_invalid(a, "B1 data must be 16-byte aligned");
  a = dual4(), a.c = at<bf16>(kB2Scales + 16);
  expect_invalid(a, "C overlaps B2 scales");
  a = dual4(), a.c = at<bf16>(kOut + 2);
  expect_invalid(a, "C must be 16-byte aligned");
  a = dual4(true), a.c_expert_stride = 8;
  expect_invalid(a, "c_expert_stride must be at least max_tokens · ldc");
  a = dual4(), a.alpha1 = std::nanf("");
  expect_invalid(a, "alpha1 must be finite");
  a = dual4(), a.alpha1_ptr = at<const float>(kOut + 4);
  expect_invalid(a, "C overlaps alpha1_ptr");
}

TEST(Nvfp4GroupedDualGemmArguments, Nvfp4Output) {
  // C's scales, contiguous: 768 rows of N/16 = 4 scale columns: 6 atoms = 3072 bytes; masked: 4 x 512.
  auto a = dual4out();
  a.c.scales = at<void>(kOut + 256 * 32);  // right after C's data (256 x 32 bytes)
  a.c_global_scale = 0.25f, a.c_global_scale_ptr = at<const float>(kGScale);
  a.alpha1_ptr = at<const float>(kAlpha1), a.alpha2_ptr = at<const float>(kAlpha2);
  expect_valid(a);
  a.c.scales = at<void>(kOut + 256 * 32 - 16);
  expect_invalid(a, "C data overlaps C scales");
  a = dual4out(), a.c.data = nullptr;
  expect_invalid(a, "C data is null");
  a = dual4out(), a.c.scales = at<void>(kOutScales + 4);
  expect_invalid(a, "C scales must be 16-byte aligned");
  a = dual4out(), a.tokens.offsets = at<const int32_t>(kOutScales + 3072 - 4);
  expect_invalid(a, "C scales overlaps offsets");
  a = dual4out(), a.tokens.offsets = at<const int32_t>(kOutScales + 3072);
  expect_valid(a);
  a = dual4out(true), a.tokens.counts = at<const int32_t>(kOutScales + 2048 - 4);
  expect_invalid(a, "C scales overlaps counts");
  a = dual4out(), a.c.data = at<void>(kA + 16);
  expect_invalid(a, "C data overlaps A data");
  a = dual4out(), a.c_global_scale = 0.0f;
  expect_invalid(a, "c_global_scale must be finite and > 0");
  a = dual4out(), a.c_global_scale = INFINITY;
  expect_invalid(a, "c_global_scale must be finite and > 0");
  a = dual4out(), a.c_global_scale_ptr = at<const float>(kGScale + 2);
  expect_invalid(a, "c_global_scale_ptr must be 4-byte aligned");
  a = dual4out(), a.c_global_scale_ptr = at<const float>(kOutScales + 3072 - 8);
  expect_invalid(a, "C scales overlaps c_global_scale_ptr");
  a = dual4out(), a.alpha2_ptr = at<const float>(kOut);
  expect_invalid(a, "C data overlaps alpha2_ptr");
  a = dual4out(), a.status = at<uint32_t>(kOutScales);
  expect_invalid(a, "C scales overlaps status");
}

// ---- The device memory each call names (checked by the entry points with require_device_pointers)
// ----------

TEST(GroupedArguments, DeviceOperandsNameEveryDevicePointer) {
  auto names = [](const bwgemm::host::OperandPointers& ops) {
    std::string s;
    for (int i = 0; i < ops.count; ++i) s += std::string(i ? "," : "") + ops.entries[i].name;
    return s;
  };
  auto g = gemm16(true);
  EXPECT_EQ(names(bwgemm::device_operands(g)), "A,B,D,counts");
  g.alpha_ptr = at<const float>(kAlpha1), g.status = at<uint32_t>(kStatus);
  EXPECT_EQ(names(bwgemm::device_operands(g)), "A,B,D,counts,alpha_ptr,status");
  EXPECT_EQ(names(bwgemm::device_operands(dual16())), "A,B1,B2,C,offsets");
  EXPECT_EQ(names(bwgemm::device_operands(gemm4())), "A data,A scales,B data,B scales,D,offsets");
  EXPECT_EQ(names(bwgemm::device_operands(dual4())),
            "A data,A scales,B1 data,B1 scales,B2 data,B2 scales,C,offsets");
  auto o = dual4out();
  o.alpha1_ptr = at<const float>(kAlpha1), o.alpha2_ptr = at<const float>(kAlpha2);
  o.c_global_scale_ptr = at<const float>(kGScale), o.status = at<uint32_t>(kStatus);
  EXPECT_EQ(
      names(bwgemm::device_operands(o)),
      "A data,A scales,B1 data,B1 scales,B2 data,B2 scales,C data,C scales,offsets,alpha1_ptr,alpha2_ptr,"
      "c_global_scale_ptr,status");
}

}  // namespace
