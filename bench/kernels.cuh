// The benchmark's own device code: seeded input generators, the silu-mul kernel of the unfused
// dual-GEMM baselines and the streaming kernels of the bandwidth references. Declared here so host-only
// translation units (g++) can call them; defined in kernels.cu. Every launcher checks the launch and throws
// BenchError on failure.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace bwgemm::bench {

// x[i] uniform in [-1, 1), rounded to T (fp16 or bf16); a pure function of (seed, i).
template <class T>
void fill_uniform_pm1(T* x, int64_t count, uint64_t seed, cudaStream_t stream);

// Random bytes AND-ed with `mask`. NVFP4 data uses kFp4ByteMask: both e2m1 nibbles then hold
// +-{0, 0.5, 1, 1.5} (the GPU MODE nvfp4 tasks' generator, see reference/nvfp4_dual_gemm.md).
void fill_masked_bytes(uint8_t* bytes, int64_t count, uint64_t seed, uint8_t mask, cudaStream_t stream);
inline constexpr uint8_t kFp4ByteMask = 0xBB;  // 0b1011'1011: clears bit 2 of each nibble

// NVFP4 block scales for a rows x sf_cols matrix in the 128x4 blocked layout
// (bwgemm::blocked_scale_offset): each scale is e4m3(uniform [0, 1)), so zero and subnormal
// scales occur; padding bytes are zero. `scales` holds blocked_scale_bytes(rows, sf_cols) bytes.
void fill_blocked_e4m3_scales(uint8_t* scales, int64_t rows, int64_t sf_cols, uint64_t seed,
                              cudaStream_t stream);

// out[r][c] = silu(x[r][c]) * y[r][c], silu(v) = v / (1 + e^-v), in fp32, rounded to T.
// x and y have row stride ld_in elements, out ld_out; rows x cols elements.
template <class T>
void launch_silu_mul(const T* x, const T* y, int64_t ld_in, T* out, int64_t ld_out, int64_t rows,
                     int64_t cols, cudaStream_t stream);

// launch_silu_mul on the masked layout of a mixture-of-experts call: expert e's rows [0, clamp(counts[e], 0,
// max_rows)) of its slab (x, y: row stride ld_in, slab stride slab_in elements; out: ld_out, slab_out).
// counts: `experts` int32 in device memory, read by the kernel (one launch for every expert; the rows past an
// expert's count are not written).
template <class T>
void launch_masked_silu_mul(const T* x, const T* y, int64_t ld_in, int64_t slab_in, T* out, int64_t ld_out,
                            int64_t slab_out, const int32_t* counts, int64_t experts, int64_t max_rows,
                            int64_t cols, cudaStream_t stream);

// The bandwidth references (docs/performance.md, "Bandwidth reference"): kernels that stream a buffer
// once with 16-byte loads in a grid-stride loop over a grid of `blocks` blocks (bandwidth_grid_blocks).
// `bytes` must be a positive multiple of 16 and the pointers 16-byte aligned (cudaMalloc'd buffers are);
// the launchers throw BenchError otherwise. Both may be captured into a CUDA graph.
//
// Blocks that fill every SM of the current device with resident blocks of the streaming kernels.
int bandwidth_grid_blocks(int sm_count);
// Reads `bytes` of `data` once and XORs them into *sink (one 32-bit word; an atomic per block), so the
// compiler cannot drop the loads. The value of *sink means nothing.
void launch_read_reduce(const void* data, int64_t bytes, uint32_t* sink, int blocks, cudaStream_t stream);
// Copies `bytes` from src to dst (non-overlapping): every byte read once and written once.
void launch_copy(const void* src, void* dst, int64_t bytes, int blocks, cudaStream_t stream);

// True when this binary has code the current device can run (SASS for it, or PTX to JIT).
bool bench_kernels_loadable(std::string* why);

}  // namespace bwgemm::bench
