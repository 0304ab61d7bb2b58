# Driven by ctest (see CMakeLists.txt beside this file).
cmake_minimum_required(VERSION 3.25)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(common_args -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
                -DCMAKE_CXX_COMPILER=${CXX_COMPILER})

# 1. Install into a temporary prefix. The install includes the static library bwgemm::emu: build it first
#    (a no-op when the tree is built) so that the test also runs after building only some targets.
run_step("build bwgemm_emu" ${CMAKE_COMMAND} --build ${BWGEMM_BINARY_DIR} --target bwgemm_emu bwgemm_emu_cudart)
run_step("install" ${CMAKE_COMMAND} --install ${BWGEMM_BINARY_DIR} --prefix ${prefix})
foreach(f include/bwgemm/formats/nvfp4.cuh lib/cmake/bwgemm/bwgemmConfig.cmake
          lib/cmake/bwgemm/bwgemmConfigVersion.cmake lib/cmake/bwgemm/bwgemmTargets.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install did not produce ${f}")
  endif()
endforeach()

# 2. A consumer finds it, builds host and sm_100a device code against it, and runs the host part; its
#    emu_consumer links the installed static library bwgemm::emu and runs a kernel in the CPU emulator;
#    cudart_consumer, a program written for the GPU, links the installed emulated CUDA runtime
#    bwgemm::emu_cudart and runs bwgemm::gemm in the emulator.
run_step("configure consumer" ${CMAKE_COMMAND} -S ${TEST_DIR}/consumer -B ${WORK_DIR}/consumer
         -DCMAKE_PREFIX_PATH=${prefix} ${common_args})
run_step("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run_step("run consumer" ${WORK_DIR}/consumer/consumer)
if(NOT step_output MATCHES "bwgemm 0\\.1\\.0: quantized 32 values, max error 0")
  message(FATAL_ERROR "unexpected consumer output: ${step_output}")
endif()
run_step("run emulator consumer" ${WORK_DIR}/consumer/emu_consumer)
if(NOT step_output MATCHES "bwgemm emu: 128 threads ran, 0 wrong")
  message(FATAL_ERROR "unexpected emulator consumer output: ${step_output}")
endif()

run_step("run emulated-runtime consumer" ${WORK_DIR}/consumer/cudart_consumer)
if(NOT step_output MATCHES "bwgemm emu_cudart: gemm 128 x 128 x 64, 0 wrong, host pointer refused")
  message(FATAL_ERROR "unexpected emulated-runtime consumer output: ${step_output}")
endif()

# 2b. The README's consumer project (its `cmake_consumer` snippet, as given) configures and builds against
#     the install, with a main.cu that includes a bwgemm header.
include(${BWGEMM_SOURCE_DIR}/test/readme/readme_snippets.cmake)
readme_snippet(${BWGEMM_SOURCE_DIR}/README.md cmake_consumer readme_cmake)
file(WRITE ${WORK_DIR}/readme_consumer/CMakeLists.txt "${readme_cmake}")
file(WRITE ${WORK_DIR}/readme_consumer/main.cu
     "#include <bwgemm/base/status.hpp>\nint main() { return bwgemm::Status().ok() ? 0 : 1; }\n")
run_step("configure the README's consumer project" ${CMAKE_COMMAND} -S ${WORK_DIR}/readme_consumer
         -B ${WORK_DIR}/readme_consumer/build -DCMAKE_PREFIX_PATH=${prefix} ${common_args})
run_step("build the README's consumer project" ${CMAKE_COMMAND} --build ${WORK_DIR}/readme_consumer/build)
run_step("run the README's consumer project" ${WORK_DIR}/readme_consumer/build/app)

# 3. Asking for a version the package does not provide fails at configure time.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${TEST_DIR}/consumer -B ${WORK_DIR}/consumer_v9
                        -DCMAKE_PREFIX_PATH=${prefix} -DCONSUMER_BWGEMM_VERSION=9.0 ${common_args}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "bwgemm")
  message(FATAL_ERROR "find_package(bwgemm 9.0) should have failed (rc ${rc}):\n${err}")
endif()

# 4. add_subdirectory(): the library target exists; bwgemm's tests, examples and benchmarks do not.
run_step("configure add_subdirectory project" ${CMAKE_COMMAND} -S ${TEST_DIR}/subproject -B ${WORK_DIR}/subproject
         -DBWGEMM_SOURCE_DIR=${BWGEMM_SOURCE_DIR} ${common_args})
message(STATUS "package test passed")
