// The emulated GPU: a grid of clusters of CTAs of threads, each thread a fiber, run by a deterministic
// round-robin scheduler, plus the engine that completes asynchronous operations (TMA, tcgen05, CLC).
//
// Execution model (what docs/emulator.md calls "the machine"):
//  * Clusters start in launch order (cluster x fastest) while fewer than max_resident_clusters run; a
//    cluster retires when all its threads have exited and none of its asynchronous operations is pending.
//  * Within the resident clusters, threads are visited in a fixed order (cluster, CTA rank, thread index).
//    A visited thread runs until it blocks (a wait whose condition is false), yields or exits. A blocked
//    thread is resumed only once its condition holds; the scheduler evaluates the condition itself.
//  * After every resumption the asynchronous operations that are due run (immediately by default; after a
//    seeded random delay with LaunchConfig::max_async_delay_steps).
//  * When no thread can run and no asynchronous operation is pending, the launch is deadlocked: the report
//    lists, per warp, what each blocked thread waits for and the state of that barrier.
//  * An error (misuse, out-of-bounds access, deadlock) ends the launch: launch() returns EmuResult{false,
//    report}. Nothing is thrown through fiber stacks; the fibers of an aborted launch are discarded without
//    unwinding (objects on their stacks are not destroyed).
//
// The member functions are compiled once, in src/emu/machine.cpp (the bwgemm::emu library).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <bwgemm/base/hardware.hpp>
#include <bwgemm/emu/config.hpp>
#include <bwgemm/emu/fiber.hpp>
#include <bwgemm/emu/mbarrier_state.hpp>
#include <bwgemm/emu/tmem_state.hpp>

namespace bwgemm::emu::detail {

inline constexpr uint32_t kWarpSize = ::bwgemm::hw::kWarpSize;  // unsigned, for the lane loops
inline constexpr uint32_t kNamedBarriers = 16;  // PTX ISA 9.7.13.1 "bar/barrier": barrier ids 0..15

struct Machine;
struct Cluster;
struct Cta;

// Thrown only on the scheduler's own stack (never through a fiber) to abort a launch.
struct AbortLaunch {
  std::string message;
};

struct Wait {
  std::function<bool()> ready;            // evaluated by the scheduler; the thread resumes once true
  std::function<std::string()> describe;  // for the deadlock report, evaluated when the report is written
};

enum class ThreadState { kRunnable, kBlocked, kExited };

struct Thread {
  Machine* machine = nullptr;
  Cta* cta = nullptr;
  uint32_t tid = 0;  // linear index in the CTA
  ptx::Dim3 tid3;
  uint32_t warp = 0;
  uint32_t lane = 0;
  ThreadState state = ThreadState::kRunnable;
  Wait wait;
  std::unique_ptr<Fiber> fiber;
  // barrier.cluster: whether this thread has arrived in the current cluster-barrier phase.
  bool cluster_arrived = false;
  uint64_t cluster_arrival_phase = 0;
  uint64_t calls = 0;
  // cp.async.bulk groups (TMA stores): the open group and the committed ones, each a count of pending ops.
  std::shared_ptr<int> open_bulk_group = std::make_shared<int>(0);
  std::vector<std::shared_ptr<int>> bulk_groups;
};

// One in-flight warp-collective operation over the lanes of `mask`.
struct CollectiveSlot {
  std::string op;
  uint32_t mask = 0;
  uint32_t arrived = 0;
  uint64_t generation = 0;
  std::array<uint64_t, kWarpSize> in{};
  std::array<uint64_t, kWarpSize> out{};
};

struct Warp {
  uint32_t lanes_present = 0;  // lanes that exist (a partial last warp has fewer)
  uint32_t exited = 0;
  std::list<CollectiveSlot> slots;
  std::map<uint32_t, uint64_t> completed_generation;  // by mask
};

struct NamedBarrier {
  uint32_t expected = 0;     // threads; 0 while idle
  bool all_threads = false;  // bar.sync 0 without a count: every non-exited thread of the CTA
  uint32_t arrived = 0;
  uint64_t generation = 0;
};

struct Cta {
  Cluster* cluster = nullptr;
  uint32_t rank = 0;  // %cluster_ctarank
  ptx::Dim3 ctaid;
  ptx::Dim3 cluster_ctaid;
  uint32_t smid = 0;
  uint8_t* smem = nullptr;  // the whole shared window [0, smem_end); [0, kSharedWindowBase) is reserved
  uint32_t smem_end = 0;
  std::vector<std::unique_ptr<Thread>> threads;
  std::vector<Warp> warps;
  uint32_t live_threads = 0;
  std::array<NamedBarrier, kNamedBarriers> named{};
  std::map<uint32_t, MbarrierState> mbarriers;  // by shared-window offset
  TensorMemory tmem;
  bool tmem_permit_relinquished = false;
  char clc_queue = 0;  // its address names this CTA's in-order queue of CLC requests (AsyncOp::queue)

  ~Cta() { std::free(smem); }
};

struct Cluster {
  uint32_t index = 0;  // linear cluster index in launch order
  ptx::Dim3 clusterid;
  uint32_t slot = 0;  // resident slot ("SM group")
  std::vector<std::unique_ptr<Cta>> ctas;
  uint32_t live_threads = 0;
  // barrier.cluster
  uint32_t barrier_arrived = 0;
  uint64_t barrier_phase = 0;
};

// A pending asynchronous operation.
struct AsyncOp {
  uint64_t seq = 0;
  uint64_t ready_step = 0;
  const void* queue = nullptr;  // ops with the same non-null queue complete in issue order
  Cluster* owner = nullptr;
  std::string what;  // for reports
  std::function<void()> run;
  // Tensor-memory columns this operation writes (for the read-before-completion check).
  struct TmemWrite {
    Cta* cta;
    uint32_t lane_lo, lane_hi, col_lo, col_hi;  // half-open
  };
  std::vector<TmemWrite> tmem_writes;
};

enum class ClusterStatus { kNotStarted, kRunning, kDone, kCanceled };

// The launch running on this OS thread and its running emulated thread (null outside a launch / while the
// scheduler runs). One instance per OS thread, defined in src/emu/machine.cpp.
extern thread_local Machine* g_machine;
extern thread_local Thread* g_thread;

std::string format_dim3(const ptx::Dim3& d);
std::string format_hex(uint64_t v);
// "lane 3", "lanes 0-31", "lanes 0-3,8"
std::string format_lanes(uint32_t mask);

struct Machine {
  Machine(const LaunchConfig& config, std::function<void()> kernel_body);
  ~Machine();

  const LaunchConfig cfg;
  std::function<void()> body;
  std::mt19937_64 rng;
  uint64_t step = 0;
  uint64_t async_seq = 0;
  bool aborted = false;
  std::string error;
  ucontext_t scheduler_context{};

  ptx::Dim3 grid_clusters;  // %nclusterid
  uint32_t cluster_size = 1;
  uint32_t threads_per_cta = 0;
  std::vector<ClusterStatus> cluster_status;
  uint32_t next_cluster = 0;  // launch order: the next cluster not yet started or canceled
  std::vector<std::unique_ptr<Cluster>> resident;
  std::vector<bool> slot_busy;
  std::list<AsyncOp> async_ops;

  // ------------------------------------------------------------------------------------------------
  // Context of the running thread.
  Thread& thread();
  Cta& cta() { return *thread().cta; }

  std::string where() const;

  // Ends the launch with `message`. On a fiber: switches to the scheduler for good. On the scheduler's stack
  // (asynchronous operations): throws AbortLaunch, caught by run().
  [[noreturn]] void fail(const std::string& message);

  // Blocks the running thread until `ready` holds.
  void block(std::function<bool()> ready, std::function<std::string()> describe);

  void yield();

  // Every emulated instruction calls this first (the optional "yield every N calls").
  void on_call();

  // ------------------------------------------------------------------------------------------------
  // Warp collectives (.sync / .sync.aligned): every lane of `mask` must reach the same operation; the
  // last to arrive runs `combine` over all lanes' inputs, then all continue with their outputs.
  using Combine = std::function<void(const std::array<uint64_t, kWarpSize>& in, uint32_t mask,
                                     std::array<uint64_t, kWarpSize>& out)>;

  uint64_t warp_collective(const std::string& op, uint32_t mask, uint64_t input, const Combine& combine);
  std::map<std::pair<Warp*, uint32_t>, std::array<uint64_t, kWarpSize>> finished_out;

  // The mask of the non-exited lanes of the running thread's warp (what .aligned collectives expect).
  uint32_t warp_live_mask();

  // ------------------------------------------------------------------------------------------------
  // Asynchronous operations.
  void post_async(AsyncOp op);

  // Runs every due operation (an ordered queue's ops only after all earlier ones of that queue).
  void run_due_async();

  // The first pending operation that writes tensor memory of `cta` overlapping the given cells.
  const AsyncOp* pending_tmem_writer(const Cta* c, uint32_t lane_lo, uint32_t lane_hi, uint32_t col_lo,
                                     uint32_t col_hi) const;

  // ------------------------------------------------------------------------------------------------
  // Thread exit bookkeeping: collectives waiting for the lane, CTA barrier 0, the cluster barrier.
  void on_thread_exit(Thread& t);
  void complete_named_barrier_if_done(Cta& c, NamedBarrier& b);
  void complete_cluster_barrier_if_done(Cluster& cl);

  // ------------------------------------------------------------------------------------------------
  // Cluster lifecycle.
  static void thread_entry(void* arg);
  ptx::Dim3 cluster_coords(uint32_t index) const;
  void start_cluster(uint32_t index, uint32_t slot);

  // Starts clusters in launch order while a resident slot is free.
  void fill_slots();

  // clusterlaunchcontrol.try_cancel: the next cluster that has not started, or -1 when none is left.
  int64_t cancel_next_cluster();

  void retire_finished_clusters();
  std::string validate_config() const;

  // ------------------------------------------------------------------------------------------------
  std::string report_threads(const char* headline);

  EmuResult run();
};

// The machine of the launch running on this OS thread; fails when called outside a launch.
Machine& machine();

}  // namespace bwgemm::emu::detail
