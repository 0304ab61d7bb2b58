// From a TuneCall (tune.hpp) to an operation's Arguments, and run functions from functions of them: what a
// candidate source built from the entry points' typed run functions uses. Needs the CUDA headers (the
// Arguments' element types); no kernel.
//
//   // a candidate whose run function takes GemmArguments<__nv_bfloat16> and the call (for the stream and
//   // the candidate's split_k / stream_k):
//   TuneCandidate c{"GemmSwapAb16", 0, tuning::StreamK::kUnspecified,
//                   run_with<GemmArguments<__nv_bfloat16>>(
//                       [](const GemmArguments<__nv_bfloat16>& args, const TuneCall& call) {
//                         return run_config(args, kGemmSwapAb16, call.split_k, call.stream);
//                       })};
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <utility>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "tune.hpp"

namespace bwgemm::bench::tune {

// The call's operands in the operation's Arguments (default strides, alpha 1, beta 0, batch 1).
template <class In, class Out>
void fill_arguments(const TuneCall& c, GemmArguments<In, Out>* a) {
  a->m = c.m, a->n = c.n, a->k = c.k;
  a->a = static_cast<const In*>(c.a);
  a->b = static_cast<const In*>(c.b);
  a->b_layout = c.b_layout;
  a->d = static_cast<Out*>(c.out);
  a->workspace = c.workspace;
  a->workspace_bytes = c.workspace_bytes;
}
template <class In, class Out>
void fill_arguments(const TuneCall& c, DualGemmArguments<In, Out>* a) {
  a->m = c.m, a->n = c.n, a->k = c.k;
  a->a = static_cast<const In*>(c.a);
  a->b1 = static_cast<const In*>(c.b);
  a->b2 = static_cast<const In*>(c.b2);
  a->c = static_cast<Out*>(c.out);
  a->workspace = c.workspace;
  a->workspace_bytes = c.workspace_bytes;
}
template <class Out>
void fill_arguments(const TuneCall& c, Nvfp4GemmArguments<Out>* a) {
  a->m = c.m, a->n = c.n, a->k = c.k;
  a->a = {c.a, c.a_scales};
  a->b = {c.b, c.b_scales};
  a->d = static_cast<Out*>(c.out);
}
template <class Out>
void fill_arguments(const TuneCall& c, Nvfp4DualGemmArguments<Out>* a) {
  a->m = c.m, a->n = c.n, a->k = c.k;
  a->a = {c.a, c.a_scales};
  a->b1 = {c.b, c.b_scales};
  a->b2 = {c.b2, c.b2_scales};
  a->c = static_cast<Out*>(c.out);
}

template <class Args>
Args arguments_of(const TuneCall& c) {
  Args a;
  fill_arguments(c, &a);
  return a;
}

// The RunFunction that builds Args from the call and returns fn(args, call).
template <class Args, class Fn>
RunFunction run_with(Fn fn) {
  return [fn = std::move(fn)](const TuneCall& call) -> Status { return fn(arguments_of<Args>(call), call); };
}

// The call's stream as the CUDA type.
inline cudaStream_t stream_of(const TuneCall& c) {
  return c.stream;
}

}  // namespace bwgemm::bench::tune
