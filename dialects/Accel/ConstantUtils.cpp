//===- ConstantUtils.cpp - reading and building accel constants -----------===//
//
// See ConstantUtils.h.
//
//===----------------------------------------------------------------------===//

#include "Accel/ConstantUtils.h"
#include "Accel/AccelDialect.h"
#include "Accel/ElementTypes.h"
#include "mlir/Dialect/Quant/QuantTypes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

std::optional<F32ConstantView>
mlir::nnaccel::accel::getF32Constant(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    ArrayRef<char> raw = dense.getRawData();
    return F32ConstantView{
        ArrayRef<float>(reinterpret_cast<const float *>(raw.data()),
                        raw.size() / sizeof(float)),
        dense.isSplat()};
  }
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef();
    if (!data || static_cast<int64_t>(data->size()) !=
                     resource.getType().getNumElements())
      return std::nullopt;
    return F32ConstantView{*data, false};
  }
  return std::nullopt;
}

ElementsAttr mlir::nnaccel::accel::createF32Constant(RankedTensorType type,
                                                     ArrayRef<float> values,
                                                     StringRef nameHint) {
  if (type.getNumElements() <= kMaxInlineElements)
    return DenseElementsAttr::get(type, values);
  return cast<ElementsAttr>(DenseF32ResourceElementsAttr::get(
      type, nameHint, HeapAsmResourceBlob::allocateAndCopyInferAlign(values)));
}

bool mlir::nnaccel::accel::isSplatOf(Attribute attr, double value) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  Type element = dense.getElementType();
  if (isa<FloatType>(element))
    return dense.getSplatValue<APFloat>().convertToDouble() == value;
  if (element.isSignlessInteger())
    return static_cast<double>(dense.getSplatValue<APInt>().getSExtValue()) ==
           value;
  return false;
}

ElementsAttr mlir::nnaccel::accel::sliceConstantAlongAxis(ElementsAttr attr,
                                                          int64_t axis,
                                                          int64_t begin,
                                                          int64_t end,
                                                          StringRef nameHint) {
  auto type = cast<RankedTensorType>(attr.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (axis < 0 || axis >= type.getRank() || begin < 0 || end > shape[axis] ||
      begin >= end)
    return nullptr;
  int64_t extent = shape[axis];
  shape[axis] = end - begin;
  Type element = sliceElementType(type.getElementType(), axis, begin, end);
  auto sliceType = RankedTensorType::get(shape, element);
  auto quantized = dyn_cast<quant::QuantizedType>(element);
  ArrayRef<char> bytes;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return dense.resizeSplat(sliceType);
    bytes = dense.getRawData();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return nullptr;
    bytes = blob->getData();
  } else {
    return nullptr;
  }
  // Block-float blobs (!accel.bfp): innermost rows are whole blocks, so
  // any outer axis slices by whole rows, and the innermost one at block
  // boundaries only.
  if (isa<BlockFloatType>(type.getElementType())) {
    std::optional<::nnaccel::DType> dtype =
        getElementDType(type.getElementType());
    if (!dtype || !isa<DenseResourceElementsAttr>(attr) ||
        bytes.size() != getDenseByteSize(type))
      return nullptr;
    const int64_t block = int64_t(::nnaccel::blockElements(*dtype));
    const int64_t blockBytes = int64_t(::nnaccel::blockBytes(*dtype));
    const int64_t last = type.getRank() - 1;
    if (axis == last && (begin % block || (end % block && end != extent)))
      return nullptr;
    const int64_t rowBytes = int64_t(getDenseByteSize(
        RankedTensorType::get({type.getShape().back()}, element)));
    int64_t outer = 1, inner = axis == last ? 1 : rowBytes;
    for (int64_t d = 0; d < axis; ++d)
      outer *= type.getDimSize(d);
    for (int64_t d = axis + 1; d < last; ++d)
      inner *= type.getDimSize(d);
    // Unit: bytes of one index along `axis` (a block per block of
    // elements along the innermost axis).
    int64_t first = axis == last ? begin / block * blockBytes : begin * inner;
    int64_t count = axis == last
                        ? (end - begin + block - 1) / block * blockBytes
                        : (end - begin) * inner;
    int64_t stride = axis == last ? rowBytes : extent * inner;
    std::vector<char> sliced;
    sliced.reserve(size_t(outer * count));
    for (int64_t o = 0; o < outer; ++o) {
      const char *row = bytes.data() + o * stride + first;
      sliced.insert(sliced.end(), row, row + count);
    }
    if (sliced.size() != getDenseByteSize(sliceType))
      return nullptr;
    return DenseResourceElementsAttr::get(
        sliceType, nameHint,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(sliced,
                                                      alignof(uint64_t)));
  }
  // Whole-byte elements, whose raw data is the row-major layout, and 4-bit
  // blobs (packed two per byte, rows on whole bytes). Rowwise formats have
  // no per-element bit width.
  if (!quantized && !type.getElementType().isIntOrFloat())
    return nullptr;
  unsigned bits = quantized ? quantized.getStorageTypeIntegralWidth()
                            : type.getElementTypeBitWidth();
  if (bits == 4 && isa<DenseResourceElementsAttr>(attr)) {
    if (bytes.size() != getDenseByteSize(type))
      return nullptr;
    std::vector<char> sliced(getDenseByteSize(sliceType), 0);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= type.getDimSize(d);
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
    // Element positions within innermost rows, which start on whole bytes.
    const int64_t srcRow = type.getShape().back(),
                  dstRow = sliceType.getShape().back();
    const int64_t srcRowBytes = (srcRow + 1) / 2,
                  dstRowBytes = (dstRow + 1) / 2;
    int64_t out = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t a = begin; a < end; ++a)
        for (int64_t i = 0; i < inner; ++i, ++out) {
          int64_t in = (o * extent + a) * inner + i;
          uint8_t nibble =
              (uint8_t(
                   bytes[(in / srcRow) * srcRowBytes + (in % srcRow) / 2]) >>
               ((in % srcRow) % 2 * 4)) &
              0xF;
          int64_t column = out % dstRow;
          sliced[(out / dstRow) * dstRowBytes + column / 2] |=
              char(column % 2 ? nibble << 4 : nibble);
        }
    return DenseResourceElementsAttr::get(
        sliceType, nameHint,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(sliced,
                                                      alignof(uint64_t)));
  }
  if (bits % 8 != 0 ||
      bytes.size() != size_t(type.getNumElements()) * (bits / 8))
    return nullptr;
  int64_t outer = 1, inner = bits / 8;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  std::vector<char> sliced;
  sliced.reserve(size_t(outer * (end - begin) * inner));
  for (int64_t o = 0; o < outer; ++o) {
    const char *row = bytes.data() + (o * extent + begin) * inner;
    sliced.insert(sliced.end(), row, row + (end - begin) * inner);
  }
  // A dense attribute cannot have a quantized element type: those are
  // always blobs.
  if (!quantized && sliceType.getNumElements() <= kMaxInlineElements)
    return DenseElementsAttr::getFromRawBuffer(sliceType, sliced);
  return DenseResourceElementsAttr::get(
      sliceType, nameHint,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(sliced, alignof(uint64_t)));
}

Type mlir::nnaccel::accel::sliceElementType(Type element, int64_t axis,
                                            int64_t begin, int64_t end) {
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(element);
  if (!perAxis || perAxis.getQuantizedDimension() != axis)
    return element;
  return quant::UniformQuantizedPerAxisType::get(
      perAxis.getFlags(), perAxis.getStorageType(), perAxis.getExpressedType(),
      perAxis.getScales().slice(begin, end - begin),
      perAxis.getZeroPoints().slice(begin, end - begin), axis,
      perAxis.getStorageTypeMin(), perAxis.getStorageTypeMax());
}

ElementsAttr mlir::nnaccel::accel::createQuantizedConstant(
    RankedTensorType type, ArrayRef<char> storage, StringRef nameHint) {
  return DenseResourceElementsAttr::get(
      type, nameHint,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(storage,
                                                    alignof(uint64_t)));
}
