# bwgemm::emu -- the CPU emulation backend. Kernel sources compiled as host C++ against this target run on
# an emulated sm_100a GPU (include/bwgemm/emu/, docs/emulator.md): the ptx/ wrappers forward to the
# emulator instead of inline PTX.
#
#   target_link_libraries(my_test PRIVATE bwgemm::emu)   # adds BWGEMM_EMULATION=1
#
# A static library: the emulator's non-template core (scheduler, fibers, TMA and tcgen05 engines, mbarrier
# state, tcgen05.mma arithmetic) is compiled once from src/emu/; the headers in include/bwgemm/emu/ declare
# it and keep only what is templated on the kernel, cta_group, rank, scope, ... Position-independent so a
# shared library (e.g. a Python extension) can link it.
add_library(bwgemm_emu STATIC
  ${PROJECT_SOURCE_DIR}/src/emu/clc.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/fiber.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/machine.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/math_ops.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/mbarrier.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/mbarrier_state.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/mma_arith.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/shared_memory.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/smem_operand.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/tcgen05.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/tensor_map.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/thread_ops.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/tma.cpp
  ${PROJECT_SOURCE_DIR}/src/emu/tmem_state.cpp)
add_library(bwgemm::emu ALIAS bwgemm_emu)
set_target_properties(bwgemm_emu PROPERTIES EXPORT_NAME emu POSITION_INDEPENDENT_CODE ON)
# bwgemm::bwgemm brings the include directories (include/, and the CUDA toolkit's through CUDA::cudart:
# the emulator uses cuda.h's CUtensorMap and cuda_runtime_api.h's host defines) and C++17.
target_link_libraries(bwgemm_emu PUBLIC bwgemm::bwgemm Threads::Threads)
target_compile_features(bwgemm_emu PUBLIC cxx_std_17)
target_compile_definitions(bwgemm_emu PUBLIC BWGEMM_EMULATION=1)
target_compile_options(bwgemm_emu PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra>)
# Kernels compiled as host C++ keep their #pragma unroll, which g++ does not know.
# -Wno-psabi: g++ notes the ABI of 64-byte-aligned CUtensorMap parameters passed by value.
target_compile_options(bwgemm_emu INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-unknown-pragmas -Wno-psabi>)
install(TARGETS bwgemm_emu EXPORT bwgemmTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# g++ 12 makes the kind::f16 element arithmetic slower at -O2/-O3 than at -O1 (-fexpensive-optimizations):
# test_gemm_emu ran 14.2 s with this file at -O3 and 12.1 s at -O1, as fast as when the arithmetic was inline
# in -O1 test code; the NVFP4 arithmetic (test_dual_gemm_emu, 15.7 s) is as fast at both (2026-12-01). So
# optimized builds compile this file at -O1.
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/emu/mma_arith.cpp PROPERTIES
  COMPILE_OPTIONS "$<$<AND:$<CXX_COMPILER_ID:GNU>,$<CONFIG:Release,RelWithDebInfo>>:-O1>")

# bwgemm::emu_cudart -- the emulated CUDA runtime (include/bwgemm/emu/cudart.hpp): cudaMalloc, cudaMemcpy,
# streams, events, device queries, ... defined on the host, so that a program written for the GPU builds as
# host C++ against bwgemm::emu unchanged (docs/emulator.md, "Run your own program"):
#
#   target_link_libraries(app PRIVATE bwgemm::emu_cudart)
#
# An object library: its object file is linked into the consumer itself, so its definitions take precedence
# over libcudart.so's (which bwgemm::bwgemm links through CUDA::cudart) wherever the link line puts that.
add_library(bwgemm_emu_cudart OBJECT ${PROJECT_SOURCE_DIR}/src/emu_cudart/cudart.cpp)
add_library(bwgemm::emu_cudart ALIAS bwgemm_emu_cudart)
set_target_properties(bwgemm_emu_cudart PROPERTIES EXPORT_NAME emu_cudart POSITION_INDEPENDENT_CODE ON)
target_link_libraries(bwgemm_emu_cudart PUBLIC bwgemm::emu)
target_compile_options(bwgemm_emu_cudart PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra>)
install(TARGETS bwgemm_emu_cudart EXPORT bwgemmTargets OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/bwgemm_emu_cudart)
