//===- HostOp.h - One accel op as the host runtime sees it -------*- C++
//-*-===//
//
// A host partition in a model package is a list of HostOps: the accel op
// name ("accel.conv"), its attributes, and a source location for
// diagnostics. Attributes are decoded from MLIR by the compiler with this
// contract (docs/host-kernels.md lists every op's attributes):
//
//   IntegerAttr, BoolAttr (0/1)     -> int64_t
//   FloatAttr                       -> double
//   DenseI64ArrayAttr               -> std::vector<int64_t>
//   float arrays (per-axis scales)  -> std::vector<double>
//   enum attributes                 -> std::string with the enum keyword
//                                      ("relu", "sum", "bidirectional",
//                                      "reflect", "tanh", "lt", ...)
//   TypeAttr-like attributes        -> std::string
//
// Optional attributes are simply absent; absent attributes take the
// DefaultValuedAttr default of the .td definition. The accessors below are
// lenient in one direction only: a float attribute may be given as an
// int64_t (it is converted), never the reverse.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_RUNTIME_HOSTOP_H
#define NNACCEL_RUNTIME_HOSTOP_H

#include "nnaccel/Runtime/Tensor.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace nnaccel {
namespace package {
struct HostOpDesc;
} // namespace package

namespace runtime {

using AttrValue = std::variant<int64_t, double, std::string,
                               std::vector<int64_t>, std::vector<double>>;

struct HostOp {
  /// The accel op name including the dialect prefix, e.g. "accel.conv".
  std::string kind;
  std::map<std::string, AttrValue, std::less<>> attrs;
  /// Source location for diagnostics (may be empty).
  std::string location;

  bool hasAttr(std::string_view name) const {
    return attrs.find(name) != attrs.end();
  }

  /// Typed attribute access. The get* functions fail with a message naming
  /// the op and attribute when the attribute is missing or has another
  /// type; the *Or variants return `fallback` when it is absent (and still
  /// fail on a type mismatch).
  Status getInt(std::string_view name, int64_t &out) const;
  Status getIntOr(std::string_view name, int64_t fallback, int64_t &out) const;
  /// Accepts double or int64_t values.
  Status getFloat(std::string_view name, double &out) const;
  Status getFloatOr(std::string_view name, double fallback, double &out) const;
  Status getString(std::string_view name, std::string &out) const;
  Status getStringOr(std::string_view name, std::string_view fallback,
                     std::string &out) const;
  Status getInts(std::string_view name, std::vector<int64_t> &out) const;
  Status getIntsOr(std::string_view name, std::vector<int64_t> fallback,
                   std::vector<int64_t> &out) const;
  /// Accepts std::vector<double> or std::vector<int64_t> values.
  Status getFloats(std::string_view name, std::vector<double> &out) const;

  /// An error Status whose message starts with the op kind and, when
  /// known, the location: "accel.conv (model.onnx:12): <message>".
  Status error(std::string_view message) const;
};

/// The HostOp a package describes (kind, location, attributes; the
/// description's value ids are the caller's). The one conversion, used when
/// a package is loaded and when the compiler evaluates IR in process
/// (calibration), so both run an op identically.
HostOp makeHostOp(const package::HostOpDesc &desc);

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_RUNTIME_HOSTOP_H
