// The mixture-of-experts candidates (moe_candidates.cu) compiled as host C++ against the CPU emulator, for
// bench_moe_emu_test (one source, two builds, as tune_sources_sm100_emu.cpp).
#include "moe_candidates.cu"
