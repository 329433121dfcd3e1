//===- Affine.cpp - Affine (scale + zero point) integer quantisation ------===//
//
// All span quantisers funnel through quantizeValue/dequantizeValue and a
// pair of layout-generic loops, so per-tensor, per-axis, 8-bit and packed
// 4-bit variants cannot drift apart numerically.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Affine.h"

#include <string>

namespace nnaccel {
namespace numerics {

static Status validateScaleZp(float scale, int32_t zeroPoint,
                              QuantRange range) {
  if (!std::isfinite(scale) || !(scale > 0.0f))
    return Status::error("quantisation scale must be finite and > 0, got " +
                         std::to_string(scale));
  if (zeroPoint < range.min || zeroPoint > range.max)
    return Status::error("zero point " + std::to_string(zeroPoint) +
                         " outside [" + std::to_string(range.min) + ", " +
                         std::to_string(range.max) + "]");
  return Status::success();
}

Status validate(const QuantParams &p, QuantRange range) {
  return validateScaleZp(p.scale, p.zeroPoint, range);
}

Status validate(const AxisQuantParams &p, QuantRange range) {
  if (p.scales.size() != p.zeroPoints.size())
    return Status::error("per-axis scales and zero points differ in length");
  if (p.scales.empty() || p.innerSize == 0)
    return Status::error("per-axis parameters are empty");
  for (size_t c = 0; c < p.scales.size(); ++c) {
    Status s = validateScaleZp(p.scales[c], p.zeroPoints[c], range);
    if (!s.ok())
      return Status::error("channel " + std::to_string(c) + ": " + s.message());
  }
  return Status::success();
}

int32_t quantizeValue(float x, const QuantParams &p, QuantRange range) {
  float r = roundHalfEven(x / p.scale);
  if (std::isnan(r))
    return p.zeroPoint;
  // Saturating r into [min - zp, max - zp] before the integer add is the
  // same as saturating r + zp, but cannot overflow int32.
  return saturateToInt(r, range.min - p.zeroPoint, range.max - p.zeroPoint) +
         p.zeroPoint;
}

float dequantizeValue(int32_t q, const QuantParams &p) {
  return static_cast<float>(q - p.zeroPoint) * p.scale;
}

namespace {

/// Channel of flat element i under per-axis parameters.
inline size_t channelOf(size_t i, const AxisQuantParams &p) {
  return (i / p.innerSize) % p.scales.size();
}

template <typename Store>
void quantizeEach(Span<const float> x, const QuantParams &p, QuantRange range,
                  Store store) {
  for (size_t i = 0, e = x.size(); i != e; ++i)
    store(i, quantizeValue(x.data()[i], p, range));
}

template <typename Store>
void quantizeEach(Span<const float> x, const AxisQuantParams &p,
                  QuantRange range, Store store) {
  assert(x.size() % (p.scales.size() * p.innerSize) == 0);
  for (size_t i = 0, e = x.size(); i != e; ++i) {
    size_t c = channelOf(i, p);
    QuantParams cp{p.scales.data()[c], p.zeroPoints.data()[c]};
    store(i, quantizeValue(x.data()[i], cp, range));
  }
}

template <typename Load>
void dequantizeEach(size_t n, const QuantParams &p, Span<float> out,
                    Load load) {
  assert(out.size() == n);
  for (size_t i = 0; i != n; ++i)
    out.data()[i] = dequantizeValue(load(i), p);
}

template <typename Load>
void dequantizeEach(size_t n, const AxisQuantParams &p, Span<float> out,
                    Load load) {
  assert(out.size() == n);
  assert(n % (p.scales.size() * p.innerSize) == 0);
  for (size_t i = 0; i != n; ++i) {
    size_t c = channelOf(i, p);
    QuantParams cp{p.scales.data()[c], p.zeroPoints.data()[c]};
    out.data()[i] = dequantizeValue(load(i), cp);
  }
}

/// Stores a 4-bit value into nibble i of values written in index order: an
/// even index writes its whole byte (so the unused high nibble of an
/// odd-length array is 0), an odd one adds the high nibble.
inline void storeNibble(uint8_t *packed, size_t i, int32_t v) {
  uint8_t nibble = static_cast<uint8_t>(v & 0x0F);
  if (i & 1)
    packed[i / 2] |= static_cast<uint8_t>(nibble << 4);
  else
    packed[i / 2] = nibble;
}

/// Stores of quantized codes: as elements of `out`, or packed in nibbles.
template <typename T> auto storeInto(Span<T> out) {
  return [out](size_t i, int32_t q) { out.data()[i] = static_cast<T>(q); };
}
inline auto storeNibbles(Span<uint8_t> packed) {
  return [packed](size_t i, int32_t q) { storeNibble(packed.data(), i, q); };
}

/// Validates `p` for `range`, then quantizes every element of `x`, handing
/// (index, code) to `store`; nothing is written when `p` is invalid.
template <typename Params, typename Store>
Status quantizeChecked(Span<const float> x, const Params &p, QuantRange range,
                       Store store) {
  Status s = validate(p, range);
  if (!s.ok())
    return s;
  quantizeEach(x, p, range, store);
  return s;
}

} // namespace

Status quantizeInt8(Span<const float> x, const QuantParams &p,
                    Span<int8_t> out) {
  assert(x.size() == out.size());
  return quantizeChecked(x, p, kInt8Range, storeInto(out));
}

Status quantizeUInt8(Span<const float> x, const QuantParams &p,
                     Span<uint8_t> out) {
  assert(x.size() == out.size());
  return quantizeChecked(x, p, kUInt8Range, storeInto(out));
}

void dequantizeInt8(Span<const int8_t> q, const QuantParams &p,
                    Span<float> out) {
  dequantizeEach(q.size(), p, out, [&](size_t i) { return q.data()[i]; });
}

void dequantizeUInt8(Span<const uint8_t> q, const QuantParams &p,
                     Span<float> out) {
  dequantizeEach(q.size(), p, out, [&](size_t i) { return q.data()[i]; });
}

Status quantizeInt8PerAxis(Span<const float> x, const AxisQuantParams &p,
                           Span<int8_t> out) {
  assert(x.size() == out.size());
  return quantizeChecked(x, p, kInt8Range, storeInto(out));
}

Status quantizeUInt8PerAxis(Span<const float> x, const AxisQuantParams &p,
                            Span<uint8_t> out) {
  assert(x.size() == out.size());
  return quantizeChecked(x, p, kUInt8Range, storeInto(out));
}

void dequantizeInt8PerAxis(Span<const int8_t> q, const AxisQuantParams &p,
                           Span<float> out) {
  dequantizeEach(q.size(), p, out, [&](size_t i) { return q.data()[i]; });
}

void dequantizeUInt8PerAxis(Span<const uint8_t> q, const AxisQuantParams &p,
                            Span<float> out) {
  dequantizeEach(q.size(), p, out, [&](size_t i) { return q.data()[i]; });
}

void packInt4(Span<const int8_t> values, Span<uint8_t> packed) {
  assert(packed.size() == packedInt4Size(values.size()));
  for (size_t i = 0, e = values.size(); i != e; ++i)
    storeNibble(packed.data(), i, values.data()[i]);
}

void packUInt4(Span<const uint8_t> values, Span<uint8_t> packed) {
  assert(packed.size() == packedInt4Size(values.size()));
  for (size_t i = 0, e = values.size(); i != e; ++i)
    storeNibble(packed.data(), i, values.data()[i]);
}

void unpackInt4(Span<const uint8_t> packed, Span<int8_t> out) {
  assert(packed.size() == packedInt4Size(out.size()));
  for (size_t i = 0, e = out.size(); i != e; ++i)
    out.data()[i] = readPackedInt4(packed.data(), i);
}

void unpackUInt4(Span<const uint8_t> packed, Span<uint8_t> out) {
  assert(packed.size() == packedInt4Size(out.size()));
  for (size_t i = 0, e = out.size(); i != e; ++i)
    out.data()[i] = readPackedUInt4(packed.data(), i);
}

Status quantizeInt4Packed(Span<const float> x, const QuantParams &p,
                          Span<uint8_t> packed) {
  assert(packed.size() == packedInt4Size(x.size()));
  return quantizeChecked(x, p, kInt4Range, storeNibbles(packed));
}

Status quantizeUInt4Packed(Span<const float> x, const QuantParams &p,
                           Span<uint8_t> packed) {
  assert(packed.size() == packedInt4Size(x.size()));
  return quantizeChecked(x, p, kUInt4Range, storeNibbles(packed));
}

Status quantizeInt4PackedPerAxis(Span<const float> x, const AxisQuantParams &p,
                                 Span<uint8_t> packed) {
  assert(packed.size() == packedInt4Size(x.size()));
  return quantizeChecked(x, p, kInt4Range, storeNibbles(packed));
}

void dequantizeInt4Packed(Span<const uint8_t> packed, const QuantParams &p,
                          Span<float> out) {
  assert(packed.size() == packedInt4Size(out.size()));
  dequantizeEach(out.size(), p, out, [&](size_t i) {
    return static_cast<int32_t>(readPackedInt4(packed.data(), i));
  });
}

void dequantizeUInt4Packed(Span<const uint8_t> packed, const QuantParams &p,
                           Span<float> out) {
  assert(packed.size() == packedInt4Size(out.size()));
  dequantizeEach(out.size(), p, out, [&](size_t i) {
    return static_cast<int32_t>(readPackedUInt4(packed.data(), i));
  });
}

void dequantizeInt4PackedPerAxis(Span<const uint8_t> packed,
                                 const AxisQuantParams &p, Span<float> out) {
  assert(packed.size() == packedInt4Size(out.size()));
  dequantizeEach(out.size(), p, out, [&](size_t i) {
    return static_cast<int32_t>(readPackedInt4(packed.data(), i));
  });
}

Status fakeQuantize(Span<const float> x, const QuantParams &p, QuantRange range,
                    Span<float> out) {
  assert(x.size() == out.size());
  Status s = validate(p, range);
  if (!s.ok())
    return s;
  for (size_t i = 0, e = x.size(); i != e; ++i)
    out.data()[i] = dequantizeValue(quantizeValue(x.data()[i], p, range), p);
  return s;
}

} // namespace numerics
} // namespace nnaccel
