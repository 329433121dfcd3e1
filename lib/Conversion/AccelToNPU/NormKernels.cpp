//===- NormKernels.cpp - softmax, layer_norm and reductions on the MFUs ---===//
//
// Row-wise kernels for the vector units: softmax and layer_norm over the
// last axis, and reduce_sum / reduce_mean / reduce_max over one contiguous
// run of axes. The tensor is viewed as rows of `cols` contiguous floats;
// chunks of rows are loaded into one of two alternating ACC slots (so the
// next chunk's DMA overlaps this chunk's MFU work and the previous chunk's
// store), per-row statistics live in the VRF, and every step is one vector
// instruction over the whole chunk:
//
//   softmax:    m = rmax(x); x = exp(x - m); s = 1 / rsum(x); x = x * s
//   layer_norm: mu = rsum(x) * (1/n); x = x - mu; v = rsum(x * x) * (1/n);
//               r = rsqrt(v + eps); x = x * r * gamma + beta
//   reduce:     rsum / rmax along the row (axis=cols), or down the columns
//               of each [S x D] plane (axis=rows) for a middle axis;
//               mean = sum * (1/n)
//
// Numerics: the reductions, exp and rsqrt are lib/Numerics' functions, in
// the order the host kernels use (numerics::softmaxRowF32,
// layerNormRowF32, reduceSumF32 / reduceMeanF32 / reduceMaxF32). The card
// has no divide: the host's `s / n` and `x / s` become a multiplication by
// 1/n (exact when n is a power of two, so layer_norm and mean over the
// bundled models' 2^k rows are bit-exact) and by the correctly rounded 1/s
// (within an ulp or two of the host's softmax).
// f16 / bf16: tensors, scale and bias are read and written in their dtype
// (DMA bit copies); softmax and layer_norm widen a chunk into an f32
// working copy with their first vector op and narrow it with their last,
// statistics are f32, and reductions read the narrow chunk directly and
// convert their f32 results before storing them. The host computes these
// types via f32 too, so the only extra rounding is the final one.
// log_softmax needs a logarithm, for which the ISA has no instruction; it
// is refused with that reason.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "KernelOperands.h"
#include "KernelUtils.h"

#include "Accel/AccelOps.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Axis;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

//===----------------------------------------------------------------------===//
// MLIR-free kernel description and planning
//===----------------------------------------------------------------------===//

enum class RowKernel { Softmax, LayerNorm, ReduceSum, ReduceMean, ReduceMax };

/// One op as `planes` planes of `rows` x `cols` row-major floats. Softmax,
/// layer_norm and the last-axis reductions have planes = 1 and work along
/// each row; a middle-axis reduction (`alongRows`) reduces each plane's
/// rows to one row of `cols`.
struct RowKernelSpec {
  RowKernel kind = RowKernel::Softmax;
  int64_t planes = 1, rows = 0, cols = 0;
  bool alongRows = false;
  uint64_t input = 0, output = 0;      // DRAM addresses
  std::optional<uint64_t> scale, bias; // layer_norm, `cols` elements each
  float epsilon = 0.0f;
  /// Of the input, output, scale and bias.
  ElementFormat format = kF32Format;
};

/// On-chip placement: two ACC slots for input chunks (+ one scratch slot for
/// layer_norm), VRF for per-row statistics and the scale / bias rows. A
/// slot holds the chunk in f32 (`accSlot`) and, for a softmax / layer_norm
/// of a narrow type, the chunk as loaded and stored (`accIo`, else the
/// same). Reductions of a narrow type convert their f32 results
/// (`vrfStat`) to `vrfOut` for the store (else the same).
struct RowLayout {
  int64_t unitsPerChunk = 0; // rows (along columns) or planes (along rows)
  uint64_t accSlot[2] = {0, 0}, accIo[2] = {0, 0}, accScratch = 0;
  uint64_t vrfScale = 0, vrfBias = 0, vrfStat[2] = {0, 0}, vrfOut[2] = {0, 0};
};

bool isReduction(RowKernel kind) {
  return kind == RowKernel::ReduceSum || kind == RowKernel::ReduceMean ||
         kind == RowKernel::ReduceMax;
}

bool isNarrow(const RowKernelSpec &spec) {
  return !(spec.format == kF32Format);
}

/// Softmax and layer_norm of a narrow type work on an f32 copy.
bool needsWideCopy(const RowKernelSpec &spec) {
  return isNarrow(spec) && !isReduction(spec.kind);
}

/// Rows per chunk a DRAM base address stays aligned at, for `bytes` per row.
int64_t alignGranule(int64_t bytes, int64_t align) {
  return align / std::gcd(bytes, align);
}

std::optional<RowLayout> planRowKernel(const TargetDesc &target,
                                       const RowKernelSpec &spec,
                                       std::string &reason) {
  const uint64_t accBytes = target.memory(Space::Acc).bytes;
  const uint64_t accAlign = target.memory(Space::Acc).align;
  const uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  const uint64_t vrfAlign = target.memory(Space::Vrf).align;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  const int64_t rowBytes = spec.cols * kF32;
  // A last-axis reduction stores one element per row (the card float
  // types only reach this kernel: getCardType).
  const int64_t ioBytes = spec.format.elementBytes();
  const int64_t ioRowBytes = spec.format.rowBytes(spec.cols);
  if (rowBytes > kMaxPitch) {
    reason = "rows of " + std::to_string(spec.cols) +
             " floats exceed the vector units' 64 KiB pitch";
    return std::nullopt;
  }

  RowLayout layout;
  // A unit is what one chunk holds a whole number of: a row, or a plane.
  const int64_t units = spec.alongRows ? spec.planes : spec.rows;
  // Bytes of a unit in DRAM, and in ACC (reductions read the loaded chunk
  // directly; the others work on it in f32, plus the loaded copy when it is
  // narrow).
  const int64_t unitDramBytes =
      spec.alongRows ? spec.rows * ioRowBytes : ioRowBytes;
  const int64_t unitInBytes =
      isReduction(spec.kind)
          ? unitDramBytes
          : rowBytes + (needsWideCopy(spec) ? ioRowBytes : 0);
  // Statistics per unit in the VRF (f32, plus their narrow copy for a
  // narrow reduction), and the bytes each unit stores.
  int64_t unitStatBytes, unitOutBytes;
  if (spec.alongRows) {
    unitStatBytes = rowBytes;
    unitOutBytes = ioRowBytes;
  } else if (isReduction(spec.kind)) {
    unitStatBytes = kF32;
    unitOutBytes = ioBytes;
  } else {
    unitStatBytes = kF32;
    unitOutBytes = ioRowBytes;
  }
  const bool narrowStats = isNarrow(spec) && isReduction(spec.kind);
  if (narrowStats)
    unitStatBytes += unitOutBytes;
  if (spec.alongRows && spec.rows > kMaxDmaYZ) {
    reason = "reducing more than 4095 rows at once is not lowered";
    return std::nullopt;
  }

  int accSlots = spec.kind == RowKernel::LayerNorm ? 3 : 2;
  uint64_t slotBytes = accBytes / accSlots / accAlign * accAlign;
  // The f32 and narrow copies are each aligned within a slot.
  if (needsWideCopy(spec))
    slotBytes -= accAlign;
  uint64_t vrfFixed = 0;
  if (spec.kind == RowKernel::LayerNorm)
    vrfFixed = 2 * alignUp(ioRowBytes, vrfAlign);
  if (vrfFixed >= vrfBytes) {
    reason = "the scale and bias rows do not fit the vector register file";
    return std::nullopt;
  }
  // Two statistics buffers (max and sum, mean and variance, or the results
  // of two chunks in flight), each padded to the VRF alignment.
  uint64_t statBudget = (vrfBytes - vrfFixed) / 2 / vrfAlign * vrfAlign;
  if (narrowStats)
    statBudget = statBudget > vrfAlign ? statBudget - vrfAlign : 0;
  int64_t byAcc = static_cast<int64_t>(slotBytes / uint64_t(unitInBytes));
  int64_t byVrf = static_cast<int64_t>(statBudget / uint64_t(unitStatBytes));
  int64_t chunk = std::min<int64_t>({units, byAcc, byVrf, kMaxDmaYZ});
  // Stat vectors are one row of `chunk` values for vs.mul / v.recip.
  if (!spec.alongRows)
    chunk = std::min<int64_t>(chunk, kMaxPitch / kF32);
  if (chunk < units) {
    int64_t granule = std::lcm(alignGranule(unitDramBytes, dramAlign),
                               alignGranule(unitOutBytes, dramAlign));
    chunk = chunk / granule * granule;
  }
  if (chunk < 1) {
    reason = spec.alongRows
                 ? "a plane of " + std::to_string(spec.rows) + " x " +
                       std::to_string(spec.cols) +
                       " floats does not fit the on-chip buffers"
                 : "rows of " + std::to_string(spec.cols) +
                       " floats do not fit the on-chip buffers in aligned "
                       "chunks";
    return std::nullopt;
  }
  layout.unitsPerChunk = chunk;
  uint64_t wideBytes = alignUp(
      uint64_t(chunk * (isReduction(spec.kind) ? unitInBytes : rowBytes)),
      accAlign);
  uint64_t chunkBytes =
      wideBytes + (needsWideCopy(spec)
                       ? alignUp(uint64_t(chunk * ioRowBytes), accAlign)
                       : 0);
  for (int k = 0; k < 2; ++k) {
    layout.accSlot[k] = k * chunkBytes;
    layout.accIo[k] = layout.accSlot[k] + (needsWideCopy(spec) ? wideBytes : 0);
  }
  layout.accScratch = 2 * chunkBytes;
  layout.vrfScale = 0;
  layout.vrfBias = alignUp(ioRowBytes, vrfAlign);
  uint64_t statBase = vrfFixed;
  uint64_t wideStatBytes = alignUp(
      uint64_t(chunk * (unitStatBytes - (narrowStats ? unitOutBytes : 0))),
      vrfAlign);
  uint64_t statBytes =
      wideStatBytes +
      (narrowStats ? alignUp(uint64_t(chunk * unitOutBytes), vrfAlign) : 0);
  for (int k = 0; k < 2; ++k) {
    layout.vrfStat[k] = statBase + k * statBytes;
    layout.vrfOut[k] = layout.vrfStat[k] + (narrowStats ? wideStatBytes : 0);
  }
  return layout;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

void emitRowKernel(ProgramEmitter &emitter, const TargetDesc &target,
                   const RowKernelSpec &spec) {
  std::string unused;
  RowLayout layout = *planRowKernel(target, spec, unused);
  const ElementFormat io = spec.format;
  const int64_t cols = spec.cols;
  const int64_t ioRowBytes = io.rowBytes(cols);
  const Opcode reduceOp =
      spec.kind == RowKernel::ReduceMax ? Opcode::VRmax : Opcode::VRsum;
  // The f32 results of a reduction (`rows` dense rows of `n` in the VRF),
  // narrowed for the store when needed, to DRAM at `dst`.
  auto storeResults = [&](uint64_t dst, const Operand2D &results, int64_t rows,
                          int64_t n, uint64_t narrowAt) {
    Operand2D stored = results;
    if (isNarrow(spec)) {
      stored = denseOperand(Space::Vrf, narrowAt, n, io);
      emitCopy(emitter, stored, results, rows, n);
    }
    DmaStore store;
    store.dst = {Space::Dram, dst};
    store.src = stored.ref();
    store.format = stored.format;
    store.x = n;
    store.y = rows;
    store.spitch = stored.pitch;
    emitStore(emitter, store);
  };

  // Middle-axis reduction: chunks of whole planes, each plane's rows summed
  // (or maxed) down its columns into one VRF row.
  if (spec.alongRows) {
    const int64_t planeBytes = spec.rows * ioRowBytes;
    int64_t chunkIndex = 0;
    for (int64_t p0 = 0; p0 < spec.planes;
         p0 += layout.unitsPerChunk, ++chunkIndex) {
      int64_t pc = std::min(layout.unitsPerChunk, spec.planes - p0);
      const Operand2D chunk =
          denseOperand(Space::Acc, layout.accSlot[chunkIndex % 2], cols, io);
      const Operand2D results =
          denseOperand(Space::Vrf, layout.vrfStat[chunkIndex % 2], cols);
      DmaLoad load;
      load.dst = chunk.ref();
      load.src = {Space::Dram, spec.input + uint64_t(p0 * planeBytes)};
      load.format = io;
      load.x = cols;
      load.y = spec.rows;
      load.z = pc;
      load.sz = pc > 1 ? planeBytes : 0;
      emitLoad(emitter, load);
      // Plane p's rows into result row p.
      for (int64_t p = 0; p < pc; ++p)
        emitReduce(emitter, reduceOp, results.at(p), chunk.at(p * spec.rows),
                   Axis::Rows, spec.rows, cols);
      if (spec.kind == RowKernel::ReduceMean)
        emitScalar(emitter, Opcode::VsMul, results, results,
                   1.0f / static_cast<float>(spec.rows), pc, cols);
      storeResults(spec.output + uint64_t(p0 * ioRowBytes), results, pc, cols,
                   layout.vrfOut[chunkIndex % 2]);
    }
    return;
  }

  // Layer norm: scale and bias rows stay resident for all chunks.
  const Operand2D scale = denseOperand(Space::Vrf, layout.vrfScale, cols, io);
  const Operand2D bias = denseOperand(Space::Vrf, layout.vrfBias, cols, io);
  if (spec.kind == RowKernel::LayerNorm) {
    DmaLoad loadScale;
    loadScale.dst = scale.ref();
    loadScale.src = {Space::Dram, *spec.scale};
    loadScale.format = io;
    loadScale.x = cols;
    emitLoad(emitter, loadScale);
    if (spec.bias) {
      DmaLoad loadBias = loadScale;
      loadBias.dst = bias.ref();
      loadBias.src = {Space::Dram, *spec.bias};
      emitLoad(emitter, loadBias);
    }
  }

  const float invCols = 1.0f / static_cast<float>(cols);
  int64_t chunkIndex = 0;
  for (int64_t r0 = 0; r0 < spec.rows;
       r0 += layout.unitsPerChunk, ++chunkIndex) {
    int64_t rc = std::min(layout.unitsPerChunk, spec.rows - r0);
    // The chunk as loaded and stored (`in`), and its f32 working copy `x`
    // (the same rc x cols block in f32).
    const Operand2D in =
        denseOperand(Space::Acc, layout.accIo[chunkIndex % 2], cols, io);
    const Operand2D x =
        denseOperand(Space::Acc, layout.accSlot[chunkIndex % 2], cols);
    // Per-row statistics: written as rc x 1 columns (dpitch one float) by
    // the reductions, read as col-broadcast operands, and transformed as
    // one row of rc values.
    auto column = [&](uint64_t address) {
      return Operand2D{Space::Vrf, address, kF32, kF32Format};
    };
    auto asRow = [&](uint64_t address) {
      return denseOperand(Space::Vrf, address, rc);
    };
    DmaLoad load;
    load.dst = in.ref();
    load.src = {Space::Dram, spec.input + uint64_t(r0 * ioRowBytes)};
    load.format = io;
    load.x = cols;
    load.y = rc;
    emitLoad(emitter, load);

    switch (spec.kind) {
    case RowKernel::ReduceSum:
    case RowKernel::ReduceMean:
    case RowKernel::ReduceMax: {
      uint64_t stat = layout.vrfStat[chunkIndex % 2];
      emitReduce(emitter, reduceOp, column(stat), in, Axis::Cols, rc, cols);
      if (spec.kind == RowKernel::ReduceMean)
        emitScalar(emitter, Opcode::VsMul, asRow(stat), asRow(stat), invCols, 1,
                   rc);
      storeResults(spec.output + uint64_t(io.rowBytes(r0)), asRow(stat), 1, rc,
                   layout.vrfOut[chunkIndex % 2]);
      continue;
    }
    case RowKernel::Softmax: {
      uint64_t max = layout.vrfStat[0], sum = layout.vrfStat[1];
      emitReduce(emitter, Opcode::VRmax, column(max), in, Axis::Cols, rc, cols);
      emitBinary(emitter, Opcode::VSub, x, in, column(max), Bcast::Col, rc,
                 cols);
      emitUnary(emitter, Opcode::VExp, x, x, rc, cols);
      emitReduce(emitter, Opcode::VRsum, column(sum), x, Axis::Cols, rc, cols);
      emitUnary(emitter, Opcode::VRecip, asRow(sum), asRow(sum), 1, rc);
      emitBinary(emitter, Opcode::VMul, in, x, column(sum), Bcast::Col, rc,
                 cols);
      break;
    }
    case RowKernel::LayerNorm: {
      uint64_t mean = layout.vrfStat[0], var = layout.vrfStat[1];
      const Operand2D sq = denseOperand(Space::Acc, layout.accScratch, cols);
      emitReduce(emitter, Opcode::VRsum, column(mean), in, Axis::Cols, rc,
                 cols);
      emitScalar(emitter, Opcode::VsMul, asRow(mean), asRow(mean), invCols, 1,
                 rc);
      emitBinary(emitter, Opcode::VSub, x, in, column(mean), Bcast::Col, rc,
                 cols);
      emitBinary(emitter, Opcode::VMul, sq, x, x, Bcast::None, rc, cols);
      emitReduce(emitter, Opcode::VRsum, column(var), sq, Axis::Cols, rc, cols);
      emitScalar(emitter, Opcode::VsMul, asRow(var), asRow(var), invCols, 1,
                 rc);
      emitScalar(emitter, Opcode::VsAdd, asRow(var), asRow(var), spec.epsilon,
                 1, rc);
      emitUnary(emitter, Opcode::VRsqrt, asRow(var), asRow(var), 1, rc);
      emitBinary(emitter, Opcode::VMul, x, x, column(var), Bcast::Col, rc,
                 cols);
      // The last op narrows into `in`.
      emitBinary(emitter, Opcode::VMul, spec.bias ? x : in, x, scale,
                 Bcast::Row, rc, cols);
      if (spec.bias)
        emitBinary(emitter, Opcode::VAdd, in, x, bias, Bcast::Row, rc, cols);
      break;
    }
    }
    DmaStore store;
    store.dst = {Space::Dram, spec.output + uint64_t(r0 * ioRowBytes)};
    store.src = in.ref();
    store.format = io;
    store.x = cols;
    store.y = rc;
    emitStore(emitter, store);
  }
}

//===----------------------------------------------------------------------===//
// accel op adapters
//===----------------------------------------------------------------------===//

/// The static f32, f16 or bf16 type of `value`, or null with a reason.
RankedTensorType getCardType(Value value, StringRef opName,
                             std::string &reason) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !allCardFloat(TypeRange{type}, opName, reason))
    return nullptr;
  if (!type.hasStaticShape() || type.getRank() == 0 ||
      type.getNumElements() == 0) {
    reason = (opName + " needs a static, non-empty tensor of rank >= 1 for "
                       "the card")
                 .str();
    return nullptr;
  }
  return type;
}

/// Softmax / layer_norm: the normalised axis must be the last one.
bool isLastAxis(int64_t axis, int64_t rank) {
  return axis == -1 || axis == rank - 1;
}

/// The spec of a `kind` kernel over the last axis of `input` (`axis` as the
/// op gives it), or the reason it cannot run on the card.
FailureOr<RowKernelSpec> buildLastAxisSpec(RowKernel kind, Value input,
                                           int64_t axis, StringRef what,
                                           std::string &reason) {
  RankedTensorType type = getCardType(input, what, reason);
  if (!type)
    return failure();
  if (!isLastAxis(axis, type.getRank())) {
    reason = (what + " runs on the card over the last axis only").str();
    return failure();
  }
  RowKernelSpec spec;
  spec.kind = kind;
  spec.format = *getElementFormat(type);
  spec.cols = type.getShape().back();
  spec.rows = type.getNumElements() / spec.cols;
  return spec;
}

FailureOr<RowKernelSpec> buildSoftmaxSpec(SoftmaxOp op, std::string &reason) {
  return buildLastAxisSpec(RowKernel::Softmax, op.getInput(), op.getAxis(),
                           "softmax", reason);
}

FailureOr<RowKernelSpec> buildLayerNormSpec(LayerNormOp op,
                                            std::string &reason) {
  FailureOr<RowKernelSpec> spec = buildLastAxisSpec(
      RowKernel::LayerNorm, op.getInput(), op.getAxis(), "layer_norm", reason);
  if (failed(spec))
    return failure();
  spec->epsilon = op.getEpsilon().convertToFloat();
  SmallVector<Value, 2> params{op.getScale()};
  if (op.getBias())
    params.push_back(op.getBias());
  for (Value param : params) {
    RankedTensorType paramType = getCardType(param, "layer_norm", reason);
    if (!paramType)
      return failure();
    if (!(getElementFormat(paramType) == std::optional(spec->format))) {
      reason = "layer_norm scale and bias must have the input's element type "
               "on the card";
      return failure();
    }
    if (paramType.getNumElements() != spec->cols) {
      reason = "layer_norm scale and bias must have one value per column";
      return failure();
    }
  }
  return spec;
}

template <typename ReduceOpT>
FailureOr<RowKernelSpec> buildReduceSpec(ReduceOpT op, RowKernel kind,
                                         std::string &reason) {
  StringRef name = op->getName().stripDialect();
  RankedTensorType type = getCardType(op.getInput(), name, reason);
  if (!type)
    return failure();
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  for (int64_t axis : op.getAxes()) {
    if (axis < -rank || axis >= rank) {
      reason = (name + " axis out of range").str();
      return failure();
    }
    axes.push_back(axis < 0 ? axis + rank : axis);
  }
  if (axes.empty())
    for (int64_t axis = 0; axis < rank; ++axis)
      axes.push_back(axis);
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (axes.back() - axes.front() + 1 != static_cast<int64_t>(axes.size())) {
    reason =
        (name + " over non-adjacent axes is not lowered to the card").str();
    return failure();
  }
  // [P, S, D]: the axes before, inside and after the reduced run.
  ArrayRef<int64_t> shape = type.getShape();
  auto product = [](ArrayRef<int64_t> dims) {
    int64_t result = 1;
    for (int64_t dim : dims)
      result *= dim;
    return result;
  };
  int64_t p = product(shape.take_front(axes.front()));
  int64_t s = product(shape.slice(axes.front(), axes.size()));
  int64_t d = product(shape.drop_front(axes.back() + 1));
  RowKernelSpec spec;
  spec.kind = kind;
  spec.format = *getElementFormat(type);
  if (d == 1) {
    spec.rows = p;
    spec.cols = s;
  } else {
    spec.alongRows = true;
    spec.planes = p;
    spec.rows = s;
    spec.cols = d;
  }
  return spec;
}

FailureOr<RowKernelSpec> buildSpec(Operation *op, std::string &reason) {
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return buildSoftmaxSpec(softmax, reason);
  if (auto norm = dyn_cast<LayerNormOp>(op))
    return buildLayerNormSpec(norm, reason);
  if (auto reduce = dyn_cast<ReduceSumOp>(op))
    return buildReduceSpec(reduce, RowKernel::ReduceSum, reason);
  if (auto reduce = dyn_cast<ReduceMeanOp>(op))
    return buildReduceSpec(reduce, RowKernel::ReduceMean, reason);
  if (auto reduce = dyn_cast<ReduceMaxOp>(op))
    return buildReduceSpec(reduce, RowKernel::ReduceMax, reason);
  reason = "not a row kernel";
  return failure();
}

LogicalResult checkRowKernel(Operation *op, const TargetDesc &target,
                             std::string &reason) {
  FailureOr<RowKernelSpec> spec = buildSpec(op, reason);
  if (failed(spec))
    return failure();
  if (!(getElementFormat(op->getResult(0).getType()) ==
        std::optional(spec->format))) {
    reason = (op->getName().stripDialect() +
              " with a result type different from its input's is not "
              "lowered to the card")
                 .str();
    return failure();
  }
  if (!planRowKernel(target, *spec, reason))
    return failure();
  return success();
}

LogicalResult emitRowKernelOp(Operation *op, KernelContext &context) {
  std::string reason;
  FailureOr<RowKernelSpec> spec = buildSpec(op, reason);
  if (failed(spec) || !planRowKernel(context.target, *spec, reason))
    return op->emitOpError() << "cannot run on the card: " << reason;
  spec->input = context.addressOf(op->getOperand(0));
  spec->output = context.addressOf(op->getResult(0));
  if (auto norm = dyn_cast<LayerNormOp>(op)) {
    spec->scale = context.addressOf(norm.getScale());
    if (Value bias = norm.getBias())
      spec->bias = context.addressOf(bias);
  }
  emitRowKernel(context.emitter, context.target, *spec);
  return success();
}

LogicalResult checkLogSoftmax(Operation *, const TargetDesc &,
                              std::string &reason) {
  reason = "log_softmax needs a logarithm, which the NPU has no instruction "
           "for";
  return failure();
}

LogicalResult emitLogSoftmax(Operation *op, KernelContext &) {
  return op->emitOpError("cannot run on the card: no logarithm instruction");
}
} // namespace

void mlir::nnaccel::npu_lowering::attachNormKernels(MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkRowKernel, emitRowKernelOp>, SoftmaxOp,
                   LayerNormOp, ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(
      context);
  attachCardKernel<CardKernelModel<checkLogSoftmax, emitLogSoftmax>,
                   LogSoftmaxOp>(context);
}
