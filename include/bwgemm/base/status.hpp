// bwgemm::Status: what every public host entry point returns.
#pragma once

#include <string>
#include <utility>

namespace bwgemm {

enum class StatusCode {
  kSuccess = 0,
  kInvalidArgument,  // a null/misaligned pointer, a bad shape or stride
  kNotSupported,     // a valid request this build or device cannot serve
  kDeviceMismatch,   // the current device cannot run the requested kernel
  kDriverError,      // the CUDA driver or runtime reported an error
  kInternalError,
};

inline const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::kSuccess:
      return "success";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotSupported:
      return "not supported";
    case StatusCode::kDeviceMismatch:
      return "device mismatch";
    case StatusCode::kDriverError:
      return "driver error";
    case StatusCode::kInternalError:
      return "internal error";
  }
  return "unknown";
}

// A status code plus a human-readable message naming the offending argument. [[nodiscard]]: a call whose
// Status is dropped is a compile warning (gcc and clang: -Wunused-result; nvcc: #3004-D), an error under
// -Werror=unused-result or nvcc's -Werror all-warnings.
//
// The assignments return void, not Status&: nvcc warns (#2810-D, "ignoring return value type with
// nodiscard attribute") whenever an assignment returning a reference to a [[nodiscard]] class is a
// statement, so `s = bwgemm::gemm(args);` would warn. With void nothing is returned and nothing is dropped;
// the price is no chained assignment (a = b = c) and no C++20 std::assignable_from / std::movable. Both
// are pinned by ctest arguments.status_is_nodiscard.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  Status(const Status&) = default;
  Status(Status&&) noexcept = default;
  void operator=(const Status& other) {
    code_ = other.code_;
    message_ = other.message_;
  }
  void operator=(Status&& other) noexcept {
    code_ = other.code_;
    message_ = std::move(other.message_);
  }
  ~Status() = default;

  static Status success() { return Status(); }
  static Status invalid_argument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status not_supported(std::string msg) { return {StatusCode::kNotSupported, std::move(msg)}; }
  static Status device_mismatch(std::string msg) { return {StatusCode::kDeviceMismatch, std::move(msg)}; }
  static Status driver_error(std::string msg) { return {StatusCode::kDriverError, std::move(msg)}; }
  static Status internal_error(std::string msg) { return {StatusCode::kInternalError, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kSuccess; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: lda must be >= K (got 10, K = 16)"
  std::string to_string() const {
    return ok() ? std::string("success") : std::string(bwgemm::to_string(code_)) + ": " + message_;
  }

 private:
  StatusCode code_ = StatusCode::kSuccess;
  std::string message_;
};

}  // namespace bwgemm
