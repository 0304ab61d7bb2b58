# test_mma_arith: bit-exact tcgen05.mma element arithmetic (include/bwgemm/emu/mma_arith.hpp) against the
# B200 result words in test/data/tcgen05_b200_vectors.json. Included from test/emu/CMakeLists.txt.
bwgemm_add_gtest(test_mma_arith
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mma_arith.cpp
  LABELS emu host)
target_compile_definitions(test_mma_arith PRIVATE
  BWGEMM_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/test/data")
