//===- ConstantUtils.h - reading and building accel constants ---*- C++ -*-===//
//
// Folders and patterns read constant tensors that may be inline `dense`
// attributes or `dense_resource` blobs (how weights are imported). These
// helpers give uniform, copy-free access and build new constants in the
// form that suits their size.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_CONSTANTUTILS_H
#define NNACCEL_DIALECT_ACCEL_CONSTANTUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::nnaccel::accel {

/// Largest constant (in elements) that folders expand inline; larger results
/// are left to run time so folding never bloats the IR.
constexpr int64_t kMaxFoldedElements = 1 << 16;

/// Constants built by the compiler are inline up to this many elements;
/// larger ones become blobs so that printing IR stays readable and nothing
/// large is uniqued in the context.
constexpr int64_t kMaxInlineElements = 64;

/// A read-only view of f32 constant data; a splat holds one element.
struct F32ConstantView {
  ArrayRef<float> data;
  bool splat = false;
  float operator[](int64_t index) const { return data[splat ? 0 : index]; }
};

/// Views the f32 data of the constant defining `value`, if any, without
/// copying (inline dense or resource blob).
std::optional<F32ConstantView> getF32Constant(Value value);

/// Builds an f32 constant attribute of `type` from `values`: inline when
/// small, otherwise a new `dense_resource` blob named after `nameHint`.
ElementsAttr createF32Constant(RankedTensorType type, ArrayRef<float> values,
                               StringRef nameHint);

/// The part [begin, end) along `axis` of constant data (inline dense or a
/// resource blob of a whole-byte element type, or a blob of a 4-bit one,
/// packed two per byte per innermost row), as a new attribute: inline when
/// small, else a new blob named after `nameHint`, made unique in the
/// context (always a blob for quantized and 4-bit types). Null when the
/// data cannot be sliced.
ElementsAttr sliceConstantAlongAxis(ElementsAttr attr, int64_t axis,
                                    int64_t begin, int64_t end,
                                    StringRef nameHint = "slice");

/// The element type of a part [begin, end) along `axis` of a tensor of
/// `element`: per-axis quantization parameters along `axis` are sliced with
/// it; every other element type stays.
Type sliceElementType(Type element, int64_t axis, int64_t begin, int64_t end);

/// A constant of quantized `type` holding `storage` (the stored integers,
/// row-major, one byte per i8/u8 element, i32 little-endian, i4/u4 packed
/// two per byte, element 2j of an innermost row in the low nibble of its
/// byte j, rows on whole bytes: accel::getDenseByteSize bytes). Always a
/// `dense_resource` blob: a dense attribute cannot carry a quantized type.
ElementsAttr createQuantizedConstant(RankedTensorType type,
                                     ArrayRef<char> storage,
                                     StringRef nameHint);

/// True when `attr` is a splat whose every element equals `value` (float or
/// integer element types).
bool isSplatOf(Attribute attr, double value);

} // namespace mlir::nnaccel::accel

#endif // NNACCEL_DIALECT_ACCEL_CONSTANTUTILS_H
