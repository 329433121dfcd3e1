//===- ArithDispatch.h - One kernel instance per ArithOp --------*- C++ -*-===//
//
// The vector row kernels are templates on the operation (the compiler then
// keeps the loop free of a per-element switch); withArithOp turns the
// runtime operation into that template argument.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_NUMERICS_ARITHDISPATCH_H
#define NNACCEL_LIB_NUMERICS_ARITHDISPATCH_H

#include "nnaccel/Numerics/Simd.h"

#include <type_traits>

namespace nnaccel {
namespace numerics {

/// f(std::integral_constant<ArithOp, op>{}).
template <typename F> void withArithOp(ArithOp op, F &&f) {
  switch (op) {
  case ArithOp::Add:
    return f(std::integral_constant<ArithOp, ArithOp::Add>{});
  case ArithOp::Sub:
    return f(std::integral_constant<ArithOp, ArithOp::Sub>{});
  case ArithOp::Mul:
    return f(std::integral_constant<ArithOp, ArithOp::Mul>{});
  case ArithOp::Max:
    return f(std::integral_constant<ArithOp, ArithOp::Max>{});
  case ArithOp::Min:
    return f(std::integral_constant<ArithOp, ArithOp::Min>{});
  }
}

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_LIB_NUMERICS_ARITHDISPATCH_H
