//===- Builders.h - Typed instruction builders ------------------*- C++ -*-===//
//
// One builder class per instruction, generated from Instructions.def, with a
// setter per field that takes the field's own type:
//
//   emitter.emit(isa::build::Mm()
//                    .dst(Space::Acc, acc)
//                    .a(Space::Vrf, x)
//                    .w(Space::Mrf, tile)
//                    .dt(DType::F32).at(DType::F16).wt(DType::F16)
//                    .m(rows).k(64).n(64)
//                    .apitch(128));
//
// Members of an instruction family (Instructions.def) also have the family's
// builder, which takes the opcode: build::VectorBinary(Opcode::VMax) builds
// a v.max with the fields every binary vector op has.
//
// A field the instruction does not have, or a misspelt one, does not
// compile; enumerated fields take their enum (DType, Space, Bcast, ...), F32
// immediates a float (or their raw bits through `<field>Bits`, for integer
// element types), memory operands a space, an address and an optional
// scalar register. Unset fields are 0, as in assembly. A builder converts to
// the Instruction it holds; value ranges are checked where every
// instruction is, by the encoder and the verifier.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_BUILDERS_H
#define NNACCEL_ISA_BUILDERS_H

#include "nnaccel/ISA/Fields.h"
#include "nnaccel/ISA/Instruction.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace nnaccel::isa {

/// A memory operand: space, byte address and the scalar register whose value
/// is added to the address (0: none; s0 is always zero).
struct MemRef {
  Space space = Space::Dram;
  uint64_t addr = 0;
  unsigned reg = 0;
};

namespace build {

/// What every generated builder shares: the instruction under construction
/// and the header flags.
template <typename Derived> class BuilderBase {
public:
  explicit BuilderBase(Opcode op) : inst(op) {}

  /// The instruction built so far.
  const Instruction &get() const { return inst; }
  operator const Instruction &() const { return inst; }

  /// Forwards the result to the next instruction (`@chain`).
  Derived &chained(bool on = true) {
    inst.flags = on ? inst.flags | FlagChain : inst.flags & ~FlagChain;
    return self();
  }

protected:
  Derived &self() { return static_cast<Derived &>(*this); }
  Derived &set(unsigned index, int64_t value) {
    inst.fields[index] = value;
    return self();
  }
  Derived &setMem(unsigned spaceIndex, unsigned addrIndex, unsigned regIndex,
                  Space space, uint64_t addr, unsigned reg) {
    inst.fields[spaceIndex] = static_cast<int64_t>(space);
    inst.fields[addrIndex] = static_cast<int64_t>(addr);
    inst.fields[regIndex] = static_cast<int64_t>(reg);
    return self();
  }
  Derived &setIndirect(unsigned spaceIndex, unsigned regIndex, Space space,
                       unsigned reg) {
    inst.fields[spaceIndex] = static_cast<int64_t>(space);
    inst.fields[regIndex] = static_cast<int64_t>(reg);
    return self();
  }
  /// A type field. mm's `wt` also takes mxfp8e5m2, written as code 15
  /// (mxfp8e4m3) plus wvar = 1 (docs/isa.md §8.6); any other wt clears
  /// wvar. Elsewhere mxfp8e5m2 has no code and stays out of range, for the
  /// encoder and the verifier to reject.
  Derived &setType(unsigned index, std::string_view field, DType type) {
    if (field == "wt" && inst.desc().fieldIndex("wvar")) {
      inst.set("wvar", type == DType::MXFP8E5M2);
      type = storageCode(type);
    }
    inst.fields[index] = static_cast<int64_t>(type);
    return self();
  }
  static int64_t floatBits(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  }

  Instruction inst;
};

#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  class Name : public BuilderBase<Name> {                                      \
    using F = field::Name;                                                     \
    using Self = Name;                                                         \
                                                                               \
  public:                                                                      \
    Name() : BuilderBase(Opcode::Name) {}                                      \
    Fields                                                                     \
  };
#define NNACCEL_FAMILY(Name, Fields)                                           \
  class Name : public BuilderBase<Name> {                                      \
    using F = field::Name;                                                     \
    using Self = Name;                                                         \
                                                                               \
  public:                                                                      \
    explicit Name(Opcode op) : BuilderBase(op) {                               \
      assert(familyOf(op) == Family::Name && "not a " #Name " opcode");        \
    }                                                                          \
    Fields                                                                     \
  };
#define NNACCEL_MEM(n)                                                         \
  Self &n(Space space_, uint64_t addr_, unsigned reg_ = 0) {                   \
    return setMem(F::n##_space, F::n##_addr, F::n##_reg, space_, addr_, reg_); \
  }                                                                            \
  Self &n(const MemRef &ref_) { return n(ref_.space, ref_.addr, ref_.reg); }
#define NNACCEL_MEMR(n)                                                        \
  Self &n(Space space_, unsigned reg_) {                                       \
    return setIndirect(F::n##_space, F::n##_reg, space_, reg_);                \
  }
#define NNACCEL_SREG(n)                                                        \
  Self &n(unsigned reg_) { return set(F::n, static_cast<int64_t>(reg_)); }
#define NNACCEL_DT(n)                                                          \
  Self &n(DType type_) { return setType(F::n, #n, type_); }
#define NNACCEL_PE(n, w, E)                                                    \
  Self &n(E value_) { return set(F::n, static_cast<int64_t>(value_)); }
#define NNACCEL_U(n, w)                                                        \
  Self &n(uint64_t value_) { return set(F::n, static_cast<int64_t>(value_)); }
#define NNACCEL_S(n, w)                                                        \
  Self &n(int64_t value_) { return set(F::n, value_); }
#define NNACCEL_E(n, w, E)                                                     \
  Self &n(E value_) { return set(F::n, static_cast<int64_t>(value_)); }
#define NNACCEL_F32(n)                                                         \
  Self &n(float value_) { return set(F::n, floatBits(value_)); }               \
  /* The raw 32 bits (an integer immediate of an integer-typed op). */         \
  Self &n##Bits(uint32_t bits_) { return set(F::n, int64_t(bits_)); }
#include "nnaccel/ISA/Instructions.def"

} // namespace build
} // namespace nnaccel::isa

#endif // NNACCEL_ISA_BUILDERS_H
