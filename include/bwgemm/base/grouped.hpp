// The device-metadata contract of the grouped (mixture-of-experts) operations: how the tokens are laid out
// (GroupedTokens: contiguous rows with cumulative row ends, or masked per-expert slabs with counts), which
// rows each expert owns once the device's values are read (the expert's range clamped to the caller's
// buffers: bad offsets and counts make an expert lose rows, never reach outside a buffer), the bits of the
// optional device status word that report bad values, and where each expert's NVFP4 scales sit. Pure
// functions callable on the host and the device (BWGEMM_HD): the kernels and the host references
// (reference/grouped.hpp) apply the same ones, so they agree on every input, bad ones included.
// docs/moe.md describes the conventions for users.
#pragma once

#include <cstdint>
#include <string>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/macros.hpp"

namespace bwgemm {

// How the tokens (the rows of A and of the output) are spread over the experts.
enum class GroupedLayout : int32_t {
  // A is [total_tokens, K] with the rows sorted by expert; expert e owns rows offsets[e - 1] .. offsets[e]
  // (offsets[-1] = 0): the output is [total_tokens, N] alike. torch._grouped_mm's `offs`.
  kContiguous = 0,
  // A is [E, max_tokens, K]; expert e owns the first counts[e] rows of its slab (DeepGEMM's and FlashInfer's
  // `masked_m`): the output is [E, max_tokens, N] alike.
  kMasked = 1,
};

// The tokens of a grouped call: the layout, the rows of the caller's buffers, and the device array that
// splits them between the experts. Only the layout's pair of fields is used; the other pair stays 0 / null
// (bwgemm::validate refuses anything else). Make one with contiguous_tokens or masked_tokens.
struct GroupedTokens {
  GroupedLayout layout = GroupedLayout::kContiguous;
  // kContiguous: the rows of A and of the output (the buffers' capacity; offsets[E - 1] may be less, and
  // the rows past it are then neither read nor written).
  int64_t total_tokens = 0;
  // kContiguous: E int32 in device memory, the cumulative row ends (no leading 0), as torch._grouped_mm's
  // `offs`: expert e owns rows [offsets[e - 1], offsets[e]), offsets[-1] = 0.
  const int32_t* offsets = nullptr;
  // kMasked: the rows of each expert's slab of A and of the output.
  int64_t max_tokens = 0;
  // kMasked: E int32 in device memory: expert e owns rows [0, counts[e]) of its slab.
  const int32_t* counts = nullptr;
};

BWGEMM_HD constexpr GroupedTokens contiguous_tokens(int64_t total_tokens, const int32_t* offsets) {
  GroupedTokens t;
  t.layout = GroupedLayout::kContiguous;
  t.total_tokens = total_tokens;
  t.offsets = offsets;
  return t;
}

BWGEMM_HD constexpr GroupedTokens masked_tokens(int64_t max_tokens, const int32_t* counts) {
  GroupedTokens t;
  t.layout = GroupedLayout::kMasked;
  t.max_tokens = max_tokens;
  t.counts = counts;
  return t;
}

namespace grouped {

// The bits of the device status word (the `status` argument of every grouped operation): a kernel ORs in
// the bits of every expert whose device values were out of range (atomicOr) and never clears one, so the
// caller zeroes the word once (cudaMemsetAsync) and may read it after one call or after many (e.g. after
// replaying a CUDA graph). 0: every offset and count was in range.
// contiguous: offsets[e] is below an earlier expert's end (offsets decrease; offsets[0] < 0 included)
inline constexpr uint32_t kStatusOffsetDecreasing = 1u << 0;
// contiguous: offsets[e] > total_tokens
inline constexpr uint32_t kStatusOffsetPastTotal = 1u << 1;
// masked: counts[e] < 0
inline constexpr uint32_t kStatusCountNegative = 1u << 2;
// masked: counts[e] > max_tokens
inline constexpr uint32_t kStatusCountAboveMax = 1u << 3;
inline constexpr uint32_t kStatusAllBits =
    kStatusOffsetDecreasing | kStatusOffsetPastTotal | kStatusCountNegative | kStatusCountAboveMax;

// NVFP4 scales of the tokens: each expert's scale rows start at a multiple of this (one 128-row atom of the
// 128x4 blocked layout, formats/scale_layout.cuh).
inline constexpr int64_t kScaleRowAlign = 128;

// The rows one expert owns, after the clamping below.
struct ExpertRows {
  // kContiguous: rows [begin, end) of A and of the output. kMasked: rows [0, end) of the expert's slab
  // (begin = 0).
  int64_t begin = 0;
  int64_t end = 0;
  // NVFP4 operands and outputs of the tokens: the first row of the expert's scales in the scale buffer's
  // 128x4 blocked layout (a multiple of 128; scale_byte_offset turns it into bytes). kContiguous: the sum of
  // round_up(rows, 128) over the experts before it (vLLM's blockscale_offsets); kMasked:
  // expert · round_up(max_tokens, 128), i.e. batch `expert` of a blocked buffer of max_tokens rows.
  int64_t scale_row = 0;
  // The status bits this expert's value set (0 when in range).
  uint32_t status = 0;
  BWGEMM_HD constexpr int64_t rows() const { return end - begin; }
};

// The contiguous layout's rule, as one pass over the offsets in expert order (the pass a grouped tile
// scheduler makes anyway to count each expert's tiles). With high = max(0, offsets[0 .. e-1]) (0 for
// e = 0), expert e owns
//   rows [min(high, total_tokens), min(max(high, offsets[e]), total_tokens))
// so the ranges are disjoint, in expert order, and inside [0, total_tokens) whatever the values: an offset
// below an earlier one (kStatusOffsetDecreasing) makes its expert empty, or short of the rows an earlier
// expert already owns; an offset past total_tokens (kStatusOffsetPastTotal) ends its expert at
// total_tokens. With valid offsets (0 <= offsets[0] <= ... <= offsets[E-1] <= total_tokens) this is exactly
// [offsets[e-1], offsets[e]).
class ContiguousExpertScan {
 public:
  BWGEMM_HD constexpr explicit ContiguousExpertScan(int64_t total_tokens) : total_(total_tokens) {}

  // The next expert's rows, from its offsets[e].
  BWGEMM_HD constexpr ExpertRows next(int32_t offset) {
    ExpertRows r;
    const int64_t o = offset;
    r.status = (o < high_ ? kStatusOffsetDecreasing : 0u) | (o > total_ ? kStatusOffsetPastTotal : 0u);
    r.begin = high_ < total_ ? high_ : total_;
    high_ = o > high_ ? o : high_;
    r.end = high_ < total_ ? high_ : total_;
    r.scale_row = scale_row_;
    scale_row_ += round_up(r.end - r.begin, kScaleRowAlign);
    return r;
  }

 private:
  int64_t total_ = 0;
  int64_t high_ = 0;       // max(0, offsets so far)
  int64_t scale_row_ = 0;  // the sum of round_up(rows, 128) so far
};

// The masked layout's rule: expert e owns rows [0, clamp(counts[e], 0, max_tokens)) of its slab; a negative
// count (kStatusCountNegative) makes it empty, a count above max_tokens (kStatusCountAboveMax) is cut to
// max_tokens.
BWGEMM_HD constexpr ExpertRows masked_expert_rows(int64_t expert, int32_t count, int64_t max_tokens) {
  ExpertRows r;
  const int64_t c = count;
  r.status = (c < 0 ? kStatusCountNegative : 0u) | (c > max_tokens ? kStatusCountAboveMax : 0u);
  r.begin = 0;
  r.end = c < 0 ? 0 : (c > max_tokens ? max_tokens : c);
  r.scale_row = expert * round_up(max_tokens, kScaleRowAlign);
  return r;
}

// Expert e's rows from the layout's device array (read through `t`'s pointer: device memory in a kernel,
// host memory in the references). The contiguous layout scans offsets[0 .. e]: O(e) reads.
BWGEMM_HD constexpr ExpertRows expert_rows(const GroupedTokens& t, int64_t e) {
  if (t.layout == GroupedLayout::kMasked) return masked_expert_rows(e, t.counts[e], t.max_tokens);
  ContiguousExpertScan scan(t.total_tokens);
  ExpertRows r;
  for (int64_t j = 0; j <= e; ++j) r = scan.next(t.offsets[j]);
  return r;
}

// ---- the tile walk ----------------------------------------------------------------------------------------

// One output tile of a grouped operation: rows [row_begin, row_end) of the expert's rows (contiguous: rows of
// A and of the output; masked: rows of the expert's slab), at most block_m of them, and column tile n_tile.
struct GroupedTile {
  int64_t expert = 0;
  int64_t row_begin = 0;
  int64_t row_end = 0;
  int64_t n_tile = 0;
  ExpertRows rows;  // the expert's rows (and its first scale row)
};

// The tiles of a grouped operation in one linear order, for persistent kernels that cannot know the
// experts' tiles before they run (the counts stay on the device): expert by expert, each expert's rows in
// tiles of block_m, and for each row tile the n_tiles column tiles (consecutive tiles share the rows of A).
// An expert without rows has no tile. A scheduler hands its CTA tile indices in increasing order
// (t = cta, cta + grid, ...) and seek() walks forward through the experts' device values as it goes: each
// value is read once per CTA (O(E + tiles) for the CTA's whole walk), decoded off the epilogue's path, the
// same way for every CTA, with the clamping rules above (bad values cost rows, never reach outside the
// buffers) and the status bits of every expert passed.
//
// Index is the type of the tile indices and of the per-tile arithmetic: int64_t on the host
// (GroupedTileWalk); the kernels, whose launches bound the tiles below 2^31, use int32_t so that a tile's
// column and row tile cost a 32-bit division, not a 64-bit one. Rows are int64_t either way. ReadAhead: the
// experts' device values read at a time (independent loads in flight together, instead of one dependent
// load per expert; ReadAhead registers of a kernel's walking thread): the same tiles whatever it is.
template <class Index, int ReadAhead = 1>
class BasicGroupedTileWalk {
 public:
  BWGEMM_HD constexpr BasicGroupedTileWalk(const GroupedTokens& tokens, int64_t experts, Index block_m,
                                           Index n_tiles)
      : tokens_(tokens),
        experts_(experts),
        block_m_(block_m),
        n_tiles_(n_tiles),
        scan_(tokens.total_tokens) {}

  // The tile at linear index `tile`, which must not be below the previous call's: true and *out filled, or
  // false where the experts have fewer tiles (every later index is then past them too).
  BWGEMM_HD constexpr bool seek(Index tile, GroupedTile* out) {
    if (block_m_ < 1 || n_tiles_ < 1) return false;
    while (expert_ < experts_ && (!loaded_ || tile - first_tile_ >= tiles_)) {
      if (loaded_) {
        first_tile_ += tiles_;
        ++expert_;
        loaded_ = false;
        if (expert_ >= experts_) break;
      }
      load();
    }
    if (expert_ >= experts_ || !loaded_) return false;
    const Index local = tile - first_tile_;
    const Index row_tile = local / n_tiles_;
    out->expert = expert_;
    out->rows = rows_;
    out->n_tile = local - row_tile * n_tiles_;
    out->row_begin = rows_.begin + static_cast<int64_t>(row_tile) * block_m_;
    out->row_end = out->row_begin + block_m_ < rows_.end ? out->row_begin + block_m_ : rows_.end;
    return true;
  }

  // Walks past every expert (reading the values seek has not read yet): status() then has every expert's
  // bits.
  BWGEMM_HD constexpr void finish() {
    while (expert_ < experts_) {
      if (!loaded_) load();
      first_tile_ += tiles_;
      ++expert_;
      loaded_ = false;
    }
  }

  // The status bits of the experts whose values the walk has read.
  BWGEMM_HD constexpr uint32_t status() const { return status_; }

 private:
  // The experts' device values, kReadAhead at a time: ahead_[0] is expert_'s, the later ones the next
  // experts', shifted down as the walk moves (constant indices: registers in a kernel).
  static constexpr int kReadAhead = ReadAhead;
  static_assert(kReadAhead >= 1, "read at least one value at a time");

  BWGEMM_HD constexpr int32_t next_value() {
    if (buffered_ == 0) {
      const int32_t* values = tokens_.layout == GroupedLayout::kMasked ? tokens_.counts : tokens_.offsets;
#if BWGEMM_DEVICE_PASS
#pragma unroll
#endif
      for (int i = 0; i < kReadAhead; ++i) ahead_[i] = expert_ + i < experts_ ? values[expert_ + i] : 0;
      buffered_ = kReadAhead;
    }
    const int32_t v = ahead_[0];
#if BWGEMM_DEVICE_PASS
#pragma unroll
#endif
    for (int i = 0; i + 1 < kReadAhead; ++i) ahead_[i] = ahead_[i + 1];
    --buffered_;
    return v;
  }

  BWGEMM_HD constexpr void load() {
    const int32_t value = next_value();
    rows_ = tokens_.layout == GroupedLayout::kMasked ? masked_expert_rows(expert_, value, tokens_.max_tokens)
                                                     : scan_.next(value);
    status_ |= rows_.status;
    tiles_ = static_cast<Index>(ceil_div(rows_.rows(), block_m_)) * n_tiles_;
    loaded_ = true;
  }

  GroupedTokens tokens_;
  int64_t experts_ = 0;
  Index block_m_ = 0, n_tiles_ = 0;
  ContiguousExpertScan scan_;
  int64_t expert_ = 0;   // the expert loaded (or next to load)
  bool loaded_ = false;  // rows_ and tiles_ are expert_'s
  ExpertRows rows_;
  Index first_tile_ = 0;  // the linear index of expert_'s first tile
  Index tiles_ = 0;       // expert_'s tiles
  uint32_t status_ = 0;
  int32_t ahead_[kReadAhead] = {};  // the values of the experts from the next one to load on
  int buffered_ = 0;                // how many of ahead_ are read
};

// The host's walk (64-bit tile indices).
using GroupedTileWalk = BasicGroupedTileWalk<int64_t>;

// The tiles a grouped launch may have to walk, whatever the device's counts: contiguous, each expert's rows
// take at most ceil(rows / block_m) < rows / block_m + 1 row tiles, so with the rows summing to at most
// total_tokens, fewer than ceil(total_tokens / block_m) + E; masked, E · ceil(max_tokens / block_m). Times
// n_tiles. A persistent kernel's fixed grid (the same for every replay of a captured call) is sized from it.
BWGEMM_HD constexpr int64_t grouped_tile_bound(const GroupedTokens& t, int64_t experts, int64_t block_m,
                                               int64_t n_tiles) {
  return (t.layout == GroupedLayout::kMasked ? experts * ceil_div(t.max_tokens, block_m)
                                             : ceil_div(t.total_tokens, block_m) + experts) *
         n_tiles;
}

// The rows of the scale buffer of a contiguous NVFP4 tensor of the tokens (A, or an NVFP4 output): every
// expert's scale rows start at a multiple of 128, so with E experts over total_tokens rows the scales take
// at most total_tokens + 127 · E rows (sum over e of round_up(rows_e, 128), the rows_e summing to at most
// total_tokens); the buffer has round_up(total_tokens + 127 · E, 128) rows, whatever the device's counts.
// Its bytes: blocked_scale_bytes(grouped_scale_rows(total_tokens, E), K / 16).
BWGEMM_HD constexpr int64_t grouped_scale_rows(int64_t total_tokens, int64_t experts) {
  return round_up(total_tokens + experts * (kScaleRowAlign - 1), kScaleRowAlign);
}

// The byte offset of scale row `scale_row` (a multiple of 128) in a 128x4 blocked buffer of sf_cols scale
// columns: each 128-row block of the layout is ceil(sf_cols / 4) atoms of 512 bytes. From there, an
// expert's scales are a blocked buffer of its own (blocked_scale_offset(r, j, 0, rows, sf_cols) for its
// row r).
BWGEMM_HD constexpr int64_t scale_byte_offset(int64_t scale_row, int64_t sf_cols) {
  return scale_row / kScaleRowAlign * ceil_div(sf_cols, 4) * 512;
}

// The status word in words: "offsets decrease; counts above max_tokens", or "no bad offset or count".
inline std::string describe_status(uint32_t status) {
  const struct {
    uint32_t bit;
    const char* text;
  } bits[] = {{kStatusOffsetDecreasing, "offsets decrease (an offset below an earlier expert's end)"},
              {kStatusOffsetPastTotal, "offsets past total_tokens"},
              {kStatusCountNegative, "negative counts"},
              {kStatusCountAboveMax, "counts above max_tokens"}};
  std::string s;
  for (const auto& b : bits)
    if (status & b.bit) s += (s.empty() ? "" : "; ") + std::string(b.text);
  if (status & ~kStatusAllBits) s += (s.empty() ? "" : "; ") + std::string("unknown bits");
  return s.empty() ? "no bad offset or count" : s;
}

}  // namespace grouped
}  // namespace bwgemm
