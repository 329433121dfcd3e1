//===- fuzz-tensor.cpp - Fuzz the runtime's input tensor readers ----------===//
//
// Input: the bytes of a TensorProto (.pb) or a NumPy (.npy) file, as given
// to nnaccel-run --input. Both parsers see every input; whatever they accept
// must serialise again.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/TensorIO/TensorIO.h"

#include <cstdio>
#include <cstdlib>

using namespace nnaccel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto proto = tensorio::parseTensorProto(data, size, "fuzz.pb");
  if (proto) {
    auto bytes = tensorio::serializeTensorProto(proto->tensor, proto->name);
    if (!bytes) {
      std::fprintf(stderr, "parsed TensorProto does not serialise: %s\n",
                   bytes.status().message().c_str());
      std::abort();
    }
  }
  auto npy = tensorio::parseNpy(data, size, "fuzz.npy");
  if (npy) {
    auto bytes = tensorio::serializeNpy(*npy);
    if (!bytes) {
      std::fprintf(stderr, "parsed .npy does not serialise: %s\n",
                   bytes.status().message().c_str());
      std::abort();
    }
  }
  return 0;
}
