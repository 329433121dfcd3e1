//===- AsmParser.cpp - Soft-NPU assembler ---------------------------------===//
//
// Line-oriented parser for the assembly form printed by AsmPrinter.cpp. Each
// line is a directive (.isa, .core), an instruction, a comment (# or ;) or
// blank. Every error carries "line:column" of the offending token so compiler
// tests and humans can find it; the parser never throws.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Asm.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace nnaccel::isa {

namespace {

/// A parse failure at a 1-based column of the current line.
struct LineError {
  size_t column;
  std::string message;
};

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

std::string_view trim(std::string_view s, size_t &lead) {
  lead = 0;
  while (lead < s.size() && std::isspace(static_cast<unsigned char>(s[lead])))
    ++lead;
  s.remove_prefix(lead);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

/// Parses a (possibly negative) decimal or 0x-hex integer filling all of `s`.
std::optional<int64_t> parseInt(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty())
    return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    if (v > (UINT64_MAX - d) / base)
      return std::nullopt;
    v = v * base + d;
  }
  // Magnitudes beyond int64 cannot be valid in any field.
  if (v > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

std::optional<int64_t> parseSReg(std::string_view s) {
  if (s.size() < 2 || s[0] != 's')
    return std::nullopt;
  s.remove_prefix(1);
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
  if (s.size() > 2)
    return std::nullopt;
  int64_t v = std::stoll(std::string(s));
  if (v > 31)
    return std::nullopt;
  return v;
}

/// An operand slot: one positional/keyword unit covering 1-3 fields.
struct Slot {
  std::string name;
  unsigned field; ///< first field index
  unsigned width; ///< number of fields covered
  bool positional;
  bool filled = false;
};

std::vector<Slot> slotsOf(const InstrDesc &d) {
  std::vector<Slot> slots;
  for (unsigned i = 0; i < d.numFields; ++i) {
    const FieldDesc &f = d.fields[i];
    if (f.kind == FieldKind::MemSpace) {
      bool hasAddr =
          i + 1 < d.numFields && d.fields[i + 1].kind == FieldKind::MemAddr;
      std::string name(f.name);
      name = name.substr(0, name.find('.'));
      slots.push_back(Slot{name, i, hasAddr ? 3u : 2u, true});
      i += hasAddr ? 2 : 1;
      continue;
    }
    slots.push_back(Slot{f.name, i, 1, f.positional});
  }
  return slots;
}

class LineParser {
public:
  LineParser(std::string_view line) : line_(line) {}

  /// Parses the instruction occupying the whole (comment-free) line.
  std::optional<Instruction> parseInstruction(LineError &err);

private:
  bool setField(Instruction &inst, const FieldDesc &f, unsigned idx, int64_t v,
                size_t col, LineError &err);
  bool parseValue(Instruction &inst, const Slot &slot, std::string_view text,
                  size_t col, LineError &err);
  bool parseMem(Instruction &inst, const Slot &slot, std::string_view text,
                size_t col, LineError &err);

  std::string_view line_;
};

bool LineParser::setField(Instruction &inst, const FieldDesc &f, unsigned idx,
                          int64_t v, size_t col, LineError &err) {
  if (v < f.minValue() || v > f.maxValue()) {
    err = {col, fmt::format("value {} out of range [{}, {}] for '{}' ({} bits)",
                            v, f.minValue(), f.maxValue(), f.name,
                            static_cast<unsigned>(f.width))};
    return false;
  }
  inst.fields[idx] = v;
  return true;
}

bool LineParser::parseMem(Instruction &inst, const Slot &slot,
                          std::string_view text, size_t col, LineError &err) {
  const InstrDesc &d = inst.desc();
  bool hasAddr = slot.width == 3;
  size_t lb = text.find('[');
  std::string_view spaceName = text.substr(0, lb);
  auto space = enumValue(EnumKind::Space, spaceName);
  if (!space) {
    err = {col, fmt::format("unknown memory space '{}' for operand '{}' "
                            "(expected dram, shared, vrf, mrf, acc or chain)",
                            spaceName, slot.name)};
    return false;
  }
  inst.fields[slot.field] = *space;
  if (lb == std::string_view::npos) {
    if (!hasAddr || *space != static_cast<unsigned>(Space::Chain)) {
      err = {col, fmt::format("operand '{}' needs an address: {}[...]",
                              slot.name, spaceName)};
      return false;
    }
    return true;
  }
  if (text.back() != ']') {
    err = {col + text.size(), "expected ']' to close the memory operand"};
    return false;
  }
  std::string_view inner = text.substr(lb + 1, text.size() - lb - 2);
  size_t innerCol = col + lb + 1;
  bool haveAddr = false, haveReg = false;
  while (true) {
    size_t plus = inner.find('+', 1);
    size_t lead;
    std::string_view term = trim(inner.substr(0, plus), lead);
    size_t termCol = innerCol + lead;
    if (term.empty()) {
      err = {termCol, "empty term in memory operand"};
      return false;
    }
    if (auto r = parseSReg(term)) {
      if (haveReg) {
        err = {termCol, "memory operand has two offset registers"};
        return false;
      }
      haveReg = true;
      unsigned regField = slot.field + (hasAddr ? 2 : 1);
      inst.fields[regField] = *r;
    } else if (auto v = parseInt(term)) {
      if (!hasAddr) {
        err = {termCol, fmt::format("operand '{}' is register-indirect: "
                                    "write {}[sN]",
                                    slot.name, spaceName)};
        return false;
      }
      if (haveAddr) {
        err = {termCol, "memory operand has two address immediates"};
        return false;
      }
      haveAddr = true;
      if (!setField(inst, d.fields[slot.field + 1], slot.field + 1, *v, termCol,
                    err))
        return false;
    } else {
      err = {termCol, fmt::format("expected an address or scalar register, "
                                  "got '{}'",
                                  term)};
      return false;
    }
    if (plus == std::string_view::npos)
      break;
    innerCol += plus + 1;
    inner.remove_prefix(plus + 1);
  }
  if (!hasAddr && !haveReg) {
    err = {col, fmt::format("operand '{}' needs a register: {}[sN]", slot.name,
                            spaceName)};
    return false;
  }
  return true;
}

bool LineParser::parseValue(Instruction &inst, const Slot &slot,
                            std::string_view text, size_t col, LineError &err) {
  const FieldDesc &f = inst.desc().fields[slot.field];
  if (text.empty()) {
    err = {col, fmt::format("missing value for '{}'", slot.name)};
    return false;
  }
  switch (f.kind) {
  case FieldKind::MemSpace:
    return parseMem(inst, slot, text, col, err);
  case FieldKind::SReg: {
    auto r = parseSReg(text);
    if (!r) {
      err = {col, fmt::format("expected a scalar register s0..s31 for '{}', "
                              "got '{}'",
                              slot.name, text)};
      return false;
    }
    inst.fields[slot.field] = *r;
    return true;
  }
  case FieldKind::Enum: {
    // mm's wt also names mxfp8e5m2: code 15 (mxfp8e4m3) plus wvar = 1.
    if (f.enumKind == EnumKind::DType && std::string_view(f.name) == "wt" &&
        text == dtypeName(DType::MXFP8E5M2) && inst.set("wvar", 1)) {
      inst.fields[slot.field] = static_cast<int64_t>(DType::MXFP8E4M3);
      return true;
    }
    auto v = enumValue(f.enumKind, text);
    if (!v) {
      std::string options;
      for (unsigned i = 0; i < enumCount(f.enumKind); ++i)
        options += (i ? ", " : "") + std::string(enumName(f.enumKind, i));
      err = {col, fmt::format("unknown value '{}' for '{}' (expected one of: "
                              "{})",
                              text, slot.name, options)};
      return false;
    }
    inst.fields[slot.field] = *v;
    return true;
  }
  case FieldKind::F32Imm: {
    if (text.size() > 2 &&
        (text.substr(0, 2) == "0x" || text.substr(0, 2) == "0X")) {
      auto v = parseInt(text);
      if (!v || *v > 0xFFFFFFFFll) {
        err = {col, fmt::format("'{}' is not a 32-bit pattern", text)};
        return false;
      }
      inst.fields[slot.field] = *v;
      return true;
    }
    std::string s(text);
    char *end = nullptr;
    errno = 0;
    float fv = std::strtof(s.c_str(), &end);
    // Underflow to a subnormal or zero is fine (the value is exact after
    // rounding); overflow to infinity from a finite literal is not.
    bool overflow = errno == ERANGE && std::isinf(fv);
    if (end != s.c_str() + s.size() || overflow) {
      err = {col, fmt::format("'{}' is not a binary32 value for '{}'", text,
                              slot.name)};
      return false;
    }
    uint32_t bits;
    std::memcpy(&bits, &fv, sizeof bits);
    inst.fields[slot.field] = bits;
    return true;
  }
  case FieldKind::UImm:
  case FieldKind::SImm:
  case FieldKind::MemAddr:
  case FieldKind::MemReg: {
    auto v = parseInt(text);
    if (!v) {
      err = {col, fmt::format("expected an integer for '{}', got '{}'",
                              slot.name, text)};
      return false;
    }
    return setField(inst, f, slot.field, *v, col, err);
  }
  }
  return false;
}

std::optional<Instruction> LineParser::parseInstruction(LineError &err) {
  size_t pos = 0;
  while (pos < line_.size() && isIdentChar(line_[pos]))
    ++pos;
  std::string_view mnemonic = line_.substr(0, pos);
  const InstrDesc *d = lookupMnemonic(mnemonic);
  if (!d) {
    err = {1, fmt::format("unknown instruction '{}'", mnemonic)};
    return std::nullopt;
  }
  Instruction inst(d->opcode);
  std::vector<Slot> slots = slotsOf(*d);
  size_t nextPositional = 0;

  // Operand list: comma-separated up to the first '@'.
  size_t flagsAt = line_.find('@', pos);
  std::string_view ops = line_.substr(pos, flagsAt == std::string_view::npos
                                               ? std::string_view::npos
                                               : flagsAt - pos);
  size_t opsCol = pos + 1;
  if (!ops.empty() && !std::isspace(static_cast<unsigned char>(ops[0]))) {
    err = {opsCol, fmt::format("expected a space after '{}'", mnemonic)};
    return std::nullopt;
  }
  size_t lead;
  if (!trim(ops, lead).empty()) {
    size_t start = 0;
    while (true) {
      size_t comma = ops.find(',', start);
      std::string_view raw = ops.substr(start, comma == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : comma - start);
      std::string_view op = trim(raw, lead);
      size_t col = opsCol + start + lead;
      if (op.empty()) {
        err = {col, "empty operand"};
        return std::nullopt;
      }
      size_t eq = op.find('=');
      Slot *slot = nullptr;
      std::string_view value = op;
      size_t valueCol = col;
      if (eq != std::string_view::npos) {
        std::string_view key = trim(op.substr(0, eq), lead);
        for (Slot &s : slots)
          if (s.name == key)
            slot = &s;
        if (!slot) {
          err = {col,
                 fmt::format("'{}' has no operand named '{}'", mnemonic, key)};
          return std::nullopt;
        }
        value = trim(op.substr(eq + 1), lead);
        valueCol = col + eq + 1 + lead;
      } else {
        while (
            nextPositional < slots.size() &&
            (!slots[nextPositional].positional || slots[nextPositional].filled))
          ++nextPositional;
        if (nextPositional == slots.size()) {
          err = {col, fmt::format("too many positional operands for '{}'",
                                  mnemonic)};
          return std::nullopt;
        }
        slot = &slots[nextPositional];
      }
      if (slot->filled) {
        err = {col, fmt::format("operand '{}' given twice", slot->name)};
        return std::nullopt;
      }
      slot->filled = true;
      if (!parseValue(inst, *slot, value, valueCol, err))
        return std::nullopt;
      if (comma == std::string_view::npos)
        break;
      start = comma + 1;
    }
  }
  for (const Slot &s : slots)
    if (s.positional && !s.filled) {
      err = {flagsAt == std::string_view::npos ? line_.size() + 1 : flagsAt + 1,
             fmt::format("missing operand '{}' of '{}'", s.name, mnemonic)};
      return std::nullopt;
    }

  // Flags: whitespace-separated @names.
  while (flagsAt != std::string_view::npos && flagsAt < line_.size()) {
    size_t end = flagsAt + 1;
    while (end < line_.size() && isIdentChar(line_[end]))
      ++end;
    std::string_view name = line_.substr(flagsAt + 1, end - flagsAt - 1);
    uint8_t bit = name == "pop_prev"    ? FlagPopPrev
                  : name == "pop_next"  ? FlagPopNext
                  : name == "push_prev" ? FlagPushPrev
                  : name == "push_next" ? FlagPushNext
                  : name == "chain"     ? FlagChain
                                        : 0;
    if (!bit) {
      err = {flagsAt + 1, fmt::format("unknown flag '@{}' (expected "
                                      "@pop_prev, @pop_next, @push_prev, "
                                      "@push_next or @chain)",
                                      name)};
      return std::nullopt;
    }
    if (inst.flags & bit) {
      err = {flagsAt + 1, fmt::format("flag '@{}' given twice", name)};
      return std::nullopt;
    }
    inst.flags |= bit;
    while (end < line_.size() &&
           std::isspace(static_cast<unsigned char>(line_[end])))
      ++end;
    if (end < line_.size() && line_[end] != '@') {
      err = {end + 1, "expected '@flag' after the operands"};
      return std::nullopt;
    }
    flagsAt = end;
  }
  return inst;
}

/// Removes a trailing comment (# or ;).
std::string_view stripComment(std::string_view line) {
  size_t c = line.find_first_of("#;");
  return c == std::string_view::npos ? line : line.substr(0, c);
}

/// Parses "key=N, key=N" directive arguments.
bool parseCoreDirective(std::string_view args, size_t col, Program &p,
                        LineError &err) {
  bool seenCard = false, seenCore = false;
  size_t start = 0;
  while (start <= args.size()) {
    size_t comma = args.find(',', start);
    size_t lead;
    std::string_view item =
        trim(args.substr(start, comma == std::string_view::npos
                                    ? std::string_view::npos
                                    : comma - start),
             lead);
    size_t itemCol = col + start + lead;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      err = {itemCol, "expected 'card=N' or 'core=N'"};
      return false;
    }
    size_t l2;
    std::string_view key = trim(item.substr(0, eq), l2);
    auto v = parseInt(trim(item.substr(eq + 1), l2));
    if (!v || *v < 0 || *v > 0xFFFF) {
      err = {itemCol + eq + 1, "expected an integer in [0, 65535]"};
      return false;
    }
    if (key == "card" && !seenCard) {
      p.card = static_cast<uint16_t>(*v);
      seenCard = true;
    } else if (key == "core" && !seenCore) {
      p.core = static_cast<uint16_t>(*v);
      seenCore = true;
    } else {
      err = {itemCol, fmt::format("unexpected or repeated key '{}'", key)};
      return false;
    }
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return true;
}

} // namespace

Expected<Instruction> parseInstruction(std::string_view text) {
  size_t lead;
  std::string_view line = trim(stripComment(text), lead);
  LineError err{1, ""};
  if (line.find('\n') != std::string_view::npos)
    return Error::make("1:1: expected a single line");
  LineParser p(line);
  if (auto inst = p.parseInstruction(err))
    return *inst;
  return Error::make(fmt::format("1:{}: {}", err.column + lead, err.message));
}

Expected<Program> parseAsm(std::string_view text) {
  Program program;
  size_t lineNo = 0;
  size_t pos = 0;
  bool seenIsa = false, seenCore = false;
  // Without a '.isa' line the text is read as this assembler's version.
  int64_t declaredMinor = IsaVersionMinor;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw = text.substr(
        pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    ++lineNo;
    size_t lead;
    std::string_view line = trim(stripComment(raw), lead);
    LineError err{1, ""};
    bool ok = true;
    if (line.empty()) {
      // Blank or comment-only line.
    } else if (line[0] == '.') {
      size_t end = 0;
      while (end < line.size() &&
             !std::isspace(static_cast<unsigned char>(line[end])))
        ++end;
      std::string_view dir = line.substr(0, end);
      size_t l2;
      std::string_view args = trim(line.substr(end), l2);
      size_t argsCol = end + l2 + 1;
      if (dir == ".isa") {
        // Plain integers rather than optionals: GCC 12 at -O3 reports a
        // false maybe-uninitialized through std::optional here.
        size_t dot = args.find('.');
        int64_t major = -1, minor = -1;
        if (dot != std::string_view::npos) {
          major = parseInt(args.substr(0, dot)).value_or(-1);
          minor = parseInt(args.substr(dot + 1)).value_or(-1);
        }
        if (seenIsa || !program.instructions.empty()) {
          err = {1, "'.isa' must appear once, before any instruction"};
          ok = false;
        } else if (major < 0 || minor < 0) {
          err = {argsCol, "expected '.isa MAJOR.MINOR'"};
          ok = false;
        } else if (major != IsaVersionMajor || minor > IsaVersionMinor) {
          err = {argsCol,
                 fmt::format("unsupported ISA version {}.{} (this "
                             "assembler implements {}.{})",
                             major, minor, IsaVersionMajor, IsaVersionMinor)};
          ok = false;
        }
        seenIsa = true;
        declaredMinor = minor;
        if (ok)
          program.isaMinor = static_cast<uint16_t>(minor);
      } else if (dir == ".core") {
        if (seenCore) {
          err = {1, "'.core' given twice"};
          ok = false;
        } else {
          ok = parseCoreDirective(args, argsCol, program, err);
        }
        seenCore = true;
      } else {
        err = {1, fmt::format("unknown directive '{}'", dir)};
        ok = false;
      }
    } else {
      LineParser p(line);
      if (auto inst = p.parseInstruction(err)) {
        // As in the binary header: a '.isa 1.0' program cannot use a 1.1
        // field.
        if (requiredMinor(*inst) > declaredMinor) {
          err = {1,
                 fmt::format("{}: {} needs '.isa {}.{}' "
                             "or later (declared {}.{})",
                             inst->desc().mnemonic,
                             inst->opcode == Opcode::Mm ? "wt=mxfp8e5m2 / wvar"
                                                        : "the opcode",
                             IsaVersionMajor, requiredMinor(*inst),
                             IsaVersionMajor, declaredMinor)};
          ok = false;
        } else {
          program.instructions.push_back(*inst);
        }
      } else {
        ok = false;
      }
    }
    if (!ok)
      return Error::make(
          fmt::format("{}:{}: {}", lineNo, err.column + lead, err.message));
    if (nl == std::string_view::npos)
      break;
    pos = nl + 1;
  }
  return program;
}

} // namespace nnaccel::isa
