//===- X86Intrinsics.h - The x86 SIMD intrinsics of the kernels -*- C++ -*-===//
//
// Included by the Numerics sources with vector paths. Defines
// NNACCEL_X86_SIMD where the x86 intrinsics are available (GCC or Clang on
// x86-64); each vector function is compiled for its instruction set with a
// target attribute and called only when the CPU has it, so the library
// itself stays baseline x86-64.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_NUMERICS_X86INTRINSICS_H
#define NNACCEL_LIB_NUMERICS_X86INTRINSICS_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NNACCEL_X86_SIMD 1
// GCC 12's AVX-512 intrinsics pass an undefined vector as the unused merge
// operand (_mm512_undefined_*), which the uninitialized-use warnings report
// at every use once they are inlined; no kernel reads such a value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#endif

#endif // NNACCEL_LIB_NUMERICS_X86INTRINSICS_H
