//===- HostPooling.cpp - max_pool, avg_pool, global_avg_pool kernels ------===//
//
// ONNX pooling in NCHW layout over 1-3 spatial dimensions. Output sizes
// follow the compiler's shape inference (ShapeInference.cpp): floor or, with
// ceil_mode, ceil of (padded - extent) / stride + 1, dropping a last window
// that would start in the end padding.
//
// max_pool compares in the tensor's own type (f32, f64, integers; f16/bf16
// via exact fp32), never lets a padded position win, and propagates NaN
// like numerics::maxF32. avg_pool sums each window in fp32 in row-major
// window order and divides once; with count_include_pad the divisor counts
// the window clipped to the padded input, otherwise only real positions.
// global_avg_pool is numerics::reduceMeanF32 per channel plane.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Numerics/VectorOps.h"

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// Window geometry in three spatial dimensions (missing leading ones are
/// size 1 with a unit kernel).
struct PoolGeometry {
  int64_t in[3] = {1, 1, 1}, ker[3] = {1, 1, 1}, st[3] = {1, 1, 1},
          dil[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, pe[3] = {0, 0, 0},
          out[3] = {1, 1, 1};
  int64_t planes = 0; // N * C
  std::vector<int64_t> outShape;
};

Status parsePool(KernelContext &ctx, bool hasDilations, PoolGeometry &g) {
  const Tensor *x = ctx.input(0);
  const int64_t rank = x->getRank();
  if (rank < 3 || rank > 5)
    return ctx.error("input must have rank 3 to 5 (N x C x 1-3 spatial "
                     "dimensions), got " +
                     x->getDesc().toString());
  const size_t k = static_cast<size_t>(rank - 2);
  std::vector<int64_t> kernel, strides, pads, dilations(k, 1);
  int64_t ceilMode;
  if (Status s = ctx.op.getInts("kernel_shape", kernel); !s.ok())
    return s;
  if (Status s = ctx.op.getInts("strides", strides); !s.ok())
    return s;
  if (Status s = ctx.op.getInts("pads", pads); !s.ok())
    return s;
  if (hasDilations)
    if (Status s = ctx.op.getInts("dilations", dilations); !s.ok())
      return s;
  if (Status s = ctx.op.getIntOr("ceil_mode", 0, ceilMode); !s.ok())
    return s;
  if (kernel.size() != k || strides.size() != k || dilations.size() != k ||
      pads.size() != 2 * k)
    return ctx.error("kernel_shape, strides" +
                     std::string(hasDilations ? ", dilations" : "") + " need " +
                     std::to_string(k) + " entries and pads " +
                     std::to_string(2 * k));
  const auto &xs = x->getShape();
  g.planes = xs[0] * xs[1];
  g.outShape = {xs[0], xs[1]};
  for (size_t i = 0; i < k; ++i) {
    const size_t d = 3 - k + i;
    g.in[d] = xs[2 + i];
    g.ker[d] = kernel[i];
    g.st[d] = strides[i];
    g.dil[d] = dilations[i];
    g.pb[d] = pads[i];
    g.pe[d] = pads[i + k];
    if (g.ker[d] < 1 || g.st[d] < 1 || g.dil[d] < 1)
      return ctx.error("spatial dimension " + std::to_string(i) +
                       ": kernel, stride and dilation must be positive");
    if (g.pb[d] < 0 || g.pe[d] < 0)
      return ctx.error("spatial dimension " + std::to_string(i) +
                       ": pads must be non-negative");
    const int64_t extent = g.dil[d] * (g.ker[d] - 1) + 1;
    const int64_t padded = g.in[d] + g.pb[d] + g.pe[d];
    if (padded < extent)
      return ctx.error("spatial dimension " + std::to_string(i) +
                       ": window of extent " + std::to_string(extent) +
                       " does not fit the padded input of size " +
                       std::to_string(padded));
    const int64_t span = padded - extent;
    int64_t size =
        (ceilMode ? (span + g.st[d] - 1) / g.st[d] : span / g.st[d]) + 1;
    if (ceilMode && (size - 1) * g.st[d] >= g.in[d] + g.pb[d])
      --size;
    g.out[d] = size;
    g.outShape.push_back(size);
  }
  return Status::success();
}

template <typename T>
void maxPoolTyped(const PoolGeometry &g, const T *x, T *y) {
  const int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t p = 0; p < g.planes; ++p) {
    const T *xp = x + p * inPlane;
    for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
      for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
        for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
          bool any = false;
          T best = std::numeric_limits<T>::lowest();
          if constexpr (std::is_floating_point<T>::value)
            best = -std::numeric_limits<T>::infinity();
          for (int64_t k0 = 0; k0 < g.ker[0]; ++k0) {
            const int64_t i0 = o0 * g.st[0] - g.pb[0] + k0 * g.dil[0];
            if (i0 < 0 || i0 >= g.in[0])
              continue;
            for (int64_t k1 = 0; k1 < g.ker[1]; ++k1) {
              const int64_t i1 = o1 * g.st[1] - g.pb[1] + k1 * g.dil[1];
              if (i1 < 0 || i1 >= g.in[1])
                continue;
              const T *row = xp + (i0 * g.in[1] + i1) * g.in[2];
              for (int64_t k2 = 0; k2 < g.ker[2]; ++k2) {
                const int64_t i2 = o2 * g.st[2] - g.pb[2] + k2 * g.dil[2];
                if (i2 < 0 || i2 >= g.in[2])
                  continue;
                best = any ? maxValue(best, row[i2]) : row[i2];
                any = true;
              }
            }
          }
          *y++ = best;
        }
  }
}

} // namespace

Status maxPoolKernel(KernelContext &ctx) {
  PoolGeometry g;
  if (Status s = parsePool(ctx, /*hasDilations=*/true, g); !s.ok())
    return s;
  const Tensor *x = ctx.input(0);
  const DType dtype = x->getDType();
  if (dtype == DType::I1)
    return ctx.unsupported(dtype);
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, g.outShape), out); !s.ok())
    return s;
  switch (dtype) {
  case DType::F32:
    maxPoolTyped(g, x->as<float>(), out->mutableAs<float>());
    return Status::success();
  case DType::F64:
    maxPoolTyped(g, x->as<double>(), out->mutableAs<double>());
    return Status::success();
  case DType::F16:
  case DType::BF16: {
    // The maximum is one of the inputs, so the round trip is exact.
    F32Input fx(*x);
    F32Output fo(*out);
    maxPoolTyped(g, fx.data(), fo.data());
    fo.commit();
    return Status::success();
  }
  default:
    visitIntDType(dtype, [&](auto tag) {
      using T = decltype(tag);
      maxPoolTyped(g, x->as<T>(), out->mutableAs<T>());
    });
    return Status::success();
  }
}

Status avgPoolKernel(KernelContext &ctx) {
  PoolGeometry g;
  if (Status s = parsePool(ctx, /*hasDilations=*/false, g); !s.ok())
    return s;
  int64_t includePad;
  if (Status s = ctx.op.getIntOr("count_include_pad", 0, includePad); !s.ok())
    return s;
  const Tensor *x = ctx.input(0);
  if (!isFloatDType(x->getDType()))
    return ctx.unsupported(x->getDType());
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(x->getDType(), g.outShape), out);
      !s.ok())
    return s;
  F32Input fx(*x);
  F32Output fo(*out);
  float *y = fo.data();
  const int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
  // Number of window positions along one dimension that lie in [lo, hi).
  auto clipped = [](int64_t start, int64_t len, int64_t lo, int64_t hi) {
    return std::max<int64_t>(0,
                             std::min(start + len, hi) - std::max(start, lo));
  };
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *xp = fx.data() + p * inPlane;
    for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
      for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
        for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
          const int64_t s0 = o0 * g.st[0] - g.pb[0],
                        s1 = o1 * g.st[1] - g.pb[1],
                        s2 = o2 * g.st[2] - g.pb[2];
          float sum = 0.0f;
          for (int64_t i0 = std::max<int64_t>(s0, 0);
               i0 < std::min(s0 + g.ker[0], g.in[0]); ++i0)
            for (int64_t i1 = std::max<int64_t>(s1, 0);
                 i1 < std::min(s1 + g.ker[1], g.in[1]); ++i1) {
              const float *row = xp + (i0 * g.in[1] + i1) * g.in[2];
              for (int64_t i2 = std::max<int64_t>(s2, 0);
                   i2 < std::min(s2 + g.ker[2], g.in[2]); ++i2)
                sum = sum + row[i2];
            }
          int64_t count = 1;
          for (int d = 0; d < 3; ++d) {
            const int64_t s = d == 0 ? s0 : d == 1 ? s1 : s2;
            count *= includePad
                         ? clipped(s, g.ker[d], -g.pb[d], g.in[d] + g.pe[d])
                         : clipped(s, g.ker[d], 0, g.in[d]);
          }
          // count >= 1: a window always overlaps the input (shape rules).
          *y++ = sum / static_cast<float>(std::max<int64_t>(count, 1));
        }
  }
  fo.commit();
  return Status::success();
}

Status globalAvgPoolKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0);
  if (!isFloatDType(x->getDType()))
    return ctx.unsupported(x->getDType());
  const int64_t rank = x->getRank();
  if (rank < 3 || rank > 5)
    return ctx.error("input must have rank 3 to 5, got " +
                     x->getDesc().toString());
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[0] = x->getShape()[0];
  shape[1] = x->getShape()[1];
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(x->getDType(), shape), out);
      !s.ok())
    return s;
  const int64_t planes = shape[0] * shape[1];
  const size_t plane = static_cast<size_t>(product(x->getShape(), 2, rank));
  F32Input fx(*x);
  F32Output fo(*out);
  for (int64_t p = 0; p < planes; ++p)
    fo[static_cast<size_t>(p)] = numerics::reduceMeanF32(
        Span<const float>(fx.data() + p * static_cast<int64_t>(plane), plane));
  fo.commit();
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
