//===- nnaccel-translate.cpp - nnaccel translation driver -----------------===//
//
// mlir-translate for nnaccel: `--import-onnx` turns a binary or text ONNX
// model into accel IR. Options of the importer (`--input-shape`,
// `--no-idioms`) are registered here so they follow the translation flags.
// The npu translations (--npu-to-asm, --asm-to-npu, --npu-to-binary,
// --binary-to-npu) live in NPUTranslations.cpp.
//
//===----------------------------------------------------------------------===//

#include "NPUTranslations.h"
#include "nnaccel/Import/ONNX/ImportONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::opt<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("Static shapes of graph inputs: name:1x37,other:4x8"),
    llvm::cl::value_desc("shapes"));

static llvm::cl::opt<bool>
    noIdioms("no-idioms",
             llvm::cl::desc("Do not recognise idioms or canonicalise after "
                            "import (shows the raw conversion)"));

static void registerImportONNX() {
  TranslateToMLIRRegistration importONNX(
      "import-onnx", "Import an ONNX model (binary or text) into accel IR",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        nnaccel::ONNXImportOptions options;
        options.recognizeIdioms = !noIdioms;
        std::string error;
        if (failed(nnaccel::parseInputShapes(inputShapes, options.inputShapes,
                                             error))) {
          emitError(UnknownLoc::get(context)) << "--input-shape: " << error;
          return nullptr;
        }
        OwningOpRef<ModuleOp> module = nnaccel::importONNXBuffer(
            buffer->getBuffer(), buffer->getBufferIdentifier(), context,
            options);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        nnaccel::registerONNXImportDialects(registry);
      });
}

int main(int argc, char **argv) {
  registerImportONNX();
  mlir::nnaccel::registerNPUTranslations();
  return failed(mlirTranslateMain(argc, argv, "nnaccel translation driver"));
}
