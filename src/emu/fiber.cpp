// Fibers of the emulator and the stack-overflow handler (include/bwgemm/emu/fiber.hpp).
#include <bwgemm/emu/fiber.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace bwgemm::emu::detail {

thread_local Fiber* g_running_fiber = nullptr;

std::size_t page_bytes() {
  static const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

Fiber::Fiber(std::size_t stack_bytes, Entry entry, void* arg) : entry_(entry), arg_(arg) {
  const std::size_t page = page_bytes();
  stack_bytes_ = (stack_bytes + page - 1) / page * page;
  mapping_bytes_ = stack_bytes_ + page;
  void* p = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "bwgemm emu: mmap of a %zu-byte fiber stack failed\n", mapping_bytes_);
    std::abort();
  }
  mapping_ = static_cast<char*>(p);
  mprotect(mapping_, page, PROT_NONE);  // guard page: stacks grow down into it
  getcontext(&context_);
  context_.uc_stack.ss_sp = mapping_ + page;
  context_.uc_stack.ss_size = stack_bytes_;
  context_.uc_link = nullptr;
  const auto bits = reinterpret_cast<uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::trampoline), 2,
              static_cast<unsigned>(bits & 0xFFFFFFFFu), static_cast<unsigned>(bits >> 32));
}

Fiber::~Fiber() {
  munmap(mapping_, mapping_bytes_);
}

void Fiber::resume(ucontext_t* scheduler) {
  scheduler_ = scheduler;
  g_running_fiber = this;
  swapcontext(scheduler, &context_);
  g_running_fiber = nullptr;
}

void Fiber::switch_to_scheduler() {
  swapcontext(&context_, scheduler_);
}

bool Fiber::in_guard_page(const void* addr) const {
  const char* a = static_cast<const char*>(addr);
  return a >= mapping_ && a < mapping_ + page_bytes();
}

void Fiber::trampoline(unsigned lo, unsigned hi) {
  auto* self = reinterpret_cast<Fiber*>(static_cast<uintptr_t>(lo) | (static_cast<uintptr_t>(hi) << 32));
  self->entry_(self->arg_);
  // The entry never returns: it ends with a final switch to the scheduler.
  std::fprintf(stderr, "bwgemm emu: fiber entry returned\n");
  std::abort();
}

namespace {

// SIGSEGV handler that reports fiber stack overflows; other faults go to the previous handler.
struct sigaction g_previous_segv_action {};

void on_segv(int sig, siginfo_t* info, void* uc) {
  Fiber* f = g_running_fiber;
  if (f != nullptr && info != nullptr && f->in_guard_page(info->si_addr)) {
    char msg[256];
    const int n =
        std::snprintf(msg, sizeof msg,
                      "bwgemm emu: stack overflow of an emulated GPU thread (fiber stack %zu bytes); "
                      "raise LaunchConfig::stack_bytes\n",
                      f->stack_bytes());
    if (n > 0) (void)!write(2, msg, static_cast<std::size_t>(n));
    std::abort();
  }
  if (g_previous_segv_action.sa_flags & SA_SIGINFO) {
    if (g_previous_segv_action.sa_sigaction != nullptr) {
      g_previous_segv_action.sa_sigaction(sig, info, uc);
      return;
    }
  } else if (g_previous_segv_action.sa_handler != SIG_DFL && g_previous_segv_action.sa_handler != SIG_IGN) {
    g_previous_segv_action.sa_handler(sig);
    return;
  }
  signal(SIGSEGV, SIG_DFL);  // returning re-executes the faulting access under the default action
}

}  // namespace

void install_stack_overflow_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_previous_segv_action);
  });
  thread_local bool has_altstack = false;
  if (!has_altstack) {
    static thread_local char altstack[64 * 1024];
    stack_t ss{};
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    sigaltstack(&ss, nullptr);
    has_altstack = true;
  }
}

}  // namespace bwgemm::emu::detail
