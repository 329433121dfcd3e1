//===- HostIndexing.cpp - arg_max, top_k, gather/scatter, cumsum ---------===//
//
// Host kernels of the ops in AccelIndexingOps.td (but grid_sample, in
// HostMath.cpp), with ONNX semantics for
// every computable element type. Values are compared and combined as
// doubles for float tensors (f16/bf16 widened exactly, results rounded
// once) and as int64 for integer tensors (results wrap to the element
// type); pure data movement (gather_elements, scatter_elements without a
// reduction) copies elements bit for bit.
//
//===----------------------------------------------------------------------===//

#include "HostValues.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// The outer x axis x inner decomposition of `shape` around `axis`.
struct AxisView {
  int64_t outer = 1, size = 1, inner = 1;
};

AxisView viewAround(const std::vector<int64_t> &shape, int64_t axis) {
  AxisView v;
  v.outer = product(shape, 0, static_cast<size_t>(axis));
  v.size = shape[static_cast<size_t>(axis)];
  v.inner = product(shape, static_cast<size_t>(axis) + 1, shape.size());
  return v;
}

Status readAxis(KernelContext &ctx, int64_t rank, int64_t fallback,
                int64_t &axis) {
  int64_t given;
  if (Status s = ctx.op.getIntOr("axis", fallback, given); !s.ok())
    return s;
  if (!normalizeAxis(given, rank, axis))
    return ctx.error("axis " + std::to_string(given) +
                     " is out of range for rank " + std::to_string(rank));
  return Status::success();
}

template <typename V>
Status runArgReduce(KernelContext &ctx, const std::vector<V> &x, bool isMax) {
  const Tensor *in = ctx.input(0);
  int64_t axis, keepdims, last;
  if (Status s = readAxis(ctx, in->getRank(), 0, axis); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("keepdims", 1, keepdims); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("select_last_index", 0, last); !s.ok())
    return s;
  AxisView v = viewAround(in->getShape(), axis);
  if (v.size == 0)
    return ctx.error("arg_max/arg_min over an empty axis");
  std::vector<int64_t> shape = in->getShape();
  if (keepdims)
    shape[static_cast<size_t>(axis)] = 1;
  else
    shape.erase(shape.begin() + axis);
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(DType::I64, shape), out); !s.ok())
    return s;
  int64_t *po = out->mutableAs<int64_t>();
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      const V *row = x.data() + o * v.size * v.inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < v.size; ++k) {
        V a = row[k * v.inner], b = row[best * v.inner];
        bool better =
            isMax ? (a > b || (last && a == b)) : (a < b || (last && a == b));
        if (better)
          best = k;
      }
      po[o * v.inner + i] = best;
    }
  return Status::success();
}

Status argReduce(KernelContext &ctx, bool isMax) {
  const Tensor *in = ctx.input(0);
  if (isFloatDType(in->getDType()))
    return runArgReduce(ctx, readReal(*in), isMax);
  if (isIntegerDType(in->getDType()))
    return runArgReduce(ctx, readIndexTensor(*in), isMax);
  return ctx.unsupported(in->getDType());
}

template <typename V>
Status runTopK(KernelContext &ctx, const std::vector<V> &x) {
  const Tensor *in = ctx.input(0);
  int64_t axis, k, largest;
  if (Status s = readAxis(ctx, in->getRank(), -1, axis); !s.ok())
    return s;
  if (Status s = ctx.op.getInt("k", k); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("largest", 1, largest); !s.ok())
    return s;
  AxisView v = viewAround(in->getShape(), axis);
  if (k < 0 || k > v.size)
    return ctx.error("k = " + std::to_string(k) + " is out of range");
  std::vector<int64_t> shape = in->getShape();
  shape[static_cast<size_t>(axis)] = k;
  Tensor *values, *indices;
  if (Status s = ctx.makeOutput(0, TensorDesc(in->getDType(), shape), values);
      !s.ok())
    return s;
  if (Status s = ctx.makeOutput(1, TensorDesc(DType::I64, shape), indices);
      !s.ok())
    return s;
  std::vector<V> outValues(static_cast<size_t>(values->getNumElements()));
  int64_t *pi = indices->mutableAs<int64_t>();
  std::vector<int64_t> order(static_cast<size_t>(v.size));
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      const V *row = x.data() + o * v.size * v.inner + i;
      std::iota(order.begin(), order.end(), 0);
      // Stable: equal values keep the lower index first.
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return largest ? row[a * v.inner] > row[b * v.inner]
                       : row[a * v.inner] < row[b * v.inner];
      });
      for (int64_t j = 0; j < k; ++j) {
        size_t at = static_cast<size_t>((o * k + j) * v.inner + i);
        outValues[at] = row[order[static_cast<size_t>(j)] * v.inner];
        pi[at] = order[static_cast<size_t>(j)];
      }
    }
  writeValues(outValues, *values);
  return Status::success();
}

/// The normalised index of element `i` of `indices` into a dimension of
/// `size`, or an error.
Status wrapIndex(KernelContext &ctx, int64_t index, int64_t size,
                 int64_t &out) {
  out = index < 0 ? index + size : index;
  if (out < 0 || out >= size)
    return ctx.error("index " + std::to_string(index) +
                     " is out of range for a dimension of " +
                     std::to_string(size));
  return Status::success();
}

/// For every element of an index tensor of `indexShape`, calls
/// fn(flatIndexPosition, dataOffsetWithoutAxis), where the axis coordinate
/// is left to the caller (stride `axisStride`).
template <typename Fn>
void forEachIndex(const std::vector<int64_t> &indexShape,
                  const std::vector<int64_t> &dataStrides, int64_t axis,
                  Fn fn) {
  const int64_t rank = static_cast<int64_t>(indexShape.size());
  std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
  const int64_t total = product(indexShape, 0, indexShape.size());
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        offset +=
            pos[static_cast<size_t>(d)] * dataStrides[static_cast<size_t>(d)];
    fn(flat, offset);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++pos[static_cast<size_t>(d)] < indexShape[static_cast<size_t>(d)])
        break;
      pos[static_cast<size_t>(d)] = 0;
    }
  }
}

/// ScatterElements' and ScatterND's `reduction` of `target` with update
/// `u` ("none": replace).
template <typename V>
void reduceInto(const std::string &reduction, V &target, V u) {
  if (reduction == "add")
    target = target + u;
  else if (reduction == "mul")
    target = target * u;
  else if (reduction == "max")
    target = std::max(target, u);
  else if (reduction == "min")
    target = std::min(target, u);
  else
    target = u;
}

template <typename V>
Status runScatterReduce(KernelContext &ctx, std::vector<V> data,
                        const std::vector<V> &updates,
                        const std::vector<int64_t> &indices, int64_t axis,
                        const std::string &reduction, Tensor &out) {
  const Tensor *d = ctx.input(0);
  std::vector<int64_t> strides = contiguousStrides(d->getShape());
  const int64_t size = d->getShape()[static_cast<size_t>(axis)];
  Status status = Status::success();
  forEachIndex(
      ctx.input(1)->getShape(), strides, axis,
      [&](int64_t flat, int64_t offset) {
        if (!status.ok())
          return;
        int64_t index;
        status =
            wrapIndex(ctx, indices[static_cast<size_t>(flat)], size, index);
        if (!status.ok())
          return;
        V &target = data[static_cast<size_t>(
            offset + index * strides[static_cast<size_t>(axis)])];
        reduceInto(reduction, target, updates[static_cast<size_t>(flat)]);
      });
  if (!status.ok())
    return status;
  writeValues(data, out);
  return Status::success();
}

} // namespace

Status argMaxKernel(KernelContext &ctx) { return argReduce(ctx, true); }
Status argMinKernel(KernelContext &ctx) { return argReduce(ctx, false); }

Status topKKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  if (isFloatDType(in->getDType()))
    return runTopK(ctx, readReal(*in));
  if (isIntegerDType(in->getDType()))
    return runTopK(ctx, readIndexTensor(*in));
  return ctx.unsupported(in->getDType());
}

Status gatherElementsKernel(KernelContext &ctx) {
  const Tensor *data = ctx.input(0), *indicesT = ctx.input(1);
  int64_t axis;
  if (Status s = readAxis(ctx, data->getRank(), 0, axis); !s.ok())
    return s;
  if (indicesT->getRank() != data->getRank())
    return ctx.error("indices and data differ in rank");
  Tensor *out;
  if (Status s = ctx.makeOutput(
          0, TensorDesc(data->getDType(), indicesT->getShape()), out);
      !s.ok())
    return s;
  const std::vector<int64_t> indices = readIndexTensor(*indicesT);
  const std::vector<int64_t> strides = contiguousStrides(data->getShape());
  const int64_t size = data->getShape()[static_cast<size_t>(axis)];
  const size_t bytes = getDTypeSize(data->getDType());
  const char *src = static_cast<const char *>(data->data());
  char *dst = static_cast<char *>(out->mutableData());
  Status status = Status::success();
  forEachIndex(
      indicesT->getShape(), strides, axis, [&](int64_t flat, int64_t offset) {
        if (!status.ok())
          return;
        int64_t index;
        status =
            wrapIndex(ctx, indices[static_cast<size_t>(flat)], size, index);
        if (!status.ok())
          return;
        int64_t at = offset + index * strides[static_cast<size_t>(axis)];
        std::copy_n(src + at * static_cast<int64_t>(bytes), bytes,
                    dst + flat * static_cast<int64_t>(bytes));
      });
  return status;
}

Status scatterElementsKernel(KernelContext &ctx) {
  const Tensor *data = ctx.input(0), *indicesT = ctx.input(1),
               *updates = ctx.input(2);
  int64_t axis;
  if (Status s = readAxis(ctx, data->getRank(), 0, axis); !s.ok())
    return s;
  std::string reduction;
  if (Status s = ctx.op.getStringOr("reduction", "none", reduction); !s.ok())
    return s;
  if (indicesT->getShape() != updates->getShape() ||
      indicesT->getRank() != data->getRank() ||
      updates->getDType() != data->getDType())
    return ctx.error("indices, updates and data do not match");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, data->getDesc(), out); !s.ok())
    return s;
  const std::vector<int64_t> indices = readIndexTensor(*indicesT);
  if (isFloatDType(data->getDType()))
    return runScatterReduce(ctx, readReal(*data), readReal(*updates), indices,
                            axis, reduction, *out);
  if (isIntegerDType(data->getDType()))
    return runScatterReduce(ctx, readIndexTensor(*data),
                            readIndexTensor(*updates), indices, axis, reduction,
                            *out);
  return ctx.unsupported(data->getDType());
}

Status cumsumKernel(KernelContext &ctx) {
  const Tensor *in = ctx.input(0);
  int64_t axis, exclusive, reverse;
  if (Status s = readAxis(ctx, in->getRank(), 0, axis); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("exclusive", 0, exclusive); !s.ok())
    return s;
  if (Status s = ctx.op.getIntOr("reverse", 0, reverse); !s.ok())
    return s;
  Tensor *out;
  if (Status s = ctx.makeOutput(0, in->getDesc(), out); !s.ok())
    return s;
  AxisView v = viewAround(in->getShape(), axis);
  auto run = [&](auto values) {
    auto result = values;
    using V = typename decltype(values)::value_type;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        V sum = 0;
        for (int64_t j = 0; j < v.size; ++j) {
          int64_t k = reverse ? v.size - 1 - j : j;
          size_t at = static_cast<size_t>((o * v.size + k) * v.inner + i);
          if (exclusive) {
            result[at] = sum;
            sum = sum + values[at];
          } else {
            sum = sum + values[at];
            result[at] = sum;
          }
        }
      }
    writeValues(result, *out);
  };
  if (isFloatDType(in->getDType()))
    run(readReal(*in));
  else if (isIntegerDType(in->getDType()))
    run(readIndexTensor(*in));
  else
    return ctx.unsupported(in->getDType());
  return Status::success();
}

namespace {
/// The element offsets of the data slices GatherND / ScatterND address:
/// one per index row, with the slice size.
Status indexRows(KernelContext &ctx, const Tensor &data, const Tensor &indicesT,
                 int64_t batchDims, std::vector<int64_t> &offsets,
                 int64_t &sliceSize) {
  const auto &ds = data.getShape(), &is = indicesT.getShape();
  if (is.empty())
    return ctx.error("indices need rank >= 1");
  const int64_t k = is.back();
  if (batchDims < 0 || batchDims + k > data.getRank())
    return ctx.error("indices do not fit the data rank");
  const std::vector<int64_t> indices = readIndexTensor(indicesT);
  const std::vector<int64_t> strides = contiguousStrides(ds);
  sliceSize = product(ds, static_cast<size_t>(batchDims + k), ds.size());
  const int64_t rows = product(is, 0, is.size() - 1);
  const int64_t batchCount = product(ds, 0, static_cast<size_t>(batchDims));
  const int64_t rowsPerBatch = batchCount ? rows / batchCount : 0;
  offsets.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t batch = rowsPerBatch ? r / rowsPerBatch : 0;
    int64_t offset = 0;
    // The batch index spans the first batch_dims dimensions.
    int64_t rest = batch;
    for (int64_t d = batchDims - 1; d >= 0; --d) {
      offset +=
          (rest % ds[static_cast<size_t>(d)]) * strides[static_cast<size_t>(d)];
      rest /= ds[static_cast<size_t>(d)];
    }
    for (int64_t j = 0; j < k; ++j) {
      const size_t d = static_cast<size_t>(batchDims + j);
      int64_t index;
      if (Status s = wrapIndex(ctx, indices[static_cast<size_t>(r * k + j)],
                               ds[d], index);
          !s.ok())
        return s;
      offset += index * strides[d];
    }
    offsets[static_cast<size_t>(r)] = offset;
  }
  return Status::success();
}
} // namespace

Status gatherNDKernel(KernelContext &ctx) {
  const Tensor *data = ctx.input(0), *indicesT = ctx.input(1);
  int64_t batchDims;
  if (Status s = ctx.op.getIntOr("batch_dims", 0, batchDims); !s.ok())
    return s;
  std::vector<int64_t> offsets;
  int64_t slice;
  if (Status s = indexRows(ctx, *data, *indicesT, batchDims, offsets, slice);
      !s.ok())
    return s;
  std::vector<int64_t> shape(indicesT->getShape().begin(),
                             indicesT->getShape().end() - 1);
  shape.insert(shape.end(),
               data->getShape().begin() + batchDims +
                   indicesT->getShape().back(),
               data->getShape().end());
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(data->getDType(), shape), out);
      !s.ok())
    return s;
  const size_t bytes = getDTypeSize(data->getDType());
  const char *src = static_cast<const char *>(data->data());
  char *dst = static_cast<char *>(out->mutableData());
  for (size_t r = 0; r < offsets.size(); ++r)
    std::copy_n(src + offsets[r] * static_cast<int64_t>(bytes),
                slice * static_cast<int64_t>(bytes),
                dst + static_cast<int64_t>(r) * slice *
                          static_cast<int64_t>(bytes));
  return Status::success();
}

Status scatterNDKernel(KernelContext &ctx) {
  const Tensor *data = ctx.input(0), *indicesT = ctx.input(1),
               *updates = ctx.input(2);
  std::string reduction;
  if (Status s = ctx.op.getStringOr("reduction", "none", reduction); !s.ok())
    return s;
  if (updates->getDType() != data->getDType())
    return ctx.error("updates and data differ in element type");
  std::vector<int64_t> offsets;
  int64_t slice;
  if (Status s = indexRows(ctx, *data, *indicesT, 0, offsets, slice); !s.ok())
    return s;
  if (static_cast<int64_t>(offsets.size()) * slice != updates->getNumElements())
    return ctx.error("updates have the wrong number of elements");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, data->getDesc(), out); !s.ok())
    return s;
  auto run = [&](auto values, auto upd) {
    for (size_t r = 0; r < offsets.size(); ++r)
      for (int64_t i = 0; i < slice; ++i) {
        reduceInto(
            reduction, values[static_cast<size_t>(offsets[r] + i)],
            upd[r * static_cast<size_t>(slice) + static_cast<size_t>(i)]);
      }
    writeValues(values, *out);
  };
  if (isFloatDType(data->getDType()))
    run(readReal(*data), readReal(*updates));
  else if (isIntegerDType(data->getDType()))
    run(readIndexTensor(*data), readIndexTensor(*updates));
  else
    return ctx.unsupported(data->getDType());
  return Status::success();
}

Status maxUnpoolKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0), *indicesT = ctx.input(1);
  if (indicesT->getShape() != x->getShape())
    return ctx.error("indices and input differ in shape");
  const TensorDesc &desc = ctx.outputDescs[0];
  if (desc.dtype != x->getDType())
    return ctx.error("the result must have the input's element type");
  Tensor *out;
  if (Status s = ctx.makeOutput(0, desc, out); !s.ok())
    return s;
  const std::vector<int64_t> indices = readIndexTensor(*indicesT);
  const int64_t total = out->getNumElements();
  const size_t bytes = getDTypeSize(x->getDType());
  char *dst = static_cast<char *>(out->mutableData());
  std::fill_n(dst, static_cast<size_t>(total) * bytes, char(0));
  const char *src = static_cast<const char *>(x->data());
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= total)
      return ctx.error("index " + std::to_string(indices[i]) +
                       " is outside the result");
    std::copy_n(src + i * bytes, bytes,
                dst + static_cast<size_t>(indices[i]) * bytes);
  }
  return Status::success();
}

Status detKernel(KernelContext &ctx) {
  const Tensor *x = ctx.input(0);
  if (!isFloatDType(x->getDType()))
    return ctx.unsupported(x->getDType());
  const auto &shape = x->getShape();
  if (shape.size() < 2 || shape[shape.size() - 1] != shape[shape.size() - 2])
    return ctx.error("expects ... x M x M matrices");
  const int64_t m = shape.back();
  std::vector<int64_t> outShape(shape.begin(), shape.end() - 2);
  Tensor *out;
  if (Status s = ctx.makeOutput(0, TensorDesc(x->getDType(), outShape), out);
      !s.ok())
    return s;
  const std::vector<double> values = readReal(*x);
  std::vector<double> result(static_cast<size_t>(out->getNumElements()));
  for (size_t b = 0; b < result.size(); ++b) {
    std::vector<double> a(values.begin() + static_cast<int64_t>(b) * m * m,
                          values.begin() + static_cast<int64_t>(b + 1) * m * m);
    double det = 1;
    for (int64_t col = 0; col < m && det != 0; ++col) {
      int64_t pivot = col;
      for (int64_t r = col + 1; r < m; ++r)
        if (std::fabs(a[r * m + col]) > std::fabs(a[pivot * m + col]))
          pivot = r;
      if (a[pivot * m + col] == 0) {
        det = 0;
        break;
      }
      if (pivot != col) {
        for (int64_t k = 0; k < m; ++k)
          std::swap(a[pivot * m + k], a[col * m + k]);
        det = -det;
      }
      det *= a[col * m + col];
      for (int64_t r = col + 1; r < m; ++r) {
        double f = a[r * m + col] / a[col * m + col];
        for (int64_t k = col; k < m; ++k)
          a[r * m + k] -= f * a[col * m + k];
      }
    }
    result[b] = det;
  }
  writeValues(result, *out);
  return Status::success();
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
