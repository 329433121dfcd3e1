//===- HostSequence.cpp - embedding_bag, lstm and gru kernels -------------===//
//
// Recommendation and recurrent ops with ONNX semantics (layout 0, default
// activations). Everything computes in fp32:
//  - embedding_bag accumulates each bag's rows in index order starting from
//    +0, acc = acc + w * row, and divides by the bag size for `mean` (empty
//    bags give zeros). Rowwise-quantized tables (rw8, rw4) are read with
//    numerics::accumulateFusedRow — dequantize (q * scale + bias), weight,
//    add — the order of the card's emb.gather, so both agree bit for bit;
//    their result is f32. Indices, offsets and lengths are validated before
//    any work.
//  - lstm / gru gate pre-activations are numerics::dotF32 products (input
//    part, then recurrent part) plus the biases, in that order; gates use
//    numerics::sigmoidF32 / tanhF32, so results match the device.
//  - lstm / gru with block floating-point W and R (msfp8, msfp9, mxint8;
//    accel-quantize-block-float) follow the card's recurrent kernel step
//    for step: each product's activation vector (x_t, h_{t-1}, or r*h) is
//    encoded in the weight's blocks, every k tile of `k_tile` columns (the
//    matrix unit's) is one msfpDot / mxInt8Dot, and the tiles are added in
//    f32 in order: x.W^T's tiles first (the first tile starts the sum), then
//    each of h.R^T's tiles onto it (mm acc=1), then the biases' f32 sum
//    Wb + Rb (one vector addition a step on the card; the h gate of a
//    linear_before_reset gru adds Rb inside the reset product and Wb after
//    it, as in f32). Card and host agree bit for bit.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Emulator/BlockPack.h"
#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Mx.h"
#include "nnaccel/Numerics/RowwiseEmbedding.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <algorithm>
#include <memory>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

inline float sigmoid(float x) { return numerics::sigmoidF32(x); }
inline float tanhf32(float x) { return numerics::tanhF32(x); }

Status checkShape(const KernelContext &ctx, const Tensor *t, const char *name,
                  const std::vector<int64_t> &expected, DType dtype) {
  if (!t)
    return Status::success();
  if (t->getDType() != dtype)
    return ctx.error(std::string(name) + " has element type " +
                     getDTypeName(t->getDType()) + ", expected " +
                     getDTypeName(dtype));
  if (t->getShape() != expected)
    return ctx.error(std::string(name) + " must have shape [" +
                     formatShape(expected) + "], got [" +
                     formatShape(t->getShape()) + "]");
  return Status::success();
}

/// Attributes and shapes shared by lstm and gru.
struct RnnSetup {
  int64_t seq, batch, inputSize, hidden, dirs;
  bool forward, reverse;
  bool hasClip;
  float clip;
  DType weightType; // W's and R's: the op's float type or a block format
  int64_t kTile;    // block weights: the matrix unit's k tile
};

bool isBlockWeight(DType t) {
  return t == DType::MSFP8 || t == DType::MSFP9 || emulator::isMx(t);
}

/// W or R (D x rows x k) in a block format, unpacked once; products of one
/// row with an activation vector encoded by setActivation, k tile by k tile
/// as the card's mm's.
class BlockRows {
public:
  BlockRows(const Tensor &t, int64_t kTile)
      : type(t.getDType()), block(int64_t(blockElements(type))),
        k(t.getShape().back()), kTile(kTile > 0 && kTile < k ? kTile : k) {
    const int64_t rows = k ? t.getNumElements() / k : 0;
    const size_t nb = size_t(k / block);
    const size_t rowBytes = size_t(nnaccel::rowBytes(type, uint64_t(k)));
    const auto *bytes = static_cast<const uint8_t *>(t.data());
    exps.resize(size_t(rows) * nb);
    codes.resize(size_t(rows * k));
    for (int64_t j = 0; j < rows; ++j) {
      emulator::unpackBlockRow(type, bytes + size_t(j) * rowBytes, size_t(k),
                               exps.data() + j * nb, codes.data() + j * k);
    }
    xExp.resize(nb);
    xCodes.resize(size_t(k));
  }

  /// The activation vector (k values) of the following products.
  void setActivation(const float *x) {
    numerics::Span<const float> xs(x, size_t(k));
    if (emulator::isMx(type))
      numerics::encodeMx(emulator::mxElemType(type), xs, xExp, xCodes);
    else
      numerics::encodeMsfp(msfpType(), size_t(block), xs, xExp, xCodes);
  }

  /// Row `row`'s product with the activation, tile by tile in f32: onto
  /// `*start` when given, else the first tile starts the sum.
  float dot(int64_t row, const float *start = nullptr) const {
    const size_t nb = size_t(k / block);
    float v = start ? *start : 0.0f;
    for (int64_t t0 = 0; t0 < k; t0 += kTile) {
      const int64_t kt = std::min(kTile, k - t0);
      const size_t b0 = size_t(t0 / block), tb = size_t(kt / block);
      const uint8_t *we = exps.data() + size_t(row) * nb + b0,
                    *wc = codes.data() + size_t(row * k + t0);
      float p;
      if (type == DType::MXINT8) {
        p = numerics::mxInt8Dot({we, tb}, {wc, size_t(kt)},
                                {xExp.data() + b0, tb},
                                {xCodes.data() + t0, size_t(kt)});
      } else if (emulator::isMx(type)) {
        p = numerics::mxFp8Dot(emulator::mxElemType(type), {we, tb},
                               {wc, size_t(kt)}, {xExp.data() + b0, tb},
                               {xCodes.data() + t0, size_t(kt)});
      } else {
        numerics::MsfpView wv{
            msfpType(), size_t(block), {we, tb}, {wc, size_t(kt)}};
        numerics::MsfpView xv{msfpType(),
                              size_t(block),
                              {xExp.data() + b0, tb},
                              {xCodes.data() + t0, size_t(kt)}};
        p = numerics::msfpDot(wv, xv);
      }
      v = (t0 == 0 && !start) ? p : v + p;
    }
    return v;
  }

private:
  numerics::MsfpType msfpType() const {
    return type == DType::MSFP8 ? numerics::MsfpType::Msfp8
                                : numerics::MsfpType::Msfp9;
  }
  DType type;
  int64_t block, k, kTile;
  std::vector<uint8_t> exps, codes, xExp, xCodes;
};

Status parseRnn(KernelContext &ctx, int64_t gates, RnnSetup &r) {
  const Tensor *x = ctx.input(0), *w = ctx.input(1), *rr = ctx.input(2);
  const DType dtype = x->getDType();
  if (!isFloatDType(dtype))
    return ctx.unsupported(dtype);
  if (x->getRank() != 3)
    return ctx.error("x must be rank 3 (seq x batch x input), got " +
                     x->getDesc().toString());
  std::string direction;
  if (Status s = ctx.op.getInt("hidden_size", r.hidden); !s.ok())
    return s;
  if (Status s = ctx.op.getStringOr("direction", "forward", direction); !s.ok())
    return s;
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.error("unknown direction '" + direction + "'");
  if (r.hidden < 1)
    return ctx.error("hidden_size must be positive");
  r.hasClip = ctx.op.hasAttr("clip");
  double clip = 0;
  if (r.hasClip) {
    if (Status s = ctx.op.getFloat("clip", clip); !s.ok())
      return s;
    if (!(clip > 0))
      return ctx.error("clip must be positive");
  }
  r.clip = static_cast<float>(clip);
  r.dirs = direction == "bidirectional" ? 2 : 1;
  r.forward = direction != "reverse";
  r.reverse = direction != "forward";
  r.seq = x->getShape()[0];
  r.batch = x->getShape()[1];
  r.inputSize = x->getShape()[2];
  const int64_t gh = gates * r.hidden;
  // W and R: the op's float type, or both in one block format.
  r.weightType = isBlockWeight(w->getDType()) ? w->getDType() : dtype;
  r.kTile = 0;
  if (isBlockWeight(r.weightType)) {
    if (Status s = ctx.op.getIntOr("k_tile", 0, r.kTile); !s.ok())
      return s;
    const int64_t block = int64_t(blockElements(r.weightType));
    if (r.inputSize % block || r.hidden % block ||
        (r.kTile > 0 && r.kTile % block))
      return ctx.error(std::string("block-float W and R need the input size "
                                   "(") +
                       std::to_string(r.inputSize) + "), hidden_size (" +
                       std::to_string(r.hidden) + ") and k_tile (" +
                       std::to_string(r.kTile) +
                       ") to be multiples of the block size " +
                       std::to_string(block));
  }
  if (Status s =
          checkShape(ctx, w, "W", {r.dirs, gh, r.inputSize}, r.weightType);
      !s.ok())
    return s;
  if (Status s = checkShape(ctx, rr, "R", {r.dirs, gh, r.hidden}, r.weightType);
      !s.ok())
    return s;
  if (Status s = checkShape(ctx, ctx.input(3), "B", {r.dirs, 2 * gh}, dtype);
      !s.ok())
    return s;
  return checkShape(ctx, ctx.input(4), "initial_h", {r.dirs, r.batch, r.hidden},
                    dtype);
}

inline float clipValue(const RnnSetup &r, float v) {
  if (!r.hasClip)
    return v;
  return numerics::minF32(numerics::maxF32(v, -r.clip), r.clip);
}

/// fp32 copy of an optional operand (empty when absent).
std::vector<float> loadOptional(const Tensor *t) {
  if (!t)
    return {};
  F32Input f(*t);
  return std::vector<float>(f.data(), f.data() + f.size());
}

/// Time step order of direction d.
inline int64_t timeIndex(const RnnSetup &r, int64_t d, int64_t step) {
  const bool rev = r.dirs == 2 ? d == 1 : r.reverse;
  return rev ? r.seq - 1 - step : step;
}

} // namespace

Status embeddingBagKernel(KernelContext &ctx) {
  const Tensor *table = ctx.input(0), *indices = ctx.input(1),
               *offsets = ctx.input(2), *lengths = ctx.input(3),
               *weights = ctx.input(4);
  const DType dtype = table->getDType();
  const bool rowwise = isRowwise(dtype);
  if (!isFloatDType(dtype) && !rowwise)
    return ctx.unsupported(dtype, "embedding tables");
  if (table->getRank() != 2)
    return ctx.error("table must be rank 2, got " +
                     table->getDesc().toString());
  for (const Tensor *t : {indices, offsets, lengths})
    if (t && (t->getDType() != DType::I32 && t->getDType() != DType::I64))
      return ctx.unsupported(t->getDType(), "indices, offsets and lengths "
                                            "(i32 or i64)");
  std::string mode;
  if (Status s = ctx.op.getStringOr("mode", "sum", mode); !s.ok())
    return s;
  if (mode != "sum" && mode != "mean")
    return ctx.error("unknown bag mode '" + mode + "'");
  if (offsets && lengths)
    return ctx.error("offsets and lengths are mutually exclusive");
  const int64_t rows = table->getShape()[0], dim = table->getShape()[1];
  const std::vector<int64_t> idx = readIndexTensor(*indices);
  const int64_t total = static_cast<int64_t>(idx.size());
  // Bag b covers idx[begin[b], begin[b + 1]).
  std::vector<int64_t> begin;
  if (indices->getRank() == 2) {
    if (offsets || lengths)
      return ctx.error("2-D indices take neither offsets nor lengths");
    const int64_t bags = indices->getShape()[0], len = indices->getShape()[1];
    for (int64_t b = 0; b <= bags; ++b)
      begin.push_back(b * len);
  } else if (indices->getRank() == 1) {
    if (!offsets && !lengths)
      return ctx.error("1-D indices need offsets or lengths");
    const Tensor *bagsT = offsets ? offsets : lengths;
    if (bagsT->getRank() != 1)
      return ctx.error(std::string(offsets ? "offsets" : "lengths") +
                       " must be rank 1, got " + bagsT->getDesc().toString());
    const std::vector<int64_t> v = readIndexTensor(*bagsT);
    int64_t pos = 0;
    for (size_t b = 0; b < v.size(); ++b) {
      const int64_t start = offsets ? v[b] : pos;
      if (offsets && (start < pos || start > total))
        return ctx.error("offset " + std::to_string(start) + " of bag " +
                         std::to_string(b) + " is decreasing or past the " +
                         std::to_string(total) + " indices");
      if (lengths && (v[b] < 0 || v[b] > total - pos))
        return ctx.error("length " + std::to_string(v[b]) + " of bag " +
                         std::to_string(b) + " is negative or overruns the " +
                         std::to_string(total) + " indices");
      begin.push_back(start);
      pos = offsets ? start : pos + v[b];
    }
    if (lengths && pos != total)
      return ctx.error("lengths sum to " + std::to_string(pos) +
                       " but there "
                       "are " +
                       std::to_string(total) + " indices");
    begin.push_back(total);
  } else {
    return ctx.error("indices must be rank 1 or 2, got " +
                     indices->getDesc().toString());
  }
  if (weights) {
    if (!isFloatDType(weights->getDType()))
      return ctx.unsupported(weights->getDType(), "per_sample_weights");
    if (weights->getShape() != indices->getShape())
      return ctx.error("per_sample_weights of shape [" +
                       formatShape(weights->getShape()) +
                       "] must match the indices' shape [" +
                       formatShape(indices->getShape()) + "]");
  }
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || idx[i] >= rows)
      return ctx.error("index " + std::to_string(idx[i]) + " at position " +
                       std::to_string(i) + " is out of range for a table of " +
                       std::to_string(rows) + " rows");
  const int64_t bags = static_cast<int64_t>(begin.size()) - 1;
  Tensor *out;
  if (Status s = ctx.makeOutput(
          0, TensorDesc(rowwise ? DType::F32 : dtype, {bags, dim}), out);
      !s.ok())
    return s;
  std::vector<float> w = loadOptional(weights);
  if (rowwise) {
    const numerics::RowwiseBits bits = dtype == DType::RW8
                                           ? numerics::RowwiseBits::Eight
                                           : numerics::RowwiseBits::Four;
    const size_t rowBytes = numerics::fusedRowBytes(bits, size_t(dim));
    const uint8_t *rows = static_cast<const uint8_t *>(table->data());
    float *result = out->mutableAs<float>();
    for (int64_t b = 0; b < bags; ++b) {
      numerics::Span<float> acc(result + b * dim, size_t(dim));
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t j = begin[b]; j < begin[b + 1]; ++j)
        numerics::accumulateFusedRow(
            bits, {rows + size_t(idx[j]) * rowBytes, rowBytes},
            weights ? w[size_t(j)] : 1.0f, acc);
      const int64_t count = begin[b + 1] - begin[b];
      if (mode == "mean" && count > 0)
        for (float &x : acc)
          x = x / static_cast<float>(count);
    }
    return Status::success();
  }
  F32Input ft(*table);
  F32Output fo(*out);
  for (int64_t b = 0; b < bags; ++b) {
    float *acc = fo.data() + b * dim;
    std::fill(acc, acc + dim, 0.0f);
    for (int64_t j = begin[b]; j < begin[b + 1]; ++j) {
      const float *row = ft.data() + idx[j] * dim;
      if (weights) {
        const float wj = w[static_cast<size_t>(j)];
        for (int64_t d = 0; d < dim; ++d)
          acc[d] = acc[d] + wj * row[d];
      } else {
        for (int64_t d = 0; d < dim; ++d)
          acc[d] = acc[d] + row[d];
      }
    }
    const int64_t count = begin[b + 1] - begin[b];
    if (mode == "mean" && count > 0)
      for (int64_t d = 0; d < dim; ++d)
        acc[d] = acc[d] / static_cast<float>(count);
  }
  fo.commit();
  return Status::success();
}

/// W and R as f32 arrays, or as block rows.
struct RnnWeights {
  RnnWeights(KernelContext &ctx, const RnnSetup &r)
      : block(isBlockWeight(r.weightType)) {
    if (block) {
      bw = std::make_unique<BlockRows>(*ctx.input(1), r.kTile);
      br = std::make_unique<BlockRows>(*ctx.input(2), r.kTile);
    } else {
      fw = std::make_unique<F32Input>(*ctx.input(1));
      fr = std::make_unique<F32Input>(*ctx.input(2));
    }
  }
  const float *w(int64_t offset) const {
    return fw ? fw->data() + offset : nullptr;
  }
  const float *r(int64_t offset) const {
    return fr ? fr->data() + offset : nullptr;
  }
  bool block;
  std::unique_ptr<F32Input> fw, fr;
  std::unique_ptr<BlockRows> bw, br;
};

Status lstmKernel(KernelContext &ctx) {
  RnnSetup r;
  if (Status s = parseRnn(ctx, 4, r); !s.ok())
    return s;
  const DType dtype = ctx.input(0)->getDType();
  const int64_t H = r.hidden, B = r.batch, I = r.inputSize, D = r.dirs;
  if (Status s = checkShape(ctx, ctx.input(5), "initial_c", {D, B, H}, dtype);
      !s.ok())
    return s;
  if (Status s = checkShape(ctx, ctx.input(6), "P", {D, 3 * H}, dtype); !s.ok())
    return s;
  Tensor *y, *yh, *yc;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, {r.seq, D, B, H}), y);
      !s.ok())
    return s;
  if (Status s = ctx.makeOutput(1, TensorDesc(dtype, {D, B, H}), yh); !s.ok())
    return s;
  if (Status s = ctx.makeOutput(2, TensorDesc(dtype, {D, B, H}), yc); !s.ok())
    return s;
  F32Input x(*ctx.input(0));
  RnnWeights weights(ctx, r);
  const std::vector<float> bias = loadOptional(ctx.input(3)),
                           h0 = loadOptional(ctx.input(4)),
                           c0 = loadOptional(ctx.input(5)),
                           peep = loadOptional(ctx.input(6));
  F32Output fy(*y), fh(*yh), fc(*yc);
  std::vector<float> h(static_cast<size_t>(B * H)), c(h.size()),
      hNext(h.size()), g(static_cast<size_t>(4 * H));
  for (int64_t d = 0; d < D; ++d) {
    const float *wd = weights.w(d * 4 * H * I), *rd = weights.r(d * 4 * H * H);
    const float *wb = bias.empty() ? nullptr : bias.data() + d * 8 * H;
    const float *pd = peep.empty() ? nullptr : peep.data() + d * 3 * H;
    for (size_t i = 0; i < h.size(); ++i) {
      h[i] = h0.empty() ? 0.0f : h0[d * B * H + i];
      c[i] = c0.empty() ? 0.0f : c0[d * B * H + i];
    }
    for (int64_t step = 0; step < r.seq; ++step) {
      const int64_t t = timeIndex(r, d, step);
      for (int64_t b = 0; b < B; ++b) {
        const float *xt = x.data() + (t * B + b) * I;
        const float *hb = h.data() + b * H;
        float *cb = c.data() + b * H;
        if (weights.block) {
          weights.bw->setActivation(xt);
          weights.br->setActivation(hb);
        }
        for (int64_t k = 0; k < 4 * H; ++k) {
          float v;
          if (weights.block) {
            v = weights.bw->dot(d * 4 * H + k);
            v = weights.br->dot(d * 4 * H + k, &v);
          } else {
            v = dotRows(wd + k * I, xt, I) + dotRows(rd + k * H, hb, H);
          }
          if (wb)
            v = weights.block ? v + (wb[k] + wb[4 * H + k])
                              : v + wb[k] + wb[4 * H + k];
          g[k] = v;
        }
        // Gate blocks in W/R/B order: i, o, f, c. Peepholes: i, o, f.
        for (int64_t j = 0; j < H; ++j) {
          float pi = g[j], po = g[H + j], pf = g[2 * H + j], pc = g[3 * H + j];
          if (pd) {
            pi = pi + pd[j] * cb[j];
            pf = pf + pd[2 * H + j] * cb[j];
          }
          const float ig = sigmoid(clipValue(r, pi));
          const float fg = sigmoid(clipValue(r, pf));
          const float cg = tanhf32(clipValue(r, pc));
          const float cNew = fg * cb[j] + ig * cg;
          if (pd)
            po = po + pd[H + j] * cNew;
          const float og = sigmoid(clipValue(r, po));
          hNext[b * H + j] = og * tanhf32(cNew);
          cb[j] = cNew;
        }
      }
      h.swap(hNext);
      std::copy(h.begin(), h.end(), fy.data() + (t * D + d) * B * H);
    }
    std::copy(h.begin(), h.end(), fh.data() + d * B * H);
    std::copy(c.begin(), c.end(), fc.data() + d * B * H);
  }
  fy.commit();
  fh.commit();
  fc.commit();
  return Status::success();
}

Status gruKernel(KernelContext &ctx) {
  RnnSetup r;
  if (Status s = parseRnn(ctx, 3, r); !s.ok())
    return s;
  int64_t lbr;
  if (Status s = ctx.op.getIntOr("linear_before_reset", 0, lbr); !s.ok())
    return s;
  const DType dtype = ctx.input(0)->getDType();
  const int64_t H = r.hidden, B = r.batch, I = r.inputSize, D = r.dirs;
  Tensor *y, *yh;
  if (Status s = ctx.makeOutput(0, TensorDesc(dtype, {r.seq, D, B, H}), y);
      !s.ok())
    return s;
  if (Status s = ctx.makeOutput(1, TensorDesc(dtype, {D, B, H}), yh); !s.ok())
    return s;
  F32Input x(*ctx.input(0));
  RnnWeights weights(ctx, r);
  const std::vector<float> bias = loadOptional(ctx.input(3)),
                           h0 = loadOptional(ctx.input(4));
  F32Output fy(*y), fh(*yh);
  std::vector<float> h(static_cast<size_t>(B * H)), hNext(h.size()),
      xg(static_cast<size_t>(3 * H)), rh(static_cast<size_t>(H)), z(rh.size()),
      rg(rh.size());
  for (int64_t d = 0; d < D; ++d) {
    const float *wd = weights.w(d * 3 * H * I), *rd = weights.r(d * 3 * H * H);
    const int64_t row0 = d * 3 * H; // block weights: the direction's rows
    const float *wb = bias.empty() ? nullptr : bias.data() + d * 6 * H;
    const float *rb = wb ? wb + 3 * H : nullptr;
    for (size_t i = 0; i < h.size(); ++i)
      h[i] = h0.empty() ? 0.0f : h0[d * B * H + i];
    for (int64_t step = 0; step < r.seq; ++step) {
      const int64_t t = timeIndex(r, d, step);
      for (int64_t b = 0; b < B; ++b) {
        const float *xt = x.data() + (t * B + b) * I;
        const float *hb = h.data() + b * H;
        if (weights.block) {
          weights.bw->setActivation(xt);
          weights.br->setActivation(hb);
        }
        for (int64_t k = 0; k < 3 * H; ++k)
          xg[k] = weights.block ? weights.bw->dot(row0 + k)
                                : dotRows(wd + k * I, xt, I);
        // Gate order z, r, h.
        for (int64_t j = 0; j < H; ++j) {
          float pz, pr;
          if (weights.block) {
            pz = weights.br->dot(row0 + j, &xg[j]);
            pr = weights.br->dot(row0 + H + j, &xg[H + j]);
          } else {
            pz = xg[j] + dotRows(rd + j * H, hb, H);
            pr = xg[H + j] + dotRows(rd + (H + j) * H, hb, H);
          }
          if (wb && weights.block) {
            pz = pz + (wb[j] + rb[j]);
            pr = pr + (wb[H + j] + rb[H + j]);
          } else if (wb) {
            pz = pz + wb[j] + rb[j];
            pr = pr + wb[H + j] + rb[H + j];
          }
          z[j] = sigmoid(clipValue(r, pz));
          rg[j] = sigmoid(clipValue(r, pr));
        }
        const float *rdh = rd ? rd + 2 * H * H : nullptr;
        if (!lbr) {
          for (int64_t j = 0; j < H; ++j)
            rh[j] = rg[j] * hb[j];
          if (weights.block)
            weights.br->setActivation(rh.data());
        }
        for (int64_t j = 0; j < H; ++j) {
          float ph;
          if (lbr) {
            // r (.) (R_h h + Rb_h), then + W_h x + Wb_h.
            float lin = weights.block ? weights.br->dot(row0 + 2 * H + j)
                                      : dotRows(rdh + j * H, hb, H);
            if (rb)
              lin = lin + rb[2 * H + j];
            ph = xg[2 * H + j] + rg[j] * lin;
          } else {
            ph = weights.block
                     ? weights.br->dot(row0 + 2 * H + j, &xg[2 * H + j])
                     : xg[2 * H + j] + dotRows(rdh + j * H, rh.data(), H);
            if (rb && weights.block)
              ph = ph + (wb[2 * H + j] + rb[2 * H + j]);
            else if (rb)
              ph = ph + rb[2 * H + j];
          }
          if (wb && (lbr || !weights.block))
            ph = ph + wb[2 * H + j];
          const float hh = tanhf32(clipValue(r, ph));
          hNext[b * H + j] = (1.0f - z[j]) * hh + z[j] * hb[j];
        }
      }
      h.swap(hNext);
      std::copy(h.begin(), h.end(), fy.data() + (t * D + d) * B * H);
    }
    std::copy(h.begin(), h.end(), fh.data() + d * B * H);
  }
  fy.commit();
  fh.commit();
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
