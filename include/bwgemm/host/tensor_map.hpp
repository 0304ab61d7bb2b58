// Host-side TMA tensor maps: validate a description, then encode it with the driver's
// cuTensorMapEncodeTiled, reached through the runtime's driver entry point (no link-time libcuda).
//
//   bwgemm::TensorMapDesc d = ...;                      // plain data, see below
//   bwgemm::Status s = bwgemm::encode_tensor_map(d, &tmap);
//
// validate_tensor_map() checks every rule of the cuTensorMapEncodeTiled documentation (cuda.h) that the
// driver would reject, plus what it would accept but mis-handle for our kernels, and says which argument
// is wrong. It is pure host logic (no GPU, no driver), unit-tested in test/ptx/tensor_map_test.cpp.
// Under BWGEMM_EMULATION the encoding is done by ::bwgemm::emu::encode_tensor_map instead.
#pragma once

#include <cstdint>
#include <string>

#include <cuda.h>  // CUtensorMap and the CU_TENSOR_MAP_* enums

#include <bwgemm/base/macros.hpp>
#include <bwgemm/base/status.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#else
#include <cuda_runtime_api.h>  // cudaGetDriverEntryPointByVersion
#endif

namespace bwgemm {

// Element types of the tensors bwgemm moves with TMA.
enum class TensorMapDataType : int {
  kUInt8,   // raw bytes
  kUInt16,  // raw 16-bit words (seed 000 views its 512-byte scale-factor atoms as 256 x u16)
  kUInt32,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFp8E4M3,          // moved as UINT8
  kFp8E5M2,          // moved as UINT8
  kScaleUE4M3,       // NVFP4 scale factors, moved as UINT8
  kScaleUE8M0,       // MXFP scale factors, moved as UINT8
  kFp4E2M1Packed,    // two e2m1 per byte, dims count fp4 elements: CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B (seed
                     // 000)
  kFp4E2M1Align16B,  // 16 x 4-bit packed to 16-byte slots in smem: CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B
};

enum class TensorMapSwizzle : int { kNone, k32B, k64B, k128B, k128BAtom32B };
enum class TensorMapInterleave : int { kNone, k16B, k32B };
enum class TensorMapL2Promotion : int { kNone, k64B, k128B, k256B };
enum class TensorMapOobFill : int { kZero, kNanRequestZeroFma };

// Limits of cuTensorMapEncodeTiled (cuda.h documentation of that function).
inline constexpr uint32_t kTensorMapMaxRank = 5;
inline constexpr uint32_t kTensorMapMaxBoxDim = 256;
inline constexpr uint32_t kTensorMapMaxElementStride = 8;
inline constexpr uint64_t kTensorMapMaxGlobalDim = 1ULL << 32;  // "less than or equal to 2^32"
inline constexpr uint64_t kTensorMapStrideLimit = 1ULL << 40;   // "less than 2^40"
inline constexpr uint64_t kTensorMapAlignment = 16;             // base address and strides

// Bits per element as the tensor map counts elements (packed fp4: 4).
constexpr uint32_t tensor_map_element_bits(TensorMapDataType t) {
  switch (t) {
    case TensorMapDataType::kUInt8:
    case TensorMapDataType::kFp8E4M3:
    case TensorMapDataType::kFp8E5M2:
    case TensorMapDataType::kScaleUE4M3:
    case TensorMapDataType::kScaleUE8M0:
      return 8;
    case TensorMapDataType::kUInt16:
    case TensorMapDataType::kFloat16:
    case TensorMapDataType::kBFloat16:
      return 16;
    case TensorMapDataType::kUInt32:
    case TensorMapDataType::kFloat32:
      return 32;
    case TensorMapDataType::kFp4E2M1Packed:
    case TensorMapDataType::kFp4E2M1Align16B:
      return 4;
  }
  return 0;
}

constexpr bool tensor_map_is_float(TensorMapDataType t) {
  return t == TensorMapDataType::kFloat16 || t == TensorMapDataType::kBFloat16 ||
         t == TensorMapDataType::kFloat32;
}

// Width in bytes of the swizzle pattern's span (0 for no swizzle).
constexpr uint32_t tensor_map_swizzle_span_bytes(TensorMapSwizzle s) {
  switch (s) {
    case TensorMapSwizzle::kNone:
      return 0;
    case TensorMapSwizzle::k32B:
      return 32;
    case TensorMapSwizzle::k64B:
      return 64;
    case TensorMapSwizzle::k128B:
    case TensorMapSwizzle::k128BAtom32B:
      return 128;
  }
  return 0;
}

// Everything cuTensorMapEncodeTiled takes, in the driver's conventions: dimension 0 is the innermost
// (contiguous) one; global_strides_bytes[i] is the byte stride of dimension i + 1 (rank - 1 of them; the
// stride of dimension 0 is the element size).
struct TensorMapDesc {
  TensorMapDataType data_type = TensorMapDataType::kFloat16;
  uint32_t rank = 2;
  const void* global_address = nullptr;
  uint64_t global_dims[kTensorMapMaxRank] = {};
  uint64_t global_strides_bytes[kTensorMapMaxRank - 1] = {};
  uint32_t box_dims[kTensorMapMaxRank] = {};
  uint32_t element_strides[kTensorMapMaxRank] = {1, 1, 1, 1, 1};
  TensorMapSwizzle swizzle = TensorMapSwizzle::kNone;
  TensorMapInterleave interleave = TensorMapInterleave::kNone;
  TensorMapL2Promotion l2_promotion = TensorMapL2Promotion::kNone;
  TensorMapOobFill oob_fill = TensorMapOobFill::kZero;
};

namespace detail {
inline std::string tm_index(const char* name, uint32_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}
}  // namespace detail

// Checks `d` against the rules of cuTensorMapEncodeTiled; Status::success() or an invalid_argument /
// not_supported naming the offending field.
inline Status validate_tensor_map(const TensorMapDesc& d) {
  using detail::tm_index;
  const uint32_t bits = tensor_map_element_bits(d.data_type);
  if (bits == 0) return Status::invalid_argument("tensor map: unknown data_type");
  const bool packed16 = d.data_type == TensorMapDataType::kFp4E2M1Align16B;
  const bool packed8 = d.data_type == TensorMapDataType::kFp4E2M1Packed;

  if (d.rank < 1 || d.rank > kTensorMapMaxRank) {
    return Status::invalid_argument("tensor map: rank must be 1..5 (got " + std::to_string(d.rank) + ")");
  }
  if (d.interleave != TensorMapInterleave::kNone && d.rank < 3) {
    return Status::invalid_argument("tensor map: interleaved layouts need rank >= 3");
  }

  // Base address: 16 bytes; 32 with 32B interleave or the 16-byte-slot packed types.
  const uint64_t base_align =
      (d.interleave == TensorMapInterleave::k32B || packed16) ? 32 : kTensorMapAlignment;
  if (d.global_address == nullptr) return Status::invalid_argument("tensor map: global_address is null");
  if (reinterpret_cast<uintptr_t>(d.global_address) % base_align != 0) {
    return Status::invalid_argument("tensor map: global_address must be " + std::to_string(base_align) +
                                    "-byte aligned");
  }

  for (uint32_t i = 0; i < d.rank; ++i) {
    if (d.global_dims[i] == 0 || d.global_dims[i] > kTensorMapMaxGlobalDim) {
      return Status::invalid_argument("tensor map: " + tm_index("global_dims", i) +
                                      " must be in [1, 2^32] (got " + std::to_string(d.global_dims[i]) + ")");
    }
  }
  if (packed16 && d.global_dims[0] % 128 != 0) {
    return Status::invalid_argument("tensor map: 16U4_ALIGN16B needs global_dims[0] to be a multiple of 128");
  }
  if (packed8 && d.global_dims[0] % 2 != 0) {
    return Status::invalid_argument("tensor map: packed fp4 needs global_dims[0] to be even");
  }

  const uint64_t stride_align =
      (d.interleave == TensorMapInterleave::k32B || packed16) ? 32 : kTensorMapAlignment;
  for (uint32_t i = 0; i + 1 < d.rank; ++i) {
    const uint64_t s = d.global_strides_bytes[i];
    if (s % stride_align != 0 || s == 0) {
      return Status::invalid_argument("tensor map: " + tm_index("global_strides_bytes", i) +
                                      " must be a nonzero multiple of " + std::to_string(stride_align) +
                                      " bytes (got " + std::to_string(s) + ")");
    }
    if (s >= kTensorMapStrideLimit) {
      return Status::invalid_argument("tensor map: " + tm_index("global_strides_bytes", i) +
                                      " must be < 2^40");
    }
  }

  for (uint32_t i = 0; i < d.rank; ++i) {
    if (d.box_dims[i] == 0 || d.box_dims[i] > kTensorMapMaxBoxDim) {
      return Status::invalid_argument("tensor map: " + tm_index("box_dims", i) +
                                      " must be in [1, 256] (got " + std::to_string(d.box_dims[i]) + ")");
    }
    if (d.element_strides[i] == 0 || d.element_strides[i] > kTensorMapMaxElementStride) {
      return Status::invalid_argument("tensor map: " + tm_index("element_strides", i) +
                                      " must be in [1, 8] (got " + std::to_string(d.element_strides[i]) +
                                      ")");
    }
  }
  if (packed16 && d.box_dims[0] != 128) {
    return Status::invalid_argument("tensor map: 16U4_ALIGN16B needs box_dims[0] == 128");
  }

  if (packed16 && !(d.swizzle == TensorMapSwizzle::kNone || d.swizzle == TensorMapSwizzle::k128B ||
                    d.swizzle == TensorMapSwizzle::k128BAtom32B)) {
    return Status::not_supported(
        "tensor map: 16U4_ALIGN16B supports only no swizzle, 128B and 128B_ATOM_32B");
  }

  // Inner box extent in bytes (in global memory).
  const uint64_t inner_bits = static_cast<uint64_t>(d.box_dims[0]) * bits;
  const uint64_t inner_bytes = inner_bits / 8;
  if (d.interleave == TensorMapInterleave::kNone) {
    if (inner_bits % (16 * 8) != 0) {
      return Status::invalid_argument("tensor map: the inner box (box_dims[0] * element size = " +
                                      std::to_string(inner_bits) + " bits) must be a multiple of 16 bytes");
    }
    const uint32_t span = tensor_map_swizzle_span_bytes(d.swizzle);
    // For 16U4_ALIGN16B the shared-memory row is twice the global one (8-byte gaps).
    const uint64_t smem_inner_bytes = packed16 ? inner_bytes * 2 : inner_bytes;
    if (span != 0 && smem_inner_bytes > span) {
      return Status::invalid_argument("tensor map: the inner box is " + std::to_string(smem_inner_bytes) +
                                      " bytes, more than the " + std::to_string(span) + "-byte swizzle span");
    }
  }
  if (d.interleave == TensorMapInterleave::k32B && d.swizzle != TensorMapSwizzle::k32B) {
    return Status::invalid_argument("tensor map: 32B interleave requires the 32B swizzle");
  }
  if (d.oob_fill == TensorMapOobFill::kNanRequestZeroFma && !tensor_map_is_float(d.data_type)) {
    return Status::invalid_argument("tensor map: NaN out-of-bounds fill needs a floating-point data type");
  }
  return Status::success();
}

namespace detail {

inline CUtensorMapDataType to_cu(TensorMapDataType t) {
  switch (t) {
    case TensorMapDataType::kUInt16:
      return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case TensorMapDataType::kUInt32:
      return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case TensorMapDataType::kFloat16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case TensorMapDataType::kBFloat16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case TensorMapDataType::kFloat32:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case TensorMapDataType::kFp4E2M1Packed:
      return CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
    case TensorMapDataType::kFp4E2M1Align16B:
      return CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B;
    default:
      return CU_TENSOR_MAP_DATA_TYPE_UINT8;  // u8, fp8 and 8-bit scale factors
  }
}

inline CUtensorMapSwizzle to_cu(TensorMapSwizzle s) {
  switch (s) {
    case TensorMapSwizzle::k32B:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case TensorMapSwizzle::k64B:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case TensorMapSwizzle::k128B:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    case TensorMapSwizzle::k128BAtom32B:
      return CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B;
    default:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

inline CUtensorMapInterleave to_cu(TensorMapInterleave i) {
  switch (i) {
    case TensorMapInterleave::k16B:
      return CU_TENSOR_MAP_INTERLEAVE_16B;
    case TensorMapInterleave::k32B:
      return CU_TENSOR_MAP_INTERLEAVE_32B;
    default:
      return CU_TENSOR_MAP_INTERLEAVE_NONE;
  }
}

inline CUtensorMapL2promotion to_cu(TensorMapL2Promotion p) {
  switch (p) {
    case TensorMapL2Promotion::k64B:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case TensorMapL2Promotion::k128B:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    case TensorMapL2Promotion::k256B:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    default:
      return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  }
}

inline CUtensorMapFloatOOBfill to_cu(TensorMapOobFill f) {
  return f == TensorMapOobFill::kNanRequestZeroFma ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                                   : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
}

#if !BWGEMM_EMULATION
// The cuTensorMapEncodeTiled signature of the CUDA 12.0 ABI (PFN_cuTensorMapEncodeTiled_v12000).
using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*,
                                   CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                   CUtensorMapFloatOOBfill);

// Looks the driver function up once per process. cudaGetDriverEntryPointByVersion exists from CUDA 12.5 on
// and is the non-deprecated form in 13.0; requesting the 12.0 ABI pins the signature above.
inline Status get_encode_tiled(EncodeTiledFn* fn) {
  static EncodeTiledFn cached = nullptr;
  static cudaError_t lookup_error = cudaSuccess;
  static cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSuccess;
  static const bool looked_up = [] {
    void* p = nullptr;
    lookup_error =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &query);
    if (lookup_error == cudaSuccess && query == cudaDriverEntryPointSuccess)
      cached = reinterpret_cast<EncodeTiledFn>(p);
    return true;
  }();
  (void)looked_up;
  if (cached == nullptr) {
    if (lookup_error != cudaSuccess) {
      return Status::driver_error(std::string("cannot reach cuTensorMapEncodeTiled: ") +
                                  cudaGetErrorString(lookup_error));
    }
    return Status::driver_error("the CUDA driver does not provide cuTensorMapEncodeTiled (query result " +
                                std::to_string(static_cast<int>(query)) + ")");
  }
  *fn = cached;
  return Status::success();
}
#endif

}  // namespace detail

// Validates `d` and encodes it into `*out` (64-byte aligned, e.g. a CUtensorMap object or kernel parameter).
inline Status encode_tensor_map(const TensorMapDesc& d, CUtensorMap* out) {
  if (out == nullptr) return Status::invalid_argument("tensor map: output CUtensorMap is null");
  if (reinterpret_cast<uintptr_t>(out) % 64 != 0) {
    return Status::invalid_argument("tensor map: output CUtensorMap must be 64-byte aligned");
  }
  Status s = validate_tensor_map(d);
  if (!s.ok()) return s;
#if BWGEMM_EMULATION
  return ::bwgemm::emu::encode_tensor_map(d, out);
#else
  detail::EncodeTiledFn encode = nullptr;
  if (Status found = detail::get_encode_tiled(&encode); !found.ok()) return found;
  cuuint64_t dims[kTensorMapMaxRank];
  cuuint64_t strides[kTensorMapMaxRank - 1];
  cuuint32_t box[kTensorMapMaxRank];
  cuuint32_t estrides[kTensorMapMaxRank];
  for (uint32_t i = 0; i < d.rank; ++i) {
    dims[i] = d.global_dims[i];
    box[i] = d.box_dims[i];
    estrides[i] = d.element_strides[i];
    if (i + 1 < d.rank) strides[i] = d.global_strides_bytes[i];
  }
  const CUresult r =
      encode(out, detail::to_cu(d.data_type), d.rank, const_cast<void*>(d.global_address), dims, strides, box,
             estrides, detail::to_cu(d.interleave), detail::to_cu(d.swizzle), detail::to_cu(d.l2_promotion),
             detail::to_cu(d.oob_fill));
  if (r != CUDA_SUCCESS) {
    std::string msg = "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r));
    if (d.data_type == TensorMapDataType::kFp4E2M1Packed ||
        d.data_type == TensorMapDataType::kFp4E2M1Align16B) {
      msg += " (packed 4-bit tensor maps need a compute capability 10.x device)";
    }
    return Status::driver_error(msg);
  }
  return Status::success();
#endif
}

}  // namespace bwgemm
