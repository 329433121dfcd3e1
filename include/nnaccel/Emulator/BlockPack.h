//===- BlockPack.h - ISA storage of block floating-point rows --*- C++ -*-===//
//
// The ISA stores block formats densely (docs/isa.md, "Element types"):
// ms-fp8/ms-fp9 as 9-byte blocks of 16 (exponent byte + 16 sign-magnitude
// nibbles, element 2j in the low nibble of byte 1+j) and the OCP MX types
// (mxint8, mxfp8e4m3) as 33-byte blocks of 32 (E8M0 scale byte + 32 int8 or
// fp8 E4M3 element codes). lib/Numerics works on an
// unpacked view instead (one code per byte, exponents in a separate array).
// These helpers convert between the two so the emulator -- and the runtime
// when it prepares weights -- can call the Numerics kernels on device data.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_EMULATOR_BLOCKPACK_H
#define NNACCEL_EMULATOR_BLOCKPACK_H

#include "nnaccel/ISA/Types.h"
#include "nnaccel/Numerics/Mx.h"

#include <cstddef>
#include <cstdint>

namespace nnaccel::emulator {

/// True for the OCP MX block types (mxint8, mxfp8e4m3, mxfp8e5m2): 33-byte
/// blocks of 32 with an E8M0 scale.
inline bool isMx(isa::DType t) {
  return t == isa::DType::MXINT8 || t == isa::DType::MXFP8E4M3 ||
         t == isa::DType::MXFP8E5M2;
}
/// The Numerics element type of an MX block type.
inline numerics::MxElemType mxElemType(isa::DType t) {
  switch (t) {
  case isa::DType::MXFP8E4M3:
    return numerics::MxElemType::Fp8E4M3;
  case isa::DType::MXFP8E5M2:
    return numerics::MxElemType::Fp8E5M2;
  default:
    return numerics::MxElemType::Int8;
  }
}

/// Unpacks a row of `n` msfp8/msfp9 elements (n a multiple of 16) from ISA
/// storage into n / 16 exponent fields and n one-per-byte codes. Reserved
/// bits (exponent bits 7..5, ms-fp8 nibble bit 3) are ignored.
void unpackMsfpRow(isa::DType t, const uint8_t *src, size_t n, uint8_t *exps,
                   uint8_t *codes);
/// Inverse of unpackMsfpRow; writes rowBytes(t, n) bytes.
void packMsfpRow(isa::DType t, const uint8_t *exps, const uint8_t *codes,
                 size_t n, uint8_t *dst);
/// Unpacks a row of `n` mxint8 elements (n a multiple of 32) into n / 32
/// E8M0 scales and n int8 element bytes. The layout is the same for every MX
/// type, so this also unpacks mxfp8e4m3 rows (fp8 element codes).
void unpackMxInt8Row(const uint8_t *src, size_t n, uint8_t *scales,
                     uint8_t *elems);
/// Inverse of unpackMxInt8Row; writes rowBytes(MXINT8, n) bytes.
void packMxInt8Row(const uint8_t *scales, const uint8_t *elems, size_t n,
                   uint8_t *dst);

/// Unpacks a row of `n` elements of any block type `t`: the shared
/// exponents (msfp) or E8M0 scales (MX), one per block, into `exps`, and the
/// element codes, one per byte, into `codes`.
void unpackBlockRow(isa::DType t, const uint8_t *src, size_t n, uint8_t *exps,
                    uint8_t *codes);

/// Encodes `n` f32 values into ISA storage of block type `t` with the
/// Numerics block encoders (encodeMsfpBlock with blockSize 16, encodeMxBlock).
void encodeBlockRow(isa::DType t, const float *x, size_t n, uint8_t *dst);
/// Decodes ISA storage of block type `t` to f32 (exact).
void decodeBlockRow(isa::DType t, const uint8_t *src, size_t n, float *out);

} // namespace nnaccel::emulator

#endif // NNACCEL_EMULATOR_BLOCKPACK_H
