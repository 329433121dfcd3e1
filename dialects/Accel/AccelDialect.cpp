//===- AccelDialect.cpp - accel dialect registration ----------------------===//
//
// Registers the accel operations and attributes, materialises folded
// constants, and checks the discardable `accel.placement` attribute wherever
// it appears.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelDialect.h"
#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nnaccel::accel;

#include "Accel/AccelDialect.cpp.inc"
#include "Accel/AccelEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Accel/AccelAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Accel/AccelTypes.cpp.inc"

#include "Accel/AccelInterfaces.cpp.inc"

void AccelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Accel/AccelOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Accel/AccelAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "Accel/AccelTypes.cpp.inc"
      >();
}

Operation *AccelDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

/// What a calibrated range can describe: a tensor of real values, float or
/// already quantised (a quantiser may keep the attribute on the ops it
/// rewrites).
static bool isRealTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         isa<FloatType, quant::QuantizedType>(tensor.getElementType());
}

/// Checks the form of an `accel.range` value: array<f64: lo, hi>, finite,
/// lo <= hi.
static LogicalResult verifyRange(Attribute value,
                                 function_ref<InFlightDiagnostic()> emitError) {
  auto range = dyn_cast<DenseF64ArrayAttr>(value);
  if (!range || range.size() != 2 || !std::isfinite(range[0]) ||
      !std::isfinite(range[1]) || range[0] > range[1])
    return emitError() << "'" << AccelDialect::getRangeAttrName()
                       << "' must be array<f64: lo, hi> with finite lo <= hi";
  return success();
}

/// Checks an `accel.padded_axes` value: distinct increasing axes of `type`
/// (a ranked tensor).
static LogicalResult
verifyPaddedAxes(Attribute value, Type type,
                 function_ref<InFlightDiagnostic()> emitError) {
  auto axes = dyn_cast<DenseI64ArrayAttr>(value);
  auto tensor = dyn_cast_if_present<RankedTensorType>(type);
  bool ok = axes && tensor && !axes.empty();
  for (int64_t i = 0; ok && i < axes.size(); ++i)
    ok = axes[i] >= 0 && axes[i] < tensor.getRank() &&
         (i == 0 || axes[i] > axes[i - 1]);
  if (!ok)
    return emitError() << "'" << AccelDialect::getPaddedAxesAttrName()
                       << "' must be array<i64: ...> of increasing axes of a "
                          "ranked tensor result";
  return success();
}

LogicalResult AccelDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() == getPlacementAttrName()) {
    if (!isa<PlacementAttr>(attr.getValue()))
      return op->emitOpError() << "'" << getPlacementAttrName()
                               << "' must be a #accel.placement attribute";
    return success();
  }
  if (attr.getName() == getHintAttrName()) {
    if (!isa<HintAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << getHintAttrName() << "' must be a #accel.hint attribute";
    return success();
  }
  if (attr.getName() == getScheduleAttrName()) {
    auto schedule = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!schedule || schedule.size() != 2 || schedule[0] < 0 ||
        schedule[1] < 0 || !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError()
             << "'" << getScheduleAttrName()
             << "' must be array<i64: start, cycles> (both >= 0) on an op "
                "of an accel.card_partition";
    return success();
  }
  if (attr.getName() == getSplitAttrName()) {
    auto split = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!split || split.size() != 3 || split[0] < -1 || split[2] < 1 ||
        split[1] < 0 || split[1] >= split[2] ||
        !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError()
             << "'" << getSplitAttrName()
             << "' must be array<i64: axis, piece, pieces> (axis -1: a "
                "partial sum; 0 <= piece < pieces) on an op of an "
                "accel.card_partition";
    return success();
  }
  if (attr.getName() == getLaunchAttrName()) {
    auto launch = dyn_cast<IntegerAttr>(attr.getValue());
    if (!launch || launch.getInt() < 0 || !isa<CardPartitionOp>(op))
      return op->emitOpError() << "'" << getLaunchAttrName()
                               << "' must be a non-negative integer on an "
                                  "accel.card_partition";
    return success();
  }
  if (attr.getName() == getDramWorkBeginAttrName()) {
    auto begin = dyn_cast<IntegerAttr>(attr.getValue());
    if (!begin || begin.getInt() < 0 || !isa<CardPartitionOp>(op))
      return op->emitOpError() << "'" << getDramWorkBeginAttrName()
                               << "' must be a non-negative integer on an "
                                  "accel.card_partition";
    return success();
  }
  if (attr.getName() == getSharedBytesAttrName()) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bytes || bytes.getInt() < 0 || !isa<CardPartitionOp>(op))
      return op->emitOpError() << "'" << getSharedBytesAttrName()
                               << "' must be a non-negative integer on an "
                                  "accel.card_partition";
    return success();
  }
  if (attr.getName() == getMrfWorkBytesAttrName()) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bytes || bytes.getInt() < 0 || !isa<CardPartitionOp>(op))
      return op->emitOpError() << "'" << getMrfWorkBytesAttrName()
                               << "' must be a non-negative integer on an "
                                  "accel.card_partition";
    return success();
  }
  if (attr.getName() == getMrfAddressAttrName()) {
    auto address = dyn_cast<IntegerAttr>(attr.getValue());
    if (!address || address.getInt() < 0 ||
        !isa<FullyConnectedOp, MatMulOp, ConvOp, LSTMOp, GRUOp>(op) ||
        !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError()
             << "'" << getMrfAddressAttrName()
             << "' must be a non-negative integer on an accel.fully_connected, "
                "accel.matmul, accel.conv, accel.lstm or accel.gru of an "
                "accel.card_partition";
    return success();
  }
  if (attr.getName() == getKernelConstantsAttrName()) {
    auto address = dyn_cast<IntegerAttr>(attr.getValue());
    if (!address || address.getInt() < 0 ||
        !isa<FullyConnectedOp, ConvOp>(op) ||
        !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError()
             << "'" << getKernelConstantsAttrName()
             << "' must be a non-negative integer on an accel.fully_connected "
                "or accel.conv of an accel.card_partition";
    return success();
  }
  if (attr.getName() == getPinnedSharedAddressAttrName()) {
    auto address = dyn_cast<IntegerAttr>(attr.getValue());
    if (!address || address.getInt() < 0 || !isa<ConstantOp>(op) ||
        !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError()
             << "'" << getPinnedSharedAddressAttrName()
             << "' must be a non-negative integer on an accel.constant of an "
                "accel.card_partition";
    return success();
  }
  if (attr.getName() == getResultSharedAddressAttrName()) {
    auto address = dyn_cast<IntegerAttr>(attr.getValue());
    if (!address || address.getInt() < 0 || op->getNumResults() != 1 ||
        !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError()
             << "'" << getResultSharedAddressAttrName()
             << "' must be a non-negative integer on a single-result op of an "
                "accel.card_partition";
    return success();
  }
  if (attr.getName() == getSharedAddressAttrName()) {
    auto address = dyn_cast<IntegerAttr>(attr.getValue());
    if (!address || address.getInt() < 0 ||
        !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError() << "'" << getSharedAddressAttrName()
                               << "' must be a non-negative integer on an "
                                  "op of an accel.card_partition";
    return success();
  }
  if (attr.getName() == getDramBytesAttrName()) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bytes || bytes.getInt() < 0 || !isa<CardPartitionOp>(op))
      return op->emitOpError() << "'" << getDramBytesAttrName()
                               << "' must be a non-negative integer on an "
                                  "accel.card_partition";
    return success();
  }
  if (attr.getName() == getDramAddressAttrName()) {
    // One address for a single-result op, one per result otherwise.
    if (auto address = dyn_cast<IntegerAttr>(attr.getValue());
        address && address.getInt() >= 0 && op->getNumResults() <= 1)
      return success();
    if (auto addresses = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
        addresses && addresses.size() == int64_t(op->getNumResults()) &&
        llvm::all_of(addresses.asArrayRef(),
                     [](int64_t address) { return address >= 0; }))
      return success();
    return op->emitOpError()
           << "'" << getDramAddressAttrName()
           << "' must be a non-negative integer (one result) or an array of "
              "one non-negative integer per result";
  }
  if (attr.getName() == getInPlaceAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) ||
        !isa<ReshapeOp, TransposeOp, SliceOp, ConcatOp>(op))
      return op->emitOpError()
             << "'" << getInPlaceAttrName()
             << "' is a unit attribute of accel.reshape, accel.transpose, "
                "accel.slice and accel.concat";
    return success();
  }
  if (attr.getName() == getResultPitchAttrName()) {
    // The pitch spaces the result's innermost rows out: at least one row.
    auto pitch = dyn_cast<IntegerAttr>(attr.getValue());
    auto type = op->getNumResults() == 1
                    ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                    : RankedTensorType();
    if (!pitch || !type || type.getRank() < 1 ||
        !op->getParentOfType<CardPartitionOp>())
      return op->emitOpError()
             << "'" << getResultPitchAttrName()
             << "' must be an integer on a single-result op of an "
                "accel.card_partition with a ranked tensor result";
    auto row =
        RankedTensorType::get({type.getShape().back()}, type.getElementType());
    if (pitch.getInt() < int64_t(getDenseByteSize(row)))
      return op->emitOpError()
             << "'" << getResultPitchAttrName() << "' (" << pitch.getInt()
             << " bytes) is smaller than a result row ("
             << getDenseByteSize(row) << " bytes)";
    return success();
  }
  if (attr.getName() == getHostReasonAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << getHostReasonAttrName() << "' must be a string";
    return success();
  }
  if (attr.getName() == getRangeAttrName()) {
    if (failed(verifyRange(attr.getValue(), [&] { return op->emitOpError(); })))
      return failure();
    if (op->getNumResults() != 1 || !isRealTensor(op->getResult(0).getType()))
      return op->emitOpError()
             << "'" << getRangeAttrName()
             << "' is for ops with a single float or quantized result";
    return success();
  }
  if (attr.getName() == getPaddedAxesAttrName()) {
    if (failed(verifyPaddedAxes(attr.getValue(),
                                op->getNumResults() ? op->getResult(0).getType()
                                                    : Type(),
                                [&] { return op->emitOpError(); })))
      return failure();
    return success();
  }
  if (attr.getName() == getPaddedHiddenAttrName()) {
    auto size = dyn_cast<IntegerAttr>(attr.getValue());
    if (!size || !isa<LSTMOp, GRUOp>(op) || size.getInt() < 1)
      return op->emitOpError()
             << "'" << getPaddedHiddenAttrName()
             << "' must be a positive integer on an accel.lstm or accel.gru";
    return success();
  }
  if (attr.getName() == getPaddingMaskAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << getPaddingMaskAttrName() << "' must be a string";
    return success();
  }
  return op->emitOpError() << "unknown accel dialect attribute '"
                           << attr.getName().getValue() << "'";
}

LogicalResult AccelDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned regionIndex,
                                                        unsigned resultIndex,
                                                        NamedAttribute attr) {
  auto emit = [&] {
    return op->emitOpError() << "result " << resultIndex << ": ";
  };
  if (attr.getName() != getPaddedAxesAttrName())
    return emit() << "unknown accel dialect result attribute '"
                  << attr.getName().getValue() << "'";
  auto function = dyn_cast<FunctionOpInterface>(op);
  Type type = function ? function.getResultTypes()[resultIndex] : Type();
  return verifyPaddedAxes(attr.getValue(), type, emit);
}

LogicalResult AccelDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  auto emit = [&] {
    return op->emitOpError() << "argument " << argIndex << ": ";
  };
  // A function declaration has argument types but no block.
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto argType = [&] {
    return function
               ? function.getArgumentTypes()[argIndex]
               : op->getRegion(regionIndex).getArgument(argIndex).getType();
  };
  if (attr.getName() == getPaddedAxisAttrName()) {
    auto axis = dyn_cast<IntegerAttr>(attr.getValue());
    auto type = dyn_cast<RankedTensorType>(argType());
    if (!axis || !type || axis.getInt() < 0 || axis.getInt() >= type.getRank())
      return emit() << "'" << getPaddedAxisAttrName()
                    << "' must be an integer axis of a ranked tensor argument";
    return success();
  }
  if (attr.getName() == getValidLengthAttrName()) {
    auto type = dyn_cast<RankedTensorType>(argType());
    if (!isa<UnitAttr>(attr.getValue()) || !type ||
        type.getNumElements() != 1 || !type.getElementType().isF32())
      return emit() << "'" << getValidLengthAttrName()
                    << "' is a unit attribute of a one-element f32 argument";
    return success();
  }
  if (attr.getName() != getRangeAttrName())
    return emit() << "unknown accel dialect argument attribute '"
                  << attr.getName().getValue() << "'";
  if (failed(verifyRange(attr.getValue(), emit)))
    return failure();
  if (!isRealTensor(argType()))
    return emit() << "'" << getRangeAttrName()
                  << "' is for float or quantized tensor arguments";
  return success();
}

/// Syntax: `<card = N (, cores = [i, ...])? (, precision = type)?
/// (, memory = dram|shared|local)?>`, optional fields in any order.
Attribute PlacementAttr::parse(AsmParser &parser, Type) {
  int64_t card;
  if (parser.parseLess() || parser.parseKeyword("card") ||
      parser.parseEqual() || parser.parseInteger(card))
    return {};
  SmallVector<int64_t> cores;
  Type precision;
  MemoryKindAttr memory;
  llvm::SmallSet<StringRef, 4> seen;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc) << "'" << key << "' is given twice";
      return {};
    }
    if (key == "cores") {
      if (parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                return parser.parseInteger(cores.emplace_back());
              }))
        return {};
    } else if (key == "precision") {
      if (parser.parseType(precision))
        return {};
    } else if (key == "memory") {
      StringRef kind;
      SMLoc kindLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&kind))
        return {};
      std::optional<MemoryKind> parsed = symbolizeMemoryKind(kind);
      if (!parsed) {
        parser.emitError(kindLoc)
            << "expected memory dram, shared or local, got '" << kind << "'";
        return {};
      }
      memory = MemoryKindAttr::get(parser.getContext(), *parsed);
    } else {
      parser.emitError(keyLoc) << "unknown placement field '" << key
                               << "' (expected cores, precision or memory)";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), card, cores, precision, memory);
}

void PlacementAttr::print(AsmPrinter &printer) const {
  printer << "<card = " << getCard();
  if (!getCores().empty()) {
    printer << ", cores = [";
    llvm::interleaveComma(getCores(), printer);
    printer << "]";
  }
  if (getPrecision())
    printer << ", precision = " << getPrecision();
  if (getMemory())
    printer << ", memory = " << stringifyMemoryKind(getMemory().getValue());
  printer << ">";
}

/// Core indices are non-negative and listed once.
static LogicalResult
verifyCoreList(function_ref<InFlightDiagnostic()> emitError,
               ArrayRef<int64_t> cores) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t core : cores) {
    if (core < 0)
      return emitError() << "core index must be non-negative, got " << core;
    if (!seen.insert(core).second)
      return emitError() << "core " << core << " is listed twice";
  }
  return success();
}

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t card, ArrayRef<int64_t> cores, Type precision,
                      MemoryKindAttr memory) {
  if (card < -1)
    return emitError() << "card must be -1 (host) or a card index, got "
                       << card;
  if (card == -1 && !cores.empty())
    return emitError() << "a host placement (card = -1) cannot name cores";
  if (failed(verifyCoreList(emitError, cores)))
    return failure();
  if (precision && !llvm::isa<FloatType, quant::QuantizedType>(precision))
    return emitError() << "precision must be a float or quantized type, got "
                       << precision;
  return success();
}

LogicalResult HintAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               std::optional<int64_t> card,
                               ArrayRef<int64_t> cores,
                               std::optional<int64_t> chunks,
                               ParallelKindAttr parallel, MemoryKindAttr memory,
                               Type precision, std::optional<int64_t> order) {
  if (card && *card < -1)
    return emitError() << "card must be -1 (host) or a card index, got "
                       << *card;
  if (failed(verifyCoreList(emitError, cores)))
    return failure();
  if (chunks && *chunks < 1)
    return emitError() << "chunks must be at least 1, got " << *chunks;
  if (precision &&
      !llvm::isa<FloatType, IntegerType, quant::QuantizedType, BlockFloatType>(
          precision))
    return emitError() << "precision must be a float, integer, quantized or "
                          "block floating-point type, got "
                       << precision;
  return success();
}

PlacementAttr
mlir::nnaccel::accel::getPlacementOnCores(Operation *op, int64_t card,
                                          ArrayRef<int64_t> cores) {
  auto placement =
      op->getAttrOfType<PlacementAttr>(AccelDialect::getPlacementAttrName());
  return PlacementAttr::get(op->getContext(), card, cores,
                            placement ? placement.getPrecision() : Type(),
                            placement ? placement.getMemory()
                                      : MemoryKindAttr());
}

std::optional<MemoryKind>
mlir::nnaccel::accel::parseMemoryHint(StringRef name) {
  std::string lower = name.lower();
  if (lower == "sram")
    return MemoryKind::local;
  if (lower == "shared")
    return MemoryKind::shared;
  if (lower == "dram")
    return MemoryKind::dram;
  return std::nullopt;
}

std::optional<StringRef> mlir::nnaccel::accel::getNodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::optional<StringRef> name = getNodeName(part))
        return name;
  return std::nullopt;
}

std::string mlir::nnaccel::accel::describeNode(Operation *op) {
  if (std::optional<StringRef> name = getNodeName(op->getLoc()))
    return ("node '" + *name + "'").str();
  return op->getName().getStringRef().str();
}

void mlir::nnaccel::accel::dropHintPrecision(Operation *op) {
  auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
  if (!hint || !hint.getPrecision())
    return;
  auto rest = HintAttr::get(hint.getContext(), hint.getCard(), hint.getCores(),
                            hint.getChunks(), hint.getParallel(),
                            hint.getMemory(), Type(), hint.getOrder());
  if (rest == HintAttr::get(hint.getContext(), {}, {}, {}, {}, {}, {}, {}))
    op->removeAttr(AccelDialect::getHintAttrName());
  else
    op->setAttr(AccelDialect::getHintAttrName(), rest);
}

uint32_t mlir::nnaccel::accel::getPlacedCore(Operation *op) {
  auto placement =
      op->getAttrOfType<PlacementAttr>(AccelDialect::getPlacementAttrName());
  if (!placement || placement.getCores().empty() ||
      placement.getCores().front() < 0)
    return 0;
  return static_cast<uint32_t>(placement.getCores().front());
}
