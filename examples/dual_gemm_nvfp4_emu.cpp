// The dual GEMM example compiled as host C++ against the CPU emulator (bwgemm::emu).
#include "dual_gemm_nvfp4.cu"
