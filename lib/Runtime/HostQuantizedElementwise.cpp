//===- HostQuantizedElementwise.cpp - add of quantized tensors ------------===//
//
// The host's add of two per-tensor quantized tensors into a third (the
// residual adds between int8 convolutions that accel-quantize makes), step
// for step the card's kernel (QuantizedAddKernel.cpp), so an add computes
// the same bits wherever it runs:
//
//   ya = f32(a - a_zero_point) * f32(a_scale)       (v.dqnt)
//   yb = f32(b - b_zero_point) * f32(b_scale)       (v.dqnt)
//   y  = ya + yb                                    (f32)
//   q  = sat(RNE(y * f32(1 / f32(y_scale))) + y_zero_point)   (v.rqnt)
//
// The compiler copies the parameters from the operands' !quant.uniform
// types: lhs_scale, lhs_zero_point, rhs_..., output_... (HostOpDescription).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <algorithm>
#include <cmath>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// The stored integer at `i` of an i8 or u8 tensor.
int32_t storedAt(const Tensor &t, int64_t i) {
  return t.getDType() == DType::I8 ? t.as<int8_t>()[i] : t.as<uint8_t>()[i];
}

/// Reads `<prefix>scale` (positive and finite as an f32) and
/// `<prefix>zero_point`.
Status readParams(const HostOp &op, const std::string &prefix, float &scale,
                  int64_t &zeroPoint) {
  double value;
  if (Status s = op.getFloat(prefix + "scale", value); !s.ok())
    return s;
  scale = static_cast<float>(value);
  if (!std::isfinite(scale) || !(scale > 0.0f))
    return op.error("quantisation scale '" + prefix +
                    "scale' must be finite and positive, got " +
                    std::to_string(value));
  return op.getIntOr(prefix + "zero_point", 0, zeroPoint);
}

} // namespace

Status quantizedAddKernel(KernelContext &ctx) {
  const Tensor *a = ctx.input(0), *b = ctx.input(1);
  for (const Tensor *t : {a, b})
    if (t->getDType() != DType::I8 && t->getDType() != DType::U8)
      return ctx.unsupported(t->getDType(), "a quantized add operand");
  const DType outType = ctx.outputDescs[0].dtype;
  if (outType != DType::I8 && outType != DType::U8)
    return ctx.unsupported(outType, "a quantized add result");
  if (a->getShape() != b->getShape())
    return ctx.error("a quantized add takes operands of one shape, got [" +
                     formatShape(a->getShape()) + "] and [" +
                     formatShape(b->getShape()) + "]");
  float aScale, bScale, outScale;
  int64_t aZero, bZero, outZero;
  if (Status s = readParams(ctx.op, "lhs_", aScale, aZero); !s.ok())
    return s;
  if (Status s = readParams(ctx.op, "rhs_", bScale, bZero); !s.ok())
    return s;
  if (Status s = readParams(ctx.op, "output_", outScale, outZero); !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(outType, a->getShape()), out);
      !s.ok())
    return s;
  const float inverse = 1.0f / outScale;
  const int64_t lo = outType == DType::I8 ? -128 : 0,
                hi = outType == DType::I8 ? 127 : 255;
  for (int64_t i = 0, n = a->getNumElements(); i < n; ++i) {
    float ya = static_cast<float>(storedAt(*a, i) - aZero) * aScale;
    float yb = static_cast<float>(storedAt(*b, i) - bZero) * bScale;
    float scaled = (ya + yb) * inverse;
    int64_t q = std::isnan(scaled)
                    ? 0
                    : static_cast<int64_t>(std::nearbyint(
                          std::clamp(scaled, -2147483648.0f, 2147483520.0f)));
    q = std::clamp<int64_t>(q + outZero, lo, hi);
    if (outType == DType::I8)
      out->mutableAs<int8_t>()[i] = static_cast<int8_t>(q);
    else
      out->mutableAs<uint8_t>()[i] = static_cast<uint8_t>(q);
  }
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
