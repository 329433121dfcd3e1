//===- fuzz-onnx-text.cpp - Fuzz the ONNX text importer -------------------===//
//
// Input: ONNX text format (onnx::OnnxParser syntax, as in
// test/Import/*.onnxtxt). Inputs that would be read as binary protobuf are
// skipped; the binary target covers them.
//
//===----------------------------------------------------------------------===//

#include "ONNXFuzzSupport.h"

#include "llvm/ADT/StringExtras.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef buffer(reinterpret_cast<const char *>(data), size);
  llvm::StringRef rest = buffer.ltrim();
  if (rest.empty() || !(rest.front() == '<' || rest.front() == '#' ||
                        llvm::isAlpha(rest.front())))
    return 0;
  nnaccel::fuzz::importAndVerify(buffer);
  return 0;
}
