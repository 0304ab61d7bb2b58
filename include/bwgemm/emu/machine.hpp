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

#include <bwgemm/emu/config.hpp>
#include <bwgemm/emu/fiber.hpp>
#include <bwgemm/emu/mbarrier_state.hpp>
#include <bwgemm/emu/tmem_state.hpp>

namespace bwgemm::emu::detail {

inline constexpr uint32_t kWarpSize = 32;
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

inline thread_local Machine* g_machine = nullptr;
inline thread_local Thread* g_thread = nullptr;

inline std::string format_dim3(const ptx::Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

inline std::string format_hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// "lane 3", "lanes 0-31", "lanes 0-3,8"
inline std::string format_lanes(uint32_t mask) {
  std::string out;
  int count = 0;
  for (int i = 0; i < 32;) {
    if (!(mask >> i & 1u)) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < 32 && (mask >> (j + 1) & 1u)) ++j;
    if (!out.empty()) out += ",";
    out += (i == j) ? std::to_string(i) : std::to_string(i) + "-" + std::to_string(j);
    count += j - i + 1;
    i = j + 1;
  }
  return (count == 1 ? "lane " : "lanes ") + out;
}

struct Machine {
  Machine(const LaunchConfig& config, std::function<void()> kernel_body)
      : cfg(config), body(std::move(kernel_body)), rng(config.seed) {}

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
  Thread& thread() {
    if (g_thread == nullptr) fail("a device-side operation was called outside an emulated GPU thread");
    return *g_thread;
  }
  Cta& cta() { return *thread().cta; }

  std::string where() const {
    if (g_thread == nullptr) return {};
    const Thread& t = *g_thread;
    return " [CTA " + format_dim3(t.cta->ctaid) + ", cluster rank " + std::to_string(t.cta->rank) +
           ", thread " + std::to_string(t.tid) + " (warp " + std::to_string(t.warp) + ", lane " +
           std::to_string(t.lane) + ")]";
  }

  // Ends the launch with `message`. On a fiber: switches to the scheduler for good. On the scheduler's stack
  // (asynchronous operations): throws AbortLaunch, caught by run().
  [[noreturn]] void fail(const std::string& message) {
    std::string full = "bwgemm emu: " + message + where();
    if (g_thread != nullptr) {
      if (!aborted) {
        aborted = true;
        error = std::move(full);
      }
      Thread& t = *g_thread;
      t.state = ThreadState::kExited;
      t.fiber->switch_to_scheduler();
      std::fprintf(stderr, "bwgemm emu: an aborted fiber was resumed\n");
      std::abort();
    }
    throw AbortLaunch{std::move(full)};
  }

  // Blocks the running thread until `ready` holds.
  void block(std::function<bool()> ready, std::function<std::string()> describe) {
    if (ready()) return;
    Thread& t = thread();
    t.wait = Wait{std::move(ready), std::move(describe)};
    t.state = ThreadState::kBlocked;
    t.fiber->switch_to_scheduler();
    t.wait = Wait{};
  }

  void yield() {
    Thread& t = thread();
    t.state = ThreadState::kRunnable;
    t.fiber->switch_to_scheduler();
  }

  // Every emulated instruction calls this first (the optional "yield every N calls").
  void on_call() {
    Thread& t = thread();
    ++t.calls;
    if (cfg.yield_every_calls != 0 && t.calls % cfg.yield_every_calls == 0) yield();
  }

  // ------------------------------------------------------------------------------------------------
  // Warp collectives (.sync / .sync.aligned): every lane of `mask` must reach the same operation; the
  // last to arrive runs `combine` over all lanes' inputs, then all continue with their outputs.
  using Combine = std::function<void(const std::array<uint64_t, kWarpSize>& in, uint32_t mask,
                                     std::array<uint64_t, kWarpSize>& out)>;

  uint64_t warp_collective(const std::string& op, uint32_t mask, uint64_t input, const Combine& combine) {
    Thread& t = thread();
    Warp& w = t.cta->warps[t.warp];
    const uint32_t me = 1u << t.lane;
    if ((mask & me) == 0) {
      fail(op + ": the executing lane is not in membermask " + format_hex(mask));
    }
    if ((mask & ~w.lanes_present) != 0) {
      fail(op + ": membermask " + format_hex(mask) + " names lanes that do not exist in this warp");
    }
    if ((mask & w.exited) != 0) {
      fail(op + ": membermask " + format_hex(mask) + " includes exited " + format_lanes(mask & w.exited));
    }
    CollectiveSlot* slot = nullptr;
    for (auto& s : w.slots) {
      if (s.mask == mask || (s.mask & mask) != 0) {
        if (s.mask != mask || s.op != op) {
          fail("warp-collective mismatch: this lane executes " + op + " with membermask " + format_hex(mask) +
               " while " + format_lanes(s.arrived) + " wait in " + s.op + " with membermask " +
               format_hex(s.mask));
        }
        slot = &s;
      }
    }
    if (slot == nullptr) {
      w.slots.emplace_back();
      slot = &w.slots.back();
      slot->op = op;
      slot->mask = mask;
      slot->generation = w.completed_generation[mask];
    }
    if (slot->arrived & me) fail(op + ": lane arrived twice at one warp-collective operation");
    slot->arrived |= me;
    slot->in[t.lane] = input;
    if (slot->arrived == mask) {
      combine(slot->in, mask, slot->out);
      const uint64_t result = slot->out[t.lane];
      auto& done = w.completed_generation[mask];
      ++done;
      // Results of the finished operation stay readable by the waiting lanes through `finished_out`.
      finished_out[{&w, mask}] = slot->out;
      for (auto it = w.slots.begin(); it != w.slots.end(); ++it) {
        if (&*it == slot) {
          w.slots.erase(it);
          break;
        }
      }
      return result;
    }
    const uint64_t my_generation = slot->generation;
    Warp* wp = &w;
    const uint32_t lane = t.lane;
    block([wp, mask, my_generation] { return wp->completed_generation[mask] > my_generation; },
          [wp, mask, op] {
            uint32_t arrived = 0;
            for (auto& s : wp->slots) {
              if (s.mask == mask) arrived = s.arrived;
            }
            return "warp-collective " + op + " (membermask " + format_hex(mask) + "): waiting for " +
                   format_lanes(mask & ~arrived & ~wp->exited) +
                   ((mask & wp->exited) ? ", and exited " + format_lanes(mask & wp->exited) : std::string());
          });
    return finished_out[{wp, mask}][lane];
  }
  std::map<std::pair<Warp*, uint32_t>, std::array<uint64_t, kWarpSize>> finished_out;

  // The mask of the non-exited lanes of the running thread's warp (what .aligned collectives expect).
  uint32_t warp_live_mask() {
    Thread& t = thread();
    const Warp& w = t.cta->warps[t.warp];
    return w.lanes_present & ~w.exited;
  }

  // ------------------------------------------------------------------------------------------------
  // Asynchronous operations.
  void post_async(AsyncOp op) {
    op.seq = async_seq++;
    op.ready_step = step;
    if (cfg.max_async_delay_steps != 0) op.ready_step += rng() % (cfg.max_async_delay_steps + 1ull);
    if (op.queue != nullptr) {  // an ordered queue completes in issue order: never due before its predecessor
      for (const auto& other : async_ops) {
        if (other.queue == op.queue) op.ready_step = std::max(op.ready_step, other.ready_step);
      }
    }
    if (op.owner == nullptr && g_thread != nullptr) op.owner = g_thread->cta->cluster;
    async_ops.push_back(std::move(op));
  }

  // Runs every due operation (an ordered queue's ops only after all earlier ones of that queue).
  void run_due_async() {
    bool ran = true;
    while (ran) {
      ran = false;
      std::vector<const void*> blocked_queues;
      for (auto it = async_ops.begin(); it != async_ops.end();) {
        const bool queue_blocked =
            it->queue != nullptr &&
            std::find(blocked_queues.begin(), blocked_queues.end(), it->queue) != blocked_queues.end();
        if (!queue_blocked && it->ready_step <= step) {
          AsyncOp op = std::move(*it);
          it = async_ops.erase(it);
          op.run();
          ran = true;
          continue;
        }
        if (it->queue != nullptr) blocked_queues.push_back(it->queue);
        ++it;
      }
    }
  }

  // The first pending operation that writes tensor memory of `cta` overlapping the given cells.
  const AsyncOp* pending_tmem_writer(const Cta* c, uint32_t lane_lo, uint32_t lane_hi, uint32_t col_lo,
                                     uint32_t col_hi) const {
    for (const auto& op : async_ops) {
      for (const auto& w : op.tmem_writes) {
        if (w.cta == c && lane_lo < w.lane_hi && w.lane_lo < lane_hi && col_lo < w.col_hi &&
            w.col_lo < col_hi) {
          return &op;
        }
      }
    }
    return nullptr;
  }

  // ------------------------------------------------------------------------------------------------
  // Thread exit bookkeeping: collectives waiting for the lane, CTA barrier 0, the cluster barrier.
  void on_thread_exit(Thread& t) {
    Cta& c = *t.cta;
    Warp& w = c.warps[t.warp];
    w.exited |= 1u << t.lane;
    for (auto& s : w.slots) {
      if (s.mask & (1u << t.lane)) {
        fail("thread exited while " + format_lanes(s.arrived) + " of its warp wait for it in " + s.op);
      }
    }
    --c.live_threads;
    --c.cluster->live_threads;
    for (auto& b : c.named) complete_named_barrier_if_done(c, b);
    complete_cluster_barrier_if_done(*c.cluster);
  }

  void complete_named_barrier_if_done(Cta& c, NamedBarrier& b) {
    if (b.arrived == 0) return;
    const uint32_t need = b.all_threads ? c.live_threads : b.expected;
    if (b.arrived >= need) {
      b.arrived = 0;
      b.expected = 0;
      b.all_threads = false;
      ++b.generation;
    }
  }

  void complete_cluster_barrier_if_done(Cluster& cl) {
    if (cl.barrier_arrived > 0 && cl.barrier_arrived >= cl.live_threads) {
      cl.barrier_arrived = 0;
      ++cl.barrier_phase;
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Cluster lifecycle.
  static void thread_entry(void* arg) {
    Thread& t = *static_cast<Thread*>(arg);
    Machine& m = *t.machine;
    try {
      m.body();
    } catch (const std::exception& e) {
      m.fail(std::string("the kernel threw an exception: ") + e.what());
    } catch (...) {
      m.fail("the kernel threw an exception");
    }
    m.on_thread_exit(t);
    t.state = ThreadState::kExited;
    t.fiber->switch_to_scheduler();
    std::abort();
  }

  ptx::Dim3 cluster_coords(uint32_t index) const {
    return {index % grid_clusters.x, (index / grid_clusters.x) % grid_clusters.y,
            index / (grid_clusters.x * grid_clusters.y)};
  }

  void start_cluster(uint32_t index, uint32_t slot) {
    auto cl = std::make_unique<Cluster>();
    cl->index = index;
    cl->clusterid = cluster_coords(index);
    cl->slot = slot;
    const ptx::Dim3 cd = cfg.cluster;
    const uint32_t smem_end = kSharedWindowBase + cfg.dynamic_smem_bytes;
    const std::size_t alloc_bytes = (smem_end + 4095u) / 4096u * 4096u;
    for (uint32_t rank = 0; rank < cluster_size; ++rank) {
      auto c = std::make_unique<Cta>();
      c->cluster = cl.get();
      c->rank = rank;
      c->cluster_ctaid = {rank % cd.x, (rank / cd.x) % cd.y, rank / (cd.x * cd.y)};
      c->ctaid = {cl->clusterid.x * cd.x + c->cluster_ctaid.x, cl->clusterid.y * cd.y + c->cluster_ctaid.y,
                  cl->clusterid.z * cd.z + c->cluster_ctaid.z};
      c->smid = slot * cluster_size + rank;
      c->smem = static_cast<uint8_t*>(std::aligned_alloc(4096, alloc_bytes));
      std::fill(c->smem, c->smem + alloc_bytes, cfg.smem_fill);
      c->smem_end = smem_end;
      const uint32_t nwarps = (threads_per_cta + kWarpSize - 1) / kWarpSize;
      c->warps.resize(nwarps);
      for (uint32_t i = 0; i < threads_per_cta; ++i) {
        auto t = std::make_unique<Thread>();
        t->machine = this;
        t->cta = c.get();
        t->tid = i;
        t->tid3 = {i % cfg.block.x, (i / cfg.block.x) % cfg.block.y, i / (cfg.block.x * cfg.block.y)};
        t->warp = i / kWarpSize;
        t->lane = i % kWarpSize;
        c->warps[t->warp].lanes_present |= 1u << t->lane;
        t->fiber = std::make_unique<Fiber>(cfg.stack_bytes, &Machine::thread_entry, t.get());
        c->threads.push_back(std::move(t));
      }
      c->live_threads = threads_per_cta;
      cl->live_threads += threads_per_cta;
      cl->ctas.push_back(std::move(c));
    }
    cluster_status[index] = ClusterStatus::kRunning;
    slot_busy[slot] = true;
    resident.push_back(std::move(cl));
  }

  // Starts clusters in launch order while a resident slot is free.
  void fill_slots() {
    for (uint32_t slot = 0; slot < slot_busy.size(); ++slot) {
      if (slot_busy[slot]) continue;
      while (next_cluster < cluster_status.size() &&
             cluster_status[next_cluster] != ClusterStatus::kNotStarted) {
        ++next_cluster;
      }
      if (next_cluster >= cluster_status.size()) return;
      start_cluster(next_cluster++, slot);
    }
  }

  // clusterlaunchcontrol.try_cancel: the next cluster that has not started, or -1 when none is left.
  int64_t cancel_next_cluster() {
    while (next_cluster < cluster_status.size() &&
           cluster_status[next_cluster] != ClusterStatus::kNotStarted) {
      ++next_cluster;
    }
    if (next_cluster >= cluster_status.size()) return -1;
    cluster_status[next_cluster] = ClusterStatus::kCanceled;
    return next_cluster++;
  }

  void retire_finished_clusters() {
    for (auto it = resident.begin(); it != resident.end();) {
      Cluster& cl = **it;
      bool busy = cl.live_threads != 0;
      for (const auto& op : async_ops) busy = busy || op.owner == &cl;
      if (busy) {
        ++it;
        continue;
      }
      for (const auto& c : cl.ctas) {
        for (const auto& a : c->tmem.allocations()) {
          throw AbortLaunch{"bwgemm emu: CTA " + format_dim3(c->ctaid) + " (cluster rank " +
                            std::to_string(c->rank) + ") exited with " + std::to_string(a.columns) +
                            " tensor-memory columns still allocated at column " + std::to_string(a.column) +
                            " (missing tcgen05.dealloc)"};
        }
      }
      for (const auto& c : cl.ctas) {
        for (auto& w : c->warps) {
          for (auto fit = finished_out.begin(); fit != finished_out.end();) {
            fit = fit->first.first == &w ? finished_out.erase(fit) : std::next(fit);
          }
        }
      }
      cluster_status[cl.index] = ClusterStatus::kDone;
      slot_busy[cl.slot] = false;
      it = resident.erase(it);
    }
  }

  std::string validate_config() const {
    const auto& g = cfg.grid;
    const auto& b = cfg.block;
    const auto& c = cfg.cluster;
    if (g.x == 0 || g.y == 0 || g.z == 0) return "grid dimensions must be >= 1";
    if (b.x == 0 || b.y == 0 || b.z == 0) return "block dimensions must be >= 1";
    if (c.x == 0 || c.y == 0 || c.z == 0) return "cluster dimensions must be >= 1";
    if (b.x * b.y * b.z > 1024) return "more than 1024 threads per CTA";
    if (c.x * c.y * c.z > kMaxClusterSize) return "more than 16 CTAs per cluster";
    if (g.x % c.x || g.y % c.y || g.z % c.z)
      return "grid dimensions must be multiples of the cluster dimensions";
    if (cfg.dynamic_smem_bytes > kMaxDynamicSharedBytes) return "dynamic shared memory above 232448 bytes";
    if (cfg.max_resident_clusters == 0) return "max_resident_clusters must be >= 1";
    return {};
  }

  // ------------------------------------------------------------------------------------------------
  std::string report_threads(const char* headline) {
    std::string r =
        std::string("bwgemm emu: ") + headline + " (scheduler step " + std::to_string(step) + ")\n";
    for (const auto& cl : resident) {
      for (const auto& c : cl->ctas) {
        r += "CTA " + format_dim3(c->ctaid) + " (cluster " + format_dim3(cl->clusterid) + ", rank " +
             std::to_string(c->rank) + "):\n";
        for (uint32_t w = 0; w < c->warps.size(); ++w) {
          // Group the warp's lanes by what they are doing.
          std::vector<std::pair<std::string, uint32_t>> groups;
          for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
            const uint32_t tid = w * kWarpSize + lane;
            if (tid >= c->threads.size()) break;
            const Thread& t = *c->threads[tid];
            std::string what = t.state == ThreadState::kExited ? "exited"
                               : t.state == ThreadState::kRunnable
                                   ? "runnable"
                                   : (t.wait.describe ? t.wait.describe() : "blocked");
            auto g =
                std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first == what; });
            if (g == groups.end()) {
              groups.emplace_back(what, 1u << lane);
            } else {
              g->second |= 1u << lane;
            }
          }
          for (const auto& [what, mask] : groups) {
            r += "  warp " + std::to_string(w) + " " + format_lanes(mask) + ": " + what + "\n";
          }
        }
      }
    }
    uint32_t not_started = 0;
    for (auto s : cluster_status) not_started += s == ClusterStatus::kNotStarted;
    if (not_started) r += std::to_string(not_started) + " cluster(s) not started yet\n";
    for (const auto& op : async_ops) r += "pending asynchronous operation: " + op.what + "\n";
    return r;
  }

  EmuResult run() {
    EmuResult result;
    const std::string bad = validate_config();
    if (!bad.empty()) return {false, "bwgemm emu: invalid launch configuration: " + bad};
    if (g_machine != nullptr) return {false, "bwgemm emu: launch() called from inside an emulated kernel"};
    install_stack_overflow_handler();
    g_machine = this;
    grid_clusters = {cfg.grid.x / cfg.cluster.x, cfg.grid.y / cfg.cluster.y, cfg.grid.z / cfg.cluster.z};
    cluster_size = cfg.cluster.x * cfg.cluster.y * cfg.cluster.z;
    threads_per_cta = cfg.block.x * cfg.block.y * cfg.block.z;
    cluster_status.assign(grid_clusters.x * grid_clusters.y * grid_clusters.z, ClusterStatus::kNotStarted);
    slot_busy.assign(cfg.max_resident_clusters, false);
    try {
      fill_slots();
      while (!resident.empty()) {
        bool resumed = false;
        for (std::size_t ci = 0; ci < resident.size(); ++ci) {
          for (auto& c : resident[ci]->ctas) {
            for (auto& tp : c->threads) {
              Thread& t = *tp;
              if (t.state == ThreadState::kExited) continue;
              if (t.state == ThreadState::kBlocked) {
                if (!t.wait.ready()) continue;
                t.state = ThreadState::kRunnable;
              }
              g_thread = &t;
              t.fiber->resume(&scheduler_context);
              g_thread = nullptr;
              if (aborted) throw AbortLaunch{error};
              resumed = true;
              ++step;
              run_due_async();
              if (cfg.max_steps != 0 && step > cfg.max_steps) {
                throw AbortLaunch{report_threads("step limit (LaunchConfig::max_steps) exceeded; livelock?")};
              }
            }
          }
        }
        retire_finished_clusters();
        fill_slots();
        if (!resumed && !resident.empty()) {
          if (async_ops.empty()) {
            throw AbortLaunch{
                report_threads("deadlock: every thread is blocked and no asynchronous operation is pending")};
          }
          uint64_t next = UINT64_MAX;
          for (const auto& op : async_ops) next = std::min(next, op.ready_step);
          step = std::max(step, next);
          const std::size_t before = async_ops.size();
          run_due_async();
          if (async_ops.size() == before) {
            throw AbortLaunch{
                report_threads("internal error: no thread can run and no asynchronous operation "
                               "is due")};
          }
        }
      }
    } catch (const AbortLaunch& e) {
      result = {false, e.message};
    }
    g_thread = nullptr;
    g_machine = nullptr;
    resident.clear();
    return result;
  }
};

// The machine of the launch running on this OS thread; fails when called outside a launch.
inline Machine& machine() {
  if (g_machine == nullptr) {
    std::fprintf(stderr, "bwgemm emu: a device-side operation was called outside bwgemm::emu::launch\n");
    std::abort();
  }
  return *g_machine;
}

}  // namespace bwgemm::emu::detail
