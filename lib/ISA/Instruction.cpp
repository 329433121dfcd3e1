//===- Instruction.cpp - Instruction descriptor tables --------------------===//
//
// Builds the per-opcode descriptor tables from Instructions.def: field lists
// with their bit offsets (packed in order after the 16-bit header), plus the
// opcode-byte and mnemonic lookups. Layout limits are checked at compile time
// so an instruction that does not fit the 256-bit word cannot be added.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Instruction.h"

#include <cassert>
#include <cstring>
#include <vector>

namespace nnaccel::isa {

namespace {

struct RawField {
  const char *name;
  FieldKind kind;
  uint8_t width;
  EnumKind enumKind;
  bool positional;
};

#define NNACCEL_FIELD(N, K, W, E, P)                                           \
  RawField{N, FieldKind::K, W, EnumKind::E, P},
#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  constexpr RawField Raw##Name[] = {                                           \
      Fields RawField{nullptr, FieldKind::UImm, 0, EnumKind::None, false}};
#include "nnaccel/ISA/Instructions.def"

constexpr unsigned rawCount(const RawField *f) {
  unsigned n = 0;
  while (f[n].name)
    ++n;
  return n;
}
constexpr unsigned rawBits(const RawField *f) {
  unsigned bits = HeaderBits;
  for (unsigned i = 0; f[i].name; ++i)
    bits += f[i].width;
  return bits;
}

// Every instruction must fit the word, and no field may exceed 63 bits (the
// encoder packs through uint64_t).
#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  static_assert(rawBits(Raw##Name) <= WordBits,                                \
                "instruction " #Name " does not fit in 256 bits");             \
  static_assert(rawCount(Raw##Name) <= MaxFields,                              \
                "instruction " #Name " has too many fields");
#include "nnaccel/ISA/Instructions.def"

struct Tables {
  std::vector<std::vector<FieldDesc>> fieldStore;
  std::vector<InstrDesc> descs;
  std::array<int, 256> byOpcode;
};

const Tables &tables() {
  static const Tables t = [] {
    Tables t;
    t.byOpcode.fill(-1);
    auto add = [&t](Opcode op, const char *mn, Queue q, const RawField *raw) {
      std::vector<FieldDesc> fields;
      unsigned off = HeaderBits;
      for (unsigned i = 0; raw[i].name; ++i) {
        fields.push_back(FieldDesc{raw[i].name, raw[i].kind, raw[i].width,
                                   raw[i].enumKind, raw[i].positional,
                                   static_cast<uint16_t>(off)});
        off += raw[i].width;
      }
      t.byOpcode[static_cast<uint8_t>(op)] = static_cast<int>(t.descs.size());
      t.fieldStore.push_back(std::move(fields));
      t.descs.push_back(InstrDesc{op, mn, q, nullptr, 0, off});
    };
#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  add(Opcode::Name, Mn, Queue::Q, Raw##Name);
#include "nnaccel/ISA/Instructions.def"
    // Pointers are taken only once the store has stopped growing.
    for (size_t i = 0; i < t.descs.size(); ++i) {
      t.descs[i].fields = t.fieldStore[i].data();
      t.descs[i].numFields = static_cast<unsigned>(t.fieldStore[i].size());
    }
    return t;
  }();
  return t;
}

} // namespace

int64_t FieldDesc::minValue() const {
  if (kind == FieldKind::SImm)
    return -(int64_t(1) << (width - 1));
  return 0;
}

int64_t FieldDesc::maxValue() const {
  if (kind == FieldKind::SImm)
    return (int64_t(1) << (width - 1)) - 1;
  if (kind == FieldKind::Enum || kind == FieldKind::MemSpace) {
    // Enumerations are limited to their defined values, not the field width.
    return static_cast<int64_t>(enumCount(enumKind)) - 1;
  }
  return (int64_t(1) << width) - 1;
}

std::optional<unsigned> InstrDesc::fieldIndex(std::string_view name) const {
  for (unsigned i = 0; i < numFields; ++i)
    if (name == fields[i].name)
      return i;
  return std::nullopt;
}

const InstrDesc &getDesc(Opcode op) {
  const InstrDesc *d = lookupOpcode(static_cast<uint8_t>(op));
  assert(d && "invalid opcode");
  return *d;
}

const InstrDesc *lookupOpcode(uint8_t byte) {
  const Tables &t = tables();
  int i = t.byOpcode[byte];
  return i < 0 ? nullptr : &t.descs[static_cast<size_t>(i)];
}

const InstrDesc *lookupMnemonic(std::string_view mnemonic) {
  for (const InstrDesc &d : tables().descs)
    if (mnemonic == d.mnemonic)
      return &d;
  return nullptr;
}

int64_t Instruction::get(std::string_view name) const {
  auto idx = desc().fieldIndex(name);
  return idx ? fields[*idx] : 0;
}

bool Instruction::set(std::string_view name, int64_t value) {
  auto idx = desc().fieldIndex(name);
  if (!idx)
    return false;
  fields[*idx] = value;
  return true;
}

Instruction &Instruction::with(std::string_view name, int64_t value) {
  [[maybe_unused]] bool ok = set(name, value);
  assert(ok && "no such field");
  return *this;
}

Queue Instruction::queue() const {
  if (opcode == Opcode::Sync)
    return static_cast<Queue>(fields[0] & 3);
  return desc().queue;
}

bool Instruction::operator==(const Instruction &o) const {
  if (opcode != o.opcode || flags != o.flags)
    return false;
  // Only the opcode's own fields are meaningful.
  const InstrDesc *d = lookupOpcode(static_cast<uint8_t>(opcode));
  unsigned n = d ? d->numFields : MaxFields;
  for (unsigned i = 0; i < n; ++i)
    if (fields[i] != o.fields[i])
      return false;
  return true;
}

} // namespace nnaccel::isa
