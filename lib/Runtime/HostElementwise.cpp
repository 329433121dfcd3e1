//===- HostElementwise.cpp - Elementwise host kernels ---------------------===//
//
// Binary arithmetic with numpy broadcasting (add sub mul div pow max min),
// compare, where, and the unary ops (sqrt exp erf tanh sigmoid relu neg abs
// round gelu clip).
//
// Float tensors: f32 and f64 compute natively for the IEEE single-operation
// ops (add sub mul div max min neg abs relu clip, compare); f16/bf16 are
// widened to fp32 exactly, computed in fp32 and rounded back (RNE), which
// is the device's behaviour. Transcendentals (sqrt exp erf tanh sigmoid
// gelu) always use the numerics::VectorOps fp32 definitions so that host
// fallback equals device numerics; f64 inputs are rounded to fp32 for them.
// pow has no device definition: it is computed as std::pow in double and
// rounded once, like the compiler's constant folder.
//
// Integer tensors (i8 i16 i32 i64 u8) wrap around on overflow like the
// folder's APInt arithmetic; division truncates toward zero and a zero
// divisor is an error, not undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Numerics/Common.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <cmath>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

//===--- Broadcast loops --------------------------------------------------===//

/// out = fn(a, b) over the broadcast of a and b to outShape. The common
/// cases (both contiguous, one operand a scalar run) get dedicated loops
/// the compiler can vectorise.
template <typename TIn, typename TOut, typename Fn>
void binaryLoop(const TIn *a, const std::vector<int64_t> &aShape, const TIn *b,
                const std::vector<int64_t> &bShape, TOut *out,
                const std::vector<int64_t> &outShape, Fn fn) {
  std::array<std::vector<int64_t>, 2> strides = {
      broadcastStrides(aShape, outShape), broadcastStrides(bShape, outShape)};
  forEachBroadcastRun<2>(outShape, strides,
                         [&](int64_t o, const std::array<int64_t, 2> &off,
                             int64_t n, const std::array<int64_t, 2> &step) {
                           const TIn *pa = a + off[0];
                           const TIn *pb = b + off[1];
                           TOut *po = out + o;
                           if (step[0] == 1 && step[1] == 1) {
                             for (int64_t i = 0; i < n; ++i)
                               po[i] = fn(pa[i], pb[i]);
                           } else if (step[0] == 1 && step[1] == 0) {
                             const TIn bv = *pb;
                             for (int64_t i = 0; i < n; ++i)
                               po[i] = fn(pa[i], bv);
                           } else if (step[0] == 0 && step[1] == 1) {
                             const TIn av = *pa;
                             for (int64_t i = 0; i < n; ++i)
                               po[i] = fn(av, pb[i]);
                           } else {
                             for (int64_t i = 0; i < n; ++i)
                               po[i] = fn(pa[i * step[0]], pb[i * step[1]]);
                           }
                         });
}

//===--- Binary arithmetic ------------------------------------------------===//

enum class BinOp { Add, Sub, Mul, Div, Pow, Max, Min };

template <BinOp K> struct FloatBinary {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (K == BinOp::Add)
      return a + b;
    else if constexpr (K == BinOp::Sub)
      return a - b;
    else if constexpr (K == BinOp::Mul)
      return a * b;
    else if constexpr (K == BinOp::Div)
      return a / b;
    else if constexpr (K == BinOp::Pow)
      return static_cast<T>(
          std::pow(static_cast<double>(a), static_cast<double>(b)));
    else if constexpr (K == BinOp::Max)
      return maxValue(a, b);
    else
      return minValue(a, b);
  }
};

/// Integer power by squaring with wrap-around. A negative exponent gives
/// the truncated value of 1 / a^-e: 1 for a = 1, +-1 for a = -1, else 0
/// (a = 0 with a negative exponent is rejected before the loop).
template <typename T> T intPow(T a, T e) {
  if constexpr (std::is_signed<T>::value) {
    if (e < 0) {
      if (a == 1)
        return 1;
      if (a == -1)
        return (e % 2) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  using U = std::make_unsigned_t<T>;
  U exp = static_cast<U>(e);
  T base = a;
  while (exp) {
    if (exp & 1)
      result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

template <BinOp K> struct IntBinary {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (K == BinOp::Add)
      return wrapAdd(a, b);
    else if constexpr (K == BinOp::Sub)
      return wrapSub(a, b);
    else if constexpr (K == BinOp::Mul)
      return wrapMul(a, b);
    else if constexpr (K == BinOp::Div) {
      // b != 0 is checked up front; MIN / -1 wraps to MIN.
      if constexpr (std::is_signed<T>::value)
        if (b == T(-1))
          return wrapNeg(a);
      return static_cast<T>(a / b);
    } else if constexpr (K == BinOp::Pow)
      return intPow(a, b);
    else if constexpr (K == BinOp::Max)
      return a > b ? a : b;
    else
      return a < b ? a : b;
  }
};

/// Checks operand types and the broadcast shape, and allocates the result
/// with element type `resultType`.
Status prepareBinary(KernelContext &ctx, DType resultType, const Tensor *&a,
                     const Tensor *&b, Tensor *&out) {
  a = ctx.input(0);
  b = ctx.input(1);
  if (a->getDType() != b->getDType())
    return ctx.error(std::string("operand element types differ: ") +
                     getDTypeName(a->getDType()) + " vs " +
                     getDTypeName(b->getDType()));
  std::vector<int64_t> shape;
  if (!broadcastShapes(a->getShape(), b->getShape(), shape))
    return ctx.error("operand shapes [" + formatShape(a->getShape()) +
                     "] and [" + formatShape(b->getShape()) +
                     "] do not broadcast");
  return ctx.makeOutput(0, TensorDesc(resultType, shape), out);
}

template <BinOp K> Status runBinary(KernelContext &ctx) {
  const Tensor *a, *b;
  Tensor *out;
  if (Status s = prepareBinary(ctx, ctx.input(0)->getDType(), a, b, out);
      !s.ok())
    return s;
  const DType dtype = a->getDType();
  const auto &outShape = out->getShape();
  switch (dtype) {
  case DType::F32:
    binaryLoop(a->as<float>(), a->getShape(), b->as<float>(), b->getShape(),
               out->mutableAs<float>(), outShape, FloatBinary<K>());
    return Status::success();
  case DType::F64:
    binaryLoop(a->as<double>(), a->getShape(), b->as<double>(), b->getShape(),
               out->mutableAs<double>(), outShape, FloatBinary<K>());
    return Status::success();
  case DType::F16:
  case DType::BF16: {
    F32Input fa(*a), fb(*b);
    F32Output fo(*out);
    binaryLoop(fa.data(), a->getShape(), fb.data(), b->getShape(), fo.data(),
               outShape, FloatBinary<K>());
    fo.commit();
    return Status::success();
  }
  default:
    break;
  }
  Status status = Status::success();
  bool handled = visitIntDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *pb = b->as<T>();
    const int64_t nb = b->getNumElements();
    if constexpr (K == BinOp::Div) {
      for (int64_t i = 0; i < nb; ++i)
        if (pb[i] == 0) {
          status = ctx.error("integer division by zero (divisor element " +
                             std::to_string(i) + ")");
          return;
        }
    }
    if constexpr (K == BinOp::Pow && std::is_signed<T>::value) {
      // 0 ^ negative has no integer value; reject it rather than invent one.
      std::vector<uint8_t> bad(static_cast<size_t>(out->getNumElements()));
      binaryLoop(a->as<T>(), a->getShape(), pb, b->getShape(), bad.data(),
                 outShape, [](T x, T e) -> uint8_t { return x == 0 && e < 0; });
      for (uint8_t v : bad)
        if (v) {
          status = ctx.error("integer zero raised to a negative power");
          return;
        }
    }
    binaryLoop(a->as<T>(), a->getShape(), pb, b->getShape(),
               out->mutableAs<T>(), outShape, IntBinary<K>());
  });
  if (!handled)
    return ctx.unsupported(dtype);
  return status;
}

//===--- Compare and where ------------------------------------------------===//

template <typename T>
Status compareTyped(KernelContext &ctx, const std::string &kind, const T *a,
                    const std::vector<int64_t> &aShape, const T *b,
                    const std::vector<int64_t> &bShape, uint8_t *out,
                    const std::vector<int64_t> &outShape) {
  // IEEE comparisons: anything involving NaN is false except `ne`.
  if (kind == "eq")
    binaryLoop(a, aShape, b, bShape, out, outShape,
               [](T x, T y) -> uint8_t { return x == y; });
  else if (kind == "ne")
    binaryLoop(a, aShape, b, bShape, out, outShape,
               [](T x, T y) -> uint8_t { return x != y; });
  else if (kind == "lt")
    binaryLoop(a, aShape, b, bShape, out, outShape,
               [](T x, T y) -> uint8_t { return x < y; });
  else if (kind == "le")
    binaryLoop(a, aShape, b, bShape, out, outShape,
               [](T x, T y) -> uint8_t { return x <= y; });
  else if (kind == "gt")
    binaryLoop(a, aShape, b, bShape, out, outShape,
               [](T x, T y) -> uint8_t { return x > y; });
  else if (kind == "ge")
    binaryLoop(a, aShape, b, bShape, out, outShape,
               [](T x, T y) -> uint8_t { return x >= y; });
  else
    return ctx.error("unknown comparison kind '" + kind + "'");
  return Status::success();
}

//===--- Unary ------------------------------------------------------------===//

/// Runs a numerics::VectorOps fp32 span function on any float tensor.
Status runFloatSpanOp(KernelContext &ctx,
                      void (*fn)(Span<const float>, Span<float>)) {
  const Tensor *in = ctx.input(0);
  if (!isFloatDType(in->getDType()))
    return ctx.unsupported(in->getDType());
  Tensor *out;
  if (Status s = ctx.makeOutput(0, in->getDesc(), out); !s.ok())
    return s;
  F32Input x(*in);
  F32Output y(*out);
  fn(Span<const float>(x.data(), x.size()), Span<float>(y.data(), x.size()));
  y.commit();
  return Status::success();
}

/// Applies fn elementwise in the tensor's own type (f32, f64, integers);
/// f16/bf16 go through fp32. `allowInt` selects whether integer tensors
/// are accepted.
template <typename Fn>
Status runGenericUnary(KernelContext &ctx, bool allowInt, Fn fn) {
  const Tensor *in = ctx.input(0);
  const DType dtype = in->getDType();
  Tensor *out;
  if (Status s = ctx.makeOutput(0, in->getDesc(), out); !s.ok())
    return s;
  const size_t n = static_cast<size_t>(in->getNumElements());
  auto apply = [&](auto tag) {
    using T = decltype(tag);
    const T *x = in->as<T>();
    T *y = out->mutableAs<T>();
    for (size_t i = 0; i < n; ++i)
      y[i] = fn(x[i]);
  };
  switch (dtype) {
  case DType::F32:
    apply(float{});
    return Status::success();
  case DType::F64:
    apply(double{});
    return Status::success();
  case DType::F16:
  case DType::BF16: {
    F32Input x(*in);
    F32Output y(*out);
    for (size_t i = 0; i < n; ++i)
      y[i] = fn(x[i]);
    y.commit();
    return Status::success();
  }
  default:
    break;
  }
  if (!allowInt || !visitIntDType(dtype, apply))
    return ctx.unsupported(dtype);
  return Status::success();
}

struct ReluFn {
  template <typename T> T operator()(T x) const {
    if constexpr (std::is_floating_point<T>::value)
      return std::isnan(x) ? x : (x > 0 ? x : T(0));
    else
      return x > 0 ? x : T(0);
  }
};
struct NegFn {
  template <typename T> T operator()(T x) const {
    if constexpr (std::is_floating_point<T>::value)
      return -x;
    else
      return wrapNeg(x);
  }
};
struct AbsFn {
  template <typename T> T operator()(T x) const {
    if constexpr (std::is_floating_point<T>::value)
      return std::fabs(x);
    else if constexpr (std::is_signed<T>::value)
      return x < 0 ? wrapNeg(x) : x;
    else
      return x;
  }
};

/// Round half to even independently of the floating-point rounding mode:
/// numerics::roundHalfEven (the device's definition) for fp32, the same
/// algorithm for f64 (x - floor(x) is exact for every finite value).
struct RoundFn {
  template <typename T> T operator()(T x) const {
    if constexpr (std::is_same<T, float>::value) {
      return numerics::roundHalfEven(x);
    } else if constexpr (std::is_floating_point<T>::value) {
      if (!std::isfinite(x))
        return x;
      T fl = std::floor(x), frac = x - fl;
      T r = frac > T(0.5)   ? fl + T(1)
            : frac < T(0.5) ? fl
                            : (std::fmod(fl, T(2)) == T(0) ? fl : fl + T(1));
      return r == T(0) ? std::copysign(T(0), x) : r;
    } else {
      return x; // Integers are integral already (the kernel rejects them).
    }
  }
};

/// Integer clip bounds: the real bounds rounded inward and saturated to T.
template <typename T> T clipBound(double v, bool lower) {
  double r = lower ? std::ceil(v) : std::floor(v);
  if (r <= static_cast<double>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  if (r >= static_cast<double>(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

} // namespace

#define NNACCEL_BINARY_KERNEL(name, kind)                                      \
  Status name##Kernel(KernelContext &ctx) {                                    \
    return runBinary<BinOp::kind>(ctx);                                        \
  }
Status addKernel(KernelContext &ctx) {
  // An add of quantized tensors (accel-quantize's residual adds) adds the
  // real values (HostQuantizedElementwise.cpp).
  if (ctx.op.hasAttr("output_scale"))
    return quantizedAddKernel(ctx);
  return runBinary<BinOp::Add>(ctx);
}
NNACCEL_BINARY_KERNEL(sub, Sub)
NNACCEL_BINARY_KERNEL(mul, Mul)
NNACCEL_BINARY_KERNEL(div, Div)
NNACCEL_BINARY_KERNEL(pow, Pow)
NNACCEL_BINARY_KERNEL(max, Max)
NNACCEL_BINARY_KERNEL(min, Min)
#undef NNACCEL_BINARY_KERNEL

Status compareKernel(KernelContext &ctx) {
  std::string kind;
  if (Status s = ctx.op.getString("kind", kind); !s.ok())
    return s;
  const Tensor *a, *b;
  Tensor *out;
  if (Status s = prepareBinary(ctx, DType::I1, a, b, out); !s.ok())
    return s;
  const auto &as = a->getShape(), &bs = b->getShape(), &os = out->getShape();
  uint8_t *po = out->mutableAs<uint8_t>();
  switch (a->getDType()) {
  case DType::F32:
    return compareTyped(ctx, kind, a->as<float>(), as, b->as<float>(), bs, po,
                        os);
  case DType::F64:
    return compareTyped(ctx, kind, a->as<double>(), as, b->as<double>(), bs, po,
                        os);
  case DType::F16:
  case DType::BF16: {
    F32Input fa(*a), fb(*b);
    return compareTyped(ctx, kind, fa.data(), as, fb.data(), bs, po, os);
  }
  case DType::I1:
    return compareTyped(ctx, kind, a->as<uint8_t>(), as, b->as<uint8_t>(), bs,
                        po, os);
  default:
    break;
  }
  Status status = Status::success();
  visitIntDType(a->getDType(), [&](auto tag) {
    using T = decltype(tag);
    status = compareTyped(ctx, kind, a->as<T>(), as, b->as<T>(), bs, po, os);
  });
  return status;
}

Status whereKernel(KernelContext &ctx) {
  const Tensor *cond = ctx.input(0), *x = ctx.input(1), *y = ctx.input(2);
  if (cond->getDType() != DType::I1)
    return ctx.error(std::string("condition must be i1, got ") +
                     getDTypeName(cond->getDType()));
  if (x->getDType() != y->getDType())
    return ctx.error(std::string("on_true and on_false element types "
                                 "differ: ") +
                     getDTypeName(x->getDType()) + " vs " +
                     getDTypeName(y->getDType()));
  std::vector<int64_t> shape, shape2;
  if (!broadcastShapes(cond->getShape(), x->getShape(), shape) ||
      !broadcastShapes(shape, y->getShape(), shape2))
    return ctx.error("operand shapes [" + formatShape(cond->getShape()) +
                     "], [" + formatShape(x->getShape()) + "] and [" +
                     formatShape(y->getShape()) + "] do not broadcast");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(x->getDType(), shape2), out);
      !s.ok())
    return s;
  std::array<std::vector<int64_t>, 3> strides = {
      broadcastStrides(cond->getShape(), shape2),
      broadcastStrides(x->getShape(), shape2),
      broadcastStrides(y->getShape(), shape2)};
  const uint8_t *c = cond->as<uint8_t>();
  visitElementBits(getDTypeSize(x->getDType()), [&](auto tag) {
    using U = decltype(tag);
    const U *px = x->as<U>(), *py = y->as<U>();
    U *po = out->mutableAs<U>();
    forEachBroadcastRun<3>(shape2, strides,
                           [&](int64_t o, const std::array<int64_t, 3> &off,
                               int64_t n, const std::array<int64_t, 3> &st) {
                             for (int64_t i = 0; i < n; ++i)
                               po[o + i] = c[off[0] + i * st[0]]
                                               ? px[off[1] + i * st[1]]
                                               : py[off[2] + i * st[2]];
                           });
  });
  return Status::success();
}

Status sqrtKernel(KernelContext &ctx) {
  return runFloatSpanOp(ctx, numerics::sqrtF32);
}
Status expKernel(KernelContext &ctx) {
  return runFloatSpanOp(ctx, numerics::expF32);
}
Status erfKernel(KernelContext &ctx) {
  return runFloatSpanOp(ctx, numerics::erfF32);
}
Status tanhKernel(KernelContext &ctx) {
  return runFloatSpanOp(ctx, numerics::tanhF32);
}
Status sigmoidKernel(KernelContext &ctx) {
  return runFloatSpanOp(ctx, numerics::sigmoidF32);
}

Status geluKernel(KernelContext &ctx) {
  std::string approx;
  if (Status s = ctx.op.getStringOr("approximate", "none", approx); !s.ok())
    return s;
  if (approx == "none")
    return runFloatSpanOp(ctx, numerics::geluErfF32);
  if (approx == "tanh")
    return runFloatSpanOp(ctx, numerics::geluTanhF32);
  return ctx.error("unknown gelu approximation '" + approx + "'");
}

Status reluKernel(KernelContext &ctx) {
  return runGenericUnary(ctx, /*allowInt=*/true, ReluFn());
}
Status negKernel(KernelContext &ctx) {
  return runGenericUnary(ctx, /*allowInt=*/true, NegFn());
}
Status absKernel(KernelContext &ctx) {
  return runGenericUnary(ctx, /*allowInt=*/true, AbsFn());
}

Status roundKernel(KernelContext &ctx) {
  if (!isFloatDType(ctx.input(0)->getDType()))
    return ctx.unsupported(ctx.input(0)->getDType());
  return runGenericUnary(ctx, /*allowInt=*/false, RoundFn());
}

Status clipKernel(KernelContext &ctx) {
  double lo = -INFINITY, hi = INFINITY;
  if (Status s = ctx.op.getFloatOr("min", lo, lo); !s.ok())
    return s;
  if (Status s = ctx.op.getFloatOr("max", hi, hi); !s.ok())
    return s;
  // The bounds are f32 attributes: round them as the device sees them.
  const float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
  if (!(flo <= fhi))
    return ctx.error("min must not exceed max");
  const DType dtype = ctx.input(0)->getDType();
  if (isFloatDType(dtype))
    return runGenericUnary(ctx, false, [&](auto x) {
      using T = decltype(x);
      return minValue(maxValue(x, static_cast<T>(flo)), static_cast<T>(fhi));
    });
  return runGenericUnary(ctx, true, [&](auto x) {
    using T = decltype(x);
    const T l = clipBound<T>(flo, true), h = clipBound<T>(fhi, false);
    return x < l ? l : (x > h ? h : x);
  });
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
