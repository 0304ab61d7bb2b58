// Cluster launch control in the emulator (include/bwgemm/emu/clc.hpp), PTX ISA 9.7.13.
#include <bwgemm/emu/clc.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/mbarrier.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/isa/types.hpp>

namespace bwgemm::emu {
namespace detail {

void issue_try_cancel(uint32_t response_smem, uint32_t bar, bool multicast) {
  Machine& m = machine();
  m.on_call();
  const char* what = multicast ? "clusterlaunchcontrol.try_cancel.multicast::cluster::all"
                               : "clusterlaunchcontrol.try_cancel";
  resolve_shared_cta(response_smem, ptx::kClcResponseBytes, kClcResponseAlignment, what);
  resolve_shared_cta(bar, kMbarrierBytes, kMbarrierBytes, what);
  Cta& issuer = m.cta();
  std::vector<Cta*> targets;
  if (multicast) {
    for (auto& c : issuer.cluster->ctas) targets.push_back(c.get());
  } else {
    targets.push_back(&issuer);
  }
  const uint32_t response_offset = response_smem & kSharedOffsetMask;
  const uint32_t bar_offset = bar & kSharedOffsetMask;
  AsyncOp op;
  if (m.cfg.clc_in_issue_order) op.queue = &issuer.clc_queue;  // LaunchConfig::clc_in_issue_order says why
  op.what = std::string(what) + " responding at " + describe_shared(response_smem) + m.where();
  op.run = [targets, response_offset, bar_offset, what = op.what] {
    Machine& mm = machine();
    const int64_t canceled = mm.cancel_next_cluster();
    uint32_t words[4] = {kClcResponseTag << 16, 0, 0, 0};
    if (canceled >= 0) {
      const ptx::Dim3 cid = mm.cluster_coords(static_cast<uint32_t>(canceled));
      words[0] |= 1u;
      words[1] = cid.x * mm.cfg.cluster.x;
      words[2] = cid.y * mm.cfg.cluster.y;
      words[3] = cid.z * mm.cfg.cluster.z;
    }
    for (Cta* c : targets) {
      std::memcpy(c->smem + response_offset, words, sizeof words);
      complete_tx(*c, bar_offset, ptx::kClcResponseBytes, what);
    }
  };
  m.post_async(std::move(op));
}

}  // namespace detail

void clc_try_cancel(uint32_t response_smem, uint32_t bar) {
  detail::issue_try_cancel(response_smem, bar, false);
}
void clc_try_cancel_multicast(uint32_t response_smem, uint32_t bar) {
  detail::issue_try_cancel(response_smem, bar, true);
}

ptx::ClcResponse clc_query(uint32_t response_smem) {
  auto& m = detail::machine();
  m.on_call();
  const char* what = "clusterlaunchcontrol.query_cancel";
  detail::SharedLocation loc =
      detail::resolve_shared_cta(response_smem, ptx::kClcResponseBytes, detail::kClcResponseAlignment, what);
  uint32_t words[4];
  std::memcpy(words, loc.bytes(), sizeof words);
  if (words[0] >> 16 != detail::kClcResponseTag) {
    m.fail(std::string(what) + ": no try_cancel response at " + detail::describe_shared(response_smem) +
           " (query before the response's barrier completed?)");
  }
  ptx::ClcResponse r;
  r.is_canceled = (words[0] & 1u) != 0;
  if (r.is_canceled) r.first_cta = {words[1], words[2], words[3]};
  return r;
}

}  // namespace bwgemm::emu
