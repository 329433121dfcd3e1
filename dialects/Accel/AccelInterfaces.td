//===- AccelInterfaces.td - accel interfaces and traits ----*- tablegen -*-===//
//
// What passes ask of accel ops without knowing them by name.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ACCELINTERFACES_TD
#define NNACCEL_DIALECT_ACCEL_ACCELINTERFACES_TD

include "mlir/IR/OpBase.td"

def Accel_CardKernelOpInterface : OpInterface<"CardKernelOpInterface"> {
  let cppNamespace = "::mlir::nnaccel::accel";
  let description = [{
    An op that an accelerator card can run: the kernel that checks whether
    the op, with its types and shapes, fits a target, and appends its
    instructions to a card program. The dialect only declares the
    interface; a backend attaches it as external models to the ops it has
    kernels for (the NPU backend: `registerNPUKernelModels` in
    lib/Conversion/AccelToNPU, one model per op family next to its kernel),
    so the dialect and the graph passes never depend on a backend. An op
    without the interface runs on the host.

    Placement asks `checkCardKernel`; the lowering asks it again and then
    calls `emitCardKernel`, so the two cannot disagree.
  }];
  let methods = [
    InterfaceMethod<[{
        Success when the op can run on a card of `target`; otherwise failure
        with a user-facing reason.
      }],
      "::mlir::LogicalResult", "checkCardKernel",
      (ins "const ::nnaccel::isa::TargetDesc &":$target,
           "std::string &":$reason)>,
    InterfaceMethod<[{
        Bytes of card-wide SHARED memory the kernel stages data through on
        `target` (0: none). accel-plan-card-memory allocates them for the
        op and records where (`accel.shared_address`).
      }],
      "uint64_t", "getSharedScratchBytes",
      (ins "const ::nnaccel::isa::TargetDesc &":$target), [{}],
      /*defaultImplementation=*/[{ return 0; }]>,
    InterfaceMethod<[{
        The most cores of a card of `target` the kernel can share the op
        among as one unit (1: a single-core kernel); it can also use any
        smaller number. accel-lower-to-npu gives the kernel the programs of
        the first that many cores its placement names.
      }],
      "unsigned", "getMaxKernelCores",
      (ins "const ::nnaccel::isa::TargetDesc &":$target), [{}],
      /*defaultImplementation=*/[{ return 1; }]>,
    InterfaceMethod<[{
        How many cores (at most getMaxKernelCores) are worth using for the
        op's shapes on `target`: accel-split-ops places an op whose kernel
        prefers several on that many instead of cutting it into pieces.
      }],
      "unsigned", "getPreferredKernelCores",
      (ins "const ::nnaccel::isa::TargetDesc &":$target), [{}],
      /*defaultImplementation=*/[{ return 1; }]>,
    InterfaceMethod<[{
        True when every operand and the result are addressed by the
        kernel's DMA operands (an address immediate, as the memory plan
        gives it): the plan may then keep them in SHARED memory instead of
        DRAM, and the program emitter moves those operands there. False
        for kernels that put tensor addresses in scalar registers
        (emb.gather's index, length and weight lists).
      }],
      "bool", "addressesOperandsDirectly", (ins), [{}],
      /*defaultImplementation=*/[{ return true; }]>,
    InterfaceMethod<[{
        True when the kernel can write the op's (single) result with a row
        pitch larger than its rows, a row being everything from `axis`
        inward (`accel.result_pitch`): the memory plan then makes a concat
        of such results along `axis` in place, each part stored straight
        into its columns of the concat's buffer. Kernels write densely
        packed results unless they say so.
      }],
      "bool", "supportsResultPitch", (ins "int64_t":$axis), [{}],
      /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<[{
        Appends the op's instructions to the program being built in
        `context` (the op passed checkCardKernel for the context's target).
      }],
      "::mlir::LogicalResult", "emitCardKernel",
      (ins "::mlir::nnaccel::npu_lowering::KernelContext &":$context)>
  ];
}

def Accel_SplitOpInterface : OpInterface<"SplitOpInterface"> {
  let cppNamespace = "::mlir::nnaccel::accel";
  let description = [{
    An op whose result can be computed in independent pieces, each reading
    slices of some operands and the whole of the others (SplitRule,
    dialects/Accel/SplitRule.h): matrix products by rows or output columns,
    convolutions by output channels, normalisations by rows, elementwise
    ops by any axis. accel-split-ops asks every op on a multi-core card for
    its rules and builds the pieces with `buildSplitPiece`.
  }];
  let methods = [
    InterfaceMethod<[{
        The ways to split the op's result, in no particular order (empty:
        the op does not split, e.g. for its current shapes).
      }],
      "::llvm::SmallVector<::mlir::nnaccel::accel::SplitRule>",
      "getSplitRules">,
    InterfaceMethod<[{
        Builds one piece of the op: the same computation on `operands` (the
        rule's slices) producing `resultType`. The default clones the op
        with every attribute; ops whose attributes depend on the cut
        extents (a depthwise conv's `groups`) adjust them.
      }],
      "::mlir::Operation *", "buildSplitPiece",
      (ins "::mlir::OpBuilder &":$builder,
           "const ::mlir::nnaccel::accel::SplitRule &":$rule,
           "::mlir::ValueRange":$operands, "::mlir::Type":$resultType), [{}],
      /*defaultImplementation=*/[{
        return ::mlir::nnaccel::accel::buildSplitPieceByCloning(
            builder, $_op, operands, resultType);
      }]>,
    InterfaceMethod<[{
        Joins the partial results of the pieces of a reduction rule into
        the op's result. The default adds them up; an op with a fused
        activation applies it to the sum (its pieces leave it out).
      }],
      "::mlir::Value", "buildReductionJoin",
      (ins "::mlir::OpBuilder &":$builder,
           "const ::mlir::nnaccel::accel::SplitRule &":$rule,
           "::mlir::ValueRange":$partials), [{}],
      /*defaultImplementation=*/[{
        return ::mlir::nnaccel::accel::buildSumOfPartials(
            builder, $_op->getLoc(), partials);
      }]>
  ];
}

// Ops whose cost dominates a model (matrix products, convolutions,
// embedding bags, recurrences): running one on the host deserves a warning.
def Accel_HeavyOp : NativeOpTrait<"HeavyOp"> {
  let cppNamespace = "::mlir::OpTrait::accel";
}

#endif // NNACCEL_DIALECT_ACCEL_ACCELINTERFACES_TD
