// The argument rules of every operation (arguments/*.hpp), checked on bwgemm::validate, which every entry
// point of every backend runs first: each broken rule gives kInvalidArgument with a message that names the
// argument. Host logic only: the pointers are never dereferenced.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"

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
  a.a = fake_pointer<const f16>(0x10000);
  a.b = fake_pointer<const f16>(0x20000);
  a.d = fake_pointer<f16>(0x40000);
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
  a = valid_gemm(), a.m = 100;
  expect_invalid(a, "M must be a positive multiple of 8");
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
  expect_invalid(a, "M must be < 2^31");
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
  a = valid_gemm(), a.b = fake_pointer<const f16>(0x20008);
  expect_invalid(a, "B must be 16-byte aligned");
  a = valid_gemm(), a.d = fake_pointer<f16>(0x40008);
  expect_invalid(a, "D must be 16-byte aligned");
  a = valid_gemm(), a.epilogue.beta = 1.0f;
  expect_invalid(a, "C is null but the epilogue reads it");
  a = valid_gemm(), a.epilogue.alpha = std::nanf("");
  expect_invalid(a, "alpha");
  a = valid_gemm(), a.epilogue.beta = INFINITY, a.c = fake_pointer<const f16>(0x30000);
  expect_invalid(a, "alpha and beta");
}

TEST(GemmArguments, OutputTypesKeepTheirRowAlignment) {
  bwgemm::GemmArguments<bf16, float> a;  // fp32 D: 16-byte rows at multiples of 4 elements
  a.m = 128, a.n = 132, a.k = 64;
  a.a = fake_pointer<const bf16>(0x10000);
  a.b = fake_pointer<const bf16>(0x20000);
  a.d = fake_pointer<float>(0x40000);
  a.n = 136, a.ldb = 136, a.ldd = 140;
  EXPECT_TRUE(bwgemm::validate(a).ok()) << bwgemm::validate(a).to_string();
  a.ldd = 138;
  expect_invalid(a, "ldd");
}

// ---- 16-bit dual GEMM ---------------------------------------------------------------------------------

bwgemm::DualGemmArguments<bf16, bf16> valid_dual() {
  bwgemm::DualGemmArguments<bf16, bf16> a;
  a.m = 256, a.n = 256, a.k = 256;
  a.a = fake_pointer<const bf16>(0x10000);
  a.b1 = fake_pointer<const bf16>(0x20000);
  a.b2 = fake_pointer<const bf16>(0x30000);
  a.c = fake_pointer<bf16>(0x40000);
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
  expect_invalid(a, "K must be < 2^31");
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
  a = valid_dual(), a.c = fake_pointer<bf16>(0x40008);
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
  const void* p = fake_pointer<const void>(0x10000);
  a.a = a.b1 = a.b2 = {p, p};
  a.c = fake_pointer<f16>(0x40000);
  return a;
}

TEST(Nvfp4DualGemmArguments, ValidCallsPass) {
  EXPECT_TRUE(bwgemm::validate(valid_nvfp4()).ok());
  auto a = valid_nvfp4();
  a.m = 1, a.n = 16, a.k = 64, a.ldc = 24;
  EXPECT_TRUE(bwgemm::validate(a).ok());
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
  a = valid_nvfp4(), a.a.data = fake_pointer<const void>(0x10008);
  expect_invalid(a, "A data must be 16-byte aligned");
  a = valid_nvfp4(), a.c = nullptr;
  expect_invalid(a, "C is null");
  a = valid_nvfp4(), a.alpha2 = std::nanf("");
  expect_invalid(a, "alpha");
}

}  // namespace
