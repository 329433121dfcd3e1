//===- HostBlockLinalg.cpp - fully_connected with block-float weights ----===//
//
// fully_connected whose weight is stored in a block floating-point format
// (msfp8, msfp9: blocks of 16; mxint8: blocks of 32), N x K with blocks
// along K (accel-quantize-block-float). Step for step the card's
// matrix-unit kernel and `mm` (docs/isa.md §8.6, emulator MatrixUnit.cpp):
//   * each activation row is converted to the weight's block format over
//     each k tile (the encoders of lib/Numerics, blocks of the tile);
//   * per k tile of `k_tile` columns (the target's native_dim, an op
//     attribute; the whole K without it) the blocks' exact products are
//     summed in f32 in block order from +0 (numerics::msfpMatVec /
//     mxInt8Dot, the functions the emulator calls);
//   * the tiles' results are summed in f32 in tile order (mm acc=1);
//   * then the bias is added and the activation applied, each in f32.
// With k_tile matching the card's tile, host and card agree bit for bit.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"
#include "LinalgSupport.h"

#include "nnaccel/Emulator/BlockPack.h"
#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Mx.h"

#include <memory>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace num = nnaccel::numerics;

namespace {

/// One `mm` block dot product of a k tile (kt elements, whole blocks):
/// weight row blocks (`wExp`, `wCodes`) against the activation's blocks in
/// the same format, the blocks' exact products summed in f32 in block order
/// from +0 (the functions the emulator's matrix unit calls).
float blockTileDot(DType wt, int64_t block, const uint8_t *wExp,
                   const uint8_t *wCodes, const uint8_t *xExp,
                   const uint8_t *xCodes, int64_t kt) {
  const size_t tb = size_t(kt / block);
  if (wt == DType::MXINT8)
    return num::mxInt8Dot({wExp, tb}, {wCodes, size_t(kt)}, {xExp, tb},
                          {xCodes, size_t(kt)});
  if (emulator::isMx(wt))
    return num::mxFp8Dot(emulator::mxElemType(wt), {wExp, tb},
                         {wCodes, size_t(kt)}, {xExp, tb},
                         {xCodes, size_t(kt)});
  const num::MsfpType mt =
      wt == DType::MSFP8 ? num::MsfpType::Msfp8 : num::MsfpType::Msfp9;
  num::MsfpView wv{mt, size_t(block), {wExp, tb}, {wCodes, size_t(kt)}};
  num::MsfpView xv{mt, size_t(block), {xExp, tb}, {xCodes, size_t(kt)}};
  return num::msfpDot(wv, xv);
}

/// `kt` activations (whole blocks) in the blocks of `wt`, as the matrix
/// unit converts its `a` rows.
void encodeActivations(DType wt, int64_t block, const float *x, int64_t kt,
                       uint8_t *ex, uint8_t *co) {
  num::Span<uint8_t> exSpan(ex, size_t(kt / block)), coSpan(co, size_t(kt));
  num::Span<const float> xs(x, size_t(kt));
  if (emulator::isMx(wt))
    num::encodeMx(emulator::mxElemType(wt), xs, exSpan, coSpan);
  else
    num::encodeMsfp(wt == DType::MSFP8 ? num::MsfpType::Msfp8
                                       : num::MsfpType::Msfp9,
                    size_t(block), xs, exSpan, coSpan);
}

/// A block-float weight of `n` rows of `k` elements unpacked once: per row,
/// one exponent / scale per block and one code per element.
struct UnpackedBlockRows {
  std::vector<uint8_t> exp, codes;
  UnpackedBlockRows(DType wt, const void *data, int64_t n, int64_t k) {
    const size_t nb = size_t(k / int64_t(blockElements(wt)));
    const size_t rowBytes = size_t(nnaccel::rowBytes(wt, uint64_t(k)));
    const auto *bytes = static_cast<const uint8_t *>(data);
    exp.resize(size_t(n) * nb);
    codes.resize(size_t(n * k));
    for (int64_t j = 0; j < n; ++j)
      emulator::unpackBlockRow(wt, bytes + size_t(j) * rowBytes, size_t(k),
                               exp.data() + size_t(j) * nb,
                               codes.data() + j * k);
  }
};

/// A block-float product's operands: a block weight (operand 1), a float
/// input (operand 0) and, if given, a bias (operand 2) of the input's type.
Status checkBlockOperands(KernelContext &ctx, const char *weightRole,
                          const char *inputRole) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType(), wt = w->getDType();
  if (wt != DType::MSFP8 && wt != DType::MSFP9 && !emulator::isMx(wt))
    return ctx.unsupported(wt, weightRole);
  if (dtype != DType::F32 && dtype != DType::F16 && dtype != DType::BF16)
    return ctx.unsupported(dtype, inputRole);
  if (bias)
    return requireFloat(ctx, bias, dtype, "bias");
  return Status::success();
}

} // namespace

Status blockFullyConnectedKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType(), wt = w->getDType();
  if (Status s = checkBlockOperands(ctx, "a block-float fully_connected weight",
                                    "the input of a block-float product");
      !s.ok())
    return s;
  FullyConnectedAttrs attrs;
  if (Status s = parseFullyConnectedAttrs(ctx.op, attrs); !s.ok())
    return s;
  int64_t kTile;
  if (Status s = ctx.op.getIntOr("k_tile", 0, kTile); !s.ok())
    return s;
  if (x->getRank() != 2 || w->getRank() != 2)
    return ctx.error("input and weight must be rank 2, got " +
                     x->getDesc().toString() + " and " +
                     w->getDesc().toString());
  if (attrs.transposeInput || !attrs.transposeWeight)
    return ctx.error("a block-float weight must be N x K (transpose_weight) "
                     "and the input must not be transposed");
  const int64_t block = int64_t(blockElements(wt));
  const auto &xs = x->getShape(), &ws = w->getShape();
  const int64_t m = xs[0], k = xs[1], n = ws[0];
  if (ws[1] != k)
    return ctx.error("contraction sizes differ: input [" + formatShape(xs) +
                     "] gives K = " + std::to_string(k) + ", weight [" +
                     formatShape(ws) + "] gives K = " + std::to_string(ws[1]));
  if (k % block)
    return ctx.error("K = " + std::to_string(k) +
                     " is not a multiple of the block size " +
                     std::to_string(block));
  if (kTile <= 0 || kTile > k)
    kTile = k;
  if (kTile % block)
    return ctx.error("k_tile = " + std::to_string(kTile) +
                     " is not a multiple of the block size " +
                     std::to_string(block));
  if (bias && bias->getNumElements() != n)
    return ctx.error("a block-float product takes one bias value per "
                     "column, got [" +
                     formatShape(bias->getShape()) + "]");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, {m, n}), out); !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();

  const size_t nb = size_t(k / block);
  const UnpackedBlockRows weight(wt, w->data(), n, k);

  F32Input fx(*x);
  std::unique_ptr<F32Input> fb;
  if (bias)
    fb = std::make_unique<F32Input>(*bias);
  F32Output fo(*out);
  const float alpha = float(attrs.alpha), beta = float(attrs.beta);
  std::vector<uint8_t> xExp(nb), xCodes(static_cast<size_t>(k));
  for (int64_t i = 0; i < m; ++i) {
    const float *row = fx.data() + i * k;
    float *y = fo.data() + i * n;
    for (int64_t t0 = 0; t0 < k; t0 += kTile) {
      const int64_t kt = std::min(kTile, k - t0);
      const size_t b0 = size_t(t0 / block);
      // This tile of the activation row, in the weight's blocks.
      encodeActivations(wt, block, row + t0, kt, xExp.data() + b0,
                        xCodes.data() + t0);
      for (int64_t j = 0; j < n; ++j) {
        float v = blockTileDot(wt, block, weight.exp.data() + j * nb + b0,
                               weight.codes.data() + j * k + t0,
                               xExp.data() + b0, xCodes.data() + t0, kt);
        y[j] = t0 == 0 ? v : y[j] + v;
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      float v = y[j];
      if (alpha != 1.0f)
        v = alpha * v;
      if (fb)
        v = v + (beta != 1.0f ? beta * (*fb)[size_t(j)] : (*fb)[size_t(j)]);
      y[j] = v;
    }
  }
  applyActivation(attrs.activation, fo.data(), size_t(m * n));
  fo.commit();
  return Status::success();
}

Status blockConvKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *bias = ctx.input(2);
  const DType dtype = x->getDType(), wt = w->getDType();
  if (Status s = checkBlockOperands(ctx, "a block-float conv weight",
                                    "the input of a block-float conv");
      !s.ok())
    return s;
  FusedActivation act;
  if (Status s = parseActivation(ctx.op, act); !s.ok())
    return s;
  ConvGeometry g;
  if (Status s = getConvGeometry(ctx, *x, *w, bias, g); !s.ok())
    return s;
  int64_t kTile;
  if (Status s = ctx.op.getIntOr("k_tile", 0, kTile); !s.ok())
    return s;
  const int64_t block = int64_t(blockElements(wt)), k = g.patch();
  if (k % block)
    return ctx.error("K = " + std::to_string(k) +
                     " is not a multiple of the block size " +
                     std::to_string(block));
  if (kTile <= 0 || kTile > k)
    kTile = k;
  if (kTile % block)
    return ctx.error("k_tile = " + std::to_string(kTile) +
                     " is not a multiple of the block size " +
                     std::to_string(block));
  if (!ctx.outputDescs.empty() && ctx.outputDescs[0].dtype != dtype)
    return ctx.unsupported(ctx.outputDescs[0].dtype,
                           "the result of a block-float conv");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, g.shape), out); !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();

  const size_t nb = size_t(k / block);
  const UnpackedBlockRows weight(wt, w->data(), g.filters, k);
  F32Input fx(*x);
  std::unique_ptr<F32Input> fb;
  if (bias)
    fb = std::make_unique<F32Input>(*bias);
  F32Output fo(*out);
  const int64_t fg = g.filtersPerGroup(), outPlane = g.outPlane();
  std::vector<uint8_t> xExp(nb), xCodes(static_cast<size_t>(k));
  // Per output pixel, the card's steps: the receptive field (a row of the
  // matrix unit's `a`, in weight order) encoded per block, one block dot
  // product per k tile, the tiles summed in f32 from the first (mm acc=1),
  // then the bias and the activation in f32.
  forEachReceptiveField(
      g, fx.data(),
      [&](int64_t nb0, int64_t grp, int64_t pos, const float *field) {
        encodeActivations(wt, block, field, k, xExp.data(), xCodes.data());
        float *og = fo.data() + (nb0 * g.filters + grp * fg) * outPlane;
        for (int64_t fi = 0; fi < fg; ++fi) {
          const int64_t row = grp * fg + fi;
          float y = 0;
          for (int64_t t0 = 0; t0 < k; t0 += kTile) {
            const int64_t kt = std::min(kTile, k - t0);
            const size_t b0 = size_t(t0 / block);
            float v = blockTileDot(wt, block,
                                   weight.exp.data() + size_t(row) * nb + b0,
                                   weight.codes.data() + row * k + t0,
                                   xExp.data() + b0, xCodes.data() + t0, kt);
            y = t0 == 0 ? v : y + v;
          }
          if (fb)
            y = y + (*fb)[size_t(row)];
          og[fi * outPlane + pos] = y;
        }
      });
  applyActivation(act, fo.data(), size_t(out->getNumElements()));
  fo.commit();
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
