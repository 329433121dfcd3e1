//===- HostMath.cpp - math functions, mod, einsum, resize, conv_transpose -===//
//
// Host kernels of ops without a device definition: the transcendental and
// rounding functions (log sin cos tan asin acos atan sinh cosh asinh acosh
// atanh ceil floor), mod, einsum, resize and conv_transpose. They compute
// in double (HostValues.h) and round once to the element type, as the
// ONNX reference (numpy) effectively does for float32 data.
//
//===----------------------------------------------------------------------===//

#include "HostValues.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace nnaccel {
namespace runtime {
namespace detail {

std::vector<double> readReal(const Tensor &t) {
  const size_t n = static_cast<size_t>(t.getNumElements());
  std::vector<double> values(n);
  if (t.getDType() == DType::F64) {
    std::copy_n(t.as<double>(), n, values.begin());
    return values;
  }
  F32Input f(t);
  for (size_t i = 0; i < n; ++i)
    values[i] = f[i];
  return values;
}

void writeValues(const std::vector<double> &values, Tensor &t) {
  if (t.getDType() == DType::F64) {
    std::copy(values.begin(), values.end(), t.mutableAs<double>());
    return;
  }
  std::vector<float> f(values.begin(), values.end());
  storeF32(f.data(), f.size(), t.getDType(), t.mutableData());
}

void writeValues(const std::vector<int64_t> &values, Tensor &t) {
  visitIntDType(t.getDType(), [&](auto tag) {
    using T = decltype(tag);
    T *p = t.mutableAs<T>();
    for (size_t i = 0; i < values.size(); ++i)
      p[i] = static_cast<T>(static_cast<uint64_t>(values[i]));
  });
}

namespace {
double applyMath(const std::string &kind, double x) {
  static const std::map<std::string, double (*)(double)> kFunctions = {
      {"accel.log", [](double v) { return std::log(v); }},
      {"accel.sin", [](double v) { return std::sin(v); }},
      {"accel.cos", [](double v) { return std::cos(v); }},
      {"accel.tan", [](double v) { return std::tan(v); }},
      {"accel.asin", [](double v) { return std::asin(v); }},
      {"accel.acos", [](double v) { return std::acos(v); }},
      {"accel.atan", [](double v) { return std::atan(v); }},
      {"accel.sinh", [](double v) { return std::sinh(v); }},
      {"accel.cosh", [](double v) { return std::cosh(v); }},
      {"accel.asinh", [](double v) { return std::asinh(v); }},
      {"accel.acosh", [](double v) { return std::acosh(v); }},
      {"accel.atanh", [](double v) { return std::atanh(v); }},
      {"accel.ceil", [](double v) { return std::ceil(v); }},
      {"accel.floor", [](double v) { return std::floor(v); }},
  };
  auto it = kFunctions.find(kind);
  return it == kFunctions.end() ? NAN : it->second(x);
}

/// Broadcast binary walk over two value vectors.
template <typename V, typename Fn>
void broadcastBinary(const std::vector<V> &a,
                     const std::vector<int64_t> &aShape,
                     const std::vector<V> &b,
                     const std::vector<int64_t> &bShape, std::vector<V> &out,
                     const std::vector<int64_t> &outShape, Fn fn) {
  std::array<std::vector<int64_t>, 2> strides = {
      broadcastStrides(aShape, outShape), broadcastStrides(bShape, outShape)};
  forEachBroadcastRun<2>(outShape, strides,
                         [&](int64_t o, const std::array<int64_t, 2> &off,
                             int64_t n, const std::array<int64_t, 2> &step) {
                           for (int64_t i = 0; i < n; ++i)
                             out[static_cast<size_t>(o + i)] = fn(
                                 a[static_cast<size_t>(off[0] + i * step[0])],
                                 b[static_cast<size_t>(off[1] + i * step[1])]);
                         });
}

/// Einsum terms: labels of each operand and of the output.
struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

bool parseEinsum(const std::string &equation, EinsumSpec &spec) {
  size_t arrow = equation.find("->");
  if (arrow == std::string::npos)
    return false;
  std::string lhs = equation.substr(0, arrow);
  spec.output = equation.substr(arrow + 2);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    spec.inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return true;
}

//===--- Resize (the ONNX reference's interpolate_nd) ---------------------===//

struct ResizeParams {
  std::string mode, transform, nearestMode;
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
  std::vector<double> scales, roi;
};

/// Interpolation weights of the neighbours of x_ori: `base` is the first
/// neighbour; ratio in (0, 1] (the pixel left of x_ori is preferred).
std::vector<double> resizeCoeffs(const ResizeParams &p, double ratio) {
  if (p.mode == "nearest") {
    if (ratio == 1.0)
      return {0, 1};
    const std::string &m = p.nearestMode;
    if (m == "round_prefer_ceil")
      return {ratio < 0.5 ? 1.0 : 0.0, ratio < 0.5 ? 0.0 : 1.0};
    if (m == "floor")
      return {1, 0};
    if (m == "ceil")
      return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio <= 0.5 ? 0.0 : 1.0};
  }
  if (p.mode == "linear")
    return {1 - ratio, ratio};
  const double a = p.cubicA;
  auto outer = [&](double t) {
    return ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  };
  auto inner = [&](double t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };
  return {outer(ratio), inner(ratio), inner(1 - ratio), outer(1 - ratio)};
}

class Resizer {
public:
  Resizer(const ResizeParams &p, const std::vector<double> &data,
          const std::vector<int64_t> &inShape,
          const std::vector<int64_t> &outShape)
      : p(p), data(data), inShape(inShape), outShape(outShape),
        strides(contiguousStrides(inShape)) {}

  /// Interpolated value at output coordinates `pos` from dimension `d` on,
  /// with the leading dimensions fixed at input offset `offset`.
  double at(const std::vector<int64_t> &pos, size_t d, int64_t offset) const {
    if (d == inShape.size())
      return data[static_cast<size_t>(offset)];
    const int64_t width = inShape[d];
    const double scale = p.scales[d];
    const double x = static_cast<double>(pos[d]);
    const double outWidth = scale * static_cast<double>(width);
    double ori;
    const std::string &t = p.transform;
    if (t == "align_corners") {
      ori = outWidth == 1 ? 0 : x * (width - 1) / (outWidth - 1);
    } else if (t == "asymmetric") {
      ori = x / scale;
    } else if (t == "tf_crop_and_resize") {
      const size_t rank = inShape.size();
      double start = p.roi[d], end = p.roi[d + rank];
      ori = outWidth == 1 ? (end - start) * (width - 1) / 2
                          : x * (end - start) * (width - 1) / (outWidth - 1);
      ori += start * (width - 1);
      if (ori < 0 || ori > width - 1)
        return p.extrapolation;
    } else if (t == "tf_half_pixel_for_nn") {
      ori = (x + 0.5) / scale;
    } else if (t == "pytorch_half_pixel") {
      ori = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (t == "half_pixel_symmetric") {
      double adjustment = static_cast<double>(outShape[d]) / outWidth;
      double center = static_cast<double>(width) / 2;
      double offsetSym = center * (1 - adjustment);
      ori = offsetSym + (x + 0.5) / scale - 0.5;
    } else {
      ori = (x + 0.5) / scale - 0.5;
    }
    double floorOri = std::floor(ori);
    double ratio = ori == floorOri ? 1.0 : ori - floorOri;
    int64_t base =
        static_cast<int64_t>(ori == floorOri ? floorOri - 1 : floorOri);
    std::vector<double> coeffs = resizeCoeffs(p, ratio);
    const int64_t n = static_cast<int64_t>(coeffs.size());
    // Neighbours: base, base + 1 (n = 2); base - 1 .. base + 2 (n = 4).
    const int64_t first = n == 2 ? base : base - 1;
    if (p.excludeOutside) {
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        int64_t idx = first + j;
        if (idx < 0 || idx >= width)
          coeffs[static_cast<size_t>(j)] = 0;
        sum += coeffs[static_cast<size_t>(j)];
      }
      if (sum != 0)
        for (double &c : coeffs)
          c /= sum;
    }
    double value = 0;
    for (int64_t j = 0; j < n; ++j) {
      double c = coeffs[static_cast<size_t>(j)];
      if (c == 0)
        continue;
      // Out-of-range neighbours read the edge (the reference pads with
      // edge values).
      int64_t idx = std::clamp<int64_t>(first + j, 0, width - 1);
      value += c * at(pos, d + 1, offset + idx * strides[d]);
    }
    return value;
  }

private:
  const ResizeParams &p;
  const std::vector<double> &data;
  const std::vector<int64_t> &inShape, &outShape;
  std::vector<int64_t> strides;
};
} // namespace

Status mathKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  if (!isFloatDType(in->getDType()))
    return ctx.unsupported(in->getDType());
  Tensor *out;
  if (Status s = ctx.makeOutput(0, in->getDesc(), out); !s.ok())
    return s;
  std::vector<double> values = readReal(*in);
  for (double &v : values)
    v = applyMath(ctx.op.kind, v);
  writeValues(values, *out);
  return Status::success();
}

Status modKernel(KernelContext &ctx) {
  const Tensor *a = ctx.input(0), *b = ctx.input(1);
  if (a->getDType() != b->getDType())
    return ctx.error("operand element types differ");
  int64_t fmod;
  if (Status s = ctx.op.getIntOr("fmod", 0, fmod); !s.ok())
    return s;
  std::vector<int64_t> shape;
  if (!broadcastShapes(a->getShape(), b->getShape(), shape))
    return ctx.error("operand shapes do not broadcast");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(a->getDType(), shape), out);
      !s.ok())
    return s;
  std::vector<int64_t> outShape = out->getShape();
  if (isFloatDType(a->getDType())) {
    if (!fmod)
      return ctx.error("a float remainder needs fmod");
    std::vector<double> result(static_cast<size_t>(out->getNumElements()));
    broadcastBinary(readReal(*a), a->getShape(), readReal(*b), b->getShape(),
                    result, outShape,
                    [](double x, double y) { return std::fmod(x, y); });
    writeValues(result, *out);
    return Status::success();
  }
  if (!isIntegerDType(a->getDType()))
    return ctx.unsupported(a->getDType());
  std::vector<int64_t> divisors = readIndexTensor(*b);
  for (int64_t d : divisors)
    if (d == 0)
      return ctx.error("integer remainder by zero");
  std::vector<int64_t> result(static_cast<size_t>(out->getNumElements()));
  broadcastBinary(readIndexTensor(*a), a->getShape(), divisors, b->getShape(),
                  result, outShape, [&](int64_t x, int64_t y) -> int64_t {
                    if (y == -1)
                      return 0;
                    int64_t r = x % y;
                    if (!fmod && r != 0 && ((r < 0) != (y < 0)))
                      r += y;
                    return r;
                  });
  writeValues(result, *out);
  return Status::success();
}

Status einsumKernel(KernelContext &ctx) {
  std::string equation;
  if (Status s = ctx.op.getString("equation", equation); !s.ok())
    return s;
  EinsumSpec spec;
  if (!parseEinsum(equation, spec) || spec.inputs.size() != ctx.inputs.size())
    return ctx.error("bad equation '" + equation + "'");
  DType dtype = ctx.input(0)->getDType();
  std::map<char, int64_t> dims;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    const Tensor *t = ctx.input(i);
    if (t->getDType() != dtype ||
        static_cast<int64_t>(spec.inputs[i].size()) != t->getRank())
      return ctx.error("operand " + std::to_string(i) +
                       " does not match the equation");
    for (size_t d = 0; d < spec.inputs[i].size(); ++d) {
      auto [it, inserted] = dims.emplace(spec.inputs[i][d], t->getShape()[d]);
      if (!inserted && it->second != t->getShape()[d])
        return ctx.error("label sizes differ");
    }
  }
  std::string labels = spec.output;
  for (auto &[label, size] : dims)
    if (spec.output.find(label) == std::string::npos)
      labels += label;
  std::vector<int64_t> outShape;
  for (char label : spec.output) {
    if (!dims.count(label))
      return ctx.error("bad output label");
    outShape.push_back(dims[label]);
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, outShape), out); !s.ok())
    return s;
  // For every operand, the stride of each label in `labels` (repeated
  // labels, a diagonal, add their strides).
  std::vector<std::vector<int64_t>> labelStrides;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    std::vector<int64_t> st = contiguousStrides(ctx.input(i)->getShape());
    std::vector<int64_t> ls(labels.size(), 0);
    for (size_t d = 0; d < spec.inputs[i].size(); ++d)
      ls[labels.find(spec.inputs[i][d])] += st[d];
    labelStrides.push_back(ls);
  }
  std::vector<int64_t> sizes;
  for (char label : labels)
    sizes.push_back(dims[label]);
  const size_t numOut = spec.output.size();
  const int64_t outCount = product(outShape, 0, outShape.size());
  const int64_t sumCount = product(sizes, numOut, sizes.size());
  auto run = [&](auto operands) {
    using V = typename decltype(operands)::value_type::value_type;
    std::vector<V> result(static_cast<size_t>(outCount), V(0));
    std::vector<int64_t> pos(labels.size(), 0);
    for (int64_t o = 0; o < outCount; ++o) {
      int64_t rest = o;
      for (size_t d = numOut; d-- > 0;) {
        pos[d] = rest % sizes[d];
        rest /= sizes[d];
      }
      V sum = 0;
      for (int64_t s = 0; s < sumCount; ++s) {
        int64_t r = s;
        for (size_t d = labels.size(); d-- > numOut;) {
          pos[d] = r % sizes[d];
          r /= sizes[d];
        }
        V term = 1;
        for (size_t i = 0; i < operands.size(); ++i) {
          int64_t at = 0;
          for (size_t d = 0; d < labels.size(); ++d)
            at += pos[d] * labelStrides[i][d];
          term = term * operands[i][static_cast<size_t>(at)];
        }
        sum = sum + term;
      }
      result[static_cast<size_t>(o)] = sum;
    }
    writeValues(result, *out);
  };
  if (isFloatDType(dtype)) {
    std::vector<std::vector<double>> operands;
    for (size_t i = 0; i < ctx.inputs.size(); ++i)
      operands.push_back(readReal(*ctx.input(i)));
    run(operands);
  } else if (isIntegerDType(dtype)) {
    std::vector<std::vector<int64_t>> operands;
    for (size_t i = 0; i < ctx.inputs.size(); ++i)
      operands.push_back(readIndexTensor(*ctx.input(i)));
    run(operands);
  } else {
    return ctx.unsupported(dtype);
  }
  return Status::success();
}

Status resizeKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  if (!isFloatDType(in->getDType()))
    return ctx.unsupported(in->getDType());
  if (ctx.outputDescs[0].dtype != in->getDType() ||
      ctx.outputDescs[0].getRank() != in->getRank())
    return ctx.error("the result must have the input's type and rank");
  ResizeParams p;
  int64_t exclude;
  double a, extrapolation;
  if (Status s = ctx.op.getString("mode", p.mode); !s.ok())
    return s;
  if (Status s = ctx.op.getFloats("scales", p.scales); !s.ok())
    return s;
  if (Status s = ctx.op.getStringOr("coordinate_transformation_mode",
                                    "half_pixel", p.transform);
      !s.ok())
    return s;
  if (Status s = ctx.op.getStringOr("nearest_mode", "round_prefer_floor",
                                    p.nearestMode);
      !s.ok())
    return s;
  if (Status s = ctx.op.getFloatOr("cubic_coeff_a", -0.75, a); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("exclude_outside", 0, exclude); !s.ok())
    return s;
  if (Status s = ctx.op.getFloatOr("extrapolation_value", 0, extrapolation);
      !s.ok())
    return s;
  if (ctx.op.hasAttr("roi"))
    if (Status s = ctx.op.getFloats("roi", p.roi); !s.ok())
      return s;
  p.cubicA = a;
  p.excludeOutside = exclude != 0;
  p.extrapolation = extrapolation;
  const size_t rank = static_cast<size_t>(in->getRank());
  if (p.scales.size() != rank ||
      (p.transform == "tf_crop_and_resize" && p.roi.size() != 2 * rank))
    return ctx.error("scales (and roi) do not match the rank");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, ctx.outputDescs[0], out); !s.ok())
    return s;
  const std::vector<double> data = readReal(*in);
  const std::vector<int64_t> &outShape = out->getShape();
  std::vector<double> result(static_cast<size_t>(out->getNumElements()));
  Resizer resizer(p, data, in->getShape(), outShape);
  std::vector<int64_t> pos(rank, 0);
  for (size_t o = 0; o < result.size(); ++o) {
    size_t rest = o;
    for (size_t d = rank; d-- > 0;) {
      pos[d] = static_cast<int64_t>(rest % static_cast<size_t>(outShape[d]));
      rest /= static_cast<size_t>(outShape[d]);
    }
    result[o] = resizer.at(pos, 0, 0);
  }
  writeValues(result, *out);
  return Status::success();
}

Status convTransposeKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  if (!isFloatDType(x->getDType()) || w->getDType() != x->getDType())
    return ctx.unsupported(x->getDType());
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
  const TensorDesc &outDesc = ctx.outputDescs[0];
  const size_t k = static_cast<size_t>(x->getRank()) - 2;
  if (x->getRank() < 3 || w->getRank() != x->getRank() ||
      outDesc.getRank() != x->getRank() || strides.size() != k ||
      dilations.size() != k || pads.size() != 2 * k || groups < 1)
    return ctx.error("operands and attributes do not match");
  const auto &xs = x->getShape(), &ws = w->getShape();
  const auto &os = outDesc.shape;
  const int64_t batch = xs[0], channels = xs[1];
  const int64_t perGroupIn = channels / groups, perGroupOut = ws[1];
  if (ws[0] != channels || os[1] != perGroupOut * groups || os[0] != batch)
    return ctx.error("channel counts do not match");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(x->getDType(), os), out); !s.ok())
    return s;
  const std::vector<double> xv = readReal(*x), wv = readReal(*w);
  std::vector<double> result(static_cast<size_t>(out->getNumElements()), 0.0);
  const std::vector<int64_t> inSpatial(xs.begin() + 2, xs.end()),
      kernel(ws.begin() + 2, ws.end()), outSpatial(os.begin() + 2, os.end());
  const int64_t inCount = product(inSpatial, 0, k),
                kernelCount = product(kernel, 0, k),
                outCount = product(outSpatial, 0, k);
  std::vector<int64_t> ip(k), kp(k);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t g = c / perGroupIn;
      for (int64_t i = 0; i < inCount; ++i) {
        int64_t rest = i;
        for (size_t d = k; d-- > 0;) {
          ip[d] = rest % inSpatial[d];
          rest /= inSpatial[d];
        }
        const double xval =
            xv[static_cast<size_t>((n * channels + c) * inCount + i)];
        for (int64_t kk = 0; kk < kernelCount; ++kk) {
          int64_t r = kk, at = 0;
          bool inside = true;
          for (size_t d = k; d-- > 0;) {
            kp[d] = r % kernel[d];
            r /= kernel[d];
          }
          for (size_t d = 0; d < k && inside; ++d) {
            int64_t o = ip[d] * strides[d] - pads[d] + kp[d] * dilations[d];
            inside = o >= 0 && o < outSpatial[d];
            at = at * outSpatial[d] + o;
          }
          if (!inside)
            continue;
          for (int64_t m = 0; m < perGroupOut; ++m) {
            const int64_t oc = g * perGroupOut + m;
            result[static_cast<size_t>((n * os[1] + oc) * outCount + at)] +=
                xval * wv[static_cast<size_t>(
                           (c * perGroupOut + m) * kernelCount + kk)];
          }
        }
      }
    }
  if (bias) {
    const std::vector<double> bv = readReal(*bias);
    if (static_cast<int64_t>(bv.size()) != os[1])
      return ctx.error("bias needs one value per output channel");
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t oc = 0; oc < os[1]; ++oc)
        for (int64_t o = 0; o < outCount; ++o)
          result[static_cast<size_t>((n * os[1] + oc) * outCount + o)] +=
              bv[static_cast<size_t>(oc)];
  }
  writeValues(result, *out);
  return Status::success();
}

namespace {
/// PyTorch's grid_sample coordinate rules (grid_sampler_compute_source_index
/// and its padding helpers).
struct GridSampler {
  bool alignCorners;
  std::string padding;

  double unnormalize(double g, int64_t size) const {
    return alignCorners ? (g + 1) / 2 * double(size - 1)
                        : ((g + 1) * double(size) - 1) / 2;
  }
  static double reflect(double x, double twiceLow, double twiceHigh) {
    if (twiceLow == twiceHigh)
      return 0;
    double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    x = std::fabs(x - low);
    double extra = std::fmod(x, span);
    int64_t flips = int64_t(std::floor(x / span));
    return flips % 2 == 0 ? extra + low : span - extra + low;
  }
  double pad(double x, int64_t size) const {
    if (padding == "border")
      return std::clamp(x, 0.0, double(size - 1));
    if (padding == "reflection") {
      x = alignCorners ? reflect(x, 0, 2.0 * double(size - 1))
                       : reflect(x, -1, 2.0 * double(size) - 1);
      return std::clamp(x, 0.0, double(size - 1));
    }
    return x;
  }
};

double cubicWeight(double t, int which) {
  const double a = -0.75;
  auto outer = [&](double x) {
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  };
  auto inner = [&](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  switch (which) {
  case 0:
    return outer(t + 1);
  case 1:
    return inner(t);
  case 2:
    return inner(1 - t);
  default:
    return outer(2 - t);
  }
}
} // namespace

Status gridSampleKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *grid = ctx.input(1);
  if (!isFloatDType(x->getDType()) || grid->getDType() != x->getDType())
    return ctx.unsupported(x->getDType());
  std::string mode;
  int64_t align;
  GridSampler sampler;
  if (Status s = ctx.op.getStringOr("mode", "bilinear", mode); !s.ok())
    return s;
  if (Status s = ctx.op.getStringOr("padding_mode", "zeros", sampler.padding);
      !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("align_corners", 0, align); !s.ok())
    return s;
  sampler.alignCorners = align != 0;
  const auto &xs = x->getShape(), &gs = grid->getShape();
  if (xs.size() != 4 || gs.size() != 4 || gs[3] != 2 || gs[0] != xs[0])
    return ctx.error("expects N x C x H x W input and N x Ho x Wo x 2 grid");
  const int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3], ho = gs[1],
                wo = gs[2];
  Tensor *out;
  if (Status s =
          ctx.makeOutput(0, TensorDesc(x->getDType(), {n, c, ho, wo}), out);
      !s.ok())
    return s;
  const std::vector<double> xv = readReal(*x), gv = readReal(*grid);
  std::vector<double> result(static_cast<size_t>(out->getNumElements()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const double *plane = xv.data() + (b * c + ch) * h * w;
      // Pixel (iy, ix) or 0 outside the image.
      auto at = [&](int64_t iy, int64_t ix) {
        return iy < 0 || iy >= h || ix < 0 || ix >= w ? 0.0
                                                      : plane[iy * w + ix];
      };
      for (int64_t oy = 0; oy < ho; ++oy)
        for (int64_t ox = 0; ox < wo; ++ox) {
          const double *g = gv.data() + ((b * ho + oy) * wo + ox) * 2;
          double fx = sampler.unnormalize(g[0], w);
          double fy = sampler.unnormalize(g[1], h);
          double value = 0;
          if (mode == "bicubic") {
            double x0 = std::floor(fx), y0 = std::floor(fy);
            double tx = fx - x0, ty = fy - y0;
            for (int j = 0; j < 4; ++j) {
              double row = 0;
              for (int i = 0; i < 4; ++i) {
                double sx = sampler.pad(x0 - 1 + i, w);
                double sy = sampler.pad(y0 - 1 + j, h);
                row += cubicWeight(tx, i) *
                       at(int64_t(std::floor(sy)), int64_t(std::floor(sx)));
              }
              value += cubicWeight(ty, j) * row;
            }
          } else {
            fx = sampler.pad(fx, w);
            fy = sampler.pad(fy, h);
            if (mode == "nearest") {
              value =
                  at(int64_t(std::nearbyint(fy)), int64_t(std::nearbyint(fx)));
            } else {
              double x0 = std::floor(fx), y0 = std::floor(fy);
              double tx = fx - x0, ty = fy - y0;
              int64_t ix = int64_t(x0), iy = int64_t(y0);
              value = at(iy, ix) * (1 - tx) * (1 - ty) +
                      at(iy, ix + 1) * tx * (1 - ty) +
                      at(iy + 1, ix) * (1 - tx) * ty +
                      at(iy + 1, ix + 1) * tx * ty;
            }
          }
          result[static_cast<size_t>(((b * c + ch) * ho + oy) * wo + ox)] =
              value;
        }
    }
  writeValues(result, *out);
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
