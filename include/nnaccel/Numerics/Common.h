//===- Common.h - Shared vocabulary of the numerics library -----*- C++ -*-===//
//
// Span, Status and the few scalar helpers (bit casts, round-half-even) that
// every number format in nnaccel::numerics is defined in terms of. Nothing in
// here performs a floating-point multiply or add, so the header can be
// included by translation units compiled with any -ffp-contract setting
// without changing results.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_COMMON_H
#define NNACCEL_NUMERICS_COMMON_H

#include <array>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace nnaccel {
namespace numerics {

/// A non-owning view of a contiguous array (a C++17 stand-in for std::span).
/// Kernels take spans so that the emulator can pass slices of its memories
/// without copying.
template <typename T> class Span {
public:
  using value_type = std::remove_cv_t<T>;

  constexpr Span() = default;
  constexpr Span(T *data, size_t size) : ptr(data), len(size) {}
  template <typename Alloc>
  Span(std::vector<value_type, Alloc> &v) : ptr(v.data()), len(v.size()) {}
  template <typename Alloc, typename U = T,
            typename = std::enable_if_t<std::is_const<U>::value>>
  Span(const std::vector<value_type, Alloc> &v)
      : ptr(v.data()), len(v.size()) {}
  template <size_t N>
  constexpr Span(std::array<value_type, N> &a) : ptr(a.data()), len(N) {}
  template <size_t N, typename U = T,
            typename = std::enable_if_t<std::is_const<U>::value>>
  constexpr Span(const std::array<value_type, N> &a) : ptr(a.data()), len(N) {}
  template <size_t N> constexpr Span(T (&a)[N]) : ptr(a), len(N) {}
  /// Span<T> converts to Span<const T>.
  template <typename U,
            typename = std::enable_if_t<std::is_same<const U, T>::value &&
                                        !std::is_same<U, T>::value>>
  constexpr Span(Span<U> other) : ptr(other.data()), len(other.size()) {}

  constexpr T *data() const { return ptr; }
  constexpr size_t size() const { return len; }
  constexpr bool empty() const { return len == 0; }
  constexpr T *begin() const { return ptr; }
  constexpr T *end() const { return ptr + len; }
  T &operator[](size_t i) const {
    assert(i < len && "Span index out of range");
    return ptr[i];
  }
  /// Elements [offset, offset + count).
  Span subspan(size_t offset, size_t count) const {
    assert(offset <= len && count <= len - offset && "subspan out of range");
    return Span(ptr + offset, count);
  }

private:
  T *ptr = nullptr;
  size_t len = 0;
};

/// Result of an operation that can fail on user-supplied data (for example a
/// non-positive quantisation scale). Programming errors such as mismatched
/// span sizes are preconditions checked with assert instead.
class Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.msg = std::move(message);
    return s;
  }
  bool ok() const { return !failed; }
  const std::string &message() const { return msg; }

private:
  bool failed = false;
  std::string msg;
};

/// Reinterprets the bits of a float (C++17 has no std::bit_cast).
inline uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// Rounds to the nearest integer, ties to even, independently of the
/// current floating-point rounding mode (std::nearbyint depends on it).
/// x - floor(x) is exact for every finite float, so the comparison with 0.5
/// sees the true fractional part. NaN and infinities are returned unchanged.
inline float roundHalfEven(float x) {
  if (!std::isfinite(x))
    return x;
  float fl = std::floor(x);
  float frac = x - fl;
  float r;
  if (frac > 0.5f)
    r = fl + 1.0f;
  else if (frac < 0.5f)
    r = fl;
  else // Exact tie: the even neighbour (fmod of an integral float is exact).
    r = std::fmod(fl, 2.0f) == 0.0f ? fl : fl + 1.0f;
  // Keep the sign of zero results, as IEEE roundToIntegralTiesToEven does.
  return r == 0.0f ? std::copysign(0.0f, x) : r;
}

/// floor(log2(|x|)) for finite non-zero x, computed exactly from the float's
/// exponent (fp32 subnormals included) rather than with std::log2, whose
/// rounding could misplace values just below a power of two.
inline int floorLog2(float x) {
  assert(std::isfinite(x) && x != 0.0f);
  int e;
  std::frexp(x, &e); // x = f * 2^e, 0.5 <= |f| < 1.
  return e - 1;
}

/// Saturates a float that is already integer-valued (or +-inf) into
/// [lo, hi]. NaN maps to 0 clamped into the range: quantisers use this to
/// give NaN inputs a deterministic code.
inline int32_t saturateToInt(float v, int32_t lo, int32_t hi) {
  if (std::isnan(v))
    return 0 < lo ? lo : (0 > hi ? hi : 0);
  if (v <= static_cast<float>(lo))
    return lo;
  if (v >= static_cast<float>(hi))
    return hi;
  return static_cast<int32_t>(v);
}

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_COMMON_H
