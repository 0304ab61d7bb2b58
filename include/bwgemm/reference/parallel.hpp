// A tiny row-parallel loop for the host references.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace bwgemm::ref {

// Calls fn(begin, end) on disjoint chunks of [0, count) from up to `threads` threads
// (0 = std::thread::hardware_concurrency()). Chunks are multiples of `grain`.
template <class Fn>
void parallel_for_chunks(int64_t count, int64_t grain, int threads, Fn&& fn) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t chunks = (count + grain - 1) / grain;
  const int64_t workers = std::min<int64_t>(threads, chunks);
  if (workers <= 1) {
    fn(int64_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(workers));
  for (int64_t w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      // Interleave chunks so that work stays balanced when rows differ in cost.
      for (int64_t c = w; c < chunks; c += workers) fn(c * grain, std::min(count, (c + 1) * grain));
    });
  }
  for (auto& t : pool) t.join();
}

// fp32 dot product with 8 independent partial sums (vectorizes; fixed summation order).
inline float dot_f32(const float* a, const float* b, int64_t k) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= k; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  for (; i < k; ++i) acc[0] += a[i] * b[i];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

}  // namespace bwgemm::ref
