#!/usr/bin/env bash
# One-call verification of the Hopper backend on an H100/H200 (docs/hopper.md): configure, build the sm_90a
# targets (the benchmark builds in the background meanwhile), run the gtest suites, compute-sanitizer
# (memcheck, racecheck, synccheck) on a small subset of each suite, then the benchmarks (bwgemm vs the
# cuBLASLt baselines, same run). At most 6 log files go to $OUT (or ./sm90-logs).
#   bash test/sm90/run_on_h200.sh [bench filter]       (BWGEMM_SM90_SKIP_SANITIZER=1 skips compute-sanitizer,
#                                                       BWGEMM_SM90_SKIP_BENCH=1 the benchmark;
#                                                       BWGEMM_BENCH_ARGS adds bwgemm_bench flags, e.g.
#                                                       "--benchmark_repetitions=5
#                                                        --benchmark_enable_random_interleaving=true")
# On the device tool's copy of a working tree: do not run git there (its .git can be older than the files it
# carries, so a `git checkout -- .` there resets the files to a stale commit). To run a clean commit, carry
# `git archive HEAD` as a tarball and unpack it over the copy.
# Default filter: the must-show shapes of the Hopper backend (GEMM 4096x5120x4096 and 8192^3, fp16 and bf16,
# both B layouts) and every dual_bf16 shape.
set -u -o pipefail
OUT=${OUT:-$PWD/sm90-logs}
mkdir -p "$OUT"
FILTER=${1:-'^gemm_(fp16|bf16)/[^/]*/M(4096_N5120_K4096|8192_N8192_K8192)_|^dual_bf16/'}
BUILD=${BWGEMM_SM90_BUILD_DIR:-build-sm90b}
JOBS=$(nproc)
step() { echo "=== $* ($(date +%T))"; }

step environment
nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
nvcc --version | tail -1

step configure
# Default CMAKE_CUDA_ARCHITECTURES (100a): the sm_90a targets set their own architecture.
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBWGEMM_BUILD_TESTS=ON -DBWGEMM_NATIVE_TESTS=ON -DBWGEMM_BUILD_BENCHMARKS=ON \
  -DBWGEMM_BUILD_EXAMPLES=OFF >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }

step "build bench (background) and tests"
SKIP_BENCH=${BWGEMM_SM90_SKIP_BENCH:-0}
if [ "$SKIP_BENCH" != 1 ]; then
  cmake --build "$BUILD" -j"$JOBS" --target bwgemm_bench >"$OUT/build_bench.log" 2>&1 &
  BENCH_BUILD=$!
fi
cmake --build "$BUILD" -j"$JOBS" --target sm90_wgmma_descriptor_test sm90_wgmma_compile test_dual_gemm_sm90 \
  test_gemm_sm90 test_swap_ab_sm90 test_device_scales_sm90 test_pdl_sm90 test_arguments >>"$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }

step gtest
"$BUILD"/test/sm90/sm90_wgmma_descriptor_test --gtest_brief=1 2>&1 | tail -3
"$BUILD"/test/arguments/test_arguments --gtest_brief=1 2>&1 | tail -3
for suite in test_gemm_sm90 test_dual_gemm_sm90 test_swap_ab_sm90 test_device_scales_sm90 test_pdl_sm90; do
  timeout 240 "$BUILD"/test/sm90/$suite 2>&1 | tee -a "$OUT/gtest.log" |
    grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|Failure|want|rc=" | head -40
  echo "$suite exit status: ${PIPESTATUS[0]}"
done

step compute-sanitizer
if [ "${BWGEMM_SM90_SKIP_SANITIZER:-0}" = 1 ]; then echo "skipped (BWGEMM_SM90_SKIP_SANITIZER=1)"; else
# The contract suites' cluster, one-tile-per-cluster and register-store Configs on their tails and batches,
# and every output type (test/contract; Config names as ConfigNames prints them).
GEMM_SUBSET='Sm90/GemmContract/*.TailsInMNAndK:Sm90/GemmContract/*.BatchWithStridesPaddingAndBeta:Sm90/GemmOutputContract/*.ExactTierBothLayouts'
DUAL_SUBSET='Sm90/DualGemmContract/*G2*.ExactTierBf16Inputs:Sm90/DualGemmContract/*OneTilePerCluster*.ExactTierBf16Inputs:Sm90/DualGemmContract/*_f16.ExactTierFp16Inputs:Sm90/DualGemmContract/*RegisterStore.ExactTierBf16Inputs'
# The swap-AB kernels: the decode sizes (every split) of the 16-token Configs, and forced split 8 on tails.
SWAP_SUBSET='Sm90SwapAbDecode.GemmTokens16:Sm90SwapAbDecode.DualTokens16:Sm90SwapAb/GemmContract/*Split8.TailsInMNAndK'
for tool in memcheck racecheck synccheck; do
  for pair in "test_gemm_sm90 $GEMM_SUBSET" "test_dual_gemm_sm90 $DUAL_SUBSET" "test_swap_ab_sm90 $SWAP_SUBSET"; do
    set -- $pair
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 "$BUILD"/test/sm90/$1 --gtest_filter="$2" \
      >"$OUT/sanitizer_one.log" 2>&1
    rc=$?
    cat "$OUT/sanitizer_one.log" >>"$OUT/sanitizer.log"
    echo "$tool $1 exit status: $rc ; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' \
      "$OUT/sanitizer_one.log" | tr '\n' ' ')"
  done
done
rm -f "$OUT/sanitizer_one.log"
fi

[ "$SKIP_BENCH" = 1 ] && { step "done (bench skipped)"; exit 0; }
step "wait for the bench build"
wait $BENCH_BUILD || { grep -E "error" "$OUT/build_bench.log" | head -20; exit 1; }
cat "$OUT/build_bench.log" >>"$OUT/build.log" && rm -f "$OUT/build_bench.log"

step bench
timeout 420 "$BUILD"/bench/bwgemm_bench --benchmark_filter="$FILTER" --benchmark_out="$OUT/bench.json" \
  --benchmark_out_format=json ${BWGEMM_BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log" | grep -vE "^\s*$" | cut -c1-230
echo "bench exit status: ${PIPESTATUS[0]}"
step done
