//===- AccelBase.td - accel dialect definition -------------*- tablegen -*-===//
//
// The `accel` dialect: graph-level tensor operations for inference
// accelerators, plus the attributes that carry placement decisions.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ACCELBASE_TD
#define NNACCEL_DIALECT_ACCEL_ACCELBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Dialect/Quant/QuantOpsBase.td"

def Accel_Dialect : Dialect {
  let name = "accel";
  let cppNamespace = "::mlir::nnaccel::accel";
  let summary = "Graph-level tensor operations for inference accelerators";
  let description = [{
    The `accel` dialect is the graph level of nnaccel. Operations work on
    statically shaped ranked tensors whose element types are floating point
    (f32, f16, bf16), signless integers, or `quant` dialect quantised types.
    Broadcasting follows numpy rules and is checked by the verifiers.

    Decisions taken by passes (card, core set, precision, memory placement)
    are recorded as dialect attributes on the ops they concern, so every
    decision is visible in the IR and can be tested with FileCheck. The
    discardable attribute `accel.placement` holds a `#accel.placement<...>`;
    `accel.host_reason` (a string) says why an op was placed on the host;
    `accel.range` (`array<f64: lo, hi>`, on ops and function arguments) is
    a calibrated value range for post-training quantisation.
    Padding buckets (accel-mask-padding): `accel.padded_axis` (an integer,
    on function arguments) marks the axis a bucketed input is padded along;
    `accel.valid_length` (unit, on an argument) the true length the runtime
    feeds; `accel.padded_axes` (`array<i64: ...>`, on ops and function
    results) the axes of a value that hold padded positions;
    `accel.padding_mask` (a string, on ops) why an op was masked.
  }];
  let dependentDialects = ["::mlir::quant::QuantizationDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the discardable attribute that records an op's placement.
    static constexpr ::llvm::StringLiteral getPlacementAttrName() {
      return ::llvm::StringLiteral("accel.placement");
    }
    /// Name of the discardable integer attribute that records the card DRAM
    /// a lowered card partition uses (its planned peak, in bytes).
    static constexpr ::llvm::StringLiteral getDramBytesAttrName() {
      return ::llvm::StringLiteral("accel.dram_bytes");
    }
    /// Name of the discardable integer attribute that records where a
    /// planned card partition's work memory (inputs, results, scratch)
    /// starts in card DRAM; the card's weights lie below it.
    static constexpr ::llvm::StringLiteral getDramWorkBeginAttrName() {
      return ::llvm::StringLiteral("accel.dram_work_begin");
    }
    /// Name of the discardable integer attribute that gives a weight
    /// constant's address in card DRAM (set by the NPU lowering).
    static constexpr ::llvm::StringLiteral getDramAddressAttrName() {
      return ::llvm::StringLiteral("accel.dram_address");
    }
    /// Name of the discardable integer attribute that gives where in the
    /// card's SHARED memory a card op's kernel stages data (set by the
    /// memory plan for ops whose kernel asks for SHARED scratch).
    static constexpr ::llvm::StringLiteral getSharedAddressAttrName() {
      return ::llvm::StringLiteral("accel.shared_address");
    }
    /// Name of the discardable integer attribute that places a card op's
    /// (single) result in the card's SHARED memory at this byte address
    /// instead of DRAM (set by the memory plan for intermediates that fit;
    /// such an op has no `accel.dram_address`).
    static constexpr ::llvm::StringLiteral getResultSharedAddressAttrName() {
      return ::llvm::StringLiteral("accel.result_shared_address");
    }
    /// Name of the discardable integer attribute that pins a card op's
    /// weight (fully_connected, matmul by a constant, an int8 1x1 conv's
    /// filter matrix) in the MRF of its core
    /// from this byte address on, across runs (set by accel-pin-weights).
    static constexpr ::llvm::StringLiteral getMrfAddressAttrName() {
      return ::llvm::StringLiteral("accel.mrf_address");
    }
    /// Name of the discardable integer attribute on a card op whose kernel
    /// reads constants of its own (the per-channel requantisation scales of
    /// an int8 conv or fully_connected) from this DRAM address, where the
    /// memory plan put an accel.constant holding them (accel-plan-card-memory).
    static constexpr ::llvm::StringLiteral getKernelConstantsAttrName() {
      return ::llvm::StringLiteral("accel.kernel_constants");
    }
    /// Name of the discardable integer attribute on an accel.constant of a
    /// card partition that its card keeps in SHARED across runs, at this
    /// SHARED address: the partition's setup programs copy it there from
    /// its DRAM address, and its kernels read it there (accel-pin-weights).
    static constexpr ::llvm::StringLiteral getPinnedSharedAddressAttrName() {
      return ::llvm::StringLiteral("accel.pinned_shared_address");
    }
    /// Name of the discardable integer attribute that bounds the MRF bytes
    /// the kernels of a card partition with pinned weights may use (the
    /// pinned tiles lie above; set by accel-pin-weights).
    static constexpr ::llvm::StringLiteral getMrfWorkBytesAttrName() {
      return ::llvm::StringLiteral("accel.mrf_work_bytes");
    }
    /// Name of the discardable integer attribute that records the SHARED
    /// memory a planned card partition uses (its peak, in bytes).
    static constexpr ::llvm::StringLiteral getSharedBytesAttrName() {
      return ::llvm::StringLiteral("accel.shared_bytes");
    }
    /// Name of the discardable unit attribute that marks a card op whose
    /// result the memory plan makes out of its operands' memory (a reshape,
    /// a transpose moving only unit dimensions or a contiguous slice viewing
    /// its operand, a concat whose parts are written in place): the op needs
    /// no instructions.
    static constexpr ::llvm::StringLiteral getInPlaceAttrName() {
      return ::llvm::StringLiteral("accel.in_place");
    }
    /// Name of the discardable integer attribute that gives the row pitch,
    /// in bytes, at which a card op writes its result: the result is a part
    /// of an in-place concat along its innermost axis, so its rows (its
    /// innermost dimension) lie that far apart in the concat's buffer
    /// instead of densely packed. Set by the memory plan, only on ops whose
    /// kernel supports it (CardKernelOpInterface::supportsResultPitch).
    static constexpr ::llvm::StringLiteral getResultPitchAttrName() {
      return ::llvm::StringLiteral("accel.result_pitch");
    }
    /// Name of the discardable integer attribute on an lstm / gru that
    /// accel-pad-recurrent gave a larger hidden size: the layer's size
    /// before padding (its results are sliced back to it).
    static constexpr ::llvm::StringLiteral getPaddedHiddenAttrName() {
      return ::llvm::StringLiteral("accel.padded_hidden");
    }
    /// Name of the discardable attribute `array<i64: axis, piece, pieces>`
    /// that marks one piece of an op accel-split-ops divided across cores
    /// (axis -1: a partial result of a reduction split, summed after).
    static constexpr ::llvm::StringLiteral getSplitAttrName() {
      return ::llvm::StringLiteral("accel.split");
    }
    /// Name of the discardable integer attribute that numbers the launch a
    /// card partition runs in: consecutive card partitions of distinct
    /// cards that the runtime runs side by side in one emulator launch
    /// (set by accel-plan-card-transfers).
    static constexpr ::llvm::StringLiteral getLaunchAttrName() {
      return ::llvm::StringLiteral("accel.launch");
    }
    /// Name of the discardable #accel.hint attribute: a user's request for
    /// where and how an op runs.
    static constexpr ::llvm::StringLiteral getHintAttrName() {
      return ::llvm::StringLiteral("accel.hint");
    }
    /// Name of the discardable attribute `array<i64: start, cycles>` that
    /// accel-place sets on card ops: when the op starts on its core and
    /// how long it runs, in modelled cycles from the partition's start.
    static constexpr ::llvm::StringLiteral getScheduleAttrName() {
      return ::llvm::StringLiteral("accel.schedule");
    }
    /// Name of the discardable attribute `array<f64: lo, hi>` that gives
    /// the calibrated range of an op's single float result (on the op) or
    /// of a function argument (an argument attribute): the clipping range
    /// a post-training quantiser maps onto the integer grid. Set by
    /// calibration (nnaccel-compile --calibration / --load-profile).
    static constexpr ::llvm::StringLiteral getRangeAttrName() {
      return ::llvm::StringLiteral("accel.range");
    }
    /// Padding buckets (accel-mask-padding): the argument attribute naming
    /// the padded axis of a bucketed input.
    static constexpr ::llvm::StringLiteral getPaddedAxisAttrName() {
      return ::llvm::StringLiteral("accel.padded_axis");
    }
    /// The unit argument attribute of the true-length input.
    static constexpr ::llvm::StringLiteral getValidLengthAttrName() {
      return ::llvm::StringLiteral("accel.valid_length");
    }
    /// `array<i64: ...>` on an op (its first result) or a function result:
    /// the axes that hold padded positions.
    static constexpr ::llvm::StringLiteral getPaddedAxesAttrName() {
      return ::llvm::StringLiteral("accel.padded_axes");
    }
    /// A string on an op given a padding mask: which kind of mask.
    static constexpr ::llvm::StringLiteral getPaddingMaskAttrName() {
      return ::llvm::StringLiteral("accel.padding_mask");
    }
    /// Name of the discardable string attribute that says why an op runs on
    /// the host.
    static constexpr ::llvm::StringLiteral getHostReasonAttrName() {
      return ::llvm::StringLiteral("accel.host_reason");
    }
  }];
}

class Accel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Accel_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints.
//===----------------------------------------------------------------------===//

def Accel_BlockFloat : Type<
    CPred<"::llvm::isa<::mlir::nnaccel::accel::BlockFloatType>($_self)">,
    "block floating point", "::mlir::nnaccel::accel::BlockFloatType">;

def Accel_Rowwise : Type<
    CPred<"::llvm::isa<::mlir::nnaccel::accel::RowwiseType>($_self)">,
    "rowwise-quantized table", "::mlir::nnaccel::accel::RowwiseType">;

def Accel_ElementType : AnyTypeOf<[AnyFloat, AnySignlessInteger,
                                   quant_QuantizedType],
                                  "float, signless integer or quantized">;
// What a tensor can hold in memory: the computable element types, the
// block floating-point formats, which only constants and reshapes carry (a
// kernel that computes in them converts on the card), and unsigned bytes
// (`ui8`, ONNX uint8 data) and the host-only `ui16` / `ui32` (ONNX uint16 /
// uint32), which ops reach through accel.cast.
def Accel_StoredElementType : AnyTypeOf<[Accel_ElementType, Accel_BlockFloat,
                                         UI8, UI16, UI32],
    "float, signless integer, quantized, block floating point, ui8, ui16 or "
    "ui32">;
// What accel.cast converts between: the computable element types and the
// unsigned storage types.
def Accel_CastElementType : AnyTypeOf<[Accel_ElementType, UI8, UI16, UI32],
    "float, signless integer, quantized, ui8, ui16 or ui32">;
def Accel_FloatElementType : AnyTypeOf<[AnyFloat, quant_QuantizedType],
                                       "float or quantized">;
// Constants may also hold rowwise-quantized embedding tables, which only the
// table operands of embedding_bag and gather read (no reshapes: the layout
// is per row).
def Accel_ConstantElementType : AnyTypeOf<
    [Accel_StoredElementType, Accel_Rowwise],
    "float, signless integer, quantized, block floating point, ui8 or rowwise">;
def Accel_TableElementType : AnyTypeOf<[Accel_ElementType, Accel_Rowwise],
    "float, signless integer, quantized or rowwise">;

def Accel_Tensor : StaticShapeTensorOf<[Accel_ElementType]>;
def Accel_StoredTensor : StaticShapeTensorOf<[Accel_StoredElementType]>;
def Accel_CastTensor : StaticShapeTensorOf<[Accel_CastElementType]>;
def Accel_ConstantTensor : StaticShapeTensorOf<[Accel_ConstantElementType]>;
def Accel_TableTensor : StaticShapeTensorOf<[Accel_TableElementType]>;
def Accel_FloatTensor : StaticShapeTensorOf<[Accel_FloatElementType]>;
def Accel_RealTensor : StaticShapeTensorOf<[AnyFloat]>;
// A recurrent op's W or R: float, or block floating point
// (accel-quantize-block-float).
def Accel_RecurrentWeightTensor : StaticShapeTensorOf<[AnyFloat,
                                                      Accel_BlockFloat]>;
def Accel_IntTensor : StaticShapeTensorOf<[AnySignlessInteger]>;
def Accel_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Accel_BoolTensor : StaticShapeTensorOf<[I1]>;

#endif // NNACCEL_DIALECT_ACCEL_ACCELBASE_TD
