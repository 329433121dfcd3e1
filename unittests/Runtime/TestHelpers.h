//===- TestHelpers.h - Helpers for the runtime unit tests -------*- C++ -*-===//
//
// Tensor construction from literals, op construction, and running an op
// while asserting success or capturing the failure message.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_UNITTESTS_RUNTIME_TESTHELPERS_H
#define NNACCEL_UNITTESTS_RUNTIME_TESTHELPERS_H

#include "nnaccel/Runtime/HostKernels.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

namespace nnaccel {
namespace runtime {
namespace test {

template <typename T>
inline Tensor make(DType dtype, std::vector<int64_t> shape,
                   const std::vector<T> &values) {
  Tensor t = Tensor::allocate(TensorDesc(dtype, std::move(shape)));
  REQUIRE(!t.isNull());
  REQUIRE(values.size() == static_cast<size_t>(t.getNumElements()));
  if (!values.empty())
    std::memcpy(t.mutableData(), values.data(), values.size() * sizeof(T));
  return t;
}
inline Tensor f32(std::vector<int64_t> shape, const std::vector<float> &v) {
  return make(DType::F32, std::move(shape), v);
}
inline Tensor i64(std::vector<int64_t> shape, const std::vector<int64_t> &v) {
  return make(DType::I64, std::move(shape), v);
}
inline Tensor i32(std::vector<int64_t> shape, const std::vector<int32_t> &v) {
  return make(DType::I32, std::move(shape), v);
}

inline HostOp makeOp(std::string kind,
                     std::map<std::string, AttrValue, std::less<>> attrs = {}) {
  HostOp op;
  op.kind = std::move(kind);
  op.attrs = std::move(attrs);
  return op;
}

/// Runs an op that must succeed and returns its results.
inline std::vector<Tensor> run(const HostOp &op,
                               std::vector<const Tensor *> inputs,
                               std::vector<TensorDesc> descs) {
  std::vector<Tensor> outs;
  Status s = runHostOp(op, Span<const Tensor *const>(inputs), outs, descs);
  INFO(s.message());
  REQUIRE(s.ok());
  REQUIRE(outs.size() == descs.size());
  return outs;
}

/// Runs an op that must fail and returns the message.
inline std::string runError(const HostOp &op,
                            std::vector<const Tensor *> inputs,
                            std::vector<TensorDesc> descs) {
  std::vector<Tensor> outs;
  Status s = runHostOp(op, Span<const Tensor *const>(inputs), outs, descs);
  REQUIRE(!s.ok());
  CHECK(outs.empty());
  return s.message();
}

template <typename T> std::vector<T> values(const Tensor &t) {
  const T *p = t.as<T>();
  return std::vector<T>(p, p + t.getNumElements());
}

inline void checkClose(const std::vector<float> &got,
                       const std::vector<double> &want, double tol = 1e-5) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= tol * (1.0 + std::abs(want[i])));
  }
}

} // namespace test
} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_UNITTESTS_RUNTIME_TESTHELPERS_H
