#!/usr/bin/env bash
# The tuner and the host-cost benchmark on a GPU machine (docs/tuning.md), in phases that one command or several
# on the same machine run (the build directory is kept between them):
#
#   bash bench/run_tuning_on_gpu.sh build host smoke            # then, on the same machine:
#   BWGEMM_TUNE_BUDGET_S=420 bash bench/run_tuning_on_gpu.sh sweep
#   bash bench/run_tuning_on_gpu.sh build-tests tests
#
#   build        configure and build bwgemm-tune, bwgemm_bench and tuning_lookup_cost
#   build-tests  the suites `tests` runs: give them a command of their own (on an H200 machine, 2026-12-05, the
#                three sm_90a suites had not finished compiling 10 minutes into one command with the rest)
#   tests        the choice, tuning and tuner suites (host) and the sm_90a GEMM, dual GEMM and swap-AB suites
#   host   the host cost of the smallest calls and the kernel-choice lookup's share of it
#          (bwgemm_bench --bwgemm_host_cost=1), and tuning_lookup_cost on this machine's CPU
#   smoke  bwgemm-tune on three GEMM shapes, twice, and --compare of the two files
#   sweep  bwgemm-tune --sweep=models (op BWGEMM_TUNE_OP, default gemm; --budget_s BWGEMM_TUNE_BUDGET_S, default
#          420) into $BUILD/tune/sweep_<BWGEMM_TUNE_TAG>.json (default tag a); with tag b after a: --compare a b
#
# Logs and files go to $OUT (at most eight files a command). Libraries the machine lacks (GoogleTest, Google
# Benchmark, nlohmann/json) can come as an install prefix in .devdeps (passed as CMAKE_PREFIX_PATH).
set -u -o pipefail
OUT=${OUT:-$PWD/gpu-logs}
BUILD=${BWGEMM_GPU_BUILD_DIR:-build-gpu}
mkdir -p "$OUT" "$BUILD/tune"
step() { echo "=== $* ($(date +%T))"; }
if [ -d .devdeps ]; then
  export CMAKE_PREFIX_PATH=$PWD/.devdeps${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  export LD_LIBRARY_PATH=$PWD/.devdeps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
TUNE=$BUILD/bench/bwgemm-tune

for phase in "$@"; do
  case $phase in
  build)
    step build
    nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
    nvcc --version | tail -1
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBWGEMM_BUILD_TESTS=ON -DBWGEMM_NATIVE_TESTS=ON \
      -DBWGEMM_BUILD_BENCHMARKS=ON -DBWGEMM_BUILD_EXAMPLES=OFF >"$OUT/build.log" 2>&1 ||
      { tail -30 "$OUT/build.log"; exit 1; }
    cmake --build "$BUILD" -j"$(nproc)" --target bwgemm-tune bwgemm_bench tuning_lookup_cost >>"$OUT/build.log" 2>&1 ||
      { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
    echo "built"
    ;;
  build-tests)
    step build-tests
    cmake --build "$BUILD" -j"$(nproc)" --target test_choice_sm90 test_tuning bench_tune_test test_gemm_sm90 \
      test_dual_gemm_sm90 test_swap_ab_sm90 >>"$OUT/build.log" 2>&1 ||
      { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
    echo "built"
    ;;
  tests)
    step tests
    for t in test/sm90/test_choice_sm90 test/tuning/test_tuning bench/bench_tune_test test/sm90/test_gemm_sm90 \
      test/sm90/test_dual_gemm_sm90 test/sm90/test_swap_ab_sm90; do
      timeout 150 "$BUILD/$t" --gtest_brief=1 >>"$OUT/tests.log" 2>&1
      echo "$t exit status: $? ; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/tests.log" | tail -3 | tr '\n' ' ')"
    done
    ;;
  host)
    step host
    "$BUILD/bench/bwgemm_bench" --bwgemm_host_cost=1 --bwgemm_samples=31 \
      --bwgemm_shapes=1x128x128,1x4096x4096,16x4096x4096 --benchmark_filter='/host_' \
      --benchmark_out="$OUT/host_cost.json" --benchmark_out_format=json 2>&1 | grep -vE "^\s*$" | cut -c1-260
    "$BUILD/test/tuning/tuning_lookup_cost" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      2>&1 | grep -E "median|CPU|Run on" | cut -c1-200
    ;;
  smoke)
    step smoke
    for tag in 1 2; do
      "$TUNE" --op=gemm --shapes=16x4096x4096,128x4096x4096,4096x4096x4096 --output="$OUT/smoke_$tag.json" \
        >"$OUT/smoke_$tag.log" 2>&1
      echo "smoke $tag exit status: $?"
      cat "$OUT/smoke_$tag.log" | cut -c1-300
    done
    "$TUNE" --compare="$OUT/smoke_1.json" "$OUT/smoke_2.json"
    ;;
  sweep)
    op=${BWGEMM_TUNE_OP:-gemm}
    tag=${BWGEMM_TUNE_TAG:-a}
    step "sweep $op $tag"
    file=$BUILD/tune/sweep_${op}_$tag.json
    "$TUNE" --op="$op" --sweep=models --budget_s="${BWGEMM_TUNE_BUDGET_S:-420}" --output="$file" \
      >"$OUT/sweep_${op}_$tag.log" 2>"$OUT/sweep_${op}_${tag}_progress.log"
    echo "sweep exit status: $?"
    tail -3 "$OUT/sweep_${op}_${tag}_progress.log"
    grep -c "winner" "$OUT/sweep_${op}_$tag.log"
    cp "$file" "$OUT/" 2>/dev/null
    [ "$tag" = b ] && "$TUNE" --compare="$BUILD/tune/sweep_${op}_a.json" "$file"
    ;;
  *)
    echo "unknown phase '$phase' (build, build-tests, tests, host, smoke, sweep)"
    exit 2
    ;;
  esac
done
step done
