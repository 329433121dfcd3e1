//===- fuzz-onnx-binary.cpp - Fuzz the binary (protobuf) ONNX importer ----===//
//
// Input: a serialised ModelProto. Inputs the importer would take for ONNX
// text (first significant character '<', '#' or a letter) are skipped; the
// text target covers them.
//
//===----------------------------------------------------------------------===//

#include "ONNXFuzzSupport.h"

#include "llvm/ADT/StringExtras.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef buffer(reinterpret_cast<const char *>(data), size);
  llvm::StringRef rest = buffer.ltrim();
  if (!rest.empty() && (rest.front() == '<' || rest.front() == '#' ||
                        llvm::isAlpha(rest.front())))
    return 0;
  nnaccel::fuzz::importAndVerify(buffer);
  return 0;
}
