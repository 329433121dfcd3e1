//===- LinalgSupport.h - Shapes shared by matmul and conv -------*- C++ -*-===//
//
// Private to lib/Runtime. The float kernels (HostLinalg.cpp) and the exact
// integer kernels (HostIntegerLinalg.cpp) of accel.matmul and accel.conv
// share their shape rules, attribute checks and the convolution's walk over
// receptive fields; only the element arithmetic differs, so it lives here
// once.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_RUNTIME_LINALGSUPPORT_H
#define NNACCEL_LIB_RUNTIME_LINALGSUPPORT_H

#include "KernelSupport.h"

#include <utility>
#include <vector>

namespace nnaccel {
namespace runtime {
namespace detail {

//===--- matmul -----------------------------------------------------------===//

/// numpy matmul shapes: a rank-1 lhs is a row vector, a rank-1 rhs a column
/// vector (their added dimension is dropped from the result); leading batch
/// dimensions broadcast.
struct MatMulGeometry {
  int64_t m = 0, k = 0, n = 0;
  std::vector<int64_t> lhsBatch, rhsBatch, batch;
  /// The result shape.
  std::vector<int64_t> shape;
};

/// Checks that `a` and `b` contract and their batches broadcast.
Status getMatMulGeometry(const KernelContext &ctx, const Tensor &a,
                         const Tensor &b, MatMulGeometry &g);

/// Calls body(resultIndex, lhsIndex, rhsIndex) for every result matrix, in
/// row-major batch order, with the indices of the lhs and rhs matrices it
/// multiplies (broadcast batches repeat an index).
template <typename Body>
void forEachMatMulBatch(const MatMulGeometry &g, Body &&body) {
  std::array<std::vector<int64_t>, 2> strides = {
      broadcastStrides(g.lhsBatch, g.batch),
      broadcastStrides(g.rhsBatch, g.batch)};
  forEachBroadcastRun<2>(
      g.batch, strides,
      [&](int64_t o, const std::array<int64_t, 2> &off, int64_t runLength,
          const std::array<int64_t, 2> &step) {
        for (int64_t r = 0; r < runLength; ++r)
          body(o + r, off[0] + r * step[0], off[1] + r * step[1]);
      });
}

//===--- conv -------------------------------------------------------------===//

/// A convolution in 3 spatial dimensions (missing leading ones have size 1,
/// stride and dilation 1, no padding).
struct ConvGeometry {
  int64_t batch = 0, channels = 0, filters = 0, groups = 1;
  int64_t in[3] = {1, 1, 1}, ker[3] = {1, 1, 1}, st[3] = {1, 1, 1},
          dil[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, out[3] = {1, 1, 1};
  /// The result shape.
  std::vector<int64_t> shape;

  int64_t channelsPerGroup() const { return channels / groups; }
  int64_t filtersPerGroup() const { return filters / groups; }
  int64_t inPlane() const { return in[0] * in[1] * in[2]; }
  int64_t outPlane() const { return out[0] * out[1] * out[2]; }
  /// Elements of one receptive field (= of one filter).
  int64_t patch() const {
    return channelsPerGroup() * ker[0] * ker[1] * ker[2];
  }
};

/// Reads `strides`, `pads`, `dilations` and `groups` and checks the input,
/// weight and optional bias shapes against them.
Status getConvGeometry(const KernelContext &ctx, const Tensor &x,
                       const Tensor &w, const Tensor *bias, ConvGeometry &g);

/// forEachReceptiveField over the output rows [rowBegin, rowEnd) only, a
/// row being one (image, group, o0, o1) in that order, with `field` (patch
/// elements) as the caller's buffer: the ranges parallelRanges hands out.
template <typename T, typename Body>
void forEachReceptiveFieldIn(const ConvGeometry &g, const T *x,
                             int64_t rowBegin, int64_t rowEnd, T *field,
                             Body &&body) {
  const int64_t cg = g.channelsPerGroup(), inPlane = g.inPlane();
  for (int64_t row = rowBegin; row < rowEnd; ++row) {
    const int64_t o1 = row % g.out[1], o0 = row / g.out[1] % g.out[0],
                  grp = row / (g.out[1] * g.out[0]) % g.groups,
                  nb = row / (g.out[1] * g.out[0] * g.groups);
    const T *xg = x + (nb * g.channels + grp * cg) * inPlane;
    int64_t pos = (o0 * g.out[1] + o1) * g.out[2];
    for (int64_t o2 = 0; o2 < g.out[2]; ++o2, ++pos) {
      T *f = field;
      for (int64_t c = 0; c < cg; ++c) {
        const T *xc = xg + c * inPlane;
        for (int64_t k0 = 0; k0 < g.ker[0]; ++k0) {
          const int64_t i0 = o0 * g.st[0] - g.pb[0] + k0 * g.dil[0];
          const bool ok0 = i0 >= 0 && i0 < g.in[0];
          for (int64_t k1 = 0; k1 < g.ker[1]; ++k1) {
            const int64_t i1 = o1 * g.st[1] - g.pb[1] + k1 * g.dil[1];
            const bool ok1 = ok0 && i1 >= 0 && i1 < g.in[1];
            const T *rowIn = ok1 ? xc + (i0 * g.in[1] + i1) * g.in[2] : nullptr;
            int64_t i2 = o2 * g.st[2] - g.pb[2];
            for (int64_t k2 = 0; k2 < g.ker[2]; ++k2, i2 += g.dil[2])
              *f++ = ok1 && i2 >= 0 && i2 < g.in[2] ? rowIn[i2] : T();
          }
        }
      }
      body(nb, grp, pos, static_cast<const T *>(field));
    }
  }
}

/// The output rows forEachReceptiveFieldIn counts.
inline int64_t receptiveFieldRows(const ConvGeometry &g) {
  return g.batch * g.groups * g.out[0] * g.out[1];
}

/// For every image, group and output position (row-major over the output's
/// spatial dimensions) packs the receptive field of `x` (N x C x D1..Dk,
/// row-major) into one patch() long buffer in weight order (channel, k0,
/// k1, k2), T() at padded positions, and calls
///   body(image, group, position, field).
template <typename T, typename Body>
void forEachReceptiveField(const ConvGeometry &g, const T *x, Body &&body) {
  std::vector<T> field(static_cast<size_t>(g.patch()));
  forEachReceptiveFieldIn(g, x, 0, receptiveFieldRows(g), field.data(),
                          std::forward<Body>(body));
}

//===--- Integer kernels (HostIntegerLinalg.cpp) --------------------------===//

/// accel.matmul / accel.conv on integer operands; matmulKernel and
/// convKernel hand integer operands to these.
Status integerMatmulKernel(KernelContext &ctx);
Status integerConvKernel(KernelContext &ctx);

} // namespace detail
} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_LINALGSUPPORT_H
