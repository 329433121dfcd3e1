//===- ONNXFuzzSupport.h - Shared body of the two ONNX fuzz targets -*- C++
//-*-//
//
// Imports the input with importONNXBuffer (idiom recognition and
// canonicalisation included, as nnaccel-compile runs it) and verifies the
// module it produces: the importer must either diagnose the model or build
// valid IR. Diagnostics are swallowed. The MLIRContext is kept across
// inputs for speed and replaced every few thousand so that uniqued types and
// attributes do not accumulate without bound.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_FUZZ_ONNXFUZZSUPPORT_H
#define NNACCEL_FUZZ_ONNXFUZZSUPPORT_H

#include "nnaccel/Import/ONNX/ImportONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace nnaccel::fuzz {

inline void importAndVerify(llvm::StringRef buffer) {
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 4096 == 0) {
    mlir::DialectRegistry registry;
    mlir::nnaccel::registerONNXImportDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(
        registry, mlir::MLIRContext::Threading::DISABLED);
    context->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  }
  mlir::nnaccel::ONNXImportOptions options;
  // External data resolves against a directory that does not exist.
  auto module = mlir::nnaccel::importONNXBuffer(
      buffer, "/nonexistent/fuzz.onnx", context.get(), options);
  if (module && mlir::failed(mlir::verify(*module))) {
    std::fprintf(stderr, "the importer produced invalid IR\n");
    std::abort();
  }
}

} // namespace nnaccel::fuzz

#endif // NNACCEL_FUZZ_ONNXFUZZSUPPORT_H
