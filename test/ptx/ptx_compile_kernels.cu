// Instantiates every bwgemm::ptx device wrapper, in every template variant, in __global__ kernels built for
// sm_100a. Building this file is the test that ptxas accepts every form; test/ptx/check_sass.cmake then
// checks that the expected SASS instructions are in the binary. The kernels are never launched.
#include <cstdint>

#include <bwgemm/ptx/ptx.cuh>

namespace ptx = bwgemm::ptx;

namespace {

// Keeps values alive: the kernels write what they read to global memory.
template <typename T>
__device__ void sink(uint32_t* out, uint32_t slot, T value) {
  out[slot] = static_cast<uint32_t>(value);
}

}  // namespace

// ---- misc + math: elect.sync, special registers, barriers, shuffles, shared-address conversions, ex2/rcp
// -----------------
__global__ void misc_kernel(uint32_t* out) {
  uint32_t i = 0;
  sink(out, i++, ptx::elect_one_sync());
  sink(out, i++, ptx::elect_one_sync(0x0000FFFFu));
  const ptx::Dim3 t = ptx::thread_idx(), b = ptx::block_idx(), bd = ptx::block_dim(), g = ptx::grid_dim();
  sink(out, i++, t.x + t.y + t.z + b.x + b.y + b.z + bd.x + bd.y + bd.z + g.x + g.y + g.z);
  sink(out, i++, ptx::lane_idx());
  sink(out, i++, ptx::warp_idx());
  sink(out, i++, ptx::sm_id());
  sink(out, i++, ptx::dynamic_smem_size());
  ptx::sync_threads();
  ptx::named_barrier_sync(1, 128);
  ptx::named_barrier_arrive(2, 64);
  ptx::sync_warp();
  sink(out, i++, ptx::shfl_sync(ptx::kFullWarpMask, out[0], 3));
  sink(out, i++, ptx::shfl_sync(ptx::kFullWarpMask, static_cast<int>(out[1]), 4));
  sink(out, i++, ptx::shfl_sync(ptx::kFullWarpMask, static_cast<float>(out[2]), 5));
  const uint32_t base = ptx::dynamic_smem_base();
  void* p = ptx::dynamic_smem_ptr();
  sink(out, i++, base + ptx::to_shared_address(p));
  sink(out, i++, reinterpret_cast<uintptr_t>(ptx::shared_address_to_pointer(base + 64)));
  sink(out, i++, __float_as_uint(ptx::ex2_approx(__uint_as_float(out[4]))));
  sink(out, i++, __float_as_uint(ptx::rcp_approx(__uint_as_float(out[5]))));
  if (out[3] == 12345) ptx::trap();
}

// ---- programmatic dependent launch: griddepcontrol.wait, griddepcontrol.launch_dependents ----------------
__global__ void griddepcontrol_kernel(uint32_t* out) {
  ptx::griddepcontrol_wait();
  sink(out, 0, ptx::lane_idx());
  ptx::griddepcontrol_launch_dependents();
}

// ---- mbarrier ------------------------------------------------------------------------------------------
__global__ void mbarrier_kernel(uint32_t* out) {
  const uint32_t bar = ptx::dynamic_smem_base();
  ptx::mbarrier_init(bar, 1);
  ptx::fence_mbarrier_init();
  ptx::mbarrier_arrive(bar);
  ptx::mbarrier_arrive_cluster(ptx::even_cta_address(bar + 8));
  ptx::mbarrier_arrive_expect_tx(bar, 4096);
  ptx::mbarrier_arrive_expect_tx_cluster(ptx::even_cta_address(bar), 8192);
  ptx::mbarrier_expect_tx(bar + 16, 1024);
  sink(out, 0, ptx::mbarrier_try_wait_parity(bar, 0));
  sink(out, 1, ptx::mbarrier_try_wait_parity<ptx::Scope::kCluster>(bar, 1));
  ptx::mbarrier_wait_parity(bar, 0);
  ptx::mbarrier_wait_parity<ptx::Scope::kCluster>(bar + 8, 1);
}

// ---- cluster -------------------------------------------------------------------------------------------
__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(uint32_t* out) {
  sink(out, 0, ptx::cluster_ctarank());
  sink(out, 1, ptx::cluster_size());
  const ptx::Dim3 a = ptx::cluster_cta_id(), s = ptx::cluster_shape(), c = ptx::cluster_id(),
                  g = ptx::cluster_grid_shape();
  sink(out, 2, a.x + a.y + a.z + s.x + s.y + s.z + c.x + c.y + c.z + g.x + g.y + g.z);
  ptx::cluster_arrive_release();
  ptx::cluster_wait();
  ptx::cluster_arrive_relaxed();
  ptx::cluster_wait();
  ptx::cluster_sync();
  sink(out, 3, ptx::mapa_shared_cluster(ptx::dynamic_smem_base(), ptx::cluster_ctarank() ^ 1u));
  sink(out, 4, ptx::ld_shared_cluster_v4_f32(ptx::mapa_shared_cluster(ptx::dynamic_smem_base(), 1u)).x);
}

// ---- conversions and wide global stores ----------------------------------------------------------------
__global__ void global_store_kernel(uint32_t* out, float a, float b) {
  const uint32_t h = ptx::cvt_rn_f16x2_f32(a, b), bf = ptx::cvt_rn_bf16x2_f32(a, b);
  const uint32_t v[8] = {h, bf, h ^ 1u, bf ^ 1u, h ^ 2u, bf ^ 2u, h ^ 3u, bf ^ 3u};
  ptx::st_global_256(out, v);
  ptx::st_global_256<ptx::L1Store::kNoAllocate>(out + 8, v);
}

// ---- TMA -----------------------------------------------------------------------------------------------
template <int CtaGroup>
__device__ void tma_all_ranks(const CUtensorMap* tm, uint32_t dst, uint32_t bar, int32_t x) {
  const uint16_t mask = 0b11;
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x});
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1});
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1, 2});
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1, 2, 3});
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1, 2, 3, 4});
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x}, ptx::kL2EvictFirst);
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1}, ptx::kL2EvictLast);
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1, 2}, ptx::kL2EvictNormal);
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1, 2, 3}, ptx::kL2EvictFirst);
  ptx::tma_load<CtaGroup>(dst, tm, bar, {x, 1, 2, 3, 4}, ptx::kL2EvictLast);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x}, mask);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1}, mask);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1, 2}, mask);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1, 2, 3}, mask);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1, 2, 3, 4}, mask);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x}, mask, ptx::kL2EvictFirst);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1}, mask, ptx::kL2EvictLast);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1, 2}, mask, ptx::kL2EvictNormal);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1, 2, 3}, mask, ptx::kL2EvictFirst);
  ptx::tma_load_multicast<CtaGroup>(dst, tm, bar, {x, 1, 2, 3, 4}, mask, ptx::kL2EvictLast);
}

__global__ void __cluster_dims__(2, 1, 1) tma_kernel(const __grid_constant__ CUtensorMap tmap, int32_t x) {
  const uint32_t smem = ptx::dynamic_smem_base();
  const uint32_t bar = smem + 65536;
  ptx::tma_prefetch_descriptor(&tmap);
  tma_all_ranks<1>(&tmap, smem, bar, x);
  tma_all_ranks<2>(&tmap, smem, ptx::even_cta_address(bar), x);
  ptx::fence_proxy_async_shared_cta();
  ptx::tma_store(&tmap, smem, {x});
  ptx::tma_store(&tmap, smem, {x, 1});
  ptx::tma_store(&tmap, smem, {x, 1, 2});
  ptx::tma_store(&tmap, smem, {x, 1, 2, 3});
  ptx::tma_store(&tmap, smem, {x, 1, 2, 3, 4});
  ptx::tma_store_commit_group();
  ptx::tma_store_wait_read<1>();
  ptx::tma_store_wait_read();
  ptx::tma_store_wait<0>();
}

// ---- tcgen05 -------------------------------------------------------------------------------------------
template <int CtaGroup, ptx::CollectorUsage C>
__device__ void mma_variants(uint32_t d, uint64_t a, uint64_t b, uint32_t sfa, uint32_t sfb, bool acc) {
  constexpr uint32_t idesc_f16 =
      ptx::InstrDescF16{
          ptx::MmaDFormat::kF32, ptx::MmaF16Format::kBF16, ptx::MmaF16Format::kBF16, false, false,
          ptx::MmaMajor::kK,     ptx::MmaMajor::kMN,       128u * CtaGroup,          256}
          .encode();
  constexpr uint32_t idesc_f4 =
      ptx::InstrDescMxf4Nvf4{ptx::MmaF4Format::kE2M1, ptx::MmaF4Format::kE2M1, false,           false,
                             ptx::MmaMajor::kK,       ptx::MmaMajor::kK,       128u * CtaGroup, 128}
          .encode();
  ptx::tcgen05_mma_f16<CtaGroup, C>(d, a, b, idesc_f16, acc);
  ptx::tcgen05_mma_mxf4nvf4<CtaGroup, C>(d, a, b, idesc_f4, sfa, sfb, acc);
}

template <int CtaGroup>
__device__ void tcgen05_variants(uint32_t* out, uint64_t a, uint64_t b, bool acc) {
  const uint32_t smem = ptx::dynamic_smem_base();
  const uint32_t warp = ptx::warp_idx();
  if (warp == 0) ptx::tcgen05_alloc<CtaGroup>(smem, 512);
  ptx::tcgen05_fence_before_thread_sync();
  ptx::sync_threads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = *static_cast<volatile uint32_t*>(ptx::shared_address_to_pointer(smem));
  if (warp == 1 && ptx::elect_one_sync()) {
    ptx::tcgen05_cp<CtaGroup, ptx::TmemCopyShape::k32x128bWarpx4>(tmem + 256, a);
    ptx::tcgen05_cp<CtaGroup, ptx::TmemCopyShape::k128x256b>(tmem + 264, a);
    ptx::tcgen05_cp<CtaGroup, ptx::TmemCopyShape::k4x256b>(tmem + 272, a);
    ptx::tcgen05_cp<CtaGroup, ptx::TmemCopyShape::k128x128b>(tmem + 280, a);
    ptx::tcgen05_cp<CtaGroup, ptx::TmemCopyShape::k64x128bWarpx2_02_13>(tmem + 288, a);
    ptx::tcgen05_cp<CtaGroup, ptx::TmemCopyShape::k64x128bWarpx2_01_23>(tmem + 296, a);
    mma_variants<CtaGroup, ptx::CollectorUsage::kNone>(tmem, a, b, tmem + 256, tmem + 264, acc);
    mma_variants<CtaGroup, ptx::CollectorUsage::kFill>(tmem, a, b, tmem + 256, tmem + 264, acc);
    mma_variants<CtaGroup, ptx::CollectorUsage::kUse>(tmem, a, b, tmem + 256, tmem + 264, acc);
    mma_variants<CtaGroup, ptx::CollectorUsage::kLastUse>(tmem, a, b, tmem + 256, tmem + 264, acc);
    mma_variants<CtaGroup, ptx::CollectorUsage::kDiscard>(tmem, a, b, tmem + 256, tmem + 264, acc);
    ptx::tcgen05_commit<CtaGroup>(smem + 8);
    ptx::tcgen05_commit_multicast<CtaGroup>(smem + 16, 0b11);
  }
  ptx::mbarrier_wait_parity(smem + 8, 0);
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t taddr = tmem + ((warp % 4) * 32u << 16);
  uint32_t r1[1], r2[2], r4[4], r8[8], r16[16], r32[32], r64[64], r128[128];
  ptx::tcgen05_ld_32x32b(taddr, r1);
  ptx::tcgen05_ld_32x32b(taddr, r2);
  ptx::tcgen05_ld_32x32b(taddr, r4);
  ptx::tcgen05_ld_32x32b(taddr, r8);
  ptx::tcgen05_ld_32x32b(taddr, r16);
  ptx::tcgen05_ld_32x32b(taddr, r32);
  ptx::tcgen05_ld_32x32b(taddr, r64);
  ptx::tcgen05_ld_32x32b(taddr + 128, r128);
  ptx::tcgen05_wait_ld();
  uint32_t sum = r1[0] + r2[1] + r4[3] + r8[7] + r16[15] + r32[31] + r64[63];
  for (uint32_t v : r128) sum += v;
  out[ptx::thread_idx().x] = sum;
  ptx::tcgen05_fence_before_thread_sync();
  ptx::sync_threads();
  if (warp == 0) {
    ptx::tcgen05_relinquish_alloc_permit<CtaGroup>();
    ptx::tcgen05_dealloc<CtaGroup>(tmem, 512);
  }
}

__global__ void tcgen05_cta1_kernel(uint32_t* out, uint64_t a, uint64_t b, bool acc) {
  tcgen05_variants<1>(out, a, b, acc);
}

__global__ void __cluster_dims__(2, 1, 1)
    tcgen05_cta2_kernel(uint32_t* out, uint64_t a, uint64_t b, bool acc) {
  tcgen05_variants<2>(out, a, b, acc);
}

// ---- CLC -----------------------------------------------------------------------------------------------
__global__ void __cluster_dims__(2, 1, 1) clc_kernel(uint32_t* out) {
  const uint32_t smem = ptx::dynamic_smem_base();
  ptx::clc_try_cancel(smem + 64, smem);
  ptx::clc_try_cancel_multicast(smem + 80, smem + 8);
  ptx::mbarrier_wait_parity(smem, 0);
  const ptx::ClcResponse r = ptx::clc_query(smem + 64);
  sink(out, 0, r.is_canceled);
  sink(out, 1, r.first_cta.x + r.first_cta.y + r.first_cta.z);
}
