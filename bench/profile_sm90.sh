#!/usr/bin/env bash
# Nsight Compute on the Hopper GEMM kernels of one shape (an H100/H200 with ncu that reads the counters):
# one launch of the cuBLASLt baseline's kernel and one of each named bwgemm candidate, after warm-up, with
# the clocks left alone (--clock-control none). Prints the speed-of-light, warp-state and scheduler
# sections; the full reports go to $OUT (or ./sm90-profile) as .ncu-rep files. PROFILE_SOURCE=1 adds the
# source counters and prints the SASS lines with the most stall samples (bench/ncu_top_stalls.py).
#   bash bench/profile_sm90.sh <bench binary> [shape regex] [candidates]   (PROFILE_BENCH_ARGS: more bench
#                                                                         flags, e.g. --bwgemm_sweep=models)
# e.g. bash bench/profile_sm90.sh build-sm90b/bench/bwgemm_bench 'gemm_bf16/%s/M8192_N8192_K8192_Bnk' \
#        "cublaslt bwgemm_sm90 bwgemm_sm90_cluster2"
set -u -o pipefail
BENCH=$1
SHAPE=${2:-'gemm_bf16/%s/M8192_N8192_K8192_Bnk'}
IMPLS=${3:-"cublaslt bwgemm_sm90 bwgemm_sm90_cluster2"}
OUT=${OUT:-$PWD/sm90-profile}
mkdir -p "$OUT"
for impl in $IMPLS; do
  filter="^$(printf "$SHAPE" "$impl")/"
  # The 20th launch of a GEMM-looking kernel: past the validation call and the probe pass.
  extra=()
  [ "${PROFILE_SOURCE:-0}" = 1 ] && extra=(--section SourceCounters --section ComputeWorkloadAnalysis)
  timeout 240 ncu --clock-control none --kernel-name regex:'gemm|xmma|sm90|gemv|splitK|swap_ab' --launch-skip 20 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy "${extra[@]}" \
    --export "$OUT/$impl" --force-overwrite \
    "$BENCH" --benchmark_filter="$filter" --bwgemm_samples=3 --bwgemm_warmup_ms=5 ${PROFILE_BENCH_ARGS:-} >"$OUT/$impl.log" 2>&1
  echo "=== $impl ($filter): ncu exit status $?"
  grep -E "^ +gemm_bf16|^ +gemm_fp16|us=" "$OUT/$impl.log" | cut -c1-200 | head -3
  ncu --import "$OUT/$impl.ncu-rep" --page details >"$OUT/$impl.details.txt" 2>&1
  grep -E "^  [a-zA-Z_].*\(|Duration|SM Frequency|DRAM Frequency|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache T|L2 Cache T|DRAM T|Registers Per|Warp Cycles Per Issued|Issued Warp Per|No Eligible|Active Warps Per|Grid Size|Cluster Size|Shared Memory Configuration Size" \
    "$OUT/$impl.details.txt" | cut -c1-150 | head -30
  if [ "${PROFILE_SOURCE:-0}" = 1 ]; then
    grep -E "Pipe|Issue Slots|Executed Ipc" "$OUT/$impl.details.txt" | cut -c1-150 | head -12
    ncu --import "$OUT/$impl.ncu-rep" --page source --csv --print-source sass >"$OUT/$impl.source.csv" 2>&1
    python3 "$(dirname "$0")/ncu_top_stalls.py" "$OUT/$impl.source.csv" 25
  fi
done
