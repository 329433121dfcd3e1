//===- Error.h - Error and Expected<T> for the ISA library -----*- C++ -*-===//
//
// lib/ISA never lets an exception escape and never aborts on bad input: every
// fallible entry point returns an Error (a message, empty on success) or an
// Expected<T> (a value or an Error). The types are deliberately tiny so that
// both the runtime half (no LLVM) and the MLIR dialect can adapt them to their
// own diagnostic machinery without pulling in llvm::Error.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_ERROR_H
#define NNACCEL_ISA_ERROR_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace nnaccel::isa {

/// A failure description. Default-constructed means "no error".
class Error {
public:
  Error() = default;
  static Error success() { return Error(); }
  static Error make(std::string message) {
    Error e;
    e.message_ = std::move(message);
    return e;
  }

  /// True when this holds a failure (mirrors llvm::Error's boolean sense).
  explicit operator bool() const { return message_.has_value(); }
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }

private:
  std::optional<std::string> message_;
};

/// Either a T or an Error. Accessing the value of a failed Expected is a
/// programming error (asserted); callers must test it first.
template <typename T> class Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Error error) : storage_(std::move(error)) {
    assert(std::get<Error>(storage_) && "Expected built from a success Error");
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }
  explicit operator bool() const { return ok(); }

  T &value() {
    assert(ok());
    return std::get<T>(storage_);
  }
  const T &value() const {
    assert(ok());
    return std::get<T>(storage_);
  }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  const Error &error() const {
    assert(!ok());
    return std::get<Error>(storage_);
  }
  /// The failure message, or an empty string on success.
  const std::string &message() const {
    static const std::string empty;
    return ok() ? empty : std::get<Error>(storage_).message();
  }

private:
  std::variant<T, Error> storage_;
};

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_ERROR_H
