//===- HostOp.cpp - Attribute access for host ops -------------------------===//
//
// Typed, non-throwing access to the attribute bag of a HostOp. Every failure
// names the op (and location) so that a diagnostic from deep inside a host
// partition can be traced back to the model.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/HostOp.h"

#include "nnaccel/Package/Model.h"

namespace nnaccel {
namespace runtime {

namespace {
const char *getAttrTypeName(const AttrValue &v) {
  switch (v.index()) {
  case 0:
    return "an integer";
  case 1:
    return "a float";
  case 2:
    return "a string";
  case 3:
    return "an integer array";
  default:
    return "a float array";
  }
}
} // namespace

HostOp makeHostOp(const package::HostOpDesc &desc) {
  HostOp op;
  op.kind = desc.kind;
  op.location = desc.location;
  // package::AttrValue and runtime::AttrValue are the same variant type, by
  // the attribute contract both sides follow.
  for (const auto &[name, value] : desc.attrs)
    op.attrs.emplace(name, value);
  return op;
}

Status HostOp::error(std::string_view message) const {
  std::string s = kind.empty() ? std::string("<unnamed op>") : kind;
  if (!location.empty())
    s += " (" + location + ")";
  s += ": ";
  s += message;
  return Status::error(std::move(s));
}

/// Looks up `name` and extracts alternative T, or reports why not.
template <typename T>
static Status getTyped(const HostOp &op, std::string_view name,
                       const char *expected, const T *&out) {
  auto it = op.attrs.find(name);
  if (it == op.attrs.end())
    return op.error("missing required attribute '" + std::string(name) + "'");
  out = std::get_if<T>(&it->second);
  if (!out)
    return op.error("attribute '" + std::string(name) + "' must be " +
                    expected + ", got " + getAttrTypeName(it->second));
  return Status::success();
}

Status HostOp::getInt(std::string_view name, int64_t &out) const {
  const int64_t *v = nullptr;
  Status s = getTyped(*this, name, "an integer", v);
  if (s.ok())
    out = *v;
  return s;
}

Status HostOp::getIntOr(std::string_view name, int64_t fallback,
                        int64_t &out) const {
  if (!hasAttr(name)) {
    out = fallback;
    return Status::success();
  }
  return getInt(name, out);
}

Status HostOp::getFloat(std::string_view name, double &out) const {
  auto it = attrs.find(name);
  if (it != attrs.end())
    if (const int64_t *i = std::get_if<int64_t>(&it->second)) {
      out = static_cast<double>(*i);
      return Status::success();
    }
  const double *v = nullptr;
  Status s = getTyped(*this, name, "a float", v);
  if (s.ok())
    out = *v;
  return s;
}

Status HostOp::getFloatOr(std::string_view name, double fallback,
                          double &out) const {
  if (!hasAttr(name)) {
    out = fallback;
    return Status::success();
  }
  return getFloat(name, out);
}

Status HostOp::getString(std::string_view name, std::string &out) const {
  const std::string *v = nullptr;
  Status s = getTyped(*this, name, "a string", v);
  if (s.ok())
    out = *v;
  return s;
}

Status HostOp::getStringOr(std::string_view name, std::string_view fallback,
                           std::string &out) const {
  if (!hasAttr(name)) {
    out = std::string(fallback);
    return Status::success();
  }
  return getString(name, out);
}

Status HostOp::getInts(std::string_view name, std::vector<int64_t> &out) const {
  // An empty array carries no element type, so a serialiser may have
  // written it as either kind of array.
  auto it = attrs.find(name);
  if (it != attrs.end())
    if (const auto *d = std::get_if<std::vector<double>>(&it->second))
      if (d->empty()) {
        out.clear();
        return Status::success();
      }
  const std::vector<int64_t> *v = nullptr;
  Status s = getTyped(*this, name, "an integer array", v);
  if (s.ok())
    out = *v;
  return s;
}

Status HostOp::getIntsOr(std::string_view name, std::vector<int64_t> fallback,
                         std::vector<int64_t> &out) const {
  if (!hasAttr(name)) {
    out = std::move(fallback);
    return Status::success();
  }
  return getInts(name, out);
}

Status HostOp::getFloats(std::string_view name,
                         std::vector<double> &out) const {
  auto it = attrs.find(name);
  if (it != attrs.end())
    if (const auto *ints = std::get_if<std::vector<int64_t>>(&it->second)) {
      out.assign(ints->begin(), ints->end());
      return Status::success();
    }
  const std::vector<double> *v = nullptr;
  Status s = getTyped(*this, name, "a float array", v);
  if (s.ok())
    out = *v;
  return s;
}

} // namespace runtime
} // namespace nnaccel
