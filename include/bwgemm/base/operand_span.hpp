// The memory an operand covers, checked: the host-side argument checks of every entry point (arguments/,
// the quantizers) prove with overflow-checked arithmetic that every offset a kernel forms stays inside each
// operand's span, and that no output shares memory with an input. Host code.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"

namespace bwgemm::detail {

// The most bytes one operand may span: 64 PiB, far beyond any GPU's memory, and far enough below 2^63 that
// no element offset or byte address a kernel forms from the strides can overflow its int64 arithmetic.
inline constexpr int64_t kMaxOperandBytes = int64_t{1} << 56;

// TMA global strides are below 2^40 bytes (cuTensorMapEncodeTiled). Every leading dimension and every batch
// stride (for an NVFP4 tensor: the bytes of one batch) of every operand and output of every operation is
// kept below it, the quantizer's included (its outputs are the GEMMs' operands), so one rule holds
// everywhere.
inline constexpr int64_t kMaxStrideBytes = int64_t{1} << 40;

// A leading dimension or batch stride (`name`, in elements of `elem_bytes`) below 2^40 bytes.
inline Status check_stride_limit(const char* name, int64_t stride, int64_t elem_bytes) {
  if (stride >= kMaxStrideBytes / elem_bytes)
    return Status::invalid_argument(
        std::string(name) + " must be below 2^40 bytes, TMA's limit on strides (got " +
        std::to_string(stride) + " elements of " + std::to_string(elem_bytes) + " bytes)");
  return Status::success();
}

// One batch of an NVFP4 tensor (`what`: "one batch (rows x K / 2 bytes)", `bytes` its size; `overflowed`
// where its product overflowed int64) below 2^40 bytes: "A data: one batch (rows x K / 2 bytes) must be
// below 2^40 bytes, TMA's limit on strides".
inline Status check_batch_bytes_limit(const char* name, const char* what, int64_t bytes, bool overflowed) {
  if (overflowed || bytes >= kMaxStrideBytes)
    return Status::invalid_argument(std::string(name) + ": " + what +
                                    " must be below 2^40 bytes, TMA's limit on strides");
  return Status::success();
}

// The memory one operand covers: [p, p + bytes).
struct OperandSpan {
  const void* p;
  int64_t bytes;
  const char* name;
};

// The span of a strided operand (span_bytes), checked: at most kMaxOperandBytes, and not past the end of
// the address space from p.
inline Status strided_span(const char* name, const void* p, int64_t rows, int64_t cols, int64_t ld,
                           int64_t batch, int64_t batch_stride, int64_t elem_bytes, OperandSpan* out) {
  int64_t bytes = 0;
  if (!span_bytes(rows, cols, ld, batch, batch_stride, elem_bytes, &bytes) || bytes > kMaxOperandBytes)
    return Status::invalid_argument(
        std::string(name) +
        " spans more than 2^56 bytes: its rows, leading dimension, batch and batch "
        "stride overflow the offsets the kernels form");
  if (reinterpret_cast<uintptr_t>(p) > UINTPTR_MAX - static_cast<uintptr_t>(bytes))
    return Status::invalid_argument(std::string(name) + " runs past the end of the address space");
  *out = OperandSpan{p, bytes, name};
  return Status::success();
}

inline bool overlaps(const OperandSpan& a, const OperandSpan& b) {
  const uintptr_t a0 = reinterpret_cast<uintptr_t>(a.p), b0 = reinterpret_cast<uintptr_t>(b.p);
  return a0 < b0 + static_cast<uintptr_t>(b.bytes) && b0 < a0 + static_cast<uintptr_t>(a.bytes);
}

// The aliasing rule (docs/api.md, "Aliasing"): an output shares no byte with any input.
inline Status check_no_overlap(const OperandSpan& output, std::initializer_list<OperandSpan> inputs) {
  for (const OperandSpan& in : inputs)
    if (overlaps(output, in))
      return Status::invalid_argument(std::string(output.name) + " overlaps " + in.name +
                                      ": an output may not share memory with an input (only C == D with the "
                                      "same strides is allowed, for an in-place update)");
  return Status::success();
}

}  // namespace bwgemm::detail
