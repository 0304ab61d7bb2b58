// The argument rules of every operation (arguments/*.hpp), checked on bwgemm::validate, which every entry
// point of every backend runs first: each broken rule gives kInvalidArgument with a message that names the
// argument. Host logic only: the pointers are never dereferenced.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "bwgemm/formats/nvfp4.cuh"

namespace {

using bwgemm::BLayout;
using bwgemm::Status;
using bwgemm::StatusCode;
using bf16 = __nv_bfloat16;
using f16 = __half;

template <class T>
T* fake_pointer(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

template <class Args>
void expect_invalid(const Args& a, const std::string& fragment) {
  const Status s = bwgemm::validate(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << fragment << ": " << s.to_string();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << "message: " << s.message();
}

// ---- GEMM ---------------------------------------------------------------------------------------------

bwgemm::GemmArguments<f16, f16> valid_gemm() {
  bwgemm::GemmArguments<f16, f16> a;
  a.m = 128, a.n = 128, a.k = 64;
  a.a = fake_pointer<const f16>(0x100000);
  a.b = fake_pointer<const f16>(0x200000);
  a.d = fake_pointer<f16>(0x400000);
  return a;
}

TEST(GemmArguments, ValidCallsPass) {
  EXPECT_TRUE(bwgemm::validate(valid_gemm()).ok());
  auto a = valid_gemm();
  a.b_layout = BLayout::kColumnMajorKxN;
  EXPECT_TRUE(bwgemm::validate(a).ok());
  a = valid_gemm(), a.epilogue.alpha = 2.0f;  // beta == 0 reads no C: a null C is fine
  EXPECT_TRUE(bwgemm::validate(a).ok());
  a = valid_gemm(), a.batch = 3, a.lda = 72, a.ldd = 136;
  EXPECT_TRUE(bwgemm::validate(a).ok());
}

TEST(GemmArguments, Shapes) {
  auto a = valid_gemm();
  a.m = 0;
  expect_invalid(a, "M must be");
  a = valid_gemm(), a.m = -8;
  expect_invalid(a, "M must be >= 1");
  a = valid_gemm(), a.m = 1;  // any M: rows past M are masked
  EXPECT_TRUE(bwgemm::validate(a).ok());
  a.m = 100;
  EXPECT_TRUE(bwgemm::validate(a).ok());
  a = valid_gemm(), a.n = 20;
  expect_invalid(a, "N must be");
  a = valid_gemm(), a.k = 60;
  expect_invalid(a, "K must be");
  a = valid_gemm(), a.k = 12;
  expect_invalid(a, "K must be");
  a = valid_gemm(), a.batch = 0;
  expect_invalid(a, "batch");
  a = valid_gemm(), a.batch = 65536;
  expect_invalid(a, "batch");
  a = valid_gemm(), a.m = int64_t{1} << 31;
  expect_invalid(a, "M must be at most 2^31 - 1024");
  a = valid_gemm(), a.b_layout = static_cast<BLayout>(7);
  expect_invalid(a, "b_layout");
}

TEST(GemmArguments, LeadingDimensionsAndBatchStrides) {
  auto a = valid_gemm();
  a.lda = 32;
  expect_invalid(a, "lda");
  a = valid_gemm(), a.lda = 68;
  expect_invalid(a, "lda");
  a = valid_gemm(), a.b_layout = BLayout::kColumnMajorKxN, a.ldb = 32;
  expect_invalid(a, "ldb");
  a = valid_gemm(), a.ldb = 64;
  expect_invalid(a, "ldb");
  a = valid_gemm(), a.ldd = 100;
  expect_invalid(a, "ldd");
  a = valid_gemm(), a.ldd = 130;
  expect_invalid(a, "ldd");
  a = valid_gemm(), a.batch = 2, a.batch_stride_d = 64;
  expect_invalid(a, "batch_stride_d");
  a = valid_gemm(), a.batch = 2, a.batch_stride_a = 12;
  expect_invalid(a, "batch_stride_a");
}

TEST(GemmArguments, PointersAndScalars) {
  auto a = valid_gemm();
  a.a = nullptr;
  expect_invalid(a, "A is null");
  a = valid_gemm(), a.b = fake_pointer<const f16>(0x200008);
  expect_invalid(a, "B must be 16-byte aligned");
  a = valid_gemm(), a.d = fake_pointer<f16>(0x400008);
  expect_invalid(a, "D must be 16-byte aligned");
  a = valid_gemm(), a.epilogue.beta = 1.0f;
  expect_invalid(a, "C is null but the epilogue reads it");
  a = valid_gemm(), a.epilogue.alpha = std::nanf("");
  expect_invalid(a, "alpha");
  a = valid_gemm(), a.epilogue.beta = INFINITY, a.c = fake_pointer<const f16>(0x300000);
  expect_invalid(a, "alpha and beta");
}

// The optional workspace (the sm_90a stream-K kernels' scratch): a size >= 0; with a positive size a
// 16-byte-aligned pointer, no address wrap and no overlap with any operand or device scale; size 0 is no
// workspace, whatever the pointer (so a caller may pass its buffer with the size a call asks for, 0 too).
TEST(GemmArguments, Workspace) {
  auto a = valid_gemm();
  a.workspace = fake_pointer<void>(0x800000), a.workspace_bytes = 1 << 20;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a = valid_gemm(), a.workspace_bytes = -1;
  expect_invalid(a, "workspace_bytes must be >= 0");
  a = valid_gemm(), a.workspace_bytes = 256;
  expect_invalid(a, "workspace is null but workspace_bytes > 0");
  a = valid_gemm(), a.workspace = fake_pointer<void>(0x800008), a.workspace_bytes = 256;
  expect_invalid(a, "workspace must be 16-byte aligned");
  a = valid_gemm(), a.workspace = fake_pointer<void>(0x800000);  // size 0: no workspace, whatever the pointer
  EXPECT_TRUE(bwgemm::validate(a).ok());
  a.workspace = fake_pointer<void>(0x400000);  // (so it is not checked against the operands either)
  EXPECT_TRUE(bwgemm::validate(a).ok());
  a = valid_gemm(), a.workspace = fake_pointer<void>(0x400000 + 256), a.workspace_bytes = 256;
  expect_invalid(a, "workspace overlaps D");
  a = valid_gemm(), a.workspace = fake_pointer<void>(0x100000 - 128), a.workspace_bytes = 256;
  expect_invalid(a, "workspace overlaps A");
  a = valid_gemm(), a.workspace = fake_pointer<void>(0x200000 + 1024), a.workspace_bytes = 16;
  expect_invalid(a, "workspace overlaps B");
  a = valid_gemm(), a.c = fake_pointer<const f16>(0x300000), a.epilogue.beta = 1.0f;
  a.workspace = fake_pointer<void>(0x300000), a.workspace_bytes = 16;
  expect_invalid(a, "workspace overlaps C");
  a.epilogue.beta = 0.0f;  // C not read: a workspace over it is fine
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a = valid_gemm(), a.epilogue.alpha_ptr = fake_pointer<const float>(0x900004);
  a.workspace = fake_pointer<void>(0x900000), a.workspace_bytes = 64;
  expect_invalid(a, "workspace overlaps alpha_ptr");
  a = valid_gemm(), a.workspace = fake_pointer<void>(UINTPTR_MAX - 255), a.workspace_bytes = 1024;
  expect_invalid(a, "wraps around the address space");
}

TEST(GemmArguments, OutputTypesKeepTheirRowAlignment) {
  bwgemm::GemmArguments<bf16, float> a;  // fp32 D: 16-byte rows at multiples of 4 elements
  a.m = 128, a.n = 132, a.k = 64;
  a.a = fake_pointer<const bf16>(0x100000);
  a.b = fake_pointer<const bf16>(0x200000);
  a.d = fake_pointer<float>(0x400000);
  a.n = 136, a.ldb = 136, a.ldd = 140;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a.ldd = 138;
  expect_invalid(a, "ldd");
}

// ---- 16-bit dual GEMM ---------------------------------------------------------------------------------

bwgemm::DualGemmArguments<bf16, bf16> valid_dual() {
  bwgemm::DualGemmArguments<bf16, bf16> a;
  a.m = 256, a.n = 256, a.k = 256;
  a.a = fake_pointer<const bf16>(0x100000);
  a.b1 = fake_pointer<const bf16>(0x200000);
  a.b2 = fake_pointer<const bf16>(0x300000);
  a.c = fake_pointer<bf16>(0x400000);
  return a;
}

TEST(DualGemmArguments, ValidCallsPass) {
  EXPECT_TRUE(bwgemm::validate(valid_dual()).ok());
  auto a = valid_dual();
  a.m = 1, a.n = 77, a.k = 13, a.lda = 16, a.ldb = 16, a.ldc = 80;  // any M, N, K >= 1
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
}

TEST(DualGemmArguments, Shapes) {
  auto a = valid_dual();
  a.m = 0;
  expect_invalid(a, "M must be");
  a = valid_dual(), a.n = -1;
  expect_invalid(a, "N must be");
  a = valid_dual(), a.k = 0;
  expect_invalid(a, "K must be");
  a = valid_dual(), a.batch = 0;
  expect_invalid(a, "batch");
  a = valid_dual(), a.k = int64_t{1} << 31, a.lda = a.ldb = a.k;
  expect_invalid(a, "K must be at most 2^31 - 1024");
}

// The dual GEMM's optional workspace (the sm_90a swap-AB stream-K scratch) under the GEMM's rules: size >= 0,
// with a positive size an aligned pointer, no wrap, no overlap with A, B1, B2, C or a device scale; size 0 is
// none, whatever the pointer.
TEST(DualGemmArguments, Workspace) {
  auto a = valid_dual();
  a.workspace = fake_pointer<void>(0x800000), a.workspace_bytes = 1 << 20;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a = valid_dual(), a.workspace_bytes = -1;
  expect_invalid(a, "workspace_bytes must be >= 0");
  a = valid_dual(), a.workspace_bytes = 256;
  expect_invalid(a, "workspace is null but workspace_bytes > 0");
  a = valid_dual(), a.workspace = fake_pointer<void>(0x800008), a.workspace_bytes = 256;
  expect_invalid(a, "workspace must be 16-byte aligned");
  a = valid_dual(), a.workspace = fake_pointer<void>(0x400000);  // size 0: no workspace, whatever the pointer
  EXPECT_TRUE(bwgemm::validate(a).ok());
  const struct {
    uintptr_t at;
    const char* name;
  } over[] = {{0x100000 + 512, "A"}, {0x200000 - 16, "B1"}, {0x300000 + 4096, "B2"}, {0x400000 + 64, "C"}};
  for (const auto& o : over) {
    a = valid_dual(), a.workspace = fake_pointer<void>(o.at), a.workspace_bytes = 256;
    expect_invalid(a, (std::string("workspace overlaps ") + o.name).c_str());
  }
  a = valid_dual(), a.alpha2_ptr = fake_pointer<const float>(0x900010);
  a.workspace = fake_pointer<void>(0x900000), a.workspace_bytes = 32;
  expect_invalid(a, "workspace overlaps alpha2_ptr");
  a = valid_dual(), a.workspace = fake_pointer<void>(UINTPTR_MAX - 255), a.workspace_bytes = 1024;
  expect_invalid(a, "wraps around the address space");
}

TEST(DualGemmArguments, LeadingDimensions) {
  auto a = valid_dual();
  a.lda = 128;  // < K
  expect_invalid(a, "lda");
  a = valid_dual(), a.lda = 260;  // not 16-byte rows
  expect_invalid(a, "lda");
  a = valid_dual(), a.ldb = 100;
  expect_invalid(a, "ldb");
  a = valid_dual(), a.ldc = 200;
  expect_invalid(a, "ldc");
  a = valid_dual(), a.ldc = 258;
  expect_invalid(a, "ldc");
}

TEST(DualGemmArguments, PointersAndScalars) {
  auto a = valid_dual();
  a.a = nullptr;
  expect_invalid(a, "A is null");
  a = valid_dual(), a.b2 = nullptr;
  expect_invalid(a, "B2 is null");
  a = valid_dual(), a.c = fake_pointer<bf16>(0x400008);
  expect_invalid(a, "C must be 16-byte aligned");
  a = valid_dual(), a.alpha1 = std::nanf("");
  expect_invalid(a, "alpha");
  a = valid_dual(), a.alpha2 = INFINITY;
  expect_invalid(a, "alpha");
}

// ---- NVFP4 dual GEMM ----------------------------------------------------------------------------------

bwgemm::Nvfp4DualGemmArguments<f16> valid_nvfp4() {
  bwgemm::Nvfp4DualGemmArguments<f16> a;
  a.m = 128, a.n = 128, a.k = 256;
  const void* p = fake_pointer<const void>(0x100000);
  a.a = a.b1 = a.b2 = {p, p};
  a.c = fake_pointer<f16>(0x400000);
  return a;
}

TEST(Nvfp4DualGemmArguments, ValidCallsPass) {
  EXPECT_TRUE(bwgemm::validate(valid_nvfp4()).ok());
  auto a = valid_nvfp4();
  a.m = 1, a.n = 16, a.k = 64, a.ldc = 24;
  EXPECT_TRUE(bwgemm::validate(a).ok());
}

// The typed form holds the toolkit-typed pointers unchanged and validates like the raw one (that a wrong
// element type does not compile: ctest arguments.nvfp4_typed_operands).
TEST(Nvfp4DualGemmArguments, TypedOperandsKeepTheirPointers) {
  const auto* data = fake_pointer<const __nv_fp4x2_e2m1>(0x100000);
  const auto* scales = fake_pointer<const __nv_fp8_e4m3>(0x200000);
  const bwgemm::Nvfp4Tensor t = bwgemm::nvfp4_tensor(data, scales);
  EXPECT_EQ(t.data, static_cast<const void*>(data));
  EXPECT_EQ(t.scales, static_cast<const void*>(scales));
  auto a = valid_nvfp4();
  a.a = a.b1 = a.b2 = t;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
}

TEST(Nvfp4DualGemmArguments, ShapesAndStrides) {
  auto a = valid_nvfp4();
  a.m = 0;
  expect_invalid(a, "M must be");
  a = valid_nvfp4(), a.n = 120;
  expect_invalid(a, "N must be");
  a = valid_nvfp4(), a.k = 96;
  expect_invalid(a, "K must be");
  a = valid_nvfp4(), a.batch = 0;
  expect_invalid(a, "batch");
  a = valid_nvfp4(), a.ldc = 100;
  expect_invalid(a, "ldc");
  a = valid_nvfp4(), a.ldc = 132;
  expect_invalid(a, "ldc");
}

TEST(Nvfp4DualGemmArguments, PointersAndScalars) {
  auto a = valid_nvfp4();
  a.b1.scales = nullptr;
  expect_invalid(a, "B1 scales is null");
  a = valid_nvfp4(), a.a.data = fake_pointer<const void>(0x100008);
  expect_invalid(a, "A data must be 16-byte aligned");
  a = valid_nvfp4(), a.c = nullptr;
  expect_invalid(a, "C is null");
  a = valid_nvfp4(), a.alpha2 = std::nanf("");
  expect_invalid(a, "alpha");
}

// ---- NVFP4 GEMM: the NVFP4 dual GEMM's rules and messages, with D and an optional C --------------------

bwgemm::Nvfp4GemmArguments<f16> valid_nvfp4_gemm() {
  bwgemm::Nvfp4GemmArguments<f16> a;
  a.m = 128, a.n = 128, a.k = 256;
  const void* p = fake_pointer<const void>(0x100000);
  a.a = a.b = {p, p};
  a.d = fake_pointer<f16>(0x400000);
  return a;
}

TEST(Nvfp4GemmArguments, ValidCallsPass) {
  EXPECT_TRUE(bwgemm::validate(valid_nvfp4_gemm()).ok());
  auto a = valid_nvfp4_gemm();
  a.m = 1, a.n = 16, a.k = 64, a.ldd = 24;
  EXPECT_TRUE(bwgemm::validate(a).ok());
  a = valid_nvfp4_gemm(), a.epilogue = {0.5f, 1.0f}, a.c = fake_pointer<const f16>(0x500000), a.ldc = 136;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a = valid_nvfp4_gemm(), a.ldc = 3;  // beta 0: C and ldc are not looked at
  EXPECT_TRUE(bwgemm::validate(a).ok());
  bwgemm::Nvfp4GemmArguments<float> f;
  f.m = 100, f.n = 48, f.k = 128, f.batch = 3;
  f.a = f.b = {fake_pointer<const void>(0x100000), fake_pointer<const void>(0x100000)};
  f.d = fake_pointer<float>(0x400000);
  EXPECT_TRUE(bwgemm::validate(f).ok());
}

TEST(Nvfp4GemmArguments, ShapesAndStrides) {
  auto a = valid_nvfp4_gemm();
  a.m = 0;
  expect_invalid(a, "M must be");
  a = valid_nvfp4_gemm(), a.n = 120;
  expect_invalid(a, "N must be");
  a = valid_nvfp4_gemm(), a.k = 96;
  expect_invalid(a, "K must be");
  a = valid_nvfp4_gemm(), a.batch = 0;
  expect_invalid(a, "batch");
  a = valid_nvfp4_gemm(), a.ldd = 100;
  expect_invalid(a, "ldd");
  a = valid_nvfp4_gemm(), a.ldd = 132;
  expect_invalid(a, "ldd");
  a = valid_nvfp4_gemm(), a.epilogue.beta = 1.0f, a.c = fake_pointer<const f16>(0x500000), a.ldc = 132;
  expect_invalid(a, "ldc");
  a = valid_nvfp4_gemm(), a.k = int64_t{1} << 31;
  expect_invalid(a, "K must be at most 2^31 - 1024");
  a = valid_nvfp4_gemm(), a.ldd = INT64_MAX - 7;
  expect_invalid(a, "ldd must be below 2^40 bytes");
}

TEST(Nvfp4GemmArguments, PointersScalarsAndAliasing) {
  auto a = valid_nvfp4_gemm();
  a.b.scales = nullptr;
  expect_invalid(a, "B scales is null");
  a = valid_nvfp4_gemm(), a.a.data = fake_pointer<const void>(0x100008);
  expect_invalid(a, "A data must be 16-byte aligned");
  a = valid_nvfp4_gemm(), a.d = nullptr;
  expect_invalid(a, "D is null");
  a = valid_nvfp4_gemm(), a.epilogue.beta = 0.5f;
  expect_invalid(a, "C is null but the epilogue reads it");
  a = valid_nvfp4_gemm(), a.epilogue.alpha = std::nanf("");
  expect_invalid(a, "alpha");
  a = valid_nvfp4_gemm(), a.d = fake_pointer<f16>(0x100000 + 512);  // inside A's data and scales
  expect_invalid(a, "D overlaps A data");
  // In place (C == D, the same row stride) is allowed; the same memory with another stride is not.
  a = valid_nvfp4_gemm(), a.epilogue.beta = 1.0f, a.c = a.d;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a.ldc = 136;
  expect_invalid(a, "D overlaps C");
}

// Products past int64 and past TMA's stride limit: one batch of B's packed data (N x K / 2 bytes) and of
// D (M x ldd) are checked, not wrapped.
TEST(Nvfp4GemmArguments, OverflowingProductsAreRefused) {
  auto a = valid_nvfp4_gemm();
  a.n = (int64_t{1} << 31) - 1024, a.k = (int64_t{1} << 31) - 1024;
  expect_invalid(a, "B data: one batch (rows x K / 2 bytes) must be below 2^40 bytes");
  a = valid_nvfp4_gemm(), a.m = (int64_t{1} << 31) - 1024, a.ldd = (int64_t{1} << 38);
  a.batch = 65535;
  expect_invalid(a, "the batch stride of D");
}

// NVFP4 D (Out = Nvfp4Output): D's two buffers instead of a pointer and ldd, its global scale,
// and no C.
bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output> valid_nvfp4_gemm_nvfp4_out() {
  bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output> a;
  a.m = 128, a.n = 128, a.k = 256;
  const void* p = fake_pointer<const void>(0x100000);
  a.a = a.b = {p, p};
  a.d = {fake_pointer<void>(0x400000), fake_pointer<void>(0x500000)};  // 8 KB of data, one 512-byte atom
  a.d_global_scale = 0.25f;
  return a;
}

TEST(Nvfp4GemmArguments, Nvfp4OutputRules) {
  EXPECT_TRUE(bwgemm::validate(valid_nvfp4_gemm_nvfp4_out()).ok());
  auto a = valid_nvfp4_gemm_nvfp4_out();
  a.m = 1, a.n = 16, a.k = 64, a.batch = 3, a.epilogue.alpha = 0.5f;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a = valid_nvfp4_gemm_nvfp4_out(), a.n = 40;
  expect_invalid(a, "N must be a positive multiple of 16");
  a = valid_nvfp4_gemm_nvfp4_out(), a.epilogue.beta = 1.0f;
  expect_invalid(a, "beta must be 0 with an NVFP4 D");
  a = valid_nvfp4_gemm_nvfp4_out(), a.epilogue.alpha = INFINITY;
  expect_invalid(a, "alpha must be finite");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d_global_scale = 0.0f;
  expect_invalid(a, "d_global_scale must be finite and > 0");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d.data = nullptr;
  expect_invalid(a, "D data is null");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d.scales = fake_pointer<void>(0x500004);
  expect_invalid(a, "D scales must be 16-byte aligned");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d.scales = fake_pointer<void>(0x400000 + 8192 - 16);  // D's last row
  expect_invalid(a, "D data overlaps D scales");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d.data = fake_pointer<void>(0x100000 + 512);  // inside A's data
  expect_invalid(a, "D data overlaps A data");
  a = valid_nvfp4_gemm_nvfp4_out(), a.m = a.n = int64_t{1} << 30, a.k = 64;  // 2^59 bytes of D data
  expect_invalid(a, "D data: one batch (M x N / 2 bytes) must be below 2^40 bytes");
}

// ---- TMA's 2^40-byte limit, on every stride of every operand and output of every operation ------------
// (docs/api.md, "Strides"). The GEMM's and the 16-bit dual GEMM's strides: SafetyRegression below. Each
// case: the largest value below the limit passes, the limit itself is refused by name. Far addresses keep
// the huge operands apart (no overlap).

constexpr uintptr_t kFar = uintptr_t{1} << 44, kFarther = uintptr_t{1} << 46;

// The NVFP4 GEMM's D and C (fp16: 2 bytes an element): their batch strides M · ldd and M · ldc.
TEST(StrideLimit, Nvfp4GemmBatchStridesOfDAndC) {
  auto a = valid_nvfp4_gemm();
  a.m = (int64_t{1} << 19) - 8, a.ldd = int64_t{1} << 20, a.d = fake_pointer<f16>(kFar);
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();  // 2^40 - 2^24 bytes
  a.m = int64_t{1} << 19;
  expect_invalid(a, "the batch stride of D (M · ldd) must be below 2^40 bytes");
  a = valid_nvfp4_gemm(), a.m = int64_t{1} << 19, a.d = fake_pointer<f16>(kFar);
  a.epilogue.beta = 1.0f, a.c = fake_pointer<const f16>(kFarther), a.ldc = int64_t{1} << 20;
  expect_invalid(a, "the batch stride of C (M · ldc) must be below 2^40 bytes");
  a.ldc = (int64_t{1} << 20) - 8;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
}

// The NVFP4 dual GEMM's fp16 C: its batch stride M · ldc (the 16-bit dual GEMM refuses the same shape).
TEST(StrideLimit, Nvfp4DualGemmBatchStrideOfC) {
  auto a = valid_nvfp4();
  a.m = int64_t{1} << 19, a.ldc = (int64_t{1} << 20) - 8, a.c = fake_pointer<f16>(kFar);
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a.ldc = int64_t{1} << 20;
  expect_invalid(a, "the batch stride of C (M · ldc) must be below 2^40 bytes");
  auto d = valid_dual();
  d.m = int64_t{1} << 19, d.ldc = int64_t{1} << 20, d.c = fake_pointer<bf16>(kFar);
  expect_invalid(d, "the batch stride of C (M · ldc) must be below 2^40 bytes");
}

// NVFP4 inputs and outputs: one batch of packed data (rows x K / 2, M x N / 2 bytes). (One batch of blocked
// scales is at most as large as the data's for every shape within the extent limits, so the data's limit
// is the one a call meets.)
TEST(StrideLimit, Nvfp4DataPerBatch) {
  auto a = valid_nvfp4_gemm();
  a.n = int64_t{1} << 21, a.k = int64_t{1} << 20;  // B: 2^40 bytes per batch
  a.b = {fake_pointer<const void>(kFar), fake_pointer<const void>(kFarther)};
  expect_invalid(a, "B data: one batch (rows x K / 2 bytes) must be below 2^40 bytes");
  a.k = (int64_t{1} << 20) - 64;
  a.d = fake_pointer<f16>(uintptr_t{1} << 47);
  a.a = {fake_pointer<const void>(uintptr_t{1} << 42), fake_pointer<const void>(uintptr_t{1} << 43)};
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  auto q = valid_nvfp4_gemm_nvfp4_out();
  q.m = int64_t{1} << 21, q.n = int64_t{1} << 20;  // D: 2^40 bytes per batch
  q.a = {fake_pointer<const void>(kFar), fake_pointer<const void>(kFar + (uintptr_t{1} << 40))};
  q.d = {fake_pointer<void>(kFarther), fake_pointer<void>(uintptr_t{1} << 47)};
  expect_invalid(q, "D data: one batch (M x N / 2 bytes) must be below 2^40 bytes");
  q.n -= 16;
  EXPECT_TRUE(bwgemm::validate(q).ok()) << bwgemm::validate(q).to_string();
  bwgemm::Nvfp4DualGemmArguments<bwgemm::Nvfp4Output> c;
  c.m = int64_t{1} << 21, c.n = int64_t{1} << 20, c.k = 256;
  c.a = c.b1 = c.b2 = {fake_pointer<const void>(0x100000), fake_pointer<const void>(0x100000)};
  c.a = {fake_pointer<const void>(kFar), fake_pointer<const void>(kFar + (uintptr_t{1} << 40))};
  c.c = {fake_pointer<void>(kFarther), fake_pointer<void>(uintptr_t{1} << 47)};
  expect_invalid(c, "C data: one batch (M x N / 2 bytes) must be below 2^40 bytes");
}

// The quantizer's x (ld and the batch stride rows · ld, in elements of T) and outputs under the same limit.
TEST(StrideLimit, Quantizer) {
  const auto* x = fake_pointer<const float>(0x100000);
  auto* packed = fake_pointer<uint8_t>(kFar);
  auto* scales = fake_pointer<uint8_t>(kFarther);
  const auto validate = [&](int64_t rows, int64_t k, int64_t batch, int64_t ld) {
    return bwgemm::validate_nvfp4_quantize(x, rows, k, batch, ld, 1.0f, packed, scales);
  };
  EXPECT_TRUE(validate(1, 64, 1, (int64_t{1} << 38) - 16).ok());  // 4-byte elements: 2^40 - 64 bytes
  const Status ld = validate(1, 64, 1, int64_t{1} << 38);
  EXPECT_NE(ld.message().find("ld must be below 2^40 bytes"), std::string::npos) << ld.to_string();
  const Status batch = validate(int64_t{1} << 20, 64, 2, int64_t{1} << 18);
  EXPECT_NE(batch.message().find("the batch stride of x (rows · ld) must be below 2^40 bytes"),
            std::string::npos)
      << batch.to_string();
  EXPECT_EQ(batch.code(), StatusCode::kInvalidArgument);
  // One row of K = 2^37 fp16 values: x and packed are small per batch, the blocked scales (rows padded to
  // 128) are 2^40 bytes.
  const auto* xh = fake_pointer<const f16>(0x100000);
  const int64_t k = int64_t{1} << 37;
  const Status s = bwgemm::validate_nvfp4_quantize(xh, 1, k, 1, k, 1.0f, packed, scales);
  EXPECT_NE(s.message().find("scales: one batch of blocked scales must be below 2^40 bytes"),
            std::string::npos)
      << s.to_string();
  EXPECT_TRUE(bwgemm::validate_nvfp4_quantize(xh, 1, k - 64, 1, k - 64, 1.0f, packed, scales).ok());
}

// ---- messages name the entry point called (base/entry_point.hpp) ---------------------------------------

// Inside bwgemm::gemm's scope a backend's device-pointer check names bwgemm::gemm, not its own class; the
// outermost scope wins (a backend entry point called by a public one), and a check with no scope open names
// itself (an explicit Config's run called directly). The fake pointer is device memory nowhere.
TEST(EntryPointNames, TheOutermostScopeNamesTheCall) {
  const bwgemm::host::OperandPointers operands = bwgemm::device_operands(valid_gemm());
  const auto message = [&] { return bwgemm::host::require_device_pointers(operands, "bwgemm::sm100::Gemm"); };
  EXPECT_NE(message().message().find("A of bwgemm::sm100::Gemm is not device-accessible memory"),
            std::string::npos)
      << message().to_string();
  {
    const bwgemm::detail::EntryPointScope entry("bwgemm::gemm");
    const bwgemm::detail::EntryPointScope inner("bwgemm::sm100::gemm");
    const Status s = message();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("A of bwgemm::gemm is not device-accessible memory"), std::string::npos)
        << s.to_string();
    EXPECT_EQ(s.message().find("sm100"), std::string::npos) << s.to_string();
  }
  EXPECT_STREQ(bwgemm::detail::entry_point_name("own name"), "own name");  // the scope closed
}

// ---- the global scales: any positive finite fp32, FLT_MAX included -------------------------------------

// The quantizer, and the NVFP4 outputs' c_global_scale / d_global_scale (the same rule and message).
TEST(GlobalScales, AnyPositiveFiniteValue) {
  std::vector<float> x(64);
  std::vector<uint8_t> packed(32), scales(512);
  const auto validate = [&](float g) {
    return bwgemm::validate_nvfp4_quantize(x.data(), 2, 16, 1, 16, g, packed.data(), scales.data());
  };
  for (float g : {FLT_MAX, 1.0f, FLT_MIN, std::nextafter(0.0f, 1.0f)})
    EXPECT_TRUE(validate(g).ok()) << g << ": " << validate(g).to_string();
  for (float g : {0.0f, -0.0f, -1.0f, INFINITY, -INFINITY, std::nanf("")}) {
    const Status s = validate(g);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << g;
    EXPECT_NE(s.message().find("global_scale must be finite and > 0"), std::string::npos) << s.message();
  }
  auto d = valid_nvfp4_gemm_nvfp4_out();
  d.d_global_scale = FLT_MAX;
  EXPECT_TRUE(bwgemm::validate(d).ok()) << bwgemm::validate(d).to_string();
  d.d_global_scale = INFINITY;
  expect_invalid(d, "d_global_scale must be finite and > 0");
}

// ---- the holes the safety review found, one regression test each --------------------------------------

// ldd = 2^63 - 8 satisfied ">= N and a multiple of 8" and the kernel wrote before D (row x ldd wrapped);
// 2^60 crashed. Every stride is now below TMA's 2^40 bytes, and spans are checked.
// ---- device-pointer scales (docs/api.md, "Device-pointer scales") -------------------------------------

// Null (none) or 4-byte aligned; never dereferenced here (the fake addresses are not memory); outside every
// output; the GEMM's beta_ptr needs a nonzero host beta and makes C required; the device operands list holds
// every pointer given, for the device check.
TEST(DeviceScaleArguments, GemmAlphaAndBetaPointers) {
  const float* scale = fake_pointer<const float>(0x700000);
  auto a = valid_gemm();
  a.epilogue.alpha_ptr = scale;  // alone: host alpha 1
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  EXPECT_FALSE(bwgemm::epi::is_identity(a.epilogue));  // not the fast D = A·B path
  EXPECT_FALSE(bwgemm::epi::reads_source(a.epilogue));
  EXPECT_EQ(bwgemm::device_operands(a).count, 4);
  a.epilogue.alpha_ptr = fake_pointer<const float>(0x700002);
  expect_invalid(a, "alpha_ptr must be 4-byte aligned");
  a = valid_gemm(), a.epilogue.alpha_ptr = fake_pointer<const float>(0x400040);  // inside D
  expect_invalid(a, "D overlaps alpha_ptr");
  a = valid_gemm(), a.epilogue.beta_ptr = scale;
  expect_invalid(a, "C is null but the epilogue reads it (beta != 0 or beta_ptr given)");  // C may be read
  a.c = fake_pointer<const f16>(0x300000);
  expect_invalid(a, "beta_ptr is given but beta is 0");
  a.epilogue.beta = 1.0f;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  EXPECT_TRUE(bwgemm::epi::reads_source(a.epilogue));
  EXPECT_EQ(bwgemm::device_operands(a).count, 5);  // A, B, D, C, beta_ptr
  a.epilogue.beta_ptr = fake_pointer<const float>(0x700001);
  expect_invalid(a, "beta_ptr must be 4-byte aligned");
}

TEST(DeviceScaleArguments, DualGemmAlphaPointers) {
  const float* scale = fake_pointer<const float>(0x700000);
  auto a = valid_dual();
  a.alpha1_ptr = scale, a.alpha2_ptr = scale + 1;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  EXPECT_FALSE(bwgemm::detail::unit_alphas(a));  // host alphas 1, but device parts: the multiplies stay
  EXPECT_EQ(bwgemm::device_operands(a).count, 6);
  a.alpha2_ptr = fake_pointer<const float>(0x700006);
  expect_invalid(a, "alpha2_ptr must be 4-byte aligned");
  a = valid_dual(), a.alpha1_ptr = fake_pointer<const float>(0x400010);  // inside C
  expect_invalid(a, "C overlaps alpha1_ptr");
  a = valid_dual();
  EXPECT_TRUE(bwgemm::detail::unit_alphas(a));
}

TEST(DeviceScaleArguments, Nvfp4PointersAndTheOutputGlobalScale) {
  const float* scale = fake_pointer<const float>(0x700000);
  auto d = valid_nvfp4();
  d.alpha1_ptr = scale;
  EXPECT_TRUE(bwgemm::validate(d).ok()) << bwgemm::validate(d).to_string();
  d.alpha1_ptr = fake_pointer<const float>(0x700003);
  expect_invalid(d, "alpha1_ptr must be 4-byte aligned");
  auto g = valid_nvfp4_gemm();
  g.epilogue.alpha_ptr = scale;
  EXPECT_TRUE(bwgemm::validate(g).ok()) << bwgemm::validate(g).to_string();
  g.epilogue.alpha_ptr = fake_pointer<const float>(0x400000);  // D's first bytes
  expect_invalid(g, "D overlaps alpha_ptr");
  bwgemm::Nvfp4DualGemmArguments<bwgemm::Nvfp4Output> q;
  q.m = 128, q.n = 128, q.k = 256;
  const void* p = fake_pointer<const void>(0x100000);
  q.a = q.b1 = q.b2 = {p, p};
  q.c = {fake_pointer<void>(0x400000), fake_pointer<void>(0x500000)};
  q.c_global_scale_ptr = scale, q.alpha2_ptr = scale;
  EXPECT_TRUE(bwgemm::validate(q).ok()) << bwgemm::validate(q).to_string();
  EXPECT_EQ(bwgemm::device_operands(q).count, 10);
  q.c_global_scale_ptr = fake_pointer<const float>(0x700002);
  expect_invalid(q, "c_global_scale_ptr must be 4-byte aligned");
  q.c_global_scale_ptr = fake_pointer<const float>(0x500000);  // C's scales
  expect_invalid(q, "C scales overlaps c_global_scale_ptr");
}

// The NVFP4 GEMM's NVFP4 D: d_global_scale_ptr and alpha_ptr null or aligned, inside neither of D's buffers,
// both in the device operands; a beta_ptr refused (no C).
TEST(DeviceScaleArguments, Nvfp4GemmNvfp4OutputPointers) {
  const float* scale = fake_pointer<const float>(0x700000);
  auto a = valid_nvfp4_gemm_nvfp4_out();
  EXPECT_EQ(bwgemm::device_operands(a).count, 6);
  a.d_global_scale_ptr = scale, a.epilogue.alpha_ptr = scale + 1;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  EXPECT_EQ(bwgemm::device_operands(a).count, 8);
  a.d_global_scale_ptr = fake_pointer<const float>(0x700002);
  expect_invalid(a, "d_global_scale_ptr must be 4-byte aligned");
  a = valid_nvfp4_gemm_nvfp4_out(), a.epilogue.alpha_ptr = fake_pointer<const float>(0x700001);
  expect_invalid(a, "alpha_ptr must be 4-byte aligned");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d_global_scale_ptr = fake_pointer<const float>(0x400000 + 4096);
  expect_invalid(a, "D data overlaps d_global_scale_ptr");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d_global_scale_ptr = fake_pointer<const float>(0x500000 + 1020);
  expect_invalid(a, "D scales overlaps d_global_scale_ptr");  // the last 4 of 1024 bytes (2 atoms)
  a = valid_nvfp4_gemm_nvfp4_out(), a.epilogue.alpha_ptr = fake_pointer<const float>(0x500000);
  expect_invalid(a, "D scales overlaps alpha_ptr");
  a = valid_nvfp4_gemm_nvfp4_out(), a.epilogue.beta = 1.0f, a.epilogue.beta_ptr = scale;
  expect_invalid(a, "beta must be 0 with an NVFP4 D (Out = Nvfp4Output), and beta_ptr null");
  a = valid_nvfp4_gemm_nvfp4_out(), a.d_global_scale_ptr = fake_pointer<const float>(0x500000 + 1024);
  EXPECT_TRUE(bwgemm::validate(a).ok()) << "just past D's scales: " << bwgemm::validate(a).to_string();
}

TEST(SafetyRegression, HugeLeadingDimensionsAreRefused) {
  for (int64_t ld : {INT64_MAX - 7, int64_t{1} << 60, int64_t{1} << 40, int64_t{1} << 39}) {
    auto a = valid_gemm();
    a.ldd = ld;
    expect_invalid(a, "ldd must be below 2^40 bytes");
    auto n = valid_nvfp4();
    n.ldc = ld;
    expect_invalid(n, "ldc must be below 2^40 bytes");
    auto d = valid_dual();
    d.ldc = ld;
    expect_invalid(d, "ldc must be below 2^40 bytes");
  }
}

// lda = 2^40 reached the tensor-map encoder ("global_strides_bytes[0] must be < 2^40"): now the message
// names lda.
TEST(SafetyRegression, StrideMessagesNameTheArgument) {
  auto a = valid_gemm();
  a.lda = int64_t{1} << 40;
  expect_invalid(a, "lda must be below 2^40 bytes");
  a = valid_gemm(), a.batch = 2, a.batch_stride_b = int64_t{1} << 40;
  expect_invalid(a, "batch_stride_b must be below 2^40 bytes");
}

// "M, N, K must be < 2^31 and batch <= 65535" named no argument: each extent is checked by name.
TEST(SafetyRegression, ExtentMessagesNameTheArgument) {
  auto n = valid_nvfp4();
  n.k = int64_t{1} << 31;
  expect_invalid(n, "K must be at most 2^31 - 1024");
  n = valid_nvfp4(), n.batch = 65536;
  expect_invalid(n, "batch must be in [1, 65535]");
  auto a = valid_gemm();
  a.n = (int64_t{1} << 31) - 1016;  // a multiple of 8 above the limit
  expect_invalid(a, "N must be at most 2^31 - 1024");
}

// Batch strides whose default (rows x ld) overflowed int64, and products past the spans the kernels form.
TEST(SafetyRegression, OverflowingProductsAreRefused) {
  auto a = valid_gemm();
  a.m = (int64_t{1} << 31) - 1024, a.n = (int64_t{1} << 31) - 1024, a.k = 8, a.batch = 65535;
  const Status s = bwgemm::validate(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument)
      << s.to_string();  // batch_stride_d = M x ldd is 2^63 bytes
  EXPECT_NE(s.message().find("batch_stride"), std::string::npos) << s.message();
  auto d = valid_dual();
  d.m = d.n = (int64_t{1} << 31) - 1024, d.k = 8, d.lda = d.ldb = 8, d.ldc = d.n;
  expect_invalid(d, "the batch stride of C");
}

// An output that aliased an input was accepted and the input overwritten: outputs may share no byte with
// an input; C == D with the same strides (an in-place D = alpha AB + beta D) is allowed.
TEST(SafetyRegression, OutputsMayNotAliasInputs) {
  auto a = valid_gemm();
  a.d = fake_pointer<f16>(0x100000);  // D == A
  expect_invalid(a, "D overlaps A");
  a = valid_gemm(), a.d = fake_pointer<f16>(0x200000 + 64);  // D starts inside B
  expect_invalid(a, "D overlaps B");
  a = valid_gemm(), a.epilogue.beta = 1.0f, a.c = a.d;  // in place, same layout: allowed
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a.ldc = 136;  // the same memory read with another row stride: refused
  expect_invalid(a, "D overlaps C");
  auto d = valid_dual();
  d.c = reinterpret_cast<bf16*>(const_cast<bf16*>(d.b2));
  expect_invalid(d, "C overlaps B2");
  auto n = valid_nvfp4();
  n.c = fake_pointer<f16>(0x100000 + 512);  // inside A's scales and data
  expect_invalid(n, "C overlaps A data");
}

// quantize_nvfp4 with ld = 2^62 returned success and wrote row 0's result into every row (the row offset
// wrapped); the null message named no buffer.
TEST(SafetyRegression, QuantizerSpansAndNamedBuffers) {
  std::vector<float> x(64);
  std::vector<uint8_t> packed(1024), scales(1024);
  const auto quantize = [&](int64_t rows, int64_t k, int64_t batch, int64_t ld, const float* xp, uint8_t* pp,
                            uint8_t* sp) {
    return bwgemm::quantize_nvfp4_host(xp, rows, k, batch, ld, 1.0f, pp, sp);
  };
  const auto expect = [](const Status& s, const char* fragment) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
    EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
  };
  expect(quantize(2, 16, 1, int64_t{1} << 62, x.data(), packed.data(), scales.data()),
         "ld must be below 2^40 bytes");
  // Each batch below 2^40 bytes, 2^20 of them: x spans 2^59 bytes.
  expect(quantize(1, 16, int64_t{1} << 20, int64_t{1} << 37, x.data(), packed.data(), scales.data()),
         "x spans more than 2^56");
  expect(quantize(int64_t{1} << 40, 1 << 30, 1 << 16, 1 << 30, x.data(), packed.data(), scales.data()),
         "overflows");
  expect(quantize(2, 16, 1, 16, x.data(), nullptr, scales.data()), "packed is null");
  expect(quantize(2, 16, 1, 16, nullptr, packed.data(), scales.data()), "x is null");
  expect(quantize(2, 16, 1, 16, x.data(), packed.data(), packed.data() + 8), "packed overlaps scales");
  expect(quantize(2, 16, 1, 16, x.data(), reinterpret_cast<uint8_t*>(x.data()), scales.data()),
         "packed overlaps x");
  EXPECT_TRUE(quantize(2, 16, 1, 16, x.data(), packed.data(), scales.data()).ok());
}

}  // namespace
