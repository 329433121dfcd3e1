//===- Encoding.cpp - Binary encoding of soft-NPU programs ----------------===//
//
// Bit-level packing of instruction words and the program container. The word
// is little-endian at bit granularity: bit i of the word is bit (i % 8) of
// byte (i / 8); fields occupy consecutive bits starting at their descriptor's
// offset, least significant bit first. Decoding is total: any byte string
// produces either an Instruction/Program or an Error, which is what the
// fuzz-style unit tests exercise.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Encoding.h"

#include <fmt/format.h>

#include <algorithm>

namespace nnaccel::isa {

namespace {

uint64_t readBits(const uint8_t *w, unsigned off, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    unsigned bit = off + i;
    v |= uint64_t((w[bit / 8] >> (bit % 8)) & 1u) << i;
  }
  return v;
}

void writeBits(uint8_t *w, unsigned off, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width; ++i) {
    unsigned bit = off + i;
    if ((v >> i) & 1u)
      w[bit / 8] = static_cast<uint8_t>(w[bit / 8] | (1u << (bit % 8)));
  }
}

uint64_t readLE(const uint8_t *p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

void writeLE(std::vector<uint8_t> &out, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

} // namespace

uint16_t requiredMinor(const Instruction &inst) {
  switch (inst.opcode) {
  case Opcode::VGeluT:
  case Opcode::VCeq:
  case Opcode::VCne:
  case Opcode::VClt:
  case Opcode::VCle:
  case Opcode::VCgt:
  case Opcode::VCge:
  case Opcode::VSel:
    return 2;
  case Opcode::Mm:
    return inst.get("wvar") ? 1 : 0;
  default:
    return 0;
  }
}

std::string laterMinorFeature(const Instruction &inst) {
  uint16_t minor = requiredMinor(inst);
  if (minor == 0)
    return "";
  if (inst.opcode == Opcode::Mm)
    return "wvar (bit 254)";
  return fmt::format("opcode 0x{:02x} ({})", static_cast<unsigned>(inst.opcode),
                     inst.desc().mnemonic);
}

Error checkFieldRanges(const Instruction &inst) {
  const InstrDesc *d = lookupOpcode(static_cast<uint8_t>(inst.opcode));
  if (!d)
    return Error::make(fmt::format("unknown opcode 0x{:02x}",
                                   static_cast<unsigned>(inst.opcode)));
  if (inst.flags & ~FlagsMask)
    return Error::make(fmt::format("{}: undefined flag bits 0x{:02x}",
                                   d->mnemonic, inst.flags & ~FlagsMask));
  for (unsigned i = 0; i < d->numFields; ++i) {
    const FieldDesc &f = d->fields[i];
    int64_t v = inst.fields[i];
    if (v < f.minValue() || v > f.maxValue()) {
      if (f.kind == FieldKind::Enum || f.kind == FieldKind::MemSpace)
        return Error::make(fmt::format(
            "{}: field '{}' value {} is not a valid {} (0..{})", d->mnemonic,
            f.name, v,
            f.kind == FieldKind::MemSpace ? "memory space" : "enumerator",
            f.maxValue()));
      return Error::make(
          fmt::format("{}: field '{}' value {} out of range [{}, {}] ({} bits)",
                      d->mnemonic, f.name, v, f.minValue(), f.maxValue(),
                      static_cast<unsigned>(f.width)));
    }
  }
  return Error::success();
}

Expected<Word> encode(const Instruction &inst) {
  if (Error e = checkFieldRanges(inst))
    return e;
  const InstrDesc &d = inst.desc();
  Word w{};
  writeBits(w.data(), 0, 8, static_cast<uint8_t>(inst.opcode));
  writeBits(w.data(), 8, 5, inst.flags);
  for (unsigned i = 0; i < d.numFields; ++i) {
    const FieldDesc &f = d.fields[i];
    uint64_t mask = (uint64_t(1) << f.width) - 1;
    writeBits(w.data(), f.offset, f.width,
              static_cast<uint64_t>(inst.fields[i]) & mask);
  }
  return w;
}

Expected<Instruction> decode(const uint8_t *data, size_t size, size_t offset) {
  if (!data || offset > size || size - offset < WordBytes)
    return Error::make(fmt::format(
        "at byte offset {}: truncated instruction: {} bytes available, {} "
        "needed",
        offset, offset > size ? 0 : size - offset, WordBytes));
  const uint8_t *w = data + offset;
  const InstrDesc *d = lookupOpcode(w[0]);
  if (!d)
    return Error::make(fmt::format("at byte offset {}: unknown opcode 0x{:02x}",
                                   offset, w[0]));
  if (uint64_t r = readBits(w, 13, 3))
    return Error::make(fmt::format(
        "at byte offset {}: {}: reserved header bits 13-15 are 0x{:x}, must "
        "be zero",
        offset + 1, d->mnemonic, r));
  Instruction inst(d->opcode);
  inst.flags = static_cast<uint8_t>(readBits(w, 8, 5));
  for (unsigned i = 0; i < d->numFields; ++i) {
    const FieldDesc &f = d->fields[i];
    uint64_t raw = readBits(w, f.offset, f.width);
    int64_t v = static_cast<int64_t>(raw);
    if (f.kind == FieldKind::SImm && (raw >> (f.width - 1)) & 1u)
      v = static_cast<int64_t>(raw | ~((uint64_t(1) << f.width) - 1));
    if (v > f.maxValue())
      return Error::make(fmt::format(
          "at byte offset {}: {}: field '{}' has undefined value {}",
          offset + f.offset / 8, d->mnemonic, f.name, v));
    inst.fields[i] = v;
  }
  // Reserved tail bits, checked bytewise so the offset names the first bad
  // byte.
  for (unsigned bit = d->usedBits; bit < WordBits;) {
    unsigned chunk = std::min(8u - bit % 8, WordBits - bit);
    if (readBits(w, bit, chunk))
      return Error::make(fmt::format(
          "at byte offset {}: {}: reserved bits {}-255 must be zero",
          offset + bit / 8, d->mnemonic, d->usedBits));
    bit += chunk;
  }
  return inst;
}

Expected<std::vector<uint8_t>> encodeProgram(const Program &program) {
  std::vector<uint8_t> out;
  out.reserve(BinaryHeader::Size + program.instructions.size() * WordBytes);
  if (program.instructions.size() > UINT32_MAX)
    return Error::make("program has more than 2^32-1 instructions");
  out.insert(out.end(), BinaryHeader::Magic, BinaryHeader::Magic + 4);
  writeLE(out, IsaVersionMajor, 2);
  writeLE(out, program.versionMinor(), 2);
  writeLE(out, program.instructions.size(), 4);
  writeLE(out, WordBytes, 2);
  writeLE(out, 0, 2); // flags
  writeLE(out, program.card, 2);
  writeLE(out, program.core, 2);
  out.resize(BinaryHeader::Size, 0); // reserved
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    auto w = encode(program.instructions[i]);
    if (!w)
      return Error::make(fmt::format("instruction {}: {}", i, w.message()));
    out.insert(out.end(), w->begin(), w->end());
  }
  return out;
}

Expected<Program> decodeProgram(const uint8_t *data, size_t size) {
  if (!data || size < BinaryHeader::Size)
    return Error::make(
        fmt::format("at byte offset 0: truncated header: {} bytes, need {}",
                    data ? size : 0, BinaryHeader::Size));
  for (unsigned i = 0; i < 4; ++i)
    if (data[i] != BinaryHeader::Magic[i])
      return Error::make(
          fmt::format("at byte offset {}: bad magic, not an NNPU program", i));
  BinaryHeader h;
  h.versionMajor = static_cast<uint16_t>(readLE(data + 4, 2));
  h.versionMinor = static_cast<uint16_t>(readLE(data + 6, 2));
  h.count = static_cast<uint32_t>(readLE(data + 8, 4));
  h.wordBytes = static_cast<uint16_t>(readLE(data + 12, 2));
  h.flags = static_cast<uint16_t>(readLE(data + 14, 2));
  h.card = static_cast<uint16_t>(readLE(data + 16, 2));
  h.core = static_cast<uint16_t>(readLE(data + 18, 2));
  if (h.versionMajor != IsaVersionMajor || h.versionMinor > IsaVersionMinor)
    return Error::make(fmt::format(
        "at byte offset 4: unsupported ISA version {}.{} (this decoder "
        "implements {}.{})",
        h.versionMajor, h.versionMinor, IsaVersionMajor, IsaVersionMinor));
  if (h.wordBytes != WordBytes)
    return Error::make(
        fmt::format("at byte offset 12: word size {} bytes, expected {}",
                    h.wordBytes, WordBytes));
  if (h.flags != 0)
    return Error::make(fmt::format(
        "at byte offset 14: undefined header flags 0x{:04x}", h.flags));
  for (size_t i = 20; i < BinaryHeader::Size; ++i)
    if (data[i] != 0)
      return Error::make(
          fmt::format("at byte offset {}: reserved header byte is nonzero", i));
  uint64_t expected = BinaryHeader::Size + uint64_t(h.count) * WordBytes;
  if (size != expected)
    return Error::make(fmt::format(
        "at byte offset {}: header declares {} instructions ({} bytes) but "
        "the file has {} bytes",
        size < expected ? size - (size - BinaryHeader::Size) % WordBytes
                        : expected,
        h.count, expected, size));
  Program p;
  p.card = h.card;
  p.core = h.core;
  p.isaMinor = h.versionMinor;
  p.instructions.reserve(h.count);
  for (uint32_t i = 0; i < h.count; ++i) {
    auto inst = decode(data, size, BinaryHeader::Size + size_t(i) * WordBytes);
    if (!inst)
      return Error::make(fmt::format("instruction {}: {}", i, inst.message()));
    // A field added in a later minor is a reserved bit of an older one.
    if (requiredMinor(*inst) > h.versionMinor)
      return Error::make(
          fmt::format("instruction {}: at byte offset {}: {}: {} is an ISA "
                      "{}.{} {} but the header says {}.{}",
                      i,
                      BinaryHeader::Size + size_t(i) * WordBytes +
                          (inst->opcode == Opcode::Mm ? 254 / 8 : 0),
                      inst->desc().mnemonic, laterMinorFeature(*inst),
                      IsaVersionMajor, requiredMinor(*inst),
                      inst->opcode == Opcode::Mm ? "field" : "instruction",
                      h.versionMajor, h.versionMinor));
    p.instructions.push_back(*inst);
  }
  return p;
}

} // namespace nnaccel::isa
