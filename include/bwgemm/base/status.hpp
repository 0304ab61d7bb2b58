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
// Status is dropped is a compile warning (an error under -Werror=unused-result).
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

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
