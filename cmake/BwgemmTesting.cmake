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
  target_compile_options(${name} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
  # GTEST_SKIP (e.g. a GPU test on a machine without the GPU it needs) shows as "Skipped" in ctest.
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${ARG_LABELS}" SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endfunction()
