//===- Affine.h - Affine (scale + zero point) quantisation -----*- C++ -*-===//
//
// int8/uint8/int4/uint4 affine quantisation with ONNX QuantizeLinear /
// DequantizeLinear semantics, per tensor and per axis, plus the int4 nibble
// packing used for weights in device memory. These are the only definitions
// of these quantisers in the project: the quantisation passes, the host
// fallback kernels and the emulator all call them.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_AFFINE_H
#define NNACCEL_NUMERICS_AFFINE_H

#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

/// Integer range of a quantised type.
struct QuantRange {
  int32_t min;
  int32_t max;
};
constexpr QuantRange kInt8Range{-128, 127};
constexpr QuantRange kUInt8Range{0, 255};
constexpr QuantRange kInt4Range{-8, 7};
constexpr QuantRange kUInt4Range{0, 15};

/// Per-tensor parameters: real = (q - zeroPoint) * scale.
struct QuantParams {
  float scale = 1.0f;
  int32_t zeroPoint = 0;
};

/// Per-axis parameters for a tensor viewed as [outer, axisSize, inner]
/// (row-major). Element i uses channel (i / innerSize) % axisSize, where
/// axisSize = scales.size() == zeroPoints.size(). For a per-output-channel
/// weight [OC, IC] quantised along axis 0, innerSize = IC.
struct AxisQuantParams {
  Span<const float> scales;
  Span<const int32_t> zeroPoints;
  size_t innerSize = 1;
};

/// Checks scale is finite and > 0 and zeroPoint lies in `range`.
Status validate(const QuantParams &p, QuantRange range);
Status validate(const AxisQuantParams &p, QuantRange range);

/// The scalar rule, ONNX QuantizeLinear:
///   q = saturate(roundHalfEven(x / scale) + zeroPoint)
/// with x / scale an fp32 division. +-inf saturate; NaN quantises to the
/// zero point (there is no integer NaN, and ONNX leaves it unspecified).
/// Preconditions: validate(p, range) succeeds.
int32_t quantizeValue(float x, const QuantParams &p, QuantRange range);
/// (q - zeroPoint) * scale; the integer difference is exact in fp32, so
/// there is a single rounding (the multiply).
float dequantizeValue(int32_t q, const QuantParams &p);

/// Per-tensor span quantisers. Sizes must match (precondition); invalid
/// parameters are reported, and then the output is left untouched.
Status quantizeInt8(Span<const float> x, const QuantParams &p,
                    Span<int8_t> out);
Status quantizeUInt8(Span<const float> x, const QuantParams &p,
                     Span<uint8_t> out);
void dequantizeInt8(Span<const int8_t> q, const QuantParams &p,
                    Span<float> out);
void dequantizeUInt8(Span<const uint8_t> q, const QuantParams &p,
                     Span<float> out);

/// Per-axis variants; x.size() must be a multiple of
/// axisSize * innerSize (precondition).
Status quantizeInt8PerAxis(Span<const float> x, const AxisQuantParams &p,
                           Span<int8_t> out);
Status quantizeUInt8PerAxis(Span<const float> x, const AxisQuantParams &p,
                            Span<uint8_t> out);
void dequantizeInt8PerAxis(Span<const int8_t> q, const AxisQuantParams &p,
                           Span<float> out);
void dequantizeUInt8PerAxis(Span<const uint8_t> q, const AxisQuantParams &p,
                            Span<float> out);

//===----------------------------------------------------------------------===//
// 4-bit values, packed two per byte.
//
// Element 2i is stored in the LOW nibble of byte i and element 2i+1 in the
// HIGH nibble; an odd trailing element leaves the high nibble zero. int4
// nibbles are two's complement (0x8 = -8, 0xF = -1).
//===----------------------------------------------------------------------===//

inline size_t packedInt4Size(size_t numElements) {
  return (numElements + 1) / 2;
}
/// Reads element i of a packed int4 / uint4 array.
inline int8_t readPackedInt4(const uint8_t *packed, size_t i) {
  uint8_t nib = (packed[i / 2] >> ((i & 1) * 4)) & 0x0F;
  return static_cast<int8_t>(static_cast<int8_t>(nib << 4) >> 4);
}
inline uint8_t readPackedUInt4(const uint8_t *packed, size_t i) {
  return (packed[i / 2] >> ((i & 1) * 4)) & 0x0F;
}

/// values.size() elements -> packedInt4Size(values.size()) bytes. Values
/// must already be in range (precondition); only the low 4 bits are stored.
void packInt4(Span<const int8_t> values, Span<uint8_t> packed);
void packUInt4(Span<const uint8_t> values, Span<uint8_t> packed);
/// out.size() elements are read from packed (packed.size() must be
/// packedInt4Size(out.size())). int4 values are sign extended.
void unpackInt4(Span<const uint8_t> packed, Span<int8_t> out);
void unpackUInt4(Span<const uint8_t> packed, Span<uint8_t> out);

/// Quantise straight to packed storage: x.size() values ->
/// packedInt4Size(x.size()) bytes.
Status quantizeInt4Packed(Span<const float> x, const QuantParams &p,
                          Span<uint8_t> packed);
Status quantizeUInt4Packed(Span<const float> x, const QuantParams &p,
                           Span<uint8_t> packed);
Status quantizeInt4PackedPerAxis(Span<const float> x, const AxisQuantParams &p,
                                 Span<uint8_t> packed);
void dequantizeInt4Packed(Span<const uint8_t> packed, const QuantParams &p,
                          Span<float> out);
void dequantizeUInt4Packed(Span<const uint8_t> packed, const QuantParams &p,
                           Span<float> out);
void dequantizeInt4PackedPerAxis(Span<const uint8_t> packed,
                                 const AxisQuantParams &p, Span<float> out);

/// Fake quantisation (quantise then dequantise) for calibration and
/// quantisation-aware passes.
Status fakeQuantize(Span<const float> x, const QuantParams &p, QuantRange range,
                    Span<float> out);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_AFFINE_H
