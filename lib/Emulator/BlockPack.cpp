//===- BlockPack.cpp - ISA storage of block floating-point rows --------===//
//
// Conversion between the ISA's packed block layouts and the unpacked views
// lib/Numerics works on (see BlockPack.h). The encoders and decoders
// themselves are Numerics' (encodeMsfpBlock with blockSize 16,
// encodeMxBlock); this file only moves bits.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Emulator/BlockPack.h"

#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Mx.h"

namespace nnaccel::emulator {

using isa::DType;
namespace num = nnaccel::numerics;

namespace {
constexpr size_t MsfpBlock = 16, MsfpBlockBytes = 9;
constexpr size_t MxBlock = 32, MxBlockBytes = 33;

num::MsfpType msfpType(DType t) {
  return t == DType::MSFP8 ? num::MsfpType::Msfp8 : num::MsfpType::Msfp9;
}
/// Defined bits of an element code: sign bit m plus m magnitude bits.
uint8_t codeMask(DType t) { return t == DType::MSFP8 ? 0x7 : 0xF; }
} // namespace

void unpackMsfpRow(DType t, const uint8_t *src, size_t n, uint8_t *exps,
                   uint8_t *codes) {
  uint8_t mask = codeMask(t);
  for (size_t b = 0, nb = n / MsfpBlock; b < nb; ++b) {
    const uint8_t *blk = src + b * MsfpBlockBytes;
    exps[b] = blk[0] & 0x1F;
    uint8_t *c = codes + b * MsfpBlock;
    for (size_t j = 0; j < MsfpBlock / 2; ++j) {
      c[2 * j] = blk[1 + j] & mask;
      c[2 * j + 1] = (blk[1 + j] >> 4) & mask;
    }
  }
}

void packMsfpRow(DType t, const uint8_t *exps, const uint8_t *codes, size_t n,
                 uint8_t *dst) {
  uint8_t mask = codeMask(t);
  for (size_t b = 0, nb = n / MsfpBlock; b < nb; ++b) {
    uint8_t *blk = dst + b * MsfpBlockBytes;
    blk[0] = exps[b] & 0x1F;
    const uint8_t *c = codes + b * MsfpBlock;
    for (size_t j = 0; j < MsfpBlock / 2; ++j)
      blk[1 + j] = static_cast<uint8_t>((c[2 * j] & mask) |
                                        ((c[2 * j + 1] & mask) << 4));
  }
}

void unpackMxInt8Row(const uint8_t *src, size_t n, uint8_t *scales,
                     uint8_t *elems) {
  for (size_t b = 0, nb = n / MxBlock; b < nb; ++b) {
    const uint8_t *blk = src + b * MxBlockBytes;
    scales[b] = blk[0];
    for (size_t i = 0; i < MxBlock; ++i)
      elems[b * MxBlock + i] = blk[1 + i];
  }
}

void unpackBlockRow(DType t, const uint8_t *src, size_t n, uint8_t *exps,
                    uint8_t *codes) {
  if (isMx(t))
    unpackMxInt8Row(src, n, exps, codes);
  else
    unpackMsfpRow(t, src, n, exps, codes);
}

void packMxInt8Row(const uint8_t *scales, const uint8_t *elems, size_t n,
                   uint8_t *dst) {
  for (size_t b = 0, nb = n / MxBlock; b < nb; ++b) {
    uint8_t *blk = dst + b * MxBlockBytes;
    blk[0] = scales[b];
    for (size_t i = 0; i < MxBlock; ++i)
      blk[1 + i] = elems[b * MxBlock + i];
  }
}

void encodeBlockRow(DType t, const float *x, size_t n, uint8_t *dst) {
  if (isMx(t)) {
    uint8_t elems[MxBlock];
    for (size_t b = 0, nb = n / MxBlock; b < nb; ++b) {
      uint8_t *blk = dst + b * MxBlockBytes;
      blk[0] =
          num::encodeMxBlock(mxElemType(t), {x + b * MxBlock, MxBlock}, elems);
      for (size_t i = 0; i < MxBlock; ++i)
        blk[1 + i] = elems[i];
    }
    return;
  }
  uint8_t codes[MsfpBlock];
  for (size_t b = 0, nb = n / MsfpBlock; b < nb; ++b) {
    uint8_t e = num::encodeMsfpBlock(msfpType(t),
                                     {x + b * MsfpBlock, MsfpBlock}, codes);
    packMsfpRow(t, &e, codes, MsfpBlock, dst + b * MsfpBlockBytes);
  }
}

void decodeBlockRow(DType t, const uint8_t *src, size_t n, float *out) {
  if (isMx(t)) {
    for (size_t b = 0, nb = n / MxBlock; b < nb; ++b) {
      const uint8_t *blk = src + b * MxBlockBytes;
      num::decodeMxBlock(mxElemType(t), blk[0], {blk + 1, MxBlock},
                         {out + b * MxBlock, MxBlock});
    }
    return;
  }
  uint8_t codes[MsfpBlock], e;
  for (size_t b = 0, nb = n / MsfpBlock; b < nb; ++b) {
    unpackMsfpRow(t, src + b * MsfpBlockBytes, MsfpBlock, &e, codes);
    num::decodeMsfpBlock(msfpType(t), e, {codes, MsfpBlock},
                         {out + b * MsfpBlock, MsfpBlock});
  }
}

} // namespace nnaccel::emulator
