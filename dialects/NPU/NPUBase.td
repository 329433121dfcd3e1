//===- NPUBase.td - npu dialect definition -----------------*- tablegen -*-===//
//
// The `npu` dialect is the soft-NPU instruction set in MLIR form: one op per
// instruction of include/nnaccel/ISA/Instructions.def, grouped into
// `npu.program` ops (one per core). It is the last level of the compiler and
// the bridge to lib/ISA: verification, assembly and binary encoding are all
// delegated to the ISA library so each rule is defined exactly once.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUBASE_TD
#define NNACCEL_DIALECT_NPU_NPUBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def NPU_Dialect : Dialect {
  let name = "npu";
  let cppNamespace = "::mlir::nnaccel::npu";
  let summary = "Soft-NPU instructions and per-core programs";
  let description = [{
    The `npu` dialect mirrors the soft-NPU ISA (docs/isa.md) one to one:
    every instruction is an op whose attributes are the instruction's fields
    and header flags, and an `npu.program` holds the instruction list one
    core runs. Conversions to and from `nnaccel::isa::Program`
    (dialects/NPU/NPUToISA.h) are lossless, so IR, assembly text and binary
    programs are interchangeable (`nnaccel-translate --npu-to-asm`,
    `--asm-to-npu`, `--npu-to-binary`, `--binary-to-npu`).

    Verification calls lib/ISA. Instruction ops check field ranges and the
    per-instruction rules; an `npu.program` with a known target additionally
    runs the ISA program verifier (loops, scalar registers, chains, memory
    bounds and definedness, dependency tokens). The target is the program's
    `target` attribute, else the `npu.target` attribute of an enclosing op
    (typically the module), else the tool's `--npu-target` option. A target
    is a name in the project's targets/ directory (`"default"`) or a path to
    a JSON file. Without a target only target-independent rules are checked.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Discardable attribute naming the target of the programs nested in the
    /// op that carries it (usually the module).
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("npu.target");
    }
  }];
}

class NPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<NPU_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Instruction ops.
//===----------------------------------------------------------------------===//

// Marks an op as a soft-NPU instruction and verifies it with lib/ISA (see
// npu::InstructionOpTrait in NPUOps.h). Instruction ops live only in a program.
def NPU_InstructionTrait : NativeOpTrait<"InstructionOpTrait"> {
  let cppNamespace = "::mlir::nnaccel::npu";
}

class NPU_InstructionOp<string mnemonic, list<Trait> traits = []>
    : NPU_Op<mnemonic, !listconcat(traits, [
        HasParent<"::mlir::nnaccel::npu::ProgramOp">, NPU_InstructionTrait])>;

#endif // NNACCEL_DIALECT_NPU_NPUBASE_TD
