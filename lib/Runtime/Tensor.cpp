//===- Tensor.cpp - Host runtime tensors ----------------------------------===//
//
// Element-type tables, descriptor validation and the owned / view /
// copy-on-write storage of runtime tensors. Owned buffers are 64-byte
// aligned so kernels and the emulator can use aligned vector loads.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/Tensor.h"

#include <cstring>
#include <limits>
#include <new>

namespace nnaccel {
namespace runtime {

namespace {
constexpr size_t kBufferAlignment = 64;

/// A zeroed aligned buffer owned by a shared_ptr (nullptr on failure or for
/// zero bytes). Allocation failure is reported, not thrown.
std::shared_ptr<void> allocateBuffer(size_t bytes) {
  if (bytes == 0)
    return nullptr;
  void *p =
      ::operator new(bytes, std::align_val_t(kBufferAlignment), std::nothrow);
  if (!p)
    return nullptr;
  std::memset(p, 0, bytes);
  return std::shared_ptr<void>(p, [](void *q) {
    ::operator delete(q, std::align_val_t(kBufferAlignment));
  });
}
} // namespace

size_t getDTypeSize(DType dtype) { return elementBytes(dtype); }

const char *getDTypeName(DType dtype) {
  // Names are string literals in Numerics' table: NUL-terminated.
  std::string_view name = dtypeName(dtype);
  return name.empty() ? "<invalid dtype>" : name.data();
}

bool isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 ||
         dtype == DType::F64;
}

bool isIntegerDType(DType dtype) {
  return dtype == DType::I1 || dtype == DType::I8 || dtype == DType::I16 ||
         dtype == DType::I32 || dtype == DType::I64 || dtype == DType::U8 ||
         dtype == DType::U16 || dtype == DType::U32;
}

int64_t TensorDesc::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

size_t TensorDesc::getByteSize() const {
  return static_cast<size_t>(denseBytes(dtype, shape).value_or(0));
}

Status TensorDesc::validate() const {
  if (!isValidDType(static_cast<unsigned>(dtype)))
    return Status::error("invalid element type " +
                         std::to_string(static_cast<int>(dtype)));
  // Checked in int64 so that getNumElements() and getByteSize() cannot
  // overflow for a validated descriptor.
  const int64_t limit = std::numeric_limits<int64_t>::max();
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return Status::error("negative dimension in shape [" +
                           formatShape(shape) + "]");
    if (d != 0 && n > limit / d)
      return Status::error("shape [" + formatShape(shape) + "] is too large");
    n *= d;
  }
  if (!denseBytes(dtype, shape))
    return Status::error("shape [" + formatShape(shape) + "] is too large");
  return Status::success();
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

std::string TensorDesc::toString() const {
  return std::string(getDTypeName(dtype)) + "[" + formatShape(shape) + "]";
}

Tensor Tensor::allocate(TensorDesc desc) {
  if (!desc.validate().ok())
    return Tensor();
  size_t bytes = desc.getByteSize();
  std::shared_ptr<void> buffer = allocateBuffer(bytes);
  if (bytes != 0 && !buffer)
    return Tensor();
  Tensor t;
  t.desc = std::move(desc);
  t.bytes = buffer.get();
  t.keepAlive = std::move(buffer);
  t.ownsBytes = true;
  t.null = false;
  return t;
}

Tensor Tensor::copyOf(TensorDesc desc, const void *data) {
  Tensor t = allocate(std::move(desc));
  if (!t.isNull() && t.getByteSize() != 0)
    std::memcpy(const_cast<void *>(t.bytes), data, t.getByteSize());
  return t;
}

Tensor Tensor::view(TensorDesc desc, const void *data,
                    std::shared_ptr<const void> owner) {
  if (!desc.validate().ok())
    return Tensor();
  Tensor t;
  t.desc = std::move(desc);
  t.bytes = data;
  t.keepAlive = std::move(owner);
  t.ownsBytes = false;
  t.null = false;
  return t;
}

void *Tensor::mutableData() {
  if (null || getByteSize() == 0)
    return nullptr;
  // Private owned bytes can be written in place; anything else is copied
  // first so that writes stay local to this tensor.
  if (!ownsBytes || keepAlive.use_count() != 1) {
    Tensor copy = clone();
    if (copy.isNull())
      return nullptr;
    *this = std::move(copy);
  }
  return const_cast<void *>(bytes);
}

Tensor Tensor::reinterpret(TensorDesc newDesc) const {
  if (null || !newDesc.validate().ok() ||
      newDesc.getByteSize() != getByteSize())
    return Tensor();
  Tensor t = *this;
  t.desc = std::move(newDesc);
  return t;
}

Tensor Tensor::clone() const {
  if (null)
    return Tensor();
  return copyOf(desc, bytes);
}

} // namespace runtime
} // namespace nnaccel
