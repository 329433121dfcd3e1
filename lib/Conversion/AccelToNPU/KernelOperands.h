//===- KernelOperands.h - 2-D operands and the instructions on them C++ -*-===//
//
// The operand plumbing every kernel shares. An Operand2D is a 2-D operand in
// an on-chip memory (or the chain): the address of its first element, the
// bytes between its rows and its element format; the helpers below append
// one instruction (a vector op, an mm or a DMA) on rows x cols of such
// operands through the ProgramEmitter, which works out what each reads and
// writes from the instruction itself. Conv, norm, pool, elementwise,
// recurrent and the linear kernels all build their programs from these.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELOPERANDS_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELOPERANDS_H

#include "KernelUtils.h"
#include "ProgramEmitter.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>

namespace mlir::nnaccel::npu_lowering {

/// A 2-D operand: `rows` x `cols` of it start at `addr` of `space`, rows
/// `pitch` bytes apart (the shape is given per instruction).
struct Operand2D {
  ::nnaccel::isa::Space space = ::nnaccel::isa::Space::Vrf;
  uint64_t addr = 0;
  int64_t pitch = 0;
  ElementFormat format = kF32Format;

  /// The operand whose first element is `row` rows and `col` elements on.
  Operand2D at(int64_t row, int64_t col = 0) const {
    return {space,
            addr + static_cast<uint64_t>(row * pitch + format.rowBytes(col)),
            pitch, format};
  }
  /// The same first element with another pitch.
  Operand2D withPitch(int64_t newPitch) const {
    return {space, addr, newPitch, format};
  }
  ::nnaccel::isa::MemRef ref() const { return {space, addr, 0}; }
  bool isChain() const { return space == ::nnaccel::isa::Space::Chain; }
};

/// An operand of dense rows of `cols` elements.
inline Operand2D denseOperand(::nnaccel::isa::Space space, uint64_t addr,
                              int64_t cols, ElementFormat format = kF32Format) {
  return {space, addr, format.rowBytes(cols), format};
}

/// The chain (docs/isa.md §5) as an operand: what the previous instruction
/// forwards (as `a`) or what this one forwards to the next (as `dst`).
inline Operand2D chainOperand(int64_t cols, ElementFormat format = kF32Format) {
  return {::nnaccel::isa::Space::Chain, 0, format.rowBytes(cols), format};
}

/// Activation applied to a kernel's result before it is stored.
struct ActivationSpec {
  enum Kind { None, Relu, Clip, Sigmoid, Tanh, Gelu } kind = None;
  std::optional<float> min, max; // clip bounds
};

//===----------------------------------------------------------------------===//
// Vector instructions on rows x cols blocks. A `dst` in the chain makes the
// instruction forward its result to the next one (@chain).
//===----------------------------------------------------------------------===//

/// dst = op(a): v.mov, v.cvt, v.relu, v.sigm, v.tanh, v.exp, v.gelu,
/// v.recip, v.rsqrt, v.abs, v.neg.
void emitUnary(ProgramEmitter &emitter, ::nnaccel::isa::Opcode opcode,
               const Operand2D &dst, const Operand2D &a, int64_t rows,
               int64_t cols);

/// dst = a op imm: vs.add, vs.mul, vs.max, vs.min.
void emitScalar(ProgramEmitter &emitter, ::nnaccel::isa::Opcode opcode,
                const Operand2D &dst, const Operand2D &a, float imm,
                int64_t rows, int64_t cols);

/// dst = a op b: v.add, v.sub, v.mul, v.max, v.min; `b` is a full block,
/// one row (bcast row), one element per row (bcast col) or one element
/// (bcast scalar).
void emitBinary(ProgramEmitter &emitter, ::nnaccel::isa::Opcode opcode,
                const Operand2D &dst, const Operand2D &a, const Operand2D &b,
                ::nnaccel::isa::Bcast bcast, int64_t rows, int64_t cols);

/// dst = reduce(a) along `axis` (cols: one value per row; rows: one row):
/// v.rsum, v.rmax, v.rmin.
void emitReduce(ProgramEmitter &emitter, ::nnaccel::isa::Opcode opcode,
                const Operand2D &dst, const Operand2D &a,
                ::nnaccel::isa::Axis axis, int64_t rows, int64_t cols);

/// dst = a, a bit copy (v.mov) when the formats agree, else a conversion
/// (v.cvt).
void emitCopy(ProgramEmitter &emitter, const Operand2D &dst, const Operand2D &a,
              int64_t rows, int64_t cols);

/// Writes `times` copies of the one-row operand `row` (`cols` elements) one
/// after another from `dst`, which has room for them: one copy, then copies
/// of everything written so far, so log2(times) one-row instructions cost
/// about twice the bytes' vector passes, where one broadcast row per copy
/// would cost `times` passes however narrow the row. The copies' starts
/// (multiples of the row's bytes) must meet dst's memory alignment.
void emitRepeatRow(ProgramEmitter &emitter, const Operand2D &dst,
                   const Operand2D &row, int64_t cols, int64_t times);

/// Fills rows x cols of `dst` with `value` (v.fill), in pieces of at most
/// kMaxCount rows.
void emitFill(ProgramEmitter &emitter, const Operand2D &dst, int64_t rows,
              int64_t cols, float value = 0);
/// Writes `values` into one row of f32 at `dst`: one v.fill per run of
/// equal values (one in all for a per-tensor scale).
void emitFillValues(ProgramEmitter &emitter, const Operand2D &dst,
                    llvm::ArrayRef<float> values);
/// The same with the immediate's raw 32 bits: an integer `dst` format is
/// filled with the integer `bits`.
void emitFillBits(ProgramEmitter &emitter, const Operand2D &dst, int64_t rows,
                  int64_t cols, uint32_t bits);

/// dst[rows x n] (+)= a[rows x k] . w^T on the matrix unit (mm): `w` is an
/// n x k tile in the MRF (dense rows), `dst` accumulates in its format
/// (f32 in ACC) when `accumulate`.
/// Integer activations count from `activationZeroPoint` (mm azp).
void emitMm(ProgramEmitter &emitter, const Operand2D &dst, const Operand2D &a,
            const Operand2D &w, int64_t rows, int64_t k, int64_t n,
            bool accumulate, int64_t activationZeroPoint = 0);
/// dst = v.rqnt(a) (requantize to dst's integer format) or v.dqnt(a)
/// (dequantize an integer `a`) with the f32 scale at `scales` (one, or one
/// per column when `perColumn`) and zero point `zeroPoint`.
void emitQuantConvert(ProgramEmitter &emitter, ::nnaccel::isa::Opcode opcode,
                      const Operand2D &dst, const Operand2D &a,
                      const Operand2D &scales, bool perColumn,
                      int64_t zeroPoint, int64_t rows, int64_t cols);

/// Applies `act` to an f32 operand in place (v.relu / v.sigm / v.tanh /
/// v.gelu, or vs.max + vs.min for a clip).
void emitActivation(ProgramEmitter &emitter, const ActivationSpec &act,
                    const Operand2D &block, int64_t rows, int64_t cols);

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

/// A DMA load (dma.ld) of `z` planes of `y` rows of `x` elements from
/// `src` (rows `sy` bytes apart, planes `sz`) into `dst` (rows `dpitch`
/// bytes apart, planes following each other), with zero padding around
/// every plane. Unset strides are dense: sy and dpitch one row (padding
/// included for dpitch).
struct DmaLoad {
  ::nnaccel::isa::MemRef dst;
  ::nnaccel::isa::MemRef src;
  ElementFormat format = kF32Format;
  int64_t x = 0, y = 1, z = 1;
  std::optional<int64_t> sy, dpitch;
  int64_t sz = 0;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
};
void emitLoad(ProgramEmitter &emitter, const DmaLoad &load);

/// A DMA store (dma.st) of `z` x `y` rows of `x` elements from `src` (rows
/// `spitch` bytes apart) to `dst` (rows `dy` bytes apart, planes `dz`).
/// Unset strides are dense rows.
struct DmaStore {
  ::nnaccel::isa::MemRef dst;
  ::nnaccel::isa::MemRef src;
  ElementFormat format = kF32Format;
  int64_t x = 0, y = 1, z = 1;
  std::optional<int64_t> dy, spitch;
  int64_t dz = 0;
};
void emitStore(ProgramEmitter &emitter, const DmaStore &store);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELOPERANDS_H
