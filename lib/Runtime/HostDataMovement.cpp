//===- HostDataMovement.cpp - Layout and data movement kernels ------------===//
//
// reshape, transpose, concat, slice, gather, expand, pad and transfer. These
// move elements without arithmetic, so they work for every dtype: the loops
// copy elements as unsigned integers of the element's size (or whole rows
// with memcpy). reshape and transfer share the operand's bytes. The one
// exception is a gather of rows from a rowwise-quantized table, which
// dequantizes them (numerics::dequantizeFusedRow, as the card's emb.gather).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Numerics/RowwiseEmbedding.h"

#include <cstring>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// Reads an int-array attribute that must have exactly `n` entries.
Status getIntsOfSize(const KernelContext &ctx, const char *name, size_t n,
                     std::vector<int64_t> &out) {
  if (Status s = ctx.op.getInts(name, out); !s.ok())
    return s;
  if (out.size() != n)
    return ctx.error(std::string("attribute '") + name + "' has " +
                     std::to_string(out.size()) + " entries, expected " +
                     std::to_string(n));
  return Status::success();
}

/// Gathers elements: out[i] = in[offset(i)] where the walk over the result
/// shape uses per-dimension input strides (possibly negative or zero).
/// `base` is the input offset of the result's first element.
void stridedCopy(const Tensor &in, Tensor &out, int64_t base,
                 const std::vector<int64_t> &inStrides) {
  const auto &shape = out.getShape();
  if (out.getNumElements() == 0)
    return;
  visitElementBits(getDTypeSize(in.getDType()), [&](auto tag) {
    using U = decltype(tag);
    const U *src = in.as<U>() + base;
    U *dst = out.mutableAs<U>();
    // Strides here may be negative, so walk explicitly rather than with
    // the broadcast walker (which assumes non-negative strides).
    const size_t rank = shape.size();
    if (rank == 0) {
      dst[0] = src[0];
      return;
    }
    const int64_t inner = shape.back(), step = inStrides.back();
    std::vector<int64_t> index(rank, 0);
    int64_t off = 0, o = 0;
    while (true) {
      const U *p = src + off;
      if (step == 1) {
        std::memcpy(dst + o, p, static_cast<size_t>(inner) * sizeof(U));
      } else {
        for (int64_t i = 0; i < inner; ++i)
          dst[o + i] = p[i * step];
      }
      o += inner;
      size_t d = rank - 1;
      bool done = true;
      while (d > 0) {
        --d;
        ++index[d];
        off += inStrides[d];
        if (index[d] < shape[d]) {
          done = false;
          break;
        }
        off -= inStrides[d] * shape[d];
        index[d] = 0;
      }
      if (done)
        return;
    }
  });
}

} // namespace

Status reshapeKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const TensorDesc &desc = ctx.outputDescs[0];
  if (desc.dtype != in->getDType() ||
      desc.getNumElements() != in->getNumElements())
    return ctx.error("cannot reshape " + in->getDesc().toString() + " to " +
                     desc.toString());
  return ctx.setOutput(0, in->reinterpret(desc));
}

Status transferKernel(KernelContext &ctx) {
  // On the host a transfer is the identity; sharing the bytes is safe
  // because tensors are copy-on-write.
  return ctx.setOutput(0, *ctx.input(0));
}

Status transposeKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const size_t rank = in->getShape().size();
  std::vector<int64_t> perm;
  if (Status s = getIntsOfSize(ctx, "permutation", rank, perm); !s.ok())
    return s;
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      return ctx.error("permutation is not a permutation of 0.." +
                       std::to_string(rank ? rank - 1 : 0));
    seen[p] = true;
  }
  std::vector<int64_t> shape(rank), strides(rank);
  std::vector<int64_t> inStrides = contiguousStrides(in->getShape());
  for (size_t i = 0; i < rank; ++i) {
    shape[i] = in->getShape()[perm[i]];
    strides[i] = inStrides[perm[i]];
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(in->getDType(), shape), out);
      !s.ok())
    return s;
  stridedCopy(*in, *out, 0, strides);
  return Status::success();
}

Status concatKernel(KernelContext &ctx) {
  const Tensor *first = ctx.input(0);
  const int64_t rank = first->getRank();
  int64_t axisAttr, axis;
  if (Status s = ctx.op.getInt("axis", axisAttr); !s.ok())
    return s;
  if (!normalizeAxis(axisAttr, rank, axis))
    return ctx.error("axis " + std::to_string(axisAttr) +
                     " is out of range for rank " + std::to_string(rank));
  std::vector<int64_t> shape = first->getShape();
  shape[axis] = 0;
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor *t = ctx.input(k);
    if (t->getDType() != first->getDType() || t->getRank() != rank)
      return ctx.error("operand " + std::to_string(k) + " (" +
                       t->getDesc().toString() +
                       ") does not match the element type and rank of "
                       "operand 0 (" +
                       first->getDesc().toString() + ")");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t->getShape()[d] != first->getShape()[d])
        return ctx.error("operand " + std::to_string(k) + " has shape [" +
                         formatShape(t->getShape()) +
                         "], which differs from operand 0's [" +
                         formatShape(first->getShape()) + "] outside axis " +
                         std::to_string(axis));
    shape[axis] += t->getShape()[axis];
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(first->getDType(), shape), out);
      !s.ok())
    return s;
  const size_t esize = getDTypeSize(first->getDType());
  const int64_t outer = product(shape, 0, axis);
  const size_t inner =
      static_cast<size_t>(product(shape, axis + 1, rank)) * esize;
  uint8_t *dst = static_cast<uint8_t *>(out->mutableData());
  for (int64_t o = 0; o < outer; ++o)
    for (size_t k = 0; k < ctx.inputs.size(); ++k) {
      const Tensor *t = ctx.input(k);
      const size_t block = static_cast<size_t>(t->getShape()[axis]) * inner;
      if (block == 0)
        continue;
      std::memcpy(dst, static_cast<const uint8_t *>(t->data()) + o * block,
                  block);
      dst += block;
    }
  return Status::success();
}

Status sliceKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const size_t rank = in->getShape().size();
  std::vector<int64_t> starts, ends, steps;
  if (Status s = getIntsOfSize(ctx, "starts", rank, starts); !s.ok())
    return s;
  if (Status s = getIntsOfSize(ctx, "ends", rank, ends); !s.ok())
    return s;
  if (Status s = getIntsOfSize(ctx, "steps", rank, steps); !s.ok())
    return s;
  std::vector<int64_t> shape(rank), strides(rank);
  std::vector<int64_t> inStrides = contiguousStrides(in->getShape());
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dim = in->getShape()[d], b = starts[d], e = ends[d],
                  st = steps[d];
    // The compiler normalises bounds (AccelDataMovementOps.td); anything
    // else is rejected here rather than clamped silently.
    bool ok = st > 0 ? (0 <= b && b <= e && e <= dim)
                     : st < 0 && (-1 <= e && e <= b && b < dim);
    if (!ok)
      return ctx.error("dimension " + std::to_string(d) + ": start " +
                       std::to_string(b) + ", end " + std::to_string(e) +
                       ", step " + std::to_string(st) +
                       " are not normalised for size " + std::to_string(dim));
    shape[d] = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
    strides[d] = inStrides[d] * st;
    if (shape[d] > 0)
      base += b * inStrides[d];
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(in->getDType(), shape), out);
      !s.ok())
    return s;
  stridedCopy(*in, *out, base, strides);
  return Status::success();
}

Status gatherKernel(KernelContext &ctx) {
  const Tensor *data = ctx.input(0), *indices = ctx.input(1);
  if (!isIntegerDType(indices->getDType()) || indices->getDType() == DType::I1)
    return ctx.unsupported(indices->getDType(), "gather indices");
  const int64_t rank = data->getRank();
  int64_t axisAttr, axis;
  if (Status s = ctx.op.getIntOr("axis", 0, axisAttr); !s.ok())
    return s;
  if (!normalizeAxis(axisAttr, rank, axis))
    return ctx.error("axis " + std::to_string(axisAttr) +
                     " is out of range for rank " + std::to_string(rank));
  if (isRowwise(data->getDType()) && (rank != 2 || axis != 0))
    return ctx.error("a gather from a rowwise table takes rows (axis 0) of a "
                     "rank-2 table");
  const auto &ds = data->getShape();
  std::vector<int64_t> shape(ds.begin(), ds.begin() + axis);
  shape.insert(shape.end(), indices->getShape().begin(),
               indices->getShape().end());
  shape.insert(shape.end(), ds.begin() + axis + 1, ds.end());
  std::vector<int64_t> idx = readIndexTensor(*indices);
  const int64_t dim = ds[axis];
  for (size_t i = 0; i < idx.size(); ++i) {
    int64_t v = idx[i];
    if (v < -dim || v >= dim)
      return ctx.error("index " + std::to_string(v) + " at position " +
                       std::to_string(i) + " is out of range for axis " +
                       std::to_string(axis) + " of size " +
                       std::to_string(dim));
    idx[i] = v < 0 ? v + dim : v;
  }
  Tensor *out;
  if (isRowwise(data->getDType())) {
    // Whole rows of a rowwise-quantized table, dequantized as the card's
    // emb.gather does.
    if (Status s = ctx.makeOutput(0, TensorDesc(DType::F32, shape), out);
        !s.ok())
      return s;
    const numerics::RowwiseBits bits = data->getDType() == DType::RW8
                                           ? numerics::RowwiseBits::Eight
                                           : numerics::RowwiseBits::Four;
    const size_t cols = size_t(ds[1]);
    const size_t rowBytes = numerics::fusedRowBytes(bits, cols);
    const uint8_t *rows = static_cast<const uint8_t *>(data->data());
    float *dst = out->mutableAs<float>();
    for (int64_t v : idx) {
      numerics::dequantizeFusedRow(
          bits, {rows + size_t(v) * rowBytes, rowBytes}, {dst, cols});
      dst += cols;
    }
    return Status::success();
  }
  if (Status s = ctx.makeOutput(0, TensorDesc(data->getDType(), shape), out);
      !s.ok())
    return s;
  const size_t esize = getDTypeSize(data->getDType());
  const int64_t outer = product(ds, 0, axis);
  const size_t inner = static_cast<size_t>(product(ds, axis + 1, rank)) * esize;
  if (inner == 0)
    return Status::success();
  const uint8_t *src = static_cast<const uint8_t *>(data->data());
  uint8_t *dst = static_cast<uint8_t *>(out->mutableData());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t v : idx) {
      std::memcpy(dst, src + (o * dim + v) * inner, inner);
      dst += inner;
    }
  return Status::success();
}

Status expandKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const std::vector<int64_t> &target = ctx.outputDescs[0].shape;
  std::vector<int64_t> shape;
  if (!broadcastShapes(in->getShape(), target, shape) || shape != target)
    return ctx.error("cannot expand [" + formatShape(in->getShape()) +
                     "] to [" + formatShape(target) + "]");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(in->getDType(), shape), out);
      !s.ok())
    return s;
  std::array<std::vector<int64_t>, 1> strides = {
      broadcastStrides(in->getShape(), shape)};
  visitElementBits(getDTypeSize(in->getDType()), [&](auto tag) {
    using U = decltype(tag);
    const U *src = in->as<U>();
    U *dst = out->mutableAs<U>();
    forEachBroadcastRun<1>(shape, strides,
                           [&](int64_t o, const std::array<int64_t, 1> &off,
                               int64_t n, const std::array<int64_t, 1> &st) {
                             for (int64_t i = 0; i < n; ++i)
                               dst[o + i] = src[off[0] + i * st[0]];
                           });
  });
  return Status::success();
}

Status padKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  const auto &inShape = in->getShape();
  const size_t rank = inShape.size();
  std::vector<int64_t> pads;
  if (Status s = getIntsOfSize(ctx, "pads", 2 * rank, pads); !s.ok())
    return s;
  std::string mode;
  if (Status s = ctx.op.getStringOr("mode", "constant", mode); !s.ok())
    return s;
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return ctx.error("unknown pad mode '" + mode + "'");
  double value;
  if (Status s = ctx.op.getFloatOr("value", 0.0, value); !s.ok())
    return s;
  std::vector<int64_t> shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t b = pads[d], e = pads[d + rank], dim = inShape[d];
    if (b < 0 || e < 0)
      return ctx.error("pads must be non-negative");
    if (mode == "reflect" && (b > 0 || e > 0) && (b >= dim || e >= dim))
      return ctx.error("reflect padding of " + std::to_string(std::max(b, e)) +
                       " needs a dimension larger than that, got " +
                       std::to_string(dim) + " in dimension " +
                       std::to_string(d));
    if (mode == "edge" && (b > 0 || e > 0) && dim == 0)
      return ctx.error("edge padding of an empty dimension");
    shape[d] = dim + b + e;
  }
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(in->getDType(), shape), out);
      !s.ok())
    return s;
  if (out->getNumElements() == 0)
    return Status::success();
  // Per dimension, the source index of every result index (-1: fill).
  std::vector<std::vector<int64_t>> source(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t b = pads[d], dim = inShape[d];
    source[d].resize(shape[d]);
    for (int64_t o = 0; o < shape[d]; ++o) {
      int64_t i = o - b;
      if (i < 0 || i >= dim) {
        if (mode == "constant")
          i = -1;
        else if (mode == "edge")
          i = i < 0 ? 0 : dim - 1;
        else
          i = i < 0 ? -i : 2 * (dim - 1) - i;
      }
      source[d][o] = i;
    }
  }
  // The fill value converted with the cast rules of the element type.
  Tensor fillIn = Tensor::allocate(TensorDesc(DType::F64, {}));
  *fillIn.mutableAs<double>() = value;
  std::vector<Tensor> fillOut(1);
  HostOp castOp{"accel.cast", {}, ctx.op.location};
  const Tensor *castInputs[] = {&fillIn};
  std::vector<TensorDesc> castDescs = {TensorDesc(in->getDType(), {})};
  KernelContext castCtx{castOp, Span<const Tensor *const>(castInputs, 1),
                        castDescs, fillOut};
  if (Status s = castKernel(castCtx); !s.ok())
    return s;
  std::vector<int64_t> inStrides = contiguousStrides(inShape);
  visitElementBits(getDTypeSize(in->getDType()), [&](auto tag) {
    using U = decltype(tag);
    const U fill = *fillOut[0].as<U>();
    const U *src = in->as<U>();
    U *dst = out->mutableAs<U>();
    if (rank == 0) {
      dst[0] = src[0];
      return;
    }
    std::vector<int64_t> index(rank, 0);
    const int64_t inner = shape[rank - 1];
    const std::vector<int64_t> &last = source[rank - 1];
    int64_t o = 0;
    while (true) {
      // Offset of the row in the input, or -1 if an outer index is fill.
      int64_t rowOff = 0;
      for (size_t d = 0; d + 1 < rank && rowOff >= 0; ++d) {
        int64_t s = source[d][index[d]];
        rowOff = s < 0 ? -1 : rowOff + s * inStrides[d];
      }
      for (int64_t i = 0; i < inner; ++i)
        dst[o + i] = rowOff < 0 || last[i] < 0 ? fill : src[rowOff + last[i]];
      o += inner;
      size_t d = rank - 1;
      bool done = true;
      while (d > 0) {
        --d;
        if (++index[d] < shape[d]) {
          done = false;
          break;
        }
        index[d] = 0;
      }
      if (done)
        return;
    }
  });
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
