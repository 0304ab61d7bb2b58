#!/usr/bin/env bash
# One-call verification of the Hopper backend on an H100/H200 (docs/hopper.md): configure, build the sm_90a
# targets, run the gtest suites, compute-sanitizer (memcheck, racecheck, synccheck) on a small subset, then
# the bf16 dual-GEMM benchmarks (bwgemm vs the cuBLASLt baselines, same run). Logs go to $OUT (or ./sm90-logs).
#   bash test/sm90/run_on_h200.sh [bench filter, default ^dual_bf16/]
set -u -o pipefail
OUT=${OUT:-$PWD/sm90-logs}
mkdir -p "$OUT"
FILTER=${1:-'^dual_bf16/'}
JOBS=$(nproc)
step() { echo "=== $* ($(date +%T))"; }

step environment
nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee "$OUT/env.txt"
nvcc --version | tail -1 | tee -a "$OUT/env.txt"

step configure
# Default CMAKE_CUDA_ARCHITECTURES (100a): the sm_90a targets set their own architecture.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBWGEMM_BUILD_TESTS=ON -DBWGEMM_BUILD_BENCHMARKS=ON \
  -DBWGEMM_BUILD_EXAMPLES=OFF >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }

step build tests
cmake --build build -j"$JOBS" --target sm90_wgmma_descriptor_test sm90_wgmma_compile test_dual_gemm_sm90 \
  >"$OUT/build_tests.log" 2>&1 || { grep -E "error|Error" "$OUT/build_tests.log" | head -30; exit 1; }

step gtest
build/test/sm90/sm90_wgmma_descriptor_test --gtest_brief=1 2>&1 | tail -3
timeout 300 build/test/sm90/test_dual_gemm_sm90 2>&1 | tee "$OUT/gtest.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|Failure|want|rc=" | head -60
echo "gtest exit status: ${PIPESTATUS[0]}"

step compute-sanitizer
SUBSET='Sm90DualGemmExact.Bf16InFp16Out:Sm90DualGemmExact.OneTilePerCta'
for tool in memcheck racecheck synccheck; do
  timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 build/test/sm90/test_dual_gemm_sm90 \
    --gtest_filter="$SUBSET" >"$OUT/sanitizer_$tool.log" 2>&1
  echo "$tool exit status: $? ; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$OUT/sanitizer_$tool.log" | tr '\n' ' ')"
done

step build bench
cmake --build build -j"$JOBS" --target bwgemm_bench >"$OUT/build_bench.log" 2>&1 || {
  grep -E "error" "$OUT/build_bench.log" | head -20; exit 1; }

step bench
timeout 400 build/bench/bwgemm_bench --benchmark_filter="$FILTER" --benchmark_out="$OUT/bench.json" \
  --benchmark_out_format=json 2>&1 | tee "$OUT/bench.log" | grep -vE "^\s*$" | cut -c1-200
echo "bench exit status: ${PIPESTATUS[0]}"
