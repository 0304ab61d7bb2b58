// Cluster launch control in the emulator (ptx/clc.cuh), PTX ISA 9.7.13 "clusterlaunchcontrol".
//
// try_cancel is asynchronous (one CTA's requests complete in issue order: LaunchConfig::clc_in_issue_order):
// when it completes it claims the next cluster of the launch (in launch order)
// that has not started, so that cluster never runs, and writes a 16-byte response (canceled + the first
// CTA's %ctaid, or "not canceled" when every cluster has started) to the response address, then performs
// complete_tx of 16 bytes on the barrier; the .multicast::cluster::all form does both in every CTA of the
// cluster at the same offsets. query decodes a response. The response's bit layout is the emulator's own (the
// ISA leaves it opaque): word 0 = kClcResponseTag << 16 | canceled, words 1-3 = first %ctaid x, y, z.
// The operations are in src/emu/clc.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <bwgemm/emu/machine.hpp>
#include <bwgemm/emu/mbarrier.hpp>
#include <bwgemm/emu/shared_memory.hpp>
#include <bwgemm/isa/types.hpp>

namespace bwgemm::emu {
namespace detail {

inline constexpr uint32_t kClcResponseTag = 0xC1C0;  // marks a response written by the emulator
inline constexpr uint32_t kClcResponseAlignment = 16;

void issue_try_cancel(uint32_t response_smem, uint32_t bar, bool multicast);

}  // namespace detail

void clc_try_cancel(uint32_t response_smem, uint32_t bar);
void clc_try_cancel_multicast(uint32_t response_smem, uint32_t bar);

ptx::ClcResponse clc_query(uint32_t response_smem);

}  // namespace bwgemm::emu
