//===- Instruction.h - Opcodes, field descriptors, instructions -*- C++ -*-===//
//
// The in-memory form of one soft-NPU instruction and the static tables that
// describe every opcode, both generated from Instructions.def. Tools that need
// to know an instruction's shape (encoder, assembler, verifier, the MLIR `npu`
// dialect) query these descriptors instead of hard-coding layouts.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_INSTRUCTION_H
#define NNACCEL_ISA_INSTRUCTION_H

#include "nnaccel/ISA/Types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nnaccel::isa {

/// Opcodes, valued by their 8-bit encoding.
enum class Opcode : uint8_t {
#define NNACCEL_INST(Name, Op, Mn, Q, Fields) Name = Op,
#include "nnaccel/ISA/Instructions.def"
};

/// All opcodes in table order.
inline constexpr Opcode AllOpcodes[] = {
#define NNACCEL_INST(Name, Op, Mn, Q, Fields) Opcode::Name,
#include "nnaccel/ISA/Instructions.def"
};
inline constexpr unsigned NumOpcodes = sizeof(AllOpcodes) / sizeof(Opcode);

/// How a field's value is interpreted.
enum class FieldKind : uint8_t {
  SReg,     ///< scalar register number s0..s31
  MemSpace, ///< memory space of an operand (first field of a memory operand)
  MemAddr,  ///< byte address immediate of a memory operand
  MemReg,   ///< scalar register added to a memory operand's address
  UImm,     ///< unsigned immediate
  SImm,     ///< two's-complement immediate
  F32Imm,   ///< IEEE binary32 bits
  Enum,     ///< enumerator of FieldDesc::enumKind
};

/// Static description of one field of an instruction word.
struct FieldDesc {
  const char *name; ///< e.g. "src.addr", "rows"
  FieldKind kind;
  uint8_t width;     ///< bits in the encoding
  EnumKind enumKind; ///< for Enum / MemSpace fields
  bool positional;   ///< written positionally in assembly (else key=value)
  uint16_t offset;   ///< first bit in the 256-bit word

  /// Smallest and largest encodable value (sign-aware).
  int64_t minValue() const;
  int64_t maxValue() const;
};

/// Header flag bits (word bits 8-12). Bits 13-15 are reserved and zero.
enum InstFlags : uint8_t {
  FlagPopPrev = 1u << 0,  ///< wait for a token from the previous queue
  FlagPopNext = 1u << 1,  ///< wait for a token from the next queue
  FlagPushPrev = 1u << 2, ///< signal the previous queue when done
  FlagPushNext = 1u << 3, ///< signal the next queue when done
  FlagChain = 1u << 4,    ///< forward the result to the next instruction
  FlagsMask = 0x1F,
};

inline constexpr unsigned WordBits = 256;
inline constexpr unsigned WordBytes = WordBits / 8;
inline constexpr unsigned HeaderBits = 16;
inline constexpr unsigned MaxFields = 40;

/// Static description of an opcode.
struct InstrDesc {
  Opcode opcode;
  const char *mnemonic;
  Queue queue; ///< Ctl for `sync` (its queue is a field)
  const FieldDesc *fields;
  unsigned numFields;
  unsigned usedBits; ///< header + fields; the rest of the word is reserved

  /// Index of the field called `name`, if any.
  std::optional<unsigned> fieldIndex(std::string_view name) const;
};

/// Descriptor of a valid opcode.
const InstrDesc &getDesc(Opcode op);
/// Descriptor for a raw opcode byte, or null if the byte is not an opcode.
const InstrDesc *lookupOpcode(uint8_t byte);
/// Descriptor by assembly mnemonic, or null.
const InstrDesc *lookupMnemonic(std::string_view mnemonic);

/// One instruction: opcode, header flags and field values in descriptor order
/// (signed fields hold their sign-extended value, F32Imm the raw bits).
struct Instruction {
  Opcode opcode = Opcode::Nop;
  uint8_t flags = 0;
  std::array<int64_t, MaxFields> fields{};

  Instruction() = default;
  explicit Instruction(Opcode op) : opcode(op) {}

  const InstrDesc &desc() const { return getDesc(opcode); }
  /// Value of the named field (0 if the opcode has no such field; use
  /// desc().fieldIndex() to distinguish).
  int64_t get(std::string_view name) const;
  /// Set the named field; returns false if there is no such field.
  bool set(std::string_view name, int64_t value);
  /// Builder-style set; asserts the field exists.
  Instruction &with(std::string_view name, int64_t value);
  Instruction &withFlags(uint8_t f) {
    flags = f;
    return *this;
  }

  /// The queue the instruction executes on (resolves `sync`'s field).
  Queue queue() const;

  bool operator==(const Instruction &o) const;
  bool operator!=(const Instruction &o) const { return !(*this == o); }
};

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_INSTRUCTION_H
