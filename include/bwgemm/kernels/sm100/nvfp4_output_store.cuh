// The NVFP4 output's epilogue store (Out = Nvfp4Output, epilogue/nvfp4_output.cuh), shared by the sm_100a
// tiled kernels that write one: the NVFP4 dual GEMM's C (nvfp4_dual_gemm_kernel.cuh) and the NVFP4 GEMM's D
// (nvfp4_gemm_kernel.cuh). Each kernel says only how one output column's fp32 value comes from its
// accumulators (a Value policy); quantization, packing, the blocked scales and their padding are written once
// here, and so is the global scale's device-pointer part (nvfp4_output_global_scale).
#pragma once

#include <cstdint>

#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/epilogue/nvfp4_output.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// What an NVFP4 output adds to a kernel's parameters (an empty base otherwise, so the other kernels'
// parameters keep their layout).
template <bool Nvfp4Out>
struct Nvfp4OutputParams {};
template <>
struct Nvfp4OutputParams<true> {
  uint8_t* out_scales = nullptr;  // blocked_scale_bytes(m, n / 16, batch) bytes, 128x4 blocked layout
  float out_global_scale = 1.0f;  // the output's per-tensor global scale g: decodes as e2m1 · e4m3 · g
  // g's device part (docs/api.md, "Device-pointer scales"), read once per CTA: g = out_global_scale · *ptr
  // (null: out_global_scale alone, bit for bit)
  const float* out_global_scale_ptr = nullptr;
};

// The output's global scale with its device part read: what a kernel's Roles::epilogue_scales() computes
// once per epilogue thread, before the tile loop (never per tile, never in the main loop).
template <class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE float nvfp4_output_global_scale(const Params& p) {
  return epi::device_scale(p.out_global_scale, p.out_global_scale_ptr);
}

// The NVFP4 output's store of one tile row: each chunk is 64 columns of the row, i.e. four 16-column blocks
// and one 4-byte line of the row's blocked scales (formats/scale_layout.cuh: scale columns 4j .. 4j + 3 of a
// row are 4 contiguous bytes, and consecutive groups of four are consecutive 512-byte atoms). Each block
// inside N: the fp32 values Value::at(p, values, i) gives, quantized by epi::quantize_nvfp4_packed (what
// bwgemm::quantize_nvfp4 runs), 8 packed bytes stored; the scale line is stored whole, scale columns past
// N / 16 as zero (the quantizer's padding). A chunk past N stores nothing (it is past N's padding too).
// Scales is what Value::at takes besides the parameters: the kernel's per-tensor scales with their
// device-pointer parts read (its Roles::epilogue_scales(), once per CTA); global_scale is the output's
// (nvfp4_output_global_scale).
template <class Cfg, class Params, class Value, class Scales, int Accumulators>
struct Nvfp4QuantizeTileStore {
  static constexpr int kColumns = Cfg::kEpilogueColumns;
  static constexpr int kBlocks = kColumns / kNvfp4BlockSize;  // 4: one scale line
  static_assert(Cfg::kNvfp4OutChunks,
                "the Config's chunks are not one scale line each (its kNvfp4OutChunks)");
  const Params& p;
  Scales s;            // the tile's per-tensor scales (a grouped tile's: its expert's)
  float global_scale;  // the output's global scale, its device part read
  uint8_t* data_row;   // the row's packed bytes (n / 2)
  uint8_t* scale_row;  // the row's scale byte of scale column 0 in its blocked buffer

  BWGEMM_DEVICE BWGEMM_FORCEINLINE void operator()(int32_t col,
                                                   const uint32_t (&values)[Accumulators][kColumns]) const {
    if (col >= p.n) return;
    uint32_t scale_line = 0;
#pragma unroll
    for (int b = 0; b < kBlocks; ++b) {
      const int32_t block_col = col + b * kNvfp4BlockSize;
      if (block_col < p.n) {  // N is a multiple of 16: whole blocks
        float x[kNvfp4BlockSize];
#pragma unroll
        for (int i = 0; i < kNvfp4BlockSize; ++i) x[i] = Value::at(p, s, values, b * kNvfp4BlockSize + i);
        uint8_t scale = 0;
        const uint64_t packed = epi::quantize_nvfp4_packed(x, global_scale, &scale);
        *reinterpret_cast<uint64_t*>(data_row + block_col / 2) = packed;
        scale_line |= static_cast<uint32_t>(scale) << (8 * b);
      }
    }
    *reinterpret_cast<uint32_t*>(scale_row + (col / kColumns) * kScaleAtomBytes) = scale_line;
  }
};

// The store of row `row` of tile t (inside the rows it stores) into the NVFP4 output whose packed data starts
// at `data` (rows of n / 2 bytes, batches m rows apart) and whose scales are p.out_scales, with the
// per-tensor scales `s` and the output's global scale `global_scale` (both read once per CTA). The rows the
// tile's rows belong to (sched::output_rows: M, or a grouped tile's expert) have their scales as a blocked
// buffer of their own; run_epilogue stores rows inside them only (`row` is clamped to the last), so this
// thread's own row (epilogue_row) writes the scale padding here when it lies past their end but inside its
// padding to 128 rows: a zero scale line per chunk of the tile inside N, as the quantizer pads (plain stores,
// ordered by the kernel's end like every other output).
template <class Value, int Accumulators, class Cfg, class Params, class Scales, class Tile>
BWGEMM_DEVICE Nvfp4QuantizeTileStore<Cfg, Params, Value, Scales, Accumulators> nvfp4_output_tile_store(
    const KernelContext<Cfg>& ctx, const Params& p, const Scales& s, float global_scale, uint8_t* data,
    const Tile& t, int32_t row) {
  const int64_t sf_cols = p.n / kNvfp4BlockSize;
  const sched::OutputRows rows = sched::output_rows(t, p.m);
  uint8_t* const scales = p.out_scales + static_cast<int64_t>(rows.scale_block) *
                                             ceil_div(sf_cols, kScaleAtomCols) * kScaleAtomBytes;
  const auto scale_row_of = [&](int32_t r) {
    return scales + blocked_scale_offset(r - rows.first, 0, t.batch, p.m, sf_cols);
  };
  const int32_t own_row = epilogue_row<Cfg>(t, ctx.rank, ctx.warp, ctx.lane);
  // The rows padded to the scale atoms' 128 rows: the rows whose scales the buffer holds.
  const int32_t padded_end =
      rows.first + (rows.end - rows.first + kScaleAtomRows - 1) / kScaleAtomRows * kScaleAtomRows;
  if (own_row >= rows.end && own_row < padded_end) {
    uint8_t* const pad_row = scale_row_of(own_row);
#pragma unroll
    for (int chunk = 0; chunk < Cfg::kBlockN / Cfg::kEpilogueColumns; ++chunk) {
      const int32_t col = t.n * Cfg::kBlockN + chunk * Cfg::kEpilogueColumns;
      if (col < p.n)
        *reinterpret_cast<uint32_t*>(pad_row + (col / Cfg::kEpilogueColumns) * kScaleAtomBytes) = 0u;
    }
  }
  // The byte offset as unsigned wide multiply-adds of the non-negative 32-bit row and batch indices.
  const uint64_t row_bytes = static_cast<uint64_t>(p.n) / 2;
  uint8_t* const data_row =
      data + static_cast<uint64_t>(static_cast<uint32_t>(row)) * row_bytes +
      static_cast<uint64_t>(static_cast<uint32_t>(t.batch)) * (static_cast<uint64_t>(p.m) * row_bytes);
  return Nvfp4QuantizeTileStore<Cfg, Params, Value, Scales, Accumulators>{p, s, global_scale, data_row,
                                                                          scale_row_of(row)};
}

}  // namespace bwgemm::sm100
