//===- HostLinalg.cpp - matmul, fully_connected and conv kernels ----------===//
//
// The matrix-product family. Every output element is one
// numerics::dotF32 over two contiguous fp32 vectors, so its value is
// defined by the device's 16-lane accumulation order (Kernels.h) and the
// host fallback matches the emulator bit for bit. A row of outputs is one
// numerics::matVecF32, which computes those dots with AVX-512 / AVX2 where
// the CPU has them, bit for bit the same (dotRowsAll). Operands that are not
// laid out as contiguous rows (a matmul rhs, a non-transposed Gemm weight,
// a convolution's receptive field) are packed once into scratch buffers.
//
// Float dtypes here: f32 computes directly; f16/bf16 are widened exactly
// and the fp32 results rounded back (RNE); f64 is computed in fp32.
// Integer matmul and conv operands go to HostIntegerLinalg.cpp; the shape
// rules both share are at the end of this file (LinalgSupport.h).
// Bias, alpha/beta and fused activations are applied after the dot:
//   y = dot;  y = alpha * y (if alpha != 1);  y = y + beta * bias (Gemm) or
//   y = y + bias (conv);  y = act(y)
// each an fp32 operation.
//
//===----------------------------------------------------------------------===//

#include "HostParallel.h"
#include "LinalgSupport.h"

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
  if (isIntegerDType(dtype))
    return integerMatmulKernel(ctx);
  if (Status s = requireFloat(ctx, a, dtype, "lhs"); !s.ok())
    return s;
  if (Status s = requireFloat(ctx, b, dtype, "rhs"); !s.ok())
    return s;
  MatMulGeometry g;
  if (Status s = getMatMulGeometry(ctx, *a, *b, g); !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, g.shape), out); !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();

  const int64_t m = g.m, k = g.k, n = g.n;
  F32Input fa(*a), fb(*b);
  F32Output fo(*out);
  std::vector<float> bt(static_cast<size_t>(n * k));
  int64_t packed = -1;
  forEachMatMulBatch(g, [&](int64_t o, int64_t aIndex, int64_t bIndex) {
    const float *pa = fa.data() + aIndex * m * k;
    if (bIndex != packed) { // Weights shared across batches pack once.
      transposeInto(fb.data() + bIndex * k * n, k, n, bt.data());
      packed = bIndex;
    }
    float *pc = fo.data() + o * m * n;
    parallelRanges(m, n * k, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        dotRowsAll(bt.data(), n, pa + i * k, k, pc + i * n);
    });
  });
  fo.commit();
  return Status::success();
}

Status fullyConnectedKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType();
  if (isBlock(w->getDType()))
    return blockFullyConnectedKernel(ctx);
  if (isIntegerDType(dtype))
    return quantizedFullyConnectedKernel(ctx);
  if (Status s = requireFloatOperands(ctx, x, w, bias); !s.ok())
    return s;
  FullyConnectedAttrs attrs;
  if (Status s = parseFullyConnectedAttrs(ctx.op, attrs); !s.ok())
    return s;
  const bool transA = attrs.transposeInput, transB = attrs.transposeWeight;
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
  const float alpha = static_cast<float>(attrs.alpha),
              beta = static_cast<float>(attrs.beta);
  std::vector<int64_t> biasStrides =
      bias ? broadcastStrides(bias->getShape(), {m, n})
           : std::vector<int64_t>{0, 0};
  std::unique_ptr<F32Input> fb;
  if (bias)
    fb = std::make_unique<F32Input>(*bias);
  F32Output fo(*out);
  parallelRanges(m, n * k, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float *row = fo.data() + i * n;
      dotRowsAll(rowsB, n, rowsA + i * k, k, row);
      for (int64_t j = 0; j < n; ++j) {
        float y = row[j];
        if (alpha != 1.0f)
          y = alpha * y;
        if (fb) {
          float bv = (*fb)[static_cast<size_t>(i * biasStrides[0] +
                                               j * biasStrides[1])];
          y = y + (beta != 1.0f ? beta * bv : bv);
        }
        row[j] = y;
      }
    }
  });
  applyActivation(attrs.activation, fo.data(), static_cast<size_t>(m * n));
  fo.commit();
  return Status::success();
}

Status convKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType();
  // Integer operands: a quantized conv carries its scales (compiler's
  // int8), else it is ONNX's exact integer arithmetic (ConvInteger).
  if (isIntegerDType(dtype))
    return ctx.op.hasAttr("input_scale") ? quantizedConvKernel(ctx)
                                         : integerConvKernel(ctx);
  if (isBlock(w->getDType()))
    return blockConvKernel(ctx);
  if (Status s = requireFloatOperands(ctx, x, w, bias); !s.ok())
    return s;
  FusedActivation act;
  if (Status s = parseActivation(ctx.op, act); !s.ok())
    return s;
  ConvGeometry g;
  if (Status s = getConvGeometry(ctx, *x, *w, bias, g); !s.ok())
    return s;
  // A quantized result: the real one, then quantized like the card's
  // epilogue does (quantizeRealResult).
  const DType outType = ctx.outputDescs[0].dtype;
  const bool quantizedOut = isIntegerDType(outType);
  Tensor *out;
  if (Status s = ctx.makeOutput(
          0, TensorDesc(quantizedOut ? outType : dtype, g.shape), out);
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
  const int64_t fg = g.filtersPerGroup(), patch = g.patch();
  const int64_t outPlane = g.outPlane();
  // Output rows in parallel, each range with its own field and dots.
  parallelRanges(
      receptiveFieldRows(g), g.out[2] * fg * patch,
      [&](int64_t begin, int64_t end) {
        std::vector<float> field(static_cast<size_t>(patch)),
            dots(static_cast<size_t>(fg));
        forEachReceptiveFieldIn(
            g, fx.data(), begin, end, field.data(),
            [&](int64_t nb, int64_t grp, int64_t pos, const float *f) {
              const float *wg = fw.data() + grp * fg * patch;
              float *og = result + (nb * g.filters + grp * fg) * outPlane;
              dotRowsAll(wg, fg, f, patch, dots.data());
              for (int64_t fi = 0; fi < fg; ++fi) {
                float y = dots[static_cast<size_t>(fi)];
                if (fb)
                  y = y + (*fb)[static_cast<size_t>(grp * fg + fi)];
                og[fi * outPlane + pos] = y;
              }
            });
      });
  applyActivation(act, result, static_cast<size_t>(out->getNumElements()));
  if (quantizedOut)
    return quantizeRealResult(ctx, realStorage, *out);
  realOut->commit();
  return Status::success();
}

//===--- Shapes shared with the integer kernels ---------------------------===//

Status getMatMulGeometry(const KernelContext &ctx, const Tensor &a,
                         const Tensor &b, MatMulGeometry &g) {
  const auto &as = a.getShape(), &bs = b.getShape();
  if (as.empty() || bs.empty())
    return ctx.error("matmul operands must have rank >= 1");
  const bool aVec = as.size() == 1, bVec = bs.size() == 1;
  g.m = aVec ? 1 : as[as.size() - 2];
  g.k = as.back();
  const int64_t bk = bVec ? bs[0] : bs[bs.size() - 2];
  g.n = bVec ? 1 : bs.back();
  if (g.k != bk)
    return ctx.error("contraction sizes differ: lhs [" + formatShape(as) +
                     "] gives K = " + std::to_string(g.k) + ", rhs [" +
                     formatShape(bs) + "] gives K = " + std::to_string(bk));
  g.lhsBatch.assign(as.begin(), as.end() - (aVec ? 1 : 2));
  g.rhsBatch.assign(bs.begin(), bs.end() - (bVec ? 1 : 2));
  if (!broadcastShapes(g.lhsBatch, g.rhsBatch, g.batch))
    return ctx.error("batch dimensions [" + formatShape(g.lhsBatch) +
                     "] and [" + formatShape(g.rhsBatch) +
                     "] do not broadcast");
  g.shape = g.batch;
  if (!aVec)
    g.shape.push_back(g.m);
  if (!bVec)
    g.shape.push_back(g.n);
  return Status::success();
}

Status getConvGeometry(const KernelContext &ctx, const Tensor &x,
                       const Tensor &w, const Tensor *bias, ConvGeometry &g) {
  const int64_t rank = x.getRank();
  if (rank < 3 || rank > 5)
    return ctx.error("input must have rank 3 to 5 (N x C x 1-3 spatial "
                     "dimensions), got " +
                     x.getDesc().toString());
  const size_t k = static_cast<size_t>(rank - 2);
  // A block-float weight (accel-quantize-block-float) is F x K rows; the
  // kernel's spatial size is the `kernel_shape` attribute.
  const bool blockWeight = isBlock(w.getDType());
  std::vector<int64_t> kernel;
  if (blockWeight) {
    if (Status s = ctx.op.getInts("kernel_shape", kernel); !s.ok())
      return s;
    if (w.getRank() != 2 || kernel.size() != k)
      return ctx.error("a block-float weight must be F x K with a "
                       "kernel_shape of " +
                       std::to_string(k) + " entries, got [" +
                       formatShape(w.getShape()) + "] and " +
                       std::to_string(kernel.size()) + " entries");
  } else if (w.getRank() != rank) {
    return ctx.error("weight rank " + std::to_string(w.getRank()) +
                     " differs from input rank " + std::to_string(rank));
  } else {
    kernel.assign(w.getShape().begin() + 2, w.getShape().end());
  }
  std::vector<int64_t> strides, pads, dilations;
  if (Status s = ctx.op.getInts("strides", strides); !s.ok())
    return s;
  if (Status s = ctx.op.getInts("pads", pads); !s.ok())
    return s;
  if (Status s = ctx.op.getInts("dilations", dilations); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("groups", 1, g.groups); !s.ok())
    return s;
  if (strides.size() != k || dilations.size() != k || pads.size() != 2 * k)
    return ctx.error("strides and dilations need " + std::to_string(k) +
                     " entries and pads " + std::to_string(2 * k));
  const auto &xs = x.getShape(), &ws = w.getShape();
  g.batch = xs[0];
  g.channels = xs[1];
  g.filters = ws[0];
  if (g.groups < 1 || g.channels % g.groups != 0 || g.filters % g.groups != 0)
    return ctx.error("groups = " + std::to_string(g.groups) +
                     " must divide the " + std::to_string(g.channels) +
                     " input channels and " + std::to_string(g.filters) +
                     " filters");
  const int64_t cg = g.channelsPerGroup();
  if (blockWeight) {
    int64_t taps = 1;
    for (int64_t kd : kernel)
      taps *= kd;
    if (ws[1] != cg * taps)
      return ctx.error("a block-float weight has K = " + std::to_string(ws[1]) +
                       ", expected " + std::to_string(cg) +
                       " channels per group x " + std::to_string(taps) +
                       " taps");
  } else if (ws[1] != cg) {
    return ctx.error("weight has " + std::to_string(ws[1]) +
                     " channels per group, expected " + std::to_string(cg));
  }
  if (bias && (bias->getRank() != 1 || bias->getShape()[0] != g.filters))
    return ctx.error("bias must have shape [" + std::to_string(g.filters) +
                     "], got [" + formatShape(bias->getShape()) + "]");
  g.shape = {g.batch, g.filters};
  for (size_t i = 0; i < k; ++i) {
    const size_t d = 3 - k + i;
    g.in[d] = xs[2 + i];
    g.ker[d] = kernel[i];
    g.st[d] = strides[i];
    g.dil[d] = dilations[i];
    g.pb[d] = pads[i];
    const int64_t pe = pads[i + k];
    if (g.st[d] < 1 || g.dil[d] < 1 || g.pb[d] < 0 || pe < 0 || g.ker[d] < 1)
      return ctx.error("spatial dimension " + std::to_string(i) +
                       ": strides, dilations and kernel must be positive and "
                       "pads non-negative");
    const int64_t extent = g.dil[d] * (g.ker[d] - 1) + 1;
    const int64_t padded = g.in[d] + g.pb[d] + pe;
    if (padded < extent)
      return ctx.error("spatial dimension " + std::to_string(i) +
                       ": window of extent " + std::to_string(extent) +
                       " does not fit the padded input of size " +
                       std::to_string(padded));
    g.out[d] = (padded - extent) / g.st[d] + 1;
    g.shape.push_back(g.out[d]);
  }
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
