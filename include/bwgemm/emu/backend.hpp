// The CPU emulation backend of bwgemm's ptx/ layer. With BWGEMM_EMULATION=1 every ptx/ header includes this
// file, and each device wrapper bwgemm::ptx::NAME forwards to bwgemm::emu::NAME declared here, with the same
// signature. The headers in include/bwgemm/emu/ declare the emulator and keep what must stay templates
// (the launch, the wrappers templated on cta_group, rank, scope, ...); its non-template core is compiled
// once, from src/emu/, into the static library bwgemm::emu. Link that CMake target (it also defines
// BWGEMM_EMULATION=1) and compile kernel sources as host C++. docs/emulator.md describes the model and how
// to debug a kernel with it.
#pragma once

#if !BWGEMM_EMULATION
#error "bwgemm/emu/backend.hpp is the BWGEMM_EMULATION=1 backend (link bwgemm::emu)"
#endif

#include <bwgemm/emu/clc.hpp>
#include <bwgemm/emu/compat.hpp>
#include <bwgemm/emu/config.hpp>
#include <bwgemm/emu/launch.hpp>
#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/math_ops.hpp>
#include <bwgemm/emu/mbarrier.hpp>
#include <bwgemm/emu/tcgen05.hpp>
#include <bwgemm/emu/tensor_map.hpp>
#include <bwgemm/emu/thread_ops.hpp>
#include <bwgemm/emu/tma.hpp>
