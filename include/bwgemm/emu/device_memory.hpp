// Which host memory the emulated GPU's global memory is, as the public entry points' device-pointer check
// sees it (host::require_device_pointer in host/launch.hpp).
//
// The emulator's global memory is host memory. By default every pointer counts as device memory: the
// emulator's own tests and the emulation builds of the examples pass host buffers to the entry points. The
// emulated CUDA runtime (bwgemm::emu_cudart, src/emu_cudart/, include/bwgemm/emu/cudart.hpp) installs its
// allocation registry here when a program links it, so that, as on a GPU, only memory from its cudaMalloc
// (or cudaMallocHost) passes and any other pointer is refused with the operand's name.
#pragma once

#include <atomic>
#include <string>

namespace bwgemm::emu {

// True if [p, p + 1) lies in memory the emulated GPU may access; otherwise false with `why` set to a
// sentence fragment ("not inside any live allocation of the emulated cudaMalloc").
using DevicePointerQuery = bool (*)(const void* p, std::string* why);

namespace detail {
inline std::atomic<DevicePointerQuery>& device_pointer_query_slot() {
  static std::atomic<DevicePointerQuery> slot{nullptr};
  return slot;
}
}  // namespace detail

// Installs `query` (nullptr: every pointer is device memory again). Returns the previous one.
inline DevicePointerQuery set_device_pointer_query(DevicePointerQuery query) {
  return detail::device_pointer_query_slot().exchange(query);
}

// The installed query, or nullptr when any host pointer counts as device memory.
inline DevicePointerQuery device_pointer_query() {
  return detail::device_pointer_query_slot().load();
}

}  // namespace bwgemm::emu
