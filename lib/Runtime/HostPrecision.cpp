//===- HostPrecision.cpp - cast, convert and quantisation kernels ---------===//
//
// Element type changes: cast (ONNX Cast rules between any two dtypes),
// convert (float formats only), and per-tensor / per-axis affine
// quantize, dequantize and requantize through lib/Numerics (Affine.h,
// Requantize.h), so host and device quantise identically.
//
// Quantisation parameters arrive as attributes (docs/host-kernels.md):
//   per tensor: scale (float), zero_point (int, default 0)
//   per axis:   scales (float array), zero_points (int array, default 0s),
//               axis (int, negative counts from the end)
//   requantize: the same names prefixed with input_ / output_.
//   storage_min / storage_max (ints, optional) narrow the storage range of
//   the quantised result (e.g. !quant.uniform<i8<-127:127>:f32, ...>).
// Scales are used as fp32, the device's precision.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/Float16.h"
#include "nnaccel/Numerics/Requantize.h"

#include <cmath>
#include <cstring>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

//===--- Cast -------------------------------------------------------------===//

/// double -> float rounding to odd: the float nearest toward zero with the
/// sticky bit ORed into the last mantissa bit. A following RNE rounding to
/// a format with at least two fewer mantissa bits (f16, bf16) then equals a
/// single correct rounding of the double.
float roundToOddF32(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d)
    return f;
  if ((numerics::floatToBits(f) & 1u) == 0)
    f = static_cast<double>(f) > d ? std::nextafter(f, -INFINITY)
                                   : std::nextafter(f, INFINITY);
  return f;
}

/// float -> integer: truncate toward zero, saturate, NaN -> 0 (as LLVM's
/// APFloat::convertToInteger, which the constant folder uses).
template <typename T> T floatToInt(double v) {
  if (std::isnan(v))
    return 0;
  double t = std::trunc(v);
  if (t <= static_cast<double>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  // max() + 1 is a power of two and exact in double.
  if (t >= static_cast<double>(std::numeric_limits<T>::max()) + 1.0)
    return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

/// The value of every source element, as double (float sources) or int64
/// (integer sources, i1 as 0/1, u8 zero-extended).
struct CastSource {
  bool isFloat = false;
  std::vector<double> f;
  std::vector<int64_t> i;
};

CastSource readCastSource(const Tensor &t) {
  CastSource src;
  const size_t n = static_cast<size_t>(t.getNumElements());
  switch (t.getDType()) {
  case DType::F64:
    src.isFloat = true;
    src.f.assign(t.as<double>(), t.as<double>() + n);
    return src;
  case DType::F32:
  case DType::F16:
  case DType::BF16: {
    F32Input x(t);
    src.isFloat = true;
    src.f.assign(x.data(), x.data() + n);
    return src;
  }
  default:
    src.i = readIndexTensor(t);
    return src;
  }
}

template <typename T> void writeInts(const CastSource &src, T *out, size_t n) {
  if (src.isFloat)
    for (size_t k = 0; k < n; ++k)
      out[k] = floatToInt<T>(src.f[k]);
  else // Integer to integer truncates (two's complement wrap).
    for (size_t k = 0; k < n; ++k)
      out[k] = static_cast<T>(static_cast<uint64_t>(src.i[k]));
}

void writeCast(const CastSource &src, Tensor &out) {
  const size_t n = static_cast<size_t>(out.getNumElements());
  void *dst = out.mutableData();
  auto value = [&](size_t k) {
    return src.isFloat ? src.f[k] : static_cast<double>(src.i[k]);
  };
  switch (out.getDType()) {
  case DType::F64: {
    double *p = static_cast<double *>(dst);
    for (size_t k = 0; k < n; ++k)
      p[k] = value(k);
    return;
  }
  case DType::F32: {
    float *p = static_cast<float *>(dst);
    if (src.isFloat)
      for (size_t k = 0; k < n; ++k)
        p[k] = static_cast<float>(src.f[k]);
    else // int64 -> float directly: a single RNE rounding.
      for (size_t k = 0; k < n; ++k)
        p[k] = static_cast<float>(src.i[k]);
    return;
  }
  case DType::F16: {
    uint16_t *p = static_cast<uint16_t *>(dst);
    for (size_t k = 0; k < n; ++k)
      p[k] = numerics::fp32ToFp16(roundToOddF32(value(k)));
    return;
  }
  case DType::BF16: {
    uint16_t *p = static_cast<uint16_t *>(dst);
    for (size_t k = 0; k < n; ++k)
      p[k] = numerics::fp32ToBf16(roundToOddF32(value(k)));
    return;
  }
  case DType::I1: {
    uint8_t *p = static_cast<uint8_t *>(dst);
    for (size_t k = 0; k < n; ++k)
      p[k] = src.isFloat ? src.f[k] != 0.0 : src.i[k] != 0;
    return;
  }
  default:
    visitIntDType(out.getDType(), [&](auto tag) {
      using T = decltype(tag);
      writeInts(src, static_cast<T *>(dst), n);
    });
    return;
  }
}

//===--- Quantisation parameters ------------------------------------------===//

/// Per-tensor or per-axis parameters read from attributes with a prefix.
struct QuantAttrs {
  bool perAxis = false;
  numerics::QuantParams tensor;
  std::vector<float> scales;
  std::vector<int32_t> zeroPoints;
  size_t innerSize = 1;
};

numerics::QuantRange storageRange(DType dtype) {
  switch (dtype) {
  case DType::I8:
    return numerics::kInt8Range;
  case DType::U8:
    return numerics::kUInt8Range;
  case DType::I16:
    return {-32768, 32767};
  default:
    return {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max()};
  }
}

bool isStorageDType(DType dtype) {
  return dtype == DType::I8 || dtype == DType::U8 || dtype == DType::I16 ||
         dtype == DType::I32;
}

Status checkScale(const HostOp &op, const std::string &name, double scale,
                  float &out) {
  out = static_cast<float>(scale);
  if (!std::isfinite(out) || !(out > 0.0f))
    return op.error("quantisation scale '" + name +
                    "' must be finite and positive, got " +
                    std::to_string(scale));
  return Status::success();
}

Status checkZeroPoint(const HostOp &op, const std::string &name, int64_t zp,
                      numerics::QuantRange range, int32_t &out) {
  if (zp < range.min || zp > range.max)
    return op.error("zero point '" + name + "' = " + std::to_string(zp) +
                    " is outside the storage range [" +
                    std::to_string(range.min) + ", " +
                    std::to_string(range.max) + "]");
  out = static_cast<int32_t>(zp);
  return Status::success();
}

Status readQuantAttrs(const HostOp &op, const std::string &prefix,
                      const Tensor &quantized, numerics::QuantRange range,
                      QuantAttrs &q) {
  const std::string scaleName = prefix + "scale",
                    scalesName = prefix + "scales";
  if (op.hasAttr(scalesName)) {
    q.perAxis = true;
    std::vector<double> scales;
    std::vector<int64_t> zps;
    int64_t axis = 0, normAxis = 0;
    if (Status s = op.getFloats(scalesName, scales); !s.ok())
      return s;
    if (Status s = op.getIntsOr(prefix + "zero_points",
                                std::vector<int64_t>(scales.size(), 0), zps);
        !s.ok())
      return s;
    if (Status s = op.getInt(prefix + "axis", axis); !s.ok())
      return s;
    if (!normalizeAxis(axis, quantized.getRank(), normAxis))
      return op.error("quantisation axis " + std::to_string(axis) +
                      " is out of range for rank " +
                      std::to_string(quantized.getRank()));
    const int64_t channels = quantized.getShape()[normAxis];
    if (static_cast<int64_t>(scales.size()) != channels ||
        zps.size() != scales.size())
      return op.error(
          "per-axis quantisation along axis " + std::to_string(normAxis) +
          " of size " + std::to_string(channels) +
          " needs that many scales "
          "and zero points, got " +
          std::to_string(scales.size()) + " and " + std::to_string(zps.size()));
    q.scales.resize(scales.size());
    q.zeroPoints.resize(scales.size());
    for (size_t c = 0; c < scales.size(); ++c) {
      if (Status s = checkScale(op, scalesName, scales[c], q.scales[c]);
          !s.ok())
        return s;
      if (Status s = checkZeroPoint(op, prefix + "zero_points", zps[c], range,
                                    q.zeroPoints[c]);
          !s.ok())
        return s;
    }
    q.innerSize = static_cast<size_t>(product(quantized.getShape(),
                                              static_cast<size_t>(normAxis) + 1,
                                              quantized.getShape().size()));
    return Status::success();
  }
  double scale;
  int64_t zp;
  if (Status s = op.getFloat(scaleName, scale); !s.ok())
    return s;
  if (Status s = op.getIntOr(prefix + "zero_point", 0, zp); !s.ok())
    return s;
  if (Status s = checkScale(op, scaleName, scale, q.tensor.scale); !s.ok())
    return s;
  return checkZeroPoint(op, prefix + "zero_point", zp, range,
                        q.tensor.zeroPoint);
}

/// Parameters of element i.
inline numerics::QuantParams paramsAt(const QuantAttrs &q, size_t i) {
  if (!q.perAxis)
    return q.tensor;
  size_t c = (i / q.innerSize) % q.scales.size();
  return {q.scales[c], q.zeroPoints[c]};
}

/// The storage range, optionally narrowed by storage_min / storage_max.
Status readStorageRange(const HostOp &op, DType dtype,
                        numerics::QuantRange &range) {
  range = storageRange(dtype);
  int64_t lo, hi;
  if (Status s = op.getIntOr("storage_min", range.min, lo); !s.ok())
    return s;
  if (Status s = op.getIntOr("storage_max", range.max, hi); !s.ok())
    return s;
  if (lo < range.min || hi > range.max || lo > hi)
    return op.error("storage range [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "] does not fit " +
                    getDTypeName(dtype));
  range = {static_cast<int32_t>(lo), static_cast<int32_t>(hi)};
  return Status::success();
}

template <typename T> void storeQuantized(const int32_t *q, size_t n, T *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(q[i]);
}

void writeStorage(const std::vector<int32_t> &q, Tensor &out) {
  const size_t n = q.size();
  switch (out.getDType()) {
  case DType::I8:
    storeQuantized(q.data(), n, out.mutableAs<int8_t>());
    return;
  case DType::U8:
    storeQuantized(q.data(), n, out.mutableAs<uint8_t>());
    return;
  case DType::I16:
    storeQuantized(q.data(), n, out.mutableAs<int16_t>());
    return;
  default:
    storeQuantized(q.data(), n, out.mutableAs<int32_t>());
    return;
  }
}

} // namespace

Status castKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  if (ctx.outputDescs[0].shape != in->getShape())
    return ctx.error("result shape [" + formatShape(ctx.outputDescs[0].shape) +
                     "] differs from the operand shape [" +
                     formatShape(in->getShape()) + "]");
  Tensor *out;
  if (Status s = ctx.makeOutput(
          0, TensorDesc(ctx.outputDescs[0].dtype, in->getShape()), out);
      !s.ok())
    return s;
  if (in->getDType() == out->getDType()) {
    if (in->getByteSize())
      std::memcpy(out->mutableData(), in->data(), in->getByteSize());
    return Status::success();
  }
  writeCast(readCastSource(*in), *out);
  return Status::success();
}

Status convertKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const DType to = ctx.outputDescs[0].dtype;
  if (!isFloatDType(in->getDType()))
    return ctx.unsupported(in->getDType(), "convert (float formats only)");
  if (!isFloatDType(to))
    return ctx.unsupported(to, "convert (float formats only)");
  // Float to float casts are exactly the RNE conversions convert promises.
  return castKernel(ctx);
}

Status quantizeKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const DType storage = ctx.outputDescs[0].dtype;
  if (!isFloatDType(in->getDType()))
    return ctx.unsupported(in->getDType(), "quantize input");
  if (!isStorageDType(storage))
    return ctx.unsupported(storage, "quantized storage (i8, u8, i16, i32)");
  numerics::QuantRange range;
  if (Status s = readStorageRange(ctx.op, storage, range); !s.ok())
    return s;
  QuantAttrs q;
  if (Status s = readQuantAttrs(ctx.op, "", *in, range, q); !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(storage, in->getShape()), out);
      !s.ok())
    return s;
  F32Input x(*in);
  std::vector<int32_t> codes(x.size());
  if (ctx.op.hasAttr("reciprocal_scale")) {
    // x * f32(1 / scale), as the card computes (the scale attribute is the
    // type's exact double; quantizeValue's division by the f32 scale is
    // ONNX's definition).
    std::vector<double> scales;
    if (q.perAxis) {
      if (Status s = ctx.op.getFloats("scales", scales); !s.ok())
        return s;
    } else {
      scales.emplace_back();
      if (Status s = ctx.op.getFloat("scale", scales[0]); !s.ok())
        return s;
    }
    for (size_t i = 0; i < x.size(); ++i) {
      numerics::QuantParams p = paramsAt(q, i);
      size_t c = q.perAxis ? (i / q.innerSize) % scales.size() : 0;
      float reciprocal = static_cast<float>(1.0 / scales[c]);
      float r = numerics::roundHalfEven(x[i] * reciprocal);
      codes[i] = std::isnan(r)
                     ? p.zeroPoint
                     : numerics::saturateToInt(r, range.min - p.zeroPoint,
                                               range.max - p.zeroPoint) +
                           p.zeroPoint;
    }
  } else {
    for (size_t i = 0; i < x.size(); ++i)
      codes[i] = numerics::quantizeValue(x[i], paramsAt(q, i), range);
  }
  writeStorage(codes, *out);
  return Status::success();
}

Status dequantizeKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const DType to = ctx.outputDescs[0].dtype;
  if (!isStorageDType(in->getDType()))
    return ctx.unsupported(in->getDType(),
                           "quantized storage (i8, u8, i16, i32)");
  if (!isFloatDType(to))
    return ctx.unsupported(to, "dequantize result");
  QuantAttrs q;
  if (Status s =
          readQuantAttrs(ctx.op, "", *in, storageRange(in->getDType()), q);
      !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(to, in->getShape()), out);
      !s.ok())
    return s;
  std::vector<int64_t> codes = readIndexTensor(*in);
  F32Output y(*out);
  for (size_t i = 0; i < codes.size(); ++i) {
    numerics::QuantParams p = paramsAt(q, i);
    // The difference is exact in int64; it is exact in fp32 for 8/16-bit
    // storage (numerics::dequantizeValue), and rounded once for i32.
    y[i] = static_cast<float>(codes[i] - p.zeroPoint) * p.scale;
  }
  y.commit();
  return Status::success();
}

Status requantizeKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const DType to = ctx.outputDescs[0].dtype;
  if (!isStorageDType(in->getDType()))
    return ctx.unsupported(in->getDType(),
                           "quantized storage (i8, u8, i16, i32)");
  if (!isStorageDType(to))
    return ctx.unsupported(to, "quantized storage (i8, u8, i16, i32)");
  numerics::QuantRange outRange;
  if (Status s = readStorageRange(ctx.op, to, outRange); !s.ok())
    return s;
  QuantAttrs qi, qo;
  if (Status s = readQuantAttrs(ctx.op, "input_", *in,
                                storageRange(in->getDType()), qi);
      !s.ok())
    return s;
  if (Status s = readQuantAttrs(ctx.op, "output_", *in, outRange, qo); !s.ok())
    return s;
  // Optional fixed-point multiplier (TFLite scheme), per tensor only.
  const bool fixed = ctx.op.hasAttr("multiplier");
  numerics::FixedPointMultiplier fpm;
  if (fixed) {
    int64_t m, shift;
    if (Status s = ctx.op.getInt("multiplier", m); !s.ok())
      return s;
    if (Status s = ctx.op.getInt("shift", shift); !s.ok())
      return s;
    if (qi.perAxis || qo.perAxis)
      return ctx.error("a fixed-point multiplier needs per-tensor parameters");
    if (m < 0 || m > std::numeric_limits<int32_t>::max() || shift < -31 ||
        shift > 31)
      return ctx.error("fixed-point multiplier " + std::to_string(m) +
                       " / shift " + std::to_string(shift) +
                       " is out of range");
    fpm.multiplier = static_cast<int32_t>(m);
    fpm.shift = static_cast<int>(shift);
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(to, in->getShape()), out);
      !s.ok())
    return s;
  std::vector<int64_t> codes = readIndexTensor(*in);
  std::vector<int32_t> result(codes.size());
  for (size_t i = 0; i < codes.size(); ++i) {
    numerics::QuantParams pi = paramsAt(qi, i), po = paramsAt(qo, i);
    int64_t diff = codes[i] - pi.zeroPoint;
    diff = std::max<int64_t>(std::min<int64_t>(diff, INT32_MAX), INT32_MIN);
    const int32_t acc = static_cast<int32_t>(diff);
    if (fixed) {
      result[i] = numerics::requantizeFixed(acc, fpm, po.zeroPoint, outRange);
    } else {
      // Multiplier in double, used as fp32 like the device's float scheme.
      float multiplier = static_cast<float>(static_cast<double>(pi.scale) /
                                            static_cast<double>(po.scale));
      result[i] =
          numerics::requantizeFloat(acc, multiplier, po.zeroPoint, outRange);
    }
  }
  writeStorage(result, *out);
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
