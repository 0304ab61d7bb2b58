// gpu_style_program.cu built natively (nvcc, sm_100a, the real CUDA runtime): the program the emulated runtime
// runs is an ordinary GPU program. Built with the tests so that it stays one; run it on a B200.
#include "gpu_style_program.cu"
