//===- NPUOps.td - npu operations --------------------------*- tablegen -*-===//
//
// Umbrella file for the npu ops: `npu.program`, the per-core instruction
// container, and the instruction ops generated from the ISA table into
// NPUInstructionOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUOPS_TD
#define NNACCEL_DIALECT_NPU_NPUOPS_TD

include "NPUBase.td"
include "NPUAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def NPU_ProgramOp : NPU_Op<"program", [
    IsolatedFromAbove, Symbol, SingleBlock, NoTerminator,
    NoRegionArguments]> {
  let summary = "the instruction stream of one core";
  let description = [{
    An `npu.program` is what one core runs, the IR form of
    `nnaccel::isa::Program`: the card and core recorded in the binary header
    and, in its single block, the instructions in program order. Only
    instruction ops may appear in the body; there is no terminator (`npu.halt`
    is an ordinary instruction that the ISA requires last).

    `target` names the target description the program is verified against:
    a name in targets/ (`"default"` is targets/default.json) or a path to a
    JSON file (absolute, or relative to the working directory). When absent,
    the `npu.target` attribute of the nearest enclosing op that has one is
    used, then the tool's `--npu-target` option. With a target, the verifier
    runs `nnaccel::isa::verifyProgram` (loop structure, `halt` placement,
    scalar register definedness, chains, memory bounds and alignment, use of
    undefined on-chip memory, token deadlock and balance) and reports each
    diagnostic at the instruction it concerns. `pinned_mrf` lists the
    [begin, end) byte ranges of the core's MRF that a setup program loads
    before the program first runs (pinned weights, accel-pin-weights); the
    verifier takes them as written. Without a target, each instruction
    is still checked for field ranges and the target-independent
    per-instruction rules.

    Example:

    ```mlir
    npu.program @card0_core1 card = 0 core = 1 target = "default" {
      npu.s.li s1 imm = 4096
      npu.dma.ld vrf[0x0], dram[s1], f32 x = 64 y = 1 z = 1 push_next
      npu.v.relu vrf[0x100], vrf[0x0], f32, f32 rows = 1 cols = 64 pop_prev push_next
      npu.dma.st dram[0x0], vrf[0x100], f32 x = 64 y = 1 z = 1 pop_prev
      npu.halt
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$card, I64Attr:$core,
                       OptionalAttr<StrAttr>:$target,
                       OptionalAttr<DenseI64ArrayAttr>:$pinned_mrf);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `card` `=` $card `core` `=` $core (`target` `=` $target^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "uint16_t":$card,
                   "uint16_t":$core, CArg<"::llvm::StringRef", "{}">:$target)>
  ];
  let extraClassDeclaration = [{
    /// The instructions, in program order.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def NPU_DramTensorOp : NPU_Op<"dram_tensor", [Pure]> {
  let summary = "a tensor that a card's programs leave in its DRAM";
  let description = [{
    The result of a lowered op inside an `accel.card_partition`: the value
    is no longer computed by IR but by the partition's `npu.program`s, which
    write it, densely packed in row-major order, at byte `address` of the
    card's DRAM. `accel-lower-to-npu` replaces every op it lowers with these,
    so a lowered partition body is its memory contract: inputs (block
    arguments, at `input_addresses`), weights (constants with
    `accel.dram_address`) and the tensors the programs produce.

    ```mlir
    %y = npu.dram_tensor at 4096 : tensor<1x32xf32>
    ```
  }];
  let arguments = (ins I64Attr:$address);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "`at` $address attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def NPU_SharedTensorOp : NPU_Op<"shared_tensor", [Pure]> {
  let summary = "a tensor that a card's programs leave in its SHARED memory";
  let description = [{
    Like `npu.dram_tensor`, for an intermediate the memory plan kept in the
    card's SHARED memory (`accel.result_shared_address`): the partition's
    programs write it, densely packed in row-major order, at byte `address`
    of SHARED, and only the partition's own programs read it.

    ```mlir
    %t = npu.shared_tensor at 512 : tensor<64xf32>
    ```
  }];
  let arguments = (ins I64Attr:$address);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "`at` $address attr-dict `:` type($result)";
}

include "NPUInstructionOps.td"

#endif // NNACCEL_DIALECT_NPU_NPUOPS_TD
