//===- HostNorm.cpp - Normalisation, softmax and reduction kernels --------===//
//
// batch_norm, layer_norm, softmax, log_softmax, reduce_sum, reduce_mean and
// reduce_max. Float work is fp32 with the numerics::VectorOps definitions:
// layer_norm is layerNormRowF32 per row, softmax is softmaxRowF32, sums
// and means use the 16-lane reduction order of reduceSumF32 over the
// reduced elements in row-major order. Integer reductions (sum, mean, max)
// compute in the element type with wrap-around (mean truncates toward zero).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Numerics/VectorOps.h"

#include <cmath>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// A tensor viewed as [outer, axisSize, inner] around one axis.
struct AxisView {
  int64_t outer, axisSize, inner;
};

/// Runs rowFn(in, out) on every 1-D slice along `axis`, gathering strided
/// slices into a contiguous buffer first.
template <typename RowFn>
void forEachAxisRow(const AxisView &v, const float *in, float *out,
                    RowFn rowFn) {
  const size_t n = static_cast<size_t>(v.axisSize);
  if (v.inner == 1) {
    for (int64_t o = 0; o < v.outer; ++o)
      rowFn(Span<const float>(in + o * v.axisSize, n),
            Span<float>(out + o * v.axisSize, n));
    return;
  }
  std::vector<float> a(n), b(n);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      const int64_t base = o * v.axisSize * v.inner + i;
      for (size_t j = 0; j < n; ++j)
        a[j] = in[base + static_cast<int64_t>(j) * v.inner];
      rowFn(Span<const float>(a), Span<float>(b));
      for (size_t j = 0; j < n; ++j)
        out[base + static_cast<int64_t>(j) * v.inner] = b[j];
    }
}

void logSoftmaxRow(Span<const float> in, Span<float> out) {
  if (in.empty())
    return;
  const float m = numerics::reduceMaxF32(in);
  std::vector<float> e(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    e[i] = in[i] - m;
  std::vector<float> ex(in.size());
  numerics::expF32(Span<const float>(e), Span<float>(ex));
  const float s = numerics::reduceSumF32(Span<const float>(ex));
  // There is no device log; a double log rounded once is libm-independent
  // in practice (the rounding hides the last-bit differences).
  const float logS = static_cast<float>(std::log(static_cast<double>(s)));
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = e[i] - logS;
}

Status runSoftmax(KernelContext &ctx, bool log) {
  const Tensor *x = ctx.input(0);
  if (!isFloatDType(x->getDType()))
    return ctx.unsupported(x->getDType());
  int64_t axisAttr, axis;
  if (Status s = ctx.op.getIntOr("axis", -1, axisAttr); !s.ok())
    return s;
  if (!normalizeAxis(axisAttr, x->getRank(), axis))
    return ctx.error("axis " + std::to_string(axisAttr) +
                     " is out of range for rank " +
                     std::to_string(x->getRank()));
  Tensor *out;
  if (Status s = ctx.makeOutput(0, x->getDesc(), out); !s.ok())
    return s;
  const auto &shape = x->getShape();
  AxisView v{product(shape, 0, axis), shape[axis],
             product(shape, axis + 1, shape.size())};
  F32Input fx(*x);
  F32Output fo(*out);
  if (log)
    forEachAxisRow(v, fx.data(), fo.data(), logSoftmaxRow);
  else
    forEachAxisRow(v, fx.data(), fo.data(),
                   [](Span<const float> in, Span<float> o) {
                     if (!in.empty())
                       numerics::softmaxRowF32(in, o);
                   });
  fo.commit();
  return Status::success();
}

enum class ReduceKind { Sum, Mean, Max, Prod };

template <typename T> T reduceIntRow(ReduceKind kind, const T *v, size_t n) {
  if (kind == ReduceKind::Prod) {
    T p = 1;
    for (size_t i = 0; i < n; ++i)
      p = wrapMul(p, v[i]);
    return p;
  }
  if (kind == ReduceKind::Max) {
    T m = std::numeric_limits<T>::lowest();
    for (size_t i = 0; i < n; ++i)
      m = v[i] > m ? v[i] : m;
    return m;
  }
  T s = 0;
  for (size_t i = 0; i < n; ++i)
    s = wrapAdd(s, v[i]);
  if (kind == ReduceKind::Mean && n != 0)
    return static_cast<T>(static_cast<int64_t>(s) / static_cast<int64_t>(n));
  return s;
}

float reduceFloatRow(ReduceKind kind, const float *v, size_t n) {
  Span<const float> s(v, n);
  switch (kind) {
  case ReduceKind::Sum:
    return numerics::reduceSumF32(s);
  case ReduceKind::Mean:
    return numerics::reduceMeanF32(s);
  case ReduceKind::Max:
    return numerics::reduceMaxF32(s);
  case ReduceKind::Prod: {
    // No device definition: sequential fp32 products, as numpy's prod.
    float p = 1.0f;
    for (float x : s)
      p *= x;
    return p;
  }
  }
  return 0.0f;
}

Status runReduce(KernelContext &ctx, ReduceKind kind) {
  const Tensor *x = ctx.input(0);
  const DType dtype = x->getDType();
  if (dtype == DType::I1)
    return ctx.unsupported(dtype);
  std::vector<int64_t> axes;
  int64_t keepdims;
  if (Status s = ctx.op.getIntsOr("axes", {}, axes); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("keepdims", 1, keepdims); !s.ok())
    return s;
  const auto &shape = x->getShape();
  const int64_t rank = x->getRank();
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) {
    int64_t n;
    if (!normalizeAxis(a, rank, n))
      return ctx.error("axis " + std::to_string(a) +
                       " is out of range for rank " + std::to_string(rank));
    reduced[n] = true;
  }
  std::vector<int64_t> outShape, keptShape, keptStrides, redShape, redStrides;
  std::vector<int64_t> strides = contiguousStrides(shape);
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      redShape.push_back(shape[d]);
      redStrides.push_back(strides[d]);
      if (keepdims)
        outShape.push_back(1);
    } else {
      keptShape.push_back(shape[d]);
      keptStrides.push_back(strides[d]);
      outShape.push_back(shape[d]);
    }
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, outShape), out); !s.ok())
    return s;
  // Offsets of the reduced elements relative to an output's base, in
  // row-major order of the reduced dimensions; and the output bases.
  auto offsetsOf = [](const std::vector<int64_t> &sh,
                      const std::vector<int64_t> &st) {
    std::vector<int64_t> offs = {0};
    for (size_t d = 0; d < sh.size(); ++d) {
      std::vector<int64_t> next;
      next.reserve(offs.size() * static_cast<size_t>(sh[d]));
      for (int64_t o : offs)
        for (int64_t i = 0; i < sh[d]; ++i)
          next.push_back(o + i * st[d]);
      offs.swap(next);
    }
    return offs;
  };
  const std::vector<int64_t> redOffs = offsetsOf(redShape, redStrides);
  const std::vector<int64_t> bases = offsetsOf(keptShape, keptStrides);
  const size_t n = redOffs.size();
  const bool contiguous =
      n == 0 || redOffs.back() == static_cast<int64_t>(n) - 1;
  if (x->getNumElements() == 0 && kind == ReduceKind::Max && n == 0 &&
      out->getNumElements() != 0)
    return ctx.error("reduce_max over an empty set of elements");

  if (isFloatDType(dtype)) {
    F32Input fx(*x);
    F32Output fo(*out);
    std::vector<float> buf(n);
    for (size_t o = 0; o < bases.size(); ++o) {
      const float *row = fx.data() + bases[o];
      if (!contiguous) {
        for (size_t j = 0; j < n; ++j)
          buf[j] = fx[static_cast<size_t>(bases[o] + redOffs[j])];
        row = buf.data();
      }
      fo[o] = reduceFloatRow(kind, row, n);
    }
    fo.commit();
    return Status::success();
  }
  visitIntDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x->as<T>();
    T *po = out->mutableAs<T>();
    std::vector<T> buf(n);
    for (size_t o = 0; o < bases.size(); ++o) {
      for (size_t j = 0; j < n; ++j)
        buf[j] = px[bases[o] + redOffs[j]];
      po[o] = reduceIntRow(kind, buf.data(), n);
    }
  });
  return Status::success();
}

} // namespace

Status batchNormKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0);
  const DType dtype = x->getDType();
  if (!isFloatDType(dtype))
    return ctx.unsupported(dtype);
  if (x->getRank() < 2)
    return ctx.error("input must have rank >= 2 (N x C x ...), got " +
                     x->getDesc().toString());
  const int64_t channels = x->getShape()[1];
  static const char *const names[] = {"scale", "bias", "mean", "variance"};
  for (size_t i = 1; i <= 4; ++i) {
    const Tensor *p = ctx.input(i);
    if (Status s = requireFloat(ctx, p, dtype, names[i - 1]); !s.ok())
      return s;
    if (p->getRank() != 1 || p->getShape()[0] != channels)
      return ctx.error(std::string(names[i - 1]) + " must have shape [" +
                       std::to_string(channels) + "], got [" +
                       formatShape(p->getShape()) + "]");
  }
  double epsD;
  if (Status s = ctx.op.getFloatOr("epsilon", 1e-5, epsD); !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, x->getDesc(), out); !s.ok())
    return s;
  const float eps = static_cast<float>(epsD);
  F32Input fx(*x), scale(*ctx.input(1)), bias(*ctx.input(2)),
      mean(*ctx.input(3)), var(*ctx.input(4));
  F32Output fo(*out);
  const int64_t inner = product(x->getShape(), 2, x->getShape().size());
  const int64_t batch = x->getShape()[0];
  for (int64_t c = 0; c < channels; ++c) {
    // r = 1 / sqrt(var + eps) as numerics::rsqrtF32; then per element
    // ((x - mean) * r) * scale + bias.
    const float v = var[static_cast<size_t>(c)] + eps;
    float r;
    numerics::rsqrtF32(Span<const float>(&v, 1), Span<float>(&r, 1));
    const float m = mean[static_cast<size_t>(c)],
                s = scale[static_cast<size_t>(c)],
                b = bias[static_cast<size_t>(c)];
    for (int64_t nb = 0; nb < batch; ++nb) {
      const int64_t base = (nb * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i)
        fo[static_cast<size_t>(base + i)] =
            ((fx[static_cast<size_t>(base + i)] - m) * r) * s + b;
    }
  }
  fo.commit();
  return Status::success();
}

Status layerNormKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *scale = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType();
  if (!isFloatDType(dtype))
    return ctx.unsupported(dtype);
  if (Status s = requireFloat(ctx, scale, dtype, "scale"); !s.ok())
    return s;
  if (bias)
    if (Status s = requireFloat(ctx, bias, dtype, "bias"); !s.ok())
      return s;
  int64_t axisAttr, axis;
  double epsD;
  if (Status s = ctx.op.getIntOr("axis", -1, axisAttr); !s.ok())
    return s;
  if (Status s = ctx.op.getFloatOr("epsilon", 1e-5, epsD); !s.ok())
    return s;
  if (!normalizeAxis(axisAttr, x->getRank(), axis))
    return ctx.error("axis " + std::to_string(axisAttr) +
                     " is out of range for rank " +
                     std::to_string(x->getRank()));
  const auto &shape = x->getShape();
  const std::vector<int64_t> normShape(shape.begin() + axis, shape.end());
  // scale and bias broadcast (numpy rules) to the normalised dimensions;
  // expand them once to full rows.
  std::vector<std::vector<float>> params;
  for (const Tensor *p : {scale, bias}) {
    if (!p)
      continue;
    std::vector<int64_t> b;
    if (p->getRank() > static_cast<int64_t>(normShape.size()) ||
        !broadcastShapes(p->getShape(), normShape, b) || b != normShape)
      return ctx.error(std::string(p == scale ? "scale" : "bias") +
                       " of shape [" + formatShape(p->getShape()) +
                       "] does not broadcast to the normalised shape [" +
                       formatShape(normShape) + "]");
    F32Input fp(*p);
    std::vector<float> row(
        static_cast<size_t>(product(normShape, 0, normShape.size())));
    std::array<std::vector<int64_t>, 1> st = {
        broadcastStrides(p->getShape(), normShape)};
    forEachBroadcastRun<1>(normShape, st,
                           [&](int64_t o, const std::array<int64_t, 1> &off,
                               int64_t n, const std::array<int64_t, 1> &s) {
                             for (int64_t i = 0; i < n; ++i)
                               row[o + i] = fp[off[0] + i * s[0]];
                           });
    params.push_back(std::move(row));
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, x->getDesc(), out); !s.ok())
    return s;
  const size_t inner =
      static_cast<size_t>(product(normShape, 0, normShape.size()));
  const int64_t outer = product(shape, 0, axis);
  F32Input fx(*x);
  F32Output fo(*out);
  Span<const float> gamma(params[0]);
  Span<const float> beta =
      bias ? Span<const float>(params[1]) : Span<const float>();
  if (inner != 0)
    for (int64_t o = 0; o < outer; ++o)
      numerics::layerNormRowF32(
          Span<const float>(fx.data() + o * static_cast<int64_t>(inner), inner),
          gamma, beta, static_cast<float>(epsD),
          Span<float>(fo.data() + o * static_cast<int64_t>(inner), inner));
  fo.commit();
  return Status::success();
}

Status softmaxKernel(KernelContext &ctx) { return runSoftmax(ctx, false); }
Status logSoftmaxKernel(KernelContext &ctx) { return runSoftmax(ctx, true); }
Status reduceSumKernel(KernelContext &ctx) {
  return runReduce(ctx, ReduceKind::Sum);
}
Status reduceMeanKernel(KernelContext &ctx) {
  return runReduce(ctx, ReduceKind::Mean);
}
Status reduceMaxKernel(KernelContext &ctx) {
  return runReduce(ctx, ReduceKind::Max);
}
Status reduceProdKernel(KernelContext &ctx) {
  return runReduce(ctx, ReduceKind::Prod);
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
