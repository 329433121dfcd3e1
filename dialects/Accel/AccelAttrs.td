//===- AccelAttrs.td - accel enums and attributes ----------*- tablegen -*-===//
//
// Enumerations used by op attributes and the placement attribute that records
// where an op runs (card, cores, precision, memory).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ACCELATTRS_TD
#define NNACCEL_DIALECT_ACCEL_ACCELATTRS_TD

include "AccelBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enumerations.
//===----------------------------------------------------------------------===//

def Accel_Activation : I32EnumAttr<"Activation",
    "activation fused into a producer", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"relu", 1>,
      I32EnumAttrCase<"clip", 2>, I32EnumAttrCase<"sigmoid", 3>,
      I32EnumAttrCase<"tanh", 4>, I32EnumAttrCase<"gelu", 5>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_ActivationAttr : EnumAttr<Accel_Dialect, Accel_Activation, "act"> {
  let assemblyFormat = "`<` $value `>`";
}

def Accel_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "GELU formula", [I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_GeluApproximationAttr
    : EnumAttr<Accel_Dialect, Accel_GeluApproximation, "gelu_approx"> {
  let assemblyFormat = "`<` $value `>`";
}

def Accel_PadMode : I32EnumAttr<"PadMode", "padding mode", [
      I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"reflect", 1>,
      I32EnumAttrCase<"edge", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_PadModeAttr : EnumAttr<Accel_Dialect, Accel_PadMode, "pad_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def Accel_BagMode : I32EnumAttr<"BagMode", "embedding bag pooling", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_BagModeAttr : EnumAttr<Accel_Dialect, Accel_BagMode, "bag_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def Accel_RNNDirection : I32EnumAttr<"RNNDirection", "recurrence direction", [
      I32EnumAttrCase<"forward", 0>, I32EnumAttrCase<"reverse", 1>,
      I32EnumAttrCase<"bidirectional", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_RNNDirectionAttr
    : EnumAttr<Accel_Dialect, Accel_RNNDirection, "rnn_direction"> {
  let assemblyFormat = "`<` $value `>`";
}

def Accel_CompareKind : I32EnumAttr<"CompareKind", "comparison predicate", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_CompareKindAttr
    : EnumAttr<Accel_Dialect, Accel_CompareKind, "compare">;

def Accel_MemoryKind : I32EnumAttr<"MemoryKind", "memory level", [
      I32EnumAttrCase<"dram", 0>, I32EnumAttrCase<"shared", 1>,
      I32EnumAttrCase<"local", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_MemoryKindAttr : EnumAttr<Accel_Dialect, Accel_MemoryKind, "memory"> {
  // Bare keyword, so a placement reads `memory = local`.
  let assemblyFormat = "$value";
}

//===----------------------------------------------------------------------===//
// Placement.
//===----------------------------------------------------------------------===//

def Accel_PlacementAttr : AttrDef<Accel_Dialect, "Placement"> {
  let mnemonic = "placement";
  let summary = "where an op runs: card, cores, precision and memory hint";
  let description = [{
    Records a placement decision or a user hint. `card` is the card index
    (-1 for the host); `cores` the set of accelerator cores of that card
    that share the op (empty: the backend chooses); `precision` the element
    type the op computes in (absent: the op's own types); `memory` where the
    op's weights should live (absent: the backend chooses).

    ```mlir
    %0 = accel.relu %x {accel.placement = #accel.placement<card = 0,
             cores = [0, 1], precision = f16, memory = local>} : ...
    ```
  }];
  let parameters = (ins
    "int64_t":$card,
    OptionalArrayRefParameter<"int64_t">:$cores,
    OptionalParameter<"::mlir::Type">:$precision,
    OptionalParameter<"::mlir::nnaccel::accel::MemoryKindAttr">:$memory
  );
  // Hand-written so that every optional field may be left out independently.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Placement hints.
//===----------------------------------------------------------------------===//

def Accel_ParallelKind : I32EnumAttr<"ParallelKind", "how an op is split", [
      I32EnumAttrCase<"data", 0>, I32EnumAttrCase<"model", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::accel";
}
def Accel_ParallelKindAttr
    : EnumAttr<Accel_Dialect, Accel_ParallelKind, "parallel_kind"> {
  let assemblyFormat = "$value";
}

/// An optional integer printed bare (`chunks = 4`).
def Accel_OptionalInt : OptionalParameter<"std::optional<int64_t>"> {
  let printer = [{ $_printer << *$_self }];
}

/// Core indices printed as a bracketed list (`cores = [0, 1]`).
def Accel_CoreList : OptionalArrayRefParameter<"int64_t"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
    ::llvm::SmallVector<int64_t> cores;
    if ($_parser.parseCommaSeparatedList(
            ::mlir::AsmParser::Delimiter::Square,
            [&]() { return $_parser.parseInteger(cores.emplace_back()); }))
      return ::mlir::failure();
    return cores;
  }() }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

/// Enum parameters printed as their bare keyword (`parallel = model`).
def Accel_OptionalParallelKind
    : OptionalParameter<"::mlir::nnaccel::accel::ParallelKindAttr"> {
  let printer = [{ $_printer << stringifyParallelKind($_self.getValue()) }];
}
def Accel_OptionalMemoryKind
    : OptionalParameter<"::mlir::nnaccel::accel::MemoryKindAttr"> {
  let printer = [{ $_printer << stringifyMemoryKind($_self.getValue()) }];
}

def Accel_HintAttr : AttrDef<Accel_Dialect, "Hint"> {
  let mnemonic = "hint";
  let summary = "a user's request for where and how an op runs";
  let description = [{
    What a user asks for an op, from the IR, an ONNX node's
    `NodeOpt_NNACCEL_*` attributes or a `--placement` JSON file; every
    field is optional. The compiler honours each field or warns, naming the
    node and the reason, and makes its own choice instead:

    - `card`: the card (-1: the host) -- accel-assign-placement;
    - `cores`: the cores of the card that run the op; with several cores
      the op is split into one piece per core -- accel-split-ops;
    - `chunks`: how many pieces to split the op into; `parallel`: `data`
      (cut a batch / row axis) or `model` (cut the weights' output axis) --
      accel-split-ops;
    - `memory`: where the op's weights live (`local` = SRAM, `shared`,
      `dram`) -- accel-plan-card-memory;
    - `precision`: the element type the op computes in;
    - `order`: a scheduling priority among ops ready at the same time
      (lower first) -- accel-place.

    ```mlir
    %0 = accel.fully_connected %x, %w {accel.hint = #accel.hint<cores = [0, 1], parallel = model>} ...
    ```
  }];
  let parameters = (ins
    Accel_OptionalInt:$card,
    Accel_CoreList:$cores,
    Accel_OptionalInt:$chunks,
    Accel_OptionalParallelKind:$parallel,
    Accel_OptionalMemoryKind:$memory,
    OptionalParameter<"::mlir::Type">:$precision,
    Accel_OptionalInt:$order
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // NNACCEL_DIALECT_ACCEL_ACCELATTRS_TD
