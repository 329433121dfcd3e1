//===- TensorImport.cpp - ONNX TensorProto to MLIR attributes -------------===//
//
// Converts initializers and Constant values. Small tensors become inline
// `dense` attributes (folders read them: shapes, axes, scalars). Large ones
// become `dense_resource` blobs that point straight into the protobuf's
// buffer or into a memory-mapped external data file: the weights of a
// multi-gigabyte embedding table are never copied.
//
//===----------------------------------------------------------------------===//

#include "ImporterContext.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>
#include <memory>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;

/// Tensors up to this many elements are imported inline.
static constexpr int64_t kMaxInlineElements = 64;

Type mlir::nnaccel::onnx_import::convertElementType(int32_t onnxType,
                                                    MLIRContext *context) {
  Builder b(context);
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::UINT8:
    // Quantised data and zero points; the accel ops reach it via accel.cast.
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::UINT16:
    // Host-only storage: elementwise ops compute on them in i32.
    return IntegerType::get(context, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    // Host-only storage: elementwise ops compute on them in i64.
    return IntegerType::get(context, 32, IntegerType::Unsigned);
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

StringRef mlir::nnaccel::onnx_import::onnxTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  return "invalid";
}

/// Byte width of one element in raw_data / external data.
static int64_t getStorageBytes(Type type) {
  if (type.isInteger(1))
    return 1; // ONNX stores bools as one byte each.
  return type.getIntOrFloatBitWidth() / 8;
}

namespace {
/// Bytes of a tensor plus whatever keeps them alive.
struct TensorBytes {
  ArrayRef<char> data;
  std::shared_ptr<const void> owner; // null: data must be copied now
};
} // namespace

/// Reads external data: `location`, `offset`, `length` keys, resolved
/// against `baseDir`, bounds-checked and memory-mapped.
static FailureOr<TensorBytes> readExternal(const onnx::TensorProto &tensor,
                                           StringRef baseDir, int64_t expected,
                                           Location loc) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" &&
             StringRef(entry.value()).getAsInteger(10, offset))
      return emitError(loc)
             << "tensor '" << tensor.name() << "': bad external data offset '"
             << entry.value() << "'";
    else if (entry.key() == "length" &&
             StringRef(entry.value()).getAsInteger(10, length))
      return emitError(loc)
             << "tensor '" << tensor.name() << "': bad external data length '"
             << entry.value() << "'";
  }
  if (location.empty())
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': external data has no 'location'";
  SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  uint64_t fileSize;
  if (std::error_code ec = llvm::sys::fs::file_size(path, fileSize))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': cannot open external data file '" << path
                          << "': " << ec.message();
  if (length < 0)
    length = static_cast<int64_t>(fileSize) - offset;
  if (offset < 0 || length != expected ||
      static_cast<uint64_t>(offset + length) > fileSize)
    return emitError(loc) << "tensor '" << tensor.name() << "': external data ["
                          << offset << ", " << offset + length << ") of '"
                          << path << "' (size " << fileSize
                          << ") does not hold the " << expected
                          << " bytes the tensor needs";
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, length, offset,
                                                 /*IsVolatile=*/false);
  if (!buffer)
    return emitError(loc) << "tensor '" << tensor.name() << "': cannot map '"
                          << path << "': " << buffer.getError().message();
  std::shared_ptr<llvm::MemoryBuffer> shared = std::move(*buffer);
  ArrayRef<char> data(shared->getBufferStart(), shared->getBufferSize());
  return TensorBytes{data, shared};
}

/// Gathers a tensor's bytes from whichever field holds them.
static FailureOr<TensorBytes>
getTensorBytes(const onnx::TensorProto &tensor, Type elementType, int64_t count,
               StringRef baseDir, const std::shared_ptr<const void> &protoOwner,
               std::vector<char> &scratch, Location loc) {
  int64_t width = getStorageBytes(elementType);
  int64_t expected = count * width;
  auto sizeError = [&](int64_t got) {
    return emitError(loc) << "tensor '" << tensor.name() << "' holds " << got
                          << " bytes but its shape needs " << expected;
  };
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return readExternal(tensor, baseDir, expected, loc);
  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (static_cast<int64_t>(raw.size()) != expected)
      return sizeError(raw.size());
    return TensorBytes{ArrayRef<char>(raw.data(), raw.size()), protoOwner};
  }
  // Typed fields: convert into `scratch` with the element's width, sized
  // only once the field is known to hold every element (the shape alone
  // could ask for terabytes).
  auto copyField = [&](const auto &field, auto convert) -> LogicalResult {
    if (field.size() != count) {
      emitError(loc) << "tensor '" << tensor.name() << "' holds "
                     << field.size() << " values but its shape needs " << count;
      return failure();
    }
    scratch.resize(expected);
    for (int64_t i = 0; i < count; ++i)
      convert(field.Get(i), scratch.data() + i * width);
    return success();
  };
  auto store = [&](auto value, char *out) { std::memcpy(out, &value, width); };
  LogicalResult result = failure();
  if (elementType.isF32())
    result = copyField(tensor.float_data(),
                       [&](float v, char *out) { store(v, out); });
  else if (elementType.isF64())
    result = copyField(tensor.double_data(),
                       [&](double v, char *out) { store(v, out); });
  else if (elementType.isInteger(64))
    result = copyField(tensor.int64_data(),
                       [&](int64_t v, char *out) { store(v, out); });
  else if (elementType.isF16() || elementType.isBF16())
    result = copyField(tensor.int32_data(), [&](int32_t v, char *out) {
      store(static_cast<uint16_t>(v), out);
    });
  else if (elementType.isUnsignedInteger(32))
    result = copyField(tensor.uint64_data(), [&](uint64_t v, char *out) {
      store(static_cast<uint32_t>(v), out);
    });
  else if (elementType.isInteger(32))
    result = copyField(tensor.int32_data(),
                       [&](int32_t v, char *out) { store(v, out); });
  else if (elementType.isInteger(16))
    result = copyField(tensor.int32_data(), [&](int32_t v, char *out) {
      store(static_cast<int16_t>(v), out);
    });
  else if (elementType.isInteger(8) || elementType.isInteger(1))
    result = copyField(tensor.int32_data(), [&](int32_t v, char *out) {
      store(static_cast<int8_t>(v), out);
    });
  if (failed(result))
    return failure();
  return TensorBytes{ArrayRef<char>(scratch.data(), scratch.size()), nullptr};
}

LogicalResult
mlir::nnaccel::onnx_import::checkTensorSize(ArrayRef<int64_t> shape,
                                            Type elementType, const Twine &what,
                                            Location loc) {
  int64_t bytes = std::max<int64_t>(getStorageBytes(elementType), 1);
  bool tooLarge = false;
  for (int64_t dim : shape) {
    if (dim < 0)
      return emitError(loc) << what << " has negative dimension " << dim;
    // Sub-byte types are stored a byte per element here, so this bounds
    // their packed size too.
    if (!tooLarge &&
        (llvm::MulOverflow(bytes, dim, bytes) || bytes > kMaxTensorBytes))
      tooLarge = true;
  }
  if (tooLarge) {
    std::string dims;
    llvm::raw_string_ostream os(dims);
    llvm::interleave(shape, os, "x");
    return emitError(loc) << what << " has shape [" << dims
                          << "], more than the " << kMaxTensorBytes
                          << " bytes a tensor may have";
  }
  return success();
}

/// A resource key from a tensor name (keys print as identifiers).
static std::string getResourceKey(StringRef name) {
  std::string key = name.empty() ? "onnx_tensor" : name.str();
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  if (!llvm::isAlpha(key.front()) && key.front() != '_')
    key.insert(0, "t");
  return key;
}

FailureOr<ElementsAttr> mlir::nnaccel::onnx_import::importTensor(
    const onnx::TensorProto &tensor, StringRef baseDir,
    const std::shared_ptr<const void> &protoOwner, MLIRContext *context,
    Location loc) {
  Type elementType = convertElementType(tensor.data_type(), context);
  if (!elementType)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has unsupported data type "
                          << onnxTypeName(tensor.data_type());
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (failed(checkTensorSize(shape, elementType,
                             "tensor '" + tensor.name() + "'", loc)))
    return failure();
  auto type = RankedTensorType::get(shape, elementType);
  int64_t count = type.getNumElements();

  std::vector<char> scratch;
  FailureOr<TensorBytes> bytes = getTensorBytes(
      tensor, elementType, count, baseDir, protoOwner, scratch, loc);
  if (failed(bytes))
    return failure();

  if (elementType.isInteger(1)) {
    SmallVector<bool> values;
    for (char byte : bytes->data)
      values.push_back(byte != 0);
    return cast<ElementsAttr>(DenseElementsAttr::get(type, values));
  }
  if (count <= kMaxInlineElements) {
    bool detectedSplat;
    if (!DenseElementsAttr::isValidRawBuffer(type, bytes->data, detectedSplat))
      return emitError(loc)
             << "tensor '" << tensor.name() << "' has malformed data";
    return cast<ElementsAttr>(
        DenseElementsAttr::getFromRawBuffer(type, bytes->data));
  }

  size_t alignment = getStorageBytes(elementType);
  std::string key = getResourceKey(tensor.name());
  bool aligned =
      reinterpret_cast<uintptr_t>(bytes->data.data()) % alignment == 0;
  AsmResourceBlob blob;
  if (bytes->owner && aligned) {
    // Zero copy: the blob keeps the mapping alive.
    std::shared_ptr<const void> owner = bytes->owner;
    blob = AsmResourceBlob(
        bytes->data, alignment,
        [owner](void *, size_t, size_t) mutable { owner.reset(); },
        /*dataIsMutable=*/false);
  } else {
    blob =
        HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes->data, alignment);
  }
  return cast<ElementsAttr>(
      DenseResourceElementsAttr::get(type, key, std::move(blob)));
}
