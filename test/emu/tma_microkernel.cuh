// TMA fidelity microkernel: one source compiled for the emulator (BWGEMM_EMULATION=1, host C++) and with
// nvcc for sm_90a (Hopper has the same cp.async.bulk.tensor, mbarrier and cluster instructions), so the
// emulator can be compared byte for byte with a real GPU (test/emu/tma_h200/, test/data/tma_h200_golden.bin).
//
// A 2-CTA cluster runs these loads, each onto its own mbarrier with an exact arrive.expect_tx byte count:
//   fp16 2-D boxes with 128B, 64B and 32B swizzle, partly out of bounds (zero fill, negative coordinates);
//   an unswizzled fp16 box with element strides {2, 3} (the dimension-0 stride is ignored by TMA);
// (innermost start coordinates are 16-byte aligned: an H200 faults on a misaligned one).
//   a packed-fp4 (16U4_ALIGN8B) 3-D box in seed 000's layout, 128B swizzle, rows out of bounds (viewed as
//   bytes on sm_90a, which has no packed 4-bit tensor maps);
//   a multicast of one fp16 box from CTA 0 into both CTAs (each CTA's barrier expects the bytes);
//   a peer-CTA arrival: both CTAs arrive on CTA 0's count-2 barrier through shared::cluster addresses.
// Then every CTA dumps its shared-memory data region to global memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <bwgemm/host/tensor_map.hpp>
#include <bwgemm/ptx/cluster.cuh>
#include <bwgemm/ptx/mbarrier.cuh>
#include <bwgemm/ptx/misc.cuh>
#include <bwgemm/ptx/tma.cuh>

namespace tma_probe {

// The global tensors.
inline constexpr uint32_t kF16Rows = 40, kF16Cols = 72;  // row pitch 144 bytes
inline constexpr uint32_t kFp4Rows = 48, kFp4K = 512;    // 256 bytes per row
inline constexpr uint32_t kThreads = 64;
inline constexpr uint32_t kClusterCtas = 2;

inline uint16_t f16_value(uint32_t r, uint32_t c) {
  return static_cast<uint16_t>(r * 256 + c + 1);
}
inline uint8_t fp4_byte(uint32_t r, uint32_t byte) {
  return static_cast<uint8_t>((r * 37 + byte * 11 + 5) & 0xFF);
}

// One box load of the scenario list.
struct Load {
  int map;               // index into the tensor maps
  uint32_t smem_offset;  // in the data region (1024-aligned for swizzled boxes)
  int32_t coords[2][3];  // per CTA rank; fp16 maps use two coordinates
  uint32_t bytes;        // box bytes (the expect_tx count)
};

inline constexpr int kMap128 = 0, kMap64 = 1, kMap32 = 2, kMapStrided = 3, kMapFp4 = 4, kNumMaps = 5;
// __constant__ so that device code may index it (nothing in the emulation build).
static __constant__ const Load kLoads[] = {
    {kMap128, 0, {{16, 36, 0}, {-8, 2, 0}}, 8 * 128},
    {kMap64, 1024, {{40, 4, 0}, {0, 33, 0}}, 8 * 64},
    {kMap32, 2048, {{64, 10, 0}, {8, 39, 0}}, 8 * 32},
    {kMapStrided, 3072, {{8, 1, 0}, {64, 37, 0}}, 2 * 32},
    {kMapFp4, 4096, {{0, 40, 0}, {0, 8, 0}}, 2 * 16 * 128},
};
inline constexpr int kNumLoads = 5;
inline constexpr uint32_t kMulticastOffset = 8192;
inline constexpr int32_t kMulticastX = 8, kMulticastY = 20;
inline constexpr uint32_t kMulticastBytes = 8 * 128;
inline constexpr uint32_t kDataBytes = 9216;            // dumped per CTA
inline constexpr uint32_t kBarrierOffset = kDataBytes;  // kNumLoads + 2 barriers follow
inline constexpr uint32_t kSmemBytes = kDataBytes + 8 * (kNumLoads + 2);

struct Maps {
  CUtensorMap m[kNumMaps];
};

__global__ void __launch_bounds__(kThreads)
    tma_probe_kernel(const __grid_constant__ Maps maps, uint8_t* out) {
  namespace ptx = bwgemm::ptx;
  const uint32_t tid = ptx::thread_idx().x;
  const uint32_t rank = ptx::cluster_ctarank();
  const uint32_t base = ptx::dynamic_smem_base();
  const uint32_t bars = base + kBarrierOffset;
  const uint32_t mc_bar = bars + 8 * kNumLoads;
  const uint32_t peer_bar = mc_bar + 8;
  auto* smem = static_cast<uint8_t*>(ptx::dynamic_smem_ptr());
  for (uint32_t i = tid; i < kDataBytes; i += kThreads) smem[i] = 0xEE;  // marks bytes TMA never wrote
  if (tid == 0) {
    for (int i = 0; i < kNumLoads; ++i) ptx::mbarrier_init(bars + 8 * i, 1);
    ptx::mbarrier_init(mc_bar, 1);
    ptx::mbarrier_init(peer_bar, kClusterCtas);
    ptx::fence_mbarrier_init();
  }
  ptx::fence_proxy_async_shared_cta();
  ptx::cluster_sync();

  if (tid / 32 == 0 && ptx::elect_one_sync()) {
    for (int i = 0; i < kNumLoads; ++i) {
      const Load& l = kLoads[i];
      ptx::mbarrier_arrive_expect_tx(bars + 8 * i, l.bytes);
      if (l.map == kMapFp4) {
        const int32_t c[3] = {l.coords[rank][0], l.coords[rank][1], l.coords[rank][2]};
        ptx::tma_load(base + l.smem_offset, &maps.m[l.map], bars + 8 * i, c, ptx::kL2EvictFirst);
      } else {
        const int32_t c[2] = {l.coords[rank][0], l.coords[rank][1]};
        ptx::tma_load(base + l.smem_offset, &maps.m[l.map], bars + 8 * i, c);
      }
    }
    ptx::mbarrier_arrive_expect_tx(mc_bar, kMulticastBytes);
    ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(peer_bar, 0));
  }
  // The multicast may reach CTA 1 before CTA 1's arrive.expect_tx: its tx-count then goes negative while
  // the arrival is still pending, which the mbarrier allows.
  if (rank == 0 && tid == 32) {
    const int32_t mc_coords[2] = {kMulticastX, kMulticastY};
    ptx::tma_load_multicast(base + kMulticastOffset, &maps.m[kMap128], mc_bar, mc_coords, 0x3);
  }
  for (int i = 0; i < kNumLoads; ++i) ptx::mbarrier_wait_parity(bars + 8 * i, 0);
  ptx::mbarrier_wait_parity(mc_bar, 0);
  if (rank == 0) ptx::mbarrier_wait_parity<ptx::Scope::kCluster>(peer_bar, 0);
  ptx::sync_threads();
  for (uint32_t i = tid; i < kDataBytes; i += kThreads) out[rank * kDataBytes + i] = smem[i];
  ptx::cluster_sync();  // no CTA exits while a peer may still write its shared memory
}

// Host side: the global tensors and their tensor maps.
struct Tensors {
  std::vector<uint16_t> f16 = std::vector<uint16_t>(kF16Rows * kF16Cols);
  std::vector<uint8_t> fp4 = std::vector<uint8_t>(kFp4Rows * kFp4K / 2);
  Tensors() {
    for (uint32_t r = 0; r < kF16Rows; ++r)
      for (uint32_t c = 0; c < kF16Cols; ++c) f16[r * kF16Cols + c] = f16_value(r, c);
    for (uint32_t r = 0; r < kFp4Rows; ++r)
      for (uint32_t b = 0; b < kFp4K / 2; ++b) fp4[r * (kFp4K / 2) + b] = fp4_byte(r, b);
  }
};

// Tensor-map descriptions over device (or, in the emulator, host) copies of the tensors. Packed-fp4 tensor
// maps need an sm_100 device; with fp4_as_bytes the same tensor is described as bytes ({128 bytes, rows,
// K / 256}), which puts exactly the same bytes into shared memory (the H200 run uses that view).
inline bwgemm::Status make_maps(const void* f16, const void* fp4, Maps* maps, bool fp4_as_bytes) {
  using namespace bwgemm;
  auto f16_map = [&](uint32_t box_w, uint32_t box_h, TensorMapSwizzle s, uint32_t es0, uint32_t es1) {
    TensorMapDesc d;
    d.data_type = TensorMapDataType::kFloat16;
    d.rank = 2;
    d.global_address = f16;
    d.global_dims[0] = kF16Cols;
    d.global_dims[1] = kF16Rows;
    d.global_strides_bytes[0] = kF16Cols * 2;
    d.box_dims[0] = box_w;
    d.box_dims[1] = box_h;
    d.element_strides[0] = es0;
    d.element_strides[1] = es1;
    d.swizzle = s;
    return d;
  };
  TensorMapDesc descs[kNumMaps] = {f16_map(64, 8, TensorMapSwizzle::k128B, 1, 1),
                                   f16_map(32, 8, TensorMapSwizzle::k64B, 1, 1),
                                   f16_map(16, 8, TensorMapSwizzle::k32B, 1, 1),
                                   f16_map(16, 6, TensorMapSwizzle::kNone, 2, 3),
                                   {}};
  // Seed 000's A layout: {256 fp4 (128 bytes), rows, K / 256}, strides {row bytes, 128}.
  TensorMapDesc& q = descs[kMapFp4];
  q.data_type = fp4_as_bytes ? TensorMapDataType::kUInt8 : TensorMapDataType::kFp4E2M1Packed;
  q.rank = 3;
  q.global_address = fp4;
  q.global_dims[0] = fp4_as_bytes ? 128 : 256;
  q.global_dims[1] = kFp4Rows;
  q.global_dims[2] = kFp4K / 256;
  q.global_strides_bytes[0] = kFp4K / 2;
  q.global_strides_bytes[1] = 128;
  q.box_dims[0] = fp4_as_bytes ? 128 : 256;
  q.box_dims[1] = 16;
  q.box_dims[2] = 2;
  q.swizzle = TensorMapSwizzle::k128B;
  for (int i = 0; i < kNumMaps; ++i) {
    Status s = encode_tensor_map(descs[i], &maps->m[i]);
    if (!s.ok()) return s;
  }
  return Status::success();
}

}  // namespace tma_probe
