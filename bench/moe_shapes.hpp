// The mixture-of-experts (MoE) benchmark problems' shapes and routing: the MoE layers of named open models,
// the tokens, how a deterministic router spreads them over the experts (uniform or Zipf-skewed), the layout
// (contiguous with offsets, or masked with counts), and how many rotating operand copies a problem needs.
// Host code, no CUDA: tested by bench_moe_shapes_test without a GPU. docs/performance.md, "Mixture of
// experts (MoE)".
//
// The routing is the same function in bench/moe_torch.py (a golden vector in both tests keeps them equal):
//
//   weight of popularity rank r:  uniform 1;  Zipf (exponent 1)  floor(2^32 / (r + 1))
//   expert of rank r:             perm[r], perm a Fisher-Yates shuffle of 0..E-1 drawn from the shape's seed
//   token t, draw j:              x = random_bits(random_bits(seed, t), j) mod (sum of the weights); the rank
//                                 whose cumulative weight first exceeds x; its expert, unless token t already
//                                 has it (then draw again) -- until the token has top_k distinct experts
//
// random_bits is bench/generators.hpp's SplitMix64 counter generator. Every count is at most the tokens (a
// token picks an expert once) and the counts sum to tokens x top_k.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bwgemm::bench {

// An MoE layer of a model, from the model's published configuration (reference: moe.md of the shared
// references): FC1 is the gated [tokens_e, hidden] x [hidden, 2 x intermediate] GEMM of each expert, FC2 the
// [tokens_e, intermediate] x [intermediate, hidden] one.
struct MoeModel {
  const char* name;          // "deepseek-v3", "deepseek-v3-ep8"
  int64_t hidden = 0;        // FC1's K, FC2's N
  int64_t intermediate = 0;  // FC1's N (each of gate and up), FC2's K
  int64_t experts = 0;       // routed experts the router chooses from
  int64_t top_k = 0;         // experts per token
  // Experts on this GPU: experts 0 .. local_experts - 1 of the router's (expert parallelism: E / EP). The
  // routed rows of the others are not this GPU's work.
  int64_t local_experts = 0;
};

// DeepSeek-V3 (also with expert parallelism 8: 32 local experts), Qwen3-30B-A3B, gpt-oss-120b, Llama 4
// Maverick.
const std::vector<MoeModel>& moe_models();

enum class MoeRouting : int {
  kUniform = 0,  // every expert equally likely
  kZipf = 1,     // popularity rank r has weight 1 / (r + 1): a few hot experts, a long tail
};
enum class MoeLayout : int {
  kContiguous = 0,  // A [rows, K] sorted by expert, E int32 cumulative row ends (torch._grouped_mm's offs)
  kMasked = 1,      // A [E, max_tokens, K], E int32 counts (DeepGEMM's / FlashInfer's masked_m)
};
// Which part of the layer a group runs.
enum class MoeOp : int {
  kFc1 = 0,    // gated: C_e = silu(A_e B1_eᵀ) · (A_e B2_eᵀ); N = intermediate, K = hidden
  kFc2 = 1,    // D_e = A_e B_eᵀ; N = hidden, K = intermediate
  kLayer = 2,  // FC1 then FC2 on its output; named by FC1's N and K
};

const char* routing_name(MoeRouting routing);  // "uniform", "zipf"
const char* layout_name(MoeLayout layout);     // "offs", "masked"

struct MoeShape {
  MoeModel model;
  int64_t tokens = 0;  // tokens entering the layer (before top-k)
  MoeRouting routing = MoeRouting::kUniform;
  MoeLayout layout = MoeLayout::kContiguous;
  MoeOp op = MoeOp::kFc1;

  int64_t experts() const { return model.local_experts; }  // the experts of the call
  int64_t n() const { return op == MoeOp::kFc2 ? model.hidden : model.intermediate; }
  int64_t k() const { return op == MoeOp::kFc2 ? model.intermediate : model.hidden; }
  // Rows of each masked slab: the tokens (no expert gets a token twice), what a buffer captured once in a
  // CUDA graph for this batch holds.
  int64_t max_tokens() const { return tokens; }
  // "M4096_N2048_K7168_deepseek-v3-ep8_E32of256_top8_zipf_offs": M is the tokens (bench/paired_table.py
  // groups by it), N and K the group's GEMM's.
  std::string key() const;
};

// The router's seed for a shape: a function of the tokens, the router's experts, top_k and the routing only,
// so FC1 and FC2, both layouts and the expert-parallel slice of a model see the same routing.
uint64_t moe_routing_seed(int64_t tokens, int64_t experts, int64_t top_k, MoeRouting routing);

// Rows per expert (all `experts` of the router) when each of `tokens` tokens picks top_k distinct experts as
// the comment at the top says. Throws std::invalid_argument unless 1 <= top_k <= experts, tokens >= 0.
std::vector<int32_t> route_tokens(int64_t tokens, int64_t experts, int64_t top_k, MoeRouting routing,
                                  uint64_t seed);

// The shape's rows per local expert: route_tokens with the shape's seed, its first local_experts entries.
std::vector<int32_t> moe_expert_counts(const MoeShape& shape);

// torch._grouped_mm's offs: the cumulative row ends, no leading 0 (offs[e] = counts[0] + ... + counts[e]).
// Throws std::overflow_error past INT32_MAX.
std::vector<int32_t> cumulative_offsets(const std::vector<int32_t>& counts);

// How many rotating copies of a problem's operands the timing cycles through (bench/timing.hpp: each call's
// inputs last touched at least kL2RotationFactor x L2 bytes earlier). `sets` copies of the activations (A and
// the output); the weights once when the weights one call reads (those of the experts with rows) alone exceed
// that distance, else once per set. Fewer sets than needed where memory runs short (as rotation_sets), never
// fewer than 2.
struct MoeRotation {
  int sets = 0;
  int weight_copies = 0;
  int64_t bytes = 0;  // weight_copies x weight_bytes + sets x activation_bytes
};
// weight_bytes, activation_bytes: one copy as allocated; *_touched: what one call reads and writes of it;
// reuse_bytes: the distance wanted between two uses of a byte (kL2RotationFactor x L2). False, with *why,
// when even 2 sets do not fit budget_bytes.
bool plan_moe_rotation(int64_t weight_bytes, int64_t weight_touched, int64_t activation_bytes,
                       int64_t activation_touched, int64_t reuse_bytes, int64_t budget_bytes,
                       MoeRotation* out, std::string* why);

// The shapes a plain run registers: every model at 64 tokens (masked) and 4096 tokens (contiguous), uniform;
// DeepSeek-V3 with expert parallelism also at 4096 Zipf-routed tokens.
std::vector<MoeShape> default_moe_shapes();
// --bwgemm_sweep=moe: every model at moe_sweep_tokens() (contiguous) and at 1, 8, 64 tokens masked, each
// routing; the expert-parallel DeepSeek-V3 from 8 tokens (at 1 its 32 experts may get no row).
std::vector<MoeShape> moe_sweep();
const std::vector<int64_t>& moe_sweep_tokens();  // 1, 8, 64, 256, 1024, 4096, 16384
// `shapes` with op set to `op` (one list per group).
std::vector<MoeShape> moe_shapes_for(const std::vector<MoeShape>& shapes, MoeOp op);

}  // namespace bwgemm::bench
