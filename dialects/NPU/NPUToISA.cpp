//===- NPUToISA.cpp - Conversions between npu IR and lib/ISA --------------===//
//
// Walks an instruction's field descriptors (Instruction.h) and reads or
// writes the op attribute of the same name: memory operands are the
// `#npu.mem` attribute named after the operand ("dst" for dst.space,
// dst.addr and dst.reg), every other field the attribute named after the
// field. Keyword fields equal to 0 are left unset (they default to 0), so an
// imported op prints exactly like a hand-written one.
//
//===----------------------------------------------------------------------===//

#include "NPU/NPUToISA.h"

#include "nnaccel/ISA/Instruction.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nnaccel::npu;

namespace isa = ::nnaccel::isa;

namespace {
/// Header flag bits and the unit attributes that stand for them.
constexpr std::pair<uint8_t, llvm::StringLiteral> FlagAttrs[] = {
    {isa::FlagPopPrev, "pop_prev"},   {isa::FlagPopNext, "pop_next"},
    {isa::FlagPushPrev, "push_prev"}, {isa::FlagPushNext, "push_next"},
    {isa::FlagChain, "chain"},
};
} // namespace

/// Operand name of a memory field ("dst" for "dst.space").
static StringRef operandName(const isa::FieldDesc &field) {
  return StringRef(field.name).split('.').first;
}

static const isa::InstrDesc *descOf(Operation *op) {
  if (!isInstructionOp(op))
    return nullptr;
  StringRef mnemonic = op->getName().stripDialect();
  return isa::lookupMnemonic(
      std::string_view(mnemonic.data(), mnemonic.size()));
}

/// Value of an enum attribute of the kind `kind`, or nullopt on mismatch.
static std::optional<int64_t> enumValue(Attribute attr, isa::EnumKind kind) {
  auto value = [](auto e) { return static_cast<int64_t>(e.getValue()); };
  switch (kind) {
  case isa::EnumKind::DType:
    if (auto e = dyn_cast<DTypeAttr>(attr))
      return value(e);
    break;
  case isa::EnumKind::Queue:
    if (auto e = dyn_cast<QueueAttr>(attr))
      return value(e);
    break;
  case isa::EnumKind::Bcast:
    if (auto e = dyn_cast<BcastAttr>(attr))
      return value(e);
    break;
  case isa::EnumKind::EmbFmt:
    if (auto e = dyn_cast<EmbFmtAttr>(attr))
      return value(e);
    break;
  case isa::EnumKind::Pool:
    if (auto e = dyn_cast<PoolAttr>(attr))
      return value(e);
    break;
  case isa::EnumKind::Axis:
    if (auto e = dyn_cast<AxisAttr>(attr))
      return value(e);
    break;
  case isa::EnumKind::IdxType:
    if (auto e = dyn_cast<IdxTypeAttr>(attr))
      return value(e);
    break;
  case isa::EnumKind::None:
  case isa::EnumKind::Space:
    break;
  }
  return std::nullopt;
}

/// The enum attribute for `value`, or null if it is not an enumerator.
static Attribute enumAttr(MLIRContext *ctx, isa::EnumKind kind, int64_t value) {
  if (value < 0 || value > UINT32_MAX)
    return {};
  auto v = static_cast<uint32_t>(value);
  auto make = [&](auto symbolized, auto tag) -> Attribute {
    using AttrT = decltype(tag);
    if (!symbolized)
      return {};
    return AttrT::get(ctx, *symbolized);
  };
  switch (kind) {
  case isa::EnumKind::DType:
    return make(symbolizeDType(v), DTypeAttr());
  case isa::EnumKind::Queue:
    return make(symbolizeQueue(v), QueueAttr());
  case isa::EnumKind::Bcast:
    return make(symbolizeBcast(v), BcastAttr());
  case isa::EnumKind::EmbFmt:
    return make(symbolizeEmbFmt(v), EmbFmtAttr());
  case isa::EnumKind::Pool:
    return make(symbolizePool(v), PoolAttr());
  case isa::EnumKind::Axis:
    return make(symbolizeAxis(v), AxisAttr());
  case isa::EnumKind::IdxType:
    return make(symbolizeIdxType(v), IdxTypeAttr());
  case isa::EnumKind::None:
  case isa::EnumKind::Space:
    break;
  }
  return {};
}

static std::string enumKindName(isa::EnumKind kind) {
  switch (kind) {
  case isa::EnumKind::DType:
    return "#npu<dtype>";
  case isa::EnumKind::Queue:
    return "#npu<queue>";
  case isa::EnumKind::Bcast:
    return "#npu<bcast>";
  case isa::EnumKind::EmbFmt:
    return "#npu<embfmt>";
  case isa::EnumKind::Pool:
    return "#npu<pool>";
  case isa::EnumKind::Axis:
    return "#npu<axis>";
  case isa::EnumKind::IdxType:
    return "#npu<idxtype>";
  case isa::EnumKind::None:
  case isa::EnumKind::Space:
    break;
  }
  return "enum";
}

LogicalResult mlir::nnaccel::npu::toISAInstruction(Operation *op,
                                                   isa::Instruction &inst,
                                                   std::string &error) {
  const isa::InstrDesc *desc = descOf(op);
  if (!desc) {
    error = "is not an npu instruction op";
    return failure();
  }
  inst = isa::Instruction(desc->opcode);
  for (unsigned i = 0; i < desc->numFields; ++i) {
    const isa::FieldDesc &field = desc->fields[i];
    if (field.kind == isa::FieldKind::MemSpace) {
      StringRef name = operandName(field);
      auto mem = op->getAttrOfType<MemAttr>(name);
      if (!mem) {
        error = ("requires memory operand '" + name + "' (#npu.mem)").str();
        return failure();
      }
      bool hasAddr = i + 1 < desc->numFields &&
                     desc->fields[i + 1].kind == isa::FieldKind::MemAddr;
      // Unsigned attribute values above INT64_MAX become negative here and
      // are then rejected by the ISA's range check, as intended.
      inst.fields[i] = static_cast<int64_t>(mem.getSpace());
      if (hasAddr) {
        inst.fields[i + 1] = static_cast<int64_t>(mem.getAddr());
        inst.fields[i + 2] = static_cast<int64_t>(mem.getReg());
        i += 2;
      } else {
        if (mem.getAddr() != 0) {
          error = ("operand '" + name +
                   "' is register-indirect and has no address field; write " +
                   stringifySpace(mem.getSpace()) + "[sN]")
                      .str();
          return failure();
        }
        inst.fields[i + 1] = static_cast<int64_t>(mem.getReg());
        i += 1;
      }
      continue;
    }
    StringRef name = field.name;
    Attribute attr = op->getAttr(name);
    if (!attr) {
      // Keyword fields default to 0; positional ones are required.
      if (field.positional) {
        error = ("requires attribute '" + name + "'").str();
        return failure();
      }
      inst.fields[i] = 0;
      continue;
    }
    switch (field.kind) {
    case isa::FieldKind::Enum: {
      std::optional<int64_t> v = enumValue(attr, field.enumKind);
      if (!v) {
        error = ("attribute '" + name + "' must be a " +
                 enumKindName(field.enumKind))
                    .str();
        return failure();
      }
      inst.fields[i] = *v;
      break;
    }
    case isa::FieldKind::F32Imm: {
      auto f = dyn_cast<FloatAttr>(attr);
      if (!f || !f.getType().isF32()) {
        error = ("attribute '" + name + "' must be an f32 float").str();
        return failure();
      }
      inst.fields[i] =
          static_cast<int64_t>(f.getValue().bitcastToAPInt().getZExtValue());
      break;
    }
    default: {
      auto n = dyn_cast<IntegerAttr>(attr);
      if (!n || n.getValue().getSignificantBits() > 64) {
        error = ("attribute '" + name + "' must be a 64-bit integer").str();
        return failure();
      }
      inst.fields[i] = n.getValue().getSExtValue();
      break;
    }
    }
  }
  uint8_t flags = 0;
  for (auto [bit, attrName] : FlagAttrs)
    if (op->getAttr(attrName))
      flags |= bit;
  inst.flags = flags;
  return success();
}

FailureOr<isa::Instruction>
mlir::nnaccel::npu::toISAInstruction(Operation *op) {
  isa::Instruction inst;
  std::string error;
  if (failed(toISAInstruction(op, inst, error)))
    return op->emitOpError(error);
  return inst;
}

FailureOr<isa::Program> mlir::nnaccel::npu::toISAProgram(ProgramOp program) {
  isa::Program result;
  if (program.getCardAttr().getInt() < 0 ||
      program.getCardAttr().getInt() > UINT16_MAX ||
      program.getCoreAttr().getInt() < 0 ||
      program.getCoreAttr().getInt() > UINT16_MAX)
    return program.emitOpError("card and core must be in [0, 65535]");
  result.card = static_cast<uint16_t>(program.getCardAttr().getInt());
  result.core = static_cast<uint16_t>(program.getCoreAttr().getInt());
  for (Operation &op : program.getBodyBlock()) {
    FailureOr<isa::Instruction> inst = toISAInstruction(&op);
    if (failed(inst))
      return failure();
    result.instructions.push_back(*inst);
  }
  return result;
}

Operation *
mlir::nnaccel::npu::fromISAInstruction(OpBuilder &builder, Location loc,
                                       const isa::Instruction &inst) {
  MLIRContext *ctx = builder.getContext();
  const isa::InstrDesc *desc =
      isa::lookupOpcode(static_cast<uint8_t>(inst.opcode));
  if (!desc) {
    emitError(loc) << "unknown opcode " << static_cast<unsigned>(inst.opcode);
    return nullptr;
  }
  OperationState state(loc, "npu." + std::string(desc->mnemonic));
  auto fail = [&](const Twine &message) -> Operation * {
    emitError(loc) << desc->mnemonic << ": " << message;
    return nullptr;
  };
  for (unsigned i = 0; i < desc->numFields; ++i) {
    const isa::FieldDesc &field = desc->fields[i];
    int64_t v = inst.fields[i];
    switch (field.kind) {
    case isa::FieldKind::MemSpace: {
      std::optional<Space> space =
          v >= 0 && v <= UINT32_MAX ? symbolizeSpace(static_cast<uint32_t>(v))
                                    : std::nullopt;
      if (!space)
        return fail("operand '" + operandName(field) + "' has memory space " +
                    Twine(v) + ", which is not defined");
      bool hasAddr = i + 1 < desc->numFields &&
                     desc->fields[i + 1].kind == isa::FieldKind::MemAddr;
      uint64_t addr = hasAddr ? static_cast<uint64_t>(inst.fields[i + 1]) : 0;
      uint64_t reg = static_cast<uint64_t>(inst.fields[i + (hasAddr ? 2 : 1)]);
      state.addAttribute(operandName(field),
                         MemAttr::get(ctx, *space, addr, reg));
      i += hasAddr ? 2 : 1;
      continue;
    }
    case isa::FieldKind::Enum: {
      if (!field.positional && v == 0)
        continue;
      Attribute attr = enumAttr(ctx, field.enumKind, v);
      if (!attr)
        return fail("field '" + Twine(field.name) + "' value " + Twine(v) +
                    " is not a valid enumerator");
      state.addAttribute(field.name, attr);
      continue;
    }
    case isa::FieldKind::F32Imm: {
      if (v == 0)
        continue;
      llvm::APFloat value(llvm::APFloat::IEEEsingle(),
                          llvm::APInt(32, static_cast<uint32_t>(v)));
      state.addAttribute(field.name,
                         FloatAttr::get(builder.getF32Type(), value));
      continue;
    }
    default:
      if (!field.positional && v == 0)
        continue;
      state.addAttribute(field.name, builder.getI64IntegerAttr(v));
      continue;
    }
  }
  for (auto [bit, attrName] : FlagAttrs)
    if (inst.flags & bit)
      state.addAttribute(attrName, builder.getUnitAttr());
  return builder.create(state);
}

std::string mlir::nnaccel::npu::getDefaultProgramName(unsigned card,
                                                      unsigned core) {
  return "card" + std::to_string(card) + "_core" + std::to_string(core);
}

ProgramOp mlir::nnaccel::npu::fromISAProgram(OpBuilder &builder, Location loc,
                                             const isa::Program &program,
                                             ArrayRef<Location> instLocs,
                                             StringRef name, StringRef target) {
  builder.getContext()->getOrLoadDialect<NPUDialect>();
  std::string symbol = name.empty()
                           ? getDefaultProgramName(program.card, program.core)
                           : name.str();
  auto op = builder.create<ProgramOp>(loc, symbol, program.card, program.core,
                                      target);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&op.getBodyBlock());
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    Location instLoc = i < instLocs.size() ? instLocs[i] : loc;
    if (!fromISAInstruction(builder, instLoc, program.instructions[i])) {
      op->erase();
      return {};
    }
  }
  return op;
}
