//===- Op.h - Pre-decoded instructions for execution ------------*- C++ -*-===//
//
// isa::Instruction keeps fields in descriptor order, which is right for
// tools but too slow to read per executed instruction. At load time every
// instruction is decoded once into the ISA's flattened form
// (isa::DecodedInstruction), so the execution units and the dispatch checks
// read plain named members.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_EMULATOR_OP_H
#define NNACCEL_LIB_EMULATOR_OP_H

#include "nnaccel/ISA/Decoded.h"

namespace nnaccel::emulator {

using Op = isa::DecodedInstruction;
using isa::MemOperand;

/// Indices of the memory operands in Op::mem and in EffAddrs.
enum OperandId : unsigned {
  OpDst = static_cast<unsigned>(isa::Operand::dst),
  OpSrc = static_cast<unsigned>(isa::Operand::src),
  OpA = static_cast<unsigned>(isa::Operand::a),
  OpB = static_cast<unsigned>(isa::Operand::b),
  OpS = static_cast<unsigned>(isa::Operand::s),
  OpW = static_cast<unsigned>(isa::Operand::w),
  OpTable = static_cast<unsigned>(isa::Operand::table),
  OpIdx = static_cast<unsigned>(isa::Operand::idx),
  OpLen = static_cast<unsigned>(isa::Operand::len),
  OpWts = static_cast<unsigned>(isa::Operand::wts),
  NumOperandIds = isa::NumOperands
};

} // namespace nnaccel::emulator

#endif // NNACCEL_LIB_EMULATOR_OP_H
