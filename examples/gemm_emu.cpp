// The GEMM example compiled as host C++ against the CPU emulator (bwgemm::emu).
#include "gemm.cu"
