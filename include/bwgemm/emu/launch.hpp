// bwgemm::emu::launch: run a kernel (a function compiled as host C++ with BWGEMM_EMULATION=1) on the
// emulated GPU.
//
//   bwgemm::emu::LaunchConfig cfg;
//   cfg.grid = {4, 1, 1}; cfg.block = {224, 1, 1}; cfg.cluster = {2, 1, 1};
//   cfg.dynamic_smem_bytes = smem_bytes; cfg.max_resident_clusters = 2;
//   bwgemm::emu::EmuResult r = bwgemm::emu::launch(cfg, my_kernel<Cfg>, tmap_a, tmap_b, c_ptr, m, n);
//   ASSERT_TRUE(r.ok) << r.message;
//
// The arguments are copied once, like kernel parameters; every emulated thread calls the kernel with them.
// Launches are synchronous: when launch() returns, every thread has exited (or the launch failed).
// launch() is a template over the kernel and its arguments; the machine it runs is compiled in the
// bwgemm::emu library (src/emu/machine.cpp).
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include <bwgemm/emu/config.hpp>
#include <bwgemm/emu/machine.hpp>

namespace bwgemm::emu {

template <class Kernel, class... Args>
EmuResult launch(const LaunchConfig& config, Kernel&& kernel, Args&&... args) {
  auto params = std::make_tuple(std::decay_t<Args>(std::forward<Args>(args))...);
  detail::Machine m(config, [&kernel, &params] { std::apply(kernel, params); });
  return m.run();
}

}  // namespace bwgemm::emu
