// The sm_100a default entry points with a tuning table installed, in the CPU emulator through the emulated
// runtime (bwgemm::emu_cudart: one compute capability 10.0 device, "bwgemm CPU emulator (sm_100a)"): an
// entry that forces a Config other than the rules' runs it and the result is still right; an entry its Config
// cannot run falls to the rules; BWGEMM_DIAGNOSTICS=1 names the table that chose.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <bwgemm/base/diagnostics.hpp>
#include <bwgemm/dual_gemm.cuh>
#include <bwgemm/gemm.cuh>
#include <bwgemm/grouped_gemm.cuh>
#include <bwgemm/reference/activations.hpp>
#include <bwgemm/sm100/tuning.hpp>
#include <bwgemm/tuning/registry.hpp>
#include <bwgemm/tuning/table.hpp>
#include <bwgemm/tuning_file.hpp>

#include "nvfp4_dual_check.hpp"

namespace {

namespace tuning = bwgemm::tuning;
constexpr const char* kEmulatedDevice = "bwgemm CPU emulator (sm_100a)";
constexpr auto kNxK = bwgemm::BLayout::kColumnMajorKxN;
constexpr auto kFp16 = tuning::Element::kFp16;

// A table for the emulated device, installed for the test's scope.
struct InstalledTable {
  explicit InstalledTable(const std::vector<tuning::BuiltinEntry>& entries) {
    const tuning::BuiltinTable t{"emu-test", kEmulatedDevice, 10, 0, 0, entries.data(), entries.size()};
    std::shared_ptr<const tuning::TuningTable> table;
    const bwgemm::Status s = tuning::build_builtin_table(t, bwgemm::sm100::tuning_candidates(), &table);
    EXPECT_TRUE(s.ok()) << s.message();
    bwgemm::install_tuning_table(table);
  }
  ~InstalledTable() { bwgemm::install_tuning_table(nullptr); }
};

// Small integers (-1, 0, 1) in fp16: every product and sum below is exact.
std::vector<__half> operand(int64_t count, int seed) {
  std::vector<__half> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = __float2half(static_cast<float>((i * 7 + seed) % 3 - 1));
  return v;
}

__half* device_copy(const std::vector<__half>& host) {
  __half* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, host.size() * sizeof(__half)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, host.data(), host.size() * sizeof(__half), cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

// Runs bwgemm::gemm on M x N x K (B N x K) and checks D = A·Bᵀ exactly; returns the diagnostics it printed.
std::string check_gemm(int64_t m, int64_t n, int64_t k) {
  const std::vector<__half> a = operand(m * k, 3), b = operand(n * k, 5);
  __half* da = device_copy(a);
  __half* db = device_copy(b);
  __half* dd = device_copy(std::vector<__half>(m * n, __float2half(7.0f)));
  bwgemm::GemmArguments<__half> args;
  args.m = m, args.n = n, args.k = k;
  args.a = da, args.b = db, args.d = dd, args.b_layout = kNxK;
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const bwgemm::Status s = bwgemm::gemm(args);
  const std::string out = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  EXPECT_TRUE(s.ok()) << s.to_string();
  std::vector<__half> d(m * n);
  EXPECT_EQ(cudaMemcpy(d.data(), dd, d.size() * sizeof(__half), cudaMemcpyDeviceToHost), cudaSuccess);
  int64_t wrong = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float want = 0;
      for (int64_t l = 0; l < k; ++l) want += __half2float(a[i * k + l]) * __half2float(b[j * k + l]);
      wrong += __half2float(d[i * n + j]) != want;
    }
  EXPECT_EQ(wrong, 0) << "of " << m * n;
  for (__half* p : {da, db, dd}) (void)cudaFree(p);
  return out;
}

TEST(Sm100ChoiceTuning, EntryForcesAnotherConfigAndTheResultHolds) {
  // The rules take GemmMediumM for 128 < M <= 512; the table GemmSmallM for M in (192, 224], N = 64, K = 128.
  ASSERT_EQ(bwgemm::sm100::gemm_choice(200), bwgemm::sm100::GemmChoice::kMediumM);
  const InstalledTable table({{tuning::Operation::kGemm, kFp16, kFp16, kNxK, 64, 128, 1, 224, "GemmSmallM"}});
  const std::string out = check_gemm(200, 64, 128);
  EXPECT_NE(
      out.find("bwgemm::tuning gemm fp16->fp16 B nk M=200 N=64 K=128 batch=1 -> GemmSmallM (built-in table "
               "'emu-test', M bucket <= 224)"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("bwgemm::sm100::gemm M=200 N=64 K=128 batch=1 -> sm100::GemmSmallM"), std::string::npos)
      << out;
  // Another shape: the rules, named as such.
  const std::string rules = check_gemm(200, 64, 64);
  EXPECT_NE(rules.find("-> GemmMediumM (rules, M bucket <= 224)"), std::string::npos) << rules;
  EXPECT_NE(rules.find("-> sm100::GemmMediumM"), std::string::npos) << rules;
}

TEST(Sm100ChoiceTuning, EntryWithASplitOfTheSwapAbKernel) {
  // The rules take GemmSwapAbTokens16 for M = 16; the table the 32-token tile with K split in two.
  const InstalledTable table(
      {{tuning::Operation::kGemm, kFp16, kFp16, kNxK, 128, 256, 1, 16, "GemmSwapAbTokens32", 2}});
  const std::string out = check_gemm(16, 128, 256);
  EXPECT_NE(out.find("-> GemmSwapAbTokens32, split_k = 2 (built-in table 'emu-test', M bucket <= 16)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("-> sm100::GemmSwapAbTokens32"), std::string::npos) << out;
  EXPECT_NE(out.find("split_k = 2 over"), std::string::npos) << out;
}

TEST(Sm100ChoiceTuning, EntryItsConfigCannotRunFallsToTheRules) {
  // A split of a tiled Config (they take none), and stream-K (no sm_100a Config of the choice has it).
  const InstalledTable table(
      {{tuning::Operation::kGemm, kFp16, kFp16, kNxK, 64, 128, 1, 224, "GemmLargeM", 2},
       {tuning::Operation::kGemm, kFp16, kFp16, kNxK, 64, 64, 1, 224, "GemmSmallM", 0,
        tuning::StreamK::kOn}});
  const std::string split = check_gemm(200, 64, 128);
  EXPECT_NE(split.find(
                "bwgemm: tuning: built-in table 'emu-test' names GemmLargeM, split_k = 2 for gemm M=200 N=64 "
                "K=128 batch=1: its Config cannot run that split for this shape; the rules' choice instead"),
            std::string::npos)
      << split;
  EXPECT_NE(split.find("-> sm100::GemmMediumM"), std::string::npos) << split;
  const std::string stream_k = check_gemm(200, 64, 64);
  EXPECT_NE(
      stream_k.find("names GemmSmallM, split_k = 0 for gemm M=200 N=64 K=64 batch=1: no sm_100a Config of "
                    "the choice runs stream-K; the rules' choice instead"),
      std::string::npos)
      << stream_k;
  EXPECT_NE(stream_k.find("-> sm100::GemmMediumM"), std::string::npos) << stream_k;
}

TEST(Sm100ChoiceTuning, DualGemmEntry) {
  // The rules take DualGemmLargeM above 256 rows; the table DualGemmSmallM at M = 300 (bucket 320).
  ASSERT_EQ(bwgemm::sm100::dual_gemm_choice(300), bwgemm::sm100::DualGemmChoice::kLargeM);
  const InstalledTable table(
      {{tuning::Operation::kDualGemm, kFp16, kFp16, kNxK, 64, 64, 1, 320, "DualGemmSmallM"}});
  const int64_t m = 300, n = 64, k = 64;
  const std::vector<__half> a = operand(m * k, 1), b1 = operand(n * k, 2), b2 = operand(n * k, 4);
  __half* da = device_copy(a);
  __half* db1 = device_copy(b1);
  __half* db2 = device_copy(b2);
  __half* dc = device_copy(std::vector<__half>(m * n));
  bwgemm::DualGemmArguments<__half> args;
  args.m = m, args.n = n, args.k = k;
  args.a = da, args.b1 = db1, args.b2 = db2, args.c = dc;
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const bwgemm::Status s = bwgemm::dual_gemm(args);
  const std::string out = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_NE(
      out.find("bwgemm::tuning dual_gemm fp16->fp16 B nk M=300 N=64 K=64 batch=1 -> DualGemmSmallM (built-in "
               "table 'emu-test', M bucket <= 320)"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("-> sm100::DualGemmSmallM"), std::string::npos) << out;
  std::vector<__half> c(m * n);
  ASSERT_EQ(cudaMemcpy(c.data(), dc, c.size() * sizeof(__half), cudaMemcpyDeviceToHost), cudaSuccess);
  int64_t wrong = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double gate = 0, up = 0;
      for (int64_t l = 0; l < k; ++l) {
        gate += __half2float(a[i * k + l]) * __half2float(b1[j * k + l]);
        up += __half2float(a[i * k + l]) * __half2float(b2[j * k + l]);
      }
      const double want = bwgemm::ref::silu_mul(gate, up);
      wrong += std::fabs(__half2float(c[i * n + j]) - want) > 2e-3 * std::fabs(want) + 1e-3;
    }
  EXPECT_EQ(wrong, 0) << "of " << m * n;
  for (__half* p : {da, db1, db2, dc}) (void)cudaFree(p);
}

// ---- the NVFP4 entry points
// ----------------------------------------------------------------------------------

template <class T>
T* device_bytes(const std::vector<T>& host) {
  T* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, std::max<size_t>(host.size(), 1) * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

constexpr auto kNvfp4 = tuning::Element::kNvfp4;

// Runs bwgemm::gemm_nvfp4 (fp16 D) on exact-tier operands and checks D = A·Bᵀ bit for bit; returns the
// diagnostics it printed.
std::string check_gemm_nvfp4(int64_t m, int64_t n, int64_t k) {
  using bwgemm_test::Data;
  const bwgemm_test::Nvfp4Operand a = bwgemm_test::make_nvfp4_operand(m, k, 1, Data::kExact, 11);
  const bwgemm_test::Nvfp4Operand b = bwgemm_test::make_nvfp4_operand(n, k, 1, Data::kExact, 12);
  uint8_t* dad = device_bytes(a.data);
  uint8_t* das = device_bytes(a.scales);
  uint8_t* dbd = device_bytes(b.data);
  uint8_t* dbs = device_bytes(b.scales);
  __half* dd = device_copy(std::vector<__half>(m * n, __float2half(7.0f)));
  bwgemm::Nvfp4GemmArguments<__half> args;
  args.m = m, args.n = n, args.k = k;
  args.a = {dad, das}, args.b = {dbd, dbs}, args.d = dd;
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const bwgemm::Status s = bwgemm::gemm_nvfp4(args);
  const std::string out = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  EXPECT_TRUE(s.ok()) << s.to_string();
  std::vector<__half> d(m * n);
  EXPECT_EQ(cudaMemcpy(d.data(), dd, d.size() * sizeof(__half), cudaMemcpyDeviceToHost), cudaSuccess);
  const std::vector<float> want = bwgemm_test::nvfp4_product(a, b, 1.0f);
  int64_t wrong = 0;
  for (int64_t i = 0; i < m * n; ++i) wrong += __half2float(d[i]) != __half2float(__float2half(want[i]));
  EXPECT_EQ(wrong, 0) << "of " << m * n;
  (void)cudaFree(dd);
  for (uint8_t* p : {dad, das, dbd, dbs}) (void)cudaFree(p);
  return out;
}

TEST(Sm100ChoiceTuning, Nvfp4GemmEntriesForceAConfigAndASplit) {
  // The rules take Nvfp4GemmLargeM above 256 rows and the 16-token swap-AB tile at M = 16; the table
  // Nvfp4GemmSmallM at M = 300 (bucket 320) and the 32-token tile with K split in two at M = 16.
  ASSERT_EQ(bwgemm::sm100::nvfp4_gemm_choice(300), bwgemm::sm100::Nvfp4GemmChoice::kLargeM);
  ASSERT_EQ(bwgemm::sm100::nvfp4_gemm_choice(16), bwgemm::sm100::Nvfp4GemmChoice::kSwapAbTokens16);
  const InstalledTable table(
      {{tuning::Operation::kNvfp4Gemm, kNvfp4, kFp16, kNxK, 128, 128, 1, 320, "Nvfp4GemmSmallM"},
       {tuning::Operation::kNvfp4Gemm, kNvfp4, kFp16, kNxK, 128, 1024, 1, 16, "Nvfp4GemmSwapAbTokens32", 2}});
  const std::string tiled = check_gemm_nvfp4(300, 128, 128);
  EXPECT_NE(
      tiled.find("bwgemm::tuning nvfp4_gemm nvfp4->fp16 B nk M=300 N=128 K=128 batch=1 -> Nvfp4GemmSmallM "
                 "(built-in table 'emu-test', M bucket <= 320)"),
      std::string::npos)
      << tiled;
  EXPECT_NE(tiled.find("-> sm100::Nvfp4GemmSmallM"), std::string::npos) << tiled;
  const std::string split = check_gemm_nvfp4(16, 128, 1024);  // 4 K blocks of 256
  EXPECT_NE(split.find("-> Nvfp4GemmSwapAbTokens32, split_k = 2 (built-in table 'emu-test', M bucket <= 16)"),
            std::string::npos)
      << split;
  EXPECT_NE(split.find("-> sm100::Nvfp4GemmSwapAbTokens32"), std::string::npos) << split;
  EXPECT_NE(split.find("split_k = 2 over"), std::string::npos) << split;
  // Another shape: the rules.
  const std::string rules = check_gemm_nvfp4(16, 128, 128);
  EXPECT_NE(rules.find("-> Nvfp4GemmSwapAbTokens16 (rules, M bucket <= 16)"), std::string::npos) << rules;
}

TEST(Sm100ChoiceTuning, Nvfp4DualGemmEntryAndAnNvfp4OutputEntryItsConfigCannotWrite) {
  using bwgemm_test::Data;
  // The rules take the 16-token swap-AB tile at M = 16; the table the 64-token one.
  const InstalledTable table({{tuning::Operation::kNvfp4DualGemm, kNvfp4, kFp16, kNxK, 128, 128, 1, 16,
                               "Nvfp4DualGemmSwapAbTokens64"},
                              {tuning::Operation::kNvfp4DualGemm, kNvfp4, kNvfp4, kNxK, 128, 128, 1, 16,
                               "Nvfp4DualGemmSwapAbTokens16"}});
  bwgemm_test::Nvfp4DualProblem pb;
  pb.m = 16, pb.n = 128, pb.k = 128;
  const bwgemm_test::Nvfp4DualOperands o(pb, Data::kRealistic, 21);
  uint8_t* p[6] = {device_bytes(o.a.data),    device_bytes(o.a.scales), device_bytes(o.b1.data),
                   device_bytes(o.b1.scales), device_bytes(o.b2.data),  device_bytes(o.b2.scales)};
  std::vector<uint16_t> c(pb.m * pb.ldc(), static_cast<uint16_t>(bwgemm_test::kDualFillByte * 0x101));
  uint16_t* dc = device_bytes(c);
  bwgemm::Nvfp4DualGemmArguments<__half> args;
  args.m = pb.m, args.n = pb.n, args.k = pb.k;
  args.a = {p[0], p[1]}, args.b1 = {p[2], p[3]}, args.b2 = {p[4], p[5]};
  args.c = reinterpret_cast<__half*>(dc);
  bwgemm::set_diagnostics(true);
  ::testing::internal::CaptureStderr();
  const bwgemm::Status s = bwgemm::dual_gemm_nvfp4(args);
  std::string out = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_NE(out.find("bwgemm::tuning nvfp4_dual_gemm nvfp4->fp16 B nk M=16 N=128 K=128 batch=1 -> "
                     "Nvfp4DualGemmSwapAbTokens64 (built-in table 'emu-test', M bucket <= 16)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("-> sm100::Nvfp4DualGemmSwapAbTokens64"), std::string::npos) << out;
  ASSERT_EQ(cudaMemcpy(c.data(), dc, c.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(bwgemm_test::expect_nvfp4_dual_matches<__half>(o, Data::kRealistic, c), 0);

  // NVFP4 C: only the tiled Configs write it, so an entry naming a swap-AB one falls to the rules.
  std::vector<uint8_t> c_data(pb.m * pb.n / 2), c_scales(bwgemm::blocked_scale_bytes(pb.m, pb.n / 16));
  uint8_t* dcd = device_bytes(c_data);
  uint8_t* dcs = device_bytes(c_scales);
  bwgemm::Nvfp4DualGemmArguments<bwgemm::Nvfp4Output> q;
  q.m = pb.m, q.n = pb.n, q.k = pb.k;
  q.a = args.a, q.b1 = args.b1, q.b2 = args.b2;
  q.c = {dcd, dcs};
  ::testing::internal::CaptureStderr();
  const bwgemm::Status sq = bwgemm::dual_gemm_nvfp4(q);
  out = ::testing::internal::GetCapturedStderr();
  bwgemm::set_diagnostics(false);
  ASSERT_TRUE(sq.ok()) << sq.to_string();
  EXPECT_NE(
      out.find("built-in table 'emu-test' names Nvfp4DualGemmSwapAbTokens16, split_k = 0 for "
               "nvfp4_dual_gemm M=16 N=128 K=128 batch=1: its Config cannot write an NVFP4 output or cannot "
               "run that split; the rules' choice instead"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("-> sm100::Nvfp4DualGemmSmallM<Nvfp4Output>"), std::string::npos) << out;
  (void)cudaFree(dc);
  for (uint8_t* x : {p[0], p[1], p[2], p[3], p[4], p[5], dcd, dcs}) (void)cudaFree(x);
}

}  // namespace

namespace {

// A tuning file for the current (emulated) device with one entry, as bwgemm-tune writes them.
tuning::TuningDocument file_for_current_device(const char* config) {
  const tuning::DeviceDescription* device = nullptr;
  EXPECT_TRUE(bwgemm::host::current_device_description(&device));
  tuning::TuningDocument doc;
  doc.metadata.gpu = device->name;
  doc.metadata.sm_count = device->sm_count;
  doc.metadata.cc_major = device->cc_major, doc.metadata.cc_minor = device->cc_minor;
  doc.metadata.cuda_runtime = device->cuda_runtime, doc.metadata.cuda_driver = device->cuda_driver;
  doc.metadata.bwgemm_version =
      std::to_string(device->bwgemm_major) + "." + std::to_string(device->bwgemm_minor) + ".0";
  doc.metadata.date = "2026-12-05";
  tuning::Entry e;
  e.op = tuning::Operation::kGemm, e.in = kFp16, e.out = kFp16, e.b_layout = kNxK;
  e.n = 64, e.k = 128, e.batch = 1, e.m = 224, e.config = config;
  doc.entries.push_back(e);
  return doc;
}

}  // namespace

// bwgemm::install_tuning_file: a file for this device installs its table (the entry point takes its Config
// and the diagnostics name the file); a file for another GPU, or naming an unknown Config, is refused with
// the reason and leaves the table installed before.
TEST(Sm100ChoiceTuning, InstallTuningFileFromThePublicEntry) {
  const std::string path = ::testing::TempDir() + "bwgemm_tuning_install_test.json";
  ASSERT_TRUE(tuning::write_tuning_file(path, file_for_current_device("GemmSmallM")).ok());
  const bwgemm::Status installed = bwgemm::install_tuning_file(path);
  ASSERT_TRUE(installed.ok()) << installed.to_string();
  const std::string out = check_gemm(200, 64, 128);
  EXPECT_NE(out.find("-> GemmSmallM (tuning file '" + path + "', M bucket <= 224)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("-> sm100::GemmSmallM"), std::string::npos) << out;

  tuning::TuningDocument other = file_for_current_device("GemmSmallM");
  other.metadata.gpu = "NVIDIA H200";
  const std::string other_path = ::testing::TempDir() + "bwgemm_tuning_install_other.json";
  ASSERT_TRUE(tuning::write_tuning_file(other_path, other).ok());
  const bwgemm::Status refused = bwgemm::install_tuning_file(other_path);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("NVIDIA H200"), std::string::npos) << refused.message();
  const std::string unknown_path = ::testing::TempDir() + "bwgemm_tuning_install_unknown.json";
  ASSERT_TRUE(tuning::write_tuning_file(unknown_path, file_for_current_device("GemmHuge")).ok());
  const bwgemm::Status unknown = bwgemm::install_tuning_file(unknown_path);
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("GemmHuge"), std::string::npos) << unknown.message();
  // The first file's table is still the installed one.
  const std::string still = check_gemm(200, 64, 128);
  EXPECT_NE(still.find("-> GemmSmallM (tuning file '" + path + "'"), std::string::npos) << still;
  bwgemm::install_tuning_table(nullptr);
}

// The grouped entry points ask the tables too: the key's M is the tokens an expert is expected to get, its
// batch the experts. Two experts of 40 and 0 tokens over 64 buffer rows (32 expected: the rules' swap AB);
// the table names the 256-row tiles; D = A·B_eᵀ checked exactly either way.
TEST(Sm100ChoiceTuning, GroupedEntryForcesAnotherConfig) {
  const int64_t total = 64, n = 64, k = 64, experts = 2;
  const std::vector<__half> a = operand(total * k, 3), b = operand(experts * n * k, 5);
  __half* da = device_copy(a);
  __half* db = device_copy(b);
  __half* dd = device_copy(std::vector<__half>(total * n, __float2half(7.0f)));
  int32_t* offs = nullptr;
  ASSERT_EQ(cudaMalloc(&offs, 2 * sizeof(int32_t)), cudaSuccess);
  const int32_t host_offs[2] = {40, 40};
  ASSERT_EQ(cudaMemcpy(offs, host_offs, sizeof(host_offs), cudaMemcpyHostToDevice), cudaSuccess);
  bwgemm::GroupedGemmArguments<__half> args;
  args.tokens = bwgemm::contiguous_tokens(total, offs);
  args.experts = experts, args.n = n, args.k = k, args.a = da, args.b = db, args.d = dd;
  const auto run = [&] {
    bwgemm::set_diagnostics(true);
    ::testing::internal::CaptureStderr();
    const bwgemm::Status s = bwgemm::grouped_gemm(args);
    const std::string out = ::testing::internal::GetCapturedStderr();
    bwgemm::set_diagnostics(false);
    EXPECT_TRUE(s.ok()) << s.to_string();
    std::vector<__half> d(total * n);
    EXPECT_EQ(cudaMemcpy(d.data(), dd, d.size() * sizeof(__half), cudaMemcpyDeviceToHost), cudaSuccess);
    int64_t wrong = 0;
    for (int64_t i = 0; i < total; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float want = 7.0f;  // rows past offs[1] are not written
        if (i < 40) {
          want = 0;
          for (int64_t l = 0; l < k; ++l) want += __half2float(a[i * k + l]) * __half2float(b[j * k + l]);
        }
        wrong += __half2float(d[i * n + j]) != want;
      }
    EXPECT_EQ(wrong, 0);
    return out;
  };
  const std::string rules = run();
  EXPECT_NE(rules.find("-> sm100::GroupedGemmSwapAbTokens32"), std::string::npos) << rules;
  {
    const InstalledTable table(
        {{tuning::Operation::kGroupedGemm, kFp16, kFp16, kNxK, 64, 64, 2, 32, "GroupedGemmTokens256"}});
    const std::string out = run();
    EXPECT_NE(out.find("bwgemm::tuning grouped_gemm fp16->fp16 B nk M=32 N=64 K=64 batch=2 -> "
                       "GroupedGemmTokens256 (built-in table 'emu-test', M bucket <= 32)"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("-> sm100::GroupedGemmTokens256"), std::string::npos) << out;
  }
  for (void* p :
       {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dd), static_cast<void*>(offs)})
    (void)cudaFree(p);
}
