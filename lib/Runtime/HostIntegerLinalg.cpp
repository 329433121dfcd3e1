//===- HostIntegerLinalg.cpp - Exact integer matmul and conv kernels ------===//
//
// accel.matmul and accel.conv on integer operands: what ONNX MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv import to once their zero
// points are subtracted. Operands may be i8, u8, i16 or i32 (each widened
// to int32, u8 without sign extension; lhs and rhs may differ); the result
// is i32 and every output element is the sum of products modulo 2^32
// (two's complement wrap-around, computed in uint32_t so overflow is
// defined). Such a sum does not depend on the order of the terms, so it
// equals the device's integer dot products (numerics::dotI8 and friends)
// and ONNX's int32 accumulation whenever that does not overflow.
//
// conv: padded positions contribute zero, the optional bias is i32 and is
// added with wrap-around, and the fused activation may be relu or clip
// (bounds rounded inward, as the integer clip kernel does); the other
// activations have no integer meaning.
//
//===----------------------------------------------------------------------===//

#include "LinalgSupport.h"

#include <cmath>
#include <limits>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// The elements of an i8, u8, i16 or i32 tensor widened to int32 (u8
/// zero-extended); false for other dtypes.
bool widenToInt32(const Tensor &t, std::vector<int32_t> &out) {
  const size_t n = static_cast<size_t>(t.getNumElements());
  out.resize(n);
  auto widen = [&](auto tag) {
    using T = decltype(tag);
    const T *data = t.as<T>();
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<int32_t>(data[i]);
  };
  switch (t.getDType()) {
  case DType::I8:
    widen(int8_t{});
    return true;
  case DType::U8:
    widen(uint8_t{});
    return true;
  case DType::I16:
    widen(int16_t{});
    return true;
  case DType::I32:
    widen(int32_t{});
    return true;
  default:
    return false;
  }
}

/// Reads an integer operand, or fails naming it.
Status readOperand(const KernelContext &ctx, const Tensor &t, const char *name,
                   std::vector<int32_t> &out) {
  if (widenToInt32(t, out))
    return Status::success();
  return ctx.error(std::string("unsupported element type ") +
                   getDTypeName(t.getDType()) + " for the integer " + name +
                   " (i8, u8, i16 or i32)");
}

/// sum_i a[i] * b[i] modulo 2^32.
int32_t dotWrap(const int32_t *a, const int32_t *b, int64_t k) {
  uint32_t acc = 0;
  for (int64_t i = 0; i < k; ++i)
    acc += static_cast<uint32_t>(a[i]) * static_cast<uint32_t>(b[i]);
  return static_cast<int32_t>(acc);
}

/// The fused activation on an int32 result: relu, or clip with its real
/// bounds rounded inward and saturated to int32.
struct IntegerActivation {
  int32_t min = std::numeric_limits<int32_t>::min();
  int32_t max = std::numeric_limits<int32_t>::max();
  int32_t apply(int32_t v) const { return v < min ? min : (v > max ? max : v); }
};

Status parseIntegerActivation(const KernelContext &ctx,
                              IntegerActivation &out) {
  FusedActivation act;
  if (Status s = parseActivation(ctx.op, act); !s.ok())
    return s;
  auto saturate = [](double v) {
    constexpr double lo = std::numeric_limits<int32_t>::min();
    constexpr double hi = std::numeric_limits<int32_t>::max();
    return static_cast<int32_t>(v < lo ? lo : (v > hi ? hi : v));
  };
  switch (act.kind) {
  case FusedActivation::None:
    return Status::success();
  case FusedActivation::Relu:
    out.min = 0;
    return Status::success();
  case FusedActivation::Clip:
    if (!(act.min <= act.max))
      return ctx.error("activation_min must not exceed activation_max");
    out.min = saturate(std::ceil(static_cast<double>(act.min)));
    out.max = saturate(std::floor(static_cast<double>(act.max)));
    return Status::success();
  default: {
    const char *name = act.kind == FusedActivation::Sigmoid ? "sigmoid"
                       : act.kind == FusedActivation::Tanh  ? "tanh"
                                                            : "gelu";
    return ctx.error(std::string("activation ") + name +
                     " needs a float result; an integer conv takes none, "
                     "relu or clip");
  }
  }
}

} // namespace

Status integerMatmulKernel(KernelContext &ctx) {
  const Tensor *a = ctx.input(0), *b = ctx.input(1);
  std::vector<int32_t> av, bv;
  if (Status s = readOperand(ctx, *a, "matmul lhs", av); !s.ok())
    return s;
  if (Status s = readOperand(ctx, *b, "matmul rhs", bv); !s.ok())
    return s;
  MatMulGeometry g;
  if (Status s = getMatMulGeometry(ctx, *a, *b, g); !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(DType::I32, g.shape), out);
      !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();

  const int64_t m = g.m, k = g.k, n = g.n;
  int32_t *result = out->mutableAs<int32_t>();
  // rhs columns as contiguous rows, packed once per distinct rhs matrix.
  std::vector<int32_t> bt(static_cast<size_t>(n * k));
  int64_t packed = -1;
  forEachMatMulBatch(g, [&](int64_t o, int64_t aIndex, int64_t bIndex) {
    if (bIndex != packed) {
      const int32_t *pb = bv.data() + bIndex * k * n;
      for (int64_t r = 0; r < k; ++r)
        for (int64_t c = 0; c < n; ++c)
          bt[static_cast<size_t>(c * k + r)] = pb[r * n + c];
      packed = bIndex;
    }
    const int32_t *pa = av.data() + aIndex * m * k;
    int32_t *pc = result + o * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        pc[i * n + j] = dotWrap(pa + i * k, bt.data() + j * k, k);
  });
  return Status::success();
}

Status integerConvKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  std::vector<int32_t> xv, wv;
  if (Status s = readOperand(ctx, *x, "conv input", xv); !s.ok())
    return s;
  if (Status s = readOperand(ctx, *w, "conv weight", wv); !s.ok())
    return s;
  if (bias && bias->getDType() != DType::I32)
    return ctx.error(std::string("an integer conv needs an i32 bias, got ") +
                     getDTypeName(bias->getDType()));
  IntegerActivation act;
  if (Status s = parseIntegerActivation(ctx, act); !s.ok())
    return s;
  ConvGeometry g;
  if (Status s = getConvGeometry(ctx, *x, *w, bias, g); !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(DType::I32, g.shape), out);
      !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();

  const int32_t *biasData = bias ? bias->as<int32_t>() : nullptr;
  int32_t *result = out->mutableAs<int32_t>();
  const int64_t fg = g.filtersPerGroup(), patch = g.patch();
  const int64_t outPlane = g.outPlane();
  forEachReceptiveField(
      g, xv.data(),
      [&](int64_t nb, int64_t grp, int64_t pos, const int32_t *field) {
        const int32_t *wg = wv.data() + grp * fg * patch;
        int32_t *og = result + (nb * g.filters + grp * fg) * outPlane;
        for (int64_t fi = 0; fi < fg; ++fi) {
          int32_t y = dotWrap(wg + fi * patch, field, patch);
          if (biasData)
            y = wrapAdd(y, biasData[grp * fg + fi]);
          og[fi * outPlane + pos] = act.apply(y);
        }
      });
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
