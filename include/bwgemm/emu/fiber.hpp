// Cooperative fibers for the emulator: ucontext contexts on mmap'd stacks with a guard page.
//
// One fiber per emulated GPU thread. A fiber runs until it calls switch_to_scheduler(); the scheduler
// resumes it with resume(). A write into the guard page below a stack (a stack overflow) is caught by a
// SIGSEGV handler on an alternate signal stack, which names the overflow and the configured stack size
// before aborting, instead of a silent crash. The bodies are in src/emu/fiber.cpp (the bwgemm::emu library).
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace bwgemm::emu::detail {

class Fiber;

// The fiber whose stack is in use on this OS thread (null while the scheduler runs). Read by the SIGSEGV
// handler to recognise guard-page hits. One instance per OS thread, defined in src/emu/fiber.cpp.
extern thread_local Fiber* g_running_fiber;

std::size_t page_bytes();

class Fiber {
 public:
  using Entry = void (*)(void*);

  Fiber(std::size_t stack_bytes, Entry entry, void* arg);
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
  ~Fiber();

  // Runs the fiber until it switches back; `scheduler` receives the scheduler's context.
  void resume(ucontext_t* scheduler);
  // Called on the fiber's own stack.
  void switch_to_scheduler();

  bool in_guard_page(const void* addr) const;
  std::size_t stack_bytes() const { return stack_bytes_; }

 private:
  static void trampoline(unsigned lo, unsigned hi);

  Entry entry_;
  void* arg_;
  char* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  std::size_t stack_bytes_ = 0;
  ucontext_t context_{};
  ucontext_t* scheduler_ = nullptr;
};

// Installs the SIGSEGV handler that reports fiber stack overflows (other faults go to the previous handler)
// once per process, and an alternate signal stack once per OS thread.
void install_stack_overflow_handler();

}  // namespace bwgemm::emu::detail
