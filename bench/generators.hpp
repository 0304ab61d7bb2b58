// The benchmark's seeded input values, one definition for the GPU generators (kernels.cu) and their host
// twins in the emulator build of the tuner (kernels_host.cpp): each element a pure function of (seed, index).
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"

namespace bwgemm::bench::generators {

inline constexpr uint64_t kGoldenGamma =
    0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio (SplitMix64's increment)

// SplitMix64 finalizer (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): a
// counter-based generator.
BWGEMM_HD BWGEMM_FORCEINLINE uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

BWGEMM_HD BWGEMM_FORCEINLINE uint64_t random_bits(uint64_t seed, uint64_t index) {
  return mix64(seed + (index + 1) * kGoldenGamma);
}

// Uniform in [0, 1) with 24 random bits (exact in fp32).
BWGEMM_HD BWGEMM_FORCEINLINE float uniform01(uint64_t bits) {
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

// Uniform in [-1, 1) (exact in fp32; the caller rounds it to its element type).
BWGEMM_HD BWGEMM_FORCEINLINE float uniform_pm1(uint64_t seed, uint64_t index) {
  return 2.0f * uniform01(random_bits(seed, index)) - 1.0f;
}

}  // namespace bwgemm::bench::generators
