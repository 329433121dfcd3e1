//===- NPUTranslations.cpp - npu <-> asm/binary translations --------------===//
//
// The four translations between npu IR and the soft-NPU's external forms,
// all delegating to lib/ISA (printAsm/parseAsm, encodeProgram/decodeProgram)
// through the lossless conversions of NPU/NPUToISA.h.
//
// One program per invocation, as one assembly or binary file is one core's
// program (docs/isa.md sections 9 and 10): importing yields a module holding
// one `npu.program @card<C>_core<K>`; exporting takes the module's only
// program, or the one `--npu-program=<symbol>` names. Errors never crash:
// assembly errors point at the line and column in the input file, binary
// errors give the byte offset.
//
//===----------------------------------------------------------------------===//

#include "NPUTranslations.h"

#include "NPU/NPUDialect.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUTarget.h"
#include "NPU/NPUToISA.h"

#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Verifier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::nnaccel;

namespace isa = ::nnaccel::isa;

static llvm::cl::opt<std::string> programName(
    "npu-program",
    llvm::cl::desc("Symbol of the npu.program to export with --npu-to-asm / "
                   "--npu-to-binary when the module holds several"),
    llvm::cl::value_desc("symbol"));

static void registerNPUDialect(DialectRegistry &registry) {
  registry.insert<npu::NPUDialect>();
}

/// The program to export: `op` itself, the one program in it, or the one
/// --npu-program names.
static FailureOr<npu::ProgramOp> selectProgram(Operation *op) {
  if (auto program = dyn_cast<npu::ProgramOp>(op))
    return program;
  SmallVector<npu::ProgramOp> programs;
  op->walk([&](npu::ProgramOp program) { programs.push_back(program); });
  if (!programName.empty()) {
    for (npu::ProgramOp program : programs)
      if (program.getSymName() == programName)
        return program;
    return op->emitError() << "no npu.program named '" << programName << "'";
  }
  if (programs.size() == 1)
    return programs.front();
  if (programs.empty())
    return op->emitError() << "no npu.program to translate";
  return op->emitError() << "found " << programs.size()
                         << " npu.program ops; choose one with "
                            "--npu-program=<symbol> (one program per file)";
}

static FailureOr<isa::Program> exportProgram(Operation *op) {
  FailureOr<npu::ProgramOp> program = selectProgram(op);
  if (failed(program))
    return failure();
  return npu::toISAProgram(*program);
}

/// "L:C: message" from lib/ISA's assembler, split into an MLIR location in
/// `file` and the message. Other shapes keep the whole text.
static std::pair<Location, std::string>
locateAsmError(MLIRContext *ctx, StringRef file, StringRef error) {
  auto [lineText, rest] = error.split(':');
  auto [colText, message] = rest.split(':');
  unsigned line, col;
  if (lineText.getAsInteger(10, line) || colText.getAsInteger(10, col) ||
      message.empty())
    return {FileLineColLoc::get(ctx, file, 0, 0), error.str()};
  return {FileLineColLoc::get(ctx, file, line, col), message.ltrim().str()};
}

/// Location of each instruction of an assembly file: the first non-blank
/// character of each line that holds an instruction (the syntax has one per
/// line; blank, comment-only and directive lines hold none).
static SmallVector<Location>
instructionLocations(MLIRContext *ctx, StringRef file, StringRef text) {
  SmallVector<Location> locs;
  unsigned lineNo = 0;
  for (StringRef rest = text; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    ++lineNo;
    StringRef code =
        line.take_until([](char c) { return c == '#' || c == ';'; });
    StringRef trimmed = code.ltrim();
    if (trimmed.rtrim().empty() || trimmed.starts_with("."))
      continue;
    unsigned col = static_cast<unsigned>(code.size() - trimmed.size()) + 1;
    locs.push_back(FileLineColLoc::get(ctx, file, lineNo, col));
  }
  return locs;
}

/// Builds `module { npu.program ... }` for an imported program.
static OwningOpRef<Operation *> importProgram(MLIRContext *context,
                                              Location loc,
                                              const isa::Program &program,
                                              ArrayRef<Location> instLocs) {
  context->loadDialect<npu::NPUDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder(module->getBodyRegion());
  if (!npu::fromISAProgram(builder, loc, program, instLocs, {},
                           npu::getDefaultTargetSpec()))
    return nullptr;
  return OwningOpRef<Operation *>(module.release());
}

/// Checks a decoded binary with the ISA verifier before it becomes IR, so
/// errors name the byte offset of the offending word rather than an IR
/// location.
static LogicalResult verifyDecoded(MLIRContext *ctx, StringRef file,
                                   const isa::Program &program) {
  Location fileLoc = FileLineColLoc::get(ctx, file, 0, 0);
  auto offsetOf = [](size_t index) {
    return isa::BinaryHeader::Size + index * isa::WordBytes;
  };
  std::string spec = npu::getDefaultTargetSpec(), error;
  const isa::TargetDesc *target = &npu::getPermissiveTarget();
  if (!spec.empty()) {
    target = npu::loadTarget(spec, error);
    if (!target)
      return emitError(fileLoc)
             << "cannot load target '" << spec << "': " << error;
  }
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const isa::Instruction &inst = program.instructions[i];
    if (isa::Error e =
            isa::verifyInstruction(inst, *target, program.card, program.core))
      return emitError(fileLoc)
             << "at byte offset " << offsetOf(i) << ": instruction " << i
             << " (" << inst.desc().mnemonic << "): " << e.message();
  }
  if (spec.empty())
    return success();
  bool ok = true;
  for (const isa::Diagnostic &diag : isa::verifyProgram(program, *target)) {
    bool isError = diag.severity == isa::Diagnostic::Severity::Error;
    ok &= !isError;
    InFlightDiagnostic d = isError ? emitError(fileLoc) : emitWarning(fileLoc);
    if (diag.index < program.instructions.size())
      d << "at byte offset " << offsetOf(diag.index) << ": instruction "
        << diag.index << " ("
        << program.instructions[diag.index].desc().mnemonic
        << "): " << diag.message;
    else
      d << "program: " << diag.message;
  }
  return success(ok);
}

void mlir::nnaccel::registerNPUTranslations() {
  npu::registerNPUTargetCLOptions();

  TranslateFromMLIRRegistration toAsm(
      "npu-to-asm", "Print an npu.program as soft-NPU assembly",
      [](Operation *op, raw_ostream &output) -> LogicalResult {
        FailureOr<isa::Program> program = exportProgram(op);
        if (failed(program))
          return failure();
        output << isa::printAsm(*program);
        return success();
      },
      registerNPUDialect);

  TranslateFromMLIRRegistration toBinary(
      "npu-to-binary", "Encode an npu.program as a soft-NPU binary",
      [](Operation *op, raw_ostream &output) -> LogicalResult {
        FailureOr<isa::Program> program = exportProgram(op);
        if (failed(program))
          return failure();
        isa::Expected<std::vector<uint8_t>> bytes =
            isa::encodeProgram(*program);
        if (!bytes)
          return op->emitError() << "cannot encode: " << bytes.message();
        output.write(reinterpret_cast<const char *>(bytes->data()),
                     bytes->size());
        return success();
      },
      registerNPUDialect);

  TranslateToMLIRRegistration fromAsm(
      "asm-to-npu", "Parse soft-NPU assembly into an npu.program",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        StringRef file = buffer->getBufferIdentifier();
        StringRef text = buffer->getBuffer();
        isa::Expected<isa::Program> program =
            isa::parseAsm(std::string_view(text.data(), text.size()));
        if (!program) {
          auto [loc, message] =
              locateAsmError(context, file, program.message());
          emitError(loc) << message;
          return nullptr;
        }
        SmallVector<Location> locs = instructionLocations(context, file, text);
        if (locs.size() != program->instructions.size())
          locs.clear(); // unexpected layout: fall back to the file location
        return importProgram(context, FileLineColLoc::get(context, file, 1, 1),
                             *program, locs);
      },
      registerNPUDialect);

  TranslateToMLIRRegistration fromBinary(
      "binary-to-npu", "Decode a soft-NPU binary into an npu.program",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        StringRef file = buffer->getBufferIdentifier();
        auto *data =
            reinterpret_cast<const uint8_t *>(buffer->getBufferStart());
        isa::Expected<isa::Program> program =
            isa::decodeProgram(data, buffer->getBufferSize());
        if (!program) {
          emitError(FileLineColLoc::get(context, file, 0, 0))
              << program.message();
          return nullptr;
        }
        if (failed(verifyDecoded(context, file, *program)))
          return nullptr;
        // Instruction i is located at line 0, column = its byte offset.
        SmallVector<Location> locs;
        for (size_t i = 0; i < program->instructions.size(); ++i)
          locs.push_back(FileLineColLoc::get(
              context, file, 0,
              static_cast<unsigned>(isa::BinaryHeader::Size +
                                    i * isa::WordBytes)));
        return importProgram(context, FileLineColLoc::get(context, file, 0, 0),
                             *program, locs);
      },
      registerNPUDialect);
}
