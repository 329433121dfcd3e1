//===- fuzz-isa-decode.cpp - Fuzz the ISA binary decoder and verifier -----===//
//
// Input: a program binary (NNPU header + 64-bit instruction words). Decodes
// it, and when it decodes verifies it against the default target, prints it
// and checks that it re-encodes to the bytes it came from.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Decoded.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Verifier.h"

#include <cstring>

using namespace nnaccel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Single instructions at every offset the words could start at.
  for (size_t offset = 0; offset + 8 <= size && offset < 64; offset += 8) {
    auto inst = isa::decode(data, size, offset);
    if (inst) {
      (void)isa::printInstruction(*inst);
      (void)isa::decode(*inst);
      (void)isa::verifyInstruction(*inst, fuzz::defaultTarget());
    }
  }

  auto program = isa::decodeProgram(data, size);
  if (!program)
    return 0;
  (void)isa::printAsm(*program);
  isa::VerifyOptions options;
  options.maxDispatched = 1 << 14;
  (void)isa::verifyProgram(*program, fuzz::defaultTarget(), options);
  // A program that decoded re-encodes to the same bytes.
  auto bytes = isa::encodeProgram(*program);
  if (!bytes) {
    std::fprintf(stderr, "decoded program does not re-encode: %s\n",
                 bytes.message().c_str());
    std::abort();
  }
  return 0;
}
