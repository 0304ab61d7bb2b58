// The 16-bit dual swap-AB suite compiled with nvcc for sm_100a: runs natively on a GPU of compute capability
// 10.0 (B200) and skips with a message elsewhere. The same source runs in the emulator as
// test_dual_swap_ab_emu.
#include "test_dual_swap_ab.cpp"
