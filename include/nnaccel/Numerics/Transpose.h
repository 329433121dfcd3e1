//===- Transpose.h - Strided 2-D element transposes -------------*- C++ -*-===//
//
// dst[c][r] = src[r][c] for 1-, 2- or 4-byte elements with any row strides
// (in bytes). The emulator's transposing DMAs (a million single-element
// rows an inference for a MobileNet) and the packed weight layouts of
// PackedMatVec.h move their elements through it. Bytes go in 16 x 16
// blocks of SSE2 interleaves, 32-bit words in 16 x 16 blocks of AVX-512
// interleaves when the CPU has them; edges and 2-byte elements element by
// element. Plain moves: every level writes the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_TRANSPOSE_H
#define NNACCEL_NUMERICS_TRANSPOSE_H

#include <cstddef>
#include <cstdint>

namespace nnaccel {
namespace numerics {

/// For r < rows, c < cols: the `elemBytes` bytes at dst + c * dstStride +
/// r * elemBytes become those at src + r * srcStride + c * elemBytes.
/// elemBytes is 1, 2 or 4 (others return false and copy nothing); the
/// boxes must not overlap. `vector` false forces the element loop (tests).
bool transposeElements(const uint8_t *src, size_t srcStride, uint8_t *dst,
                       size_t dstStride, size_t rows, size_t cols,
                       unsigned elemBytes, bool vector = true);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_TRANSPOSE_H
