//===- Asm.h - Soft-NPU assembly text form ---------------------*- C++ -*-===//
//
// The textual form of programs, used by tests, by `nnaccel-translate
// --npu-to-asm/--asm-to-npu` and by humans reading compiler output. The
// printer emits a canonical form (positional operands, then non-default
// key=value operands, then @flags) that the parser reads back to the identical
// instruction; the parser also accepts key=value for every field in any order.
// Syntax is specified in docs/isa.md, "Assembly syntax".
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_ASM_H
#define NNACCEL_ISA_ASM_H

#include "nnaccel/ISA/Error.h"
#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Program.h"

#include <string>
#include <string_view>

namespace nnaccel::isa {

/// Canonical text of one instruction (no trailing newline).
std::string printInstruction(const Instruction &inst);
/// Canonical text of a program: `.isa` and `.core` directives, then one
/// instruction per line.
std::string printAsm(const Program &program);

/// Parses one instruction (comments allowed, no directives). Errors are
/// "1:col: message".
Expected<Instruction> parseInstruction(std::string_view text);
/// Parses a program. Errors are "line:col: message" (1-based).
Expected<Program> parseAsm(std::string_view text);

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_ASM_H
