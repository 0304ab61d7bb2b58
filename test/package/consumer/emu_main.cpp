// A downstream project on the CPU emulator: a kernel compiled as host C++ against the installed static
// library bwgemm::emu (find_package(bwgemm) + target_link_libraries(... bwgemm::emu)).
#include <bwgemm/emu/backend.hpp>

#include <cstdint>
#include <cstdio>

namespace emu = bwgemm::emu;

// Every thread writes warp * 1000 + lane after a CTA barrier: scheduler, fibers, warp collectives, bar.sync.
void fill_kernel(uint32_t* out) {
  const uint32_t tid = emu::thread_idx().x;
  const uint32_t warp = emu::warp_idx();
  emu::sync_threads();
  out[emu::block_idx().x * emu::block_dim().x + tid] = warp * 1000 + emu::lane_idx();
}

int main() {
  emu::LaunchConfig cfg;
  cfg.grid = {2, 1, 1};
  cfg.block = {64, 1, 1};
  uint32_t out[128] = {};
  const emu::EmuResult r = emu::launch(cfg, fill_kernel, out);
  if (!r.ok) {
    std::printf("%s\n", r.message.c_str());
    return 1;
  }
  int wrong = 0;
  for (uint32_t i = 0; i < 128; ++i) wrong += out[i] != (i % 64) / 32 * 1000 + i % 32;
  std::printf("bwgemm emu: 128 threads ran, %d wrong\n", wrong);
  return wrong == 0 ? 0 : 1;
}
