//===- RowwiseEmbedding.cpp - Fused rowwise-quantised embeddings ----------===//
//
// Quantisation, dequantisation and the accumulate-row primitive behind
// EmbeddingBag for the fused 8-bit and 4-bit rowwise formats. The 4-bit
// variant rounds bias and scale to fp16 *before* quantising the elements so
// that the codes are chosen against the parameters actually stored, as
// FBGEMM does.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/RowwiseEmbedding.h"

#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/Float16.h"

#include <algorithm>

namespace nnaccel {
namespace numerics {

namespace {

inline size_t dataBytes(RowwiseBits bits, size_t dim) {
  return bits == RowwiseBits::Eight ? dim : packedInt4Size(dim);
}

inline uint32_t maxCode(RowwiseBits bits) {
  return bits == RowwiseBits::Eight ? 255u : 15u;
}

// Explicit little-endian (de)serialisation so tables are portable.
void storeLE(uint8_t *p, uint32_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t loadLE(const uint8_t *p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i)
    v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

inline uint32_t loadCode(RowwiseBits bits, const uint8_t *data, size_t i) {
  return bits == RowwiseBits::Eight ? data[i] : readPackedUInt4(data, i);
}

} // namespace

size_t fusedRowBytes(RowwiseBits bits, size_t dim) {
  return dataBytes(bits, dim) + (bits == RowwiseBits::Eight ? 8 : 4);
}

RowScaleBias readRowScaleBias(RowwiseBits bits, Span<const uint8_t> row,
                              size_t dim) {
  assert(row.size() == fusedRowBytes(bits, dim));
  const uint8_t *p = row.data() + dataBytes(bits, dim);
  if (bits == RowwiseBits::Eight)
    return {bitsToFloat(loadLE(p, 4)), bitsToFloat(loadLE(p + 4, 4))};
  return {fp16ToFp32(static_cast<uint16_t>(loadLE(p, 2))),
          fp16ToFp32(static_cast<uint16_t>(loadLE(p + 2, 2)))};
}

Status quantizeFusedRow(RowwiseBits bits, Span<const float> row,
                        Span<uint8_t> out) {
  size_t dim = row.size();
  assert(out.size() == fusedRowBytes(bits, dim));
  float lo = 0.0f, hi = 0.0f;
  for (size_t i = 0; i < dim; ++i) {
    float v = row.data()[i];
    if (!std::isfinite(v))
      return Status::error("non-finite value in embedding row at column " +
                           std::to_string(i));
    if (i == 0 || v < lo)
      lo = v;
    if (i == 0 || v > hi)
      hi = v;
  }

  float levels = static_cast<float>(maxCode(bits));
  float bias = lo, scale;
  if (bits == RowwiseBits::Four) {
    uint16_t biasH = fp32ToFp16(lo);
    if ((biasH & 0x7C00u) == 0x7C00u)
      return Status::error("4-bit row minimum outside the fp16 range");
    bias = fp16ToFp32(biasH);
    // The stored bias may round above the true minimum; the range is
    // measured from the stored bias so the top code still reaches max.
    float range = hi - bias;
    uint16_t scaleH = fp32ToFp16(range / levels);
    if ((scaleH & 0x7C00u) == 0x7C00u)
      return Status::error("4-bit row range outside the fp16 range");
    scale = fp16ToFp32(scaleH);
  } else {
    float range = hi - lo;
    if (!std::isfinite(range))
      return Status::error("8-bit row range overflows fp32");
    scale = range / levels;
  }
  // Constant (or nearly constant) rows: any scale reproduces the bias
  // exactly because every (x - bias) is ~0, so store 1 to keep the
  // division well defined and the code 0.
  if (!(scale > 0.0f))
    scale = 1.0f;

  uint8_t *data = out.data();
  if (bits == RowwiseBits::Four)
    std::memset(data, 0, dataBytes(bits, dim));
  for (size_t i = 0; i < dim; ++i) {
    float q = roundHalfEven((row.data()[i] - bias) / scale);
    int32_t c = saturateToInt(q, 0, static_cast<int32_t>(maxCode(bits)));
    if (bits == RowwiseBits::Eight)
      data[i] = static_cast<uint8_t>(c);
    else
      data[i / 2] |= static_cast<uint8_t>(c << ((i & 1) * 4));
  }
  uint8_t *tail = data + dataBytes(bits, dim);
  if (bits == RowwiseBits::Eight) {
    storeLE(tail, floatToBits(scale), 4);
    storeLE(tail + 4, floatToBits(bias), 4);
  } else {
    storeLE(tail, fp32ToFp16(scale), 2);
    storeLE(tail + 2, fp32ToFp16(bias), 2);
  }
  return Status::success();
}

void dequantizeFusedRow(RowwiseBits bits, Span<const uint8_t> row,
                        Span<float> out) {
  size_t dim = out.size();
  RowScaleBias sb = readRowScaleBias(bits, row, dim);
  for (size_t i = 0; i < dim; ++i) {
    float q = static_cast<float>(loadCode(bits, row.data(), i));
    out.data()[i] = q * sb.scale + sb.bias;
  }
}

void accumulateFusedRow(RowwiseBits bits, Span<const uint8_t> row, float weight,
                        Span<float> acc) {
  size_t dim = acc.size();
  RowScaleBias sb = readRowScaleBias(bits, row, dim);
  // The device's order (isa.md, emb.gather): dequantise, weight, add.
  for (size_t i = 0; i < dim; ++i) {
    float q = static_cast<float>(loadCode(bits, row.data(), i));
    float x = q * sb.scale;
    x = x + sb.bias;
    float t = x * weight;
    acc.data()[i] = acc.data()[i] + t;
  }
}

Status quantizeFusedTable(RowwiseBits bits, Span<const float> data, size_t dim,
                          Span<uint8_t> table) {
  size_t rowBytes = fusedRowBytes(bits, dim);
  assert(dim != 0 && data.size() % dim == 0);
  size_t rows = data.size() / dim;
  assert(table.size() == rows * rowBytes);
  for (size_t r = 0; r < rows; ++r) {
    Status s = quantizeFusedRow(bits, data.subspan(r * dim, dim),
                                table.subspan(r * rowBytes, rowBytes));
    if (!s.ok())
      return Status::error("row " + std::to_string(r) + ": " + s.message());
  }
  return Status::success();
}

void dequantizeFusedTable(RowwiseBits bits, Span<const uint8_t> table,
                          size_t dim, Span<float> data) {
  size_t rowBytes = fusedRowBytes(bits, dim);
  assert(dim != 0 && table.size() % rowBytes == 0);
  size_t rows = table.size() / rowBytes;
  assert(data.size() == rows * dim);
  for (size_t r = 0; r < rows; ++r)
    dequantizeFusedRow(bits, table.subspan(r * rowBytes, rowBytes),
                       data.subspan(r * dim, dim));
}

Status embeddingBagFused(RowwiseBits bits, Span<const uint8_t> table,
                         size_t dim, Span<const int64_t> indices,
                         Span<const int64_t> offsets, Span<const float> weights,
                         Span<float> out) {
  size_t rowBytes = fusedRowBytes(bits, dim);
  assert(table.size() % rowBytes == 0);
  size_t numRows = table.size() / rowBytes;
  size_t numBags = offsets.size();
  assert(out.size() == numBags * dim);
  if (!weights.empty() && weights.size() != indices.size())
    return Status::error("per-sample weights must match indices in length");
  for (size_t b = 0; b < numBags; ++b) {
    int64_t begin = offsets[b];
    int64_t end =
        b + 1 < numBags ? offsets[b + 1] : static_cast<int64_t>(indices.size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(indices.size()))
      return Status::error("bag " + std::to_string(b) + " has invalid offsets");
  }
  std::fill(out.begin(), out.end(), 0.0f);
  for (size_t b = 0; b < numBags; ++b) {
    size_t begin = static_cast<size_t>(offsets[b]);
    size_t end =
        b + 1 < numBags ? static_cast<size_t>(offsets[b + 1]) : indices.size();
    Span<float> acc = out.subspan(b * dim, dim);
    for (size_t j = begin; j < end; ++j) {
      int64_t idx = indices[j];
      if (idx < 0 || static_cast<uint64_t>(idx) >= numRows)
        return Status::error("embedding index " + std::to_string(idx) +
                             " out of range");
      float w = weights.empty() ? 1.0f : weights[j];
      accumulateFusedRow(bits, table.subspan(idx * rowBytes, rowBytes), w, acc);
    }
  }
  return Status::success();
}

} // namespace numerics
} // namespace nnaccel
