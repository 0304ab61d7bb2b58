// What the contract suites share: a test case is a (backend, Config) pair; a Config list becomes the gtest
// type list of one backend; test names say the Config; a case skips with the backend's own message where it
// cannot run.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "bwgemm/base/status.hpp"
#include "gemm_check.hpp"  // type_name

namespace bwgemm_test {

template <class B, class C>
struct Case {
  using Backend = B;
  using Cfg = C;
};

// A list of Configs (any template of the form List<Cfg...>, e.g. sm100::ConfigList) as the gtest types of
// one backend.
template <class Backend, class List>
struct CasesOf;
template <class Backend, template <class...> class List, class... Cs>
struct CasesOf<Backend, List<Cs...>> {
  using type = ::testing::Types<Case<Backend, Cs>...>;
};
template <class... Cs>
struct Configs {};

// Config knobs some backends have: sm_90a's TmaStore (false: "_RegisterStore").
template <class Cfg, class = void>
struct StoreSuffix {
  static std::string get() { return ""; }
};
template <class Cfg>
struct StoreSuffix<Cfg, std::void_t<decltype(Cfg::kTmaStore)>> {
  static std::string get() { return Cfg::kTmaStore ? "" : "_RegisterStore"; }
};

// sm_90a's tile-shape knobs: RowBlocks (2: "_R2", 128 rows per consumer) and ClusterAlongN ("_AlongN": the
// pair side by side along N sharing A), GemmConfig's; PingPong ("_PingPong": the consumers take alternate
// tiles), GemmConfig's and DualGemmConfig's. Every knob that tells two Configs apart must reach the name:
// gtest refuses two test suites of one name.
template <class Cfg, class = void>
struct ShapeSuffix {
  static std::string get() { return ""; }
};
template <class Cfg>
struct ShapeSuffix<Cfg, std::void_t<decltype(Cfg::kRowBlocks), decltype(Cfg::kClusterAlongN)>> {
  static std::string get() {
    return (Cfg::kRowBlocks != 1 ? "_R" + std::to_string(Cfg::kRowBlocks) : std::string()) +
           (Cfg::kClusterAlongN ? "_AlongN" : "");
  }
};
template <class Cfg, class = void>
struct PingPongSuffix {
  static std::string get() { return ""; }
};
template <class Cfg>
struct PingPongSuffix<Cfg, std::void_t<decltype(Cfg::kPingPong)>> {
  static std::string get() { return Cfg::kPingPong ? "_PingPong" : ""; }
};

// "N256_S4_G2_StaticPersistent_bf16": BlockN, stages, CTAs per cluster, scheduler, output type; the swap-AB
// Configs (sm_90a SwapAbConfig, no scheduler) "SwapAbT16xN128_S12_bf16": tokens x weight rows per tile,
// stages, output type.
template <class Cfg, class = void>
struct ConfigName {
  static std::string get() {
    return "N" + std::to_string(Cfg::kBlockN) + "_S" + std::to_string(Cfg::kStages) + "_G" +
           std::to_string(Cfg::kClusterCtas) + "_" + Cfg::Scheduler::kName + "_" +
           type_name<typename Cfg::Out>() + StoreSuffix<Cfg>::get() + ShapeSuffix<Cfg>::get() +
           PingPongSuffix<Cfg>::get();
  }
};
template <class Cfg>
struct ConfigName<Cfg, std::void_t<decltype(Cfg::kBlockTokens)>> {
  static std::string get() {
    return "SwapAbT" + std::to_string(Cfg::kBlockTokens) + "xN" + std::to_string(Cfg::kBlockWeights) + "_S" +
           std::to_string(Cfg::kStages) + "_" + type_name<typename Cfg::Out>();
  }
};
struct ConfigNames {
  template <class C>
  static std::string GetName(int) {
    return ConfigName<typename C::Cfg>::get();
  }
};

// A refused call: kInvalidArgument with a message that contains `fragment`.
inline void expect_refused(const bwgemm::Status& s, const char* fragment) {
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << fragment << ": " << s.to_string();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

}  // namespace bwgemm_test

// Skips the test where the case's backend cannot run, with what it needs and why.
#define BWGEMM_CONTRACT_REQUIRE(CaseType)                                    \
  do {                                                                       \
    std::string why_;                                                        \
    if (!CaseType::Backend::available(&why_))                                \
      GTEST_SKIP() << "needs " << CaseType::Backend::kNeeds << ": " << why_; \
  } while (0)
