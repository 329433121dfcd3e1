//===- RowwiseEmbedding.h - Fused rowwise-quantised embeddings --*- C++ -*-===//
//
// The Caffe2/FBGEMM/Glow "fused rowwise" embedding-table formats, where each
// row carries its own scale and bias after the quantised data:
//   8-bit row: [N x uint8][fp32 scale][fp32 bias]            (N + 8 bytes)
//   4-bit row: [ceil(N/2) bytes, even element in low nibble]
//              [fp16 scale][fp16 bias]                      (ceil(N/2) + 4)
// Scale and bias are little-endian. Dequantisation is x = q * scale + bias.
// Rows are byte-aligned; the caller supplies N (the embedding dimension).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_ROWWISEEMBEDDING_H
#define NNACCEL_NUMERICS_ROWWISEEMBEDDING_H

#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

enum class RowwiseBits { Eight = 8, Four = 4 };

/// Bytes occupied by one fused row of `dim` elements.
size_t fusedRowBytes(RowwiseBits bits, size_t dim);

/// Scale and bias of a fused row, widened to fp32 (exact for the fp16 case).
struct RowScaleBias {
  float scale;
  float bias;
};
RowScaleBias readRowScaleBias(RowwiseBits bits, Span<const uint8_t> row,
                              size_t dim);

/// Quantises `row` (dim = row.size()) into `out` (fusedRowBytes bytes):
///   bias  = min(row)                (4-bit: rounded to fp16 first)
///   scale = (max(row) - bias) / (2^bits - 1)   (4-bit: rounded to fp16)
///   q     = clamp(roundHalfEven((x - bias) / scale), 0, 2^bits - 1)
/// all in fp32. A constant row (max == bias), or a 4-bit row whose fp16
/// scale underflows to 0, stores scale = 1 and q = 0 everywhere, so it
/// dequantises exactly to the (stored) bias. Fails, leaving `out`
/// unspecified, if the row holds NaN/inf or (4-bit) the bias or scale is
/// outside the fp16 range; an empty row is valid (it stores scale 1, bias 0).
Status quantizeFusedRow(RowwiseBits bits, Span<const float> row,
                        Span<uint8_t> out);

/// out[i] = q[i] * scale + bias (fp32 multiply, then fp32 add).
void dequantizeFusedRow(RowwiseBits bits, Span<const uint8_t> row,
                        Span<float> out);

/// Embedding-bag building block: acc[i] += weight * dequant(q[i]),
/// evaluated exactly as the card's emb.gather does (docs/isa.md §8.3)
///   x = q[i] * scale;  x = x + bias;  t = x * weight;  acc[i] = acc[i] + t
/// with every operation an fp32 rounding and no FMA. With weight == 1 this
/// is bit-identical to dequantizeFusedRow followed by an add.
void accumulateFusedRow(RowwiseBits bits, Span<const uint8_t> row, float weight,
                        Span<float> acc);

/// Whole-table helpers: `table` holds numRows fused rows back to back.
Status quantizeFusedTable(RowwiseBits bits, Span<const float> data, size_t dim,
                          Span<uint8_t> table);
void dequantizeFusedTable(RowwiseBits bits, Span<const uint8_t> table,
                          size_t dim, Span<float> data);

/// Reference EmbeddingBag (sum mode) over a fused table: for each bag b,
/// out[b] = sum over its indices j (in order) of weights[j] * row(indices[j]),
/// accumulated with accumulateFusedRow starting from +0. offsets has one
/// entry per bag (start position in indices); bag b ends at offsets[b+1] or
/// indices.size(). weights may be empty (all 1). Invalid offsets or
/// weights are reported before anything is written; an out-of-range index
/// is reported when reached, leaving `out` partially written.
Status embeddingBagFused(RowwiseBits bits, Span<const uint8_t> table,
                         size_t dim, Span<const int64_t> indices,
                         Span<const int64_t> offsets, Span<const float> weights,
                         Span<float> out);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_ROWWISEEMBEDDING_H
