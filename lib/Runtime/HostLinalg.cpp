//===- HostLinalg.cpp - matmul, fully_connected and conv kernels ----------===//
//
// The matrix-product family. Every output element is one
// numerics::dotF32 over two contiguous fp32 vectors, so its value is
// defined by the device's 16-lane accumulation order (Kernels.h) and the
// host fallback matches the emulator bit for bit. Operands that are not
// laid out as contiguous rows (a matmul rhs, a non-transposed Gemm weight,
// a convolution's receptive field) are packed once into scratch buffers.
//
// Float dtypes only: f32 computes directly; f16/bf16 are widened exactly
// and the fp32 results rounded back (RNE); f64 is computed in fp32.
// Bias, alpha/beta and fused activations are applied after the dot:
//   y = dot;  y = alpha * y (if alpha != 1);  y = y + beta * bias (Gemm) or
//   y = y + bias (conv);  y = act(y)
// each an fp32 operation.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Numerics/Kernels.h"

#include <memory>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// dst[c * rows + r] = src[r * cols + c]: transposes a rows x cols matrix.
void transposeInto(const float *src, int64_t rows, int64_t cols, float *dst) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      dst[c * rows + r] = src[r * cols + c];
}

/// The input, weight and optional bias of fully_connected / conv: all of
/// the input's float type.
Status requireFloatOperands(const KernelContext &ctx, const Tensor *x,
                            const Tensor *w, const Tensor *bias) {
  const DType dtype = x->getDType();
  if (Status s = requireFloat(ctx, x, dtype, "input"); !s.ok())
    return s;
  if (Status s = requireFloat(ctx, w, dtype, "weight"); !s.ok())
    return s;
  if (bias)
    return requireFloat(ctx, bias, dtype, "bias");
  return Status::success();
}

} // namespace

Status matmulKernel(KernelContext &ctx) {
  const Tensor *a = ctx.input(0), *b = ctx.input(1);
  const DType dtype = a->getDType();
  if (Status s = requireFloat(ctx, a, dtype, "lhs"); !s.ok())
    return s;
  if (Status s = requireFloat(ctx, b, dtype, "rhs"); !s.ok())
    return s;
  const auto &as = a->getShape(), &bs = b->getShape();
  if (as.empty() || bs.empty())
    return ctx.error("matmul operands must have rank >= 1");
  const bool aVec = as.size() == 1, bVec = bs.size() == 1;
  const int64_t m = aVec ? 1 : as[as.size() - 2], k = as.back();
  const int64_t bk = bVec ? bs[0] : bs[bs.size() - 2];
  const int64_t n = bVec ? 1 : bs.back();
  if (k != bk)
    return ctx.error("contraction sizes differ: lhs [" + formatShape(as) +
                     "] gives K = " + std::to_string(k) + ", rhs [" +
                     formatShape(bs) + "] gives K = " + std::to_string(bk));
  std::vector<int64_t> aBatch(as.begin(), as.end() - (aVec ? 1 : 2));
  std::vector<int64_t> bBatch(bs.begin(), bs.end() - (bVec ? 1 : 2));
  std::vector<int64_t> batch;
  if (!broadcastShapes(aBatch, bBatch, batch))
    return ctx.error("batch dimensions [" + formatShape(aBatch) + "] and [" +
                     formatShape(bBatch) + "] do not broadcast");
  std::vector<int64_t> shape = batch;
  if (!aVec)
    shape.push_back(m);
  if (!bVec)
    shape.push_back(n);
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, shape), out); !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();

  F32Input fa(*a), fb(*b);
  F32Output fo(*out);
  std::vector<float> bt(static_cast<size_t>(n * k));
  int64_t packed = -1;
  std::array<std::vector<int64_t>, 2> strides = {
      broadcastStrides(aBatch, batch), broadcastStrides(bBatch, batch)};
  forEachBroadcastRun<2>(
      batch, strides,
      [&](int64_t o, const std::array<int64_t, 2> &off, int64_t runLength,
          const std::array<int64_t, 2> &step) {
        for (int64_t r = 0; r < runLength; ++r) {
          const float *pa = fa.data() + (off[0] + r * step[0]) * m * k;
          const int64_t bIndex = off[1] + r * step[1];
          if (bIndex != packed) { // Weights shared across batches pack once.
            transposeInto(fb.data() + bIndex * k * n, k, n, bt.data());
            packed = bIndex;
          }
          float *pc = fo.data() + (o + r) * m * n;
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
              pc[i * n + j] = dotRows(pa + i * k, bt.data() + j * k, k);
        }
      });
  fo.commit();
  return Status::success();
}

Status fullyConnectedKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType();
  if (isIntegerDType(dtype))
    return quantizedFullyConnectedKernel(ctx);
  if (Status s = requireFloatOperands(ctx, x, w, bias); !s.ok())
    return s;
  int64_t transA, transB;
  double alphaD, betaD;
  FusedActivation act;
  if (Status s = ctx.op.getIntOr("transpose_input", 0, transA); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("transpose_weight", 0, transB); !s.ok())
    return s;
  if (Status s = ctx.op.getFloatOr("alpha", 1.0, alphaD); !s.ok())
    return s;
  if (Status s = ctx.op.getFloatOr("beta", 1.0, betaD); !s.ok())
    return s;
  if (Status s = parseActivation(ctx.op, act); !s.ok())
    return s;
  if (x->getRank() != 2 || w->getRank() != 2)
    return ctx.error("input and weight must be rank 2, got " +
                     x->getDesc().toString() + " and " +
                     w->getDesc().toString());
  const auto &xs = x->getShape(), &ws = w->getShape();
  const int64_t m = transA ? xs[1] : xs[0], k = transA ? xs[0] : xs[1];
  const int64_t wk = transB ? ws[1] : ws[0], n = transB ? ws[0] : ws[1];
  if (k != wk)
    return ctx.error("contraction sizes differ: input [" + formatShape(xs) +
                     "] gives K = " + std::to_string(k) + ", weight [" +
                     formatShape(ws) + "] gives K = " + std::to_string(wk));
  std::vector<int64_t> biasShape;
  if (bias && (bias->getRank() > 2 ||
               !broadcastShapes(bias->getShape(), {m, n}, biasShape) ||
               biasShape != std::vector<int64_t>{m, n}))
    return ctx.error("bias of shape [" + formatShape(bias->getShape()) +
                     "] does not broadcast to the " + std::to_string(m) + "x" +
                     std::to_string(n) + " result");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, {m, n}), out); !s.ok())
    return s;

  F32Input fx(*x), fw(*w);
  // Rows of op(input) and of op(weight)^T must be contiguous K-vectors.
  std::vector<float> xPacked, wPacked;
  const float *rowsA = fx.data(), *rowsB = fw.data();
  if (transA) {
    xPacked.resize(static_cast<size_t>(m * k));
    transposeInto(fx.data(), k, m, xPacked.data());
    rowsA = xPacked.data();
  }
  if (!transB) {
    wPacked.resize(static_cast<size_t>(n * k));
    transposeInto(fw.data(), k, n, wPacked.data());
    rowsB = wPacked.data();
  }
  const float alpha = static_cast<float>(alphaD),
              beta = static_cast<float>(betaD);
  std::vector<int64_t> biasStrides =
      bias ? broadcastStrides(bias->getShape(), {m, n})
           : std::vector<int64_t>{0, 0};
  std::unique_ptr<F32Input> fb;
  if (bias)
    fb = std::make_unique<F32Input>(*bias);
  F32Output fo(*out);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float y = dotRows(rowsA + i * k, rowsB + j * k, k);
      if (alpha != 1.0f)
        y = alpha * y;
      if (fb) {
        float bv =
            (*fb)[static_cast<size_t>(i * biasStrides[0] + j * biasStrides[1])];
        y = y + (beta != 1.0f ? beta * bv : bv);
      }
      fo[static_cast<size_t>(i * n + j)] = y;
    }
  applyActivation(act, fo.data(), static_cast<size_t>(m * n));
  fo.commit();
  return Status::success();
}

Status parseConvGeometry(const KernelContext &ctx, const Tensor &x,
                         const Tensor &w, const Tensor *bias,
                         ConvGeometry &geometry) {
  const int64_t rank = x.getRank();
  if (rank < 3 || rank > 5)
    return ctx.error("input must have rank 3 to 5 (N x C x 1-3 spatial "
                     "dimensions), got " +
                     x.getDesc().toString());
  if (w.getRank() != rank)
    return ctx.error("weight rank " + std::to_string(w.getRank()) +
                     " differs from input rank " + std::to_string(rank));
  const size_t k = static_cast<size_t>(rank - 2);
  std::vector<int64_t> strides, pads, dilations;
  int64_t groups;
  if (Status s = ctx.op.getInts("strides", strides); !s.ok())
    return s;
  if (Status s = ctx.op.getInts("pads", pads); !s.ok())
    return s;
  if (Status s = ctx.op.getInts("dilations", dilations); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("groups", 1, groups); !s.ok())
    return s;
  if (Status s = parseActivation(ctx.op, geometry.act); !s.ok())
    return s;
  if (strides.size() != k || dilations.size() != k || pads.size() != 2 * k)
    return ctx.error("strides and dilations need " + std::to_string(k) +
                     " entries and pads " + std::to_string(2 * k));
  const auto &xs = x.getShape(), &ws = w.getShape();
  const int64_t batch = xs[0], channels = xs[1], filters = ws[0];
  if (groups < 1 || channels % groups != 0 || filters % groups != 0)
    return ctx.error("groups = " + std::to_string(groups) +
                     " must divide the " + std::to_string(channels) +
                     " input channels and " + std::to_string(filters) +
                     " filters");
  const int64_t cg = channels / groups, fg = filters / groups;
  if (ws[1] != cg)
    return ctx.error("weight has " + std::to_string(ws[1]) +
                     " channels per group, expected " + std::to_string(cg));
  if (bias && (bias->getRank() != 1 || bias->getShape()[0] != filters))
    return ctx.error("bias must have shape [" + std::to_string(filters) +
                     "], got [" + formatShape(bias->getShape()) + "]");
  geometry.batch = batch;
  geometry.channels = channels;
  geometry.filters = filters;
  geometry.groups = groups;
  geometry.cg = cg;
  geometry.fg = fg;
  // Work in 3 spatial dimensions; missing leading ones have size 1.
  for (size_t d = 0; d < 3; ++d) {
    geometry.in[d] = geometry.ker[d] = geometry.st[d] = geometry.dil[d] = 1;
    geometry.pb[d] = 0;
    geometry.out[d] = 1;
  }
  geometry.shape = {batch, filters};
  for (size_t i = 0; i < k; ++i) {
    const size_t d = 3 - k + i;
    geometry.in[d] = xs[2 + i];
    geometry.ker[d] = ws[2 + i];
    geometry.st[d] = strides[i];
    geometry.dil[d] = dilations[i];
    geometry.pb[d] = pads[i];
    const int64_t pe = pads[i + k];
    if (geometry.st[d] < 1 || geometry.dil[d] < 1 || geometry.pb[d] < 0 ||
        pe < 0 || geometry.ker[d] < 1)
      return ctx.error("spatial dimension " + std::to_string(i) +
                       ": strides, dilations and kernel must be positive and "
                       "pads non-negative");
    const int64_t extent = geometry.dil[d] * (geometry.ker[d] - 1) + 1;
    const int64_t padded = geometry.in[d] + geometry.pb[d] + pe;
    if (padded < extent)
      return ctx.error("spatial dimension " + std::to_string(i) +
                       ": window of extent " + std::to_string(extent) +
                       " does not fit the padded input of size " +
                       std::to_string(padded));
    geometry.out[d] = (padded - extent) / geometry.st[d] + 1;
    geometry.shape.push_back(geometry.out[d]);
  }
  return Status::success();
}

Status convKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType();
  if (isIntegerDType(dtype))
    return quantizedConvKernel(ctx);
  if (Status s = requireFloatOperands(ctx, x, w, bias); !s.ok())
    return s;
  ConvGeometry geometry;
  if (Status s = parseConvGeometry(ctx, *x, *w, bias, geometry); !s.ok())
    return s;
  const int64_t batch = geometry.batch, channels = geometry.channels,
                filters = geometry.filters, groups = geometry.groups,
                cg = geometry.cg, fg = geometry.fg;
  const int64_t *in = geometry.in, *ker = geometry.ker, *st = geometry.st,
                *dil = geometry.dil, *pb = geometry.pb, *outSp = geometry.out;
  const FusedActivation &act = geometry.act;
  // A quantized result: the real one, then quantized like the card's
  // epilogue does (quantizeConvResult).
  const DType outType = ctx.outputDescs[0].dtype;
  const bool quantizedOut = isIntegerDType(outType);
  Tensor *out;
  if (Status s = ctx.makeOutput(
          0, TensorDesc(quantizedOut ? outType : dtype, geometry.shape), out);
      !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();

  F32Input fx(*x), fw(*w);
  std::unique_ptr<F32Input> fb;
  if (bias)
    fb = std::make_unique<F32Input>(*bias);
  std::unique_ptr<F32Output> realOut;
  std::vector<float> realStorage;
  if (quantizedOut)
    realStorage.resize(static_cast<size_t>(out->getNumElements()));
  else
    realOut = std::make_unique<F32Output>(*out);
  float *result = quantizedOut ? realStorage.data() : realOut->data();
  const int64_t kvol = ker[0] * ker[1] * ker[2], patch = cg * kvol;
  const int64_t inPlane = in[0] * in[1] * in[2];
  const int64_t outPlane = outSp[0] * outSp[1] * outSp[2];
  std::vector<float> field(static_cast<size_t>(patch));
  for (int64_t nb = 0; nb < batch; ++nb)
    for (int64_t g = 0; g < groups; ++g) {
      const float *xg = fx.data() + (nb * channels + g * cg) * inPlane;
      const float *wg = fw.data() + g * fg * patch;
      float *og = result + (nb * filters + g * fg) * outPlane;
      int64_t pos = 0;
      for (int64_t o0 = 0; o0 < outSp[0]; ++o0)
        for (int64_t o1 = 0; o1 < outSp[1]; ++o1)
          for (int64_t o2 = 0; o2 < outSp[2]; ++o2, ++pos) {
            // Pack the receptive field, zeros at padded positions, in
            // weight order (channel, k0, k1, k2).
            float *f = field.data();
            for (int64_t c = 0; c < cg; ++c) {
              const float *xc = xg + c * inPlane;
              for (int64_t k0 = 0; k0 < ker[0]; ++k0) {
                const int64_t i0 = o0 * st[0] - pb[0] + k0 * dil[0];
                const bool ok0 = i0 >= 0 && i0 < in[0];
                for (int64_t k1 = 0; k1 < ker[1]; ++k1) {
                  const int64_t i1 = o1 * st[1] - pb[1] + k1 * dil[1];
                  const bool ok1 = ok0 && i1 >= 0 && i1 < in[1];
                  const float *row =
                      ok1 ? xc + (i0 * in[1] + i1) * in[2] : nullptr;
                  int64_t i2 = o2 * st[2] - pb[2];
                  for (int64_t k2 = 0; k2 < ker[2]; ++k2, i2 += dil[2])
                    *f++ = ok1 && i2 >= 0 && i2 < in[2] ? row[i2] : 0.0f;
                }
              }
            }
            for (int64_t fi = 0; fi < fg; ++fi) {
              float y = dotRows(wg + fi * patch, field.data(), patch);
              if (fb)
                y = y + (*fb)[static_cast<size_t>(g * fg + fi)];
              og[fi * outPlane + pos] = y;
            }
          }
    }
  applyActivation(act, result, static_cast<size_t>(out->getNumElements()));
  if (quantizedOut)
    return quantizeConvResult(ctx, realStorage, *out);
  realOut->commit();
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
