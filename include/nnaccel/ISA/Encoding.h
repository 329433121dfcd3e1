//===- Encoding.h - Binary encoding of soft-NPU programs -------*- C++ -*-===//
//
// Fixed-width 256-bit instruction words and the program file format (a
// 32-byte versioned header followed by the words). Encoding checks every
// field's range; decoding validates everything a hardware front end would
// (opcode, enum ranges, zero reserved bits, exact length) and reports the
// byte offset of the first problem. Neither ever throws or aborts.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_ENCODING_H
#define NNACCEL_ISA_ENCODING_H

#include "nnaccel/ISA/Error.h"
#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Program.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnaccel::isa {

using Word = std::array<uint8_t, WordBytes>;

/// Program file header (all fields little-endian).
struct BinaryHeader {
  static constexpr uint8_t Magic[4] = {'N', 'N', 'P', 'U'};
  static constexpr size_t Size = 32;
  uint16_t versionMajor = IsaVersionMajor;
  uint16_t versionMinor = IsaVersionMinor;
  uint32_t count = 0;
  uint16_t wordBytes = WordBytes;
  uint16_t flags = 0;
  uint16_t card = 0;
  uint16_t core = 0;
};

/// Checks that every field of `inst` is representable and every enum value
/// defined; the message names the field.
Error checkFieldRanges(const Instruction &inst);

/// Encodes one instruction into a 32-byte word.
Expected<Word> encode(const Instruction &inst);

/// Decodes the word at `offset` in `data[0, size)`. Errors say
/// "at byte offset N: ...".
Expected<Instruction> decode(const uint8_t *data, size_t size, size_t offset);
inline Expected<Instruction> decode(const std::vector<uint8_t> &bytes,
                                    size_t offset) {
  return decode(bytes.data(), bytes.size(), offset);
}

/// Serialises a program: header + words.
Expected<std::vector<uint8_t>> encodeProgram(const Program &program);
/// Parses a program file, validating the header and every word.
Expected<Program> decodeProgram(const uint8_t *data, size_t size);
inline Expected<Program> decodeProgram(const std::vector<uint8_t> &bytes) {
  return decodeProgram(bytes.data(), bytes.size());
}

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_ENCODING_H
