//===- Compare.cpp - Checking outputs against reference tensors -----------===//
//
// Everything is widened to double (exact for every supported type but i64
// beyond 2^53, which the integer path compares as int64 instead).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/TensorIO/Compare.h"

#include "nnaccel/Numerics/Float16.h"

#include <cmath>
#include <cstring>

namespace nnaccel {
namespace tensorio {

using runtime::DType;
using runtime::Tensor;

namespace {
template <typename T> T load(const Tensor &t, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t *>(t.data()) + i * sizeof(T),
              sizeof(T));
  return v;
}

/// Integer elements exactly: i64 directly, narrower types through their
/// exact double.
int64_t elementAsInt(const Tensor &t, int64_t i) {
  if (t.getDType() == DType::I64)
    return load<int64_t>(t, i);
  return static_cast<int64_t>(elementAsDouble(t, i));
}
} // namespace

double elementAsDouble(const Tensor &t, int64_t i) {
  switch (t.getDType()) {
  case DType::F32:
    return load<float>(t, i);
  case DType::F64:
    return load<double>(t, i);
  case DType::F16:
    return numerics::fp16ToFp32(load<uint16_t>(t, i));
  case DType::BF16:
    return numerics::bf16ToFp32(load<uint16_t>(t, i));
  case DType::I1:
  case DType::U8:
    return load<uint8_t>(t, i);
  case DType::I8:
    return load<int8_t>(t, i);
  case DType::I16:
    return load<int16_t>(t, i);
  case DType::I32:
    return load<int32_t>(t, i);
  case DType::I64:
    return static_cast<double>(load<int64_t>(t, i));
  default:
    // Packed and narrow formats are rejected by compareTensors first.
    return std::nan("");
  }
}

Comparison compareTensors(const Tensor &out, const Tensor &ref,
                          const Tolerance &tol) {
  Comparison c;
  if (out.isNull() || ref.isNull()) {
    c.error = "missing tensor";
    return c;
  }
  if (out.getShape() != ref.getShape()) {
    c.error = "shape " + out.getDesc().toString() + " vs reference " +
              ref.getDesc().toString();
    return c;
  }
  for (DType t : {out.getDType(), ref.getDType()})
    if (!runtime::isFloatDType(t) && !runtime::isIntegerDType(t)) {
      c.error = std::string("cannot compare ") + runtime::getDTypeName(t) +
                " tensors element by element";
      return c;
    }
  bool outFloat = runtime::isFloatDType(out.getDType());
  bool refFloat = runtime::isFloatDType(ref.getDType());
  if (outFloat != refFloat) {
    c.error = std::string("dtype ") + runtime::getDTypeName(out.getDType()) +
              " vs reference " + runtime::getDTypeName(ref.getDType());
    return c;
  }
  c.elements = out.getNumElements();
  c.exact = !outFloat;
  double dot = 0, normOut = 0, normRef = 0;
  for (int64_t i = 0; i < c.elements; ++i) {
    bool bad;
    double a, b;
    if (c.exact) {
      int64_t x = elementAsInt(out, i), y = elementAsInt(ref, i);
      bad = x != y;
      a = static_cast<double>(x);
      b = static_cast<double>(y);
    } else {
      a = elementAsDouble(out, i);
      b = elementAsDouble(ref, i);
      if (std::isnan(a) || std::isnan(b))
        bad = std::isnan(a) != std::isnan(b);
      else if (std::isinf(a) || std::isinf(b))
        bad = a != b;
      else
        bad = !(std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b));
    }
    if (std::isfinite(a) && std::isfinite(b)) {
      double err = std::fabs(a - b);
      c.maxAbsError = std::max(c.maxAbsError, err);
      if (b != 0)
        c.maxRelError = std::max(c.maxRelError, err / std::fabs(b));
      dot += a * b;
      normOut += a * a;
      normRef += b * b;
    }
    if (bad) {
      if (c.mismatches == 0)
        c.firstMismatch = i;
      ++c.mismatches;
    }
  }
  if (normOut > 0 && normRef > 0)
    c.cosine = dot / (std::sqrt(normOut) * std::sqrt(normRef));
  else
    c.cosine = normOut == normRef ? 1.0 : 0.0;
  c.pass = c.mismatches == 0;
  return c;
}

} // namespace tensorio
} // namespace nnaccel
