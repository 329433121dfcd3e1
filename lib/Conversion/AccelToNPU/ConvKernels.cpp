//===- ConvKernels.cpp - convolutions on the matrix unit and MFUs ---------===//
//
// accel.conv kernels (NCHW, any batch). Three 2-D special cases that make
// up MobileNet-style networks, and a general implicit-GEMM kernel for
// everything else. bench/conv-layers.py measures them per layer
// (docs/benchmarks-conv.md).
//
// * Pointwise (1x1, f32, no padding, groups 1): per image
//   Y[F, HW] = Wc[F, C] . X[C, HW]. The matrix unit streams rows of the
//   filter matrix (A = Wc chunk, resident in the VRF) through a weight tile
//   that is the transpose of an X tile (n = N pixels x k = N channels),
//   which the DMA engine transposes on the fly (x = 1: every "row" is one
//   element, planes step one pixel). The result D[F chunk, pixel tile] is
//   already NCHW rows, so it is stored with a row pitch of HW. The bias is
//   per output channel, i.e. per row of D (bcast = col). Strided 1x1 convs
//   (ResNet shortcuts) first subsample the input with one DMA (one element
//   per row) into SHARED memory and read the tiles from there. When an
//   image's X^T tiles do not all fit the MRF, two slots alternate.
//
// * Depthwise k x k (groups = C = F; k = 3, 5 or 7, padding k / 2 on every
//   side), stride 1 or 2, f32/f16/bf16 (narrow planes are DMAed as they
//   are, converted to f32 on chip, and the result is converted back once:
//   f32 arithmetic, like the host's reference). The DMA engine loads a
//   chunk of channel planes with a k / 2 element zero border (DMA padding)
//   into ACC. Each tap is then one vector multiply of a shifted window by a
//   per-channel weight (bcast = col) over the whole chunk, and the k * k
//   products are summed in exactly the order of the device dot product
//   (numerics dotF32: 16 lanes, tree reduction), so the card and the host
//   fallback agree bit for bit.
//     stride 1: one vector row per channel (the padded plane flattened);
//       the output keeps the padded row pitch W+2p (2p garbage columns per
//       row that the store skips).
//     stride 2: one vector row per (channel, output row); a row pitch of two
//       padded input rows does the vertical subsampling, the per-channel
//       weights are first expanded to one value per vector row, each
//       channel gets p garbage rows (the planes have H+2p rows), a per
//       channel move compacts the rows (fusing the activation where it can),
//       and the store picks every other column (x = 1, source pitch 2
//       elements).
//
// * Dense 3x3 (f32, groups 1), pads 1, stride 1 or 2, with few channels x
//   filters (a network's stem: 3 -> 16): all padded input planes of an
//   image in ACC, then per filter one output plane accumulated from a
//   multiply by a scalar weight (bcast = scalar) per (channel, tap), chained
//   into the add; stride 2 as above (row pitch of two padded rows, store of
//   every other column). Sequential sums: equal to the host to rounding.
//
// * General (implicit GEMM): 1-D/2-D/3-D, any kernel size, stride,
//   dilation, padding and grouping,
//   f32/f16/bf16. Per (image, output depth slice, group, band of output
//   rows, tile of N filters): the band's input planes (a virtual channel
//   per (channel, depth tap)) are staged in ACC in f32 with their zero
//   border; for each K tile of the filters' weight rows (im2col order), one
//   strided v.mov per tap (or per run of adjacent taps within the stride)
//   gathers the patch matrix A[q, t] into the VRF, where GEMM row q is
//   output pixel (i, j) at q = i * wv + j (columns j >= Wo are computed and
//   dropped; the row pitch wv makes a vertical stride a whole number of
//   horizontal steps), and mm accumulates D[q, f] += A . W^T with the
//   weight tile DMAed straight from the weight rows. A copy cannot read
//   overlapping rows, so with stride 1 it would cover a single tap; the
//   output columns are therefore split into P column phases (j mod P, each
//   its own block of GEMM rows with a row step of P * sw elements), which
//   lets one copy per phase gather a whole kernel row. Then bias (a row),
//   the fused activation, a compaction to the valid pixels in the output
//   type (re-interleaving the phases), and a transposing store (one element
//   per DMA row). f16/bf16 are staged (through two alternating raw slots)
//   and gathered in f32 (element offsets) and multiplied in the input type
//   (products exact, f32 accumulation).
//
// * Block floating point (a block-float weight, accel-quantize-block-float,
//   groups 1): the 1x1 kernel with the pixels as the matrix unit's rows
//   (PointwiseConvKernel.cpp: `mm` takes a block type only as its weight),
//   several cores sharing the pixels where that pays; everything else on
//   the implicit GEMM with the f32 patch matrix and the block weight's k
//   tiles resident in the MRF. Both load a filter group's k tiles with one
//   DMA (a plane per tile) and stage them through SHARED when the planes
//   would start MRF-unaligned.
//
// * int8 (a quantized accel.conv): the 1x1 kernel
//   (QuantizedPointwiseConvKernel.cpp) and the depthwise one
//   (QuantizedDepthwiseConvKernel.cpp) where they apply, every other conv
//   with groups 1 (k x k, strided 1x1, dilated; 1-D or 2-D) on the int8
//   implicit GEMM (QuantizedGemmConvKernel.cpp), which multiplies shifted
//   windows of the input, transposed to [pixels x channels] on chip, by one
//   weight tile per tap on the matrix unit.
//
// DRAM operand bases must be 64-byte aligned, which rules out DMA gathers
// that start at an odd element (im2col, tap-shifted windows, stride-2
// column phases); everything that needs an element offset is therefore done
// on chip (VRF/ACC operands only need 4-byte alignment), and chunk sizes are
// rounded so every chunk's DRAM base stays aligned. The general kernel
// starts its input DMAs at the closest aligned row (the extra rows land in
// guard rows) and its weight tiles at the closest aligned element (matched
// by zero columns of A); its stores need aligned output planes, and convs
// whose stored filter planes would start at unaligned addresses are
// refused with a reason and run on the host.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "ConvKernelSupport.h"
#include "FusedActivation.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

namespace {
//===----------------------------------------------------------------------===//
// accel.conv adapter
//===----------------------------------------------------------------------===//

enum class ConvKind { Pointwise, Depthwise, Stem, Dense, Gemm };

/// The kernel chosen for one accel.conv and its spec (addresses left 0).
struct ConvPlan {
  ConvKind kind = ConvKind::Gemm;
  PointwiseSpec pointwise;
  DepthwiseSpec depthwise;
  StemSpec stem;
  DenseSpec dense;
  GemmSpec gemm;
};

/// The geometry of `op` in the general kernel's 3-D form: 1-D and 2-D
/// convolutions have unit (kernel) depth and height and no padding there.
/// Shapes are static.
void setGemmGeometry(ConvOp op, GemmSpec &spec) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> is = inputType.getShape(), ws = weightType.getShape(),
                    rs = resultType.getShape();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                    dilations = op.getDilations();
  const int64_t spatial = inputType.getRank() - 2;
  const int64_t groups = op.getGroups();
  // The kernel's size: the weight's trailing dimensions, or kernel_shape
  // for a block-float weight (F x K rows).
  const SmallVector<int64_t> kernel = op.getKernelSpatialShape();
  spec.batch = is[0];
  spec.groups = groups;
  spec.cg = is[1] / groups;
  spec.fg = ws[0] / groups;
  int64_t *inDims[3] = {&spec.d, &spec.h, &spec.w};
  int64_t *kDims[3] = {&spec.kd, &spec.kh, &spec.kw};
  int64_t *sDims[3] = {&spec.sd, &spec.sh, &spec.sw};
  int64_t *dDims[3] = {&spec.dd, &spec.dh, &spec.dw};
  int64_t *pDims[3] = {&spec.pd, &spec.ph, &spec.pw};
  int64_t *oDims[3] = {&spec.od, &spec.oh, &spec.ow};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t axis = 3 - spatial + i; // innermost axes are height, width
    *inDims[axis] = is[2 + i];
    *kDims[axis] = kernel[size_t(i)];
    *sDims[axis] = strides[i];
    *dDims[axis] = dilations[i];
    *pDims[axis] = pads[i];
    *oDims[axis] = rs[2 + i];
  }
  spec.pwEnd = pads[2 * spatial - 1];
}

/// The integer arithmetic of a quantized `op` (the verifier checked the
/// type combination), or failure with the reason.
LogicalResult makeConvQuantization(ConvOp op, ConvQuantization &quant,
                                   std::string &reason) {
  auto input = cast<quant::UniformQuantizedType>(
      getElementTypeOrSelf(op.getInput().getType()));
  auto weight = cast<quant::QuantizedType>(
      getElementTypeOrSelf(op.getWeight().getType()));
  std::optional<DType> inType = getElementDType(input);
  if (!inType || (*inType != DType::I8 && *inType != DType::U8)) {
    reason = "a quantized conv input must be i8 or u8 on the card";
    return failure();
  }
  quant.input = ElementFormat(*inType);
  quant.inputZeroPoint = int32_t(input.getZeroPoint());
  Type result = getElementTypeOrSelf(op.getType());
  double outputScale = 1.0;
  if (auto requantized = dyn_cast<quant::UniformQuantizedType>(result)) {
    std::optional<DType> outType = getElementDType(requantized);
    if (!outType || (*outType != DType::I8 && *outType != DType::U8)) {
      reason = "a requantized conv result must be i8 or u8 on the card";
      return failure();
    }
    quant.output = ElementFormat(*outType);
    outputScale = requantized.getScale();
    quant.outputZeroPoint = int32_t(requantized.getZeroPoint());
    quant.outputInverse = 1.0f / float(outputScale);
  } else if (!result.isF32()) {
    reason = "a quantized conv's real result must be f32 on the card";
    return failure();
  }
  bool realBias = false;
  if (Value bias = op.getBias()) {
    realBias = !isa<quant::QuantizedType>(getElementTypeOrSelf(bias.getType()));
    if (realBias && !getElementTypeOrSelf(bias.getType()).isF32()) {
      reason = "a quantized conv's real bias must be f32 on the card";
      return failure();
    }
    quant.bias = realBias ? kF32Format : kI32Format;
  }
  quant.rescale = quant.quantizedOutput() &&
                  op.getActivation() == Activation::none && !realBias;
  // The same double arithmetic, rounded once to f32, as the host kernel.
  auto addScale = [&](double weightScale) {
    double scale = input.getScale() * weightScale;
    if (quant.rescale)
      scale /= outputScale;
    quant.scales.push_back(float(scale));
  };
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(weight))
    addScale(perTensor.getScale());
  else
    llvm::for_each(cast<quant::UniformQuantizedPerAxisType>(weight).getScales(),
                   addScale);
  return success();
}

/// The int8 kernel of a quantized `op`: the pointwise (1x1) one or the
/// depthwise one where they apply, else the implicit GEMM (groups 1), or
/// the reason none can run it.
std::optional<ConvPlan> planQuantizedConv(ConvOp op, const TargetDesc &target,
                                          std::string &reason) {
  ConvQuantization quant;
  if (failed(makeConvQuantization(op, quant, reason)))
    return std::nullopt;
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!inputType.hasStaticShape() || !weightType.hasStaticShape() ||
      !resultType.hasStaticShape() || inputType.getRank() < 3 ||
      inputType.getRank() > 4) {
    reason = "int8 convolutions run on the card in 1-D and 2-D with static "
             "shapes only";
    return std::nullopt;
  }
  ArrayRef<int64_t> is = inputType.getShape(), ws = weightType.getShape(),
                    rs = resultType.getShape();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads();
  const int64_t c = is[1], f = ws[0], groups = op.getGroups();
  const bool planar =
      inputType.getRank() == 4 &&
      llvm::all_of(op.getDilations(), [](int64_t d) { return d == 1; });
  ConvPlan plan;
  if (planar && groups == 1 && ws[2] == 1 && ws[3] == 1 &&
      llvm::all_of(pads, [](int64_t p) { return p == 0; })) {
    PointwiseSpec &spec = plan.pointwise;
    spec.batch = is[0];
    spec.c = c;
    spec.f = f;
    spec.h = is[2];
    spec.w = is[3];
    spec.sh = strides[0];
    spec.sw = strides[1];
    spec.ho = rs[2];
    spec.wo = rs[3];
    spec.hw = spec.ho * spec.wo;
    spec.activation = getFusedActivation(op);
    if (op.getBias())
      spec.bias = 0;
    spec.quantized = quant;
    // Else (strided, or too large for it) the implicit GEMM below.
    if (canEmitPointwise(target, spec, reason)) {
      plan.kind = ConvKind::Pointwise;
      return plan;
    }
  }
  if (groups != 1) {
    const int64_t k = ws.back();
    if (planar && groups == c && f == c && ws[1] == 1 && ws[2] == k &&
        k % 2 == 1 && k >= 3 && k <= 7 &&
        llvm::all_of(pads, [&](int64_t p) { return p == k / 2; }) &&
        strides[0] == strides[1] && (strides[0] == 1 || strides[0] == 2)) {
      DepthwiseSpec &spec = plan.depthwise;
      spec.format = quant.input;
      spec.batch = is[0];
      spec.c = c;
      spec.h = is[2];
      spec.w = is[3];
      spec.stride = strides[0];
      spec.k = k;
      spec.activation = getFusedActivation(op);
      if (op.getBias())
        spec.bias = 0;
      spec.quantized = quant;
      if (!canEmitDepthwise(target, spec, reason))
        return std::nullopt;
      plan.kind = ConvKind::Depthwise;
      return plan;
    }
    reason = "grouped int8 convolutions run on the card as depthwise k x k "
             "ones only (k = 3, 5, 7, same padding, stride 1 or 2, no "
             "dilation)";
    return std::nullopt;
  }
  GemmSpec &spec = plan.gemm;
  setGemmGeometry(op, spec);
  spec.activation = getFusedActivation(op);
  if (op.getBias())
    spec.biasAddr = 0;
  spec.quantized = quant;
  if (!canEmitGemm(target, spec, reason))
    return std::nullopt;
  plan.kind = ConvKind::Gemm;
  return plan;
}

/// The kernel of a float `op` with a block-float weight
/// (accel-quantize-block-float): the 1x1 kernel with pixels as the matrix
/// unit's rows where it applies, else the implicit GEMM, or the reason
/// neither can run it.
std::optional<ConvPlan> planBlockConv(ConvOp op, const TargetDesc &target,
                                      std::string &reason) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  SmallVector<Type> types{inputType, resultType};
  if (Value b = op.getBias())
    types.push_back(b.getType());
  if (!allCardFloat(types, "conv", reason))
    return std::nullopt;
  if (!inputType.getElementType().isF32() ||
      !resultType.getElementType().isF32() ||
      (op.getBias() && !getElementTypeOrSelf(op.getBias().getType()).isF32())) {
    reason = "a block-float conv runs on the card with an f32 input, bias "
             "and result";
    return std::nullopt;
  }
  if (!inputType.hasStaticShape() || !weightType.hasStaticShape() ||
      !resultType.hasStaticShape()) {
    reason = "only convolutions with static shapes are lowered to the card";
    return std::nullopt;
  }
  SmallVector<int64_t> kernel = op.getKernelSpatialShape();
  const int64_t spatial = inputType.getRank() - 2;
  if (spatial < 1 || spatial > 3 || op.getGroups() != 1) {
    reason = "block-float weights run on the card in 1-D, 2-D and 3-D "
             "convolutions with groups 1 only";
    return std::nullopt;
  }
  auto kTile = op->getAttrOfType<IntegerAttr>("k_tile");
  if (!kTile) {
    reason = "a block-float conv needs its k_tile (accel-quantize-block-float "
             "records it)";
    return std::nullopt;
  }
  std::optional<DType> weightDType = getElementDType(weightType);
  if (!weightDType || !::nnaccel::isBlock(*weightDType)) {
    reason = "the conv's block weight type has no ISA block format";
    return std::nullopt;
  }
  ConvPlan plan;
  if (spatial == 2 && llvm::all_of(kernel, [](int64_t k) { return k == 1; }) &&
      llvm::all_of(op.getPads(), [](int64_t p) { return p == 0; })) {
    ArrayRef<int64_t> is = inputType.getShape(), rs = resultType.getShape();
    PointwiseSpec &spec = plan.pointwise;
    spec.batch = is[0];
    spec.c = is[1];
    spec.f = rs[1];
    spec.h = is[2];
    spec.w = is[3];
    spec.sh = op.getStrides()[0];
    spec.sw = op.getStrides()[1];
    spec.ho = rs[2];
    spec.wo = rs[3];
    spec.hw = spec.ho * spec.wo;
    spec.activation = getFusedActivation(op);
    if (op.getBias())
      spec.bias = 0;
    spec.blockWeight = ElementFormat(*weightDType);
    spec.kTile = kTile.getInt();
    // Else (too large for it) the implicit GEMM below.
    if (canEmitPointwise(target, spec, reason)) {
      spec.weightStageBytes = getBlockPointwiseStageBytes(target, spec);
      plan.kind = ConvKind::Pointwise;
      return plan;
    }
  }
  // Every other conv on the implicit GEMM, the patch matrix f32.
  GemmSpec &spec = plan.gemm;
  spec.in = kF32Format;
  spec.out = kF32Format;
  spec.bias = kF32Format;
  if (op.getBias())
    spec.biasAddr = 0;
  spec.activation = getFusedActivation(op);
  setGemmGeometry(op, spec);
  spec.blockWeight = ElementFormat(*weightDType);
  spec.kTile = kTile.getInt();
  if (!canEmitGemm(target, spec, reason))
    return std::nullopt;
  spec.weightStageBytes = getBlockGemmStageBytes(target, spec);
  plan.kind = ConvKind::Gemm;
  return plan;
}

/// Chooses the kernel of `op` on `target`: one of the f32 2-D special
/// kernels where it applies (they are faster or bit-exact), else the general
/// implicit GEMM; the int8 kernels for a quantized `op`; or the reason none
/// can run it.
std::optional<ConvPlan> planConv(ConvOp op, const TargetDesc &target,
                                 std::string &reason) {
  if (isa<quant::QuantizedType>(getElementTypeOrSelf(op.getInput().getType())))
    return planQuantizedConv(op, target, reason);
  if (op.hasBlockWeight())
    return planBlockConv(op, target, reason);
  // A real conv that quantizes its result (its int8 consumer's input):
  // computed like a real result, requantized in the epilogue.
  auto quantizedResult =
      dyn_cast<quant::UniformQuantizedType>(getElementTypeOrSelf(op.getType()));
  SmallVector<Type> types(op->getOperandTypes());
  if (!quantizedResult)
    types.push_back(op.getType());
  if (!allCardFloat(types, "conv", reason))
    return std::nullopt;
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!inputType.hasStaticShape() || !weightType.hasStaticShape() ||
      !resultType.hasStaticShape()) {
    reason = "only convolutions with static shapes are lowered to the card";
    return std::nullopt;
  }
  const int64_t rank = inputType.getRank(), spatial = rank - 2;
  if (spatial < 1 || spatial > 3) {
    reason = "only 1-D, 2-D and 3-D convolutions are lowered to the card";
    return std::nullopt;
  }
  ElementFormat in = *getElementFormat(inputType);
  if (!(*getElementFormat(weightType) == in)) {
    reason = "conv runs on the card with input and weight of one element "
             "type only (the matrix unit multiplies equal types)";
    return std::nullopt;
  }
  ElementFormat out = quantizedResult ? in : *getElementFormat(resultType);
  std::optional<ElementFormat> bias;
  if (Value b = op.getBias())
    bias = getElementFormat(b.getType());

  ArrayRef<int64_t> is = inputType.getShape(), ws = weightType.getShape(),
                    rs = resultType.getShape();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                    dilations = op.getDilations();
  const int64_t batch = is[0], c = is[1], f = ws[0], groups = op.getGroups();
  ActivationSpec act = getFusedActivation(op);
  ConvPlan plan;

  // The special kernels: 2-D, no dilation, one element type; f32 only,
  // except depthwise, which computes in f32 on the MFUs for any input type.
  bool oneFormat = out == in && (!bias || *bias == in);
  bool allF32 =
      oneFormat && in == kF32Format && target.macsPerCycle.count(DType::F32);
  if (oneFormat && spatial == 2 &&
      llvm::all_of(dilations, [](int64_t d) { return d == 1; })) {
    const int64_t h = is[2], w = is[3];
    bool equalStrides12 =
        strides[0] == strides[1] && (strides[0] == 1 || strides[0] == 2);
    bool pads0 = llvm::all_of(pads, [](int64_t p) { return p == 0; });
    bool pads1 = llvm::all_of(pads, [](int64_t p) { return p == 1; });
    bool is3x3 = ws[2] == 3 && ws[3] == 3;
    std::string unused;
    if (!quantizedResult && allF32 && groups == 1 && ws[2] == 1 && ws[3] == 1 &&
        pads0) {
      PointwiseSpec &spec = plan.pointwise;
      spec.batch = batch;
      spec.c = c;
      spec.f = f;
      spec.h = h;
      spec.w = w;
      spec.sh = strides[0];
      spec.sw = strides[1];
      spec.ho = rs[2];
      spec.wo = rs[3];
      spec.hw = spec.ho * spec.wo;
      spec.activation = act;
      if (bias)
        spec.bias = 0;
      if (canEmitPointwise(target, spec, unused)) {
        plan.kind = ConvKind::Pointwise;
        return plan;
      }
    }
    // Depthwise k x k, k odd up to 7 (DMA padding fields), "same" padding.
    const int64_t k = ws[2];
    bool squareOdd = ws[3] == k && k % 2 == 1 && k >= 3 && k <= 7;
    bool padsSame = llvm::all_of(pads, [&](int64_t p) { return p == k / 2; });
    if (!quantizedResult && groups == c && f == c && ws[1] == 1 && squareOdd &&
        padsSame && equalStrides12) {
      DepthwiseSpec &spec = plan.depthwise;
      spec.format = in;
      spec.batch = batch;
      spec.c = c;
      spec.h = h;
      spec.w = w;
      spec.stride = strides[0];
      spec.k = k;
      spec.activation = act;
      if (bias)
        spec.bias = 0;
      if (canEmitDepthwise(target, spec, unused)) {
        plan.kind = ConvKind::Depthwise;
        return plan;
      }
    }
    // A strided stem on the matrix unit: faster than the MFU stem below
    // (mobilenet_v2_050's 3 -> 16 stem: 46.9k -> 15k cycles on the vector
    // units and matrix unit).
    if (allF32 && groups == 1 && squareOdd && padsSame && strides[0] > 1 &&
        strides[0] == strides[1]) {
      StemSpec &spec = plan.stem;
      spec.batch = batch;
      spec.c = c;
      spec.f = f;
      spec.h = h;
      spec.w = w;
      spec.k = k;
      spec.stride = strides[0];
      spec.activation = act;
      if (bias)
        spec.bias = 0;
      if (quantizedResult) {
        std::optional<DType> stored = getElementDType(quantizedResult);
        if (stored && (*stored == DType::I8 || *stored == DType::U8)) {
          spec.outFormat = ElementFormat(*stored);
          spec.outputInverse = 1.0f / float(quantizedResult.getScale());
          spec.outputZeroPoint = int32_t(quantizedResult.getZeroPoint());
        }
      }
      if ((!quantizedResult || !(spec.outFormat == kF32Format)) &&
          canEmitStem(target, spec, unused)) {
        plan.kind = ConvKind::Stem;
        return plan;
      }
    }

    if (!quantizedResult && allF32 && groups == 1 && is3x3 && pads1 &&
        equalStrides12) {
      DenseSpec &spec = plan.dense;
      spec.batch = batch;
      spec.c = c;
      spec.f = f;
      spec.h = h;
      spec.w = w;
      spec.stride = strides[0];
      spec.activation = act;
      if (bias)
        spec.bias = 0;
      if (canEmitDense(target, spec, unused)) {
        plan.kind = ConvKind::Dense;
        return plan;
      }
    }
  }

  if (quantizedResult) {
    reason = "a real convolution quantizes its result on the card only as a "
             "strided stem (few channels and filters, stride > 1, same "
             "padding), to i8 or u8";
    return std::nullopt;
  }

  // The general kernel sees every convolution as 3-D.
  GemmSpec &spec = plan.gemm;
  spec.in = in;
  spec.out = out;
  spec.bias = bias.value_or(kF32Format);
  if (bias)
    spec.biasAddr = 0;
  spec.activation = act;
  setGemmGeometry(op, spec);
  if (!canEmitGemm(target, spec, reason))
    return std::nullopt;
  plan.kind = ConvKind::Gemm;
  return plan;
}

LogicalResult checkConv(Operation *operation, const TargetDesc &target,
                        std::string &reason) {
  return success(planConv(cast<ConvOp>(operation), target, reason).has_value());
}

LogicalResult emitConv(Operation *operation, KernelContext &context) {
  auto op = cast<ConvOp>(operation);
  std::string reason;
  std::optional<ConvPlan> plan = planConv(op, context.target, reason);
  if (!plan)
    return op.emitOpError() << "cannot run on the card: " << reason;
  uint64_t input = context.addressOf(op.getInput());
  uint64_t weight = context.addressOf(op.getWeight());
  uint64_t output = context.addressOf(op.getResult());
  std::optional<uint64_t> bias;
  if (Value b = op.getBias())
    bias = context.addressOf(b);
  auto bind = [&](auto &spec) {
    spec.input = input;
    spec.weight = weight;
    spec.output = output;
  };
  // Per-channel scales from their DRAM constant (accel.kernel_constants).
  auto bindScales = [&](std::optional<ConvQuantization> &quant) {
    if (quant)
      quant->scalesAddress = context.kernelConstants;
  };
  switch (plan->kind) {
  case ConvKind::Pointwise:
    bind(plan->pointwise);
    bindScales(plan->pointwise.quantized);
    plan->pointwise.bias = bias;
    if (plan->pointwise.sharedBytes()) {
      if (!context.sharedScratch)
        return op.emitOpError("needs SHARED scratch but the memory plan "
                              "gives it none");
      plan->pointwise.shared = *context.sharedScratch;
    }
    plan->pointwise.pinnedWeight = context.pinnedWeight;
    plan->pointwise.setup = context.setup();
    if (plan->pointwise.quantized && !context.cores.emitters.empty()) {
      emitQuantizedPointwise(context.cores.emitters, context.target,
                             plan->pointwise);
      break;
    }
    if (plan->pointwise.blockWeight && !context.cores.emitters.empty()) {
      emitBlockPointwise(context.cores.emitters, context.target,
                         plan->pointwise);
      break;
    }
    emitPointwise(context.emitter, context.target, plan->pointwise);
    break;
  case ConvKind::Depthwise:
    bind(plan->depthwise);
    bindScales(plan->depthwise.quantized);
    plan->depthwise.bias = bias;
    if (plan->depthwise.quantized && !context.cores.emitters.empty()) {
      emitQuantizedDepthwise(context.cores.emitters, context.target,
                             plan->depthwise);
      break;
    }
    emitDepthwise(context.emitter, context.target, plan->depthwise);
    break;
  case ConvKind::Stem:
    bind(plan->stem);
    plan->stem.bias = bias;
    if (!context.sharedScratch)
      return op.emitOpError("needs SHARED scratch but the memory plan "
                            "gives it none");
    plan->stem.shared = *context.sharedScratch;
    emitStem(context.cores.emitters.empty()
                 ? ArrayRef<ProgramEmitter *>{&context.emitter}
                 : ArrayRef<ProgramEmitter *>(context.cores.emitters),
             context.target, plan->stem);
    break;
  case ConvKind::Dense:
    bind(plan->dense);
    plan->dense.bias = bias;
    emitDense(context.emitter, context.target, plan->dense);
    break;
  case ConvKind::Gemm:
    bind(plan->gemm);
    bindScales(plan->gemm.quantized);
    plan->gemm.biasAddr = bias;
    if (plan->gemm.quantized) {
      if (!context.sharedScratch)
        return op.emitOpError("needs SHARED scratch but the memory plan "
                              "gives it none");
      plan->gemm.shared = *context.sharedScratch;
      emitQuantizedGemm(
          context.cores.emitters.empty()
              ? ArrayRef<ProgramEmitter *>{&context.emitter}
              : ArrayRef<ProgramEmitter *>(context.cores.emitters),
          context.target, plan->gemm);
      break;
    }
    if (plan->gemm.weightStageBytes) {
      if (!context.sharedScratch)
        return op.emitOpError("needs SHARED scratch but the memory plan "
                              "gives it none");
      plan->gemm.shared = *context.sharedScratch;
    }
    emitGemm(context.emitter, context.target, plan->gemm);
    break;
  }
  return success();
}
/// SHARED memory the chosen kernel stages through: the subsampled input of
/// a strided pointwise conv, the weight tiles of a strided stem, the
/// reordered weights of an int8 implicit GEMM.
uint64_t sharedScratchConv(Operation *operation, const TargetDesc &target) {
  std::string reason;
  std::optional<ConvPlan> plan =
      planConv(cast<ConvOp>(operation), target, reason);
  if (!plan)
    return 0;
  if (plan->kind == ConvKind::Stem)
    return plan->stem.sharedBytes() * target.coresPerCard;
  if (plan->kind == ConvKind::Gemm) {
    if (!plan->gemm.quantized)
      return plan->gemm.weightStageBytes;
    plan->gemm.cores = int64_t(getKernelCores(operation, target).size());
    return quantizedGemmSharedBytes(target, plan->gemm);
  }
  if (plan->kind != ConvKind::Pointwise)
    return 0;
  return plan->pointwise.sharedBytes();
}
/// A strided stem, an int8 implicit GEMM, an int8 1x1 conv and an int8
/// depthwise conv run on several cores as one unit (each core a range of
/// output rows or pixels);
/// every other conv kernel on one core (accel-split-ops cuts those into
/// pieces).
unsigned maxCoresConv(Operation *operation, const TargetDesc &target) {
  std::string reason;
  std::optional<ConvPlan> plan =
      planConv(cast<ConvOp>(operation), target, reason);
  if (!plan)
    return 1;
  if (plan->kind == ConvKind::Stem ||
      (plan->kind == ConvKind::Gemm && plan->gemm.quantized))
    return target.coresPerCard;
  if (plan->kind == ConvKind::Pointwise && plan->pointwise.quantized)
    return getQuantizedPointwiseMaxCores(target, plan->pointwise);
  if (plan->kind == ConvKind::Pointwise && plan->pointwise.blockWeight)
    return getBlockPointwiseMaxCores(target, plan->pointwise);
  if (plan->kind == ConvKind::Depthwise && plan->depthwise.quantized)
    return getQuantizedDepthwiseMaxCores(target, plan->depthwise);
  return 1;
}

unsigned preferredCoresConv(Operation *operation, const TargetDesc &target) {
  std::string reason;
  std::optional<ConvPlan> plan =
      planConv(cast<ConvOp>(operation), target, reason);
  if (!plan)
    return 1;
  if (plan->kind == ConvKind::Stem)
    return getStemCores(target, plan->stem);
  if (plan->kind == ConvKind::Gemm && plan->gemm.quantized)
    return getQuantizedGemmCores(target, plan->gemm);
  if (plan->kind == ConvKind::Pointwise && plan->pointwise.quantized)
    return getQuantizedPointwiseCores(target, plan->pointwise);
  if (plan->kind == ConvKind::Pointwise && plan->pointwise.blockWeight)
    return getBlockPointwiseCores(target, plan->pointwise);
  if (plan->kind == ConvKind::Depthwise && plan->depthwise.quantized)
    return getQuantizedDepthwiseCores(target, plan->depthwise);
  return 1;
}
} // namespace

std::optional<std::vector<float>>
mlir::nnaccel::npu_lowering::getConvKernelConstants(ConvOp op,
                                                    const TargetDesc &target) {
  std::string reason;
  std::optional<ConvPlan> plan = planConv(op, target, reason);
  if (!plan)
    return std::nullopt;
  const std::optional<ConvQuantization> *quant = nullptr;
  switch (plan->kind) {
  case ConvKind::Pointwise:
    quant = &plan->pointwise.quantized;
    break;
  case ConvKind::Depthwise:
    quant = &plan->depthwise.quantized;
    break;
  case ConvKind::Gemm:
    quant = &plan->gemm.quantized;
    break;
  case ConvKind::Stem:
  case ConvKind::Dense:
    return std::nullopt;
  }
  if (!*quant || !(*quant)->perChannel())
    return std::nullopt;
  return (*quant)->scaleValues();
}

std::optional<uint64_t>
mlir::nnaccel::npu_lowering::getConvPinBytes(ConvOp op,
                                             const TargetDesc &target) {
  std::string reason;
  std::optional<ConvPlan> plan = planConv(op, target, reason);
  if (!plan || plan->kind != ConvKind::Pointwise ||
      !plan->pointwise.quantized || getKernelCores(op, target).size() != 1)
    return std::nullopt;
  return quantizedPointwisePinBytes(target, plan->pointwise);
}

void mlir::nnaccel::npu_lowering::attachConvKernels(MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkConv, emitConv, sharedScratchConv,
                                   maxCoresConv, preferredCoresConv>,
                   ConvOp>(context);
}
