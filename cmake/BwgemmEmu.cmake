# bwgemm::emu -- the CPU emulation backend. Kernel sources compiled as host C++ against this target run on
# an emulated sm_100a GPU (include/bwgemm/emu/, docs/emulator.md): the ptx/ wrappers forward to the
# emulator instead of inline PTX.
#
#   target_link_libraries(my_test PRIVATE bwgemm::emu)   # adds BWGEMM_EMULATION=1
add_library(bwgemm_emu INTERFACE)
add_library(bwgemm::emu ALIAS bwgemm_emu)
set_target_properties(bwgemm_emu PROPERTIES EXPORT_NAME emu)
target_link_libraries(bwgemm_emu INTERFACE bwgemm::bwgemm Threads::Threads)
target_compile_definitions(bwgemm_emu INTERFACE BWGEMM_EMULATION=1)
install(TARGETS bwgemm_emu EXPORT bwgemmTargets)
# Kernels compiled as host C++ keep their #pragma unroll, which g++ does not know.
# -Wno-psabi: g++ notes the ABI of 64-byte-aligned CUtensorMap parameters passed by value.
target_compile_options(bwgemm_emu INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-unknown-pragmas -Wno-psabi>)
