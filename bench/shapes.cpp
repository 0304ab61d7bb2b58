// Benchmark shapes (shapes.hpp).
#include "shapes.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace bwgemm::bench {

std::string GemmShape::key() const {
  return "M" + std::to_string(m) + "_N" + std::to_string(n) + "_K" + std::to_string(k) +
         (b_layout == BLayout::kRowMajorKxN ? "_Bkn" : "_Bnk");
}

std::string DualShape::key() const {
  return "M" + std::to_string(m) + "_N" + std::to_string(n) + "_K" + std::to_string(k);
}

const std::vector<ModelProjections>& sweep_models() {
  // config.json of each model: hidden_size, num_attention_heads x head_dim, num_key_value_heads x head_dim,
  // intermediate_size.
  static const std::vector<ModelProjections> models = {
      {"llama3.1-8b", 4096, 32 * 128, 8 * 128, 14336},
      {"qwen2.5-32b", 5120, 40 * 128, 8 * 128, 27648},
      {"llama3.1-70b", 8192, 64 * 128, 8 * 128, 28672},
  };
  return models;
}

const std::vector<int64_t>& sweep_tokens() {
  static const std::vector<int64_t> tokens = [] {
    std::vector<int64_t> t;
    for (int64_t m = 1; m <= 16384; m *= 2) t.push_back(m);
    return t;
  }();
  return tokens;
}

namespace {

// A GEMM shape: fp16/bf16 in both B layouts, NVFP4 with B N x K.
void add_gemm(ShapeSets* s, int64_t m, int64_t n, int64_t k) {
  for (BLayout layout : {BLayout::kRowMajorKxN, BLayout::kColumnMajorKxN})
    s->gemm.push_back({m, n, k, layout});
  s->gemm_nvfp4.push_back({m, n, k, BLayout::kColumnMajorKxN});
}

void add_everywhere(ShapeSets* s, int64_t m, int64_t n, int64_t k) {
  add_gemm(s, m, n, k);
  s->dual_bf16.push_back({m, n, k});
  s->dual_nvfp4.push_back({m, n, k});
}

bool parse_one(const std::string& text, int64_t (&mnk)[3]) {
  std::string t = text;
  for (char& c : t)
    if (c == 'x' || c == 'X' || c == '\t') c = ' ';
  std::istringstream in(t);
  for (int64_t& v : mnk)
    if (!(in >> v) || v < 1) return false;
  std::string rest;
  return !(in >> rest);
}

}  // namespace

ShapeSets default_shapes() {
  ShapeSets s;
  const int64_t mnk[][3] = {{4096, 5120, 4096},  {2048, 2048, 2048},  {4096, 4096, 4096},
                            {8192, 8192, 8192},  {1024, 4096, 4096},  {1024, 14336, 4096},
                            {1024, 4096, 14336}, {4096, 14336, 4096}, {4096, 4096, 14336}};
  for (const auto& v : mnk) add_gemm(&s, v[0], v[1], v[2]);
  // The ranked NVFP4 dual-GEMM shapes (reference/nvfp4_dual_gemm.md); bf16: the task's large-N shapes and
  // Llama-3-8B's gate/up projection (hidden 4096, intermediate 14336) at 4096 and 8192 tokens.
  s.dual_nvfp4 = {{256, 4096, 7168}, {512, 4096, 7168}, {256, 3072, 4096}, {512, 3072, 7168}};
  s.dual_bf16 = {{256, 4096, 7168}, {512, 4096, 7168}, {4096, 14336, 4096}, {8192, 14336, 4096}};
  return s;
}

ShapeSets model_sweep() {
  ShapeSets s;
  for (const ModelProjections& p : sweep_models()) {
    for (int64_t m : sweep_tokens()) {
      add_gemm(&s, m, p.q_width + 2 * p.kv_width, p.hidden);  // qkv
      add_gemm(&s, m, p.hidden, p.q_width);                   // o
      add_gemm(&s, m, 2 * p.intermediate, p.hidden);          // gate and up, fused
      add_gemm(&s, m, p.hidden, p.intermediate);              // down
      s.dual_bf16.push_back({m, p.intermediate, p.hidden});   // gate/up with the SiLU gating fused
      s.dual_nvfp4.push_back({m, p.intermediate, p.hidden});
    }
  }
  return s;
}

bool parse_shapes(const std::string& spec, ShapeSets* out, std::string* error) {
  ShapeSets s;
  std::vector<std::string> items;
  if (!spec.empty() && spec[0] == '@') {
    std::ifstream file(spec.substr(1));
    if (!file) {
      *error = "cannot read the shapes file '" + spec.substr(1) + "'";
      return false;
    }
    for (std::string line; std::getline(file, line);) {
      const size_t hash = line.find('#');
      if (hash != std::string::npos) line.resize(hash);
      if (line.find_first_not_of(" \t\r") != std::string::npos) items.push_back(line);
    }
  } else {
    std::stringstream in(spec);
    for (std::string item; std::getline(in, item, ',');) items.push_back(item);
    if (!spec.empty() && spec.back() == ',') items.emplace_back();  // "MxNxK," ends with an empty shape
  }
  if (items.empty()) {
    *error = "no shapes in '" + spec + "'";
    return false;
  }
  for (const std::string& item : items) {
    int64_t mnk[3];
    if (!parse_one(item, mnk)) {
      *error = "a shape is MxNxK with positive integers (or 'M N K' in a file), got '" + item + "'";
      return false;
    }
    add_everywhere(&s, mnk[0], mnk[1], mnk[2]);
  }
  *out = std::move(s);
  return true;
}

}  // namespace bwgemm::bench
