// Tests of bwgemm::validate_tensor_map / encode_tensor_map (include/bwgemm/host/tensor_map.hpp).
// Host build (ptx_tensor_map_test): each rule of the cuTensorMapEncodeTiled documentation exercised at its
// boundary; no GPU needed (the encode test accepts a driver error where no driver is present, never a
// validation error). With BWGEMM_TEST_TENSOR_MAP_DRIVER (ptx_tensor_map_driver_test, label gpu): the real
// driver agrees with the validation.
#include <bwgemm/host/tensor_map.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

using bwgemm::StatusCode;
using bwgemm::TensorMapDataType;
using bwgemm::TensorMapDesc;
using bwgemm::TensorMapInterleave;
using bwgemm::TensorMapSwizzle;

// A fake, suitably aligned global address (validation never dereferences it).
const void* addr(uintptr_t a) {
  return reinterpret_cast<const void*>(a);
}
constexpr uintptr_t kBase = 0x7f0000000000;  // 4 KiB aligned

// Seed 000's A/B operand map: packed fp4, rank 3 {256, rows, K / 256}, strides {K / 2, 128}, box {256,
// BLOCK_M, BLOCK_K / 256}, 128B swizzle.
TensorMapDesc seed000_ab(uint64_t rows, uint64_t k, uint32_t box_rows, uint32_t block_k) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kFp4E2M1Packed;
  d.rank = 3;
  d.global_address = addr(kBase);
  d.global_dims[0] = 256;
  d.global_dims[1] = rows;
  d.global_dims[2] = k / 256;
  d.global_strides_bytes[0] = k / 2;
  d.global_strides_bytes[1] = 128;
  d.box_dims[0] = 256;
  d.box_dims[1] = box_rows;
  d.box_dims[2] = block_k / 256;
  d.swizzle = TensorMapSwizzle::k128B;
  return d;
}

// Seed 000's scale-factor map: 512-byte atoms viewed as 256 x u16, rank 3, no swizzle.
TensorMapDesc seed000_sf(uint64_t mn, uint64_t k, uint32_t block_k) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kUInt16;
  d.rank = 3;
  d.global_address = addr(kBase);
  d.global_dims[0] = 256;
  d.global_dims[1] = mn / 128;
  d.global_dims[2] = k / 64;
  d.global_strides_bytes[0] = (k / 64) * 512;
  d.global_strides_bytes[1] = 512;
  d.box_dims[0] = 256;
  d.box_dims[1] = 1;
  d.box_dims[2] = block_k / 64;
  return d;
}

// Seed 004's fp16 operand map: rank 3 {64, rows, cols / 64}, strides {cols * 2, 128}, 128B swizzle.
TensorMapDesc seed004_fp16(uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kFloat16;
  d.rank = 3;
  d.global_address = addr(kBase);
  d.global_dims[0] = 64;
  d.global_dims[1] = rows;
  d.global_dims[2] = cols / 64;
  d.global_strides_bytes[0] = cols * 2;
  d.global_strides_bytes[1] = 128;
  d.box_dims[0] = 64;
  d.box_dims[1] = box_rows;
  d.box_dims[2] = box_cols / 64;
  d.swizzle = TensorMapSwizzle::k128B;
  return d;
}

// A plain 2-D row-major matrix of `t`.
TensorMapDesc matrix(TensorMapDataType t, uint64_t rows, uint64_t cols, uint64_t row_bytes, uint32_t box_cols,
                     uint32_t box_rows, TensorMapSwizzle sw) {
  TensorMapDesc d;
  d.data_type = t;
  d.rank = 2;
  d.global_address = addr(kBase);
  d.global_dims[0] = cols;
  d.global_dims[1] = rows;
  d.global_strides_bytes[0] = row_bytes;
  d.box_dims[0] = box_cols;
  d.box_dims[1] = box_rows;
  d.swizzle = sw;
  return d;
}

[[maybe_unused]] void expect_invalid(const TensorMapDesc& d, const std::string& fragment) {
  const bwgemm::Status s = bwgemm::validate_tensor_map(d);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.code(), StatusCode::kSuccess);
  EXPECT_NE(s.message().find(fragment), std::string::npos) << "message: " << s.message();
}

[[maybe_unused]] void expect_valid(const TensorMapDesc& d) {
  const bwgemm::Status s = bwgemm::validate_tensor_map(d);
  EXPECT_TRUE(s.ok()) << s.to_string();
}

#if !defined(BWGEMM_TEST_TENSOR_MAP_DRIVER)
TEST(TensorMapValidate, SeedMapsAreValid) {
  expect_valid(seed000_ab(256, 7168, 128, 256));  // A, BLOCK_M 128, BLOCK_K 256
  expect_valid(seed000_ab(4096, 7168, 32, 256));  // B, HALF_BLOCK_N 32
  expect_valid(seed000_sf(256, 7168, 256));
  expect_valid(seed004_fp16(4096, 4096, 128, 64));  // A
  expect_valid(seed004_fp16(4096, 4096, 64, 128));  // B, BLOCK_K rows x BLOCK_N / 2 cols
}

TEST(TensorMapValidate, ElementSizes) {
  EXPECT_EQ(bwgemm::tensor_map_element_bits(TensorMapDataType::kFp4E2M1Packed), 4u);
  EXPECT_EQ(bwgemm::tensor_map_element_bits(TensorMapDataType::kFp8E4M3), 8u);
  EXPECT_EQ(bwgemm::tensor_map_element_bits(TensorMapDataType::kScaleUE4M3), 8u);
  EXPECT_EQ(bwgemm::tensor_map_element_bits(TensorMapDataType::kBFloat16), 16u);
  EXPECT_EQ(bwgemm::tensor_map_element_bits(TensorMapDataType::kFloat32), 32u);
}

TEST(TensorMapValidate, Rank) {
  auto d = matrix(TensorMapDataType::kFloat16, 64, 64, 128, 64, 8, TensorMapSwizzle::k128B);
  d.rank = 0;
  expect_invalid(d, "rank");
  d.rank = 6;
  expect_invalid(d, "rank");
  d.rank = 1;
  expect_valid(d);
}

TEST(TensorMapValidate, BaseAddressAlignment) {
  auto d = matrix(TensorMapDataType::kFloat16, 64, 64, 128, 64, 8, TensorMapSwizzle::k128B);
  d.global_address = addr(kBase + 16);
  expect_valid(d);
  d.global_address = addr(kBase + 8);
  expect_invalid(d, "16-byte aligned");
  d.global_address = nullptr;
  expect_invalid(d, "null");
}

TEST(TensorMapValidate, StrideAlignmentAndLimit) {
  auto d = matrix(TensorMapDataType::kFloat16, 64, 100, 200, 64, 8, TensorMapSwizzle::k128B);
  expect_invalid(d, "global_strides_bytes[0]");  // 200 is not a multiple of 16
  d.global_strides_bytes[0] = 208;
  expect_valid(d);
  d.global_strides_bytes[0] = 1ULL << 40;
  expect_invalid(d, "2^40");
  d.global_strides_bytes[0] = (1ULL << 40) - 16;
  expect_valid(d);
  // Rank 3: the second stride is checked too.
  auto s = seed004_fp16(256, 256, 128, 64);
  s.global_strides_bytes[1] = 120;
  expect_invalid(s, "global_strides_bytes[1]");
}

TEST(TensorMapValidate, GlobalDims) {
  auto d = matrix(TensorMapDataType::kUInt8, 64, 64, 64, 64, 8, TensorMapSwizzle::kNone);
  d.global_dims[1] = 0;
  expect_invalid(d, "global_dims[1]");
  d.global_dims[1] = (1ULL << 32) + 1;
  expect_invalid(d, "global_dims[1]");
  d.global_dims[1] = 1ULL << 32;
  expect_valid(d);
}

TEST(TensorMapValidate, BoxDims) {
  auto d = matrix(TensorMapDataType::kFloat16, 1024, 1024, 2048, 64, 256, TensorMapSwizzle::k128B);
  expect_valid(d);
  d.box_dims[1] = 257;
  expect_invalid(d, "box_dims[1]");
  d.box_dims[1] = 0;
  expect_invalid(d, "box_dims[1]");
}

TEST(TensorMapValidate, ElementStrides) {
  auto d = matrix(TensorMapDataType::kFloat16, 1024, 1024, 2048, 64, 64, TensorMapSwizzle::k128B);
  d.element_strides[1] = 8;
  expect_valid(d);
  d.element_strides[1] = 9;
  expect_invalid(d, "element_strides[1]");
  d.element_strides[1] = 0;
  expect_invalid(d, "element_strides[1]");
}

TEST(TensorMapValidate, InnerBoxMultipleOf16Bytes) {
  // 12 fp16 = 24 bytes: not a multiple of 16.
  expect_invalid(matrix(TensorMapDataType::kFloat16, 64, 64, 128, 12, 8, TensorMapSwizzle::kNone),
                 "multiple of 16");
  expect_valid(matrix(TensorMapDataType::kFloat16, 64, 64, 128, 8, 8, TensorMapSwizzle::kNone));
  // Packed fp4: 16 elements = 8 bytes is too narrow, 32 = 16 bytes is fine.
  expect_invalid(matrix(TensorMapDataType::kFp4E2M1Packed, 64, 256, 128, 16, 8, TensorMapSwizzle::kNone),
                 "multiple of 16");
  expect_valid(matrix(TensorMapDataType::kFp4E2M1Packed, 64, 256, 128, 32, 8, TensorMapSwizzle::kNone));
}

TEST(TensorMapValidate, SwizzleSpanAgainstInnerBox) {
  struct Case {
    TensorMapSwizzle swizzle;
    uint32_t max_inner_bytes;
  };
  for (const Case c : {Case{TensorMapSwizzle::k32B, 32}, Case{TensorMapSwizzle::k64B, 64},
                       Case{TensorMapSwizzle::k128B, 128}, Case{TensorMapSwizzle::k128BAtom32B, 128}}) {
    // bf16: inner box of exactly the span is fine, 16 bytes more is not.
    expect_valid(matrix(TensorMapDataType::kBFloat16, 64, 1024, 2048, c.max_inner_bytes / 2, 8, c.swizzle));
    expect_invalid(
        matrix(TensorMapDataType::kBFloat16, 64, 1024, 2048, c.max_inner_bytes / 2 + 8, 8, c.swizzle),
        "swizzle span");
  }
  // fp8 and packed fp4 with 128B swizzle: 128 fp8 / 256 fp4 per row at most.
  expect_valid(matrix(TensorMapDataType::kFp8E4M3, 64, 1024, 1024, 128, 8, TensorMapSwizzle::k128B));
  expect_invalid(matrix(TensorMapDataType::kFp8E4M3, 64, 1024, 1024, 144, 8, TensorMapSwizzle::k128B),
                 "swizzle span");
  expect_valid(matrix(TensorMapDataType::kFp4E2M1Packed, 64, 1024, 512, 256, 8, TensorMapSwizzle::k128B));
  expect_valid(matrix(TensorMapDataType::kFp4E2M1Packed, 64, 1024, 512, 128, 8, TensorMapSwizzle::k64B));
  expect_invalid(matrix(TensorMapDataType::kFp4E2M1Packed, 64, 1024, 512, 160, 8, TensorMapSwizzle::k64B),
                 "swizzle span");
  // No swizzle: any multiple of 16 bytes up to the box limit.
  expect_valid(matrix(TensorMapDataType::kFloat32, 64, 1024, 4096, 256, 8, TensorMapSwizzle::kNone));
}

TEST(TensorMapValidate, PackedFp4Rules) {
  auto d = matrix(TensorMapDataType::kFp4E2M1Packed, 64, 255, 128, 32, 8, TensorMapSwizzle::kNone);
  expect_invalid(d, "even");  // 16U4_ALIGN8B: global_dims[0] must be a multiple of 2
  // 16U4_ALIGN16B: 32-byte base and strides, dims[0] % 128, box[0] == 128.
  auto e = matrix(TensorMapDataType::kFp4E2M1Align16B, 64, 256, 128, 128, 8, TensorMapSwizzle::k128B);
  expect_valid(e);
  e.global_address = addr(kBase + 16);
  expect_invalid(e, "32-byte aligned");
  e.global_address = addr(kBase);
  e.global_strides_bytes[0] = 144;
  expect_invalid(e, "multiple of 32");
  e.global_strides_bytes[0] = 128;
  e.global_dims[0] = 192;
  expect_invalid(e, "multiple of 128");
  e.global_dims[0] = 256;
  e.box_dims[0] = 64;
  expect_invalid(e, "box_dims[0] == 128");
  e.box_dims[0] = 128;
  e.swizzle = TensorMapSwizzle::k64B;
  EXPECT_EQ(bwgemm::validate_tensor_map(e).code(), StatusCode::kNotSupported);
}

TEST(TensorMapValidate, Interleave) {
  auto d = seed004_fp16(256, 256, 64, 64);
  d.swizzle = TensorMapSwizzle::kNone;
  d.interleave = TensorMapInterleave::k32B;
  expect_invalid(d, "32B swizzle");
  d.swizzle = TensorMapSwizzle::k32B;
  expect_valid(d);
  d.global_address = addr(kBase + 16);
  expect_invalid(d, "32-byte aligned");
  auto m = matrix(TensorMapDataType::kFloat16, 64, 64, 128, 64, 8, TensorMapSwizzle::kNone);
  m.interleave = TensorMapInterleave::k16B;
  expect_invalid(m, "rank >= 3");
}

TEST(TensorMapValidate, NanFillNeedsFloat) {
  auto d = matrix(TensorMapDataType::kFloat16, 64, 64, 128, 64, 8, TensorMapSwizzle::k128B);
  d.oob_fill = bwgemm::TensorMapOobFill::kNanRequestZeroFma;
  expect_valid(d);
  auto f = seed000_ab(256, 7168, 128, 256);
  f.oob_fill = bwgemm::TensorMapOobFill::kNanRequestZeroFma;
  expect_invalid(f, "floating-point");
}

TEST(TensorMapEncode, RejectsBadOutputAndInvalidDescBeforeTheDriver) {
  alignas(64) static CUtensorMap map;
  const auto good = seed004_fp16(256, 256, 128, 64);
  EXPECT_EQ(bwgemm::encode_tensor_map(good, nullptr).code(), StatusCode::kInvalidArgument);
  auto* misaligned = reinterpret_cast<CUtensorMap*>(reinterpret_cast<char*>(&map) + 16);
  EXPECT_EQ(bwgemm::encode_tensor_map(good, misaligned).code(), StatusCode::kInvalidArgument);
  auto bad = good;
  bad.box_dims[1] = 300;
  const bwgemm::Status s = bwgemm::encode_tensor_map(bad, &map);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("box_dims[1]"), std::string::npos);
}

TEST(TensorMapEncode, ValidDescReachesTheDriver) {
  // With a driver this encodes (the address is never dereferenced by encoding); without one it must fail
  // as a driver error, never as a validation error.
  alignas(64) static CUtensorMap map;
  const bwgemm::Status s = bwgemm::encode_tensor_map(seed000_ab(256, 7168, 128, 256), &map);
  EXPECT_TRUE(s.ok() || s.code() == StatusCode::kDriverError) << s.to_string();
}

#else  // BWGEMM_TEST_TENSOR_MAP_DRIVER

// Where a CUDA driver is present (label gpu: any sm_90+ GPU), the driver must encode every map that
// validation accepts, and must itself reject the documented violations validation reports. Skips otherwise.
TEST(TensorMapDriver, AgreesWithValidation) {
  bwgemm::detail::EncodeTiledFn encode = nullptr;
  const bwgemm::Status lookup = bwgemm::detail::get_encode_tiled(&encode);
  if (!lookup.ok()) GTEST_SKIP() << "no CUDA driver: " << lookup.to_string();
  // Encoding needs a context on some drivers.
  if (cudaFree(nullptr) != cudaSuccess) GTEST_SKIP() << "no usable GPU";

  alignas(64) CUtensorMap map;
  const TensorMapDesc valid[] = {
      seed000_ab(256, 7168, 128, 256),
      seed000_ab(4096, 7168, 32, 256),
      seed000_sf(256, 7168, 256),
      seed004_fp16(4096, 4096, 128, 64),
      seed004_fp16(4096, 4096, 64, 128),
      matrix(TensorMapDataType::kBFloat16, 64, 1024, 2048, 16, 8, TensorMapSwizzle::k32B),
      matrix(TensorMapDataType::kFp8E4M3, 64, 1024, 1024, 64, 8, TensorMapSwizzle::k64B),
      matrix(TensorMapDataType::kFp4E2M1Packed, 64, 1024, 512, 128, 8, TensorMapSwizzle::k64B),
      matrix(TensorMapDataType::kFloat32, 64, 1024, 4096, 256, 8, TensorMapSwizzle::kNone),
  };
  int device = 0, cc_major = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device);
  int index = 0;
  for (const TensorMapDesc& d : valid) {
    const bool packed_fp4 = d.data_type == TensorMapDataType::kFp4E2M1Packed;
    if (packed_fp4 &&
        cc_major < 10) {  // 16U4 types are a Blackwell TMA feature; Hopper's driver rejects them
      EXPECT_EQ(bwgemm::encode_tensor_map(d, &map).code(), StatusCode::kDriverError)
          << "valid[" << index << "]";
      ++index;
      continue;
    }
    const bwgemm::Status s = bwgemm::encode_tensor_map(d, &map);
    EXPECT_TRUE(s.ok()) << "valid[" << index << "] on compute capability " << cc_major << ": "
                        << s.to_string();
    ++index;
  }

  auto raw = [&](const TensorMapDesc& d) {
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], es[5];
    for (uint32_t i = 0; i < d.rank; ++i) {
      dims[i] = d.global_dims[i];
      box[i] = d.box_dims[i];
      es[i] = d.element_strides[i];
      if (i + 1 < d.rank) strides[i] = d.global_strides_bytes[i];
    }
    return encode(&map, bwgemm::detail::to_cu(d.data_type), d.rank, const_cast<void*>(d.global_address), dims,
                  strides, box, es, bwgemm::detail::to_cu(d.interleave), bwgemm::detail::to_cu(d.swizzle),
                  bwgemm::detail::to_cu(d.l2_promotion), bwgemm::detail::to_cu(d.oob_fill));
  };
  std::vector<std::pair<const char*, TensorMapDesc>> invalid;
  auto base = [] {
    return matrix(TensorMapDataType::kFloat16, 1024, 1024, 2048, 64, 64, TensorMapSwizzle::k128B);
  };
  auto d = base();
  d.global_address = addr(kBase + 8);
  invalid.emplace_back("misaligned base", d);
  d = base();
  d.global_strides_bytes[0] = 2056;
  invalid.emplace_back("stride not a multiple of 16", d);
  d = base();
  d.box_dims[1] = 257;
  invalid.emplace_back("box > 256", d);
  d = base();
  d.box_dims[0] = 72;
  invalid.emplace_back("inner box 144 B > 128 B swizzle span", d);
  d = base();
  d.swizzle = TensorMapSwizzle::kNone;
  d.box_dims[0] = 12;
  invalid.emplace_back("inner box not a multiple of 16 B", d);
  d = base();
  d.element_strides[1] = 9;
  invalid.emplace_back("element stride > 8", d);
  d = base();
  d.global_strides_bytes[0] = 1ULL << 40;
  invalid.emplace_back("stride >= 2^40", d);
  for (const auto& [what, desc] : invalid) {
    EXPECT_FALSE(bwgemm::validate_tensor_map(desc).ok()) << what;
    EXPECT_NE(raw(desc), CUDA_SUCCESS) << "the driver accepted: " << what;
  }
}

#endif  // BWGEMM_TEST_TENSOR_MAP_DRIVER

}  // namespace
