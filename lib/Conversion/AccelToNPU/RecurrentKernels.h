//===- RecurrentKernels.h - LSTM and GRU kernels, shared parts --*- C++ -*-===//
//
// What the single-core recurrent kernel (RecurrentKernels.cpp) and the
// multi-core one (MultiCoreRecurrentKernel.cpp) share: accel.lstm and
// accel.gru seen as one recurrent op, its shape, and the entry points the
// card kernel model of the two ops dispatches to.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_RECURRENTKERNELS_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_RECURRENTKERNELS_H

#include "CardKernels.h"
#include "KernelUtils.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include <optional>

namespace mlir::nnaccel::npu_lowering {

enum class Cell { Lstm, Gru };

/// What the kernel needs of an accel.lstm or accel.gru, so one emitter
/// serves both. Values absent from the op (or the cell) are null.
struct RnnOp {
  Cell cell = Cell::Lstm;
  StringRef name;
  Value x, w, r, b, initialH, initialC, peepholes;
  Value y, yH, yC;
  std::optional<float> clip;
  bool linearBeforeReset = false;
  accel::RNNDirection direction = accel::RNNDirection::forward;
  int64_t hidden = 0;
};

inline RnnOp getRnnOp(Operation *operation) {
  RnnOp rnn;
  auto common = [&](auto op) {
    rnn.x = op.getX();
    rnn.w = op.getW();
    rnn.r = op.getR();
    rnn.b = op.getB();
    rnn.initialH = op.getInitialH();
    rnn.y = op.getY();
    rnn.yH = op.getYH();
    if (std::optional<APFloat> clip = op.getClip())
      rnn.clip = clip->convertToFloat();
    rnn.direction = op.getDirection();
    rnn.hidden = static_cast<int64_t>(op.getHiddenSize());
  };
  if (auto op = dyn_cast<accel::LSTMOp>(operation)) {
    common(op);
    rnn.cell = Cell::Lstm;
    rnn.name = "lstm";
    rnn.initialC = op.getInitialC();
    rnn.peepholes = op.getP();
    rnn.yC = op.getYC();
    return rnn;
  }
  auto op = cast<accel::GRUOp>(operation);
  common(op);
  rnn.cell = Cell::Gru;
  rnn.name = "gru";
  rnn.linearBeforeReset = op.getLinearBeforeReset();
  return rnn;
}

struct RnnShape {
  int64_t seq, batch, input, hidden, dirs;
  int64_t gates;  // 4 (lstm) or 3 (gru)
  bool peepholes; // lstm P
  bool reverseOnly;
  ElementFormat format; // of every operand and result but W and R
  // W's and R's: `format`, or a block floating-point format (msfp8, msfp9,
  // mxint8; accel-quantize-block-float) that mm multiplies by activations
  // in `format`.
  ElementFormat weight;
  bool blockWeights() const { return ::nnaccel::isBlock(weight.dtype); }
  int64_t gateCols() const { return gates * hidden; }
};

inline RnnShape getShape(const RnnOp &op) {
  auto x = cast<RankedTensorType>(op.x.getType());
  RnnShape shape;
  shape.seq = x.getDimSize(0);
  shape.batch = x.getDimSize(1);
  shape.input = x.getDimSize(2);
  shape.hidden = op.hidden;
  shape.gates = op.cell == Cell::Lstm ? 4 : 3;
  shape.peepholes = static_cast<bool>(op.peepholes);
  shape.dirs = op.direction == accel::RNNDirection::bidirectional ? 2 : 1;
  shape.reverseOnly = op.direction == accel::RNNDirection::reverse;
  shape.format = getElementFormat(x).value_or(kF32Format);
  shape.weight = shape.format;
  if (std::optional<::nnaccel::DType> w =
          accel::getElementDType(op.w.getType()))
    if (::nnaccel::isBlock(*w))
      shape.weight = ElementFormat(*w);
  return shape;
}

/// The multi-core kernel (MultiCoreRecurrentKernel.cpp): the most cores
/// it can share `op` among (it can use any number up to that; 1: none)...
unsigned getRnnMaxCores(Operation *op,
                        const ::nnaccel::isa::TargetDesc &target);
/// ... and how many of them make the op fastest.
unsigned getRnnPreferredCores(Operation *op,
                              const ::nnaccel::isa::TargetDesc &target);
/// SHARED bytes the multi-core kernel exchanges h through on `cores` cores.
uint64_t getRnnSharedBytes(Operation *op,
                           const ::nnaccel::isa::TargetDesc &target,
                           unsigned cores);
/// MRF bytes of `op`'s W and R pinned across runs (accel-pin-weights) on
/// each core it runs on (getKernelCores order): every direction's W and R
/// tiles on one core, each core's slices of them on several. R must be a
/// constant (W's constancy is the caller's business); nullopt otherwise.
std::optional<SmallVector<uint64_t, 4>>
getRnnPinBytes(Operation *op, const ::nnaccel::isa::TargetDesc &target);
/// The multi-core kernel's part of that, for `cores` cores (nullopt when it
/// cannot share `op` among them).
std::optional<SmallVector<uint64_t, 4>>
getMultiCoreRnnPinBytes(Operation *op, const ::nnaccel::isa::TargetDesc &target,
                        unsigned cores);
/// True when accel-pin-weights pinned `op`'s W and R (`accel.mrf_address`):
/// its tiles then live above the MRF the partition's kernels see
/// (`accel.mrf_work_bytes`), where the pass checked that they fit.
inline bool isRnnPinned(Operation *op) {
  return op->hasAttr(accel::AccelDialect::getMrfAddressAttrName());
}
/// Emits `op` on every core of `context.cores` (at most getRnnMaxCores).
LogicalResult emitMultiCoreRnn(Operation *op, KernelContext &context);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_RECURRENTKERNELS_H
