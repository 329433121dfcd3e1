//===- Bucketing.cpp - Padding inputs to and slicing outputs from buckets -===//
//
// The copy walks the common box row by row: the innermost dimension is one
// memcpy, the outer ones an odometer over the common extents, so padding a
// [1 x 100 x 768] activation to [1 x 128 x 768] is 100 memcpys.
//
//===----------------------------------------------------------------------===//

#include "Bucketing.h"

#include <algorithm>
#include <cstring>

namespace nnaccel {
namespace runtime {

namespace {
template <typename T> void fillAs(void *data, size_t count, double value) {
  T v = static_cast<T>(value);
  auto *out = static_cast<T *>(data);
  std::fill(out, out + count, v);
}
} // namespace

Tensor makeFilled(const TensorDesc &desc, double value) {
  if (!desc.validate().ok())
    return Tensor();
  Tensor t = Tensor::allocate(desc);
  if (t.isNull() || value == 0.0)
    return t; // Allocation zero-fills.
  size_t count = 1;
  for (int64_t d : desc.shape)
    count *= static_cast<size_t>(d);
  void *data = t.mutableData();
  switch (desc.dtype) {
  case DType::F32:
    fillAs<float>(data, count, value);
    return t;
  case DType::F64:
    fillAs<double>(data, count, value);
    return t;
  case DType::I64:
    fillAs<int64_t>(data, count, value);
    return t;
  case DType::I32:
    fillAs<int32_t>(data, count, value);
    return t;
  case DType::I16:
    fillAs<int16_t>(data, count, value);
    return t;
  case DType::I8:
    fillAs<int8_t>(data, count, value);
    return t;
  case DType::U8:
    fillAs<uint8_t>(data, count, value);
    return t;
  case DType::I1:
    fillAs<uint8_t>(data, count, value != 0.0 ? 1.0 : 0.0);
    return t;
  default:
    return Tensor();
  }
}

void forEachPaddedRange(const std::vector<int64_t> &shape,
                        const std::vector<int64_t> &valid, size_t elementSize,
                        const std::function<void(size_t, size_t)> &onValid,
                        const std::function<void(size_t, size_t)> &onPad) {
  size_t rank = shape.size();
  size_t total = elementSize;
  for (int64_t d : shape)
    total *= static_cast<size_t>(d);
  bool empty = rank == 0 || valid.size() != rank;
  for (size_t d = 0; !empty && d < rank; ++d)
    empty = valid[d] <= 0;
  if (empty || total == 0) {
    if (total && rank == 0)
      onValid(0, total); // A scalar is all valid.
    else if (total)
      onPad(0, total);
    return;
  }
  std::vector<size_t> stride(rank, elementSize);
  for (size_t d = rank - 1; d > 0; --d)
    stride[d - 1] = stride[d] * static_cast<size_t>(shape[d]);
  size_t rowBytes = static_cast<size_t>(valid[rank - 1]) * elementSize;
  // Valid rows in order, merged while contiguous; the gaps are padding.
  size_t runBegin = 0, runEnd = 0, covered = 0;
  auto flush = [&]() {
    if (runEnd == runBegin)
      return;
    if (runBegin > covered)
      onPad(covered, runBegin - covered);
    onValid(runBegin, runEnd - runBegin);
    covered = runEnd;
  };
  std::vector<int64_t> index(rank, 0);
  while (true) {
    size_t offset = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      offset += static_cast<size_t>(index[d]) * stride[d];
    if (offset != runEnd || runEnd == runBegin) {
      flush();
      runBegin = offset;
      runEnd = offset;
    }
    runEnd += rowBytes;
    // Advance the odometer over the outer dimensions of the valid box.
    size_t d = rank - 1;
    bool done = rank == 1;
    while (!done && d > 0) {
      --d;
      if (++index[d] < valid[d])
        break;
      index[d] = 0;
      done = d == 0;
    }
    if (done)
      break;
  }
  flush();
  if (covered < total)
    onPad(covered, total - covered);
}

Tensor resizeBox(const Tensor &src, const std::vector<int64_t> &shape,
                 double padValue) {
  const std::vector<int64_t> &from = src.getShape();
  TensorDesc desc(src.getDType(), shape);
  if (src.isNull() || from.size() != shape.size() || !desc.validate().ok())
    return Tensor();
  Tensor dst = makeFilled(desc, padValue);
  if (dst.isNull())
    return dst;
  size_t rank = shape.size();
  size_t esize = getDTypeSize(src.getDType());
  if (rank == 0) {
    if (esize)
      std::memcpy(dst.mutableData(), src.data(), esize);
    return dst;
  }
  std::vector<int64_t> common(rank);
  for (size_t d = 0; d < rank; ++d)
    common[d] = std::min(from[d], shape[d]);
  for (int64_t c : common)
    if (c == 0)
      return dst;
  // Row-major strides in elements.
  std::vector<int64_t> srcStride(rank, 1), dstStride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) {
    srcStride[d - 1] = srcStride[d] * from[d];
    dstStride[d - 1] = dstStride[d] * shape[d];
  }
  const auto *in = static_cast<const uint8_t *>(src.data());
  auto *out = static_cast<uint8_t *>(dst.mutableData());
  size_t rowBytes = static_cast<size_t>(common[rank - 1]) * esize;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t srcOff = 0, dstOff = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      srcOff += index[d] * srcStride[d];
      dstOff += index[d] * dstStride[d];
    }
    std::memcpy(out + static_cast<size_t>(dstOff) * esize,
                in + static_cast<size_t>(srcOff) * esize, rowBytes);
    // Advance the odometer over the outer dimensions.
    size_t d = rank - 1;
    while (d > 0) {
      --d;
      if (++index[d] < common[d])
        break;
      index[d] = 0;
      if (d == 0)
        return dst;
    }
    if (rank == 1)
      return dst;
  }
}

} // namespace runtime
} // namespace nnaccel
