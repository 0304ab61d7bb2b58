#!/usr/bin/env bash
# What a user's units cost to compile (docs/api.md, "Compile once per program"; docs/performance.md, "Compile
# time"): the header-only unit (gemm.cuh and dual_gemm.cuh, one call of each of the four default entry points),
# the calling unit of the compiled use (entry_points.hpp, nvcc and g++), and the instantiation unit that compiles
# the four entry points' kernels once per program. Prints seconds per unit and nvcc's phases (--time) of the
# header-only one.
#
#   tools/compile_time.sh [ARCHS]       ARCHS: nvcc -gencode list, default "90a 100a"
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCHS=${1:-"90a 100a"}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
GENCODE=()
for a in $ARCHS; do GENCODE+=("-gencode=arch=compute_$a,code=sm_$a"); done
NVCC=(nvcc -std=c++17 -O3 "-I$ROOT/include" "${GENCODE[@]}")

cat >"$WORK/calls.inc" <<'CALLS'
bwgemm::Status call_all(const bwgemm::GemmArguments<__nv_bfloat16, __nv_bfloat16>& g,
                        const bwgemm::DualGemmArguments<__nv_bfloat16, __nv_bfloat16>& d,
                        const bwgemm::Nvfp4GemmArguments<__half>& gq, const bwgemm::Nvfp4DualGemmArguments<__half>& dq,
                        cudaStream_t s) {
  bwgemm::Status r = bwgemm::gemm(g, s);
  if (!r.ok()) return r;
  r = bwgemm::dual_gemm(d, s);
  if (!r.ok()) return r;
  r = bwgemm::gemm_nvfp4(gq, s);
  if (!r.ok()) return r;
  return bwgemm::dual_gemm_nvfp4(dq, s);
}
CALLS
printf '#include <bwgemm/dual_gemm.cuh>\n#include <bwgemm/gemm.cuh>\n#include "calls.inc"\n' >"$WORK/header_only.cu"
printf '#include <bwgemm/entry_points.hpp>\n#include "calls.inc"\n' >"$WORK/light.cu"
cp "$WORK/light.cu" "$WORK/light.cpp"
cat >"$WORK/instantiate.cu" <<'INST'
#include <bwgemm/instantiate.cuh>
BWGEMM_INSTANTIATE_GEMM(__nv_bfloat16, __nv_bfloat16)
BWGEMM_INSTANTIATE_DUAL_GEMM(__nv_bfloat16, __nv_bfloat16)
BWGEMM_INSTANTIATE_GEMM_NVFP4(__half)
BWGEMM_INSTANTIATE_DUAL_GEMM_NVFP4(__half)
INST

seconds() { local t0 t1; t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }
cd "$WORK"
echo "nvcc $(nvcc --version | tail -1); architectures: $ARCHS; $(nproc) cores"
printf '%-44s %6.1f s\n' "header-only unit (nvcc)" "$(seconds "${NVCC[@]}" -c header_only.cu -o h.o --time phases.csv)"
printf '%-44s %6.1f s\n' "calling unit, entry_points.hpp (nvcc)" "$(seconds "${NVCC[@]}" -c light.cu -o l.o)"
printf '%-44s %6.1f s\n' "calling unit, entry_points.hpp (g++ -O2)" \
  "$(seconds g++ -std=c++17 -O2 "-I$ROOT/include" -I"$(dirname "$(command -v nvcc)")/../include" -c light.cpp -o lg.o)"
printf '%-44s %6.1f s\n' "instantiation unit (nvcc, once per program)" "$(seconds "${NVCC[@]}" -c instantiate.cu -o i.o)"
echo "header-only unit, nvcc phases (ms):"
awk -F' *, *' 'NR > 1 && $2 != "" {printf "  %-24s %-14s %10.0f\n", $2, $5, $7}' phases.csv
