// The sm_100a candidate source (tune_sources_sm100.cu) compiled as host C++ against the CPU emulator, for
// bwgemm-tune-emu: one source, two builds (a .cpp name, so CMake compiles it as C++ without touching the
// language of the .cu file that bwgemm-tune builds with nvcc).
#include "tune_sources_sm100.cu"
