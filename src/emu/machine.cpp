// The emulated GPU's scheduler and asynchronous-operation engine (include/bwgemm/emu/machine.hpp).
#include <bwgemm/emu/machine.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bwgemm::emu::detail {

thread_local Machine* g_machine = nullptr;
thread_local Thread* g_thread = nullptr;

std::string format_dim3(const ptx::Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

std::string format_hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string format_lanes(uint32_t mask) {
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

Machine::Machine(const LaunchConfig& config, std::function<void()> kernel_body)
    : cfg(config), body(std::move(kernel_body)), rng(config.seed) {}

Machine::~Machine() = default;

Thread& Machine::thread() {
  if (g_thread == nullptr) fail("a device-side operation was called outside an emulated GPU thread");
  return *g_thread;
}

std::string Machine::where() const {
  if (g_thread == nullptr) return {};
  const Thread& t = *g_thread;
  return " [CTA " + format_dim3(t.cta->ctaid) + ", cluster rank " + std::to_string(t.cta->rank) +
         ", thread " + std::to_string(t.tid) + " (warp " + std::to_string(t.warp) + ", lane " +
         std::to_string(t.lane) + ")]";
}

void Machine::fail(const std::string& message) {
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

void Machine::block(std::function<bool()> ready, std::function<std::string()> describe) {
  if (ready()) return;
  Thread& t = thread();
  t.wait = Wait{std::move(ready), std::move(describe)};
  t.state = ThreadState::kBlocked;
  t.fiber->switch_to_scheduler();
  t.wait = Wait{};
}

void Machine::yield() {
  Thread& t = thread();
  t.state = ThreadState::kRunnable;
  t.fiber->switch_to_scheduler();
}

void Machine::on_call() {
  Thread& t = thread();
  ++t.calls;
  if (cfg.yield_every_calls != 0 && t.calls % cfg.yield_every_calls == 0) yield();
}

uint64_t Machine::warp_collective(const std::string& op, uint32_t mask, uint64_t input,
                                  const Combine& combine) {
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

uint32_t Machine::warp_live_mask() {
  Thread& t = thread();
  const Warp& w = t.cta->warps[t.warp];
  return w.lanes_present & ~w.exited;
}

void Machine::post_async(AsyncOp op) {
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

void Machine::run_due_async() {
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

const AsyncOp* Machine::pending_tmem_writer(const Cta* c, uint32_t lane_lo, uint32_t lane_hi, uint32_t col_lo,
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

void Machine::on_thread_exit(Thread& t) {
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

void Machine::complete_named_barrier_if_done(Cta& c, NamedBarrier& b) {
  if (b.arrived == 0) return;
  const uint32_t need = b.all_threads ? c.live_threads : b.expected;
  if (b.arrived >= need) {
    b.arrived = 0;
    b.expected = 0;
    b.all_threads = false;
    ++b.generation;
  }
}

void Machine::complete_cluster_barrier_if_done(Cluster& cl) {
  if (cl.barrier_arrived > 0 && cl.barrier_arrived >= cl.live_threads) {
    cl.barrier_arrived = 0;
    ++cl.barrier_phase;
  }
}

void Machine::thread_entry(void* arg) {
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

ptx::Dim3 Machine::cluster_coords(uint32_t index) const {
  return {index % grid_clusters.x, (index / grid_clusters.x) % grid_clusters.y,
          index / (grid_clusters.x * grid_clusters.y)};
}

void Machine::start_cluster(uint32_t index, uint32_t slot) {
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

void Machine::fill_slots() {
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

int64_t Machine::cancel_next_cluster() {
  while (next_cluster < cluster_status.size() && cluster_status[next_cluster] != ClusterStatus::kNotStarted) {
    ++next_cluster;
  }
  if (next_cluster >= cluster_status.size()) return -1;
  cluster_status[next_cluster] = ClusterStatus::kCanceled;
  return next_cluster++;
}

void Machine::retire_finished_clusters() {
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

std::string Machine::validate_config() const {
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
  if (cfg.dynamic_smem_bytes > kMaxDynamicSharedBytes)
    return "dynamic shared memory above " + std::to_string(kMaxDynamicSharedBytes) + " bytes";
  if (cfg.max_resident_clusters == 0) return "max_resident_clusters must be >= 1";
  return {};
}

std::string Machine::report_threads(const char* headline) {
  std::string r = std::string("bwgemm emu: ") + headline + " (scheduler step " + std::to_string(step) + ")\n";
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
          auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first == what; });
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

EmuResult Machine::run() {
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

Machine& machine() {
  if (g_machine == nullptr) {
    std::fprintf(stderr, "bwgemm emu: a device-side operation was called outside bwgemm::emu::launch\n");
    std::abort();
  }
  return *g_machine;
}

}  // namespace bwgemm::emu::detail
