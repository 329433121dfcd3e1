//===- SpatialConverters.cpp - Resize, ConvTranspose, Einsum, ... ---------===//
//
// Resize and Upsample (constant scales or sizes) become accel.resize with
// the per-dimension scales the ONNX reference interpolates with;
// ConvTranspose becomes accel.conv_transpose with auto_pad, output_padding
// and output_shape resolved into pads and the result shape; Einsum becomes
// accel.einsum; DepthToSpace and SpaceToDepth are reshape - transpose -
// reshape.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
/// An optional constant input as doubles; empty when omitted or empty.
FailureOr<SmallVector<double>>
getOptionalValues(NodeContext &ctx, int64_t index, StringRef what) {
  if (!ctx.hasInput(index))
    return SmallVector<double>();
  return ctx.getConstantValues(index, what);
}

/// Resize (opsets 10 to 18) and Upsample (7, 9).
LogicalResult convertResize(NodeContext &ctx, bool upsample) {
  RankedTensorType type = ctx.getInputType(0);
  if (!isa<FloatType>(type.getElementType()))
    return ctx.emitError() << "expects a floating point input";
  int64_t rank = type.getRank();
  int64_t opset = ctx.getOpset();
  bool legacy = upsample || opset < 11;
  SmallVector<double> roi, scales, sizes;
  if (upsample && opset < 9) {
    if (auto given = ctx.getFloatsAttr("scales"))
      scales.assign(given->begin(), given->end());
  } else if (legacy) {
    FailureOr<SmallVector<double>> given = ctx.getConstantValues(1, "scales");
    if (failed(given))
      return failure();
    scales = *given;
  } else {
    FailureOr<SmallVector<double>> r = getOptionalValues(ctx, 1, "roi");
    FailureOr<SmallVector<double>> s = getOptionalValues(ctx, 2, "scales");
    FailureOr<SmallVector<double>> z = getOptionalValues(ctx, 3, "sizes");
    if (failed(r) || failed(s) || failed(z))
      return failure();
    roi = *r, scales = *s, sizes = *z;
  }
  if (ctx.getIntAttr("antialias", 0))
    return ctx.emitError() << "antialias is not supported";
  // Opset 18: scales/sizes/roi may name a subset of the axes.
  SmallVector<int64_t> axes;
  if (auto given = ctx.getIntsAttr("axes")) {
    for (int64_t axis : *given) {
      FailureOr<int64_t> normalized = normalizeAxis(ctx, axis, rank);
      if (failed(normalized))
        return failure();
      axes.push_back(*normalized);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  int64_t n = axes.size();
  auto expand = [&](ArrayRef<double> given, double fill) {
    SmallVector<double> full(rank, fill);
    for (int64_t i = 0; i < n; ++i)
      full[axes[i]] = given[i];
    return full;
  };
  SmallVector<double> fullScales;
  SmallVector<int64_t> outShape(type.getShape());
  if (!sizes.empty()) {
    if (int64_t(sizes.size()) != n)
      return ctx.emitError() << "sizes needs " << n << " values";
    SmallVector<double> full = expand(sizes, 0);
    for (int64_t i = 0; i < rank; ++i)
      if (!llvm::is_contained(axes, i))
        full[i] = type.getDimSize(i);
    std::string policy =
        ctx.getStringAttr("keep_aspect_ratio_policy", "stretch");
    fullScales.assign(rank, 1.0);
    if (policy == "stretch") {
      for (int64_t i = 0; i < rank; ++i) {
        fullScales[i] = full[i] / double(type.getDimSize(i));
        outShape[i] = int64_t(full[i]);
      }
    } else if (policy == "not_larger" || policy == "not_smaller") {
      double scale = policy == "not_larger" ? INFINITY : 0;
      for (int64_t axis : axes) {
        double s = full[axis] / double(type.getDimSize(axis));
        scale =
            policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
      }
      for (int64_t axis : axes) {
        fullScales[axis] = scale;
        outShape[axis] =
            int64_t(std::floor(scale * double(type.getDimSize(axis)) + 0.5));
      }
    } else {
      return ctx.emitError()
             << "unknown keep_aspect_ratio_policy '" << policy << "'";
    }
  } else {
    if (int64_t(scales.size()) != n)
      return ctx.emitError()
             << "needs constant scales (" << n << " values) or sizes";
    fullScales = expand(scales, 1.0);
    for (int64_t i = 0; i < rank; ++i) {
      if (fullScales[i] <= 0)
        return ctx.emitError() << "scales must be positive";
      // float32 scales times the size, truncated, as the reference does.
      double size = double(float(fullScales[i])) * double(type.getDimSize(i));
      if (!(size < double(int64_t(1) << 40)))
        return ctx.emitError() << "scale " << fullScales[i] << " makes axis "
                               << i << " " << size << " elements long";
      outShape[i] = int64_t(size);
    }
  }
  std::string mode = ctx.getStringAttr("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return ctx.emitError() << "unknown mode '" << mode << "'";
  std::string transform =
      legacy
          ? "asymmetric"
          : ctx.getStringAttr("coordinate_transformation_mode", "half_pixel");
  static const char *const kTransforms[] = {
      "half_pixel",          "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners",       "asymmetric",           "tf_crop_and_resize",
      "tf_half_pixel_for_nn"};
  if (!llvm::is_contained(kTransforms, transform))
    return ctx.emitError() << "unknown coordinate_transformation_mode '"
                           << transform << "'";
  OpBuilder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> attrs{
      ctx.named("mode", b.getStringAttr(mode)),
      ctx.named("scales", b.getDenseF64ArrayAttr(fullScales)),
      ctx.named("coordinate_transformation_mode", b.getStringAttr(transform)),
      ctx.named("nearest_mode",
                b.getStringAttr(legacy
                                    ? "floor"
                                    : ctx.getStringAttr("nearest_mode",
                                                        "round_prefer_floor"))),
      ctx.named("cubic_coeff_a",
                b.getF32FloatAttr(ctx.getFloatAttr("cubic_coeff_a", -0.75f))),
      ctx.named("extrapolation_value",
                b.getF32FloatAttr(ctx.getFloatAttr("extrapolation_value", 0)))};
  if (ctx.getIntAttr("exclude_outside", 0))
    attrs.push_back(ctx.named("exclude_outside", b.getUnitAttr()));
  if (transform == "tf_crop_and_resize") {
    if (int64_t(roi.size()) != 2 * n)
      return ctx.emitError() << "tf_crop_and_resize needs a constant roi of "
                             << 2 * n << " values";
    SmallVector<double> fullRoi(2 * rank);
    for (int64_t i = 0; i < rank; ++i)
      fullRoi[i] = 0, fullRoi[i + rank] = 1;
    for (int64_t i = 0; i < n; ++i) {
      fullRoi[axes[i]] = roi[i];
      fullRoi[axes[i] + rank] = roi[i + n];
    }
    attrs.push_back(ctx.named("roi", b.getDenseF64ArrayAttr(fullRoi)));
  }
  OperationState state(ctx.getLoc(), ResizeOp::getOperationName());
  state.addOperands(ctx.getInput(0));
  state.addAttributes(attrs);
  state.addTypes(type.clone(outShape));
  ctx.setOutput(0, b.create(state)->getResult(0));
  return success();
}

LogicalResult convertConvTranspose(NodeContext &ctx) {
  RankedTensorType input = ctx.getInputType(0), weight = ctx.getInputType(1);
  int64_t k = input.getRank() - 2;
  if (k < 1 || weight.getRank() != input.getRank())
    return ctx.emitError() << "expects N x C x D... input and matching weight";
  if (!isa<FloatType>(input.getElementType()))
    return ctx.emitError() << "expects floating point operands";
  SmallVector<int64_t> kernel(weight.getShape().drop_front(2));
  if (auto given = ctx.getIntsAttr("kernel_shape"))
    if (ArrayRef<int64_t>(*given) != ArrayRef<int64_t>(kernel))
      return ctx.emitError() << "kernel_shape differs from the weight shape";
  auto strides =
      ctx.getIntsAttr("strides").value_or(SmallVector<int64_t>(k, 1));
  auto dilations =
      ctx.getIntsAttr("dilations").value_or(SmallVector<int64_t>(k, 1));
  auto pads = ctx.getIntsAttr("pads").value_or(SmallVector<int64_t>(2 * k, 0));
  auto outputPadding =
      ctx.getIntsAttr("output_padding").value_or(SmallVector<int64_t>(k, 0));
  if (int64_t(strides.size()) != k || int64_t(dilations.size()) != k ||
      int64_t(pads.size()) != 2 * k || int64_t(outputPadding.size()) != k)
    return ctx.emitError() << "strides/dilations/pads/output_padding do not "
                              "match the "
                           << k << " spatial dimensions";
  std::string autoPad = ctx.getStringAttr("auto_pad", "NOTSET");
  std::optional<SmallVector<int64_t>> outputShape =
      ctx.getIntsAttr("output_shape");
  if (outputShape && int64_t(outputShape->size()) == k + 2)
    outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
  if (outputShape && int64_t(outputShape->size()) != k)
    return ctx.emitError() << "output_shape needs " << k << " values";
  if (!outputShape && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")) {
    outputShape.emplace();
    for (int64_t i = 0; i < k; ++i)
      outputShape->push_back(input.getDimSize(i + 2) * strides[i]);
  }
  if (autoPad == "VALID")
    std::fill(pads.begin(), pads.end(), 0);
  SmallVector<int64_t> shape{input.getDimSize(0),
                             weight.getDimSize(1) * ctx.getIntAttr("group", 1)};
  for (int64_t i = 0; i < k; ++i) {
    int64_t full = strides[i] * (input.getDimSize(i + 2) - 1) +
                   outputPadding[i] + (kernel[i] - 1) * dilations[i] + 1;
    if (outputShape) {
      int64_t total = full - (*outputShape)[i];
      if (total < 0) {
        // A larger output_shape extends the output at the end (as
        // output_padding would).
        pads[i] = 0;
        pads[i + k] = total;
      } else if (autoPad == "SAME_UPPER") {
        pads[i] = total / 2;
        pads[i + k] = total - total / 2;
      } else {
        pads[i] = total - total / 2;
        pads[i + k] = total / 2;
      }
      shape.push_back((*outputShape)[i]);
    } else {
      shape.push_back(full - pads[i] - pads[i + k]);
    }
    if (shape.back() < 1)
      return ctx.emitError() << "the output would be empty";
  }
  OpBuilder &b = ctx.getBuilder();
  Value bias = ctx.getInput(2);
  auto op = b.create<ConvTransposeOp>(
      ctx.getLoc(), input.clone(shape), ctx.getInput(0), ctx.getInput(1), bias,
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilations),
      b.getI64IntegerAttr(ctx.getIntAttr("group", 1)));
  if (failed(mlir::verify(op)))
    return failure();
  ctx.setOutput(0, op);
  return success();
}

LogicalResult convertEinsum(NodeContext &ctx) {
  std::string equation;
  for (char ch : ctx.getStringAttr("equation", ""))
    if (ch != ' ')
      equation += ch;
  StringRef eq(equation);
  auto [lhsText, rhsText] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> lhsTerms;
  lhsText.split(lhsTerms, ',');
  if (int64_t(lhsTerms.size()) != ctx.getNumInputs())
    return ctx.emitError() << "the equation has " << lhsTerms.size()
                           << " operand(s), the node " << ctx.getNumInputs();
  // An ellipsis stands for the leading dimensions the labels leave: they
  // get upper-case labels (ONNX equations use lower case), aligned from
  // the right as numpy broadcasting does.
  int64_t ellipsisRank = 0;
  for (auto [index, term] : llvm::enumerate(lhsTerms))
    if (term.contains("..."))
      ellipsisRank =
          std::max<int64_t>(ellipsisRank, ctx.getInputType(index).getRank() -
                                              int64_t(term.size() - 3));
  auto expandEllipsis = [&](StringRef term, int64_t rank) {
    size_t at = term.find("...");
    if (at == StringRef::npos)
      return term.str();
    std::string labels;
    for (int64_t i = ellipsisRank - rank; i < ellipsisRank; ++i)
      labels += char('Z' - (ellipsisRank - 1 - i));
    return (term.take_front(at) + labels + term.drop_front(at + 3)).str();
  };
  SmallVector<std::string> termStorage;
  for (auto [index, term] : llvm::enumerate(lhsTerms))
    termStorage.push_back(expandEllipsis(
        term, ctx.getInputType(index).getRank() - int64_t(term.size()) + 3));
  std::string rhsStorage = expandEllipsis(rhsText, ellipsisRank);
  StringRef rhs = rhsStorage;
  SmallVector<StringRef> terms(termStorage.begin(), termStorage.end());
  std::string lhs = llvm::join(termStorage, ",");
  llvm::DenseMap<char, int64_t> dims;
  llvm::DenseMap<char, int64_t> counts;
  SmallVector<Value> operands;
  Type element;
  for (auto [index, term] : llvm::enumerate(terms)) {
    RankedTensorType type = ctx.getInputType(index);
    if (int64_t(term.size()) != type.getRank())
      return ctx.emitError() << "term '" << term << "' does not match " << type;
    if (element && element != type.getElementType())
      return ctx.emitError() << "operand element types differ";
    element = type.getElementType();
    for (auto [pos, label] : llvm::enumerate(term)) {
      if (!llvm::isAlpha(label))
        return ctx.emitError() << "bad label '" << label << "'";
      auto [it, inserted] = dims.try_emplace(label, type.getDimSize(pos));
      if (!inserted && it->second != type.getDimSize(pos))
        return ctx.emitError() << "label '" << label << "' has sizes "
                               << it->second << " and " << type.getDimSize(pos);
      ++counts[label];
    }
    operands.push_back(ctx.getInput(index));
  }
  std::string output = rhs.str();
  if (!explicitOutput) {
    // Ellipsis dimensions first, then the labels used once, sorted.
    output.clear();
    for (auto &[label, count] : counts)
      if (count == 1 && !llvm::isUpper(label))
        output += label;
    llvm::sort(output);
    std::string leading;
    for (int64_t i = 0; i < ellipsisRank; ++i)
      leading += char('Z' - (ellipsisRank - 1 - i));
    output = leading + output;
  }
  SmallVector<int64_t> shape;
  for (char label : output) {
    auto it = dims.find(label);
    if (it == dims.end())
      return ctx.emitError()
             << "output label '" << label << "' is not in any operand";
    shape.push_back(it->second);
  }
  OpBuilder &b = ctx.getBuilder();
  auto op =
      b.create<EinsumOp>(ctx.getLoc(), RankedTensorType::get(shape, element),
                         operands, b.getStringAttr(lhs + "->" + output));
  ctx.setOutput(0, op);
  return success();
}

FailureOr<Value> transposeOf(NodeContext &ctx, Value x,
                             ArrayRef<int64_t> perm) {
  return ctx.createInferred1<TransposeOp>(
      {x},
      {ctx.named("permutation", ctx.getBuilder().getDenseI64ArrayAttr(perm))});
}

LogicalResult convertDepthToSpace(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  int64_t bs = ctx.getIntAttr("blocksize", 0);
  if (type.getRank() != 4 || bs < 1 || type.getDimSize(1) % (bs * bs))
    return ctx.emitError() << "expects N x C x H x W with C divisible by "
                              "blocksize^2";
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  bool crd = ctx.getStringAttr("mode", "DCR") == "CRD";
  Value x =
      ctx.reshape(ctx.getInput(0),
                  crd ? SmallVector<int64_t>{n, c / (bs * bs), bs, bs, h, w}
                      : SmallVector<int64_t>{n, bs, bs, c / (bs * bs), h, w});
  FailureOr<Value> t = transposeOf(ctx, x,
                                   crd ? ArrayRef<int64_t>{0, 1, 4, 2, 5, 3}
                                       : ArrayRef<int64_t>{0, 3, 4, 1, 5, 2});
  if (failed(t))
    return failure();
  ctx.setOutput(0, ctx.reshape(*t, {n, c / (bs * bs), h * bs, w * bs}));
  return success();
}

LogicalResult convertSpaceToDepth(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  int64_t bs = ctx.getIntAttr("blocksize", 0);
  if (type.getRank() != 4 || bs < 1 || type.getDimSize(2) % bs ||
      type.getDimSize(3) % bs)
    return ctx.emitError() << "expects N x C x H x W with H and W divisible "
                              "by blocksize";
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  Value x = ctx.reshape(ctx.getInput(0), {n, c, h / bs, bs, w / bs, bs});
  FailureOr<Value> t = transposeOf(ctx, x, {0, 3, 5, 1, 2, 4});
  if (failed(t))
    return failure();
  ctx.setOutput(0, ctx.reshape(*t, {n, c * bs * bs, h / bs, w / bs}));
  return success();
}
} // namespace

void mlir::nnaccel::onnx_import::registerSpatialConverters(
    ConverterTable &table) {
  auto add = [&](StringRef name, int64_t minOpset, ConverterFn fn) {
    table[name].push_back({minOpset, std::move(fn)});
  };
  add("Resize", 10, [](NodeContext &c) { return convertResize(c, false); });
  add("Upsample", 7, [](NodeContext &c) { return convertResize(c, true); });
  add("ConvTranspose", 1, convertConvTranspose);
  add("Einsum", 12, convertEinsum);
  add("DepthToSpace", 1, convertDepthToSpace);
  add("SpaceToDepth", 1, convertSpaceToDepth);
}
