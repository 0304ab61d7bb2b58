# Compiles one C++ snippet of the README as given (its own translation unit, nothing added) with nvcc for
# one architecture-specific target (ARCH: 100a or 90a), every nvcc warning an error (-Werror all-warnings:
# e.g. #2810-D), compile only.
#   cmake -DREADME=... -DNAME=... -DNVCC=... -DARCH=100a -DINCLUDE=... -DWORK=... -P check_snippet.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/readme_snippets.cmake)
readme_snippet(${README} ${NAME} body lang)
if(NOT lang STREQUAL "cpp")
  message(FATAL_ERROR "snippet ${NAME} is a ${lang} block, not cpp")
endif()
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/${NAME}.cu "${body}")
execute_process(COMMAND ${NVCC} -std=c++17 -gencode=arch=compute_${ARCH},code=sm_${ARCH} -Werror all-warnings
                        -I${INCLUDE} -c ${WORK}/${NAME}.cu
                        -o ${WORK}/${NAME}.o
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's snippet '${NAME}' does not compile as given (${WORK}/${NAME}.cu):\n${out}")
endif()
message(STATUS "the README's snippet '${NAME}' compiles for sm_${ARCH}")
