//===- fuzz-asm.cpp - Fuzz the ISA assembler ------------------------------===//
//
// Input: assembly text. Parses it, and when it parses verifies it against
// the default target and round-trips it: print -> parse must give the same
// program, and a program that encodes must decode back to itself.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Verifier.h"

#include <string_view>

using namespace nnaccel;

static void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto program = isa::parseAsm(text);
  if (!program)
    return 0;
  isa::VerifyOptions options;
  options.maxDispatched = 1 << 14;
  (void)isa::verifyProgram(*program, fuzz::defaultTarget(), options);

  std::string printed = isa::printAsm(*program);
  auto reparsed = isa::parseAsm(printed);
  if (!reparsed)
    fail("printed program does not parse", reparsed.message());
  if (!(*reparsed == *program))
    fail("print/parse round trip changed the program", printed);

  auto bytes = isa::encodeProgram(*program);
  if (!bytes)
    return 0; // Field ranges the text syntax allows but the encoding does not.
  auto decoded = isa::decodeProgram(*bytes);
  if (!decoded)
    fail("encoded program does not decode", decoded.message());
  if (!(*decoded == *program))
    fail("encode/decode round trip changed the program", printed);
  return 0;
}
