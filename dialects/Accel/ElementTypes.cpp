//===- ElementTypes.cpp - MLIR element types as toolchain DTypes ----------===//
//
// See ElementTypes.h.
//
//===----------------------------------------------------------------------===//

#include "Accel/ElementTypes.h"
#include "Accel/AccelDialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;
using ::nnaccel::DType;

std::optional<DType> mlir::nnaccel::accel::getElementDType(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (auto quant = dyn_cast<quant::QuantizedType>(type)) {
    bool isSigned = quant.isSigned();
    switch (quant.getStorageTypeIntegralWidth()) {
    case 4:
      return isSigned ? DType::I4 : DType::U4;
    case 8:
      return isSigned ? DType::I8 : DType::U8;
    case 16:
      return isSigned ? std::optional(DType::I16) : std::nullopt;
    case 32:
      return isSigned ? std::optional(DType::I32) : std::nullopt;
    default:
      return std::nullopt;
    }
  }
  if (auto rowwise = dyn_cast<RowwiseType>(type)) {
    if (rowwise.getBits() == 8)
      return DType::RW8;
    if (rowwise.getBits() == 4)
      return DType::RW4;
    return std::nullopt;
  }
  if (auto block = dyn_cast<BlockFloatType>(type)) {
    switch (block.getFormat()) {
    case BlockFormat::msfp8:
      return DType::MSFP8;
    case BlockFormat::msfp9:
      return DType::MSFP9;
    case BlockFormat::mxint8:
      return DType::MXINT8;
    case BlockFormat::mxfp8e4m3:
      return DType::MXFP8E4M3;
    case BlockFormat::mxfp8e5m2:
      return DType::MXFP8E5M2;
    }
    return std::nullopt;
  }
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF64())
    return DType::F64;
  if (type.isFloat8E4M3FN())
    return DType::FP8E4M3;
  if (type.isFloat8E5M2())
    return DType::FP8E5M2;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1:
    return isUnsigned ? std::nullopt : std::optional(DType::I1);
  case 4:
    return isUnsigned ? DType::U4 : DType::I4;
  case 8:
    return isUnsigned ? DType::U8 : DType::I8;
  case 16:
    return isUnsigned ? DType::U16 : DType::I16;
  case 32:
    return isUnsigned ? DType::U32 : DType::I32;
  case 64:
    return isUnsigned ? std::nullopt : std::optional(DType::I64);
  default:
    return std::nullopt;
  }
}

LogicalResult RowwiseType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned bits) {
  if (bits != 4 && bits != 8)
    return emitError() << "rowwise tables have 4- or 8-bit codes, not " << bits;
  return success();
}

uint64_t RowwiseType::getRowBytes(int64_t dim) const {
  return ::nnaccel::rowBytes(getBits() == 8 ? DType::RW8 : DType::RW4,
                             uint64_t(dim));
}

bool mlir::nnaccel::accel::isRowwiseTable(Type type) {
  return isa<RowwiseType>(getElementTypeOrSelf(type));
}

uint64_t mlir::nnaccel::accel::getDenseByteSize(Type type) {
  auto shaped = cast<ShapedType>(type);
  ArrayRef<int64_t> shape = shaped.getShape();
  if (std::optional<DType> dtype = getElementDType(shaped))
    if (std::optional<uint64_t> bytes = ::nnaccel::denseBytes(
            *dtype, std::vector<int64_t>(shape.begin(), shape.end())))
      return *bytes;
  // Any other element type: whole bytes per innermost row.
  Type element = shaped.getElementType();
  uint64_t bits = 64;
  if (auto quant = dyn_cast<quant::QuantizedType>(element))
    bits = quant.getStorageTypeIntegralWidth();
  else if (element.isIntOrFloat())
    bits = element.getIntOrFloatBitWidth();
  uint64_t inner = shape.empty() ? 1 : uint64_t(shape.back());
  uint64_t outer = shape.empty() ? 1
                                 : uint64_t(shaped.getNumElements()) /
                                       std::max<uint64_t>(inner, 1);
  if (inner == 0)
    return 0;
  return outer * ((inner * bits + 7) / 8);
}
