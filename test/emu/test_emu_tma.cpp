// TMA engine of the emulator: tile loads with every swizzle mode, out-of-bounds fill, element strides,
// packed fp4, multicast, transaction counts, peer-CTA barrier arrivals (tma_microkernel.cuh), checked against
// an independent model of the PTX ISA rules written below, and against the bytes an H200 produced
// (test/data/tma_h200_golden.bin) when that file is present.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tma_microkernel.cuh"

namespace {

using namespace tma_probe;

// Independent expectation of one fp16 2-D box: dense rows of box_w elements (TMA ignores the dimension-0
// traversal stride), ceil(box_h / es1) rows, swizzle on the 16-byte chunk index by (offset / 128) % (span /
// 16), zero outside the tensor.
void expect_f16_box(std::vector<uint8_t>& img, uint32_t region, int32_t x0, int32_t y0, uint32_t box_w,
                    uint32_t box_h, uint32_t es1, uint32_t span) {
  const uint32_t nw = box_w, nh = (box_h + es1 - 1) / es1;
  for (uint32_t r = 0; r < nh; ++r) {
    for (uint32_t c = 0; c < nw; ++c) {
      const int64_t x = x0 + int64_t(c), y = y0 + int64_t(r) * es1;
      const bool in = x >= 0 && x < kF16Cols && y >= 0 && y < kF16Rows;
      const uint16_t v = in ? f16_value(uint32_t(y), uint32_t(x)) : 0;
      uint32_t o = r * nw * 2 + c * 2;
      if (span) o ^= ((o >> 7) & (span / 16 - 1)) << 4;
      img[region + o] = uint8_t(v & 0xFF);
      img[region + o + 1] = uint8_t(v >> 8);
    }
  }
}

std::vector<uint8_t> expected_image(uint32_t rank) {
  std::vector<uint8_t> img(kDataBytes, 0xEE);
  const uint32_t spans[] = {128, 64, 32};
  const uint32_t widths[] = {64, 32, 16};
  for (int i = 0; i < 3; ++i) {
    expect_f16_box(img, kLoads[i].smem_offset, kLoads[i].coords[rank][0], kLoads[i].coords[rank][1],
                   widths[i], 8, 1, spans[i]);
  }
  expect_f16_box(img, kLoads[3].smem_offset, kLoads[3].coords[rank][0], kLoads[3].coords[rank][1], 16, 6, 3,
                 0);
  // fp4: box {256 fp4 = 128 bytes, 16 rows, 2 k-blocks}, 128B swizzle, rows >= kFp4Rows zero.
  const Load& q = kLoads[4];
  for (uint32_t kb = 0; kb < 2; ++kb) {
    for (uint32_t r = 0; r < 16; ++r) {
      for (uint32_t b = 0; b < 128; ++b) {
        const uint32_t row = uint32_t(q.coords[rank][1]) + r;
        const uint8_t v = row < kFp4Rows ? fp4_byte(row, kb * 128 + b) : 0;
        uint32_t o = (kb * 16 + r) * 128 + b;
        o ^= ((o >> 7) & 7) << 4;
        img[q.smem_offset + o] = v;
      }
    }
  }
  expect_f16_box(img, kMulticastOffset, kMulticastX, kMulticastY, 64, 8, 1, 128);
  return img;
}

std::vector<uint8_t> run_in_emulator(bwgemm::emu::EmuResult* result, uint32_t delay = 0,
                                     bool fp4_as_bytes = false) {
  Tensors t;
  Maps maps;
  EXPECT_TRUE(make_maps(t.f16.data(), t.fp4.data(), &maps, fp4_as_bytes).ok());
  std::vector<uint8_t> out(kClusterCtas * kDataBytes, 0);
  bwgemm::emu::LaunchConfig cfg;
  cfg.grid = {kClusterCtas, 1, 1};
  cfg.block = {kThreads, 1, 1};
  cfg.cluster = {kClusterCtas, 1, 1};
  cfg.dynamic_smem_bytes = kSmemBytes;
  cfg.max_async_delay_steps = delay;
  *result = bwgemm::emu::launch(cfg, tma_probe_kernel, maps, out.data());
  return out;
}

TEST(EmuTma, LoadsMatchTheIsaModelForEverySwizzleAndOutOfBoundsFill) {
  bwgemm::emu::EmuResult r;
  const std::vector<uint8_t> out = run_in_emulator(&r);
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t rank = 0; rank < kClusterCtas; ++rank) {
    const std::vector<uint8_t> want = expected_image(rank);
    for (uint32_t i = 0; i < kDataBytes; ++i) {
      ASSERT_EQ(out[rank * kDataBytes + i], want[i]) << "CTA " << rank << " byte " << i;
    }
  }
}

TEST(EmuTma, PackedFp4AndByteViewsOfOneTensorLoadTheSameBytes) {
  bwgemm::emu::EmuResult r0, r1;
  const std::vector<uint8_t> packed = run_in_emulator(&r0);
  const std::vector<uint8_t> bytes = run_in_emulator(&r1, 0, /*fp4_as_bytes=*/true);
  ASSERT_TRUE(r0.ok) << r0.message;
  ASSERT_TRUE(r1.ok) << r1.message;
  EXPECT_EQ(packed, bytes);
}

TEST(EmuTma, RandomCompletionDelaysGiveTheSameBytes) {
  bwgemm::emu::EmuResult r0, r1;
  const std::vector<uint8_t> immediate = run_in_emulator(&r0);
  const std::vector<uint8_t> delayed = run_in_emulator(&r1, 50);
  ASSERT_TRUE(r0.ok) << r0.message;
  ASSERT_TRUE(r1.ok) << r1.message;
  EXPECT_EQ(immediate, delayed);
}

// The bytes an H200 wrote for the same kernel (test/emu/tma_h200/README.md says how they were made).
TEST(EmuTma, MatchesTheH200ByteForByte) {
  const std::string path = std::string(BWGEMM_TEST_DATA_DIR) + "/tma_h200_golden.bin";
  std::ifstream f(path, std::ios::binary);
  if (!f) GTEST_SKIP() << "no GPU golden file at " << path << " (produce it with test/emu/tma_h200/run.sh)";
  const std::vector<uint8_t> golden((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  bwgemm::emu::EmuResult r;
  const std::vector<uint8_t> out = run_in_emulator(&r, 0, /*fp4_as_bytes=*/true);
  ASSERT_TRUE(r.ok) << r.message;
  ASSERT_EQ(golden.size(), out.size());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], golden[i]) << "byte " << i;
}

}  // namespace

namespace {

// An H200 faults on a tile load whose innermost start coordinate is not 16-byte aligned; the emulator says
// so.
__global__ void misaligned_tma(const __grid_constant__ tma_probe::Maps maps) {
  namespace ptx = bwgemm::ptx;
  const uint32_t base = ptx::dynamic_smem_base();
  if (ptx::thread_idx().x == 0) {
    ptx::mbarrier_init(base + 1024, 1);
    const int32_t c[2] = {3, 0};  // 6 bytes into a row of fp16
    ptx::tma_load(base, &maps.m[tma_probe::kMap128], base + 1024, c);
  }
}

TEST(EmuTma, MisalignedInnermostCoordinateIsReported) {
  tma_probe::Tensors t;
  tma_probe::Maps maps;
  ASSERT_TRUE(tma_probe::make_maps(t.f16.data(), t.fp4.data(), &maps, false).ok());
  bwgemm::emu::LaunchConfig cfg;
  cfg.dynamic_smem_bytes = 2048;
  const auto r = bwgemm::emu::launch(cfg, misaligned_tma, maps);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("innermost coordinate 3 is not at a 16-byte boundary"), std::string::npos)
      << r.message;
}

}  // namespace
