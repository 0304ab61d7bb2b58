# Test helpers for bwgemm's own test suites.
find_package(GTest REQUIRED)
include(GoogleTest)

# bwgemm_add_gtest(<name> SOURCES <files...> [LABELS <labels...>] [LIBRARIES <libs...>])
#
# Builds a GoogleTest executable linked with bwgemm::bwgemm and registers every test case in it
# with CTest (one CTest test per TEST/TEST_P instance), carrying the given labels.
function(bwgemm_add_gtest name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LABELS;LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "bwgemm_add_gtest(${name}): SOURCES is required")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE bwgemm::bwgemm GTest::gtest_main ${ARG_LIBRARIES})
  # Test code is host code at -O1: it compiles in about half the time of -O3 and ran no slower (the emulated
  # GEMM suite: 9.0 s to compile and 12.8 s to run at -O1, 16.5 s and 14.6 s at -O3, on the 2-core CI
  # machine, 2026-12-01). Device code (nvcc's device passes, ptxas) is not affected by the host -O.
  target_compile_options(${name} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -O1>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-O1>)
  # GTEST_SKIP (e.g. a GPU test on a machine without the GPU it needs) shows as "Skipped" in ctest.
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${ARG_LABELS}" SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endfunction()
