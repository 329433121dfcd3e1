//===- Status.h - Status and Expected<T> for the package library -*- C++
//-*-===//
//
// Loading a package is done on untrusted bytes, so every fallible entry point
// of nnaccel::package reports failure as a value: a Status (ok, or an error
// message) or an Expected<T> (a T, or an error Status). No exception crosses
// the library's API and no bad file aborts the process. The types are kept
// tiny and LLVM-free so that the runtime uses them directly and the compiler
// can turn a message into an MLIR diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_PACKAGE_STATUS_H
#define NNACCEL_PACKAGE_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace nnaccel::package {

/// Success, or a failure with a human-readable message. There is deliberately
/// no conversion to bool: `if (status)` would be ambiguous between the
/// llvm::Error convention (true = failure) and the ok() convention.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return !message_.has_value(); }
  /// The failure message; empty on success.
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }
  /// Returns a copy of this failure with `context + ": "` prepended.
  Status withContext(const std::string &context) const {
    return ok() ? *this : error(context + ": " + *message_);
  }

private:
  std::optional<std::string> message_;
};

/// Either a T or a failed Status. Reading the value of a failed Expected is a
/// programming error (asserted); test ok() first.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Status status) : storage_(std::move(status)) {
    assert(!std::get<Status>(storage_).ok() &&
           "Expected built from a success Status");
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }
  explicit operator bool() const { return ok(); }

  T &value() & {
    assert(ok());
    return std::get<T>(storage_);
  }
  const T &value() const & {
    assert(ok());
    return std::get<T>(storage_);
  }
  T &&value() && {
    assert(ok());
    return std::get<T>(std::move(storage_));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  /// The failure, or success when a value is held.
  Status status() const {
    return ok() ? Status::success() : std::get<Status>(storage_);
  }
  /// The failure message, or an empty string when a value is held.
  const std::string &message() const {
    static const std::string empty;
    return ok() ? empty : std::get<Status>(storage_).message();
  }

private:
  std::variant<T, Status> storage_;
};

} // namespace nnaccel::package

#endif // NNACCEL_PACKAGE_STATUS_H
