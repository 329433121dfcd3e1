//===- NPUOps.cpp - npu operations ----------------------------------------===//
//
// The generated op definitions (one TU, they are large), the custom
// assembly directives for memory operands and scalar registers, and the
// verifiers. Every rule about instructions and programs is lib/ISA's: this
// file only converts ops with NPUToISA and maps the ISA's diagnostics back to
// the ops they concern.
//
//===----------------------------------------------------------------------===//

#include "NPU/NPUOps.h"
#include "NPU/NPUTarget.h"
#include "NPU/NPUToISA.h"

#include "nnaccel/ISA/Verifier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::nnaccel::npu;

namespace isa = ::nnaccel::isa;

//===----------------------------------------------------------------------===//
// Custom assembly directives.
//===----------------------------------------------------------------------===//

static ParseResult parseMem(OpAsmParser &parser, MemAttr &mem) {
  return mlir::nnaccel::npu::detail::parseMemOperand(parser, mem,
                                                     /*indirect=*/false);
}
static void printMem(OpAsmPrinter &printer, Operation *, MemAttr mem) {
  mlir::nnaccel::npu::detail::printMemOperand(printer, mem, /*indirect=*/false);
}

static ParseResult parseMemR(OpAsmParser &parser, MemAttr &mem) {
  return mlir::nnaccel::npu::detail::parseMemOperand(parser, mem,
                                                     /*indirect=*/true);
}
static void printMemR(OpAsmPrinter &printer, Operation *, MemAttr mem) {
  mlir::nnaccel::npu::detail::printMemOperand(printer, mem, /*indirect=*/true);
}

/// `sN`. Any N parses; the ISA's range check rejects N > 31 with the field
/// name, which is a better message than a parse error.
static ParseResult parseSReg(OpAsmParser &parser, IntegerAttr &reg) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  uint64_t n;
  if (word.size() < 2 || word[0] != 's' ||
      word.drop_front().getAsInteger(10, n))
    return parser.emitError(loc)
           << "expected a scalar register s0..s31, got '" << word << "'";
  reg = parser.getBuilder().getI64IntegerAttr(static_cast<int64_t>(n));
  return success();
}
static void printSReg(OpAsmPrinter &printer, Operation *, IntegerAttr reg) {
  printer << 's' << reg.getValue();
}

/// An enumerator as a bare keyword (`f16`, `row`), matching the ISA syntax.
/// (The enum attributes' own syntax has a leading space for the generic
/// `#npu<dtype f16>` form, which would misalign the custom form.)
template <typename AttrT>
static ParseResult parseEnum(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(word);
  if (!value) {
    InFlightDiagnostic diag = parser.emitError(loc)
                              << "'" << word << "' is not one of:";
    // Enumerators are dense from 0; the underlying type is fixed, so the
    // cast past the last one is defined and stringifies to "".
    for (uint32_t v = 0;; ++v) {
      StringRef name = stringifyEnum(static_cast<EnumT>(v));
      if (name.empty())
        break;
      diag << " " << name;
    }
    return diag;
  }
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}
template <typename AttrT>
static void printEnum(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

#define GET_OP_CLASSES
#include "NPU/NPUOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Instruction verification.
//===----------------------------------------------------------------------===//

/// Card, core and target an instruction of `program` is checked against.
/// Target load failures are reported by the program's own verifier, which
/// runs first, so here they just mean "no target".
static const isa::TargetDesc &contextOf(ProgramOp program, unsigned &card,
                                        unsigned &core) {
  card = core = 0;
  if (!program)
    return getPermissiveTarget();
  card = static_cast<unsigned>(program.getCardAttr().getInt());
  core = static_cast<unsigned>(program.getCoreAttr().getInt());
  std::string spec = getTargetSpec(program), error;
  if (spec.empty())
    return getPermissiveTarget();
  const isa::TargetDesc *target = loadTarget(spec, error);
  return target ? *target : getPermissiveTarget();
}

LogicalResult mlir::nnaccel::npu::detail::verifyInstructionOp(Operation *op) {
  isa::Instruction inst;
  std::string error;
  if (failed(toISAInstruction(op, inst, error)))
    return op->emitOpError(error);
  unsigned card, core;
  const isa::TargetDesc &target =
      contextOf(dyn_cast_or_null<ProgramOp>(op->getParentOp()), card, core);
  if (isa::Error e = isa::verifyInstruction(inst, target, card, core))
    return op->emitOpError(e.message());
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp.
//===----------------------------------------------------------------------===//

void ProgramOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                      uint16_t card, uint16_t core, StringRef target) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getCardAttrName(state.name),
                     builder.getI64IntegerAttr(card));
  state.addAttribute(getCoreAttrName(state.name),
                     builder.getI64IntegerAttr(core));
  if (!target.empty())
    state.addAttribute(getTargetAttrName(state.name),
                       builder.getStringAttr(target));
  Region *body = state.addRegion();
  body->push_back(new Block());
}

LogicalResult DramTensorOp::verify() {
  if (getAddressAttr().getInt() < 0)
    return emitOpError("address ")
           << getAddressAttr().getInt() << " is negative";
  if (!getType().hasStaticShape())
    return emitOpError("needs a statically shaped tensor, got ") << getType();
  return success();
}

LogicalResult ProgramOp::verify() {
  // The binary header stores card and core as 16-bit fields.
  if (getCardAttr().getInt() < 0 || getCardAttr().getInt() > UINT16_MAX)
    return emitOpError("card ")
           << getCardAttr().getInt() << " is not in [0, 65535]";
  if (getCoreAttr().getInt() < 0 || getCoreAttr().getInt() > UINT16_MAX)
    return emitOpError("core ")
           << getCoreAttr().getInt() << " is not in [0, 65535]";
  if (std::optional<StringRef> own = getTarget(); own && own->empty())
    return emitOpError("target must not be empty");
  if (std::optional<ArrayRef<int64_t>> pinned = getPinnedMrf()) {
    if (pinned->size() % 2)
      return emitOpError("pinned_mrf must hold [begin, end) pairs");
    for (size_t i = 0; i < pinned->size(); i += 2)
      if ((*pinned)[i] < 0 || (*pinned)[i] >= (*pinned)[i + 1])
        return emitOpError("pinned_mrf range [")
               << (*pinned)[i] << ", " << (*pinned)[i + 1]
               << ") is not a non-empty range of non-negative addresses";
  }
  for (Operation &op : getBodyBlock())
    if (!isInstructionOp(&op))
      return op.emitOpError("cannot appear in an npu.program: its body "
                            "holds only npu instruction ops");
  std::string spec = getTargetSpec(*this);
  if (!spec.empty()) {
    std::string error;
    if (!loadTarget(spec, error))
      return emitOpError("cannot load target '")
             << spec << "' (" << resolveTargetPath(spec) << "): " << error;
  }
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  // Instructions have been verified on their own by now; what remains is
  // the whole-program verifier, which needs a target.
  std::string spec = getTargetSpec(*this), error;
  if (spec.empty())
    return success();
  const isa::TargetDesc *target = loadTarget(spec, error);
  if (!target)
    return emitOpError("cannot load target '") << spec << "': " << error;
  FailureOr<isa::Program> program = toISAProgram(*this);
  if (failed(program))
    return failure();
  SmallVector<Operation *> ops;
  for (Operation &op : getBodyBlock())
    ops.push_back(&op);
  bool ok = true;
  isa::VerifyOptions options;
  if (std::optional<ArrayRef<int64_t>> pinned = getPinnedMrf())
    for (size_t i = 0; i + 1 < pinned->size(); i += 2)
      options.preloaded.push_back({isa::Space::Mrf, uint64_t((*pinned)[i]),
                                   uint64_t((*pinned)[i + 1])});
  for (const isa::Diagnostic &diag :
       isa::verifyProgram(*program, *target, options)) {
    bool isError = diag.severity == isa::Diagnostic::Severity::Error;
    ok &= !isError;
    if (diag.index < ops.size()) {
      if (isError)
        ops[diag.index]->emitOpError(diag.message);
      else
        ops[diag.index]->emitWarning(diag.message);
    } else if (isError) {
      emitOpError(diag.message);
    } else {
      emitWarning(diag.message);
    }
  }
  return success(ok);
}
