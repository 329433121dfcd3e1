//===- ConstantUtils.cpp - reading and building accel constants -----------===//
//
// See ConstantUtils.h.
//
//===----------------------------------------------------------------------===//

#include "Accel/ConstantUtils.h"

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
