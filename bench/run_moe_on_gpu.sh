#!/usr/bin/env bash
# The mixture-of-experts benchmarks on a GPU machine (docs/performance.md, "Mixture of experts"), in phases that
# one command or several on the same machine run (the build directory is kept between them):
#
#   bash bench/run_moe_on_gpu.sh build check                 # then, a model per command (each under 10 minutes):
#   BWGEMM_MOE_MODEL=deepseek-v3 bash bench/run_moe_on_gpu.sh moe
#   BWGEMM_MOE_MODEL=deepseek-v3-ep8 bash bench/run_moe_on_gpu.sh moe
#   BWGEMM_MOE_MODEL=qwen3-30b-a3b bash bench/run_moe_on_gpu.sh moe
#   BWGEMM_MOE_MODEL=gpt-oss-120b bash bench/run_moe_on_gpu.sh moe
#   BWGEMM_MOE_MODEL=llama4-maverick bash bench/run_moe_on_gpu.sh moe
#   bash bench/run_moe_on_gpu.sh torch                       # optional: needs torch with CUDA
#
#   build  configure and build bwgemm_bench (Release; its sm_90a and sm_100a code whatever the GPU)
#   check  what this GPU registers: the [run ]/[skip] lines of every MoE group (a skip says why: no backend
#          for this GPU in this build, an NVFP4 group on Hopper, ...) and the count of MoE benchmarks
#   moe    the paired MoE benchmarks of one model (BWGEMM_MOE_MODEL; unset: every model, which takes longer
#          than 10 minutes) over --bwgemm_sweep=moe into $OUT/moe_<model>.json, and its table
#          (bench/paired_table.py) into $OUT/moe_<model>.md; BWGEMM_MOE_GROUP=moe_fc1_nvfp4 (...) one group only,
#          for a B200, where a model's five groups may not fit one command
#   torch  bench/moe_torch.py (bwgemm_torch's grouped operators, where installed with their CUDA library, against
#          torch._grouped_mm) on the contiguous shapes of BWGEMM_MOE_MODEL into $OUT/moe_torch_<model>.json
#
# Logs and files go to $OUT (at most eight files a command). Libraries the machine lacks (Google Benchmark) can
# come as an install prefix in .devdeps (passed as CMAKE_PREFIX_PATH).
set -u -o pipefail
OUT=${OUT:-$PWD/gpu-logs}
BUILD=${BWGEMM_GPU_BUILD_DIR:-build-gpu}
MODEL=${BWGEMM_MOE_MODEL:-}
GROUP=${BWGEMM_MOE_GROUP:-}  # e.g. moe_fc1_nvfp4: one group only
TAG=${MODEL:-all}${GROUP:+_$GROUP}
mkdir -p "$OUT"
step() { echo "=== $* ($(date +%T))"; }
if [ -d .devdeps ]; then
  export CMAKE_PREFIX_PATH=$PWD/.devdeps${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  export LD_LIBRARY_PATH=$PWD/.devdeps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
BENCH=$BUILD/bench/bwgemm_bench
# Paired mode as docs/performance.md's tables use it; the read reference first (read_bw_frac).
P="--bwgemm_paired=1 --bwgemm_samples=16 --bwgemm_min_sample_ms=0.5 --bwgemm_warmup_ms=5"
FILTER="^reference/read|^${GROUP:-moe_[a-z0-9_]+}/paired_[a-z0-9_]+/M[0-9]+_N[0-9]+_K[0-9]+_${MODEL:-[a-z0-9.-]+}_E"

for phase in "$@"; do
  case $phase in
  build)
    step build
    nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
    nvcc --version | tail -1
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBWGEMM_BUILD_TESTS=OFF -DBWGEMM_BUILD_BENCHMARKS=ON \
      -DBWGEMM_BUILD_EXAMPLES=OFF >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    cmake --build "$BUILD" -j"$(nproc)" --target bwgemm_bench >>"$OUT/build.log" 2>&1 ||
      { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
    echo "built"
    ;;
  check)
    step check
    "$BENCH" --bwgemm_sweep=moe --bwgemm_paired=1 --benchmark_list_tests >"$OUT/moe_list.txt" 2>&1
    echo "exit status: $?"
    grep -E "^bwgemm_bench:|\[(run |skip)\] moe_" "$OUT/moe_list.txt" | cut -c1-300
    echo "MoE benchmarks: $(grep -c '^moe_' "$OUT/moe_list.txt"), paired: $(grep -c '^moe_[a-z0-9_]*/paired_' "$OUT/moe_list.txt")"
    ;;
  moe)
    step "moe $TAG"
    "$BENCH" --bwgemm_sweep=moe $P --benchmark_filter="$FILTER" --benchmark_out="$OUT/moe_$TAG.json" \
      --benchmark_out_format=json >"$OUT/moe_$TAG.log" 2>&1
    echo "bwgemm_bench exit status: $?"
    grep -E "^bwgemm_bench:|\[(run |skip)\] moe_" "$OUT/moe_$TAG.log" | cut -c1-300
    grep -cE "ERROR OCCURRED" "$OUT/moe_$TAG.log" | sed 's/^/benchmarks with an error: /'
    grep -E "ERROR OCCURRED" "$OUT/moe_$TAG.log" | head -5 | cut -c1-300
    python3 bench/paired_table.py "$OUT/moe_$TAG.json" --overall >"$OUT/moe_$TAG.md" 2>&1
    cat "$OUT/moe_$TAG.md"
    ;;
  torch)
    step "torch $TAG"
    python3 bench/moe_torch.py ${MODEL:+--models "$MODEL"} --out "$OUT/moe_torch_$TAG.json" 2>&1 |
      tee "$OUT/moe_torch_$TAG.log" | cut -c1-300
    ;;
  *)
    echo "unknown phase '$phase' (build, check, moe, torch)"
    exit 2
    ;;
  esac
done
step done
