//===- NPUDialect.cpp - npu dialect registration --------------------------===//
//
// Registers the npu ops and attributes, implements the ISA-style syntax of
// memory operands, and checks the discardable `npu.target` attribute.
//
//===----------------------------------------------------------------------===//

#include "NPU/NPUDialect.h"
#include "NPU/NPUOps.h"

#include "nnaccel/ISA/Types.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nnaccel::npu;

namespace isa = ::nnaccel::isa;

#include "NPU/NPUDialect.cpp.inc"
#include "NPU/NPUEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "NPU/NPUAttrs.cpp.inc"

// The conversions to lib/ISA cast between these enums, so their encodings
// must agree.
static_assert(static_cast<unsigned>(DType::i64) ==
                  static_cast<unsigned>(isa::DType::I64) &&
              static_cast<unsigned>(DType::mxint8) ==
                  static_cast<unsigned>(isa::DType::MXINT8) &&
              static_cast<unsigned>(DType::mxfp8e4m3) ==
                  static_cast<unsigned>(isa::DType::MXFP8E4M3) &&
              getMaxEnumValForDType() + 1 == isa::NumDTypes);
static_assert(static_cast<unsigned>(Space::chain) ==
                  static_cast<unsigned>(isa::Space::Chain) &&
              getMaxEnumValForSpace() + 1 == isa::NumSpaces);
static_assert(static_cast<unsigned>(Queue::ctl) ==
              static_cast<unsigned>(isa::Queue::Ctl));
static_assert(static_cast<unsigned>(Bcast::scalar) ==
              static_cast<unsigned>(isa::Bcast::Scalar));
static_assert(static_cast<unsigned>(EmbFmt::rw4) ==
              static_cast<unsigned>(isa::EmbFmt::RW4));
static_assert(static_cast<unsigned>(Pool::mean) ==
              static_cast<unsigned>(isa::Pool::Mean));
static_assert(static_cast<unsigned>(Axis::rows) ==
              static_cast<unsigned>(isa::Axis::Rows));
static_assert(static_cast<unsigned>(IdxType::i64) ==
              static_cast<unsigned>(isa::IdxType::I64));

void NPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "NPU/NPUOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "NPU/NPUAttrs.cpp.inc"
      >();
}

LogicalResult NPUDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    auto spec = dyn_cast<StringAttr>(attr.getValue());
    if (!spec || spec.getValue().empty())
      return op->emitOpError()
             << "'" << getTargetAttrName()
             << "' must be a non-empty string naming a target";
    return success();
  }
  return op->emitOpError() << "unknown npu dialect attribute '"
                           << attr.getName().getValue() << "'";
}

//===----------------------------------------------------------------------===//
// Memory operands.
//===----------------------------------------------------------------------===//

/// Parses `sN` (any N; the verifier checks the range).
static ParseResult parseScalarRegister(AsmParser &parser, uint64_t &reg) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  if (word.size() < 2 || word[0] != 's' ||
      word.drop_front().getAsInteger(10, reg))
    return parser.emitError(loc)
           << "expected a scalar register s0..s31, got '" << word << "'";
  return success();
}

ParseResult mlir::nnaccel::npu::detail::parseMemOperand(AsmParser &parser,
                                                        MemAttr &result,
                                                        bool indirect) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  std::optional<Space> space = symbolizeSpace(word);
  if (!space)
    return parser.emitError(loc)
           << "expected a memory space (dram, shared, vrf, mrf, acc or "
              "chain), got '"
           << word << "'";
  uint64_t addr = 0, reg = 0;
  // The chain operand has no address; `chain[...]` only appears for
  // instructions decoded with stray address bits, which still round-trip.
  if (*space == Space::chain && failed(parser.parseOptionalLSquare())) {
    result = MemAttr::get(parser.getContext(), *space, 0, 0);
    return success();
  }
  if (*space != Space::chain && parser.parseLSquare())
    return failure();
  SMLoc addrLoc = parser.getCurrentLocation();
  OptionalParseResult hasAddr = parser.parseOptionalInteger(addr);
  if (hasAddr.has_value()) {
    if (failed(*hasAddr))
      return failure();
    if (indirect)
      return parser.emitError(addrLoc)
             << "a register-indirect operand has no address: write " << word
             << "[sN]";
    if (succeeded(parser.parseOptionalPlus()) &&
        parseScalarRegister(parser, reg))
      return failure();
  } else if (parseScalarRegister(parser, reg)) {
    return failure();
  }
  if (parser.parseRSquare())
    return failure();
  result = MemAttr::get(parser.getContext(), *space, addr, reg);
  return success();
}

void mlir::nnaccel::npu::detail::printMemOperand(AsmPrinter &printer,
                                                 MemAttr mem, bool indirect) {
  raw_ostream &os = printer.getStream();
  os << stringifySpace(mem.getSpace());
  uint64_t addr = mem.getAddr(), reg = mem.getReg();
  if (mem.isChain() && addr == 0 && reg == 0)
    return;
  os << '[';
  // A register-indirect operand always names its register; a nonzero
  // address there is invalid but printed so that nothing is hidden.
  if (addr != 0 || (reg == 0 && !indirect)) {
    os << "0x";
    os.write_hex(addr);
    if (reg != 0)
      os << "+s" << reg;
  } else {
    os << 's' << reg;
  }
  os << ']';
}

Attribute MemAttr::parse(AsmParser &parser, Type) {
  MemAttr result;
  if (parser.parseLess() ||
      mlir::nnaccel::npu::detail::parseMemOperand(parser, result, false) ||
      parser.parseGreater())
    return {};
  return result;
}

void MemAttr::print(AsmPrinter &printer) const {
  printer << '<';
  mlir::nnaccel::npu::detail::printMemOperand(printer, *this,
                                              /*indirect=*/false);
  printer << '>';
}
