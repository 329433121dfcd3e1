//===- KernelOperands.cpp - 2-D operands and the instructions on them ----===//
//
// See KernelOperands.h. Each helper fills the fields of one instruction from
// its blocks; the emitter derives the memory effects and tokens.
//
//===----------------------------------------------------------------------===//

#include "KernelOperands.h"

#include <algorithm>
#include <cstring>

using namespace mlir::nnaccel::npu_lowering;
namespace build = ::nnaccel::isa::build;
using ::nnaccel::isa::Axis;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;

void mlir::nnaccel::npu_lowering::emitUnary(ProgramEmitter &emitter,
                                            Opcode opcode, const Operand2D &dst,
                                            const Operand2D &a, int64_t rows,
                                            int64_t cols) {
  emitter.emit(build::VectorUnary(opcode)
                   .dst(dst.ref())
                   .a(a.ref())
                   .dt(dst.format.dtype)
                   .at(a.format.dtype)
                   .rows(rows)
                   .cols(cols)
                   .dpitch(dst.pitch)
                   .apitch(a.pitch)
                   .chained(dst.isChain()));
}

void mlir::nnaccel::npu_lowering::emitScalar(ProgramEmitter &emitter,
                                             Opcode opcode,
                                             const Operand2D &dst,
                                             const Operand2D &a, float imm,
                                             int64_t rows, int64_t cols) {
  emitter.emit(build::VectorScalar(opcode)
                   .dst(dst.ref())
                   .a(a.ref())
                   .dt(dst.format.dtype)
                   .at(a.format.dtype)
                   .rows(rows)
                   .cols(cols)
                   .dpitch(dst.pitch)
                   .apitch(a.pitch)
                   .imm(imm)
                   .chained(dst.isChain()));
}

void mlir::nnaccel::npu_lowering::emitBinary(ProgramEmitter &emitter,
                                             Opcode opcode,
                                             const Operand2D &dst,
                                             const Operand2D &a,
                                             const Operand2D &b, Bcast bcast,
                                             int64_t rows, int64_t cols) {
  emitter.emit(build::VectorBinary(opcode)
                   .dst(dst.ref())
                   .a(a.ref())
                   .b(b.ref())
                   .dt(dst.format.dtype)
                   .at(a.format.dtype)
                   .bt(b.format.dtype)
                   .rows(rows)
                   .cols(cols)
                   .dpitch(dst.pitch)
                   .apitch(a.pitch)
                   .bpitch(b.pitch)
                   .bcast(bcast)
                   .chained(dst.isChain()));
}

void mlir::nnaccel::npu_lowering::emitReduce(ProgramEmitter &emitter,
                                             Opcode opcode,
                                             const Operand2D &dst,
                                             const Operand2D &a, Axis axis,
                                             int64_t rows, int64_t cols) {
  emitter.emit(build::VectorReduce(opcode)
                   .dst(dst.ref())
                   .a(a.ref())
                   .dt(dst.format.dtype)
                   .at(a.format.dtype)
                   .rows(rows)
                   .cols(cols)
                   .dpitch(dst.pitch)
                   .apitch(a.pitch)
                   .axis(axis)
                   .chained(dst.isChain()));
}

void mlir::nnaccel::npu_lowering::emitMm(ProgramEmitter &emitter,
                                         const Operand2D &dst,
                                         const Operand2D &a, const Operand2D &w,
                                         int64_t rows, int64_t k, int64_t n,
                                         bool accumulate,
                                         int64_t activationZeroPoint) {
  emitter.emit(build::Mm()
                   .dst(dst.ref())
                   .a(a.ref())
                   .w(w.ref())
                   .dt(dst.format.dtype)
                   .at(a.format.dtype)
                   .wt(w.format.dtype)
                   .m(rows)
                   .k(k)
                   .n(n)
                   .dpitch(dst.pitch)
                   .apitch(a.pitch)
                   .acc(accumulate)
                   .azp(activationZeroPoint)
                   .chained(dst.isChain()));
}

void mlir::nnaccel::npu_lowering::emitQuantConvert(
    ProgramEmitter &emitter, Opcode opcode, const Operand2D &dst,
    const Operand2D &a, const Operand2D &scales, bool perColumn,
    int64_t zeroPoint, int64_t rows, int64_t cols) {
  emitter.emit(build::VectorQuant(opcode)
                   .dst(dst.ref())
                   .a(a.ref())
                   .s(scales.ref())
                   .dt(dst.format.dtype)
                   .at(a.format.dtype)
                   .rows(rows)
                   .cols(cols)
                   .dpitch(dst.pitch)
                   .apitch(a.pitch)
                   .zp(zeroPoint)
                   .perch(perColumn)
                   .chained(dst.isChain()));
}

void mlir::nnaccel::npu_lowering::emitCopy(ProgramEmitter &emitter,
                                           const Operand2D &dst,
                                           const Operand2D &a, int64_t rows,
                                           int64_t cols) {
  emitUnary(emitter, dst.format == a.format ? Opcode::VMov : Opcode::VCvt, dst,
            a, rows, cols);
}

void mlir::nnaccel::npu_lowering::emitRepeatRow(ProgramEmitter &emitter,
                                                const Operand2D &dst,
                                                const Operand2D &row,
                                                int64_t cols, int64_t times) {
  if (times <= 0 || cols <= 0)
    return;
  emitCopy(emitter, dst, row, 1, cols);
  const int64_t total = cols * times;
  for (int64_t written = cols; written < total;) {
    const int64_t n = std::min({written, total - written, kMaxCount});
    emitCopy(emitter, dst.at(0, written), dst, 1, n);
    written += n;
  }
}

void mlir::nnaccel::npu_lowering::emitFillValues(ProgramEmitter &emitter,
                                                 const Operand2D &dst,
                                                 llvm::ArrayRef<float> values) {
  for (size_t i = 0; i < values.size();) {
    size_t end = i + 1;
    while (end < values.size() && values[end] == values[i])
      ++end;
    emitFill(emitter, dst.at(0, int64_t(i)), 1, int64_t(end - i), values[i]);
    i = end;
  }
}

void mlir::nnaccel::npu_lowering::emitFillBits(ProgramEmitter &emitter,
                                               const Operand2D &dst,
                                               int64_t rows, int64_t cols,
                                               uint32_t bits) {
  for (int64_t r0 = 0; r0 < rows; r0 += kMaxCount) {
    const Operand2D piece = dst.at(r0);
    emitter.emit(build::VFill()
                     .dst(piece.ref())
                     .dt(dst.format.dtype)
                     .rows(std::min<int64_t>(kMaxCount, rows - r0))
                     .cols(cols)
                     .dpitch(dst.pitch)
                     .immBits(bits));
  }
}

void mlir::nnaccel::npu_lowering::emitFill(ProgramEmitter &emitter,
                                           const Operand2D &dst, int64_t rows,
                                           int64_t cols, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  emitFillBits(emitter, dst, rows, cols, bits);
}

void mlir::nnaccel::npu_lowering::emitActivation(ProgramEmitter &emitter,
                                                 const ActivationSpec &act,
                                                 const Operand2D &block,
                                                 int64_t rows, int64_t cols) {
  switch (act.kind) {
  case ActivationSpec::None:
    break;
  case ActivationSpec::Relu:
    emitUnary(emitter, Opcode::VRelu, block, block, rows, cols);
    break;
  case ActivationSpec::Sigmoid:
    emitUnary(emitter, Opcode::VSigm, block, block, rows, cols);
    break;
  case ActivationSpec::Tanh:
    emitUnary(emitter, Opcode::VTanh, block, block, rows, cols);
    break;
  case ActivationSpec::Gelu:
    emitUnary(emitter, Opcode::VGelu, block, block, rows, cols);
    break;
  case ActivationSpec::Clip:
    if (act.min)
      emitScalar(emitter, Opcode::VsMax, block, block, *act.min, rows, cols);
    if (act.max)
      emitScalar(emitter, Opcode::VsMin, block, block, *act.max, rows, cols);
    break;
  }
}

void mlir::nnaccel::npu_lowering::emitLoad(ProgramEmitter &emitter,
                                           const DmaLoad &load) {
  const ElementFormat &f = load.format;
  emitter.emit(
      build::DmaLd()
          .dst(load.dst)
          .src(load.src)
          // mxfp8e5m2 blocks move as mxfp8e4m3 (same storage; only mm's
          // wvar tells the elements apart).
          .dt(::nnaccel::isa::storageCode(f.dtype))
          .x(load.x)
          .y(load.y)
          .z(load.z)
          .sy(load.sy.value_or(f.rowBytes(load.x)))
          .sz(load.sz)
          .dpitch(load.dpitch.value_or(f.rowBytes(load.pl + load.x + load.pr)))
          .pt(load.pt)
          .pb(load.pb)
          .pl(load.pl)
          .pr(load.pr));
}

void mlir::nnaccel::npu_lowering::emitStore(ProgramEmitter &emitter,
                                            const DmaStore &store) {
  const ElementFormat &f = store.format;
  emitter.emit(build::DmaSt()
                   .dst(store.dst)
                   .src(store.src)
                   .dt(::nnaccel::isa::storageCode(f.dtype))
                   .x(store.x)
                   .y(store.y)
                   .z(store.z)
                   .dy(store.dy.value_or(f.rowBytes(store.x)))
                   .dz(store.dz)
                   .spitch(store.spitch.value_or(f.rowBytes(store.x))));
}
