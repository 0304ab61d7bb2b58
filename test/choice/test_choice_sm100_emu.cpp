// The sm_100a default entry points with a tuning table installed, in the CPU emulator through the emulated
// runtime (bwgemm::emu_cudart: one compute capability 10.0 device, "bwgemm CPU emulator (sm_100a)"): an
// entry that forces a Config other than the rules' runs it and the result is still right; an entry its Config
// cannot run falls to the rules; BWGEMM_DIAGNOSTICS=1 names the table that chose.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <bwgemm/base/diagnostics.hpp>
#include <bwgemm/dual_gemm.cuh>
#include <bwgemm/gemm.cuh>
#include <bwgemm/reference/activations.hpp>
#include <bwgemm/sm100/tuning.hpp>
#include <bwgemm/tuning/registry.hpp>
#include <bwgemm/tuning/table.hpp>
#include <bwgemm/tuning_file.hpp>

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
  EXPECT_NE(out.find("-> GemmSmallM (tuning file '" + path + "', M bucket <= 224)"), std::string::npos) << out;
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
