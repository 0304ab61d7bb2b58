// Tensor maps in the emulation build (include/bwgemm/emu/tensor_map.hpp).
#include <bwgemm/emu/tensor_map.hpp>

#include <cuda.h>

#include <cstring>

namespace bwgemm::emu::detail {

bool read_tma_record(const CUtensorMap* map, TmaRecord* out) {
  std::memcpy(out, map, sizeof(TmaRecord));
  return out->magic == kTmaRecordMagic;
}

}  // namespace bwgemm::emu::detail
