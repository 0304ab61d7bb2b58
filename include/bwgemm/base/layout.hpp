// Operand layouts shared by the public GEMM API (gemm.cuh), the host reference (reference/gemm.hpp) and the
// benchmarks. Pure C++17.
#pragma once

namespace bwgemm {

// How the K x N operand B of a GEMM D = A·B is stored.
enum class BLayout {
  kRowMajorKxN,     // B[k][n] at b[k * ldb + n], ldb >= N: N-major (GPU MODE matmul_v2, seed 004)
  kColumnMajorKxN,  // B[k][n] at b[n * ldb + k], ldb >= K: K-major, i.e. an N x K row-major matrix (the
                    // nn.Linear weight, "TN"; the NVFP4 and cuBLASLt FP4 layout)
};

}  // namespace bwgemm
