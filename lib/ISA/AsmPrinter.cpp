//===- AsmPrinter.cpp - Soft-NPU disassembler -----------------------------===//
//
// Prints instructions in the canonical assembly form. Canonical means the
// parser maps the text back to exactly the same field values, for every
// encodable instruction -- including ones the verifier would reject -- so the
// disassembler can always show what a binary contains.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Asm.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace nnaccel::isa {

namespace {

std::string formatF32(int64_t bits) {
  uint32_t u = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &u, sizeof f);
  // Non-finite values are printed as raw bits so that NaN payloads survive.
  if (!std::isfinite(f))
    return fmt::format("0x{:08x}", u);
  return fmt::format("{}", f);
}

std::string formatMem(const Instruction &inst, const FieldDesc *f,
                      bool hasAddr) {
  auto space = static_cast<unsigned>(inst.fields[f - inst.desc().fields]);
  unsigned base = static_cast<unsigned>(f - inst.desc().fields);
  std::string name(enumName(EnumKind::Space, space));
  if (!hasAddr)
    return fmt::format("{}[s{}]", name, inst.fields[base + 1]);
  int64_t addr = inst.fields[base + 1];
  int64_t reg = inst.fields[base + 2];
  if (space == static_cast<unsigned>(Space::Chain) && addr == 0 && reg == 0)
    return name;
  if (reg == 0)
    return fmt::format("{}[0x{:x}]", name, addr);
  if (addr == 0)
    return fmt::format("{}[s{}]", name, reg);
  return fmt::format("{}[0x{:x}+s{}]", name, addr, reg);
}

} // namespace

std::string printInstruction(const Instruction &inst) {
  const InstrDesc &d = inst.desc();
  std::string out = d.mnemonic;
  std::vector<std::string> ops;
  // mm's E5M2 weights are printed as the type they are, wt=mxfp8e5m2, not as
  // mxfp8e4m3 + wvar=1; wvar with another code (invalid, but encodable)
  // stays a keyword so the text still parses back to the same fields.
  const bool e5m2 = inst.opcode == Opcode::Mm &&
                    mmWeightType(static_cast<DType>(inst.get("wt")),
                                 inst.get("wvar")) == DType::MXFP8E5M2;
  for (unsigned i = 0; i < d.numFields; ++i) {
    const FieldDesc &f = d.fields[i];
    int64_t v = inst.fields[i];
    if (e5m2 && std::string_view(f.name) == "wt") {
      ops.push_back(std::string(dtypeName(DType::MXFP8E5M2)));
      continue;
    }
    if (e5m2 && std::string_view(f.name) == "wvar")
      continue;
    switch (f.kind) {
    case FieldKind::MemSpace: {
      bool hasAddr =
          i + 1 < d.numFields && d.fields[i + 1].kind == FieldKind::MemAddr;
      ops.push_back(formatMem(inst, &f, hasAddr));
      i += hasAddr ? 2 : 1;
      continue;
    }
    case FieldKind::SReg:
      ops.push_back(fmt::format("s{}", v));
      continue;
    case FieldKind::Enum:
      if (f.positional) {
        ops.push_back(
            std::string(enumName(f.enumKind, static_cast<unsigned>(v))));
        continue;
      }
      if (v != 0)
        ops.push_back(fmt::format(
            "{}={}", f.name, enumName(f.enumKind, static_cast<unsigned>(v))));
      continue;
    case FieldKind::F32Imm:
      if (v != 0)
        ops.push_back(fmt::format("{}={}", f.name, formatF32(v)));
      continue;
    case FieldKind::UImm:
    case FieldKind::SImm:
      if (v != 0)
        ops.push_back(fmt::format("{}={}", f.name, v));
      continue;
    case FieldKind::MemAddr:
    case FieldKind::MemReg:
      // Always consumed by the preceding MemSpace field.
      continue;
    }
  }
  for (size_t i = 0; i < ops.size(); ++i)
    out += (i == 0 ? " " : ", ") + ops[i];
  static constexpr std::pair<uint8_t, const char *> FlagNames[] = {
      {FlagPopPrev, "@pop_prev"},
      {FlagPopNext, "@pop_next"},
      {FlagPushPrev, "@push_prev"},
      {FlagPushNext, "@push_next"},
      {FlagChain, "@chain"}};
  for (auto [bit, name] : FlagNames)
    if (inst.flags & bit)
      out += fmt::format(" {}", name);
  return out;
}

std::string printAsm(const Program &program) {
  std::string out =
      fmt::format(".isa {}.{}\n.core card={}, core={}\n", IsaVersionMajor,
                  program.versionMinor(), program.card, program.core);
  for (const Instruction &inst : program.instructions) {
    out += printInstruction(inst);
    out += '\n';
  }
  return out;
}

} // namespace nnaccel::isa
