// Tensor maps in the emulation build. bwgemm::encode_tensor_map (host/tensor_map.hpp) validates a
// TensorMapDesc as for the driver, then calls emu::encode_tensor_map, which records the parameters inside
// the 128 opaque bytes of the CUtensorMap (a TmaRecord, tagged with a magic word). The TMA engine decodes
// them from the CUtensorMap the kernel passes, so kernels take tensor maps exactly as on the GPU
// (__grid_constant__ parameters, by address).
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <bwgemm/base/status.hpp>

namespace bwgemm::emu {
namespace detail {

inline constexpr uint32_t kTmaRecordMagic = 0x4D454D42;  // "BMEM": a tensor map recorded by the emulator
inline constexpr uint32_t kTmaMaxRank = 5;

enum TmaRecordFlags : uint8_t {
  kTmaOobNan = 1,          // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  kTmaFloat = 2,           // a floating-point element type (the NaN fill applies)
  kTmaSwizzleAtom32B = 4,  // CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B (not modelled)
  kTmaAlign16BSlots = 8,   // CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B (not modelled)
  kTmaInterleaved = 16,    // an interleaved layout (not modelled)
};

struct TmaRecord {
  uint32_t magic;
  uint8_t rank;
  uint8_t element_bits;  // 4, 8, 16 or 32
  uint8_t swizzle_span;  // 0, 32, 64 or 128 bytes
  uint8_t flags;
  uint64_t global_address;
  uint64_t global_dims[kTmaMaxRank];
  uint64_t global_strides[kTmaMaxRank];  // bytes; [0] is unused (dimension 0 is contiguous)
  uint16_t box_dims[kTmaMaxRank];
  uint8_t element_strides[kTmaMaxRank];
};
static_assert(sizeof(TmaRecord) <= sizeof(CUtensorMap), "the record must fit the CUtensorMap bytes");
static_assert(std::is_trivially_copyable_v<TmaRecord>);

// False when `map` does not carry a record.
bool read_tma_record(const CUtensorMap* map, TmaRecord* out);

}  // namespace detail

// Called by bwgemm::encode_tensor_map after validate_tensor_map() accepted `d`. A template over the
// descriptor type because host/tensor_map.hpp includes the backend before it declares TensorMapDesc; the
// helpers are found by argument-dependent lookup at instantiation.
template <class Desc>
Status encode_tensor_map(const Desc& d, CUtensorMap* out) {
  using DataType = std::remove_cv_t<decltype(d.data_type)>;
  using Swizzle = std::remove_cv_t<decltype(d.swizzle)>;
  using Interleave = std::remove_cv_t<decltype(d.interleave)>;
  using OobFill = std::remove_cv_t<decltype(d.oob_fill)>;
  detail::TmaRecord r{};
  r.magic = detail::kTmaRecordMagic;
  r.rank = static_cast<uint8_t>(d.rank);
  r.element_bits = static_cast<uint8_t>(tensor_map_element_bits(d.data_type));
  r.swizzle_span = static_cast<uint8_t>(tensor_map_swizzle_span_bytes(d.swizzle));
  if (d.oob_fill == OobFill::kNanRequestZeroFma) r.flags |= detail::kTmaOobNan;
  if (tensor_map_is_float(d.data_type)) r.flags |= detail::kTmaFloat;
  if (d.swizzle == Swizzle::k128BAtom32B) r.flags |= detail::kTmaSwizzleAtom32B;
  if (d.data_type == DataType::kFp4E2M1Align16B) r.flags |= detail::kTmaAlign16BSlots;
  if (d.interleave != Interleave::kNone) r.flags |= detail::kTmaInterleaved;
  r.global_address = reinterpret_cast<uint64_t>(d.global_address);
  for (uint32_t i = 0; i < d.rank; ++i) {
    r.global_dims[i] = d.global_dims[i];
    r.global_strides[i] = i == 0 ? 0 : d.global_strides_bytes[i - 1];
    r.box_dims[i] = static_cast<uint16_t>(d.box_dims[i]);
    r.element_strides[i] = static_cast<uint8_t>(d.element_strides[i]);
  }
  std::memset(out, 0, sizeof(CUtensorMap));
  std::memcpy(out, &r, sizeof r);
  return Status::success();
}

}  // namespace bwgemm::emu
