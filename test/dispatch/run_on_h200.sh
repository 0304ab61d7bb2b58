#!/usr/bin/env bash
# One-call check of the public dispatch on an H100/H200 (docs/api.md, "Dispatch"): configure for
# "90a;100a", build the dispatch tests and the main example, run them. Logs go to $OUT (or ./dispatch-logs).
#   bash test/dispatch/run_on_h200.sh
set -u -o pipefail
OUT=${OUT:-$PWD/dispatch-logs}
mkdir -p "$OUT"
BUILD=${BWGEMM_DISPATCH_BUILD_DIR:-build-dispatch-h200}
step() { echo "=== $* ($(date +%T))"; }

step environment
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv 2>&1 | tee "$OUT/environment.log"
nvcc --version | tail -1 | tee -a "$OUT/environment.log"

step configure and build
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90a;100a" \
  -DBWGEMM_BUILD_TESTS=ON -DBWGEMM_NATIVE_TESTS=ON -DBWGEMM_BUILD_EXAMPLES=ON -DBWGEMM_BUILD_BENCHMARKS=OFF >"$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j"$(nproc)" --target test_dispatch test_dispatch_100a_only dual_gemm_nvfp4 \
    >>"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "built"

status=0
for suite in test_dispatch test_dispatch_100a_only; do
  step "$suite"
  timeout 120 "$BUILD/test/dispatch/$suite" >"$OUT/$suite.log" 2>&1
  rc=$?
  grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure|Skipped|^needs|want|rc=" "$OUT/$suite.log" | head -40
  echo "$suite exit status: $rc"
  [ $rc -eq 0 ] || status=1
done

step "main example"
timeout 120 "$BUILD/examples/dual_gemm_nvfp4" 2>&1 | tee "$OUT/example.log"
rc=${PIPESTATUS[0]}
echo "dual_gemm_nvfp4 exit status: $rc"
[ $rc -eq 0 ] || status=1
grep -q "backend: sm_90a (Hopper)" "$OUT/example.log" || { echo "the example did not run the sm_90a path"; status=1; }

step "done (status $status)"
exit $status
