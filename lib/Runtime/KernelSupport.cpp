//===- KernelSupport.cpp - Shared machinery of the host kernels -----------===//
//
// Result checking and allocation, fp32 staging of 16/64-bit floats, shape
// helpers and fused activations used by every kernel family.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "nnaccel/Numerics/Float16.h"
#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <cstring>

namespace nnaccel {
namespace runtime {
namespace detail {

Status KernelContext::makeOutput(size_t i, const TensorDesc &expected,
                                 Tensor *&out) {
  out = nullptr;
  if (i >= outputDescs.size())
    return error("internal error: result " + std::to_string(i) +
                 " was not declared");
  if (outputDescs[i] != expected)
    return error("result " + std::to_string(i) + " is declared as " +
                 outputDescs[i].toString() + " but the op produces " +
                 expected.toString());
  outputs[i] = Tensor::allocate(expected);
  if (outputs[i].isNull())
    return error("cannot allocate result " + std::to_string(i) + " (" +
                 expected.toString() + ")");
  out = &outputs[i];
  return Status::success();
}

Status KernelContext::setOutput(size_t i, Tensor value) {
  if (i >= outputDescs.size())
    return error("internal error: result " + std::to_string(i) +
                 " was not declared");
  if (outputDescs[i] != value.getDesc())
    return error("result " + std::to_string(i) + " is declared as " +
                 outputDescs[i].toString() + " but the op produces " +
                 value.getDesc().toString());
  outputs[i] = std::move(value);
  return Status::success();
}

Status KernelContext::unsupported(DType dtype, const char *what) const {
  return error(std::string("unsupported element type ") + getDTypeName(dtype) +
               " for " + what);
}

void loadF32(const void *src, size_t n, DType dtype, float *dst) {
  switch (dtype) {
  case DType::F32:
    if (n)
      std::memcpy(dst, src, n * sizeof(float));
    return;
  case DType::F16:
    numerics::fp16ToFp32(
        Span<const uint16_t>(static_cast<const uint16_t *>(src), n),
        Span<float>(dst, n));
    return;
  case DType::BF16:
    numerics::bf16ToFp32(
        Span<const uint16_t>(static_cast<const uint16_t *>(src), n),
        Span<float>(dst, n));
    return;
  case DType::F64: {
    const double *d = static_cast<const double *>(src);
    for (size_t i = 0; i < n; ++i)
      dst[i] = static_cast<float>(d[i]);
    return;
  }
  default:
    return;
  }
}

void storeF32(const float *src, size_t n, DType dtype, void *dst) {
  switch (dtype) {
  case DType::F32:
    if (n && dst != src)
      std::memmove(dst, src, n * sizeof(float));
    return;
  case DType::F16:
    numerics::fp32ToFp16(Span<const float>(src, n),
                         Span<uint16_t>(static_cast<uint16_t *>(dst), n));
    return;
  case DType::BF16:
    numerics::fp32ToBf16(Span<const float>(src, n),
                         Span<uint16_t>(static_cast<uint16_t *>(dst), n));
    return;
  case DType::F64: {
    double *d = static_cast<double *>(dst);
    for (size_t i = 0; i < n; ++i)
      d[i] = static_cast<double>(src[i]);
    return;
  }
  default:
    return;
  }
}

F32Input::F32Input(const Tensor &t) {
  count = static_cast<size_t>(t.getNumElements());
  if (t.getDType() == DType::F32) {
    ptr = t.as<float>();
    return;
  }
  storage.resize(count);
  loadF32(t.data(), count, t.getDType(), storage.data());
  ptr = storage.data();
}

F32Output::F32Output(Tensor &t) : tensor(t) {
  if (t.getDType() == DType::F32) {
    ptr = t.mutableAs<float>();
    return;
  }
  storage.resize(static_cast<size_t>(t.getNumElements()));
  ptr = storage.data();
}

void F32Output::commit() {
  if (tensor.getDType() != DType::F32 && !storage.empty())
    storeF32(storage.data(), storage.size(), tensor.getDType(),
             tensor.mutableData());
}

std::vector<int64_t> readIndexTensor(const Tensor &t) {
  size_t n = static_cast<size_t>(t.getNumElements());
  std::vector<int64_t> out(n);
  if (t.getDType() == DType::I1) {
    const uint8_t *p = t.as<uint8_t>();
    for (size_t i = 0; i < n; ++i)
      out[i] = p[i] != 0;
    return out;
  }
  visitIntDType(t.getDType(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = t.as<T>();
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<int64_t>(p[i]);
  });
  return out;
}

bool broadcastShapes(const std::vector<int64_t> &a,
                     const std::vector<int64_t> &b, std::vector<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &in,
                                      const std::vector<int64_t> &out) {
  std::vector<int64_t> inStrides = contiguousStrides(in);
  std::vector<int64_t> strides(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[lead + i] = in[i] == 1 ? 0 : inStrides[i];
  return strides;
}

bool normalizeAxis(int64_t axis, int64_t rank, int64_t &out) {
  if (axis < -rank || axis >= rank)
    return false;
  out = axis < 0 ? axis + rank : axis;
  return true;
}

int64_t product(const std::vector<int64_t> &v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < v.size(); ++i)
    p *= v[i];
  return p;
}

Status requireFloat(const KernelContext &ctx, const Tensor *t, DType expected,
                    const char *name) {
  if (!isFloatDType(t->getDType()))
    return ctx.unsupported(t->getDType(), name);
  if (t->getDType() != expected)
    return ctx.error(std::string(name) + " has element type " +
                     getDTypeName(t->getDType()) + ", expected " +
                     getDTypeName(expected));
  return Status::success();
}

float dotRows(const float *a, const float *b, int64_t k) {
  return numerics::dotF32(Span<const float>(a, static_cast<size_t>(k)),
                          Span<const float>(b, static_cast<size_t>(k)));
}

void dotRowsAll(const float *rows, int64_t n, const float *x, int64_t k,
                float *out) {
  numerics::matVecF32(Span<const float>(rows, static_cast<size_t>(n * k)),
                      Span<const float>(x, static_cast<size_t>(k)),
                      Span<float>(out, static_cast<size_t>(n)),
                      /*accumulate=*/false);
}

Status parseFullyConnectedAttrs(const HostOp &op, FullyConnectedAttrs &out) {
  if (Status s = op.getIntOr("transpose_input", 0, out.transposeInput); !s.ok())
    return s;
  if (Status s = op.getIntOr("transpose_weight", 0, out.transposeWeight);
      !s.ok())
    return s;
  if (Status s = op.getFloatOr("alpha", 1.0, out.alpha); !s.ok())
    return s;
  if (Status s = op.getFloatOr("beta", 1.0, out.beta); !s.ok())
    return s;
  return parseActivation(op, out.activation);
}

Status parseActivation(const HostOp &op, FusedActivation &out) {
  std::string name;
  if (Status s = op.getStringOr("activation", "none", name); !s.ok())
    return s;
  out = FusedActivation();
  if (name == "none")
    out.kind = FusedActivation::None;
  else if (name == "relu")
    out.kind = FusedActivation::Relu;
  else if (name == "clip")
    out.kind = FusedActivation::Clip;
  else if (name == "sigmoid")
    out.kind = FusedActivation::Sigmoid;
  else if (name == "tanh")
    out.kind = FusedActivation::Tanh;
  else if (name == "gelu")
    out.kind = FusedActivation::Gelu;
  else
    return op.error("unknown activation '" + name + "'");
  double lo = -INFINITY, hi = INFINITY;
  if (Status s = op.getFloatOr("activation_min", lo, lo); !s.ok())
    return s;
  if (Status s = op.getFloatOr("activation_max", hi, hi); !s.ok())
    return s;
  out.min = static_cast<float>(lo);
  out.max = static_cast<float>(hi);
  if (out.kind == FusedActivation::Clip && !(out.min <= out.max))
    return op.error("activation_min must not exceed activation_max");
  return Status::success();
}

void applyActivation(const FusedActivation &act, float *data, size_t n) {
  Span<const float> in(data, n);
  Span<float> out(data, n);
  switch (act.kind) {
  case FusedActivation::None:
    return;
  case FusedActivation::Relu:
    numerics::reluF32(in, out);
    return;
  case FusedActivation::Clip:
    numerics::clipF32(in, act.min, act.max, out);
    return;
  case FusedActivation::Sigmoid:
    numerics::sigmoidF32(in, out);
    return;
  case FusedActivation::Tanh:
    numerics::tanhF32(in, out);
    return;
  case FusedActivation::Gelu:
    numerics::geluErfF32(in, out);
    return;
  }
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
