// The NVFP4-output NVFP4 GEMM suite compiled with nvcc for sm_100a: runs natively on a GPU of compute
// capability 10.0 (B200) and skips with a message elsewhere. The same source runs in the emulator as
// test_nvfp4_gemm_nvfp4_out_emu.
#include "test_nvfp4_gemm_nvfp4_out.cpp"
