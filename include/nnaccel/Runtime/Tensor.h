//===- Tensor.h - Host runtime tensors ---------------------------*- C++
//-*-===//
//
// The runtime's tensor: an element type and a static shape (TensorDesc) plus
// dense row-major bytes. The bytes are either owned by the tensor or a
// read-only view into memory that a shared_ptr keeps alive (for example a
// memory-mapped model package), so weights are never copied on load.
//
// Copies are cheap: copying a Tensor shares its bytes. Writing goes through
// mutableData(), which first makes the bytes private to this tensor
// (copy-on-write) when they are a view or shared with another Tensor, so a
// write can never reach a mapped package or another tensor. Like any value
// type, one Tensor object must not be mutated from two threads at once.
//
// Plain C++17; no LLVM/MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_RUNTIME_TENSOR_H
#define NNACCEL_RUNTIME_TENSOR_H

#include "nnaccel/Numerics/Common.h"
#include "nnaccel/Numerics/DType.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel {
namespace runtime {

/// Errors are reported through the numerics library's Status (ok() /
/// message()); the runtime never throws or aborts on bad input.
using Status = numerics::Status;
template <typename T> using Span = numerics::Span<T>;

/// Element types: the toolchain-wide enumeration (Numerics/DType.h), whose
/// numbering the package format shares. f16 and bf16 are stored as raw
/// uint16_t bit patterns, i1 as one byte holding 0 or 1, u8 holds unsigned
/// quantised storage; i4/u4 pack two elements per byte (first in the low
/// nibble, each innermost row starting on a byte) and the block formats
/// (msfp8/9, mxint8) store whole shared-exponent blocks.
using ::nnaccel::DType;

/// Bytes per element of a whole-byte type (i1 occupies one byte); 0 for
/// sub-byte and block types, whose size only a whole row determines.
size_t getDTypeSize(DType dtype);
/// "f32", "f16", "bf16", "f64", "i1", "i8", "i4", "msfp8", ...
const char *getDTypeName(DType dtype);
/// Inverse of getDTypeName; std::nullopt for any other string.
using ::nnaccel::parseDType;
/// The float types host kernels compute in: f32, f16, bf16, f64.
bool isFloatDType(DType dtype);
/// The integer types host kernels compute in: i1, i8, i16, i32, i64, u8.
bool isIntegerDType(DType dtype);

/// Element type and static shape of a tensor. A rank-0 shape is a scalar
/// (one element).
struct TensorDesc {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;

  TensorDesc() = default;
  TensorDesc(DType dtype, std::vector<int64_t> shape)
      : dtype(dtype), shape(std::move(shape)) {}

  int64_t getRank() const { return static_cast<int64_t>(shape.size()); }
  /// Product of the dimensions (1 for a scalar). Meaningful only for a
  /// valid descriptor (see validate()).
  int64_t getNumElements() const;
  size_t getByteSize() const;
  /// Fails for negative dimensions, an invalid dtype, or a byte size that
  /// does not fit in size_t / int64_t.
  Status validate() const;
  /// "f32[2x3x4]" ("f32[]" for a scalar), used in diagnostics.
  std::string toString() const;

  bool operator==(const TensorDesc &other) const {
    return dtype == other.dtype && shape == other.shape;
  }
  bool operator!=(const TensorDesc &other) const { return !(*this == other); }
};

/// "2x3x4" ("" for a scalar).
std::string formatShape(const std::vector<int64_t> &shape);

class Tensor {
public:
  /// An empty f32 scalar without storage (isNull() is true).
  Tensor() = default;

  /// Owned, zero-initialised, 64-byte-aligned storage for `desc`. The
  /// descriptor must be valid (TensorDesc::validate); an invalid one yields
  /// a null tensor rather than undefined behaviour.
  static Tensor allocate(TensorDesc desc);
  /// Owned copy of desc.getByteSize() bytes at `data`.
  static Tensor copyOf(TensorDesc desc, const void *data);
  /// Read-only view of desc.getByteSize() bytes at `data`, kept alive by
  /// `owner` (may be null when the memory outlives the tensor anyway).
  static Tensor view(TensorDesc desc, const void *data,
                     std::shared_ptr<const void> owner);

  const TensorDesc &getDesc() const { return desc; }
  DType getDType() const { return desc.dtype; }
  const std::vector<int64_t> &getShape() const { return desc.shape; }
  int64_t getRank() const { return desc.getRank(); }
  int64_t getNumElements() const { return desc.getNumElements(); }
  size_t getByteSize() const { return desc.getByteSize(); }

  /// True for a default-constructed tensor (no storage, no descriptor).
  bool isNull() const { return null; }
  /// True if the bytes are a read-only view (see view()).
  bool isView() const { return !null && !ownsBytes; }

  const void *data() const { return bytes; }
  /// Writable bytes. A view, or bytes shared with another Tensor, are first
  /// copied into private storage (copy-on-write); pointers obtained earlier
  /// from data() keep pointing at the old bytes. Returns nullptr only for
  /// a null tensor or a zero-byte tensor.
  void *mutableData();

  template <typename T> const T *as() const {
    return static_cast<const T *>(bytes);
  }
  template <typename T> T *mutableAs() {
    return static_cast<T *>(mutableData());
  }

  /// A tensor sharing these bytes under another descriptor of the same
  /// byte size (used for reshape); returns a null tensor otherwise.
  Tensor reinterpret(TensorDesc newDesc) const;
  /// A deep, owned copy.
  Tensor clone() const;

private:
  TensorDesc desc;
  /// Keeps the bytes alive: the owned buffer or the view's owner.
  std::shared_ptr<const void> keepAlive;
  const void *bytes = nullptr;
  bool ownsBytes = false;
  bool null = true;
};

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_RUNTIME_TENSOR_H
