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

# Native-only suites: test binaries whose every case needs a GPU of one architecture and that add no case
# running without it (the sm_100a `*_gpu` twins of the emulated suites, the sm_90a PDL and device-scale
# suites, the dispatch test built for 100a alone). Where nothing could run them, building them only costs
# time: on the 2-core CI machine they were about half of the test build (cmake/BwgemmTesting.cmake's
# measurement, 2026-12-05: 444 of 1255 compile-seconds). The kernels they launch are still compiled for
# their architecture in every build (the compile report's kernel_instances, the sm_90a contract suites, the
# dispatch test and the examples).
#   AUTO (default): build the sm_100a ones where the configuring machine has a GPU of compute capability 10.0,
#                   the sm_90a ones where it has one of 9.0 (nvidia-smi); none elsewhere
#   ON:             build all of them (e.g. to configure on a machine without the GPU that will run them)
#   OFF:            build none
set(BWGEMM_NATIVE_TESTS AUTO CACHE STRING "Build the native-only GPU test suites: AUTO, ON or OFF")
set_property(CACHE BWGEMM_NATIVE_TESTS PROPERTY STRINGS AUTO ON OFF)
set(BWGEMM_NATIVE_TESTS_SM100 OFF)
set(BWGEMM_NATIVE_TESTS_SM90 OFF)
if(BWGEMM_NATIVE_TESTS STREQUAL "AUTO")
  find_program(BWGEMM_NVIDIA_SMI nvidia-smi)
  set(_capabilities "")
  if(BWGEMM_NVIDIA_SMI)
    execute_process(COMMAND ${BWGEMM_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _capabilities ERROR_QUIET RESULT_VARIABLE _smi_result TIMEOUT 30)
    if(NOT _smi_result EQUAL 0)
      set(_capabilities "")
    endif()
  endif()
  if(_capabilities MATCHES "10\\.0")
    set(BWGEMM_NATIVE_TESTS_SM100 ON)
  endif()
  if(_capabilities MATCHES "9\\.0")
    set(BWGEMM_NATIVE_TESTS_SM90 ON)
  endif()
elseif(BWGEMM_NATIVE_TESTS)
  set(BWGEMM_NATIVE_TESTS_SM100 ON)
  set(BWGEMM_NATIVE_TESTS_SM90 ON)
endif()
if(BWGEMM_BUILD_TESTS)
  message(STATUS "bwgemm: native-only test suites (BWGEMM_NATIVE_TESTS=${BWGEMM_NATIVE_TESTS}): "
                 "sm_100a ${BWGEMM_NATIVE_TESTS_SM100}, sm_90a ${BWGEMM_NATIVE_TESTS_SM90}")
endif()
