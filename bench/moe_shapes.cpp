// Mixture-of-experts shapes and routing (moe_shapes.hpp).
#include "moe_shapes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "generators.hpp"

namespace bwgemm::bench {
namespace {

using generators::mix64;
using generators::random_bits;

constexpr uint64_t kMoeRoutingSeed = 0x6277'6765'6D6D'4D6Full;   // "bwgemmMo"
constexpr uint64_t kPermutationSalt = 0x5045'524D'5045'524Dull;  // "PERMPERM"
constexpr int kZipfWeightBits = 32;                              // rank r: floor(2^32 / (r + 1))
constexpr int kMinSets = 2;                                      // = kMinRotationSets (timing.hpp)

}  // namespace

const std::vector<MoeModel>& moe_models() {
  // config.json of each model (hidden_size, moe_intermediate_size or intermediate_size, n_routed_experts /
  // num_experts / num_local_experts, num_experts_per_tok / experts_per_token); the shared expert of
  // DeepSeek-V3 and Llama 4 is a dense MLP, not part of the grouped call.
  static const std::vector<MoeModel> models = {
      {"deepseek-v3", 7168, 2048, 256, 8, 256},
      {"deepseek-v3-ep8", 7168, 2048, 256, 8, 32},  // expert parallelism 8: 256 / 8 experts per GPU
      {"qwen3-30b-a3b", 2048, 768, 128, 8, 128},
      {"gpt-oss-120b", 2880, 2880, 128, 4, 128},
      {"llama4-maverick", 5120, 8192, 128, 1, 128},
  };
  return models;
}

const char* routing_name(MoeRouting routing) {
  return routing == MoeRouting::kZipf ? "zipf" : "uniform";
}

const char* layout_name(MoeLayout layout) {
  return layout == MoeLayout::kMasked ? "masked" : "offs";
}

std::string MoeShape::key() const {
  std::string experts_text = "E" + std::to_string(model.local_experts);
  if (model.local_experts != model.experts) experts_text += "of" + std::to_string(model.experts);
  return "M" + std::to_string(tokens) + "_N" + std::to_string(n()) + "_K" + std::to_string(k()) + "_" +
         model.name + "_" + experts_text + "_top" + std::to_string(model.top_k) + "_" +
         routing_name(routing) + "_" + layout_name(layout);
}

uint64_t moe_routing_seed(int64_t tokens, int64_t experts, int64_t top_k, MoeRouting routing) {
  const uint64_t index = ((static_cast<uint64_t>(tokens) * 65536 + static_cast<uint64_t>(experts)) * 256 +
                          static_cast<uint64_t>(top_k)) *
                             4 +
                         static_cast<uint64_t>(routing);
  return random_bits(kMoeRoutingSeed, index);
}

std::vector<int32_t> route_tokens(int64_t tokens, int64_t experts, int64_t top_k, MoeRouting routing,
                                  uint64_t seed) {
  if (experts < 1 || top_k < 1 || top_k > experts || tokens < 0 ||
      tokens > std::numeric_limits<int32_t>::max())
    throw std::invalid_argument(
        "route_tokens: needs 1 <= top_k <= experts and 0 <= tokens < 2^31 (got tokens " +
        std::to_string(tokens) + ", experts " + std::to_string(experts) + ", top_k " + std::to_string(top_k) +
        ")");
  const size_t e_count = static_cast<size_t>(experts);
  // Popularity rank -> expert: a Fisher-Yates shuffle.
  std::vector<int32_t> expert_of_rank(e_count);
  for (size_t r = 0; r < e_count; ++r) expert_of_rank[r] = static_cast<int32_t>(r);
  const uint64_t permutation_seed = mix64(seed ^ kPermutationSalt);
  for (size_t i = e_count - 1; i > 0; --i) {
    const size_t j = static_cast<size_t>(random_bits(permutation_seed, i) % (i + 1));
    std::swap(expert_of_rank[i], expert_of_rank[j]);
  }
  // Cumulative integer weights by rank.
  std::vector<uint64_t> cumulative(e_count);
  uint64_t total = 0;
  for (size_t r = 0; r < e_count; ++r) {
    total += routing == MoeRouting::kZipf ? (uint64_t{1} << kZipfWeightBits) / (r + 1) : 1;
    cumulative[r] = total;
  }
  std::vector<int32_t> counts(e_count, 0);
  std::vector<int32_t> chosen;  // this token's experts so far
  chosen.reserve(static_cast<size_t>(top_k));
  for (int64_t t = 0; t < tokens; ++t) {
    const uint64_t token_seed = random_bits(seed, static_cast<uint64_t>(t));
    chosen.clear();
    for (uint64_t draw = 0; static_cast<int64_t>(chosen.size()) < top_k; ++draw) {
      const uint64_t x = random_bits(token_seed, draw) % total;
      const size_t rank =
          static_cast<size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), x) - cumulative.begin());
      const int32_t expert = expert_of_rank[rank];
      if (std::find(chosen.begin(), chosen.end(), expert) != chosen.end()) continue;
      chosen.push_back(expert);
      ++counts[static_cast<size_t>(expert)];
    }
  }
  return counts;
}

std::vector<int32_t> moe_expert_counts(const MoeShape& shape) {
  const MoeModel& m = shape.model;
  std::vector<int32_t> counts =
      route_tokens(shape.tokens, m.experts, m.top_k, shape.routing,
                   moe_routing_seed(shape.tokens, m.experts, m.top_k, shape.routing));
  counts.resize(static_cast<size_t>(m.local_experts));
  return counts;
}

std::vector<int32_t> cumulative_offsets(const std::vector<int32_t>& counts) {
  std::vector<int32_t> offs(counts.size());
  int64_t sum = 0;
  for (size_t e = 0; e < counts.size(); ++e) {
    sum += counts[e];
    if (sum > std::numeric_limits<int32_t>::max())
      throw std::overflow_error("cumulative_offsets: the rows pass INT32_MAX");
    offs[e] = static_cast<int32_t>(sum);
  }
  return offs;
}

bool plan_moe_rotation(int64_t weight_bytes, int64_t weight_touched, int64_t activation_bytes,
                       int64_t activation_touched, int64_t reuse_bytes, int64_t budget_bytes,
                       MoeRotation* out, std::string* why) {
  const double needed = static_cast<double>(reuse_bytes);
  const double touched = std::max<double>(1.0, static_cast<double>(weight_touched + activation_touched));
  const bool one_weight_copy = static_cast<double>(weight_touched) >= needed;
  const auto bytes = [&](int sets) {
    return (one_weight_copy ? 1 : sets) * weight_bytes + sets * activation_bytes;
  };
  int sets = std::max(kMinSets, static_cast<int>(std::min(1e6, std::ceil(needed / touched))));
  while (sets > kMinSets && bytes(sets) > budget_bytes) --sets;
  if (bytes(sets) > budget_bytes) {
    *why = "needs " + std::to_string(bytes(sets) >> 20) + " MiB for " + std::to_string(sets) +
           " rotating operand sets (" + std::to_string(one_weight_copy ? 1 : sets) + " of the weights, " +
           std::to_string(weight_bytes >> 20) +
           " MiB each), more than half of the device memory free at start-up";
    return false;
  }
  out->sets = sets;
  out->weight_copies = one_weight_copy ? 1 : sets;
  out->bytes = bytes(sets);
  return true;
}

const std::vector<int64_t>& moe_sweep_tokens() {
  static const std::vector<int64_t> tokens = {1, 8, 64, 256, 1024, 4096, 16384};
  return tokens;
}

std::vector<MoeShape> default_moe_shapes() {
  std::vector<MoeShape> shapes;
  for (const MoeModel& m : moe_models()) {
    shapes.push_back({m, 64, MoeRouting::kUniform, MoeLayout::kMasked, MoeOp::kFc1});
    shapes.push_back({m, 4096, MoeRouting::kUniform, MoeLayout::kContiguous, MoeOp::kFc1});
    if (m.local_experts != m.experts)
      shapes.push_back({m, 4096, MoeRouting::kZipf, MoeLayout::kContiguous, MoeOp::kFc1});
  }
  return shapes;
}

std::vector<MoeShape> moe_sweep() {
  constexpr int64_t kMaxMaskedTokens = 64;
  constexpr int64_t kMinExpertParallelTokens = 8;
  std::vector<MoeShape> shapes;
  for (const MoeModel& m : moe_models()) {
    for (MoeRouting routing : {MoeRouting::kUniform, MoeRouting::kZipf}) {
      for (MoeLayout layout : {MoeLayout::kContiguous, MoeLayout::kMasked}) {
        for (int64_t t : moe_sweep_tokens()) {
          if (layout == MoeLayout::kMasked && t > kMaxMaskedTokens) continue;
          if (m.local_experts != m.experts && t < kMinExpertParallelTokens) continue;
          shapes.push_back({m, t, routing, layout, MoeOp::kFc1});
        }
      }
    }
  }
  return shapes;
}

std::vector<MoeShape> moe_shapes_for(const std::vector<MoeShape>& shapes, MoeOp op) {
  std::vector<MoeShape> out = shapes;
  for (MoeShape& s : out) s.op = op;
  return out;
}

}  // namespace bwgemm::bench
