//===- HostQuantizedLinalg.cpp - quantized fully_connected and conv -------===//
//
// The host's quantized (int8) fully_connected, step for step the card's
// matrix-unit kernel (docs/lowering.md, FullyConnectedKernel.cpp), so a
// product computes the same bits wherever it runs:
//
//   acc   = sum_k (x - x_zero_point) * w        exact, i32 wrap-around
//   acc  += bias                                 an i32 bias
//   y     = f32(acc) * f32(x_scale * w_scale)    (v.dqnt, per column)
//   y     = y + bias                             a real bias
//   y     = activation(y)
//   q     = sat(RNE(y * f32(1 / y_scale)) + y_zero_point)   quantized Y
//
// The compiler copies the parameters from the operands' !quant.uniform
// types (docs/host-kernels.md): input_scale, input_zero_point;
// weight_scale or weight_scales (per output column); output_scale and
// output_zero_point for a quantized result. The weight is i8, or i4 packed
// two per byte as the matrix unit reads it (element 2j of a row in the low
// nibble of its byte j, two's complement, rows ceil(columns / 2) bytes).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"
#include "LinalgSupport.h"

#include "nnaccel/Numerics/Affine.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// Reads a positive, finite scale attribute as the device's f32.
Status readScale(const HostOp &op, const std::string &name, double value,
                 float &out) {
  out = static_cast<float>(value);
  if (!std::isfinite(out) || !(out > 0.0f))
    return op.error("quantisation scale '" + name +
                    "' must be finite and positive, got " +
                    std::to_string(value));
  return Status::success();
}

int32_t storedAt(const Tensor &t, int64_t i) {
  switch (t.getDType()) {
  case DType::I8:
    return t.as<int8_t>()[i];
  case DType::U8:
    return t.as<uint8_t>()[i];
  default:
    return t.as<int32_t>()[i];
  }
}

/// The input's scale and zero point and the weight's scales (one, or one
/// per output `unit` of `outputs`) of a quantized product, from the
/// attributes the compiler copies out of the operand types.
Status readProductParameters(const KernelContext &ctx, int64_t outputs,
                             const char *unit, double &inputScale,
                             int64_t &inputZeroPoint,
                             std::vector<double> &weightScales) {
  if (Status s = ctx.op.getFloat("input_scale", inputScale); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("input_zero_point", 0, inputZeroPoint);
      !s.ok())
    return s;
  if (ctx.op.hasAttr("weight_scales")) {
    if (Status s = ctx.op.getFloats("weight_scales", weightScales); !s.ok())
      return s;
    if (static_cast<int64_t>(weightScales.size()) != outputs)
      return ctx.error(
          std::string("weight_scales needs one scale per output ") + unit +
          " (" + std::to_string(outputs) + "), got " +
          std::to_string(weightScales.size()));
    return Status::success();
  }
  weightScales.assign(1, 0.0);
  return ctx.op.getFloat("weight_scale", weightScales[0]);
}

/// Element (row, column) of a rank-2 quantized weight: i8, or i4 packed
/// two per byte per row (sign-extended nibbles).
int32_t readQuantizedWeight(const Tensor &w, int64_t row, int64_t column) {
  const int64_t columns = w.getShape().back();
  if (w.getDType() == DType::I4) {
    const auto *bytes = static_cast<const uint8_t *>(w.data());
    return numerics::readPackedInt4(
        bytes + static_cast<size_t>(row * ((columns + 1) / 2)),
        static_cast<size_t>(column));
  }
  return storedAt(w, row * columns + column);
}

} // namespace

Status quantizedFullyConnectedKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType inType = x->getDType();
  if (inType != DType::I8 && inType != DType::U8)
    return ctx.unsupported(inType, "a quantized fully_connected input");
  if (w->getDType() != DType::I8 && w->getDType() != DType::I4)
    return ctx.unsupported(w->getDType(), "a quantized fully_connected weight");
  if (x->getRank() != 2 || w->getRank() != 2)
    return ctx.error("input and weight must be rank 2, got " +
                     x->getDesc().toString() + " and " +
                     w->getDesc().toString());
  int64_t transA, transB;
  if (Status s = ctx.op.getIntOr("transpose_input", 0, transA); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("transpose_weight", 0, transB); !s.ok())
    return s;
  if (transA)
    return ctx.error("a quantized input cannot be transposed");
  FusedActivation act;
  if (Status s = parseActivation(ctx.op, act); !s.ok())
    return s;
  const auto &xs = x->getShape(), &ws = w->getShape();
  const int64_t m = xs[0], k = xs[1];
  const int64_t wk = transB ? ws[1] : ws[0], n = transB ? ws[0] : ws[1];
  if (k != wk)
    return ctx.error("contraction sizes differ: input [" + formatShape(xs) +
                     "] gives K = " + std::to_string(k) + ", weight [" +
                     formatShape(ws) + "] gives K = " + std::to_string(wk));
  if (bias && bias->getNumElements() != n)
    return ctx.error("a quantized product takes one bias value per column, "
                     "got [" +
                     formatShape(bias->getShape()) + "]");
  const bool integerBias = bias && isIntegerDType(bias->getDType());
  if (bias && !integerBias && bias->getDType() != DType::F32)
    return ctx.unsupported(bias->getDType(), "a quantized product's bias");

  // Scales: the accumulator's, per column, as the kernel computes them.
  double inputScale;
  int64_t inputZeroPoint;
  std::vector<double> weightScales;
  if (Status s = readProductParameters(ctx, n, "column", inputScale,
                                       inputZeroPoint, weightScales);
      !s.ok())
    return s;
  std::vector<float> scales(weightScales.size());
  for (size_t c = 0; c < scales.size(); ++c)
    if (Status s = readScale(ctx.op, "input_scale x weight_scale",
                             inputScale * weightScales[c], scales[c]);
        !s.ok())
      return s;

  const DType outType = ctx.outputDescs[0].dtype;
  const bool quantizedOut = outType == DType::I8 || outType == DType::U8;
  if (!quantizedOut && outType != DType::F32)
    return ctx.unsupported(outType, "a quantized product's result");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(outType, {m, n}), out); !s.ok())
    return s;

  std::vector<float> real(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      // Wrap-around i32 arithmetic, as the matrix unit's (unsigned math
      // avoids signed-overflow UB).
      uint32_t acc = 0;
      for (int64_t t = 0; t < k; ++t) {
        int64_t a = storedAt(*x, i * k + t) - inputZeroPoint;
        int64_t b = transB ? readQuantizedWeight(*w, j, t)
                           : readQuantizedWeight(*w, t, j);
        acc += static_cast<uint32_t>(a * b);
      }
      if (integerBias)
        acc += static_cast<uint32_t>(storedAt(*bias, j));
      float y = static_cast<float>(static_cast<int32_t>(acc)) *
                scales[scales.size() == 1 ? 0 : static_cast<size_t>(j)];
      if (bias && !integerBias)
        y = y + bias->as<float>()[j];
      real[static_cast<size_t>(i * n + j)] = y;
    }
  applyActivation(act, real.data(), real.size());
  if (!quantizedOut) {
    std::memcpy(out->mutableAs<float>(), real.data(),
                real.size() * sizeof(float));
    return Status::success();
  }
  return quantizeRealResult(ctx, real, *out);
}

namespace {

/// sat(RNE(scaled) + zero point) in `type`'s range (i8 or u8), as v.rqnt
/// computes it from an f32 value (NaN gives the zero point).
int64_t saturateScaled(float scaled, int64_t zeroPoint, DType type) {
  const int64_t lo = type == DType::I8 ? -128 : 0,
                hi = type == DType::I8 ? 127 : 255;
  int64_t q = std::isnan(scaled)
                  ? 0
                  : static_cast<int64_t>(std::nearbyint(
                        std::clamp(scaled, -2147483648.0f, 2147483520.0f)));
  return std::clamp<int64_t>(q + zeroPoint, lo, hi);
}

} // namespace

// The quantized convolution, step for step the card's int8 conv kernels
// (PointwiseConvKernel.cpp, DepthwiseConvKernel.cpp, GemmConvKernel.cpp):
//
//   acc = sum over the window of (x - x_zero_point) * w   exact, i32
//         (padding is the real value 0, i.e. contributes nothing)
//   acc += bias                                           an i32 bias
// then, for a quantized result without a fused activation and without a
// real bias (accel-quantize drops an activation the requantization
// subsumes), one rescale per output channel f:
//   q = sat(RNE(f32(acc) * f32(x_scale * w_scale[f] / y_scale)) + y_zp)
// else
//   y = f32(acc) * f32(x_scale * w_scale[f])    (v.dqnt)
//   y = y + bias                                 a real bias
//   y = activation(y)
//   q = sat(RNE(y * f32(1 / f32(y_scale))) + y_zp)   a quantized result
Status quantizedConvKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType inType = x->getDType();
  if (inType != DType::I8 && inType != DType::U8)
    return ctx.unsupported(inType, "a quantized conv input");
  if (w->getDType() != DType::I8)
    return ctx.unsupported(w->getDType(), "a quantized conv weight");
  ConvGeometry g;
  if (Status s = getConvGeometry(ctx, *x, *w, bias, g); !s.ok())
    return s;
  FusedActivation act;
  if (Status s = parseActivation(ctx.op, act); !s.ok())
    return s;
  const bool integerBias = bias && isIntegerDType(bias->getDType());
  if (bias && !integerBias && bias->getDType() != DType::F32)
    return ctx.unsupported(bias->getDType(), "a quantized conv's bias");

  double inputScale;
  int64_t inputZeroPoint;
  std::vector<double> weightScales;
  if (Status s = readProductParameters(ctx, g.filters, "channel", inputScale,
                                       inputZeroPoint, weightScales);
      !s.ok())
    return s;
  const DType outType = ctx.outputDescs[0].dtype;
  const bool quantizedOut = outType == DType::I8 || outType == DType::U8;
  double outputScale = 1.0;
  int64_t outputZeroPoint = 0;
  if (quantizedOut) {
    if (Status s = ctx.op.getFloat("output_scale", outputScale); !s.ok())
      return s;
    if (Status s = ctx.op.getIntOr("output_zero_point", 0, outputZeroPoint);
        !s.ok())
      return s;
  } else if (outType != DType::F32) {
    return ctx.unsupported(outType, "a quantized conv's result");
  }
  // One rescale from the sum straight to the stored integer, or the
  // dequantization scale per channel (then the requantization's inverse).
  const bool rescale = quantizedOut && act.kind == FusedActivation::None &&
                       !(bias && !integerBias);
  std::vector<float> scales(weightScales.size());
  for (size_t c = 0; c < scales.size(); ++c) {
    double scale = inputScale * weightScales[c];
    if (rescale)
      scale /= outputScale;
    if (Status s = readScale(ctx.op,
                             rescale ? "input_scale x weight_scale / "
                                       "output_scale"
                                     : "input_scale x weight_scale",
                             scale, scales[c]);
        !s.ok())
      return s;
  }
  float outputInverse = 1.0f;
  if (quantizedOut && !rescale) {
    float scale;
    if (Status s = readScale(ctx.op, "output_scale", outputScale, scale);
        !s.ok())
      return s;
    outputInverse = 1.0f / scale;
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(outType, g.shape), out); !s.ok())
    return s;
  const int64_t outPlane = g.out[0] * g.out[1] * g.out[2];
  const int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
  const int64_t kvol = g.ker[0] * g.ker[1] * g.ker[2],
                patch = g.channelsPerGroup() * kvol;
  auto store = [&](int64_t index, float value, bool scaled) {
    int64_t q = saturateScaled(scaled ? value : value * outputInverse,
                               outputZeroPoint, outType);
    if (outType == DType::I8)
      out->mutableAs<int8_t>()[index] = static_cast<int8_t>(q);
    else
      out->mutableAs<uint8_t>()[index] = static_cast<uint8_t>(q);
  };
  std::vector<float> real;
  if (!rescale)
    real.resize(static_cast<size_t>(out->getNumElements()));
  for (int64_t nb = 0; nb < g.batch; ++nb)
    for (int64_t f = 0; f < g.filters; ++f) {
      const int64_t group = f / g.filtersPerGroup();
      const float scale = scales[scales.size() == 1 ? 0 : size_t(f)];
      int64_t pos = 0;
      for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
          for (int64_t o2 = 0; o2 < g.out[2]; ++o2, ++pos) {
            // Wrap-around i32 arithmetic, as the card's (unsigned math
            // avoids signed-overflow UB).
            uint32_t acc = 0;
            for (int64_t c = 0; c < g.channelsPerGroup(); ++c) {
              const int64_t xBase =
                  (nb * g.channels + group * g.channelsPerGroup() + c) *
                  inPlane;
              for (int64_t k0 = 0; k0 < g.ker[0]; ++k0) {
                const int64_t i0 = o0 * g.st[0] - g.pb[0] + k0 * g.dil[0];
                if (i0 < 0 || i0 >= g.in[0])
                  continue;
                for (int64_t k1 = 0; k1 < g.ker[1]; ++k1) {
                  const int64_t i1 = o1 * g.st[1] - g.pb[1] + k1 * g.dil[1];
                  if (i1 < 0 || i1 >= g.in[1])
                    continue;
                  for (int64_t k2 = 0; k2 < g.ker[2]; ++k2) {
                    const int64_t i2 = o2 * g.st[2] - g.pb[2] + k2 * g.dil[2];
                    if (i2 < 0 || i2 >= g.in[2])
                      continue;
                    int64_t a =
                        storedAt(*x,
                                 xBase + (i0 * g.in[1] + i1) * g.in[2] + i2) -
                        inputZeroPoint;
                    int64_t b =
                        storedAt(*w, f * patch + c * kvol +
                                         (k0 * g.ker[1] + k1) * g.ker[2] + k2);
                    acc += static_cast<uint32_t>(a * b);
                  }
                }
              }
            }
            if (integerBias)
              acc += static_cast<uint32_t>(storedAt(*bias, f));
            const int64_t index = (nb * g.filters + f) * outPlane + pos;
            const float sum = static_cast<float>(static_cast<int32_t>(acc));
            if (rescale) {
              store(index, sum * scale, /*scaled=*/true);
              continue;
            }
            float y = sum * scale;
            if (bias && !integerBias)
              y = y + bias->as<float>()[f];
            real[static_cast<size_t>(index)] = y;
          }
    }
  if (rescale)
    return Status::success();
  applyActivation(act, real.data(), real.size());
  if (!quantizedOut) {
    std::memcpy(out->mutableAs<float>(), real.data(),
                real.size() * sizeof(float));
    return Status::success();
  }
  for (size_t i = 0; i < real.size(); ++i)
    store(static_cast<int64_t>(i), real[i], /*scaled=*/false);
  return Status::success();
}

Status quantizeRealResult(KernelContext &ctx, const std::vector<float> &real,
                          Tensor &out) {
  const DType outType = out.getDType();
  if (outType != DType::I8 && outType != DType::U8)
    return ctx.unsupported(outType, "a quantized result");
  double outputScale;
  int64_t outputZeroPoint;
  float scale;
  if (Status s = ctx.op.getFloat("output_scale", outputScale); !s.ok())
    return s;
  if (Status s = readScale(ctx.op, "output_scale", outputScale, scale); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("output_zero_point", 0, outputZeroPoint);
      !s.ok())
    return s;
  const float inverse = 1.0f / scale;
  for (size_t i = 0; i < real.size(); ++i) {
    int64_t q = saturateScaled(real[i] * inverse, outputZeroPoint, outType);
    if (outType == DType::I8)
      out.mutableAs<int8_t>()[i] = static_cast<int8_t>(q);
    else
      out.mutableAs<uint8_t>()[i] = static_cast<uint8_t>(q);
  }
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
