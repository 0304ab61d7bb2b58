// Programmatic dependent launch (PDL): PTX ISA griddepcontrol (Parallel Synchronization and Communication
// Instructions; PTX ISA 7.8, sm_90 and newer). Inline asm, as the CUDA runtime's own device functions
// (cudaGridDependencySynchronize, cudaTriggerProgrammaticLaunchCompletion in cuda_device_runtime_api.h)
// spell it: this toolkit's cuda::ptx has no griddepcontrol.
//
// A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization (host/launch.hpp,
// LaunchOptions::programmatic_dependent_launch) may start while the previous kernel of its stream still
// runs. Its threads must then execute griddepcontrol.wait before they touch global memory the previous grid
// writes or reads: the wait returns once every prerequisite grid has completed and its memory operations
// are performed and visible to this grid. A kernel launched without the attribute waits for nothing (the
// stream already ordered it); the instruction then returns at once.
//
// griddepcontrol.launch_dependents lets the dependent grid be scheduled once every CTA of this grid has
// executed it or exited (one thread per CTA suffices; repeated executions in a CTA have no further effect).
// It orders no memory: the dependent's own griddepcontrol.wait still waits for this grid's completion and
// memory flush, so triggering early is always safe for the data; it only decides how soon the dependent's
// CTAs take SM resources.
//
// Emulation: the emulator runs grids one after another, each launch returning when its grid has finished
// (emu/launch.hpp), so there is never a prerequisite grid in flight and never a dependent to start early:
// both are no-ops there, a faithful model of what the instructions guarantee (docs/emulator.md).
#pragma once

#include <bwgemm/base/macros.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#endif

namespace bwgemm::ptx {

// griddepcontrol.wait: until every prerequisite grid has completed and its memory is visible. The memory
// clobber keeps the compiler from moving this thread's loads and stores across it.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void griddepcontrol_wait() {
#if BWGEMM_EMULATION
  ::bwgemm::emu::griddepcontrol_wait();
#else
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// griddepcontrol.launch_dependents: the dependent grid may be scheduled once every CTA of this grid has
// executed this (or exited).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void griddepcontrol_launch_dependents() {
#if BWGEMM_EMULATION
  ::bwgemm::emu::griddepcontrol_launch_dependents();
#else
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace bwgemm::ptx
