#!/usr/bin/env bash
# Builds the TMA fidelity microkernel for sm_90a and writes the H200's bytes to test/data/tma_h200_golden.bin
# (or to $1). Run from the repository root on a machine with an H100/H200 and the CUDA toolkit.
set -euo pipefail
out=${1:-test/data/tma_h200_golden.bin}
nvcc -std=c++17 -O2 -gencode arch=compute_90a,code=sm_90a -Iinclude -o /tmp/tma_h200_probe test/emu/tma_h200/main.cu
/tmp/tma_h200_probe "$out"
