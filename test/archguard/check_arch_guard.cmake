# Driven by ctest (CMakeLists.txt beside this file): compile SOURCE with nvcc for the targets in FLAGS and
# check the outcome. EXPECT=refused: the compile must fail with bwgemm's refusal of a device pass that is
# not an architecture-specific target (naming __CUDA_ARCH__ = ARCH when ARCH is given, and the 90a fix).
# EXPECT=builds: it must compile. OPTIONAL=ON: if this nvcc does not accept FLAGS at all (an empty kernel
# fails to compile with them), print "archguard: skipped" (the test's SKIP_REGULAR_EXPRESSION).
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY ${WORK})
separate_arguments(flags UNIX_COMMAND "${FLAGS}")

if(OPTIONAL)
  file(WRITE ${WORK}/probe.cu "__global__ void archguard_probe() {}\n")
  execute_process(COMMAND ${NVCC} ${flags} -c ${WORK}/probe.cu -o ${WORK}/probe.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(STATUS "archguard: skipped: this nvcc does not accept '${FLAGS}':\n${out}${err}")
    return()
  endif()
endif()

# -O0 for the host side (nvcc's -O applies to the host compiler; the device passes keep their default).
execute_process(
  COMMAND ${NVCC} -std=c++17 -O0 ${flags} -I${INCLUDE} -c ${SOURCE} -o ${WORK}/out.o
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")

if(EXPECT STREQUAL "builds")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "expected '${FLAGS}' to compile ${SOURCE}, nvcc failed:\n${log}")
  endif()
  message(STATUS "'${FLAGS}' compiles ${SOURCE}")
elseif(EXPECT STREQUAL "refused")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected bwgemm to refuse '${FLAGS}', but ${SOURCE} compiled")
  endif()
  set(missing "")
  foreach(text "is not an architecture-specific target" "Build for 90a (H100/H200) and/or 100a (B200/GB200)"
               "CMAKE_CUDA_ARCHITECTURES=\"90a;100a\"")
    string(FIND "${log}" "${text}" at)
    if(at EQUAL -1)
      list(APPEND missing "${text}")
    endif()
  endforeach()
  if(ARCH)
    string(FIND "${log}" "(__CUDA_ARCH__ = ${ARCH})" at)
    if(at EQUAL -1)
      list(APPEND missing "(__CUDA_ARCH__ = ${ARCH})")
    endif()
  endif()
  if(missing)
    message(FATAL_ERROR "'${FLAGS}' failed, but not with bwgemm's refusal (missing: ${missing}):\n${log}")
  endif()
  message(STATUS "'${FLAGS}' refused as expected")
else()
  message(FATAL_ERROR "EXPECT must be 'refused' or 'builds', not '${EXPECT}'")
endif()
